"""The nineteenth review's findings on review 18's mends and round P's readings (inputs in
tests/data/review19, written from the formats named in tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor.evidence.load import EvidenceFacts, load_paths
from tests.conftest import DATA

REVIEW = DATA / "review19"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def test_a_corrected_aer_notice_leaves_a_later_memory_error_read() -> None:
    ev = _load("aer01_corrected_aer_then_memory_ue_and_ext4_error.txt")
    kinds = [f["kind"] for f in ev.failures]
    assert kinds[0] == "pcie_aer_corrected_few"
    # the firmware's record of the later, recoverable memory error is read as that; the log's
    # first error line past it is quoted too
    (memory,) = [f for f in ev.failures if f["kind"] == "firmware_memory_error"]
    assert (memory["line"], memory["code_name"]) == (16, "recoverable")
    (later,) = [f for f in ev.failures if f["kind"] == "log_error"]
    assert later["line"] > 23


def test_nvmls_version_mismatch_is_the_tools_set_up() -> None:
    (run,) = _load("nvb01_nvmlinit_rm_version_mismatch.txt").gpu_copy
    assert run["failed"] == [] and len(run["tool_errors"]) == 1
    assert run["complete"] is False


def test_a_pattern_check_failure_leaves_the_run_going_on() -> None:
    (run,) = _load("nvb03_pattern_check_then_next_test_completes.txt").gpu_copy
    assert len(run["failed"]) == 1 and run["complete"] is True


def test_a_health_code_in_the_ids_place_is_replaced_by_the_gpu_its_message_names() -> None:
    (report,) = _load("dcgm01_health_v23_code10_entity_failure.txt").dcgm_diags
    assert report["checks"][0]["gpus"].startswith("GPU: 3 (named by its message")


def test_a_real_entity_id_of_10_stays_its_id() -> None:
    (report,) = _load("dcgm02_health_v3_switch10_warning.txt").dcgm_diags
    assert report["checks"][0]["gpus"] == "NvSwitch: 10"


def test_each_json_health_report_of_a_session_is_read() -> None:
    (report,) = _load("dcgm03_two_json_health_runs_second_fails.txt").dcgm_diags
    (failed,) = report["failed"]
    assert failed["name"] == "NVLINK system" and failed["line"] > 1


def test_msruns_scheduler_exit_is_no_rank_of_its_own() -> None:
    ev = _load("msrun01_worker_exit_then_scheduler.log")
    exits = [f for f in ev.failures if f["kind"] == "launcher_exit"]
    assert len(exits) == 1
    assert exits[0]["exception_type"].endswith("(its scheduler process 1587210 ended too)")


def test_not_initialized_long_after_boot_is_no_start_up() -> None:
    ev = _load("npu01_lost_then_reset_boot_lines_rolled_out.txt")
    assert [f["kind"] for f in ev.failures] == ["npu_driver_error"]


def test_hccps_tls_state_is_its_latest_line_by_time_not_by_grep_order() -> None:
    ev = _load("tls01_grep_r_newer_file_listed_first.log")
    assert [(p["device"], p["tls_enabled"]) for p in ev.npu_ports] == [(0, False), (1, False)]
