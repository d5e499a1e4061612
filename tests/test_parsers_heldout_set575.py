"""Outputs of round XXX's held-out evaluation (set 575) that the advisor read wrong or not at all
before this change (tests/data/evidence_heldout_61, sources in tests/data/SOURCES.md): PyTorch
distributed logs (a 1 ms process-group time-out, two ranks' watchdogs firing together, torch
elastic's agent inside Ray actors)."""

from __future__ import annotations

from functools import partial

from advisor.parsers import logs
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_61"


_load = partial(heldout.load, HELDOUT)


def test_a_time_out_under_a_second_is_the_fault_not_a_missing_peer() -> None:
    # Timeout(ms)=1, ran for 90 ms: the watchdog cut the all-reduce off, nothing hung
    ev = _load("instructlab520_watchdog_timeout_1ms_seqnum1_allreduce_rank3_ran_90ms_cut.log")
    (timeout,) = ev.failures
    assert (timeout["rank"], timeout["seq"], timeout["timeout_ms"], timeout["ran_for_ms"]) == (
        3,
        1,
        1,
        90,
    )
    found = heldout.found(ev)["evidence-watchdog-timeout"]
    assert found.message.startswith(
        "1 watchdog time-out(s) against a process-group time-out of under a second (1 ms), after "
        "the collective had run 90 ms:"
    )
    assert "set far too short" in found.message and "never joined" not in found.message
    (item,) = found.items
    assert "ran 90 ms against a 1 ms time-out (a time-out under a second" in item
    assert "line 2" in item
    advice = [r.why for r in found.recommendations if r.kind == "advice"]
    assert len(advice) == 1 and advice[0].startswith("Set the process group's time-out back")
    assert not any("SeqNum 1" in a or "NCCL_SOCKET_IFNAME" in a for a in advice)


def test_two_ranks_watchdogs_firing_together_name_no_first_rank() -> None:
    # rank 2's take-down (no work named) 0.4 ms before rank 0's time-out of SeqNum 1522789: both
    # ended one 600 s wait, neither is the other's cause
    ev = _load("sglang3424_pg2_rank0_allgather_base_seq1522789_600093ms_wrapped_cut.log")
    (timeline,) = ev.timelines
    assert timeline.one_collective and timeline.all_waiting
    found = heldout.found(ev)
    assert "evidence-failure-order" not in found
    (item,) = found["evidence-watchdog-timeout"].items
    assert "Rank 0 in process group 2 (a subgroup): all_gather (SeqNum 1522789" in item
    assert "ran 600093 ms against a 600000 ms time-out" in item


def test_torch_elastic_agent_lines_behind_rays_actor_prefix_are_a_healthy_run() -> None:
    ev = _load(
        "torchx492_ray_commandactor_torchelastic_rendezvous_world2_worker_group_successfully_finished_healthy_cut.log"
    )
    assert not ev.failures
    assert heldout.said(ev) == [
        "log: torch elastic started its worker group: 1 local worker(s); its rendezvous: master "
        "tristanr-arch2, port 48089, 2 agent(s) (nodes), a world of 2; 1 agent(s) said their "
        "workers finished (SUCCEEDED); no error"
    ]
    assert [m.line for f in ev.files for m in f.messages] == [14]
    assert not [f for f in heldout.found(ev).values() if f.severity in ("critical", "warning")]


def test_an_agents_own_end_alone_is_a_healthy_elastic_run() -> None:
    # a pod's log of torchrun's command, the program's output and the agent's last words, with
    # no status record after them (GKE indexed job, worker 1 of 4)
    text = (
        "+ torchrun --rdzv_id=123 --nnodes=4 --nproc_per_node=1 "
        "--master_addr=pytorchworker-0.headless-svc --master_port=3389 --node_rank=1 mnist.py "
        "--epochs=1 --log-interval=1\n"
        "Test set: Average loss: 0.0825, Accuracy: 9720/10000 (97%)\n\n"
        "INFO:torch.distributed.elastic.agent.server.api:[default] worker group successfully "
        "finished. Waiting 300 seconds for other agents to finish.\n"
        "INFO:torch.distributed.elastic.agent.server.api:Local worker group finished (SUCCEEDED). "
        "Waiting 300 seconds for other agents to finish\n"
        "INFO:torch.distributed.elastic.agent.server.api:Done waiting for other agents. Elapsed: "
        "0.0015289783477783203 seconds\n"
    )
    report = logs.parse(text)
    assert not report.events
    assert [(w.line, w.message) for w in report.unread] == [
        (
            5,
            "torch elastic's agent said its worker group finished (SUCCEEDED) (default); "
            "torchrun's command line: 4 node(s), 1 process(es) a node, this node's rank 1, master "
            "pytorchworker-0.headless-svc:3389; it passed its exit barrier (0.00153 s): every "
            "agent of the job had reached it (their workers ended, successfully or not); no error",
        )
    ]
