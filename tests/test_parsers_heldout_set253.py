"""Outputs of this stop's held-out evaluations (tests/data/evidence_heldout_43, sources in
tests/data/SOURCES.md): Ascend DMI's fault diagnosis and MindCluster's reschedule records."""

from __future__ import annotations

from typing import Any

from advisor.evidence.command import cluster_from
from advisor.evidence.load import EvidenceFacts, load_paths, load_text
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_43"


def _findings(ev: EvidenceFacts, backend: str) -> dict[str, Any]:
    return builtin_findings({"evidence.failures": ev.failures}, backend)


def _said(ev: EvidenceFacts) -> str:
    return " | ".join(m.message for f in ev.files for m in f.messages)


def test_ascend_dmi_network_pass_is_a_healthy_npu_nodes_note() -> None:
    ev = load_paths([HELDOUT / "ascend_dmi_dg_items_network_pass_doc.txt"])
    assert ev.files[0].status == "read" and ev.files[0].formats == ["ascend_dmi"]
    assert ev.failures == []
    assert "ascend-dmi --dg at 20250529-19:22:43: network PASS" in _said(ev)
    # only an Ascend host runs ascend-dmi: the import is an NPU cluster's, with no shape made up
    cluster = cluster_from(ev)
    assert (cluster.backend, cluster.nodes) == ("hccl", 0)


def test_ascend_dmi_scene_reads_every_item_and_says_the_cut_one() -> None:
    ev = load_paths(
        [
            HELDOUT
            / "ascend_dmi_dg_scene_healthcheck_perfcheck_stresstest_a2_a3_all_pass_doc_indented_cut.txt"
        ]
    )
    f = ev.files[0]
    assert f.status == "partial" and ev.failures == []
    said = _said(ev)
    assert "driver HEALTH, device HEALTH, network PASS" in said and "tdp PASS" in said
    assert "aicpu: no state below it" in said
    assert [m.line for m in f.messages if "aicpu" in m.message] == [31]


DMI_BAD = """[root@node-7 ~]# ascend-dmi --dg -i driver,network,hbm,signalQuality -q
Summary:
    Arch: x86_64
    Mode: Normal
    Time: 20250601-08:00:00

Hardware:
    driver:
        EMERGENCY_WARN
    network:
        FAIL
        device 3: link down
    hbm:
        PASS
    signalQuality:
        SKIP
"""


def test_ascend_dmi_states_are_read_by_their_documented_meaning() -> None:
    ev = load_text(DMI_BAD, "dmi.txt")
    got = {(f["exception_type"].split(":")[0], f["code"]) for f in ev.failures}
    assert got == {("Hardware driver", "Warn"), ("Hardware network", "Fail")}
    network = next(f for f in ev.failures if f["code"] == "Fail")
    # what the tool printed under the state goes with it
    assert network["exception_type"].endswith("FAIL at 20250601-08:00:00: device 3: link down")
    assert network["message"].startswith("ascend-dmi --dg -i driver,network,hbm,signalQuality -q")
    said = _said(ev)
    assert (
        "hbm PASS" in said and "signalQuality SKIP (not supported on this product or scene)" in said
    )
    found = _findings(ev, "hccl")
    assert {"evidence-dmi-fail", "evidence-dmi-warn"} <= set(found)
    assert "evidence-dmi-fail" not in _findings(
        load_text(DMI_BAD.replace("FAIL", "PASS"), "d.txt"), "hccl"
    )


def test_mindcluster_reschedule_record_names_the_node_of_the_failed_pod() -> None:
    ev = load_paths(
        [
            HELDOUT
            / "mindcluster_kubectl_describe_cm_job_reschedule_reason_pod_failed_worker0_node2_rank_index1.txt"
        ]
    )
    (r,) = ev.failures
    assert (r["kind"], r["code"], r["host"], r["line"]) == ("reschedule", "pod-failed", "node2", 9)
    assert "pod default-test-pytorch-worker-0 on node2, node rank index 1" in r["exception_type"]
    # the record's epoch stamp, read as UTC; the job's total count kept
    assert "at 2025-10-05 16:56:10 UTC" in r["message"] and "1 reschedule(s)" in r["message"]
    assert cluster_from(ev).backend == "hccl"
    assert "node2" in _findings(ev, "hccl")["evidence-reschedule"].message


def test_reschedule_records_in_lower_case_keys_and_a_cut_record() -> None:
    text = (
        "recent-reschedule-records:\n----\n"
        '{"ns/job-a":{"jobID":"ns/job-a","totalRescheduleTimes":2,"rescheduleRecords":[{"rescheduleTimeStamp":1759683370,'
        '"reasonOfTask":[{"rescheduleReason":"process-exception","podName":"w-3","nodeName":"n9","nodeRankIndex":"3"},'
        '{"rescheduleReason":"pod-failed","podName":"w-1","nodeName":"n4"}]}]}}\n'
        '{"ns/job-b":{"JobID":"ns/job-b","RescheduleRecords":[{"ReasonOfTask":[{"Resched\n'
    )
    ev = load_text(text, "cm.txt")
    assert [(f["host"], f["code"]) for f in ev.failures] == [
        ("n9", "process-exception"),
        ("n4", "pod-failed"),
    ]
    assert "(a process in the pod failed)" in ev.failures[0]["exception_type"]
    assert ev.files[0].status == "partial" and "not whole JSON" in _said(ev)


def test_a_log_naming_ascend_dmi_in_its_prose_is_not_its_output() -> None:
    text = (
        "[ERROR] HCCL(123,python):2024-01-01-00:00:00.000.000 [hccl_comm.cc:1] EI0006: Getting "
        "socket times out.\nhint: run ascend-dmi --dg to check the node\n"
    )
    ev = load_text(text, "train.log")
    assert ev.files[0].formats == ["log"] and ev.files[0].status == "read"


def test_a_rank_timing_out_in_two_groups_keeps_each_groups_progress() -> None:
    # torch's newest form: the time-out line names no group; the progress line after it does
    line = (
        "(Worker[rank=9] pid=7) [rank9]:[E129 16:38:47.714693059 ProcessGroupNCCL.cpp:683] [Rank 1] "
        "Watchdog caught collective operation timeout: WorkNCCL(SeqNum={seq}, OpType={op}, "
        "NumelIn=4, NumelOut=8, Timeout(ms)=600000) ran for 600002 milliseconds before timing out.\n"
        "(Worker[rank=9] pid=7) [rank9]:[E129 16:38:47.714849575 ProcessGroupNCCL.cpp:2241] "
        "[PG ID {pg} PG GUID {guid}({desc}) Rank 1]  failure detected by watchdog at work sequence "
        "id: {seq} PG status: last enqueued work: {enq}, last completed work: {done}\n"
    )
    text = line.format(
        seq=49387, op="_ALLGATHER_BASE", pg=5, guid=37, desc="TP", enq=49406, done=49386
    ) + line.format(
        seq=52229, op="ALLTOALL_BASE", pg=12, guid=100, desc="EP", enq=52258, done=52228
    )
    got = [
        (e["seq"], e["group"], e["last_enqueued"], e["last_completed"])
        for e in load_text(text, "rl.log").failures
        if e["kind"] == "watchdog_timeout"
    ]
    assert got == [(49387, "5 (TP)", 49406, 49386), (52229, "12 (EP)", 52258, 52228)]


def test_an_ipv6_link_local_peer_is_its_address_not_its_interface() -> None:
    ev = load_paths(
        [
            HELDOUT
            / "nccl_info_bootstrap_ipv6_linklocal_ib1_socketStartConnect_abort_ncclSystemError_8gpu_nccl975_cut.log"
        ]
    )
    (warn,) = [e for e in ev.failures if e["kind"] == "nccl_warning"]
    assert (warn["remote_ip"], warn["port"], warn["host"], warn["device"]) == (
        "fe80::966d:ae03:a2:8cf0",
        17943,
        "n122-246-085",
        5,
    )


def test_a_process_groups_abort_timing_out_at_shutdown_and_the_idle_watchdog() -> None:
    ev = load_paths(
        [
            HELDOUT
            / "pg_heartbeat_monitor_timeout_abort_future_timeout_2rank_a100_distrifuser6_cut.log"
        ]
    )
    aborts = [
        (e["rank"], e["timeout_ms"], e["line"])
        for e in ev.failures
        if e["kind"] == "pg_abort_timeout"
    ]
    assert aborts == [(0, 600000, 6), (1, 600000, 7)]
    hung = [e for e in ev.failures if e["kind"] == "watchdog_hang"]
    assert sorted(e["rank"] for e in hung) == [0, 1]
    # workMetaList_.size()=0: no collective was outstanding when the monitor fired
    assert all(e["exception_type"].startswith("no work outstanding") for e in hung)
    found = _findings(ev, "nccl")
    assert {"evidence-pg-abort-timeout", "evidence-watchdog-hang"} <= set(found)
    assert "no work outstanding" in found["evidence-watchdog-hang"].items[0]


def test_processes_raising_one_error_apart_by_nccls_last_warning_each_keep_theirs() -> None:
    ev = load_paths(
        [
            HELDOUT
            / "nccl_invalid_usage_duplicate_gpu_f000_barrier_interleaved_nccl2193_megatron661_cut.log"
        ]
    )
    said = [e["exception_type"] for e in ev.failures if e["kind"] == "nccl_call_failure"]
    assert said == [
        "Duplicate GPU detected : rank 3 and rank 0 both on CUDA device f000",
        "Duplicate GPU detected : rank 7 and rank 0 both on CUDA device f000",
    ]
    # the same error under the same last warning, printed twice by one process, is one event
    text = (
        HELDOUT
        / "nccl_invalid_usage_duplicate_gpu_f000_barrier_interleaved_nccl2193_megatron661_cut.log"
    ).read_text()
    twice = load_text(text.replace("rank 7 and", "rank 3 and"), "m.log")
    assert len([e for e in twice.failures if e["kind"] == "nccl_call_failure"]) == 1


def test_the_agents_last_exception_goes_to_the_summary_entry_of_its_pid() -> None:
    text = (
        "FileNotFoundError: [Errno 2] No such file or directory: 'config/your_config.yaml'\n"
        "E0608 19:04:45.368000 102926 torch/distributed/elastic/multiprocessing/api.py:869] failed "
        "(exitcode: 1) local_rank: 0 (pid: 102930) of binary: /usr/bin/python\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError:\n"
        "============================================================\n"
        "train.py FAILED\n"
        "------------------------------------------------------------\n"
        "Failures:\n  <NO_OTHER_FAILURES>\n"
        "------------------------------------------------------------\n"
        "Root Cause (first observed failure):\n[0]:\n"
        "  time      : 2026-06-08_19:04:45\n  host      : c561-007\n"
        "  rank      : 0 (local_rank: 0)\n  exitcode  : 1 (pid: 102930)\n"
        "  error_file: <N/A>\n"
        "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
        "============================================================\n"
    )
    (root,) = [e for e in load_text(text, "run.log").failures if e["kind"] == "elastic_failure"]
    assert (root["rank"], root["pid"], root["root_cause"]) == (0, 102930, True)
    assert root["message"] == (
        "the last exception before the agent saw it fail (line 1): FileNotFoundError: [Errno 2] "
        "No such file or directory: 'config/your_config.yaml'"
    )


def test_a_gpu_hang_printed_onto_a_progress_bar_is_read_without_the_bar() -> None:
    ev = load_paths(
        [
            HELDOUT
            / "pg_watchdog_torch25_reduce_scatter_seq500045_6ranks_shown_mi300x_after_gpu_hang_rocm4021_cut.log"
        ]
    )
    (hang,) = [e for e in ev.failures if e["kind"] == "gpu_hw_exception"]
    assert hang["message"].startswith("HW Exception by GPU node-9")
    assert hang["exception_type"] == "GPU Hang (GPU node-9)"
    ranks = sorted(e["rank"] for e in ev.failures if e["kind"] == "watchdog_timeout")
    assert ranks == [1, 2, 3, 4, 6, 7]


def test_an_older_reduce_scatter_table_is_told_by_its_cells_and_its_unchecked_run_said() -> None:
    ev = load_paths(
        [HELDOUT / "nccl_tests_oldformat_8xA100_1proc_validation0_info_line_interleaved.txt"]
    )
    (b,) = ev.benchmarks
    # redop "sum", no root column, size 8 x count (8 ranks): reduce_scatter, its busbw (n-1)/n
    assert (b["op"], b["op_from"], b["ranks"]) == ("reduce_scatter", "columns", 8)
    said = _said(ev)
    assert "the run did not check its results" in said
    # the NCCL INFO line between header and rows is no row
    assert len(b["results"]) == 2 * 34


def test_processes_printing_their_headers_together_and_their_rows_interleaved() -> None:
    ev = load_paths(
        [
            HELDOUT
            / "nccl-tests_all_reduce_perf_nvls_H100_two_independent_8gpu_runs_interleaved_slurm.txt"
        ]
    )
    said = _said(ev)
    assert "no result row follows this header" not in said
    assert "the rows below are the processes' interleaved" in said
    assert "each ran the test alone" in said
    (b,) = ev.benchmarks
    assert b["complete"] and (b["min_bytes"], b["max_bytes"]) == (1048576, 8589934592)


def test_older_error_column_names_the_sizes_behind_the_out_of_bounds_verdict() -> None:
    head = (
        "# nThread 1 nGpus 4 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 "
        "iters: 20 validation: 1\n#\n# Using devices\n"
        + "".join(
            f"#   Rank  {r} Pid  8756 on    seville device  {r} [0x3{r}] Tesla V100\n"
            for r in range(4)
        )
        + "#\n#                                             out-of-place                       in-place\n"
        "#       size         count    type     time   algbw   busbw  error     time   algbw   busbw  error\n"
    )
    rows = "".join(
        f"  {size:>10}  {size // 16:>10}   float   {t:>6}   70.00   70.00  {err}   {t:>6}  110.00  110.00  {err}\n"
        for size, t, err in (
            (2147483616, "27187", "0e+00"),
            (4294967280, "53902", "1e+00"),
            (8589934560, "106773", "1e+00"),
        )
    )
    text = head + rows + "# Out of bounds values : 4 FAILED\n# Avg bus bandwidth    : 30.2993\n"
    (b,) = load_text(text, "all_gather_perf.log").benchmarks
    assert [c["bytes"] for c in b["failed_checks"]] == [4294967280, 8589934560]
    # a verdict whose count no set of largest deviations matches names no size
    (b,) = load_text(text.replace(": 4 FAILED", ": 3 FAILED"), "all_gather_perf.log").benchmarks
    assert b["failed_checks"] == [{"bytes": None, "ranks": [], "out_of_bounds": 3}]


def test_hccls_own_settings_in_its_run_plog_are_said_not_judged() -> None:
    ev = load_paths([HELDOUT / "hccl_run_plog_HCCL_ENV_effective_settings_alltoall_test_cut.log"])
    assert ev.failures == [] and ev.files[0].status == "read"
    said = _said(ev)
    assert (
        "HCCL_CONNECT_TIMEOUT 120 s (default), HCCL_EXEC_TIMEOUT 1836 s (default), "
        "HCCL_BUFFSIZE 1 M (environment)"
    ) in said
    assert "HCCL_INTRA_ROCE_ENABLE 0 (default)" in said


def test_nccl_giving_up_a_socket_connect_is_its_own_finding() -> None:
    ev = load_paths(
        [
            HELDOUT
            / "nccl_info_bootstrap_ipv6_linklocal_ib1_socketStartConnect_abort_ncclSystemError_8gpu_nccl975_cut.log"
        ]
    )
    (warn,) = [e for e in ev.failures if e["kind"] == "nccl_warning"]
    assert (warn["call"], warn["exception_type"]) == (
        "socketStartConnect",
        "socket connect failed: Software caused connection abort",
    )
    found = _findings(ev, "nccl")["evidence-nccl-connect-failed"]
    assert "fe80::966d:ae03:a2:8cf0 port 17943 (an IPv6 link-local address" in found.items[0]
    # NCCL's retries running out is the same verdict; an IPv4 peer is not called link-local
    text = "node1:240:800 [6] misc/socket.cc:568 NCCL WARN socketStartConnect: exceeded retries (20000)\n"
    (retries,) = load_text(text, "n.log").failures
    assert retries["exception_type"] == "socket connect failed: retries exceeded"
    text = (
        "node5:240:1167 [6] misc/socket.cc:533 NCCL WARN socketPollConnect: Connect to "
        "10.0.0.4<56849> returned 113(No route to host) errno 115(Operation now in progress)\n"
    )
    item = _findings(load_text(text, "n.log"), "nccl")["evidence-nccl-connect-failed"].items[0]
    assert (
        "No route to host connecting to 10.0.0.4 port 56849 (" in item and "link-local" not in item
    )


def test_ib_and_roce_ports_taken_together_are_said() -> None:
    ev = load_paths(
        [HELDOUT / "nccl_info_init_ib_5hca_mlx5_3_roce_2.5.6_rank155_256rank_nccl302_cut.log"]
    )
    assert ev.failures == [] and ev.files[0].status == "read"
    assert (
        "crow-ib-new-nccl-256-info-19: NCCL's IB transport took ports of both link layers: "
        "InfiniBand mlx5_1:1, mlx5_3:1, mlx5_0:1, mlx5_4:1; RoCE mlx5_2:1"
    ) in _said(ev)
    one_layer = "h1:5:5 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB/SHARP ; OOB eth0:10.0.0.1<0>\n"
    assert "link layers" not in _said(load_text(one_layer + "h1:5:9 [0] NCCL WARN x\n", "n.log"))


def test_one_host_on_nccls_sockets_is_said_for_a_job_of_several() -> None:
    ev = load_paths(
        [HELDOUT / "nccl_info_init_socket_no_libibverbs_2.10.3_detectron2_4730_cut.log"]
    )
    said = _said(ev)
    assert (
        "cvlab189-System-Product-Name: NCCL found no InfiniBand/RoCE device and uses TCP sockets"
        in said
    )
    assert "only a job of several hosts would send over them" in said
    assert {f["exception_type"] for f in ev.failures} == {"start-up fallback"}


def test_a_host_of_digits_left_by_overwritten_output_is_no_host() -> None:
    ev = load_paths(
        [
            HELDOUT
            / "nccl_warn_socket_recv_connection_timed_out_2.12.12_horovod_k8s_worker23_horovod3611_cut.log"
        ]
    )
    assert [h["host"] for h in ev.log_hosts] == ["worker-23"]
    assert {f["host"] for f in ev.failures} == {"worker-23"}


def test_ascend_dmi_json_form_and_nics_port_down_warning() -> None:
    ev = load_paths([HELDOUT / "ascend_dmi_dg_nic_fmt_json_pass_doc.txt"])
    assert ev.files[0].formats == ["ascend_dmi"] and ev.failures == []
    assert "ascend-dmi --dg at 20250603-16:46:40: nic PASS" in _said(ev)
    down = (HELDOUT / "ascend_dmi_dg_nic_fmt_json_pass_doc.txt").read_text()
    down = down.replace('"item_result": "PASS",', '"item_result": "GENERAL_WARN",', 1)
    (f,) = load_text(down, "nic.json").failures
    # nic's GENERAL_WARN is a port DOWN or NPUs' ports not connected (toolboxug_0246): a failure
    assert f["code"] == "Fail" and "an NPU port is DOWN" in f["exception_type"]
    assert "evidence-dmi-fail" in _findings(load_text(down, "nic.json"), "hccl")


def test_npu_smi_list_says_its_count_against_the_npus_listed() -> None:
    ev = load_paths([HELDOUT / "npu-smi_info_-l_16npu_and_-t_memory_i1_cut.txt"])
    assert ev.files[0].status == "partial"
    assert (
        "npu-smi info -l: Total Count 16; 3 NPU(s) listed (NPU 0 with 1 chip(s), NPU 1 with 1 "
        "chip(s), NPU 2 with 1 chip(s)): the copy lists fewer than its count"
    ) in _said(ev)
    assert "npu-smi info -t memory of NPU 1" in _said(ev)


def test_an_npu_smi_table_cut_inside_a_border_is_partial() -> None:
    ev = load_paths(
        [HELDOUT / "npu-smi_info_910B3_24.1.rc1_truncated_by_poster_then_toolkit_info.txt"]
    )
    assert ev.files[0].status == "partial" and len(ev.npu_chips) == 1
    assert "the chip table ends in a border cut short: chips after NPU 0 are unknown" in _said(ev)


def test_older_plogs_settings_without_their_tag_are_said() -> None:
    ev = load_paths([HELDOUT / "hccl_run_plog_init_connect130_exec600_16rank_listen_no_error.log"])
    assert ev.failures == []
    assert (
        "HCCL_CONNECT_TIMEOUT 130 s (environment), HCCL_EXEC_TIMEOUT 600 s (environment)"
        in _said(ev)
    )


def test_torch_npus_application_exception_names_the_exception_above_it() -> None:
    (err,) = load_paths(
        [HELDOUT / "ms_swift_grpo_npu_processgrouphccl_destructor_err99999_rank0.log"]
    ).failures
    assert err["code"] == "ERR99999"
    assert err["exception_type"] == (
        "UNKNOWN applicaiton exception: the exception above it (line 4): RuntimeError: Multiple "
        "errors: [Exception('Server 1 failed: 500, Internal Server Error')]"
    )


def test_a_run_whose_copy_lost_only_its_footer_is_not_said_to_miss_sizes() -> None:
    ev = load_paths(
        [HELDOUT / "nccl-tests_2.18.2_all_reduce_8x_rtx5090_p2p_pcie_no_summary_cut.txt"]
    )
    (item,) = _findings_of(ev)["evidence-benchmark-cut-short"].items
    assert "every size asked was measured (up to 134217728 B), only the footer is missing" in item


def _findings_of(ev: EvidenceFacts) -> dict[str, Any]:
    return builtin_findings({"evidence.benchmarks": ev.benchmarks}, "nccl")


def test_a_host_the_poster_named_host_is_no_elastic_summary_field() -> None:
    ev = load_paths([HELDOUT / "nccl_2.13.4_roce_proxy_connect_closed_by_peer_cut.txt"])
    assert ev.files[0].status == "read"
    assert {f["kind"] for f in ev.failures} == {"nccl_warning"}


def test_an_untagged_abort_notice_among_ranks_time_outs_is_theirs() -> None:
    ev = load_paths([HELDOUT / "torch_old_watchdog_timeout_1800s_allreduce_accelerate_cut.txt"])
    assert [(f["kind"], f["rank"], f["seq"]) for f in ev.failures] == [
        ("watchdog_timeout", 2, 48490),
        ("watchdog_timeout", 7, 48490),
    ]


def test_a_watchdog_death_is_its_global_ranks() -> None:
    ev = load_paths(
        [HELDOUT / "vllm_ascend_ei0013_roce_cqe_hccl_watchdog_rank11_dev3_peer_dev3_cut.log"]
    )
    died = [f for f in ev.failures if f["kind"] == "watchdog_exception"]
    assert [f["rank"] for f in died] == [11]
    # the abort notice is that rank's: no NCCL watchdog failure made up beside it
    assert not [f for f in ev.failures if f["kind"] == "watchdog_failure"]


def test_ranks_dumping_their_flight_recorder_are_a_notice_with_its_advice() -> None:
    ev = load_paths([DATA / "evidence_heldout_17" / "heartbeat_monitor_timed_out.log"])
    dumps = [(f["rank"], f["library"]) for f in ev.failures if f["kind"] == "pg_debug_dump"]
    assert dumps == [(0, "NCCL"), (1, "NCCL")]
    found = builtin_findings({"evidence.failures": ev.failures}, "nccl")
    assert len(found["evidence-flight-dumps-written"].items) == 2
    assert "evidence-watchdog-hang" in found


def test_a_log_of_notices_only_is_no_log_of_unknown_form() -> None:
    text = (
        "trainer/0 [0]:E0927 12:07:22.643702 1012209 ProcessGroupNCCL.cpp:1356] [PG ID 0 PG GUID "
        "0(default_pg) Rank 0] ProcessGroupNCCL preparing to dump debug info.\n"
        "trainer/0 [0]:I0927 12:07:22.643805 1012209 plugin.cpp:559] Profiler start dump\n"
    )
    ev = load_text(text, "trainer.log")
    assert [(f["kind"], f["rank"]) for f in ev.failures] == [("pg_debug_dump", 0)]
    assert ev.files[0].status == "read" and _said(ev) == ""


def test_a_nic_legend_without_its_matrix_is_a_note_with_its_garbled_entries() -> None:
    ev = load_paths(
        [HELDOUT / "nvidia-smi_topo_nic_legend_42nic_bond_garbled_wrap_sglang3685_cut.txt"]
    )
    f = ev.files[0]
    assert (f.status, f.formats) == ("partial", ["nic_legend"]) and ev.topologies == []
    said = _said(ev)
    assert "NIC legend without its matrix: 42 NIC(s), named: NIC2 mlx5_2" in said
    assert "(8 bonded device(s))" in said
    assert [m.line for m in f.messages if "not readable" in m.message] == [1, 2]
