"""Outputs of round DDDD's held-out evaluation (set 612, framework logs on NVIDIA clusters) that the
advisor read in part or not at all before this change (tests/data/evidence_heldout_66, sources in
tests/data/SOURCES.md): SGLang's scheduler traceback ending in torch's CUDA error, read as a plain
exception with no TP rank; a Lightning start whose rank 0 waits in its init with half the world
missing, read as a mere warning; mpirun-tagged training lines, read as no format; XLA's device
allocator refusing a request on a device ordinal, not read as an out-of-memory; torch's NCCL
result description quoted as an issue's heading with the last error on its line, not read."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_66"

SGLANG = "sglang_lora_tp0_scheduler_cuda_illegal_memory_access_sigquit.log"
LIGHTNING = "lightning_slurm_2node_4gpu_ddp_init_hang_only_4_of_8_ranks.log"
HOROVOD = "horovod_mpirun_2rank_stdout_loss_lines_healthy_cut.log"
JAX = "jax_graphcast_ai_models_xla_resource_exhausted_2.99GiB_ordinal0.log"
RAY = "ray_lightning_2node_rayexecutor_ncclinternalerror_proxy_call_cut.log"

_ILLEGAL = "an illegal memory access was encountered"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


# --- SGLang's scheduler traceback ending in torch's CUDA error ---------------------------------


def test_sglangs_scheduler_traceback_ending_in_a_cuda_error_is_tp0s_cuda_fault() -> None:
    ev = _load(SGLANG)
    (cuda,) = ev.failures
    assert (cuda["kind"], cuda["line"], cuda["exception_type"]) == ("cuda_error", 14, _ILLEGAL)
    assert cuda["worker"] == "TP0"
    assert cuda["rank"] is None  # (a TP index is the worker's place in its engine, no rank)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-cuda-error", "critical")]
    (item,) = heldout.items(outcome, "evidence-cuda-error")
    assert item.startswith(f"TP0: '{_ILLEGAL}' (")
    assert "evidence-python-exception" not in str(outcome.findings)


def test_a_cuda_error_under_another_tag_or_none_reads_the_same(tmp_path: Path) -> None:
    frames = (
        '  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1308, in f\n'
        "    self.current_stream.synchronize()\n"
        "RuntimeError: CUDA error: unspecified launch failure\n"
        "CUDA kernel errors might be asynchronously reported at some other API call, so the "
        "stacktrace below might be incorrect.\n"
    )
    tagged = _write(
        tmp_path,
        "[2025-06-01 10:00:00 DP1 TP3 EP3] Scheduler hit an exception: Traceback (most recent "
        "call last):\n" + frames,
    )
    (cuda,) = tagged.failures
    assert (cuda["kind"], cuda["worker"], cuda["exception_type"]) == (
        "cuda_error",
        "DP1 TP3 EP3",  # (each rank its tag names: review 49's fault 9)
        "unspecified launch failure",
    )
    bare = _write(tmp_path, "Traceback (most recent call last):\n" + frames)
    (raised,) = bare.failures
    # (no worker's tag: the program's exception, as before)
    assert (raised["kind"], raised["worker"]) == ("python_exception", None)


# --- Lightning's init with ranks of the world missing -----------------------------------------


def test_lightning_ranks_0_3_of_8_in_init_and_nothing_after_is_a_hang() -> None:
    ev = _load(LIGHTNING)
    (hang,) = ev.failures
    assert (hang["kind"], hang["line"], hang["rank_size"]) == ("pg_init_unconfirmed", 7, 8)
    assert hang["missing_ranks"] == [4, 5, 6, 7]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-pg-init-ranks-missing", "critical")]
    (item,) = heldout.items(outcome, "evidence-pg-init-ranks-missing")
    assert "rank(s) 0, 1, 2, 3 of a world of 8" in item
    assert "4 rank(s) of the world (4-7) logged no init line" in item


def test_lightning_2x_with_a_rank_missing_and_a_whole_world_read_apart(tmp_path: Path) -> None:
    missing = _write(
        tmp_path,
        "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4\n"
        "Initializing distributed: GLOBAL_RANK: 2, MEMBER: 3/4\n",
    )
    (hang,) = missing.failures
    assert hang["missing_ranks"] == [1, 3]
    level, outcome = heldout.imported(missing)
    assert level == "NOT READY"
    assert (
        "(1, 3) logged no init line" in heldout.items(outcome, "evidence-pg-init-ranks-missing")[0]
    )
    whole = _write(
        tmp_path,
        "".join(f"initializing ddp: GLOBAL_RANK: {r}, MEMBER: {r + 1}/4\n" for r in range(4)),
    )
    (ended,) = whole.failures
    assert ended["missing_ranks"] is None
    level, outcome = heldout.imported(whole)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-pg-init-unconfirmed", "warning")]


# --- mpirun-tagged training lines --------------------------------------------------------------


def test_mpirun_tagged_epoch_and_loss_lines_are_a_healthy_log() -> None:
    ev = _load(HOROVOD)
    assert ev.files[0].formats == ["log"]
    assert not ev.failures
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    assert any("no line says an error" in m for m in heldout.said(ev))


def test_counter_and_loss_lines_of_other_wordings_are_a_log(tmp_path: Path) -> None:
    lines = "".join(f"Step {s}/500\nTraining loss: {2.0 - s / 100:.3f}\n" for s in range(10, 14))
    ev = _write(tmp_path, lines)
    assert ev.files[0].formats == ["log"] and not ev.failures
    # (two such lines are too few to tell from any other text)
    few = _write(tmp_path, "Step 1/500\nloss: 2.0\n")
    assert few.files[0].formats == []


# --- XLA's device allocator out of memory -----------------------------------------------------


def test_xlas_failed_allocation_request_on_device_ordinal_0_is_a_device_oom() -> None:
    ev = _load(JAX)
    (oom,) = ev.failures
    assert (oom["kind"], oom["line"], oom["device"], oom["library"]) == (
        "device_oom",
        16,
        0,
        "XLA",
    )
    assert oom["exception_type"] == (
        "tried to allocate 3206250496 B (2.99 GiB) on device ordinal 0: the device's memory ran out"
    )
    assert oom["rank"] is None
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-device-out-of-memory", "critical")]


def test_the_allocators_refusal_alone_and_in_tensorflows_words(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "tensorflow.python.framework.errors_impl.ResourceExhaustedError: Resource exhausted: "
        "Failed to allocate request for 512.00MiB (536870912B) on device ordinal 3\n",
    )
    (oom,) = ev.failures
    assert (oom["kind"], oom["device"]) == ("device_oom", 3)
    assert oom["exception_type"].startswith("tried to allocate 536870912 B (0.50 GiB)")


# --- torch's NCCL result description quoted with its last error --------------------------------


def test_an_issues_heading_quoting_nccl_internal_error_is_the_failure() -> None:
    ev = _load(RAY)
    (failed,) = ev.failures
    assert (failed["kind"], failed["line"], failed["code_name"], failed["code"]) == (
        "nccl_call_failure",
        1,
        "ncclInternalError",
        "3",
    )
    assert failed["exception_type"] == "Proxy Call to rank 0 failed (Connect)"
    # (the heading is the author's quote: not put on the host NCCL's INFO lines name)
    assert failed["host"] is None and failed["rank"] is None
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-nccl-call-failed", "critical")]
    said = heldout.said(ev)
    assert any(
        "Lightning started 2 rank(s) of a world of 2 (global ranks 0, 1); rank 0 said all "
        "processes registered" in m
        for m in said
    )


def test_other_results_quoted_on_one_line_and_a_name_in_other_words(tmp_path: Path) -> None:
    remote = _write(
        tmp_path,
        "> ncclRemoteError: A call failed possibly due to a network error or a remote process "
        "exiting prematurely. NET/IB : Got completion from peer 10.0.0.2<45000> with error 12\n",
    )
    # (the WARN's IB completion error is read as well, as NCCL's own line would be)
    (failed,) = [f for f in remote.failures if f["kind"] == "nccl_call_failure"]
    assert (failed["code_name"], failed["exception_type"]) == (
        "ncclRemoteError",
        "NET/IB : Got completion from peer 10.0.0.2<45000> with error 12",
    )
    system = _write(
        tmp_path,
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or "
        "device error. It can be also caused by unexpected exit of a remote peer.\n",
    )
    (failed,) = system.failures
    assert (failed["code_name"], failed["exception_type"]) == ("ncclSystemError", None)
    # (a result's name in a program's own words, no torch description: not a failed call read)
    other = _write(tmp_path, "ncclInternalError: see the FAQ for what this means\n")
    assert not any(f["kind"] == "nccl_call_failure" for f in other.failures)
