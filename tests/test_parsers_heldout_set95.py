"""Outputs the ninety-fifth to hundred-third held-out evaluations misread that this round reads:
a note beside an npu-smi topology row (no CPU affinity), a 2.0 rank table's addresses, hccn_tool's
TLS certificate statuses, ``-link_stat`` outputs in a saved collection, RoCE error counters,
nccl-tests processes that each ran alone, a run that failed after its table's header, HCCL's
socket layer giving up on a connected peer, EL0004's size from a newer runtime, the world rank
of a one-process HCCL plog, the runtime's ``ErrCode=`` line, and an EI0002 peer the log does
not name, and NCCL WARN lines of a fork that brackets its prefix.

Samples: ``tests/data/evidence_heldout_26/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from functools import partial

from advisor.evidence.load import detect, load_text
from advisor.parsers import hccn_tool, logs, nccl_tests, npu_smi, rank_table
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings, finding_items

HELDOUT = DATA / "evidence_heldout_26"


_text = partial(heldout.text, HELDOUT)


_load = partial(heldout.load, HELDOUT)


def test_a_note_beside_a_topology_row_is_no_cpu_affinity() -> None:
    name = "atlas800t_a3_blog_npu_smi_topo_phyid2_3_sio_annotated.txt"
    topo = npu_smi.parse_topo(_text(name))
    assert topo.devices == ["Phy-ID2", "Phy-ID3"] and topo.kinds() == {"SIO"}
    assert topo.cpu_affinity == {}
    (note,) = topo.warnings
    assert note.line == 2 and "no CPU affinity" in note.message and not note.skipped
    assert _load(name).files[0].status == "read"


def test_npu_topology_keeps_cpu_lists_and_na_as_affinity() -> None:
    text = (
        "        NPU0    NPU1    CPU Affinity\n"
        "NPU0    X       HCCS    0-23,48-71\n"
        "NPU1    HCCS    X       NA\n"
    )
    assert npu_smi.parse_topo(text).cpu_affinity == {"NPU0": "0-23,48-71", "NPU1": "NA"}


def test_rank_table_2_0_reads_each_ranks_address_from_its_level_list() -> None:
    name = "hcomm_example_rank_table_v20_2ranks_level_list.json"
    table = rank_table.parse(_text(name))
    assert (table.version, table.form, table.errors) == ("2.0", "rank_list", [])
    assert [(r.rank, r.device_id, r.device_ip) for r in table.ranks] == [
        (0, "0", "223.0.0.10"),
        (1, "1", "223.0.0.28"),
    ]


def test_tls_certificate_statuses_are_read_and_a_near_expiry_warns() -> None:
    name = "hccn_tool_ref_tls_g_dev0_certs_crl_near_expiration.txt"
    tls = hccn_tool.parse_tls(_text(name))
    assert [(c.name, c.status, c.status_text) for c in tls.certs] == [
        ("pub cert", 0, "normal"),
        ("ca1 cert", 0, "normal"),
        ("ca2 cert", 0, "normal"),
        ("crl", 1, "near expiration"),
    ]
    assert tls.certs[-1].end_time == "Mon Mar  2 03:10:27 2026 GMT"
    ev = _load(name)
    (port,) = ev.npu_ports
    assert [c["name"] for c in port["tls_alarms"]] == ["crl"]
    (line,) = finding_items({"evidence.npu_ports": ev.npu_ports})["evidence-npu-tls-cert-expiry"]
    assert "NPU 0 (TLS off): crl near expiration (ends Mon Mar" in line


def test_link_stat_in_a_collection_is_read_and_a_dropped_link_warns() -> None:
    name = "mindcluster_kgparse_dev0_stat_linkstat_fec_nethealth_socket_failed_optical.txt"
    ev = _load(name)
    (port,) = ev.npu_ports
    assert (port["device"], port["net_health"], port["link_up_count"]) == (0, "Socket failed", 2)
    assert [c["state"] for c in port["link_changes"]] == ["UP", "DOWN", "UP"]
    assert port["link_flapped"] is True and port["stat_errors"] == {}
    findings = builtin_findings({"evidence.npu_ports": ev.npu_ports})
    assert findings["evidence-npu-link-flaps"].severity == "warning"
    assert findings["evidence-npu-port-down"].severity == "critical"


def test_link_stat_of_eight_devices_saved_without_a_slash_or_final_newline() -> None:
    name = "mindcluster_worker0_before_linkstat_dev0-7_noslash_cmd_no_final_newline.txt"
    assert detect(_text(name)) == ["hccn_tool"]
    ports = _load(name).npu_ports
    assert [p["device"] for p in ports] == list(range(8))
    assert all(p["link_up_count"] == 2 and len(p["link_changes"]) == 3 for p in ports)
    assert all(p["link_changes"][0]["state"] == "UP" for p in ports)


def test_link_stat_saved_without_its_command_is_one_output() -> None:
    text = (
        "[devid 3]current time        : Wed Aug  2 03:09:26 2022\n"
        "[devid 3]link up count       : 1\n"
        "[devid 3]link change records :\n"
        "[devid 3]    Tue Aug  1 14:43:26 2022    LINK UP\n"
    )
    assert detect(text) == ["hccn_tool"]
    (port,) = hccn_tool.parse_bundle(text).ports
    assert (port.link_up_count, port.link_flapped) == (1, False)


def test_roce_error_counters_warn_per_port() -> None:
    name = "mindcluster_worker0_after_stat_dev0-7_roce_err_dev5_dev6.txt"
    ports = _load(name).npu_ports
    erring = {p["device"]: p["stat_errors"] for p in ports if p["stat_errors"]}
    assert erring == {
        5: {"roce_rx_err_pkt_num": 11, "roce_tx_err_pkt_num": 12},
        6: {"roce_rx_err_pkt_num": 13, "roce_tx_err_pkt_num": 77},
    }
    items = finding_items({"evidence.npu_ports": ports})["evidence-npu-roce-errors"]
    assert items[0].startswith("NPU 5: roce_rx_err_pkt_num 11, roce_tx_err_pkt_num 12")


def test_nccl_tests_processes_that_each_ran_alone_are_named() -> None:
    name = "nccl_tests_107_v100_2node_1250m_duplicate_headers_cut.log"
    log = nccl_tests.parse(_text(name))
    assert log.solo_hosts == ["ip-172-31-20-228", "ip-172-31-22-230"]
    (table,) = log.tables  # the second process's header is no table of its own
    assert table.rows == [] and table.max_bytes == 1310720000
    # the headers side by side are no "run stopped before its table, then another run"
    assert not [w for w in log.warnings if "next run" in w.message]
    ev = _load(name)
    assert ev.files[0].status == "partial"
    (bench,) = ev.benchmarks
    assert bench["solo_hosts"] == log.solo_hosts
    findings = builtin_findings({"evidence.benchmarks": ev.benchmarks}, "nccl")
    assert findings["evidence-nccl-tests-solo-runs"].severity == "warning"
    (cut,) = finding_items({"evidence.benchmarks": ev.benchmarks}, "nccl")[
        "evidence-benchmark-cut-short"
    ]
    assert "no size was measured" in cut and "?" not in cut


def test_a_sweep_of_two_host_runs_is_no_solo_run() -> None:
    def run(a: str, b: str) -> str:
        return (
            f"$ mpirun -np 2 -H {a},{b} ./all_reduce_perf -b 8 -e 8 -g 1\n"
            "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20\n"
            f"#  Rank  0 Group  0 Pid   1 on {a} device  0 [0x00] A100\n"
            f"#  Rank  1 Group  0 Pid   2 on {b} device  0 [0x00] A100\n"
            "#       size         count      type   redop    root     time   algbw   busbw #wrong"
            "     time   algbw   busbw #wrong\n"
            "           8             2     float     sum      -1    10.0    0.00    0.00      0"
            "    10.0    0.00    0.00      0\n"
            "# Avg bus bandwidth    : 0.00\n"
        )

    log = nccl_tests.parse(run("node-a", "node-b") + run("node-c", "node-d"))
    assert log.solo_hosts == [] and len(log.tables) == 2


def test_one_process_run_with_mpi_lists_its_ranks_and_is_no_solo_run() -> None:
    text = (
        "# nThread 1 nGpus 1 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 5 iters: 20\n"
        "#  Rank  0 Group  0 Pid   1 on node-a device  0 [0x00] A100\n"
        "#  Rank  1 Group  0 Pid   2 on node-b device  0 [0x00] A100\n"
        "#       size         count      type   redop    root     time   algbw   busbw #wrong"
        "     time   algbw   busbw #wrong\n"
        "           8             2     float     sum      -1    10.0    0.00    0.00      0"
        "    10.0    0.00    0.00      0\n"
        "# Avg bus bandwidth    : 0.00\n"
    )
    assert nccl_tests.parse(text).solo_hosts == []


def test_a_run_that_failed_after_its_tables_header_keeps_what_it_asked() -> None:
    name = "nccl_tests_allreduce_2x3090_stub_libcuda_test_nccl_failure.log"
    ev = _load(name)
    (report,) = ev.files
    assert report.status == "partial" and sorted(report.formats) == ["log", "nccl_tests"]
    (bench,) = ev.benchmarks
    assert (bench["ranks"], bench["max_bytes"], bench["results"]) == (2, 33554432, [])
    assert any("no result row follows" in m.message for m in report.messages)
    assert [f["kind"] for f in ev.failures if f["kind"] == "nccl_call_failure"]


def test_hccl_socket_layer_timeout_is_a_link_wait_with_its_result() -> None:
    name = "vllm_ascend_10061_a5_dsv4_pp4_hccl_plog_rasocket_recv_timeout_5000013.log"
    (ev,) = [e for e in logs.parse(_text(name)).events if e.kind == "hccl_link_timeout"]
    assert (ev.line, ev.pid) == (1, 747048)
    assert ev.exception_type == "socket recv timed out (connected, nothing came), 0 of 8 bytes"
    assert (ev.code, ev.code_name) == ("19", "HCCL_E_NETWORK")
    (line,) = finding_items({"evidence.failures": _load(name).failures})[
        "evidence-hccl-link-wait-timeout"
    ]
    assert line.startswith("A rank the log does not name waited for its peers")


def test_el0004_takes_its_size_from_a_newer_runtimes_traceback() -> None:
    name = "vllm_ascend_3141_moe_dispatch_el0004_hcclalloccomresource_ret2_device7.log"
    (oom,) = [e for e in logs.parse(_text(name)).events if e.kind == "device_oom"]
    assert oom.exception_type == "tried to allocate 2147483648 B"
    items = finding_items({"evidence.failures": _load(name).failures})
    assert not [i for i in items["evidence-device-out-of-memory"] if "None" in i]


def test_a_one_process_plog_gives_its_world_rank_to_events_that_name_none() -> None:
    socket = logs.parse(_text("mindspore_cann_ei0006_resnet8p_rank1_distribute_task_failed.log"))
    (ei0006,) = [e for e in socket.events if e.code == "EI0006"]
    assert (ei0006.rank, ei0006.rank_size) == (1, 8)
    init = logs.parse(_text("mindspore_cann_ej0001_hccl_plog_errno_hcom_init_failed_rank0.log"))
    (call,) = [e for e in init.events if e.kind == "hccl_call_failure"]
    assert (call.rank, call.device) == (0, 0)
    # two processes' lines in one file: no rank is given
    two = (
        "[hccl-1-0-1-hccl_world_group][0]hcom destroy complete,take time [1]us, rankNum[2], rank[0]\n"
        "[hccl-2-0-1-hccl_world_group][1]hcom destroy complete,take time [1]us, rankNum[2], rank[1]\n"
        "EI0006: Getting socket times out.\n"
    )
    assert [e.rank for e in logs.parse(two).events if e.code == "EI0006"] == [None]


def test_the_runtimes_own_errcode_line_is_a_failed_runtime_call() -> None:
    name = "mindspore_cann_ee9999_hccl_notify_task_fail_8p_rank0.log"
    (ev,) = [e for e in logs.parse(_text(name)).events if e.kind == "npu_runtime_error"]
    assert (ev.call, ev.code, ev.code_name, ev.rank) == (
        "rtStreamSynchronize",
        "507011",
        "ACL_ERROR_RT_MODEL_EXECUTE",
        0,
    )


def test_an_ei0002_peer_the_log_does_not_name_is_said_in_words() -> None:
    name = "vllm_ascend_1443_qwen32b_tp8_pp3_synchronize_507048_ei0002_remote_unknown_cut.log"
    (line,) = finding_items({"evidence.failures": _load(name).failures})[
        "evidence-hccl-exec-timeout"
    ]
    assert "for a peer the log does not name" in line and "rank ?" not in line


def test_nccl_warn_lines_in_a_forks_bracketed_prefix_are_read() -> None:
    name = "openrlhf_795_two_node_accl_nccl_warn_init_group_traceback_cut.log"
    assert detect(_text(name)) == ["log"]
    warns = [e for e in logs.parse(_text(name)).events if e.kind == "nccl_warning"]
    assert [(e.line, e.host, e.pid, e.device, e.message) for e in warns] == [
        (1, "dlc1f0bnd3uip696-master-0", 16101, 0, "init.cc:1815 -> 5"),
        (4, "dlc1f0bnd3uip696-master-0", 16101, 0, "group.cc:585 -> 3"),
        (6, "dlc1f0bnd3uip696-master-0", 16101, 0, "init.cc:2103 -> 3"),
    ]


def test_a_traceback_code_line_after_two_spaces_is_the_headings_event_with_its_device() -> None:
    name = "llamafactory_5347_ds_zero3_ee9999_hccl_fftsplus_timeout_dev7_dev5.log"
    coded = [e for e in logs.parse(_text(name)).events if e.code == "EE9999"]
    # each "EE9999: Inner Error!" heading joins the line with the facts: one event a device
    assert [(e.line, e.device) for e in coded] == [(3, 7), (16, 5)]
    assert all("hccl fftsplus timeout" in e.message for e in coded)


def test_a_global_table_cut_inside_a_group_is_read_as_cut_with_its_service_group() -> None:
    name = "vllm_ascend_pr684_quoted_pd_ranktable_server_group_list_v10_cut.txt"
    ev = _load(name)
    (report,) = ev.files
    assert report.status == "partial"
    (table,) = ev.rank_tables
    # the cut outer table, not group 0's object inside it; group 0 is a pod without an NPU
    assert (table["cut"], table["groups"], table["errors"]) == (True, ["0", "1"], [])
    assert [(r["group_id"], r["device_ip"]) for r in table["ranks"]] == [("1", "172.22.17.1")]


def test_a_group_server_without_server_ip_and_devices_is_still_an_error() -> None:
    text = (
        '{"version": "1.0", "status": "completed", "server_group_list": ['
        '{"group_id": "2", "server_count": "1", "server_list": [{"server_id": "a"}]}]}'
    )
    assert rank_table.parse(text).errors == ["group 2: server a lists no device"]


def test_a_finished_table_without_its_small_sizes_is_partial() -> None:
    name = "oci_mi355x_rccl_all_reduce_1x8_rows_elided.log"
    log = nccl_tests.parse(_text(name))
    (table,) = log.tables
    assert table.complete and [r.size_bytes for r in table.rows] == [8589934592, 17179869184]
    (note,) = [w for w in log.warnings if "sizes its header asked" in w.message]
    assert note.line == 17 and "2 of the 16 sizes" in note.message
    assert "below 8589934592 B" in note.message
    assert _load(name).files[0].status == "partial"


def test_hcclgroupend_outside_a_group_is_a_failed_call_with_hcomms_result() -> None:
    name = "msswift_megatron_grpo_pp_hcclgroupend_core_error.log"
    assert detect(_text(name)) == ["log"]
    (ev,) = logs.parse(_text(name)).events
    assert (ev.kind, ev.call, ev.code, ev.code_name) == (
        "hccl_call_failure",
        "HcclGroupEnd",
        "5",
        "HCCL_E_NOT_SUPPORT",
    )


def test_cann_inner_error_lines_without_their_code_are_one_failure() -> None:
    name = "sglang_910b3_opcompile_init_failed_tail.log"
    assert detect(_text(name)) == ["log"]
    (ev,) = logs.parse(_text(name)).events
    assert (ev.kind, ev.code, ev.line) == ("hccl_error", None, 1)
    assert ev.message == "[Init][Compiler]Init compiler failed (and 1 more such line(s))"
    # with its code in the log, the code's own event reads these lines: no second event
    coded = "EZ9999: Inner Error!\nEZ9999  Init failed.\n" + _text(name)
    assert [e.code for e in logs.parse(coded).events] == ["EZ9999"]


def test_a_down_record_before_the_first_up_is_no_drop() -> None:
    text = (
        "[devid 2]link up count       : 1\n"
        "[devid 2]link down count     : 1\n"
        "[devid 2]link change records :\n"
        "[devid 2]    Tue Aug  1 14:43:26 2022    LINK UP\n"
        "[devid 2]    Tue Aug  1 14:43:20 2022    LINK DOWN\n"
    )
    (port,) = hccn_tool.parse_bundle(text).ports
    assert (port.device, port.link_flapped) == (2, False)


def test_roce_error_counters_are_the_roce_ones_only() -> None:
    text = "packet statistics:\nroce_rx_err_pkt_num:0\nroce_qp_status_err_num:3\nmac_rx_err_num:9\n"
    (port,) = hccn_tool.parse_bundle(text).ports
    assert port.stat_errors == {"roce_qp_status_err_num": 3}


def test_a_code_like_word_inside_a_line_is_no_cann_code() -> None:
    text = "[INFO] Disk model ES3000  v5 nvme0n1 ready\nEE9999  fftsplus task execute failed\n"
    assert [e.code for e in logs.parse(text).events] == ["EE9999"]


def test_a_world_rank_is_not_given_to_another_processs_events() -> None:
    text = (
        "[TRACE] HCCL(1000,python):2022 [hcom.cc:264][hccl-1000-0-1-hccl_world_group][0]hcom "
        "destroy complete,take time [1]us, rankNum[8], rank[0]\n"
        "[ERROR] HCCL(2000,python):2026 [a.cc:621][2000][Recv][RaSocket]errNo[0x0000000005000013] "
        "Wait timeout for sockets recv, data[0x1], size[8], recvSize[0], fdHandle[0x1], ret[1]\n"
    )
    (ev,) = logs.parse(text).events
    assert (ev.pid, ev.rank) == (2000, None)


def test_a_rank_list_whose_levels_are_not_lists_is_an_error_not_a_crash() -> None:
    text = '{"version": "2.0", "status": "completed", "rank_count": 1, "rank_list": [{"rank_id": 0, "device_id": 0, "level_list": 5}]}'
    assert rank_table.parse(text).errors == ["rank_list[0] level_list is not a list"]
    text = '{"version": "2.0", "status": "completed", "rank_count": 1, "rank_list": [{"rank_id": 0, "device_id": 0, "level_list": [{"net_layer": 0, "rank_addr_list": 7}]}]}'
    assert rank_table.parse(text).errors == ["rank_list[0] rank_addr_list is not a list"]


def test_a_cut_json_line_of_a_log_does_not_hide_a_whole_rank_table_after_it() -> None:
    table = (
        '{\n  "version": "1.0", "status": "completed", "server_count": "1",\n'
        '  "server_list": [{"server_id": "10.0.0.1", "device": [{"device_id": "0", '
        '"device_ip": "192.168.1.1", "rank_id": "0"}]}]\n}\n'
    )
    text = '[INFO] start\n{"event": "init", "cfg": {"a": 1, "b": [1, 2\n[INFO] loading\n' + table
    facts = load_text(text, "train.log")
    assert facts.files[0].status == "read"
    (read,) = facts.rank_tables
    assert (read["status"], read["cut"], read["servers"]) == ("completed", False, ["10.0.0.1"])
