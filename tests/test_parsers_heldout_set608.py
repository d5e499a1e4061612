"""Outputs of round DDDD's held-out evaluation (set 608, Ascend logs) that the advisor read in
part before this change (tests/data/evidence_heldout_66, sources in tests/data/SOURCES.md):
MindSpore's own ERROR lines, in plog form with its thread's id ("[ERROR] KERNEL(pid,tid,python)"),
reported as CANN's (HCCL's, the runtime's) error reports, and MindSpore's run_check that passed
above them left unsaid."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_66"

_write = partial(heldout.load_copy, name="copy.log")

_OPINFO = (
    "08_mindspore211_run_check_ok_then_KERNEL_opinfo_Ascend310P3_errors_two_backtick_blocks.log"
)

_RUN_CHECK_OK = (
    "The result of multiplication calculation is correct, MindSpore has been installed on "
    "platform [Ascend] successfully!"
)
_KERNEL = (
    "[ERROR] KERNEL(40354,fffdd6e1f1e0,python):2023-10-13-09:30:47.546.313 "
    "[mindspore/ccsrc/kernel/oplib/op_info_utils.cc:172] LoadOpInfoJson] Get op info json "
    "suffix path failed, soc_version: Ascend910_9391"
)
# the runtime's own plog line (CANN's: module(pid,process), no thread id)
_RUNTIME = (
    "[ERROR] RUNTIME(699131,python):2025-04-24-21:54:17.707.236 [davinci_kernel_task.cc:1268]"
    "699131 Launch: kernel launch failed"
)


_load = partial(heldout.load, HELDOUT)


def test_mindspores_own_kernel_error_lines_are_mindspores_not_canns() -> None:
    # MindSpore's "[ERROR] KERNEL(pid,tid,python)" lines come from its operator library
    # (mindspore/ccsrc/kernel/oplib), not from a CANN module's plog: one per process (lines 3
    # and 8), each saying the SoC it has no operator info for
    ev = _load(_OPINFO)
    first, second = ev.failures
    assert [(e["kind"], e["line"], e["pid"]) for e in (first, second)] == [
        ("hccl_plog_error", 3, 40354),
        ("hccl_plog_error", 8, 40106),
    ]
    assert {e["library"] for e in ev.failures} == {"MindSpore"}
    assert first["exception_type"].startswith("MindSpore's KERNEL error")
    assert "no operator info for SoC Ascend310P3" in first["exception_type"]
    assert first["message"].endswith(
        "Get op info json suffix path failed, soc_version: Ascend310P3"
    )
    # nothing invented: no device, rank or HCCL code in the file
    assert all(e["device"] is None and e["rank"] is None for e in ev.failures)
    assert all(e["code"] is None for e in ev.failures)
    finding = heldout.found(ev, "hccl")["evidence-hccl-plog-error"]
    assert finding.severity == "critical"
    assert finding.message.startswith("2 error report(s) of MindSpore (its own ERROR lines")
    assert "CANN error report" not in finding.message
    assert "HCCL's, or the runtime's" not in finding.message


def test_the_run_check_that_passed_above_them_is_said() -> None:
    # run_check's computation ran on the device (line 2) before MindSpore's first ERROR line
    ev = _load(_OPINFO)
    (note,) = [m for m in heldout.said(ev) if "run_check" in m]
    assert note.startswith("log: MindSpore's run_check passed on [Ascend] (line 2)")
    assert "ERROR line 3" in note


def test_a_prefixed_copy_of_another_socs_line_reads_the_same(tmp_path: Path) -> None:
    # a docker compose service's prefix before each line; another chip's name
    ev = _write(
        tmp_path,
        f"trainer-1  | MindSpore version:  2.3.0\ntrainer-1  | {_RUN_CHECK_OK}\n"
        f"trainer-1  | {_KERNEL}\n",
    )
    (error,) = ev.failures
    assert (error["kind"], error["line"], error["library"]) == ("hccl_plog_error", 3, "MindSpore")
    assert "no operator info for SoC Ascend910_9391" in error["exception_type"]
    assert any("MindSpore's run_check passed on [Ascend] (line 2)" in m for m in heldout.said(ev))


def test_a_mindspore_device_error_without_run_check_says_no_run_check(tmp_path: Path) -> None:
    # MindSpore's DEVICE module (its Ascend runtime wrapper) with no run_check above it
    ev = _write(
        tmp_path,
        "[ERROR] DEVICE(16158,fffe34f491e0,python):2023-12-29-12:03:04.156.780 "
        "[mindspore/ccsrc/plugin/device/ascend/hal/device/ascend_stream_manager.cc:194] "
        "SyncStream] Call runtime rtStreamSynchronize error.\n",
    )
    (error,) = ev.failures
    # (the line relays the runtime's failed call, not an error of MindSpore's own: review 49's
    # fault 7)
    assert error["library"] == "CANN runtime (MindSpore's log)"
    assert error["exception_type"] == (
        "the CANN runtime's rtStreamSynchronize failed, as MindSpore's DEVICE log line relays it"
    )
    assert not any("run_check" in m for m in heldout.said(ev))


def test_canns_runtime_line_is_still_canns(tmp_path: Path) -> None:
    ev = _write(tmp_path, _RUNTIME + "\n")
    (error,) = ev.failures
    assert (error["library"], error["exception_type"]) == ("RUNTIME", "RUNTIME error")
    message = heldout.found(ev, "hccl")["evidence-hccl-plog-error"].message
    assert message.startswith("1 CANN error report(s) (HCCL's, or the runtime's")
    assert "MindSpore" not in message


def test_canns_and_mindspores_lines_together_are_each_counted(tmp_path: Path) -> None:
    ev = _write(tmp_path, f"{_KERNEL}\n{_RUNTIME}\n")
    assert sorted(e["library"] for e in ev.failures) == ["MindSpore", "RUNTIME"]
    message = heldout.found(ev, "hccl")["evidence-hccl-plog-error"].message
    assert message.startswith("2 error report(s): 1 of CANN (HCCL's")
    assert "and 1 of MindSpore (its own ERROR lines)" in message
