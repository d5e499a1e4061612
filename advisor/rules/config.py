"""The rule engine's settings (``rules`` in the config): extra rule directories, switches, limits."""

from __future__ import annotations

from dataclasses import dataclass, field

from advisor.errors import ConfigError

SEVERITIES = ("critical", "warning", "info")


@dataclass(kw_only=True)
class RuleParams:
    """Thresholds the built-in rules read as ``params.<name>`` (documented defaults)."""

    connect_timeout_safety_multiple: float = 3.0
    """HCCL_CONNECT_TIMEOUT (and the process-group timeout) should exceed the slowest measured
    process-group init by at least this factor."""
    min_link_utilisation: float = 0.75
    """Measured bandwidth below this fraction of the link's nominal bandwidth is a finding."""
    max_comm_share: float = 0.30
    """A training step spending more than this fraction in communication is a finding."""
    min_scaling_efficiency: float = 0.80
    """Scaling efficiency (throughput per rank against the smallest scale) below this is a
    finding."""
    slow_start_factor: float = 2.0
    """A node whose ranks take this many times the other nodes' time from launch to a working
    process group (and ``slow_start_min_s`` more) is a finding."""
    slow_start_min_s: float = 10.0
    """Seconds a slow-starting node must lag by, so noise on a fast start is no finding."""
    npu_chip: str = ""
    """Ascend chip whose HCCL rules apply (``910``, ``A2``, ``A3``, ``950`` or a chip name such as
    ``910B3``), overriding what the run found (the cluster's declared or detected chip, then the
    chips npu-smi names); rules read the result as ``chip``."""

    def __post_init__(self) -> None:
        if self.connect_timeout_safety_multiple < 1:
            raise ConfigError(
                "rules.params.connect_timeout_safety_multiple must be at least 1, got "
                f"{self.connect_timeout_safety_multiple}."
            )
        for name in ("min_link_utilisation", "max_comm_share", "min_scaling_efficiency"):
            value = getattr(self, name)
            if not 0 < value <= 1:
                raise ConfigError(f"rules.params.{name} must be in (0, 1], got {value}.")


@dataclass(kw_only=True)
class RulesConfig:
    """Which rules run over the facts and with which thresholds (``rules`` key)."""

    builtin: bool = True
    """Load the built-in rules shipped in ``conf/rules/``."""
    dirs: list[str] = field(default_factory=list)
    """Extra directories of rule files (``*.yaml``), loaded after the built-in ones."""
    disabled: list[str] = field(default_factory=list)
    """Rule ids not to evaluate (listed as disabled in findings.json)."""
    severity: dict[str, str] = field(default_factory=dict)
    """Per rule id, a severity replacing the rule's own (critical, warning, info)."""
    params: RuleParams = field(default_factory=RuleParams)
    """Thresholds the rules read."""

    def __post_init__(self) -> None:
        for rule_id, sev in self.severity.items():
            if sev not in SEVERITIES:
                raise ConfigError(
                    f"rules.severity.{rule_id}={sev!r} is not one of {', '.join(SEVERITIES)}."
                )
