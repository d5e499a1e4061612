"""Outputs of round CCCC's held-out evaluation (set 601, Ascend tool outputs) that the advisor
read in part or not at all before this change (tests/data/evidence_heldout_65, sources in
tests/data/SOURCES.md): a CANN toolkit .deb whose installer found no Python it supports, read as
no format; the runtime's failed device count (drvGetDevNum) that stood first and was not cited,
its rtGetDeviceCount given to "A rank"; a 310P whose device memory and huge pages a loaded service
holds, read with no word of it."""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path

from advisor.parsers import logs, npu_smi, numbered_lines
from advisor.rules.findings import RulesOutcome
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_65"

DEB = (
    "cann_toolkit_deb_postinst_error_no_python3_7_to_3_11_dpkg_configure_exit_1_ubuntu2404_wsl2_"
    "ascend_numpy_notes.txt"
)
DEVNUM = (
    "npu_smi_first_call_drvgetdevnum_87_rtgetdevicecount_507899_resource_busy_dcmi_8020_all_8_"
    "cards_transpose_perf_report.txt"
)
DUO = "npu_smi_info_25_5_0_310p3_duo_prompt_hugepages_full_mem_37623_of_44278_xwcli36_cut.txt"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")


def _above_info(outcome: RulesOutcome) -> list[str]:
    return [f.rule_id for f in outcome.findings if f.severity != "info"]


def _items(outcome: RulesOutcome, rule_id: str) -> list[str]:
    (finding,) = [f for f in outcome.findings if f.rule_id == rule_id]
    return [str(item) for item in finding.items]


# --- the CANN toolkit's installer and dpkg ----------------------------------------------------


_NO_PYTHON = (
    "There is no python3.7,python3.8,python3.9,python3.10,python3.11 in the current environment !"
)


def test_a_deb_whose_cann_installer_found_no_python_is_a_failed_install() -> None:
    ev = _load(DEB)
    assert ev.files[0].formats == ["log"]
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"], fail["library"]) == (
        "install_failed",
        1,
        "CANN installer [Toolkit]",
    )
    assert fail["exception_type"] == (
        f"the CANN package installer ([Toolkit]) stopped on its ERROR line: {_NO_PYTHON}; then "
        "dpkg could not configure ascend-cann-toolkit: installed ascend-cann-toolkit package "
        "post-installation script subprocess returned error exit status 1 (line 2)"
    )
    assert (fail["rank"], fail["host"], fail["device"]) == (None, None, None)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert _above_info(outcome) == ["evidence-install-failed"]
    (item,) = _items(outcome, "evidence-install-failed")
    assert item.endswith(f"({HELDOUT / DEB}, line 1)")
    assert not any("no form the advisor reads" in m for m in heldout.said(ev))


def test_the_installers_run_package_lines_and_dpkg_alone_read_the_same(tmp_path: Path) -> None:
    # the run package by hand (another tag, a prompt before it, the ERROR then its own "install
    # failed"): its first ERROR line; dpkg's failure with no installer line above it (old dpkg,
    # no "package" word): dpkg's own line, its reason quoted
    ev = _write(
        tmp_path,
        "root@node1:~# ./Ascend-cann-kernels-910b_8.0.0_linux-aarch64.run --install\n"
        "[kernels_910b] [20250609-15:51:49] [INFO] LogFile:/var/log/ascend_seclog/x.log\n"
        "[kernels_910b] [20250609-15:51:50] [ERROR] the toolkit is not installed.\n"
        "[kernels_910b] [20250609-15:51:50] [ERROR] install failed\n",
    )
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"]) == ("install_failed", 3)
    assert fail["exception_type"].endswith("ERROR line: the toolkit is not installed.")
    ev = _write(
        tmp_path,
        "Setting up ascend-cann-toolkit (8.2.rc1) ...\n"
        "dpkg: error processing ascend-cann-toolkit (--configure):\n"
        " subprocess installed post-installation script returned error exit status 2\n"
        "E: Sub-process /usr/bin/dpkg returned an error code (1)\n",
    )
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"], fail["library"]) == ("install_failed", 2, "dpkg")
    assert fail["exception_type"] == (
        "dpkg could not configure ascend-cann-toolkit: subprocess installed post-installation "
        "script returned error exit status 2"
    )


def test_an_installers_error_it_went_past_and_a_clean_install_are_no_failure(
    tmp_path: Path,
) -> None:
    # an ERROR line of a step, then the package's summary that it went in: no failure
    ev = _write(
        tmp_path,
        "[Toolkit] [20230710-22:44:15] [INFO] install start\n"
        "[Toolkit] [20230710-22:44:16] [ERROR] some step failed, retrying\n"
        "[Toolkit] [20230710-22:46:33] [INFO] CANN-ncs-6.3.0.1.241-linux.aarch64.run --full "
        "--quiet --nox11 --install-for-all install success\n"
        "\n"
        "Toolkit:  Ascend-cann-toolkit_6.3.RC1_linux-aarch64 install success, installed in "
        "/usr/local/Ascend.\n",
    )
    assert not [f for f in ev.failures if f["kind"] == "install_failed"]


# --- the runtime's failed device count ---------------------------------------------------------


def test_the_runtimes_failed_device_count_is_cited_first_with_no_rank() -> None:
    ev = _load(DEVNUM)
    # (EL0005, line 3, and npu-smi's DCMI -8020, line 6, read as before)
    assert sorted((f["kind"], f["line"]) for f in ev.failures) == [
        ("hccl_error", 3),
        ("npu_dcmi_error", 1),
        ("npu_dcmi_error", 6),
    ]
    count = min(ev.failures, key=lambda f: f["line"])
    assert (count["kind"], count["line"], count["call"], count["code"]) == (
        "npu_dcmi_error",
        1,
        "drvGetDevNum",
        "87",
    )
    assert count["exception_type"] == (
        "the driver would not count the devices (drvGetDevNum): 87 DRV_ERROR_RESOURCE_OCCUPIED "
        "(the devices are busy: another process or container holds them); the runtime's "
        "rtGetDeviceCount then returned 507899 ACL_ERROR_RT_DRV_INTERNAL_ERROR (line 2); no NPU "
        "could be used by this process"
    )
    assert all(f["rank"] is None and f["host"] is None for f in ev.failures)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    fired = _above_info(outcome)
    assert "evidence-npu-devices-unavailable" in fired
    assert "evidence-npu-dcmi-init-failed" in fired
    assert "evidence-npu-runtime-error" not in fired  # (its 507899 is the count's, said there)
    (item,) = _items(outcome, "evidence-npu-devices-unavailable")
    assert item.endswith(f"({HELDOUT / DEVNUM}, line 1)")
    assert not any("A rank" in i for r in fired for i in _items(outcome, r))


def test_the_runtimes_count_failure_in_a_plog_reads_the_same(tmp_path: Path) -> None:
    # a plog's own lines (CANN 8's RUNTIME module with its time and source), another code (7:
    # a head node with no NPU, MindCluster's verl guide): the same call, its runtime code folded
    ev = _write(
        tmp_path,
        "[ERROR] RUNTIME(38734,python3):2025-03-06-01:09:07.262.154 [driver.cc:64]38734 "
        "GetDeviceCount:Call drvGetDevNum, drvRetCode=7.\n"
        "[ERROR] RUNTIME(38734,python3):2025-03-06-01:09:07.262.277 [api_c_device.cc:23]38734 "
        "rtGetDeviceCount:ErrCode=507899, desc=[driver error:internal error], InnerCode=0x7020010\n",
    )
    count = min(ev.failures, key=lambda f: f["line"])
    assert (count["kind"], count["line"], count["call"], count["code"]) == (
        "npu_dcmi_error",
        1,
        "drvGetDevNum",
        "7",
    )
    assert "DRV_ERROR_INNER_ERR" in count["exception_type"]
    assert not [f for f in ev.failures if f["kind"] == "npu_runtime_error"]


# --- a 310P's device memory and huge pages held -----------------------------------------------


def test_a_310p_whose_memory_and_huge_pages_a_service_holds_is_a_warning() -> None:
    ev = _load(DUO)
    first, second = ev.npu_chips
    assert (first["memory_used_mb"], first["memory_total_mb"], first["memory_used_pct"]) == (
        37623,
        44278,
        85.0,
    )
    assert (first["hugepages_used"], first["hugepages_total"]) == (18047, 18047)
    assert (second["hugepages_used"], second["hugepages_total"]) == (18135, 18135)
    assert second["memory_used_mb"] is None  # (its second row is where the copy ends)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert _above_info(outcome) == ["evidence-npu-hbm-held"]
    assert _items(outcome, "evidence-npu-hbm-held") == [
        "NPU 0 chip 0 (0000:01:00.0): memory 37623 of 44278 MB (85.0 %; a 310P's device memory, "
        "no HBM), huge pages 18047 of 18047 in use, AICore 0 %; no process listed in this copy "
        f"({HELDOUT / DUO}, line 8)",
        "NPU 0: memory not in this copy (its row cut), huge pages 18135 of 18135 in use; no "
        f"process listed in this copy ({HELDOUT / DUO}, line 11)",
    ]


def test_idle_310p_chips_and_a_910s_control_memory_are_no_finding(tmp_path: Path) -> None:
    # the same card idle (0 / 0 huge pages, 1.5 of 44 GB), another card number: nothing said
    head = (HELDOUT / DUO).read_text().splitlines()[1:7]
    idle = "\n".join(
        [
            *head,
            "| 3       310P3                 | OK              | NA           45                "
            "0     / 0             |",
            "| 0       6                     | 0000:81:00.0    | 0            1529 / 44280       "
            "                     |",
            "+===============================+=================+=================================="
            "====================+",
        ]
    )
    ev = _write(tmp_path, idle + "\n")
    (chip,) = ev.npu_chips
    assert (chip["npu"], chip["device"], chip["memory_used_pct"], chip["hugepages_used"]) == (
        3,
        6,
        3.5,
        0,
    )
    level, outcome = heldout.imported(ev)
    assert (level, _above_info(outcome)) == ("READY", [])
    # a 910's Memory-Usage is its control CPU's memory beside the HBM: not the device memory
    smi = (
        "+------------------------------------------------------------------------------------+\n"
        "| npu-smi 23.0.0                   Version: 23.0.0                                   |\n"
        "+----------------------+---------------+---------------------------------------------+\n"
        "| NPU   Name           | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|\n"
        "| Chip                 | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |\n"
        "+======================+===============+=============================================+\n"
        "| 0     910B           | OK            | 70.1        40                0    / 0             |\n"
        "| 0                    | 0000:C1:00.0  | 0           12000/ 15039      2800 / 32768         |\n"
        "+======================+===============+=============================================+\n"
    )
    (chip,) = _write(tmp_path, smi).npu_chips
    assert (chip["memory_used_pct"], chip["hbm_used_pct"]) == (None, 8.5)


def test_new_patterns_are_linear_on_a_long_line_and_many_blank_lines() -> None:
    patterns = [
        logs._CANN_INSTALLER_LINE_RE,
        logs._CANN_INSTALLED_RE,
        logs._DPKG_ERROR_RE,
        logs._DPKG_EXIT_RE,
        logs._DEVICE_COUNT_RE,
        npu_smi._PAIR_RE,
    ]
    for text in (
        "[Toolkit] [20250912-21:52:11] [ERROR]" + " " * 100_000,
        "[" + "a" * 100_000,
        " " * 100_000 + "x",
        "Toolkit: " + "Ascend-" * 20_000,
        "dpkg: error processing package " + "a" * 100_000,
        "subprocess returned error exit status " + "1" * 100_000,
        "Call drvGetDevNum, drvRetCode=" + "-" * 100_000,
        "1 " * 50_000 + "/",
        "\n" * 100_000,
    ):
        began = time.process_time()
        for p in patterns:
            p.search(text)
        assert time.process_time() - began < 1.0
    blank = numbered_lines("\n" * 100_000)
    began = time.process_time()
    logs._install_failures(blank, logs.LogReport())
    assert not logs.has_install_failure("\n" * 100_000 + "] [ERROR]")
    assert time.process_time() - began < 1.0
