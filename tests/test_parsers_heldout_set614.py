"""Outputs of round EEEE's held-out evaluation (set 614, Ascend logs: torch_npu, CANN, HCCL,
vLLM-Ascend) that the advisor read wrong before this change (tests/data/evidence_heldout_67,
sources in tests/data/SOURCES.md): the runtime's event wait time-out on a chip, under vLLM's
multiproc_executor ERROR prefix, read as an unknown program's error line (a warning quoting the
failed rtEventSynchronize of line 4, not the device's report of line 1)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_67"

EVENT_WAIT = "vllm_ascend14214_dsv4_flash_4p1d_worker_dp0_tp3_event_wait_timeout_234s_chip3_rteventsync_cut.log"

_write = partial(heldout.load_copy, name="copy.log")

# the runtime's words (hicann/runtime device_error_proc.cc, ProcessStarsWaitTimeoutErrorInfo,
# RT_STARS_SQE_TYPE_EVENT_WAIT): "The error from device(chipId:%u, dieId:%u), serial number is
# %lu, event wait timeout occurred during task execution, stream_id:%hu, sq_id:%hu, task_id:%hu,
# event_id=%u, timeout=%us."
_EVENT_WAIT_LINE = (
    "The error from device(chipId:{chip}, dieId:0), serial number is {serial}, event wait timeout "
    "occurred during task execution, stream_id:19, sq_id:19, task_id:16, event_id=73, "
    "timeout={timeout}.[FUNC:ProcessStarsWaitTimeoutErrorInfo][FILE:device_error_proc.cc]"
    "[LINE:1400]"
)


_load = partial(heldout.load, HELDOUT)


# --- the runtime's event wait time-out under vLLM's worker prefix -------------------------------


def test_an_event_wait_timeout_on_a_chip_is_a_failure_from_its_first_line() -> None:
    ev = _load(EVENT_WAIT)
    (wait,) = ev.failures
    assert (wait["kind"], wait["library"], wait["line"], wait["repeated_lines"]) == (
        "hccl_plog_error",
        "RUNTIME",
        1,
        [2, 3],  # (serial numbers 4 and 5 of the same worker's chip: one report)
    )
    assert (wait["device"], wait["worker"], wait["pid"], wait["timeout_ms"]) == (
        3,
        "Worker_DP0_TP3_EP3",
        663,
        234_000,
    )
    assert wait["exception_type"] == (
        "an event wait (a stream waiting for an event another stream records) timed out on the "
        "device; rtEventSynchronize failed: task timeout"
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-hccl-plog-error", "critical")]
    (item,) = heldout.items(outcome, "evidence-hccl-plog-error")
    assert item.startswith("Device 3: an event wait")
    assert "line 1; the same on 2 more line(s): 2, 3)" in item
    # nothing invented: no rank, no peer, no collective, no unknown program's line
    assert wait["rank"] is None and wait["remote_rank"] is None
    assert "notify wait" not in item and "collective" not in item
    assert "evidence-log-error" not in str(outcome.findings)
    assert not any("no form the advisor reads" in s for s in heldout.said(ev))


def test_an_older_runtimes_event_wait_alone_and_quoted_reads_the_same(tmp_path: Path) -> None:
    # an older runtime: no unit on its time-out (not read as seconds), its failed call in
    # brackets; a Markdown quote with torch's rank tag, no worker prefix
    text = (
        "> [rank3]: " + _EVENT_WAIT_LINE.format(chip=5, serial=1, timeout="1868") + "\n"
        "> [rank3]:         rtStreamSynchronizeWithTimeout execute failed, reason=[task timeout]"
        "[FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]\n"
    )
    (wait,) = _write(tmp_path, text).failures
    assert (wait["kind"], wait["device"], wait["rank"], wait["timeout_ms"]) == (
        "hccl_plog_error",
        5,
        3,
        None,
    )
    assert wait["exception_type"].endswith("; rtStreamSynchronizeWithTimeout failed: task timeout")
    bare = _write(tmp_path, _EVENT_WAIT_LINE.format(chip=0, serial=1, timeout="1866s") + "\n")
    (alone,) = bare.failures
    assert (alone["device"], alone["rank"], alone["timeout_ms"]) == (0, None, 1_866_000)


def test_two_workers_event_waits_are_two_reports(tmp_path: Path) -> None:
    text = "".join(
        f"(Worker_TP{tp} pid={10 + tp}) ERROR 08-13 15:31:21 [multiproc_executor.py:945]        "
        + _EVENT_WAIT_LINE.format(chip=chip, serial=1, timeout="234s")
        + "\n"
        for tp, chip in ((0, 3), (1, 5))
    )
    waits = _write(tmp_path, text).failures
    assert [(w["device"], w["worker"], w["pid"], w["line"]) for w in waits] == [
        (3, "Worker_TP0", 10, 1),
        (5, "Worker_TP1", 11, 2),
    ]


def test_an_event_wait_in_a_codes_traceback_is_the_codes_failure(tmp_path: Path) -> None:
    # EI9999's block: its stuck notify waits, then the event wait they held up: the code is the
    # failure, the event wait no second one
    text = (
        "EI9999: Inner Error!\n"
        "EI9999: [PID: 639] 2024-06-01-10:00:00.000.000 The error from device(chipId:0, "
        "dieId:0), serial number is 1, hccl fftsplus task timeout occurred during task execution, "
        "stream_id:4, sq_id:4, task_id:5, stuck notify num:1, timeout:1836.[FUNC:ProcessStarsHccl"
        "FftsPlusTimeoutErrorInfo][FILE:device_error_proc.cc][LINE:1380]\n"
        "        TraceBack (most recent call last):\n"
        "        The 0 stuck notify wait context info:(context_id=2, notify_id=7).[FUNC:ProcessStars"
        "HcclFftsPlusTimeoutErrorInfo][FILE:device_error_proc.cc][LINE:1396]\n"
        "        " + _EVENT_WAIT_LINE.format(chip=0, serial=2, timeout="1868") + "\n"
    )
    ev = _write(tmp_path, text)
    assert [f["line"] for f in ev.failures if f["kind"] == "hccl_plog_error"] == []
    assert [f["code"] for f in ev.failures] == ["EI9999"]
