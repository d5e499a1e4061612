"""The twentieth review's findings on round S's readings (inputs in tests/data/review20, written
from the formats named in tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor.evidence.load import EvidenceFacts, load_paths
from tests.conftest import DATA

REVIEW = DATA / "review20"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def test_a_store_log_that_ends_in_a_bus_error_is_not_healthy() -> None:
    (error,) = _load("c10d05_info_then_bus_error.log").failures
    assert error["kind"] == "log_error" and error["message"] == "Bus error (core dumped)"


def test_a_runtime_code_on_a_warning_line_is_no_failure() -> None:
    ev = _load("acl01_plog_warning_ipc_set_attr_207021.log")
    assert [e for e in ev.failures if e["kind"] == "npu_runtime_error"] == []


def test_virtual_interfaces_carrier_is_no_link_down() -> None:
    assert _load("carrier01_k8s_node_veth_cali_docker0.log").failures == []


def test_a_footer_belongs_to_the_run_it_follows_not_to_a_later_hung_one() -> None:
    ev = _load("nt01_first_run_rows_elided_second_run_hung.log")
    first, second = sorted(ev.benchmarks, key=lambda b: not b["complete"])
    assert first["complete"] is True and first["footer_avg_busbw_gbps"] == 142.317 * 8
    assert second["complete"] is False and second["footer_avg_busbw_gbps"] is None
    notes = {m.line: m.message for m in ev.files[0].messages}
    assert "the copy left the rows out" in notes[9]
    assert "the log ends before its first size" in notes[11]


def test_a_programs_own_file_line_warn_is_no_nccl_warning() -> None:
    ev = _load("warn01_app_logger_file_line_warn.log")
    assert [e for e in ev.failures if e["kind"] == "nccl_warning"] == []


def test_watchdog_abort_stacks_of_newer_torch_torch_npu_and_an_indented_paste() -> None:
    for name, library in (
        ("wd01_gdb_bt_watchdog_runloop_abort_torch28.log", "NCCL"),
        ("wd02_gdb_bt_torch_npu_hccl_watchdog_abort.log", "HCCL"),
        ("wd03_gdb_bt_indented_paste.log", "NCCL"),
    ):
        (wd,) = _load(name).failures
        assert (wd["kind"], wd["library"]) == ("watchdog_failure", library), name
        assert "handle" in wd["exception_type"] and "aborted" in wd["exception_type"]


def test_the_runtimes_other_wordings_of_a_task_failure() -> None:
    said = {
        name: min(_load(name).failures, key=lambda e: e["line"])["exception_type"]
        for name in (
            "rt01_plog_aicpu_exception_older_wording.log",
            "rt03_plog_core_error_hicann_runtime_head_wording.log",
            "rt04_plog_fftsplus_task_execution_failed_head_wording.log",
        )
    }
    assert (
        "AI CPU task exception, errcode 1 (execute kernel param invalid)"
        in said["rt01_plog_aicpu_exception_older_wording.log"]
    )
    assert (
        "aivec error exception on core 16 (The write address of the MTE"
        in said["rt03_plog_core_error_hicann_runtime_head_wording.log"]
    )
    assert (
        "err_type 12 (fftsplus aivector error)"
        in said["rt04_plog_fftsplus_task_execution_failed_head_wording.log"]
    )
