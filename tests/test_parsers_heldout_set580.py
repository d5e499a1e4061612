"""Outputs of round YYY's held-out evaluation (set 580) that the advisor read wrong before this
change (tests/data/evidence_heldout_62, sources in tests/data/SOURCES.md): a host whose only
InfiniBand port waits for a subnet manager, ConnectX-5 ports active at FDR beside EDR ones,
perftest on a device that would not answer its attributes, and a full lspci -vvv whose root
ports, empty slots and 1 GbE NICs were counted as narrow links."""

from __future__ import annotations

from functools import partial

from advisor.evidence.load import EvidenceFacts
from advisor.parsers import lspci, rdma
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_62"


_load = partial(heldout.load, HELDOUT)


def _severities(ev: EvidenceFacts) -> dict[str, str]:
    found = heldout.found(ev).items()
    return {rule: f.severity for rule, f in found if f.severity in ("critical", "warning")}


def test_a_hosts_only_ib_port_waiting_for_a_subnet_manager_is_not_ready() -> None:
    ev = _load("ibstat_mlx4_cx3_qdr40_initializing_sm_lid0_plus_port_guids_cluster_ansible.txt")
    (port,) = ev.hca_ports
    assert (port["ca"], port["state"], port["physical_state"], port["sm_lid"]) == (
        "mlx4_0",
        "Initializing",
        "LinkUp",
        0,
    )
    assert port["no_active_on_host"] is True
    found = heldout.found(ev)
    assert _severities(ev) == {"evidence-hca-host-no-active-port": "critical"}
    (item,) = found["evidence-hca-host-no-active-port"].items
    assert item.startswith(
        "mlx4_0 port 1: Initializing (physical state LinkUp), InfiniBand, SM lid 0: no subnet "
        "manager has configured it ("
    )
    assert item.endswith("line 9)")


def test_no_active_port_is_judged_per_host_and_on_whole_listings_only() -> None:
    block = (
        "CA '{ca}'\n\tCA type: MT4099\n\tPort 1:\n\t\tState: {state}\n\t\tPhysical state: "
        "{phys}\n\t\tRate: 40\n\t\tBase lid: 0\n\t\tSM lid: 0\n\t\tLink layer: InfiniBand\n"
    )
    waiting = block.format(ca="mlx4_0", state="Initializing", phys="LinkUp")
    # another host's active port beside it: the waiting host is still without one
    two = (
        "[root@node1 ~]# ibstat\n"
        + waiting
        + "[root@node2 ~]# ibstat\n"
        + block.format(ca="mlx4_0", state="Active", phys="LinkUp")
    )
    ports, _ = rdma.parse(two)
    assert [(p.host, p.no_active_on_host) for p in ports] == [("node1", True), ("node2", None)]
    # an active port beside it on the same host: a spare port, the warning's
    ports, _ = rdma.parse(waiting + block.format(ca="mlx4_1", state="Active", phys="LinkUp"))
    assert [p.no_active_on_host for p in ports] == [None, None]
    # every port down with no link up (no cable in): nothing says the host should use them
    ports, _ = rdma.parse(block.format(ca="mlx4_0", state="Down", phys="Polling"))
    assert ports[0].no_active_on_host is None
    # a listing of one named device is not the host's every port
    ports, _ = rdma.parse("$ ibstat mlx4_0\n" + waiting)
    assert ports[0].no_active_on_host is None


def test_connectx5_ports_at_fdr_beside_edr_ones_are_named() -> None:
    ev = _load("ibstat_8ca_cx3_eth_cx5_edr100_fdr56_mixed_sm_lids_pytorch_cuda_mpi_error.txt")
    slower = {
        p["ca"]: (p["rate_gbps"], p["sibling_rate_gbps"], p["sm_lid"], p["sibling_sm_lid"])
        for p in ev.hca_ports
        if p.get("sibling_rate_gbps")
    }
    assert slower == {
        "mlx5_1": (56.0, 100.0, 43, 10),
        "mlx5_5": (56.0, 100.0, 344, 10),
        "mlx5_7": (56.0, 100.0, 43, 10),
    }
    assert _severities(ev) == {"evidence-hca-rate-below-siblings": "warning"}
    items = heldout.found(ev)["evidence-hca-rate-below-siblings"].items
    assert items[0].startswith(
        "mlx5_1 port 1 (MT4119): 56 Gb/s, against 100; SM lid 43, the faster ports' 10 "
        "(another subnet) ("
    )
    # (the Ethernet ports, ConnectX-3's 10 and ConnectX-5's 100, are no InfiniBand rail)
    assert not any("mlx4_0" in i or "mlx5_3" in i for i in items)


def test_perftest_on_a_device_that_would_not_answer_its_attributes_is_not_ready() -> None:
    ev = _load(
        "ib_write_bw_server_and_client_couldnt_get_device_attributes_create_qp_failed_kernel51_libfabric5149.txt"
    )
    runs = [(p["ca"], p["perftest"]["peer"], p["perftest"]["failed_line"]) for p in ev.hca_ports]
    assert runs == [("mlx5_0", None, 5), ("mlx5_0", "10.6.0.213", 11)]
    assert all(p["perftest"]["device_unanswered"] for p in ev.hca_ports)
    found = heldout.found(ev)
    assert found["evidence-rdma-perftest-device-unanswered"].severity == "critical"
    assert "evidence-rdma-perftest-failed" not in found
    server, client = found["evidence-rdma-perftest-device-unanswered"].items
    assert server.startswith(
        "mlx5_0 port 1: ib_write_bw: Couldn't get device attributes, then Unable to create QP. ("
    )
    assert server.endswith("line 5)") and client.endswith("line 11)")
    assert client.startswith("mlx5_0 port 1: ib_write_bw to 10.6.0.213: Couldn't get device")


def test_a_qp_that_could_not_be_created_alone_stays_a_warning() -> None:
    # (a QP refused for the test's own options, an inline size or a QP type the device does
    # not offer, says nothing of the device's other use)
    (port,), _ = rdma.parse_perftest(
        "$ ib_write_lat -d irdma0\n* Waiting for client to connect... *\nUnable to create QP.\n"
        "Failed to create QP.\n Couldn't create IB resources\n"
    )
    assert port.perftest is not None
    assert (port.perftest.failed, port.perftest.failed_line) == ("Unable to create QP.", 3)
    assert port.perftest.device_unanswered is False


def test_root_ports_empty_slots_and_1gbe_nics_are_no_narrow_data_links() -> None:
    name = "lspci_vvv_full_dell_2x_tesla_p100_gen3x16_ok_x520_root_ports_downgraded_cmlgpu.txt"
    ev = _load(name)
    assert not [f for f in ev.failures if f["kind"] == "pcie_link_narrow"]
    assert not [f for f in heldout.found(ev).values() if f.severity in ("critical", "warning")]
    said = heldout.said(ev)
    gpus = [s for s in said if "Tesla P100" in s]
    assert len(gpus) == 2
    assert all(s.endswith("PCIe link 8GT/s x16 against its 8GT/s x16 capability") for s in gpus)
    spared = {
        s.split(": ", 3)[2][:7]: s.rsplit("no loss to a job: ", 1)[1]
        for s in said
        if "no loss" in s
    }
    assert spared == {
        "00:03.0": "the link to 02:00.0, whose own link lines judge it",
        "00:03.1": "the link to 01:00.0, whose own link lines judge it",
        "00:03.2": "no link trained (x0): an empty slot, or a device that is not there",
        "00:1c.0": "no link trained (x0): an empty slot, or a device that is not there",
        "01:00.0": "a 1 Gb/s NIC: even one lane outruns its ports",
        "01:00.1": "a 1 Gb/s NIC: even one lane outruns its ports",
        "02:00.0": "a 1 Gb/s NIC: even one lane outruns its ports",
        "02:00.1": "a 1 Gb/s NIC: even one lane outruns its ports",
        "80:01.0": "the link to 81:00.0, whose own link lines judge it",
        "80:03.2": "the link to 84:00.0, whose own link lines judge it",
    }
    links = {link.device[:7]: link for link in lspci.parse((HELDOUT / name).read_text())}
    assert (links["80:03.0"].below, links["80:03.0"].job_data) == ("83:00.0", True)
    assert links["04:00.0"].job_data is True and links["81:00.0"].job_data is False


def test_a_narrow_data_nic_or_gpu_behind_a_narrow_switch_still_counts() -> None:
    text = (
        "03:00.0 PCI bridge: PLX Technology, Inc. PEX 8747 48-Lane PCI Express Gen 3 Switch\n"
        "\tBus: primary=03, secondary=04, subordinate=06, sec-latency=0\n"
        "\tCapabilities: [68] Express (v2) Upstream Port, MSI 00\n"
        "\t\tLnkCap:\tPort #0, Speed 8GT/s, Width x16, ASPM L1\n"
        "\t\tLnkSta:\tSpeed 8GT/s (ok), Width x8 (downgraded)\n"
        "05:00.0 Infiniband controller: Mellanox Technologies MT28908 Family [ConnectX-6]\n"
        "\tCapabilities: [60] Express (v2) Endpoint, MSI 00\n"
        "\t\tLnkCap:\tPort #0, Speed 16GT/s, Width x16, ASPM not supported\n"
        "\t\tLnkSta:\tSpeed 16GT/s (ok), Width x8 (downgraded)\n"
        "06:00.0 Ethernet controller: Intel Corporation 82599ES 10-Gigabit SFI/SFP+ Network Connection\n"
        "\tCapabilities: [a0] Express (v2) Endpoint, MSI 00\n"
        "\t\tLnkCap:\tPort #0, Speed 5GT/s, Width x8, ASPM L0s\n"
        "\t\tLnkSta:\tSpeed 5GT/s (ok), Width x4 (downgraded)\n"
    )
    links = lspci.parse(text)
    assert [(link.job_data, link.one_gigabit) for link in links] == [
        (True, False),
        (True, False),
        (True, False),
    ]
    # a grepped copy with no headings: not known, judged as before
    (link,) = lspci.parse(
        "\t\tLnkCap:\tSpeed 8GT/s, Width x16\n\t\tLnkSta:\tSpeed 8GT/s, Width x8\n"
    )
    assert (link.job_data, link.below, link.width_downgraded) == (None, None, True)
