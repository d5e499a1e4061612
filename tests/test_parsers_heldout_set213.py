"""Outputs the two-hundred-eleventh and the two-hundred-thirteenth to two-hundred-sixteenth
held-out evaluations misread that this stop reads: Ascend 950's boxed ``hccn_tool -link_stat``
table, an nccl-tests excerpt whose copy left out the check columns, torch's dump-signal line of a
rank whose own watchdog timed out, two processes' HCCL execution time-outs in one file (and in
different collectives), and a benchmark whose bus bandwidth collapses at the large sizes.

Samples: ``tests/data/evidence_heldout_35/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from advisor.evidence.load import EvidenceFacts, busbw_drops, load_file, load_text
from advisor.evidence.timeline import build
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import bench_table, builtin_findings, finding_items

HELDOUT = DATA / "evidence_heldout_35"


_load = partial(heldout.load, HELDOUT)


def _kinds(ev: EvidenceFacts, kind: str) -> list[dict[str, Any]]:
    return [f for f in ev.failures if f["kind"] == kind]


def test_ascend_950s_boxed_link_stat_table_is_read_as_a_flapping_port() -> None:
    ev = _load("hccn_tool_link_stat_ascend950_npu0_udie0_port4_up2_down2_table_driver_doc.txt")
    assert ev.files[0].status == "read"
    (port,) = ev.npu_ports
    assert (port["device"], port["link_up_count"], port["link_down_count"]) == (0, 2, 2)
    assert port["link_changes"][0] == {"time": "Mon Feb 9 21:45:51 2026", "state": "UP"}
    assert [c["state"] for c in port["link_changes"]] == ["UP", "DOWN", "UP", "DOWN"]
    assert port["link_flapped"] is True


def test_a_boxed_link_stat_table_of_two_ports_is_not_read_as_one() -> None:
    rows = (
        "| NPU | UDie | Port | Link_Status | Time_Stamp              |\n"
        "|  0  |  0   |  4   |  LINK_UP    | Mon Feb 9 21:45:51 2026 |\n"
        "|  0  |  0   |  5   |  LINK_DOWN  | Mon Feb 9 21:45:47 2026 |\n"
    )
    ev = load_text(rows, "link_stat.txt")
    assert ev.npu_ports == []
    assert ev.files[0].status != "read"
    assert any("several ports" in m.message for m in ev.files[0].messages)


def test_an_nccl_tests_excerpt_without_its_check_columns_is_read_with_its_checks_unknown() -> None:
    ev = _load(
        "nccl_tests_table_excerpt_out_of_place_cols_only_ellipsis_2gib_busbw_1_19_avg_0_488_"
        "hyperpod_deep_health_check_ja_doc.log"
    )
    assert ev.files[0].status == "read"
    (bench,) = ev.benchmarks
    rows = [(r["bytes"], r["busbw_gbps"], r["wrong"]) for r in bench["results"]]
    assert rows == [(8, 0.0, None), (16, 0.0, None), (2147483648, 1.19 * 8, None)]
    assert not any(r["in_place"] for r in bench["results"])
    assert bench["complete"] and bench["footer_avg_busbw_gbps"] == 0.488398 * 8
    assert bench["wrong_total"] is None and bench["failed_checks"] == []
    assert any(
        "left out each group's #wrong/error column" in m.message for m in ev.files[0].messages
    )


def test_a_rank_dumping_on_its_own_watchdogs_signal_is_a_failure_with_its_progress() -> None:
    # torch prints "due to a collective timeout from this local rank" for a time-out or any other
    # exception its watchdog found (the monitor's exit reason: "collective timeout or exception")
    ev = _load(
        "flight_recorder_dump_signal_local_rank7_rank6_last_enqueued9387_completed9386_"
        "preparing_dump_terminal_wrapped_torchtune2651_cut.log"
    )
    assert ev.files[0].status == "read"
    failed = _kinds(ev, "watchdog_failure")
    assert [(e["rank"], e["line"], e["last_enqueued"], e["last_completed"]) for e in failed] == [
        (7, 3, 9387, 9386),
        (6, 9, 9387, 9386),
    ]
    assert all(e["seq"] is None and e["group"] == "0 (default_pg)" for e in failed)
    assert _kinds(ev, "watchdog_timeout") == []
    items = finding_items({"evidence.failures": failed}, "nccl")["evidence-watchdog-failure"]
    assert items[0].startswith(
        "Rank 7, process group 0 (default_pg): [E430 05:09:48.083703086 ProcessGroupNCCL.cpp:1743]"
    )


def test_a_local_dump_after_the_ranks_own_nccl_error_adds_no_failure() -> None:
    text = (
        "[rank0]:[E703 21:51:53.112142364 ProcessGroupNCCL.cpp:1665] [PG ID 0 PG GUID 0(default_pg) "
        "Rank 0] Process group watchdog thread terminated with exception: NCCL error: remote "
        "process exited or there was a network error, NCCL version 2.21.5\n"
        "[rank0]:[E703 21:51:54.112142364 ProcessGroupNCCL.cpp:1987] [PG ID 0 PG GUID 0(default_pg) "
        "Rank 0] Received a dump signal due to a collective timeout from this local rank and we "
        "will try our best to dump the debug info. Last enqueued NCCL work: 12, last completed "
        "NCCL work: 11.\n"
    )
    ev = load_text(text, "train.log")
    assert _kinds(ev, "watchdog_failure") == [] and _kinds(ev, "watchdog_timeout") == []
    assert [e["rank"] for e in _kinds(ev, "watchdog_exception")] == [0]


def test_the_dump_line_before_a_time_out_record_keeps_that_records_own_line() -> None:
    # "Observed flight recorder dump signal ..." is no wrapped dump line: the record under it is
    # read on its own line
    text = (
        "[rank3]:[E703 21:51:53.112142364 ProcessGroupNCCL.cpp:1400] [PG ID 0 PG GUID 0(default_pg) "
        "Rank 3] Observed flight recorder dump signal from another rank via TCPStore.\n"
        "E0703 21:51:53.112142 4567 ProcessGroupNCCL.cpp:616] [Rank 3] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=56117, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
        "Timeout(ms)=600000) ran for 600042 milliseconds before timing out.\n"
    )
    (timed_out,) = _kinds(load_text(text, "train.log"), "watchdog_timeout")
    assert (timed_out["line"], timed_out["seq"]) == (2, 56117)


def test_a_rank_dumping_on_a_peers_signal_is_that_peers_consequence() -> None:
    # torch's getNCCLWatchdogTimeoutErrorMsg with "rank 7" as the signal's origin (two spaces
    # after "from", as the release that printed it)
    text = (
        "[rank6]:[E703 21:51:54.112142364 ProcessGroupNCCL.cpp:1987] [PG ID 0 PG GUID "
        "0(default_pg) Rank 6] Received a dump signal due to a collective timeout from  rank 7 "
        "and we will try our best to dump the debug info. Last enqueued NCCL work: 56116, last "
        "completed NCCL work: 56116.This is most likely caused by incorrect usages of "
        "collectives\n"
    )
    ev = load_text(text, "train.log")
    (seen,) = ev.failures
    assert (seen["kind"], seen["rank"], seen["remote_rank"]) == ("watchdog_progress", 6, 7)
    assert (seen["last_enqueued"], seen["last_completed"]) == (56116, 56116)
    # -1: the store did not say which rank signalled
    unknown = load_text(text.replace("from  rank 7", "from  rank -1"), "train.log").failures
    assert [(e["kind"], e["remote_rank"]) for e in unknown] == [("watchdog_progress", None)]
    assert "signal from another rank" in unknown[0]["message"]


def test_two_processes_execution_time_outs_in_one_file_are_two_ranks_failures() -> None:
    ev = _load("hccl_plog_all_reduce_test_exec_timeout_rank0_rank1_allreduce_5min40s_apart_doc.log")
    errors = _kinds(ev, "hccl_error")
    assert [(e["rank"], e["line"], e["code"], e["op"], e["pid"]) for e in errors] == [
        (0, 2, "EI0002", "all_reduce", 2111665),
        (1, 7, "EI0002", "all_reduce", 2111666),
    ]
    (timeline,) = ev.timelines
    assert timeline.spread_s == 5 * 60 + 43.944 and timeline.mismatched_ops == {}


def test_ranks_timing_out_in_different_collectives_of_one_group_are_a_mismatch() -> None:
    ev = _load(
        "hccl_plog_all_reduce_test_exec_timeout_rank0_allreduce_rank1_allgather_op_mismatch_"
        "group_4ranks_doc.log"
    )
    assert [(e["rank"], e["op"]) for e in _kinds(ev, "hccl_error")] == [
        (0, "all_reduce"),
        (1, "all_gather"),
    ]
    (timeline,) = ev.timelines
    assert timeline.mismatched_ops == {"all_gather": [1], "all_reduce": [0]}
    findings = finding_items({"evidence.timelines": ev.timelines})
    assert "evidence-collective-mismatch" in findings
    quiet = _load(
        "hccl_plog_all_reduce_test_exec_timeout_rank0_rank1_allreduce_5min40s_apart_doc.log"
    )
    assert "evidence-collective-mismatch" not in finding_items(
        {"evidence.timelines": quiet.timelines}
    )


def test_watchdog_time_outs_of_one_seqnum_in_different_collectives_are_a_mismatch() -> None:
    text = "".join(
        f"[rank{r}]:[E626 06:24:44.9038 ProcessGroupNCCL.cpp:616] [PG ID 0 PG GUID 0(default_pg) "
        f"Rank {r}] Watchdog caught "
        f"collective operation timeout: WorkNCCL(SeqNum=808, OpType={op}, NumelIn=1, NumelOut=1, "
        "Timeout(ms)=600000) ran for 600020 milliseconds before timing out.\n"
        for r, op in ((0, "ALLREDUCE"), (1, "BROADCAST"), (2, "ALLREDUCE"))
    )
    timeline = build(load_text(text, "train.log").failures)
    assert timeline is not None
    assert timeline.mismatched_ops == {"all_reduce": [0, 2], "broadcast": [1]}


def test_bus_bandwidth_collapsing_at_the_large_sizes_is_a_warning() -> None:
    ev = _load("nccl_tests_alltoall_remote_exited_then_sendrecv_busbw_collapse_2node_4gpu_h100.log")
    sendrecv = next(b for b in ev.benchmarks if b["op"] == "send_recv")
    out_of_place = sendrecv["busbw_drops"][0]
    assert out_of_place == {
        "in_place": False,
        "from_bytes": 2 << 30,
        "to_bytes": 16 << 30,
        "best_bytes": 512 << 20,
        "best_busbw_gbps": 9.75 * 8,
        "lowest_busbw_gbps": 1.01 * 8,
        "to_largest": True,
    }
    items = finding_items({"evidence.benchmarks": [sendrecv]}, "nccl")
    assert "up to the largest size (a collapse)" in items["evidence-benchmark-busbw-drop"][0]


def test_a_dip_at_one_size_that_larger_sizes_recover_from_is_told_from_a_collapse() -> None:
    def row(size: int, busbw: float) -> dict[str, Any]:
        return {"bytes": size, "in_place": False, "busbw_gbps": busbw}

    mib = 1 << 20
    dip = [row(512 * 1024, 1.0), row(mib, 10.0), row(4 * mib, 80.0), row(8 * mib, 25.9),
           row(16 * mib, 250.0)]  # fmt: skip
    assert busbw_drops(dip) == [
        {"in_place": False, "from_bytes": 8 * mib, "to_bytes": 8 * mib, "best_bytes": 4 * mib,
         "best_busbw_gbps": 80.0, "lowest_busbw_gbps": 25.9, "to_largest": False},
    ]  # fmt: skip
    # latency-bound sizes under 1 MiB are noisy: no drop is judged there; nor a fall to 60 %
    assert busbw_drops([row(64 * 1024, 9.0), row(128 * 1024, 1.0), row(mib, 5.0)]) == []
    assert busbw_drops([row(mib, 100.0), row(2 * mib, 60.0)]) == []
    rising = bench_table(results=[row(mib, 10.0), row(2 * mib, 20.0)], busbw_drops=[])
    assert "evidence-benchmark-busbw-drop" not in finding_items(
        {"evidence.benchmarks": [rising]}, "nccl"
    )


def test_idle_chips_holding_most_of_their_hbm_are_a_warning() -> None:
    ev = _load("npu_smi_info_25_5_0_a3_hbm_56152_of_65536_cut_vllm_omni_3597.txt")
    assert [(c["npu"], c["chip"], c["hbm_used_pct"]) for c in ev.npu_chips] == [
        (0, 0, 85.7),
        (0, 1, 85.1),
    ]
    # a warning again (round 217-220 had made it info, the memory maybe the failed job's own):
    # held chips are not free for the job a pre-flight check is about to start (set 577)
    held = builtin_findings({"evidence.npu_chips": ev.npu_chips})["evidence-npu-hbm-held"]
    assert held.severity == "warning"
    items = held.items
    assert items[0].startswith("NPU 0 chip 0 (0000:9D:00.0): HBM 56152 of 65536 MB (85.7 %)")
    assert "no process listed in this copy" in items[0]  # the copy ends before its table


def test_a_topology_matrix_cut_inside_its_header_is_said_and_no_link_invented() -> None:
    ev = _load("sglang_check_env_a3_16npu_ascend_topology_header_cut_sglang_36423.txt")
    report = ev.files[0]
    assert (report.status, ev.topologies) == ("unreadable", [])
    (message,) = report.messages
    assert message.line == 44
    assert "ends inside the npu-smi topology matrix's header" in message.message


def test_a_terminal_wrap_at_the_space_between_two_words_is_joined(tmp_path: Path) -> None:
    # lines cut at 166 columns: "... from this local " / "rank and we will ...", "... Additio" /
    # "nally, ...", and "Include stack trace:" / " 1" (the space it wrapped at starts the next)
    ev = _load(
        "flight_recorder_dump_signal_local_rank7_rank6_last_enqueued9387_completed9386_"
        "preparing_dump_terminal_wrapped_torchtune2651_cut.log"
    )
    (note,) = ev.files[0].messages
    assert note.message.startswith("6 line(s) a terminal wrapped at 166 columns joined")
    first = _kinds(ev, "watchdog_failure")[0]["message"]
    assert "from this local rank and we will try our best" in first

    # a traceback's indented frame under a line of that width is a line of its own: no join
    def joined(text: str) -> bool:
        (tmp_path / "t.log").write_text(text)
        notes = [m.message for m in load_file(tmp_path / "t.log").files[0].messages]
        return any("terminal wrapped at 156 columns" in n for n in notes)

    assert joined("x" * 150 + " raise\nat frame one\n" + "y" * 151 + " stop\nfile here\n")
    assert not joined("x" * 150 + " raise\n    at frame one\n" + "y" * 151 + " stop\n  File x\n")


def test_the_processes_a_chips_table_lists_are_named_beside_its_memory() -> None:
    table = (
        "+------------------------------------------------------------------------------------------------+\n"
        "| npu-smi 24.1.rc2                 Version: 24.1.rc2                                             |\n"
        "+---------------------------+---------------+----------------------------------------------------+\n"
        "| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|\n"
        "| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |\n"
        "+===========================+===============+====================================================+\n"
        "| 0     910B3               | OK            | 97.0        37                0    / 0             |\n"
        "| 0                         | 0000:C1:00.0  | 0           0    / 0          61920/ 65536         |\n"
        "+===========================+===============+====================================================+\n"
        "+---------------------------+---------------+----------------------------------------------------+\n"
        "| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |\n"
        "+===========================+===============+====================================================+\n"
        "| 0       0                 | 21541         | python3                  | 57501                   |\n"
        "+===========================+===============+====================================================+\n"
    )
    ev = load_text(table, "npu-smi.txt")
    (chip,) = ev.npu_chips
    assert chip["processes"] == ["python3 (pid 21541, 57501 MB)"]
    (item,) = finding_items({"evidence.npu_chips": ev.npu_chips})["evidence-npu-hbm-held"]
    assert "held by python3 (pid 21541, 57501 MB)" in item


def test_two_ascend_950_ports_of_one_npu_are_two_ports() -> None:
    def output(port: int, rows: list[str]) -> str:
        return (
            f"link up count :    {sum(r == 'UP' for r in rows)}\n"
            f"link down count :  {sum(r == 'DOWN' for r in rows)}\n"
            "| NPU | UDie | Port | Link_Status | Time_Stamp              |\n"
            + "".join(
                f"|  0  |  0   |  {port}   |  LINK_{r}    | Mon Feb 9 21:45:5{i} 2026 |\n"
                for i, r in enumerate(rows)
            )
        )

    ev = load_text(output(4, ["UP"]) + output(5, ["UP", "DOWN", "UP", "DOWN"]), "ls.txt")
    assert [(p["device"], p["die_port"], p["link_flapped"]) for p in ev.npu_ports] == [
        (0, "UDie 0 port 4", False),
        (0, "UDie 0 port 5", True),
    ]
    (item,) = finding_items({"evidence.npu_ports": ev.npu_ports})["evidence-npu-link-flaps"]
    assert item.startswith("NPU 0 UDie 0 port 5: link up count 2, link down count 2")


def test_no_mismatch_is_read_from_point_to_point_pairs_groupless_lines_or_one_rank() -> None:
    def event(rank: int, op: str, group: str | None = "1 (tp)", **more: Any) -> dict[str, Any]:
        return {"kind": "watchdog_timeout", "rank": rank, "op": op, "seq": 5, "group": group,
                "source": "a.log", "line": rank + 1, "message": "", **more}  # fmt: skip

    def mismatched(*events: dict[str, Any]) -> dict[str, list[int]]:
        timeline = build(list(events))
        assert timeline is not None
        return timeline.mismatched_ops

    assert mismatched(event(0, "send"), event(1, "recv")) == {}  # a pair waits on each other
    # older torch names no group: two groups' time-outs may share a SeqNum
    assert mismatched(event(0, "all_reduce", None), event(3, "all_gather", None)) == {}
    assert mismatched(event(0, "all_reduce"), event(3, "all_gather")) == {
        "all_gather": [3],
        "all_reduce": [0],
    }
    # one rank's two execution time-outs of one group are its steps, not two ranks' orders
    hccl = {"kind": "hccl_error", "code": "EI0002", "seq": None}
    assert mismatched(event(0, "all_reduce", "g", **hccl), event(0, "broadcast", "g", **hccl),
                      event(1, "all_reduce", "g", **hccl)) == {}  # fmt: skip


def test_a_bare_topology_cut_inside_its_header_is_said(tmp_path: Path) -> None:
    (tmp_path / "topo.txt").write_text("$ npu-smi info -t topo\n    NPU0       NPU1       NPU")
    report = load_file(tmp_path / "topo.txt").files[0]
    assert report.status == "unreadable"
    assert "ends inside the npu-smi topology matrix's header" in report.messages[0].message
