"""Outputs of round DDDD's held-out evaluation (set 610, network and node tool outputs on GPU
clusters) that the advisor read in part before this change (tests/data/evidence_heldout_66,
sources in tests/data/SOURCES.md): mlx5 counters of pause frames sent and PCIe signal-integrity
errors left unjudged; perftest's port state printed behind the shell's prompt of a run sent to
the background; iperf3's parameters that did not come through its open control connection; a
NIC's PCIe link trained a generation slower taken for an idle GPU's."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_66"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")


# --- ethtool -S: pause frames sent, PCIe signal integrity -------------------------------------


def test_mlx5_pause_frames_sent_and_pcie_signal_errors_are_a_warning() -> None:
    ev = _load(
        "ethtool_S_grep_pause_pci_mlx5_cx4lx_25g_tx_pause_ctrl_phy_1266552_tx_pci_signal_"
        "integrity_3_chinese_label.txt"
    )
    pauses, pcie = ev.failures
    assert (pauses["kind"], pauses["line"]) == ("nic_counters_warn", 6)
    assert pauses["message"] == "tx_pause_ctrl_phy 1266552 (tx_global_pause_duration 555665182)"
    assert pauses["exception_type"].startswith("eth03: pause frames the port sent")
    assert (pcie["kind"], pcie["line"], pcie["message"]) == (
        "nic_counters_warn",
        8,
        "tx_pci_signal_integrity 3",
    )
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nic-counters-warn", "warning")]
    # (no loss counter is said: none is above 0)
    assert any("every loss counter (errors, drops, discards) is 0" in m for m in heldout.said(ev))


def test_pfc_pauses_and_a_pause_storm_and_few_pauses(tmp_path: Path) -> None:
    # PFC's per-priority counter over the threshold, a storm's error event; a port that sent a
    # few pause frames only (a burst's) says nothing
    ev = _write(
        tmp_path,
        "NIC statistics:\n"
        "     rx_packets: 1000\n"
        "     tx_prio3_pause: 250000\n"
        "     tx_pause_storm_error_events: 2\n"
        "     rx_pci_signal_integrity: 0\n",
    )
    assert [(f["line"], f["message"]) for f in ev.failures] == [
        (3, "tx_prio3_pause 250000"),
        (4, "tx_pause_storm_error_events 2"),
    ]
    assert "stopped sending them" in ev.failures[1]["exception_type"]
    few = _write(
        tmp_path,
        "# ethtool -S ens1f0np0 | grep pause\n     tx_pause_ctrl_phy: 1200\n"
        "     rx_pause_ctrl_phy: 7\n     tx_global_pause: 1200\n",
    )
    assert few.failures == []


# --- perftest behind the shell's prompt ---------------------------------------------------------


def test_backgrounded_perftests_port_down_behind_the_prompt_is_critical() -> None:
    ev = _load(
        "ibdev2netdev_vf_mlx5_18_net1_down_then_ib_write_bw_port1_down_couldnt_get_context_bg_"
        "job_exit1_pod_dgx_a100.txt"
    )
    (run,) = [p for p in ev.hca_ports if p["perftest"]]
    assert (run["ca"], run["port"]) == ("mlx5_18", 1)
    test = run["perftest"]
    assert (test["port_not_active"], test["failed_line"]) == ("Down", 6)
    assert test["failed"].startswith("Port number 1 state is Down")
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert ("evidence-rdma-perftest-port-not-active", "critical") in heldout.above_info(outcome)
    assert ("evidence-rdma-perftest-failed", "warning") not in heldout.above_info(outcome)
    (item,) = heldout.items(outcome, "evidence-rdma-perftest-port-not-active")
    assert item.startswith("mlx5_18 port 1: ib_write_bw: Port number 1 state is Down (")
    assert item.endswith(", line 6)")


def test_a_bracketed_prompt_before_perftests_words(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "[root@gpu-07 ~]# ib_send_bw -d mlx5_2 -i 2 &\n"
        "[1] 4411\n"
        "[root@gpu-07 ~]#  Port number 2 state is Init\n"
        " Couldn't set the link layer\n"
        " Couldn't get context for the device\n",
    )
    (run,) = [p for p in ev.hca_ports if p["perftest"]]
    assert (run["ca"], run["port"], run["perftest"]["port_not_active"]) == ("mlx5_2", 2, "Init")
    assert run["perftest"]["failed_line"] == 3


# --- iperf3: parameters that did not come through ----------------------------------------------


def test_iperf3_parameters_not_received_over_the_open_connection_is_a_failure() -> None:
    ev = _load(
        "iperf3_server_docker_compose_prefixed_unable_to_receive_parameters_from_client_client_"
        "exited_code_1_s2n_quic.txt"
    )
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"]) == ("iperf_exchange_failed", 2)
    assert fail["message"] == "iperf3: error - unable to receive parameters from client"
    assert fail["exception_type"].endswith(": nothing was measured")
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-iperf3-exchange-failed", "critical")]
    (item,) = heldout.items(outcome, "evidence-iperf3-exchange-failed")
    assert "client::" not in item
    assert item.endswith(", line 2)")


def test_iperf3_clients_results_not_received_and_a_refusal_stays_a_warning(
    tmp_path: Path,
) -> None:
    ev = _write(
        tmp_path,
        "$ iperf3 -c 10.0.0.9\n"
        "Connecting to host 10.0.0.9, port 5201\n"
        "iperf3: error - unable to receive results: Connection reset by peer\n",
    )
    (fail,) = ev.failures
    assert fail["kind"] == "iperf_exchange_failed"
    assert fail["exception_type"].startswith("the client's control connection with 10.0.0.9 ")
    refused = _write(
        tmp_path,
        "$ iperf3 -c 10.0.0.9\niperf3: error - unable to connect to server: Connection refused\n",
    )
    assert [f["kind"] for f in refused.failures] == ["iperf_failed"]


# --- lspci: a NIC's link trained slower ---------------------------------------------------------


def test_a_nics_pcie_link_at_half_its_speed_is_a_warning() -> None:
    ev = _load(
        "lspci_vvv_grep_width_cx6_ocp3_200g_16gts_capable_running_8gts_downgraded_x16_dmesg_"
        "linkup_omz_prompt.txt"
    )
    (slow,) = ev.failures
    assert (slow["kind"], slow["line"], slow["message"]) == ("pcie_link_slow", 4, "01:00.0")
    assert slow["exception_type"].startswith(
        "PCIe link 8GT/s x16 against its 16GT/s x16 capability: a NIC's link"
    )
    assert "about 126 Gb/s" in slow["exception_type"]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-pcie-link-slow", "warning")]
    assert not any("a GPU lowers its link speed" in m for m in heldout.said(ev))


def test_a_nic_by_its_heading_and_a_gpu_and_another_address(tmp_path: Path) -> None:
    # a NIC by its heading's class; a GPU's slower link stays a note; a NIC driver's line of
    # another address says nothing of the device grepped
    nic = _write(
        tmp_path,
        "41:00.0 Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n"
        "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM not supported\n"
        "\t\tLnkSta:\tSpeed 16GT/s (downgraded), Width x16 (ok)\n",
    )
    assert [f["kind"] for f in nic.failures] == ["pcie_link_slow"]
    gpu = _write(
        tmp_path,
        "[  12.5] mlx5_core 0000:02:00.0: Port module event: module 0, Cable plugged\n"
        "$ sudo lspci -s 01:00.0 -vvv | grep Width\n"
        "\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16\n"
        "\t\tLnkSta:\tSpeed 2.5GT/s (downgraded), Width x16 (ok)\n",
    )
    assert gpu.failures == []
    assert any("a GPU lowers its link speed when idle" in m for m in heldout.said(gpu))
