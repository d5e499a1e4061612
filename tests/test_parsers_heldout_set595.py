"""Outputs of round BBBB's held-out set 595 (Ascend tool outputs) the advisor read as no format at
all before this change (tests/data/evidence_heldout_64, sources in tests/data/SOURCES.md): Ascend
C's runtime refusing a kernel package built for another SoC than the device's, and verl's
environment dump (scripts/diagnose.py) that could not run npu-smi."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_64"

SOC = "cann_run_socversion_Ascend910B1_package_vs_Ascend310P3_device_vllm_ascend6676.txt"
VERL = "verl_env_info_npu_smi_unusable_cann9.0.1_hdk25.5.0_verl7416.txt"

SOC_LINE = (
    "the socversion Ascend910B1 of bin package does not match the current device socverison "
    "Ascend310P3. Please modify default socversion in run.sh or execute run.sh with socversion "
    "parameter."
)


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


# --- a kernel package built for another SoC ---------------------------------------------------


def test_a_kernel_package_built_for_another_soc_is_not_ready() -> None:
    ev = _load(SOC)
    assert ev.files[0].formats == ["log"]
    (failure,) = ev.failures
    assert failure["kind"] == "npu_kernel_soc_mismatch" and failure["line"] == 1
    assert failure["message"] == SOC_LINE
    assert "built for Ascend910B1, the device is Ascend310P3" in failure["exception_type"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-npu-kernel-soc-mismatch", "critical")]
    (item,) = heldout.items(outcome, "evidence-npu-kernel-soc-mismatch")
    assert SOC_LINE in item and "line 1" in item
    # (no rank, device number or CANN version is in the line: none is said)
    assert "Rank" not in item and "CANN 8" not in item


def test_the_refusal_reads_alike_in_a_log_and_with_the_fixed_spelling(tmp_path: Path) -> None:
    copies = [
        # vllm-ascend#2725: inside vLLM's log, the runtime's "[ERROR]" before it
        "INFO 09-03 08:14:33 [model_runner_v1.py:2114] Loading model weights took 14.2488 GB\n"
        f"..[ERROR] {SOC_LINE}\n",
        # a rank's tag, and a later CANN spelling the word right
        "[rank3]: the socversion Ascend910B4 of bin package does not match the current device "
        "socversion Ascend910_9391\n",
        # the same line twice from one process: one refusal
        f"{SOC_LINE}\n{SOC_LINE}\n",
    ]
    for text in copies:
        (failure,) = _write(tmp_path, text).failures
        assert failure["kind"] == "npu_kernel_soc_mismatch"
    ev = _write(tmp_path, copies[1])
    assert ev.failures[0]["rank"] == 3
    assert "built for Ascend910B4, the device is Ascend910_9391" in ev.failures[0]["exception_type"]


def test_a_long_line_with_the_words_but_no_soc_reads_quickly(tmp_path: Path) -> None:
    ev = _write(tmp_path, "the socversion " + "A" * 100_000 + " of bin package does not match\n")
    assert all(f["kind"] != "npu_kernel_soc_mismatch" for f in ev.failures)


# --- verl's diagnose that could not run npu-smi -----------------------------------------------


def test_verl_diagnose_without_npu_smi_is_a_warning_with_its_versions() -> None:
    ev = _load(VERL)
    assert ev.files[0].formats == ["prechecks"]
    (failure,) = ev.failures
    assert failure["kind"] == "npu_smi_unusable" and failure["line"] == 14
    assert failure["message"] == "can not use command: npu-smi info"
    (note,) = [m for m in heldout.said(ev) if m.startswith("prechecks: verl's diagnose")]
    for said in ("verl 0.9.0", "torch 2.10.0+cpu", "CANN 9.0.1", "HDK 25.5.0", "(line 14)"):
        assert said in note
    # ("not found." packages are not said as versions; the Python and pip versions are not verl's)
    assert "sglang" not in note and "ray" not in note and "26.1.2" not in note
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-npu-smi-unusable", "warning")]
    (item,) = heldout.items(outcome, "evidence-npu-smi-unusable")
    assert "can not use command: npu-smi info" in item and "line 14" in item
    # nothing of a device is claimed: no NPU, health or HBM read from it
    assert not ev.npu_chips


def test_verl_diagnose_on_a_gpu_host_is_a_note_only(tmp_path: Path) -> None:
    # a newer diagnose (its "Platform Info" and "System Info" sections, tab-aligned packages)
    text = (
        "----------Python Info----------\nVersion      : 3.12.14\n"
        "------------Pip Info-----------\nvllm\t     : 0.12.0\nsglang\t     : not found.\n"
        "torch\t     : 2.9.0\n----------verl Info-----------\nVersion      : 0.10.0.dev\n"
        "Commit Hash  : 2eaaa8f42b22e478c1f4d7e49d2694b78f176b67\n"
        "----------Platform Info----------\nnode         : 4f2688afd23b\n"
        "----------Environment----------\nCUDA Runtime : 12.8\n"
    )
    ev = _write(tmp_path, text, name="diagnose.txt")
    assert ev.failures == []
    (note,) = [m for m in heldout.said(ev) if m.startswith("prechecks: verl's diagnose")]
    assert "verl 0.10.0.dev" in note and "vllm 0.12.0" in note and "npu-smi" not in note
    assert heldout.imported(ev)[0] == "READY"
