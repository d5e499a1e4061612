"""The timeouts summariser on hand-made records (the record shapes the ranks write)."""

from __future__ import annotations

from typing import Any

from advisor.cluster import ClusterConfig, resolve
from advisor.probes.guard import missing_from_message
from advisor.probes.timeouts import TimeoutsConfig, summarize
from advisor.results import Record


def rec(rank: int, step: str, **metrics: Any) -> Record:
    node = rank // 2
    return Record(
        stage="timeouts",
        rank=rank,
        node=node,
        node_name=f"node{node}",
        host=f"host{node}",
        local_rank=rank % 2,
        step=step,
        metrics=metrics,
    )


def test_skew_is_read_from_waits_and_settings_judged_for_the_declared_device() -> None:
    cluster = resolve(
        ClusterConfig(name="t", nodes=2, devices_per_node=2, device="npu"), emulate=True
    )
    records = [
        rec(0, "settings", env={"HCCL_CONNECT_TIMEOUT": "300"}),
        rec(2, "settings", env={"HCCL_CONNECT_TIMEOUT": "120"}),
    ]
    # Rank 2 arrives 2 s after the others at every barrier, so it waits about 2 s less.
    for i in range(3):
        for rank, wait in ((0, 2.0), (1, 2.01), (2, 0.0), (3, 1.99)):
            records.append(rec(rank, f"barrier/{i}", wait_s=wait, barrier_s=0.001 * (i + 1)))
    facts = summarize(records, cluster, TimeoutsConfig(pg_timeout_s=900))
    assert [s.rank for s in facts.stragglers] == [2]
    assert facts.stragglers[0].host == "host1" and abs(facts.stragglers[0].skew_s - 2.01) < 1e-9
    assert facts.barrier_skew_s["1"] == 0.0
    assert facts.barrier_s is not None and facts.barrier_s.max == 0.003
    # Emulated on gloo, but the cluster being prepared is an NPU one: HCCL settings apply.
    assert facts.settings_backend == "hccl"
    assert facts.settings["HCCL_CONNECT_TIMEOUT"].applies
    assert facts.settings["HCCL_CONNECT_TIMEOUT"].value == 300  # node 0's environment
    assert facts.settings_mismatch == {"HCCL_CONNECT_TIMEOUT": {"node0": "300", "node1": "120"}}
    assert facts.settings["pg_timeout_s"].value == 900
    assert facts.hang is None and facts.rendezvous_s is None


def test_missing_ranks_are_read_from_monitored_barrier_failures() -> None:
    # Messages as gloo's monitored_barrier raises them on rank 0 (torch 2.13, wait_all_ranks).
    assert missing_from_message("[Rank 0]: Ranks 1 failed to pass monitoredBarrier in 3000 ms") == [
        1
    ]
    assert missing_from_message(
        "[Rank 0]: Ranks 3, 12 failed to pass monitoredBarrier in 10000 ms"
    ) == [3, 12]
    assert missing_from_message("Connection closed by peer [127.0.0.1]:7067") == []
