"""Outputs of round SSSS's held-out evaluation (set 701, NVIDIA collective logs, and the same
file in set 702) that the advisor read in part before this change (tests/data/evidence_heldout_79,
sources in tests/data/SOURCES.md): BigScience's all_reduce_bench.py run on one node of 4 V100s
was read for its NCCL set-up only, the busbw of its trials (about 1000 Gbps) not named; a torch
1.12 job whose ProcessGroupNCCL watchdogs died of
"CUDA error: unknown error" before ``srun: error: Node failure on jean-zay-iam49`` was also said
to be a launch that "never started the job's processes", though the processes ran and srun
prints that line for a step it had launched; and NCCL's "failed to extend /dev/shm/... to N
bytes" (the NCCL user guide's example of too little shared memory) got only the generic CUDA and
socket advice, nothing of /dev/shm being too small or of the guide's fix."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_79"

NODE_LOST = (
    "torch_1_12_processgroupnccl_workcleanuploop_cuda_unknown_error_srun_node_failure_"
    "jean_zay_iam49_m4logs_nw02_cut.log"
)
NODE_LOST_702 = "m4_pt1.12_nccl_watchdog_cuda_unknown_error_srun_node_failure_m4logs_nw02_cut.log"
BENCH = "torch_all_reduce_bench_nccl_2_7_8_4x_v100_16gb_one_node_p2p_ipc_busbw_1000gbps_bigscience_n1_16gb.log"
SHM = "nccl_warn_failed_to_extend_dev_shm_segment_insufficient_shared_memory_nccl_docs_runtime_cut.log"

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


def _advice(outcome: object, rule_id: str) -> list[str]:
    (finding,) = [f for f in outcome.findings if f.rule_id == rule_id]  # type: ignore[attr-defined]
    return [r.why for r in finding.recommendations]


# --- srun's node failure after the processes ran: a node lost mid-job, not a failed launch ----


def test_a_node_lost_mid_job_is_not_a_launch_that_never_started() -> None:
    for name in (NODE_LOST, NODE_LOST_702):
        ev = _load(name)
        assert ev.files[0].status == "read", name
        assert [f["kind"] for f in ev.failures if f["kind"] == "launch_failed"] == [], name
        (lost,) = [f for f in ev.failures if f["kind"] == "launcher_exit"]
        assert (lost["host"], lost["line"], lost["root_cause"]) == ("jean-zay-iam49", 34, True)
        assert lost["exception_type"] == "srun (Slurm lost the node: node failure)"
        (cuda,) = [f for f in ev.failures if f["kind"] == "cuda_error"]
        assert cuda["line"] == 3 and "3 processes reported it" in cuda["exception_type"]
        level, outcome = heldout.imported(ev)
        assert level == "NOT READY"
        rules = [rule for rule, _ in heldout.above_info(outcome)]
        assert "evidence-launch-failed" not in rules and "evidence-launcher-exit" in rules
        assert "evidence-cuda-error" in rules
        (item,) = heldout.items(outcome, "evidence-launcher-exit")
        assert "jean-zay-iam49" in item and "line 34" in item


def test_another_nodes_failure_alone_is_the_node_lost_too(tmp_path: Path) -> None:
    ev = _write(tmp_path, "srun: error: Node failure on gpu-node07\n")
    assert [(f["kind"], f["host"], f["line"]) for f in ev.failures] == [
        ("launcher_exit", "gpu-node07", 1)
    ]


def test_sallocs_node_failure_is_kept_as_it_was(tmp_path: Path) -> None:
    # (not srun's step: the judge named srun's only; salloc's reading is unchanged)
    ev = _write(tmp_path, "salloc: error: Node failure on worker-3\n")
    assert [(f["kind"], f["host"]) for f in ev.failures] == [("launch_failed", "worker-3")]


# --- NCCL's /dev/shm segment it could not grow ------------------------------------------------


def test_failed_to_extend_dev_shm_says_shared_memory_is_too_small() -> None:
    ev = _load(SHM)
    (warn,) = ev.failures
    assert (warn["kind"], warn["line"]) == ("nccl_warning", 1)
    assert warn["exception_type"].startswith(
        "NCCL could not grow its shared memory segment /dev/shm/nccl-03v824 to 4194660 bytes: "
        "/dev/shm is too small or full"
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-nccl-warning")
    assert "/dev/shm is too small or full" in item and "line 1" in item
    (advice,) = _advice(outcome, "evidence-nccl-warning")  # the generic CUDA/socket text gone
    assert "--shm-size=1g --ulimit memlock=-1" in advice and "medium: Memory" in advice


def test_a_ranks_prefixed_warn_with_its_errno_is_read_the_same(tmp_path: Path) -> None:
    line = (
        # (as NCCL's debug.cc prints a WARN: host:pid:tid [device] file:line, and shmutils.cc's
        # errno after the size)
        "gpu-b12:41873:41990 [5] misc/shmutils.cc:112 NCCL WARN Error: failed to extend "
        "/dev/shm/nccl-Xq81Lz to 9637892 bytes, error: No space left on device (28)\n"
    )
    ev = _write(tmp_path, line)
    (warn,) = ev.failures
    assert (warn["host"], warn["device"], warn["line"]) == ("gpu-b12", 5, 1)
    assert "/dev/shm/nccl-Xq81Lz to 9637892 bytes" in warn["exception_type"]
    _, outcome = heldout.imported(ev)
    assert any("--shm-size" in a for a in _advice(outcome, "evidence-nccl-warning"))


def test_a_segment_allocated_is_no_failure(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "gpu-b12:41873:41990 [5] NCCL INFO Allocated 4194660 bytes of shared memory in "
        "/dev/shm/nccl-03v824\n",
    )
    assert ev.failures == []


def test_other_warnings_get_no_shared_memory_advice(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "r11i6n2:486514:486592 [1] include/socket.h:403 NCCL WARN Connect to "
        "10.148.3.247<56821> failed : Connection refused\n",
    )
    _, outcome = heldout.imported(ev)
    (advice,) = _advice(outcome, "evidence-nccl-warning")
    assert "/dev/shm" not in advice and advice.startswith("Start from the earliest WARN")


# --- all_reduce_bench.py's trials: the busbw each process measured -----------------------------


def _bench_note(ev: EvidenceFacts) -> tuple[int | None, str]:
    (note,) = [(line, said) for line, said in _said(ev) if "all_reduce_bench" in said]
    return note


def test_the_all_reduce_benchs_busbw_is_named_per_process_and_averaged() -> None:
    ev = _load(BENCH)
    assert ev.files[0].status == "read"
    line, note = _bench_note(ev)
    assert line == 168  # the first trial's "0:"
    assert note.startswith(
        "log: all_reduce_bench (torch.distributed all_reduce of 4.0 GB, NCCL): 4 process(es), "
        "5 trial(s) each (lines 168-264)"
    )
    # lines 188-264: 16 trials after the first, 992.9430 (l.200) to 1004.0379 Gbps (l.216)
    assert "busbw after the first trial 992.9-1004.0 Gbps, average 999.6 Gbps" in note
    assert "algo throughput 1323.9-1338.7 Gbps" in note
    assert "first trial (each process's first all_reduce) busbw 72.4-114.2 Gbps" in note
    assert note.endswith(
        "last trial's busbw by process: 0 997.1, 1 997.8, 2 997.5, 3 999.8 Gbps "
        "(line 264, 260, 252, 256)"
    )
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []


def test_the_newer_scripts_host_and_rank_ids_are_each_a_process(tmp_path: Path) -> None:
    # (the script's later version names a process "hostname:local_rank"; two nodes, two trials)
    procs = (("gpu-a01", 0, "88.1000", "301.2500"), ("gpu-a02", 1, "90.5000", "297.7500"))
    blocks = [f"{host}:{rank} data size: 4.0 GB" for host, rank, _, _ in procs]
    for trial in range(2):
        for host, rank, first, then in procs:
            busbw = first if trial == 0 else then
            blocks += [
                f"ignore me {trial}",
                f"{host}:{rank}:",
                " duration: 0.1000 sec",
                " algo throughput: 640000000000.0000 bps, 640.0000 Gbps",
                f" busbw: {busbw}  Gbps",
            ]
    ev = _write(tmp_path, "\n".join(blocks) + "\n" + "gpu-a01:77:77 [0] NCCL INFO Init COMPLETE\n")
    _, note = _bench_note(ev)
    assert "2 process(es), 2 trial(s) each" in note
    assert "busbw after the first trial 297.8-301.2 Gbps, average 299.5 Gbps" in note
    assert "first trial (each process's first all_reduce) busbw 88.1-90.5 Gbps" in note
    assert "gpu-a01:0 301.2, gpu-a02:1 297.8 Gbps" in note


def test_a_block_with_a_line_missing_is_not_a_trial(tmp_path: Path) -> None:
    text = _text(BENCH).replace(" busbw: 997.0682  Gbps\n", "")  # rank 0's last trial cut
    assert text != _text(BENCH)
    _, note = _bench_note(_write(tmp_path, text))
    assert "4 process(es), 5 trial(s) each (lines 168-260)" in note
    assert "last trial's busbw by process: 0 1002.8, 1 997.8" in note
