"""Outputs of rounds III and JJJ's held-out evaluation (sets 485-492) and earlier rounds' leftovers
that the advisor read wrong or not at all before this change (tests/data/evidence_heldout_59,
sources in tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor.parsers import rdma
from tests import heldout
from tests.rules_facts import builtin_findings
from tests.test_parsers_heldout_set453 import HELDOUT, _load

# --- round HHH's leftovers ---------------------------------------------------------------------


def test_iblinkinfo_links_whose_lanes_run_slower_than_the_fastest_are_a_warning() -> None:
    # an old fabric: faui36b/c at 4X 10.0 Gbps (QDR lanes), faui36a/d/e/f at 5.0 (DDR), an
    # InfiniHostLx and every link of the second switch at 2.5 (SDR); width is not compared (a
    # split port is narrower by design)
    name = "iblinkinfo_ompi_users_2010_faui36_ibm_hssm_topspin_4x_sdr_ddr_qdr_mixed_speeds_ports_down_polling.txt"
    ports, _ = rdma.parse((HELDOUT / name).read_text())
    active = [p for p in ports if p.active]
    assert len(active) == 13
    # the heading without a colon after "Switch" names the switch
    assert {p.ca for p in active} == {"IBM HSSM", "Topspin Switch"}
    slower = {(p.ca, p.port): p.lane_gbps for p in active if p.fastest_lane_gbps == 10.0}
    assert slower[("IBM HSSM", 1)] == 5.0
    assert slower[("IBM HSSM", 2)] == 2.5
    assert ("IBM HSSM", 17) not in slower and ("IBM HSSM", 18) not in slower
    assert len(slower) == 11
    found = builtin_findings({"evidence.hca_ports": _load(name).hca_ports}, "nccl")
    finding = found["evidence-hca-link-lanes-slower"]
    assert finding.severity == "warning"
    assert finding.message.startswith("11 active link(s) in 1 fabric output(s)")
    assert any(
        "IBM HSSM port 19 to faui36d HCA-1 port 1: 5.0 Gb/s a lane" in i for i in finding.items
    )


def test_one_lane_speed_with_different_widths_is_no_warning() -> None:
    # an HDR switch with a split (2X) port beside 4X ones: narrower by design, lanes alike
    text = (
        "Switch: 0x0c42a10300c1e0d0 MF0;sw01:MQM8700/U1:\n"
        '          1    1[  ] ==( 4X 53.125 Gbps Active/  LinkUp)==>      5    1[  ] "gpu01 mlx5_0" ( )\n'
        '          1    2[  ] ==( 2X 53.125 Gbps Active/  LinkUp)==>      6    1[  ] "gpu02 mlx5_0" ( )\n'
    )
    ports, _ = rdma.parse(text)
    assert [(p.rate_gbps, p.lane_gbps, p.fastest_lane_gbps) for p in ports] == [
        (200.0, 50.0, None),
        (100.0, 50.0, None),
    ]


# --- round JJJ (set 491) ------------------------------------------------------------------------


def test_a_posters_arrow_after_an_ibstat_state_is_not_the_state_and_no_sm_is_said() -> None:
    name = "ibstat_cx4_homelab_ibp4s0_initializing_linkup_fdr56_lid65535_no_sm.txt"
    (port,) = _load(name).hca_ports
    assert (port["state"], port["physical_state"], port["sm_lid"]) == ("Initializing", "LinkUp", 0)
    found = builtin_findings({"evidence.hca_ports": _load(name).hca_ports}, "nccl")
    # (its only port: the host has no active one, set 580's critical)
    assert "evidence-hca-port-not-active" not in found
    (item,) = found["evidence-hca-host-no-active-port"].items
    assert item.startswith(
        "ibp4s0 port 1: Initializing (physical state LinkUp), InfiniBand, SM lid 0: no subnet "
        "manager has configured it"
    )


def test_perftest_with_several_qps_takes_the_peer_from_the_remote_address_lines() -> None:
    name = "perftest_alibaba_sccgn_ib_read_bw_client_mlx5_bond_0_20qp_roce_165gbps_cpufreq_warn_elided.txt"
    (port,) = _load(name).hca_ports
    run = port["perftest"]
    assert (run["local"], run["peer"]) == ("200.0.45.14", "200.0.46.14")


def test_nvml_failures_after_a_scripts_rc_note_and_with_a_curly_quote_are_read() -> None:
    for name, said in (
        ("nvidia_smi_query_gpu_csv_and_list_gpus_rc255_nvml_unknown_error.txt", "Failed to initialize NVML: Unknown Error"),
        ("nvidia_smi_failed_couldnt_communicate_driver_curly_quote.txt", "couldn\u2018t communicate with the NVIDIA driver"),
    ):  # fmt: skip
        found = builtin_findings({"evidence.failures": _load(name).failures}, "nccl")
        finding = found["evidence-nvml-unavailable"]
        assert finding.severity == "critical"
        assert any(said in i for i in finding.items), finding.items


# --- round JJJ (set 489): Ascend tool outputs ----------------------------------------------------


def test_an_npu_topology_with_a_numa_affinity_column_is_read_with_its_numa_nodes() -> None:
    ev = _load(
        "npu_smi_topo_m_8npu_phb_pairs_sys_no_hccs_numa_6_4_0_2_vllm_hust_devhub_20260407.txt"
    )
    (f,) = ev.files
    assert f.formats == ["npu_smi_topo"]
    (topo,) = ev.topologies
    assert topo["links"]["NPU0"]["NPU1"] == "PHB" and topo["links"]["NPU0"]["NPU2"] == "SYS"
    assert topo["cpu_affinity"]["NPU2"] == "96-119"
    assert [topo["numa_affinity"][f"NPU{i}"] for i in range(0, 8, 2)] == ["6", "4", "0", "2"]
    assert topo["hccs"] is False


def test_a_failed_build_of_hccl_test_gives_the_compilers_first_error() -> None:
    ev = _load(
        "hccl_test_build_failed_exit1_hcclcommsetmemoryrange_undeclared_old_cann_headers_vllm_hust_devhub_probe.log"
    )
    (error,) = ev.failures
    assert error["line"] == 6
    assert "error: 'HcclCommSetMemoryRange' was not declared in this scope" in error["message"]


def test_hccl_test_rows_whose_check_is_null_are_said_unchecked() -> None:
    said = heldout.said(
        _load("hccl_test_broadcast_64m_check_null_vllm_hust_devhub_20260407_first_39_rows.log")
    )
    assert any(
        m.startswith("hccl_test: check_result NULL on 39 of 39 row(s): hccl_test did not check")
        for m in said
    ), said


# --- round III (set 486) and JJJ (set 490): Ascend logs ------------------------------------------


def test_one_logged_line_alone_is_a_programs_log_with_no_error() -> None:
    ev = _load(
        "vllm_ascend5044_v0_11_0_enginecore_dp0_pid299_init_v1_engine_qwen3_8b_npu_config_line_healthy_cut.log"
    )
    (f,) = ev.files
    assert (f.formats, f.status) == (["log"], "read")
    assert ev.failures == []
    assert any("no line says an error" in m for m in heldout.said(ev))


def test_a_segfault_banner_and_vllms_failed_core_are_one_crash_not_an_unexplained_err99999() -> (
    None
):
    ev = _load(
        "vllm_ascend10136_ascend910_cann9_enginecore_segfault_failed_core_minus11_err99999_pid314724.log"
    )
    (crash,) = ev.failures
    assert (crash["kind"], crash["line"], crash["exit_code"]) == ("launcher_exit", 3, -11)
    assert crash["exception_type"].startswith("tvm_ffi's signal handler")
    assert "vLLM: its EngineCore process exited with -11 (line 5)" in crash["exception_type"]
    found = heldout.found(ev, "hccl")
    assert "evidence-launcher-exit" in found
    assert "evidence-torch-npu-error" not in found  # the crash above explains ERR99999


def test_hccl_function_error_with_its_arguments_elided_is_read() -> None:
    ev = _load(
        "areal_pr1254_ref_compute_logp_hcclcomminitrootinfoconfig_code7_ej0001_hccp_init_failure.log"
    )
    calls = [f for f in ev.failures if f["kind"] == "hccl_call_failure"]
    assert [(f["call"], f["code"], f["line"]) for f in calls] == [
        ("hcclCommInitRootInfoConfig", "7", 1)
    ]
    assert any(f.get("code") == "EJ0001" for f in ev.failures)


def test_mindsporess_failed_group_on_gpus_is_its_own_failure_not_a_cann_plog() -> None:
    ev = _load(
        "hiascend_forum_mindspore22_gpu_nccl_world_group_create_comm_group_failed_pid27927_cut.log"
    )
    (failed,) = ev.failures
    assert (failed["kind"], failed["line"], failed["pid"]) == ("comm_group_failure", 5, 27927)
    assert failed["group"] == "nccl_world_group"
    assert "NCCL's communicator" in failed["exception_type"]
    assert "does not match CUDA 11.8.89 (line 1)" in failed["exception_type"]
    found = heldout.found(ev)
    assert "evidence-comm-group-failed" in found and "evidence-hccl-plog-error" not in found


def test_a_driver_error_is_said_with_the_runtimes_return_code_and_device() -> None:
    ev = _load(
        "hiascend_forum_plog_drv_devdrv_device0_open_failed_errno14_runtime_ee9999_0x7020014_pid78_cut.log"
    )
    (error,) = ev.failures
    assert (error["line"], error["device"], error["code"]) == (4, 0, "EE9999")
    assert (
        "the runtime then: Failed to open device, retCode=0x7020014, deviceId=0 (line 8)"
        in error["exception_type"]
    )


def test_hccls_run_log_entries_of_a_communicators_creation_are_read() -> None:
    ev = _load(
        "hccl_doc_run_plog_entry_getrootinfo_comminitrootinfoconfig_ranks16_rank0_group_name_0_healthy.log"
    )
    assert ev.failures == []
    assert heldout.said(ev) == [
        "log: HCCL was called to create a communicator by root info: rank 0 of 16, root "
        "127.10.0.1 port 60000, identifier group_name_0, device 0"
    ]


# --- rounds III and JJJ (sets 487, 488, 492): NVIDIA tools and logs -------------------------------


def test_nccls_result_text_inside_vllms_worker_message_is_a_failed_nccl_call() -> None:
    ev = _load(
        "vllm7800_mistral_large_tp8_vllmworkerprocess_pid232_init_device_nccl_unhandled_system_error_cut.log"
    )
    (failed,) = ev.failures
    assert (failed["kind"], failed["pid"], failed["line"]) == ("nccl_call_failure", 232, 1)
    assert "evidence-nccl-call-failed" in heldout.found(ev)


def test_a_chain_of_ray_task_errors_names_the_innermost_task_and_torchs_backend_error() -> None:
    ev = _load(
        "ray40758_raytrain_torchtrainer_raytaskerror_distbackenderror_worker_pid192_10_0_0_19_traceback_cut.log"
    )
    (raised,) = ev.failures
    assert (raised["line"], raised["pid"], raised["host"]) == (12, 192, "10.0.0.19")
    assert raised["library"] == "torch.distributed"
    assert "the driver got it through ray::_Inner.train()" in raised["call"]
    finding = heldout.found(ev)["evidence-python-exception"]
    assert "raised inside torch.distributed" in finding.message


def test_nvls_tree_comm_split_and_a_cut_rank_line_are_read() -> None:
    said = heldout.said(
        _load(
            "msswift3934_grpo_g183_interleaved_net_ib_8_gdrdma_nvls_tree_commsplit_nranks16_service_thread_connection_closed_cut.log"
        )
    )
    assert "log: g183: NCCL connected its NVLS tree" in said
    assert any("a communicator of 16 rank(s) split from another (ncclCommSplit)" in m for m in said)
    assert not any(m.startswith("log: a host:") for m in said)
    ev = _load("nccltests276_h200_16rank_gpu47_gpu48_header_cut.log")
    (bench,) = ev.benchmarks
    assert (bench["ranks"], bench["hosts"]) == (16, ["gpu47", "gpu48"])


def test_nccls_topology_dump_and_communicators_ended_by_abort_are_said() -> None:
    said = heldout.said(
        _load(
            "megatron_duihuhu_c0b58536a5f1_4gpu_nvswitch_socket_eth0_hpcx_plugin_init_head_cut.log"
        )
    )
    assert any(m.startswith("log: a communicator of 4 rank(s)") for m in said)
    assert (
        "log: NCCL's topology: 4 GPU(s) (27000, 2D000, 54000, 59000); NVLink 160.0 GB/s to an "
        "NVSwitch" in said
    )
    said = heldout.said(
        _load(
            "megatron_duihuhu_c0b58536a5f1_rank0_tail_allreduce_opcount_then_service_thread_closed_4_comms_abort_complete_cut.log"
        )
    )
    assert any(
        m.startswith("log: 3 communicators of 2 rank(s) ended by ncclCommAbort") for m in said
    )
    assert any(
        m.startswith("log: a communicator of 4 rank(s) ended by ncclCommAbort") for m in said
    )
    assert any("10 connection(s) closed by local rank(s) 0, 1, 2, 3" in m for m in said)


def test_time_outs_at_other_seqnums_with_no_group_named_are_a_warning_and_no_first_rank() -> None:
    for name, spread in (
        ("nemo13562_3rank_wrapped_ranks1_2_broadcast_seq532339_rank0_allgather_base_seq532341_1800000ms_cut.log",
         {532339: [1, 2], 532341: [0]}),
        ("pastebin_qu1mjp8u_x2_h100_2rank_blocking_wait_rank1_allgather_base_seq1237_vs_rank0_allgather_seq1191_3600000ms_abort_cut.log",
         {1191: [0], 1237: [1]}),
    ):  # fmt: skip
        ev = _load(name)
        (timeline,) = ev.timelines
        assert timeline.unnamed_seq_spread == spread
        assert timeline.seq_spread == {}
        assert timeline.first_rank is None  # each watchdog fired when its own wait ran out
        found = heldout.found(ev)
        assert "evidence-watchdog-seq-spread-unnamed-group" in found
        assert "evidence-failure-order" not in found
    (timeline,) = _load(
        "nemo13562_3rank_wrapped_ranks1_2_broadcast_seq532339_rank0_allgather_base_seq532341_1800000ms_cut.log"
    ).timelines
    assert timeline.unnamed_seq_ops == {532339: ["broadcast"], 532341: ["all_gather"]}


def test_a_custom_benchmark_under_srun_is_a_programs_log() -> None:
    ev = _load(
        "luckylittlemonster_srun_2node_nccl2243_aws_ofi_cxi_slingshot_p2p_bw_test1_healthy_cut.log"
    )
    (f,) = ev.files
    assert (f.formats, f.status) == (["log"], "read")
    assert ev.failures == []


# --- round EEE's leftover ---------------------------------------------------------------------


def test_nccl_tests_rows_above_the_headers_max_bytes_are_said_of_another_run() -> None:
    said = heldout.said(
        _load(
            "coreweave_kubectl_mpijob_h100_64_sharp_launcher_log_all_reduce_512m_8g_busbw_386_avg_373_elided.log"
        )
    )
    assert any(
        "2 row(s) above the 2147483648 B maxBytes its header asked (4294967296, 8589934592 B): "
        "the header and the table are not of one run" in m
        for m in said
    ), said
    assert not any("sizes its header asked: the rows" in m for m in said)


def test_a_runtime_error_takes_no_device_from_another_processs_lines_under_it() -> None:
    # (round EEE's leftover: pid 253915's failed call was given device 0 from pid 10972's
    # "Memory async copy failed, device_id=0" line under it)
    ev = _load(
        "mindcluster_modelarts_debug_plog10972_rank0_of8_client_device2_get_socket_timeout_mixed_runtime_507051_heartbeat_cqe12_sdma_smmu.log"
    )
    (runtime,) = [f for f in ev.failures if f["kind"] == "npu_runtime_error"]
    assert (runtime["line"], runtime["pid"], runtime["device"]) == (5, 253915, None)


# --- round KKK (sets 493-498) --------------------------------------------------------------------


def test_npu_smi_info_l_is_named_as_the_device_list() -> None:
    (note,) = heldout.said(_load("npu_smi_info_l_950_a5_pcie_card_total_count_1_driver_doc.txt"))
    assert note == (
        "npu_smi_query: npu-smi info -l: Total Count 1; 1 NPU(s) listed (NPU 0 (A5 PCIe Card))"
    )


def test_vllms_engine_core_that_names_no_failed_process_is_a_failed_start() -> None:
    ev = _load(
        "vllm_ascend1249_v1_asyncllm_engine_core_initialization_failed_empty_procs_err99999_pid3464_cut.log"
    )
    (failed,) = ev.failures
    assert (failed["kind"], failed["line"]) == ("launcher_exit", 12)
    assert failed["exception_type"] == "vLLM (its engine core did not start; no process named)"
    assert "evidence-torch-npu-error" not in heldout.found(ev, "hccl")


def test_a_benchmark_report_after_logger_lines_is_a_clean_log_and_no_failed_0_error() -> None:
    ev = _load("glm52_w8a8_vllm_ascend_bench_serve_64k_in_1k_out_256_ok_0_failed_healthy_cut.log")
    (f,) = ev.files
    assert (f.formats, ev.failures) == (["log"], [])


def test_torchs_cpp_error_with_its_frames_is_a_log_with_its_error_line() -> None:
    for name, line, said in (
        ("vllm_ascend393_v073rc1_910b3_chat_request_then_atb_operationsetup_setup_failed_rank0_cut.log", 5, "setup failed!"),
        ("vllm_ascend2239_qwen25_7b_rank0_selfattentionoperation_setup_failed_atb_frames_cut.log", 2, "SelfAttentionOperation setup failed!"),
    ):  # fmt: skip
        (error,) = _load(name).failures
        assert (error["line"], error["rank"]) == (line, 0)
        assert error["message"].endswith(said)


def test_a_csv_querys_unknown_error_cell_is_an_unreadable_sensor_and_power_is_read() -> None:
    ev = _load(
        "nvidia_smi_exe_query_gpu_csv_rtx2080ti_power_default_limit_unknown_error_mindminer627.txt"
    )
    (gpu,) = ev.gpus
    assert (gpu["power_w"], gpu["power_cap_w"], gpu["fan_pct"]) == (229, 210, 56)
    assert (gpu["unreadable"], gpu["sensors_only"]) == (["power.default_limit"], True)
    found = builtin_findings({"evidence.gpus": ev.gpus}, "nccl")
    (item,) = found["evidence-gpu-sensor-unreadable"].items
    assert item.startswith("GPU 0 (GeForce RTX 2080 Ti): power.default_limit unreadable")


def test_a_zero_node_guid_is_said_beside_a_port_that_did_not_come_up() -> None:
    ev = _load(
        "ibv_devinfo_hostdev_pod_mlx5_7_cx7_port_init_lid_65535_guid_zero_twice_cut_netop1646.txt"
    )
    (port,) = ev.hca_ports
    assert (port["state"], port["guid_zero"], port["sm_lid"]) == ("PORT_INIT", True, 4)
    (item,) = heldout.found(ev)["evidence-hca-port-not-active"].items
    assert "node GUID all zeros (none assigned" in item


def test_remapped_rows_uncorrectable_count_is_said_with_the_pending_remap() -> None:
    ev = _load("nvidia_smi_q_remapped_rows_uncorrectable_4_pending_yes_fragment_gpud80.txt")
    (gpu,) = ev.gpus
    assert (gpu["remap_pending"], gpu["remapped_uncorrectable"]) == (True, 4)
    found = builtin_findings({"evidence.gpus": ev.gpus}, "nccl")
    (item,) = found["evidence-gpu-repair-pending"].items
    assert "row remap pending (4 row(s) remapped after uncorrectable errors)" in item


def test_the_warn_finding_says_nccl_errors_read_apart_may_come_first() -> None:
    ev = _load(
        "nccltests24_gpu4_gpu5_ib_completion_error12_vendor129_then_illegal_memory_access_cut.log"
    )
    finding = heldout.found(ev)["evidence-nccl-warning"]
    assert finding.message.startswith(
        "NCCL printed 1 more WARN line(s) in 1 process(es), beside the NCCL errors the other "
        "findings read"
    )


def test_a_failure_with_no_warn_names_where_nccls_trace_starts_and_its_settings() -> None:
    ev = _load(
        "nccl1332_busybox2_nccltests_ib_addr_range_192_168_64_0_24_net_ib_282_unhandled_system_error_cut.log"
    )
    (failed,) = ev.failures
    assert failed["exception_type"] == (
        "no WARN line; NCCL's trace starts at transport/net_ib.cc:282 -> 2 in its InfiniBand / "
        "RoCE transport (net_ib); set from the environment: NCCL_IB_ADDR_FAMILY=AF_INET, "
        "NCCL_IB_ROCE_VERSION_NUM=2, NCCL_IB_ADDR_RANGE=192.168.64.0/24"
    )


def test_nccls_bootstrap_and_loaded_plugins_are_said() -> None:
    said = heldout.said(
        _load(
            "vllm2442_v100_tp4_local_ray_rayworker_pid75830_bootstrap_bond0_rdma_plugin_v5_sharp_healthy_start_cut.log"
        )
    )
    assert (
        "log: bms-airtrunk-c-g1v2-app-10-214-144-75: NCCL's bootstrap uses bond0:10.214.144.75"
        in said
    )
    assert "log: NCCL loaded its network plugin: NCCL RDMA Plugin (v5)" in said
    assert "log: NCCL loaded its collective (CollNet) plugin: SHARP (v5)" in said


def test_a_grep_of_ibv_devinfo_without_port_lines_reads_each_devices_port() -> None:
    ev = _load("ibv_devinfo_v_grep_macos_thunderbolt_rdma_en2_en3_down_en4_active.txt")
    assert [(p["ca"], p["port"], p["state"], p["rate_gbps"]) for p in ev.hca_ports] == [
        ("rdma_en2", 1, "PORT_DOWN", 80.0),
        ("rdma_en3", 1, "PORT_DOWN", 80.0),
        ("rdma_en4", 1, "PORT_ACTIVE", 40.0),
    ]
    assert len(heldout.found(ev)["evidence-hca-port-not-active"].items) == 2


def test_a_port_that_discarded_most_of_what_it_received_is_a_warning() -> None:
    ev = _load(
        "ethtool_S_mlx5_xdp_kernel515_rx_discards_phy_58591428329_out_of_buffer_bpf_list.txt"
    )
    (drops,) = ev.failures
    assert drops["kind"] == "nic_rx_discards"
    assert drops["exception_type"].startswith(
        "the port discarded 60.4 % of the packets it received"
    )
    assert "it sent 5745055 pause frames" in drops["exception_type"]
    assert heldout.found(ev)["evidence-nic-rx-discards"].severity == "warning"


def test_the_prompt_that_ran_nvidia_smi_names_the_lost_gpus_host() -> None:
    ev = _load("nvidia_smi_lince2_008_unable_device_handle_0000_05_00_0_gpu_is_lost.txt")
    (lost,) = ev.failures
    assert (lost["kind"], lost["host"]) == ("gpu_driver_fault", "lince2-008")


def test_two_processes_same_header_before_any_row_is_one_table_not_a_cut_run() -> None:
    said = heldout.said(
        _load(
            "nccltests329_two_dockers_same_host_mpirun_each_rank0_nranks1_t600_roce_ibext_busbw0_head_tail_cut.log"
        )
    )
    assert any("2 processes each printed their own header" in m for m in said)
    assert not any("no result row follows this header" in m for m in said)
    # (the other process's NCCL INFO lines stand between the two headers)
    assert any("the rows below are the processes' interleaved" in m for m in said)


def test_nccl_1x_start_is_read() -> None:
    said = heldout.said(
        _load("pastebin_uksz04tl_nccl135_cuda90_2gpu_p2p_device_mem_pytorch_desktop_healthy.log")
    )
    assert said == [
        "log: NCCL 1.3.5 (built with CUDA 9.0)",
        "log: NCCL's 2 rank(s): rank 0 on device 0 (0000:0C:00.0), rank 1 on device 1 (0000:0D:00.0)",
        "log: NCCL's paths between ranks: 0->1 via P2P device mem, 1->0 via P2P device mem",
    ]


def test_a_flattened_line_gives_nccls_last_error_after_its_label() -> None:
    ev = _load(
        "awsome192_srun_label10_broadcast_distbackenderror_unhandled_system_error_nccl2185_socketstartconnect_127001_abort.log"
    )
    (failed,) = ev.failures
    assert failed["exception_type"] == (
        "socketStartConnect: Connect to 127.0.0.1<45069> failed : Software caused connection abort"
    )


# --- round LLL (sets 499-504) --------------------------------------------------------------------


def test_a_second_row_cut_after_its_chip_index_keeps_the_chip() -> None:
    said = heldout.said(_load("npu_smi_info_24_1_rc2_910b3_npu0_ok_hbm_9069_llamacpp11966_cut.txt"))
    assert any(
        "NPU 1 chip 0's second row is cut off after its chip index: its bus id and usage are "
        "unknown" in m
        for m in said
    ), said


def test_the_traceback_names_the_failed_tasks_device_stream_and_task() -> None:
    ev = _load(
        "msswift1951_910b3_qwen2_infer_ez9999_aicpu_exception_device0_stream28_task1726_507018_cut.log"
    )
    (runtime,) = [f for f in ev.failures if f["kind"] == "npu_runtime_error"]
    assert runtime["device"] == 0
    assert runtime["exception_type"] == "the failed task: device 0, stream 28, task 1726"
    (item,) = heldout.found(ev, "hccl")["evidence-npu-runtime-error"].items
    assert "507018 = ACL_ERROR_RT_AICPU_EXCEPTION: the failed task: device 0, stream 28" in item


def test_two_processes_with_the_same_runtime_code_are_two_failures() -> None:
    ev = _load(
        "vllm_ascend2105_qwen3_235b_w8a8_ep_eh9999_aicpu_exception_507018_pids_56447_56185_cut.log"
    )
    runtime = [f for f in ev.failures if f["kind"] == "npu_runtime_error"]
    assert [(f["pid"], f["call"]) for f in runtime] == [
        (56447, "wait for compute device to finish"),
        (56185, "wait for compute device to finish"),
    ]


def test_the_task_queues_inner_error_names_the_cpp_error_above_it() -> None:
    ev = _load(
        "vllm_ascend1425_310p3_reshapeandcacheoperation_setup_failed_atb_mqenginedeaderror_err00100_pid17133_cut.log"
    )
    (exc,) = [f for f in ev.failures if f["kind"] == "npu_device_exception"]
    assert (exc["line"], exc["device"], exc["pid"]) == (29, 0, 17133)
    assert (
        "ReshapeAndCacheOperation setup failed! (line 2, raised from OperationSetup)"
        in (exc["exception_type"])
    )


def test_one_logged_line_a_page_wrapped_is_still_a_log() -> None:
    ev = _load("vllm_ascend4503_enginecore_dp0_v0110_qwen3vl4b_init_config_line_healthy_cut.log")
    (f,) = ev.files
    assert (f.formats, ev.failures) == (["log"], [])


def test_vllms_engine_core_that_failed_to_start_gives_its_exception() -> None:
    ev = _load(
        "vllm_ascend1401_enginecore_capture_model_failed_to_find_aclmdlricapturebegin_err00008_pid589552_cut.log"
    )
    failed = ev.failures[0]  # (torch_npu's ERR00008 at the traceback's end is kept too)
    assert (failed["kind"], failed["line"]) == ("launcher_exit", 1)
    assert failed["exception_type"].startswith(
        "vLLM (its engine core did not start: RuntimeError: Failed to find function aclmdlRIC"
    )
    assert "evidence-launcher-exit" in heldout.found(ev, "hccl")


def test_libibverbs_abi_mismatch_is_the_reason_no_device_is_listed() -> None:
    ev = _load(
        "rdma_link_bnxt_re_then_ibv_devinfo_no_ib_devices_abi6_ib_write_bw_did_not_detect_sriovcni348.txt"
    )
    (none,) = [f for f in ev.failures if f["kind"] == "rdma_no_device"]
    assert (
        "bnxt_re provider supports kernel ABI 1 to 1, the kernel driver speaks 6"
        in (none["exception_type"])
    )
    # (ib_write_bw's "Did not detect devices" names no port it ran on: no port is made up for
    # it, round PPP's change; the no-device reading above says it)
    assert not [p for p in ev.hca_ports if p["perftest"]]


def test_a_lost_gpu_the_table_below_lists_again_is_a_warning_and_wddm_rows_read() -> None:
    ev = _load(
        "nvidia_smi_exe_gpu_lost_0000_03_then_reboot_table_369_30_geforce_840m_cut_darknet86.txt"
    )
    (gpu,) = ev.gpus
    assert (gpu["name"], gpu["persistence"]) == ("GeForce 840M", "WDDM")
    (lost,) = ev.failures
    assert lost["kind"] == "gpu_driver_error"
    assert "the table after it (line 13) lists that GPU again" in lost["exception_type"]


def test_rays_folded_repeats_of_a_failure_line_are_said() -> None:
    said = heldout.said(
        _load(
            "openrlhf624_ray_actor_prefixed_watchdog_allgather_base_seq17284_7200000ms_repeated14x_cut.log"
        )
    )
    assert any("Ray folded this watchdog timeout line of 14 more process(es)" in m for m in said)


def test_nccl_ring_lines_and_a_collectors_stamp_before_mpiruns_tag_are_read() -> None:
    said = heldout.said(
        _load("apex946_10_7_6_170_16rank_ring00_p2p_ipc_net_socket_2threads_8sockets_cut.log")
    )
    assert any("via P2P/IPC (12 line(s)" in m and "via NET/Socket (2 line(s)" in m for m in said)
    said = heldout.said(
        _load("meshtransformer38_mpirun_stdout_prefixed_v100_8gpu_rings_p2p_ipc_cut.log")
    )
    assert any("NCCL's channels go via P2P/IPC (11 line(s)" in m for m in said)


def test_a_topology_header_with_elided_columns_reads_the_devices_shown() -> None:
    ev = _load("nvidia_smi_topo_mp_gds_guide_dgx2_nfs_client_8of16_gpu_4of8_nic_pix_pairs.txt")
    (topo,) = ev.topologies
    assert "." not in topo["links"]["GPU0"]
    assert topo["links"]["GPU0"]["mlx5_0"] == "PIX"
    assert not any("no row for ." in m for m in heldout.said(ev))


def test_an_older_rdma_link_output_is_read() -> None:
    ev = _load(
        "ibdev2netdev_rdma_link_ibv_devinfo_v_mlx5_3_cx4lx_fw14_27_eth_10g_mlx5_0_mlx5_4_down_disabled.txt"
    )
    down = {
        (p["ca"], p["state"])
        for p in ev.hca_ports
        if p["tool"] == "rdma link" and p["active"] is False
    }
    assert down == {("mlx5_0", "DOWN"), ("mlx5_4", "DOWN")}


def test_remapped_rows_done_are_a_note() -> None:
    said = heldout.said(
        _load(
            "nvidia_smi_q_remapped_rows_uncorr_14_pending_no_failure_no_bank_histogram_max_629_a100_pc_amax_1.txt"
        )
    )
    assert any(
        "14 row(s) remapped after uncorrectable memory errors, none pending, none failed" in m
        for m in said
    )


def test_show_gids_inside_a_block_comment_is_read() -> None:
    ev = _load(
        "show_gids_c_comment_3_nics_mlx5_0_eth05_mlx5_1_2_eth02_03_12_gids_rocev2_index3.txt"
    )
    (f,) = ev.files
    assert f.formats == ["show_gids"]
    assert any(
        "mlx5_2 port 1 (eth03): 4 GID(s); RoCEv2 index 3 26.110.178.29" in m
        for m in heldout.said(ev)
    )


def test_a_wrapped_watchdog_progress_line_is_joined() -> None:
    ev = _load(
        "single_gpu_ddp_rank0_watchdog_work_1940009_last_enqueued_1940014_stuck_480s_childfailed.log"
    )
    finding = heldout.found(ev)["evidence-watchdog-failure"]
    assert any(
        "work 1940009 failed; last enqueued work 1940014, last completed 1940008" in i
        for i in finding.items
    )


def test_a_hosts_short_and_full_names_are_one_host() -> None:
    ev = _load(
        "skypilot_azure_lightning_ddp_rank1_bootstrap_socketpollconnect_refused_35_nccl2262_remote_error_torchrun_exit1_cut.log"
    )
    assert [h["host"] for h in ev.hosts if h["named"]] == ["vae-bc5a469e-2296-0"]


def test_a_q_fragment_without_health_sections_is_said_not_unknown() -> None:
    ev = _load(
        "nvidia_smi_q_fragment_gpu_01_00_0_device_1401_pcie_gen_max2_cur1_no_header_cut_nvidiadocker1753.txt"
    )
    (f,) = ev.files
    assert (f.formats, f.status) == (["nvidia_smi_query"], "read")
    assert any(
        "nvidia-smi -q fragment of one GPU (bus 00000000:01:00.0, device id 0x140110DE, part "
        "number 1401-300-A1, PCIe generation max 2, current 1)" in m
        for m in heldout.said(ev)
    )


# --- round MMM (sets 505-510) --------------------------------------------------------------------


def test_a_cann_codes_own_cause_and_the_working_operator_are_said() -> None:
    ev = _load("vllm_ascend_otp_fix_report_ei0006_get_socket_timeout_hcclallgather_inner_error.log")
    (code,) = [f for f in ev.failures if f.get("code") == "EI0006"]
    assert code["message"].endswith(
        "(the log's own cause: the behaviors of different ranks are inconsistent; operator "
        "HcclAllGather)"
    )


def test_another_files_ei0006_does_not_hide_this_files_link_wait() -> None:
    from advisor.evidence.load import load_paths

    ev = load_paths(
        [
            HELDOUT
            / "vllm_ascend_otp_fix_report_ei0006_get_socket_timeout_hcclallgather_inner_error.log",
            HELDOUT
            / "hccl_guide_client_recv_ranktable_timeout_pid347_rank1132_of_2048_group_name_3_0x5000004.log",
        ]
    )
    found = heldout.found(ev, "hccl")
    assert "evidence-hccl-link-wait-timeout" in found
    assert "evidence-hccl-socket-timeout" in found


def test_a_q_d_memory_page_is_said() -> None:
    said = heldout.said(
        _load("nvidia_smi_i0_q_d_memory_utilization_375_66_1995mib_cut_gnomeshell356.txt")
    )
    assert any(
        "of GPU 0000:01:00.0: memory 1934 of 1995 MiB used, 61 free; GPU utilisation 47 %" in m
        for m in said
    )


def test_a_perftest_clients_connect_failure_without_its_command_is_read() -> None:
    ev = _load(
        "perftest_client_couldnt_connect_10_55_206_82_18515_unable_to_init_socket_sriov_k8s_notes.txt"
    )
    (run,) = [p["perftest"] for p in ev.hca_ports if p["perftest"]]
    assert run["failed"] == "Couldn't connect to 10.55.206.82:18515"


def test_ethtool_counters_without_their_heading_and_with_notes_are_read() -> None:
    said = heldout.said(
        _load(
            "ethtool_S_mlx5_annotated_zh_cut_pcs_symbol_err_386_lane3_errors_17722623_corrected_bits_tx_pci_signal_integrity_2.txt"
        )
    )
    assert any("rx_err_lane_3_phy 17722623" in m for m in said)


def test_a_launchers_warning_after_the_nccl_error_is_not_its_last_error() -> None:
    ev = _load("accelerate_2node_titanxp_nccl2103_unhandled_system_error_rank0_sigabrt.log")
    (failed,) = [f for f in ev.failures if f["kind"] == "nccl_call_failure"]
    assert "SIGTERM" not in (failed["exception_type"] or "")
