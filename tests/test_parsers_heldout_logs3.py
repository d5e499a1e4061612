"""Failure logs the third held-out evaluation misread: watchdog records wrapped after "timeout:"
or over three lines, and the operation an HCCL task tag names with GE's "Hcom" prefix.

Samples: ``tests/data/evidence_heldout_5/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from advisor.evidence.load import detect, load_paths
from advisor.parsers import logs
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_5"


def _parse(name: str) -> logs.LogReport:
    return logs.parse((HELDOUT / name).read_text())


def test_watchdog_record_wrapped_after_timeout_keeps_the_prefixed_rank() -> None:
    # each "[rankN]:... Watchdog caught collective operation timeout:" line ends there; its
    # WorkNCCL(...) record is the next, untagged line
    parsed = _parse("watchdog_2.log")
    got = [
        (e.line, e.rank, e.op, e.seq, e.timeout_ms, e.ran_for_ms)
        for e in parsed.of_kind("watchdog_timeout")
    ]
    assert got == [
        (1, 14, "reduce", 2070, 600000, 600034),
        (3, 12, "reduce", 2070, 600000, 600036),
        (5, 11, "reduce", 2070, 600000, 600036),
        (7, 15, "reduce", 2070, 600000, 600040),
    ]


def test_hccl_watchdog_record_wrapped_over_three_lines_is_one_event() -> None:
    parsed = _parse("watchdog_4.log")
    (ev,) = parsed.events
    assert (ev.kind, ev.line, ev.rank, ev.library) == ("watchdog_timeout", 1, 0, "HCCL")
    assert (ev.op, ev.seq, ev.numel, ev.timeout_ms, ev.ran_for_ms) == (
        "reduce_scatter",
        13,
        137963680,
        300000,
        300444,
    )
    assert parsed.unread == []


def test_hcom_task_tag_names_the_operation_as_other_events_do() -> None:
    # EI0002's task information "tag[HcomAllReduce_...]" and EI0005's "tag [HcomAllReduce_...]"
    (notify,) = _parse("hccl_ei0002_1.log").events
    assert (notify.line, notify.code, notify.op) == (3, "EI0002", "all_reduce")
    (args,) = _parse("hccl_ei0005_1.log").of_kind("hccl_error")
    assert (args.line, args.code, args.op) == (24, "EI0005", "all_reduce")


def test_elastic_summary_cut_at_root_cause_is_partial_with_its_line() -> None:
    parsed = _parse("elastic_1.log")
    assert [(e.rank, e.exit_code, e.root_cause) for e in parsed.of_kind("elastic_failure")] == [
        (1, -6, False),
        (3, -6, False),
        (5, -6, False),
        (7, -6, False),
    ]
    (cut,) = parsed.unread
    assert cut.line == 38 and "Root Cause" in cut.message
    (report,) = load_paths([HELDOUT / "elastic_1.log"]).files
    assert report.status == "partial"
    assert [m.line for m in report.messages] == [38]


def test_rdma_init_failure_names_the_device_and_its_address() -> None:
    parsed = _parse("hccl_link_1.log")
    (rdma,) = parsed.of_kind("hccl_rdma_init_failure")
    assert (rdma.line, rdma.device, rdma.ip) == (4, 0, "192.168.20.148")
    (bind,) = parsed.of_kind("hccl_bind_failure")
    assert (bind.line, bind.ip, bind.port) == (6, "192.168.20.148", 16666)
    # a plog holding only that line is still recognised as a failure log
    line4 = (HELDOUT / "hccl_link_1.log").read_text().splitlines()[3]
    assert detect(line4) == ["log"]


def test_agent_negotiation_timeout_names_the_root_address_and_time_out() -> None:
    # hicann/hccl docs, "Rank and Server Node Socket Establishment Timeout (EI0015)": the agent's
    # socket to the root's address and port timed out; no error code is printed
    (report,) = load_paths([HELDOUT / "hccl_ei0015_1.log"]).files
    assert report.status == "read"
    (ev,) = _parse("hccl_ei0015_1.log").events
    assert (ev.kind, ev.line, ev.timeout_ms, ev.remote_ip, ev.port) == (
        "hccl_negotiation_failure",
        1,
        120000,
        "127.10.0.1",
        60000,
    )


def test_agent_told_of_ranks_that_never_connected_keeps_them_and_the_size() -> None:
    # same page, "Some Ranks Fail to Connect to the Server Node (EI0015)", agent-node block
    (report,) = load_paths([HELDOUT / "hccl_ei0015_2.log"]).files
    assert report.status == "read"
    (ev,) = _parse("hccl_ei0015_2.log").events
    assert (ev.kind, ev.line, ev.rank_size) == ("hccl_negotiation_failure", 1, 8)
    assert "Failed to connect agent[1,3,5,7,]" in ev.message
