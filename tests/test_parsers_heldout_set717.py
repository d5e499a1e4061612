"""Outputs of round VVVV's held-out evaluation (set 717, NVIDIA tool outputs) that the advisor
read wrong or in part before this change (tests/data/evidence_heldout_82, sources in
tests/data/SOURCES.md): an nvidia-mig-parted apply whose fatal "Error applying MIG
configuration" line was not read (only its reset step's refusals, credited to nvidia-smi -r); a
MIG compute-instance destroy refused "in use by another client", quoted by its summary line
without the GPU, GPU instance and compute instance its first line names; and an OCI HPC active
health check whose SDC test crashed (WARNING lines) read as a log saying no error."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_82"

MIG_PARTED = "nvidia_mig_parted_apply_all_balanced_gpu_reset_failed_4_gpus_in_use_nvidia_drm_exit_255_migparted181.txt"
MIG_DCI = "nvidia_smi_mig_dci_h100_gpu0_gi3_ci0_in_use_by_another_client_dcgm95.txt"
OCI_HC = "oci_hpc_active_healthcheck_bm_gpu_b4_8_nccl_230_gbps_fryer_ok_sdc_test_crashed_no_numpy_oci_hpc_docs.log"

_write = partial(heldout.load_copy, name="copy.txt")


_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


# --- nvidia-mig-parted apply ended fatally -------------------------------------------------------


def test_a_fatal_mig_parted_apply_is_not_ready_naming_the_gpus_it_could_not_reset() -> None:
    ev = load_paths([HELDOUT / MIG_PARTED])
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert ("evidence-mig-config-failed", "critical") in heldout.above_info(outcome)
    (item,) = heldout.items(outcome, "evidence-mig-config-failed")
    assert item.startswith("nvidia-mig-parted did not apply the MIG configuration all-balanced: ")
    assert "error resetting all GPUs: exit status 255" in item and item.endswith("line 10)")
    for bus, line in (("01", 4), ("47", 5), ("81", 6), ("C2", 7)):
        assert f"00000000:{bus}:00.0 (In use by another client, line {line})" in item
    refusals = heldout.items(outcome, "evidence-gpu-driver-error")
    assert len(refusals) == 4
    assert all(
        r.startswith("nvidia-mig-parted's GPU reset (it runs nvidia-smi -r)") for r in refusals
    )


def test_a_bare_nvidia_smi_reset_refusal_stays_nvidia_smis_and_a_warning(tmp_path: Path) -> None:
    # (the same refusal without mig-parted's command and fatal line: nvidia-smi -r's own)
    lines = _text(MIG_PARTED).splitlines()
    ev = _write(tmp_path, "\n".join(lines[2:9]) + "\n")
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert "evidence-mig-config-failed" not in [r for r, _ in heldout.above_info(outcome)]
    assert all(
        r.startswith("nvidia-smi -r could not reset")
        for r in heldout.items(outcome, "evidence-gpu-driver-error")
    )


def test_mig_parted_key_value_fatal_is_read_and_names_its_config(tmp_path: Path) -> None:
    text = (
        _text(MIG_PARTED)
        .replace("-c all-balanced", "-c all-1g.10gb")
        .replace(
            "FATA[0008] Error applying MIG configuration with hooks: error resetting all GPUs: exit status 255",
            'time="2024-12-07T02:19:30Z" level=fatal msg="Error applying MIG configuration with hooks: '
            'error resetting all GPUs: exit status 255"',
        )
    )
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-mig-config-failed")
    assert "MIG configuration all-1g.10gb: Error applying" in item


# --- nvidia-smi mig -dci refused -----------------------------------------------------------------


def test_a_refused_compute_instance_destroy_names_gpu_gi_and_ci_at_line_1() -> None:
    ev = load_paths([HELDOUT / MIG_DCI])
    level, outcome = heldout.imported(ev)
    # warning: the GPU is not faulty and the instance goes on serving; the layout asked for
    # was not made (NVML_ERROR_IN_USE)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-gpu-driver-error", "warning")]
    (item,) = heldout.items(outcome, "evidence-gpu-driver-error")
    assert item.startswith(
        "MIG destroy refused: compute instance 0 of GPU instance 3 on GPU 0: in use by another client"
    )
    assert item.endswith("line 1)")


def test_another_gpu_and_a_gpu_instance_destroy_are_named_their_own(tmp_path: Path) -> None:
    text = _text(MIG_DCI).replace(
        "from gpu  0 gpu instance id  3", "from gpu  5 gpu instance id  7"
    )
    text += "unable to destroy gpu instance id  7 from gpu  5: in use by another client\n"
    _, outcome = heldout.imported(_write(tmp_path, text))
    items = heldout.items(outcome, "evidence-gpu-driver-error")
    assert items[0].startswith("MIG destroy refused: compute instance 0 of GPU instance 7 on GPU 5")
    assert items[1].startswith("MIG destroy refused: GPU instance 7 on GPU 5")


# --- OCI HPC active health check -----------------------------------------------------------------


def test_an_oci_health_check_whose_sdc_test_crashed_is_ready_with_warnings() -> None:
    ev = load_paths([HELDOUT / OCI_HC])
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-health-check-not-run", "warning")]
    (item,) = heldout.items(outcome, "evidence-health-check-not-run")
    assert item.startswith(
        "gpu-3505: GPU Silent Data Corruption test did not run to a result: GPU SDC Test crashed: "
        "Required dependencies not available: No module named 'numpy' (line 7)"
    )
    assert "BM.GPU.B4.8" in item and item.endswith("line 8)")
    notes = [n for line, n in _said(ev) if line == 5]
    assert any(
        "gpu-3505 NCCL test succeeded (avg bus bandwidth 230.167 GB/s) (line 5)" in n
        and "GPU Fryer test succeeded (line 6)" in n
        for n in notes
    )


def test_a_healthy_twin_of_the_health_check_stays_ready(tmp_path: Path) -> None:
    lines = _text(OCI_HC).splitlines()
    sdc_ok = (
        "2026-01-16 15:41:20,001 - INFO - gpu-3505 - GPU Silent Data Corruption Test Succeeded: "
        "GPU SDC Test Succeeded: All 8 GPU(s) passed all tests"
    )
    healthy = [*lines[:6], sdc_ok, *lines[8:]]
    level, outcome = heldout.imported(_write(tmp_path, "\n".join(healthy) + "\n"))
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_a_test_that_ran_and_failed_on_another_host_is_critical(tmp_path: Path) -> None:
    # (ERROR "Test Failed": the test ran and failed, a drain reason in active_healthcheck.py)
    text = (
        _text(OCI_HC)
        .replace("gpu-3505", "gpu-0117")
        .replace(
            "INFO - gpu-0117 - GPU Fryer Test Succeeded: GPU Fryer test succeeded",
            "ERROR - gpu-0117 - GPU Fryer Test Failed: GPU 3 below expected TFLOPS",
        )
    )
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-nhc-failure")
    assert item.startswith("gpu-0117: GPU Fryer test failed: GPU 3 below expected TFLOPS")
    (crash,) = heldout.items(outcome, "evidence-health-check-not-run")
    assert crash.startswith("gpu-0117: ")
