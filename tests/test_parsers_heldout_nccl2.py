"""Held-out nccl-tests logs the third import evaluation misread: Open MPI's ``[1,0]<stdout>:`` tag
indented by the paste, and two runs' rows interleaved (sizes go back down mid-table).

Samples: ``tests/data/evidence_heldout_6/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from functools import partial

from advisor.evidence.load import EvidenceFacts, detect, load_paths
from advisor.parsers import nccl_tests, strip_launcher_prefix
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_6"
GBITS = 8.0  # facts hold Gbit/s, the logs print GB/s


_text = partial(heldout.text, HELDOUT)


def _messages(ev: EvidenceFacts) -> list[tuple[int, str]]:
    (report,) = ev.files
    return [(m.line, m.message) for m in report.messages]


def _results(ev: EvidenceFacts, size_bytes: int, in_place: bool) -> list[dict[str, object]]:
    return [
        r
        for bench in ev.benchmarks
        for r in bench["results"]
        if r["bytes"] == size_bytes and r["in_place"] is in_place
    ]


# ------------------------------------------------ Open MPI tag indented by the paste


def test_indented_open_mpi_tag_is_stripped_with_its_rank() -> None:
    first = _text("nccl_tests_2.log").splitlines()[0]
    line, rank = strip_launcher_prefix(first)
    assert rank == 0
    assert line.split()[:4] == ["2048", "32", "float", "none"]


def test_indented_open_mpi_rows_are_detected_and_read() -> None:
    name = "nccl_tests_2.log"
    assert detect(_text(name)) == ["nccl_tests"]
    ev = load_paths([HELDOUT / name])
    (report,) = ev.files
    assert report.status == "partial"  # cut before the footer, and no header above the rows
    (two_k,) = _results(ev, 2048, False)
    assert two_k["busbw_gbps"] == 0.02 * GBITS
    (quarter,) = _results(ev, 262144, False)
    assert quarter["time_us_p50"] == 161.17
    (half_out,) = _results(ev, 524288, False)
    (half_in,) = _results(ev, 524288, True)
    assert (half_out["busbw_gbps"], half_in["busbw_gbps"]) == (2.31 * GBITS, 2.20 * GBITS)
    # the in-place '#wrong' cell is N/A: not checked, not zero
    assert (half_out["wrong"], half_in["wrong"]) == (0, None)
    said = _messages(ev)
    assert any(line == 9 and "footer" in m for line, m in said), said


# ------------------------------------------------ two runs' rows interleaved


def test_interleaved_runs_are_reported_at_the_restart_and_read_as_one_table() -> None:
    name = "nccl_tests_6.log"
    parsed = nccl_tests.parse(_text(name))
    (table,) = parsed.tables
    assert [r.size_bytes for r in table.rows] == [8, 16, 32, 64, 128, 256, 8, 512, 16, 1024]
    ev = load_paths([HELDOUT / name])
    said = _messages(ev)
    (restart,) = [(line, m) for line, m in said if "go back down" in m]
    assert restart[0] == 8
    assert "8 B after 256 B" in restart[1] and "interleaved" in restart[1]
    assert "line(s) 10" in restart[1]
    (one_k,) = _results(ev, 1024, False)
    assert one_k["busbw_gbps"] == 0.02 * GBITS
    assert len(_results(ev, 8, False)) == 2  # both runs' 8 B rows are kept


def test_a_single_restart_starts_a_table_of_its_own() -> None:
    # the same log up to its first second-run row: one drop, rising after it, so the runs part
    text = "\n".join(_text("nccl_tests_6.log").splitlines()[:8])
    parsed = nccl_tests.parse(text)
    first, second = parsed.tables
    assert [r.size_bytes for r in first.rows] == [8, 16, 32, 64, 128, 256]
    assert [r.line for r in second.rows] == [8]
    assert second.header_line == 8 and not first.complete and not second.complete
    said = [(w.line, w.message) for w in parsed.warnings]
    assert any(line == 8 and "a second run's rows start here" in m for line, m in said), said
    assert any(line == 7 and "or the copy was cut, after 256 bytes" in m for line, m in said), said
