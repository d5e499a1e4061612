"""Outputs the two-hundred-thirty-ninth held-out evaluation misread (tests/data/evidence_heldout_42,
sources in tests/data/SOURCES.md): npu-smi's board and per-chip health answers, Ascend 950's UB
ping, a document's placeholder device asked twice, MindCluster's fault-diagnosis report."""

from __future__ import annotations

from advisor.evidence.load import load_paths, load_text
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_42"


def _load(name: str):  # type: ignore[no-untyped-def]
    return load_paths([HELDOUT / name])


def test_a_boards_faulty_chip_count_is_read_as_its_health() -> None:
    ev = _load("npu_smi_info_t_board_i0_atlas200idka2_faulty_chip_count_0_hiascend_doc.txt")
    (report,) = ev.files
    assert report.status == "read" and ev.npu_chips == []
    (note,) = report.messages
    assert "npu-smi info -t board of NPU 0: 0 of 1 chip(s) faulty" in note.message
    faulty = (
        HELDOUT / "npu_smi_info_t_board_i0_atlas200idka2_faulty_chip_count_0_hiascend_doc.txt"
    ).read_text()
    (chip,) = load_text(
        faulty.replace("Faulty Chip Count              : 0", "Faulty Chip Count              : 1"),
        "b.txt",
    ).npu_chips
    assert (chip["npu"], chip["health"]) == (0, "1 of 1 chip(s) faulty")


def test_each_chips_health_block_of_one_npu_is_its_own() -> None:
    ev = _load("npu_smi_info_t_health_i0_chip0_ok_then_mcu_block_ok_hiascend_doc.txt")
    got = [(c["npu"], c["chip"], c["name"], c["health"]) for c in ev.npu_chips]
    assert got == [(0, 0, "", "OK"), (0, None, "MCU", "OK")]


def test_ascend_950s_ub_ping_is_a_ping_of_its_device() -> None:
    ev = _load("hccn_tool_t_ub_ping_i0_ascend950_6_of_6_driver_doc.txt")
    (port,) = ev.npu_ports
    assert (port["device"], port["ping_loss_pct"]) == (0, 0.0)


def test_a_placeholder_device_asked_twice_is_one_port_whose_change_is_said() -> None:
    ev = _load(
        "hccn_tool_placeholder_device_link_down_net_health_fault_recovery_success_mindcluster_doc.txt"
    )
    (port,) = ev.npu_ports
    assert (port["device"], port["net_health"]) == (None, "Success")
    (note,) = [m for m in ev.files[0].messages if "answered" in m.message]
    assert "Fault before and Success here" in note.message and note.line == 5


def test_ascend_fds_report_gives_its_suspected_fault_not_the_key_log_it_quotes() -> None:
    name = "ascend_fd_diag_report_comp_network_custom_05_optical_not_present_device_0_4_mindcluster_quick_start_cut.txt"
    ev = _load(name)
    (report,) = ev.files
    assert report.formats == ["faultdiag"] and ev.npu_ports == []  # the quoted hccn_tool line
    (fault,) = ev.failures
    assert (fault["kind"], fault["code"], fault["line"]) == (
        "faultdiag_fault",
        "Comp_Network_Custom_05",
        27,
    )
    assert (
        "NPU光模块不在位" in fault["exception_type"]
        and "parse_out device-4" in fault["exception_type"]
    )
    assert "evidence-faultdiag-fault" in builtin_findings(
        {"evidence.failures": ev.failures}, "hccl"
    )
