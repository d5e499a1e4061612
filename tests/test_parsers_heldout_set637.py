"""Outputs of round IIII's held-out evaluation (set 637, Ascend tool outputs) that the advisor read
in part before this change (tests/data/evidence_heldout_69, sources in tests/data/SOURCES.md): a
program's exception callback printing the runtime's failed task (PyPTO's "ErrorTracking callback
in", "[ERROR] Exception Type: ...", "taskid: 0, streamid: 3, tid: 6495, deviceid: 0, retcode:
507018") skipped, the device log's AI CPU line under it named as the first error and the task's
device, stream and retcode never said."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.parsers import logs
from tests import heldout
from tests.conftest import DATA
from tests.test_parsers_heldout_set569 import each_linear

HELDOUT = DATA / "evidence_heldout_69"

PYPTO = "cann_kernel_launch_507018_aicpu_kfc_nullptr_device0_pypto_faq.log"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")

_CALLBACK = (
    "ErrorTracking callback in, task_id = {task}, stream_id = 3.\n"
    "[ERROR] Exception Type: {kind}\n"
    "taskid: {task}, streamid: 3, tid: 6495, deviceid: {dev}, retcode: {code}\n"
    "kernelName = {kernel}\n"
)
_DEVICE_LOG = (
    "~/ascend/log/debug/device-{dev}/device-6495_20251222194004973.log\n"
    "[ERROR] CCECPU(5670,aicpu_scheduler):2025-12-22-19:40:01.899.541 [ae_kernel_lib_aicpu_kfc.cpp"
    ":105][CallKernelApi][tid:5680][AICPU_PROCESSER] Get KFC DynTileFwkKernelServerInit api "
    "success, but func is nullptr: (null)\n"
)


def _callback(task: int = 0, dev: int = 0, code: int = 507018, **kw: str) -> str:
    return _CALLBACK.format(
        task=task,
        dev=dev,
        code=code,
        kind=kw.get("kind", "exception invalid error"),
        kernel=kw.get("kernel", "(null)"),
    )


# --- the exception callback's failed task, the device's AI CPU log under it ---------------------


def test_the_exception_callbacks_task_is_the_failure_with_its_device_log() -> None:
    # the runtime's report of the failed task (lines 2-4) is the first failure: its device,
    # stream, task and retcode 507018 (ACL_ERROR_RT_AICPU_EXCEPTION), the second task's report a
    # repeat of it, and the device's AI CPU line (11) said as why
    ev = _load(PYPTO)
    assert ev.files[0].formats == ["log"]
    (failure,) = ev.failures
    assert (failure["kind"], failure["line"]) == ("npu_runtime_error", 4)
    assert (failure["code"], failure["code_name"]) == ("507018", "ACL_ERROR_RT_AICPU_EXCEPTION")
    assert failure["device"] == 0
    assert failure["repeated_lines"] == [8]
    said = failure["exception_type"]
    assert said.startswith("the failed task: device 0, stream 3, task 0,")
    assert "'exception invalid error'" in said
    assert "CCECPU's first ERROR line: Get KFC DynTileFwkKernelServerInit api success, " in said
    assert said.endswith("func is nullptr: (null) (line 11)")
    # nothing invented: no process (tid 6495 is a thread), rank, call, nor the "(null)" kernel
    assert (failure["pid"], failure["rank"], failure["call"]) == (None, None, None)
    assert "kernel " not in said
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-npu-runtime-error", "critical")]
    (item,) = heldout.items(outcome, "evidence-npu-runtime-error")
    assert "(device 0): the runtime reported 507018 = ACL_ERROR_RT_AICPU_EXCEPTION: " in item
    assert "the failed task: device 0, stream 3, task 0" in item
    assert "line 4; the same process again on 1 more line(s): 8)" in item


def test_a_prefixed_callback_on_another_device_names_its_kernel(tmp_path: Path) -> None:
    # a collector's time stamps before each line, device 5, an AI Core exception with its
    # kernel's name, and no device log under it
    text = "".join(
        f"2026-01-05 10:00:0{i} {line}\n"
        for i, line in enumerate(
            _callback(
                dev=5, code=507015, kind="exception aicore error", kernel="MatMulV3_1a2b"
            ).splitlines()
        )
    )
    (failure,) = _write(tmp_path, text).failures
    assert (failure["kind"], failure["line"], failure["device"]) == ("npu_runtime_error", 3, 5)
    assert failure["code_name"] == "ACL_ERROR_RT_AICORE_EXCEPTION"
    assert failure["exception_type"] == (
        "the failed task: device 5, stream 3, task 0, as the program's exception callback "
        "printed it (type 'exception aicore error'), kernel MatMulV3_1a2b"
    )
    assert failure["repeated_lines"] is None


def test_another_devices_log_is_not_said_of_the_task(tmp_path: Path) -> None:
    # the callback's task on device 1, the log under it device 0's: said of no task
    ev = _write(tmp_path, _callback(dev=1) + _DEVICE_LOG.format(dev=0))
    (failure,) = ev.failures
    assert failure["device"] == 1
    assert "CCECPU" not in failure["exception_type"]
    assert "nullptr" not in failure["exception_type"]


def test_the_retcode_line_alone_cut_from_its_block_is_read(tmp_path: Path) -> None:
    # a copy that kept only the struct's line, two devices' tasks: two failures, each its own
    text = (
        "taskid: 7, streamid: 2, tid: 100, deviceid: 0, retcode: 507018\n"
        "taskid: 9, streamid: 2, tid: 101, deviceid: 3, retcode: 507018\n"
    )
    failures = _write(tmp_path, text).failures
    assert [(f["line"], f["device"], f["code"]) for f in failures] == [
        (1, 0, "507018"),
        (2, 3, "507018"),
    ]
    assert all("type " not in f["exception_type"] for f in failures)


def test_the_callback_patterns_are_linear() -> None:
    each_linear(
        [
            (logs._EXCEPTION_INFO_RE.search, "taskid: 1, streamid: " + "1" * 99_990),
            (logs._EXCEPTION_INFO_RE.search, "task_id: 1, " * 8_400),
            (logs._EXCEPTION_TYPE_RE.search, "Exception Type: x" + " " * 99_990 + "\t"),
            (logs._EXCEPTION_KERNEL_RE.search, "kernelName = " * 8_000),
            (logs._PLOG_TAGS_RE.search, "[a]" * 40_000),
            (logs._PLOG_TAGS_RE.search, "[" + "a" * 99_999),
        ]
    )
