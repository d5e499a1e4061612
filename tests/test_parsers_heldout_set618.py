"""Outputs of round EEEE's held-out evaluation (set 618, framework logs on NVIDIA clusters) that the
advisor read in part or not at all before this change (tests/data/evidence_heldout_67, sources in
tests/data/SOURCES.md): a watchdog record wrapped inside its rank's tag, its rank said unnamed;
XLA's abort of its communicators on an asynchronous NCCL error, read as an unknown program's
line; a Slurm time limit 22 minutes after Megatron's training was done, read as a stop from
outside; DeepSpeed's fp16 overflows at a scale still high, unsaid or nothing read; Ray Tune's
trials that did not complete, no format recognised."""

from __future__ import annotations

import contextlib
import time
from functools import partial
from pathlib import Path

from advisor.parsers import ParseError, logs
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_67"

NEMO = "nemo-fastconformer-tqdm-wrapped-watchdog-broadcast-timeout.log"
JAX = "jax-xla-nccl_utils-async-error-two-workers.log"
MEGATRON = "megatron-bridge-nemotronh-iteration-50-then-slurm-time-limit-cancel.log"
COGVIDEO = "deepspeed-cogvideo-loss-scaler-overflow-recovering.log"
TRLX = "trlx-deepspeed-zero2-tqdm-overflow-midrun.log"
RAY_TUNE = "ray-tune-torchtrainer-trial-failed-table.log"

_REMOTE = "remote process exited or there was a network error"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


# --- a watchdog record wrapped inside its rank's tag ------------------------------------------


def test_a_watchdog_record_wrapped_inside_its_rank_tag_names_rank_1() -> None:
    ev = _load(NEMO)
    (timeout,) = [f for f in ev.failures if f["kind"] == "watchdog_timeout"]
    assert (timeout["rank"], timeout["seq"], timeout["numel"]) == (1, 1363596, 5158880)
    assert (timeout["timeout_ms"], timeout["ran_for_ms"]) == (1800000, 1800047)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-watchdog-timeout")
    assert item.startswith("Rank 1: broadcast (SeqNum 1363596, 5158880 elements) ran 1800047 ms")
    assert "does not name" not in str(outcome.findings)


def test_a_rank_tag_wrapped_before_or_inside_its_number_reads_alike(tmp_path: Path) -> None:
    record = (
        "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE, "
        "NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600123 milliseconds before timing out.\n"
    )
    for head, tail in (
        ("[E ProcessGroupNCCL.cpp:563] [Rank ", "13] "),  # (before its number)
        ("[E ProcessGroupNCCL.cpp:563] [PG 0 Rank 1", "3] "),  # (inside it)
    ):
        ev = _write(tmp_path, f"{head}\n{tail}{record}")
        (timeout,) = [f for f in ev.failures if f["kind"] == "watchdog_timeout"]
        assert (timeout["rank"], timeout["seq"], timeout["line"]) == (13, 12, 1)
    # (a line that ends in "[Rank " of something else, no record after it: nothing joined)
    plain = _write(tmp_path, "[I init] [Rank \n" + "[Rank 5] " + record)
    (timeout,) = [f for f in plain.failures if f["kind"] == "watchdog_timeout"]
    assert (timeout["rank"], timeout["line"]) == (5, 2)


def test_a_long_line_before_a_wrapped_record_reads_in_linear_time() -> None:
    text = ("[Rank " * 50000) + "\n1] Watchdog caught collective operation timeout: x\n"
    started = time.process_time()
    logs.is_program_log(text)
    with contextlib.suppress(ParseError):  # (no failure in it: only the time is judged)
        logs.parse(text)
    assert time.process_time() - started < 5.0


# --- XLA's abort of its communicators on an async NCCL error ----------------------------------


def test_xlas_aborted_communicators_on_two_workers_are_ncclremoteerror() -> None:
    ev = _load(JAX)
    assert ev.files[0].formats == ["log"]
    failed = [f for f in ev.failures if f["kind"] == "nccl_call_failure"]
    # (one a communicator: its status line under the abort is the same check's)
    assert [f["line"] for f in failed] == [1, 3]
    assert {f["code_name"] for f in failed} == {"ncclRemoteError"}
    assert [f["call"] for f in failed] == [
        "ncclCommGetAsyncError (XLA aborted communicator 0x7f3e427e55b0)",
        "ncclCommGetAsyncError (XLA aborted communicator 0x7f45267e31a0)",
    ]
    assert {f["rank"] for f in failed} == {None}  # (XLA's lines name no rank or host)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-nccl-call-failed", "critical")]
    assert not any("no form the advisor reads" in m for m in heldout.said(ev))


def test_xlas_later_status_form_and_a_bare_status_line_read_alike(tmp_path: Path) -> None:
    # (later XLA logs the absl::Status: "INTERNAL: ... failed: <the text>"; a status line with
    # no abort above it is its own failure)
    later = _write(
        tmp_path,
        "2025-03-01 10:00:00.000001: E external/xla/xla/service/gpu/nccl_clique.cc:79] Aborting "
        "communicator: 0x55d1 due to async NCCL error: INTERNAL: NCCL operation "
        "ncclCommGetAsyncError(comm, &async_err) failed: unhandled system error (run with "
        "NCCL_DEBUG=INFO for details)\n",
    )
    (failed,) = later.failures
    assert (failed["kind"], failed["code_name"]) == ("nccl_call_failure", "ncclSystemError")
    bare = _write(
        tmp_path,
        "E0101 nccl_utils.cc:219] INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:216: NCCL "
        f"operation async_err failed: {_REMOTE}\n",
    )
    (status,) = bare.failures
    assert (status["call"], status["code_name"]) == ("ncclCommGetAsyncError", "ncclRemoteError")


# --- a time limit long after Megatron's training was done -------------------------------------


def test_a_time_limit_22_minutes_after_training_was_done_is_a_hang_at_exit() -> None:
    ev = _load(MEGATRON)
    (hang,) = ev.failures
    assert (hang["kind"], hang["line"], hang["host"], hang["code"]) == (
        "exit_hang",
        2,
        "ptyche0181",
        "TIME LIMIT",
    )
    assert "21 min 57 s later: the processes did not exit" in hang["exception_type"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-exit-hang", "critical")]
    assert "evidence-job-cancelled" not in str(outcome.findings)


def test_a_cancel_soon_after_or_after_more_output_stays_a_stop(tmp_path: Path) -> None:
    done = "[after training is done] datetime: 2025-11-24 21:52:53 \n"
    cancel = "slurmstepd: error: *** JOB 77 ON node3 CANCELLED AT {at} DUE TO TIME LIMIT ***\n"
    # (2 minutes: a job still leaving; a save that printed its line: still working)
    for text in (
        done + cancel.format(at="2025-11-24T21:54:53"),
        done
        + "saving checkpoint at iteration      50 to /ckpt\n"
        + cancel.format(at="2025-11-24T22:30:00"),
    ):
        (stop,) = _write(tmp_path, text).failures
        assert stop["kind"] == "job_cancelled"
    # (on its own line, srun's words between: still a hang)
    srun = "srun: Job step aborted: Waiting up to 32 seconds for job step to finish.\n"
    (hang,) = _write(tmp_path, done + srun + cancel.format(at="2025-11-24T23:00:00")).failures
    assert (hang["kind"], hang["line"]) == ("exit_hang", 3)


# --- DeepSpeed's fp16 overflows at a scale still high ------------------------------------------


def test_overflows_from_2_to_the_32_are_noted_and_the_run_is_ready() -> None:
    ev = _load(COGVIDEO)
    assert ev.files[0].formats == ["log"]
    assert not ev.failures
    (note,) = [m for m in heldout.said(ev) if "loss scaler" in m]
    assert note.startswith(
        "log: DeepSpeed's fp16 loss scaler: 6 fp16 overflow(s) skipped their step on rank 0, the "
        "loss scale falling from 4294967296 to 67108864; no warning"
    )
    assert heldout.imported(ev)[0] == "READY"
    assert not any("no form the advisor reads" in m for m in heldout.said(ev))


def test_overflows_mid_run_glued_to_tqdm_bars_are_read() -> None:
    ev = _load(TRLX)
    assert ev.files[0].formats == ["log"]
    (note,) = [m for m in heldout.said(ev) if "loss scaler" in m]
    assert (
        "2 fp16 overflow(s) skipped their step on rank 0, the loss scale falling from 128.0 to 32"
        in note
    )
    # (32 is above DS_LOW_LOSS_SCALE times the minimum of 1: set 588's rule, a note; at 8 a warning)
    assert not ev.failures
    assert heldout.imported(ev)[0] == "READY"


# --- Ray Tune's trials that did not complete --------------------------------------------------


def test_ray_tunes_trials_that_did_not_complete_are_a_failure() -> None:
    ev = _load(RAY_TUNE)
    assert ev.files[0].formats == ["log"]
    (trial,) = ev.failures
    assert (trial["kind"], trial["line"], trial["library"]) == ("trial_failed", 6, "Ray Tune")
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-trial-failed", "critical")]
    (item,) = heldout.items(outcome, "evidence-trial-failed")
    assert item.startswith(
        "1 trial(s) did not complete (TorchTrainer_96bfe_00000); TorchTrainer_96bfe_00000 failed "
        "1 time(s), its traceback in /home/ray/ray_results/TorchTrainer_2022-11-15_19-20-15/"
    )
    # (the cause is in the error file, not in this output: no NCCL or rank is said)
    assert "NCCL" not in item
    assert "rank" not in item


def test_tunes_error_raised_without_its_table_reads_alike(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "Traceback (most recent call last):\n"
        '  File "train.py", line 40, in <module>\n'
        "    tune.run(trainable)\n"
        "ray.tune.error.TuneError: ('Trials did not complete', [train_fn_0a1b2_00000, "
        "train_fn_0a1b2_00001])\n",
    )
    trials = [f for f in ev.failures if f["kind"] == "trial_failed"]
    assert [t["exception_type"] for t in trials] == [
        "2 trial(s) did not complete (train_fn_0a1b2_00000, train_fn_0a1b2_00001)"
    ]
    assert heldout.imported(ev)[0] == "NOT READY"
