"""Outputs the hundred-thirty-third to hundred-forty-second held-out evaluations misread that this
stop reads: NCCL results checked by BytePS' glog CHECK and Paddle's enforce, XLA's coordination
service giving up on tasks (JAX), gloo's transport losing a peer, an HCCL plog of ERROR lines
with no code (a task exception), an npu-smi table a document left NPUs out of, a failure printed
without a time stamp beside stamped ones, NICs named under a matrix without the legend's heading;
and program logs in no form the advisor knows (their first error line, or none); and (round 2)
UCX's and a cut Open MPI signal handler (the NCCL or HCCL frame the crash was in), the OFI
plugin's own warnings and libfabric's, heartbeat-monitor time-outs without their figure, launches
that never reached the ranks (pyxis, ssh), MindSpore's msrun and unique-id failures.

Samples: ``tests/data/evidence_heldout_28/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from advisor.evidence.load import load_paths
from advisor.parsers import logs, numbered_lines
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import event, finding_items

HELDOUT = DATA / "evidence_heldout_28"


_load = partial(heldout.load, HELDOUT)


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
    # the shape of JAX's message (a levanter paste): the gRPC detail after it repeats the error,
    # one event per barrier
    text = (
        '    client.wait_at_barrier(f"sync{n}", timeout_in_ms=1000)\n'
        "jaxlib.xla_extension.XlaRuntimeError: DEADLINE_EXCEEDED: Barrier timed out. Barrier_id: "
        "multihost_broadcast_sync0. Timed out task names:\n/job:jax_worker/replica:0/task:3\n"
        "/job:jax_worker/replica:0/task:0\n\nAdditional GRPC error information:\n"
        ':{"grpc_message":"Barrier timed out. Barrier_id: multihost_broadcast_sync0. Timed out"}\n'
    )
    (timeout,) = logs.parse(text).events
    assert (timeout.kind, timeout.group, timeout.missing_ranks, timeout.line) == (
        "coordination_timeout",
        "multihost_broadcast_sync0",
        [3, 0],
        2,
    )
    read = event(
        kind=timeout.kind,
        group=timeout.group,
        missing_ranks=timeout.missing_ranks,
        exception_type=timeout.exception_type,
        library=timeout.library,
    )
    items = finding_items({"evidence.failures": [read]}, "nccl")["evidence-coordination-timeout"]
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
    failures = _failures(name)
    errors = [e for e in failures if e["kind"] == "gloo_error"]
    assert [(e["rank"], e["exception_type"], e["remote_ip"], e["port"]) for e in errors] == [
        (1, "Read error: Connection reset by peer", "127.0.0.1", 3977),
        (2, "Connection closed by peer", "127.0.0.1", 54168),
        (3, "Read error: Connection reset by peer", "127.0.0.1", 52398),
    ]
    # the shell's word under horovodrun's tag for each rank's end: rank 0, whose own exception
    # the others' errors followed, was killed (SIGKILL) before them
    ends = [
        (e["rank"], e["exit_code"], e["line"]) for e in failures if e["kind"] == "launcher_exit"
    ]
    assert ends == [(0, -9, 2), (1, -15, 4), (2, -6, 11), (3, -6, 15)]
    findings = finding_items({"evidence.failures": errors}, "gloo")["evidence-gloo-error"]
    # gloo's own time-out keeps its figure
    (waited,) = _failures(
        "torchtune2676_gloo_barrier_recv_timeout_1800000ms_rank2_socket_hostname.log"
    )
    assert waited["exception_type"] == "Timed out waiting 1800000ms for recv operation to complete"
    assert (waited["rank"], waited["timeout_ms"]) == (2, 1800000)
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
        # (errorCode 261 is another task's, stream 169 task 26076: not this report's)
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
        # (with the worker's prefix: which of the engine's processes said it)
        == "(EngineCore_DP0 pid=19473) ERROR 09-23 19:25:52 [core.py:790] Invocation of "
        "collective_rpc method failed"
    )
    report = ev.files[0]
    assert report.status == "read" and report.formats == ["log"]
    assert any("in no form the advisor reads" in m.message for m in report.messages)
    items = finding_items({"evidence.failures": ev.failures}, "gloo")["evidence-log-error"]
    assert items[0].startswith(
        "(EngineCore_DP0 pid=19473) ERROR 09-23 19:25:52 [core.py:790] Invocation"
    )


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
    # the first error line is the exception's, not the traceback's heading logged at ERROR
    first = logs.first_error_line(logs.numbered_lines(text))
    assert first is not None and first.line == 4
    # (read whole, the traceback under vLLM's logger prefix gives that exception itself)
    (ev,) = logs.parse(text).events
    assert (ev.kind, ev.line, ev.message) == (
        "python_exception",
        4,
        "RuntimeError: the peer went away",
    )
    # a vLLM worker's traceback cut before its exception: read at its first line logged at ERROR,
    # as the worker's failure in a call (set 620)
    (cut,) = _failures("verl_vllm_http_server_tp1_all_reduce_traceback_cut.log")
    assert (cut["line"], cut["kind"], cut["worker"]) == (1, "python_exception", "Worker_TP1")
    assert "last frame: vllm/distributed/parallel_state.py:516" in cut["message"]


def test_ibstat_port_blocks_grepped_without_their_devices_are_read_unnamed() -> None:
    # (a grep of ibstat's "Port 1:" blocks: each port's state and rate, its device not in it)
    ev = _load("snellius_ibstat_port_state_rate_grep.txt")
    assert ev.files[0].formats == ["rdma"] and ev.failures == []
    assert {p["ca"] for p in ev.hca_ports} == {"(device not named)"}
    assert ("Down", "Disabled") in {(p["state"], p["physical_state"]) for p in ev.hca_ports}


def test_ucx_signal_handler_names_the_nccl_call_the_crash_came_from() -> None:
    (crash,) = _failures(
        "bigscience_mds_issue341_caught_signal7_bus_error_ncclgetuniqueid_barrier_cut.log"
    )
    assert (crash["kind"], crash["exception_type"], crash["exit_code"], crash["pid"]) == (
        "launcher_exit",
        "UCX's signal handler",
        -7,
        2498,
    )
    assert crash["call"] == "ncclGroupEnd" and crash["library"] == "NCCL"
    # two processes, each its own end; no NCCL frame in their backtrace
    ends = _failures("nemo_issue13509_tp_comm_overlap_ucx_caught_signal11_pmpi_group_incl_cut.log")
    assert [(e["pid"], e["exit_code"], e["call"]) for e in ends] == [
        (450, -11, None),
        (448, -11, None),
    ]


def test_an_open_mpi_block_cut_before_its_signal_names_the_hccl_frame() -> None:
    (crash,) = _failures(
        "mindyolo238_mpirun_multicard_segv_hcom_getcommfromtaskinfo_backtrace_cut.log"
    )
    assert crash["exit_code"] is None and crash["library"] == "HCCL"
    assert (
        crash["call"]
        == "hccl::HcomOpsKernelInfoStore::GetCommFromTaskInfo in libhcom_graph_adaptor.so"
    )
    items = finding_items({"evidence.failures": [crash]}, "hccl")["evidence-launcher-exit"]
    assert "(inside HCCL: hccl::HcomOpsKernelInfoStore::GetCommFromTaskInfo" in items[0]


def test_the_ofi_plugins_own_warnings_and_libfabrics_are_read() -> None:
    warned = _failures(
        "aws_ofi_nccl67_p4dn_mpirun_nccl_message_transfer_no_optimal_provider_cut.log"
    )
    assert [(e["kind"], e["message"], e["host"]) for e in warned] == [
        ("nccl_warning", "NET/OFI Couldn't find any optimal provider", "10.3.35.83"),
        ("nccl_warning", "NET/OFI OFI NCCL failure: 2", "10.3.35.83"),
    ]
    (fabric,) = _failures("aws_ofi_nccl346_libfabric_efa_rdm_txe_invalid_address_gdrdma_cut.log")
    assert fabric["kind"] == "libfabric_warning" and fabric["library"] == "libfabric (efa)"
    assert (
        fabric["exception_type"]
        == "err: 5, message: Invalid address (peer host id i-0ce6d3d57139f053c)"
    )
    assert (fabric["host"], fabric["pid"], fabric["call"]) == (
        "i-0db7083f3fcbebb65",
        451707,
        "efa_rdm_txe_handle_error():737",
    )
    items = finding_items({"evidence.failures": [fabric]}, "nccl")["evidence-libfabric-warning"]
    assert items[0].startswith("i-0db7083f3fcbebb65 pid 451707 (libfabric (efa)")


def test_a_heartbeat_time_out_without_its_figure_still_makes_the_finding() -> None:
    hangs = [
        e
        for e in _failures("deim105_pgnccl_heartbeat_monitor_timeout_600s_ranks_1_0_2.log")
        if e["kind"] == "watchdog_hang"
    ]
    assert [(e["rank"], e["timeout_ms"]) for e in hangs] == [(1, 600000), (0, None), (2, None)]
    items = finding_items({"evidence.failures": hangs}, "nccl")["evidence-watchdog-hang"]
    assert items[0].startswith("Rank 1: NCCL watchdog stuck 600 s")
    assert items[1].startswith("Rank 0: NCCL watchdog stuck (the heartbeat monitor timed out")


def test_launches_that_never_reached_the_ranks_are_named_first() -> None:
    pyxis = _failures(
        "pyxis61_srun_2vm_enroot_switchroot_bin_bash_missing_container_start_failed.log"
    )
    assert [(e["line"], e["exception_type"]) for e in pyxis][:2] == [
        (3, "pyxis (the task's container did not start)"),
        (10, "srun"),
    ]
    assert "enroot-switchroot: failed to execute: /bin/bash" in pyxis[0]["message"]
    ssh = _failures("nccl_tests299_mpirun_2node_h100_ssh_port22_refused_prte_lost_daemon.log")
    assert (ssh[0]["line"], ssh[0]["host"]) == (3, "(worker_ip)")
    assert ssh[0]["exception_type"] == "ssh could not reach the node (Connection refused)"


def test_mindspores_msrun_and_unique_id_failures_are_read() -> None:
    ran = _failures(
        "mindact1983_msrun_910a_4card_worker_exit_time_out_node3_scheduler_grep_cut.log"
    )
    assert [(e["kind"], e["line"]) for e in ran] == [
        ("launcher_exit", 1),
        ("coordination_timeout", 4),
    ]
    # (msrun's own line for its scheduler process, which is no rank, adds to the exit's words)
    assert ran[0]["exception_type"] == "msrun (its scheduler process 162146 ended too)"
    assert ran[1]["missing_ranks"] == [3] and ran[1]["library"] == "MindSpore cluster (msrun)"
    (fetch,) = _failures(
        "msfaq_msrun_hccl_queryuniqueid_retry_then_fetch_unique_id_failed_root_rank0.log"
    )
    assert (fetch["kind"], fetch["remote_rank"], fetch["group"], fetch["library"]) == (
        "unique_id_failure",
        0,
        "xxx",
        "MindSpore",
    )
    items = finding_items({"evidence.failures": [fetch]}, "hccl")[
        "evidence-unique-id-exchange-failed"
    ]
    assert items[0].startswith("A rank from rank 0: Communicator of group xxx inited: failed.")


def test_cupys_nccl_error_is_a_failed_call_with_its_call() -> None:
    (failed,) = _failures(
        "ray49827_compiled_graph_gpureceiver_cupy_nccl_recv_ncclerror_internal_error_cut.log"
    )
    assert (failed["kind"], failed["code_name"], failed["call"]) == (
        "nccl_call_failure",
        "ncclInternalError",
        "recv",
    )
    assert (failed["host"], failed["pid"]) == ("192.168.1.159", 6305)


def test_an_async_nccl_error_on_a_work_is_a_failed_call_not_a_time_out() -> None:
    failures = _failures(
        "openrlhf621_raylet_worker_died_mlx5_completion_error_rank12_broadcast_async_nccl_error_cut.log"
    )
    # the raylet's account of the worker that died comes first, then the broadcast's error
    assert [e["kind"] for e in failures] == ["launcher_exit", "nccl_call_failure"]
    assert (failures[0]["host"], failures[0]["pid"]) == ("172.19.24.110", 90738)
    failed = failures[1]
    assert (failed["code_name"], failed["op"], failed["seq"], failed["rank"]) == (
        "ncclRemoteError",
        "broadcast",
        1,
        1,
    )


def test_the_last_error_behind_vllms_logger_prefix_is_read() -> None:
    (failed,) = _failures(
        "ray44533_rayworkervllm_allreduce_distbackenderror_ncclinternalerror_busid_of_node_nic_cut.log"
    )
    assert failed["code_name"] == "ncclInternalError"
    assert failed["exception_type"] == "Attribute busid of node nic not found"


def test_a_watchdog_message_cut_at_its_start_is_still_an_nccl_failure() -> None:
    failures = _failures(
        "deepep106_ncclremoteerror_net_ib_completion_error5_vendor249_wrapped_cut.log"
    )
    assert sorted(e["kind"] for e in failures) == ["nccl_call_failure", "nccl_net_error"]
    failed = next(e for e in failures if e["kind"] == "nccl_call_failure")
    assert failed["code_name"] == "ncclRemoteError"


def test_a_traceback_cut_above_its_heading_gives_its_exception() -> None:
    (raised,) = _failures("verl_6773_ray_actor_rollout_init_npu_smi_board_exit215_cut.log")
    assert (raised["kind"], raised["line"], raised["exception_type"]) == (
        "python_exception",
        8,
        "CalledProcessError",
    )
    # frames inside torch.distributed name it so
    text = (
        '  File "/x/torch/distributed/distributed_c10d.py", line 1268, in _new_process_group_helper\n'
        '    raise RuntimeError("Distributed package doesn\'t have NCCL built in")\n'
        "RuntimeError: Distributed package doesn't have NCCL built in\n"
    )
    (ev,) = logs.parse(text).events
    assert ev.library == "torch.distributed"
    assert ev.call == "torch/distributed/distributed_c10d.py, _new_process_group_helper"


def test_an_integer_rows_error_above_zero_is_a_failed_check() -> None:
    # nccl-tests' DeltaMaxValue is 1e-200 for every integer type: any error fails
    ev = _load("nccltests104_sendrecv_uint8_gtx1080_row.txt")
    (table,) = ev.benchmarks
    assert table["failed_checks"] == [{"bytes": 37748744, "ranks": []}]


def test_ncclss_connect_retries_are_a_warning_until_its_verdict() -> None:
    ev = _load("oneflow3586_nccl_socket_connect_timedout.log")
    (retry,) = ev.failures
    assert (retry["kind"], retry["host"], retry["pid"], retry["exception_type"], retry["line"]) == (
        "nccl_connect_retry",
        "worker",
        101542,
        "Connection timed out",
        12,
    )
    items = finding_items({"evidence.failures": [retry]}, "nccl")["evidence-nccl-connect-retry"]
    assert items[0].startswith("worker pid 101542, device 0: Connection timed out")


def test_a_newer_runtimes_stream_sync_error_code_is_read() -> None:
    began, failed = _failures("hixl_wiki_runtime_stream_sync_timeout_507046_ee1002_device11.log")
    assert (failed["kind"], failed["code"], failed["code_name"], failed["line"]) == (
        "npu_runtime_error",
        "507046",
        "ACL_ERROR_RT_STREAM_SYNC_TIMEOUT",
        4,
    )
    # the runtime's own time-out three lines above the code; its time stamp (with a space, as
    # this runtime prints it) is cut off the message
    assert (began["kind"], began["library"], began["line"]) == ("hccl_plog_error", "RUNTIME", 1)
    assert began["message"].startswith("[stream.cc:1402]14595 SynchronizeExecutedTask:Stream")


def test_hccn_tools_pfc_output_gives_the_priorities_enabled() -> None:
    ev = _load("hixl_wiki_hccn_tool_dev0_pfc_g_priority4_enabled.txt")
    assert ev.files[0].status == "read"
    assert [(p["device"], p["pfc_priorities"]) for p in ev.npu_ports] == [(0, [4])]


def test_the_drivers_error_before_hccls_failure_is_where_it_began() -> None:
    name = "hixl_wiki_a3_llm_datadist_link_invalid_host_devid_65535_vnic_ip_then_socket_timeout_indented.log"
    first, wait = _failures(name)
    assert (first["kind"], first["line"], first["library"]) == ("hccl_plog_error", 1, "DRV")
    assert "invalid host device id 65535" in first["message"]
    assert (wait["kind"], wait["timeout_ms"]) == ("hccl_link_timeout", 120000)


def test_rays_account_of_a_worker_that_died_names_its_node_and_pid() -> None:
    (died,) = _failures(
        "easyr1_300_grpo_colocated_workerdict_actor_died_system_error_172_23_166_108_cut.log"
    )
    assert (died["kind"], died["exception_type"], died["host"], died["pid"], died["line"]) == (
        "launcher_exit",
        "Ray (worker exit type SYSTEM_ERROR)",
        "172.23.166.108",
        1009098,
        8,
    )
    assert "connection error code 2. End of file." in died["message"]
    # the raylet's own line, in a log otherwise of INFO lines
    (raylet,) = _failures(
        "nemo_rl2937_grpo_perf_vllm_sleep_then_raylet_worker_died_system_error_10_109_18_239_cut.log"
    )
    assert (raylet["host"], raylet["pid"], raylet["line"]) == ("10.109.18.239", 1530113, 4)


def test_an_etcd_rendezvous_exception_under_cut_frames_is_torch_elastics() -> None:
    (raised,) = _failures("parcae_issue1_etcd_rendezvous_keynotfound_next_strategy.log")
    assert (raised["kind"], raised["exception_type"], raised["line"]) == (
        "python_exception",
        "EtcdKeyNotFound",
        11,
    )
    assert raised["library"] == "torch.distributed"
    # a dotted name that says no error is taken only right under a frame's code line
    assert logs.python_exception(numbered_lines("INFO starting\nfoo.Bar: baz\n")) is None


def test_ray_unable_to_place_the_workers_is_read() -> None:
    (placed,) = _failures(
        "vllm8908_ray_tp16_autoscaler_no_node_types_can_fulfill_gpu_placement_group_waiting_1270s.log"
    )
    assert (placed["kind"], placed["line"], placed["timeout_ms"]) == ("ray_placement", 1, 1270000)
    assert placed["exception_type"] == "no node can hold {'node:10.2.0.127': 0.001, 'GPU': 1.0}"
    # vLLM's wait alone, without the autoscaler's verdict
    text = "\n".join(
        f"INFO 09-27 16:{m:02d}:50 ray_utils.py:183] Waiting for creating a placement group of "
        f"specs for {s} seconds. specs=[{{'GPU': 1.0}}]"
        for m, s in ((10, 10), (30, 1210), (20, 610))
    )
    (waited,) = logs.parse(text).events
    assert (waited.kind, waited.timeout_ms, waited.line) == ("ray_placement", 1210000, 2)


def test_launches_that_never_started_the_program_are_read() -> None:
    (missing,) = _failures("hccl_test_libmpi_so12_not_found_7ranks.log")
    assert (missing["kind"], missing["exception_type"], missing["line"]) == (
        "library_missing",
        "./all_reduce_test could not start: the dynamic loader found no libmpi.so.12",
        1,
    )
    (init,) = _failures("hccl_test_mpich_mpi_init_gethostbyname_failed.log")
    assert (init["exception_type"], init["host"]) == (
        "MPI (MPI_Init failed: Other MPI error)",
        "HW-AI-LC-1-1",
    )
    # Composer's launcher (a MosaicML examples paste)
    (crashed,) = logs.parse(
        "2023-04-24 16:03:12,379: rank0[1003409][MainThread]: DEBUG: composer.utils.dist: x\n"
        "ERROR:composer.cli.launcher:Rank 1 crashed with exit code 1.\n"
    ).events
    assert (crashed.exception_type, crashed.rank, crashed.exit_code) == ("composer", 1, 1)


def test_indented_nccl_warn_lines_of_a_net_plugin_are_found() -> None:
    warned = _failures("gcp_a3high_tcpx_plugin_v319_regmr_failure.txt")
    assert [e["message"] for e in warned][:2] == [
        "gpu_tx_reg_mr failed -5",
        "[Service thread] Error encountered progressing operation=Connect, res=3",
    ]


def test_an_assertion_above_the_abort_it_raised_is_where_the_failure_began() -> None:
    # glibc's assert(3) message, then Open MPI's handler block of the SIGABRT (a synthetic copy
    # of an llm.c paste's shape: the program's own assertion, not MPI, ended the process)
    text = (
        "[node-a:10947] *** End of error message ***\n"
        "train_gpt2cu: llmc/dataloader.h:186: void dataloader_init(DataLoader*, const char*, int):"
        " Assertion `shard_ntok >= (int64_t) (num_processes * B * T + 1)' failed.\n"
        "[node-a:10948] *** Process received signal ***\n"
        "[node-a:10948] Signal: Aborted (6)\n"
        "[node-a:10948] Signal code:  (-6)\n"
        "[node-a:10948] [ 0] /lib/x86_64-linux-gnu/libc.so.6(+0x42520)[0x7fcbac242520]\n"
    )
    (aborted,) = logs.parse(text).events
    assert (aborted.kind, aborted.line, aborted.exit_code, aborted.pid) == (
        "launcher_exit",
        2,
        -6,
        10948,
    )
    assert aborted.message.endswith(
        "after train_gpt2cu's assertion `shard_ntok >= (int64_t) (num_processes * B * T + 1)' "
        "failed at llmc/dataloader.h:186"
    )
    # a segmentation fault is not blamed on an assertion printed above it
    (segv,) = logs.parse(text.replace("Aborted (6)", "Segmentation fault (11)")).events
    assert segv.line == 3 and "assertion" not in segv.message
