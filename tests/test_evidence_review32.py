"""Review 32 of round FFF's readings (a Ray task's node, EI0002's reporting device, the OOM's
other processes, a terminal copy ended by a signal, NCCL's Init timings, a looped --query-gpu,
hccn.conf's block and its ports): each fault it found, on its input (tests/data/review32,
described in tests/data/SOURCES.md)."""

from __future__ import annotations

import re

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import hccn_conf, logs, nvidia_smi
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

REVIEW = DATA / "review32"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def _events(name: str) -> list[logs.LogEvent]:
    return logs.parse((REVIEW / name).read_text()).events


def _said(ev: EvidenceFacts) -> list[str]:
    return [m.message for f in ev.files for m in f.messages]


def test_a_workers_own_prefix_outweighs_a_ray_heading_above_it() -> None:
    # (the events under another worker's prefix were put on the RayTaskError's actor)
    ev = _load("ray4.log")
    later = [f for f in ev.failures if f["line"] > 37]
    assert later and all((f["host"], f["pid"]) == ("10.1.31.7", 35120) for f in later)


def test_two_processes_logs_name_no_reporting_device_for_ei0002() -> None:
    (ei,) = [e for e in _events("twodev.log") if e.code == "EI0002"]
    assert ei.device is None


def test_a_process_listed_alone_in_an_oom_is_not_another_process() -> None:
    ev = _load("oom1.log")
    (oom,) = [f for f in ev.failures if f["kind"] == "device_oom"]
    assert "other process" not in oom["exception_type"]
    found = builtin_findings({"evidence.failures": ev.failures}, "nccl")
    assert not any(
        "Another process held memory" in r.why
        for r in found["evidence-device-out-of-memory"].recommendations
    )


def test_a_signal_after_a_ranks_own_error_is_not_the_first_failure() -> None:
    events = _events("term2.log")
    (ended,) = [e for e in events if e.kind == "launcher_exit"]
    assert ended.exit_code == -15 and not ended.root_cause
    assert any(e.kind == "device_oom" for e in events)


def test_timeouts_kill_after_is_not_its_limit() -> None:
    (ended,) = [e for e in _events("term3.log") if e.kind == "launcher_exit"]
    assert "run under timeout 300s" in (ended.exception_type or "")


def test_init_timings_are_per_init_call_and_an_empty_one_does_not_crash() -> None:
    said = _said(_load("tim2.log"))
    timings = sorted(m for m in said if "Init timings" in m)
    assert len(timings) == 2
    assert any("on the 3 rank(s) this log shows" in m for m in timings)
    assert any("on the 1 rank(s) this log shows" in m for m in timings)
    (empty,) = [m for m in _said(_load("tim3.log")) if "Init timings" in m]
    assert "took 1.50 s on the 1 rank(s) this log shows" in empty and "slowest" not in empty


def test_a_values_only_query_of_several_gpus_makes_up_none() -> None:
    ev = _load("q3.txt")
    assert ev.gpus == []
    (note,) = [m for m in _said(ev) if "looped query" in m]
    assert "6 time-stamped row(s)" in note and "memory.used 4-38803 MiB" in note


def test_other_timestamp_led_csvs_are_no_query() -> None:
    for name in ("trainlog.txt", "hostmetrics.csv"):
        ev = _load(name)
        assert ev.gpus == []
        assert "nvidia_smi_query_csv" not in ev.files[0].formats


def test_a_long_timestamp_led_header_is_no_query() -> None:
    # (the header's pattern backtracked over thousands of dotted columns: minutes to decide)
    header = "timestamp, " + ", ".join(f"m{n}.value" for n in range(3000)) + ","
    assert re.search(nvidia_smi.QUERY_CSV_SIGNATURE, header + "\n", re.M) is None


def test_a_plain_confs_bad_line_after_a_blank_line_is_still_said() -> None:
    conf = hccn_conf.parse((REVIEW / "hccn.conf").read_text())
    assert [w.message for w in conf.warnings] == [
        "not a key_N=value line: 'netdetect_1 10.0.0.254'"
    ]
    assert sorted(conf.devices) == [0, 1]


def test_a_folder_of_several_nodes_confs_matches_no_port_to_anothers_conf() -> None:
    ev = load_paths([REVIEW / "coll"])
    assert len(ev.npu_ports) == 2 and len({c["source"] for c in ev.hccn_conf}) == 2
    assert not [p for p in ev.npu_ports if "conf_address" in p]
