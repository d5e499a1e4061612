"""Outputs of round NNNN's held-out evaluation (set 672, framework logs on NVIDIA clusters) that
the advisor read in part before this change (tests/data/evidence_heldout_74, sources in
tests/data/SOURCES.md): two NCCL INFO tuning lines under srun's "0:" label (AllGather and
ReduceScatter, "time 37564.046875") taken for "a program's log in no form the advisor reads",
their figures unsaid; and torchelastic 0.2's rendezvous result with "restart_count=3" (lines 9
and 18) read as a clean worker group start, "no error"."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_74"

TUNING = "nccl_debug_allgather_reducescatter_37s_per_op_slurm_a100_cut_weathergen360.log"
RESTARTS = "torchelastic_etcd_rendezvous_v5_restart_count3_lightning_cut_pl3029.log"

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _tuning_note(ev: EvidenceFacts) -> str:
    (note,) = [s for s in heldout.said(ev) if "NCCL's tuning lines" in s]
    return note


# --- NCCL's tuning lines: a predicted time in microseconds, said with its figures -------------


def test_tuning_lines_are_read_with_their_predicted_times() -> None:
    ev = _load(TUNING)
    assert not any("no form the advisor reads" in s for s in heldout.said(ev))
    note = _tuning_note(ev)
    assert "on rank(s) 0" in note
    assert "AllGather 37564.046875 us (37.6 ms) (line(s) 1)" in note
    assert "ReduceScatter 37564.046875 us (37.6 ms) (line(s) 2)" in note
    assert "count 119813276" in note
    # (NCCL's tuning model's estimate, src/graph/tuning.cc: no measured op time, not seconds)
    assert "no measured duration" in note
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    assert ev.failures == []


def test_tuning_lines_of_another_rank_and_op_behind_nccls_host_prefix(tmp_path: Path) -> None:
    # (NCCL 2.23's whole tuning line, "%s: %ld Bytes -> Algo %d proto %d time %f", behind its
    # host:pid:tid prefix and another srun label: read as a debug log of its host, and said)
    text = (
        "3: node-1:309:309 [0] NCCL INFO AllReduce: 536870912 Bytes -> Algo 1 proto 2 "
        "time 5679.147949\n"
        "3: node-1:309:309 [0] NCCL INFO AllReduce: 1073741824 Bytes -> Algo 1 proto 2 "
        "time 11038.536133\n"
    )
    ev = _write(tmp_path, text)
    note = _tuning_note(ev)
    assert "on rank(s) 3" in note
    assert "AllReduce 11038.536133 us (11.0 ms) (line(s) 1, 2)" in note
    assert "536870912 bytes, 1073741824 bytes" in note
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_tuning_line_beside_an_nccl_warn_keeps_the_failure(tmp_path: Path) -> None:
    # (another NCCL line in the log: it is read by its own form, the tuning note is not said)
    text = _text(TUNING).replace(
        "0: NCCL INFO ReduceScatter: ... time 37564.046875",
        "0: NCCL WARN NET/IB : Got completion from peer 10.0.0.2<58540> with error 12, "
        "opcode 0, len 0, vendor err 129",
    )
    ev = _write(tmp_path, text)
    assert not any("NCCL's tuning lines" in s for s in heldout.said(ev))
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert ("evidence-nccl-ib-completion-error", "critical") in heldout.above_info(outcome)


def test_a_line_of_another_form_is_no_tuning_note(tmp_path: Path) -> None:
    # (a program's own "time" line beside the tuning line: not a log of tuning lines only)
    text = _text(TUNING) + "epoch 3 step 100 loss 0.53 time 12.5\n"
    ev = _write(tmp_path, text)
    assert not any("NCCL's tuning lines" in s for s in heldout.said(ev))


# --- torch elastic's restart_count above 0: the group had been restarted ---------------------


def test_restart_count_3_is_a_warning_naming_its_lines() -> None:
    ev = _load(RESTARTS)
    (event,) = [f for f in ev.failures if f["kind"] == "elastic_prior_restarts"]
    assert event["line"] == 9
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-elastic-prior-restarts", "warning")]
    (item,) = heldout.items(outcome, "evidence-elastic-prior-restarts")
    assert "restart_count=3 (line(s) 9, 18)" in item
    assert "restarted 3 time(s)" in item
    (start,) = [s for s in heldout.said(ev) if "started its worker group" in s]
    assert "restart_count=3: a start after 3 restart(s)" in start
    assert "master mnist12-worker-1, port 33769, 2 agent(s)" in start


def test_healthy_twin_with_restart_count_0_stays_ready(tmp_path: Path) -> None:
    ev = _write(tmp_path, _text(RESTARTS).replace("restart_count=3", "restart_count=0"))
    assert not any(f["kind"] == "elastic_prior_restarts" for f in ev.failures)
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    (start,) = [s for s in heldout.said(ev) if "started its worker group" in s]
    assert "restart_count" not in start


def test_torch2_form_on_another_agent_with_one_restart(tmp_path: Path) -> None:
    # (torch 2.x writes each field behind two spaces; agent group_rank 0, one restart, one
    # result only)
    text = _text(RESTARTS)
    cut = text.index("[INFO] 2020-08-18 05:27:19,618")
    text = (
        text[:cut]
        .replace("\trestart_count=3", "  restart_count=1")
        .replace("group_rank=1", "group_rank=0")
        + "[default] Starting worker group\n"
    )
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-elastic-prior-restarts")
    assert "restart_count=1 (line(s) 9)" in item


def test_a_restart_the_log_shows_is_read_once(tmp_path: Path) -> None:
    # (the agent's "Worker group FAILED ... will restart" above the result: elastic_restart
    # reads that restart, no second finding for its count)
    text = (
        "[INFO] 2020-08-18 05:27:10,000 api: [default] Worker group FAILED. 3/3 attempts left; "
        "will restart worker group\n"
        "[INFO] 2020-08-18 05:27:10,001 api: [default] Stopping worker group\n" + _text(RESTARTS)
    )
    ev = _write(tmp_path, text)
    assert not any(f["kind"] == "elastic_prior_restarts" for f in ev.failures)
    _, outcome = heldout.imported(ev)
    assert ("evidence-elastic-restart", "warning") in heldout.above_info(outcome)
