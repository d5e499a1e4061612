"""Outputs the two-hundred-thirty-first and two-hundred-thirty-second held-out evaluations misread
that this stop reads: hccn_tool outputs of a shell loop given the loop's devices in order (a
grep of one LLDP TLV and ``-gateway -g`` too), the ``[device N]`` prefix of ``-link_stat``, a
process of an NPU whose chip row a copy left out, and nccl-tests tables without their header:
ranks from the bus factor, an op the cells cannot tell said to be unknown.

Samples: ``tests/data/evidence_heldout_40/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence import command
from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import finding_items

HELDOUT = DATA / "evidence_heldout_40"


_load = partial(heldout.load, HELDOUT)


def _messages(ev: EvidenceFacts) -> list[tuple[int, str]]:
    return [(m.line, m.message) for m in ev.files[0].messages]


def test_a_loops_outputs_belong_to_its_devices_in_order() -> None:
    ev = _load(
        "hccn_tool_for_loop_ip_g_8dev_then_ping_loop_no_device_lines_itove_deploy_guide_cut.txt"
    )
    assert ev.files[0].status == "read"
    got = [(p["device"], p["ipaddr"], p["ping_loss_pct"]) for p in ev.npu_ports]
    # device k's address is the loop's k-th answer (not the last one given to device 0)
    assert got == [(d, f"11.12.165.{80 + d}", 0.0) for d in range(8)]
    assert {p["ping_target"] for p in ev.npu_ports} == {"11.12.165.80"}


def test_grepped_lldp_lines_and_gateways_of_a_loop_are_read_per_device() -> None:
    ev = _load(
        "hccn_tool_for_loops_lldp_grep_ifname_gateway_tls_grep_switch_8dev_itove_deploy_guide_cut.txt"
    )
    assert ev.files[0].status == "read" and _messages(ev) == []
    ports = {p["device"]: p for p in ev.npu_ports}
    assert sorted(ports) == list(range(8))
    assert [ports[d]["lldp"] for d in (0, 1, 7)] == [
        {"port_id": "400GE1/1/5:1"},
        {"port_id": "400GE1/1/5:2"},
        {"port_id": "400GE1/4/5:2"},
    ]
    assert {p["gateway"] for p in ports.values()} == {"11.12.165.1"}
    assert {p["tls_enabled"] for p in ports.values()} == {False}


def test_a_device_prefix_on_link_stat_and_an_optical_output_cut_at_its_end() -> None:
    ev = _load(
        "hccn_tool_dev0_collection_net_health_init_optical_elided_link_stat_device_prefix_"
        "mindcluster_doc_cut.txt"
    )
    (port,) = ev.npu_ports
    assert (port["device"], port["net_health"], port["link"], port["link_up_count"]) == (
        0, "Init", "UP", 2,
    )  # fmt: skip
    # "[device 0]    Tue Jun  6 16:32:12 2023    LINK UP": the prefix is not part of the time
    assert port["link_changes"][:2] == [
        {"time": "Tue Jun  6 16:32:12 2023", "state": "UP"},
        {"time": "Tue Jun  6 16:32:10 2023", "state": "DOWN"},
    ]
    assert port["link_flapped"] is True
    assert "Rx Los Flag 0xff (loss of signal)" in port["optical_alarms"]
    said = dict(_messages(ev))
    assert said[10].endswith("-optical output out ('...'): what they held is unknown; the lines "
                             "after them are read")  # fmt: skip
    # the '...' that ends device 0's optical output leaves its last lines out, not other ports
    assert said[26] == (
        "hccn_tool: the copy left the rest of this -optical output out ('...'): its last lines "
        "are unknown"
    )


def test_a_process_of_an_npu_whose_row_was_left_out_is_said() -> None:
    ev = _load("npu_smi_info_910B1_rows_elided_process_of_npu1_kept_llm_action_blog_cut.txt")
    assert [c["npu"] for c in ev.npu_chips] == [0, 7]  # not eight chips seen
    assert (
        20,
        "npu_smi_info: a process on NPU 1 chip 0 (python 2441448, 59834 MB), whose chip row is "
        "not in the copy: its health is unknown",
    ) in _messages(ev)


def test_a_headerless_table_gives_its_ranks_by_its_bus_factor_and_no_false_cut() -> None:
    ev = _load(
        "nccl_tests_all_reduce_2x_p4de_srun_prefix_no_header_no_footer_16_ranks_by_bus_factor_"
        "awsome_distributed_training.txt"
    )
    (bench,) = ev.benchmarks
    assert (bench["op"], bench["ranks"], bench["complete"]) == ("all_reduce", 16, False)
    assert bench["footer_avg_busbw_gbps"] is None  # no footer: none made up
    said = [m for _, m in _messages(ev)]
    assert any(m.startswith("nccl_tests: 16 ranks, read from busbw / algbw = 1.8748") for m in said)
    # with no header the sizes asked are unknown: it may have finished, its footer not copied
    assert any("the run stopped, or the copy was cut, after 2147483648 bytes" in m for m in said)
    assert not any("the run was cut short" in m for m in said)


def test_a_table_whose_cells_fit_two_ops_says_its_op_is_unknown() -> None:
    ev = _load(
        "nccl_tests_no_header_validation_off_gather_alike_op_unknown_gke_a3high_tcpx_cluster_toolkit.log"
    )
    (bench,) = ev.benchmarks
    assert (bench["op"], bench["ranks"]) == ("unknown", None)
    assert any(
        m.startswith("nccl_tests: the op is unknown: the log never names its binary")
        for _, m in _messages(ev)
    )


def test_ibstat_and_ibv_devinfo_give_each_rdma_ports_state() -> None:
    ev = load_paths(
        [
            HELDOUT / "ibstat_mlx5_0_active_200_mlx5_1_down_disabled_nccl_tests128_cut.txt",
            HELDOUT / "show_gids_then_ibv_devinfo_mlx5_0_port_active_roce_ethernet_slurmv4_cut.txt",
        ]
    )
    assert [(f.status, f.formats) for f in ev.files] == [
        ("read", ["rdma"]),
        ("read", ["rdma", "show_gids"]),
    ]
    # show_gids' table: the RoCEv2 GID with the port's IPv4 address is the one NCCL would use
    assert any(
        "mlx5_0 port 1 (ens108np0): 4 GID(s); RoCEv2 index 3 10.99.91.39" in m.message
        for m in ev.files[1].messages
    )
    assert not [f for f in ev.failures if f["kind"] == "rdma_no_gid"]
    got = [
        (p["tool"], p["ca"], p["port"], p["state"], p["active"], p["rate_gbps"], p["link_layer"])
        for p in ev.hca_ports
    ]
    assert got == [
        ("ibstat", "mlx5_0", 1, "Active", True, 200.0, "InfiniBand"),
        ("ibstat", "mlx5_1", 1, "Down", False, 10.0, "InfiniBand"),
        ("ibv_devinfo", "mlx5_0", 1, "PORT_ACTIVE", True, None, "Ethernet"),
    ]
    assert (ev.hca_ports[0]["ca_type"], ev.hca_ports[0]["firmware"]) == ("MT4123", "20.33.1048")
    assert ev.hca_ports[2]["active_mtu"] == 4096
    findings = finding_items({"evidence.hca_ports": ev.hca_ports}, "nccl")
    (line,) = findings["evidence-hca-port-not-active"]
    assert line.startswith("mlx5_1 port 1: Down (physical state Disabled), InfiniBand (")


def test_the_report_shows_rdma_ports_and_optical_alarms(tmp_path: Path) -> None:
    out = tmp_path / "run"
    ibstat = HELDOUT / "ibstat_mlx5_0_active_200_mlx5_1_down_disabled_nccl_tests128_cut.txt"
    dump = (
        DATA
        / "evidence_heldout_39"
        / "npu_info_before_910A_dump_optical_rx_power1_under_threshold_rx_los_0xff_ip_g_dev2_"
        "empty_mindcluster_faultdiag.txt"
    )
    assert command.main([str(ibstat), str(dump), "--out", str(out)]) == 1
    report = (out / "report.html").read_text()
    hcas = report.split('<table class="hcas">')[1].split("</table>")[0]
    rows = hcas.split("<tr")[2:]
    assert len(rows) == 2 and 'class="warn"' in rows[1] and "<td>Down</td>" in rows[1]
    ports = report.split('<table class="ports">')[1].split("</table>")[0]
    assert "Rx Power1 0.0054 mW under its low threshold 0.1445 mW" in ports


def test_ibdev2netdev_maps_ports_to_interfaces_without_judging_them() -> None:
    ev = _load(
        "ibdev2netdev_column_t_12_mlx5_8_infiniband_4_ethernet_annotated_cluster_health4.txt"
    )
    assert (ev.files[0].status, ev.files[0].formats) == ("read", ["rdma"])
    got = {p["ca"]: (p["netdev"], p["netdev_up"], p["active"]) for p in ev.hca_ports}
    assert len(got) == 12
    assert got["mlx5_0"] == ("ibp26s0", False, None)  # an IPoIB interface down: the port unknown
    assert got["mlx5_7"] == ("enp157s0f0np0", True, None)
    findings = finding_items({"evidence.hca_ports": ev.hca_ports}, "nccl")
    assert "evidence-hca-port-not-active" not in findings


def test_a_p2p_status_matrix_is_read_and_a_pair_without_p2p_is_a_warning() -> None:
    ok = _load("nvidia_smi_topo_p2p_r_8x_h100_all_ok_with_legend_ml_engineering.txt")
    cns = _load("nvidia_smi_topo_p2p_r_2x_l4_cns_chipset_not_supported_ml_engineering.txt")
    for ev in (ok, cns):
        assert (ev.files[0].status, ev.files[0].formats) == ("read", ["nvidia_smi_p2p"])
    (eight,) = ok.p2p
    assert (eight["query"], len(eight["devices"]), eight["not_ok"]) == ("read", 8, [])
    assert eight["status"]["GPU7"]["GPU0"] == "OK"
    (two,) = cns.p2p
    assert two["not_ok"] == [("GPU0", "GPU1", "CNS")]
    assert "evidence-gpu-p2p-unavailable" not in finding_items({"evidence.p2p": ok.p2p}, "nccl")
    (line,) = finding_items({"evidence.p2p": cns.p2p}, "nccl")["evidence-gpu-p2p-unavailable"]
    assert line.startswith("P2P read: GPU0-GPU1 CNS (")
