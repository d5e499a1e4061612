"""Outputs of round QQQQ's held-out evaluation (set 686, Ascend logs) that the advisor read wrong
or in part before this change (tests/data/evidence_heldout_77, sources in tests/data/SOURCES.md):
MindIE's daemon start-up log ("Daemon start success!") was no format the advisor knew; ACL's
repeated de-initialization at exit (100037, EH9999 "repeatedly finalized") was read as a runtime
call that stopped the process on its device; a plog whose exception dump (IDEDD) came before the
runtime's AI Core exception named the dump's line, not the exception; and an EI0002 whose own text
gives HCCL_EXEC_TIMEOUT's default as 1800 s was answered with our 1836 s alone."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.rules.findings import RulesOutcome
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_77"

MINDIE = "mindie_2.2rc1_k3s_engine_daemon_start_success_healthy_sidecar_mindieverify.log"
FINALIZE = "torch_npu_acl_repeated_finalize_100037_eh9999_benign_at_exit_npunvme.log"
PLOG = "cann_plog_idedd_runtime_stream47_aicore_exception_0x26_glm52_pd_vllmascend16535_cut.log"
EI0002 = "torch_npu_2023_npusync_107020_ei0002_notify_wait_timeout_allreduce_enp69s0_lf975_cut.log"

_write = partial(heldout.load_copy, name="copy.log")

SYNC_107020 = (
    "npuSynchronizeDevice:/usr1/02/workspace/pytorch/torch_npu/csrc/core/npu/NPUStream.cpp:370 "
    "NPU error, error code is 107020.\n"
)
"""torch_npu's failed synchronize (a runtime task time-out), a real failure to add to a copy."""


_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _items(outcome: RulesOutcome, rule_id: str) -> list[str]:
    (finding,) = [f for f in outcome.findings if f.rule_id == rule_id]
    return [str(item) for item in finding.items]


def _rules(outcome: RulesOutcome) -> list[str]:
    return [f.rule_id for f in outcome.findings]


# --- MindIE's daemon start-up log ---------------------------------------------------------------


def test_a_mindie_daemon_that_said_it_started_is_read_ready_with_what_it_says() -> None:
    ev = _load(MINDIE)
    assert ev.files[0].status == "read" and ev.files[0].formats == ["log"]
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    (item,) = _items(outcome, "evidence-run-success")
    assert "'Daemon start success!' (line 5)" in item
    assert "its main process 418 (g_mainPid, line 4)" in item
    assert "/usr/local/Ascend/mindie/2.2.RC1/mindie-service/conf/config.json (line 6)" in item
    assert "config manager initialised (line 7)" in item


def test_another_daemon_pid_is_the_one_named(tmp_path: Path) -> None:
    ev = _write(tmp_path, _text(MINDIE).replace("418", "90211"))
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    (item,) = _items(outcome, "evidence-run-success")
    assert "its main process 90211 (g_mainPid, line 4)" in item


def test_a_failure_after_the_daemon_started_is_not_cleared_by_the_start(tmp_path: Path) -> None:
    ev = _write(tmp_path, _text(MINDIE) + SYNC_107020)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert "evidence-npu-runtime-error" in _rules(outcome)
    assert "evidence-run-success" not in _rules(outcome)


def test_the_start_words_quoted_in_prose_are_no_start(tmp_path: Path) -> None:
    # a script that waits for the words, not the daemon that printed them
    ev = _write(tmp_path, "[INFO] Wait for 'Daemon start success!' in logs...\n")
    assert ev.files[0].status != "read"


# --- ACL de-initialized twice at exit -------------------------------------------------------------


def test_acl_finalized_twice_is_a_note_not_a_runtime_failure() -> None:
    ev = _load(FINALIZE)
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    assert "evidence-npu-runtime-error" not in _rules(outcome)
    assert "evidence-hccl-other-error" not in _rules(outcome)
    (item,) = _items(outcome, "evidence-acl-repeat-finalize")
    assert item.startswith("Process 476369: acl.finalize (aclFinalize) was called again")
    assert "(lines 1, 5)" in item and ", line 1)" in item
    assert "stopped on its device" not in " ".join(str(f.message) for f in outcome.findings)


def test_another_process_finalized_twice_is_named(tmp_path: Path) -> None:
    ev = _write(tmp_path, _text(FINALIZE).replace("476369", "31337"))
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    (item,) = _items(outcome, "evidence-acl-repeat-finalize")
    assert item.startswith("Process 31337: ")


def test_a_real_runtime_failure_beside_the_double_finalize_stays_critical(tmp_path: Path) -> None:
    ev = _write(tmp_path, SYNC_107020 + _text(FINALIZE))
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (failed,) = _items(outcome, "evidence-npu-runtime-error")
    assert "107020" in failed and "100037" not in failed
    (note,) = _items(outcome, "evidence-acl-repeat-finalize")
    assert "(lines 2, 6)" in note


# --- a plog's exception dump before the runtime's AI Core exception ------------------------------


def test_the_runtime_aicore_exception_is_named_not_the_dump_line() -> None:
    ev = _load(PLOG)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = _items(outcome, "evidence-hccl-plog-error")
    assert "Stream Synchronize failed, stream_id=47, retCode=0x26, [aicore exception]" in item
    assert item.startswith("RUNTIME error (the exception dump logged before it, line 1)")
    assert item.endswith(", line 3)")
    assert "load tiling data" not in item


def test_another_process_and_stream_is_named(tmp_path: Path) -> None:
    text = _text(PLOG).replace("289610", "5150").replace("stream_id=47", "stream_id=12")
    ev = _write(tmp_path, text)
    (item,) = _items(heldout.imported(ev)[1], "evidence-hccl-plog-error")
    assert "stream_id=12, retCode=0x26" in item and item.endswith(", line 3)")


def test_a_dump_with_no_runtime_line_after_it_is_still_named(tmp_path: Path) -> None:
    # the dump's lines alone (the copy cut before the runtime's): nothing else to name
    ev = _write(tmp_path, "".join(_text(PLOG).splitlines(keepends=True)[:2]))
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = _items(outcome, "evidence-hccl-plog-error")
    assert item.startswith("IDEDD error: ") and "load tiling data" in item


# --- EI0002 with its own default time-out ---------------------------------------------------------


def test_ei0002_says_the_logs_own_default_exec_timeout() -> None:
    ev = _load(EI0002)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = _items(outcome, "evidence-hccl-exec-timeout")
    assert "A rank the log does not name waited in all_reduce" in item
    # (review 63a: the figure is fixed text of HCCL's message table, said as the message's words)
    assert "EI0002's message text says 'default 1800s' for HCCL_EXEC_TIMEOUT (line 3)" in item
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-hccl-exec-timeout"]
    assert "1800 s in CANN 6.x" in finding.reference


def test_a_newer_logs_default_is_the_one_said(tmp_path: Path) -> None:
    ev = _write(tmp_path, _text(EI0002).replace("default 1800s", "default 1836s"))
    (item,) = _items(heldout.imported(ev)[1], "evidence-hccl-exec-timeout")
    assert "says 'default 1836s' for HCCL_EXEC_TIMEOUT (line 3)" in item and "1800" not in item


def test_an_ei0002_without_its_cause_paragraph_states_no_default(tmp_path: Path) -> None:
    ev = _write(tmp_path, "".join(_text(EI0002).splitlines(keepends=True)[:2]))
    (item,) = _items(heldout.imported(ev)[1], "evidence-hccl-exec-timeout")
    assert "HCCL_EXEC_TIMEOUT" not in item
