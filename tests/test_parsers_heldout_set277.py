"""Outputs of this stop's held-out evaluation (tests/data/evidence_heldout_45, sources in
tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial

from advisor.evidence.load import (
    _nvlink_left_out,
    load_text,
    wrapper_tag,
)
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import finding_items

HELDOUT = DATA / "evidence_heldout_45"


_load = partial(heldout.load, HELDOUT)


def test_an_hccl_call_a_caller_wrapped_says_its_result_and_the_engine_it_connected_to() -> None:
    # CANN's inner error E19999 of HIXL's channel: "HcclCommPrepare(...) fail, ret: 0x9"
    ev = _load("hixl_client_connect_failed_103901_hcclcommprepare_ret9_screen_cut.log")
    (call,) = [f for f in ev.failures if f["kind"] == "hccl_call_failure"]
    assert (call["call"], call["code"], call["code_name"]) == (
        "HcclCommPrepare",
        "9",
        "HCCL_E_TIMEOUT",
    )
    # the traceback under it: the remote engine and HIXL's connect time-out
    assert (call["remote_ip"], call["port"], call["timeout_ms"]) == ("127.0.0.1", 16789, 1000)
    items = finding_items({"evidence.failures": ev.failures})["evidence-hccl-call-failed"]
    assert "(9 = HCCL_E_TIMEOUT: timeout)" in items[0]


def test_an_older_exchangers_socket_wait_decodes_its_error_number_and_counts() -> None:
    # "errNo[0x00000000500000b]" (a digit fewer than usual: the same number), "total[3] remain[2]"
    ev = _load("hccl_plog_2023_rank6_get_socket_timeout_errNo500000b_8p_cut.log")
    (wait,) = ev.failures
    assert (wait["kind"], wait["rank"], wait["device"]) == ("hccl_link_timeout", 6, 6)
    assert (wait["code"], wait["code_name"], wait["library"]) == (
        "11",
        "HCCL_E_TCP_CONNECT",
        "HCCL",
    )
    assert wait["exception_type"].endswith("2 of the 3 sockets it waited for never connected")
    (item,) = finding_items({"evidence.failures": ev.failures})["evidence-hccl-link-wait-timeout"]
    assert "error number 11 = HCCL_E_TCP_CONNECT" in item


def test_a_copied_task_timeout_without_its_code_is_read_for_each_chip_it_names() -> None:
    ev = _load(
        "vllm_ascend_glm53_a2_2node_hccl_fftsplus_task_timeout_1836s_chips_summary_post_cut.log"
    )
    assert [f["device"] for f in ev.failures] == [0, 2, 4, 5, 6, 7]
    assert {(f["kind"], f["timeout_ms"], f["library"]) for f in ev.failures} == {
        ("hccl_plog_error", 1_836_000, "RUNTIME")
    }
    assert ev.failures[0]["exception_type"].endswith("1 notify never recorded")
    items = finding_items({"evidence.failures": ev.failures})["evidence-hccl-plog-error"]
    assert items[0].startswith("Device 0: HCCL task time-out on the device")


def test_a_gpu_with_no_nvlink_where_the_others_form_a_mesh_is_named() -> None:
    ev = _load("nvidia-smi_topo-m_B200_8gpu_GPU4_nvlink_down.txt")
    (topo,) = ev.topologies
    assert topo["nvlink_left_out"] == ["GPU4"]
    (item,) = finding_items({"evidence.topologies": ev.topologies})[
        "evidence-gpu-topology-nvlink-missing"
    ]
    assert item.startswith("GPU4: no NV# link to any GPU")


def test_pcie_cards_and_bridged_pairs_leave_no_gpu_out() -> None:
    # the rule's bounds: no NVLink at all, and pairs joined by a bridge (one NV peer each) with
    # another pair of cards without one, are machines built so
    pcie = {"GPU0": {"GPU0": "X", "GPU1": "SYS"}, "GPU1": {"GPU0": "SYS", "GPU1": "X"}}
    bridged = {
        f"GPU{a}": {
            f"GPU{b}": "X" if a == b else ("NV4" if {a, b} == {0, 1} else "SYS") for b in range(4)
        }
        for a in range(4)
    }
    assert _nvlink_left_out(pcie) == [] and _nvlink_left_out(bridged) == []


def test_host_names_two_processes_spliced_together_are_no_hosts() -> None:
    # two nodes' eight processes writing one file: "x3006c0s25b0x3006c0s25b0n0:849778:...",
    # "x3006c0sn0:849780:...", "25b0n0:849778:..." are cut lines of x3006c0s25b0n0's processes
    ev = _load(
        "nccl_2_20_5_net_socket_no_ib_2x4_polaris_resnet50_ddp_healthy_throughput_same_nodes.log"
    )
    assert sorted(h["host"] for h in ev.log_hosts) == ["x3006c0s1b1n0", "x3006c0s25b0n0"]


def test_warnings_before_a_clean_init_and_destroy_did_not_stop_the_process() -> None:
    name = "nccl_warn_failed_to_find_libcuda_bluerdma_net_ib_single_rank.log"
    ev = _load(name)
    assert [f["exception_type"] for f in ev.failures] == ["start-up fallback"] * 3
    found = finding_items({"evidence.failures": ev.failures, "evidence.benchmarks": []})
    assert (
        "evidence-nccl-warning" not in found and len(found["evidence-nccl-fallback-warning"]) == 3
    )
    # the same log cut before its communicator was destroyed: nothing says the process went on
    text = (HELDOUT / name).read_text()
    cut = text[: text.index("Destroy COMPLETE")].rsplit("\n", 1)[0] + "\n"
    ev_cut = load_text(cut, name)
    assert [f["exception_type"] for f in ev_cut.failures] == [None] * 3


def test_a_wrappers_label_before_each_line_is_taken_off() -> None:
    ev = _load("wrapper_tagged_training_syntaxerror_4_workers_cut.log")
    (raised,) = ev.failures
    # (a SyntaxError in the job's own futures_env.py: a user_script_error since set 708)
    assert (raised["kind"], raised["exception_type"]) == ("user_script_error", "SyntaxError")
    assert raised["message"] == "SyntaxError: expected 'except' or 'finally' block"
    said = [m.message for m in ev.files[0].messages]
    assert "a wrapper's label '[TRAINING]' taken off 27 line(s) before reading" in said
    # a plog's level is each line's own, never a wrapper's label; nor a label on a few lines
    assert wrapper_tag(["[ERROR] HCCL(1,python3):x"] * 6) is None
    assert wrapper_tag(["[TRAINING] a"] * 4 + ["b"] * 4) is None
    assert wrapper_tag(["[TRAINING] a"] * 4 + ["b"]) == "[TRAINING] "


def test_a_warns_result_is_read_from_the_trace_nccl_printed_under_it() -> None:
    ev = _load(
        "nccl_bootstrap_connect_reset_by_peer_172_17_0_2_docker_ranks2_3_ncclRemoteError6_multithread_cut.log"
    )
    first, second = ev.failures
    assert first["message"] == (
        "Net : Connect to 172.17.0.2<40537> failed : Connection reset by peer (then 6 = "
        "ncclRemoteError passed up through bootstrap.cc, init.cc, group.cc)"
    )
    # device 2's threads trace their own failure under their own WARN
    assert second["message"].endswith(
        "failed : Connection reset by peer (then 6 = ncclRemoteError passed up through init.cc, "
        "misc/socket.cc)"
    )


def test_ei0002s_own_message_without_its_code_is_read_with_its_peer() -> None:
    ev = _load("ei0002_new_format_waiting_peer_rank4_allreduce_ring_nhr_doc_example_hcomm_cut.log")
    (timeout,) = ev.failures
    assert (timeout["code"], timeout["remote_rank"], timeout["op"]) == ("EI0002", 4, "all_reduce")
    (item,) = finding_items({"evidence.failures": ev.failures})["evidence-hccl-exec-timeout"]
    assert "waited in all_reduce for rank 4" in item


def test_torch_npus_store_read_of_the_root_info_is_the_id_exchange_failing() -> None:
    ev = _load(
        "torch_npu_err02005_dist_internal_error_store_get_hccl_blocking_wait_fsdp_broadcast_rank43_dev11_dlrover_fixture.log"
    )
    (failed,) = [f for f in ev.failures if f["kind"] == "unique_id_failure"]
    assert (failed["rank"], failed["device"], failed["pid"], failed["remote_rank"]) == (
        43,
        11,
        62743,
        0,
    )
    assert failed["library"] == "HCCL"


def test_gpus_with_no_nic_near_them_are_named_where_others_have_one() -> None:
    ev = _load("nvidia-smi_topo-m_8xA100_NV12_4nic_gpus4-7_no_local_nic_prompt.txt")
    (topo,) = ev.topologies
    assert topo["no_near_nic"] == ["GPU4", "GPU5", "GPU6", "GPU7"]
    assert topo["nvlink_left_out"] == []
    (item,) = finding_items({"evidence.topologies": ev.topologies})[
        "evidence-gpu-topology-no-near-nic"
    ]
    assert item.startswith("GPU4, GPU5, GPU6, GPU7: no NIC nearer than PHB, NODE or SYS")
    # the B200 board without NICs in its matrix names none
    (b200,) = _load("nvidia-smi_topo-m_B200_8gpu_GPU4_nvlink_down.txt").topologies
    assert b200["no_near_nic"] == []


def test_network_channels_without_gdrdma_are_said_once_for_their_host() -> None:
    ev = _load("nccl-tests_sendrecv_perf_2xH100_2nodes_RoCE_mlx5_5_NCCL_INFO.log")
    (note,) = [f for f in ev.failures if f["kind"] == "nccl_no_gdr"]
    assert (note["host"], note["line"]) == ("MOC-R4PCC04U37", 50)
    assert note["message"].endswith("[receive] via NET/IB/1/Shared")
    (item,) = finding_items({"evidence.failures": ev.failures})["evidence-nccl-no-gdr"]
    assert item.startswith("MOC-R4PCC04U37: ")
    # a benchmark that finished: the notice is no failure of it
    (bench,) = ev.benchmarks
    assert bench["complete"] and bench["wrong_total"] == 0


def test_a_gpus_gsp_firmware_not_answering_is_a_fault_without_an_xid() -> None:
    ev = _load(
        "dmesg_nvrm_gpu6_gh100_gsp_heartbeat_timeout_sysmembar_memsys_error_no_xid_ogkm1230_cut.txt"
    )
    (fault,) = ev.failures
    assert (fault["kind"], fault["device"]) == ("gpu_driver_fault", 6)
    assert fault["exception_type"].startswith(
        "GPU6's GSP firmware stopped answering the driver (_kgspIsHeartbeatTimedOut): Heartbeat timed out"
    )


def test_the_tdt_clients_ej0001_line_names_its_device() -> None:
    ev = _load("cann_plog_tdt_ej0001_tsdopen_failed_device4_all_reduce_test_cut.log")
    (coded,) = ev.failures
    assert (coded["kind"], coded["code"], coded["device"], coded["pid"]) == (
        "hccl_error",
        "EJ0001",
        4,
        685010,
    )
    (item,) = finding_items({"evidence.failures": ev.failures})["evidence-hccl-other-error"]
    assert item.startswith("EJ0001 (device 4): HCCP process could not start")


def test_hccps_negative_return_is_said_as_its_errno() -> None:
    ev = _load("hccp_plog_ej0002_ra_rdev_init_failed_enolink_phy3_cut.log")
    (failed,) = ev.failures
    assert failed["exception_type"] == "HCCP error: ret(-67) = -ENOLINK (Link has been severed)"
    assert "phy_id(3)" in failed["message"]
