"""Outputs of round BBBB's held-out set 599 (torch logs of NVIDIA clusters) the advisor read in
part before this change (tests/data/evidence_heldout_64, sources in tests/data/SOURCES.md): the
old watchdog's "Some NCCL operations have failed or timed out" of two processes counted as one,
and a RendezvousClosedError after the agents had stopped running workers said to be a job that
never started, its srun tasks and the agents' death signals counted as ranks."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_64"

OLD_FORM = "torch_ddp_old_form_no_rank_prefix_processgroupnccl_488_494_some_nccl_ops_failed.log"
CLOSED = "torchrun2024_srun_rendezvousclosederror_cdr2596_sigterm_cut.log"

NOTICE = (
    "[E ProcessGroupNCCL.cpp:488] Some NCCL operations have failed or timed out. Due to the "
    "asynchronous nature of CUDA kernels, subsequent GPU operations might run on "
    "corrupted/incomplete data."
)
DOWN = (
    "[E ProcessGroupNCCL.cpp:494] To avoid data inconsistency, we are taking the entire process "
    "down."
)


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


# --- the old watchdog's notice, two processes -------------------------------------------------


def test_two_unnamed_notices_are_two_processes() -> None:
    ev = _load(OLD_FORM)
    failed = [f for f in ev.failures if f["kind"] == "watchdog_failure"]
    assert [(f["line"], f["rank"]) for f in failed] == [(1, None), (3, None)]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-watchdog-failure", "critical")]
    message, items = heldout.finding(outcome, "evidence-watchdog-failure")
    assert message.startswith("2 rank(s) whose own watchdog found a collective failed")
    assert all(i.startswith("A rank the log does not name") for i in items)
    # (no op, work number or time-out is in the file: none is said)
    assert not any("work " in i or "process group" in i for i in items)


def test_the_notice_and_its_take_down_line_are_one_process_each(tmp_path: Path) -> None:
    # each process: the notice, then its "taking ... down" line; three processes interleaved
    text = f"{NOTICE}\n{DOWN}\n{NOTICE}\n{NOTICE}\n{DOWN}\n{DOWN}\n"
    failed = [f for f in _write(tmp_path, text).failures if f["kind"] == "watchdog_failure"]
    assert [f["line"] for f in failed] == [1, 3, 4]
    # one process alone, its take-down line after it: one
    text = f"{NOTICE}\n{DOWN}\n"
    failed = [f for f in _write(tmp_path, text).failures if f["kind"] == "watchdog_failure"]
    assert [f["line"] for f in failed] == [1]
    # a rank's tag names each: the same rank's two notices are still one rank
    text = f"[rank1]:{NOTICE}\n[rank1]:{DOWN}\n[rank1]:{NOTICE}\n[rank0]:{NOTICE}\n"
    failed = [f for f in _write(tmp_path, text).failures if f["kind"] == "watchdog_failure"]
    assert sorted(f["rank"] for f in failed) == [0, 1]


# --- RendezvousClosedError after the job ran --------------------------------------------------


def test_a_rendezvous_closed_after_workers_ran_is_no_job_that_never_formed() -> None:
    ev = _load(CLOSED)
    kinds = {f["kind"] for f in ev.failures}
    assert "rendezvous_failure" not in kinds
    (closed,) = [f for f in ev.failures if f["kind"] == "rendezvous_closed"]
    assert closed["line"] == 4
    assert "after the job had formed" in closed["exception_type"]
    assert "pid 222141" in closed["exception_type"] and "line 10" in closed["exception_type"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    found = dict(heldout.above_info(outcome))
    assert found["evidence-rendezvous-closed"] == "critical"
    assert "evidence-rendezvous-failure" not in found
    message, _ = heldout.finding(outcome, "evidence-rendezvous-closed")
    assert "no worker started" not in message and "never agreed" not in message


def test_srun_tasks_and_death_signals_of_agents_are_no_ranks() -> None:
    _, outcome = heldout.imported(_load(CLOSED))
    message, items = heldout.finding(outcome, "evidence-launcher-exit")
    assert "rank(s) exited non-zero" not in message
    assert message.startswith("4 end(s) of torchrun's agents (a node's launcher each, not ranks)")
    assert "task/rank" not in " ".join(items)
    assert items[0].startswith("srun (task 1, the torchrun agent of its node, not a rank)")
    assert "cdr2596 exited with 1" in items[0]
    # the Slurm step's cancellation stays its own finding
    # (no "DUE TO" reason: a note of its own since round XXXX set 732; the ranks' failure above
    # it is the verdict)
    assert "evidence-job-cancelled-no-reason" in [f.rule_id for f in outcome.findings]


def test_srun_tasks_without_torchrun_stay_ranks(tmp_path: Path) -> None:
    ev = _write(tmp_path, "srun: error: cdr2596: task 1: Exited with exit code 1\n")
    (exit_,) = [f for f in ev.failures if f["kind"] == "launcher_exit"]
    assert exit_["rank"] == 1 and exit_["worker"] is None
    message, _ = heldout.finding(heldout.imported(ev)[1], "evidence-launcher-exit")
    assert message.startswith("1 rank(s) exited non-zero")


def test_a_closed_rendezvous_with_no_sign_the_job_ran_stays_one_that_never_formed(
    tmp_path: Path,
) -> None:
    text = (
        '  File "/x/torch/distributed/elastic/rendezvous/dynamic_rendezvous.py", line 635, in run\n'
        "    raise RendezvousClosedError()\n"
        "torch.distributed.elastic.rendezvous.api.RendezvousClosedError\n"
    )
    (failure,) = [f for f in _write(tmp_path, text).failures if "rendezvous" in f["kind"]]
    assert failure["kind"] == "rendezvous_failure"
    # the newer glog form of the agent's closing signal shows the job ran too
    text += (
        "W0105 14:27:50.123000 222100 torch/distributed/elastic/multiprocessing/api.py:858] "
        "Sending process 222141 closing signal SIGTERM\n"
    )
    (failure,) = [f for f in _write(tmp_path, text).failures if "rendezvous" in f["kind"]]
    assert failure["kind"] == "rendezvous_closed"
