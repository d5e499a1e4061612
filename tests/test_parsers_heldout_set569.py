"""Outputs of round WWW's held-out set 569 that the advisor read wrong or not at all before this
change (tests/data/evidence_heldout_60, sources in tests/data/SOURCES.md): PyTorch distributed
jobs' logs (a torchrun worker's healthy end, a watchdog time-out at different SeqNums)."""

from __future__ import annotations

import time
from collections.abc import Callable
from functools import partial

from advisor.evidence import load
from advisor.evidence.load import EvidenceFacts
from advisor.parsers import logs, numbered_lines
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_60"


_load = partial(heldout.load, HELDOUT)


def _said(ev: EvidenceFacts) -> list[str]:
    return [m.message for f in ev.files for m in f.messages]


def test_a_torchrun_workers_log_ending_in_its_agents_success_is_read_healthy() -> None:
    ev = _load(
        "gke_indexed_job_kubectl_logs_pytorchworker1_torchrun_nnodes4_mnist_succeeded_healthy.log"
    )
    assert ev.files[0].status == "read"
    assert ev.files[0].formats == ["log"]
    (note,) = ev.files[0].messages
    assert note.line == 36
    assert note.message == (
        "log: torch elastic's agent said its worker group finished (SUCCEEDED) (default); "
        "torchrun's command line: 4 node(s), 1 process(es) a node, this node's rank 1, master "
        "pytorchworker-0.headless-svc:3389; it passed its exit barrier (0.00153 s): every agent "
        "of the job had reached it (their workers ended, successfully or not); no error"
    )
    assert not ev.failures


def test_the_watchdogs_death_names_the_group_its_time_out_line_did_not() -> None:
    # rank 0's time-out (l.6) names no group; its watchdog's death (l.7) repeats the record under
    # "[PG ID 0 PG GUID 0(default_pg) Rank 0]": both ranks are of the default group, 32
    # collectives apart
    ev = _load(
        "verl_agent_ray_workerdict_rank1_allreduce_seq2635_vs_rank0_reduce_scatter_seq2667_1800000ms_sigabrt_cut.log"
    )
    timeouts = [
        (e["rank"], e["seq"], e["op"], e["group"], e["line"])
        for e in ev.failures
        if e["kind"] == "watchdog_timeout"
    ]
    assert timeouts == [
        (1, 2635, "all_reduce", "0 (default_pg)", 1),
        (0, 2667, "reduce_scatter", "0 (default_pg)", 6),
    ]
    (timeline,) = ev.timelines
    assert timeline.seq_spread == {2635: [1], 2667: [0]}
    assert (timeline.lagging_seq, timeline.behind, timeline.first_rank) == (2635, [1], 1)
    assert "rank 1 failed first" not in timeline.summary
    found = heldout.found(ev)
    spread = found["evidence-watchdog-seq-spread"]
    assert spread.severity == "warning"
    assert spread.message.startswith(
        "SeqNum 2635: rank(s) 1; SeqNum 2667: rank(s) 0; the ranks of one group timed out"
    )


def each_linear(cases: list[tuple[Callable[[str], object], str]]) -> None:
    """Each reader takes under a second of this process's CPU on its line built against it (of
    100,000 characters) and on 100,000 blank lines."""
    for fn, line in cases:
        assert len(line) >= 99_999
        for text in (line, "\n" * 100_000):
            start = time.process_time()
            fn(text)
            assert time.process_time() - start < 1.0, (fn, text[:40])


def test_new_patterns_are_linear_on_a_long_line_and_many_blank_lines() -> None:
    blanks = "\n" * 100_000
    cases = [
        (logs._ELASTIC_GROUP_DONE_RE.search, "[" + "a" * 100_000),
        (logs._ELASTIC_GROUP_DONE_RE.search, "[a" * 50_000),
        (
            logs._ELASTIC_EXIT_DONE_RE.search,
            "Done waiting for other agents. Elapsed: " + "1" * 99_960,
        ),
        (logs._TORCHRUN_RE.search, "torchrun" * 12_500),
        (logs._TORCHRUN_ARG_RE.search, "--nnodes=" + "=" * 100_000),
        (logs._TORCHRUN_ARG_RE.search, "--nnodes" * 12_500),
        # (detection searches the signature one alternative at a time: BranchSearch)
        (load._SIGNATURE_SEARCH["log"].found, "] worker group successfully" * 4_000),
        (load._SIGNATURE_SEARCH["log"].found, "Local worker group finished (" * 3_500),
    ]
    each_linear(cases)
    # (the new reader on the agent's line and 100,000 blank lines, and on one long line)
    for text in (
        "[default] worker group successfully finished.\n" + blanks,
        "+ torchrun " + "--nnodes=4 " * 9_000 + "\n[default] worker group successfully finished.",
    ):
        lines = numbered_lines(text)
        start = time.process_time()
        logs._elastic_end_notes(lines, logs.LogReport())
        assert time.process_time() - start < 1.0
