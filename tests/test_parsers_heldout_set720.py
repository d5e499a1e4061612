"""Outputs of round VVVV's held-out evaluation (set 720, launcher and framework logs) that the
advisor read wrong or in part before this change (tests/data/evidence_heldout_82, sources in
tests/data/SOURCES.md): libfabric's core unable to start GDRCopy under torchrun's ``[default0]:``
tag was unreadable (its core lines are skipped as start-up noise, nothing else was in the copy);
Levanter's "Initialized jax.distributed with 8 devices, 1 hosts" was no format the advisor knew;
and PaddlePaddle's launcher's "ABORT!!! Out of all 4 trainers, the trainer process with rank=[3]
was aborted" was an unknown program's error line (a warning), not a failed rank; and an
unknown program's error line longer than 300 characters (XLA's "The CUDA linking API did not
work ... nvlink fatal : Input file '...cubin' newer than toolkit (118 vs 117)") was quoted cut at
300, its cause in the cut-off tail."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_82"

GDRCOPY = "hyperpod_p6_b200_torchrun_libfabric_gdrcopy_gdr_open_failed_benign_tpinference72b.log"
LEVANTER = "levanter_jax_distributed_initialized_8_devices_1_host_slurm_h100_levanter363.log"
XLA_NVLINK = (
    "jax_0_4_8_xla_gpu_compiler_cuda_linking_api_nvlink_linker_cubin_newer_than_toolkit_118_vs_117"
    "_jax16063.log"
)
PADDLE = "paddle_2_0_launch_utils_abort_4_trainers_rank3_aborted_aistudio_paddle33074.log"

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


def test_libfabric_without_gdrcopy_under_torchrun_is_a_note_and_ready() -> None:
    ev = _load(GDRCOPY)
    assert ev.files[0].status == "read" and ev.files[0].formats == ["log"]
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    ((line, note),) = _said(ev)
    assert line == 1
    assert "could not start GDRCopy" in note and "process(es) 78 (local rank(s) 0)" in note
    assert "lines 1, 2" in note and "not an error of the job" in note


def test_gdrcopy_of_another_rank_untagged_and_beside_other_lines(tmp_path: Path) -> None:
    other = _text(GDRCOPY).replace("[default0]:", "[default5]:").replace(":78:", ":91:")
    ev = _write(tmp_path, other)
    ((_, note),) = _said(ev)
    assert "process(es) 91 (local rank(s) 5)" in note
    bare = _text(GDRCOPY).replace("[default0]:", "")
    ((_, note),) = _said(_write(tmp_path, bare))
    assert "process(es) 78, lines 1, 2" in note
    # an EFA provider's failed transfer beside it is still read as libfabric's warning
    failed = (
        bare + "libfabric:78:1775102140::efa:cq:efa_rdm_txe_handle_error():737<warn> "
        "err: 5, message: Invalid address\n"
    )
    ev = _write(tmp_path, failed)
    assert not any("could not start GDRCopy" in n for _, n in _said(ev))
    assert heldout.imported(ev)[0] != "READY"


def test_levanters_jax_distributed_start_is_read_with_devices_and_hosts() -> None:
    ev = _load(LEVANTER)
    assert ev.files[0].status == "read" and ev.files[0].formats == ["prechecks"]
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    ((line, note),) = _said(ev)
    assert line == 1
    assert "8 device(s) on 1 host(s)" in note and "no error" in note


def test_levanters_later_processes_wording_and_another_size(tmp_path: Path) -> None:
    later = _text(LEVANTER).replace("8 devices, 1 hosts", "16 devices, 2 processes")
    ((_, note),) = _said(_write(tmp_path, later))
    assert "16 device(s) on 2 host(s)" in note


def test_paddles_aborted_trainer_is_not_ready_naming_rank_3() -> None:
    ev = _load(PADDLE)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-launcher-exit"]
    assert finding.severity == "critical"
    (item,) = [str(i) for i in finding.items]
    assert "trainer rank 3 of 4" in item and "workerlog.3" in item
    assert "task/rank 3" in item and "line 2" in item


def test_paddles_abort_of_two_ranks_names_each(tmp_path: Path) -> None:
    two = (
        _text(PADDLE).replace("rank=[3]", "rank=[2, 5]").replace("all 4 trainers", "all 8 trainers")
    )
    level, outcome = heldout.imported(_write(tmp_path, two))
    assert level == "NOT READY"
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-launcher-exit"]
    items = " ".join(str(i) for i in finding.items)
    assert "trainer rank 2 of 8" in items and "trainer rank 5 of 8" in items
    assert "trainer rank 3" not in items


def test_paddles_launcher_terminating_without_abort_is_not_a_failed_rank(tmp_path: Path) -> None:
    healthy = "".join(
        line for line in _text(PADDLE).splitlines(keepends=True) if "launch_utils.py:307]" in line
    )
    ev = _write(tmp_path, healthy)
    _, outcome = heldout.imported(ev)
    assert not [f for f in outcome.findings if f.rule_id == "evidence-launcher-exit"]


def test_a_long_unknown_error_line_keeps_its_tail_with_the_cause() -> None:
    ev = _load(XLA_NVLINK)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-log-error"]
    (item,) = [str(i) for i in finding.items]
    # the head as written, then the line's last characters: the cubin built by a newer CUDA
    # (11.8) than the device linker's (11.7), which the old 300-character cut lost
    assert item.startswith("E external/xla/xla/service/gpu/gpu_compiler.cc:1592] The CUDA linking")
    assert "newer than toolkit (118 vs 117)" in item and " … " in item
    assert item.endswith(f"{XLA_NVLINK}, line 1)")
