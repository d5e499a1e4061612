"""Outputs of round XXXX's held-out evaluation (set 730, network and node tool outputs on GPU
clusters, part b) that the advisor read in part before this change (tests/data/
evidence_heldout_84, sources in tests/data/SOURCES.md): a grep of ``ethtool -S`` holding only
``rx_out_of_buffer: 48`` was a note, no warning, the interface unnamed; ``sminfo``'s answer with
its GUID masked by the poster ("0x2cGUID") was not read, only smpquery ND's; an iperf 2 run cut
before its whole-test row had its last interval taken for a 1 s total, its loopback path not
said and "a shared link" offered as a cause; an IPoIB interface that sent 19 packets and
received none was READY with no word of it."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.parsers import iperf, netif, rdma
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_84"

ETHTOOL = "ethtool_S_mlx5_enp193s0f0np0_grep_rx_out_of_buffer_48_drops_netmap649_cut.txt"
SMINFO = "sminfo_sm_lid394_master_smpquery_nd_sx6036_switch_sm_fgci174.txt"
IPERF2 = "iperf2_e_localhost_loopback_127001_tcp_18_7_to_37_1_gbits_k8s94015_cut.txt"
IFCONFIG = "ifconfig_ib0_ipoib_mtu2044_rx_packets_0_hw_address_warning_azure_hc44rs_azhpc21_cut.txt"

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


# --- ethtool -S | grep: rx_out_of_buffer alone ---------------------------------------------------


def test_rx_out_of_buffer_alone_is_a_warning_naming_the_interface_and_count() -> None:
    ev = _load(ETHTOOL)
    assert ev.files[0].formats == ["ethtool_stats"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nic-rx-out-of-buffer", "warning")]
    (item,) = heldout.items(outcome, "evidence-nic-rx-out-of-buffer")
    assert item.startswith("enp193s0f0np0: 48 received packet(s) dropped since the driver started")
    assert "no count of the packets received" in item
    assert item.endswith("rx_out_of_buffer 48 (" + str(HELDOUT / ETHTOOL) + ", line 2)")


def test_another_interface_is_named_and_a_zero_counter_stays_ready(tmp_path: Path) -> None:
    other = _text(ETHTOOL).replace("enp193s0f0np0", "ens1f1np1").replace(": 48", ": 7")
    _, outcome = heldout.imported(_write(tmp_path, other))
    (item,) = heldout.items(outcome, "evidence-nic-rx-out-of-buffer")
    assert item.startswith("ens1f1np1: 7 received packet(s) dropped")
    healthy = _text(ETHTOOL).replace(": 48", ": 0")
    level, outcome = heldout.imported(_write(tmp_path, healthy))
    assert level == "READY" and heldout.above_info(outcome) == []


def test_a_few_drops_against_many_packets_received_are_not_judged(tmp_path: Path) -> None:
    # (the copy holds rx_packets: 48 of 10 million is a burst's, under RX_DISCARD_SHARE)
    full = " ethtool -S enp193s0f0np0\n     rx_packets: 10000000\n     rx_out_of_buffer: 48\n"
    level, outcome = heldout.imported(_write(tmp_path, full))
    assert level == "READY" and heldout.above_info(outcome) == []
    heavy = full.replace(": 48", ": 500000")
    _, outcome = heldout.imported(_write(tmp_path, heavy))
    (item,) = heldout.items(outcome, "evidence-nic-rx-out-of-buffer")
    assert "5 % of those received" in item and "of rx_packets 10000000" in item


# --- sminfo with a masked GUID ----------------------------------------------------------------


def test_sminfo_with_a_masked_guid_is_read_as_the_master_sm_on_the_switch() -> None:
    ev = _load(SMINFO)
    assert ev.files[0].formats == ["rdma"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    ((line, note),) = heldout.notes(ev)
    assert line == 2
    assert "sminfo: the subnet manager at lid 394 (guid 0x2cGUID, priority 0" in note
    assert "is the master (SMINFO_MASTER)" in note
    assert "smpquery ND names lid 394's node: MF0;ib-switch-mgmt:SX6036/U1 (line 4)" in note


def test_a_standby_sm_with_a_masked_guid_is_read_too(tmp_path: Path) -> None:
    standby = _text(SMINFO).replace("state 3 SMINFO_MASTER", "state 2 SMINFO_STANDBY")
    ev = _write(tmp_path, standby.replace("lid 394", "lid 12").replace("-L 394", "-L 12"))
    ((line, note),) = heldout.notes(ev)
    assert line == 2 and "subnet manager at lid 12" in note and "SMINFO_STANDBY" in note
    assert ev.files[0].formats == ["rdma"]  # (the signature takes the masked GUID)
    assert rdma._SMINFO_RE.match(standby.splitlines()[1]) is not None


# --- iperf 2 over loopback, cut before its total -------------------------------------------------


def test_iperf2_cut_before_its_total_reads_every_row_as_an_interval() -> None:
    (run,) = iperf.parse(_text(IPERF2))
    assert run.iperf2 and run.cut and run.loopback
    assert run.sender_bps is None and run.seconds is None
    assert [round(b / 1e9, 1) for b in run.interval_bps] == [
        25.5,
        34.4,
        37.1,
        22.1,
        18.7,
        21.5,
        32.3,
    ]


def test_iperf2_loopback_is_said_as_no_network_and_no_link_cause() -> None:
    ev = _load(IPERF2)
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    ((line, note),) = heldout.notes(ev)
    assert line == 3
    assert "7 interval(s) of 18.7 Gbit/s to 37.1 Gbit/s" in note
    assert "sender" not in note and " 1 s;" not in note
    assert "the copy ends before the test's summary" in note
    assert "a loopback test (127.0.0.1 to localhost)" in note and "no NIC or link" in note
    assert "shared link" not in note and "ethtool IFACE" not in note


def test_iperf2_with_its_total_row_still_reads_the_total() -> None:
    whole = _text(IPERF2) + (
        "[  6] 0.00-7.00 sec  22.3 GBytes  27.4 Gbits/sec  182769/0          1     3197K/33 us  0\n"
    )
    (run,) = iperf.parse(whole)
    assert not run.cut and run.seconds == 7.0 and run.sender_bps is not None
    assert round(run.sender_bps / 1e9, 1) == 27.4 and len(run.interval_bps) == 7


def test_iperf2_between_hosts_keeps_the_link_cause(tmp_path: Path) -> None:
    remote = (
        _text(IPERF2)
        .replace("localhost", "10.0.0.2")
        .replace("local 127.0.0.1", "local 10.0.0.1")
        .replace("with 127.0.0.1", "with 10.0.0.2")
    )
    ev = _write(tmp_path, remote)
    (note,) = heldout.said(ev)
    assert "loopback" not in note and "a shared link" in note and "ethtool IFACE" in note


# --- ifconfig: IPoIB ib0 that sent and never received -----------------------------------------


def test_ipoib_that_sent_and_never_received_is_a_warning_naming_it() -> None:
    ev = _load(IFCONFIG)
    assert ev.files[0].formats == ["netif"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-netif-nothing-received", "warning")]
    (item,) = heldout.items(outcome, "evidence-netif-nothing-received")
    assert item.startswith("ib0: RX packets 0 (line 6) against TX packets 19 (line 8)")
    # (ifconfig's "hardware address can be incorrect" line is its own note, no fault)
    assert not any("hardware address" in s for s in heldout.said(ev))


def test_a_healthy_twin_stays_ready_and_another_name_is_named(tmp_path: Path) -> None:
    healthy = _text(IFCONFIG).replace(
        "RX packets 0  bytes 0 (0.0 B)", "RX packets 23  bytes 1702 (1.6 KiB)"
    )
    level, outcome = heldout.imported(_write(tmp_path, healthy))
    assert level == "READY" and heldout.above_info(outcome) == []
    other = _text(IFCONFIG).replace("ib0:", "ib1:")
    (iface,) = netif.parse(other)
    assert iface.name == "ib1" and iface.rx_packets == 0 and iface.tx_packets == 19
    _, outcome = heldout.imported(_write(tmp_path, other))
    (item,) = heldout.items(outcome, "evidence-netif-nothing-received")
    assert item.startswith("ib1: RX packets 0")


def test_old_ifconfig_layout_and_a_bridge_interface(tmp_path: Path) -> None:
    old = (
        "ib0       Link encap:UNSPEC  HWaddr 80-00-00-48-FE-80-00-00-00-00-00-00-00-00-00-00\n"
        "          inet addr:10.1.0.5  Bcast:10.1.255.255  Mask:255.255.0.0\n"
        "          UP BROADCAST RUNNING MULTICAST  MTU:2044  Metric:1\n"
        "          RX packets:0 errors:0 dropped:0 overruns:0 frame:0\n"
        "          TX packets:12 errors:0 dropped:0 overruns:0 carrier:0\n"
    )
    _, outcome = heldout.imported(_write(tmp_path, old))
    (item,) = heldout.items(outcome, "evidence-netif-nothing-received")
    assert item.startswith("ib0: RX packets 0 (line 4) against TX packets 12 (line 5)")
    # (a bridge with nothing behind it sends and hears nothing back by design: not judged)
    bridge = _text(IFCONFIG).replace("ib0:", "docker0:")
    level, outcome = heldout.imported(_write(tmp_path, bridge))
    assert level == "READY" and heldout.above_info(outcome) == []
