"""Outputs of round N's held-out evaluation (tests/data/evidence_heldout_47, sources in
tests/data/SOURCES.md) that the advisor read wrong or not at all before this change."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import finding_items

HELDOUT = DATA / "evidence_heldout_47"


_load = partial(heldout.load, HELDOUT)


def _findings(ev: EvidenceFacts, backend: str = "nccl") -> dict[str, list[str]]:
    return finding_items(
        {
            "evidence.failures": ev.failures,
            "evidence.dcgm_diags": ev.dcgm_diags,
            "evidence.benchmarks": ev.benchmarks,
        },
        backend,
    )


def test_corrected_pcie_errors_in_a_kernel_log_are_the_port_the_link_retried_on() -> None:
    ev = _load("returnn1486_dmesg_pcie_aer_corrected_dll_timeout_cut.txt")
    assert ev.files[0].formats == ["log"]
    (aer,) = ev.failures  # one device, one severity: its reports counted, not each a failure
    assert aer["kind"] == "pcie_aer_corrected"
    assert aer["exception_type"] == (
        "Corrected PCIe error on pcieport 0000:00:03.0 [8086:6f08]: Data Link Layer, "
        "Transmitter ID ([12] Timeout), 3 reports"
    )
    found = _findings(ev)
    assert "evidence-pcie-aer-errors" in found and "evidence-pcie-aer-fatal" not in found
    # no longer "a program's first error line"
    assert "evidence-log-error" not in found


def test_a_fatal_surprise_down_before_an_xid_79_is_the_link_that_lost_the_gpu() -> None:
    ev = _load("xid79_aer_surprise_down_gpuburn_dmesg_cut.txt")
    kinds = {f["kind"]: f for f in ev.failures}
    assert set(kinds) == {"pcie_aer_corrected_few", "pcie_aer_fatal", "gpu_driver_fault"}
    # an older kernel's "id=0010(Receiver ID)" and its bit's long name, "(First)" taken off
    assert kinds["pcie_aer_fatal"]["exception_type"] == (
        "Uncorrected (Fatal) PCIe error on pcieport 0000:00:02.0 [8086:6f04]: Transaction "
        "Layer, Receiver ID ([5] Surprise Down Error)"
    )
    assert "Replay Timer Timeout" in kinds["pcie_aer_corrected_few"]["exception_type"]
    # one correctable report before the fatal one: no fault of its own (review 17)
    assert kinds["pcie_aer_corrected_few"]["code"] == "correctable"
    found = _findings(ev)
    assert {"evidence-pcie-aer-fatal", "evidence-gpu-driver-fault"} <= set(found)
    assert "evidence-pcie-aer-errors" not in found


def test_a_310p_fragment_with_chip_and_device_ids_reads_its_memory_and_devices() -> None:
    # cards 0, 32 and 32768 are npu-smi's card ids, each with two chips; the "Chip Device"
    # layout has no HBM column, so its one usage pair is Memory-Usage
    ev = _load("npu_smi_310p3_card_ids_0_32_32768_cut.txt")
    chips = [(c["npu"], c["chip"], c["device"], c["memory_used_mb"]) for c in ev.npu_chips]
    assert chips == [(0, 1, 1, 1322), (32, 0, 2, 1581), (32, 1, 3, 1354), (32768, 0, 4, 1541)]
    assert {c["memory_total_mb"] for c in ev.npu_chips} == {43693, 44278}
    assert all(c["hbm_used_mb"] is None for c in ev.npu_chips)


def test_a_faultdiag_report_in_sentence_case_labels_reads_its_link_down() -> None:
    ev = _load("ascend_fd_single_diag_report_link_down_hccn_link_stat_cut.txt")
    (fault,) = [f for f in ev.failures if f["kind"] == "faultdiag_fault"]
    assert fault["exception_type"].startswith("Link Down: NPU intermittent disconnection")
    assert "worker-0 device-2" in fault["exception_type"]
    assert "hccn_tool -i 2 -link_stat -g" in fault["exception_type"]
    assert "evidence-faultdiag-fault" in _findings(ev, "hccl")


def test_a_runtime_result_in_a_workers_fragment_is_the_failed_stream_sync() -> None:
    ev = _load("vllmascend7676_dp0_tp6_ep6_sync_stream_timeout_507011_cut.txt")
    assert ev.files[0].status == "read"
    (err,) = [f for f in ev.failures if f["kind"] == "npu_runtime_error"]
    assert (err["call"], err["code"], err["code_name"]) == (
        "synchronize stream with timeout",
        "507011",
        "ACL_ERROR_RT_MODEL_EXECUTE",
    )
    assert "evidence-npu-runtime-error" in _findings(ev, "hccl")


def test_the_ascend_drivers_errors_in_dmesg_name_the_devices_it_could_not_serve() -> None:
    ev = _load("hami1941_910b4_dmesg_vascend_devdrv_device_not_initialized_cut.txt")
    events = [f for f in ev.failures if f["kind"] == "npu_driver_error"]
    assert [(f["device"], f["library"]) for f in events] == [
        (4, "Ascend driver (devdrv)"),
        (6, "Ascend driver (dms_module)"),
        (6, "Ascend driver (devdrv)"),
    ]
    assert events[0]["exception_type"] == (
        "device 4: device(4) is not initialized (devdrv, devdrv_manager_get_devinfo, asked by "
        "npu-smi), 2 reports"
    )
    found = _findings(ev, "hccl")
    assert len(found["evidence-npu-driver-error"]) == 3
    assert "evidence-log-error" not in found


def test_dcgmi_health_reads_each_systems_health_and_its_messages() -> None:
    ev = _load("nvsentinel1481_dcgmi_health_c_nvlink_down_pcie_a100_cut.txt")
    assert ev.files[0].formats == ["dcgmi_health"]
    (report,) = ev.dcgm_diags
    assert report["tool"] == "dcgmi health"
    (check,) = report["failed"]
    assert (check["name"], check["result"], check["gpus"]) == ("NVLINK system", "Fail", "GPU: 0")
    assert check["details"][0].startswith("GPU 0's NvLink link 0 is currently down")
    assert "evidence-dcgm-diag-failed" in _findings(ev)


def test_two_identical_nccl_tests_headers_before_any_device_are_two_lone_processes() -> None:
    ev = _load("nccltests213_mpirun_2x_h800_separate_runs_duplicated_header_cut.txt")
    said = [m.message for m in ev.files[0].messages]
    assert any("2 processes each printed the same header (lines 2, 5)" in m for m in said)
    assert ev.benchmarks[0]["solo_hosts"] == ["hw14", "a host it does not list"]
    assert "evidence-nccl-tests-solo-runs" in _findings(ev)


def test_a_watchdog_stack_alone_is_a_time_out_whose_record_was_cut() -> None:
    ev = _load("megatron935_watchdog_reduce_scatter_frames_cut.log")
    (timeout,) = ev.failures
    assert timeout["kind"] == "watchdog_timeout" and timeout["library"] == "NCCL"
    # what the copy does not hold is not made up
    assert timeout["rank"] is None and timeout["op"] is None and timeout["seq"] is None
    assert "evidence-watchdog-timeout" in _findings(ev)


# round O (sets 309-312), scored against round N's fixes


def test_a_310p_fragment_that_starts_at_a_second_row_says_the_row_it_could_not_place() -> None:
    ev = _load("npu_smi_info_310p3_duo_npu_ids_32_32768_excerpt_cut.txt")
    (said,) = [m for m in ev.files[0].messages if "before the first whole chip" in m.message]
    assert said.line == 1 and "bus id 0000:01:00.0" in said.message
    assert [(c["npu"], c["device"]) for c in ev.npu_chips][:3] == [(32, 2), (32, 3), (32768, 4)]


def test_asys_info_status_is_a_chip_of_the_chip_table_and_healthy() -> None:
    ev = _load("asys_info_status_device0_healthy.txt")
    assert ev.files[0].formats == ["asys_status"]
    (chip,) = ev.npu_chips
    assert (chip["device"], chip["health"], chip["power_w"], chip["temp_c"]) == (
        0,
        "Healthy",
        1021.0,
        55.0,
    )
    assert (chip["hbm_used_mb"], chip["hbm_total_mb"]) == (3383, 65536)
    found = finding_items({"evidence.npu_chips": ev.npu_chips}, "hccl")
    assert "evidence-npu-chip-health" not in found


def test_hccps_tls_switch_lines_are_each_devices_tls_state() -> None:
    ev = _load("hccp_doc_grep_tls_switch_device0_on_device1_off_run_logs.log")
    assert [(p["device"], p["tls_enabled"]) for p in ev.npu_ports] == [(0, True), (1, False)]
    assert not any("in no form the advisor reads" in m.message for m in ev.files[0].messages)
    found = finding_items({"evidence.npu_ports": ev.npu_ports}, "hccl")
    assert "evidence-npu-tls-mismatch" in found


def test_an_invalid_rank_table_field_under_ranktablecheck_is_ei0004() -> None:
    ev = _load("hccl_doc_ei0004_a3_ranktable_v12_super_device_id_empty_invalid.log")
    (err,) = ev.failures
    assert (err["code"], err["code_name"]) == ("EI0004", "InitGroupStage/RanktableCheck")


def test_hccls_vnic_note_names_the_logical_and_physical_super_pod() -> None:
    ev = _load("hccl_doc_grep_plog_a3_vnic_logic_superpod_logic_1_phy_superpod0_scatter_test.log")
    (err,) = ev.failures
    assert err["kind"] == "hccl_plog_error"
    assert (
        "logical super pod logic_1 (HCCL_LOGIC_SUPERPOD_ID) on physical super pod 0"
        in (err["exception_type"])
    )


def test_nvbandwidths_nvml_error_is_its_own_set_up_not_a_copy_that_failed() -> None:
    ev = _load("nvbandwidth55_v08_agx_orin_nvml_not_found.txt")
    (run,) = ev.gpu_copy
    assert run["failed"] == []
    assert run["tool_errors"][0]["message"].startswith("NVML_ERROR: [Not Found]")
    found = finding_items({"evidence.gpu_copy": ev.gpu_copy}, "nccl")
    assert "evidence-gpu-copy-tool-error" in found
    assert "evidence-gpu-copy-test-failed" not in found


def test_ibstats_ibpanic_before_any_device_is_said() -> None:
    ev = _load("azhpcdiag59_ibstat_ibpanic_mlx5_an0_initializing_cut.txt")
    (said,) = ev.failures
    assert said["line"] == 2 and "stat of IB device 'mlx5_an0' failed" in said["message"]
    assert [(p["ca"], p["state"]) for p in ev.hca_ports] == [("mlx5_ib0", "Initializing")]


def test_an_nccl_result_passed_up_from_the_net_transport_with_no_warn_is_read() -> None:
    ev = _load("nccl697_dgxa100_net_socket_cut.log")
    (failure,) = ev.failures
    assert failure["kind"] == "nccl_call_failure" and failure["code"] == "2"
    assert failure["message"].startswith(
        "NCCL returned 2 (ncclSystemError) at include/net.h:25 in its network transport"
    )


# round P (sets 313-316), scored against round O's fixes


def test_ascend_950s_fec_serdes_and_bandwidth_outputs_are_read_per_port() -> None:
    (fec,) = _load("driver950_hccn_fec_g_port4.txt").npu_ports
    assert (fec["device"], fec["die_port"]) == (0, "UDie 0 port 4")
    assert fec["fec_mode"] == {
        "rs_mode": "128 T4",
        "auto_change_mode": "Static",
        "itlv_mode": "Interweave",
    }
    (serdes,) = _load("driver950_hccn_serdes_g_port4.txt").npu_ports
    assert [lane["snr"] for lane in serdes["serdes_lanes"]] == [459340, 421056, 438960, 432264]
    assert serdes["serdes_lanes"][0]["fir"] == [1, -10, 48, 4, 0]
    (rate,) = _load("driver950_hccn_bandwidth_g_port4.txt").npu_ports
    assert (rate["bandwidth_tx_mb_s"], rate["bandwidth_rx_mb_s"]) == (0.0, 266.84)
    found = finding_items({"evidence.npu_ports": [rate]}, "hccl")
    (line,) = found["evidence-npu-port-state"]
    assert "TX 0.0 / RX 266.84 MB/s" in line


def test_the_roce_drivers_error_cqe_status_is_named() -> None:
    ev = _load("hcclug61_roce_error_cqe_status_0x15_plog_cut.log")
    (err,) = ev.failures
    assert err["exception_type"].startswith(
        "ROCE error: error CQE status 0x15 = TRANSPORT_RETRY_EXC_ERR (IB_WC_RETRY_EXC_ERR"
    )


def test_a_ranks_traceback_frames_alone_say_the_process_raised_there() -> None:
    ev = _load("llamafactory8306_rank8_main_process_first_traceback_cut.log")
    (raised,) = ev.failures
    assert raised["kind"] == "python_exception" and raised["rank"] == 8
    assert raised["message"].startswith("the copy starts and ends inside a traceback's frames")


def test_e30008s_getnext_time_out_is_the_input_pipeline() -> None:
    ev = _load("hiascend63rc2_e30008_getnext_aicpu_timeout_screen.log")
    (pipe,) = [f for f in ev.failures if f["kind"] == "input_pipeline_failure"]
    assert (pipe["code"], pipe["device"]) == ("E30008", 0)
    assert "timed out on the AI CPU (E30008)" in pipe["exception_type"]


def test_msruns_worker_exit_line_is_the_launchers_account() -> None:
    ev = _load("mindact1893_msrun_worker_process_exit_one_line.log")
    (exit_,) = ev.failures
    assert (exit_["kind"], exit_["pid"]) == ("launcher_exit", 130673)


def test_an_nvlink_xid_its_driver_calls_fatal_is_a_fault() -> None:
    ev = _load("nvrm_xid_144_149_nvlink_kmsg_cut.txt")
    kinds = {f["code"]: f["kind"] for f in ev.failures}
    assert kinds == {"144": "gpu_driver_error", "149": "gpu_driver_fault"}


# round Q (sets 317-320), scored against round P's fixes


def test_hccls_cmd_information_check_is_ei0005_naming_what_differs() -> None:
    ev = _load("hccl_cmd_info_check_fail_plog.log")
    (err,) = ev.failures
    assert (err["kind"], err["code"]) == ("hccl_error", "EI0005")
    assert err["exception_type"] == (
        "the ranks called different collectives or arguments (tag: this rank AllGather, the "
        "peer AllReduce; cmdType: this rank 6, the peer 2; op: this rank 255, the peer 0)"
    )


def test_a_rank_table_without_device_ip_is_said() -> None:
    (err,) = _load("hccl_grep_plog_device_ip_not_set_ranktable.log").failures
    assert err["exception_type"].startswith("the rank table gives no device_ip")


def test_ibdev2netdevs_down_interfaces_are_a_finding() -> None:
    ev = _load("ibdev2netdev_h20_ib_ports_down_bond_up_prompt.txt")
    found = finding_items({"evidence.hca_ports": ev.hca_ports}, "nccl")
    # (each named with the host its prompt names)
    assert [line.split(" (")[0] for line in found["evidence-hca-netdev-down"]] == [
        "node150: mlx5_0 port 1 ==> ibs108",
        "node150: mlx5_3 port 1 ==> ibs110",
        "node150: mlx5_4 port 1 ==> ibs112",
        "node150: mlx5_7 port 1 ==> ibs114",
    ]


def test_libibverbs_with_no_device_is_read() -> None:
    ev = _load("ibv_devinfo_ibstatus_no_devices_after_openibd_stop.txt")
    (none,) = ev.failures
    assert none["kind"] == "rdma_no_device"
    assert none["exception_type"] == "no RDMA device could be listed (Function not implemented)"
    assert "evidence-rdma-no-device" in _findings(ev)


def test_nvml_refusing_a_query_for_rights_is_said_not_a_link_fault() -> None:
    ev = _load("nvidia_smi_nvlink_g0_insufficient_permissions_v100.txt")
    (refused,) = ev.failures
    assert refused["kind"] == "gpu_driver_error"
    assert refused["exception_type"].startswith("NVML refused the query for want of rights")


def test_torchs_cuda_error_alone_is_read_and_ecc_named() -> None:
    ev = _load("jade194_pytorch_uncorrectable_ecc.log")
    (err,) = ev.failures
    assert err["kind"] == "cuda_error"
    assert err["exception_type"] == (
        "uncorrectable ECC error encountered (an uncorrectable ECC error: the GPU's memory failed)"
    )


# round R (sets 321-324), scored against round Q's fixes


def test_ascend_950s_pcie_error_counts_are_an_unhealthy_chip() -> None:
    ev = _load("npu_smi_950_t_pcie_err.txt")
    (chip,) = ev.npu_chips
    assert chip["health"] == (
        "PCIe link errors: RX Error Count 991 (line 4), Retry Count 415 (line 7)"
    )
    assert "evidence-npu-chip-health" in finding_items({"evidence.npu_chips": ev.npu_chips}, "hccl")


def test_a_proc_mem_answer_is_no_npu_list() -> None:
    ev = _load("npu_smi_950_t_proc_mem.txt")
    (said,) = [m.message for m in ev.files[0].messages]
    assert said.startswith("npu_smi_query: npu-smi info -t proc-mem of NPU 0")


def test_ascend_950s_speed_and_peak_bandwidth_are_read_per_port() -> None:
    (speed,) = _load("hccn_tool_950_speed_port4.txt").npu_ports
    assert (speed["die_port"], speed["speed_mbps"]) == ("UDie 0 port 4", 400000)
    (peak,) = _load("hccn_tool_950_peak_bw_port4.txt").npu_ports
    assert (peak["bandwidth_tx_mb_s"], peak["bandwidth_rx_mb_s"]) == (0.0, 0.0)


def test_iproute2s_rdma_link_line_is_a_port_state() -> None:
    ev = _load("rccl1423_rdma_link_mlx5_7_down_polling.txt")
    (port,) = ev.hca_ports
    assert (port["ca"], port["port"], port["state"], port["physical_state"]) == (
        "mlx5_7",
        1,
        "DOWN",
        "Polling",
    )
    assert port["active"] is False


def test_a_gpu_whose_fabric_registration_failed_is_said() -> None:
    ev = _load("azhpcimages506_nvsmi_q_fabric_insufficient_cut.txt")
    (gpu,) = ev.gpus
    assert gpu["fabric_status"] == "Insufficient Resources"
    assert "evidence-gpu-fabric-not-registered" in finding_items({"evidence.gpus": ev.gpus}, "nccl")


def test_a_rank_table_device_that_is_not_the_process_device_is_said() -> None:
    ev = _load("vllmascend2618_hccl_ranktable_devid_mismatch_cut.log")
    (plog,) = ev.failures
    assert plog["kind"] == "hccl_plog_error" and plog["device"] == 3
    # both ids named, and the result under it read though the copy split its arrow ("- >7")
    assert plog["exception_type"].startswith(
        "the rank table gives this rank device 1 but the process has device 3"
    )
    assert (plog["code"], plog["code_name"]) == ("7", "HCCL_E_UNAVAIL")


def test_a_store_log_of_info_lines_only_is_a_healthy_run(tmp_path: Path) -> None:
    ev = _load("nccl879_c10d_debug_numbered_cut.log")
    assert ev.files[0].status == "read" and ev.files[0].formats == ["log"]
    assert ev.failures == []
    assert not any(rule.startswith("evidence-") for rule in _findings(ev))
    # the same lines with a warning among them are not passed as healthy
    text = (HELDOUT / "nccl879_c10d_debug_numbered_cut.log").read_text()
    warned = tmp_path / "warned.log"
    warned.write_text(text.replace("[I socket.cpp:785]", "[W socket.cpp:785]"))
    assert load_paths([warned]).files[0].status != "read"


def test_what_the_device_said_of_the_runtimes_failed_task_is_said_with_it() -> None:
    ev = _load("vllmascend12776_plog216_aicpu_kernel_param_invalid_cut.log")
    (task,) = ev.failures
    assert (task["library"], task["device"], task["line"]) == ("RUNTIME", 0, 1)
    assert task["exception_type"] == (
        "RUNTIME error: AICPU task exception, errcode 1 (execute kernel param invalid), "
        "kernel task retCode 0x2a"
    )
