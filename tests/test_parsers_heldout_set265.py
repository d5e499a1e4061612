"""Outputs of this stop's held-out evaluations (tests/data/evidence_heldout_44, sources in
tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial

from advisor.evidence.load import load_text
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import finding_items

HELDOUT = DATA / "evidence_heldout_44"


_load = partial(heldout.load, HELDOUT)


def test_ei0006s_detected_peers_are_its_link() -> None:
    # HCCL's connection fault detection gives EI0006's reason on the lines after its code: the
    # source end and each destination server's devices (IPv6 server ids here)
    ev = _load("vllm_ascend_ei0006_ipv6_srcrank_dstrank_moe_dispatch_v4_561000_rank18_cut.txt")
    (ei0006,) = [f for f in ev.failures if f["code"] == "EI0006"]
    assert (ei0006["device"], ei0006["remote_ip"]) == (2, "2605:340:cd51:7702:bbee:9ccb:ec00:6164")
    assert ei0006["message"].endswith(
        "fails to connect to dstRank (server 2605:340:cd51:7702:bbee:9ccb:ec00:6164, device ID 10),"
        " (server 2605:340:cd51:7702:bbee:9ccb:ec00:6164, device ID 12)"
    )
    (item,) = finding_items({"evidence.failures": ev.failures})["evidence-hccl-socket-timeout"]
    assert "(device 2), its link to 2605:340:cd51:7702:bbee:9ccb:ec00:6164:" in item


def test_a_grep_over_two_plogs_keeps_each_processs_failed_kernel() -> None:
    ev = _load("cann_plog_grep_runtime_aiv_all_gather_kernel_fail_dev8_dev5_vllm_ascend_cut.txt")
    said = [(f["line"], f["pid"], f["device"], f["library"]) for f in ev.failures]
    assert said == [(1, 1769, 8, "RUNTIME"), (3, 1429, 5, "RUNTIME")]
    # (from the plog's level on: grep's file name is no part of the message)
    assert ev.failures[0]["message"].startswith("[davinci_kernel_task.cc:1639]")
    assert "fault kernel_name=aiv_all_gather_bfloat16_t" in ev.failures[1]["message"]


def test_one_servers_entry_with_no_addresses_is_an_invalid_table() -> None:
    ev = _load("ranktable_v1.0_fragment_device_ip_dashes_8dev_cut.json")
    (table,) = ev.rank_tables
    assert (table["server_entry"], len(table["ranks"])) == (True, 8)
    assert table["errors"][0].startswith("device_ip is '-.-.-.-' for 8 device(s) (ranks 0, 1, 2")
    said = [m.message for m in ev.files[0].messages]
    assert said[0].startswith("rank_table: the copy starts inside one server's entry")
    (item,) = finding_items({"evidence.rank_tables": ev.rank_tables})["evidence-rank-table-invalid"]
    assert "(its version not in the copy)" in item


def test_a_masked_tables_placeholder_addresses_are_no_duplicates() -> None:
    ev = _load("ranktable_v1.0_2srv_placeholders_node0_ip_cut.json")
    (table,) = ev.rank_tables
    # the word a poster put for every address is no address given to seven devices
    assert table["errors"] == []
    said = " | ".join(m.message for m in ev.files[0].messages)
    assert "device_ip of 7 device(s) is a placeholder (device_ip, device_ip ...)" in said


def test_a_role_prefixed_internal_error_keeps_nccls_last_error() -> None:
    ev = _load("nccl_socket_ifname_missing_internal_error_trainer_prefix.log")
    assert ev.files[0].status == "read"
    (call,) = ev.failures
    assert (call["kind"], call["code_name"], call["rank"], call["line"]) == (
        "nccl_call_failure", "ncclInternalError", 0, 4,
    )  # fmt: skip
    assert call["exception_type"].startswith("ncclSocketInit: connecting to address  with family")


def test_nccls_device_tag_without_its_host_is_no_rank() -> None:
    (warn,) = _load("nccl_bootstrap_socketProgress_closed_before_magic_ret6.log").failures
    assert (warn["rank"], warn["device"], warn["remote_ip"]) == (None, 0, "10.10.1.3")


def test_a_nodes_prefix_leaves_nccls_last_error_read() -> None:
    ev = _load("nccl_unhandled_cuda_error_initialization_host_prefixed_barrier_cut.log")
    (call,) = [f for f in ev.failures if f["kind"] == "nccl_call_failure"]
    assert (call["host"], call["code_name"]) == ("rdma-test-gpu-worker-1", "ncclUnhandledCudaError")
    assert call["exception_type"] == "Cuda failure 'initialization error'"


def test_an_nccl_result_passed_up_without_a_warning_is_the_failure() -> None:
    ev = _load("nccl_bootstrap_socket_systemerror_no_warn_DGX_nccl2.18.1.txt")
    (call,) = ev.failures
    assert (call["kind"], call["host"], call["pid"], call["code_name"], call["call"]) == (
        "nccl_call_failure", "nd20-01", 191191, "ncclSystemError", "misc/socket.cc:564",
    )  # fmt: skip
    assert call["exception_type"].startswith("no WARN line says why; in its bootstrap")
    (item,) = finding_items({"evidence.failures": ev.failures}, "nccl")["evidence-nccl-call-failed"]
    assert "(no WARN line says why; in its bootstrap" in item and "last NCCL error" not in item


def test_ib_turned_off_and_a_link_local_first_interface_are_said() -> None:
    ev = _load("nccl_info_socket_ib_disabled_nccl2.5.6_ip6tnl0_cut.txt")
    said = [m.message for m in ev.files[0].messages]
    assert any(
        "first socket interface has an IPv6 link-local address ([0]ip6tnl0:fe80" in m for m in said
    )
    assert any(
        "NCCL_IB_DISABLE=1 (set by the environment): NCCL uses TCP sockets" in m for m in said
    )


def test_a_collectors_time_stamps_leave_the_elastic_summary_read() -> None:
    ev = _load("torchelastic_childfailederror_timestamped_swift_sft_cut.txt")
    got = [(f["rank"], f["pid"], f["exit_code"], f["host"]) for f in ev.failures]
    host = "standalone-q1xmje-13716191-worker-0"
    assert got[:2] == [(0, 226, 1, host), (1, 227, 1, host)]


def test_a_dump_not_finished_in_time_is_said_per_rank() -> None:
    ev = _load("torch_watchdog_linenumbered_flightrecorder_wait_llamafactory_cut.txt")
    (wait,) = [f for f in ev.failures if f["kind"] == "pg_dump_unfinished"]
    assert (wait["rank"], wait["group"], wait["timeout_ms"]) == (3, "1", 60000)
    items = finding_items({"evidence.failures": ev.failures}, "nccl")
    assert items["evidence-flight-dumps-unfinished"] == [
        f"Rank 3 (group 1) waited 60000 ms ({wait['source']}, line 7)"
    ]
    # a notice: rank 4's own failure is still the log's
    assert "evidence-watchdog-failure" in items


def test_the_last_launch_of_a_transcript_is_the_one_whose_processes_ran_alone() -> None:
    ev = _load("nccl_tests_all_reduce_perf_mpirun_2host_v100_two_launches_nonmpi_build_cut.log")
    said = " | ".join(m.message for m in ev.files[0].messages)
    # the first launch's one process (its own Rank 0) is no third process of the second
    assert "2 processes each printed their own header and 'Rank 0' (on gdr114, gdr116)" in said
    items = finding_items({"evidence.benchmarks": ev.benchmarks}, "nccl")
    assert "evidence-nccl-tests-solo-runs" in items


def test_an_ibstat_copy_that_lost_its_indent_is_read() -> None:
    ev = _load("ibstat_1hca_mlx4_cx3_qdr40_active_flattened_prompt.txt")
    (port,) = ev.hca_ports
    assert (port["ca"], port["port"], port["state"], port["rate_gbps"]) == (
        "mlx4_0",
        1,
        "Active",
        40.0,
    )


def test_an_hccn_conf_netmask_with_gaps_in_its_bits_is_said() -> None:
    ev = _load("hccn.conf_8dev_netmask_before_address_fake_1.2.3.4_mask_hixl_fixture.conf")
    assert [d["netmask"] for d in ev.hccn_conf] == ["1.2.3.4"] * 8
    (note,) = [m.message for m in ev.files[0].messages]
    assert note.startswith("hccn_conf: netmask '1.2.3.4' of device(s) 0, 1, 2, 3, 4, 5, 6, 7 is no")


def test_the_950s_vnic_query_is_read_as_a_note() -> None:
    ev = _load("hccn_tool_g_vnic_i0_ascend950_link_up_ip_netmask_driver_doc_cut.txt")
    assert (ev.files[0].status, ev.files[0].formats) == ("read", ["hccn_vnic"])
    (note,) = [m.message for m in ev.files[0].messages]
    assert "vNIC query: link UP, 192.168.2.199 netmask 255.255.255.0" in note
    assert ev.npu_ports == []  # the virtual NIC is no parameter-plane port


def test_a_documents_npux_column_leaves_the_matrix_read() -> None:
    ev = _load("npu-smi_info_t_topo_8npu_hccs_placeholder_npux_affinity_indented_readme_cut.txt")
    (topo,) = ev.topologies
    assert topo["devices"] == [f"NPU{i}" for i in range(8)]
    assert {topo["links"]["NPU0"][f"NPU{i}"] for i in range(1, 8)} == {"HCCS"}
    assert topo["cpu_affinity"] == {}  # every value the placeholder xx-xx


def test_a_loopback_server_id_in_a_table_of_two_servers_is_said() -> None:
    ev = _load("rank_table_v1.0_2servers_16dev_loopback_server_id_mindie_ut_fixture.json")
    said = " | ".join(m.message for m in ev.files[0].messages)
    assert "server_id 127.0.0.1 is a loopback address in a table of 2 servers" in said


def test_the_runtimes_enqueue_send_failure_is_named() -> None:
    # a line of MindCluster's fault-diagnosis plog fixture (Ascend/mind-cluster, component/
    # ascend-faultdiag/test/st_testcase/modelarts-job-testdt/.../plog-10972_20230131024824126.log)
    line = (
        "[ERROR] RUNTIME(253915,python3):2023-05-16-22:35:00.917.347 [api_c.cc:3783]254303 "
        "rtMemQueueEnQueueBuff:ErrCode=507051, desc=[hdc send msg fail], InnerCode=0x7110013\n"
    )
    (ev,) = load_text(line, "plog.log").failures
    assert (ev["kind"], ev["call"], ev["code_name"]) == (
        "npu_runtime_error", "rtMemQueueEnQueueBuff", "ACL_ERROR_RT_SEND_MSG",
    )  # fmt: skip


def test_nvmls_all_links_inactive_in_lower_case_is_read() -> None:
    ev = _load("nvidia_smi_nvlink_s_gpu6_a100_sxm4_80gb_all_links_inactive_azure_nhc_fixture.txt")
    (gpu,) = ev.nvlinks
    assert (gpu["gpu"], gpu["name"], gpu["none_up"], gpu["alone"]) == (
        6, "NVIDIA A100-SXM4-80GB", True, True,
    )  # fmt: skip
    items = finding_items({"evidence.nvlinks": ev.nvlinks}, "nccl")
    # (an SXM4 module's links are all wired on its baseboard: none up is a fault)
    assert (
        "GPU 6 (NVIDIA A100-SXM4-80GB): no link up" in items["evidence-nvlink-down-on-baseboard"][0]
    )
