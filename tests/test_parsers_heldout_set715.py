"""An output of round VVVV's held-out evaluation (set 715, Ascend tool outputs) that the advisor
read in part before this change (tests/data/evidence_heldout_82, source in tests/data/SOURCES.md):
``npu-smi info`` inside a HAMi soft-sliced vNPU container, the limiter's start-up lines (memory
limit 8192) first, then the author's ``...`` for the table's head and one chip's two rows
(NPU 32768 310P3 OK, 0 / 8192 MB). It was partial (the end of the copy counted as a cut, though
its author marked it an excerpt) and the limiter's 8192 MB slice was not said; it is now read,
READY, the slice said."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_82"

SLICE = "npu_smi_info_25_5_1_310p3_vnpu_container_limiter_8192mb_slice_cut_hami_volcano_blog.txt"

_write = partial(heldout.load_copy, name="copy.txt")

# the host's whole table of the same blog (set 715's healthy twin, "What we verified")
HOST_TABLE = """\
+--------------------------------------------------------------------------------------------------------+
| npu-smi 25.5.1                                   Version: 25.5.1                                       |
+-------------------------------+-----------------+------------------------------------------------------+
| NPU     Name                  | Health          | Power(W)     Temp(C)           Hugepages-Usage(page) |
| Chip    Device                | Bus-Id          | AICore(%)    Memory-Usage(MB)                        |
+===============================+=================+======================================================+
| 32768   310P3                 | OK              | NA           38                0     / 0             |
| 0       0                     | 0000:81:00.0    | 0            0    / 8192                             |
+===============================+=================+======================================================+
"""


def _text() -> str:
    return (HELDOUT / SLICE).read_text()


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


def test_the_vnpu_excerpt_is_read_ready_and_its_slice_said() -> None:
    ev = load_paths([HELDOUT / SLICE])
    assert ev.files[0].status == "read" and ev.files[0].formats == ["npu_smi_info"]
    (chip,) = ev.npu_chips
    assert (chip["npu"], chip["chip"], chip["device"], chip["name"], chip["health"]) == (
        32768,
        0,
        0,
        "310P3",
        "OK",
    )
    assert (chip["line"], chip["bus_id"], chip["temp_c"]) == (6, "0000:81:00.0", 38.0)
    assert (chip["memory_used_mb"], chip["memory_total_mb"], chip["memory_used_pct"]) == (
        0,
        8192,
        0.0,
    )
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    said = dict(_said(ev))
    assert sorted(said) == [3, 5, 6, 7]
    assert said[3] == (
        "npu_smi_info: HAMi-core's vNPU limiter (libvnpu.so) runs in this container: memory limit "
        "8192 MB, compute limit 1; npu-smi shows the container's soft-sliced vNPU, not the whole "
        "card (NPU 32768 chip 0: 0 / 8192 MB, the slice's limit)"
    )
    assert "left the table's head out here ('...')" in said[5]
    assert "without the table's header (a fragment)" in said[6]
    assert said[7] == (
        "npu_smi_info: the chip table ends without its closing border (an excerpt: its head left "
        "out at line 5): chips after NPU 32768 are unknown"
    )


def test_another_slice_on_another_card_is_named_with_its_own_figures(tmp_path: Path) -> None:
    text = (
        _text()
        .replace("Memory limit: 8192", "Memory limit: 4096")
        .replace("Compute limit: 1,", "Compute limit: 30,")
        .replace("| 32768 ", "| 32769 ")
        .replace("0000:81:00.0", "0000:85:00.0")
        .replace("0    / 8192 ", "1024 / 4096 ")
    )
    ev = _write(tmp_path, text)
    assert ev.files[0].status == "read"
    (chip,) = ev.npu_chips
    assert (chip["npu"], chip["bus_id"], chip["memory_used_mb"], chip["memory_total_mb"]) == (
        32769,
        "0000:85:00.0",
        1024,
        4096,
    )
    assert (
        3,
        "npu_smi_info: HAMi-core's vNPU limiter (libvnpu.so) runs in this container: "
        "memory limit 4096 MB, compute limit 30; npu-smi shows the container's soft-sliced "
        "vNPU, not the whole card (NPU 32769 chip 0: 1024 / 4096 MB, the slice's limit)",
    ) in (_said(ev))
    assert heldout.imported(ev)[0] == "READY"


def test_a_limit_no_row_shows_is_said_without_naming_a_chip(tmp_path: Path) -> None:
    ev = _write(tmp_path, _text().replace("Memory limit: 8192", "Memory limit: 6144"))
    said = dict(_said(ev))
    assert said[3].endswith(
        "memory limit 6144 MB, compute limit 1; npu-smi shows the "
        "container's soft-sliced vNPU, not the whole card"
    )


def test_the_whole_table_under_the_limiter_stays_read_and_ready(tmp_path: Path) -> None:
    lines = _text().splitlines(keepends=True)
    ev = _write(tmp_path, "".join(lines[:4]) + HOST_TABLE)
    assert ev.files[0].status == "read"
    (chip,) = ev.npu_chips
    assert (chip["npu"], chip["line"], chip["memory_total_mb"]) == (32768, 11, 8192)
    said = dict(_said(ev))
    assert sorted(said) == [3]  # the limiter only: no fragment, no cut
    assert heldout.imported(ev)[0] == "READY"


def test_the_rows_without_the_authors_mark_are_still_a_cut_copy(tmp_path: Path) -> None:
    # no "..." says the copy is an excerpt: ending on a row, it was cut (partial, as before)
    ev = _write(tmp_path, _text().replace("...\n", ""))
    assert ev.files[0].status == "partial"
    said = dict(_said(ev))
    assert said[6].endswith(
        "ends without its closing border (cut off): chips after NPU 32768 are unknown"
    )
    assert 4 not in said or "head out" not in said[4]


def test_an_unhealthy_chip_in_the_excerpt_is_not_ready(tmp_path: Path) -> None:
    ev = _write(tmp_path, _text().replace("| OK              |", "| Critical        |"))
    assert ev.files[0].status == "read"
    (chip,) = ev.npu_chips
    assert chip["health"] == "Critical"
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert any(
        "32768" in str(f.items) + f.message for f in outcome.findings if f.severity == "critical"
    )
