"""CANN's ``asys diagnose`` (comprehensive detection): each check's result per device.

asys prints one table per run (hicann/oam-tools, docs/zh/asys/comprehensive_detection.md): a head
row naming the devices (``| Group of 4 Device | Diagnostic Result |`` when no ``-d`` was given,
``| Device ID: 1 | Diagnostic Result |`` for one), a section row (``+--- Hardware ---+``), then a
row per check: ``| HBM Detect | Pass, Warn, Pass, Warn |`` (one result per device, in the order
asys lists them) or ``Pass - All``, and a row of figures under some checks (``| | (9, 0, 5, 0) |``,
HBM Detect's counts per device). Its documentation reads the results: ``Pass`` normal, ``Warn``
the check found something abnormal that may be hardware or software (the host plog's
``[ERROR] AML`` lines say more), ``Fail`` a hardware fault found (contact support).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from advisor.parsers import ParseError, numbered_lines

SIGNATURE = r"^[ \t]*\|\s*(?:Group of \d+ Device|Device ID:\s*\d+)\s*\|\s*Diagnostic Result\s*\|"
_HEAD_RE = re.compile(
    r"^\|\s*(?:Group of (?P<count>\d+) Device|Device ID:\s*(?P<device>\d+))\s*\|\s*Diagnostic Result"
)
_SECTION_RE = re.compile(r"^\+-+\s*(?P<name>[A-Za-z][\w ]*?)\s*-+\+")
_RESULTS = ("Pass", "Warn", "Fail")


@dataclass
class Check:
    line: int
    name: str
    section: str
    devices: list[int] | None
    """The devices the results are for (``Device ID: N``); None for a group, whose results are
    by position in asys's order."""
    results: list[str]
    """One per device (``Pass - All``: every device passed, one ``Pass``)."""
    all_passed: bool = False
    figures: str = ""
    """The row of figures under the check (HBM Detect's ``(9, 0, 5, 0)``), as printed."""
    group_size: int | None = None
    command: str = ""
    """The ``asys diagnose ...`` line above the table, when the copy kept it."""


def parse(text: str) -> list[Check]:
    """Every check of every ``asys diagnose`` table in ``text``."""
    checks: list[Check] = []
    command = ""
    head: re.Match[str] | None = None
    section = ""
    last: Check | None = None
    for no, raw, _ in numbered_lines(text):
        line = raw.strip()
        if line.startswith("asys "):
            command, head, last = line, None, None
            continue
        if line.startswith("+"):
            if sec := _SECTION_RE.match(line):
                section = sec.group("name")
            continue
        if not line.startswith("|"):
            continue
        if hm := _HEAD_RE.match(line):
            head, last = hm, None
            continue
        if head is None:
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) < 2:
            continue
        name, value = cells[0], cells[1]
        if not name:
            if last is not None and value:
                last.figures = f"{last.figures} {value}".strip()
            continue
        results = [r.strip() for r in value.split(" - ")[0].split(",")]
        if not results or any(r not in _RESULTS for r in results):
            continue
        device = head.group("device")
        last = Check(
            line=no,
            name=name,
            section=section,
            devices=[int(device)] if device is not None else None,
            results=results,
            all_passed=value.replace(" ", "") == "Pass-All",
            group_size=int(head.group("count")) if head.group("count") else None,
            command=command,
        )
        checks.append(last)
    if not checks:
        raise ParseError("no asys diagnose check row ('| Stress Detect | Pass, Warn, ... |')")
    return checks
