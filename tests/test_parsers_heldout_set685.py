"""Outputs of round QQQQ's held-out evaluation (set 685, Ascend tool outputs) that the advisor
read wrong or in part before this change (tests/data/evidence_heldout_77, sources in
tests/data/SOURCES.md): ``npu-smi info -t key-manage`` (the KMSAgent key-management service's
"service auto startup" and "service running status") was no format the advisor knew; two
annotated rank-table examples of HCCL's user guide were NOT READY for their ``//`` comments, which
is right (HCCL's loader parses the file as plain JSON), but said nothing of what the table holds
and gave no cluster shape, though the table was read with the comments set aside."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, shapes_of
from advisor.parsers import rank_table
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_77"

KEY_MANAGE = "npu_smi_950_info_t_key_manage_kmsagent_disabled_stopped_driver_doc_cut.txt"
TABLE_A2 = "rank_table_v1_0_a2_2servers_4ranks_device_port_16667_commented_hccl_ug_a2_cut.txt"
TABLE_LEGACY = (
    "rank_table_legacy_template2_group_list_hccl_world_group_2pods_commented_hccl_ug_910_cut.txt"
)

_write = partial(heldout.load_copy, name="copy.txt")
_write_json = partial(heldout.load_copy, name="hccl.json")


_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


# --- npu-smi info -t key-manage -----------------------------------------------------------------


def test_key_manage_answer_is_read_as_npu_smi_and_not_judged() -> None:
    ev = _load(KEY_MANAGE)
    assert ev.files[0].formats == ["npu_smi_query"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    notes = [(line, m) for line, m in _said(ev) if m.startswith("npu_smi_query:")]
    ((line, note),) = notes
    assert line == 1
    assert "npu-smi info -t key-manage, the KMSAgent key-management service" in note
    assert "service auto startup Disable; service running status Stop" in note
    assert note.endswith("not judged")
    assert ev.npu_chips == []  # no NPU named, none invented


def test_key_manage_running_under_its_command_line_is_a_note_with_its_states(
    tmp_path: Path,
) -> None:
    # another host's answer, saved with its command line, the service enabled and running
    text = "[root@node2 ~]# npu-smi info -t key-manage\n" + _text(KEY_MANAGE).replace(
        "Disable", "Enable"
    ).replace("Stop", "Running")
    ev = _write(tmp_path, text)
    assert ev.files[0].formats == ["npu_smi_query"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    (note,) = [m for _, m in _said(ev) if m.startswith("npu_smi_query:")]
    assert "service auto startup Enable; service running status Running" in note
    assert "key-manage, the KMSAgent" in note


def test_prose_naming_the_service_keys_is_not_an_npu_smi_answer(tmp_path: Path) -> None:
    # the keys without npu-smi's padded column (a sentence) mark no answer
    ev = _write(tmp_path, "The service running status: Stop means KMSAgent is not started.\n")
    assert "npu_smi_query" not in ev.files[0].formats


# --- rank tables with // comments: the error kept, the content read and shown ----------------


def test_a2_table_with_comments_keeps_its_error_and_says_what_it_holds() -> None:
    ev = _load(TABLE_A2)
    assert ev.files[0].formats == ["rank_table"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-rank-table-invalid", "critical")]
    (item,) = heldout.items(outcome, "evidence-rank-table-invalid")
    assert "not valid JSON: // comments (line 2, 3, 4, 8, 9 ...)" in item
    ((line, note),) = _said(ev)
    assert line == 2  # the first comment
    assert "read with its comments set aside (HCCL refuses them as written)" in note
    for said in (
        "version 1.0",
        "status completed",
        "2 server(s) (node_0, node_1)",
        "4 device(s) (node_0/0 at 192.168.1.8, node_0/1 at 192.168.1.9, node_1/0 at "
        "192.168.2.8, node_1/1 at 192.168.2.9)",
        "ranks 0-3",
        "device_port 16667",
    ):
        assert said in note
    assert note.endswith("; nothing else is wrong in it")
    (shape,) = shapes_of(ev)
    assert (shape["nodes"], shape["per_node"], shape["hosts"]) == (2, 2, ["node_0", "node_1"])


def test_legacy_table_with_comments_says_its_devices_and_no_rank_id() -> None:
    ev = _load(TABLE_LEGACY)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-rank-table-invalid")
    assert "(no version field): not valid JSON: // comments (line 2, 3, 4, 7, 8 ...)" in item
    ((line, note),) = _said(ev)
    assert line == 2
    for said in (
        "no version (the group_list form)",
        "2 server(s) (node_0, node_1)",
        "2 device(s) (node_0/0 at 192.168.1.8, node_1/1 at 192.168.1.9)",
        "no rank_id (none asked of this form)",
    ):
        assert said in note
    assert "ranks" not in note.split("no rank_id")[0]  # (no rank invented)
    (shape,) = shapes_of(ev)
    assert (shape["nodes"], shape["per_node"]) == (2, 1)


def test_a_commented_table_with_a_duplicate_rank_names_it_and_gives_no_shape(
    tmp_path: Path,
) -> None:
    # another table: node_1's second device numbered rank 2 again
    text = _text(TABLE_A2).replace('"rank_id":"3"', '"rank_id":"2"')
    ev = _write_json(tmp_path, text)
    _, outcome = heldout.imported(ev)
    (item,) = heldout.items(outcome, "evidence-rank-table-invalid")
    assert "// comments (line 2, 3, 4, 8, 9 ...)" in item
    # the duplicate and the missing rank listed after the comments
    assert "rank_id 2 is used 2 times (node_1/device 0; node_1/device 1)" in item
    assert "missing 3" in item
    ((_, note),) = _said(ev)
    assert "ranks 0-2" in note
    assert note.endswith("; 2 other error(s) in it")
    assert shapes_of(ev) == []  # a table with a real error states no shape


def test_a_commented_table_of_another_host_shows_its_own_servers(tmp_path: Path) -> None:
    text = (
        _text(TABLE_A2)
        .replace("node_0", "ascend-a")
        .replace("node_1", "ascend-b")
        .replace("16667", "16666")
    )
    ev = _write_json(tmp_path, text)
    ((_, note),) = _said(ev)
    assert "2 server(s) (ascend-a, ascend-b)" in note and "device_port 16666" in note
    assert "16667" not in note
    (shape,) = shapes_of(ev)
    assert shape["hosts"] == ["ascend-a", "ascend-b"]


def test_the_clean_twin_stays_ready_with_no_note(tmp_path: Path) -> None:
    # the same table with its comments taken out: valid JSON, READY, its shape as before
    clean = "\n".join(line.split("//")[0].rstrip() for line in _text(TABLE_A2).split("\n"))
    ev = _write_json(tmp_path, clean)
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    assert _said(ev) == []
    (shape,) = shapes_of(ev)
    assert (shape["nodes"], shape["per_node"]) == (2, 2)
    table = rank_table.parse(clean)
    assert table.comment_lines == [] and table.errors == []
    assert [r.device_port for r in table.ranks] == ["16667"] * 4


def test_contents_spans_ranks_and_elides_devices_past_four() -> None:
    table = rank_table.RankTable(
        version="1.0",
        status="completed",
        server_count=1,
        servers=["n0"],
        ranks=[
            rank_table.RankEntry(rank=r, server_id="n0", device_id=str(r), device_ip=None)
            for r in (0, 1, 2, 3, 5)
        ],
    )
    said = rank_table.contents(table)
    assert "ranks 0-3, 5" in said
    assert "5 device(s) (n0/0, n0/1, n0/2, n0/3 ...)" in said
    assert "device_port" not in said


def test_a_versioned_table_without_rank_ids_is_not_excused_as_the_group_form() -> None:
    table = rank_table.RankTable(
        version="1.0",
        status="completed",
        server_count=1,
        servers=["n0"],
        ranks=[rank_table.RankEntry(rank=None, server_id="n0", device_id="0", device_ip=None)],
    )
    said = rank_table.contents(table)
    assert "no rank_id" in said and "none asked" not in said
