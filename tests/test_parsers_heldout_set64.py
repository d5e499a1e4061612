"""Outputs the sixty-fourth to sixty-seventh held-out evaluations misread that this round reads:
nccl-tests tables whose log never names its binary (the op read from the table's own cells),
a build's ``Compiling``/``Linking`` lines before the run (they name every binary, not the run's),
rows NCCL's debug lines were printed into (joined from their pieces), torch's ``Timeout at NCCL
work: N`` line alone, and the hosts of some ranks only (no cluster shape from them).

Samples: ``tests/data/evidence_heldout_24/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from functools import partial

from advisor.evidence.load import EvidenceFacts, detect
from advisor.parsers import ParseError, nccl_tests
from advisor.parsers.nccl_tests import Row, Table, Timing
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_24"


_load = partial(heldout.load, HELDOUT)


def _notes(ev: EvidenceFacts) -> list[str]:
    (report,) = ev.files
    return [m.message for m in report.messages]


# ---------------------------------------------------- the op from the table's cells


def test_all_gather_read_from_size_against_count_and_checked_in_place_column() -> None:
    # redop none, root -1, 256 B of float over 4 elements: 16 ranks' worth, in-place checked
    ev = _load("nccl_tests_allgather_sophia_2x8_zero_sizes.log")
    assert ev.files[0].status == "read"
    (bench,) = ev.benchmarks
    assert (bench["op"], bench["op_from"], bench["ranks"]) == ("all_gather", "columns", 16)
    assert bench["hosts"] == ["sophia-gpu-04", "sophia-gpu-09"] and bench["complete"]
    assert {r["op"] for r in bench["results"]} == {"all_gather"}
    # the import says where the op came from, as a note (every line was read)
    assert any("never names its binary: op all_gather" in n for n in _notes(ev))
    assert [(s["nodes"], s["per_node"]) for s in ev.shapes] == [(2, 8)]


def test_all_to_all_read_from_its_unchecked_in_place_column() -> None:
    # alltoall sets reportErrors only out of place: its in-place #wrong is N/A in every row
    ev = _load("nccl_tests_alltoall_polaris_2x4.log")
    (bench,) = ev.benchmarks
    assert (bench["op"], bench["op_from"], bench["ranks"]) == ("all_to_all", "columns", 8)
    assert ev.files[0].status == "read"


def test_all_reduce_read_from_its_cells_after_400_nccl_info_lines() -> None:
    ev = _load("nccl_tests_allreduce_perlmutter_2x4_shifter_info.log")
    (bench,) = ev.benchmarks
    assert (bench["op"], bench["op_from"], bench["ranks"]) == ("all_reduce", "columns", 8)
    assert bench["complete"] and bench["dtype"] == "float32"


def test_build_lines_name_no_run_so_the_cells_name_the_op() -> None:
    # "Linking ... > .../hypercube_perf" was the last binary named before the table
    text = (HELDOUT / "nccl_tests_allreduce_perlmutter_build_then_run.log").read_text()
    assert "hypercube_perf" in text
    log = nccl_tests.parse(text)
    (table,) = log.tables
    assert table.op == "unknown" and table.op_from_columns == "all_reduce"
    (bench,) = _load("nccl_tests_allreduce_perlmutter_build_then_run.log").benchmarks
    assert (bench["op"], bench["op_from"]) == ("all_reduce", "columns")


def _table(redop: str, root: int, size: int, count: int, in_place_wrong: str) -> Table:
    def timing(wrong: str, busbw: float) -> Timing:
        return Timing(
            time_us=100.0,
            algbw_gbytes_s=10.0,
            busbw_gbytes_s=busbw,
            wrong=None if wrong == "N/A" else int(wrong),
        )

    row = Row(
        line=1,
        size_bytes=size,
        count=count,
        dtype="float32",
        redop=redop,
        root=root,
        out_of_place=timing("0" if in_place_wrong != "both N/A" else "N/A", 17.5),
        in_place=timing("N/A" if "N/A" in in_place_wrong else in_place_wrong, 17.5),
    )
    return Table(op="unknown", header_line=1, rows=[row])


def test_op_from_columns_rules_and_what_they_cannot_tell() -> None:
    infer = nccl_tests.op_from_columns
    assert infer(_table("sum", -1, 4096, 1024, "0"), 8) == "all_reduce"
    assert infer(_table("sum", -1, 4096, 128, "0"), 8) == "reduce_scatter"
    assert infer(_table("sum", -1, 4096, 1024, "N/A"), 8) == "send_recv"
    assert infer(_table("none", 0, 4096, 1024, "0"), 8) == "broadcast"
    assert infer(_table("sum", 0, 4096, 1024, "0"), 8) == "reduce"
    # gather and scatter print the same cells: not told apart
    assert infer(_table("none", 0, 4096, 128, "0"), 8) is None
    # size against count must be 1 or the ranks: 4 of 8 is no op's
    assert infer(_table("none", -1, 4096, 256, "0"), 8) is None
    # validation off (-c 0): busbw/algbw = 1.75 = 2(n-1)/n for 8 ranks is all_reduce's
    assert infer(_table("sum", -1, 4096, 1024, "both N/A"), 8) == "all_reduce"
    # ... and nothing tells all_gather from alltoall then
    assert infer(_table("none", -1, 4096, 512, "both N/A"), 8) is None


def test_columns_never_contradict_an_op_the_log_names() -> None:
    # every nccl-tests sample kept here whose log names its binary: the cells agree or say nothing
    agree = 0
    for path in sorted(DATA.rglob("*.log")):
        text = path.read_text(errors="replace")
        if "nccl_tests" not in detect(text):
            continue
        try:
            log = nccl_tests.parse(text)
        except ParseError:
            continue
        for table in log.tables:
            if table.op == "unknown" or not table.rows:
                continue
            implied = nccl_tests.op_from_columns(table, log.ranks)
            assert implied in (None, table.op), (path.name, table.op, implied)
            agree += implied == table.op
    assert agree >= 4


# ------------------------------------------------ rows NCCL's debug lines cut apart


def test_rows_split_by_nccl_debug_lines_are_joined_from_their_pieces() -> None:
    name = "nccl_tests_allreduce_perlmutter_interleaved_debug_subsys.log"
    ev = _load(name)
    # every cell was read: the file is read whole, with a note of what was joined
    assert ev.files[0].status == "read" and ev.files[0].formats == ["nccl_tests"]
    assert any("30 row(s) NCCL's debug lines were printed into" in n for n in _notes(ev))
    (bench,) = ev.benchmarks
    assert bench["complete"] and bench["ranks"] == 8 and bench["op"] == "all_reduce"
    assert (bench["min_bytes"], bench["max_bytes"]) == (8, 4294967296)
    first = [r for r in bench["results"] if r["bytes"] == 8]
    assert [(r["in_place"], r["time_us_p50"]) for r in first] == [(False, 22.18), (True, 19.17)]
    assert len(bench["results"]) == 60
    assert bench["hosts"] == ["nid001049", "nid001052"]
    assert [(s["nodes"], s["per_node"]) for s in ev.shapes] == [(2, 4)]


def test_a_row_whose_pieces_never_come_is_still_reported_where_it_stands() -> None:
    row = "           8             2     float     sum      -1"
    glued = "nid001049:658566:658566 [0] NCCL INFO AllReduce: 8 Bytes -> Algo 0 proto 0"
    header = (
        "#       size         count      type   redop    root     time   algbw   busbw #wrong"
        "     time   algbw   busbw #wrong"
    )
    good = (
        "          16             4     float     sum      -1    19.23    0.00    0.00      0"
        "    19.11    0.00    0.00      0"
    )
    # a debug line, then the next row: the cut row's groups never came
    log = nccl_tests.parse(f"{header}\n{row}{glued}\n{glued}\n{good}\n")
    assert [r.size_bytes for r in log.tables[0].rows] == [16]
    cut = log.warnings[0]
    assert cut.line == 2 and cut.skipped and "NCCL log line printed into it" in cut.message


# ------------------------------------------------------------------ the rest


def test_timeout_at_nccl_work_alone_is_the_ranks_time_out() -> None:
    # torch logs it only inside ``if (timedOut)``; the WorkNCCL(...) line is not in the copy
    ev = _load("funasr_nccl_service_thread_timeout_rank11_of16.log")
    assert ev.files[0].status == "read"
    (event,) = ev.failures
    assert event["kind"] == "watchdog_timeout" and event["library"] == "NCCL"
    assert (event["rank"], event["seq"], event["group"]) == (11, 15734, "1")
    assert (event["last_enqueued"], event["last_completed"]) == (15735, 15733)
    assert event["op"] is None  # the line names no op


def test_hosts_of_some_ranks_only_state_no_cluster_shape() -> None:
    # NCCL's "rank 7 nranks 16" debug line on one host: 16 ranks, not 16 on that host
    ev = _load("nccl_tests_allreduce_efa_p4d_cutoff_no_header.log")
    (bench,) = ev.benchmarks
    assert bench["ranks"] == 16 and bench["hosts"] == ["ip-172-31-13-103"]
    assert not bench["hosts_complete"] and ev.shapes == []
    assert bench["peak_busbw_gbps"] == 33.93 * 8


# --------------------------------------------------------- sets 68-71 and two older misses


def test_an_hccl_plog_with_no_failure_is_a_runs_log() -> None:
    # three [INFO] HCCL(...) lines after their plog file names: read, nothing failed
    ev = _load("hccl_entry_commInitRootInfo_run_plog_no_failure.log")
    assert (ev.files[0].status, ev.files[0].formats) == ("read", ["log"])
    assert ev.failures == [] and ev.shapes == []


def test_another_vendors_look_alike_table_is_no_nccl_tests_log() -> None:
    # nccom-test's rows match nccl-tests' row shape; its own header says whose they are
    ev = _load("neuron_nccom_test_allr_2rank.log")
    assert ev.files[0].status == "unknown" and ev.benchmarks == []


def test_npu_smi_answering_that_the_device_has_no_topology_query() -> None:
    ev = _load("npu_smi_topo_unsupported_atlas200ia2_doc.txt")
    assert (ev.files[0].status, ev.files[0].formats) == ("read", ["npu_smi_topo"])
    assert ev.topologies == []
    assert any("does not support querying its topology" in n for n in _notes(ev))


def test_a_forks_header_line_still_names_the_sizes_asked() -> None:
    # "# nGpus(perProc) 1 minBytes 1 maxBytes 1073741824 step: 2(factor) ..."
    ev = _load("nccl_tests_allreduce_bf16_16rank_wrapper_garbled_row.log")
    (bench,) = ev.benchmarks
    assert (bench["min_bytes"], bench["max_bytes"], bench["dtype"]) == (1, 1073741824, "bfloat16")
    assert (bench["op"], bench["ranks"], bench["complete"]) == ("all_reduce", 16, True)
    # the row left without its first cells is said where it stands; two of 16 rank lines: no shape
    assert ev.files[0].status == "partial" and ev.shapes == []
    assert 17 in [m.line for m in ev.files[0].messages]


def test_hccn_conf_values_with_spaces_are_read() -> None:
    ev = _load("hccn_conf_16npu_arp_entries.conf")
    assert ev.files[0].status == "read" and len(ev.hccn_conf) == 16
    first = ev.hccn_conf[0]
    assert first["device"] == 0 and first["address"] == "127.0.0.24"
    assert first["settings"]["arp"] == "-i eth0 -s 127.0.0.114 bc:1e:85:d8:ca:dd"


def test_nccl_lines_of_a_host_whose_name_starts_with_a_digit_are_not_rows() -> None:
    # the container's name 3767c65d25c4 starts every NCCL INFO line between header and rows
    ev = _load("nccl_tests_sendrecv_1node_2gpu_a100_indented.log")
    assert ev.files[0].status == "read"
    # the page's indent of the whole block is said, and what NCCL's own start lines say (its
    # network on this host: sockets, no RDMA device), none of them a row
    said = [m.message for m in ev.files[0].messages]
    assert said[-1] == "the indent every line shares (4 character(s)) taken off"
    assert said[0].startswith(
        "log: 3767c65d25c4: NCCL found no InfiniBand/RoCE device and uses TCP sockets"
    )
    (bench,) = ev.benchmarks
    assert (bench["op"], bench["ranks"], bench["complete"]) == ("send_recv", 2, True)


def test_each_run_that_stopped_before_its_table_keeps_its_own_op() -> None:
    # alltoall_perf and then sendrecv_perf, both failing at init: two runs, not one sendrecv
    ev = _load("nccl_tests_pairwise_2x8_remote_exited_at_init.log")
    assert [(b["op"], b["ranks"], b["complete"]) for b in ev.benchmarks] == [
        ("all_to_all", 16, False),
        ("send_recv", 16, False),
    ]
    said = {m.line: m.message for m in ev.files[0].messages}
    assert "the next run's header line (line 40)" in said[3]
    # (its failure lines follow its header line: it stopped there, the copy is not cut)
    assert "the run stopped before its first size" in said[40]
    assert said[40].endswith("its failure follows its header line (line 59)")
    # each of the 8 processes of each run failed, named by its pid on the line under its
    # failure: 16 failures, none folded into another of its host
    assert {f["kind"] for f in ev.failures} == {"nccl_call_failure"}
    assert len({f["pid"] for f in ev.failures}) == len(ev.failures) == 16
    assert {f["host"] for f in ev.failures} == {"cnode2-016"}


def test_the_sizes_a_command_line_asks_stand_in_for_a_lost_header_line() -> None:
    # "all_gather_perf -b 8 -e 1G -f 2": 8 B to 1 GiB by factors of 2; no "# nThread" line
    ev = _load("nccl_tests_allgather_2node_roce_funcprefix.log")
    (bench,) = ev.benchmarks
    assert (bench["min_bytes"], bench["max_bytes"], bench["sizes_asked"]) == (8, 2**30, 28)
    assert bench["op"] == "all_gather" and not bench["complete"]
    # its rows reach 1 GiB: the footer is what the copy lost, not sizes of the run
    (end,) = [m.message for m in ev.files[0].messages if "footer" in m.message]
    assert "reach the last size asked (1073741824 B)" in end and "cut short" not in end


def test_sizes_in_command_follow_nccl_tests_options() -> None:
    sizes = nccl_tests._sizes_in_command
    assert sizes("./all_reduce_perf -b 8 -e 128M -f 2 -g 8") == (8, 128 * 2**20, 2, None)
    assert sizes("all_reduce_perf --minbytes=1K --maxbytes 4G") == (1024, 4 * 2**30, None, 2**20)
    # one bound named: the other is nccl-tests' default 32M
    assert sizes("all_gather_perf -e 1G -i 1048576") == (32 * 2**20, 2**30, None, 2**20)
    assert sizes("all_gather_perf -g 8") is None


# ------------------------------------------------------------- sets 72-75: launchers and CUDA


def test_open_mpi_daemon_that_never_started_is_a_failed_launch_with_its_cause() -> None:
    ev = _load("hccl_test_mpirun_orted_not_found_zh.log")
    assert ev.files[0].status == "read"
    (event,) = ev.failures
    assert (event["kind"], event["exit_code"], event["pid"]) == ("launch_failed", 127, 8793)
    assert event["exception_type"].startswith("mpirun could not start its daemon on a node (127")
    assert event["root_cause"]
    # the shell's reason above Open MPI's dashed rule goes with it
    assert "orted" in event["message"]


def test_mpirun_noticing_a_killed_rank_names_the_rank_and_signal() -> None:
    ev = _load("aware_history_mpirun_rank1_signal9_killed.log")
    (event,) = ev.failures
    assert (event["kind"], event["rank"], event["exit_code"]) == ("launcher_exit", 1, -9)
    # the poster masked PID and node: neither is invented
    assert event["pid"] is None and event["host"] is None


def test_an_agent_that_could_not_shut_its_rendezvous_down_lost_the_store() -> None:
    # a warning at the job's end: the store had gone, the rendezvous had formed long before
    ev = _load("chinese_llama_alpaca2_rdzv_shutdown_connection_reset.log")
    assert ev.files[0].status == "read"
    (event,) = ev.failures
    # (the store call's own failure and where the exception went, said since round RRRR's set 696)
    assert (event["kind"], event["exception_type"]) == (
        "store_lost",
        "RendezvousConnectionError (the c10d store call failed: RuntimeError: Connection reset by "
        "peer, line 12); the exception went up to torchrun's main (line 17)",
    )


def test_time_stamp_before_torchruns_rank_tag_and_the_older_oom_wording() -> None:
    (oom,) = _load("qwen3_coder_rank3_cuda_oom_timestamped.log").failures
    assert (oom["kind"], oom["rank"], oom["device"]) == ("device_oom", 3, 3)
    (oom,) = _load("mgfn_cuda_oom_gpu0_single_process.log").failures
    assert (oom["kind"], oom["rank"], oom["device"]) == ("device_oom", None, 0)


def test_a_cuda_failure_printed_into_the_first_row_keeps_the_run_and_names_the_error() -> None:
    ev = _load("nccl_tests_alltoall_h800_16rank_illegal_memory_access_cut.log")
    assert ev.files[0].status == "partial"
    (bench,) = ev.benchmarks
    assert (bench["op"], bench["ranks"], bench["complete"], bench["results"]) == (
        "all_to_all",
        16,
        False,
        [],
    )
    assert [(s["nodes"], s["per_node"]) for s in ev.shapes] == [(2, 8)]
    said = [m.message for m in ev.files[0].messages]
    assert any("the test's failure is printed into it" in m for m in said)
    assert any("the run stopped in its first size" in m for m in said)
    (cuda,) = ev.failures
    assert (cuda["kind"], cuda["host"], cuda["call"]) == ("cuda_error", "node0", "common.cu:389")
    assert cuda["exception_type"] == "an illegal memory access was encountered"
    finding = builtin_findings({"evidence.failures": ev.failures}, "nccl")["evidence-cuda-error"]
    assert finding.severity == "critical"
    (item,) = [str(i) for i in finding.items]
    # each failed process with the pid of its "Test failure" line (round OOOO set 677's reading)
    assert "node0 pid 62767: 'an illegal memory access was encountered' at common.cu:389" in item


def test_hccn_tool_arp_table_and_its_unanswered_neighbours() -> None:
    ev = _load("hccn_tool_arp_g_atlas02_incomplete_entries.txt")
    assert (ev.files[0].status, ev.files[0].formats) == ("read", ["hccn_tool"])
    (port,) = ev.npu_ports
    assert port["device"] == 0 and len(port["arp"]) == 11
    assert port["arp"][0] == {
        "address": "192.168.3.193",
        "mac": "10:1b:54:92:ed:06",
        "iface": "end2v1",
    }
    unanswered = [a["address"] for a in port["arp"] if a["mac"] is None]
    assert unanswered == ["192.168.1.11", "192.168.1.111", "192.168.1.1"]


def test_torchs_should_dump_flag_line_is_a_lost_store() -> None:
    # torch's own form ("should dump" in quotes) had been read only in torch_npu's wording
    (lost,) = _load("minimax_m1_should_dump_tcpstore_broken_pipe_rank7.log").failures
    assert (lost["kind"], lost["rank"], lost["exception_type"]) == ("store_lost", 7, "Broken pipe")
    failures = _load("gpustack_vllm_mp_should_dump_recv_0_bytes_rank3.log").failures
    lost = next(f for f in failures if f["kind"] == "store_lost")
    assert lost["rank"] == 3 and lost["exception_type"].startswith("Failed to recv, got 0 bytes")


def test_libuv_store_fields_wrapped_inside_a_word() -> None:
    (bind,) = _load("ascend_sglang_distnetworkerror_eaddrinuse_wrapped_42173.log").failures
    assert (bind["kind"], bind["port"]) == ("store_bind_failure", 42173)
    assert bind["exception_type"] == "errno 98 EADDRINUSE: address already in use"


# --------------------------------------------------------------------------- sets 78-79


def test_store_connect_failure_with_the_host_unbracketed() -> None:
    (fail,) = _load("colossalai_examples_207_client_socket_connect_timeout.txt").failures
    assert (fail["kind"], fail["host"], fail["port"]) == (
        "store_connect_failure",
        "hcp-bb-03",
        52873,
    )
    assert fail["exception_type"] == "error 110: Connection timed out"


def test_nccl_warn_lines_that_lost_their_host_prefix_behind_a_source_path() -> None:
    ev = _load("visualglm_270_nccl_warn_cuda_library_not_found.txt")
    assert ev.files[0].status == "read"
    assert [f["kind"] for f in ev.failures] == ["nccl_warning", "nccl_warning"]
    assert "/usr/local/cuda-12.0" in ev.failures[1]["message"]


def test_a_table_without_the_root_column_is_all_reduce_only_by_its_bus_factor() -> None:
    # busbw / algbw = 2(n-1)/n > 1 on every large row: all_reduce's; reduce's would be 1
    ev = _load("deepops_k8s_sriov_roce_allreduce.log")
    (bench,) = ev.benchmarks
    assert (bench["op"], bench["op_from"]) == ("all_reduce", "columns")
    assert bench["peak_busbw_gbps"] == 22.92 * 8
    table = nccl_tests.parse((HELDOUT / "deepops_k8s_sriov_roce_allreduce.log").read_text()).tables[
        0
    ]
    assert all(row.root is None for row in table.rows)
