"""Outputs the thirteenth and fourteenth held-out evaluations misread: watchdog records wrapped at
a terminal's width (one overwritten by tmux's scroll position), the heartbeat monitor's other
verdict lines, a C++ caller's glog CHECK on an HcclResult, torch_npu's watchdog death with its
reason on the next line, a rank table pasted with "..." for left-out devices, and an nccl-tests
log behind SkyPilot's node prefix.

Samples: ``tests/data/evidence_heldout_17/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from advisor.evidence.load import load_paths
from advisor.parsers import logs, rank_table
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_17"


def _parse(name: str) -> logs.LogReport:
    return logs.parse((HELDOUT / name).read_text())


def test_wrapped_records_keep_what_stands_and_guess_no_op() -> None:
    parsed = _parse("watchdog_wrapped_tmux.log")
    first, second = parsed.of_kind("watchdog_timeout")
    # rank 2's OpType was overwritten by "[451/1919]": seq, time-out and run time still stand
    assert (first.line, first.rank, first.op, first.seq) == (1, 2, None, 137429)
    assert (first.timeout_ms, first.ran_for_ms) == (600000, 600004)
    # its progress line was wrapped inside "enqueue|d"
    assert (first.last_enqueued, first.last_completed) == (137429, 137428)
    assert (second.line, second.rank, second.op, second.ran_for_ms) == (7, 0, "all_gather", 600021)
    assert parsed.unread == []


def test_terminating_for_a_watchdog_hang_is_a_hang_of_its_rank_and_group() -> None:
    (ev,) = _parse("watchdog_hang_terminating.log").events
    assert (ev.kind, ev.line, ev.rank, ev.group, ev.library) == (
        "watchdog_hang",
        1,
        2,
        "17 (INTRA_DISTRIBUTED_OPTIMIZER_INSTANCE_GROUP)",  # torch's "PG GUID 17(desc)"
        "NCCL",
    )
    assert "INTRA_DISTRIBUTED_OPTIMIZER_INSTANCE_GROUP" in ev.message


def test_heartbeat_monitor_time_out_is_one_hang_per_rank() -> None:
    # (each rank's "preparing to dump debug info" is a notice of its own)
    rank0, rank1 = [
        e for e in _parse("heartbeat_monitor_timed_out.log").events if e.kind == "watchdog_hang"
    ]
    # rank 0's "stuck for 600 seconds" two lines on adds its time-out to the same event
    assert (rank0.kind, rank0.line, rank0.rank, rank0.timeout_ms) == ("watchdog_hang", 1, 0, 600000)
    # rank 1's log is cut before its own "stuck for" line: the monitor's first verdict stands
    assert (rank1.kind, rank1.line, rank1.rank, rank1.timeout_ms) == ("watchdog_hang", 4, 1, None)


def test_glog_check_on_an_hccl_result_is_a_failed_call() -> None:
    ev = load_paths([HELDOUT / "hccl_glog_check.log"])
    (report,) = ev.files
    assert (report.status, report.formats) == ("read", ["log"])
    (call,) = ev.failures
    assert (call["kind"], call["line"], call["code"], call["code_name"], call["call"]) == (
        "hccl_call_failure", 2, "1", "HCCL_E_PARA", None,
    )  # fmt: skip
    assert call["message"] == "HCCL get root info failed: 1 = HCCL_E_PARA (parameter error)"
    finding = builtin_findings({"evidence.failures": ev.failures}, "hccl")[
        "evidence-hccl-call-failed"
    ]
    assert "(the call is not named)" in finding.message


def test_watchdog_death_with_its_reason_on_the_next_line() -> None:
    parsed = _parse("hccl_watchdog_died_bare.log")
    (died,) = parsed.of_kind("watchdog_exception")
    assert (died.line, died.rank, died.library) == (9, 9, "HCCL")
    assert "ERR02005 DIST internal error" in died.message
    (npu,) = parsed.of_kind("npu_runtime_error")
    # "[758] [date] torch.distributed:" is torch_npu's pid, not an MPI rank tag; the watchdog's
    # rank is not lent to it, as pid 758's events name two devices (9 and 4)
    assert (npu.call, npu.code, npu.pid, npu.rank, npu.device, npu.torch_npu_code) == (
        "AclQueryEventRecordedStatus", "507011", 758, None, 9, "ERR00100",
    )  # fmt: skip


def test_elided_rank_table_is_read_without_the_checks_that_need_all_of_it() -> None:
    text = (HELDOUT / "rank_table_elided.json").read_text()
    table = rank_table.parse(text)
    assert (table.version, table.server_count, table.elided_lines) == ("1.2", 2, [18, 39])
    assert [(r.rank, r.server_id, r.device_ip) for r in table.ranks] == [
        (16, "10.87.191.98", "192.24.2.199"),
        (31, "10.87.191.98", "192.24.3.184"),
        (0, "10.87.191.102", "192.28.2.199"),
        (15, "10.87.191.102", "192.28.3.184"),
    ]
    assert table.super_pods == {"2": ["10.87.191.98", "10.87.191.102"]}
    # ranks 1-14 and 17-30 are left out, not missing: no rank-numbering error
    assert table.errors == []
    # a real error still stands beside the elision
    doubled = text.replace('"rank_id": "31"', '"rank_id": "16"')
    assert rank_table.parse(doubled).errors == [
        "rank_id 16 is used 2 times (10.87.191.98/device 0; 10.87.191.98/device 15)"
    ]


def test_elided_rank_table_is_partial_with_each_elision_named() -> None:
    ev = load_paths([HELDOUT / "rank_table_elided.json"])
    (report,) = ev.files
    assert report.status == "partial"
    assert [m.line for m in report.messages] == [18, 39]
    assert "'...' stands for entries left out" in report.messages[0].message


def test_nccl_tests_behind_skypilot_and_mpi_prefixes() -> None:
    ev = load_paths([HELDOUT / "nccl_tests_skypilot.log"])
    (report,) = ev.files
    assert report.status == "read"
    (bench,) = ev.benchmarks
    assert (bench["ranks"], bench["hosts"], bench["max_bytes"]) == (
        16, ["nc-d87e1263-head", "nc-d87e1263-worker1"], 8589934592,
    )  # fmt: skip
    last = [r for r in bench["results"] if r["bytes"] == 8589934592 and not r["in_place"]]
    assert [r["busbw_gbps"] for r in last] == [2605.76]
