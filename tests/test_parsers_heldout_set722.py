"""Outputs of round WWWW's held-out evaluation (set 722, Ascend logs) that the advisor read in
part or not at all before this change (tests/data/evidence_heldout_83, sources in
tests/data/SOURCES.md): torch_npu's failed aclnnCast, whose missing Cast kernel was read but
whose launch errno (561000, an aclnn status) and torch_npu code (ERR01005) went unnamed in the
finding; and an SGLang RL-loop harness's own tagged prints on NPUs ("[v4-rl2] ..."), no error
and a PASS banner, which were no format the advisor knew."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.parsers import logs
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_83"

CAST = "torch_npu_cann8rc2_aclnncast_ez9999_op_cast_no_binary_561000_llamafactory4610_cut.log"
RL_LOOP = "sglang_npu_dsv4_rl_loop_5_step_weight_sync_pass_easyr1npu.log"

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


# --- torch_npu's aclnnCast with no Cast kernel: the launch's errno and torch_npu's code named ----


def test_the_missing_cast_kernel_names_its_aclnn_errno_and_torch_npu_code() -> None:
    ev = _load(CAST)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-library-missing")
    assert item.startswith("CANN has no kernel binary for operator(s) Cast: ")
    assert "the launch of Cast returned errno 561000 (ACLNN_ERR_INNER, " in item
    assert "internal error" in item.split("errno 561000", 1)[1].split("line 7)", 1)[0]
    assert "torch_npu's code ERR01005 (OPS internal error: sub-module OPS, error code 005, " in item
    assert "line 9)" in item and item.endswith(", line 5)")
    (missing,) = [f for f in ev.failures if f["kind"] == "library_missing"]
    assert (missing["device"], missing["pid"], missing["rank"]) == (0, 11591, None)
    assert missing["torch_npu_code"] == "ERR01005"
    # (the EZ9999 block is still read beside it, on device 0)
    assert heldout.items(outcome, "evidence-hccl-other-error")[0].startswith("EZ9999 (device 0)")


def test_another_operator_device_rank_and_aclnn_status_are_said_as_printed(tmp_path: Path) -> None:
    text = (
        _text(CAST)
        .replace("Cast", "Range")
        .replace("errno:561000", "errno:561103")
        .replace("Device:0, RankID:-1", "Device:3, RankID:5")
    )
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-library-missing")
    assert item.startswith("Rank 5: CANN has no kernel binary for operator(s) Range: ")
    assert "the launch of Range returned errno 561103 (ACLNN_ERR_INNER_NULLPTR, " in item
    (missing,) = [f for f in ev.failures if f["kind"] == "library_missing"]
    assert (missing["device"], missing["rank"]) == (3, 5)


def test_an_unlisted_status_and_no_torch_npu_line_are_not_invented(tmp_path: Path) -> None:
    lines = _text(CAST).replace("errno:561000", "errno:561999").splitlines(keepends=True)
    ev = _write(tmp_path, "".join(lines[:7]))  # (cut before torch_npu's ERR line)
    _, outcome = heldout.imported(ev)
    (item,) = heldout.items(outcome, "evidence-library-missing")
    assert "returned errno 561999 (an aclnn status, line 7)" in item
    assert "ERR0" not in item and "torch_npu's code" not in item


# --- an SGLang RL-loop harness's own tagged prints: no error, its PASS banner --------------------


def test_the_tagged_rl_loop_prints_are_a_log_with_no_error_and_its_pass_banner() -> None:
    ev = _load(RL_LOOP)
    assert ev.files[0].formats == ["log"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    assert ev.failures == []
    ((line, note),) = heldout.notes(ev)
    assert line == 0
    assert "a program's own prints (each line tagged [v4-rl2]; " in note
    assert "SGLang 0.5.12.post2.dev434+gb13d3d18c (line 1)" in note
    assert "no line says an error; its result banner says PASS: " in note
    assert '"V4 RL LOOP PASS — attention weight-sync changes inference' in note
    assert note.endswith("(line 34), nothing more is read from it")


def test_another_tag_without_a_version_or_banner_is_still_read_as_healthy(tmp_path: Path) -> None:
    lines = _text(RL_LOOP).replace("[v4-rl2]", "[rl-check.v5]").splitlines(keepends=True)
    ev = _write(tmp_path, "".join(lines[1:33]))  # (no version line, no banner)
    level, _ = heldout.imported(ev)
    assert level == "READY"
    (note,) = heldout.said(ev)
    assert "each line tagged [rl-check.v5]), in no form the advisor reads: no line says an " in note
    assert "SGLang" not in note and "banner" not in note


def test_a_failed_weight_update_is_the_logs_first_error_not_healthy(tmp_path: Path) -> None:
    text = _text(RL_LOOP).replace(
        "step3 update_weights_from_tensor (5 attn tensors) -> (True, 'Success')",
        "step3 update_weights_from_tensor (5 attn tensors) -> (False, 'Failed to update weights')",
    )
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-log-error")
    assert "(False, 'Failed to update weights')" in item and item.endswith(", line 15)")
    assert "banner says PASS" not in " ".join(heldout.said(ev))


def test_a_fail_banner_alone_is_the_logs_failure(tmp_path: Path) -> None:
    ev = _write(tmp_path, _text(RL_LOOP).replace("LOOP PASS", "LOOP FAIL"))
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-log-error")
    assert item.startswith("[v4-rl2] === V4 RL LOOP FAIL — ") and item.endswith(", line 34)")


def test_lines_of_different_tags_or_too_few_are_not_one_programs_prints() -> None:
    lines = [line for line in _text(RL_LOOP).splitlines() if line.strip()]
    assert logs.own_tag(lines) == "v4-rl2"
    assert logs.own_tag(lines[:4]) is None  # (fewer than MIN_TAGGED_LINES)
    assert logs.own_tag([*lines[:6], "[other] step1 rollout 0.0s"]) is None
    assert logs.own_tag([*lines[:6], "step1 rollout 0.0s"]) is None
