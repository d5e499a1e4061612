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
node's: the output names no device. A failed item's JSON lists what failed in ``item_info``, one
line a check ("d2d bandwidth diagnosis failed on device 0 with bandwidth 751.0634765625 / 4999"),
before its ``item_name`` (the keys are in order): MindCluster toolbox guide, "JSON example
returned when a diagnosis item fails",
https://www.hiascend.com/document/detail/zh/mindcluster/730/toolbox/toolboxug/toolboxug_0204.html.

The computing-power test (``ascend-dmi -f``, toolboxug_0016) prints a table of ``Device  Execute
Times  Duration(ms)  TFLOPS@FP16  Power(W)``, a row a device: the AI cores' computing power from
the matrix multiplications it timed, and the chip's power at full load. Without the CANN
environment it stops at "Failed to load the libascendcl.so dynamic library. Check the
environment configuration dependency." (the CANN package not installed or its environment
variables not set: FAQ toolboxug_0097,
https://www.hiascend.com/doc_center/source/zh/mindx-dl/600/toolbox/ascenddmi/toolboxug_0097.html).
Any of its commands stops at "Failed to load the libdcmi.so dynamic library. Check the environment
configuration dependency." where it cannot load the driver's DCMI library (the compatibility check
``ascend-dmi -c`` the FAQ's example; its causes the driver installed wrong, its environment
variable wrong, or a driver version that is not a commercial one, libdcmi.so missing or its
permission wrong: FAQ toolboxug_0098,
https://www.hiascend.com/document/detail/en/mindcluster/730/toolbox/toolboxug/toolboxug_0098.html).
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
    checks: list[tuple[int, str]] = field(default_factory=list)
    """A JSON item's ``item_info`` lines (what each failed check says), with their lines."""
    cut: bool = False
    """The copy ends before the item's own name or result: its state is its group's."""


@dataclass
class Diagnosis:
    items: list[Item]


def parse(text: str) -> tuple[Diagnosis, list[ParseWarning]]:
    """Every item of the ``ascend-dmi --dg`` outputs in ``text`` (each with its own run's time
    and command), and the items left without a state. A class block ends at a line indented no
    deeper than its heading that is not another heading: what follows (a job's own log) is not
    the tool's."""
    if '"DiagnosisItems"' in text:
        decoded, found = _parse_json(text)
        if found is not None:
            return found
        if not decoded and (found := _parse_cut_json(text)) is not None:
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


def _parse_json(text: str) -> tuple[bool, tuple[Diagnosis, list[ParseWarning]] | None]:
    """Each ``--fmt json`` object in ``text`` (one opens a line with ``{``; what follows it, a
    prompt or another run, is left), each with the command line above it; None when none is.
    First, whether any such object decoded whole (none: the copy may be cut inside it)."""
    decoder = json.JSONDecoder()
    items: list[Item] = []
    decoded = False
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
        decoded = True
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
                checks=[
                    (_line_of(text, str(said), start, line), str(said))
                    for said in sub.get("item_info") or []
                ],
            )
            for group in doc["DiagnosisItems"]
            if isinstance(group, dict)
            for sub in group.get("sub_items") or []
            if isinstance(sub, dict)
        ]
    if not items:
        return decoded, None
    return decoded, (Diagnosis(items=items), [])


def _line_of(text: str, said: str, start: int, default: int) -> int:
    """The line of ``said`` as printed at or after ``start``; ``default`` where it is not
    found as is (a value with escapes)."""
    at = text.find(said, start)
    return text.count("\n", 0, at) + 1 if at >= 0 else default


_JSON_VALUE_RE = re.compile(
    r'^[ \t]*"(?P<key>group_name|group_results|item_name|item_result)"[ \t]*:[ \t]*"(?P<value>[^"\n]*)"'
)
_JSON_INFO_OPEN_RE = re.compile(r'^[ \t]*"item_info"[ \t]*:[ \t]*\[[ \t]*$')
_JSON_STRING_RE = re.compile(r'^[ \t]*"(?P<value>[^"\n]*)"[ \t]*,?[ \t]*$')


def _parse_cut_json(text: str) -> tuple[Diagnosis, list[ParseWarning]] | None:
    """A ``--fmt json`` result the copy cut (no whole object to decode), read line by line as
    the tool prints it, one key a line: each group's name and result, each item's
    ``item_info`` lines, name and result. An item whose name or result is past the cut takes
    its group's result (``group_results``), said so; None when no group is read."""
    items: list[Item] = []
    section = group_state = ""
    checks: list[tuple[int, str]] = []  # item_info lines, their item's name not read yet
    in_info = False
    current: Item | None = None  # the item whose name was read, its result not yet
    last_no = 0
    groups = 0
    for no, raw, _ in numbered_lines(text):
        line = raw.strip()
        if line:
            last_no = no
        if in_info:
            if line.startswith("]"):
                in_info = False
            elif sm := _JSON_STRING_RE.match(raw):
                checks.append((no, sm.group("value")))
            continue
        if _JSON_INFO_OPEN_RE.match(raw):
            in_info = True
            continue
        if (vm := _JSON_VALUE_RE.match(raw)) is None:
            continue
        key, value = vm.group("key"), vm.group("value")
        if key == "group_name":
            _close_cut_items(items, checks, current, section, group_state)
            checks, current = [], None
            section, group_state, groups = value, "", groups + 1
        elif key == "group_results":
            group_state = value
        elif key == "item_name":
            current = Item(line=no, name=value, section=section, state="", checks=checks)
            items.append(current)
            checks = []
        elif key == "item_result" and current is not None and not current.state:
            current.state = value  # (a result_array's own item_result, nested below, left)
    if not groups:
        return None
    _close_cut_items(items, checks, current, section, group_state)
    warnings = [
        ParseWarning(
            line=last_no,
            message="ascend-dmi --dg --fmt json: the copy ends inside the JSON (cut): "
            "what follows is unknown",
        )
    ]
    return Diagnosis(items=[i for i in items if i.state]), warnings


def _close_cut_items(
    items: list[Item],
    checks: list[tuple[int, str]],
    current: Item | None,
    section: str,
    group_state: str,
) -> None:
    """The last item of a group: given its group's result where the copy cut its own, or made
    of the ``item_info`` lines whose item's name the copy cut."""
    if current is not None and not current.state and group_state:
        current.state, current.cut = group_state, True
    if checks and group_state:
        items.append(
            Item(
                line=checks[0][0],
                name="",
                section=section,
                state=group_state,
                checks=checks,
                cut=True,
            )
        )


def _cut(pending: tuple[int, str, int]) -> ParseWarning:
    return ParseWarning(
        line=pending[0],
        message=f"ascend-dmi --dg: {pending[1]}: no state below it (the copy ends or is cut there)",
    )


# ascend-dmi -f (--flops): the computing-power test's table, its header and a row a device
# (toolboxug_0016): "   Device       Execute Times       Duration(ms)       TFLOPS@FP16
# Power(W)" over "   0            192,000,000         1536               262.144
# 242.899994"; the unit column is TFLOPS or TOPS at the type tested (-t fp16, int8 ...)
_FLOPS_HEADER = (
    r"^[ \t]*Device[ \t]+Execute Times[ \t]+Duration\(ms\)[ \t]+[A-Z]{1,8}@[A-Za-z0-9]{1,8}"
    r"[ \t]+Power\(W\)[ \t]*\r?$"
)
_FLOPS_COMMAND = r"\bascend-dmi[ \t]+(?:-f|--flops)\b"
FLOPS_SIGNATURE = (
    _FLOPS_HEADER
    # the command typed after a prompt or alone on its line, and its own answer below it
    + r"|^(?:[^\n]{0,200}?[#$][ \t]*)?ascend-dmi[ \t]+(?:-f|--flops)\b[^\n]*\n"
    r"(?:[^\n]*\n){0,2}?[ \t]*(?:This test will affect|Failed to load the)"
    # any other command of it that could not load a library it needs (toolboxug_0098: -c)
    r"|^(?:[^\n]{0,200}?[#$][ \t]*)?ascend-dmi[ \t]+-{1,2}[A-Za-z][^\n]*\n"
    r"(?:[^\n]*\n){0,2}?[ \t]*Failed to load the \S+ dynamic library\."
)
_FLOPS_HEADER_RE = re.compile(_FLOPS_HEADER)
_FLOPS_COMMAND_RE = re.compile(_FLOPS_COMMAND)
_ANY_COMMAND_RE = re.compile(r"\bascend-dmi[ \t]+(?P<option>-{1,2}[A-Za-z][\w-]{0,40})")
FLOPS_OPTIONS = frozenset({"-f", "--flops"})
FLOPS_PEER_SHARE = 0.8
"""The share of its run's median figure under which a device's computing power is said to lag
its peers: the advisor's own margin (the toolbox publishes no per-model reference value in its
output), well past the run-to-run spread of identical chips doing the same matrix work, well
short of the half a degraded device shows."""
FLOPS_PEERS_MIN = 3
"""How many devices a run must measure before one is weighed against the others' median (of
two, which one lags is not known)."""


def lagging_rows(rows: list[FlopsRow]) -> tuple[float, list[FlopsRow]]:
    """The median figure of one ``ascend-dmi -f`` run's rows (one unit) and the rows under
    FLOPS_PEER_SHARE of it; no rows where the run measured fewer than FLOPS_PEERS_MIN devices."""
    if len(rows) < FLOPS_PEERS_MIN or len({r.unit for r in rows}) != 1:
        return 0.0, []
    figures = sorted(r.flops for r in rows)
    half = len(figures) // 2
    median = figures[half] if len(figures) % 2 else (figures[half - 1] + figures[half]) / 2
    return median, [r for r in rows if r.flops < FLOPS_PEER_SHARE * median]


_FLOPS_ROW_RE = re.compile(
    r"^[ \t]*(?P<device>\d+)[ \t]+(?P<times>\d[\d,]*)[ \t]+(?P<ms>\d+(?:\.\d+)?)[ \t]+"
    r"(?P<flops>\d+(?:\.\d+)?)[ \t]+(?P<watts>\d+(?:\.\d+)?)[ \t]*$"
)
_LOAD_FAILED_RE = re.compile(r"Failed to load the (?P<lib>\S+) dynamic library\.")
_SET_ENV_RE = re.compile(r"\bsource[ \t]+(?P<script>\S*set_env\.sh)\b")


@dataclass
class FlopsRow:
    line: int
    device: int
    execute_times: str
    """As printed (``192,000,000``)."""
    duration_ms: float
    flops: float
    unit: str
    """The header's name of the figure (``TFLOPS@FP16``)."""
    power_w: float


@dataclass
class FlopsRun:
    line: int
    """The command's line, or the run's first line of its own where the copy has no command."""
    command: str = ""
    option: str = "-f"
    """The command's option (``-f``; ``-c`` for a compatibility check that could not load its
    library): a table without a command is the computing-power test's."""
    rows: list[FlopsRow] = field(default_factory=list)
    load_failed: tuple[int, str, str] | None = None
    """The library it could not load: (line, library, the line as printed)."""
    set_env: tuple[int, str] | None = None
    """A ``source .../set_env.sh`` typed after the run, before the next: (line, script)."""


def parse_flops(text: str) -> list[FlopsRun]:
    """Each ``ascend-dmi -f`` run in ``text`` (a run a command line, or a table without one):
    its rows, or the library it could not load; and each other command of the tool that could
    not load one. Raises ParseError when no run says either."""
    runs: list[FlopsRun] = []
    unit = ""
    for no, line, _ in numbered_lines(text):
        if _FLOPS_COMMAND_RE.search(line):
            runs.append(FlopsRun(line=no, command=line.strip()))
            unit = ""
            continue
        if "ascend-dmi" in line and (other := _ANY_COMMAND_RE.search(line)):
            # (another command of the tool: only a library it could not load is read of it)
            runs.append(FlopsRun(line=no, command=line.strip(), option=other.group("option")))
            unit = ""
            continue
        if (env := _SET_ENV_RE.search(line)) and runs:
            runs[-1].set_env = (no, env.group("script"))
            continue
        if (failed := _LOAD_FAILED_RE.search(line)) is not None:
            if not runs or runs[-1].rows or runs[-1].load_failed:
                runs.append(FlopsRun(line=no))
            runs[-1].load_failed = (no, failed.group("lib"), line.strip())
            continue
        if _FLOPS_HEADER_RE.match(line):
            unit = line.split()[-2]
            if (
                not runs
                or runs[-1].rows
                or runs[-1].load_failed
                or runs[-1].option not in FLOPS_OPTIONS
            ):
                runs.append(FlopsRun(line=no))
            continue
        if unit and (row := _FLOPS_ROW_RE.match(line)):
            runs[-1].rows.append(
                FlopsRow(
                    line=no,
                    device=int(row.group("device")),
                    execute_times=row.group("times"),
                    duration_ms=float(row.group("ms")),
                    flops=float(row.group("flops")),
                    unit=unit,
                    power_w=float(row.group("watts")),
                )
            )
    runs = [r for r in runs if r.rows or r.load_failed]
    if not runs:
        raise ParseError("no ascend-dmi -f row under its header, nor the library it could not load")
    return runs
