"""Outputs of round XXXX's held-out evaluation (set 729, NVIDIA tool outputs) that the advisor
read in part or with a claim the file does not bear before this change
(tests/data/evidence_heldout_84, sources in tests/data/SOURCES.md): an ``nvidia-smi -q`` GPU with
SW Power Cap set while it drew 118 W of its 700 W limit at 0 % utilisation was glossed as "a GPU
at its power limit under load, not a fault"; Fabric Manager's own log file (18 non-fatal SXid
12028 lines on 9 ports of 4 NVSwitches, then a restart that configured the switches) was only a
program's first error line; and nvidia-smi's "Unable to determine the device handle" copied
without a prompt was given the host-side reading alone, though in a container a device not passed
in says the same."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_84"

SMI_Q = (
    "nvidia_smi_q_535_183_01_8x_h100_sxm_fabric_completed_pcie_replays_58_120_gpu75_hw_power_"
    "brake_sw_power_cap_sw_thermal_active_gpud.txt"
)
FM_LOG = (
    "fabricmanager_535_161_08_hgx_h100_nvswitch_nonfatal_sxid12028_4_switches_9_ports_then_fm_"
    "restart_gpud_tail_testdata_cut.log"
)
HANDLE = (
    "nvidia_smi_in_container_unable_to_determine_device_handle_gpu_0000_03_00_0_unknown_error_"
    "bethgelab_docker1.txt"
)

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


# --- nvidia-smi -q: SW Power Cap set far under the power limit ----------------------------------


def _cap_note(said: list[str]) -> str:
    (note,) = [s for s in said if "GPU 00000000:75:00.0: performance state" in s]
    return note


def test_a_power_cap_far_under_the_limit_is_said_with_the_records_figures() -> None:
    ev = _load(SMI_Q)
    note = _cap_note(heldout.said(ev))
    assert (
        "SW Power Cap in force (line 495) while the GPU draws 118.01 W of its 700 W limit "
        "(lines 580-581) at 0 % utilisation (line 518); its core clocks at their Max Clocks "
        "(lines 594-595): nothing held down when read" in note
    )
    # (no cause claimed: the record shows neither load nor a GPU at its limit)
    assert "not a fault" not in note and "under load" not in note
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-gpu-throttled")
    assert "GPU 00000000:75:00.0" in item and "HW Power Brake Slowdown" in item
    replays = [s for s in heldout.said(ev) if "PCIe replays since its last reset" in s]
    assert len(replays) == 8 and any(": 120 PCIe replays" in s for s in replays)


def test_a_power_cap_at_the_limit_under_load_is_called_so(tmp_path: Path) -> None:
    text = _text(SMI_Q).replace(
        "Power Draw                        : 118.01 W",
        "Power Draw                        : 690.50 W",
    )
    note = _cap_note(heldout.said(_write(tmp_path, text)))
    assert "the GPU draws 690.5 W of its 700 W limit (lines 580-581)" in note
    assert "(a GPU under load at its limit, not a fault)" in note
    assert "nothing held down" not in note


def test_a_power_cap_with_no_power_readings_claims_no_load(tmp_path: Path) -> None:
    lines = _text(SMI_Q).splitlines(keepends=True)
    # GPU 75:00.0's record alone, its power readings cut (lines 579-585 of the file)
    record = lines[:7] + lines[417:578] + lines[585:628]
    note = _cap_note(heldout.said(_write(tmp_path, "".join(record))))
    assert "the page holds no power draw and limit to show whether it is at it" in note
    assert "not a fault" not in note


# --- Fabric Manager's own log: non-fatal SXids on 9 ports, then a restart ----------------------


def test_fabric_manager_sxids_are_named_by_switch_and_port_and_its_restart_said() -> None:
    ev = _load(FM_LOG)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-gpu-driver-error", "warning")]
    (item,) = heldout.items(outcome, "evidence-gpu-driver-error")
    assert (
        "Fabric Manager logged NVSwitch non-fatal error (SXid) 12028 18 time(s) (lines 9-26) on "
        "9 port(s) of 4 NVSwitch(es): NVSwitch 00000000:83:00.0 (physical id 0): port 34 x2; "
        "NVSwitch 00000000:84:00.0 (physical id 1): port 35 x2, port 42 x2; NVSwitch "
        "00000000:85:00.0 (physical id 2): port 0 x2, port 1 x2, port 19 x2, port 33 x2; NVSwitch "
        "00000000:86:00.0 (physical id 3): port 33 x2, port 36 x2" in item
    )
    assert "started again (line 37) and configured the NVSwitches (line 84)" in item
    assert item.endswith("line 9)")
    (failure,) = ev.failures
    assert failure["code"] == "12028" and failure["library"] == "Fabric Manager"
    assert any(
        n == 84 and "configured all the available NVSwitches to route GPU NVLink traffic" in s
        for n, s in heldout.notes(ev)
    )


def test_fabric_manager_sxids_without_the_restart_say_none(tmp_path: Path) -> None:
    text = "".join(_text(FM_LOG).splitlines(keepends=True)[:36])
    ev = _write(tmp_path, text)
    (failure,) = ev.failures
    assert failure["kind"] == "gpu_driver_error"
    assert "started again" not in failure["exception_type"]
    assert "18 time(s) (lines 9-26)" in failure["exception_type"]


def test_a_fatal_fabric_manager_sxid_is_a_fault(tmp_path: Path) -> None:
    text = _text(FM_LOG).replace(
        "non-fatal error 12028 on fid 0 on NVSwitch pci bus id 00000000:86:00.0 physical id 3 "
        "port 36",
        "fatal error 12028 on fid 0 on NVSwitch pci bus id 00000000:86:00.0 physical id 3 port 36",
    )
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-gpu-driver-fault")
    assert "fatal error (SXid) 12028 2 time(s) (lines 25-26) on 1 port(s) of 1 NVSwitch(es)" in item
    assert "00000000:86:00.0 (physical id 3): port 36 x2" in item


def test_the_fabric_manager_log_without_its_sxids_stays_ready(tmp_path: Path) -> None:
    lines = _text(FM_LOG).splitlines(keepends=True)
    ev = _write(tmp_path, "".join(lines[:8] + lines[26:]))
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    assert ev.failures == []


def test_a_journal_line_of_another_host_names_it(tmp_path: Path) -> None:
    text = (
        "Mar 03 18:39:19 hgx-07 systemd[1]: Started NVIDIA fabric manager service.\n"
        "Mar 03 18:39:57 hgx-07 nv-fabricmanager[5183]: detected NVSwitch non-fatal error 22013 "
        "on NodeId 0 on NVSwitch pci bus id 00000000:08:00.0 physical id 3 port 60\n"
    )
    ev = _write(tmp_path, text)
    (failure,) = [f for f in ev.failures if f.get("library") == "Fabric Manager"]
    assert failure["host"] == "hgx-07" and failure["code"] == "22013"
    assert "00000000:08:00.0 (physical id 3): port 60 x1" in failure["exception_type"]


# --- nvidia-smi: a device handle it could not get, with and without a container shown ---------


def _handle_item(tmp_path: Path, text: str) -> str:
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-gpu-driver-fault")
    return item


def test_the_bare_device_handle_line_gives_both_readings() -> None:
    level, outcome = heldout.imported(_load(HANDLE))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-gpu-driver-fault")
    assert "nvidia-smi could not reach GPU 0000:03:00.0" in item
    assert (
        "either the GPU is lost to the driver until it is reset, or, run inside a container, its "
        "device was not passed in: the line alone does not say which" in item
    )


def test_a_docker_run_above_it_says_it_ran_in_a_container(tmp_path: Path) -> None:
    text = (
        "$ docker run --rm --gpus '\"device=1\"' nvidia/cuda:11.4.0-base nvidia-smi\n"
        "Unable to determine the device handle for GPU 0000:65:00.0: Unknown Error\n"
    )
    item = _handle_item(tmp_path, text)
    assert "GPU 0000:65:00.0" in item
    assert (
        "(run inside a container, line 1: either the GPU is lost to the driver on the host until "
        "it is reset, or its device was not passed into the container" in item
    )


def test_a_container_prompt_says_it_ran_in_a_container(tmp_path: Path) -> None:
    text = "root@3f4e8a9b2c1d:/workspace# nvidia-smi\n" + _text(HANDLE)
    assert "its device was not passed into the container" in _handle_item(tmp_path, text)


def test_a_host_prompt_keeps_the_host_reading(tmp_path: Path) -> None:
    text = "[root@bh174 chenyang]# nvidia-smi\n" + _text(HANDLE)
    item = _handle_item(tmp_path, text)
    assert "(the GPU is lost to the driver until it is reset)" in item
    assert "container" not in item
