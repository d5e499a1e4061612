"""Review 43 of rounds WWW/XXX's readings (an sglang server stopped by SIGTERM, a vLLM worker's
traceback whole, under doubled line breaks or a per-line clock and in a crash-looping log, a
refused nvidia-smi -r then the reset, the NVIDIA device plugin restarted, one NPU at half its
peers' computing power, NVVS's test result, torchrun's Root Cause quote, MindCluster's
documented npu-smi CSV, a report's code span below its prose): each fault it found, on its input
(tests/data/review43, described in tests/data/SOURCES.md), with the earlier samples
(tests/data/evidence_heldout_60 and _61) read as before."""

from __future__ import annotations

import re
import time

from advisor.evidence.load import EvidenceFacts, load_paths, load_text
from advisor.parsers import logs, npu_smi
from tests import heldout
from tests.conftest import DATA
from tests.test_parsers_heldout_set569 import each_linear

REVIEW = DATA / "review43"
SET_61 = DATA / "evidence_heldout_61"
WORKER_ASSERT = (
    "vllm_ascend2396_shape_worker_start_failed_bare_assertionerror_whole_traceback_said_cut.log"
)


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def test_an_sglang_server_that_ran_decode_batches_then_got_sigterm_is_a_note() -> None:
    ev = _load(
        "sglang_server_tail_decode_batches_200ok_then_sigterm_rolling_update_no_prefill_line.log"
    )
    assert ev.failures == []
    (stop,) = [s for s in heldout.said(ev) if "SIGTERM" in s]
    assert stop == (
        "log: sglang's engine was stopped by a SIGTERM from outside after it had run batches (a "
        "batch's or an answered request's line, line 1); it drained its requests and said none "
        "was left (line 13); its detokenizer (pid 4121) exited with -15 (line 14), that SIGTERM: "
        "sglang's subprocess watchdog calls any non-zero exit a crash and answers it with "
        "SIGQUIT (line 15), no cause of its own"
    )
    # (the SIGQUIT line it explains is no error line of an unknown log either)
    assert heldout.rules_verdict(ev) == "READY"


def test_an_sglang_server_that_drained_no_request_is_a_note() -> None:
    ev = _load(
        "sglang_server_skip_warmup_ready_health_checks_then_sigterm_graceful_exit_0_requests.log"
    )
    assert ev.failures == []
    assert (
        "log: sglang's engine was stopped by a SIGTERM from outside; it drained its requests and "
        "said none was left (line 20)"
    ) in heldout.said(ev)
    assert heldout.rules_verdict(ev) == "READY"
    # (control: set 572's engine, no batch and no drain, a generate that never came back)
    ev = load_paths(
        [
            SET_61
            / "easyr1_npu_sglang_dsv4_1layer_engine_init_ok_generate_hang_sigterm_after_5min_"
            "detokenizer_exit_minus15.log"
        ]
    )
    (stop,) = ev.failures
    assert stop["exception_type"].startswith("sglang (its engine was stopped from outside")
    assert heldout.rules_verdict(ev) == "NOT READY"


def test_a_whole_worker_traceback_ending_in_a_bare_assertionerror_names_its_assert() -> None:
    ev = _load(WORKER_ASSERT)
    (worker,) = ev.failures
    assert (worker["kind"], worker["line"], worker["rank"], worker["pid"]) == (
        "launcher_exit",
        3,
        0,
        1274,
    )
    assert worker["exception_type"] == (
        "vLLM (its worker did not start: AssertionError: (no message; raised by: assert "
        "self.parallel_config.world_size <= torch.npu.device_count()) (line 18))"
    )


def test_an_exception_whatever_its_class_ends_in_ends_the_workers_traceback() -> None:
    head = "(VllmWorker rank=1 pid=9) ERROR 08-28 07:44:50 [multiproc_executor.py:492] "
    text = "".join(
        head + line + "\n"
        for line in (
            "WorkerProc failed to start.",
            "Traceback (most recent call last):",
            '  File "/w/worker.py", line 3, in compile_or_warm_up_model',
            "    self.model_runner.capture_model()",
            "triton.runtime.errors.OutOfResources: out of resource: shared memory",
        )
    )
    (worker,) = [e for e in logs.parse(text).events if e.kind == "launcher_exit"]
    assert worker.exception_type == (
        "vLLM (its worker did not start: triton.runtime.errors.OutOfResources: out of resource: "
        "shared memory (line 5))"
    )


def test_a_worker_traceback_under_doubled_line_breaks_or_a_clock_is_read_whole() -> None:
    for name, line, exception_line in (
        ("vllm_ascend2396_full_traceback_doubled_line_breaks_glm45_32.log", 5, 33),
        ("vllm_ascend2396_full_traceback_per_line_ms_clock_prefix.log", 3, 17),
    ):
        ev = _load(name)
        (worker,) = [f for f in ev.failures if f["kind"] == "launcher_exit"]
        assert (worker["line"], worker["rank"], worker["pid"], worker["worker"]) == (
            line,
            0,
            1274,
            "VllmWorker",
        ), name
        assert worker["exception_type"].startswith(
            "vLLM (its worker did not start: RuntimeError: SetDevice:"
        ), name
        assert f"error code is 507033 (line {exception_line})" in worker["exception_type"], name
    # (control: set 572's copy, cut inside the traceback, is still said to be cut)
    ev = load_paths(
        [
            SET_61 / "vllm_ascend2396_v091rc3_checklist_worker_pid1273_rtgetdevmsg_context_"
            "pointer_null_pid1274_workerproc_failed_to_start_cut.log"
        ]
    )
    (worker,) = ev.failures
    assert worker["exception_type"] == (
        "vLLM (its worker did not start; its traceback is cut before its exception, its last "
        "frame in init_device (line 10))"
    )


def _crash_loop(restarts: int) -> str:
    """The completed 2396 worker block for eight workers, a restart after another, each with new
    pids and 200 API-server lines between (the review's 81,600-line log at 300 restarts)."""
    block = (REVIEW / WORKER_ASSERT).read_text().splitlines()[2:]
    out = []
    for restart in range(restarts):
        for rank in range(8):
            pid = 10_000 + 10 * restart + rank
            out += [
                line.replace("rank=0 pid=1274", f"rank={rank} pid={pid}").replace(
                    "07:44:50", f"{7 + restart // 60:02d}:{restart % 60:02d}:00"
                )
                for line in block
            ]
        out += [f"INFO 08-28 07:00:00 [api_server.py:100] filler line {i}" for i in range(200)]
    return "\n".join(out) + "\n"


def test_worker_start_failures_take_linear_time_in_a_crash_looping_log() -> None:
    spent = []
    for restarts in (50, 200):
        text = _crash_loop(restarts)
        lines, raw = logs.numbered_lines(text), text.splitlines()
        tries = []
        # (the best of three: one pass on a host busy with other test workers, its caches
        # cold or a collection in the middle, once took 15 times the small log's time)
        for _ in range(3):
            report = logs.LogReport()
            start = time.process_time()
            logs._vllm_worker_start_failures(raw, lines, report)
            tries.append(time.process_time() - start)
            assert len(report.events) == 8 * restarts
        spent.append(min(tries))
    # (four times the log: about four times the time, not sixteen; each worker looked up the
    # engine client's line over the whole rest of the log before)
    assert spent[1] < 1.0
    assert spent[1] < 8 * spent[0] + 0.05, spent


def test_a_refused_gpu_reset_then_the_same_gpus_reset_is_a_note() -> None:
    ev = _load(
        "nvidia_smi_r_refused_in_use_then_pm0_same_gpu_successfully_reset_exit0_nvsentinel1690.txt"
    )
    assert ev.failures == []
    (note,) = heldout.said(ev)
    assert note.startswith(
        "log: nvidia-smi -r could not reset GPU 00000000:1A:00.0: In use by another client"
    )
    assert note.endswith(
        "; exit status 255; a later nvidia-smi -r reset it (line 13: 'GPU 00000000:1A:00.0 was "
        "successfully reset.')"
    )
    assert heldout.rules_verdict(ev) == "READY"
    # (the next command's exit status is not the refusal's; set 573's refusal alone still warns)
    text = (
        "The following GPUs could not be reset:\n"
        "  GPU 00000000:1A:00.0: In use by another client\n"
        "$ nvidia-smi -q\n"
        "exit=0\n"
    )
    (refused,) = [e for e in logs.parse(text).events if e.kind == "gpu_driver_error"]
    assert (refused.exit_code, refused.exception_type.endswith(": the GPU was not reset")) == (
        None,
        True,
    )
    ev = load_paths(
        [
            SET_61 / "nvidia_smi_r_gpu_reset_refused_00000000_1a_00_0_in_use_by_another_client_"
            "exit_255_nvsentinel1692.txt"
        ]
    )
    (fail,) = ev.failures
    assert fail["exit_code"] == 255
    assert heldout.rules_verdict(ev) == "READY WITH WARNINGS"


def test_a_device_plugin_that_registered_its_gpus_after_a_restart_is_a_note() -> None:
    ev = _load(
        "k8s_device_plugin_previous_no_devices_found_then_restarted_registered_nvidia_gpu_kdp414.log"
    )
    assert ev.failures == []
    assert (
        "log: an earlier run of the NVIDIA device plugin found no GPU to serve ('No devices "
        "found. Waiting indefinitely.'); a later run registered nvidia.com/gpu with kubelet "
        "(line 16): it serves the GPUs"
    ) in heldout.said(ev)
    assert heldout.rules_verdict(ev) == "READY"
    # (control: set 573's plugin that found none and registered nothing)
    ev = load_paths(
        [
            SET_61 / "k8s_device_plugin_no_devices_found_waiting_indefinitely_then_pod_nvidia_smi_"
            "470_74_cuda_version_na_cut_kdp414.log"
        ]
    )
    (fail,) = ev.failures
    assert fail["kind"] == "device_not_offered"


def test_an_npu_at_half_its_peers_computing_power_is_a_warning() -> None:
    ev = _load("ascend_dmi_f_8_devices_dev5_half_tflops_131_vs_262_others_not_judged.txt")
    (slow,) = ev.failures
    assert (slow["kind"], slow["line"], slow["device"]) == ("npu_compute_low", 12, 5)
    assert slow["exception_type"] == (
        "device 5: 131.072 TFLOPS@FP16, 50% of the run's median 262.144 over its 8 devices (3072 "
        "ms for the same 192,000,000 executions)"
    )
    assert heldout.found(ev, "hccl")["evidence-npu-compute-low"].severity == "warning"
    assert heldout.rules_verdict(ev, "hccl") == "READY WITH WARNINGS"
    assert len([s for s in heldout.said(ev) if s.endswith("in line with its peers")]) == 7
    # (control: set 565's run of one device is weighed against nothing)
    ev = load_paths(
        [
            DATA / "evidence_heldout_60" / "ascend_dmi_f_failed_to_load_libascendcl_so_then_after_"
            "set_env_dev0_262_tflops_fp16_mindx_dl_600_faq.txt"
        ]
    )
    assert not [f for f in ev.failures if f["kind"] == "npu_compute_low"]
    assert [s for s in heldout.said(ev) if s.endswith("figures with no health in them, not judged")]


def test_nvvs_logs_test_result_2_is_the_tests_fail_with_its_plugins_error() -> None:
    ev = _load("nvvs_log_dcgm423_pulse_test_plugin_error_cc12_test_had_result_2_fail_dcgm238.log")
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"], fail["pid"]) == ("dcgm_diag_log_error", 6, 71830)
    assert fail["exception_type"] == (
        "NVVS's test framework recorded test pulse_test's result as 2, NVVS_RESULT_FAIL: the test "
        "failed; its plugin's error: Incompatible CUDA compute capability major version: 12 "
        "(line 3)"
    )
    (note,) = [s for s in heldout.said(ev) if s.startswith("log: DCGM's diagnostic (NVVS")]
    assert note.endswith("; test result(s): pulse_test FAIL (line 6)")
    assert heldout.rules_verdict(ev) == "READY WITH WARNINGS"
    # (control: set 573's NVVS log of its package configuration, no test result in it)
    ev = load_paths(
        [
            SET_61 / "dcgmi_diag_r4_nvvs_errors_diag_skus_yaml_bad_file_config_package_missing_"
            "shutdownplugin_undefined_symbol_dcgm120.log"
        ]
    )
    (fail,) = ev.failures
    assert fail["exception_type"].startswith("NVVS could not read the diag configuration")
    (note,) = [s for s in heldout.said(ev) if s.startswith("log: DCGM's diagnostic (NVVS")]
    assert note.endswith("; no diagnostic result in these lines")


def test_torchruns_root_cause_quote_of_a_failed_call_is_no_third_process() -> None:
    ev = _load(
        "nccl_two_ranks_untagged_then_torchrun_root_cause_quotes_rank0_last_error_counted_three.log"
    )
    calls = [
        (f["line"], f["exception_type"]) for f in ev.failures if f["kind"] == "nccl_call_failure"
    ]
    assert calls == [
        (6, "[Proxy Service 2] Failed to execute operation Connect from rank 2, retcode 3"),
        (15, None),
    ]
    assert heldout.found(ev)["evidence-nccl-call-failed"].message.startswith(
        "2 NCCL call(s) returned an error"
    )
    # (control: set 570's interleaved processes, no summary: four failures, as before)
    ev = load_paths(
        [
            DATA / "evidence_heldout_60" / "megatron792_distopt_odd_dp_p2p_recv_nccl2193_system_"
            "error_proxy_service_connect_rank2_retcode3_cut.log"
        ]
    )
    assert [f["line"] for f in ev.failures if f["kind"] == "nccl_call_failure"] == [1, 8, 12, 16]


def test_mindclusters_documented_eight_columns_are_read_as_its_check_reads_them() -> None:
    ev = _load(
        "mindcluster_npu_smi_2_details_documented_8_columns_rated_freq_aicore_rate_dev2_800mhz.csv"
    )
    (report,) = ev.files
    assert (report.status, report.formats) == ("read", ["npu_smi_details"])
    # (its six samples at 800 hold two with aicore_rate 0, which NPUChecker drops before it
    # counts four in a row: 2 and 2 busy ones, no reduction by its check)
    assert ev.failures == []
    (note,) = heldout.said(ev)
    assert (
        "; rated_freq 1000; 2 sample(s) under its rated_freq 1000 (the CSV's own column) with "
        in note
    )
    # the same samples busy throughout: the reduction, against the CSV's own rating
    head = "time,dev_id,hbm_rate,aicore_rate,rated_freq,freq,temp,power\n"
    rows = "".join(
        f"{100 + 15 * i},2,0,85,1000,{800 if 3 <= i <= 8 else 1000},41,140\n" for i in range(12)
    )
    ev = load_text(head + rows, "npu_smi_2_details.csv")
    (slow,) = ev.failures
    assert (slow["kind"], slow["code"], slow["line"]) == (
        "npu_freq_reduced",
        "NODE_RES_ABNORMAL_01",
        5,
    )
    assert slow["exception_type"].startswith(
        "device 2: freq under its rated_freq 1000 (the CSV's own column), down to 800, for 6 "
        "samples in a row"
    )
    # (a part rated 800 running at 800 is at its rating)
    ev = load_text(head + rows.replace(",1000,", ",800,"), "npu_smi_2_details.csv")
    assert ev.failures == []
    # (control: set 571's five columns, read as before)
    ev = load_paths(
        [SET_61 / "mindcluster_npu_smi_2_details_csv_dev2_freq_1000_to_800_at_40_43c.csv"]
    )
    (slow,) = ev.failures
    assert (slow["code"], slow["line"]) == ("NODE_RES_ABNORMAL_01", 10)


def test_an_output_in_a_code_span_below_the_reporters_prose_is_read() -> None:
    ev = _load("nvbandwidth61_backticks_with_the_reporters_prose_line_and_its_own_code_span.log")
    (report,) = ev.files
    assert (report.status, report.formats) == ("read", ["nvbandwidth"])
    (run,) = ev.gpu_copy
    assert (run["version"], run["driver"], len(run["devices"])) == ("v0.8", "580.126.09", 8)
    (failed,) = run["failed"]
    # (every line kept: the prose line is line 1, set 573's copy read it on line 19)
    assert (failed["line"], failed["test"]) == (20, "host_to_device_memcpy_ce")
    assert failed["message"].startswith("[cudaErrorUnsupportedPtxVersion]")
    # (one line of code spans alone, a command's name, is no pasted output)
    assert load_text("see `nvbandwidth -t 0` and `nvidia-smi`\n", "x.log").files[0].status != "read"


def test_the_new_patterns_are_linear_on_a_long_line_and_many_blank_lines() -> None:
    cases = [
        (logs._SGLANG_BATCH_RAN_RE.search, '"POST /' + "a" * 100_000),
        (logs._SGLANG_BATCH_RAN_RE.search, "Decode batch " * 8_000),
        (logs._SGLANG_DRAINED_RE.search, "Gracefully exiting... " * 5_000),
        (logs._TRACEBACK_EXCEPTION_RE.match, "a" * 100_000 + "!"),
        (logs._TRACEBACK_EXCEPTION_RE.match, "a." * 50_000 + "!"),
        (logs._LINE_CLOCK_RE.match, "1" * 100_000 + "x"),
        (logs._SMI_RESET_DONE_RE.match, " " * 100_000 + "x"),
        (logs._NVIDIA_PLUGIN_REGISTERED_RE.search, "Registered device plugin for '" * 3_500),
        (logs._NVVS_TEST_RESULT_RE.match, "Test " + "a" * 100_000),
        (logs._NVVS_PLUGIN_TAG_RE.match, "[[" + "a" * 100_000),
        (re.compile(npu_smi.DETAILS_CSV_SIGNATURE, re.M).search, "time,dev_id" + ",freq" * 20_000),
    ]
    each_linear(cases)
