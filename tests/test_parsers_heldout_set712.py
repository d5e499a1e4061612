"""Outputs of round UUUU's held-out evaluation (set 712, network and node tool outputs on GPU
clusters) that the advisor read wrong or in part before this change
(tests/data/evidence_heldout_81, sources in tests/data/SOURCES.md): lscpu's tree-layout NUMA
section copied alone (a GH200: node 0 with the CPUs, nodes 1-8 CPU-less, its GPU memory) was no
format the advisor knew; a perftest server whose QP would not move to RTR after both sides had
exchanged their (all-zero) GIDs was a warning, its pod not named; and an ib_write_lat of 8.43 us
at 2 B was said and not judged, though NVIDIA's ngc_multinode_perf fails such a run."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from advisor.parsers import rdma
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_81"

LSCPU = "lscpu_numa_section_gh200_grace_9_nodes_node0_cpus_0_71_nodes1_8_cpuless_gpu_memory_xpuperf129_cut.txt"
RTR = "ib_write_bw_pod1_server_roce_gid_index0_all_zero_gids_failed_modify_qp_322_rtr_netop222_cut.txt"
LAT = "ib_write_lat_amd_ionic_2b_t_typical_8_43us_t_max_10_81us_uccl707.txt"

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


# --- lscpu: the NUMA section alone, CPU-less nodes ------------------------------------------


def test_lscpus_numa_section_alone_is_read_its_cpuless_nodes_memory_not_a_fault() -> None:
    ev = _load(LSCPU)
    assert ev.files[0].formats == ["lscpu"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    ((line, note),) = _said(ev)
    assert line == 1  # the "NUMA:" head
    assert note.startswith("lscpu: NUMA section alone, 9 NUMA node(s): node 0: CPUs 0-71; ")
    assert "node 8: no CPUs (lines 3-11)" in note
    assert "node(s) 1-8 have no CPUs: memory-only nodes" in note and "not a fault" in note
    assert not ev.failures


def test_a_numa_section_whose_nodes_all_hold_cpus_names_no_cpuless_node(tmp_path: Path) -> None:
    text = _text(LSCPU).replace("NUMA node(s):           9", "NUMA node(s):           2")
    lines = [*text.splitlines()[:3], "  NUMA node1 CPU(s):      72-143"]
    ev = _write(tmp_path, "\n".join(lines) + "\n")
    assert ev.files[0].formats == ["lscpu"]
    ((_, note),) = _said(ev)
    assert "node 0: CPUs 0-71; node 1: CPUs 72-143 (lines 3-4)" in note
    assert "no CPUs" not in note
    assert heldout.imported(ev)[0] == "READY"


def test_a_cpuless_node_in_the_middle_is_named_alone(tmp_path: Path) -> None:
    text = _text(LSCPU).replace("NUMA node2 CPU(s):      ", "NUMA node2 CPU(s):      0-3")
    ev = _write(tmp_path, text.replace("0-71", "4-71"))
    ((_, note),) = _said(ev)
    assert "node 2: CPUs 0-3" in note
    assert "node(s) 1, 3-8 have no CPUs" in note


# --- perftest: a QP that would not move to RTR once the peer's address was exchanged -------


def test_a_qp_that_would_not_move_to_rtr_after_the_address_exchange_is_not_ready() -> None:
    ev = _load(RTR)
    assert ev.files[0].formats == ["perftest"]
    (port,) = ev.hca_ports
    assert port["host"] == "rdma-test-pod-1"  # its prompt, line 1
    assert port["perftest"]["broke_off"] is True
    assert port["perftest"]["empty_gids"] == {"local": 20, "remote": 22}
    assert not any("command is not in the file" in m for _, m in _said(ev))
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-rdma-perftest-broke-off", "critical")]
    (item,) = heldout.items(outcome, "evidence-rdma-perftest-broke-off")
    assert item.startswith(
        "rdma-test-pod-1: mlx5_0 port 1: RDMA_Write BW: Failed to modify QP 322 to RTR (its GID "
        "is all zeros"
    )
    assert item.endswith("line 23)")


def test_another_pod_and_device_read_the_same(tmp_path: Path) -> None:
    text = (
        _text(RTR)
        .replace("rdma-test-pod-1", "worker-7")
        .replace("mlx5_0", "mlx5_3")
        .replace("QP 322", "QP 4711")
    )
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-rdma-perftest-broke-off")
    assert item.startswith(
        "worker-7: mlx5_3 port 1: RDMA_Write BW: Failed to modify QP 4711 to RTR"
    )


def test_an_rtr_failure_before_the_peers_address_stays_a_warning(tmp_path: Path) -> None:
    # (no "remote address:" line: the copy does not show the other side connected)
    lines = [ln for ln in _text(RTR).splitlines() if not ln.startswith(" remote address")]
    ev = _write(tmp_path, "\n".join(lines) + "\n")
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert ("evidence-rdma-perftest-failed", "warning") in heldout.above_info(outcome)
    assert ("evidence-rdma-perftest-broke-off", "critical") not in heldout.above_info(outcome)


# --- perftest: a latency run above ngc_multinode_perf's pass value ---------------------------


def test_a_2_byte_write_latency_of_8_43_us_is_a_warning() -> None:
    ev = _load(LAT)
    (port,) = ev.hca_ports
    assert port["perftest"]["slow_latency_us"] == 8.43
    # (no title or command in the copy: held to the read test's 4.5 us, the laxer)
    assert port["perftest"]["latency_pass_us"] == 4.5
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-rdma-perftest-latency-high", "warning")]
    (item,) = heldout.items(outcome, "evidence-rdma-perftest-latency-high")
    assert "8.43 us at 2 B, above 4.5 us (the test is not named in the copy" in item
    assert item.endswith("line 1)")


def test_a_healthy_twin_under_the_pass_value_stays_ready(tmp_path: Path) -> None:
    text = _text(LAT)
    for old, new in (("7.80", "1.01"), ("10.81", "3.20"), ("8.43", "1.09"), ("8.54", "1.15")):
        text = text.replace(old, new)
    ev = _write(tmp_path, text)
    assert ev.hca_ports[0]["perftest"]["slow_latency_us"] is None
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_a_figure_between_the_write_and_read_pass_values_is_not_failed_unnamed(
    tmp_path: Path,
) -> None:
    ev = _write(tmp_path, _text(LAT).replace("8.43", "3.10"))
    assert ev.hca_ports[0]["perftest"]["slow_latency_us"] is None
    assert heldout.imported(ev)[0] == "READY"


def test_the_pass_value_follows_the_test() -> None:
    assert rdma.perftest_latency_pass_us("RDMA_Write Latency") == 2.5
    assert rdma.perftest_latency_pass_us("Send Latency perftest ib_send_lat") == 2.5
    assert rdma.perftest_latency_pass_us("RDMA_Read Latency") == 4.5
    assert rdma.perftest_latency_pass_us("perftest perftest run") == 4.5
