"""Outputs the hundred-ninety-seventh to two-hundredth held-out evaluations misread that this
stop reads: an AICPU communicator's task exception (its rank, peer and error code), the op a
graph-mode link failure names after HCCL's socket table, a rank table a document printed without
its opening brace, an Ascend driver tool whose commands all failed, nccl-tests' note that it
reduced ``maxBytes`` for memory, an all_reduce table with validation off and no rank count,
the NVIDIA driver's Xid and NVLink training errors in a kernel log, and NVML's none-up answer
under a command that asked one GPU.

Samples: ``tests/data/evidence_heldout_31/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from functools import partial

from advisor.evidence.load import load_text
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import finding_items

HELDOUT = DATA / "evidence_heldout_31"


_load = partial(heldout.load, HELDOUT)


def test_an_aicpu_task_exception_names_its_rank_peer_and_error_code() -> None:
    (ev,) = _load(
        "hccl_aicpu_device_log_sdma_task_exception_errorcode10_localrank1_remoterank2_sendrecv_mindcluster_aicpu_notify_worker0_dev11.log"
    ).failures
    assert ev["kind"] == "hccl_plog_error"
    assert (ev["rank"], ev["remote_rank"], ev["exception_type"]) == (
        1,
        2,
        "task exception on a SDMA task (errorCode 10)",
    )
    assert (ev["group"], ev["numel"]) == ("group_name_17271", 1048576)
    items = finding_items({"evidence.failures": [ev]}, "hccl")["evidence-hccl-plog-error"]
    assert items[0].startswith("Rank 1: task exception on a SDMA task (errorCode 10) (peer rank 2)")


def test_a_link_failure_takes_the_op_hccl_names_after_its_socket_table() -> None:
    (ev,) = _load(
        "hccl_plog_link_error_info_server_no_connect_allgather_commhd_fail_device0_mindcluster_event_timeout_worker0.log"
    ).failures
    assert ev["kind"] == "hccl_link_timeout" and ev["exception_type"] == "no connect"
    assert (ev["rank"], ev["remote_rank"], ev["remote_ip"], ev["device"]) == (
        0,
        1,
        "124.0.0.11",
        0,
    )
    # "[Create][InnerComm]tag[HcomAllGather_...], created commHD fail" three lines below
    assert ev["op"] == "all_gather"


def test_a_rank_table_without_its_opening_brace_is_read_and_said_invalid() -> None:
    ev = _load("rank_table_v10_2srv_16p_missing_open_brace_ais_bench_bert_doc.json")
    report = ev.files[0]
    assert (report.status, report.formats) == ("partial", ["rank_table"])
    (note,) = report.messages
    assert note.line == 1 and "opening '{' is missing" in note.message
    (table,) = ev.rank_tables
    assert (table["version"], table["server_count"], table["status"]) == ("1.0", 2, "completed")
    assert [(r["rank"], r["server_id"], r["device_ip"]) for r in table["ranks"][7:9]] == [
        (7, "90.90.66.64", "192.100.64.15"),
        (8, "90.90.66.66", "192.100.61.16"),
    ]
    assert not table["errors"]


def test_an_ascend_tool_whose_commands_all_failed_is_a_failure_per_reason() -> None:
    ev = _load(
        "hccn_tool_ip_s_loop_20_ids_command_execute_failed_device_id_out_of_valid_range_jsc_notes.txt"
    )
    assert ev.files[0].status == "read"
    assert [(f["kind"], f["line"], f["exception_type"]) for f in ev.failures] == [
        ("ascend_tool_failure", 2, "8 command(s) failed: no reason given"),
        (
            "ascend_tool_failure",
            18,
            "12 command(s) failed: Device ID is out of the valid range.",
        ),
    ]
    items = finding_items({"evidence.failures": ev.failures}, "hccl")
    assert items["evidence-ascend-tool-failure"][1].startswith(
        "12 command(s) failed: Device ID is out of the valid range."
    )
    # the driver library's banner alone is no failure answer
    assert not load_text(
        "call drvMngGetConsoleLogLevel failed , g_conLogLevel = 3\nlink status: UP\n", "x.txt"
    ).failures


def test_a_run_that_reduced_max_bytes_for_memory_is_judged_against_what_it_kept() -> None:
    ev = _load(
        "nccl_tests_gather_2node_a100_pcie_trace_interleaved_linear_128m_steps_busbw_halves_above_6gib_no_footer_nccltests350.log"
    )
    (bench,) = ev.benchmarks
    assert (bench["op"], bench["ranks"], bench["hosts"]) == ("gather", 2, ["n013", "n014"])
    assert (bench["max_bytes"], bench["sizes_asked"]) == (12703978837, 94)
    note = ev.files[0].messages[0]  # (NCCL's own start lines said after it)
    assert note.message.startswith("nccl_tests: ")
    assert "85 of 94 sizes" in note.message
    assert "it reduced the 12884901888 B asked, for memory" in note.message


def test_validation_off_without_a_rank_count_is_all_reduce_by_its_bus_factor() -> None:
    ev = _load(
        "nccl_tests_allreduce_aks_mpijob_sriov_ib_16_rows_factor4_validation_off_na_elided_head_tail_187gbs.log"
    )
    (bench,) = ev.benchmarks
    # busbw / algbw = 1.875 = 2(n-1)/n for n = 16: only all_reduce's factor is above 1
    # and the same factor names its 16 ranks, which the elided log does not list
    assert (bench["op"], bench["ranks"], bench["complete"]) == ("all_reduce", 16, True)
    assert any(
        m.message.endswith(
            "16 ranks, read from busbw / algbw = 1.8750 (all_reduce's bus factor in "
            "nccl-tests' PERFORMANCE.md): the log does not list its ranks"
        )
        for m in ev.files[0].messages
    )
    last = [r for r in bench["results"] if not r["in_place"]][-1]
    assert (last["bytes"], last["busbw_gbps"]) == (8589934592, 1497.76)
    # sendrecv's factor is 1: a table whose busbw is its algbw stays unknown
    rows = "".join(
        f"{n:>12} {n // 4:>12}     float     sum      -1    10.00  {n / 1e4:6.2f}  {n / 1e4:6.2f}"
        f"    N/A    10.00  {n / 1e4:6.2f}  {n / 1e4:6.2f}    N/A\n"
        for n in (1048576, 2097152, 4194304)
    )
    header = (
        "#       size         count      type   redop    root     time   algbw   busbw #wrong"
        "     time   algbw   busbw #wrong\n"
    )
    (flat,) = load_text(header + rows, "t.log").benchmarks
    assert flat["op"] == "unknown"


def test_the_nvidia_drivers_xid_in_a_kernel_log_is_a_fault_of_that_gpu() -> None:
    ev = _load("kern_log_nvrm_xid79_gpu_fallen_off_the_bus_pop_os3363.log")
    assert ev.files[0].formats == ["log"]
    # the driver's own words say the GPU is gone: a fault, whatever the number
    (xid,) = [f for f in ev.failures if f["kind"] == "gpu_driver_fault"]
    assert (xid["line"], xid["code"]) == (2, "79")
    assert xid["exception_type"] == "Xid 79 on PCI:0000:01:00: GPU has fallen off the bus."
    items = finding_items({"evidence.failures": [xid]}, "nccl")["evidence-gpu-driver-fault"]
    # the syslog line's machine leads the item
    assert xid["host"] == "EVE"
    assert items[0].startswith("EVE: Xid 79 on PCI:0000:01:00: GPU has fallen off the bus.")
    # an older driver leaves out "PCI:"; the same Xid on the same bus again is one fault
    older = "NVRM: Xid (0000:01:00): 3, C 00000005 SC 00000007\n" * 2
    (event,) = load_text(older, "k.log").failures
    assert (event["kind"], event["code"], event["exception_type"]) == (
        "gpu_driver_error",
        "3",
        "Xid 3 on PCI:0000:01:00: C 00000005 SC 00000007 (2 reports)",
    )
    # a MIG instance's Xid names the instance; the process the driver names stays in the message
    mig = "NVRM: Xid (PCI:0000:01:00 GPU-I:05): 94, pid=7194, name=python, Contained: SM (0x1).\n"
    (event,) = load_text(mig, "k.log").failures
    assert event["exception_type"] == "Xid 94 on PCI:0000:01:00 GPU-I:05: Contained: SM (0x1)."
    assert "pid=7194" in event["message"]


def test_nvlink_training_errors_and_nvmls_answer_under_a_one_gpu_command_are_read() -> None:
    ev = _load(
        "nvidia_smi_topo_node_instead_of_nvlink_then_nvlink_status_all_links_inactive_2x_quadro_rtx8000_dmesg_sublink_errors_gpu1_ko_devlog.txt"
    )
    assert ev.files[0].formats == ["nvidia_smi_topo", "nvidia_smi_nvlink", "log"]
    (gpu,) = ev.nvlinks
    # "nvidia-smi nvlink --status -i 0" then NVML's answer: GPU 0 has no link up
    assert (gpu["gpu"], gpu["name"], gpu["none_up"], gpu["line"]) == (0, "", True, 7)
    errors = [f for f in ev.failures if f["kind"] == "gpu_driver_fault"]
    # GPU1's TX and RX sublink training errors (the repeats of each are one)
    assert [(f["device"], f["line"]) for f in errors] == [(1, 16), (1, 18)]
    assert errors[0]["exception_type"].startswith(
        "NVLink error on GPU1 (knvlinkCoreSetTxSublinkModeCallback): Error setting TX sublink mode"
    )
    items = finding_items({"evidence.nvlinks": ev.nvlinks}, "nccl")
    assert items["evidence-nvlink-inactive-alike"][0].startswith(
        "GPU 0: no link up (NVML: all links inactive)"
    )
