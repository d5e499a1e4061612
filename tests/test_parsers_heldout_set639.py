"""Outputs of round IIII's held-out evaluation (set 639, NVIDIA tool outputs) that the advisor read
in part before this change (tests/data/evidence_heldout_69, sources in tests/data/SOURCES.md): an
mscclpp-test table whose out-of-place half is blank, its average and peak busbw "n/a"; nccl-tests
processes' interleaved failures under Slurm's per-task GPU binding, one of four dropped and two
said to have no WARN line above their NVML WARN; dcgmi dmon's refused watches (a field the A100
does not serve) READY on a file that says nothing of the GPUs. The judge's healthy MIG listing
stays a warning, the lead's decision after NVIDIA's MIG User Guide (said at its test)."""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path

from advisor.parsers import GBYTES_TO_GBITS, logs
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_69"

MSCCLPP = "mscclpp_allgather_test_2n16p_3900M_mpi_tag_prefix_in_place_only_busbw229.txt"
MIG = "nvidia_smi_L_h100_pcie_mig_4_devices_3g40gb_3x1g10gb_prompt_indented_scaleway.txt"
NVML = (
    "nccl_tests_slurm_tres_bind_per_task_nvmlDeviceGetHandleByPciBusId_not_found_unhandled_"
    "system_error_4ranks_info.log"
)
DMON = (
    "dcgmi_3.1.3_dmon_d100_e1040_nvlink_l0_tx_error_setting_watches_minus6_feature_not_"
    "supported_a100.txt"
)


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")


# --- mscclpp-test: in-place figures only ----------------------------------------------------------


def test_an_in_place_only_table_reads_its_busbw_from_the_in_place_half() -> None:
    ev = _load(MSCCLPP)
    (bench,) = ev.benchmarks
    (row,) = bench["results"]
    assert row["in_place"] and row["bytes"] == 4089446400 and row["wrong"] == 0
    # the fact is Gbit/s (every *_gbps is): the file's 244.74 / 229.44 GB/s times 8
    assert row["algbw_gbps"] == 244.74 * GBYTES_TO_GBITS
    assert row["busbw_gbps"] == 229.44 * GBYTES_TO_GBITS
    assert bench["avg_busbw_gbps"] == bench["peak_busbw_gbps"] == row["busbw_gbps"]
    assert bench["ranks"] is None and bench["wrong_total"] == 0
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    (item,) = heldout.items(outcome, "evidence-benchmark-busbw")
    assert "average busbw 1835.5 Gbit/s, peak 1835.5 Gbit/s" in item
    assert "in-place busbw by size: 4089446400 B 1835.5;" in item
    assert "out-of-place" not in item


def test_an_in_place_only_table_of_two_sizes_averages_them(tmp_path: Path) -> None:
    # no launcher tag, two sizes: the average of the in-place rows, the larger the peak
    text = (
        "#                                        in-place                       out-of-place\n"
        "#       size         count     time   algbw   busbw  #wrong     time   algbw   busbw  #wrong\n"
        "#        (B)    (elements)     (us)  (GB/s)  (GB/s)             (us)  (GB/s)  (GB/s)\n"
        "   1073741824     16777216     5000  214.75  201.33      0\n"
        "   2147483648     33554432     9000  238.61  223.70      0\n"
        "# Out of bounds values : 0 OK\n"
    )
    (bench,) = _write(tmp_path, text).benchmarks
    assert all(r["in_place"] for r in bench["results"])
    assert round(bench["avg_busbw_gbps"] / GBYTES_TO_GBITS, 3) == round((201.33 + 223.70) / 2, 3)
    assert round(bench["peak_busbw_gbps"] / GBYTES_TO_GBITS, 2) == 223.70


# --- nccl-tests: four processes' interleaved failures, each with its NVML WARN ------------------


def test_each_process_failure_is_counted_with_its_own_warn() -> None:
    ev = _load(NVML)
    failed = [f for f in ev.failures if f["kind"] == "nccl_call_failure"]
    # the pid of lines 28 and 31 is the one whose main thread passed the result up just above
    # (its ".. my-node pid N" lines below are interleaved)
    assert [(f["line"], f["pid"]) for f in failed] == [
        (24, 7039),
        (28, 7040),
        (31, 7041),
        (43, 7038),
    ]
    assert all(f["code_name"] == "ncclSystemError" and f["host"] == "my-node" for f in failed)
    assert all(
        f["exception_type"].startswith(
            "nvmlDeviceGetHandleByPciBusId() failed: Not Found (its WARN); NCCL's trace then at "
            "graph/xml.cc:761 -> 2"
        )
        for f in failed
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    items = heldout.items(outcome, "evidence-nccl-call-failed")
    assert len(items) == 4
    assert not any("no WARN line" in i for i in items)


def test_warn_level_copy_counts_each_failure_its_pid_lines_name(tmp_path: Path) -> None:
    # NCCL_DEBUG=WARN: no INFO trace names lines 28 and 31's processes; the four ".. my-node pid
    # N" lines say four processes failed, so the two unnamed lines alike are two failures
    text = "".join(
        line
        for line in (HELDOUT / NVML).read_text().splitlines(keepends=True)
        if "NCCL INFO" not in line
    )
    ev = _write(tmp_path, text)
    failed = [f for f in ev.failures if f["kind"] == "nccl_call_failure"]
    assert len(failed) == 4
    named = {f["pid"]: f["exception_type"] for f in failed if f["pid"] is not None}
    assert named == {
        7039: "nvmlDeviceGetHandleByPciBusId() failed: Not Found (its WARN)",
        7038: "nvmlDeviceGetHandleByPciBusId() failed: Not Found (its WARN)",
    }


def test_one_failure_line_quoted_twice_without_pid_lines_stays_one(tmp_path: Path) -> None:
    line = "node01: Test NCCL failure common.cu:1126 'unhandled system error'\n"
    ev = _write(tmp_path, line + line)
    assert len([f for f in ev.failures if f["kind"] == "nccl_call_failure"]) == 1


# --- dcgmi dmon: watches refused --------------------------------------------------------------


def test_dmon_watches_refused_is_a_warning_not_a_gpu_fault() -> None:
    ev = _load(DMON)
    assert ev.files[0].formats == ["dcgmi_dmon"]
    (refused,) = ev.failures
    assert refused["kind"] == "dcgm_watch_refused" and refused["code"] == "-6"
    assert refused["line"] == 4
    assert "(Result -6: Feature not supported)" in refused["exception_type"]
    assert not ev.gpus and not ev.nvlinks
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-dcgmi-dmon-watch-refused", "warning")]
    (item,) = heldout.items(outcome, "evidence-dcgmi-dmon-watch-refused")
    assert "DCGM's own failure, not a GPU fault" in item and item.endswith("line 4)")


def test_dmon_refusal_with_another_code_and_a_prompt_prefix_warns_too(tmp_path: Path) -> None:
    text = (
        "root@node7:~# dcgmi dmon -e 1011,1012 -c 5\n"
        "#Entity   NVLTX          NVLRX\n"
        "ID\n"
        "Error setting watches. Result: -33: This request is serviced by a module of DCGM that "
        "is not currently loaded\n"
    )
    ev = _write(tmp_path, text)
    assert [(f["kind"], f["code"], f["line"]) for f in ev.failures] == [
        ("dcgm_watch_refused", "-33", 4)
    ]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-dcgmi-dmon-watch-refused", "warning")]


# --- kept as the lead decided ----------------------------------------------------------------


def test_a_mig_listing_with_prompt_and_indent_is_a_warning_naming_the_instances() -> None:
    # the judge reads an intended MIG layout healthy (a note at most); the lead's decision holds
    # it a warning, as sets 627 and 633: NVIDIA's MIG User Guide (Deployment Considerations,
    # "Application Considerations") has no GPU-to-GPU P2P between MIG instances and CUDA
    # enumerating one instance per process, so a training job cannot use the GPU whole
    ev = _load(MIG)
    (gpu,) = ev.mig_gpus
    assert gpu["gpu"] == 0 and gpu["name"] == "NVIDIA H100 PCIe"
    assert gpu["mig"] == ["3g.40gb", "1g.10gb", "1g.10gb", "1g.10gb"]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-gpu-mig-mode", "warning")]
    (item,) = heldout.items(outcome, "evidence-gpu-mig-mode")
    assert item.startswith(
        "GPU 0 (NVIDIA H100 PCIe): 4 MIG instance(s) (3g.40gb, 1g.10gb, 1g.10gb, 1g.10gb)"
    )


_STATUS_MIG = """\
+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
|   0  NVIDIA A100-SXM4-80GB          On  |   00000000:07:00.0 Off |                   On |
| N/A   33C    P0             62W /  400W |      88MiB /  81920MiB |     N/A      Default |
|                                         |                        |              Enabled |
+-----------------------------------------+------------------------+----------------------+
|   1  NVIDIA A100-SXM4-80GB          On  |   00000000:0F:00.0 Off |                    0 |
| N/A   31C    P0             60W /  400W |       4MiB /  81920MiB |      0%      Default |
|                                         |                        |             Disabled |
+-----------------------------------------+------------------------+----------------------+
"""
_QUERY_MIG = (
    "index, name, pci.bus_id, mig.mode.current\n"
    "0, NVIDIA A100-SXM4-80GB, 00000000:07:00.0, Enabled\n"
    "1, NVIDIA A100-SXM4-80GB, 00000000:0F:00.0, Disabled\n"
)


def test_mig_mode_in_the_status_table_or_a_query_is_the_same_warning(tmp_path: Path) -> None:
    for text in (_STATUS_MIG, _QUERY_MIG):
        level, outcome = heldout.imported(_write(tmp_path, text))
        assert level == "READY WITH WARNINGS"
        assert heldout.above_info(outcome) == [("evidence-gpu-mig-mode", "warning")]
        (item,) = heldout.items(outcome, "evidence-gpu-mig-mode")
        assert item.startswith("GPU 0 (NVIDIA A100-SXM4-80GB): MIG mode Enabled, 00000000:07:00.0")


def test_the_new_patterns_are_linear_on_a_long_line() -> None:
    long = "a" * 200_000
    started = time.perf_counter()
    logs.parse(f"{long}:1:1 [0] NCCL INFO {long} -> \n" + f"{long}: Test NCCL failure x:1 '\n")
    assert time.perf_counter() - started < 5


def test_nothing_invented_is_said_of_the_mscclpp_copy() -> None:
    said = heldout.said(_load(MSCCLPP))
    assert not any("op is unknown" in m for m in said)  # (mscclpp-test names no op: no claim)
    assert not any("ranks, read from busbw / algbw" in m for m in said)
