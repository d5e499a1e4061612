"""Outputs of round TTTT's held-out evaluation (set 706, network and node tool outputs on GPU
clusters) that the advisor read wrong or in part before this change
(tests/data/evidence_heldout_80, sources in tests/data/SOURCES.md): an ``ibv_devinfo -v`` port's
phys_state and GID rows copied without its hca_id and port lines were no format it knew; an
``mst start`` followed by an ``mst status`` whose MST modules are not loaded and that lists no
device was no format either; a show_gids copy cut after its last device's first row had that
device judged as lacking a RoCEv2 GID; and lspci -vvv's root port with no device behind it
(``DLActive-``, the slot's ``PresDet-``) was read as a device link running slow."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from advisor.parsers import lspci
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_80"

DEVINFO = "ibv_devinfo_v_mlx5_bond_0_roce_link_up_gid0_3_fragment_nccl769_cut.txt"
MST = "mst_start_success_then_mst_status_pci_modules_not_loaded_lshca28.txt"
GIDS = "show_gids_macvlan_pod_mlx5_0_1_2_gid_index_4_7_net1_3_prompt_nccl1573_cut.txt"
LSPCI = "lspci_vvv_root_port3_x1_lnksta_2_5gts_downgraded_dlactive_minus_rocm_tf92_cut.txt"

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


# --- ibv_devinfo -v: phys_state and GID rows without the device's head ----------------------


def test_an_ibv_devinfo_port_fragment_of_gid_rows_is_read_healthy() -> None:
    ev = _load(DEVINFO)
    assert ev.files[0].formats == ["rdma"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    (note,) = [(line, m) for line, m in _said(ev) if "ibv_devinfo" in m]
    assert note[0] == 1
    for said in (
        "phys_state LINK_UP (line 1): the physical link is up",
        "4 GID(s) (lines 2-5)",
        "GID[1] fe80::ac0:ebff:feda:1cfb RoCE v2",
        "RoCE v2 with an IPv4 address at index 3 (200.0.209.6, line 5)",
        "device, port and logical state not in the copy",
    ):
        assert said in note[1], said


def test_a_fragment_with_another_state_and_address_says_them(tmp_path: Path) -> None:
    text = (
        _text(DEVINFO)
        .replace("LINK_UP (5)", "POLLING (2)")
        .replace("::ffff:200.0.209.6", "::ffff:10.1.2.3")
    )
    ev = _write(tmp_path, text)
    (note,) = [m for _, m in _said(ev) if "ibv_devinfo" in m]
    assert "phys_state POLLING (line 1): the physical link is not up" in note
    assert "index 3 (10.1.2.3, line 5)" in note and "200.0.209.6" not in note


def test_gid_rows_with_another_field_after_them_are_not_taken_as_the_fragment(
    tmp_path: Path,
) -> None:
    # (the fragment reader takes phys_state and GID rows alone: a line of prose after them is
    # not a GID row, and the copy stays unread rather than half read)
    ev = _write(tmp_path, _text(DEVINFO) + "and then NCCL hangs at init\n")
    assert not any("GID(s)" in m for _, m in _said(ev))


# --- mst start, then mst status with its modules not loaded ------------------------------------


def test_mst_status_with_its_modules_not_loaded_and_no_device_is_a_warning() -> None:
    ev = _load(MST)
    assert ev.files[0].formats == ["mst_status"] and ev.files[0].status == "read"
    (failure,) = ev.failures
    assert (failure["kind"], failure["line"], failure["library"]) == ("mst_not_loaded", 12, "mst")
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-mst-not-loaded", "warning")]
    (item,) = heldout.items(outcome, "evidence-mst-not-loaded")
    for said in (
        "the MST PCI and PCI configuration modules not loaded (lines 12-13)",
        "no device listed",
        "mst start (line 2) reported loading them (lines 3, 4)",
        "unloaded only the PCI module as unused (line 6)",
    ):
        assert said in item, said


def test_mst_status_alone_with_one_module_not_loaded_names_it(tmp_path: Path) -> None:
    text = (
        "# mst status\nMST modules:\n------------\n    MST PCI configuration module is not loaded\n"
    )
    ev = _write(tmp_path, text)
    (failure,) = ev.failures
    assert failure["kind"] == "mst_not_loaded" and failure["line"] == 4
    assert "the MST PCI configuration module not loaded (line 4)" in failure["exception_type"]
    assert "mst start" not in failure["exception_type"]


def test_mst_without_its_modules_that_lists_pci_devices_is_a_note(tmp_path: Path) -> None:
    # NVIDIA MFT's "Running mst in an Environment without a Kernel": the devices by address
    text = _text(MST) + "\nPCI Devices:\n------------\n05:00.0\n08:00.0\n"
    ev = _write(tmp_path, text)
    assert ev.failures == []
    level, _ = heldout.imported(ev)
    assert level == "READY"
    (note,) = [m for _, m in _said(ev) if "mst status" in m]
    assert "the 2 device(s) by PCI address (05:00.0, 08:00.0)" in note


def test_mst_status_with_devices_is_read_as_before(tmp_path: Path) -> None:
    text = (
        "MST modules:\n------------\n    MST PCI module is not loaded\n"
        "    MST PCI configuration module loaded\n\nMST devices:\n------------\n"
        "/dev/mst/mt4123_pciconf0         - PCI configuration cycles access.\n"
        "                                   domain:bus:dev.fn=0000:3b:00.0 addr.reg=88 data.reg=92"
        " cr_bar.gw_offset=-1\n"
    )
    ev = _write(tmp_path, text)
    assert ev.failures == []
    assert any(
        "mst status: 1 device(s): /dev/mst/mt4123_pciconf0 (ConnectX-6)" in m for _, m in _said(ev)
    )


# --- show_gids cut inside its last device's rows ------------------------------------------------


def test_a_show_gids_copy_cut_in_its_last_device_does_not_judge_that_device() -> None:
    ev = _load(GIDS)
    assert ev.files[0].status == "partial"
    assert ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    said = dict(_said(ev))
    assert said[4] == "show_gids: mlx5_0 port 1 (net1): 4 GID(s); RoCEv2 index 7 10.152.0.12"
    assert said[8] == "show_gids: mlx5_1 port 1 (net2): 4 GID(s); RoCEv2 index 7 10.152.4.12"
    assert "the copy ends after its index 4 row (line 12)" in said[12]
    assert "not judged" in said[12]


def test_a_whole_show_gids_whose_device_lacks_the_gid_is_still_a_warning(tmp_path: Path) -> None:
    # (the same rows with n_gids_found: nothing cut, mlx5_2's one row is all it has)
    ev = _write(tmp_path, _text(GIDS) + "n_gids_found=9\n")
    (failure,) = ev.failures
    assert (failure["kind"], failure["line"], failure["message"]) == (
        "rdma_no_gid",
        12,
        "mlx5_2 port 1: no RoCEv2 GID with an IPv4 address",
    )
    level, _ = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"


def test_a_cut_copy_still_judges_a_device_above_its_last(tmp_path: Path) -> None:
    # mlx5_0 without its IPv4 rows, the copy still cut in mlx5_2: mlx5_0 is whole, so judged
    lines = _text(GIDS).splitlines(keepends=True)
    ev = _write(tmp_path, "".join(lines[:5] + lines[7:]))
    (failure,) = ev.failures
    assert failure["kind"] == "rdma_no_gid" and failure["message"].startswith("mlx5_0 port 1")


# --- lspci -vvv: a root port with no device behind it ------------------------------------------


def test_a_port_with_no_device_present_is_not_called_slow() -> None:
    ev = _load(LSPCI)
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    ((line, note),) = [(line, m) for line, m in _said(ev) if m.startswith("lspci_link")]
    assert line == 6
    assert "PCIe link 2.5GT/s x1 against its 5GT/s x1 capability: no device behind it" in note
    assert "PresDet-, no card present (line 12)" in note
    assert "DLActive-, no data link up (line 7)" in note
    assert "slower than it can run" not in note and "GPU lowers" not in note
    (link,) = lspci.parse(_text(LSPCI))
    assert (link.present, link.link_active) == (False, False)
    assert (link.present_line, link.link_active_line) == (12, 7)


def test_a_slot_with_a_card_and_link_up_is_still_slower_than_it_can_run(tmp_path: Path) -> None:
    text = (
        _text(LSPCI)
        .replace("DLActive-", "DLActive+")
        .replace("CmdCplt- PresDet- Interlock-", "CmdCplt- PresDet+ Interlock-")
    )
    ev = _write(tmp_path, text)
    ((_, note),) = [(line, m) for line, m in _said(ev) if m.startswith("lspci_link")]
    assert "slower than it can run" in note and "no device behind it" not in note


def test_dlactive_minus_is_not_counted_where_the_port_does_not_report_it(tmp_path: Path) -> None:
    # LLActRep- (LnkCap): the port does not report DLActive, whose "-" then says nothing; a card
    # in the slot (PresDet+) leaves the slow link as it was
    text = (
        _text(LSPCI)
        .replace("LLActRep+", "LLActRep-")
        .replace("CmdCplt- PresDet- Interlock-", "CmdCplt- PresDet+ Interlock-")
    )
    (link,) = lspci.parse(text)
    assert link.link_active is None and link.present is True
    ev = _write(tmp_path, text)
    assert any("slower than it can run" in m for _, m in _said(ev))


def test_the_slot_control_and_changed_presdet_bits_are_not_the_presence() -> None:
    # SltCtl's "Enable: ... PresDet-" (line 10) and "Changed: ... PresDet-" (line 13) are the
    # interrupt enable and change bits: only SltSta's Status line gives the presence
    text = _text(LSPCI).replace("CmdCplt- PresDet- Interlock-", "CmdCplt- PresDet+ Interlock-")
    (link,) = lspci.parse(text)
    assert link.present is True and link.present_line == 12
