"""The probes share one job: a fault in one of its stages is diagnosed as when each stage had a
job of its own, and the stages after it run, in a fresh job, and pass.

Real gloo jobs of 4 ranks on 2 emulated npu nodes (strict emulation), one per fault kind.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import AdvisorResult, only_stages, run_advisor

PROBES = ["smoke", "connectivity", "topology", "timeouts", "subgroups"]
CLUSTER = ["+cluster=2x2", "cluster.device=npu", "emulate=true"]


def _run(tmp_path: Path, *extra: str) -> AdvisorResult:
    return run_advisor(
        [
            *CLUSTER,
            *only_stages("preflight", *PROBES),
            "stages.connectivity.latency_iters=2",
            "stages.connectivity.bandwidth_bytes=[4096]",
            "stages.connectivity.bandwidth_iters=1",
            *extra,
        ],
        tmp_path / "run",
    )


def _launch(res: AdvisorResult, stage: str) -> str:
    return str(res.stage(stage)["launch"])


def test_a_rank_exiting_in_one_stage_leaves_the_next_stages_a_fresh_job(tmp_path: Path) -> None:
    res = _run(tmp_path, "+faults=[{stage:connectivity,rank:1,kind:exit,step:pair}]")
    assert res.returncode == 1, res.stdout + res.stderr
    conn = res.stage("connectivity")
    assert conn["status"] == "failed", conn
    died = {r["rank"]: r for r in conn["ranks"]}[1]
    # as a job of its own would have said: the rank, its node, its last step, its exit code
    assert died["state"] == "died" and died["node_name"] == "node0", died
    assert died["last_step"] == "gather" and died["exit_code"] == 13, died
    assert "rank 1 on node0" in conn["reason"]
    # smoke ran before it in the same job; the stages after it, in another job, all passed
    assert res.stage("smoke")["status"] == "ok"
    assert _launch(res, "smoke") == _launch(res, "connectivity")
    after = ["topology", "timeouts", "subgroups"]
    assert all(res.stage(s)["status"] == "ok" for s in after), res.stdout
    assert len({_launch(res, s) for s in after}) == 1
    assert _launch(res, "topology") != _launch(res, "connectivity")
    assert [lf["stages"] for lf in res.facts["launches"]] == [PROBES, after]


def test_a_rank_hanging_in_one_stage_is_named_at_its_deadline_and_the_rest_run(
    tmp_path: Path,
) -> None:
    # The stage is waited out to its deadline whatever its length (the ranks are already up: the
    # deadline runs from the previous stage's end), so 20 s shows the same as 40 s did.
    deadline_s = 20
    res = _run(
        tmp_path,
        f"stages.topology.deadline_s={deadline_s}",
        "+faults=[{stage:topology,rank:2,kind:hang,step:devices}]",
    )
    assert res.returncode == 1, res.stdout + res.stderr
    topo = res.stage("topology")
    assert topo["status"] == "timeout", topo
    hung = {r["rank"]: r for r in topo["ranks"]}[2]
    assert hung["state"] == "hung" and hung["node_name"] == "node1", hung
    assert "never arrived at step 'devices'" in hung["reason"], hung
    assert "rank 2 on node1 (host " in topo["reason"] and "hung" in topo["reason"]
    # the stage's own deadline, not the whole job's: it ends within it (plus the stop's grace)
    assert topo["duration_s"] < deadline_s + 15, topo["duration_s"]
    for name in ("smoke", "connectivity"):
        assert res.stage(name)["status"] == "ok" and _launch(res, name) == _launch(res, "topology")
    for name in ("timeouts", "subgroups"):
        assert res.stage(name)["status"] == "ok", res.stage(name)
        assert _launch(res, name) != _launch(res, "topology")
