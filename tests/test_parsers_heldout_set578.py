"""Outputs of round YYY's held-out set 578 that the advisor read wrong, or with smaller faults,
before this change (tests/data/evidence_heldout_62, sources in tests/data/SOURCES.md): CANN plogs
of several processes whose device memory ran out, an SGLang AI Core time-out on NPU, a vLLM
worker's EL0004 relayed by its engine core, an NPU out-of-memory with no time-out after it."""

from __future__ import annotations

from functools import partial

from advisor.evidence.load import EvidenceFacts
from advisor.parsers import logs
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings
from tests.test_parsers_heldout_set569 import each_linear

HELDOUT = DATA / "evidence_heldout_62"

PLOG_OOM = "cann_plog_concat_runtime_drv_halMemAlloc_failed_dev0_dev1_207001_vl_memleak.log"
SGLANG_AICORE_TIMEOUT = (
    "sglang_ascend_a3_glm_image_ar_tp1_device1_EZ9999_aicore_timeout_507014_hccl_watchdog_abort_"
    "cut.log"
)
EL0004_RELAYED = (
    "vllm_ascend_0110_tp2_qwen3vl32b_enginecore_EL0004_device0_selfattention_500s_terminal_"
    "wrapped.log"
)
CI_OOM = "vllm_ascend_ci_e2e_pytest_worker_tp0_npu0_oom_98MiB_16MiB_free_leftover_process.log"


_load = partial(heldout.load, HELDOUT)


def _bad(ev: EvidenceFacts, backend: str = "hccl") -> list[str]:
    """The rules that found something critical or a warning: the verdict's reasons."""
    found = heldout.found(ev, backend)
    return sorted(k for k, f in found.items() if f.severity in ("critical", "warning"))


def test_joined_plogs_whose_device_memory_ran_out_are_each_processs_out_of_memory() -> None:
    ev = _load(PLOG_OOM)
    # the driver's refusals (drvRetCode 6, out of memory): one a process and device, its later
    # refusals its repeated lines; no HCCL failure is said, the file has no HCCL line
    oom = [f for f in ev.failures if f["kind"] == "device_oom"]
    assert [(f["pid"], f["device"], f["line"]) for f in oom] == [
        (2070482, 1, 1),
        (1993875, 1, 25),
        (1993874, 0, 42),
    ]
    assert oom[1]["repeated_lines"] == [59, 95, 129, 165, 199]
    assert oom[2]["repeated_lines"] == [77, 112, 147, 182, 217]
    assert oom[0]["exception_type"] == (
        "the driver could not allocate 306184192 B of device memory (halMemAlloc: drvRetCode 6, "
        "DRV_ERROR_OUT_OF_MEMORY)"
    )
    # every one of the 7 runtime results (207001) is said: one failed call a process
    runtime = [f for f in ev.failures if f["kind"] == "npu_runtime_error"]
    assert [(f["pid"], f["line"], f["repeated_lines"]) for f in runtime] == [
        (2070482, 2, None),
        (1993875, 60, [130, 200]),
        (1993874, 78, [148, 218]),
    ]
    assert {f["code"] for f in runtime} == {"207001"}
    assert not [f for f in ev.failures if f["kind"] not in ("device_oom", "npu_runtime_error")]
    assert _bad(ev) == ["evidence-device-out-of-memory", "evidence-npu-runtime-error"]
    found = heldout.found(ev, "hccl")
    memory = found["evidence-device-out-of-memory"]
    assert memory.category == "training"
    assert memory.message == "3 out-of-memory error(s) (NPU driver): the process stopped."
    assert "line 25; the same on 5 more line(s): 59, 95, 129, 165, 199)" in memory.items[1]
    calls = found["evidence-npu-runtime-error"]
    assert calls.message.startswith("3 NPU runtime call(s) failed (207001)")
    assert "line 60; the same process again on 2 more line(s): 130, 200)" in calls.items[1]
    said = " ".join([memory.message, *memory.items, calls.message, *calls.items])
    assert "HCCL" not in said and "time-out" not in said


def test_the_drivers_refusal_reads_in_each_runtimes_wording() -> None:
    # the newest runtime's words (hicann/runtime npu_driver_mem.cc "Call driver api halMemAlloc
    # failed, drvRetCode=%d, size=..., drvDevId=%u"), behind a grep's file name, and a WARNING
    # line (a refusal the runtime goes on past, trying another memory type) read as none
    report = logs.parse(
        "plog/plog-4242_1.log:7:[WARNING] RUNTIME(4242,python):2026-01-08-12:04:58.967.582 "
        "[npu_driver.cc:1457]4242 DevMemAllocHugePageManaged:[drv api] halMemAlloc "
        "failed:size=419430400(bytes), type=0, moduleId=33, drvFlag=1, drvRetCode=6, "
        "device_id=5!\n"
        "plog/plog-4242_1.log:8:[ERROR] RUNTIME(4242,python):2026-01-08-12:04:58.967.600 "
        "[npu_driver_mem.cc:210]4242 DevMemAllocManaged:Call driver api halMemAlloc failed, "
        "drvRetCode=6, size=419430400(bytes), type=0, moduleId=33, drvFlag=0x21000000000001, "
        "drvDevId=5, driver error:out of memory.\n"
    )
    (oom,) = report.of_kind("device_oom")
    assert (oom.line, oom.pid, oom.device) == (2, 4242, 5)
    assert "could not allocate 419430400 B" in (oom.exception_type or "")
    # (a refusal of another code is no out-of-memory: drvRetCode 6 only)
    other = logs.parse(
        "[ERROR] RUNTIME(9,):2026-01-08-12:04:58.967.582 [npu_driver.cc:1579]9 DevMemAllocManaged:"
        "[drv api] halMemAlloc failed:size=4096(bytes), type=0, moduleId=33, drvFlag=1, "
        "drvRetCode=3, device_id=0, ErrCode=207000\n"
    )
    assert not other.of_kind("device_oom")


def test_a_runtime_error_of_another_process_is_no_hccl_failure() -> None:
    # a runtime ERROR line above another process's runtime failure, in joined plogs with no HCCL
    # line: said as the runtime's error, never "before HCCL's failure"
    report = logs.parse(
        "[ERROR] RUNTIME(11,):2026-01-09-02:28:27.541.034 [stream.cc:10]11 Sync: stream sync "
        "failed, device_id=1\n"
        "[ERROR] RUNTIME(12,):2026-01-09-02:28:28.541.034 [stream.cc:10]12 Sync: stream sync "
        "failed, device_id=0\n"
        "[ERROR] ASCENDCL(12,):2026-01-09-02:28:28.541.046 [stream.cpp:163]12 aclrtSynchronize"
        "Stream: synchronize stream failed, runtime result = 507011\n"
    )
    plog = report.of_kind("hccl_plog_error")
    assert plog and not any("HCCL" in (e.exception_type or "") for e in plog)


def test_the_runtime_call_under_a_cann_code_is_counted_with_the_others() -> None:
    ev = _load(SGLANG_AICORE_TIMEOUT)
    (coded,) = [f for f in ev.failures if f["kind"] == "hccl_error" and f["code"] == "EZ9999"]
    assert (coded["line"], coded["call"], coded["device"]) == (39, "rtMemcpyAsync", 1)
    (runtime,) = [f for f in ev.failures if f["kind"] == "npu_runtime_error"]
    assert (runtime["line"], runtime["call"], runtime["code"]) == (
        47,
        "AclQueryEventRecordedStatus",
        "507014",
    )
    found = heldout.found(ev, "hccl")
    # both calls that returned 507014 are said where the count is: line 47's, and line 42's
    # rtMemcpyAsync read under EZ9999 (line 39)
    assert found["evidence-npu-runtime-error"].message == (
        "1 NPU runtime call(s) failed (507014), and rtMemcpyAsync returned 507014 under EZ9999 "
        "(line 39, in that code's finding): the process stopped on its device."
    )
    assert _bad(ev) == [
        "evidence-hccl-other-error",
        "evidence-npu-runtime-error",
        "evidence-watchdog-exception",
    ]


def test_the_runtime_result_under_a_workers_code_is_the_workers_not_its_relays() -> None:
    ev = _load(EL0004_RELAYED)
    (oom,) = [f for f in ev.failures if f["kind"] == "device_oom"]
    assert (oom["line"], oom["pid"], oom["device"]) == (37, 10652, 0)
    (runtime,) = [f for f in ev.failures if f["kind"] == "npu_runtime_error"]
    # the engine core (pid 10516) prints the worker's lines under its own prefix: the failed
    # allocation is the worker's, the process EL0004's "[PID: 10652]" names
    assert (runtime["line"], runtime["code"], runtime["pid"]) == (43, "207001", 10652)
    assert runtime.get("worker") is None
    found = heldout.found(ev, "hccl")
    (item,) = found["evidence-npu-runtime-error"].items
    assert item.startswith("Process 10652: alloc device memory returned 207001")
    assert "EngineCore" not in item and "10516" not in item
    assert found["evidence-device-out-of-memory"].message == (
        "1 out-of-memory error(s) (NPU): the process stopped."
    )


def test_an_out_of_memory_with_no_time_out_after_it_says_none() -> None:
    ev = _load(CI_OOM)
    (oom,) = [f for f in ev.failures if f["kind"] == "device_oom"]
    assert (oom["line"], oom["pid"], oom["device"]) == (68, 34941, 0)
    # (its figures, 6.65 GiB reserved of 60.96 GiB and 16.81 MiB free: the rest held outside it)
    assert oom["exception_type"].startswith(
        "tried to allocate 98.00 MiB, 16.81 MiB free; 60.96 GiB total, 6.38 GiB allocated by this "
        "process (6.65 GiB reserved): the other 54.29 GiB is held outside"
    )
    assert not [f for f in ev.failures if "timeout" in f["kind"]]
    found = heldout.found(ev, "hccl")
    assert "time-out" not in found["evidence-device-out-of-memory"].message
    # where the other ranks' watchdogs did time out, the consequence is said
    timed_out = [*ev.failures, {**oom, "kind": "watchdog_timeout", "line": 90, "rank": 1}]
    again = builtin_findings({"evidence.failures": timed_out}, "hccl")
    assert again["evidence-device-out-of-memory"].message.endswith(
        "the process stopped; the other ranks' time-outs that follow are its consequence."
    )


def test_the_new_patterns_are_linear_on_a_long_line_and_many_blank_lines() -> None:
    each_linear(
        [
            (logs._HAL_MEM_ALLOC_OOM_RE.search, "halMemAlloc failed:size=1(bytes)," * 3_100),
            (
                logs._HAL_MEM_ALLOC_OOM_RE.search,
                "halMemAlloc failed, drvRetCode=6, size=1(bytes)," * 2_100,
            ),
            (logs._BLOCK_PID_RE.search, "[PID: " * 17_000),
        ]
    )
