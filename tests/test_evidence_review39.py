"""Review 39 of round SSS's readings (0.0.0.0 server ids, dcgmi's returns, a full disk, GetNext's
task, accelerate's state through a logger, npu-smi's log export, ibstat and ibv_devinfo of two
hosts, empty and trimmed ibv_devices listings, nccl-tests footers alone): each fault it found, on
its input (tests/data/review39, described in tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

REVIEW = DATA / "review39"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def test_a_rank_table_that_gives_two_servers_0000_is_still_checked_for_duplicates() -> None:
    (table,) = _load("rank_table_2srv_both_server_id_0000_duplicate_server_hidden.json").rank_tables
    assert "server 0.0.0.0 appears 2 times in server_list" in table["errors"]
    (table,) = _load(
        "rank_table_group_list_0000_device0_twice_two_ranks_one_device_hidden.json"
    ).rank_tables
    assert any(
        "device 0 on server 0.0.0.0 is listed 2 times (ranks 0, 7)" in e for e in table["errors"]
    )
    assert table["placeholders"] == ["0.0.0.0"]


def test_dcgmis_returns_of_a_lost_or_drained_gpu_are_hardware_failures() -> None:
    for name, codes in (
        ("dcgmi_diag_return_minus18_gpu_lost_minus19_reset_said_not_hardware.txt", ["-18", "-19"]),
        ("dcgmi_diag_return_minus51_isolate_drain_gpu_said_not_hardware.txt", ["-51"]),
    ):
        ev = _load(name)
        failed = [c for d in ev.dcgm_diags for c in d["failed"]]
        assert [c["section"] for c in failed] == ["Hardware"] * len(codes), name
        for check, code in zip(failed, codes, strict=True):
            assert f"return {code}:" in check["summary"]
            assert "no GPU was tested" not in check["summary"]
        found = builtin_findings({"evidence.dcgm_diags": ev.dcgm_diags}, "nccl")
        assert "evidence-dcgm-diag-failed" in found
        assert "evidence-dcgm-diag-precondition" not in found


def test_an_errno_28_retried_or_of_inotify_is_no_full_disk() -> None:
    ev = _load("disk_full_checkpoint_retried_then_saved_run_finished.log")
    assert not ev.failures
    ev = _load("disk_full_inotify_watch_limit_errno28_not_disk.log")
    assert [f["kind"] for f in ev.failures] == ["python_exception"]


def test_a_full_disk_after_the_time_outs_is_said_not_to_have_caused_them() -> None:
    ev = _load("disk_full_after_nccl_timeout_emergency_save.log")
    (full,) = [f for f in ev.failures if f["kind"] == "disk_full"]
    assert full["exception_type"].endswith("; after the failure on line 2, which it did not cause")


def test_torchs_shared_memory_write_that_found_no_space_is_a_full_dev_shm() -> None:
    ev = _load("disk_full_dataloader_shm_unable_to_write_no_space_28_missed.log")
    (full,) = [f for f in ev.failures if f["kind"] == "disk_full"]
    assert full["exception_type"].startswith(
        "a write to shared memory failed: no space left in /dev/shm (torch's /torch_"
    )


def test_getnext_takes_its_own_tasks_code_the_nearest_above() -> None:
    ev = _load("mindspore_two_failed_tasks_getnext_second_given_first_retcode.log")
    (getnext,) = [f for f in ev.failures if f["kind"] == "input_pipeline_failure"]
    assert (getnext["code"], getnext["code_name"]) == ("507011", "ACL_ERROR_RT_MODEL_EXECUTE")


def test_accelerates_state_through_a_logger_is_read() -> None:
    ev = _load("accelerate_state_logger_info_prefix_hf_no_trainer.log")
    (note,) = heldout.said(ev)
    assert note.startswith("log: accelerate: MULTI_GPU (backend nccl), 2 process(es)")


def test_a_log_exports_devices_are_named_by_their_own_folders() -> None:
    ev = _load("npu_smi_sys_log_dump_paths_without_date_dir_devices_named_tmp.txt")
    (note,) = heldout.said(ev)
    assert "started for 2 device(s) (NPU-0, NPU-1) under /var/log/npu_dump;" in note


def test_two_hosts_ibstat_and_ibv_devinfo_of_one_device_name_stay_two_ports() -> None:
    for name in (
        "ibstat_gpu_a_then_ssh_gpu_b_ibv_devinfo_two_down_ports_merged_into_one.txt",
        "ibstat_and_ibv_devinfo_two_hosts_headers_two_down_ports_merged_into_one.txt",
    ):
        items = heldout.found(_load(name))["evidence-hca-port-not-active"].items
        assert len(items) == 2, name


def test_a_trimmed_ibv_devices_listing_is_no_empty_one() -> None:
    ev = _load("ibv_devices_list_trimmed_with_ellipsis_said_no_device.txt")
    assert not ev.failures
    assert heldout.said(ev) == ["ibv_devices: the copy left out its rows (no device row is in it)"]


def test_a_second_hosts_empty_ibv_devices_listing_is_no_device() -> None:
    ev = _load("ibv_devices_two_hosts_second_empty.txt")
    (none,) = ev.failures
    assert (none["kind"], none["line"]) == ("rdma_no_device", 6)


def test_footers_alone_keep_each_runs_own_check_in_either_order() -> None:
    ev = _load("nccl_tests_bare_footers_avg_before_oob_failed_check_lost.txt")
    runs = [(b["avg_busbw_gbps"], [c["ranks"] for c in b["failed_checks"]]) for b in ev.benchmarks]
    assert [r[0] for r in runs] == [481 * 8.0, 470 * 8.0]
    assert runs[0][1] == [] and runs[1][1] != []  # (the 6.8 run's 7 FAILED, not the first's 0 OK)


def test_footers_of_other_ranks_or_other_steps_are_no_slower_rerun() -> None:
    ev = _load("nccl_tests_footers_one_node_8_then_two_nodes_16_called_rerun_slower.txt")
    assert [b["ranks"] for b in ev.benchmarks] == [8, 16]
    assert not any("rerun_best" in b for b in ev.benchmarks)
    ev = _load("nccl_tests_footers_f2_sweep_vs_i2g_steps_same_bounds_called_rerun_slower.txt")
    assert not any("rerun_best" in b for b in ev.benchmarks)


def test_a_footer_whose_average_is_dots_is_read_without_it() -> None:
    ev = _load("nccl_tests_bare_footer_avg_elided_dots_crash.txt")
    (bench,) = ev.benchmarks
    assert bench["avg_busbw_gbps"] is None
    assert any("its average is not a figure in the copy" in m for m in heldout.said(ev))
