"""Outputs of round EEEE's held-out evaluation (set 616, network and node tool outputs on GPU
clusters) that the advisor read wrong or in part before this change (tests/data/
evidence_heldout_67, sources in tests/data/SOURCES.md): mlx5's millions of CRC and symbol errors
on every lane left unjudged; a probe script's ``Card: `` label before lspci's heading; an iperf3
server's summary taken for a cut copy; an mlxconfig setting with lower case in its name lost; a
GPU with no NIC within NCCL's GPU Direct RDMA distance; four hosts' ``ip -br`` listings behind
conda-prefixed prompts merged, one host's down bond member hidden."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_67"

ETHTOOL = "ethtool_S_grep_err_connectx6dx_eth5_crc_symbol_errors_13M_all_4_lanes_indented.txt"
LSPCI = "lspci_vv_grep_gt_probe_script_2x_rtx2060_8gts_ok_width_x8_downgraded_bar_separators.txt"
IPERF = (
    "mail_quoted_iperf3_3.9_server_ipoib_16.3gbits_then_ib_send_bw_server_F_a_ib_mlx5_0_11.5GBs.txt"
)
MLXCONFIG = "mlxconfig_q_connectx5_mt4119_zsh_prompt_roce_cc_ecn_next_boot_only.txt"
TOPO = "nvidia_smi_topo_mp_l40s_r760xa_gpu0_node_to_all_10_nics_sriov_vfs_pix.txt"
SGLANG = (
    "sglang_notes_4host_prompt_prefixed_ip_br_ibdev2netdev_topo_m_h_nv18_12nic_aihub0007_"
    "bond_slave_down.txt"
)


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")


# --- ethtool -S: CRC and symbol errors on the physical port ------------------------------------


def test_millions_of_phy_crc_errors_on_every_lane_are_a_failure() -> None:
    ev = _load(ETHTOOL)
    (lossy,) = ev.failures
    assert (lossy["kind"], lossy["line"], lossy["message"]) == (
        "nic_phy_errors",
        2,
        "rx_crc_errors_phy 13147323",
    )
    assert lossy["exception_type"].startswith("eth5: the port dropped received frames")
    assert "lane(s) 0, 1, 2, 3" in lossy["exception_type"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-nic-phy-errors", "critical")]


def test_phy_errors_of_a_link_bring_up_and_lane_errors_alone_say_nothing(tmp_path: Path) -> None:
    # a few CRC errors as a link trained, and raw lane errors FEC corrected (no frame lost),
    # are no lossy link; a headed copy with its packet count says it beside the errors
    few = _write(
        tmp_path,
        "NIC statistics:\n     rx_packets_phy: 90000000\n     rx_crc_errors_phy: 12\n"
        "     rx_err_lane_0_phy: 4000000\n     rx_corrected_bits_phy: 4000000\n",
    )
    assert few.failures == []
    many = _write(
        tmp_path,
        "$ ethtool -S ens3f0np0\nNIC statistics:\n     rx_packets_phy: 90000000\n"
        "     rx_pcs_symbol_err_phy: 25000\n",
    )
    (lossy,) = many.failures
    assert lossy["message"] == "rx_pcs_symbol_err_phy 25000 of rx_packets_phy 90000000"
    assert lossy["exception_type"].startswith("ens3f0np0: ")
    assert "lane" not in lossy["exception_type"]


# --- lspci behind a script's label --------------------------------------------------------------


def test_a_probe_scripts_card_label_keeps_each_gpus_heading() -> None:
    ev = _load(LSPCI)
    assert [(f["kind"], f["line"], f["message"]) for f in ev.failures] == [
        (
            "pcie_link_narrow",
            5,
            "01:00.0 VGA compatible controller: NVIDIA Corporation TU106 [GeForce RTX 2060 "
            "Rev. A] (rev a1)",
        ),
        (
            "pcie_link_narrow",
            11,
            "02:00.0 VGA compatible controller: NVIDIA Corporation TU106 [GeForce RTX 2060 "
            "Rev. A] (rev a1)",
        ),
    ]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-pcie-link-narrow", "warning")]
    assert not any(
        "heading is not in the copy" in i
        for i in heldout.items(outcome, "evidence-pcie-link-narrow")
    )


def test_a_pdsh_host_label_before_the_heading_reads_too(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "gpu07: 3b:00.0 3D controller: NVIDIA Corporation GH100 [H100 PCIe] (rev a1)\n"
        "\t\tLnkCap:\tPort #0, Speed 32GT/s, Width x16, ASPM not supported\n"
        "\t\tLnkSta:\tSpeed 32GT/s (ok), Width x4 (downgraded)\n",
    )
    (narrow,) = ev.failures
    assert narrow["message"].startswith("3b:00.0 3D controller: NVIDIA Corporation GH100")


# --- iperf3: a server's summary -----------------------------------------------------------------


def test_an_iperf3_servers_summary_is_no_cut_copy() -> None:
    ev = _load(IPERF)
    (note,) = [m for m in heldout.said(ev) if m.startswith("iperf3")]
    assert "receiver 16.3 Gbit/s" in note
    assert "sender statistics not available" in note
    assert "the copy ends before the test's summary" not in note
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert (
        "mlx5_0 port 1 (IB): Send BW: 96.561 Gb/s average at 8388608 B"
        in (heldout.items(outcome, "evidence-rdma-perftest")[0])
    )


def test_a_server_summary_cut_before_its_receiver_line_is_still_cut(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "Server listening on 5201\n"
        "[  5] local 10.0.0.2 port 5201 connected to 10.0.0.1 port 41136\n"
        "[ ID] Interval           Transfer     Bitrate\n"
        "[  5]   0.00-1.00   sec  1.80 GBytes  15.5 Gbits/sec\n"
        "- - - - - - - - - - - - - - - - - - - - - - - - -\n"
        "Test Complete. Summary Results:\n"
        "[ ID] Interval           Transfer     Bitrate\n"
        "[  5] (sender statistics not available)\n",
    )
    (note,) = [m for m in heldout.said(ev) if m.startswith("iperf3")]
    assert "the copy ends before the test's summary" in note


# --- mlxconfig: a setting with lower case in its name -------------------------------------------


def test_every_mlxconfig_setting_is_counted_lower_case_names_too() -> None:
    ev = _load(MLXCONFIG)
    (note,) = [m for m in heldout.said(ev) if m.startswith("mlxconfig")]
    # lines 13-101: MEMIC_BAR_SIZE .. SAFE_MODE_ENABLE, EXP_ROM_UEFI_x86_ENABLE (line 97) among them
    assert "ConnectX5 (/dev/mst/mt4119_pciconf0), 89 setting(s)" in note
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


# --- nvidia-smi topo -m: no NIC within GPU Direct RDMA distance ----------------------------------


def test_a_gpu_whose_every_nic_is_node_is_a_warning() -> None:
    ev = _load(TOPO)
    (topo,) = ev.topologies
    assert (topo["no_gdr_nic"], topo["no_near_nic"]) == (["GPU0"], [])
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-gpu-topology-no-gdr-nic", "warning")]
    (item,) = heldout.items(outcome, "evidence-gpu-topology-no-gdr-nic")
    assert item.startswith("GPU0: every NIC at PHB, NODE or SYS")


def test_a_nic_by_any_gpu_or_a_cut_row_is_no_such_warning(tmp_path: Path) -> None:
    near = _write(
        tmp_path,
        "\tGPU0\tGPU1\tNIC0\tCPU Affinity\tNUMA Affinity\n"
        "GPU0\t X \tNV4\tPXB\t0-31\t0\n"
        "GPU1\tNV4\t X \tSYS\t32-63\t1\n"
        "NIC0\tPXB\tSYS\t X \n",
    )
    assert near.topologies[0]["no_gdr_nic"] == []
    cut = _write(
        tmp_path,
        "\tGPU0\tGPU1\tNIC0\tNIC1\tCPU Affinity\tNUMA Affinity\n"
        "GPU0\t X \tSYS\tSYS\n"
        "GPU1\tSYS\t X \tNODE\tPIX\t32-63\t1\n",
    )
    assert cut.topologies[0]["no_gdr_nic"] == []


# --- four hosts' ip -br behind conda-prefixed prompts --------------------------------------------


def test_one_hosts_bond_member_down_where_its_peer_has_it_up() -> None:
    ev = _load(SGLANG)
    (down,) = [f for f in ev.failures if f["kind"] == "link_down_where_peers_up"]
    assert (down["host"], down["line"], down["message"]) == (
        "tpgds-aihub0007",
        9,
        "enp83s0f0np0",
    )
    assert down["exception_type"] == (
        "enp83s0f0np0 down (ip -br: DOWN) while it is up on tpgds-aihub0008"
    )
    # each host's listing its own: aihub0008's up port does not stand for aihub0007's
    (note,) = [m for m in heldout.said(ev) if m.startswith("netif")]
    assert "tpgds-aihub0007: enp83s0f0np0: state DOWN" in note
    assert "64 interface(s)" in note
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert ("evidence-link-down-where-peers-up", "warning") in heldout.above_info(outcome)
    # the RDMA ports whose netdev is down are named with their hosts
    assert all(
        i.startswith("tpgds-aihub00") for i in heldout.items(outcome, "evidence-hca-netdev-down")
    )
    assert {p["host"] for p in ev.hca_ports} == {
        "tpgds-aihub0007",
        "tpgds-aihub0008",
        "tpgds-aihub0009",
        "tpgds-aihub0012",
    }


def test_a_port_down_on_every_host_or_a_single_host_copy_says_no_drift(tmp_path: Path) -> None:
    both = _write(
        tmp_path,
        "(base) [root@node1 ~]$ ip -br a\n"
        "ens1np0          UP             10.0.0.1/31\n"
        "ens2f1np1        DOWN\n"
        "(base) [root@node2 ~]$ ip -br a\n"
        "ens1np0          UP             10.0.0.3/31\n"
        "ens2f1np1        DOWN\n",
    )
    assert [f for f in both.failures if f["kind"] == "link_down_where_peers_up"] == []
    one = _write(
        tmp_path,
        "ens1np0          UP             10.0.0.1/31\nens2np0          DOWN\n",
    )
    assert one.failures == []
