"""Connectivity stage: the round schedule, and real gloo jobs (one healthy, one losing a rank)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from advisor.probes.connectivity import plan_rounds, ring_pairs, round_robin_rounds, schedule
from tests.conftest import AdvisorResult, run_advisor


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


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> AdvisorResult:
    run_dir: Path = tmp_path_factory.mktemp("conn") / "run"
    return run_advisor(
        [
            "+cluster=2x2",
            "emulate=true",
            "stages.smoke.enabled=false",
            "stages.connectivity.pairs=all",
            "stages.connectivity.latency_iters=3",
            "stages.connectivity.bandwidth_bytes=[65536]",
            "stages.connectivity.bandwidth_iters=2",
        ],
        run_dir,
    )


def test_all_pairs_measured_on_real_gloo_job(healthy: AdvisorResult) -> None:
    assert healthy.returncode == 0, healthy.stdout + healthy.stderr
    sf = healthy.stage("connectivity")
    assert sf["status"] == "ok", sf["reason"]
    data = sf["data"]
    assert data["rounds"] == 3
    assert sorted((p["src"], p["dst"]) for p in data["pairs"]) == list(
        itertools.combinations(range(4), 2)
    )
    assert data["failed_pairs"] == [] and data["untested_pairs"] == []
    for p in data["pairs"]:
        assert p["ok"] and p["bandwidth_gbps"] > 0 and p["latency_us"] > 0
        assert p["link"] == ("intra" if p["src_node"] == p["dst_node"] else "inter")
        assert p["src_host"] and p["dst_host"]
    assert data["links"]["intra"]["count"] == 2 and data["links"]["inter"]["count"] == 4
    assert set(data["mtu_by_node"]) == {"node0", "node1"}
    assert data["mtu_mismatch"] is False
    assert data["comm_nic"]["node0"]  # the interface towards the master was found


def test_rank_exiting_mid_stage_is_named_and_other_results_kept(tmp_path: Path) -> None:
    res = run_advisor(
        [
            "+cluster=2x2",
            "emulate=true",
            "stages.connectivity.pairs=all",
            "stages.connectivity.latency_iters=3",
            "stages.connectivity.bandwidth_bytes=[65536]",
            "stages.connectivity.bandwidth_iters=2",
            "stages.connectivity.pair_timeout_s=5",
            "+faults=[{stage:connectivity,rank:1,kind:exit,step:pair}]",
        ],
        tmp_path / "run",
    )
    assert res.returncode == 1, res.stdout + res.stderr
    smoke = res.stage("smoke")
    assert smoke["status"] == "ok" and smoke["data"]["all_reduce_ok"] is True
    sf = res.stage("connectivity")
    assert sf["status"] == "failed"
    assert "rank 1 on node0" in sf["reason"]
    rank1 = next(r for r in sf["ranks"] if r["rank"] == 1)
    assert rank1["state"] == "died" and rank1["last_step"].startswith("pair/")
    data = sf["data"]
    # Every pair with rank 1 in it failed or was never reached; none is reported as measured.
    assert not [p for p in data["pairs"] if 1 in (p["src"], p["dst"])]
    failed = data["failed_pairs"]
    assert failed, "the pair rank 1 died in must be reported"
    assert all(1 in (p["src"], p["dst"]) or p["error"] for p in failed)
    first = failed[0]
    assert first["src_host"] and first["dst_host"] and first["error"]
