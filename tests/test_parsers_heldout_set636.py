"""Outputs of round HHHH's held-out evaluation (set 636, framework logs on NVIDIA clusters) that the
advisor read in part or not at all before this change (tests/data/evidence_heldout_68, sources in
tests/data/SOURCES.md): a Horovod stall that ended in Horovod's shutdown read as a warning, rank
1's exit after it the root cause and Keras' NaN loss above it unsaid; NeMo's Lightning bar with
its "reduced_train_loss=" not read at all; vLLM's engine core's "EngineCore encountered a fatal
error." unknown; and a vLLM worker's CUDA error above "EngineCore failed to start." unsaid."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_68"

HOROVOD = (
    "horovod_tf_keras_loss_nan_stall_inspector_missing_rank0_allreduce_grads_then_shutdown_"
    "mpirun_rank1_exit1.log"
)
NEMO = (
    "nemo_launcher_24.05_a3_mega_2node_llama2_7b_tail_f_epoch0_7_of_15_reduced_train_loss_"
    "11.50_healthy.log"
)
VLLM_FATAL = (
    "vllm_v1_h100_nvl_mig_fp8_dump_input_scheduler_stats_21_running_enginecore_fatal_error_"
    "21466_cut.log"
)
VLLM_WORKER = (
    "vllm_windows_v0.25_worker_pp0_cuda_illegal_memory_access_enginecore_failed_to_start_72_cut.log"
)

_STALL = (
    "[2021-02-02 21:19:07.345988: W horovod/common/stall_inspector.cc:105] One or more tensors "
    "were submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting "
    "for remainder of ranks for more than 60 seconds. This may indicate that different ranks "
    "are trying to submit different tensors or that only subset of ranks is submitting tensors, "
    "which will cause deadlock. \n"
    "Missing ranks:\n"
    "2: [DistributedAdam_Allreduce/HorovodAllreduce_grads_3_0]\n"
)
_SHUTDOWN = (
    "tensorflow.python.framework.errors_impl.UnknownError:  Horovod has been shut down. This was "
    "caused by an exception on one of the ranks or an attempt to allreduce, allgather or "
    "broadcast a tensor after one of the ranks finished execution. If the shutdown was caused by "
    "an exception, you should see the exception in the log before the first shutdown message.\n"
)
_MPIRUN = (
    "--------------------------------------------------------------------------\n"
    "mpirun detected that one or more processes exited with non-zero status, thus causing\n"
    "the job to be terminated. The first process to do so was:\n"
    "\n"
    "  Process name: [[1234,1],3]\n"
    "  Exit code:    1\n"
    "--------------------------------------------------------------------------\n"
)


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


def _kinds(ev: EvidenceFacts) -> list[tuple[str, int]]:
    return [(f["kind"], f["line"]) for f in ev.failures]


# --- Horovod: a stall that ended in the shutdown, Keras' NaN loss above it ---------------------


def test_a_stall_horovod_then_shut_down_on_is_the_root_cause() -> None:
    ev = _load(HOROVOD)
    assert _kinds(ev) == [
        ("loss_diverged", 1),
        ("horovod_deadlock", 5),
        ("horovod_shutdown", 32),
        ("launcher_exit", 46),
    ]
    nan, stall, _, mpirun = ev.failures
    assert "the loss is NaN from the first step logged, step 1 of 1" in nan["exception_type"]
    assert stall["missing_ranks"] == [0] and stall["root_cause"]
    said = stall["exception_type"]
    assert "rank 0 had not submitted" in said and "HorovodAllreduce_grads_0 (allreduce)" in said
    assert "Horovod then shut down (line 32)" in said
    # (rank 1's exit after the shutdown is its consequence, not the first failure)
    assert (mpirun["rank"], mpirun["exit_code"], mpirun["root_cause"]) == (1, 1, False)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [
        ("evidence-horovod-deadlock", "critical"),
        ("evidence-horovod-shutdown", "critical"),
        ("evidence-launcher-exit", "critical"),
        ("evidence-loss-diverged", "warning"),
    ]
    assert "the first to fail" not in str(outcome.findings)


def test_another_rank_count_stalled_then_shut_down_reads_alike(tmp_path: Path) -> None:
    ev = _write(tmp_path, _STALL + "\n" + _SHUTDOWN + _MPIRUN)
    (stall,) = [f for f in ev.failures if f["kind"] == "horovod_deadlock"]
    assert stall["missing_ranks"] == [2] and stall["root_cause"]
    (mpirun,) = [f for f in ev.failures if f["kind"] == "launcher_exit"]
    assert (mpirun["rank"], mpirun["root_cause"]) == (3, False)
    # (no loss line in the copy: none is said)
    assert not [f for f in ev.failures if f["kind"] == "loss_diverged"]


def test_a_stall_with_no_shutdown_after_it_stays_a_warning(tmp_path: Path) -> None:
    ev = _write(tmp_path, _STALL)
    assert [(f["kind"], f["root_cause"]) for f in ev.failures] == [("horovod_stall", False)]


def test_keras_progress_bar_lines_of_a_healthy_run_are_its_loss(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "Epoch 1/2\n"
        "469/469 [==============================] - 12s 24ms/step - loss: 0.2931 - accuracy: 0.91\n"
        "Epoch 2/2\n"
        "469/469 [==============================] - 11s 23ms/step - loss: 0.1025 - accuracy: 0.97\n",
    )
    assert ev.failures == []
    # (each epoch's last batch, "469/469", under its own "Epoch N/M": two epochs, not one step
    # printed by two processes)
    assert any(
        "a training loop's loss lines: 2 epoch(s) logged, from epoch 1 of 2, batch 469 of 469 "
        "(loss 0.2931) to epoch 2 of 2, batch 469 of 469 (loss 0.1025)" in m
        for m in heldout.said(ev)
    )
    level, _ = heldout.imported(ev)
    assert level == "READY"


# --- NeMo's Lightning bar: "reduced_train_loss=" ----------------------------------------------


def test_nemo_bar_with_reduced_train_loss_is_a_healthy_loop() -> None:
    ev = _load(NEMO)
    assert ev.files[0].formats == ["log"]
    assert ev.failures == []
    assert any(
        "a training loop's loss lines: 1 step(s) logged, from step 7 of 15 (loss 11.50)" in m
        for m in heldout.said(ev)
    )
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_lightning_bar_with_train_loss_step_reads_alike(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "Epoch 2:  40%|####      | 40/100 [00:10<00:15, 3.91it/s, v_num=3, train_loss_step=0.713]\n"
        "Epoch 2:  41%|####1     | 41/100 [00:10<00:15, 3.91it/s, v_num=3, train_loss_step=0.702]\n",
    )
    assert ev.failures == []
    assert any("(loss 0.713)" in m and "(loss 0.702)" in m for m in heldout.said(ev))


def test_a_bar_whose_only_loss_is_a_validation_loss_is_not_read_as_training(
    tmp_path: Path,
) -> None:
    ev = _write(
        tmp_path,
        "Epoch 0: 100%|##########| 10/10 [00:01<00:00, 7.1it/s, val_loss=nan]\n",
    )
    assert not [f for f in ev.failures if f["kind"] == "loss_diverged"]


# --- vLLM: the engine core's fatal error while serving -----------------------------------------


def test_engine_core_fatal_error_is_the_engine_dying() -> None:
    ev = _load(VLLM_FATAL)
    assert _kinds(ev) == [("launcher_exit", 9)]
    (core,) = ev.failures
    assert core["exception_type"].startswith(
        "vLLM (its engine core met a fatal error while serving and stopped"
    )
    assert "cut before its exception" in core["exception_type"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-launcher-exit", "critical")]
    # (the dump above it is the step that failed, not a program's first error line)
    assert "dump_input.py:76" not in str(outcome.findings)


def test_a_prefixed_fatal_error_of_a_data_parallel_core_reads_alike(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "(EngineCore_DP0 pid=4242) ERROR 09-02 10:11:12 [core.py:700] EngineCore encountered a "
        "fatal error.\n"
        "(EngineCore_DP0 pid=4242) ERROR 09-02 10:11:12 [core.py:700] Traceback (most recent "
        "call last):\n"
        '(EngineCore_DP0 pid=4242) ERROR 09-02 10:11:12 [core.py:700]   File "/usr/lib/'
        'python3.12/site-packages/vllm/v1/engine/core.py", line 691, in run_engine_core\n',
    )
    (core,) = ev.failures
    assert (core["kind"], core["line"]) == ("launcher_exit", 1)
    assert "met a fatal error while serving" in core["exception_type"]


# --- vLLM: a worker's CUDA error above "EngineCore failed to start." ----------------------------


def test_the_workers_cuda_error_above_the_failed_start_is_its_cause() -> None:
    ev = _load(VLLM_WORKER)
    assert _kinds(ev) == [("cuda_error", 1)]
    (cuda,) = ev.failures
    assert cuda["exception_type"] == "an illegal memory access was encountered"
    assert cuda["message"].startswith("torch.AcceleratorError: CUDA error: an illegal memory")
    assert (cuda["worker"], cuda["pid"]) == ("Worker_PP0", 23220)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-cuda-error", "critical")]
    assert "the traceback under it says why" not in str(outcome.findings)


def test_a_linux_workers_cuda_error_above_a_fatal_error_reads_alike(tmp_path: Path) -> None:
    tag = "(VllmWorker TP1 pid=811) ERROR 03-21 10:34:30 [multiproc_executor.py:522] "
    core = "(EngineCore_DP0 pid=800) ERROR 03-21 10:34:30 [core.py:588] "
    ev = _write(
        tmp_path,
        f"{tag}RuntimeError: CUDA error: an illegal memory access was encountered\n"
        f"{tag}CUDA kernel errors might be asynchronously reported at some other API call\n"
        f"{core}EngineCore encountered a fatal error.\n"
        f"{core}Traceback (most recent call last):\n",
    )
    assert _kinds(ev) == [("cuda_error", 1)]
