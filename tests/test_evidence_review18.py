"""The eighteenth review's findings on review 17's mends and round O's readings (inputs in
tests/data/review18, written from the formats named in tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor.evidence.load import EvidenceFacts, load_paths
from tests.conftest import DATA
from tests.rules_facts import finding_items

REVIEW = DATA / "review18"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def _findings(ev: EvidenceFacts, backend: str = "nccl") -> dict[str, list[str]]:
    return finding_items(
        {
            "evidence.failures": ev.failures,
            "evidence.dcgm_diags": ev.dcgm_diags,
            "evidence.benchmarks": ev.benchmarks,
            "evidence.gpu_copy": ev.gpu_copy,
            "evidence.npu_ports": ev.npu_ports,
        },
        backend,
    )


def test_an_nvml_gpu_is_lost_is_the_gpus_fault_and_the_run_is_not_complete() -> None:
    ev = _load("nvb01_gpu_lost_after_two_tests.txt")
    (run,) = ev.gpu_copy
    assert run["tool_errors"] == [] and run["failed"][0]["message"].startswith(
        "NVML_ERROR: [GPU is lost]"
    )
    assert run["complete"] is False
    found = _findings(ev)
    assert "evidence-gpu-copy-test-failed" in found
    assert "evidence-gpu-copy-tool-error" not in found


def test_uncorrectable_registers_outrank_another_records_firmware_word() -> None:
    ev = _load("aer01_two_ghes_records_then_queued_aer_prints.txt")
    (gpu,) = [f for f in ev.failures if "nvidia 0000:3b:00.0" in f["exception_type"]]
    assert gpu["kind"] == "pcie_aer_nonfatal"
    assert "evidence-pcie-aer-errors" in _findings(ev)


def test_a_firmware_records_lines_are_no_programs_error_line() -> None:
    ev = _load("aer04_firmware_first_one_corrected_syslog.txt")
    assert [f["kind"] for f in ev.failures] == ["pcie_aer_corrected_few"]
    assert "evidence-log-error" not in _findings(ev)


def test_an_older_kernels_prefixed_firmware_report_takes_its_device_from_the_record() -> None:
    ev = _load("aer05_kernel3x_cper_prefix_form_fatal.txt")
    # (the fatal error, then the kernel's panic on it)
    aer, panic = ev.failures
    assert (aer["kind"], panic["kind"]) == ("pcie_aer_fatal", "kernel_panic")
    assert panic["exception_type"].startswith("the kernel panicked: Fatal hardware error!")
    assert "PCIe error on 0000:3b:00.0" in aer["exception_type"]


def test_asys_status_reads_a_310ps_ddr_rows() -> None:
    ev = _load("asys01_status_310p_device3_alarm_ddr.txt")
    (chip,) = ev.npu_chips
    assert (chip["device"], chip["health"]) == (3, "Alarm")
    assert (chip["memory_used_mb"], chip["memory_total_mb"]) == (43012, 44280)


def test_a_json_health_report_after_its_command_line_is_read() -> None:
    ev = _load("dcgm01_health_json_after_prompt.txt")
    (failed,) = ev.dcgm_diags[0]["failed"]
    assert failed["name"] == "NVLINK system"


def test_dcgm_2_3s_health_code_on_the_entity_row_is_no_gpu_id() -> None:
    ev = _load("dcgm03_health_v23_entity_row_is_health_code.txt")
    checks = ev.dcgm_diags[0]["checks"]
    # (its message names the GPU: review 19 reads it from there)
    assert checks[0]["gpus"].startswith("GPU: 5 (named by its message; DCGM before 2.4")
    # the entity's failure DCGM 2.3 left out of its rows is the overall health's
    assert ("Overall Health", "Fail") in [(c["name"], c["result"]) for c in checks]


def test_driver_lines_naming_no_device_are_one_kind_with_their_count() -> None:
    ev = _load("drv01_devmm_alloc_failed_no_device_six_lines.txt")
    (err,) = ev.failures
    assert err["exception_type"].endswith("6 reports")


def test_one_ranks_vnic_note_is_not_called_the_misconfiguration() -> None:
    ev = _load("hccl02_vnic_note_one_rank_only.log")
    (err,) = ev.failures
    assert "compare the peer's phySuperPodId" in err["exception_type"]


def test_ibstats_ibpanic_alone_is_read_as_its_failure() -> None:
    ev = _load("ib01_ibpanic_only.txt")
    assert ev.files[0].status == "read" and not ev.hca_ports
    (gone,) = ev.failures
    assert gone["kind"] == "rdma_device_unreadable" and gone["line"] == 1
    assert "RDMA device mlx5_8" in gone["exception_type"]


def test_nccl_2_4_2s_net_cu_return_is_read() -> None:
    ev = _load("nccl01_v242_net_cu_socket_cut.log")
    assert [f["kind"] for f in ev.failures] == ["nccl_call_failure"]


def test_twin_headers_after_a_prompts_mpirun_are_two_lone_processes() -> None:
    ev = _load("nccltests01_prompt_mpirun_twin_headers_cut.txt")
    assert ev.benchmarks[0]["solo_hosts"] == ["hw14", "a host it does not list"]


def test_a_device_lost_after_it_was_ready_is_a_driver_error_not_start_up() -> None:
    ev = _load("npu01_lost_after_ready_then_reset.txt")
    assert [f["kind"] for f in ev.failures] == ["npu_driver_error"]


def test_hccps_last_tls_line_of_a_device_is_its_state() -> None:
    ev = _load("tls01_device0_switched_off_between_runs.log")
    assert [(p["device"], p["tls_enabled"]) for p in ev.npu_ports] == [(0, False), (1, False)]
    assert "evidence-npu-tls-mismatch" not in _findings(ev, "hccl")


def test_pdsh_prefixed_tls_lines_are_each_nodes_port() -> None:
    ev = _load("tls02_pdsh_two_nodes_differ.log")
    assert [(p["host"], p["device"], p["tls_enabled"]) for p in ev.npu_ports] == [
        ("node-a01", 0, True),
        ("node-a02", 0, False),
    ]
    assert "evidence-npu-tls-mismatch" in _findings(ev, "hccl")
