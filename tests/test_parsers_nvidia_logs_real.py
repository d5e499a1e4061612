"""Parsers on real outputs from public threads and docs (tests/data/evidence_real/, sources in
tests/data/SOURCES.md): ``nvidia-smi topo -m`` with NIC and NUMA columns, the torch 2.5+ watchdog
forms, HCCL's heartbeat culprit and socket table, nccl-tests logs cut short, and the cost of a
large log (counted in executed lines, not timed)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from advisor.evidence.load import FILE_STATUSES, detect, load_paths, load_text
from advisor.evidence.timeline import build as build_timeline
from advisor.parsers import logs, nccl_tests, nvidia_smi
from tests.conftest import DATA, run_advisor
from tests.perf.import_large_log import make_log
from tests.rules_facts import builtin_findings

REAL = DATA / "evidence_real"
BRIDGE = DATA / "multirank" / "container_bridge"


def real(name: str) -> str:
    return (REAL / name).read_text(encoding="utf-8")


def events(name: str, kind: str | None = None) -> list[logs.LogEvent]:
    found = logs.parse(real(name)).events
    return [e for e in found if kind is None or e.kind == kind]


# ------------------------------------------------------------------- nvidia-smi topo -m


def test_affinity_comes_from_its_own_column_beside_nic_columns() -> None:
    # NVIDIA/nccl #1435: 8 GPUs, 6 NICs, NUMA nodes 3, 1, 7, 5 (not 0..3: a NUMA value that
    # landed in the wrong column would not match)
    topo = nvidia_smi.parse_topo(real("nvidia_smi_topo_nic_numa.txt"))
    assert topo.devices == [f"GPU{i}" for i in range(8)]
    assert topo.cpu_affinity["GPU0"] == "24-31,88-95"
    assert topo.cpu_affinity["GPU4"] == "56-63,120-127"
    assert {g: topo.numa_affinity[g] for g in ("GPU0", "GPU2", "GPU4", "GPU6")} == {
        "GPU0": "3",
        "GPU2": "1",
        "GPU4": "7",
        "GPU6": "5",
    }
    assert set(topo.gpu_numa_id.values()) == {"N/A"}
    assert topo.links["GPU0"]["NIC1"] == "PXB" and topo.links["GPU6"]["NIC2"] == "PXB"
    assert topo.links["GPU0"]["GPU1"] == "NV12" and len(topo.links["GPU0"]) == 14
    assert topo.nics == {f"NIC{i}": f"mlx5_{i}" for i in range(6)}
    assert topo.legend["NV#"].startswith("Connection traversing a bonded set")
    assert topo.warnings == []


def test_tab_separated_output_pasted_without_indentation() -> None:
    # NVIDIA/nccl #557: tabs, the header at column 0, and "0-47\t\tN/A" (two tabs as padding)
    text = real("nvidia_smi_topo_nvlink_tabs.txt")
    assert detect(text) == ["nvidia_smi_topo"]
    topo = nvidia_smi.parse_topo(text)
    assert topo.links == {
        "GPU0": {"GPU0": "X", "GPU1": "NV3"},
        "GPU1": {"GPU0": "NV3", "GPU1": "X"},
    }
    assert topo.cpu_affinity == {"GPU0": "0-47", "GPU1": "0-47"}
    assert topo.numa_affinity == {"GPU0": "N/A", "GPU1": "N/A"} and topo.gpu_numa_id == {}


def test_an_empty_affinity_cell_does_not_shift_the_next_value() -> None:
    # derived from the NVIDIA/nccl #557 sample: GPU1's CPU Affinity cell left empty, the tabs
    # still padding to the NUMA Affinity column as nvidia-smi pads every cell to its label's
    # column; the value must stay under NUMA Affinity, and the guess is reported with its line
    text = real("nvidia_smi_topo_nvlink_tabs.txt").replace(
        "GPU1\tNV3\t X \t0-47\t\tN/A", "GPU1\tNV3\t X \t\t\tN/A"
    )
    topo = nvidia_smi.parse_topo(text)
    assert "GPU1" not in topo.cpu_affinity and topo.numa_affinity["GPU1"] == "N/A"
    assert topo.cpu_affinity["GPU0"] == "0-47"
    (warning,) = topo.warnings
    assert warning.line == 3 and "placed by their position" in warning.message


def test_header_without_leading_space_and_eighteen_nics() -> None:
    # NVIDIA/nccl #2157: the header pasted at column 0, "NIC12  NIC13" two spaces apart
    text = real("nvidia_smi_topo_no_indent.txt")
    assert detect(text) == ["nvidia_smi_topo"]
    topo = nvidia_smi.parse_topo(text)
    assert len(topo.links["GPU0"]) == 26 and topo.links["GPU2"]["NIC1"] == "PXB"
    assert topo.links["GPU0"]["NIC17"] == "SYS"
    assert topo.cpu_affinity["GPU2"] == "16-31,144-159" and topo.numa_affinity["GPU2"] == "1"
    assert topo.numa_affinity["GPU0"] == "3"


def test_nic_rows_carry_no_affinity_and_the_nic_legend_is_read() -> None:
    topo = nvidia_smi.parse_topo((DATA / "evidence" / "nvidia_smi_topo.txt").read_text())
    assert topo.devices[-2:] == ["NIC0", "NIC1"]
    assert "NIC0" not in topo.cpu_affinity and "NIC0" not in topo.numa_affinity
    assert topo.numa_affinity == {"GPU0": "0", "GPU1": "0", "GPU2": "1", "GPU3": "1"}
    assert topo.nics == {"NIC0": "mlx5_0", "NIC1": "mlx5_1"}


# ------------------------------------------------------------------- PyTorch watchdog


def test_torch_2_6_watchdog_lines_with_pg_guid() -> None:
    # XPixelGroup/BasicSR #737: "[PG ID 0 PG GUID 0(default_pg) Rank 1] ... detected by watchdog
    # at work: 808, last enqueued NCCL work: 811, last completed NCCL work: 807."
    found = {e.rank: e for e in events("watchdog_torch26_pg_guid.log", "watchdog_timeout")}
    assert sorted(found) == [0, 1, 2]
    assert {(e.op, e.seq, e.timeout_ms, e.numel) for e in found.values()} == {
        ("all_reduce", 808, 600000, 9801523)
    }
    assert (found[1].last_enqueued, found[1].last_completed) == (811, 807)
    assert (found[0].last_enqueued, found[0].last_completed) == (811, 807)
    assert found[2].last_enqueued is None  # the thread's excerpt ends before its status line
    # torch prints the month without its leading zero ("E626"): still on the common clock
    assert found[1].time_s == logs.timestamp_s("2025-06-26 06:24:44.903881")


def test_torch_2_7_watchdog_pg_status_line() -> None:
    # ProcessGroupNCCL.cpp: "failure detected by watchdog at work sequence id: S PG status: last
    # enqueued work: N, last completed work: M" (no library name in the counters)
    text = real("watchdog_torch27_pg_status.log")
    assert "log" in detect(text)
    (ev,) = [e for e in logs.parse(text).events if e.kind == "watchdog_timeout"]
    assert (ev.rank, ev.seq, ev.ran_for_ms) == (0, 20585, 600000)
    assert (ev.last_enqueued, ev.last_completed) == (20589, 20584)
    (failure,) = [e for e in logs.parse(text).events if e.kind == "elastic_failure"]
    assert failure.root_cause and failure.exit_code == -6


def test_last_completed_minus_one_is_a_rank_that_completed_nothing() -> None:
    # derived from the torch 2.7 sample: the values of a job whose first collective never
    # completed (torch prints -1 for "none yet"); rank 1 only dumped its status on rank 0's
    # signal (its "Received a dump signal" line: a "failure detected by watchdog" line would be
    # rank 1's own failure, ProcessGroupNCCL logs it inside ``if (work.exception())``)
    sample = real("watchdog_torch27_pg_status.log").splitlines()
    status, dump = sample[1], sample[4]
    text = "\n".join(
        [
            sample[0].replace("SeqNum=20585", "SeqNum=1"),
            status.replace("20589", "1").replace("20584", "-1").replace("20585", "1"),
            dump.replace("rank0", "rank1")
            .replace("Rank 0", "Rank 1")
            .replace("this local rank", "rank 0")
            .replace("20589", "0")
            .replace("20584", "-1"),
        ]
    )
    parsed = logs.parse(text)
    (timeout,) = parsed.of_kind("watchdog_timeout")
    assert (timeout.seq, timeout.last_enqueued, timeout.last_completed) == (1, 1, -1)
    (behind,) = parsed.of_kind("watchdog_progress")
    assert (behind.rank, behind.last_enqueued, behind.last_completed) == (1, 0, -1)
    timeline = build_timeline([{"source": "x", **vars(e)} for e in parsed.events])
    assert timeline is not None and timeline.behind == [1]


# ------------------------------------------------------------------- HCCL


def test_ei0002_names_the_device_its_heartbeat_lost() -> None:
    # Ascend/pytorch docs/zh/troubleshooting/HCCL_timeout.md
    warned, ev = events("hccl_ei0002_heartbeat_lost.log")
    # torch_npu's NPU_CHECK_WARN line above the CANN code: a failed runtime call, not named
    assert (warned.kind, warned.line, warned.call, warned.code, warned.code_name) == (
        "npu_runtime_error", 1, None, "507048", "ACL_ERROR_RT_FFTS_PLUS_TIMEOUT",
    )  # fmt: skip
    assert (ev.code, ev.op, ev.remote_rank) == ("EI0002", "all_reduce", None)
    assert (ev.culprit_ip, ev.culprit_device) == ("90.90.92.240", 1)
    assert (ev.discoverer_ip, ev.discoverer_device) == ("90.90.92.240", 0)
    assert ev.exception_type == "Heartbeat Lost Occurred"


def test_a_runtime_warning_reads_in_the_npu_runtime_finding() -> None:
    path = REAL / "hccl_ei0002_heartbeat_lost.log"
    ev = load_paths([path])
    finding = builtin_findings({"evidence.failures": ev.failures}, "hccl")[
        "evidence-npu-runtime-error"
    ]
    assert [str(i) for i in finding.items] == [
        f"A rank: torch_npu warned of 507048 = ACL_ERROR_RT_FFTS_PLUS_TIMEOUT ({path}, line 1)"
    ]


def test_heartbeat_lines_of_the_hccl_logs_on_their_own() -> None:
    # hicann/hccl docs/en/user_guide/fault_diagnosis/task_exec_stage.md
    crimer, lost, stuck = events("hccl_heartbeat_plog.log")
    assert {crimer.kind, lost.kind, stuck.kind} == {"hccl_heartbeat"}
    assert (crimer.culprit_ip, crimer.culprit_device) == ("127.10.0.2", 2)
    assert (crimer.discoverer_ip, crimer.discoverer_device) == ("127.10.0.3", 3)
    assert (lost.culprit_ip, lost.culprit_device, lost.exception_type) == (
        "127.10.0.1",
        1,
        "Heartbeat Lost Occurred",
    )
    assert stuck.exception_type == "Stuck Occurred" and stuck.discoverer_ip is None


def test_socket_table_names_each_peer_this_rank_waited_for() -> None:
    # vllm-project/vllm-ascend #9447 plog: LINK_ERROR_INFO rows, no error code
    text = real("hccl_link_error_info_plog.log")
    assert detect(text) == ["log"]
    first, second = events("hccl_link_error_info_plog.log")
    assert {first.kind, second.kind} == {"hccl_link_timeout"}
    assert (first.rank, first.remote_rank, first.ip, first.remote_ip) == (
        0,
        29,
        "10.20.0.2",
        "10.20.0.31",
    )
    assert (second.remote_rank, second.remote_ip) == (27, "10.20.0.29")
    assert (first.device, first.port, first.timeout_ms) == (0, 16666, 120000)
    # the row's status and its TlsStatus column (set 661: the TLS status is said)
    assert first.exception_type == "time out, TLS DISABLE"


def test_ei0006_takes_the_op_and_the_peer_it_timed_out_on() -> None:
    (ev,) = [e for e in events("hccl_ei0006_op_peer.log") if e.kind == "hccl_error"]
    assert (ev.code, ev.rank, ev.device, ev.op) == ("EI0006", 0, 0, "all_reduce")
    assert (ev.remote_rank, ev.ip, ev.remote_ip, ev.timeout_ms) == (
        29,
        "10.20.0.2",
        "10.20.0.31",
        120000,
    )


def test_two_ranks_on_one_container_bridge_address_is_found() -> None:
    (tl,) = load_paths([BRIDGE]).timelines
    assert tl.shared_addresses == {"172.17.0.2": [0, 8]}
    assert sorted(tl.consequences) == [0, 8] and tl.all_waiting
    (crash,) = load_paths([DATA / "multirank" / "crash"]).timelines
    assert crash.shared_addresses == {}
    # ranks of one node share its address: only an address also waited on as a peer's counts
    same_node = [
        {"rank": 0, "kind": "hccl_error", "ip": "10.0.0.1", "remote_ip": "10.0.0.2"},
        {"rank": 1, "kind": "hccl_error", "ip": "10.0.0.1", "remote_ip": "10.0.0.2"},
    ]
    timeline = build_timeline(same_node)
    assert timeline is not None and timeline.shared_addresses == {}


def test_import_finds_the_bridge_address_and_the_heartbeat_culprit(tmp_path: Path) -> None:
    res = run_advisor(
        [str(BRIDGE), str(REAL / "hccl_ei0002_heartbeat_lost.log"), "--out", str(tmp_path / "o")],
        tmp_path / "o",
        command="import",
        timeout_s=120,
    )
    findings = json.loads((res.run_dir / "findings.json").read_text())["findings"]
    found = {f["rule_id"]: f for f in findings}
    bridge = found["evidence-hccl-container-bridge-address"]
    assert "Ranks 0, 8 all report 172.17.0.2" in bridge["message"]
    assert "HCCL_IF_IP" in bridge["recommendations"][0]["why"]
    culprit = found["evidence-hccl-heartbeat-culprit"]
    assert "device 1 of 90.90.92.240 (Heartbeat Lost Occurred)" in culprit["message"]


# ------------------------------------------------------------------- nccl-tests


def test_a_log_cut_after_its_first_size_is_judged_against_its_own_max_bytes() -> None:
    # NVIDIA/nccl-tests #44 as the thread quotes it: header, then the 8 B row only
    log = nccl_tests.parse(real("nccl_all_reduce_cut_after_first_size.log"))
    (table,) = log.tables
    assert (table.min_bytes, table.max_bytes, table.step_factor) == (8, 134217728, 2)
    assert table.sizes_asked() == 25 and not table.complete
    (warning,) = log.warnings
    assert "1 of 25 sizes (last 8 B of the 134217728 B maxBytes asked" in warning.message
    assert warning.line == 11


def test_a_run_that_hung_before_its_first_size_says_so() -> None:
    # NVIDIA/nccl-tests #217: the header line, NCCL INFO lines, no table
    text = real("nccl_all_reduce_hang_before_first_size.log")
    parsed = nccl_tests.parse(text)
    (asked,) = parsed.tables
    assert (asked.rows, asked.complete, asked.max_bytes) == ([], False, 134217728)
    (said,) = parsed.warnings
    assert said.line == 3 and "0 of 25 sizes" in said.message
    evidence = load_text(text, "hang.log")
    (report,) = evidence.files
    # the table never started: what it asked is kept, and the NCCL WARN the run printed is read
    assert (report.status, report.formats) == ("partial", ["nccl_tests", "log"])
    assert [m.line for m in report.messages][:2] == [3, 12]
    # (and that its one host chose NCCL's sockets: a note, said for a job of several hosts)
    assert "uses TCP sockets" in report.messages[1].message
    # (then what its NCCL ran with, its WARN lines alone saying what it went on without)
    assert "log: NCCL 2.21.5+cuda12.4" in [m.message for m in report.messages[2:]]
    assert [b["progress"] for b in evidence.benchmarks] == [asked.progress()]
    (warn,) = evidence.failures
    assert (warn["kind"], warn["line"], warn["remote_ip"], warn["port"]) == (
        "nccl_warning", 17, "localhost", 56086,
    )  # fmt: skip


def test_sizes_asked_by_a_byte_step() -> None:
    table = nccl_tests.Table(op="all_reduce", header_line=1, min_bytes=1024, max_bytes=4096)
    table.step_bytes = 1024
    assert table.sizes_asked() == 4


# ------------------------------------------------------------------- robustness


SAMPLES = sorted(REAL.iterdir()) + sorted(BRIDGE.iterdir())


@pytest.mark.parametrize("path", SAMPLES, ids=lambda p: p.name)
def test_every_cut_of_a_real_sample_is_reported_never_raised(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    cuts = sorted(
        {len(text) * k // 23 for k in range(1, 23)} | {text.rfind("\n", 0, len(text) - 1)}
    )
    for cut in cuts:
        out = load_text(text[:cut], path.name)
        (report,) = out.files
        assert report.status in FILE_STATUSES
        if report.status in ("unreadable", "partial", "unknown"):
            assert report.messages, f"{path.name} cut at {cut}: {report.status} without a message"


# ------------------------------------------------------------------- cost of a large log


def _lines_run(events: int) -> int:
    """Lines of advisor code executed to load a log of ``events`` watchdog time-outs and put
    them on one timeline: a count, not a time, so a loaded machine cannot make it flaky."""
    text = make_log(events)
    package = str(Path(logs.__file__).resolve().parents[1])
    count = 0

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return local

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename.startswith(package) else None

    sys.settrace(trace)
    try:
        out = load_text(text, "large.log")
        timeline = build_timeline(out.failures)
    finally:
        sys.settrace(None)
    # (each event a time-out; the copy's "FlightRecorder is disabled" notice beside them)
    timed_out = [f for f in out.failures if f["kind"] == "watchdog_timeout"]
    assert len(timed_out) == events and timeline is not None and timeline.ranks == events
    return count


def test_loading_a_log_costs_lines_in_proportion_to_its_events() -> None:
    # 4x the events must cost about 4x the lines; a scan of the events found so far for each new
    # one (the rank fallback of the watchdog join did that) costs 16x
    small, large = _lines_run(300), _lines_run(1200)
    assert large < 5 * small, f"300 events: {small} lines, 1200 events: {large} lines"


def test_a_rank_whose_log_blames_another_device_is_not_the_first_to_fail() -> None:
    # the EI0002 sample's heartbeat verdict, reported by rank 0 while rank 1 crashed on its own
    blamed = {"rank": 0, "kind": "hccl_error", "code": "EI0002", "time_s": 10.0}
    blamed |= {"culprit_ip": "90.90.92.240", "culprit_device": 1, "message": "EI0002"}
    crashed = {"rank": 1, "kind": "elastic_failure", "exit_code": 1, "time_s": 12.0}
    timeline = build_timeline([blamed, crashed])
    assert timeline is not None and timeline.first_rank == 1 and timeline.consequences == [0]
    (entry,) = [x for x in timeline.entries if x.rank == 0]
    assert entry.why == "HCCL's heartbeat blames device 1 of 90.90.92.240"
