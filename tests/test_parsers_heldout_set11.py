"""Outputs the eleventh held-out evaluation misread: DeepSpeed's launcher reporting a rank's exit
code, and a watchdog thread that died with a CUDA error.

Samples: ``tests/data/evidence_heldout_15/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from advisor.parsers import logs
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_15"


def _parse(name: str) -> logs.LogReport:
    return logs.parse((HELDOUT / name).read_text())


def test_deepspeed_launcher_exit_names_its_code_not_the_last_commands_local_rank() -> None:
    parsed = _parse("deepspeed_watchdog_exit.log")
    (ev,) = parsed.of_kind("launcher_exit")
    # launch.py prints the command it built last (local rank 7 of 8), whichever process failed
    assert (ev.line, ev.local_rank, ev.exit_code) == (95, None, -6)
    assert ev.exception_type == (
        "deepspeed (a process of its node failed; the command it prints is the last one it "
        "started, local rank 7, not the failed one's)"
    )
    # the ranks' watchdog time-outs stay time-outs: the watchdog's death on a time-out is not a
    # second event
    assert parsed.of_kind("watchdog_exception") == []
    assert len(parsed.of_kind("watchdog_timeout")) == 7


def test_watchdog_thread_killed_by_a_cuda_error() -> None:
    (ev,) = _parse("watchdog_cuda_exception.log").of_kind("watchdog_exception")
    assert (ev.line, ev.rank, ev.library) == (6, 0, "NCCL")
    assert ev.message == "CUDA error: an illegal memory access was encountered"


def test_newer_watchdog_death_form_with_the_process_group() -> None:
    line = (
        "[rank1]:[E ProcessGroupNCCL.cpp:1414] [PG 0 Rank 1] Process group watchdog thread "
        "terminated with exception: NCCL error: remote process exited or there was a network error"
    )
    (ev,) = logs.parse(line).of_kind("watchdog_exception")
    assert (ev.rank, ev.message) == (
        1,
        "NCCL error: remote process exited or there was a network error",
    )
