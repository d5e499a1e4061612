"""One typed, JSON-serialisable model of everything a run measured.

Workers write records; each stage summarises its records into its own typed dataclass (documented
beside the stage's code) which is stored, as a plain mapping, in ``StageFacts.data``. The rules,
``facts.json``, the report and ``advisor compare`` all read this one model.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, is_dataclass
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

SCHEMA_VERSION = 1

STAGE_STATUSES = ("ok", "failed", "timeout", "skipped", "error")
"""ok: every rank finished; failed: a rank died or reported an error; timeout: the deadline passed;
skipped: not run (disabled, or an earlier stage made it pointless); error: could not be launched."""

RANK_STATES = ("ok", "died", "error", "hung", "stopped", "not_started")
"""ok: finished; died: the process exited mid-stage; error: raised an error it reported;
hung: still running at the deadline; stopped: ended by the agent after another rank failed;
not_started: never wrote a record (its node or process never came up)."""


@dataclass(kw_only=True)
class RankOutcome:
    rank: int
    node: int
    node_name: str
    host: str
    local_rank: int
    state: str
    """One of RANK_STATES."""
    last_step: str = ""
    """Last step the rank reported starting or finishing."""
    reason: str = ""
    exit_code: int | None = None


@dataclass(kw_only=True)
class StageFacts:
    name: str
    status: str
    """One of STAGE_STATUSES."""
    started_at: float = 0.0
    """Epoch seconds."""
    duration_s: float = 0.0
    deadline_s: float = 0.0
    reason: str = ""
    """Why it failed, timed out or was skipped, naming ranks and hosts."""
    ranks: list[RankOutcome] = field(default_factory=list)
    launch: str = ""
    """The job (launch) that ran it: several stages share one; its ranks' start and
    process-group init are that launch's records (``results/launches.jsonl``)."""
    data: dict[str, Any] = field(default_factory=dict)
    """The stage's own summary (its typed dataclass, as a mapping); partial when cut short."""

    @property
    def failed_ranks(self) -> list[RankOutcome]:
        return [r for r in self.ranks if r.state != "ok"]


@dataclass(kw_only=True)
class RunInfo:
    run_id: str
    run_dir: str
    command: str
    """The command line that started the run (``advisor run ...``)."""
    overrides: list[str] = field(default_factory=list)
    profile: str = ""
    started_at: float = 0.0
    finished_at: float = 0.0
    duration_s: float = 0.0
    emulated: bool = False
    advisor_version: str = ""


@dataclass(kw_only=True)
class EnvironmentFacts:
    host: str = ""
    platform: str = ""
    cpu_count: int = 0
    memory_gib: float = 0.0
    versions: dict[str, str] = field(default_factory=dict)
    variables: dict[str, str] = field(default_factory=dict)
    """Communication-relevant environment variables in effect for the jobs (HCCL_*, NCCL_*,
    GLOO_*, TORCH_*, MASTER_*), after the config's ``env`` overrides."""


@dataclass(kw_only=True)
class LaunchFacts:
    """One job launch: the stages it ran, and what starting its ranks cost.

    Most of a short check's time is ranks starting (torch import, torch_npu and the HCCL
    communicators on Ascend, the rendezvous): the probes share one launch, and a node that takes
    far longer than the others to start its ranks is itself a finding."""

    launch: str
    stages: list[str] = field(default_factory=list)
    ranks: int = 0
    """Ranks that reported their start."""
    start_s: dict[str, float] = field(default_factory=dict)
    """Per rank: seconds from the launcher starting the agents to the rank's process start."""
    init_s: dict[str, float] = field(default_factory=dict)
    """Per rank: seconds in init_process_group."""
    node_ready_s: dict[str, float] = field(default_factory=dict)
    """Per node: median over its ranks of start + init (launch to a working process group)."""
    slowest_node: str = ""
    slowest_node_ready_s: float | None = None
    others_ready_s: float | None = None
    """Median of the other nodes' ``node_ready_s`` (None on one node)."""
    slow_excess_s: float | None = None
    """How much longer the slowest node took than the others' median (None on one node)."""
    slow_ratio: float | None = None
    """The slowest node's time over the others' median (None on one node)."""


@dataclass(kw_only=True)
class Facts:
    schema_version: int = SCHEMA_VERSION
    run: RunInfo
    cluster: dict[str, Any]
    """``advisor.cluster.Cluster.to_dict()`` plus ``ranks`` (placement of every rank)."""
    environment: EnvironmentFacts = field(default_factory=EnvironmentFacts)
    stages: dict[str, StageFacts] = field(default_factory=dict)
    evidence: dict[str, Any] = field(default_factory=dict)
    """Facts imported from files the user already had (benchmark tables, tool outputs, logs)."""
    launches: list[LaunchFacts] = field(default_factory=list)
    """Every job the run launched, with its start cost."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=2, sort_keys=True, default=_json_default)

    def write(self, path: Path) -> None:
        tmp = path.with_suffix(".tmp")
        tmp.write_text(self.to_json(), encoding="utf-8")
        tmp.replace(path)  # a reader never sees a half-written facts.json

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Facts:
        return _FACTS_ADAPTER.validate_python(d)

    @classmethod
    def read(cls, path: Path) -> Facts:
        return cls.from_dict(json.loads(path.read_text(encoding="utf-8")))


_FACTS_ADAPTER = TypeAdapter(Facts)


def _json_default(o: Any) -> Any:
    if is_dataclass(o) and not isinstance(o, type):
        return asdict(o)
    if isinstance(o, Path):
        return str(o)
    if isinstance(o, set | frozenset):
        return sorted(o)
    raise TypeError(f"{type(o).__name__} is not JSON serialisable")


def as_data(summary: Any) -> dict[str, Any]:
    """A stage summary (dataclass or mapping) as the plain mapping stored in StageFacts.data."""
    if summary is None:
        return {}
    if is_dataclass(summary) and not isinstance(summary, type):
        return json.loads(json.dumps(asdict(summary), default=_json_default))
    if isinstance(summary, dict):
        return json.loads(json.dumps(summary, default=_json_default))
    raise TypeError(f"stage summary must be a dataclass or dict, got {type(summary).__name__}")
