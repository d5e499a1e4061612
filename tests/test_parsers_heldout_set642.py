"""Outputs of round IIII's held-out evaluation (set 642, framework logs on NVIDIA clusters) that
the advisor read in part or not at all before this change (tests/data/evidence_heldout_69,
sources in tests/data/SOURCES.md): torch's store-based barrier that 7 of 8 ranks wait at, rank 4
never joined, read as a warning with rank 4 unnamed; Megatron's iteration line a copy wrapped
over four lines, its "grad norm: nan" not read; NeMo's Lightning bar whose
"reduced_train_loss=nan.0" was not read as a loss; and vLLM's engine client's "Got fatal signal
from worker processes, shutting down." read only as a program's first error line."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_69"

BARRIER = (
    "lightning_pt17_store_based_barrier_waiting_world8_worker_count7_rank4_absent_pl4420_cut.log"
)
MEGATRON = (
    "megatron_bridge_dsv4pro_fp8mx_gb300_wrapped_iter5_grad_norm_nan_nan_iters_0_mb5306_cut.log"
)
NEMO = (
    "nemo_megatron_gpt7b_ptl_bar_step9000_reduced_train_loss_nan_val_loss_7.04_checkpoint_"
    "nemo7957.log"
)
VLLM = (
    "vllm_v0.8.4_ray_tp16_2x8_h800_compiled_dag_cancelling_critical_fatal_signal_workers_"
    "vllm16692_cut.log"
)


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


def _kinds(ev: EvidenceFacts) -> list[tuple[str, int]]:
    return [(f["kind"], f["line"]) for f in ev.failures]


def _barrier_waits(ranks: list[int], world: int, joined: int, head: str = "") -> str:
    return "".join(
        f"{head}Waiting in store based barrier to initialize process group for rank: {r}, key: "
        f"store_based_barrier_key:1 (world_size={world}, worker_count={joined}, "
        "timeout=0:30:00)\n"
        for r in ranks
    )


# --- torch's store-based barrier: 7 of 8 ranks waiting, rank 4 never came ----------------------


def test_ranks_waiting_at_the_store_barrier_for_a_rank_never_seen_is_a_hang() -> None:
    ev = _load(BARRIER)
    assert ev.files[0].formats == ["log"]
    assert _kinds(ev) == [("store_barrier_wait", 1)]
    (wait,) = ev.failures
    assert (wait["numel"], wait["rank_size"], wait["missing_ranks"]) == (7, 8, [4])
    assert "rank(s) 0, 1, 2, 3, 5, 6, 7 waited for the rest" in wait["exception_type"]
    assert "rank(s) 4 never joined" in wait["exception_type"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-store-barrier-ranks-missing", "critical")]


def test_newer_torchs_wording_behind_a_launcher_tag_names_its_missing_ranks(
    tmp_path: Path,
) -> None:
    # torch 2.x: "num_workers_joined=", the line behind a logger's own prefix; 16 ranks, two
    # never came
    text = "".join(
        f"[rank{r}]:I0101 10:00:00.000 c10d_logger.py:1] Waiting in store based barrier to "
        f"initialize process group for rank: {r}, key: store_based_barrier_key:1 "
        "(world_size=16, num_workers_joined=14, timeout=0:10:00)\n"
        for r in range(16)
        if r not in (9, 13)
    )
    ev = _write(tmp_path, text)
    (wait,) = [f for f in ev.failures if f["kind"] == "store_barrier_wait"]
    assert wait["missing_ranks"] == [9, 13]
    level, _ = heldout.imported(ev)
    assert level == "NOT READY"


def test_a_large_world_of_few_joined_names_the_first_missing_ranks(tmp_path: Path) -> None:
    # 2 of 64 joined (a node's launcher alone started): all 62 kept, the first 16 in words
    ev = _write(tmp_path, _barrier_waits([0, 1], 64, 2))
    (wait,) = [f for f in ev.failures if f["kind"] == "store_barrier_wait"]
    assert wait["missing_ranks"] == list(range(2, 64))
    assert (
        "rank(s) 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17 and 46 more never"
        in (wait["exception_type"])
    )


def test_a_barrier_whose_waiting_ranks_are_not_all_seen_names_none(tmp_path: Path) -> None:
    # 7 joined, only 3 of them in the copy: which rank is missing is unknown, a warning
    ev = _write(tmp_path, _barrier_waits([0, 2, 6], 8, 7, head="INFO:root:"))
    (wait,) = [f for f in ev.failures if f["kind"] == "store_barrier_wait"]
    assert wait["missing_ranks"] is None
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-store-barrier-wait", "warning")]


def test_a_barrier_that_completed_after_the_waits_is_no_failure(tmp_path: Path) -> None:
    text = _barrier_waits([0, 1, 2], 4, 3) + (
        "Rank 0: Completed store-based barrier for key:store_based_barrier_key:1 with 4 nodes.\n"
    )
    ev = _write(tmp_path, text)
    assert not [f for f in ev.failures if f["kind"] == "store_barrier_wait"]


# --- Megatron's iteration line wrapped over four lines, its gradient norm NaN ------------------


def test_a_wrapped_megatron_iteration_with_a_nan_grad_norm_is_read() -> None:
    ev = _load(MEGATRON)
    assert ev.files[0].formats == ["log"]
    assert _kinds(ev) == [("loss_diverged", 1)]
    (nan,) = ev.failures
    said = nan["exception_type"]
    assert said.startswith("the gradient norm is nan at iteration 5 of 50, and no loss is printed")
    assert said.endswith("; iteration 5 took 21392.5 ms")
    # (the record's fields joined onto its first line, as Megatron printed it)
    assert "| loss scale: 1.0 | grad norm: nan |" in nan["message"]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-loss-diverged", "warning")]


def test_megatron_lms_own_fields_wrapped_at_other_places_read_alike(tmp_path: Path) -> None:
    # Megatron-LM's "(ms)" field name, a launcher's tag, the norm starting its own line, and
    # an "inf"; the next iteration's own line is not taken into the record
    ev = _write(
        tmp_path,
        " iteration      120/  100000 | consumed samples:        15360 |\n"
        " elapsed time per iteration (ms): 4247.9 | learning rate: 2.999E-05 |\n"
        " global batch size:   128 | loss scale: 1.0 |\n"
        " grad norm: inf | number of skipped iterations:   0 | number of nan iterations:   0 |\n"
        " iteration      121/  100000 | consumed samples:        15488 |\n",
    )
    (nan,) = [f for f in ev.failures if f["kind"] == "loss_diverged"]
    assert nan["line"] == 1
    said = nan["exception_type"]
    assert said.startswith("the gradient norm is inf at iteration 120 of 100000, and no loss")
    assert said.endswith("; iteration 120 took 4247.9 ms")


def test_a_wrapped_iteration_with_a_finite_grad_norm_says_no_failure(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "iteration 5/50 | elapsed time per iteration: 21392.5 ms |\n"
        "learning rate: 1.350000E-04 | global batch size: 4096 |\n"
        "loss scale: 1.0 | grad norm: 0.512 |\n"
        "number of skipped iterations: 0 | number of nan iterations: 0\n",
    )
    assert not [f for f in ev.failures if f["kind"] == "loss_diverged"]


# --- NeMo's Lightning bar: "reduced_train_loss=nan.0", a checkpoint saved after it -------------


def test_nemo_bar_with_a_nan_reduced_train_loss_is_a_diverged_run() -> None:
    ev = _load(NEMO)
    assert ev.files[0].formats == ["log"]
    assert _kinds(ev) == [("loss_diverged", 1)]
    (nan,) = ev.failures
    said = nan["exception_type"]
    assert "the loss is NaN from the first step logged, step 9000 of 301500" in said
    # (one step in the copy: the 8999 before it are not said to have been NaN)
    assert "no step logged had a finite loss" in said
    assert "saved a checkpoint after it, at global step 9000 (val_loss 7.04238, line 2)" in said
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-loss-diverged", "warning")]
    assert any("9000 of 301500 (loss nan)" in m for m in heldout.said(ev))


def test_a_lightning_bar_with_train_loss_inf_and_no_checkpoint_reads_alike(
    tmp_path: Path,
) -> None:
    ev = _write(
        tmp_path,
        "Epoch 3:  50%|#####     | 50/100 [00:20<00:20, 2.5it/s, v_num=1, train_loss=inf]\n",
    )
    (nan,) = [f for f in ev.failures if f["kind"] == "loss_diverged"]
    assert (
        "the loss is infinite from the first step logged, step 50 of 100" in (nan["exception_type"])
    )
    assert "checkpoint" not in nan["exception_type"]


def test_a_checkpoint_saved_before_the_nan_is_not_said(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "Epoch 0, global step 100: 'val_loss' reached 7.50000 (best 7.50000), saving model to "
        "'/ckpt/a.ckpt' as top 3\n"
        "Epoch 0: :   1%| | 200/301500 [0:02:00<55:37:46, v_num=0, reduced_train_loss=7.1, "
        "global_step=200]\n"
        "Epoch 0: :   1%| | 300/301500 [0:03:00<55:37:46, v_num=0, reduced_train_loss=nan.0, "
        "global_step=300]\n",
    )
    (nan,) = [f for f in ev.failures if f["kind"] == "loss_diverged"]
    assert "the loss turned NaN at step 300 of 301500" in nan["exception_type"]
    assert "checkpoint" not in nan["exception_type"]


# --- vLLM: the engine client's fatal signal from its workers -----------------------------------


def test_vllms_fatal_signal_from_workers_is_the_engine_dying() -> None:
    ev = _load(VLLM)
    assert _kinds(ev) == [("launcher_exit", 4)]
    (core,) = ev.failures
    said = core["exception_type"]
    assert said.startswith("vLLM (its engine client got the fatal signal")
    assert "none read in the copy" in said
    assert "Ray cancelled the compiled graph's workers on 7 actor(s)" in said
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-launcher-exit", "critical")]
    assert "core_client.py:359" in heldout.items(outcome, "evidence-launcher-exit")[0]
    # (no worker, rank or device is named: the excerpt holds none)
    assert core["rank"] is None and core["device"] is None


def test_the_executors_fatal_signal_of_another_release_reads_alike(tmp_path: Path) -> None:
    # the engine core's executor's own line (vLLM's "Mulitproc" spelling), behind its tag
    ev = _write(
        tmp_path,
        "(EngineCore_0 pid=382867) CRITICAL 04-22 17:08:49 [multiproc_executor.py:49] "
        "MulitprocExecutor got fatal signal from worker processes, shutting down. See stack "
        "trace above for root cause issue.\n",
    )
    (core,) = ev.failures
    assert core["kind"] == "launcher_exit"
    assert core["exception_type"].startswith("vLLM (its engine core's executor got the fatal")
    assert "Ray" not in core["exception_type"]


def test_a_workers_error_above_the_fatal_signal_is_the_failure_said(tmp_path: Path) -> None:
    # the worker's own exception in the copy: it is what failed, the fatal signal only relays it
    ev = _write(
        tmp_path,
        "(VllmWorker rank=1 pid=9782) ERROR 07-10 11:40:39 [multiproc_executor.py:374] "
        "WorkerProc hit an exception.\n"
        "(VllmWorker rank=1 pid=9782) ERROR 07-10 11:40:39 [multiproc_executor.py:374] "
        "Traceback (most recent call last):\n"
        "(VllmWorker rank=1 pid=9782) ERROR 07-10 11:40:39 [multiproc_executor.py:374]   File "
        '"/usr/lib/python3.11/site-packages/vllm/v1/worker/gpu_worker.py", line 242, in '
        "execute_model\n"
        "(VllmWorker rank=1 pid=9782) ERROR 07-10 11:40:39 [multiproc_executor.py:374] "
        "RuntimeError: CUDA error: an illegal memory access was encountered\n"
        "CRITICAL 07-10 11:40:39 [core_client.py:191] Got fatal signal from worker processes, "
        "shutting down. See stack trace above for root cause issue.\n",
    )
    assert ev.failures
    assert not any("got the fatal signal" in (f["exception_type"] or "") for f in ev.failures)
    assert ev.failures[0]["line"] < 5
