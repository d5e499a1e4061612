"""Outputs of round LLLL's held-out evaluation (set 660, framework logs on NVIDIA clusters) that
the advisor read in part before this change (tests/data/evidence_heldout_72, sources in
tests/data/SOURCES.md): TensorRT-LLM's engine aborting on its own check of an MPI call (MPI error
6, MPI_ERR_RANK, in the AllReduce plugin's initialize), read as a warning that quoted only
libstdc++'s "terminate called" line."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_72"

TRTLLM = "tensorrt_llm_allreduce_plugin_init_mpi_error_6_terminate_trtllm1826_cut.log"


_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


# --- TensorRT-LLM: MPI error 6 in AllreducePlugin::initialize, then terminate -----------------


def test_trtllm_mpi_error_6_is_a_crash_in_the_allreduce_plugin() -> None:
    ev = _load(TRTLLM)
    (failure,) = ev.failures
    assert failure["kind"] == "launcher_exit"
    assert failure["line"] == 2  # the what() line, not "terminate called" (line 1)
    assert failure["exit_code"] == -6  # libstdc++'s terminate handler aborts
    assert failure["library"] == "TensorRT-LLM"
    assert failure["call"] == "tensorrt_llm::plugins::AllreducePlugin::initialize()"
    assert (
        "error 6, MPI_ERR_RANK (invalid rank), at mpiUtils.cpp:211" in (failure["exception_type"])
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-launcher-exit", "critical")]
    _, (item,) = heldout.finding(outcome, "evidence-launcher-exit")
    assert "MPI error" in item and "line 2)" in item
    assert "(inside TensorRT-LLM: tensorrt_llm::plugins::AllreducePlugin::initialize())" in item


def test_trtllm_another_mpi_code_and_plugin(tmp_path: Path) -> None:
    # another return code (5, MPI_ERR_COMM) thrown from another plugin's frame
    text = (
        _text(TRTLLM)
        .replace("mpiUtils.cpp:211 '6'", "mpiUtils.cpp:198 '5'")
        .replace("AllreducePlugin::initialize()", "AllgatherPlugin::initialize()")
    )
    ev = _write(tmp_path, text)
    (failure,) = ev.failures
    assert (
        "error 5, MPI_ERR_COMM (invalid communicator), at mpiUtils.cpp:198"
        in (failure["exception_type"])
    )
    assert failure["call"] == "tensorrt_llm::plugins::AllgatherPlugin::initialize()"
    assert heldout.imported(ev)[0] == "NOT READY"


def test_trtllm_code_out_of_the_table_is_said_as_a_number(tmp_path: Path) -> None:
    # a code the table does not name (an implementation's own error code) is only its number
    ev = _write(tmp_path, _text(TRTLLM).replace("mpiUtils.cpp:211 '6'", "mpiUtils.cpp:211 '54'"))
    (failure,) = ev.failures
    assert "failed: error 54, at mpiUtils.cpp:211" in failure["exception_type"]


def test_trtllm_healthy_engine_log_stays_ready(tmp_path: Path) -> None:
    # the engine's own INFO lines with no failed check: nothing is made up
    text = (
        "[TensorRT-LLM][INFO] Engine version 0.11.0 found in the config file\n"
        "[TensorRT-LLM][INFO] MPI size: 2, MPI local size: 2, rank: 0\n"
        "[TensorRT-LLM][INFO] Loaded engine size: 6535 MiB\n"
    )
    ev = _write(tmp_path, text)
    assert not ev.failures
    assert heldout.imported(ev)[0] == "READY"


def test_trtllm_abort_with_no_rank_is_counted_as_a_process_not_a_rank() -> None:
    # the copy names no rank (no mpirun tag, no rank field): "1 rank(s)" would state one
    message, _ = heldout.finding(heldout.imported(_load(TRTLLM))[1], "evidence-launcher-exit")
    assert message.startswith("1 process(es) (no global rank shown) exited non-zero")
    assert "rank(s)" not in message
