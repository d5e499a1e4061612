"""One typed, JSON-serialisable model of everything a run measured.

Workers write records; each stage summarises its records into its own typed dataclass (its
``Stage.facts_type``, documented beside the stage's code), held as is in ``StageFacts.data``. The
rules, ``facts.json``, the report and ``advisor compare`` all read this one model.

``facts.json`` is its JSON form. Reading one back validates every part against these types, so a
field that was renamed, misspelt or holds the wrong kind of value is an error naming the file and
the field's path, never a value that silently reads as missing.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Annotated, Any, cast

from pydantic import BeforeValidator, ConfigDict, TypeAdapter, ValidationError

from advisor import __version__, stages
from advisor.cluster import Cluster, LinkClass, RankPlacement
from advisor.errors import ConfigError, invalid_file, validation_problems
from advisor.evidence.load import EvidenceFacts
from advisor.flight.model import FlightFacts
from advisor.plain import dumps_indented, to_plain

SCHEMA_VERSION = 1

STAGE_STATUSES = ("ok", "failed", "timeout", "skipped", "error")
"""ok: every rank finished; failed: a rank died or reported an error; timeout: the deadline passed;
skipped: not run (disabled, or an earlier stage made it pointless); error: could not be launched."""

RANK_STATES = ("ok", "died", "error", "hung", "stopped", "not_started")
"""ok: finished; died: the process exited mid-stage; error: raised an error it reported;
hung: still running at the deadline; stopped: ended by the agent after another rank failed;
not_started: never wrote a record (its node or process never came up)."""

STRICT = ConfigDict(extra="forbid")
"""Every key of a facts file must be a field of its type: a renamed or misspelt field is an
error, not a value dropped on reading. The stdlib dataclasses nested in a validated type have no
pydantic config of their own, so they take this one from the type that holds them."""


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
    flight: FlightFacts | None = None
    """Every rank's flight-recorder buffer compared, when the stage failed or timed out."""
    data: Any = None
    """The stage's own summary, an instance of its ``Stage.facts_type`` (partial when the stage
    was cut short); a plain mapping for a stage this version does not know; None when there is no
    summary (not summarised yet, or the summary failed). JSON writes None as ``{}``."""

    @property
    def failed_ranks(self) -> list[RankOutcome]:
        return [r for r in self.ranks if r.state != "ok"]

    def to_dict(self) -> dict[str, Any]:
        """The JSON form: a line of ``stages.jsonl``, and each stage of ``facts.json``."""
        d: dict[str, Any] = to_plain(self)
        if d["data"] is None:
            d["data"] = {}
        return d


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
    interrupted: bool = False
    """The run was stopped (Ctrl-C, SIGINT) before every planned stage ended: the stage it
    stopped is failed with its partial records, the stages after it skipped."""


@dataclass(kw_only=True)
class ClusterFacts:
    """The cluster a run measured: ``advisor.cluster.Cluster``'s fields, its world size, and
    where every rank was placed."""

    name: str
    nodes: int
    devices_per_node: int
    """0 only for an imported cluster whose files do not tell it."""
    world_size: int
    device_type: str
    """npu, cuda or cpu: what the jobs ran on ('' for an imported cluster of unknown device)."""
    declared_device: str
    backend: str
    emulated: bool
    hosts: list[str]
    master_addr: str
    master_port: int
    interface: str
    links: dict[str, LinkClass]
    chip: str = ""
    ranks: list[RankPlacement] = field(default_factory=list)
    """Placement of every rank (empty for an imported cluster)."""
    imported: bool = False
    """Described by imported files (``advisor import``), not resolved from a cluster config."""
    shape_source: str = ""
    """For an imported cluster, the files its shape (nodes, devices per node, hosts) comes
    from; empty when the files give no shape, or give shapes that disagree: then nodes,
    devices_per_node, world_size and hosts are 0 and empty, not guessed."""

    @classmethod
    def of(cls, cluster: Cluster) -> ClusterFacts:
        """The facts of a resolved cluster, with the placement of every rank."""
        return cls(
            name=cluster.name,
            nodes=cluster.nodes,
            devices_per_node=cluster.devices_per_node,
            world_size=cluster.world_size,
            device_type=cluster.device_type,
            declared_device=cluster.declared_device,
            backend=cluster.backend,
            emulated=cluster.emulated,
            hosts=list(cluster.hosts),
            master_addr=cluster.master_addr,
            master_port=cluster.master_port,
            interface=cluster.interface,
            links=dict(cluster.links),
            chip=cluster.chip,
            ranks=cluster.placements(),
        )

    def to_cluster(self) -> Cluster:
        """The cluster again, for summarising stored results (``advisor report RUN_DIR``)."""
        return Cluster(
            name=self.name,
            nodes=self.nodes,
            devices_per_node=self.devices_per_node,
            device_type=self.device_type,
            declared_device=self.declared_device,
            backend=self.backend,
            emulated=self.emulated,
            hosts=list(self.hosts),
            master_addr=self.master_addr,
            master_port=self.master_port,
            interface=self.interface,
            links=dict(self.links),
            chip=self.chip,
        )


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
    tuner_configs: list[TunerConfigFacts] = field(default_factory=list)
    """The tuner-plugin configs the jobs' environment names (NCCL_TUNER_CONFIG_FILE,
    HCCL_TUNER_CONFIG_FILE), checked as their plugins read them."""


@dataclass(kw_only=True)
class TunerConfigFacts:
    variable: str
    path: str
    format: str = ""
    """nccl or hccl; '' when the file could not be read."""
    rules: int = 0
    errors: list[str] = field(default_factory=list)
    """``<where>: <field>: <message>`` for each problem the plugin would misread or refuse (a
    file that cannot be read is one)."""
    warnings: list[str] = field(default_factory=list)


def _none_when_empty(value: Any) -> Any:
    # facts.json writes "nothing" as {} (as it always has); read back, that is None again
    return None if value == {} else value


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
    __pydantic_config__ = STRICT

    schema_version: int = SCHEMA_VERSION
    run: RunInfo
    cluster: ClusterFacts
    environment: EnvironmentFacts = field(default_factory=EnvironmentFacts)
    stages: dict[str, StageFacts] = field(default_factory=dict)
    evidence: Annotated[EvidenceFacts | None, BeforeValidator(_none_when_empty)] = None
    """Facts imported from files the user already had (benchmark tables, tool outputs, logs) and
    read from the host tools during preflight; None when there are none. JSON writes None as
    ``{}``."""
    launches: list[LaunchFacts] = field(default_factory=list)
    """Every job the run launched, with its start cost."""

    def summary(self, name: str) -> Any:
        """Stage ``name``'s summary (its ``Stage.facts_type``); None when the stage did not run
        in this run or left no summary."""
        sf = self.stages.get(name)
        return None if sf is None else sf.data

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (``facts.json``), as new dicts and lists a caller may change."""
        d = {f.name: to_plain(getattr(self, f.name)) for f in fields(self) if f.name != "stages"}
        d["stages"] = {name: sf.to_dict() for name, sf in self.stages.items()}
        if d["evidence"] is None:
            d["evidence"] = {}
        return d

    def to_json(self, data: dict[str, Any] | None = None) -> str:
        """``facts.json``'s text; ``data``: this facts' ``to_dict()`` when the caller has it."""
        return dumps_indented(
            self.to_dict() if data is None else data, sort_keys=True, default=_json_default
        )

    def write(self, path: Path, data: dict[str, Any] | None = None) -> None:
        """``facts.json`` at ``path``; ``data``: this facts' ``to_dict()`` when the caller has it
        (converting 50,000 imported events twice costs seconds)."""
        tmp = path.with_suffix(".tmp")
        tmp.write_text(self.to_json(data), encoding="utf-8")
        tmp.replace(path)  # a reader never sees a half-written facts.json

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], *, source: str = "facts") -> Facts:
        """Facts from their JSON form, every part validated against its type (each registered
        stage's data against the stage's ``facts_type``; data of an unknown stage stays a
        mapping). ConfigError naming ``source`` and the path of every field that does not fit."""
        problems: list[str] = []
        facts: Facts | None = None
        try:
            facts = _FACTS_ADAPTER.validate_python(d)
        except ValidationError as e:
            problems += validation_problems(source, e)
        summaries = {}
        raw_stages = d.get("stages") if isinstance(d, Mapping) else None
        if isinstance(raw_stages, Mapping):
            for name, raw in raw_stages.items():
                if name not in stages.STAGE_MODULES or not isinstance(raw, Mapping):
                    continue
                try:
                    summaries[name] = summary_of(name, raw.get("data"))
                except ValidationError as e:
                    problems += validation_problems(source, e, ("stages", name, "data"))
        if problems:
            raise invalid_file(
                problems,
                f"Fix: {source} must match the facts types of advisor {__version__}: rebuild a "
                "run's facts.json from its stored results with `advisor report RUN_DIR`, or "
                "correct the fields named above.",
            )
        assert facts is not None
        for name, summary in summaries.items():
            facts.stages[name].data = summary
        return facts

    @classmethod
    def read(cls, path: Path) -> Facts:
        """``facts.json`` at ``path``, validated (see ``from_dict``)."""
        try:
            d = json.loads(path.read_text(encoding="utf-8"))
        except ValueError as e:
            raise ConfigError(
                f"{path}: not JSON ({e}): rebuild it with `advisor report RUN_DIR`."
            ) from e
        return cls.from_dict(d, source=str(path))


def summary_of(name: str, data: Any) -> Any:
    """``data`` validated as registered stage ``name``'s summary; ``{}`` (no summary) is None.

    Raises pydantic's ValidationError, its paths relative to ``data``.
    """
    data = _none_when_empty(data)
    if data is None:
        return None
    return _summary_adapter(stages.get(name).facts_type).validate_python(data)


@functools.cache
def _summary_adapter(facts_type: type) -> TypeAdapter[Any]:
    # One adapter per type, built on first use: building one walks the whole type. The type is
    # a runtime value here, which a static checker cannot read as a type: hence the cast.
    return TypeAdapter(cast(Any, facts_type | None), config=STRICT)


_FACTS_ADAPTER = TypeAdapter(Facts)


def _json_default(o: Any) -> Any:
    if isinstance(o, Path):
        return str(o)
    if isinstance(o, set | frozenset):
        return sorted(o)
    raise TypeError(f"{type(o).__name__} is not JSON serialisable")
