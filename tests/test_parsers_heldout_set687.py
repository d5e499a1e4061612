"""Outputs of round QQQQ's held-out evaluation (set 687, NVIDIA tool outputs) that the advisor
read wrong before this change (tests/data/evidence_heldout_77, sources in tests/data/SOURCES.md):
a dcgm-exporter scrape (Prometheus ``DCGM_FI_*{gpu=...}`` lines) was no format it knew;
``nvidia-smi -mig 1``'s pending warning was read only inside a status table; an ``nvidia-smi -q``
Clocks block standing alone was no format, and a ``-q -d POWER`` page was refused for holding no
health section."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_77"

EXPORTER = "dcgm_exporter_gb200_nvlink_link_recovery_successful_events_all_zero_4gpu_dcgmexporter581_cut.txt"
MIG = "nvidia_smi_mig_enable_pending_enable_not_supported_reboot_needed_seansiddens_mps_test.txt"
CLOCKS = "nvidia_smi_q_clocks_and_max_clocks_2025_of_2100_mhz_healthy_gpustat135.txt"
POWER = "nvidia_smi_q_d_power_590_48_01_laptop_limit_35w_of_95w_samples_not_found_ogkm483_cut.txt"

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


# --- dcgm-exporter ------------------------------------------------------------------------------


def test_a_dcgm_exporter_scrape_of_zero_counters_is_read_ready() -> None:
    ev = _load(EXPORTER)
    assert ev.files[0].formats == ["dcgm_exporter"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    said = _said(ev)
    assert [line for line, _ in said] == [3, 4, 5, 6]
    assert said[0][1] == (
        "dcgm_exporter: dcgm-exporter, 3f546054f69d: GPU 0 (NVIDIA GB200, 00000008:01:00.0): "
        "NVLINK_COUNT_LINK_RECOVERY_SUCCESSFUL_EVENTS 0"
    )
    assert [g["gpu"] for g in ev.gpus] == [0, 1, 2, 3]
    assert {g["host"] for g in ev.gpus} == {"3f546054f69d"}
    assert ev.gpus[3]["uuid"] == "GPU-5679a9d0-6f32-6a97-ff37-fce5fd1a2ac9"


def _exporter_lines(field: str, values: list[int], host: str = "node-a1") -> str:
    """The real file's GPU lines with another field, host and values."""
    lines = _text(EXPORTER).splitlines()[2:]
    out = []
    for line, value in zip(lines, values, strict=False):
        labels = line.split("{", 1)[1].rsplit("}", 1)[0].replace("3f546054f69d", host)
        out.append(f"{field}{{{labels}}} {value}")
    return "\n".join(out) + "\n"


def test_a_double_bit_ecc_count_from_the_exporter_is_judged_as_nvidia_smis(tmp_path: Path) -> None:
    # (the rule nvidia-smi's Volatile Uncorr. ECC count meets: a warning)
    ev = _write(tmp_path, _exporter_lines("DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", [0, 0, 2, 0]))
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-gpu-ecc-uncorrected", "warning")]
    (bad,) = [g for g in ev.gpus if g["ecc_uncorrected"]]
    assert (bad["gpu"], bad["host"], bad["ecc_uncorrected"]) == (2, "node-a1", 2)


def test_the_exporters_last_xid_is_a_driver_event_on_its_gpu(tmp_path: Path) -> None:
    ev = _write(tmp_path, _exporter_lines("DCGM_FI_DEV_XID_ERRORS", [0, 79, 0, 0]))
    level, _ = heldout.imported(ev)
    assert level == "NOT READY"
    (event,) = ev.failures
    assert event["line"] == 2 and event["device"] == 1 and event["code"] == "79"
    assert event["message"] == "dcgm-exporter, node-a1: GPU 1: DCGM_FI_DEV_XID_ERRORS 79"


def test_exporter_nvlink_recovery_errors_are_judged_as_dcgmi_nvlink_e(tmp_path: Path) -> None:
    text = _exporter_lines("DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL", [0, 0, 0, 5])
    ev = _write(tmp_path, text)
    level, _ = heldout.imported(ev)
    assert level != "READY"
    assert [n["replay_total"] for n in ev.nvlinks] == [0, 0, 0, 5]
    healthy = _write(
        tmp_path, _exporter_lines("DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL", [0, 0, 0, 0])
    )
    assert heldout.imported(healthy)[0] == "READY"


# --- nvidia-smi -mig's pending warning ----------------------------------------------------------


def test_a_pending_mig_enable_names_its_gpu_and_the_reboot_it_needs() -> None:
    ev = _load(MIG)
    assert ev.files[0].formats == ["nvidia_smi_mig_pending"] and ev.files[0].status == "read"
    level, _ = heldout.imported(ev)
    assert level == "READY"  # a mode change waiting, not a fault (nvidia_smi._MIG_PENDING_RE)
    ((line, note),) = _said(ev)
    assert line == 2
    assert "MIG enable pending on GPU 00000000:00:03.0 (Not Supported)" in note
    assert "takes effect at the next reboot" in note


def test_a_pending_mig_disable_on_another_gpu_is_read_the_same(tmp_path: Path) -> None:
    text = (
        _text(MIG)
        .replace("-i 0 -mig 1", "-i 1 -mig 0")
        .replace("pending enable", "pending disable")
        .replace("00000000:00:03.0:Not Supported", "00000000:00:04.0:In use by another client")
        .replace("effective on GPU 00000000:00:03.0", "effective on GPU 00000000:00:04.0")
    )
    ((line, note),) = _said(_write(tmp_path, text))
    assert line == 2
    assert "MIG disable pending on GPU 00000000:00:04.0 (In use by another client)" in note


# --- nvidia-smi -q Clocks alone and -q -d POWER ------------------------------------------------


def test_a_q_clocks_block_alone_says_its_clocks_and_judges_nothing() -> None:
    ev = _load(CLOCKS)
    assert ev.files[0].formats == ["nvidia_smi_query"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    notes = [(line, m) for line, m in _said(ev) if "-d page" in m]
    ((line, note),) = notes
    assert line == 2
    assert "Graphics 2025 MHz of 2100 MHz max, SM 2025 MHz of 2100 MHz max" in note
    assert "Memory 10251 MHz of 10501 MHz max" in note and "nothing judged" in note


def test_a_q_clocks_block_with_a_slowdown_active_is_still_judged(tmp_path: Path) -> None:
    # the clocks page with its reasons section: the health reading, not the figures' note
    text = _text(CLOCKS) + (
        "    Clocks Event Reasons\n"
        "        Idle                              : Not Active\n"
        "        HW Slowdown                       : Active\n"
    )
    ev = _write(tmp_path, text)
    level, _ = heldout.imported(ev)
    assert level != "READY"
    assert not [m for _, m in _said(ev) if "-d page" in m]


def test_a_q_d_power_page_says_draw_and_limits_and_judges_nothing() -> None:
    ev = _load(POWER)
    assert ev.files[0].formats == ["nvidia_smi_query"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    ((line, note),) = _said(ev)
    assert line == 12
    assert note.startswith("nvidia_smi_query: nvidia-smi -q -d page (driver 590.48.01) of GPU ")
    assert "00000000:01:00.0: power draw 1.44 W" in note
    assert "limit 35.00 W" in note and "max limit 95.00 W (lines 12-18)" in note


def test_a_q_d_power_page_of_two_gpus_says_each(tmp_path: Path) -> None:
    lines = _text(POWER).splitlines(keepends=True)
    second = "".join(lines[9:19]).replace("01:00.0", "41:00.0").replace("1.44 W", "250.10 W")
    ev = _write(tmp_path, "".join(lines[:19]) + second)
    notes = _said(ev)
    assert [line for line, _ in notes] == [12, 22]
    assert "GPU 00000000:41:00.0: power draw 250.10 W" in notes[1][1]
