"""Outputs of round OOOO's held-out evaluation (set 678, framework logs on NVIDIA clusters, part
b) that the advisor read in part before this change (tests/data/evidence_heldout_75, sources in
tests/data/SOURCES.md): a DeepSpeed run of 2 nodes x 8 A100 whose engine's "[Rank 0]
step=13120, skipped=223" and throughput timer's "RunningAvgSamplesPerSec=4.54...,
MemAllocated=31.36GB, MaxMemAllocated=36.97GB" lines, and a GPT-NeoX run whose rank 0 engine
timers ("rank=0 time (ms) | forward_microstep: ... | backward_allreduce_microstep: 486.68 |
...") were both read READY as "a program's log in no form the advisor reads", no figure said."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_75"

DS_STEP = (
    "deepspeed_2node_16xa100_step13120_skipped223_runningavgsamplespersec_4.54_memalloc_31gb_"
    "healthy_dsexamples381_cut.log"
)
NEOX_TIMERS = (
    "gpt_neox_deepspeed_multinode_rank0_microstep_timings_backward_allreduce_282_487ms_healthy_"
    "gptneox965_cut.log"
)
UNREAD = "no form the advisor reads"

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _deepspeed_notes(ev: EvidenceFacts) -> list[str]:
    return [m for m in heldout.said(ev) if "DeepSpeed's" in m]


# --- DeepSpeed's engine step and throughput timer ---------------------------------------------


def test_engine_step_and_throughput_timer_are_read_and_said() -> None:
    ev = _load(DS_STEP)
    assert ev.files[0].status == "read"
    assert not any(UNREAD in m for m in heldout.said(ev))
    (note,) = _deepspeed_notes(ev)
    assert note.startswith("log: DeepSpeed's engine skipped 223 of 13120 steps")
    assert "(line 1)" in note
    assert (
        "throughput timer at global step 13120 (micro step 52480): 4.54 samples/s on average, "
        "4.58 samples/s at that step, 31.36 GiB of accelerator memory allocated (at most "
        "36.97 GiB; DeepSpeed prints 'GB') (line 2)"
    ) in note
    assert note.endswith("; no error")
    assert ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_most_steps_skipped_is_the_overflow_warning_not_a_no_error_note(tmp_path: Path) -> None:
    # another run: 400 of 500 steps skipped, past half: _fp16_overflows' warning says it, the
    # throughput timer is still said, the skipped share not said again as "no error"
    text = (
        _text(DS_STEP)
        .replace("step=13120, skipped=223", "step=500, skipped=400")
        .replace("micro_step=52480/global_step=13120", "micro_step=2000/global_step=500")
        .replace("RunningAvgSamplesPerSec=4.5431656108358975", "RunningAvgSamplesPerSec=12.0")
    )
    ev = _write(tmp_path, text)
    assert ev.files[0].status == "read"
    assert [(f["kind"], f["line"]) for f in ev.failures] == [("fp16_overflow", 1)]
    (note,) = [m for m in heldout.said(ev) if "throughput timer" in m]
    assert "at global step 500 (micro step 2000): 12.00 samples/s on average" in note
    assert "skipped 400" not in note
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-fp16-overflow", "warning")]


def test_throughput_line_without_memory_fields_alone_is_read(tmp_path: Path) -> None:
    # (a release whose throughput line ends at CurrSamplesPerSec; no engine step line)
    line = _text(DS_STEP).splitlines()[1]
    text = line.split(", MemAllocated=")[0] + "\n" + line.split(", MemAllocated=")[0] + "\n"
    ev = _write(tmp_path, text)
    assert ev.files[0].status == "read"
    (note,) = _deepspeed_notes(ev)
    assert note.startswith("log: DeepSpeed's throughput timer at global step 13120")
    assert "GB" not in note and "(line 2)" in note
    assert heldout.imported(ev)[0] == "READY"


# --- DeepSpeed's engine timers under wall_clock_breakdown -----------------------------------


def test_rank0_engine_timers_are_read_with_their_allreduce_span() -> None:
    ev = _load(NEOX_TIMERS)
    assert ev.files[0].status == "read"
    assert not any(UNREAD in m for m in heldout.said(ev))
    (note,) = _deepspeed_notes(ev)
    assert note.startswith("log: DeepSpeed's engine timers on rank 0: ")
    assert "forward_microstep 1286.00-1347.74 ms" in note
    assert "backward_microstep 4484.17-4766.88 ms" in note
    assert "backward_allreduce_microstep 282.29-486.68 ms (the gradients' all-reduce)" in note
    assert "step_microstep 0.05 ms" in note
    assert "(5 lines, 1-5)" in note and note.endswith("; no error")
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_newer_timer_names_on_another_rank(tmp_path: Path) -> None:
    # DeepSpeed's later names (utils/timer.py: fwd_microstep, bwd_allreduce_microstep ...), the
    # timers logged by rank 8, two lines only
    text = "".join(
        line.replace("[Rank 0] rank=0", "[Rank 8] rank=8")
        .replace("forward_microstep", "fwd_microstep")
        .replace("backward_", "bwd_")
        + "\n"
        for line in _text(NEOX_TIMERS).splitlines()[3:]
    )
    ev = _write(tmp_path, text)
    (note,) = _deepspeed_notes(ev)
    assert note.startswith("log: DeepSpeed's engine timers on rank 8: ")
    assert "bwd_allreduce_microstep 282.29-417.27 ms (the gradients' all-reduce)" in note
    assert "(2 lines, 1-2)" in note
    assert heldout.imported(ev)[0] == "READY"


def test_other_programs_timer_lines_stay_unread(tmp_path: Path) -> None:
    # a "time (ms) |" line that is not DeepSpeed's rank timers: not read as them
    text = "".join(
        f"[2023-06-03 00:10:2{i},345] [INFO] [train.py:12:main] time (ms) | load: 1{i}.00\n"
        for i in range(3)
    )
    ev = _write(tmp_path, text)
    assert _deepspeed_notes(ev) == []
    assert any(UNREAD in m for m in heldout.said(ev))
    assert heldout.imported(ev)[0] == "READY"
