"""What the launcher tells every rank of a job: the stages to run, in order, and how.

Written as JSON in the run directory (``jobs/<launch>.json``) and read by ``advisor.worker``.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


@dataclass(kw_only=True)
class StageSpec:
    """One stage of a job (or one job of a driver stage: a benchmark variant, a sweep trial)."""

    stage: str
    params: dict[str, Any]
    """The stage's config (or, for a driver stage's job, the job's), as plain data."""
    job: str = ""
    """Job name within a driver stage; tags every record of it."""


@dataclass(kw_only=True)
class JobSpec:
    launch: str
    """Id of this launch (``L1``, ``L2`` ...); tags every record the job writes."""
    stages: list[StageSpec]
    run_dir: str
    cluster: dict[str, Any]
    pg_timeout_s: float
    launched_at: float
    """Epoch seconds when the launcher started the agents (for rendezvous time)."""
    faults: list[dict[str, Any]] = field(default_factory=list)
    strict: bool = True
    """On an emulated hccl/nccl cluster, refuse what the real backend would (advisor.comm)."""
    flight: bool = False
    """Dump each rank's flight-recorder buffer when asked or when its stage fails."""
    flight_wait_s: float = 3.0
    """How long a failed rank waits for its peers' dumps before it exits."""

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(asdict(self), indent=2, sort_keys=True), encoding="utf-8")

    @classmethod
    def read(cls, path: Path) -> JobSpec:
        raw = json.loads(path.read_text(encoding="utf-8"))
        raw["stages"] = [StageSpec(**s) for s in raw["stages"]]
        return cls(**raw)
