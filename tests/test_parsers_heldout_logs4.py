"""Failure logs two later held-out evaluations misread: an HCCL link that failed with no error
code, a rank that could not read the communicator id from rank 0's store, a watchdog record
without SeqNum, and the worker pid of a failed HCCL call.

Samples: ``tests/data/evidence_heldout_11/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from advisor.evidence.load import load_paths
from advisor.parsers import logs
from tests.conftest import DATA
from tests.rules_facts import finding_items

HELDOUT = DATA / "evidence_heldout_11"


def _parse(name: str) -> logs.LogReport:
    return logs.parse((HELDOUT / name).read_text())


def _findings(name: str) -> dict[str, list[str]]:
    ev = load_paths([HELDOUT / name])
    return finding_items({"evidence.failures": ev.failures}, "hccl")


def test_transport_init_error_without_a_code_names_both_ends_and_the_op() -> None:
    (ev,) = _parse("hccl_transport_plog.log").events
    assert (ev.kind, ev.line, ev.rank, ev.remote_rank, ev.ip, ev.remote_ip, ev.op) == (
        "hccl_transport_failure", 4, 7, 15, "80.5.5.39", "80.5.5.67", "all_gather",
    )  # fmt: skip
    (item,) = _findings("hccl_transport_plog.log")["evidence-hccl-transport-failed"]
    assert item.startswith("Rank 7 (80.5.5.39) to rank 15 (80.5.5.67), all_gather (")


def test_transport_lines_inside_an_error_code_block_stay_with_that_code() -> None:
    # EI0006 followed by its "Transport init error" lines: the code's event holds the link
    text = (
        "EI0006: Getting socket times out. Reason: Remote Rank did not send the data in time.\n"
        "        TraceBack (most recent call last):\n"
        "        Transport init error. Reason: [Create][DestLink]Create Dest error! createLink "
        "para:rank[11]-localUserrank[11]-localIpAddr[100.100.164.12], dst_rank[14]-remoteUserrank"
        "[14]-remote_ip_addr[100.100.164.13]\n"
    )
    parsed = logs.parse(text)
    assert [(e.kind, e.rank, e.remote_rank, e.remote_ip) for e in parsed.events] == [
        ("hccl_error", 11, 14, "100.100.164.13")
    ]


def test_unique_id_read_from_the_store_failed() -> None:
    (ev,) = _parse("hccl_unique_id_store.log").events
    assert (ev.kind, ev.line, ev.rank, ev.remote_rank, ev.library) == (
        "unique_id_failure", 6, 1, 0, "HCCL",
    )  # fmt: skip
    assert "failed to recv" in ev.message
    (item,) = _findings("hccl_unique_id_store.log")["evidence-unique-id-exchange-failed"]
    assert item.startswith("Rank 1 from rank 0: store->get got error: failed to recv")


def test_unique_id_wait_time_out_is_read() -> None:
    line = (
        "[5] is setting up NCCL communicator and retrieving ncclUniqueId from [0] via c10d "
        "key-value store by key '0', but store->get('0') got error: wait timeout after 300000ms"
    )
    (ev,) = logs.parse(line).events
    assert (ev.rank, ev.remote_rank, ev.library, ev.timeout_ms) == (5, 0, "NCCL", 300000)


def test_watchdog_record_without_seqnum() -> None:
    events = _parse("watchdog_no_seqnum.log").of_kind("watchdog_timeout")
    assert [(e.line, e.rank, e.op, e.seq, e.timeout_ms, e.ran_for_ms) for e in events] == [
        (3, 2, "all_reduce", None, 1800000, 1800909),
        (6, 1, "all_reduce", None, 1800000, 1800910),
    ]
    items = _findings("watchdog_no_seqnum.log")["evidence-watchdog-timeout"]
    assert items[0].startswith("Rank 2: all_reduce (no SeqNum printed) ran 1800909 ms")


def test_failed_call_carries_the_worker_pid() -> None:
    (ev,) = _parse("hccl_call_pid.log").of_kind("hccl_call_failure")
    assert (ev.line, ev.pid, ev.device, ev.code, ev.code_name, ev.torch_npu_code) == (
        4, 8457, 0, "1", "HCCL_E_PARA", "ERR02200",
    )  # fmt: skip
