"""Review 58 of round LLLL (sets 655-660), faults 2, 5 and 6: TensorRT-LLM's MPI check raised to
Python as RuntimeError (no abort), and under mpirun --tag-output (rank 0 named); gpu-burn's 802
as other gpu_burn-drv.cpp trees name it (CUDA_ERROR_SYSTEM_NOT_READY, a quoted description):
each on its input (tests/data/review58, described in tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review58"
HELDOUT = DATA / "evidence_heldout_72"

TRTLLM = "tensorrt_llm_allreduce_plugin_init_mpi_error_6_terminate_trtllm1826_cut.log"
TRTLLM_PY = (
    "tensorrt_llm_executor_mpi_error_6_raised_to_python_runtimeerror_traceback_no_terminate.log"
)
TRTLLM_TAG = "tensorrt_llm_mpi_error_6_terminate_mpirun_tag_output_rank0.log"
BURN = "gpu_burn_h100_hbm3_system_not_yet_initialized_802_cut_gpuburn92.log"
BURN_NAMED = "gpu_burn_802_cuda_error_system_not_ready_named_in_init_quoted_desc.log"

_write = partial(heldout.load_copy, name="copy.log")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


def _text(name: str, where: Path = REVIEW) -> str:
    return (where / name).read_text()


# --- 2. TensorRT-LLM's MPI check raised to Python: no SIGABRT ------------------------------------


def test_trtllm_mpi_check_raised_to_python_is_no_abort() -> None:
    ev = _load(TRTLLM_PY)
    (failure,) = ev.failures
    assert (failure["kind"], failure["line"]) == ("launcher_exit", 8)
    assert failure["exit_code"] is None  # not -6: pybind11 raised it, nothing aborted
    assert "error 6, MPI_ERR_RANK (invalid rank), at mpiUtils.cpp:211" in failure["exception_type"]
    assert "raised to Python as RuntimeError" in failure["exception_type"]
    assert "aborted" not in failure["exception_type"]
    assert failure["call"] == "tensorrt_llm::plugins::AllreducePlugin::initialize()"
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-launcher-exit", "critical")]
    _, (item,) = heldout.finding(outcome, "evidence-launcher-exit")
    assert "signal 6" not in item and "-6" not in item
    assert "line 8)" in item


def test_trtllm_real_terminate_copy_still_aborts() -> None:
    ev = _load(TRTLLM, HELDOUT)
    (failure,) = ev.failures
    assert (failure["line"], failure["exit_code"]) == (2, -6)
    assert "the uncaught exception aborted the process" in failure["exception_type"]
    assert failure["rank"] is None  # (no tag: no rank)


def test_trtllm_terminate_a_blank_line_above_or_too_far_above(tmp_path: Path) -> None:
    # a page that put a blank line between terminate and what(): still libstdc++'s abort
    spaced = _text(TRTLLM, HELDOUT).replace("TllmException'\n", "TllmException'\n\n", 1)
    ev = _write(tmp_path, spaced)
    (failure,) = ev.failures
    assert (failure["line"], failure["exit_code"]) == (3, -6)
    # a terminate line three lines up, other text between: not read as this what()'s own
    far = _text(TRTLLM, HELDOUT).replace("TllmException'\n", "TllmException'\nx\ny\n", 1)
    ev = _write(tmp_path, far)
    (failure,) = ev.failures
    assert (failure["line"], failure["exit_code"]) == (4, None)


# --- 6. TensorRT-LLM's check under mpirun --tag-output: the rank the tag names -------------------


def test_trtllm_under_mpirun_tag_output_names_rank_0() -> None:
    ev = _load(TRTLLM_TAG)
    (failure,) = ev.failures
    assert (failure["line"], failure["rank"], failure["exit_code"]) == (2, 0, -6)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    _, (item,) = heldout.finding(outcome, "evidence-launcher-exit")
    assert "rank 0 exited with -6 (signal 6)" in item


def test_trtllm_under_mpirun_tag_output_another_rank(tmp_path: Path) -> None:
    # rank 3's lines ([jobid,rank] = [1,3]) with rank 0's healthy line above: rank 3 aborted
    text = "[1,0]<stdout>:[TensorRT-LLM][INFO] Engine version 0.11.0 found in the config file\n"
    text += _text(TRTLLM_TAG).replace("[1,0]<stderr>:", "[1,3]<stderr>:")
    ev = _write(tmp_path, text)
    (failure,) = ev.failures
    assert (failure["line"], failure["rank"], failure["exit_code"]) == (3, 3, -6)


# --- 5. gpu-burn's 802 as other gpu_burn-drv.cpp trees name it -----------------------------------


def test_gpu_burn_802_named_cuda_error_system_not_ready_is_not_ready() -> None:
    ev = _load(BURN_NAMED)
    (hit,) = [f for f in ev.failures if f["kind"] == "gpu_driver_error"]
    assert (hit["line"], hit["code"], hit["call"]) == (6, "802", "cuda_init")
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-cuda-not-ready", "critical")]
    (item,) = heldout.items(outcome, "evidence-cuda-not-ready")
    assert "error 802, cudaErrorSystemNotReady" in item
    assert all(f.rule_id != "evidence-log-error" for f in outcome.findings)


def test_gpu_burn_real_802_copy_still_read() -> None:
    ev = _load(BURN, HELDOUT)
    (hit,) = [f for f in ev.failures if f["kind"] == "gpu_driver_error"]
    assert (hit["line"], hit["code"]) == (8, "802")
    assert heldout.imported(ev)[0] == "NOT READY"


def test_gpu_burn_802_name_alone_and_unnamed_call(tmp_path: Path) -> None:
    # older trees' checkError: the name from their g_errorStrings map, nothing after it
    old = _text(BURN_NAMED).replace(" (system not yet initialized)", "")
    ev = _write(tmp_path, old)
    (hit,) = [f for f in ev.failures if f["kind"] == "gpu_driver_error"]
    assert (hit["line"], hit["code"]) == (6, "802")
    # a call checked with no description: "Error: " before the name
    bare = _text(BURN_NAMED).replace('Error in "init": ', "Error: ")
    ev = _write(tmp_path, bare)
    assert heldout.imported(ev)[0] == "NOT READY"
    # another driver error by name (803, driver mismatch) is not called 802
    other = old.replace("CUDA_ERROR_SYSTEM_NOT_READY", "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH")
    ev = _write(tmp_path, other)
    assert not [f for f in ev.failures if f.get("code") == "802"]
