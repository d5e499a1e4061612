"""Outputs of round MMMM's held-out evaluation (set 664, network and node tool outputs on GPU
clusters) that the advisor read wrong or in part before this change
(tests/data/evidence_heldout_73, sources in tests/data/SOURCES.md): AMD-SMI's AINIC view of a
NIC whose netdev has no carrier and whose RDMA port is DOWN, left unread; an iperf3 client
refused by the server's host whose command gave -p a port range iperf3 does not take."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import detect
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_73"

AINIC = (
    "amd_smi_ainic_ionic_enp229s0_link_down_carrier0_rdma_rocep229s0_port_down_"
    "rocm_systems3654_cut.txt"
)
IPERF = "iperf3_3_17_1_unable_to_connect_to_server_connection_refused_port_range_iperf1751.txt"


_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")


# --- AMD-SMI AINIC: enp229s0 no carrier, rocep229s0 port 1 DOWN ----------------------------------


def test_ainic_down_port_is_read_and_named_with_its_netdev_link() -> None:
    assert detect(_text(AINIC)) == ["amd_smi_nic"]
    ev = _load(AINIC)
    (port,) = ev.hca_ports
    assert (port["ca"], port["port"], port["state"], port["state_line"]) == (
        "rocep229s0",
        1,
        "DOWN",
        38,
    )
    assert port["active"] is False and port["netdev"] == "enp229s0"
    assert port["link_layer"] == "Ethernet" and port["rate_gbps"] is None
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-hca-port-not-active", "warning")]
    _, (item,) = heldout.finding(outcome, "evidence-hca-port-not-active")
    assert item.startswith("rocep229s0 port 1: DOWN, Ethernet, netdev enp229s0 (")
    assert "CARRIER 0 (line 19)" in item and "LINK_STATE down (line 21)" in item
    assert "LINK_SPEED 0 Mb/s (line 22)" in item and "no physical link" in item
    assert item.endswith("line 38)")


def test_ainic_another_device_and_netdev_down(tmp_path: Path) -> None:
    text = _text(AINIC).replace("enp229s0", "enp9s0").replace("rocep229s0", "rocep9s0")
    text = text.replace("PORT_NUM: 1", "PORT_NUM: 2")
    ev = _write(tmp_path, text)
    (port,) = ev.hca_ports
    assert (port["ca"], port["port"], port["netdev"]) == ("rocep9s0", 2, "enp9s0")
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    _, (item,) = heldout.finding(outcome, "evidence-hca-port-not-active")
    assert item.startswith("rocep9s0 port 2: DOWN, Ethernet, netdev enp9s0 (CARRIER 0 (line 19)")


def test_ainic_healthy_twin_stays_ready(tmp_path: Path) -> None:
    # the same NIC with its link up at 400 Gb/s and its RDMA port ACTIVE: nothing to say
    text = (
        _text(AINIC)
        .replace("CARRIER: 0", "CARRIER: 1")
        .replace("LINK_STATE: down", "LINK_STATE: up")
        .replace("LINK_SPEED: 0 Mb/s", "LINK_SPEED: 400000 Mb/s")
        .replace("STATE: DOWN", "STATE: ACTIVE")
    )
    ev = _write(tmp_path, text)
    (port,) = ev.hca_ports
    assert port["active"] is True and port["rate_gbps"] == 400.0
    assert heldout.imported(ev)[0] == "READY"


def test_ainic_netdev_without_rdma_device_is_said_not_invented(tmp_path: Path) -> None:
    # the copy cut before RDMA_DEVICES: the netdev's link is said in a note, no port made up
    head = _text(AINIC).split("        RDMA_DEVICES:")[0]
    ev = _write(tmp_path, head)
    assert not ev.hca_ports
    (report,) = ev.files
    assert report.formats == ["amd_smi_nic"]
    notes = [m.message for m in report.messages]
    assert any(
        "NIC port enp229s0: CARRIER 0 (line 19), LINK_STATE down (line 21)" in n for n in notes
    )


# --- iperf3 3.17.1: Connection refused, -p 5201-5203 ------------------------------------------------


def test_iperf3_refused_names_the_port_range_iperf3_read_as_one_port() -> None:
    ev = _load(IPERF)
    (failure,) = ev.failures
    assert failure["kind"] == "iperf_failed" and failure["line"] == 3
    why = failure["exception_type"]
    assert why.startswith("the test with the server iperf.biznetnetworks.com (port 5201)")
    assert "-p 5201-5203 (line 1) is not one port" in why
    assert "only port 5201 was tried" in why
    level, outcome = heldout.imported(ev)
    # kept a warning against the judge's failure: the host answered with a refusal (no iperf3
    # listening on 5201), the test's set-up failed, not the path (rule evidence-iperf3-failed)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-iperf3-failed", "warning")]
    _, (item,) = heldout.finding(outcome, "evidence-iperf3-failed")
    assert "-p 5201-5203" in item and "line 3)" in item


def test_iperf3_other_range_and_long_option(tmp_path: Path) -> None:
    text = _text(IPERF).replace("-p 5201-5203", "--port 9000-9009")
    (failure,) = _write(tmp_path, text).failures
    assert "(port 9000)" in failure["exception_type"]
    assert "-p 9000-9009 (line 1)" in failure["exception_type"]


def test_iperf3_one_port_says_nothing_of_a_range(tmp_path: Path) -> None:
    text = _text(IPERF).replace("-p 5201-5203", "-p 5202")
    (failure,) = _write(tmp_path, text).failures
    assert "not one port" not in failure["exception_type"]
    assert heldout.imported(_write(tmp_path, text))[0] == "READY WITH WARNINGS"
