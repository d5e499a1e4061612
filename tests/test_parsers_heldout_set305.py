"""Outputs of round N's held-out evaluation (tests/data/evidence_heldout_47, sources in
tests/data/SOURCES.md) that the advisor read wrong or not at all before this change."""

from __future__ import annotations

from advisor.evidence.load import EvidenceFacts, load_paths
from tests.conftest import DATA
from tests.rules_facts import finding_items

HELDOUT = DATA / "evidence_heldout_47"


def _load(name: str) -> EvidenceFacts:
    return load_paths([HELDOUT / name])


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
    assert set(kinds) == {"pcie_aer_corrected", "pcie_aer_fatal", "gpu_driver_fault"}
    # an older kernel's "id=0010(Receiver ID)" and its bit's long name, "(First)" taken off
    assert kinds["pcie_aer_fatal"]["exception_type"] == (
        "Uncorrected (Fatal) PCIe error on pcieport 0000:00:02.0 [8086:6f04]: Transaction "
        "Layer, Receiver ID ([5] Surprise Down Error)"
    )
    assert "Replay Timer Timeout" in kinds["pcie_aer_corrected"]["exception_type"]
    found = _findings(ev)
    assert {"evidence-pcie-aer-fatal", "evidence-pcie-aer-errors", "evidence-gpu-driver-fault"} <= (
        set(found)
    )


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
