"""Failure logs the second held-out evaluation misread: HCCL listen failures and link waits with
no error code, the operation an HCCL error names, watchdog records wrapped at a fixed width, the
heartbeat monitor's verdict and the torch elastic agent's own failure line.

Samples: ``tests/data/evidence_heldout_4/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from functools import partial

from advisor.evidence.load import EvidenceFacts
from advisor.parsers import logs
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_4"


def _parse(name: str) -> logs.LogReport:
    return logs.parse((HELDOUT / name).read_text())


_load = partial(heldout.load, HELDOUT)


def _messages(ev: EvidenceFacts) -> list[tuple[int, str]]:
    (report,) = ev.files
    return [(m.line, m.message) for m in report.messages]


# ------------------------------------------------------------------------ HCCL


def test_listen_failure_and_link_wait_without_a_code_are_read() -> None:
    # hicann/hccl docs (EI0019): "socket type[1], listen on ip[..] and specific port[..] fail" is
    # the device NIC's port bound by another process; the link wait that follows timed out
    parsed = _parse("hccl_link_1.log")
    (bind,) = parsed.of_kind("hccl_bind_failure")
    assert (bind.line, bind.ip, bind.port, bind.exception_type) == (
        1,
        "192.168.20.160",
        16666,
        "socket type 1",
    )
    (wait,) = parsed.of_kind("hccl_link_timeout")
    assert (wait.line, wait.rank, wait.timeout_ms, wait.remote_rank) == (4, 12, 120000, None)
    # the socket table is cut at its title: said, with its line, not guessed
    assert [(w.line, "LINK_ERROR_INFO" in w.message) for w in parsed.unread] == [(7, True)]
    ev = _load("hccl_link_1.log")
    assert ev.files[0].status == "partial"
    assert [line for line, _ in _messages(ev)] == [7]


def test_a_lone_port_bind_line_is_a_bind_failure() -> None:
    ev = _load("hccl_ei0019_1.log")
    assert ev.files[0].status == "read"
    (failure,) = ev.failures
    assert failure["kind"] == "hccl_bind_failure"
    assert (failure["ip"], failure["port"], failure["code"]) == ("192.168.2.199", 16666, None)
    assert failure["exception_type"] == "socket type 0"


def test_hccl_error_names_the_operation_of_its_task() -> None:
    # GE's "call hccl op:HcomAllReduce(HcomAllReduce) load task fail" inside EI0005's block
    err, *links = _parse("hccl_ei0005_1.log").events
    assert (err.code, err.op, err.ip, err.rank) == ("EI0005", "all_reduce", "127.10.0.1", 5)
    # its TraceBack's failed links are each listed, the first (rank 5 to 6) too: EI0005 names no
    # peer of its own (HCCL's guide hcclug_000051: the check runs on every link being set up)
    assert err.remote_rank is None
    assert [(k.kind, k.rank, k.remote_rank) for k in links] == [
        ("hccl_transport_failure", 5, 6),
        ("hccl_transport_failure", 5, 4),
    ]


def test_link_row_takes_the_operation_hccl_reports_failed_after_it() -> None:
    # "hcclComm AllReduce error" (line 24) after the socket table row (line 7) of the same plog
    parsed = _parse("hccl_link_2.log")
    (link,) = parsed.of_kind("hccl_link_timeout")
    assert (link.line, link.rank, link.remote_rank, link.op) == (7, 1, 0, "all_reduce")
    assert (link.ip, link.remote_ip, link.port, link.timeout_ms) == (
        "192.0.3.198",
        "192.0.2.199",
        16666,
        120000,
    )
    assert parsed.unread == []


# -------------------------------------------------------------------- watchdog


def test_records_wrapped_at_a_fixed_width_are_joined() -> None:
    # "OpTy" / "pe=BROADCAST" and "Numel" / "Out=112": each record left its Work( open
    parsed = _parse("watchdog_1.log")
    by_rank = {e.rank: e for e in parsed.of_kind("watchdog_timeout")}
    assert sorted(by_rank) == [1, 2, 3, 5, 6]
    assert {(e.op, e.seq, e.numel, e.timeout_ms) for e in by_rank.values()} == {
        ("broadcast", 4, 112, 1800000)
    }
    assert (by_rank[1].line, by_rank[3].line, by_rank[3].ran_for_ms) == (1, 5, 1800011)
    assert parsed.unread == []


def test_record_glued_after_a_module_list_and_wrapped_is_read() -> None:
    (timeout,) = _parse("watchdog_5.log").events
    assert (timeout.line, timeout.rank, timeout.seq, timeout.op) == (3, 5, 5653, "all_reduce")
    assert (timeout.numel, timeout.timeout_ms, timeout.ran_for_ms) == (58720256, 600000, 600028)


def test_a_record_cut_inside_its_work_fields_is_read_to_what_it_holds() -> None:
    # the same log cut after line 3: its SeqNum and OpType are read, the rest (time-out, run
    # time) is said as missing, nothing is made up
    text = (HELDOUT / "watchdog_5.log").read_text().splitlines()
    parsed = logs.parse("\n".join([*text[:3], "Fatal Python error: Aborted"]))
    (cut,) = parsed.events
    assert (cut.kind, cut.line, cut.rank, cut.seq, cut.op) == (
        "watchdog_timeout", 3, 5, 5653, "all_reduce",
    )  # fmt: skip
    assert (cut.numel, cut.timeout_ms, cut.ran_for_ms) == (58720256, None, None)
    (note,) = parsed.unread
    assert note.line == 3 and "cut inside its Work" in note.message and not note.skipped


def test_heartbeat_monitor_verdict_wrapped_over_two_lines() -> None:
    # pytorch ProcessGroupNCCL.cpp heartbeat monitor: "ProcessGroupNCCL's watchdog got stuck for
    # N seconds without making progress in monitoring enqueued collectives"; here cut after
    # "ProcessGroupNCCL'" at the line's fixed width
    (hang,) = _parse("watchdog_4.log").of_kind("watchdog_hang")
    assert (hang.line, hang.rank, hang.timeout_ms, hang.library) == (1, 6, 480000, "NCCL")


# --------------------------------------------------------------------- elastic


def test_agent_line_fills_a_cut_summary() -> None:
    # torch elastic api.py logs the first failure by time: "failed (exitcode: 1) local_rank: 0
    # (pid: 130182) of binary: .."; the summary's root-cause entry is cut after "[0]:"
    parsed = _parse("elastic_3.log")
    agent, cut = parsed.of_kind("elastic_failure")
    assert (agent.line, agent.local_rank, agent.exit_code, agent.pid, agent.root_cause) == (
        1,
        0,
        1,
        130182,
        True,
    )
    assert (cut.line, cut.exit_code, cut.pid) == (23, None, None)
    assert [w.line for w in parsed.unread] == [23]


def test_agent_line_in_later_log_formats() -> None:
    # glog-style "api.py:826] failed (exitcode: -9) .." and torch 2.2's
    # "[..] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) .."
    (killed,) = _parse("elastic_4.log").events
    assert (killed.line, killed.exit_code, killed.pid, killed.local_rank) == (1, -9, 1322, 0)
    (failed,) = _parse("elastic_5.log").events
    assert (failed.line, failed.exit_code, failed.pid, failed.local_rank) == (2, 1, 5939, 2)
    assert _load("elastic_5.log").files[0].status == "read"
