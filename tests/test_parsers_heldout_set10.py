"""Outputs the tenth held-out evaluation misread: NCCL's WARN lines (a CUDA failure, a socket
the peer closed, a failed proxy call; RCCL's UCX plugin), torch's monitored_barrier error behind
a Kaggle log prefix, a watchdog record whose "milliseconds" wrapped, and an nvidia-smi matrix
whose CPU Affinity cells are empty on some rows.

Samples: ``tests/data/evidence_heldout_14/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from advisor.evidence.load import load_paths
from advisor.parsers import logs, nvidia_smi, strip_launcher_prefix
from tests.conftest import DATA
from tests.rules_facts import finding_items

HELDOUT = DATA / "evidence_heldout_14"


def _parse(name: str) -> logs.LogReport:
    return logs.parse((HELDOUT / name).read_text())


def _findings(name: str, backend: str) -> dict[str, list[str]]:
    ev = load_paths([HELDOUT / name])
    return finding_items({"evidence.failures": ev.failures}, backend)


def test_nccl_warn_lines_name_process_cuda_failure_peer_and_rank() -> None:
    events = _parse("nccl_warn_cuda_ordinal.log").of_kind("nccl_warning")
    first = events[0]
    assert (first.line, first.host, first.pid, first.device, first.code, first.code_name) == (
        10, "gpu002", 704798, 0, "101", "invalid device ordinal",
    )  # fmt: skip
    closed = next(e for e in events if e.port is not None)
    assert (closed.line, closed.pid, closed.remote_ip, closed.port) == (
        14, 704800, "gpu002.cm.cluster", 44189,
    )  # fmt: skip
    proxy = next(e for e in events if e.remote_rank is not None)
    assert (proxy.line, proxy.remote_rank) == (16, 4)
    items = _findings("nccl_warn_cuda_ordinal.log", "nccl")["evidence-nccl-warning"]
    assert items[0].startswith("gpu002 pid 704798, device 0: Cuda failure 101 'invalid device")


def test_rccl_warn_lines_with_long_source_paths() -> None:
    events = _parse("rccl_warn_ucx.log").of_kind("nccl_warning")
    assert [(e.line, e.host, e.pid) for e in events][:2] == [
        (3, "node02", 10366),
        (9, "node02", 10366),
    ]
    assert "UCX error" in events[0].message
    assert events[1].remote_rank == 1  # "Connect from rank 1"
    assert {e.host for e in events} == {"node01", "node02"}


def test_wrapper_prefix_then_rank_tag_are_both_taken_off() -> None:
    assert strip_launcher_prefix("704.7s\t1441\t[rank1]: x") == (" x", 1)
    assert strip_launcher_prefix("704.7s\t1470\t  time : y") == ("  time : y", None)


def test_monitored_barrier_error_names_both_ranks_and_the_closed_peer() -> None:
    parsed = _parse("gloo_monitored_barrier_kaggle.log")
    (mb,) = parsed.of_kind("monitored_barrier_failure")
    assert (mb.line, mb.rank, mb.remote_rank, mb.remote_ip, mb.port) == (
        1, 1, 0, "172.19.2.2", 33177,
    )  # fmt: skip
    (root,) = [e for e in parsed.of_kind("elastic_failure") if e.root_cause]
    assert (root.rank, root.host, root.exit_code, root.pid) == (0, "0f0baed86552", 1, 1886)
    (item,) = _findings("gloo_monitored_barrier_kaggle.log", "gloo")[
        "evidence-monitored-barrier-failed"
    ]
    # (rank 0, the rank torch's message says to check, leads: round MMMM set 666)
    assert item.startswith(
        "rank 0 is the suspect: rank 1 reached the barrier, but its send/recv with rank 0 "
        "failed (connection closed by 172.19.2.2:33177)"
    )


def test_monitored_barrier_on_rank_0_names_the_missing_ranks() -> None:
    (ev,) = logs.parse(
        "[rank0]: RuntimeError: Ranks 2, 3 failed to pass monitoredBarrier in 30000 ms"
    ).events
    assert (ev.rank, ev.missing_ranks, ev.timeout_ms) == (0, [2, 3], 30000)


def test_watchdog_record_with_milliseconds_wrapped() -> None:
    (ev,) = _parse("watchdog_wrapped_ms.log").of_kind("watchdog_timeout")
    assert (ev.line, ev.rank, ev.op, ev.seq, ev.timeout_ms, ev.ran_for_ms) == (
        2, 0, "all_reduce", 1, 1_800_000, 1_800_646,
    )  # fmt: skip


def test_empty_cpu_affinity_cells_keep_numa_in_its_column() -> None:
    topo = nvidia_smi.parse_topo((HELDOUT / "nvidia_smi_topo_empty_affinity.txt").read_text())
    assert "GPU0" not in topo.cpu_affinity  # the cell is empty in the output
    assert (topo.numa_affinity["GPU0"], topo.numa_affinity["GPU4"]) == ("0", "1")
    assert topo.cpu_affinity["GPU4"] == "56"
    assert topo.gpu_numa_id["GPU0"] == "N/A"
    (report,) = load_paths([HELDOUT / "nvidia_smi_topo_empty_affinity.txt"]).files
    assert report.status == "read"  # the rows' notes skip nothing


def test_srun_and_mpirun_exit_reports_name_task_host_and_code() -> None:
    srun = _parse("nccl_socket_srun.log").of_kind("launcher_exit")
    assert [(e.line, e.rank, e.host, e.exit_code) for e in srun] == [
        (15, 0, "gpu-node1", 1),
        (18, 1, "gpu-node2", 134),
    ]
    (mpi,) = _parse("rccl_warn_ucx.log").of_kind("launcher_exit")
    assert (mpi.line, mpi.rank, mpi.exit_code, mpi.root_cause) == (55, 1, 3, True)
    items = _findings("nccl_socket_srun.log", "nccl")["evidence-launcher-exit"]
    assert items[1].startswith("srun: task/rank 1 on gpu-node2 exited with 134")


def test_nccl_warn_of_a_socket_the_peer_closed_with_the_rank_from_its_comm_line() -> None:
    (ev,) = _parse("nccl_socket_srun.log").of_kind("nccl_warning")
    assert (ev.line, ev.host, ev.pid, ev.rank, ev.rank_size, ev.port) == (
        23, "gpu-node2", 2985003, 1, 2, 45074,
    )  # fmt: skip
    assert ev.remote_ip == "gpu-node1.int.hpcie.labs.faculty.ie.edu"
