"""Outputs of round KKKK's held-out evaluation (set 652, network and node tool outputs on GPU
clusters) that the advisor read wrong or in part before this change
(tests/data/evidence_heldout_71, sources in tests/data/SOURCES.md): ``ip -s -s link show eth4``
whose wrapped header ended its block before the counters, READY with none of them said;
a ucx_perftest client cut after its table heading with two UCX WARN lines, unknown; and an
iperf3 client cut at 10 s whose retransmits in every interval were counted but not weighed."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_71"

IP = "ip_s_s_link_eth4_promisc_rx_missed_1725828_overrun_47323_dropped_179_wrapped_seconion437.txt"
IPERF = (
    "iperf3_3_0_7_k8s_pod_to_pod_weave_1_35_1_65_gbits_retransmits_every_second_mss1324_"
    "weave3445_cut.txt"
)
UCX = (
    "ucx_perftest_ucp_am_bw_1mib_warn_cpu_affinity_80cpus_mlx5dv_devx_obj_destroy_flush_dvmr_"
    "einval_ucx10359_cut.txt"
)


_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")


# --- ip -s -s link ---------------------------------------------------------------------------


def test_ip_s_s_counters_under_a_wrapped_header_are_read_and_weighed() -> None:
    ev = _load(IP)
    assert ev.files[0].formats == ["netif"]
    assert ev.files[0].status == "read"
    note, counters = heldout.said(ev)
    assert "eth4 (mtu 1500): up, link up" in note
    # (line 3, "state UP qlen 1000", is the header's rest: the block goes on under it)
    assert "eth4 rx_dropped 179, rx_overrun 47323, rx_missed 1725828" in counters
    # 1725828 of 1745618628 + 1725828 arriving: 0.099 %, under RX_DISCARD_SHARE (0.1 %)
    assert "rx_missed 0.099 % of the 1745618628 packets received" in counters
    assert "under the 0.1 %" in counters
    assert "tx_" not in counters  # (TX all 0)
    assert ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_ip_s_s_missed_past_a_tenth_of_a_percent_on_a_named_host_is_a_warning(
    tmp_path: Path,
) -> None:
    text = "[root@gpu-b07 ~]# " + _text(IP).replace("1725828", "5000000")
    ev = _write(tmp_path, text)
    (event,) = [f for f in ev.failures if f["kind"] == "nic_rx_discards"]
    assert event["line"] == 8  # (the RX errors row's figures)
    assert event["host"] == "gpu-b07"
    assert event["message"] == "rx_missed 5000000 of 1745618628 packets received (rx_overrun 47323)"
    assert event["exception_type"].startswith("eth4: the interface lost 0.29 % ")
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nic-rx-discards", "warning")]


def test_ip_s_s_one_register_in_three_counters_is_counted_once(tmp_path: Path) -> None:
    # (mlx4_en sets rx_over_errors, rx_fifo_errors and rx_missed_errors from one register: the
    # largest is the count, not their sum, 3M (0.17 %) not 9M)
    text = (
        _text(IP)
        .replace("179     47323", "179     3000000")
        .replace("0       0       1725828", "0       3000000 3000000")
    )
    ev = _write(tmp_path, text)
    (event,) = [f for f in ev.failures if f["kind"] == "nic_rx_discards"]
    assert "lost 0.17 % " in event["exception_type"]


def test_ip_s_s_healthy_twin_stays_ready_with_no_counter_note(tmp_path: Path) -> None:
    text = (
        _text(IP).replace("179     47323", "0       0    ").replace("0       1725828", "0       0")
    )
    ev = _write(tmp_path, text)
    assert len(heldout.said(ev)) == 1
    assert ev.failures == []
    assert heldout.imported(ev)[0] == "READY"


# --- ucx_perftest ----------------------------------------------------------------------------


def test_ucx_perftest_cut_after_its_heading_names_both_ucx_warnings() -> None:
    ev = _load(UCX)
    assert ev.files[0].formats == ["pingpong"]
    # (the copy ends before any result row: what it measured is not in it)
    assert ev.files[0].status == "partial"
    (note,) = heldout.said(ev)
    assert note.startswith("pingpong: ucx_perftest ucp_am_bw to 10.16.26.222 on node223: ")
    assert "table heading (line 4) and no result row" in note
    assert "MB/s" not in note.split("no result row")[1]  # (no bandwidth said)
    warns = [f for f in ev.failures if f["kind"] == "ucx_perftest_warn"]
    assert [(f["line"], f["host"]) for f in warns] == [(2, "node223"), (8, "node223")]
    assert warns[0]["exception_type"] == (
        "perftest.c:801: CPU affinity is not set (bound to 80 cpus). Performance may be impacted."
    )
    assert warns[1]["exception_type"] == (
        "ib_mlx5.h:962: mlx5dv_devx_obj_destroy(flush_dvmr) failed: Invalid argument"
    )
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-ucx-perftest-warn", "warning")]
    items = heldout.items(outcome, "evidence-ucx-perftest-warn")
    assert items[1].startswith("node223: ucx_perftest ucp_am_bw to 10.16.26.222: ib_mlx5.h:962")
    assert items[1].endswith(f"{UCX}, line 8)")


def test_ucx_perftest_repeated_warning_on_another_host_is_one_item(tmp_path: Path) -> None:
    devx = _text(UCX).splitlines()[-1]
    text = (
        _text(UCX).replace("node223", "gpu-a12").replace(" -t ucp_am_bw", " -f -t tag_bw")
        + devx.replace("node223", "gpu-a12").replace(".715505", ".724181")
        + "\n"
        + devx.replace("node223", "gpu-a12").replace(".715505", ".733002")
        + "\n"
    )
    ev = _write(tmp_path, text)
    warns = [f for f in ev.failures if f["kind"] == "ucx_perftest_warn"]
    assert [(f["line"], f["host"]) for f in warns] == [(2, "gpu-a12"), (8, "gpu-a12")]
    assert warns[1]["message"] == "ucx_perftest tag_bw to 10.16.26.222"
    assert warns[1]["exception_type"].endswith("Invalid argument (3 times)")


def test_ucx_perftest_healthy_twin_with_its_final_row_stays_ready(tmp_path: Path) -> None:
    lines = _text(UCX).splitlines()
    final = (
        "Final:                 50000     0.000    84.212    84.212    11873.52   11873.52"
        "       11874       11874"
    )
    text = "\n".join([lines[0], *lines[2:7], final, ""])
    ev = _write(tmp_path, text)
    assert ev.files[0].status == "read"
    said = heldout.said(ev)
    assert any("11873.5 MB/s overall" in s for s in said)
    assert ev.failures == []
    assert heldout.imported(ev)[0] == "READY"


# --- iperf3 cut before its summary -----------------------------------------------------------


def test_iperf3_cut_retransmits_weighed_against_its_segments_stay_ready() -> None:
    ev = _load(IPERF)
    assert ev.files[0].formats == ["iperf3"]
    # (a 60 s test cut after 10 s: its summary is not in the copy)
    assert ev.files[0].status == "partial"
    (note,) = heldout.said(ev)
    # 276 retransmits against 1856 MBytes in 1324-byte segments (its MSS, line 6): 0.019 %
    assert "(276 TCP retransmits in them, 0.019 % of its segments of 1324 bytes (its MSS)" in note
    assert "under the 0.1 % from which losses are judged" in note
    assert "the copy ends before the test's summary" in note
    assert ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_iperf3_cut_with_heavy_retransmits_in_its_intervals_is_a_warning(tmp_path: Path) -> None:
    # the same intervals with a hundred times the retransmits (27600 in 10 s): 1.9 % of the
    # segments, past RETRANSMIT_SHARE (0.5 %), though the copy has no summary
    text = _text(IPERF)
    for retr in ("6", "3", "26", "14", "99", "9", "5", "7", "36", "71"):
        text = text.replace(f"Gbits/sec   {retr:>2}  ", f"Gbits/sec   {retr}00  ", 1)
    ev = _write(tmp_path, text)
    (event,) = [f for f in ev.failures if f["kind"] == "tcp_retransmits_heavy"]
    assert event["exception_type"].startswith(
        "27600 TCP retransmits in 10 s at 1.55 Gbit/s (the intervals': the copy ends before the "
        "summary): at least 1.9 % of its segments"
    )
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-iperf3-retransmits-heavy", "warning")]


def test_iperf3_cut_without_its_mss_weighs_full_frames(tmp_path: Path) -> None:
    text = _text(IPERF).replace("      TCP MSS: 1324 (default)\n", "")
    ev = _write(tmp_path, text)
    (note,) = heldout.said(ev)
    assert "(276 TCP retransmits in them, 0.021 % of its segments: under the 0.1 %" in note
    assert heldout.imported(ev)[0] == "READY"
