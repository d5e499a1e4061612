"""Outputs of round EEEE's held-out evaluation (set 617, NVIDIA collective logs) that the advisor
read in part or not at all before this change (tests/data/evidence_heldout_67, sources in
tests/data/SOURCES.md): NCCL's ring set-up lines whose host prefixes a poster took off (and
numbered), read as a log of no known form; torch's NCCL failure pasted in reversed line order,
its "Last error:" (Duplicate GPU) left unsaid and its description counted as a second call."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_67"

RINGS = "nccl_2020_ring00_numbered_lines_no_host_prefix_16gpu_2node_ib_gdrdma_question.log"
REVERSED = "verl_torch_nccl2215_duplicate_gpu_rank9_rank1_reversed_traceback_order.log"

_DUPLICATE = "Duplicate GPU detected : rank 9 and rank 1 both on CUDA device 34000"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


# --- NCCL's ring lines without their host prefixes ---------------------------------------------


def _via_note(ev: EvidenceFacts) -> str:
    (note,) = [m for m in heldout.said(ev) if "NCCL's channels go" in m]
    return note


def test_numbered_ring_lines_without_host_prefix_are_nccls_healthy_set_up() -> None:
    ev = _load(RINGS)
    assert ev.failures == []
    note = _via_note(ev)
    # (9 hops within a node over P2P/IPC, 2 across the nodes over IB with GPU Direct RDMA)
    assert "via P2P/IPC (9 line(s)" in note
    assert "via NET/IB (2 line(s): over the network; all with /GDRDMA" in note
    assert not any("no form the advisor reads" in m for m in heldout.said(ev))
    assert not any("SHM" in m or "Socket" in m for m in heldout.said(ev))  # nothing invented
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_bare_channel_lines_in_other_forms_read_the_same(tmp_path: Path) -> None:
    # NCCL 2.7+'s "Channel" wording, no device and no number, a quote's ">"
    ev = _write(
        tmp_path,
        "> NCCL INFO Channel 00/0 : 0[1b000] -> 1[1c000] via P2P/IPC/read\n"
        "> NCCL INFO Channel 01/0 : 0[1b000] -> 1[1c000] via P2P/IPC/read\n"
        "> NCCL INFO Channel 00/0 : 1[1c000] -> 2[1b000] [send] via NET/IB/0/GDRDMA\n",
    )
    assert ev.failures == []
    note = _via_note(ev)
    assert "via P2P/IPC/read (2 line(s)" in note and "via NET/IB (1 line(s)" in note
    assert "via NET/IB (1 line(s): over the network; all with /GDRDMA" in note


def test_one_quoted_ring_line_in_prose_is_no_nccl_log(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "Why does my job print this?\n"
        "[4] NCCL INFO Ring 00 : 12[41000] -> 11[2d000] via P2P/IPC\n"
        "Thanks\n",
    )
    assert not any("NCCL's channels go" in m for m in heldout.said(ev))


def test_bare_ring_lines_beside_a_warn_still_fail(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "1  [4] NCCL INFO Ring 00 : 12[41000] -> 11[2d000] via P2P/IPC\n"
        "2  [5] NCCL INFO Ring 00 : 13[42000] -> 12[41000] via P2P/IPC\n"
        "node1:123:456 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.2<1234> with "
        "error 12, opcode 0, len 0, vendor err 129\n",
    )
    assert ev.failures
    level, _ = heldout.imported(ev)
    assert level == "NOT READY"


# --- torch's NCCL failure pasted in reversed line order -----------------------------------------


def test_reversed_paste_says_the_duplicate_gpu_once() -> None:
    ev = _load(REVERSED)
    (call,) = ev.failures  # (the description on line 3 is the same failure, not a second call)
    assert (call["kind"], call["line"], call["code_name"]) == (
        "nccl_call_failure",
        4,
        "ncclInvalidUsage",
    )
    assert call["exception_type"] == _DUPLICATE
    assert call["rank"] is None and call["host"] is None  # (no rank tag, no host printed)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-nccl-call-failed", "critical")]
    (item,) = heldout.items(outcome, "evidence-nccl-call-failed")
    assert f"last NCCL error: {_DUPLICATE}" in item
    assert "log: NCCL 2.21.5 (torch's account of the failed call)" in heldout.said(ev)


_ERROR_IN = (
    "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/"
    "ProcessGroupNCCL.cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for details), "
    "NCCL version 2.20.5\n"
)


def test_reversed_paste_of_another_result_and_warn(tmp_path: Path) -> None:
    warn = (
        "socketStartConnect: Connect to 10.1.2.3<45678> failed : Software caused connection abort"
    )
    ev = _write(
        tmp_path,
        f"{warn}\n"
        "Last error:\n"
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or "
        "device error.\n" + _ERROR_IN,
    )
    (call,) = ev.failures
    assert (call["line"], call["code_name"], call["exception_type"]) == (4, "ncclSystemError", warn)


def test_a_description_of_another_result_above_is_not_this_ones_warn(tmp_path: Path) -> None:
    # (the block above describes ncclInvalidUsage; the failure below is a system error: its own,
    # unrelated block, not a reversed copy of this one's)
    ev = _write(
        tmp_path,
        f"{_DUPLICATE}\n"
        "Last error:\n"
        "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n" + _ERROR_IN,
    )
    calls = [f for f in ev.failures if f["line"] == 4]
    (call,) = calls
    assert call["code_name"] == "ncclSystemError"
    assert call["exception_type"] != _DUPLICATE


def test_torchs_own_order_still_reads_its_last_error(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        _ERROR_IN.replace("unhandled system error", "invalid usage")
        + "ncclInvalidUsage: This usually reflects invalid usage of NCCL library.\n"
        "Last error:\n"
        f"{_DUPLICATE}\n",
    )
    (call,) = ev.failures
    assert (call["line"], call["code_name"], call["exception_type"]) == (
        1,
        "ncclInvalidUsage",
        _DUPLICATE,
    )
