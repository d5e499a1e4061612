"""Outputs of round V's held-out evaluation (sets 337-340; tests/data/evidence_heldout_48,
sources in tests/data/SOURCES.md) that the advisor read wrong or not at all before this change."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings, finding_items

HELDOUT = DATA / "evidence_heldout_48"


_load = partial(heldout.load, HELDOUT)


def _rules(ev: EvidenceFacts, backend: str = "hccl") -> dict[str, list[str]]:
    return finding_items({"evidence.failures": ev.failures}, backend)


def test_an_moe_operators_window_check_says_what_hccl_buffsize_it_needs() -> None:
    ev = _load(
        "vllm_ascend_issue16835_ez1008_tiling_fail_hccl_buffsize_ep_too_small_600mb_vs_256mb_device1_cut.log"
    )
    (small,) = [e for e in ev.failures if e["kind"] == "hccl_buffsize_small"]
    assert (small["numel"], small["op"], small["line"]) == (600, "MoeDistributeDispatchV2", 5)
    assert "needs 600 MB, HCCL_BUFFSIZE gives 256 MB" in small["exception_type"]
    (item,) = _rules(ev)["evidence-hccl-buffsize-small"]
    assert item.startswith("MoeDistributeDispatchV2: HCCL_BUFFSIZE_EP is too small")
    # the fix is an environment variable: the largest window asked for, in MB
    finding = builtin_findings({"evidence.failures": ev.failures}, "hccl")[
        "evidence-hccl-buffsize-small"
    ]
    assert [(r.name, r.value) for r in finding.recommendations if r.kind == "env"] == [
        ("HCCL_BUFFSIZE", "600")
    ]


def test_the_window_check_behind_ez9999_is_read_beside_the_failed_call() -> None:
    ev = _load(
        "vllm_ascend_pr5287_enginecore_dp0_ez9999_hccl_buffsize_too_small_609mb_vs_200mb_561002_cut.log"
    )
    kinds = {e["kind"] for e in ev.failures}
    assert {"hccl_buffsize_small", "npu_runtime_error"} <= kinds
    (small,) = [e for e in ev.failures if e["kind"] == "hccl_buffsize_small"]
    assert small["numel"] == 609 and "HCCL_BUFFSIZE gives 200 MB" in small["exception_type"]


def test_the_short_form_of_the_window_check_names_the_size_alone(tmp_path: Path) -> None:
    log = tmp_path / "notify.log"
    # the notify-dispatch tiling's other wording (CANN's NotifyDispatch CheckWinSize)
    log.write_text(
        "[ERROR] OP(1234,python):2026-01-02-03:04:05.678.901 [notify_dispatch_tiling.cpp:88]"
        " NotifyDispatch: HCCL_BUFFSIZE is too SMALL, should larger than 812MB.\n"
    )
    (small,) = [e for e in load_paths([log]).failures if e["kind"] == "hccl_buffsize_small"]
    # (812 is the window rounded down to MB: 813 is enough)
    assert small["numel"] == 813 and small["exception_type"].endswith("it needs 813 MB")


def test_torch_npus_suspect_remote_error_names_the_worker_and_points_at_the_peer() -> None:
    ev = _load("vllm_ascend_issue17202_worker_tp6_suspect_remote_error_507057_oneline.log")
    (fault,) = ev.failures
    assert (fault["kind"], fault["code"], fault["code_name"]) == (
        "npu_device_fault",
        "507057",
        "SUSPECT REMOTE ERROR",
    )
    assert "Worker_TP6" in fault["exception_type"] and "peer" in fault["exception_type"]
    assert len(_rules(ev)["evidence-npu-device-fault"]) == 1


def test_each_device_fault_torch_npu_names_is_read_once_a_rank(tmp_path: Path) -> None:
    # torch_npu's own wordings (NPUQueue.cpp: "<NAME>, <details>" thrown, "<NAME> happened",
    # "getRepoStopFlag in Run, throw <NAME>.")
    log = tmp_path / "uce.log"
    log.write_text(
        "[rank3]: RuntimeError: UCE ERROR, the device memory went wrong. [ERROR] ERR00100 PTA call acl api failed\n"
        "[rank3]: [ERROR] getRepoStopFlag in Run, throw UCE ERROR.\n"
        "[rank5]: RuntimeError: HCCS LINK ERROR, device 5 link down\n"
    )
    faults = [e for e in load_paths([log]).failures if e["kind"] == "npu_device_fault"]
    assert [(e["rank"], e["code_name"], e["code"]) for e in faults] == [
        (3, "UCE ERROR", "507053"),
        (5, "HCCS LINK ERROR", "507056"),
    ]


def test_a_device_plugins_tool_that_exited_non_zero_is_a_tool_failure() -> None:
    ev = _load("hami_adp131_npu_smi_set_device_share_exit_203_npu6_chip0_plugin_start_fail_cut.log")
    (failed,) = ev.failures
    assert failed["kind"] == "ascend_tool_failure"
    assert failed["exception_type"].startswith(
        "npu-smi set device-share -i 6 -c 0 -d 1 exited with status 203 (its answer: Status Fail)"
    )
    assert len(_rules(ev)["evidence-ascend-tool-failure"]) == 1


def test_kubelets_lost_device_plugin_and_failed_container_are_read() -> None:
    ev = _load(
        "hami_issue2712_kubelet_journal_zh_ascend_device_plugin_listandwatch_eof_docker_runtime_fail_cut.log"
    )
    by_kind = {e["kind"]: e for e in ev.failures}
    assert set(by_kind) == {"device_plugin_lost", "container_start_failure"}
    lost = by_kind["device_plugin_lost"]
    assert (lost["host"], lost["line"]) == ("kylin10-6018", 1)
    assert "huawei.com/Ascend910B4-1 stopped serving kubelet (EOF)" in lost["exception_type"]
    started = by_kind["container_start_failure"]
    assert started["exception_type"].startswith(
        "container vllm of pod default/test4-780cd89b-c75965f9b-knvsg did not start (RunContainerError)"
    )
    assert started["exception_type"].endswith("did not terminate successfully: exit status 1")
    rules = _rules(ev)
    assert len(rules["evidence-device-plugin-lost"]) == 1
    assert len(rules["evidence-container-start-failure"]) == 1
    # the log write failure between them is kubelet's own, no device's
    assert all(e["line"] != 2 for e in ev.failures)


def test_torchruns_summary_entries_flattened_a_line_each_are_the_failures() -> None:
    ev = _load("litdata340_sagemaker_childfailed_summary_cut.log")
    entries = [e for e in ev.failures if e["kind"] == "elastic_failure"]
    assert [(e["rank"], e["local_rank"], e["host"], e["exit_code"], e["pid"]) for e in entries] == [
        (r, r, "algo-2", -6, 187 + r) for r in range(2, 8)
    ]
    assert entries[0]["message"] == "Signal 6 (SIGABRT) received by PID 189"
    assert len(_rules(ev, "nccl")["evidence-elastic-root-cause"]) == 6


def test_a_rank_that_dumped_on_a_peers_time_out_signal_says_the_peer_timed_out() -> None:
    ev = _load("simplegrpo46_dump_signal_from_rank2_cut.log")
    (item,) = _rules(ev, "nccl")["evidence-peer-timeout-signal"]
    assert item.startswith("Rank 5: rank 5 dumped on the time-out signal from rank 2")


def test_a_peer_signal_whose_own_time_out_is_read_is_not_said_twice() -> None:
    # rank 2's own time-out among the files: the signal from it says nothing more
    ev = _load("simplegrpo46_dump_signal_from_rank2_cut.log")
    timed = {**ev.failures[0], "kind": "watchdog_timeout", "rank": 2, "remote_rank": None}
    rules = finding_items({"evidence.failures": [*ev.failures, timed]}, "nccl")
    assert "evidence-peer-timeout-signal" not in rules


def test_the_watchdog_ending_after_cuda_was_torn_down_is_no_failure() -> None:
    ev = _load("fuser2497_watchdog_driver_shutting_down_cut.log")
    assert ev.files[0].status == "read" and ev.failures == []
    (note,) = [m for m in ev.files[0].messages if "torn CUDA down" in m.message]
    assert note.line == 1 and "no failure" in note.message


def test_an_editors_line_numbers_are_taken_off_before_reading() -> None:
    ev = _load("p2p_latency_4gpu_nvlink_vim_line_numbers.txt")
    assert ev.files[0].status == "read" and ev.files[0].formats == ["p2p_bandwidth"]
    assert any(
        "an editor's line numbers taken off 25 line(s)" in m.message for m in ev.files[0].messages
    )
    (run,) = ev.gpu_copy
    titles = [m["title"] for m in run["matrices"]]
    assert titles == [
        "P2P=Disabled Latency (GPU)",
        "P2P=Disabled Latency (CPU)",
        "P2P=Enabled Latency (P2P Writes) (GPU)",
        "P2P=Enabled Latency (P2P Writes) (CPU)",
    ]
    assert run["matrices"][0]["rows"]["0"]["2"] == 19.61  # the number 3 before the row is gone


def test_numbers_that_do_not_run_on_one_by_one_are_the_texts_own(tmp_path: Path) -> None:
    # an nccl-tests table's rows also start with numbers: sizes, not line numbers
    table = tmp_path / "sizes.txt"
    table.write_text("".join(f"{2**i} {i} x\n" for i in range(3, 10)))
    assert not any("line numbers" in m.message for m in load_paths([table]).files[0].messages)


def test_nvlink_traffic_counters_are_read_as_traffic_not_errors() -> None:
    ev = _load("h800_nvlink_gt_d_8gpu_throughput_counters.txt")
    assert ev.files[0].status == "read"
    gpu0 = ev.nvlinks[0]
    assert gpu0["traffic_kib"]["0"] == {"Data Tx": 695737216, "Data Rx": 692677038}
    assert (gpu0["error_total"], gpu0["active"], gpu0["inactive"]) == (0, None, [])
    (note,) = ev.files[0].messages
    assert "traffic, not errors or link states: not judged" in note.message
    rules = finding_items({"evidence.nvlinks": ev.nvlinks}, "nccl")
    assert not any(rid.startswith("evidence-nvlink") for rid in rules)  # nothing judged


def test_a_store_call_whose_connection_was_reset_is_the_store_lost() -> None:
    ev = _load("deepspeed2973_multinode_store_barrier_connection_reset_cut.log")
    (lost,) = ev.failures
    assert (lost["kind"], lost["line"]) == ("store_lost", 8)
    assert "under the c10d store call store.add(store_key, 1)" in lost["exception_type"]


def test_a_topology_copied_without_its_header_is_named_from_its_rows() -> None:
    ev = _load("vllm16336_b200_topo_gpu2_no_nvlink_cut.txt")
    (topo,) = ev.topologies
    assert topo["devices"] == [f"GPU{i}" for i in range(6)]
    assert topo["links"]["GPU0"]["NIC0"] == "PXB" and topo["links"]["GPU2"]["GPU0"] == "NODE"
    assert topo["cpu_affinity"]["GPU4"] == "56-111,168-223" and topo["numa_affinity"]["GPU4"] == "1"
    # GPU2's own row is whole: it has no NVLink where the others have seven
    assert topo["nvlink_left_out"] == ["GPU2"]
    messages = " / ".join(m.message for m in ev.files[0].messages)
    assert "without its header line" in messages and "no row for GPU6, GPU7" in messages


def test_a_headerless_copy_that_starts_after_the_first_rows_says_so() -> None:
    ev = _load("fastdeploy_collect_env_topo_8gpu_nv12_3nic_cut.txt")
    (topo,) = ev.topologies
    assert topo["devices"] == ["GPU3", "GPU4", "GPU5", "GPU6", "GPU7", "NIC0", "NIC1", "NIC2"]
    assert topo["links"]["NIC0"]["GPU0"] == "PXB" and topo["links"]["GPU3"]["NIC2"] == "PXB"
    messages = " / ".join(m.message for m in ev.files[0].messages)
    assert "starts at row GPU3: no row for GPU0, GPU1, GPU2" in messages


def test_rows_that_do_not_tell_their_columns_are_not_guessed(tmp_path: Path) -> None:
    # no NVLink cell and no NIC row: which columns are GPUs is not known
    rows = tmp_path / "rows.txt"
    rows.write_text("GPU0\t X \tPHB\tSYS\tSYS\tPXB\t0-11\nGPU1\tPHB\t X \tSYS\tSYS\tPXB\t0-11\n")
    assert load_paths([rows]).topologies == []


def test_c10ds_skipped_address_family_alone_is_a_healthy_start() -> None:
    ev = _load("ktransformers_1536_310p_startup_c10d_ipv6_warning_then_init_ok_cut.log")
    assert ev.files[0].status == "read" and ev.failures == []


def test_glooss_full_mesh_is_healthy_and_a_short_one_is_an_error(tmp_path: Path) -> None:
    ev = _load("verl_5074_a2_ray_workerdict_gloo_connected_before_error_cut.log")
    assert ev.files[0].status == "read" and ev.failures == []
    # gloo's own words for a mesh that came up short (transport/tcp/context.cc)
    short = tmp_path / "short.log"
    short.write_text(
        "[Gloo] Rank 3 is connected to 5 peer ranks. Expected number of connected peer ranks is : 7\n"
        "[Gloo] Rank 3 is NOT connected to: [4, 6]\n"
    )
    (gloo,) = load_paths([short]).failures
    assert (gloo["kind"], gloo["rank"]) == ("gloo_error", 3)
    assert gloo["exception_type"] == (
        "gloo's full mesh came up with 5 of 7 peers: not connected to rank(s) 4, 6"
    )


def test_the_devices_fault_manager_alarm_that_never_resumed_is_read() -> None:
    ev = _load("asys_collected_device_event_log_910b_aiv_bus_error_alarms.log")
    (alarm,) = ev.failures
    assert (alarm["kind"], alarm["code"], alarm["code_name"], alarm["device"]) == (
        "npu_fault_event",
        "0x80f78003",
        "Alarm",
        0,
    )
    assert alarm["exception_type"].startswith("Alarm: HWTS/Stars-TS 0: internal config error")
    # the warnings that occurred and resumed are a note, no event
    (note,) = ev.files[0].messages
    assert "occurred and resumed" in note.message and "AIV input error x4" in note.message
    assert len(_rules(ev)["evidence-npu-fault-event-alarm"]) == 1


def test_npu_exporter_metrics_without_any_status_are_read_as_a_note() -> None:
    ev = _load("npu_exporter_metrics_response_910A_8npu_doc_excerpt.txt")
    assert ev.files[0].status == "read" and ev.npu_ports == []
    (note,) = ev.files[0].messages
    assert "metrics of 8 chip(s), none of their link, network or health status" in note.message


def test_nvidia_smis_xml_record_is_read_as_its_text_form() -> None:
    ev = _load("pai2192_nvidia_smi_q_x_ecc_xml_cut.txt")
    assert ev.files[0].formats == ["nvidia_smi_query_xml"] and ev.files[0].status == "read"
    (gpu,) = ev.gpus
    # the single-bit total is read; the copy ends before the double-bit total: unknown
    assert (gpu["ecc_corrected"], gpu["ecc_uncorrected"], gpu["line"]) == (0, None, 2)


def test_an_xml_gpu_record_keeps_its_bus_id_and_uncorrected_count(tmp_path: Path) -> None:
    record = tmp_path / "q.xml"
    record.write_text(
        '<nvidia_smi_log>\n\t<gpu id="00000000:07:00.0">\n\t\t<ecc_errors>\n\t\t\t<volatile>\n'
        "\t\t\t\t<sram_correctable>0</sram_correctable>\n"
        "\t\t\t\t<sram_uncorrectable>3</sram_uncorrectable>\n"
        "\t\t\t</volatile>\n\t\t</ecc_errors>\n\t</gpu>\n</nvidia_smi_log>\n"
    )
    (gpu,) = load_paths([record]).gpus
    assert (gpu["bus_id"], gpu["ecc_uncorrected"], gpu["line"]) == ("00000000:07:00.0", 3, 2)


def test_xid_154s_recovery_action_to_a_reset_is_a_fault() -> None:
    ev = _load(
        "journalctl_kernel_xid62_pmu_halted_xid154_reset_required_xid45_vllm_worker_rtxpro6000_gpu0_cut.log"
    )
    kinds = {e["code"]: e["kind"] for e in ev.failures if e["code"]}
    assert kinds["154"] == "gpu_driver_fault"  # GPU Reset Required
    # Xid 62, the micro-controller's halt, needs the reset too (round CC); 45 follows it
    assert kinds["62"] == "gpu_driver_fault" and kinds["45"] == "gpu_driver_error"
    items = finding_items({"evidence.failures": ev.failures}, "nccl")["evidence-gpu-driver-fault"]
    assert any("GPU Reset Required" in item for item in items) and len(items) == 2


def test_xid_154_back_to_none_is_no_fault(tmp_path: Path) -> None:
    log = tmp_path / "kern.log"
    log.write_text(
        "NVRM: Xid (PCI:0000:01:00): 154, GPU recovery action changed from 0x1 (GPU Reset "
        "Required) to 0x0 (None)\n"
    )
    (xid,) = load_paths([log]).failures
    assert xid["kind"] == "gpu_driver_error"


def test_two_processes_on_one_gpu_without_a_comm_id_are_a_duplicate_gpu() -> None:
    ev = _load(
        "pytorch_examples_multinode_ddp_two_ranks_abort_complete_then_ddp_init_traceback_cut.log"
    )
    (dup,) = [e for e in ev.failures if e["kind"] == "duplicate_gpu"]
    assert dup["exception_type"] == (
        "ranks 0, 1 of a communicator of 2 ranks on d-9-11-1 share the GPU at bus 86000"
    )


def test_one_processs_two_communicators_on_its_gpu_are_no_duplicate(tmp_path: Path) -> None:
    # one process (one pid) in two communicators of two ranks, as rank 0 of one and rank 1 of
    # the other: its own GPU, no second process on it
    log = tmp_path / "one_process.log"
    log.write_text(
        "node1:100:100 [0] NCCL INFO comm 0x55a1 rank 0 nranks 2 cudaDev 0 busId 86000 - Init COMPLETE\n"
        "node1:100:100 [0] NCCL INFO comm 0x55b2 rank 1 nranks 2 cudaDev 0 busId 86000 - Init COMPLETE\n"
    )
    assert [e for e in load_paths([log]).failures if e["kind"] == "duplicate_gpu"] == []
