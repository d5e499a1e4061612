"""Outputs of round WWW's held-out evaluation (set 566) that the advisor read wrong or not at all
before this change (tests/data/evidence_heldout_60, sources in tests/data/SOURCES.md): Ascend
training and inference logs."""

from __future__ import annotations

from functools import partial

from advisor.parsers import logs, strip_launcher_prefix
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_60"


_load = partial(heldout.load, HELDOUT)


def test_tensorflows_cuda_probe_on_an_npu_host_is_no_stop() -> None:
    ev = _load(
        "pcn_modelzoo_tf_npu_bridge_train_epoch1_step276_loss_0_027_19s_per_batch_cuinit_303_benign_healthy.log"
    )
    # (libcuda.so.1 missing was read as a program that stopped there; it trained 276 steps on)
    assert not ev.failures
    said = heldout.said(ev)
    assert (
        "log: TensorFlow could not load libcuda.so.1 (its dso_loader's warning: it goes on "
        "without it, and without the CUDA GPU support that library gives)"
    ) in said
    assert (
        "log: TensorFlow's failed call to cuInit (UNKNOWN ERROR (303)) on a host with no NVIDIA "
        "driver (ubuntu: /proc/driver/nvidia/version does not exist, its own diagnosis): it "
        "registers no CUDA GPU and goes on, no error of the run"
    ) in said
    assert [m.line for f in ev.files for m in f.messages if "TensorFlow" in m.message] == [62, 63]
    assert (
        "log: a training loop's loss lines: 276 step(s) logged, from epoch 1 step 1 (loss "
        "0.14132963) to epoch 1 step 276 (loss 0.02740633); no error in them"
    ) in said
    assert not [f for f in heldout.found(ev, "hccl") if f.startswith("evidence-")]


def test_a_failed_cuinit_on_a_host_with_the_driver_stays_an_error() -> None:
    text = (
        "2020-10-26 13:40:20.192755: I tensorflow/core/platform/cpu_feature_guard.cc:142] start\n"
        "2020-10-26 13:40:20.192755: E tensorflow/stream_executor/cuda/cuda_driver.cc:351] "
        "failed call to cuInit: CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected\n"
        "2020-10-26 13:40:20.192789: I tensorflow/stream_executor/cuda/cuda_diagnostics.cc:137] "
        "retrieving CUDA diagnostic information for host: gpu1\n"
    )
    (error,) = logs.parse(text).events
    assert (error.kind, error.line) == ("log_error", 2)


def test_mindspores_version_mismatch_is_said_with_the_crash_after_it() -> None:
    ev = _load(
        "mindspore231_run_check_ascend_package_7_5_mismatch_expect_7_2_7_3_te_hccl_whl_countdown_segfault_core_dumped.log"
    )
    (error,) = [f for f in ev.failures if f["kind"] == "log_error"]
    assert (error["line"], error["message"]) == (28, "Segmentation fault (core dumped)")
    assert error["exception_type"] == (
        "before it, 3 warning(s) of a version mismatch: MindSpore version 2.3.1 and Ascend AI "
        "software package (Ascend Data Center Solution)version 7.5 does not match, the version of "
        "software package expect one of ['7.2', '7.3'] (line 1); MindSpore version 2.3.1 and "
        '"te" wheel package version 7.5 does not match (line 10); MindSpore version 2.3.1 and '
        '"hccl" wheel package version 7.5 does not match (line 11)'
    )
    (item,) = heldout.found(ev, "hccl")["evidence-log-error"].items
    assert "(line 1)" in item and '"hccl" wheel package version 7.5' in item
    (ended,) = [f for f in ev.failures if f["kind"] == "launcher_exit"]
    assert (ended["line"], ended["exit_code"]) == (28, -11)


def test_a_training_scripts_progress_lines_are_a_programs_log() -> None:
    ev = _load(
        "mindcluster_doc_vcjob_pytorch_resnet50_npu0_test_77_84_of_85_avg_acc1_0_016_complete_90_epoch_1_05h_healthy_indented.log"
    )
    # (nothing was read from it: "no supported format recognised")
    assert ev.files[0].formats == ["log"]
    assert not ev.failures
    assert any(
        m.endswith(": no line says an error, nothing more is read from it")
        for m in heldout.said(ev)
    )
    assert logs.is_program_log("Test: [1/85]  Time  0.117 ( 0.281)  Loss 1.07e+01\n" * 5)
    # (two such lines are too few to tell; a table with a loss column and no counter is none)
    assert not logs.is_program_log("epoch 1 loss 2.3\nepoch 2 loss 2.1\n")
    assert not logs.is_program_log("name  loss\n" + "A  0.1\n" * 6)


def test_torch_npus_logger_pid_is_no_rank() -> None:
    ev = _load(
        "sglang29838_a3_glm52_w8a8_tp0_ep0_torch_npu_memory_oom_72mib_npu0_61_27gib_scheduler_exception_cut.log"
    )
    (oom,) = ev.failures
    assert (oom["kind"], oom["line"], oom["rank"], oom["pid"], oom["device"]) == (
        "device_oom",
        2,
        None,
        383554,
        0,
    )
    (item,) = heldout.found(ev, "hccl")["evidence-device-out-of-memory"].items
    assert item.startswith("Process 383554 on device 0: tried to allocate 72.00 MiB, 5.04 MiB free")
    assert (
        strip_launcher_prefix("[12] [2026-07-01 09:31:38:047] torch_npu.memory: [ERROR] x")[1]
        is None
    )
    # (MPICH's rank tag before another line stays a rank)
    assert strip_launcher_prefix("[12] hello")[1] == 12
