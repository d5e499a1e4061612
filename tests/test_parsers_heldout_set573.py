"""Outputs of round XXX's held-out set 573 that the advisor read wrong or not at all before this
change (tests/data/evidence_heldout_61, sources in tests/data/SOURCES.md): nvbandwidth in
backticks and with quoted Running lines, nvidia-smi -q -d PERFORMANCE, a refused nvidia-smi -r,
DCGM's diagnostic (NVVS) log, and the NVIDIA device plugin finding no GPU."""

from __future__ import annotations

import re
import time
from functools import partial

from advisor.evidence import load as evidence_load
from advisor.evidence.load import EvidenceFacts
from advisor.parsers import logs, numbered_lines, nvbandwidth, nvidia_smi
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings
from tests.test_parsers_heldout_set568 import report_tables

HELDOUT = DATA / "evidence_heldout_61"

NVB_PTX = (
    "nvbandwidth61_v08_8x_h100_quiet_lemur_h2d_ce_cudaerrorunsupportedptxversion_kernels_cu406_"
    "backticks.log"
)
NVB_QUOTED = (
    "nvbandwidth_h2d_sm_35gbs_vs_d2h_sm_52_8gbs_8gpu_quoted_running_lines_no_header_nvb24.txt"
)
SMI_PERFORMANCE = (
    "nvidia_smi_q_d_performance_495_44_1gpu_0e_00_p0_idle_active_all_throttle_not_active_"
    "mangohud636.txt"
)
SMI_RESET = (
    "nvidia_smi_r_gpu_reset_refused_00000000_1a_00_0_in_use_by_another_client_exit_255_"
    "nvsentinel1692.txt"
)
NVVS_LOG = (
    "dcgmi_diag_r4_nvvs_errors_diag_skus_yaml_bad_file_config_package_missing_shutdownplugin_"
    "undefined_symbol_dcgm120.log"
)
PLUGIN_NO_DEVICES = (
    "k8s_device_plugin_no_devices_found_waiting_indefinitely_then_pod_nvidia_smi_470_74_cuda_"
    "version_na_cut_kdp414.log"
)


_load = partial(heldout.load, HELDOUT)


def _gpus_table(ev: EvidenceFacts) -> str:
    """The report's GPU table of an import of ``ev``, rendered in-process, its tags taken off."""
    table = report_tables(ev, "gpus")
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", table))


def test_nvbandwidth_pasted_in_one_inline_code_span_is_read_with_its_ptx_error() -> None:
    ev = _load(NVB_PTX)
    (run,) = ev.gpu_copy
    assert (run["version"], run["driver"], len(run["devices"])) == ("v0.8", "580.126.09", 8)
    assert {d["name"] for d in run["devices"]} == {"NVIDIA H100 80GB HBM3"}
    (failed,) = run["failed"]
    assert (failed["line"], failed["test"]) == (19, "host_to_device_memcpy_ce")
    # the function's signature and the build's directory left out, the file and line kept
    assert failed["message"] == (
        "[cudaErrorUnsupportedPtxVersion] the provided PTX was compiled with an unsupported "
        "toolchain. in expression cudaGetLastError() (kernels.cu:406)"
    )
    said = heldout.said(ev)
    assert "the backticks of one inline-code span around the whole output taken off" in said
    assert any(
        s.startswith(
            "nvbandwidth: host_to_device_memcpy_ce stopped on a CUDA error of the binary's own "
            "build: its PTX was compiled by a toolchain the driver's PTX JIT does not support"
        )
        for s in said
    )
    found = builtin_findings({"evidence.gpu_copy": ev.gpu_copy}, "nccl")
    (item,) = found["evidence-gpu-copy-test-failed"].items
    assert "kernels.cu:406" in item and "8 device(s): NVIDIA H100 80GB HBM3" in item


def test_nvbandwidths_running_lines_behind_a_quote_name_their_matrices() -> None:
    ev = _load(NVB_QUOTED)
    (run,) = ev.gpu_copy
    assert [(m["line"], m["test"]) for m in run["matrices"]] == [
        (2, "host_to_device_memcpy_sm"),
        (7, "device_to_host_memcpy_sm"),
    ]
    said = heldout.said(ev)
    assert not any("not a row of" in s or "(test not named)" in s for s in said)
    found = builtin_findings({"evidence.gpu_copy": ev.gpu_copy}, "nccl")
    assert set(found) == {"sweep-best-settings"}  # healthy: READY still


def test_smi_q_performance_page_says_its_p_state_driver_and_clock_reasons() -> None:
    ev = _load(SMI_PERFORMANCE)
    (gpu,) = ev.gpus
    assert (gpu["bus_id"], gpu["perf"], gpu["driver"], gpu["cuda"]) == (
        "00000000:0E:00.0",
        "P0",
        "495.44",
        "11.5",
    )
    assert (gpu["clock_reasons"], gpu["throttled"]) == ({"active": ["Idle"]}, [])
    assert (
        "nvidia_smi_query: nvidia-smi -q (driver 495.44): GPU 00000000:0E:00.0: performance state "
        "P0; clock reasons in force: Idle (the others listed Not Active)"
    ) in heldout.said(ev)
    table = _gpus_table(ev)
    assert "driver 495.44, CUDA 11.5; P0; clock reasons Idle active; read: Clocks Throttle" in table
    assert set(heldout.found(ev)) == {"sweep-best-settings"}  # an idle GPU: no finding


def test_a_refused_gpu_reset_names_the_gpu_and_why() -> None:
    ev = _load(SMI_RESET)
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"], fail["library"], fail["exit_code"]) == (
        "gpu_driver_error",
        2,
        "nvidia-smi",
        255,
    )
    assert fail["exception_type"].startswith(
        "nvidia-smi -r could not reset GPU 00000000:1A:00.0: In use by another client "
        "(NVML_ERROR_IN_USE"
    )
    assert fail["exception_type"].endswith("; exit status 255: the GPU was not reset")
    (item,) = heldout.found(ev)["evidence-gpu-driver-error"].items
    assert "00000000:1A:00.0" in item and "line 2" in item


def test_nvvs_log_names_its_config_error_and_its_optional_shutdownplugin_lines() -> None:
    ev = _load(NVVS_LOG)
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"], fail["pid"], fail["library"]) == (
        "dcgm_diag_log_error",
        1,
        4190,
        "DCGM diagnostic (NVVS)",
    )
    assert fail["message"].startswith("Could not read package diag config.")
    assert "(bad file: /usr/share/nvidia-validation-suite/diag-skus.yaml)" in fail["exception_type"]
    # ShutdownPlugin is optional (DCGM 3.2 PluginLib.cpp): no library_missing, both plugins said
    assert not [f for f in ev.failures if f["kind"] == "library_missing"]
    (note,) = [s for s in heldout.said(ev) if s.startswith("log: DCGM's diagnostic (NVVS")]
    assert "a DCGM 3.2 build" in note
    assert (
        "plugin(s) libDiagnostic.so, libSoftware.so without a ShutdownPlugin (line(s) 4, 6)" in note
    )
    (item,) = heldout.found(ev)["evidence-dcgm-diag-log-error"].items
    assert item.startswith("pid 4190: NVVS could not read the diag configuration of its package")


def test_nvidia_device_plugin_with_no_devices_and_a_cut_smi_banner_are_read() -> None:
    ev = _load(PLUGIN_NO_DEVICES)
    (report,) = ev.files
    assert (report.status, report.formats) == ("read", ["nvidia_smi", "log"])
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"], fail["library"]) == (
        "device_not_offered",
        5,
        "NVIDIA device plugin",
    )
    assert "registers no nvidia.com/gpu with kubelet" in fail["exception_type"]
    (banner,) = [m for m in report.messages if m.line == 16]
    assert banner.message.startswith(
        "nvidia_smi: nvidia-smi's banner alone (driver 470.74, CUDA N/A): the copy ends inside the first "
        "GPU's first row"
    )
    assert "'CUDA Version: N/A'" in banner.message
    assert heldout.found(ev)["evidence-devices-not-offered"].items


def test_the_new_patterns_take_linear_time() -> None:
    patterns = [
        nvbandwidth._RUNNING_RE,
        nvbandwidth._CUDA_ERROR_HEAD_RE,
        nvidia_smi._SMI_CUT_INDEX_RE,
        logs._SMI_RESET_HEAD_RE,
        logs._SMI_RESET_GPU_RE,
        logs._EXIT_STATUS_RE,
        logs._DCGM_LOG_HEAD_RE,
        logs._DCGM_BUILD_RE,
        logs._NVIDIA_PLUGIN_NO_DEVICES_RE,
        re.compile(logs.NVVS_SIGNATURE, re.M),
        re.compile(logs.SMI_RESET_SIGNATURE, re.M),
        re.compile(logs.NVIDIA_PLUGIN_NO_DEVICES_SIGNATURE, re.M),
    ]
    head = "2023-10-26 12:30:41.636 ERROR [4190:4190] "
    # (the import's own "log" signature is not timed here: an older alternative of it takes
    # seconds on the "/nvvs/src/a" line, before and after this change alike)
    for text in (
        "> " + " " * 100_000 + "x",
        "exit" + " " * 100_000 + "x",
        "  GPU 00000000:1A:00.0: " + " " * 100_000,
        head + "/nvvs/src/a" * 9_000 + " [",
        head + " [" * 50_000,
        "No devices found. Waiting indefinitely." * 2_500 + " " * 1_000 + "x",
        "[cudaErrorX] in expression " + " in " * 30_000 + "() : x",
        "The following GPUs could not be reset:\n" * 50_000,
        "\n" * 100_000,
    ):
        # this process's CPU time: other jobs on a shared host do not count against it
        start = time.process_time()
        for p in patterns:
            p.search(text)
        lines = numbered_lines(
            text
            + "\nThe following GPUs could not be reset:\n"
            + head
            + "x [/a/nvvs/src/b.cpp:1] [f]\n"
        )
        logs._nvvs_log(lines, logs.LogReport())
        logs._devices_not_offered(lines, logs.LogReport())
        logs.nvidia_tool_failures(text + "\nThe following GPUs could not be reset:\n")
        evidence_load._code_span_around("`" + text + "\n`")
        nvbandwidth._cuda_error_said(text)
        # (2 s: the 50,000 refusal lines take 0.7 s of lines and nvidia-smi's reading on a quiet
        # host, linear, and tipped past 1 s on a loaded one; a quadratic reading takes minutes)
        assert time.process_time() - start < 2.0
        start = time.process_time()
        nvbandwidth.parse("Running a_ce.\n" + text)
        assert time.process_time() - start < 1.0
