"""Ascend DMI's fault diagnosis (``ascend-dmi --dg``): each diagnosis item's state.

The normal (not json) output is a ``Summary:`` block (``Arch``, ``Mode``, ``Time``), then one
block per class (``Hardware:``, ``Software:``) holding each item as ``name:`` with its state on
the line below, indented deeper (MindCluster toolbox guide, toolboxug_0160/0162/0165: ``ascend-dmi
-dg -i network``, ``-i driver``, ``--dg --scene healthCheck,performanceCheck,stressTest``);
``--fmt json`` prints ``{"DiagnosisItems": [{"group_name", "sub_items": [{"item_name",
"item_result"}]}], "Summary": {...}}`` (toolboxug_0246). The states are documented per item:
network (0160) ``PASS`` healthy, ``SKIP`` not supported on the product or scene, ``INFO`` a hint,
``WARN`` a warning, ``FAIL`` a failure; driver (0162) ``HEALTH`` healthy, ``GENERAL_WARN`` /
``IMPORTANT_WARN`` / ``EMERGENCY_WARN`` warnings whose content is the error the tool prints,
``FAIL`` installation abnormal or health not readable; nic (0246) ``GENERAL_WARN`` an NPU port
DOWN or ports between NPUs not connected, ``IMPORTANT_WARN`` a port's bandwidth below its
baseline, ``FAIL`` a check that could not run or failed. Without ``-d`` the result is the whole
node's: the output names no device.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, field

from advisor.parsers import ParseError, ParseWarning, numbered_lines

# the summary's keys with the tool's time stamp, or the command typed at a line's start, after a
# shell prompt ("]# ", "$ ") or in a shell trace ("+ "): a comment naming it is not its output
SIGNATURE = (
    r"^[ \t]*Summary:[ \t]*\n[ \t]+Arch:[ \t]*\S+[ \t]*\n[ \t]+Mode:[^\n]*\n[ \t]+Time:[ \t]*\d{8}-\d\d:"
    r"|^(?:[^\n]*?\][ \t]*[#$][ \t]*|[ \t]*[$+][ \t]+|[ \t]*)ascend-dmi\s+(?:-dg|--dg|--diagnosis)\b"
    r'|"DiagnosisItems"\s*:\s*\['
)
_COMMAND_RE = re.compile(r"\bascend-dmi\s+(?:-dg|--dg|--diagnosis)\b.*$")
_COMMAND_LINE_RE = re.compile(_COMMAND_RE.pattern, re.M)
_SUMMARY_KEY_RE = re.compile(r"^(?P<key>Arch|Mode|Time):\s*(?P<value>.*)$")
_CLASS_RE = re.compile(r"^(?P<name>Hardware|Software):\s*$")
_ITEM_RE = re.compile(r"^(?P<name>[A-Za-z][\w]*):\s*$")
_STATE_RE = re.compile(
    r"^(?P<state>PASS|SKIP|INFO|WARN|FAIL|HEALTH|GENERAL_WARN|IMPORTANT_WARN|EMERGENCY_WARN)$"
)
# the documented states read as asys's three results; SKIP and INFO are notes
RESULTS = {
    "PASS": "Pass",
    "HEALTH": "Pass",
    "WARN": "Warn",
    "GENERAL_WARN": "Warn",
    "IMPORTANT_WARN": "Warn",
    "EMERGENCY_WARN": "Warn",
    "FAIL": "Fail",
}
# where an item's own page gives a state another meaning (toolboxug_0246, nic)
ITEM_STATES = {
    ("nic", "GENERAL_WARN"): (
        "Fail",
        "an NPU port is DOWN or ports between NPUs are not connected",
    ),
    ("nic", "IMPORTANT_WARN"): ("Warn", "an NPU port's bandwidth is below its baseline"),
}


def is_own_line(line: str) -> bool:
    """A line the diagnosis's normal output prints (its command, summary keys, class headings,
    items and states): what is left of a file without them is another program's."""
    t = line.strip()
    return bool(
        t == "Summary:"
        or _COMMAND_RE.search(t)
        or _SUMMARY_KEY_RE.match(t)
        or _CLASS_RE.match(t)
        or _ITEM_RE.match(t)
        or _STATE_RE.match(t)
    )


def meaning(item: str, state: str) -> tuple[str | None, str]:
    """The result (Pass, Warn, Fail; None for SKIP and INFO) and the words an item's state
    has in the guide."""
    if (item, state) in ITEM_STATES:
        return ITEM_STATES[(item, state)]
    if state == "SKIP":
        return None, "not supported on this product or scene"
    if state == "INFO":
        return None, "a hint"
    return RESULTS.get(state), ""


@dataclass
class Item:
    line: int
    name: str
    section: str
    """``Hardware`` or ``Software``, as printed."""
    state: str
    """As printed (``PASS``, ``EMERGENCY_WARN`` ...)."""
    details: list[str] = field(default_factory=list)
    """Lines printed under the state (what a warning or failure says), as printed."""
    time: str = ""
    """The ``Time`` of the summary the item's run printed."""
    command: str = ""
    """The ``ascend-dmi --dg ...`` line above the item's run, when the copy kept it."""


@dataclass
class Diagnosis:
    items: list[Item]


def parse(text: str) -> tuple[Diagnosis, list[ParseWarning]]:
    """Every item of the ``ascend-dmi --dg`` outputs in ``text`` (each with its own run's time
    and command), and the items left without a state. A class block ends at a line indented no
    deeper than its heading that is not another heading: what follows (a job's own log) is not
    the tool's."""
    if '"DiagnosisItems"' in text and (found := _parse_json(text)) is not None:
        return found
    result = Diagnosis(items=[])
    warnings: list[ParseWarning] = []
    section = ""
    section_indent = 0
    command = time = ""
    # an item's line, name and indent, its state not yet seen
    pending: tuple[int, str, int] | None = None
    last: Item | None = None
    last_indent = 0
    for no, raw, _ in numbered_lines(text):
        line = raw.strip()
        if not line:
            continue
        indent = len(raw) - len(raw.lstrip())
        if cm := _COMMAND_RE.search(line):
            command, time, section, last = cm.group(0).strip(), "", "", None
            continue
        if km := _SUMMARY_KEY_RE.match(line):
            if km.group("key") == "Time":
                time = km.group("value").strip()
            continue
        if line == "Summary:":
            time, section, last = "", "", None
            continue
        if clm := _CLASS_RE.match(line):
            section, section_indent, last = clm.group("name"), indent, None
            if pending is not None:
                warnings.append(_cut(pending))
                pending = None
            continue
        if not section:
            continue
        if indent <= section_indent:
            # the class block ended: the rest is not this run's output
            if pending is not None:
                warnings.append(_cut(pending))
            section, last, pending = "", None, None
            continue
        if pending is not None and indent > pending[2] and (sm := _STATE_RE.match(line)):
            last = Item(
                line=pending[0],
                name=pending[1],
                section=section,
                state=sm.group("state"),
                time=time,
                command=command,
            )
            last_indent = indent
            result.items.append(last)
            pending = None
            continue
        if im := _ITEM_RE.match(line):
            if pending is not None:
                warnings.append(_cut(pending))
            pending, last = (no, im.group("name"), indent), None
            continue
        if last is not None and indent >= last_indent:
            last.details.append(line)
            continue
        warnings.append(
            ParseWarning(line=no, message=f"ascend-dmi --dg: unreadable line {line[:80]!r}")
        )
    if pending is not None:
        warnings.append(_cut(pending))
    if not result.items:
        raise ParseError("no ascend-dmi --dg item with its state ('network:' then 'PASS')")
    return result, warnings


def _parse_json(text: str) -> tuple[Diagnosis, list[ParseWarning]] | None:
    """Each ``--fmt json`` object in ``text`` (one opens a line with ``{``; what follows it, a
    prompt or another run, is left), each with the command line above it; None when none is."""
    decoder = json.JSONDecoder()
    items: list[Item] = []
    commands = list(_COMMAND_LINE_RE.finditer(text))  # (once: the one above each object)
    starts = [c.start() for c in commands]
    for opening in re.finditer(r"(?m)^[ \t]*\{", text):
        start = opening.end() - 1
        try:
            doc, _ = decoder.raw_decode(text, start)
        except (json.JSONDecodeError, RecursionError):
            continue
        if not isinstance(doc, dict) or not isinstance(doc.get("DiagnosisItems"), list):
            continue
        line = text.count("\n", 0, start) + 1
        summary = doc["Summary"] if isinstance(doc.get("Summary"), dict) else {}
        before = bisect.bisect_left(starts, start) - 1
        command = commands[before].group(0).strip() if before >= 0 else ""
        items += [
            Item(
                line=line,
                name=str(sub.get("item_name") or "?"),
                section=str(group.get("group_name") or ""),
                state=str(sub.get("item_result") or "?"),
                time=str(summary.get("Time") or ""),
                command=command,
            )
            for group in doc["DiagnosisItems"]
            if isinstance(group, dict)
            for sub in group.get("sub_items") or []
            if isinstance(sub, dict)
        ]
    if not items:
        return None
    return Diagnosis(items=items), []


def _cut(pending: tuple[int, str, int]) -> ParseWarning:
    return ParseWarning(
        line=pending[0],
        message=f"ascend-dmi --dg: {pending[1]}: no state below it (the copy ends or is cut there)",
    )
