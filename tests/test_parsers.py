"""Parsers on the sample outputs in tests/data/evidence (sources in tests/data/SOURCES.md)."""

from __future__ import annotations

from dataclasses import asdict

import pytest

from advisor.parsers import (
    ParseError,
    busbw_factor,
    hccl_test,
    hccn_conf,
    hccn_tool,
    logs,
    nccl_tests,
    npu_smi,
    nvidia_smi,
    rank_table,
    strip_launcher_prefix,
)
from tests.conftest import DATA

SAMPLES = DATA / "evidence"


def sample(name: str) -> str:
    return (SAMPLES / name).read_text(encoding="utf-8")


# ------------------------------------------------------------------------------- common


@pytest.mark.parametrize(
    ("line", "text", "rank"),
    [
        ("[1,12]<stdout>:#  size", "#  size", 12),
        ("[rank3]:[E ProcessGroupNCCL.cpp:616] x", "[E ProcessGroupNCCL.cpp:616] x", 3),
        ("7: 8 2 float", "8 2 float", 7),
        ("           8             2     float", "           8             2     float", None),
    ],
)
def test_launcher_prefixes_are_stripped(line: str, text: str, rank: int | None) -> None:
    assert strip_launcher_prefix(line) == (text, rank)


@pytest.mark.parametrize(
    ("op", "n", "factor"),
    [
        ("all_reduce", 16, 1.875),
        ("all_gather", 8, 0.875),
        ("all_to_all", 4, 0.75),
        ("broadcast", 8, 1.0),
    ],
)
def test_busbw_factors_follow_nccl_tests(op: str, n: int, factor: float) -> None:
    assert busbw_factor(op, n) == pytest.approx(factor)


def test_busbw_factor_rejects_unknown_op() -> None:
    with pytest.raises(ValueError, match="no bus-bandwidth factor"):
        busbw_factor("allreduce", 8)


# ------------------------------------------------------------------------------- npu-smi


def test_npu_smi_wide_910b_table() -> None:
    info = npu_smi.parse_info(sample("npu_smi_info_910b_wide.txt"))
    assert info.version == "24.1.rc1.b030"
    assert [c.npu for c in info.chips] == [0, 1, 2, 3]
    chip = info.chips[2]
    assert (chip.name, chip.health, chip.bus_id, chip.temp_c) == (
        "910B3",
        "Warning",
        "0000:C2:00.0",
        71.0,
    )
    assert (chip.hbm_used_mb, chip.hbm_total_mb) == (3318, 65536)
    assert [c.npu for c in info.unhealthy] == [2]
    assert [(p.npu, p.pid, p.name, p.memory_mb) for p in info.processes] == [
        (2, 281733, "python3.10", 1024)
    ]


def test_npu_smi_narrow_910a_table_reads_memory_and_hbm() -> None:
    info = npu_smi.parse_info(sample("npu_smi_info_910a_narrow.txt"))
    assert [(c.name, c.memory_used_mb, c.memory_total_mb, c.hbm_total_mb) for c in info.chips] == [
        ("910A", 2621, 15079, 32768),
        ("910A", 2208, 15567, 32768),
    ]


def test_npu_smi_310p_two_chips_per_card_without_hbm() -> None:
    info = npu_smi.parse_info(sample("npu_smi_info_310p_duo.txt"))
    assert [(c.npu, c.chip, c.device) for c in info.chips] == [(8, 0, 0), (8, 1, 1)]
    assert info.chips[0].power_w is None  # printed NA
    assert info.chips[1].memory_total_mb == 43693
    assert info.chips[1].hbm_total_mb is None


def test_npu_smi_a3_phy_id_layout() -> None:
    info = npu_smi.parse_info(sample("npu_smi_info_a3_phyid.txt"))
    assert [(c.npu, c.chip, c.phy_id, c.hbm_used_mb) for c in info.chips] == [
        (0, 0, 0, 3419),
        (0, 1, 1, 2874),
    ]
    assert info.chips[1].power_w is None  # printed "-"


def test_npu_smi_cut_table_reads_the_cut_chip_from_its_first_row_and_names_the_cut() -> None:
    lines = sample("npu_smi_info_910b_wide.txt").splitlines()
    info = npu_smi.parse_info("\n".join(lines[:13]))  # ends after NPU 2's first row
    assert [(c.npu, c.chip, c.bus_id != "") for c in info.chips] == [
        (0, 0, True), (1, 0, True), (2, None, False),
    ]  # fmt: skip
    assert [(w.line, w.message) for w in info.warnings] == [
        (13, "NPU 2's second row is missing (cut off): read from its first row only (chip, bus "
         "id and usage unknown)")
    ]  # fmt: skip


def test_npu_smi_info_without_table_is_an_error() -> None:
    with pytest.raises(ParseError, match="no npu-smi info table"):
        npu_smi.parse_info("npu-smi: command not found\n")


def test_npu_smi_topology_matrix() -> None:
    topo = npu_smi.parse_topo(sample("npu_smi_topo_910b.txt"))
    assert topo.devices == [f"NPU{i}" for i in range(8)]
    assert topo.links["NPU6"]["NPU7"] == "SYS"
    assert topo.links["NPU0"]["NPU0"] == "X"
    assert topo.cpu_affinity["NPU2"] == "96-119"
    assert topo.kinds() == {"HCCS", "SYS"}
    assert "HCCS" in topo.legend


def test_nvidia_smi_topology_keeps_nic_rows_and_affinity() -> None:
    topo = nvidia_smi.parse_topo(sample("nvidia_smi_topo.txt"))
    assert topo.devices == ["GPU0", "GPU1", "GPU2", "GPU3", "NIC0", "NIC1"]
    assert topo.links["GPU0"]["GPU1"] == "NV12"
    assert topo.links["GPU2"]["NIC1"] == "PXB"
    assert topo.cpu_affinity["GPU3"] == "32-63"


def test_topology_row_shorter_than_header_names_the_line() -> None:
    text = "           NPU0       NPU1\nNPU0       X          HCCS\nNPU1       HCCS\n"
    with pytest.raises(ParseError) as e:
        npu_smi.parse_topo(text)
    assert e.value.line == 3


# ------------------------------------------------------------------------------- hccn_tool


@pytest.mark.parametrize(
    ("text", "up"), [("link status: UP\n", True), ("link status: DOWN\n", False)]
)
def test_hccn_link(text: str, up: bool) -> None:
    # the live preflight probe stores asdict() of the result: the verdict must be a field
    assert asdict(hccn_tool.parse_link(text))["up"] is up


@pytest.mark.parametrize(
    ("status", "healthy"),
    [("Success", True), ("Init", False), ("Socket fail", False), ("Fault", False)],
)
def test_hccn_net_health(status: str, healthy: bool) -> None:
    health = hccn_tool.parse_net_health(f"net health status: {status}\n")
    assert (health.status, health.healthy) == (status, healthy)


def test_hccn_ip_tls_optical_stat() -> None:
    ip = hccn_tool.parse_ip("ipaddr:192.168.100.101\nnetmask:255.255.255.0\n")
    assert (ip.ipaddr, ip.netmask) == ("192.168.100.101", "255.255.255.0")
    tls = hccn_tool.parse_tls(
        "dev_id:2, tls switch[1](0:disable, 1:enable), tls preconfigured[1](0:non-preset, "
        "1:preset), tls alarm time threshold[60]days"
    )
    assert (tls.device, tls.enabled, tls.preconfigured, tls.alarm_days) == (2, True, True, 60)
    optical = hccn_tool.parse_optical(
        "optical info:\nRx Power             : 0.0000 mW\nRx Los Flag : 0xff\n"
    )
    assert optical == {"Rx Power": "0.0000 mW", "Rx Los Flag": "0xff"}
    stat = hccn_tool.parse_stat(
        "packet statistics:\nroce_qp_status_err_num:3\nmac_tx_pfc_pkt_num:0\n"
    )
    assert stat == {"roce_qp_status_err_num": 3, "mac_tx_pfc_pkt_num": 0}


def test_hccn_ping_loss_and_timeouts() -> None:
    ok = hccn_tool.parse_ping("3 packets transmitted, 3 received, 0.00% packet loss\n")
    assert (ok.loss_pct, ok.reachable) == (0.0, True)
    lost = hccn_tool.parse_ping(
        "recv time out seq=0\nrecv time out seq=1\n2 packets transmitted, 0 received, 100.00% packet loss\n"
    )
    assert (lost.timeouts, lost.reachable) == (2, False)


@pytest.mark.parametrize(
    "fn",
    [
        hccn_tool.parse_link,
        hccn_tool.parse_net_health,
        hccn_tool.parse_ip,
        hccn_tool.parse_tls,
        hccn_tool.parse_ping,
    ],
)
def test_hccn_parsers_reject_other_output(fn) -> None:
    with pytest.raises(ParseError):
        fn("hccn_tool: Permission denied\n")


def test_hccn_bundle_groups_outputs_by_device() -> None:
    bundle = hccn_tool.parse_bundle(sample("hccn_npu_info_before.txt"))
    by_dev = {p.device: p for p in bundle.ports}
    assert sorted(by_dev) == [0, 1, 2, 3]
    assert (by_dev[2].link, by_dev[2].net_health, by_dev[2].tls_enabled) == ("DOWN", "Fault", True)
    assert by_dev[2].optical["Rx Los Flag"] == "0xff"
    assert (by_dev[0].link, by_dev[0].ipaddr) == ("UP", "192.168.100.101")
    assert by_dev[3].stat["roce_qp_status_err_num"] == 3
    assert by_dev[3].ipaddr is None  # not queried for device 3: not invented


def test_hccn_bundle_loop_outputs_take_the_loops_devices_in_order() -> None:
    # "for i in {0..3}; do hccn_tool -i $i -link -g ; done": the k-th output is device k's
    bundle = hccn_tool.parse_bundle(sample("hccn_link_loop.txt"))
    assert [(p.device, p.link, p.line) for p in bundle.ports] == [
        (0, "UP", 2),
        (1, "UP", 3),
        (2, "DOWN", 4),
        (3, "UP", 5),
    ]
    # without the loop's line the outputs keep their order, their devices unknown
    text = sample("hccn_link_loop.txt").split("\n", 1)[1]
    assert [p.device for p in hccn_tool.parse_bundle(text).ports] == [None, None, None, None]


def test_hccn_bundle_ping_per_device() -> None:
    bundle = hccn_tool.parse_bundle(sample("hccn_ping_peer.txt"))
    assert [(p.device, p.ping_loss_pct, p.ping_target) for p in bundle.ports] == [
        (0, 0.0, "192.168.100.102"),
        (1, 100.0, "192.168.101.102"),
    ]


def test_hccn_conf() -> None:
    conf = hccn_conf.parse(sample("hccn.conf"))
    assert sorted(conf.devices) == [0, 1, 2, 3]
    assert conf.devices[1].address == "192.168.101.101"
    assert conf.devices[0].settings["arp"] == "on"
    bad = hccn_conf.parse("address_0=10.0.0.1\nthis is not a setting\n")
    assert [w.line for w in bad.warnings] == [2]
    with pytest.raises(ParseError):
        hccn_conf.parse("# empty\n")


# ------------------------------------------------------------------------------- rank tables


def test_rank_table_v10_valid() -> None:
    table = rank_table.parse(sample("rank_table_v10.json"))
    assert (table.version, table.server_count, len(table.ranks), table.errors) == ("1.0", 2, 16, [])
    assert table.ranks[9].server_id == "10.0.0.12"
    assert table.ranks[9].device_id == "1"


def test_rank_table_v12_superpod_valid() -> None:
    table = rank_table.parse(sample("rank_table_v12.json"))
    assert table.valid, table.errors
    assert table.super_pods == {"0": ["node_0", "node_1"]}
    assert table.ranks[5].super_device_id == "5"


def test_rank_table_validation_lists_every_error() -> None:
    errors = rank_table.parse(sample("rank_table_bad.json")).errors
    assert any("status is 'initializing'" in e for e in errors)
    assert any("server_count is 3 but server_list holds 2" in e for e in errors)
    assert any("device 2 on server 10.0.0.12 is listed 2 times (ranks 6, 7)" in e for e in errors)
    assert any("rank_id 4 is used 2 times" in e for e in errors)
    assert any("missing 5" in e for e in errors)


def test_rank_table_v12_without_superpod_fields() -> None:
    text = (
        '{"version": "1.2", "status": "completed", "server_count": "1", "server_list": '
        '[{"server_id": "a", "device": [{"device_id": "0", "device_ip": "1.1.1.1", "rank_id": "0"}]}]}'
    )
    errors = rank_table.parse(text).errors
    assert any("no super_pod_list" in e for e in errors)
    assert any("super_device_id" in e for e in errors)


def test_rank_table_broken_json_names_the_line() -> None:
    with pytest.raises(ParseError) as e:
        rank_table.parse(sample("rank_table_broken.json"))
    assert e.value.line == 6


# ------------------------------------------------------------------------------- nccl-tests


def test_nccl_tests_multi_node_with_mpi_prefixes() -> None:
    log = nccl_tests.parse(sample("nccl_all_reduce_2x8_mpi.log"), op="all_reduce")
    assert log.ranks == 16
    assert log.hosts == ["gpu-node-0", "gpu-node-1"]
    (table,) = log.tables
    assert table.complete and table.out_of_bounds == 0
    assert [r.size_bytes for r in table.rows] == [1 << 20, 1 << 22, 1 << 24, 1 << 26, 1 << 28]
    last = table.rows[-1]
    assert last.out_of_place is not None and last.in_place is not None
    # busbw = algbw x 2(n-1)/n for all_reduce over 16 ranks, as the tool printed it
    assert last.out_of_place.busbw_gbytes_s == pytest.approx(
        last.out_of_place.algbw_gbytes_s * 1.875, abs=0.01
    )
    assert table.avg_busbw_gbytes_s == pytest.approx(66.9864)


def test_nccl_tests_op_from_the_log() -> None:
    log = nccl_tests.parse(sample("nccl_all_gather_1x8.log"))
    (table,) = log.tables
    assert (table.op, log.ranks, table.rows[0].dtype, table.rows[0].redop) == (
        "all_gather",
        8,
        "bfloat16",
        "none",
    )


def test_nccl_tests_truncated_log() -> None:
    log = nccl_tests.parse(sample("nccl_all_reduce_truncated.log"))
    (table,) = log.tables
    assert (table.op, log.ranks, table.complete, len(table.rows)) == ("all_reduce", 4, False, 3)
    assert table.rows[-1].in_place is not None and table.rows[-1].in_place.wrong == 3
    lines = {w.line for w in log.warnings}
    assert 10 in lines  # the half-written row
    assert any("cut short after 1048576 bytes" in w.message for w in log.warnings)


def test_nccl_tests_old_error_column() -> None:
    log = nccl_tests.parse(sample("nccl_all_reduce_old_error_column.log"))
    row = log.tables[0].rows[0]
    assert row.root is None
    assert row.out_of_place is not None
    assert (row.out_of_place.wrong, row.out_of_place.max_error) == (None, 2e-07)


HEADER = (
    "#       size         count      type   redop    root     time   algbw   busbw #wrong"
    "     time   algbw   busbw #wrong\n"
)


def test_nccl_tests_two_runs_in_one_file_each_keep_their_op() -> None:
    text = (
        "# Collective test starting: all_reduce_perf\n" + HEADER
        + "     1048576        262144     float     sum      -1    90.00   11.65   20.39      0    89.00   11.78   20.62      0\n"
        "# Avg bus bandwidth    : 20.39\n"
        "# Collective test starting: alltoall_perf\n" + HEADER
        + "     1048576        262144     float    none      -1    70.00   14.98   13.11    N/A    70.00   14.98   13.11    N/A\n"
        "# Avg bus bandwidth    : 13.11\n"
    )  # fmt: skip
    log = nccl_tests.parse(text)
    assert [t.op for t in log.tables] == ["all_reduce", "all_to_all"]
    second = log.tables[1].rows[0]
    assert second.out_of_place is not None and second.out_of_place.wrong is None  # run with -c 0


def test_nccl_tests_op_named_only_at_the_end() -> None:
    text = (
        HEADER
        + "        1024           256     float     sum      -1    20.00    0.05    0.09      0    20.00    0.05    0.09      0\n"
        "# Avg bus bandwidth    : 0.09\n# Collective test concluded: reduce_scatter_perf\n"
    )  # fmt: skip
    assert nccl_tests.parse(text).tables[0].op == "reduce_scatter"


def test_nccl_tests_without_table_is_an_error() -> None:
    with pytest.raises(ParseError, match="no nccl-tests results table"):
        nccl_tests.parse("NCCL INFO Bootstrap : Using eth0\n")
    with pytest.raises(ParseError) as e:
        nccl_tests.parse(
            "#\n#       size         count      type   redop    root     time   algbw   busbw #wrong\n"
        )
    assert e.value.line == 2


# ------------------------------------------------------------------------------- hccl_test


def test_hccl_test_busbw_from_command_line() -> None:
    log = hccl_test.parse(sample("hccl_test_all_reduce_2x8.log"))
    assert (log.op, log.ranks, log.npus_per_node, log.dtype, log.complete) == (
        "all_reduce",
        16,
        8,
        "float32",
        True,
    )
    last = log.rows[-1]
    assert last.size_bytes == 67108864 and last.check == "success"
    assert last.busbw_gbytes_s == pytest.approx(last.algbw_gbytes_s * 2 * 15 / 16)


def test_hccl_test_explicit_op_and_ranks_override() -> None:
    log = hccl_test.parse(sample("hccl_test_all_gather_nocmd.log"), op="all_gather", ranks=8)
    assert log.rows[0].busbw_gbytes_s == pytest.approx(log.rows[0].algbw_gbytes_s * 7 / 8)


def test_hccl_test_without_command_leaves_busbw_empty_and_reports_lines() -> None:
    log = hccl_test.parse(sample("hccl_test_all_gather_nocmd.log"))
    assert log.op == "unknown"
    assert all(r.busbw_gbytes_s is None for r in log.rows)
    assert [r.check for r in log.rows] == ["success", "success", "failed"]
    assert log.rows[-1].failed_ranks == [5]
    assert [w.line for w in log.warnings if "unreadable" in w.message] == [4]
    assert any("bus bandwidth not computed" in w.message for w in log.warnings)


# ------------------------------------------------------------------------------- failure logs


def test_watchdog_timeouts_name_rank_op_seq_and_progress() -> None:
    report = logs.parse(sample("watchdog_nccl_allreduce.log"))
    timeouts = report.of_kind("watchdog_timeout")
    assert sorted(e.rank for e in timeouts) == [0, 1]  # rank 1's repeated message counted once
    e = next(t for t in timeouts if t.rank == 1)
    assert (e.op, e.seq, e.numel, e.timeout_ms, e.ran_for_ms) == (
        "all_reduce",
        2048,
        26214400,
        600000,
        600073,
    )
    assert (e.last_enqueued, e.last_completed, e.library) == (2048, 2047, "NCCL")
    (behind,) = report.of_kind("watchdog_progress")
    assert (behind.rank, behind.last_enqueued, behind.line) == (3, 2047, 6)


def test_torch_npu_watchdog_work_hccl() -> None:
    text = (
        "[rank5]:[E compiler_depend.ts:1543] [Rank 5] Watchdog caught collective operation timeout: "
        "WorkHCCL(SeqNum=77, OpType=ALLGATHER, NumelIn=4096, NumelOut=32768, Timeout(ms)=1800000) "
        "ran for 1800342 milliseconds before timing out.\n"
    )
    (e,) = logs.parse(text).events
    assert (e.kind, e.rank, e.op, e.seq, e.library, e.timeout_ms) == (
        "watchdog_timeout",
        5,
        "all_gather",
        77,
        "HCCL",
        1800000,
    )


def test_elastic_summary_marks_the_root_cause() -> None:
    failures = logs.parse(sample("watchdog_nccl_allreduce.log")).of_kind("elastic_failure")
    assert [(f.rank, f.local_rank, f.host, f.exit_code, f.root_cause) for f in failures] == [
        (0, 0, "gpu-node-0", -6, False),
        (1, 1, "gpu-node-0", -6, True),
    ]
    assert failures[1].pid == 41233


def test_hccl_ei0006_with_rank_prefix() -> None:
    parsed = logs.parse(sample("hccl_ei0006_init.log"))
    (e,) = parsed.of_kind("hccl_error")
    assert (e.kind, e.code, e.rank, e.device, e.line) == ("hccl_error", "EI0006", 1, 1, 5)
    # torch_npu's "OPS function error: HcclAllreduce, error code is N" above it is the call's own
    (call,) = parsed.of_kind("hccl_call_failure")
    assert (call.call, call.rank, call.line) == ("HcclAllreduce", 1, 3)
    assert e.timeout_ms is None  # the 120 s in the text is the documented default, not this run's


def test_hccl_ei0002_names_peer_op_and_group() -> None:
    (e,) = logs.parse(sample("hccl_ei0002_exec.log")).events
    assert (e.code, e.rank, e.remote_rank, e.op, e.group, e.rank_size) == (
        "EI0002",
        25,
        24,
        "all_reduce",
        "group_name_1654",
        32,
    )


def test_port_bind_codes_old_and_new_forms() -> None:
    parsed = logs.parse(sample("hccl_port_bind.log"))
    events = parsed.of_kind("hccl_error")
    assert [(e.code, e.code_name, e.port, e.rank) for e in events] == [
        ("EJ0003", None, 60000, 0),
        ("EI0019", "Communication_Error_Bind_IP_Port", 60001, None),
    ]
    assert events[1].ip == "192.168.1.100"
    # torch_npu's failed call before the EJ0003 block is its own event
    (call,) = parsed.of_kind("hccl_call_failure")
    assert (call.line, call.rank, call.call, call.code_name) == (
        1, 0, "HcclGetRootInfo", "HCCL_E_TCP_CONNECT",
    )  # fmt: skip


def test_hccl_ei0015_names_the_node_and_timeout() -> None:
    (e,) = logs.parse(sample("hccl_ei0015_negotiation.log")).events
    assert (e.code, e.host, e.timeout_ms) == ("EI0015", "10.0.0.12", 120000)


def test_store_timeout() -> None:
    text = "torch.distributed.DistStoreError: Timed out after 901 seconds waiting for clients. 3/4 clients joined.\n"
    (e,) = logs.parse(text).events
    assert (e.kind, e.timeout_ms, e.numel, e.rank_size) == ("store_timeout", 901000, 3, 4)


def test_log_without_events_is_an_error() -> None:
    with pytest.raises(ParseError, match="no HCCL/CANN error code"):
        logs.parse("epoch 1 loss 2.3\nepoch 2 loss 2.1\n")
