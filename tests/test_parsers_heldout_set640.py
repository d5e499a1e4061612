"""Outputs of round IIII's held-out evaluation (set 640, network and node tool outputs on GPU
clusters) that the advisor read wrong or not at all before this change
(tests/data/evidence_heldout_69, sources in tests/data/SOURCES.md): ibstat scraped with a blank
line after every line, and ibstat kept in one HTML "<pre>" line with "<br>" breaks, both unknown;
an iperf3 run quoted twice in a mail with quoted-printable soft breaks, unknown (and its losses,
its rate falling with them, unsaid); lspci's ConnectX-6 reading "(rev ff)" (fallen off the bus)
READY with only a note; a perftest server whose client connected and then failed a warning; and
an active Soft-RoCE port (rxe0, 2.5 Gb/s) READY."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_69"

IBSTAT_SPACED = (
    "ibstat_cx6_mt4123_fw20.31_hdr200_active_blank_line_between_every_line_no_indent_web_scrape.txt"
)
IBSTAT_BR = "ibstat_html_pre_br_one_line_mlx5_0_1_200_bond_0_100_redacted_elided.txt"
IPERF_MAIL = "iperf3_mail_quoted_qp_softbreaks_xen_domu_1.51gbps_3120_retr.txt"
LSPCI_FF = "lspci_vv_cx6_mt28908_01_00_0_rev_ff_unknown_header_7f_nic_fell_off_bus.txt"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")


def _ports(ev: EvidenceFacts) -> list[tuple[str, int, float | None, str | None]]:
    return [(p["ca"], p["port"], p["rate_gbps"], p["state"]) for p in ev.hca_ports]


# --- ibstat with a blank line after every line ---------------------------------------------------


def test_ibstat_scraped_with_a_blank_line_after_every_line_is_read() -> None:
    ev = _load(IBSTAT_SPACED)
    assert ev.files[0].formats == ["rdma"]
    assert _ports(ev) == [("mlx5_0", 1, 200.0, "Active")]
    (port,) = ev.hca_ports
    assert (port["ca_type"], port["firmware"]) == ("MT4123", "20.31.1014")
    assert (port["physical_state"], port["base_lid"], port["sm_lid"]) == ("LinkUp", 12, 5)
    assert port["link_layer"] == "InfiniBand"
    assert any("a blank line after every line read without them" in m for m in heldout.said(ev))
    assert ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_a_double_spaced_ibstat_of_two_devices_one_down_reads_alike(tmp_path: Path) -> None:
    block = (
        "CA '{ca}'\nCA type: MT4129\nNumber of ports: 1\nFirmware version: 28.39.1002\n"
        "Port 1:\nState: {state}\nPhysical state: {phys}\nRate: 400\nLink layer: InfiniBand\n"
    )
    text = block.format(ca="mlx5_4", state="Active", phys="LinkUp") + block.format(
        ca="mlx5_5", state="Down", phys="Disabled"
    )
    ev = _write(tmp_path, "".join(line + "\n\n" for line in text.splitlines()))
    assert _ports(ev) == [("mlx5_4", 1, 400.0, "Active"), ("mlx5_5", 1, 400.0, "Down")]


def test_an_output_with_its_own_blank_lines_keeps_them(tmp_path: Path) -> None:
    # (two shown lines together: the copy kept its line breaks, its blank lines are its own)
    ev = _write(
        tmp_path,
        "CA 'mlx5_0'\n\tCA type: MT4123\n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Active\n"
        "\t\tPhysical state: LinkUp\n\t\tRate: 200\n\n\t\tLink layer: InfiniBand\n\n",
    )
    assert not any("blank line after every line" in m for m in heldout.said(ev))


# --- ibstat in one HTML "<pre>" line, "<br>" for its breaks --------------------------------------


def test_ibstat_in_one_pre_line_with_br_breaks_is_read() -> None:
    ev = _load(IBSTAT_BR)
    assert ev.files[0].formats == ["rdma"]
    assert _ports(ev) == [
        ("mlx5_0", 1, 200.0, "Active"),
        ("mlx5_1", 1, 200.0, "Active"),
        ("mlx5_bond_0", 1, 100.0, "Active"),
    ]
    assert {p["physical_state"] for p in ev.hca_ports} == {"LinkUp"}
    said = heldout.said(ev)
    assert any("29 HTML line break(s) ('<br>')" in m for m in said)
    assert any("HTML tag(s) of a web page's markup taken off" in m for m in said)
    # (the redacted CA type is no device model, the elided fields nothing said about)
    assert ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_self_closed_br_with_the_pages_own_line_ends_reads_alike(tmp_path: Path) -> None:
    # (a "<br />" the page's source ended its line after: one break, not two)
    ev = _write(
        tmp_path,
        "<pre>CA 'mlx5_2'<br />\n    CA type: MT4123<br />\n    Number of ports: 1<br/>"
        "    Port 1:<BR>        State: Down<br>        Physical state: Polling<br>"
        "        Rate: 10<br>        Link layer: InfiniBand</pre>\n",
    )
    assert _ports(ev) == [("mlx5_2", 1, 10.0, "Down")]
    assert ev.hca_ports[0]["physical_state"] == "Polling"


# --- iperf3 quoted twice in a mail, its summary cut by soft breaks -------------------------------


def test_iperf3_quoted_twice_with_soft_breaks_is_read() -> None:
    ev = _load(IPERF_MAIL)
    assert ev.files[0].formats == ["iperf3"]
    said = heldout.said(ev)
    (run,) = [m for m in said if m.startswith("iperf3:")]
    assert "sender 1.51 Gbit/s (3120 TCP retransmits)" in run
    assert "receiver 1.44 Gbit/s" in run
    assert "10 interval(s) of 423 Mbit/s to 1.92 Gbit/s" in run
    assert any("2 quoted-printable soft line break(s)" in m for m in said)
    assert any("a quote inside the quote: '>' taken off 16 line(s) more" in m for m in said)
    # (nothing the copy does not hold: no host, no link rate, no UDP loss)
    assert "Mbit/s line rate" not in run and "lost" not in run


def test_a_soft_break_inside_one_quote_level_reads_alike(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "> [ ID] Interval           Transfer     Bitrate         Retr\n"
        "> [  5]   0.00-1.00   sec  1.10 GBytes  9.41 Gbits/sec    0\n"
        "> [  5]   1.00-2.00   sec  1.10 GBytes  9.42 Gbits/sec    0\n"
        "> [  5]   2.00-3.00   sec  1.10 GBytes  9.41 Gbits/sec    0\n"
        "> - - - - - - - - - - - - - - - - - - - - - - - - -\n"
        "> [ ID] Interval           Transfer     Bitrate         Retr\n"
        "> [  5]   0.00-3.00   sec  3.29 GBytes  9.41 Gbits/sec    0             s=\n"
        "ender\n"
        "> [  5]   0.00-3.04   sec  3.29 GBytes  9.30 Gbits/sec                  receiver\n",
    )
    (run,) = [m for m in heldout.said(ev) if m.startswith("iperf3:")]
    assert "sender 9.41 Gbit/s" in run and "receiver 9.3 Gbit/s" in run


# --- lspci: a ConnectX-6 reading "(rev ff)" ------------------------------------------------------


def test_a_nic_reading_rev_ff_fell_off_the_bus() -> None:
    ev = _load(LSPCI_FF)
    assert [(f["kind"], f["line"]) for f in ev.failures] == [("pcie_device_lost", 2)]
    (lost,) = ev.failures
    assert lost["exception_type"].startswith(
        "Ethernet controller 01:00.0 (Mellanox Technologies MT28908 Family [ConnectX-6]) reads "
        "revision ff"
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-pcie-device-lost", "critical")]
    (item,) = heldout.items(outcome, "evidence-pcie-device-lost")
    assert "fell off the bus" in item and "line 2" in item
    # (no GPU in the listing: no GPU fault said)
    assert "evidence-gpu-driver-fault" not in str(outcome.findings)


def test_an_infiniband_controllers_two_functions_at_rev_ff_are_one_card(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "41:00.0 Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7] (rev ff)\n"
        "41:00.1 Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7] (rev ff)\n"
        "c1:00.0 Infiniband controller: Mellanox Technologies MT2910 Family [ConnectX-7]\n",
    )
    assert [(f["kind"], f["line"]) for f in ev.failures] == [("pcie_device_lost", 1)]


def test_an_nvidia_gpu_at_rev_ff_stays_a_gpu_fault(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "17:00.0 3D controller: NVIDIA Corporation GH100 [H100 SXM5 80GB] (rev ff)\n"
        "65:00.0 3D controller: NVIDIA Corporation GH100 [H100 SXM5 80GB] (rev a1)\n",
    )
    assert [f["kind"] for f in ev.failures] == ["gpu_driver_fault"]


def test_iperf3s_losses_with_its_rate_falling_are_a_warning() -> None:
    ev = _load(IPERF_MAIL)
    assert [(f["kind"], f["line"]) for f in ev.failures] == [("tcp_retransmits_heavy", 15)]
    (heavy,) = ev.failures
    assert heavy["exception_type"] == (
        "3120 TCP retransmits in 10 s at 1.51 Gbit/s: at least 0.24 % of its segments, while its "
        "intervals fell to 423 Mbit/s against 1.92 Gbit/s"
    )
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-iperf3-retransmits-heavy", "warning")]


def test_as_many_losses_on_a_steady_run_are_its_bottlenecks_congestion(tmp_path: Path) -> None:
    # (set 604's two 2.5 GbE streams: ~0.2 % retransmitted at a steady line rate, healthy)
    row = "[  5]   {}.00-{}.00   sec   281 MBytes  2.36 Gbits/sec  {}    1.10 MBytes\n"
    ev = _write(
        tmp_path,
        "[ ID] Interval           Transfer     Bitrate         Retr  Cwnd\n"
        + "".join(row.format(i, i + 1, 430) for i in range(10))
        + "- - - - - - - - - - - - - - - - - - - - - - - - -\n"
        "[ ID] Interval           Transfer     Bitrate         Retr\n"
        "[  5]   0.00-10.00  sec  2.74 GBytes  2.36 Gbits/sec  4300             sender\n"
        "[  5]   0.00-10.00  sec  2.74 GBytes  2.35 Gbits/sec                  receiver\n",
    )
    assert ev.failures == []


# --- perftest: a server whose exchange of addresses broke after the client connected ----------


PERFTEST_SERVER = (
    "ib_read_bw_server_q30_mlx5_0_ib_ethernet_read_keys_couldnt_read_remote_address_pod_memlock.txt"
)


def test_a_perftest_server_whose_client_connected_then_failed_is_not_ready() -> None:
    ev = _load(PERFTEST_SERVER)
    (port,) = ev.hca_ports
    run = port["perftest"]
    assert (port["ca"], run["failed"], run["failed_line"], run["broke_off"]) == (
        "mlx5_0",
        "Couldn't read remote address",
        20,
        True,
    )
    assert run["rows"] == []
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-rdma-perftest-broke-off", "critical")]
    (item,) = heldout.items(outcome, "evidence-rdma-perftest-broke-off")
    assert item.startswith("mlx5_0 port 1: RDMA_Read BW: Couldn't read remote address (")
    assert item.endswith("line 20)")


def test_a_client_whose_exchange_broke_after_its_settings_reads_alike(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "$ ib_write_bw -d mlx5_3 -x 3 10.0.0.7\n"
        "---------------------------------------------------------------------------------------\n"
        "                    RDMA_Write BW Test\n"
        " Dual-port       : OFF          Device         : mlx5_3\n"
        " Number of qps   : 1            Transport type : IB\n"
        " Connection type : RC           Using SRQ      : OFF\n"
        " TX depth        : 128\n"
        " Link type       : Ethernet\n"
        "---------------------------------------------------------------------------------------\n"
        " Unable to read from socket/rdma_cm\n"
        " Failed to exchange data between server and clients\n",
    )
    (port,) = ev.hca_ports
    assert (port["perftest"]["failed_line"], port["perftest"]["broke_off"]) == (10, True)


def test_a_client_that_never_connected_stays_a_warning(tmp_path: Path) -> None:
    # (no settings: the server was not there, the test's own set-up)
    ev = _write(
        tmp_path,
        "$ ib_write_bw -d mlx5_0 10.0.0.2\nCouldn't connect to 10.0.0.2:18515\n"
        "Unable to open file descriptor for socket connection Unable to init the socket "
        "connection\n",
    )
    (port,) = ev.hca_ports
    assert not port["perftest"]["broke_off"]
    level, _ = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"


# --- ibstat of a Soft-RoCE device --------------------------------------------------------------


RXE = "ibstat_rxe0_soft_roce_wlp60s0_mail_quoted_rate_2.5_empty_ca_type.txt"


def test_an_active_soft_roce_port_is_no_cluster_fabric() -> None:
    ev = _load(RXE)
    assert _ports(ev) == [("rxe0", 1, 2.5, "Active")]
    (port,) = ev.hca_ports
    assert (port["software"], port["link_layer"]) == ("Soft-RoCE (rxe)", "Ethernet")
    # (its empty CA type and firmware are not said as values)
    assert (port["ca_type"], port["firmware"]) == (None, None)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-hca-software-device", "warning")]
    (item,) = heldout.items(outcome, "evidence-hca-software-device")
    assert item.startswith("rxe0 port 1: Soft-RoCE (rxe), rate 2.5 Gb/s, Ethernet (")
    assert item.endswith("line 10)")


def test_a_siw_device_named_by_rdma_link_add_reads_alike(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "CA 'siw_enp1s0'\n\tCA type: \n\tNumber of ports: 1\n\tPort 1:\n\t\tState: Active\n"
        "\t\tPhysical state: LinkUp\n\t\tRate: 25\n\t\tLink layer: Ethernet\n",
    )
    assert [p["software"] for p in ev.hca_ports] == ["Soft-iWARP (siw)"]


def test_an_hcas_port_is_no_software_device() -> None:
    ev = _load(IBSTAT_SPACED)
    assert [p["software"] for p in ev.hca_ports] == [None]
