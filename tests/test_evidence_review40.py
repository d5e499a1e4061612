"""Review 40 of round TTT's readings and review 39's mends (Ray Train's errored run, an
evaluation bar's loss, a full disk in a log of two ranks, CSV rows of two widths taken for a wrap,
an empty ibv_devices listing among a collector's sections, footers of runs launched by srun or
by --npernode, patterns quadratic on long lines): each fault it found, on its input
(tests/data/review40, described in tests/data/SOURCES.md; nvidia-smi's in
tests/test_evidence_review40_smi.py)."""

from __future__ import annotations

import time

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import logs, rdma
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review40"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def test_ray_trains_errored_run_is_no_healthy_start() -> None:
    ev = _load("ray_train_training_errored_error_file_only_said_no_error.log")
    (error,) = ev.failures
    assert error["message"].startswith("Training errored after 0 iterations")
    assert not any("no error" in m for m in heldout.said(ev))


def test_an_evaluation_bars_loss_is_no_training_step() -> None:
    ev = _load("tqdm_train_bar_then_eval_bar_loss_nan_said_diverged_and_step_200.log")
    (note,) = [m for m in heldout.said(ev) if "training loop" in m]
    assert "diverged" not in note
    assert "of 200" not in note


def test_a_full_disk_before_the_time_out_by_the_clock_is_not_said_to_come_after_it() -> None:
    ev = _load("disk_full_two_rank_logs_cat_rank1_first_said_after_failure.log")
    (full,) = [f for f in ev.failures if f["kind"] == "disk_full"]
    assert "which it did not cause" not in full["exception_type"]


def test_csv_rows_of_two_widths_are_not_a_terminals_wrap() -> None:
    ev = _load("nvidia_smi_query_csv_8gpu_alternating_widths_rows_joined_as_wrap.txt")
    assert len(ev.gpus) == 8
    assert "evidence-gpu-ecc-uncorrected" in heldout.found(ev)


def test_an_empty_ibv_devices_listing_before_a_collectors_next_section_is_no_device() -> None:
    ev = _load("ibv_devices_empty_in_collector_sections_no_prompt_no_device_lost.txt")
    assert [f["kind"] for f in ev.failures] == ["rdma_no_device"]


def test_footers_of_runs_launched_by_srun_or_npernode_are_no_slower_rerun() -> None:
    ev = _load("nccl_tests_footers_np8_then_srun_16_ranks_called_rerun_slower.txt")
    assert [b["ranks"] for b in ev.benchmarks] == [8, 16]
    assert not any("rerun_best" in b for b in ev.benchmarks)
    ev = _load("nccl_tests_footers_np8_then_npernode_hostfile_16_called_rerun_slower.txt")
    assert ev.benchmarks[1]["ranks"] is None  # (--npernode over a hostfile: not counted here)
    assert not any("rerun_best" in b for b in ev.benchmarks)


def test_the_new_patterns_stay_linear_on_long_lines() -> None:
    pad = " " * 100_000
    for pattern, line in (
        (logs._RAY_TRAIN_FINISHED_RE, f"Training finished iteration 1 at x. Total running time: 51min{pad}x"),
        (logs._TRAINING_DONE_RE, f"Training completed{pad}x"),
        (logs.TQDM_LOSS_RE, "|1/2 [" * 16_000),
        (rdma._DIAG_IBERROR_RE, f"ibnetdiscover: iberror: failed: discover failed{pad}x"),
    ):  # fmt: skip
        # this process's CPU time: other jobs on a shared host do not count against it
        began = time.process_time()
        pattern.search(line)
        # (each took 28 to 49 s before: a lazy match before "\s*$", an unbounded postfix)
        assert time.process_time() - began < 1.0


def test_an_exit_barriers_store_error_after_the_nodes_workers_succeeded_is_no_failure() -> None:
    ev = _load("elastic_exit_barrier_after_success_store_gone_not_ready_in_base_too.log")
    assert not ev.failures
    (note,) = [m for m in heldout.said(ev) if "exit barrier" in m]
    assert note.endswith(
        "this node's own workers had finished (SUCCEEDED), the store error under it is the "
        "barrier's"
    )
