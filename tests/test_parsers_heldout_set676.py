"""Outputs of round OOOO's held-out evaluation (set 676, network and node tool outputs on GPU
clusters) that the advisor read in part before this change (tests/data/evidence_heldout_75,
sources in tests/data/SOURCES.md): an ``lspci -vvv`` block of an H100 PCIe (10de:2331) at
61:00.0, cut at its DevCtl, whose BusMaster- (line 3), IRQ 255 (line 5) and MSI Enable- (line
14) say no driver has enabled it, read as READY with only "its link lines (LnkCap/LnkSta) are
not in the copy"."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import load_paths
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_75"

H100 = "lspci_vvv_h100_pcie_2331_busmaster_off_msi_disabled_irq255_nvtrust51_cut.txt"

_write = partial(heldout.load_copy, name="lspci.txt")


def _text() -> str:
    return (HELDOUT / H100).read_text()


def test_h100_that_no_driver_enabled_is_a_warning_with_its_lines() -> None:
    ev = load_paths([HELDOUT / H100])
    assert ev.files[0].status == "read"
    assert ev.files[0].formats == ["lspci_link"]
    (failure,) = ev.failures
    assert failure["kind"] == "gpu_not_enabled"
    assert failure["line"] == 3
    said = failure["exception_type"]
    assert said.startswith("GPU 61:00.0 (NVIDIA Corporation Device 2331) not enabled by a driver")
    assert "BusMaster- (line 3" in said
    assert "IRQ 255 (line 5" in said
    assert "MSI Enable- (line 14)" in said
    # the copy ends at DevCtl, before the block's "Kernel driver in use" line would be
    assert "no 'Kernel driver in use' line in the copy" in said
    # no link lines in the copy: no link figure made up, and the note of that kept
    assert any("LnkCap/LnkSta) are not in the copy" in s for s in heldout.said(ev))
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-gpu-not-enabled", "warning")]
    (item,) = heldout.items(outcome, "evidence-gpu-not-enabled")
    assert "61:00.0" in item and "line 3" in item


def test_another_gpu_with_its_driver_bound_but_bus_mastering_off(tmp_path: Path) -> None:
    # another address and model, its MSI-X off too, and a driver line: the driver is named
    text = (
        _text()
        .replace("61:00.0", "0000:c1:00.0")
        .replace("Device 2331", "GH100 [H100 SXM5 80GB]")
        .replace("IRQ 255", "IRQ 16")
    )
    text += (
        "        Capabilities: [b4] MSI-X: Enable- Count=6 Masked-\n"
        "        Kernel driver in use: nvidia\n"
        "        Kernel modules: nvidiafb, nouveau, nvidia_drm, nvidia\n"
    )
    ev = _write(tmp_path, text)
    (failure,) = ev.failures
    said = failure["exception_type"]
    assert said.startswith("GPU 0000:c1:00.0 (NVIDIA Corporation GH100 [H100 SXM5 80GB])")
    assert "IRQ" not in said  # (IRQ 16 is an assigned one)
    assert "MSI-X Enable- (line 20)" in said
    assert "its driver in use, nvidia (line 21), has not enabled it" in said
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


def test_npu_in_lspci_v_flags_form_without_bus_master(tmp_path: Path) -> None:
    # lspci -v (one "Flags:" line, "bus master, " only where set): an Ascend NPU without it
    text = (
        "81:00.0 Processing accelerators: Huawei Technologies Co., Ltd. Device d802 (rev 20)\n"
        "\tSubsystem: Huawei Technologies Co., Ltd. Device 3000\n"
        "\tFlags: fast devsel, IRQ 255, NUMA node 1\n"
        "\tMemory at 2b000000000 (64-bit, prefetchable) [size=64M]\n"
        "\tCapabilities: [40] Power Management version 3\n"
        "\tCapabilities: [50] MSI: Enable- Count=1/32 Maskable+ 64bit+\n"
    )
    ev = _write(tmp_path, text)
    (failure,) = ev.failures
    assert failure["line"] == 3
    assert failure["exception_type"].startswith("NPU 81:00.0 (Huawei Technologies")
    assert "IRQ 255 (line 3" in failure["exception_type"]
    assert "MSI Enable- (line 6)" in failure["exception_type"]


def test_healthy_twin_with_bus_mastering_on_stays_ready(tmp_path: Path) -> None:
    text = (
        _text()
        .replace("BusMaster-", "BusMaster+")
        .replace("IRQ 255", "IRQ 16")
        .replace("MSI: Enable-", "MSI: Enable+")
    )
    ev = _write(tmp_path, text)
    assert ev.failures == []
    assert heldout.imported(ev)[0] == "READY"


def test_gpu_held_by_vfio_for_a_vm_is_a_note(tmp_path: Path) -> None:
    ev = _write(tmp_path, _text() + "        Kernel driver in use: vfio-pci\n")
    assert ev.failures == []
    assert any("held by vfio-pci (line 20) for a virtual machine" in s for s in heldout.said(ev))
    assert heldout.imported(ev)[0] == "READY"


def test_a_bmc_vga_and_a_bridge_with_bus_mastering_off_are_not_gpus(tmp_path: Path) -> None:
    text = (
        "03:00.0 VGA compatible controller: ASPEED Technology, Inc. ASPEED Graphics Family (rev 41)\n"
        "\tControl: I/O+ Mem+ BusMaster- SpecCycle- MemWINV- VGASnoop- ParErr- Stepping- SERR-\n"
        "\tInterrupt: pin A routed to IRQ 255\n"
        "00:01.0 PCI bridge: Intel Corporation Device 352a (rev 04)\n"
        "\tControl: I/O- Mem- BusMaster- SpecCycle- MemWINV- VGASnoop- ParErr- Stepping- SERR-\n"
    )
    ev = _write(tmp_path, text)
    assert ev.failures == []
