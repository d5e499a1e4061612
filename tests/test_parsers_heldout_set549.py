"""Outputs of round TTT's held-out evaluation (set 549) that the advisor read wrong or not at all
before this change (tests/data/evidence_heldout_59, sources in tests/data/SOURCES.md)."""

from __future__ import annotations

import pytest

from advisor.parsers import ParseError, nccl_tests, numbered_lines, nvidia_smi
from tests import heldout
from tests.rules_facts import builtin_findings
from tests.test_parsers_heldout_set453 import HELDOUT, _load

A30 = "nvidia_smi_a30_535_mig_enable_pending_in_use_by_another_client_reboot_mig_on_no_devices_5002544.txt"
ESXI = (
    "nvidia_smi_esxi_a100_pcie_510_47_mig_pending_not_supported_wrapped_then_query_enabled_hpe.txt"
)
SALLOC = "salloc_t016_nvidia_smi_no_devices_then_srun_nvidia_smi_418_67_v100_pcie_pawsey_topaz.txt"
NCCL2408 = (
    "nccl2408_sendrecv_perf_chunk_1mib_test_failure_common_cu1454_both_nodes_prterun_exit7_xid31_"
    "mmu_fault.log"
)
NCCL2418 = (
    "nccl2418_all_reduce_perf_524288_test_cuda_failure_illegal_memory_access_common_cu516_"
    "fragment.log"
)
Q610 = "nvidia_smi_q_610_88_kmd_umd_version_rtx3060_laptop_wddm_pcie_gen1_x8_idle_p8.txt"
LOOP = (
    "nvidia_smi_query_gpu_csv_loop_h100_nvl_p0_mem_1_to_90098_of_95830_mib_util_0_100_cut_"
    "thesis_mas.log"
)


def test_a_mig_enable_pending_on_a_gpu_in_use_is_said_with_the_mode_read_after_the_reboot() -> None:
    ev = _load(A30)
    said = heldout.said(ev)
    (note,) = [m for m in said if "MIG enable pending" in m]
    assert note.startswith(
        "nvidia_smi: nvidia-smi -mig: MIG enable pending on GPU 00000000:0B:00.0 (In use by "
        "another client): other processes hold the GPU (NVML_ERROR_IN_USE"
    )
    assert note.endswith(
        "a mode change waiting, not a fault; after it the file reads GPU 00000000:0B:00.0's MIG "
        "mode Enabled (--query-gpu, line 30), Enabled (the table, line 40)"
    )
    assert not [m for m in said if "no CSV row" in m]
    # the --query-gpu row keyed by its bus id alone (-i 0): GPU 0, MIG Enabled
    (row,) = [g for g in ev.gpus if g["query"] == "csv"]
    assert (row["gpu"], row["bus_id"], row["mig_mode"], row["line"]) == (
        0,
        "00000000:0B:00.0",
        "Enabled",
        30,
    )
    (table,) = [g for g in ev.gpus if g["query"] == ""]
    assert (table["name"], table["mig_mode"]) == ("NVIDIA A30", "Enabled*")
    assert not ev.failures


def test_a_wrapped_not_supported_pending_enable_waits_for_a_reboot_and_reads_mig_enabled() -> None:
    ev = _load(ESXI)
    assert ev.files[0].status == "read"
    (note,) = [m for m in heldout.said(ev) if "MIG enable pending" in m]
    # the terminal's wrap ("Not Suppor<spaces>ted") joined
    assert "GPU 00000000:0F:00.0 (Not Supported): this system does not let nvidia-smi reset" in note
    assert "takes effect at the next reboot" in note
    assert note.endswith("MIG mode Enabled (--query-gpu, line 30)")
    (row,) = [g for g in ev.gpus if g["query"] == "csv"]
    assert (row["bus_id"], row["mig_mode"]) == ("00000000:0F:00.0", "Enabled")


def test_a_query_keyed_by_bus_id_takes_the_index_its_command_asked() -> None:
    text = (
        "$ nvidia-smi -i 3 --query-gpu=pci.bus_id,mig.mode.current --format=csv\n"
        "pci.bus_id, mig.mode.current\n"
        "00000000:4E:00.0, Disabled\n"
    )
    (gpu,) = nvidia_smi.parse_query_csv(text)
    assert (gpu.gpu, gpu.bus_id, gpu.mig_mode, gpu.line) == (3, "00000000:4E:00.0", "Disabled", 3)


def test_no_devices_in_the_allocations_shell_then_srun_listing_the_gpu_is_no_missing_gpu() -> None:
    text = (HELDOUT / SALLOC).read_text()
    status = nvidia_smi.parse_status(text)
    (gpu,) = status.gpus
    assert (gpu.name, gpu.bus_id, gpu.line) == ("Tesla V100-PCIE...", "00000000:18:00.0", 15)
    (note,) = status.warnings
    assert note.line == 6 and not note.skipped
    assert note.message == (
        "nvidia-smi's 'No devices were found' (line 6) ran outside the Slurm job's step: 'srun "
        "... nvidia-smi' (line 7), inside it, lists GPU 0 (Tesla V100-PCIE..., 00000000:18:00.0) "
        "(Slurm gives a job's GPUs to the steps srun starts; salloc's own shell runs outside "
        "them): no GPU is missing"
    )
    # what a log reader asks of its "No devices were found" lines (the numbered lines it holds)
    stepped = nvidia_smi.no_devices_in_job_step(numbered_lines(text))
    assert {no: (at, [(g.gpu, g.line) for g in gpus]) for no, (at, gpus) in stepped.items()} == {
        6: (7, [(0, 15)])
    }
    # no srun after it (ssh instead), or srun's own answer: nothing says the GPUs are there
    ssh = text.replace("srun -n1 nvidia-smi", "ssh t016 nvidia-smi")
    assert nvidia_smi.no_devices_in_job_step(numbered_lines(ssh)) == {}
    srun_none = "$ srun -w t017 nvidia-smi\nNo devices were found\n" + text.split("\n", 6)[6]
    assert list(nvidia_smi.no_devices_in_job_step(numbered_lines(srun_none))) == []


def test_test_failure_lines_after_a_footer_are_another_runs_failure_with_the_launchers_code() -> (
    None
):
    parsed = nccl_tests.parse((HELDOUT / NCCL2408).read_text())
    footer, failed = parsed.tables
    assert (footer.op, footer.complete, footer.avg_busbw_gbytes_s, footer.header_line) == (
        "send_recv",
        True,
        13.09,
        6,
    )
    assert (failed.op, failed.complete, failed.rows, failed.header_line) == (
        "send_recv",
        False,
        [],
        9,
    )
    assert failed.failed_on == [
        "node-a (pid 1871349): common.cu:1454",
        "node-b (pid 2073154): common.cu:1454",
    ]
    assert failed.launcher_exit == "prterun: a process exited non-zero, exit code 7 (line 12)"
    ev = _load(NCCL2408)
    assert [(b["op"], b["complete"]) for b in ev.benchmarks] == [
        ("send_recv", True),
        ("send_recv", False),
    ]
    (note,) = [m for m in heldout.said(ev) if "a run failed" in m]
    assert "it comes after the footer of the run above (line 6)" in note
    found = builtin_findings(
        {"evidence.benchmarks": ev.benchmarks, "evidence.failures": ev.failures}, "nccl"
    )
    (item,) = found["evidence-benchmark-cut-short"].items
    assert item.endswith(
        "no size was measured and no final summary follows (0 size(s); the log has no header "
        "line naming the sizes asked; nccl-tests' 'Test failure' (line 9) on node-a (pid "
        "1871349): common.cu:1454; node-b (pid 2073154): common.cu:1454; prterun: a process "
        "exited non-zero, exit code 7 (line 12))"
    )


def test_a_rows_leading_cells_before_a_cuda_failure_are_the_size_the_run_stopped_in() -> None:
    parsed = nccl_tests.parse((HELDOUT / NCCL2418).read_text())
    (table,) = parsed.tables
    assert (table.stopped_in, table.stopped_line, table.rows, table.complete) == (
        524288,
        1,
        [],
        False,
    )
    assert table.failed_on == [
        "a process the copy does not name: common.cu:731, common.cu:958, all_reduce.cu:574"
    ]
    (note,) = parsed.warnings
    assert note.line == 1 and note.message.startswith(
        "the run stopped in its 524288 B size: its row holds only its leading cells"
    )
    ev = _load(NCCL2418)
    assert ev.files[0].status == "read"
    assert not [m for m in heldout.said(ev) if "unreadable" in m]
    (bench,) = ev.benchmarks
    assert (bench["complete"], bench["results"]) == (False, [])
    assert "it stopped in its 524288 B size" in bench["progress"]
    # the CUDA failure after it is the run's own
    (cuda,) = [f for f in ev.failures if f["kind"] == "cuda_error"]
    assert cuda["line"] == 2


def test_a_rows_leading_cells_with_nothing_after_them_are_still_an_unreadable_row() -> None:
    with pytest.raises(ParseError, match="unreadable nccl-tests row"):
        nccl_tests.parse("524288        131072     float     sum      -1\n")


def test_a_newer_drivers_kmd_and_cuda_umd_versions_are_the_q_pages_driver_and_cuda() -> None:
    text = (HELDOUT / Q610).read_text()
    assert nvidia_smi.query_versions(text) == ("610.88", "13.3")
    ev = _load(Q610)
    (gpu,) = ev.gpus
    assert (gpu["driver"], gpu["cuda"], gpu["name"]) == (
        "610.88",
        "13.3",
        "NVIDIA GeForce RTX 3060 Laptop GPU",
    )
    # the old lines alone, with their note after the value
    old = (
        "Driver Version : 610.88 [Deprecated; will be removed in CUDA 14.0. Use KMD Version "
        "instead]\nCUDA Version : 13.3 [Deprecated]\n"
    )
    assert nvidia_smi.query_versions(old) == ("610.88", "13.3")


def test_a_looped_query_of_one_gpu_by_name_is_its_samples_not_74_gpus() -> None:
    read = nvidia_smi.read_query_csv((HELDOUT / LOOP).read_text())
    (gpu,) = read.gpus
    assert (gpu.gpu, gpu.name, gpu.line, gpu.perf, gpu.memory_used_mib, gpu.memory_total_mib) == (
        0,
        "NVIDIA H100 NVL",
        75,
        "",
        90098,
        95830,
    )
    (note,) = read.notes
    assert note.line == 2 and not note.skipped
    assert note.message == (
        "nvidia-smi --query-gpu: 74 rows, 74 samples of 1 GPU(s) (NVIDIA H100 NVL), 2026/02/25 "
        "10:04:37.416 to 2026/02/25 10:05:50.437 (no index or bus id; a row stamped half a second "
        "or more after the one above starts the next sample): each GPU read from its latest "
        "sample; pstate P0; utilization.gpu 0-100 %; utilization.memory 0-52 %; memory.total "
        "95830 MiB; memory.used 1-90098 MiB"
    )
    (only,) = _load(LOOP).gpus
    assert (only["name"], only["memory_used_mib"]) == ("NVIDIA H100 NVL", 90098)


_HEADER = "name, timestamp, memory.used [MiB]\n"


def test_one_querys_rows_stamped_apart_by_milliseconds_stay_distinct_gpus() -> None:
    rows = "".join(
        f"NVIDIA H100 80GB HBM3, 2026/02/25 10:04:37.{400 + i}, {i} MiB\n" for i in range(8)
    )
    gpus = nvidia_smi.parse_query_csv(_HEADER + rows)
    assert [(g.gpu, g.memory_used_mib) for g in gpus] == [(i, i) for i in range(8)]


def test_two_passes_of_two_gpus_are_two_gpus_at_their_latest_sample() -> None:
    rows = (
        "NVIDIA A100-SXM4-40GB, 2026/02/25 10:04:37.400, 1 MiB\n"
        "NVIDIA A100-SXM4-40GB, 2026/02/25 10:04:37.402, 2 MiB\n"
        "NVIDIA A100-SXM4-40GB, 2026/02/25 10:04:38.401, 3 MiB\n"
        "NVIDIA A100-SXM4-40GB, 2026/02/25 10:04:38.403, 4 MiB\n"
    )
    read = nvidia_smi.read_query_csv(_HEADER + rows)
    assert [(g.gpu, g.memory_used_mib, g.line) for g in read.gpus] == [(0, 3, 4), (1, 4, 5)]
    assert read.notes[0].message.startswith("nvidia-smi --query-gpu: 4 rows, 2 samples of 2 GPU(s)")


def test_more_unstamped_rows_by_name_than_a_host_holds_are_samples_of_gpus_not_told_apart() -> None:
    rows = "".join(f"NVIDIA H100 NVL, {i} MiB, 95830 MiB\n" for i in range(40))
    with pytest.raises(nvidia_smi.ValuesOnlyQuery):
        nvidia_smi.parse_query_csv("name, memory.used [MiB], memory.total [MiB]\n" + rows)
