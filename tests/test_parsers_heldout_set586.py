"""Outputs of round ZZZ's held-out evaluation (set 586) that the advisor read wrong before this
change (tests/data/evidence_heldout_62, sources in tests/data/SOURCES.md): ethtool -i's driver
answer, ibstat listings whose every port is Down, an iperf3 client that reached no server, and
perftest's own port not active."""

from __future__ import annotations

from functools import partial

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_62"


_load = partial(heldout.load, HELDOUT)


def _flagged(ev: EvidenceFacts) -> set[str]:
    """The rules that warn or fail on the import (sweep's info findings left out)."""
    return {k for k, f in heldout.found(ev).items() if f.severity in ("critical", "warning")}


def test_ethtool_i_alone_is_read_as_the_ports_driver() -> None:
    ev = _load("ethtool_i_be2net_11.4.0.0_fw4.9.311.20.txt")
    assert ev.files[0].formats == ["ethtool_driver"] and ev.files[0].status == "read"
    assert heldout.said(ev) == [
        "ethtool_driver: ethtool -i eth0: driver be2net, version 11.4.0.0, firmware 4.9.311.20, "
        "bus 0000:04:00.0"
    ]
    assert not ev.failures and not _flagged(ev)


def test_ibstat_whose_only_hca_has_every_port_down_is_critical() -> None:
    ev = _load("ibstat_mlx4_mt4099_fw2.42.5000_port1_down_polling_port2_eth_disabled.txt")
    found = heldout.found(ev)
    assert _flagged(ev) == {"evidence-hca-host-all-ports-down"}
    down = found["evidence-hca-host-all-ports-down"]
    assert down.severity == "critical"
    assert down.items == [
        "mlx4_0 port 1: Down (physical state Polling), InfiniBand: no link "
        f"({HELDOUT / 'ibstat_mlx4_mt4099_fw2.42.5000_port1_down_polling_port2_eth_disabled.txt'}"
        ", line 10)",
        "mlx4_0 port 2: Down (physical state Disabled), Ethernet: no link "
        f"({HELDOUT / 'ibstat_mlx4_mt4099_fw2.42.5000_port1_down_polling_port2_eth_disabled.txt'}"
        ", line 20)",
    ]


def test_a_linked_up_port_left_down_is_not_called_uncabled() -> None:
    ev = _load("ibstat_mt4124_vf_mlx5_7_state_down_physical_linkup_lid65535.txt")
    (port,) = ev.hca_ports
    assert (port["ca"], port["base_lid"], port["sm_lid"], port["host"]) == (
        "mlx5_7",
        65535,
        1,
        "test-sriov-ib-pod",
    )
    found = heldout.found(ev)
    assert _flagged(ev) == {"evidence-hca-host-all-ports-down"}
    (item,) = found["evidence-hca-host-all-ports-down"].items
    assert item.startswith(
        "test-sriov-ib-pod: mlx5_7 port 1: Down (physical state LinkUp), InfiniBand: its link is "
        "up, but the port was not let up (base lid 65535: no LID given)"
    )
    assert "line 10)" in item and "uncabled" not in item


def test_iperf3_client_that_reached_no_server_is_a_failure() -> None:
    ev = _load("iperf3_3.10.1_client_unable_to_connect_timed_out.txt")
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"], fail["library"]) == ("iperf_unreached", 1, "iperf3")
    assert fail["exception_type"] == (
        "the client reached no host at the server (the copy does not name it): nothing was measured"
    )
    found = heldout.found(ev)
    assert _flagged(ev) == {"evidence-iperf3-unreached"}
    assert found["evidence-iperf3-unreached"].severity == "critical"


def test_iperf3_refused_names_its_server_and_stays_a_warning() -> None:
    from advisor.evidence.load import load_text

    ev = load_text(
        "$ iperf3 -c 10.0.0.9 -t 10\n"
        "iperf3: error - unable to connect to server: Connection refused\n",
        "refused.txt",
    )
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"]) == ("iperf_failed", 2)
    assert "the server 10.0.0.9" in fail["exception_type"]
    assert _flagged(ev) == {"evidence-iperf3-failed"}


def test_perftests_own_port_down_is_critical_and_says_it_is_the_local_port() -> None:
    ev = _load("perftest_ib_send_lat_port1_down_couldnt_get_context_quoted.txt")
    (port,) = ev.hca_ports
    assert port["perftest"]["port_not_active"] == "Down"
    found = heldout.found(ev)
    assert "evidence-rdma-perftest-failed" not in found
    hit = found["evidence-rdma-perftest-port-not-active"]
    assert hit.severity == "critical"
    (item,) = hit.items
    assert item.startswith(
        "the local host's RDMA device (not named in the copy: perftest's -d, or the first device "
        "it finds) port 1: perftest: Port number 1 state is Down ("
    )
    assert item.endswith(", line 1)")
