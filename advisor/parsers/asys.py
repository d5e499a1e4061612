"""CANN's ``asys diagnose`` (comprehensive detection): each check's result per device.

asys prints one table per run (hicann/oam-tools, docs/zh/asys/comprehensive_detection.md): a head
row naming the devices (``| Group of 4 Device | Diagnostic Result |`` when no ``-d`` was given,
``| Device ID: 1 | Diagnostic Result |`` for one), a section row (``+--- Hardware ---+``), then a
row per check: ``| HBM Detect | Pass, Warn, Pass, Warn |`` (one result per device, in the order
asys lists them), ``Pass - All`` (``Warn - All``, ``Fail - All``: every device the same), or one
device's ``Pass(9)``, and for a group a row of figures under some checks (``| | (9, 0, 5, 0) |``).
Its documentation reads the results: ``Pass`` normal, ``Warn`` the check found something
abnormal that may be hardware or software (the host plog's ``[ERROR] AML`` lines say more),
``Fail`` a hardware fault found (contact support); HBM Detect's figure, above 0, is the count of
ECC errors newly added by the check.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from advisor.parsers import ParseError, ParseWarning, numbered_lines

SIGNATURE = (
    r"^[ \t]*\|\s*(?:Group of \d+ Device|Device ID:\s*\d+)\s*\|\s*Diagnostic Result\s*\|"
    r"|^[ \t]*\|\s*Device ID:\s*\d+\s*\|\s*Overall Health:\s*\w+\s*\|"
)
# asys health -d=N: "| Device ID: 0 | Overall Health: Warning |", "| | ErrorCode Num: 1 |", then a
# row per error code ("| 0xa419321c | lp pmbus error |")
_HEALTH_HEAD_RE = re.compile(
    r"^\|\s*Device ID:\s*(?P<device>\d+)\s*\|\s*Overall Health:\s*(?P<health>\w+)"
)
_HEALTH_RESULTS = {"Healthy": "Pass", "Warning": "Warn"}
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


# one device's result, with the figure some checks print beside it on a single device
# ("Pass(9)": HBM Detect's count)
_RESULT_RE = re.compile(r"^(?P<result>Pass|Warn|Fail)(?:\((?P<figure>\d+)\))?$")
_ALL_RE = re.compile(r"^(?P<result>Pass|Warn|Fail) - All$")
_COMMAND_RE = re.compile(r"\basys (?:diagnose|health)\b.*$")


def parse(text: str) -> tuple[list[Check], list[ParseWarning]]:
    """Every check of every ``asys diagnose`` table in ``text``, and the rows not read."""
    checks: list[Check] = []
    warnings: list[ParseWarning] = []
    command = ""
    head: re.Match[str] | None = None
    section = ""
    last: Check | None = None
    for no, raw, _ in numbered_lines(text):
        line = raw.strip()
        if "asys " in line and not line.startswith("|") and (cm := _COMMAND_RE.search(line)):
            command, head, last = cm.group(0).strip(), None, None
            continue
        if line.startswith("+"):
            if sec := _SECTION_RE.match(line):
                section = sec.group("name")
            continue
        if not line.startswith("|"):
            continue
        if hl := _HEALTH_HEAD_RE.match(line):
            # a health answer: one check, its error codes on the rows below it (a health word
            # other than Healthy or Warning is kept as printed, read as not healthy)
            head, section = None, ""
            word = hl.group("health")
            last = Check(
                line=no,
                name=f"Overall Health: {word}",
                section="health",
                devices=[int(hl.group("device"))],
                results=[_HEALTH_RESULTS.get(word, word)],
                command=command,
            )
            checks.append(last)
            continue
        if hm := _HEAD_RE.match(line):
            head, last, section = hm, None, ""
            continue
        if head is None and last is not None and last.section == "health":
            cells = [c.strip() for c in line.strip("|").split("|")]
            if len(cells) >= 2 and cells[0].startswith("0x"):
                last.figures = f"{last.figures}; {cells[0]} {cells[1]}".strip("; ")
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
        size = int(head.group("count")) if head.group("count") else None
        every = _ALL_RE.match(value)
        parts = [p.strip() for p in value.split(",")]
        found = [m for p in parts if (m := _RESULT_RE.match(p))]
        if every is None and (not parts or len(found) != len(parts)):
            warnings.append(
                ParseWarning(line=no, message=f"asys diagnose: {name}: unreadable result {value!r}")
            )
            continue
        device = head.group("device")
        if every is not None:
            results = [every.group("result")] * (size or 1)
        else:
            results = [m.group("result") for m in found]
            figures = [m.group("figure") for m in found if m.group("figure") is not None]
        last = Check(
            line=no,
            name=name,
            section=section,
            devices=[int(device)] if device is not None else None,
            results=results,
            all_passed=every is not None and every.group("result") == "Pass",
            group_size=size,
            command=command,
            figures="" if every is not None or not figures else f"({', '.join(figures)})",
        )
        if every is None and size is not None and len(results) not in (1, size):
            warnings.append(
                ParseWarning(
                    line=no,
                    message=f"asys diagnose: {name}: {len(results)} result(s) for a group of "
                    f"{size} device(s): which device each is for is unknown",
                    skipped=False,
                )
            )
        checks.append(last)
    if not checks:
        raise ParseError("no asys diagnose check row ('| Stress Detect | Pass, Warn, ... |')")
    return checks, warnings


# asys info -r=status -d=N (hicann/oam-tools docs, "software_hardware_device_status_info_display"):
# "| Device ID: 0 | INFORMATION |", then "| Chip Name | Ascend ... |", "| Power (W) | 1021 |",
# "| Temperature (C) | 55 |", "| health | Healthy |", and sections of CPU, AI Core and memory
# rows ("| AI Core Usage (%) | 0 |", "| HBM Total (MB) | 65536 |", "| HBM Used (MB) | 3382.52 |")
STATUS_SIGNATURE = r"^[ \t]*\|\s*Device ID:\s*\d+\s*\|\s*INFORMATION\s*\|"
_STATUS_HEAD_RE = re.compile(r"^\|\s*Device ID:\s*(?P<device>\d+)\s*\|\s*INFORMATION\s*\|")
_STATUS_ROW_RE = re.compile(r"^\|\s*(?P<key>[^|]*?)\s*\|\s*(?P<value>[^|]*?)\s*\|\s*$")


@dataclass
class DeviceStatus:
    """One device of ``asys info -r=status``: its rows as printed, by their label."""

    device: int
    line: int
    values: dict[str, str]

    def number(self, key: str) -> float | None:
        try:
            return float(self.values.get(key, ""))
        except ValueError:
            return None  # absent, or "NA"


def parse_status(text: str) -> list[DeviceStatus]:
    """Each device table of ``asys info -r=status``."""
    out: list[DeviceStatus] = []
    for no, line, _ in numbered_lines(text):
        s = line.strip()
        if m := _STATUS_HEAD_RE.match(s):
            out.append(DeviceStatus(device=int(m.group("device")), line=no, values={}))
        elif out and (row := _STATUS_ROW_RE.match(s)) and row.group("key"):
            out[-1].values.setdefault(row.group("key"), row.group("value"))
    if not out:
        raise ParseError("asys info -r=status: no '| Device ID: N | INFORMATION |' table")
    return out
