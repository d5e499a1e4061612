"""The timeouts and subgroups probes on real gloo jobs (2 emulated nodes x 2 ranks), with faults.

Two runs are shared by all assertions (each job costs seconds of process start-up):
- ``drill``: in the timeouts probe rank 3 is a straggler at every barrier and rank 1 never reaches
  the third barrier; the subgroups layout declares the seed article's inter-node group
  (``list(range(num_nodes))`` = [0, 1]).
- ``broken``: rank 0 (the one monitored_barrier reports from) never reaches the first collective
  of the timeouts probe; in the subgroups probe rank 3 plans its groups in another order and
  ranks 1 and 2 script a different collective sequence.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.probes.timeouts import distribution
from tests.conftest import AdvisorResult, only_stages, run_advisor

# Deadlines are generous: on a loaded machine process start-up alone can take a minute.
HANG_DEADLINE_S = 150
CLUSTER = [
    "+cluster=2x2",
    "emulate=true",
    # only the two probes asserted on: no other stage's job or measurements to wait for
    *only_stages("timeouts", "subgroups"),
    f"stages.subgroups.deadline_s={HANG_DEADLINE_S}",
]


@pytest.fixture(scope="module")
def drill(tmp_path_factory: pytest.TempPathFactory) -> AdvisorResult:
    run_dir: Path = tmp_path_factory.mktemp("drill") / "run"
    res = run_advisor(
        [
            *CLUSTER,
            "+faults=[{stage:timeouts,rank:3,kind:slow,step:barrier,seconds:1.5},"
            "{stage:timeouts,rank:1,kind:hang,step:barrier/2}]",
            "stages.timeouts.arrival_timeout_s=5",
            f"stages.timeouts.deadline_s={HANG_DEADLINE_S}",
            "+stages.subgroups.layout.groups={inter:{kind:inter_node,ranks:[[0,1]]}}",
            "+env={HCCL_CONNECT_TIMEOUT:'60'}",
        ],
        run_dir,
    )
    assert (run_dir / "facts.json").exists(), res.stderr[-3000:]
    return res


@pytest.fixture(scope="module")
def broken(tmp_path_factory: pytest.TempPathFactory) -> AdvisorResult:
    run_dir: Path = tmp_path_factory.mktemp("broken") / "run"
    res = run_advisor(
        [
            *CLUSTER,
            "+faults=[{stage:timeouts,rank:0,kind:hang,step:first_collective}]",
            "stages.timeouts.arrival_timeout_s=5",
            f"stages.timeouts.deadline_s={HANG_DEADLINE_S}",
            "stages.subgroups.inject_reorder_ranks=[3]",
            "stages.subgroups.inject_mismatch_ranks=[1,2]",
        ],
        run_dir,
    )
    assert (run_dir / "facts.json").exists(), res.stderr[-3000:]
    return res


def test_timeouts_measures_distributions_and_reads_settings(drill: AdvisorResult) -> None:
    data = drill.stage("timeouts")["data"]
    for key in ("rendezvous_s", "init_s", "first_collective_s", "second_collective_s"):
        dist = data[key]
        assert dist["count"] == 4, key
        assert 0 <= dist["p50"] <= dist["p90"] <= dist["max"], key
    assert data["barrier_s"]["count"] == 2  # 3 in the quick profile; rank 1 hangs at the third
    connect = data["settings"]["HCCL_CONNECT_TIMEOUT"]
    assert (connect["raw"], connect["source"], connect["in_range"]) == ("60", "env", False)
    assert data["settings"]["pg_timeout_s"]["value"] == 600  # the run's pg_timeout_s
    assert data["settings"]["join_timeout_s"]["source"] == "config"


def test_straggler_is_named_with_its_node(drill: AdvisorResult) -> None:
    data = drill.stage("timeouts")["data"]
    stragglers = data["stragglers"]
    assert stragglers[0]["rank"] == 3 and stragglers[0]["node_name"] == "node1"
    assert stragglers[0]["host"]
    assert data["barrier_skew_s"]["3"] >= 1.0
    assert all(data["barrier_skew_s"][r] < 1.0 for r in ("0", "1", "2"))


def test_article_inter_node_group_is_corrected_and_the_correction_exercised(
    drill: AdvisorResult,
) -> None:
    st = drill.stage("subgroups")
    assert st["status"] == "ok", st["reason"]
    data = st["data"]
    assert data["declared"] == {"inter": [[0, 1]]}
    same_node = [e for e in data["errors"] if e["kind"] == "same_node"]
    assert same_node[0]["group"] == [0, 1] and same_node[0]["expected"] == [0, 2]
    assert data["corrected"] == {"inter": [[0, 2], [1, 3]]}
    assert data["exercised"] == "corrected"
    assert data["groups_created"] is True
    assert data["membership_ok"] is True and data["membership_errors"] == []
    assert data["creation_mismatch_ranks"] == [] and data["fingerprint_mismatch_ranks"] == []
    assert data["sequence_ok"] is True


def test_rank_that_never_reaches_the_barrier_is_named(drill: AdvisorResult) -> None:
    st = drill.stage("timeouts")
    # Diagnosed by the arrival guard and ended by the failing ranks, not by the deadline.
    assert st["status"] == "failed"
    assert st["duration_s"] <= HANG_DEADLINE_S + 15
    hang = st["data"]["hang"]
    assert hang["step"] == "barrier/2"
    assert hang["missing_ranks"] == [1]
    assert hang["source"] == "monitored_barrier" and "monitoredBarrier" in hang["message"]
    assert hang["last_steps"]["1"] == "barrier/1"
    # The stage's reason carries the diagnosis of the ranks that noticed.
    assert "rank 1 did not reach step 'barrier/2' within 5 s" in st["reason"]
    # What was measured before the hang is kept.
    assert st["data"]["second_collective_s"]["count"] == 4


def test_missing_rank_0_is_named_from_the_published_progress(broken: AdvisorResult) -> None:
    st = broken.stage("timeouts")
    assert st["status"] == "failed"
    hang = st["data"]["hang"]
    # Rank 0 runs monitored_barrier's bookkeeping; without it the others read the store.
    assert (hang["step"], hang["missing_ranks"], hang["source"]) == (
        "first_collective",
        [0],
        "store",
    )
    assert hang["detected_by"] != 0


def test_stages_after_a_hang_still_run(drill: AdvisorResult) -> None:
    assert drill.stage("subgroups")["status"] == "ok"
    assert drill.returncode == 1


def test_creation_order_divergence_is_named_and_no_group_created(broken: AdvisorResult) -> None:
    data = broken.stage("subgroups")["data"]
    assert data["creation_mismatch_ranks"] == [3]
    assert data["groups_created"] is None and data["membership_ok"] is None


def test_mismatched_collective_sequences_are_named(broken: AdvisorResult) -> None:
    data = broken.stage("subgroups")["data"]
    assert data["fingerprint_mismatch_ranks"] == [1, 2]
    first = data["fingerprint_mismatches"][0]
    assert first["call"] == 1
    assert (first["expected"]["dtype"], first["got"]["dtype"]) == ("float32", "float64")
    assert (first["count"], first["expected_count"]) == (first["expected_count"] + 1, 6)
    assert data["sequence_ok"] is None  # a mismatched script is never run


def test_distribution_uses_nearest_rank_percentiles() -> None:
    d = distribution([0.5, 0.1, 0.4, 0.2, 0.3])
    assert d is not None
    assert (d.p50, d.p90, d.max, d.count) == (0.3, 0.5, 0.5, 5)
    assert distribution([]) is None
