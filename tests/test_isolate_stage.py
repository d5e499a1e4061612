"""The isolate stage's triggers (what in a run's facts calls for isolation), its summary of
stored records, and ``advisor isolate`` refusing what it cannot use. The real jobs are in
tests/test_isolate_lab.py."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.cli import main
from advisor.cluster import ClusterConfig, resolve
from advisor.facts import Facts, StageFacts
from advisor.isolate.stage import IsolateConfig, IsolateJob, judge, summarize, triggers
from advisor.results import Record

DATA = Path(__file__).parent / "data"


def _facts() -> Facts:
    """The 2x8 fixture made healthy: every stage ok, every inter-node pair at the median."""
    facts = Facts.read(DATA / "facts_2x8.json")
    for sf in facts.stages.values():
        sf.status, sf.reason = "ok", ""
    conn = facts.summary("connectivity")
    measured = sorted(p.bandwidth_gbps for p in conn.pairs if p.bandwidth_gbps)
    for p in conn.pairs:
        p.bandwidth_gbps = measured[len(measured) // 2]
    return facts


def test_a_healthy_run_has_no_trigger() -> None:
    assert triggers(_facts(), 0.5) == []


def test_a_failed_stage_triggers_and_preflight_does_not() -> None:
    facts = _facts()
    facts.stages["smoke"].status = "timeout"
    facts.stages["smoke"].reason = "rank 9 on node1 never started"
    found = triggers(facts, 0.5)
    assert found == ["stage smoke timeout: rank 9 on node1 never started"]
    facts.stages["smoke"].status = "ok"
    facts.stages["preflight"] = StageFacts(name="preflight", status="failed", reason="dns")
    assert triggers(facts, 0.5) == []


def test_a_slow_inter_node_pair_triggers() -> None:
    facts = _facts()
    conn = facts.summary("connectivity")
    inter = [p for p in conn.pairs if p.link == "inter" and p.bandwidth_gbps]
    assert len(inter) >= 3, "fixture needs inter-node pairs"
    inter[0].bandwidth_gbps = 0.01 * min(p.bandwidth_gbps for p in inter[1:])
    found = triggers(facts, 0.5)
    assert len(found) == 1 and found[0].startswith(f"pair {inter[0].src}–{inter[0].dst}")


def test_config_refuses_what_cannot_work() -> None:
    with pytest.raises(ValueError, match="slow_fraction"):
        IsolateConfig(slow_fraction=1.5)
    with pytest.raises(ValueError, match="job_deadline_s"):
        IsolateConfig(job_deadline_s=0)


def _rec(step: str, rank: int = -1, node: int = 0, **metrics: object) -> Record:
    return Record(
        stage="isolate", rank=rank, node=node, node_name=f"h{node}", host="h", local_rank=0,
        job="", launch="", step=step, status="ok", metrics=dict(metrics),
    )  # fmt: skip


def test_summary_keeps_final_verdicts_names_and_nics() -> None:
    cluster = resolve(
        ClusterConfig(name="t", nodes=4, devices_per_node=1, device="cpu", hosts=list("abcd")),
        emulate=False,
    )
    job = {"job": "j1", "round": 1, "nodes": [0, 1], "node_names": ["a", "b"], "verdict": "ok"}
    records = [
        _rec("trigger", triggers=["stage smoke failed: x"], forced=False, job_budget=6),
        _rec("job", **job),
        _rec("job", **{**job, "job": "j2", "nodes": [2, 3], "node_names": ["c", "d"]}),
        _rec("address", rank=1, node=1, interface="eth1", address="10.0.0.2", run_node=3),
        _rec("conclusion", kind="node", nodes=[3], detail="", verdicts={"j2": ["failed", "x"]}),
    ]
    facts = summarize(records, cluster, IsolateConfig())
    assert facts.ran and facts.conclusion == "node" and facts.culprit_nodes == ["d"]
    assert [j.verdict for j in facts.jobs] == ["ok", "failed"] and facts.symptom == "failed"
    assert facts.nics == {"d": "eth1 10.0.0.2"}
    # a culprit whose ranks never reported: the configured NIC, said to be configured
    records[-1] = _rec("conclusion", kind="node", nodes=[2], detail="", verdicts={})
    cluster.interface = "eth1"
    assert summarize(records, cluster, IsolateConfig()).nics == {
        "c": "eth1 c (as configured: no rank of it started)"
    }
    assert facts.summary.startswith("node d makes every job it is in fail")
    assert json.dumps(facts.triggers) == '["stage smoke failed: x"]'


def test_isolate_command_names_a_directory_that_is_no_run(tmp_path: Path, capsys) -> None:
    assert main(["isolate", str(tmp_path)]) == 2
    assert "not an advisor run directory" in capsys.readouterr().err


def _job(name: str, busbw_gbps: float | None) -> IsolateJob:
    return IsolateJob(
        job=name, round=1, nodes=[0, 1], node_names=["a", "b"],
        verdict="ok" if busbw_gbps is not None else "failed", busbw_gbps=busbw_gbps,
    )  # fmt: skip


def test_slowness_is_judged_against_the_best_job_so_far() -> None:
    jobs = [_job("whole", 0.02)]
    judge(jobs, 0.5)
    assert jobs[0].verdict == "ok"  # alone, nothing to compare with
    jobs += [_job("half-a", 0.2), _job("half-b", 0.03)]
    judge(jobs, 0.5)
    assert [j.verdict for j in jobs] == ["slow", "ok", "slow"]
    assert jobs[0].detail.startswith("0.02 Gbit/s, 10% of the best subset")


def test_once_a_job_failed_slowness_is_not_judged() -> None:
    jobs = [_job("whole", None), _job("half-a", 0.2), _job("half-b", 0.05)]
    judge(jobs, 0.5)
    assert [j.verdict for j in jobs] == ["failed", "ok", "ok"]
