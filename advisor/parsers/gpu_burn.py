"""gpu-burn (wilicc/gpu-burn): a GEMM burn on every GPU, each result checked against the first.

What it prints (gpu_burn-drv.cpp, listenClients): a progress line, rewritten in place with
``\\r``, ``"%.1f%%  proc'd: "`` then for each GPU ``"%d (%.0f Gflop/s) "`` (``- `` between
GPUs), ``"  errors: "`` then each GPU's ``"%d "``, ``" (WARNING!)"`` after a count that is not 0
and ``" (DIED!)"`` after a GPU whose process failed (its iterations -1), then ``"  temps: "``
``"%d C "`` (``-- `` for none) and, in later releases, ``"  power: "``. The errors are the
elements the compare kernel found differing from the first result (GPU_Test::getErrors, summed
into an ``int``: a negative figure is a count that overflowed), reset to 0 at each 10 %
summary; a GPU with any error at any progress line is marked faulty and stays so. At the end,
``"Tested %d GPUs:"`` then ``"\\tGPU %d: %s"`` with ``FAULTY`` or ``OK`` a GPU. main returns 0
whatever the GPUs did: the exit code says nothing of them.

Forks print other words in that summary: one (code index, find_string "Tested %d GPUs", the
fork whose listenClients returns ``success``) prints ``DIED`` for a GPU whose process died and
``NO RESULTS`` for one that never reported, and fails the run for either; so any word but
``OK`` is read as the GPU failing. Another prints the nvidia-smi index of the GPU ``-i N``
chose (``"\\tGPU %d: %s", nvsmi_index``), while its progress line has that GPU at position 0.

A copy gathered with pdsh or clush keeps their ``node07: `` before each line (dshbak(1): "the
leading node: is stripped" only by dshbak), before the summary's lines too, a tab after it or
not; each host's lines are read as its own run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.parsers import IPV4_ADDRESS, numbered_lines

# the host pdsh or clush put before each line: "node07: " or "10.0.0.11: " (any name with a
# letter first, as gpu-burn's own words must follow it; not srun --label's "3: ", a task and no
# host). (kubectl logs --prefix's "[pod/NAME/CONTAINER] " is taken off before a parser reads the
# copy: evidence.load's _LINE_PREFIXES)
_HOST = rf"(?:[ \t]{{0,40}}(?P<host>{IPV4_ADDRESS}|[A-Za-z][\w.-]{{0,252}}): )"
_HOST_ANY = _HOST.replace("?P<host>", "?:")
# a summary row's word: OK, FAULTY, or a fork's DIED / NO RESULTS (upper-case words)
_WORD = r"[A-Z][A-Z_ -]{0,38}[A-Z]"

SIGNATURE = (
    r"\bproc'd: -?\d{1,12} \(\d{1,9} Gflop/s\)"
    rf"|^{_HOST_ANY}?[ \t]*Tested \d{{1,5}} GPUs:[ \t]*\n{_HOST_ANY}?[ \t]*GPU \d{{1,5}}: "
    rf"{_WORD}[ \t]*$"
)
"""Its progress line's first GPU, or its summary's heading with its first GPU."""

_PROGRESS_RE = re.compile(r"(?P<percent>\d{1,3}\.\d)%\s{0,10}proc'd: ")
_PROCD_RE = re.compile(r"(?P<iters>-?\d{1,12}) \((?P<gflops>\d{1,9}) Gflop/s\)")
_ERROR_RE = re.compile(r"(?P<count>-?\d{1,12})\s{0,10}(?:\((?P<note>WARNING|DIED)!\))?")
_TEMP_RE = re.compile(r"(?P<c>\d{1,4}) C|--")
_HOST_RE = re.compile(rf"^{_HOST}")
_TESTED_RE = re.compile(rf"^{_HOST}?[ \t]*Tested (?P<n>\d{{1,5}}) GPUs:[ \t]*$")
_RESULT_RE = re.compile(rf"^{_HOST}?[ \t]*GPU (?P<gpu>\d{{1,5}}): (?P<result>{_WORD})[ \t]*$")


@dataclass(kw_only=True)
class Progress:
    """One progress line: each GPU's figures, in the GPUs' order (index = GPU)."""

    line: int
    percent: float
    gflops: list[int] = field(default_factory=list)
    errors: list[int] = field(default_factory=list)
    died: list[bool] = field(default_factory=list)
    temps_c: list[int | None] = field(default_factory=list)


@dataclass(kw_only=True)
class Run:
    host: str | None = None
    """The host pdsh or clush put before its lines; None where none."""
    progress: list[Progress] = field(default_factory=list)
    tested: int | None = None
    tested_line: int = 0
    results: dict[int, tuple[str, int]] = field(default_factory=dict)
    """GPU → (its summary word: ``OK``, ``FAULTY``, a fork's ``DIED`` / ``NO RESULTS``, its
    line) from the summary."""

    def error_lines(self, gpu: int) -> list[tuple[int, int]]:
        """The progress lines that show errors on ``gpu``: ``[(line, count)]``."""
        return [
            (p.line, p.errors[gpu])
            for p in self.progress
            if gpu < len(p.errors) and p.errors[gpu] != 0
        ]


def _segment(line: str, start: str, ends: tuple[str, ...]) -> str:
    """The text after ``start`` up to the first of ``ends`` (or the line's end)."""
    at = line.find(start)
    if at < 0:
        return ""
    rest = line[at + len(start) :]
    cut = min((i for e in ends if (i := rest.find(e)) >= 0), default=len(rest))
    return rest[:cut]


def parse(text: str) -> list[Run]:
    """Every progress line (a copy keeps one or more: ``\\r`` splits them) and the summary, a
    run a host where a collector's prefix names hosts (in the order they first appear)."""
    runs: dict[str | None, Run] = {}
    raw = text.splitlines()
    for no, line, _ in numbered_lines(text):
        # (the host from the line as written: numbered_lines takes an address's "10.0.0.11: "
        # off as pdsh's prefix)
        h = _HOST_RE.match(raw[no - 1]) if no <= len(raw) else None
        host = h.group("host") if h else None
        if m := _PROGRESS_RE.search(line):
            progress = Progress(line=no, percent=float(m.group("percent")))
            procd = _segment(line, "proc'd:", ("errors:",))
            progress.gflops = [int(p.group("gflops")) for p in _PROCD_RE.finditer(procd)]
            for e in _ERROR_RE.finditer(_segment(line, "errors:", ("temps:", "power:"))):
                progress.errors.append(int(e.group("count")))
                progress.died.append(e.group("note") == "DIED")
            progress.temps_c = [
                int(t.group("c")) if t.group("c") else None
                for t in _TEMP_RE.finditer(_segment(line, "temps:", ("power:",)))
            ]
            runs.setdefault(host, Run(host=host)).progress.append(progress)
        elif m := _TESTED_RE.match(raw[no - 1]) or _TESTED_RE.match(line):
            run = runs.setdefault(host, Run(host=host))
            run.tested, run.tested_line = int(m.group("n")), no
            run.results = {}  # (a copy of two runs: the last summary is the one read)
        elif (
            (run_ := runs.get(host)) is not None
            and run_.tested is not None
            and (m := _RESULT_RE.match(raw[no - 1]) or _RESULT_RE.match(line))
        ):
            run_.results[int(m.group("gpu"))] = (m.group("result"), no)
    return list(runs.values())
