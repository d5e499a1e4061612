"""Outputs of round RRRR's held-out evaluation (set 696, framework logs on NVIDIA clusters) that
the advisor read wrong or in part before this change (tests/data/evidence_heldout_78, sources in
tests/data/SOURCES.md): an llm.c job's Slurm output whose PMIx errors stood under a shell prompt
and Slurm's lines was no format the advisor knew; JAX's coordination service failing to
disconnect from its leader at shutdown was read as a bare Python exception, "nothing names a
communication error"; torchrun's agent that could not shut its rendezvous down was "A rank", its
host, the store's Broken pipe and torchrun's main left out; and a vLLM Ray worker's traceback
logged at ERROR, cut before its exception, was a warning of an unknown program's line."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_78"

PMIX = "slurm_llmc_2node_pmix_gds_ds12_lock_error_cut_llmc426.log"
JAX = "jax_coordination_service_shutdown_deadline_exceeded_cut_cleanrl338.log"
TORCHRUN = "torchrun_1_12_rendezvous_shutdown_broken_pipe_cut_wespeaker171.log"
VLLM = "vllm_0_5_3_ray_worker_error_traceback_fp8_cutlass_cut_vllm7057.log"

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


# --- PMIx's error lines under a shell prompt and Slurm's lines ----------------------------------


def test_pmix_errors_under_slurms_lines_are_read_with_both_hosts() -> None:
    ev = _load(PMIX)
    assert ev.files[0].formats == ["log"] and ev.files[0].status == "read"
    (failure,) = ev.failures
    assert failure["kind"] == "log_error" and failure["line"] == 6
    assert failure["host"] == "qbd487" and failure["pid"] == 400139
    assert "gds_ds12_lock_pthread.c at line 169" in failure["message"]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-log-error", "warning")]
    notes = [(line, m) for line, m in _said(ev) if "PMIx's own error lines" in m]
    assert notes == [
        (
            6,
            "log: PMIx's own error lines ('PMIX ERROR: ... in file ... at line ...'): "
            "gds_ds12_lock_pthread.c line 169 from qbd487 (lines 6, 9), qbd488 (lines 7, 8)",
        )
    ]


def test_pmix_errors_of_other_hosts_and_a_launchers_tag(tmp_path: Path) -> None:
    text = _text(PMIX).replace("qbd487", "gpu-a17").replace("qbd488", "gpu-b03")
    text = "\n".join(
        f"job/0 {line}" if "PMIX ERROR" in line else line for line in text.splitlines()
    )
    ev = _write(tmp_path, text)
    (failure,) = ev.failures
    assert failure["host"] == "gpu-a17" and failure["line"] == 6
    assert any("from gpu-a17 (lines 6, 9), gpu-b03 (lines 7, 8)" in m for _, m in _said(ev))


def test_the_same_job_without_pmix_errors_stays_unread_as_before(tmp_path: Path) -> None:
    # (the prompt, Slurm's lines and llm.c's table alone say nothing went wrong: no log of a
    # program is made of them, and nothing is judged)
    lines = _text(PMIX).splitlines()
    ev = _write(tmp_path, "\n".join(lines[:5] + lines[9:]))
    assert ev.failures == []
    level, _ = heldout.imported(ev)
    assert level == "READY"


# --- JAX's coordination service at shutdown ---------------------------------------------------


def test_jax_coordination_shutdown_is_a_warning_naming_the_leader() -> None:
    ev = _load(JAX)
    (failure,) = ev.failures
    assert failure["kind"] == "coordination_shutdown_failed" and failure["line"] == 1
    assert (failure["ip"], failure["port"]) == ("26.0.134.228", 64719)
    assert failure["exception_type"].startswith("DEADLINE_EXCEEDED: Deadline Exceeded; ")
    assert "went on with its shutdown anyway (line 3)" in failure["exception_type"]
    assert "(atexit, line 4)" in failure["exception_type"]
    assert "raised XlaRuntimeError (line 10)" in failure["exception_type"]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-coordination-shutdown", "warning")]
    (item,) = heldout.items(outcome, "evidence-coordination-shutdown")
    assert "the coordination service's leader at 26.0.134.228:64719" in item
    assert "line 1)" in item


def test_jax_coordination_shutdown_of_another_leader_and_status(tmp_path: Path) -> None:
    text = (
        _text(JAX)
        .replace("26.0.134.228:64719", "10.1.2.3:1234")
        .replace(
            "status: DEADLINE_EXCEEDED: Deadline Exceeded", "status: UNAVAILABLE: Socket closed"
        )
    )
    ev = _write(tmp_path, text)
    (failure,) = ev.failures
    assert (failure["ip"], failure["port"]) == ("10.1.2.3", 1234)
    assert failure["exception_type"].startswith("UNAVAILABLE: Socket closed; ")


def test_the_xla_runtime_error_alone_is_still_the_runs_exception(tmp_path: Path) -> None:
    # (without the agent's own line the exception is all the copy says: read as before)
    lines = _text(JAX).splitlines()
    ev = _write(tmp_path, "\n".join(lines[3:]))
    (failure,) = ev.failures
    assert failure["kind"] == "python_exception"
    level, _ = heldout.imported(ev)
    assert level == "NOT READY"


# --- torchrun's agent that could not shut its rendezvous down -----------------------------------


def test_torchruns_agent_is_named_with_its_host_and_the_stores_broken_pipe() -> None:
    ev = _load(TORCHRUN)
    (failure,) = ev.failures
    assert failure["kind"] == "store_lost" and failure["line"] == 1
    assert failure["host"] == "node04.localdomain" and failure["pid"] == 3882442
    assert failure["worker"] == "torch elastic's agent"
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-store-lost")
    assert item.startswith(
        "torch elastic's agent (pid 3882442) on node04.localdomain: RendezvousConnectionError "
        "(the c10d store call failed: RuntimeError: Broken pipe, line 5); the exception went up "
        "to torchrun's main (line 10)"
    )
    assert "A rank" not in item


def test_another_node_whose_shutdown_failed_without_a_traceback(tmp_path: Path) -> None:
    first = _text(TORCHRUN).splitlines()[0].replace("node04.localdomain_3882442_0", "gpu-7_811_1")
    ev = _write(tmp_path, first + "\n")
    (failure,) = ev.failures
    assert (failure["host"], failure["pid"]) == ("gpu-7", 811)
    assert failure["exception_type"] == "RendezvousConnectionError"


# --- a vLLM Ray worker's traceback logged at ERROR, cut before its exception ------------------


def test_a_vllm_ray_workers_error_traceback_is_a_failed_worker() -> None:
    ev = _load(VLLM)
    (failure,) = ev.failures
    assert failure["kind"] == "python_exception" and failure["line"] == 1
    assert (failure["worker"], failure["pid"], failure["host"]) == (
        "RayWorkerWrapper",
        4329,
        "192.168.200.191",
    )
    assert "logged at ERROR by worker_base.py:382" in failure["message"]
    assert "apply_fp8_linear -> wrapper -> cutlass_scaled_mm -> __call__" in failure["message"]
    assert 'torch/_ops.py", line 854, in __call__' in failure["message"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-python-exception", "critical")]
    (item,) = heldout.items(outcome, "evidence-python-exception")
    assert "(on 192.168.200.191)" in item


def test_another_worker_on_another_node(tmp_path: Path) -> None:
    text = _text(VLLM).replace("pid=4329, ip=192.168.200.191", "pid=77, ip=10.0.0.9")
    ev = _write(tmp_path, text)
    (failure,) = ev.failures
    assert (failure["pid"], failure["host"]) == (77, "10.0.0.9")
    level, _ = heldout.imported(ev)
    assert level == "NOT READY"


def test_the_workers_info_lines_are_no_traceback(tmp_path: Path) -> None:
    # (the same worker's lines at INFO, no frames: nothing failed)
    text = (
        "(RayWorkerWrapper pid=4329, ip=192.168.200.191) INFO 08-02 01:57:40 model_runner.py:"
        "680] Loading model weights took 33.88 GB\n"
        "(RayWorkerWrapper pid=4329, ip=192.168.200.191) INFO 08-02 01:57:44 model_runner.py:"
        "980] Capturing the model for CUDA graphs.\n"
    )
    ev = _write(tmp_path, text)
    assert ev.failures == []
    level, _ = heldout.imported(ev)
    assert level == "READY"
