"""Inputs that cannot run are refused before anything starts, naming the key, the limit and the
fix; an interrupted run still writes what it measured.

Each refusal is checked through the real CLI (exit 2, the message, no traceback, nothing
measured) or the function the CLI calls; the interrupted run is a real emulated run sent SIGINT
once its first job's records are on disk.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
from hydra import compose, initialize_config_dir

from advisor import capacity
from advisor.bench.collectives import BenchConfig, rank_peak_bytes
from advisor.cli import check_overrides
from advisor.cluster import Cluster, ClusterConfig, resolve
from advisor.config import AdvisorConfig, register, to_typed
from advisor.errors import ConfigError
from advisor.evidence.load import load_paths as load_evidence
from advisor.interrupts import ctrl_c_held
from advisor.paths import conf_dir, symlink_loop
from advisor.rules import schema
from tests.conftest import REPO, advisor_cmd, run_advisor

QUICK_S = 120
"""A refusal comes before any job: seconds of interpreter start, far below this."""


def _compose(overrides: list[str]) -> AdvisorConfig:
    register()
    with initialize_config_dir(config_dir=str(conf_dir()), version_base="1.3"):
        return to_typed(compose(config_name="config", overrides=overrides))


def _refused(res_stderr: str, returncode: int, *needles: str) -> None:
    assert returncode == 2, res_stderr
    assert "Traceback" not in res_stderr, res_stderr
    for needle in needles:
        assert needle in res_stderr, (needle, res_stderr)


# ------------------------------------------------------------------ durations


@pytest.mark.parametrize(
    "override",
    [
        "stages.smoke.deadline_s=0",
        "stages.bench.deadline_s=-5",
        "stages.bench.variant_deadline_s=0",
        "stages.topology.deadline_s=0",
        "stages.preflight.deadline_s=0",
        "launcher.join_timeout_s=0",
        "launcher.monitor_interval_s=0",
    ],
)
def test_a_zero_or_negative_duration_is_refused_naming_the_key(override: str) -> None:
    key = override.split("=")[0]
    with pytest.raises(ConfigError, match=rf"{key}=-?\d+: seconds must be more than 0"):
        _compose([override])


def test_zero_where_it_means_not_given_is_kept() -> None:
    cfg = _compose(["stages.timeouts.pg_timeout_s=0", "stages.timeouts.join_timeout_s=0"])
    assert cfg.stages.timeouts.pg_timeout_s == 0
    with pytest.raises(ConfigError, match=r"stages.timeouts.pg_timeout_s=-1: .* 0 or more"):
        _compose(["stages.timeouts.pg_timeout_s=-1"])


def test_zero_deadline_stops_the_run_before_any_stage(tmp_path: Path) -> None:
    res = run_advisor(
        ["+cluster=2x2", "emulate=true", "stages.smoke.deadline_s=0"],
        tmp_path / "run",
        timeout_s=QUICK_S,
    )
    _refused(res.stderr, res.returncode, "stages.smoke.deadline_s=0", "default is 90")
    assert not (tmp_path / "run" / "facts.json").exists()


# ------------------------------------------------------------------ host capacity


def test_an_emulated_cluster_beyond_the_host_is_refused(tmp_path: Path) -> None:
    started = time.monotonic()
    res = run_advisor(["cluster.nodes=100000", "emulate=true"], tmp_path / "run", timeout_s=QUICK_S)
    _refused(
        res.stderr,
        res.returncode,
        "(100000x2, 200000 ranks) cannot run emulated on this host",
        "GiB of memory available",
        "such nodes fit: declare fewer nodes or devices_per_node",
    )
    assert time.monotonic() - started < QUICK_S
    assert not (tmp_path / "run" / "results").exists()


def _cluster(nodes: int, per_node: int) -> Cluster:
    return resolve(ClusterConfig(name="t", nodes=nodes, devices_per_node=per_node), emulate=True)


def _npu_cluster(memory_gib: float) -> Cluster:
    """A real npu cluster as resolve() makes it on an npu host (this host has none)."""
    return Cluster(
        name="t", nodes=2, devices_per_node=8, device_type="npu", declared_device="npu",
        backend="hccl", emulated=False, hosts=["n0", "n1"], master_addr="n0", master_port=0,
        interface="", links={}, device_memory_gib=memory_gib,
    )  # fmt: skip


ROOMY = capacity.Host(available_bytes=64 * 2**30, open_files_limit=1024, threads_limit=100_000)


def test_thread_and_open_file_limits_are_named() -> None:
    found = capacity.problems(_cluster(64, 8), 64, None, ROOMY)
    text = "; ".join(found)
    assert "start about 9,216 threads but this host allows 100,000" not in text  # 576×16 fits
    assert "each gloo rank of a 512-rank world holds about 2,108 open files" in text
    assert "ulimit -n is 1,024: raise it (ulimit -n)" in text
    tight = capacity.Host(available_bytes=64 * 2**30, open_files_limit=-1, threads_limit=1000)
    (only,) = capacity.problems(_cluster(8, 8), 8, None, tight)
    assert only.startswith("64 ranks and 8 agents start about 1,152 threads")
    assert "allows 1,000 more (ulimit -u, /proc/sys/kernel/threads-max)" in only


def test_the_host_is_measured_from_its_limits() -> None:
    host = capacity.Host.measure()
    assert host.available_bytes > 0
    assert host.open_files_limit == -1 or host.open_files_limit >= 64
    # this run of the suite fits: 2x2 with the default bench on this host
    assert capacity.problems(_cluster(2, 2), 2, BenchConfig(), host) == []


# ------------------------------------------------------------------ buffer sizes


def test_bench_peak_follows_the_ops_allocations() -> None:
    s, world = 64 * 2**20, 8
    gather = BenchConfig(
        ops=["all_gather"], dtypes=["fp32"], max_bytes=s, check=False, native_variants=False
    )
    peak, point = rank_peak_bytes(gather, world)
    count = s // 4
    # output S, input S/world, and the int64 index with its remainder while filling
    assert peak == s + s // world + count * (16 + 4)
    assert point == f"all_gather fp32 at S={s}"
    a2a = BenchConfig(ops=["all_to_all"], dtypes=["fp16"], max_bytes=s, native_variants=False)
    assert rank_peak_bytes(a2a, world)[0] == 2 * s + (s // 2) * 24
    # the variant jobs' ops (first dtype, native algorithm) count when they run
    variants = BenchConfig(
        ops=["broadcast"], variant_ops=["all_to_all"], dtypes=["fp64"], max_bytes=s, check=False
    )
    assert rank_peak_bytes(variants, world) == (2 * s + (s // 8) * 24, f"all_to_all fp64 at S={s}")
    variants.native_variants = False
    assert rank_peak_bytes(variants, world)[1] == f"broadcast fp64 at S={s}"


def test_a_buffer_beyond_host_memory_is_refused_with_a_size_that_fits(tmp_path: Path) -> None:
    res = run_advisor(
        ["+cluster=2x2", "emulate=true", "stages.bench.enabled=true",
         "stages.bench.max_bytes=1000000000000"],
        tmp_path / "run",
        timeout_s=QUICK_S,
    )  # fmt: skip
    _refused(
        res.stderr,
        res.returncode,
        "cannot run emulated on this host",
        "the benchmark's",
        "at S=1000000000000",
        "set stages.bench.max_bytes=",
    )
    suggested = int(res.stderr.split("set stages.bench.max_bytes=")[1].split()[0])
    host = capacity.Host.measure()
    bench = _compose([f"stages.bench.max_bytes={suggested}"]).stages.bench
    # the suggestion fits what the host has now (memory moves: allow 10 % more use since)
    roomier = capacity.Host(
        available_bytes=int(host.available_bytes * 1.1),
        open_files_limit=host.open_files_limit,
        threads_limit=host.threads_limit,
    )
    assert capacity.problems(_cluster(2, 2), 2, bench, roomier) == []


def test_device_memory_is_checked_when_declared() -> None:
    bench = BenchConfig(max_bytes=8 * 2**30)
    (only,) = capacity.problems(_npu_cluster(64), 0, bench, ROOMY)
    assert only.startswith("stages.bench.max_bytes=8589934592: ")
    assert "on each device, over cluster.device_memory_gib=64; lower stages.bench.max_bytes" in only
    assert capacity.problems(_npu_cluster(0), 0, bench, ROOMY) == []


# ------------------------------------------------------------------ paths


def _loop(tmp_path: Path) -> Path:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    return tmp_path / "a"


def test_the_link_that_loops_is_the_one_named(tmp_path: Path) -> None:
    loop = _loop(tmp_path)
    assert symlink_loop(loop) == loop
    assert symlink_loop(loop / "deeper" / "file.yaml") == loop
    assert symlink_loop(tmp_path / "absent") is None
    assert symlink_loop(REPO) is None


def test_run_dir_that_cannot_be_written_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a-file").write_text("")
    res = run_advisor(
        ["+cluster=2x2", "emulate=true", f"hydra.run.dir={tmp_path / 'a-file' / 'run'}"],
        timeout_s=QUICK_S,
    )
    _refused(
        res.stderr,
        res.returncode,
        f"run directory {tmp_path / 'a-file' / 'run'} cannot be written",
        "a-file is a file, not a directory",
        "Give hydra.run.dir=DIR in a directory you can write",
    )
    loop = _loop(tmp_path)
    res = run_advisor(
        ["+cluster=2x2", "emulate=true", f"hydra.run.dir={loop}/x/${{now:%H}}"], timeout_s=QUICK_S
    )
    _refused(res.stderr, res.returncode, f"{loop} is a symbolic link loop")


def test_symlink_loops_are_named_as_loops(tmp_path: Path) -> None:
    loop = _loop(tmp_path)
    said = f"is a symbolic link loop ({loop} leads back to itself)"
    checks = [
        (["validate", str(loop)], "rules", f"rule path {loop} {said}"),
        ([str(loop)], "import", f"evidence path {loop} {said}"),
        ([str(loop)], "report", f"run directory {loop} {said}"),
        ([str(loop), str(loop)], "compare", f"run {loop} {said}"),
        (["emulate=true", f"rules.dirs=[{loop}]"], "run", f"rule path {loop} {said}"),
        (["emulate=true", f"evidence=[{loop}]"], "run", f"evidence path {loop} {said}"),
    ]
    for args, command, needle in checks:
        res = run_advisor(args, command=command, timeout_s=QUICK_S)
        _refused(res.stderr, res.returncode, needle)
        assert "does not exist" not in res.stderr


# ------------------------------------------------------------------ interruption


def test_an_interrupted_run_writes_what_it_measured(tmp_path: Path) -> None:
    """SIGINT to a real emulated run once its host stages have ended: exit 130, facts and report
    marked interrupted, the finished stages kept, the rest failed or skipped."""
    run_dir = tmp_path / "run"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    argv = [
        *advisor_cmd(), "run", "+cluster=2x2", "emulate=true", "stages.smoke.deadline_s=600",
        "stages.connectivity.enabled=true", f"hydra.run.dir={run_dir}",
    ]  # fmt: skip
    proc = subprocess.Popen(
        argv,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        # A shell starts background jobs with SIGINT ignored, and the child would inherit that
        # (a suite run with `&` or nohup): give the advisor the Ctrl-C a terminal would.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    stages_file = run_dir / "results" / "stages.jsonl"
    deadline = time.monotonic() + 600
    try:
        # the host stages (preflight, drift) have ended: the run's job is starting, and the
        # interrupt lands in it
        while time.monotonic() < deadline and proc.poll() is None:
            if stages_file.exists() and len(stages_file.read_text().splitlines()) >= 2:
                break
            time.sleep(0.2)
        assert proc.poll() is None, proc.communicate()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    text = out.decode() + err.decode()
    assert proc.returncode == 130, text
    assert "interrupted: writing the facts and the report" in text
    facts = json.loads((run_dir / "facts.json").read_text())
    assert facts["run"]["interrupted"] is True
    ended = [json.loads(line) for line in stages_file.read_text().splitlines()]
    statuses = [row["status"] for row in ended]
    # in run order: the stages that ended, the one stopped, the ones never started
    stopped = statuses.index("failed")
    assert statuses[:stopped] == ["ok"] * stopped and stopped >= 2  # preflight, drift at least
    assert statuses[stopped + 1 :] == ["skipped"] * (len(statuses) - stopped - 1)
    assert ended[stopped]["reason"].startswith("interrupted (Ctrl-C / SIGINT) while this stage")
    assert {n: s["status"] for n, s in facts["stages"].items()} == {
        row["name"]: row["status"] for row in ended
    }
    report = (run_dir / "report.html").read_text()
    assert 'id="interrupted"' in report and "NOT READY" in report
    # no rank of the stopped job outlives the run
    left = subprocess.run(["pgrep", "-f", str(run_dir)], capture_output=True, text=True)
    assert left.stdout.strip() == "", left.stdout
    # `advisor report` rebuilds the same marked run from what is on disk
    again = run_advisor([str(run_dir)], command="report", timeout_s=QUICK_S)
    assert again.returncode == 1, again.stderr
    assert json.loads((run_dir / "facts.json").read_text())["run"]["interrupted"] is True


def test_a_cluster_preset_that_loops_is_named(tmp_path: Path) -> None:
    conf = tmp_path / "conf"
    shutil.copytree(conf_dir(), conf)
    (conf / "cluster" / "mine.yaml").symlink_to(conf / "cluster" / "other.yaml")
    (conf / "cluster" / "other.yaml").symlink_to(conf / "cluster" / "mine.yaml")
    with pytest.raises(ConfigError) as e:
        check_overrides(["+cluster=mine", "emulate=true"], conf)
    assert str(e.value).startswith(
        f"cluster=mine: config file {conf / 'cluster' / 'mine.yaml'} is a symbolic link loop"
    )


def test_a_looping_file_inside_a_directory_is_named(tmp_path: Path) -> None:
    rules, logs = tmp_path / "rules", tmp_path / "logs"
    for folder, name in ((rules, "mine.yaml"), (logs, "train.log")):
        folder.mkdir()
        (folder / name).symlink_to(folder / f"other-{name}")
        (folder / f"other-{name}").symlink_to(folder / name)
    said = "cannot read: a symbolic link loop"
    with pytest.raises(ConfigError, match=rf"mine.yaml: {said}"):
        schema.load_paths([rules])
    evidence = load_evidence([logs])
    (report,) = [f for f in evidence.files if f.path == str(logs / "train.log")]
    assert report.status == "unreadable" and said in report.messages[0].message


def test_a_ctrl_c_while_a_stages_outcome_is_recorded_lands_after_it() -> None:
    """The outcome goes to the statuses, the stages file and the facts together: a SIGINT that
    arrives between two of them (the interrupted-run drill above once saw facts.json miss the
    drift stage that stages.jsonl held) is held back until the recording is done."""
    # Python's own Ctrl-C handler, as a terminal's run has it (a suite started in the
    # background inherits SIGINT ignored: that case is below)
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        recorded = []
        with pytest.raises(KeyboardInterrupt):
            with ctrl_c_held():
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.05)  # the signal is noted here, not raised
                recorded.append("stages file")
                recorded.append("facts")
        assert recorded == ["stages file", "facts"]
        # a run whose Ctrl-C is ignored (started with `&` or nohup) keeps ignoring it
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        with ctrl_c_held():
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, before)
