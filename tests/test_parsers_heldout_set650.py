"""Outputs of round KKKK's held-out evaluation (set 650, Ascend logs) that the advisor read in
part or wrongly before this change (tests/data/evidence_heldout_71, sources in
tests/data/SOURCES.md): a MindSpore profiler's EK0001 (CANN's Profiling range) read as a critical
CANN / HCCL error; HCCL's EI0005 (arguments differ between ranks) led by a link set-up reading
that counted one of its two failed links; and a MindIE start whose workers ran out of memory on
NPU 7 and NPU 4, its daemon's exits and stop and the memory held outside the process unsaid."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_71"

PROFILER = (
    "mindspore_ascend_profiler_ek0001_invalid_profiler_result_path_error_scenario_analysis.log"
)
EI0005 = "cann8.5_hccl_ei0005_args_inconsistent_between_ranks_count_16512_vs_8320_rank5_hcclug51_850_cut.log"
MINDIE = (
    "mindie_multinode_deepseek_output3_npu7_npu4_out_of_memory_450mib_mie04e13030a_daemon_exit_"
    "itove_ascend.log"
)


_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


# --- EK0001: the profiler's output path ------------------------------------------------------


def test_profiler_ek0001_is_a_warning_not_a_cluster_failure() -> None:
    ev = _load(PROFILER)
    assert not [f for f in ev.failures if f["kind"] == "hccl_error"]
    (ek,) = [f for f in ev.failures if f["kind"] == "cann_profiler_error"]
    assert (ek["line"], ek["code"]) == (2, "EK0001")
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-cann-profiler-error", "warning")]
    message, items = heldout.finding(outcome, "evidence-cann-profiler-error")
    assert "(EK0001)" in message and "nothing of the devices" in message
    assert "profilerResultPath" in items[0] and "line 2)" in items[0]


def test_another_ek_code_is_the_profiler_and_an_ei_code_stays_critical(tmp_path: Path) -> None:
    text = _text(PROFILER).replace("EK0001", "EK0003")
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "READY WITH WARNINGS"
    assert "(EK0003)" in heldout.finding(outcome, "evidence-cann-profiler-error")[0]
    # (the same line under an HCCL code is the HCCL error it was)
    level, outcome = heldout.imported(_write(tmp_path, _text(PROFILER).replace("EK0001", "EI0001")))
    assert level == "NOT READY"
    assert ("evidence-hccl-other-error", "critical") in heldout.above_info(outcome)


# --- EI0005: the ranks' arguments differ -----------------------------------------------------


def test_ei0005_leads_with_the_argument_mismatch_and_lists_both_links() -> None:
    ev = _load(EI0005)
    (code,) = [f for f in ev.failures if f["kind"] == "hccl_error"]
    assert (code["line"], code["code"], code["rank"]) == (1, "EI0005", 5)
    assert code["exception_type"] == "parameter count: 16512 on this rank, 8320 on a peer"
    links = [f for f in ev.failures if f["kind"] == "hccl_transport_failure"]
    assert [(f["line"], f["rank"], f["remote_rank"]) for f in links] == [(4, 5, 6), (5, 5, 4)]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert [r for r, _ in heldout.above_info(outcome)] == [
        "evidence-hccl-args-inconsistent",
        "evidence-hccl-transport-failed",
    ]
    message, items = heldout.finding(outcome, "evidence-hccl-args-inconsistent")
    assert "not the links" in message
    assert items == [
        f"Rank 5, all_reduce: parameter count: 16512 on this rank, 8320 on a peer "
        f"({HELDOUT / EI0005}, line 1)"
    ]
    message, items = heldout.finding(outcome, "evidence-hccl-transport-failed")
    assert message.startswith("HCCL's transport set-up failed for 2 pair(s) of ranks")
    assert "(EI0005, said above)" in message
    assert [i.split(" (/")[0] for i in items] == [
        "Rank 5 (127.10.0.1) to rank 6 (127.10.0.1)",
        "Rank 5 (127.10.0.1) to rank 4 (127.10.0.1)",
    ]


def test_ei0005_of_another_rank_and_cann9_wording(tmp_path: Path) -> None:
    text = (
        _text(EI0005)
        .replace("rank[5]-localUserrank[4]", "rank[2]-localUserrank[1]")
        .replace(
            "tag[HcomAllReduce_6629421139219749105_0], parameter[count], local[16512], remote [8320]",
            "ccl_op HcomAllGather, group hccl_world_group, parameter dataType, local end 3, "
            "remote end 4",
        )
    )
    ev = _write(tmp_path, text)
    (code,) = [f for f in ev.failures if f["kind"] == "hccl_error"]
    assert code["rank"] == 2
    assert code["exception_type"] == "parameter dataType: 3 on this rank, 4 on a peer"
    links = [f for f in ev.failures if f["kind"] == "hccl_transport_failure"]
    assert [(f["rank"], f["remote_rank"]) for f in links] == [(2, 6), (2, 4)]
    assert heldout.imported(ev)[0] == "NOT READY"


def test_transport_errors_without_ei0005_keep_the_link_reading(tmp_path: Path) -> None:
    # (the same TraceBack's links under no argument check: a link fault, said as before)
    text = "\n".join(_text(EI0005).splitlines()[3:6]) + "\n"
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "NOT READY"
    assert not [r for r, _ in heldout.above_info(outcome) if r == "evidence-hccl-args-inconsistent"]
    message, items = heldout.finding(outcome, "evidence-hccl-transport-failed")
    assert "EI0005" not in message and len(items) == 2


# --- MindIE: OOM on NPU 7 and NPU 4, the daemon's exits ---------------------------------------


def test_mindie_oom_says_the_memory_held_outside_and_the_daemon_stopping() -> None:
    ev = _load(MINDIE)
    ooms = [f for f in ev.failures if f["kind"] == "device_oom"]
    assert [(f["line"], f["device"], f["pid"]) for f in ooms] == [(22, 7, 63522), (77, 4, 63498)]
    assert "60.97 GiB total, 14.67 GiB allocated by this process" in ooms[0]["exception_type"]
    assert "the other 46.24 GiB is held outside" in ooms[0]["exception_type"]
    assert "22.87 MiB free" in ooms[1]["exception_type"]
    (daemon,) = [f for f in ev.failures if f["kind"] == "mindie_error"]
    assert (daemon["line"], daemon["code"], daemon["repeated_lines"]) == (66, "MIE04E010109", [121])
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    rules = dict(heldout.above_info(outcome))
    assert rules["evidence-device-out-of-memory"] == rules["evidence-mindie-error"] == "critical"
    _, items = heldout.finding(outcome, "evidence-mindie-error")
    assert items[0].startswith(
        "MIE04E010109: MindIE Server's daemon saw 2 worker process(es) exit: pid 63522 (line 66; "
        "its failure on line 22, device 7), pid 63498 (line 121; its failure on line 77, device "
        "4); then it stopped the service ('Daemon is killing...', line 132)"
    )
    _, items = heldout.finding(outcome, "evidence-device-out-of-memory")
    assert items[0].startswith("Process 63522 on device 7: tried to allocate 450.00 MiB")


def test_mindie_oom_on_another_device_with_most_memory_its_own(tmp_path: Path) -> None:
    # NPU 3 whose process holds nearly all of it: nothing held outside; no daemon kill line
    text = (
        _text(MINDIE)
        .replace(
            "NPU 7; 60.97 GiB total capacity; 14.67 GiB already",
            "NPU 3; 60.97 GiB total capacity; 59.67 GiB already",
        )
        .replace("14.71 GiB reserved", "60.71 GiB reserved")
        .replace("Daemon is killing...\n", "")
    )
    ev = _write(tmp_path, text)
    ooms = [f for f in ev.failures if f["kind"] == "device_oom"]
    assert [(f["device"], f["pid"]) for f in ooms] == [(3, 63522), (4, 63498)]
    assert "59.67 GiB allocated by this process" in ooms[0]["exception_type"]
    assert "held outside" not in ooms[0]["exception_type"]
    assert "held outside" not in ooms[1]["exception_type"]  # (its reserved figure changed too)
    (daemon,) = [f for f in ev.failures if f["kind"] == "mindie_error"]
    assert "Daemon is killing" not in daemon["exception_type"]
    assert "device 3" in daemon["exception_type"]


def test_mindie_healthy_start_stays_ready(tmp_path: Path) -> None:
    # the same start's init lines only: no error, nothing said
    text = "".join(_text(MINDIE).splitlines(keepends=True)[:21])
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "READY"
    assert heldout.above_info(outcome) == []
