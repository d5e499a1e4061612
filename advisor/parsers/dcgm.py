"""``dcgmi diag -r LEVEL``: NVIDIA DCGM's diagnostic, one table of checks and their results.

DCGM prints a ``Diagnostic | Result`` table: a ``Metadata`` section (``DCGM Version``, ``Driver
Version Detected``, ``GPU Device IDs Detected``), then its checks grouped under section rows
(``-----  Deployment  ----``, ``Integration``, ``Hardware``, ``Stress``), each check's result as
``Pass``, ``Fail``, ``Warn`` or ``Skip``, followed for newer releases by the GPUs it applies to
(``Pass - All``, ``Fail - GPU: 1``, ``Skip - All``). A check's message continues on rows whose
first cell is empty (``| | Warning: GPU 0 ...``). A check DCGM skipped was not run: a level-3 run
whose every check after ``Deployment`` was skipped says nothing of the hardware.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.parsers import ParseError, ParseWarning, numbered_lines

SIGNATURE = r"^\|\s*Diagnostic\s*\|\s*Result\s*\|"
"""The table's header row."""

_SECTION_RE = re.compile(r"^[|+]-+\s+(?P<name>[A-Za-z][\w ]*?)\s+-+\+")
_ROW_RE = re.compile(r"^\|\s*(?P<name>[^|]*?)\s*\|\s*(?P<value>[^|]*?)\s*\|\s*$")
_RESULT_RE = re.compile(r"^(?P<result>Pass|Fail|Warn|Skip)(?:\s*-\s*(?P<gpus>.+))?$", re.I)
_METADATA = {
    "DCGM Version": "dcgm_version",
    "Driver Version Detected": "driver",
    "GPU Device IDs Detected": "gpu_ids",
}


@dataclass
class DiagCheck:
    section: str
    name: str
    result: str
    """``Pass``, ``Fail``, ``Warn`` or ``Skip``."""
    gpus: str | None = None
    """Which GPUs the result is of, as printed (``All``, ``GPU: 1``)."""
    line: int = 0
    details: list[str] = field(default_factory=list)
    """The message rows under it (what a failed or warned check found)."""


@dataclass
class Diag:
    line: int
    dcgm_version: str | None = None
    driver: str | None = None
    gpu_ids: str | None = None
    checks: list[DiagCheck] = field(default_factory=list)
    repeats: int = 1
    """How many times the same table was printed (``srun`` on several tasks, a copy twice)."""

    @property
    def failed(self) -> list[DiagCheck]:
        return [c for c in self.checks if c.result == "Fail"]


def _table(rows: list[tuple[int, str]], start: int) -> Diag:
    diag = Diag(line=start)
    section = ""
    current: DiagCheck | None = None
    for no, line in rows:
        if m := _SECTION_RE.match(line):
            section, current = m.group("name").strip(), None
            continue
        if (row := _ROW_RE.match(line)) is None:
            continue
        name, value = row.group("name"), row.group("value")
        if name == "Diagnostic" and value == "Result":
            continue
        if section == "Metadata" or name in _METADATA:
            if name in _METADATA:
                setattr(diag, _METADATA[name], value)
            continue
        if not name:
            if current is not None and value:
                current.details.append(value)
            continue
        if r := _RESULT_RE.match(value):
            current = DiagCheck(
                section=section,
                name=name,
                result=r.group("result").capitalize(),
                gpus=r.group("gpus"),
                line=no,
            )
            diag.checks.append(current)
    return diag


def parse(text: str) -> tuple[list[Diag], list[ParseWarning]]:
    """Each diagnostic table of ``text``; one printed again unchanged counts as a repeat."""
    lines = numbered_lines(text)
    starts = [i for i, (_, line, _) in enumerate(lines) if re.match(SIGNATURE, line.strip())]
    if not starts:
        raise ParseError("no dcgmi diag table ('| Diagnostic | Result |')")
    diags: list[Diag] = []
    warnings: list[ParseWarning] = []
    for k, i in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(lines)
        body = [(no, line.strip()) for no, line, _ in lines[i:end]]
        diag = _table(body, lines[i][0])
        if not diag.checks:
            warnings.append(
                ParseWarning(line=diag.line, message="dcgmi diag: a table with no check's result")
            )
            continue
        same = [
            d
            for d in diags
            if [(c.section, c.name, c.result, c.gpus) for c in d.checks]
            == [(c.section, c.name, c.result, c.gpus) for c in diag.checks]
            and d.gpu_ids == diag.gpu_ids
        ]
        if same:
            same[0].repeats += 1
            continue
        diags.append(diag)
    if not diags:
        raise ParseError("dcgmi diag: no check's result in its table", line=lines[starts[0]][0])
    return diags, warnings
