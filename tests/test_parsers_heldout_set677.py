"""Outputs of round OOOO's held-out evaluation (set 677, NVIDIA collective logs) that the advisor
read in part before this change (tests/data/evidence_heldout_75, sources in
tests/data/SOURCES.md): nccl-tests' four processes that each failed cudaSetDevice ('invalid
device ordinal') counted as 2, one a host, their pids unsaid; RCCL's "[FATAL ERROR]: HIP
failure: 'invalid device pointer'" read as a log of an unknown program (a warning); an NCCL
Cuda failure WARN whose place, transport/p2p.cc:275 in the P2P transport, went unsaid; and
torch's async exception of WorkNCCL SeqNum=2 ALLREDUCE blamed on "A process" without the
collective that failed."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_75"

ORDINAL = (
    "nccl_tests_nvhpc_hpcx_2node_g8_test_cuda_failure_invalid_device_ordinal_g0010_g0016_"
    "nccltests263_cut.log"
)
RCCL = "rccl2.27.7_rocm7.2.3_mi325x_fatal_hip_failure_invalid_device_pointer_p2p_ipc_rocmsystems8178.log"
P2P = (
    "sglang_nccl_proxy_trace_p2p_cumem_setup_then_rank0_p2p_cc275_cuda_failure_invalid_argument_"
    "sglang6246_cut.log"
)
WORK = (
    "torch2.7rc1_nccl2.25.1_workncl_seq2_allreduce_async_ncclsystemerror_empty_last_error_g5_"
    "abort_test_pytorch149984_cut.log"
)

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


# --- nccl-tests: one CUDACHECK line per process, each paired with its TESTCHECK pid -----------


def test_four_processes_invalid_device_ordinal_each_named_by_pid() -> None:
    ev = _load(ORDINAL)
    assert ev.files[0].status == "read"
    cuda = [f for f in ev.failures if f["kind"] == "cuda_error"]
    assert [(f["host"], f["pid"], f["line"]) for f in cuda] == [
        ("g0010", 888386, 2),
        ("g0010", 888385, 4),
        ("g0010", 888382, 6),
        ("g0016", 3645592, 8),
    ]
    assert {f["exception_type"] for f in cuda} == {"invalid device ordinal"}
    assert {f["call"] for f in cuda} == {"common.cu:941"}
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-cuda-error"]
    assert finding.message.startswith("4 failed CUDA or HIP call(s) (invalid device ordinal)")
    items = heldout.items(outcome, "evidence-cuda-error")
    assert items[0].startswith("g0010 pid 888386: 'invalid device ordinal' at common.cu:941")
    assert items[3].startswith("g0016 pid 3645592: ")
    assert "line 8)" in items[3]


def test_interleaved_testcheck_lines_pair_in_order_and_other_hosts(tmp_path: Path) -> None:
    # two CUDACHECK lines of gpu-a before their TESTCHECK lines, another host's between
    text = (
        "gpu-a: Test CUDA failure common.cu:941 'invalid device ordinal'\n"
        "gpu-a: Test CUDA failure common.cu:941 'invalid device ordinal'\n"
        "gpu-b: Test CUDA failure common.cu:941 'invalid device ordinal'\n"
        " .. gpu-a pid 11: Test failure common.cu:891\n"
        " .. gpu-b pid 33: Test failure common.cu:891\n"
        " .. gpu-a pid 22: Test failure common.cu:891\n"
    )
    ev = _write(tmp_path, text)
    cuda = [(f["host"], f["pid"], f["line"]) for f in ev.failures if f["kind"] == "cuda_error"]
    assert cuda == [("gpu-a", 11, 1), ("gpu-a", 22, 2), ("gpu-b", 33, 3)]


def test_cudacheck_lines_without_testcheck_stay_one_per_host(tmp_path: Path) -> None:
    # (no pid printed: the log names no process, the old reading kept)
    text = "\n".join(line for line in _text(ORDINAL).splitlines() if " pid " not in line)
    ev = _write(tmp_path, text + "\n")
    cuda = [(f["host"], f["pid"]) for f in ev.failures if f["kind"] == "cuda_error"]
    assert cuda == [("g0010", None), ("g0016", None)]


# --- RCCL's [FATAL ERROR]: HIP failure -----------------------------------------------------


def test_rccl_fatal_hip_failure_is_not_ready() -> None:
    ev = _load(RCCL)
    assert ev.files[0].status == "read"
    (failure,) = ev.failures
    assert failure["kind"] == "cuda_error" and failure["library"] == "RCCL"
    assert failure["exception_type"] == "invalid device pointer" and failure["line"] == 1
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert ("evidence-cuda-error", "critical") in heldout.above_info(outcome)
    assert not any(rule == "evidence-log-error" for rule, _ in heldout.above_info(outcome))
    (item,) = heldout.items(outcome, "evidence-cuda-error")
    assert item.startswith("'invalid device pointer' (RCCL's check of a HIP call")
    assert "ncclUnhandledCudaError" in item and "line 1)" in item


def test_rccl_fatal_hip_failure_with_nccl_prefix_names_host_pid_device(tmp_path: Path) -> None:
    line = _text(RCCL).replace(
        "[FATAL ERROR]: HIP failure: 'invalid device pointer'",
        "node-7:717:1686 [3] [FATAL ERROR]: HIP failure: 'invalid argument'",
    )
    ev = _write(tmp_path, "some startup line\n" + line)
    (failure,) = [f for f in ev.failures if f["kind"] == "cuda_error"]
    assert (failure["host"], failure["pid"], failure["device"]) == ("node-7", 717, 3)
    assert failure["exception_type"] == "invalid argument" and failure["line"] == 2
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-cuda-error")
    assert item.startswith("node-7 pid 717, device 3: 'invalid argument'")


# --- NCCL's Cuda failure WARN: its place and transport said -------------------------------


def test_p2p_cuda_failure_names_its_place_and_transport() -> None:
    ev = _load(P2P)
    (warn,) = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    assert (warn["host"], warn["pid"], warn["device"], warn["line"]) == (
        "6f747114300646eb-5af0524bda8e4aee",
        4167,
        0,
        12,
    )
    assert warn["call"] == "transport/p2p.cc:275 (NCCL's P2P transport)"
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-nccl-warning")
    assert "pid 4167, device 0: Cuda failure 'invalid argument' at transport/p2p.cc:275" in item
    assert "(NCCL's P2P transport)" in item and "line 12)" in item


def test_cuda_failure_in_another_file_names_no_transport(tmp_path: Path) -> None:
    text = _text(P2P).replace("[0] transport/p2p.cc:275", "[2] include/alloc.h:178")
    text = text.replace("'invalid argument'", "'out of memory'").replace(":4167:", ":4170:")
    ev = _write(tmp_path, text)
    (warn,) = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    assert warn["call"] == "include/alloc.h:178"
    assert (warn["pid"], warn["device"]) == (4170, 2)
    _, outcome = heldout.imported(ev)
    (item,) = heldout.items(outcome, "evidence-nccl-warning")
    assert "Cuda failure 'out of memory' at include/alloc.h:178 (" in item
    assert "transport)" not in item


def test_proxy_trace_without_the_warn_stays_ready(tmp_path: Path) -> None:
    # the healthy twin: the proxy's INFO lines only
    text = "\n".join(_text(P2P).splitlines()[:10]) + "\n"
    ev = _write(tmp_path, text)
    assert not ev.failures
    level, _ = heldout.imported(ev)
    assert level == "READY"


# --- torch's async exception of a WorkNCCL: the collective named ----------------------------


def test_async_exception_names_the_failed_collective() -> None:
    ev = _load(WORK)
    (failure,) = ev.failures
    assert failure["code_name"] == "ncclSystemError" and failure["line"] == 1
    assert (failure["op"], failure["seq"], failure["rank"]) == ("all_reduce", 2, None)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-nccl-call-failed")
    assert item.startswith("A process: ncclSystemError in the collective all_reduce")
    assert "(WorkNCCL SeqNum=2)" in item and "line 1)" in item


def test_async_exception_of_another_rank_and_collective(tmp_path: Path) -> None:
    text = _text(WORK).replace(
        "Collective WorkNCCL(SeqNum=2, OpType=ALLREDUCE,",
        "[Rank 3] Collective WorkNCCL(SeqNum=17, OpType=ALLGATHER,",
    )
    ev = _write(tmp_path, text)
    (failure,) = [f for f in ev.failures if f["kind"] == "nccl_call_failure"]
    assert failure["seq"] == 17
    _, outcome = heldout.imported(ev)
    (item,) = heldout.items(outcome, "evidence-nccl-call-failed")
    assert "ncclSystemError in the collective " in item
    assert "(WorkNCCL SeqNum=17)" in item and "SeqNum=2)" not in item
