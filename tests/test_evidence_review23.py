"""The twenty-third review's findings on round Y's and the review-22 readings (inputs in
tests/data/review23, written by the review from the formats named in tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import logs
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

REVIEW = DATA / "review23"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def _findings(ev: EvidenceFacts, backend: str = "hccl") -> dict[str, object]:
    facts = {
        "evidence.failures": ev.failures,
        "evidence.gpu_copy": ev.gpu_copy,
        "evidence.npu_ports": ev.npu_ports,
    }
    return dict(builtin_findings(facts, backend))


def test_a_fabric_manager_journal_alone_is_judged_without_a_backend() -> None:
    # its rules apply whatever backend the evidence names (a journal names none: an Ascend
    # backend is no reason to skip it either)
    ev = _load("f17b_fabricmanager_start_script_failed.log")
    (fm,) = ev.failures
    assert (fm["kind"], fm["host"], fm["exit_code"]) == ("fabric_manager_failed", "dgx-h100-03", 1)
    assert "it is version 535.129.03, the driver 535.104.05" in fm["exception_type"]
    assert "evidence-fabric-manager-failed" in _findings(ev)


def test_a_failed_units_systemctl_status_is_read() -> None:
    # systemd's "× nvidia-fabricmanager.service" and "Active: failed (Result: exit-code)"
    (fm,) = _load("f09_fabricmanager_status_failed_no_journal.txt").failures
    assert fm["kind"] == "fabric_manager_failed"
    assert fm["exception_type"] == "the Fabric Manager service is failed (systemctl status)"


def test_a_document_quoting_loader_errors_is_no_failed_program() -> None:
    ev = _load("f16_faq_quotes_loader_errors.md")
    assert not [e for e in ev.failures if e["kind"] == "library_missing"]


def test_a_uce_that_ended_the_process_before_a_restart_is_no_repair() -> None:
    ev = _load("f01_uce_crash_then_restart_from_checkpoint.log")
    kinds = {e["kind"] for e in ev.failures}
    assert "npu_device_fault" in kinds and "npu_device_fault_repaired" not in kinds


def test_a_memory_record_without_its_severity_is_no_uncorrected_error() -> None:
    ev = _load("f10_cper_memory_error_grep_no_severity.log")
    (memory,) = ev.failures
    assert memory["code_name"] == "unknown" and memory["line"] > 0
    assert memory["exception_type"].startswith(
        "the platform firmware reported a memory error (its severity is not in the copy)"
    )
    assert "DIMM not identified (DMI handle 0x0000)" in memory["exception_type"]
    findings = _findings(ev)
    assert "evidence-firmware-memory-error" not in findings
    assert "evidence-firmware-memory-corrected" in findings


def test_a_code_table_of_fault_names_is_no_device_fault() -> None:
    ev = _load("f02_npu_fault_code_table_doc.txt")
    assert not [e for e in ev.failures if e["kind"].startswith("npu_device_fault")]


def test_time_outs_in_two_groups_are_not_one_groups_lagging_rank() -> None:
    ev = _load("f04_lagging_two_groups.log")
    (tl,) = ev.timelines
    assert tl.lagging_seq is None and "had completed" not in tl.summary


def test_another_threads_socket_failure_is_not_this_links_cause() -> None:
    ev = _load("f11_hccl_transport_cause_other_thread.log")
    links = {
        (e["remote_rank"], e["code"]) for e in ev.failures if e["kind"] == "hccl_transport_failure"
    }
    assert links == {(7, None), (0, "13")}


def test_a_loops_device_index_survives_one_differing_answer() -> None:
    ev = _load("f05_loop_devices_8_to_15_one_down.txt")
    assert [(p["device"], p["link"]) for p in ev.npu_ports if p["link"] != "UP"] == [(11, "DOWN")]


def test_one_gpus_waived_device_to_device_test_says_nothing_of_peer_access() -> None:
    ev = _load("f14_nvbandwidth_single_gpu_d2d_waived.txt")
    assert ev.gpu_copy[0]["waived"] and "evidence-gpu-copy-test-waived" not in _findings(ev, "nccl")


def test_perftests_newer_completion_error_words_are_read() -> None:
    (port,) = _load("f06_perftest_completion_error_new_format_2025.txt").hca_ports
    assert port["perftest"]["failed"] == (
        "Completion with error at client (IBV_WC_RETRY_EXC_ERR, vendor syndrome 0x81), 0 of 128"
        " work requests completed"
    )


def test_the_new_line_regexes_read_long_lines_in_one_pass() -> None:
    # a lazy group before \s*$ retried at every space (200,000 spaces took minutes)
    spaces = " " * 200_000
    text = "".join(
        line + spaces + "|\n"
        for line in (
            "#  Rank  0 Group  0 Pid    100 on      node1 device  0 [0x81] NVIDIA A100-PCIE-40GB",
            "[5.0] {1}[Hardware Error]:   node: 1 card: 0 module: 3 rank: 0",
            "[5.0] {1}[Hardware Error]:   DIMM location: CPU0_DIMM_A1",
            "kubelet[1]: E0101 endpoint.go:106] listAndWatch ended unexpectedly for device plugin"
            " nvidia.com/gpu with error rpc error",
            "npu-smi " * 10 + "oops",
        )
    )
    (lost,) = [e for e in logs.parse(text).events if e.kind == "device_plugin_lost"]
    assert lost.exception_type == (
        "the device plugin of nvidia.com/gpu stopped serving kubelet (rpc error |)"
    )


def test_npu_smis_board_compatibility_nok_is_an_unhealthy_chip() -> None:
    ev = _load("f13_npu_smi_t_board_compatibility_nok.txt")
    (chip,) = ev.npu_chips
    assert (chip["npu"], chip["health"]) == (
        0,
        "driver and firmware not compatible (Compatibility NOK)",
    )
    findings = builtin_findings({"evidence.npu_chips": ev.npu_chips}, "hccl")
    assert "evidence-npu-chip-health" in findings


def test_background_perftest_clients_keep_their_own_commands() -> None:
    # two clients sent to the background before either printed: each run its own port and peer
    ev = _load("f07_two_background_clients_two_devices.txt")
    runs = {p["ca"]: (p["port"], p["perftest"]["peer"]) for p in ev.hca_ports}
    assert runs["mlx5_4"] == (2, "clx-host-107")
    assert not any("the command is not in the file" in m.message for m in ev.files[0].messages)


def test_a_connect_failure_is_the_command_whose_server_and_port_it_names() -> None:
    ev = _load("f15_perftest_connect_fail_earlier_background_client.txt")
    (failed,) = [p for p in ev.hca_ports if p["perftest"]["failed"]]
    assert failed["ca"] == "mlx5_3"
    assert failed["perftest"]["failed"] == "Couldn't connect to clx-host-108:10000"
