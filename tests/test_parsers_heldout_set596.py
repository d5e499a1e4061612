"""Outputs of round BBBB's held-out set 596 the advisor misread before this change
(tests/data/evidence_heldout_64, sources in tests/data/SOURCES.md): a Hugging Face Trainer's tqdm
log whose one log record has a NaN gradient norm, read as no format at all; vLLM-Ascend workers'
tracebacks whose CANN TraceBack line says a runtime call failed ("rtStreamSynchronizeWithTimeout
execute failed, reason=[stream is captured]"), and a vLLM engine core's traceback frames logged
at ERROR from core.py with the line above them cut, each said as an unknown program's error."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_64"

HF_NAN = "llamafactory8439_910b1_qwen3_32b_lora_step60_loss_0_grad_norm_nan_tqdm_cut.log"
CAPTURED = (
    "vllm_ascend2473_v0100rc1_qwen3_30b_w8a8_interleaved_workers_rank1_stream_is_captured_107027"
    "_cut.log"
)
CORE_FRAMES = (
    "vllm_omni424_npu_enginecore_dp0_ansi_caret_M_block_table_traceback_frames_only_cut.log"
)


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


# --- the Trainer's record with a NaN gradient norm ---------------------------------------------


def test_a_trainer_record_with_a_nan_grad_norm_is_a_diverged_job() -> None:
    ev = _load(HF_NAN)
    assert ev.files[0].formats == ["log"]
    (diverged,) = ev.failures
    assert (diverged["kind"], diverged["line"]) == ("loss_diverged", 6)
    said = diverged["exception_type"]
    # the step is the bar's above the record, the epoch the record's own
    assert "step 60 of 13080" in said and "epoch 0.02" in said
    assert "gradient norm is nan" in said and "the loss is 0.0" in said
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-loss-diverged", "warning")]
    (item,) = heldout.items(outcome, "evidence-loss-diverged")
    assert "line 6" in item
    # (no device, rank or communication is named: the copy names none)
    assert diverged.get("rank") is None and diverged.get("device") is None


BAR = "  0%|          | {step}/13080 [08:37<28:23:24,  7.85s/it]\n"


def test_newer_trainers_quoted_values_and_a_finite_record_after(tmp_path: Path) -> None:
    # transformers formats the floats f"{v:.4g}" in newer releases: the values quoted
    quoted = "{'loss': '0', 'grad_norm': 'nan', 'learning_rate': '4.511e-06', 'epoch': '0.02'}\n"
    ev = _write(tmp_path, BAR.format(step=60) + quoted + BAR.format(step=61))
    (diverged,) = ev.failures
    assert diverged["kind"] == "loss_diverged" and "step 60 of 13080" in diverged["exception_type"]
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"
    # a NaN record the run went on past (a finite one after it) is no divergence
    finite = "{'loss': 1.2, 'grad_norm': 0.87, 'learning_rate': 4.6e-06, 'epoch': 0.03}\n"
    nan = "{'loss': 0.0, 'grad_norm': nan, 'learning_rate': 4.5e-06, 'epoch': 0.02}\n"
    ev = _write(tmp_path, BAR.format(step=60) + nan + BAR.format(step=70) + finite)
    assert not any(f["kind"] == "loss_diverged" for f in ev.failures)


# --- a runtime call's reason in vLLM-Ascend workers' tracebacks --------------------------------


def test_a_runtime_reason_in_a_workers_traceback_is_a_failed_call() -> None:
    ev = _load(CAPTURED)
    assert ev.files[0].formats == ["log"]
    (failed,) = ev.failures
    assert (failed["kind"], failed["line"], failed["rank"]) == ("npu_runtime_error", 9, 1)
    assert failed["call"] == "rtStreamSynchronizeWithTimeout"
    # (the runtime's error map gives "stream is captured" the one code; the copy cut the rest)
    assert (failed["code"], failed["code_name"]) == ("107027", "ACL_ERROR_RT_STREAM_CAPTURED")
    assert failed["exception_type"] == "rtStreamSynchronizeWithTimeout failed: stream is captured"
    assert failed.get("device") is None
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-npu-runtime-error", "critical")]
    (item,) = heldout.items(outcome, "evidence-npu-runtime-error")
    assert item.startswith("Rank 1 ") and "line 9" in item
    assert "evidence-log-error" not in {f.rule_id for f in outcome.findings}


WORKER = "(VllmWorker rank=3 pid=36368) ERROR 08-21 08:26:21 [multiproc_executor.py:546] {text}\n"


def test_a_runtime_reason_reads_alike_for_another_rank_and_reason(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "".join(
            WORKER.format(text=t)
            for t in (
                "WorkerProc hit an exception.",
                "Traceback (most recent call last):",
                "        TraceBack (most recent call last):",
                "        rtMemcpyAsync execute failed, reason=[driver error:invalid handle]"
                "[FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:53]",
            )
        ),
    )
    (failed,) = ev.failures
    assert (failed["kind"], failed["rank"], failed["call"]) == (
        "npu_runtime_error",
        3,
        "rtMemcpyAsync",
    )
    # (a reason several codes share says none: no code invented)
    assert failed.get("code") is None
    assert failed["exception_type"] == "rtMemcpyAsync failed: driver error:invalid handle"
    assert heldout.imported(ev)[0] == "NOT READY"


# --- a vLLM engine core's traceback frames, the line above them cut ----------------------------


def test_engine_core_frames_at_error_from_core_py_are_its_failure() -> None:
    ev = _load(CORE_FRAMES)
    assert ev.files[0].formats == ["log"]
    (core,) = ev.failures
    assert (core["kind"], core["line"], core["worker"], core["pid"]) == (
        "launcher_exit",
        1,
        "EngineCore_DP0",
        6444,
    )
    assert "fails to start or meets a fatal error" in core["exception_type"]
    assert "its exception is not in the copy" in core["exception_type"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-launcher-exit", "critical")]


CORE = "(EngineCore pid=118) ERROR 03-01 10:00:0{n} [core.py:590] {text}\n"


def test_engine_core_frames_with_their_exception_and_a_survived_utility_call(
    tmp_path: Path,
) -> None:
    # an older release's "(EngineCore pid=N)", the exception at the end of the frames
    frames = [
        'File "/vllm/v1/worker/gpu_worker.py", line 150, in init_device',
        "    torch.cuda.set_device(self.device)",
        "RuntimeError: CUDA error: invalid device ordinal",
    ]
    ev = _write(tmp_path, "".join(CORE.format(n=1, text=t) for t in frames))
    (core,) = ev.failures
    assert core["kind"] == "launcher_exit" and core["worker"] == "EngineCore"
    assert "it ends in RuntimeError: CUDA error: invalid device ordinal" in core["exception_type"]
    assert heldout.imported(ev)[0] == "NOT READY"
    # a failed utility call's traceback (its handler's frame named), which the engine survives
    utility = [
        'File "/vllm/v1/engine/core.py", line 800, in _handle_client_request',
        "    result = method(*self._convert_msgspec_args(method, args))",
        "ValueError: LoRA adapter not found",
    ]
    ev = _write(tmp_path, "".join(CORE.format(n=2, text=t) for t in utility))
    assert not any(f["kind"] == "launcher_exit" for f in ev.failures)
