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
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.parsers import numbered_lines

SIGNATURE = (
    r"\bproc'd: -?\d{1,12} \(\d{1,9} Gflop/s\)"
    r"|^[ \t]*Tested \d{1,5} GPUs:[ \t]*\n[ \t]*GPU \d{1,5}: (?:OK|FAULTY)[ \t]*$"
)
"""Its progress line's first GPU, or its summary's heading with its first GPU."""

_PROGRESS_RE = re.compile(r"(?P<percent>\d{1,3}\.\d)%\s{0,10}proc'd: ")
_PROCD_RE = re.compile(r"(?P<iters>-?\d{1,12}) \((?P<gflops>\d{1,9}) Gflop/s\)")
_ERROR_RE = re.compile(r"(?P<count>-?\d{1,12})\s{0,10}(?:\((?P<note>WARNING|DIED)!\))?")
_TEMP_RE = re.compile(r"(?P<c>\d{1,4}) C|--")
_TESTED_RE = re.compile(r"^\s*Tested (?P<n>\d{1,5}) GPUs:\s*$")
_RESULT_RE = re.compile(r"^\s*GPU (?P<gpu>\d{1,5}): (?P<result>OK|FAULTY)\s*$")


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
    progress: list[Progress] = field(default_factory=list)
    tested: int | None = None
    tested_line: int = 0
    results: dict[int, tuple[str, int]] = field(default_factory=dict)
    """GPU → (``OK`` / ``FAULTY``, its line) from the summary."""

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


def parse(text: str) -> Run:
    """Every progress line (a copy keeps one or more: ``\\r`` splits them) and the summary."""
    run = Run()
    for no, line, _ in numbered_lines(text):
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
            run.progress.append(progress)
        elif m := _TESTED_RE.match(line):
            run.tested, run.tested_line = int(m.group("n")), no
            run.results = {}  # (a copy of two runs: the last summary is the one read)
        elif run.tested is not None and (m := _RESULT_RE.match(line)):
            run.results[int(m.group("gpu"))] = (m.group("result"), no)
    return run
