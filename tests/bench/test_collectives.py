"""The bench stage: unit checks of its arithmetic and table, and one real emulated run (2 nodes ×
2 gloo ranks) shared by the assertions about its facts and console output."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.bench import collectives as bench
from advisor.cluster import ClusterConfig, resolve
from advisor.errors import ConfigError
from advisor.results import Record
from advisor.stages import STAGE_MODULES
from tests.conftest import AdvisorResult, run_advisor

ALGORITHMS = ["native", "ring", "halving_doubling", "tree", "hierarchical"]


def test_sizes_step_by_the_factor() -> None:
    assert bench.sizes(1024, 16384, 4) == [1024, 4096, 16384]
    assert bench.sizes(1000, 1000, 2) == [1000]


def test_element_count_splits_evenly_where_the_op_splits_the_tensor() -> None:
    assert bench.element_count("all_reduce", 1000, 4, 3) == 250
    assert bench.element_count("all_gather", 1000, 4, 3) == 249
    assert bench.element_count("all_to_all", 4, 4, 8) == 8
    assert bench.element_count("broadcast", 1, 2, 8) == 1


@pytest.mark.parametrize(
    ("op", "factor"),
    [
        ("all_reduce", 2 * 7 / 8),
        ("all_gather", 7 / 8),
        ("reduce_scatter", 7 / 8),
        ("all_to_all", 7 / 8),
        ("broadcast", 1.0),
        ("sendrecv", 1.0),
    ],
)
def test_bus_bandwidth_uses_the_nccl_tests_factors(op: str, factor: float) -> None:
    algbw, busbw = bench.bandwidths_gbps(op, 1_000_000, 1000.0, 8)
    assert algbw == pytest.approx(8.0)  # 1 MB in 1 ms = 8 Gbit/s
    assert busbw == pytest.approx(8.0 * factor)


@pytest.mark.parametrize(
    ("override", "key"),
    [
        ({"ops": ["allreduce"]}, "stages.bench.ops"),
        ({"dtypes": ["fp8"]}, "stages.bench.dtypes"),
        ({"variants": {"t": {"NCCL_ALGO": "Tree"}}}, "stages.bench.variants.t.NCCL_ALGO"),
        ({"algorithms": ["butterfly"]}, "stages.bench.algorithms"),
        ({"min_bytes": 10, "max_bytes": 5}, "min_bytes"),
        ({"factor": 1}, "stages.bench.factor"),
        ({"whatif_shapes": [[4]]}, "stages.bench.whatif_shapes"),
    ],
)
def test_bad_settings_name_the_key(override: dict, key: str) -> None:
    with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
        bench.BenchConfig(**override)


def test_variants_by_backend() -> None:
    cfg = bench.BenchConfig()
    assert bench.variants_of(cfg, "gloo") == {}
    nccl = bench.variants_of(cfg, "nccl")
    # all_reduce alone: a global NCCL_ALGO=Tree leaves broadcast without an algorithm (>= 2.24)
    assert {"NCCL_ALGO": "allreduce:tree", "NCCL_PROTO": "allreduce:ll128"} in nccl.values()
    old = bench.native_variants("nccl", (2, 23, 4))
    assert {"NCCL_ALGO": "Tree", "NCCL_PROTO": "LL128"} in old.values()
    assert bench.native_variants("nccl", (2, 24, 3)) == bench.native_variants("nccl")
    assert any("HCCL_ALGO" in env for env in bench.variants_of(cfg, "hccl").values())
    assert bench.variants_of(bench.BenchConfig(native_variants=False), "hccl") == {}
    # a variant job runs the native algorithm only
    job = cfg.job("hccl-ring")
    assert job.algorithms == ["native"] and job.ops == ["all_reduce"]


def test_a_dtype_the_backend_lacks_is_refused_before_any_job(tmp_path: Path) -> None:
    """HCCL reduces no float64 before the 950: the run stops at once, naming what it takes."""
    res = run_advisor(
        ["+cluster=2x8", "emulate=true", "stages.bench.dtypes=[fp64]"], tmp_path / "run"
    )
    assert res.returncode == 2, res.stdout + res.stderr
    assert "stages.bench.dtypes: hccl (A2) has no all_reduce for float64" in res.stderr
    assert "it takes int8, int16, int32, int64, float16, float32, bfloat16" in res.stderr
    assert not (tmp_path / "run" / "results").exists()  # no job, no stage, not even preflight
    # the same dtype on a gloo cluster is measured
    cfg = bench.BenchConfig(dtypes=["fp64"])
    gloo = resolve(ClusterConfig(nodes=1, devices_per_node=2), emulate=True)
    assert bench.backend_problems(cfg, gloo) == []
    nccl = resolve(ClusterConfig(nodes=1, devices_per_node=2, device="cuda"), emulate=True)
    assert bench.backend_problems(cfg, nccl) == []


def test_table_has_the_nccl_tests_shape() -> None:
    row = bench.BenchResult(
        op="all_reduce",
        dtype="fp32",
        algorithm="ring",
        variant="default",
        in_place=True,
        link="",
        bytes=4096,
        count=1024,
        time_us_p50=100.0,
        time_us_p10=90.0,
        time_us_p90=120.0,
        algbw_gbps=0.32768,
        busbw_gbps=0.49152,
        wrong=0,
    )
    lines = bench.table([row, row]).splitlines()
    assert lines[0].split()[:3] == ["#", "op", "algorithm"] or lines[0].startswith("#")
    assert "busbw" in lines[0] and "#wrong" in lines[0]
    assert "(GB/s)" in lines[1] and "(us)" in lines[1]
    assert len(lines[2]) == len(lines[3])  # fixed-width rows
    assert lines[-1] == "# Avg bus bandwidth    : 0.061 GB/s"
    assert lines[-2].endswith("0 OK")


# ---------------------------------------------------------------- one real run


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> AdvisorResult:
    run_dir = tmp_path_factory.mktemp("bench") / "run"
    return run_advisor(
        [
            # declared npu: the run is strict (every call checked against HCCL's rules)
            "+cluster=2x2",
            "cluster.device=npu",
            "emulate=true",
            "profile=standard",
            "cluster.inter.nominal_gbps=10",
            # only this stage (the probes have their own tests)
            *[f"stages.{s}.enabled={str(s == 'bench').lower()}" for s in STAGE_MODULES],
            "stages.bench.dtypes=[fp32,bf16]",
            "stages.bench.min_bytes=1024",
            "stages.bench.max_bytes=16384",
            "stages.bench.utilisation_min_bytes=16384",
            "stages.bench.iters=2",
            "stages.bench.warmup_iters=0",
            "stages.bench.pipeline_chunk_bytes=2048",
            "stages.bench.deadline_s=400",
            # an explicit native variant (gloo has none of its own): a second, fresh job
            "+stages.bench.variants.probe={TORCH_CPP_LOG_LEVEL:ERROR}",
        ],
        run_dir,
        timeout_s=500,
    )


def test_run_measures_every_op_size_dtype_and_algorithm(run: AdvisorResult) -> None:
    assert (run.run_dir / "facts.json").exists(), run.stdout[-3000:] + run.stderr[-3000:]
    stage = run.stage("bench")
    assert stage["status"] == "ok", stage["reason"] + run.stdout[-3000:] + run.stderr[-3000:]
    results = stage["data"]["results"]
    sizes = {1024, 4096, 16384}
    for op in bench.OPS:
        for dtype in ("fp32", "bf16"):
            got = {
                (r["algorithm"], r["bytes"])
                for r in results
                if r["op"] == op and r["dtype"] == dtype and r["variant"] == "default"
            }
            names = ALGORITHMS if op == "all_reduce" else ["native"]
            # S rounds down to a multiple of the world size for the split ops; 4 ranks divide it
            assert got == {(a, s) for a in names for s in sizes}, (op, dtype, got)
    both = {r["in_place"] for r in results if r["op"] == "all_gather"}
    assert both == {True, False}
    links = {r["link"] for r in results if r["op"] == "sendrecv"}
    assert links == {"intra", "inter"}


def test_every_result_is_correct_and_consistent(run: AdvisorResult) -> None:
    data = run.stage("bench")["data"]
    assert data["wrong_total"] == 0
    for r in data["results"]:
        assert r["wrong"] == 0, r
        assert r["time_us_p10"] <= r["time_us_p50"] <= r["time_us_p90"]
        algbw, busbw = bench.bandwidths_gbps(r["op"], r["bytes"], r["time_us_p50"], 4)
        assert r["algbw_gbps"] == pytest.approx(algbw)
        assert r["busbw_gbps"] == pytest.approx(busbw)


def test_summary_fields(run: AdvisorResult) -> None:
    data = run.stage("bench")["data"]
    assert "all_reduce/hierarchical/bf16" in data["avg_busbw_gbps"]
    assert "sendrecv/inter/fp32" in data["avg_busbw_gbps"]
    assert data["bottleneck_link"] == "inter" and data["bottleneck_gbps"] == 10
    assert data["bottleneck_source"] == "nominal"
    largest = max(
        (
            r
            for r in data["results"]
            if r["op"] == "all_reduce" and r["algorithm"] == "ring" and r["dtype"] == "fp32"
        ),
        key=lambda r: r["bytes"],
    )
    assert data["utilisation"]["all_reduce/ring/fp32"] == pytest.approx(largest["busbw_gbps"] / 10)
    assert data["utilisation_min_bytes"] == 16384 and data["utilisation_note"] == ""
    best = data["best_algorithm"]["all_reduce"]
    assert set(best) == {"1024", "4096", "16384"} and set(best.values()) <= set(ALGORITHMS)
    model = data["model"]
    assert set(model["links"]) == {"intra", "inter"}
    assert model["heldout_median_error"] is not None and model["heldout_points"] > 0
    shapes = {(w["nodes"], w["ranks_per_node"]) for w in data["whatif"]}
    assert shapes == {(4, 8), (16, 8), (64, 8)}
    for shape in shapes:
        rows = [w for w in data["whatif"] if (w["nodes"], w["ranks_per_node"]) == shape]
        assert {w["algorithm"] for w in rows} == set(ALGORITHMS)
        assert sum(w["best"] for w in rows) == 1
        assert all(w["bytes"] == 100_000_000 and w["predicted_ms"] > 0 for w in rows)


def test_console_table_is_printed_by_the_advisor(run: AdvisorResult) -> None:
    out = run.stdout
    assert "# bench default (2x2, gloo)" in out
    assert out.count("# Avg bus bandwidth") == 2  # the default job and the variant's
    assert "# bench probe (2x2, gloo)" in out
    assert "(GB/s)" in out
    table_rows = [line for line in out.splitlines() if line.strip().startswith("all_reduce")]
    assert len(table_rows) == 2 * 3 * len(ALGORITHMS) + 3  # + the variant job's native rows


def test_native_variant_runs_as_its_own_job_with_its_environment(run: AdvisorResult) -> None:
    data = run.stage("bench")["data"]
    assert data["variants"] == {"default": {}, "probe": {"TORCH_CPP_LOG_LEVEL": "ERROR"}}
    assert data["variants_seen"] == {"probe": {"TORCH_CPP_LOG_LEVEL": "ERROR"}}
    assert data["failed_variants"] == {}
    rows = [r for r in data["results"] if r["algorithm"] == "native[probe]"]
    assert {(r["op"], r["dtype"], r["bytes"]) for r in rows} == {
        ("all_reduce", "fp32", s) for s in (1024, 4096, 16384)
    }
    assert all(r["variant"] == "probe" and r["wrong"] == 0 for r in rows)


def test_results_survive_rerendering(run: AdvisorResult, tmp_path: Path) -> None:
    before = run.stage("bench")["data"]
    again = run_advisor([str(run.run_dir)], command="report", timeout_s=120)
    assert again.returncode in (0, 1), again.stderr
    after = AdvisorResult(0, "", "", run.run_dir).stage("bench")["data"]
    assert after["results"] == before["results"]
    assert after["model"]["links"] == before["model"]["links"]


def test_latency_bound_sizes_are_not_judged_against_the_link() -> None:
    """A run whose largest message is small (the quick profile) says so instead of reporting a
    'low utilisation' that only measures latency."""
    cluster = resolve(ClusterConfig(name="1x2", nodes=1, devices_per_node=2), emulate=False)

    def point(nbytes: int, time_us: float) -> Record:
        metrics = {
            "op": "all_reduce", "dtype": "fp32", "algorithm": "native", "in_place": True,
            "bytes": nbytes, "count": nbytes // 4, "time_us_p50": time_us,
            "time_us_p10": time_us, "time_us_p90": time_us, "wrong": 0,
        }  # fmt: skip
        return Record(
            stage="bench", rank=0, node=0, node_name="n0", host="h", local_rank=0,
            step=f"point/{nbytes}", metrics=metrics,
        )  # fmt: skip

    bottleneck = Record(
        stage="bench", rank=-1, node=0, node_name="n0", host="h", local_rank=0,
        step="bottleneck", metrics={"link": "intra", "measured_gbps": 40.0},
    )  # fmt: skip
    records = [point(4096, 50.0), point(262144, 400.0), bottleneck]
    small = bench.summarize(records, cluster, bench.BenchConfig(max_bytes=262144))
    assert small.utilisation == {}
    assert (
        "utilisation_min_bytes" in small.utilisation_note and "262144 B" in small.utilisation_note
    )
    judged = bench.summarize(
        records, cluster, bench.BenchConfig(max_bytes=262144, utilisation_min_bytes=262144)
    )
    busbw = judged.results[-1].busbw_gbps
    assert judged.utilisation == {"all_reduce/native/fp32": pytest.approx(busbw / 40.0)}
    assert judged.utilisation_note == ""
