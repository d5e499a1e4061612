"""Outputs of round AA's held-out evaluation (sets 357-358; tests/data/evidence_heldout_51,
sources in tests/data/SOURCES.md) that the advisor read wrong or not at all before this change."""

from __future__ import annotations

from functools import partial

from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_51"


_load = partial(heldout.load, HELDOUT)


def test_nccls_last_connect_retry_is_a_failed_connect() -> None:
    ev = _load(
        "llamafactory8045_nccl_info_socketpollconnect_no_route_to_host_retries_26_to_34_of_34_cut.log"
    )
    (retry,) = ev.failures
    assert (retry["code"], retry["host"], retry["line"]) == ("exhausted", "zgiot", 9)
    assert retry["exception_type"] == "No route to host (retries used up: 34 of 34)"
    findings = builtin_findings({"evidence.failures": ev.failures}, "nccl")
    assert findings["evidence-nccl-connect-exhausted"].severity == "critical"
    assert "evidence-nccl-connect-retry" not in findings


def test_an_xid_that_needs_a_reset_is_a_fault() -> None:
    ev = _load(
        "ogkm829_dmesg_xid120_gsp_task_exception_store_access_page_fault_pci_06_riscv_dump_cut.txt"
    )
    (xid,) = [e for e in ev.failures if e["code"] == "120"]
    assert xid["kind"] == "gpu_driver_fault" and xid["code_name"].startswith("GSP error")


def test_nvidia_smi_610s_banner_gives_the_driver_and_cuda() -> None:
    ev = _load("sglang27487_nvidia_smi_610_kmd_version_cuda_umd_header_b200_gpu0_gpu1_cut.txt")
    assert {(g["driver"], g["cuda"]) for g in ev.gpus} == {("610.43.02", "13.3")}


def test_a_core_exception_with_an_smmu_fault_is_the_devices_not_hccls() -> None:
    ev = _load(
        "vllm_ascend14469_a3_plog_smmu_fault_aivector_mte_ddr_out_of_range_dev7_chip3_die1_"
        "backtick_cut.log"
    )
    (fault,) = ev.failures
    assert (fault["kind"], fault["device"]) == ("npu_device_exception", 7)
    said = fault["exception_type"]
    assert "fftsplus aivector error exception on core 7" in said
    # the copy cut the runtime's words: said as far as they go, marked
    assert "(The DDR address of the MTE instruction is ...)" in said and "SMMU fault" in said
    findings = builtin_findings({"evidence.failures": ev.failures}, "hccl")
    assert "evidence-npu-device-exception" in findings
    assert "evidence-hccl-plog-error" not in findings


def test_a_failed_hccl_call_names_the_cann_reason_under_it() -> None:
    ev = _load(
        "llamafactory5638_910b3_cann701_ec0010_tbe_module_missing_err02200_device1_rank1_cut.log"
    )
    (call,) = [f for f in ev.failures if f["kind"] == "hccl_call_failure"]
    assert (
        "the reason CANN logged under it: EC0010 (Failed to import Python module" in call["message"]
    )
    findings = builtin_findings({"evidence.failures": ev.failures}, "hccl")
    (line,) = findings["evidence-hccl-other-error"].items
    assert "set_env.sh" in line


def test_a_cann_codes_traceback_names_the_runtime_call_that_failed() -> None:
    ev = _load(
        "llamacpp16695_300i_duo_310p_cann_el0003_rtmemcpyasync_107017_dma_phys_device0_cut.log"
    )
    (code,) = ev.failures
    assert (code["code"], code["call"]) == ("EL0003", "rtMemcpyAsync")
    assert code["exception_type"] == (
        "rtMemcpyAsync returned 107017 (ACL_ERROR_RT_INVALID_HANDLE): driver error:invalid handle, "
        "after 'Convert memory address from virtual to dma physical failed, retCode=0x7020014'"
    )
    findings = builtin_findings({"evidence.failures": ev.failures}, "hccl")
    (line,) = findings["evidence-hccl-other-error"].items
    assert "the call that failed under it: rtMemcpyAsync returned 107017" in line


def test_an_nhc_checks_indented_lines_are_part_of_its_message() -> None:
    ev = _load(
        "azhc162_nhc_check_gpu_bw_p2p_256_lt_335_and_check_nvlink_status_gpu0_5_links_inactive_"
        "h100_pcie.txt"
    )
    nvlink = [f for f in ev.failures if f["code"] == "check_nvlink_status"]
    assert len(nvlink) == 1 and len(ev.failures) == 3
    assert nvlink[0]["exception_type"].endswith(
        "Link 4: Inactive, Link 5: Inactive, Link 10: Inactive, Link 11: Inactive, Link 16: Inactive"
    )


def test_nvidia_smi_q_headers_driver_and_the_gpus_p_state_are_read() -> None:
    ev = _load(
        "cubecos312_nvidia_smi_q_d_memory_performance_prompt_580_105_06_cuda_not_found_4gpus_p8_cut.txt"
    )
    # the vGPU host's "vGPU Driver Capability" section above the first GPU is the header's
    (gpu,) = ev.gpus
    assert (gpu["gpu"], gpu["bus_id"], gpu["perf"]) == (0, "00000000:42:00.0", "P8")
    # "CUDA Version : Not Found" is no version
    assert (gpu["driver"], gpu["cuda"]) == ("580.105.06", "")


def test_ibstats_abort_on_a_listed_device_is_a_warning() -> None:
    ev = _load(
        "gpud752_ibstat_partial_elided_mlx5_7_active_ib_200_then_ibpanic_mlx5_8_stat_failed.txt"
    )
    assert [(p["ca"], p["state"]) for p in ev.hca_ports] == [("mlx5_7", "Active")]
    (gone,) = ev.failures
    assert (gone["kind"], gone["line"]) == ("rdma_device_unreadable", 20)
    findings = builtin_findings({"evidence.failures": ev.failures}, "nccl")
    assert findings["evidence-rdma-device-unreadable"].severity == "warning"
