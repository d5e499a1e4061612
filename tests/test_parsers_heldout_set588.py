"""Outputs of round ZZZ's held-out evaluation (set 588) that the advisor read as no format at all
before this change (tests/data/evidence_heldout_62, sources in tests/data/SOURCES.md): DeepSpeed's
fp16 loss scaler falling to its minimum and its engine skipping nearly every step, Horovod's stall
inspector naming ranks in different collectives, XLA's out-of-memory, and Megatron's iteration
lines whose gradient norm is NaN with the loss dropped from them."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from advisor.parsers import ParseError, logs
from tests import heldout
from tests.test_parsers_heldout_set582 import _load, _write


def _severities(ev: EvidenceFacts) -> set[str]:
    return {f.severity for f in heldout.found(ev).values()} - {"info"}


def test_fp16_overflows_down_to_a_loss_scale_of_2_are_a_warning() -> None:
    # DeepSpeed's OVERFLOW lines are printed onto tqdm's bar (no newline after it): read as the
    # logger's lines they are, the file a program's log
    ev = _load(
        "hf_trainer_deepspeed_fp16_overflow_loss_scale_64_to_2_tqdm_concat_llama_alpaca534_cut.log"
    )
    assert ev.files[0].formats == ["log"]
    (overflow,) = ev.failures
    assert (overflow["kind"], overflow["line"], overflow["library"]) == (
        "fp16_overflow",
        10,
        "DeepSpeed",
    )
    assert overflow["repeated_lines"] == [2, 4, 12, 14]
    assert _severities(ev) == {"warning"}
    (item,) = heldout.found(ev)["evidence-fp16-overflow"].items
    assert (
        "5 fp16 overflow(s) skipped their step on rank 0, the loss scale falling from 64 to 2"
        in item
    )
    # (no step count, no divergence the file does not state)
    assert "skipped" not in item.split("skipped their step", 1)[1]
    assert "NaN" not in item


def test_a_runs_first_overflows_from_its_initial_scale_are_no_warning(tmp_path: Path) -> None:
    # the scaler starts at 2**16 and halves until a step fits: normal, the scale stays high
    ev = _write(
        tmp_path,
        "".join(
            f"[2024-09-15 00:13:28,{i:03d}] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] "
            f"OVERFLOW! Rank 0 Skipping step. Attempted loss scale: {2 ** (16 - i)}, reducing to "
            f"{2 ** (15 - i)}\n"
            for i in range(4)
        ),
    )
    assert ev.files[0].formats == ["log"]
    assert not [f for f in ev.failures if f["kind"] == "fp16_overflow"]
    assert _severities(ev) == set()


def test_an_engine_that_skipped_1995_of_2000_steps_hardly_trained() -> None:
    ev = _load("hf_trainer_deepspeed_t5_11b_loss_0.0_step2000_skipped1995_padded_tqdm_tf14531.log")
    assert ev.files[0].formats == ["log"]
    (overflow,) = ev.failures
    assert (overflow["kind"], overflow["line"]) == ("fp16_overflow", 4)
    assert _severities(ev) == {"warning"}
    (item,) = heldout.found(ev)["evidence-fp16-overflow"].items
    assert "DeepSpeed's engine skipped 1995 of its 2000 steps" in item
    assert "the Trainer logged a loss of 0.0 from line 2 on" in item
    # (no overflow line is in the file: no count or scale of them is said)
    assert "loss scale falling" not in item


def test_horovods_stall_with_ranks_in_different_collectives_is_a_deadlock() -> None:
    ev = _load(
        "horovod_mpirun_prefixed_stall_inspector_ranks0_1_broadcast_vs_allreduce_automl563.log"
    )
    (stall,) = ev.failures
    assert (stall["kind"], stall["line"], stall["missing_ranks"]) == ("horovod_deadlock", 1, [0, 1])
    assert _severities(ev) == {"critical"}
    (item,) = heldout.found(ev)["evidence-horovod-deadlock"].items
    # (the stall inspector lists, for each rank, the tensors THAT rank has not submitted)
    assert "waited more than 60 s" in item
    assert (
        "rank 0 had not submitted HorovodBroadcast_box_net_box_0_bias_0 and 5 more, the list cut (broadcast)"
        in item
    )
    assert (
        "rank 1 had not submitted DistributedMomentumOptimizer_Allreduce/"
        "HorovodAllreduce_gradients_AddN_100_0 and 5 more, the list cut (allreduce)"
    ) in item
    assert "different collectives (broadcast vs allreduce)" in item
    assert "shut" not in item  # (no rank is marked "!", no "Will shutdown")


def test_horovods_stall_of_one_late_rank_in_the_same_collective_is_a_warning(
    tmp_path: Path,
) -> None:
    ev = _write(
        tmp_path,
        "[2021-02-02 21:19:07.345988: W horovod/common/stall_inspector.cc:105] One or more "
        "tensors were submitted to be reduced, gathered or broadcasted by subset of ranks and are "
        "waiting for remainder of ranks for more than 10 seconds. This may indicate that "
        "different ranks are trying to submit different tensors or that only subset of ranks is "
        "submitting tensors, which will cause deadlock. \n"
        "Missing ranks:\n"
        "3: [DistributedSGD_Allreduce/HorovodAllreduce_grads_0]\n",
    )
    (stall,) = ev.failures
    assert (stall["kind"], stall["missing_ranks"]) == ("horovod_stall", [3])
    assert _severities(ev) == {"warning"}
    (item,) = heldout.found(ev)["evidence-horovod-stall"].items
    assert (
        "rank 3 had not submitted DistributedSGD_Allreduce/HorovodAllreduce_grads_0 (allreduce)"
        in item
    )


def test_xlas_out_of_memory_wrapped_in_two_lines_is_the_devices() -> None:
    ev = _load("jax_2019_replica0_resource_exhausted_oom_5520758552_bytes_wrapped_jax788.log")
    (oom,) = ev.failures
    assert (oom["kind"], oom["line"], oom["library"], oom["rank"]) == ("device_oom", 1, "XLA", None)
    assert _severities(ev) == {"critical"}
    (item,) = heldout.found(ev)["evidence-device-out-of-memory"].items
    assert "tried to allocate 5520758552 B (5.14 GiB) on replica 0" in item
    # (the copy's "[1] " before the line names no rank)
    assert "Rank 1" not in item


def test_megatron_iterations_with_a_nan_grad_norm_and_no_loss_diverged() -> None:
    ev = _load(
        "megatron_deepspeed_iter5426_5428_grad_norm_nan_no_lm_loss_nan_iters_0_head_cut_mds396.log"
    )
    assert ev.files[0].formats == ["log"]
    (diverged,) = ev.failures
    assert (diverged["kind"], diverged["line"]) == ("loss_diverged", 2)
    assert _severities(ev) == {"warning"}
    (item,) = heldout.found(ev)["evidence-loss-diverged"].items
    assert (
        "the gradient norm is nan at iteration 5426 of 250000 and on 2 more iteration line(s)"
        in item
    )
    assert not any("no line says an error" in m for m in heldout.said(ev))


def test_a_megatron_line_with_a_finite_grad_norm_is_no_divergence(tmp_path: Path) -> None:
    line = (
        " iteration {i}/  250000 | consumed samples: 43408 | elapsed time per iteration (ms): "
        "4247.9 | learning rate: 2.999E-04 | global batch size:     8 | lm loss: 2.1E+00 | loss "
        "scale: 1.0 | grad norm: 0.512 | number of nan iterations:   0 |\n"
    )
    ev = _write(tmp_path, "".join(line.format(i=i) for i in range(5426, 5429)))
    assert ev.files[0].formats == ["log"]
    assert not ev.failures


def test_a_log_whose_logger_lines_follow_progress_bars_is_a_programs_log() -> None:
    # (tqdm leaves no newline: the logger's line starts after the bar's closing bracket)
    text = "".join(
        f" 14%|##      | {n}/2724 [13:58:09<86:18:35, 132.44s/it][2023-06-07 22:16:00,018] "
        "[INFO] [engine.py:1:step] a step\n"
        for n in range(377, 380)
    )
    assert logs.is_program_log(text)
    # bars alone say nothing of a logger
    assert not logs.is_program_log(" 14%|##   | 377/2724 [13:55:57<86:19:20, 132.41s/it]\n" * 3)


def test_a_tensorflow_logger_line_wrapped_in_two_is_a_log() -> None:
    assert logs.is_program_log(
        "2019-06-13 01:17:08.886805: W external/x/y.cc:672] something went \nslow\n"
    )


def test_a_long_overflow_line_reads_in_linear_time() -> None:
    line = (
        "[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: "
        + "9" * 200000
        + " Resource exhausted: Out "
        + " " * 200000
        + "| grad norm: "
        + "n" * 100000
    )
    started = time.process_time()
    logs.is_program_log(line + "\n" + line)
    with contextlib.suppress(ParseError):  # (no failure in it: only the time is judged)
        logs.parse(line + "\n" + line + "\n")
    assert time.process_time() - started < 5.0
