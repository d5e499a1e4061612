"""Outputs of rounds AAA, BBB, CCC and DDD's held-out evaluations (sets 453-468) that the advisor read
wrong or not at all before this change (tests/data/evidence_heldout_59, sources in
tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial

from advisor.parsers import hccl_test, logs, nccl_tests, npu_smi, nvidia_smi, rank_table
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_59"


_load = partial(heldout.load, HELDOUT)


def test_ei0004_reads_the_rank_table_its_line_quotes() -> None:
    # the reason says the rank id exceeds the table's rank size: the table quoted on the same
    # line holds 2 ranks, said as such instead of its JSON cut at 300 characters
    ev = _load("mindspore_ei0004_rank_id_exceeds_rank_size.log")
    (failure,) = [f for f in ev.failures if f["code"] == "EI0004"]
    assert failure["rank_size"] == 2
    assert "Use a rank ID that exceeds the rank size" in failure["message"]
    assert "2 rank(s), rank_id 0-1, on server(s) 10.90.42.160, device(s) 6, 7" in failure["message"]
    assert '"server_list"' not in failure["message"]
    found = builtin_findings({"evidence.failures": ev.failures}, "hccl")
    (line,) = found["evidence-hccl-other-error"].items
    # (no longer "could not be loaded": the table loaded, the process's rank does not fit it)
    assert "the rank table is invalid, or does not fit this process" in line
    assert "could not be loaded" not in line


def test_nccl_settings_keep_a_paths_extension() -> None:
    # "NCCL_GRAPH_FILE set by environment to /opt/microsoft/ncv4/graph.xml": the setting the WARN
    # comes from, its ".xml" kept; a value's closing period is still not part of it
    said = heldout.said(_load("nccl1240_spotllm_graph_file_xml_import_channel_warn_cut.log"))
    (settings,) = [m for m in said if m.startswith("log: NCCL settings from the environment")]
    assert "NCCL_TOPO_FILE=/opt/microsoft/ncv4/topo.xml" in settings
    assert "NCCL_GRAPH_FILE=/opt/microsoft/ncv4/graph.xml" in settings
    assert "NCCL_IB_DISABLE=1," in settings


def test_nvlink_capabilities_are_read_per_link_and_judge_nothing() -> None:
    text = (HELDOUT / "ilgpu378_nvlink_capabilities_v100_cut.txt").read_text()
    (gpu,) = nvidia_smi.parse_nvlink_status(text).gpus
    assert (gpu.gpu, gpu.name) == (0, "Tesla V100-SXM2-32GB")
    assert gpu.capabilities[0] == {
        "P2P": True,
        "Access to system memory": True,
        "P2P atomics": True,
        "System memory atomics": True,
        "SLI": False,
        "Link": False,
    }
    assert gpu.capabilities[4] == {"P2P": True}  # the copy ends inside link 4's list
    ev = _load("ilgpu378_nvlink_capabilities_v100_cut.txt")
    (f,) = ev.files
    assert f.status == "read"
    (note,) = [m for m in heldout.said(ev) if "nvlink -c" in m]
    assert "P2P: links 0-4" in note and "SLI: false on every link listed" in note
    assert "link 4 lists 1 of 6: the copy ends there" in note
    # capabilities are no link state: no link is counted up or down
    (link,) = ev.nvlinks
    assert link["active"] is None and link["inactive"] == []


def test_nccl_tests_row_cut_inside_its_busbw_leaves_that_group_out() -> None:
    # "8192 ... 31.59    0.26    0.": the in-place busbw is cut at "0.", not 0.0 GB/s
    text = (HELDOUT / "nccltests214_sendrecv_2x_a40_cut.log").read_text()
    parsed = nccl_tests.parse(text)
    (table,) = parsed.tables
    last = table.rows[-1]
    assert last.size_bytes == 8192
    assert last.out_of_place is not None and last.out_of_place.busbw_gbytes_s == 0.26
    assert last.in_place is None
    assert any("its busbw cut at '0.'" in w.message for w in parsed.warnings)
    # the op is still told by the cells of the rows before it
    assert nccl_tests.op_from_columns(table, None) == "send_recv"
    # a whole last cell ("0.26" where the first group prints two decimals) is kept
    whole = text.rstrip("\n") + "26"
    (table,) = nccl_tests.parse(whole).tables
    in_place = table.rows[-1].in_place
    assert in_place is not None and in_place.busbw_gbytes_s == 0.26 and in_place.wrong is None


# --- round BBB -------------------------------------------------------------------------------


def _events(name: str) -> list[logs.LogEvent]:
    return logs.parse((HELDOUT / name).read_text()).events


def test_a_warn_printed_again_is_one_item_with_every_line_kept() -> None:
    # 15 WARN lines of one process: two texts, each printed again and again
    name = "trtllm1670_enqueue_cuda_oom_invalid_resource_handle_repeated_cut.log"
    warned = [e for e in _events(name) if e.kind == "nccl_warning"]
    assert [(e.line, e.repeated_lines) for e in warned] == [
        (1, [5, 9, 13, 17, 21, 25, 29]),
        (3, [7, 11, 15, 19, 23, 27]),
    ]
    found = builtin_findings({"evidence.failures": _load(name).failures}, "nccl")
    finding = found["evidence-nccl-warning"]
    assert finding.message.startswith("NCCL printed 15 WARN line(s) (2 different,")
    assert "again 7 time(s), line(s) 5, 9, 13, 17, 21, 25, 29)" in finding.items[0]


def test_nccl_tests_failures_of_two_processes_on_one_host_are_two() -> None:
    # HCA-108 fails twice, pids 2753866 and 2753874 (each on the " .. HOST pid N" line under)
    name = "nccl_tests_allreduce_1024rank_h100_rows_1g_16g_then_unhandled_cuda_error_many_hosts_cut_nccltests322.log"
    failed = [e for e in _events(name) if e.kind == "nccl_call_failure"]
    assert [(e.host, e.pid) for e in failed] == [
        ("HCA-128", 757466),
        ("HCA-108", 2753866),
        ("HCA-107", 2750549),
        ("HCA-108", 2753874),
    ]
    found = builtin_findings({"evidence.failures": _load(name).failures}, "nccl")
    assert found["evidence-nccl-call-failed"].message.startswith("4 NCCL call(s)")
    assert found["evidence-nccl-call-failed"].items[1].startswith("HCA-108 pid 2753866:")


def test_a_coalesced_works_unsigned_minus_one_is_no_element_count() -> None:
    name = "nccl1504_pippy_rank1_watchdog_coalesced_seqnum1_never_completed_cut.log"
    (timeout,) = [e for e in _events(name) if e.kind == "watchdog_timeout"]
    assert (timeout.rank, timeout.op, timeout.seq, timeout.numel) == (1, "coalesced", 1, None)
    found = builtin_findings({"evidence.failures": _load(name).failures}, "nccl")
    finding = found["evidence-watchdog-timeout"]
    assert "elements" not in finding.items[0]
    # one rank's log: a peer that never reached its first collective is named as a cause too
    advice = " ".join(r.why for r in finding.recommendations if r.kind == "advice")
    assert "a peer never reached it" in advice
    assert "not a rank that fell behind" not in advice


def test_a_file_store_read_that_timed_out_names_its_store() -> None:
    name = "nccl708_eg3d_filestore_get_timeout_default_pg_1800000ms_cut.log"
    (failure,) = [e for e in _events(name) if e.kind == "unique_id_failure"]
    assert (failure.rank, failure.remote_rank, failure.call) == (1, 0, "FileStore")
    assert failure.timeout_ms == 1_800_000
    found = builtin_findings({"evidence.failures": _load(name).failures}, "nccl")
    finding = found["evidence-unique-id-exchange-failed"]
    (advice,) = [r.why for r in finding.recommendations if r.kind == "advice"]
    assert "FileStore" in advice and "new empty file" in advice
    assert "MASTER_ADDR" not in advice


def test_ei0006_reads_the_link_under_it() -> None:
    name = "afd_demo_deepep_normal_rank0_notifydispatch_ez9999_ei0006_src125_dest192.log"
    (ei0006,) = [e for e in _events(name) if e.code == "EI0006"]
    assert (ei0006.ip, ei0006.device, ei0006.remote_ip) == ("192.168.0.125", 0, "192.168.0.192")
    assert "srcRank[192.168.0.125/0] connect destRank[192.168.0.192/0] fail" in ei0006.message


def test_an_inner_error_says_what_its_next_line_says() -> None:
    name = "vllm_ascend116_grpo_load_weights_copy_d2d_507001_ei9999_sdma_error_device0_cut.log"
    inner = [e for e in _events(name) if e.code == "EI9999" and "Inner Error!" in e.message]
    (first,) = inner
    assert "there is a sdma error, sdma channel is 2" in first.message


def test_gloos_loopback_fallback_is_a_notice_of_its_ranks() -> None:
    name = "vllm_ascend622_910b2_tp8_gloo_loopback_fallback_8ranks_assigned_healthy_cut.log"
    (note,) = [e for e in _events(name) if e.kind == "gloo_loopback"]
    assert note.line == 1 and note.exception_type is not None
    assert note.exception_type.startswith("8 rank(s) bound Gloo to the loopback address")
    ev = _load(name)
    found = builtin_findings({"evidence.failures": ev.failures}, "hccl")
    assert found["evidence-gloo-loopback"].severity == "info"
    assert not [f for f in found.values() if f.severity in ("critical", "warning")]


def test_nvidia_smi_q_reads_a_value_with_an_added_arrow_and_an_unknown_error() -> None:
    text = (
        HELDOUT
        / "nvidia_smi_q_d_ecc_row_remapper_gpu52_ecc_unknown_error_remap_pending_runbook.txt"
    ).read_text()
    (gpu,) = nvidia_smi.parse_query(text)
    assert gpu.remap_pending is True and gpu.remap_failed is False  # "Yes   <==="
    assert gpu.unreadable == ["ECC Mode / Current", "ECC Mode / Pending"]
    ev = _load("nvidia_smi_q_d_ecc_row_remapper_gpu52_ecc_unknown_error_remap_pending_runbook.txt")
    found = builtin_findings({"evidence.gpus": ev.gpus}, "nccl")
    assert (
        found["evidence-gpu-repair-pending"]
        .items[0]
        .startswith("GPU 00000000:52:00.0: row remap pending")
    )
    assert "ECC Mode / Current" in found["evidence-gpu-unreadable"].items[0]


def test_nvlink_remote_list_short_of_its_peers_is_down_or_cut() -> None:
    # -R lists only the active links: GPU 1's 2 far ends where GPU 0 has 18 are links down or a
    # copy cut there, never a list to call cut on its own (review 31)
    text = (
        HELDOUT / "nvidia_smi_nvlink_R_h100_gpu0_18links_remote_nvswitch_cut_gpu1_nccl1182.txt"
    ).read_text()
    parsed = nvidia_smi.parse_nvlink_status(text)
    first, second = parsed.gpus
    assert (len(first.remote), len(second.remote)) == (18, 2)
    assert (first.cut, second.cut) == (False, False)
    (said,) = [w for w in parsed.warnings if w.line == second.line]
    assert (
        "GPU 1 lists 2 link(s) with a far end where other GPUs of its model list 18" in said.message
    )
    assert "down, or the copy is cut there" in said.message and not said.skipped


def test_hccl_test_stopped_at_device_init_is_read_with_its_acl_code() -> None:
    name = "hccl_test_hcclvm_faq_e001_rankid0_device_init_acl_retcode_100000.log"
    failure = hccl_test.read_init_failure((HELDOUT / name).read_text())
    assert failure is not None
    assert (failure.line, failure.code, failure.name, failure.stage, failure.acl) == (
        3,
        100000,
        "ACL_ERROR_INVALID_PARAM",
        "device_init",
        True,
    )
    ev = _load(name)
    (f,) = ev.files
    assert f.formats == ["hccl_test"] and f.status == "read"
    (event,) = ev.failures
    assert event["kind"] == "npu_runtime_error" and event["code"] == "100000"
    assert "cannot find rank by rank id 0" in event["message"]
    assert any("stopped at device_init" in m for m in heldout.said(ev))


def test_a_rank_table_without_status_is_not_told_to_wait() -> None:
    text = (
        HELDOUT / "rank_table_v10_2srv_no_rank_id_no_status_shared_device_ip_awesome_skills.json"
    ).read_text()
    table = rank_table.parse(text)
    (status,) = [e for e in table.errors if e.startswith("status is")]
    assert "no status key" in status and '"status": "completed"' in status
    assert "wait" not in status


# --- round CCC -------------------------------------------------------------------------------


def test_a_rank_that_signalled_the_dump_failed_and_the_recorder_was_off() -> None:
    name = "msswift6301_zero3_pg1_reduce_scatter_seq55485_ranks_2_5_4_fr_disabled_cut.log"
    events = _events(name)
    failed = {e.rank: e for e in events if e.kind == "watchdog_failure"}
    assert sorted(failed) == [2, 5]
    assert failed[2].group == "1" and "First PG on this rank to signal dumping" in failed[2].message
    (off,) = [e for e in events if e.kind == "pg_settings"]
    assert (
        off.numel == 0 and off.exception_type is not None and "(rank(s) 2, 5)" in off.exception_type
    )
    found = builtin_findings({"evidence.failures": _load(name).failures}, "nccl")
    assert found["evidence-watchdog-failure"].message.startswith("2 rank(s)")
    assert "evidence-flight-recorder-off" in found


def test_ib_completions_of_one_process_and_peer_are_all_counted() -> None:
    name = "nccl1405_kp_ddp_worker0_ib_plugin_status12_vendor129_recv_roce_gids_cut.log"
    events = _events(name)
    (net,) = [e for e in events if e.kind == "nccl_net_error"]
    assert (net.code_name, net.remote_ip, net.repeated_lines) == (
        "IBV_WC_RETRY_EXC_ERR",
        "10.216.210.236",
        [6, 11],
    )
    assert not [e for e in events if e.kind == "nccl_warning"]  # (not read again as plain WARNs)
    found = builtin_findings({"evidence.failures": _load(name).failures}, "nccl")
    finding = found["evidence-nccl-ib-completion-error"]
    assert finding.message.startswith("3 error completion(s) (1 process-and-peer pair(s))")
    assert finding.items[0].endswith("line 1; again 2 time(s), line(s) 6, 11)")


def test_aws_ofi_ncclS_efa_only_warning_is_a_fallback() -> None:
    name = "herring5_libtorch_mpi_1rank_ofi_only_efa_warn_socket_init_complete.log"
    (warned,) = [e for e in _events(name) if e.kind == "nccl_warning"]
    assert warned.exception_type == logs.STARTUP_FALLBACK
    found = builtin_findings({"evidence.failures": _load(name).failures}, "nccl")
    assert "evidence-nccl-warning" not in found
    assert not [f for f in found.values() if f.severity == "critical"]


def test_a_host_named_by_digits_alone_starts_ncclS_lines() -> None:
    ev = _load("vllm6407_host180_4gpu_p2p_ipc_read_shm_direct_rings_trees_cut.log")
    said = heldout.said(ev)
    assert any(
        "NCCL's channels go via SHM/direct/direct" in m and "P2P/IPC/read" in m for m in said
    )
    assert not any("in no form the advisor reads" in m for m in said)
    # (digits after a bracket or a space are still no host: another process's overwritten name)
    assert logs._NCCL_DEBUG_HOST_RE.search("180:44749:44815 [1] NCCL INFO x") is not None
    assert logs._NCCL_DEBUG_HOST_RE.search("[15]23:83:2526 [0] NCCL INFO x") is None


def test_nvidia_smi_list_with_a_gpu_nvml_could_not_open() -> None:
    ev = _load("nvidia_smi_L_unable_to_determine_handle_3b_00_unknown_error_gpu1_rtx4090.txt")
    (fault,) = ev.failures
    assert (fault["kind"], fault["line"]) == ("gpu_driver_fault", 3)
    assert "0000:3B:00.0" in fault["exception_type"]
    found = builtin_findings({"evidence.failures": ev.failures}, "nccl")
    assert found["evidence-gpu-driver-fault"].severity == "critical"


def test_a_benchmark_stopped_by_its_own_failure_is_not_told_to_look_for_a_hang() -> None:
    name = "nccltests320_all_reduce_3x_a6000_trace_libnvidia_ml_missing_unhandled_system_error.log"
    ev = _load(name)
    found = builtin_findings(
        {"evidence.failures": ev.failures, "evidence.benchmarks": ev.benchmarks}, "nccl"
    )
    cut = found["evidence-benchmark-cut-short"]
    assert cut.items[0].endswith("; the run failed: the failure read from the same file says why")
    assert [r.why for r in cut.recommendations if r.kind == "advice"] == [
        "Fix the failure the same log names (see its own finding), then rerun the benchmark."
    ]
    advice = " ".join(r.why for r in found["evidence-nccl-call-failed"].recommendations)
    assert "libnvidia-ml.so.1" in advice


def test_ei0010_under_a_call_that_names_no_function_error() -> None:
    name = "vime_bringup_notes_ei0010_p2p_dev4_module0_dev8_module1_not_same_plane_error_code_5.log"
    events = _events(name)
    (call,) = [e for e in events if e.kind == "hccl_call_failure"]
    assert (call.call, call.code, call.code_name) == (
        "hcclCommInitRootInfoConfig",
        "5",
        "HCCL_E_NOT_SUPPORT",
    )
    (p2p,) = [e for e in events if e.code == "EI0010"]
    assert p2p.code_name == "Communication_Error_P2P"
    assert (
        "Reason: Device ID 4 in module 0 and device ID 8 in module 1 are not on the same plane"
        in p2p.message
    )
    name = "a3_deploy_runbook_w4a8_get_hccl_comm_name_error_code_1_ei0015_unconnected_rank3.log"
    (call,) = [e for e in _events(name) if e.kind == "hccl_call_failure"]
    assert (call.code, call.torch_npu_code) == ("1", "ERR02200")


def test_ej0003s_text_without_its_code_is_a_port_already_bound() -> None:
    name = "aura_faq_hcclgetrootinfo_error_code_7_err02200_bind_ip_port_already_bound.log"
    (bound,) = [e for e in _events(name) if e.code == "EJ0003"]
    assert bound.line == 3
    found = builtin_findings({"evidence.failures": _load(name).failures}, "hccl")
    assert (
        found["evidence-hccl-port-bind"]
        .items[0]
        .startswith("EJ0003: a port (not printed) already bound")
    )


def test_a_watchdog_record_with_its_timeout_and_no_run_time() -> None:
    name = "verl_npu_port_notes_watchdog_workhccl_seqnum622_allgather_600000ms_wrapped.log"
    found = builtin_findings({"evidence.failures": _load(name).failures}, "hccl")
    (line,) = found["evidence-watchdog-timeout"].items
    assert "all_gather (SeqNum 622) timed out against a 600000 ms time-out" in line


def test_a_vector_core_exception_names_its_kernel_and_its_assertion() -> None:
    name = "oamtools_msaicerr_l1_plog17890_aiv_vector_core_exception_ez9999_507035.log"
    (exc,) = [e for e in _events(name) if e.kind == "npu_device_exception"]
    assert exc.call == "kernel GatherV3"
    assert exc.exception_type is not None
    assert (
        "the kernel's assertion gather_v3_base.h:137 `(0 <= val && val < this->gxSize_)` failed: Index 1000001 out of range[0 1)"
        in exc.exception_type
    )
    found = builtin_findings({"evidence.failures": _load(name).failures}, "hccl")
    advice = " ".join(r.why for r in found["evidence-npu-device-exception"].recommendations)
    assert "ASCEND_LAUNCH_BLOCKING" not in advice


def test_npu_smi_health_error_information_wrapped_without_its_padding() -> None:
    text = (
        HELDOUT
        / "npu_smi_t_health_i0_c0_alarm_80e3a203_lpm_chip_hardware_current_abnormal_310b4_report.txt"
    ).read_text()
    (answer,) = npu_smi.parse_query(text)
    assert answer.health == "Alarm"
    assert answer.fields["Error Information"] == [
        "node type=LPM, sensor type=Chip Hardware, event state=The function of obtaining the current is abnormal"
    ]


# --- round DDD -------------------------------------------------------------------------------


def test_npu_smi_hccs_answer_is_read() -> None:
    name = "npu_smi_t_hccs_3links_health_ok_retry0_error0_tx_rx_counters_rust_fixture.txt"
    (answer,) = npu_smi.parse_query((HELDOUT / name).read_text())
    assert answer.fields["hccs health status"] == ["OK"]
    assert answer.fields["hccs error count"] == ["[0            0            0]"]
    (f,) = _load(name).files
    assert f.status == "read" and f.formats == ["npu_smi_query"]


def test_a_rank_table_with_dots_is_said_not_to_load() -> None:
    ev = _load(
        "rank_table_v10_2srv_11_87_49_110_111_devices_elided_with_dots_invalid_json_xllm_glm5_doc.json"
    )
    said = heldout.said(ev)
    assert any("as written the file is not JSON, so HCCL cannot load it" in m for m in said)


def test_a_proc_log_with_plog_lines_keeps_its_traceback() -> None:
    name = "mindcluster_modelarts_proc_rank0_device0_mindspore_resnet50_8p_nameerror_hccl_adpt_warning.log"
    (error,) = _events(name)
    assert (error.kind, error.line) == ("log_error", 95)
    assert error.message.startswith("NameError: The name 'x' is not defined")


def test_a_structured_json_log_gives_its_first_warning_record() -> None:
    name = "nvsentinel772_preflight_dcgm_diag_level2_json_failed2_warned2_persistence_mode_gpu0_cut.txt"
    report = logs.parse((HELDOUT / name).read_text())
    (error,) = report.events
    assert error.line == 38
    assert error.message.startswith("warning: Test warn (gpu GPU-64c6592e-")
    assert (
        "error_code 29): Persistence Mode: Persistence mode for GPU 0 is disabled." in error.message
    )
    assert any("5 JSON record(s): 4 info, 1 warning" in w.message for w in report.unread)


def test_an_idle_gpu_with_no_process_is_not_a_stopped_rank() -> None:
    name = "nvidia_smi_unable_handle_gpu1_34_00_rtx_pro6000_blackwell_610_3of4_listed_llama_cuda_init_unknown.txt"
    ev = _load(name)
    by_gpu = {g["gpu"]: g for g in ev.gpus}
    assert {n: g["has_process"] for n, g in by_gpu.items()} == {0: True, 2: True, 3: False}
    assert not any(g["idle_among_busy"] for g in ev.gpus)
    assert any(
        f["kind"] == "gpu_driver_fault" and "0000:34:00.0" in f["message"] for f in ev.failures
    )


def test_a_subgroups_time_out_names_its_group() -> None:
    name = "sglang1693_tp8_pg3_allgather_base_seq9141_ranks1_4_watchdog_600071ms_take_down_cut.log"
    found = builtin_findings({"evidence.failures": _load(name).failures}, "nccl")
    assert any(
        line.startswith("Rank 4 in process group 3 (a subgroup): all_gather (SeqNum 9141")
        for line in found["evidence-watchdog-timeout"].items
    )


def test_a_failure_its_own_dump_signal_calls_a_time_out() -> None:
    name = "clmvsnet14_syncbn_default_pg_rank0_seq716_enqueued747_fr_disabled_dump_signal_cut.log"
    (failure,) = [e for e in _events(name) if e.kind == "watchdog_failure"]
    assert (failure.rank, failure.seq) == (0, 716)
    assert failure.exception_type is not None and failure.exception_type.startswith("a time-out")


def test_ncclS_communicator_shape_line_is_a_note() -> None:
    ev = _load(
        "nccltests311_4node_8rank_gpu34_36_40_41_comm_trees_p2p_chunksize_proxy_service_healthy_cut.log"
    )
    assert any(
        "a communicator of 8 rank(s) on 4 node(s), 2 on each (this log: rank(s) 1, 2)" in m
        for m in heldout.said(ev)
    )


# --- round EEE -------------------------------------------------------------------------------


def test_a_collective_examples_print_is_read_as_its_ranks_output() -> None:
    said = heldout.said(_load("hccl_example_send_recv_8npu_odd_ranks_receive_prev_device_id.log"))
    assert any(
        "a collective example's output: 8 NPU(s) found, rank(s) 1, 3, 5, 7 printed their output"
        in m
        for m in said
    )
    ev = _load("hccl_example_pytorch_allreduce_8ranks_input_output.log")
    (f,) = ev.files
    assert f.status == "read" and not ev.failures
    assert any("rank(s) 0, 1, 2, 3, 4, 5, 6, 7 printed their output" in m for m in heldout.said(ev))


def test_an_ocr_copys_open_device_line_names_the_device() -> None:
    ev = _load(
        "mindcluster_kgparse_rank0_torch_npu_set_device7_507033_e30008_e30003_tsd_ocr_text.txt"
    )
    (runtime,) = [f for f in ev.failures if f["kind"] == "npu_runtime_error"]
    assert (runtime["code"], runtime["device"]) == ("507033", 7)


def test_two_masked_server_ids_are_not_one_shared() -> None:
    name = "rank_table_v10_cross_cluster_2srv_16p_masked_ips_dpu_ip_cluster_list_roce_mindspore_sample.json"
    (said,) = [m for m in heldout.said(_load(name)) if m.startswith("rank_table: server_id")]
    assert "server_0_10.*.*.*, server_1_10.*.*.* are masked or placeholders" in said
    assert "shared" not in said


def test_torchtitans_training_completed_puts_its_teardown_warns_past_the_run() -> None:
    name = "titan153_training_completed_then_teardown_warn_socket_state_9_deregister_ipc_buffer_peer1_7.log"
    events = _events(name)
    (done,) = [e for e in events if e.kind == "run_success"]
    assert done.line == 47
    assert not [e for e in events if e.kind == "nccl_warning"]  # (each one now gone_past)
    found = builtin_findings({"evidence.failures": _load(name).failures}, "nccl")
    assert not [f for f in found.values() if f.severity == "critical"]
