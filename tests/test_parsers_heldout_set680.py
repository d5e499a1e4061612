"""Outputs of round PPPP's held-out evaluation (set 680, Ascend logs; and one of set 684) that
the advisor read wrong, in part or with a note said twice before this change
(tests/data/evidence_heldout_76, sources in tests/data/SOURCES.md): vLLM's warning that its CUDA
kernels (vllm._C) did not load, expected under vllm-ascend's platform plugin, was read as a
program that could not load its libraries and "stopped there", NOT READY; a vLLM engine core's
``ValueError: No available memory for the cache blocks`` copied with a blank line between every
two lines was not found under its frame, only the APIServer traceback the copy ends inside; and
a Lightning log whose store barrier waits said its note of the ranks started twice."""

from __future__ import annotations

from functools import partial

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_76"

STARTUP = "vllm_ascend_0102_serve_startup_benign_plugin_warnings_vllmascend3316_cut.log"
NO_KV = "vllm_ascend_two_servers_one_npu_no_memory_for_kv_cache_blocks_vllmascend5707_cut.log"
BARRIER = "lightning_store_based_barrier_worker_count_1_of_8_idiffface14_cut.log"

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


# --- vLLM's vllm._C warning under vllm-ascend's plugin --------------------------------------


def test_the_vllm_c_import_warning_under_the_ascend_plugin_is_a_note_and_ready() -> None:
    ev = _load(STARTUP)
    assert ev.files[0].status == "read"
    assert not ev.failures
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    notes = [(line, m) for line, m in _said(ev) if "vllm._C" in m]
    assert len(notes) == 1
    line, note = notes[0]
    assert line == 5
    assert "libcudart.so.12" in note
    assert "platform plugin 'ascend'" in note and "vLLM goes on, no error" in note
    assert "stopped" not in note


def test_the_vllm_c_warning_said_once_for_every_process_that_printed_it(tmp_path) -> None:
    # (vllm-ascend#1305's log: the same warning from four processes, one after another)
    lines = _text(STARTUP).splitlines(keepends=True)
    text = "".join(lines[:4] + [lines[4]] * 4 + lines[5:])
    ev = _write(tmp_path, text)
    assert not ev.failures
    assert sum("vllm._C" in m for _, m in _said(ev)) == 1
    assert heldout.imported(ev)[0] == "READY"


def test_the_vllm_c_warning_with_no_plugin_named_is_the_loader_failure(tmp_path) -> None:
    # (review 62a fault 1: with no out-of-tree platform plugin named, vLLM's platform may be
    # CUDA, where vllm._C holds the kernels every layer calls: the missing libcudart is the
    # library_missing it was before this set's change, not a note)
    warning = _text(STARTUP).splitlines(keepends=True)[4]
    ev = _write(tmp_path, warning + "INFO 10-09 01:30:01 [api_server.py:1896] vLLM API server\n")
    (failure,) = ev.failures
    assert failure["kind"] == "library_missing" and failure["library"] == "libcudart.so.12"
    assert not [m for _, m in _said(ev) if "vllm._C" in m]
    assert heldout.imported(ev)[0] == "NOT READY"


def test_a_library_the_loader_could_not_find_is_still_a_failure(tmp_path) -> None:
    # (the healthy twin's opposite: a program's own loader failure, not vLLM's warning, beside
    # the same startup lines, still stops the run)
    lines = _text(STARTUP).splitlines(keepends=True)
    loader = (
        "python3: error while loading shared libraries: libascend_hal.so: cannot open "
        "shared object file: No such file or directory\n"
    )
    text = "".join([*lines[:5], loader])
    ev = _write(tmp_path, text)
    (failure,) = ev.failures
    assert failure["kind"] == "library_missing" and failure["library"] == "libascend_hal.so"
    assert failure["line"] == 6
    assert heldout.imported(ev)[0] == "NOT READY"


# --- vLLM's engine core out of memory for its KV cache ------------------------------------


def test_the_kv_cache_value_error_is_named_with_its_engine_core() -> None:
    ev = _load(NO_KV)
    (failure,) = ev.failures
    assert failure["kind"] == "python_exception"
    assert failure["line"] == 5
    assert failure["message"].startswith("ValueError: No available memory for the cache blocks.")
    assert failure["worker"] == "EngineCore_DP0" and failure["pid"] == 1102
    assert "check_enough_kv_cache_memory" in (failure["exception_type"] or "")
    assert "another process on the same device" in (failure["exception_type"] or "")
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-python-exception", "critical")]
    (item,) = heldout.items(outcome, "evidence-python-exception")
    assert "No available memory for the cache blocks" in item and "line 5" in item
    assert "ends inside a traceback" not in item


def test_the_kv_cache_error_of_another_engine_core_without_blank_lines(tmp_path) -> None:
    # (another engine core, its lines copied without the web page's blank lines between them)
    text = _text(NO_KV).replace("EngineCore_DP0 pid=1102", "EngineCore_DP1 pid=2207")
    text = "".join(line for line in text.splitlines(keepends=True) if line.strip())
    ev = _write(tmp_path, text)
    (failure,) = ev.failures
    assert failure["line"] == 3 and failure["worker"] == "EngineCore_DP1" and failure["pid"] == 2207
    assert "EngineCore_DP1 (pid 2207)" in (failure["exception_type"] or "")


def test_an_exception_line_far_below_any_frame_is_not_taken_for_its_traceback(tmp_path) -> None:
    # (the blank lines skipped, the frame must still stand within three lines of text above)
    text = (
        '  File "/x/kv_cache_utils.py", line 699, in check\n'
        "\n"
        "INFO a\n"
        "\n"
        "INFO b\n"
        "\n"
        "INFO c\n"
        "\n"
        "ValueError: No available memory for the cache blocks.\n"
    )
    ev = _write(tmp_path, text)
    assert not any(f["line"] == 9 and f["kind"] == "python_exception" for f in ev.failures)


# --- set 684: the note of the ranks Lightning started, said once -----------------------------


def test_the_lightning_note_beside_a_waiting_store_barrier_is_said_once() -> None:
    ev = _load(BARRIER)
    notes = [(line, m) for line, m in _said(ev) if "Lightning started" in m]
    assert len(notes) == 1
    line, note = notes[0]
    assert line == 1
    assert "Lightning started 5 rank(s) of a world of 8 (global ranks 1, 2, 4, 6, 7)" in note
    assert not note.endswith("no error")
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-store-barrier-ranks-missing", "critical")]
    (item,) = heldout.items(outcome, "evidence-store-barrier-ranks-missing")
    assert "1 of 8 ranks joined" in item and "line 8" in item


def test_the_lightning_note_of_a_healthy_start_keeps_its_no_error(tmp_path) -> None:
    # (the healthy twin: the init lines alone, no barrier waiting: one note, "no error")
    text = "".join(_text(BARRIER).splitlines(keepends=True)[:5])
    ev = _write(tmp_path, text)
    assert not ev.failures
    notes = [m for _, m in _said(ev) if "Lightning started" in m]
    assert len(notes) == 1 and notes[0].endswith("no error")
    assert heldout.imported(ev)[0] == "READY"
