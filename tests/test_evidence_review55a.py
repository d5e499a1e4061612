"""Review 55 of round JJJJ (sets 643-648), faults 1, 3 and 6: ACS redirect on CPU root ports
(what Linux sets once an IOMMU is on) read as a warning; ubergemm run over pdsh on two hosts,
its slow GPU missed or named with no host; ``ethtool bond0`` and ``ibdev2netdev`` over pdsh not
read at all: each on its input (tests/data/review55, described in tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, hosts_of, load_paths
from advisor.parsers import dcgm, ethtool, lspci
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review55"
HELDOUT62 = DATA / "evidence_heldout_62"
HELDOUT68 = DATA / "evidence_heldout_68"
HELDOUT70 = DATA / "evidence_heldout_70"

_write = partial(heldout.load_copy, name="copy.txt")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


def _kinds(ev: EvidenceFacts) -> list[tuple[str, int, str | None]]:
    return [(f["kind"], f["line"], f.get("host")) for f in ev.failures]


# --- 1. ACS redirect on root ports: the kernel's default under an IOMMU -----------------------

ROOT_PORTS_ACS = (
    "lspci_vvv_full_dell_2x_tesla_p100_acsctl_kernel_iommu_redirect_on_9_root_ports.txt"
)
P100 = "lspci_vvv_full_dell_2x_tesla_p100_gen3x16_ok_x520_root_ports_downgraded_cmlgpu.txt"
H100 = "lspci_vvv_gpud_8xh100_cx7_pex890xx_gen5_switch_ports_16gt_to_nvme_healthy.txt"
_OFF = "SrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-"
# (drivers/pci/pci.c pci_std_enable_acs: SV, RR, CR and UF where the port has them)
_KERNEL = "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-"


def test_acs_redirect_on_root_ports_alone_is_a_note_and_ready() -> None:
    ev = _load(ROOT_PORTS_ACS)
    assert not [f for f in ev.failures if f["kind"] == "pcie_acs_redirect"]
    acs = lspci.parse_acs((REVIEW / ROOT_PORTS_ACS).read_text())
    assert [a.line for a in acs if a.root_port and a.redirect] == [
        99, 181, 256, 331, 413, 2004, 2086, 2168, 2250
    ]  # fmt: skip
    (said,) = [m for _, m in heldout.notes(ev) if "ACS control line(s)" in m]
    assert "P2P redirect on at 9 root port(s) (lines 99, 181, 256" in said
    assert "P2P redirect on at 9 (" not in said  # (none counted as a redirecting bridge)
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert "evidence-pcie-acs-redirect" not in [r for r, _ in heldout.above_info(outcome)]


def test_the_real_p100_listing_it_was_built_from_still_reads_ready() -> None:
    ev = _load(P100, HELDOUT62)
    assert not [f for f in ev.failures if f["kind"] == "pcie_acs_redirect"]
    (said,) = [m for _, m in heldout.notes(ev) if "ACS control line(s)" in m]
    assert said.endswith("9 ACS control line(s) (ACSCtl); all off at 9")
    assert heldout.imported(ev)[0] == "READY"


def test_acs_redirect_on_switch_downstream_ports_above_gpus_still_warns(tmp_path: Path) -> None:
    # set 628's H100 node with the kernel's ACS set on every root and downstream port, as an
    # IOMMU would have it: the PEX890xx downstream ports in front of GPUs and NICs redirect
    # peer traffic that would cross the switch; the root ports above them are spared
    text = (HELDOUT68 / H100).read_text()
    kernel = text.replace(f"ACSCtl:\t{_OFF}", f"ACSCtl:\t{_KERNEL}")
    ev = _write(tmp_path, kernel)
    flagged = [f for f in ev.failures if f["kind"] == "pcie_acs_redirect"]
    assert flagged
    assert all("PEX890xx" in f["message"] for f in flagged)
    assert not any("Device 352a" in f["message"] for f in flagged)  # (Intel's root ports)
    (said,) = [m for _, m in heldout.notes(ev) if "ACS control line(s)" in m]
    # (177 and 268 had SrcValid+ alone, left as they were)
    assert "root port(s) (lines 870, 2154, 3077, 4026" in said
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert ("evidence-pcie-acs-redirect", "warning") in heldout.above_info(outcome)


def test_a_bridge_of_unknown_port_type_or_a_downstream_port_still_counts(tmp_path: Path) -> None:
    def block(bdf: str, what: str, bus: tuple[int, int] | None, port: str, acs: str | None) -> str:
        text = f"{bdf} {what}\n"
        if bus:
            text += f"\tBus: primary=00, secondary={bus[0]:02x}, subordinate={bus[1]:02x}\n"
        if port:
            text += f"\tCapabilities: [40] Express (v2) {port}, MSI 00\n"
        if acs:
            text += f"\tCapabilities: [148 v1] Access Control Services\n\t\tACSCtl:\t{acs}\n"
        return text + "\n"

    gpu = "3D controller: NVIDIA Corporation GA100 [A100 SXM4 40GB] (rev a1)"
    text = (
        block("00:01.0", "PCI bridge: Intel Root Port", (0x01, 0x04), "Root Port (Slot-)", _KERNEL)
        + block("01:00.0", "PCI bridge: PLX PEX 8747", (0x02, 0x04), "Upstream Port", None)
        + block("02:08.0", "PCI bridge: PLX PEX 8747", (0x03, 0x03), "Downstream Port (Slot+)", _KERNEL)
        + block("03:00.0", gpu, None, "Endpoint", None)
        # (no Express line: the copy does not say it is a root port)
        + block("00:02.0", "PCI bridge: Some bridge", (0x05, 0x05), "", _KERNEL)
        + block("05:00.0", gpu, None, "Endpoint", None)
    )  # fmt: skip
    ev = _write(tmp_path, text)
    assert [f["message"] for f in ev.failures if f["kind"] == "pcie_acs_redirect"] == [
        "02:08.0 PCI bridge: PLX PEX 8747",
        "00:02.0 PCI bridge: Some bridge",
    ]
    # a grepped copy (no headings) says nothing of the port: still a redirect
    ev = _write(tmp_path, f"\t\tACSCtl:\t{_KERNEL}\n")
    assert [f["kind"] for f in ev.failures] == ["pcie_acs_redirect"]


# --- 3. ubergemm over pdsh on two hosts ---------------------------------------------------------

INTERLEAVED = "ubergemm_pdsh_node_a_node_b_interleaved_node_a_adapter0_6698_gflops.txt"
GROUPED = "ubergemm_pdsh_node_a_node_b_grouped_node_b_adapter0_6698_gflops.txt"
UBERGEMM = "dcgm_nvvs_ubergemm_8x_a100_dgx_adapter0_6698_gflops_vs_19100_others_dcgm122.txt"


def test_interleaved_pdsh_lines_are_each_hosts_run_and_node_a_gpu0_is_slow() -> None:
    ev = _load(INTERLEAVED)
    assert _kinds(ev) == [("gpu_compute_low", 2, "node-a")]
    assert ev.failures[0]["exception_type"].startswith("GPU 0 (ADAPTER#0): 6698 GFlops, 35% of")
    runs = dcgm.parse_ubergemm((REVIEW / INTERLEAVED).read_text())
    assert [(r[0].host, len(r)) for r in runs] == [("node-a", 8), ("node-b", 8)]
    assert not any("too few to weigh" in m for _, m in heldout.notes(ev))
    assert [h["host"] for h in hosts_of(ev)] == ["node-a", "node-b"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-gpu-compute-low", "critical")]
    (item,) = heldout.items(outcome, "evidence-gpu-compute-low")
    assert item.startswith("node-a: GPU 0 (ADAPTER#0): 6698 GFlops")


def test_grouped_pdsh_output_names_node_b() -> None:
    ev = _load(GROUPED)
    assert _kinds(ev) == [("gpu_compute_low", 9, "node-b")]
    assert [h["host"] for h in hosts_of(ev)] == ["node-a", "node-b"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-gpu-compute-low")
    assert item.startswith("node-b: GPU 0 (ADAPTER#0): 6698 GFlops")
    assert any(m.startswith("ubergemm: node-a: GPU(s) 0, 1, 2") for _, m in heldout.notes(ev))


def test_the_real_one_host_run_still_reads_as_before() -> None:
    ev = _load(UBERGEMM, HELDOUT70)
    assert _kinds(ev) == [("gpu_compute_low", 2, None)]
    (item,) = heldout.items(heldout.imported(ev)[1], "evidence-gpu-compute-low")
    assert item.startswith("GPU 0 (ADAPTER#0): 6698 GFlops, 35% of the run's median")


def test_pdsh_by_address_and_a_host_run_twice(tmp_path: Path) -> None:
    rows = (HELDOUT70 / UBERGEMM).read_text().splitlines()[1:]
    healthy = [r.replace("6698.442948608", "19201.11") for r in rows]
    # two hosts by address, interleaved; 10.0.0.12 runs twice, its GPU 3 slow in the second run
    second = [r.replace("19256.40617984", "9000.5") for r in healthy]
    lines = [
        f"{h}: {r}"
        for pair in zip(healthy, healthy, strict=True)
        for h, r in zip(("10.0.0.11", "10.0.0.12"), pair, strict=True)
    ] + [f"10.0.0.12: {r}" for r in second]
    ev = _write(tmp_path, "\n".join(lines) + "\n")
    assert [(f["host"], f["device"]) for f in ev.failures] == [("10.0.0.12", 3)]
    # one host's healthy rows only, each led by its host: no finding, the host named
    ev = _write(tmp_path, "".join(f"gpu-07: {r}\n" for r in healthy))
    assert not ev.failures
    assert any(m.startswith("ubergemm: gpu-07: GPU(s) 0, 1, 2") for _, m in heldout.notes(ev))


# --- 6. ethtool bond0 and ibdev2netdev over pdsh ------------------------------------------------

ETHTOOL_PDSH = "ethtool_bond0_pdsh_node12_node13_prefixed_node13_link_not_detected.txt"
BOND = "ethtool_bond0_two_nodes_200000mbs_link_detected_roce_bond_ucx10430.txt"
IBDEV_PDSH = "ibdev2netdev_pdsh_node1_ib0_down_node2_ib0_up.txt"
POD = "ibdev2netdev_sriov_ib_vf_net1_down_in_pod_ifconfig_sriov_network_operator382_cut.txt"


def test_ethtool_over_pdsh_is_read_per_host_and_node13s_link_is_down() -> None:
    ev = _load(ETHTOOL_PDSH)
    assert ev.files[0].formats == ["ethtool_settings"]
    assert _kinds(ev) == [("link_carrier_lost", 35, "node13")]
    assert [h["host"] for h in hosts_of(ev)] == ["node12", "node13"]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-link-carrier-lost")
    assert item.startswith("node13: bond0: ethtool says Link detected: no (speed Unknown!)")
    blocks = ethtool.parse_settings((REVIEW / ETHTOOL_PDSH).read_text())
    assert [(b.host, b.speed, b.link_detected) for b in blocks] == [
        ("node12", "200000Mb/s", True),
        ("node13", "Unknown!", False),
    ]


def test_the_real_two_prompt_bond0_file_still_reads_ready_per_host() -> None:
    ev = _load(BOND, HELDOUT70)
    assert not ev.failures
    assert [h["host"] for h in hosts_of(ev)] == ["node12", "node13"]
    assert heldout.imported(ev)[0] == "READY"


def test_ethtool_pdsh_lines_interleaved_or_by_address(tmp_path: Path) -> None:
    text = (REVIEW / ETHTOOL_PDSH).read_text().splitlines()[1:]
    a, b = text[:17], text[17:]
    # pdsh prints the hosts' lines as they come: the two blocks interleaved
    mixed = [line for pair in zip(a, b, strict=True) for line in pair]
    ev = _write(tmp_path, "\n".join(mixed) + "\n")
    assert [(f["kind"], f["host"]) for f in ev.failures] == [("link_carrier_lost", "node13")]
    # by address: numbered_lines takes "10.0.0.13: " off, the host still read from the line
    by_ip = [line.replace("node12", "10.0.0.12").replace("node13", "10.0.0.13") for line in text]
    blocks = ethtool.parse_settings("\n".join(by_ip) + "\n")
    assert [(x.host, x.link_detected) for x in blocks] == [
        ("10.0.0.12", True),
        ("10.0.0.13", False),
    ]
    # pdsh's blocks, then a prompt and a plain block of its own: that one read as well
    plain = (HELDOUT70 / BOND).read_text().split("\n\n")[1]
    blocks = ethtool.parse_settings("\n".join(text) + "\n" + plain)
    assert [(x.host, x.link_detected) for x in blocks] == [
        ("node12", True),
        ("node13", False),
        ("node13", True),
    ]
    # both up: no finding
    up = "\n".join(text).replace("Link detected: no", "Link detected: yes")
    assert not _write(tmp_path, up + "\n").failures


def test_ibdev2netdev_over_pdsh_names_node1s_only_port_down() -> None:
    ev = _load(IBDEV_PDSH)
    assert ev.files[0].formats == ["rdma"]
    ports = [(p["host"], p["ca"], p["netdev"], p["netdev_up"]) for p in ev.hca_ports]
    assert ports == [("node1", "mlx5_0", "ib0", False), ("node2", "mlx5_0", "ib0", True)]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-hca-netdev-down")
    assert item.startswith("node1: mlx5_0 port 1 ==> ib0 (Down), the only RDMA port listed there")


def test_the_real_pod_listing_still_reads_as_before(tmp_path: Path) -> None:
    ev = _load(POD, HELDOUT70)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-hca-netdev-down")
    assert "mlx5_3 port 1 ==> net1 (Down), the only RDMA port listed there" in item
    # two hosts' rows through pdsh, node2 with a second port Up: only node1's is its only one
    rows = "node1: mlx5_3 port 1 ==> net1 (Down)\nnode2: mlx5_3 port 1 ==> net1 (Down)\n"
    rows += "node2: mlx5_4 port 1 ==> net2 (Up)\n"
    ev = _write(tmp_path, rows)
    assert [(p["host"], p["no_netdev_up_on_host"]) for p in ev.hca_ports] == [
        ("node1", True),
        ("node2", None),
        ("node2", None),
    ]
