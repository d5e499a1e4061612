"""Outputs of round SSSS's held-out evaluation (set 699, NVIDIA tool outputs) that the advisor
read in part before this change (tests/data/evidence_heldout_79, sources in
tests/data/SOURCES.md): an A10's ``nvidia-smi -q`` with 4 rows remapped after uncorrectable
errors and the remap pending cited the GPU's head (line 8), not its Remapped Rows lines; a
two-node nccl-tests all_reduce over RoCE whose NCCL said ``GDR 0`` gave its flat 15 GB/s busbw
with no warning and never cited that line; and a superbench nccl-tests broadcast's busbw was
said only in Gbit/s, never in the GB/s its table and footer print."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_79"

REMAP = "nvidia_smi_q_535_129_03_a10_remapped_rows_uncorrectable_4_pending_yes_gpud.txt"
GDR0 = "nccl_tests_2_26_2_all_reduce_2node_h100_roce_gdr0_15gbps_roce_testing.log"
BROADCAST = "nccl_tests_broadcast_8x_a100_sxm4_233gbps_healthy_superbench.log"

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


# --- nvidia-smi -q: Remapped Rows, 4 uncorrectable, Pending: Yes -------------------------------


def test_a_pending_remap_after_uncorrectable_errors_cites_its_remapped_rows_lines() -> None:
    ev = _load(REMAP)
    level, outcome = heldout.imported(ev)
    # a warning, not a failure: NVIDIA's memory error management guide (Error Recovery and
    # Response Flags) says new workloads can be launched with the row-remapping pending flag set
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-gpu-repair-pending", "warning")]
    (item,) = heldout.items(outcome, "evidence-gpu-repair-pending")
    assert item.startswith("GPU 00000000:07:00.0 (NVIDIA A10): row remap pending (4 row(s) ")
    assert item.endswith(f"{REMAP}, lines 141-142)")
    (gpu,) = ev.gpus
    assert gpu["remap_lines"] == {"Uncorrectable Error": 141, "Pending": 142}


def test_another_gpus_pending_remap_is_cited_where_its_own_page_has_it(tmp_path: Path) -> None:
    # two lines more above the section, another bus: the citation follows the page
    text = _text(REMAP).replace("00000000:07:00.0", "00000000:B1:00.0")
    text = text.replace("    Remapped Rows\n", "    Remapped Rows\n\n\n", 1)
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-gpu-repair-pending")
    assert item.startswith("GPU 00000000:B1:00.0 (NVIDIA A10): row remap pending")
    assert item.endswith("copy.log, lines 143-144)")


def test_the_same_rows_remapped_with_nothing_pending_stay_a_note(tmp_path: Path) -> None:
    # (set 485's reading kept: a remap done, nothing pending, none failed, is history)
    text = _text(REMAP).replace(
        "        Pending                           : Yes",
        "        Pending                           : No",
    )
    assert text != _text(REMAP)
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    assert any(
        "4 row(s) remapped after uncorrectable memory errors, none pending" in m.message
        for f in ev.files
        for m in f.messages
    )


# --- nccl-tests over RoCE with "Connected all rings, use ring PXN 0 GDR 0" ---------------------


def test_gdr_0_beside_a_flat_15_gbytes_s_busbw_is_a_warning_citing_line_55() -> None:
    ev = _load(GDR0)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nccl-no-gdr-busbw", "warning")]
    (item,) = heldout.items(outcome, "evidence-nccl-no-gdr-busbw")
    assert item == (
        f"nccl-tests all_reduce over 2 rank(s) on 2 host(s) ({HELDOUT / GDR0}): busbw up to "
        "15.18 GB/s, 15.04 GB/s on average, with GPU Direct RDMA off (MOC-R4PCC04U37, line(s) 55)"
    )
    (no_gdr,) = heldout.items(outcome, "evidence-nccl-no-gdr")
    assert "use ring PXN 0 GDR 0" in no_gdr and no_gdr.endswith("line 55)")
    (hit,) = [f for f in ev.failures if f["kind"] == "nccl_no_gdr"]
    assert hit["line"] == 55
    assert "GDR 0" in hit["exception_type"] and "line 50" in hit["exception_type"]


def test_gdr_0_on_another_host_is_cited_with_that_host(tmp_path: Path) -> None:
    text = _text(GDR0).replace("MOC-R4PCC04U37", "gpu-node-7")
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-nccl-no-gdr-busbw")
    assert item.endswith("with GPU Direct RDMA off (gpu-node-7, line(s) 55)")


def test_a_twin_using_gdr_stays_ready(tmp_path: Path) -> None:
    text = _text(GDR0).replace(" via NET/IB/1\n", " via NET/IB/1/GDRDMA\n")
    text = text.replace("use ring PXN 0 GDR 0", "use ring PXN 0 GDR 1")
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    assert not [f for f in ev.failures if f["kind"] == "nccl_no_gdr"]


def test_channel_lines_without_gdrdma_and_no_ring_line_still_warn_at_the_channel(
    tmp_path: Path,
) -> None:
    # (a copy without NCCL's "Connected all rings" line: the channel lines alone say it)
    text = "".join(
        line for line in _text(GDR0).splitlines(keepends=True) if "Connected all rings" not in line
    )
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-nccl-no-gdr-busbw")
    assert item.endswith("with GPU Direct RDMA off (MOC-R4PCC04U37, line(s) 50)")


# --- nccl-tests broadcast (superbench's test data): its busbw in GB/s ---------------------------


def test_a_broadcast_runs_busbw_is_said_in_the_gbytes_s_it_prints() -> None:
    level, outcome = heldout.imported(_load(BROADCAST))
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    (item,) = heldout.items(outcome, "evidence-benchmark-busbw")
    assert item.startswith(f"nccl-tests broadcast float32 over 8 ranks ({HELDOUT / BROADCAST}): ")
    # the footer's "Avg bus bandwidth : 64.8653" (line 52), the 8 GiB row's 232.81 (line 50)
    # (set 717b: its in-place 234.70 GB/s, higher than the out-of-place peak, said beside it)
    assert (
        "average busbw 518.9 Gbit/s, peak 1862.5 Gbit/s out-of-place (in-place 1877.6 Gbit/s, "
        "234.7 GB/s: higher, and nccl-tests' Avg bus bandwidth footer averages both halves) "
        "(64.8653 and 232.81 GB/s, "
    ) in item


def test_another_broadcast_runs_figures_are_its_own(tmp_path: Path) -> None:
    text = _text(BROADCAST).replace("232.81  232.81", "132.81  132.81")
    text = text.replace("Avg bus bandwidth    : 64.8653", "Avg bus bandwidth    : 50.125")
    assert text.count("132.81") == 2
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "READY"
    (item,) = heldout.items(outcome, "evidence-benchmark-busbw")
    # the peak moves to the 4 GiB row's 232.33 (line 49)
    assert "(50.125 and 232.33 GB/s, the unit nccl-tests prints)" in item
