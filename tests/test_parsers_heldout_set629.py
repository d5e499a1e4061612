"""Outputs of round GGGG's held-out evaluation (set 629, NVIDIA collective logs) that the advisor
read in part before this change (tests/data/evidence_heldout_68, sources in tests/data/SOURCES.md):
NCCL's trace after a socket's "-> 6" said to carry 6 on past the proxy's own WARN (which passed 3
on), with GPU 3's out-of-memory not named as the likely end that closed the socket; NCCL 2.22's
"Init timings: rank R nranks N" lines (no function named) not read; and torch's NCCL error of
Slurm task 52 given task 54's traceback line as NCCL's last error."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_68"

SOCKET = "nccl1235_narval_socket_closed_proxy_recv_failed_then_cuda_oom_calloc_p2p_cut.log"
TIMINGS = "nccl534_nccl2223_single_node_8xh100_init_timings_healthy_cut.log"
RING = "nccl577_ngc2109_bert_slurm_taskprefix_ring0_not_loop_back_internal_error_barrier.log"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


# --- a trace that a later WARN of the same process takes over ---------------------------------


def test_each_warn_carries_only_the_result_its_own_trace_passed_up() -> None:
    ev = _load(SOCKET)
    closed, recv, oom, calloc = ev.failures
    assert (closed["line"], recv["line"], oom["line"], calloc["line"]) == (1, 4, 14, 16)
    # socket.cc:749 alone returned 6; p2p.cc .. group.cc returned 3 under the proxy's WARN
    assert closed["message"].endswith("(then 6 = ncclRemoteError passed up through misc/socket.cc)")
    assert recv["message"].endswith(
        "(then 3 = ncclInternalError passed up through transport/p2p.cc, transport.cc, init.cc, "
        "group.cc)"
    )
    assert "ncclRemoteError" not in recv["message"]
    assert "passed up through transport/p2p.cc, proxy.cc" in calloc["message"]


def test_a_socket_closed_by_its_own_host_names_the_local_process_that_failed() -> None:
    ev = _load(SOCKET)
    closed = ev.failures[0]
    said = closed["exception_type"]
    assert (
        "that end is this host, where pid 3063028, device 3 printed its own failure at line 14"
        in said
    )
    assert "Cuda failure 'out of memory'" in said
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-nccl-warning", "critical")]


def test_a_peer_on_another_host_names_no_local_process(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "nodeA:11:21 [0] misc/socket.cc:49 NCCL WARN socketProgress: Connection closed by remote "
        "peer nodeB<4000>\n"
        "nodeA:11:21 [0] NCCL INFO misc/socket.cc:749 -> 6\n"
        "nodeA:12:22 [1] include/alloc.h:178 NCCL WARN Cuda failure 'out of memory'\n",
    )
    closed = ev.failures[0]
    assert "this host" not in closed["exception_type"]


# --- NCCL 2.22's Init timings, no function named -----------------------------------------------


def test_nccl_2_22_init_timings_say_the_communicator_and_its_ranks() -> None:
    ev = _load(TIMINGS)
    (timings,) = [m for m in heldout.said(ev) if "Init timings" in m]
    assert (
        "a communicator of 8 rank(s) (its Init timings) took 2.45-2.46 s on the 6 rank(s) this "
        "log shows (1, 2, 3, 5, 6, 7)" in timings
    )
    assert "spent 1.60 s of its 2.46 s in bootstrap" in timings
    assert ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_a_prefixed_2_22_timing_line_reads_the_same(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "[1,0]<stdout>:node1:20:30 [0] NCCL INFO Init timings: rank 0 nranks 16 total 0.91 "
        "(kernels 0.20, bootstrap 0.30, allgathers 0.01, topo 0.35, graphs 0.02, connections "
        "0.03, rest 0.00)\n",
    )
    (timings,) = [m for m in heldout.said(ev) if "Init timings" in m]
    assert "a communicator of 16 rank(s) (its Init timings) took 0.91 s on the 1 rank(s)" in timings
    assert "0.35 s of its 0.91 s in topo" in timings


# --- another task's traceback line is no "Last error:" ------------------------------------------


def test_slurm_tasks_next_line_is_not_nccls_last_error() -> None:
    ev = _load(RING)
    calls = [f for f in ev.failures if f["kind"] == "nccl_call_failure"]
    assert [(f["rank"], f["line"], f["code_name"]) for f in calls] == [
        (52, 10, "ncclInternalError"),
        (54, 13, "ncclInternalError"),
    ]
    assert not [f for f in calls if "Last error" in f["message"] or "barrier" in f["message"]]
    _, outcome = heldout.imported(ev)
    assert "group.barrier" not in str(outcome.findings)
    (ring,) = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    assert (ring["rank"], ring["device"], ring["host"]) == (52, 4, "ip-0A0C04E3")
    assert "ring 0 does not loop back to start (48 != 52)" in ring["message"]


def test_an_untagged_code_line_after_the_description_is_not_the_last_error(
    tmp_path: Path,
) -> None:
    ev = _write(
        tmp_path,
        "RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1191, "
        "internal error, NCCL version 2.10.3\n"
        "ncclInternalError: Internal check failed. This is either a bug in NCCL or due to memory "
        "corruption\n"
        "    work = group.barrier(opts=opts)\n",
    )
    (call,) = [f for f in ev.failures if f["kind"] == "nccl_call_failure"]
    assert "Last error" not in call["message"] and "barrier" not in call["message"]


def test_the_same_tasks_last_error_is_still_read(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "3: RuntimeError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1191, "
        "unhandled system error, NCCL version 2.14.3\n"
        "3: ncclSystemError: System call (e.g. socket, malloc) or external library call failed or "
        "device error.\n"
        "3: Last error:\n"
        "3: socketStartConnect: Connect to 10.0.0.2<43211> failed : Connection refused\n",
    )
    (call,) = [f for f in ev.failures if f["kind"] == "nccl_call_failure"]
    assert call["rank"] == 3
    assert call["message"].endswith(
        "/ Last error: socketStartConnect: Connect to 10.0.0.2<43211> failed : Connection refused"
    )
