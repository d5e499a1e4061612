"""Outputs of round AAAA's held-out evaluation (set 594, framework logs on NVIDIA clusters) that the
advisor read in part or not at all before this change (tests/data/evidence_heldout_63, sources in
tests/data/SOURCES.md): Horovod's older stall inspector, whose lines name each stalled tensor's
missing ranks; JAX's INFO probe for a TPU backend on a CUDA host; nvidia-smi's critical Xid line on
a named GPU; a healthy Megatron-LM log of set-up prints and an iteration line."""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from advisor.parsers import logs
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_63"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


def _severities(ev: EvidenceFacts) -> set[str]:
    return {f.severity for f in heldout.found(ev).values()} - {"info"}


# Horovod 0.16's operations.cc CheckForStalledTensors: the preamble, then "Stalled ops:" and one
# "name [missing ranks: r, r]" a tensor
_STALL_HEAD = (
    "[2019-04-13 14:00:31.874229: W horovod/common/operations.cc:588] One or more tensors were "
    "submitted to be reduced, gathered or broadcasted by subset of ranks and are waiting for "
    "remainder of ranks for more than 60 seconds. This may indicate that different ranks are "
    "trying to submit different tensors or that only subset of ranks is submitting tensors, "
    "which will cause deadlock. \n"
)


def test_the_older_stall_inspector_names_rank_1_missing_from_the_initial_broadcast() -> None:
    # mpirun's "[1,0]<stderr>:" on every line, and once inside a glog head (line 5)
    ev = _load("horovod_mpirun_docker_stderr_prefix_interleaved_broadcast_missing_rank1_cut.log")
    (stall,) = ev.failures
    assert (stall["kind"], stall["line"], stall["missing_ranks"]) == ("horovod_stall", 1, [1])
    assert _severities(ev) == {"warning"}
    (item,) = heldout.found(ev)["evidence-horovod-stall"].items
    assert "waited more than 60 s" in item
    # (7 broadcasts: the first on the "Stalled ops:" line, the one under the cut glog head too)
    assert "rank 1 had not submitted HorovodBroadcast_dense_1_bias_0 and 6 more (broadcast)" in item
    assert "the list cut" not in item  # (the old form lists every tensor)
    assert "rank 0" not in item  # (the reporting rank, not a missing one)
    assert "deadlock" not in item


def test_the_older_stall_inspector_names_rank_0_behind_on_an_allreduce() -> None:
    # docker compose's "1469.worker.1  | [time]" before each line
    ev = _load(
        "horovod_openseq2seq_dockercompose_worker_prefix_stalled_allreduce_missing_rank0.log"
    )
    (stall,) = ev.failures
    assert (stall["kind"], stall["missing_ranks"]) == ("horovod_stall", [0])
    assert _severities(ev) == {"warning"}
    (item,) = heldout.found(ev)["evidence-horovod-stall"].items
    assert (
        "rank 0 had not submitted Loss_Optimization/all_reduce/"
        "HorovodAllreduce_Loss_Optimization_mul_1_0 and 1 more (allreduce)"
    ) in item


def test_older_stall_lines_with_several_ranks_in_different_collectives_are_a_deadlock(
    tmp_path: Path,
) -> None:
    # the std::cerr releases: "Stalled ops:" alone, each tensor on a bare line of its own
    ev = _write(
        tmp_path,
        _STALL_HEAD + "Stalled ops:\n"
        "HorovodBroadcast_w_0 [missing ranks: 2, 3]\n"
        "DistributedOptimizer_Allreduce/HorovodAllreduce_grad_0 [missing ranks: 1]\n"
        "Epoch 1/10\n"
        "conv [missing ranks: 5]\n",
    )
    (stall,) = ev.failures
    assert (stall["kind"], stall["missing_ranks"]) == ("horovod_deadlock", [1, 2, 3])
    assert _severities(ev) == {"critical"}
    (item,) = heldout.found(ev)["evidence-horovod-deadlock"].items
    assert "rank 2 had not submitted HorovodBroadcast_w_0 (broadcast)" in item
    assert (
        "rank 1 had not submitted DistributedOptimizer_Allreduce/HorovodAllreduce_grad_0 "
        "(allreduce)"
    ) in item
    assert "rank 5" not in item  # (past the inspector's lines: no stalled op of its)


def test_a_stall_line_cut_before_its_bracket_still_names_its_rank(tmp_path: Path) -> None:
    ev = _write(tmp_path, _STALL_HEAD + "Stalled ops:HorovodAllreduce_loss_0 [missing ranks: 7")
    (stall,) = ev.failures
    assert (stall["kind"], stall["missing_ranks"]) == ("horovod_stall", [7])


def test_a_copy_cut_below_the_stall_warning_still_names_the_missing_rank(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "[1,0]<stderr>:[2019-04-13 14:00:31.874338: W horovod/common/operations.cc:588] "
        "HorovodBroadcast_dense_1_kernel_0 [missing ranks: 1]\n"
        "[1,0]<stderr>:[2019-04-13 14:00:31.874361: W horovod/common/operations.cc:588] "
        "HorovodBroadcast_dense_bias_0 [missing ranks: 1]\n",
    )
    assert ev.files[0].formats == ["log"]
    (stall,) = ev.failures
    assert (stall["kind"], stall["line"], stall["missing_ranks"]) == ("horovod_stall", 1, [1])
    (item,) = heldout.found(ev)["evidence-horovod-stall"].items
    assert "waited past its check time for the rest (the copy starts below its warning)" in item
    assert "60 s" not in item  # (the check time is in the warning's line, not in the copy)
    assert "rank 1 had not submitted HorovodBroadcast_dense_1_kernel_0 and 1 more" in item


def test_a_stall_line_of_a_long_unbroken_word_reads_in_linear_time(tmp_path: Path) -> None:
    text = _STALL_HEAD + "Stalled ops:" + "x" * 400_000 + " [missing ranks: 1]\n"
    start = time.perf_counter()
    report = logs.parse(text)
    assert time.perf_counter() - start < 2.0
    (stall,) = report.events
    assert stall.missing_ranks == [1]


def test_jaxs_info_probe_for_a_tpu_backend_is_no_missing_library() -> None:
    # line 2: "Unable to initialize backend 'tpu': ... libtpu.so: cannot open shared object
    # file" at INFO, beside "Available platform names are: CUDA" (line 1); it ran on (line 3)
    ev = _load("jax_lwm_absl_glog_unable_to_load_nccl_library_ncclgetuniqueid_lwm44_cut.log")
    # (lines 4-5 and 6-7: two failures XLA intercepted, each logged once as it failed)
    assert [(f["kind"], f["line"], f["call"]) for f in ev.failures] == [
        ("nccl_call_failure", 5, "ncclGetUniqueId"),
        ("nccl_call_failure", 7, "ncclGetUniqueId"),
    ]
    assert "evidence-library-missing" not in heldout.found(ev)
    assert _severities(ev) == {"critical"}
    items = heldout.found(ev)["evidence-nccl-call-failed"].items
    assert len(items) == 2
    assert all("Unable to load NCCL library" in str(item) for item in items)
    assert not any("libtpu" in m for m in heldout.said(ev))


def test_jax_raising_on_a_backend_it_was_told_to_use_is_still_a_missing_library(
    tmp_path: Path,
) -> None:
    # JAX_PLATFORMS named the backend: JAX raises instead of logging (jax/_src/xla_bridge.py)
    ev = _write(
        tmp_path,
        "Traceback (most recent call last):\n"
        '  File "train.py", line 3, in <module>\n'
        "    jax.devices()\n"
        "RuntimeError: Unable to initialize backend 'tpu': INTERNAL: Failed to open libtpu.so: "
        "libtpu.so: cannot open shared object file: No such file or directory (set "
        "JAX_PLATFORMS='' to automatically choose an available backend)\n",
    )
    assert "library_missing" in {f["kind"] for f in ev.failures}
    assert _severities(ev) == {"critical"}


def test_nvidia_smis_critical_xid_on_a_named_gpu_is_the_first_failure() -> None:
    ev = _load("megatron_gke_pod_a3_critical_xid_then_traceback_cut_gcp383.log")
    (xid,) = ev.failures
    assert (xid["kind"], xid["line"], xid["library"]) == (
        "gpu_driver_fault",
        1,
        "nvidia-smi (NVML)",
    )
    assert _severities(ev) == {"critical"}
    (item,) = heldout.found(ev)["evidence-gpu-driver-fault"].items
    assert "GPU 00000000:04:00.0: nvidia-smi reported a critical Xid error on it" in item
    # (no Xid number is in the line: none is said, nor what it would mean)
    assert xid["code"] is None
    assert "fallen off" not in item
    assert "evidence-python-exception" not in heldout.found(ev)


def test_the_critical_xid_line_under_a_pods_prefix_names_its_gpu_once(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "[pod/megatron-0/trainer] GPU 00000000:0A:00.0: Detected Critical Xid Error\n"
        "[pod/megatron-0/trainer] GPU 00000000:0a:00.0: Detected Critical Xid Error\n"
        "[pod/megatron-0/trainer] GPU 00000000:0B:00.0: Detected Critical Xid Error\n",
    )
    assert [(f["kind"], f["line"]) for f in ev.failures] == [
        ("gpu_driver_fault", 1),
        ("gpu_driver_fault", 3),
    ]
    assert "(2 reports)" in ev.failures[0]["exception_type"]


def test_a_healthy_megatron_bert_log_is_ready() -> None:
    # set-up prints, then iteration 10 with 10 skipped iterations (fp16 loss scale calibrating
    # down from 2**32: 8388608 = 2**23) and no NaN iteration
    ev = _load("megatron_lm_bert_setup_then_iteration10_skipped10_lossscale_warmup_nccl743_cut.log")
    assert ev.files[0].formats == ["log"]
    assert ev.failures == []
    assert _severities(ev) == set()
    assert any("no line says an error" in m for m in heldout.said(ev))


def test_megatron_lines_under_pdshs_host_prefix_are_its_log(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "gr064: training ...\n"
        "gr064: [before the start of training step] datetime: 2023-01-05 10:00:01 \n"
        "gr064:  iteration        1/  100000 | consumed samples:          512 | elapsed time per "
        "iteration (ms): 9000.1 | learning rate: 1.000E-06 | global batch size:   512 | lm loss: "
        "1.172E+01 | loss scale: 4096.0 | number of skipped iterations:   0 | number of nan "
        "iterations:   0 |\n",
    )
    assert ev.files[0].formats == ["log"]
    assert ev.failures == []


def test_a_flat_loss_with_no_error_line_stays_ready() -> None:
    # left as read (see NOTES): the run's own metrics, loss ~11.17 and MLM_acc 0.000 over
    # steps 1390-1460, are a training-quality question, not a cluster fault; nothing is invented
    ev = _load("horovod_tf2_bert_1_0_stdout_prefix_loss_flat_mlm_acc_0_aws45_cut.log")
    assert ev.files[0].formats == ["log"]
    assert ev.failures == []
    assert _severities(ev) == set()
