"""Outputs of round AAAA's held-out set 592 (tests/data/evidence_heldout_63, sources in
tests/data/SOURCES.md): RDMA port listings with some ports down, and Soft-RoCE perftest runs.

A port down beside active ones stays a warning (a port may be left uncabled on purpose) unless
the copy ties it to the job: here ``nvidia-smi topo -m`` shows the down NIC as a GPU's own
(PIX), so that GPU lost a rail (NOT READY). A perftest bandwidth of 64 KiB messages under 1 Gb/s
(Soft-RoCE's 0.026 Gb/s) is no path for a training job (NOT READY)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths, load_text
from advisor.parsers import rdma
from advisor.rules.findings import RulesOutcome
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_63"

IBSTAT_47 = "ibstat_47_h100_roce_12ca_mlx5_11_down_polling_mlx5_5_down_disabled_gpud.txt"
TOPO = (
    "topo_ibdev2netdev_rdma_link_sysfs_lspci_bf3_a100_xfusion2_xfusion3_mlx5_0_2_down_disabled.txt"
)
IRDMA = "rdma_link_irdma0_down_disabled_then_ibv_devinfo_v_irdma1_intel_e810_roce.txt"
LSMOD = "lsmod_mlx_then_rdma_link_6_ports_mlx5_0_1_down_disabled_moc_rhelai.txt"
SOFT_ROCE = (
    "soft_roce_rxe0_ib_send_bw_3MBps_ib_send_lat_724us_then_iperf3_1.29Gbps_n0_n1_lab_notes.txt"
)


_load = partial(heldout.load, HELDOUT)


def _above_info(outcome: RulesOutcome) -> set[tuple[str, str]]:
    return {(f.rule_id, f.severity) for f in outcome.findings if f.severity != "info"}


def test_two_down_ports_of_twelve_with_no_tie_to_the_job_stay_a_warning() -> None:
    # gpud's ibstat of an H100 node's 12 RoCE CAs: mlx5_11 Down/Polling, mlx5_5 Down/Disabled.
    # Nothing in the copy says a GPU or the job uses them (no topo -m, no NCCL_IB_HCA)
    ev = _load(IBSTAT_47)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert _above_info(outcome) == {("evidence-hca-port-not-active", "warning")}
    items = heldout.items(outcome, "evidence-hca-port-not-active")
    assert [i.split(":", 1)[0] for i in items] == ["mlx5_11 port 1", "mlx5_5 port 1"]
    assert "Down (physical state Polling), Ethernet" in items[0]
    assert items[0].endswith("line 60)") and items[1].endswith("line 128)")
    assert not any("gpu_rail" in p for p in ev.hca_ports)


def test_a_gpus_own_nic_down_by_topo_m_is_a_lost_rail() -> None:
    # two hosts' topo -m: GPU0 PIX to NIC0/NIC1 (mlx5_0, mlx5_1), GPU1 to NIC2/NIC3; rdma link
    # shows mlx5_0 and mlx5_2 DOWN/DISABLED on both (lines 24, 26, 67, 69)
    ev = _load(TOPO)
    lost = [(p["ca"], p["line"], p["gpu_rail"]) for p in ev.hca_ports if "gpu_rail" in p]
    assert lost == [
        ("mlx5_0", 24, ["GPU0"]),
        ("mlx5_2", 26, ["GPU1"]),
        ("mlx5_0", 67, ["GPU0"]),
        ("mlx5_2", 69, ["GPU1"]),
    ]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    above = _above_info(outcome)
    assert ("evidence-hca-gpu-rail-down", "critical") in above
    # (the same ports are not said twice as spares)
    assert ("evidence-hca-port-not-active", "warning") not in above
    items = heldout.items(outcome, "evidence-hca-gpu-rail-down")
    assert items[0].startswith(
        "mlx5_0 port 1: DOWN (physical state Disabled), netdev ens7f0np0; GPU0's own NIC ("
    )
    assert items[0].endswith("line 24)")
    # (mlx5_1 and mlx5_3 are up: no other port is named)
    assert not any("mlx5_1" in i or "mlx5_3" in i for i in items)


def test_a_down_nic_only_far_from_the_gpus_stays_a_spare() -> None:
    # xfusion-2 with NIC0 (mlx5_0) on no GPU's switch (SYS from GPU0 too): a spare, not a rail
    text = (HELDOUT / TOPO).read_text().split("HOST=xfusion-3", 1)[0]
    # (GPU0's row: SYS to NIC0; NIC0's own row is left, GPU rows alone say a GPU's NICs)
    far = text.replace("GPU0     X      SYS     PIX     PIX", "GPU0     X      SYS     SYS     PIX")
    ev = load_text(far, "host.txt")
    assert [(p["ca"], p["gpu_rail"]) for p in ev.hca_ports if "gpu_rail" in p] == [
        ("mlx5_2", ["GPU1"])
    ]


def test_a_down_port_of_a_dual_port_nic_with_its_other_port_up_keeps_the_gpus_rail() -> None:
    # an older driver's topo -m names the NIC column by its device (mlx4_0); port 2 is down,
    # port 1 active: the GPU still reaches the network through its NIC
    text = (
        "        GPU0    mlx4_0  CPU Affinity\n"
        "GPU0     X      PIX     0-11\n"
        "mlx4_0  PIX      X\n"
        "\n"
        "link mlx4_0/1 state ACTIVE physical_state LINK_UP netdev ib0\n"
        "link mlx4_0/2 state DOWN physical_state POLLING netdev ib1\n"
    )
    ev = load_text(text, "node.txt")
    assert [p["port"] for p in ev.hca_ports if p.get("active") is False] == [2]
    assert not any("gpu_rail" in p for p in ev.hca_ports)
    # both ports down: the GPU's NIC is gone, each port named with it
    both = load_text(
        text.replace(
            "mlx4_0/1 state ACTIVE physical_state LINK_UP",
            "mlx4_0/1 state DOWN physical_state POLLING",
        ).replace(
            "netdev ib1\n",
            "netdev ib1\nlink mlx5_0/1 state ACTIVE physical_state LINK_UP netdev ib2\n",
        ),
        "node.txt",
    )
    assert [(p["ca"], p["port"], p.get("gpu_rail")) for p in both.hca_ports] == [
        ("mlx4_0", 1, ["GPU0"]),
        ("mlx4_0", 2, ["GPU0"]),
        ("mlx5_0", 1, None),
    ]


def test_one_e810_port_down_beside_an_active_one_stays_a_warning() -> None:
    ev = _load(IRDMA)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert _above_info(outcome) == {("evidence-hca-port-not-active", "warning")}
    (item,) = heldout.items(outcome, "evidence-hca-port-not-active")
    assert item.startswith("irdma0 port 1: DOWN (physical state Disabled), netdev enp23s0f0 (")
    assert item.endswith("line 2)")


def test_two_onboard_ports_down_beside_four_active_stay_a_warning() -> None:
    ev = _load(LSMOD)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert _above_info(outcome) == {("evidence-hca-port-not-active", "warning")}
    items = heldout.items(outcome, "evidence-hca-port-not-active")
    assert [i.split(":", 1)[0] for i in items] == ["mlx5_0 port 1", "mlx5_1 port 1"]
    assert "netdev eno2np0" in items[0] and items[0].endswith("line 11)")
    assert "netdev eno3np1" in items[1] and items[1].endswith("line 12)")


def test_soft_roce_send_bandwidth_of_3_mb_s_is_no_path_for_a_job() -> None:
    ev = _load(SOFT_ROCE)
    runs = [(p["ca"], p["line"], p["perftest"]["test"]) for p in ev.hca_ports]
    # the n0 latency run's head prints its device unpadded, "Device: rxe0" (line 70)
    assert runs == [
        ("rxe0", 13, "Send BW"),
        ("rxe0", 39, "Send BW"),
        ("rxe0", 70, "Send Latency"),
        ("rxe0", 94, "Send Latency"),
    ]
    assert not any("device is unknown" in m.message for f in ev.files for m in f.messages)
    assert [p["perftest"]["under_floor"] for p in ev.hca_ports] == [True, True, False, False]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    # (set 712: its Send Latency runs, 928 us at 2 B, are also above ngc_multinode_perf's
    # 2.5 us pass value for a send test: a warning beside the critical)
    assert _above_info(outcome) == {
        ("evidence-rdma-perftest-under-floor", "critical"),
        ("evidence-rdma-perftest-latency-high", "warning"),
    }
    items = heldout.items(outcome, "evidence-rdma-perftest-under-floor")
    assert len(items) == 2
    assert items[0].startswith(
        "rxe0 port 1 (Ethernet): Send BW to 10.0.0.2: 0.026 Gb/s average at 65536 B; rxe is "
        "Soft-RoCE"
    )
    assert items[0].endswith("line 13)") and items[1].endswith("line 39)")
    info = heldout.items(outcome, "evidence-rdma-perftest")
    assert any(
        i.startswith("rxe0 port 1 (Ethernet): Send Latency to 10.0.0.2: 928.05 us") for i in info
    )


def _perftest_copy(
    tmp_path: Path, bytes_: int, mib_s: str, device: str = "mlx5_0"
) -> EvidenceFacts:
    path = tmp_path / "bw.txt"
    path.write_text(
        "                    RDMA_Write BW Test\n"
        f" Dual-port       : OFF\t\tDevice         : {device}\n"
        " Number of qps   : 1\t\tTransport type : IB\n"
        " Connection type : RC\t\tUsing SRQ      : OFF\n"
        " Link type       : Ethernet\n"
        " #bytes     #iterations    BW peak[MB/sec]    BW average[MB/sec]   MsgRate[Mpps]\n"
        f" {bytes_}      5000             {mib_s}            {mib_s}		   0.1\n"
    )
    return load_paths([path])


def test_the_floor_judges_large_messages_only_and_a_real_nic_passes(tmp_path: Path) -> None:
    # 64 KiB at 11000 MiB/s (92 Gb/s): a 100G RoCE NIC, no finding
    (fast,) = _perftest_copy(tmp_path, 65536, "11000.00").hca_ports
    assert fast["perftest"]["under_floor"] is False
    # 2 bytes at 3 MiB/s: a message-rate figure, not the link's
    (small,) = _perftest_copy(tmp_path, 2, "3.06").hca_ports
    assert small["perftest"]["under_floor"] is False
    # 1 MiB at 100 MiB/s (0.84 Gb/s) on a hardware device: under the floor, no Soft-RoCE remark
    ev = _perftest_copy(tmp_path, 1048576, "100.00")
    assert ev.hca_ports[0]["perftest"]["under_floor"] is True
    _, outcome = heldout.imported(ev)
    (item,) = heldout.items(outcome, "evidence-rdma-perftest-under-floor")
    assert "Soft-RoCE" not in item and item.startswith("mlx5_0 port 1 (Ethernet): RDMA_Write BW")
    assert rdma.PERFTEST_FLOOR_BYTES == 65536


def test_an_unpadded_device_cell_names_the_device(tmp_path: Path) -> None:
    path = tmp_path / "lat.txt"
    # the n0 latency run alone, from its rule line: "Device: rxe0" two lines down
    path.write_text("".join((HELDOUT / SOFT_ROCE).read_text().splitlines(keepends=True)[67:90]))
    (port,) = load_paths([path]).hca_ports
    assert (port["ca"], port["line"]) == ("rxe0", 3)
