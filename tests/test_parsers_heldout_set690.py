"""Outputs of round QQQQ's held-out evaluation (set 690, framework logs on NVIDIA clusters) that
the advisor read wrong or in part before this change (tests/data/evidence_heldout_77, sources in
tests/data/SOURCES.md): Horovod's stall inspector behind a collector's prefix and Open MPI's tags
inside each line did not name the stalled rank; the older inspector's "name [missing ranks: 2]"
lines without "Stalled ops:" above them, RETURNN's "Horovod initialized." lines of a healthy start
and JAX's printed device lists were no format the advisor knew; and XLA's "unable to create
StreamExecutor for CUDA:1 ... CUDA_ERROR_INVALID_DEVICE" above a cut traceback was not named, the
traceback read as a bare Python exception."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_77"

POLYAXON = (
    "horovod_polyaxon_mpi_stall_inspector_stalled_rank0_fragmented_stderr_polyaxon657_cut.log"
)
MISSING2 = "horovod_tf_keras_tacc_stalled_allreduce_missing_rank2_horovod457_cut.log"
RETURNN = "horovod_returnn_sge_mpirun_4_hosts_initialized_healthy_returnn323_cut.log"
JAX_DEVICES = "jax_slurm_2_hosts_distributed_initialize_devices_one_local_gpu_each_jax16788_cut.log"
JAX_ORDINAL = "jax_slurm_distributed_initialize_cuda_invalid_device_ordinal_1_jax23452_cut.log"

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


# --- Horovod's stall inspector: the stalled rank behind Polyaxon's prefix and Open MPI's tags ---


def test_the_polyaxon_stall_names_rank_0_and_its_allreduce() -> None:
    ev = _load(POLYAXON)
    assert ev.files[0].formats == ["log"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-horovod-stall", "warning")]
    (stall,) = ev.failures
    assert stall["kind"] == "horovod_stall" and stall["line"] == 1
    assert stall["missing_ranks"] == [0]
    assert "more than 60 s" in stall["exception_type"]
    assert "rank 0 had not submitted HorovodAllreduce (allreduce)" in stall["exception_type"]
    # (the tags inside the line are taken out: the inspector's own words)
    assert stall["message"].startswith("[2020-01-15 22:44:33.214399: W horovod/common/stall")


def test_another_rank_and_tensor_in_the_same_fragmented_form_are_named(tmp_path: Path) -> None:
    text = _text(POLYAXON).replace(
        "[1,0]<stderr>:0: [HorovodAllreduce][1,0]<stderr>:",
        "[1,0]<stderr>:3: [DistributedSGD_Allgather/HorovodAllgather_x_0][1,0]<stderr>:",
    )
    ev = _write(tmp_path, text)
    (stall,) = ev.failures
    assert stall["missing_ranks"] == [3]
    assert (
        "rank 3 had not submitted DistributedSGD_Allgather/HorovodAllgather_x_0 (allgather)"
        in (stall["exception_type"])
    )


def test_a_stall_whose_rank_entry_is_not_in_the_copy_names_no_rank(tmp_path: Path) -> None:
    text = "\n".join(t for t in _text(POLYAXON).splitlines() if "HorovodAllreduce]" not in t)
    ev = _write(tmp_path, text)
    (stall,) = ev.failures
    assert stall["kind"] == "horovod_stall" and stall["missing_ranks"] is None


# --- the older inspector's "[missing ranks: N]" lines without "Stalled ops:" ------------------


def test_the_missing_ranks_lines_alone_name_rank_2() -> None:
    ev = _load(MISSING2)
    assert ev.files[0].formats == ["log"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-horovod-stall", "warning")]
    (stall,) = ev.failures
    assert stall["kind"] == "horovod_stall" and stall["line"] == 1
    assert stall["missing_ranks"] == [2]
    said = stall["exception_type"]
    assert "the copy starts below its warning" in said
    assert "and 7 more (allreduce)" in said


def test_missing_ranks_lines_of_other_ranks_name_them(tmp_path: Path) -> None:
    text = _text(MISSING2).replace("[missing ranks: 2]", "[missing ranks: 1, 3]")
    ev = _write(tmp_path, text)
    (stall,) = ev.failures
    assert stall["missing_ranks"] == [1, 3]


def test_missing_ranks_words_inside_prose_are_not_read(tmp_path: Path) -> None:
    ev = _write(tmp_path, "the job printed foo [missing ranks: 2] and then hung for an hour\n")
    assert ev.files[0].status == "unknown"
    assert ev.failures == []


# --- RETURNN's "Horovod initialized." lines: a healthy start ------------------------------------


def test_returnns_horovod_start_is_ready_with_its_ranks_and_hosts() -> None:
    ev = _load(RETURNN)
    assert ev.files[0].formats == ["log"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    assert ev.failures == []
    ((line, note),) = _said(ev)
    assert line == 6
    assert note.startswith("log: RETURNN said Horovod initialized 4 rank(s) of a size of 4 on 4 ")
    for said in (
        "rank 0 cluster-cn-224",
        "rank 1 cluster-cn-220",
        "rank 2 cluster-cn-238",
        "rank 3 cluster-cn-275",
        "local size 1",
        "no error",
    ):
        assert said in note
    assert "printed no such line" not in note


def test_a_rank_without_its_line_is_said_and_the_start_stays_ready(tmp_path: Path) -> None:
    text = "\n".join(
        t for t in _text(RETURNN).splitlines() if "Hostname cluster-cn-220" not in t
    ).replace("cluster-cn-238, pid 14531", "gpu-node-7, pid 14531")
    ev = _write(tmp_path, text)
    level, _ = heldout.imported(ev)
    assert level == "READY"
    ((_, note),) = _said(ev)
    assert "3 rank(s) of a size of 4" in note and "rank 2 gpu-node-7" in note
    assert "rank(s) 1 printed no such line in the copy" in note


# --- JAX's device lists printed by a program -----------------------------------------------------


def test_jaxs_device_lists_are_ready_with_each_processs_local_gpu() -> None:
    ev = _load(JAX_DEVICES)
    assert ev.files[0].formats == ["log"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    ((line, note),) = _said(ev)
    assert line == 2
    assert "line 2: 2 device(s) (GPU 0, 1), local GPU 0" in note
    assert "line 4: 2 device(s) (GPU 0, 1), local GPU 1" in note
    assert note.endswith("no error")


def test_newer_jaxs_cuda_device_repr_is_read_alike(tmp_path: Path) -> None:
    text = "[CudaDevice(id=0), CudaDevice(id=1), CudaDevice(id=2)] [CudaDevice(id=2)]\n"
    ev = _write(tmp_path, text)
    level, _ = heldout.imported(ev)
    assert level == "READY"
    ((_, note),) = _said(ev)
    assert "3 device(s) (GPU 0, 1, 2), local GPU 2" in note


def test_device_lists_inside_a_log_of_other_words_are_not_read_as_this(tmp_path: Path) -> None:
    text = _text(JAX_DEVICES) + "the second process then waited for the first one for an hour\n"
    ev = _write(tmp_path, text)
    assert not any("JAX's device lists" in note for _, note in _said(ev))


# --- XLA could not open a GPU: the device and the driver's error named --------------------------


def test_xlas_invalid_device_ordinal_names_cuda_device_1() -> None:
    ev = _load(JAX_ORDINAL)
    assert ev.files[0].formats == ["log"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-cuda-error", "critical")]
    (failure,) = ev.failures
    assert failure["kind"] == "cuda_error" and failure["line"] == 1
    assert failure["device"] == 1 and failure["call"] == "cuDeviceGet"
    assert failure["library"] == "XLA"
    assert failure["exception_type"].startswith(
        "CUDA_ERROR_INVALID_DEVICE: invalid device ordinal (XLA was asked for CUDA device 1"
    )


def test_another_device_and_driver_error_are_named_as_printed(tmp_path: Path) -> None:
    text = _text(JAX_ORDINAL).replace("CUDA:1", "CUDA:3").replace("ordinal 1", "ordinal 3")
    text = text.replace(
        "cuDeviceGet: CUDA_ERROR_INVALID_DEVICE: invalid device ordinal",
        "cuDevicePrimaryCtxRetain: CUDA_ERROR_OUT_OF_MEMORY: out of memory",
    )
    ev = _write(tmp_path, text)
    (failure,) = ev.failures
    assert failure["device"] == 3 and failure["call"] == "cuDevicePrimaryCtxRetain"
    assert failure["exception_type"] == "CUDA_ERROR_OUT_OF_MEMORY: out of memory"
