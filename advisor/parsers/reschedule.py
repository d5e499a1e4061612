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

import json
import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any

from advisor.parsers import ParseError, ParseWarning, numbered_lines

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


def is_own_line(line: str) -> bool:
    """A line of the ConfigMap's description or its records: what is left of a file without them
    is another program's."""
    t = line.strip()
    return bool(
        _RECORDS_RE.search(t) or t.startswith("recent-reschedule-records:") or _DESCRIBE_RE.match(t)
    )


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def parse(text: str) -> tuple[list[Reschedule], list[ParseWarning]]:
    """Every task of every reschedule record in ``text``, and the lines that held no record."""
    found: list[Reschedule] = []
    warnings: list[ParseWarning] = []
    decoder = json.JSONDecoder()
    for no, raw, _ in numbered_lines(text):
        line = raw.strip()
        if '"' not in line or not (rm := _RECORDS_RE.search(line)):
            continue
        # the object from its first brace: a line of its own (kubectl describe), the value of
        # the ConfigMap's key ("recent-reschedule-records: '{...}'", -o yaml) or a scheduler's
        # log quoting it after its prefix
        start = line.find("{")
        if not 0 <= start < rm.start():
            continue
        try:
            jobs, _ = decoder.raw_decode(line, start)
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
        if not isinstance(jobs, dict):
            continue
        for key, job in jobs.items():
            if not isinstance(job, dict):
                continue
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
                            line=no,
                            job=str(_get(job, "JobID") or key),
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
