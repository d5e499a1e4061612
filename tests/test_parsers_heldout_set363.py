"""Outputs of round CC's held-out evaluation (sets 363-366; tests/data/evidence_heldout_53,
sources in tests/data/SOURCES.md) that the advisor read wrong or not at all before this change."""

from __future__ import annotations

import dataclasses
from functools import partial

from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_53"


_load = partial(heldout.load, HELDOUT)


def test_a_watchdog_killed_by_an_uncorrectable_ecc_error_is_the_gpus_fault() -> None:
    ev = _load("sdscripts1434_2xh100_cuda_uncorrectable_ecc_rank1_old_watchdog_terminated_cut.log")
    (death,) = [f for f in ev.failures if f["kind"] == "watchdog_exception"]
    assert (death["rank"], death["code_name"]) == (1, "uncorrectable ECC error")
    finding = builtin_findings({"evidence.failures": ev.failures}, "nccl")[
        "evidence-watchdog-exception"
    ]
    assert any("nvidia-smi -r" in r.why for r in finding.recommendations)


def test_xid_62_is_a_fault_that_needs_a_reset() -> None:
    ev = _load("nvforum371272_kernel_xid62_gsp_pmu_halted_xid154_reset_required_rtx5080_cut.log")
    kinds = {f["code"]: f["kind"] for f in ev.failures}
    assert kinds["62"] == kinds["154"] == "gpu_driver_fault"
    (xid62,) = [f for f in ev.failures if f["code"] == "62"]
    assert "micro-controller (its PMU) halted: it needs a reset" in xid62["code_name"]


def test_one_works_failure_seen_by_two_ranks_at_once_names_no_first_rank() -> None:
    ev = _load(
        "qwenvl194_torch27_failure_detected_seq1116_pg1_ranks1_2_flightrecorder_disabled_dump_"
        "signal_cut.log"
    )
    (timeline,) = ev.timelines
    # one failure of one work both ranks saw: no first rank, and none said to have waited
    assert timeline.one_collective and not timeline.all_waiting
    assert timeline.first_rank is None and timeline.tied == [1, 2]
    assert "one failure every rank saw" in timeline.summary
    findings = builtin_findings(
        {"evidence.timelines": [dataclasses.asdict(t) for t in ev.timelines]}, "nccl"
    )
    assert "evidence-failure-order" not in findings
    items = builtin_findings({"evidence.failures": ev.failures}, "nccl")[
        "evidence-watchdog-failure"
    ].items
    assert items[0].startswith("Rank 1, process group 1: work 1116 failed")


def test_ibstatus_with_no_device_under_sysfs_is_no_rdma_device() -> None:
    ev = _load("ibstatus_fatal_error_sys_files_not_found_no_ib_device_trinity219.txt")
    (none,) = ev.failures
    assert (none["kind"], none["line"], none["library"]) == ("rdma_no_device", 2, "ibstatus")


def test_show_gids_with_no_gid_is_a_warning() -> None:
    ev = _load("show_gids_k8s_pod_calico_no_gids_n_gids_found_0_k8srdmasriov30.txt")
    assert ev.files[0].formats == ["show_gids"]
    (none,) = ev.failures
    assert (none["kind"], none["line"]) == ("rdma_no_gid", 4)
    findings = builtin_findings({"evidence.failures": ev.failures}, "nccl")
    assert findings["evidence-rdma-no-gid"].severity == "warning"


def test_an_unhealthy_nvlink_fabric_is_a_warning() -> None:
    ev = _load("nvidia_smi_q_grep_fabric_gb200_state_completed_health_summary_unhealthy_dra626.txt")
    (gpu,) = ev.gpus
    assert gpu["fabric_status"] == "Success"
    assert gpu["fabric_health"] == {"Summary": "Unhealthy", "Bandwidth": "Full"}
    findings = builtin_findings({"evidence.gpus": ev.gpus}, "nccl")
    assert findings["evidence-gpu-fabric-unhealthy"].severity == "warning"
    assert "evidence-gpu-fabric-not-registered" not in findings


def test_two_gpus_joined_only_by_sys_are_said() -> None:
    ev = _load("nvidia_smi_topo_m_gpu_only_2x_rtx3090_sys_cross_numa_tabs_club3090_178_cut.txt")
    findings = builtin_findings({"evidence.topologies": ev.topologies}, "nccl")
    (item,) = findings["evidence-gpu-topology-sys"].items
    assert item.startswith("GPU0–GPU1 through SYS; CPU affinity GPU0 0-7,16-23, GPU1 8-15,24-31")


def test_a_finer_stamp_of_the_same_second_orders_the_ranks() -> None:
    ev = _load(
        "vllm_ascend5493_a2_2node_qwen3_235b_slave_aicore_timeout_507014_fftsplus_aivector_"
        "rank14_watchdog_err02005.log"
    )
    # process 1270's AI Core time-out is rank 14's (its watchdog line names the rank)
    first = next(f for f in ev.failures if f["line"] == 12)
    assert (first["rank"], first["pid"], first["code"]) == (14, 1270, "507014")
    (timeline,) = ev.timelines
    assert timeline.first_rank == 14


def test_the_roots_connected_list_names_the_ranks_that_never_connected() -> None:
    ev = _load(
        "hiascend_cann850_ei0015_server_topo_exchange_timeout_4_of_8_connected_ranks_0_2_4_6_"
        "flattened.log"
    )
    (nego,) = ev.failures
    assert (nego["rank_size"], nego["missing_ranks"]) == (8, [1, 3, 5, 7])


def test_a_healthy_plogs_communicator_and_settings_are_said() -> None:
    ev = _load(
        "mindcluster_net_diag_plog_hcom_init_by_file_rank7_of8_device7_connect_timeout600_healthy.log"
    )
    assert not ev.failures
    said = [m.message for m in ev.files[0].messages]
    assert any("rank 7 of 8 on server 51.38.67.77" in m for m in said)
    assert any("HCCL_CONNECT_TIMEOUT 600 (environment)" in m for m in said)


def test_atbs_failed_operator_and_hccl_runner_are_read() -> None:
    ev = _load("itove_mindie_4node_deepseek_gx4_gmm_setup_161002_then_allreduce_hccl_result6_2.log")
    ops = [f for f in ev.failures if f["kind"] == "npu_runtime_error"]
    assert len(ops) == 8 and {f["code"] for f in ops} == {"161002"}
    assert ops[0]["line"] == 22 and ops[0]["call"] == "gmmNode SetAclNNWorkspaceExecutor"
    runs = [(f["code"], f["code_name"]) for f in ev.failures if f["kind"] == "hccl_call_failure"]
    assert runs == [("6", "HCCL_E_NOT_FOUND"), ("2", "HCCL_E_PTR")]


def test_a_training_loops_loss_lines_are_a_healthy_log() -> None:
    ev = _load("mindspore_docs_msrun_2node_8worker_worker_log_loss_healthy.log")
    assert ev.files[0].status == "read" and not ev.failures
    (note,) = ev.files[0].messages
    assert "10 step(s) logged, from epoch 0 step 0 (loss 2.3499548)" in note.message


def test_npu_smi_t_commons_held_memory_is_said() -> None:
    ev = _load(
        "nvitop_npu_smi_info_t_common_i0_910b_hbm90_aicore0_curfreq800_tab_indented_sample.txt"
    )
    (chip,) = ev.npu_chips
    assert (chip["npu"], chip["hbm_used_pct"], chip["aicore_pct"], chip["health"]) == (
        0,
        90.0,
        0,
        None,
    )
    findings = builtin_findings({"evidence.npu_chips": ev.npu_chips}, "hccl")
    # a warning since set 577: memory held on a chip is memory the job about to start lacks
    assert findings["evidence-npu-hbm-held"].severity == "warning"
    (item,) = findings["evidence-npu-hbm-held"].items
    assert item.startswith("NPU 0 chip 0: HBM 90.0 % used, AICore 0 %")
    assert "evidence-npu-chip-health" not in findings  # no health stated, none judged


def test_a_query_the_device_does_not_serve_is_a_note() -> None:
    ev = _load("driver950_npu_smi_info_t_spod_info_i0_not_supported_doc.txt")
    assert ev.files[0].formats == ["ascend_notes"] and not ev.failures
    (note,) = ev.files[0].messages
    assert "npu-smi info -t spod-info: NPU 0 does not serve this query" in note.message
