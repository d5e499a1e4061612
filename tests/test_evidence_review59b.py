"""Review 59 (part b) of sets 664 / 664b / 666 / 666b, faults 1-5: NCCL's ibv_open_device pair
when several local ranks' WARNs interleave; gRPC's current "connect: Connection refused (111)"
under JAX's coordinator; UCX's receive-no-ready retry count exceeded; a torchrun agent's death
signal under pdsh with another node's closing signals below it; a Mooncake handshake failure on
a host whose engine listed two RDMA devices: each on its input (tests/data/review59, described in
tests/data/SOURCES.md), the real file it was built from, and variants."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review59"
HELDOUT = DATA / "evidence_heldout_73"

_write = partial(heldout.load_copy, name="copy.log")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


def _said(ev: EvidenceFacts, kind: str) -> list[str]:
    return [str(f["exception_type"]) for f in ev.failures if f["kind"] == kind]


# --- 1. NCCL: ibv_open_device pairs of interleaved local ranks ---------------------------------

HOROVOD_2RANKS = (
    "horovod_nccl_2115_ibv_open_device_failed_mlx4_8_two_local_ranks_interleaved_horovod385.log"
)
NCCL_4PROCS = "nccl_ibv_open_device_failed_mlx5_3_four_local_ranks_interleaved_nccl_warn_cc.log"
HOROVOD_REAL = "horovod_0138_nccl_2115_ibv_open_device_failed_mlx4_8_horovod385_cut.log"


def _folded(ev: EvidenceFacts) -> list[tuple[int, int | None, str]]:
    return [(f["line"], f["pid"], f["message"]) for f in ev.failures]


def test_two_local_ranks_interleaved_pairs_fold_each_into_its_process() -> None:
    ev = _load(HOROVOD_2RANKS)
    got = _folded(ev)
    assert [(line, pid) for line, pid, _ in got] == [(8, 12122), (10, 12123)]
    assert "its ibv_open_device call failed, line 4:" in got[0][2]
    assert "its ibv_open_device call failed, line 6:" in got[1][2]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nccl-fallback-warning", "warning")]
    # the real one-rank file still folds its pair 2 lines apart
    real = _load(HOROVOD_REAL, HELDOUT)
    assert [(line, pid) for line, pid, _ in _folded(real)] == [(6, 12122)]
    assert "line 4:" in _folded(real)[0][2]
    assert heldout.imported(real)[0] == "READY WITH WARNINGS"


def test_four_local_ranks_in_the_newer_form_fold_eight_lines_apart() -> None:
    ev = _load(NCCL_4PROCS)
    got = _folded(ev)
    assert [(line, pid) for line, pid, _ in got] == [(11, 2000), (13, 2001), (15, 2002), (17, 2003)]
    for (_, _, message), wrapper in zip(got, (3, 5, 7, 9), strict=True):
        assert f"its ibv_open_device call failed, line {wrapper}:" in message
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


def test_a_process_two_hcas_among_another_rank_pairs_each_with_its_own_wrapper(
    tmp_path: Path,
) -> None:
    w = "misc/ibvwrap.cc:205 NCCL WARN Call to ibv_open_device failed"
    s = "transport/net_ib.cc:109 NCCL WARN NET/IB : Unable to open device"
    text = "\n".join(
        [
            f"n1:10:20 [0] {w}",
            f"n1:11:21 [1] {w}",
            f"n1:10:20 [0] {s} mlx5_0",
            f"n1:11:21 [1] {s} mlx5_0",
            f"n1:10:20 [0] {w}",
            f"n1:10:20 [0] {s} mlx5_1",
        ]
    )
    got = _folded(_write(tmp_path, text))
    assert [(line, pid) for line, pid, _ in got] == [(3, 10), (4, 11), (6, 10)]
    assert [m.split("call failed, line ", 1)[1].split(":", 1)[0] for _, _, m in got] == [
        "1",
        "2",
        "5",
    ]


def test_a_wrapper_warn_with_another_warn_of_its_process_below_it_is_not_that_skip(
    tmp_path: Path,
) -> None:
    # the device WARN follows its wrapper's in the same process: one with another WARN of that
    # process between them is not its pair, the wrapper's WARN stays on its own
    text = "\n".join(
        [
            "n1:10:20 [0] misc/ibvwrap.cc:205 NCCL WARN Call to ibv_open_device failed",
            "n1:10:20 [0] misc/socket.cc:1 NCCL WARN something else",
            "n1:10:20 [0] transport/net_ib.cc:109 NCCL WARN NET/IB : Unable to open device mlx5_0",
        ]
    )
    ev = _write(tmp_path, text)
    assert any(
        f["line"] == 1 and f["message"] == "Call to ibv_open_device failed" for f in ev.failures
    )


# --- 2. JAX: gRPC's current "connect: Connection refused (111)" -------------------------------

JAX_WRAPPED = "jax_coordinator_refused_grpc_connect_connection_refused_111_wrapped_marin7650.log"
JAX_ONE_LINE = (
    "jax_coordinator_refused_grpc_connect_connection_refused_111_one_line_watchjobstate.log"
)
JAX_REAL = "jax_multihost_gb200_coordinator_watchtasks_connection_refused_marin7650_cut.log"


def _refused_item(ev: EvidenceFacts) -> str:
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-coordination-timeout", "critical")]
    (item,) = heldout.items(outcome, "evidence-coordination-timeout")
    return item


def test_grpc_connect_refused_111_is_the_coordinator_refusing_as_the_real_file() -> None:
    for name, where in ((JAX_WRAPPED, REVIEW), (JAX_ONE_LINE, REVIEW), (JAX_REAL, HELDOUT)):
        ev = _load(name, where)
        assert [(f["kind"], f["line"], f["remote_ip"], f["port"]) for f in ev.failures] == [
            ("coordination_timeout", 1, "10.186.213.145", 13305)
        ], name
        assert "the coordination service at 10.186.213.145:13305 refused" in _refused_item(ev)


def test_grpc_connect_refused_with_macos_errno_and_an_ipv6_address(tmp_path: Path) -> None:
    text = (
        "[rank0] :UNAVAILABLE:failed to connect to all addresses; last error: UNAVAILABLE: "
        "ipv6:[fd00::12]:13305: Failed to connect to remote host: connect: Connection refused (61)\n"
        "[rank1] WatchJobStateAsync failed for task 1: UNAVAILABLE: failed to connect to all "
        "addresses\n"
    )
    ev = _write(tmp_path, text)
    assert [(f["kind"], f["port"]) for f in ev.failures] == [("coordination_timeout", 13305)]
    assert "13305 refused" in _refused_item(ev)


# --- 3. UCX: receive-no-ready retry count exceeded --------------------------------------------

UCX_RNR = "ucx_dc_receive_no_ready_retry_count_exceeded_mlx5_1_roce_ucx6522.log"
UCX_REAL = "ucx_dc_transport_retry_count_exceeded_mlx5_1_roce_synd_0x15_vend_0x81_backtrace_ucx6522_cut.log"


def test_rnr_retry_exceeded_is_a_peer_not_ready_not_a_silent_path() -> None:
    (said,) = _said(_load(UCX_RNR), "ucx_error")
    assert said.startswith(
        "Receive-no-ready retry count exceeded on mlx5_1:1/RoCE, sending to 10.150.5.46"
    )
    assert "'receiver not ready' (no receive buffer posted)" in said
    assert "stopped answering" not in said and "no acknowledgement" not in said
    # the real file's transport retries still say no acknowledgement came back
    (real,) = _said(_load(UCX_REAL, HELDOUT), "ucx_error")
    assert real.endswith(
        "no acknowledgement came back through all the HCA's retries, so that peer or the path "
        "to it stopped answering"
    )
    assert "receiver not ready" not in real


def test_rnr_retry_exceeded_under_pdsh_keeps_its_reading(tmp_path: Path) -> None:
    text = "".join(
        f"gpu-node1: {line}"
        for line in (REVIEW / UCX_RNR).read_text().splitlines(keepends=True)[:3]
    )
    (said,) = _said(_write(tmp_path, text), "ucx_error")
    assert "'receiver not ready'" in said and "10.150.5.46" in said


# --- 4. torchrun: another node's closing signals under an agent's death signal ----------------

TORCHRUN_TWO_HOSTS = "torchrun_pdsh_nodea_death_signal_nodeb_closing_signals.log"
TORCHRUN_REAL = (
    "torchrun_torch24_nv24_7_agent_sigterm_death_signal_workers_terminated_pytorch114097_cut.log"
)
_HEAD = "W0823 16:54:02.337000 {tid} torch/distributed/elastic"
_DEATH = "/agent/server/api.py:688] Received Signals.SIGTERM death signal, shutting down workers"
_CLOSE = "/multiprocessing/api.py:857] Sending process {pid} closing signal SIGTERM"


def test_another_node_closing_signals_are_not_the_agent_that_got_the_signal() -> None:
    (said,) = _said(_load(TORCHRUN_TWO_HOSTS), "launcher_exit")
    assert said == (
        "torchrun's agent (received SIGTERM from outside the job, line 1: it stopped its workers)"
    )
    # the real file, one agent's lines, still names its 4 workers
    (real,) = _said(_load(TORCHRUN_REAL, HELDOUT), "launcher_exit")
    assert (
        "it sent SIGTERM to its 4 running worker(s), pid(s) 6236, 6239, 6242, 6245 (line(s) 2-5)"
        in real
    )


def test_the_agent_own_closing_signals_among_another_node_are_its_own(tmp_path: Path) -> None:
    head = _HEAD.format(tid=139733055988160)
    lines = [
        f"node1: {head}{_DEATH}",
        f"node2: {head}{_CLOSE.format(pid=700)}",
        f"node1: {head}{_CLOSE.format(pid=100)}",
        f"node2: {head}{_CLOSE.format(pid=701)}",
        f"node1: {head}{_CLOSE.format(pid=101)}",
    ]
    (said,) = _said(_write(tmp_path, "\n".join(lines) + "\n"), "launcher_exit")
    assert "to its 2 running worker(s), pid(s) 100, 101 (line(s) 3, 5)" in said


def test_closing_signals_under_another_thread_id_are_another_agent(tmp_path: Path) -> None:
    lines = [
        _HEAD.format(tid=111) + _DEATH,
        _HEAD.format(tid=222) + _CLOSE.format(pid=500),
        _HEAD.format(tid=222) + _CLOSE.format(pid=501),
    ]
    (said,) = _said(_write(tmp_path, "\n".join(lines) + "\n"), "launcher_exit")
    assert said.endswith("line 1: it stopped its workers)")


# --- 5. Mooncake: a handshake failure on a host with two RDMA devices -------------------------

MOONCAKE_TWO = "mooncake_two_rdma_devices_link_local_and_ipv4_gid_handshake_rtr_timed_out_110.log"
MOONCAKE_REAL = "mooncake_transfer_engine_mlx5_0_gid_index_1_link_local_failed_modify_qp_rtr_timed_out_110_mooncake204_cut.log"


def test_a_handshake_failure_is_not_put_on_each_listed_device() -> None:
    (said,) = _said(_load(MOONCAKE_TWO), "rdma_handshake_failed")
    assert said.startswith(
        "Failed to modify QP to RTR: Connection timed out [110] (the [Handshake] line names no device; the engine's RDMA devices: mlx5_0 (GID index 1,"
    )
    assert "mlx5_1 (GID index 3, ::ffff:10.0.0.2, IPv4 10.0.0.2, line 6))" in said
    assert heldout.imported(_load(MOONCAKE_TWO))[0] == "NOT READY"
    # the real file lists one device: the failure is that device's, as before
    (real,) = _said(_load(MOONCAKE_REAL, HELDOUT), "rdma_handshake_failed")
    assert real == (
        "mlx5_0 (GID index 1, fe80::9e63:c0ff:fe65:ab90, a link-local GID, line 5): "
        "Failed to modify QP to RTR: Connection timed out [110]"
    )


def test_eight_devices_are_listed_once_behind_the_failure(tmp_path: Path) -> None:
    real = (HELDOUT / MOONCAKE_REAL).read_text().splitlines()
    device = next(line for line in real if "RDMA device: mlx5_0" in line)
    more = [device.replace("mlx5_0", f"mlx5_{n}") for n in range(1, 8)]
    at = real.index(device) + 1
    text = "\n".join([*real[:at], *more, *real[at:]]) + "\n"
    (said,) = _said(_write(tmp_path, text), "rdma_handshake_failed")
    assert said.startswith(
        "Failed to modify QP to RTR: Connection timed out [110] (the [Handshake]"
    )
    assert said.count("(GID index 1,") == 8
