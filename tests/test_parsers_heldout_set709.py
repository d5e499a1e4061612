"""Outputs of round UUUU's held-out evaluation (set 709, Ascend tool outputs) that the advisor
read wrong or in part before this change (tests/data/evidence_heldout_81, sources in
tests/data/SOURCES.md): an hccl_test build that g++ stopped ("'HcclCommSetMemoryRange' was not
declared in this scope" against CANN 9.0.0-beta.1's headers) was only a warning quoting its first
error, never saying the test could not run; an Ascend 950 ``-adapt_status`` history whose newest
record (the first row: its reference prints them in reverse chronological order) is a link_fail
was READY with notes only; and ``npu-smi -v``'s one line was no format the advisor knew."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_81"

BUILD = (
    "hccl_test_build_failed_cann_9_0_0_beta1_hcclcommsetmemoryrange_undeclared_vllm_hust_devhub.log"
)
ADAPT = "hccn_tool_950_adapt_status_npu0_udie0_port4_link_fail_linkdown_history_hicann_driver.txt"
VERSION = "npu_smi_version_25_3_rc1_only_vllm_hust_devhub.txt"

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


# --- hccl_test's build stopped by the compiler ------------------------------------------------


def test_a_failed_hccl_test_build_is_a_test_that_cannot_run() -> None:
    ev = _load(BUILD)
    assert ev.files[0].formats == ["log"]
    ((failure,),) = [[f for f in ev.failures if f["kind"] == "test_build_failed"]]
    assert [f["kind"] for f in ev.failures] == ["test_build_failed"]  # no log_error beside it
    assert failure["line"] == 6 and failure["exit_code"] == 1
    message = failure["message"]
    assert message.startswith("hccl_test's build failed (HCCL_BUILD_FAILED exit_code=1 (line 1))")
    assert "70 compiler error line(s)" in message
    assert "built against CANN 9.0.0-beta.1 (ASCEND_TOOLKIT_HOME, line 3)" in message
    assert "7 name(s) its headers do not declare: HcclCommSetMemoryRange (line 6), " in message
    for name in ("HcclCommConfigInit (line 13)", "HcclCommInitRootInfoConfig (line 19)"):
        assert name in message
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-test-build-failed", "critical")]
    (item,) = heldout.items(outcome, "evidence-test-build-failed")
    assert "HcclCommSetMemoryRange" in item and item.endswith("line 6)")


def test_the_build_failure_without_the_scripts_lines_still_fails(tmp_path: Path) -> None:
    # (the compiler's lines alone: no exit line, no toolkit said, nothing made up)
    text = "\n".join(_text(BUILD).splitlines()[4:]) + "\n"
    ev = _write(tmp_path, text)
    (failure,) = ev.failures
    assert failure["kind"] == "test_build_failed" and failure["line"] == 2
    assert failure["exit_code"] is None
    assert "HCCL_BUILD_FAILED" not in failure["message"] and "CANN" not in failure["message"]
    assert heldout.imported(ev)[0] == "NOT READY"


def test_nccl_tests_build_failure_under_another_toolkit_names_it(tmp_path: Path) -> None:
    text = (
        "ASCEND_TOOLKIT_HOME=/usr/local/Ascend/ascend-toolkit/8.0.RC3\n"
        "/home/u/nccl-tests/src/common.cu:120:5: error: 'ncclCommInitRankScalable' was not "
        "declared in this scope\n"
        "make: *** [Makefile:12: all] Error 2\n"
    )
    ev = _write(tmp_path, text)
    (failure,) = ev.failures
    assert failure["kind"] == "test_build_failed" and failure["line"] == 2
    assert failure["message"].startswith("nccl-tests's build failed: 1 compiler error line(s)")
    assert "CANN 8.0.RC3 (ASCEND_TOOLKIT_HOME, line 1)" in failure["message"]
    assert "ncclCommInitRankScalable (line 2)" in failure["message"]


def test_a_compiler_error_in_other_sources_stays_a_log_error(tmp_path: Path) -> None:
    # (a build of the job's own code: not the collective test's, its first error as before)
    text = _text(BUILD).replace("/hccl_test/", "/my_app/")
    ev = _write(tmp_path, text)
    assert [f["kind"] for f in ev.failures] == ["log_error"]
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


# --- Ascend 950 -adapt_status: the newest set-up failed ----------------------------------------


def test_the_newest_link_setup_that_failed_is_a_warning_naming_the_port() -> None:
    ev = _load(ADAPT)
    (port,) = ev.npu_ports
    assert port["device"] == 0 and port["die_port"] == "UDie 0 port 4"
    assert port["link_setup_failed"] == "index 0: L0:link_proc|L1:link_fail"
    assert port["link_setup_failed_line"] == 5
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-npu-port-link-setup-failed", "warning")]
    (item,) = heldout.items(outcome, "evidence-npu-port-link-setup-failed")
    assert item.startswith("NPU 0 UDie 0 port 4: index 0: L0:link_proc|L1:link_fail")
    assert item.endswith("line 5)")


def test_another_npu_whose_newest_setup_went_down_is_named(tmp_path: Path) -> None:
    lines = _text(ADAPT).splitlines()
    # NPU 3 UDie 1 port 2; its newest record the one that went down, the link_fail older
    rows = [r.replace("| 0   | 0    | 4    |", "| 3   | 1    | 2    |") for r in lines]
    rows[4], rows[5] = (
        rows[5].replace("| 1     |", "| 0     |"),
        rows[4].replace("| 0     |", "| 1     |"),
    )
    ev = _write(tmp_path, "\n".join(rows) + "\n")
    (port,) = ev.npu_ports
    assert port["device"] == 3 and port["die_port"] == "UDie 1 port 2"
    assert port["link_setup_failed"] == (
        "index 0: L0:link_proc|L1:wait_detect|L2:linkdown|L3:linkdown_off"
    )
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-npu-port-link-setup-failed")
    assert item.startswith("NPU 3 UDie 1 port 2: ")


def test_a_history_whose_newest_setup_did_not_fail_stays_ready(tmp_path: Path) -> None:
    # the healthy twin: the failures are older records, the newest one a plain start
    lines = _text(ADAPT).splitlines()
    lines[4] = lines[4].replace("L0:link_proc|L1:link_fail ", "L0:start                  ")
    ev = _write(tmp_path, "\n".join(lines) + "\n")
    (port,) = ev.npu_ports
    assert port["link_setup_failed"] is None
    assert len(port["link_history"]) == 5  # (the older failures still told, as a note)
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


# --- npu-smi -v ---------------------------------------------------------------------------------


def test_npu_smi_version_alone_is_read_and_ready() -> None:
    ev = _load(VERSION)
    assert ev.files[0].formats == ["npu_smi_version"] and ev.files[0].status == "read"
    ((line, note),) = [(m.line, m.message) for f in ev.files for m in f.messages]
    assert line == 1
    assert "npu-smi version 25.3.rc1" in note and "no device" in note
    assert ev.npu_chips == [] and ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_npu_smi_version_on_the_line_below_its_label(tmp_path: Path) -> None:
    # (the form some releases' pages print: the label, then the version)
    ev = _write(tmp_path, "npu-smi version:\n24.1.rc2\n")
    assert ev.files[0].formats == ["npu_smi_version"]
    ((line, note),) = [(m.line, m.message) for f in ev.files for m in f.messages]
    assert line == 1 and "npu-smi version 24.1.rc2" in note
    assert heldout.imported(ev)[0] == "READY"
