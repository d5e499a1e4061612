"""The seventeenth review's findings on round N's readings (inputs in tests/data/review17,
written from the formats named in tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor.evidence.load import EvidenceFacts, load_paths
from tests.conftest import DATA
from tests.rules_facts import finding_items

REVIEW = DATA / "review17"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def _findings(ev: EvidenceFacts, backend: str = "nccl") -> dict[str, list[str]]:
    return finding_items(
        {
            "evidence.failures": ev.failures,
            "evidence.dcgm_diags": ev.dcgm_diags,
            "evidence.benchmarks": ev.benchmarks,
        },
        backend,
    )


def _kinds(ev: EvidenceFacts) -> dict[str, dict]:
    return {f["kind"]: f for f in ev.failures}


def test_kernel_6_8s_correctable_and_uncorrectable_words_are_read() -> None:
    ev = _load("aer01_kernel68_correctable_uncorrectable.txt")
    kinds = _kinds(ev)
    assert kinds["pcie_aer_fatal"]["exception_type"].startswith(
        "Uncorrectable (Fatal) PCIe error on nvidia 0000:c1:00.0 [10de:2330]: Transaction Layer"
    )
    assert "[14] CmpltTO" in kinds["pcie_aer_fatal"]["exception_type"]
    assert "pcie_aer_corrected_few" in kinds
    assert "evidence-pcie-aer-fatal" in _findings(ev)


def test_a_cxl_ports_bus_error_is_read_as_an_aer_report() -> None:
    ev = _load("aer02_cxl_bus_error_correctable.txt")
    assert ev.files[0].formats == ["log"]
    assert [f["kind"] for f in ev.failures] == ["pcie_aer_corrected_few"]


def test_a_firmware_first_report_takes_its_severity_from_the_firmwares_record() -> None:
    ev = _load("aer03_cper_firmware_first_fatal_gpu.txt")
    (aer,) = ev.failures
    # cper_severity_to_aer: recoverable is an uncorrectable non-fatal error
    assert aer["kind"] == "pcie_aer_nonfatal"
    assert aer["exception_type"] == (
        "recoverable (firmware-first) PCIe error on nvidia 0000:3b:00.0: Transaction Layer, "
        "Requester ID ([14] CmpltTO)"
    )
    assert "evidence-pcie-aer-errors" in _findings(ev)


def test_a_lone_boot_rxerr_is_no_warning_and_a_rate_limited_bridge_is_at_least_what_is_shown() -> (
    None
):
    ev = _load("aer05_nic_one_rxerr_and_ratelimited_bridge.txt")
    nic, bridge = ev.failures
    assert nic["kind"] == "pcie_aer_corrected_few" and "0000:86:00.0" in nic["exception_type"]
    assert bridge["kind"] == "pcie_aer_corrected"
    assert bridge["exception_type"].endswith(
        "at least 2 reports (and 4812 messages the kernel rate-limited before one of them)"
    )
    found = _findings(ev)
    assert len(found["evidence-pcie-aer-errors"]) == 1
    assert len(found["evidence-pcie-aer-corrected-few"]) == 1


def test_dcgm_healths_driver_system_is_a_failure_of_its_own() -> None:
    ev = _load("dcgm02_health_power_then_driver_reset.txt")
    checks = {c["name"]: c for c in ev.dcgm_diags[0]["checks"]}
    assert checks["Driver"]["result"] == "Fail"
    assert checks["Driver"]["details"] == [
        "GPU 3 requires a reset to recover from a fault. Recovery action: 1 (GPU_RESET)."
    ]
    # the power warning keeps its own message only
    assert checks["Power system"]["details"] == [
        "Detected clocks event due to power violation in GPU 3."
    ]
    assert "evidence-dcgm-diag-failed" in _findings(ev)


def test_an_nvswitchs_internal_error_system_is_its_failure() -> None:
    ev = _load("dcgm03_health_nvswitch_internal_error.txt")
    (failed,) = ev.dcgm_diags[0]["failed"]
    assert failed["gpus"] == "Switch: 1"
    assert failed["name"] == "NvSwitch system (DCGM prints 'Internal error')"
    assert "evidence-dcgm-diag-failed" in _findings(ev)


def test_dcgmi_healths_json_form_is_read() -> None:
    ev = _load("dcgm04_health_json.txt")
    assert ev.files[0].formats == ["dcgmi_health"]
    (failed,) = ev.dcgm_diags[0]["failed"]
    assert (failed["name"], failed["gpus"]) == ("NVLINK system", "GPU: 0")
    assert failed["details"] == ["GPU 0's NvLink link 3 is currently down"]


def test_an_entity_of_another_group_is_named_by_its_own_group() -> None:
    ev = _load("dcgm05_health_cpu_core_entity_after_gpu.txt")
    assert [c["gpus"] for c in ev.dcgm_diags[0]["warned"]] == ["GPU: 0", "CPU_CORE: 5"]


def test_a_run_that_died_before_its_device_list_then_a_whole_run_is_no_pair_of_lone_processes() -> (
    None
):
    ev = _load("nccl02_two_runs_same_params_no_prompt.txt")
    assert all(not b["solo_hosts"] for b in ev.benchmarks)
    assert any("the run stopped before its first size" in m.message for m in ev.files[0].messages)
    assert "evidence-nccl-tests-solo-runs" not in _findings(ev)


def test_a_device_asked_for_before_the_driver_set_it_ready_is_no_fault() -> None:
    ev = _load("npu01_startup_not_initialized_then_ready.txt")
    assert [(f["kind"], f["device"]) for f in ev.failures] == [("npu_driver_startup", 4)]
    found = _findings(ev, "hccl")
    assert "evidence-npu-driver-error" not in found and "evidence-log-error" not in found
    assert "evidence-npu-driver-startup" in found


def test_physical_ids_keep_two_devices_apart() -> None:
    ev = _load("npu02_phys_id_words.txt")
    assert [f["exception_type"].split(":")[0] for f in ev.failures] == [
        "physical device 3",
        "physical device 5",
    ]


def test_checktimeouts_exception_line_alone_is_a_time_out_and_torch_npus_frame_is_not() -> None:
    ev = _load("wd02_checktimeout_line_only.log")
    assert [f["kind"] for f in ev.failures] == ["watchdog_timeout"]
    # torch_npu's checkTimeout throws a std::runtime_error: no stack, so this frame is another
    # error's
    ev = _load("wd03_mangled_or_npu_frame.log")
    assert not [f for f in ev.failures if f["kind"] == "watchdog_timeout"]
