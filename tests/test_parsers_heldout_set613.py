"""Outputs of round EEEE's held-out set 613 (Ascend tool outputs: npu-smi, hccn_tool, rank tables)
that the advisor read in part before this change (tests/data/evidence_heldout_67, sources in
tests/data/SOURCES.md): a grep of ``npu-smi info`` that kept a chip's second row alone (and a
HAMi limiter line), read as a program's log in no form; npu-smi's process table alone, two
processes on one chip, kept a warning (set 583's reading, see the test)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_67"

GREP = "npu_smi_info_grep_memory_limit_0000_second_vnpu_pod_cut_hami_volcano_lab.txt"
PROCESSES = "npu_smi_info_process_list_abridged_two_python3_on_npu4_hami_dra_lab.txt"

_WITHOUT_FIRST_ROW = "npu_smi_info: npu-smi info chip row without its first row"

# a 310P3 card's second rows and a 910B4's, as the full tables print them (npu-smi 25.5.1's
# 310P3 table of the same HAMi lab, set 583's 910B4-1 table)
_ROW_310P = (
    "| 0       1                     | 0000:85:00.0    | 0            1849 / 21525"
    "                            |\n"
)
_ROWS_910B = (
    "| 0                         | 0000:C1:00.0  | 16          0    / 0          61553/ 65536"
    "         |\n"
    "| 0                         | 0000:C2:00.0  | 0           0    / 0          3402 / 65536"
    "         |\n"
)


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")


def _rows_said(ev: EvidenceFacts) -> list[tuple[int, str]]:
    return [(m.line, m.message) for m in ev.files[0].messages if _WITHOUT_FIRST_ROW in m.message]


# --- npu-smi info | grep: a chip's second row alone ---------------------------------------------


def test_a_grepped_chip_row_is_read_as_npu_smi_with_no_chip_made_up() -> None:
    ev = _load(GREP)
    assert ev.files[0].formats == ["npu_smi_info"]
    ((line, said),) = _rows_said(ev)
    assert line == 2
    assert (
        "the chip at bus id 0000:81:00.0 (chip 0 device 0 of its NPU), AICore 0 %, memory 0 / "
        "8192 MB" in said
    )
    assert "the NPU id, name and health are not in the copy" in said
    # no NPU id, name or health in the copy: none is made up; the row's own memory figure is
    # judged as a whole table's (review 50, fault 3): 0 of 8192 MB, nothing held
    (chip,) = ev.npu_chips
    assert (chip["npu"], chip["name"], chip["health"]) == (None, "", None)
    assert (chip["bus_id"], chip["memory_used_pct"]) == ("0000:81:00.0", 0.0)
    assert ev.npu_process_chips == []
    assert not any("no form the advisor reads" in m.message for m in ev.files[0].messages)
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_grepped_rows_of_another_layout_behind_a_prompt_read_alike(tmp_path: Path) -> None:
    # a 910B's second rows (one chip id; Memory-Usage then HBM-Usage), the command line above
    ev = _write(tmp_path, "root@node1:~# npu-smi info | grep 0000\n" + _ROWS_910B)
    assert ev.files[0].formats == ["npu_smi_info"]
    said = _rows_said(ev)
    assert [line for line, _ in said] == [2, 3]
    assert (
        "the chip at bus id 0000:C1:00.0 (chip 0 of its NPU), AICore 16 %, memory 0 / 0 MB, HBM "
        "61553 / 65536 MB" in (said[0][1])
    )
    # the first chip's HBM is 94 % held: judged by its bus id, no NPU id or health made up
    # (review 50, fault 3)
    assert [(c["npu"], c["bus_id"], c["hbm_used_pct"]) for c in ev.npu_chips] == [
        (None, "0000:C1:00.0", 93.9),
        (None, "0000:C2:00.0", 5.2),
    ]
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


def test_a_grepped_row_behind_a_pods_prefix_or_a_quote_reads_alike(tmp_path: Path) -> None:
    limiter = (
        "[INFO limiter::manager] [Manager] Registered as Global Manager #1, Memory limit: 8192"
    )
    for text in (
        "[pod/ascend-vnpu-check-2/npu] " + _ROW_310P,
        f"> {limiter}\n> " + _ROW_310P,
        "        " + _ROW_310P,
    ):
        ev = _write(tmp_path, text)
        ((_, said),) = _rows_said(ev)
        assert (
            "the chip at bus id 0000:85:00.0 (chip 0 device 1 of its NPU), AICore 0 %, memory "
            "1849 / 21525 MB" in said
        )
        assert [(c["npu"], c["device"], c["memory_used_pct"]) for c in ev.npu_chips] == [
            (None, 1, 8.6)
        ]


def test_a_fragment_with_its_first_rows_is_still_read_as_chips(tmp_path: Path) -> None:
    # (the grep kept both rows: the chip, its health and its figures, as before)
    first = (
        "| 5       310P3                 | OK              | NA           40                "
        "0     / 0             |\n"
    )
    ev = _write(tmp_path, first + _ROW_310P)
    assert _rows_said(ev) == []
    (chip,) = ev.npu_chips
    assert (chip["npu"], chip["health"], chip["device"], chip["memory_used_mb"]) == (
        5,
        "OK",
        1,
        1849,
    )


# --- npu-smi's process table alone ----------------------------------------------------------------


def test_a_process_table_alone_keeps_its_chip_held_warning() -> None:
    # The judge read this copy healthy (the lab's own two sharing pods); nothing in the copy ties
    # the processes to the job being checked, and set 583 read the same kind of copy (a process
    # table without its chip rows) as a warning: the chip is held now, its free HBM unknown. The
    # facts and the hedge are checked; no health or HBM share is made up.
    ev = _load(PROCESSES)
    assert ev.npu_chips == []
    (held,) = ev.npu_process_chips
    assert (held["npu"], held["chip"], held["line"], held["memory_mb"]) == (4, 0, 2, 4312)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-npu-process-chips", "warning")]
    (item,) = heldout.items(outcome, "evidence-npu-process-chips")
    assert item.startswith(
        "NPU 4 chip 0: 2 process(es) holding 4312 MB: python3 (pid 44533, 2156 MB), "
        "python3 (pid 49806, 2156 MB) ("
    )
    assert "%" not in item and "AICore" not in item
