"""Outputs of round VVVV's held-out evaluation (set 717, NVIDIA tool outputs, part b) that the
advisor read in part before this change (tests/data/evidence_heldout_82, sources in
tests/data/SOURCES.md): six nccl-tests ``sendrecv_perf`` runs on V100 pairs, each after its own
shell prompt setting CUDA_VISIBLE_DEVICES and NCCL_P2P_DISABLE, four of them dying with
'unhandled system error'. Each failure was listed by its line only, not by the run (GPUs, P2P
setting) it ended, so the pattern (every run without NVLink P2P fails) was hidden; and the good
0,3 run's out-of-place peak (37.1 GB/s) read below its own 38.98 GB/s footer average with no
word that the footer also counts the in-place timing (40.86 GB/s)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_82"

SENDRECV = "nccl_tests_sendrecv_perf_v100_dgx1_pairs_unhandled_system_error_4of6_runs_empovit_nvidia_tools.log"

_write = partial(heldout.load_copy, name="copy.txt")


def _lines(first: int, last: int) -> list[str]:
    """Lines first..last (1-based, inclusive) of the real file."""
    return (HELDOUT / SENDRECV).read_text().splitlines()[first - 1 : last]


def _failed(ev: EvidenceFacts) -> list[dict[str, object]]:
    return [f for f in ev.failures if f["kind"] == "nccl_call_failure"]


def _busbw_notes(ev: EvidenceFacts) -> list[str]:
    _, outcome = heldout.imported(ev)
    return [n for n in heldout.items(outcome, "evidence-benchmark-busbw") if "peak n/a" not in n]


def test_each_failure_names_the_run_its_command_line_started() -> None:
    ev = load_paths([HELDOUT / SENDRECV])
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert ("evidence-nccl-call-failed", "critical") in heldout.above_info(outcome)
    failed = _failed(ev)
    assert [(f["line"], f["code_name"]) for f in failed] == [
        (11, "ncclSystemError"),
        (27, "ncclSystemError"),
        (58, "ncclSystemError"),
        (89, "ncclSystemError"),
    ]
    # the prompt lines above each failing run's "# nThread" header (l.1, 17, 48, 79)
    assert [f["call"] for f in failed] == [
        "common.cu:394 (the run of line 1: CUDA_VISIBLE_DEVICES=0,6 NCCL_P2P_DISABLE=0)",
        "common.cu:394 (the run of line 17: CUDA_VISIBLE_DEVICES=0,6 NCCL_P2P_DISABLE=1)",
        "common.cu:394 (the run of line 48: CUDA_VISIBLE_DEVICES=0,2 NCCL_P2P_DISABLE=1)",
        "common.cu:394 (the run of line 79: CUDA_VISIBLE_DEVICES=0,3 NCCL_P2P_DISABLE=1)",
    ]
    items = heldout.items(outcome, "evidence-nccl-call-failed")
    assert len(items) == 4
    assert "(the run of line 17: CUDA_VISIBLE_DEVICES=0,6 NCCL_P2P_DISABLE=1)" in items[1]
    assert items[1].endswith(", line 27)")
    # the passing runs (0,2 and 0,3 with P2P on, l.33 and l.64) are no failure
    assert not any("line 33" in i or "line 64" in i for i in items)


def test_the_passing_runs_figures_and_the_in_place_half_beside_the_peak() -> None:
    notes = _busbw_notes(load_paths([HELDOUT / SENDRECV]))
    assert len(notes) == 2
    # 0,2: 22.63 GB/s both halves (l.43), footer 22.6314 (l.45): no in-place word
    assert "peak 181.0 Gbit/s (22.6314 and 22.63 GB/s" in notes[0]
    assert "in-place" not in notes[0].split(";")[0]
    # 0,3: out-of-place 37.10, in-place 40.86 (l.74), footer 38.9777 (l.76): the mean of both
    assert "peak 296.8 Gbit/s out-of-place (in-place 326.9 Gbit/s, 40.86 GB/s" in notes[1]
    assert "(38.9777 and 37.1 GB/s" in notes[1]


def test_a_bare_command_line_without_a_prompt_names_its_run(tmp_path: Path) -> None:
    command = (
        "CUDA_VISIBLE_DEVICES=1,5 NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=0 ./build/sendrecv_perf -g 2"
    )
    ev = _write(tmp_path, "\n".join([command, *_lines(18, 32)]) + "\n")
    level, _ = heldout.imported(ev)
    assert level == "NOT READY"
    (failed,) = _failed(ev)
    assert failed["line"] == 11
    assert failed["call"] == (
        "common.cu:394 (the run of line 1: CUDA_VISIBLE_DEVICES=1,5 NCCL_P2P_DISABLE=1 "
        "NCCL_SHM_DISABLE=0)"
    )


def test_a_run_without_its_command_line_is_worded_as_before(tmp_path: Path) -> None:
    ev = _write(tmp_path, "\n".join(_lines(18, 32)) + "\n")
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (failed,) = _failed(ev)
    assert failed["call"] == "common.cu:394"
    (item,) = heldout.items(outcome, "evidence-nccl-call-failed")
    assert "the run of line" not in item and item.endswith(", line 10)")


def test_a_failure_after_another_runs_footer_is_not_given_that_runs_command(
    tmp_path: Path,
) -> None:
    # the good 0,2 run (l.33-47) then the failure lines of a run whose header the copy lost
    ev = _write(tmp_path, "\n".join([*_lines(33, 46), *_lines(89, 94)]) + "\n")
    (failed,) = _failed(ev)
    assert failed["call"] == "common.cu:394"


def test_a_single_healthy_run_stays_ready(tmp_path: Path) -> None:
    ev = _write(tmp_path, "\n".join(_lines(64, 78)) + "\n")
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    (note,) = _busbw_notes(ev)
    assert "peak 296.8 Gbit/s out-of-place (in-place 326.9 Gbit/s" in note
