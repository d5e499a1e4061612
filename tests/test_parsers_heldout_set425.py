"""Outputs of round TT's held-out evaluation (sets 425-428), leftovers of round SS (set 424) and
real samples of the formats they brought (ip link / ip addr / ifconfig, sinfo and scontrol's
node states) that the advisor read wrong or not at all before this change (tests/data/
evidence_heldout_59, sources in tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial

from advisor.evidence.load import EvidenceFacts
from advisor.parsers import iperf, logs, nccl_tests, nccl_topo, netif, prechecks
from advisor.parsers.logs import torch_nccl_version
from advisor.plain import to_plain
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_59"


_load = partial(heldout.load, HELDOUT)


def _said(ev: EvidenceFacts) -> list[str]:
    return [m.message for f in ev.files for m in f.messages]


def _findings(ev: EvidenceFacts) -> dict[str, object]:
    return builtin_findings(
        {
            "evidence.failures": ev.failures,
            "evidence.npu_ports": ev.npu_ports,
            "evidence.npu_chips": ev.npu_chips,
            "evidence.rank_tables": ev.rank_tables,
        },
        "nccl",
    )


# --- network interfaces: ip link / ip addr / ifconfig ----------------------------------------


def test_ip_addr_names_interfaces_up_without_carrier_and_leaves_admin_down_alone() -> None:
    ev = _load("raspberrypi3939_ip_a_eth0_wlan0_no_carrier_up.txt")
    assert ev.files[0].formats == ["netif"]
    (note,) = _said(ev)
    # (the prompt names the host of what follows it; the wlan0 lines above it are another run's)
    assert note.startswith("netif: ip: 4 interface(s): wlan0 (mtu 1500): up, no carrier; ")
    assert "raspberrypi: lo (loopback, mtu 65536): up, link up;" in note
    assert "raspberrypi: eth0 (mtu 1500): up, no carrier" in note
    # eth0 is up with no carrier (iproute2's NO-CARRIER: IFF_UP without IFF_RUNNING); the
    # wireless wlan0 carries no training link
    (lost,) = ev.failures
    assert (lost["kind"], lost["line"], lost["host"]) == ("link_carrier_lost", 10, "raspberrypi")
    assert lost["exception_type"] == "eth0: ip shows it up with no carrier"
    assert "evidence-link-carrier-lost" in _findings(ev)

    ev = _load("hetzner939_ip_a_eth1_noop_down.txt")
    (note,) = _said(ev)
    assert "eth0 (mtu 1500): up, link up; 37.27.107.180/26" in note
    assert "eth1 (mtu 1500): administratively down" in note
    assert not ev.failures  # a port the administrator left down is no lost link


def test_ifconfig_old_and_new_layouts_and_freebsds_status() -> None:
    ev = _load("ifconfig_update6_old_nettools_eth0_up_not_running_wlan0_drops.txt")
    (lost,) = ev.failures  # "UP BROADCAST MULTICAST" without RUNNING: no carrier
    assert (lost["exception_type"], lost["line"]) == (
        "eth0: ifconfig shows it up with no carrier",
        1,
    )
    note, drops = _said(ev)
    assert "lo (Local Loopback, mtu 65536): up, link up; 127.0.0.1, ::1/128" in note
    assert (
        drops
        == "netif: error or drop counters not 0 (since the interface came up): wlan0 rx_dropped 44"
    )

    ev = _load("pyroute2_727_ifconfig_eth0_nettools_running.txt")
    assert _said(ev) == [
        "netif: ifconfig: 1 interface(s): eth0 (mtu 1500): up, link up; 192.168.0.103, "
        "fe80::efe0:399e:d345:e3e6"
    ]
    assert not ev.failures

    ev = _load("nvidia_freebsd_mlx5en_ifconfig_fec_sync_loss.txt")  # flattened to one line
    (lost,) = ev.failures
    assert lost["exception_type"] == (
        "mce0: ifconfig (FreeBSD) shows it up with no carrier (FEC sync loss)"
    )


def test_ip_s_link_counters_behind_markdown_code_marks() -> None:
    (bond,) = netif.parse(
        (HELDOUT / "haunraid13_ifconfig_and_ip_s_link_bond1_drops_markdown_ticks.txt").read_text()
    )
    # ifconfig's and ip's bond1 are one interface: the second tool adds what it says and
    # clears nothing (the first's counters stand where both gave them)
    assert (bond.name, bond.tool, bond.mtu, bond.no_carrier) == ("bond1", "ifconfig", 9000, False)
    assert bond.errors == {"rx_errors": 0, "rx_dropped": 185973, "tx_errors": 0, "tx_dropped": 1}
    assert bond.operstate == "UP"  # (ip's state, which ifconfig does not print)


def test_brief_form_reads_state_flags_and_addresses() -> None:
    # iproute2's -br lines (ip/ipaddress.c print_linkinfo_brief's columns: name, state, then
    # the link address and flags or the addresses)
    text = (
        "lo               UNKNOWN        00:00:00:00:00:00 <LOOPBACK,UP,LOWER_UP>\n"
        "ib0              DOWN           00:00:10:29:fe:80:00:00:00:00:00:00:b8:ce:f6:03:00:31:"
        "a6:4a <NO-CARRIER,BROADCAST,MULTICAST,UP>\n"
        "eth1             DOWN\n"
    )
    lo, ib0, eth1 = netif.parse(text)
    assert (lo.virtual, ib0.no_carrier, eth1.no_carrier) == (True, True, False)
    assert eth1.admin_up is True and eth1.operstate == "DOWN"


# --- Slurm's node states ---------------------------------------------------------------------


def test_sinfo_rows_of_nodes_slurm_will_not_give_a_job() -> None:
    ev = _load("arjuna69_sinfo_gpu_partition_drng_fail_maint.txt")
    said = [f["message"] for f in ev.failures]
    assert {f["kind"] for f in ev.failures} == {"node_unavailable"}
    assert said[:2] == [
        "node d[001-032],f[001-004,006-024]: 55 node(s) drng@: draining (finishes its jobs, "
        "takes no new one), a reboot pending (partition cpu)",
        "node f005: fail*: failing (expected to fail soon, unavailable per the administrator), "
        "not responding (partition cpu)",
    ]
    assert "node c[003,005,011,013,019]: 5 node(s) maint: in a maintenance reservation" in said[3]
    assert len(said) == 5  # the mix and idle rows can take a job
    assert "evidence-slurm-node-unavailable" in _findings(ev)

    ev = _load("elasticluster272_sinfo_lNe_down_not_responding_cut.txt")
    assert [f["host"] for f in ev.failures] == [f"compute00{n}" for n in range(1, 6)]
    assert ev.failures[0]["message"].endswith(
        "not responding; reason: Not responding (partition main*)"
    )
    assert ev.failures[4]["message"].endswith("reason: Not r (partition main*)")  # cut copy

    (low,) = _load("citc11_sinfo_list_reasons_low_realmemory.txt").failures
    assert low["message"] == (
        "node compute[001-003]: down, drained or failing (sinfo -R lists no other); "
        "reason: Low RealMemory"
    )


def test_scontrol_show_node_down_without_its_reason() -> None:
    (down,) = _load("sirepo2136_scontrol_show_node_localhost_down_cut.txt").failures
    assert (down["kind"], down["host"], down["line"]) == ("node_unavailable", "localhost", 10)
    assert down["message"] == (
        "node localhost: DOWN: down (Slurm or an administrator took it out of service)"
    )


def test_node_state_codes() -> None:
    assert prechecks.node_state("idle") is None and prechecks.node_state("mix-") is None
    assert prechecks.node_state("idle~") is None  # powered off until a job asks for it
    assert prechecks.node_state("DOWN+NOT_RESPONDING") == (
        "down (Slurm or an administrator took it out of service), not responding"
    )
    assert prechecks.node_state("idle*") == "not responding"
    assert prechecks.node_state("alloc$") == "in a maintenance reservation"


# --- iperf3: a transfer that stalled ---------------------------------------------------------


def test_iperf3_intervals_that_moved_no_data_are_a_stalled_transfer() -> None:
    ev = _load("iperf703_iperf3_10g_near_zero_cut.txt")
    (stall,) = ev.failures
    assert (stall["kind"], stall["line"]) == ("transfer_stalled", 2)
    assert stall["exception_type"] == (
        "7 interval(s) (7 s) moved no data, its congestion window at 1.41 KBytes, 5 TCP "
        "retransmits over the test's intervals"
    )
    assert _findings(ev)["evidence-transfer-stalled"]


# --- launchers ------------------------------------------------------------------------------


def test_older_colossalai_runs_failure_names_the_host() -> None:
    (ev,) = _load(
        "colossalai_examples180_colossalai_run_failed_to_run_torchrun_node_rank1_host2.txt"
    ).failures
    assert (ev["kind"], ev["host"]) == ("launcher_exit", "[host2 ip addr]")
    assert ev["exception_type"].startswith("colossalai run (the command failed on the host")


def test_horovodruns_start_timeout_even_when_cut_in_its_frame() -> None:
    ev = _load(
        "horovod1414_horovodrun_2hosts_cu11_cu08_wait_initial_registration_tasks_to_start_cut.log"
    )
    (launch,) = [f for f in ev.failures if f["kind"] == "launch_failed"]
    assert launch["line"] == 20
    assert launch["exception_type"].startswith("horovodrun timed out waiting for tasks to start")
    assert launch["exception_type"].endswith("(the copy ends in the frame that raised it)")
    assert not [f for f in ev.failures if f["kind"] == "python_exception"]


# --- torch and NCCL ---------------------------------------------------------------------------


def test_an_older_torchs_watchdog_record_wrapped_with_its_seqnum_after_the_op() -> None:
    (w,) = _load(
        "anysplat61_old_torch_watchdog_wrapped_allreduce_seq458_1800600ms_no_rank.log"
    ).failures
    assert (w["kind"], w["op"], w["seq"], w["ran_for_ms"], w["timeout_ms"]) == (
        "watchdog_timeout", "all_reduce", 458, 1800600, None,
    )  # fmt: skip


def test_torchs_nccl_version_misprinted_or_wrapped_is_read() -> None:
    assert torch_nccl_version(21, 0, 3) == ("2.10.3", True)
    assert torch_nccl_version(2, 7, 8) == ("2.7.8", False)
    assert torch_nccl_version(22, 1, 5) == ("2.21.5", True)
    ev = _load(
        "metaseq90_ncclcommabort_unhandled_cuda_error_nccl_version_21_0_3_rank0_pg_destroyed_frames_cut.log"
    )
    (fail,) = ev.failures
    # ("Process Group destroyed on rank 0": the rank within that group, said, not taken for the
    # job's rank)
    assert (fail["rank"], fail["code_name"]) == (None, "ncclUnhandledCudaError")
    assert fail["call"].endswith(
        "torch destroyed the group on its rank 0 (the rank within that process group)"
    )
    assert "ncclCommAbort, as the process group was destroyed" in fail["call"]
    assert _said(ev) == [
        "log: NCCL 2.10.3 (torch printed it as 21.0.3: its decoding predates NCCL 2.9's version "
        "code) (torch's account of the failed call)"
    ]
    ev = _load("trixie87_torchrun_nccl_unhandled_system_error_wrapped.log")
    assert _said(ev) == ["log: NCCL 2.10.3 (torch's account of the failed call)"]


def test_nccl_tests_header_keeps_the_gpus_and_ncclS_version() -> None:
    (bench,) = _load(
        "tinygrad_ogkm17_nccl_tests_8x_rtx4090_header_genoa_nccl2243_init_only_cut.log"
    ).benchmarks
    assert bench["gpu_models"] == {"NVIDIA GeForce RTX 4090": 8}
    assert bench["nccl_version"] == "2.24.3+cuda12.6"


# --- Ascend ---------------------------------------------------------------------------------


def test_net_health_init_is_no_port_fault() -> None:
    ev = _load("mindcluster_npu_info_before_hccn_block_net_health_init_optical_los_zh_doc.txt")
    (port,) = ev.npu_ports
    assert (port["net_health"], port["link"]) == ("Init", "UP")
    findings = _findings(ev)
    assert "evidence-npu-port-down" not in findings
    assert "evidence-npu-optical-alarm" in findings


def test_npu_smis_current_fault_event_of_major_severity_is_an_alarm() -> None:
    ev = _load("npu_smi_950_current_fault_event_0x81AF8000_driver_doc.txt")
    (event,) = ev.failures
    assert (event["kind"], event["code"], event["code_name"], event["device"]) == (
        "npu_fault_event", "0x81AF8000", "Alarm", 0,
    )  # fmt: skip
    assert "evidence-npu-fault-event-alarm" in _findings(ev)


def test_a_flattened_commented_rank_table_cut_in_a_value_is_read_as_far_as_it_goes() -> None:
    ev = _load("rank_table_a3_superpod_v1_2_hcclug_82rc1_cut.json")
    (table,) = ev.rank_tables
    assert table["version"] == "1.2" and table["cut"]
    assert [r["rank"] for r in table["ranks"]][:3] == [0, 1, 2]
    assert {r["server_id"] for r in table["ranks"]} == {"node_0"}
    assert table["errors"] == [
        "not valid JSON: // comments (line 1); a JSON parser refuses the file: remove them"
    ]


# --- NCCL's topology dump -------------------------------------------------------------------


def test_ncclS_topology_dump_is_said_as_far_as_the_copy_goes() -> None:
    ev = _load("nccl1505_topo_xml_dgx_a100_gpu0_nvlink_mlx5_0_cut.xml")
    assert ev.files[0].formats == ["nccl_topo"] and not ev.failures
    note, indent = _said(ev)
    assert indent == "the indent every line shares (6 character(s)) taken off"
    assert note == (
        "nccl_topo: NCCL topology dump: 1 GPU(s): GPU 0 (rank 0) sm 80 0000:07:00.0 PCIe 16.0 "
        "GT/s PCIe x16, 12 NVLink(s) to 6 peer(s) (12 to NVSwitches); 1 NIC port(s): mlx5_0 "
        "200 Gb/s port 1 GPU Direct RDMA; the copy is cut: only the part of the tree it holds "
        "is read (what NCCL detected, not judged)"
    )
    topo = nccl_topo.parse(
        (HELDOUT / "simai128_h100_topo_xml_fragment_net_gdr0_cut.xml").read_text()
    )
    assert [(g.dev, sum(g.nvlinks.values())) for g in topo.gpus] == [(5, 18), (7, 4)]
    (net,) = topo.nets
    assert (net.name, net.speed_mbps, net.gdr, net.busid) == (
        "mlx5_5",
        400000,
        False,
        "0000:da:00.0",
    )
    (gpu,) = nccl_topo.parse(
        (HELDOUT / "rccl1185_topo_xml_version2_mi300_gpu0_cut.xml").read_text()
    ).gpus
    assert (gpu.gcn, gpu.busid, gpu.link_width, gpu.nvlinks) == ("21943", "0000:37:00.0", 16, {})


# --- libfabric (round QQ's leftovers) ---------------------------------------------------------


def test_fi_info_and_the_fabtests_ping_pong_are_said() -> None:
    (note,) = _said(_load("libfabric_fi_info_p_efa_efa0_rdm_dgrm_rxd.txt"))
    assert note == (
        "libfabric: fi_info: provider efa: efa_0-rdm FI_EP_RDM FI_PROTO_EFA, efa_0-dgrm "
        "FI_EP_DGRAM FI_PROTO_EFA; provider efa;ofi_rxd: efa_0-dgrm FI_EP_RDM FI_PROTO_RXD; the "
        "EFA provider offers its RDM endpoint (SRD), the one NCCL's aws-ofi-nccl plugin sends over"
    )
    (note,) = _said(_load("libfabric_fi_pingpong_efa_rdm_client_cut.txt"))
    assert note == (
        "libfabric: fabtests' ping-pong (fi_pingpong -e rdm -p efa ip-172-31-10-128): 3 size(s) "
        "from 64 B to 1024 B went both ways; at most 48.53 MB/s, 21.1 us a transfer at best"
    )


def test_a_check_that_failed_under_libfabrics_debug_lines_is_the_logs_error() -> None:
    ev = _load("aws_libfabric_fi_getinfo_ofi_mrail_enodata_couldnt_get_efa_provider.log")
    (err,) = ev.failures
    assert (err["kind"], err["line"]) == ("log_error", 7)
    assert err["message"].endswith(
        "Check failed: strcmp(ofi_provider_->fabric_attr->prov_name, "
        '"efa") == 0 couldn\'t get EFA as provider'
    )


# --- round UU (sets 429-432) ------------------------------------------------------------------


def test_slurm_jobs_that_failed_or_cannot_start() -> None:
    (job,) = _load("ubuntuslurm5_scontrol_show_job_failed_nonzeroexit.log").failures
    assert (job["kind"], job["host"]) == ("launcher_exit", "asus")
    assert job["message"] == (
        "job (its id not in the copy) FAILED: its run ended with a non-zero exit code (reason "
        "NonZeroExitCode), exit code 1 (nodes asus)"
    )
    held = _load("burrmill15_squeue_launch_failed_requeued_held.log").failures
    assert [(f["kind"], f["message"]) for f in held] == [
        ("launch_failed", f"job 80520_{n} PENDING (launch failed requeued held): its launch "
         "failed; Slurm requeued it and holds it")
        for n in (36, 56)
    ]  # fmt: skip
    ev = _load("azhop686_squeue_sinfo_draining_ansible_quoted.log")
    assert "6 line(s) read as the JSON strings they were printed as (quotes taken off)" in _said(ev)
    assert any("still completing" in m and "job 4 on hb120v2-2" in m for m in _said(ev))
    (drng,) = ev.failures
    assert drng["message"].startswith("node hb120v2-2: draining: draining")


def test_a_step_slurm_cancelled_for_one_tasks_failure_names_that_task() -> None:
    ev = _load("desispec2744_srun_task_failure_sacct_completed.log")
    exits = [f for f in ev.failures if f["kind"] == "launcher_exit"]
    failed, stopped = exits  # (the task's account at the STEP line, above srun's)
    assert stopped["message"] == (
        "63 task(s) terminated (SIGTERM) by Slurm as it cancelled step 52222788.0 for a task's "
        "failure"
    )
    assert (failed["rank"], failed["host"], failed["root_cause"]) == (58, "nid002888", True)


def test_kubernetes_pods_without_their_header_and_the_kubelets_refusals() -> None:
    ev = _load("mpiop90_launcher_crashloop_worker_rank1_signal9.log")
    kinds = {(f["kind"], f.get("rank")) for f in ev.failures}
    assert ("pod_failing", None) in kinds and ("launcher_exit", 1) in kinds
    (init,) = _load("mpiop481_launcher_init_podinitializing.log").failures
    assert init["message"].startswith(
        "pod tensorflow-mnist-elastic-launcher is Init:0/1 after 6m11s (still in its init "
        "containers"
    )
    (admit,) = _load("kuberay1414_worker_pod_unexpectedadmissionerror_gpu.log").failures
    assert admit["kind"] == "container_start_failure"
    assert "unable to find GPU device allocation by scheduler" in admit["exception_type"]
    ev = _load("k8sdp119_events_unschedulable_kubelet_endpoint.log")
    assert {f["kind"] for f in ev.failures} == {"container_start_failure", "pod_unschedulable"}
    gangs = [
        f["library"]
        for f in _load("volcano2986_describe_vcjob_podgroup_pending.log").failures
        if "gang" in f["message"]
    ]
    assert gangs == ["vc-controller-manager", "vc-controller-manager"]


def test_rdma_tests_that_failed_or_hung_and_those_that_measured() -> None:
    (port,) = _load("softiwarp27_ib_send_bw_completion_error_status12_syndrom0x81.txt").hca_ports
    assert port["perftest"]["failed"] == (
        "Completion with error at client (IBV_WC_RETRY_EXC_ERR, vendor syndrome 0x81), 0 of 128 "
        "work requests completed"
    )
    (port,) = _load("pib3_ib_read_bw_pib0_server_pp_read_keys_couldnt_read_remote.log").hca_ports
    assert port["perftest"]["failed"] == "Couldn't read remote address"
    (hang,) = _load("rxe47_ibv_rc_pingpong_rxe0_gid0_hang.txt").failures
    assert (hang["kind"], hang["library"]) == ("transfer_stalled", "libibverbs")
    (ucx,) = _said(_load("ucx10649_tag_bw_bond_46gbs_final.txt"))
    assert ucx.startswith("pingpong: ucx_perftest tag_bw: 1000 iterations, 46743.6 MB/s overall")
    ev = _load("pib5_ibnetdiscover_server_pseudo_switch_2hca_12xqdr.txt")
    assert {(p["tool"], p["rate_gbps"]) for p in ev.hca_ports} == {("ibnetdiscover", 120.0)}
    assert len(ev.hca_ports) == 6


def test_nvidia_gsp_failures_dcgm_and_lspci() -> None:
    # (the Xid 109 is a fault of its own: the Xid catalog's immediate action for it is RESET_GPU)
    (xid, crash) = [
        f
        for f in _load(
            "ogkm1045_journal_fedora_box_gsp_crash_report_tail_xid109_ctx_switch_timeout_amdvi_io_page_fault_cut.log"
        ).failures
        if f["kind"] == "gpu_driver_fault"
    ]
    assert (xid["code"], xid["line"]) == ("109", 7)
    assert "after the firmware's crash report above" in crash["exception_type"]
    (lost,) = _load(
        "ogkm1080_journalctl_b1_grep_tail_ethan_desktop_gpu0_gsp_rpc_failed_status_0xf_asserts_cut.log"
    ).failures
    assert (lost["kind"], lost["device"]) == ("gpu_driver_fault", 0)
    assert "0x0000000f NV_ERR_GPU_IS_LOST (GPU lost from the bus)" in lost["exception_type"]
    (thermal,) = _load(
        "dcgm270_nv_hostengine_health_thermal_warning_clocks_event_thermal_violation_gpu2.log"
    ).failures
    assert thermal["kind"] == "log_error" and "thermal violation in GPU 2" in thermal["message"]
    (diag,) = _load(
        "vineethac_dcgmi_diag_r3_8x_h100_gpu0_diagnostic_fail_faulty_memory_elements_flattened_one_line_cut.txt"
    ).dcgm_diags
    (failed,) = diag["failed"]
    assert (failed["name"], failed["gpus"]) == ("Diagnostic", "GPU: 0")
    assert "Found 56954234 faulty memory elements on GPU 0" in failed["summary"]
    (note,) = _said(_load("volcengine_faq_lspci_grep_nvidia_device_2236_rev_a1_second_gpu_cut.txt"))
    assert note.startswith("lspci_list: lspci: 2 device(s) (3D controller x2)")


def test_ascend_kernel_package_worker_prefix_and_mindspores_bookkeeping_line() -> None:
    ev = _load("llamafactory_3796_aclnncast_ez9999_cast_json_no_binary_561000.log")
    (kernels,) = [f for f in ev.failures if f["kind"] == "library_missing"]
    assert kernels["exception_type"].startswith("CANN has no kernel binary for operator(s) Cast")
    (err,) = _load("vllm_ascend_pr4433_worker_tp2_ep2_ge_load_graph_failed_1343225857.log").failures
    assert err["worker"] == "Worker_TP2_EP2"
    (cut,) = _load(
        "mindone_207_mindspore_sd_text_encoder_dumpdebuginfo_exec_order_traceback_cut.log"
    ).failures
    assert cut["kind"] == "python_exception"
    assert "copy ends inside a traceback" in cut["message"]


# --- round VV (sets 433-436) ------------------------------------------------------------------


def test_kubernetes_pods_of_all_namespaces_daemonsets_and_the_operators_own_pod() -> None:
    (op,) = _load(
        "gpuop624_kubectl_get_pods_n_gpu_operator_operator_crashloopbackoff_cut.txt"
    ).failures
    assert (op["kind"], op["message"]) == (
        "pod_failing", "pod gpu-operator-657c5b798d-xgvgc is CrashLoopBackOff after 12 restart(s)",
    )  # fmt: skip
    assert "evidence-pod-failing" in _findings(
        _load("gpuop624_kubectl_get_pods_n_gpu_operator_operator_crashloopbackoff_cut.txt")
    )
    (drv,) = _load(
        "microk8s2763_kubectl_get_pods_gpu_operator_driver_init_crashloopbackoff.txt"
    ).failures
    assert (
        drv["message"]
        == "pod nvidia-driver-daemonset-8r8s6 is Init:CrashLoopBackOff after 8 restart(s)"
    )
    ev = _load("gpuop751_microk8s_kubectl_get_ds_gpu_operator_resources_0_ready.txt")
    assert [f["message"] for f in ev.failures][:2] == [
        "gpu-feature-discovery: DaemonSet with 0 of 1 pod(s) ready",
        "nvidia-container-toolkit-daemonset: DaemonSet with 0 of 1 pod(s) ready",
    ]
    assert len(ev.failures) == 5  # (the mig manager wants none, the node discovery has its one)


def test_a_query_csv_without_index_lspci_nn_and_a_glued_fence() -> None:
    ev = _load("providercfg81_nvidia_smi_query_csv_and_lspci_nn_2x_quadro_rtx6000_570.txt")
    assert ev.files[0].formats == ["lspci_list", "nvidia_smi_query_csv"]
    assert [(g["gpu"], g["name"]) for g in ev.gpus] == [
        (0, "Quadro RTX 6000"),
        (1, "Quadro RTX 6000"),
    ]
    said = _said(
        _load("deepomatic15_kubectl_describe_node_allocatable_shared_gpu_0_nvidia_gpu_1_fenced.txt")
    )
    assert (
        "k8s_node_devices: kubectl describe node: deepomatic.com/shared-gpu Allocatable 0" in said
    )
    assert "1 Markdown fence(s) glued to a line's start taken off" in said


def test_cuda_802_as_nccls_last_error_and_nccls_own_out_of_memory() -> None:
    ev = _load("nccl1231_distbackenderror_cuda_802_system_not_yet_initialized.log")
    assert "evidence-cuda-not-ready" in _findings(ev)
    ev = _load("megatron1509_nccl_warn_cuda_failure_oom_cublas_alloc_failed.log")
    ooms = [(f["device"], f["library"]) for f in ev.failures if f["kind"] == "device_oom"]
    assert ooms == [(0, "NCCL"), (7, "NCCL"), (None, "cuBLAS")]


def test_time_outs_of_one_seqnum_in_other_collectives_with_no_group_named() -> None:
    ev = _load("llamafactory74_watchdog_rank1_allgather_rank0_broadcast_seq80.log")
    (timeline,) = ev.timelines
    assert timeline.unnamed_mismatch == {"all_gather": [1], "broadcast": [0]}
    assert timeline.mismatched_ops == {}  # (no group named: not said for certain)
    findings = builtin_findings(
        {"evidence.failures": ev.failures, "evidence.timelines": [to_plain(timeline)]}, "nccl"
    )
    assert "evidence-collective-mismatch-unnamed-group" in findings
    assert "evidence-collective-mismatch" not in findings


def test_npu_smis_hccs_topo_answer_and_lldptool_on_a_host_nic() -> None:
    (note,) = _said(_load("hiascend_npu_smi_hccs_topo_not_supported_atlas200ia2.txt"))
    assert "npu-smi info -t hccs (its topology, -R): NPU 0 does not serve this query" in note
    (note,) = _said(_load("csdn_lldptool_kunpeng_host_nic_neighbor_s5700.txt"))
    assert note == (
        "lldp_host: LLDP neighbour of a host NIC (enp125s0f0) from lldptool/lldpctl, not "
        "hccn_tool's (no NPU port): switch WX-2F.C4.35U-S5700_8, port GigabitEthernet0/0/41, "
        "management address 10.192.6.8, chassis e8:bd:d1:03:4c:d0"
    )


# --- round WW (set 439): schedulers and launchers that refused or could not start the job -----


def test_slurm_refusing_the_job_is_a_launch_that_never_started() -> None:
    ev = _load("hpcfund83_srun_allocate_socket_timed_out.txt")
    # (its one error line is read by the format that knows it, not again as a program's log)
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"], fail["library"]) == ("launch_failed", 1, "Slurm")
    assert "slurmctld did not answer in time" in fail["message"]
    assert not _said(ev)
    assert "evidence-launch-failed" in _findings(ev)
    (fail,) = _load("slinky18_sbatch_requested_node_config_not_available.txt").failures
    assert (fail["kind"], fail["line"]) == ("launch_failed", 2)
    assert fail["message"].startswith(
        "sbatch: the job was refused before it started (Requested node configuration is not "
        "available: no node of the partition has what the job asks"
    )


def test_kueue_admission_and_volcanos_reason_as_unschedulable_pods() -> None:
    ev = _load("xpk603_kueue_events_pending_cpu_memory_unavailable_in_clusterqueue.txt")
    assert [(f["kind"], f["line"], f["library"]) for f in ev.failures] == [
        ("pod_unschedulable", 4, "kueue-admission"),
        ("pod_unschedulable", 5, "kueue-admission"),
    ]
    assert ev.failures[0]["message"].endswith("resource cpu unavailable in ClusterQueue")
    assert "evidence-pod-unschedulable" in _findings(ev)
    (fail,) = _load("volcano2633_podgroup_events_quoted_gang_unschedulable_overused.txt").failures
    assert fail["kind"] == "pod_unschedulable"
    assert fail["message"].endswith("(Volcano: resource in cluster is overused)")


def test_a_container_that_never_started_and_ssh_causes_without_a_host() -> None:
    ev = _load("pyxis12_srun_enroot_mkdir_run_enroot_permission_denied.txt")
    kinds = [(f["kind"], f["line"]) for f in ev.failures]
    assert kinds == [("container_start_failure", 4), ("launcher_exit", 11)]
    assert "mkdir: cannot create directory '/run/enroot': Permission denied" in str(
        ev.failures[0]["exception_type"]
    )
    (fail,) = _load("vclient752_mpiexec_host_key_verification_failed_orte.txt").failures
    assert fail["exception_type"].endswith("ssh: Host key verification failed.)")
    (fail,) = _load("prrte1493_ssh_exchange_identification_prterun_daemons_cut.txt").failures
    assert fail["kind"] == "launcher_exit"
    assert fail["exception_type"] == (
        "prterun (Open MPI could not start its daemons on the other nodes; ssh: "
        "ssh_exchange_identification: Connection closed by remote host)"
    )


# --- round WW (set 440): checks between hosts ------------------------------------------------


def test_iperf3s_reverse_mode_is_the_run_that_says_it_not_the_next() -> None:
    text = (
        HELDOUT / "bandwitch_iperf3_reverse_403mbits_1769retr_then_forward_219mbits.txt"
    ).read_text()
    runs = iperf.parse(text)
    assert [(r.line, r.reverse, r.sender_bps) for r in runs] == [
        (1, True, 404e6),
        (12, False, 219e6),
    ]


def test_net_tools_ifconfig_pasted_without_its_indent_and_an_ipoib_block_without_flags() -> None:
    (note,) = _said(_load("dbcloudshifu_ifconfig_eth1_mtu9000_no_errors.txt"))
    assert note == (
        "netif: ifconfig: 1 interface(s): eth1 (mtu 9000): up, link up; 192.168.20.2, "
        "fe80::20f:eaff:fe91:407/64"
    )
    ev = _load("louwrentius_ifconfig_ib0_ipoib_tx_1000gib_dropped10.txt")
    # (the copy has no flags line: its state is not shown, not "down")
    note, counters = _said(ev)
    assert "ib0 (UNSPEC): state not shown" in note
    assert counters.endswith("ib0 tx_dropped 10")
    assert not ev.failures


def test_older_ucxs_qp_error_names_its_host_and_open_mpis_rank() -> None:
    ev = _load("ucx2346_mtt_jazz21_rank564_rc_mlx5_transport_retry_exceeded_rdma_read_cut.log")
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"], fail["host"], fail["rank"], fail["pid"]) == (
        "ucx_error",
        11,
        "jazz21",
        564,
        194169,
    )
    assert fail["exception_type"] == (
        "Transport retry count exceeded on QP 0x2e5d6, opcode RDMA_READ"
    )


def test_a_short_paste_of_an_unknown_programs_failure_quotes_its_first_error_line() -> None:
    ev = _load("uccl641_ionic_roce_port_active_failed_modify_qp_rtr_timed_out_110_cut.txt")
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"]) == ("log_error", 17)
    assert "Failed to modify QP to RTR: Connection timed out" in fail["message"]
    # a short table of counters is no such paste: none of its lines says a thing failed
    assert not logs.is_short_error_paste("port 1\n  symbol_errors: 0\n  link_downed: 0\n")


def test_perftests_rtr_failure_on_roce_names_the_empty_gid_it_printed() -> None:
    ev = _load("k8srdmashared72_ib_read_bw_roce_gid0_zero_failed_modify_qp_59_rtr.txt")
    (port,) = ev.hca_ports
    assert port["perftest"]["failed"] == (
        "Failed to modify QP 59 to RTR (its GID is all zeros: the port has no RoCE address at "
        "the GID index used: an interface without an IP address, or the wrong -x index)"
    )


# --- round XX (set 444): a topo -m whose NIC columns are named by their RDMA devices ----------


def test_gpu_to_nic_sys_paths_are_no_gpu_pairs_and_each_gpus_nearest_nic_is_said() -> None:
    ev = _load("nccl719_pod1_nvidia_smi_topo_m_2gpu_nv12_3nic_mlx5_2_node.txt")
    (topo,) = ev.topologies
    assert topo["sys_pairs"] == []  # (GPU0-GPU1 is NV12; the SYS cells are GPU to mlx5_0/1)
    assert "evidence-gpu-topology-sys" not in builtin_findings(
        {"evidence.topologies": ev.topologies}, "nccl"
    )
    assert _said(ev) == [
        "nvidia_smi_topo: nvidia-smi topo -m: the nearest NIC of each GPU: GPU0, GPU1: mlx5_2 (NODE)"
    ]


# --- round XX (set 442): what nccl-tests' header and NCCL's start say of the library ----------


def test_nccl_tests_header_gives_the_librarys_version_from_its_code() -> None:
    ev = _load("nccl_tests_allreduce_v2_17_6_lambda_696gbs_dstack.log")
    assert {b["nccl_version"] for b in ev.benchmarks} == {"2.26.2"}  # nccl-library=22602
    assert nccl_tests.nccl_version_of_code(2708) == "2.7.8"  # (up to 2.8: X*1000+Y*100+Z)


def test_nccls_own_gpu_direct_rdma_disabled_lines_are_read_per_host() -> None:
    ev = _load("nccl_info_roce_2hca_gdr_disabled_16ranks_nccl1537.log")
    (fail,) = ev.failures
    assert (fail["kind"], fail["host"], fail["line"]) == ("nccl_no_gdr", "hostname1", 6)
    assert "disabled for mlx5_0, mlx5_1" in fail["exception_type"]
    assert "evidence-nccl-no-gdr" in _findings(ev)


# --- round XX (set 443): older torch's blocking wait at INFO ----------------------------------


def test_older_torchs_blocking_wait_time_out_logged_at_info_is_a_time_out() -> None:
    ev = _load(
        "pytorch_pr45780_glog_sample_rank2_watchdog_started_blocking_wait_rank0_aborted_comm_timeout_cut.log"
    )
    (fail,) = ev.failures
    assert (fail["kind"], fail["rank"], fail["line"]) == ("watchdog_timeout", 0, 9)
    assert "the work it names is cut off in the copy" in fail["exception_type"]
    assert "evidence-watchdog-timeout" in _findings(ev)


# --- round XX (set 441): MindIE MS's global rank table ---------------------------------------


def test_mindie_ms_global_rank_table_numbers_ranks_per_instance() -> None:
    ev = _load("mindie_motor_global_rank_table_6group.json")
    (table,) = ev.rank_tables
    assert (table["form"], table["errors"], len(table["ranks"])) == ("mindie_global", [], 96)
    (note,) = _said(ev)
    assert note == (
        "rank_table: MindIE MS's global rank table: 3 group(s) (its coordinator and controller, "
        "then 96 inference instance(s) with 96 device(s)); each instance numbers its ranks from 0 "
        "and is told apart by its server_ip"
    )
    assert "evidence-rank-table-invalid" not in _findings(ev)


# --- rounds WW and XX: the RDMA core's port files, ibv_devinfo without its indent -------------


def test_the_rdma_cores_sysfs_port_files_read_by_grep_or_a_wrapped_cat_are_ports() -> None:
    ev = _load("stackhpc988_sysfs_grep_ib_ports_state_rate_phys_state_2x_mlx5_edr_active.txt")
    assert [
        (p["ca"], p["port"], p["tool"], p["state"], p["physical_state"], p["rate_gbps"])
        for p in ev.hca_ports
    ] == [
        ("mlx5_0", 1, "sysfs", "ACTIVE", "LinkUp", 100.0),
        ("mlx5_1", 1, "sysfs", "ACTIVE", "LinkUp", 100.0),
    ]
    ev = _load(
        "mellanox_ofed22_sysfs_mlx4_0_port1_state_init_port2_active_link_layer_fw_wrapped.txt"
    )
    assert [(p["port"], p["state"], p["active"], p["link_layer"]) for p in ev.hca_ports] == [
        (1, "INIT", False, "InfiniBand"),
        (2, "ACTIVE", True, "Ethernet"),
    ]


def test_ibv_devinfo_with_every_field_flush_left_is_read() -> None:
    ev = _load("losslessnetwork_ibv_devinfo_roce_ib0_port_active_ethernet.txt")
    (port,) = ev.hca_ports
    assert (port["ca"], port["state"], port["active"], port["link_layer"]) == (
        "ib0",
        "PORT_ACTIVE",
        True,
        "Ethernet",
    )


# --- round WW (set 437): an environment report and a device that did not start --------------


def test_llamafactorys_environment_report_gives_the_npu_and_cann() -> None:
    (note,) = _said(_load("llamafactory6428_910b3_deepspeed_env_report_cann_8_0_rc2_alpha001.txt"))
    assert note.startswith("prechecks: llamafactory-cli env: llamafactory version 0.9.2.dev0;")
    assert "NPU type Ascend910B3; CANN version 8.0.RC2.alpha001" in note


def test_a_device_that_did_not_start_is_named_with_its_tsd_failure() -> None:
    ev = _load("wangshuai09_notebook_torch_npu_507033_failed_to_start_device0_tsdopen_failed.log")
    fail = ev.failures[0]
    assert (fail["kind"], fail["code"], fail["device"]) == ("npu_runtime_error", "507033", 0)
    assert fail["exception_type"] == (
        "device 0 did not start: its TSD client could not open it (TsdOpen failed, tdt error "
        "34), so its AICPU executor did not start"
    )


# --- round WW (set 438): DCGM's health-watch incidents as a node monitor prints them ---------


def test_a_dcgm_health_incident_names_its_code_gpu_and_message() -> None:
    for name in (
        "nvsentinel1471_gpunvlinkwatch_dcgm_fr_imex_unhealthy_gpu0_status_minus3_p5_h100.txt",
        "aicr2641_gpunvlinkwatch_true_dcgm_fr_imex_unhealthy_gb300_gpu0_9d00.txt",
    ):
        ev = _load(name)
        (fail,) = ev.failures
        assert (fail["kind"], fail["device"]) == ("dcgm_health_incident", 0)
        assert fail["exception_type"].startswith(
            "DCGM_FR_IMEX_UNHEALTHY on GPU 0: IMEX daemon status is -3 (not READY) (IMEX serves "
            "multi-node NVLink domains"
        )
        assert "evidence-dcgm-health-incident" in _findings(ev)


def test_a_numa_node_glued_to_the_gpu_numa_id_is_two_cells_and_a_cut_row_has_no_nearest_nic() -> (
    None
):
    ev = _load("vllm17516_topo_m_rows_only_8gpu_nv18_10nic_pix_glued_numa_cols_cut.txt")
    (topo,) = ev.topologies
    assert topo["numa_affinity"] == {f"GPU{i}": "0" for i in range(4)}  # ("0N/A": "0", "N/A")
    assert topo["gpu_numa_id"]["GPU0"] == "N/A"
    near = _said(ev)[-1]
    assert near.endswith("GPU5: NIC5 (PIX); GPU6: NIC6 (PIX)")  # (GPU7's row is cut: not said)


def test_mlnx_qos_is_a_nics_qos_settings_not_an_npu_port() -> None:
    ev = _load("mellanox_doc2792_mlnx_qos_i_eth2_trust_dscp_pfc_prio_0_2_6_7.txt")
    assert ev.files[0].formats == ["mlnx_qos"]
    assert not ev.npu_ports
    assert _said(ev)[0].startswith(
        "mlnx_qos: mlnx_qos eth2: trust dscp; PFC on priorities 0, 2, 6, 7; traffic classes "
        "tc0 ets 10%"
    )


# --- round WW (set 440): ping between hosts, with don't fragment -------------------------------


def test_a_dont_fragment_ping_that_passed_and_one_a_smaller_mtu_refused() -> None:
    ev = _load("dbcloudshifu_ping_s8972_M_do_jumbo_9000_ok_racnode01.txt")
    assert ev.files[0].formats == ["ping"] and not ev.failures
    (note,) = _said(ev)
    assert note.endswith("the path carries 9000-byte packets unfragmented")
    ev = _load("runbook_jumbo_ping_s8992_M_do_local_error_message_too_long_mtu1500.txt")
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"], fail["ip"]) == ("host_ping_failed", 3, "172.29.4.104")
    assert fail["exception_type"] == (
        "a 9020-byte packet with don't fragment was refused: the path's MTU is 1500"
    )
    assert "evidence-host-ping-failed" in _findings(ev)


# --- round YY (sets 446, 448): NCCL's start lines inside nccl-tests logs ---------------------


def test_nccl_tests_logs_with_nccls_start_lines_say_its_version_network_and_provider() -> None:
    ev = _load("nccl_tests_all_reduce_1node_2xv100_lo_socket_ib_no_device_nccl248.log")
    assert ev.files[0].formats == ["nccl_tests", "log"]
    assert {b["nccl_version"] for b in ev.benchmarks} == {"2.4.8+cuda10.1"}  # (printed bare)
    said = _said(ev)
    assert "log: ds-ml-01-0: NCCL's NET/Socket uses [0]lo:127.0.0.1<0>" in said
    ev = _load("nccl229_allreduce_2node_v100_efa_ofi_tcp_rxm_provider_nccl246_cut.log")
    assert {b["nccl_version"] for b in ev.benchmarks} == {"2.4.6+cuda10.0"}
    assert (
        "log: NCCL's aws-ofi-nccl plugin uses libfabric's tcp;ofi_rxm provider (TCP, not EFA: "
        "no RDMA between the hosts)" in _said(ev)
    )


def test_perftests_server_banner_over_its_set_up_failure_and_rdma_cms_rejection() -> None:
    for name, line in (
        ("ib_send_lat_ud_efa_server_unable_to_create_qp.log", 4),
        ("ib_write_lat_irdma_unable_to_create_qp_inline.log", 5),
    ):
        ev = _load(name)
        assert ev.files[0].formats == ["perftest"]
        (port,) = ev.hca_ports
        assert port["perftest"]["failed"] == "Unable to create QP."
        assert not [f for f in ev.failures if f["kind"] == "log_error"]
    (port,) = _load("ib_write_bw_rdma_cm_rejected_1026_qps_cxgb4.log").hca_ports
    assert port["perftest"]["failed"] == "Event: RDMA_CM_EVENT_REJECTED; error: -111"


def test_a_topo_matrix_with_a_rule_under_its_header_and_shortened_labels_is_read() -> None:
    ev = _load("blog_h200_topo_m_9nic_bond0_dashed_header_bilingual_legend.txt")
    assert ev.files[0].status == "read"
    (topo,) = ev.topologies
    assert (topo["cpu_affinity"]["GPU0"], topo["numa_affinity"]["GPU4"]) == ("0,2-47,96-143", "1")
    assert topo["gpu_numa_id"]["GPU0"] == "N/A" and topo["nics"]["NIC8"] == "mlx5_bond_0"
    assert _said(ev)[-1].startswith(
        "nvidia_smi_topo: nvidia-smi topo -m: the nearest NIC of each GPU: GPU0: NIC0 (mlx5_0) (PIX);"
    )


def test_a_watchdogs_stack_failing_a_cuda_check_without_its_message_is_a_watchdog_failure() -> None:
    ev = _load("pytorch126544_nccl_watchdog_frames_cuda_check_cut.log")
    (fail,) = ev.failures
    assert (fail["kind"], fail["line"], fail["rank"]) == ("watchdog_failure", 2, None)
    assert "the error's own message is not in the copy" in fail["exception_type"]
    assert "evidence-watchdog-failure" in _findings(ev)


# --- round YY (set 445): npu-smi's UB matrix with a NIC column, a proc-mem row alone ----------


def test_an_npu_smi_topo_of_ub_links_with_a_nic_column_and_a_proc_mem_row_alone() -> None:
    ev = _load("npu_smi_info_t_topo_2npu_ub_links_nic0_no_cpu_affinity_vllm_ascend_ut_fixture.txt")
    (topo,) = ev.topologies
    assert (topo["devices"], topo["kinds"], topo["sys_pairs"]) == (["NPU0", "NPU1"], ["UB"], [])
    assert not ev.failures
    (note,) = _said(_load("npu_smi_t_proc_mem_vllmenginecor_55436mb_oneline_awesome_skills.txt"))
    assert note == (
        "npu_smi_query: npu-smi info -t proc-mem: process 207795 (VLLMEngineCor) holds 55436 MB"
    )


def test_nccls_settings_taken_from_the_environment_are_said() -> None:
    ev = _load(
        "nccl_tests_allreduce_2xa100_roce_bond_p2p_loc_shm_disabled_info_cut_nvpeermem78.log"
    )
    assert ev.files[0].formats == ["nccl_tests", "log"]
    assert (
        "log: NCCL settings from the environment: NCCL_P2P_LEVEL=LOC, NCCL_SHM_DISABLE=1"
        in _said(ev)
    )
    assert {b["nccl_version"] for b in ev.benchmarks} == {"2.7.8+cuda11.0"}


def test_the_transports_nccls_channels_go_over_are_said() -> None:
    ev = _load("pytorch105287_nccl_info_2gpu_p2p_ipc_read_channels_healthy_cut.log")
    assert not ev.failures
    assert _said(ev) == [
        "log: NCCL's channels go via P2P/IPC/read (11 line(s): GPU to GPU, NVLink or PCIe "
        "peer-to-peer)"
    ]


# --- round ZZ (set 452): the root cause rank's own exception, a script that would not open -----


def test_an_elastic_root_cause_takes_its_own_ranks_exception_not_anothers() -> None:
    ev = _load("torchrun_2node_16gpu_rank12_invalid_device_ordinal_ipv6_errno97_node0008.log")
    (fail,) = ev.failures
    assert (fail["kind"], fail["rank"]) == ("elastic_failure", 12)
    assert fail["message"] == (
        "its own exception (line 19): torch.AcceleratorError: CUDA error: invalid device ordinal"
    )
    (fail,) = _load("torchrun_worker6_exitcode2_cant_open_train_py_childfailed.log").failures
    assert fail["message"].startswith("python could not open its script (line 1): ")
    assert fail["message"].endswith(
        "can't open file 'train.py': [Errno 2] No such file or directory"
    )


def test_an_older_plogs_exchanger_status_table_names_the_peers_that_never_connected() -> None:
    ev = _load(
        "mindspore_faq_zh_hccl_get_socket_timeout_device1_rank1_exchanger_table_8rank_only_rank3_connected.log"
    )
    wait = ev.failures[0]
    assert (wait["kind"], wait["rank"], wait["device"], wait["code_name"]) == (
        "hccl_link_timeout",
        1,
        1,
        "HCCL_E_TCP_CONNECT",
    )
    assert wait["exception_type"].endswith(
        "its status table: rank(s) 0, 2, 4, 5, 6, 7 not connected (rank(s) 3 connected)"
    )


def test_a_tools_table_behind_a_job_runners_worker_tag_on_every_line_is_read() -> None:
    ev = _load("nvidia_smi_h100_skypilot_job_log_prefixed.log")
    assert (ev.files[0].status, ev.files[0].formats) == ("read", ["nvidia_smi"])
    assert [(g["name"], g["bus_id"]) for g in ev.gpus] == [
        ("NVIDIA H100 80GB HBM3", "00000000:0F:00.0")
    ]
    assert "the worker tag '(simple-workload, pid=4150)' every line carries taken off" in _said(ev)


def test_a_store_time_out_wrapped_after_its_first_sentence_is_a_store_time_out() -> None:
    ev = _load("slurm_ddp_4x4_diststore_timeout_3601s_1_of_16_clients_joined_wrapped.txt")
    (fail,) = ev.failures
    assert (fail["kind"], fail["timeout_ms"], fail["rank_size"], fail["numel"]) == (
        "store_timeout",
        3601000,
        16,
        1,
    )


def test_a_time_out_record_printed_again_by_what_is_the_same_processs_not_another_ranks() -> None:
    ev = _load("sglang_2node_h100_tp16_dp8_watchdog_reduce_scatter_timeout.log")
    (fail,) = ev.failures  # ("[PG ID 4 PG GUID 45 Rank 1]": rank 9's rank in group 4)
    assert (fail["kind"], fail["rank"], fail["seq"], fail["line"]) == ("watchdog_timeout", 9, 2, 4)


def test_ethtool_m_says_the_modules_form_and_transceiver_codes() -> None:
    ev = _load("sonic6476_ethtool_m_enp65s0f0_qsfp28_40g_base_cr4_cable_cut.txt")
    assert ev.files[0].formats == ["ethtool_module"] and not ev.failures
    (note,) = _said(ev)
    assert note.startswith(
        "ethtool_module: ethtool -m enp65s0f0: QSFP28, transceiver 40G Ethernet: 40G Base-CR4; "
        "25G Ethernet: 25G Base-CR CA-N, connector No separable connector"
    )


def test_ip_flags_with_their_unnamed_bits_glued_on_are_read() -> None:
    (note,) = _said(_load("sriov_dp_bond_pod_ip_a_bond0_net1_net2_up.txt"))
    # ("<BROADCAST,MULTICAST,UP,LOWER_UP800>": LOWER_UP, then the bits it has no name for)
    assert "bond0 (mtu 1500): up, link up" in note and "net1 (mtu 1500): up, link up" in note
