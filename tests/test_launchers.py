"""Multi-node launchers: one advisor per node meeting at a rendezvous, env-driven, srun."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import time
from pathlib import Path

import pytest

from advisor.cluster import ClusterConfig, resolve
from advisor.errors import ConfigError
from advisor.launch import plan as plan_mod
from advisor.launch.commands import node_commands
from advisor.launch.plan import LauncherConfig, LaunchPlan, SlurmConfig, free_port
from advisor.paths import JOBS_DIR
from tests.conftest import REPO, advisor_cmd


def _cpu_2x2(**kw: object) -> object:
    return resolve(
        ClusterConfig(name="2x2", nodes=2, devices_per_node=2, device="cpu", **kw), emulate=False
    )  # type: ignore[arg-type]


def test_one_advisor_per_node_with_launcher_torchrun(tmp_path: Path) -> None:
    """Two advisor processes, node ranks 0 and 1, share a run dir: node 0 writes the facts."""
    run_dir = tmp_path / "run"
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    procs = [
        subprocess.Popen(
            [
                *advisor_cmd(),
                "run",
                "+cluster=2x2",
                "cluster.device=cpu",
                "launcher=torchrun",
                f"launcher.node_rank={k}",
                f"launcher.rdzv_endpoint=127.0.0.1:{port}",
                f"hydra.run.dir={run_dir}",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        for k in (0, 1)
    ]
    outs = [p.communicate(timeout=300)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    assert "node 1 done" in outs[1] and "report:" in outs[0]
    facts = json.loads((run_dir / "facts.json").read_text())
    ranks = facts["stages"]["smoke"]["ranks"]
    assert [(r["rank"], r["node_name"], r["state"]) for r in ranks] == [
        (0, "node0", "ok"),
        (1, "node0", "ok"),
        (2, "node1", "ok"),
        (3, "node1", "ok"),
    ]


def _wait_for_smoke_job(run_dir: Path, node0: subprocess.Popen, timeout_s: float = 150.0) -> None:
    """Until node 0 has written smoke's job spec: it starts its agent, the rendezvous, next."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if node0.poll() is not None:
            raise AssertionError(f"node 0 ended before smoke: {node0.communicate()[0]}")
        for spec in (run_dir / JOBS_DIR).glob("*.json"):
            try:
                if '"smoke"' in spec.read_text():
                    return
            except OSError:  # being written
                pass
        time.sleep(0.2)
    raise AssertionError(f"node 0 wrote no smoke job spec in {run_dir / JOBS_DIR}")


@pytest.mark.parametrize("node1_late", [False, True], ids=["before-smoke", "during-smoke"])
def test_a_node_failing_preflight_tells_node_0_instead_of_leaving_it_waiting(
    tmp_path: Path, node1_late: bool
) -> None:
    """One advisor per node; node 1's preflight fails (its interface setting names no interface),
    so node 1 joins no job. Node 0 must not wait at the smoke rendezvous for its join timeout:
    it stops within seconds of node 1's note and quotes node 1's reason — whether the note is
    there before node 0 reaches smoke, or arrives (node 1 started late) while node 0 waits in it."""
    run_dir = tmp_path / "run"
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    common = [
        "+cluster=2x2",
        "cluster.device=cpu",
        "launcher=torchrun",
        f"launcher.rdzv_endpoint=127.0.0.1:{port}",
        "launcher.join_timeout_s=300",
        "stages.smoke.deadline_s=300",
        # off: node 0 would otherwise meet node 1's note while waiting for its fingerprint,
        # before the smoke rendezvous this test is about
        "stages.drift.enabled=false",
        f"hydra.run.dir={run_dir}",
    ]
    per_node = {0: [], 1: ["cluster.interface=nosuch0"]}
    started = time.monotonic()
    procs = {}
    for k in (0, 1):
        if k == 1 and node1_late:
            # node 1 starts once node 0 is at smoke's rendezvous (rather than after a fixed
            # delay): its note then always arrives while node 0 waits there
            _wait_for_smoke_job(run_dir, procs[0])
        procs[k] = subprocess.Popen(
            [*advisor_cmd(), "run", *common, f"launcher.node_rank={k}", *per_node[k]],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
    outs = {k: p.communicate(timeout=600)[0] for k, p in procs.items()}
    elapsed_s = time.monotonic() - started
    assert procs[1].returncode == 1 and "nosuch0" in outs[1], outs[1]
    assert procs[0].returncode == 1, outs[0]
    # far below the 300 s join timeout and smoke deadline node 0 would otherwise wait out
    assert elapsed_s < 200, (elapsed_s, outs[0])
    facts = json.loads((run_dir / "facts.json").read_text())
    smoke = facts["stages"]["smoke"]
    assert smoke["status"] == "failed", smoke
    if node1_late:  # node 0 was already waiting in smoke's rendezvous: stopped there
        assert smoke["reason"].startswith("smoke stopped:"), smoke["reason"]
    assert "node 1" in smoke["reason"] and "left the run" in smoke["reason"], smoke["reason"]
    assert "preflight failed" in smoke["reason"] and "nosuch0" in smoke["reason"], smoke["reason"]
    # and the stages after it do not wait either
    assert all(
        sf["status"] == "skipped" and "node 1" in sf["reason"]
        for name, sf in facts["stages"].items()
        if name not in ("preflight", "smoke")
    ), facts["stages"]


def test_env_launcher_reads_node_rank_and_master_from_environment() -> None:
    cluster = _cpu_2x2()
    env = {"RANK": "1", "WORLD_SIZE": "2", "MASTER_ADDR": "10.0.0.1", "MASTER_PORT": "29500"}
    plan = LaunchPlan.make(LauncherConfig(kind="env"), cluster, environ=env)
    # The outer job's store owns MASTER_PORT; stage jobs use the ports above it.
    assert (plan.local_nodes, plan.master_addr, plan.port(3)) == ([1], "10.0.0.1", 29504)
    with pytest.raises(ConfigError, match="launcher=env needs RANK, WORLD_SIZE"):
        LaunchPlan.make(LauncherConfig(kind="env"), cluster, environ={})
    with pytest.raises(ConfigError, match="WORLD_SIZE=3 advisor processes"):
        LaunchPlan.make(LauncherConfig(kind="env"), cluster, environ={**env, "WORLD_SIZE": "3"})


def test_torchrun_launcher_needs_a_port_every_node_agrees_on() -> None:
    with pytest.raises(ConfigError, match="rdzv_endpoint=HOST:PORT"):
        LaunchPlan.make(LauncherConfig(kind="torchrun"), _cpu_2x2(), environ={})
    with pytest.raises(ConfigError, match=r"node_rank=2 is outside 0\.\.1"):
        LaunchPlan.make(
            LauncherConfig(kind="torchrun", node_rank=2, rdzv_endpoint="h:1"), _cpu_2x2()
        )


def test_a_free_port_comes_from_below_the_ephemeral_range_and_skips_held_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """bind(0) and connect() take ports from the ephemeral range: a job's port comes from below
    it, so another job's sockets cannot take it before torchrun binds it."""
    low = int(plan_mod.EPHEMERAL_RANGE_FILE.read_text().split()[0])
    ports = {free_port() for _ in range(20)}
    assert all(max(1024, low - plan_mod.FREE_PORT_SPAN) <= p < low for p in ports), ports
    assert len(ports) > 1, "picked at random, not the same port for every advisor on a host"
    monkeypatch.setattr(plan_mod, "FREE_PORT_SPAN", 2)
    with socket.socket() as held:
        held.bind(("127.0.0.1", low - 1))
        assert {free_port() for _ in range(10)} == {low - 2}


def test_local_launcher_refuses_a_real_multi_node_cluster() -> None:
    with pytest.raises(ConfigError, match="emulate=true"):
        LaunchPlan.make(LauncherConfig(), _cpu_2x2())


def test_slurm_launcher_builds_one_srun_with_c10d(tmp_path: Path) -> None:
    cluster = _cpu_2x2(hosts=["n0", "n1"])
    launcher = LauncherConfig(
        kind="slurm", slurm=SlurmConfig(partition="p1", extra_args=["--gres=gpu:8"])
    )
    plan = LaunchPlan.make(launcher, cluster)
    port = plan.port(0)
    (cmd,) = node_commands(plan, port, tmp_path / "s.json", "rid", tmp_path, {})
    assert cmd.argv[:4] == ["srun", "--nodes=2", "--ntasks-per-node=1", "--kill-on-bad-exit=1"]
    assert "--partition=p1" in cmd.argv and "--gres=gpu:8" in cmd.argv
    assert "--rdzv-backend=c10d" in cmd.argv and "--rdzv-endpoint=n0:" + str(port) in cmd.argv
