"""Outputs of round SSS's held-out evaluation (sets 541-546) that the advisor read wrong or not
at all before this change (tests/data/evidence_heldout_59, sources in tests/data/SOURCES.md),
and two older patterns that were quadratic on long lines."""

from __future__ import annotations

import time

from advisor.evidence.load import load_text
from advisor.parsers import logs
from tests import heldout
from tests.rules_facts import builtin_findings
from tests.test_parsers_heldout_set453 import _load

# --- Ascend tool outputs (set 541) -------------------------------------------------------------


def test_an_ipv6_address_query_is_the_ports_ipv6_address_not_a_missing_ipaddr() -> None:
    ev = _load(
        "mindcluster_envcheck_npu_info_before_910a_x8_25_0_rc1_health_ok_net_success_link_flaps_fw_7_7_outside_drv_range.txt"
    )
    assert not any("no 'ipaddr' line" in m for m in heldout.said(ev))
    by_device = {p["device"]: p for p in ev.npu_ports}
    assert (by_device[0]["ipv6addr"], by_device[0]["ipv6_prefix"]) == ("127::101", 112)
    assert by_device[7]["ipv6addr"] == "127::108"
    assert by_device[0]["ipaddr"] is None  # (its IPv4 address is -ip -g's, not in the file)


def test_firmware_above_the_drivers_range_is_a_mismatch_though_its_version_has_letters() -> None:
    ev = _load(
        "mindcluster_envcheck_npu_info_before_910a_x8_25_0_rc1_health_ok_net_success_link_flaps_fw_7_7_outside_drv_range.txt"
    )
    said = [m["said"] for m in ev.package_mismatches]
    # 7.7.T5 is above 7.6.99 at 7.7 and 25.0.rc1 above every range at 25, whatever the letter
    # parts after them
    assert said == [
        "firmware 7.7.T5.0.B019 is outside driver 25.0.rc1.b002's compatible_version_fw "
        "(7.0.0 to 7.6.99)",
        "driver 25.0.rc1.b002 is outside firmware 7.7.T5.0.B019's compatible_version_drv "
        "(23.0.rc3 to 23.0.rc3., 23.0.0 to 23.0.0., 24.0 to 24.0., 24.1 to 24.1.)",
    ]


def test_npu_smis_refusal_of_a_user_other_than_root_is_said() -> None:
    ev = _load(
        "npu_smi_set_h_root_only_then_t_cpu_freq_up_and_work_mode_not_supported_i4_910b3_devenv_ops_blas_notes.txt"
    )
    first = heldout.said(ev)[0]
    assert first == (
        "ascend_notes: npu-smi set -h: refused, the command runs only as root (the user was not "
        "root): nothing was set or read, no device's state is in it"
    )
    assert ev.files[0].messages[0].line == 2


def test_a_system_log_export_is_read_as_its_devices_export() -> None:
    ev = _load(
        "npu_smi_set_t_sys_log_dump_s3_confirm_y_start_exporting_npu0_3_ascend950_driver_doc.txt"
    )
    assert ev.files[0].status == "read"
    (note,) = heldout.said(ev)
    assert note == (
        "ascend_notes: npu-smi set -t sys-log-dump: the system-log export started for 4 "
        "device(s) (NPU-0, NPU-1, NPU-2, NPU-3) under /home/tmp; a log collection, nothing of a "
        "device's health"
    )
    assert not ev.failures


def test_a_rank_tables_unspecified_server_id_is_a_placeholder_and_names_no_host() -> None:
    ev = _load(
        "rank_table_group_list_1srv_8p_server_id_0_0_0_0_placeholder_board_0x0000_modelzoo_ssd_resnet34_tf_readme.json"
    )
    assert "server_id 0.0.0.0 is a template's placeholder" in " ".join(heldout.said(ev))
    (shape,) = ev.shapes
    assert (shape["nodes"], shape["per_node"], shape["hosts"]) == (1, 8, [])


# --- Ascend logs (set 542) ---------------------------------------------------------------------


def test_a_cann_codes_aicpu_task_exception_is_the_devices_with_its_operator() -> None:
    ev = _load(
        "mindact1752_mindspore231_e39999_aicpu_exception_errcode21008_device0_stream2_task19016_reshape_op278_cut.log"
    )
    (exc,) = ev.failures
    assert (exc["kind"], exc["code"], exc["device"], exc["op"], exc["line"]) == (
        "npu_device_exception",
        "E39999",
        0,
        "Bprop/gradDense/Reshape-op278",
        9,
    )
    assert exc["exception_type"] == (
        "AICPU task exception (stream 2, task 19016), errcode 21008 (inner error) in "
        "Bprop/gradDense/Reshape-op278, kernel task retCode 0x2a"
    )
    assert "evidence-hccl-other-error" not in heldout.found(ev, "hccl")


def test_a_getnext_failure_gives_its_device_and_the_runtimes_code() -> None:
    ev = _load(
        "mindocr615_mindspore_device0_getnext_op18_retcode507011_model_execute_failed_cut.log"
    )
    (fail,) = ev.failures
    assert (fail["kind"], fail["device"], fail["code"], fail["code_name"]) == (
        "input_pipeline_failure",
        0,
        "507011",
        "ACL_ERROR_RT_MODEL_EXECUTE",
    )
    assert fail["exception_type"].endswith(
        "(device 0, retcode 507011 = ACL_ERROR_RT_MODEL_EXECUTE)"
    )


def test_a_vector_cores_code_and_words_on_its_own_long_line_are_read() -> None:
    ev = _load(
        "llamacpp10108_310p_ggml_cann_ez9999_aivec_error_device0_core0_0x10_illegal_instruction_cut.log"
    )
    (exc,) = ev.failures
    assert exc["exception_type"] == (
        "aivec exception on core 0 (the core's code 0x10): Illegal instruction, which is usually "
        "caused by unaligned UUB addresses"
    )


def test_a_runtime_code_the_table_lacks_takes_the_runtimes_own_description() -> None:
    ev = _load("vllm46673_glm52_w8a8_a2_plog_pid971_rtmemcpy_107030_capture_mode_cut.log")
    (fail,) = ev.failures
    assert (fail["pid"], fail["code"], fail["call"], fail["code_name"]) == (
        971,
        "107030",
        "synchronized memcpy",
        "the current capture mode does not support this operation",
    )


def test_accelerates_state_print_on_four_npus_is_a_healthy_start() -> None:
    ev = _load(
        "accelerate1728_torchrun_4npu_multi_npu_hccl_test_script_aclrtmallocalign32_warning_healthy_cut.log"
    )
    assert ev.files[0].formats == ["log"]
    assert not ev.failures
    (note,) = heldout.said(ev)
    assert note == (
        "log: accelerate: MULTI_NPU (backend hccl), 4 process(es); 4 printed their state "
        "(process index(es) 0 on npu:0, 1 on npu:1, 2, 3 on npu:3); no error"
    )


# --- NVIDIA tools (set 543) --------------------------------------------------------------------


def test_two_runs_footers_alone_are_read_and_the_slower_rerun_is_flagged() -> None:
    ev = _load(
        "nccl_tests_all_reduce_16g_footers_kernel_5_15_busbw_481_vs_6_8_busbw_104_pasted_nccltests362.txt"
    )
    assert ev.files[0].status == "partial"  # (no header line, no table: the footers alone)
    runs = [(b["op"], b["ranks"], b["max_bytes"], b["avg_busbw_gbps"]) for b in ev.benchmarks]
    assert runs == [
        ("all_reduce", 16, 16 << 30, 481 * 8.0),
        ("all_reduce", 16, 16 << 30, 104 * 8.0),
    ]
    assert "rerun_best" not in ev.benchmarks[0]
    assert ev.benchmarks[1]["rerun_best"] == {"avg_busbw_gbps": 3848.0, "line": 25}
    found = builtin_findings({"evidence.benchmarks": ev.benchmarks}, "nccl")
    (item,) = found["evidence-benchmark-rerun-slower"].items
    assert item.endswith("average busbw 832.0 Gbit/s against 3848.0 Gbit/s of the run at line 25")


def test_a_rerun_within_its_half_is_no_slower_run() -> None:
    text = (
        "./build/all_reduce_perf -b 1G -e 1G -g 8\n"
        "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 230.1\n\n"
        "./build/all_reduce_perf -b 1G -e 1G -g 8\n"
        "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 180.4\n"
    )
    ev = load_text(text, "footers.txt")
    assert [b["avg_busbw_gbps"] for b in ev.benchmarks] == [230.1 * 8, 180.4 * 8]
    assert not any("rerun_best" in b for b in ev.benchmarks)


# --- NVIDIA logs (sets 545 and 546) ------------------------------------------------------------


def test_a_jobs_nvidia_smi_table_does_not_hide_its_programs_exception() -> None:
    ev = _load("a3mega_gke_nemo_8xh100_nvsmi_tcpxo_plugin_megatron_core_modulenotfound.log")
    assert ev.files[0].formats == ["nvidia_smi", "log"]
    assert len(ev.gpus) == 8
    (raised,) = ev.failures
    assert (raised["kind"], raised["line"], raised["exception_type"]) == (
        "python_exception",
        384,
        "ModuleNotFoundError",
    )


def test_lightnings_start_names_ncclss_version_and_net_plugin() -> None:
    ev = _load("a3mega_gke_nemo_llama2_16rank_lightning_tcpxo_nccl2215_healthy_start.log")
    (note,) = heldout.said(ev)
    assert note.endswith(
        "(global ranks 0, 1, 2, 3, 4, 5, 6, 7), NCCL 2.21.5+cuda12.2 with net plugin "
        "libnccl-tcpxo.so; no error"
    )


def test_a_full_disk_before_the_watchdogs_hang_is_named() -> None:
    ev = _load(
        "lightning_imagenet_ec2_enospc_tmp_pymp_watchdog_stuck_480s_ranks2_3_child_code_minus6.log"
    )
    (full,) = [f for f in ev.failures if f["kind"] == "disk_full"]
    assert (full["line"], full["exception_type"]) == (
        45,
        "a write failed: no space left on device (/tmp/pymp-m_olac7h, in /tmp)",
    )
    found = heldout.found(ev)
    assert "evidence-disk-full" in found
    assert "evidence-watchdog-hang" in found


def test_one_seqnum_in_other_collectives_with_one_rank_naming_its_group_is_a_possible_mismatch() -> (
    None
):
    ev = _load(
        "pytorch20630_4rank_seq4084_ranks1_2_allreduce_rank3_broadcast_watchdog_600000ms_abort_complete_cut.log"
    )
    (timeline,) = ev.timelines
    assert timeline.mismatched_ops == {}  # (ranks 1 and 2 name no group: not proven one)
    assert timeline.unnamed_mismatch == {"all_reduce": [1, 2], "broadcast": [3]}
    assert "evidence-collective-mismatch-unnamed-group" in heldout.found(ev)


def test_ncclss_set_up_is_said_beside_a_failure_its_watchdog_found() -> None:
    ev = _load(
        "sglang10216_2x8_h100_dsv3_pg2_rank1_watchdog_failure_seq_40231_last_completed_40230_nccl_init_complete_16r_cut.log"
    )
    (fail,) = [f for f in ev.failures if f["kind"] == "watchdog_failure"]
    assert (fail["rank"], fail["seq"]) == (1, 40231)
    said = heldout.said(ev)
    assert "log: a communicator of 16 rank(s) started (this log: rank(s) 1)" in said
    assert any("took 2.14 s" in m for m in said)


# --- long lines (review 38's leftovers) --------------------------------------------------------


def test_a_host_prefix_and_a_progress_bar_stay_linear_on_long_runs() -> None:
    for pattern, line in (
        # (each took 5 to 57 s before: the optional host, or the percentage, tried from every
        # character of a 100,000-character run rescanned the rest of it)
        (logs._NCCL_CALL_RE, "NCCL error in: " + "a." * 50_000 + " " * 1000 + "x:1331, internal error"),
        (logs._CUDA_TEST_RE, "ab" * 50_000),
        (logs._PROGRESS_BAR_RE, "| 12MB / " + "4" * 100_000 + "MBx |"),
    ):  # fmt: skip
        # this process's CPU time: other jobs on a shared host do not count against it
        began = time.process_time()
        pattern.search(line)
        assert time.process_time() - began < 1.0


# --- earlier rounds' leftovers -------------------------------------------------------------------


def test_torch_elastics_exit_barrier_that_timed_out_is_said() -> None:
    ev = _load(
        "nccl1016_elastic_sigterm_7_failed_exitcode1_local_rank3_pid429_exit_barrier_307s_cut.log"
    )
    assert [f["kind"] for f in ev.failures] == ["elastic_failure"]
    (note,) = [m for m in ev.files[0].messages if "exit barrier" in m.message]
    assert note.line == 9
    assert note.message == (
        "log: torch elastic's agent waited 307 s at its exit barrier for the other nodes' agents "
        "and gave up: they had not finished (still running, hung, or stopped without reaching it)"
    )


def test_an_exit_barrier_that_failed_at_once_had_no_store() -> None:
    text = (
        "E0304 19:44:41.006000 690616 torch/distributed/elastic/agent/server/api.py:965] Error "
        "waiting on exit barrier. Elapsed: 0.004255771636962891 seconds\n"
    )
    (note,) = logs.parse(text).unread
    assert "the barrier's store was already gone" in note.message


def test_nccls_older_shared_memory_rings_are_in_its_channel_summary() -> None:
    ev = _load(
        "pytorch23534_crashing_worker_ring_p2p_ipc_shm_socket_shm_h42_cuda_failure_invalid_argument.log"
    )
    (summary,) = [m for m in heldout.said(ev) if "channels go" in m]
    assert "via direct shared memory (3 line(s): through host shared memory" in summary
    (warn,) = ev.failures
    assert (warn["kind"], warn["line"]) == ("nccl_warning", 11)


def test_nccls_path_dump_is_said_by_path_type() -> None:
    ev = _load("deepspeed5022_node0_rank3_nccl_topology_paths_nvlink_nvb_net0_sys_healthy_cut.log")
    assert not ev.failures
    (paths,) = [m for m in heldout.said(ev) if "path dump" in m]
    assert paths == (
        "log: NCCL's path dump of 3 GPU(s): to the other GPUs 9 path(s) over NVB (NVLink through "
        "another GPU), 12 path(s) over NVL (NVLink); NET/0 at SYS (across the CPUs' "
        "interconnect), 1.25 GB/s at its narrowest"
    )
