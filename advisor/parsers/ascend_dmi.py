"""Ascend DMI's fault diagnosis (``ascend-dmi --dg``): each diagnosis item's state.

The normal (not json) output is a ``Summary:`` block (``Arch``, ``Mode``, ``Time``), then one
block per class (``Hardware:``, ``Software:``) holding each item as ``name:`` with its state on
the line below, indented deeper (MindCluster toolbox guide, toolboxug_0160/0162/0165: ``ascend-dmi
-dg -i network``, ``-i driver``, ``--dg --scene healthCheck,performanceCheck,stressTest``).
The documented states: ``PASS`` healthy, ``SKIP`` the product or scene does not support the item,
``INFO`` a hint, ``WARN`` a warning, ``FAIL`` a failure (network, toolboxug_0160); ``HEALTH``
healthy, ``GENERAL_WARN``/``IMPORTANT_WARN``/``EMERGENCY_WARN`` warnings of rising weight, ``FAIL``
installation abnormal or health not readable (driver, toolboxug_0162). Without ``-d`` the result is
the whole node's: the output names no device.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.parsers import ParseError, ParseWarning, numbered_lines

# the summary's first two keys, or the command typed at a line's start or after a shell prompt
# (a copy may keep only the items; a log's prose naming the command is not its output)
SIGNATURE = (
    r"^[ \t]*Summary:[ \t]*\n[ \t]+Arch:[ \t]*\S+[ \t]*\n[ \t]+Mode:"
    r"|^(?:[^\n]*?[#$][ \t]*)?ascend-dmi\s+(?:-dg|--dg|--diagnosis)\b"
)
_COMMAND_RE = re.compile(r"\bascend-dmi\s+(?:-dg|--dg|--diagnosis)\b.*$")
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


@dataclass
class Diagnosis:
    items: list[Item]
    command: str = ""
    time: str = ""
    arch: str = ""


def parse(text: str) -> tuple[Diagnosis, list[ParseWarning]]:
    """Every item of the ``ascend-dmi --dg`` output in ``text``, and the items left without a state."""
    result = Diagnosis(items=[])
    warnings: list[ParseWarning] = []
    section = ""
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
            result.command = cm.group(0).strip()
            continue
        if km := _SUMMARY_KEY_RE.match(line):
            if km.group("key") == "Time":
                result.time = km.group("value").strip()
            elif km.group("key") == "Arch":
                result.arch = km.group("value").strip()
            continue
        if line == "Summary:":
            continue
        if clm := _CLASS_RE.match(line):
            section, last = clm.group("name"), None
            if pending is not None:
                warnings.append(_cut(pending))
                pending = None
            continue
        if pending is not None and indent > pending[2] and (sm := _STATE_RE.match(line)):
            last = Item(line=pending[0], name=pending[1], section=section, state=sm.group("state"))
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
        if section:
            warnings.append(
                ParseWarning(line=no, message=f"ascend-dmi --dg: unreadable line {line[:80]!r}")
            )
    if pending is not None:
        warnings.append(_cut(pending))
    if not result.items:
        raise ParseError("no ascend-dmi --dg item with its state ('network:' then 'PASS')")
    return result, warnings


def _cut(pending: tuple[int, str, int]) -> ParseWarning:
    return ParseWarning(
        line=pending[0],
        message=f"ascend-dmi --dg: {pending[1]}: no state below it (the copy ends or is cut there)",
    )
