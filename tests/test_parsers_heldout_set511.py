"""Outputs of round NNN's held-out evaluation (sets 511-516) and round MMM's leftovers that the
advisor read wrong or not at all before this change (tests/data/evidence_heldout_59, sources in
tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor.evidence.load import load_text
from advisor.parsers import nvidia_smi
from tests import heldout
from tests.test_parsers_heldout_set453 import _load

# --- round MMM's leftovers ---------------------------------------------------------------------


def test_a_cann_codes_traceback_gives_the_call_that_failed() -> None:
    ev = _load(
        "paddleocr_npu1_310b4_torch_npu_eh9999_init_env_failed_build_op_model_500001_identity_cut.log"
    )
    (failure,) = [f for f in ev.failures if f["code"] == "EH9999"]
    assert (
        "(its TraceBack's first call: build op model failed, result = 500001; operator Identity)"
        in failure["message"]
    )
    assert "[FUNC:" not in failure["message"].split("TraceBack's first call")[1]


def test_the_init_summary_names_the_rank_of_its_link_wait() -> None:
    ev = _load(
        "hccl_guide_client_recv_ranktable_timeout_pid347_rank1132_of_2048_group_name_3_0x5000004.log"
    )
    (wait,) = [f for f in ev.failures if f["kind"] == "hccl_link_timeout"]
    assert (wait["rank"], wait["rank_size"], wait["group"]) == (1132, 2048, "group_name_3")
    items = heldout.found(ev, "hccl")["evidence-hccl-link-wait-timeout"].items
    assert items[0].startswith("Rank 1132 waited for its peers")


def test_an_xml_query_cut_before_its_health_sections_names_its_gpu_and_driver() -> None:
    ev = _load("nvidia_smi_L_then_q_x_xml_gtx1660ti_430_64_cut_cpux115.txt")
    assert ev.files[0].status == "partial"
    assert (
        "nvidia-smi -q (driver 430.64, CUDA 10.1): GPU 00000000:29:00.0 GeForce GTX 1660 Ti "
        "listed, the copy ends before their health sections"
    ) in " ".join(heldout.said(ev))


def test_a_throttle_reasons_mask_of_values_only_is_said_by_name() -> None:
    ev = _load(
        "nvidia_smi_query_gpu_clocks_throttle_reasons_supported_csv_gtx1080_0x1ff_nvsettings80.txt"
    )
    # a query run once prints a row a GPU in index order: the row is GPU 0's
    assert ev.files[0].formats == ["nvidia_smi_query_csv"]
    assert [(g["gpu"], g["throttled"]) for g in ev.gpus] == [(0, [])]
    (note,) = heldout.said(ev)
    # 0x1FF: every one of NVML's nine reason bits, the ones the GPU can report
    assert "GPU #1 of the output: clocks_throttle_reasons.supported (it can report): Idle, " in note
    assert "Applications Clocks Setting, SW Power Cap, HW Slowdown" in note
    assert note.endswith("Display Clock Setting")
    assert heldout.found(ev).get("evidence-gpu-throttled") is None


def test_an_active_throttle_mask_in_a_csv_row_is_a_slowdown() -> None:
    text = (
        "index, name, clocks_throttle_reasons.active, clocks_throttle_reasons.hw_slowdown\n"
        "0, NVIDIA A100-SXM4-80GB, 0x0000000000000044, Not Active\n"
        "1, NVIDIA A100-SXM4-80GB, 0x0000000000000004, Not Active\n"
        "2, NVIDIA A100-SXM4-80GB, 0x0000000000000000, Active\n"
    )
    ev = load_text(text, "throttle.csv")
    # 0x44: HW Thermal Slowdown (0x40) and SW Power Cap (0x4, a GPU at its power limit: healthy)
    assert [g["throttled"] for g in ev.gpus] == [["HW Thermal Slowdown"], [], ["HW Slowdown"]]
    assert len(heldout.found(ev)["evidence-gpu-throttled"].items) == 2
    assert nvidia_smi.throttle_mask_names("0x0000000000000044") == [
        "SW Power Cap",
        "HW Thermal Slowdown",
    ]
    assert nvidia_smi.throttle_mask_names("Active") is None


def test_a_one_field_header_of_other_words_is_no_query() -> None:
    ev = load_text("clocks.sm_target\nfast\n", "notes.txt")
    assert "nvidia_smi_query_csv" not in ev.files[0].formats


def test_a_rank_list_cut_short_of_its_headers_gpus_is_not_one_rank() -> None:
    ev = _load(
        "nccl_tests_hypercube_srun_gcn63_pmix_bad_param_header_rank0_a100_cut_nccltests190.log"
    )
    (bench,) = ev.benchmarks
    # "nThread 1 nGpus 4": one process's four ranks, only rank 0 of them in the copy
    assert (bench["ranks"], bench["one_rank"], bench["hosts_complete"]) == (4, False, False)
    assert "evidence-benchmark-one-rank" not in heldout.found(ev)


def test_rank_lines_without_their_host_are_listed_ranks() -> None:
    ev = _load(
        "nccl_tests_gke_a4_single_node_8x_b200_float_sum_8m_16g_avg_busbw_587_371_oob_0_ok.log"
    )
    (bench,) = ev.benchmarks
    assert bench["ranks"] == 8 and bench["hosts"] == []
    assert bench["gpu_models"] == {"NVIDIA B200": 8}
    said = " ".join(heldout.said(ev))
    assert "the log does not list its ranks" not in said
    assert "the footer's out-of-bounds count, 0, still checks the run as a whole" in said


def test_a_blanked_node_prefix_and_a_version_wrapped_inside_nccl() -> None:
    ev = _load("llamafactory_rank18_barrier_nccl2215_ncclsystemerror_ibv_reg_mr_bad_address.log")
    (failed,) = [f for f in ev.failures if f["kind"] == "nccl_call_failure"]
    assert failed["rank"] == 18
    assert failed["exception_type"] == "Call to ibv_reg_mr failed with error Bad address"
    assert "log: NCCL 2.21.5 (torch's account of the failed call)" in heldout.said(ev)


def test_a_clean_deepspeed_launch_is_read() -> None:
    ev = _load("deepspeed_saferlhf_sft_4x3090_zero3_offload_training_running_cut.log")
    assert ev.files[0].status == "read" and ev.failures == []
    assert any(
        "runs on this node alone (1 node, 4 local process(es), backend nccl)" in m
        for m in heldout.said(ev)
    )


def test_an_nvlink_ports_mlxlink_gives_speed_width_fec_and_its_recommendation() -> None:
    said = heldout.said(
        _load(
            "mlxlink_amber_collect_gce_cos_bug_report_b200_gpu7_nvlink_xdr_active_2x_rsfec_plr_no_issue.txt"
        )
    )
    assert (
        "mlxlink: /dev/mst/netir10497_00.cc.00_gpu7 speed NVLink-XDR, width 2x; FEC "
        "Interleaved_Standard_RS_FEC_PLR - (544,514); status opcode 0, its recommendation: No "
        "issue was observed"
    ) in said
    assert not any(m.startswith("mlxlink: mlxlink:") for m in said)


def test_dcgms_service_states_and_its_nvswitch_count_are_said() -> None:
    said = heldout.said(
        _load(
            "dcgmi_discovery_l_dell_xe9780_hostengine_inactive_no_reply_then_restart_7_b300_0_nvswitches.txt"
        )
    )
    assert "dcgmi_discovery: 0 NvSwitches found" in said
    assert any(
        m.startswith(
            "dcgmi_discovery: the DCGM service (nvidia-dcgm, its host engine nv-hostengine) was inactive (dead) "
            "(line 9), then active (running) (line 17)"
        )
        for m in said
    )
    assert not any("CPUs found" in m for m in said)


def test_ibv_devinfos_open_failure_and_perftests_only_device() -> None:
    ev = _load(
        "ibv_devices_iwp0s3_ibv_devinfo_failed_to_open_ib_send_lat_no_context_qemu_ntbcxl90.txt"
    )
    said = heldout.said(ev)
    assert any(
        m.startswith(
            "ibv_devices: ibv_devinfo: Failed to open device (1 time(s); iwp0s3, the one device"
        )
        for m in said
    )
    (run,) = [p for p in ev.hca_ports if p["tool"].startswith("perftest")]
    assert run["ca"] == "iwp0s3"
    assert (
        "perftest: perftest named no device: iwp0s3, the only one ibv_devices lists (line 4)"
        in said
    )


# --- round NNN ---------------------------------------------------------------------------------


def test_nested_worker_prefixes_are_quoted_whole_and_name_the_inner_worker() -> None:
    ev = _load(
        "vllm_ascend7846_pd_mooncake_sync_batch_transfer_timeout_33s_transfer_failed_tp0_tp1_cut.log"
    )
    (error,) = ev.failures
    assert error["message"].startswith(
        "(Worker pid=782969) (Worker_DP0_TP1_EP1 pid=782969) ERROR 03-31 02:49:30"
    )
    assert error["worker"] == "Worker_DP0_TP1_EP1"


def test_a_warn_lines_junk_device_field_is_no_device() -> None:
    ev = _load(
        "nccltests188_driver_shutting_down_socketprogress_closed_by_peer_192_168_1_10_proxy_connect_rank9_retcode6_cut.log"
    )
    shutting = [f for f in ev.failures if "driver shutting down" in f["message"]]
    assert {f["pid"] for f in shutting} == {16901, 16899}
    assert all(f["device"] is None for f in shutting)
    assert "(its device field, [909195890], is no device number)" in shutting[0]["message"]
    # the other process's device 1 is a device
    assert any(f["device"] == 1 for f in ev.failures if f["pid"] == 695832)


def test_a_deepspeed_launch_start_gives_its_world_and_nccl() -> None:
    said = heldout.said(
        _load("deepspeed3710_ds_infer_launcher_2gpu_nccl2134_env_world_info_start_healthy_cut.log")
    )
    assert any(
        "(1 node(s), 2 device slot(s), NCCL 2.13.4-1 in its environment (NCCL_VERSION))" in m
        for m in said
    )


def test_nccls_ring_gives_its_rank_count() -> None:
    said = heldout.said(
        _load("megatron588_ps_sys_420gp_4rank_nccl_trees_shm_direct_channels_init_healthy_cut.log")
    )
    assert (
        "log: NCCL's rings: 2 channel(s) (its 'Channel NN/02' lines), each over 4 rank(s)" in said
    )


def test_a_q_pages_frame_buffer_is_read() -> None:
    ev = _load("nvidia_smi_q_rtx4070_laptop_566_36_wddm_healthy.txt")
    (gpu,) = ev.gpus
    assert (gpu["memory_total_mib"], gpu["memory_used_mib"]) == (8188, 0)


def test_a_quoted_nvml_failure_beside_a_hosts_table_is_said_with_its_host() -> None:
    ev = _load("hami248_pod_nvidia_smi_nvml_unknown_error_host_rtx4090_535_129.txt")
    items = heldout.found(ev)["evidence-nvml-unavailable"].items
    assert items[0].startswith(
        "gpu-pod-2: nvidia-smi could not read the GPUs: Failed to initialize NVML: Unknown Error"
    )
    assert len(ev.gpus) == 1  # the host's table, read as well


def test_a_q_piece_without_header_names_its_gpu() -> None:
    ev = _load("nvdocker1671_nvidia_smi_q_fragment_rtx2080ti_gpu_02_00_0.txt")
    assert ev.files[0].formats == ["nvidia_smi_query"]
    assert (
        "nvidia-smi -q (its header not in the copy): GPU 00000000:02:00.0 NVIDIA GeForce RTX "
        "2080 Ti listed"
    ) in " ".join(heldout.said(ev))


def test_a_cuda_error_above_nccls_teardown_warnings_is_read_first() -> None:
    ev = _load("gb200_nccl_ep_ll_cuda_launch_failure_teardown_warns_rank1.log")
    kinds = [(f["kind"], f["line"]) for f in ev.failures]
    assert ("cuda_error", 5) in kinds
    assert min(line for _, line in kinds) == 5
    assert "evidence-cuda-error" in heldout.found(ev)


def test_nccl_info_lines_without_their_prefix_are_read() -> None:
    said = heldout.said(_load("polaris_awsofi160_16rank_4node_init_complete_pxn0_gdr1.log"))
    assert "log: NCCL 2.28.3+cuda12.9" in said
    assert "log: NCCL's network plugin: AWS Libfabric" in said
    assert any("a communicator of 16 rank(s) on 4 node(s), 4 on each" in m for m in said)
    assert any("ended by ncclCommDestroy (Destroy COMPLETE)" in m for m in said)


# --- round OOO ---------------------------------------------------------------------------------


def test_npu_smi_that_cannot_be_run_is_said() -> None:
    said = heldout.said(
        _load("npu_smi_refused_can_not_use_command_x9_then_hccl_allreduce_8rank_ok_chiro_hccl8.log")
    )
    assert any(m.startswith("log: 'can not use command: npu-smi info' 9 time(s)") for m in said)


def test_a_bracketed_server_id_is_a_placeholder_and_names_no_host() -> None:
    ev = _load(
        "rank_table_group_list_1srv_8p_unfilled_placeholders_device_ip_n_server_id_modelzoo_bert_base_mindspore_hccl.json"
    )
    assert any("server_id [server_id] is a template's placeholder" in m for m in heldout.said(ev))
    (shape,) = ev.shapes
    assert (shape["nodes"], shape["per_node"], shape["hosts"]) == (1, 8, [])


def test_err99999_takes_the_exception_above_it() -> None:
    cases = {
        "mindspeed_rl_train_grpo_hydra_raytaskerror_valueerror_offload_train_optimizer_missing_err99999_prompt.log": "(line 42): ValueError: The key: offload_train_optimizer is missing",
        "vllm_ascend404_ray_multinode_tp2_qwen25vl_msgspec_decoder_typeerror_err99999_pid1779168.log": "(line 18): TypeError: Type '<function Generator at 0xfffdc5ba7910>' is not supported",
        "vllm_ascend881_ray_tp8_pp2_driver_determine_num_available_blocks_deepseekv2attention_kv_cache_typeerror_err99999_pid886_cut.log": "(line 41): TypeError: DeepseekV2Attention.forward() got an unexpected keyword argument 'kv_cache'",
        "vllm_ascend1500_310p_rank0_profile_run_rotary_embedding_atb_setup_failed_err99999_pid118889_cut.log": "(line 68): RuntimeError: setup failed!",
    }
    for name, cause in cases.items():
        (err,) = [f for f in _load(name).failures if f["kind"] == "torch_npu_error"]
        assert (
            f"UNKNOWN applicaiton exception: the exception above it {cause}"
            in (err["exception_type"])
        ), name


def test_pythons_warning_lines_make_a_program_log() -> None:
    ev = _load(
        "vllm_ascend1500_310p_qwen2_05b_transfer_to_npu_warnings_weights_loaded_0_9394gb_healthy_cut.log"
    )
    assert ev.files[0].status == "read" and ev.failures == []


def test_routable_ipv6_rocev2_gids_are_no_missing_gid() -> None:
    ev = _load("mooncake1617_show_gids_ionic_rocep_v1_v2_mi355_cut.txt")
    # (rocep193s0f0's rows end the copy, which is cut before n_gids_found: its routable GIDs may
    # be in the rows cut, so it is not judged as lacking one; round TTTT set 706)
    assert [f for f in ev.failures if f["kind"] == "rdma_no_gid"] == []
    assert any(
        m.startswith("show_gids: rocep193s0f0 port 1 (enp193s0f0np0): 2 GID(s); no RoCEv2 GID")
        and "the copy ends after its index 1 row (line 13)" in m
        for m in heldout.said(ev)
    )
    assert any(
        "rocep105s0 port 1 (enp105s0): 2 GID(s); RoCEv2 index 1 IPv6 fd93:16d3:59b6:010d:" in m
        and "NCCL_IB_ADDR_FAMILY=AF_INET6" in m
        for m in heldout.said(ev)
    )


def test_vllms_nccl_version_and_an_elastic_start_are_said() -> None:
    said = heldout.said(_load("vllm9046_mp_workers_nccl2215_bootstrap_ib4_start_healthy_cut.log"))
    assert "log: NCCL 2.21.5 (vLLM's pynccl)" in said
    said = heldout.said(
        _load(
            "alpaca162_torchelastic_3workers_deepspeed_nccl_store_connected_watchdog_started_healthy_cut.log"
        )
    )
    assert (
        "log: torch elastic started its worker group (default): 3 local worker(s); DeepSpeed's "
        "backend nccl; the NCCL watchdog started on rank(s) 0; no error"
    ) in said


def test_a_q_pages_lifetime_ecc_counts_are_said() -> None:
    ev = _load(
        "nvidia_smi_q_10x_a40_550_127_05_aggregate_dram_correctable_d1_10289_remapped_rows_no_pending.txt"
    )
    d1 = next(g for g in ev.gpus if g["bus_id"] == "00000000:D1:00.0")
    assert (d1["ecc_aggregate_corrected"], d1["remapped_correctable"], d1["ecc_corrected"]) == (
        10289,
        1,
        0,
    )
    assert any(
        "GPU 00000000:D1:00.0: 10289 correctable ECC error(s) in its lifetime, 1 row(s) remapped "
        "after correctable errors (a memory error history: none counted since the driver loaded)"
        in m
        for m in heldout.said(ev)
    )


def test_a_tmux_panes_border_is_taken_off() -> None:
    ev = _load("ibstat_tmux_pane_mlx4_cx3_port1_ib_active_40_port2_eth_down_disabled.txt")
    assert [(p["port"], p["state"]) for p in ev.hca_ports] == [(1, "Active"), (2, "Down")]


def test_a_prompt_wrapped_inside_the_servers_address_and_cpu_clock_warnings() -> None:
    for name, count in (
        ("perftest_ib_read_bw_mlx4_qdr_3667mbs_cpu_freq_not_max_warning_wrapped_cmd.txt", 1),
        ("perftest_ib_atomic_lat_mlx4_fetch_add_2_27us_two_cpu_freq_warnings.txt", 2),
    ):
        ev = _load(name)
        (run,) = [p["perftest"] for p in ev.hca_ports]
        assert run["peer"] == "192.168.1.60"
        assert any(
            f"perftest warned {count} time(s) that the CPU clocks differ" in m
            for m in heldout.said(ev)
        )


def test_a_watchdog_record_broken_after_its_header_is_read() -> None:
    ev = _load(
        "rtxpro6000_2gpu_rank1_uncorrectable_ecc_rank0_allreduce_seq51753_timeout_torchrun_sigabrt.log"
    )
    (died,) = [f for f in ev.failures if f["kind"] == "watchdog_exception"]
    assert (died["rank"], died["line"]) == (1, 1)
    assert "uncorrectable ECC error" in died["message"]


# --- earlier rounds' leftovers -----------------------------------------------------------------


def test_a_benchmark_summarys_failed_hccl_ops_are_failed_calls() -> None:
    ev = _load(
        "bench_summary_hccl_alltoall_reduce_scatter_fail_7_others_ok_vllm_hust_devhub_20260407.txt"
    )
    failed = [(f["op"], f["code_name"], f["line"]) for f in ev.failures]
    assert failed == [("alltoall", "HCCL_E_UNAVAIL", 17), ("reduce_scatter", "HCCL_E_UNAVAIL", 18)]
    assert (
        "passed in the same summary: all_gather, all_reduce, scatter, broadcast, reduce"
        in (ev.failures[0]["message"])
    )


def test_a_benchmark_summary_whose_ops_all_passed_is_said() -> None:
    text = "ACL_SINGLE_D2H_GBPS 28.6\nHCCL_ALL_GATHER OK 136.5\nHCCL_ALL_REDUCE OK 65.64\n"
    ev = load_text(text, "bench_summary.txt")
    assert ev.failures == []
    assert heldout.said(ev) == [
        "log: a benchmark summary: 2 HCCL op(s) passed (all_gather 136.5, all_reduce 65.64; the "
        "script's own figures, their unit not printed)"
    ]


def test_a_listing_of_one_gpus_ecc_fields_is_read() -> None:
    ev = _load(
        "nvidia_smi_query_ecc_aggregate_170_corr_16_uncorr_volatile_0_retired_pages_sbe_dbe_a100_pc_amax_1.txt"
    )
    (gpu,) = ev.gpus
    assert (gpu["ecc_corrected"], gpu["ecc_uncorrected"]) == (0, 0)
    assert (gpu["ecc_aggregate_corrected"], gpu["ecc_aggregate_uncorrected"]) == (170, 16)
    assert any(
        "GPU #1 of the output: 170 correctable ECC error(s) in its lifetime, 16 uncorrectable ECC "
        "error(s) in its lifetime (a memory error history: none counted since the driver loaded)"
        in m
        for m in heldout.said(ev)
    )


def test_a_listing_with_a_field_twice_is_no_one_gpus() -> None:
    text = (
        "ecc.errors.corrected.aggregate.total:     170\n"
        "ecc.errors.uncorrected.aggregate.total:   16\n"
        "ecc.errors.corrected.aggregate.total:     3\n"
    )
    assert load_text(text, "ecc.txt").gpus == []


# --- round PPP ---------------------------------------------------------------------------------


def test_an_npu_smi_banner_flattened_alone_is_said() -> None:
    ev = _load(
        "npu_smi_info_25_5_0_header_only_flattened_one_line_no_device_rows_a800t_03_glm5_yuanrong_doc.txt"
    )
    assert ev.files[0].status == "partial"
    assert any(
        "npu-smi 25.5.0 (Version 25.5.0): no chip row follows the table's banner" in m
        for m in heldout.said(ev)
    )


def test_an_acl_call_failed_without_its_arguments_and_the_runners_device() -> None:
    ev = _load("simpler2395_a2a3_infra021_device4_bootstrap_aclrtsynchronizestream_507018.log")
    (err,) = ev.failures
    assert (err["kind"], err["call"], err["code"], err["device"]) == (
        "npu_runtime_error",
        "aclrtSynchronizeStream",
        "507018",
        4,
    )


def test_one_workers_notify_waits_on_one_chip_are_one_report() -> None:
    ev = _load(
        "vllm_ascend12487_a3_3p1d_dsv4_flash_worker_dp2_tp0_ep8_notify_wait_timeout_204s_chip4_cut.log"
    )
    (wait,) = ev.failures
    assert (wait["device"], wait["line"], wait["repeated_lines"]) == (4, 1, [3, 4])
    (item,) = heldout.found(ev, "hccl")["evidence-hccl-plog-error"].items
    assert item.endswith("line 1; the same on 2 more line(s): 3, 4)")


def test_a_windows_query_with_gpu_name_and_not_supported_cells_is_read() -> None:
    ev = _load("megaminer235_query_gpu_csv_gtx770_not_supported.txt")
    (gpu,) = ev.gpus
    assert (gpu["name"], gpu["temp_c"], gpu["fan_pct"], gpu["unreadable"]) == (
        "GeForce GTX 770",
        52,
        52,
        [],
    )


def test_a_scripts_trace_of_no_devices_found() -> None:
    ev = _load("pytorch163658_query_gpu_driver_version_no_devices_found_status6.txt")
    (item,) = heldout.found(ev)["evidence-nvml-unavailable"].items
    assert "No devices were found" in item


def test_libibverbs_missing_config_directory_is_the_reason() -> None:
    ev = _load("infractl5251_ibv_devinfo_no_config_dir_no_ib_devices_found.txt")
    (none,) = ev.failures
    assert (
        "could not open its provider configuration directory /etc/libibverbs.d"
        in (none["exception_type"])
    )


def test_perftest_with_no_device_is_no_port() -> None:
    ev = _load("k8srdma169_ib_write_bw_did_not_detect_devices.txt")
    assert ev.hca_ports == []
    (none,) = ev.failures
    assert (none["kind"], none["library"]) == ("rdma_no_device", "perftest")


def test_an_unloadable_provider_and_an_empty_device_list() -> None:
    ev = _load("rxe48_ibv_devices_rxe_driver_missing_empty_list.txt")
    (none,) = ev.failures
    assert (
        "its provider 'rxe' could not be loaded (librxe-rdmav2.so not found)"
        in (none["exception_type"])
    )
    said = " ".join(heldout.said(ev))
    assert "ibv_devices listed no device (its header, no row under it)" in said
    assert "mlx5_0" not in said


def test_warn_lines_of_a_logger_that_brackets_place_and_process() -> None:
    ev = _load(
        "nccl_pr1618_rank_prefixed_s12gn3064_socketpollconnect_no_pollout_ranks604_607_of1024.log"
    )
    warns = [(f["host"], f["pid"], f["rank"]) for f in ev.failures if f["kind"] == "nccl_warning"]
    assert warns == [("s12gn3064", 3942408, 604), ("s12gn3064", 3942411, 607)]


def test_nccls_graph_search_is_said() -> None:
    said = heldout.said(
        _load(
            "transformers20438_deepspeed_2gpu_mmosbach_20307_nccl_graph_search_patterns_phb_pix_healthy_cut.log"
        )
    )
    assert any(
        "mmosbach-20307: NCCL's topology search found a balanced tree graph (pattern 1) of 2 "
        "channel(s) at 22/22 GB/s"
        in m
        and "a ring graph (pattern 4) of 2 channel(s) at 12/12 GB/s (within/between nodes) over "
        "PHB/PIX"
        in m
        for m in said
    )


def test_rays_fold_of_another_workers_error_is_said() -> None:
    said = heldout.said(
        _load("vllm7896_ray_workers_pynccl_unhandled_cuda_error_pid11305_repeated_6x_cut.log")
    )
    assert any(
        m.startswith("log: Ray folded the same error line of 6 more process(es)")
        and "Error executing method init_device" in m
        for m in said
    )


def test_ibdev2netdev_and_its_v_listing_are_one_port_each() -> None:
    ev = _load("ibdev2netdev_v_8x_mlx5_cx4lx_cx5_cx6_hdr_ib0_up_five_down.txt")
    assert len(ev.hca_ports) == 8
    # (set 700b: mlx5_6 and mlx5_7, MT4120 with serial NA at 0000:4b:00.1/.2, are ConnectX-5
    # virtual functions, rdma-core's mlx5 PCI id 0x1018, beside their active physical function
    # mlx5_2 at 0000:4b:00.0: VFs not yet given to a VM or pod, a note, not Down rails)
    items = heldout.found(ev)["evidence-hca-netdev-down"].items
    assert [str(i).split(" port ")[0] for i in items] == ["mlx5_0", "mlx5_1", "mlx5_4"]
    assert [p["ca"] for p in ev.hca_ports if p["vf_unused"]] == ["mlx5_6", "mlx5_7"]


def test_nccls_start_beside_a_programs_own_error_is_said() -> None:
    ev = _load(
        "pai_dsw_far_t2i_4rank_nccl2193_init_complete_then_dtype_runtimeerror_childfailed_rank0_cut.log"
    )
    said = heldout.said(ev)
    assert "log: NCCL 2.19.3+cuda11.8" in said
    assert any("a communicator of 4 rank(s) started" in m for m in said)
    assert any(
        "mat1 and mat2 must have the same dtype" in (f["message"] or "") for f in ev.failures
    )


def test_a_deepspeed_launch_on_one_node_of_two_is_said() -> None:
    said = heldout.said(
        _load(
            "mosaic_gptneox_deepspeed_launch_2node_16ranks_world_info_step30_loss_10_71_healthy.log"
        )
    )
    assert (
        "log: DeepSpeed's launcher: 2 node(s) (node-0 8 slot(s), node-1 8 slot(s)), world size 16, "
        "this node's rank 0; the engine reached step 30 (20 skipped); no error"
    ) in said


def test_vllms_own_words_of_its_communication_are_said() -> None:
    said = heldout.said(
        _load(
            "vllm_tp8_pcie_internvl3_78b_nccl2215_custom_allreduce_disabled_clean_exit_pg_not_destroyed_warning_healthy_cut.log"
        )
    )
    (note,) = [m for m in said if m.startswith("log: vLLM: ")]
    assert note.startswith("log: vLLM: NCCL 2.21.5 (vLLM's pynccl); 7 worker process(es)")
    assert "its custom all-reduce off (it's not supported on more than two PCIe-only GPUs)" in note
    assert note.endswith("7 worker(s) exited ('Worker exiting')")


# --- round QQQ ---------------------------------------------------------------------------------


def test_an_engine_passing_on_a_workers_error_is_not_named_the_worker() -> None:
    ev = _load(
        "vllm_ascend3367_qwen3vl_2node_enginecore_worker_failed_hcclcomminitrootinfoconfig_err1_err02200_pid1195_vllmworker4_died.log"
    )
    (failed,) = [f for f in ev.failures if f["kind"] == "hccl_call_failure"]
    assert (failed["pid"], failed["worker"], failed["device"]) == (1195, None, 0)


def test_an_engine_start_failure_explains_no_workers_err_line() -> None:
    ev = _load(
        "vllm_ascend2117_v092rc1_qwen3_235b_vllmworker_rank10_pid5568_err01100_ops_enginecore_failed_to_start.log"
    )
    (err,) = [f for f in ev.failures if f["kind"] == "torch_npu_error"]
    assert (err["code"], err["device"], err["pid"], err["line"]) == ("ERR01100", 10, 5568, 1)


def test_an_err_line_above_its_processs_code_gives_the_code_its_device() -> None:
    ev = _load(
        "vllm_ascend10720_300iduo_qwen35_35b_worker_tp3_tp2_err00100_ee9999_rteventsynchronize_aicpu_exception_cut.log"
    )
    (code,) = [f for f in ev.failures if f["code"] == "EE9999"]
    assert (code["pid"], code["device"]) == (26762, 3)
    assert [f["pid"] for f in ev.failures if f["kind"] == "torch_npu_error"] == [26716]


def test_a_headerless_query_csv_is_its_gpus_by_name() -> None:
    ev = _load("megaminer376_query_gpu_csv_noheader_8gpu_1080ti_gpu0_fan_unknown_error.txt")
    assert [g["name"] for g in ev.gpus] == ["GeForce GTX 1080 Ti"] * 7 + ["GeForce GTX 1080"]
    assert ev.gpus[0]["unreadable"] == ["column 7"]
    assert all(not g["unreadable"] for g in ev.gpus[1:])


def test_an_old_drivers_mb_memory_column_is_read() -> None:
    ev = _load("cbio39_nvidia_smi_325_15_3x_gtx_titan_table_gpu_2_12_cut.txt")
    assert [(g["memory_used_mib"], g["memory_total_mib"]) for g in ev.gpus] == [(14, 6143)] * 3


def test_a_named_hosts_ranks_only_and_the_aborted_communicator() -> None:
    ev = _load(
        "yolov5_11996_objects365_watchdog_allreduce_seqnum3_1800000ms_abort_rank5_asimov235.log"
    )
    hosts = {f["rank"]: f["host"] for f in ev.failures if f["kind"] == "watchdog_timeout"}
    assert hosts == {5: "asimov-235", 2: None, 1: None, 7: None}
    assert any(
        "a communicator of 8 rank(s) ended by ncclCommAbort (Abort COMPLETE)" in m
        for m in heldout.said(ev)
    )


def test_torchs_message_wrapped_at_the_files_name() -> None:
    ev = _load(
        "tinyllava112_h100_gpus4567_nccl2181_internal_error_attribute_arch_of_node_cpu_not_found.log"
    )
    (failed,) = [f for f in ev.failures if f["kind"] == "nccl_call_failure"]
    assert failed["call"] == "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1331"
    assert failed["exception_type"] == "Attribute arch of node cpu not found"


def test_perftests_port_state_failure_alone_and_no_port_made_up() -> None:
    ev = _load("perftest_bluefield3_port_number_1_state_is_down_couldnt_get_context_for_device.txt")
    (run,) = [p["perftest"] for p in ev.hca_ports]
    assert run["failed"].startswith("Port number 1 state is Down")
    ev = _load(
        "perftest_ib_write_bw_client_completion_error_status9_syndrom_0x8a_cross_tool_read_server.txt"
    )
    # (round RRRR set 694: a completion with error is a run whose QPs had connected, perftest's
    # warm-up and run_iter_* loops, so it broke off, critical, no longer a failure to start)
    (item,) = heldout.found(ev)["evidence-rdma-perftest-broke-off"].items
    assert item.startswith("(device and port not named): ")


def test_megatrons_start_and_iterations_are_said() -> None:
    said = heldout.said(_load("gwai_megatron_waveformer_world2_dp2_fp16_iterations1_2_healthy.log"))
    assert (
        "log: Megatron: world size 2 (data-parallel 2, tensor-parallel 1, pipeline-parallel 1); "
        "its log reached iteration 2 of 30000; no error"
    ) in said


def test_a_threads_exception_beside_nccls_healthy_start_is_read() -> None:
    ev = _load(
        "vllm013_p2pncclconnector_deepseekv32_qb_prod_gpu1415_worker_tp_attributeerror_nonetype_shape.log"
    )
    assert any("'NoneType' object has no attribute 'shape'" in f["message"] for f in ev.failures)
    assert any("a communicator of 2 rank(s) started" in m for m in heldout.said(ev))


# --- round RRR ---------------------------------------------------------------------------------


def test_ges_call_rts_api_report_and_a_runtime_result_after_more_words() -> None:
    ev = _load(
        "vllm_ascend10546_dsv4_flash_1p1d_worker_dp1_tp1_ep5_pid603_rtmemcpyasyncex_507011_crlf_tail.log"
    )
    (err,) = ev.failures
    assert (err["call"], err["code"], err["pid"]) == ("rtMemcpyAsyncEx", "507011", 603)
    ev = _load(
        "vllm_ascend11912_a3_glm51_worker_dp0_tp2_ep2_pid196297_rtmemcpy_capture_107030_aivec_error_chip1_cut.log"
    )
    (err,) = ev.failures
    assert (err["kind"], err["call"], err["code"]) == (
        "npu_runtime_error",
        "synchronized memcpy",
        "107030",
    )


def test_a_joined_plogs_kernel_and_chip_stay_with_their_process() -> None:
    ev = _load("oamtools_slog_plog611331_mte_write_out_of_range_ez9999.log")
    (exc,) = [f for f in ev.failures if f["kind"] == "npu_device_exception"]
    assert (exc["pid"], exc["device"]) == (611331, 0)
    assert "TransData" not in exc["exception_type"]


def test_q_d_temperature_pages_are_said() -> None:
    said = heldout.said(
        _load(
            "nvidia_smi_q_d_temperature_two_hosts_304_108_geforce6200_325_15_9400m_monitorix28.txt"
        )
    )
    assert any(
        "nvidia-smi -q -d TEMPERATURE page(s) (driver 304.108, 325.15): GPU 0000:01:05.0 49 C; "
        "GPU 0000:03:00.0 39 C" in m
        for m in said
    )


def test_ethtool_i_and_headless_counters() -> None:
    said = heldout.said(
        _load("ethtool_i_and_S_mlx4_en_fw_2_42_5000_healthy_counters_etc_ethq21.txt")
    )
    assert (
        "ethtool_driver: ethtool -i: driver mlx4_en, version 4.0-0, firmware 2.42.5000, bus "
        "0000:83:00.0"
    ) in said
    assert any("every loss counter (errors, drops, discards) is 0" in m for m in said)


def test_process_group_nccls_start_and_options_in_glog_form() -> None:
    said = heldout.said(
        _load(
            "pytorch88000_run_nproc2_glog_watchdog_started_pg_options_timeout5000ms_healthy_cut.log"
        )
    )
    assert any(
        m.startswith("log: ProcessGroupNCCL started on rank(s) 0, 1; its options: ")
        and "TIMEOUT(ms) 5000" in m
        for m in said
    )


def test_an_interleaved_tracebacks_code_line_is_no_last_error() -> None:
    ev = _load("openpcdet1215_ddp_verify_model_across_ranks_unhandled_system_error_nccl278_cut.log")
    (failed,) = [f for f in ev.failures if f["kind"] == "nccl_call_failure"]
    assert "main()" not in (failed["exception_type"] or "")
