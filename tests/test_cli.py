"""The installed CLI end to end: runs, emulation, usage errors, and re-rendering."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
from pathlib import Path

import pytest

from advisor.results import Record
from tests.conftest import REPO, AdvisorResult, only_stages, run_advisor


@pytest.fixture(scope="module")
def default_run(tmp_path_factory: pytest.TempPathFactory) -> AdvisorResult:
    """``advisor run`` with no arguments, as a new user meets it (shared: tests only read it)."""
    return run_advisor([], tmp_path_factory.mktemp("default") / "run")


def test_run_on_this_host_writes_the_run_directory(default_run: AdvisorResult) -> None:
    res = default_run
    assert res.returncode == 0, res.stdout + res.stderr
    run = res.run_dir
    for name in (
        ".hydra/config.yaml",
        "facts.json",
        "report.html",
        "results/smoke.jsonl",
        "results/run.json",
    ):
        assert (run / name).exists(), name
    assert res.stdout.strip().splitlines()[-1] == f"report: {run / 'report.html'}"
    facts = res.facts
    assert facts["cluster"]["backend"] in ("gloo", "nccl", "hccl")
    assert facts["stages"]["smoke"]["status"] == "ok"
    assert facts["environment"]["versions"]["torch"]
    # A first run on a CPU host leaves no rule unevaluated: rules over inputs it did not collect
    # (the sweep, imported evidence) or links it does not have do not apply.
    findings = json.loads((run / "findings.json").read_text())
    assert findings["not_evaluated"] == [], findings["not_evaluated"]
    assert "0 not evaluated" in res.stdout


def test_a_healthy_run_starts_its_ranks_once(default_run: AdvisorResult) -> None:
    """The probes and the benchmark's default job share one launch: one torchrun job per run on
    the healthy path, and its start cost is a fact of its own."""
    facts = default_run.facts
    probes = ["smoke", "connectivity", "topology", "timeouts", "subgroups"]
    launches = {facts["stages"][name]["launch"] for name in probes}
    assert len(launches) == 1 and "" not in launches, launches
    (launch,) = facts["launches"]
    assert launch["launch"] in launches
    assert launch["stages"] == [*probes, "bench"]
    world = facts["cluster"]["world_size"]
    assert launch["ranks"] == world and len(launch["init_s"]) == world
    assert all(v > 0 for v in launch["start_s"].values())
    node = next(iter(launch["node_ready_s"]))
    assert launch["slowest_node"] == node and launch["others_ready_s"] is None  # one node
    bench = json.loads((default_run.run_dir / "results" / "bench.jsonl").read_text().split("\n")[0])
    assert bench["launch"] == launch["launch"] and bench["job"] == "default"


def test_report_reproduces_outputs_from_stored_results(
    default_run: AdvisorResult, tmp_path: Path
) -> None:
    assert default_run.returncode == 0
    run = tmp_path / "run"
    shutil.copytree(default_run.run_dir, run)
    before = (run / "facts.json").read_text()
    (run / "facts.json").unlink()
    (run / "report.html").unlink()
    again = run_advisor([str(run)], command="report")
    assert again.returncode == 0, again.stderr
    assert (run / "facts.json").read_text() == before
    assert (run / "report.html").exists()


def test_report_summarises_the_stage_a_run_was_interrupted_in(
    default_run: AdvisorResult, tmp_path: Path
) -> None:
    """Ctrl-C during a soak: its outcome was never written, its ranks' records were; `advisor
    report` summarises them and says the stage was interrupted."""
    run = tmp_path / "run"
    shutil.copytree(default_run.run_dir, run)
    t0 = time.time()
    lines = [Record(stage="soak", rank=0, node=0, node_name="n0", host="h", local_rank=0,
                    step="begin", metrics={"t0_wall_s": t0}, t_wall_s=t0)]  # fmt: skip
    for t in (1.0, 2.0):
        series = {"all_reduce": {"n": 50, "median_s": 0.002, "max_s": 0.004, "gbps": 3.0}}
        metrics = {"t_start_s": t - 1, "t_end_s": t, "iteration": 50, "series": series}
        lines.append(Record(stage="soak", rank=0, node=0, node_name="n0", host="h", local_rank=0,
                            step="window", metrics=metrics, t_wall_s=t0 + t))  # fmt: skip
    (run / "results" / "soak.jsonl").write_text("".join(r.to_json() + "\n" for r in lines))
    again = run_advisor([str(run)], command="report")
    assert again.returncode == 1, again.stderr  # a stage that did not finish: not ready
    soak = json.loads((run / "facts.json").read_text())["stages"]["soak"]
    assert soak["status"] == "failed" and "interrupted" in soak["reason"]
    assert soak["data"]["elapsed_s"] == 2.0 and not soak["data"]["completed"]
    assert [p["t_s"] for p in soak["data"]["series"][0]["points"]] == [1.0, 2.0]


def test_report_on_a_directory_that_is_not_a_run(tmp_path: Path) -> None:
    res = run_advisor([str(tmp_path)], command="report")
    assert res.returncode == 2
    assert "not an advisor run directory" in res.stderr


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["cluster.hostz=[a]"], "did you mean 'hosts'"),
        (["+cluster=2x9"], "options: 1x8, 2x2, 2x8, 2x8-cuda, 4x8, local"),
        (["cluster.nodes=abc"], "cluster.nodes"),
        (["+cluster=2x8", "cluster.hosts=[a]"], "cluster.hosts lists 1 hosts"),
    ],
)
def test_bad_overrides_exit_2_without_traceback(
    tmp_path: Path, args: list[str], message: str
) -> None:
    res = run_advisor(args, tmp_path / "run")
    assert res.returncode == 2
    assert message in res.stderr + res.stdout
    assert "Traceback" not in res.stderr


def test_declared_npu_cluster_on_cpu_host_exits_2(tmp_path: Path) -> None:
    import importlib.util

    if importlib.util.find_spec("torch_npu") is not None:
        pytest.skip("torch_npu present")
    res = run_advisor(["+cluster=2x8"], tmp_path / "run")
    assert res.returncode == 2
    assert "torch_npu is not installed" in res.stderr and "emulate=true" in res.stderr
    assert not (tmp_path / "run" / "facts.json").exists()


def test_help_lists_config_groups_and_cfg_prints_config(tmp_path: Path) -> None:
    helped = run_advisor(["--help"], tmp_path / "run")
    assert helped.returncode == 0
    for group in ("cluster", "launcher", "profile"):
        assert group in helped.stdout
    cfg = run_advisor(["+cluster=2x8", "--cfg", "job"], tmp_path / "run")
    assert cfg.returncode == 0 and "devices_per_node: 8" in cfg.stdout


def test_unknown_command_is_usage_error() -> None:
    res = run_advisor(["x"], command="frobnicate")
    assert res.returncode == 2 and "unknown command" in res.stderr


def test_output_piped_into_a_reader_that_leaves_early_ends_quietly() -> None:
    # `advisor rules list | head -1`: the pipe closes after one line; no BrokenPipeError
    # traceback, and the exit status a shell gives a command killed by SIGPIPE. The pipe is
    # shrunk to one page so the listing (~20 KB) cannot all fit in it before the reader leaves.
    read_end, write_end = os.pipe()
    fcntl.fcntl(write_end, fcntl.F_SETPIPE_SZ, 4096)
    proc = subprocess.Popen(
        [sys.executable, "-m", "advisor", "rules", "list"],
        stdout=write_end,
        stderr=subprocess.PIPE,
        cwd=REPO,
    )
    os.close(write_end)
    with os.fdopen(read_end, "rb") as reader:
        first = reader.readline()
    stderr = proc.communicate(timeout=60)[1].decode()
    assert proc.returncode == 141, stderr
    assert first.startswith(b"id") and "Traceback" not in stderr, stderr


def test_a_broken_pipe_other_than_stdout_is_not_taken_for_a_reader_leaving() -> None:
    # A BrokenPipeError from a socket (a worker gone) while stdout's reader is still there is a
    # real error: its traceback shows, and the exit status is not SIGPIPE's.
    code = (
        "import advisor.cli as cli\n"
        "def broken(argv):\n"
        "    raise BrokenPipeError(32, 'socket to a worker')\n"
        "cli._main = broken\n"
        "raise SystemExit(cli.main([]))\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert res.returncode == 1 and "socket to a worker" in res.stderr, res.stderr


@pytest.mark.slow
def test_emulated_2x8_runs_16_ranks_on_2_nodes(emulated_2x8: AdvisorResult) -> None:
    res = emulated_2x8
    assert res.returncode == 0, res.stdout + res.stderr
    facts = res.facts
    assert facts["cluster"]["world_size"] == 16 and facts["cluster"]["nodes"] == 2
    assert facts["run"]["emulated"] is True and "EMULATED" in res.stdout
    ranks = facts["stages"]["smoke"]["ranks"]
    assert len(ranks) == 16 and all(r["state"] == "ok" for r in ranks)
    by_node: dict[str, list[int]] = {}
    for r in ranks:
        by_node.setdefault(r["node_name"], []).append(r["rank"])
    assert by_node == {"node0": list(range(8)), "node1": list(range(8, 16))}
    assert facts["stages"]["smoke"]["data"]["all_reduce_ok"] is True


def test_multirun_runs_each_combination(tmp_path: Path) -> None:
    # the smoke stage alone: the point is one run per combination, not what each measures
    res = run_advisor(
        ["-m", "cluster.cpu_ranks=1,2", *only_stages("smoke"), f"hydra.sweep.dir={tmp_path}/multi"],
        command="run",
    )
    assert res.returncode == 0, res.stderr
    facts = sorted((tmp_path / "multi").glob("*/facts.json"))
    assert len(facts) == 2


def test_wheel_ships_the_config_tree(tmp_path: Path) -> None:
    """A non-editable install finds conf/ inside the package."""
    if shutil.which("git") is None:
        pytest.skip("git needed to copy the tree")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(REPO),
        ],
        check=True,
        capture_output=True,
    )
    wheel = next(tmp_path.glob("advisor-*.whl"))
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        assert "advisor/conf/config.yaml" in names and "advisor/conf/cluster/2x8.yaml" in names
        z.extractall(site)
    out = subprocess.run(
        [sys.executable, "-c", "from advisor.paths import conf_dir; print(conf_dir())"],
        env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"},
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    assert Path(out.stdout.strip()) == site / "advisor" / "conf"
