"""Outputs of round KKKK's held-out evaluation (set 651, NVIDIA tool outputs) that the advisor read
wrongly or in part before this change (tests/data/evidence_heldout_71, sources in
tests/data/SOURCES.md): an ``nvidia-smi --query-gpu`` CSV whose GPUs 0 and 1 run at link width x4
of a possible x8, read as READY with nothing said; an nccl-tests 2.17.8 run whose wrong values
made it return failure after its FAILED footer, its ``Test failure common.cu:1189`` lines called
"another run's"; and an nccl-tests run that failed at start-up on every rank ("CUDA-capable
device(s) is/are busy or unavailable"), whole, but read as "partial"."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_71"

PCIE_CSV = (
    "nvidia_smi_query_gpu_csv_pcie_4x_rtx5060ti_gpu0_gpu1_width_x4_of_x8_codeidx56711454996_cut.txt"
)
WRONG = (
    "nccl_tests_2.17.8_all_reduce_2node_gh200_slingshot_wrong_96_32_at_1mib_out_of_bounds_"
    "failed_nccltests369_cut.txt"
)
BUSY = (
    "nccl_tests_2.17.8_all_reduce_2x4_gh200_cuda_device_busy_or_unavailable_exclusive_process_"
    "nccltests369_cut.txt"
)


_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")


# --- nvidia-smi --query-gpu: GPUs 0 and 1 at x4 of x8 ------------------------------------------


def test_gpus_0_and_1_at_x4_of_x8_are_a_warning_naming_them() -> None:
    ev = _load(PCIE_CSV)
    assert ev.files[0].status == "read"
    narrow = [(g["gpu"], g["line"], g["pcie_width_lanes"]) for g in ev.gpus if g["pcie_width_low"]]
    assert narrow == [(0, 3, {"Current": 4, "Max": 8}), (1, 4, {"Current": 4, "Max": 8})]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-gpu-pcie-width-low", "warning")]
    items = heldout.items(outcome, "evidence-gpu-pcie-width-low")
    assert [i.split(" (")[0] for i in items] == [
        "GPU 0: link width x4 of x8",
        "GPU 1: link width x4 of x8",
    ]
    assert items[0].endswith("line 3)") and items[1].endswith("line 4)")
    # the links at their full generation: no idle-link caveat is said
    assert not [m for m in heldout.said(ev) if "may be idling" in m]


def test_another_gpu_narrow_in_nounits_output_is_named(tmp_path: Path) -> None:
    # the same query with ",nounits", GPU 3 the one at x4 (and GPUs 0 and 1 at full width)
    text = (
        _text(PCIE_CSV)
        .replace("--format=csv", "--format=csv,nounits")
        .replace(
            "0, NVIDIA GeForce RTX 5060 Ti, 4, 4, 4, 8", "0, NVIDIA GeForce RTX 5060 Ti, 4, 4, 8, 8"
        )
        .replace(
            "1, NVIDIA GeForce RTX 5060 Ti, 4, 4, 4, 8", "1, NVIDIA GeForce RTX 5060 Ti, 4, 4, 8, 8"
        )
        .replace(
            "3, NVIDIA GeForce RTX 5060 Ti, 4, 4, 8, 8", "3, NVIDIA GeForce RTX 5060 Ti, 4, 4, 4, 8"
        )
    )
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "READY WITH WARNINGS"
    assert [i.split(" (")[0] for i in heldout.items(outcome, "evidence-gpu-pcie-width-low")] == [
        "GPU 3: link width x4 of x8"
    ]


def test_a_narrow_link_below_its_generation_carries_the_idle_caveat(tmp_path: Path) -> None:
    # GPU 1 at Gen1 of Gen4 and x4 of x8: nvidia-smi says the current figures may be reduced
    # while the GPU is not in use; still a warning (as -q's Link Width is), said with the caveat
    text = _text(PCIE_CSV).replace(
        "1, NVIDIA GeForce RTX 5060 Ti, 4, 4, 4, 8", "1, NVIDIA GeForce RTX 5060 Ti, 1, 4, 4, 8"
    )
    ev = _write(tmp_path, text)
    (idle,) = [m for m in heldout.said(ev) if "may be idling" in m]
    assert "nvidia-smi --query-gpu: GPU 1: x4 of x8 lanes at Gen1 of Gen4" in idle
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


def test_the_healthy_twin_at_full_width_stays_ready(tmp_path: Path) -> None:
    text = _text(PCIE_CSV).replace("4, 4, 4, 8", "4, 4, 8, 8")
    ev = _write(tmp_path, text)
    assert not [g for g in ev.gpus if g["pcie_width_low"]]
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


# --- nccl-tests 2.17.8: wrong values, the FAILED footer, then the run's own failure return -----


def test_the_test_failure_lines_are_this_runs_failure_return() -> None:
    ev = _load(WRONG)
    assert ev.files[0].status == "read"
    said = heldout.said(ev)
    assert not [m for m in said if "another run" in m]
    (own,) = [m for m in said if "own failure return" in m]
    assert "(line 43) on gpu-1-1 (pid 662195): common.cu:1189; gpu-1-7 (pid 2448661)" in own
    (bench,) = ev.benchmarks
    assert bench["complete"] is True
    assert [(r["bytes"], r["in_place"], r["wrong"]) for r in bench["results"] if r["wrong"]] == [
        (1048576, False, 96),
        (1048576, True, 32),
    ]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    # one run, finished: no second run "cut short" made of its failure lines
    assert heldout.above_info(outcome) == [
        ("bench-wrong-results", "critical"),
        ("evidence-hccl-test-check-failed", "critical"),
    ]


def test_the_failure_of_another_pid_on_another_host_is_still_its_own(tmp_path: Path) -> None:
    # other hosts and pids: the run is read by its footer, not by the names
    text = _text(WRONG).replace("gpu-1-1", "node-a").replace("gpu-1-7", "node-b")
    text = text.replace("662195", "1111").replace("2448661", "2222")
    ev = _write(tmp_path, text)
    (own,) = [m for m in heldout.said(ev) if "own failure return" in m]
    assert "node-a (pid 1111): common.cu:1189; node-b (pid 2222)" in own
    assert [f[0] for f in heldout.above_info(heldout.imported(ev)[1])] == [
        "bench-wrong-results",
        "evidence-hccl-test-check-failed",
    ]


def test_after_an_ok_footer_the_failure_is_another_runs(tmp_path: Path) -> None:
    # the twin with no wrong value: its footer OK, so run() returned success (src/common.cu)
    # and a Test failure under it is another run's, not this one's
    text = (
        _text(WRONG)
        .replace("2.20      96", "2.20       0")
        .replace("2.13      32", "2.13       0")
        .replace("Out of bounds values : 4 FAILED", "Out of bounds values : 0 OK")
    )
    ev = _write(tmp_path, text)
    said = heldout.said(ev)
    assert not [m for m in said if "own failure return" in m]
    assert [m for m in said if "another run's" in m]


def test_an_older_release_without_its_version_line_keeps_the_old_reading(tmp_path: Path) -> None:
    # before 2.17.3 nccl-tests exit()s after a FAILED footer and prints no Test failure line
    # (src/common.cu); a log without the 2.17.4+ "# nccl-tests version" line is not given them
    text = _text(WRONG).split("\n", 1)[1]
    said = heldout.said(_write(tmp_path, text))
    assert not [m for m in said if "own failure return" in m]


def test_the_healthy_twin_with_no_failure_lines_stays_ready(tmp_path: Path) -> None:
    text = (
        _text(WRONG)
        .replace("2.20      96", "2.20       0")
        .replace("2.13      32", "2.13       0")
        .replace("Out of bounds values : 4 FAILED", "Out of bounds values : 0 OK")
    )
    text = text.split("\n\n .. gpu-1-1")[0] + "\n"
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "READY"
    assert heldout.above_info(outcome) == []


# --- nccl-tests 2.17.8: every rank's "device(s) busy or unavailable", the whole run ------------


def test_a_run_that_failed_before_its_table_is_read_whole() -> None:
    ev = _load(BUSY)
    assert ev.files[0].status == "read"
    said = heldout.said(ev)
    assert not [m for m in said if "or the copy was cut" in m]
    (stopped,) = [m for m in said if "the run stopped before its first size" in m]
    assert stopped.endswith("its failure follows its header line (line 14)")
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    items = heldout.items(outcome, "evidence-cuda-error")
    # one item a failed process, each with the pid of its "Test failure" line (lines 14-25;
    # round OOOO set 677's reading: the six processes, not the two hosts)
    busy = "'CUDA-capable device(s) is/are busy or unavailable' at common.cu:1304"
    assert [i.split(" (")[0] for i in items] == [
        f"gpu-1-1 pid 3617715: {busy}",
        f"gpu-1-7 pid 3230359: {busy}",
        f"gpu-1-7 pid 3230361: {busy}",
        f"gpu-1-7 pid 3230358: {busy}",
        f"gpu-1-7 pid 3230360: {busy}",
        f"gpu-1-1 pid 3617718: {busy}",
    ]


def test_the_run_cut_after_its_rank_list_stays_partial(tmp_path: Path) -> None:
    # the same log cut after its rank lines: nothing tells why it stopped, the copy may be cut
    text = "\n".join(_text(BUSY).splitlines()[:13]) + "\n"
    ev = _write(tmp_path, text)
    assert ev.files[0].status == "partial"
    assert [m for m in heldout.said(ev) if "or the copy was cut" in m]
