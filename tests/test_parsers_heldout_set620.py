"""Outputs of round FFFF's held-out evaluation (set 620, Ascend logs) that the advisor read in part
before this change (tests/data/evidence_heldout_67, sources in tests/data/SOURCES.md): aclnn
operators CANN's op framework failed (nnopbase's "Check ... failed", "X do tiling failed", an
operator's own "[ERROR][Op]" lines), read as an unknown program's line or left under vLLM's later
"EngineCore failed to start."; vLLM's "Worker failed with error" and a worker's ERROR traceback
frames, read as an unknown program's line; an OCR'd "NPu function error" call left unread."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_67"

DISPATCH = "vllm_ascend2858_v0101rc1_qwen3_235b_two_node_moe_dispatch_v2_561002_ez9999_mangled_paste_cut.log"
GATING = (
    "vllm_ascend7160_qwen35_0day_moe_gating_topk_tiling_failed_enginecore_failed_to_start_cut.log"
)
ROLLOUT = "msswift6011_npu_swift_rollout_enginecore_dp0_worker_failed_with_empty_error_cut.log"
NESTED = "vllm_ascend7635_v0170rc1_a2_two_node_qwen35_ep_nested_worker_prefix_nnopbase_tiling_checks_cut.log"
SGLANG = "sglang_npu_deepep_moe_distribute_dispatch_v2_commalg_fullmesh_invalid_a2.log"
FRAMES = "vllm_ascend9944_v0180_a2_pd_disagg_qwen35_397b_decode_worker_tp7_ocr_tabs_traceback_frames_cut.log"

_CHECKS = (
    "Check NnopbaseExecutorDoTiling(executor) failed\n"
    "Check NnopbaseExecutorTilingAndUpdateBinInfo(executor) failed\n"
    "Check NnopbaseRunForWorkspace(*executor, workspaceSize) failed\n"
)


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


def _kinds(ev: EvidenceFacts) -> list[str]:
    return [f["kind"] for f in ev.failures]


# --- an aclnn operator CANN's op framework failed ---------------------------------------------


def test_an_operators_tiling_failure_is_the_root_under_engine_core_failed_to_start() -> None:
    ev = _load(GATING)
    (op,) = ev.failures
    assert (op["kind"], op["line"], op["op"]) == ("npu_op_failure", 2, "MoeGatingTopK")
    assert (op["worker"], op["pid"]) == ("Worker_TP0", 85)
    assert op["exception_type"] == "operator MoeGatingTopK's tiling failed (ret -1)"
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-npu-op-failure", "critical")]
    (item,) = heldout.items(outcome, "evidence-npu-op-failure")
    assert item.startswith("Worker_TP0 (pid 85): operator MoeGatingTopK's tiling failed")
    assert "exited non-zero" not in str(outcome.findings)  # (no exit is in the file)


def test_nnopbase_checks_under_nested_worker_tags_are_that_workers_failure() -> None:
    ev = _load(NESTED)
    (op,) = ev.failures
    assert (op["kind"], op["line"], op["op"]) == ("npu_op_failure", 1, None)
    # (the innermost of Ray's and vLLM's tags is the process)
    assert (op["worker"], op["pid"]) == ("Worker_DP0_TP6_EP6", 9411)
    assert "the operator's name is not in the copy" in op["exception_type"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-npu-op-failure", "critical")]


def test_an_operators_own_error_lines_name_it_and_why() -> None:
    ev = _load(SGLANG)
    (op,) = ev.failures
    assert (op["kind"], op["line"], op["op"]) == ("npu_op_failure", 1, "MoeDistributeDispatchV2")
    assert "got commAlg = fullmesh" in op["exception_type"]
    assert op["worker"] is None and op["rank"] is None  # (the lines name no process)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-npu-op-failure", "critical")]


def test_the_checks_under_another_tag_or_none_name_the_operator_above_them(tmp_path: Path) -> None:
    tag = "(VllmWorker TP6 pid=191741) ERROR 09-03 19:05:48 [multiproc_executor.py:596]        "
    lines = [
        "TraceBack (most recent call last):",
        "KvRmsNormRopeCache do tiling failed, ret is -1.",
    ]
    tagged = _write(tmp_path, "".join(f"{tag}{t}\n" for t in lines + _CHECKS.splitlines()))
    (op,) = tagged.failures
    assert (op["kind"], op["line"], op["op"], op["worker"], op["pid"]) == (
        "npu_op_failure", 2, "KvRmsNormRopeCache", "VllmWorker TP6", 191741,
    )  # fmt: skip
    bare = _write(tmp_path, "AddRmsNorm do tiling failed, ret is -1.\n" + _CHECKS)
    (op,) = bare.failures
    assert (op["kind"], op["line"], op["op"], op["worker"]) == (
        "npu_op_failure", 1, "AddRmsNorm", None,
    )  # fmt: skip


def test_checks_under_a_cann_code_are_read_with_the_code_not_again(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "RuntimeError: npu_add_rms_norm:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:1 NPU "
        "function error: call aclnnAddRmsNorm failed, error code is 561002\n"
        "[ERROR] 2025-09-10-09:46:59 (PID:973, Device:0, RankID:-1) ERR00100 PTA call acl api "
        "failed.\nEZ9999: Inner Error!\nAddRmsNorm do tiling failed, ret is -1.\n" + _CHECKS,
    )
    assert "npu_op_failure" not in _kinds(ev)
    assert "npu_runtime_error" in _kinds(ev)


def test_an_operators_error_line_that_says_no_tiling_is_no_operator_failure(
    tmp_path: Path,
) -> None:
    # (another program's "[ERROR][Name]" line: an operator's own lines count where one says its
    # tiling failed)
    ev = _write(tmp_path, "[INFO][Loader] start\n[ERROR][ConfigReader] missing key 'lr'\n")
    assert "npu_op_failure" not in _kinds(ev)


# --- an OCR'd torch_npu call failure ----------------------------------------------------------


def test_an_ocrd_npu_function_error_is_the_calls_failure() -> None:
    ev = _load(DISPATCH)
    (call,) = [f for f in ev.failures if f["kind"] == "npu_runtime_error"]
    # (line 4 of the copy's own re-split count: the load's note says so)
    assert (call["call"], call["code"], call["line"], call["pid"]) == (
        "aclnnMoeDistributeDispatchV2", "561002", 4, 973,
    )  # fmt: skip
    assert call["torch_npu_code"] == "ERR00100"
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert ("evidence-npu-runtime-error", "critical") in heldout.above_info(outcome)
    (said,) = [str(i) for i in heldout.items(outcome, "evidence-hccl-other-error")][:1]
    # (EZ9999 is the operator layer's inner error, not an HCCL link's)
    assert "operator layer" in said and "transport" not in said


def test_a_lowered_npu_word_reads_alone_on_its_line(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "RuntimeError: npu_moe_distribute_dispatch_v2:build/CMakeFiles/torch_npu.dir/"
        "compiler_depend.ts:1 Npu function error: call aclnnMoeDistributeDispatchV2 failed, "
        "error code is 561002\n",
    )
    (call,) = [f for f in ev.failures if f["kind"] == "npu_runtime_error"]
    assert (call["call"], call["code"]) == ("aclnnMoeDistributeDispatchV2", "561002")


# --- vLLM's worker that raised in a call ------------------------------------------------------


def test_worker_failed_with_an_empty_error_is_the_calls_failure() -> None:
    ev = _load(ROLLOUT)
    (raised,) = ev.failures
    assert (raised["kind"], raised["line"]) == ("python_exception", 9)
    assert (raised["worker"], raised["pid"]) == ("EngineCore_DP0", 3315)
    assert "its error text is empty" in raised["exception_type"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-python-exception", "critical")]


def test_worker_failed_with_its_error_says_it(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "(EngineCore pid=413) ERROR 11-10 12:30:57 [core.py:710]     raise RuntimeError(\n"
        "(EngineCore pid=413) ERROR 11-10 12:30:57 [core.py:710] RuntimeError: Worker failed "
        "with error 'Page size mismatch after block_size adjust: 1136064 != 3408192', please "
        "check the stack trace above for the root cause\n",
    )
    (raised,) = ev.failures
    assert (raised["kind"], raised["line"], raised["pid"]) == ("python_exception", 2, 413)
    assert raised["exception_type"].endswith(": Page size mismatch after block_size adjust: "
                                             "1136064 != 3408192")  # fmt: skip


def test_a_workers_error_traceback_frames_are_its_failure() -> None:
    ev = _load(FRAMES)
    (raised,) = ev.failures
    assert (raised["kind"], raised["line"]) == ("python_exception", 1)
    assert (raised["worker"], raised["pid"]) == ("Worker_TP7_EP7", 600)
    assert "last frame: v1/sample/rejection_sampler.py:129" in raised["message"]
    assert raised["exception_type"] == "unknown (cut before the exception)"
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-python-exception", "critical")]


def test_clean_worker_frames_read_the_same_and_info_lines_do_not(tmp_path: Path) -> None:
    tag = "(Worker_TP0 pid=12) ERROR 06-02 17:00:52 [multiproc_executor.py:932] "
    ev = _write(
        tmp_path,
        f"{tag}Traceback (most recent call last):\n"
        f'{tag}  File "/vllm-workspace/vllm/vllm/v1/worker/gpu_model_runner.py", line 10, in '
        "execute_model\n",
    )
    (raised,) = ev.failures
    assert (raised["kind"], raised["worker"], raised["pid"]) == (
        "python_exception",
        "Worker_TP0",
        12,
    )
    assert "last frame: v1/worker/gpu_model_runner.py:10" in raised["message"]
    info = _write(
        tmp_path,
        "(Worker_TP0 pid=12) INFO 06-02 17:00:52 [multiproc_executor.py:500] Worker ready\n" * 3,
    )
    assert "python_exception" not in _kinds(info)
