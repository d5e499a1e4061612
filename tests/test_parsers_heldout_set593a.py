"""Outputs of round AAAA's held-out set 593 that the advisor read wrong or not at all before this
change (tests/data/evidence_heldout_63, sources in tests/data/SOURCES.md): torch's
TORCH_DISTRIBUTED_DEBUG=DETAIL collective mismatch, alone, behind a rank's tag and inside torch
elastic's summary (whose root cause was its traceback's heading); c10d's "DDP Initialized with:"
record of a healthy start."""

from __future__ import annotations

import contextlib
import time
from functools import partial
from pathlib import Path

import pytest

from advisor.evidence.load import EvidenceFacts
from advisor.parsers import ParseError, logs
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_63"

SUMMARY = (
    "torchrun_torch2.6_detail_barrier_mismatch_rank1_seq1_vs_rank2_seq0_failure_summary_cut.log"
)
SHAPES = "opendde_detail_mismatch_allgather_base_rank1_1435_vs_rank2_1436_cut.log"
TAGGED = (
    "msswift9443_rank1_prefixed_detail_mismatch_allreduce_seq3104_shape_195812480_vs_51123456.log"
)
DDP_INIT = "torch1.9dev_ddp_logger_detail_init_2ranks_nccl_wrapped_healthy.log"

_OPTIONS = (
    "TensorDtypes=BFloat16, TensorDeviceTypes=TensorOptions(dtype=float (default), device=cuda, "
    "layout=Strided (default), requires_grad=false (default), pinned_memory=false (default), "
    "memory_format=(nullopt)))"
)


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


def _mismatch_line(own: str, other: str) -> str:
    return (
        "RuntimeError: Detected mismatch between collectives on ranks. Rank 3 is running "
        f"collective: CollectiveFingerPrint({own}), but Rank 5 is running collective: "
        f"CollectiveFingerPrint({other})."
    )


def _severities(ev: EvidenceFacts) -> dict[str, str]:
    return {rule: f.severity for rule, f in heldout.found(ev).items() if f.severity != "info"}


def test_a_shape_mismatch_cut_at_its_tail_names_both_ranks_and_the_shapes() -> None:
    ev = _load(SHAPES)
    assert ev.files[0].formats == ["log"]
    (mismatch,) = ev.failures
    assert (mismatch["kind"], mismatch["line"], mismatch["rank"], mismatch["remote_rank"]) == (
        "collective_fingerprint_mismatch",
        1,
        1,
        2,
    )
    assert (mismatch["op"], mismatch["seq"]) == ("all_gather", 0)
    assert _severities(ev) == {"evidence-collective-fingerprint-mismatch": "critical"}
    (item,) = heldout.found(ev)["evidence-collective-fingerprint-mismatch"].items
    assert item.startswith(
        "rank 1 ran _ALLGATHER_BASE (sequence number 0, tensor shape [359, 1, 1435, 16], BFloat16)"
        " while rank 2 ran _ALLGATHER_BASE (sequence number 0, tensor shape [359, 1, 1436, 16], "
        "BFloat16): they differ in tensor shape [359, 1, 1435, 16] vs [359, 1, 1436, 16] ("
    )
    # (same sequence number, op and dtype: only the shape is said to differ)
    assert "sequence number 0 vs" not in item and "dtype" not in item
    assert not any("no form the advisor reads" in m for m in heldout.said(ev))


def test_a_rank_tagged_mismatch_reads_the_same() -> None:
    ev = _load(TAGGED)
    (mismatch,) = ev.failures
    assert (mismatch["rank"], mismatch["remote_rank"], mismatch["seq"], mismatch["op"]) == (
        1,
        0,
        3104,
        "all_reduce",
    )
    assert _severities(ev) == {"evidence-collective-fingerprint-mismatch": "critical"}
    (item,) = heldout.found(ev)["evidence-collective-fingerprint-mismatch"].items
    assert "they differ in tensor shape [195812480] vs [51123456] (" in item


def test_the_elastic_root_cause_is_the_exception_its_traceback_ends_in() -> None:
    ev = _load(SUMMARY)
    kinds = {f["kind"]: f for f in ev.failures}
    assert set(kinds) == {"elastic_failure", "collective_fingerprint_mismatch"}
    failed = kinds["elastic_failure"]
    assert (failed["rank"], failed["host"], failed["pid"], failed["exit_code"]) == (
        1,
        "lenovo",
        340055,
        1,
    )
    (root,) = heldout.found(ev)["evidence-elastic-root-cause"].items
    assert (
        "exited with 1: the exception its traceback ends in (line 23): RuntimeError: Detected "
        "mismatch between collectives on ranks. Rank 1 is running collective:" in root
    )
    assert "Traceback (most recent call last)" not in root
    mismatch = kinds["collective_fingerprint_mismatch"]
    assert (mismatch["line"], mismatch["rank"], mismatch["remote_rank"], mismatch["seq"]) == (
        23,
        1,
        2,
        1,
    )
    (item,) = heldout.found(ev)["evidence-collective-fingerprint-mismatch"].items
    assert item.startswith(
        "rank 1 ran BARRIER (sequence number 1) while rank 2 ran BARRIER (sequence number 0): "
        "they differ in sequence number 1 vs 0 ("
    )


def test_an_entry_whose_traceback_is_cut_in_its_frames_keeps_the_heading(
    tmp_path: Path,
) -> None:
    ev = _write(
        tmp_path,
        (HELDOUT / SUMMARY).read_text().split("  RuntimeError:", 1)[0],
    )
    (failed,) = ev.failures
    assert failed["kind"] == "elastic_failure"
    assert failed["message"] == "Traceback (most recent call last):"  # (no exception is invented)


def test_entries_each_read_their_own_traceback(tmp_path: Path) -> None:
    entry = (
        "[{n}]:\n  time      : 2025-03-11_18:33:20\n  host      : node{n}\n"
        "  rank      : {n} (local_rank: {n})\n  exitcode  : 1 (pid: 10{n})\n"
        "  error_file: /tmp/e{n}/error.json\n  traceback : Traceback (most recent call last):\n"
        '    File "train.py", line 9, in main\n      step()\n  {exc}\n'
    )
    ev = _write(
        tmp_path,
        "=" * 60 + "\ntrain.py FAILED\n" + "-" * 60 + "\nFailures:\n"
        + entry.format(n=1, exc="ValueError: bad batch")
        + "-" * 60 + "\nRoot Cause (first observed failure):\n"
        + entry.format(n=0, exc="torch.OutOfMemoryError: CUDA out of memory.")
        + "=" * 60 + "\n",
    )  # fmt: skip
    by_rank = {f["rank"]: f["message"] for f in ev.failures if f["kind"] == "elastic_failure"}
    assert by_rank[1].endswith(": ValueError: bad batch")
    assert by_rank[0].endswith(": torch.OutOfMemoryError: CUDA out of memory.")


@pytest.mark.parametrize(
    ("own", "other", "differ"),
    [
        # a collective skipped on one rank: another op at another sequence number
        (
            "SequenceNumber=1649OpType=BARRIER",
            "SequenceNumber=0OpType=GATHER",
            "sequence number 1649 vs 0, collective BARRIER vs GATHER",
        ),
        (
            f"SequenceNumber=7, OpType=ALLREDUCE, TensorShape=[8], {_OPTIONS.replace('BFloat16', 'Float')}",
            f"SequenceNumber=7, OpType=ALLREDUCE, TensorShape=[8], {_OPTIONS}",
            "dtype Float vs BFloat16",
        ),
    ],
)
def test_what_differs_is_read_from_both_fingerprints(
    tmp_path: Path, own: str, other: str, differ: str
) -> None:
    ev = _write(tmp_path, f"[rank3]: {_mismatch_line(own, other)}\n")
    (mismatch,) = ev.failures
    assert (mismatch["rank"], mismatch["remote_rank"]) == (3, 5)
    assert mismatch["exception_type"].endswith(f": they differ in {differ}")


def test_a_mismatch_cut_inside_the_other_fingerprint_compares_what_is_whole(
    tmp_path: Path,
) -> None:
    line = _mismatch_line(
        f"SequenceNumber=2, OpType=ALLGATHER, TensorShape=[4, 1435], {_OPTIONS}",
        "SequenceNumber=2, OpType=ALLGATHER, TensorShape=[4, 14",
    )
    ev = _write(tmp_path, line[: line.rindex("[4, 14") + 6] + "\n")
    (mismatch,) = ev.failures
    # (the other rank's shape is cut: not compared, nothing said to differ)
    assert mismatch["exception_type"].endswith("the copy is cut before what differs")
    # cut before the other rank: the reporting rank's own collective, and no other rank
    head = _mismatch_line(f"SequenceNumber=2, OpType=ALLGATHER, TensorShape=[4], {_OPTIONS}", "")
    ev = _write(tmp_path, head.split(", but Rank", 1)[0][:200] + "\n")
    (mismatch,) = ev.failures
    assert mismatch["remote_rank"] is None
    assert mismatch["exception_type"] == (
        "rank 3 ran ALLGATHER (sequence number 2, tensor shape [4], BFloat16): the copy is cut "
        "before the rank it differs from"
    )


def test_older_torchs_inconsistent_collective_names_only_its_own_rank(tmp_path: Path) -> None:
    # torch 1.10-1.12: no sequence number, no other rank
    ev = _write(
        tmp_path,
        "RuntimeError: Detected mismatch between collectives on ranks. Rank 0 is running "
        "inconsistent collective: CollectiveFingerPrint(OpType=ALLREDUCE, TensorShape=[20, 10], "
        f"{_OPTIONS.replace('BFloat16', 'Float')}\n",
    )
    (mismatch,) = ev.failures
    assert (mismatch["rank"], mismatch["remote_rank"], mismatch["seq"]) == (0, None, None)
    assert mismatch["exception_type"] == (
        "rank 0 ran ALLREDUCE (tensor shape [20, 10], Float), another rank a different one "
        "(torch of this age names neither)"
    )


def test_the_same_mismatch_twice_is_one_failure(tmp_path: Path) -> None:
    line = _mismatch_line("SequenceNumber=1OpType=BARRIER", "SequenceNumber=0OpType=BARRIER")
    ev = _write(tmp_path, f"[rank3]: {line}\n[rank3]: {line}\n")
    assert len(ev.failures) == 1


def test_ddp_initialized_record_is_a_healthy_start() -> None:
    ev = _load(DDP_INIT)
    assert ev.files[0].formats == ["log"]
    assert not ev.failures
    assert _severities(ev) == {}
    assert (
        "log: DistributedDataParallel constructed on rank(s) 1 (c10d's logger: world size 2, "
        "backend nccl, module Linear, device_ids 1, bucket_cap_mb 25, find_unused_parameters 0); "
        "no error"
    ) in heldout.said(ev)


def test_newer_torchs_ddp_record_a_field_a_line(tmp_path: Path) -> None:
    # torch 1.10 on: the logging data's maps printed "key: value" a line (logger.cpp)
    fields = (
        "broadcast_buffers: 1\nbucket_cap_bytes: 26214400\nfind_unused_parameters: 0\n"
        "world_size: 4\nbackend_name: nccl\ndevice_ids: 2\nmodule_name: "
        + "VeryLongModuleNameThatMakesThisTheLongestLineOfTheRecordByFar\n"
    )
    ev = _write(
        tmp_path,
        "I0310 10:00:00.000000 1234 logger.cpp:210] [Rank 2]: DDP Initialized with: \n"
        + fields
        + "I0310 10:00:00.000000 1235 logger.cpp:210] [Rank 3]: DDP Initialized with: \n"
        + fields,
    )
    assert not ev.failures
    (note,) = [m for m in heldout.said(ev) if "DistributedDataParallel" in m]
    assert "rank(s) 2, 3 " in note
    assert "world size 4, backend nccl" in note and "bucket_cap_bytes 26214400" in note


def test_ddp_record_beside_an_error_is_not_called_healthy(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "I0226 19:12:47.109243 2818475 logger.cpp:140] [Rank 1]: DDP Initialized with:\n"
        "world_size: 2 module_name: Linear backend_name: nccl\n"
        "Traceback (most recent call last):\n"
        '  File "train.py", line 3, in <module>\n'
        "RuntimeError: CUDA error: an illegal memory access was encountered\n",
    )
    assert ev.failures
    assert not any("DistributedDataParallel constructed" in m for m in heldout.said(ev))


def test_a_long_mismatch_line_reads_in_linear_time() -> None:
    line = (
        "Detected mismatch between collectives on ranks. Rank 1 is running collective: "
        "CollectiveFingerPrint(" + "TensorShape=[" + "1, " * 100000 + "SequenceNumber=" + "9" * 100000
        + ", but Rank 2 is running collective: CollectiveFingerPrint(" + "OpType=" + "A" * 100000
    )  # fmt: skip
    started = time.process_time()
    with contextlib.suppress(ParseError):
        logs.parse(line + "\n" + line + "\n")
    assert time.process_time() - started < 5.0
