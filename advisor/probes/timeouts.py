"""The timeouts probe: how long a job takes to come up and to synchronise, against its timeouts.

Measured on every rank: launch to process start (rendezvous), process-group init, the first
collective (where nccl and hccl set up their connections lazily) against a second one, and
``iterations`` barriers with each rank's arrival skew, so stragglers are named with their host.
Read from the job's environment: the documented timeout settings (``advisor.probes.settings``),
so rules can check their ranges, their ordering and their headroom over what was measured.
Every step is entered through the arrival guard (``advisor.probes.guard``): a rank that never
arrives is named, with the step, within ``arrival_timeout_s`` instead of at the stage deadline.
"""

from __future__ import annotations

import math
import os
import statistics
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from advisor.backends import BACKEND_OF
from advisor.errors import ConfigError
from advisor.probes.guard import Guard, Hang, hang_from_records
from advisor.probes.settings import TIMEOUT_SETTINGS, SettingFact, timeout_settings
from advisor.stages import Stage, StageConfig

if TYPE_CHECKING:
    from advisor.cluster import Cluster
    from advisor.results import Record
    from advisor.worker import RankContext

ENV_SETTINGS = [name for name in TIMEOUT_SETTINGS if name.isupper()]
"""The settings read from the environment (the others come from the advisor config)."""


@dataclass(kw_only=True)
class TimeoutsConfig(StageConfig):
    """The timeouts probe's settings (``stages.timeouts``)."""

    deadline_s: float = 90.0
    iterations: int = 5
    """Barriers measured; the skew of each rank is its median over these."""
    arrival_timeout_s: float = 10.0
    """How long ranks wait at each step for the others before naming those that never came."""
    straggler_threshold_s: float = 0.5
    """A rank whose median arrival is this much behind the first rank's is a straggler."""
    pg_timeout_s: float = 0.0
    """Process-group timeout under review (the profiles set it to the run's ``pg_timeout_s``);
    0: not given, torch's default for the backend applies."""
    join_timeout_s: float = 0.0
    """torchrun join timeout under review (the profiles set it to ``launcher.join_timeout_s``);
    0: not given, torchrun's default applies."""

    def __post_init__(self) -> None:
        if self.iterations < 1:
            raise ConfigError(
                f"stages.timeouts.iterations must be at least 1, got {self.iterations}."
            )
        if not 0 < self.arrival_timeout_s <= self.deadline_s - 10:
            raise ConfigError(
                f"stages.timeouts.arrival_timeout_s={self.arrival_timeout_s:g} must be positive "
                f"and at least 10 s below stages.timeouts.deadline_s={self.deadline_s:g}, so a "
                "missing rank is named before the stage is stopped."
            )
        if self.straggler_threshold_s <= 0:
            raise ConfigError(
                "stages.timeouts.straggler_threshold_s must be positive, got "
                f"{self.straggler_threshold_s:g}."
            )


@dataclass(kw_only=True)
class Distribution:
    """Summary of a set of durations, in seconds."""

    p50: float
    p90: float
    max: float
    count: int


def distribution(values: list[float]) -> Distribution | None:
    if not values:
        return None
    ordered = sorted(values)

    def pick(q: float) -> float:
        # Nearest-rank percentile: with a handful of samples interpolation would invent values.
        return ordered[max(0, math.ceil(q * len(ordered)) - 1)]

    return Distribution(p50=pick(0.5), p90=pick(0.9), max=ordered[-1], count=len(ordered))


@dataclass(kw_only=True)
class Straggler:
    rank: int
    node_name: str
    host: str
    skew_s: float
    """Median seconds this rank arrived after the first rank to arrive."""


@dataclass(kw_only=True)
class TimeoutsFacts:
    """Summary of the timeouts probe (facts ``stages.timeouts.data``)."""

    rendezvous_s: Distribution | None = None
    """Over ranks: seconds from the launcher starting the agents to the rank's process start."""
    init_s: Distribution | None = None
    """Over ranks: seconds in init_process_group."""
    first_collective_s: Distribution | None = None
    """Over ranks: the first all_reduce of the process group (lazy connection set-up)."""
    second_collective_s: Distribution | None = None
    """Over ranks: the same all_reduce again (connections already up)."""
    barrier_s: Distribution | None = None
    """Over iterations: barrier latency once every rank has arrived (slowest rank's view)."""
    barrier_skew_s: dict[str, float] = field(default_factory=dict)
    """Per rank: median seconds it arrived after the first rank (0 for the earliest)."""
    stragglers: list[Straggler] = field(default_factory=list)
    """Ranks whose skew exceeds ``straggler_threshold_s``, latest first."""
    settings: dict[str, SettingFact] = field(default_factory=dict)
    """Documented timeout settings as the job saw them (node 0's environment)."""
    settings_backend: str = ""
    """Backend the settings are judged for: the declared device's (hccl for an emulated NPU
    cluster, whose jobs run on gloo here), since that is the cluster being prepared."""
    settings_mismatch: dict[str, dict[str, str]] = field(default_factory=dict)
    """Variables whose text differs between nodes: {VAR: {node_name: text}}."""
    hang: Hang | None = None
    """Set when ranks never reached a step: which ranks, which step."""


def run_rank(ctx: RankContext, params: TimeoutsConfig) -> None:
    from advisor import comm

    guard = Guard(ctx, params.arrival_timeout_s)
    if ctx.local_rank == 0:
        # One record per node: the environments of the nodes can differ (ssh, slurm).
        ctx.record(
            "settings",
            env={name: os.environ[name] for name in ENV_SETTINGS if name in os.environ},
            job_pg_timeout_s=ctx.spec.pg_timeout_s,
        )
    t = comm.ones(256)
    # On nccl/hccl the guard's barrier runs on its own gloo group, so this all_reduce is the first
    # on the backend's communicator, the one that sets up its connections (gloo connects at init).
    for step in ("first_collective", "second_collective"):
        with ctx.step(step) as m:
            guard.arrive(step)
            ctx.sync()
            t0 = time.perf_counter()
            comm.all_reduce(t)
            ctx.sync()
            m["collective_s"] = time.perf_counter() - t0
    for i in range(params.iterations):
        step = f"barrier/{i}"
        with ctx.step(step) as m:
            m["wait_s"] = guard.arrive(step)
            t0 = time.perf_counter()
            comm.barrier()
            ctx.sync()
            m["barrier_s"] = time.perf_counter() - t0


def summarize(records: list[Record], cluster: Cluster, params: TimeoutsConfig) -> TimeoutsFacts:
    facts = TimeoutsFacts()
    ok = [r for r in records if r.status == "ok"]
    facts.rendezvous_s = distribution(
        [float(r.metrics["since_launch_s"]) for r in ok if r.step == "start"]
    )
    facts.init_s = distribution([float(r.metrics["init_s"]) for r in ok if r.step == "init"])
    for step in ("first_collective", "second_collective"):
        values = [float(r.metrics["collective_s"]) for r in ok if r.step == step]
        setattr(facts, f"{step}_s", distribution(values))

    # Skew from how long each rank waited at the guard: the first to arrive waits longest, and
    # everyone leaves together, so lateness = longest wait - own wait. Unlike arrival
    # timestamps this needs no synchronised clocks across hosts.
    waits: dict[str, dict[int, float]] = {}
    latencies: dict[str, list[float]] = {}
    where: dict[int, tuple[str, str]] = {}
    for r in ok:
        if r.step.startswith("barrier/"):
            waits.setdefault(r.step, {})[r.rank] = float(r.metrics["wait_s"])
            latencies.setdefault(r.step, []).append(float(r.metrics["barrier_s"]))
            where[r.rank] = (r.node_name, r.host)
    facts.barrier_s = distribution([max(v) for v in latencies.values()])
    lateness: dict[int, list[float]] = {}
    for per_rank in waits.values():
        longest = max(per_rank.values())
        for rank, wait in per_rank.items():
            lateness.setdefault(rank, []).append(longest - wait)
    skew = {rank: statistics.median(v) for rank, v in sorted(lateness.items())}
    facts.barrier_skew_s = {str(rank): s for rank, s in skew.items()}
    facts.stragglers = sorted(
        (
            Straggler(rank=rank, node_name=where[rank][0], host=where[rank][1], skew_s=s)
            for rank, s in skew.items()
            if s > params.straggler_threshold_s
        ),
        key=lambda s: -s.skew_s,
    )

    envs = {r.node_name: dict(r.metrics.get("env", {})) for r in ok if r.step == "settings"}
    if envs:
        node0 = cluster.node_name(0)
        first = envs[node0] if node0 in envs else envs[min(envs)]
        facts.settings_backend = BACKEND_OF.get(cluster.declared_device, cluster.backend)
        facts.settings = timeout_settings(
            first,
            backend=facts.settings_backend,
            pg_timeout_s=params.pg_timeout_s or None,
            join_timeout_s=params.join_timeout_s or None,
        )
        for name in ENV_SETTINGS:
            texts = {node: env.get(name, "") for node, env in sorted(envs.items())}
            if len(set(texts.values())) > 1:
                facts.settings_mismatch[name] = texts

    facts.hang = hang_from_records(records)
    return facts


STAGE = Stage(
    name="timeouts",
    description="rendezvous, init, first collective and barrier skew against the timeouts",
    config_type=TimeoutsConfig,
    run_rank=run_rank,
    summarize=summarize,
    facts_type=TimeoutsFacts,
)
