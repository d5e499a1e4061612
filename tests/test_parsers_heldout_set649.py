"""Outputs of round KKKK's held-out evaluation (set 649, Ascend tool outputs) that the advisor read
in part before this change (tests/data/evidence_heldout_71, sources in tests/data/SOURCES.md): an
Ascend 950 ``hccn_tool -g -stat`` of port 4, every counter 0, whose item called it "port at line 1
(device not named)" and said nothing of its error counters; and an Ascend install log's
``[Firmware]`` run whose installer found no device on the PCIe bus (``g_dev_nums=[0]``, "pcie
device is missing") and stopped, read as a warning of an unread program's error line."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_71"

STAT950 = "hccn_tool_950_g_stat_port4_all_counters_zero_driver_doc_cut.txt"
NO_DEVICE = (
    "ascend_install_910_93_firmware_7_7_pcie_device_missing_vmcheck_failed_oamtools_asys_cut.log"
)


_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")
_write_log = partial(heldout.load_copy, name="ascend_install.log")

# the lines of the Ascend 950 reference's error counters in the file (err_ind_cnt_rx,
# route_err_cnt_rx, out_err_cnt_rx, length_err_cnt_rx, err_ind_cnt_tx, out_err_cnt_tx,
# length_err_cnt_tx, crc_error_sum)
ERROR_COUNTER_LINES = [14, 20, 21, 22, 35, 37, 38, 43]


# --- Ascend 950's -stat of port 4, every counter 0 --------------------------------------------


def test_a_950_stat_names_its_port_and_says_its_error_counters_are_0() -> None:
    ev = _load(STAT950)
    (port,) = ev.npu_ports
    assert (port["device"], port["die_port"], port["stat"]["port_id"]) == (None, "port 4", 4)
    assert port["stat_errors"] == {}
    assert port["stat_checked_lines"] == ERROR_COUNTER_LINES
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    (item,) = heldout.items(outcome, "evidence-npu-port-state")
    assert item.startswith("port 4 (device not named, line 1):")
    assert "port at line" not in item
    assert "-stat: its 8 error counters all 0 (CRC errors included) (lines 14-43)" in item


def test_a_950_stat_under_its_command_line_with_crc_errors_is_a_warning(tmp_path: Path) -> None:
    # another device, die and port, named by the command line the reference shows above it
    text = _text(STAT950).replace("port_id: 4", "port_id: 6")
    text = text.replace("crc_error_sum: 0", "crc_error_sum: 7")
    ev = _write(tmp_path, "hccn_tool -g -stat -i 3 -u 1 -p 6\n" + text)
    (port,) = ev.npu_ports
    assert (port["device"], port["die_port"]) == (3, "UDie 1 port 6")
    assert port["stat_errors"] == {"crc_error_sum": 7}
    assert port["stat_error_lines"] == [44]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-npu-roce-errors", "warning")]
    (item,) = heldout.items(outcome, "evidence-npu-roce-errors")
    assert item.startswith("NPU 3 UDie 1 port 6: crc_error_sum 7")
    assert item.endswith("line 44)")
    (state,) = heldout.items(outcome, "evidence-npu-port-state")
    assert "error counters above 0: crc_error_sum 7" in state


def test_a_950_stats_retransmissions_alone_are_no_error(tmp_path: Path) -> None:
    # (the reference counts them as retransmission requests, not as errors)
    text = _text(STAT950).replace("retry_req_sum: 0", "retry_req_sum: 12")
    ev = _write(tmp_path, text)
    (port,) = ev.npu_ports
    assert port["stat_errors"] == {}
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    (item,) = heldout.items(outcome, "evidence-npu-port-state")
    assert "its 8 error counters all 0" in item


# --- an Ascend firmware run that found no device on the PCIe bus ------------------------------


def test_a_firmware_run_that_found_no_device_is_a_failed_install() -> None:
    ev = _load(NO_DEVICE)
    (failed,) = ev.failures
    assert (failed["kind"], failed["line"], failed["library"]) == (
        "install_failed",
        12,
        "Ascend installer",
    )
    said = failed["exception_type"]
    assert said.startswith(
        "Ascend firmware package `Ascend910_93-firmware-7.7.t17.0.b106.run --quiet --full` not "
        "installed: its installer found no device for it on the PCIe bus (it counted 0 "
        "device(s), line 11)"
    )
    assert "'pcie device is missing, please make sure" in said
    assert "then 'firmwareHostReady failed.' (line 13), then 'vmCheck failed.' (line 14)" in said
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    # (its error lines are the failed install's, no unread program's error besides)
    assert heldout.above_info(outcome) == [("evidence-install-failed", "critical")]
    (item,) = heldout.items(outcome, "evidence-install-failed")
    assert item.endswith(f"({HELDOUT / NO_DEVICE}, line 12)")


def test_a_driver_run_that_found_no_device_on_another_host_copy_cut_before_its_end(
    tmp_path: Path,
) -> None:
    # the driver's package, the copy cut after its ERROR line (no "End time:"): still failed
    lines = _text(NO_DEVICE).replace("[Firmware]", "[Driver]").splitlines(keepends=True)[:12]
    text = "".join(lines).replace(
        "Ascend910_93-firmware-7.7.t17.0.b106.run", "Ascend910-driver-24.1.rc3.run"
    )
    ev = _write_log(tmp_path, text)
    (failed,) = ev.failures
    assert (failed["kind"], failed["line"]) == ("install_failed", 12)
    assert failed["exception_type"].startswith(
        "Ascend driver package `Ascend910-driver-24.1.rc3.run --quiet --full` not installed"
    )
    assert "then '" not in failed["exception_type"]
    assert heldout.imported(ev)[0] == "NOT READY"


def test_a_later_run_of_the_same_firmware_that_went_in_supersedes_it(tmp_path: Path) -> None:
    # (the source log's next [Firmware] run, 90 s on, found its device and upgraded it: the
    # firmware's own words as tests/data/evidence_heldout_52's run says them)
    later = (
        "[Firmware] [2025-04-23 02:48:49] [INFO]Start time: 2025-04-23 02:48:49\n"
        "[Firmware] [2025-04-23 02:48:49] [INFO]UserCommand: Ascend910B-firmware-7.7.t17.0.b106.run"
        " --quiet --full\n"
        "[Firmware] [2025-04-23 02:48:50] [INFO]g_dev_nums=[1] and g_bdfs=[0000:03:00.0]\n"
        "[Firmware] [2025-04-23 02:48:58] [INFO]upgradePercentage: 100%\n"
        "[Firmware] [2025-04-23 02:48:58] [INFO]firmware upgrade success\n"
        "[Firmware] [2025-04-23 02:48:59] [INFO]End time: 2025-04-23 02:48:59\n"
    )
    ev = _write_log(tmp_path, _text(NO_DEVICE) + later)
    assert not [f for f in ev.failures if f["kind"] == "install_failed"]
    # (the earlier run's error line is still said, as an unread program's)
    assert [(f["kind"], f["line"]) for f in ev.failures] == [("log_error", 12)]
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


def test_a_firmware_run_that_found_its_device_stays_ready(tmp_path: Path) -> None:
    lines = _text(NO_DEVICE).splitlines(keepends=True)
    healthy = "".join(
        [
            *lines[:10],
            lines[10].replace(
                "g_dev_nums=[0] and g_bdfs=[]", "g_dev_nums=[1] and g_bdfs=[0000:03:00.0]"
            ),
            "[Firmware] [2025-04-23 02:47:29] [INFO]upgradePercentage: 100%\n",
            "[Firmware] [2025-04-23 02:47:29] [INFO]firmware upgrade success\n",
            lines[14],
        ]
    )
    ev = _write_log(tmp_path, healthy)
    assert not ev.failures
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_a_toolkit_runs_usage_error_stays_a_warning(tmp_path: Path) -> None:
    # (set 649's [Toolkit] run given no parameters, judged right as a warning: not a driver's or
    # firmware's run, its error line is said as written)
    text = (
        "[Toolkit] [2025-04-08 09:32:14] [INFO]: Start Time: 2025-04-08 09:32:14\n"
        "[Toolkit] [2025-04-08 09:32:15] [INFO]: InputParams: \n"
        "[Toolkit] [2025-04-08 09:32:15] [ERROR]: ERR_NO:0x0004;ERR_DES: Unrecognized parameters."
        " Try './xxx.run --help' for more information.\n"
        "[Toolkit] [2025-04-08 09:32:15] [INFO]: End Time: 2025-04-08 09:32:15\n"
    )
    ev = _write_log(tmp_path, text)
    assert [(f["kind"], f["line"]) for f in ev.failures] == [("log_error", 3)]
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"
