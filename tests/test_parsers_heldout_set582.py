"""Outputs of round YYY's held-out evaluation (set 582) that the advisor read wrong or not at all
before this change (tests/data/evidence_heldout_62, sources in tests/data/SOURCES.md): pdsh's
bare node prefix, a watchdog record wrapped inside "ran", a Lightning start that ends at its
process-group init, SGLang's scheduler watchdog, and XLA's coordination service errors."""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path

import pytest

from advisor.parsers import logs
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_62"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


def test_pdshs_bare_node_prefix_is_the_oom_host() -> None:
    ev = _load("deepspeed_issue2899_zero3_pdsh_host_prefix_cuda_oom_gpu2.log")
    (oom,) = ev.failures
    assert (oom["kind"], oom["host"], oom["device"], oom["line"]) == (
        "device_oom",
        "gpu-q-13",
        2,
        3,
    )
    found = heldout.found(ev)["evidence-device-out-of-memory"]
    (item,) = found.items
    assert item.startswith(
        "A process on host gpu-q-13, device 2: tried to allocate 896.00 MiB, 381.31 MiB free"
    )
    # no other rank's time-out is in the file: none is spoken of
    assert "time-out" not in found.message


def test_pdsh_prefix_of_another_node_and_the_runners_own_lines(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "[2024-01-02 10:00:00,000] [INFO] [runner.py:555:main] cmd = pdsh -S -f 1024 -w n7,n8\n"
        "node-8: Traceback (most recent call last):\n"
        'node-8:   File "train.py", line 9, in <module>\n'
        "node-8: torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB "
        "(GPU 5; 79.15 GiB total capacity; 77.01 GiB already allocated; 1.02 GiB free)\n",
    )
    (oom,) = ev.failures
    assert (oom["host"], oom["device"]) == ("node-8", 5)


def test_a_words_number_before_a_colon_is_no_host(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "rank1: torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB "
        "(GPU 1; 79.15 GiB total capacity; 1.02 GiB free)\n",
    )
    (oom,) = ev.failures
    assert oom["host"] is None


def test_a_watchdog_record_wrapped_inside_ran_reads_its_run_time() -> None:
    ev = _load("accelerate_issue157_wrapped_rank0_allreduce_watchdog_traceback.log")
    (timeout,) = [f for f in ev.failures if f["kind"] == "watchdog_timeout"]
    assert (timeout["rank"], timeout["op"], timeout["timeout_ms"], timeout["ran_for_ms"]) == (
        0,
        "all_reduce",
        1800000,
        1804582,
    )
    (item,) = heldout.found(ev)["evidence-watchdog-timeout"].items
    assert "ran 1804582 ms against a 1800000 ms time-out" in item
    assert "does not say how long it ran" not in item


RECORD = (
    "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=77, "
    "OpType=_ALLGATHER_BASE, NumelIn=4096, NumelOut=32768, Timeout(ms)=600000) ran for 600012 "
    "milliseconds before timing out."
)


@pytest.mark.parametrize(
    "cut", ["Timeout(ms)=600000) ", ") r", ") ran f", "ran for 600", "ran for 600012 mil"]
)
def test_a_watchdog_record_wrapped_anywhere_in_its_run_time(cut: str) -> None:
    at = RECORD.index(cut) + len(cut)
    report = logs.parse(RECORD[:at] + "\n" + RECORD[at:] + "\n")
    (timeout,) = [e for e in report.events if e.kind == "watchdog_timeout"]
    assert (timeout.rank, timeout.seq, timeout.ran_for_ms) == (3, 77, 600012)


def test_a_lightning_start_that_ends_at_ddp_init_is_a_warning() -> None:
    ev = _load("lightning_issue10471_ddp_2gpu_stuck_after_init_no_steps.log")
    (unconfirmed,) = ev.failures
    assert (unconfirmed["kind"], unconfirmed["line"], unconfirmed["rank_size"]) == (
        "pg_init_unconfirmed",
        8,
        2,
    )
    found = heldout.found(ev)
    assert [f.severity for f in found.values() if f.severity in ("critical", "warning")] == [
        "warning"
    ]
    (item,) = found["evidence-pg-init-unconfirmed"].items
    assert item.startswith(
        "Lightning's rank(s) 0, 1 of a world of 2 began the process group's init"
    )


def test_a_lightning_start_that_registered_or_was_cut_is_no_warning(tmp_path: Path) -> None:
    start = (
        "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/4\n"
        "Initializing distributed: GLOBAL_RANK: 1, MEMBER: 2/4\n"
    )
    registered = _write(
        tmp_path,
        start + "distributed_backend=nccl\n"
        "All distributed processes registered. Starting with 4 processes\n",
    )
    assert not registered.failures
    assert any("Lightning started 2 rank(s) of a world of 4" in s for s in heldout.said(registered))
    # (a copy the store cut inside its last line ends where the copy did, not the log)
    cut = _write(tmp_path, start + "Initializing distributed: GLOBAL_RANK: 2, MEMBER: 3\n")
    assert not cut.failures
    ended = _write(tmp_path, start)
    (unconfirmed,) = ended.failures
    assert (unconfirmed["kind"], unconfirmed["rank_size"]) == ("pg_init_unconfirmed", 4)


def test_sglangs_scheduler_watchdog_on_every_tp_rank_is_the_servers_end() -> None:
    ev = _load("sglang_issue3752_tp8_scheduler_watchdog_timeout_plus_top.log")
    (ended,) = ev.failures
    assert (ended["kind"], ended["line"], ended["timeout_ms"], ended["worker"]) == (
        "launcher_exit",
        1,
        300000,
        "TP4",
    )
    assert ended["message"].startswith(
        "Watchdog timeout (self.watchdog_timeout=300) on 8 TP rank(s) (TP0-TP7), first on TP4"
    )
    assert "(line 9)" in ended["message"] and "'Killed' (line 10)" in ended["message"]
    found = heldout.found(ev)
    assert "evidence-log-error" not in found
    assert found["evidence-launcher-exit"].severity == "critical"
    assert not any("NCCL" in s or "collective" in s for s in [ended["exception_type"]])


def test_sglangs_watchdog_under_dp_tags_and_another_time_out() -> None:
    report = logs.parse(
        "[2025-06-01 10:00:00 DP1 TP3] Watchdog timeout (self.watchdog_timeout=600)\n"
        "[2025-06-01 10:00:01 DP0 TP0] Watchdog timeout (self.watchdog_timeout=600)\n"
    )
    (ended,) = report.events
    assert (ended.kind, ended.timeout_ms, ended.worker) == ("launcher_exit", 600000, "TP3")
    assert "on 2 TP rank(s) (TP0, TP3)" in ended.message


def test_xlas_registration_deadline_is_the_coordination_failure() -> None:
    ev = _load("jax_paxml_issue77_1024gpu_quoted_register_deadline_exceeded.log")
    (failed,) = ev.failures
    assert (failed["kind"], failed["line"], failed["code"], failed["call"]) == (
        "coordination_timeout",
        3,
        "DEADLINE_EXCEEDED",
        "RegisterTask",
    )
    assert failed["message"].startswith(
        "Coordination service agent in error status: DEADLINE_EXCEEDED"
    )
    assert failed["rank"] is None and failed["host"] is None  # the file names neither
    (item,) = heldout.found(ev)["evidence-coordination-timeout"].items
    assert "(DEADLINE_EXCEEDED) calling RegisterTask: it could not register" in item


def test_xlas_key_value_wait_is_the_coordination_failure() -> None:
    ev = _load("jax_enzyme_issue623_multinode_getkeyvalue_deadline_exceeded.log")
    (failed,) = ev.failures
    assert (failed["kind"], failed["line"], failed["ran_for_ms"]) == (
        "coordination_timeout",
        1,
        600000,
    )
    assert failed["message"].startswith("Execution of replica 0 failed: DEADLINE_EXCEEDED")
    assert failed["call"].startswith("devices=[0,1,2,3")
    (item,) = heldout.found(ev)["evidence-coordination-timeout"].items
    assert item.startswith("a task waited 600 s for key 'devices=[0,1,2,3")


def test_jax_topology_key_wait_and_a_lone_rpc_detail(tmp_path: Path) -> None:
    report = logs.parse(
        "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: Getting local topologies failed: "
        "GetKeyValue() timed out with key: cuda:local_topology/cuda/1 and duration: 2m30s\n"
    )
    (failed,) = report.events
    assert (failed.call, failed.ran_for_ms) == ("cuda:local_topology/cuda/1", 150000)
    # a copy that kept only the gRPC detail of the failed call
    ev = _write(
        tmp_path,
        "Additional GRPC error information from remote target coordinator while calling "
        "/tensorflow.CoordinationService/RegisterTask:\n"
        ':{"created":"@1712965181.656280441","description":"Deadline Exceeded","grpc_status":4}\n',
    )
    (lone,) = ev.failures
    assert (lone["kind"], lone["line"], lone["call"], lone["code"]) == (
        "coordination_timeout",
        1,
        "RegisterTask",
        "Deadline Exceeded",
    )


def test_a_long_key_value_line_reads_in_linear_time() -> None:
    key = "devices=[" + ",".join(map(str, range(40000))) + "]" + " " * 20000
    started = time.process_time()
    report = logs.parse(
        f"E0403 x.cc:1] DEADLINE_EXCEEDED: GetKeyValue() timed out with key: {key}\n"
    )
    assert time.process_time() - started < 5.0
    (failed,) = report.events
    assert failed.ran_for_ms is None and failed.call.endswith("...")
