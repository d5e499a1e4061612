"""Outputs of round NNNN's held-out evaluation (set 668, Ascend logs) that the advisor read in
part before this change (tests/data/evidence_heldout_74, sources in tests/data/SOURCES.md):
MindSpore Transformers' skip-data guard that raised its ValueError and stopped the training, read
as an unknown program's error line (a warning); a vLLM-Ascend core exception whose runtime report
names chip 4 die 1, said as "device 4"; and vLLM's client's "Engine core proc EngineCore died
unexpectedly" right after that engine core's orderly "Shutdown complete", read as a warning where
vLLM-Ascend's quick start shows it as the process exiting after its work."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_74"

NORM_STOP = (
    "mindformers_skip_data_global_norm_2_consecutive_over_threshold_stop_training_skipdata_cut.log"
)
CORE_DIE = (
    "vllm_ascend_0.13_ez9999_fftsplus_aivector_error_chip4_die1_rtstreamsync_aicore_exception_"
    "5661_cut.log"
)
EXIT = "vllm_ascend_quickstart_offline_inference_shutdown_enginecore_died_benign_quickstart_cut.log"

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


# --- MindSpore Transformers' skip-data guard stopped the training ------------------------------


def test_the_skip_data_guards_stop_is_the_runs_failure() -> None:
    ev = _load(NORM_STOP)
    (stop,) = [f for f in ev.failures if f["kind"] == "python_exception"]
    assert stop["line"] == 4
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-python-exception", "critical")]
    (item,) = heldout.items(outcome, "evidence-python-exception")
    assert item.startswith("ValueError: Current global norm [47.329006] of step 2")
    assert (
        "skip-data guard stopped the training at step 2: its global norm 47.329006 was over the "
        "threshold 3.0 for 2 steps in a row" in item
    )
    assert "line 4)" in item
    assert not [f for f in outcome.findings if f.rule_id == "evidence-log-error"]


def test_the_guards_stop_at_another_step_and_threshold(tmp_path: Path) -> None:
    text = (
        _text(NORM_STOP)
        .replace("[47.329006] of step 2 has been 2", "[12.5] of step 417 has been 10")
        .replace("threshold 3.0", "threshold 5.0")
    )
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-python-exception")
    assert "at step 417: its global norm 12.5 was over the threshold 5.0 for 10 steps" in item


def test_a_skipped_step_the_guard_went_on_past_stays_ready(tmp_path: Path) -> None:
    # the healthy twin: the doc's first block, one step skipped and counted at INFO, no stop
    text = _text(NORM_STOP).replace(
        "ValueError: Current global norm [47.329006] of step 2 has been 2 consecutive times "
        "greater than threshold 3.0, stop training...",
        "- INFO - Current global norm [44.313248] of step 1 has been 1 consecutive times greater "
        "than threshold: 3.0",
    )
    ev = _write(tmp_path, text)
    assert not [f for f in ev.failures if f["kind"] == "python_exception"]
    level, _ = heldout.imported(ev)
    assert level == "READY"


# --- a core exception on chip 4 die 1 ----------------------------------------------------------


def test_the_core_exception_names_its_chip_and_die() -> None:
    ev = _load(CORE_DIE)
    (failure,) = [f for f in ev.failures if f["kind"] == "npu_device_exception"]
    assert (failure["line"], failure["rank"], failure["pid"], failure["code"]) == (
        2,
        9,
        244584,
        "EZ9999",
    )
    # (the chipId is no device the process numbers: not said as one)
    assert failure["device"] is None
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-npu-device-exception", "critical")]
    (item,) = heldout.items(outcome, "evidence-npu-device-exception")
    assert item.startswith("Rank 9, pid 244584: ")
    assert "on core 40 of chip 4, die 1: VEC supports illegal configurations in commands" in item
    assert "(device 4)" not in item and "507015" not in item


def test_another_chip_and_die_on_another_rank(tmp_path: Path) -> None:
    text = (
        _text(CORE_DIE)
        .replace("chipId:4, dieId:1", "chipId:6, dieId:1")
        .replace("[rank9]", "[rank13]")
        .replace("core id is 40", "core id is 7")
    )
    ev = _write(tmp_path, text)
    (item,) = heldout.items(heldout.imported(ev)[1], "evidence-npu-device-exception")
    assert item.startswith("Rank 13, pid 244584: ")
    assert "on core 7 of chip 6, die 1:" in item


def test_a_chip_of_one_die_is_still_said_as_its_device(tmp_path: Path) -> None:
    # (die 0: a chip of one die, as the 910B's reports print it; the chip is the device)
    text = _text(CORE_DIE).replace("chipId:4, dieId:1", "chipId:4, dieId:0")
    ev = _write(tmp_path, text)
    (failure,) = [f for f in ev.failures if f["kind"] == "npu_device_exception"]
    assert failure["device"] == 4
    (item,) = heldout.items(heldout.imported(ev)[1], "evidence-npu-device-exception")
    assert item.startswith("Rank 9 (device 4), pid 244584: ") and ", die " not in item


# --- vLLM's engine core exiting after its own shutdown -----------------------------------------


def test_the_engine_cores_exit_after_its_shutdown_is_a_note() -> None:
    ev = _load(EXIT)
    assert not ev.failures
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert not [f for f in outcome.findings if f.severity != "info"]
    (note,) = [m.message for m in ev.files[0].messages if "died unexpectedly" in m.message]
    assert "shut down in order (line 2, 'Shutdown complete')" in note
    assert "'Engine core proc EngineCore died unexpectedly' (line 3, at ERROR)" in note
    assert "no failure" in note


def test_a_data_parallel_engine_cores_exit_after_its_shutdown(tmp_path: Path) -> None:
    text = (
        _text(EXIT)
        .replace("EngineCore died", "EngineCore_DP0 died")
        .replace("(EngineCore pid=970)", "(EngineCore_DP0 pid=4411)")
    )
    ev = _write(tmp_path, text)
    assert not ev.failures
    assert heldout.imported(ev)[0] == "READY"


def test_an_engine_core_that_died_without_its_shutdown_stays_an_error(tmp_path: Path) -> None:
    # the twin that did fail: no "Shutdown complete" before the client's word
    text = "".join(line for line in _text(EXIT).splitlines(keepends=True) if "Shutdown" not in line)
    ev = _write(tmp_path, text)
    assert ev.failures
    assert heldout.imported(ev)[0] != "READY"


def test_another_error_beside_the_exit_keeps_the_old_reading(tmp_path: Path) -> None:
    text = _text(EXIT).replace(
        "    sys:1:",
        "    ERROR 05-12 11:36:01 [llm.py:412] RuntimeError: NPU out of memory\n    sys:1:",
    )
    ev = _write(tmp_path, text)
    assert ev.failures
    assert heldout.imported(ev)[0] != "READY"
