"""Ascend outputs the first held-out evaluation of ``advisor import`` read wrong (sources in
tests/data/SOURCES.md, section "evidence_heldout_1/"): what is read from each now, and that
every line read with a doubt is reported with its number."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from advisor.evidence import command
from advisor.evidence.load import detect, load_file
from advisor.parsers import ParseError, hccn_tool, npu_smi, rank_table
from tests.conftest import DATA

SAMPLES = DATA / "evidence_heldout_1"


def sample(name: str) -> str:
    return (SAMPLES / name).read_text(encoding="utf-8")


def _messages(name: str) -> tuple[str, dict[int, str]]:
    """The file's status and its messages by line, as ``advisor import`` reports them."""
    report = load_file(SAMPLES / name).files[0]
    return report.status, {m.line: m.message for m in report.messages}


# ------------------------------------------------------------------------ npu-smi topo, A5 (UB)


def test_a5_rows_short_of_a_link_cell_keep_their_affinity_out_of_the_links() -> None:
    topo = npu_smi.parse_topo(sample("npu_smi_topo_a5_ub_fixture.txt"))
    assert topo.devices == ["NPU0", "NPU1", "NPU2", "NPU3"]
    assert topo.cpu_affinity == {"NPU0": "144-191", "NPU1": "144-191", "NPU2": "48-95"}
    assert topo.kinds() == {"UB"}  # no CPU range taken for a link kind
    # the three cells are read from the first column: each row's X is under its own NPU
    assert topo.links["NPU1"] == {"NPU0": "UB", "NPU1": "X", "NPU2": "UB"}
    assert "NPU3" not in topo.links["NPU0"]
    assert topo.links["NPU3"] == {"NPU0": "UB", "NPU1": "UB", "NPU2": "UB", "NPU3": "X"}


def test_a5_short_rows_and_the_row_without_affinity_are_reported_with_their_lines() -> None:
    status, messages = _messages("npu_smi_topo_a5_ub_fixture.txt")
    assert status == "partial"
    assert sorted(messages) == [2, 3, 4, 5]
    for line, npu, cpus in ((2, "NPU0", "144-191"), (3, "NPU1", "144-191"), (4, "NPU2", "48-95")):
        assert f"row {npu} has 3 link cells for 4 devices" in messages[line]
        assert f"CPU affinity {cpus}" in messages[line] and "no link read to NPU3" in messages[line]
        assert "shifted" not in messages[line]
    assert "row NPU3 has no CPU Affinity value" in messages[5]


def test_a_short_row_whose_x_is_off_its_column_is_said_to_be_shifted() -> None:
    text = sample("npu_smi_topo_a5_ub_fixture.txt").replace(
        "NPU1       UB         X          UB", "NPU1       X          UB         UB"
    )
    (warning,) = [w for w in npu_smi.parse_topo(text).warnings if w.line == 3]
    assert "its X falls under NPU0" in warning.message


def test_a_short_row_without_a_cpu_list_is_still_an_error_on_its_line() -> None:
    text = sample("npu_smi_topo_a5_ub_fixture.txt").replace("48-95", "").rstrip()
    with pytest.raises(ParseError) as e:
        npu_smi.parse_topo(text)
    assert e.value.line == 4 and "row NPU2 has 3 cells for 4 devices" in e.value.message


# ------------------------------------------------------------------------ npu-smi info, typed 0K


def test_health_typed_0k_is_kept_read_and_reported_not_judged() -> None:
    info = npu_smi.parse_info(sample("npu_smi_info_310p3_collapsed_spaces.txt"))
    assert [(c.npu, c.name, c.health, c.bus_id) for c in info.chips] == [
        (0, "310P3", "0K", "0000:81:00.0"),
        (1, "310P3", "0K", "0000:41:00.0"),
        (2, "310P3", "0K", "0000:82:00.0"),
        (3, "310P3", "0K", "0000:42:00.0"),
    ]
    assert [(c.hbm_used_mb, c.hbm_total_mb) for c in info.chips] == [
        (1460, 44280),
        (1479, 43693),
        (1259, 44216),
        (1643, 43757),
    ]
    assert info.unhealthy == []
    status, messages = _messages("npu_smi_info_310p3_collapsed_spaces.txt")
    assert status == "partial"
    assert sorted(messages) == [8, 11, 14, 17]
    assert "NPU 2 chip 0 health '0K' is not a value npu-smi prints" in messages[14]


def test_a_real_health_value_is_still_unhealthy_beside_0k() -> None:
    text = sample("npu_smi_info_310p3_collapsed_spaces.txt").replace(
        "| 1 310P3 | 0K |", "| 1 310P3 | Alarm |"
    )
    info = npu_smi.parse_info(text)
    assert [c.npu for c in info.unhealthy] == [1]
    assert [w.line for w in info.warnings] == [8, 14, 17]


# ------------------------------------------------------------------------ rank tables


def test_group_list_template_reads_devices_without_rank_ids_or_version() -> None:
    table = rank_table.parse(sample("rank_table_template2_group_list.json"))
    assert table.errors == []
    assert table.version == ""  # the template has none: none is invented
    assert table.servers == ["node_0", "node_1"]
    assert [(r.server_id, r.device_id, r.device_ip, r.rank) for r in table.ranks] == [
        ("node_0", "0", "192.168.1.8", None),
        ("node_1", "1", "192.168.1.9", None),
    ]
    status, messages = _messages("rank_table_template2_group_list.json")
    assert (status, messages) == ("read", {})


def test_group_list_template_counts_are_checked() -> None:
    doc = json.loads(sample("rank_table_template2_group_list.json"))
    doc["group_list"][0]["device_count"] = "3"
    doc["group_count"] = "2"
    table = rank_table.parse(json.dumps(doc))
    assert table.errors == [
        "group_count is 2 but group_list holds 1 groups",
        "device_count is 3 but group hccl_world_group instances hold 2 devices",
    ]


def test_ge_cluster_config_wrapper_is_read_inside() -> None:
    text = sample("rank_table_v12_wrapped_cluster_config.json")
    assert detect(text) == ["rank_table"]
    table = rank_table.parse(text)
    assert (table.wrapper, table.wrapper_line) == ("RankTable", 2)
    assert (table.version, table.status, table.server_count) == ("1.2", "completed", 2)
    assert [(r.rank, r.server_id, r.device_id) for r in table.ranks] == [
        (0, "node_0", "0"),
        (1, "node_1", "0"),
    ]
    # GE's form documents no SuperPoD fields: none is asked of it
    assert table.errors == []


def test_errors_inside_the_wrapper_name_its_line() -> None:
    doc = json.loads(sample("rank_table_v12_wrapped_cluster_config.json"))
    doc["RankTable"]["server_list"][1]["device"][0]["rank_id"] = "0"
    table = rank_table.parse(json.dumps(doc, indent=4))
    assert table.errors == [
        "in 'RankTable' (line 2): rank_id 0 is used 2 times (node_0/device 0; node_1/device 0)",
        "in 'RankTable' (line 2): rank_id must run 0..1 over 2 devices; missing 1",
    ]
    del doc["RankTable"]["server_list"]
    with pytest.raises(ParseError) as e:
        rank_table.parse(json.dumps(doc, indent=4))
    assert e.value.line == 2 and "'RankTable' (GE cluster_config) holds no" in e.value.message


def test_json_that_is_no_rank_table_names_its_line() -> None:
    with pytest.raises(ParseError) as e:
        rank_table.parse('\n\n{"HcclCommConfig": {"hcclCommName": "x"}, "server": []}')
    assert e.value.line == 3


# ------------------------------------------------------------------------ hccn_tool -ip, no address


def test_no_ip_preset_is_a_port_without_an_address_on_its_line() -> None:
    text = sample("hccn_ip_no_ip_preset.txt")
    assert detect(text) == ["hccn_tool"]
    (port,) = hccn_tool.parse_bundle(text).ports
    assert (port.ipaddr, port.ip_preset, port.line) == (None, False, 1)
    status, messages = _messages("hccn_ip_no_ip_preset.txt")
    assert (status, messages) == ("read", {})


def test_no_ip_preset_after_its_command_line_names_the_device() -> None:
    text = (
        "hccn_tool -i 3 -ip -g\n"
        + sample("hccn_ip_no_ip_preset.txt")
        + "hccn_tool -i 4 -ip -g\nipaddr:10.0.0.14\nnetmask:255.255.255.0\n"
    )
    ports = hccn_tool.parse_bundle(text).ports
    assert [(p.device, p.ipaddr, p.ip_preset) for p in ports] == [
        (3, None, False),
        (4, "10.0.0.14", True),
    ]


# ------------------------------------------------------------------------ the import's findings


def test_import_of_the_folder_raises_no_false_finding(tmp_path: Path) -> None:
    out = tmp_path / "run"
    assert command.main([str(SAMPLES), "--out", str(out)]) == 0
    findings = {
        f["rule_id"]: f for f in json.loads((out / "findings.json").read_text())["findings"]
    }
    assert "evidence-npu-chip-health" not in findings  # 0K is reported, not judged
    assert "evidence-rank-table-invalid" not in findings  # template 2 and GE's wrapper are valid
    port_state = json.dumps(findings["evidence-npu-port-state"])
    assert "no device IP set" in port_state
    no_ip = findings["evidence-npu-port-no-ip"]
    assert no_ip["severity"] == "warning"
    assert "hccn_ip_no_ip_preset.txt, line 1" in json.dumps(no_ip)
