"""Outputs of round GGGG's held-out evaluation (set 630, framework logs on NVIDIA clusters) that the
advisor read in part before this change (tests/data/evidence_heldout_68, sources in
tests/data/SOURCES.md): DeepSpeed's fp16 overflow lines that a terminal wrapped inside "scale" and
padded with spaces ("Attempted loss scal" + spaces + "e: 8192"), six of seven unread, and the one
read, an overflow that only spent the scaler's hysteresis, said to have lowered the scale."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA
from tests.test_parsers_heldout_set624 import _WARNING

HELDOUT = DATA / "evidence_heldout_68"

WRAPPED = "deepspeed_fp16_overflow_hysteresis_8192_repeating_terminal_wrapped_scal_e_learndeepspeed1_cut.log"

_PREFIX = "[2024-11-04 11:41:27,602] [INFO] [loss_scaler.py:190:update_scale] [deepspeed] "


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


def _note(ev: EvidenceFacts) -> str:
    (note,) = [m for m in heldout.said(ev) if "loss scaler" in m]
    return note


def test_wrapped_overflow_lines_are_all_read_as_the_scalers_steady_state() -> None:
    ev = _load(WRAPPED)
    assert ev.files[0].formats == ["log"]
    # (each overflow skipped one step; the scale, 8192 or 4096, is far above the minimum of 1:
    # DynamicLossScaler "attempts to ride the edge" of the highest scale that does not overflow,
    # raising it after each scale window (deepspeed/runtime/fp16/loss_scaler.py), and the same
    # halving every window is that edge (NVIDIA/apex#864: "the scaling factor is being
    # downgraded to the same value, so it should be fine"): a note, no warning)
    assert not ev.failures
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    note = _note(ev)
    assert note.startswith(
        "log: DeepSpeed's fp16 loss scaler: 7 fp16 overflow(s) skipped their step on rank 0, the "
        "loss scale falling from 8192 to 4096, then back up to 8192 by line 3"
    )
    assert "the same fall, 8192 to 4096, 3 times (lines 2, 4, 6)" in note
    assert "4 of them spent the scaler's hysteresis, the scale kept" in note
    assert "no warning: the scale stayed above 8" in note
    # (nothing invented: no rank but 0, no scale the lines do not name)
    assert "rank 1" not in note and "2048" not in note and "minimum - cannot" not in note


def test_a_hysteresis_only_overflow_keeps_the_scale(tmp_path: Path) -> None:
    # (the copy's last line alone, cut at "Reducing": it spent hysteresis, the scale stayed)
    ev = _write(
        tmp_path,
        _PREFIX + "OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 8192, but hysteresis is "
        "2. Reducing\n",
    )
    note = _note(ev)
    assert "1 fp16 overflow(s) skipped their step on rank 0, the loss scale kept at 8192" in note
    assert "falling" not in note and "same fall" not in note


def test_a_wrap_between_words_and_another_rank_read_alike(tmp_path: Path) -> None:
    # (the terminal wrapped after "loss", the padding standing for the space; a wider prefix
    # moves the wrap, here into "Skipping", on the next line)
    ev = _write(
        tmp_path,
        "> "
        + _PREFIX
        + "OVERFLOW! Rank 0 Skipping step. Attempted loss"
        + " " * 40
        + "scale: 65536, reducing to 32768\n"
        + _PREFIX
        + "OVERFLOW! Rank 0 Skipp"
        + " " * 17
        + "ing step. Attempted loss scale: 32768, reducing to 16384\n",
    )
    note = _note(ev)
    assert note.startswith(
        "log: DeepSpeed's fp16 loss scaler: 2 fp16 overflow(s) skipped their step on rank 0, the "
        "loss scale falling from 65536 to 16384; no warning"
    )
    assert "same fall" not in note and "hysteresis" not in note


def test_wrapped_overflows_down_to_the_minimum_still_warn(tmp_path: Path) -> None:
    text = "".join(
        _PREFIX + f"OVERFLOW! Rank 0 Skipping step. Attempted loss scal{' ' * 33}e: "
        f"{2 ** (k + 1)}, reducing to {2**k}\n"
        for k in range(5, -1, -1)
    )
    ev = _write(tmp_path, text)
    # (at the halving to 8, eight times the default minimum of 1)
    (overflow,) = ev.failures
    assert (overflow["kind"], overflow["line"]) == ("fp16_overflow", 3)
    assert "falling from 64 to 1" in overflow["exception_type"]
    level, _ = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"


def test_long_padded_lines_read_in_linear_time(tmp_path: Path) -> None:
    line = _PREFIX + "OVERFLOW! Rank 0 Skipping step. Attempted " + "  x" * 200000 + "\n"
    ev = _write(tmp_path, line * 3)
    assert not ev.failures


# --- Horovod's oldest stall warning, hard-wrapped inside an entry's list ----------------------

HOROVOD = (
    "horovod_pytorch_tqdm_epoch73_stall_warning_ready_ranks_5_1_4_7_2_3_missing_0_6_pr334_cut.log"
)


def test_a_ready_ranks_list_wrapped_onto_the_next_line_is_read() -> None:
    ev = _load(HOROVOD)
    (stall,) = ev.failures
    assert (stall["kind"], stall["line"], stall["library"]) == ("horovod_stall", 1, "Horovod")
    assert stall["missing_ranks"] == [0, 6]
    said = stall["exception_type"]
    # (15 entries with a whole list: 9 on line 1, the one wrapped over lines 1-2, 5 on line 2;
    # the last, cut at "[ready", names no ranks and is left out)
    assert "rank 0 had not submitted allreduce.conv1.weight and 14 more (allreduce)" in said
    assert "rank 6 had not submitted allreduce.conv1.weight and 14 more (allreduce)" in said
    assert "the ranks that had submitted (1, 2, 3, 4, 5, 7)" in said
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-horovod-stall", "warning")]


def test_a_missing_ranks_list_wrapped_so_is_read_alike(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        _WARNING + "\nStalled ops: HorovodAllreduce_grads_0 [missing\n"
        "  ranks: 2, 3]\n"
        "HorovodAllreduce_grads_1 [missing ranks: 3]\n",
    )
    (stall,) = ev.failures
    assert stall["missing_ranks"] == [2, 3]
    said = stall["exception_type"]
    assert "rank 3 had not submitted HorovodAllreduce_grads_0 and 1 more (allreduce)" in said
    assert "rank 2 had not submitted HorovodAllreduce_grads_0 (allreduce)" in said
