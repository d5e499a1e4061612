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
- ``qperf`` (linux-rdma/qperf): a server started with no argument, a client ``qperf HOST TEST
  ...`` that prints each test's name and a colon (src/qperf.c client(): ``printf("%s:\n",
  TestName)``), then its results a line each (place_show: ``    bw  =  2.89 GB/sec``) or the
  error that ended it (src/support.c error(): the message, then ``: `` and strerror(errno) for a
  failed system call, ``failed to modify QP to RTR: Invalid argument``; the client exits there).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.parsers import MARKED_PROMPT_HOST_RE, ParseError

# qperf's tests (src/qperf.c Tests[]: conf and quit aside, which measure nothing)
QPERF_TEST = (
    r"(?:(?:rc|uc|ud|xrc)_(?:bi_bw|bw|lat|rdma_read_bw|rdma_read_lat|rdma_write_bw"
    r"|rdma_write_lat|rdma_write_poll_lat|compare_swap_mr|fetch_add_mr)"
    r"|ver_rc_(?:compare_swap|fetch_add)|(?:rds|sctp|sdp|tcp|udp)_(?:bw|lat))"
)
SIGNATURE = (
    r"^[ \t]*local address:[ \t]+LID 0x[0-9a-fA-F]+, QPN 0x[0-9a-fA-F]+, PSN 0x[0-9a-fA-F]+"
    r"|^\d+ bytes in [\d.]+ seconds = [\d.]+ Mbit/sec[ \t]*$"
    r"|^Final:[ \t]+\d+[ \t]+[\d.]+[ \t]+[\d.]+[ \t]+[\d.]+[ \t]+[\d.]+[ \t]+[\d.]+"
    # ucx_perftest's table heading (src/tools/perf/perftest.c print_header: "|  ...  |
    # overhead (usec) | bandwidth (MB/s) | message rate (msg/s) |"): a run cut before its rows
    r"|^\|[ \t|]{0,80}(?:overhead|latency) \(usec\)[ \t]{0,40}\|[ \t]{0,20}bandwidth \("
    # qperf: a test's name line (its own names, src/qperf.c Tests[]), then a result line
    # ("    bw  =  2.89 GB/sec") or the error that ended the client
    rf"|^[ \t]*{QPERF_TEST}:[ \t]*\r?\n"
    r"[ \t]*(?:[a-z_]+ *  =  \S|(?=[^\s=])[^\n=]{0,80}?\bfailed\b|cannot \w)"
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
# ucx_perftest's table heading (as SIGNATURE) and the client's command: "ucx_perftest
# 10.16.26.222 -t ucp_am_bw -s 1048576 -n 50000" (the server's address the first bare word)
_UCX_TABLE_RE = re.compile(
    r"^\|[ \t|]{0,80}(?:overhead|latency) \(usec\)[ \t]{0,40}\|[ \t]{0,20}bandwidth \("
)
_UCX_COMMAND_RE = re.compile(r"\bucx_perftest\b(?P<args>[^\n]{0,400})")
# UCX's logger at level WARN, ERROR or FATAL (ucs/debug/log.c: "[time] [host:pid:thread] file:line UCX WARN
# message"; the file a .c or a .h, as ib_mlx5.h's inline devx wrappers log from the header)
_UCX_WARN_RE = re.compile(
    r"\[\d+\.\d+\]\s+\[(?P<host>[\w.-]+):(?P<pid>\d+)\s*:\d+\]\s+(?P<where>[\w.-]+\.[ch]:\d+)\s+"
    r"UCX\s+(?P<level>WARN|ERROR|FATAL)\s+(?P<msg>\S[^\n]{0,400}?)\s*$"
)
_UCX_FINAL_RE = re.compile(
    r"^Final:\s+(?P<iters>\d+)\s+(?P<pct>[\d.]+)\s+(?P<lat_avg>[\d.]+)\s+(?P<lat_all>[\d.]+)\s+"
    r"(?P<bw_avg>[\d.]+)\s+(?P<bw_all>[\d.]+)\s+(?P<rate_avg>[\d.]+)\s+(?P<rate_all>[\d.]+)"
)

_QPERF_TEST_RE = re.compile(rf"^\s*(?P<test>{QPERF_TEST}):\s*$")
_QPERF_TEST_WORD_RE = re.compile(QPERF_TEST)
# a result line (place_show: four spaces, the name padded, "  =  ", the value and its unit)
_QPERF_RESULT_RE = re.compile(r"^\s+(?P<name>[a-z_]+) *  =  (?P<value>\S[^\n]*)")
# qperf's options that take no value (src/help.txt: -ar1, -cm1, -f1, -cp1 ..., the -v family,
# -V, -un, -uu, -ub); every other option takes the word after it, -H / --host the server
_QPERF_FLAG_RE = re.compile(r"^-(?:\w+1|v\w*|V|un|uu|ub|-verbose\w*|-version|-unify_\w+)$")
# the client's steps before any test traffic: its TCP connection to the server (src/qperf.c
# client_send_request: "%s: failed to connect"), the device, its queues and the QP's moves to
# INIT, RTR and RTS (src/rdma.c rd_open, ib_open, ib_prep)
_QPERF_SETUP_ERROR_RE = re.compile(
    r"\bfailed to (?:modify QP to|create|open|find|allocate|request CQ|connect)\b"
    r"|\bquery (?:port|device|QP) failed"
)


@dataclass(kw_only=True)
class QperfRun:
    """One test of a qperf client, as the copy shows it."""

    line: int
    """Its name's line (``rc_bw:``)."""
    test: str
    server: str | None = None
    """The server the client's command named."""
    host: str | None = None
    """The host whose shell prompt started the client."""
    server_host: str | None = None
    """The host whose shell prompt started qperf's server (``qperf`` with no argument) before."""
    results: list[tuple[str, str]] = field(default_factory=list)
    """``(name, value with its unit)`` as printed: ``("bw", "2.89 GB/sec")``."""
    error: str | None = None
    error_line: int = 0

    @property
    def rdma(self) -> bool:
        """An RDMA test (rc_, uc_, ud_, xrc_, ver_rc_), not a socket one (tcp_, udp_ ...)."""
        return not self.test.startswith(("rds_", "sctp_", "sdp_", "tcp_", "udp_"))

    @property
    def setup_failed(self) -> bool:
        """Its error came before any test traffic (the connection to the server, the device,
        its queues or the QP)."""
        return self.error is not None and _QPERF_SETUP_ERROR_RE.search(self.error) is not None


@dataclass(kw_only=True)
class _QperfCommand:
    line: int
    server: str | None
    tests: list[str]
    host: str | None


def _qperf_command(no: int, words: list[str], host: str | None) -> _QperfCommand | None:
    """A qperf client's command (``qperf HOST [options] TEST ...``), None for anything else."""
    at = next((i for i, w in enumerate(words) if w == "qperf" or w.endswith("/qperf")), None)
    if at is None:
        return None
    args = words[at + 1 :]
    tests = [w for w in args if _QPERF_TEST_WORD_RE.fullmatch(w)]
    if not tests:
        return None  # (prose that names qperf, or another of its commands)
    server: str | None = None
    i = 0
    while i < len(args):
        word = args[i]
        if word in ("-H", "--host") and i + 1 < len(args):
            server = args[i + 1]
            i += 2
        elif word.startswith("-"):
            i += 1 if _QPERF_FLAG_RE.match(word) else 2
        else:
            if server is None and not _QPERF_TEST_WORD_RE.fullmatch(word):
                server = word
            i += 1
    return _QperfCommand(line=no, server=server, tests=tests, host=host)


def _qperf(text: str) -> list[QperfRun]:
    """The qperf clients' tests in ``text``: each with its results or its error."""
    runs: list[QperfRun] = []
    commands: list[_QperfCommand] = []
    server_host: str | None = None
    run: QperfRun | None = None
    for no, line in enumerate(text.splitlines(), 1):
        host: str | None = None
        rest = line
        if "@" in line and (p := MARKED_PROMPT_HOST_RE.match(line)):
            host, rest = p.group("host"), line[p.end() :]
            run = None  # (a prompt: the client before it has exited)
        if "qperf" in rest:
            words = rest.split()
            if len(words) == 1 and (words[0] == "qperf" or words[0].endswith("/qperf")):
                server_host = host  # the server, started with no argument
                continue
            if command := _qperf_command(no, words, host):
                commands.append(command)
                run = None
                continue
        if t := _QPERF_TEST_RE.match(line):
            test = t.group("test")
            command = next((c for c in reversed(commands) if test in c.tests), None)
            run = QperfRun(
                line=no,
                test=test,
                server=command.server if command else None,
                host=command.host if command else None,
                server_host=server_host,
            )
            runs.append(run)
            continue
        if run is None or not line.strip():
            continue
        if r := _QPERF_RESULT_RE.match(line):
            run.results.append((r.group("name"), r.group("value").strip()))
        else:
            # (qperf's error() ends the client: the lines after it are not this test's)
            run.error, run.error_line = line.strip(), no
            run = None
    return runs


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
class UcxWarning:
    line: int
    host: str
    where: str
    """UCX's source file and line (``perftest.c:801``, ``ib_mlx5.h:962``)."""
    message: str
    count: int = 1
    """How many lines of the copy logged the same message (the first one's line kept)."""
    pid: int | None = None
    level: str = "WARN"
    """UCX's log level: WARN, something wrong it carried on past; ERROR, an operation that
    failed and whose error went back to its caller; FATAL, the process stopped (UCX's
    ucs_log_level_t, src/ucs/config/types.h: "Error is returned to the user", "Something's
    wrong, but we continue", "Immediate termination")."""


@dataclass(kw_only=True)
class UcxRun:
    """A ucx_perftest run as its copy shows it, whatever rows it reached."""

    line: int
    test: str = ""
    server: str | None = None
    """The server's address the client named (None: the server's side, or no command shown)."""
    host: str | None = None
    table_line: int | None = None
    warnings: list[UcxWarning] = field(default_factory=list)


@dataclass(kw_only=True)
class PointToPoint:
    pingpongs: list[PingPong] = field(default_factory=list)
    ucx: list[UcxResult] = field(default_factory=list)
    ucx_runs: list[UcxRun] = field(default_factory=list)
    """ucx_perftest runs by their command, table heading and UCX WARN lines."""
    qperf: list[QperfRun] = field(default_factory=list)


def parse(text: str) -> PointToPoint:
    """The ping-pongs, ucx_perftest results and qperf tests in ``text``; ParseError when none is
    found."""
    found = PointToPoint(qperf=_qperf(text))
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
        elif "ucx_perftest" in line and (c := _UCX_COMMAND_RE.search(line)):
            ucx_run = _ucx_command(no, c.group("args"))
            if p := MARKED_PROMPT_HOST_RE.match(line):
                ucx_run.host = p.group("host")
            found.ucx_runs.append(ucx_run)
        elif _UCX_TABLE_RE.match(line):
            if not found.ucx_runs or found.ucx_runs[-1].table_line is not None:
                found.ucx_runs.append(UcxRun(line=no))
            found.ucx_runs[-1].table_line = no
        elif "UCX" in line and (w := _UCX_WARN_RE.search(line)):
            if not found.ucx_runs:
                found.ucx_runs.append(UcxRun(line=no))
            ucx_run = found.ucx_runs[-1]
            ucx_run.host = ucx_run.host or w.group("host")
            same = [u for u in ucx_run.warnings if u.message == w.group("msg")]
            if same:
                same[0].count += 1
            else:
                ucx_run.warnings.append(
                    UcxWarning(
                        line=no,
                        host=w.group("host"),
                        where=w.group("where"),
                        message=w.group("msg"),
                        level=w.group("level"),
                        pid=int(w.group("pid")),
                    )
                )
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
    if found.ucx_runs and not any(r.table_line or r.warnings for r in found.ucx_runs):
        found.ucx_runs = []  # (a command named in prose, nothing of a run under it)
    if not found.pingpongs and not found.ucx and not found.qperf and not found.ucx_runs:
        raise ParseError(
            "no ping-pong addresses or result, no ucx_perftest Final row and no qperf test"
        )
    return found


# ucx_perftest's options that take no value (src/tools/perf/perftest.c TEST_PARAMS_ARGS
# "t:n:s:W:O:w:D:i:H:oSCIqM:r:E:T:d:x:A:BUem:R:lyzg:G:": the letters without a colon)
_UCX_FLAGS = frozenset("oSCIqBUelyz")


def _ucx_command(no: int, args: str) -> UcxRun:
    """A ucx_perftest client's or server's command line: its test (-t) and the server it
    names (the first word that is no option nor an option's value)."""
    run = UcxRun(line=no)
    words = args.split()
    i = 0
    while i < len(words):
        word = words[i]
        if word in ("|", ";", "&&", "&", ">", "2>&1"):
            break
        if word.startswith("-"):
            value = words[i + 1] if i + 1 < len(words) else None
            if word == "-t" and value:
                run.test = value
            # (an option the table does not know, followed by another option, took no value:
            # "-f -t tag_bw")
            takes = (
                len(word) == 2
                and word[1] not in _UCX_FLAGS
                and value is not None
                and not value.startswith("-")
            )
            i += 2 if takes else 1
            continue
        if run.server is None:
            run.server = word
        i += 1
    return run
