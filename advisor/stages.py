"""What a stage is, and the registry of stages in the order a run executes them.

A *job* stage runs ``run_rank`` on every rank of a distributed job under torchrun's elastic agent
(see ``advisor.launch``); consecutive job stages share one job. A *driver* stage runs in the
advisor process and launches jobs of its own (sweep trials, benchmark variants). A *host* stage
runs once per node in the advisor process itself, before any process group exists (preflight).
Either way the stage writes records to its JSONL file as it goes, and ``summarize`` turns
whatever records exist, complete or cut short, into the stage's typed facts.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from advisor.cluster import Cluster
    from advisor.context import HostContext
    from advisor.driver import DriverContext
    from advisor.results import Record
    from advisor.worker import RankContext


@dataclass(kw_only=True)
class StageConfig:
    """Settings every stage has."""

    enabled: bool = True
    """Run this stage (profiles switch stages on and off)."""
    deadline_s: float = 120.0
    """Wall-clock limit for the whole stage, launch included; past it the stage is stopped and
    the ranks that did not finish are named."""


@dataclass(frozen=True, kw_only=True)
class Stage:
    name: str
    description: str
    config_type: type[StageConfig]
    """The stage's config dataclass (``cfg.stages.<name>``)."""
    summarize: Callable[[list[Record], Cluster, Any], Any]
    """Records (possibly partial) → the stage's typed summary, a ``facts_type``."""
    facts_type: type
    """The dataclass ``summarize`` returns: ``StageFacts.data`` holds one, and reading facts
    back validates the stage's data against it."""
    run_rank: Callable[[RankContext, Any], None] | None = None
    """Job stage: runs on every rank inside an initialised process group."""
    run_host: Callable[[HostContext, Any], None] | None = None
    """Host stage: runs in the advisor process, once per node, before any process group."""
    drive: Callable[[DriverContext, Any], None] | None = None
    """Driver stage: runs in the advisor process and launches several jobs of this stage through
    ``DriverContext.launch`` (sweep trials, benchmark variants that need a fresh process group);
    each job's ranks run ``run_rank`` with that job's parameters."""
    job_config_type: type | None = None
    """Type of the per-job parameters of a driver stage (defaults to ``config_type``)."""
    first_job: Callable[[Any, Cluster], tuple[str, Any, float]] | None = None
    """Driver stage: ``(params, cluster) -> (job name, job config, deadline_s)`` of its first
    job when that job can run in the run's shared job beside the probe stages (the benchmark's
    default job); the driver then runs the rest."""
    check: Callable[[Any, Cluster], list[str]] | None = None
    """Problems with the stage's settings on this cluster that its backend would refuse (a data
    type HCCL lacks ...), found before any job starts; each names the key and the fix."""
    gates_run: bool = False
    """When this stage fails (and its config's ``fail_fast`` is on), the stages after it are
    skipped with its reason: a failed preflight means no job could start, and each would
    otherwise wait for its rendezvous timeout."""

    @property
    def kind(self) -> str:
        if self.drive is not None:
            return "driver"
        return "job" if self.run_rank is not None else "host"


STAGE_MODULES: dict[str, str] = {
    # Execution order. Each module exposes ``STAGE: Stage``; its config class lives beside it.
    "preflight": "advisor.probes.preflight",
    "drift": "advisor.probes.drift",
    "smoke": "advisor.smoke",
    "connectivity": "advisor.probes.connectivity",
    "topology": "advisor.probes.topology",
    "timeouts": "advisor.probes.timeouts",
    "subgroups": "advisor.probes.subgroups",
    "bench": "advisor.bench.collectives",
    "sweep": "advisor.sweep.stage",
    # Last: the time-budgeted soak, in a job of its own, after every quick verdict is in.
    "soak": "advisor.probes.soak",
    # Very last: it reads what every stage before it found (the soak's included).
    "isolate": "advisor.isolate.stage",
}


def get(name: str) -> Stage:
    try:
        module = STAGE_MODULES[name]
    except KeyError:
        raise KeyError(f"unknown stage {name!r}; stages: {', '.join(STAGE_MODULES)}") from None
    stage = importlib.import_module(module).STAGE
    assert isinstance(stage, Stage) and stage.name == name, f"{module}.STAGE must be stage {name}"
    return stage


def names() -> list[str]:
    return list(STAGE_MODULES)
