"""Outputs of round SSSS's held-out evaluation (set 697, Ascend tool outputs, part b) that the
advisor read wrong before this change (tests/data/evidence_heldout_79, sources in
tests/data/SOURCES.md): a black box's ``bbox/driver.txt`` whose driver names a multi-bit ECC
error on device 2 under exception 0xa8028802, and a device slog's IMP EVENT line whose rf_lf 1
and pcs_err_cnt 5 are MindCluster FaultDiag's fiber/copper cable link fault, were both no format
the advisor knew (unknown, exit 2)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_79"

DRIVER_TXT = "msnpureport_bbox_driver_txt_device2_multi_ecc_err_excep_0xa8028802_mindcluster.txt"
IMP_SLOG = "msnpureport_slog_device1_imp_event_rf_lf_1_pcs_err_cnt_5_mindcluster.log"

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


# --- the black box's driver.txt: a multi-bit ECC error ------------------------------------------


def test_a_driver_txt_multi_ecc_error_is_not_ready_naming_device_code_and_address() -> None:
    ev = _load(DRIVER_TXT)
    assert ev.files[0].status == "read"
    (failure,) = ev.failures
    assert failure["kind"] == "npu_bbox_exception"
    assert (failure["line"], failure["device"], failure["code"]) == (4, 2, "0xA8028802")
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-npu-bbox-exception", "critical")]
    (item,) = heldout.items(outcome, "evidence-npu-bbox-exception")
    assert item.startswith("Device 2: black box driver.txt: driver exception 0xA8028802: ")
    assert "multi-bit (uncorrectable) ECC error at physical address 0x400cd8d202e0" in item
    assert "RestartBusiness" in item and item.endswith("line 4)")


def test_a_driver_txt_of_another_device_and_code_names_them(tmp_path: Path) -> None:
    text = (
        _text(DRIVER_TXT)
        .replace("devid: 2", "devid: 5")
        .replace("0xa8028802", "0xa8028801")
        .replace("device_id = 2", "device_id = 5")
        .replace("device_id-2", "device_id-5")
        .replace("0x400cd8d202e0", "0x400c00001000")
    )
    ev = _write(tmp_path, text)
    (failure,) = ev.failures
    assert (failure["device"], failure["code"]) == (5, "0xA8028801")
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-npu-bbox-exception")
    assert "0x400c00001000" in item
    assert "RestartBusiness" not in item  # (0xA8028801 is not in that list of MindCluster's)


def test_a_driver_txt_without_a_fault_line_stays_ready(tmp_path: Path) -> None:
    # the box's driver info with its device working and no exception: nothing failed
    head = "\n".join(_text(DRIVER_TXT).splitlines()[:2]) + "\n"
    level, outcome = heldout.imported(_write(tmp_path, head))
    assert level == "READY" and heldout.above_info(outcome) == []


# --- a device slog's IMP line: FaultDiag's fiber/copper cable link fault -----------------------


def test_an_imp_line_with_rf_lf_and_pcs_errors_is_a_link_fault_warning_on_device_1() -> None:
    ev = _load(IMP_SLOG)
    assert ev.files[0].status == "read"
    (failure,) = ev.failures
    assert failure["kind"] == "npu_port_link_fault"
    assert (failure["line"], failure["device"], failure["code"]) == (1, 1, "0x81078603")
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-npu-port-link-fault", "warning")]
    (item,) = heldout.items(outcome, "evidence-npu-port-link-fault")
    assert item.startswith("device 1 die 0: rf_lf 1 (the port's remote/local fault flag) with ")
    assert "pcs_err_cnt 5 (5 PCS error(s))" in item and "mac_link 1, pcs_link 1" in item
    assert item.endswith("line 1)")


def test_a_healthy_imp_twin_stays_ready(tmp_path: Path) -> None:
    text = _text(IMP_SLOG).replace("rf_lf 1, pcs_err_cnt 5", "rf_lf 0, pcs_err_cnt 0")
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "READY" and heldout.above_info(outcome) == []


def test_rf_lf_1_without_pcs_errors_is_no_fault_but_rf_lf_2_is(tmp_path: Path) -> None:
    # FaultDiag's npu_device_parse.py: rf_lf 1 with pcs_err_cnt 0 does not meet the fault;
    # its attr_regex takes rf_lf 2 whatever the count
    quiet = _text(IMP_SLOG).replace("pcs_err_cnt 5", "pcs_err_cnt 0")
    assert heldout.imported(_write(tmp_path, quiet))[0] == "READY"
    remote = _text(IMP_SLOG).replace("rf_lf 1, pcs_err_cnt 5", "rf_lf 2, pcs_err_cnt 0")
    ev = _write(tmp_path, remote)
    assert [f["kind"] for f in ev.failures] == ["npu_port_link_fault"]


def test_several_imp_lines_give_one_finding_a_port(tmp_path: Path) -> None:
    line = _text(IMP_SLOG).rstrip("\n")
    other = line.replace("device_id:1 die_id:0", "device_id:6 die_id:0").replace(
        "pcs_err_cnt 5", "pcs_err_cnt 12"
    )
    ev = _write(tmp_path, "\n".join([line, line, other]) + "\n")
    faults = [(f["line"], f["device"], f["repeated_lines"]) for f in ev.failures]
    assert faults == [(1, 1, [2]), (3, 6, None)]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    items = heldout.items(outcome, "evidence-npu-port-link-fault")
    assert items[0].startswith("device 1 die 0") and "again on 1 later line(s)" in items[0]
    assert items[1].startswith("device 6 die 0") and "pcs_err_cnt 12" in items[1]
