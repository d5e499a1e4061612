"""The config schema: dataclasses registered in Hydra's ConfigStore; ``conf/*.yaml`` extend them.

Each component owns its config class beside its code; this module only assembles them, registers
the schema, and converts Hydra's DictConfig to typed objects once, at the boundary.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields, is_dataclass
from pathlib import Path
from typing import Any

from hydra.core.config_store import ConfigStore
from omegaconf import DictConfig, OmegaConf
from omegaconf.errors import OmegaConfBaseException

from advisor.bench.collectives import BenchConfig
from advisor.cluster import ClusterConfig
from advisor.errors import ConfigError
from advisor.faults import FaultConfig
from advisor.flight.settings import FlightConfig
from advisor.isolate.stage import IsolateConfig
from advisor.launch.plan import LauncherConfig
from advisor.paths import missing_path
from advisor.probes.connectivity import ConnectivityConfig
from advisor.probes.drift import DriftConfig
from advisor.probes.preflight import PreflightConfig
from advisor.probes.soak import SoakConfig
from advisor.probes.subgroups import SubgroupsConfig
from advisor.probes.timeouts import TimeoutsConfig
from advisor.probes.topology import TopologyConfig
from advisor.rules.config import RulesConfig
from advisor.smoke import SmokeConfig
from advisor.sweep.config import SweepConfig

SCHEMA_NAME = "advisor_schema"


@dataclass(kw_only=True)
class StagesConfig:
    """Per-stage settings, in execution order; profiles switch them on and off."""

    preflight: PreflightConfig = field(default_factory=PreflightConfig)
    smoke: SmokeConfig = field(default_factory=SmokeConfig)
    connectivity: ConnectivityConfig = field(default_factory=ConnectivityConfig)
    topology: TopologyConfig = field(default_factory=TopologyConfig)
    timeouts: TimeoutsConfig = field(default_factory=TimeoutsConfig)
    subgroups: SubgroupsConfig = field(default_factory=SubgroupsConfig)
    bench: BenchConfig = field(default_factory=BenchConfig)
    sweep: SweepConfig = field(default_factory=SweepConfig)
    drift: DriftConfig = field(default_factory=DriftConfig)
    soak: SoakConfig = field(default_factory=SoakConfig)
    isolate: IsolateConfig = field(default_factory=IsolateConfig)


@dataclass(kw_only=True)
class AdvisorConfig:
    """The whole run's configuration (``advisor run --cfg job`` prints it)."""

    profile: str = "quick"
    """Profile name, set by the ``profile`` group (quick, standard, deep, soak)."""
    emulate: bool = False
    """Run the declared cluster on this host's CPUs with gloo, each rank told its emulated node."""
    strict_emulation: bool = True
    """On an emulated hccl or nccl cluster, refuse every call the real backend would refuse (a
    tensor off the device, a data type or operation it lacks, a wait it would not bound), naming
    the call site; false lets gloo's leniency through."""
    cluster: ClusterConfig = field(default_factory=ClusterConfig)
    launcher: LauncherConfig = field(default_factory=LauncherConfig)
    stages: StagesConfig = field(default_factory=StagesConfig)
    pg_timeout_s: float = 600.0
    """Process-group timeout given to init_process_group in every job (capped by the deadline)."""
    env: dict[str, str] = field(default_factory=dict)
    """Environment variables set for every job (e.g. HCCL_CONNECT_TIMEOUT), on top of the
    advisor's own environment; the facts record what was in effect."""
    faults: list[FaultConfig] = field(default_factory=list)
    """Faults to inject into chosen ranks (testing the advisor, drills)."""
    rules: RulesConfig = field(default_factory=RulesConfig)
    """Rules evaluated over the facts: extra rule directories, disabled ids, thresholds."""
    flight: FlightConfig = field(default_factory=FlightConfig)
    """torch's flight recorder in every job: each rank's recent collectives, dumped and compared
    when a stage fails or nears its deadline."""
    evidence: list[str] = field(default_factory=list)
    """Files or directories of outputs you already have (nccl-tests, hccl_test, npu-smi,
    hccn_tool, rank tables, failure logs) read into ``Facts.evidence`` beside the measurements."""

    def __post_init__(self) -> None:
        if self.pg_timeout_s <= 0:
            raise ConfigError(f"pg_timeout_s must be positive, got {self.pg_timeout_s}.")
        for path in self.evidence:
            if not Path(path).expanduser().exists():
                raise ConfigError(
                    missing_path(
                        Path(path).expanduser(),
                        "evidence path",
                        "give files or directories of saved outputs, e.g. "
                        "evidence=[logs/train.log,hccn/].",
                    )
                )


DURATION_WORDS = ("deadline", "timeout", "interval")
"""A ``*_s`` setting whose name holds one of these bounds a wait: 0 s would end it before it
starts (a stage stopped at launch, a connection never tried) or spin without pause."""
ZERO_MEANS_UNSET = frozenset({"stages.timeouts.pg_timeout_s", "stages.timeouts.join_timeout_s"})
"""Duration keys whose documented 0 means "not given" (the library's default applies)."""


def duration_problems(obj: Any, prefix: str = "") -> list[str]:
    """Every ``*_s`` setting below ``obj`` that cannot be run: a negative duration, or 0 s for a
    deadline, timeout or interval; each names the key, its value and a value that works."""
    problems: list[str] = []
    for f in fields(obj):
        value = getattr(obj, f.name)
        key = f"{prefix}{f.name}"
        if is_dataclass(value):
            problems += duration_problems(value, f"{key}.")
            continue
        if not f.name.endswith("_s") or isinstance(value, bool):
            continue
        if not isinstance(value, int | float):
            continue
        bounds_a_wait = any(word in f.name for word in DURATION_WORDS)
        zero_refused = bounds_a_wait and key not in ZERO_MEANS_UNSET
        if value < 0 or (value == 0 and zero_refused):
            default = f.default if f.default is not MISSING else None
            example = f" (the default is {default:g})" if isinstance(default, int | float) else ""
            need = "more than 0" if zero_refused else "0 or more"
            problems.append(f"{key}={value:g}: seconds must be {need}{example}")
    return problems


def register() -> None:
    ConfigStore.instance().store(name=SCHEMA_NAME, node=AdvisorConfig)


def to_typed(cfg: DictConfig | dict[str, Any]) -> AdvisorConfig:
    """DictConfig → AdvisorConfig, turning validation failures into ConfigError."""
    try:
        base = OmegaConf.structured(AdvisorConfig)
        merged = OmegaConf.merge(base, cfg)
        obj = OmegaConf.to_object(merged)
    except ConfigError:
        raise
    except OmegaConfBaseException as e:
        raise ConfigError(f"invalid configuration: {e}") from e
    except ValueError as e:
        raise ConfigError(str(e)) from e
    assert isinstance(obj, AdvisorConfig)
    problems = duration_problems(obj)
    if problems:
        raise ConfigError(
            "durations that cannot run: "
            + "; ".join(problems)
            + ". A deadline or timeout of 0 s ends the wait before it starts: give the seconds "
            "it may take."
        )
    return obj
