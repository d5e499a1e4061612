"""Outputs of round TTTT's held-out evaluation (set 705, NVIDIA tool outputs) that the advisor
read in part before this change (tests/data/evidence_heldout_80, sources in
tests/data/SOURCES.md): an ``nvidia-smi topo -m`` matrix of two GPUs joined by ``PHB`` (no
NVLink, no PCIe switch: their traffic crosses the CPU's host bridge) gave READY with nothing
said of it; the path is now named in a note, as the SYS pairs of a two-socket server are."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import load_paths
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_80"

PHB = "nvidia_smi_topo_m_2gpu_phb_no_nvlink_pcie_host_bridge_ml_engineering_network_cut.txt"

_write = partial(heldout.load_copy, name="topo.txt")


_text = partial(heldout.text, HELDOUT)


def test_two_gpus_joined_by_phb_are_named_in_a_note_not_a_failure() -> None:
    ev = load_paths([HELDOUT / PHB])
    assert ev.files[0].formats == ["nvidia_smi_topo"] and ev.files[0].status == "read"
    (topo,) = ev.topologies
    assert topo["phb_pairs"] == [["GPU0", "GPU1"]]
    assert topo["sys_pairs"] == []
    level, outcome = heldout.imported(ev)
    assert level == "READY"  # (a note: nothing fails, the layout is the machine's)
    assert heldout.above_info(outcome) == []
    (item,) = heldout.items(outcome, "evidence-gpu-topology-phb")
    assert item.startswith("GPU0–GPU1 through PHB (no NVLink); CPU affinity GPU0 0-11, GPU1 0-11")


def test_phb_pairs_of_a_wider_matrix_are_each_named(tmp_path: Path) -> None:
    # four GPUs: two NVLink-bridged pairs, PHB between the pairs
    text = (
        "        GPU0    GPU1    GPU2    GPU3    CPU Affinity    NUMA Affinity\n"
        "GPU0     X      NV4     PHB     PHB     0-23            0\n"
        "GPU1    NV4      X      PHB     PHB     0-23            0\n"
        "GPU2    PHB     PHB      X      NV4     0-23            0\n"
        "GPU3    PHB     PHB     NV4      X      0-23            0\n"
    )
    ev = _write(tmp_path, text)
    (topo,) = ev.topologies
    assert topo["phb_pairs"] == [
        ["GPU0", "GPU2"],
        ["GPU0", "GPU3"],
        ["GPU1", "GPU2"],
        ["GPU1", "GPU3"],
    ]
    (item,) = heldout.items(heldout.imported(ev)[1], "evidence-gpu-topology-phb")
    assert item.startswith("GPU0–GPU2, GPU0–GPU3, GPU1–GPU2, GPU1–GPU3 through PHB")


def test_nvlinked_and_switched_twins_of_the_matrix_say_nothing_of_phb(tmp_path: Path) -> None:
    for kind in ("NV2", "PIX", "PXB"):
        ev = _write(tmp_path, _text(PHB).replace("PHB", kind))
        (topo,) = ev.topologies
        assert topo["phb_pairs"] == []
        level, outcome = heldout.imported(ev)
        assert level == "READY"
        assert "evidence-gpu-topology-phb" not in {f.rule_id for f in outcome.findings}


def test_a_gpus_phb_path_to_a_nic_is_no_gpu_pair(tmp_path: Path) -> None:
    text = (
        "        GPU0    GPU1    NIC0    CPU Affinity    NUMA Affinity\n"
        "GPU0     X      NV4     PHB     0-11            N/A\n"
        "GPU1    NV4      X      PHB     0-11            N/A\n"
        "NIC0    PHB     PHB      X\n"
        "\n"
        "NIC Legend:\n"
        "\n"
        "  NIC0: mlx5_0\n"
    )
    ev = _write(tmp_path, text)
    (topo,) = ev.topologies
    assert topo["phb_pairs"] == []
