"""Outputs the fourth held-out evaluation misread: an hccn_tool route table quoted with fewer
columns, an hccl_test table without its command line, and HCCL error blocks behind Ray or vLLM
worker prefixes (the unconnected ranks of EI0015, torch_npu's working operator, the runtime's
fftsplus task time-out).

Samples: ``tests/data/evidence_heldout_7/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from functools import partial

from advisor.evidence.load import load_paths
from advisor.parsers import hccl_test, hccn_tool, logs, strip_launcher_prefix
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import finding_items

HELDOUT = DATA / "evidence_heldout_7"


_text = partial(heldout.text, HELDOUT)


def test_route_table_keyed_by_its_own_header() -> None:
    bundle = hccn_tool.parse_bundle(_text("hccn_tool_3.txt"))
    (port,) = bundle.ports
    assert port.device == 0
    assert port.routes == [
        {"destination": "default", "gateway": "10.0.0.1", "genmask": "0.0.0.0",
         "flags": "UG", "iface": "eth0"},
        {"destination": "10.0.0.0", "gateway": "*", "genmask": "255.255.255.0",
         "flags": "U", "iface": "eth0"},
    ]  # fmt: skip
    assert bundle.warnings == []


def test_route_row_with_other_column_count_is_named() -> None:
    text = _text("hccn_tool_3.txt") + "10.0.1.0 * 255.255.255.0 U\n"
    bundle = hccn_tool.parse_bundle(text)
    assert [(w.line, "route columns" in w.message) for w in bundle.warnings] == [(5, True)]


def test_hccl_test_without_command_is_read_whole_with_a_note() -> None:
    log = hccl_test.parse(_text("hccl_test_1.log"))
    (row,) = log.rows
    assert (row.size_bytes, row.time_us, row.algbw_gbytes_s, row.busbw_gbytes_s) == (
        524288,
        1000.0,
        0.52429,
        None,
    )
    (note,) = log.warnings
    assert not note.skipped and "command line" in note.message
    facts = load_paths([HELDOUT / "hccl_test_1.log"])
    (report,) = facts.files
    assert report.status == "read"
    assert [m.line for m in report.messages] == [1]


def test_ray_worker_prefix_is_stripped_without_a_rank() -> None:
    line = "(DiffusionWorker_SP3 pid=237) [PID: 237] Communication_Error_Ranktable_Detect(EI0015)"
    assert strip_launcher_prefix(line) == (
        "[PID: 237] Communication_Error_Ranktable_Detect(EI0015)",
        None,
    )
    assert strip_launcher_prefix("(pid=45601) task") == ("task", None)
    assert strip_launcher_prefix("(Actor pid=1, ip=10.0.0.2) x") == ("x", None)


def test_ei0015_names_the_ranks_that_never_connected() -> None:
    (ev,) = logs.parse(_text("hccl_ei0015_1.log")).of_kind("hccl_error")
    assert (ev.line, ev.code, ev.rank, ev.device, ev.missing_ranks) == (3, "EI0015", 3, 3, [1, 7])
    assert "List of unconnected ranks" in ev.message


def test_ei0006_takes_the_operation_from_torch_npus_working_operator_line() -> None:
    (ev,) = logs.parse(_text("hccl_ei0006_1.log")).of_kind("hccl_error")
    assert (ev.line, ev.code, ev.op, ev.device, ev.rank, ev.remote_rank) == (
        5, "EI0006", "all_reduce", 11, 11, 14,
    )  # fmt: skip


def test_fftsplus_task_timeout_is_one_event_with_device_and_time_out() -> None:
    events = logs.parse(_text("hccl_ei9999_1.log")).of_kind("hccl_error")
    # "EI9999: Inner Error!" heads the next line: one event, on the line with the facts
    assert [(e.line, e.code, e.device, e.timeout_ms) for e in events] == [
        (15, "EI9999", 3, 30 * 60 * 1000)
    ]


def test_fftsplus_time_out_in_seconds() -> None:
    # the runtime prints the configured value in seconds when it is not the default
    line = (
        "EI9999: The error from device(chipId:0, dieId:0), serial number is 1, hccl fftsplus task "
        "timeout occurred during task execution, stream_id:4, sq_id:4, task_id:5, stuck notify "
        "num:7, timeout:1836.[FUNC:ProcessStarsHcclFftsPlusTimeoutErrorInfo]"
    )
    (ev,) = logs.parse(line).of_kind("hccl_error")
    assert (ev.device, ev.timeout_ms) == (0, 1836 * 1000)


def test_ei0015_finding_names_the_missing_ranks() -> None:
    ev = load_paths([HELDOUT / "hccl_ei0015_1.log"])
    items = finding_items({"evidence.failures": ev.failures}, "gloo")
    (item,) = items["evidence-hccl-negotiation-timeout"]
    assert item.startswith("Rank 3: never connected: rank(s) 1, 7;")
