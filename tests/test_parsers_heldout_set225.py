"""Outputs the two-hundred-twenty-fifth to two-hundred-twenty-eighth held-out evaluations misread
that this stop reads: NCCL's RAS report (NCCL 2.24+), its Errors and Warnings entries with the
ranks, GPUs, processes and nodes they name.

Samples: ``tests/data/evidence_heldout_38/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import load_file, load_text
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import bench_table, event, finding_items

HELDOUT = DATA / "evidence_heldout_38"


_load = partial(heldout.load, HELDOUT)


def test_a_ras_mismatch_warning_names_the_ranks_that_are_ahead() -> None:
    ev = _load(
        "ras_report_nccl2_26_2_mismatch_allgather_640_vs_641_ranks12_13_32rank_4node_nccl1911.txt"
    )
    assert ev.files[0].status == "read"
    (entry,) = ev.failures
    assert (entry["kind"], entry["line"], entry["code"], entry["library"]) == (
        "nccl_ras", 24, "MISMATCH", "NCCL RAS warnings",
    )  # fmt: skip
    assert (entry["rank"], entry["device"], entry["pid"], entry["host"]) == (
        12, 4, 323032, "10.137.190.124",
    )  # fmt: skip
    assert entry["message"] == (
        "communicator 0-0 MISMATCH: Communicator ranks have different AllGather operation counts, "
        "30 ranks have launched up to operation 640, 2 ranks have launched up to operation 641 / "
        "rank 12 (GPU 4, node 10.137.190.124); rank 13 (GPU 5, node 10.137.190.124)"
    )
    findings = finding_items({"evidence.failures": ev.failures}, "nccl")
    assert "evidence-nccl-ras-warning" in findings and "evidence-nccl-ras-error" not in findings


def test_ras_errors_name_the_process_and_ranks_whose_data_is_missing() -> None:
    ev = _load(
        "ras_report_nccl2_27_3_incomplete_mismatch_outlier_node_missing_255_ranks_nccl1762_cut.txt"
    )
    entries = [(e["line"], e["code"], e["rank"], e["host"], e["pid"]) for e in ev.failures]
    assert entries == [
        (32, "INCOMPLETE", None, "10.4.109.13", 60004),
        (36, "INCOMPLETE", 1, "10.4.109.13", 60004),
        (40, "INCOMPLETE", None, None, None),
    ]
    assert ev.failures[0]["message"] == (
        "the job: INCOMPLETE: Missing communicator data from 1 job process / process 60004 on "
        "10.4.109.13"
    )
    findings = finding_items({"evidence.failures": ev.failures}, "nccl")
    assert len(findings["evidence-nccl-ras-error"]) == 3


def test_a_ras_report_that_says_ok_is_no_failure() -> None:
    report = (
        "Job summary\n===========\n\n"
        "Communicators... (0.01s)\n=============\n\n"
        "Group     Comms     Nodes     Ranks     Ranks     Ranks    Status  Errors\n"
        "    0         1        32         8       256       256   RUNNING      OK\n\n"
        "Errors\n======\n\nWarnings\n========\n"
    )
    ev = load_text(report, "ras.txt")
    assert ev.files[0].formats == ["log"] and ev.failures == []


def test_the_flight_recorder_analyzers_culprits_and_missing_ranks_are_read() -> None:
    (mismatch,) = _load(
        "fr_trace_analyzer_collective39_entry38_all_reduce_128_ranks_size_mismatch_culprit_"
        "ranks22_110_pytorch140563_cut.txt"
    ).failures
    assert (mismatch["kind"], mismatch["op"], mismatch["group"], mismatch["rank_size"]) == (
        "fr_trace_mismatch", "all_reduce", "0:default_pg", 128,
    )  # fmt: skip
    assert mismatch["missing_ranks"] == [22, 110]
    assert mismatch["exception_type"] == "SIZE_OR_SYNTAX_MISMATCH"
    (missing,) = _load(
        "fr_trace_cli_not_all_ranks_joining_seq4_all_reduce_missing_rank1_gloo_2ranks_pytorch_"
        "tutorial_doc_example.txt"
    ).failures
    assert (missing["seq"], missing["missing_ranks"], missing["group"]) == (
        4, [1], "main_comm:gloo",
    )  # fmt: skip
    items = finding_items({"evidence.failures": [missing]}, "nccl")["evidence-fr-trace-mismatch"]
    assert items[0].startswith("group main_comm:gloo: Not all ranks joining collective")


def test_a_pages_copy_button_pasted_with_a_rank_table_is_taken_off(tmp_path: Path) -> None:
    ev = _load(
        "rank_table_v10_1srv_2dev_device_id_2_3_rank_id_2_3_copy_prefix_paste_artifact_mindocr_"
        "doc.json"
    )
    report = ev.files[0]
    assert (report.status, report.formats) == ("read", ["rank_table"])
    assert report.messages[0].message == "a page's copy-button label 'Copy' taken off line 1"
    (table,) = ev.rank_tables
    assert [(r["rank"], r["device_id"]) for r in table["ranks"]] == [(2, "2"), (3, "3")]
    # a line that only starts with the word is the output's own
    (tmp_path / "notes.txt").write_text("Copyright 2024 the authors\nCopy of the log below\n")
    notes = [m.message for m in load_file(tmp_path / "notes.txt").files[0].messages]
    assert not any("copy-button" in n for n in notes)


def test_second_review_leftovers() -> None:
    # FastSocket's setsockopt fallbacks go on without the option (net_fastsocket.cc): fallbacks
    warned = load_text(
        "h:1:2 [0] net_fastsocket.cc:417 NCCL WARN Cannot enable socket busy poll\n"
        "h:1:2 [0] net_fastsocket.cc:444 NCCL WARN Cannot set socket to SO_ZEROCOPY\n",
        "nccl.log",
    ).failures
    assert {w["exception_type"] for w in warned} == {"start-up fallback"}
    # a watch row with a figure npu-smi could not read is read, that cell unknown
    watch = load_text(
        "NpuID(Idx)  ChipId(Idx) Pwr(W)      Temp(C)     AI Core(%)\n"
        "2           0           90.1        34          NA\n"
        "2           0           91.1        35          0\n",
        "watch.txt",
    )
    assert "2 sample(s), Pwr(W) 90.1-91.1, Temp(C) 34-35, AI Core(%) 0" in (
        watch.files[0].messages[0].message
    )
    # a run whose copy left out its check columns has not "passed its checks": its NCCL WARN
    # lines stay errors
    bench = bench_table(source="run.log", complete=True, wrong_total=None, checks_left_out=True)
    warn = {**event(kind="nccl_warning", host="n0", pid=1, message="boom"), "source": "run.log"}
    findings = finding_items({"evidence.benchmarks": [bench], "evidence.failures": [warn]}, "nccl")
    assert "evidence-nccl-warning" in findings
    assert "evidence-nccl-warning-run-finished" not in findings
