"""Outputs of round FFFF's held-out evaluation (set 623, NVIDIA collective logs) that the advisor
read wrong or in part before this change (tests/data/evidence_heldout_67, sources in
tests/data/SOURCES.md): ProcessGroupNCCL's watchdog thread raising, seen only by its stack, read
as an unknown program's error; torch elastic's agent losing its rendezvous' store and stopping its
running worker, read as healthy; torchrun's launch configs and rendezvous result of a two-node job
given a loopback master, not read at all."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_67"

WATCHDOG = (
    "torch_elastic_pytorch123678_ncclCommWatchdog_frames_then_elastic_bracket_timestamp_cut.log"
)
KEEPALIVE = (
    "torch_elastic_pytorch67742_quoted_gt_prefix_c10d_rdzv_keepalive_failed_"
    "RendezvousConnectionError_sigterm_cut.log"
)
LOOPBACK = (
    "torch_elastic_pytorch76367_static_rdzv_launch_config_rendezvous_complete_group_rank1_"
    "master_addr_localhost.log"
)


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


# --- ProcessGroupNCCL's watchdog thread raising, its stack alone --------------------------------


def test_an_exception_raised_from_nccl_comm_watchdog_is_the_watchdogs_death() -> None:
    ev = _load(WATCHDOG)
    (failed,) = ev.failures
    assert (failed["kind"], failed["line"], failed["rank"]) == ("watchdog_failure", 1, None)
    assert "ProcessGroupNCCL.cpp:1339" in failed["exception_type"]
    assert "above the copy's first line" in failed["exception_type"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-watchdog-failure", "critical")]
    (item,) = heldout.items(outcome, "evidence-watchdog-failure")
    assert item.startswith("A rank the log does not name: Exception raised from ncclCommWatchdog")
    # (no time-out, op or rank is in the copy: none is said)
    assert "evidence-log-error" not in str(outcome.findings)
    assert "timeout" not in failed["exception_type"].replace("time-out", "")


def test_a_watchdog_stack_behind_a_rank_tag_names_its_rank(tmp_path: Path) -> None:
    frames = (
        "Exception raised from ncclCommWatchdog at ../torch/csrc/distributed/c10d/"
        "ProcessGroupNCCL.cpp:1475 (most recent call first):\n"
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x57 (0x7f in "
        "/usr/lib/python3/site-packages/torch/lib/libc10.so)\n"
        "frame #1: <unknown function> + 0xdbbf4 (0x7f in /lib/x86_64-linux-gnu/libstdc++.so.6)\n"
    )
    tagged = _write(tmp_path, "".join(f"[rank5]:{line}\n" for line in frames.splitlines()))
    (failed,) = tagged.failures
    assert (failed["kind"], failed["rank"]) == ("watchdog_failure", 5)
    assert "ProcessGroupNCCL.cpp:1475" in failed["exception_type"]
    # another function's c10 error in the same file is no watchdog's death
    other = _write(tmp_path, frames.replace("ncclCommWatchdog", "checkForNCCLErrors"))
    assert not [f for f in other.failures if f["kind"].startswith("watchdog")]


# --- torch elastic's keep-alive to its rendezvous failing -------------------------------------


def test_a_failed_keepalive_then_a_sigterm_to_a_running_worker_is_the_rendezvous_lost() -> None:
    ev = _load(KEEPALIVE)
    assert any("'>' taken off 2 line(s)" in said for said in heldout.said(ev))
    (lost,) = ev.failures
    assert (lost["kind"], lost["line"], lost["host"], lost["pid"]) == (
        "rendezvous_lost",
        1,
        "docker.b",
        3427,  # (the agent's pid, in the rendezvous' name of the node; 3494 is its worker)
    )
    assert lost["exception_type"].startswith("RendezvousConnectionError: the agent of node ")
    assert "rendezvous 'test'" in lost["exception_type"]
    assert "pid 3494, SIGTERM (line 2)" in lost["exception_type"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-rendezvous-lost", "critical")]
    (item,) = heldout.items(outcome, "evidence-rendezvous-lost")
    assert item.startswith("docker.b: RendezvousConnectionError")


def test_the_keepalive_in_torch_24s_glog_form_and_without_a_sigterm_reads_apart(
    tmp_path: Path,
) -> None:
    keepalive = (
        "W0813 22:23:32.979031 140204091807488 torch/distributed/elastic/rendezvous/"
        "dynamic_rendezvous.py:1267] The node 'gpu-node-07_51234_0' has failed to send a "
        "keep-alive heartbeat to the rendezvous '100' due to an error of type "
        "RendezvousTimeoutError.\n"
    )
    stopped = _write(
        tmp_path,
        keepalive + keepalive + "W0813 22:23:40.100000 140204091807488 torch/distributed/elastic/"
        "multiprocessing/api.py:891] Sending process 51240 closing signal SIGTERM\n",
    )
    (lost,) = stopped.failures  # (the agent's repeated heartbeat: one loss)
    assert (lost["kind"], lost["host"]) == ("rendezvous_lost", "gpu-node-07")
    assert lost["exception_type"].startswith("RendezvousTimeoutError: ")
    # no running worker closed after it: the store gone as a job ends, a warning
    alone = _write(tmp_path, keepalive)
    (store,) = alone.failures
    assert (store["kind"], store["host"], store["pid"]) == ("store_lost", "gpu-node-07", 51234)
    level, outcome = heldout.imported(alone)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-store-lost", "warning")]
    # its workers had finished before the heartbeat failed: no loss of the job
    done = _write(
        tmp_path,
        "I0813 22:23:30.000000 1 torch/distributed/elastic/agent/server/api.py:879] [default] "
        "worker group successfully finished. Waiting 300 seconds for other agents to finish.\n"
        + keepalive,
    )
    assert not [f for f in done.failures if f["kind"] == "rendezvous_lost"]


# --- torchrun's launch configs and a loopback master ------------------------------------------


def test_a_two_node_rendezvous_given_a_loopback_master_is_a_warning() -> None:
    ev = _load(LOOPBACK)
    assert ev.files[0].formats == ["log"]
    (loopback,) = ev.failures
    assert (loopback["kind"], loopback["line"]) == ("elastic_master_loopback", 17)
    assert (loopback["ip"], loopback["port"], loopback["rank_size"]) == ("localhost", 23456, 2)
    assert "this agent is group_rank 1" in loopback["exception_type"]
    assert "endpoint pytorch-dist-nlp-master-0:23456" in loopback["exception_type"]
    (note,) = [said for said in heldout.said(ev) if "rendezvous completed" in said]
    assert "group_rank 1 of 2 agent(s) (nodes)" in note
    assert "global rank(s) [1]" in note and "master localhost:23456" in note
    assert "rdzv_backend static, rdzv_endpoint pytorch-dist-nlp-master-0:23456" in note
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-elastic-master-loopback", "warning")]


def test_a_rendezvous_result_with_a_routable_master_or_one_agent_is_healthy(
    tmp_path: Path,
) -> None:
    result = (
        "INFO:torch.distributed.elastic.agent.server.api:[default] Rendezvous complete for "
        "workers. Result:\n  restart_count=0\n  master_addr={addr}\n  master_port=29500\n"
        "  group_rank=0\n  group_world_size={agents}\n  local_ranks=[0, 1]\n"
        "  role_ranks=[0, 1]\n  global_ranks=[0, 1]\n"
    )
    routable = _write(tmp_path, result.format(addr="10.0.0.1", agents=2))
    assert routable.failures == []
    assert any("master 10.0.0.1:29500" in said for said in heldout.said(routable))
    assert heldout.imported(routable)[0] == "READY"
    # one agent on its own host: its loopback master serves it
    single = _write(tmp_path, result.format(addr="127.0.0.1", agents=1))
    assert single.failures == []
    assert heldout.imported(single)[0] == "READY"
    # glog's form (torch >= 2.4) with the same loopback in a job of 4 agents
    glog = result.format(addr="127.0.0.1", agents=4).replace(
        "INFO:torch.distributed.elastic.agent.server.api:",
        "I0227 17:39:41.936000 2938 torch/distributed/elastic/agent/server/api.py:525] ",
    )
    (loopback,) = _write(tmp_path, glog).failures
    assert (loopback["kind"], loopback["ip"], loopback["rank_size"]) == (
        "elastic_master_loopback",
        "127.0.0.1",
        4,
    )
