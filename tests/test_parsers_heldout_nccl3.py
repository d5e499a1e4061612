"""nccl-tests outputs the sixth and seventh held-out evaluations misread: mscclpp-test's one column
group a row (in-place only, or blanks then out-of-place under Open MPI tags), and nccl-tests logs
pasted without their ``#`` marks (a table cut after two rows, a header with no row).

Samples: ``tests/data/evidence_heldout_9/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from functools import partial

import pytest

from advisor.evidence.load import EvidenceFacts, detect
from advisor.parsers import nccl_tests
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_9"
GBITS = 8.0  # facts hold Gbit/s, the logs print GB/s


_text = partial(heldout.text, HELDOUT)


_load = partial(heldout.load, HELDOUT)


def _messages(ev: EvidenceFacts) -> list[tuple[int, str]]:
    (report,) = ev.files
    return [(m.line, m.message) for m in report.messages]


# ------------------------------------------- mscclpp-test: one column group a row


def test_mscclpp_out_of_place_row_under_blank_in_place_columns() -> None:
    name = "mscclpp_alltoall_out_of_place_only_mpi_tag.log"
    parsed = nccl_tests.parse(_text(name))
    (table,) = parsed.tables
    assert table.mscclpp and table.complete and table.out_of_bounds == 0
    (row,) = table.rows
    # the cells sit under the second ("out-of-place") group of an in-place-first header
    assert row.line == 7 and row.in_place is None and row.out_of_place is not None
    assert (row.size_bytes, row.count) == (1073741824, 16777216)
    got = row.out_of_place
    assert (got.time_us, got.algbw_gbytes_s, got.busbw_gbytes_s, got.wrong) == (
        23275.0,
        46.13,
        43.25,
        0,
    )
    ev = _load(name)
    (report,) = ev.files
    assert report.status == "read"
    # the log starts after the run's request line: said, as a note at the header
    assert [line for line, _ in _messages(ev)] == [5]
    (bench,) = ev.benchmarks
    assert bench["complete"] and bench["max_bytes"] is None
    (hit,) = bench["results"]
    assert hit["in_place"] is False and hit["bytes"] == 1073741824
    assert hit["time_us_p50"] == 23275.0
    assert hit["busbw_gbps"] == pytest.approx(43.25 * GBITS)
    assert hit["algbw_gbps"] == pytest.approx(46.13 * GBITS)


def test_mscclpp_in_place_only_rows_end_with_out_of_bounds_line() -> None:
    name = "mscclpp_reduce_scatter_in_place_only.log"
    parsed = nccl_tests.parse(_text(name))
    (table,) = parsed.tables
    assert table.mscclpp and table.complete and table.avg_busbw_gbytes_s is None
    assert [(r.line, r.size_bytes) for r in table.rows] == [
        (7, 6291456),
        (8, 12582912),
        (9, 25165824),
    ]
    assert all(r.out_of_place is None and r.in_place is not None for r in table.rows)
    # no "row has only its in-place columns" warning: one group a row is mscclpp-test's layout
    (note,) = parsed.warnings
    assert note.line == 5 and not note.skipped and "no '# nThread" in note.message
    ev = _load(name)
    assert ev.files[0].status == "read"
    by_size = {r["bytes"]: r for r in ev.benchmarks[0]["results"]}
    assert all(r["in_place"] for r in by_size.values())
    assert by_size[25165824]["busbw_gbps"] == pytest.approx(162.23 * GBITS)
    assert by_size[25165824]["time_us_p50"] == 271.5
    assert by_size[6291456]["busbw_gbps"] == pytest.approx(144.46 * GBITS)


def test_mscclpp_row_cut_before_its_group_is_still_reported() -> None:
    # the same layout, the row cut inside its only group and the run's last line missing
    lines = _text("mscclpp_reduce_scatter_in_place_only.log").splitlines()
    cut = "\n".join([*lines[:7], lines[7][:40]])
    parsed = nccl_tests.parse(cut)
    (table,) = parsed.tables
    assert not table.complete and [r.size_bytes for r in table.rows] == [6291456]
    said = {w.line: w.message for w in parsed.warnings}
    assert "unreadable nccl-tests row" in said[8]
    assert "'# Out of bounds values' line that ends an mscclpp-test run" in said[7]


# ------------------------------------------- nccl-tests pasted without '#' marks


def test_header_lines_without_hash_marks_give_ranks_hosts_and_sizes_asked() -> None:
    name = "nccl_tests_without_hash_marks.log"
    parsed = nccl_tests.parse(_text(name))
    assert parsed.ranks == 2 and parsed.hosts == ["AI-A100-Beethoven01"]
    (table,) = parsed.tables
    assert table.header_line == 8 and not table.headerless and not table.mscclpp
    assert (table.min_bytes, table.max_bytes, table.sizes_asked()) == (32, 1073741824, 26)
    assert [(r.line, r.size_bytes) for r in table.rows] == [(10, 32), (11, 64)]
    row = table.rows[1]
    assert row.out_of_place is not None and row.in_place is not None
    assert row.in_place.time_us == 10.31 and row.out_of_place.busbw_gbytes_s == 0.01
    assert row.out_of_place.max_error == 0.0  # the "error" column of releases before 2.10
    ev = _load(name)
    (report,) = ev.files
    assert report.status == "partial"  # cut inside the 128 B row
    op_read, said = _messages(ev)
    assert said[0] == 11 and "2 of 26 sizes" in said[1]
    # reducing with no root column and size = count x 4: all_reduce's cells (nccl-tests before
    # the 2.13 resync: reduce prints a root, sendrecv no redop, reduce_scatter's size is n x
    # count elements; set 675)
    assert op_read[0] == 8 and "op all_reduce read from the table's" in op_read[1]
    (bench,) = ev.benchmarks
    assert (bench["ranks"], bench["max_bytes"], bench["complete"]) == (2, 1073741824, False)
    assert bench["op"] == "all_reduce"


def test_header_without_rows_and_hash_marks_is_detected_and_kept_as_asked() -> None:
    # the copy ends at the table's units line (no '#' marks): no line after the header is a
    # row, so the run stopped before its first size; what it asked is still evidence
    name = "nccl_tests_header_only_without_hash_marks.log"
    text = _text(name)
    assert detect(text) == ["nccl_tests"]
    parsed = nccl_tests.parse(text)
    (table,) = parsed.tables
    assert table.rows == [] and table.max_bytes == 16777216
    ev = _load(name)
    (report,) = ev.files
    assert report.status == "partial"
    (bench,) = ev.benchmarks
    assert bench["results"] == [] and bench["max_bytes"] == 16777216
    (said,) = _messages(ev)
    assert said[0] == 9 and "no result row follows" in said[1] and "0 of 22 sizes" in said[1]
