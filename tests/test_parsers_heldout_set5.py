"""Outputs the fifth held-out evaluation misread: torch_npu's failed HCCL call with no CANN code
after it, EI0004's rank-table entry, an rccl-tests run cut after its header, and an elastic
summary quoted from its root-cause heading.

Samples: ``tests/data/evidence_heldout_8/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from advisor.evidence.load import load_paths
from advisor.parsers import logs, strip_launcher_prefix
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_8"


def _parse(name: str) -> logs.LogReport:
    return logs.parse((HELDOUT / name).read_text())


def test_vllm_worker_prefix_with_rank() -> None:
    assert strip_launcher_prefix("(VllmWorker rank=1 pid=7226) ERROR x") == ("ERROR x", 1)


def test_failed_hccl_call_is_an_event_with_its_result_and_torch_npu_code() -> None:
    (ev,) = _parse("hccl_init_1.log").events
    assert (ev.kind, ev.line, ev.rank, ev.device, ev.call, ev.code, ev.code_name) == (
        "hccl_call_failure", 2, 1, 1, "hcclCommInitRootInfoConfig", "1", "HCCL_E_PARA",
    )  # fmt: skip
    assert ev.torch_npu_code == "ERR02200"
    assert ev.message == (
        "hcclCommInitRootInfoConfig returned 1 = HCCL_E_PARA (parameter error), ERR02200"
    )


def test_failed_hccl_call_in_compact_form_reads_the_code_on_its_own_line() -> None:
    # torch_npu's compact error output puts its ERR code on the same line
    line = (
        "RuntimeError: createHCCLComm:ProcessGroupHCCL.cpp:1508 HCCL function error: "
        "HcclGetRootInfo(&hcclID), error code is 7 ERR02200 DIST call hccl api failed."
    )
    (ev,) = logs.parse(line).events
    assert (ev.call, ev.code, ev.code_name, ev.torch_npu_code, ev.rank, ev.device) == (
        "HcclGetRootInfo", "7", "HCCL_E_UNAVAIL", "ERR02200", None, None,
    )  # fmt: skip


def test_failed_hccl_call_makes_an_import_not_ready() -> None:
    ev = load_paths([HELDOUT / "hccl_init_1.log"])
    (report,) = ev.files
    assert (report.status, report.formats) == ("read", ["log"])
    finding = builtin_findings({"evidence.failures": ev.failures}, "gloo")[
        "evidence-hccl-call-failed"
    ]
    assert finding.severity == "critical"
    assert [str(i) for i in finding.items] == [
        "Rank 1 (device 1): hcclCommInitRootInfoConfig returned 1 = HCCL_E_PARA (parameter "
        f"error), ERR02200 ({HELDOUT / 'hccl_init_1.log'}, line 2)"
    ]


def test_ei0004_names_the_rank_table_entry() -> None:
    events = _parse("hccl_ei0004_1.log").of_kind("hccl_error")
    assert [(e.line, e.code, e.rank, e.device) for e in events] == [
        (3, "EI0004", 0, 0),
        (19, "EI0004", 0, 0),
    ]


def test_rccl_header_without_rows_is_partial_with_the_sizes_asked() -> None:
    ev = load_paths([HELDOUT / "nccl_tests_4.log"])
    (report,) = ev.files
    assert report.status == "partial"
    (msg,) = report.messages
    assert msg.line == 1 and "0 of 25 sizes" in msg.message and "134217728" in msg.message
    # what the run asked is kept; no row. The list of ranks ended in the file (the table's
    # header lines follow rank 7), so its one host of 8 ranks is a shape the file states.
    (bench,) = ev.benchmarks
    assert (bench["max_bytes"], bench["complete"], bench["results"]) == (134217728, False, [])
    assert bench["ranks_listed"]
    assert [(s["nodes"], s["per_node"], s["hosts"]) for s in ev.shapes] == [
        (1, 8, ["c42f4555f685"])
    ]


def test_elastic_summary_quoted_from_its_root_cause_heading() -> None:
    (ev,) = _parse("elastic_1.log").of_kind("elastic_failure")
    assert (ev.line, ev.rank, ev.local_rank, ev.host, ev.exit_code, ev.pid, ev.root_cause) == (
        4, 6, 6, "zkrh-58", -6, 1246013, True,
    )  # fmt: skip
