"""The sweep's pure parts: search strategies, command building, metric parsing, aggregation."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import pytest

from advisor.cluster import ClusterConfig, resolve
from advisor.errors import ConfigError
from advisor.results import Record
from advisor.sweep import external, search
from advisor.sweep.config import CommandConfig, SweepConfig, TrialConfig, check_algorithms
from advisor.sweep.stage import aggregate, drift, scaling_shapes

DATA = Path(__file__).resolve().parent / "data"

SPACE = search.Space(
    batch_sizes=[8, 16, 32, 64],
    precisions=["fp32", "bf16", "fp16"],
    comms=["fp32", "fp16", "bf16", "powersgd:4"],
    bucket_caps_mb=[25.0, 5.0, 100.0],
    gradient_as_bucket_view=[False, True],
    native_envs=[""],
)


def synthetic_throughput(t: TrialConfig) -> search.Outcome:
    """A landscape with mostly separable effects, one interaction, an OOM and a diverging point."""
    if t.batch_size >= 64:
        return search.Outcome(score=None, oom=True)
    if t.precision == "fp16" and t.comm == "fp16":
        return search.Outcome(score=None)  # diverged
    comm = {"fp32": 1.0, "fp16": 1.6, "bf16": 1.55, "powersgd:4": 1.9}[t.comm]
    prec = {"fp32": 1.0, "bf16": 1.2, "fp16": 1.25}[t.precision]
    batch = {8: 1.0, 16: 1.5, 32: 1.6, 48: 1.58}[t.batch_size]
    bucket = {25.0: 1.0, 5.0: 0.95, 100.0: 1.08 if t.comm == "fp32" else 1.02}[t.bucket_cap_mb]
    view = 1.03 if t.gradient_as_bucket_view else 1.0
    return search.Outcome(score=100 * comm * prec * batch * bucket * view)


class Counter:
    def __init__(self, fn, budget: int = 10_000) -> None:
        self.fn, self.seen, self.budget = fn, {}, budget

    def __call__(self, t: TrialConfig) -> search.Outcome:
        if t.key() not in self.seen:
            if len(self.seen) >= self.budget:
                raise search.BudgetExhausted
            self.seen[t.key()] = self.fn(t)
        return self.seen[t.key()]


def test_grid_runs_every_setting_and_skips_batches_past_an_oom() -> None:
    ev = Counter(synthetic_throughput)
    search.grid(SPACE, TrialConfig(), ev)
    # 3 precisions x 4 comms x 3 buckets x 2 views, batches 8, 16, 32 and the OOM at 64
    assert len(ev.seen) == 3 * 4 * 3 * 2 * 4
    assert SPACE.grid_size() == len(ev.seen)


def test_coordinate_descent_finds_near_optimum_with_a_third_of_the_grid() -> None:
    grid = Counter(synthetic_throughput)
    search.grid(SPACE, TrialConfig(), grid)
    optimum = max(o.score or 0.0 for o in grid.seen.values())
    ev = Counter(synthetic_throughput)
    best = search.coordinate_descent(SPACE, TrialConfig(), ev, passes=2)
    found = synthetic_throughput(best).score
    assert found is not None and found >= 0.95 * optimum
    assert len(ev.seen) <= len(grid.seen) / 3
    assert not (best.precision == "fp16" and best.comm == "fp16")  # diverged: never adopted


def test_a_single_valued_dimension_is_fixed_at_its_value() -> None:
    """``comms=[powersgd:4]`` (one value, not the default's fp32) means every trial uses it, in
    the grid and in coordinate descent; the other dimensions are still searched."""
    space = replace(SPACE, comms=["powersgd:4"], bucket_caps_mb=[5.0], batch_sizes=[8])
    start = search.start(space, TrialConfig())
    assert (start.comm, start.bucket_cap_mb, start.precision) == ("powersgd:4", 5.0, "fp32")
    for strategy in (search.grid, search.coordinate_descent):
        ev = Counter(synthetic_throughput)
        strategy(space, start, ev)
        tried = {(t.split("/")[2], t.split("/")[3]) for t in ev.seen}
        assert tried == {("powersgd:4", "5MB")}, (strategy.__name__, tried)
        assert len(ev.seen) == (3 * 2 if strategy is search.grid else 1 + 2 + 1)


def test_batch_growth_stops_at_oom_and_bisects() -> None:
    ev = Counter(synthetic_throughput)
    space = replace(SPACE, batch_sizes=[8, 16, 32, 64, 128], comms=["fp32"], precisions=["fp32"])
    space = replace(space, bucket_caps_mb=[25.0], gradient_as_bucket_view=[False])
    best = search.coordinate_descent(space, TrialConfig(), ev, binary_search=True)
    tried = sorted(int(k.split("/")[0][1:]) for k in ev.seen)
    assert 128 not in tried  # nothing past the first out-of-memory
    assert 48 in tried  # the bisection between 32 (fits) and 64 (OOM)
    assert best.batch_size == 32


def test_batch_growth_stops_on_plateau() -> None:
    def flat(t: TrialConfig) -> search.Outcome:
        return search.Outcome(score=100.0 + t.batch_size * 0.01)

    ev = Counter(flat)
    space = replace(SPACE, comms=["fp32"], precisions=["fp32"], bucket_caps_mb=[25.0])
    space = replace(space, gradient_as_bucket_view=[False])
    best = search.coordinate_descent(space, TrialConfig(), ev)
    assert len(ev.seen) == 2 and best.batch_size == 8


def test_search_stops_at_the_budget() -> None:
    ev = Counter(synthetic_throughput, budget=4)
    best = search.coordinate_descent(SPACE, TrialConfig(), ev)
    assert len(ev.seen) == 4
    assert synthetic_throughput(best).score is not None


def test_command_argv_fills_words_never_a_shell() -> None:
    trial = TrialConfig(batch_size=16, precision="bf16", native_env="NCCL_ALGO=allreduce:tree")
    argv = external.command_argv(
        "python 'my train.py' --bs {batch_size} --p={precision} --env {native_env}; rm -rf /",
        trial,
        python="/opt/py",
    )
    assert argv == [
        "/opt/py",
        "my train.py",
        "--bs",
        "16",
        "--p=bf16",
        "--env",
        "NCCL_ALGO=allreduce:tree;",
        "rm",
        "-rf",
        "/",
    ]  # the ';' is just part of a word: no shell ever sees it


def test_a_native_setting_its_library_would_refuse_is_refused() -> None:
    """NCCL_ALGO=Tree alone leaves DDP's broadcast without an algorithm (NCCL >= 2.24)."""
    with pytest.raises(ConfigError, match=r"NCCL_ALGO=allreduce:tree"):
        TrialConfig(native_env="NCCL_ALGO=Tree")
    with pytest.raises(ConfigError, match="unknown level1 algorithm 'fullmesh'"):
        TrialConfig(native_env="HCCL_ALGO=level0:NA;level1:fullmesh")
    assert TrialConfig(native_env="HCCL_ALGO=level0:NA;level1:NHR_V1").native_env


def test_command_template_errors_name_the_key() -> None:
    with pytest.raises(ConfigError, match=r"\{batch\}"):
        CommandConfig(template="python t.py --bs {batch}").validate()
    with pytest.raises(ConfigError, match="template"):
        CommandConfig(template="  ").validate()
    with pytest.raises(ConfigError, match="group"):
        CommandConfig(template="x", metric_regex="tput: [0-9]+").validate()


def test_metric_from_real_script_output() -> None:
    # Captured stdout of tests/data/train_script.py, rank 0, under torchrun (2 ranks).
    stdout = (DATA / "sweep_train_stdout.log").read_text()
    value = external.parse_metric(stdout, CommandConfig(template="x"))
    assert value is not None and value > 0
    regex = CommandConfig(template="x", metric_regex=r'"samples_per_s": ([0-9.e+-]+)')
    assert external.parse_metric(stdout, regex) == pytest.approx(value)
    assert external.parse_metric("training done\n", CommandConfig(template="x")) is None
    assert external.parse_metric('{"samples_per_s": "fast"}\n', CommandConfig(template="x")) is None


def test_trial_and_sweep_config_validation() -> None:
    with pytest.raises(ConfigError, match="powersgd"):
        TrialConfig(comm="powersgd")
    with pytest.raises(ConfigError, match="precision"):
        TrialConfig(precision="fp8")
    with pytest.raises(ConfigError, match="VAR=value"):
        TrialConfig(native_env="nccl algo")
    with pytest.raises(ConfigError, match=r"stages\.sweep\.comms"):
        SweepConfig(comms=["int8"])
    with pytest.raises(ConfigError, match="hierarchical"):
        TrialConfig(comm="algo")
    with pytest.raises(ConfigError, match="ring, halving_doubling"):
        check_algorithms(["algo:hierarchicl"], "stages.sweep.comms")
    check_algorithms(["fp32", "algo:hierarchical", "algo:ring"], "stages.sweep.comms")
    with pytest.raises(ConfigError, match="template"):
        SweepConfig(enabled=True, workload="command")


def _rec(rank: int, step: str, **metrics) -> Record:
    return Record(
        stage="sweep",
        rank=rank,
        node=0,
        node_name="n",
        host="h",
        local_rank=rank,
        step=step,
        job="t0",
        metrics=metrics,
    )


def test_aggregate_and_drift() -> None:
    recs = []
    for rank in (0, 1):
        recs.append(
            _rec(
                rank,
                "train",
                step_s=[0.1, 0.2, 0.1, 0.1],
                fb_s=[0.08] * 4,
                comm_span_s=[0.05] * 4,
                measured_s=0.5,
                samples=32,
                losses=[5.0, 4.0, 3.0, float("nan") if rank else 2.0],
            )
        )
        recs.append(_rec(rank, "nosync", nosync_fb_s=[0.06] * 3))
        recs.append(_rec(rank, "metrics", peak_mem_bytes=100 + rank, largest_bucket_bytes=4096))
    agg = aggregate(recs, 2)
    assert agg["status"] == "ok"
    assert agg["samples_per_s"] == pytest.approx(64 / 0.5)
    assert agg["step_s_p50"] == pytest.approx(0.1) and agg["step_s_p90"] == pytest.approx(0.2)
    assert agg["comm_share"] == pytest.approx(0.5)
    assert agg["exposed_comm_share"] == pytest.approx(0.02 / 0.1)
    assert agg["peak_mem_bytes"] == 101 and agg["largest_bucket_bytes"] == 4096
    assert agg["loss"][:3] == [5.0, 4.0, 3.0] and agg["loss"][3] is None
    assert aggregate(recs[:3], 2)["status"] == "failed"
    assert drift([4.0, 2.2], [4.0, 2.0]) == pytest.approx(0.1)
    assert drift([4.0, None], [4.0, 2.0]) is None
    assert math.isclose(drift([1.0, 2.0], [1.0, 2.0]) or 0.0, 0.0)


def test_scaling_shapes_inside_and_across_nodes() -> None:
    c = resolve(ClusterConfig(name="2x4", nodes=2, devices_per_node=4), emulate=True)
    assert scaling_shapes(c) == [(1, 1), (1, 2), (2, 1), (1, 4)]
    single = resolve(ClusterConfig(cpu_ranks=2), emulate=False)
    assert scaling_shapes(single) == [(1, 1)]
