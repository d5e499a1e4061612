"""Ascend and nvidia-smi outputs two held-out evaluations misread: vllm-ascend's prefill/decode
rank table, an ``npu-smi info`` fragment without its header, a chip whose second row is cut off,
and a ``nvidia-smi topo -m`` matrix inside a system-check dump.

Samples: ``tests/data/evidence_heldout_10/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

import pytest

from advisor.evidence.load import detect, load_paths
from advisor.parsers import ParseError, npu_smi, nvidia_smi, rank_table
from advisor.probes import drift
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_10"


_text = partial(heldout.text, HELDOUT)


# --- vllm-ascend's prefill/decode rank table ---------------------------------------------------


def test_pd_rank_table_reads_each_device_with_its_role() -> None:
    table = rank_table.parse(_text("rank_table_1.json"))
    assert (table.version, table.status, table.server_count, table.servers) == (
        "1.2", "completed", 1, ["172.17.0.2"],
    )  # fmt: skip
    assert table.errors == []
    assert [(r.device_id, r.role, r.cluster_id) for r in table.ranks] == [
        ("0", "prefill", "1"), ("1", "prefill", "2"), ("2", "prefill", "3"), ("3", "prefill", "4"),
        ("4", "decode", "5"), ("5", "decode", "6"), ("6", "decode", "7"), ("7", "decode", "8"),
    ]  # fmt: skip
    assert table.ranks[7].device_ip == "192.168.2.192"
    assert all(r.rank is None and r.server_id == "172.17.0.2" for r in table.ranks)


def test_pd_rank_table_imports_as_read_with_its_shape() -> None:
    ev = load_paths([HELDOUT / "rank_table_1.json", HELDOUT / "rank_table_2.json"])
    assert [(f.status, f.formats) for f in ev.files] == [("read", ["rank_table"])] * 2
    first, second = ev.rank_tables
    assert (len(first["ranks"]), len(second["ranks"])) == (8, 2)
    assert [(r["server_id"], r["device_id"], r["device_ip"], r["role"]) for r in second["ranks"]] == [
        ("172.17.0.3", "0", "10.0.0.1", "prefill"), ("172.17.0.3", "1", "10.0.0.2", "decode"),
    ]  # fmt: skip
    shape = next(s for s in ev.shapes if s["source"] == first["source"])
    assert (shape["nodes"], shape["per_node"]) == (1, 8)


def test_pd_rank_table_lists_every_problem() -> None:
    doc = json.loads(_text("rank_table_1.json"))
    doc["decode_device_list"][0]["device_id"] = "0"  # device 0 now serves prefill and decode
    doc["decode_device_list"][1]["device_ip"] = "192.168.2.199"
    doc["decode_device_list"][2]["cluster_id"] = "1"
    doc["decode_device_list"][3]["cluster_id"] = "eight"
    doc["prefill_device_list"][3]["server_id"] = "172.17.0.3"  # two servers, server_count 1
    doc["status"] = "initializing"
    errors = rank_table.parse(json.dumps(doc)).errors
    assert errors == [
        "status is 'initializing', not 'completed': the table was read before its writer "
        "finished it (wait for status completed before starting the job)",
        "decode_device_list[3]: cluster_id 'eight' is not a number",
        "device 0 on server 172.17.0.2 is listed 2 times (prefill, decode): one device serves "
        "one instance",
        "device_ip 192.168.2.199 is given to 2 devices",
        "cluster_id 1 is given to 2 devices: LLMDataDist tells the devices it links apart by it",
        "server_count is 1 but the device lists name 2 servers",
    ]


def test_pd_rank_table_without_its_decode_list_is_an_error() -> None:
    doc = json.loads(_text("rank_table_2.json"))
    del doc["decode_device_list"]
    del doc["prefill_device_list"][0]["device_ip"]
    errors = rank_table.parse(json.dumps(doc)).errors
    assert errors == [
        "prefill_device_list[0] has no device_ip",
        "decode_device_list is missing (vllm-ascend reads both prefill and decode lists)",
    ]


def test_json_without_any_device_list_is_still_no_rank_table() -> None:
    with pytest.raises(ParseError, match="not an Ascend rank table"):
        rank_table.parse('{"version": "1.2", "server_count": "1", "status": "completed"}')


# --- npu-smi info: a chip cut after its first row, a fragment without header -------------------


def test_chip_cut_after_its_first_row_is_read_from_it() -> None:
    info = npu_smi.parse_info(_text("npu_smi_info_1.txt"))
    assert info.version == "24.1.0.3"
    assert [(c.npu, c.chip, c.line, c.bus_id, c.hbm_used_mb) for c in info.chips] == [
        (0, 0, 7, "0000:C1:00.0", 3397), (1, 0, 10, "0000:C2:00.0", 3395), (2, None, 13, "", None),
    ]  # fmt: skip
    cut = info.chips[2]
    assert (cut.name, cut.health, cut.power_w, cut.temp_c) == ("910B2", "OK", 92.6, 37.0)
    (warning,) = info.warnings
    assert (warning.line, warning.skipped) == (13, True)
    assert "NPU 2's second row is missing" in warning.message


def test_fragment_without_header_is_read_by_its_two_row_chip_shape() -> None:
    text = _text("npu_smi_info_3.txt")
    assert detect(text) == ["npu_smi_info"]
    info = npu_smi.parse_info(text)
    assert info.version == ""
    rows = [(c.npu, c.line, c.bus_id, c.power_w, c.temp_c, c.hbm_used_mb) for c in info.chips]
    assert rows == [
        (1, 1, "0000:C2:00.0", 99.0, 36.0, 3454),
        (2, 4, "0000:81:00.0", 86.9, 36.0, 3447),
        (3, 7, "0000:82:00.0", 89.9, 34.0, 3448),
        (4, 10, "0000:01:00.0", 92.3, 41.0, 3450),
        (5, 13, "", 93.8, 42.0, None),  # its second row is cut off
    ]
    assert (info.chips[0].memory_used_mb, info.chips[0].hbm_total_mb) == (0, 65536)
    assert [(w.line, w.skipped) for w in info.warnings] == [(1, False), (13, True)]
    assert "without the table's header" in info.warnings[0].message


def test_fragment_import_is_partial_for_its_cut_chip() -> None:
    ev = load_paths([HELDOUT / "npu_smi_info_3.txt"])
    (report,) = ev.files
    assert (report.status, report.formats) == ("partial", ["npu_smi_info"])
    assert [(c["npu"], c["chip"]) for c in ev.npu_chips] == [
        (1, 0),
        (2, 0),
        (3, 0),
        (4, 0),
        (5, None),
    ]


def test_fragment_with_one_usage_pair_leaves_memory_and_hbm_unread() -> None:
    # without a header one "used / total" pair could be Memory-Usage (310P) or HBM-Usage
    text = "\n".join(_text("npu_smi_info_3.txt").splitlines()[:2]).replace(
        "0    / 0          3454", "          3454"
    )
    (chip,) = npu_smi.parse_info(text).chips
    assert (chip.npu, chip.memory_used_mb, chip.hbm_used_mb) == (1, None, None)


def test_nvidia_smi_table_rows_are_no_npu_fragment() -> None:
    # nvidia-smi's GPU rows: the bus id shares the first row, the second row has no bus id
    text = (
        "|   0  Tesla V100-SXM2-16GB        On   | 00000000:00:1E.0 Off |                    0 |\n"
        "| N/A   34C    P0    41W / 300W |      0MiB / 16160MiB |      0%      Default |\n"
    )
    assert "npu_smi_info" not in detect(text)
    with pytest.raises(ParseError, match="no npu-smi info table"):
        npu_smi.parse_info(text)


# --- nvidia-smi topo -m inside a system-check dump ---------------------------------------------


def test_topology_inside_a_system_check_dump() -> None:
    text = _text("nvidia_smi_topo_3.txt")
    assert detect(text) == ["nvidia_smi_topo"]
    topo = nvidia_smi.parse_topo(text)
    # the dump's lone "GPU0" title (line 4) is no header: the matrix's header is line 12
    assert topo.devices == ["GPU0", "mlx5_0", "mlx5_1"]
    assert topo.links["GPU0"] == {"GPU0": "X", "mlx5_0": "PIX", "mlx5_1": "PIX"}
    assert topo.links["mlx5_1"] == {"GPU0": "PIX", "mlx5_0": "PIX", "mlx5_1": "X"}
    assert (topo.cpu_affinity, topo.numa_affinity) == ({"GPU0": "0-23"}, {"GPU0": "N/A"})
    assert topo.nics == {"mlx5_0": "mlx5_0", "mlx5_1": "mlx5_1"}
    assert topo.legend["PIX"] == "Connection traversing at most a single PCIe bridge"
    assert topo.warnings == []
    ev = load_paths([HELDOUT / "nvidia_smi_topo_3.txt"])
    assert [(f.status, f.formats) for f in ev.files] == [("read", ["nvidia_smi_topo"])]


def test_pd_rank_table_version_is_not_judged_against_the_chips(tmp_path: Path) -> None:
    # vllm-ascend writes "1.2" into its PD table on 910B (A2) hosts too; HCCL's own 1.2 is A3's
    for host in ("host-a", "host-b"):
        (tmp_path / host).mkdir()
        (tmp_path / host / "npu_smi_info.txt").write_text(_text("npu_smi_info_1.txt"))
        (tmp_path / host / "ranktable.json").write_text(_text("rank_table_1.json"))
    facts = drift.from_evidence(load_paths([tmp_path]))
    assert facts is not None and sorted(facts.nodes) == ["host-a", "host-b"]
    assert facts.rank_tables == []


def test_pd_rank_table_with_a_device_twice_makes_the_import_not_ready(tmp_path: Path) -> None:
    doc = json.loads(_text("rank_table_2.json"))
    doc["decode_device_list"][0]["device_id"] = "0"
    (tmp_path / "ranktable.json").write_text(json.dumps(doc))
    ev = load_paths([tmp_path / "ranktable.json"])
    finding = builtin_findings({"evidence.rank_tables": ev.rank_tables})[
        "evidence-rank-table-invalid"
    ]
    assert finding.severity == "critical"
    assert [str(i) for i in finding.items] == [
        f"{tmp_path / 'ranktable.json'} (version 1.2): device 0 on server 172.17.0.3 is listed "
        "2 times (prefill, decode): one device serves one instance"
    ]
