"""Review 70 (part b) of set 730 and review 69's mends, faults 1-6: a looped ``--query-gpu`` A100
whose link fell from x16 to x8 in P0 at 97 %; ibnetdiscover topologies with one HCA link trained
on one lane (1xHDR) and one EDR host among HDR hosts; ifconfig's counters behind pdsh's
"host: "; "Couldn't register GPU MR" given as possibilities; the RDMA plugin's missing issm
device; iperf 2 over IPv4-mapped loopback: each on its input (tests/data/review70, described in
tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import iperf
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review70"
REVIEW69 = DATA / "review69"
HELDOUT = DATA / "evidence_heldout_84"

_write = partial(heldout.load_copy, name="copy.txt")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


def _text(name: str, where: Path = REVIEW) -> str:
    return (where / name).read_text()


# --- 1. a GPU whose link fell from x16 to x8 while in use ----------------------------------------

BUSY = "nvidia_smi_query_gpu_loop_a100_gpu1_x16_then_x8_in_p0_busy.txt"


def test_width_fallen_under_load_warned() -> None:
    level, outcome = heldout.imported(_load(BUSY))
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-gpu-pcie-width-below-peers", "warning")]


def test_width_x8_in_both_passes_still_warned() -> None:
    name = "nvidia_smi_query_gpu_loop_a100_gpu1_x8_both_passes_p0_busy.txt"
    level, outcome = heldout.imported(_load(name))
    assert level == "READY WITH WARNINGS"
    assert ("evidence-gpu-pcie-width-below-peers", "warning") in heldout.above_info(outcome)


def test_width_fallen_at_rest_still_a_note() -> None:
    # review69's real-sample variant: the narrow sample in P8 at rest stays a note
    level, outcome = heldout.imported(
        _load("nvidia_smi_query_gpu_loop_2_a100_gpu1_x16_in_p0_then_x8_in_p8.txt", REVIEW69)
    )
    assert level == "READY" and heldout.above_info(outcome) == []


def test_width_fallen_in_p8_but_busy_warned(tmp_path: Path) -> None:
    # (P8 but 40 % utilization: in use, so the earlier wider sample excuses nothing)
    text = _text(BUSY)
    changed = text.replace("P0, 97 %, 4, 8", "P8, 40 %, 4, 8")
    assert changed != text
    _level, outcome = heldout.imported(_write(tmp_path, changed))
    assert ("evidence-gpu-pcie-width-below-peers", "warning") in heldout.above_info(outcome)


def test_width_fallen_in_p8_idle_a_note(tmp_path: Path) -> None:
    # (the same sample at rest, P8 and 0 %: the help's "not in use" reading, a note)
    changed = _text(BUSY).replace("P0, 97 %, 4, 8", "P8, 0 %, 4, 8")
    level, outcome = heldout.imported(_write(tmp_path, changed))
    assert level == "READY" and heldout.above_info(outcome) == []


# --- 2. an HCA link trained narrower; one EDR host among HDR hosts ------------------------------

ONE_LANE = "ibdiagnet_topo_hdr_agpu1424_hca_trained_1xhdr.txt"
ALONE_EDR = "ibdiagnet_topo_hdr_agpu1424_hca_alone_4xedr.txt"
AGPU = "ibdiagnet_2_6_2_topo_dump_quantum_leaf_agpu_hcas_4xhdr_healthy_hyungkwang_topo6_cut.txt"
ST21 = (
    "ibdiagnet_2_6_2_topo_dump_quantum_leaf_16_st21scr_hcas_4xedr_on_hdr_fabric_"
    "hyungkwang_topo6_cut.txt"
)


def _rates_note(ev: EvidenceFacts) -> str:
    return next(m for _, m in heldout.notes(ev) if "link rates" in m)


def test_one_lane_hca_link_trained_narrower() -> None:
    ev = _load(ONE_LANE)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-hca-link-narrower-than-peers", "warning")]
    (item,) = heldout.items(outcome, "evidence-hca-link-narrower-than-peers")
    assert "agpu1424 HCA-2" in item and "on 1 lane(s) against 4" in item
    note = _rates_note(ev)
    assert "trained narrower" in note and "older HCA generation" not in note


def test_two_lane_hca_link_trained_narrower(tmp_path: Path) -> None:
    text = _text(ONE_LANE).replace("1xHDR", "2xHDR")
    _level, outcome = heldout.imported(_write(tmp_path, text))
    (item,) = heldout.items(outcome, "evidence-hca-link-narrower-than-peers")
    assert "on 2 lane(s) against 4" in item


def test_one_edr_host_among_hdr_slower_than_peers() -> None:
    ev = _load(ALONE_EDR)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-hca-link-lanes-slower", "warning")]
    note = _rates_note(ev)
    assert "slower than their peers" in note and "older HCA generation" not in note


def test_every_host_edr_under_hdr_still_a_generation() -> None:
    ev = _load(ST21, HELDOUT)
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    assert "older HCA generation" in _rates_note(ev)


def test_healthy_agpu_topology_still_ready() -> None:
    level, outcome = heldout.imported(_load(AGPU, HELDOUT))
    assert level == "READY" and heldout.above_info(outcome) == []


# --- 3. ifconfig's counters behind pdsh's "host: " -----------------------------------------------

PDSH_IFCONFIG = "ifconfig_ib0_rx0_pdsh_azhpc21.txt"
AZHPC21 = "ifconfig_ib0_ipoib_mtu2044_rx_packets_0_hw_address_warning_azure_hc44rs_azhpc21_cut.txt"


def test_pdsh_ifconfig_nothing_received_host_named() -> None:
    level, outcome = heldout.imported(_load(PDSH_IFCONFIG))
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-netif-nothing-received")
    assert item.startswith("azhpc21: ib0: RX packets 0 (line 6)")
    assert "since it came up" not in item


def test_bare_azhpc21_still_warned() -> None:
    _level, outcome = heldout.imported(_load(AZHPC21, HELDOUT))
    (item,) = heldout.items(outcome, "evidence-netif-nothing-received")
    assert item.startswith("ib0: RX packets 0")


def test_pdsh_ifconfig_two_hosts_each_read(tmp_path: Path) -> None:
    one = _text(PDSH_IFCONFIG)
    two = one + one.replace("azhpc21: ", "azhpc22: ").replace("RX packets 0 ", "RX packets 7 ")
    _level, outcome = heldout.imported(_write(tmp_path, two))
    (item,) = heldout.items(outcome, "evidence-netif-nothing-received")
    assert item.startswith("azhpc21: ib0")


# --- 4. "Couldn't register GPU MR": possibilities, not one cause --------------------------------

GDRA = "gpu_direct_rdma_access_ibv_reg_mr_couldnt_register_gpu_mr_nv_peer_mem_disabled_gdra5.txt"


def test_gpu_mr_refused_possibilities() -> None:
    level, outcome = heldout.imported(_load(GDRA, HELDOUT))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-gpu-mr-refused")
    assert "ibv_reg_mr refused the GPU buffer" in item and "does not say why" in item
    assert "nvidia-peermem" in item and "BAR1" in item
    assert "is not there for this GPU" not in item


def test_gpu_mr_refused_pdsh_copy_still_not_ready() -> None:
    level, outcome = heldout.imported(_load("gdra_couldnt_register_gpu_mr_pdsh_bare_gpu_a.txt"))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-gpu-mr-refused")
    assert "the line alone does not say why" in item


# --- 5. the RDMA plugin's missing issm: possibilities by kernel ---------------------------------

PLUGIN = (
    "k8s_rdma_shared_dev_plugin_error_creating_new_device_issm_not_found_c4_00_x_eth_mode_cx6_"
    "rdmasdp159_cut.log"
)


def test_issm_missing_possibilities_not_a_rule() -> None:
    _level, outcome = heldout.imported(_load(PLUGIN, HELDOUT))
    issm = heldout.items(outcome, "evidence-devices-not-offered")[0]
    assert "the plugin found none for these functions" in issm
    assert "ib_umad not loaded" in issm and "on kernels with the SMI check" in issm
    assert "which Linux makes for an InfiniBand port only" not in issm


def test_umad_missing_wording_unchanged(tmp_path: Path) -> None:
    text = _text(PLUGIN, HELDOUT).replace('\\"issm\\"', '\\"umad\\"')
    _level, outcome = heldout.imported(_write(tmp_path, text))
    umad = heldout.items(outcome, "evidence-devices-not-offered")[0]
    assert "ib_umad's, loaded by the host's rdma-core" in umad


# --- 6. iperf 2 over IPv4-mapped loopback --------------------------------------------------------


def test_v4mapped_loopback_said_loopback() -> None:
    ev = _load("iperf2_server_loopback_v4mapped_i1_cut.txt")
    assert any("loopback test (::ffff:127.0.0.1" in m for _, m in heldout.notes(ev))


def test_is_loopback_addresses() -> None:
    assert iperf._is_loopback("::ffff:127.0.0.1")
    assert iperf._is_loopback("127.0.0.1") and iperf._is_loopback("::1")
    assert not iperf._is_loopback("::ffff:10.0.0.5")
    assert not iperf._is_loopback("10.0.0.5")
