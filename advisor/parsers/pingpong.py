"""Point-to-point tests between two hosts that are not perftest: libibverbs' example
ping-pongs (``ibv_rc_pingpong``, ``ibv_ud_pingpong``, ``ibv_srq_pingpong`` ...) and UCX's
``ucx_perftest``.

- The ping-pongs (rdma-core libibverbs/examples/rc_pingpong.c and its twins) print each side's
  ``local address:  LID 0x...., QPN 0x......, PSN 0x......, GID ...`` and the peer's ``remote
  address:`` once the TCP exchange is done, then at the end ``8192000 bytes in 0.01 seconds =
  5242.88 Mbit/sec`` and ``1000 iters in 0.01 seconds = 12.50 usec/iter``. A completion error
  reads ``Failed status transport retry counter exceeded (12) for wr_id 2``; a run that
  exchanged its addresses and printed no result stopped or hung before its traffic was done.
- ``ucx_perftest`` prints a table under ``overhead (usec)``, ``bandwidth (MB/s)`` and ``message
  rate (msg/s)`` headings, a row a report interval and its ``Final:`` row: iterations, the
  overhead's percentile, average and overall, the bandwidth's average and overall, the message
  rate's average and overall.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.parsers import ParseError

SIGNATURE = (
    r"^[ \t]*local address:[ \t]+LID 0x[0-9a-fA-F]+, QPN 0x[0-9a-fA-F]+, PSN 0x[0-9a-fA-F]+"
    r"|^\d+ bytes in [\d.]+ seconds = [\d.]+ Mbit/sec[ \t]*$"
    r"|^Final:[ \t]+\d+[ \t]+[\d.]+[ \t]+[\d.]+[ \t]+[\d.]+[ \t]+[\d.]+[ \t]+[\d.]+"
)
_ADDRESS_RE = re.compile(
    r"^\s*(?P<side>local|remote) address:\s+LID (?P<lid>0x[0-9a-fA-F]+), QPN (?P<qpn>0x[0-9a-fA-F]+)"
    # (ibv_ud_pingpong prints "PSN 0x%06x: GID %s", the others ", GID %s")
    r"(?:, PSN 0x[0-9a-fA-F]+)?(?:[,:] GID (?P<gid>\S+))?"
)
_RESULT_RE = re.compile(
    r"^(?P<bytes>\d+) bytes in (?P<s>\d+(?:\.\d+)?) seconds = (?P<mbit>\d+(?:\.\d+)?) Mbit/sec"
)
_ITERS_RE = re.compile(
    r"^(?P<iters>\d+) iters in (?P<s>\d+(?:\.\d+)?) seconds = (?P<usec>\d+(?:\.\d+)?) usec/iter"
)
# the example programs' failures (rc_pingpong.c and its twins): a completion's status in
# ibv_wc_status_str's words, and the set-up steps' own lines
_PINGPONG_ERROR_RE = re.compile(
    r"^\s*(?P<what>Failed status (?P<status>.+?) \((?P<n>\d+)\) for wr_id \d+"
    r"|Couldn't connect to \S+|Couldn't get port info|Couldn't get local LID|Couldn't create QP"
    r"|Couldn't post send|Couldn't post receive|Failed to modify QP to (?:INIT|RTR|RTS)"
    r"|Couldn't read remote address|Couldn't read/write remote address"
    r"|(?:client|server) read(?:/write)?: \S.*|Couldn't get context for \S+|No IB devices found"
    r"|IB device \S+ not found|Completion was found in CQ with status 0x[0-9a-fA-F]+"
    r"|Failed to get the port info|ibv_poll_cq failed)"
)
_HANG_RE = re.compile(r"\bhang(?:s|ed|ing)?\b", re.IGNORECASE)
_NOT_HANG_RE = re.compile(
    r"\b(?:not|n't|never|no)\s+hang", re.IGNORECASE
)  # (a note that it did not)
# the steps before any RDMA traffic: the TCP exchange of addresses, the device, port and QP set-up
# (rc_pingpong.c's pp_client_exch_dest / pp_server_exch_dest and pp_init_ctx, and
# pp_connect_ctx's move of the QP to RTR and RTS before any work request is posted); a failure
# there is no stalled transfer: none was tried
_SETUP_ERROR_RE = re.compile(
    r"^(?:Couldn't connect to|Couldn't get port info|Couldn't get local LID|Couldn't create QP"
    r"|Failed to modify QP to INIT|Couldn't read remote address|Couldn't read/write remote address"
    r"|(?:client|server) read|Couldn't get context for|No IB devices found|IB device \S+ not found"
    r"|Failed to get the port info|Failed to modify QP to (?:RTR|RTS)|Couldn't connect to remote QP)"
)
_UCX_HEAD_RE = re.compile(r"bandwidth \(MB/s\)")
_UCX_TEST_RE = re.compile(r"^=+\s*(?P<test>\w+)\s*=+\s*$")
_UCX_FINAL_RE = re.compile(
    r"^Final:\s+(?P<iters>\d+)\s+(?P<pct>[\d.]+)\s+(?P<lat_avg>[\d.]+)\s+(?P<lat_all>[\d.]+)\s+"
    r"(?P<bw_avg>[\d.]+)\s+(?P<bw_all>[\d.]+)\s+(?P<rate_avg>[\d.]+)\s+(?P<rate_all>[\d.]+)"
)


@dataclass(kw_only=True)
class PingPong:
    line: int
    local_gid: str | None = None
    remote_gid: str | None = None
    mbit_s: float | None = None
    usec_per_iter: float | None = None
    error: str | None = None
    error_line: int = 0
    hang: bool = False
    """The copy itself says the run hung (a user's note after the addresses)."""

    @property
    def setup_failed(self) -> bool:
        """Its error came before any RDMA traffic (the TCP exchange, the device or the QP)."""
        return self.error is not None and _SETUP_ERROR_RE.match(self.error) is not None


@dataclass(kw_only=True)
class UcxResult:
    line: int
    test: str
    iterations: int
    overhead_usec: float
    bandwidth_mb_s: float
    rate_msg_s: float


@dataclass(kw_only=True)
class PointToPoint:
    pingpongs: list[PingPong] = field(default_factory=list)
    ucx: list[UcxResult] = field(default_factory=list)


def parse(text: str) -> PointToPoint:
    """The ping-pongs and ucx_perftest results in ``text``; ParseError when none is found."""
    found = PointToPoint()
    run: PingPong | None = None
    test = ""
    for no, line in enumerate(text.splitlines(), 1):
        if a := _ADDRESS_RE.match(line):
            if a.group("side") == "local" and (run is None or run.remote_gid or run.mbit_s):
                run = PingPong(line=no)
                found.pingpongs.append(run)
            elif run is None:
                run = PingPong(line=no)
                found.pingpongs.append(run)
            setattr(run, f"{a.group('side')}_gid", a.group("gid") or a.group("lid"))
        elif r := _RESULT_RE.match(line):
            if run is None:
                run = PingPong(line=no)
                found.pingpongs.append(run)
            run.mbit_s = float(r.group("mbit"))
            run.hang = False  # (it printed its result: whatever a note above said, it did not hang)
        elif run is not None and (i := _ITERS_RE.match(line)):
            run.usec_per_iter = float(i.group("usec"))
        elif (e := _PINGPONG_ERROR_RE.match(line)) is not None and run is not None:
            if run.error is None:
                run.error, run.error_line = e.group("what").strip(), no
        elif (
            run is not None
            and run.mbit_s is None
            and _HANG_RE.search(line)
            and not _NOT_HANG_RE.search(line)
        ):
            run.hang = True
        elif t := _UCX_TEST_RE.match(line):
            test = t.group("test")
        elif f := _UCX_FINAL_RE.match(line):
            found.ucx.append(
                UcxResult(
                    line=no,
                    test=test or "ucx_perftest",
                    iterations=int(f.group("iters")),
                    overhead_usec=float(f.group("lat_all")),
                    bandwidth_mb_s=float(f.group("bw_all")),
                    rate_msg_s=float(f.group("rate_all")),
                )
            )
    if not found.pingpongs and not found.ucx:
        raise ParseError("no ping-pong addresses or result, and no ucx_perftest Final row")
    return found
