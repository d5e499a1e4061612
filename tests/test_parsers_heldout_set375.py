"""Outputs of round FF's held-out evaluation (sets 375-378; tests/data/evidence_heldout_56,
sources in tests/data/SOURCES.md) that the advisor read wrong or not at all before this change."""

from __future__ import annotations

from functools import partial

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_56"


_load = partial(heldout.load, HELDOUT)


def _said(ev: EvidenceFacts) -> list[str]:
    return [m.message for f in ev.files for m in f.messages]


def test_setupagents_root_is_its_identifiers_address_not_the_server_field() -> None:
    # rank 8 runs on 51.38.67.143; its root info names the root 51.38.67.141
    ev = _load("mindcluster_run_plog_setupagent_rank8_of16_vnic_listen_16666_healthy.log")
    assert not ev.failures
    (said,) = [m for m in _said(ev) if "by root info" in m]
    assert "rank 8 of 16, root 51.38.67.141 port 60000, this host 51.38.67.143" in said


def test_an_agents_socket_wait_on_the_root_names_its_rank_the_root_and_the_result() -> None:
    ev = _load(
        "mindcluster_rc118_plog_hcclcomminitrootinfo_rank5_of8_rasocket_recv_timeout_5000013_"
        "topo_detect_5000004.log"
    )
    (wait,) = [f for f in ev.failures if f["kind"] == "hccl_link_timeout"]
    # its process (pid 136) names rank 5 on its other lines; the root is its entry's host ip
    assert (wait["rank"], wait["code"], wait["code_name"]) == (5, "19", "HCCL_E_NETWORK")
    assert (wait["remote_ip"], wait["port"]) == ("51.38.67.143", 60004)
    assert "connected, nothing came" in wait["exception_type"]
    finding = builtin_findings({"evidence.failures": ev.failures})[
        "evidence-hccl-link-wait-timeout"
    ]
    (line,) = [str(i) for i in finding.items]
    assert line.startswith("Rank 5 waited for 51.38.67.143 port 60004")
    assert "error number 19 = HCCL_E_NETWORK" in line


def test_an_inner_error_heading_takes_its_codes_next_line_without_a_colon() -> None:
    ev = _load(
        "mindcluster_modelarts_proc_rank1_device1_el9999_halqueueenqueuebuff_acltdtsendtensor_args_dict.txt"
    )
    (err,) = ev.failures
    assert (err["code"], err["line"], err["device"]) == ("EL9999", 3, 0)
    assert err["message"] == (
        "EL9999: Inner Error! [drv api] halQueueEnQueueBuff failed: deviceId=0, qid=1, "
        "timeout=3000, drvRetCode=27."
    )
    assert (err["call"], err["exception_type"]) == (
        "rtMemQueueEnQueueBuff",
        "rtMemQueueEnQueueBuff failed: hdc send msg fail, under acltdtSendTensor",
    )


def test_a_vector_cores_exception_above_a_coded_runtime_failure_is_the_devices() -> None:
    ev = _load(
        "oamtools_asys_run_plog_aiv_vector_core_exception_mte_ddr_out_of_range_device0_stream11.log"
    )
    (exc,) = [f for f in ev.failures if f["kind"] == "npu_device_exception"]
    assert (exc["line"], exc["device"]) == (1, 0)
    assert "aivec error exception on core 12" in exc["exception_type"]
    assert exc["exception_type"].endswith("in kernel 0/1_-1_0_GatherV21_tvmbin")
    assert [f["code"] for f in ev.failures if f["kind"] == "npu_runtime_error"] == ["507035"]
    assert not [f for f in ev.failures if f["kind"] == "hccl_plog_error"]


def test_a_job_slurm_cancelled_with_healthy_ranks_is_a_note_not_a_ranks_exit() -> None:
    ev = _load("bigscience_meg_gpt2_n8_tp4_pp8_slurm_cancelled_sigterm.out")
    # the step's and the job's lines are one stop; the ranks' "received SIGTERM" follow from it
    (stop,) = ev.failures
    assert (stop["kind"], stop["line"], stop["host"]) == ("job_cancelled", 1560, "r6i5n1")
    found = builtin_findings({"evidence.failures": ev.failures}, "nccl")
    # (no "DUE TO" reason: a scancel, a note since round XXXX set 732)
    assert found["evidence-job-cancelled-no-reason"].severity == "info"
    assert not [f for f in found.values() if f.severity == "critical"]


def test_torchs_cuda_error_alone_and_in_an_error_files_json_is_read() -> None:
    (alone,) = _load("llmaction_deepspeed_runtimeerror_cuda_no_kernel_image.log").failures
    assert (alone["kind"], alone["exception_type"]) == (
        "cuda_error", "no kernel image is available for execution on the device",
    )  # fmt: skip
    # torchelastic's error file forwarded by a job master: the record's key is the rank
    (nvlink,) = _load(
        "dlrover_jobmaster_worker116_rank784_cuda_uncorrectable_nvlink_error.txt"
    ).failures
    assert (nvlink["rank"], nvlink["line"]) == (784, 6)
    assert nvlink["exception_type"] == "uncorrectable NVLink error detected during the execution"
    assert nvlink["message"].endswith("during the execution")  # (not the "\n" hints after it)
    finding = builtin_findings({"evidence.failures": [alone, nvlink]}, "nccl")[
        "evidence-cuda-error"
    ]
    items = [str(i) for i in finding.items]
    assert items[0].startswith("'no kernel image") and " at " not in items[0]
    assert items[1].startswith("rank 784: 'uncorrectable NVLink error")


def test_a_cuda_error_the_watchdog_thread_found_names_where_c10_raised_it() -> None:
    (err,) = _load(
        "m4_tr141_try5_main_log_tail_cuda_unknown_error_pgnccl_workcleanuploop.log"
    ).failures
    assert (err["line"], err["call"]) == (10, "query (CUDAEvent.h:91)")
    assert err["exception_type"].startswith("unknown error (found by ProcessGroupNCCL's watchdog")
    assert err["exception_type"].endswith("; 2 processes reported it")


def test_bandwidth_tests_csv_device_to_device_lines_name_no_memory_mode() -> None:
    ev = _load("bandwidthTest_shmoo_csv_d2d_v100_pcie_32gb_superbench.log")
    assert ev.files[0].formats == ["bandwidth_test"] and ev.files[0].status == "read"
    (run,) = ev.gpu_copy
    (d2d,) = run["matrices"]
    assert d2d["title"].startswith("Device to Device") and d2d["unit"] == "GB/s"
    assert max(r["bandwidth"] for r in d2d["rows"].values()) == 772.0


def test_open_mpi_that_never_started_the_processes_is_a_failed_launch() -> None:
    (daemon,) = _load(
        "hccl_test_openmpi_415_bash_orted_not_found_daemon_died_127_hccldocs_copy.log"
    ).failures
    assert (daemon["kind"], daemon["line"], daemon["exit_code"]) == ("launch_failed", 3, 127)
    assert "no orted, Open MPI is not on the remote node's PATH" in daemon["exception_type"]
    assert daemon["message"].endswith("(after: bash: orted: 未找到命令)")
    (slots,) = _load("openmpi_not_enough_slots_16_nccl_tests_all_reduce_perf_gcm.log").failures
    assert (slots["kind"], slots["line"]) == ("launch_failed", 2)
    assert slots["exception_type"].startswith(
        "mpirun refused to start 16 processes: not enough slots"
    )
    assert slots["exception_type"].endswith("build/all_reduce_perf)")
    found = builtin_findings({"evidence.failures": [daemon, slots]}, "hccl")
    assert found["evidence-launch-failed"].severity == "critical"
    assert "evidence-launcher-exit" not in found


def test_mindclusters_deviceinfo_record_names_each_chip_out_of_service_and_why() -> None:
    ev = _load(
        "mindcluster_device_plugin_deviceinfo_cm_a3_910_0_card_network_unhealthy_81078603_910_4_"
        "card_unhealthy_80e18402_doc.json"
    )
    assert ev.files[0].formats == ["deviceinfo"]
    faults = [(f["exception_type"], f["message"], f["code_name"]) for f in ev.failures]
    assert faults == [
        ("CardNetworkUnhealthy", "CardNetworkUnhealthy Ascend910-0, fault code(s) 81078603, "
         "handling PreSeparateNPU", "PreSeparateNPU"),
        ("CardUnhealthy", "CardUnhealthy Ascend910-4, fault code(s) A8028801, A4028801, 80E18402, "
         "80E18401, handling SeparateNPU", "SeparateNPU"),
    ]  # fmt: skip
    found = builtin_findings({"evidence.failures": ev.failures})
    assert found["evidence-mindcluster-npu-fault"].severity == "critical"
    assert found["evidence-mindcluster-npu-prefault"].severity == "warning"
    said = [m.message for m in ev.files[0].messages]
    assert said == [
        "deviceinfo: MindCluster DeviceInfo: 7 chip(s) available; unhealthy: Ascend910-4; with an "
        "unhealthy network: Ascend910-0"
    ]


def test_clusterds_record_of_every_node_and_the_plugins_fault_event_are_read() -> None:
    ev = _load(
        "mindcluster_clusterd_cluster_info_device_0_publicfault_220001001_910_0_1_2_separatenpu_"
        "node173_healthy_doc.txt"
    )
    assert {(f["host"], f["message"].split(",")[0]) for f in ev.failures} == {
        ("localhost.localdomain", f"PublicFault Ascend910-{n} on localhost.localdomain")
        for n in (0, 1, 2)
    }
    assert any("of node node173: 6 chip(s) available" in m.message for m in ev.files[0].messages)
    (event,) = _load(
        "mindcluster_kubectl_get_events_device_plugin_device_fault_card2_dev0_8c084e00_"
        "restartbusiness_doc.txt"
    ).failures
    assert (event["line"], event["host"], event["code"], event["code_name"]) == (
        2, "k8smaster", "8C084E00", "RestartBusiness",
    )  # fmt: skip
    assert event["message"].startswith("device fault event card 2 device 0 on k8smaster")


def test_runtime_codes_of_the_107xxx_range_and_the_runtimes_device_line() -> None:
    (ctx,) = _load(
        "cann_runtime_faq_aclrtmemcpyasync_107003_stream_not_in_current_context.log"
    ).failures
    assert (ctx["call"], ctx["code"], ctx["code_name"]) == (
        "aclrtMemcpyAsync", "107003", "ACL_ERROR_RT_STREAM_CONTEXT",
    )  # fmt: skip
    (alloc,) = _load("cann_runtime_faq_aclrtmalloc_207001_device0_10mib.log").failures
    assert (alloc["code"], alloc["device"]) == ("207001", 0)


def test_an_hccl_codes_message_without_its_code_is_read_as_that_code() -> None:
    (p2p,) = _load("hcomm_doc_ei0010_p2p_dev0_module0_dev9_module1_not_same_plane.log").failures
    assert (p2p["kind"], p2p["code"]) == ("hccl_error", "EI0010")
    assert p2p["message"].startswith("EI0010 (by its message): P2P communication failed.")
    (port,) = _load("hcomm_doc_ei0009_device0_transport_init_network_port_down.log").failures
    assert (port["code"], port["device"]) == ("EI0009", 0)
    (line,) = [
        str(i)
        for i in builtin_findings({"evidence.failures": [p2p]})["evidence-hccl-other-error"].items
    ]
    assert "HCCL_INTRA_ROCE_ENABLE=1" in line


def test_the_kernels_hung_tasks_name_the_module_they_wait_in() -> None:
    ev = _load("m4_tr141_try3_dmesg_hung_task_python_gpfs_write.txt")
    hung = [f for f in ev.failures if f["kind"] == "hung_task"]
    assert [(f["line"], f["pid"]) for f in hung] == [(6723, 76609), (6778, 280058)]
    assert hung[1]["exception_type"] == (
        "task python (pid 280058) blocked in the kernel, waiting in IBM Storage Scale (GPFS) "
        "(mmfslinux, mmfs26)"
    )
    found = builtin_findings({"evidence.failures": ev.failures}, "nccl")
    assert found["evidence-hung-task"].severity == "warning"
    assert not [f for f in found.values() if f.severity == "critical"]


def test_deepspeeds_exit_record_blames_no_local_rank_and_each_node_is_said() -> None:
    ev = _load(
        "deepspeed_megatron_gpt_2node_16rank_5_iters_then_exit_code_1_sigkill_superbench.log"
    )
    exits = [f for f in ev.failures if f["kind"] == "launcher_exit"]
    assert [(f["line"], f["host"], f["local_rank"], f["exit_code"]) for f in exits] == [
        (1458, "vm-07-14", None, 1),
        (1461, "vm-07-05", None, 1),
    ]
    assert (
        "the command it prints is the last one it started, local rank 7"
        in exits[0]["exception_type"]
    )


def test_one_process_runs_interleaved_each_finished_and_one_hosts_pids_tell_them_apart() -> None:
    ev = _load(
        "nccl_tests_alltoall_mpirun_np4_nonmpi_build_four_single_rank_jobs_v100_ssbandjl.log"
    )
    assert all(b["complete"] for b in ev.benchmarks) and ev.benchmarks
    assert {b["solo_hosts"] and tuple(sorted(set(b["solo_hosts"]))) for b in ev.benchmarks} == {
        ("gdr114", "gdr116")
    }
    said = [m.message for m in ev.files[0].messages]
    assert any("each finished (4 '# Avg bus bandwidth' footers)" in m for m in said)
    assert not any("cut short" in m or "no result row follows" in m for m in said)
    found = builtin_findings({"evidence.benchmarks": ev.benchmarks}, "nccl")
    assert "evidence-benchmark-cut-short" not in found
    # two processes on one host (mpirun -N 2), each "Rank 0" with its own pid
    two = _load("nccl_tests_all_reduce_mpirun_np2_v100_two_single_rank_jobs_rank1_segfault.log")
    said = [m.message for m in two.files[0].messages]
    assert any(
        "2 processes each printed their own header and 'Rank 0' (on gdr114): each ran the test "
        "alone, none between them" in m
        for m in said
    )


def test_a_kernel_the_runtime_reports_failed_under_a_code_is_the_devices_exception() -> None:
    (exc,) = _load(
        "ge_atc_amct_calibration_ez9999_aicore_kernel_execute_failed_507011_device0.log"
    ).failures
    assert (exc["kind"], exc["code"], exc["device"], exc["line"]) == (
        "npu_device_exception",
        "EZ9999",
        0,
        9,
    )
    assert exc["exception_type"] == (
        "Aicore kernel execute failed in kernel "
        "17786444594805609729-1_0_1_vgg_16/conv1/conv1_2/Conv2D_histo"
    )
    (core,) = _load(
        "cann_runtime_faq_plog_aiv_vector_core_exception_retcode_0x31_device0_stream2.log"
    ).failures
    assert (core["kind"], core["device"]) == ("npu_device_exception", 0)
    assert "kernel task retCode 0x31 (vector core exception)" in core["exception_type"]


def test_megatron_style_iteration_lines_are_a_training_log_and_ei0008_by_its_message() -> None:
    ev = _load("mindspeed_mm_fsdp2_qwen3vl_30b_iterations_1_2_of_10000_healthy.log")
    assert ev.files[0].formats == ["log"] and not ev.failures
    (said,) = [m.message for m in ev.files[0].messages]
    assert said.endswith(
        "2 step(s) logged, from iteration 1 of 10000 (loss 1.016570E+01) to iteration 2 of 10000 "
        "(loss 1.009848E+01); no error in them"
    )
    (version,) = _load("hcomm_doc_ei0008_cann_hccl_version_local_9_2_0_remote_9_1_0.log").failures
    assert version["code"] == "EI0008"
    assert version["message"].startswith("EI0008 (by its message): The ops (cann-hccl) versions")


def test_nccl_warns_the_user_guide_explains_carry_its_advice() -> None:
    cases = {
        "nccl_docs_ib_warn_call_to_ibv_create_qp_failed_memlock.log": "memlock unlimited",
        "nccl_docs_roce_warn_ibv_modify_qp_failed_invalid_argument_gid.log": "NCCL_IB_GID_INDEX",
        # (its line number written "XXX")
        "nccl_docs_p2p_cc_warn_cuda_failure_800_operation_not_permitted_imex.log": "IMEX channel files",
    }
    for name, words in cases.items():
        ev = _load(name)
        assert [f["kind"] for f in ev.failures] == ["nccl_warning"], name
        advice = " ".join(
            r.why
            for r in builtin_findings({"evidence.failures": ev.failures}, "nccl")[
                "evidence-nccl-warning"
            ].recommendations
        )
        assert words in advice, name
        assert sum(w in advice for w in cases.values()) == 1, name  # (only its own)


def test_xid_lines_pasted_without_nvrm_and_their_bus_masked_are_read() -> None:
    ev = _load("lambdalabs_kernlog_xid119_gsp_rpc_timeout_xid79_fallen_off_bus.log")
    assert [(f["kind"], f["code"], f["line"]) for f in ev.failures] == [
        ("gpu_driver_fault", "119", 1),
        ("gpu_driver_fault", "79", 2),
    ]


def test_an_assert_with_no_message_a_kernel_panic_and_ortes_force_terminate_are_read() -> None:
    (assertion,) = _load(
        "awsome_megatron_slurm_gpt3_pretrain_dataset_assert_num_samples.log"
    ).failures
    # (Megatron's dataset builder's own check: the job's settings, set 702's mend)
    assert (assertion["kind"], assertion["exception_type"], assertion["line"]) == (
        "job_data_check", "AssertionError", 26,
    )  # fmt: skip
    assert assertion["message"] == "AssertionError: (no message; raised by: assert num_samples > 0)"
    (panic,) = _load("gpud_pstore_dmesg_nvidia_550_144_03_crash_test_kernel_panic.txt").failures
    assert (panic["kind"], panic["line"], panic["pid"]) == ("kernel_panic", 383, 190097)
    assert panic["exception_type"] == (
        "the kernel panicked: Test panic triggered by crash_test module (running: tee, pid 190097)"
    )
    (orte,) = _load("horovod_mpirun_orte_force_terminate_data_unpack_grpcomm_direct.log").failures
    assert (orte["kind"], orte["line"]) == ("launch_failed", 4)
    assert "different Open MPI (or hwloc) builds" in orte["exception_type"]
    found = builtin_findings({"evidence.failures": [panic, orte]}, "nccl")
    assert (
        found["evidence-kernel-panic"].severity
        == found["evidence-launch-failed"].severity
        == "critical"
    )


def test_ascend_tools_own_answers_are_said() -> None:
    expected = {
        "driver950_npu_smi_set_reset_i0_m1_confirm_y_reset_card_successfully_doc.txt": (
            "npu-smi set -t reset -i 0 -m 1: status OK: Reset card successfully."
        ),
        "npu_smi_set_create_vnpu_i0_c0_vir02_status_ok.txt": (
            "npu-smi set -t create-vnpu -i 0 -c 0 -f vir02: status OK: Create vnpu success"
        ),
        "driver950_npu_smi_upgrade_t_vrd_i0_transfer_success_upgrade_device_success_doc.txt": (
            "npu-smi upgrade -t vrd -i 0 -f Atlas-A5-hdk-vrd-firmware_xxx.hpm: status start to "
            "upgrade, transfer success: Upgrade device success"
        ),
        "driver950_npu_smi_upgrade_b_vrd_i0_6_vrds_current_eq_target_doc.txt": (
            "npu-smi upgrade -b vrd: 6 VRD(s), each at its target version"
        ),
        "driver950_hccn_tool_g_version_i0_network_driver_25_7_rc1_fw_b0202_doc.txt": (
            "hccn_tool -version: network driver 25.7.rc1, network firmware B0202_1053"
        ),
        "driver950_hccn_tool_g_show_res_i0_udma3_jfr4_state_ready_doc.txt": (
            "hccn_tool -show_res: RES_JFR state 1 [READY]"
        ),
        "driver950_hccn_tool_s_upgrade_lane_i0_u0_p4_confirm_y_success_doc.txt": (
            # (the device its command names, -i 0: said since set 697's mend)
            "hccn_tool -s -upgrade_lane (device 0): the setting was accepted ('Cmd executed successfully!'); "
            "the tool's own answer, nothing to judge"
        ),
        "hccn_tool_g_credit_i0_u0_p4_share_562_vl0_15_28_all_used_0_doc.txt": (
            "hccn_tool -credit: port share credit 562 allocated, 0 in use; 16 VL priority "
            "credit(s) allocated, 0 in use"
        ),
    }
    for name, said in expected.items():
        ev = _load(name)
        (report,) = ev.files
        assert (report.formats, report.status, ev.failures) == (["ascend_notes"], "read", []), name
        assert [m.message for m in report.messages] == [f"ascend_notes: {said}"], name


def test_an_exporter_that_counts_no_npu_is_a_warning() -> None:
    ev = _load("npu_exporter_prometheus_metrics2_empty_npu_list_machine_npu_nums_0.txt")
    (none,) = ev.failures
    assert (none["kind"], none["line"]) == ("npu_not_seen", 3)
    assert (
        builtin_findings({"evidence.failures": ev.failures})["evidence-npu-not-seen"].severity
        == "warning"
    )


def test_nvidia_smi_qs_power_and_temperature_are_read() -> None:
    (gpu,) = _load(
        "nvidia_smi_q_i1_a100_sxm4_80gb_525_60_13_util100_87w_during_hang_m4logs.txt"
    ).gpus
    assert (gpu["util_pct"], gpu["power_w"], gpu["power_cap_w"], gpu["temp_c"]) == (
        100,
        87,
        400,
        30,
    )


def test_ascend_fds_english_potential_root_cause_label_marks_its_first_fault() -> None:
    ev = _load("ascend_fd_diag_superpod_auto_topology_lcne_forwarding_engine_failure_half_lane.txt")
    faults = [f for f in ev.failures if f["kind"] == "faultdiag_fault"]
    assert [f["root_cause"] for f in faults] == [True, False]


def test_glooss_connect_retry_names_the_rank_the_peer_and_the_try() -> None:
    (err,) = _load(
        "mindie_llm_faq_gloo_failed_to_connect_rank1_size2_connection_refused.log"
    ).failures
    assert (err["kind"], err["rank"], err["rank_size"], err["remote_ip"], err["port"]) == (
        "gloo_error", 1, 2, "127.0.0.1", 345,
    )  # fmt: skip
    assert err["call"] == "connect (try 2 of 3, it tries again)"
    advice = " ".join(
        r.why
        for r in builtin_findings({"evidence.failures": [err]}, "gloo")[
            "evidence-gloo-error"
        ].recommendations
    )
    assert "GLOO_SOCKET_IFNAME" in advice


def test_mindies_model_runner_failure_names_the_rank_and_the_exception() -> None:
    (err,) = _load("mindie_llm_faq_global_rank2_qwen25vl_vit_graph_infershape_fail.log").failures
    assert (err["kind"], err["rank"], err["exception_type"]) == (
        "model_error", 2, "Qwen25VL_VIT_graph nodes[1] infershape fail",
    )  # fmt: skip


def test_the_silent_data_corruption_check_names_its_device_and_step() -> None:
    ev = _load("mindspore_sdc_npu_asd_enable2_device2_silentcheckv3_nan_step5_grep.log")
    (check,) = ev.failures
    assert (check["kind"], check["device"], check["line"]) == ("silent_check", 2, 3)
    assert check["exception_type"] == (
        "the silent data corruption check found a value of nan at step 5 (ComputeL1Error)"
    )
    assert (
        builtin_findings({"evidence.failures": ev.failures})["evidence-silent-check"].severity
        == "warning"
    )


def test_ei0019_and_ei0016_by_their_messages_name_the_address_and_the_setting() -> None:
    (bound,) = _load(
        "hcomm_doc_ei0019_host_nic_listen_10_23_146_197_port50001_already_bound.log"
    ).failures
    assert (bound["code"], bound["ip"], bound["port"]) == ("EI0019", "10.23.146.197", 50001)
    (tls,) = _load("hcomm_doc_ei0016_tls_inconsistent_rank0_enabled_ranks1_7_disabled.log").failures
    assert tls["code"] == "EI0016"


def test_srun_refusing_a_step_is_a_failed_launch_and_the_950s_chip_map_is_said() -> None:
    (step,) = _load(
        "mlperf40_oracle_all_reduce_perf_srun_more_processors_requested_than_permitted.log"
    ).failures
    assert (step["kind"], step["line"]) == ("launch_failed", 2)
    assert step["exception_type"] == (
        "srun could not create the job step of job 551: More processors requested than permitted"
    )
    ev = _load("driver950_npu_smi_info_m_npu0_slot0_chip0_phy0_chip_name_xxx_doc.txt")
    assert [m.message for m in ev.files[0].messages] == [
        "npu_smi_mapping: npu-smi info -m: 1 chip(s): NPU 0 chip 0 (xxx); a map of ids, not judged"
    ]


def test_nvidia_smis_banner_alone_is_said_with_its_versions() -> None:
    ev = _load("nvidia_smi_head8_driver_525_85_05_cuda_12_0_header_only_lambdalabs.txt")
    assert (ev.files[0].status, ev.gpus, ev.failures) == ("read", [], [])
    (said,) = [m.message for m in ev.files[0].messages]
    assert said.startswith("nvidia_smi: nvidia-smi's banner alone (driver 525.85.05, CUDA 12.0)")


def test_nvlink_status_under_mig_mode_says_the_links_are_unknown_not_down() -> None:
    ev = _load("nvidia_smi_nvlink_s_h200_mig_mode_not_supported_590_capture.txt")
    assert (ev.files[0].status, ev.failures) == ("read", [])
    (said,) = [m.message for m in ev.files[0].messages]
    assert "GPU 0 (NVIDIA H200) is in MIG mode" in said and "(not down)" in said
    assert ev.nvlinks == []  # (no GPU with its links: nothing judged)


def test_a_mindcluster_components_error_line_alone_is_quoted() -> None:
    (err,) = _load(
        "mindcluster_npu_exporter_rotated_log_get_npu_link_stat_failed_no_such_file.log"
    ).failures
    assert (err["kind"], err["line"]) == ("log_error", 1)
    assert "get npu link stat failed, no such file or directory" in err["message"]
    # (set 691: a device manager that found no driver library it would load is read, with the
    # paths that failed the owner/mode check, not quoted as an unknown program's error)
    (dcmi,) = _load(
        "mindcluster_npu_exporter_log_devicemanager_init_failed_dcmi_check_uid_or_mode_failed.log"
    ).failures
    assert (dcmi["kind"], dcmi["line"], dcmi["call"]) == ("npu_dcmi_error", 1, "dcmi_lib")
    assert (
        "/usr/local/Ascend/driver/lib64/driver/libdcmi.so, /usr/local/dcmi/libdcmi.so failed the "
        "owner/mode check" in dcmi["exception_type"]
    )


def test_a_cores_exception_under_a_cann_code_names_its_device_and_the_callbacks_op() -> None:
    (exc,) = _load(
        "ais_bench_exception_cb_gatherv2_ez9999_aicore_mte_ddr_out_of_range_device2.log"
    ).failures
    assert (exc["kind"], exc["code"], exc["device"], exc["line"]) == (
        "npu_device_exception",
        "EZ9999",
        2,
        12,
    )
    # (the core's own error bits and the runtime's words on the report's line, past the
    # message's cut)
    assert exc["exception_type"] == (
        "aicore exception on core 0 (the core's code 0x800000) in op bert/embeddings/GatherV2: "
        "The DDR address of the MTE instruction is out of range"
    )


def test_megatrons_nan_grad_norm_assertion_names_its_rank_device_and_node_across_a_wrap() -> None:
    (err,) = _load(
        "mindspeed_faq_megatron070_gradnorm_nan_assert_rank13_device5_node_15_11_ocr_wrapped.log"
    ).failures
    assert (err["rank"], err["device"], err["host"]) == (13, 5, "node-15-11")
    assert err["message"].endswith("Device: 5, node: node-15-11")
