"""The results store: JSON lines appended by every rank of every stage, as they go.

One record per line in ``<run_dir>/results/<stage>.jsonl``. Records are written with a single
``write`` on a file opened with ``O_APPEND`` so lines from concurrent ranks never interleave, and
they are flushed at once so a rank that dies or hangs leaves everything it measured behind.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from advisor.paths import results_dir

LAUNCHES = "launches"
"""The records' "stage" of a launch's own records (each rank's start and process-group init):
they go to ``results/launches.jsonl``, beside the stages' files."""


@dataclass(kw_only=True)
class Record:
    """One line written by a rank: what step it reached and what it measured there."""

    stage: str
    """Stage that wrote it (file name of its JSONL)."""
    rank: int
    """Global rank; -1 for records written by the launcher or a host-level stage."""
    node: int
    """Index of the (possibly emulated) node the rank belongs to."""
    node_name: str
    """Name of that node (host name, or emulated node name)."""
    host: str
    """Real host name of the process."""
    local_rank: int
    job: str = ""
    """Job within the stage (a sweep trial, a benchmark variant); empty for single-job stages."""
    launch: str = ""
    """The launch (torchrun job) that ran it: several stages share one launch."""
    step: str
    """Step name, e.g. ``init``, ``pair/3-4``, ``done``."""
    status: str = "ok"
    """``started`` when a step begins, then ``ok`` or ``error``."""
    metrics: dict[str, Any] = field(default_factory=dict)
    t_wall_s: float = field(default_factory=time.time)
    """Wall-clock time (epoch seconds) when the record was written."""

    def to_json(self) -> str:
        return json.dumps(asdict(self), sort_keys=True, default=str)


def stage_file(run_dir: Path, stage: str) -> Path:
    return results_dir(run_dir) / f"{stage}.jsonl"


def append_line(path: Path, line: str) -> None:
    """Append one line atomically (one write on an O_APPEND descriptor)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (line.rstrip("\n") + "\n").encode()
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, data)
    finally:
        os.close(fd)


def append_record(run_dir: Path, record: Record) -> None:
    append_line(stage_file(run_dir, record.stage), record.to_json())


def read_records(run_dir: Path, stage: str) -> list[Record]:
    """Read a stage's records; a torn last line (rank killed mid-write) is skipped, not fatal."""
    path = stage_file(run_dir, stage)
    if not path.exists():
        return []
    records: list[Record] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        if not line.strip():
            continue
        try:
            records.append(Record(**json.loads(line)))
        except (json.JSONDecodeError, TypeError):
            continue
    return records


def launch_records(run_dir: Path, launches: set[str]) -> list[Record]:
    """The start and process-group init of every rank of these launches."""
    return [r for r in read_records(run_dir, LAUNCHES) if r.launch in launches]


def with_launch_records(run_dir: Path, records: list[Record], launch: str = "") -> list[Record]:
    """A stage's records after the start records of the launches that ran it (``launch``, and
    any its records name): what each rank did before the stage began, as a stage that had its
    own job would have recorded first."""
    launches = {r.launch for r in records if r.launch} | ({launch} if launch else set())
    return [*launch_records(run_dir, launches), *records] if launches else records


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Read any JSON-lines file, skipping torn lines."""
    if not path.exists():
        return []
    rows: list[dict[str, Any]] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(row, dict):
            rows.append(row)
    return rows


# ---------------------------------------------------------------- a node leaving the run
#
# With one advisor per node (launcher=torchrun/env) each node runs its own host stages, and a
# node whose preflight fails skips the job stages. Its peers would then wait at the next
# rendezvous until the join timeout and could only say that the node never started. So the
# leaving node leaves a note in the shared run directory, and its peers stop waiting and quote it.

LEFT_PREFIX = "left-node"


def announce_leaving(run_dir: Path, node: int, host: str, reason: str) -> None:
    """Tell the other nodes' advisors that this node takes part in no further job."""
    note = {"node": node, "host": host, "reason": reason, "t_wall_s": time.time()}
    path = results_dir(run_dir) / f"{LEFT_PREFIX}{node}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(note), encoding="utf-8")
    tmp.replace(path)  # a peer never reads half a note


def nodes_that_left(run_dir: Path, local_nodes: list[int], since_s: float) -> str:
    """Why other nodes left this run (notes written since ``since_s``), or empty when none did.

    ``since_s`` keeps a note from an earlier run in the same directory (a resumed sweep) from
    stopping this one.
    """
    why = []
    for path in sorted(results_dir(run_dir).glob(f"{LEFT_PREFIX}*.json")):
        try:
            note = json.loads(path.read_text(encoding="utf-8"))
            node, when = int(note["node"]), float(note["t_wall_s"])
        except (OSError, ValueError, KeyError, TypeError):
            continue  # being replaced, or not ours
        if node not in local_nodes and when >= since_s:
            why.append(
                f"node {node} ({note.get('host', '?')}) left the run: {note.get('reason', '')}"
            )
    return "; ".join(why)
