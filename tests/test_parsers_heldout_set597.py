"""Outputs of round BBBB's held-out set 597 (NVIDIA tool outputs) the advisor read wrong or not
at all before this change (tests/data/evidence_heldout_64, sources in tests/data/SOURCES.md): a
busGrind run whose host/device matrix was no format read, though three GPUs' bidirectional
copies are far under their peers'; ``systemctl status nvidia-fabricmanager`` active (running)
whose unit line had lost its state dot, so nothing was read; an ``nvidia-smi topo -m`` whose
every GPU pair is SYS, GPUs of one NUMA node included, said as an info note only; and an
nccl-tests run launched with NCCL_IB_DISABLE=1 whose "Failed to open libibverbs.so" WARNs were
said as a fallback from the path meant."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_64"

BUS_GRIND = (
    "busGrind_p1_8gpu_host_device_pinned_bidir_gpu5_7_low_dotted_header_cut_cudasamples357.txt"
)
FM_RUNNING = "systemctl_status_nvidia_fabricmanager_active_running_p4d_bottlerocket_pr3873.txt"
TOPO_ALL_SYS = "nvidia_smi_topo_m_8x_rtx4090_all_SYS_two_nics_phb_gpu6_tabs_go_gpuallocator17.txt"
IB_OFF = (
    "nccl_tests_broadcast_perf_2_9_6_2node_v100_pcie_socket_libibverbs_warn_mpirun_prompt_cut_"
    "nccltests82.txt"
)


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")


# --- busGrind's host/device bandwidth matrix ------------------------------------------------


def test_busgrind_gpus_far_under_their_peers_bidirectional_copies_are_a_warning() -> None:
    ev = _load(BUS_GRIND)
    assert ev.files[0].formats == ["bus_grind"]
    (run,) = ev.gpu_copy
    assert run["tool"] == "busGrind" and [d["index"] for d in run["devices"]] == list(range(8))
    (matrix,) = run["matrices"]  # (the concurrent matrix's copy ends at its header)
    assert matrix["title"] == "Host/Device Bandwidth Matrix (Pinned)"
    assert matrix["rows"]["BiDir"]["6"] == 7.25 and matrix["rows"]["D2H"]["7"] == 53.53
    # only the three bidirectional figures: GPU 4's 89.20 and every one-way copy are near the
    # median (95.23, between 89.20 and 101.26)
    assert [(p["gpu"], p["direction"], p["gbytes_s"]) for p in run["host_copy_below_peers"]] == [
        (5, "BiDir", 43.62),
        (6, "BiDir", 7.25),
        (7, "BiDir", 9.71),
    ]
    assert {p["line"] for p in run["host_copy_below_peers"]} == {10}
    assert any("no row" in m.message and m.line == 18 for m in ev.files[0].messages)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-host-copy-below-peers", "warning")]
    (item,) = heldout.items(outcome, "evidence-host-copy-below-peers")
    assert "GPU 6 BiDir 7.25 GB/s (median 95.23)" in item and "line 10" in item
    assert "GPU 4" not in item and "D2H" not in item and "H2D" not in item


def test_busgrind_reads_alike_in_other_copies(tmp_path: Path) -> None:
    # an unpinned run of four GPUs, tab-separated, with its concurrent matrix whole (a Total
    # column), quoted in a mail reply
    text = (
        "Host/Device Bandwidth Matrix (GB/s), memory=Pageable\n"
        "Dir\\D\t0\t1\t2\t3\n"
        "D2H\t12.10\t12.20\t3.05\t12.15\n"
        "H2D\t11.90\t11.80\t11.85\t11.95\n"
        "BiDir\t20.10\t20.30\t20.20\t20.25\n"
        "*****\n"
        "Concurrent Host/Device Bandwidth Matrix (GB/s), memory=Pageable\n"
        "Dir\\D\t0\t1\t2\t3\tTotal\n"
        "H2D\t6.00\t1.00\t6.10\t6.05\t19.15\n"
        "D2H\t6.10\t6.00\t6.05\t6.00\t24.15\n"
        "BiDir\t10.00\t10.10\t10.20\t10.00\t40.30\n"
    )
    ev = _write(tmp_path, "".join(f"> {line}\n" for line in text.splitlines()))
    (run,) = ev.gpu_copy
    assert [m["test"] for m in run["matrices"]] == ["host_device", "host_device_concurrent"]
    assert run["matrices"][1]["sum"] == {"H2D": 19.15, "D2H": 24.15, "BiDir": 40.3}
    # the one-at-a-time matrix judged; the concurrent one's uneven figures are its layout
    assert [(p["gpu"], p["direction"]) for p in run["host_copy_below_peers"]] == [(2, "D2H")]
    # every GPU alike, however slow: no outlier
    even = _write(tmp_path, text.replace("3.05", "12.00").split("*****")[0], name="even.txt")
    assert even.gpu_copy[0]["host_copy_below_peers"] == []


def test_a_busgrind_copy_cut_before_any_row_reads_nothing(tmp_path: Path) -> None:
    ev = _write(tmp_path, "Host/Device Bandwidth Matrix (GB/s), memory=Pinned\n   Dir\\D  0  1\n")
    assert ev.gpu_copy == [] and ev.files[0].status != "read"


# --- Fabric Manager's systemd unit ----------------------------------------------------------


def test_fabric_manager_running_without_the_state_dot_is_healthy() -> None:
    ev = _load(FM_RUNNING)
    assert ev.files[0].formats == ["log"] and ev.files[0].status == "read"
    assert ev.failures == []
    assert any(m.line == 3 and "active (running)" in m.message for m in ev.files[0].messages)
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []


def test_fabric_manager_unit_inactive_or_failed_is_a_failure(tmp_path: Path) -> None:
    text = (HELDOUT / FM_RUNNING).read_text()
    for state, said in (
        ("inactive (dead)", "inactive (systemctl status): dead, not running"),
        ("failed (Result: exit-code)", "failed (systemctl status)"),
    ):
        ev = _write(tmp_path, text.replace("active (running)", state))
        (fm,) = ev.failures
        assert (fm["kind"], fm["line"]) == ("fabric_manager_failed", 3)
        assert fm["exception_type"] == f"the Fabric Manager service is {said}"
        level, outcome = heldout.imported(ev)
        assert level == "NOT READY"
        assert ("evidence-fabric-manager-failed", "critical") in heldout.above_info(outcome)
    # the state dot kept ("● ..."), as systemctl prints it on a terminal: read alike
    dotted = _write(tmp_path, "● " + text.replace("active (running)", "inactive (dead)"))
    assert [f["kind"] for f in dotted.failures] == ["fabric_manager_failed"]


# --- nvidia-smi topo -m with every GPU pair SYS --------------------------------------------


def test_every_gpu_pair_sys_within_a_numa_node_is_a_warning() -> None:
    ev = _load(TOPO_ALL_SYS)
    (topo,) = ev.topologies
    assert len(topo["sys_pairs"]) == 28  # every pair of 8 GPUs
    assert topo["sys_within_numa"] == {
        "NUMA node 0": ["GPU0", "GPU1", "GPU2", "GPU3"],
        "NUMA node 1": ["GPU4", "GPU5", "GPU6", "GPU7"],
    }
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    # (and no GPU has a NIC within NCCL's default GPU Direct RDMA distance, PXB)
    assert heldout.above_info(outcome) == [
        ("evidence-gpu-topology-all-sys", "warning"),
        ("evidence-gpu-topology-no-gdr-nic", "warning"),
    ]
    (item,) = heldout.items(outcome, "evidence-gpu-topology-all-sys")
    assert "GPU0, GPU1, GPU2, GPU3 (NUMA node 0); GPU4, GPU5, GPU6, GPU7 (NUMA node 1)" in item
    # the nearest-NIC note stays what it was: GPU6 PHB, the others SYS
    assert any("GPU6: NIC0, NIC1 (PHB)" in m.message for m in ev.files[0].messages)


def test_sys_pairs_across_sockets_only_stay_a_note(tmp_path: Path) -> None:
    # a two-socket server: pairs within a socket NODE, across sockets SYS (its design: info)
    text = (
        "\tGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\tNUMA Affinity\n"
        "GPU0\t X \tNODE\tSYS\tSYS\t0-31\t0\n"
        "GPU1\tNODE\t X \tSYS\tSYS\t0-31\t0\n"
        "GPU2\tSYS\tSYS\t X \tNODE\t32-63\t1\n"
        "GPU3\tSYS\tSYS\tNODE\t X \t32-63\t1\n"
    )
    ev = _write(tmp_path, text)
    (topo,) = ev.topologies
    assert topo["sys_pairs"] and topo["sys_within_numa"] == {}
    level, outcome = heldout.imported(ev)
    assert level == "READY" and "evidence-gpu-topology-sys" in {f.rule_id for f in outcome.findings}
    # one GPU a socket, the pair SYS: no pair of one node, so no warning either
    two = "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\nGPU0\t X \tSYS\t0-7\t0\nGPU1\tSYS\t X \t8-15\t1\n"
    assert _write(tmp_path, two, name="two.txt").topologies[0]["sys_within_numa"] == {}


# --- NCCL's libibverbs WARN with InfiniBand turned off --------------------------------------


def test_a_libibverbs_warn_with_ib_disabled_is_no_fallback() -> None:
    ev = _load(IB_OFF)
    assert [f["kind"] for f in ev.failures if f["kind"] == "nccl_warning"] == []
    notes = [m for m in ev.files[0].messages if "NCCL_IB_DISABLE=1 (line 1)" in m.message]
    assert [(m.line, m.message.split(": ")[1]) for m in notes] == [
        (8, "v100-gpu-1 pid 14926"),
        (11, "v100-gpu-5 pid 9210"),
    ]
    assert all("TCP sockets were the path meant" in m.message for m in notes)
    level, outcome = heldout.imported(ev)
    # (the copy ends after its first row: that warning is true of it, and the only one)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-benchmark-cut-short", "warning")]


def test_the_ib_setting_decides_each_host_it_holds_for(tmp_path: Path) -> None:
    warns = (
        "node-a:101:101 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]\n"
        "node-b:202:202 [0] misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]\n"
    )
    # a shell's export: every host
    ev = _write(tmp_path, "$ export NCCL_IB_DISABLE=1\n" + warns)
    assert [f for f in ev.failures if f["kind"] == "nccl_warning"] == []
    # NCCL's own INFO of it on one host: the other host's WARN is still a fallback
    info = "node-a:101:101 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n"
    ev = _write(tmp_path, info + warns, name="info.txt")
    assert [f["host"] for f in ev.failures if f["kind"] == "nccl_warning"] == ["node-b"]
    # IB left on (=0): NCCL meant to use it, both WARNs the fallback they were
    ev = _write(tmp_path, "mpirun -x NCCL_IB_DISABLE=0 ./all_reduce_perf\n" + warns, name="on.txt")
    assert len([f for f in ev.failures if f["kind"] == "nccl_warning"]) == 2
