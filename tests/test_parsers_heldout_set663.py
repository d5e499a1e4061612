"""Outputs of round MMMM's held-out evaluation (set 663, NVIDIA tool outputs) that the advisor
read wrong or in part before this change (tests/data/evidence_heldout_73, sources in
tests/data/SOURCES.md): an old nccl-tests alltoall table (blank redop) whose last whole row was
taken for a row cut before its check cell, "unreadable (13 columns)", and whose in-place error
cells of 1e+00 at impossible busbw went unsaid; an nvidia-smi -q -d TEMPERATURE page of a GPU at
56 C against its Max Operating Temp of 57 C read as "nothing judged"; and nv-hostengine's
"[[NvSwitch]] Not attached to NvSwitches. Aborting", log spam on a host without NVSwitches,
quoted as the log's error."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_73"

ALLTOALL = "nccl_tests_msccl_alltoall_2node_16gpu_inplace_error_1e00_absurd_busbw_msccl48_cut.txt"
TEMP = "nvidia_smi_q_temperature_465_27_mx330_current_56c_max_operating_57c_thermald300.txt"
NVSWITCH = "nv_hostengine_dcgm_3_1_3_nvswitch_not_attached_log_spam_benign_dcgm159.log"

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


# --- nccl-tests alltoall, blank redop: the last row is whole ----------------------------------


def test_alltoall_last_row_with_blank_redop_is_read_whole() -> None:
    ev = _load(ALLTOALL)
    said = heldout.said(ev)
    assert not any("unreadable" in s or "ends inside this row" in s for s in said)
    (bench,) = ev.benchmarks
    assert [r["bytes"] for r in bench["results"] if not r["in_place"]] == [
        1 << n for n in range(20, 27)
    ]
    (cut,) = [s for s in said if "log ends before the" in s]
    assert "after 67108864 bytes: 7 size(s)" in cut
    last = bench["results"][-1]
    assert last["in_place"] and last["time_us_p50"] == 0.21


def test_alltoall_in_place_error_cells_and_impossible_figures_are_said() -> None:
    ev = _load(ALLTOALL)
    (note,) = [s for s in heldout.said(ev) if "in-place error cells" in s]
    assert "up to 1e+00 on every size (lines 4-10)" in note
    assert "0.17-0.51 us and busbw up to 300093 GB/s" in note
    assert "out-of-place 1.72-2.13 GB/s" in note
    assert "no measurement" in note and "read the out-of-place columns" in note
    # (the out-of-place checks are 0e+00: no data failure counted, nccl-tests leaves its
    # in-place alltoall check out)
    assert ev.benchmarks[0]["failed_checks"] == []
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-benchmark-cut-short", "warning")]
    (item,) = heldout.items(outcome, "evidence-benchmark-cut-short")
    assert "the last size is 67108864 B" in item


def test_alltoall_in_place_note_needs_every_in_place_cell_off(tmp_path: Path) -> None:
    # (a table whose in-place checks pass, as the out-of-place ones: no such note; its last
    # row read whole all the same)
    text = _text(ALLTOALL).replace("1e+00", "0e+00")
    ev = _write(tmp_path, text)
    assert not any("in-place error cells" in s for s in heldout.said(ev))
    assert not any("unreadable" in s for s in heldout.said(ev))
    assert len(ev.benchmarks[0]["results"]) == 14


def test_alltoall_table_cut_inside_its_last_rows_check_is_still_said(tmp_path: Path) -> None:
    # a copy that really ends before the last row's in-place check cell: still cut there
    lines = _text(ALLTOALL).splitlines()
    lines[-1] = lines[-1].rsplit(None, 1)[0]
    ev = _write(tmp_path, "\n".join(lines) + "\n")
    assert any("ends inside this row" in s for s in heldout.said(ev))


def test_reducing_table_with_redop_keeps_its_row_count(tmp_path: Path) -> None:
    # the same rows with a redop cell (an allreduce of 2.10+): 12 cells, read whole, no note
    lines = _text(ALLTOALL).splitlines()
    rows = [ln.replace("   float ", "   float     sum ", 1) for ln in lines[3:]]
    ev = _write(tmp_path, "\n".join(lines[:3] + rows) + "\n")
    assert not any("unreadable" in s or "ends inside" in s for s in heldout.said(ev))
    assert not any("in-place error cells" in s for s in heldout.said(ev))
    assert len(ev.benchmarks[0]["results"]) == 14


# --- nvidia-smi -q -d TEMPERATURE: a GPU at its Max Operating Temp ----------------------------


def test_gpu_one_degree_under_its_max_operating_temp_is_a_warning() -> None:
    ev = _load(TEMP)
    (hit,) = ev.failures
    assert hit["kind"] == "gpu_temp_near_limit"
    assert hit["line"] == 12
    assert hit["exception_type"].startswith(
        "GPU 00000000:2D:00.0 at 56 C, 1 C under its Max Operating Temp 57 C (line 15)"
    )
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-gpu-temp-near-limit", "warning")]
    (item,) = heldout.items(outcome, "evidence-gpu-temp-near-limit")
    assert "56 C" in item and "57 C" in item and "line 12" in item
    assert not any("nothing judged" in s for s in heldout.said(ev))


def test_cool_twin_of_the_temperature_page_stays_ready(tmp_path: Path) -> None:
    text = _text(TEMP).replace(": 56 C", ": 41 C")
    ev = _write(tmp_path, text)
    assert ev.failures == []
    level, _ = heldout.imported(ev)
    assert level == "READY"
    assert any("41 C" in s and "nothing judged" in s for s in heldout.said(ev))


def test_temperature_past_slowdown_on_another_gpu(tmp_path: Path) -> None:
    # a second GPU past its Slowdown Temp beside a cool one: only that GPU named
    text = _text(TEMP).replace(
        "Attached GPUs                             : 1", "Attached GPUs   : 2"
    )
    block = text[text.index("GPU 00000000:2D:00.0") :]
    hot = block.replace("2D:00.0", "3B:00.0").replace(": 56 C", ": 98 C")
    cool = block.replace(": 56 C", ": 40 C")
    ev = _write(tmp_path, text[: text.index("GPU 00000000:2D:00.0")] + cool + hot)
    (hit,) = ev.failures
    assert hit["exception_type"].startswith(
        "GPU 00000000:3B:00.0 at 98 C, at or past its Slowdown Temp 97 C"
    )
    assert hit["line"] == 12 + len(cool.splitlines())
    level, _ = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"


# --- nv-hostengine: the NvSwitch module finding no NVSwitch -------------------------------------


def test_nvswitch_not_attached_is_a_note_not_the_logs_error() -> None:
    ev = _load(NVSWITCH)
    assert ev.failures == []
    (note,) = [s for s in heldout.said(ev) if "NvSwitch module" in s]
    assert "pid 1264985, a DCGM 3.1 build" in note
    assert "(line 1, at ERROR)" in note and "log spam" in note
    assert "libnvidia-nscq" in note
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_repeated_nvswitch_spam_on_another_pid(tmp_path: Path) -> None:
    line = _text(NVSWITCH).strip().replace("1264985:1264994", "4242:4250")
    text = "\n".join(line.replace("12:54:06", f"12:54:{6 + 5 * i:02d}") for i in range(4))
    ev = _write(tmp_path, text + "\n")
    assert ev.failures == []
    (note,) = [s for s in heldout.said(ev) if "NvSwitch module" in s]
    assert "pid 4242" in note and "(lines 1-4, 4 times, at ERROR)" in note


def test_another_hostengine_error_beside_the_spam_is_still_read(tmp_path: Path) -> None:
    spam = _text(NVSWITCH).strip()
    other = (
        "2024-04-02 12:54:07.101 ERROR [1264985:1264994] Got more than DCGM_MAX_CLOCKS "
        "supported clocks. [/workspaces/dcgm-rel_dcgm_3_1-postmerge/dcgmlib/src/"
        "DcgmCacheManager.cpp:11130] [DcgmCacheManager::AppendDeviceSupportedClocks]"
    )
    ev = _write(tmp_path, f"{spam}\n{other}\n")
    assert not any("NvSwitch module" in s for s in heldout.said(ev))
    assert ev.failures  # (the log's first error line, as before: not all of it is the spam)
