"""Outputs of round AAAA's held-out set 593 (NVIDIA collective logs) that the advisor read wrong
or not at all before this change (tests/data/evidence_heldout_63, sources in
tests/data/SOURCES.md): NCCL 2.4's own collective-mismatch WARN quoted in backticks, a watchdog
record a 100-column wrap cut between "[Rank 0" and "]", Open MPI's signal heading with the rest
of its report cut off, and torchrun's agent that raised while it re-rendezvoused for a restart
it had just announced."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_63"
MISMATCH = "nccl2.4.8_init1247_warn_mismatched_collective_rank39_backticked.log"
WRAPPED = (
    "navillm34_torch2.2era_wrapped100col_rank0_watchdog_allgather_seq1_600s_escaped_frames.log"
)
SIGNAL = (
    "nccl2.26.2_ras_two_hosts_ib_ece_ras_listening_then_process_received_signal_rtptest1621_cut.log"
)
AGENT = "torchrun2025_c10d_rdzv_agent_worker_failed_exitcode1_restart_then_traceback_cut.log"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


def _bad(ev: EvidenceFacts) -> tuple[str, dict[str, list[str]]]:
    """The verdict, and the items of each finding above info."""
    level, outcome = heldout.imported(ev)
    return level, {
        f.rule_id: [str(i) for i in f.items] for f in outcome.findings if f.severity != "info"
    }


# -- NCCL's collective-mismatch WARN in an inline-code span ---------------------------------------


def test_nccls_mismatched_collective_warn_in_backticks_is_read() -> None:
    ev = _load(MISMATCH)
    assert ev.files[0].formats == ["log"]
    assert (
        "the backticks of one inline-code span around the whole output taken off"
        in heldout.said(ev)
    )
    (warn,) = ev.failures
    assert (warn["kind"], warn["line"]) == ("nccl_warning", 1)
    level, bad = _bad(ev)
    assert level == "NOT READY"
    assert list(bad) == ["evidence-nccl-warning"]
    (item,) = bad["evidence-nccl-warning"]
    assert "Mismatched collective detected" in item
    assert "at and around rank 39" in item
    assert "`" not in item
    # (no host, pid or device is in the line: none is said)
    assert item.startswith("a process: ")


def test_a_cut_span_and_spans_a_line_each_are_read_too(tmp_path: Path) -> None:
    warn = (
        "node7:2211:2290 [3] init.cc:1247 NCCL WARN Mismatched collective detected, please "
        "check your collective calls at and around rank 12."
    )
    # the copy ends inside the span (no closing backtick), under a line of the reporter's prose
    ev = _write(tmp_path, f"NCCL version 2.4.8+cuda10.0\n`{warn[:100]}")
    (event,) = ev.failures
    assert (event["kind"], event["host"], event["pid"], event["line"]) == (
        "nccl_warning",
        "node7",
        2211,
        2,
    )
    # each line its own span, a rank's copy indented
    info = "node7:2211:2211 [3] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.7<0>"
    ev = _write(tmp_path, f"`{info}`\n  `{warn}`\n")
    assert [(e["kind"], e["line"]) for e in ev.failures] == [("nccl_warning", 2)]


def test_a_documents_own_code_span_on_a_line_is_no_output(tmp_path: Path) -> None:
    ev = _write(tmp_path, "Run it as:\n`NCCL_DEBUG=INFO torchrun --nproc_per_node 8 train.py`\n")
    assert ev.failures == []


# -- a watchdog record a 100-column wrap split ----------------------------------------------------


def test_a_watchdog_record_wrapped_at_100_columns_names_its_rank() -> None:
    ev = _load(WRAPPED)
    said = heldout.said(ev)
    assert "4 stack frame number(s) escaped for Markdown ('\\#') read as '#'" in said
    assert any("a terminal wrapped at 102 columns joined" in m for m in said)
    (timeout,) = [f for f in ev.failures if f["kind"] == "watchdog_timeout"]
    assert (
        timeout["rank"],
        timeout["op"],
        timeout["seq"],
        timeout["numel"],
        timeout["timeout_ms"],
        timeout["ran_for_ms"],
        timeout["line"],
    ) == (0, "all_gather", 1, 1, 600000, 600168, 5)
    level, bad = _bad(ev)
    assert level == "NOT READY"
    (item,) = bad["evidence-watchdog-timeout"]
    assert item.startswith("Rank 0: all_gather (SeqNum 1, 1 elements) ran 600168 ms against a ")
    assert "does not name" not in item
    # (the watchdog's death is no second finding that quotes "[Rank 0" as its exception)
    assert not any(i.endswith("[Rank 0") or ": [Rank 0 (" in i for v in bad.values() for i in v)


def test_the_same_record_wrapped_at_110_columns_reads_the_same(tmp_path: Path) -> None:
    record = (
        "[rank3]:[E ProcessGroupNCCL.cpp:1182] [Rank 3] NCCL watchdog thread terminated with "
        "exception: [Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, "
        "OpType=ALLREDUCE, NumelIn=4096, NumelOut=4096, Timeout(ms)=1800000) ran for 1800321 "
        "milliseconds before timing out.\n"
        "[rank3]:[E ProcessGroupNCCL.cpp:537] Some NCCL operations have failed or timed out. Due "
        "to the asynchronous nature of CUDA kernels, subsequent GPU operations might run on "
        "corrupted/incomplete data.\n"
    )
    width = 110
    wrapped = "".join(
        "\n".join(line[i : i + width] for i in range(0, len(line), width)) + "\n"
        for line in record.splitlines()
    )
    ev = _write(tmp_path, wrapped)
    (timeout,) = [f for f in ev.failures if f["kind"] == "watchdog_timeout"]
    assert (timeout["rank"], timeout["op"], timeout["seq"], timeout["ran_for_ms"]) == (
        3,
        "all_reduce",
        7,
        1800321,
    )


# -- Open MPI's signal heading, the rest of its report cut off ------------------------------------


def test_open_mpis_signal_heading_alone_is_a_crash_of_that_process() -> None:
    ev = _load(SIGNAL)
    (crash,) = ev.failures
    assert (crash["kind"], crash["host"], crash["pid"], crash["line"], crash["exit_code"]) == (
        "launcher_exit",
        "rtptest1621",
        405884,
        10,
        None,
    )
    level, bad = _bad(ev)
    assert level == "NOT READY"
    assert list(bad) == ["evidence-launcher-exit"]
    (item,) = bad["evidence-launcher-exit"]
    assert item.startswith(
        "Open MPI's signal handler: [rtptest1621:405884] the process received a fatal signal "
        "and crashed"
    )
    assert "which signal is not in the copy" in item
    # (no signal's name or number is in the file: none is said)
    assert "Segmentation" not in item and "signal 11" not in item and "exited with" not in item


def test_a_tagged_heading_names_its_rank_and_a_whole_report_its_signal(tmp_path: Path) -> None:
    ev = _write(tmp_path, "[1,5]<stderr>:[gpu-a17:3121] *** Process received signal ***\n")
    (crash,) = ev.failures
    assert (crash["rank"], crash["host"], crash["pid"], crash["exit_code"]) == (
        5,
        "gpu-a17",
        3121,
        None,
    )
    ev = _write(
        tmp_path,
        "[gpu-a17:3121] *** Process received signal ***\n"
        "[gpu-a17:3121] Signal: Segmentation fault (11)\n"
        "[gpu-a17:3121] Signal code: Address not mapped (1)\n",
    )
    (crash,) = ev.failures
    assert (crash["pid"], crash["exit_code"]) == (3121, -11)


# -- torchrun's agent raising while it re-rendezvoused for a restart ------------------------------


def test_an_agent_that_raised_while_rejoining_did_not_restart_its_group() -> None:
    ev = _load(AGENT)
    assert [(f["kind"], f["line"]) for f in ev.failures] == [
        ("elastic_failure", 1),
        ("elastic_agent_crash", 5),
    ]
    crash = ev.failures[1]
    assert crash["pid"] == 870572
    level, bad = _bad(ev)
    assert level == "NOT READY"
    assert sorted(bad) == ["evidence-elastic-agent-crash", "evidence-elastic-root-cause"]
    (item,) = bad["evidence-elastic-agent-crash"]
    assert item.startswith(
        "the agent (pid 870572): its worker group FAILED and it announced a restart ('3/3 "
        "attempts left', line 2), then torchrun itself raised while it rendezvoused again (its "
        "own traceback, line 5; its exception is not in the copy)"
    )
    # (the thread's RendezvousClosedError is not in the copy: not said; no restart "went on")
    assert "Rendezvous" + "ClosedError" not in item
    assert "evidence-elastic-restart" not in bad


AGENT_HEAD = (
    "E0213 12:07:20.086000 870572 torch/distributed/elastic/multiprocessing/api.py:869] failed "
    "(exitcode: 1) local_rank: 0 (pid: 876053) of binary: /usr/bin/python3\n"
    "I0213 12:07:20.086000 870572 torch/distributed/elastic/agent/server/api.py:889] [default] "
    "Worker group FAILED. 3/3 attempts left; will restart worker group\n"
    "I0213 12:07:20.087000 870572 torch/distributed/elastic/agent/server/api.py:677] [default] "
    "Rendezvous'ing worker group\n"
)


def test_the_agents_exception_is_said_where_the_copy_has_it(tmp_path: Path) -> None:
    # ``python -m torch.distributed.run``: runpy's frames first, then torch's launcher module
    ev = _write(
        tmp_path,
        AGENT_HEAD + "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.10/runpy.py", line 196, in _run_module_as_main\n'
        "    return _run_code(code, main_globals, None,\n"
        '  File "/usr/lib/python3.10/runpy.py", line 86, in _run_code\n'
        "    exec(code, run_globals)\n"
        '  File "/opt/venv/lib/python3.10/site-packages/torch/distributed/run.py", line 923, '
        "in <module>\n"
        "    main()\n"
        "torch.distributed.elastic.rendezvous.api.RendezvousClosedError\n",
    )
    (crash,) = [f for f in ev.failures if f["kind"] == "elastic_agent_crash"]
    assert crash["line"] == 4
    assert crash["message"] == "torch.distributed.elastic.rendezvous.api.RendezvousClosedError"
    assert (
        "then torchrun itself raised torch.distributed.elastic.rendezvous.api."
        in (crash["exception_type"])
    )
    assert not [f for f in ev.failures if f["kind"] == "elastic_restart"]


def test_a_restart_that_ran_and_failed_again_is_still_a_restart(tmp_path: Path) -> None:
    # the group rendezvoused and started again; torchrun's own ChildFailedError at the end is
    # its summary of the workers that failed on the last attempt, not a crash of the restart
    ev = _write(
        tmp_path,
        AGENT_HEAD + "I0213 12:07:25.100000 870572 torch/distributed/elastic/agent/server/"
        "api.py:525] [default] Rendezvous complete for workers. Result:\n"
        "I0213 12:07:25.200000 870572 torch/distributed/elastic/agent/server/api.py:683] "
        "[default] Starting worker group\n"
        "Traceback (most recent call last):\n"
        '  File "/opt/venv/bin/torchrun", line 8, in <module>\n'
        "    sys.exit(main())\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n",
    )
    assert [f["kind"] for f in ev.failures if f["kind"].startswith("elastic_")] == [
        "elastic_failure",
        "elastic_restart",
    ]
    # a worker's own traceback after the restart line is no agent's
    ev = _write(
        tmp_path,
        AGENT_HEAD + "Traceback (most recent call last):\n"
        '  File "/work/train.py", line 40, in <module>\n'
        "    main()\n"
        "RuntimeError: CUDA error: an illegal memory access was encountered\n",
    )
    assert not [f for f in ev.failures if f["kind"] == "elastic_agent_crash"]
    assert [f for f in ev.failures if f["kind"] == "elastic_restart"]
