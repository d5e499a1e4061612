"""Outputs the two-hundred-twenty-first to two-hundred-twenty-fourth held-out evaluations misread
that this stop reads: gloo's own check failing at a group's creation, the FastSocket net plugin's
warnings of what it gave up (a fallback, not an error), several ``topo -m`` outputs in one paste,
torch's store wait time-out on a group's keys, DDP's unfinished prior reduction, a watchdog record
cut inside its fields, and HCCL's older heartbeat line beside the task exception it followed.

Samples: ``tests/data/evidence_heldout_37/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from advisor.evidence.load import EvidenceFacts, load_paths, load_text
from advisor.parsers import logs
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings, finding_items

HELDOUT = DATA / "evidence_heldout_37"


_load = partial(heldout.load, HELDOUT)


def _kinds(ev: EvidenceFacts, kind: str) -> list[dict[str, Any]]:
    return [f for f in ev.failures if f["kind"] == kind]


def test_glooss_own_check_at_a_groups_creation_is_a_gloo_error() -> None:
    ev = _load(
        "gloo_enforce_fail_tcp_device_cc127_unable_to_find_address_init_process_group_master_"
        "discuss_pytorch.log"
    )
    (gloo,) = _kinds(ev, "gloo_error")
    assert gloo["line"] == 8
    assert gloo["exception_type"].startswith("rp != nullptr. Unable to find address for:")
    assert _kinds(ev, "python_exception") == []


def test_the_fastsocket_plugins_fallbacks_warn_and_are_not_a_failure() -> None:
    ev = _load(
        "nccl_fastsocket_plugin_warn_cannot_get_incoming_cpu_max_retry_accept_connect_then_"
        "connected_2node_gce.log"
    )
    warned = _kinds(ev, "nccl_warning")
    assert {w["exception_type"] for w in warned} == {"start-up fallback"}
    findings = finding_items({"evidence.failures": ev.failures}, "nccl")
    assert "evidence-nccl-warning" not in findings
    assert findings["evidence-nccl-fallback-warning"][0].startswith(
        "full-debug2-test-1 pid 4024, device 0: Cannot get incoming CPU."
    )


def test_several_topo_outputs_in_one_paste_are_each_a_matrix() -> None:
    ev = _load("nvidia_smi_topo_old_soc_legend_1gpu_4gpu_phb_soc_8gpu_nv1_nv2_mlx5_cut_gist.txt")
    assert [t["devices"] for t in ev.topologies] == [
        ["GPU0"],
        ["GPU0", "GPU1", "GPU2", "GPU3"],
        ["GPU0", "GPU1", "GPU2", "GPU3"],
    ]
    assert ev.topologies[1]["sys_pairs"] == [
        ["GPU0", "GPU2"], ["GPU0", "GPU3"], ["GPU1", "GPU2"], ["GPU1", "GPU3"],
    ]  # fmt: skip
    assert ev.topologies[2]["links"]["GPU0"]["GPU3"] == "NV2"
    assert ev.files[0].status == "partial"  # the last matrix is cut after GPU3's row


def test_a_store_wait_time_out_on_a_groups_keys_is_a_store_time_out() -> None:
    ev = _load(
        "gloo_new_group_diststoreerror_wait_timeout_1800000ms_default_pg_cpu_key_exit_131_"
        "sglang6017.log"
    )
    (waited,) = _kinds(ev, "store_timeout")
    assert (waited["line"], waited["timeout_ms"]) == (11, 1_800_000)
    assert waited["exception_type"] == ("waiting for the store's key(s) /default_pg/0//2//cpu//0/0")


def test_ddps_unfinished_prior_reduction_names_the_rank_and_its_unused_parameters() -> None:
    ev = _load(
        "torch_ddp_unused_parameter_reduction_error_rank0_a_weight_index0_pytorch_"
        "distributed_docs.log"
    )
    (raised,) = ev.failures
    assert (raised["kind"], raised["rank"], raised["library"]) == (
        "ddp_unused_parameters",
        0,
        "torch.distributed",
    )
    assert raised["message"].endswith("/ no grad for rank 0: a.weight")
    findings = finding_items({"evidence.failures": ev.failures}, "nccl")
    assert "evidence-python-exception" not in findings
    assert "find_unused_parameters=True" in str(
        builtin_findings({"evidence.failures": ev.failures}, "nccl")[
            "evidence-ddp-unused-parameters"
        ].recommendations
    )


def test_a_watchdog_record_cut_inside_its_fields_is_read_to_its_optype() -> None:
    ev = _load(
        "watchdog_nccl_allreduce_seq680_ranks1_6_5_2_rank3_allgather_base_seq678_600000ms_"
        "glued_to_tqdm_gist_cut.log"
    )
    timed_out = _kinds(ev, "watchdog_timeout")
    assert [(e["rank"], e["seq"], e["op"]) for e in timed_out] == [
        (1, 680, "all_reduce"), (6, 680, "all_reduce"), (5, 680, "all_reduce"),
        (2, 680, "all_reduce"), (3, 678, "all_gather"),
    ]  # fmt: skip
    cut = timed_out[-1]
    assert (cut["timeout_ms"], cut["ran_for_ms"], cut["numel"]) == (None, None, 4096)
    (note,) = ev.files[0].messages
    assert note.line == 5 and "read to its OpType" in note.message


def test_hccls_older_heartbeat_line_names_the_lost_device_beside_the_task_exception() -> None:
    ev = _load(
        "cann_plog_parser_hccl_notify_wait_task_fail_rank1_remote_rank2_heartbeat_lost_"
        "mindcluster_fixture.log"
    )
    (task,) = _kinds(ev, "hccl_plog_error")
    assert (task["rank"], task["remote_rank"], task["exception_type"]) == (
        1,
        2,
        "task exception on a Notify Wait task",
    )
    (lost,) = _kinds(ev, "hccl_heartbeat")
    assert (lost["line"], lost["culprit_ip"], lost["culprit_device"]) == (10, "10.136.181.175", 5)
    assert (lost["discoverer_device"], lost["exception_type"]) == (1, "Heartbeat Lost Occurred")


def test_review_mends_of_this_rounds_readings(tmp_path: Path) -> None:
    # a heartbeat verdict alone is one event, not also a plog error on the same line
    beat = (
        "[ERROR] HCCL(835695,all_reduce_test):2025-10-23-17:28:06.049.385 [task_exception_handler"
        ".cc:610][835695][TaskExecStage][HeartbeatAbnormal]Cluster Exception Location[IP/ID]:"
        "[127.10.0.1/1], Arrival Time:[Thu Oct 23 17:25:58 2025], Discoverer:[127.10.0.1/0], "
        "ExceptionType:[Heartbeat Lost Occurred], Possible Reason:1. Process has exited\n"
    )
    assert [e.kind for e in logs.parse(beat).events] == ["hccl_heartbeat"]
    # a cut record followed by the whole record of the same work: the whole one is read
    head = "[rank3]:[E ProcessGroupNCCL.cpp:563] [Rank 3] Watchdog caught collective operation "
    work = "timeout: WorkNCCL(SeqNum=678, OpType=_ALLGATHER_BASE, NumelIn=4096, NumelOut=32768, "
    parsed = logs.parse(
        f"{head}{work}Time\n[E x] Some NCCL operations have failed or timed out.\n"
        f"{head}{work}Timeout(ms)=600000) ran for 600013 milliseconds before timing out.\n"
    )
    assert [(e.line, e.timeout_ms) for e in parsed.events if e.kind == "watchdog_timeout"] == [
        (3, 600000)
    ]
    assert parsed.unread == []
    # a field the cut ends in is not read as whole: "ALLRE" starts more than one op, so the
    # time-out's SeqNum is read and its op is not (round TTT: a cut that leaves one op is read)
    cut = logs.parse(f"{head}timeout: WorkNCCL(SeqNum=678, OpType=ALLRE\nFatal\n")
    assert [(e.rank, e.seq, e.op, e.timeout_ms) for e in cut.events] == [(3, 678, None, None)]

    # communicator creations of two days, or one process as two ranks, are no skew
    def entry(pid: int, rank: int, stamp: str) -> str:
        return (
            f"[INFO] HCCL({pid},t):{stamp} [op_base.cc:1293] [{pid}]Entry-HcclCommInitRootInfoInner:"
            f"ranks[2], rank[{rank}], rootinfo: host ip[127.10.0.1] port[60000] nicDeploy[1] "
            "identifier[127.10.0.1%enp_60000_0_1763610996711234], deviceLogicId[0]\n"
        )

    for text in (
        entry(1, 0, "2025-11-20-11:56:36.704.523") + entry(2, 1, "2025-11-21-08:56:36.704.523"),
        entry(1, 0, "2025-11-20-11:56:36.704.523") + entry(1, 1, "2025-11-20-12:06:36.704.523"),
    ):
        assert [e for e in logs.parse(text).events if e.kind == "hccl_init_skew"] == []
    # one topo -m of several that cannot be read is said; the others are kept
    (tmp_path / "topo.txt").write_text(
        "\tGPU0\tGPU1\tCPU Affinity\nGPU0\t X \tNV4\t0-7\nGPU1\tNV4\t X \t0-7\n\n"
        "\tGPU0\tGPU1\tCPU Affinity\n"
    )
    ev = load_paths([tmp_path / "topo.txt"])
    assert ev.files[0].status == "partial" and len(ev.topologies) == 1
    # several keys of a store wait are kept whole
    text = "torch.distributed.DistStoreError: wait timeout after 300000ms, keys: key_a, key_b\n"
    (waited,) = load_text(text, "t.log").failures
    assert waited["exception_type"] == "waiting for the store's key(s) key_a, key_b"
