"""Outputs of round PPPP's held-out evaluation (set 679, Ascend tool outputs) that the advisor
read wrong or in part before this change (tests/data/evidence_heldout_76, sources in
tests/data/SOURCES.md), three npu-smi samples zstack-utility captured on a 910B (driver
25.3.rc1) with NPUs isolated through the BMC: an ``npu-smi info -t hccs`` answer of health NOK,
0 links in use, 0 GB/s and lanes 0 was a warning naming the health only; an 8-NPU
``-t topo`` matrix with every pair SYS was READY, called the board's design though the copy says
no such thing; and the header with NPU5's row only, SYS to all seven peers, gave no finding."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_76"

HCCS = (
    "npu_smi_t_hccs_910b_driver25.3.rc1_health_nok_zero_links_zero_bw_bmc_isolated_zstack_cut.txt"
)
TOPO_ALL_SYS = "npu_smi_t_topo_910b_8npu_all_sys_no_hccs_fully_isolated_zstack_cut.txt"
TOPO_NPU5 = "npu_smi_t_topo_910b_header_and_npu5_row_all_sys_partial_isolation_zstack_cut.txt"

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


def _matrix(hccs_groups: list[set[int]], rows: list[int] | None = None) -> str:
    """The real 8-NPU matrix (its header and CPU affinities) with HCCS between the NPUs of each
    group, SYS elsewhere, as zstack-utility's healthy sample of the same host prints it (two
    groups of four)."""
    header, *body = _text(TOPO_ALL_SYS).splitlines()
    lines = [header]
    for i, row in enumerate(body):
        if rows is not None and i not in rows:
            continue
        name, *cells, affinity = row.split()
        group = next((g for g in hccs_groups if i in g), set())
        cells = ["X" if j == i else "HCCS" if j in group else "SYS" for j in range(len(cells))]
        lines.append(f"{name:<10}" + "".join(f"{c:<7}" for c in cells) + f"{affinity}")
    return "\n".join(lines) + "\n"


# --- npu-smi info -t hccs: health NOK, no link in use, 0 GB/s --------------------------------


def test_an_hccs_answer_with_no_link_in_use_is_the_chip_cut_off_hccs() -> None:
    ev = _load(HCCS)
    assert ev.files[0].formats == ["npu_smi_query"] and ev.files[0].status == "read"
    (chip,) = ev.npu_chips
    assert chip["query"] == "hccs" and chip["npu"] is None and chip["hccs_links_in_use"] == 0
    assert chip["health"] == (
        "HCCS health NOK; 0 HCCS link(s) in use (line 2); total bandwidth 0 GB/s (line 3); "
        "lanes 0, 1, 2 all 0 (lines 6-8)"
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert ("evidence-npu-hccs-down", "critical") in heldout.above_info(outcome)
    (item,) = heldout.items(outcome, "evidence-npu-hccs-down")
    assert item.startswith("NPU (not named): HCCS health NOK; 0 HCCS link(s) in use (line 2)")
    assert "line 1)" in item


def test_the_hccs_answer_under_its_command_names_the_npu(tmp_path: Path) -> None:
    text = "[root@node-7 ~]# npu-smi info -t hccs -i 5 -c 0\n" + _text(HCCS)
    ev = _write(tmp_path, text)
    (chip,) = ev.npu_chips
    assert (chip["npu"], chip["chip"]) == (5, 0)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-npu-hccs-down")
    # (the figures' lines move one down with the command line above them)
    assert item.startswith("NPU 5 chip 0: HCCS health NOK; 0 HCCS link(s) in use (line 3)")
    assert "lanes 0, 1, 2 all 0 (lines 7-9)" in item


def test_the_healthy_answer_of_the_same_host_stays_ready(tmp_path: Path) -> None:
    # zstack-utility's HCCS_OUTPUT_HEALTHY_OK of the same host: OK, 3 links, 89.4 GB/s, lanes 1
    text = (
        _text(HCCS)
        .replace(": NOK", ": OK")
        .replace("hccs link num in used           : 0", "hccs link num in used           : 3")
        .replace("hccs total bandwidth(GB/s)      : 0", "hccs total bandwidth(GB/s)      : 89.4")
        .replace("                  : 0", "                  : 1")
    )
    assert text.count(": 1") == 3 and "89.4" in text and ": 3" in text
    ev = _write(tmp_path, text)
    assert ev.npu_chips == []
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    assert (
        1,
        "npu_smi_query: npu-smi info -t hccs: health OK, 3 HCCS link(s) in use (line 2); total "
        "bandwidth 89.4 GB/s (line 3); lanes 0, 1, 2 all 1 (lines 6-8), no error counter printed",
    ) in _said(ev)


def test_health_not_ok_with_links_in_use_stays_a_warning(tmp_path: Path) -> None:
    text = _text(HCCS).replace(
        "hccs link num in used           : 0", "hccs link num in used           : 2"
    )
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-npu-chip-health", "warning")]


# --- npu-smi info -t topo: every pair SYS, no legend ---------------------------------------------


def test_an_all_sys_matrix_without_a_legend_is_a_warning_with_both_readings() -> None:
    ev = _load(TOPO_ALL_SYS)
    (topo,) = ev.topologies
    assert topo["hccs"] is False and topo["sys_by_design"] is False
    assert [(n["npu"], n["line"], n["peers"]) for n in topo["no_hccs_npus"]] == [
        (f"NPU{i}", i + 2, 7) for i in range(8)
    ]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-npu-topology-no-hccs-link", "warning")]
    # not called the board's design any more
    assert not [f for f in outcome.findings if f.rule_id == "evidence-npu-topology-no-hccs"]
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-npu-topology-no-hccs-link"]
    assert "PCIe cards without HCCS" in finding.message and "links are down" in finding.message
    (item,) = heldout.items(outcome, "evidence-npu-topology-no-hccs-link")
    assert "NPU0, NPU1, NPU2, NPU3, NPU4, NPU5, NPU6, NPU7 SYS to every peer" in item
    assert "(line(s) 2, 3, 4, 5, 6, 7, 8, 9) (no pair of the matrix has HCCS)" in item


def test_an_all_sys_matrix_whose_legend_has_no_hccs_stays_the_boards_design(
    tmp_path: Path,
) -> None:
    # the same matrix with the legend of a board without HCCS (the Atlas 350's, npu-smi command
    # reference): SYS is its design, an info as before
    legend = (DATA / "evidence" / "npu_smi_topo_atlas350_col0.txt").read_text()
    legend = legend[legend.index("Legend:") :]
    ev = _write(tmp_path, _text(TOPO_ALL_SYS) + legend)
    (topo,) = ev.topologies
    assert topo["sys_by_design"] is True and topo["no_hccs_npus"] == []
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    assert [f.rule_id for f in outcome.findings] == ["evidence-npu-topology-no-hccs"]


def test_the_healthy_matrix_of_the_same_host_names_no_npu(tmp_path: Path) -> None:
    # zstack-utility's TOPO_OUTPUT_NORMAL: HCCS within 0-3 and 4-7, SYS between them
    ev = _write(tmp_path, _matrix([{0, 1, 2, 3}, {4, 5, 6, 7}]))
    (topo,) = ev.topologies
    assert topo["hccs"] and topo["sys_by_design"] and topo["no_hccs_npus"] == []
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []


def test_two_isolated_npus_of_an_hccs_board_are_named(tmp_path: Path) -> None:
    # the source's partial isolation: NPU 5 and 7 cut off HCCS, the others in their groups
    ev = _write(tmp_path, _matrix([{0, 1, 2, 3}, {4, 6}]))
    (topo,) = ev.topologies
    assert topo["hccs"] and topo["sys_by_design"] is False
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-npu-topology-no-hccs-link")
    assert "NPU5, NPU7 SYS to every peer (line(s) 7, 9) (other NPUs here are joined by HCCS)" in (
        item
    )
    assert ("evidence-npu-topology-sys", "warning") in heldout.above_info(outcome)


# --- npu-smi info -t topo: the header and one row ------------------------------------------------


def test_the_header_and_npu5s_row_all_sys_names_npu5() -> None:
    ev = _load(TOPO_NPU5)
    assert ev.files[0].status == "read"
    (topo,) = ev.topologies
    assert topo["devices"] == ["NPU5"] and len(topo["sys_pairs"]) == 7
    assert topo["rows_missing"] == ["NPU0", "NPU1", "NPU2", "NPU3", "NPU4", "NPU6", "NPU7"]
    assert (
        2,
        "npu_smi_topo: the matrix's header names 8 NPUs but the copy holds the row(s) of NPU5 "
        "only: the links among NPU0, NPU1, NPU2, NPU3, NPU4, NPU6, NPU7 are not in it",
    ) in _said(ev)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-npu-topology-no-hccs-link", "warning")]
    (item,) = heldout.items(outcome, "evidence-npu-topology-no-hccs-link")
    assert "NPU5 SYS to every peer (line(s) 2) (the rows of NPU0, NPU1" in item


def test_another_npus_row_alone_names_that_npu(tmp_path: Path) -> None:
    ev = _write(tmp_path, _matrix([], rows=[7]))
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-npu-topology-no-hccs-link")
    assert "NPU7 SYS to every peer (line(s) 2)" in item


def test_a_row_alone_with_hccs_peers_names_nothing(tmp_path: Path) -> None:
    ev = _write(tmp_path, _matrix([{4, 5, 6, 7}], rows=[5]))
    (topo,) = ev.topologies
    assert topo["no_hccs_npus"] == [] and topo["hccs"]
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
