"""What a review of this stop's readings found wrong, each on the smallest input that showed it
(the forms are those of the real samples in tests/data/evidence_heldout_39-41, changed where the
case needs: a device's failed command, a grep, a '...', a second group, all ranks stuck)."""

from __future__ import annotations

import math
import re
from pathlib import Path

from advisor.evidence.load import load_paths, load_text
from tests.rules_facts import finding_items

IP_LOOP = "for i in {0..3}; do hccn_tool -i $i -ip -g; done\n"


def _ip(n: int) -> str:
    return f"ipaddr:10.0.0.{10 + n}\nnetmask:255.255.255.0\n"


def test_a_loop_with_a_failed_output_gives_no_device_by_order() -> None:
    # device 2's command failed: giving the third answer device 2 would name device 3's address
    text = IP_LOOP + _ip(0) + _ip(1) + "Get ip address failed, ret = -2\n" + _ip(3)
    ev = load_text(text, "hccn.txt")
    assert [(p["device"], p["ipaddr"]) for p in ev.npu_ports] == [
        (None, "10.0.0.10"), (None, "10.0.0.11"), (None, "10.0.0.13"),
    ]  # fmt: skip
    (note,) = [m.message for m in ev.files[0].messages]
    assert "not given its devices by their order (3 for its 4 device(s)" in note


def test_a_grepped_loop_or_one_with_a_gap_gives_no_device_by_order() -> None:
    grepped = "for i in {0..7}; do hccn_tool -i $i -link -g | grep DOWN; done\n" + (
        "link status: DOWN\n" * 2
    )
    elided = IP_LOOP + _ip(0) + _ip(1) + "...\n" + _ip(3)
    for text in (grepped, elided):
        ev = load_text(text, "hccn.txt")
        assert {p["device"] for p in ev.npu_ports} == {None}


def test_an_outputs_own_device_wins_over_its_place() -> None:
    text = (
        'for i in {0..7}; do hccn_tool -i $i -tls -g ; done | grep "tls switch\\[1"\n'
        "dev_id:3, tls switch[1](0:disable, 1:enable), tls preconfigured[1](0:non-preset, "
        "1:preset), tls alarm time threshold[60]days\n"
    )
    (port,) = load_text(text, "hccn.txt").npu_ports
    assert (port["device"], port["tls_enabled"]) == (3, True)


def test_a_full_lldp_loop_keeps_each_output_whole() -> None:
    one = (
        "Chassis ID TLV\n\tMAC: aa:bb:cc:00:00:0{n}\nPort ID TLV\n\tIfname: 400GE1/1/{n}\n"
        "Time to Live TLV\n\t121\nSystem Name TLV\n\tSW-{n}\nEnd of LLDPDU TLV\n"
    )
    text = (
        "for i in 0 1; do hccn_tool -i $i -lldp -g; done\n"
        + one.format(n=1)
        + one.format(n=2)
        + "for i in 0 1; do hccn_tool -i $i -link -g; done\nlink status: UP\nlink status: UP\n"
    )
    ports = load_text(text, "hccn.txt").npu_ports
    assert [
        (p["device"], p["lldp"].get("port_id"), p["lldp"].get("system_name")) for p in ports
    ] == [
        (0, "400GE1/1/1", "SW-1"),
        (1, "400GE1/1/2", "SW-2"),
    ]


def test_a_command_whose_filter_kept_nothing_or_a_set_command_is_not_said_unanswered() -> None:
    text = (
        "hccn_tool -i 0 -ip -s address 10.0.0.10 netmask 255.255.255.0\n"
        "hccn_tool -i 0 -stat -g | grep err\n"
        "hccn_tool -i 0 -link -g\nlink status: UP\n"
    )
    notes = [m.message for m in load_text(text, "hccn.txt").files[0].messages]
    assert notes == [
        "'hccn_tool -i 0 -stat -g | grep err' printed nothing: its filter kept no line"
    ]


def _timeout(rank: int, seq: int, op: str) -> str:
    return (
        f"[rank{rank}]:[E709 17:05:39.{rank}83402482 ProcessGroupNCCL.cpp:1899] [PG ID 0 PG GUID "
        f"0(default_pg) Rank {rank}] Process group watchdog thread terminated with exception: "
        f"[Rank {rank}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, "
        f"OpType={op}, NumelIn=1048576, NumelOut=1048576, Timeout(ms)=600000) ran for 600000 "
        "milliseconds before timing out.\n"
    )


def test_point_to_point_time_outs_are_not_a_seqnum_spread(tmp_path: Path) -> None:
    # torch counts send/recv apart from collectives: a pipeline stage's SEND at 12 and another's
    # ALLREDUCE at 340 are no desync
    text = "".join(
        (
            _timeout(0, 12, "SEND"),
            _timeout(1, 12, "RECV"),
            _timeout(2, 340, "ALLREDUCE"),
            _timeout(3, 340, "ALLREDUCE"),
        )
    )
    (tmp_path / "pp.log").write_text(text)
    ev = load_paths([tmp_path / "pp.log"])
    (timeline,) = ev.timelines
    assert timeline.seq_spread == {}
    assert "evidence-watchdog-seq-spread" not in finding_items(
        {"evidence.timelines": ev.timelines}, "nccl"
    )


def test_a_desync_report_naming_every_rank_inside_one_collective_blames_none() -> None:
    text = (
        "[E ProcessGroupNCCL.cpp:826] [Rank 0] NCCL watchdog thread terminated with exception: "
        "[Rank 0] Watchdog caught collective operation timeout\n"
        "\t - [0] Timeout at collective: ALLREDUCE, #3\n"
        "\t - To our best knowledge, the lagging/dead/mismatched ranks that caused the desync are:\n"
        "\t   - [0, 1, 2, 3] joined but didn't finish collective #3 (count from 1)\n"
    )
    ev = load_text(text, "desync.log")
    (report,) = [e for e in ev.failures if e["kind"] == "desync_report"]
    assert report["missing_ranks"] is None and "no rank lags the others" in report["message"]
    assert "evidence-desync-report" not in finding_items({"evidence.failures": ev.failures}, "nccl")


def test_ibv_devinfo_v_flag_lists_do_not_end_the_device() -> None:
    text = (
        "hca_id:\tmlx5_0\n\ttransport:\t\t\tInfiniBand (0)\n\tfw_ver:\t\t\t\t20.31.1014\n"
        "\tdevice_cap_flags:\t\t0xed721c36\n\t\t\t\t\tBAD_PKEY_CNTR\n\t\t\t\t\tAUTO_PATH_MIG\n"
        "\t\tport:\t1\n\t\t\tstate:\t\t\tPORT_DOWN (1)\n\t\t\tlink_layer:\t\tInfiniBand\n"
        "\t\t\tGID[  0]:\t\tfe80:0000:0000:0000:0c42:a103:0065:e0c0\n"
    )
    (port,) = load_text(text, "ibv.txt").hca_ports
    assert (port["ca"], port["state"], port["active"], port["link_layer"]) == (
        "mlx5_0", "PORT_DOWN", False, "InfiniBand",
    )  # fmt: skip


def test_a_p2p_nvlink_matrix_of_a_pcie_node_is_not_judged() -> None:
    row = " GPU{i}\t" + "\t".join("X" if j == "{i}" else "{c}" for j in "0123") + "\n"
    matrix = " \tGPU0\tGPU1\tGPU2\tGPU3\n" + "".join(row.replace("{i}", str(i)) for i in range(4))
    text = (
        "$ nvidia-smi topo -p2p n\n" + matrix.replace("{c}", "NS")
        + "\n$ nvidia-smi topo -p2p r\n" + matrix.replace("{c}", "OK")
    )  # fmt: skip
    ev = load_text(text, "p2p.txt")
    assert [(m["query"], len(m["not_ok"])) for m in ev.p2p] == [("nvlink", 6), ("read", 0)]
    assert "evidence-gpu-p2p-unavailable" not in finding_items({"evidence.p2p": ev.p2p}, "nccl")


_OPTICAL = (
    Path(__file__).parent
    / "data/evidence_heldout_39"
    / "npu_info_before_910A_dump_optical_rx_power1_under_threshold_rx_los_0xff_ip_g_dev2_empty_mindcluster_faultdiag.txt"
)


def _optical_block() -> str:
    lines = _OPTICAL.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("optical info"))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("Host SNR Lane3"))
    return "hccn_tool -i 0 -optical -g\n" + "\n".join(lines[start : end + 1]) + "\n"


def test_optical_power_is_judged_whatever_the_keys_case_and_in_dbm_against_dbm() -> None:
    # The real 910A module (Rx Power1 0.0054 mW under its 0.1445 mW low threshold), its keys
    # upper-cased; then the same readings in dBm (10 log10 mW) against thresholds in dBm.
    upper = _optical_block().replace("Rx Power", "RX Power").replace("RxPower", "RXPower")
    (port,) = load_text(upper, "optical.txt").npu_ports
    assert any(a.startswith("RX Power1 0.0054 mW under") for a in port["optical_alarms"])

    def dbm(m: re.Match[str]) -> str:
        return f"{10 * math.log10(float(m.group(1))):.2f} dBm"

    in_dbm = re.sub(r"(\d+\.\d+) mW", dbm, _optical_block())
    ev = load_text(in_dbm, "optical.txt")
    (port,) = ev.npu_ports
    assert any(
        a.startswith("Rx Power1 -22.68 dBm under its low threshold -8.4 dBm")
        for a in port["optical_alarms"]
    )
    assert ev.files[0].status == "read"


def test_optical_power_in_another_unit_than_its_thresholds_is_said_unjudged() -> None:
    mixed = _optical_block().replace(
        "Rx Power1            : 0.0054 mW", "Rx Power1            : -22.68 dBm"
    )
    ev = load_text(mixed, "optical.txt")
    (port,) = ev.npu_ports
    assert not any("Rx Power1" in a for a in port["optical_alarms"])
    (note,) = [m for m in ev.files[0].messages if "not judged" in m.message]
    # every line was read; the note says what was not judged
    assert "Rx Power1 -22.68 dBm" in note.message and ev.files[0].status == "read"


_ITOVE = (
    Path(__file__).parent
    / "data/evidence_heldout_40"
    / "hccn_tool_for_loops_lldp_grep_ifname_gateway_tls_grep_switch_8dev_itove_deploy_guide_cut.txt"
)


def _itove_lines(first: int, last: int) -> str:
    return "\n".join(_ITOVE.read_text().splitlines()[first - 1 : last]) + "\n"


def test_hccn_outputs_are_recognised_on_their_own() -> None:
    # each part of a real file alone: the grepped -lldp loop, the -gateway loop, a [device 0]
    # -link_stat saved without its command, a full -lldp -g saved without its command
    mindcluster = (
        Path(__file__).parent
        / "data/evidence_heldout_40"
        / "hccn_tool_dev0_collection_net_health_init_optical_elided_link_stat_device_prefix_mindcluster_doc_cut.txt"
    ).read_text()
    link_stat = "\n".join(
        line.strip() for line in mindcluster.splitlines() if line.strip().startswith("[device 0]")
    )
    lldp = (
        Path(__file__).parent
        / "data/evidence_heldout_39"
        / "hccn_tool_lldp_g_dev3_switch_400GE1_1_20_2_author_elided_middle_tlv_arthurchiao_blog.txt"
    ).read_text()
    lldp_alone = lldp.split("\n", 1)[1]
    for text, want in (
        (_itove_lines(1, 9), {"port_id": "400GE1/4/5:2"}),
        (_itove_lines(10, 18), {"gateway": "11.12.165.1"}),
        (link_stat + "\n", {"link_up_count": 2}),
        (lldp_alone, {}),
    ):
        ev = load_text(text, "alone.txt")
        assert ev.files[0].formats == ["hccn_tool"], text
        if "port_id" in want:
            assert ev.npu_ports[-1]["lldp"]["port_id"] == want["port_id"]
            assert ev.npu_ports[-1]["device"] == 7
        elif "gateway" in want:
            assert [p["gateway"] for p in ev.npu_ports] == ["11.12.165.1"] * 8
        elif "link_up_count" in want:
            (port,) = ev.npu_ports
            assert (port["device"], port["link_up_count"]) == (0, 2)
        else:
            (port,) = ev.npu_ports
            assert port["lldp"]["port_id"] == "400GE1/1/20:2"


def test_an_empty_gateway_answer_is_no_gateway_not_an_unread_output() -> None:
    text = _itove_lines(10, 11).replace("gateway:11.12.165.1,", "gateway:,")
    ev = load_text(text.replace("{0..7}", "{0..0}"), "gw.txt")
    assert ev.files[0].status == "read"
    (port,) = ev.npu_ports
    assert (port["device"], port["gateway"]) == (0, "none")


def test_a_loop_run_in_the_background_gives_no_device_by_order() -> None:
    text = _itove_lines(10, 18).replace("-gateway -g ; done", "-gateway -g & done")
    ev = load_text(text, "gw.txt")
    assert [p["device"] for p in ev.npu_ports] == [None] * 8
    (note,) = [m for m in ev.files[0].messages if "background" in m.message]
    assert note.line == 1


def test_ibdev2netdev_v_gives_each_ports_own_state_part_and_firmware() -> None:
    name = "ibdev2netdev_v_connectx4_2_pf_active_4_vf_down_ib_sriov_cni_readme_cut.txt"
    ev = load_paths([Path(__file__).parent / "data/evidence_heldout_42" / name])
    assert ev.files[0].status == "read"
    got = [(p["ca"], p["state"], p["netdev"], p["netdev_up"]) for p in ev.hca_ports]
    assert got[:3] == [
        ("mlx5_0", "ACTIVE", "ib0", True),
        ("mlx5_1", "ACTIVE", "ib1", False),
        ("mlx5_2", "DOWN", "ib2", False),
    ]
    assert len(got) == 6 and {p["firmware"] for p in ev.hca_ports} == {"12.23.1020"}
    assert [p["ca_type"] for p in ev.hca_ports] == ["MT4115"] * 2 + ["MT4116"] * 4
    assert [p["active"] for p in ev.hca_ports] == [True, True, False, False, False, False]
