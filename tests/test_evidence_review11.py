"""Mends of the eleventh and twelfth reviews (of the tenth review's older problems and rounds D-E):
pretty-printed reschedule records read in one pass (linear in the file), torch elastic's role
prefixes kept to the roles torch names, a host's name as a server id still checked for
duplicates, a document's dots no generator's dashes, a doubled NIC legend line no second legend.
The inputs are the review's own."""

from __future__ import annotations

import json

import pytest

from advisor.evidence.load import load_text
from advisor.parsers import reschedule, strip_launcher_prefix
from tests.conftest import DATA

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


# (the twelfth review's inputs: a healthy run's teardown, lines cut from a public log of a
# successful two-node run; a chain NCCL recovered from before its communicator was set up)
SHUTDOWN_CHAIN = "{'train_runtime': 2234.5, 'train_samples_per_second': 21.283, 'train_steps_per_second': 1.331, 'train_loss': 0.562542522418868, 'epoch': 2.0}\nTraining Completed Successfully!\n[Rank 0] Training job finished successfully!\n[Rank 1] Training job finished successfully!\ncompute-gpu-st-distributed-ml-2:7070:11027 [0] NCCL INFO misc/socket.cc:47 -> 3\ncompute-gpu-st-distributed-ml-2:7070:11027 [0] NCCL INFO misc/socket.cc:58 -> 3\ncompute-gpu-st-distributed-ml-2:7070:11027 [0] NCCL INFO misc/socket.cc:781 -> 3\ncompute-gpu-st-distributed-ml-2:7070:7147 [0] NCCL INFO misc/socket.cc:832 -> 3\ncompute-gpu-st-distributed-ml-1:7614:9432 [0] NCCL INFO misc/socket.cc:47 -> 3\ncompute-gpu-st-distributed-ml-1:7614:9432 [0] NCCL INFO misc/socket.cc:58 -> 3\ncompute-gpu-st-distributed-ml-1:7614:9432 [0] NCCL INFO misc/socket.cc:781 -> 3\ncompute-gpu-st-distributed-ml-1:7614:7692 [0] NCCL INFO misc/socket.cc:832 -> 3\ncompute-gpu-st-distributed-ml-2:7070:11027 [0] NCCL INFO comm 0x60630f7f62f0 rank 1 nranks 2 cudaDev 0 busId 1e0 - Abort COMPLETE\ncompute-gpu-st-distributed-ml-1:7614:9432 [0] NCCL INFO comm 0x573f9cb382e0 rank 0 nranks 2 cudaDev 0 busId 1e0 - Abort COMPLETE\nTraining completed at Sat Nov 29 22:08:07 UTC 2025\n"
CHAIN_THEN_INIT = "gpu1:4000:4000 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.5<0>\ngpu1:4000:4000 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB eth0:10.0.0.5<0>\ngpu1:4000:4000 [0] NCCL INFO Using network IB\ngpu1:4000:4010 [0] NCCL INFO graph/xml.cc:332 -> 2\ngpu1:4000:4010 [0] NCCL INFO graph/topo.cc:700 -> 2\ngpu1:4000:4000 [0] NCCL INFO comm 0x55d5 rank 0 nranks 8 cudaDev 0 nvmlDev 0 busId 1b000 commId 0xabc - Init COMPLETE\ngpu1:4000:4000 [0] NCCL INFO Channel 00/02 :    0   1   2   3   4   5   6   7\n{'loss': 2.31, 'learning_rate': 1e-05, 'epoch': 0.01}\n{'loss': 2.12, 'learning_rate': 1e-05, 'epoch': 0.02}\n"


def test_a_healthy_teardowns_chain_is_no_failure() -> None:
    assert load_text(SHUTDOWN_CHAIN, "train.log").failures == []
    assert load_text(CHAIN_THEN_INIT, "train.log").failures == []


def test_a_quote_left_open_on_a_long_line_is_read_in_one_pass() -> None:
    # (an unclosed quote made every later quote of the line read to its end again)
    cut = '2025 INFO records: "' + '\\"a\\": \\"b\\", ' * 4000 + "\n"
    record = _job(1)
    text = cut + record + "\n2025 ERROR done failed\n"
    tokens = list(reschedule._TOKEN_RE.finditer(cut))
    assert tokens[0].end() == len(cut) - 1  # the open quote ends with its line: one token
    records, _ = reschedule.parse(text)
    assert [r.node for r in records] == ["n1"]


def test_a_templates_upper_case_and_dotted_server_ids_are_no_duplicates() -> None:
    for placeholder in ("SERVER_IP", "...."):
        servers = [
            {
                "server_id": placeholder,
                "device": [{"device_id": "0", "device_ip": f"10.0.0.{i}", "rank_id": str(i)}],
            }
            for i in range(2)
        ]
        doc = {"version": "1.0", "server_count": "2", "status": "completed", "server_list": servers}
        (parsed,) = load_text(json.dumps(doc, indent=2), "rank_table.json").rank_tables
        assert parsed["errors"] == [], placeholder


def test_an_mpirun_line_after_the_tables_keeps_the_processes_that_ran_alone() -> None:
    # (the twelfth review's: a later launch that printed nothing is no launch of those seen)
    path = (
        DATA
        / "evidence_heldout_44"
        / "nccl_tests_all_reduce_perf_mpirun_2host_v100_two_launches_nonmpi_build_cut.log"
    )
    text = (
        path.read_text() + "root@gdr114:~# mpirun -np 4 -H s114:2,s116:2 ./build/all_reduce_perf\n"
    )
    said = " | ".join(m.message for m in load_text(text, "t.log").files[0].messages)
    assert "2 processes each printed their own header and 'Rank 0' (on gdr114, gdr116)" in said
