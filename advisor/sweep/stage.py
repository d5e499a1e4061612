"""The sweep stage: a driver that runs one distributed training job per trial and keeps the best.

Each trial is a fresh job through the one launcher (torchrun's agent, deadline, diagnosis), so a
communication hook, a bucket size or a native algorithm variable (read at init) really applies.
The search (``advisor.sweep.search``) decides the next trial from what the earlier ones measured.
Every finished trial is appended at once as a ``trial`` record (rank -1) to ``results/sweep.jsonl``:
an interrupted sweep rerun on the same run directory with ``stages.sweep.resume=true`` recalls
them instead of running them again. The summary (best per objective, scaling) is computed from
those records alone, so ``advisor report`` rebuilds it.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import asdict, dataclass, field, replace
from statistics import median
from typing import TYPE_CHECKING, Any

from advisor import console
from advisor.backends import nccl_allreduce_only, nccl_version
from advisor.bench.collectives import summarize as bench_summarize
from advisor.results import read_records
from advisor.stages import Stage
from advisor.sweep import external, search
from advisor.sweep.config import AUTO, SweepConfig, TrialConfig, TrialJob
from advisor.sweep.train import run_rank

if TYPE_CHECKING:
    from advisor.cluster import Cluster
    from advisor.driver import DriverContext
    from advisor.facts import StageFacts
    from advisor.results import Record


def native_envs_for(backend: str, nccl_version: tuple[int, ...] | None = None) -> list[str]:
    """Native algorithm settings tried when ``native_envs`` is not given: the library's adaptive
    choice first, then the algorithms worth forcing for all_reduce (NCCL's for all_reduce alone,
    see ``backends.nccl_allreduce_only``: a global NCCL_ALGO=Tree breaks DDP's broadcast)."""
    if backend == "hccl":
        return ["", "HCCL_ALGO=level0:NA;level1:ring", "HCCL_ALGO=level0:NA;level1:H-D_R"]
    if backend == "nccl":
        return [
            "",
            *(f"NCCL_ALGO={nccl_allreduce_only(a, nccl_version)}" for a in ("Ring", "Tree")),
        ]
    return [""]


@dataclass(kw_only=True)
class TrialResult:
    """One trial as recorded (and as it appears in ``facts.stages.sweep.data.trials``)."""

    id: str
    """Job name of the trial (``t<n>``); its logs are under ``logs/sweep/<id>/``."""
    key: str
    """The settings as one string (memo/resume key, with the world shape)."""
    purpose: str
    """search, reference (fp32 run a precision is compared with) or scaling."""
    config: dict[str, Any]
    """The TrialConfig fields."""
    world_size: int
    nodes: int
    status: str
    """ok, oom (the batch did not fit: the limit), unsupported (precision not available on this
    device), failed (crash, hang, unparseable output) or skipped."""
    samples_per_s: float | None = None
    """Global samples per second (all ranks) over the measured steps."""
    step_s_p50: float | None = None
    step_s_p90: float | None = None
    comm_share: float | None = None
    """Median fraction of a step during which gradient communication was in flight."""
    exposed_comm_share: float | None = None
    """Fraction of a step spent on communication not hidden behind compute: synchronised
    forward+backward minus the same under no_sync, over the step time."""
    peak_mem_bytes: int | None = None
    """Largest peak memory of any rank (device allocator, or process RSS on the CPU)."""
    largest_bucket_bytes: int | None = None
    """Largest gradient bucket handed to the communication hook (bytes before compression)."""
    loss: list[float | None] = field(default_factory=list)
    """Mean loss over ranks at each step (warm-up included); None where not finite."""
    diverged: bool = False
    """Loss not finite, or drifted beyond the tolerance from the fp32 run: never recommended."""
    drift: float | None = None
    """Relative difference of the final-quarter mean loss from the fp32 run at the same batch."""
    error: str = ""
    """Why it failed (with the tail of the job's stderr for a user's command)."""
    duration_s: float = 0.0


@dataclass(kw_only=True)
class SweepEntry:
    """A trial the sweep singles out: a best setting, or the baseline."""

    config: dict[str, Any]
    """The TrialConfig fields."""
    samples_per_s: float | None
    trial: str
    """The trial's id (``TrialResult.id``)."""
    peak_mem_bytes: int | None


@dataclass(kw_only=True)
class ScalingPoint:
    """The recommended setting run at one world size."""

    world_size: int
    nodes: int
    ranks_per_node: int
    samples_per_s: float | None
    efficiency: float | None
    """N-rank samples/s over N x the 1-rank samples/s; None without a 1-rank figure."""
    comm_share: float | None
    status: str
    """As ``TrialResult.status``."""


@dataclass(kw_only=True)
class SweepFacts:
    """Summary of the sweep stage (``facts.stages.sweep.data``)."""

    auto_table: list[list[Any]] = field(default_factory=list)
    """algo:auto's bands (``[min_bytes, max_bytes, algorithm]``), from this run's benchmark."""
    auto_note: str = ""
    """Why algo:auto was left out, when it was."""

    workload: str = ""
    """builtin model (preset name) or the user's command template."""
    search: str = ""
    grid_size: int = 0
    """Trials an exhaustive grid would run."""
    trials: list[TrialResult] = field(default_factory=list)
    """Search and reference trials, in the order they finished."""
    best: dict[str, SweepEntry] = field(default_factory=dict)
    """Per objective: ``throughput`` (highest samples/s), ``throughput_same_batch`` (highest at
    the base batch per rank), ``memory`` (lowest peak memory within 10% of the best throughput).
    Diverged trials never appear."""
    baseline: dict[str, Any] = field(default_factory=dict)
    """Default DDP (``stages.sweep.base``): the SweepEntry fields; empty when it did not train
    (a mapping rather than a SweepEntry, so that facts.json keeps ``{}`` for none)."""
    speedup_vs_baseline: float | None = None
    """Best throughput at the base batch over the baseline's."""
    oom_batch_size: int | None = None
    """Smallest batch per rank that ran out of memory (the limit), if any."""
    max_batch_size_ok: int | None = None
    """Largest batch per rank that trained."""
    diverged: list[str] = field(default_factory=list)
    """Keys of settings flagged diverged."""
    scaling: list[ScalingPoint] = field(default_factory=list)
    """The best setting at each world size, smallest first."""
    largest_bucket_bytes: int | None = None
    """Largest gradient bucket of the recommended setting (an all-reduce message of that size:
    compare with HCCL_BUFFSIZE / NCCL_BUFFSIZE)."""


# ----------------------------------------------------------------------------- aggregation


def _shape(cluster: Cluster) -> str:
    return f"{cluster.nodes}x{cluster.devices_per_node}"


def aggregate(records: list[Record], world_size: int) -> dict[str, Any]:
    """Turn one trial job's rank records into the trial's metrics (status included)."""
    by_step: dict[str, list[Record]] = {}
    for r in records:
        if r.status != "started":
            by_step.setdefault(r.step, []).append(r)
    if "unsupported" in by_step:
        return {"status": "unsupported", "error": by_step["unsupported"][0].metrics["reason"]}
    if "oom" in by_step:
        return {"status": "oom", "error": str(by_step["oom"][0].metrics.get("error", ""))}
    oom_errors = [
        r
        for r in records
        if r.status == "error" and "memory" in str(r.metrics.get("error", "")).lower()
    ]
    train = [r for r in by_step.get("train", []) if r.status == "ok"]
    metrics = [r for r in by_step.get("metrics", []) if r.status == "ok"]
    nosync = {r.rank: r for r in by_step.get("nosync", []) if r.status == "ok"}
    if oom_errors and len(metrics) < world_size:
        return {"status": "oom", "error": str(oom_errors[0].metrics["error"])}
    if len(train) < world_size or len(metrics) < world_size:
        errors = [str(r.metrics.get("error", "")) for r in records if r.status == "error"]
        return {"status": "failed", "error": errors[0] if errors else "ranks did not finish"}
    steps = len(train[0].metrics["step_s"])
    step_s = [max(r.metrics["step_s"][i] for r in train) for i in range(steps)]
    measured_s = max(r.metrics["measured_s"] for r in train)
    samples = sum(r.metrics["samples"] for r in train)
    comm_share, exposed = [], []
    for r in train:
        p50 = median(r.metrics["step_s"])
        comm_share.append(median(r.metrics["comm_span_s"]) / p50 if p50 else 0.0)
        if r.rank in nosync:
            hidden = median(r.metrics["fb_s"]) - median(nosync[r.rank].metrics["nosync_fb_s"])
            exposed.append(max(0.0, hidden) / p50 if p50 else 0.0)
    n_loss = len(train[0].metrics["losses"])
    loss: list[float | None] = []
    for i in range(n_loss):
        at_step = [r.metrics["losses"][i] for r in train]
        finite = all(x is not None and math.isfinite(x) for x in at_step)
        loss.append(sum(at_step) / len(at_step) if finite else None)
    s = sorted(step_s)
    return {
        "status": "ok",
        "samples_per_s": samples / measured_s if measured_s else None,
        "step_s_p50": median(step_s),
        "step_s_p90": s[min(len(s) - 1, math.ceil(0.9 * len(s)) - 1)],
        "comm_share": median(comm_share),
        "exposed_comm_share": median(exposed) if exposed else None,
        "peak_mem_bytes": max(int(r.metrics["peak_mem_bytes"]) for r in metrics),
        "largest_bucket_bytes": max(
            (int(r.metrics.get("largest_bucket_bytes", 0)) for r in metrics), default=0
        )
        or None,
        "loss": loss,
    }


def drift(loss: list[float | None], reference: list[float | None]) -> float | None:
    """Relative difference of the final-quarter mean loss (None when not comparable)."""
    if not loss or len(loss) != len(reference):
        return None
    k = max(1, len(loss) // 4)
    tail, ref_tail = loss[-k:], reference[-k:]
    if any(x is None for x in tail) or any(x is None for x in ref_tail):
        return None
    a = sum(x for x in tail if x is not None) / k
    b = sum(x for x in ref_tail if x is not None) / k
    return abs(a - b) / abs(b) if b else None


# ----------------------------------------------------------------------------- the driver


class Sweep:
    """State of one sweep: memo of finished trials, budget, progress."""

    def __init__(self, ctx: DriverContext, params: SweepConfig) -> None:
        self.ctx = ctx
        self.params = params
        self.auto_table: list[list[Any]] = []
        """algo:auto's bands, from this run's benchmark (empty: no algo:auto trial)."""
        self.results: dict[str, TrialResult] = {}
        self.ran = 0
        self.total = params.max_trials
        self.started = time.monotonic()
        self._next_id = 1 + max(
            (int(m.group(1)) for r in ctx.records() if (m := re.fullmatch(r"t(\d+)", r.job))),
            default=-1,
        )
        if params.resume:
            for r in ctx.records():
                if r.rank == -1 and r.step == "trial":
                    tr = TrialResult(**r.metrics["trial"])
                    self.results[tr.key] = tr
            if self.results:
                console.out.print(
                    f"      resuming: {len(self.results)} finished trials recalled from this "
                    "run directory"
                )

    # The key includes the world shape: the same settings at another world size is another trial.
    def key(self, trial: TrialConfig, cluster: Cluster) -> str:
        return f"{_shape(cluster)}|{trial.key()}"

    def best_score(self) -> float | None:
        scores = [
            r.samples_per_s
            for r in self.results.values()
            if r.status == "ok" and not r.diverged and r.purpose != "scaling" and r.samples_per_s
        ]
        return max(scores) if scores else None

    def run_trial(
        self, trial: TrialConfig, *, purpose: str, cluster: Cluster, counted: bool = True
    ) -> TrialResult:
        key = self.key(trial, cluster)
        if key in self.results:
            return self.results[key]
        if counted and self.ran >= self.total:
            raise search.BudgetExhausted
        if self.ctx.time_left_s < 5:
            raise search.BudgetExhausted
        job = f"t{self._next_id}"
        self._next_id += 1
        t0 = time.monotonic()
        p = self.params
        common: dict[str, Any] = {
            "id": job,
            "key": key,
            "purpose": purpose,
            "config": asdict(trial),
            "world_size": cluster.world_size,
            "nodes": cluster.nodes,
        }
        # the user's own command on every rank, or the built-in model's trial job
        entry = (
            external.command_argv(p.command.template, trial, self.ctx.cfg.launcher.python)
            if p.workload == "command"
            else None
        )
        outcome = self.ctx.launch(
            job,
            TrialJob(trial=trial, model=p.model, auto_table=self.auto_table),
            deadline_s=min(p.trial_deadline_s, self.ctx.time_left_s),
            env=trial.env(),
            cluster=cluster,
            entry=entry,
        )
        if entry:
            result = self._command_result(outcome, job, cluster, common)
        else:
            agg = aggregate(self.ctx.records(job), cluster.world_size)
            if agg["status"] == "failed":
                agg["error"] = outcome.reason or agg["error"]
            result = TrialResult(**common, **agg)
        result.duration_s = time.monotonic() - t0
        if counted:
            self.ran += 1
        if result.status == "ok" and purpose != "scaling":
            self._check_divergence(result, trial, cluster)
        self.results[key] = result
        self.ctx.record("trial", trial=asdict(result))
        self._progress(result)
        return result

    def _command_result(
        self, outcome: StageFacts, job: str, cluster: Cluster, common: dict[str, Any]
    ) -> TrialResult:
        """A command trial's result: the metric from rank 0's stdout, else why not."""
        p = self.params
        log_dir = self.ctx.run_dir / "logs" / "sweep" / job
        stdout_path = external.rank_stream(log_dir, 0, 0, "stdout")
        stdout = stdout_path.read_text(errors="replace") if stdout_path else ""
        metric = external.parse_metric(stdout, p.command) if outcome.status == "ok" else None
        if metric is not None:
            return TrialResult(**common, status="ok", samples_per_s=metric)
        stderr = ""
        for placement in cluster.placements():
            stderr = external.tail(
                external.rank_stream(log_dir, placement.node, placement.local_rank, "stderr")
            )
            if stderr.strip():
                break
        why = outcome.reason or (
            f"no {p.command.metric_regex or p.command.metric!r} metric in rank 0's stdout"
        )
        return TrialResult(**common, status="failed", error=f"{why}; stderr tail:\n{stderr}")

    def _check_divergence(self, result: TrialResult, trial: TrialConfig, cluster: Cluster) -> None:
        if any(x is None for x in result.loss):
            result.diverged = True  # the loss became inf or NaN
            return
        if trial.precision == "fp32" and trial.comm == "fp32":
            return
        ref = self.reference(trial, cluster)
        if ref is None or ref.status != "ok":
            return
        result.drift = drift(result.loss, ref.loss)
        result.diverged = result.drift is not None and result.drift > self.params.loss_tolerance

    def reference(self, trial: TrialConfig, cluster: Cluster) -> TrialResult | None:
        """The fp32 run at the trial's batch (any bucket/view/env: the same arithmetic)."""
        shape = _shape(cluster)
        for r in self.results.values():
            c = r.config
            if (
                r.key.startswith(shape + "|")
                and r.status == "ok"
                and r.purpose != "scaling"
                and c["precision"] == "fp32"
                and c["comm"] == "fp32"
                and c["batch_size"] == trial.batch_size
            ):
                return r
        if self.params.workload == "command":
            return None  # a user's job reports no loss trajectory to compare
        ref = replace(trial, precision="fp32", comm="fp32")
        return self.run_trial(ref, purpose="reference", cluster=cluster)

    def _progress(self, r: TrialResult) -> None:
        elapsed = time.monotonic() - self.started
        per_trial = elapsed / max(1, self.ran)
        left = min(self.ctx.time_left_s, per_trial * max(0, self.total - self.ran))
        speed = f"{r.samples_per_s:.1f} samples/s" if r.samples_per_s else r.status
        flag = " DIVERGED" if r.diverged else ""
        best = self.best_score()
        console.out.print(
            f"      trial {self.ran} of {self.total} ({r.purpose}) {r.key}: {speed}{flag}; "
            f"best so far {best or 0:.1f} samples/s; about {left:.0f} s left"
        )


def space_for(
    params: SweepConfig, backend: str, nccl_version: tuple[int, ...] | None = None
) -> search.Space:
    native = (
        params.native_envs
        if params.native_envs is not None
        else native_envs_for(backend, nccl_version)
    )
    return search.Space(
        batch_sizes=search.batch_ladder(
            params.base.batch_size, params.max_batch_size, params.batch_sizes
        ),
        precisions=list(params.precisions),
        comms=list(params.comms),
        bucket_caps_mb=list(params.bucket_caps_mb),
        gradient_as_bucket_view=list(params.gradient_as_bucket_view),
        native_envs=list(native) or [""],
    )


AUTO_COMM = f"algo:{AUTO}"


def auto_table(ctx: DriverContext) -> list[list[Any]]:
    """algo:auto's table: the all_reduce bands this run's benchmark measured where one of the
    project's algorithms beats the default beyond the noise (``[min_bytes, max_bytes, name]``)."""
    records = read_records(ctx.run_dir, "bench")
    if not records:
        return []
    bench = bench_summarize(records, ctx.cluster, ctx.cfg.stages.bench)
    return [
        [b.min_bytes, b.max_bytes, b.choice]
        for b in bench.bands
        if b.op == "all_reduce" and not b.native
    ]


def scaling_shapes(cluster: Cluster) -> list[tuple[int, int]]:
    """(nodes, ranks per node) for world sizes 1, 2, 4, ... inside a node, then across nodes."""
    g, shapes = cluster.devices_per_node, []
    w = 1
    while w < cluster.world_size:
        if w <= g:
            shapes.append((1, w))
        elif w % g == 0:
            shapes.append((w // g, g))
        w *= 2
    if cluster.nodes > 1:
        shapes.append((cluster.nodes, 1))  # one rank per node: the inter-node link alone
    return sorted(set(shapes), key=lambda s: (s[0] * s[1], s[0]))


def drive(ctx: DriverContext, params: SweepConfig) -> None:
    sweep = Sweep(ctx, params)
    backend = ctx.cluster.backend
    space = space_for(params, backend, nccl_version() if backend == "nccl" else None)
    if params.search == "grid":
        # Every setting, plus the fp32 references when the grid itself has no fp32 run.
        has_reference = "fp32" in space.comms and "fp32" in space.precisions
        sweep.total = space.grid_size() + (0 if has_reference else len(space.batch_sizes))
    if AUTO_COMM in space.comms:
        sweep.auto_table = auto_table(ctx)
        if sweep.auto_table:
            ctx.record("auto_table", table=sweep.auto_table)
        else:
            space.comms.remove(AUTO_COMM)
            note = (
                "algo:auto left out: this run's benchmark found no size where one of the "
                "project's all-reduce algorithms beats the default beyond the noise (or the "
                "bench stage did not run before the sweep)"
            )
            ctx.record("auto_table", table=[], note=note)
            console.out.print(f"      {note}")
    base = search.start(space, params.base)

    def evaluate(trial: TrialConfig) -> search.Outcome:
        r = sweep.run_trial(trial, purpose="search", cluster=ctx.cluster)
        usable = r.status == "ok" and not r.diverged and r.samples_per_s is not None
        return search.Outcome(score=r.samples_per_s if usable else None, oom=r.status == "oom")

    # Extra trials the search asks for (fp32 references) come out of the same budget.
    console.out.print(
        f"      {params.search} search over {space.grid_size()} settings, "
        f"budget {sweep.total} trials, {ctx.time_left_s:.0f} s"
    )
    if params.search == "grid":
        search.grid(space, base, evaluate)
    else:
        search.coordinate_descent(
            space,
            base,
            evaluate,
            passes=params.passes,
            min_gain=params.min_gain,
            plateau=params.plateau,
            binary_search=params.binary_search,
        )
    if params.scaling:
        _scaling(sweep, ctx)


def _scaling(sweep: Sweep, ctx: DriverContext) -> None:
    facts = summarize_trials(list(sweep.results.values()), sweep.params)
    best = facts.best.get("throughput")
    if best is None:
        return
    trial = TrialConfig(**best.config)
    for nodes, per_node in scaling_shapes(ctx.cluster):
        smaller = replace(
            ctx.cluster,
            nodes=nodes,
            devices_per_node=per_node,
            hosts=ctx.cluster.hosts[:nodes],
        )
        try:
            sweep.run_trial(trial, purpose="scaling", cluster=smaller, counted=False)
        except search.BudgetExhausted:
            return


# ----------------------------------------------------------------------------- summary


def _entry(r: TrialResult) -> SweepEntry:
    return SweepEntry(
        config=r.config, samples_per_s=r.samples_per_s, trial=r.id, peak_mem_bytes=r.peak_mem_bytes
    )


def summarize_trials(results: list[TrialResult], params: SweepConfig) -> SweepFacts:
    facts = SweepFacts(
        workload=params.command.template if params.workload == "command" else params.model.preset,
        search=params.search,
    )
    full = [r for r in results if r.purpose != "scaling"]
    facts.trials = full
    usable = [r for r in full if r.status == "ok" and not r.diverged and r.samples_per_s]
    facts.diverged = sorted({r.key for r in full if r.diverged})
    oom = [r.config["batch_size"] for r in full if r.status == "oom"]
    facts.oom_batch_size = min(oom) if oom else None
    ok_batches = [r.config["batch_size"] for r in full if r.status == "ok"]
    facts.max_batch_size_ok = max(ok_batches) if ok_batches else None
    base = asdict(params.base)
    baseline = next((r for r in full if r.config == base and r.status == "ok"), None)
    if baseline is not None:
        facts.baseline = asdict(_entry(baseline))
    if usable:
        top = max(usable, key=lambda r: r.samples_per_s or 0.0)
        facts.best["throughput"] = _entry(top)
        facts.largest_bucket_bytes = top.largest_bucket_bytes
        same = [r for r in usable if r.config["batch_size"] == params.base.batch_size]
        if same:
            top_same = max(same, key=lambda r: r.samples_per_s or 0.0)
            facts.best["throughput_same_batch"] = _entry(top_same)
            if baseline is not None and baseline.samples_per_s:
                facts.speedup_vs_baseline = (top_same.samples_per_s or 0.0) / baseline.samples_per_s
        near = [r for r in usable if (r.samples_per_s or 0.0) >= 0.9 * (top.samples_per_s or 0.0)]
        lean = [r for r in near if r.peak_mem_bytes is not None]
        if lean:
            facts.best["memory"] = _entry(min(lean, key=lambda r: r.peak_mem_bytes or 0))
    scaling = sorted(
        (r for r in results if r.purpose == "scaling"), key=lambda r: (r.world_size, r.nodes)
    )
    if scaling and "throughput" in facts.best:
        top_trial = next(r for r in full if r.id == facts.best["throughput"].trial)
        rows = [*scaling, top_trial]
        one = next((r for r in rows if r.world_size == 1 and r.samples_per_s), None)
        for r in sorted(rows, key=lambda r: (r.world_size, -r.nodes)):
            eff = None
            if one is not None and r.samples_per_s and one.samples_per_s:
                eff = r.samples_per_s / (r.world_size * one.samples_per_s)
            facts.scaling.append(
                ScalingPoint(
                    world_size=r.world_size,
                    nodes=r.nodes,
                    ranks_per_node=r.world_size // max(1, r.nodes),
                    samples_per_s=r.samples_per_s,
                    efficiency=eff,
                    comm_share=r.comm_share,
                    status=r.status,
                )
            )
    return facts


def summarize(records: list[Record], cluster: Cluster, params: SweepConfig) -> SweepFacts:
    results = {}
    for r in records:
        if r.rank == -1 and r.step == "trial":
            tr = TrialResult(**r.metrics["trial"])
            results[tr.key] = tr  # a resumed sweep may record a trial again: keep the last
    facts = summarize_trials(list(results.values()), params)
    facts.grid_size = space_for(params, cluster.backend).grid_size()
    for r in records:
        if r.rank == -1 and r.step == "auto_table":
            facts.auto_table = [list(row) for row in r.metrics.get("table", [])]
            facts.auto_note = str(r.metrics.get("note", ""))
    return facts


STAGE = Stage(
    name="sweep",
    description="training trials: batch size, precision, gradient communication, buckets",
    config_type=SweepConfig,
    job_config_type=TrialJob,
    run_rank=run_rank,
    drive=drive,
    summarize=summarize,
    facts_type=SweepFacts,
)
