"""Outputs of round VVVV's held-out evaluation (set 716, Ascend logs) that the advisor read in
part before this change (tests/data/evidence_heldout_82, sources in tests/data/SOURCES.md): two
310P CANN plogs were read on their first DRV line alone, under HCCL's heading, the failed model
load (aclmdlLoadFromFile) and the AI Core task exception (retCode 0x91, the MTE's DDR address out
of range) not named; and an AscendCL EL0005 block named neither device 0, nor the runtime's 107001,
nor that the process sees no device (``valid devId range is [0, 0)``)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_82"

LOAD = "cann_plog_310p_pyacl_load_om_drv_mem_remote_map_ioctl_ret8_pcie_host_register_0x7020010_aclmdlloadfromfile_failed_idx4750576588.log"
EXCEPTION = "cann_plog_310p_msame_real_task_exception_kernel_aicore_model_execute_0x91_ez9999_mte_ddr_out_of_range_device0_idx4750576588_cut.log"
EL0005 = "acl_el0005_resources_busy_second_container_same_davinci0_ctxcreate_107001_valid_devid_range_0_0_idx27301462122.log"

_write = partial(heldout.load_copy, name="plog.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _rules(ev: EvidenceFacts) -> tuple[str, list[str]]:
    level, outcome = heldout.imported(ev)
    return level, sorted(f.rule_id for f in outcome.findings if f.severity != "info")


def test_failed_model_load_is_named_with_its_code_and_device_not_under_hccl() -> None:
    ev = _load(LOAD)
    (failure,) = ev.failures
    assert failure["kind"] == "npu_runtime_error"
    assert (failure["line"], failure["device"], failure["pid"]) == (12, 0, 69072)
    assert failure["code"] == "1343225857"
    assert "Parameter's invalid!" in failure["code_name"] and "line 10" in failure["code_name"]
    assert "aclmdlLoadFromFile" in failure["exception_type"]
    assert "driver's error at line 1" in failure["exception_type"]
    level, rules = _rules(ev)
    assert level == "NOT READY"
    assert rules == ["evidence-npu-runtime-error"]  # (no HCCL heading: no HCCL in the plog)


def test_aicore_task_exception_is_the_device_exception_with_0x91_and_the_mte_fault() -> None:
    ev = _load(EXCEPTION)
    (failure,) = ev.failures
    assert failure["kind"] == "npu_device_exception"
    assert (failure["line"], failure["device"], failure["code"]) == (4, 0, "EZ9999")
    said = failure["exception_type"]
    assert "KERNEL_AICORE task exception on device 0" in said
    assert "retCode 0x91 = TS_MODEL_STREAM_EXE_FAILED" in said and "(line 5)" in said
    assert "The DDR address of the MTE instruction is out of range" in said and "(line 7)" in said
    assert "driver's error at line 1" in said
    level, rules = _rules(ev)
    assert level == "NOT READY"
    assert rules == ["evidence-npu-device-exception"]


def test_exception_on_another_device_and_process_is_read_as_its_own(tmp_path: Path) -> None:
    text = (
        _text(EXCEPTION)
        .replace("10686", "4321")
        .replace("device_id=0", "device_id=3")
        .replace("device(0)", "device(3)")
    )
    (failure,) = _write(tmp_path, text).failures
    assert (failure["kind"], failure["device"], failure["pid"]) == ("npu_device_exception", 3, 4321)


def test_drv_error_alone_stays_the_plog_error(tmp_path: Path) -> None:
    # the driver's error with nothing failing after it: not a device exception nor a model load
    text = "".join(_text(LOAD).splitlines(keepends=True)[:3])
    (failure,) = _write(tmp_path, text).failures
    assert failure["kind"] == "hccl_plog_error" and failure["line"] == 1


def test_model_load_failure_on_another_device(tmp_path: Path) -> None:
    text = _text(LOAD).replace("devid=0", "devid=2").replace("dev_id=0", "dev_id=2")
    (failure,) = _write(tmp_path, text).failures
    assert (failure["kind"], failure["device"]) == ("npu_runtime_error", 2)


def test_el0005_names_device_107001_and_no_visible_device() -> None:
    ev = _load(EL0005)
    (failure,) = ev.failures
    assert (failure["code"], failure["device"], failure["line"]) == ("EL0005", 0, 1)
    said = failure["exception_type"]
    assert "context on device 0 could not be created" in said
    assert "107001 = ACL_ERROR_RT_INVALID_DEVICEID (line 7)" in said
    assert "sees no device at all" in said and "line 5" in said
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-hccl-other-error"]
    assert "resources are busy" in str(finding.items[0])
    assert "another process or container" in str(finding.items[0])


def test_el0005_with_devices_visible_does_not_say_none_seen(tmp_path: Path) -> None:
    text = (
        _text(EL0005)
        .replace(
            "current device=0, valid devId range is [0, 0)",
            "current device=9, valid devId range is [0, 8)",
        )
        .replace("device is 0", "device is 9")
    )
    (failure,) = _write(tmp_path, text).failures
    assert failure["device"] == 9
    assert "sees no device" not in failure["exception_type"]
    assert "[0, 8)" in failure["exception_type"]
