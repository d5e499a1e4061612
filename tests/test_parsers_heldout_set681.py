"""Outputs of round PPPP's held-out evaluation (set 681, NVIDIA tool outputs) that the advisor
read wrong before this change (tests/data/evidence_heldout_76, sources in tests/data/SOURCES.md):
NVIDIA System Management's ``nvsm show health`` (a NIC's PCIe link at 2.5 GT/s where 8 GT/s is
expected, a Mellanox adapter missing from the PCI bus under an Informational check, a missing
disk controller and NVMe drive) and ``nvsm stress-test`` (GPU and PCIe Failed, or SKIPPED) had no
reader: "no supported format recognised". Each is now read with nvsm's own verdict and each
check or component that is not healthy named with its line."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, detect
from advisor.parsers import nvsm
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_76"

NIC_SPEED = "nvsm_show_health_23_12_dgx2_nic_35_00_0_link_speed_2_5gt_unhealthy_t3_nx_w0.txt"
NIC_MISSING = "nvsm_show_health_23_12_dgx2_missing_mellanox_nic_5d_00_0_informational_overall_healthy_t3_nx_w1.txt"
NVME = "nvsm_show_health_23_12_dgx2_missing_nvme_disk_controller_2f_00_0_unhealthy_t3_nx_w3.txt"
STRESS_FAILED = "nvsm_stress_test_dgx2_gpu_failed_pcie_failed_t3_nx_w1.txt"
STRESS_SKIPPED = "nvsm_stress_test_dgx2_gpu_skipped_pcie_skipped_cpu_mem_storage_pass_t3_nx_w0.txt"

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


def _failures(ev: EvidenceFacts) -> list[tuple[str, int, str]]:
    return [(f["kind"], f["line"], f["exception_type"]) for f in ev.failures]


# --- nvsm show health ---------------------------------------------------------------------------


def test_a_nic_link_below_its_expected_speed_is_named_with_nvsm_unhealthy_verdict() -> None:
    ev = _load(NIC_SPEED)
    assert ev.files[0].formats == ["nvsm"] and ev.files[0].status == "read"
    ((kind, line, said),) = _failures(ev)
    assert (kind, line) == ("nvsm_check_unhealthy", 132)
    assert said == (
        "NetworkAdapter link speed [0000:35:00.0][2.5GT/s]: Unhealthy (line 132): "
        "Expected value 8GT/s but detected 2.5GT/s (line 133)"
    )
    ((at, note),) = _said(ev)
    assert at == 301
    assert note == (
        "nvsm: nvsm show health 23.12.01: 199 healthy, 1 unhealthy of 200 checks; "
        "Overall system status is unhealthy (line 301)"
    )
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nvsm-health-unhealthy", "warning")]
    assert "0000:35:00.0" in heldout.items(outcome, "evidence-nvsm-health-unhealthy")[0]


def test_a_missing_mellanox_adapter_under_an_informational_check_is_not_passed_over() -> None:
    ev = _load(NIC_MISSING)
    ((kind, line, said),) = _failures(ev)
    assert (kind, line) == ("nvsm_check_attention", 15)
    assert said.startswith("Verify Network Adapters: Informational (line 15): ")
    assert "has Vendor: 0x0 when [0x15B3] was expected (line 17)" in said
    assert "Missing Network controller at PCI address 0000:5d:00.0' (line 19)" in said
    # nvsm's own overall status stays said as printed: healthy, 1 informational
    ((at, note),) = _said(ev)
    assert at == 300
    assert "197 healthy, 1 informational of 198 checks" in note
    assert note.endswith("Overall system status is healthy (line 300)")
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nvsm-health-attention", "warning")]


def test_a_missing_disk_controller_and_the_nvme_count_are_named() -> None:
    ev = _load(NVME)
    failures = _failures(ev)
    assert [(k, n) for k, n, _ in failures] == [
        ("nvsm_check_unhealthy", 13),
        ("nvsm_check_attention", 15),
        ("nvsm_check_unhealthy", 74),
    ]
    assert failures[0][2] == (
        "Verify disk controllers: Unhealthy (line 13): "
        "Missing disk controller at PCI address 0000:2f:00.0' (line 14)"
    )
    assert failures[1][2].endswith("Missing NVMe resource instance for 0000:2f:00.0 (line 16)")
    nvme = failures[2][2]
    assert nvme.startswith("Verify installed NVMe devices: Unhealthy (line 74): ")
    assert '"2" NVMe device(s) with capacity "1.0TB" (line 83)' in nvme
    assert '"7" NVMe device(s) with capacity "3.8TB" (line 84)' in nvme
    assert "16 NVMe device(s) with capacity 3.8TB (line 80)" in nvme
    # the next check's line (86) is not taken as one of the NVMe check's lines
    assert "(line 86)" not in nvme
    ((at, note),) = _said(ev)
    assert at == 307 and "2 unhealthy, 1 informational of 198 checks" in note
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert sorted(heldout.above_info(outcome)) == [
        ("evidence-nvsm-health-attention", "warning"),
        ("evidence-nvsm-health-unhealthy", "warning"),
    ]


def test_a_healthy_twin_stays_ready(tmp_path: Path) -> None:
    text = _text(NIC_SPEED)
    text = text.replace(
        "NetworkAdapter link speed [0000:35:00.0][2.5GT/s].................... Unhealthy\n"
        "    Expected value 8GT/s but detected 2.5GT/s\n",
        "NetworkAdapter link speed [0000:35:00.0][8GT/s]...................... Healthy\n",
    )
    text = text.replace("199 out of 200 checks are healthy", "200 out of 200 checks are healthy")
    text = text.replace("1 out of 200 checks are unhealthy", "0 out of 200 checks are unhealthy")
    text = text.replace("Overall system status is unhealthy", "Overall system status is healthy")
    ev = _write(tmp_path, text)
    assert ev.files[0].formats == ["nvsm"] and ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    ((_at, note),) = _said(ev)
    assert "200 healthy of 200 checks" in note


def test_another_device_unhealthy_on_another_node_is_named(tmp_path: Path) -> None:
    # a GPU's link width below x16 on the nx-w1 copy (the variant: another check, device, node)
    text = _text(NIC_MISSING).replace(
        "GPU link width [0000:b9:00.0][x16]................................... Healthy\n",
        "GPU link width [0000:b9:00.0][x8].................................... Unhealthy\n"
        "    Expected value x16 but detected x8\n",
    )
    assert text != _text(NIC_MISSING)
    ev = _write(tmp_path, text)
    kinds = [(k, s) for k, _n, s in _failures(ev)]
    assert kinds[0][0] == "nvsm_check_attention"  # the missing adapter, as before
    (unhealthy,) = [s for k, s in kinds if k == "nvsm_check_unhealthy"]
    line = next(
        n for n, row in enumerate(text.splitlines(), 1) if row.startswith("GPU link width [0000:b9")
    )
    assert unhealthy == (
        f"GPU link width [0000:b9:00.0][x8]: Unhealthy (line {line}): "
        f"Expected value x16 but detected x8 (line {line + 1})"
    )


def test_a_copy_with_only_the_unhealthy_summary_keeps_nvsm_verdict(tmp_path: Path) -> None:
    text = _text(NIC_SPEED)
    summary = text[text.index("Health Summary") :]
    ev = _write(tmp_path, summary)
    assert ev.files[0].formats == ["nvsm"]
    ((kind, line, said),) = _failures(ev)
    assert kind == "nvsm_check_unhealthy" and line == 10
    assert "the check that made it is not in the copy" in said


def test_a_check_line_is_read_from_its_end() -> None:
    assert nvsm._check_line(
        "Checking NVLink speed [GPU0 [0000:34:00.0] Link 0][25.781 GB/s]...... Healthy"
    ) == ("Checking NVLink speed [GPU0 [0000:34:00.0] Link 0][25.781 GB/s]", "Healthy")
    assert nvsm._check_line(
        "Check BMC sensor thresholds for chassis [Serial: 1574719000010] ..... Healthy"
    ) == ("Check BMC sensor thresholds for chassis [Serial: 1574719000010]", "Healthy")
    # prose ending in a state word without the dots is not a check line
    assert nvsm._check_line("The system is Healthy") is None


# --- nvsm stress-test ---------------------------------------------------------------------------


def test_a_failed_gpu_and_pcie_stress_is_not_ready() -> None:
    ev = _load(STRESS_FAILED)
    assert ev.files[0].formats == ["nvsm"] and ev.files[0].status == "read"
    assert _failures(ev) == [
        (
            "nvsm_stress_failed",
            15,
            "GPU: Failed (line 15); GPU_LOAD min 0, max 0, avg 0 % (line 28)",
        ),
        ("nvsm_stress_failed", 19, "PCIe: Failed (line 19)"),
    ]
    ((at, note),) = _said(ev)
    assert at == 2
    assert note.startswith(
        "nvsm: nvsm stress-test: PASS for CPU (line 16), Memory (line 17), Storage (line 18)"
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-nvsm-stress-failed", "critical")]


def test_a_skipped_gpu_and_pcie_stress_is_not_a_pass() -> None:
    ev = _load(STRESS_SKIPPED)
    assert [(k, n) for k, n, _ in _failures(ev)] == [
        ("nvsm_stress_skipped", 15),
        ("nvsm_stress_skipped", 19),
    ]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nvsm-stress-skipped", "warning")]


def test_an_all_pass_stress_twin_stays_ready(tmp_path: Path) -> None:
    text = (
        _text(STRESS_SKIPPED)
        .replace("GPU            SKIPPED", "GPU            PASS")
        .replace("PCIe           SKIPPED", "PCIe           PASS")
    )
    ev = _write(tmp_path, text)
    assert ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    ((_at, note),) = _said(ev)
    assert "GPU (line 15)" in note and "PCIe (line 19)" in note


def test_a_memory_failure_on_another_node_is_named(tmp_path: Path) -> None:
    text = (
        _text(STRESS_SKIPPED)
        .replace("nx-w0", "nx-w2")
        .replace("GPU            SKIPPED", "GPU            PASS")
        .replace("PCIe           SKIPPED", "PCIe           PASS")
        .replace("Memory         PASS", "Memory         Failed")
    )
    ev = _write(tmp_path, text)
    assert _failures(ev) == [("nvsm_stress_failed", 17, "Memory: Failed (line 17)")]
    level, _outcome = heldout.imported(ev)
    assert level == "NOT READY"


def test_the_signature_takes_nvsm_and_not_prose() -> None:
    assert detect(_text(NIC_SPEED)) == ["nvsm"]
    assert detect(_text(STRESS_FAILED)) == ["nvsm"]
    assert "nvsm" not in detect("We ran nvsm and the overall system status is unhealthy.\n")
