"""Outputs of round UUUU's held-out evaluation (set 711, NVIDIA tool outputs, part b) that the
advisor read in part before this change (tests/data/evidence_heldout_81, sources in
tests/data/SOURCES.md): an ``nvidia-smi -q -d PERFORMANCE,TEMPERATURE`` page with no reason in
force but 903158 us of SW Thermal Slowdown in its Clocks Event Reasons Counters and 13 C of
margin to its T.Limit was READY with neither said; a ``-q -d POWER,TEMPERATURE,PERFORMANCE`` page
with SW Power Cap Active said the cap without its line or the GPU's 77 C; and a status table
whose GPU 14 prints ERR! in its fan cell cited the GPU's first row (line 8), not the ERR!'s
(line 9)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_81"

COUNTERS = (
    "nvidia_smi_q_d_performance_temperature_580_95_05_gpu_000f_p0_81c_tlimit_13c_"
    "sw_thermal_slowdown_counter_903158us_ollama13552_cut.txt"
)
POWER_CAP = (
    "nvidia_smi_q_d_power_temperature_performance_545_29_06_gpu_0b_p2_sw_power_cap_active_"
    "77c_ollama6163_cut.txt"
)
FAN_ERR = (
    "nvidia_smi_table_fragment_rtx4000_ada_gpu13_ok_gpu14_cc_00_0_fan_err_68c_p2_93pct_1mib_"
    "elided_head_gpuexporter393.txt"
)

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[str]:
    return [m.message for f in ev.files for m in f.messages]


# --- -q -d PERFORMANCE,TEMPERATURE: slowdown time recorded, nothing in force -------------------


def test_recorded_sw_thermal_slowdown_is_a_warning_with_temperature_and_margin() -> None:
    ev = _load(COUNTERS)
    (gpu,) = ev.gpus
    assert gpu["clock_event_us"]["SW Thermal Slowdown"] == 903158
    assert gpu["clock_event_us"]["SW Power Capping"] == 165687
    assert (gpu["temp_c"], gpu["temp_line"]) == (81, 28)
    assert (gpu["tlimit_margin_c"], gpu["tlimit_line"]) == (13, 29)
    assert gpu["throttled"] == []
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-gpu-slowdown-recorded", "warning")]
    (item,) = heldout.items(outcome, "evidence-gpu-slowdown-recorded")
    assert item.startswith("GPU 0000000F:01:00.0: SW Thermal Slowdown 903158 us (0.90 s, line 23)")
    assert "SW Power Capping 165687 us (line 21)" in item
    # (a history: no throttle claimed to be in force)
    assert "no slowing reason active when read" in item
    assert "at 81 C (line 28), 13 C of margin to its T.Limit (line 29)" in item
    assert item.endswith(", line 23)")


def test_a_zero_counter_twin_at_a_wide_margin_stays_ready(tmp_path: Path) -> None:
    text = _text(COUNTERS).replace(": 903158 us", ": 0 us").replace(": 81 C", ": 52 C")
    text = text.replace(
        "T.Limit Temp                  : 13 C", "T.Limit Temp                  : 42 C"
    )
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    # (SW Power Capping time alone is a GPU at its power limit under load: not judged)
    assert ev.gpus[0]["clock_event_us"]["SW Power Capping"] == 165687


def test_a_small_margin_alone_warns_and_hw_braking_is_named(tmp_path: Path) -> None:
    # another GPU: no thermal time, HW Power Braking recorded; then only a 2 C margin
    text = _text(COUNTERS).replace("0000000F:01:00.0", "00000000:3B:00.0")
    braking = text.replace(": 903158 us", ": 0 us").replace(
        "HW Power Braking                  : 0 us", "HW Power Braking                  : 5000 us"
    )
    (item,) = heldout.items(
        heldout.imported(_write(tmp_path, braking))[1], "evidence-gpu-slowdown-recorded"
    )
    assert item.startswith("GPU 00000000:3B:00.0: HW Power Braking 5000 us (0.01 s, line 25)")
    margin = text.replace(": 903158 us", ": 0 us").replace(
        "T.Limit Temp                  : 13 C", "T.Limit Temp                  : 2 C"
    )
    level, outcome = heldout.imported(_write(tmp_path, margin))
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-gpu-slowdown-recorded")
    assert "at 81 C (line 28), 2 C of margin to its T.Limit (line 29)" in item
    assert item.endswith(", line 29)")


# --- -q -d POWER,TEMPERATURE,PERFORMANCE: SW Power Cap in force ---------------------------------


def test_sw_power_cap_in_force_is_said_with_its_line_and_temperature() -> None:
    ev = _load(POWER_CAP)
    (note,) = [s for s in _said(ev) if "clock reasons in force" in s]
    assert (
        "GPU 00000000:0B:00.0: performance state P2; clock reasons in force: SW Power Cap" in note
    )
    assert "SW Power Cap in force (line 13)" in note
    assert "GPU Current Temp 77 C (line 21), no thermal reason active" in note
    level, outcome = heldout.imported(ev)
    # (kept READY: nvidia-smi --help-query-gpu's sw_power_cap is the clocks held to the power
    # limit, a GPU under load at its limit; the advisor's SLOWING_REASONS leave it out)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_a_thermal_slowdown_beside_the_cap_still_warns(tmp_path: Path) -> None:
    text = _text(POWER_CAP).replace(
        "SW Thermal Slowdown               : Not Active",
        "SW Thermal Slowdown               : Active",
    )
    ev = _write(tmp_path, text)
    assert ev.gpus[0]["throttled"] == ["SW Thermal Slowdown"]
    (note,) = [s for s in _said(ev) if "clock reasons in force" in s]
    assert "no thermal reason active" not in note
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


# --- status table: the ERR! cell's own line ------------------------------------------------------


def test_fan_err_cites_the_row_that_carries_it() -> None:
    ev = _load(FAN_ERR)
    bad = [g for g in ev.gpus if g["unreadable"]]
    assert [(g["gpu"], g["bus_id"], g["unreadable"], g["unreadable_line"]) for g in bad] == [
        (14, "00000000:CC:00.0", ["fan"], 9)
    ]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-gpu-sensor-unreadable")
    assert item.startswith("GPU 14 (NVIDIA RTX 4000 Ada Gene..., 00000000:CC:00.0): fan unreadable")
    assert item.endswith(", line 9)")


def test_err_on_the_other_gpu_cites_its_line_and_a_healthy_twin_is_ready(tmp_path: Path) -> None:
    text = _text(FAN_ERR)
    moved = text.replace("|ERR!   68C", "| 30%   68C").replace("| 30%   33C", "|ERR!   33C")
    (item,) = heldout.items(
        heldout.imported(_write(tmp_path, moved))[1], "evidence-gpu-sensor-unreadable"
    )
    assert "GPU 13 (" in item and item.endswith(", line 5)")
    healthy = text.replace("|ERR!   68C", "| 30%   68C")
    level, outcome = heldout.imported(_write(tmp_path, healthy))
    assert level == "READY"
    assert heldout.above_info(outcome) == []
