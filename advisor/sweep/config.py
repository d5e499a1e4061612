"""The sweep's settings: the stage config, one trial's settings, and one trial job's parameters."""

from __future__ import annotations

import re
import shlex
import string
from dataclasses import dataclass, field
from typing import Any

from advisor.backends import native_setting_problems
from advisor.bench.catalog import ALGORITHM_NAMES
from advisor.errors import ConfigError
from advisor.stages import StageConfig

PRECISIONS = ("fp32", "bf16", "fp16")
COMM_KINDS = ("fp32", "fp16", "bf16", "powersgd", "algo")
"""Gradient communication: fp32 all_reduce (DDP's own), fp16/bf16 compression hooks, PowerSGD
(``powersgd:<rank>``, rank of the low-rank approximation), or one of the project's all-reduce
algorithms as a DDP hook (``algo:<name>``: ring, halving_doubling, tree, hierarchical, native;
see ``advisor.bench.algorithms``)."""
AUTO = "auto"
"""``algo:auto``: per gradient bucket, the algorithm the benchmark's per-size bands of this run
name for its size (advisor.tuner.bands); the backend's own all_reduce elsewhere."""
SEARCHES = ("coordinate", "grid")
WORKLOADS = ("builtin", "command")
TEMPLATE_FIELDS = (
    "batch_size",
    "precision",
    "comm",
    "bucket_cap_mb",
    "gradient_as_bucket_view",
    "native_env",
)
"""Placeholders a command template may use (one per trial setting)."""


def check_comm(value: str, key: str) -> None:
    kind, _, arg = value.partition(":")
    if kind not in COMM_KINDS:
        raise ConfigError(
            f"{key}={value!r}: gradient communication must be one of fp32, fp16, bf16, "
            "powersgd:<rank> (e.g. powersgd:4), algo:<name> (e.g. algo:hierarchical)."
        )
    if kind == "powersgd" and not (arg.isdigit() and int(arg) >= 1):
        raise ConfigError(f"{key}={value!r}: give PowerSGD's rank, e.g. powersgd:4.")
    if kind == "algo" and not arg:
        raise ConfigError(f"{key}={value!r}: name the algorithm, e.g. algo:hierarchical.")
    if kind not in ("powersgd", "algo") and arg:
        raise ConfigError(f"{key}={value!r}: only powersgd and algo take an argument.")


def check_algorithms(comms: list[str], key: str) -> None:
    """``algo:<name>`` values name algorithms the project has."""
    for comm in comms:
        kind, _, name = comm.partition(":")
        if kind == "algo" and name not in (*ALGORITHM_NAMES, AUTO):
            raise ConfigError(
                f"{key} has algo:{name}; the project's all-reduce algorithms are "
                f"{', '.join(ALGORITHM_NAMES)}, or {AUTO} (per bucket size, the benchmark's "
                "fastest)."
            )


def check_native_env(value: str, key: str) -> None:
    if value and not re.fullmatch(r"[A-Z][A-Z0-9_]*=\S*", value):
        raise ConfigError(
            f"{key}={value!r}: write the native algorithm setting as VAR=value "
            "(e.g. NCCL_ALGO=allreduce:tree), or '' for the library's own choice."
        )
    problems = native_setting_problems(value)
    if problems:
        raise ConfigError(f"{key}={value!r}: {'; '.join(problems)}.")


@dataclass(kw_only=True)
class TrialConfig:
    """One point of the sweep: the settings a trial trains with."""

    batch_size: int = 8
    """Samples per rank per step."""
    precision: str = "fp32"
    """Compute precision: fp32, or bf16/fp16 autocast."""
    comm: str = "fp32"
    """Gradient communication: fp32, fp16, bf16 (compression hooks), powersgd:<rank> or
    algo:<name> (the project's all-reduce algorithms)."""
    bucket_cap_mb: float = 25.0
    """DDP bucket size (torch's default 25)."""
    gradient_as_bucket_view: bool = False
    """Gradients alias DDP's buckets (saves a copy and the memory of one gradient)."""
    native_env: str = ""
    """The backend's own algorithm choice, VAR=value (HCCL_ALGO=..., NCCL_ALGO=...); '' default."""

    def __post_init__(self) -> None:
        if self.batch_size < 1:
            raise ConfigError(f"trial batch_size must be at least 1, got {self.batch_size}.")
        if self.precision not in PRECISIONS:
            raise ConfigError(
                f"trial precision={self.precision!r} is not one of {', '.join(PRECISIONS)}."
            )
        check_comm(self.comm, "trial comm")
        if self.bucket_cap_mb <= 0:
            raise ConfigError(f"trial bucket_cap_mb must be positive, got {self.bucket_cap_mb}.")
        check_native_env(self.native_env, "trial native_env")

    def key(self) -> str:
        """Identity of the trial's settings (memo and resume key)."""
        gabv = int(self.gradient_as_bucket_view)
        return (
            f"b{self.batch_size}/{self.precision}/{self.comm}/{self.bucket_cap_mb:g}MB/"
            f"gabv{gabv}/{self.native_env or 'native-default'}"
        )

    def env(self) -> dict[str, str]:
        if not self.native_env:
            return {}
        var, _, value = self.native_env.partition("=")
        return {var: value}


@dataclass(kw_only=True)
class ModelConfig:
    """The built-in workload: model size and how a trial trains it."""

    preset: str = "tiny"
    """tiny (CPU tests), small, gpt2, realistic (accelerator clusters), comm_heavy (gradients
    large against compute, for communication benchmarks)."""
    layers: int = 0
    """Transformer blocks; 0 keeps the preset's."""
    hidden: int = 0
    """Hidden size; 0 keeps the preset's."""
    heads: int = 0
    """Attention heads; 0 keeps the preset's."""
    seq_len: int = 0
    """Tokens per sample; 0 keeps the preset's."""
    vocab: int = 0
    """Vocabulary size; 0 keeps the preset's."""
    steps: int = 8
    """Measured training steps (synchronised, as in training)."""
    warmup_steps: int = 2
    """Steps before measuring (allocator, PowerSGD's start, caches)."""
    nosync_steps: int = 3
    """Forward+backward steps under DDP's no_sync (no communication) to measure compute alone."""
    lr: float = 1e-3
    """AdamW learning rate."""
    seed: int = 0
    """Seed of the weights and the token stream (same seed: same data in every trial)."""
    max_memory_bytes: int = 0
    """CPU only: memory a rank may add after start-up (address-space cap, RLIMIT_AS), so an
    out-of-memory is a real failed allocation; 0 = no cap. On accelerators their own memory is
    the limit."""
    drill_loss_scale: float = 1.0
    """Drill: multiply the loss by this before backward and divide the gradients after the
    all-reduce. The same training in exact arithmetic, but gradients that exceed fp16's range
    (65504) make fp16 compression overflow: used to test that a diverging setting is rejected."""

    def __post_init__(self) -> None:
        if self.steps < 2:
            raise ConfigError("stages.sweep.model.steps must be at least 2 (median and p90).")
        if self.warmup_steps < 0 or self.nosync_steps < 1:
            raise ConfigError("stages.sweep.model.warmup_steps must be >= 0 and nosync_steps >= 1.")
        if self.lr <= 0 or self.drill_loss_scale <= 0:
            raise ConfigError("stages.sweep.model.lr and drill_loss_scale must be positive.")
        if self.max_memory_bytes < 0:
            raise ConfigError("stages.sweep.model.max_memory_bytes must be 0 (no cap) or more.")


@dataclass(kw_only=True)
class TrialJob:
    """Parameters of one trial's job (what every rank of it gets)."""

    trial: TrialConfig = field(default_factory=TrialConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    auto_table: list[list[Any]] = field(default_factory=list)
    """For ``algo:auto``: ``[min_bytes, max_bytes, algorithm]`` per band (all_reduce)."""


@dataclass(kw_only=True)
class CommandConfig:
    """The user's own training job as the workload."""

    template: str = ""
    """Command run on every rank, with {batch_size}, {precision}, {comm}, {bucket_cap_mb},
    {gradient_as_bucket_view}, {native_env} filled in per trial, e.g.
    ``python train.py --batch-size {batch_size} --precision {precision}``. Split into words
    (shlex) before filling: it never goes through a shell. A leading ``python`` is the
    launcher's interpreter."""
    metric: str = "samples_per_s"
    """Key of the metric in a JSON line the job prints on stdout (global rank 0), e.g.
    ``{"samples_per_s": 1234.5}``; the last such line counts."""
    metric_regex: str = ""
    """Instead of JSON: a regex whose first group is the metric (last match counts)."""

    def validate(self) -> None:
        if not self.template.strip():
            raise ConfigError(
                "stages.sweep.workload=command needs stages.sweep.command.template, e.g. "
                "'python train.py --batch-size {batch_size} --precision {precision}'."
            )
        try:
            words = shlex.split(self.template)
        except ValueError as e:
            raise ConfigError(f"stages.sweep.command.template cannot be split: {e}.") from e
        for word in words:
            for _, name, _, _ in string.Formatter().parse(word):
                if name is not None and name not in TEMPLATE_FIELDS:
                    raise ConfigError(
                        f"stages.sweep.command.template uses {{{name}}}; placeholders are "
                        f"{', '.join('{' + f + '}' for f in TEMPLATE_FIELDS)}."
                    )
        if self.metric_regex:
            try:
                if re.compile(self.metric_regex).groups < 1:
                    raise ConfigError(
                        "stages.sweep.command.metric_regex needs a group around the number, "
                        r"e.g. 'throughput: ([0-9.]+)'."
                    )
            except re.error as e:
                raise ConfigError(f"stages.sweep.command.metric_regex is invalid: {e}.") from e


@dataclass(kw_only=True)
class SweepConfig(StageConfig):
    """The sweep stage: training trials over batch size, precision and gradient communication."""

    enabled: bool = False
    deadline_s: float = 900.0
    workload: str = "builtin"
    """builtin (the GPT-style model) or command (the user's own job, see ``command``)."""
    model: ModelConfig = field(default_factory=ModelConfig)
    command: CommandConfig = field(default_factory=CommandConfig)
    search: str = "coordinate"
    """coordinate (default: coordinate descent, see ``advisor.sweep.search``) or grid (every
    combination)."""
    max_trials: int = 16
    """Trial budget of the search (fp32 reference runs included); the grid ignores it."""
    passes: int = 2
    """Coordinate descent: passes over the dimensions at most (it stops early when a pass
    changes nothing)."""
    min_gain: float = 0.03
    """A setting replaces the current best only if faster by this fraction (measurement noise)."""
    trial_deadline_s: float = 180.0
    """Wall-clock limit of one trial's job; past it the trial is failed (hung) and the sweep
    goes on."""
    base: TrialConfig = field(default_factory=TrialConfig)
    """Starting point and baseline: default DDP (fp32, 25 MB buckets, native all_reduce)."""
    batch_sizes: list[int] = field(default_factory=list)
    """Batch sizes per rank to try; empty: powers of two from base.batch_size to max_batch_size,
    grown until out-of-memory or a plateau."""
    max_batch_size: int = 64
    """Largest batch per rank tried when growing."""
    plateau: float = 0.05
    """Stop growing the batch when doubling it gains less than this fraction of samples/s."""
    binary_search: bool = False
    """After an out-of-memory, try the batch halfway between the largest that fit and it."""
    precisions: list[str] = field(default_factory=lambda: ["fp32", "bf16", "fp16"])
    comms: list[str] = field(default_factory=lambda: ["fp32", "fp16", "bf16", "powersgd:4"])
    bucket_caps_mb: list[float] = field(default_factory=lambda: [25.0, 5.0, 100.0])
    gradient_as_bucket_view: list[bool] = field(default_factory=lambda: [False, True])
    native_envs: list[str] | None = None
    """Native algorithm settings to try (VAR=value; '' = library default); None: the backend's
    (HCCL_ALGO / NCCL_ALGO variants; gloo has none)."""
    loss_tolerance: float = 0.05
    """A trial whose mean loss over its last quarter of steps differs from the fp32 run's at the
    same batch by more than this fraction (or is not finite) is flagged diverged, never
    recommended."""
    resume: bool = False
    """Reuse the finished trials already in this run directory (rerun with the same
    hydra.run.dir); unfinished ones are run again."""
    scaling: bool = True
    """Measure the best setting at world sizes 1, 2, 4, ... up to the cluster."""

    def __post_init__(self) -> None:
        if self.workload not in WORKLOADS:
            raise ConfigError(
                f"stages.sweep.workload={self.workload!r} is not one of {', '.join(WORKLOADS)}."
            )
        if self.search not in SEARCHES:
            raise ConfigError(
                f"stages.sweep.search={self.search!r} is not one of {', '.join(SEARCHES)}."
            )
        if self.max_trials < 1 or self.passes < 1:
            raise ConfigError("stages.sweep.max_trials and stages.sweep.passes must be >= 1.")
        if self.trial_deadline_s <= 0:
            raise ConfigError("stages.sweep.trial_deadline_s must be positive.")
        if self.max_batch_size < self.base.batch_size:
            raise ConfigError(
                f"stages.sweep.max_batch_size={self.max_batch_size} is below "
                f"base.batch_size={self.base.batch_size}."
            )
        if any(b < 1 for b in self.batch_sizes):
            raise ConfigError("stages.sweep.batch_sizes must all be at least 1.")
        for p in self.precisions:
            if p not in PRECISIONS:
                raise ConfigError(
                    f"stages.sweep.precisions has {p!r}; choose from {', '.join(PRECISIONS)}."
                )
        for c in self.comms:
            check_comm(c, "stages.sweep.comms[]")
        check_algorithms([*self.comms, self.base.comm], "stages.sweep.comms")
        for e in self.native_envs or []:
            check_native_env(e, "stages.sweep.native_envs[]")
        if any(b <= 0 for b in self.bucket_caps_mb):
            raise ConfigError("stages.sweep.bucket_caps_mb must all be positive.")
        if not (self.precisions and self.comms and self.bucket_caps_mb):
            raise ConfigError(
                "stages.sweep.precisions, comms and bucket_caps_mb need at least one value each."
            )
        if self.loss_tolerance <= 0:
            raise ConfigError("stages.sweep.loss_tolerance must be positive.")
        if self.workload == "command" and self.enabled:
            self.command.validate()
