"""Outputs of round FFFF's held-out evaluation (set 624, framework logs on NVIDIA clusters) that the
advisor read in part before this change (tests/data/evidence_heldout_67, sources in
tests/data/SOURCES.md): Horovod's oldest stall warning, whose "[ready ranks: ...]" lists name the
ranks that HAD submitted, read with no rank named (and NCCL 2.0's channel lines, which show no
"/GDRDMA" mark in any documented form, read as GPU Direct RDMA unused); Megatron-LLM's NaN
gradient norm and the iteration it skipped, not read at all."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_67"

HOROVOD = "horovod-tf-nccl2-old-ring-ib-then-stall-warning-ready-rank2-cut.log"
MEGATRON = "megatron-llm-bf16-bad-grad-norm-nan-skipped-iteration.log"

_WARNING = (
    "WARNING: One or more tensors were submitted to be reduced, gathered or broadcasted by subset "
    "of ranks and are waiting for remainder of ranks for more than 60 seconds. This may indicate "
    "that different ranks are trying to submit different tensors or that only subset of ranks is "
    "submitting tensors, which will cause deadlock. "
)


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


# --- Horovod's "[ready ranks: ...]" stall warning ----------------------------------------------


def test_ready_ranks_lists_name_the_ranks_that_had_not_submitted() -> None:
    ev = _load(HOROVOD)
    (stall,) = ev.failures
    assert (stall["kind"], stall["line"], stall["library"]) == ("horovod_stall", 8, "Horovod")
    # AddN_23..28 ready on rank 2 alone, AddN_22 on ranks 2 and 3: ranks 0, 1 (and 3) late
    assert stall["missing_ranks"] == [0, 1, 3]
    said = stall["exception_type"]
    assert (
        "rank 0 had not submitted v0/tower_0/HorovodAllreduce_v0_tower_0_gradients_AddN_23_0 and 6 more (allreduce)"
        in said
    )
    assert (
        "rank 3 had not submitted v0/tower_0/HorovodAllreduce_v0_tower_0_gradients_AddN_23_0 and 5 more (allreduce)"
        in said
    )
    assert "rank 2 had not" not in said
    assert "the ranks that had submitted (2, 3)" in said
    # (the eighth name, cut by the copy, is no tensor of its own)
    assert "HorovodAllred " not in said and "HorovodAllred)" not in said
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-horovod-stall", "warning")]


def test_nccl_2_0_channel_lines_say_nothing_of_gdr() -> None:
    ev = _load(HOROVOD)
    assert not [f for f in ev.failures if f["kind"] == "nccl_no_gdr"]
    _, outcome = heldout.imported(ev)
    assert "GPU Direct RDMA" not in str(outcome.findings)


def test_a_newer_channel_line_without_gdr_is_still_a_note(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "node1:20:289 [0] NCCL INFO Ring 00 : 3[3] -> 0[0] [receive] via NET/IB/0\n"
        "node1:20:289 [0] NCCL INFO Ring 00 : 0[0] -> 1[1] via P2P/IPC\n",
    )
    (gdr,) = [f for f in ev.failures if f["kind"] == "nccl_no_gdr"]
    assert gdr["host"] == "node1"


def test_ready_ranks_one_entry_a_line_under_mpiruns_tag_read_alike(tmp_path: Path) -> None:
    # (horovod issue 100's shape: "Stalled ops:" alone, each entry on its line with a trailing
    # comma; issue 530's: seven ranks, six ready, unsorted)
    ev = _write(
        tmp_path,
        "[1,0]<stderr>:" + _WARNING + "\n"
        "[1,0]<stderr>:Stalled ops: \n"
        "[1,0]<stderr>:HorovodBroadcast_conv1_weights_0 [ready ranks: 5, 6, 3, 1, 4, 0], \n"
        "[1,0]<stderr>:HorovodBroadcast_conv1_biases_0 [ready ranks: 5, 6, 3, 1, 4, 0], \n",
    )
    (stall,) = ev.failures
    assert stall["kind"] == "horovod_stall"
    assert stall["missing_ranks"] == [2]
    assert (
        "rank 2 had not submitted HorovodBroadcast_conv1_weights_0 and 1 more (broadcast)"
        in stall["exception_type"]
    )
    assert "(0, 1, 3, 4, 5, 6)" in stall["exception_type"]


def test_the_missing_ranks_form_is_read_as_before(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        _WARNING + "\nStalled ops:\n"
        "HorovodAllreduce_grads_0 [missing ranks: 0]\nHorovodAllreduce_grads_1 [missing ranks: 0, 2]\n",
    )
    (stall,) = ev.failures
    assert stall["missing_ranks"] == [0, 2]
    assert "had submitted" not in stall["exception_type"].split("which the other ranks had")[1]


def test_a_long_ready_ranks_line_reads_in_linear_time(tmp_path: Path) -> None:
    entries = ", ".join(f"HorovodAllreduce_g_{i}_0 [ready ranks: 1, 2]" for i in range(20000))
    ev = _write(tmp_path, _WARNING + "Stalled ops: " + entries + "\n")
    (stall,) = ev.failures
    assert stall["missing_ranks"] == [0]
    assert "and 19999 more" in stall["exception_type"]


# --- Megatron's skipped iteration after a NaN gradient norm ------------------------------------


def test_megatron_llms_nan_grad_norm_and_skipped_iteration_is_a_warning() -> None:
    ev = _load(MEGATRON)
    assert ev.files[0].formats == ["log"]
    (skip,) = ev.failures
    assert (skip["kind"], skip["line"], skip["library"]) == ("step_skipped", 3, "Megatron")
    said = skip["exception_type"]
    assert said.startswith("Megatron found the gradient norm nan (line 2)")
    assert "skipped the update of 1 iteration(s)" in said
    assert "iteration 3634 of 8000" in said and "loss scale of 1 " in said
    assert skip["rank"] is None and skip["missing_ranks"] is None
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-step-skipped", "warning")]
    (item,) = heldout.items(outcome, "evidence-step-skipped")
    assert "line 3" in item
    # (nothing diverged: the loss is not said to be NaN)
    assert "evidence-loss-diverged" not in str(outcome.findings)
    assert not any("no form the advisor reads" in m for m in heldout.said(ev))


def test_skipped_iterations_of_other_shapes(tmp_path: Path) -> None:
    line = (
        " iteration {i:8d}/  250000 | consumed samples: {c:12d} | elapsed time per iteration (ms): "
        "4247.9 | learning rate: 2.999E-04 | global batch size:     8 | lm loss: 2.1E+00 | loss "
        "scale: {s} | grad norm: 1.2 | number of skipped iterations: {k:3d} | number of nan "
        "iterations:   0 |\n"
    )
    # bf16 Megatron-LM behind pdsh's host prefix, no warning line: the scale of 1 says it
    bf16 = _write(
        tmp_path,
        "".join(
            "node07: " + line.format(i=i, c=8 * i, s="1.0", k=1 if i == 12 else 0)
            for i in range(10, 14)
        ),
    )
    (skip,) = bf16.failures
    assert (skip["kind"], skip["line"]) == ("step_skipped", 3)
    assert "iteration 12 of 250000" in skip["exception_type"]
    # fp16's scaler halving a high scale: its overflows, a note, no warning
    fp16 = _write(
        tmp_path,
        "".join(
            line.format(i=i, c=8 * i, s="32768.0", k=1 if i < 12 else 0) for i in range(10, 14)
        ),
    )
    assert not fp16.failures
    assert any("the fp16 loss scaler's overflows" in m for m in heldout.said(fp16))
    level, _ = heldout.imported(fp16)
    assert level == "READY"
    # the warning alone, its iteration line cut off the copy
    alone = _write(tmp_path, "***WARNING*** Bad grad_norm detected (grad_norm=inf)\n")
    (bad,) = alone.failures
    assert (bad["kind"], bad["line"]) == ("step_skipped", 1)
    assert "gradient norm inf" in bad["exception_type"]
