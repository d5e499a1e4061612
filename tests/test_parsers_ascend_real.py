"""Ascend output forms seen in public documentation and issue threads (sources in
tests/data/SOURCES.md, section "Ascend output forms from public docs and threads"): where each
sits in a file, how it is detected, what is read from it and which lines are reported unread."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from advisor.evidence.load import detect, load_file, load_text
from advisor.parsers import ParseError, hccl_test, hccn_tool, npu_smi, rank_table
from tests.conftest import DATA

SAMPLES = DATA / "evidence"


def sample(name: str) -> str:
    return (SAMPLES / name).read_text(encoding="utf-8")


# ------------------------------------------------------------------------ npu-smi info -t topo


def test_topo_header_at_column_zero_is_detected_and_read() -> None:
    text = sample("npu_smi_topo_atlas350_col0.txt")
    assert text.startswith("NPU0 ")  # the header row has no leading spaces
    assert detect(text) == ["npu_smi_topo"]
    topo = npu_smi.parse_topo(text)
    assert topo.devices == [f"NPU{i}" for i in range(8)]
    assert topo.kinds() == {"SYS"}
    assert topo.cpu_affinity["NPU4"] == "64-127,192-255"
    # the Atlas 350 legend: UB and SIO, no HCCS
    assert {"UB", "SIO"} <= set(topo.legend) and "HCCS" not in topo.legend


def test_topo_single_spaced_header_at_column_zero() -> None:
    text = sample("npu_smi_topo_950_ub_single_spaced.txt")
    assert detect(text) == ["npu_smi_topo"]
    topo = npu_smi.parse_topo(text)
    assert topo.devices == [f"NPU{i}" for i in range(8)]
    assert topo.links["NPU5"]["NPU4"] == "UB"
    assert topo.links["NPU5"]["NPU3"] == "SYS"
    assert topo.cpu_affinity["NPU7"] == "96-191,288-383"
    assert topo.legend == {
        "X": "Self",
        "SYS": "Path traversing PCIe and NUMA nodes.",
        "UB": "Connection traversing UB.",
    }


def test_topo_ub_links_of_a_four_card_ub_group() -> None:
    topo = npu_smi.parse_topo(sample("npu_smi_topo_atlas350_ub4.txt"))
    assert topo.links["NPU0"]["NPU3"] == "UB"
    assert topo.links["NPU3"]["NPU4"] == "SYS"
    assert topo.links["NPU7"]["NPU4"] == "UB"
    assert topo.legend["UB"] == "Connection traversing UB."


def test_topo_pcie_cards_listed_from_npu1() -> None:
    text = sample("npu_smi_topo_910b4_pcie_npu1.txt")
    assert detect(text) == ["npu_smi_topo"]
    topo = npu_smi.parse_topo(text)
    assert topo.devices == ["NPU1", "NPU3", "NPU5", "NPU7", "NPU8", "NPU9", "NPU10", "NPU11"]
    assert topo.links["NPU1"]["NPU7"] == "PIX"
    assert topo.links["NPU1"]["NPU8"] == "PHB"
    assert topo.links["NPU11"]["NPU10"] == "PIX"
    assert topo.kinds() == {"PIX", "PHB"}


def test_topo_found_inside_other_output(tmp_path: Path) -> None:
    text = sample("npu_smi_topo_a3_phyid12_in_env.txt")
    topo = npu_smi.parse_topo(text)
    assert topo.devices == ["Phy-ID12", "Phy-ID13"]
    assert topo.links["Phy-ID12"]["Phy-ID13"] == "SIO"
    assert "HCCS_SW" in topo.legend
    assert "ulimit soft" not in str(topo.legend)  # the legend ends where other output starts
    path = tmp_path / "env.txt"
    path.write_text(text)
    facts = load_file(path)
    assert (facts.files[0].status, facts.files[0].formats) == ("read", ["npu_smi_topo"])
    assert facts.topologies[0]["kinds"] == ["SIO"]


def test_topo_sys_pairs_from_a_column_zero_matrix(tmp_path: Path) -> None:
    facts = load_text(sample("npu_smi_topo_atlas350_col0.txt"), "atlas350")
    assert facts.files[0].status == "read"
    assert len(facts.topologies[0]["sys_pairs"]) == 28  # every pair of 8 devices


# ---------------------------------------------------------------------------------- hccn_tool


def test_hccn_ping_loop_without_command_lines_names_each_device() -> None:
    text = sample("hccn_ping_loop_nocmd.txt")
    assert detect(text) == ["hccn_tool"]
    ports = hccn_tool.parse_bundle(text).ports
    assert [(p.device, p.ping_loss_pct, p.ping_target, p.line) for p in ports] == [
        (d, 0.0, "11.12.165.80", 1 + 5 * d) for d in range(8)
    ]


def test_hccn_ping_loss_without_any_device_or_command() -> None:
    text = sample("hccn_ping_loss_nocmd.txt")
    assert detect(text) == ["hccn_tool"]
    facts = load_text(text, "ping")
    assert facts.files[0].status == "read"
    ((port),) = facts.npu_ports
    assert (port["device"], port["ping_loss_pct"], port["line"]) == (None, 33.33, 1)


def test_linux_ping_summary_is_not_taken_for_hccn_tool() -> None:
    assert detect("3 packets transmitted, 3 received, 0% packet loss, time 2003ms\n") == []


def test_hccn_ip_loop_typed_over_lines_gives_its_devices_and_each_prompts_host_its_own() -> None:
    # "for i in {0..7}" / "do" / "hccn_tool -i $i -ip -g" / "done" on huawei89: devices 0-7 by
    # order; the ping after "root@huawei:~#" is device 0 of another machine, not huawei89's
    bundle = hccn_tool.parse_bundle(sample("hccn_ip_loop_prompt.txt"))
    looped = sorted((p for p in bundle.ports if p.ipaddr), key=lambda p: p.device or 0)
    assert [(p.host, p.device, p.ipaddr) for p in looped] == [
        ("huawei89", n, f"10.10.100.{10 + n}") for n in range(8)
    ]
    assert all(p.netmask == "255.255.255.0" for p in looped)
    (pinged,) = [p for p in bundle.ports if p.ping_loss_pct is not None]
    assert (pinged.host, pinged.device, pinged.ping_loss_pct, pinged.ipaddr) == (
        "huawei",
        0,
        0.0,
        None,
    )
    assert bundle.warnings == []


def test_hccn_ip_link_net_health_of_one_port_are_one_port() -> None:
    (port,) = hccn_tool.parse_bundle(sample("hccn_one_port_bare.txt")).ports
    assert (port.ipaddr, port.link, port.net_health) == ("11.12.165.80", "UP", "Success")


@pytest.mark.parametrize(
    ("name", "ip", "routes", "target"),
    [
        ("hccn_port3_ip_route_ping.txt", "29.1.112.213", 5, "29.1.137.205"),
        ("hccn_port3_prompt_ip_route_ping.txt", "10.20.11.24", 4, "10.20.11.16"),
    ],
)
def test_hccn_ip_route_ping_of_device_3(name: str, ip: str, routes: int, target: str) -> None:
    bundle = hccn_tool.parse_bundle(sample(name))
    (port,) = bundle.ports
    assert (port.device, port.ipaddr, port.ping_target, port.ping_loss_pct) == (3, ip, target, 0.0)
    assert len(port.routes) == routes
    assert [r["iface"] for r in port.routes if r["destination"] == "127.0.0.1"] == ["lo"]
    assert bundle.warnings == []


def test_hccn_route_row_that_cannot_be_read_is_reported_on_its_line() -> None:
    lines = sample("hccn_port3_ip_route_ping.txt").splitlines()
    cut = lines.index(next(line for line in lines if line.startswith("127.0.0.1")))
    lines[cut] = "127.0.0.1       *               255.255.255.255 UH"
    bundle = hccn_tool.parse_bundle("\n".join(lines))
    assert [w.line for w in bundle.warnings] == [cut + 1]
    assert len(bundle.ports[0].routes) == 4


# ---------------------------------------------------------------------------------- hccl_test


def test_hccl_test_avg_time_header_without_command_line() -> None:
    log = hccl_test.parse(sample("hccl_test_avg_time_nocmd.log"))
    assert [(r.line, r.size_bytes, r.time_us, r.check) for r in log.rows] == [
        (3, 8192, 764.55, "success"),
        (4, 16384, 858.80, "success"),
        (6, 32768, 901.10, "failed"),
        (8, 65536, 900.00, "NULL"),
    ]
    assert (log.op, log.dtype, log.complete) == ("unknown", hccl_test.UNKNOWN_DTYPE, False)
    assert [w.line for w in log.warnings] == [2, 8]  # no busbw (no op), cut before maxbytes


def test_hccl_test_command_split_over_lines_gives_ranks_and_dtype() -> None:
    log = hccl_test.parse(sample("hccl_test_vm_all_reduce_512k.log"))
    assert (log.op, log.ranks, log.npus_per_node, log.dtype) == ("all_reduce", 16, 8, "float32")
    assert log.rows[0].busbw_gbytes_s == pytest.approx(0.52429 * 2 * 15 / 16)
    assert log.warnings == []


def test_hccl_test_without_command_line_has_unknown_dtype(tmp_path: Path) -> None:
    assert hccl_test.parse(sample("hccl_test_all_gather_nocmd.log")).dtype == "unknown"
    path = tmp_path / "all_gather_test.log"
    path.write_text(sample("hccl_test_all_gather_nocmd.log"))
    (bench,) = load_file(path).benchmarks
    assert bench["dtype"] == "unknown"
    assert {r["dtype"] for r in bench["results"]} == {"unknown"}


def test_hccl_test_init_failure_names_the_hccl_result(tmp_path: Path) -> None:
    text = sample("hccl_test_init_fail_retcode.log")
    assert detect(text) == ["hccl_test"]
    with pytest.raises(hccl_test.HcclTestInitError) as e:
        hccl_test.parse(text)
    failure = e.value.failure
    assert (failure.line, failure.code, failure.name) == (2, 7, "HCCL_E_UNAVAIL")
    assert failure.call.endswith("hccl_opbase_rootinfo_base.cc:130")
    path = tmp_path / "all_reduce_test.log"
    path.write_text(text)
    facts = load_file(path)
    (message,) = facts.files[0].messages
    assert message.line == 2
    assert "7 = HCCL_E_UNAVAIL (resource unavailable)" in message.message
    assert facts.benchmarks == []  # no empty table is invented for a run that never measured
    # the failure itself is evidence: read, as a failed HCCL call with its HcclResult
    assert facts.files[0].status == "read"
    (event,) = facts.failures
    assert (event["kind"], event["line"], event["code"], event["code_name"]) == (
        "hccl_call_failure", 2, "7", "HCCL_E_UNAVAIL",
    )  # fmt: skip


@pytest.mark.parametrize(
    ("name", "line", "call", "code", "result"),
    [
        ("hccl_init_fail_mindie.log", 1, "HcclCommInitRootInfo", 2, "HCCL_E_PTR"),
        ("hccl_init_fail_torch_npu.log", 1, "hcclCommInitRootInfoConfig", 15, "HCCL_E_RUNTIME"),
    ],
)
def test_init_failure_codes_in_other_programs_logs(
    name: str, line: int, call: str, code: int, result: str
) -> None:
    failure = hccl_test.read_init_failure(sample(name))
    assert failure is not None
    assert (failure.line, failure.call, failure.code, failure.name) == (line, call, code, result)


def test_mindie_errno_and_its_plain_error_agree() -> None:
    # line 1 gives errNo[0x...05000002], line 2 "error:2": the low bits are the HcclResult
    second = sample("hccl_init_fail_mindie.log").splitlines()[1]
    failure = hccl_test.read_init_failure(second)
    assert failure is not None and failure.code == 2


def test_a_rank_number_after_failed_is_not_a_code() -> None:
    line = "HcclCommInitRootInfo failed for global_rank=3, local_rank=3, rank_size=8, trans=0"
    assert hccl_test.read_init_failure(line) is None


def test_hccl_result_values_outside_the_enum_are_unknown() -> None:
    assert hccl_test.decode_result(9) == ("HCCL_E_TIMEOUT", "timeout")
    assert hccl_test.decode_result(99)[0] == "unknown"


# ---------------------------------------------------------------------------------- rank table


def test_global_rank_table_numbers_ranks_per_group() -> None:
    table = rank_table.parse(sample("rank_table_global_a3_2roles.json"))
    assert table.valid, table.errors
    assert table.groups == ["0", "1"]
    assert table.servers == ["10.0.16.212", "10.0.16.219"]
    for gid in ("0", "1"):
        assert sorted(r.rank for r in table.ranks if r.group_id == gid) == list(range(16))


def test_global_rank_table_v12_reads_super_pods_per_group() -> None:
    table = rank_table.parse(sample("rank_table_global_v12_superpod.json"))
    assert table.valid, table.errors
    assert table.version == "1.2"
    assert table.super_pods == {"2/0": ["10.0.0.1"]}
    (entry,) = table.ranks
    assert (entry.group_id, entry.super_device_id, entry.device_ip) == (
        "2",
        "37748736",
        "192.168.1.6",
    )


def test_global_rank_table_errors_name_their_group() -> None:
    doc = json.loads(sample("rank_table_global_a3_2roles.json"))
    doc["server_group_list"][1]["server_list"][0]["device"][4]["rank_id"] = "3"
    doc["server_group_list"][1]["server_count"] = "2"
    doc["server_group_count"] = "3"
    table = rank_table.parse(json.dumps(doc))
    assert "server_group_count is 3 but server_group_list holds 2 groups" in table.errors
    assert "group 1: server_count is 2 but server_list holds 1 servers" in table.errors
    assert any(e.startswith("group 1: rank_id 3 is used 2 times") for e in table.errors)
    assert not any(e.startswith("group 0:") for e in table.errors)


def test_global_v12_group_without_super_device_ids_is_an_error() -> None:
    doc = json.loads(sample("rank_table_global_v12_superpod.json"))
    del doc["server_group_list"][0]["server_list"][0]["device"][0]["super_device_id"]
    table = rank_table.parse(json.dumps(doc))
    assert table.errors == [
        "group 2: version 1.2 needs super_device_id on every device; missing on 10.0.0.1/0"
    ]


# ------------------------------------------------------------------------ no crash on cut files

_CASES: list[tuple[str, Callable[[str], Any]]] = [
    ("npu_smi_topo_atlas350_col0.txt", npu_smi.parse_topo),
    ("npu_smi_topo_910b4_pcie_npu1.txt", npu_smi.parse_topo),
    ("npu_smi_topo_a3_phyid12_in_env.txt", npu_smi.parse_topo),
    ("hccn_ping_loop_nocmd.txt", hccn_tool.parse_bundle),
    ("hccn_ip_loop_prompt.txt", hccn_tool.parse_bundle),
    ("hccn_port3_ip_route_ping.txt", hccn_tool.parse_bundle),
    ("hccl_test_avg_time_nocmd.log", hccl_test.parse),
    ("hccl_test_vm_all_reduce_512k.log", hccl_test.parse),
    ("hccl_test_init_fail_retcode.log", hccl_test.parse),
    ("rank_table_global_a3_2roles.json", rank_table.parse),
    ("rank_table_global_v12_superpod.json", rank_table.parse),
]


@pytest.mark.parametrize(("name", "parser"), _CASES, ids=[c[0] for c in _CASES])
def test_truncated_samples_never_crash(name: str, parser: Callable[[str], Any]) -> None:
    text = sample(name)
    step = max(1, len(text) // 60)
    for end in range(0, len(text), step):
        cut = text[:end]
        try:
            parser(cut)
        except ParseError as e:
            assert e.line >= 0
        facts = load_text(cut, name)  # detection and conversion of the same cut
        assert len(facts.files) == 1


@pytest.mark.parametrize(
    "doc",
    [
        {"server_group_list": "x"},
        {"server_group_list": [1, {"group_id": "0", "server_list": [2]}]},
        {"server_group_list": [{"server_list": [{"server_id": "a", "device": "d"}]}]},
        {"server_list": [{"server_id": "a", "device": [3]}], "super_pod_list": [4]},
        {"server_group_list": [{"super_pod_list": [{"server_list": "s"}]}]},
    ],
)
def test_malformed_rank_tables_are_reported_not_crashed(doc: dict[str, Any]) -> None:
    table = rank_table.parse(json.dumps(doc))
    assert not table.valid
