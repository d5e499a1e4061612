"""Connectivity stage: the round schedule, and a real gloo job losing a rank mid-stage (the
healthy all-pairs job is in test_probes_run.py)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from advisor.probes.connectivity import plan_rounds, ring_pairs, round_robin_rounds, schedule
from tests.conftest import only_stages, run_advisor

# Deadlines for a loaded test machine: starting 4 ranks (each importing torch) on 2 shared cores
# can take a minute. A healthy stage ends in seconds; only a broken one waits this long.
SLOW_MACHINE = [f"stages.{s}.deadline_s=300" for s in ("smoke", "connectivity", "topology")]


@pytest.mark.parametrize("n", [2, 3, 4, 5, 8, 9, 16])
def test_round_robin_covers_every_pair_once_in_n_rounds(n: int) -> None:
    rounds = round_robin_rounds(n)
    assert len(rounds) == (n - 1 if n % 2 == 0 else n)
    flat = [p for r in rounds for p in r]
    assert sorted(flat) == list(itertools.combinations(range(n), 2))
    for r in rounds:
        ranks = [x for p in r for x in p]
        assert len(ranks) == len(set(ranks)), f"a rank appears twice in round {r}"
        assert len(r) == n // 2  # every round is full: the pairs run concurrently


@pytest.mark.parametrize("n", [2, 3, 4, 7, 16])
def test_ring_schedule_has_at_most_three_rounds(n: int) -> None:
    rounds = schedule(ring_pairs(n))
    assert sorted(p for r in rounds for p in r) == ring_pairs(n)
    assert len(rounds) <= 3
    for r in rounds:
        ranks = [x for p in r for x in p]
        assert len(ranks) == len(set(ranks))
    assert len(ring_pairs(n)) == (1 if n == 2 else n)


def test_plan_rounds_modes() -> None:
    assert plan_rounds("ring", 4) == schedule(ring_pairs(4))
    assert plan_rounds("all", 4) == round_robin_rounds(4)
    assert plan_rounds("all", 1) == []


def test_rank_exiting_mid_stage_is_named_and_other_results_kept(tmp_path: Path) -> None:
    res = run_advisor(
        [
            "+cluster=2x2",
            "emulate=true",
            *SLOW_MACHINE,
            "stages.connectivity.pairs=all",
            "stages.connectivity.latency_iters=3",
            "stages.connectivity.bandwidth_bytes=[65536]",
            "stages.connectivity.bandwidth_iters=2",
            "stages.connectivity.pair_timeout_s=5",
            *only_stages("preflight", "connectivity", "topology"),
            "+faults=[{stage:connectivity,rank:1,kind:exit,step:pair}]",
        ],
        tmp_path / "run",
    )
    assert res.returncode == 1, res.stdout + res.stderr
    assert res.stage("preflight")["status"] == "ok"
    sf = res.stage("connectivity")
    assert sf["status"] == "failed"
    assert "rank 1 on node0" in sf["reason"]
    rank1 = next(r for r in sf["ranks"] if r["rank"] == 1)
    # The fault fires as rank 1 is about to start its first pair (before announcing it).
    assert rank1["state"] == "died" and rank1["last_step"] == "gather"
    data = sf["data"]
    assert not [p for p in data["pairs"] if 1 in (p["src"], p["dst"])]
    # Its partner of round 0 reports that pair failed, naming both ends' nodes and hosts.
    first = next(p for p in round_robin_rounds(4)[0] if 1 in p)
    failed = {(p["src"], p["dst"]): p for p in data["failed_pairs"]}
    assert first in failed, data["failed_pairs"]
    pair = failed[first]
    assert pair["error"] and not pair["ok"] and pair["src_host"] and pair["dst_host"]
    assert pair["src_node"] == "node0" and pair["dst_node"] in ("node0", "node1")
    # The run went on: topology ran after the failed stage and used the pairs that were measured.
    topo = res.stage("topology")
    assert topo["status"] == "ok", topo["reason"]
    assert topo["data"]["measured_links"] == len(data["pairs"])


def test_hung_peer_on_an_emulated_hccl_cluster_is_named_within_the_pair_timeout(
    tmp_path: Path,
) -> None:
    """HCCL does not bound Work.wait(timeout): the pair's own deadline (comm.wait) names the
    pair long before the stage deadline, on a strict emulated hccl cluster."""
    deadline_s = 240
    res = run_advisor(
        [
            "+cluster=2x2",
            "cluster.device=npu",
            "emulate=true",
            f"stages.connectivity.deadline_s={deadline_s}",
            "stages.connectivity.pairs=all",
            "stages.connectivity.latency_iters=2",
            "stages.connectivity.bandwidth_bytes=[4096]",
            "stages.connectivity.bandwidth_iters=1",
            "stages.connectivity.pair_timeout_s=5",
            *only_stages("preflight", "connectivity"),
            "+faults=[{stage:connectivity,rank:1,kind:hang,step:pair}]",
        ],
        tmp_path / "run",
    )
    sf = res.stage("connectivity")
    assert sf["status"] == "failed", (sf["status"], sf["reason"], res.stderr[-2000:])
    failed = {(p["src"], p["dst"]): p for p in sf["data"]["failed_pairs"]}
    first = next(p for p in round_robin_rounds(4)[0] if 1 in p)
    assert first in failed, sf["data"]["failed_pairs"]
    assert "did not complete within 5 s" in failed[first]["error"]
    # The stage ended long before its deadline: the partner's wait was bounded by the pair's.
    assert sf["duration_s"] < deadline_s / 2, sf["duration_s"]
    hung = next(r for r in sf["ranks"] if r["rank"] == 1)
    assert hung["state"] in ("hung", "stopped"), hung
