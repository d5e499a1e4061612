"""The twenty-second review's findings on round V's and W's readings (inputs in
tests/data/review22, written from the formats named in tests/data/SOURCES.md)."""

from __future__ import annotations

import json

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import logs
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

REVIEW = DATA / "review22"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def test_a_failure_before_the_watchdogs_exit_note_is_still_read() -> None:
    # the watchdog's INFO line at exit said nothing failed, and hid the CUDA error above it
    ev = _load("torn02_illegal_access_then_watchdog_torn_down.log")
    (cuda,) = ev.failures
    assert (cuda["kind"], cuda["line"], cuda["rank"]) == ("cuda_error", 1, 1)
    assert cuda["exception_type"] == "an illegal memory access was encountered"
    assert any("torn CUDA down" in m.message for m in ev.files[0].messages)
    (oom,) = _load("torn01_oom_traceback_then_watchdog_torn_down.log").failures
    assert (oom["kind"], oom["line"]) == ("device_oom", 8)


def test_cudas_driver_shutting_down_alone_is_no_failed_call() -> None:
    text = "RuntimeError: CUDA error: driver shutting down\n"
    assert logs._torch_cuda_errors(logs.numbered_lines(text), text.splitlines()) == []


def test_a_large_ras_dump_names_each_ranks_line() -> None:
    # thousands of ranks: each rank's line found by bisection (counting from the start for every
    # rank grew with the square of the dump), and the lines still right
    ranks = [
        {
            "rank": r,
            "host": f"10.1.{r // 8}.1",
            "pid": 5000 + r,
            "cuda_dev": r % 8,
            "nvml_dev": r % 8,
            "status": {"init_state": 0, "async_error": 0, "abort_flag": r == 2999},
            "collective_counts": {"AllReduce": 7},
        }
        for r in range(3000)
    ]
    comm = {"hash": "0xabc", "size": 3000, "missing_ranks_count": 0, "ranks": ranks}
    text = json.dumps({"nccl_version": "2.29.1", "communicators": [comm]}, indent=2)
    report = logs.parse(text)
    (abort,) = [e for e in report.events if e.code == "ABORT"]
    assert abort.rank == 2999 and abort.pid == 7999
    assert text.splitlines()[abort.line - 1].strip() == '"pid": 7999,'


def test_a_missing_rank_whose_process_answered_is_a_mismatch_warning() -> None:
    # NCCL's RAS counts a rank whose process answered without the communicator as MISMATCH (a
    # warning), not INCOMPLETE; its GPU as NCCL prints it when CUDA's and NVML's indices differ
    (ev,) = _load("ras02_json_missing_rank_answered_not_member_nvml_differs.json").failures
    assert (ev["code"], ev["library"], ev["rank"]) == ("MISMATCH", "NCCL RAS warnings", 2)
    assert "GPU 0 (NVML 2) managed by process 30112" in ev["message"]


def test_ras_monitor_a_recovered_peer_is_no_warning_a_keepalive_timeout_is() -> None:
    (ev,) = _load("ras01_monitor_unresponsive_recovered_keepalive.txt").failures
    assert (ev["code"], ev["library"], ev["host"]) == (
        "PEER_KEEPALIVE_TIMEOUT",
        "NCCL RAS warnings",
        "10.20.0.12",
    )
    # the same in the monitor's JSON form
    stream = "".join(
        json.dumps({"timestamp": t, "group": "LIFECYCLE", "event": e, "peer": p, "details": d})
        + "\n"
        for t, e, p, d in [
            ("2026-03-02 09:14:01", "PEER_UNRESPONSIVE", {"addr": "10.20.0.11<41234>"}, "late"),
            ("2026-03-02 09:14:09", "PEER_RECOVERED", {"addr": "10.20.0.11<41234>"}, "again"),
            ("2026-03-02 09:15:40", "PEER_SEND_STUCK", {"addr": "10.20.0.12<41234>"}, "stuck"),
        ]
    )
    (stuck,) = logs.parse(stream).events
    assert stuck.code == "PEER_SEND_STUCK" and stuck.line == 3


def test_fault_names_outside_torch_npus_own_frames_are_no_device_fault() -> None:
    # a health script's list of the names to watch is no fault of a device
    ev = _load("npu01_doc_lists_fault_names.txt")
    assert not [e for e in ev.failures if e["kind"].startswith("npu_device_fault")]


def test_the_multi_bit_ecc_handlers_throw_ecc_error_is_an_hbm_fault() -> None:
    (fault,) = _load("npu02_throw_ecc_error_hbm.log").failures
    assert (fault["kind"], fault["code_name"], fault["line"]) == (
        "npu_device_fault",
        "HBM MULTI BIT ECC ERROR",
        1,
    )


def test_a_uce_that_training_went_on_after_is_a_repaired_warning() -> None:
    ev = _load("npu03_uce_repaired_training_went_on.log")
    (fault,) = ev.failures
    assert (fault["kind"], fault["line"], fault["code"]) == (
        "npu_device_fault_repaired",
        2,
        "507053",
    )
    findings = builtin_findings({"evidence.failures": ev.failures}, "hccl")
    assert findings["evidence-npu-uce-repaired"].severity == "warning"
    assert "evidence-npu-device-fault" not in findings


def test_a_document_quoting_the_buffsize_check_is_no_failure() -> None:
    ev = _load("buf01_doc_quotes_the_check.md")
    assert not [e for e in ev.failures if e["kind"] == "hccl_buffsize_small"]


def test_buffsize_should_larger_than_and_the_tp_window() -> None:
    ev = _load("buf02_should_larger_than_tp_and_bytes.log")
    needs = [(e["line"], e["numel"]) for e in ev.failures if e["kind"] == "hccl_buffsize_small"]
    # "larger than 600MB" is 600 rounded down: 601 is enough; 314572800 bytes is 300 MiB
    assert needs == [(1, 601), (2, 300), (3, 2)]
    tp = ev.failures[2]["exception_type"]
    assert tp.startswith("TP HCCL_BUFFSIZE is too small") and "TP HCCL_BUFFSIZE gives 1 MB" in tp
    finding = builtin_findings({"evidence.failures": ev.failures}, "hccl")[
        "evidence-hccl-buffsize-small"
    ]
    assert [(r.name, r.value) for r in finding.recommendations if r.kind == "env"] == [
        ("HCCL_BUFFSIZE", "601")
    ]


def test_kubelets_crash_loop_and_image_pull_are_told_apart_and_its_older_wording() -> None:
    crash, pull, plugin = _load("kube01_crashloop_imagepull_old_listandwatch.log").failures
    assert crash["exception_type"] == (
        "container trainer of pod jobs/trainer-0 was restarted and is backing off"
        " (CrashLoopBackOff: it exited, or never started; its log or its last state says why):"
        " back-off 5m0s restarting failed container=trainer"
        " pod=trainer-0_jobs(6f1c2a9e-0d1b-4c7e-9a51-2b7f0c3d4e5f)"
    )
    # the image's name quoted twice over in klog's value, read back whole
    assert pull["exception_type"].endswith(
        "could not start: its image was not pulled (ImagePullBackOff): Back-off pulling image"
        ' "registry.local/nccl-bench:v2"'
    )
    assert (plugin["kind"], plugin["line"], plugin["host"]) == (
        "device_plugin_lost",
        3,
        "gpu-node-3",
    )
    assert plugin["exception_type"] == (
        "the device plugin of nvidia.com/gpu stopped serving kubelet (rpc error: code ="
        " Unavailable desc = transport is closing)"
    )


def test_a_loops_device_index_is_no_editors_line_number() -> None:
    # "0 net health status: Success" ... counted from 0, each saying the same after its number:
    # the numbers are the devices, kept as such
    ev = _load("edit01_loop_device_index_net_health.txt")
    assert not any("editor's line numbers" in m.message for m in ev.files[0].messages)
    states = [(p["device"], p["net_health"]) for p in ev.npu_ports]
    assert states == [(d, "Init" if d == 3 else "Success") for d in range(8)]
    links = [
        (p["device"], p["link"]) for p in _load("edit02_npu_prefixed_link_states.txt").npu_ports
    ]
    assert links == [(0, "UP"), (1, "DOWN")]


def test_a_flattened_summary_keeps_its_root_cause() -> None:
    entries = [e for e in _load("flat01_root_cause_flattened.log").failures]
    assert [(e["rank"], e["root_cause"]) for e in entries if e["kind"] == "elastic_failure"] == [
        (1, False),
        (0, True),
    ]
    # the heading on a line of its own above the entry
    text = (
        "Root Cause (first observed failure):\n"
        "[0]: time : 2026-03-05_08:00:01 host : node-a rank : 0 (local_rank: 0) exitcode : 1"
        " (pid: 4410) error_file: <N/A> traceback : boom\n"
    )
    (entry,) = [e for e in logs.parse(text).events if e.kind == "elastic_failure"]
    assert entry.root_cause and entry.message == "boom"


def test_long_runs_of_spaces_are_read_in_one_pass() -> None:
    # a lazy group before "\s*$" retried at every space: a line of 200,000 spaces took minutes
    spaces = " " * 200_000
    lines = [
        f"[2026-03-02 09:14:01] PEER_DEAD: 10.0.0.2<1234> gone{spaces}x",
        f"[ascend] [devmm] [ERROR] [devmm_ioctl 88] <python:12> copy failed{spaces}x",
        f"[0]: time : 2026-03-05_08:00:01 host : a rank : 0 exitcode : 1 traceback : t{spaces}x",
        f"npu-smi info -t health{spaces}x",
    ]
    report = logs.parse("\n".join(lines) + "\n")
    kinds = {e.kind for e in report.events}
    assert {"nccl_ras", "elastic_failure"} <= kinds
