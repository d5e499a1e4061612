"""Outputs the hundred-thirty-third to hundred-thirty-seventh held-out evaluations misread that this
stop reads: NCCL results checked by BytePS' glog CHECK and Paddle's enforce, XLA's coordination
service giving up on tasks (JAX), gloo's transport losing a peer, an HCCL plog of ERROR lines
with no code (a task exception), an npu-smi table a document left NPUs out of, a failure printed
without a time stamp beside stamped ones, NICs named under a matrix without the legend's heading;
and program logs in no form the advisor knows (their first error line, or none).

Samples: ``tests/data/evidence_heldout_28/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from typing import Any

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import logs
from tests.conftest import DATA
from tests.rules_facts import finding_items

HELDOUT = DATA / "evidence_heldout_28"


def _load(name: str) -> EvidenceFacts:
    return load_paths([HELDOUT / name])


def _failures(name: str) -> list[dict[str, Any]]:
    return _load(name).failures


def test_an_nccl_result_checked_by_glog_or_paddles_enforce_is_a_failed_call() -> None:
    (byteps,) = _failures(
        "byteps_issue138_mxnet_bert_nccl_manager_check_failed_unhandled_system_error_cut.log"
    )
    assert (byteps["kind"], byteps["code_name"], byteps["call"], byteps["line"]) == (
        "nccl_call_failure",
        "ncclSystemError",
        "byteps/common/nccl_manager.cc:120",
        1,
    )
    (paddle,) = _failures(
        "paddleclas_issue330_init_parallel_env_nccl_unhandled_cuda_error_collective_helper_cut.log"
    )
    assert (paddle["code_name"], paddle["call"], paddle["line"]) == (
        "ncclUnhandledCudaError",
        "/paddle/paddle/fluid/platform/collective_helper.cc:83",
        4,
    )


def test_a_coordination_barrier_time_out_names_the_tasks_that_never_arrived() -> None:
    name = "levanter_issue432_multihost_broadcast_sync_barrier_deadline_exceeded.log"
    # the gRPC detail repeats the error: one event per barrier
    (timeout,) = _failures(name)
    assert (timeout["kind"], timeout["group"], timeout["missing_ranks"], timeout["line"]) == (
        "coordination_timeout",
        "multihost_broadcast_sync0",
        [3, 0],
        5,
    )
    items = finding_items({"evidence.failures": [timeout]}, "nccl")["evidence-coordination-timeout"]
    assert items[0].startswith("barrier multihost_broadcast_sync0: task(s) 3, 0 never arrived")


def test_cluster_registration_and_a_connect_barrier_are_coordination_time_outs() -> None:
    (register,) = _failures(
        "gpu_recipes_issue2_a3mega_maxtext_32node_register_barrier_timed_out.log"
    )
    assert register["exception_type"] == "cluster registration"
    assert register["group"] == "[Init]Wait_for_all_tasks_to_register::0"
    # the traceback ends in the same error: it is read as the service's, not a lone exception
    (connect,) = _failures(
        "llama2jax_issue20_distributed_initialize_pjrt_client_connect_barrier_cut.log"
    )
    assert connect["kind"] == "coordination_timeout" and connect["group"] == "PjRT_Client_Connect"
    assert sorted(connect["missing_ranks"]) == [1, 2, 3, 4, 5, 6, 7]


def test_the_newest_coordination_message_gives_the_world_and_its_stragglers() -> None:
    text = (
        "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Id: "
        "0_async_write_complete.0.1. This usually happens because a task triggered the barrier "
        "too early or too slowly.\n# of tasks that reached the barrier: 8/16.\n"
        "The first task at the barrier: /job:jax_worker/replica:0/task:13. Some timed out task "
        "names:\n/job:jax_worker/replica:0/task:6\n/job:jax_worker/replica:0/task:0\n\nRPC: x\n"
    )
    (ev,) = logs.parse(text).events
    assert (ev.group, ev.rank_size, ev.missing_ranks) == ("0_async_write_complete.0.1", 16, [6, 0])


def test_gloo_losing_a_peer_is_read_per_rank() -> None:
    name = "horovod_issue2907_elastic_torch_gloo_ioexception_connection_reset.log"
    errors = _failures(name)
    assert [(e["rank"], e["exception_type"], e["remote_ip"], e["port"]) for e in errors] == [
        (1, "Read error: Connection reset by peer", "127.0.0.1", 3977),
        (2, "Connection closed by peer", "127.0.0.1", 54168),
        (3, "Read error: Connection reset by peer", "127.0.0.1", 52398),
    ]
    findings = finding_items({"evidence.failures": errors}, "gloo")["evidence-gloo-error"]
    assert findings[0].startswith(
        "Rank 1: Read error: Connection reset by peer (peer 127.0.0.1:3977)"
    )
    # each of them only lost its peer: none is named the rank that failed first
    (timeline,) = _load(name).timelines
    assert timeline.first_rank is None and timeline.consequences == [1, 2, 3]


def test_a_monitored_barriers_original_exception_is_left_to_the_barrier() -> None:
    kinds = {
        e["kind"]
        for e in load_paths(
            [DATA / "evidence_heldout_14" / "gloo_monitored_barrier_kaggle.log"]
        ).failures
    }
    assert "monitored_barrier_failure" in kinds and "gloo_error" not in kinds


def test_an_hccl_plog_of_error_lines_without_a_code_is_a_failure() -> None:
    name = "mindcluster_faultdiag_device3_aicpu_hccl_notify_wait_task_exception_sendrecv.log"
    (ev,) = _failures(name)
    assert ev["kind"] == "hccl_plog_error" and ev["line"] == 1
    assert ev["message"].startswith("[aicpu_hccl_sqcq.cc:330]")
    assert (ev["rank"], ev["remote_rank"], ev["exception_type"]) == (
        1,
        0,
        "task exception on a NOTIFY WAIT task",
    )
    assert (ev["op"], ev["group"], ev["numel"]) == (
        "worldCommSendRecv_2_1_group_name_17271SendExecutor_device",
        "group_name_17271",
        1048576,
    )
    items = finding_items({"evidence.failures": [ev]}, "hccl")["evidence-hccl-plog-error"]
    assert items[0].startswith("Rank 1: task exception on a NOTIFY WAIT task (peer rank 0)")


def test_npu_smi_rows_a_document_left_out_make_the_table_partial() -> None:
    ev = _load("mindcluster_docs_npu_smi_23_0_5_npu0_health_warning_before_offline_reset.txt")
    report = ev.files[0]
    assert report.status == "partial"
    assert [m.line for m in report.messages if "left rows out" in m.message] == [10, 20]
    assert [(c["npu"], c["health"]) for c in ev.npu_chips] == [(0, "Warning"), (7, "OK")]


def test_a_failure_printed_without_a_time_leaves_the_first_rank_untold() -> None:
    ev = _load("dra957_gb200_mpijob_nccl_tests_worker1_unhandled_cuda_error.log")
    (timeline,) = ev.timelines
    assert timeline.first_rank is None and timeline.unstamped == [5]
    assert "which rank failed first cannot be told" in timeline.summary
    changes = {"evidence.failures": ev.failures, "evidence.timelines": ev.timelines}
    assert "evidence-failure-order" not in finding_items(changes, "nccl")


def test_nics_named_under_the_matrix_without_the_legend_heading() -> None:
    (topo,) = _load("nvidia_smi_topo_nccl2345_h200_2nvlink_pairs_2rail_annotated.txt").topologies
    assert topo["nics"] == {"NIC0": "rocep80s0", "NIC1": "rocep203s0"}


def test_a_program_log_in_no_known_form_gives_its_first_error_line() -> None:
    ev = _load("msswift_vllm_ascend_rollout_init_communicator_collective_rpc_cut.log")
    (error,) = ev.failures
    assert (error["kind"], error["line"]) == ("log_error", 10)
    assert (
        error["message"]
        == "ERROR 09-23 19:25:52 [core.py:790] Invocation of collective_rpc method failed"
    )
    report = ev.files[0]
    assert report.status == "read" and report.formats == ["log"]
    assert any("in no form the advisor reads" in m.message for m in report.messages)
    items = finding_items({"evidence.failures": ev.failures}, "gloo")["evidence-log-error"]
    assert items[0].startswith("ERROR 09-23 19:25:52 [core.py:790] Invocation")


def test_a_healthy_program_log_is_read_with_nothing_found() -> None:
    # its one "Check ... failed" line is a warning (torch's "[W630 ..."): not an error
    ev = _load("vllm_ascend_1565_310p_tp2_offline_mistral7b_healthy_init_engine_15s.log")
    assert ev.files[0].status == "read" and ev.failures == []
    assert any("no line says an error" in m.message for m in ev.files[0].messages)


def test_glog_error_lines_are_errors_and_its_warnings_are_not() -> None:
    (error,) = _failures(
        "sglang_pd_mooncake_worker_pool_local_protection_error_rnic_mlx5_7_inactive.log"
    )
    assert error["line"] == 1 and "Process failed for slice" in error["message"]
    text = "I1203 08:00:00.000 1 a.cc:1] start\nW1203 08:00:01.000 1 a.cc:2] retry failed\nI1203 08:00:02.000 1 a.cc:3] done\n"
    report = logs.parse(text)
    assert report.events == [] and report.generic


def test_a_line_that_is_an_error_only_by_its_level_gives_way_to_the_exception_after_it() -> None:
    text = (
        "INFO 06-04 22:25:50 [a.py:1] start\n"
        "ERROR 06-04 22:25:57 [b.py:9] Traceback (most recent call last):\n"
        'ERROR 06-04 22:25:57 [b.py:9]   File "x.py", line 3, in f\n'
        "ERROR 06-04 22:25:57 [b.py:9] RuntimeError: the peer went away\n"
    )
    (ev,) = logs.parse(text).events
    assert (ev.kind, ev.line) == ("log_error", 4)
    # a traceback cut before its exception: the first line logged at ERROR
    (cut,) = _failures("verl_vllm_http_server_tp1_all_reduce_traceback_cut.log")
    assert cut["line"] == 1 and "ERROR 06-04 22:25:57" in cut["message"]


def test_another_tools_output_stays_unknown() -> None:
    ev = _load("snellius_ibstat_port_state_rate_grep.txt")
    assert ev.files[0].status == "unknown" and ev.failures == []
