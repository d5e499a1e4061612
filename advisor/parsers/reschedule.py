"""MindCluster's record of job rescheduling: the ``job-reschedule-reason`` ConfigMap.

``kubectl describe cm -n mindx-dl job-reschedule-reason`` prints the ConfigMap's key
``recent-reschedule-records`` with a JSON object on one line: per job, ``TotalRescheduleTimes``
and its last ``RescheduleRecords`` (at most 10, ascend-for-volcano's MaxRescheduleRecordsNum),
each with a ``RescheduleTimeStamp`` and the tasks that caused it (``ReasonOfTask``: the reason,
the pod, the node and the node's rank index) (Ascend/mind-cluster, resumable training on the CLI:
"查看任务重调度记录"). The reasons are ascend-for-volcano's task states (rescheduling/type.go):
``pod-failed`` (the pod failed), ``process-exception`` (a process in the pod failed). The keys
are read without regard to case: the ConfigMap's writer spells them capitalised, a reader in
the same project with lower-case first letters.
"""

from __future__ import annotations

import bisect
import functools
import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from advisor.parsers import ParseError, ParseWarning, strip_launcher_prefix

SIGNATURE = r'^recent-reschedule-records:\s*$|"[Rr]escheduleRecords"\s*:\s*\['
_RECORDS_RE = re.compile(r'"[Rr]escheduleRecords"\s*:\s*\[')
_MEANINGS = {
    "pod-failed": "the pod failed",
    "process-exception": "a process in the pod failed",
}


@dataclass
class Reschedule:
    line: int
    job: str
    total: int | None
    """The job's ``TotalRescheduleTimes``."""
    reason: str
    pod: str
    node: str
    node_rank: str
    """The node's rank index in the job, as printed (a string in the ConfigMap)."""
    when: str
    """The record's ``RescheduleTimeStamp`` as UTC, or ``LogFileFormatTime`` where it has none."""

    @property
    def meaning(self) -> str:
        return _MEANINGS.get(self.reason, "")


def _get(obj: dict[str, Any], key: str) -> Any:
    return next((v for k, v in obj.items() if k.lower() == key.lower()), None)


_DESCRIBE_RE = re.compile(r"^(?:Name|Namespace|Labels|Annotations|Events|Data):|^=+$|^-+$")
_OWN_WORDS_RE = re.compile(
    r"[Rr]escheduleRecords|recent-reschedule-records|Name:|Namespace:|Labels:|Annotations:"
    r"|Events:|Data:|^\s*\S*(?:==|--)"
)
"""What a line of the description or its records holds somewhere (its words, a rule)."""


def is_own_line(line: str) -> bool:
    """A line of the ConfigMap's description or its records: what is left of a file without them
    is another program's."""
    t = line.strip()
    return bool(
        _RECORDS_RE.search(t) or t.startswith("recent-reschedule-records:") or _DESCRIBE_RE.match(t)
    )


def _text(value: Any) -> str:
    return "" if value is None else str(value)


_OUTWARD_LEVELS = 3
"""How many enclosing objects around a pretty-printed job's records are tried (the job, the map
of jobs, the ConfigMap's data)."""
_TOKEN_RE = re.compile(r'"(?:[^"\\\n]|\\.)*(?:"|$)|[{}]', re.M)
"""A JSON string (its braces are no brackets) or a brace, read forward once; a quote left open
on its line ends with the line (else each later quote would read the rest of the line again)."""


def _open_braces(text: str, offsets: list[int]) -> dict[int, list[int]]:
    """For each offset (ascending), the ``{`` still open there, innermost last (the nearest
    ``_OUTWARD_LEVELS``): one pass over the text's strings and braces."""
    found: dict[int, list[int]] = {}
    stack: list[int] = []
    waiting = iter(offsets)
    target = next(waiting, None)
    for m in _TOKEN_RE.finditer(text):
        while target is not None and m.start() >= target:
            found[target] = stack[-_OUTWARD_LEVELS:]
            target = next(waiting, None)
        if target is None:
            break
        if m.group() == "{":
            stack.append(m.start())
        elif m.group() == "}" and stack:
            stack.pop()
    while target is not None:
        found[target] = stack[-_OUTWARD_LEVELS:]
        target = next(waiting, None)
    return found


@dataclass
class _Object:
    first_line: int
    last_line: int
    value: Any


@functools.lru_cache(maxsize=1)
def _objects(text: str) -> tuple[list[_Object], list[ParseWarning]]:
    """Each JSON object holding reschedule records, with the lines it spans: one line (kubectl
    describe, ``-o yaml``, a scheduler's log quoting it after its prefix, each line a launcher
    may have tagged) or pretty-printed over several (a script's ``json.dumps(..., indent=2)``),
    the outermost enclosing object that is whole JSON. (Kept for the last text: the log
    readers' blanking and the records' reading ask for the same file.)"""
    found: list[_Object] = []
    warnings: list[ParseWarning] = []
    decoder = json.JSONDecoder()
    bounds = [0, *(m.end() for m in re.finditer("\n", text))]
    looked: set[int] = set()
    for found_key in _RECORDS_RE.finditer(text):
        no = bisect.bisect_right(bounds, found_key.start())
        if no in looked:
            continue  # (a line of several jobs' records: its object read once)
        looked.add(no)
        end = text.find("\n", found_key.start())
        raw = text[bounds[no - 1] : end if end >= 0 else len(text)]
        line = strip_launcher_prefix(raw)[0].strip()
        if not (rm := _RECORDS_RE.search(line)):
            continue
        start = line.find("{")
        if not 0 <= start < rm.start():
            continue
        try:
            value, _ = decoder.raw_decode(line, start)
        except RecursionError:
            warnings.append(
                ParseWarning(line=no, message="reschedule records: JSON nested too deep")
            )
            continue
        except json.JSONDecodeError as exc:
            warnings.append(
                ParseWarning(line=no, message=f"reschedule records: not whole JSON ({exc.msg})")
            )
            continue
        found.append(_Object(no, no, value))
    # pretty-printed: the records' key on a line with no brace before it
    pretty = [
        rm.start()
        for rm in _RECORDS_RE.finditer(text)
        if "{" not in text[text.rfind("\n", 0, rm.start()) + 1 : rm.start()]
    ]
    if not pretty:
        return found, warnings

    def line_of(offset: int) -> int:
        return bisect.bisect_right(bounds, offset)

    braces = _open_braces(text, pretty)
    taken_to = 0
    # an enclosing object found no whole JSON once (a map of jobs cut at its end) is not read
    # again for each job inside it: each try reads to where it breaks
    broken: set[int] = set()
    for key in pretty:
        if key < taken_to:
            continue  # inside an object already read
        best: tuple[int, int, Any] | None = None
        for at in reversed(braces[key]):
            if at in broken:
                break
            try:
                value, stop = decoder.raw_decode(text, at)
            except (json.JSONDecodeError, RecursionError):
                broken.add(at)
                break
            best = (at, stop, value)
        if best is None:
            warnings.append(
                ParseWarning(
                    line=line_of(key), message="reschedule records: not whole JSON around them"
                )
            )
            continue
        at, stop, value = best
        taken_to = stop
        found.append(_Object(line_of(at), line_of(stop - 1), value))
    return found, warnings


def own_lines(text: str) -> set[int]:
    """The lines (numbered from 1) of the ConfigMap's description and of its records' JSON:
    what is left of a file without them is another program's."""
    objects, _ = _objects(text)
    spans = {no for o in objects for no in range(o.first_line, o.last_line + 1)}
    return spans | {
        no
        for no, line in enumerate(text.split("\n"), start=1)
        # (only a line that holds one of the description's words is looked at, its launcher's
        # tag taken off: a long log is mostly other lines)
        if _OWN_WORDS_RE.search(line) and is_own_line(strip_launcher_prefix(line)[0])
    }


def _jobs(value: Any) -> list[tuple[str, dict[str, Any]]]:
    """A decoded object's jobs: the object itself where it holds the records (one job), else
    its values that are jobs (the ConfigMap's map of jobs), a level further down at most."""
    if not isinstance(value, dict):
        return []
    if _get(value, "RescheduleRecords") is not None:
        return [("", value)]
    jobs: list[tuple[str, dict[str, Any]]] = []
    for key, job in value.items():
        if isinstance(job, dict) and _get(job, "RescheduleRecords") is not None:
            jobs.append((str(key), job))
        elif isinstance(job, dict):
            jobs += [
                (str(k), j)
                for k, j in job.items()
                if isinstance(j, dict) and _get(j, "RescheduleRecords") is not None
            ]
    return jobs


def parse(text: str) -> tuple[list[Reschedule], list[ParseWarning]]:
    """Every task of every reschedule record in ``text``, and the lines that held no record."""
    found: list[Reschedule] = []
    objects, warnings = _objects(text)
    for obj in objects:
        for key, job in _jobs(obj.value):
            total = _get(job, "TotalRescheduleTimes")
            for record in _get(job, "RescheduleRecords") or []:
                if not isinstance(record, dict):
                    continue
                stamp = _get(record, "RescheduleTimeStamp")
                when = (
                    datetime.fromtimestamp(stamp, timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
                    if isinstance(stamp, int) and 0 < stamp < 2**33
                    else str(_get(record, "LogFileFormatTime") or "")
                )
                for task in _get(record, "ReasonOfTask") or []:
                    if not isinstance(task, dict):
                        continue
                    found.append(
                        Reschedule(
                            line=obj.first_line,
                            job=str(_get(job, "JobID") or key or "?"),
                            total=total
                            if isinstance(total, int) and not isinstance(total, bool)
                            else None,
                            reason=str(_get(task, "RescheduleReason") or ""),
                            pod=str(_get(task, "PodName") or ""),
                            node=str(_get(task, "NodeName") or ""),
                            node_rank=_text(_get(task, "NodeRankIndex")),
                            when=when,
                        )
                    )
    if not found:
        raise ParseError("no reschedule record with its task ('ReasonOfTask') in the file")
    return found, warnings
