"""Outputs of round HHHH's held-out evaluation (set 632, Ascend logs: torch_npu, CANN, vLLM-Ascend)
that the advisor read in part or not at all before this change (tests/data/evidence_heldout_68,
sources in tests/data/SOURCES.md): a CI job's "EngineCore encountered a fatal error." above a cut
traceback, in a logger's format of no level it knew, not cited (read since by set 636's reading
of the engine core's fatal error, kept here as this set's sample); a worker's E39999 heading and its
facts line, two processes' prefixed lines alternating between them, read as two errors (the
heading glued to the other process's caret line), its TsdOpen failure not read; vLLM's serving
benchmark report alone, "no supported format recognised"."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.parsers import logs
from tests import heldout
from tests.conftest import DATA
from tests.test_parsers_heldout_set569 import each_linear

HELDOUT = DATA / "evidence_heldout_68"

FATAL = "vllm_ascend10094_ci_job_log_indented_uc_e_enginecore_fatal_error_cut.log"
TSD = "vime434_npu_dp_weight_update_interleaved_worker_prefixes_e39999_tsdopen_devid9_cut.log"
BENCH = "vllm_ascend11751_bench_serve_qwen3_vl_8b_200_of_200_ok_healthy_cut.log"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


# --- the engine core's fatal error above a cut traceback ------------------------------------------


def test_the_fatal_error_line_above_a_cut_traceback_is_its_first_line() -> None:
    # (read by set 636's reading of vLLM's engine core's fatal error, in a logger's format whose
    # "[E]" level the advisor does not know, the traceback under it cut)
    ev = _load(FATAL)
    (failed,) = ev.failures
    assert (failed["kind"], failed["line"]) == ("launcher_exit", 1)
    assert failed["message"] == (
        "[2026-05-31 11:54:25.295048][UC][E] EngineCore encountered a fatal error."
    )
    assert "met a fatal error while serving" in failed["exception_type"]
    # (nothing in the copy names a device, a rank or a process)
    assert (failed["device"], failed["rank"], failed["pid"]) == (None, None, None)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert "line 1)" in str(outcome.findings)
    assert "line 2)" not in str(outcome.findings)


# --- an "Inner Error!" heading between two processes' alternating lines -------------------------


def test_the_e39999_heading_and_its_tsdopen_line_are_one_device_that_did_not_start() -> None:
    ev = _load(TSD)
    (failed,) = ev.failures
    assert (failed["kind"], failed["code"], failed["line"]) == ("hccl_error", "E39999", 8)
    assert (failed["device"], failed["pid"], failed["call"]) == (9, 3600530, "TsdOpen")
    # (the executor's own caret line between is not the worker's message)
    assert "^^^" not in failed["message"] and "Inner Error!" not in failed["message"]
    assert failed["message"].endswith(
        "E39999[PID: 3600530] 2026-09-15-13:02:35.314.621 (E39999):  TsdOpen failed. devId=9, "
        "tdt error=1[FUNC:PrintfTsdError][FILE:runtime.cc][LINE:2638]"
    )
    assert failed["exception_type"] == (
        "device 9 did not start: its TSD client could not open it (TsdOpen failed, tdt error 1); "
        'torch_npu\'s words above it, line 2: "Failed to start the device."'
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-hccl-other-error", "critical")]
    (item,) = heldout.items(outcome, "evidence-hccl-other-error")
    # (set 692: the worker its prefix names, the inner one with the error's own PID, is said)
    assert item.startswith("E39999 on Worker under VLLMEngine (pid 3600530) (device 9): ")
    assert "device 9 did not start" in item and "line 8)" in item


def test_a_heading_finds_its_facts_past_another_process_line(tmp_path: Path) -> None:
    # (Ray's tags instead of vLLM's, another code, three processes' lines between)
    worker = "(RayWorkerWrapper pid=51, ip=10.0.0.2) "
    other = "(EngineCore_DP0 pid=40) ERROR 09-15 13:02:43 [core.py:870]   "
    ev = _write(
        tmp_path,
        f"{worker}EI9999: Inner Error!\n"
        f'{other}File "/x.py", line 3, in f\n'
        f"{other}    ^^^^^^^^^^\n"
        f"{worker}EI9999[PID: 51] 2026-09-15-13:02:35.314.621 (EI9999):  TsdOpen failed. "
        "devId=3, tdt error=34[FUNC:PrintfTsdError][FILE:runtime.cc][LINE:2638]\n",
    )
    (failed,) = [f for f in ev.failures if f["kind"] == "hccl_error"]
    assert (failed["code"], failed["line"], failed["device"]) == ("EI9999", 4, 3)
    assert failed["exception_type"] == (
        "device 3 did not start: its TSD client could not open it (TsdOpen failed, tdt error 34)"
    )


def test_an_unprefixed_heading_still_takes_its_next_line(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "[Error]: Failed to start the device.\n"
        "        Rectify the fault based on the error information in the ascend log.\n"
        "E39999: Inner Error!\n"
        "E39999[PID: 7] 2026-09-15-13:02:35.314.621 (E39999):  TsdOpen failed. devId=0, "
        "tdt error=1[FUNC:PrintfTsdError][FILE:runtime.cc][LINE:2638]\n",
    )
    (failed,) = ev.failures
    assert (failed["code"], failed["line"], failed["device"], failed["pid"]) == ("E39999", 4, 0, 7)
    assert failed["exception_type"].endswith('line 1: "Failed to start the device."')


# --- vLLM's serving benchmark report ------------------------------------------------------------


def test_a_serving_benchmark_report_alone_is_read_healthy() -> None:
    ev = _load(BENCH)
    assert (ev.files[0].formats, ev.failures) == (["log"], [])
    assert heldout.said(ev) == [
        "log: vLLM's serving benchmark report: 200 request(s) succeeded, 0 failed; 0.98 req/s, "
        "output 125.64 tok/s, mean TTFT 98.12 ms, P99 TTFT 153.96 ms, mean TPOT 29.25 ms, over "
        "203.76 s"
    ]
    level, outcome = heldout.imported(ev)
    assert (level, heldout.above_info(outcome)) == ("READY", [])


def test_failed_requests_are_a_warning_and_an_older_report_is_read(tmp_path: Path) -> None:
    rows = (
        "============ Serving Benchmark Result ============\n"
        "Successful requests:                     190       \n"
        "Failed requests:                         10        \n"
        "Benchmark duration (s):                  203.76    \n"
        "---------------Time to First Token----------------\n"
        "Mean TTFT (ms):                          98.12     \n"
        "==================================================\n"
    )
    ev = _write(tmp_path, rows)
    (failed,) = ev.failures
    assert (failed["kind"], failed["line"]) == ("log_error", 3)
    assert failed["exception_type"].startswith(
        "vLLM's serving benchmark: 10 of 200 request(s) failed"
    )
    level, outcome = heldout.imported(ev)
    assert (level, heldout.above_info(outcome)) == (
        "READY WITH WARNINGS",
        [("evidence-log-error", "warning")],
    )
    # a commented copy of an older release's report (no failed count), another run after it
    old = "".join(
        f"# {line}\n"
        for line in (
            "============ Serving Benchmark Result ============",
            "Successful requests:                     32        ",
            "Max request concurrency:                 not set   ",
            "Request throughput (req/s):              0.21      ",
            "==================================================",
            "",
            "============ Serving Benchmark Result ============",
            "Successful requests:                     32        ",
            "Request throughput (req/s):              0.16      ",
        )
    )
    ev = _write(tmp_path, old)
    assert ev.failures == []
    assert heldout.said(ev) == [
        "log: vLLM's serving benchmark report: 32 request(s) succeeded, no count of failed ones "
        f"(an older release's); {rate} req/s"
        for rate in ("0.21", "0.16")
    ]


def test_a_report_beside_a_servers_error_line_is_read_the_usual_way(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "ERROR 08-20 10:00:00 [api_server.py:1] RuntimeError: the engine died\n"
        "============ Serving Benchmark Result ============\n"
        "Successful requests:                     0         \n"
        "Failed requests:                         200       \n",
    )
    assert [f["line"] for f in ev.failures][:1] == [1]


def test_the_benchmark_patterns_are_linear() -> None:
    each_linear(
        [
            (logs._BENCH_ROW_RE.search, "Mean TTFT (ms):" + " " * 99_990 + "x"),
            (logs._BENCH_ROW_RE.search, "a" * 100_000),
            (logs._BENCH_RULE_RE.search, "---- " * 20_000),
            (logs._BENCH_RULE_RE.search, " -" * 50_000),
            (logs.has_bench_serve_report, "Serving Benchmark Result\n" + "a:" * 50_000),
        ]
    )
