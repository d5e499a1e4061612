"""Outputs of round NNNN's held-out evaluation (set 669, NVIDIA tool outputs) that the advisor
read in part before this change (tests/data/evidence_heldout_74, sources in
tests/data/SOURCES.md): an all_reduce_perf run of nccl-tests' first releases (NCCL 1.0, its
"nThread ..." header without "#", its bare "NCCL failure all_reduce.cu:95 'unhandled cuda
error'") read as partial, "the log ends before its first size ... or the copy was cut", its
failure blamed on "A process" though its rank list names node03; and an nvidia-smi -q page of a
V100 under HW Slowdown and HW Power Brake Slowdown whose 382 MHz Graphics and SM clocks went
unsaid."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_74"

NCCL1 = (
    "nccl_tests_nccl1_0_all_reduce_perf_8x_p100_pcie_nccl_failure_all_reduce_cu_95_"
    "unhandled_cuda_error_nccltests5_cut.log"
)
BRAKE = (
    "nvidia_smi_q_clocks_throttle_v100_sxm2_32gb_dell_c4130_hw_power_brake_slowdown_active_"
    "sm_382mhz_l4rz_idrac_cut.txt"
)

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


# --- nccl-tests of NCCL 1.0: its bare NCCLCHECK line ends the run -----------------------------


def test_first_release_nccl_failure_is_the_runs_end_and_names_its_host() -> None:
    ev = _load(NCCL1)
    assert ev.files[0].status == "read"
    (stopped,) = [s for s in heldout.said(ev) if "before its first size" in s]
    assert "the run stopped before its first size" in stopped
    assert "its failure follows its header line (line 16)" in stopped
    assert not any("or the copy was cut" in s for s in heldout.said(ev))
    (bench,) = ev.benchmarks
    assert bench["hosts"] == ["node03"] and bench["ranks"] == 8
    assert bench["results"] == []
    (failure,) = ev.failures
    assert failure["kind"] == "nccl_call_failure"
    assert failure["code_name"] == "ncclUnhandledCudaError"
    assert failure["call"] == "all_reduce.cu:95" and failure["line"] == 16
    assert failure["host"] == "node03"
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert ("evidence-nccl-call-failed", "critical") in heldout.above_info(outcome)
    (item,) = heldout.items(outcome, "evidence-nccl-call-failed")
    assert item.startswith("node03: ncclUnhandledCudaError at all_reduce.cu:95")
    assert "A process" not in item and "line 16" in item


def test_first_release_failure_on_another_host_and_code(tmp_path: Path) -> None:
    # another host, another call and code: the host of the rank list, the line's own code
    text = (
        _text(NCCL1)
        .replace("node03", "gpu-b7.cluster")
        .replace(
            "all_reduce.cu:95 'unhandled cuda error'", "common.cu:921 'unhandled system error'"
        )
    )
    ev = _write(tmp_path, text)
    assert ev.files[0].status == "read"
    (failure,) = ev.failures
    assert failure["host"] == "gpu-b7.cluster"
    assert failure["code_name"] == "ncclSystemError" and failure["call"] == "common.cu:921"


def test_first_release_cuda_failure_also_ends_the_run(tmp_path: Path) -> None:
    # the same releases' CUDACHECK, "Cuda failure FILE:LINE '...'": the run's end, not a cut
    text = _text(NCCL1).replace(
        "NCCL failure all_reduce.cu:95 'unhandled cuda error'",
        "Cuda failure common.cu:412 'out of memory'",
    )
    ev = _write(tmp_path, text)
    assert ev.files[0].status == "read"
    assert any("its failure follows its header line (line 16)" in s for s in heldout.said(ev))


def test_rank_list_over_two_hosts_names_no_one_host(tmp_path: Path) -> None:
    # two hosts in the rank list: the bare line names neither, so neither is guessed
    lines = _text(NCCL1).splitlines()
    lines[8:12] = [ln.replace("node03", "node04") for ln in lines[8:12]]
    ev = _write(tmp_path, "\n".join(lines) + "\n")
    (failure,) = ev.failures
    assert failure["host"] is None


def test_copy_cut_after_the_header_is_still_said_cut(tmp_path: Path) -> None:
    # the same run without its failure line: the copy may be cut there, said as before
    text = _text(NCCL1).replace("NCCL failure all_reduce.cu:95 'unhandled cuda error'\n", "")
    ev = _write(tmp_path, text)
    assert ev.failures == []
    assert any("or the copy was cut" in s for s in heldout.said(ev))


# --- nvidia-smi -q: HW Power Brake Slowdown with its clocks ------------------------------------


def test_power_brake_slowdown_names_the_clocks_it_left() -> None:
    ev = _load(BRAKE)
    (gpu,) = ev.gpus
    assert gpu["throttled"] == ["HW Slowdown", "HW Power Brake Slowdown"]
    assert gpu["clocks_mhz"] == {"Graphics": 382, "SM": 382, "Memory": 877, "Video": 1372}
    assert gpu["core_clocks_said"] == "Graphics 382 MHz, SM 382 MHz (lines 10-11)"
    (note,) = [s for s in heldout.said(ev) if "clock reasons in force" in s]
    assert "core clocks Graphics 382 MHz, SM 382 MHz (lines 10-11)" in note
    level, outcome = heldout.imported(ev)
    # (a warning, kept: NVML documents HW Slowdown and HW Power Brake Slowdown as "reducing the
    # core clocks by a factor of 2 or more", a GPU that runs slowly, not one that fails)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-gpu-throttled", "warning")]
    (item,) = heldout.items(outcome, "evidence-gpu-throttled")
    assert "HW Slowdown, HW Power Brake Slowdown active" in item
    assert "its core clocks at Graphics 382 MHz, SM 382 MHz (lines 10-11)" in item


def test_power_brake_with_max_clocks_says_both(tmp_path: Path) -> None:
    # another GPU's page with its Max Clocks section: each core clock said against its max
    text = (
        _text(BRAKE).replace(": 382 MHz", ": 405 MHz")
        + "\nMax Clocks\n    Graphics                          : 1530 MHz\n"
        "    SM                                : 1530 MHz\n"
        "    Memory                            : 877 MHz\n"
    )
    ev = _write(tmp_path, text)
    (gpu,) = ev.gpus
    assert gpu["core_clocks_said"] == (
        "Graphics 405 MHz (of its Max Clocks 1530 MHz), SM 405 MHz (of its Max Clocks 1530 MHz) "
        "(lines 10-11)"
    )


def test_page_without_slowdown_stays_ready(tmp_path: Path) -> None:
    # the healthy twin: every reason Not Active, the GPU at its full clocks
    text = (
        _text(BRAKE)
        .replace(
            "HW Slowdown                       : Active",
            "HW Slowdown                       : Not Active",
        )
        .replace(": Active", ": Not Active")
        .replace(": 382 MHz", ": 1530 MHz")
    )
    ev = _write(tmp_path, text)
    (gpu,) = ev.gpus
    assert gpu["throttled"] == []
    assert not any("core clocks" in s for s in heldout.said(ev))
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
