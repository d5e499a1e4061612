"""Outputs of round Z's held-out evaluation (sets 353-356; tests/data/evidence_heldout_50,
sources in tests/data/SOURCES.md) that the advisor read wrong or not at all before this change."""

from __future__ import annotations

from functools import partial

from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_50"


_load = partial(heldout.load, HELDOUT)


def test_nvidia_smis_query_csv_gives_each_gpus_recovery_action() -> None:
    ev = _load("nvidia_smi_query_gpu_recovery_action_gpu1_reset_annotated_dcgm263.txt")
    assert ev.files[0].formats == ["nvidia_smi_query_csv"]
    assert [(g["gpu"], g["recovery_action"]) for g in ev.gpus][:3] == [
        (0, "None"),
        (1, "Reset"),
        (2, "None"),
    ]
    (item,) = builtin_findings({"evidence.gpus": ev.gpus}, "nccl")[
        "evidence-gpu-recovery-action"
    ].items
    assert item.startswith("GPU 1: Reset")


def test_dcgmi_dmons_xider_names_the_gpus_last_xid() -> None:
    ev = _load("dcgmi_dmon_c1_e230_xider_gpu1_120_dcgm263.txt")
    (xid,) = ev.failures
    assert (xid["kind"], xid["device"], xid["code"], xid["line"]) == (
        "gpu_driver_fault",
        1,
        "120",
        5,
    )
    assert xid["code_name"].startswith("GSP error")


def test_a_b200_with_no_nvlink_up_is_a_fault_not_a_bridge_left_off() -> None:
    ev = _load("nvidia_smi_nvlink_b200_gpu2_all_links_inactive_gpud1085.txt")
    (gpu,) = ev.nvlinks
    assert (gpu["gpu"], gpu["name"], gpu["none_up"], gpu["baseboard"]) == (
        2,
        "NVIDIA B200",
        True,
        True,
    )
    findings = builtin_findings({"evidence.nvlinks": ev.nvlinks}, "nccl")
    assert findings["evidence-nvlink-down-on-baseboard"].severity == "critical"
    assert "evidence-nvlink-inactive-alike" not in findings


def test_a_diagnostic_whose_tests_could_not_start_cuda_blames_the_setup_not_the_gpus() -> None:
    ev = _load(
        "dcgmi_diag_r3_fail_early_8xh100_gpu_memory_fail_cuinit_system_not_yet_initialized_nccltests264.txt"
    )
    (diag,) = ev.dcgm_diags
    assert diag["failed"] == [] and [c["name"] for c in diag["cuda_unavailable"]] == ["GPU Memory"]
    findings = builtin_findings({"evidence.dcgm_diags": ev.dcgm_diags}, "nccl")
    assert findings["evidence-dcgm-cuda-unavailable"].severity == "critical"
    assert "evidence-dcgm-diag-failed" not in findings


def test_a_thread_that_could_not_be_created_is_the_cause_behind_rays_worker_death() -> None:
    ev = _load("verl472_ray_actordied_workerdict_thread_resource_unavailable_cut.log")
    (limit,) = [e for e in ev.failures if e["kind"] == "thread_limit"]
    assert limit["line"] == 8
    assert limit["message"].startswith(
        "what(): thread: Resource temporarily unavailable [system:11]"
    )
    findings = builtin_findings({"evidence.failures": ev.failures}, "nccl")
    assert findings["evidence-thread-limit"].severity == "critical"


def test_the_kernel_librarys_own_cuda_check_names_the_kernel_that_failed() -> None:
    ev = _load("sglang8336_mtp_flash_fwd_illegal_memory_access_watchdog_pg2_rank0_cut.log")
    (cuda,) = [e for e in ev.failures if e["kind"] == "cuda_error"]
    assert (cuda["line"], cuda["exception_type"]) == (1, "an illegal memory access was encountered")
    assert cuda["call"].endswith("hopper/flash_fwd_launch_template.h:188")


def test_a_gpu_the_driver_could_not_initialise_is_critical_with_the_drivers_reason() -> None:
    ev = _load("nvtrust124_dmesg_h100_rminitadapter_failed_cc_not_enabled_tdx_cut.txt")
    (init,) = [e for e in ev.failures if e.get("call") == "RmInitAdapter"]
    assert init["line"] == 8
    assert init["exception_type"].startswith(
        "GPU 0000:06:00.0 did not initialise: RmInitAdapter failed! (0x22:0x3f:744) (/dev/nvidia1);"
        " the driver said before it: confComputeConstructEngine_IMPL: GPU confidential compute"
        " capability is not enabled."
    )
    findings = builtin_findings({"evidence.failures": ev.failures}, "nccl")
    assert findings["evidence-gpu-init-failed"].severity == "critical"


def test_a_web_pages_markup_is_taken_off_before_reading() -> None:
    ev = _load("hccn_tool_i3_stat_tail_lldp_ip_route_html_span_markup_read_it_later11547_cut.txt")
    assert any(
        "HTML tag(s) of a web page's markup taken off" in m.message for m in ev.files[0].messages
    )
    (port,) = ev.npu_ports
    assert port["device"] == 3 and port["lldp"]["port_id"] == "400GE1/1/20:2"


def test_dlopens_undefined_symbol_quoted_by_cann_is_a_version_mismatch() -> None:
    ev = _load("ascend_samples21_cann70rc1_plog_ge_loadlib_undefined_symbol_tdt_events_cut.log")
    (lib,) = [e for e in ev.failures if e["kind"] == "library_missing"]
    assert (lib["line"], lib["library"]) == (1, "libops_host_cpu.so")
    assert (
        "needs _ZN2ge14GetShapeErrMsgEjRKSsS1_, which no library loaded provides"
        in (lib["exception_type"])
    )


def test_the_runtimes_hccl_ffts_time_out_handler_names_the_chip_where_its_words_were_cut() -> None:
    ev = _load("vllm_ascend7651_plog_pd_disagg_aicore_timeout_hccl_fftsplus_chip3_cut.log")
    (timeout,) = [e for e in ev.failures if "HCCL task time-out" in (e["exception_type"] or "")]
    assert timeout["device"] == 3


def test_mindspores_slow_batch_warning_then_a_failed_task_is_the_input_pipeline() -> None:
    ev = _load("mindcv504_mindspore20_getnext_slow_data_task_fail_507011_device0_cut.log")
    (starved,) = ev.failures
    assert (starved["kind"], starved["line"], starved["device"], starved["code"]) == (
        "input_pipeline_failure",
        3,
        0,
        "507011",
    )
    assert starved["exception_type"].startswith("a batch took more than 25 s to reach the device")


def test_a_healthy_nccl_start_says_its_communicators_size_and_nvls() -> None:
    ev = _load("nccl1814_init_complete_nvls_tree_64ranks_hostname_test_healthy_cut.log")
    said = [m.message.removeprefix("log: ") for m in ev.files[0].messages]
    assert ev.failures == [] and "NCCL uses NVLink SHARP (NVLS): 16 NVLS channel(s)" in said
    assert any(
        m.startswith("a communicator of 64 rank(s) started (this log: rank(s) 32") for m in said
    )


def test_a_healthy_ras_report_says_the_jobs_size_and_its_communicators() -> None:
    ev = _load("ncclras_2_26_2_32nodes_256ranks_running_ok_no_errors_nccl1730.txt")
    said = [m.message.removeprefix("log: ") for m in ev.files[0].messages]
    assert ev.failures == []
    assert (
        "NCCL RAS: 32 node(s), 8 process(es) a node, 256 process(es) and 256 GPU(s) in all" in said
    )
    assert (
        "NCCL RAS: group 0, 1 communicator(s) of 256 rank(s) over 32 node(s): RUNNING, OK" in said
    )


def test_npu_smis_proc_mem_names_the_process_and_is_no_npu_list() -> None:
    ev = _load("npu_smi_info_t_proc_mem_i0_vllmworker_55844mb_nvitop_sample.txt")
    said = [m.message for m in ev.files[0].messages]
    assert any(
        m.endswith(
            "npu-smi info -t proc-mem of NPU 0: process 3233241 (VLLMWorker_TP) holds 55844 MB"
        )
        for m in said
    )
    assert not any("npu-smi info -l" in m for m in said)


def test_cudas_bandwidth_test_is_read_and_slow_pinned_copies_warned() -> None:
    ev = _load(
        "cuda_bandwidthtest_p100_pcie_remote_numa1_h2d_3.8gbs_d2h_2.5gbs_gearshifft82_cut.txt"
    )
    # cut in its Device to Device block, before "Result ="
    assert ev.files[0].formats == ["bandwidth_test"] and ev.files[0].status == "partial"
    (run,) = ev.gpu_copy
    assert run["devices"] == [{"index": 0, "name": "Tesla P100-PCIE-16GB"}]
    assert [(m["title"], m["rows"]) for m in run["matrices"]] == [
        ("Host to Device (PINNED)", {"33554432": {"bandwidth": 3783.4}}),
        ("Device to Host (PINNED)", {"33554432": {"bandwidth": 2539.2}}),
    ]
    assert [(c["kind"], c["gbytes_s"]) for c in run["host_copy_slow"]] == [
        ("Host to Device", 3.78),
        ("Device to Host", 2.54),
    ]
    findings = builtin_findings({"evidence.gpu_copy": ev.gpu_copy}, "nccl")
    assert findings["evidence-host-copy-slow"].severity == "warning"


def test_mlxlinks_operational_info_is_read_as_an_rdma_port() -> None:
    ev = _load("mlxlink_spectrum_msn2410_port1_active_25gbe_firecode_prompt_sonic265_cut.txt")
    (port,) = ev.hca_ports
    assert (port["ca"], port["port"], port["tool"], port["state"], port["active"]) == (
        "/dev/mst/mt52100_pci_cr0", 1, "mlxlink", "Active", True,
    )  # fmt: skip
    assert (port["physical_state"], port["rate_gbps"], port["link_layer"]) == (
        "LinkUp", 25.0, "Ethernet",
    )  # fmt: skip
    findings = builtin_findings({"evidence.hca_ports": ev.hca_ports}, "nccl")
    assert "evidence-hca-port-not-active" not in findings


def test_a_server_id_that_is_a_devices_address_is_said() -> None:
    ev = _load("rank_table_v10_1srv_8p_server_id_eq_dev0_ip_host_nic_reserve_jittorinfer.json")
    said = [m.message for m in ev.files[0].messages]
    assert any("server_id 192.168.20.191 is also the device_ip of device 0:" in m for m in said)


def test_ncclcommensureready_warning_is_a_consequence_naming_the_ranks_that_closed_first() -> None:
    ev = _load(
        "trtllm1039_mpirun_attempt_to_use_communicator_allreduce_plugin_unknown_result_cut.log"
    )
    warns = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    assert [(w["pid"], w["device"]) for w in warns] == [(390729, 2), (390727, 0)]
    for w in warns:
        assert w["exception_type"].startswith("a consequence: the communicator's earlier operation")
    # only closes logged before a warning count (after it they are the teardown): process 390727
    # saw local ranks 3 and 1 close (lines 5 and 7) before its warning on line 10
    assert "closed their connection" not in warns[0]["exception_type"]
    assert (
        "local rank(s) 3, 1 closed their connection to this process before this warning"
        in warns[1]["exception_type"]
    )
