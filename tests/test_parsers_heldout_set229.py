"""Outputs the two-hundred-twenty-ninth and two-hundred-thirtieth held-out evaluations misread
that this stop reads: an optical module's faults by its own thresholds and flags, an LLDP output
with lines left out in its middle, commands whose answer is not in the file, the flight recorder
analyzer's older heads, nvidia-smi nvlink lists with ``[...]`` in them, torch's desync report and
the ``[PG 0 (default_pg) Rank 7]`` group prefix.

Samples: ``tests/data/evidence_heldout_39/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from functools import partial

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import finding_items

HELDOUT = DATA / "evidence_heldout_39"


_load = partial(heldout.load, HELDOUT)


def _messages(ev: EvidenceFacts) -> list[tuple[int, str]]:
    return [(m.line, m.message) for m in ev.files[0].messages]


def test_an_optical_module_is_judged_by_its_own_thresholds_and_flags() -> None:
    ev = _load(
        "npu_info_before_910A_dump_optical_rx_power1_under_threshold_rx_los_0xff_ip_g_dev2_"
        "empty_mindcluster_faultdiag.txt"
    )
    assert ev.files[0].status == "read"
    port = next(p for p in ev.npu_ports if p["device"] == 0)
    assert port["optical_alarms"] == [
        "module not present",
        "Tx Power0 4.4035 mW over its high threshold 3.5481 mW",
        "Rx Power1 0.0054 mW under its low threshold 0.1445 mW",
        "Rx Los Flag 0xff (loss of signal)",
        "Rx LoL Flag 0xff (loss of lock)",
    ]
    # the other lanes, inside their thresholds, are not named
    assert not any("Power2" in a or "Power3" in a for a in port["optical_alarms"])
    findings = finding_items({"evidence.npu_ports": ev.npu_ports}, "hccl")
    (line,) = findings["evidence-npu-optical-alarm"]
    assert line.startswith("NPU 0: module not present; Tx Power0 4.4035 mW over")


def test_commands_that_printed_nothing_are_said_not_skipped() -> None:
    ev = _load(
        "npu_info_before_910A_dump_optical_rx_power1_under_threshold_rx_los_0xff_ip_g_dev2_"
        "empty_mindcluster_faultdiag.txt"
    )
    notes = _messages(ev)
    assert (14, "'npu-smi info' printed nothing: what it asks is unknown") in notes
    assert (152, "'hccn_tool -i 2 -ip -g' printed nothing: what it asks is unknown") in notes
    # device 2 is not made a port with an address, nor one without
    assert [p["device"] for p in ev.npu_ports] == [0, 1]


def test_lines_left_out_inside_one_lldp_output_are_not_other_devices() -> None:
    ev = _load(
        "hccn_tool_lldp_g_dev3_switch_400GE1_1_20_2_author_elided_middle_tlv_arthurchiao_blog.txt"
    )
    assert ev.files[0].status == "partial"
    assert _messages(ev) == [
        (
            16,
            "hccn_tool: the copy left lines of this -lldp output out ('...'): what they held is "
            "unknown; the lines after them are read",
        )
    ]
    (port,) = ev.npu_ports
    assert port["device"] == 3
    assert port["lldp"] == {
        "chassis_id": "...",
        "port_id": "400GE1/1/20:2",
        "system_description": "Versatile Routing Platform Software",
        "capabilities": "Bridge, Router",
        "management_address": "26.xx.xx.xx",
        "max_frame_size": "9216",  # the TLV after the left-out lines
    }


def test_the_flight_recorder_analyzers_older_heads_are_read() -> None:
    colon = _load(
        "fr_trace_colon_form_seq31117_all_reduce_missing_ranks_3_to_7_pytorch_pr140969_cut.txt"
    )
    at_entry = _load(
        "fr_trace_cli_not_all_ranks_joining_collective_5_at_entry_4_missing_rank1_pytorch_flight_"
        "recorder_tutorial_doc.txt"
    )
    got = [
        (e["seq"], e["op"], e["group"], e["rank_size"], e["missing_ranks"])
        for ev in (colon, at_entry)
        for e in ev.failures
    ]
    assert got == [
        (31117, "all_reduce", "0:default_pg", 8, [3, 4, 5, 6, 7]),
        (5, "all_reduce", "0:default_pg", None, [1]),
    ]
    assert colon.files[0].status == at_entry.files[0].status == "read"
    findings = finding_items({"evidence.failures": colon.failures}, "nccl")
    assert "(rank(s) 3, 4, 5, 6, 7)" in findings["evidence-fr-trace-mismatch"][0]


def test_an_nvlink_list_with_links_left_out_keeps_the_links_after_the_gap() -> None:
    ev = _load(
        "nvidia_smi_nvlink_e_and_status_h100_links_0_1_17_bracket_elided_ml_engineering_cut.txt"
    )
    assert ev.files[0].status == "partial"
    assert [line for line, _ in _messages(ev)] == [11, 19]
    errors, status = ev.nvlinks
    assert sorted(errors["errors"], key=int) == ["0", "1", "17"]
    assert errors["error_total"] == 0
    assert status["links"] == {"0": 26.562, "17": 26.562}
    # the links in the gap are unknown, not inactive: nothing is judged missing
    assert not status["inactive"] and not status["none_up"]


def test_a_desync_report_names_the_rank_that_never_joined() -> None:
    ev = _load("pg_watchdog_desync_debug_report_rank1_finished_2_not_joined_3_ml_engineering.log")
    assert ev.files[0].status == "read"
    report = next(e for e in ev.failures if e["kind"] == "desync_report")
    assert (report["line"], report["rank"], report["op"], report["seq"]) == (2, 0, "all_reduce", 3)
    assert report["missing_ranks"] == [1]
    assert (
        report["message"]
        == "rank 0 timed out in ALLREDUCE #3: rank(s) 1 finished #2 but did not join #3"
    )
    findings = finding_items({"evidence.failures": ev.failures}, "nccl")
    assert findings["evidence-desync-report"] == [
        f"{report['message']} ({report['source']}, line 2)"
    ]


def test_the_pg_prefix_with_its_description_in_brackets_names_the_group() -> None:
    ev = _load(
        "pg_watchdog_pg0_default_pg_paren_prefix_broadcast_vs_allreduce_seq80078_nccl1409_cut.log"
    )
    assert [(e["rank"], e["op"], e["seq"], e["group"]) for e in ev.failures] == [
        (7, "broadcast", 80078, "0 (default_pg)"),
        (3, "all_reduce", 80078, None),  # its own prefix line is not in the copy
    ]
