"""Collectives under a compute load: the settings' checks, the idle-vs-loaded arithmetic, and one
real gloo job (2 ranks, small sizes, few rounds) timing all_reduce and all_gather idle and under
two intensities."""

from __future__ import annotations

import time

import pytest
from hydra import compose, initialize_config_dir

from advisor.bench import collectives as bench
from advisor.bench import load
from advisor.config import AdvisorConfig, register, to_typed
from advisor.errors import ConfigError
from advisor.paths import conf_dir
from tests.conftest import AdvisorResult, only_stages, run_advisor


@pytest.mark.parametrize(
    ("override", "key"),
    [
        ({"intensities": [0.5, 1.5]}, "stages.bench.compute_load.intensities"),
        ({"intensities": [-0.1]}, "stages.bench.compute_load.intensities"),
        ({"matrix_size": -1}, "stages.bench.compute_load.matrix_size"),
        ({"period_ms": 0.0}, "stages.bench.compute_load.period_ms"),
        ({"cpu_threads": 0}, "stages.bench.compute_load.cpu_threads"),
        ({"max_slowdown": 0.9}, "stages.bench.compute_load.max_slowdown"),
    ],
)
def test_bad_load_settings_name_the_key(override: dict, key: str) -> None:
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        load.ComputeLoadConfig(**override)


def test_load_ops_are_checked_by_the_bench_config() -> None:
    with pytest.raises(ConfigError, match=r"stages\.bench\.compute_load\.ops: \['sendrecv'\]"):
        bench.BenchConfig(compute_load=load.ComputeLoadConfig(ops=["sendrecv"]))


def test_intensities_zero_or_empty_mean_off_and_repeats_collapse() -> None:
    assert load.ComputeLoadConfig().levels() == []
    assert load.ComputeLoadConfig(intensities=[0.0]).levels() == []
    assert load.ComputeLoadConfig(intensities=[1, 0.5, 0, 0.5]).levels() == [0.5, 1.0]
    cfg = bench.BenchConfig(compute_load=load.ComputeLoadConfig(intensities=[1.0]))
    assert cfg.job().compute_load.levels() == [1.0]
    # a variant job (a native setting) runs no load: the idle comparison is the default job's
    assert cfg.job("probe", {"X": "1"}).compute_load.levels() == []


def _compose(overrides: list[str]) -> AdvisorConfig:
    register()
    with initialize_config_dir(config_dir=str(conf_dir()), version_base="1.3"):
        return to_typed(compose(config_name="config", overrides=overrides))


def test_the_composed_config_takes_intensities_and_refuses_one_outside_the_range() -> None:
    cfg = _compose(["stages.bench.compute_load.intensities=[0.5,1]"])
    assert cfg.stages.bench.compute_load.levels() == [0.5, 1.0]
    assert _compose([]).stages.bench.compute_load.levels() == []  # off by default
    with pytest.raises(ConfigError, match=r"stages\.bench\.compute_load\.intensities: \[2\.0\]"):
        _compose(["stages.bench.compute_load.intensities=[0.5,2]"])


def _result(algorithm: str, idle: float, loaded: float, spread: float = 0.05) -> load.LoadResult:
    return load.LoadResult(
        op="all_reduce",
        dtype="fp32",
        algorithm=algorithm,
        bytes=4096,
        intensity=1.0,
        busy_share=1.0,
        rounds=5,
        idle_us_p50=idle,
        idle_us_p10=idle * (1 - spread),
        idle_us_p90=idle * (1 + spread),
        loaded_us_p50=loaded,
        loaded_us_p10=loaded * (1 - spread),
        loaded_us_p90=loaded * (1 + spread),
        slowdown=loaded / idle,
        beyond_noise=loaded * (1 - spread) > idle * (1 + spread),
    )


def test_the_fastest_idle_algorithm_beaten_under_load_is_named() -> None:
    (choice,) = load.choices([_result("native", 100.0, 400.0), _result("ring", 120.0, 200.0)])
    assert (choice.idle_best, choice.loaded_best, choice.changed) == ("native", "ring", True)
    assert choice.gain == pytest.approx(2.0)
    assert choice.beyond_noise  # ring's p90 (210) is below native's loaded p10 (380)
    close = load.choices([_result("native", 100.0, 200.0), _result("ring", 120.0, 195.0)])
    assert close[0].changed and not close[0].beyond_noise
    same = load.choices([_result("native", 100.0, 150.0), _result("ring", 120.0, 300.0)])
    assert not same[0].changed and same[0].gain == 1.0
    assert load.choices([_result("native", 100.0, 150.0)]) == []  # one algorithm: no choice


def test_a_level_is_taken_up_and_its_phase_summed_before_set_returns() -> None:
    """set() waits for the load thread: a phase as short as one matmul is still run and summed,
    and nothing of it arrives after the level left (a loaded CI host once left a whole level
    unrun: busy_share 0.0 at intensity 1.0)."""
    import torch

    with load.running(torch.device("cpu"), load.ComputeLoadConfig(matrix_size=64)) as matmul:
        for _ in range(20):
            matmul.set(1.0)
            matmul.set(0.5)
            matmul.set(0.0)
            seconds = matmul.take_seconds()
            assert set(seconds) == {0.5, 1.0}, seconds
            assert all(busy > 0 and wall >= busy for busy, wall in seconds.values()), seconds
            time.sleep(0.01)
            assert matmul.take_seconds() == {}  # idle: nothing more was summed


# ---------------------------------------------------------------- one real run


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> AdvisorResult:
    return run_advisor(
        [
            # this host's default cluster: 2 gloo ranks
            *only_stages("bench"),
            "stages.bench.ops=[all_reduce]",
            "stages.bench.dtypes=[fp32]",
            "stages.bench.algorithms=[native,ring]",
            "stages.bench.min_bytes=1024",
            "stages.bench.max_bytes=4096",
            "stages.bench.factor=4",
            "stages.bench.iters=3",
            "stages.bench.warmup_iters=0",
            "stages.bench.native_variants=false",
            "stages.bench.compute_load.intensities=[0.5,1.0]",
            "stages.bench.compute_load.ops=[all_reduce,all_gather]",
            "stages.bench.compute_load.matrix_size=64",
        ],
        tmp_path_factory.mktemp("load") / "run",
        timeout_s=300,
    )


def test_every_op_size_and_intensity_has_idle_and_loaded_times(run: AdvisorResult) -> None:
    assert (run.run_dir / "facts.json").exists(), run.stdout[-3000:] + run.stderr[-3000:]
    stage = run.stage("bench")
    assert stage["status"] == "ok", stage["reason"] + run.stdout[-3000:] + run.stderr[-3000:]
    data = stage["data"]
    got = {(r["op"], r["algorithm"], r["bytes"], r["intensity"]) for r in data["load"]}
    want = {
        (op, algorithm, size, x)
        for op, algorithms in (("all_reduce", ("native", "ring")), ("all_gather", ("native",)))
        for algorithm in algorithms
        for size in (1024, 4096)
        for x in (0.5, 1.0)
    }
    assert got == want
    for r in data["load"]:
        assert r["rounds"] == 3 and r["dtype"] == "fp32"
        assert 0 < r["idle_us_p10"] <= r["idle_us_p50"] <= r["idle_us_p90"]
        assert 0 < r["loaded_us_p10"] <= r["loaded_us_p50"] <= r["loaded_us_p90"]
        assert r["beyond_noise"] == (r["loaded_us_p10"] > r["idle_us_p90"])
    assert data["load_matrix_size"] == 64 and data["load_period_ms"] == 5.0
    assert data["load_max_slowdown"] == 1.5
    # the idle pass of the benchmark still ran, untouched by the load
    assert {r["op"] for r in data["results"]} == {"all_reduce"}


def test_full_load_slowdown_comes_from_the_measured_times(run: AdvisorResult) -> None:
    data = run.stage("bench")["data"]
    full = [r for r in data["load"] if r["intensity"] == 1.0]
    assert full
    for r in full:
        assert r["slowdown"] == pytest.approx(r["loaded_us_p50"] / r["idle_us_p50"])
        # a load asked to be always busy was busy nearly all of its time on every rank
        assert r["busy_share"] > 0.5, r
    # the per-size choice between the two all_reduce algorithms, at both intensities
    choices = {(c["op"], c["bytes"], c["intensity"]) for c in data["load_choices"]}
    assert choices == {("all_reduce", s, x) for s in (1024, 4096) for x in (0.5, 1.0)}


def test_the_slowdown_table_is_printed_and_in_the_report(run: AdvisorResult) -> None:
    assert "under matmul load: slowdown against idle" in run.stdout
    assert "load 0.5" in run.stdout and "load 1" in run.stdout
    html = (run.run_dir / "report.html").read_text(encoding="utf-8")
    assert 'id="bench-load"' in html and "64×64 matmuls" in html
