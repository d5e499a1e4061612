"""Outputs of round UUU's held-out evaluation (sets 553-558) that the advisor read wrong or not
at all before this change (tests/data/evidence_heldout_59, sources in tests/data/SOURCES.md):
Ascend tools and logs and NVIDIA logs (sets 555 and 556's tools are in their own files)."""

from __future__ import annotations

from advisor.parsers import logs
from tests import heldout
from tests.test_parsers_heldout_set453 import _load

# --- Ascend tools (set 553) --------------------------------------------------------------------


def test_link_stat_lines_without_their_colon_are_read() -> None:
    ev = _load(
        "hccn_tool_link_stat_loop_devid7_up2_down1_flap_dec14_2023_hccl_guide_packet_loss_copy.txt"
    )
    (port,) = ev.npu_ports
    assert (port["device"], port["link_up_count"], port["link_down_count"]) == (7, 2, 1)
    assert port["link_flapped"] is True


def test_asys_analyzed_crashes_are_the_processes_signals() -> None:
    (crash,) = _load(
        "asys_analyze_coredump_sigabrt_pid37246_libpython37_stack_maps_oamtools_doc.txt"
    ).failures
    assert (crash["kind"], crash["pid"], crash["exit_code"], crash["line"]) == (
        "launcher_exit",
        37246,
        134,
        3,
    )
    (crash,) = _load(
        "asys_analyze_coretrace_log_daemon_signal11_pid12335_adx_hdc_thread_oamtools_doc.txt"
    ).failures
    assert (crash["pid"], crash["exit_code"]) == (12335, 139)
    assert crash["message"] == "asys analyze -r=coretrace: signal 11 in log-daemon (pid 12335)"


def test_a_components_version_before_and_after_its_upgrade_is_said() -> None:
    ev = _load(
        "npu_smi_upgrade_mcu_i0_version_23_3_13_to_25_50_10_need_active_mcu_then_active_ok_atlas800i_a2_blog.txt"
    )
    assert (
        "ascend_notes: npu-smi upgrade -b mcu: NPU 0's mcu version 23.3.13, then 25.50.10 when "
        "asked again (the upgrade took)"
    ) in heldout.said(ev)


# --- Ascend logs (set 554) ---------------------------------------------------------------------


def test_a_programs_traceback_beside_its_own_error_line_is_read_as_its_log() -> None:
    for name, line, start in (
        (
            "onnxruntime26195_cann_ep_broadcasttod_aclopcompileandexecute_500002_acl_error_ge_failure_npu0_cut.log",
            3,
            "2025-09-29 06:21:38.967642262 [E:onnxruntime:Default, cann_call.cc:139 CannCall] CANN "
            "failure 500002",
        ),
        (
            "speculators_pr993_a3_dflash_triton_ascend_bishenghir_ub_overflow_4196608_of_1572864_bits_fused_ce_loss.log",
            4,
            "triton.compiler.errors.MLIRCompilationError:",
        ),
    ):
        (error,) = _load(name).failures
        assert (error["kind"], error["line"]) == ("log_error", line), name
        assert error["message"].startswith(start)


def test_hccls_op_retry_channel_that_could_not_connect_is_a_failure() -> None:
    ev = _load(
        "hiascend_81rc1_hcclug36_op_retry_recv_unmatched_ack_rank9_of_64_server_90_90_97_29_port_60000_flattened_cut.log"
    )
    (fail,) = ev.failures
    assert (fail["kind"], fail["rank"], fail["rank_size"], fail["ip"], fail["port"]) == (
        "hccl_op_retry_connect",
        9,
        64,
        "90.90.97.29",
        60000,
    )
    assert fail["exception_type"].endswith(
        "another process answered on that port ('Recv unmatched ack')"
    )
    assert "evidence-hccl-op-retry-connect" in heldout.found(ev, "hccl")


def test_torchruns_older_banner_is_named_as_its_launch() -> None:
    ev = _load(
        "fastchat_pr2422_npu_torchrun_omp_warning_checkpoint_shards_2of2_legacytypedispatch_warning_healthy_cut.log"
    )
    assert not ev.failures
    assert any(
        m.startswith("log: torchrun's launch (its OMP_NUM_THREADS notice)")
        for m in heldout.said(ev)
    )


# --- NVIDIA logs (sets 557 and 558) ------------------------------------------------------------


def test_a_log_pasted_as_comments_is_read_without_its_hashes() -> None:
    ev = _load(
        "selene_luna_torchrun_1_13_nnodes2_c10d_rdzv_localhost_29500_rendezvous_timeout_commented.log"
    )
    assert "read as comments: '#' taken off 39 line(s)" in [m.message for m in ev.files[0].messages]
    (fail,) = ev.failures
    assert fail["exception_type"].startswith("RendezvousTimeoutError")
    # (nccl-tests' own "#" lines are its output: kept)
    assert logs.is_program_log("# nThread 1 nGpus 1\n") is False


def test_torch_elastics_rendezvous_and_finished_agents_are_said() -> None:
    ev = _load(
        "lrc_es1_torchrun_2node_4xa40_c10d_n0000_rdzv_world8_50_epochs_succeeded_healthy.log"
    )
    (note,) = heldout.said(ev)
    # (and the rendezvous' master, and torchrun's command line that srun ran: set 575)
    assert note.endswith(
        "4 local worker(s); its rendezvous: master n0000.es1, port 57850, 2 agent(s) (nodes), a "
        "world of 8; 2 agent(s) said their workers finished (SUCCEEDED); torchrun's command line: "
        "2 node(s), 4 process(es) a node; no error"
    )


def test_deepspeeds_mpi_discovery_is_a_healthy_start() -> None:
    ev = _load(
        "thetagpu_mlprof_deepspeed_mpirun_32rank_4x8_mpi_discovery_10_epochs_test_acc96_healthy_quoted.log"
    )
    assert not ev.failures
    assert (
        "log: DeepSpeed found 32 rank(s) from MPI, of a world of 32 (master 10.230.2.200:29500); "
        "backend nccl; 32 rank(s) passed torch's store barrier; no error"
    ) in heldout.said(ev)


def test_paddles_enforce_on_an_nccl_result_is_an_nccl_call_failure() -> None:
    ev = _load(
        "paddle18576_p40_yolov3_iter346094_nccl_helper_h70_unhandled_cuda_error_enforcenotmet_allreduce_cut.log"
    )
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"], fail["code_name"]) == (
        "nccl_call_failure",
        3,
        "ncclUnhandledCudaError",
    )
    assert fail["call"].endswith("paddle/fluid/platform/nccl_helper.h:70")


def test_xgboosts_nccl_failure_with_a_space_before_its_colon() -> None:
    (fail,) = _load(
        "xgboost8929_dask_gpu_hist_device_helpers_135_nccl_failure_remote_process_exited_network_error_cut.log"
    ).failures
    assert (fail["kind"], fail["code_name"]) == ("nccl_call_failure", "ncclRemoteError")


def test_a_glog_check_that_failed_on_its_condition_0_is_an_error() -> None:
    (error,) = _load(
        "lmdeployv100_2_turbomind_tm_fatal_device_comm_28_unknown_communication_backend_nccl_interleaved.log"
    ).failures
    assert error["line"] == 1
    assert "Check failed: 0 Unknown communication backend: nccl" in error["message"]


def test_a_roce_tests_saved_report_with_its_compact_head_and_average_alone_is_read() -> None:
    ev = _load(
        "hccn_tool_roce_test_ib_read_bw_report_1qp_rc_mtu4096_1mib_93205_iters_23302_mbs_hulk0_saved_file_cut.txt"
    )
    (port,) = ev.hca_ports
    run = port["perftest"]
    assert (run["test"], run["bw_average_gbps"]) == ("RDMA_Read BW", 195.474)  # 23302.26 MiB/s
    assert run["rows"] == [{"bytes": 1048576, "iterations": 93205, "bw_average_gbps": 195.474}]


def test_lspcis_s_selection_names_the_device_of_its_grepped_link_lines() -> None:
    ev = _load(
        "nvidia_smi_query_gpu_pcie_gen_current_1_max_4_width_8_two_gpus_plus_lspci_lnksta_2_5gts_x8_downgraded.txt"
    )
    items = heldout.found(ev)["evidence-pcie-link-narrow"].items
    assert [i.split(":", 2)[0] + ":" + i.split(":", 2)[1] for i in items] == ["01:00.0", "03:00.0"]
