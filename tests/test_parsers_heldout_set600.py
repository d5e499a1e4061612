"""Outputs of round BBBB's held-out evaluation (set 600, framework logs on NVIDIA clusters) that the
advisor read in part or not at all before this change (tests/data/evidence_heldout_64, sources in
tests/data/SOURCES.md): vLLM tracebacks logged line by line under vLLM's logger prefix (V1's engine
core, 0.5's multiproc workers) that end in CUDA's illegal memory access; a pdsh node whose
zero-padded name ("gpu004") was taken for a GPU's label; a Rich traceback box cut before its
exception."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_64"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


def _severities(ev: EvidenceFacts) -> set[str]:
    return {f.severity for f in heldout.found(ev).values()} - {"info"}


_ILLEGAL = "an illegal memory access was encountered"


def test_vllm_v1_engine_cores_logged_traceback_ends_in_an_illegal_memory_access() -> None:
    ev = _load(
        "vllm_0_8_1_v1_ray_2_44_pp_core_py_execute_model_cuda_illegal_memory_access_51596.log"
    )
    (cuda,) = ev.failures
    assert (cuda["kind"], cuda["line"], cuda["exception_type"]) == ("cuda_error", 3, _ILLEGAL)
    assert cuda["message"] == f"RuntimeError: CUDA error: {_ILLEGAL}"
    assert _severities(ev) == {"critical"}
    assert "evidence-log-error" not in heldout.found(ev)
    (item,) = heldout.found(ev)["evidence-cuda-error"].items
    assert item.startswith(f"'{_ILLEGAL}' (")  # (no rank, device or host in the copy)
    assert not any("no form the advisor reads" in m for m in heldout.said(ev))


def test_vllm_0_5_workers_each_named_by_pid_with_their_own_line() -> None:
    ev = _load(
        "vllm_v0_5_tp8_vllmworkerprocess_multiproc_worker_utils_illegal_memory_access_"
        "determine_num_available_blocks_6725_cut.log"
    )
    first, second = ev.failures
    assert (first["kind"], first["line"], first["pid"]) == ("cuda_error", 2, 134370)
    assert first["message"] == f"RuntimeError: CUDA error: {_ILLEGAL}"  # (line 1 not glued on)
    assert (second["kind"], second["line"], second["pid"]) == ("cuda_error", 6, 134372)
    assert (
        second["exception_type"] == f"{_ILLEGAL} (in the worker's determine_num_available_blocks)"
    )
    assert first["rank"] is None and second["rank"] is None  # (0.5's prefix names no rank)
    assert _severities(ev) == {"critical"}
    items = heldout.found(ev)["evidence-cuda-error"].items
    assert [i.split(":", 1)[0] for i in items] == [
        "VllmWorkerProcess pid 134370",
        "VllmWorkerProcess pid 134372",
    ]


def test_a_logged_cuda_error_in_other_vllm_prefixes(tmp_path: Path) -> None:
    # V1's engine core under its process prefix, an older logger without the bracket, and the
    # wrapper's words of a V0 worker on one line with its ", Traceback"
    ev = _write(
        tmp_path,
        "(EngineCore_DP0 pid=5263) ERROR 09-01 10:00:00 [core.py:700]     out = self.model(x)\n"
        "(EngineCore_DP0 pid=5263) ERROR 09-01 10:00:00 [core.py:700] RuntimeError: CUDA error: "
        "an illegal memory access was encountered\n"
        "(VllmWorkerProcess pid=77) ERROR 07-24 04:24:50 multiproc_worker_utils.py:226] Exception "
        "in worker VllmWorkerProcess while processing method execute_model: CUDA error: "
        "an illegal memory access was encountered, Traceback (most recent call last):\n",
    )
    core, worker = ev.failures
    assert (core["kind"], core["line"], core["pid"]) == ("cuda_error", 2, 5263)
    assert (worker["kind"], worker["line"], worker["pid"]) == ("cuda_error", 3, 77)
    assert worker["exception_type"] == f"{_ILLEGAL} (in the worker's execute_model)"


def test_the_rank_14_store_failure_names_its_pdsh_node() -> None:
    ev = _load(
        "deepspeed_pdsh_llamafactory_gpu004_barrier_ncclUniqueId_store_get_connection_reset_"
        "rank14_2470_cut.log"
    )
    (failure,) = ev.failures
    assert (failure["kind"], failure["line"], failure["rank"]) == ("unique_id_failure", 3, 14)
    assert (failure["host"], failure["remote_rank"]) == ("gpu004", 0)
    (item,) = heldout.found(ev)["evidence-unique-id-exchange-failed"].items
    assert item.startswith("Rank 14 on gpu004 from rank 0: store->get got error: Connection reset")


def test_an_unpadded_gpu_label_is_still_no_node(tmp_path: Path) -> None:
    # "gpu3: " before a line is a device's label, as before; only a zero-padded number names a host
    ev = _write(
        tmp_path,
        "gpu3: RuntimeError: CUDA error: an illegal memory access was encountered\n"
        "gpu3: CUDA kernel errors might be asynchronously reported at some other API call\n",
    )
    assert all(f["host"] is None for f in ev.failures)


def test_a_rich_traceback_box_cut_before_its_exception_is_a_failure_in_the_barrier() -> None:
    ev = _load(
        "accelerate_deepspeed_pdsh_104_171_201_171_rich_traceback_box_wait_for_everyone_"
        "barrier_1317_cut.log"
    )
    assert ev.files[0].formats == ["log"]
    (raised,) = ev.failures
    assert (raised["kind"], raised["line"], raised["host"]) == (
        "python_exception",
        9,
        "104.171.201.171",
    )
    assert (raised["op"], raised["call"]) == ("barrier", "dist.barrier()")
    assert raised["exception_type"] == "unknown (cut before the exception)"
    assert raised["message"] == (
        "the copy ends inside a Rich traceback's box, before its exception (last frame: "
        "accelerate/utils/other.py:81 in wait_for_everyone, raised at: torch.distributed.barrier())"
    )
    assert _severities(ev) == {"critical"}
    (item,) = heldout.found(ev)["evidence-python-exception"].items
    assert "(on 104.171.201.171)" in item
    # (the box's own "│" at each line's end: no terminal pane's border)
    assert not any("pane" in m for m in heldout.said(ev))


_RICH_BOX = (
    "╭───────────────────── Traceback (most recent call last) ──────────────────────╮\n"
    "│ /usr/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py:3696 │\n"
    "│ in barrier                                                                   │\n"
    "│                                                                              │\n"
    "│   3695 │   else:                                                             │\n"
    "│ ❱ 3696 │   │   work = default_pg.barrier(opts=opts)                          │\n"
    "│   3697 │   │   if async_op:                                                  │\n"
)


def test_a_whole_rich_traceback_reads_its_exception_under_the_box(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "".join(f"10.0.0.5: {line}\n" for line in (_RICH_BOX + "╰" + "─" * 78 + "╯").splitlines())
        + "10.0.0.5: RuntimeError: Connection closed by peer [10.0.0.6]:52233\n",
    )
    (raised,) = ev.failures
    assert (raised["kind"], raised["line"], raised["exception_type"]) == (
        "python_exception",
        9,
        "RuntimeError",
    )
    assert raised["message"].startswith("RuntimeError: Connection closed by peer")
    assert raised["host"] == "10.0.0.5"
    assert "last frame: torch/distributed/distributed_c10d.py:3696 in barrier" in raised["message"]


def test_a_rich_box_closed_with_no_exception_under_it_is_not_read(tmp_path: Path) -> None:
    ev = _write(tmp_path, _RICH_BOX + "╰" + "─" * 78 + "╯\n" + "Epoch 1 done\n")
    assert not ev.failures
