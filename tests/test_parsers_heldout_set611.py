"""Outputs of round DDDD's held-out evaluation (set 611, NVIDIA collective logs) that the advisor
read in part before this change (tests/data/evidence_heldout_66, sources in tests/data/SOURCES.md):
torch elastic's ChildFailedError summary pasted double-spaced; the agent's "failed (exitcode: ..)"
record that Rich's log layout wrapped before its pid; vLLM's pynccl error logged under the NCCL
call's name ("ncclCommInitRank failed with error: NCCL error: internal error")."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_66"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


def _severities(ev: EvidenceFacts) -> set[str]:
    return {f.severity for f in heldout.found(ev).values()} - {"info"}


def _elastic(ev: EvidenceFacts) -> list[tuple[object, ...]]:
    return [
        (f["line"], f["rank"], f["local_rank"], f["pid"], f["exit_code"], f["root_cause"])
        for f in ev.failures
        if f["kind"] == "elastic_failure"
    ]


# --- a double-spaced ChildFailedError summary -------------------------------------------------


def test_a_double_spaced_summary_reads_every_entry() -> None:
    ev = _load(
        "torchrun_childfailed_summary_double_spaced_8gpu_sigbus_rootcause_rank0_cut_"
        "llamacookbook223.log"
    )
    # entries [4] and [5] (ranks 6 and 7) and the Root Cause, rank 0; line 1 is the last field of
    # an entry [3] the copy starts after: no entry of its own
    assert _elastic(ev) == [
        (3, 6, 6, 5063, -7, False),
        (17, 7, 7, 5064, -7, False),
        (35, 0, 0, 5057, -7, True),
    ]
    assert {f["host"] for f in ev.failures} == {"09e05f797e4a"}
    assert _severities(ev) == {"critical"}
    (item,) = heldout.found(ev)["evidence-elastic-root-cause"].items
    assert "Rank 0 (local rank 0) on 09e05f797e4a, pid 5057, exited with -7" in item
    assert "SIGBUS" in item


def test_a_double_spaced_summary_from_its_first_entry(tmp_path: Path) -> None:
    # another paste of the same layout: CRLF line ends, blank lines doubled, entry [1] first
    fields = [
        "[1]:",
        "  time      : 2024-02-01_10:00:00",
        "  host      : node-7",
        "  rank      : 13 (local_rank: 5)",
        "  exitcode  : -9 (pid: 811)",
        "  error_file: <N/A>",
        "  traceback : Signal 9 (SIGKILL) received by PID 811",
        "------------------------------------------------------------",
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : 2024-02-01_10:00:00",
        "  host      : node-7",
        "  rank      : 10 (local_rank: 2)",
        "  exitcode  : -9 (pid: 808)",
        "  error_file: <N/A>",
        "  traceback : Signal 9 (SIGKILL) received by PID 808",
        "============================================================",
    ]
    ev = _write(tmp_path, "\r\n\r\n\r\n".join(fields) + "\r\n")
    assert [row[1:] for row in _elastic(ev)] == [
        (13, 5, 811, -9, False),
        (10, 2, 808, -9, True),
    ]


# --- torch elastic's agent record wrapped by Rich's log layout --------------------------------


def test_a_rich_wrapped_agent_record_names_the_first_failure() -> None:
    ev = _load("accelerate_rich_wrapped_elastic_error_exitcode_minus7_localrank0_cut_kohya1414.log")
    assert _elastic(ev) == [(2, None, 0, 2255697, -7, True)]
    (failure,) = ev.failures
    assert failure["message"].endswith(
        "failed (exitcode: -7) local_rank: 0 (pid: 2255697) of binary: "
        "/root/miniconda3/envs/sd-webui/bin/python"
    )
    assert "api.py:672" not in failure["message"]  # (Rich's source column, not the record's)
    found = heldout.found(ev)
    assert "evidence-python-exception" not in found
    (item,) = found["evidence-elastic-root-cause"].items
    assert "local rank 0), pid 2255697, exited with -7" in item and "SIGBUS" in item


def test_rich_wrapped_agent_records_cut_elsewhere_and_quoted(tmp_path: Path) -> None:
    # wrapped before the local rank (a narrower terminal), and a "> " quoted copy of the same
    ev = _write(
        tmp_path,
        "[12:00:01] ERROR    failed (exitcode: -9)                              api.py:673\n"
        "                    local_rank: 5 (pid: 22) of binary:\n"
        "                    /opt/conda/bin/python\n",
    )
    assert _elastic(ev) == [(1, None, 5, 22, -9, True)]
    quoted = _write(
        tmp_path,
        "> [01:21:55] ERROR    failed (exitcode: -7) local_rank: 3 (pid:      api.py:672\n"
        ">                     91) of binary:\n"
        ">                     /usr/bin/python\n",
    )
    assert _elastic(quoted) == [(1, None, 3, 91, -7, True)]


def test_a_rich_row_not_wrapped_below_reads_no_pid(tmp_path: Path) -> None:
    # the record cut at its pid, no indented row after it: nothing is made up for the pid
    ev = _write(
        tmp_path,
        "[01:21:55] ERROR    failed (exitcode: -7) local_rank: 0 (pid:      api.py:672\n"
        "Traceback (most recent call last):\n",
    )
    assert all(f["pid"] is None for f in ev.failures)


# --- vLLM's pynccl error logged under the call's name -----------------------------------------


def test_pynccl_comm_init_rank_internal_error_is_a_failed_nccl_call() -> None:
    ev = _load(
        "vllm_pynccl_ncclCommInitRank_internal_error_h100_kuberay_concatenated_prefix_cut_"
        "nccl1726.log"
    )
    (call,) = ev.failures
    assert (call["kind"], call["line"], call["call"]) == (
        "nccl_call_failure",
        1,
        "ncclCommInitRank",
    )
    assert (call["code"], call["code_name"]) == ("3", "ncclInternalError")
    assert call["rank"] is None and call["host"] is None  # (the pod prefix is cut: no host)
    assert _severities(ev) == {"critical"}
    found = heldout.found(ev)
    assert "evidence-log-error" not in found
    (item,) = found["evidence-nccl-call-failed"].items
    assert "ncclInternalError at ncclCommInitRank" in item
    assert not any("no form the advisor reads" in m for m in heldout.said(ev))


def test_pynccl_errors_under_other_calls_and_prefixes(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "(RayWorkerWrapper pid=4411) ERROR 01-02 03:04:05 [pynccl.py:153] ncclCommInitRank "
        "failed with error: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for "
        "details)\n"
        "ERROR 01-02 03:04:06 [pynccl.py:160] ncclAllReduce failed: NCCL error: remote process "
        "exited or there was a network error\n",
    )
    assert [(f["line"], f["call"], f["code_name"]) for f in ev.failures] == [
        (1, "ncclCommInitRank", "ncclSystemError"),
        (2, "ncclAllReduce", "ncclRemoteError"),
    ]


def test_a_call_failed_with_other_words_is_not_an_nccl_result(tmp_path: Path) -> None:
    ev = _write(
        tmp_path, "INFO ncclCommInitRank failed with error: NCCL error: connection refused\n"
    )
    assert not [f for f in ev.failures if f["kind"] == "nccl_call_failure"]
