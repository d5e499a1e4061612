"""Outputs of round RRRR's held-out evaluation (set 694, network and node tool outputs on GPU
clusters, part b) that the advisor read wrong before this change (tests/data/evidence_heldout_78,
sources in tests/data/SOURCES.md): ``lscpu`` (here a POWER8 node's, kept inside an RST table) and
``mlxfwmanager`` (an update of a ConnectX-3 that burned and said a restart is needed) were no
format the advisor knew, both left unknown."""

from __future__ import annotations

from functools import partial

from advisor.evidence.load import EvidenceFacts
from advisor.parsers import lscpu, rdma
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_78"

LSCPU = (
    "lscpu_ppc64le_power8_s824l_160cpus_4_numa_nodes_0_1_16_17_rst_table_k40_node_oprfiitb_cut.txt"
)
FWM = (
    "mlxfwmanager_u_esxi_nmst_connectx3_mcx311a_fw_2_33_5220_update_required_to_2_42_5000_"
    "restart_needed_cut.txt"
)
PENDING = "evidence-nic-firmware-restart-pending"
FAILED = "evidence-nic-firmware-update-failed"

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


# --- lscpu ---------------------------------------------------------------------------------------


def test_lscpu_in_an_rst_table_is_read_with_its_cpus_and_numa_nodes() -> None:
    ev = _load(LSCPU)
    assert ev.files[0].formats == ["lscpu"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    (line, note), (_, borders) = _said(ev)
    assert line == 2  # the Architecture row, under the table's top border
    for said in (
        "ppc64le",
        "model 8247-42L",
        "160 CPUs",
        "4 socket(s) x 5 core(s) x 8 thread(s)",
        "4 NUMA node(s): node 0: CPUs 0-39; node 1: CPUs 40-79; node 16: CPUs 80-119; "
        "node 17: CPUs 120-159 (lines 16-19)",
    ):
        assert said in note
    assert "2 border line(s) skipped" in borders  # the "----" under the first row, the last "===="


def test_plain_x86_lscpu_with_an_offline_cpu_is_read_and_names_it(tmp_path) -> None:
    # util-linux's own layout (no table), its model under "Model name:", two nodes, CPU 63 offline
    text = (
        "Architecture:          x86_64\n"
        "CPU op-mode(s):        32-bit, 64-bit\n"
        "Byte Order:            Little Endian\n"
        "CPU(s):                64\n"
        "On-line CPU(s) list:   0-62\n"
        "Off-line CPU(s) list:  63\n"
        "Thread(s) per core:    2\n"
        "Core(s) per socket:    16\n"
        "Socket(s):             2\n"
        "NUMA node(s):          2\n"
        "Vendor ID:             GenuineIntel\n"
        "Model name:            Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz\n"
        "NUMA node0 CPU(s):     0-15,32-47\n"
        "NUMA node1 CPU(s):     16-31,48-63\n"
    )
    ev = _write(tmp_path, text)
    assert ev.files[0].formats == ["lscpu"]
    level, _ = heldout.imported(ev)
    assert level == "READY"
    ((line, note),) = _said(ev)
    assert line == 1
    assert "model Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz" in note
    assert "2 socket(s) x 16 core(s) x 2 thread(s)" in note
    assert "offline CPU(s) 63 (line 6)" in note
    assert "node 0: CPUs 0-15,32-47; node 1: CPUs 16-31,48-63 (lines 13-14)" in note


def test_hostnamectl_architecture_alone_is_not_lscpu(tmp_path) -> None:
    text = (
        "   Static hostname: node1\n  Operating System: Ubuntu 22.04\n      Architecture: x86-64\n"
    )
    assert lscpu.parse(text) is not None  # the row alone parses ...
    ev = _write(tmp_path, text)
    assert "lscpu" not in ev.files[0].formats  # ... but without a CPU(s) row it is no lscpu


# --- mlxfwmanager ----------------------------------------------------------------------------------


def test_mlxfwmanager_update_that_needs_a_restart_is_a_warning_naming_device_and_versions() -> None:
    ev = _load(FWM)
    assert ev.files[0].formats == ["mlxfwmanager"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [(PENDING, "warning")]
    (item,) = heldout.items(outcome, PENDING)
    assert item.startswith(
        "ConnectX3 MCX311A-XCA_Ax (mt4099_pci_cr0): FW 2.42.5000 burned (line 25), "
        "'Restart needed for updates to take effect.' (line 27): it runs FW 2.33.5220 until it "
        "restarts"
    )
    (pending,) = ev.failures
    assert pending["line"] == 27 and pending["kind"] == "nic_firmware_restart_pending"
    notes = [m for line, m in _said(ev) if line == 4]
    assert notes and notes[0] == (
        "mlxfwmanager: ConnectX3 MCX311A-XCA_Ax (mt4099_pci_cr0); FW 2.33.5220, image 2.42.5000; "
        "PXE 3.4.0467, image 3.4.0752; Status: Update required (line 18); burned (line 25)"
    )


def test_mlxfwmanager_query_alone_is_read_and_not_judged(tmp_path) -> None:
    # the same device queried (no -u): "Update required" says a newer image was given, nothing
    # was burned, nothing waits for a restart
    text = _text(FWM)
    query = text[: text.index(" ---------\n")]
    ev = _write(tmp_path, query)
    assert ev.files[0].formats == ["mlxfwmanager"]
    level, _ = heldout.imported(ev)
    assert level == "READY" and ev.failures == []
    assert any("Status: Update required (line 18)" in m for _, m in _said(ev))


def test_mlxfwmanager_restart_pending_on_another_device_and_reset_after_it(tmp_path) -> None:
    other = (
        _text(FWM)
        .replace("mt4099_pci_cr0", "0000:3b:00.0")
        .replace("ConnectX3\n", "ConnectX6LX\n")
        .replace("MCX311A-XCA_Ax", "MCX631102AS-ADA_Ax")
    )
    ev = _write(tmp_path, other)
    _, outcome = heldout.imported(ev)
    (item,) = heldout.items(outcome, PENDING)
    assert item.startswith("ConnectX6LX MCX631102AS-ADA_Ax (0000:3b:00.0): FW 2.42.5000 burned")
    # a firmware reset of the device after the burn loads the new firmware: nothing pending
    reset = other + " mlxfwreset -d 0000:3b:00.0 reset -y\n"
    ev = _write(tmp_path, reset)
    level, outcome = heldout.imported(ev)
    assert level == "READY" and ev.failures == []


def test_mlxfwmanager_failed_burn_is_its_own_warning_and_no_restart(tmp_path) -> None:
    text = _text(FWM)
    failed = text[: text.index(" Done\n")] + " Fail : Burn failed: device busy\n"
    ev = _write(tmp_path, failed)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [(FAILED, "warning")]
    (item,) = heldout.items(outcome, FAILED)
    assert (
        "the update to FW 2.42.5000 failed: Burn failed: device busy; it still holds FW 2.33.5220"
        in item
    )


def test_parse_mlxfwmanager_two_devices_parallel_burn() -> None:
    # several devices burn at once: "Device #N (NAME): Updating FW ..." then "Device #N (NAME): Done"
    text = (
        "Device #1:\n----------\n\n  Device Type:      ConnectX7\n  Part Number:      MCX75310AAS-NEA_Ax\n"
        "  PCI Device Name:  /dev/mst/mt4129_pciconf0\n  Versions:         Current        Available\n"
        "     FW             28.42.1000     28.43.1014\n\n  Status:           Update required\n\n"
        "Device #2:\n----------\n\n  Device Type:      ConnectX7\n  Part Number:      MCX75310AAS-NEA_Ax\n"
        "  PCI Device Name:  /dev/mst/mt4129_pciconf1\n  Versions:         Current        Available\n"
        "     FW             28.42.1000     28.43.1014\n\n  Status:           Update required\n\n"
        "Device #1 (/dev/mst/mt4129_pciconf0): Updating FW ...\n"
        "Device #2 (/dev/mst/mt4129_pciconf1): Updating FW ...\n"
        "Device #1 (/dev/mst/mt4129_pciconf0): Done\n"
        "Device #2 (/dev/mst/mt4129_pciconf1): Fail : timed out\n\n"
        "Restart needed for updates to take effect.\n"
    )
    update = rdma.parse_mlxfwmanager(text)
    assert [(d.index, d.burn, d.burn_error) for d in update.devices] == [
        (1, "done", ""),
        (2, "fail", "timed out"),
    ]
    assert update.devices[1].versions["FW"] == ("28.42.1000", "28.43.1014")
    assert update.restart_line == 28
