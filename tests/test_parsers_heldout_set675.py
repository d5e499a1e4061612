"""Outputs of round OOOO's held-out evaluation (set 675, NVIDIA tool outputs) that the advisor
read wrong or in part before this change (tests/data/evidence_heldout_75, sources in
tests/data/SOURCES.md): a ``dcgmi stats -v`` GPU box copied without its "Successfully retrieved"
line, and the Performance Stats rows of another, were no format the advisor knew; an nvidia-smi
table's last process row (under "Processes:") was taken for a GPU row the copy cut, "GPU 0's rows
are cut" invented; and an nccl-tests table of the layout before the root column (redop ``sum``,
size = count x 4 for float) left its op unknown, though only all_reduce prints those cells."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from advisor.parsers import dcgm, nccl_tests
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_75"

STATS_GPU = "dcgmi_stats_process_id_1_gpu1_energy_0_perf_stats_cut_dcgm171.txt"
STATS_PERF = "dcgmi_stats_v_j_snip_performance_stats_pcie_na_cut_dcgm305.txt"
SMI = "nvidia_smi_535_table_gpu6_gpu7_a100_sxm4_80gb_no_head_processes_header_cut_dcgm83.txt"
OLD_TABLE = "nccl_tests_all_reduce_2node_16xh20_nvlstree_old_error_column_rows_4b_512b_healthy_cut_nccl1244.txt"

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


# --- dcgmi stats: a GPU's box without the line above it, and the Performance Stats rows ---------


def test_a_dcgmi_stats_gpu_box_without_its_first_line_is_read_and_not_judged() -> None:
    ev = _load(STATS_GPU)
    assert ev.files[0].formats == ["dcgmi_stats"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    ((line, note),) = _said(ev)
    assert line == 3  # the "| GPU ID: 1 |" head
    assert note.startswith("dcgmi_stats: dcgmi stats (GPU 1): stats: No. of Processes 1; ")
    for said in (
        "Total Execution Time (sec) 20.48",
        "Energy Consumed (Joules) 0;",
        "Power Usage (Watts) Avg: 247.541",
        "SM Utilization (%) Avg: 100, Max: 100, Min: 100",
        "Memory Utilization (%) Avg: 83",
    ):
        assert said in note
    # (review 61c: the copy has no "Successfully retrieved" line, so no job is named)
    assert note.endswith("; the stats")


def test_the_performance_stats_rows_alone_are_read_as_such() -> None:
    ev = _load(STATS_PERF)
    assert ev.files[0].formats == ["dcgmi_stats"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    ((line, note),) = _said(ev)
    assert line == 2  # the "+-----  Performance Stats  ---" section row
    assert "Performance Stats rows (the box's head and the rows above them not in the copy)" in note
    assert "job summary" not in note and " -j" not in note  # no job is in the copy
    assert "Energy Consumed (Joules) 10747;" in note
    assert "Memory Utilization (%) Avg: 0, Max: 0, Min: 0" in note


def test_a_verbose_job_with_two_gpu_boxes_is_a_note_a_gpu(tmp_path: Path) -> None:
    box = "".join(_text(STATS_GPU).splitlines(keepends=True)[1:])
    other = box.replace("GPU ID: 1 ", "GPU ID: 3 ").replace("| 9934209024 ", "| 1234567890 ")
    ev = _write(tmp_path, "Successfully retrieved statistics for job: train-42. \n" + box + other)
    assert ev.files[0].formats == ["dcgmi_stats"]
    notes = [(no, m) for no, m in _said(ev)]
    assert [no for no, _ in notes] == [3, 19]
    assert notes[0][1].startswith("dcgmi_stats: dcgmi stats (job train-42, GPU 1): stats: ")
    assert notes[1][1].startswith("dcgmi_stats: dcgmi stats (job train-42, GPU 3): stats: ")
    assert "Max GPU Memory Used (bytes) 1234567890" in notes[1][1]
    level, _ = heldout.imported(ev)
    assert level == "READY"


def test_the_job_summary_reading_is_kept() -> None:
    # the summary form the importer read before (set 556): job and summary said as they were
    text = (
        "Successfully retrieved statistics for job: 7. \n"
        + "+"
        + "-" * 78
        + "+\n"
        + "| Summary"
        + " " * 70
        + "|\n"
        + _text(STATS_GPU).split("\n", 3)[3]
    )
    (note,) = dcgm.stats_notes(text)
    assert note.line == 1
    assert note.message.startswith("dcgmi stats -j (job 7): job summary: No. of Processes 1;")


def test_performance_stats_words_in_prose_are_no_dcgmi_stats(tmp_path: Path) -> None:
    ev = _write(tmp_path, "+-----  Performance Stats  ---+---+\nthe energy was not recorded\n")
    assert "dcgmi_stats" not in ev.files[0].formats


# --- nvidia-smi: a process row last is not a cut GPU row ---------------------------------------


def test_a_process_row_last_is_not_a_cut_gpu() -> None:
    ev = _load(SMI)
    assert ev.files[0].status == "read" and ev.files[0].formats == ["nvidia_smi"]
    assert not [m for _, m in _said(ev) if "cut" in m]
    assert [(g["gpu"], g["bus_id"], g["ecc_uncorrected"]) for g in ev.gpus] == [
        (6, "00000000:A0:1C.0", 0),
        (7, "00000000:A0:1D.0", 0),
    ]
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_a_gpu_row_cut_last_is_still_said(tmp_path: Path) -> None:
    # the same table cut inside GPU 7's first row, no Processes table after it: that GPU is cut
    lines = _text(SMI).splitlines(keepends=True)
    ev = _write(tmp_path, "".join(lines[:4]) + lines[4][:40] + "\n")
    assert ev.files[0].status == "partial"
    assert any(no == 5 and "GPU 7's rows are cut" in m for no, m in _said(ev))


# --- nccl-tests: the layout before the root column -----------------------------------------------


def test_redop_sum_without_root_and_size_count_x4_is_all_reduce() -> None:
    ev = _load(OLD_TABLE)
    (bench,) = ev.benchmarks
    assert bench["op"] == "all_reduce" and bench["op_from"] == "columns"
    assert not [m for _, m in _said(ev) if "op is unknown" in m]
    assert any(no == 2 and "op all_reduce read from the table's" in m for no, m in _said(ev))
    # the judge's cut: the copy stops at 512 B, a warning kept
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-benchmark-cut-short", "warning")]
    assert ev.files[0].status == "partial"


def test_reduce_scatters_rows_of_the_same_layout_stay_reduce_scatter_or_unknown(
    tmp_path: Path,
) -> None:
    # reduce_scatter's size is n x count elements (src/reduce_scatter.cu paramcount): 16 ranks
    lines = _text(OLD_TABLE).splitlines(keepends=True)
    rows = []
    for line in lines[3:]:
        cells = line.split()
        size = int(cells[0]) * 16
        rows.append(line.replace(f"{cells[0]:>12}", f"{size:>12}", 1))
    assert rows[0].split()[:2] == ["64", "1"]
    ev = _write(tmp_path, "".join(lines[:3] + rows))
    (bench,) = ev.benchmarks
    assert bench["op"] in ("reduce_scatter", "unknown")


def test_rows_with_no_busbw_on_any_size_name_no_op(tmp_path: Path) -> None:
    # busbw 0 throughout: one rank's all_reduce or reduce_scatter (both factor 0): not told apart
    lines = _text(OLD_TABLE).splitlines(keepends=True)
    rows = [line.replace("0.01", "0.00").replace("0.02", "0.00") for line in lines[3:]]
    assert "0.02" in lines[-1] and "0.02" not in rows[-1]
    ev = _write(tmp_path, "".join(lines[:3] + rows))
    (bench,) = ev.benchmarks
    assert bench["op"] == "unknown"


def test_op_from_columns_on_the_parsed_table() -> None:
    (table,) = nccl_tests.parse(_text(OLD_TABLE)).tables
    assert table.op_from_columns == "all_reduce"
    assert nccl_tests.op_from_columns(table, 1) is None  # one rank: reduce_scatter's cells too
