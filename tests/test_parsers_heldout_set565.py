"""Outputs of round WWW's held-out evaluation (set 565) that the advisor read wrong or not at all
before this change (tests/data/evidence_heldout_60, sources in tests/data/SOURCES.md): Ascend
DMI's failed bandwidth JSON and computing-power test, msprof's op_summary, a 310P card's board
answer above a driver warning, and an MCU's firmware version."""

from __future__ import annotations

import re
import time
from functools import partial

from advisor.evidence.load import load_text
from advisor.parsers import ascend_dmi, logs, msprof, npu_smi
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_60"
DG_JSON = (
    "ascend_dmi_dg_bandwidth_fail_json_d2d_751_of_4999_h2d_d2h_p2p_dev0_dev1_below_threshold"
    "_mindcluster_doc_cut.txt"
)
DMI_F = (
    "ascend_dmi_f_failed_to_load_libascendcl_so_then_after_set_env_dev0_262_tflops_fp16_mindx_dl"
    "_600_faq.txt"
)
OP_SUMMARY = "msprof_op_summary_elementwise_add_ai_vector_core_13_32us_dev0_ascend_npu_harness.csv"
BOARD_310P = (
    "npu_board_310p_npu2_it21pdda011_drv_22_0_4_2_then_tsdrv_wait_logic_cq_abnormal_err16_set"
    "_device_hiascend_forum_cut.txt"
)
MCU_BOARD = (
    "npu_smi_info_t_board_i0_c0_ascend_c3e6_c1_mcu_fw_7_1_0_4_218_atlas200ia2_24_1_0_doc.txt"
)


_load = partial(heldout.load, HELDOUT)


def test_a_cut_dg_json_reads_each_failed_bandwidth_check_on_its_line() -> None:
    ev = _load(DG_JSON)
    (report,) = ev.files
    assert report.formats == ["ascend_dmi"] and report.status == "partial"
    assert [(f["kind"], f["code"], f["line"], f["device"]) for f in ev.failures] == [
        ("dmi_check", "Fail", line, 0) for line in range(9, 14)
    ]
    d2d = ev.failures[0]
    assert d2d["exception_type"] == (
        "Hardware group: FAIL (the group's result; the copy is cut before the item's name and "
        "result): d2d bandwidth diagnosis failed on device 0 with bandwidth 751.0634765625 / 4999"
    )
    assert ev.failures[3]["message"].endswith(
        "p2p unidirectional bandwidth diagnosis failed from device 0 to device 1 with bandwidth "
        "26.207678676901633 / 50"
    )
    found = heldout.found(ev, "hccl")
    assert len(found["evidence-dmi-fail"].items) == 5
    assert "the copy ends inside the JSON (cut)" in heldout.said(ev)[0]


def test_a_whole_dg_json_keeps_its_item_info_lines() -> None:
    text = (
        (HELDOUT / DG_JSON)
        .read_text()
        .replace(
            '"exp',
            '"expected_status": "x", "test_item": "p2p"}]}],\n"item_name": "bandwidth",\n'
            '"item_result": "FAIL"}]}]}',
        )
    )
    (item,) = ascend_dmi.parse(text)[0].items
    assert (item.name, item.state, item.cut) == ("bandwidth", "FAIL", False)
    assert item.checks[0] == (
        9,
        "d2d bandwidth diagnosis failed on device 0 with bandwidth 751.0634765625 / 4999",
    )


def test_ascend_dmi_f_says_the_failed_load_and_the_rerun_that_measured() -> None:
    ev = _load(DMI_F)
    (report,) = ev.files
    assert report.formats == ["ascend_dmi_flops"] and report.status == "read"
    assert not ev.failures
    failed, row = heldout.said(ev)
    assert failed.startswith(
        "ascend_dmi_flops: Failed to load the libascendcl.so dynamic library. Check the "
        "environment configuration dependency. (line 3): ascend-dmi -f could not load "
        "libascendcl.so"
    )
    assert failed.endswith(
        "run again after source /usr/local/Ascend/ascend-toolkit/set_env.sh (line 4), it "
        "measured (line 10): no fault of the device read"
    )
    assert row == (
        "ascend_dmi_flops: ascend-dmi -f, device 0: 262.144 TFLOPS@FP16 at 242.899994 W "
        "(192,000,000 execute times in 1536 ms): figures with no health in them, not judged"
    )


def test_ascend_dmi_f_that_never_loaded_its_library_is_a_tool_failure() -> None:
    text = "\n".join((HELDOUT / DMI_F).read_text().splitlines()[:3])
    (fail,) = load_text(text, "f.txt").failures
    assert (fail["kind"], fail["line"]) == ("ascend_tool_failure", 3)
    assert fail["exception_type"].endswith("the test did not run")


def test_msprofs_op_summary_is_read_as_profile_figures() -> None:
    ev = _load(OP_SUMMARY)
    assert ev.files[0].formats == ["msprof"] and not ev.failures
    (note,) = heldout.said(ev)
    assert note == (
        "msprof: msprof op_summary, device 0: 1 task(s) of 1 operator(s), 13.32 us in all; the "
        "longest: _Z22elementwise_add_kernelPhS_S_ (AI_VECTOR_CORE) 13.32 us, wait 0 us, block "
        "num 8 (line 2): profile figures with no health in them, not judged"
    )


def test_a_squeezed_board_answer_and_the_plogs_driver_warning_are_said() -> None:
    ev = _load(BOARD_310P)
    (report,) = ev.files
    assert report.formats == ["npu_smi_query", "ascend_versions", "log"]
    assert not ev.failures
    said = {m.line: m.message for m in report.messages if m.line}
    board = [m.message for m in report.messages if m.line == 14]
    assert board == [
        "npu_smi_query: npu-smi info -t board of NPU 2: software 22.0.4.2, firmware "
        "1.84.15.2.220, PCIe 0000:02:00.0, serial 2106030728ZEQ5004734",
        "npu_smi_query: npu-smi info -t board of NPU 2 (IT21PDDA011): Chip Count 1, Chip Fault "
        "0, as printed: not judged",
    ]
    assert said[33].endswith(
        "wait_logic_cq abnormal result show: err_code=16 devId=2 tsId=0 (a warning, not judged)"
    )
    assert said[35].startswith(
        "log: drvRetCode 16 is DRV_ERROR_WAIT_TIMEOUT (the driver's wait timed out): "
    )


def test_the_mcus_firmware_version_past_the_figures_said_is_kept() -> None:
    ev = _load(MCU_BOARD)
    mcu = next(m.message for m in ev.files[0].messages if m.line == 13)
    assert "PCIe Bus Info NA; Firmware Version 7.1.0.4.218): figures with no health" in mcu
    assert "..." not in mcu


def test_new_patterns_are_linear_on_a_long_line_and_many_blank_lines() -> None:
    patterns = [
        ascend_dmi.FLOPS_SIGNATURE,
        msprof.OP_SUMMARY_SIGNATURE,
        npu_smi.QUERY_SIGNATURE,
        ascend_dmi._JSON_VALUE_RE.pattern,
        ascend_dmi._JSON_STRING_RE.pattern,
        ascend_dmi._FLOPS_ROW_RE.pattern,
        logs._PLOG_WARNING_RE.pattern,
    ]
    for text in (
        "NPU ID : 1\n" + " " * 100_000,
        '"item_name": "' + "a" * 100_000,
        "1 " * 50_000 + "x",
        "ascend-dmi -f " + "#" * 100_000,
        "\n" * 100_000,
    ):
        start = time.perf_counter()
        for p in patterns:
            re.search(p, text, re.M)
        assert time.perf_counter() - start < 1.0
