"""Outputs of round Y's held-out evaluation (sets 349-352; tests/data/evidence_heldout_49,
sources in tests/data/SOURCES.md) that the advisor read wrong or not at all before this change."""

from __future__ import annotations

import dataclasses
from functools import partial
from pathlib import Path

from advisor.evidence.load import load_paths
from advisor.parsers import dcgm
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_49"


_load = partial(heldout.load, HELDOUT)


def test_the_dynamic_loaders_failures_are_a_library_problem_not_a_ranks_exit() -> None:
    (missing,) = _load("npu_smi_libc_sec_so_missing_in_pod_hami615.txt").failures
    assert (missing["kind"], missing["call"], missing["library"]) == (
        "library_missing",
        "npu-smi",
        "libc_sec.so",
    )
    assert "the Ascend driver's libraries are not on its library path" in missing["exception_type"]
    ev = load_paths([DATA / "review22" / "ld02_symbol_lookup_nccl.log"])
    (symbol,) = [e for e in ev.failures if e["kind"] == "library_missing"]
    assert symbol["line"] == 3 and symbol["library"] == "libtorch_cuda.so"
    assert (
        "needs ncclRedOpCreatePreMulSum, which no library loaded provides"
        in (symbol["exception_type"])
    )
    findings = builtin_findings({"evidence.failures": ev.failures}, "nccl")
    assert findings["evidence-library-missing"].severity == "critical"
    assert "evidence-launcher-exit" not in findings


def test_npu_smi_that_could_not_start_dcmi_read_no_npu_at_all() -> None:
    ev = _load("npu_smi_info_container_dcmi_init_failed_8005_vllm_ascend2698.txt")
    (init,) = ev.failures
    assert (init["kind"], init["code"], init["call"]) == ("npu_dcmi_error", "-8005", "dcmi_init")
    assert "most often a device another container already holds" in init["exception_type"]
    findings = builtin_findings({"evidence.failures": ev.failures}, "hccl")
    assert findings["evidence-npu-dcmi-init-failed"].severity == "critical"
    assert "evidence-npu-dcmi-error" not in findings


def test_an_older_runtimes_device_error_names_its_device() -> None:
    # "The error from device(2), serial number is 37, there is an aicore error" (no chipId)
    (error,) = _load("deepspeed4892_bingbertsquad_ez9999_aicore_device2_cut.log").failures
    # (the AI Core's own report under the code makes it the device's exception, one failure)
    assert (error["kind"], error["device"], error["line"]) == ("npu_device_exception", 2, 2)
    assert error["exception_type"].startswith("aicore error exception on core(s) 0")


def test_fabric_manager_without_an_nvswitch_is_not_needed_not_broken() -> None:
    ev = _load("gpu_operator_610_fabricmanager_nv_warn_nothing_to_do_a40.log")
    (fm,) = ev.failures
    assert (fm["kind"], fm["line"], fm["host"]) == ("fabric_manager_unneeded", 7, "leon-NF5468M6")
    findings = builtin_findings({"evidence.failures": ev.failures}, "nccl")
    assert findings["evidence-fabric-manager-unneeded"].severity == "warning"
    assert "evidence-fabric-manager-failed" not in findings


def test_fabric_manager_running_is_healthy_and_a_failed_start_is_not(tmp_path: Path) -> None:
    ev = _load("bottlerocket_142_fabricmanager_status_active_running_healthy.txt")
    assert ev.files[0].status == "read" and ev.failures == []
    assert any("active (running)" in m.message for m in ev.files[0].messages)
    log = tmp_path / "fm.log"
    log.write_text(
        "May 16 15:10:10 node-7 systemd[1]: Starting NVIDIA fabric manager service...\n"
        "May 16 15:10:11 node-7 nv-fabricmanager[29850]: [May 16 2025 15:10:11] [ERROR] [tid 30042]"
        " fabric manager version 550.54.15 does not match the driver version 550.90.07\n"
        "May 16 15:10:11 node-7 systemd[1]: nvidia-fabricmanager.service: Control process exited,"
        " code=exited, status=1/FAILURE\n"
    )
    (failed,) = load_paths([log]).failures
    assert (failed["kind"], failed["line"], failed["host"]) == (
        "fabric_manager_failed",
        2,
        "node-7",
    )
    assert "does not match the driver version" in failed["exception_type"]


def test_nvbandwidth_waiving_its_gpu_to_gpu_test_says_no_pair_has_peer_access() -> None:
    ev = _load("nvbandwidth_v0.2_2x_rtx2080ti_d2d_write_ce_waived_nvb13.txt")
    (run,) = ev.gpu_copy
    assert run["waived"] == ["device_to_device_memcpy_write_ce"]
    finding = builtin_findings({"evidence.gpu_copy": ev.gpu_copy}, "nccl")[
        "evidence-gpu-copy-test-waived"
    ]
    assert finding.severity == "warning" and "none has it here" in finding.message


def test_each_xid_says_what_it_means_and_whose_it_is() -> None:
    ev = _load("akash_244_dmesg_T_grep_nvrm_xid43_31_94.txt")
    meanings = {e["code"]: e["code_name"] for e in ev.failures}
    assert meanings["43"].endswith("most often the application's own fault")
    assert meanings["31"].startswith("GPU memory page fault")
    assert meanings["94"].startswith("contained ECC error")
    finding = builtin_findings({"evidence.failures": ev.failures}, "nccl")[
        "evidence-gpu-driver-error"
    ]
    assert any("[contained ECC error" in item for item in finding.items)


def test_a_transport_failure_says_its_sockets_receive_failed_and_its_code() -> None:
    ev = _load("mindcluster_debug_plog_transport_p2p_recv_fail_rank443.log")
    (link,) = ev.failures
    assert (link["kind"], link["rank"], link["remote_rank"], link["ip"]) == (
        "hccl_transport_failure",
        443,
        0,
        None,
    )
    assert (link["code"], link["code_name"]) == ("13", "HCCL_E_TCP_TRANSFER")
    assert link["exception_type"] == (
        "its socket's recv fail with the peer; the link data with the peer not exchanged"
        " (failed to recv exchangeData)"
    )
    (item,) = builtin_findings({"evidence.failures": ev.failures}, "hccl")[
        "evidence-hccl-transport-failed"
    ].items
    assert item.startswith("Rank 443 to rank 0 (1.1.1.1), all_gather, HCCL_E_TCP_TRANSFER: its")


def test_time_outs_a_collective_apart_point_at_the_rank_behind_not_the_first_stamp() -> None:
    # both ranks waited out the same 600 s time-out 4 ms apart: rank 3 never completed SeqNum
    # 5729, which rank 0 had; rank 0 timed out in 5730 waiting for it
    ev = _load("vllm_23448_watchdog_broadcast_rank3_behind_cut.log")
    (tl,) = ev.timelines
    assert (tl.first_rank, tl.behind, tl.lagging_seq) == (3, [3], 5729)
    assert tl.summary.startswith("rank(s) 3 timed out in SeqNum 5729, which rank(s) 0 had")
    finding = builtin_findings(
        {"evidence.timelines": [dataclasses.asdict(t) for t in ev.timelines]}, "nccl"
    )["evidence-failure-order"]
    assert "Start with rank 3" in finding.recommendations[0].why


def test_mindspores_device_error_lines_come_before_a_cut_traceback() -> None:
    # MindSpore's "[ERROR] DEVICE(pid,tid,python):..." lines in plog form say what failed; the
    # traceback below them was cut before its exception
    (error,) = _load("mindone269_pangu_draw_mindspore_sync_stream_error_cut.log").failures
    assert (error["kind"], error["line"], error["library"]) == ("hccl_plog_error", 2, "MindSpore")
    assert "Execute TaskFailCallback failed" in error["message"]


def test_the_firmwares_memory_error_record_is_read_beside_the_devices_own_error() -> None:
    ev = _load("mindcluster_device_os_ts_exception_apei_memory_error.log")
    kinds = sorted(e["kind"] for e in ev.failures)
    assert kinds == ["firmware_memory_error", "hccl_plog_error"]
    (memory,) = [e for e in ev.failures if e["kind"] == "firmware_memory_error"]
    assert (memory["line"], memory["code_name"]) == (4, "recoverable")
    assert "node: 2 module: 22 rank: 0 bank: 10 row: 9914 column: 96" in memory["exception_type"]
    assert "physical address 0x0000400cd8d202e0" in memory["exception_type"]


def test_a_corrected_memory_record_alone_is_a_warning(tmp_path: Path) -> None:
    log = tmp_path / "dmesg.txt"
    log.write_text(
        "[583733.716899] {1}[Hardware Error]: Hardware error from APEI Generic Hardware Error"
        " Source: 0\n"
        "[583733.716904] {1}[Hardware Error]: event severity: corrected\n"
        "[583733.716907] {1}[Hardware Error]:   section_type: memory error\n"
        "[583733.716914] {1}[Hardware Error]:   node: 1 card: 0 module: 3 rank: 1 bank: 2\n"
    )
    ev = load_paths([log])
    (memory,) = ev.failures
    assert (memory["kind"], memory["code_name"], memory["line"]) == (
        "firmware_memory_error",
        "corrected",
        1,
    )
    findings = builtin_findings({"evidence.failures": ev.failures}, "nccl")
    assert findings["evidence-firmware-memory-corrected"].severity == "warning"
    assert "evidence-firmware-memory-error" not in findings


def test_perftests_completion_error_block_alone_is_a_failed_run() -> None:
    ev = _load(
        "perftest_ib_write_bw_use_cuda_completion_error_status4_syndrom_0x51_perftest173.txt"
    )
    (port,) = ev.hca_ports
    assert port["ca"] == "(device not named)"
    assert port["perftest"]["failed"] == (
        "Completion with error at client (IBV_WC_LOC_PROT_ERR, vendor syndrome 0x51), 700 of 828"
        " work requests completed"
    )


def test_a_healthy_nccl_start_says_its_version_network_and_gpus() -> None:
    ev = _load("nccl_tests_293_init_ib_sharp_a100_pcie_2node_healthy.log")
    assert ev.failures == []
    said = [m.message.removeprefix("log: ") for m in ev.files[0].messages]
    assert "NCCL 2.21.5+cuda12.4" in said
    assert "NCCL's network plugin: IBext_v8" in said
    assert "test1: NCCL's NET/IB uses [0]mlx5_0:1/IB/SHARP [RO]" in said
    assert "rank 1 on test2: GPU 0 NVIDIA A100-PCIE-40GB" in said


def test_npu_smis_board_answer_says_its_versions() -> None:
    ev = _load("npu_smi_info_t_board_i0_910b3_25_5_1_nvitop_sample.txt")
    assert ev.failures == [] and ev.files[0].status == "read"
    assert any(
        m.message.endswith(
            "npu-smi info -t board of NPU 0: software 25.5.1, firmware 7.7.0.6.236, compatibility"
            " OK, PCIe 0000:C1:00.0, serial 1023C7991472"
        )
        for m in ev.files[0].messages
    )


def test_a_gpus_block_without_the_tables_head_and_a_power_sensor_err() -> None:
    ev = _load("nvidia_smi_table_fragment_v100_pcie_power_err_transient_azhpc77.txt")
    (gpu,) = ev.gpus
    assert (gpu["gpu"], gpu["bus_id"], gpu["unreadable"], gpu["sensors_only"]) == (
        1,
        "00008ED0:00:00.0",
        ["power"],
        True,
    )
    assert (gpu["temp_c"], gpu["memory_used_mib"]) == (29, 593)
    findings = builtin_findings({"evidence.gpus": ev.gpus}, "nccl")
    assert findings["evidence-gpu-sensor-unreadable"].severity == "warning"
    assert "evidence-gpu-unreadable" not in findings


def test_dcgmi_diag_json_with_parts_elided_is_read_test_by_test() -> None:
    ev = _load("dcgmi_diag_r3_json_t400_all_tests_skip_elided_dcgm139_cut.txt")
    assert ev.files[0].status == "partial"  # (its elided parts said)
    (diag,) = ev.dcgm_diags
    assert [(c["section"], c["name"], c["result"], c["gpu_results"]) for c in diag["checks"]][
        :2
    ] == [
        ("Integration", "PCIe", "Skip", {"0": "Skip"}),
        ("Hardware", "GPU Memory", "Skip", {"0": "Skip"}),
    ]
    (item,) = builtin_findings({"evidence.dcgm_diags": ev.dcgm_diags}, "nccl")[
        "evidence-dcgm-diag-not-run"
    ].items
    assert item.startswith("skipped PCIe, GPU Memory, Diagnostic, EUD Test, Targeted Stress")


def test_dcgmi_diag_json_names_the_gpu_that_failed_and_its_warning() -> None:
    text = (
        '{\n "DCGM GPU Diagnostic" : {\n  "test_categories" : [\n   {\n'
        '    "category" : "Hardware",\n    "tests" : [\n     {\n      "name" : "GPU Memory",\n'
        '      "results" : [\n       { "gpu_id" : "0", "status" : "Pass" },\n'
        '       { "gpu_id" : "1", "status" : "Fail",\n'
        '         "warnings" : [ { "error_id" : 95, "warning" : "GPU 1 has uncorrectable'
        ' memory errors" } ] }\n      ]\n     }\n    ]\n   }\n  ]\n }\n}\n'
    )
    (diag,), warnings = dcgm.parse(text)
    (check,) = diag.checks
    assert (check.result, check.gpus, check.gpu_results) == (
        "Fail",
        "GPU: 1",
        {"0": "Pass", "1": "Fail"},
    )
    assert check.details == ["Warning: GPU 1: GPU 1 has uncorrectable memory errors"]
    assert warnings == []


def test_an_error_code_inside_a_traceback_pasted_flat_is_quoted_from_the_code() -> None:
    (error,) = _load("mmcv3203_910b_ez9999_aicpu_exception_oneline_wrapped.log").failures
    # (its "Aicpu kernel execute failed": an AI CPU kernel's exception on the device)
    assert (error["kind"], error["code"], error["line"]) == ("npu_device_exception", "EZ9999", 1)
    assert error["message"].startswith(
        "EZ9999: Inner Error, Please contact support engineer! EZ9999 Kernel task happen error,"
        " retCode=0x2a, [aicpu exception]"
    )


def test_a_healthy_plogs_setupagent_line_is_said() -> None:
    ev = _load("mindcluster_run_plog_hccl_init_healthy_rank0.log")
    assert not ev.failures
    said = [m.message for m in ev.files[0].messages]
    assert any(
        "communicator by root info: rank 0 of 3, root 1.1.1.1 port 60000, this host 1.1.1.1, "
        "device 0 (device IP 1.1.1.11)" in m
        for m in said
    )
