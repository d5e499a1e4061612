"""Outputs of round JJ's held-out evaluation (sets 391-394) and round II's leftovers (sets
387-390) that the advisor read wrong or not at all before this change (tests/data/
evidence_heldout_57, sources in tests/data/SOURCES.md)."""

from __future__ import annotations

import shutil
from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, detect, load_paths
from advisor.parsers import ascend_versions
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_57"


_load = partial(heldout.load, HELDOUT)


def _said(ev: EvidenceFacts) -> list[str]:
    return [m.message for f in ev.files for m in f.messages]


def _findings(ev: EvidenceFacts) -> dict[str, object]:
    return builtin_findings(
        {"evidence.failures": ev.failures, "evidence.package_mismatches": ev.package_mismatches}
    )


# --- a run's own word that it succeeded (MLPerf's run_stop "success") ---


def test_a_run_that_said_it_succeeded_keeps_the_errors_it_went_past_as_a_warning() -> None:
    # one node, eight GPUs: UCX and NCCL could not open the InfiniBand devices the container
    # lacks (153 UCX errors, 144 NCCL WARNs), and the run went on to its quality target
    ev = _load(
        "mlperf07_alibaba_a100x8_mxnet_resnet_nccl_warn_ibv_open_device_ucx_error_run_success.log"
    )
    (said,) = [f for f in ev.failures if f["kind"] == "run_success"]
    assert said["line"] == 1960
    assert said["message"] == (
        'MLPerf\'s run_stop, status "success" (/workspace/image_classification/common/fit.py:996)'
    )
    past = [f for f in ev.failures if f["kind"] == "gone_past"]
    assert {f["was"] for f in past} == {"ucx_error", "nccl_warning"}
    assert all(f["line"] < 1960 for f in past)
    assert not [f for f in ev.failures if f["kind"] not in ("run_success", "gone_past")]
    findings = _findings(ev)
    gone = findings["evidence-run-gone-past"]
    assert gone.severity == "warning"
    assert f"past {len(past)} error line(s)" in gone.message
    assert "evidence-ucx-error" not in findings and "evidence-nccl-warning" not in findings
    assert not [f for f in findings.values() if f.severity == "critical"]


def test_tracebacks_after_the_runs_success_are_its_teardown_not_its_failure() -> None:
    # DataLoader workers' semaphores already unlinked at exit, after run_stop "success"
    ev = _load(
        "mlperf40_hpe_xd670_h100_ssd_run_stop_success_then_multiprocessing_sem_unlink_tracebacks.txt"
    )
    (said,) = [f for f in ev.failures if f["kind"] == "run_success"]
    (teardown,) = [f for f in ev.failures if f["kind"] == "gone_past"]
    assert teardown["was"] == "python_exception" and teardown["line"] > said["line"]
    assert "FileNotFoundError" in teardown["message"]
    findings = _findings(ev)
    assert findings["evidence-run-gone-past"].severity == "warning"
    assert "evidence-python-exception" not in findings


def test_a_run_with_no_success_line_is_read_as_before(tmp_path: Path) -> None:
    # the same log without its run_stop line: its teardown traceback is the run's end again
    name = "mlperf40_hpe_xd670_h100_ssd_run_stop_success_then_multiprocessing_sem_unlink_tracebacks.txt"
    text = (HELDOUT / name).read_text()
    (tmp_path / name).write_text(
        "\n".join(line for line in text.splitlines() if '"key": "run_stop"' not in line)
    )
    ev = load_paths([tmp_path / name])
    assert not [f for f in ev.failures if f["kind"] in ("run_success", "gone_past")]
    assert [f for f in ev.failures if f["kind"] == "python_exception"]


# --- processes that never started, or crashed at once ---


def test_a_crash_inside_open_mpi_names_the_frame_and_torchs_call_for_each_rank() -> None:
    ev = _load(
        "mlperf40_redhat_llama2_70b_lora_8rank_sigsegv_processgroupmpi_ompi_group_incl_childfailederror.log"
    )
    crashes = [f for f in ev.failures if f.get("exception_type") == "UCX's signal handler"]
    assert len(crashes) == 8
    # each process's own backtrace block (tid N), printed after all eight signal lines
    by_pid = {f["pid"]: f["call"] for f in crashes}
    assert by_pid[227] == (
        "ompi_group_increment_proc_count() under c10d::ProcessGroupMPI::createProcessGroupMPI()"
    )
    assert by_pid[228].startswith("ompi_dpm_group_is_dyn()")
    assert {f["library"] for f in crashes} == {"Open MPI"}
    finding = _findings(ev)["evidence-launcher-exit"]
    assert any(
        "(inside Open MPI: ompi_group_increment_proc_count()" in str(i) for i in finding.items
    )


def test_numactls_refused_cpu_list_is_the_task_that_never_started() -> None:
    ev = _load(
        "mlperf40_smc_h100_bert_rank0_numactl_cpu_64_71_out_of_range_others_hang_time_limit.log"
    )
    (refused,) = [f for f in ev.failures if f["kind"] == "launch_failed"]
    assert (refused["rank"], refused["line"], refused["root_cause"]) == (0, 63, True)
    assert refused["exception_type"].startswith(
        "numactl refused its binding <0-7,64-71> (libnuma: cpu argument 64-71 is out of range)"
    )
    finding = _findings(ev)["evidence-launch-failed"]
    (line,) = [str(i) for i in finding.items]
    assert line.startswith("task/rank 0: numactl refused its binding <0-7,64-71>")


# --- Ascend packages' version.info ---


def test_the_drivers_version_info_is_read_with_the_firmware_it_accepts() -> None:
    ev = _load("ascend_driver_version_info_25_2_0_300i_duo_gpustack3385.txt")
    (report,) = ev.files
    assert report.status == "read" and report.formats == ["ascend_versions"]
    (pkg,) = ev.packages
    assert (pkg["package"], pkg["version"], pkg["inner_version"]) == (
        "driver",
        "25.2.0",
        "V100R001C21SPC008B208",
    )
    assert pkg["compatible_fw"] == [["6.4.0", "6.4.99"], ["7.0.0", "7.7.99"]]
    (note,) = _said(ev)
    assert "works with firmware 6.4.0 to 6.4.99, 7.0.0 to 7.7.99" in note
    assert not ev.package_mismatches


def test_firmware_outside_the_drivers_ranges_is_a_mismatch_within_one_folder(
    tmp_path: Path,
) -> None:
    # the driver's real version.info beside firmware version.info files written as the firmware
    # package writes them (Version=, firmware_version=, compatible_version_drv=)
    name = "ascend_driver_version_info_25_2_0_300i_duo_gpustack3385.txt"
    host = tmp_path / "node1"
    host.mkdir()
    shutil.copy(HELDOUT / name, host / "driver_version.info")
    (host / "firmware_version.info").write_text(
        "Version=7.8.0.2.212\nfirmware_version=1.0\npackage_version=25.3.rc1\n"
        "compatible_version_drv=[25.3,25.3.]\n"
    )
    ev = load_paths([tmp_path])
    said = sorted(m["said"] for m in ev.package_mismatches)
    assert said == [
        "driver 25.2.0 is outside firmware 7.8.0.2.212's compatible_version_drv (25.3 to 25.3.)",
        "firmware 7.8.0.2.212 is outside driver 25.2.0's compatible_version_fw "
        "(6.4.0 to 6.4.99, 7.0.0 to 7.7.99)",
    ]
    assert _findings(ev)["evidence-ascend-driver-firmware-mismatch"].severity == "warning"
    # the same firmware in another host's folder is not compared with this driver
    other = tmp_path / "node2"
    other.mkdir()
    (host / "firmware_version.info").rename(other / "firmware_version.info")
    assert not load_paths([tmp_path]).package_mismatches


def test_version_ranges_compare_as_far_as_each_bound_goes() -> None:
    assert ascend_versions.in_range("7.5.0.1.129", "7.0.0", "7.5.99") is True
    assert ascend_versions.in_range("7.6.0.1.129", "7.0.0", "7.5.99") is False
    assert ascend_versions.in_range("24.1.rc3", "24.1", "24.1.") is True
    assert ascend_versions.in_range("24.2.0", "24.1", "24.1.") is False
    assert ascend_versions.in_range("rc3", "24.1", "24.1.") is None


# --- round JJ: Ascend tools and logs ---


def test_the_ascend_docker_runtimes_refused_mount_is_a_container_that_did_not_start() -> None:
    for name in (
        "gpustack4299_worker_log_ascend_docker_runtime_prestart_hook_mount_npu_smi_failed.log",
        "alphafold1073_docker_compose_up_ascend_runtime_prestart_hook_exit_255.log",
    ):
        ev = _load(name)
        (failed,) = [f for f in ev.failures if f["kind"] == "container_start_failure"]
        assert failed["library"] == "Ascend Docker Runtime"
        assert failed["exception_type"].startswith(
            "runc's prestart hook #0 exited with 255: the Ascend Docker Runtime's hook refused "
            "to set the container up (Please check the write permission!; failed to mount src: "
            "/usr/local/bin/npu-smi)"
        )
        finding = _findings(ev)["evidence-container-start-failure"]
        assert any("chmod go-w" in r.why for r in finding.recommendations)


def test_the_drivers_busy_answer_to_counting_devices_is_the_failure_not_the_runtime_lines() -> None:
    ev = _load(
        "lmdeploy2585_atlas800t_a2_container_idedd_get_physical_device_number_failed_err87_cut.log"
    )
    (busy,) = ev.failures
    assert (busy["kind"], busy["line"], busy["code"], busy["call"]) == (
        "npu_dcmi_error",
        3,
        "87",
        "drvGetDevNum",
    )
    assert "DRV_ERROR_RESOURCE_OCCUPIED" in busy["exception_type"]
    findings = _findings(ev)
    assert findings["evidence-npu-devices-unavailable"].severity == "critical"
    assert "evidence-npu-dcmi-error" not in findings and "evidence-hccl-plog-error" not in findings


def test_npu_smi_cut_after_its_header_is_partial_with_its_version() -> None:
    ev = _load("npu_smi_info_310p3_in_container_24_1_rc2_header_only_llamafactory10418_cut.txt")
    (report,) = ev.files
    assert report.status == "partial" and not ev.npu_chips
    assert any("npu-smi 24.1.rc2" in m and "no chip row" in m for m in _said(ev))


def test_memory_that_ran_out_as_the_runtime_opened_a_device_names_that_device() -> None:
    ev = _load("ptoas341_aclrtSetDevice_507033_el0004_memory_pool_open_device2.log")
    (oom,) = [f for f in ev.failures if f["kind"] == "device_oom"]
    assert (oom["device"], oom["library"]) == (2, "NPU runtime")
    assert oom["exception_type"].startswith(
        "EL0004: device 2's memory ran out as the runtime opened it"
    )
    assert "caching allocator" not in _findings(ev)["evidence-device-out-of-memory"].message


def test_the_drivers_refused_allocation_in_a_flattened_plog_is_device_7s_out_of_memory() -> None:
    ev = _load("hiascend_cann5046_tfmigr_drv_devmm_halmemalloc_oom_device7_flattened.log")
    (oom,) = ev.failures
    assert (oom["kind"], oom["device"], oom["library"]) == ("device_oom", 7, "NPU driver")
    assert (
        "15069901824 B" in oom["exception_type"]
        and "DRV_ERROR_OUT_OF_MEMORY" in oom["exception_type"]
    )


def test_an_aicpu_exception_without_its_plog_prefix_names_device_and_operator() -> None:
    ev = _load("mindact1698_mindspore231_launch_kernel_failed_aicpu_exception_errcode21008.log")
    (exc,) = ev.failures
    assert (exc["kind"], exc["device"], exc["code"], exc["op"]) == (
        "npu_device_exception",
        0,
        "21008",
        "Bprop/gradDense/Reshape-op278",
    )
    assert exc["exception_type"].startswith(
        "AICPU task exception (stream 2, task 19016), errcode 21008 (inner error)"
    )


def test_mindies_warm_up_out_of_memory_keeps_its_own_advice() -> None:
    ev = _load("gpustack3541_mindie22rc1_910b2_qwen25vl_warmup_oom_maxprefilltokens_cut.log")
    (oom,) = [f for f in ev.failures if f["kind"] == "device_oom"]
    assert oom["library"] == "MindIE warm-up"
    assert oom["exception_type"].endswith(
        "it advises: Please try to decrease `maxPrefillTokens` in config.json of mindie-service."
    )


def test_a_vllm_workers_memory_profile_at_start_is_a_healthy_note() -> None:
    ev = _load("vllm_ascend_pr8289_enginecore_npu_free_memory_kv_cache_suggestion_healthy_cut.log")
    assert ev.files[0].status == "read" and not ev.failures
    assert any("60.86 of 61.27 GiB free, 55.14 GiB (0.9 of it)" in m for m in _said(ev))


# --- round JJ: NVIDIA and network tools ---


def test_older_nccls_capitalised_result_text_is_named() -> None:
    ev = _load(
        "nccl_tests_rtx4090_g4_common_cu1005_unhandled_cuda_error_then_3gpu_rows_no_hash_cut_nccltests280.txt"
    )
    (call,) = [f for f in ev.failures if f["kind"] == "nccl_call_failure"]
    assert (call["code"], call["code_name"]) == ("1", "ncclUnhandledCudaError")


def test_libibverbs_with_no_provider_for_a_device_is_read_beside_ncclS_failure() -> None:
    ev = _load(
        "nccl_tests_singularity_4x_v100_pcie_libibverbs_no_userspace_driver_uverbs0_common_cu775_internal_error_nccltests41.txt"
    )
    (none,) = [f for f in ev.failures if f["kind"] == "rdma_no_device"]
    assert (
        none["line"] == 9 and "no user-space driver (provider) claimed it" in none["exception_type"]
    )
    assert [f["code_name"] for f in ev.failures if f["kind"] == "nccl_call_failure"] == [
        "ncclInternalError"
    ]
    assert "evidence-rdma-no-device" in _findings(ev)


def test_dcgms_blank_names_and_its_unreachable_host_engine_are_said() -> None:
    ev = _load(
        "dcgmi_discovery_l_host_unix_socket_4_gpus_h100_sxm_name_null_trailing_spaces_cut_dcgm229.txt"
    )
    assert any("3 GPU(s) listed with no name (<<<NULL>>>" in m for m in _said(ev))
    ev = _load(
        "dcgmi_discovery_l_unable_to_connect_host_engine_then_discovery_v_2_4_5_backticks_dcgm43.txt"
    )
    (engine,) = ev.failures
    assert engine["library"] == "dcgmi"
    assert engine["exception_type"].startswith(
        "dcgmi could not reach DCGM's host engine (nv-hostengine): Host engine connection "
        "invalid/disconnected"
    )


def test_fabric_manager_of_another_version_than_the_driver_did_not_run() -> None:
    ev = _load(
        "nv_fabricmanager_driver_interface_530_30_02_mismatch_driver_530_41_03_one_line_gpuoperator544.txt"
    )
    (fm,) = ev.failures
    assert fm["kind"] == "fabric_manager_failed"
    assert "version 530.30.02, the driver 530.41.03" in fm["exception_type"]


def test_windows_nvidia_smi_that_cannot_detect_a_gpus_handle_is_that_gpu_lost() -> None:
    ev = _load(
        "nvidia_smi_exe_unable_to_detect_device_handle_b100_then_nvdebugdump_a10_gpupv_vm_easygpupv276.txt"
    )
    (lost,) = ev.failures
    assert lost["kind"] == "gpu_driver_fault"
    assert lost["exception_type"].startswith("nvidia-smi could not reach GPU 0000:B1:00.0")


def test_ethtool_statistics_are_read_for_their_loss_counters() -> None:
    ev = _load("ethtool_S_mlx5_core_cx4lx_ubuntu1804_healthy_counters_cut_ethq8.txt")
    assert ev.files[0].formats == ["ethtool_stats"] and not ev.failures
    (note,) = _said(ev)
    assert (
        note
        == "ethtool_stats: ethtool -S: 23 counter(s); every loss counter (errors, drops, discards) is 0"
    )


def test_perftest_tables_pasted_without_settings_are_runs_of_their_commands() -> None:
    ev = _load(
        "ib_send_bw_arm_mlx5_0_1024b_case1_5544_vs_case2_920_mbs_markdown_bold_numactl_perftest65.txt"
    )
    runs = [p["perftest"] for p in ev.hca_ports]
    assert [p["ca"] for p in ev.hca_ports] == ["mlx5_0", "mlx5_0"]
    # MB/s as perftest prints them, in Gbit/s: 5544.28 and 920.13 (the Markdown bold left out)
    assert [round(r["bw_average_gbps"], 1) for r in runs] == [46.5, 7.7]
    finding = _findings_ports(ev)["evidence-rdma-perftest-slow"]
    assert "7.719 Gb/s at 1024 B" in str(finding.items[0])


def _findings_ports(ev: EvidenceFacts) -> dict[str, object]:
    return builtin_findings({"evidence.hca_ports": ev.hca_ports})


# --- round JJ: NVIDIA and PyTorch logs ---


def test_the_same_gloo_mesh_failure_on_two_ranks_at_once_orders_neither_first() -> None:
    ev = _load(
        "hipattention59_sglang_tp_ranks_4_6_gloo_connectfullmesh_failed_pair_cc144_no_error_scheduler_tp4_exception_cut.log"
    )
    gloo = [f for f in ev.failures if f["kind"] == "gloo_error"]
    assert [f["rank"] for f in gloo] == [4, 6]
    assert all(f["exception_type"].startswith("gloo could not connect its full mesh") for f in gloo)
    (tl,) = ev.timelines
    assert tl.first_rank is None and tl.tied == [4, 6]


def test_a_flattened_elastic_summary_keeps_its_rank_host_and_exit_code() -> None:
    ev = _load(
        "amvur2_childfailederror_flattened_paste_rank2_local_rank2_exitcode_minus9_sigkill_ding_x10drg.log"
    )
    (root,) = [f for f in ev.failures if f["kind"] == "elastic_failure"]
    assert (root["rank"], root["local_rank"], root["host"], root["exit_code"], root["pid"]) == (
        2,
        2,
        "ding-X10DRG",
        -9,
        36071,
    )
    assert ev.files[0].status == "read"


def test_a_rendezvous_failure_names_the_store_with_the_c10d_default_port() -> None:
    ev = _load(
        "pytorch64926_torch19_elastic_c10d_rdzv_endpoint_no_port_launch_configs_error_handler_json_rendezvousconnectionerror_cut.log"
    )
    (rdzv,) = [f for f in ev.failures if f["kind"] == "rendezvous_failure"]
    assert (rdzv["ip"], rdzv["port"]) == ("10.28.1.16", 29400)
    assert "torch's default port" in rdzv["exception_type"]


def test_a_collections_driver_and_firmware_version_info_are_read_and_accept_each_other() -> None:
    # a real host's pair: driver 23.0.7 (firmware 7.0.0 to 7.1.99), firmware 7.1.0.11.220
    # (drivers 23.0.rc3 and 23.0.0 and what is under them)
    ev = load_paths(
        [
            DATA
            / "evidence_heldout_30"
            / "hccn_npu_smi_collect_after_linkstat_board_invalid_card_health_alarm_heartbeat_lost_kgparse.txt"
        ]
    )
    found = {(p["package"], p["version"]) for p in ev.packages}
    # (and the toolkit's and nnae's install records: Ascend-cann-toolkit, Ascend-cann-nnae; and,
    # since round JJJJ set 643, its pip list rows of torch and torch-npu)
    assert found == {
        ("driver", "23.0.7"),
        ("firmware", "7.1.0.11.220"),
        ("cann", "7.0.T10"),
        ("cann", "8.0.RC3"),
        ("torch", "1.11.0"),
        ("torch_npu", "2.1.0.post8.dev20241009"),
    }
    (fw,) = [p for p in ev.packages if p["package"] == "firmware"]
    assert fw["compatible_drv"] == [["23.0.rc3", "23.0.rc3."], ["23.0.0", "23.0.0."]]
    assert not ev.package_mismatches
    # the same host as set 643's: torch 1.11.0 under a torch-npu built for 2.1.0
    # (tests/test_parsers_heldout_set643.py); nnae 8.0.RC3's own compatible_version (line 74)
    # names the driver's V100R001C15, so it is no mismatch (review 55 fault 4)
    assert [m["said"].split(" (")[0] for m in ev.package_stack] == [
        "torch-npu 2.1.0.post8.dev20241009",
    ]


# --- round II's leftovers (sets 387-388) ---


def test_a_rank_table_still_initializing_is_read_as_not_ready() -> None:
    ev = _load(
        "mindie_motor_gen_ranktable_helper_global_ranktable_status_initializing_no_servers.json"
    )
    (table,) = ev.rank_tables
    assert (table["status"], table["version"], table["servers"]) == ("initializing", "1.0", [])
    assert table["errors"][0].startswith("status is 'initializing' and no server or rank is listed")


def test_another_cann_modules_plog_with_no_error_line_is_read_healthy() -> None:
    ev = _load("torchair_dynamo_static_graph_compiler_inputs_info_npu0_healthy_indented.log")
    assert ev.files[0].status == "read" and not ev.failures
    assert any("a CANN plog of TORCHAIR (6 line(s)) with no ERROR line" in m for m in _said(ev))


def test_protobufs_own_error_lines_are_the_first_error_of_a_program_log() -> None:
    ev = _load(
        "torchair_backendcompilerfailed_libprotobuf_fatal_generateddatabase_te_cann_mismatch.log"
    )
    (error,) = ev.failures
    assert error["kind"] == "log_error" and error["line"] == 1
    assert "File already exists in database: dvpp_tensor_shape.proto" in error["message"]


def test_an_exception_copied_without_its_traceback_keeps_the_error_it_points_to() -> None:
    ev = _load("mindspeed_rl_dapo_preprocess_transformers_import_libgomp_static_tls_arm.log")
    (exc,) = ev.failures
    assert (exc["kind"], exc["exception_type"]) == ("python_exception", "RuntimeError")
    assert exc["message"].endswith("cannot allocate memory in static TLS block")


def test_the_device_task_schedulers_error_line_is_read_as_a_plog_error() -> None:
    ev = _load("tsch_device0_log_unbind_model_stream_failed_stream_running_model512.log")
    (error,) = ev.failures
    assert (error["kind"], error["library"]) == ("hccl_plog_error", "TSCH")
    assert "unbind model stream failed, stream is running" in error["message"]


# --- round KK (sets 395-398) ---


def test_canns_install_record_beside_npu_smi_is_read_as_a_package() -> None:
    ev = _load(
        "npu_smi_info_910b2c_25_0_rc1_1_single_npu_then_cann_toolkit_info_vllm_ascend4621.txt"
    )
    assert sorted(ev.files[0].formats) == ["ascend_versions", "npu_smi_info"]
    (pkg,) = ev.packages
    assert (pkg["package"], pkg["version"], pkg["inner_version"]) == (
        "cann",
        "8.3.RC2",
        "V100R001C23SPC002B210",
    )


def test_kubelet_refusing_a_pod_for_unhealthy_npus_is_a_container_that_did_not_start() -> None:
    ev = _load(
        "kubelet_event_unexpectedadmissionerror_no_healthy_ascend910b4_1_hami_ascend_device_plugin129.txt"
    )
    (refused,) = ev.failures
    assert refused["kind"] == "container_start_failure" and refused["library"] == "kubelet"
    assert refused["exception_type"].startswith(
        "kubelet would not admit the pod: no huawei.com/Ascend910B4-1 to give it (no healthy "
        "devices present)"
    )


def test_ascend_dmis_version_and_usage_are_notes() -> None:
    ev = _load("ascend_dmi_v_version_26_0_1_prompt_masked_mindcluster_doc.txt")
    assert ev.files[0].status == "read" and _said(ev) == [
        "ascend_notes: ascend-dmi 26.0.1 (its version; nothing of a device)"
    ]
    ev = _load("ascend_dmi_h_help_options_mindcluster730_doc.txt")
    assert ev.files[0].status == "read" and not ev.failures


def test_a_set_device_the_driver_would_not_open_names_the_device_and_the_drivers_code() -> None:
    ev = _load("ptoas948_a5_aclrtSetDevice_507033_ee1001_haldeviceopen_device1_cut.log")
    (call,) = [f for f in ev.failures if f["kind"] == "npu_runtime_error"]
    assert (call["device"], call["code"]) == (1, "507033")
    assert call["exception_type"] == (
        "the driver could not open device 1 (halDeviceOpen: drvRetCode 7 DRV_ERROR_INNER_ERR, the "
        "driver's inner error)"
    )
    (item,) = [str(i) for i in _findings(ev)["evidence-npu-runtime-error"].items]
    assert "(device 1): aclrtSetDevice returned 507033" in item and "halDeviceOpen" in item


def test_the_cann_runtimes_version_info_names_its_release() -> None:
    ev = _load("vllm_ascend1238_env_cann_82rc1_version_and_hccl_env_exports.txt")
    (pkg,) = ev.packages
    assert (pkg["package"], pkg["version"], pkg["release"]) == (
        "cann runtime",
        "7.8.T5.0.B028",
        "8.2.RC1",
    )


def test_a_rank_tagged_traceback_cut_inside_a_frame_line_is_read() -> None:
    ev = _load("vllm_pr8054_early_ascend_npu_backend_load_model_traceback_cut.log")
    (cut,) = ev.failures
    assert (cut["kind"], cut["rank"]) == ("python_exception", 0)
    assert 'npu_executor.py", line 25, in _init_executor' in cut["message"]


def test_msaicerrs_report_is_the_devices_ai_core_error_with_its_operator() -> None:
    ev = _load("hiascend_ts0017_80rc2_msaicerr_info_single_op_gatherv2_0x10_device0.txt")
    (exc,) = ev.failures
    assert (exc["kind"], exc["device"], exc["op"], exc["code"]) == (
        "npu_device_exception",
        0,
        "GatherV2",
        "0x10",
    )
    assert exc["exception_type"].endswith("msaicerr: Single op test aicore error, please check op.")
    ev = _load(
        "msaicerr_info_txt_l2loss_device0_aicore_0x800000_mte_write_bus_error_nan_single_op_fail.txt"
    )
    (exc,) = ev.failures
    assert (exc["op"], exc["code"]) == ("L2Loss", "0x800000")
    assert exc["exception_type"] == "AI Core error 0x800000 in L2Loss (write bus error)"


def test_a_grep_of_the_devices_ts_log_is_read_as_its_first_error_line() -> None:
    ev = _load("hiascend_ts0010_cann800_tsch_ts_log_icache_check_device2_cut.log")
    (error,) = ev.failures
    assert (error["kind"], error["library"], error["device"]) == ("hccl_plog_error", "TSCH", 2)


def test_per_queue_ethtool_counters_are_read_with_their_losses() -> None:
    ev = _load(
        "ethtool_S_be2net_emulex_roce_counters_rx_drops_no_frags_3_9e9_tcp_csum_errs_netutils208_cut.txt"
    )
    (note,) = _said(ev)
    assert "46 counter(s)" in note and "rxq0: rx_drops_no_frags 3885606854" in note


def test_nvidia_smi_q_cut_above_its_health_sections_is_partial_with_what_it_lists() -> None:
    ev = _load("nvidia_smi_q_440_64_tesla_k40c_header_only_k8sdp265_cut.txt")
    assert ev.files[0].status == "partial" and not ev.gpus
    (note,) = _said(ev)
    assert "driver 440.64.00, CUDA 10.2): GPU 00000000:84:00.0 Tesla K40c listed" in note


def test_an_ibv_devinfo_port_block_without_its_device_is_read_with_its_rate() -> None:
    ev = _load(
        "ibv_devinfo_v_port1_roce_active_25g_1x_gid14_15_markdown_bold_k8srdmashared164_cut.txt"
    )
    (port,) = ev.hca_ports
    assert (port["ca"], port["port"], port["state"], port["rate_gbps"], port["link_layer"]) == (
        "(device not named)",
        1,
        "PORT_ACTIVE",
        25.0,
        "Ethernet",
    )


def test_mig_instance_profiles_say_whether_any_instance_can_still_be_made() -> None:
    ev = _load("nvidia_smi_mig_lgip_a100_40gb_all_profiles_0_free_sudo_migparted97_cut.txt")
    (note,) = _said(ev)
    assert note.endswith(
        "no instance of any profile can be created, the GPU's MIG capacity is taken"
    )
    ev = _load("nvidia_smi_mig_lgip_gh200_144g_1g18gb_7of7_free_prompt_migparted139_cut.txt")
    (note,) = _said(ev)
    assert "1g.18gb 7/7 free" in note and note.endswith("instances can still be created")


def test_fabric_manager_failing_beside_a_geforce_card_is_not_needed_there() -> None:
    ev = _load(
        "systemctl_start_fabricmanager_failed_then_modinfo_510_47_then_nvidia_smi_geforce_4gb_rocky86_gpuoperator356_cut.txt"
    )
    (fm,) = [f for f in ev.failures if f["kind"].startswith("fabric_manager")]
    assert fm["kind"] == "fabric_manager_unneeded"
    findings = _findings(ev)
    assert findings["evidence-fabric-manager-unneeded"].severity == "warning"
    assert "evidence-fabric-manager-failed" not in findings


def test_open_mpis_disconnected_peer_is_the_host_that_failed_first() -> None:
    ev = _load(
        "horovod1950_openmpi_peer_unexpectedly_disconnected_local_reco313_pid7720_peer_reco316_cut.log"
    )
    (peer,) = [f for f in ev.failures if f["kind"] == "launcher_exit"]
    assert (peer["host"], peer["root_cause"]) == ("reco-zl-c4-reco316", True)
    assert "disconnected from pid 7720 on reco-zl-c4-reco313" in peer["exception_type"]


def test_an_aborted_rank_names_its_rank_from_mpiruns_tag_and_the_cpp_exception() -> None:
    ev = _load(
        "horovod2365_mpi_tagged_rank25_c102_cudaeventquery_illegal_memory_access_sigabrt_backtrace_cut.log"
    )
    (abort,) = [f for f in ev.failures if f["kind"] == "launcher_exit"]
    assert (abort["rank"], abort["host"], abort["exit_code"]) == (25, "c102", -6)
    assert abort["message"].endswith(
        "after an uncaught C++ exception: cudaEventQuery failed: an illegal memory access was "
        "encountered"
    )


def test_a_rendezvous_that_never_formed_is_a_rendezvous_failure_not_a_shutdown() -> None:
    ev = _load(
        "kubeflow_trainer2041_elastic_pytorchjob_kubectl_logs_worker1_rendezvous_connection_error_shutdown_cut.log"
    )
    (rdzv,) = ev.failures
    assert rdzv["kind"] == "rendezvous_failure"
    assert (rdzv["ip"], rdzv["port"]) == ("elastic-example-imagenet-worker-0", 23456)


def test_hosts_whose_nccl_chose_different_networks_are_said_to_disagree() -> None:
    ev = _load(
        "nemo4035_nccl_2_12_9_gpu01_ibext_roce_mlx5_9_vs_gpu02_ib_no_device_ib_disabled_socket_veth_cut.log"
    )
    (sock,) = [f for f in ev.failures if f["kind"] == "nccl_socket_network"]
    assert sock["host"] == "gpu02"
    assert "the other host(s) chose another network (gpu01: IBext)" in sock["exception_type"]


def test_time_outs_all_in_the_first_collective_point_at_the_path_not_a_straggler() -> None:
    ev = _load(
        "vllm1957_rayworkervllm_3090_tp4_watchdog_allreduce_seqnum1_1800000ms_rank1_rank0_terminated_cut.log"
    )
    finding = _findings(ev)["evidence-watchdog-timeout"]
    advice = [r.why for r in finding.recommendations if r.kind == "advice"]
    assert len(advice) == 1 and advice[0].startswith("Every time-out is in SeqNum 1")


# --- round LL (sets 399-402) ---


def test_a_device_open_in_another_namespace_is_named_by_the_drivers_conflict() -> None:
    ev = _load("easyr1_npu_dmesg_ascend_uda_occupy_dev_by_ns_conflict_open_udevid.log")
    (drv,) = [f for f in ev.failures if f["kind"] == "npu_driver_error"]
    assert drv["device"] == 0
    assert drv["exception_type"].startswith(
        "device 0: Conflict open udevid: the device is already open in another namespace"
    )


def test_the_device_plugins_healthy_devices_are_a_note_and_schedulers_missing_ones_a_warning() -> (
    None
):
    ev = _load("volcano4446_ascend_device_plugin_910_register_listandwatch_healthy_cut.log")
    assert not ev.failures
    assert any(
        "reported 3 device(s) to kubelet" in m and m.endswith("all healthy") for m in _said(ev)
    )
    for name, said in (
        (
            "volcano4773_scheduler_load_ascend_vnpu_config_310p_no_node_register_annotation.log",
            "the scheduler found no registered Ascend310P on node n1",
        ),
        (
            "volcano5828_scheduler_hami_ascend_310p_worker3_no_allocatable_cut.log",
            "node k8s-worker3 offers no huawei.com/Ascend310P",
        ),
    ):
        ev = _load(name)
        (none,) = ev.failures
        assert none["kind"] == "device_not_offered" and none["exception_type"].startswith(said)
        assert _findings(ev)["evidence-devices-not-offered"].severity == "warning"


def test_a_ray_actors_prefixed_frames_cut_before_the_exception_are_read() -> None:
    ev = _load("openrlhf605_ascend_ray_vllm_tp2_llmrayactor_traceback_no_exception_cut.log")
    (cut,) = ev.failures
    assert cut["kind"] == "python_exception"
    assert 'llm_engine.py", line 271, in __init__' in cut["message"]


def test_a_log_of_info_lines_and_progress_bars_is_a_healthy_program_log() -> None:
    ev = _load("vllm_omni5122_a3_hunyuanimage_healthy_weight_loading_progress_cut.log")
    assert ev.files[0].status == "read" and not ev.failures


def test_ibstat_cut_inside_a_state_word_leaves_that_port_unknown() -> None:
    ev = _load(
        "ibstat_cx6dx_mlx5_0_mlx5_1_down_disabled_rate40_then_cx7_mlx5_10_active_sglang6823_cut.txt"
    )
    states = {(p["ca"], p["state"]) for p in ev.hca_ports}
    assert states == {("mlx5_0", "Down"), ("mlx5_1", "Down"), ("mlx5_10", None)}
    (item_a, item_b) = [str(i) for i in _findings_ports(ev)["evidence-hca-port-not-active"].items]
    assert item_a.startswith("mlx5_0") and item_b.startswith("mlx5_1")


def test_an_ibv_devinfo_device_cut_before_its_ports_is_partial_with_its_firmware() -> None:
    ev = _load("ibv_devinfo_v_mlx5_1_cx5_4119_fw16_23_exp_flags_no_port_section_ompi6137_cut.txt")
    assert ev.files[0].status == "partial" and not ev.hca_ports
    assert any("mlx5_1 (firmware 16.23.1020, part 4119): no port listed" in m for m in _said(ev))


def test_mlxconfig_query_is_a_note_of_its_settings() -> None:
    ev = _load(
        "mlxconfig_query_cx3_mt4099_sriov_en_true_num_of_vfs_8_next_boot_only_xcp544_cut.txt"
    )
    (note,) = _said(ev)
    assert (
        "ConnectX3 (/dev/mst/mt4099_pciconf0)" in note and "SRIOV_EN True(1), NUM_OF_VFS 8" in note
    )


def test_lspci_links_a_narrower_link_is_a_warning_a_slower_one_a_note() -> None:
    ev = _load(
        "lspci_lnkcap_16gts_x16_lnksta_2_5gts_downgraded_x16_ok_rtx4090_riser_indented_jan183.txt"
    )
    assert not ev.failures
    (note,) = [m for m in _said(ev) if "lspci_link" in m]
    assert "PCIe link 2.5GT/s x16 against its 16GT/s x16 capability: slower than it can run" in note
    ev = _load(
        "lspci_vvv_middle_quadro_rtx8000_on_pi_lnksta_5gts_downgraded_x1_downgraded_aer_clean_rpi480_cut.txt"
    )
    (narrow,) = ev.failures
    assert narrow["kind"] == "pcie_link_narrow"
    assert (
        narrow["exception_type"]
        == "PCIe link 5GT/s x1: fewer lanes than the device has (and slower)"
    )
    assert _findings(ev)["evidence-pcie-link-narrow"].severity == "warning"


def test_an_elastic_exit_of_minus_7_is_named_a_bus_error_with_its_advice() -> None:
    ev = _load(
        "instructglm26_deepspeed_0_8_3_accelerate_elastic_exitcode_minus7_local_rank0_pid37386_cut.log"
    )
    finding = _findings(ev)["evidence-elastic-root-cause"]
    assert "exited with -7 (signal 7, SIGBUS: a bus error)" in str(finding.items[0])
    assert any("/dev/shm" in r.why for r in finding.recommendations)


def test_a_task_that_restarted_is_the_coordination_services_reason_to_abort() -> None:
    ev = _load(
        "grain802_gke_jax_coordination_service_task1_different_incarnation_aborted_terminating_cut.log"
    )
    (task,) = [f for f in ev.failures if f["kind"] == "coordination_timeout"]
    assert (task["exception_type"], task["missing_ranks"], task["root_cause"]) == (
        "task restarted",
        [1],
        True,
    )


def test_ncclS_ignored_collnet_setting_is_a_fallback() -> None:
    ev = _load(
        "nccltests133_two_nodes_nodea_nodeb_collnet_not_supported_warn_ib_gdrdma_p2p_rings_cut.log"
    )
    findings = _findings(ev)
    assert "evidence-nccl-fallback-warning" in findings and "evidence-nccl-warning" not in findings


def test_xlas_stuck_clique_set_up_names_the_ranks_that_waited() -> None:
    ev = _load(
        "jax22740_xla_rendezvous_initialize_clique_rank6_rank0_waiting_10s_expected_8_threads_cut.log"
    )
    (stuck,) = ev.failures
    assert (stuck["exception_type"], stuck["rank_size"], stuck["group"], stuck["ran_for_ms"]) == (
        "NCCL clique set-up stuck",
        8,
        "0, 6",
        10000,
    )


# --- review 26 ---


def test_a_later_trials_failure_after_an_earlier_trials_success_is_read(tmp_path: Path) -> None:
    # two real MLPerf logs one after the other, as a submitter's script runs its trials in one
    # log: the first ends in run_stop "success", the second (its init_start lines) fails
    first = (
        HELDOUT
        / "mlperf40_hpe_xd670_h100_ssd_run_stop_success_then_multiprocessing_sem_unlink_tracebacks.txt"
    ).read_text()
    second = (
        HELDOUT
        / "mlperf40_smc_h100_bert_rank0_numactl_cpu_64_71_out_of_range_others_hang_time_limit.log"
    ).read_text()
    (tmp_path / "trials.log").write_text(first + "\n" + second)
    ev = load_paths([tmp_path / "trials.log"])
    assert not [f for f in ev.failures if f["kind"] in ("run_success", "gone_past")]
    assert [f for f in ev.failures if f["kind"] == "launch_failed"]


def test_a_kubelet_failure_that_only_says_cannot_allocate_memory_is_still_read() -> None:
    # kubelet's own StartContainer failure whose runtime error holds "cannot allocate memory":
    # not an admission refusal, read as before (tests/data/evidence_heldout_* kubelet logs)
    ev = _load(
        "kubelet_event_unexpectedadmissionerror_no_healthy_ascend910b4_1_hami_ascend_device_plugin129.txt"
    )
    assert [f["kind"] for f in ev.failures] == ["container_start_failure"]
    from advisor.parsers import logs

    text = (
        'E0101 00:00:00.000000 1 pod_workers.go:1300] "Error syncing pod, skipping" err="failed '
        'to \\"StartContainer\\" for \\"worker\\" with RunContainerError: \\"failed to create '
        'shim task: cannot allocate memory\\"" pod="default/job-0" podUID="u1"\n'
    )
    report = logs.parse(text)
    assert [e.kind for e in report.events] == ["container_start_failure"]


def test_a_libibverbs_device_without_provider_beside_ncclS_ib_is_a_note() -> None:
    from advisor.parsers import logs

    text = (
        "libibverbs: Warning: no userspace device-specific driver found for "
        "/sys/class/infiniband_verbs/uverbs1\n"
        "node1:100:100 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.1<0>\n"
        "node1:100:100 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 1000 - Init COMPLETE\n"
    )
    report = logs.parse(text)
    assert not [e for e in report.events if e.kind == "rdma_no_device"]
    assert any("uverbs1" in w.message for w in report.unread)


def test_protobufs_error_lines_alone_are_no_failure() -> None:

    text = (
        "2024-01-01 00:00:00.000000: I tensorflow/core/platform/cpu_feature_guard.cc:1] started\n"
        "[libprotobuf ERROR google/protobuf/wire_format_lite.cc:577] String field contains "
        "invalid UTF-8 data when parsing a protocol buffer.\n"
        "2024-01-01 00:00:01.000000: I tensorflow/core/common_runtime/gpu.cc:1] step 1\n"
    )
    assert "log" not in detect(text)


def test_version_info_of_two_hosts_in_one_file_is_compared_per_host(tmp_path: Path) -> None:
    # two hosts' real-form version.info pairs, each pair within its ranges
    (tmp_path / "hosts.txt").write_text(
        "[root@node1 ~]# cat /usr/local/Ascend/driver/version.info\nVersion=24.1.rc2\n"
        "ascendhal_version=7.35.19\ncompatible_version_fw=[7.0.0,7.2.99]\npackage_version=24.1.rc2\n"
        "[root@node1 ~]# cat /usr/local/Ascend/firmware/version.info\nVersion=7.1.0.9.220\n"
        "firmware_version=1.0\ncompatible_version_drv=[23.0.0,23.0.0.],[24.1,24.1.]\n"
        "[root@node2 ~]# cat /usr/local/Ascend/driver/version.info\nVersion=25.0.rc1\n"
        "ascendhal_version=7.35.23\ncompatible_version_fw=[7.0.0,7.7.99]\npackage_version=25.0.rc1\n"
        "[root@node2 ~]# cat /usr/local/Ascend/firmware/version.info\nVersion=7.7.0.1.231\n"
        "firmware_version=1.0\ncompatible_version_drv=[24.1,24.1.],[25.0,25.0.]\n"
    )
    ev = load_paths([tmp_path / "hosts.txt"])
    assert {(p["host"], p["package"]) for p in ev.packages} == {
        ("node1", "driver"),
        ("node1", "firmware"),
        ("node2", "driver"),
        ("node2", "firmware"),
    }
    assert not ev.package_mismatches


def test_version_parts_that_are_not_numbers_are_not_compared() -> None:
    assert ascend_versions.in_range("7.5.T11.0.B070", "7.5.0", "7.5.99") is None
    assert ascend_versions.in_range("23.0.0", "23.0.rc3", "23.0.rc3.") is None


def test_ethtool_loss_counters_are_read_by_whole_words() -> None:
    from advisor.parsers import ethtool

    (block,) = ethtool.parse(
        "NIC statistics:\n     rx_interrupts: 5\n     tx_deferred_ok: 3\n     rx_crc_errors: 2\n"
    )
    assert block.losses == {"rx_crc_errors": 2}


def test_adversarial_long_lines_stay_fast() -> None:
    # joined MLLOG records and a long run of stars before msaicerr's heading: linear readings
    import time

    from advisor.parsers import logs

    record = (
        ':::MLLOG {"namespace": "", "time_ms": 1, "event_type": "POINT_IN_TIME", "key": '
        '"eval_accuracy", "value": 0.1, "metadata": {"file": "a.py", "lineno": 1}} '
    )
    joined = record * 800 + "\n" + "*" * 60000 + "\n***** 1. Basic information *****\n"
    started = time.process_time()
    try:
        logs.parse(joined + "Traceback (most recent call last):\nRuntimeError: x\n")
    except Exception:
        pass
    assert time.process_time() - started < 5.0


def test_lightnings_ranks_starting_are_a_note_with_the_world_size() -> None:
    ev = _load(
        "lightning17228_fabric_slurm_32_ranks_4_nodes_initializing_distributed_absl_dup_lines_cut.log"
    )
    assert not ev.failures
    assert any("Lightning started 5 rank(s) of a world of 32" in m for m in _said(ev))


# --- round MM (sets 403-404) ---


def test_gpuds_xid_event_is_the_gpus_fault() -> None:
    ev = _load("gpud604_xid79_gpu_is_lost.txt")
    (xid,) = ev.failures
    assert (xid["kind"], xid["code"]) == ("gpu_driver_fault", "79")
    assert xid["exception_type"].startswith("Xid 79 on PCI:0000:ae:00: GPU has fallen off the bus")


def test_nvml_that_did_not_start_leaves_no_gpu_usable() -> None:
    ev = _load("azhop269_nvidia_smi_nvml_driver_library_mismatch.txt")
    (nvml,) = ev.failures
    assert nvml["call"] == "nvml_init"
    findings = _findings(ev)
    assert findings["evidence-nvml-unavailable"].severity == "critical"
    assert "evidence-gpu-driver-error" not in findings


def test_the_runtimes_raw_device_open_failure_names_the_device() -> None:
    ev = _load("ascend_pytorch67_setdevice0_visible1_507033_el0003_open_device_failed.log")
    (call,) = [f for f in ev.failures if f["kind"] == "npu_runtime_error"]
    assert (call["device"], call["code"]) == (0, "507033")


def test_a_device_plugins_unhealthy_device_kinds_are_each_not_offered() -> None:
    ev = _load("mock_device_plugin14_hami_mock_plugin_vendor_devices_unhealthy_on_node.log")
    kinds = [f for f in ev.failures if f["kind"] == "device_not_offered"]
    assert len(kinds) == 8
    assert kinds[0]["exception_type"].startswith("the device plugin reports Ascend310P unhealthy")
