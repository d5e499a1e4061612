"""msprof-analyze's cluster advisor tables (Ascend mstt, profiler/msprof_analyze/advisor), as its
notebooks and console print them (PrettyTable):

- the slow-rank details, one row per step and rank: ``| step | rank_id | compute(us) |
  communication(us) | free(us) |`` (the advisor's SlowRankAnalyzer details header);
- the overview (问题综述), ``| category | description |``: each analysis (慢卡分析 the
  slow-rank analysis, 慢链路分析 the slow-link one) with its verdict, wrapped inside the cell over
  several rows.

- the cluster analysis's ``cluster_step_trace_time.csv`` (``Step,Type,Index,Computing,
  Communication(Not Overlapped),Overlapped,Communication,Free,Stage,Bubble,...``): a row a rank
  (``Type`` rank, ``Index`` its id; a ``stage`` row sums a pipeline stage), times in µs, read into
  the same rows (compute, communication not overlapped, free).

- the cluster analysis's ``cluster_communication.json``: per communication group, step and
  operator, each rank's ``Communication Time Info`` (elapsed, wait and their ratio) and
  ``Communication Bandwidth Info`` (per transport: RDMA, HCCS, PCIE, SDMA ...).

- msprof's own ``op_summary_*.csv`` (the profiler's operator details: ``Device_id,Model ID,Task
  ID,Stream ID,Op Name,OP Type,OP State,Task Type,Task Start Time(us),Task Duration(us),Task Wait
  Time(us),Block Num,...``), a row a task: its operator, the accelerator it ran on (Task Type:
  AI_CORE, AI_VECTOR_CORE, AI_CPU ...) and its time in µs (CANN profiling guide, "op_summary
  (operator details)",
  https://www.hiascend.com/document/detail/zh/canncommercial/latest/devaids/Profiling/atlasprofiling_16_0067.html;
  ``Model Name`` and ``Infer ID`` appear in some modes only).

All are performance figures with no health code in them: read into notes, not judged.
"""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass, field

from advisor.parsers import ParseError, json_number, numbered_lines

DETAILS_SIGNATURE = (
    r"^[ \t]*\|\s*step\s*\|\s*rank_id\s*\|\s*compute\(us\)\s*\|\s*communication\(us\)\s*\|"
    r"\s*free\(us\)\s*\|"
)
OVERVIEW_SIGNATURE = r"^[ \t]*\|\s*category\s*\|\s*description\s*\|"
STEP_TRACE_SIGNATURE = (
    r"^[ \t]*Step,Type,Index,Computing,Communication\(Not Overlapped\),Overlapped,Communication,"
    r"Free\b"
)
COMMUNICATION_SIGNATURE = r'"Communication Time Info"\s*:\s*\{'
OP_SUMMARY_SIGNATURE = r"^[ \t]*Device_id,(?:Model Name,)?Model ID,Task ID,Stream ID,"
SIGNATURE = (
    f"{DETAILS_SIGNATURE}|{OVERVIEW_SIGNATURE}|{STEP_TRACE_SIGNATURE}|{COMMUNICATION_SIGNATURE}"
    f"|{OP_SUMMARY_SIGNATURE}"
)


@dataclass
class RankComm:
    """One rank's figures of one communication operator."""

    rank: str
    elapse_ms: float | None
    wait_ms: float | None
    wait_ratio: float | None
    bandwidth: dict[str, tuple[float, float]] = field(default_factory=dict)
    """Each transport that carried data: (transit size in MB, bandwidth in GB/s)."""


@dataclass
class CommOp:
    group: str
    step: str
    op: str
    ranks: list[RankComm] = field(default_factory=list)


def parse_communication(text: str) -> list[CommOp]:
    """``cluster_communication.json``: each group's, step's and operator's ranks (the operator's
    ``@`` suffix, a hash, left off). Raises ParseError when the text is no such JSON."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise ParseError(f"cluster_communication.json is not JSON: {e}") from None
    if not isinstance(data, dict):
        raise ParseError("cluster_communication.json: no object of communication groups")
    ops: list[CommOp] = []
    for group, steps in data.items():
        for step, by_op in steps.items() if isinstance(steps, dict) else []:
            for op, by_rank in by_op.items() if isinstance(by_op, dict) else []:
                found = CommOp(group=str(group), step=str(step), op=str(op).split("@", 1)[0])
                for rank, info in by_rank.items() if isinstance(by_rank, dict) else []:
                    if not isinstance(info, dict):
                        continue
                    timing = info.get("Communication Time Info") or {}
                    if not isinstance(timing, dict):
                        continue
                    entry = RankComm(
                        rank=str(rank),
                        elapse_ms=json_number(timing.get("Elapse Time(ms)")),
                        wait_ms=json_number(timing.get("Wait Time(ms)")),
                        wait_ratio=json_number(timing.get("Wait Time Ratio")),
                    )
                    links = info.get("Communication Bandwidth Info") or {}
                    for transport, figures in links.items() if isinstance(links, dict) else []:
                        if not isinstance(figures, dict):
                            continue
                        size = json_number(figures.get("Transit Size(MB)"))
                        gbps = json_number(figures.get("Bandwidth(GB/s)"))
                        if size and gbps is not None:
                            entry.bandwidth[str(transport)] = (size, gbps)
                    found.ranks.append(entry)
                if found.ranks:
                    ops.append(found)
    if not ops:
        raise ParseError("cluster_communication.json: no operator with a rank's time info")
    return ops


@dataclass
class StepRank:
    line: int
    step: str
    rank: int
    compute_us: float
    communication_us: float
    free_us: float


@dataclass
class Overview:
    line: int
    verdicts: dict[str, str] = field(default_factory=dict)
    """Each analysis's description, its wrapped rows joined."""


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def parse(text: str) -> tuple[list[StepRank], list[Overview]]:
    """The slow-rank details rows and the overview tables in ``text``."""
    rows: list[StepRank] = []
    overviews: list[Overview] = []
    mode = ""
    header: list[str] = []
    current: Overview | None = None
    category = ""
    for no, raw, _ in numbered_lines(text):
        line = raw.strip()
        if re.match(DETAILS_SIGNATURE, line):
            mode, current = "details", None
            continue
        if re.match(OVERVIEW_SIGNATURE, line):
            mode, category = "overview", ""
            current = Overview(line=no)
            overviews.append(current)
            continue
        if re.match(STEP_TRACE_SIGNATURE, line):
            mode, current, header = "csv", None, next(csv.reader([line]))
            continue
        if mode == "csv":
            values = dict(zip(header, next(csv.reader([line]), []), strict=False))
            if values.get("Type") != "rank":
                continue  # a pipeline stage's sum, or the end of the table
            try:
                rows.append(
                    StepRank(
                        line=no,
                        step=values.get("Step", ""),
                        rank=int(values["Index"]),
                        compute_us=float(values["Computing"]),
                        communication_us=float(values["Communication(Not Overlapped)"]),
                        free_us=float(values["Free"]),
                    )
                )
            except (KeyError, ValueError):
                continue
            continue
        if not line.startswith("|"):
            if line and not line.startswith("+"):
                mode, current = "", None
            continue
        cells = _cells(line)
        if mode == "details" and len(cells) == 5:
            try:
                rows.append(
                    StepRank(
                        line=no,
                        step=cells[0],
                        rank=int(cells[1]),
                        compute_us=float(cells[2]),
                        communication_us=float(cells[3]),
                        free_us=float(cells[4]),
                    )
                )
            except ValueError:
                continue
        elif mode == "overview" and current is not None and len(cells) >= 2:
            category = cells[0] or category
            if category:
                said = current.verdicts.get(category, "")
                current.verdicts[category] = f"{said} {cells[1]}".strip()
    if not rows and not any(o.verdicts for o in overviews):
        raise ParseError(
            "no msprof-analyze slow-rank row, step trace row or overview verdict under its header"
        )
    for overview in overviews:
        for key, said in overview.verdicts.items():
            overview.verdicts[key] = re.sub(r"\s+", " ", said)
    return rows, overviews


@dataclass
class OpTask:
    """One row of ``op_summary_*.csv``: a task of an operator."""

    line: int
    device: str
    op_name: str
    task_type: str
    """The accelerator it ran on (AI_CORE, AI_VECTOR_CORE, AI_CPU, HCCL ...), as printed."""
    duration_us: float
    wait_us: float | None
    block_num: str
    """``Block Num`` (or ``Block Dim``), as printed: the cores the task was split over."""


def _number(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None  # (N/A)


def parse_op_summary(text: str) -> list[OpTask]:
    """The rows of msprof's ``op_summary_*.csv`` under its header; ParseError with none."""
    tasks: list[OpTask] = []
    header: list[str] = []
    for no, raw, _ in numbered_lines(text):
        if re.match(OP_SUMMARY_SIGNATURE, raw):
            header = [h.strip() for h in next(csv.reader([raw.strip()]))]
            continue
        if not header or not raw.strip():
            continue
        values = dict(zip(header, (v.strip() for v in next(csv.reader([raw]), [])), strict=False))
        duration = _number(values.get("Task Duration(us)"))
        if duration is None:
            continue
        tasks.append(
            OpTask(
                line=no,
                device=values.get("Device_id", ""),
                op_name=values.get("Op Name", ""),
                task_type=values.get("Task Type", ""),
                duration_us=duration,
                wait_us=_number(values.get("Task Wait Time(us)")),
                block_num=values.get("Block Num") or values.get("Block Dim") or "",
            )
        )
    if not tasks:
        raise ParseError("no op_summary row with its Task Duration(us) under the header")
    return tasks
