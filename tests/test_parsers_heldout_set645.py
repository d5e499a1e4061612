"""Outputs of round JJJJ's held-out evaluation (set 645, NVIDIA tool outputs) that the advisor
read in part or not at all before this change (tests/data/evidence_heldout_70, sources in
tests/data/SOURCES.md): nvidia-smi dmon's last row of GPU 0 printing "-" for the power and
temperature it had read before, taken as a row the copy cut instead of a GPU that stopped
answering; the CUDA samples' bandwidthTest that stopped on error 802 before any copy, its failure
read but the file partial ("no copy block"); and the key lines of nvidia-smi -q on an RTX 3090
whose "Reset Required : Yes" and "System is not in ready state" fields were not read at all."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from advisor.parsers import nvidia_smi
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_70"

DMON = "nvidia_smi_dmon_4x_tesla_k80_ecc_pci_cols_gpu0_row_only_dashes_at_crash_pubsum.txt"
BANDWIDTH = (
    "cuda_samples_bandwidthtest_centos8_code802_cudaerrorsystemnotready_cudasetdevice_cn_note.txt"
)
QUERY = (
    "nvidia_smi_535_247_i2_q_key_lines_rtx3090_gpu2_reset_required_yes_system_not_in_ready_state_"
    "robotwin2.txt"
)


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")


_text = partial(heldout.text, HELDOUT)


def _kinds(ev: EvidenceFacts) -> list[tuple[str, int]]:
    return [(f["kind"], f["line"]) for f in ev.failures]


# --- nvidia-smi dmon: GPU 0's last row all "-" where it had figures ----------------------------


def test_a_dmon_row_of_dashes_where_the_gpu_gave_figures_is_a_gpu_that_stopped_answering() -> None:
    ev = _load(DMON)
    (f,) = ev.files
    assert (f.formats, f.status) == (["nvidia_smi_dmon"], "read")
    # (no longer set aside as a row the copy cut)
    assert not [m for m in heldout.said(ev) if "the copy cut it" in m]
    assert _kinds(ev) == [("gpu_monitor_unanswered", 15)]
    (row,) = ev.failures
    assert row["device"] == 0
    assert row["exception_type"] == (
        "nvidia-smi dmon could not read GPU 0 at line 15: pwr, gtemp '-' where its earlier "
        "samples read pwr 73 W, gtemp 37-38 C; its row stops after 4 of 15 columns; dmon's "
        "output ends there: GPU 0 stopped answering"
    )
    # the three samples of every GPU before it still read, their ECC and PCIe counts 0
    assert any("nvidia-smi dmon GPU 2: 3 sample(s): pwr 71-128 W" in m for m in heldout.said(ev))
    assert "nvidia-smi dmon: 4 GPU(s), 12 sample(s): sbecc, dbecc, pci 0 in every sample" in (
        " ".join(heldout.said(ev))
    )
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-gpu-monitor-unanswered", "warning")]
    (item,) = heldout.items(outcome, "evidence-gpu-monitor-unanswered")
    assert item.startswith("GPU 0: nvidia-smi dmon could not read GPU 0 at line 15")


def test_another_gpus_full_row_of_dashes_that_answers_again_is_said_so(tmp_path: Path) -> None:
    # GPU 3's row fills its columns with "-" (not cut), then GPU 3 answers again
    lines = _text(DMON).splitlines()
    dashes = "    3" + "     -" * 14
    text = "\n".join([*lines[:14], dashes, *lines[2:6]]) + "\n"
    ev = _write(tmp_path, text)
    (row,) = [f for f in ev.failures if f["kind"] == "gpu_monitor_unanswered"]
    assert (row["device"], row["line"]) == (3, 15)
    said = row["exception_type"]
    assert said.startswith(
        "nvidia-smi dmon could not read GPU 3 at line 15: pwr, gtemp, sm, mem, enc, dec, mclk, "
        "pclk, sbecc, dbecc, pci '-'"
    )
    assert "stops after" not in said
    assert said.endswith("; it answered again at line 19")
    level, _ = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"


def test_dmon_with_date_and_time_columns_names_the_gpu_that_stopped(tmp_path: Path) -> None:
    text = (
        "#Date       Time        gpu   pwr gtemp mtemp    sm   mem\n"
        "#YYYYMMDD   HH:MM:SS    Idx     W     C     C     %     %\n"
        " 20240101   10:00:00      0    60    40     -    90    30\n"
        " 20240101   10:00:00      1    61    41     -    91    31\n"
        " 20240101   10:00:01      0    62    40     -    92    30\n"
        " 20240101   10:00:01      1     -     -\n"
    )
    dmon = nvidia_smi.parse_dmon(text)
    (row,) = dmon.unanswered
    assert (row.gpu, row.line, row.before, row.last) == (1, 6, {"pwr": "61", "gtemp": "41"}, True)


def test_a_gpu_silent_over_many_rows_is_one_finding_said_with_its_rows(tmp_path: Path) -> None:
    # GPU 1 reads "-" in every column for the rest of a long table (its peers go on): one
    # finding, its rows counted, the table read in one pass however long
    lines = _text(DMON).splitlines()
    dashes = "    1" + "     -" * 14
    body = "".join(f"{dashes}\n{lines[2]}\n" for _ in range(5000))
    ev = _write(tmp_path, "\n".join(lines[:14]) + "\n" + body)
    (row,) = [f for f in ev.failures if f["kind"] == "gpu_monitor_unanswered"]
    assert (row["device"], row["line"]) == (1, 15)
    assert row["exception_type"].endswith("; 5000 rows of it read so, to line 10013")
    assert "ends there" not in row["exception_type"]  # (GPU 0's row is the last)


def test_a_healthy_dmon_and_one_cut_inside_a_figure_stay_ready(tmp_path: Path) -> None:
    lines = _text(DMON).splitlines()
    healthy = _write(tmp_path, "\n".join(lines[:14]) + "\n")
    assert not healthy.failures
    assert healthy.files[0].status == "read"
    level, _ = heldout.imported(healthy)
    assert level == "READY"
    # a row cut after figures (not "-") is a copy cut, said, not a GPU that stopped answering
    cut = tmp_path / "cut"
    cut.mkdir()
    ev = heldout.load_copy(
        cut, "\n".join([*lines[:14], "    0    73    37     -"]) + "\n", "copy.txt"
    )
    assert not ev.failures
    assert any("with 4 of its 15 columns (the copy cut it)" in m for m in heldout.said(ev))


def test_a_column_the_gpu_never_reads_is_no_gpu_that_stopped(tmp_path: Path) -> None:
    # mtemp reads "-" from the start on these K80s (no such figure): a row cut after its "-" is
    # a copy cut, not a GPU that stopped answering; one cut after a "-" in pwr, read before, is
    text = (
        "# gpu mtemp   pwr\n# Idx     C     W\n    0     -    73\n    1     -    85\n    0     -\n"
    )
    ev = _write(tmp_path, text)
    assert not [f for f in ev.failures if f["kind"] == "gpu_monitor_unanswered"]
    assert any(
        "a row of GPU 0 with 2 of its 3 columns (the copy cut it)" in m for m in heldout.said(ev)
    )
    dmon = nvidia_smi.parse_dmon(text.replace("    0     -\n", "    0     -     -\n"))
    (row,) = dmon.unanswered
    assert (row.gpu, row.line, row.before) == (0, 5, {"pwr": "73"})


# --- bandwidthTest stopped on error 802 before any copy ----------------------------------------


def test_bandwidthtest_that_stopped_on_a_cuda_error_is_read_with_its_failure() -> None:
    ev = _load(BANDWIDTH)
    (f,) = ev.files
    assert (f.formats, f.status) == (["bandwidth_test", "log"], "read")
    assert [(m.line, m.message) for m in f.messages] == [
        (
            5,
            "bandwidth_test: bandwidthTest stopped on a CUDA error before its first copy: no "
            "bandwidth was measured",
        )
    ]
    assert _kinds(ev) == [("gpu_driver_error", 7)]
    (failure,) = ev.failures
    assert failure["code"] == "802"
    assert "cudaErrorSystemNotReady" in failure["exception_type"]
    assert "Fabric Manager" in failure["exception_type"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-cuda-not-ready", "critical")]


def test_bandwidthtest_stopped_by_another_code_on_another_device(tmp_path: Path) -> None:
    # the same stop on a second device, error 100 (no CUDA-capable device), helper_cuda's line
    # alone (the properties line lost in the copy)
    text = (
        "[CUDA Bandwidth Test] - Starting...\n"
        "Running on...\n"
        "\n"
        " Device 0: NVIDIA A100-SXM4-80GB\n"
        'CUDA error at bandwidthTest.cu:256 code=100(cudaErrorNoDevice) "cudaSetDevice(currentDevice)" \n'
    )
    ev = _write(tmp_path, text)
    (f,) = ev.files
    assert f.status == "read"
    assert any(
        m.line == 5 and "stopped on a CUDA error before its first copy" in m.message
        for m in f.messages
    )
    assert not any("no copy block" in m.message for m in f.messages)


def test_a_bandwidthtest_that_ran_is_not_said_to_have_stopped(tmp_path: Path) -> None:
    text = (
        "[CUDA Bandwidth Test] - Starting...\n"
        "Running on...\n"
        "\n"
        " Device 0: NVIDIA A100-SXM4-80GB\n"
        " Quick Mode\n"
        "\n"
        " Host to Device Bandwidth, 1 Device(s)\n"
        " PINNED Memory Transfers\n"
        "   Transfer Size (Bytes)\tBandwidth(GB/s)\n"
        "   32000000\t\t\t24.6\n"
        "\n"
        "Result = PASS\n"
    )
    ev = _write(tmp_path, text)
    assert ev.files[0].status == "read"
    assert not ev.failures
    assert not any("stopped" in m for m in heldout.said(ev))
    level, _ = heldout.imported(ev)
    assert level == "READY"


# --- nvidia-smi -q's key lines: Reset Required Yes, fields "System is not in ready state" ------


def test_q_key_lines_with_reset_required_and_unready_fields_are_a_gpu_to_reset() -> None:
    ev = _load(QUERY)
    (f,) = ev.files
    assert (f.formats, f.status) == (["nvidia_smi_query"], "read")
    (gpu,) = ev.gpus
    assert (gpu["recovery_action"], gpu["line"], gpu["perf"]) == ("Reset", 2, "P0")
    assert gpu["unreadable"] == [
        "Fan Speed",
        "Power Draw",
        "Graphics",
        "SM",
        "Memory",
        "Video",
        "Encoder",
        "Decoder",
    ]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert sorted(heldout.above_info(outcome)) == [
        ("evidence-gpu-recovery-action", "critical"),
        ("evidence-gpu-unreadable", "critical"),
    ]
    (item,) = heldout.items(outcome, "evidence-gpu-recovery-action")
    assert item.startswith("GPU 0: Reset (") and item.endswith(", line 2)")


def test_a_grep_of_the_reset_status_over_gpus_names_each_gpu(tmp_path: Path) -> None:
    # the section grepped over 4 GPUs (nvidia-smi -q | grep -A2 'GPU Reset Status'): the third
    # asks for its drain and reset
    block = (
        "    GPU Reset Status\n"
        "        Reset Required                    : {0}\n"
        "        Drain and Reset Recommended       : {1}\n"
    )
    flags = [("No", "No"), ("No", "No"), ("Yes", "Yes"), ("No", "No")]
    ev = _write(tmp_path, "--\n".join(block.format(*f) for f in flags))
    assert [(g["gpu"], g["recovery_action"]) for g in ev.gpus] == [
        (0, "None"),
        (1, "None"),
        (2, "Drain and Reset"),
        (3, "None"),
    ]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-gpu-recovery-action")
    assert item.startswith("GPU 2: Drain and Reset")


def test_a_full_q_record_with_its_gpu_line_and_a_newer_recovery_action(tmp_path: Path) -> None:
    # R570 on: the flags deprecated, "GPU Recovery Action" their successor
    text = (
        "GPU 00000000:3B:00.0\n"
        "    Product Name                          : NVIDIA H100 80GB HBM3\n"
        "    GPU Reset Status\n"
        "        Reset Required                    : Requested functionality has been deprecated\n"
        "        Drain and Reset Recommended       : Requested functionality has been deprecated\n"
        "    GPU Recovery Action                   : Reboot\n"
        "    Remapped Rows\n"
        "        Correctable Error                 : 0\n"
        "        Uncorrectable Error               : 0\n"
        "        Pending                           : No\n"
        "        Remapping Failure Occurred        : No\n"
    )
    ev = _write(tmp_path, text)
    (gpu,) = ev.gpus
    assert (gpu["bus_id"], gpu["recovery_action"]) == ("00000000:3B:00.0", "Reboot")


def test_a_healthy_twin_of_the_key_lines_stays_ready(tmp_path: Path) -> None:
    text = (
        "GPU Reset Status\n"
        "    Reset Required                    : No\n"
        "    Drain and Reset Recommended       : No\n"
        "\n"
        "Fan Speed                             : 30 %\n"
        "Performance State                     : P8\n"
        "Power Draw                            : 21.50 W\n"
    )
    ev = _write(tmp_path, text)
    (f,) = ev.files
    assert (f.formats, f.status) == (["nvidia_smi_query"], "read")
    (gpu,) = ev.gpus
    assert (gpu["recovery_action"], gpu["unreadable"]) == ("None", [])
    level, _ = heldout.imported(ev)
    assert level == "READY"
