"""Outputs of round XXX's held-out evaluation (set 571) that the advisor read wrong or not at all
before this change (tests/data/evidence_heldout_61, sources in tests/data/SOURCES.md): an
ascend-dmi command that could not load libdcmi.so, hccl_test's ranks printing one check in two
spacings, MindCluster's npu-smi samples with a frequency reduction, a driver upgrade's installer
lines under npu-smi's DCMI failure, and DCMI's own log of a vNPU it could not create."""

from __future__ import annotations

import re
import time
from functools import partial

from advisor.evidence.load import load_paths, load_text
from advisor.parsers import ascend_dmi, hccl_test, logs, numbered_lines
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_61"
DMI_C = (
    "ascend_dmi_c_failed_to_load_libdcmi_so_then_npu_smi_24_1_rc2_b010_xxxx_ok_toolbox600_faq.txt"
)
HCCL_TEST = (
    "hccl_test_hostfile_vs_p_mismatch_retcode_11_init_hcclcomm_hccl_test_common_503_hcclug60.log"
)
DETAILS = "mindcluster_npu_smi_2_details_csv_dev2_freq_1000_to_800_at_40_43c.csv"
UPGRADE = (
    "npu_smi_info_dcmi_module_initialize_failed_8001_then_a300_3010_driver_24_1_rc3_1_upgrade"
    "_log_cce_faq_cut.txt"
)
VNPU = "dcmi_vnpu_create_cfg_rename_errno_30_write_failed_8001_910b4_driver_24_1_0_3_forum.log"


_load = partial(heldout.load, HELDOUT)


def test_an_ascend_dmi_command_that_could_not_load_libdcmi_is_a_tool_failure() -> None:
    ev = _load(DMI_C)
    (report,) = ev.files
    assert report.formats == ["npu_smi_info", "ascend_dmi_flops"]
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"], fail["library"]) == ("ascend_tool_failure", 2, "Ascend DMI")
    assert fail["message"].startswith("Failed to load the libdcmi.so dynamic library.")
    assert fail["exception_type"].startswith(
        "ascend-dmi -c could not load libdcmi.so (the toolbox FAQ's causes: the driver installed "
        "wrong"
    )
    assert fail["exception_type"].endswith("the command did not run")
    assert "evidence-ascend-tool-failure" in heldout.found(ev, "hccl")
    # (npu-smi info below it is still read: the driver answers)
    (chip,) = ev.npu_chips
    assert (chip["npu"], chip["health"], chip["power_w"], chip["temp_c"]) == (0, "OK", 9.6, 56)


def test_a_later_flops_run_does_not_clear_another_commands_library() -> None:
    runs = ascend_dmi.parse_flops(
        "# ascend-dmi -c\nFailed to load the libdcmi.so dynamic library. Check the environment "
        "configuration dependency.\n"
    )
    assert [(r.option, r.load_failed[:2] if r.load_failed else None) for r in runs] == [
        ("-c", (2, "libdcmi.so"))
    ]


def test_each_ranks_check_is_counted_however_it_spaced_retcode() -> None:
    failure = hccl_test.read_init_failure((HELDOUT / HCCL_TEST).read_text())
    assert failure is not None
    assert (failure.line, failure.code, failure.same_lines) == (3, 11, [4, 5])
    # the step's line stands under the last of the three ranks' checks
    assert failure.stage == "init_hcclComm"
    ev = _load(HCCL_TEST)
    (fail,) = ev.failures
    assert "; 3 processes printed it (lines 3, 4, 5)" in fail["message"]
    assert "evidence-hccl-call-failed" in heldout.found(ev, "hccl")


def test_a_frequency_reduction_mindclusters_check_calls_one_is_a_warning() -> None:
    ev = _load(DETAILS)
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"], fail["device"], fail["code"]) == (
        "npu_freq_reduced",
        10,
        2,
        "NODE_RES_ABNORMAL_01",
    )
    assert fail["exception_type"].startswith(
        "device 2: freq under 1000 (MindCluster's rated frequency where the CSV names none), "
        "down to 800, for 6 samples in a row (lines 10-15), temp 40-43 (under 105"
    )
    found = heldout.found(ev, "hccl")
    assert found["evidence-npu-freq-reduced"].severity == "warning"
    # the note of the device's ranges is still said
    assert "freq under its highest (1000) in 1 stretch(es)" in heldout.said(ev)[0]


def test_a_reduction_at_105_or_hotter_is_mindclusters_over_temperature() -> None:
    ev = load_paths(
        [
            DATA
            / "evidence_heldout_43"
            / "mindcluster_env_check_npu_smi_0_details_csv_dev0_temp107_freq1000_to_800_throttle.csv"
        ]
    )
    (fail,) = ev.failures
    assert (fail["line"], fail["code"]) == (8, "NODE_RES_ABNORMAL_02")


def test_short_drops_and_a_device_that_never_ran_faster_are_notes_only() -> None:
    head = "time,dev_id,power,freq,temp\n"
    three_low = "".join(f"{100 + i},0,70,{800 if 2 <= i <= 4 else 1000},40\n" for i in range(8))
    ev = load_text(head + three_low, "npu_smi_0_details.csv")
    assert ev.failures == [] and ev.files[0].formats == ["npu_smi_details"]
    steady = "".join(f"{100 + i},0,70,900,40\n" for i in range(8))
    assert load_text(head + steady, "npu_smi_0_details.csv").failures == []


def test_a_driver_upgrades_installer_lines_are_said_beside_the_dcmi_failure() -> None:
    ev = _load(UPGRADE)
    (fail,) = ev.failures
    assert (fail["kind"], fail["call"], fail["line"]) == ("npu_dcmi_error", "dcmi_init", 2)
    (note,) = [m for m in heldout.said(ev) if "installer" in m]
    assert note == (
        "log: Ascend package installer: [Driver] run "
        "`./A300-3010-npu-driver_24.1.rc3.1_linux-aarch64.run --upgrade` (line 3); base version "
        "24.1.rc3.1 (line 9); a script's error line among its own: "
        "/usr/local/Ascend/driver/script/device_hot_reset.sh: line 269: echo: write error: No "
        "such device (line 13, after 'device hot reset start'; Huawei Cloud's CCE FAQ shows this "
        "line in a driver upgrade it calls successful); its last progress upgradePercentage 10% "
        "(line 15); the file ends before 100 %"
    )
    assert "evidence-npu-dcmi-init-failed" in heldout.found(ev, "hccl")


def test_dcmis_own_log_of_a_failed_vnpu_creation_names_its_first_error() -> None:
    ev = _load(VNPU)
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"], fail["call"], fail["code"]) == (
        "npu_dcmi_error",
        4,
        "dcmi_npu_create_vdevice",
        "-8001",
    )
    assert fail["exception_type"] == (
        "DCMI's vNPU creation (dcmi_npu_create_vdevice) failed: -8001 "
        "DCMI_ERR_CODE_INVALID_PARAMETER (an input parameter is wrong); its first error, line 4, "
        "in dcmi_cfg_check_cfg_path: rename error. errno is 30 (errno 30 = EROFS, Read-only file "
        "system) (lines 4-7, 4 DCMI log line(s))"
    )
    assert "evidence-npu-dcmi-error" in heldout.found(ev, "hccl")


def test_new_patterns_are_linear_on_a_long_line_and_many_blank_lines() -> None:
    patterns = [
        re.compile(ascend_dmi.FLOPS_SIGNATURE, re.M),
        ascend_dmi._ANY_COMMAND_RE,
        logs._DCMI_LOG_RE,
        logs._DCMI_LOG_FAILED_RE,
        logs._DCMI_LOG_CODE_RE,
        logs._DCMI_LOG_ERRNO_RE,
        logs._INSTALLER_LINE_RE,
        logs._INSTALLER_BASE_RE,
        logs._INSTALLER_PROGRESS_RE,
        logs._INSTALLER_COMMAND_RE,
        logs._SCRIPT_ERROR_RE,
    ]
    for text in (
        "ascend-dmi -c " + "#" * 100_000,
        "#" * 100_000 + "ascend-dmi",
        "[2025/11/14 03:02:54][0041][root][1][dcmi_a.c,f,1]:" + " " * 100_000,
        "[2025/11/14 03:02:54][" + "]" * 100_000,
        "[Driver] [2025-04-17 09:39:16] [INFO]" + " " * 100_000,
        "base version is " + "." * 100_000,
        "a" * 100_000 + "Percentage:",
        "/" + "a" * 99_990 + ".sh: line 1: " + " " * 1000,
        "/x.sh: line 1: " + "e" * 100_000,
        "\n" * 100_000,
    ):
        began = time.process_time()
        for p in patterns:
            p.search(text)
        assert time.process_time() - began < 1.0
    blank = numbered_lines("\n" * 100_000)
    began = time.process_time()
    logs._installer_notes(blank, logs.LogReport())
    logs._dcmi_log_chains(blank, logs.LogReport())
    assert time.process_time() - began < 1.0
