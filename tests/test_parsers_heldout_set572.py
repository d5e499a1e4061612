"""Outputs of round XXX's held-out set 572 that the advisor read wrong or not at all before this
change (tests/data/evidence_heldout_61, sources in tests/data/SOURCES.md): vLLM-Ascend workers
that did not start, an sglang engine on NPU stopped from outside, MindSpore training loops."""

from __future__ import annotations

import re
import time
from functools import partial

from advisor.evidence.load import EvidenceFacts
from advisor.parsers import VLLM_DP_ENGINE_RE, logs
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_61"

WORKER_SETCOMPILEOPT = (
    "vllm_ascend2315_310p3_v092rc1_tp2_rank0_pid357_setcompileopt_500001_eh9999_platforminfo_"
    "soc_ascend910b_err99999_ocr.log"
)
DP_ENGINE_SET_DEVICE = (
    "vllm_ascend1558_v091rc1_dp_enginecore1_worker_rank0_pid114020_set_device_507033_err00100_"
    "rankid1_cut.log"
)
WORKER_CUT = (
    "vllm_ascend2396_v091rc3_checklist_worker_pid1273_rtgetdevmsg_context_pointer_null_pid1274_"
    "workerproc_failed_to_start_cut.log"
)
SGLANG_SIGTERM = (
    "easyr1_npu_sglang_dsv4_1layer_engine_init_ok_generate_hang_sigterm_after_5min_detokenizer_"
    "exit_minus15.log"
)
GLUED_LABEL_LOSS = (
    "mindaudio90_wavegrad_ljspeech_8p_ascend_graph_pynative_regression_epoch1_steps10_17_loss_0_"
    "67_to_0_47_healthy.log"
)
RESNET_EPOCHS = (
    "mindcluster_elastic_doc_resnet50_resume_ckpt_39_epochs_40_49_of_90_loss_3_47_to_2_71_per_"
    "step_92ms_healthy_indented.log"
)


_load = partial(heldout.load, HELDOUT)


def _bad(ev: EvidenceFacts) -> list[str]:
    """The rules that found something critical or a warning: the verdict's reasons."""
    return sorted(k for k, f in heldout.found(ev).items() if f.severity in ("critical", "warning"))


def test_a_vllm_worker_that_did_not_start_is_said_with_the_exception_it_raised() -> None:
    ev = _load(WORKER_SETCOMPILEOPT)
    (worker,) = [f for f in ev.failures if f["kind"] == "launcher_exit"]
    # (only the EH9999 under it was read: the worker, its exception and the acl call not said)
    assert (worker["line"], worker["rank"], worker["pid"]) == (28, 0, 357)
    assert worker["message"] == "(vllmworker rank=0 pid=357) WorkerProc failed to start."
    assert worker["exception_type"].startswith(
        "vLLM (its worker did not start: RuntimeError: SetPrecisionMode:"
    )
    assert (
        "aclrtSetCompileOpt(aclCompileOpt::ACL_PRECISION_MODE, precision_mode), error code is "
        "500001 (line 42); aclrtSetCompileOpt returned 500001 = ACL_ERROR_FAILURE, an internal "
        "error; its engine client then raised 'RuntimeError: Engine core initialization failed. "
        "See root cause above. Failed core proc(s): [0]' (line 169))"
    ) in worker["exception_type"]
    # the CANN code under it is still said, and the launcher's ERR99999 is not the cause
    (code,) = [f for f in ev.failures if f["kind"] == "hccl_error"]
    assert (code["code"], code["line"], code["pid"]) == ("EH9999", 46, 357)
    assert not [f for f in ev.failures if f.get("torch_npu_code") == "ERR99999"]
    assert _bad(ev) == ["evidence-hccl-other-error", "evidence-launcher-exit"]


def test_a_cut_worker_traceback_is_a_worker_that_did_not_start() -> None:
    ev = _load(WORKER_CUT)
    # (read as a program's log in no form the advisor knows, READY WITH WARNINGS)
    (worker,) = ev.failures
    assert (worker["kind"], worker["line"], worker["pid"]) == ("launcher_exit", 3, 1274)
    assert worker["exception_type"] == (
        "vLLM (its worker did not start; its traceback is cut before its exception, its last "
        "frame in init_device (line 10))"
    )
    (note,) = [m for f in ev.files for m in f.messages]
    assert note.line == 1
    assert note.message == (
        "log: another vLLM worker (pid 1273) logged an ERROR line just above: 'The argument is "
        "invalid.Reason: rtGetDevMsg execute failed, reason=[context pointer null]' (indented: "
        "the rest of a message whose first lines the copy does not hold)"
    )
    assert _bad(ev) == ["evidence-launcher-exit"]
    assert heldout.found(ev)["evidence-launcher-exit"].severity == "critical"


def test_a_worker_of_a_data_parallel_engine_is_named_by_its_engine_and_rank_id() -> None:
    ev = _load(DP_ENGINE_SET_DEVICE)
    (fail,) = ev.failures
    # (its "rank=0" was taken for the job's rank 0: every DP engine has a worker rank 0)
    assert (fail["kind"], fail["code"], fail["line"]) == ("npu_runtime_error", "507033", 5)
    assert (fail["rank"], fail["pid"]) == (1, 114020)  # torch_npu's "RankID:1" (line 6)
    assert fail["worker"] == "VllmWorker rank=0 of EngineCore_1, vLLM's data-parallel engine 1"
    (item,) = heldout.found(ev)["evidence-npu-runtime-error"].items
    assert str(item).startswith(
        "Rank 1 (VllmWorker rank=0 of EngineCore_1, vLLM's data-parallel engine 1, pid 114020): "
        "SetDevice returned 507033 = ACL_ERROR_RT_DEV_SETUP_ERROR"
    )


def test_a_rank_tag_under_the_first_engine_or_none_stays_the_rank() -> None:
    assert (
        logs.numbered_lines("(EngineCore_1 pid=5) (VllmWorker rank=3 pid=6) ERROR x")[0][2] is None
    )
    assert logs.numbered_lines("(EngineCore_0 pid=5) (VllmWorker rank=3 pid=6) ERROR x")[0][2] == 3
    assert logs.numbered_lines("(VllmWorker rank=3 pid=6) ERROR x")[0][2] == 3


def test_an_sglang_engine_stopped_from_outside_before_any_batch_is_a_failure() -> None:
    ev = _load(SGLANG_SIGTERM)
    # (read as healthy, nothing said: gloo's "connected to 0 peer ranks" lines ended the reading)
    (stop,) = ev.failures
    # (numbered as an editor numbers lines, grep -n's line 68: the progress bar's bare CRs on
    # line 50 are no line breaks)
    assert (stop["kind"], stop["line"]) == ("launcher_exit", 68)
    assert stop["exception_type"].startswith(
        "sglang (its engine was stopped from outside by SIGTERM before it ran any batch"
    )
    assert stop["message"] == (
        "SIGTERM at 04:38:43, 5 min 32 s after the last line before it with a time (line 65); "
        "the last line before it: '[v4-min] CALLING generate (timeout 120s expected)' (line 67); "
        "no 'Prefill batch' line before it: the engine had run no batch; its detokenizer (pid "
        "25699) exited with -15 (line 70), that SIGTERM: sglang's subprocess watchdog calls any "
        "non-zero exit a crash and answers it with SIGQUIT (line 71), no cause of its own"
    )
    assert _bad(ev) == ["evidence-launcher-exit"]


def test_an_sglang_engine_stopped_after_its_batches_is_a_note() -> None:
    report = logs.parse(
        "[2026-06-01 04:33:11] Prefill batch, #new-seq: 1, #new-token: 8, #cached-token: 0\n"
        "[2026-06-01 04:33:12] Decode batch, #running-req: 1, #token: 9\n"
        "[2026-06-01 04:40:00] SIGTERM received. signum=None frame=None. Draining requests and "
        "shutting down...\n"
        "[2026-06-01 04:40:01] Subprocess detokenizer (pid=7) crashed with exit code -15. "
        "Triggering SIGQUIT for cleanup...\n"
    )
    assert not [e for e in report.events if e.kind == "launcher_exit"]
    assert any(
        w.message.startswith("sglang's engine was stopped by a SIGTERM from outside after it")
        for w in report.unread
    )


def test_a_loss_line_glued_to_a_label_is_counted() -> None:
    ev = _load(GLUED_LABEL_LOSS)
    assert not ev.failures
    # (7 steps from step 11: line 5's "回归现象：epoch: 1 step: 10, ..." was not counted)
    assert heldout.said(ev) == [
        "log: a training loop's loss lines: 8 step(s) logged, from epoch 1 step 10 (loss "
        "0.6715043) to epoch 1 step 17 (loss 0.47175333); no error in them"
    ]
    assert [m.line for f in ev.files for m in f.messages] == [5]
    assert not _bad(ev)


def test_resnets_epoch_lines_are_the_training_beside_mindspores_plog_warnings() -> None:
    ev = _load(RESNET_EPOCHS)
    assert not ev.failures
    said = heldout.said(ev)
    # (read as "a CANN plog of DEVICE (2 line(s)) with no ERROR line" and nothing more)
    assert said[0] == (
        "log: a training loop's loss lines: 10 epoch(s) logged, per step time 92.09-1491.29 ms "
        "(10 line(s)), from epoch 40 of 90 (loss 3.465011) to epoch 49 of 90 (loss 2.712467); no "
        "error in them; its arguments name the checkpoint it started from (pre_trained: "
        "/job/code/mindspore/output/resnet50/imagenet2012/ckpt_0/resnet50-39_48.ckpt, line 2)"
    )
    assert said[1] == (
        "log: beside the training loop, 2 line(s) in CANN plog form of DEVICE with no ERROR line"
    )
    assert [m.line for f in ev.files for m in f.messages][:1] == [40]
    assert not _bad(ev)


def test_new_patterns_are_linear_on_a_long_line_and_many_blank_lines() -> None:
    patterns = [
        logs.LOSS_LINE_RE,
        logs.EPOCH_OF_LOSS_RE,
        logs._ARGS_CHECKPOINT_RE,
        logs._FRAME_FN_RE,
        logs._ENGINE_INIT_FAILED_RE,
        logs._ACL_CALL_CODE_RE,
        logs._SGLANG_SIGTERM_RE,
        logs._SGLANG_CHILD_EXIT_RE,
        logs._SGLANG_SIGQUIT_RE,
        logs._SGLANG_BATCH_RAN_RE,
        logs._SGLANG_DRAINED_RE,
        logs._PREFIX_RANK_RE,
        VLLM_DP_ENGINE_RE,
    ]
    for text in (
        "回" * 100_000,
        "回归：" * 30_000 + "epoch: 1",
        "epoch: [1/2] " * 8_000,
        "epoch: [1/2] step: [1/2], lr: " + "1" * 100_000,
        "--> pre_trained: " + "a.ckpt" * 16_000 + " x",
        '  File "' + "x" * 100_000,
        "acl(" * 25_000,
        "aclrtX(" + "a" * 100_000 + "), error code is 1",
        "SIGTERM received." * 6_000,
        "Subprocess " + "a" * 100_000 + " (pid=1) crashed",
        "SIGQUIT received." * 6_000,
        "Prefill batch [" + "1" * 100_000,
        "(EngineCore_" + "1" * 100_000,
        "a" * 100_000,
        " " * 100_000,
        "\n" * 100_000,
    ):
        # this process's CPU time: other jobs on a shared host do not count against it
        start = time.process_time()
        for p in patterns:
            p.search(text)
        re.compile(logs.LOSS_LINE_RE.pattern, re.M).findall(text)
        assert time.process_time() - start < 1.0, text[:40]
