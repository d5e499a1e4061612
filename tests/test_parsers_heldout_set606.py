"""Outputs of round CCCC's held-out evaluation (set 606, framework logs on NVIDIA clusters) that the
advisor read in part before this change (tests/data/evidence_heldout_65, sources in
tests/data/SOURCES.md): a rank's watchdog line of a failed work followed by its own "Timeout at
NCCL work" line, said to be a failure with no time-out line of its own; torchtitan's memory
monitor counting CUDA allocation retries at 98 % of the device's memory, not read at all."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_65"

SGLANG = (
    "sglang_2025_02_4node_a100_rank16_watchdog_exception_timeout_at_nccl_work_9301_3572_cut.log"
)
TITAN = (
    "torchtitan_2026_moe_gate_step2_3_memory_98pct_175GiB_cuda_malloc_retries_warning_2389_cut.log"
)


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


# --- "Timeout at NCCL work" after the rank's own detected line --------------------------------

_DETECTED = (
    "[rank{r}]:[E214 06:46:21.341483897 ProcessGroupNCCL.cpp:1785] [PG ID {pg} PG GUID 3 Rank {r}] "
    "Exception (either an error or timeout) detected by watchdog at work: {w}, last enqueued NCCL "
    "work: {w}, last completed NCCL work: {d}.\n"
)
_TIMEOUT_AT = (
    "[rank{r}]:[E214 06:46:21.341531487 ProcessGroupNCCL.cpp:1834] [PG ID {pg} PG GUID 3 Rank {r}] "
    "Timeout at NCCL work: {w}, last enqueued NCCL work: {w}, last completed NCCL work: {d}.\n"
)
_NOTICE = (
    "[rank{r}]:[E214 06:46:21.341540000 ProcessGroupNCCL.cpp:630] [Rank {r}] Some NCCL operations "
    "have failed or timed out. Due to the asynchronous nature of CUDA kernels, subsequent GPU "
    "operations might run on corrupted/incomplete data.\n"
)


def test_a_ranks_own_timeout_at_line_after_its_detected_line_is_a_time_out() -> None:
    ev = _load(SGLANG)
    (timeout,) = ev.failures
    assert (timeout["kind"], timeout["line"], timeout["rank"], timeout["seq"]) == (
        "watchdog_timeout", 2, 16, 9301,
    )  # fmt: skip
    assert (timeout["group"], timeout["last_enqueued"], timeout["last_completed"]) == (
        "2", 9301, 9300,
    )  # fmt: skip
    # (the line names no op, time-out or run time: none is said)
    assert (timeout["op"], timeout["timeout_ms"], timeout["ran_for_ms"]) == (None, None, None)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-watchdog-timeout", "critical")]
    (item,) = heldout.items(outcome, "evidence-watchdog-timeout")
    assert item.startswith(
        "Rank 16 in process group 2 (a subgroup): a collective the line does not name "
        "(SeqNum 9301) timed out (the record names no times); last enqueued work 9301, "
        "last completed 9300"
    )
    assert "no time-out line" not in str([f.message for f in outcome.findings])


def test_the_same_pair_with_its_notice_after_it_and_another_rank_is_still_a_time_out(
    tmp_path: Path,
) -> None:
    # the copy's cut third line: the rank's "Some NCCL operations have failed" notice; a rank of
    # another node in the same group, its lines with a subgroup of its own number
    text = (
        _DETECTED.format(r=16, pg=2, w=9301, d=9300)
        + _TIMEOUT_AT.format(r=16, pg=2, w=9301, d=9300)
        + _NOTICE.format(r=16)
        + _DETECTED.format(r=24, pg=2, w=9301, d=9300)
        + _TIMEOUT_AT.format(r=24, pg=2, w=9301, d=9300)
    )
    by_rank = {f["rank"]: f for f in _write(tmp_path, text).failures}
    assert {r: (f["kind"], f["line"], f["seq"]) for r, f in by_rank.items()} == {
        16: ("watchdog_timeout", 2, 9301),
        24: ("watchdog_timeout", 5, 9301),
    }


def test_a_detected_line_with_no_timeout_at_line_stays_a_failure_of_unknown_cause(
    tmp_path: Path,
) -> None:
    # an NCCL error is detected the same way, and prints no "Timeout at": not a time-out
    ev = _write(tmp_path, _DETECTED.format(r=3, pg=0, w=120, d=119))
    (failure,) = ev.failures
    assert (failure["kind"], failure["rank"], failure["seq"]) == ("watchdog_failure", 3, 120)
    # another work's "Timeout at" line (another group's) does not make this one a time-out
    text = _DETECTED.format(r=3, pg=1, w=120, d=119) + _TIMEOUT_AT.format(r=3, pg=0, w=57, d=56)
    kinds = {(f["kind"], f["seq"]) for f in _write(tmp_path, text).failures}
    assert ("watchdog_failure", 120) in kinds
    assert ("watchdog_timeout", 120) not in kinds


# --- torchtitan's CUDA memory allocation retries ----------------------------------------------


def test_torchtitans_allocation_retries_at_the_memory_limit_are_a_warning() -> None:
    ev = _load(TITAN)
    (retries,) = ev.failures
    assert (retries["kind"], retries["line"], retries["library"]) == (
        "alloc_retries", 3, "torchtitan",
    )  # fmt: skip
    assert retries["repeated_lines"] == [5, 6, 7, 8, 9]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-alloc-retries", "warning")]
    (item,) = heldout.items(outcome, "evidence-alloc-retries")
    assert item.startswith(
        "up to 2 CUDA allocation retries counted (the count since the start, 6 line(s)); the "
        "peak reserved memory its step lines give is 175.62 GiB, 98.46% of the device (line 11)"
    )
    # (no out-of-memory error, no rank, no failure: none is said)
    assert "out-of-memory errors" not in item
    assert "Rank" not in item
    # the loss lines are still read as a loop that trained
    assert any("a training loop's loss lines" in m.message for m in ev.files[0].messages)


def test_older_torchtitan_on_another_device_under_a_rank_prefix_reads_the_same(
    tmp_path: Path,
) -> None:
    # torchtitan's earlier logger (no "[titan]"), torchrun's rank prefix, an NPU's device type,
    # and the OOM count the same monitor logs beside it; no metrics line kept
    text = (
        "[rank0]:2024-11-05 10:12:01,123 - root - WARNING - 3 NPU memory allocation retries.\n"
        "[rank0]:2024-11-05 10:12:01,124 - root - WARNING - 1 NPU OOM errors thrown.\n"
        "[rank1]:2024-11-05 10:12:01,125 - root - WARNING - 4 NPU memory allocation retries.\n"
    )
    ev = _write(tmp_path, text)
    (retries,) = ev.failures
    assert (retries["kind"], retries["line"], retries["repeated_lines"]) == (
        "alloc_retries", 1, [2, 3],
    )  # fmt: skip
    assert retries["exception_type"] == (
        "up to 4 NPU allocation retries counted (the count since the start, 2 line(s)); up to 1 "
        "NPU out-of-memory errors counted (the count since the start, 1 line(s))"
    )
    level, _ = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"


def test_allocation_retries_beside_a_watchdog_time_out_leave_the_failure_first(
    tmp_path: Path,
) -> None:
    text = (
        "[titan] 2026-02-24 19:44:34,452 - root - WARNING - 2 CUDA memory allocation retries.\n"
        + _DETECTED.format(r=0, pg=0, w=40, d=39)
        + _TIMEOUT_AT.format(r=0, pg=0, w=40, d=39)
    )
    ev = _write(tmp_path, text)
    assert sorted(f["kind"] for f in ev.failures) == ["alloc_retries", "watchdog_timeout"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert ("evidence-alloc-retries", "warning") in heldout.above_info(outcome)
