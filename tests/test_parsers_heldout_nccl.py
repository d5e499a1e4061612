"""Held-out nccl-tests-family logs the importer misread: a row cut after its out-of-place half,
rows pasted without their header (old ``error`` column, or today's layout), a second run's header
line after a finished table, mscclpp-test's in-place-first layout, a row cut by NCCL INFO output.

Samples: ``tests/data/evidence_heldout_3/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from functools import partial

import pytest

from advisor.evidence.load import EvidenceFacts, detect
from advisor.parsers import ParseError, nccl_tests
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_3"
GBITS = 8.0  # facts hold Gbit/s, the logs print GB/s


_text = partial(heldout.text, HELDOUT)


_load = partial(heldout.load, HELDOUT)


def _messages(ev: EvidenceFacts) -> list[tuple[int, str]]:
    (report,) = ev.files
    return [(m.line, m.message) for m in report.messages]


def _result(ev: EvidenceFacts, size_bytes: int, in_place: bool) -> dict[str, object]:
    (bench,) = ev.benchmarks
    (hit,) = [r for r in bench["results"] if r["bytes"] == size_bytes and r["in_place"] is in_place]
    return hit


# -------------------------------------------------- a row cut after its first group


def test_row_cut_after_its_out_of_place_half_is_read_and_reported() -> None:
    name = "nccl_all_reduce_tree_8x4090_cut_half_row.log"
    parsed = nccl_tests.parse(_text(name))
    (table,) = parsed.tables
    assert (table.op, parsed.algorithm, parsed.ranks, parsed.hosts) == (
        "all_reduce",
        "tree",
        8,
        ["gpu59"],
    )
    (row,) = table.rows
    assert row.line == 17 and row.in_place is None
    assert row.out_of_place is not None
    assert (row.out_of_place.time_us, row.out_of_place.wrong) == (42.56, 0)
    ev = _load(name)
    assert ev.files[0].status == "partial"
    said = _messages(ev)
    assert any(line == 17 and "only its out-of-place columns" in m for line, m in said), said
    assert _result(ev, 8, False)["time_us_p50"] == 42.56
    assert [r["in_place"] for r in ev.benchmarks[0]["results"]] == [False]


# ------------------------------------------ rows without a header, then another run


def test_headerless_rows_with_error_column_are_read_and_next_runs_header_reported() -> None:
    name = "nccl_old_error_column_rows_then_broadcast_header.log"
    parsed = nccl_tests.parse(_text(name))
    (table,) = parsed.tables
    assert table.headerless and table.complete
    # the broadcast_perf command line after the footer starts the next run: not this table's op
    assert table.op == "unknown"
    assert [r.size_bytes for r in table.rows] == [65536 * 2**i for i in range(12)]
    last = table.rows[-1]
    assert last.line == 12 and last.dtype == "float32" and last.redop == "none"
    assert last.out_of_place is not None and last.in_place is not None
    assert (last.out_of_place.time_us, last.out_of_place.busbw_gbytes_s) == (3298.6, 20.34)
    # releases before 2.10 print the largest error, not a count of wrong elements
    assert (last.out_of_place.wrong, last.out_of_place.max_error) == (None, 0.0)
    assert last.in_place.busbw_gbytes_s == 21.86
    assert table.avg_busbw_gbytes_s == 6.6972
    ev = _load(name)
    assert ev.files[0].status == "partial"
    said = _messages(ev)
    assert any(line == 1 and "no '#  size  count  type" in m for line, m in said), said
    assert any(line == 17 and "ends before its first size" in m for line, m in said), said
    assert _result(ev, 134217728, True)["busbw_gbps"] == pytest.approx(21.86 * GBITS)
    assert _result(ev, 67108864, False)["algbw_gbps"] == pytest.approx(21.40 * GBITS)
    assert ev.benchmarks[0]["footer_avg_busbw_gbps"] == pytest.approx(6.6972 * GBITS)


def test_rows_only_are_detected_and_read_by_nccl_tests_layout() -> None:
    name = "nccl_rows_only_no_header.log"
    assert detect(_text(name)) == ["nccl_tests"]
    (table,) = nccl_tests.parse(_text(name)).tables
    assert table.headerless and not table.complete
    assert len(table.rows) == 11
    row = table.rows[-1]
    assert (row.line, row.size_bytes, row.redop, row.root) == (11, 33554432, "sum", -1)
    assert row.out_of_place is not None and row.in_place is not None
    assert (row.out_of_place.algbw_gbytes_s, row.out_of_place.busbw_gbytes_s) == (171.72, 300.51)
    assert row.in_place.busbw_gbytes_s == 300.52
    ev = _load(name)
    assert ev.files[0].status == "partial"
    assert _result(ev, 1048576, False)["busbw_gbps"] == pytest.approx(66.11 * GBITS)
    assert _result(ev, 32768, False)["time_us_p50"] == 18.66
    said = _messages(ev)
    assert any(line == 11 and "ends before" in m for line, m in said), said


def test_headerless_row_of_no_known_layout_is_reported_not_guessed() -> None:
    # the second row has one cell more than any nccl-tests layout: not read, reported
    text = (
        "    32768   8192   float   sum   -1   18.66   1.76   3.07   0   17.95   1.83   3.20   0\n"
        "    65536  16384   float   sum   -1   18.95   3.46   6.05   0   18.25   3.59   6.28   0  7\n"
    )
    parsed = nccl_tests.parse(text)
    assert [r.size_bytes for r in parsed.tables[0].rows] == [32768]
    assert [w.line for w in parsed.warnings if "unreadable" in w.message] == [2]


# ---------------------------------------------------------------- mscclpp-test


def test_mscclpp_in_place_first_layout_is_read_from_its_own_header() -> None:
    name = "mscclpp_test_8xa100_in_place_first.log"
    parsed = nccl_tests.parse(_text(name))
    assert parsed.ranks == 8 and parsed.hosts == ["costsim-dev-00000A"]
    (table,) = parsed.tables
    assert (table.min_bytes, table.max_bytes, table.sizes_asked()) == (2**30, 2**30, 1)
    (row,) = table.rows
    # the label line above the header puts in-place first: the one group printed is in-place
    assert row.out_of_place is None and row.in_place is not None
    assert (row.in_place.time_us, row.in_place.algbw_gbytes_s, row.in_place.busbw_gbytes_s) == (
        17018.0,
        63.09,
        110.41,
    )
    assert row.dtype == "unknown"  # mscclpp-test prints no type column
    # mscclpp-test prints one group a row and ends its run with '# Out of bounds values'
    # (microsoft/mscclpp test/mscclpp-test/common.cc): the one row and the run are whole
    assert table.complete and table.out_of_bounds == 0 and table.avg_busbw_gbytes_s is None
    assert parsed.warnings == []
    ev = _load(name)
    assert ev.files[0].status == "read" and _messages(ev) == []
    hit = _result(ev, 2**30, True)
    assert hit["busbw_gbps"] == pytest.approx(110.41 * GBITS)
    assert hit["algbw_gbps"] == pytest.approx(63.09 * GBITS)


# ------------------------------------------------------ a row cut by NCCL output


def test_row_cut_by_nccl_info_is_reported_at_its_line() -> None:
    name = "nccl_row_cut_by_nccl_info_mpi_tag.log"
    with pytest.raises(ParseError) as err:
        nccl_tests.parse(_text(name))
    assert err.value.line == 1 and "NCCL log line printed into it" in err.value.message
    ev = _load(name)
    assert ev.files[0].status == "unreadable" and ev.benchmarks == []
    assert [line for line, _ in _messages(ev)] == [1]
