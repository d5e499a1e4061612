"""Outputs of round IIII's held-out evaluation (set 641, NVIDIA collective logs) that the advisor
read in part before this change (tests/data/evidence_heldout_69, sources in tests/data/SOURCES.md):
NCCL 2.7's "Failed to open libibverbs.so" WARN on a communicator whose ranks all sit on one host
read as a fallback that may slow the job (the GPUs of one host talk over P2P or shared memory,
never the socket transport NCCL fell back to), and torch elastic's "Worker group FAILED ... will
restart worker group" in a copy that ends in the agent's own steps of that restart read as a
restart the job survived (nothing shows the restarted workers ran)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_69"

NCCL_ONE_HOST = "nccl278_bare_rank_prefix_socket_no_ibverbs_2rank_init_nccl417_cut.log"
ELASTIC = "torchelastic_py_logging_worker_group_failed_restart_rendezvous_result_doc2edag24_cut.log"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


# --- NCCL: no libibverbs on a communicator of one host ----------------------------------------


def test_no_libibverbs_on_one_host_is_no_fallback_that_slows_the_job() -> None:
    ev = _load(NCCL_ONE_HOST)
    assert ev.failures == []
    said = heldout.said(ev)
    (note,) = [m for m in said if "libibverbs" in m]
    assert "line(s) 4, 11" in note
    assert "every rank of its communicator is on one host (address 172.17.6.148)" in note
    # (what the set-up said is still read)
    assert "log: NCCL 2.7.8+cuda10.2" in said
    assert any("NCCL's rings: 2 channel(s)" in m and "each over 2 rank(s)" in m for m in said)
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    assert "slower" not in str(outcome.findings)


def _one_host_log(host: str, ranks: int) -> str:
    """NCCL 2.7's start on ``host`` with its full "host:pid:tid [dev]" prefix, one process a rank."""
    lines = []
    for rank in range(ranks):
        prefix = f"{host}:{4100 + rank}:{4100 + rank} [{rank}]"
        lines += [
            f"{prefix} NCCL INFO Bootstrap : Using [0]eth0:10.1.2.3<0>",
            f"{prefix} misc/ibvwrap.cc:63 NCCL WARN Failed to open libibverbs.so[.1]",
            f"{prefix} NCCL INFO NET/Socket : Using [0]eth0:10.1.2.3<0>",
            f"{prefix} NCCL INFO Using network Socket",
        ]
    ring = "".join(f"{r:>4}" for r in range(ranks))
    lines += [
        "NCCL version 2.7.8+cuda11.0",
        f"{host}:4100:4100 [0] NCCL INFO Channel 00/02 :{ring}",
        f"{host}:4100:4100 [0] NCCL INFO Channel 01/02 :{ring}",
        f"{host}:4100:4100 [0] NCCL INFO Setting affinity for GPU 0 to ffff",
    ]
    return "\n".join(lines) + "\n"


def test_prefixed_ranks_of_one_host_read_alike(tmp_path: Path) -> None:
    ev = _write(tmp_path, _one_host_log("dgx-a100-07", 4))
    assert ev.failures == []
    (note,) = [m for m in heldout.said(ev) if "libibverbs" in m]
    assert "line(s) 2, 6, 10, 14" in note and "(dgx-a100-07)" in note
    level, _ = heldout.imported(ev)
    assert level == "READY"


def test_no_libibverbs_where_ranks_span_hosts_stays_a_fallback_warning(tmp_path: Path) -> None:
    text = (HELDOUT / NCCL_ONE_HOST).read_text()
    # rank 1 on another host: its own address (sockets then carry rank 0 <-> rank 1)
    lines = text.splitlines(keepends=True)
    lines[7:12] = [ln.replace("172.17.6.148", "172.17.6.149") for ln in lines[7:12]]
    ev = _write(tmp_path, "".join(lines))
    assert [f["kind"] for f in ev.failures] == ["nccl_warning", "nccl_warning"]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nccl-fallback-warning", "warning")]


def test_a_copy_showing_fewer_processes_than_ranks_says_no_one_host(tmp_path: Path) -> None:
    # a ring of 4 ranks, only 2 processes in the copy: the others may be on another host
    text = (HELDOUT / NCCL_ONE_HOST).read_text().replace(":    0   1\n", ":    0   1   2   3\n")
    ev = _write(tmp_path, text)
    assert [f["kind"] for f in ev.failures] == ["nccl_warning", "nccl_warning"]


def test_a_channel_over_the_network_says_no_one_host(tmp_path: Path) -> None:
    text = (HELDOUT / NCCL_ONE_HOST).read_text() + (
        "[0] NCCL INFO Channel 00 : 0[1000] -> 1[21000] via NET/Socket/0\n"
    )
    ev = _write(tmp_path, text)
    # (beside the socket transport's own note of the channel)
    assert [f["line"] for f in ev.failures if f["kind"] == "nccl_warning"] == [4, 11]


# --- torch elastic: a failed worker group whose restart the copy does not show ----------------


def test_a_restart_the_copy_ends_in_is_a_failed_attempt() -> None:
    ev = _load(ELASTIC)
    (restart,) = ev.failures
    assert (restart["kind"], restart["line"]) == ("elastic_restart_pending", 1)
    said = restart["exception_type"]
    assert "FAILED and was restarted 1 time(s) ('3/3 attempts left' at the last)" in said
    assert "nothing shows the restarted workers ran" in said
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-elastic-restart-pending", "critical")]
    assert "went on" not in str(outcome.findings)


_GLOG_RESTART = (
    "I0213 12:07:20.086000 870572 torch/distributed/elastic/agent/server/api.py:889] [default] "
    "Worker group FAILED. 2/3 attempts left; will restart worker group\n"
    "I0213 12:07:20.086000 870572 torch/distributed/elastic/agent/server/api.py:699] [default] "
    "Stopping worker group\n"
    "W0213 12:07:20.087000 870572 torch/distributed/elastic/multiprocessing/api.py:858] Sending "
    "process 876054 closing signal SIGTERM\n"
    "I0213 12:07:21.087000 870572 torch/distributed/elastic/agent/server/api.py:677] [default] "
    "Rendezvous'ing worker group\n"
    "I0213 12:07:21.300000 870572 torch/distributed/elastic/rendezvous/dynamic_rendezvous.py:"
    "1087] The node 'node-3_870572_0' has joined round 2 of the c10d rendezvous backend.\n"
    "I0213 12:07:21.400000 870572 torch/distributed/elastic/agent/server/api.py:525] [default] "
    "Rendezvous complete for workers. Result:\n"
    "  restart_count=2\n"
    "  master_addr=node-3\n"
    "\n"
    "I0213 12:07:21.500000 870572 torch/distributed/elastic/agent/server/api.py:683] [default] "
    "Starting worker group\n"
    "I0213 12:07:21.510000 870572 torch/distributed/elastic/agent/server/local_elastic_agent.py:"
    "236] Environment variable 'TORCHELASTIC_ENABLE_FILE_TIMER' not found. Do not start "
    "FileTimerServer.\n"
)


def test_torch2_glog_restart_cut_in_its_steps_reads_alike(tmp_path: Path) -> None:
    ev = _write(tmp_path, _GLOG_RESTART)
    (restart,) = [f for f in ev.failures if f["kind"].startswith("elastic_restart")]
    assert restart["kind"] == "elastic_restart_pending"
    assert "('2/3 attempts left' at the last)" in restart["exception_type"]


def test_a_restart_followed_by_its_workers_lines_stays_a_warning(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        _GLOG_RESTART + "[rank0]: epoch 3 step 120 loss 2.314\n"
        "I0213 12:30:00.000000 870572 torch/distributed/elastic/agent/server/api.py:709] "
        "[default] worker group successfully finished. Waiting 300 seconds for other agents to "
        "finish.\n",
    )
    (restart,) = [f for f in ev.failures if f["kind"].startswith("elastic_restart")]
    assert restart["kind"] == "elastic_restart"
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert ("evidence-elastic-restart", "warning") in heldout.above_info(outcome)


def test_shared_memory_turned_off_says_no_one_host(tmp_path: Path) -> None:
    # (NCCL_SHM_DISABLE=1: the network may carry the GPUs of one host)
    text = (
        "[0] NCCL INFO NCCL_SHM_DISABLE set by environment to 1.\n"
        + (HELDOUT / NCCL_ONE_HOST).read_text()
    )
    ev = _write(tmp_path, text)
    assert [f["line"] for f in ev.failures if f["kind"] == "nccl_warning"] == [5, 12]
