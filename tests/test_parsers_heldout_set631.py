"""Outputs of round HHHH's held-out evaluation (set 631, Ascend tool outputs) that the advisor read
in part or not at all before this change (tests/data/evidence_heldout_68, sources in
tests/data/SOURCES.md): MindCluster's sampled hccn_tool -stat counter CSV and upgrade-tool's
firmware versions, not read; the driver's and the firmware's run package installers whose last
words say the new version waits for a reboot, read as a log in no known form and READY."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import load_paths
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_68"

STAT_CSV = (
    "mindcluster_npu_0_details_csv_hccn_stat_counters_dev0_3samples_no_roce_err_rx_pfc_1e9.csv"
)
DRIVER = "ascend_hdk_910_npu_driver_24_1_0_install_dkms_success_reboot_needed.log"
FIRMWARE = "ascend_hdk_910_npu_firmware_7_5_0_2_220_install_8_chips_upgraded_reboot_needed.log"
UPGRADE_TOOL = "upgrade_tool_component_version_7_5_0_2_220_device0_nve_succeed.txt"

PENDING = "evidence-ascend-package-reboot-pending"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")
_write_log = partial(heldout.load_copy, name="copy.log")


# --- MindCluster's hccn_tool -stat counter CSV -------------------------------------------------


def test_mindclusters_stat_csv_is_npu_0s_counters_all_errors_zero() -> None:
    ev = _load(STAT_CSV)
    assert ev.files[0].formats == ["hccn_stat_csv"]
    (port,) = ev.npu_ports
    assert (port["device"], port["line"]) == (0, 4)
    # the last sample's counts (they run from the driver's start)
    assert port["stat"]["mac_rx_pfc_pri4_pkt_num"] == 1014660853
    assert port["stat"]["roce_rx_err_pkt_num"] == 0
    assert port["stat_errors"] == {}
    # (a spreadsheet's rounded octet count is no count)
    assert "mac_tx_total_oct_num" not in port["stat"]
    (note,) = [m for m in heldout.said(ev) if "hccn_tool -stat samples" in m]
    assert "NPU 0: 3 sample(s) over 4 s" in note
    assert "every error and bad-packet counter 0" in note
    assert "PFC pause frames on priority 4" in note
    assert "congestion" not in note and "grew" not in note
    assert not ev.failures
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_a_stat_csv_whose_error_counter_grows_is_said_and_judged(tmp_path: Path) -> None:
    head = "timestamp,npu_index,report_time,host_ip,mac_rx_bad_pkt_num,roce_rx_err_pkt_num,roce_rx_cnp_pkt_num"
    ev = _write(
        tmp_path,
        "> cat npu_3_details.csv\n"
        f"> {head}\n"
        "> 1667935036,3,2022/11/9 3:17,10.0.0.1,0,5,0\n"
        "> 1667935038,3,2022/11/9 3:17,10.0.0.1,0,9,12\n"
        "> 1667935040,3,2022/11",
    )
    (port,) = ev.npu_ports
    assert (port["device"], port["stat_errors"]) == (3, {"roce_rx_err_pkt_num": 9})
    said = heldout.said(ev)
    (note,) = [m for m in said if "hccn_tool -stat samples" in m]
    assert "NPU 3: 2 sample(s) over 2 s" in note
    assert "error counters not 0: roce_rx_err_pkt_num 9" in note
    assert "grew between its samples: roce_rx_err_pkt_num +4" in note
    assert "congestion notifications: roce_rx_cnp_pkt_num 12" in note
    assert any("cut, or not a sample" in m for m in said)  # (the last row, cut)
    _, outcome = heldout.imported(ev)
    assert ("evidence-npu-roce-errors", "warning") in heldout.above_info(outcome)


# --- the driver's and the firmware's run package installers -----------------------------------


def test_the_driver_installed_waits_for_a_reboot() -> None:
    ev = _load(DRIVER)
    (pending,) = ev.failures
    assert (pending["kind"], pending["line"]) == ("npu_package_reboot_pending", 14)
    assert "Ascend driver package installed" in pending["exception_type"]
    said = heldout.said(ev)
    assert any(
        "Ascend package installer: [Driver] run" in m
        and "'Driver package installed successfully! Reboot needed for installation/upgrade to "
        "take effect!' (line 14)"
        in m
        for m in said
    )
    assert not any("first error line" in m or "no form the advisor reads" in m for m in said)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [(PENDING, "warning")]
    (item,) = heldout.items(outcome, PENDING)
    assert "line 14" in item


def test_the_firmware_upgraded_on_8_chips_waits_for_a_reboot() -> None:
    ev = _load(FIRMWARE)
    (pending,) = ev.failures
    assert (pending["kind"], pending["line"]) == ("npu_package_reboot_pending", 14)
    assert "Ascend firmware package installed, 8 chip(s) upgraded" in pending["exception_type"]
    assert any("8 chip(s) upgraded (line 13)" in m for m in heldout.said(ev))
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [(PENDING, "warning")]


def test_a_driver_the_hot_reset_loaded_waits_for_nothing(tmp_path: Path) -> None:
    # (install.sh's words where the device's hot reset loaded the new driver)
    ev = _write_log(
        tmp_path,
        "[Driver] [2024-05-01 10:00:00] [INFO]Start time: 2024-05-01 10:00:00\n"
        "[Driver] [2024-05-01 10:00:09] [INFO]upgradePercentage:100%\n"
        "[Driver] [2024-05-01 10:00:09] [INFO]\x1b[32mDriver package upgraded successfully! "
        "The new version takes effect immediately. \x1b[0m\n",
    )
    assert not ev.failures
    assert any("takes effect immediately" in m for m in heldout.said(ev))
    level, _ = heldout.imported(ev)
    assert level == "READY"


def test_an_older_untagged_install_success_line_waits_for_a_reboot(tmp_path: Path) -> None:
    # (older packages' last words with no tag, as the A800-9000 upgrade guide prints them)
    ev = _write_log(
        tmp_path,
        "$ ./A800-9000-npu-firmware_1.73.run --upgrade\n"
        "Firmware package install success! Reboot needed for installation/upgrade to take effect!\n",
    )
    (pending,) = ev.failures
    assert (pending["kind"], pending["line"]) == ("npu_package_reboot_pending", 2)
    assert "Ascend firmware package installed" in pending["exception_type"]


def test_an_installer_that_failed_is_no_reboot_pending(tmp_path: Path) -> None:
    ev = _write_log(
        tmp_path,
        "[Driver] [2024-05-01 10:00:00] [INFO]Start time: 2024-05-01 10:00:00\n"
        "[Driver] [2024-05-01 10:00:01] [ERROR]ERR_NO:0x0090;ERR_DES:uninstall driver failed\n",
    )
    assert not [f for f in ev.failures if f["kind"] == "npu_package_reboot_pending"]


# --- upgrade-tool's firmware versions ----------------------------------------------------------


def test_upgrade_tool_says_npu_0s_firmware_version() -> None:
    ev = _load(UPGRADE_TOOL)
    assert ev.files[0].formats == ["ascend_notes"]
    assert heldout.said(ev) == [
        "ascend_notes: upgrade-tool --version: NPU 0's firmware component(s): nve 7.5.0.2.220 "
        "(componentType 0); the versions it runs, not judged"
    ]
    assert not ev.failures
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_upgrade_tool_over_two_devices_under_its_command(tmp_path: Path) -> None:
    # (the tool's own braces round its answers, as MindCluster's environment check saves them)
    ev = _write(
        tmp_path,
        "[root@node1 ~]# /usr/local/Ascend/driver/tools/upgrade-tool --device_index -1 "
        "--component -1 --version\n"
        "{\n"
        "Get component version(7.7.5.0.b019) succeed for deviceId(0), componentType(0).\n"
        '\t{"device_id":0, "component":nve, "version":7.7.5.0.b019}\n'
        "Get component version(7.7.5.0.b019) succeed for deviceId(0), componentType(3).\n"
        '\t{"device_id":0, "component":uefi, "version":7.7.5.0.b019}\n'
        "Get component version(7.7.5.0.b019) succeed for deviceId(1), componentType(0).\n"
        '\t{"device_id":1, "component":nve, "version":7.7.5.0.b019}\n'
        "}\n",
    )
    assert heldout.said(ev) == [
        "ascend_notes: upgrade-tool --version: NPU 0's firmware component(s): nve 7.7.5.0.b019 "
        "(componentType 0), uefi 7.7.5.0.b019 (componentType 3); the versions it runs, not "
        "judged",
        "ascend_notes: upgrade-tool --version: NPU 1's firmware component(s): nve 7.7.5.0.b019 "
        "(componentType 0); the versions it runs, not judged",
    ]


def test_an_installer_log_quoting_upgrade_tool_stays_a_log() -> None:
    ev = load_paths(
        [
            DATA
            / "evidence_heldout_52"
            / "oamtools_ascend_install_910b_fw_7_7_15_upgrade_ok_driver_vermagic_kernel_5_4_vs_6_8_fail_cut.log"
        ]
    )
    assert "ascend_notes" not in ev.files[0].formats
