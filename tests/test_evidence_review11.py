"""Mends of the eleventh review (of the tenth review's older problems and round D's readings):
pretty-printed reschedule records read in one pass (linear in the file), torch elastic's role
prefixes kept to the roles torch names, a host's name as a server id still checked for
duplicates, a document's dots no generator's dashes, a doubled NIC legend line no second legend.
The inputs are the review's own."""

from __future__ import annotations

import json

import pytest

from advisor.evidence.load import load_text
from advisor.parsers import reschedule, strip_launcher_prefix

BRACE_IN_STRING = '2025-09-08 11:36:12 INFO reschedule record of the job:\n{\n  "JobID": "default/job-{a}",\n  "TotalRescheduleTimes": 1,\n  "RescheduleRecords": [\n    {\n      "RescheduleTimeStamp": 1759683370,\n      "ReasonOfTask": [\n        {"RescheduleReason": "pod-failed", "PodName": "worker-0", "NodeName": "node2", "NodeRankIndex": "1"}\n      ]\n    }\n  ]\n}\n2025-09-08 11:40:00 ERROR checkpoint save failed: disk full\n'
NIC_LEGEND_DOUBLED = "NIC Legend:\n\n  NIC0: mlx5_0\n  NIC1: mlx5_1\n  NIC1: mlx5_1\n  NIC2: mlx5_2\n  NIC3: mlx5_3\n"
DOTS_DOC = '{\n  "version": "1.0",\n  "server_count": "1",\n  "server_list": [\n    {"server_id": "10.0.0.1", "device": [\n      {"device_id": "0", "device_ip": "...", "rank_id": "0"},\n      {"device_id": "1", "device_ip": "...", "rank_id": "1"}]}\n  ],\n  "status": "completed"\n}\n'
HOSTNAME_DUP = '{\n  "version": "1.0",\n  "server_count": "2",\n  "server_list": [\n    {"server_id": "node-1", "device": [\n      {"device_id": "0", "device_ip": "192.168.100.101", "rank_id": "0"},\n      {"device_id": "1", "device_ip": "192.168.101.101", "rank_id": "1"}]},\n    {"server_id": "node-1", "device": [\n      {"device_id": "0", "device_ip": "192.168.100.102", "rank_id": "2"},\n      {"device_id": "1", "device_ip": "192.168.101.102", "rank_id": "3"}]}\n  ],\n  "status": "completed"\n}\n'


def _job(i: int) -> str:
    record = {"RescheduleTimeStamp": 1759683370 + i, "ReasonOfTask": [{"NodeName": f"n{i}"}]}
    return json.dumps({"JobID": f"j{i}", "RescheduleRecords": [record]}, indent=2)


def test_a_brace_inside_a_string_leaves_a_pretty_record_read() -> None:
    (record,) = [
        f for f in load_text(BRACE_IN_STRING, "job.log").failures if f["kind"] == "reschedule"
    ]
    assert (record["host"], record["line"]) == ("node2", 2)


def test_a_map_of_jobs_cut_at_its_end_reads_each_job_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # (the review's input took minutes: the cut map was read to its end again for each job)
    read_from: list[int] = []

    class Counting(json.JSONDecoder):
        def raw_decode(self, s: str, idx: int = 0) -> tuple[object, int]:
            read_from.append(idx)
            return super().raw_decode(s, idx)

    monkeypatch.setattr(reschedule.json, "JSONDecoder", Counting)
    reschedule._objects.cache_clear()
    text = "{\n" + ",\n".join(f'"default/j{i}": {_job(i)}' for i in range(300)) + ",\n"
    records, _ = reschedule.parse(text)
    assert len(records) == 300 and records[-1].node == "n299"
    # each job's object once, the cut map around them once
    assert len(read_from) == 301 and read_from.count(0) == 1


def test_a_programs_own_bracket_prefix_is_no_rank_tag() -> None:
    assert strip_launcher_prefix("[step400]: Traceback (most recent call last):") == (
        "[step400]: Traceback (most recent call last):",
        None,
    )
    assert strip_launcher_prefix("[GPU0]: loss=0.3")[1] is None
    assert strip_launcher_prefix("[trainer3]:twshared:1:1 [3] NCCL INFO x") == (
        "twshared:1:1 [3] NCCL INFO x",
        3,
    )


def test_a_hosts_name_as_server_id_is_still_checked_for_duplicates() -> None:
    (table,) = load_text(HOSTNAME_DUP, "rank_table.json").rank_tables
    assert any(e.startswith("server node-1 appears 2 times") for e in table["errors"])


def test_a_documents_dots_are_no_generators_dashes() -> None:
    ev = load_text(DOTS_DOC, "rank_table.json")
    (table,) = ev.rank_tables
    assert table["errors"] == []
    said = " | ".join(m.message for m in ev.files[0].messages)
    assert "device_ip of 2 device(s) is a placeholder (..., ...)" in said


def test_a_doubled_legend_line_is_one_legend() -> None:
    (note,) = [m.message for m in load_text(NIC_LEGEND_DOUBLED, "legend.txt").files[0].messages]
    assert "NIC legend without its matrix: 4 NIC(s)" in note and "one of" not in note
