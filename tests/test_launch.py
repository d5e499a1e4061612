"""The launcher: torchrun agents per node, deadlines, and naming the rank that broke a stage."""

from __future__ import annotations

import json
import time
from pathlib import Path

import psutil
import pytest

from advisor import stages
from advisor.cluster import ClusterConfig, resolve
from advisor.launch.commands import agent_argv, wrap_for_node
from advisor.launch.diagnose import parse_agent_failures
from advisor.launch.plan import LauncherConfig, LaunchPlan
from tests.conftest import DATA, only_stages


def test_parses_torchrun_failure_summary() -> None:
    text = (DATA / "torchrun_child_failed.log").read_text()
    # Rank 1 is the root cause; rank 0 was ended by the agent with SIGTERM and is not a failure.
    assert parse_agent_failures(text) == {1: 13}


def test_agent_argv_static_and_c10d() -> None:
    cluster = resolve(
        ClusterConfig(name="t", nodes=2, devices_per_node=2, device="cpu"), emulate=True
    )
    plan = LaunchPlan.make(LauncherConfig(), cluster, environ={})
    # two ranks a node: one new interpreter per rank, torchrun itself (as on devices)
    argv = agent_argv(LauncherConfig(), plan, 1, 29500, Path("spec.json"), "rid")
    assert argv[1:3] == ["-m", "torch.distributed.run"]
    assert "--nnodes=2" in argv and "--nproc-per-node=2" in argv and "--node-rank=1" in argv
    assert argv[-4:] == ["-m", "advisor.worker", "--spec", "spec.json"]
    # asked for (or from FORK_MIN_RANKS_PER_NODE ranks a node on CPUs): forked from a server that
    # imported torch (advisor.launch.agent)
    forked = LauncherConfig(rank_start="forkserver")
    argv = agent_argv(forked, plan, 1, 29500, Path("spec.json"), "rid")
    assert argv[1:3] == ["-m", "advisor.launch.agent"] and "--nproc-per-node=2" in argv
    assert argv[-2:] == ["--spec", "spec.json"]
    wide = resolve(ClusterConfig(name="t", nodes=2, devices_per_node=8, device="cpu"), emulate=True)
    wide_plan = LaunchPlan.make(LauncherConfig(), wide, environ={})
    argv = agent_argv(LauncherConfig(), wide_plan, 0, 29500, Path("spec.json"), "rid")
    assert argv[1:3] == ["-m", "advisor.launch.agent"]
    c10d = agent_argv(LauncherConfig(rdzv_backend="c10d"), plan, 1, 29500, Path("s"), "rid")
    assert "--rdzv-backend=c10d" in c10d and "--rdzv-id=rid" in c10d


def test_ssh_command_quotes_every_word() -> None:
    cluster = resolve(
        ClusterConfig(name="t", nodes=2, devices_per_node=1, device="cpu", hosts=["h0", "h1"]),
        emulate=False,
    )
    launcher = LauncherConfig(kind="ssh")
    plan = LaunchPlan.make(launcher, cluster, environ={})
    argv = wrap_for_node(
        launcher, plan, 1, ["python", "-c", "print('a; rm -rf /')"], {"NCCL_X": "1 2"}
    )
    assert argv[:3] == ["ssh", "-p", "22"] and "h1" in argv
    assert argv[-1].endswith("'print('\"'\"'a; rm -rf /'\"'\"')'")
    assert "'NCCL_X=1 2'" in argv[-1]


def test_ssh_forwards_the_visible_devices() -> None:
    """Which devices a node's ranks see travels with them (CUDA_VISIBLE_DEVICES has no prefix
    the other forwarded variables share); unrelated variables stay home."""
    cluster = resolve(
        ClusterConfig(name="t", nodes=2, devices_per_node=1, device="cpu", hosts=["h0", "h1"]),
        emulate=False,
    )
    env = {"CUDA_VISIBLE_DEVICES": "4,5", "ASCEND_RT_VISIBLE_DEVICES": "0,1", "SECRET": "x"}
    launcher = LauncherConfig(kind="ssh")
    plan = LaunchPlan.make(launcher, cluster, environ={})
    remote = wrap_for_node(launcher, plan, 0, ["true"], env)[-1]
    assert "CUDA_VISIBLE_DEVICES=4,5" in remote and "ASCEND_RT_VISIBLE_DEVICES=0,1" in remote
    assert "SECRET" not in remote


def _no_workers_left(run_dir: Path) -> bool:
    """No rank of this run is alive (each wrote its pid in its start record; a forked rank's
    command line is its fork server's) and no agent of it (agents name the run's job spec)."""
    records = map(json.loads, (run_dir / "results" / "launches.jsonl").read_text().splitlines())
    pids = [r["metrics"]["pid"] for r in records if r["step"] == "start"]
    assert pids, "no rank recorded its start"
    alive = [pid for pid in pids if psutil.pid_exists(pid) and _not_zombie(pid)]
    cmdlines = (" ".join(p.info["cmdline"] or []) for p in psutil.process_iter(["cmdline"]))
    agents = [c for c in cmdlines if "-m advisor.launch.agent" in c or "torch.distributed.run" in c]
    agents = [c for c in agents if str(run_dir) in c]
    return not alive and not agents


def _not_zombie(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


SMOKE_ONLY = [f"stages.{name}.enabled=false" for name in stages.names() if name != "smoke"]


# both ways an agent starts its ranks (launcher.rank_start): the stop and the naming must not
# depend on it (a forked rank is a grandchild of its agent, below the fork server)
RANK_STARTS = pytest.mark.parametrize("rank_start", ["process", "forkserver"])


@RANK_STARTS
def test_a_healthy_job_ends_on_its_own_and_the_cli_leaves_nothing_running(
    advisor, rank_start: str
) -> None:
    # The job's agents exit on their own while the run writes its rules and report; the CLI
    # waits for them before it exits (never a SIGTERM to a healthy job's agent).
    res = advisor([*SMOKE_ONLY, f"launcher.rank_start={rank_start}"])
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stage("smoke")["status"] == "ok"
    assert _no_workers_left(res.run_dir)
    (log,) = (res.run_dir / "logs" / "smoke").glob("node*.log")
    assert "death signal" not in log.read_text(), log.read_text()[-2000:]


@RANK_STARTS
def test_rank_sleeping_past_deadline_is_stopped_and_named(advisor, rank_start: str) -> None:
    # start-up included, as the hung smoke stages of tests/test_flight.py (whose 4 ranks start
    # within about 5 s on the 2-core host)
    deadline_s = 15
    t0 = time.monotonic()
    res = advisor(
        [
            *SMOKE_ONLY,
            f"stages.smoke.deadline_s={deadline_s}",
            "+faults=[{stage:smoke,rank:1,kind:hang,step:barrier}]",
            # Only the hung stage: the whole CLI's time is bounded below.
            *only_stages("smoke"),
            f"launcher.rank_start={rank_start}",
        ]
    )
    elapsed = time.monotonic() - t0
    assert res.returncode == 1, res.stderr
    smoke = res.stage("smoke")
    # The waiting rank's collective times out just before the deadline (the process-group
    # timeout is capped under it), so the stage ends either way: at the deadline, or failed.
    assert smoke["status"] in ("timeout", "failed")
    assert smoke["duration_s"] <= deadline_s + 15
    assert elapsed <= deadline_s + 30  # whole CLI, interpreter start-up and report included
    states = {r["rank"]: r for r in smoke["ranks"]}
    assert states[1]["state"] == "hung" and "never arrived at step 'barrier'" in states[1]["reason"]
    assert states[0]["state"] == "stopped" and "waiting in step 'barrier'" in states[0]["reason"]
    assert "rank 1" in smoke["reason"]
    assert _no_workers_left(res.run_dir)


@RANK_STARTS
def test_rank_exiting_mid_stage_is_named_and_others_results_kept(advisor, rank_start: str) -> None:
    res = advisor(
        [
            *SMOKE_ONLY,
            "+faults=[{stage:smoke,rank:1,kind:exit,step:all_reduce}]",
            f"launcher.rank_start={rank_start}",
        ]
    )
    assert res.returncode == 1
    smoke = res.stage("smoke")
    assert smoke["status"] == "failed"
    states = {r["rank"]: r for r in smoke["ranks"]}
    assert states[1]["state"] == "died" and states[1]["exit_code"] == 13
    assert smoke["reason"].startswith("smoke failed: rank 1")
    # Rank 0's measurements before the failure are kept in the stage's facts.
    assert "0" in smoke["data"]["init_s"] and "1" in smoke["data"]["init_s"]
    assert "verdict: NOT READY" in res.stdout
    assert _no_workers_left(res.run_dir)


def test_peer_timing_out_first_still_names_the_rank_that_never_arrived(advisor) -> None:
    """The process-group timeout fires long before the deadline: rank 0's barrier fails and its
    process exits, yet the culprit named is rank 1, which never arrived, not rank 0."""
    res = advisor(
        [
            *SMOKE_ONLY,
            "stages.smoke.deadline_s=60",
            "pg_timeout_s=8",
            "+faults=[{stage:smoke,rank:1,kind:hang,step:barrier}]",
        ]
    )
    assert res.returncode == 1
    smoke = res.stage("smoke")
    assert smoke["duration_s"] < 50  # ended by the failure, not by the deadline
    states = {r["rank"]: r for r in smoke["ranks"]}
    assert states[1]["state"] == "hung" and "never arrived at step 'barrier'" in states[1]["reason"]
    assert (
        states[0]["state"] == "stopped"
        and "waiting in step 'barrier' for rank(s) 1" in states[0]["reason"]
    )
    assert smoke["reason"].split(": ")[1].startswith("rank 1")
