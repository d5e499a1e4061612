"""Outputs of round MMMM's held-out evaluation (set 666, framework logs on NVIDIA clusters) that the
advisor read wrong or in part before this change (tests/data/evidence_heldout_73, sources in
tests/data/SOURCES.md): a JAX multi-host job whose coordination service at 10.186.213.145:13305
refused rank 0's gRPC connection while task 3's watch of the service failed UNAVAILABLE, not read
at all; and torchrun's agent that received Signals.SIGTERM (Python's printing of the signal's
member, not its number) and sent SIGTERM to its four workers, said to hold no launcher error."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_73"

JAX = "jax_multihost_gb200_coordinator_watchtasks_connection_refused_marin7650_cut.log"
AGENT = (
    "torchrun_torch24_nv24_7_agent_sigterm_death_signal_workers_terminated_pytorch114097_cut.log"
)

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


# --- JAX: the coordinator refused the connection ------------------------------------------------


def test_a_refused_coordinator_is_read_with_its_address_and_tasks() -> None:
    ev = _load(JAX)
    assert ev.files[0].formats == ["log"]
    (failure,) = [f for f in ev.failures if f["kind"] == "coordination_timeout"]
    assert (failure["remote_ip"], failure["port"], failure["rank"]) == ("10.186.213.145", 13305, 0)
    assert failure["line"] == 1
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-coordination-timeout", "critical")]
    (item,) = heldout.items(outcome, "evidence-coordination-timeout")
    assert item.startswith(
        "the coordination service at 10.186.213.145:13305 refused the connection"
    )
    assert "rank(s) 0 could not connect (line 1)" in item
    assert "task 3's watch of the service failed UNAVAILABLE (line 3)" in item
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-coordination-timeout"]
    assert any("process 0" in r.why for r in finding.recommendations)


def test_a_refused_coordinator_on_another_address_rank_and_task(tmp_path: Path) -> None:
    text = (
        _text(JAX)
        .replace("10.186.213.145:13305", "10.0.7.21:8476")
        .replace("[rank0]", "[rank5]")
        .replace("task 3", "task 6")
    )
    ev = _write(tmp_path, text)
    (failure,) = [f for f in ev.failures if f["kind"] == "coordination_timeout"]
    assert (failure["remote_ip"], failure["port"], failure["rank"]) == ("10.0.7.21", 8476, 5)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-coordination-timeout")
    assert "10.0.7.21:8476" in item and "task 6's watch" in item and "rank(s) 5" in item


def test_the_address_on_the_statuss_own_line_is_read(tmp_path: Path) -> None:
    # (a copy whose terminal did not wrap gRPC's message: the address on the status's line)
    text = _text(JAX).replace("UNKNOWN:\nipv4", "UNKNOWN: ipv4")
    ev = _write(tmp_path, text)
    (failure,) = [f for f in ev.failures if f["kind"] == "coordination_timeout"]
    assert (failure["remote_ip"], failure["port"], failure["rank"], failure["line"]) == (
        "10.186.213.145",
        13305,
        0,
        1,
    )


def test_a_healthy_jax_start_stays_ready(tmp_path: Path) -> None:
    # the healthy twin: the job's start said, no refused connection, no failed watch
    text = (
        "[rank0] Connected to distributed JAX controller\n"
        "[rank3] Connected to distributed JAX controller\n"
    )
    ev = _write(tmp_path, text)
    assert not [f for f in ev.failures if f["kind"] == "coordination_timeout"]
    level, _ = heldout.imported(ev)
    assert level == "READY"


# --- torchrun's agent stopped by SIGTERM ---------------------------------------------------------


def test_the_agents_sigterm_and_the_workers_it_stopped_are_read() -> None:
    ev = _load(AGENT)
    (agent,) = [f for f in ev.failures if f["kind"] == "launcher_exit"]
    assert (agent["line"], agent["exit_code"], agent["worker"]) == (1, -15, "torchrun's agent")
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-launcher-exit", "critical")]
    (item,) = heldout.items(outcome, "evidence-launcher-exit")
    assert item.startswith(
        "torchrun's agent (received SIGTERM from outside the job, line 1: it sent SIGTERM to its "
        "4 running worker(s), pid(s) 6236, 6239, 6242, 6245 (line(s) 2-5))"
    )
    # (the cut traceback below is torchrun's own, not what stopped the run)
    assert not [f for f in outcome.findings if f.rule_id == "evidence-python-exception"]


def test_the_agents_signal_as_a_number_and_other_workers(tmp_path: Path) -> None:
    text = _text(AGENT).replace("Signals.SIGTERM", "15")
    for old, new in (("6236", "911"), ("6239", "912")):
        text = text.replace(old, new)
    # two workers only: the others had exited already
    text = "\n".join(
        line for line in text.splitlines() if "6242" not in line and "6245" not in line
    )
    ev = _write(tmp_path, text + "\n")
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-launcher-exit")
    assert "received SIGTERM from outside the job, line 1" in item
    assert "its 2 running worker(s), pid(s) 911, 912 (line(s) 2-3)" in item


def test_sigint_to_the_agent_is_named(tmp_path: Path) -> None:
    text = _text(AGENT).replace("Signals.SIGTERM", "Signals.SIGINT")
    ev = _write(tmp_path, text)
    (agent,) = [f for f in ev.failures if f["kind"] == "launcher_exit"]
    assert agent["exit_code"] == -2
    _, outcome = heldout.imported(ev)
    (item,) = heldout.items(outcome, "evidence-launcher-exit")
    assert "received SIGINT from outside the job" in item


def test_an_agent_whose_workers_closed_without_a_death_signal_is_no_agent_stop(
    tmp_path: Path,
) -> None:
    # the healthy twin of the agent's lines: its workers ran and it said nothing of a signal
    text = (
        "".join(line + "\n" for line in _text(AGENT).splitlines()[:1] if "death signal" not in line)
        + "[default] worker group successfully finished.\n"
    )
    ev = _write(tmp_path, text)
    assert not [f for f in ev.failures if f["kind"] == "launcher_exit"]
