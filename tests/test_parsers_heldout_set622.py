"""Outputs of round FFFF's held-out evaluation (set 622, network and node tool outputs on GPU
clusters) that the advisor read in part or not at all before this change
(tests/data/evidence_heldout_67, sources in tests/data/SOURCES.md): an iperf3 test whose sender
retransmitted 9310 segments in 5 s, noted but not judged; a loop's `MLX Number: mlx5_N  LnkSta:`
lines, one at x4 (downgraded), not read; a NIC health-check script's mlxlink excerpts (Physical
state alone) under its own device headings, not read; an ib_read_bw server whose exchange broke
after its report's header, read as a mere warning."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.parsers import iperf
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_67"

IPERF3 = "iperf3_aws_ena_t3_5s_2.99gbps_9310_retransmits_osv_pr1283.txt"
LNKSTA = "lspci_lnksta_per_mlx5_loop_mlx5_106_gen4_width_x4_downgraded_nccl_precheck.txt"
SCRIPT = (
    "mft_mlx_nic_health_check_script_4x_cx7_200g_linkup_fw28.40_temp65_mst_mlxconfig_mlxlink_"
    "flint.txt"
)
PERFTEST = "perftest_ib_read_bw_server_mlx4_0_ethernet_read_keys_failed_exchange_sparkrdma31.txt"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")


# --- iperf3's sender retransmitting a large share of its segments -----------------------------


def test_iperf3s_9310_retransmits_in_5_s_at_2_99_gbits_is_a_lossy_path() -> None:
    ev = _load(IPERF3)
    (heavy,) = ev.failures
    assert (heavy["kind"], heavy["line"]) == ("tcp_retransmits_heavy", 12)
    # (2.99 Gbit/s over 5 s is some 1.29 M segments of 1448 bytes: 9310 of them 0.72 %)
    assert heavy["exception_type"] == (
        "9310 TCP retransmits in 5 s at 2.99 Gbit/s: at least 0.72 % of its segments"
    )
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-iperf3-retransmits-heavy", "warning")]
    (item,) = heldout.items(outcome, "evidence-iperf3-retransmits-heavy")
    assert item.startswith("iperf3 client 172.31.90.167 to 172.31.89.244:5201: 9310 TCP")
    (note,) = heldout.said(ev)
    assert "sender 2.99 Gbit/s (9310 TCP retransmits); receiver 2.97 Gbit/s" in note


def test_a_few_retransmits_of_a_fast_test_or_a_parallel_tests_sum_read_apart(
    tmp_path: Path,
) -> None:
    # (120 retransmits of some 8.1 M segments: 0.0015 %, TCP's ordinary probing)
    quiet = _write(
        tmp_path,
        "[ ID] Interval           Transfer     Bitrate         Retr\n"
        "[  5]   0.00-10.00  sec  10.9 GBytes  9.38 Gbits/sec  120             sender\n"
        "[  5]   0.00-10.04  sec  10.9 GBytes  9.34 Gbits/sec                  receiver\n",
    )
    assert not quiet.failures
    assert heldout.imported(quiet)[0] == "READY"
    lossy = _write(
        tmp_path,
        "[  5] local 10.0.0.1 port 5000 connected to 10.0.0.2 port 5201\n"
        "[  7] local 10.0.0.1 port 5002 connected to 10.0.0.2 port 5201\n"
        "[ ID] Interval           Transfer     Bitrate         Retr\n"
        "[  5]   0.00-10.00  sec   600 MBytes   503 Mbits/sec  2600             sender\n"
        "[  5]   0.00-10.04  sec   600 MBytes   501 Mbits/sec                  receiver\n"
        "[  7]   0.00-10.00  sec   600 MBytes   503 Mbits/sec  2600             sender\n"
        "[  7]   0.00-10.04  sec   600 MBytes   501 Mbits/sec                  receiver\n"
        "[SUM]   0.00-10.00  sec  1.17 GBytes  1.01 Gbits/sec  5200             sender\n"
        "[SUM]   0.00-10.04  sec  1.17 GBytes  1.00 Gbits/sec                  receiver\n",
    )
    # (-P 2: the [SUM] sender line's retransmits against both streams' bytes, 0.6 %)
    (heavy,) = lossy.failures
    assert (heavy["kind"], heavy["line"]) == ("tcp_retransmits_heavy", 8)
    assert heavy["exception_type"].startswith("5200 TCP retransmits in 10 s at 1.01 Gbit/s")


def test_the_share_counts_1448_byte_segments() -> None:
    run = iperf.Iperf3Run(line=1, role="client", sender_bps=1e9, seconds=8.0, retransmits=4000)
    # (1 GB in 1448-byte segments: 690,608 of them; 4000 is 0.58 %)
    share = iperf.retransmit_share(run)
    assert share is not None and round(share, 4) == 0.0058
    run.retransmits = 3000
    assert iperf.retransmit_share(run) is None


# --- a loop's per-device LnkSta lines ---------------------------------------------------------


def test_mlx5_106s_link_at_x4_downgraded_in_a_loops_labelled_lines() -> None:
    ev = _load(LNKSTA)
    (narrow,) = ev.failures
    assert (narrow["kind"], narrow["line"]) == ("pcie_link_narrow", 2)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-pcie-link-narrow", "warning")]
    (item,) = heldout.items(outcome, "evidence-pcie-link-narrow")
    assert item.startswith("mlx5_106: PCIe link 16GT/s x4")
    assert "mlx5_107" not in str(outcome.findings)


def test_another_label_or_none_reads_the_same(tmp_path: Path) -> None:
    other = _write(
        tmp_path,
        "node3 mlx5_0:\tLnkSta:\tSpeed 16GT/s (ok), Width x8 (downgraded)\n"
        "node3 mlx5_1:\tLnkSta:\tSpeed 16GT/s (ok), Width x16 (ok)\n",
    )
    (narrow,) = other.failures
    assert (narrow["kind"], narrow["line"], narrow["message"]) == ("pcie_link_narrow", 1, "mlx5_0")
    # (a label that names no device: the link is read, its device unknown, nothing invented)
    bare = _write(tmp_path, "status:  LnkSta: Speed 16GT/s (ok), Width x16 (ok)\n")
    assert not bare.failures
    assert bare.files[0].formats == ["lspci_link"]


# --- a health-check script's mlxlink excerpts --------------------------------------------------


def test_four_cx7_ports_at_linkup_200g_under_the_scripts_device_headings() -> None:
    ev = _load(SCRIPT)
    # (its plain "mst status" block, lines 12-24, is read too since set 688: the two CX-7s)
    assert ev.files[0].formats == ["mst_status", "mlxlink"]
    ports = [(p["ca"], p["line"], p["physical_state"], p["rate_gbps"]) for p in ev.hca_ports]
    assert ports == [
        ("0000:05:00.0", 36, "LinkUp", 200.0),
        ("0000:05:00.1", 59, "LinkUp", 200.0),
        ("0001:05:00.0", 82, "LinkUp", 200.0),
        ("0001:05:00.1", 105, "LinkUp", 200.0),
    ]
    # (the logical State line is not in the excerpt: unknown, not said active or down)
    assert {(p["state"], p["active"], p["firmware"]) for p in ev.hca_ports} == {
        (None, None, "28.40.1000")
    }
    assert not ev.failures
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    notes = [n for n in heldout.said(ev) if n.startswith("mlxlink: ")]
    assert notes[0] == (
        "mlxlink: 0000:05:00.0 port 1 physical state LinkUp (its logical State not in the copy), "
        "200 Gb/s Ethernet, firmware 28.40.1000"
    )


def test_a_port_whose_phy_is_not_up_in_such_an_excerpt_is_not_active(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "### NIC mlx5_2 ###\n"
        "Operational Info\n"
        "----------------\n"
        "Physical state                     : Polling\n"
        "Speed                              : N/A\n",
    )
    (port,) = ev.hca_ports
    assert (port["ca"], port["line"], port["active"]) == ("mlx5_2", 4, False)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-hca-port-not-active")
    assert item.startswith("mlx5_2 port 1: physical state Polling (")


# --- perftest broken off after its report's header ---------------------------------------------


def test_ib_read_bw_server_whose_exchange_broke_after_its_header_is_a_failure() -> None:
    ev = _load(PERFTEST)
    (port,) = ev.hca_ports
    run = port["perftest"]
    assert (port["ca"], run["failed"], run["failed_line"], run["broke_off"]) == (
        "mlx4_0",
        "Couldn't read remote address",
        23,
        True,
    )
    assert run["rows"] == []
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-rdma-perftest-broke-off", "critical")]
    (item,) = heldout.items(outcome, "evidence-rdma-perftest-broke-off")
    assert item.startswith("mlx4_0 port 1: RDMA_Read BW: Couldn't read remote address (")
    assert item.endswith("line 23)")


def test_a_client_that_failed_before_its_header_is_still_a_warning(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "$ ib_write_bw -d mlx5_0 10.0.0.2\n"
        "Couldn't connect to 10.0.0.2:18515\n"
        "Unable to open file descriptor for socket connection Unable to init the socket "
        "connection\n",
    )
    (port,) = ev.hca_ports
    assert port["perftest"]["broke_off"] is False
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-rdma-perftest-failed", "warning")]
