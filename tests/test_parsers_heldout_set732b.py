"""Outputs of round XXXX's held-out evaluation (set 732, framework logs on NVIDIA clusters, part
b) that the advisor read in part before this change (tests/data/evidence_heldout_84, sources in
tests/data/SOURCES.md): a Megatron run a user cancelled (slurmstepd's "CANCELLED AT" with no
"DUE TO": scancel) after steady ~4.21 s iterations and a loss spike it came back from was a
warning, its iterations unsaid; and a DeepSpeed ZeRO-3 run Slurm stopped at its time limit after
4 of 1000 iterations was a warning, while another time-limit cancel of the same round was NOT
READY, its 123.7-128.9 s iterations and 39.7-41.3 TFLOPS per GPU unsaid. A time limit is now a
failure of the job (its work not done), a scancel a note."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_84"

SCANCEL = (
    "megatron_lm_gpt2_n32_tp4_pp32_v100_iterations_10_120_then_scancel_sigterm_1809620_cut.log"
)
TIME_LIMIT = "deepspeed_zero3_megatron_52b_n16_v100_41tflops_4iters_time_limit_1999616_cut.log"

_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)
_write = partial(heldout.load_copy, name="slurm-job.out")


def _note(ev: object, starts: str) -> str:
    (said,) = [m for m in heldout.said(ev) if m.startswith(f"log: {starts}")]  # type: ignore[arg-type]
    return said


# --- a user's scancel after a healthy run ------------------------------------------------------


def test_a_scancel_after_steady_iterations_is_a_note_and_the_run_is_said() -> None:
    ev = _load(SCANCEL)
    (stop,) = ev.failures
    assert (stop["kind"], stop["line"], stop["host"], stop["code"]) == (
        "job_cancelled", 160, "r6i5n1", None,
    )  # fmt: skip
    assert stop["exception_type"] == (
        "slurmstepd (step 1809620.0 cancelled), after Megatron's iteration 120 of 1000 (line 157)"
    )
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    message, items = heldout.finding(outcome, "evidence-job-cancelled-no-reason")
    assert "this was a scancel" in message
    assert items == [
        f"r6i5n1: *** STEP 1809620.0 ON r6i5n1 CANCELLED AT 2021-05-23T09:02:07 *** "
        f"({HELDOUT / SCANCEL}, line 160)"
    ]
    note = _note(ev, "Megatron's training log:")
    assert "iterations 10-120 of 1000 (lines 4-157)" in note
    assert "4.2-10.5 s per iteration (median 4.22 s)" in note
    assert "spiking to 50.28 (line 136) and back to 8.53 (line 157): the spike recovered" in note
    assert "no error" not in note  # (the cancel's own account follows it)


def test_a_scancel_on_another_host_and_job_is_named_there(tmp_path: Path) -> None:
    text = _text(SCANCEL).replace("1809620", "2233445").replace("r6i5n1", "gpu-node-17")
    ev = _write(tmp_path, text)
    (stop,) = ev.failures
    assert (stop["line"], stop["host"]) == (160, "gpu-node-17")
    assert stop["exception_type"].startswith("slurmstepd (step 2233445.0 cancelled), after")
    assert heldout.imported(ev)[0] == "READY"


def test_the_same_run_with_no_cancel_stays_ready_with_its_note(tmp_path: Path) -> None:
    text = "\n".join(_text(SCANCEL).splitlines()[:158]) + "\n"
    ev = _write(tmp_path, text)
    assert not ev.failures
    assert heldout.imported(ev)[0] == "READY"


def test_a_scancel_after_a_ranks_own_error_stays_the_ranks_failure(tmp_path: Path) -> None:
    lines = _text(SCANCEL).splitlines(keepends=True)
    lines.insert(
        158,
        "[E ProcessGroupNCCL.cpp:566] [Rank 3] Watchdog caught collective operation timeout: "
        "WorkNCCL(SeqNum=1, OpType=ALLREDUCE, Timeout(ms)=1800000) ran for 1800806 milliseconds "
        "before timing out.\n",
    )
    ev = _write(tmp_path, "".join(lines))
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert "evidence-job-cancelled-no-reason" in [f.rule_id for f in outcome.findings]


# --- a time limit before the work was done ------------------------------------------------------


def test_a_time_limit_after_4_of_1000_iterations_is_a_failure_with_its_figures() -> None:
    ev = _load(TIME_LIMIT)
    (stop,) = ev.failures
    assert (stop["kind"], stop["line"], stop["host"], stop["code"]) == (
        "job_cancelled", 38, "r6i4n5", "TIME LIMIT",
    )  # fmt: skip
    assert stop["exception_type"] == (
        "slurmstepd (step 1999616.0 cancelled due to time limit), after Megatron's iteration 4 "
        "of 1000 (line 34)"
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-job-time-limit", "critical")]
    message, items = heldout.finding(outcome, "evidence-job-time-limit")
    assert "ran out of its time before its work was done" in message
    assert items[0].startswith("r6i4n5: *** STEP 1999616.0 ON r6i4n5 CANCELLED AT")
    note = _note(ev, "Megatron's training log:")
    assert "iterations 1-4 of 1000 (lines 24-34), 123.7-128.9 s per iteration" in note
    assert "39.66-41.31 TFLOPS per GPU" in note and "lines 27-36" in note


def test_the_job_line_alone_with_its_time_limit_is_the_same_failure(tmp_path: Path) -> None:
    # (a copy with Slurm's JOB line and not the step's, on another host)
    text = "".join(
        t for t in _text(TIME_LIMIT).splitlines(keepends=True) if "*** STEP 1999616.0" not in t
    ).replace("r6i4n5", "node002")
    ev = _write(tmp_path, text)
    (stop,) = ev.failures
    assert (stop["line"], stop["host"], stop["code"]) == (38, "node002", "TIME LIMIT")
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert ("evidence-job-time-limit", "critical") in heldout.above_info(outcome)


def test_a_preemption_in_place_of_the_time_limit_stays_a_warning(tmp_path: Path) -> None:
    text = _text(TIME_LIMIT).replace("DUE TO TIME LIMIT", "DUE TO PREEMPTION")
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-job-cancelled", "warning")]
