"""Topology stage: placement checks on a real gloo job, link classes and slow links from records."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from advisor.cluster import ClusterConfig, resolve
from advisor.probes import topology
from advisor.probes.topology import TopologyConfig, TopologyFacts
from advisor.results import Record
from tests.conftest import DATA

SLOW_LINK_RECORDS = DATA / "probes" / "connectivity_2x2_slow_link.jsonl"


def _cluster(nodes: int, per_node: int):
    return resolve(
        ClusterConfig(name=f"{nodes}x{per_node}", nodes=nodes, devices_per_node=per_node),
        emulate=True,
    )


def test_cpulist_round_trip() -> None:
    assert topology.parse_cpulist("0-3,8,10-11\n") == {0, 1, 2, 3, 8, 10, 11}
    assert topology.format_cpulist({0, 1, 2, 3, 8, 10, 11}) == "0-3,8,10-11"
    assert topology.format_cpulist([5]) == "5"


def test_link_classes_split_at_gaps() -> None:
    classes = topology.link_classes([100, 95, 10, 11, 9.5, 1.0], gap_ratio=2.0)
    assert classes == [[100, 95], [11, 10, 9.5], [1.0]]
    assert topology.link_classes([10, 12, 9], gap_ratio=2.0) == [[12, 10, 9]]


def test_slow_link_named_from_captured_records(tmp_path: Path) -> None:
    # The records were captured from a real emulated 2x2 run, then pair 1-3 edited to 0.2 Gbit/s
    # (tests/data/probes/SOURCES.md). Rank 0 of the topology stage reads them from the run dir.
    cluster = _cluster(2, 2)
    (tmp_path / "results").mkdir()
    shutil.copy(SLOW_LINK_RECORDS, tmp_path / "results" / "connectivity.jsonl")
    links = topology.measured_links(tmp_path, cluster)
    assert len(links) == 6
    record = Record(
        stage="topology",
        rank=0,
        node=0,
        node_name="node0",
        host="h",
        local_rank=0,
        step="links",
        metrics={"links": links},
    )
    facts = topology.summarize([record], cluster, TopologyConfig())
    assert [(s.a, s.b, s.a_node, s.b_node, s.link) for s in facts.slow_links] == [
        (1, 3, "node0", "node1", "inter")
    ]
    slow = facts.slow_links[0]
    assert slow.bandwidth_gbps == pytest.approx(0.2)
    assert slow.class_median_gbps > 1.0
    # The two intra-node links of this capture are the fastest class: islands are the nodes.
    assert facts.islands == [[0, 1], [2, 3]]
    assert facts.islands_match_declared is True
    assert facts.link_classes[0].declared == {"intra": 2}


def test_islands_inferred_and_compared_with_declared_nodes() -> None:
    cluster = _cluster(2, 4)
    ring = [(r, (r + 1) % 8) for r in range(8)]
    fast_within_node = [
        (min(a, b), max(a, b), 100.0 if a // 4 == b // 4 else 10.0) for a, b in ring
    ]
    facts = TopologyFacts()
    topology.infer(facts, fast_within_node, cluster, TopologyConfig())
    assert facts.islands == [[0, 1, 2, 3], [4, 5, 6, 7]] and facts.islands_match_declared
    assert facts.slow_links == []

    # Ranks 2 and 3 are declared on node0 but only reach it at inter-node speed: node0 splits.
    split = [(a, b, 10.0 if (a, b) == (1, 2) else bw) for a, b, bw in fast_within_node]
    facts = TopologyFacts()
    topology.infer(facts, split, cluster, TopologyConfig())
    assert facts.islands_match_declared is False
    assert facts.islands == [[0, 1], [2, 3], [4, 5, 6, 7]]
    assert any("node0's ranks split" in n for n in facts.island_notes)
    assert [(s.a, s.b) for s in facts.slow_links] == [(1, 2)]


def test_placement_checks() -> None:
    cluster = _cluster(2, 2)

    def ident(rank: int, node: int, local: int, index: int, cpus: str) -> Record:
        return Record(
            stage="topology",
            rank=rank,
            node=node,
            node_name=f"node{node}",
            host=f"h{node}",
            local_rank=local,
            step="identity",
            metrics={"device_type": "npu", "device_index": index, "cpu_affinity": cpus},
        )

    good = [ident(0, 0, 0, 0, "0-3"), ident(1, 0, 1, 1, "4-7"), ident(2, 1, 0, 0, "0-3")]
    good.append(ident(3, 1, 1, 1, "4-7"))
    facts = topology.summarize(good, cluster, TopologyConfig())
    assert facts.errors == [] and facts.shared_affinity == [] and facts.contiguous_local_ranks
    assert facts.ranks_per_node == {"node0": 2, "node1": 2}

    # Rank 1 claims rank 0's device, overlaps its CPUs, and node1's local ranks are swapped.
    bad = [ident(0, 0, 0, 0, "0-3"), ident(1, 0, 1, 0, "2-5"), ident(2, 1, 1, 0, "0-3")]
    bad.append(ident(3, 1, 0, 1, "4-7"))
    facts = topology.summarize(bad, cluster, TopologyConfig())
    assert facts.duplicate_devices == [{"device": "node0 (h0) npu:0", "ranks": [0, 1]}]
    assert facts.shared_affinity == [{"host": "h0", "ranks": [0, 1], "cpus": "2-3"}]
    assert not facts.contiguous_local_ranks
    text = " | ".join(facts.errors)
    assert "EI0015" in text and "node1: ranks [2, 3] have local ranks [1, 0]" in text
    assert "runs" not in text

    facts = topology.summarize(good[:3], cluster, TopologyConfig())
    assert facts.errors == [
        "node1 runs 1 ranks but the cluster declares 2 devices per node: set "
        "cluster.devices_per_node or the launcher's processes per node to match"
    ]


def test_npu_bus_id_comes_from_npu_smi(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """torch_npu exposes no PCI address: the topology probe reads it from npu-smi's table,
    by physical chip (Phy-ID where shown), after ASCEND_RT_VISIBLE_DEVICES renumbering."""
    for sample in ("npu_smi_info_910b_wide.txt", "npu_smi_info_a3_phyid.txt"):
        tool = tmp_path / sample / "npu-smi"
        tool.parent.mkdir()
        tool.write_text(f"#!/bin/sh\nexec /bin/cat '{DATA / 'evidence' / sample}'\n")
        tool.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path / "npu_smi_info_910b_wide.txt"))
    monkeypatch.delenv("ASCEND_RT_VISIBLE_DEVICES", raising=False)
    assert topology.npu_bus_id(0) == "0000:c1:00.0"
    assert topology.npu_bus_id(2) == "0000:c2:00.0"
    monkeypatch.setenv("ASCEND_RT_VISIBLE_DEVICES", "3,1")
    assert topology.npu_bus_id(0) == "0000:02:00.0"  # logical 0 is physical 3
    monkeypatch.setenv("PATH", str(tmp_path / "npu_smi_info_a3_phyid.txt"))
    monkeypatch.delenv("ASCEND_RT_VISIBLE_DEVICES")
    assert topology.npu_bus_id(1) == "0000:9f:00.0"
    monkeypatch.setenv("PATH", str(tmp_path / "nowhere"))
    monkeypatch.setattr("advisor.probes.tools.TOOL_DIRS", {})
    assert topology.npu_bus_id(0) == ""
