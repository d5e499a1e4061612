"""Review 61 (part a) of sets 673, 674 and 676 and review 60a's mends, faults 1-4: npu-smi -t
ecc-enable of an Atlas 910 (its DDR line True, then its HBM line False), of a 310P (DDR False) and
of a 310 (the plain "ECC-Enable Status" key); an Intel QuickAssist "Co-processor" no driver took;
torch_npu's "never timeout" warning that Ray folded from 26 more processes, and what that warning
says of HCCL_EXEC_TIMEOUT: each on its input (tests/data/review61, described in
tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA
from tests.heldout import notes as _said
from tests.test_parsers_heldout_set674 import _advice

REVIEW = DATA / "review61"
HELDOUT = DATA / "evidence_heldout_75"

_write = partial(heldout.load_copy, name="copy.txt")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


# --- 1. npu-smi -t ecc-enable: each memory's line under its own name ---------------------------

ECC_910 = "npu_smi_t_ecc_enable_i_2_atlas910_ddr_true_then_hbm_false.txt"
ECC_310P = "npu_smi_t_ecc_enable_i_1_310p_ddr_false.txt"
ECC_310 = "npu_smi_t_ecc_enable_310_plain_key_false_no_command.txt"
ECC_950 = "npu_smi_info_t_ecc_enable_hbm_true_ascend950_doc.txt"


def test_a_910s_hbm_ecc_off_after_its_ddr_line_is_the_warning_at_line_3() -> None:
    ev = _load(ECC_910)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-npu-chip-health", "warning")]
    (item,) = heldout.items(outcome, "evidence-npu-chip-health")
    assert item.startswith(
        "NPU 2 health HBM ECC-Enable Status False: the ECC of its on-chip memory (HBM) is off, "
        "against its default True ("
    )
    assert item.endswith(", line 3)")
    # the DDR line is said under its own name, not called the HBM
    (said,) = [m for no, m in _said(ev) if no == 2]
    assert said.endswith(
        "npu-smi info -t ecc-enable of NPU 2: DDR ECC-Enable Status True (the DDR memory's ECC on)"
    )


def test_both_memories_off_on_a_910_are_one_chips_warning_naming_both(tmp_path: Path) -> None:
    ev = _write(tmp_path, (REVIEW / ECC_910).read_text().replace(": True", ": False"))
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-npu-chip-health")
    assert "DDR ECC-Enable Status False: the ECC of its DDR memory is off; HBM ECC-Enable" in item
    assert item.endswith(", line 2)")


def test_a_910_with_both_on_is_ready(tmp_path: Path) -> None:
    ev = _write(tmp_path, (REVIEW / ECC_910).read_text().replace(": False", ": True"))
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    assert ev.npu_chips == []


def test_a_310ps_ddr_ecc_off_names_its_ddr_not_the_hbm() -> None:
    ev = _load(ECC_310P)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-npu-chip-health")
    assert item.startswith(
        "NPU 1 health DDR ECC-Enable Status False: the ECC of its DDR memory is off ("
    )
    assert "HBM" not in item
    assert item.endswith(", line 2)")


def test_a_310s_plain_key_without_its_command_is_read() -> None:
    ev = _load(ECC_310)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-npu-chip-health")
    assert item.startswith(
        "NPU (not named) health ECC-Enable Status False: the ECC of its memory is off ("
    )
    assert item.endswith(", line 1)")


def test_the_real_950_sample_still_reads_hbm_on_as_its_default() -> None:
    ev = _load(ECC_950, HELDOUT)
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    (said,) = [m for _, m in _said(ev)]
    assert said.endswith("HBM ECC-Enable Status True (the on-chip memory's ECC on, its default)")


# --- 2. lspci: an offload engine of the "Co-processor" classes is no GPU of the job -------------

QAT = "lspci_vv_intel_qat_c62x_coprocessor_no_driver_busmaster_off_irq255.txt"
H100 = "lspci_vvv_h100_pcie_2331_busmaster_off_msi_disabled_irq255_nvtrust51_cut.txt"
QAT_HEAD = "3d:00.0 Co-processor: Intel Corporation C62x Chipset QuickAssist Technology (rev 04)"


def test_a_quickassist_card_no_driver_took_is_not_a_gpu_not_enabled() -> None:
    ev = _load(QAT)
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    assert not [f for f in ev.failures if f["kind"] == "gpu_not_enabled"]


def test_sapphire_rapids_qat_as_processing_accelerators_is_not_one_either(tmp_path: Path) -> None:
    text = (
        (REVIEW / QAT)
        .read_text()
        .replace(
            QAT_HEAD, "6b:00.0 Processing accelerators: Intel Corporation Device 4940 (rev 40)"
        )
    )
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_an_ascend_npu_of_the_same_class_with_busmaster_off_is_still_warned(tmp_path: Path) -> None:
    text = (
        (REVIEW / QAT)
        .read_text()
        .replace(
            QAT_HEAD,
            "c1:00.0 Processing accelerators: Huawei Technologies Co., Ltd. Device d801 (rev 20)",
        )
    )
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "READY WITH WARNINGS"
    assert ("evidence-gpu-not-enabled", "warning") in heldout.above_info(outcome)


def test_the_real_h100_sample_no_driver_enabled_is_still_warned() -> None:
    level, outcome = heldout.imported(_load(H100, HELDOUT))
    assert level == "READY WITH WARNINGS"
    assert ("evidence-gpu-not-enabled", "warning") in heldout.above_info(outcome)


# --- 3 and 4. torch_npu's "never timeout" warning: Ray's folded processes, and what 0 means ------

NEVER = "vllm_ascend_073post1_deepseek_r1_w8a8_2x8_910b2_npu3_oom_hccl_watchdog_warning_cut_vllmascend1127.log"
TWO_RANKS = "vllm_ascend_ray_never_timeout_warning_rank3_repeated_6x_rank11_alone.log"
NEVER_SAID = (
    "watchdog 1800 s, HCCL execution time-out never as torch_npu read it (HCCL_EXEC_TIMEOUT set to "
    "0; or unset, in a torch_npu release that reads unset as 0, where HCCL keeps its own default "
    "1836 s)"
)


def test_the_real_warning_counts_the_26_processes_ray_folded_into_rank_7s_line() -> None:
    ev = _load(NEVER, HELDOUT)
    (warned,) = [f for f in ev.failures if f["kind"] == "pg_timeout_warning"]
    assert (warned["line"], warned["rank"]) == (4, 7)
    assert warned["exception_type"] == (
        f"{NEVER_SAID} (27 process(es) warned: rank(s) 7; 26 more folded by Ray into the line(s) "
        "read, their ranks not shown ('[repeated Nx across cluster]'))"
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert ("evidence-device-out-of-memory", "critical") in heldout.above_info(outcome)


def test_two_ranks_lines_one_folded_count_each_and_the_folded() -> None:
    ev = _load(TWO_RANKS)
    (warned,) = [f for f in ev.failures if f["kind"] == "pg_timeout_warning"]
    assert warned["exception_type"].endswith(
        "(8 process(es) warned: rank(s) 3, 11; 6 more folded by Ray into the line(s) read, their "
        "ranks not shown ('[repeated Nx across cluster]'))"
    )


def test_a_line_ray_did_not_fold_says_no_folded_processes(tmp_path: Path) -> None:
    text = (REVIEW / TWO_RANKS).read_text().splitlines()[1] + "\n"
    ev = _write(tmp_path, text)
    (warned,) = [f for f in ev.failures if f["kind"] == "pg_timeout_warning"]
    assert warned["exception_type"] == f"{NEVER_SAID} (1 process(es) warned: rank(s) 11)"


def test_the_advice_says_hccl_never_reports_only_for_an_explicit_0() -> None:
    _, outcome = heldout.imported(_load(NEVER, HELDOUT))
    advice = _advice(outcome, "evidence-pg-timeout-not-above-hccl-exec")
    assert "Where HCCL_EXEC_TIMEOUT was set to 0, HCCL reports no hang by itself" in advice
    assert "Where it was unset, an older torch_npu read it as 0" in advice
    assert "HCCL keeps its default 1836 s" in advice
    assert "Where HCCL's execution time-out is never" not in advice


def test_a_numbered_exec_timeout_has_no_never_advice(tmp_path: Path) -> None:
    line = (
        "[rank0]:[W609 06:57:47.819535026 compiler_depend.ts:877] Warning: The watchdog timeout "
        "300000ms(which is set by init_process_group) is less than or equal to HCCL execution "
        "timeout 1836000ms! The plog may not be recorded. (function ProcessGroupHCCL)\n"
    )
    _, outcome = heldout.imported(_write(tmp_path, line))
    (item,) = heldout.items(outcome, "evidence-pg-timeout-not-above-hccl-exec")
    assert item.startswith(
        "watchdog 300 s, HCCL execution 1836 s (1 process(es) warned: rank(s) 0)"
    )
    assert "set to 0" not in _advice(outcome, "evidence-pg-timeout-not-above-hccl-exec")
