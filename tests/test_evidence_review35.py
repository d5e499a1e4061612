"""Review 35 of round NNN's readings and round MMM's leftovers (values-only --query-gpu rows,
throttle-reason masks, NCCL's ring width, a footer under validation 0, torch's CUDA error beside
NCCL's WARN, unnamed nccl-tests hosts): each fault it found, on its input (tests/data/review35,
described in tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review35"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def test_values_only_rows_are_the_gpus_in_order_and_judged() -> None:
    # nvidia-smi prints a row a GPU in index order: row 2 is GPU 1, its slowdown and its
    # uncorrectable errors are findings
    ev = _load("nvidia_smi_query_values_only_hw_thermal_slowdown_active_ready.csv")
    assert [g["gpu"] for g in ev.gpus] == [0, 1, 2, 3]
    (item,) = heldout.found(ev)["evidence-gpu-throttled"].items
    assert item.startswith("GPU #2 of the output: HW Slowdown, HW Thermal Slowdown active")
    ev = _load("nvidia_smi_query_values_only_ecc_uncorrected_12_ready.csv")
    (item,) = heldout.found(ev)["evidence-gpu-ecc-uncorrected"].items
    assert item.startswith("GPU #2 of the output: 12 uncorrectable ECC error(s)")


def test_a_one_field_querys_rows_end_at_the_next_command() -> None:
    ev = _load("nvidia_smi_one_field_query_then_other_commands.txt")
    assert [(g["gpu"], g["temp_c"]) for g in ev.gpus] == [(0, 41), (1, 43)]


def test_a_looped_throttle_mask_query_is_recognised() -> None:
    ev = _load("nvidia_smi_query_loop_timestamp_then_throttle_mask_not_recognised.csv")
    assert ev.files[0].formats == ["nvidia_smi_query_csv"]
    (note,) = heldout.said(ev)
    assert "clocks_throttle_reasons.active 0x0000000000000048 (in force: HW Slowdown, HW " in note


def test_supported_and_active_masks_are_said_apart() -> None:
    ev = _load("nvidia_smi_query_supported_and_active_mask_contradiction.csv")
    (note,) = heldout.said(ev)
    assert "clocks_throttle_reasons.supported (it can report): Idle, " in note
    # (0x44: SW Power Cap, a GPU at its power limit, and HW Thermal Slowdown)
    assert "clocks_throttle_reasons.active (in force): SW Power Cap, HW Thermal Slowdown" in note
    assert "none said in force" not in note
    assert heldout.found(ev)["evidence-gpu-throttled"].items


def test_memory_and_yes_no_fields_of_values_only_queries_are_read() -> None:
    ev = _load("nvidia_smi_query_memory_used_values_only_not_recognised.csv")
    assert ev.files[0].formats == ["nvidia_smi_query_csv"] and ev.gpus
    assert all(g["memory_used_mib"] is not None for g in ev.gpus)
    ev = _load("nvidia_smi_query_values_only_remap_pending_yes_unreadable.csv")
    assert [g["remap_pending"] for g in ev.gpus] == [False, True, False, False]
    assert "evidence-gpu-repair-pending" in heldout.found(ev)


def test_a_ring_line_of_twenty_ranks_is_twenty_or_more() -> None:
    said = heldout.said(_load("nccl2103_32rank_ring_line_20_ranks_maxwidth.log"))
    assert any("each over 20 rank(s) or more" in m for m in said)


def test_a_footer_under_validation_0_checks_nothing() -> None:
    said = " ".join(heldout.said(_load("nccl_tests_validation0_no_wrong_columns.log")))
    assert "its header's validation: 0 says the run checked no data" in said
    assert "still checks the run as a whole" not in said


def test_torchs_cuda_error_below_an_nccl_warn_is_read() -> None:
    ev = _load("nccl_warn_above_torch_cuda_error_dropped.log")
    assert "evidence-cuda-error" in heldout.found(ev)


def test_unnamed_hosts_of_solo_runs_are_told_apart() -> None:
    said = heldout.said(_load("nccl_tests_two_solo_processes_hostless_rank_lines_two_hosts.log"))
    assert any(
        "(on a host the copy does not name (#1), a host the copy does not name (#2))" in m
        for m in said
    )
