"""Outputs of round VVVV's held-out evaluation (set 718, network tool outputs) that the advisor
read in part before this change (tests/data/evidence_heldout_82, sources in
tests/data/SOURCES.md): a healthy ib_read_lat run (1.79 us at 2 B) was a warning for perftest's
own "CPU Frequency is not max" line, though even the two clocks' ratio cannot push its figure
past a passing one; and an Ascend NPU's link trained at 16 of its 32 GT/s was a note that
blamed a GPU's idle downclock (nvidia-smi's, which no Ascend document says of an NPU), its
DevSta error bits unsaid."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_82"

READ_LAT = "ib_read_lat_mlx4_0_fdr_ib_lid1_to_lid4_2b_typical_1_79us_cpu_freq_not_max_storage01_ib_perf_notes_cut.txt"
NPU_LINK = "lspci_vvv_ascend_910b4_d802_01_00_0_gen5_cap_lnksta_16gt_downgraded_devsta_correrr_unsupreq_cut.txt"

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


# --- ib_read_lat: perftest's CPU-frequency line on a healthy latency run ----------------------


def test_a_healthy_read_latency_run_with_perftests_clock_line_is_ready_with_a_note() -> None:
    ev = _load(READ_LAT)
    assert ev.files[0].formats == ["perftest"] and ev.files[0].status == "read"
    (port,) = ev.hca_ports
    run = port["perftest"]
    assert (port["ca"], run["test"], run["peer"]) == ("mlx4_0", "RDMA_Read Latency", "172.16.50.13")
    assert run["rows"][0]["t_typical_us"] == 1.79 and run["latency_avg_us"] == 1.8
    assert (run["cpu_clock_line"], run["cpu_clock"]) == (20, "2400.000000 != 1873.463000 MHz")
    # 1.80 us x 2400/1873.463 is 2.31 us, within the read test's 4.5 us
    assert (run["clock_skewed_latency_us"], run["clock_skewed_pass_us"]) == (2.31, 4.5)
    assert run["slow_latency_us"] is None
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    (item,) = heldout.items(outcome, "evidence-rdma-perftest-cpu-clock-latency-sound")
    assert "2400.000000 != 1873.463000 MHz" in item and item.endswith("line 20)")
    assert "latency at most 2.31 us at that ratio, within 4.5 us" in item
    # the parser's own note stays, at the line perftest printed it
    assert [line for line, note in _said(ev) if "CPU clocks differ" in note] == [20]


def test_a_write_latency_that_the_clock_ratio_could_push_past_its_pass_value_is_still_warned(
    tmp_path: Path,
) -> None:
    # ib_write_lat is held to 2.5 us: 2.2 us x 1.28 is 2.82, so the clocks could hide a slow run
    text = (
        _text(READ_LAT)
        .replace("ib_read_lat", "ib_write_lat")
        .replace("RDMA_Read Latency Test", "RDMA_Write Latency Test")
        .replace(
            " 2       1000          1.76           6.12         1.79                1.80",
            " 2       1000          2.15           6.12         2.19                2.20",
        )
    )
    ev = _write(tmp_path, text)
    run = ev.hca_ports[0]["perftest"]
    assert run["test"] == "RDMA_Write Latency" and run["clock_skewed_latency_us"] is None
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-rdma-perftest-cpu-clock", "warning")]


def test_a_wider_clock_gap_on_another_host_keeps_the_warning(tmp_path: Path) -> None:
    # 1.80 us x 3300/700 is 8.5 us, past 4.5 us: the clocks' gap alone could hide a slow read
    text = (
        _text(READ_LAT)
        .replace("storage01", "storage07")
        .replace("2400.000000 != 1873.463000", "3300.000000 != 700.000000")
    )
    ev = _write(tmp_path, text)
    assert ev.hca_ports[0]["perftest"]["clock_skewed_latency_us"] is None
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-rdma-perftest-cpu-clock", "warning")]


def test_the_same_run_without_the_clock_line_is_ready_without_the_note(tmp_path: Path) -> None:
    lines = _text(READ_LAT).splitlines(keepends=True)
    ev = _write(tmp_path, "".join(line for line in lines if "Conflicting CPU" not in line))
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert not [f for f in outcome.findings if "cpu-clock" in f.rule_id]


# --- lspci -vvv: an Ascend NPU's link below its capability -----------------------------------


def test_an_ascend_npus_link_at_half_its_speed_is_a_warning_not_a_gpus_idle_downclock() -> None:
    ev = _load(NPU_LINK)
    assert ev.files[0].formats == ["lspci_link"] and ev.files[0].status == "read"
    (slow,) = ev.failures
    assert (slow["kind"], slow["line"]) == ("pcie_link_slow", 22)
    assert slow["message"].startswith("01:00.0 Processing accelerators: Huawei")
    assert slow["exception_type"].startswith(
        "PCIe link 16GT/s x16 against its 32GT/s x16 capability: an Ascend NPU's link trained "
        "slower than it can run"
    )
    assert "its width, x16, is full" in slow["exception_type"]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-pcie-link-slow", "warning")]
    (item,) = heldout.items(outcome, "evidence-pcie-link-slow")
    assert item.startswith("01:00.0 ") and item.endswith("line 22)")
    said = _said(ev)
    assert not [note for _, note in said if "GPU lowers its link speed" in note]
    # the device status's error bits, a note at their line
    (devsta,) = [(line, note) for line, note in said if "device status reports" in note]
    assert devsta[0] == 17 and "CorrErr+, UnsupReq+" in devsta[1]


def test_another_ascend_npu_address_under_lspci_nn_is_read_alike(tmp_path: Path) -> None:
    text = _text(NPU_LINK).replace(
        "01:00.0 Processing accelerators: Huawei Technologies Co., Ltd. Device d802 (rev 20)",
        "0000:c1:00.0 Processing accelerators [1200]: Huawei Technologies Co., Ltd. Device "
        "[19e5:d802] (rev 20)",
    )
    ev = _write(tmp_path, text)
    (slow,) = ev.failures
    assert slow["kind"] == "pcie_link_slow" and slow["message"].startswith("0000:c1:00.0 ")


def test_the_ascend_npus_full_speed_twin_stays_ready(tmp_path: Path) -> None:
    text = (
        _text(NPU_LINK)
        .replace("Speed 16GT/s (downgraded), Width x16 (ok)", "Speed 32GT/s (ok), Width x16 (ok)")
        .replace(
            "DevSta: CorrErr+ NonFatalErr- FatalErr- UnsupReq+",
            "DevSta: CorrErr- NonFatalErr- FatalErr- UnsupReq-",
        )
    )
    ev = _write(tmp_path, text)
    assert ev.failures == []
    level, _ = heldout.imported(ev)
    assert level == "READY"
    assert not [note for _, note in _said(ev) if "device status reports" in note]


def test_an_nvidia_gpus_slower_link_keeps_the_idle_reading(tmp_path: Path) -> None:
    # nvidia-smi's documentation: the GPU's PCIe generation "may be reduced when the GPU is not
    # in use": the same block under an NVIDIA heading stays a note
    text = _text(NPU_LINK).replace(
        "Processing accelerators: Huawei Technologies Co., Ltd. Device d802 (rev 20)",
        "3D controller: NVIDIA Corporation GH100 [H100 PCIe] (rev a1)",
    )
    ev = _write(tmp_path, text)
    assert ev.failures == []
    assert [line for line, note in _said(ev) if "GPU lowers its link speed when idle" in note] == [
        22
    ]
