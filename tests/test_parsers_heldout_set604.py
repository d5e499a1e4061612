"""Outputs of round CCCC's held-out set 604 (network and node tool outputs on GPU clusters) the
advisor read in part or not at all before this change (tests/data/evidence_heldout_65, sources in
tests/data/SOURCES.md): perftest's own CPU-clock warning said as a note only; a field grep of
ibv_devinfo -v with the device's fields between hca_id and the port's state; two iperf3 clients
run at once whose lines interleave; mstconfig's query grep'd to its ROCE rows, RoCE disabled."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_65"

PERFTEST = "ib_write_bw_bidir_D5_roce_gid4_conflicting_cpu_freq_line_inside_table_98_02gbps.txt"
DEVINFO = "ibv_devinfo_v_grep_bluefield3_mt41692_two_ports_port_down_phys_link_up_4x_25g.txt"
IPERF = "iperf3_two_parallel_clients_interleaved_netns_ports_5201_5333_2_35gbps_retr_4347_5015.txt"
MSTCONFIG = "mstconfig_q_grep_roce_connectx6dx_4b00_roce_control_roce_disable_after_reset.txt"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")


# --- perftest's CPU clock warning ---------------------------------------------------------------


def test_perftests_cpu_clock_warning_is_a_warning_with_its_run() -> None:
    ev = _load(PERFTEST)
    (port,) = ev.hca_ports
    run = port["perftest"]
    assert (port["ca"], run["test"], run["bw_average_gbps"]) == (
        "mlx5_0",
        "RDMA_Write Bidirectional BW",
        98.02,
    )
    assert (run["cpu_clock_line"], run["cpu_clock"]) == (25, "1500.000000 != 3300.016000 MHz")
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-rdma-perftest-cpu-clock", "warning")]
    (item,) = heldout.items(outcome, "evidence-rdma-perftest-cpu-clock")
    assert "mlx5_0 port 1: RDMA_Write Bidirectional BW" in item
    assert "(98.02 Gb/s average): 1500.000000 != 3300.016000 MHz" in item and "line 25" in item


_LAT_HEAD = (
    "---------------------------------------------------------------------------------------\n"
    "                    RDMA_Write Latency Test\n"
    " Dual-port       : OFF          Device         : mlx5_2\n"
    " Number of qps   : 1            Transport type : IB\n"
    " Mtu             : 4096[B]\n"
    " Link type       : IB\n"
    "---------------------------------------------------------------------------------------\n"
    " #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    "
    "t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec]\n"
)
_LAT_ROW = (
    " 2       1000          1.70           5.20         1.75               1.76        0.04    "
    "    1.90                    5.20\n"
)


def test_the_warning_on_a_latency_run_twice_or_under_a_prompt_and_none_without_it(
    tmp_path: Path,
) -> None:
    warned = (
        "$ ib_write_lat -d mlx5_2 10.0.0.2\n"
        + _LAT_HEAD
        + "Conflicting CPU frequency values detected: 2200.000000 != 1040.353000. CPU Frequency "
        "is not max.\n"
        "Conflicting CPU frequency values detected: 2200.000000 != 1849.351000. CPU Frequency "
        "is not max.\n" + _LAT_ROW
    )
    ev = _write(tmp_path, warned)
    (port,) = ev.hca_ports
    # (the first of perftest's warnings: one a run is said)
    assert (port["perftest"]["cpu_clock_line"], port["perftest"]["cpu_clock"]) == (
        10,
        "2200.000000 != 1040.353000 MHz",
    )
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"
    quiet = _write(tmp_path, "$ ib_write_lat -d mlx5_2 -F 10.0.0.2\n" + _LAT_HEAD + _LAT_ROW)
    assert quiet.hca_ports[0]["perftest"]["cpu_clock_line"] is None
    assert heldout.imported(quiet)[0] == "READY"


# --- a field grep of ibv_devinfo -v -------------------------------------------------------------


def test_a_field_grep_of_ibv_devinfo_reads_both_ports_down_with_their_link_up() -> None:
    ev = _load(DEVINFO)
    assert ev.files[0].formats == ["rdma"]
    assert [
        (
            p["ca"],
            p["port"],
            p["state"],
            p["physical_state"],
            p["line"],
            p["ca_type"],
            p["firmware"],
        )
        for p in ev.hca_ports
    ] == [
        ("mlx5_0", 1, "PORT_DOWN", "LINK_UP", 10, "41692", "32.47.1088"),
        ("mlx5_1", 1, "PORT_DOWN", "LINK_UP", 23, "41692", "32.47.1088"),
    ]
    assert [p["rate_gbps"] for p in ev.hca_ports] == [100.0, 100.0]  # (4X at 25.0 Gbps)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-hca-host-no-active-port", "critical")]
    items = heldout.items(outcome, "evidence-hca-host-no-active-port")
    assert [i.split(" (/", 1)[0] for i in items] == [
        "mlx5_0 port 1: PORT_DOWN (physical state LINK_UP)",
        "mlx5_1 port 1: PORT_DOWN (physical state LINK_UP)",
    ]


def test_other_field_greps_with_spaces_and_an_active_port_read_alike(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "$ ibv_devinfo -v | grep -E 'hca_id|fw_ver|node_guid|state'\n"
        "hca_id: mlx5_4\n"
        "        fw_ver:                         28.39.1002\n"
        "        node_guid:                      a088:c203:0013:6f2e\n"
        "                        state:                  PORT_ACTIVE (4)\n"
        "                        phys_state:             LINK_UP (5)\n"
        "hca_id: mlx5_5\n"
        "        fw_ver:                         28.39.1002\n"
        "                        state:                  PORT_INIT (2)\n"
        "                        phys_state:             LINK_UP (5)\n",
    )
    assert [(p["ca"], p["state"], p["firmware"]) for p in ev.hca_ports] == [
        ("mlx5_4", "PORT_ACTIVE", "28.39.1002"),
        ("mlx5_5", "PORT_INIT", "28.39.1002"),
    ]
    assert heldout.imported(ev)[0] != "READY"  # (a port linked up but not Active)


# --- two iperf3 clients at once -----------------------------------------------------------------


def test_interleaved_iperf3_clients_are_not_paired_with_a_port() -> None:
    ev = _load(IPERF)
    notes = [m for m in heldout.said(ev) if m.startswith("iperf3: iperf3 client")]
    assert len(notes) == 2
    for note, retransmits in zip(notes, (4347, 5015), strict=True):
        assert note.startswith(
            "iperf3: iperf3 client 192.168.9.2 to 192.168.9.1 (one of the clients run at once, to ports "
            "5201 and 5333, their lines interleaved"
        )
        assert f"sender 2.36 Gbit/s ({retransmits} TCP retransmits); receiver 2.35 Gbit/s" in note
        assert "20 interval line(s) of those clients together, not told apart" in note
        # (no port is paired with a summary, no client is without its address)
        assert "192.168.9.1:5333" not in note and "192.168.9.1:5201" not in note
        assert "client ?" not in note
    assert [m.line for f in ev.files for m in f.messages if m.message in notes] == [30, 37]
    assert heldout.imported(ev)[0] == "READY"


def test_interleaved_clients_whose_headings_come_first_and_a_run_alone(tmp_path: Path) -> None:
    row = "[  5]   {}-{}   sec   112 MBytes   940 Mbits/sec    0    400 KBytes\n"
    summary = (
        "- - - - - - - - - - - - - - - - - - - - - - - - -\n"
        "[ ID] Interval           Transfer     Bitrate         Retr\n"
        "[  5]   0.00-2.00   sec   224 MBytes   940 Mbits/sec  {}             sender\n"
        "[  5]   0.00-2.00   sec   223 MBytes   936 Mbits/sec                  receiver\n"
        "\niperf Done.\n"
    )
    text = (
        "Connecting to host 10.1.1.1, port 5201\n"
        "Connecting to host 10.1.1.1, port 5202\n"
        "[  5] local 10.1.1.2 port 40000 connected to 10.1.1.1 port 5201\n"
        "[  5] local 10.1.1.2 port 40002 connected to 10.1.1.1 port 5202\n"
        "[ ID] Interval           Transfer     Bitrate         Retr  Cwnd\n"
        + row.format("0.00", "1.00")
        + row.format("0.00", "1.00")
        + row.format("1.00", "2.00")
        + row.format("1.00", "2.00")
        + summary.format(3)
        + summary.format(7)
    )
    notes = [
        m for m in heldout.said(_write(tmp_path, text)) if m.startswith("iperf3: iperf3 client")
    ]
    assert [n.split(":", 2)[1] for n in notes] == [
        " iperf3 client 10.1.1.2 to 10.1.1.1 (one of the clients run at once, to ports 5201 and "
        "5202, their lines interleaved under one stream id"
    ] * 2
    assert ["(3 TCP retransmits)" in notes[0], "(7 TCP retransmits)" in notes[1]] == [True, True]
    # one client alone keeps its port and its intervals
    alone = (
        "Connecting to host 10.1.1.1, port 5201\n"
        "[  5] local 10.1.1.2 port 40000 connected to 10.1.1.1 port 5201\n"
        "[ ID] Interval           Transfer     Bitrate         Retr  Cwnd\n"
        + row.format("0.00", "1.00")
        + row.format("1.00", "2.00")
        + summary.format(3)
    )
    (note,) = [
        m for m in heldout.said(_write(tmp_path, alone)) if m.startswith("iperf3: iperf3 client")
    ]
    assert note.startswith("iperf3: iperf3 client 10.1.1.2 to 10.1.1.1:5201: 2 s;")
    assert "2 interval(s) of 940 Mbit/s" in note and "run at once" not in note


# --- mstconfig's query grep'd to its RoCE rows --------------------------------------------------


def test_a_grepd_mstconfig_query_with_roce_disabled_is_not_ready() -> None:
    ev = _load(MSTCONFIG)
    assert ev.files[0].formats == ["mlxconfig"]
    (failure,) = ev.failures
    assert (failure["kind"], failure["line"], failure["library"]) == (
        "nic_roce_disabled",
        10,
        "mlxconfig",
    )
    assert failure["exception_type"] == (
        "4b:00.0 (its type not in the copy): ROCE_CONTROL ROCE_DISABLE(1)"
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-nic-roce-disabled", "critical")]
    (note,) = [m for m in heldout.said(ev) if m.startswith("mlxconfig: mlxconfig query")]
    assert note.startswith(
        "mlxconfig: mlxconfig query: 4b:00.0 (its type not in the copy), 9 setting(s)"
    )
    assert "ROCE_CONTROL ROCE_DISABLE(1)" in note


_DEVICE_BLOCK = (
    "Device #1:\n----------\n\n"
    "Device type:        ConnectX6DX\n"
    "Name:               MCX623432AN-ADA_Ax\n"
    "Device:             4b:00.0\n\n"
)


def test_roce_control_read_in_mlxconfigs_other_forms(tmp_path: Path) -> None:
    # mlxconfig's own name, its long "query", RoCE on: nothing judged
    on = _write(
        tmp_path,
        "# mlxconfig -d /dev/mst/mt4125_pciconf0 query | grep ROCE\n"
        "        ROCE_NEXT_PROTOCOL                          254\n"
        "        ROCE_CONTROL                                ROCE_ENABLE(2)\n",
    )
    assert on.files[0].formats == ["mlxconfig"] and not on.failures
    assert heldout.imported(on)[0] == "READY"
    # the whole query, its device block above: the device's type named
    whole = _write(
        tmp_path,
        _DEVICE_BLOCK + "Configurations:                                     Next Boot\n"
        "        SRIOV_EN                                    False(0)\n"
        "        ROCE_CONTROL                                ROCE_DISABLE(1)\n",
    )
    (failure,) = whole.failures
    assert failure["exception_type"] == "ConnectX6DX (4b:00.0): ROCE_CONTROL ROCE_DISABLE(1)"
    assert failure["line"] == 10
    # query -e: the Current column is what runs ("*" marks a next value that differs)
    verbose = _write(
        tmp_path,
        _DEVICE_BLOCK + "Configurations:                                     Default"
        "              Current              Next Boot\n"
        "*       ROCE_CONTROL                                DEVICE_DEFAULT(0)    "
        "ROCE_DISABLE(1)      ROCE_ENABLE(2)\n",
    )
    (failure,) = verbose.failures
    assert failure["exception_type"].endswith("ROCE_CONTROL ROCE_DISABLE(1)")
    # a set of ROCE_CONTROL is a change waiting for a reboot, not a query's state
    set_off = _write(
        tmp_path,
        "# mstconfig -d 4b:00.0 set ROCE_CONTROL=ROCE_DISABLE\n\n"
        + _DEVICE_BLOCK
        + "Configurations:                                     Next Boot       New\n"
        "        ROCE_CONTROL                                ROCE_ENABLE(2)       ROCE_DISABLE(1)\n"
        "\n Apply new Configuration? (y/n) [n] : y\nApplying... Done!\n"
        "-I- Please reboot machine to load new configurations.\n",
    )
    assert [f["kind"] for f in set_off.failures] == ["firmware_config_pending"]
