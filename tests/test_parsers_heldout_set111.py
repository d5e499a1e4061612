"""Outputs the hundred-eleventh to hundred-thirty-second held-out evaluations misread that this
stop reads: the peer an EI0006's TraceBack names, torch elastic's verdict in a platform's wording and
in the record wrapper's "no error file" line, NCCL's last error in a page that doubled its line
breaks, a store client's failed read, "NCCL failure:" from programs that throw it, Open MPI's
signal handler, an nvidia-smi matrix whose later columns a copy left out, an nccl-tests run that
concluded without its average line, a run that ended in a Python exception alone; and (round
2) two processes' HCCP device-IP checks, a cut rank table's last entry, a template's placeholder
addresses, an older torch's TCPStore bind failure, Ray's memory monitor, HCCL's TLS check
(EI0016), and copies that left the rest out ("...") of hccn_tool and of a commented npu-smi table;
and (round 3) srun's task ranges, Open MPI losing a node's daemon, UCX's and DeepEP's errors, a
CUDA check's "Failed: CUDA error", a Markdown-bold nccl-tests cell, and a CANN code after a
literal "\n"; and (round 4) an NCCL error a page wrapped over three lines, srun's "Out Of Memory",
PALS' "start failed on", a `topo -p2p` status matrix (refused), "xx.xx.xx.xx" placeholders, a
healthy torch_npu log, Python's fault handler, and a CANN code with a digit after its E; and
(round 5) the HIP runtime's error line, UCX's logger at level ERROR, and a rank table whose
server ids a document masked alike.

Samples: ``tests/data/evidence_heldout_27/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from advisor.evidence.load import load_paths
from advisor.parsers import logs, nccl_tests, npu_smi, nvidia_smi, rank_table
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import finding_items

HELDOUT = DATA / "evidence_heldout_27"


_text = partial(heldout.text, HELDOUT)


_load = partial(heldout.load, HELDOUT)


def _failures(name: str) -> list[dict[str, Any]]:
    ev = _load(name)
    assert ev.files[0].status == "read", ev.files[0].messages
    return ev.failures


def test_an_ei0006_names_the_peer_its_traceback_lists_first() -> None:
    """The first "Transport init error" under the code's TraceBack is that code's own pair
    (rank 11 to 14): the finding says so, the three after it are transport failures."""
    name = "vllm_ascend_3389_qwen3vl_tp16_worker_tp11_aclgraph_capture_ei0006_transport_init_4_dst_ranks.log"
    failures = _failures(name)
    (code,) = [e for e in failures if e["code"] == "EI0006"]
    assert (code["rank"], code["remote_rank"], code["remote_ip"]) == (11, 14, "100.100.164.12")
    pairs = [e["remote_rank"] for e in failures if e["kind"] == "hccl_transport_failure"]
    assert pairs == [8, 10, 9]
    items = finding_items({"evidence.failures": failures})["evidence-hccl-socket-timeout"]
    assert items[0].startswith("Rank 11 (device 11), its link to rank 14 (100.100.164.12):")


def test_a_platforms_wording_of_the_agents_verdict_is_the_root_cause() -> None:
    name = "memoryvla_20_bridge_training_sigterm_failed_exitcode_minus9_local_rank0.log"
    (failed,) = _failures(name)
    assert failed["kind"] == "elastic_failure" and failed["root_cause"]
    assert (failed["local_rank"], failed["pid"], failed["exit_code"]) == (0, 71, -9)


def test_the_record_wrappers_no_error_file_line_names_the_failed_rank() -> None:
    """A log cut before the ChildFailedError summary keeps the wrapper's line (logged as an
    unformatted tuple by this torch): the local rank it names failed, its exit code unknown."""
    name = "nemo_12203_checkpointing_local_rank0_failed_no_error_file_launcher_traceback_cut.log"
    (failed,) = _failures(name)
    assert failed["kind"] == "elastic_failure" and failed["local_rank"] == 0
    assert failed["exit_code"] is None and failed["line"] == 1
    # where the summary or the agent's line is there, they say more: the wrapper's line is not
    # a second failure
    text = (
        "E0611 02:50:04.977000 3766697 torch/distributed/elastic/multiprocessing/api.py:914] "
        "failed (exitcode: -9) local_rank: 0 (pid: 3766727) of binary: /opt/venv/bin/python\n"
        "I0611 02:50:05.298000 3766697 torch/distributed/elastic/multiprocessing/errors/"
        "__init__.py:371] ('local_rank %s FAILED with no error file. Decorate your entrypoint "
        "fn with @record for traceback info. See: https://pytorch.org/docs/stable/elastic/"
        "errors.html', 0)\n"
    )
    (agent,) = logs.parse(text).events
    assert (agent.exit_code, agent.pid) == (-9, 3766727)


def test_nccls_last_error_is_read_in_a_page_that_doubled_its_line_breaks() -> None:
    name = (
        "nemo_15019_llm_pretrain_multinode_nccl_invalid_usage_no_socket_interface_tcpstore_recv.log"
    )
    failures = _failures(name)
    (call,) = [e for e in failures if e["kind"] == "nccl_call_failure"]
    assert call["code_name"] == "ncclInvalidUsage"
    assert call["exception_type"] == "Bootstrap : no socket interface found"
    # rank 1's store client lost the store (its read got 0 bytes)
    (lost,) = [e for e in failures if e["kind"] == "store_lost"]
    assert lost["rank"] == 1
    assert lost["exception_type"] == (
        "a read from the store at [localhost]:10197: failed to recv, got 0 bytes"
    )


def test_an_empty_last_error_in_a_doubled_page_takes_no_unrelated_line() -> None:
    text = (
        "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:2897, invalid usage, NCCL version 2.27.3\n"
        "\n"
        "Last error:\n"
        "\n"
        "\n"
        "\n"
        "[rank1]:[W1102 00:39:34.733273667 TCPStore.cpp:125] [c10d] something else\n"
    )
    (call,) = logs.parse(text).events
    assert call.exception_type is None


def test_nccl_failure_thrown_with_file_line_and_rank_and_open_mpis_signal_blocks() -> None:
    name = "deepbench_issue97_jetson_nccl_mpi_all_reduce_unhandled_cuda_error_cut.log"
    failures = _failures(name)
    calls = [
        (e["rank"], e["call"], e["code_name"]) for e in failures if e["kind"] == "nccl_call_failure"
    ]
    assert calls == [
        (0, "nccl_mpi_all_reduce.cu:86", "ncclUnhandledCudaError"),
        (1, "nccl_mpi_all_reduce.cu:86", "ncclUnhandledCudaError"),
    ]
    # each process's own signal handler: two interleaved blocks, one event each
    ended = [
        (e["host"], e["pid"], e["exit_code"]) for e in failures if e["kind"] == "launcher_exit"
    ]
    assert ended == [("jetson-3", 29969, -6), ("jetson-2", 8669, -6)]


def test_open_mpis_signal_block_names_the_rank_by_the_tests_device_list() -> None:
    name = "mscclpp_issue359_allreduce_test_perf_2x_rtx6000ada_segfault_cut.log"
    (ended,) = _failures(name)
    assert (ended["kind"], ended["rank"], ended["pid"], ended["exit_code"]) == (
        "launcher_exit",
        0,
        106967,
        -11,
    )
    assert "Segmentation fault (11)" in ended["message"]
    assert "failing at address 0x8" in ended["message"]
    items = finding_items({"evidence.failures": [ended]})["evidence-launcher-exit"]
    assert "exited with -11 (signal 11): [e53955024127:106967] Segmentation fault" in items[0]


def test_a_launchers_account_leaves_out_the_signal_handlers() -> None:
    """srun names the same ends by task: the processes' own blocks add nothing there."""
    text = (
        "[nid006549:31808] *** Process received signal ***\n"
        "[nid006549:31808] Signal: Segmentation fault (11)\n"
        "srun: error: nid006549: task 0: Segmentation fault\n"
    )
    ended = [e for e in logs.parse(text).events if e.kind == "launcher_exit"]
    assert [(e.exception_type, e.rank) for e in ended] == [("srun", 0)]


def test_a_topology_whose_later_columns_a_copy_left_out_is_partial() -> None:
    name = "llm_insights_a40_nvidia_smi_topo_m_abbreviated.txt"
    topo = nvidia_smi.parse_topo(_text(name))
    assert topo.devices == [f"GPU{i}" for i in range(8)]
    assert topo.links["GPU0"]["GPU1"] == "NV4" and topo.links["GPU3"]["GPU4"] == "SYS"
    assert topo.kinds() == {"NV4", "NODE", "SYS"}
    (left_out,) = topo.warnings
    assert left_out.line == 1 and "left its later columns out" in left_out.message
    assert _load(name).files[0].status == "partial"


def test_a_run_that_concluded_without_its_average_line_is_whole_but_partial() -> None:
    name = "oci_oke_b4_8_2x8_all_reduce_nccl_tests_2_17_9_ranks_elided.log"
    (table,) = nccl_tests.parse(_text(name)).tables
    assert table.complete and table.footer_left_out and len(table.rows) == 4
    ev = _load(name)
    assert ev.files[0].status == "partial"
    assert "'# Avg bus bandwidth' line is not in the copy" in ev.files[0].messages[0].message
    # every size asked is there: not a run cut short
    (bench,) = ev.benchmarks
    assert bench["complete"] and bench["footer_avg_busbw_gbps"] is None
    assert "evidence-benchmark-cut-short" not in finding_items(
        {"evidence.benchmarks": ev.benchmarks}, "nccl"
    )


def test_a_run_that_ended_in_a_python_exception_alone_says_so() -> None:
    name = "ai_fae_mindformers_qwen7b_predict_dp8_batch_size_not_divisible_valueerror.log"
    (raised,) = _failures(name)
    assert raised["kind"] == "python_exception" and raised["exception_type"] == "ValueError"
    assert raised["message"].startswith("ValueError: batch_size should be divisible by dp.")
    assert raised["line"] == 25
    items = finding_items({"evidence.failures": [raised]}, "gloo")["evidence-python-exception"]
    assert items[0].startswith("ValueError: batch_size should be divisible by dp.")


def test_a_traceback_cut_before_its_exception_is_still_nothing_read(tmp_path: Path) -> None:
    path = tmp_path / "fragment.log"
    path.write_text(
        'Traceback (most recent call last):\n  File "train.py", line 3, in <module>\n    main()\n'
    )
    ev = load_paths([path])
    assert ev.files[0].status == "unknown" and ev.failures == []


def test_each_processs_hccp_device_ip_check_is_its_own_failure() -> None:
    name = "cann800en_hcclug_ej0004_hccp_grep_ranktable_ip_inconsistent_2of8_cut.log"
    checks = [(e["pid"], e["ip"], e["code"]) for e in _failures(name)]
    assert checks == [(1601, "29.4.47.87", "EI0014"), (1590, "29.4.159.125", "EI0014")]


def test_a_cut_tables_last_entry_is_not_missing_what_follows_the_cut() -> None:
    """ModelArts' sample writes each server's server_id after its devices: the server the copy
    ends inside has not lost its server_id, it was not copied."""
    name = "huaweicloud_modelarts_rank_table_file_4x8_no_version_flattened_cut.json"
    table = rank_table.parse(_text(name))
    assert table.cut and table.errors == []
    assert [r.rank for r in table.ranks] == list(range(13))
    # a server before the cut that has no server_id is still an error
    cut = (
        '{"server_count": "2", "server_list": [{"device": [{"device_id": "0", "device_ip": '
        '"1.1.1.1", "rank_id": "0"}]}, {"device": [{"device_id": "0", "device_ip": "1.1.1.2", '
        '"rank_id": "1"}'
    )
    errors = rank_table.parse(cut).errors
    assert "server_list[0] has no server_id" in errors
    assert "server_list[1] has no server_id" not in errors


def test_a_templates_placeholder_addresses_are_said() -> None:
    name = "mindsdk600_rec_hccl_json_8p_placeholder_device_ips.json"
    table = rank_table.parse(_text(name))
    assert rank_table.placeholders(table) == [f"{{device_{i}_ip}}" for i in range(8)]
    said = [m.message for m in _load(name).files[0].messages]
    assert any(
        "device_ip of 8 device(s) is a placeholder ({device_0_ip}, {device_1_ip} ...)" in m
        for m in said
    )
    # (its server_id too: "{host_ip}")
    assert any("server_id {host_ip} is a template's placeholder" in m for m in said)


def test_an_older_torchs_tcpstore_bind_failure_is_the_store_port_taken() -> None:
    name = "mmdetection_issue2129_tcpstore_address_already_in_use_cut.log"
    (taken,) = _failures(name)
    assert (taken["kind"], taken["port"], taken["line"]) == ("store_bind_failure", None, 14)
    items = finding_items({"evidence.failures": [taken]}, "gloo")["evidence-store-port-taken"]
    assert items[0].startswith("a port the log does not name, Address already in use")
    # the same words with no TCPStore frame above them are not the store's
    text = 'Traceback (most recent call last):\n  File "x.py", line 1\nRuntimeError: Address already in use\n'
    (raised,) = logs.parse(text).events
    assert raised.kind == "python_exception" and raised.library is None


def test_a_python_exception_raised_inside_torch_distributed_says_so() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/x/torch/distributed/distributed_c10d.py", line 400, in init_process_group\n'
        "    store, rank, world_size = next(rendezvous(url))\n"
        "ValueError: Error initializing torch.distributed using env:// rendezvous\n"
    )
    (raised,) = logs.parse(text).events
    assert raised.library == "torch.distributed"
    assert raised.call == "torch/distributed/distributed_c10d.py, init_process_group"
    event = {k: getattr(raised, k) for k in ("kind", "message", "library", "call", "rank")}
    findings = finding_items(
        {"evidence.failures": [{**event, "source": "x.log", "line": 4}]}, "gloo"
    )
    assert "raised inside torch.distributed" in findings["evidence-python-exception"][0]


def test_rays_memory_monitor_killing_a_worker_is_read() -> None:
    name = "ray_issue28776_outofmemoryerror_worker_killed_memory_threshold.log"
    (killed,) = _failures(name)
    assert (killed["kind"], killed["exception_type"], killed["host"]) == (
        "launcher_exit",
        "Ray's memory monitor",
        "172.31.69.247",
    )
    assert (
        "used 54.86 GB of 57.60 GB (0.952354), over the memory usage threshold 0.95"
        in (killed["message"])
    )


def test_hcclss_tls_check_is_ei0016_not_ei0014() -> None:
    name = "hccl_doc_ei0016_tls_config_inconsistent_all_reduce_test.log"
    (check,) = _failures(name)
    assert (check["code"], check["code_name"]) == ("EI0016", "InitGroupStage/RanktableCheck")
    # the same keyword's duplicate superDeviceId stays EI0014 (the guide's same page)
    text = (
        "[ERROR] HCCL(169030,alltoall_test):2025-10-23-16:28:59.392.635 [topoinfo_exchange_agent"
        ".cc:695] [169030][InitGroupStage][RanktableCheck]devices have same superDeviceId"
        "[0x3000000] in superPod[super_pod_id_0].\n"
    )
    assert [e.code for e in logs.parse(text).events] == ["EI0014"]


def test_hccn_tool_outputs_a_document_cut_with_dots_are_partial() -> None:
    name = "hccl_doc_hccn_tool_tls_g_dev0_dev1_certs_2020_cut.txt"
    ev = _load(name)
    assert ev.files[0].status == "partial"
    assert [p["device"] for p in ev.npu_ports] == [0, 1]
    (note,) = ev.files[0].messages
    assert note.line == 27 and "left the outputs after this point out" in note.message


def test_an_npu_smi_table_kept_as_comments_with_its_words_and_dots_is_read_partial() -> None:
    name = "modelzoo_llama3_torchtitan_npu_smi_25_0_rc1_1_hash_commented_cut.txt"
    ev = _load(name)
    assert ev.files[0].status == "partial"
    ((chip),) = ev.npu_chips
    assert (chip["npu"], chip["name"], chip["hbm_used_mb"], chip["version"]) == (
        0,
        "DEVICE_NAME",
        44421,
        "25.0.rc1.1",
    )
    cut = [m.message for m in ev.files[0].messages if "closing border" in m.message]
    assert cut and "the copy left the rest out ('...')" in cut[0]
    # without the dots a table that ends on a row is cut off, as before
    assert (
        "cut off"
        in npu_smi.parse_info("\n".join(_text(name).replace("# ", "").splitlines()[:-1]))
        .warnings[-1]
        .message
    )


def test_srun_task_ranges_name_every_task() -> None:
    name = "parlai_slurm_nccl_invalid_argument_srun_tasks_exit_code_1.log"
    ended = [(e["rank"], e["host"]) for e in _failures(name) if e["kind"] == "launcher_exit"]
    assert ended == [
        *((t, "slurm-job-compute-0-0") for t in range(2, 8)),
        *((t, "slurm-job-compute-0-1") for t in (8, 9, 10, 11, 12, 13, 15, 14)),
    ]


def test_open_mpi_losing_a_nodes_daemon_names_that_node() -> None:
    name = "mpi_operator_launcher_orte_lost_remote_daemon_worker19.log"
    (lost,) = _failures(name)
    assert lost["kind"] == "launcher_exit" and lost["root_cause"]
    assert lost["host"] == "tf-bert-libnlp-token-lr-5e-6-fp32-1572827779-worker-19"
    assert "Remote daemon [[43015,0],20]" in lost["message"]


def test_ucx_error_completions_are_read_per_process() -> None:
    name = "ucx_issue9590_ib_mlx5_dci_transport_retry_count_exceeded_backtrace_cut.log"
    errors = [
        (e["kind"], e["host"], e["pid"], e["exception_type"], e["line"]) for e in _failures(name)
    ]
    what = "Transport retry count exceeded on mlx5_0:1/IB"
    # (each with the peer its QP dump on the next line names, set 664's reading)
    unacked = (
        ": no acknowledgement came back through all the HCA's retries, so that peer or the path "
        "to it stopped answering"
    )
    assert errors == [
        (
            "ucx_error",
            "lxbk1127",
            2330856,
            f"{what}, sending to LID 1037 (DCI QP 0xd16, line 2){unacked}",
            1,
        ),
        (
            "ucx_error",
            "lxbk1127",
            2330859,
            f"{what}, sending to LID 1037 (DCI QP 0xd1e, line 4){unacked}",
            3,
        ),
    ]
    items = finding_items({"evidence.failures": _failures(name)}, "nccl")["evidence-ucx-error"]
    assert items[0].startswith(f"lxbk1127 pid 2330856: {what}")


def test_deepep_timeouts_come_before_the_cuda_error_that_stopped_the_kernel() -> None:
    name = "deepep_issue274_nvl_receiver_timeout_epexception_unspecified_launch_failure_cut.log"
    failures = _failures(name)
    assert [(e["kind"], e["exception_type"]) for e in failures] == [
        ("deepep_timeout", "dispatch NVL receiver timeout"),
        ("cuda_error", "unspecified launch failure"),
    ]
    (cuda,) = [e for e in failures if e["kind"] == "cuda_error"]
    assert cuda["call"] == "/workspace/DeepEP/csrc/deep_ep.cpp:83" and cuda["host"] is None


def test_a_markdown_bold_cell_of_nccl_tests_is_read_as_its_number() -> None:
    name = "zenn_efa_gdrdma_allreduce_2x8_info_interleaved_bold_cell.log"
    (table,) = nccl_tests.parse(_text(name)).tables
    last = table.rows[-1]
    assert (last.size_bytes, last.out_of_place.busbw_gbytes_s) == (1073741824, 514.40)
    assert len(table.rows) == 28
    (note,) = [m for m in _load(name).files[0].messages if "'**'" in m.message]
    assert note.line == 170


def test_a_cann_code_after_a_literal_newline_escape_is_read() -> None:
    name = "vllm_ascend_4284_mineru_compose_setdevice_507033_err00100_e30006_json_detail_cut.log"
    codes = {(e["kind"], e["code"]) for e in _failures(name)}
    assert codes == {("npu_runtime_error", "507033"), ("hccl_error", "E30006")}


def test_an_nccl_error_a_page_wrapped_over_three_lines_is_joined() -> None:
    name = "lumi_small_g_ddp_ncclInternalError_reverse_path.log"
    (call,) = _failures(name)
    assert (call["code_name"], call["call"]) == (
        "ncclInternalError",
        "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1691",
    )
    assert (
        call["exception_type"]
        == "Failed to find reverse path from remNode 0/c1000 nlinks 4 to node 0/d9000"
    )


def test_srun_out_of_memory_is_the_first_end_and_the_terminated_tasks_follow() -> None:
    name = "lumi_fsdp_70b_srun_out_of_memory_cxi_busy.log"
    ended = [(e["rank"], e["exit_code"], e["root_cause"]) for e in _failures(name)]
    # slurmstepd's own account of its OOM killer first (line 1), then srun's per task
    assert ended == [
        (None, None, True), (0, None, True), (1, 143, False), (2, 143, False), (3, 143, False),
    ]  # fmt: skip
    items = finding_items({"evidence.failures": _failures(name)}, "gloo")["evidence-launcher-exit"]
    assert items[0].startswith(
        "slurmstepd (Slurm's OOM killer: 1 oom_kill event(s) in step 8538204.0)"
    )
    assert items[1].startswith(
        "srun (the task ran out of memory: Slurm's OOM killer): task/rank 0 on nid006024: srun:"
    )


def test_pals_start_failure_names_the_node() -> None:
    name = "alcf_polaris_all_gather_cxi_alloc_failed_acs_limits.log"
    (failed,) = _failures(name)
    assert (failed["kind"], failed["host"]) == ("launcher_exit", "x3006c0s1b1n0")
    assert failed["message"].endswith("CXI alloc failed on cxi0: request exceeds ACs limits")


def test_a_p2p_status_matrix_is_not_read_as_links() -> None:
    # read as what it is: each pair's P2P status, no link matrix
    ev = _load("nvidia_smi_topo_p2p_pcie_8gpu_all_ok_nccl_docs.txt")
    assert (ev.files[0].status, ev.files[0].formats) == ("read", ["nvidia_smi_p2p"])
    assert ev.topologies == []
    (matrix,) = ev.p2p
    assert len(matrix["devices"]) == 8 and matrix["not_ok"] == []


def test_dotted_x_placeholders_are_a_templates() -> None:
    table = rank_table.parse(_text("mindcluster_global_ranktable_a2_placeholder_example.json"))
    assert rank_table.placeholders(table) == ["xx.xx.xx.xx"]


def test_a_healthy_torch_npu_log_with_its_process_group_warnings_is_read() -> None:
    # a healthy run: no failure, but its process groups' warning that the watchdog (90 s) ends
    # a hang before HCCL's execution time-out (1836 s) can report it, once for every process
    ev = _load("ced_hccl8_torch_npu_allreduce_smoke_8ranks_ok_exit0.log")
    assert ev.files[0].status == "read"
    (warning,) = ev.failures
    assert (warning["kind"], warning["timeout_ms"]) == ("pg_timeout_warning", 90000)
    assert warning["exception_type"].startswith("watchdog 90 s, HCCL execution 1836 s (")


def test_pythons_fault_handler_is_the_runs_end() -> None:
    (crash,) = _failures("ced_pair_address139_host_mem_read_segfault_exit137.log")
    assert (crash["kind"], crash["exception_type"], crash["line"]) == (
        "python_exception",
        "Fatal Python error",
        26,
    )


def test_a_cann_code_with_a_digit_after_its_e_in_its_name_form_is_read() -> None:
    failures = _failures("ced_pair_host_set_device_507033_E39006_tsdopen_dev3.log")
    assert {(e["kind"], e["code"]) for e in failures} == {
        ("npu_runtime_error", "507033"),
        ("hccl_error", "E39006"),
    }


def test_the_hip_runtimes_error_comes_before_the_srun_abort() -> None:
    name = "olcf_frontier_hipErrorNoBinaryForGpu_amd_log_level_srun_aborted.log"
    failures = _failures(name)
    assert [(e["kind"], e["call"]) for e in failures] == [
        ("cuda_error", "hip_code_object.cpp:460"),
        ("launcher_exit", None),
    ]
    assert failures[0]["exception_type"].startswith("hipErrorNoBinaryForGpu: Unable to find code")


def test_ucx_loggers_error_lines_are_read_per_process_and_message() -> None:
    failures = _failures("dynamo_nixl_ucx_erdma_ud_qp_failed_segfault.log")
    assert [(e["kind"], e["host"], e["pid"]) for e in failures] == [
        ("ucx_error", "iZ0jl9w5uimuv06kvi1ehwZ", 23812),
        ("ucx_error", "iZ0jl9w5uimuv06kvi1ehwZ", 23812),
        # the segfault UCX's own signal handler caught after them (its process ended there)
        ("launcher_exit", "iZ0jl9w5uimuv06kvi1ehwZ", 23812),
    ]
    assert failures[0]["exception_type"].startswith(
        "erdma_0: iface 0x32ce7410 failed to create UD QP"
    )
    (refused,) = _failures("dynamo_ucx_sock_connect_refused_nixl_err_backend.log")
    assert (refused["host"], refused["pid"], refused["exception_type"]) == (
        "VM-195-16-centos",
        2808,
        "connect(fd=143, dest_addr=10.0.0.0:43833) failed: Connection refused",
    )


def test_server_ids_a_document_masked_alike_are_not_one_server() -> None:
    table = rank_table.parse(_text("mindspore_docs_rank_table_16pcs_masked_same_server_id.json"))
    assert table.errors == [] and len(table.ranks) == 16
    # two real ids alike are still one server listed twice
    doc = (
        '{"version": "1.0", "server_count": "2", "status": "completed", "server_list": ['
        '{"server_id": "10.0.0.1", "device": [{"device_id": "0", "device_ip": "1.1.1.1", "rank_id": "0"}]},'
        '{"server_id": "10.0.0.1", "device": [{"device_id": "0", "device_ip": "1.1.1.2", "rank_id": "1"}]}]}'
    )
    assert "server 10.0.0.1 appears 2 times in server_list" in rank_table.parse(doc).errors
