"""Outputs the two-hundred-fifth to two-hundred-eighth held-out evaluations misread (and one the
two-hundred-second left unread) that this stop reads: the NVIDIA driver's reports of a GPU it
could not bring up with no Xid (fallen off the bus at load, RmInitAdapter failed), nvidia-smi's
table with a GPU all ERR!, nvidia-smi -q's memory repair and clock slowdown sections, HCCL's
older heartbeat line, the device kernel's driver error record, a rank named by its own init
trace, NCCL's last error kept without its error line, a log a terminal hard-wrapped, and a
traceback a copy cut before its exception.

Samples: ``tests/data/evidence_heldout_33/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from functools import partial

from advisor.evidence.load import load_text
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import finding_items

HELDOUT = DATA / "evidence_heldout_33"


_load = partial(heldout.load, HELDOUT)


def test_a_gpu_the_driver_lost_at_load_without_an_xid_is_a_fault() -> None:
    ev = _load(
        "dmesg_multiline_nvrm_gpu_b3_00_pci_10de_26b5_fallen_off_bus_not_responding_probe_failed_1_device_open_570_158_01_no_xid_nvsentinel155.txt"
    )
    (fault,) = ev.failures
    assert (fault["kind"], fault["line"], fault["code"]) == ("gpu_driver_fault", 1, None)
    assert fault["exception_type"].startswith("GPU 0000:b3:00.0 (no Xid): (PCI ID: 10de:26b5)")
    assert "fallen off the bus" in fault["exception_type"]


def test_a_gpu_that_did_not_initialise_names_its_device_node() -> None:
    ev = _load(
        "kern_log_syslog_worker4_nvrm_gpu_0a_00_rminitadapter_failed_0x24_0x72_1568_minor5_repeated_six_times_gpu_operator1146_cut.log"
    )
    (fault,) = ev.failures
    # a driver or firmware mismatch gives the same line as failed hardware: an error, not a fault
    assert fault["kind"] == "gpu_driver_error"
    assert fault["exception_type"] == (
        "GPU 0000:0a:00.0 did not initialise: RmInitAdapter failed! (0x24:0x72:1568) "
        "(/dev/nvidia5) (6 reports)"
    )


def test_a_gpu_whose_every_field_reads_err_is_unreadable_by_name_too() -> None:
    ev = _load(
        "nvidia_smi_525_85_8xa30_gpu3_61_00_err_23025mib_used_gpus1_2_busy_no_process_section_ogkm446.txt"
    )
    assert len(ev.gpus) == 8
    lost = ev.gpus[3]
    assert (lost["bus_id"], lost["memory_used_mib"]) == ("00000000:61:00.0", 23025)
    assert lost["unreadable"][0] == "name" and "MIG mode" in lost["unreadable"]
    assert not any(g["unreadable"] for i, g in enumerate(ev.gpus) if i != 3)
    items = finding_items({"evidence.gpus": ev.gpus}, "nccl")["evidence-gpu-unreadable"]
    assert len(items) == 1 and items[0].startswith("GPU 3 (ERR!, 00000000:61:00.0): name, ECC")


def test_nvidia_smi_q_says_a_row_remap_waits_for_a_reset() -> None:
    ev = _load(
        "nvidia_smi_q_a100_sxm4_80gb_510_gpu_10_1c_dram_correctable_177_remapped_rows_correctable1_pending_yes_bank_max639_author_elided_ml_engineering.txt"
    )
    assert ev.files[0].formats == ["nvidia_smi_query"]
    (gpu,) = ev.gpus
    assert (gpu["name"], gpu["bus_id"], gpu["query"]) == (
        "NVIDIA A100-SXM4-80GB",
        "00000000:10:1C.0",
        "q",
    )
    assert (gpu["ecc_uncorrected"], gpu["ecc_corrected"]) == (0, 177)
    assert (gpu["remap_pending"], gpu["remap_failed"], gpu["retire_pending"]) == (True, False, None)
    findings = finding_items({"evidence.gpus": ev.gpus}, "nccl")
    assert findings["evidence-gpu-repair-pending"][0].startswith(
        "GPU 00000000:10:1C.0 (NVIDIA A100-SXM4-80GB): row remap pending"
    )
    assert "evidence-gpu-remap-failed" not in findings
    assert "evidence-gpu-ecc-uncorrected" not in findings  # corrected errors only


def test_nvidia_smi_q_clock_reasons_not_active_are_read_and_not_judged() -> None:
    ev = _load(
        "nvidia_smi_q_grep_a8_clocks_throttle_reasons_idle_active_hw_slowdown_thermal_power_brake_sync_boost_sw_thermal_not_active_prompt_kubeflow68.txt"
    )
    (gpu,) = ev.gpus
    assert (gpu["sections"], gpu["throttled"]) == (["Clocks Throttle Reasons"], [])
    assert "evidence-gpu-throttled" not in finding_items({"evidence.gpus": ev.gpus}, "nccl")
    slowed = (
        "    Clocks Event Reasons\n        Idle                        : Not Active\n"
        "        HW Slowdown                 : Active\n"
        "            HW Thermal Slowdown     : Active\n"
    )
    (gpu,) = load_text(slowed, "q.txt").gpus
    assert gpu["throttled"] == ["HW Slowdown", "HW Thermal Slowdown"]
    items = finding_items({"evidence.gpus": [gpu]}, "nccl")["evidence-gpu-throttled"]
    assert items[0].startswith("GPU #1 of the output: HW Slowdown, HW Thermal Slowdown active")


def test_hccls_older_heartbeat_line_names_the_lost_rank_and_who_saw_it() -> None:
    ev = _load(
        "hccl_plog_collection_rootinfo_heartbeat_lost_topo_exchange_timeout_7_of_8_notify_wait_cqe_err12_mindcluster_rcparse_example.log"
    )
    beats = [f for f in ev.failures if f["kind"] == "hccl_heartbeat"]
    assert [
        (b["line"], b["culprit_ip"], b["culprit_device"], b["discoverer_ip"]) for b in beats
    ] == [
        (5, "172.16.0.57", 5, "172.16.0.57"),
        (6, "172.16.0.57", 2, "172.16.0.184"),
    ]
    assert {f["kind"] for f in ev.failures} >= {
        "hccl_negotiation_failure",
        "hccl_call_failure",
        "hccl_cqe_error",
    }


def test_the_device_kernels_driver_error_record_is_read_whole_and_a_query_it_does_not_serve_is_not() -> (
    None
):
    (ev,) = _load(
        "npu_device_os_slog_kernel_drv_pcie_sq_err_cq_tail_dmp_dieid_not_support_mindcluster_run.log"
    ).failures
    assert (ev["line"], ev["library"]) == (1, "device kernel (drv_pcie)")
    assert ev["message"].endswith("the hardware cq tail is -1040006654 / the err type is: 0x80")
    unsupported = (
        "[ERROR] DRV(8579,None):2021-02-09-17:47:54.812.725 [dev_mon_api.c:2976][dmp] "
        "[dev_mon_api_get_soc_die_id 2976] get  dieid failed:DRV_ERROR_NOT_SUPPORT\n"
        "[ERROR] RUNTIME(8579,python):2021-02-09-17:47:55.000.000 [api.cc:1]1 StreamSync:failed\n"
    )
    (first,) = load_text(unsupported, "plog.log").failures
    assert first["line"] == 2


def test_a_task_exception_without_a_group_line_takes_the_rank_its_init_trace_names() -> None:
    (ev,) = _load(
        "hccl_plog_3rank_rootinfo_init_success_allreduce_notify_wait_remote_rank1_mindcluster_rc_remote_local.log"
    ).failures
    assert (ev["rank"], ev["rank_size"], ev["remote_rank"], ev["op"]) == (0, 3, 1, "all_reduce")


def test_nccls_last_error_kept_without_its_error_line_is_a_warning_of_that_node() -> None:
    ev = _load(
        "pdsh_node_prefixed_last_error_net_recv_connection_refused_masked_node2_ip_p2p_disabled_shm_gptneox1147_cut.log"
    )
    (warn,) = ev.failures
    assert (warn["kind"], warn["host"], warn["line"]) == ("nccl_warning", "node2", 2)
    assert warn["message"] == "Net : Call to recv from NODE2_IP<56843> failed : Connection refused"
    # a label over another program's words is no NCCL error
    assert not load_text("Last error:\nthe disk is full\n", "t.log").failures


def test_a_log_a_terminal_wrapped_at_its_width_is_read_joined() -> None:
    ev = _load(
        "watchdog_scatter_seq13_numelout0_1800000ms_rank1_fsdp2_hard_wrapped_190col_axolotl3476_cut.log"
    )
    (note,) = ev.files[0].messages
    assert "terminal wrapped at 190 columns joined" in note.message
    (timeout,) = [f for f in ev.failures if f["kind"] == "watchdog_timeout"]
    assert (timeout["rank"], timeout["op"], timeout["seq"], timeout["timeout_ms"]) == (
        1,
        "scatter",
        13,
        1800000,
    )
    assert timeout["line"] == 6  # the wrapped line's own number
    # a table's rows of one width are no wrap: nothing joined
    rows = "".join(f"{n:>130}\nnext {n}\n" for n in range(3))
    assert not any("wrapped" in m.message for m in load_text(rows, "t.log").files[0].messages)


def test_a_traceback_the_copy_cut_before_its_exception_names_the_rank_and_its_collective() -> None:
    ev = _load(
        "nccl_info_abort_complete_7_of_8_ranks_then_rank6_traceback_all_reduce_test_py_vllm6732_cut.log"
    )
    (cut,) = ev.failures
    assert (cut["kind"], cut["rank"], cut["op"], cut["line"]) == (
        "python_exception",
        6,
        "all_reduce",
        8,
    )
    assert cut["exception_type"] == "unknown (cut before the exception)"
    assert cut["message"].endswith("NCCL aborted the communicators of rank(s) 0, 1, 2, 3, 4, 5, 7")


# ---- the review's cases ----------------------------------------------------------------------


def test_lines_of_one_width_that_each_start_their_own_are_not_joined() -> None:
    # two ranks' torch error lines, the longest lines, each ending in a digit, then NCCL's
    # "ncclSystemError: ..." on the next line: no wrap
    error = (
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/"
        "ProcessGroupNCCL.cpp:1970, unhandled system error (run with NCCL_DEBUG=INFO for "
        "details), NCCL version 2.19.3\n"
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or "
        "device error.\n"
    )
    report = load_text(error * 2, "t.log").files[0]
    assert not any("wrapped" in m.message for m in report.messages)
    # pdsh's node prefixes: a line of node2 after node1's lines of the same width
    init = "node1: gpu-node1:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 4 cudaDev 0 busId 1000 commId 0x1 - Init COMPLETE xxxxxxxxxxxxxxxx\n"
    warn = "node2: gpu-node2:2:2 [0] NCCL WARN NET/IB : Got completion from peer 10.0.0.1<1> with error 12, opcode 0, len 0, vendor err 129\n"
    ev = load_text(init * 3 + warn, "t.log")
    assert not any("wrapped" in m.message for m in ev.files[0].messages)
    assert [f["line"] for f in ev.failures if f["kind"] == "nccl_net_error"] == [4]


def test_a_grep_of_one_q_section_over_several_gpus_is_one_record_a_gpu() -> None:
    def block(pending: str) -> str:
        return (
            "    Remapped Rows\n        Correctable Error                 : 0\n"
            "        Uncorrectable Error               : 0\n"
            f"        Pending                           : {pending}\n"
            "        Remapping Failure Occurred        : No\n--\n"
        )

    gpus = load_text("".join(block("Yes" if i == 5 else "No") for i in range(8)), "q.txt").gpus
    assert [g["remap_pending"] for g in gpus] == [i == 5 for i in range(8)]
    items = finding_items({"evidence.gpus": gpus}, "nccl")["evidence-gpu-repair-pending"]
    assert len(items) == 1 and items[0].startswith("GPU #6 of the output: row remap pending")


def test_a_gpu_at_its_power_cap_is_not_slowed() -> None:
    capped = "    Clocks Event Reasons\n        SW Power Cap                : Active\n"
    (gpu,) = load_text(capped, "q.txt").gpus
    assert gpu["throttled"] == []


def test_the_first_of_a_runtime_error_and_a_kernel_driver_record_is_the_failure() -> None:
    text = (
        "[ERROR] RUNTIME(1,python):2025-01-01-00:00:00.000.000 [stream.cc:1]1 Aicore kernel "
        "execute failed, fault kernel_name=aiv_all_reduce\n"
        "[EVENT] KERNEL(3,sklogd):2025-01-01-00:00:01.000.000 [klogd.c:248][1.0] [ascend] [ERROR] "
        "[hdcdrv] [hdcdrv_close 12] <k:1:1> session 3 closed\n"
    )
    (first,) = load_text(text, "plog.log").failures
    assert (first["line"], first["library"]) == (1, "RUNTIME")


def test_a_traceback_cut_in_a_rank_check_names_no_collective_and_a_label_keeps_its_rank() -> None:
    text = (
        "h:1:1 [2] NCCL INFO comm 0x1 rank 2 nranks 4 cudaDev 2 busId 3000 - Init COMPLETE\n"
        "[rank2]: Traceback (most recent call last):\n"
        '[rank2]:   File "/tmp/t.py", line 9, in <module>\n'
        "[rank2]:     if dist.get_rank() == 0:\n"
    )
    (cut,) = load_text(text, "t.log").failures
    assert (cut["rank"], cut["op"]) == (2, None)
    other = "[rank3]:Last error:\n[rank5]:Net : Call to recv from 10.0.0.1<1> failed : Connection refused\n"
    assert not load_text(other, "t.log").failures
