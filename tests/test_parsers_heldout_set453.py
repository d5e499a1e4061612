"""Outputs of round AAA's held-out evaluation (sets 453-456) that the advisor read wrong or not
at all before this change (tests/data/evidence_heldout_59, sources in tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import nccl_tests, nvidia_smi
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_59"


def _load(name: str) -> EvidenceFacts:
    return load_paths([HELDOUT / name])


def _said(ev: EvidenceFacts) -> list[str]:
    return [m.message for f in ev.files for m in f.messages]


def test_ei0004_reads_the_rank_table_its_line_quotes() -> None:
    # the reason says the rank id exceeds the table's rank size: the table quoted on the same
    # line holds 2 ranks, said as such instead of its JSON cut at 300 characters
    ev = _load("mindspore_ei0004_rank_id_exceeds_rank_size.log")
    (failure,) = [f for f in ev.failures if f["code"] == "EI0004"]
    assert failure["rank_size"] == 2
    assert "Use a rank ID that exceeds the rank size" in failure["message"]
    assert "2 rank(s), rank_id 0-1 on server(s) 10.90.42.160, device(s) 6, 7" in failure["message"]
    assert '"server_list"' not in failure["message"]
    found = builtin_findings({"evidence.failures": ev.failures}, "hccl")
    (line,) = found["evidence-hccl-other-error"].items
    # (no longer "could not be loaded": the table loaded, the process's rank does not fit it)
    assert "the rank table is invalid, or does not fit this process" in line
    assert "could not be loaded" not in line


def test_nccl_settings_keep_a_paths_extension() -> None:
    # "NCCL_GRAPH_FILE set by environment to /opt/microsoft/ncv4/graph.xml": the setting the WARN
    # comes from, its ".xml" kept; a value's closing period is still not part of it
    said = _said(_load("nccl1240_spotllm_graph_file_xml_import_channel_warn_cut.log"))
    (settings,) = [m for m in said if m.startswith("log: NCCL settings from the environment")]
    assert "NCCL_TOPO_FILE=/opt/microsoft/ncv4/topo.xml" in settings
    assert "NCCL_GRAPH_FILE=/opt/microsoft/ncv4/graph.xml" in settings
    assert "NCCL_IB_DISABLE=1," in settings


def test_nvlink_capabilities_are_read_per_link_and_judge_nothing() -> None:
    text = (HELDOUT / "ilgpu378_nvlink_capabilities_v100_cut.txt").read_text()
    (gpu,) = nvidia_smi.parse_nvlink_status(text).gpus
    assert (gpu.gpu, gpu.name) == (0, "Tesla V100-SXM2-32GB")
    assert gpu.capabilities[0] == {
        "P2P": True,
        "Access to system memory": True,
        "P2P atomics": True,
        "System memory atomics": True,
        "SLI": False,
        "Link": False,
    }
    assert gpu.capabilities[4] == {"P2P": True}  # the copy ends inside link 4's list
    ev = _load("ilgpu378_nvlink_capabilities_v100_cut.txt")
    (f,) = ev.files
    assert f.status == "read"
    (note,) = [m for m in _said(ev) if "nvlink -c" in m]
    assert "P2P: links 0-4" in note and "SLI: no link" in note
    assert "link 4 lists 1 of 6: the copy ends there" in note
    # capabilities are no link state: no link is counted up or down
    (link,) = ev.nvlinks
    assert link["active"] is None and link["inactive"] == []


def test_nccl_tests_row_cut_inside_its_busbw_leaves_that_group_out() -> None:
    # "8192 ... 31.59    0.26    0.": the in-place busbw is cut at "0.", not 0.0 GB/s
    text = (HELDOUT / "nccltests214_sendrecv_2x_a40_cut.log").read_text()
    parsed = nccl_tests.parse(text)
    (table,) = parsed.tables
    last = table.rows[-1]
    assert last.size_bytes == 8192
    assert last.out_of_place is not None and last.out_of_place.busbw_gbytes_s == 0.26
    assert last.in_place is None
    assert any("its busbw cut at '0.'" in w.message for w in parsed.warnings)
    # the op is still told by the cells of the rows before it
    assert nccl_tests.op_from_columns(table, None) == "send_recv"
    # a whole last cell ("0.26" where the first group prints two decimals) is kept
    whole = text.rstrip("\n") + "26"
    (table,) = nccl_tests.parse(whole).tables
    in_place = table.rows[-1].in_place
    assert in_place is not None and in_place.busbw_gbytes_s == 0.26 and in_place.wrong is None
