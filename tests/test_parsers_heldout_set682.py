"""Outputs of round PPPP's held-out evaluation (set 682, network and node tool outputs on GPU
clusters) that the advisor read wrong or in part before this change (tests/data/
evidence_heldout_76, sources in tests/data/SOURCES.md): an ``ip link show`` whose five ConnectX-6
ports (``ens13f0np0`` ...) were never brought up was READY, the ports only in the read note; two
iperf 2 UDP runs whose server reports hold no measure (``0.000 Bytes  -nan bits/sec ...
4294966296/0 (inf%)``) were READY on the client's rate alone; an iperf 2 UDP run whose server
counted 177 of 427 datagrams lost (41 %) was READY, the server's 210 Kbits/sec over 14 s given
as the sender's; and a ``numactl --hardware`` with six of eight nodes at ``size: 0 MB`` was READY
with the memoryless nodes unnamed."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from advisor.parsers import iperf, netif, numa
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_76"

IP_LINK = (
    "ip_link_show_pve_after_reboot_connectx6_eth_mode_5_mlx5_ports_state_down_noop_not_up_"
    "nycprodpve01_cut.txt"
)
IPERF_NAN = (
    "iperf2_2_1_udp_b2g_client_2_15gbits_server_report_0_bytes_nan_lost_4294966296_of_0_inf_"
    "two_runs_nfqlb_cut.txt"
)
IPERF_LOSS = (
    "iperf2_udp_b500k_best_effort_no_ack_of_last_datagram_server_report_177_of_427_lost_41pct_"
    "jitter_102ms_ryubook_qos_cut.txt"
)
NUMA = (
    "numactl_hardware_amd_epyc7401_8_nodes_6_memoryless_0mb_only_nodes_1_5_have_memory_quoted_"
    "lkml_slab_cut.txt"
)

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


def _kinds(ev: EvidenceFacts, kind: str) -> list[dict[str, object]]:
    return [f for f in ev.failures if f["kind"] == kind]


# --- ip link: a data-path NIC's ports left administratively down --------------------------------


def test_connectx_ports_never_brought_up_are_a_warning_naming_each() -> None:
    ev = _load(IP_LINK)
    assert ev.files[0].formats == ["netif"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nic-port-admin-down", "warning")]
    down = _kinds(ev, "nic_port_admin_down")
    assert [(d["message"], d["line"], d["host"]) for d in down] == [
        ("ens13f0np0", 12, "nyc-prod-pve-01"),
        ("ens13f1np1", 16, "nyc-prod-pve-01"),
        ("enp225s0f0np0", 20, "nyc-prod-pve-01"),
        ("enp146s0f0np0", 23, "nyc-prod-pve-01"),
        ("enp146s0f1np1", 26, "nyc-prod-pve-01"),
    ]
    (item, *_) = heldout.items(outcome, "evidence-nic-port-admin-down")
    assert item.startswith(
        "nyc-prod-pve-01: ens13f0np0: ip shows it administratively down (<BROADCAST,MULTICAST>, "
        "no UP, state DOWN), MAC 0c:42:a1:d2:03:5a ("
    )
    assert item.endswith(", line 12)")
    # eno2 (line 8), the board's second onboard port, is left down too: said, not judged
    ((_, note),) = _said(ev)
    assert "nyc-prod-pve-01: eno2 (mtu 1500): administratively down" in note


def test_the_same_ports_brought_up_stay_ready_and_another_host_is_named(tmp_path: Path) -> None:
    text = _text(IP_LINK)
    up = text.replace(
        "<BROADCAST,MULTICAST> mtu 1500 qdisc noop state DOWN",
        "<BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP",
    )
    assert up != text
    ev = _write(tmp_path, up)
    level, outcome = heldout.imported(ev)
    assert (level, heldout.above_info(outcome), ev.failures) == ("READY", [], [])

    # one port of another host left down, the others up
    other = up.replace("nyc-prod-pve-01", "gpu-node07").replace(
        "6: enp225s0f0np0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP",
        "6: enp225s0f0np0: <BROADCAST,MULTICAST> mtu 1500 qdisc noop state DOWN",
    )
    ev = _write(tmp_path, other)
    ((down),) = _kinds(ev, "nic_port_admin_down")
    assert (down["message"], down["line"], down["host"]) == ("enp225s0f0np0", 20, "gpu-node07")


def test_a_plain_port_left_down_is_still_said_only(tmp_path: Path) -> None:
    # (the project's reading kept: an onboard or plain port left down is no finding)
    text = _text(IP_LINK).replace("np0:", ":").replace("np1:", "1:")
    ev = _write(tmp_path, text)
    assert ev.failures == []
    assert heldout.imported(ev)[0] == "READY"
    assert netif.DEVLINK_PORT_NAME_RE.match("ens13f0np0")
    assert netif.DEVLINK_PORT_NAME_RE.match("enp65s0f1np1s2")  # a split port
    assert not netif.DEVLINK_PORT_NAME_RE.match("eno2")
    assert not netif.DEVLINK_PORT_NAME_RE.match("vethnp0x")


# --- iperf 2 UDP: the server's report -----------------------------------------------------------


def test_iperf2_server_reports_without_a_measure_are_a_warning_per_run() -> None:
    ev = _load(IPERF_NAN)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-iperf-server-report-invalid", "warning")]
    bad = _kinds(ev, "iperf_server_report_invalid")
    assert [b["line"] for b in bad] == [16, 34]
    assert bad[0]["message"] == "iperf 2 client 172.17.0.3 to 172.17.0.1:5001"
    assert bad[0]["exception_type"] == (
        "the server's report holds no measure (0.00-0.00 sec 0.000 Bytes -nan bits/sec "
        "131.072 ms 4294966296/0 (inf%)): what the server received is unknown, against "
        "2.15 Gbit/s sent"
    )
    assert bad[1]["message"] == "iperf 2 client 172.17.0.3 to 10.0.0.0:5001"
    assert str(bad[1]["exception_type"]).endswith("against 1.95 Gbit/s sent")
    # the client's figures as before; no loss invented from 4294966296 of 0
    (a, b) = iperf.parse(_text(IPERF_NAN))
    assert (a.sender_bps, a.seconds, b.sender_bps) == (2.15e9, 10.0, 1.95e9)
    assert a.lost_datagrams is None and a.total_datagrams is None
    assert _kinds(ev, "udp_datagrams_lost") == []


def test_a_measured_server_report_without_losses_stays_ready(tmp_path: Path) -> None:
    good = _text(IPERF_NAN).replace(
        "0.00-0.00 sec  0.000 Bytes  -nan bits/sec  131.072 ms 4294966296/0 (inf%)",
        "0.00-10.00 sec  2.50 GBytes  2.15 Gbits/sec  0.012 ms 0/1826091 (0%)",
    )
    ev = _write(tmp_path, good)
    level, outcome = heldout.imported(ev)
    assert (level, heldout.above_info(outcome)) == ("READY", [])
    (note, *_) = [m for _, m in _said(ev)]
    assert "the server's report (line 16): received 2.15 Gbit/s over 10 s, jitter 0.012 ms" in note
    assert "UDP: 0 of 1826091 datagrams lost (0 %)" in note


def test_iperf2_udp_loss_of_41_percent_is_not_ready_with_the_senders_own_rate() -> None:
    ev = _load(IPERF_LOSS)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-iperf-udp-loss", "critical")]
    ((lost),) = _kinds(ev, "udp_datagrams_lost")
    assert lost["line"] == 13
    assert lost["exception_type"] == (
        "177 of 427 UDP datagrams lost (41 %), the server received 0.21 Mbit/s over 14 s against "
        "0.5 Mbit/s sent over 10 s, jitter 102.479 ms; the client got no ack of its last "
        "datagram (line 11)"
    )
    (note, *_) = [m for _, m in _said(ev)]
    # the sender's rate and time are the client's row (line 9), not the server's (line 13)
    assert "iperf 2 client 10.0.0.3 to 10.0.0.1:5002: 10 s; sender 0.5 Mbit/s;" in note
    assert "WARNING at line 11: the client got no ack of its last datagram after 10 tries" in note


def test_a_small_loss_on_another_host_is_said_not_judged(tmp_path: Path) -> None:
    text = _text(IPERF_LOSS).replace("10.0.0.3", "10.1.2.3")
    few = text.replace("177/  427 (41%)", "  2/  427 (0.47%)")
    ev = _write(tmp_path, few)
    level, outcome = heldout.imported(ev)
    assert (level, heldout.above_info(outcome)) == ("READY", [])
    (note, *_) = [m for _, m in _said(ev)]
    assert "client 10.1.2.3 to 10.0.0.1:5002" in note
    assert "UDP: 2 of 427 datagrams lost (0.47 %)" in note
    # 30 of 427 (7 %) is over iperf.UDP_LOSS_SHARE
    ev = _write(tmp_path, text.replace("177/  427 (41%)", " 30/  427 (7%)"))
    ((lost),) = _kinds(ev, "udp_datagrams_lost")
    assert str(lost["exception_type"]).startswith("30 of 427 UDP datagrams lost (7 %)")
    assert lost["message"] == "iperf 2 client 10.1.2.3 to 10.0.0.1:5002"


# --- numactl -H: memoryless nodes ---------------------------------------------------------------


def test_six_memoryless_numa_nodes_are_a_warning_naming_each_with_its_line() -> None:
    ev = _load(NUMA)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-numa-node-memoryless", "warning")]
    nodes = _kinds(ev, "numa_node_memoryless")
    assert [(n["message"], n["line"]) for n in nodes] == [
        ("NUMA node 0", 4),
        ("NUMA node 2", 10),
        ("NUMA node 3", 13),
        ("NUMA node 4", 16),
        ("NUMA node 6", 22),
        ("NUMA node 7", 25),
    ]
    assert nodes[0]["exception_type"] == (
        "node 0: 12 CPUs, size 0 MB: every allocation of its CPUs comes from another node "
        "(memory only on node(s) 1 (31584 MB), 5 (32214 MB))"
    )
    ((line, note), _) = _said(ev)
    assert line == 2
    assert "63798 MB of memory" in note
    assert "node(s) 0, 2, 3, 4, 6, 7 have CPUs and 0 MB of memory (72 of 96 CPUs" in note


def test_numa_nodes_all_with_memory_stay_ready_and_one_memoryless_is_named(
    tmp_path: Path,
) -> None:
    text = _text(NUMA)
    full = text.replace("size: 0 MB", "size: 32000 MB").replace("free: 0 MB", "free: 31000 MB")
    ev = _write(tmp_path, full)
    level, outcome = heldout.imported(ev)
    assert (level, heldout.above_info(outcome), ev.failures) == ("READY", [], [])
    one = full.replace(">  node 6 size: 32000 MB", ">  node 6 size: 0 MB")
    ev = _write(tmp_path, one)
    ((node),) = _kinds(ev, "numa_node_memoryless")
    assert (node["message"], node["line"]) == ("NUMA node 6", 22)
    # a node of memory only (no CPUs) is another thing: not memoryless
    nodes = numa.parse(
        "available: 2 nodes (0-1)\nnode 0 cpus: 0 1\nnode 0 size: 100 MB\n"
        "node 1 cpus:\nnode 1 size: 0 MB\n"
    )
    assert numa.memoryless(nodes) == []
