"""The CUDA samples' simpleP2P (NVIDIA/cuda-samples, Samples/0_Introduction/simpleP2P): one pair
of GPUs with peer access, a copy between them, two kernels that read the peer's memory, and a
check of the data they wrote.

What it prints (simpleP2P.cu, main): ``[./simpleP2P] - Starting...``, ``CUDA-capable device
count: N``, a ``> Peer access from NAME (GPUi) -> NAME (GPUj) : Yes`` (or ``No``) line for each
ordered pair, or, where no pair can, "Peer to Peer access is not available amongst GPUs in the
system, waiving test."; then ``Enabling peer access between GPUa and GPUb...``, ``cudaMemcpyPeer /
cudaMemcpy between GPUa and GPUb: %.2fGB/s``, and after the kernels a ``Verification error @
element %i: val = %f, ref = %f`` line for each wrong value (it stops after twelve), and last
``Test failed!`` (any wrong value) or ``Test passed``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.parsers import NODE_NAME, numbered_lines

_STARTING_RE = re.compile(r"\[[^\]\n]{0,200}simpleP2P(?:\.exe)?\] - Starting\.\.\.")
_ACCESS_RE = re.compile(
    r"> Peer access from (?P<a_name>.{1,200}?) \(GPU(?P<a>\d+)\) -> "
    r"(?P<b_name>.{1,200}?) \(GPU(?P<b>\d+)\) : (?P<ok>Yes|No)\s*$"
)
_PAIR_RE = re.compile(r"Enabling peer access between GPU(\d+) and GPU(\d+)")
_COPY_RE = re.compile(
    r"cudaMemcpyPeer / cudaMemcpy between GPU\d+ and GPU\d+: (\d+(?:\.\d+)?) ?GB/s"
)
_WRONG_RE = re.compile(
    r"Verification error @ element (?P<element>\d+): val = (?P<val>\S+), ref = (?P<ref>\S+)"
)
_RESULT_RE = re.compile(r"(?:^|[\s:>\]])Test (?P<result>failed!|passed)\s*$")
_WAIVED_RE = re.compile(r"Peer to Peer access is not available amongst GPUs in the system")
_HOST_PREFIX_RE = re.compile(
    rf"^[ \t]*(?P<host>(?:\d{{1,3}}\.){{3}}\d{{1,3}}|{NODE_NAME}): "
    r"(?=\[[^\]\n]{0,200}simpleP2P(?:\.exe)?\] - Starting|> Peer access from "
    r"|cudaMemcpyPeer / cudaMemcpy between |Test (?:failed!|passed))"
)
"""A host's name before one of simpleP2P's own lines, as pdsh puts it before each line of a
node's output (dshbak(1): "the leading node: is stripped"; ``pdsh -w gpu[01-02] simpleP2P``):
each host's lines are its own run, wherever pdsh interleaved them."""
SIGNATURE = (
    r"\[[^\]\n]{0,200}simpleP2P(?:\.exe)?\] - Starting\.\.\."
    r"|> Peer access from [^\n]{1,200}? \(GPU\d+\) -> [^\n]{1,200}? \(GPU\d+\) : (?:Yes|No)[ \t]*$"
    r"|cudaMemcpyPeer / cudaMemcpy between GPU\d+ and GPU\d+: "
)
"""Its banner, a peer-access line or its copy's figure: a copy that kept any of them."""


@dataclass(kw_only=True)
class Wrong:
    line: int
    element: int
    value: str
    """As printed (``%f``: ``nan`` where the copy brought no number back)."""
    reference: str


@dataclass(kw_only=True)
class Run:
    line: int = 1
    """The banner's line (the first line read where the copy has none)."""
    devices: dict[int, str] = field(default_factory=dict)
    """GPU → its name, from the peer-access lines."""
    access: dict[int, dict[int, bool]] = field(default_factory=dict)
    """GPU → peer → cudaDeviceCanAccessPeer's answer ("Yes" / "No")."""
    pair: tuple[int, int] | None = None
    """The pair the test ran on (the first pair that can)."""
    copy_gbytes_s: float | None = None
    copy_line: int = 0
    wrong: list[Wrong] = field(default_factory=list)
    result: str | None = None
    """``failed`` or ``passed``; None where the copy ends before the result."""
    result_line: int = 0
    waived_line: int = 0
    """The "waiving test" line's: no pair has peer access, nothing was run."""
    host: str = ""
    """The host pdsh's prefix names (``gpu02: ``); empty where the lines carry none."""


def parse(text: str) -> Run:
    """Read one simpleP2P output (its lines found anywhere on a line: a launcher's or a log's
    prefix before them is kept out)."""
    return _read([(no, line) for no, line, _ in numbered_lines(text)])


def parse_hosts(text: str) -> list[Run]:
    """simpleP2P's runs, one a host where pdsh's ``host: `` prefix names hosts before its lines
    (each host's lines read apart, in the order the hosts first print); else the one run."""
    # (the lines as written: the shared reading takes pdsh's prefix off some lines, a banner's
    # "gpu02: [./simpleP2P]" or an address's, and the host is what is wanted here)
    written = [(no, raw.rstrip("\r")) for no, raw in enumerate(text.splitlines(), 1)]
    by_host: dict[str, list[tuple[int, str]]] = {}
    for _no, line in written:
        if m := _HOST_PREFIX_RE.match(line):
            by_host.setdefault(m.group("host"), [])
    if not by_host:
        return [parse(text)]
    for no, line in written:
        host, sep, rest = line.lstrip().partition(": ")
        if sep and host in by_host:
            by_host[host].append((no, rest))
    runs = []
    for host, kept in by_host.items():
        run = _read(kept)
        run.host = host
        runs.append(run)
    return runs


def _read(lines: list[tuple[int, str]]) -> Run:
    """One run from its numbered lines."""
    run = Run()
    banner = False
    first_access = 0
    for no, line in lines:
        s = line.strip()
        if not banner and _STARTING_RE.search(s):
            run.line, banner = no, True
        elif m := _ACCESS_RE.search(s):
            first_access = first_access or no
            a, b = int(m.group("a")), int(m.group("b"))
            run.devices.setdefault(a, m.group("a_name"))
            run.devices.setdefault(b, m.group("b_name"))
            run.access.setdefault(a, {})[b] = m.group("ok") == "Yes"
        elif m := _PAIR_RE.search(s):
            run.pair = (int(m.group(1)), int(m.group(2)))
        elif m := _COPY_RE.search(s):
            run.copy_gbytes_s, run.copy_line = float(m.group(1)), no
        elif m := _WRONG_RE.search(s):
            run.wrong.append(
                Wrong(
                    line=no,
                    element=int(m.group("element")),
                    value=m.group("val"),
                    reference=m.group("ref"),
                )
            )
        elif m := _RESULT_RE.search(s):
            run.result = "failed" if m.group("result") == "failed!" else "passed"
            run.result_line = no
        elif _WAIVED_RE.search(s):
            run.waived_line = no
    if not banner and first_access:
        run.line = first_access
    return run
