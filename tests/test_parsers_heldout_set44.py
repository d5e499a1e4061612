"""Outputs the forty-fourth to forty-seventh held-out evaluations misread that this round reads:
an ``nvidia-smi topo -m`` whose copy ran cells together (``NIC8NIC9``, ``NODEPXB``); every failed
link of an HCCL error code's TraceBack; the c10d store client's own retry line and the libuv
store's ``EADDRINUSE``; a store time-out wrapped inside its ``(host, port)``; the NCCLCHECK of
NCCL's examples (``Failed, NCCL error FILE:LINE 'text'``); an ``NCCL WARN`` line that lost its
prefix; an HCCL call named in a TraceBack or after a plog's ``errNo``; an hccl_test run that
stopped at communicator init as a failure; the ``cat`` line before an hccn.conf; srun's revoked
allocation (sets 44-47); HCCL's RDMA error completions and its older exchanger's socket time-out,
torch_npu's dispatch time-out, watchdog records wrapped around their rank or figures, a caller
naming the NCCL call it checked, Paddle's failed runtime call, CANN's EL0004 out-of-memory, a
store error and an elastic summary entry a page broke apart (sets 48-51); an older nccl-tests
header with colons, a list of ranks shorter than one process's, a row the copy ends inside, an
nccl-tests log's NCCL hosts, hcom's result line, a P2P time-out alone, a failed transport
allocation, a link with an empty local address, a version 2.0 rank table (sets 52-55); XLA's,
Paddle's and older NCCL releases' forms, Open MPI tags inside a row, an IB error completion
without its peer, a watchdog record wrapped inside ``WorkNCCL`` (sets 56-59); a table kept as
comments, a rank line the copy cut, a matrix cut among its NIC rows (sets 60-61); an npu-smi
chip row the copy ends inside (set 63).

Samples: ``tests/data/evidence_heldout_23/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from typing import Any

from advisor.evidence.load import load_paths
from advisor.evidence.timeline import build as build_timeline
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_23"


def _failures(name: str) -> list[dict[str, Any]]:
    ev = load_paths([HELDOUT / name])
    assert ev.files[0].status == "read", ev.files[0]
    return ev.failures


def test_cells_a_copy_ran_together_are_split_and_each_link_sits_under_its_device() -> None:
    ev = load_paths([HELDOUT / "nvidia_smi_topo_dgx_tabs_glued_nic_cells.txt"])
    report = ev.files[0]
    # split where the tabs between them were lost (each part a name or a link kind): said on
    # each line as a note; nothing is left unread, so the file is read
    assert report.status == "read"
    assert [m.line for m in report.messages] == [3, 8, 9, 10, 11, 0]  # (0: the nearest NICs)
    assert "NIC8NIC9" in report.messages[0].message
    assert "the nearest NIC of each GPU" in report.messages[-1].message
    (topo,) = ev.topologies
    assert topo["kinds"] == ["NODE", "NV18", "PXB", "SYS"]  # no "NODENODE" kind
    gpu4 = topo["links"]["GPU4"]
    assert (gpu4["NIC6"], gpu4["NIC7"], gpu4["NIC8"], gpu4["NIC11"]) == (
        "PXB",
        "NODE",
        "NODE",
        "NODE",
    )
    gpu5 = topo["links"]["GPU5"]
    assert (gpu5["NIC8"], gpu5["NIC9"], gpu5["NIC10"]) == ("NODE", "PXB", "NODE")
    assert (topo["cpu_affinity"]["GPU7"], topo["numa_affinity"]["GPU7"]) == ("56-111,168-223", "1")


def test_every_failed_link_of_an_error_codes_traceback_is_listed() -> None:
    code, *links = _failures("hccl_ei0007_qp_alloc_transport_init.log")
    assert (code["code"], code["code_name"], code["pid"]) == ("EI0007", "Allocation_Failure", 9288)
    assert (code["rank"], code["remote_rank"]) == (15, 1)  # the first link is the code's own
    assert [(e["kind"], e["rank"], e["remote_rank"], e["line"]) for e in links] == [
        ("hccl_transport_failure", 15, 0, 5),
        ("hccl_transport_failure", 15, 2, 6),
        ("hccl_transport_failure", 15, 3, 7),
    ]
    assert {(e["ip"], e["remote_ip"]) for e in links} == {("135.173.74.4", "135.173.74.3")}


def test_the_store_clients_retry_line_is_a_failed_attempt_not_its_time_out() -> None:
    (attempt,) = _failures("store_tcp_client_retry_sglang_slurm.log")
    assert (attempt["kind"], attempt["host"], attempt["port"], attempt["timeout_ms"]) == (
        "store_connect_failure", "sws-8h100grid-05", 8000, 600000,
    )  # fmt: skip
    assert attempt["exception_type"] == "retrying (try=0)"


def test_the_libuv_stores_eaddrinuse_is_a_bind_failure() -> None:
    (bind,) = _failures("store_bind_eaddrinuse_vllm.log")
    assert (bind["kind"], bind["line"], bind["port"]) == ("store_bind_failure", 3, None)
    assert bind["exception_type"] == "errno 98 EADDRINUSE: address already in use"


def test_a_store_time_out_wrapped_inside_its_host_and_port_is_joined() -> None:
    store, watchdog = _failures("openrlhf_client_socket_timeout_wrapped.log")
    assert (store["kind"], store["remote_ip"], store["port"], store["timeout_ms"]) == (
        "store_timeout", "172.17.0.2", 44737, 1800000,
    )  # fmt: skip
    assert (watchdog["rank"], watchdog["seq"], watchdog["host"]) == (3, 3856, "10.0.1.75")


def test_the_nccl_examples_ncclcheck_is_a_failed_call_on_the_files_one_host() -> None:
    first, failed, second = _failures("nccl_warn_trtllm_allreduce_plugin.log")
    assert (first["kind"], first["device"], first["pid"]) == ("nccl_warning", 2, 390729)
    assert first["message"].startswith("Attempt to use communicator before")
    assert (failed["kind"], failed["line"], failed["host"]) == (
        "nccl_call_failure", 4, "instance-12463",
    )  # fmt: skip
    assert failed["call"].endswith("allreducePlugin.cpp:183")
    assert failed["code"] is None  # 'unknown result code': no ncclResult_t to name
    assert (second["line"], second["pid"]) == (10, 390727)


def test_an_nccl_warn_line_that_lost_its_prefix_is_still_a_warning() -> None:
    warn, call = _failures("trl_duplicate_gpu_invalid_usage.log")
    assert (warn["kind"], warn["line"]) == ("nccl_warning", 1)
    assert warn["message"] == "Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 40"
    assert (call["kind"], call["code_name"]) == ("nccl_call_failure", "ncclInvalidUsage")


def test_the_hccl_call_in_an_error_codes_traceback_is_named() -> None:
    code, call = _failures("hccl_ei0006_code_name_nnopbase.log")
    assert (code["code"], code["code_name"], code["pid"]) == ("EI0006", "Get_Socket_Timeout", 749)
    assert (call["kind"], call["call"], call["code"], call["code_name"], call["line"]) == (
        "hccl_call_failure", "HcclAllocComResourceByTiling", "4", "HCCL_E_INTERNAL", 4,
    )  # fmt: skip


def test_a_plogs_errno_and_the_callers_report_are_one_failed_call() -> None:
    (call,) = _failures("mindie_hccl_plog_atb_runner.log")
    assert (call["kind"], call["call"], call["pid"], call["line"]) == (
        "hccl_call_failure", "HcclCommInitRootInfo", 36035, 1,
    )  # fmt: skip
    assert call["message"].endswith("HcclCommInitRootInfo failed. (2 = HCCL_E_PTR: empty pointer)")
    # errNo 0x05000002: module 5 (HCCL), HcclResult 2; the runner's line gives rank and size
    assert (call["code"], call["code_name"], call["rank"], call["rank_size"]) == (
        "2", "HCCL_E_PTR", 1, 4,
    )  # fmt: skip


def test_an_hccl_test_run_stopped_at_init_is_read_as_its_failed_call() -> None:
    ev = load_paths([HELDOUT / "hccl_test_init_retcode7_repeated.log"])
    assert (ev.files[0].status, ev.files[0].formats) == ("read", ["hccl_test"])
    assert ev.benchmarks == []  # it measured nothing
    (call,) = ev.failures  # told four times, one failure
    assert (call["kind"], call["code"], call["code_name"], call["line"]) == (
        "hccl_call_failure", "7", "HCCL_E_UNAVAIL", 2,
    )  # fmt: skip
    items = [
        str(i)
        for f in builtin_findings({"evidence.failures": ev.failures}).values()
        for i in f.items
    ]
    assert any("HCCL_E_UNAVAIL" in item for item in items), items


def test_the_command_line_before_an_hccn_conf_is_no_line_of_it() -> None:
    ev = load_paths([HELDOUT / "hccn_conf_cat_prompt.conf"])
    assert (ev.files[0].status, ev.files[0].messages) == ("read", [])
    assert [d["address"] for d in ev.hccn_conf] == [f"10.20.11.{n}" for n in range(11, 19)]


def test_srun_revoking_an_allocation_is_a_launcher_failure_with_its_cause() -> None:
    ev = load_paths([HELDOUT / "srun_prolog_failed_allocation_revoked.log"])
    (exit_,) = ev.failures
    assert (exit_["kind"], exit_["line"], exit_["exit_code"]) == ("launcher_exit", 4, None)
    assert exit_["exception_type"] == (
        "srun: allocation revoked before any task ran (PrologSlurmctld failed)"
    )
    finding = builtin_findings({"evidence.failures": ev.failures}, "nccl")["evidence-launcher-exit"]
    # with no exit code the launcher's own line is shown (the job it revoked)
    assert [str(i) for i in finding.items] == [
        "srun: allocation revoked before any task ran (PrologSlurmctld failed): srun: error: "
        f"Job allocation 2 has been revoked ({exit_['source']}, line 4)"
    ]


def test_hccls_rdma_error_completion_is_named_with_the_process_rank_and_peer() -> None:
    (cqe,) = _failures("hccl_plog_heartbeat_cqe_err_rank76.log")
    assert (cqe["kind"], cqe["code"], cqe["code_name"], cqe["remote_ip"]) == (
        "hccl_cqe_error", "12", "IBV_WC_RETRY_EXC_ERR", "192.1.95.102",
    )  # fmt: skip
    # the rank, communicator size, device and address of the process's own "hcom init" line
    assert (cqe["rank"], cqe["rank_size"], cqe["device"], cqe["ip"], cqe["pid"]) == (
        76, 128, 4, "192.168.102.141", 12337,
    )  # fmt: skip
    finding = builtin_findings({"evidence.failures": [cqe]})["evidence-hccl-cqe-error"]
    (item,) = [str(i) for i in finding.items]
    assert item.startswith("Rank 76 (device 4, 192.168.102.141): error completion status 12")


def test_the_older_exchangers_socket_time_out_is_a_link_wait_of_its_rank() -> None:
    (wait,) = _failures("hccl_plog_exchanger_client_socket_timeout_rank4.log")
    assert (wait["kind"], wait["rank"], wait["device"], wait["line"]) == (
        "hccl_link_timeout", 4, 4, 2,
    )  # fmt: skip
    assert wait["remote_rank"] is None  # the plog names no peer


def test_torch_npus_dispatch_time_out_is_a_time_out_of_its_work() -> None:
    began, work = _failures("torch_npu_plog_reduce_scatter_dispatch_timeout.log")
    assert (work["kind"], work["op"], work["seq"], work["device"], work["pid"]) == (
        "watchdog_timeout", "reduce_scatter", 32716847, 3, 1365,
    )  # fmt: skip
    assert (work["library"], work["exception_type"]) == ("HCCL", "dispatch timeout")
    # the runtime's task failure seven seconds above it is where it began
    assert (began["kind"], began["library"], began["line"]) == ("hccl_plog_error", "RUNTIME", 1)
    assert "Task run failed, device_id=3" in began["message"]


def test_watchdog_records_wrapped_around_their_rank_and_their_figures_are_joined() -> None:
    first, second = _failures("nanotron_watchdog_default_prefix_wrapped.log")
    # rank 2's record wrapped after "Watchdog caught " (behind a progress bar), rank 3's
    # after its Work(...): each keeps its rank and its run time
    assert [(e["rank"], e["seq"], e["ran_for_ms"], e["line"]) for e in (first, second)] == [
        (2, 3, 600888, 1), (3, 3, 600892, 3),
    ]  # fmt: skip
    (work,) = _failures("watchdog_wrapped_70col_pr_test_plan_cut.log")
    assert (work["rank"], work["seq"], work["numel"], work["timeout_ms"], work["ran_for_ms"]) == (
        0, 2, 10, 10000, 10028,
    )  # fmt: skip


def test_a_caller_naming_the_nccl_call_it_checked_is_a_failed_call() -> None:
    (call,) = _failures("horovod_internal_error_ncclallreduce_interleaved_tb.log")
    assert (call["kind"], call["call"], call["code_name"], call["line"]) == (
        "nccl_call_failure", "ncclAllReduce", "ncclUnhandledCudaError", 13,
    )  # fmt: skip


def test_paddles_failed_runtime_call_is_named_beside_canns_code() -> None:
    call, code = _failures("paddle_npu_aclrtsetdevice_507033_el0002.log")
    assert (call["kind"], call["call"], call["code"], call["code_name"]) == (
        "npu_runtime_error", "aclrtSetDevice", "507033", "ACL_ERROR_RT_DEV_SETUP_ERROR",
    )  # fmt: skip
    assert (code["code"], code["line"]) == ("EL0002", 10)


def test_canns_el0004_is_the_devices_out_of_memory_with_its_size() -> None:
    (oom,) = _failures("torch_npu_el0004_oom_allgather_deepspeed_notes.log")
    assert (oom["kind"], oom["code"], oom["device"], oom["line"]) == ("device_oom", "EL0004", 0, 77)
    assert oom["exception_type"] == "tried to allocate 4110811136 B"


def test_a_store_error_broken_into_lines_and_a_summary_entry_without_its_heading() -> None:
    bind, child = _failures("store_eaddrinuse_childfailed_metax_forum.log")
    assert (bind["kind"], bind["port"], bind["exception_type"]) == (
        "store_bind_failure", 29500, "errno 98 EADDRINUSE: address already in use",
    )  # fmt: skip
    assert (child["kind"], child["rank"], child["local_rank"], child["exit_code"]) == (
        "elastic_failure", 5, 5, 1,
    )  # fmt: skip
    assert child["root_cause"]  # the entry under "Root Cause (first observed failure):"


def test_a_heartbeat_monitor_that_lost_the_store_is_named_and_kept_off_the_timeline() -> None:
    (lost,) = _failures("heartbeat_monitor_store_dump_flag_reset_cut.log")
    assert (lost["kind"], lost["rank"], lost["group"], lost["line"]) == ("store_lost", 1, "0", 1)
    assert lost["exception_type"] == "Connection reset by peer"
    other = {**lost, "rank": 2, "line": 9}
    # an echo of the store host's exit: no rank's own first failure
    assert build_timeline([lost, other]) is None
    finding = builtin_findings({"evidence.failures": [lost]}, "nccl")["evidence-store-lost"]
    (item,) = [str(i) for i in finding.items]
    assert item.startswith("Rank 1 (group 0): Connection reset by peer")


# ------------------------------------------------------------------ sets 52-55


def test_an_older_header_with_colons_gives_the_sizes_and_its_shape() -> None:
    ev = load_paths([HELDOUT / "rccl_tests_mi210_old_header_internal_error.log"])
    (bench,) = ev.benchmarks
    assert (bench["min_bytes"], bench["max_bytes"], bench["ranks"], bench["hosts"]) == (
        8, 134217728, 4, ["sharbox-ultra"],
    )  # fmt: skip
    assert [(s["nodes"], s["per_node"]) for s in ev.shapes] == [(1, 4)]
    (failed,) = ev.failures
    assert (failed["kind"], failed["code_name"], failed["host"]) == (
        "nccl_call_failure", "ncclInternalError", "sharbox-ultra",
    )  # fmt: skip


def test_a_list_of_ranks_shorter_than_one_process_lists_states_no_shape() -> None:
    # "nGpus 4" and one rank line: the copy lost three of the process's ranks
    ev = load_paths([HELDOUT / "nccl_tests_hypercube_srun_pmix_errors_cut.log"])
    (bench,) = ev.benchmarks
    assert (bench["min_bytes"], bench["max_bytes"], bench["ranks_listed"]) == (8, 8589934592, False)
    assert ev.shapes == []


def test_a_row_the_copy_ends_inside_keeps_the_cells_it_holds() -> None:
    ev = load_paths([HELDOUT / "nccl_tests_alltoall_4gpu_h100_v2_17_8_busid_cut.log"])
    (bench,) = ev.benchmarks
    (row,) = bench["results"]  # cut before its #wrong: read, the #wrong unknown
    assert (row["bytes"], row["busbw_gbps"], row["wrong"]) == (524288000, 121.17 * 8, None)
    assert (bench["op"], bench["ranks"], bench["hosts"]) == ("all_to_all", 4, ["Node1"])
    messages = [m.message for m in ev.files[0].messages]
    assert "nccl_tests: the log ends inside this row: its #wrong is unknown" in messages
    ev = load_paths([HELDOUT / "nccl_tests_sendrecv_uint8_error_col_gtx1080.log"])
    (bench,) = ev.benchmarks
    (row,) = bench["results"]  # cut inside its in-place group: the out-of-place one is read
    assert (row["in_place"], row["dtype"], row["busbw_gbps"]) == (False, "uint8", 5.82 * 8)
    assert [(s["nodes"], s["per_node"]) for s in ev.shapes] == [(1, 2)]


def test_an_nccl_tests_logs_debug_lines_name_its_hosts() -> None:
    ev = load_paths([HELDOUT / "nccl_tests_allreduce_2node_a100_pcie_info_interleaved_cut.log"])
    assert [h["host"] for h in ev.log_hosts] == ["test1", "test2"]
    assert [(s["nodes"], s["per_node"], s["hosts"]) for s in ev.shapes] == [
        (2, 1, ["test1", "test2"])
    ]


def test_hcoms_result_line_is_a_failed_operation_with_its_hccl_result() -> None:
    link, result = _failures("hccl_plog_link_error_client_no_connect_allreduce_errno.log")
    assert (link["kind"], link["op"], link["exception_type"]) == (
        "hccl_link_timeout", "all_reduce", "no connect",
    )  # fmt: skip
    # "errNo[0x0000000005000004] op_base hcclComm all reduce error": module 5, HcclResult 4
    assert (result["kind"], result["op"], result["code"], result["code_name"]) == (
        "hccl_call_failure", "all_reduce", "4", "HCCL_E_INTERNAL",
    )  # fmt: skip


def test_a_p2p_time_out_alone_is_read_with_the_operation_that_failed() -> None:
    p2p, result = _failures("hccl_plog_p2p_connected_timeout_hcomallreduce.log")
    assert (p2p["kind"], p2p["device"], p2p["timeout_ms"], p2p["pid"]) == (
        "hccl_p2p_failure", 0, 130000, 42,
    )  # fmt: skip
    assert (result["op"], result["code_name"]) == ("all_reduce", "HCCL_E_DRV")


def test_failed_transport_allocation_is_read_when_no_link_says_more() -> None:
    alloc, result = _failures("hccl_plog_alloc_transports_failed_hcomallreduce.log")
    assert (alloc["kind"], alloc["op"], alloc["line"]) == (
        "hccl_transport_failure",
        "all_reduce",
        4,
    )
    assert "Alloc transports failed" in alloc["message"]
    assert (result["code"], result["code_name"]) == ("6", "HCCL_E_NOT_FOUND")


def test_a_link_with_an_empty_local_address_and_its_threads_reason() -> None:
    (link,) = _failures("hccl_plog_transport_init_recv_fail_rank443.log")
    assert (link["kind"], link["rank"], link["remote_rank"], link["ip"], link["remote_ip"]) == (
        "hccl_transport_failure", 443, 0, None, "1.1.1.1",
    )  # fmt: skip
    assert link["message"].endswith(
        "transport create fail in thread, local rank[443] remote rank[0]"
    )


def test_a_version_2_0_rank_table_is_read_by_its_rank_list() -> None:
    ev = load_paths([HELDOUT / "rank_table_v20_rank_list_level_list_doc.json"])
    (table,) = ev.rank_tables
    assert (table["version"], table["status"], table["form"]) == ("2.0", "completed", "rank_list")
    assert [(r["rank"], r["device_id"]) for r in table["ranks"]] == [(0, "0")]
    # the documentation's copy: // comments and a trailing comma are errors, "..." left out
    assert table["errors"][0].startswith("not valid JSON: // comments")
    assert ev.shapes == []  # the form names no server


# ------------------------------------------------------------------ sets 56-59


def test_a_transport_line_in_its_reason_form_is_read_behind_a_vllm_worker_tag() -> None:
    links = _failures("vllm_ascend_2node_transport_init_create_dest_tp3.log")
    assert [(e["rank"], e["remote_rank"], e["remote_ip"]) for e in links] == [
        (7, 12, "192.168.1.4"), (7, 13, "192.168.1.4"), (7, 14, "192.168.1.4"),
        (7, 5, "192.168.1.3"),
    ]  # fmt: skip
    assert {(e["kind"], e["pid"], e["ip"]) for e in links} == {
        ("hccl_transport_failure", 2322, "192.168.1.3")
    }


def test_xla_and_paddle_name_the_failed_nccl_call_their_own_way() -> None:
    (init,) = _failures("jax_xla_ncclcomminitrank_unhandled_system_error_accept_ebadf_cut.log")
    assert (init["call"], init["code_name"], init["host"]) == (
        "ncclCommInitRank", "ncclSystemError", "user-G493-ZB1-AAP1-000",
    )  # fmt: skip
    (group,) = _failures("jax_pmap_2gpu_ncclgroupend_unhandled_cuda_error.log")
    assert (group["call"], group["code_name"]) == ("ncclGroupEnd", "ncclUnhandledCudaError")
    assert "ncclGroupEnd() failed: unhandled cuda error" in group["message"]  # from the long line
    (reduce_,) = _failures("flax_nnx_jit_ncclallreduce_invalid_argument_glog.log")
    assert (reduce_["call"], reduce_["code_name"]) == ("ncclAllReduce", "ncclInvalidArgument")
    failed, launch = _failures("paddledetection_processgroupnccl_error2_barrier_launch_exit.log")
    assert (failed["kind"], failed["code_name"]) == ("nccl_call_failure", "ncclSystemError")
    assert (launch["kind"], launch["exit_code"], launch["exception_type"]) == (
        "launcher_exit", 1, "paddle launch",
    )  # fmt: skip
    (worker,) = _failures("paddledetection_launch_container_failed_rank0_code1.log")
    assert (worker["kind"], worker["rank"], worker["exit_code"]) == ("launcher_exit", 0, 1)


def test_nccl_debug_lines_of_releases_before_the_nccl_token_are_read() -> None:
    ev = load_paths([HELDOUT / "paddle_nccl2_early_warn_connect_refused_no_nccl_token.log"])
    # one process (pid 454) drives GPUs 0 and 1: each GPU's own warning is kept
    refused, closed, closed_1 = ev.failures
    assert (closed["device"], closed_1["device"], closed_1["pid"]) == (0, 1, 454)
    assert (refused["kind"], refused["host"], refused["pid"], refused["line"]) == (
        "nccl_warning", "instance-fjhn02ur", 454, 1,
    )  # fmt: skip
    # the WARN as written, then the "-> 2" trail under it (round XXXX set 731: NCCL 2.2's
    # old-format INFO lines passing ncclSystemError up through bootstrap)
    assert refused["message"].startswith("Call to connect failed : Connection refused (then 2 = ")
    assert "ncclSystemError passed up through" in refused["message"]
    assert closed["message"].startswith("Connection closed by remote peer (then 2 = ")
    assert [h["host"] for h in ev.log_hosts] == ["instance-fjhn02ur"]
    ev = load_paths([HELDOUT / "tf_horovod_nccl2212_info_without_nccl_token_ib0_cut.log"])
    assert (ev.files[0].status, ev.failures) == ("read", [])
    assert [h["host"] for h in ev.log_hosts] == ["C4140-V100-1"]
    (cuda,) = _failures("mxnet_nccl134_reduce_cuda_failure_invalid_resource_handle.log")
    assert (cuda["kind"], cuda["code_name"], cuda["line"]) == (
        "nccl_warning", "invalid resource handle", 12,
    )  # fmt: skip


def test_rows_split_by_open_mpis_tag_are_joined_and_a_run_without_rows_is_kept() -> None:
    ev = load_paths([HELDOUT / "nccl_tests_eks_p5_2x8_mpi_tag_output_split_rows.log"])
    (bench,) = ev.benchmarks
    assert (bench["ranks"], bench["complete"], len(bench["results"])) == (16, True, 64)
    assert bench["peak_busbw_gbps"] == 487.9 * 8
    assert [(s["nodes"], s["per_node"]) for s in ev.shapes] == [(2, 8)]
    ev = load_paths([HELDOUT / "nccl_tests_pairwise_2node_alltoall_fail_sendrecv_ok.log"])
    alltoall, sendrecv = ev.benchmarks
    assert (alltoall["op"], alltoall["results"], alltoall["complete"]) == ("all_to_all", [], False)
    assert (sendrecv["dtype"], sendrecv["complete"], sendrecv["peak_busbw_gbps"]) == (
        "float64", True, 65.76,
    )  # fmt: skip
    (failed,) = ev.failures
    assert (failed["code_name"], failed["host"], failed["line"]) == (
        "ncclRemoteError", "cnode2-003", 18,
    )  # fmt: skip


def test_an_older_ib_error_completion_without_its_peer() -> None:
    ev = load_paths(
        [HELDOUT / "slurm_pytorch_broadcast_16rank_ib_completion_error12_time_limit.out"]
    )
    (ib,) = [e for e in ev.failures if e["kind"] == "nccl_net_error"]
    assert (ib["host"], ib["rank"], ib["rank_size"], ib["code_name"], ib["remote_ip"]) == (
        "cgpu09", 10, 16, "IBV_WC_RETRY_EXC_ERR", None,
    )  # fmt: skip
    finding = builtin_findings({"evidence.failures": [ib]}, "nccl")[
        "evidence-nccl-ib-completion-error"
    ]
    (item,) = [str(i) for i in finding.items]
    assert item.startswith("cgpu09 pid 31641 (rank 10), device 0: IBV_WC_RETRY_EXC_ERR (12)")


def test_a_watchdog_record_wrapped_inside_worknccl_is_joined() -> None:
    (work,) = _failures("fastvideo_hunyuan_watchdog_alltoall_wrapped_worknccl.log")
    assert (work["kind"], work["rank"], work["op"], work["seq"], work["numel"]) == (
        "watchdog_timeout", 0, "all_to_all", 3369, 610560,
    )  # fmt: skip
    assert (work["last_enqueued"], work["last_completed"]) == (3372, 3368)


# ------------------------------------------------------------------ sets 60-61


def test_an_npu_smi_table_kept_as_comments_is_read_and_the_unwrapping_said() -> None:
    ev = load_paths([HELDOUT / "npu_smi_info_910a_python_comment_prefix.txt"])
    assert ev.files[0].status == "read"
    assert [m.message for m in ev.files[0].messages] == [
        "the indent every line shares (4 character(s)) taken off",
        "read as comments: '#' taken off 14 line(s)",
    ]
    (chip,) = ev.npu_chips
    assert (chip["npu"], chip["name"], chip["health"], chip["hbm_total_mb"]) == (
        3,
        "910A",
        "OK",
        32768,
    )


def test_a_rank_line_the_copy_cut_means_the_list_is_not_whole() -> None:
    ev = load_paths([HELDOUT / "soperator_srun_pmix_2node_h100_nccl_tests_cut.log"])
    (bench,) = ev.benchmarks
    assert (bench["ranks"], bench["hosts"], bench["ranks_listed"]) == (
        12, ["worker-1", "worker-0"], False,
    )  # fmt: skip
    assert ev.shapes == []


def test_a_matrix_cut_among_its_nic_rows_is_partial_and_says_which() -> None:
    ev = load_paths([HELDOUT / "slurm_node_nvidia_smi_topo_2gpu_10nic_cut.txt"])
    assert ev.files[0].status == "partial"
    (topo,) = ev.topologies
    assert topo["devices"] == ["GPU0", "GPU1", "NIC0", "NIC1", "NIC2"]
    message, near = [m.message for m in ev.files[0].messages]
    assert "no row for NIC3, NIC4" in message
    assert "the nearest NIC of each GPU" in near


def test_a_chip_row_the_copy_ends_inside_is_read_as_far_as_it_goes() -> None:
    ev = load_paths([HELDOUT / "npu_smi_info_910b4_ctyun_cut.txt"])
    assert ev.files[0].status == "partial"
    (chip,) = ev.npu_chips
    assert (chip["name"], chip["bus_id"], chip["power_w"], chip["hbm_total_mb"]) == (
        "910B4", "0000:C1:00.0", 98.9, None,
    )  # fmt: skip
    (message,) = [m for m in ev.files[0].messages]
    assert (message.line, "second row is cut off" in message.message) == (9, True)
