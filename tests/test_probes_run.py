"""One real emulated 2x2 run (gloo) shared by several probe assertions: preflight passes,
connectivity measures every pair in 3 rounds, and topology, told that every local rank binds
device 0, names the two ranks of each node sharing a device while still using the connectivity
measurements."""

from __future__ import annotations

import itertools

import pytest

from tests.conftest import AdvisorResult, only_stages, run_advisor

# Deadlines for a loaded test machine: starting 4 ranks (each importing torch) on 2 shared cores
# can take a minute. A healthy stage ends in seconds; only a broken one waits this long.
SLOW_MACHINE = [f"stages.{s}.deadline_s=300" for s in ("smoke", "connectivity", "topology")]


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> AdvisorResult:
    return run_advisor(
        [
            "+cluster=2x2",
            "emulate=true",
            *SLOW_MACHINE,
            *only_stages("preflight", "connectivity", "topology"),
            "stages.connectivity.pairs=all",
            "stages.connectivity.latency_iters=3",
            "stages.connectivity.bandwidth_bytes=[65536]",
            "stages.connectivity.bandwidth_iters=2",
            # Every local rank binds emulated device 0: two ranks per device on each node.
            "stages.topology.device_of_local_rank=[0,0]",
        ],
        tmp_path_factory.mktemp("probes") / "run",
    )


def test_all_pairs_measured_on_real_gloo_job(run: AdvisorResult) -> None:
    sf = run.stage("connectivity")
    assert sf["status"] == "ok", sf["reason"] + run.stdout + run.stderr
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


def test_preflight_passes_before_the_jobs(run: AdvisorResult) -> None:
    sf = run.stage("preflight")
    assert sf["status"] == "ok", sf["reason"]
    assert set(sf["data"]["nodes"]) == {"node0", "node1"}
    node0 = sf["data"]["nodes"]["node0"]
    assert node0["dns"]["127.0.0.1"]["ok"] and node0["master"]["mode"] == "free"
    assert node0["route_nic"] == run.stage("connectivity")["data"]["comm_nic"]["node0"]
    assert sf["data"]["blocking"] == []


def test_two_ranks_on_one_device_are_named(run: AdvisorResult) -> None:
    assert run.returncode == 1, run.stdout + run.stderr
    sf = run.stage("topology")
    assert sf["status"] == "failed"
    assert "shares device node0 (" in sf["reason"] and "EI0015" in sf["reason"]
    data = sf["data"]
    assert sorted(d["ranks"] for d in data["duplicate_devices"]) == [[0, 1], [2, 3]]
    assert any("EI0015" in e for e in data["errors"])
    assert data["ranks_per_node"] == {"node0": 2, "node1": 2}
    assert [r["rank"] for r in data["ranks"]] == [0, 1, 2, 3]
    assert all(r["cpu_affinity"] and r["device"] == "cpu:0" for r in data["ranks"])


def test_topology_reads_the_connectivity_measurements(run: AdvisorResult) -> None:
    conn = run.stage("connectivity")["data"]
    data = run.stage("topology")["data"]
    assert data["measured_links"] == len(conn["pairs"]) == 6
    assert sorted(r for i in data["islands"] for r in i) == [0, 1, 2, 3]
    assert sum(c["count"] for c in data["link_classes"]) == 6
