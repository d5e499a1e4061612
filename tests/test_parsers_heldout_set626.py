"""Outputs of round GGGG's held-out evaluation (set 626, Ascend logs: torch_npu, CANN, vLLM-Ascend,
vllm-omni, training on NPUs) that the advisor read in part or not at all before this change
(tests/data/evidence_heldout_68, sources in tests/data/SOURCES.md): a torchtune start under
torchrun, rejected as unreadable; torch's C++ exception of an ATB operation's set-up, read as a
line an unknown program logged (a warning); a vLLM worker that did not start under vllm-omni's
"[Stage-1]" tag, the executor's ERROR line above it missed and the worker said to have "exited
non-zero"."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.parsers import logs
from tests import heldout
from tests.conftest import DATA
from tests.test_parsers_heldout_set569 import each_linear

HELDOUT = DATA / "evidence_heldout_68"

TORCHTUNE = "torchtune_npu_4proc_early_exit_distributed_start_triton_import_error_healthy_cut.log"
ROPE = "vllm_ascend_v092rc1_glm4_9b_eager_atb_RopeOperation_setup_failed_rank0_cut.log"
OMNI = "vllm_omni_0170rc1_npu_stage1_rtgetdevmsg_null_context_workerproc_failed_to_start_cut.log"

_BANNER = (
    "Setting OMP_NUM_THREADS environment variable for each process to be 1 in default, to avoid "
    "your system being overloaded, please further tune the variable for optimal performance in "
    "your application as needed."
)


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


# --- torchrun's start of a program the advisor knows nothing of -------------------------------


def test_a_torchtune_start_under_torchrun_is_read_and_healthy() -> None:
    ev = _load(TORCHTUNE)
    assert ev.files[0].formats == ["log"]
    # the caught import of triton (a CUDA-side compiler, absent on NPU) is no failure: the
    # launcher and the recipe's logger went on past it
    assert ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    (note,) = [m for m in heldout.said(ev) if "OMP_NUM_THREADS" in m]
    assert note.startswith("log: torchrun's launch (its OMP_NUM_THREADS notice)")
    assert "no line says an error" in note
    assert "triton" not in str(outcome.findings)


def test_torch_1x_launch_banner_with_python_logging_reads_alike(tmp_path: Path) -> None:
    # (torch 1.x's launch.py printed the banner; torch 2.0-2.3's run.py logs it with Python
    # logging's default "WARNING:torch.distributed.run:" head, the banner on its own lines)
    ev = _write(
        tmp_path,
        "WARNING:torch.distributed.run:\n*****************************************\n"
        f"{_BANNER}\n*****************************************\n"
        "epoch: 1\nlr: 0.0002\nbatch_size: 4\nseed: 42\n",
    )
    assert ev.files[0].formats == ["log"]
    assert ev.failures == []
    assert heldout.imported(ev)[0] == "READY"


def test_a_caught_import_the_program_stopped_after_stays_its_error(tmp_path: Path) -> None:
    # (no logger's line after it: the script printed it and went no further)
    ev = _write(
        tmp_path,
        f"W0429 15:37:45.131000 3022796 torch/distributed/run.py:792] {_BANNER}\n"
        "import error: No module named 'flash_attn'\n",
    )
    (error,) = ev.failures
    assert (error["kind"], error["line"]) == ("log_error", 2)


def test_an_import_raised_in_a_traceback_stays_a_failure(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        f"W0429 15:37:45.131000 3022796 torch/distributed/run.py:792] {_BANNER}\n"
        "Traceback (most recent call last):\n"
        '  File "/work/train.py", line 3, in <module>\n'
        "    import triton\n"
        "ModuleNotFoundError: No module named 'triton'\n"
        "W0429 15:37:47.131000 3022796 torch/distributed/run.py:792] closing\n",
    )
    assert ev.failures
    assert heldout.imported(ev)[0] != "READY"


# --- torch's C++ exception of an ATB operation's set-up ---------------------------------------


def test_a_c10_error_with_its_raised_from_line_is_the_exception_the_start_stopped_on() -> None:
    ev = _load(ROPE)
    (error,) = ev.failures
    assert (error["kind"], error["line"], error["rank"]) == ("python_exception", 6, 0)
    assert error["exception_type"].startswith(
        "c10::Error: RopeOperation setup failed! (torch's C++ exception, raised from OperationSetup"
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-python-exception", "critical")]
    (item,) = heldout.items(outcome, "evidence-python-exception")
    assert item.startswith("Rank 0: [E731 07:38:44.083365177 compiler_depend.ts:429] RopeOperation")
    # (the weights loaded; the internal-format warning above is no error)
    assert "interal format" not in str(outcome.findings)
    assert "HCCL" not in item and "device" not in item
    # (torch's exception is read: no note of a program in no form the advisor reads)
    assert not [m for m in heldout.said(ev) if "in no form the advisor reads" in m]


def test_a_c10_warning_with_frames_is_no_exception(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "INFO 07-31 07:38:34 [default_loader.py:262] Loading weights took 36.71 seconds\n"
        "[rank0]:[W731 07:38:35.216768586 compiler_depend.ts:335] Warning: setup failed once, "
        "retried (function operator())\n"
        "Exception raised from OperationSetup at a/compiler_depend.ts:148 (most recent call "
        "first):\n"
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0xb8\n",
    )
    assert not [f for f in ev.failures if f["kind"] == "python_exception"]


def test_a_c10_error_without_a_rank_tag_and_a_newer_glog_head_reads_alike(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "INFO 07-31 07:38:34 [default_loader.py:262] Loading weights took 36.71 seconds\n"
        "[E20250731 07:38:44.083365177 compiler_depend.ts:429] PagedAttentionOperation setup "
        "failed!\n\n"
        "Exception raised from OperationSetup at build/op_plugin_atb.dir/compiler_depend.ts:148 "
        "(most recent call first):\n"
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0xb8\n",
    )
    (error,) = ev.failures
    assert (error["kind"], error["line"], error["rank"]) == ("python_exception", 2, None)
    assert "PagedAttentionOperation setup failed!" in error["exception_type"]
    assert heldout.imported(ev)[0] == "NOT READY"


# --- a vLLM worker that did not start, under vllm-omni's stage tag -----------------------------


def test_the_executors_error_line_above_a_failed_start_is_said_and_no_exit_invented() -> None:
    ev = _load(OMNI)
    (started,) = ev.failures
    assert (started["kind"], started["line"]) == ("launcher_exit", 5)
    said = started["exception_type"]
    assert "its last frame in sync_wrapper (line 10)" in said
    assert (
        "an ERROR line of the same executor's log (line 1): 'The argument is invalid.Reason: "
        "rtGetDevMsg execution failed, the context is a null pointer.'"
    ) in said
    assert "(indented: the rest of a message whose first lines the copy does not hold)" in said
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-launcher-exit", "critical")]
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-launcher-exit"]
    assert finding.message.startswith("1 vLLM worker(s) did not start")
    # (vLLM's worker_main logs the exception and returns: the file says no exit code)
    assert "exited" not in finding.message and "signal handler" not in finding.message


def test_a_stage_tagged_start_with_nothing_above_says_nothing_more(tmp_path: Path) -> None:
    head = "[Stage-0] ERROR 04-18 15:43:36 [multiproc_executor.py:800] "
    ev = _write(
        tmp_path,
        "[Stage-0] INFO 04-18 15:43:36 [multiproc_executor.py:749] starting\n"
        f"{head}WorkerProc failed to start.\n{head}Traceback (most recent call last):\n"
        f'{head}  File "/v/multiproc_executor.py", line 771, in worker_main\n'
        f"{head}RuntimeError: device busy\n",
    )
    (started,) = ev.failures
    assert "ERROR line of the same executor" not in started["exception_type"]
    assert "RuntimeError: device busy" in started["exception_type"]


def test_another_tags_error_line_above_is_not_said(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "[Stage-0] ERROR 04-18 15:43:35 [multiproc_executor.py:800] other stage failed\n"
        "[Stage-1] ERROR 04-18 15:43:36 [multiproc_executor.py:800] WorkerProc failed to start.\n"
        "[Stage-1] ERROR 04-18 15:43:36 [multiproc_executor.py:800] Traceback (most recent call "
        "last):\n"
        "[Stage-1] ERROR 04-18 15:43:36 [multiproc_executor.py:800] RuntimeError: x\n",
    )
    (started,) = [f for f in ev.failures if f["kind"] == "launcher_exit"]
    assert "other stage failed" not in started["exception_type"]


def test_the_new_patterns_are_linear_on_long_lines() -> None:
    each_linear(
        [
            (logs._CAUGHT_IMPORT_RE.match, "import error: No module named '" + "a" * 100_000),
            (logs._CAUGHT_IMPORT_RE.match, " " * 100_000),
            (logs._C10_ERROR_HEAD_RE.match, "[E0731 " + "1" * 100_000),
            (logs._C10_ERROR_HEAD_RE.match, "[rank0]:[E0731 07:38 a:1]" + " " * 100_000),
            (logs._TORCHRUN_OMP_RE.search, "Setting OMP_NUM_THREADS " * 10_000),
        ]
    )
