"""Review 69 (part b) of commits 658ca0e, 5a7a25a, eb69795 and f5305bc, faults 1-5: an Azure H200
VM's nccl-tests rank list that prints the bus number alone ("[0x00]" on devices 0-7); a looped
``--query-gpu`` whose GPU 1 showed x16 in P0 and x8 in P8; an RTX 4090 at x16 beside an RTX 4060
Ti at x8; an MLLOG run_stop with no status; an aborted run_stop after rank 3's CUDA OOM: each on
its input (tests/data/review69, described in tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import nccl_tests
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review69"
HELDOUT = DATA / "evidence_heldout_83"

AZURE = "nccl_tests_all_reduce_8_ranks_azure_h200_devices_0_7_each_bus_0x00.txt"
SHARED = "nccl_tests_2_18_0_reduce_scatter_perf_mpi_2_ranks_same_rtx5090_device0_lab_busbw_max_2_73_avg_1_74_default_proto_ebpf_notes_cut.txt"
LOOP = "nvidia_smi_query_gpu_loop_2_a100_gpu1_x16_in_p0_then_x8_in_p8.txt"
MIXED = "nvidia_smi_query_gpu_rtx4090_x16_beside_rtx4060ti_x8_both_p8.txt"
WIDTH = "nvidia_smi_query_gpu_csv_pcie_gen_width_gtx1060_egpu_razer_core_0f00_gen1_x4_plus_lspci_gp106_host_state_report_cut.txt"
NO_STATUS = "mlperf_llama2_lora_run_stop_without_status.log"
AFTER_OOM = "mlperf_llama2_lora_rank3_cuda_oom_then_run_stop_aborted.log"
MLLOG = "nemo_mlperf_v41_llama2_lora_lambda_2node_success_slurmstepd_nvml_ucc_warn_cut.log"

_write = partial(heldout.load_copy, name="copy.txt")
_write_log = partial(heldout.load_copy, name="copy.log")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


def _text(name: str, where: Path = REVIEW) -> str:
    return (where / name).read_text(encoding="utf-8")


# --- 1. nccl-tests: the bus number alone, the same on every GPU -------------------------------


def test_eight_ranks_on_devices_0_7_each_bus_0x00_share_no_gpu() -> None:
    ev = _load(AZURE)
    (bench,) = ev.benchmarks
    assert bench["shared_gpus"] == []
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []


def test_a_bare_bus_with_the_same_device_is_still_one_gpu(tmp_path: Path) -> None:
    lines = _text(AZURE).splitlines()
    # rank 1 on device 0 too: the same host, device number and bus, one GPU
    lines[4] = lines[4].replace("device  1 [0x00]", "device  0 [0x00]")
    assert nccl_tests.parse("\n".join(lines)).shared_gpus == [
        {"host": "test-h200-dsvm", "bus": "0x00", "device": "0", "ranks": [0, 1], "lines": [4, 5]}
    ]
    level, outcome = heldout.imported(_write(tmp_path, "\n".join(lines) + "\n"))
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-nccl-tests-shared-gpu")
    assert ": ranks 0, 1 on test-h200-dsvm device 0 [0x00] (lines 4, 5)" in item


def test_a_full_pci_id_still_names_one_gpu_across_device_numbers() -> None:
    # the real set-723 file: two ranks on lab device 0, [0000:02:00], as before
    (bench,) = _load(SHARED, HELDOUT).benchmarks
    assert bench["shared_gpus"] == [
        {"host": "lab", "bus": "0000:02:00", "device": "0", "ranks": [0, 1], "lines": [5, 6]}
    ]
    lines = _text(AZURE).splitlines()
    full = [
        line.replace("[0x00]", f"[0000:{'1a' if i in (3, 4) else f'{i:02x}'}:00]")
        for i, line in enumerate(lines)
    ]
    # ranks 0 and 1 (devices 0 and 1) both on bus 1a of domain 0000: one GPU by its full id
    assert [(s["ranks"], s["bus"]) for s in nccl_tests.parse("\n".join(full)).shared_gpus] == [
        ([0, 1], "0000:1a:00")
    ]


# --- 2. --query-gpu loop: a width lowered at rest ----------------------------------------------


def test_a_gpu_whose_earlier_sample_was_x16_is_a_note_not_a_warning() -> None:
    ev = _load(LOOP)
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    (note,) = [n for line, n in heldout.notes(ev) if "against x16" in n]
    assert "GPU 1 (00000000:2A:00.0) at x8 against x16 of GPU 0" in note
    assert "earlier sample of it in the copy shows x16" in note
    assert "may be reduced when the GPU is not in use" in note


def test_a_gpu_narrow_in_p0_in_every_sample_is_still_warned(tmp_path: Path) -> None:
    text = _text(LOOP).replace("P0, 4, 16\n0, ", "P0, 4, 8\n0, ").replace("P8, 4, 8", "P0, 4, 8")
    assert text.count(", 8\n") == 2
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-gpu-pcie-width-below-peers")
    assert item.startswith("GPU 1 (00000000:2A:00.0) NVIDIA A100-SXM4-80GB: link width x8")


def test_an_idle_gpu_at_zero_utilization_is_a_note(tmp_path: Path) -> None:
    text = (
        "index, pci.bus_id, name, pstate, utilization.gpu [%], pcie.link.width.current\n"
        "0, 00000000:18:00.0, NVIDIA A100-SXM4-80GB, P0, 97 %, 16\n"
        "1, 00000000:2A:00.0, NVIDIA A100-SXM4-80GB, P8, 0 %, 8\n"
    )
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    assert [n for _, n in heldout.notes(ev) if "at rest (P8, 0 % utilization)" in n]
    busy = text.replace("P8, 0 %", "P8, 40 %")
    level, outcome = heldout.imported(_write(tmp_path, busy))
    assert [f for f, _ in heldout.above_info(outcome)] == ["evidence-gpu-pcie-width-below-peers"]


# --- 3. --query-gpu: GPUs of different models ---------------------------------------------------


def test_an_x8_card_beside_an_x16_card_of_another_model_is_not_compared() -> None:
    ev = _load(MIXED)
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    (note,) = [n for _, n in heldout.notes(ev) if "not compared" in n]
    assert "GPU 1 (NVIDIA GeForce RTX 4060 Ti) at x8" in note


def test_the_set_723_egpu_of_another_name_at_rest_is_a_note_now() -> None:
    # the real file: "GeForce GTX 1060" at x16 and "GeForce GTX 1060 6GB" at x4, both P8: the
    # names differ, so neither is the other's peer (and both are at rest): no warning
    ev = _load(WIDTH, HELDOUT)
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    assert [n for _, n in heldout.notes(ev) if "GPU 1 (NVIDIA GeForce GTX 1060 6GB) at x4" in n]


def test_same_model_peers_among_other_models_are_still_compared(tmp_path: Path) -> None:
    head = _text(MIXED).splitlines()[0]
    rows = [
        "0, 00000000:01:00.0, NVIDIA GeForce RTX 4090, Enabled, P0, 4, 16",
        "1, 00000000:05:00.0, NVIDIA GeForce RTX 4060 Ti, Disabled, P0, 4, 8",
        "2, 00000000:41:00.0, NVIDIA GeForce RTX 4090, Disabled, P0, 4, 4",
    ]
    level, outcome = heldout.imported(_write(tmp_path, "\n".join([head, *rows]) + "\n"))
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-gpu-pcie-width-below-peers")
    assert item.startswith("GPU 2 (00000000:41:00.0) NVIDIA GeForce RTX 4090: link width x4")


# --- 4. MLLOG: a run_stop with no status ----------------------------------------------------------


def test_a_run_stop_without_status_is_a_note_not_aborted() -> None:
    ev = _load(NO_STATUS)
    assert ev.files[0].status == "read" and ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    (note,) = [n for line, n in heldout.notes(ev) if line == 5]
    assert "run_stop gave no status" in note and "quality target" not in note


def test_the_real_success_log_is_still_its_success() -> None:
    ev = _load(MLLOG, HELDOUT)
    _level, outcome = heldout.imported(ev)
    assert [f.rule_id for f in outcome.findings if f.rule_id.startswith("evidence-run-")] == [
        "evidence-run-success"
    ]


def test_an_aborted_status_with_no_error_line_says_none_and_no_cause(tmp_path: Path) -> None:
    text = _text(NO_STATUS).replace('"samples_count": 3456}}\n', "X", 4)
    text = _text(NO_STATUS).replace(
        '"lineno": 195, "samples_count": 3456}',
        '"lineno": 195, "samples_count": 3456, "status": "aborted"}',
    )
    assert text != _text(NO_STATUS)
    level, outcome = heldout.imported(_write_log(tmp_path, text))
    assert level == "READY WITH WARNINGS"
    message, (item,) = heldout.finding(outcome, "evidence-run-aborted")
    assert "no error line says why" not in message and "quality target" not in item
    assert item.startswith('MLPerf\'s run_stop, status "aborted", and no error line of the run')


# --- 5. MLLOG: aborted after rank 3's CUDA OOM ---------------------------------------------------


def test_the_aborted_item_names_the_oom_before_it() -> None:
    ev = _load(AFTER_OOM)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [
        ("evidence-device-out-of-memory", "critical"),
        ("evidence-run-aborted", "warning"),
    ]
    message, (item,) = heldout.finding(outcome, "evidence-run-aborted")
    assert "no error line says why" not in message
    assert item.startswith(
        'MLPerf\'s run_stop, status "aborted", after the error at line 8: '
        "torch.OutOfMemoryError: CUDA out of memory"
    )
    assert "quality target" not in item


def test_an_error_before_an_earlier_run_start_is_not_named(tmp_path: Path) -> None:
    lines = _text(AFTER_OOM).splitlines()
    start = lines[0].replace(
        '"INTERVAL_END", "key": "block_stop"', '"INTERVAL_START", "key": "run_start"'
    )
    assert start != lines[0]
    # the OOM, then a new run_start: the aborted run_stop's run has no error line of its own
    text = "\n".join([*lines[:8], start, *lines[8:]]) + "\n"
    level, outcome = heldout.imported(_write_log(tmp_path, text))
    assert level == "NOT READY"  # (the OOM itself still stands)
    (item,) = heldout.items(outcome, "evidence-run-aborted")
    assert "and no error line of the run above it" in item
