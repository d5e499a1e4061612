"""Outputs of round SSSS's held-out evaluation (set 700, network and node tool outputs on GPU
clusters, part b) that the advisor read in part before this change
(tests/data/evidence_heldout_79, sources in tests/data/SOURCES.md): an ``ibdev2netdev -v``
listing after ``echo 4 > sriov_numvfs`` warned twice that the four ConnectX-4 virtual functions
(MT4116) it had just created were Down, as if rails had failed beside the two active physical
functions; and ibqueryerrors' PortNeighborMTUDiscards on a switch port, an MTU mismatch on its
link, was only a note (READY)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from advisor.parsers import rdma
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_79"

VFS = "ibdev2netdev_v_connectx4_mlx5_0_1_up_4_new_vfs_down_sriov_dp_vf_setup_cut.txt"
MTU = (
    "ibqueryerrors_infiniscale_iv_switch_port_27_xmtdiscards_8_neighbor_mtu_discards_rdma_core"
    "_8d673b4_cut.txt"
)

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


# --- ibdev2netdev -v: virtual functions just created beside active physical functions ----------


def test_new_vfs_down_beside_active_pfs_are_a_note_not_failed_rails() -> None:
    ev = _load(VFS)
    assert ev.files[0].formats == ["rdma"] and ev.files[0].status == "read"
    by_ca = {p["ca"]: p for p in ev.hca_ports}
    assert sorted(by_ca) == ["mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_4", "mlx5_5"]
    for pf in ("mlx5_0", "mlx5_1"):
        assert by_ca[pf]["active"] and by_ca[pf]["netdev_up"]
        assert by_ca[pf]["vf"] is None and not by_ca[pf]["vf_unused"]
    vfs = [by_ca[f"mlx5_{n}"] for n in range(2, 6)]
    assert [(p["line"], p["state"], p["netdev_up"]) for p in vfs] == [
        (9, "DOWN", False),
        (10, "DOWN", False),
        (11, "DOWN", False),
        (12, "DOWN", False),
    ]
    assert {p["vf"] for p in vfs} == {"ConnectX-4 Virtual Function"}
    assert all(p["vf_unused"] for p in vfs)
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    ((line, note),) = [(no, m) for no, m in _said(ev) if "virtual function" in m]
    assert line == 9
    assert "4 SR-IOV virtual function port(s) not active" in note
    assert "mlx5_2 port 1 (line 9)" in note and "mlx5_5 port 1 (line 12)" in note
    assert "ConnectX-4 Virtual Function (MT4116, PCI device 0x1014)" in note
    assert "write of 4 to /sys/class/net/enp2s0f0/device/sriov_numvfs at line 5" in note
    assert "(mlx5_0, mlx5_1)" in note and "no failed rail" in note


def test_vfs_alone_down_are_still_warned(tmp_path: Path) -> None:
    # a pod's or VM's own listing: VFs only, no physical function; a Down VF there is its RDMA
    # path down, warned as before
    rows = _text(VFS).splitlines(keepends=True)[8:10]
    ev = _write(tmp_path, "".join(rows))
    assert all(p["vf"] and not p["vf_unused"] for p in ev.hca_ports)
    level, outcome = heldout.imported(ev)
    assert level != "READY"
    assert any(
        f.rule_id in ("evidence-hca-netdev-down", "evidence-hca-host-all-ports-down")
        for f in outcome.findings
    )
    assert not [m for _, m in _said(ev) if "virtual function" in m]


def test_a_pf_down_beside_new_vfs_is_still_warned(tmp_path: Path) -> None:
    # the second physical function's port Down: a real port to look at, the VFs still a note
    text = _text(VFS).replace(
        "mlx5_1 (MT4115 - MT1523X04353) CX456A - ConnectX-4 QSFP fw 12.23.1020 port 1 (ACTIVE) "
        "==> enp2s0f1 (Up)",
        "mlx5_1 (MT4115 - MT1523X04353) CX456A - ConnectX-4 QSFP fw 12.23.1020 port 1 (DOWN  ) "
        "==> enp2s0f1 (Down)",
    )
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    items = heldout.items(outcome, "evidence-hca-port-not-active")
    assert len(items) == 1 and items[0].startswith("mlx5_1 port 1: DOWN")


def test_connectx5_vfs_on_another_host_read_the_same(tmp_path: Path) -> None:
    # ConnectX-5 (0x1017, MT4119) and its VF (0x1018, MT4120), rdma-core's mlx5 table; no write
    # in the copy: no sriov_numvfs named
    rows = _text(VFS).splitlines(keepends=True)[6:]
    text = "".join(rows).replace("MT4115", "MT4119").replace("MT4116", "MT4120")
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    (note,) = [m for _, m in _said(ev) if "virtual function" in m]
    assert "ConnectX-5 Virtual Function (MT4120, PCI device 0x1018)" in note
    assert "sriov_numvfs" not in note


def test_healthy_twin_with_every_port_up_stays_ready_and_says_no_vf_note(tmp_path: Path) -> None:
    text = _text(VFS).replace("(DOWN  )", "(ACTIVE)").replace("(Down)", "(Up)")
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    assert not [m for _, m in _said(ev) if "virtual function" in m]
    assert not [p for p in ev.hca_ports if p["vf_unused"]]


def test_vf_part_reads_the_mt_ids_of_rdma_cores_mlx5_table() -> None:
    assert rdma._vf_part("MT4116") == "ConnectX-4 Virtual Function"
    assert rdma._vf_part("MT4115") is None  # ConnectX-4 itself
    assert rdma._vf_part("4116") == "ConnectX-4 Virtual Function"  # ibv_devinfo vendor_part_id
    assert rdma._vf_part("MT4129") is None  # ConnectX-7
    assert rdma._vf_part(None) is None


# --- ibqueryerrors: PortNeighborMTUDiscards ---------------------------------------------------


def test_neighbor_mtu_discards_on_a_switch_port_are_warned_as_an_mtu_mismatch() -> None:
    ev = _load(MTU)
    assert ev.files[0].formats == ["ibqueryerrors"] and ev.files[0].status == "read"
    (hit,) = [f for f in ev.failures if f["kind"] == "ib_neighbor_mtu_discards"]
    assert hit["line"] == 2
    assert hit["message"] == "PortNeighborMTUDiscards 8 (XmtDiscards 8)"
    assert hit["exception_type"].startswith("Infiniscale-IV Mellanox Technologies port 27: ")
    assert "longer than the MTU of its link to its neighbour" in hit["exception_type"]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-ib-neighbor-mtu-discards", "warning")]
    ((line, note),) = _said(ev)
    assert line == 2
    assert "port 27: XmtDiscards 8, PortNeighborMTUDiscards 8" in note
    assert "an MTU mismatch on that link" in note


def test_discards_without_the_mtu_counter_raise_no_mtu_warning(tmp_path: Path) -> None:
    # the same port's XmtDiscards alone (congestion or a port down: no MTU said)
    text = _text(MTU).replace(" [PortNeighborMTUDiscards == 8]", "")
    ev = _write(tmp_path, text)
    assert not [f for f in ev.failures if f["kind"] == "ib_neighbor_mtu_discards"]
    assert "MTU" not in _said(ev)[0][1]
    level, _ = heldout.imported(ev)
    assert level == "READY"


def test_another_switch_port_and_the_all_row_count_once(tmp_path: Path) -> None:
    text = (
        'Errors for 0x7cfe900300a1b2c0 "MF0;leaf3:MQM8700/U1"\n'
        "   GUID 0x7cfe900300a1b2c0 port ALL: [PortXmitDiscards == 40] "
        "[PortNeighborMTUDiscards == 40]\n"
        "   GUID 0x7cfe900300a1b2c0 port 12: [PortXmitDiscards == 40] "
        "[PortNeighborMTUDiscards == 40]\n"
    )
    ev = _write(tmp_path, text)
    (hit,) = [f for f in ev.failures if f["kind"] == "ib_neighbor_mtu_discards"]
    assert hit["line"] == 3 and "leaf3:MQM8700/U1 port 12" in hit["exception_type"]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-ib-neighbor-mtu-discards")
    assert "PortNeighborMTUDiscards 40 (PortXmitDiscards 40)" in item


def test_neighbor_mtu_discards_ceiling_is_said() -> None:
    text = _text(MTU).replace("PortNeighborMTUDiscards == 8", "PortNeighborMTUDiscards == 65535")
    (note,) = rdma.ibqueryerrors_notes(text)
    assert "PortNeighborMTUDiscards 65535 (its ceiling: it stopped counting)" in note.message
