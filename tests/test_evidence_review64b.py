"""Review 64 (part b: sets 693/694/694b and 81c8b1b), faults 1-4: a grep of two interfaces'
pause counters (eth1's 95331 not eth0's); an mlxfwmanager update whose later query shows the new
firmware running (no restart pending); the pause grep through pdsh and over several sosreport
files (grep's "FILE:"); lscpu's tree layout with value-less section heads and its pdsh copy:
each on its input (tests/data/review64, described in tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review64"
HELDOUT = DATA / "evidence_heldout_78"

_write = partial(heldout.load_copy, name="copy.txt")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


def _warned(ev: EvidenceFacts) -> list[tuple[str, int, str]]:
    return [(f["kind"], f["line"], f["exception_type"] or "") for f in ev.failures]


# --- 1. a grep of two interfaces' counters: a block per interface -------------------------------

REAL_PAUSE = "ethtool_S_eth1_grep_pause_sosreport_rx_pause_frames_95331_xsos112.txt"


def test_two_grepped_interfaces_each_their_block_eth1_warned() -> None:
    ev = _load("ethtool_grep_pause_sos_eth0_zero_then_eth1_rx_pause_95331.txt")
    ((kind, line, what),) = _warned(ev)
    assert (kind, line) == ("nic_counters_warn", 6)
    assert what.startswith("eth1: pause frames the port received")
    notes = [n for _, n in heldout.notes(ev) if "counter(s)" in n]
    assert len(notes) == 2
    assert all(
        n.endswith("3 counter(s); every loss counter (errors, drops, discards) is 0") for n in notes
    )
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


def test_the_real_grep_of_one_interface_reads_as_before() -> None:
    ev = _load(REAL_PAUSE, HELDOUT)
    ((kind, _, what),) = _warned(ev)
    assert kind == "nic_counters_warn"
    assert what.startswith("eth1: pause frames the port received")


def test_the_pauses_under_the_first_command_stay_that_interfaces(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "$ ethtool -S ens1f0 | grep pause\n     rx_pause_frames: 95331\n     tx_pause_frames: 0\n"
        "$ ethtool -S ens1f1 | grep pause\n     rx_pause_frames: 0\n     tx_pause_frames: 0\n",
    )
    ((_, line, what),) = _warned(ev)
    assert line == 2
    assert what.startswith("ens1f0: ")


# --- 2. mlxfwmanager: a later query showing the burned image running -----------------------------

REAL_FW = (
    "mlxfwmanager_u_esxi_nmst_connectx3_mcx311a_fw_2_33_5220_update_required_to_2_42_5000"
    "_restart_needed_cut.txt"
)
REBOOTED = "mlxfwmanager_u_connectx3_2_42_5000_done_reboot_query_runs_2_42_5000.txt"


def test_a_later_query_running_the_burned_image_clears_the_restart() -> None:
    ev = _load(REBOOTED)
    assert not ev.failures
    assert heldout.imported(ev)[0] == "READY"
    assert any("FW 2.42.5000, image N/A" in n for _, n in heldout.notes(ev))


def test_the_real_update_still_waits_for_its_restart() -> None:
    ev = _load(REAL_FW, HELDOUT)
    assert [f["kind"] for f in ev.failures] == ["nic_firmware_restart_pending"]


def test_a_later_query_of_the_old_firmware_or_its_running_row_keeps_it(tmp_path: Path) -> None:
    text = (REVIEW / REBOOTED).read_text()
    old = text.replace("FW             2.42.5000      N/A", "FW             2.33.5220      N/A")
    assert old != text
    assert [f["kind"] for f in _write(tmp_path, old).failures] == ["nic_firmware_restart_pending"]
    # flashed but not running: mstflint's "FW (Running)" row of the old firmware
    running_old = text.replace(
        "FW             2.42.5000      N/A",
        "FW             2.42.5000      N/A\n     FW (Running)   2.33.5220      N/A",
    )
    assert [f["kind"] for f in _write(tmp_path, running_old).failures] == [
        "nic_firmware_restart_pending"
    ]
    # another card's query does not clear this one's
    other = text.replace("PCI Device Name:  mt4099_pci_cr0\n  Port1 MAC:        0002c9232da0\n"
                         "  Port2 MAC:        0002c9232da1\n  Versions:         Current        "
                         "Available\n     FW             2.42.5000",
                         "PCI Device Name:  mt4099_pci_cr1\n  Port1 MAC:        0002c9232da0\n"
                         "  Port2 MAC:        0002c9232da1\n  Versions:         Current        "
                         "Available\n     FW             2.42.5000")  # fmt: skip
    assert other != text
    assert [f["kind"] for f in _write(tmp_path, other).failures] == ["nic_firmware_restart_pending"]


# --- 3. the pause grep through pdsh and over several sosreport files -----------------------------


def test_the_pdsh_pause_grep_is_read_per_host() -> None:
    ev = _load("ethtool_pdsh_3_nodes_grep_pause_node01_rx_pause_95331.txt")
    ((kind, line, what),) = _warned(ev)
    assert (kind, line) == ("nic_counters_warn", 2)
    assert what.startswith("node01: eth1: pause frames the port received")
    notes = [n for _, n in heldout.notes(ev) if "counter(s)" in n]
    assert [n.split("ethtool -S: ")[1][:6] for n in notes] == ["node01", "node02", "node03"]
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


def test_a_pdsh_grep_with_the_pauses_on_the_last_host(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        '$ pdsh -w gpu[1-2] "ethtool -S ens2 | grep pause"\n'
        "gpu1:      rx_pause_frames: 3\ngpu1:      tx_pause_frames: 0\n"
        "gpu2:      rx_pause_frames: 0\ngpu2:      tx_pause_frames: 0\n",
    )
    assert not ev.failures
    assert len([n for _, n in heldout.notes(ev) if "counter(s)" in n]) == 2
    ev = _write(
        tmp_path,
        '$ pdsh -w gpu[1-2] "ethtool -S ens2 | grep pause"\n'
        "gpu1:      rx_pause_frames: 3\ngpu1:      tx_pause_frames: 0\n"
        "gpu2:      rx_pause_frames: 0\ngpu2:      tx_pause_frames: 50000\n",
    )
    ((_, line, what),) = _warned(ev)
    assert line == 5
    assert what.startswith("gpu2: ens2: pause frames the port sent")


def test_a_grep_over_several_sosreport_files_reads_each_interface() -> None:
    ev = _load("ethtool_grep_pause_sos_two_files_grep_prefix_eth1_rx_pause_95331.txt")
    ((kind, line, what),) = _warned(ev)
    assert (kind, line) == ("nic_counters_warn", 5)
    assert what.startswith("eth1: pause frames the port received")
    assert len([n for _, n in heldout.notes(ev) if "counter(s)" in n]) == 2


def test_a_grep_over_files_with_eth0_warned(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "sos_commands/networking/ethtool_-S_ens3f0:     rx_pause_frames: 20000\n"
        "sos_commands/networking/ethtool_-S_ens3f0:     tx_pause_frames: 0\n"
        "sos_commands/networking/ethtool_-S_ens3f1:     rx_pause_frames: 0\n"
        "sos_commands/networking/ethtool_-S_ens3f1:     tx_pause_frames: 0\n",
    )
    ((_, line, what),) = _warned(ev)
    assert line == 1
    assert what.startswith("ens3f0: ")


# --- 4. lscpu's tree layout and its pdsh copy ----------------------------------------------------

REAL_LSCPU = (
    "lscpu_ppc64le_power8_s824l_160cpus_4_numa_nodes_0_1_16_17_rst_table_k40_node_oprfiitb_cut.txt"
)


def test_the_tree_layout_keeps_its_numa_rows() -> None:
    ev = _load("lscpu_tree_layout_x86_2s_numa_sections.txt")
    assert not ev.failures
    (note,) = [n for _, n in heldout.notes(ev) if "CPUs" in n]
    assert "2 socket(s) x 32 core(s) x 2 thread(s)" in note
    assert (
        "2 NUMA node(s): node 0: CPUs 0-31,64-95; node 1: CPUs 32-63,96-127 (lines 26-27)" in note
    )


def test_the_real_flat_lscpu_reads_as_before() -> None:
    ev = _load(REAL_LSCPU, HELDOUT)
    (note,) = [n for _, n in heldout.notes(ev) if "CPUs" in n]
    assert "4 NUMA node(s)" in note


def test_the_pdsh_lscpu_is_read_per_host() -> None:
    ev = _load("lscpu_tree_layout_pdsh_gpu_node01_02.txt")
    notes = [n for _, n in heldout.notes(ev) if "CPUs" in n]
    assert ["gpu-node01: x86_64" in notes[0], "gpu-node02: x86_64" in notes[1]] == [True, True]
    assert "1 socket(s)" in notes[1] and "2 NUMA node(s)" in notes[1]
    assert heldout.imported(ev)[0] == "READY"


def test_a_section_head_alone_does_not_end_the_output(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "Architecture:            aarch64\nCPU(s):                  72\nCaches (sum of all):\n"
        "  L1d:                   4.5 MiB (72 instances)\nNUMA:\n  NUMA node(s):          1\n"
        "  NUMA node0 CPU(s):     0-71\n",
    )
    (note,) = [n for _, n in heldout.notes(ev) if "CPUs" in n]
    assert "1 NUMA node(s): node 0: CPUs 0-71 (line 7)" in note
