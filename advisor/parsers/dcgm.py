"""``dcgmi diag -r LEVEL``: NVIDIA DCGM's diagnostic, one table of checks and their results.

DCGM prints a ``Diagnostic | Result`` table: a ``Metadata`` section (``DCGM Version``, ``Driver
Version Detected``, ``GPU Device IDs Detected``), then its checks grouped under section rows
(``-----  Deployment  ----``, ``Integration``, ``Hardware``, ``Stress``), each check's result as
``Pass``, ``Fail``, ``Warn`` or ``Skip``, followed for newer releases by the GPUs it applies to
(``Pass - All``, ``Fail - GPU: 1``, ``Skip - All``). A check's message continues on rows whose
first cell is empty (``| | Warning: GPU 0 ...``). A check DCGM skipped was not run: a level-3 run
whose every check after ``Deployment`` was skipped says nothing of the hardware. The table ends
with a closing border (``DIAG_FOOTER``): a copy that ends at a section row, nothing under it, was
cut there.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from advisor.parsers import ParseError, ParseWarning, numbered_lines

SIGNATURE = (
    # (a page may indent the table under its command: "  $ dcgmi diag ..." then its header;
    # asys's own table names its result column "Diagnostic Result", no cell of its own)
    r"^[ \t]*\|\s*Diagnostic\s*\|\s*Result\s*\|"
    r"|^[+|] ?-+\s+(?:Deployment|Integration|Hardware|Stress)\s+-+\+-+ ?[+|]\s*$"
    r'|^\s*"DCGM GPU Diagnostic"\s*:'
    r"|MIG configuration is incompatible with the diagnostic"
    r"|Cannot run diagnostic: CUDA does not support enumerating GPUs with MIG mode"
    r"|MIG is enabled, but no compute instances are configured"
    r"|^[ \t]*Error: Unable to complete diagnostic\b[^\n]*\. Return: \(-?\d+\)"
)
"""The table's header row, or one of its section rows (a copy that kept the middle only), or
``-j``'s JSON (its top key), or the diagnostic's refusal to start on a MIG configuration, or
dcgmi's own error that the diagnostic did not complete (RUN_ERROR_RE)."""
# dcgmi's answer when the diagnostic returned an error code instead of results (dcgmi/Diag.cpp,
# RunDiagnostic: "Error: Unable to complete diagnostic for group " << groupId << ". Return: ("
# << result << ") " << errorString(result) in DCGM 2.2.6, the public repository's first; 4.6
# writes "for entities 0,1. " or "for fake GPUs ..." where no group was given, and a colon after
# the number), the dcgmReturn_t's number and its text (dcgmlib/src/dcgm_errors.c errorString:
# -35, DCGM_ST_GROUP_IS_EMPTY, "The specified group is empty, and this operation is incompatible
# with an empty group"); the system errors it adds follow on lines of their own ("Error: Cannot
# load plugins. ..."). No table follows: no GPU was judged.
RUN_ERROR_RE = re.compile(
    r"^\s*Error: Unable to complete diagnostic(?: for (?:group (?P<group>\d+)"
    r"|entities (?P<entities>[^\s.]+(?:\.\d+)*)|fake GPUs (?P<fake>\S+?)))?\.\s+"
    r"Return: \((?P<code>-?\d+)\)\s*:?\s*(?P<what>[^\n]*)$"
)
# (the words to the line's end, stripped after: a lazy match before "\s*$" retried the line's
# rest from each of its spaces)
GPU_STATE_RETURNS = frozenset({-18, -19, -51})
"""dcgmReturn_t codes of the GPU's own state (dcgm_structs.h: DCGM_ST_GPU_IS_LOST -18 "GPU is
lost", DCGM_ST_RESET_REQUIRED -19 "GPU requires reset", DCGM_ST_NVVS_ISOLATE_ERROR -51 "The
diagnostic returned an error that indicates the need to drain the GPU"): a hardware fault, not a
precondition; the others (-35 an empty group, a host engine or plugins that would not load) are
the diagnostic's setup."""
_SYSTEM_ERROR_RE = re.compile(r"^\s*Error: (?!Unable to complete diagnostic)(?P<what>\S[^\n]*)$")
_DIAG_COMMAND_RE = re.compile(r"\bdcgmi\s+diag\b")
REFUSAL_RE = re.compile(
    # NVVS's BuildCommonGpusList (DCGM's NvidiaValidationSuite.cpp) refuses to run before any
    # test: "GPU 2's MIG configuration is incompatible with the diagnostic because it prevents
    # access to the entire GPU." (a GPU in MIG mode among those visible), and the MIG messages
    # DCGM's own test harness lists beside it (CUDA cannot enumerate MIG GPUs; MIG enabled with
    # no compute instance)
    r"^.{0,80}?(?:(?:GPU (?P<gpu>\d+)'s )?MIG configuration is incompatible with the diagnostic"
    r"|Cannot run diagnostic: CUDA does not support enumerating GPUs with MIG mode"
    r"|MIG is enabled, but no compute instances are configured)[^\n]*",
    re.M,
)
_JSON_HEAD_RE = re.compile(r'^\s*"DCGM GPU Diagnostic"\s*:')
# -j's tree, "DCGM GPU Diagnostic": {"test_categories": [{"category": "Hardware", "tests":
# [{"name": "GPU Memory", "results": [{"gpu_id": "0", "status": "Skip", "warnings": [...]}]}]}]}:
# read key by key, line by line, so a pasted copy with parts elided ({"..."}) or cut still reads
_JSON_FIELD_RE = re.compile(
    r'"(?P<key>category|name|gpu_id|status|warning|info|DCGM Version|Driver Version Detected'
    r'|GPU Device IDs)"\s*:\s*"(?P<value>[^"]*)"'
)
_HEADER_RE = re.compile(r"^\|\s*Diagnostic\s*\|\s*Result\s*\|")

# (a copy from a PDF's text writes the section row's border with a blank inside it: "| -----
# Deployment  ----+---- |", The Smol Training Playbook's dcgmi diag -r 2)
_SECTION_RE = re.compile(r"^[|+] ?-+\s+(?P<name>[A-Za-z][\w ]*?)\s+-+\+")
_ROW_RE = re.compile(r"^\|(?P<name>[^|]*)\|(?P<value>[^|]*)\|\s*$")
_CUT_ROW_RE = re.compile(r"^\|(?P<name>[^|]*)\|\s*(?P<value>[^|]*?)\s*$")
"""A row's two cells, their blanks kept (taken off where they are read: a lazy pattern would try every
split of a long run of blanks)."""
_MESSAGE_ROW_RE = re.compile(r"^(?:Info|Warning|Error)(?::\s*GPU\s*\d+)?$")
"""Rows DCGM prints under a check: what it found (DCGM 4 names the GPU: ``Warning: GPU1``), its
message cut over the rows below."""
_RESULT_RE = re.compile(r"^(?P<result>Pass|Fail|Warn|Skip|Not Run)(?:\s*-\s*(?P<gpus>.+))?$", re.I)
# DCGM 4 prints a check's result, then one row a GPU: "| | GPU1: Fail |"
_GPU_RESULT_RE = re.compile(
    r"^GPU\s*(?P<gpu>\d+)\s*:\s*(?P<result>Pass|Fail|Warn|Skip|Not Run)\b", re.I
)
# DCGM prints the Deployment rows, then a section row and the tests' rows for Integration,
# Hardware and Stress (3.x: HelperDisplayIntegration, HelperDisplayHardware,
# HelperDisplayPerformance; DCGM 4 puts Hardware first), then DIAG_FOOTER, the table's closing
# border "+----...+----...+" (dcgmi/Diag.cpp, v3.0.4 RunDiagnostic); each test run prints a row
# (HelperDisplayGpuResults: "Pass - All", "Skip - All" ...). Levels 2 to 4 run tests of those
# sections; level 1 ("quick", "short") the Deployment checks alone, its sections left empty (the
# dcgmi diag reference: -r 1 quick deployment checks, 2 medium, 3 long, 4 extended; "quick" and
# "short", "medium", "long", "xlong" the same levels)
_TEST_SECTIONS = ("Integration", "Hardware", "Stress")
_DEPLOYMENT_ONLY_LEVELS = frozenset({"1", "quick", "short"})
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
    """``Pass``, ``Fail``, ``Warn`` or ``Skip`` (also DCGM 4's ``Not Run``)."""
    gpus: str | None = None
    """Which GPUs the result is of, as printed (``All``, ``GPU: 1``)."""
    line: int = 0
    details: list[str] = field(default_factory=list)
    """The message rows under it (what a failed or warned check found)."""
    gpu_results: dict[str, str] = field(default_factory=dict)
    """DCGM 4's own row a GPU under the check: GPU index → its result."""


@dataclass
class DiagCut:
    """Where a copy of the table was cut: it ends at a section row with no row under it."""

    line: int
    """The section row's line."""
    after: str
    """The section it ends at (``Integration``)."""
    missing: list[str] = field(default_factory=list)
    """The sections whose results are not in the copy: that one and those of Deployment,
    Integration, Hardware and Stress not printed above it (for a level-1 run, which tests
    nothing after Deployment, Deployment alone where it is not there)."""
    inside_row: bool = False
    """The copy ends inside one of the section's rows (its right border gone), not at the
    section's heading."""


@dataclass
class Diag:
    line: int
    dcgm_version: str | None = None
    driver: str | None = None
    gpu_ids: str | None = None
    checks: list[DiagCheck] = field(default_factory=list)
    repeats: int = 1
    """How many times the same table was printed (``srun`` on several tasks, a copy twice)."""
    level: str | None = None
    """The ``-r``/``--run`` of the ``dcgmi diag`` command in the file, as typed (``3``, ``long``)."""
    cut: DiagCut | None = None
    """Where the copy ends inside the table, None where it does not."""

    @property
    def failed(self) -> list[DiagCheck]:
        return [c for c in self.checks if c.result == "Fail"]


def _result(word: str) -> str:
    """``Pass``, ``Fail``, ``Warn`` or ``Skip`` (DCGM 4's ``Not Run``: a check that did not run)."""
    return "Skip" if word.lower() == "not run" else word.capitalize()


def _table(rows: list[tuple[int, str]], start: int) -> Diag:
    diag = Diag(line=start)
    section = ""
    current: DiagCheck | None = None
    name = ""
    sections: list[str] = []
    open_section: int | None = None  # the last section row's line while no table line follows it
    # the text width of the value cell: the widest cell's, less its blank before and its two after
    cells = [r.group("value") for _, line in rows if (r := _ROW_RE.match(line))]
    width = max((len(c) for c in cells), default=3) - 3
    for no, line in rows:
        if m := _SECTION_RE.match(line):
            section, current, name = m.group("name").strip(), None, ""
            sections.append(section)
            open_section = no
            continue
        if line.startswith(("|", "+")):
            open_section = None  # a row or the closing border under it
        if (row := _ROW_RE.match(line)) is None:
            continue
        cell, value = row.group("name").strip(), row.group("value").strip()
        if cell == "Diagnostic" and value == "Result":
            continue
        if section == "Metadata" or cell in _METADATA:
            if cell in _METADATA:
                setattr(diag, _METADATA[cell], value)
            continue
        if not cell and current is not None and (g := _GPU_RESULT_RE.match(value)):
            # a GPU's own result under the check's: the GPUs that share a failing or warning
            # result are the check's
            gpu, result = g.group("gpu"), _result(g.group("result"))
            current.gpu_results[gpu] = result
            if result == current.result and current.result in ("Fail", "Warn"):
                current.gpus = f"{current.gpus}, {gpu}" if current.gpus else f"GPU: {gpu}"
            continue
        if _MESSAGE_ROW_RE.match(cell) or (not cell and not _RESULT_RE.match(value)):
            # a message under the check (its first row names its kind, DCGM 4's also the GPU:
            # "Warning: GPU1"), or the message's next row. DCGM cuts a message into chunks of
            # the cell's width (45 characters after one blank), inside words too: the chunks are
            # joined as cut, blanks and all
            raw = row.group("value")
            chunk = raw[1 : len(raw) - 2] if len(raw) >= width + 3 else raw[1:]
            if current is not None and value:
                if cell:
                    current.details.append(f"{cell}: {chunk}")
                elif current.details:
                    current.details[-1] += chunk
                else:
                    current.details.append(chunk)
            continue
        name = cell or name  # "| | Fail - GPU: 0 |": the same check's result for other GPUs
        if (r := _RESULT_RE.match(value)) and name:
            current = DiagCheck(
                section=section,
                name=name,
                result=_result(r.group("result")),
                gpus=r.group("gpus"),
                line=no,
            )
            diag.checks.append(current)
    if open_section is not None:
        # the copy ends at a section row: neither its tests' rows nor the closing border follow
        missing = [section] + [s for s in ("Deployment", *_TEST_SECTIONS) if s not in sections]
        diag.cut = DiagCut(
            line=open_section,
            after=section,
            missing=[s for s in dict.fromkeys(missing) if s != "Metadata"],
        )
    elif (
        # (the table's last line: a cut copy may go on with the paster's "..." or a prompt)
        (last := next((r for r in reversed(rows) if r[1].startswith(("|", "+"))), None))
        and last[1].startswith("|")
        and not last[1].rstrip().endswith("|")
        and section
        and section != "Metadata"
    ):
        # the copy ends inside a row (its right border gone): the row is read as far as it
        # goes, the sections after this one are not in the copy
        if (cut_row := _CUT_ROW_RE.match(last[1])) and _RESULT_RE.match(cut_row.group("value")):
            diag.checks.append(
                DiagCheck(
                    section=section,
                    name=cut_row.group("name").strip(),
                    result=_result(_RESULT_RE.match(cut_row.group("value")).group("result")),  # type: ignore[union-attr]
                    line=last[0],
                )
            )
        elif current is not None:
            # a message's last row without its right border (a copy cut there, or pasted with
            # its trailing border lost): its words are the message's end, not dropped
            cell, _, raw = last[1][1:].partition("|")
            chunk = raw[1 : width + 1]
            if chunk.strip() and (not cell.strip() or _MESSAGE_ROW_RE.match(cell.strip())):
                if cell.strip():
                    current.details.append(f"{cell.strip()}: {chunk}")
                elif current.details:
                    current.details[-1] += chunk
                else:
                    current.details.append(chunk)
        later = [s for s in ("Deployment", *_TEST_SECTIONS) if s not in sections]
        diag.cut = DiagCut(line=last[0], after=section, missing=later, inside_row=True)
    for check in diag.checks:
        check.details = [" ".join(d.split()) for d in check.details]
    return diag


def _run_level(lines: list[tuple[int, str, int | None]], before: int | None = None) -> str | None:
    """The ``-r``/``--run`` of the last ``dcgmi diag`` command above line ``before`` (a file of
    several runs: each table's own), else of the first one in the file, as typed."""
    levels: list[tuple[int, str | None]] = []
    for no, line, _ in lines:
        if "dcgmi" not in line or "diag" not in line:
            continue
        words = line.split()
        for at, word in enumerate(words):
            if word.startswith("--run="):
                levels.append((no, word[len("--run=") :] or None))
                break
            if word in ("-r", "--run") and at + 1 < len(words):
                levels.append((no, words[at + 1]))
                break
    above = [level for no, level in levels if before is not None and no < before]
    if above:
        return above[-1]
    return levels[0][1] if levels else None


def _json_lines(lines: list[tuple[int, str, int | None]], start: int) -> Diag:
    """``dcgmi diag -j``'s checks, read key by key from ``start``: a check per test, its result
    the worst of its GPUs' (Fail, Warn, Pass, Skip), each GPU's own in ``gpu_results``."""
    diag = Diag(line=lines[start][0])
    section = ""
    current: DiagCheck | None = None
    gpu: str | None = None
    order = {"Fail": 0, "Warn": 1, "Pass": 2, "Skip": 3}
    fields = (
        (no, m)
        for no, line, _ in lines[start:]
        if '"' in line
        for m in _JSON_FIELD_RE.finditer(line)
    )
    for no, m in fields:
        key, value = m.group("key"), m.group("value")
        if key in _METADATA:
            setattr(
                diag,
                _METADATA[key if key != "GPU Device IDs" else "GPU Device IDs Detected"],
                value,
            )
        elif key == "category":
            section, current = value, None
        elif key == "name":
            current = DiagCheck(section=section, name=value, result="Skip", line=no)
            diag.checks.append(current)
            gpu = None
        elif key == "gpu_id":
            gpu = value
        elif key == "status" and current is not None:
            result = _result(value) if _RESULT_RE.match(value) else value
            if gpu is not None:
                current.gpu_results[gpu] = result
            first = len(current.gpu_results) <= 1
            if first or order.get(result, 9) < order.get(current.result, 9):
                current.result = result
            bad = sorted(g for g, r in current.gpu_results.items() if r == current.result)
            if current.result in ("Fail", "Warn") and bad:
                current.gpus = "GPU: " + ", ".join(bad)
            elif current.gpu_results and all(
                r == current.result for r in current.gpu_results.values()
            ):
                current.gpus = "All" if len(current.gpu_results) > 1 else f"GPU: {gpu}"
        elif key in ("warning", "info") and current is not None:
            current.details.append(f"{key.capitalize()}{f': GPU {gpu}' if gpu else ''}: {value}")
    return diag


def parse(text: str) -> tuple[list[Diag], list[ParseWarning]]:
    """Each diagnostic table of ``text``; one printed again unchanged counts as a repeat."""
    lines = numbered_lines(text)
    starts = [i for i, (_, line, _) in enumerate(lines) if _HEADER_RE.match(line.strip())]
    diags: list[Diag] = []
    warnings: list[ParseWarning] = []
    json_at = next((i for i, (_, line, _) in enumerate(lines) if _JSON_HEAD_RE.match(line)), None)
    if not starts and json_at is not None:
        diag = _json_lines(lines, json_at)
        if not diag.checks:
            raise ParseError("dcgmi diag -j: no test with a result", line=diag.line)
        if '{"..."}' in text or "..." in text:
            warnings.append(
                ParseWarning(
                    line=diag.line,
                    message="dcgmi diag -j: the copy elides parts of its JSON ('...'): the tests "
                    "shown are read, the others are unknown",
                )
            )
        return [diag], warnings
    if not starts and (unrun := _not_run(lines, refusals=True)):
        # the diagnostic refused to start, or returned an error instead of its table: no test
        # ran, one Deployment precondition failed (each dcgmi diag command's run its own)
        return unrun, []
    if not starts:
        if not any(re.match(SIGNATURE, line.strip()) for _, line, _ in lines):
            raise ParseError("no dcgmi diag table ('| Diagnostic | Result |')")
        # the middle of a table: its checks, without its header and metadata
        starts = [0]
        warnings.append(
            ParseWarning(
                line=1,
                message="dcgmi diag: the table's header and metadata are not in the file (its "
                "middle only): DCGM's version, the driver and the GPUs run on are unknown",
            )
        )
    metadata_only = False
    for k, i in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(lines)
        body = [(no, line.strip()) for no, line, _ in lines[i:end]]
        diag = _table(body, lines[i][0])
        level = _run_level(lines, before=lines[i][0])
        diag.level = level
        if diag.cut is not None:
            if level in _DEPLOYMENT_ONLY_LEVELS:  # a level-1 run tests nothing after Deployment
                diag.cut.missing = [s for s in diag.cut.missing if s not in _TEST_SECTIONS]
            warnings.append(_cut_warning(diag.cut, level))
        if not diag.checks:
            if diag.dcgm_version or diag.driver:
                # the copy ends inside the metadata: what it says of DCGM and the driver is read
                warnings.append(
                    ParseWarning(
                        line=diag.line,
                        message="dcgmi diag: the copy ends after the table's metadata"
                        + (f" (DCGM {diag.dcgm_version}" if diag.dcgm_version else " (")
                        + (f", driver {diag.driver}" if diag.driver else "")
                        + "), before any check's result: the GPUs' results are unknown",
                    )
                )
                metadata_only = True
                continue
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
    if not diags and not metadata_only:
        raise ParseError("dcgmi diag: no check's result in its table", line=lines[starts[0]][0])
    # (another run's error beside the tables: "Error: Unable to complete diagnostic ...")
    diags += _not_run(lines, refusals=False)
    return diags, warnings


def _not_run(lines: list[tuple[int, str, int | None]], *, refusals: bool) -> list[Diag]:
    """The runs that printed no table: dcgmi's error that the diagnostic did not complete
    (RUN_ERROR_RE) and, with ``refusals``, the diagnostic's refusal to start on a MIG
    configuration (REFUSAL_RE). One run a ``dcgmi diag`` command (the nearest above; a refusal
    printed again under it is the same run's), each read as a Deployment precondition that failed
    (no GPU was tested, which says nothing of the hardware), or, for a return of the GPU's own
    state (``GPU_STATE_RETURNS``), as a Hardware check that failed."""
    runs: dict[int, Diag] = {}  # by the line of its command (0: none above it)
    command = 0
    last: DiagCheck | None = None  # the error whose system errors may follow
    errors: list[DiagCheck] = []
    for no, line, _ in lines:
        if _DIAG_COMMAND_RE.search(line) and not line.lstrip().startswith("Error:"):
            command, last = no, None
            continue
        if err := RUN_ERROR_RE.match(line):
            target = (
                f"group {err.group('group')}"
                if err.group("group")
                else f"entities {err.group('entities')}"
                if err.group("entities")
                else f"fake GPUs {err.group('fake')}"
                if err.group("fake")
                else None
            )
            hardware = int(err.group("code")) in GPU_STATE_RETURNS
            check = DiagCheck(
                # (a lost GPU, one that needs a reset or one the diagnostic says to drain is
                # the GPU's own state, not a setup the diagnostic could not run under)
                section="Hardware" if hardware else "Deployment",
                name="Diagnostic run" + (f" ({target})" if target else ""),
                result="Fail",
                line=no,
                details=[
                    f"dcgmi: unable to complete the diagnostic, return {err.group('code')}: "
                    f"{err.group('what').strip().rstrip('.').rstrip()}"
                ],
            )
            last = check
            errors.append(check)
        elif last is not None and (system := _SYSTEM_ERROR_RE.match(line)):
            last.details.append(f"Error: {system.group('what').strip()}")
            continue
        elif refusals and (refused := REFUSAL_RE.match(line)):
            last = None
            if command in runs and any(c.name == "MIG configuration" for c in runs[command].checks):
                continue  # (the refusal printed again by the same run)
            check = DiagCheck(
                section="Deployment",
                name="MIG configuration",
                result="Fail",
                gpus=f"GPU: {refused.group('gpu')}" if refused.group("gpu") else None,
                line=no,
                details=[
                    refused.group(0).strip() + " (the diagnostic did not start: no GPU was tested)"
                ],
            )
        else:
            if line.strip():
                last = None
            continue
        run = runs.get(command)
        if run is None:
            run = runs[command] = Diag(line=no, level=_run_level(lines, before=no))
        run.checks.append(check)
    for check in errors:
        check.details[-1] += (
            " (the GPU's own state: take it out of service until it is reset and passes)"
            if check.section == "Hardware"
            else " (the diagnostic did not run to its results: no GPU was tested)"
        )
    return list(runs.values())


def _cut_warning(cut: DiagCut, level: str | None) -> ParseWarning:
    """What a table cut at a section row leaves out."""
    said = (
        f"dcgmi diag: the copy ends inside a row of its {cut.after} section, with no closing "
        "border (the copy was cut)"
        if cut.inside_row
        else f"dcgmi diag: the table ends after its {cut.after} header, with no row under it and "
        "no closing border (the copy was cut)"
    )
    if not cut.missing:  # (a level-1 run's: its Deployment rows are all there)
        return ParseWarning(
            line=cut.line,
            message=f"{said}; a -r {level} run tests nothing after Deployment: no result is "
            "missing",
            skipped=False,
        )
    run = (
        f"the level-{level} run's"
        if level and level.isdigit()
        else f"the -r {level} run's"
        if level
        else "the run's"
    )
    return ParseWarning(
        line=cut.line,
        message=f"{said}, so {run} {'/'.join(cut.missing)} results are not in the copy",
    )


# ``dcgmi nvlink --link-status`` (``-s``): DCGM's Nvlink::DisplayNvLinkLinkStatus prints a boxed
# "NvLink Link Status" title, "GPUs:", per GPU "    gpuId N:" and on the next line one character
# a link slot (DCGM_NVLINK_MAX_LINKS_PER_GPU of them), then "NvSwitches:" and per switch
# "    physicalId N:" the same way, then "Key: Up=U, Down=D, Disabled=X, Not Supported=_"
# (nvLinkStateToCharacter: DcgmNvLinkLinkStateDown 'D', Up 'U', Disabled 'X', NotSupported '_').
LINK_STATUS_SIGNATURE = (
    r"^\|\s*NvLink Link Status\s*\|"
    r"|^\s*(?:gpuId|physicalId) \d+:\s*\n\s*[UDX_](?: [UDX_])+\s*$"
    r"|^Key: Up=U, Down=D, Disabled=X, Not Supported=_"
)
"""Its boxed title, an entity's line over its states, or its key line."""
# ``dcgmi nvlink -g N -e`` (dcgmi/Nvlink.cpp): a box titled "NVLINK Error Counts" and "GPU N",
# then "Link L" rows, each with its "-> CRC FLIT Error", "-> CRC Data Error", "-> Replay Error"
# and "-> Recovery Error" counters
ERROR_COUNTS_SIGNATURE = r"^\|\s*NVLINK Error Counts\s*\|"
_COUNTS_GPU_RE = re.compile(r"^\|\s*GPU (\d+)\s*\|\s*$")
_COUNTS_LINK_RE = re.compile(r"^\|\s*Link (\d+)\s*\|")
_COUNTS_VALUE_RE = re.compile(r"^\|\s*->\s*([^|]+?)\s*\|\s*(\d+)\s*\|\s*$")


@dataclass
class LinkErrorCounts:
    gpu: int
    line: int
    errors: dict[int, dict[str, int]] = field(default_factory=dict)


def parse_error_counts(text: str) -> list[LinkErrorCounts]:
    """Each GPU's box of ``dcgmi nvlink -e``: its links' error counters."""
    found: list[LinkErrorCounts] = []
    link: int | None = None
    for no, line, _ in numbered_lines(text):
        stripped = line.strip()
        if m := _COUNTS_GPU_RE.match(stripped):
            found.append(LinkErrorCounts(gpu=int(m.group(1)), line=no))
            link = None
        elif found and (m := _COUNTS_LINK_RE.match(stripped)):
            link = int(m.group(1))
            found[-1].errors.setdefault(link, {})
        elif found and link is not None and (m := _COUNTS_VALUE_RE.match(stripped)):
            found[-1].errors[link][m.group(1)] = int(m.group(2))
    found = [f for f in found if f.errors]
    if not found:
        raise ParseError("dcgmi nvlink -e: no GPU box with its links' error counters")
    return found


_ENTITY_RE = re.compile(r"^\s*(gpuId|physicalId) (\d+):\s*$")
_STATES_RE = re.compile(r"^\s*([UDX_](?: [UDX_])*)\s*$")
LINK_STATES = {"U": "up", "D": "down", "X": "disabled", "_": "not supported"}


@dataclass(kw_only=True)
class LinkStatus:
    """One GPU's or NvSwitch's NVLink slots."""

    entity: str
    """``gpu`` or ``nvswitch``."""
    id: int
    line: int
    states: list[str] = field(default_factory=list)
    """One character a link slot as printed: U, D, X or _."""

    def links(self, state: str) -> list[int]:
        return [n for n, s in enumerate(self.states) if s == state]


def parse_link_status(text: str) -> tuple[list[LinkStatus], list[ParseWarning]]:
    """Every GPU and NvSwitch of ``dcgmi nvlink --link-status``, in the order printed."""
    out: list[LinkStatus] = []
    notes: list[ParseWarning] = []
    pending: LinkStatus | None = None
    for no, line, _ in numbered_lines(text):
        if m := _ENTITY_RE.match(line):
            if pending is not None:
                notes.append(
                    ParseWarning(line=pending.line, message=f"{_name(pending)}: no link states")
                )
            entity = "gpu" if m.group(1) == "gpuId" else "nvswitch"
            pending = LinkStatus(entity=entity, id=int(m.group(2)), line=no)
        elif pending is not None and (m := _STATES_RE.match(line)):
            pending.states = m.group(1).split()
            out.append(pending)
            pending = None
        elif pending is not None and line.strip():
            notes.append(
                ParseWarning(line=no, message=f"{_name(pending)}: not a line of link states")
            )
            pending = None
    if pending is not None:
        notes.append(
            ParseWarning(
                line=pending.line,
                message=f"{_name(pending)}: the copy ends before its link states",
            )
        )
    return out, notes


def _name(status: LinkStatus) -> str:
    return f"GPU {status.id}" if status.entity == "gpu" else f"NvSwitch {status.id}"


# ``dcgmi health -c``: DCGM's Health::GenerateOutputFromResponse prints a "Health Monitor Report"
# box, its "Overall Health" row, then for each entity with an incident its group's row ("GPU",
# "Switch", "CPU_CORE" ...: DcgmFieldsGetEntityGroupString), the entity's "-> N" row (its health),
# an "-> Errors" row, and one "-> <system>" row a watched system with that system's health, its
# messages wrapped over the rows below with an empty first cell. Health is
# HelperHealthToString's "Healthy", "Warning" or "Failure"; HelperSystemToString names most
# systems "<X> system" ("PCIe system", "NVLINK system", "Memory system" ...) but the driver's
# "Driver", and has no name for the NvSwitch systems, which print as "Internal error"
# (dcgmi/Health.cpp; the rows in dcgmi/tests/HealthTests.cpp). With -j the same tree is JSON
# (DcgmiOutputJson): "header", then "body" with each node's "value", "children" and "overflow".
# (``dcgmi stats -j``'s job summary ends with an "Overall Health" row of its own, under its
# "+-----  Overall Health  ----+" section row (dcgmi/Stats.cpp): the job's, not a health check's;
# STATS_SIGNATURE reads it)
# dcgmi health's own failure: "Error: Unable to set health watches. Return: API version
# mismatch" (dcgmi/Health.cpp, SetWatches / GetWatches: "Error: Unable to set health watches.
# Return: " << errorString(result)); errorString is dcgm_errors.c's text of the dcgmReturn_t
# The older layout, the one the DCGM User Guide still shows (Feature Overview, Health and
# Diagnostics, the ``dcgmi health -g 1 -c`` example): "Health Monitor Report" unboxed, then
# "| Group 1 | Overall Health: Warning |", an entity's "| GPU ID: 0 | Warning |" and, under it with
# an empty first cell, "| | PCIe system: Warning - Detected more than 8 PCIe |" (the system, its
# health and its message), the message wrapped over the rows below ("| | replays per minute for
# GPU 0: 13 |").
HEALTH_SIGNATURE = (
    r"^\|\s*Health Monitor Report\s*\|\s*$"
    r"|^\|[ \t]*Group \d{1,9}[ \t]*\|[ \t]*Overall Health:[ \t]*(?:Healthy|Warning|Failure)[ \t]*\|"
    r"|(?:\A|^(?![+|]-+[ \t]+Overall Health[ \t]+-)[^\n]*\n)"
    r"\|\s*Overall Health\s*\|\s*(?:Healthy|Warning|Failure)\s*\|"
    r'|"header"\s*:\s*\[\s*"Health Monitor Report"'
    r"|^[ \t]*Error: Unable to (?:set|get) health watches\. Return: "
)
"""The report's title (boxed, or the JSON form's header), or its Overall Health row where a copy
lost the title (not the one under ``dcgmi stats -j``'s section row), or dcgmi health's error."""
_HEALTH_ERROR_RE = re.compile(
    r"^\s*Error: Unable to (?P<what>set|get) health watches\. Return: (?P<why>\S[^\n]*)$"
)
# the host engine's log of the same failure: "Version mismatch 2002028 != 300202c for module 0
# subCommand 17 [./modules/DcgmModule.cpp:35] [DcgmModule::CheckVersion]": a module's message of
# another struct version than the core's (dcgm_structs.h MAKE_DCGM_VERSION: the struct's size in
# the low 24 bits, its version above them), its parts built from different DCGM releases
_ENGINE_MISMATCH_RE = re.compile(
    r"\bVersion mismatch (?P<got>[0-9a-fA-F]+) != (?P<want>[0-9a-fA-F]+) for module (?P<module>\d+)"
)
_GROUP_OVERALL_RE = re.compile(r"^Group \d{1,9}$")
"""The older layout's first row's name cell; its value is "Overall Health: <health>"."""
_ENTITY_ID_RE = re.compile(r"^(?P<group>[A-Za-z_]{1,20}) ID:\s*(?P<id>\d{1,9})$")
"""The older layout's entity row's name cell, "GPU ID: 0" (its value the entity's health)."""
_SYSTEM_HEALTH_RE = re.compile(
    r"^(?P<label>[A-Za-z][A-Za-z ]{0,40}):\s*(?P<health>Healthy|Warning|Failure)"
    r"(?:\s*-\s*(?P<message>\S.*))?$"
)
"""The older layout's system row under an entity: "PCIe system: Warning - Detected more ..."."""
_STATS_SECTION_RE = re.compile(r"^[+|]-+\s+(?:Execution|Performance|Event|Slowdown) Stats\s+-+")
_HEALTH_WORDS = {"Healthy": "Pass", "Warning": "Warn", "Failure": "Fail"}
_HEALTH_RANK = {"Pass": 0, "Warn": 1, "Fail": 2}


def _system_name(label: str, group: str) -> str:
    """A system row's label as said: DCGM prints "Internal error" for the NvSwitch systems."""
    if label == "Internal error" and group == "Switch":
        return "NvSwitch system (DCGM prints 'Internal error')"
    return label


def parse_health(text: str) -> tuple[Diag, list[ParseWarning]]:
    """``dcgmi health -c``'s report (boxed or ``-j`` JSON) as a table of checks: one a system of
    an entity that had an incident (section ``dcgmi health``, ``gpus`` the entity's group and
    id), its messages as details; a report with none is one check, the overall health."""
    if (start := _json_start(text)) is not None:
        return _health_json(text, start)
    lines = numbered_lines(text)
    overall: tuple[int, str] | None = None
    group = "GPU"
    entity: str | None = None
    check: DiagCheck | None = None
    checks: list[DiagCheck] = []
    in_stats = False  # inside dcgmi stats -j's job summary (its own Overall Health row)
    older = False  # the older layout's "| Group N | Overall Health: X |" row was read
    errors: list[DiagCheck] = []
    for no, raw, _ in lines:
        if err := _HEALTH_ERROR_RE.match(raw):
            errors.append(_health_error(err, no, text))
            continue
        if _STATS_SECTION_RE.match(raw.strip()):
            in_stats = True
        if not (row := _ROW_RE.match(raw.strip())):
            if not raw.strip():
                in_stats = False
            continue
        name, value = row.group("name").strip(), row.group("value").strip()
        if name == "Health Monitor Report":
            in_stats = False
        said = value.partition(":")[2].strip() if value.startswith("Overall Health:") else ""
        if name == "Overall Health" and value in _HEALTH_WORDS and not in_stats:
            overall = (no, value)
        elif _GROUP_OVERALL_RE.match(name) and said in _HEALTH_WORDS:
            # the older layout's "| Group 1 | Overall Health: X |"
            overall, older = (no, said), True
        elif older and (ent := _ENTITY_ID_RE.match(name)):
            group = ent.group("group")
            entity, check = f"{group}: {ent.group('id')}", None
        elif (
            older
            and not name
            and entity is not None
            and (sys_row := _SYSTEM_HEALTH_RE.match(value))
        ):
            check = DiagCheck(
                section="dcgmi health",
                name=_system_name(sys_row.group("label"), group),
                result=_HEALTH_WORDS[sys_row.group("health")],
                gpus=entity,
                line=no,
            )
            if sys_row.group("message"):
                check.details.append(sys_row.group("message"))
            checks.append(check)
        elif name.startswith("->"):
            label = name[2:].strip()
            if label.isdigit():
                entity, check = f"{group}: {label}", None
            elif label != "Errors" and value in _HEALTH_WORDS:
                check = DiagCheck(
                    section="dcgmi health",
                    name=_system_name(label, group),
                    result=_HEALTH_WORDS[value],
                    gpus=entity,
                    line=no,
                )
                checks.append(check)
        elif name and not value:
            group, entity, check = name, None, None  # an entity group's row
        elif not name and value and check is not None:
            check.details.append(value)
    if overall is None and not checks:
        if errors:
            return Diag(line=errors[0].line, checks=errors), []
        raise ParseError("dcgmi health: no 'Overall Health' row and no system's health")
    diag, warnings = _health_report(overall, checks)
    diag.checks += errors
    return diag, warnings


def _health_error(err: re.Match[str], no: int, text: str) -> DiagCheck:
    """dcgmi health's own error (its watches not set or not read), as a Deployment check that
    failed: DCGM's setup, not a GPU's health (no system was watched)."""
    why = err.group("why").strip()
    said = [f"dcgmi health: unable to {err.group('what')} health watches: {why}"]
    if "version mismatch" in why.lower():
        # DCGM_ST_VER_MISMATCH (-12, dcgm_structs.h; errorString "API version mismatch"):
        # dcgmi, its library and the host engine (or one of its modules) of different releases
        said.append(
            "DCGM's own failure: dcgmi, libdcgm and nv-hostengine (or its health module) are "
            "of different versions"
        )
        if m := _ENGINE_MISMATCH_RE.search(text):
            said.append(
                f"the host engine's log: version mismatch {m.group('got')} != {m.group('want')} "
                f"for module {m.group('module')}"
            )
    said.append("no GPU's health was read; not a GPU fault")
    return DiagCheck(
        section="Deployment",
        name=f"Health watches ({err.group('what')})",
        result="Fail",
        line=no,
        details=["; ".join(said)],
    )


_HEALTH_CODES = {"10": "Warning", "20": "Failure"}
_NAMED_GPU_RE = re.compile(r"\bGPU (\d+)\b")
"""DCGM_HEALTH_RESULT_WARN and _FAIL (dcgm_structs.h): what DCGM 2.1-2.3's Health.cpp printed on
an entity's row (``outGroup[to_string(entityHealth)]``, its id from 2.4)."""


def _json_start(text: str) -> int | None:
    """Where the -j report's object starts: the first line that opens one, where the text holds
    the report's header (a pasted session has the command above it and the prompt below)."""
    if '"header"' not in text:
        return None
    m = re.search(r"^\s*\{", text, re.M)
    return m.start() if m else None


def _health_json(text: str, start: int) -> tuple[Diag, list[ParseWarning]]:
    """``dcgmi health -c -j``: the same tree as JSON, each report of a pasted session (the
    objects one after another, prompts and commands between them) read in turn."""
    decoder = json.JSONDecoder()
    reports: list[tuple[int, dict[str, object]]] = []
    for m in re.finditer(r"^\s*\{", text[start:], re.M):
        at = start + m.start()
        if reports and at < reports[-1][0]:
            continue  # inside the object read last
        try:
            data, end = decoder.raw_decode(text[at:].lstrip())
        except ValueError:
            continue
        if isinstance(data, dict) and isinstance(data.get("body"), dict):
            reports.append((at + end, {"line": text.count("\n", 0, at) + 1, **data}))
    if not reports:
        raise ParseError("dcgmi health -j: no JSON report with a 'body' object")
    checks: list[DiagCheck] = []
    overall: tuple[int, str] | None = None
    for _, data in reports:
        line = int(str(data["line"]))
        body = data["body"]
        assert isinstance(body, dict)
        found, said = _health_body(body, line)
        checks += found
        if said is not None and (
            overall is None
            or _HEALTH_RANK[_HEALTH_WORDS[said]] > _HEALTH_RANK[_HEALTH_WORDS[overall[1]]]
        ):
            overall = (line, said)
    if overall is None and not checks:
        raise ParseError("dcgmi health -j: no 'Overall Health' and no system's health")
    return _health_report(overall, checks)


def _health_body(body: dict[str, object], line: int) -> tuple[list[DiagCheck], str | None]:
    """One -j report's checks and its overall health word."""
    overall_node = body.get("Overall Health")
    overall = None
    if isinstance(overall_node, dict) and overall_node.get("value") in _HEALTH_WORDS:
        overall = str(overall_node["value"])
    checks: list[DiagCheck] = []
    for group, group_node in body.items():
        if group == "Overall Health" or not isinstance(group_node, dict):
            continue
        for entity, entity_node in (group_node.get("children") or {}).items():
            errors = ((entity_node or {}).get("children") or {}).get("Errors") or {}
            for label, node in (errors.get("children") or {}).items():
                if not isinstance(node, dict) or node.get("value") not in _HEALTH_WORDS:
                    continue
                said = [str(t) for t in node.get("overflow") or []]
                checks.append(
                    DiagCheck(
                        section="dcgmi health",
                        name=_system_name(label, group),
                        result=_HEALTH_WORDS[node["value"]],
                        gpus=f"{group}: {entity}",
                        line=line,
                        details=said,
                    )
                )
    return checks, overall


def _health_report(
    overall: tuple[int, str] | None, checks: list[DiagCheck]
) -> tuple[Diag, list[ParseWarning]]:
    """The checks read, and the overall health where it says more than they do."""
    warnings: list[ParseWarning] = []
    for c in checks:  # a message wrapped over rows: one text
        c.details = [" ".join(c.details)] if c.details else []
        # DCGM 2.1-2.3 printed the entity's health code (10, 20) where later ones print its id:
        # where the message names another GPU, that is the entity
        group, _, label = (c.gpus or "").partition(": ")
        named = _NAMED_GPU_RE.search(c.details[0]) if c.details else None
        if label in _HEALTH_CODES and named and named.group(1) != label:
            c.gpus = (
                f"{group}: {named.group(1)} (named by its message; DCGM before 2.4 printed "
                f"its health code {label} in the id's place)"
            )
    if overall is None:
        warnings.append(
            ParseWarning(
                line=checks[0].line,
                message="dcgmi health: the report's Overall Health row is not in the copy",
            )
        )
    else:
        worst = max((_HEALTH_RANK[c.result] for c in checks), default=-1)
        result = _HEALTH_WORDS[overall[1]]
        if _HEALTH_RANK[result] > worst or not checks:
            # the overall health is the worst of every incident: one not read is said by it
            checks.append(
                DiagCheck(
                    section="dcgmi health", name="Overall Health", result=result, line=overall[0]
                )
            )
            if checks[:-1] or result != "Pass":
                warnings.append(
                    ParseWarning(
                        line=overall[0],
                        message=f"dcgmi health: Overall Health {overall[1]}, worse than every "
                        "system read under it (or none is in the copy)",
                    )
                )
    return Diag(line=overall[0] if overall else checks[0].line, checks=checks), warnings


# ``dcgmi dmon -e FIELD[,FIELD...]``: "#Entity   XIDER  POWER ..." (each field's short name), an
# "ID" line, then a row an entity, "GPU 1      120". Field 230, XIDER (DCGM_FI_DEV_XID_ERRORS), is
# the last Xid the GPU reported, 0 for none (DCGM's field identifiers reference).
DMON_SIGNATURE = (
    r"^#Entity[ \t]+[A-Z][A-Z0-9_]+(?:[ \t]+[A-Z][A-Z0-9_]+)*[ \t]*\n[ \t]*ID\b"
    # (or its refusal to set its watches: dmon_failure)
    r"|\bError setting watches\. Result: -?\d+"
)
_DMON_HEAD_RE = re.compile(
    r"^#Entity[ \t]+(?P<names>[A-Z][A-Z0-9_]+(?:[ \t]+[A-Z][A-Z0-9_]+)*)[ \t]*$"
)
_DMON_ROW_RE = re.compile(
    r"^(?P<kind>GPU|Switch|NvSwitch|Link|CPU)\s+(?P<id>\d+)\s+(?P<values>\S.*)$"
)


@dataclass
class DmonSample:
    entity: str
    """``GPU 1``, ``Switch 0`` ..."""
    line: int
    values: dict[str, str]
    """Field short name → its value as printed (``N/A`` kept)."""


def parse_dmon(text: str) -> list[DmonSample]:
    """Each sample row of ``dcgmi dmon``'s table; raises ParseError where there is none."""
    names: list[str] | None = None
    samples: list[DmonSample] = []
    for no, line, _ in numbered_lines(text):
        s = line.strip()
        if m := _DMON_HEAD_RE.match(s):
            names = m.group("names").split()
            continue
        if names is None or not (r := _DMON_ROW_RE.match(s)):
            continue
        values = r.group("values").split()
        if len(values) != len(names):
            continue
        samples.append(
            DmonSample(
                entity=f"{r.group('kind')} {r.group('id')}",
                line=no,
                values=dict(zip(names, values, strict=True)),
            )
        )
    if not samples:
        if failure := dmon_failure(text):
            raise ParseError(failure[1], line=failure[0])
        raise ParseError("dcgmi dmon: no entity row under its '#Entity' header")
    return samples


# dcgmi dmon's refusal: "Error setting watches. Result: -33: This request is serviced by a module
# of DCGM that is not currently loaded" (dcgmi/DeviceMonitor.cpp: "Error setting watches. Result:
# " << result << ": " << errorString(result); -33 is DCGM_ST_MODULE_NOT_LOADED, dcgm_structs.h).
# Its cause is in dcgmi modules -l (dcgmi/Module.cpp): a "| Module ID | Name | State |" box, a
# row a module ("| 8 | Profiling | Failed to load |"): the profiling fields (1001-1012,
# DCGM_FI_PROF_*) are served by the Profiling module alone
DMON_ERROR_SIGNATURE = r"\bError setting watches\. Result: -?\d+"
_DMON_ERROR_RE = re.compile(
    r"\bError setting watches\. Result: (?P<code>-?\d+):?[ \t]*(?P<why>[^\n\\]*)"
)
_MODULE_ROW_RE = re.compile(
    r"^\s*\|\s*(?P<id>\d+)\s*\|\s*(?P<name>[A-Za-z][\w ]*?)\s*\|\s*(?P<state>[A-Za-z][\w ]*?)\s*\|\s*$"
)
MODULES_SIGNATURE = r"^[ \t>]*\|[ \t]*List Modules[ \t]*\|"
# the results that are a GPU's state, not DCGM's refusal of the request (the dmon side of
# GPU_STATE_RETURNS; -51 is the diagnostic's own): DCGM maps NVML's NVML_ERROR_GPU_IS_LOST to
# DCGM_ST_GPU_IS_LOST (-18, "GPU is lost") and NVML_ERROR_RESET_REQUIRED to DCGM_ST_RESET_REQUIRED
# (-19) (DCGM's NvmlReturnToDcgmReturn); NVML's own words for them are "The GPU has fallen off
# the bus or has otherwise become inaccessible" and "The GPU requires a reset before it can be
# used again" (nvml.h's return values).  -8, DCGM_ST_NVML_ERROR, is left out: it is the same
# map's default, which takes a driver not loaded or a library/driver version mismatch as well as
# a GPU's IRQ issue
DMON_GPU_FAULTS = {
    "-18": "DCGM_ST_GPU_IS_LOST: the GPU has fallen off the bus or has otherwise become "
    "inaccessible",
    "-19": "DCGM_ST_RESET_REQUIRED: the GPU requires a reset before it can be used again",
}
# -8's reading: NVML, not DCGM, failed; its cause is not in the result
DMON_NVML_ERROR = (
    "DCGM_ST_NVML_ERROR: NVML failed, DCGM's code for every NVML error it has no code of its own "
    "for (the driver not loaded, an NVML library that does not match the driver, a GPU's IRQ "
    "issue or corrupted InfoROM): the host's driver or a GPU, not DCGM's refusal of the fields"
)


def modules(text: str) -> list[tuple[int, str, str]]:
    """dcgmi modules -l's rows: (line, module name, state as printed)."""
    return [
        (no, m.group("name"), m.group("state"))
        for no, line, _ in numbered_lines(text)
        if (m := _MODULE_ROW_RE.match(line))
    ]


def dmon_result(text: str) -> str | None:
    """The DCGM result code of dcgmi dmon's "Error setting watches. Result: -6: ..." ("-6");
    None where dmon printed no such error."""
    err = _DMON_ERROR_RE.search(text)
    return err.group("code") if err else None


def dmon_failure(text: str) -> tuple[int, str] | None:
    """dcgmi dmon's "Error setting watches" said with its cause where dcgmi modules -l shows a
    module that failed to load: (line, what it says); None where dmon printed no such error."""
    err = _DMON_ERROR_RE.search(text)
    if err is None:
        return None
    line = text.count("\n", 0, err.start()) + 1
    why = err.group("why").strip()
    said = f"dcgmi dmon: no sample: its watches were not set (Result {err.group('code')}" + (
        f": {why})" if why else ")"
    )
    failed = [(no, name) for no, name, state in modules(text) if state == "Failed to load"]
    if failed:
        said += "; dcgmi modules -l: " + ", ".join(
            f"{name} failed to load (line {no})" for no, name in failed
        )
    if any(name == "Profiling" for _, name in failed):
        said += (
            ": DCGM's profiling module did not load, so no profiling field (1001 on, "
            "DCGM_FI_PROF_*) can be watched"
        )
    code = err.group("code")
    if code in DMON_GPU_FAULTS:  # (a GPU's state: read as a fault by the caller)
        return line, said + f"; {DMON_GPU_FAULTS[code]}"
    if code == "-8":
        return line, said + f"; {DMON_NVML_ERROR}"
    return line, said + "; DCGM's own failure, not a GPU fault"


# dcgmi discovery -l (dcgmi/Query.cpp): "8 GPUs found (Active)." (older DCGM: "8 GPUs found."),
# then a box of "| GPU ID | Device Information |" with one GPU's "Name: ...", "PCI Bus ID: ...",
# "Device UUID: ..." lines under its id; NvSwitches ("N NvSwitches found.") and ConnectX cards
# ("N ConnectX found.") follow in boxes of their own
DISCOVERY_SIGNATURE = (
    r"^[ \t]*\d+ GPUs? found(?: \((?:Active|All)\))?\.[ \t]*$"
    r"|^[ \t]*\|[ \t]*GPU ID[ \t]*\|[ \t]*Device Information[ \t]*\|"
    # (-c's compute hierarchy: hierarchy_notes)
    r"|^[ \t]*\|[ \t]*Instance Hierarchy[ \t]*\|"
)
_FOUND_RE = re.compile(r"^\s*(?P<n>\d+) GPUs? found(?: \((?P<which>Active|All)\))?\.\s*$")
_DISCOVERY_ROW_RE = re.compile(
    r"^\s*\|\s*(?P<id>\d*)\s*\|\s*(?P<key>[A-Za-z][\w ]*?):\s*(?P<value>.*?)\s*\|\s*$"
)


@dataclass(kw_only=True)
class DiscoveredGpu:
    id: int
    line: int
    name: str = ""
    bus_id: str = ""


DCGM_STR_BLANK = "<<<NULL>>>"
"""DCGM's text for a value it does not have (dcgmlib/dcgm_structs.h)."""


_OTHERS_FOUND_RE = re.compile(r"^\s*(?P<n>\d+) (?P<what>NvSwitch(?:es)?|ConnectX|CPUs?) found")
# systemd's status of DCGM's service ("● nvidia-dcgm.service - NVIDIA DCGM service" then
# "     Active: inactive (dead)" or "active (running) since ..."), as a copy of a session shows it
_DCGM_UNIT_RE = re.compile(r"^[ \t]*(?:\S[ \t]*)?nvidia-dcgm\.service\b")
_UNIT_ACTIVE_RE = re.compile(r"^\s*Active: (?P<state>[\w-]+ \([^)\n]*\))")
UNIT_ACTIVE_LINES = 4
"""How far under its unit's heading systemctl status prints the Active: line."""


def service_states(text: str) -> list[tuple[int, str]]:
    """Each ``systemctl status nvidia-dcgm`` in ``text``: its Active line's number and state."""
    lines = numbered_lines(text)
    states = []
    for index, (_, line, _) in enumerate(lines):
        if _DCGM_UNIT_RE.match(line):
            for no, below, _ in lines[index + 1 : index + 1 + UNIT_ACTIVE_LINES]:
                if a := _UNIT_ACTIVE_RE.match(below):
                    states.append((no, a.group("state")))
                    break
    return states


def parse_discovery(text: str) -> tuple[int | None, list[DiscoveredGpu], list[ParseWarning]]:
    """dcgmi discovery -l: the GPU count it states and each GPU listed; raises ParseError when
    neither is there."""
    found: int | None = None
    gpus: list[DiscoveredGpu] = []
    current: DiscoveredGpu | None = None
    in_gpus = True  # (the NvSwitch and ConnectX boxes after the GPUs' are not GPUs)
    for no, line, _ in numbered_lines(text):
        if m := _FOUND_RE.match(line):
            found = int(m.group("n"))
            continue
        if _OTHERS_FOUND_RE.match(line):
            in_gpus = False
            continue
        if not in_gpus or not (r := _DISCOVERY_ROW_RE.match(line)):
            continue
        if r.group("id"):
            current = DiscoveredGpu(id=int(r.group("id")), line=no)
            gpus.append(current)
        if current is None:
            continue
        if r.group("key") == "Name":
            current.name = r.group("value")
        elif r.group("key") == "PCI Bus ID":
            current.bus_id = r.group("value")
    hierarchy, warnings = hierarchy_notes(text)
    if not gpus:
        gpus = hierarchy
    if found is None and not gpus:
        raise ParseError("dcgmi discovery: no 'GPUs found' line and no GPU row")
    for no, line, _ in numbered_lines(text):
        if (o := _OTHERS_FOUND_RE.match(line)) and not o.group("what").startswith("CPU"):
            # (the NVSwitches and ConnectX cards DCGM sees beside the GPUs)
            warnings.append(
                ParseWarning(
                    line=no, message=f"{o.group('n')} {o.group('what')} found", skipped=False
                )
            )
    if len(states := service_states(text)) > 0:
        warnings.append(
            ParseWarning(
                line=states[0][0],
                message="the DCGM service (nvidia-dcgm, its host engine nv-hostengine) was "
                + ", then ".join(f"{state} (line {no})" for no, state in states)
                + ": dcgmi answers only while its host engine runs",
                skipped=False,
            )
        )
    # DCGM writes a value it has none for as DCGM_STR_BLANK, "<<<NULL>>>" (dcgmlib/dcgm_structs.h):
    # a GPU listed with no name is one whose attributes the host engine could not read
    blank = [g for g in gpus if g.name == DCGM_STR_BLANK]
    if blank:
        warnings.append(
            ParseWarning(
                line=blank[0].line,
                message=f"dcgmi discovery: {len(blank)} GPU(s) listed with no name ({DCGM_STR_BLANK}, "
                f"DCGM's blank value: GPU {', '.join(str(g.id) for g in blank)}): the host engine "
                "could not read their attributes from the driver, so nothing of their model is "
                "known (check nvidia-smi and the host engine's log)",
                skipped=False,
            )
        )
    if found is not None and len(gpus) < found:
        warnings.append(
            ParseWarning(
                line=gpus[-1].line if gpus else 0,
                message=f"dcgmi discovery: {found} GPU(s) found, {len(gpus)} listed in the copy "
                "(the rest left out or cut): those are not read",
            )
        )
    return found, gpus, warnings


# dcgmi stats -j JOB (dcgmi/Stats.cpp): "Successfully retrieved statistics for job: N.", then a
# "| Summary |" box whose sections ("-----  Execution Stats  ----", "Performance Stats", "Event
# Stats", "Slowdown Stats", "Overall Health") hold one "| name | value |" row a figure; "Not
# Specified" / "N/A" where DCGM recorded none (a job's processes on MIG instances are not
# attributed to it)
# With -v (dcgmi/ProcessStats.cpp ViewJobStats / ViewProcessStats) the box is one a GPU, headed
# "| GPU ID: 1 |" for "| Summary |", its Performance Stats adding "SM Clock (MHz)", "Memory Clock
# (MHz)", "SM Utilization (%)", "Memory Utilization (%)" and the PCIe rows; ``dcgmi stats -p PID``
# opens with "Successfully retrieved process info for PID: N. Process ran on M GPUs." and prints
# the same boxes. A copy may keep a box without the line above it, or only its "+-----
# Performance Stats  ---+---+" section row and the rows under it (the banner then the Energy row,
# as HelperDisplayJobPerformanceStats prints them).
STATS_SIGNATURE = (
    r"^[ \t]*Successfully retrieved (?:statistics for job|process info for PID): "
    r"|^[ \t]*\|[ \t]*(?:Summary|GPU ID: \d{1,9})[ \t]*\|[ \t]*\n[^\n]*\n"
    r"[ \t]*\|-+[ \t]+Execution Stats[ \t]+-"
    r"|^[ \t]*\+-+[ \t]+Performance Stats[ \t]+-+\+-*\+[ \t]*\n"
    r"[ \t]*\|[ \t]*Energy Consumed \(Joules\)[ \t]*\|"
)
_STATS_JOB_RE = re.compile(
    r"^\s*Successfully retrieved (?:statistics for job: (?P<job>[^\s.]+)"
    r"|process info for PID: (?P<pid>\d{1,12}))"
)
_STATS_HEAD_RE = re.compile(r"^\|\s*(?:Summary|GPU ID: (?P<gpu>\d{1,9}))\s*\|$")
"""A box's one-cell head: the job's summary, or one GPU's box (-v)."""
_STATS_PERF_RE = re.compile(r"^\+-+\s+Performance Stats\s+-")
_STATS_SAID = (
    "No. of Processes",
    "Total Execution Time (sec)",
    "Energy Consumed (Joules)",
    "Power Usage (Watts)",
    "Max GPU Memory Used (bytes)",
    "SM Utilization (%)",
    "Memory Utilization (%)",
    "Double Bit ECC Errors",
    "Critical XID Errors",
    "Overall Health",
)


@dataclass
class StatsHealth:
    """A ``dcgmi stats`` box whose Overall Health is not Healthy."""

    line: int
    where: str
    """The job or PID and the GPU, as the note names them (``job train-42, GPU 1``)."""
    gpu: str | None
    result: str
    """``Warn`` or ``Fail`` (_HEALTH_WORDS)."""
    details: list[str] = field(default_factory=list)


def stats_notes(text: str) -> list[ParseWarning]:
    """A note per ``dcgmi stats`` box (see stats_read)."""
    return stats_read(text)[0]


def stats_read(text: str) -> tuple[list[ParseWarning], list[StatsHealth]]:
    """A note per ``dcgmi stats`` box (``-j`` job summary, ``-v`` one a GPU, ``-p`` a process):
    its job or process and GPU, processes, energy, power, memory, utilisation, ECC, Xids and
    overall health as printed; and each box whose Overall Health is Warning or Failure.
    (dcgmi/ProcessStats.cpp: the Event Stats rows are the GPU's ECC errors and critical Xids
    during the job or process, and HelperDisplayOverAllHealth prints ``overallHealth``,
    HelperHealthResultToString's Healthy / Warning / Failure of DCGM's health watches, with -v
    each incident's system under it: a health result of that GPU, not only a usage figure.)"""
    notes: list[ParseWarning] = []
    bad: list[StatsHealth] = []
    systems: list[str] = []  # the failing systems under Overall Health (-v)
    owner = ""  # "job 952404" / "PID 1234": the line above the boxes, when the copy has it
    gpu: str | None = None  # the -v box's GPU; None for a summary
    at: int | None = None
    fields: dict[str, str] = {}
    perf_only = False  # the copy starts at a Performance Stats section row

    def said() -> None:
        if at is None or not fields:
            return
        pid = owner.startswith("PID")
        where = ", ".join(w for w in (owner, f"GPU {gpu}" if gpu is not None else "") if w)
        box = "stats" if gpu is not None else "process summary" if pid else "job summary"
        if perf_only:
            box = "Performance Stats rows (the box's head and the rows above them not in the copy)"
        # (a -p copy's boxes are the process's; a copy with no "Successfully retrieved" line names
        # no job)
        whose = "the process's stats" if pid else "the job's stats" if owner else "the stats"
        notes.append(
            ParseWarning(
                line=at,
                message=f"dcgmi stats{'' if pid or gpu is not None or perf_only else ' -j'}"
                f"{f' ({where})' if where else ''}: {box}: "
                + "; ".join(f"{k} {fields[k]}" for k in _STATS_SAID if k in fields)
                + (
                    "; DCGM recorded no process and no power or memory figure for the job (on "
                    "MIG instances its stats are not attributed to the job)"
                    if fields.get("No. of Processes") == "0"
                    else ""
                )
                + f"; {whose}",
                skipped=False,
            )
        )
        health = _HEALTH_WORDS.get(fields.get("Overall Health", ""))
        if health in ("Warn", "Fail"):
            bad.append(
                StatsHealth(
                    line=at,
                    where=where,
                    gpu=gpu,
                    result=health,
                    details=[
                        f"{k} {fields[k]}"
                        for k in ("Double Bit ECC Errors", "Critical XID Errors", "XID")
                        if k in fields and fields[k] not in ("0", "")
                    ]
                    + systems,
                )
            )

    for no, line, _ in numbered_lines(text):
        s = line.strip()
        if j := _STATS_JOB_RE.match(line):
            said()
            owner = f"job {j.group('job')}" if j.group("job") else f"PID {j.group('pid')}"
            gpu, at, fields, perf_only, systems = None, no, {}, False, []
        elif head := _STATS_HEAD_RE.match(s):
            if fields:  # a new box: the one before it said
                said()
                at = None
            gpu, fields, perf_only, systems = head.group("gpu"), {}, False, []
            if at is None or gpu is not None:
                at = no  # (a summary right under its "Successfully retrieved" line: that line)
        elif at is None and _STATS_PERF_RE.match(s):
            # only the Performance Stats rows: a -v box's (its clocks and utilisation rows) or
            # a summary's, its head above them not in the copy
            at, gpu, perf_only = no, None, True
        elif at is not None and (row := _ROW_RE.match(s)):
            # (a -p box marks each process statistic with a "*" after its name:
            # HelperDisplayPidExecutionStats' "Total Execution Time (sec)     *")
            name = row.group("name").strip().removesuffix("*").rstrip()
            value = row.group("value").strip()
            if name in _STATS_SAID:
                fields[name] = value
            elif name.startswith("XID") and "XID" not in fields:
                fields["XID"] = value
            elif "Overall Health" in fields and name and value in ("Warning", "Failure"):
                # (-v: HelperDisplayOverAllHealth prints each incident's system and its result
                # under the Overall Health row)
                systems.append(f"{name} {value}")
    said()
    if not notes:
        raise ParseError("dcgmi stats: no job summary row")
    return notes, bad


# dcgmi discovery -c (dcgmi/Query.cpp, the compute hierarchy): an "Instance Hierarchy" box, a
# "| GPU 0 | GPU GPU-<uuid> (EntityID: 0) |" row a GPU, under it "| -> I 0/1 | GPU Instance
# (EntityID: 3) |" a GPU instance and "|    -> CI 0/1/0 | Compute Instance (EntityID: 3) |" a
# compute instance (MIG)
HIERARCHY_SIGNATURE = r"^[ \t]*\|[ \t]*Instance Hierarchy[ \t]*\|"
_HIER_GPU_RE = re.compile(r"^\s*\|\s*GPU (?P<id>\d+)\s*\|\s*GPU (?P<uuid>\S+)")
_HIER_GI_RE = re.compile(r"^\s*\|\s*-> I (?P<gpu>\d+)/\d+\s*\|")
_HIER_CI_RE = re.compile(r"^\s*\|\s*-> CI (?P<gpu>\d+)/\d+/\d+\s*\|")


def hierarchy_notes(text: str) -> tuple[list[DiscoveredGpu], list[ParseWarning]]:
    """dcgmi discovery -c: its GPUs, and a note of the GPU and compute instances under them."""
    gpus: list[DiscoveredGpu] = []
    instances: dict[int, list[int]] = {}  # GPU id -> [GPU instances, compute instances]
    first = 0
    for no, line, _ in numbered_lines(text):
        if g := _HIER_GPU_RE.match(line):
            gpus.append(DiscoveredGpu(id=int(g.group("id")), line=no))
            instances.setdefault(int(g.group("id")), [0, 0])
            first = first or no
        elif gi := _HIER_GI_RE.match(line):
            instances.setdefault(int(gi.group("gpu")), [0, 0])[0] += 1
        elif ci := _HIER_CI_RE.match(line):
            instances.setdefault(int(ci.group("gpu")), [0, 0])[1] += 1
    if not instances:
        return [], []
    total_gi = sum(v[0] for v in instances.values())
    total_ci = sum(v[1] for v in instances.values())
    return gpus, [
        ParseWarning(
            line=first or 1,
            message=f"dcgmi discovery -c: {len(instances)} GPU(s) with {total_gi} GPU "
            f"instance(s) and {total_ci} compute instance(s) (MIG): "
            + ", ".join(f"GPU {k} {v[0]} GI / {v[1]} CI" for k, v in instances.items())
            + "; a listing, not judged",
            skipped=False,
        )
    ]


# DCGM's GEMM stress binary (NVIDIA/DCGM issue 122: /usr/share/nvidia-validation-suite/plugins/
# cuda12/ubergemm --adapters 0,...,7 --time_to_run 10) prints one closing rate per GPU it ran
# on, in the order the GPUs finished: "GEMM [I] (ADAPTER#0)  Ending with 6698.442948608 GFlops"
UBERGEMM_SIGNATURE = r"\bGEMM \[I\] \(ADAPTER#\d+\)[ \t]+Ending with \d+(?:\.\d+)? GFlops\b"
_UBERGEMM_RE = re.compile(
    r"\bGEMM \[I\] \(ADAPTER#(?P<gpu>\d{1,4})\)[ \t]{1,40}Ending with "
    r"(?P<gflops>\d{1,12}(?:\.\d{1,15})?) GFlops\b"
)
# pdsh's "node-a: " before each line of a host's output (dshbak(1): "the leading node: is
# stripped"; ``pdsh -w node-a,node-b '.../ubergemm ...'``): any host name, since ubergemm's own
# words follow it (PDSH_PREFIX_RE's stricter name, a digit in it, guards lines of any program)
_UBERGEMM_HOST_RE = re.compile(
    r"^[ \t]{0,40}(?P<host>[A-Za-z0-9][\w.-]{0,252}): (?=GEMM \[I\] \(ADAPTER#)"
)
GEMM_PEER_SHARE = 0.8
"""The share of its run's median GEMM rate under which a GPU is said to compute slower than its
peers: the advisor's own margin (ubergemm prints no target of its own), looser than DCGM's
targeted_stress test, which fails a GPU under 0.95 of its SKU's target rate (nvvs plugin
targeted_stress, target_perf_min_ratio 0.95), since peers of one node differ a little more than
one GPU's run against its own SKU's figure."""
GEMM_PEERS_MIN = 3
"""How many GPUs a run must measure before one is weighed against the others' median (of two,
which one lags is not known)."""


@dataclass(frozen=True)
class GemmRate:
    """One GPU's closing rate in an ubergemm run."""

    line: int
    gpu: int
    gflops: float
    host: str | None = None
    """The host pdsh named before the line (``_UBERGEMM_HOST_RE``); None where none leads it."""


def parse_ubergemm(text: str) -> list[list[GemmRate]]:
    """ubergemm's closing rates, one list per run, in the order the runs start: a host's own
    (pdsh's prefix; its lines are its run wherever pdsh interleaved them with another host's),
    and within a host a GPU already measured starts the next (two runs copied one after the
    other)."""
    runs: list[list[GemmRate]] = []
    open_runs: dict[str | None, list[GemmRate]] = {}  # each host's run still open
    raw = text.splitlines()
    for no, line, _ in numbered_lines(text):
        if (m := _UBERGEMM_RE.search(line)) is None:
            continue
        # (from the line as written: numbered_lines takes an address's "10.0.0.12: " off as a
        # launcher's prefix)
        host = h.group("host") if (h := _UBERGEMM_HOST_RE.match(raw[no - 1])) else None
        rate = GemmRate(
            line=no, gpu=int(m.group("gpu")), gflops=float(m.group("gflops")), host=host
        )
        run = open_runs.get(host)
        if run is None or any(r.gpu == rate.gpu for r in run):
            run = open_runs[host] = []
            runs.append(run)
        run.append(rate)
    if not runs:
        raise ParseError("no GPU's closing GFlops line")
    return runs


def lagging_gemm(run: list[GemmRate]) -> tuple[float, list[GemmRate]]:
    """The median GFlops of one ubergemm run and its GPUs under GEMM_PEER_SHARE of it; no GPU
    where the run measured fewer than GEMM_PEERS_MIN."""
    if len(run) < GEMM_PEERS_MIN:
        return 0.0, []
    figures = sorted(r.gflops for r in run)
    half = len(figures) // 2
    median = figures[half] if len(figures) % 2 else (figures[half - 1] + figures[half]) / 2
    return median, [r for r in run if r.gflops < GEMM_PEER_SHARE * median]


# DCGM's result DCGM_ST_PROFILING_LIBRARY_ERROR, -37, "The third-party Profiling module returned
# an unrecoverable error" (NVIDIA/DCGM dcgmlib/dcgm_structs.h; errorString in dcgmlib), as
# nv-hostengine logs it from its profiling module ("[Profiling] Got error from GetSamples: -37
# The third-party ...", NVIDIA/DCGM issue 303, after "[PerfWorks] Decoded zero samples after 48
# attempt(s)"), as dcgm-exporter and dcgmi profile print it. dcgmi dmon's "Error setting
# watches. Result: -37: ..." is dmon's own refusal (DMON_ERROR_SIGNATURE), not this.
PROFILING_ERROR_SIGNATURE = (
    r"^(?![^\n]{0,300}?Error setting watches)[^\n]{0,300}?"
    r"The third-party Profiling module returned an unrecoverable error"
)
_PROFILING_ERROR_RE = re.compile(
    r"The third-party Profiling module returned an unrecoverable error"
)
_ZERO_SAMPLES_RE = re.compile(
    r"\bDecoded zero samples after (?P<attempts>\d{1,9}) attempt\(s\) to decode counters"
)


@dataclass(frozen=True)
class ProfilingError:
    """DCGM's profiling module's unrecoverable error, as logged on one line."""

    line: int
    said: str
    """The line as logged (its first 300 characters)."""
    zero_samples: tuple[int, int] | None
    """(line, attempts) of PerfWorks' "Decoded zero samples after N attempt(s)" above it."""


def profiling_errors(text: str) -> list[ProfilingError]:
    """Each line that logs DCGM_ST_PROFILING_LIBRARY_ERROR (dcgmi dmon's refusals left out), with
    the nearest "Decoded zero samples" line above it."""
    found: list[ProfilingError] = []
    zero: tuple[int, int] | None = None
    for no, line, _ in numbered_lines(text):
        if (z := _ZERO_SAMPLES_RE.search(line)) is not None:
            zero = (no, int(z.group("attempts")))
            continue
        if _DMON_ERROR_RE.search(line) or not _PROFILING_ERROR_RE.search(line):
            continue
        found.append(ProfilingError(line=no, said=line.strip()[:300], zero_samples=zero))
        zero = None
    return found


# dcgm-exporter's Prometheus exposition (NVIDIA/dcgm-exporter): a "# HELP"/"# TYPE" pair per
# DCGM field, then one line per GPU, "DCGM_FI_DEV_XID_ERRORS{gpu="0",UUID="GPU-...",
# pci_bus_id="00000008:01:00.0",device="nvidia0",modelName="NVIDIA GB200",Hostname="h"} 0";
# the fields are those of its counters CSV (etc/default-counters.csv), named as DCGM names them
# (behind pdsh's "host: " too, ``pdsh -w node-[a-b] curl -s localhost:9400/metrics``: the
# loader reads such a copy per host, parsers.pdsh_by_host)
EXPORTER_SIGNATURE = (
    r"^[ \t]*(?:[A-Za-z0-9][\w.-]{0,62}: )?"
    r"DCGM_FI_[A-Z0-9_]{1,80}\{[^}\n]{0,2000}\bgpu=\"\d{1,4}\""
)
_EXPORTER_LINE_RE = re.compile(
    r"^(?P<field>DCGM_FI_[A-Z0-9_]{1,80})\{(?P<labels>[^}\n]{0,2000})\}[ \t]+"
    r"(?P<value>[-+]?\d{1,20}(?:\.\d{1,20})?(?:[eE][-+]?\d{1,3})?)(?:[ \t]+\d{1,20})?$"
)
_EXPORTER_LABEL_RE = re.compile(r'(?P<key>\w{1,40})="(?P<value>[^"\n]{0,200})"')


@dataclass
class ExporterGpu:
    """One GPU of a dcgm-exporter scrape: its labels and each DCGM field's value and line."""

    gpu: int
    line: int
    host: str = ""
    uuid: str = ""
    bus_id: str = ""
    model: str = ""
    values: dict[str, float] = field(default_factory=dict)
    lines: dict[str, int] = field(default_factory=dict)


def parse_exporter(text: str) -> list[ExporterGpu]:
    """dcgm-exporter's metric lines, one ExporterGpu per (host, gpu); raises ParseError where
    there is none."""
    gpus: dict[tuple[str, int], ExporterGpu] = {}
    for no, line, _ in numbered_lines(text):
        if not (m := _EXPORTER_LINE_RE.match(line.strip())):
            continue
        labels = {
            lab.group("key"): lab.group("value")
            for lab in _EXPORTER_LABEL_RE.finditer(m.group("labels"))
        }
        if not labels.get("gpu", "").isdigit():
            continue  # (an NVSwitch's or a CPU's entity: no GPU's)
        key = (labels.get("Hostname", ""), int(labels["gpu"]))
        gpu = gpus.setdefault(
            key,
            ExporterGpu(
                gpu=key[1],
                line=no,
                host=key[0],
                uuid=labels.get("UUID", ""),
                bus_id=labels.get("pci_bus_id", ""),
                model=labels.get("modelName", ""),
            ),
        )
        gpu.values[m.group("field")] = float(m.group("value"))
        gpu.lines.setdefault(m.group("field"), no)
    if not gpus:
        raise ParseError("no dcgm-exporter metric line (DCGM_FI_...{gpu=...} value)")
    return list(gpus.values())


# dcgmi policy --get (DCGM dcgmi/Policy.cpp, DisplayCurrentViolationPolicy): "Policy information",
# then a box a GPU with -v (headed "Policy Information" and "GPU ID: <id>", the group's name
# without -v) of five rows: "Violation conditions" (each watched condition appended: "Double-bit
# ECC errors", "PCI errors and replays", "Max retired pages threshold - N", "Max temperature
# threshold - N", "Max power threshold - N", "NVLink Errors", "XID error detected.", or "None"),
# "Isolation mode" (Automatic / Manual), "Action on violation" (None / Reset GPU), "Validation
# after action" (None / System Validation (Short|Medium|Long|Extended)), "Validation failure
# action"; "****" where the group's GPUs differ. It shows what DCGM is set to do, not a fault.
POLICY_SIGNATURE = r"^[ \t]*\|[ \t]*Violation conditions[ \t]{1,80}\|"
_POLICY_ROW_RE = re.compile(
    r"^[ \t]*\|[ \t]*(?P<key>[A-Za-z][\w .()-]{0,60}?)?[ \t]*\|[ \t]*(?P<value>[^|\n]{0,200}?)[ \t]*\|[ \t]*$"
)
_POLICY_HEAD_RE = re.compile(r"^[ \t]*\|[ \t]*(?P<head>[^|\n]{1,120}?)[ \t]*\|[ \t]*$")
_POLICY_KEYS = (
    "Violation conditions",
    "Isolation mode",
    "Action on violation",
    "Validation after action",
    "Validation failure action",
)
# dcgmi test --inject --gpuid N -f FIELD -v VALUE: puts a value of a field into DCGM's cache by
# hand, "Successfully injected field info." (a test of DCGM's watches and policies, not a reading
# of the GPU); field 230 is DCGM_FI_DEV_XID_ERRORS ("XID errors. The value is the specific XID
# error", dcgm_fields.h)
_INJECT_RE = re.compile(
    r"dcgmi test --inject\b[^\n]{0,200}?--gpuid[ =](?P<gpu>\d{1,4})[^\n]{0,200}?-f[ =]?(?P<field>\d{1,5})"
    r"[^\n]{0,200}?-v[ =]?(?P<value>-?\d{1,20})"
)
_INJECTED_RE = re.compile(r"^[ \t]*Successfully injected field info\.")
_FIELD_NAMES = {230: "DCGM_FI_DEV_XID_ERRORS, the XID a GPU raised"}
INJECT_ANSWER_LINES = 3
"""How far under ``dcgmi test --inject`` its answer may stand."""


def policy_notes(text: str) -> list[ParseWarning]:
    """Each ``dcgmi policy --get`` box (what DCGM watches on a GPU and does on a violation) and
    each ``dcgmi test --inject`` that put a value into DCGM by hand, as notes: a configuration and
    a synthetic test, no fault of a GPU."""
    lines = numbered_lines(text)
    notes: list[ParseWarning] = []
    box: dict[str, str] = {}
    head: list[str] = []
    box_at = 0
    last_key = ""

    def said() -> None:
        if not box:
            return
        who = next((h for h in head if h != "Policy Information"), "the group")
        rows = "; ".join(f"{k}: {box[k]}" for k in _POLICY_KEYS if k in box)
        notes.append(
            ParseWarning(
                line=box_at,
                message=f"dcgmi policy: {who}: {rows} (the policy DCGM is set to apply, "
                "not a violation)",
                skipped=False,
            )
        )

    for index, (no, line, _) in enumerate(lines):
        row = _POLICY_ROW_RE.match(line)
        if row is not None and (row.group("key") or "").strip() in _POLICY_KEYS:
            key = row.group("key").strip()
            if not box:
                box_at = no
            box[key] = row.group("value").strip()
            last_key = key
            continue
        if row is not None and not row.group("key") and last_key and row.group("value"):
            # (a second condition watched, on a row of its own under the first)
            box[last_key] += ", " + row.group("value").strip()
            continue
        if (h := _POLICY_HEAD_RE.match(line)) is not None:
            if box:
                said()
                box, head, last_key = {}, [], ""
            head.append(h.group("head").strip())
            continue
        if (inj := _INJECT_RE.search(line)) is not None:
            answer = next(
                (
                    n
                    for n, t, _ in lines[index + 1 : index + 1 + INJECT_ANSWER_LINES]
                    if _INJECTED_RE.match(t)
                ),
                None,
            )
            field_id = int(inj.group("field"))
            named = _FIELD_NAMES.get(field_id)
            notes.append(
                ParseWarning(
                    line=no,
                    message=f"dcgmi test --inject: field {field_id}"
                    + (f" ({named})" if named else "")
                    + f" = {inj.group('value')} put into DCGM for GPU {inj.group('gpu')}"
                    + (f" (line {answer}: 'Successfully injected field info.')" if answer else "")
                    + ": a synthetic test value, not an event the GPU raised",
                    skipped=False,
                )
            )
    said()
    return notes
