"""Outputs of round JJJJ's held-out evaluation (set 646, network and node tool outputs on GPU
clusters) that the advisor read wrong or in part before this change
(tests/data/evidence_heldout_70, sources in tests/data/SOURCES.md): ``lspci -vvv | grep -i
acsctl`` with ACS peer-to-peer redirect on at 5 of 12 bridges, unknown; ethtool bond0 on two
nodes, read as one interface twice without the hosts its prompts name; and ibdev2netdev in an
SR-IOV pod whose only RDMA port's interface is Down, a warning that did not say it is the pod's
only RDMA port."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import hosts_of, load_paths
from advisor.rules.findings import RulesOutcome
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_70"

ACS = "lspci_vvv_acsctl_redirect_enabled_on_5_of_12_bridges_gdr_error4_nccl523_cut.txt"
BOND = "ethtool_bond0_two_nodes_200000mbs_link_detected_roce_bond_ucx10430.txt"
POD = "ibdev2netdev_sriov_ib_vf_net1_down_in_pod_ifconfig_sriov_network_operator382_cut.txt"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")


def _named(outcome: RulesOutcome) -> list[tuple[str, list[str]]]:
    return [(f.rule_id, [str(i) for i in f.items]) for f in outcome.findings]


_OFF = "SrcValid- TransBlk- ReqRedir- CmpltRedir- UpstreamFwd- EgressCtrl- DirectTrans-"
_KERNEL = "SrcValid+ TransBlk- ReqRedir+ CmpltRedir+ UpstreamFwd+ EgressCtrl- DirectTrans-"


# --- lspci -vvv | grep -i acsctl ------------------------------------------------------------------


def test_acsctl_lines_with_p2p_redirect_on_five_bridges_are_a_warning() -> None:
    ev = _load(ACS)
    assert ev.files[0].formats == ["lspci_acs"]
    redirects = [f for f in ev.failures if f["kind"] == "pcie_acs_redirect"]
    assert [f["line"] for f in redirects] == [2, 10, 11, 12, 13]
    assert "ReqRedir+ CmpltRedir+ (with SrcValid+ UpstreamFwd+)" in redirects[0]["exception_type"]
    assert "(with" not in redirects[1]["exception_type"]  # (line 10: the redirect bits alone)
    (note,) = heldout.said(ev)
    assert "12 ACS control line(s)" in note
    assert "P2P redirect on at 5 (lines 2, 10, 11, 12, 13)" in note
    assert "no redirect) at 2 (lines 3, 4)" in note
    assert "all off at 5" in note
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-pcie-acs-redirect", "warning")]
    items = heldout.items(outcome, "evidence-pcie-acs-redirect")
    assert len(items) == 5
    assert items[0].endswith(f"{ACS}, line 2)")


def test_acsctl_all_off_or_source_validation_alone_stays_ready(tmp_path: Path) -> None:
    # (SrcValid+ alone checks a request's bus number and redirects nothing: the healthy twin)
    text = "# lspci -vvv | grep -i acsctl\n" + "".join(
        f"\t\tACSCtl:\t{_OFF.replace('SrcValid-', 'SrcValid+') if i < 2 else _OFF}\n"
        for i in range(6)
    )
    ev = _write(tmp_path, text)
    assert ev.files[0].formats == ["lspci_acs"]
    assert ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_egress_control_alone_is_a_redirect_too(tmp_path: Path) -> None:
    # (p2pdma's pci_bridge_has_acs_redir counts P2P Egress Control with the two redirects)
    line = _OFF.replace("EgressCtrl-", "EgressCtrl+")
    ev = _write(tmp_path, f"\t\tACSCtl:\t{_OFF}\n\t\tACSCtl:\t{line}\n")
    assert [(f["line"], f["kind"]) for f in ev.failures] == [(2, "pcie_acs_redirect")]
    assert "ACS EgressCtrl+" in ev.failures[0]["exception_type"]


def _block(bdf: str, what: str, bus: tuple[int, int] | None, acs: str | None) -> str:
    text = f"{bdf} {what}\n\tControl: I/O+ Mem+ BusMaster+\n"
    if bus:
        text += (
            f"\tBus: primary=00, secondary={bus[0]:02x}, subordinate={bus[1]:02x}, sec-latency=0\n"
        )
    if acs:
        text += f"\tCapabilities: [148 v1] Access Control Services\n\t\tACSCtl:\t{acs}\n"
    return text + "\n"


def test_full_listing_names_the_bridge_in_front_of_a_gpu(tmp_path: Path) -> None:
    text = (
        _block(
            "00:01.0", "PCI bridge: PLX Technology, Inc. PEX 8747 (rev ca)", (0x03, 0x04), _KERNEL
        )
        + _block(
            "03:00.0",
            "3D controller: NVIDIA Corporation GA100 [A100 SXM4 40GB] (rev a1)",
            None,
            None,
        )
        # (a bridge to NVMe only: ACS on it costs the job nothing)
        + _block("00:02.0", "PCI bridge: PMC-Sierra Inc. Device 4128", (0x05, 0x05), _KERNEL)
        + _block(
            "05:00.0",
            "Non-Volatile memory controller: Samsung Electronics Co Ltd NVMe SSD",
            None,
            None,
        )
    )
    ev = _write(tmp_path, text)
    redirects = [f for f in ev.failures if f["kind"] == "pcie_acs_redirect"]
    assert [f["message"] for f in redirects] == [
        "00:01.0 PCI bridge: PLX Technology, Inc. PEX 8747 (rev ca)"
    ]
    assert any("no GPU or data NIC behind them" in m for m in heldout.said(ev))


def test_a_full_hgx_listing_with_acs_only_toward_nvswitch_bridges_stays_ready() -> None:
    # (set 628's healthy H100 node: redirect on at four PMC-Sierra bridges whose secondary buses
    # hold NVSwitch management functions, "Bridge: NVIDIA Corporation Device 22a3")
    ev = load_paths(
        [
            DATA
            / "evidence_heldout_68"
            / "lspci_vvv_gpud_8xh100_cx7_pex890xx_gen5_switch_ports_16gt_to_nvme_healthy.txt"
        ]
    )
    assert [f for f in ev.failures if f["kind"] == "pcie_acs_redirect"] == []
    assert any(
        "P2P redirect on at 4 with no GPU or data NIC behind them (lines 8705, 8793, 8881, 8969"
        in m
        for m in heldout.said(ev)
    )


# --- ethtool bond0 on two nodes ------------------------------------------------------------------


def test_ethtool_blocks_under_two_prompts_are_each_hosts() -> None:
    ev = _load(BOND)
    assert ev.files[0].formats == ["ethtool_settings"]
    said = heldout.said(ev)
    assert said == [
        "ethtool_settings: ethtool bond0 on node12: link detected; speed 200000Mb/s Full; auto-negotiation off",
        "ethtool_settings: ethtool bond0 on node13: link detected; speed 200000Mb/s Full; auto-negotiation off",
    ]
    assert [m.line for m in ev.files[0].messages] == [2, 21]
    assert [(h["host"], h["named"]) for h in hosts_of(ev)] == [("node12", True), ("node13", True)]
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_a_host_whose_bond_has_no_link_is_named(tmp_path: Path) -> None:
    text = (HELDOUT / BOND).read_text()
    lines = text.split("\n")
    assert lines[36].strip() == "Link detected: yes"
    lines[36] = lines[36].replace("yes", "no")
    text = "\n".join(lines).replace("node13", "gpu-b07")
    ev = _write(tmp_path, text)
    (lost,) = [f for f in ev.failures if f["kind"] == "link_carrier_lost"]
    assert (lost["host"], lost["line"]) == ("gpu-b07", 37)
    level, outcome = heldout.imported(ev)
    assert level != "READY"
    assert any(item.startswith("gpu-b07: bond0") for _, items in _named(outcome) for item in items)


def test_ethtool_without_a_prompt_names_no_host(tmp_path: Path) -> None:
    text = (HELDOUT / BOND).read_text().split("\n")
    ev = _write(tmp_path, "\n".join(text[1:18]) + "\n")
    assert heldout.said(ev) == [
        "ethtool_settings: ethtool bond0: link detected; speed 200000Mb/s Full; auto-negotiation off"
    ]
    assert [h["named"] for h in hosts_of(ev)] == [False]


# --- ibdev2netdev in an SR-IOV pod, its only RDMA port Down --------------------------------------


def test_the_pods_only_rdma_port_down_is_said_so() -> None:
    ev = _load(POD)
    (port,) = ev.hca_ports
    assert (port["ca"], port["port"], port["netdev"], port["line"]) == ("mlx5_3", 1, "net1", 2)
    assert port["netdev_up"] is False
    assert port["no_netdev_up_on_host"] is True
    level, outcome = heldout.imported(ev)
    # warning, not failure: ibdev2netdev's "(Down)" is the netdev's carrier, and an IPoIB
    # interface left administratively down reads so over an Active IB port
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-hca-netdev-down", "warning")]
    (item,) = heldout.items(outcome, "evidence-hca-netdev-down")
    assert item.startswith(
        "sample-pod-4-5bddf8c4b4-hf49j: mlx5_3 port 1 ==> net1 (Down), the only RDMA port "
        "listed there ("
    )
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-hca-netdev-down"]
    assert "has no RDMA path at all" in finding.message


def test_a_host_with_one_port_up_is_not_said_to_have_none(tmp_path: Path) -> None:
    text = (
        (HELDOUT / POD)
        .read_text()
        .replace(
            "mlx5_3 port 1 ==> net1 (Down)\n",
            "mlx5_3 port 1 ==> net1 (Down)\nmlx5_4 port 1 ==> net2 (Up)\n",
        )
    )
    ev = _write(tmp_path, text)
    assert [p.get("no_netdev_up_on_host") for p in ev.hca_ports] == [None, None]
    _, outcome = heldout.imported(ev)
    (item,) = heldout.items(outcome, "evidence-hca-netdev-down")
    assert "the only RDMA port" not in item
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-hca-netdev-down"]
    assert "no RDMA path" not in finding.message


def test_two_down_ports_of_another_pod_are_both_named(tmp_path: Path) -> None:
    text = (
        (HELDOUT / POD)
        .read_text()
        .replace("sample-pod-4-5bddf8c4b4-hf49j", "trainer-0")
        .replace(
            "mlx5_3 port 1 ==> net1 (Down)\n",
            "mlx5_6 port 1 ==> net1 (Down)\nmlx5_7 port 1 ==> net2 (Down)\n",
        )
    )
    ev = _write(tmp_path, text)
    _, outcome = heldout.imported(ev)
    items = heldout.items(outcome, "evidence-hca-netdev-down")
    assert [i.split(" (", 1)[0] for i in items] == [
        "trainer-0: mlx5_6 port 1 ==> net1",
        "trainer-0: mlx5_7 port 1 ==> net2",
    ]
    assert all("none of the 2 RDMA ports listed there up" in i for i in items)


def test_the_healthy_twin_with_its_port_up_stays_ready(tmp_path: Path) -> None:
    ev = _write(tmp_path, (HELDOUT / POD).read_text().replace("(Down)", "(Up)"))
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
