"""Outputs of round NN's held-out evaluation (sets 405-408) and one leftover of round MM (set
404) that the advisor read wrong or not at all before this change (tests/data/
evidence_heldout_58, sources in tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial

from advisor.evidence.load import EvidenceFacts, load_text
from advisor.parsers import ethtool, iperf, nvidia_smi
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_58"


_load = partial(heldout.load, HELDOUT)


def _said(ev: EvidenceFacts) -> list[str]:
    return [m.message for f in ev.files for m in f.messages]


def _findings(ev: EvidenceFacts) -> dict[str, object]:
    return builtin_findings(
        {
            "evidence.failures": ev.failures,
            "evidence.npu_ports": ev.npu_ports,
            "evidence.dcgm_diags": ev.dcgm_diags,
        },
        "nccl",
    )


# --- iperf3 ---------------------------------------------------------------------------------


def test_iperf3_with_debug_json_reads_its_one_row_and_its_retransmits() -> None:
    ev = _load("iperf1088_iperf3_313_debug_json_25g_single_stream_12.8gbits_retr114.txt")
    assert ev.files[0].formats == ["iperf3"]
    (run,) = iperf.parse((HELDOUT / ev.files[0].path.rsplit("/", 1)[1]).read_text())
    assert (run.role, run.local, run.remote, run.remote_port) == (
        "client", "10.0.0.38", "10.0.0.4", 12345,
    )  # fmt: skip
    assert run.interval_bps == [12.8e9] and run.interval_retransmits == 114
    (note,) = _said(ev)
    assert "10.0.0.38 to 10.0.0.4:12345" in note and "114 TCP retransmits" in note
    # iperf3 prints no line rate: nothing is judged against one
    assert "judge the figure against the NIC's speed" in note and not ev.failures


def test_an_iperf3_client_without_retr_column_reads_sender_and_the_cut_receiver() -> None:
    ev = _load("iperf3winbuilds2_iperf3_313_windows_cx6_25g_7.86gbits_receiver_cut.txt")
    (note,) = _said(ev)
    assert "sender 7.86 Gbit/s" in note and "receiver 7.86 Gbit/s" in note
    assert "10 interval(s) of 5.45 Gbit/s to 9.9 Gbit/s" in note
    # the intervals fell to 55 % of the fastest: said unsteady
    assert "unsteady: intervals fell to 5.45 Gbit/s against 9.9 Gbit/s" in note
    assert ev.files[0].status == "partial"  # the receiver line lost its label


def test_the_iperf3_servers_zero_sender_line_is_its_own_not_a_failure() -> None:
    ev = _load("iperf408_iperf3_server_side_40g_3.3gbits_sender_zero_cut.txt")
    (note,) = _said(ev)
    assert note.startswith("iperf3: iperf3 server 192.168.110.94 from 192.168.110.95:45424")
    assert "0-byte summary line is the server's own" in note and "sender" not in note.split(":")[2]
    assert "11 interval(s) of 3.14 Gbit/s to 3.35 Gbit/s" in note and not ev.failures


def test_iperf3_with_parallel_streams_reads_the_sum_lines() -> None:
    ev = _load("rpi647_iperf3_P2_radxa_2.5g_sum_3.7gbits_cut.txt")
    (note,) = _said(ev)
    assert "2 streams" in note and "4 interval(s) of 3.62 Gbit/s to 3.71 Gbit/s" in note
    assert "(0 TCP retransmits in them)" in note


def test_iperf3_json_and_its_error() -> None:
    text = (
        '{\n  "start": {"connected": [{"local_host": "10.0.0.1", "remote_host": "10.0.0.2"}],\n'
        '    "connecting_to": {"host": "10.0.0.2", "port": 5201}},\n'
        '  "intervals": [{"sum": {"bits_per_second": 9.4e9}}, {"sum": {"bits_per_second": 9.3e9}}],\n'
        '  "end": {"sum_sent": {"seconds": 10.0, "bits_per_second": 9.35e9, "retransmits": 3},\n'
        '          "sum_received": {"bits_per_second": 9.3e9}}\n}\n'
    )
    (run,) = iperf.parse(text)
    assert (run.sender_bps, run.receiver_bps, run.retransmits, run.streams) == (
        9.35e9, 9.3e9, 3, 1,
    )  # fmt: skip
    refused = load_text(
        "Connecting to host 10.0.0.9, port 5201\n"
        "iperf3: error - unable to connect to server: Connection refused\n",
        "refused.txt",
    )
    (error,) = refused.failures
    # (iperf3's own error, a warning: the server's host answered; set 586 read it so)
    assert (error["kind"], error["line"]) == ("iperf_failed", 2)
    assert "the server 10.0.0.9 (port 5201)" in error["exception_type"]
    assert "Connection refused" in error["message"]


# --- ethtool, nvidia-smi -L, dcgmi diag, lspci, nvidia-smi -q -x -----------------------------------


def test_ethtool_settings_cut_before_its_link_line_say_the_link_is_unknown() -> None:
    ev = _load("checkbox331_ethtool_enp22s0f1_100g_supported_modes_cut.txt")
    assert ev.files[0].formats == ["ethtool_settings"] and ev.files[0].status == "partial"
    (note,) = _said(ev)
    assert "enp22s0f1: the copy ends before its 'Link detected' line" in note
    assert "fastest supported mode 100000 Mb/s" in note and not ev.failures


def test_ethtool_as_a_user_reads_the_link_and_says_what_it_could_not_get() -> None:
    ev = _load("opennic29_ethtool_nonroot_two_ports_link_detected_yes.txt")
    first, second = _said(ev)
    assert first.startswith("ethtool_settings: ethtool enp24s0f0: link detected")
    assert "could not get wake-on-lan: Operation not permitted" in first
    assert "enp24s0f1: link detected" in second and not ev.failures


def test_ethtool_with_no_link_is_a_link_down() -> None:
    (block,) = ethtool.parse_settings(
        "Settings for eth2:\n\tSpeed: Unknown!\n\tDuplex: Unknown! (255)\n\tLink detected: no\n"
    )
    assert (block.link_detected, block.speed, block.link_line) == (False, "Unknown!", 4)
    ev = load_text("Settings for eth2:\n\tSpeed: Unknown!\n\tLink detected: no\n", "e.txt")
    (down,) = ev.failures
    assert (down["kind"], down["line"]) == ("link_carrier_lost", 3)
    assert "evidence-link-carrier-lost" in _findings(ev)


def test_nvidia_smi_list_reads_the_gpus_and_their_mig_devices() -> None:
    ev = _load("telegraf5812_nvidia_smi_L_a100_sxm4_80gb_gpu0_mig_4x_1g20gb.txt")
    listed, mig = _said(ev)
    assert "4 GPU(s) (NVIDIA A100-SXM4-80GB): GPU 0, 1, 2, 3" in listed
    assert "GPU 0 is in MIG mode, split into 4 MIG device(s) (4 x 1g.20gb)" in mig
    gpus = nvidia_smi.parse_list((HELDOUT / ev.files[0].path.rsplit("/", 1)[1]).read_text())
    assert [len(g.mig) for g in gpus] == [4, 0, 0, 0]


def test_dcgm_refusing_a_mig_configuration_is_a_precondition_not_a_fault() -> None:
    ev = _load("dcgm70_dcgmi_diag_i0_r1_mig_gpu2_incompatible.txt")
    (diag,) = ev.dcgm_diags
    assert diag["level"] == "1" and not diag["failed"]
    (unmet,) = diag["precondition_failed"]
    assert unmet["gpus"] == "GPU: 2" and "no GPU was tested" in unmet["details"][0]
    findings = _findings(ev)
    assert "evidence-dcgm-diag-precondition" in findings
    assert "evidence-dcgm-diag-failed" not in findings


def test_lspci_block_without_its_link_lines_says_its_status() -> None:
    ev = _load("hwloc653_lspci_vvv_a100_sxm4_40gb_da00_cut_before_lnkcap.txt")
    (note,) = _said(ev)
    assert "da:00.0 3D controller [0302]: NVIDIA Corporation GA100 [A100 SXM4 40GB]" in note
    assert "device status shows no error bit" in note and "not in the copy" in note


def test_an_xml_fragment_of_nvidia_smi_q_says_its_figures() -> None:
    ev = _load("netdata2922_nvidia_smi_q_x_xml_fragment_pci_clocks_fb_cut.xml")
    assert ev.files[0].status == "partial" and not ev.gpus
    fragment = next(m for m in _said(ev) if "a fragment" in m)
    assert "performance state P5; PCIe replays 0" in fragment
    assert "clock throttle reasons active: gpu_idle; memory 912 MiB used of 6064 MiB" in fragment


# --- Ascend logs -----------------------------------------------------------------------------


def test_bare_vector_core_exceptions_are_the_devices() -> None:
    for name, cores, words in (
        (
            "vllm_ascend3955_qwen3next_aivec_ub_address_not_aligned_chipid1_cores45_46_cut.log",
            "45, 46",
            "The UB address accessed by the VEC instruction is not aligned",
        ),
        (
            "sherpa_onnx3076_910b2_om_aivec_exception_chipid1_core47_48_cut.log",
            "47, 48",
            "Illegal instruction, which is usually caused by unaligned UUB addresses",
        ),
    ):
        (exc,) = _load(name).failures
        assert (exc["kind"], exc["device"], exc["line"]) == ("npu_device_exception", 1, 1)
        assert exc["exception_type"] == f"aivec error exception on core(s) {cores} ({words})"


def test_a_cann_code_over_a_core_exception_is_one_device_exception() -> None:
    ev = _load(
        "gpustack1446_llama_box_910b1_cann_eh9999_allocation_granularity_207000_aivec_chipid1_cut.log"
    )
    (exc,) = ev.failures
    assert (exc["kind"], exc["code"], exc["device"]) == ("npu_device_exception", "EH9999", 1)
    assert exc["exception_type"] == "aivec error exception on core(s) 19"


def test_ggmls_abort_names_the_device_and_the_function() -> None:
    (error,) = _load(
        "llamacpp10161_cann_e89999_range_tiling_failed_aclnn_arange_device0.log"
    ).failures
    assert (error["code"], error["device"], error["call"], error["op"]) == (
        "E89999", 0, "aclnn_arange", "Range",
    )  # fmt: skip
    assert "ggml's aclnn_arange aborted on it" in error["exception_type"]


def test_ggml_start_up_logs_are_program_logs_with_no_error() -> None:
    for name in (
        "llamacpp10777_910b2_x4_cann_devices_startup_before_error_cut.log",
        "whispercpp2372_310p3_cann_backend_init_quoted_sched_alloc_splits_benign_cut.log",
        "whispercpp3421_310b1_orangepi_cann82rc1_whisper_cli_startup_prompt_cut.log",
    ):
        ev = _load(name)
        assert ev.files[0].formats == ["log"] and not ev.failures, name
        assert any("no line says an error" in m for m in _said(ev)), name


def test_a_workers_frames_whose_first_prefix_was_cut_are_read() -> None:
    ev = _load("vllm_ascend3008_dp_e2e_test_enginecore_dp1_traceback_head_no_exception_cut.log")
    (cut,) = ev.failures
    assert cut["kind"] == "python_exception" and "its exception not in it" in cut["message"]


def test_npu_smis_process_table_tail_is_read() -> None:
    ev = _load("vllm_ascend2082_npusmi_tail_no_procs_npu3_7_then_cann_8_2_rc1_version_info.txt")
    assert ev.files[0].formats == ["ascend_notes", "ascend_versions"]
    assert "no process running on NPU 3, 4, 5, 6, 7" in _said(ev)[0]


def test_npu_exporters_telegraf_line_reads_the_chips_network() -> None:
    ev = _load(
        "mindcluster_telegraf_data_desc_ascend910_0_network_status_0_link_status_1_health_1_elided_doc.txt"
    )
    assert ev.files[0].formats == ["npu_exporter"]
    (port,) = ev.npu_ports
    assert (port["device"], port["link"], port["net_health"]) == (
        0, "UP", "Unhealthy (npu-exporter network_status 0)",
    )  # fmt: skip
    assert "evidence-npu-port-down" in _findings(ev)


# --- GPU and CPU training logs ---------------------------------------------------------------


def test_horovod_shutdown_is_read_per_rank_behind_its_time_stamped_tags() -> None:
    ev = _load("horovod2097_horovodrun_slurm_timestamped_rank_stderr_shutdown_wrapped_cut.log")
    assert [(f["kind"], f["rank"]) for f in ev.failures] == [
        ("horovod_shutdown", 0), ("horovod_shutdown", 1),
    ]  # fmt: skip
    assert "evidence-horovod-shutdown" in _findings(ev)


def test_open_mpis_abort_banner_is_the_launchers_exit() -> None:
    ev = _load("horovod410_openmpi_primary_job_nonzero_exit_horovod_shutdown_aborted_cut.log")
    kinds = {f["kind"]: f for f in ev.failures}
    assert set(kinds) == {"launcher_exit", "horovod_shutdown"}
    assert kinds["launcher_exit"]["line"] == 2
    assert "1 process returned a non-zero exit code" in kinds["launcher_exit"]["message"]


def test_deepspeeds_launcher_killing_its_workers_is_a_failure() -> None:
    ev = _load("chatglm_finetuning102_deepspeed_loading_shards_0of7_killing_subprocess_cut.log")
    (killed,) = ev.failures
    assert (killed["kind"], killed["line"]) == ("launcher_exit", 1)
    # (the count said since set 708's mend, which reads the same kills before a traceback)
    assert "killed its 2 worker process(es) 6293, 6294" in killed["message"]


def test_process_group_wrappers_info_lines_are_a_healthy_log() -> None:
    ev = _load(
        "deepspeed4890_processgroupwrapper_detail_collective_fingerprint_rank0_rank1_seq1275_1277_cut.log"
    )
    assert ev.files[0].formats == ["log"] and not ev.failures


def test_old_nccls_version_and_transport_and_open_mpis_cma_read() -> None:
    ev = _load("horovod243_nccl2115_docker_socket_libibverbs_warn_vader_read_errno1_cut.log")
    said = _said(ev)
    assert "log: NCCL 2.1.15+cuda9.0" in said
    assert "log: NCCL's network: its internal Socket transport" in said
    assert "log: 062fc37504b7: NCCL's network uses eth0:172.17.0.3<0>" in said
    (cma,) = [f for f in ev.failures if f["kind"] == "mpi_transport_error"]
    assert (cma["host"], cma["code"], cma["line"]) == ("062fc37504b7", "1", 5)
    assert "EPERM" in cma["exception_type"] and "2 processes" in cma["exception_type"]
    assert "evidence-mpi-transport-error" in _findings(ev)
    # round MM's NCCL 2.4 log: its version and its socket network, said beside its WARN
    said = _said(_load("pytorch22531_nccl242_socket_ring_rank0_deadlock_cut.log"))
    assert "log: NCCL 2.4.2+cuda10.0" in said
    assert "log: ZBOX-EN1080K: NCCL's NET/Socket uses [0]eth0:30.4.241.186<0>" in said


def test_slurms_job_line_gives_the_step_its_reason() -> None:
    ev = _load(
        "submitit1613_slurm_step_cancelled_preemption_learnfair5146_submitted_job_exception_cut.log"
    )
    (cancelled,) = [f for f in ev.failures if f["kind"] == "job_cancelled"]
    assert (cancelled["line"], cancelled["code"]) == (1, "PREEMPTION")
    assert cancelled["exception_type"] == "slurmstepd (step 37361369.0 cancelled due to preemption)"


def test_the_rdma_cores_port_coming_up_is_a_note_and_its_going_down_a_link_lost() -> None:
    ev = _load("gpud1209_journalctl_k_grep_fallen_context_mlx5_link_init_active_cut.log")
    assert not ev.failures
    assert any(
        "mlx5_5 port 1 on 000-000-00000-1-gpu-1 came up (Link ACTIVE)" in m for m in _said(ev)
    )
    down = load_text(
        "Feb 14 05:03:41 gpu-1 kernel: mlx5_core 0000:ab:00.0 mlx5_5: Port: 1 Link ACTIVE\n"
        "Feb 14 06:10:02 gpu-1 kernel: mlx5_core 0000:ab:00.0 mlx5_5: Port: 1 Link DOWN\n",
        "k.log",
    )
    (lost,) = down.failures
    assert (lost["kind"], lost["host"], lost["line"]) == ("link_carrier_lost", "gpu-1", 2)
    assert "not back within the log" in lost["exception_type"]
    assert not any("came up" in m for m in _said(down))


# --- round MM's leftovers ----------------------------------------------------------------------


def test_one_error_line_alone_is_quoted_as_a_programs_error() -> None:
    ev = _load("llamafactory8514_910_npu_emptycache_context_pointer_null_single_line.log")
    (error,) = ev.failures
    assert (error["kind"], error["line"]) == ("log_error", 1)
    assert "rtGetDevMsg execute failed, reason=[context pointer null]" in error["message"]
    # a line that says nothing failed stays unknown: nothing is made up of it
    assert load_text("just a note of mine\n", "note.txt").files[0].status == "unknown"


def test_mlxlink_with_markdown_headings_is_read() -> None:
    ev = _load("kontronn_mlxlink_cx6_200g_active_rsfec_flattened.txt")
    (port,) = ev.hca_ports
    assert (port["ca"], port["state"], port["rate_gbps"], port["line"]) == (
        "mlx5_0",
        "Active",
        200.0,
        3,
    )
    assert not ev.failures


# --- round OO (sets 409-412) ---------------------------------------------------------------------


def test_iperf2_runs_are_read_as_iperf2_with_their_totals_and_broken_pipe() -> None:
    ev = _load(
        "iperf1069_iperf2_0_9_windows_client_write_failed_broken_pipe_18_7gbits_two_runs.txt"
    )
    first, second = _said(ev)
    assert "iperf 2 client 192.168.43.127 to 192.168.43.26:5001: 5 s; sender 18.7 Gbit/s" in first
    assert "the connection broke (write failed: Broken pipe)" in first
    assert "4 s; sender 19.1 Gbit/s" in second and "copy ends" not in first + second
    (broke,) = ev.failures
    assert (broke["kind"], broke["line"], broke["message"]) == (
        "log_error", 10, "write failed: Broken pipe",
    )  # fmt: skip


def test_iperf3s_window_asked_congestion_window_and_reverse_mode() -> None:
    (note,) = _said(
        _load("iperf198_bwctl_iperf3_quoted_gt_prefix_w32m_cwnd_822k_94mbits_intervals_cut.txt")
    )[:1]
    assert "congestion window 822 KBytes in every interval" in note
    assert "socket window 32m asked (-w)" in note and "83.9 Mbit/s to 398 Mbit/s" in note
    said = _said(_load("iperf333_iperf3_3_1_server_debug_get_parameters_reverse_2_58mbits_cut.txt"))
    assert "reverse mode (-R: the server sends, the client receives)" in said[0]
    assert "socket window 1048576 asked" in said[0]


def test_ethtool_link_below_what_both_ends_advertise_is_a_slow_link() -> None:
    ev = _load("bazzite5094_ethtool_eno1_2500baset_nic_speed_100mbs_partner_1000_cut.txt")
    (slow,) = ev.failures
    assert (slow["kind"], slow["line"]) == ("link_speed_low", 23)
    assert slow["exception_type"] == (
        "eno1 runs at 100Mb/s though it and its link partner both advertise 1000 Mb/s"
    )
    assert "evidence-nic-link-speed-low" in _findings(ev)


def test_ibv_devinfo_devices_it_could_not_open_are_said() -> None:
    ev = _load("k8srdma8_ibv_devinfo_failed_to_open_device_x8_mlx4_2_cx3_vf_port_active_ib.txt")
    assert ev.files[0].status == "partial" and len(ev.hca_ports) == 1
    assert any("could not open 8 RDMA device(s)" in m for m in _said(ev))


def test_mig_instances_ibv_devices_and_numactl_are_read() -> None:
    (mig,) = _said(_load("dra933_nvidia_smi_mig_lgi_i3_three_1g10gb_placements_0_1_5.txt"))
    assert "GPU 3 holds 3 GPU instance(s) (3 x 1g.10gb; instance ids 7, 8, 12)" in mig
    (devices,) = _said(
        _load("sriovdp20_ibv_devices_server_client_vf_node_guid_all_zero_collapsed_spaces.txt")
    )
    assert "node GUID 0 on mlx5_2, mlx5_3, mlx5_1" in devices
    (nodes,) = _said(_load("sonar358_numactl_H_8_nodes_16cpus_each_64gb_prompt_cut_node3.txt"))
    assert "numactl -H: 8 NUMA node(s); CPUs per node 0: 16, 1: 16, 2: 16" in nodes
    (table,) = _said(
        _load("numactl224_numactl_H_distances_only_4x_gh200_36_nodes_hbm_255_rows_0_6_cut.txt")
    )
    assert "36 NUMA node(s); the distance table's rows stop after 7 of its 36 nodes" in table
    assert "255 marks nodes the firmware says cannot reach each other" in table


def test_a_module_pathed_exception_alone_is_read() -> None:
    (raised,) = _load(
        "tfmodels9109_multiworker_mirrored_unavailable_socket_closed_grpc_collectivebcastrecv.log"
    ).failures
    assert (raised["kind"], raised["exception_type"], raised["line"]) == (
        "python_exception", "UnavailableError", 1,
    )  # fmt: skip
    assert "10.7.211.16:912" in raised["message"]


def test_lightning_1x_ranks_starting_are_a_healthy_start() -> None:
    ev = _load(
        "lightning10216_healthy_13_nodes_78_gpus_initializing_ddp_global_rank_member_cut.log"
    )
    (note,) = _said(ev)
    assert "Lightning started 14 rank(s) of a world of 78" in note and not ev.failures


def test_rays_dead_actor_names_its_process_node_and_exit_type() -> None:
    ev = _load(
        "simplerl25_openrlhf_ray_get_actordiederror_actormodelrayactorbox_pid5226_10_7_34_138_cut.log"
    )
    (died,) = ev.failures
    assert (died["pid"], died["host"]) == (5226, "10.7.34.138")
    assert died["exception_type"].startswith(
        "ActorDiedError: actor ActorModelRayActorBOX, pid 5226 on 10.7.34.138, its worker exited "
        "with SYSTEM_ERROR"
    )
    finding = _findings(ev)["evidence-python-exception"]
    (item,) = finding.items  # type: ignore[attr-defined]
    assert "its worker exited with SYSTEM_ERROR" in item


def test_submitits_requeued_preemption_is_said() -> None:
    ev = _load("submitit1701_slurm_sighup_preemption_requeued_learnfair0293_graceful_restart.log")
    assert not ev.failures
    assert any(
        "preempted on learnfair0293 (SIGHUP) and requeued as job 60601445" in m for m in _said(ev)
    )


def test_nccl_address_of_family_0_is_said_with_its_internal_error() -> None:
    ev = _load(
        "gitcode_blog_zh_ncclsocketinit_family0_distbackenderror_internal_error_nccl_version_mismatch.log"
    )
    (call,) = ev.failures
    assert call["code_name"] == "ncclInternalError"
    assert "peer address of family 0" in call["exception_type"]


def test_old_nccl_with_the_loopback_among_its_interfaces_is_said() -> None:
    ev = _load(
        "horovod789_nccl235_docker_backtick_socket_lo_127_and_eth0_two_interfaces_rank0_1_3_of_4_cut.log"
    )
    assert any(
        "NCCL's socket interfaces include the loopback (lo:127.0.0.1<0>, eth0:3.10.11.7<0>)" in m
        for m in _said(ev)
    )


def test_a_flattened_msaicerr_report_is_read_without_its_explanations() -> None:
    (exc,) = _load(
        "cann5046_msaicerr_info_txt_aicore_error_device0_transdata_code0x10_doc.txt"
    ).failures
    assert (exc["kind"], exc["device"], exc["code"], exc["op"]) == (
        "npu_device_exception", 0, "0x10", "trans_TransData_167",
    )  # fmt: skip
    assert "msaicerr:" not in exc["exception_type"]  # the page's "#..." note is no conclusion


def test_volcanos_fault_node_record_is_read() -> None:
    ev = _load(
        "mindcluster730_volcano_vcjob_fault_npu_cm_node133_910_4_separatenpu_910_0_network_doc.txt"
    )
    (note,) = _said(ev)
    assert note.endswith(
        "Volcano's fault-node record of node node133: unhealthy: Ascend910-4; with an unhealthy "
        "network: Ascend910-0"
    )
    assert "evidence-mindcluster-npu-fault" in _findings(ev)


def test_out_of_memory_past_any_device_and_mindsporess_pool() -> None:
    (oom,) = _load("fla_npu149_verl_910b_npu_oom_more_than_1eb_corrupt_labels.log").failures
    assert oom["kind"] == "device_oom" and "a size no device has" in oom["exception_type"]
    (pool,) = _load(
        "mindact1761_mindnlp_gemma7b_mindspore_pre_act_alloc_exceeds_total_mem_cut.log"
    ).failures
    assert (pool["kind"], pool["library"], pool["pid"]) == ("device_oom", "MindSpore", 54175)


def test_a_logged_traceback_starting_at_position_marks_names_its_last_frame() -> None:
    (error,) = _load(
        "vllm_omni2128_stage0_diffusion_worker_sdpa_traceback_frames_no_exception_cut.log"
    ).failures
    assert error["message"].startswith("a traceback logged at its error level, cut before")
    assert "in _maybe_reshape_attn_mask" in error["message"]


def test_a_documented_rank_table_with_a_comma_missing_is_read() -> None:
    ev = _load("mindcluster_doc_hccl_json_a2_800i_a2_32g_3dev_elided_missing_comma.json")
    (table,) = ev.rank_tables
    assert [(r["rank"], r["device_id"]) for r in table["ranks"]] == [(0, "0"), (1, "1"), (2, "2")]
    assert any("a comma missing at the end of line 23" in e for e in table["errors"])


def test_kubectl_node_devices_and_msnpureports_version() -> None:
    (node,) = _said(
        _load("mindcluster_quickstart_kubectl_describe_node_ascend910_8_expected_output.txt")
    )
    assert node.endswith("kubectl describe node: huawei.com/Ascend910 capacity 8, allocatable 8")
    held = load_text(
        "Capacity:\n  huawei.com/Ascend910:  8\nAllocatable:\n  huawei.com/Ascend910:  6\n", "n.txt"
    )
    assert "2 of the node's devices are held back" in _said(held)[0]
    (version,) = _said(_load("msnpureport_version_1_1_0_doc.txt"))
    assert "msnpureport 1.1.0" in version


def test_query_gpu_csv_put_in_columns_is_read() -> None:
    ev = _load("ethminer51_nvidia_smi_query_gpu_csv_piped_column_t_2x_gtx1080_prompt.txt")
    assert ev.files[0].formats == ["nvidia_smi_query_csv"]
    assert [(g["gpu"], g["name"], g["temp_c"]) for g in ev.gpus] == [
        (0, "GeForce GTX 1080", 38), (1, "GeForce GTX 1080", 35),
    ]  # fmt: skip


# --- round PP (sets 413-416) ---------------------------------------------------------------------


def test_ds_report_and_accelerate_env_are_said() -> None:
    (ops,) = _said(
        _load("deepspeedexamples147_ds_report_op_report_ninja_okay_all_ops_jit_compatible_cut.txt")
    )
    assert (
        "ds_report: 11 op(s), 0 pre-built; ninja OKAY; every op listed can be compiled here" in ops
    )
    (env,) = _said(
        _load(
            "deepspeed6762_ds_report_general_env_info_torch230_cu121_nvcc120_ds0155_unknown_git.txt"
        )
    )
    assert "torch version 2.3.0+cu121" in env and "shared memory (/dev/shm) size 125.77 GB" in env
    (acc,) = _said(
        _load("accelerate822_env_0132_torch1121_gpu_true_default_config_not_found_tab.txt")
    )
    assert "PyTorch version (GPU?) 1.12.1 (True)" in acc and "default config Not found" in acc


def test_horovods_build_and_checks() -> None:
    (build,) = _said(
        _load("horovod1399_check_build_v0181_no_frameworks_controllers_or_tensor_ops.txt")
    )
    assert "(Horovod 0.18.1): built with Frameworks: none" in build
    assert "no framework and no controller built, so Horovod cannot run a job" in build
    (checks,) = _said(
        _load(
            "horovod1401_backtick_horovodrun_verbose_ssh_ok_interface_check_ok_common_interface_eno1_then_stops.log"
        )
    )
    assert "SSH was successful into all the remote hosts" in checks
    assert "the hosts share interface eno1" in checks


def test_ray_status_healthy_and_failed_nodes() -> None:
    (ok,) = _said(
        _load("ray35411_ray_status_v_healthy_head_2_workers_no_demands_is_idle_false_cut.txt")
    )
    assert "healthy 1 ray.head.default, 2 ray.worker.default; pending none; no recent failure" in ok
    (failed,) = _said(
        _load(
            "ray14608_ray_status_recent_failure_10_0_0_157_custom1_pending_setting_up_waiting_for_ssh.txt"
        )
    )
    assert "recent failures: 10.0.0.157: custom1" in failed


def test_kubernetes_jobs_not_acted_on_and_pods_not_scheduled() -> None:
    (job,) = _said(
        _load(
            "kubeflowtrainer1856_kubectl_get_pytorchjobs_empty_state_30m_controller_crashloop.txt"
        )
    )
    assert "job pytorch-simple has no state after 30m: no controller has acted on it" in job
    ev = _load("kubeflowtrainer1598_tfjob_events_chief0_unschedulable_pvc_not_found_x15.txt")
    (pod,) = ev.failures
    assert (pod["kind"], pod["line"], pod["exception_type"]) == (
        "pod_unschedulable", 5, "unschedulable 15 times over 6m43s",
    )  # fmt: skip
    assert 'persistentvolumeclaim "train-11-data-dir" not found' in pod["message"]
    assert "evidence-pod-unschedulable" in _findings(ev)
    (gang,) = _load(
        "volcano1094_describe_vcjob_and_pg_pending_gang_unschedulable_notenoughresources_x78789.txt"
    ).failures
    assert gang["message"].endswith("1 minAvailable. (NotEnoughResources)")
    assert gang["exception_type"] == "unschedulable 78789 times over 26h"


def test_jax_start_and_deepspeeds_local_run_are_said() -> None:
    ev = _load(
        "jax8364_distributed_initialize_vm0_service_listening_connected_shutdown_ok_wrapped.log"
    )
    assert any(
        "a task connected to the controller; its tasks shut down: OK" in m for m in _said(ev)
    )
    assert not ev.failures
    ev = _load(
        "deepspeedexamples575_unable_to_find_hostfile_local_only_world_info_localhost_0_1_nnodes1_cut.log"
    )
    assert any(
        "no hostfile and runs on this node alone (1 node, 2 local process(es))" in m
        for m in _said(ev)
    )


def test_fabric_manager_set_up_failures_and_cuda_not_ready() -> None:
    for name, said in (
        (
            "sidero511_fabricmanager_config_item_invalid_value.log",
            "FABRIC_NODE_CONFIG_FILE has an invalid value",
        ),
        (
            "siderodocs581_nvlsm_umad_init_ib_umad_not_loaded.log",
            "the ib_umad kernel module is not loaded",
        ),
        (
            "canvos700_fm_start_nvl5_ib_umad_not_loaded_cut.log",
            "kernel module ib_umad is not loaded",
        ),
    ):
        (fm,) = _load(name).failures
        assert fm["kind"] == "fabric_manager_failed" and said in fm["exception_type"], name
    assert (
        _load("siderodocs581_nvlsm_umad_init_ib_umad_not_loaded.log").failures[0]["host"]
        == "10.0.0.101"
    )
    ev = _load("hfhub4134_h200_warmup_fabric_never_completed_error802.log")
    (cuda,) = ev.failures
    assert (cuda["kind"], cuda["call"], cuda["code"], cuda["line"]) == (
        "gpu_driver_error",
        "cuda_init",
        "802",
        9,
    )
    assert "evidence-cuda-not-ready" in _findings(ev)


def test_fabric_state_in_progress_and_a_headless_ibstat_port() -> None:
    ev = _load("gpuoperator2511_nvidia_smi_q_fabric_state_in_progress.txt")
    (gpu,) = ev.gpus
    assert gpu["fabric_state"] == "In Progress"
    findings = builtin_findings({"evidence.gpus": ev.gpus}, "nccl")
    assert "evidence-gpu-fabric-not-registered" in findings
    ev = _load("azhpc76_ibstat_port1_down_polling_elided.txt")
    (port,) = ev.hca_ports
    assert (port["ca"], port["state"], port["physical_state"]) == (
        "(device not named)",
        "Down",
        "Polling",
    )


def test_a_cut_ethtool_list_says_its_fastest_mode_is_the_copys() -> None:
    (note,) = _said(_load("lxd7370_ethtool_ens3f0_connectx5_prompt_cut.txt"))
    assert "of those the copy lists (it is cut, the list may go on)" in note


def test_ascend_stream_queues_run_out_and_torch_npus_code_words() -> None:
    (err,) = [
        f
        for f in _load(
            "vllm_ascend5213_plog_drv_alloc_chan_failed_devid3_sqcq_0x7020023_cut.log"
        ).failures
        if f["kind"] == "npu_runtime_error"
    ]
    assert (err["device"], err["call"], err["code"]) == (3, "halSqCqAllocate", "14")
    assert err["code_name"].startswith(
        "DRV_ERROR_NO_RESOURCES: no stream queue left on the device (150 in use)"
    )
    (npu,) = [
        f
        for f in _load("paddleocr_npu9_310p_repeated_init_100002_ee1001_context_null.log").failures
        if f["kind"] == "npu_runtime_error"
    ]
    assert (npu["code"], npu["code_name"]) == (
        "100002",
        "Repeated initialization or repeated loading.",
    )
    (inner,) = _load(
        "mineru4075_300i_duo_enginecore_dp0_inner_error_empty_cache_device0_cut.log"
    ).failures
    assert (inner["device"], inner["op"]) == (0, "Identity")


def test_paddles_failures_and_warnings() -> None:
    (enforce,) = _load(
        "paddle71882_300i_duo_docker_run_check_8_devices_sum_grad_enforcenotmet_cut.log"
    ).failures
    assert "pd_op.sum_grad raises an EnforceNotMet exception" in enforce["message"]
    (cpp,) = _load(
        "paddlecustomdevice1356_300i_duo_run_check_4_devices_cpp_traceback_head_cut.log"
    ).failures
    assert cpp["message"] == "C++ Traceback (most recent call last):"
    ev = _load(
        "fastdeploy2338_atlas300i_pro_pdlite_ascend_cann_version_mismatch_0_0_0_vs_5_1_2_cut.log"
    )
    assert not ev.failures
    assert any(
        "a warning of a version mismatch, as written" in m and "5.1.2" in m for m in _said(ev)
    )
    (ext,) = _load("paddleocr11337_paddle_custom_npu_910b_acl_error_500002_hard_swish.log").failures
    assert (ext["kind"], ext["exception_type"]) == ("python_exception", "ExternalError")


def test_a_samples_acl_code_and_the_drivers_dmesg() -> None:
    (err,) = _load(
        "ascend_samples16_atlas200_ep_acl_set_device0_507033_reset_507007_app.log"
    ).failures
    assert (err["kind"], err["line"], err["code_name"]) == (
        "npu_runtime_error",
        2,
        "ACL_ERROR_RT_DEV_SETUP_ERROR",
    )
    ev = _load("ascend_samples16_dmesg_ascend_devmm_svm_release_info_only_cut.log")
    assert ev.files[0].formats == ["log"] and not ev.failures


# --- round QQ (sets 417-420) and the review of this stop's readers --------------------------------


def test_cuda_samples_that_find_no_device() -> None:
    (unknown,) = _load("cudasamples13_devicequery_999_unknown_error_fail.log").failures
    assert (unknown["call"], unknown["code"]) == ("cuda_init", "999")
    assert unknown["message"].endswith("(unknown error)")
    ev = _load("cudasamples34_matrixmul_code100_cudaerrornodevice.log")
    (none,) = ev.failures
    assert none["code"] == "100" and "cudaErrorNoDevice" in none["exception_type"]
    assert "evidence-cuda-not-ready" in _findings(ev)


def test_dcgm_cut_in_its_metadata_perftests_refused_command_and_mst_status() -> None:
    ev = _load("dcgm282_dcgmi_diag_r1_metadata_only_cut.txt")
    assert ev.files[0].status == "partial" and not ev.dcgm_diags
    assert "(DCGM 4.4.1, driver 580.95.05), before any check's result" in _said(ev)[0]
    (port,) = _load("perftest336_ib_write_bw_cuda_dmabuf_without_cuda_parser_error.log").hca_ports
    assert port["perftest"]["failed"] == (
        "its command line was refused (CUDA DMA-BUF cannot be used without CUDA): no test ran"
    )
    said = _said(_load("sriovop786_mst_status_v_h100_connectx7_x6_prompt.txt"))
    assert "6 device(s) (ConnectX7(rev:0)); by NUMA node: 0: mlx5_1, mlx5_0" in said[0]


def test_iperf3_sum_lines_alone_are_not_a_wrappers_tag() -> None:
    ev = _load("iperf286_iperf3_sum_16streams_35gbps_on_100g.txt")
    (note,) = _said(ev)
    assert "sender 35.2 Gbit/s (0 TCP retransmits); receiver 35.2 Gbit/s" in note


def test_slurms_node_failures() -> None:
    for name, node, said in (
        (
            "trixie_slurmd_step_cancelled_stepd_terminated_job_not_ending_with_signals.log",
            "cn106",
            "did not end on SIGKILL",
        ),
        (
            "hpcfund_salloc_prolog_failure_job_allocation_revoked.txt",
            "k003-006",
            "its prolog script failed",
        ),
        ("soperator_salloc_error_node_failure_worker.txt", "worker-1", "the node failed"),
    ):
        fails = [f for f in _load(name).failures if f["library"] == "Slurm"]
        assert [(f["kind"], f["host"]) for f in fails] == [("launch_failed", node)], name
        assert said in fails[0]["message"], name
    # a drained node's state is the node's, not a launch that failed (evidence-slurm-node-unavailable)
    (drained,) = _load(
        "slurm_scontrol_show_node_idle_drain_gres_gpu_count_lower_than_configured.txt"
    ).failures
    assert (drained["kind"], drained["host"]) == ("node_unavailable", "yigou-dev-102-68")
    assert drained["message"] == (
        "node yigou-dev-102-68: IDLE+DRAIN: drained (unavailable per the administrator's "
        "request); reason: gres/gpu count reported lower than configured (0 < 1) "
        "[slurm@2024-12-19T11:03:34]"
    )


def test_nhc_passed_checks_kubectl_pods_and_collect_env() -> None:
    ev = _load("azure_nhc_check_ib_bw_gdr_pkeys_8x_ib_write_bw_400g_passed_cut.log")
    assert not ev.failures and "NHC health checks passed: check_ib_bw_gdr x8" in _said(ev)[0]
    ev = _load("katib1112_kubectl_get_pods_pytorchjob_master_crashloopbackoff_workers_init.txt")
    assert len(ev.failures) == 3 and all("CrashLoopBackOff" in f["message"] for f in ev.failures)
    assert "10 pod(s); 3 failing; 6 still in their init containers" in _said(ev)[0]
    (op,) = _load(
        "trainer1799_kubectl_get_pod_watch_training_operator_crashloopbackoff_restarts_20_23.txt"
    ).failures
    assert (
        op["message"]
        == "pod training-operator-64886bdddc-q6nr5 is CrashLoopBackOff after 23 restart(s)"
    )
    (env,) = _said(_load("pytorch44106_collect_env_rocm37_device_66a1_torch170a0_cut.txt"))
    assert "ROCM used to build PyTorch 3.7.20315-077bcfa0" in env and "Device 66a1" in env
    (acc,) = _said(
        _load(
            "accelerate3446_accelerate_env_0342_torch230_cu121_rtx_a6000_default_config_not_found.txt"
        )
    )[:1]
    assert "GPU type NVIDIA RTX A6000" in acc


def test_deepspeeds_ssh_check_and_rays_dead_node() -> None:
    (ssh,) = _load("deepspeed4907_runner_ssh_check_exit_255_cut.log").failures
    assert (
        ssh["host"] == "192.168.3.100" and "could not ssh to 192.168.3.100" in ssh["exception_type"]
    )
    (died,) = _load(
        "ray43751_train_rayactorerror_raytrainworker_node_died_10.72.56.3_cut.log"
    ).failures
    assert (died["pid"], died["host"]) == (6420, "10.72.56.3")
    assert "its node died" in died["exception_type"]


def test_ascend_driver_lines_with_their_level_first_and_a_devices_syslog() -> None:
    ev = _load("mindcluster_kgparse_syslog_drv_soft_fault_heartbeat_lost_device1_1000_10000.log")
    assert [f["device"] for f in ev.failures] == [1, 1000, 10000]
    assert all(
        f["kind"] == "npu_driver_error" and "Heartbeat lost" in f["exception_type"]
        for f in ev.failures
    )
    ev = _load(
        "oamtools_device_messages_dev0_icm_wait_response_too_long_218ms_then_pid_bind_cut.log"
    )
    assert ev.files[0].formats == ["log"] and not ev.failures


def test_an_inventory_above_a_traceback_leaves_the_exception_read() -> None:
    ev = load_text(
        "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-0a1b2c3d-1111-2222-3333-444455556666)\n"
        "GPU 1: NVIDIA A100-SXM4-80GB (UUID: GPU-0a1b2c3d-1111-2222-3333-444455556667)\n"
        "starting job on node1\nTraceback (most recent call last):\n"
        '  File "train.py", line 10, in <module>\n    main()\nValueError: bad shape for layer fc1\n',
        "job.log",
    )
    assert ev.files[0].formats == ["nvidia_smi_list", "log"]
    (raised,) = ev.failures
    assert (raised["kind"], raised["exception_type"]) == ("python_exception", "ValueError")
    # a log's own "Settings for ...:" line is no ethtool output
    assert load_text("Settings for training:\n  lr 0.1\n", "s.txt").files[0].status == "unknown"


def test_a_pods_resources_are_no_nodes_and_several_nodes_are_each_said() -> None:
    pod = "        resources:\n          limits:\n            huawei.com/Ascend910: 8\n"
    assert (
        load_text(pod + "          requests:\n            huawei.com/Ascend910: 4\n", "p.yaml")
        .files[0]
        .status
        == "unknown"
    )
    ev = load_text(
        "Name:               node-a\nCapacity:\n  nvidia.com/gpu:  8\nAllocatable:\n  nvidia.com/gpu:  8\n"
        "Name:               node-b\nCapacity:\n  nvidia.com/gpu:  8\nAllocatable:\n  nvidia.com/gpu:  6\n",
        "nodes.txt",
    )
    a, b = _said(ev)
    assert a.endswith("node node-a: nvidia.com/gpu capacity 8, allocatable 8")
    assert "node node-b: nvidia.com/gpu capacity 8, allocatable 6: 2 of the node's devices" in b


def test_odd_json_types_in_iperf3_and_volcano_records_do_not_crash() -> None:
    odd = '{\n "start": {"connecting_to": {"host": "a", "port": 5201}, "connected": "abc"},\n "end": {"sum_sent": 5},\n "intervals": [1, {"sum": {"bits_per_second": true}}]\n}\n'
    (run,) = iperf.parse(odd)
    assert (run.sender_bps, run.interval_bps, run.cut) == (None, [], True)
    ev = load_text(
        '[{"FaultDeviceList": [7, "x"], "NodeName": "n1", "UnhealthyNPU": "Ascend910-0,Ascend910-1", '
        '"NetworkUnhealthyNPU": 3}]\n',
        "fault.json",
    )
    assert "unhealthy: Ascend910-0, Ascend910-1" in _said(ev)[0]
    assert [f["message"].split()[-3] for f in ev.failures] == ["Ascend910-0", "Ascend910-1"]


def test_an_iperf3_udp_test_and_runs_that_keep_their_own_settings() -> None:
    udp = (
        "Connecting to host 10.0.0.2, port 5201\n"
        "[  5] local 10.0.0.1 port 1 connected to 10.0.0.2 port 5201\n"
        "[ ID] Interval           Transfer     Bitrate         Total Datagrams\n"
        "[  5]   0.00-1.00   sec   129 KBytes  1.05 Mbits/sec  91\n"
        "[  5]   1.00-2.00   sec   127 KBytes  1.04 Mbits/sec  90\n"
        "- - - - - - - - - - - - - - - - - - - - - - - - -\n"
        "[ ID] Interval           Transfer     Bitrate         Jitter    Lost/Total Datagrams\n"
        "[  5]   0.00-2.00   sec   256 KBytes  1.05 Mbits/sec  0.000 ms  0/181 (0%)  sender\n"
        "[  5]   0.00-2.00   sec   250 KBytes  1.02 Mbits/sec  0.020 ms  5/181 (2.8%)  receiver\n"
    )
    (run,) = iperf.parse(udp)
    assert (run.sender_bps, run.receiver_bps, run.retransmits, run.interval_retransmits) == (
        1.05e6, 1.02e6, None, None,
    )  # fmt: skip
    assert (run.lost_datagrams, run.total_datagrams, run.cut) == (5, 181, False)
    row = "[  5]   0.00-1.00   sec   1.10 GBytes  9.42 Gbits/sec\n"
    two = f"$ iperf3 -c 10.0.0.2 -R -w 64K\nReverse mode, remote host 10.0.0.2 is sending\nConnecting to host 10.0.0.2, port 5201\n{row}$ iperf3 -c 10.0.0.2\nConnecting to host 10.0.0.2, port 5201\n{row}"
    first, second = iperf.parse(two)
    assert (first.reverse, first.window) == (True, "64K") and (second.reverse, second.window) == (
        False,
        "",
    )


def test_a_config_file_is_no_programs_log() -> None:
    config = "model_name: llama-7b\nbatch_size: 32\nlearning_rate: 0.0001\nretry_on_error: Failed jobs are resubmitted\n"
    ev = load_text(config, "config.yaml")
    assert ev.files[0].status == "unknown" and not ev.failures


def test_kube_schedulers_failed_scheduling_and_rays_active_nodes() -> None:
    ev = load_text(
        "Events:\n  Type     Reason            Age                From               Message\n"
        "  ----     ------            ----               ----               -------\n"
        "  Warning  FailedScheduling  41s (x3 over 2m)   default-scheduler  0/5 nodes are available: "
        "5 Insufficient nvidia.com/gpu.\n",
        "events.txt",
    )
    (pod,) = ev.failures
    assert (pod["kind"], pod["library"]) == ("pod_unschedulable", "default-scheduler")
    ray = "======== Autoscaler status: 2024-01-01 ========\nNode status\n----\nActive:\n 1 node_abc\nIdle:\n 2 node_def\nPending:\n (no pending nodes)\nRecent failures:\n (no failures)\n"
    assert "healthy 1 node_abc, 2 node_def" in _said(load_text(ray, "ray.txt"))[0]


def test_the_runtimes_last_error_peeked_before_an_error_line_is_read() -> None:
    (err,) = _load(
        "mineru4233_910b2_peeklasterr_507899_pta_get_device_count_failed_then_vllm_engine_start_cut.log"
    ).failures
    assert (err["kind"], err["code"], err["code_name"], err["line"]) == (
        "npu_runtime_error", "507899", "ACL_ERROR_RT_DRV_INTERNAL_ERROR", 1,
    )  # fmt: skip
    # alone, at INFO, it is a code the runtime went on past
    assert not load_text(
        "[INFO] RUNTIME(1,python3):2025-12-23-02:13:21.089.239 [api_impl.cc:7817] 1 PeekLastErr: level=0 err=507899.\n"
        "[INFO] RUNTIME(1,python3):2025-12-23-02:13:21.089.300 [api_impl.cc:7818] 1 next\n",
        "plog.log",
    ).failures


# --- round RR (sets 421-422) ---------------------------------------------------------------------


def test_a_dcgm_table_cut_inside_a_row_is_cut_short() -> None:
    ev = _load("autopilot68_dcgmi_diag_r3_dcgm335_a100_4gpu_cut.txt")
    (diag,) = ev.dcgm_diags
    assert diag["cut"]["inside_row"] and diag["cut"]["missing"] == [
        "Integration",
        "Hardware",
        "Stress",
    ]
    assert diag["checks"][-1]["name"] == "Permissions and OS Blocks"
    findings = builtin_findings({"evidence.dcgm_diags": ev.dcgm_diags}, "nccl")
    (item,) = findings["evidence-dcgm-diag-cut-short"].items
    assert "the copy ends inside a row of its Deployment section" in item


def test_gpuds_fabric_manager_found_but_not_active() -> None:
    (fm,) = _load("gpud1151_fabric_manager_component_unhealthy_not_active_h100.json").failures
    assert (
        fm["kind"] == "fabric_manager_failed"
        and "installed but not running" in fm["exception_type"]
    )


# --- round SS (sets 423-424) ---------------------------------------------------------------------


def test_npu_exporters_error_codes_and_mindies_out_of_memory() -> None:
    (codes,) = _said(_load("npu_exporter_metrics_doc300.txt"))
    assert codes.endswith("error code of 8 chip(s): 0 on every one (no fault code)")
    (oom,) = _load("mindie_llm_hccl_oom_MIE05E000006.log").failures
    assert (oom["kind"], oom["code"], oom["line"]) == ("device_oom", "MIE05E000006", 3)


def test_torch_elastics_succeeded_workers_are_the_runs_success() -> None:
    ev = _load("diffuseq41_torchelastic_worker_status_succeeded.log")
    (done,) = ev.failures
    assert done["kind"] == "run_success" and "global rank 0, 1" in done["message"]
    failed = load_text(
        '{"name": "torchelastic.worker.status.SUCCEEDED", "metadata": {"global_rank": 0}}\n'
        '{"name": "torchelastic.worker.status.FAILED", "metadata": {"global_rank": 1}}\n',
        "events.log",
    )
    assert not any(f["kind"] == "run_success" for f in failed.failures)
