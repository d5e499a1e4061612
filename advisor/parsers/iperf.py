"""iperf3's TCP throughput test, as a client or a server prints it (text or ``-J`` JSON).

iperf3 (esnet/iperf, src/iperf_api.c) prints a stream's ``[  5] local A port P connected to B
port Q``, one line a reporting interval and stream (``[  5]   0.00-1.00   sec   217 MBytes  1.82
Gbits/sec    0   1.29 MBytes``; with ``-P N`` a ``[SUM]`` line per interval), then after a row
of ``- - -`` the summary: the same columns over the whole test, marked ``sender`` and
``receiver``. The client's sender line carries TCP's retransmits (``Retr``; older releases
print no Retr column on platforms without them, newer ones call the column ``Bitrate``); a UDP
test's lines end in the jitter and ``lost/total (percent)`` datagrams instead. The server's own
summary says ``0.00 Bytes  0.00 bits/sec`` for the direction it did not measure (the client's
figure is not sent to it: esnet/iperf issues 476 and 1410): not a failure. ``-J`` writes one
JSON object whose ``end`` holds ``sum_sent`` and ``sum_received``.

What the throughput should be is the link's: iperf3 does not print the NIC's line rate, so a
reading only says what was measured, with the retransmits and how steady the intervals were.
"""

from __future__ import annotations

import ipaddress
import json
import re
from dataclasses import dataclass, field

from advisor.parsers import ParseError, json_number, json_object, numbered_lines

SIGNATURE = (
    r"^\[\s*(?:\d+|SUM)\]\s+\d+\.\d+\s*-\s*\d+\.\d+\s+sec\s+[\d.]+\s+[KMGT]?Bytes\s+[\d.]+\s+[KMGT]?bits/sec"
    r"|^iperf3?: error - "
    r'|^[ \t]*"connecting_to":[ \t]*\{[ \t]*$'
    # -J's start object names the release ("version": "iperf 3.0.11", iperf_api.c
    # iperf_on_connect/json start): a run that never connected has no "connecting_to" (its
    # start holds only "connected": [], "version" and "system_info": esnet/iperf#545)
    r'|^[ \t]*"version":[ \t]*"iperf 3\.\d'
)
_JSON_VERSION_RE = re.compile(r'^[ \t]*"version":[ \t]*"iperf 3\.\d', re.M)
_UNIT = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
_ROW_RE = re.compile(
    r"^\[\s*(?P<id>\d+|SUM)\]\s+(?P<start>\d+\.\d+)\s*-\s*(?P<end>\d+\.\d+)\s+sec\s+"
    r"(?P<bytes>[\d.]+)\s+(?P<bunit>[KMGT]?)Bytes\s+(?P<rate>[\d.]+)\s+(?P<runit>[KMGT]?)bits/sec"
    # the client's Retr (and Cwnd) columns; the summary's role word
    r"(?:\s+(?P<retr>\d+)(?=\s|$))?(?:\s+(?P<cwnd>[\d.]+\s+[KMGT]?Bytes))?"
    r"(?:\s+(?P<role>sender|receiver))?\s*(?P<rest>.*)$"
)
_HEADER_RE = re.compile(r"^\[ ID\] Interval\s+Transfer\s+(?:Bandwidth|Bitrate)(?P<cols>.*)$")
# a summary's placeholder for the half of the test its side did not measure (esnet/iperf
# src/iperf_locale.c report_sender_not_available_format "[%3d] (sender statistics not
# available)", report_receiver_not_available_format, their "[SUM]" twins): a server's
# summary says its receiver line beside it
_NOT_AVAILABLE_RE = re.compile(
    r"^\[\s*(?:\d+|SUM)\]\s*\((?P<side>sender|receiver) statistics not available\)\s*$"
)
_TAIL_ROLE_RE = re.compile(r"\b(?P<role>sender|receiver)\s*$")

_CONNECTED_RE = re.compile(
    r"^\[\s*(?P<id>\d+)\]\s+local\s+(?P<local>\S+)\s+port\s+(?P<lport>\d+)\s+connected\s+"
    r"(?P<word>to|with)\s+(?P<remote>\S+)\s+port\s+(?P<rport>\d+)"
)
# iperf3's heading of a client run, and iperf 2's ("Client connecting to 192.168.43.26, TCP port
# 5001"; its server: "Server listening on TCP port 5001"), whose streams say "connected with"
_CLIENT_RE = re.compile(
    r"^Connecting to host (?P<host>\S+), port (?P<port>\d+)"
    r"|^Client connecting to (?P<host2>[^\s,]+), (?:TCP|UDP) port (?P<port2>\d+)"
)
_SERVER_RE = re.compile(
    r"^Server listening on (?:(?:TCP|UDP) port )?(?P<port>\d+)|^Accepted connection from "
)
# iperf 2's socket error mid-test ("write failed: Broken pipe", "read failed: Connection reset by
# peer"): the connection broke; the total it prints after covers the time before
_IPERF2_ERROR_RE = re.compile(r"^(?:write|read|recv|send) failed: (?P<why>.+?)\s*$")
# the window asked for: iperf3's "-w 32m" on the command, its -J/-d parameters' "window": N,
# iperf 2's "TCP window size:  208 KByte (default)"
_WINDOW_ARG_RE = re.compile(r"\s-w\s*(?P<w>\d+[KkMmGg]?)\b")
_WINDOW_JSON_RE = re.compile(r'^\s*"window":\s*(?P<w>\d+),?\s*$')
_IPERF2_WINDOW_RE = re.compile(r"^TCP window size:\s*(?P<w>[\d.]+\s*[KMG]?Byte)")
_REVERSE_RE = re.compile(r'^Reverse mode, remote host \S+ is sending|^\s*"reverse":\s*true')
_LOSS_RE = re.compile(
    r"(?<!\d)(?P<lost>\d{1,12})/\s*(?P<total>\d{1,12})\s+\((?P<pct>[\d.e+-]+|nan)%\)"
)
_ERROR_RE = re.compile(r"^iperf3?: error - (?P<what>.+?)\s*$")
# iperf 2's UDP client: after its own total it waits for the server's ack of its last datagram,
# which carries the server's report (iperf 2 src/Locale.c server_reporting "[%3d] Server
# Report:\n", then one row of the receiver's figures: transfer, rate, jitter, lost/total); with
# no ack it says warn_no_ack "[%3d] WARNING: did not receive ack of last datagram after %d
# tries.\n". The server's row is the receiver's, over the receiver's time, not the client's.
_SERVER_REPORT_RE = re.compile(r"^\[\s*\d+\]\s+Server Report:\s*$")
_NO_ACK_RE = re.compile(
    r"^\[\s*\d+\]\s+WARNING: did not receive ack of last datagram after (?P<tries>\d{1,6}) tries"
)
# any row of an interval, whatever its figures ("0.000 Bytes  -nan bits/sec": no _ROW_RE)
_ANY_ROW_RE = re.compile(r"^\[\s*\d+\]\s+\d+\.\d+\s*-\s*\d+\.\d+\s+sec\b")
# the lost/total pair whatever its percent ("4294966296/0 (inf%)": no _LOSS_RE)
_LOST_TOTAL_RE = re.compile(r"(?<!\d)(?P<lost>\d{1,12})/\s*(?P<total>\d{1,12})\s+\(")
_JITTER_RE = re.compile(r"(?<![\w.])(?P<ms>\d{1,9}(?:\.\d{1,6})?)\s+ms\b")
# iperf3's client that could not open its control connection (src/iperf_error.c IECONNECT:
# "unable to connect to server", since 3.17 "... - server may have stopped running or use a
# different port, firewall issue, etc.", then ": " and strerror(errno)), where the reason says
# no host answered at all: a connect() that timed out (ETIMEDOUT: Linux "Connection timed out",
# BSD and macOS "Operation timed out") or found no route (EHOSTUNREACH, ENETUNREACH, EHOSTDOWN).
# "Connection refused" is not one: the server's host answered, with no iperf3 listening on the port.
_UNREACHED_RE = re.compile(
    r"^unable to connect to server\b[^:]*: (?:Connection timed out|Operation timed out"
    r"|No route to host|Network is unreachable|Host is unreachable|Host is down)"
)
# iperf3's test exchange over a control connection that was open (src/iperf_error.c IESENDPARAMS
# "unable to send parameters to server", IERECVPARAMS "unable to receive parameters from client",
# IESENDRESULTS "unable to send results", IERECVRESULTS "unable to receive results", each with
# ": " and strerror(errno) after it): the server's iperf3 answered and accepted the connection,
# then the test's own messages over it did not come through whole (iperf_util.c JSON_read's
# "Size of data read does not correspond to offered length" before it: a message cut short)
_EXCHANGE_BROKEN_RE = re.compile(
    r"^unable to (?:send parameters to server|receive parameters from client"
    r"|send results|receive results)\b"
)
# the server's errors on a control connection before it took it as a test's (src/iperf_server_api.c
# iperf_accept: the cookie's read, IERECVCOOKIE "unable to receive cookie at server", then the
# parameters', IERECVPARAMS; its on_connect, which prints "Accepted connection from HOST, port
# N", runs only after both): the copy names no peer of that connection, and it is what any
# connection that is no iperf3 client's test leaves (a monitor's TCP probe or a load balancer's
# health check, an iperf 2 client, a port scanner: esnet/iperf#445, #530, #1882), the server
# then listening again
_BEFORE_ACCEPT_RE = re.compile(
    r"^unable to (?:receive cookie at server|receive parameters from client)\b"
)
_SEPARATOR_RE = re.compile(r"^(?:- ){5,}-?\s*$")
# a client command's server port (-p N, --port N, --port=N): iperf3 takes one port, read with
# atoi() (esnet/iperf 3.17.1 src/iperf_api.c iperf_parse_arguments, case 'p': "portno =
# atoi(optarg)", then IEBADPORT only outside 1-65535), so "-p 5201-5203" is port 5201 and the
# rest is dropped without a word (the maintainer on esnet/iperf#1751: "-p accepts only one
# port")
_PORT_ARG_RE = re.compile(r"(?:^|\s)(?:-p\s*|--port[=\s]\s*)(?P<arg>\S{1,40})")
_PORT_LEAD_RE = re.compile(r"\d{1,5}")
UNSTEADY_RATIO = 0.6
"""An interval below this share of the test's fastest one is called unsteady (iperf3's first
interval, TCP's slow start, is left out)."""


# iperf3 -V's test header (src/iperf_api.c on_connect: "      TCP MSS: %d (default)" where no
# -M was given, the control socket's TCP_MAXSEG; "      TCP MSS: %d" where one was)
_MSS_RE = re.compile(r"^TCP MSS: (?P<mss>\d{1,6})\b")


@dataclass(kw_only=True)
class ServerReport:
    """One row under iperf 2's "Server Report:" (Locale.c server_reporting "[%3d] Server
    Report:"): the receiver's figures of the stream whose id it carries; under -P each stream
    gets its own (ten under -P 10, each under its "[ id]")."""

    stream: str
    line: int
    bps: float | None = None
    seconds: float | None = None
    jitter_ms: float | None = None
    lost: int | None = None
    total: int | None = None
    invalid: bool = False
    row: str = ""
    """The row as printed, where it holds no measure (``invalid``), to cite it."""


@dataclass(kw_only=True)
class Iperf3Run:
    line: int
    role: str
    """"client", "server", or "" when the copy shows neither's heading."""
    local: str = ""
    remote: str = ""
    remote_port: int | None = None
    streams: int = 0
    sender_bps: float | None = None
    receiver_bps: float | None = None
    retransmits: int | None = None
    retransmits_line: int | None = None
    """The line of the sender summary that carries ``retransmits``."""
    interval_bps: list[float] = field(default_factory=list)
    """Each interval's throughput: the [SUM] line's under -P, else the one stream's."""
    interval_s: list[float] = field(default_factory=list)
    """Each interval's length in seconds, beside ``interval_bps``."""
    interval_retransmits: int | None = None
    """The intervals' Retr column summed (the client's, where the copy has no summary)."""
    seconds: float | None = None
    mss_bytes: int | None = None
    """The TCP MSS the verbose client printed ("TCP MSS: 1324 (default)"), where it did."""
    cut: bool = False
    """The copy ends before the summary's sender and receiver lines."""
    server_zero_sender: bool = False
    """The server's own 0-byte summary line of the direction it did not measure."""
    not_available: str = ""
    """The side whose summary line iperf3 printed as "(sender statistics not available)" (a
    server's summary of a test it received), "" where none."""
    lost_datagrams: int | None = None
    total_datagrams: int | None = None
    """A UDP test's receiver summary: the datagrams lost of those sent."""
    udp: bool = False
    """A UDP test (its header's datagram columns, or -J's protocol): an empty interval is its
    sender's pacing, no stall."""
    error: str = ""
    error_line: int = 0
    iperf2: bool = False
    """iperf 2's output ("connected with"): its last row over the whole test is the total."""
    cwnd: list[str] = field(default_factory=list)
    """The congestion window of each interval, as printed ("822 KBytes")."""
    window: str = ""
    """The socket window asked for (-w) or iperf 2's reported one."""
    reverse: bool = False
    """-R: the server sends, the client receives."""
    unreached: bool = False
    """Its error says the client reached no server host at all (``_UNREACHED_RE``): no path."""
    exchange_broken: bool = False
    """Its error says the control connection opened and the test's parameters or results did
    not come through it (``_EXCHANGE_BROKEN_RE``): nothing was measured over a path that took
    the connection."""
    before_accept: bool = False
    """A server's error on a connection before iperf3 took it as a test's
    (``_BEFORE_ACCEPT_RE``, no "Accepted connection from" above it): the copy names no peer of
    it, and a later connection's address is not its."""
    interleaved: list[int] = field(default_factory=list)
    """The server ports of the clients that ran at once with it, its own among them (a second
    client's heading before the first printed a row: "iperf3 -c A & iperf3 -c A -p 5333"),
    whose lines interleave in the copy under the same stream id: which summary is which port's
    is not in it, so ``remote_port`` is None and no interval is kept."""
    interleaved_rows: int = 0
    """The interval lines of those clients together, not told apart."""
    port_arg: str = ""
    """The client command's -p argument as typed where it is not one port number ("5201-5203",
    a range iperf3 does not take), "" otherwise; ``remote_port`` is then the port iperf3 read
    from it (``_PORT_ARG_RE``)."""
    port_arg_line: int = 0
    server_report_line: int = 0
    """iperf 2's UDP client: the line of the server's report row (``_SERVER_REPORT_RE``), 0
    where the copy has none."""
    server_report_bps: float | None = None
    """The rate the server received at, over ``server_report_s`` (its own time)."""
    server_report_s: float | None = None
    jitter_ms: float | None = None
    server_report_invalid: bool = False
    """The server's report row holds no measure: a rate that is no number ("-nan bits/sec"),
    0 bytes received, or a lost count over a total of 0 datagrams."""
    server_report_row: str = ""
    """The report row as printed, where it is invalid."""
    no_ack_line: int = 0
    """The line of iperf 2's "did not receive ack of last datagram" warning, 0 where none."""
    no_ack_tries: int = 0
    server_reports: list[ServerReport] = field(default_factory=list)
    """iperf 2: every stream's server report, in the order printed; where there are several
    (-P), the scalar ``server_report_*`` / ``lost_datagrams`` fields hold their sums, the worst
    stream's line as ``server_report_line``."""
    stream_bps: dict[str, float] = field(default_factory=dict)
    """iperf 2 under -P: each stream's sending rate over its longest row (the whole test's),
    by its id: a stream's server report is set against it, not against the [SUM]."""
    last_start_s: float | None = None
    """The start of the last interval row kept (iperf 2's whole-test row starts at 0)."""

    @property
    def loopback(self) -> bool:
        """A test over the host's loopback (127.0.0.0/8, ::1, "localhost"): the connection never
        left the host, so it measures its TCP stack and memory, no NIC or link."""
        return any(_is_loopback(a) for a in (self.local, self.remote))


def _is_loopback(addr: str) -> bool:
    if addr.lower() == "localhost":
        return True
    try:
        ip = ipaddress.ip_address(addr)
    except ValueError:
        return False
    # (iperf 2 under -V prints an IPv4 peer as IPv4-mapped, "::ffff:127.0.0.1"; before Python
    # 3.13 IPv6Address.is_loopback is False for it (CPython gh-117566, fixed by PR #117567 to
    # return ipv4_mapped.is_loopback), so the mapped IPv4 address is judged itself)
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return ip.ipv4_mapped.is_loopback
    return ip.is_loopback


def _bps(value: str, unit: str) -> float:
    return float(value) * _UNIT[unit]


def parse(text: str) -> list[Iperf3Run]:
    """Each iperf3 test in the copy; ParseError when none (nor an iperf3 error) is in it."""
    stripped = text.lstrip()
    if stripped.startswith("{") and (
        '"connecting_to"' in text or _JSON_VERSION_RE.search(text) is not None
    ):
        return [_parse_json(text)]
    runs: list[Iperf3Run] = []
    run: Iperf3Run | None = None
    in_summary = False
    ids: set[str] = set()
    window, reverse = "", False  # asked before the run's own heading (a command, -d's JSON)
    has_retr = True  # the header's columns: a UDP test's have no Retr (datagrams instead)

    commanded = ""  # the server a client command line above names ("iperf3 -c 10.0.0.2")
    # that command's -p argument where it is no plain port number, the port iperf3's atoi() made
    # of it, and the command's line
    commanded_port: tuple[str, int | None, int] = ("", None, 0)
    # client runs whose outputs interleave (each started before another printed a row), and
    # how many of their interval lines and "iperf Done." lines have been read
    mixed: list[Iperf3Run] = []
    mixed_rows = mixed_done = 0
    summing: Iperf3Run | None = None  # the mixed run whose summary lines are being read

    def unmix() -> None:
        """The interleaved clients' group ends (each said "iperf Done.", or the copy ended)."""
        nonlocal mixed, mixed_rows, mixed_done, summing
        ports = sorted({r.remote_port for r in mixed if r.remote_port is not None})
        for r in mixed:
            r.interleaved, r.interleaved_rows, r.remote_port = ports, mixed_rows, None
        mixed, mixed_rows, mixed_done, summing = [], 0, 0, None

    def current(no: int) -> Iperf3Run:
        nonlocal run, in_summary, ids
        if run is None:
            run = Iperf3Run(line=no, role="client" if commanded else "", remote=commanded)
            run.port_arg, run.remote_port, run.port_arg_line = commanded_port
            runs.append(run)
            in_summary, ids = False, set()
        return run

    mss: int | None = None
    reporting: Iperf3Run | None = None  # the iperf 2 client whose "Server Report:" row is next
    spans: dict[tuple[int, str], float] = {}  # an iperf 2 -P stream's longest row, in seconds
    for no, line, _ in numbered_lines(text):
        body = line.strip()
        if body.startswith("TCP MSS: ") and (k := _MSS_RE.match(body)) is not None:
            mss = int(k.group("mss"))
            continue
        if "iperf" in body and ("-c" in body or "--client" in body):
            words = body.split()
            at = next((i for i, w in enumerate(words) if w in ("-c", "--client")), None)
            if at is not None and at + 1 < len(words) and not words[at + 1].startswith("-"):
                commanded = words[at + 1]
                commanded_port = ("", None, 0)
                if (p := _PORT_ARG_RE.search(body)) is not None and not p.group("arg").isdigit():
                    lead = _PORT_LEAD_RE.match(p.group("arg"))
                    commanded_port = (p.group("arg"), int(lead.group()) if lead else None, no)
                # (a new client's command: what follows is its output, an error included, which
                # iperf3 prints of its own invocation (iperf_error.c), never of the run above)
                run = None
                if mixed and ("&" not in body or mixed_rows):
                    unmix()  # (a command typed after the group's clients ran: another test)
        if body == "iperf Done.":
            run = None  # (the client's last line of a run: a line after it is another run's)
            if mixed:
                mixed_done, summing = mixed_done + 1, None
                if mixed_done >= len(mixed):
                    unmix()
            continue
        if run is not None and run.iperf2 and (k := _NO_ACK_RE.match(body)) is not None:
            run.no_ack_line, run.no_ack_tries = no, int(k.group("tries"))
            continue
        if run is not None and run.iperf2 and _SERVER_REPORT_RE.match(body):
            reporting = run
            continue
        if reporting is not None and _ANY_ROW_RE.match(body):
            _server_report(reporting, body, no)
            reporting = None
            continue
        if mixed and (m := _ROW_RE.match(body)):
            # the interleaved clients' rows: an interval line is either's; a summary line is
            # the next client's without one, in the order printed (one process writes its
            # sender and receiver lines together)
            tail = _TAIL_ROLE_RE.search(m.group("rest"))
            role = m.group("role") or (tail.group("role") if tail else None)
            if role is None:
                mixed_rows += 1
                continue
            if role == "sender" or summing is None:
                summing = next((r for r in mixed if r.seconds is None), None)
                if summing is not None:
                    summing.line = no  # (its figures' line: its heading's port is not its own)
            if summing is None or (m.group("id") != "SUM" and summing.streams > 1):
                continue
            summing.seconds = float(m.group("end")) - float(m.group("start"))
            if role == "sender":
                summing.sender_bps = _bps(m.group("rate"), m.group("runit"))
                if m.group("retr") is not None and has_retr:
                    summing.retransmits, summing.retransmits_line = int(m.group("retr")), no
            else:
                summing.receiver_bps = _bps(m.group("rate"), m.group("runit"))
            continue
        if m := _CLIENT_RE.match(body):
            if (
                run is not None
                and run.role == "client"
                and not run.interval_bps
                and run.sender_bps is None
                and not run.error
            ):
                # a second client's heading before the first printed a row: both run at once
                mixed = mixed or [run]
            run = Iperf3Run(line=no, role="client", remote=m.group("host") or m.group("host2"))
            run.remote_port = int(m.group("port") or m.group("port2"))
            run.iperf2 = m.group("host2") is not None
            run.window, run.reverse = window, reverse
            window, reverse = "", False  # (taken: the next run has its own)
            runs.append(run)
            if mixed:
                mixed.append(run)
            in_summary, ids = False, set()
            continue
        if h := _HEADER_RE.match(body):
            has_retr = "Retr" in h.group("cols")
            if "Datagrams" in h.group("cols") or "Jitter" in h.group("cols"):
                current(no).udp = True
            continue
        if "window" in body or " -w" in body or "-w" in body:
            if w := (_WINDOW_ARG_RE.search(f" {body}") if "iperf" in body else None) or (
                _WINDOW_JSON_RE.match(body) or _IPERF2_WINDOW_RE.match(body)
            ):
                window = w.group("w")
                if run is not None and not run.interval_bps:
                    run.window, window = window, ""  # (this run's: not carried to the next)
                continue
        if _REVERSE_RE.match(body):
            reverse = True
            if run is not None and not run.interval_bps:
                run.reverse, reverse = True, False  # (this run's: the next says its own)
            continue
        if run is not None and run.iperf2 and _IPERF2_ERROR_RE.match(body):
            run.error, run.error_line = body, no
            continue
        if _SERVER_RE.match(body):
            # (a server's error ends its test: iperf3 resets and listens again, and what follows
            # is the next connection's, not the failed one's)
            if (
                run is None
                or run.role != "server"
                or run.interval_bps
                or run.sender_bps
                or run.error
            ):
                run = Iperf3Run(line=no, role="server")
                runs.append(run)
                in_summary, ids = False, set()
            continue
        if m := _ERROR_RE.match(body):
            # an interleaved client that could not start (its error comes before its stream's
            # "connected" line) leaves the group: it prints no "iperf Done." (iperf3's
            # iperf_client_end prints report_done at the end of a test it ran; src/main.c run()
            # ends a client that failed with iperf_errexit), and no row or summary is its own
            starting = next((x for x in reversed(mixed) if not x.streams), None)
            if starting is not None:
                mixed.remove(starting)
                run = starting if len(mixed) != 1 or mixed_rows else mixed[0]
                if len(mixed) == 1 and not mixed_rows:
                    mixed, mixed_done, summing = [], 0, None  # one client left: not interleaved
                elif mixed and mixed_done >= len(mixed):
                    unmix()
            r = starting or current(no)
            # (an empty strerror leaves "...from client: " with nothing after the colon)
            r.error, r.error_line = m.group("what").removesuffix(":"), no
            r.unreached = _UNREACHED_RE.match(r.error) is not None
            r.exchange_broken = _EXCHANGE_BROKEN_RE.match(r.error) is not None
            r.before_accept = (
                r.role == "server" and not r.remote and _BEFORE_ACCEPT_RE.match(r.error) is not None
            )
            continue
        if m := _CONNECTED_RE.match(body):
            # (an interleaved client's stream: the run its server port names)
            r = next((x for x in mixed if x.remote_port == int(m.group("rport"))), None) or current(
                no
            )
            r.iperf2 = r.iperf2 or m.group("word") == "with"
            r.window, r.reverse = r.window or window, r.reverse or reverse
            r.local = r.local or m.group("local")
            r.remote = r.remote or m.group("remote")
            r.remote_port = r.remote_port or int(m.group("rport"))
            r.mss_bytes = r.mss_bytes or mss
            r.streams += 1
            continue
        if _SEPARATOR_RE.match(body):
            if run is not None and len(run.interval_bps) and run.streams <= 1:
                in_summary = True  # one stream: the row of dashes comes before the summary only
            continue
        if run is not None and (na := _NOT_AVAILABLE_RE.match(body)):
            run.not_available = na.group("side")
            continue
        if not (m := _ROW_RE.match(body)):
            continue
        r = current(no)
        bps = _bps(m.group("rate"), m.group("runit"))
        role = m.group("role")
        if role is None and (tail := _TAIL_ROLE_RE.search(m.group("rest"))):
            role = tail.group("role")  # (a UDP line: its jitter and losses come before it)
        retr = m.group("retr") if has_retr else None
        if role is None and m.group("rest") == "" and in_summary and r.sender_bps is not None:
            role = "receiver"  # the summary's last line, cut before its role word
            r.cut = True
        if role is not None or (in_summary and m.group("start") in ("0.00",) and ids):
            if m.group("id") != "SUM" and r.streams > 1:
                continue  # one stream's summary under -P: the [SUM] line says the test's
            if role == "sender" or r.seconds is None:
                r.seconds = float(m.group("end")) - float(m.group("start"))
            zero = r.role == "server" and bps == 0.0
            r.server_zero_sender = r.server_zero_sender or zero
            if role == "sender":
                r.sender_bps = None if zero else bps
                if retr is not None:
                    r.retransmits, r.retransmits_line = int(retr), no
            else:
                r.receiver_bps = None if zero else bps
            if (loss := _LOSS_RE.search(m.group("rest"))) is not None:
                r.lost_datagrams = int(loss.group("lost"))
                r.total_datagrams = int(loss.group("total"))
            continue
        ids.add(m.group("id"))
        if r.streams > 1 and m.group("id") != "SUM":
            if r.iperf2:
                # (iperf 2 prints a stream's whole-test row after its intervals: the longest
                # span is that one, whatever the copy cut)
                span = float(m.group("end")) - float(m.group("start"))
                spans[(id(r), m.group("id"))] = max(spans.get((id(r), m.group("id")), 0.0), span)
                if span >= spans[(id(r), m.group("id"))]:
                    r.stream_bps[m.group("id")] = bps
            continue
        if r.streams > 1 or m.group("id") != "SUM":
            if m.group("cwnd"):
                r.cwnd.append(" ".join(m.group("cwnd").split()))
            r.interval_bps.append(bps)
            r.interval_s.append(float(m.group("end")) - float(m.group("start")))
            r.last_start_s = float(m.group("start"))
            if retr is not None:
                r.interval_retransmits = (r.interval_retransmits or 0) + int(retr)
    if mixed:
        unmix()
    for r in runs:
        if len(r.server_reports) > 1:
            _sum_server_reports(r)
        if r.iperf2 and r.interval_bps and not _iperf2_total_last(r):
            # (the copy ends before iperf 2's whole-test row: its rows are all intervals)
            r.cut = not r.error
        elif r.iperf2 and r.interval_bps:
            # iperf 2 prints no summary block: its last row, over the whole test, is the total
            r.seconds = r.interval_s.pop()
            total = r.interval_bps.pop()
            if r.role == "server":
                r.receiver_bps = total
            else:
                r.sender_bps = total
            r.cut = False
    runs = [
        r for r in runs if r.interval_bps or r.sender_bps is not None or r.error or r.interleaved
    ]
    if not runs:
        raise ParseError("no iperf3 interval or summary line ('[  5]   0.00-1.00   sec ...')")
    for r in runs:
        said = (r.sender_bps is not None) + (r.receiver_bps is not None) + r.server_zero_sender
        # a server prints the summary line of the direction it measured alone, the other's only
        # under -V as "(sender statistics not available)" (src/iperf_api.c iperf_print_results:
        # "if (test->role == 's' && !sp->sender) { if (test->verbose) ..."): one measured line
        # is whole, and the not-available line alone measures nothing
        whole = 1 if r.role == "server" else 2
        if not r.error and said < whole and not r.cut and not r.iperf2:
            r.cut = True  # the copy ends before the test's summary
    return runs


def _iperf2_total_last(run: Iperf3Run) -> bool:
    """Whether iperf 2's last row kept is its whole-test total: it starts at 0 and spans at
    least every row before it (under -i its intervals run "0.00-1.00", "1.00-2.00" ... and the
    total "0.00-10.00" comes last; without -i its one row is the total). A last row starting
    later is an interval: the copy was cut before the total."""
    if run.last_start_s is None or run.last_start_s > 0.0:
        return False
    return len(run.interval_s) == 1 or run.interval_s[-1] >= max(run.interval_s[:-1])


def _server_report(run: Iperf3Run, body: str, no: int) -> None:
    """The row under iperf 2's "Server Report:": the receiver's rate, time, jitter and
    datagrams lost, kept apart from the client's own rows."""
    run.server_report_line = no
    m = _ROW_RE.match(body)
    loss = _LOSS_RE.search(body)
    lost_total = _LOST_TOTAL_RE.search(body)
    if m is not None:
        run.server_report_s = float(m.group("end")) - float(m.group("start"))
        run.server_report_bps = _bps(m.group("rate"), m.group("runit"))
    if (j := _JITTER_RE.search(body)) is not None:
        run.jitter_ms = float(j.group("ms"))
    if loss is not None:
        run.lost_datagrams = int(loss.group("lost"))
        run.total_datagrams = int(loss.group("total"))
    run.server_report_invalid = (
        m is None
        or float(m.group("bytes")) == 0.0
        or (lost_total is not None and int(lost_total.group("total")) == 0)
        or (run.total_datagrams is not None and (run.lost_datagrams or 0) > run.total_datagrams)
    )
    if run.server_report_invalid:
        run.server_report_row = " ".join(body.split("]", 1)[1].split())
        run.lost_datagrams = run.total_datagrams = None  # (no count: not a loss to judge)
    run.server_reports.append(
        ServerReport(
            stream=m.group("id") if m is not None else body[1:].split("]", 1)[0].strip(),
            line=no,
            bps=run.server_report_bps if m is not None else None,
            seconds=run.server_report_s if m is not None else None,
            jitter_ms=run.jitter_ms if j is not None else None,
            lost=run.lost_datagrams if loss is not None else None,
            total=run.total_datagrams if loss is not None else None,
            invalid=run.server_report_invalid,
            row=run.server_report_row if run.server_report_invalid else "",
        )
    )


def _sum_server_reports(run: Iperf3Run) -> None:
    """iperf 2 -P: a server report a stream. The run's figures are their sums (the streams
    ran at once: the rates add up, as the [SUM] row adds the senders'), the worst stream's
    line the one cited; the run holds no measure only where no report does. A report that holds
    none where another does is kept ``invalid`` in ``server_reports``: the sums are of the other
    streams only, and the reader says that stream's report as the one with no measure."""
    valid = [s for s in run.server_reports if not s.invalid]
    run.server_report_invalid = not valid
    if not valid:
        return
    counted = [s for s in valid if s.total]
    worst = max(counted, key=lambda s: (s.lost or 0) / (s.total or 1), default=valid[0])
    run.server_report_line = worst.line
    rates = [s.bps for s in valid if s.bps is not None]
    run.server_report_bps = sum(rates) if rates else None
    run.server_report_s = max((s.seconds for s in valid if s.seconds), default=None)
    jitters = [s.jitter_ms for s in valid if s.jitter_ms is not None]
    run.jitter_ms = max(jitters) if jitters else None
    run.lost_datagrams = sum(s.lost or 0 for s in counted) if counted else None
    run.total_datagrams = sum(s.total or 0 for s in counted) if counted else None


UDP_LOSS_SHARE = 0.05
"""A UDP test whose receiver counted more than this share of the datagrams lost is judged: the
path did not carry the rate asked (-b). The project's threshold: a UDP stream at a rate its
path carries loses next to nothing, while a test asked above the link's rate loses the excess."""


def udp_loss_share(run: Iperf3Run) -> float | None:
    """The share of a UDP test's datagrams its receiver counted lost, where over
    ``UDP_LOSS_SHARE``; None otherwise or where the copy holds no count."""
    if not run.total_datagrams or run.lost_datagrams is None:
        return None
    share = run.lost_datagrams / run.total_datagrams
    return share if share > UDP_LOSS_SHARE else None


def _list(value: object) -> list[object]:
    return value if isinstance(value, list) else []


def _json_key_line(text: str, key: str) -> int:
    """The line of the copy's last top-level-looking ``"key":`` (1 when it is not found)."""
    found = 1
    for no, body in enumerate(text.splitlines(), start=1):
        if body.lstrip().startswith(f'"{key}":'):
            found = no
    return found


def _parse_json(text: str) -> Iperf3Run:
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise ParseError(f"iperf3 -J output that is not JSON: {e.msg}", line=e.lineno) from e
    if not isinstance(doc, dict) or not isinstance(doc.get("start"), dict):
        raise ParseError("iperf3 -J output without its 'start' object")
    start = doc["start"]
    end = json_object(doc.get("end"))
    to = json_object(start.get("connecting_to"))
    connected = [c for c in _list(start.get("connected")) if isinstance(c, dict)]
    conn = connected[0] if connected else {}
    port = json_number(to.get("port"))
    run = Iperf3Run(
        line=1,
        role="client" if to else "",
        local=str(conn.get("local_host", "")),
        remote=str(to.get("host", conn.get("remote_host", ""))),
        remote_port=int(port) if port is not None else None,
        streams=len(connected),
    )
    sent, received = json_object(end.get("sum_sent")), json_object(end.get("sum_received"))
    if (sent_bps := json_number(sent.get("bits_per_second"))) is not None:
        run.sender_bps = sent_bps
        if (retransmits := json_number(sent.get("retransmits"))) is not None:
            run.retransmits = int(retransmits)
        if (seconds := json_number(sent.get("seconds"))) is not None:
            run.seconds = seconds
    run.receiver_bps = json_number(received.get("bits_per_second"))
    run.udp = str(json_object(start.get("test_start")).get("protocol", "")).upper() == "UDP"
    for interval in _list(doc.get("intervals")):
        summed = json_object(json_object(interval).get("sum"))
        if (bps := json_number(summed.get("bits_per_second"))) is not None:
            run.interval_bps.append(bps)
            run.interval_s.append(json_number(summed.get("seconds")) or 0.0)
    if isinstance(error := doc.get("error"), str):
        # iperf3's main.c ends a failed run with iperf_errexit(test, "error - %s",
        # iperf_strerror(i_errno)), and -J puts that whole string in "error" (iperf_error.c
        # iperf_errexit: cJSON_AddStringToObject(test->json_top, "error", str)); run's own
        # cleanup_and_fail adds the bare iperf_strerror in newer releases: the reason is read
        # without the prefix either way
        error = error.removeprefix("error - ")
        run.error, run.error_line = error, _json_key_line(text, "error")
        run.unreached = _UNREACHED_RE.match(error) is not None
        run.exchange_broken = _EXCHANGE_BROKEN_RE.match(error) is not None
    if run.sender_bps is None and not run.error:
        run.cut = True
    return run


STALLED_INTERVALS = 2
"""How many intervals that moved no data make a stalled test (one may be a pause)."""


def stalled(run: Iperf3Run) -> tuple[int, float] | None:
    """How many intervals moved no data and how long they lasted, where at least
    ``STALLED_INTERVALS`` did (a TCP connection that stopped moving data: its retransmits
    unanswered, its congestion window down to a segment); None otherwise. A UDP test's empty
    interval is the sender's pacing, not judged."""
    if run.total_datagrams is not None or run.udp:
        return None
    zero = [
        length for bps, length in zip(run.interval_bps, run.interval_s, strict=False) if bps == 0
    ]
    if len(zero) < STALLED_INTERVALS:
        return None
    return len(zero), sum(zero)


RETRANSMIT_SHARE = 0.005
"""The share of a TCP test's segments retransmitted above which the path is lossy: by Mathis et
al.'s bound (1997, "The macroscopic behavior of the TCP congestion avoidance algorithm": a
stream's rate <= MSS / RTT * 1.22 / sqrt(p)), a loss rate p of 0.5 % caps one stream at about
17 segments a round trip, some 200 Mbit/s at a 1 ms round trip, far under a cluster's link."""
SEGMENT_BYTES = 1448
"""The TCP payload of a 1500-byte Ethernet frame (less the IP and TCP headers with timestamps):
iperf3's text prints the MSS only under -V (``Iperf3Run.mss_bytes``), and a larger MTU carries
the bytes in fewer segments, so the share counted with this one is the least it can be."""


def retransmit_figures(run: Iperf3Run) -> tuple[int, float, float] | None:
    """The TCP retransmits, seconds and bits a second a test's share of losses is weighed on:
    the sender summary's, or, where the copy ends before it, the intervals' (their Retr column
    summed over their time at their mean rate); None for UDP or where none is printed."""
    if run.udp:
        return None
    if run.retransmits and run.sender_bps and run.seconds:
        return run.retransmits, run.seconds, run.sender_bps
    # (a connection whose intervals stalled: its retransmits are the stall's, ``stalled``)
    if run.retransmits is None and run.interval_retransmits and stalled(run) is None:
        seconds = sum(run.interval_s)
        sent_bits = sum(b * s for b, s in zip(run.interval_bps, run.interval_s, strict=False))
        if seconds > 0 and sent_bits > 0:
            return run.interval_retransmits, seconds, sent_bits / seconds
    return None


def loss_share(run: Iperf3Run) -> float | None:
    """The share of the sender's segments TCP retransmitted (``retransmit_figures``' bytes in
    segments of the MSS the verbose client printed, else ``SEGMENT_BYTES``); None where the
    copy gives no retransmit count."""
    if (figures := retransmit_figures(run)) is None:
        return None
    retransmits, seconds, bps = figures
    return retransmits / (bps * seconds / 8 / (run.mss_bytes or SEGMENT_BYTES))


def retransmit_share(run: Iperf3Run) -> float | None:
    """The share of the sender's segments that TCP retransmitted (``loss_share``), where it is
    over ``RETRANSMIT_SHARE``; None otherwise, or where the copy holds no Retr figure."""
    share = loss_share(run)
    return share if share is not None and share > RETRANSMIT_SHARE else None


UNSTEADY_RETRANSMIT_SHARE = 0.001
"""The share of a TCP test's segments retransmitted above which a test whose intervals were
unsteady (``unsteady``) lost its rate to the losses: by Mathis et al.'s bound a loss rate p of
0.1 % caps one stream at about 39 segments a round trip, some 4.5 Gbit/s at a data centre's
0.1 ms, under any cluster link; a steady test at that share ran at what the path allowed (its
bottleneck's congestion), its losses no fault."""


def unsteady_loss_share(run: Iperf3Run) -> float | None:
    """The share of the sender's segments TCP retransmitted where it is over
    ``UNSTEADY_RETRANSMIT_SHARE`` and the intervals were unsteady (``unsteady``): losses that
    took the rate down while the test ran. None otherwise (or over ``RETRANSMIT_SHARE``, which
    ``retransmit_share`` says whatever the intervals)."""
    share = loss_share(run)
    if share is None or share <= UNSTEADY_RETRANSMIT_SHARE or share > RETRANSMIT_SHARE:
        return None
    return share if unsteady(run) is not None else None


def unsteady(run: Iperf3Run) -> tuple[float, float] | None:
    """The slowest and fastest interval when the slowest is below ``UNSTEADY_RATIO`` of the
    fastest (TCP's slow start, the first interval, left out); None when steady or too short."""
    # (the server's last interval is a sliver of a second, "10.00-10.04", its rate no measure)
    lengths = sorted(run.interval_s) or [0.0]
    typical = lengths[len(lengths) // 2]
    rates = [
        bps
        for bps, length in list(zip(run.interval_bps, run.interval_s, strict=False))[1:]
        if length >= typical / 2
    ] or run.interval_bps[1:]
    if len(rates) < 3 or max(rates) <= 0:
        return None
    low, high = min(rates), max(rates)
    return (low, high) if low < UNSTEADY_RATIO * high else None


# multi-nic-cni's connection check (foundation-model-stack/multi-nic-cni connection-check/
# iperf3.go ReadResult): "## Connection Check: <network>" between rules of '#', then through a
# tabwriter "FROM\tTO\t\tCONNECTED/TOTAL\tIPs\tBANDWIDTHs" and a row per (client host, server
# host): the target's addresses on that network ("[ip ip]", Go's %v of a string slice), how many
# of them its iperf3 clients reached (total minus the addresses whose result was empty or "Bad
# file descriptor"), and per reached address the receiver's bitrate summed over its streams
# ("[ 8.80Gbits/sec 7.81Gbits/sec]", awk's sum of iperf3's column 7 and its unit)
CONNECTION_CHECK_SIGNATURE = r"^FROM[ \t]+TO[ \t]+CONNECTED/TOTAL[ \t]+IPs[ \t]+BANDWIDTHs[ \t]*$"
_CHECK_NETWORK_RE = re.compile(r"^## Connection Check: (?P<network>\S{1,200})[ \t]*$")
_CHECK_HEADER_RE = re.compile(CONNECTION_CHECK_SIGNATURE)
_CHECK_ROW_RE = re.compile(
    r"^(?P<src>[^\s\[\]]{1,253})[ \t]+(?P<dst>[^\s\[\]]{1,253})[ \t]+(?P<ok>\d{1,4})/(?P<total>\d{1,4})"
    r"[ \t]+\[(?P<ips>[^\]\n]{0,4000})\][ \t]*\[(?P<bws>[^\]\n]{0,4000})\][ \t]*$"
)
_CHECK_BW_RE = re.compile(r"(?P<rate>\d{1,12}(?:\.\d{1,12})?)[ \t]{0,4}(?P<unit>[KMGT]?)bits/sec")


@dataclass(kw_only=True)
class CheckPair:
    line: int
    src: str
    """The client's host (FROM)."""
    dst: str
    """The server's host (TO), whose addresses ``ips`` are."""
    connected: int
    total: int
    ips: list[str]
    gbps: list[float]
    """Each reached address's bitrate, in Gbit/s (the streams' receiver sum)."""


@dataclass(kw_only=True)
class ConnectionCheck:
    line: int
    """The table's header line."""
    network: str | None
    """The multi-nic network checked (the "## Connection Check:" line), None where not copied."""
    pairs: list[CheckPair] = field(default_factory=list)


def parse_connection_check(text: str) -> list[ConnectionCheck]:
    """Each multi-nic-cni connection check table in ``text``; ParseError where none has a row."""
    checks: list[ConnectionCheck] = []
    network: str | None = None
    current: ConnectionCheck | None = None
    for no, raw in enumerate(text.splitlines(), 1):
        line = raw.rstrip("\r")
        if n := _CHECK_NETWORK_RE.match(line):
            network, current = n.group("network"), None
            continue
        if _CHECK_HEADER_RE.match(line):
            current = ConnectionCheck(line=no, network=network)
            checks.append(current)
            network = None
            continue
        if current is None:
            continue
        if r := _CHECK_ROW_RE.match(line):
            current.pairs.append(
                CheckPair(
                    line=no,
                    src=r.group("src"),
                    dst=r.group("dst"),
                    connected=int(r.group("ok")),
                    total=int(r.group("total")),
                    ips=r.group("ips").split(),
                    gbps=[
                        _bps(b.group("rate"), b.group("unit")) / 1e9
                        for b in _CHECK_BW_RE.finditer(r.group("bws"))
                    ],
                )
            )
        elif line.strip():
            current = None  # the closing rule of '#' (or anything else) ends the table
    checks = [c for c in checks if c.pairs]
    if not checks:
        raise ParseError("multi-nic-cni connection check: a header and no FROM/TO row")
    return checks


def measured_whole(pair: CheckPair) -> bool:
    """Whether ``pair`` connected on every address with a bitrate read for each: iperf3.go
    ReadResult (foundation-model-stack/multi-nic-cni connection-check) raises its fail count
    only for an address whose result is in the client's result map and empty or "Bad file
    descriptor", so an address with no result at all (the client pod's log not read) counts as
    connected and prints no bitrate; "N/N" with fewer than N bitrates measured nothing there."""
    return pair.connected >= pair.total and len(pair.gbps) >= pair.total


def unconnected_host(check: ConnectionCheck) -> str | None:
    """The one host in every pair of ``check`` that did not connect whole, where at least two
    pairs failed and every pair with that host failed: the host no other reaches (or that
    reaches none), not the paths between the others. None where no one host explains them."""
    failed = [p for p in check.pairs if p.connected < p.total]
    if len(failed) < 2:
        return None
    common = {failed[0].src, failed[0].dst}
    for p in failed[1:]:
        common &= {p.src, p.dst}
    if len(common) != 1:
        return None
    host = next(iter(common))
    # (a pair with that host measured whole: something reaches it; an unmeasured "N/N" row,
    # measured_whole, shows nothing either way)
    if any(measured_whole(p) for p in check.pairs if host in (p.src, p.dst)):
        return None
    return host
