"""Outputs of round JJJJ's held-out evaluation (set 645, NVIDIA tool outputs) that the advisor did
not read before this change (tests/data/evidence_heldout_70, sources in tests/data/SOURCES.md):
DCGM's ubergemm GEMM rates on 8 A100s, GPU 0 at 6698 GFlops against ~19,200 on the others, and
nv-hostengine's profiling module returning -37 (DCGM_ST_PROFILING_LIBRARY_ERROR) after PerfWorks
decoded zero samples; both were "no supported format recognised"."""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_70"

UBERGEMM = "dcgm_nvvs_ubergemm_8x_a100_dgx_adapter0_6698_gflops_vs_19100_others_dcgm122.txt"
PROFILING = (
    "nv_hostengine_profiling_perfworks_decoded_zero_samples_getsamples_minus37_after_xid31_"
    "dcgm303.log"
)


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")


_text = partial(heldout.text, HELDOUT)


# --- ubergemm: one GPU at a third of its peers' GEMM rate ---------------------------------------


def test_ubergemm_gpu_at_a_third_of_its_peers_is_not_ready() -> None:
    ev = _load(UBERGEMM)
    assert ev.files[0].formats == ["ubergemm"]
    assert ev.files[0].status == "read"
    (failure,) = ev.failures
    assert (failure["kind"], failure["device"], failure["line"]) == ("gpu_compute_low", 0, 2)
    assert failure["exception_type"] == (
        "GPU 0 (ADAPTER#0): 6698 GFlops, 35% of the run's median 19189 GFlops over its 8 GPUs"
    )
    # the seven others said with their figures, no health in them
    assert any(
        "GPU(s) 1, 2, 3, 4, 5, 6, 7 at 19096-19273 GFlops (lines 3-9), in line with the run's "
        "median 19189" in m
        for m in heldout.said(ev)
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-gpu-compute-low", "critical")]
    (item,) = heldout.items(outcome, "evidence-gpu-compute-low")
    assert "GPU 0 (ADAPTER#0): 6698 GFlops" in item
    assert item.endswith(f"({HELDOUT / UBERGEMM}, line 2)")


def test_ubergemm_another_gpu_slow_is_the_one_named(tmp_path: Path) -> None:
    # GPU 0 healthy, GPU 5 (line 7) at half its peers' rate: the finding follows the figure
    text = (
        _text(UBERGEMM)
        .replace("6698.442948608", "19201.5")
        .replace("19096.020189184", "9548.010094592")
    )
    ev = _write(tmp_path, text)
    (failure,) = ev.failures
    assert (failure["device"], failure["line"]) == (5, 7)
    assert "GPU 5 (ADAPTER#5): 9548 GFlops, 50% of the run's median" in failure["exception_type"]
    assert heldout.imported(ev)[0] == "NOT READY"


def test_ubergemm_all_gpus_alike_stay_ready(tmp_path: Path) -> None:
    ev = _write(tmp_path, _text(UBERGEMM).replace("6698.442948608", "19150.25"))
    assert ev.files[0].formats == ["ubergemm"]
    assert ev.failures == []
    assert any("GPU(s) 0, 1, 2, 3, 4, 5, 6, 7 at 19096-19273 GFlops" in m for m in heldout.said(ev))
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_ubergemm_of_two_gpus_weighs_neither(tmp_path: Path) -> None:
    # (of two GPUs, which one lags is not known: both said, none judged)
    lines = _text(UBERGEMM).splitlines()
    ev = _write(tmp_path, "\n".join(lines[:3]) + "\n")
    assert ev.failures == []
    assert any("too few to weigh one against the others" in m for m in heldout.said(ev))
    assert heldout.imported(ev)[0] == "READY"


def test_ubergemm_two_runs_are_weighed_apart(tmp_path: Path) -> None:
    # the same node run again after GPU 0 was reset: the second run's GPU 0 is in line, the
    # first run's still named (line 2)
    text = _text(UBERGEMM)
    again = text.replace("6698.442948608", "19160.0").splitlines()[1:]
    ev = _write(tmp_path, text + "\n".join(again) + "\n")
    (failure,) = ev.failures
    assert (failure["device"], failure["line"]) == (0, 2)


# --- nv-hostengine: the profiling module's -37 ---------------------------------------------------


def test_profiling_module_minus37_is_a_warning_naming_no_gpu() -> None:
    ev = _load(PROFILING)
    assert ev.files[0].formats == ["dcgm_profiling_error"]
    assert ev.files[0].status == "read"
    (failure,) = ev.failures
    assert (failure["kind"], failure["code"], failure["line"]) == ("dcgm_profiling_error", "-37", 2)
    assert failure["device"] is None
    assert failure["message"].startswith("[Profiling] Got error from GetSamples: -37 ")
    assert (
        "after PerfWorks decoded zero samples in 48 attempt(s) (line 1)"
        in (failure["exception_type"])
    )
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-dcgm-profiling-error", "warning")]
    (item,) = heldout.items(outcome, "evidence-dcgm-profiling-error")
    assert "DCGM_ST_PROFILING_LIBRARY_ERROR" in item
    assert "no GPU named" in item
    assert re.search(r"GPU \d", item) is None
    assert item.endswith(f"({HELDOUT / PROFILING}, line 2)")


def test_dcgm_exporter_profiling_error_reads_alike(tmp_path: Path) -> None:
    # dcgm-exporter's fatal line of the same DCGM result, no PerfWorks line above it
    text = (
        'time="2025-03-04T10:00:01Z" level=info msg="Starting dcgm-exporter"\n'
        'time="2025-03-04T10:00:02Z" level=fatal msg="Failed to watch metrics: Error watching '
        'fields: The third-party Profiling module returned an unrecoverable error"\n'
    )
    ev = _write(tmp_path, text)
    (failure,) = [f for f in ev.failures if f["kind"] == "dcgm_profiling_error"]
    assert failure["line"] == 2
    assert "zero samples" not in failure["exception_type"]
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


def test_dcgmi_dmon_refusal_of_minus37_stays_dmon_s_own(tmp_path: Path) -> None:
    # dmon's "Error setting watches" is dcgmi_dmon's refusal (set 639), not counted twice
    text = (
        "$ dcgmi dmon -e 1001,1004\n"
        "Error setting watches. Result: -37: The third-party Profiling module returned an "
        "unrecoverable error\n"
    )
    ev = _write(tmp_path, text)
    assert ev.files[0].formats == ["dcgmi_dmon"]
    assert [f["kind"] for f in ev.failures] == ["dcgm_watch_refused"]


def test_zero_decoded_samples_alone_is_no_profiling_error(tmp_path: Path) -> None:
    # the healthy twin: PerfWorks' retry line without the module's error is not the failure
    ev = _write(tmp_path, _text(PROFILING).splitlines()[0] + "\n")
    assert "dcgm_profiling_error" not in ev.files[0].formats
    assert ev.failures == []
