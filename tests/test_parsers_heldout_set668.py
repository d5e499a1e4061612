"""Outputs of round NNNN's held-out evaluation (set 668, Ascend logs) that the advisor read wrong
before this change (tests/data/evidence_heldout_74, sources in tests/data/SOURCES.md): an NPU
black box's history.log recording a TS_EXCEPTION (0xB4060007) and a DRIVER_EXCEPTION (0xA8028802),
said to hold no error line; and MindCluster's device plugin told of switch faults (a port fault's
recovery, a fatal forwarding-chip fault raised and recovered a minute later), not read at all."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import load_paths
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_74"

BBOX = "ascend_hisi_logs_bbox_history_ts_exception_driver_exception_device0_history.log"
SWITCH = (
    "mindcluster_device_plugin_switch_fault_events_port_f1ff09_chip_155907_occur_recover_"
    "devicePlugin.log"
)

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


# --- the black box's history.log ---------------------------------------------------------------


def test_the_black_boxs_exceptions_are_read_with_their_codes() -> None:
    ev = _load(BBOX)
    assert ev.files[0].formats == ["log"]
    hits = [f for f in ev.failures if f["kind"] == "npu_bbox_exception"]
    assert [(f["line"], f["code"], f["code_name"]) for f in hits] == [
        (1, "0xB4060007", "TS_EXCEPTION"),
        (2, "0xA8028802", "DRIVER_EXCEPTION"),
    ]
    # (the file names no device; its own name is no hisi_logs/device-N folder)
    assert [f["device"] for f in hits] == [None, None]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-npu-bbox-exception", "critical")]
    first, second = heldout.items(outcome, "evidence-npu-bbox-exception")
    assert "exception code 0xB4060007 of module TS, TS_EXCEPTION at 2023-07-13-16:20:44" in first
    assert "RestartBusiness" in first and "line 1)" in first
    assert "0xA8028802 of module DRIVER, DRIVER_EXCEPTION" in second and "line 2)" in second
    assert not any("no line says an error" in m.message for m in ev.files[0].messages)


def test_the_device_is_read_from_the_hisi_logs_folder(tmp_path: Path) -> None:
    folder = tmp_path / "hisi_logs" / "device-5"
    folder.mkdir(parents=True)
    (folder / "history.log").write_text(_text(BBOX).replace("0xB4060007", "0xB4060011"))
    ev = load_paths([folder / "history.log"])
    hits = [f for f in ev.failures if f["kind"] == "npu_bbox_exception"]
    assert [(f["device"], f["code"]) for f in hits] == [(5, "0xB4060011"), (5, "0xA8028802")]
    _, outcome = heldout.imported(ev)
    assert all(
        i.startswith("Device 5: ") for i in heldout.items(outcome, "evidence-npu-bbox-exception")
    )


def test_the_device_sides_form_names_its_device(tmp_path: Path) -> None:
    # (bbox_rdr_data_parser.c's form: no space before the brackets, the device in the line)
    text = (
        "system exception code[0xB4060007]: Device[3], ModuleName[TS], "
        "ExceptionReason[TS_EXCEPTION], TimeStamp [20230713162044-070000011].\n"
        "system exception code[0xA8028802]: Device[3], ModuleName[DRIVER], "
        "ExceptionReason[DRIVER_EXCEPTION], TimeStamp [20211005230708-651408009].\n"
    )
    ev = _write(tmp_path, text)
    hits = [f for f in ev.failures if f["kind"] == "npu_bbox_exception"]
    assert [(f["device"], f["code"], f["line"]) for f in hits] == [
        (3, "0xB4060007", 1),
        (3, "0xA8028802", 2),
    ]


def test_a_history_of_no_exception_stays_ready(tmp_path: Path) -> None:
    ev = _write(tmp_path, "bbox dump start\nbbox dump end, no exception recorded\n")
    assert not [f for f in ev.failures if f["kind"] == "npu_bbox_exception"]
    level, _ = heldout.imported(ev)
    assert level == "READY"


# --- MindCluster's device plugin and its switch fault events ------------------------------------


def test_switch_faults_raised_and_recovered_are_a_warning() -> None:
    ev = _load(SWITCH)
    hits = [f for f in ev.failures if f["kind"].startswith("switch_fault")]
    assert [(f["kind"], f["code"], f["line"]) for f in hits] == [
        ("switch_fault_cleared", "[0x00f1ff09,155912,npu,na]", 1),
        ("switch_fault_cleared", "[0x00f103b0,155907,na,na]", 2),
    ]
    assert hits[1]["repeated_lines"] == [2, 3]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-switch-fault-cleared", "warning")]
    port, chip = heldout.items(outcome, "evidence-switch-fault-cleared")
    assert "forwarding engine port failure, L1 <-> NPU" in port
    assert "recovered at 2024/01/10 03:30:38 (line 1), raised before the log begins" in port
    assert "a fatal fault in the forwarding chip" in chip and "SeparateFaultCodes" in chip
    assert (
        "raised at 2024/01/10 03:31:38 (line 2), recovered at 2024/01/10 03:32:38 (line 3)" in chip
    )


def test_a_fault_never_recovered_is_a_failure(tmp_path: Path) -> None:
    # (the log without its last line: the chip fault raised and still standing)
    text = "".join(_text(SWITCH).splitlines(keepends=True)[:2])
    ev = _write(tmp_path, text)
    (active,) = [f for f in ev.failures if f["kind"] == "switch_fault"]
    assert (active["code"], active["line"]) == ("[0x00f103b0,155907,na,na]", 2)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-switch-fault")
    assert "raised at 2024/01/10 03:31:38 (line 2) and not recovered in the log" in item


def test_another_code_raised_again_after_its_recovery_stands(tmp_path: Path) -> None:
    lines = _text(SWITCH).splitlines(keepends=True)
    raised = lines[1].replace("0xf103b0", "0xf103b0").replace("155907", "155649")
    raised = raised.replace("03:31:38", "03:40:00")
    text = "".join(lines) + "\n" + raised.replace("155649", "155907")
    ev = _write(tmp_path, text)
    kinds = {(f["kind"], f["code"]) for f in ev.failures if f["kind"].startswith("switch_fault")}
    assert ("switch_fault", "[0x00f103b0,155907,na,na]") in kinds
    (active,) = [f for f in ev.failures if f["kind"] == "switch_fault"]
    assert active["line"] == 4
    level, _ = heldout.imported(ev)
    assert level == "NOT READY"


def test_a_device_plugin_log_with_no_switch_fault_stays_ready(tmp_path: Path) -> None:
    text = (
        "[INFO]     2024/01/10 03:30:38.643330 17      deviceswitch/ascend_switch.go:200    "
        "no switch fault codes to query, skip this cycle\n"
    ) * 3
    ev = _write(tmp_path, text)
    assert not [f for f in ev.failures if f["kind"].startswith("switch_fault")]
    level, _ = heldout.imported(ev)
    assert level == "READY"
