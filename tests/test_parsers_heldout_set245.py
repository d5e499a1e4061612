"""Outputs the two-hundred-forty-fifth to -eighth held-out evaluations misread
(tests/data/evidence_heldout_43, sources in tests/data/SOURCES.md): launcher and pytest prefixes,
NCCL's socket fallbacks, a masked pid, torch's uninitialised work counter, duplicated ranks at
init, ProcessGroupNCCL's settings, kernel-log hosts, ascend-fd 26.x reports, asys diagnose and
MindCluster's sampled npu-smi CSV."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from advisor.evidence.load import EvidenceFacts, load_paths, load_text
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_43"


def _failures(name: str) -> list[dict[str, Any]]:
    return load_paths([HELDOUT / name]).failures


def _findings(ev: EvidenceFacts, backend: str) -> dict[str, Any]:
    return builtin_findings({"evidence.failures": ev.failures}, backend)


def test_open_mpis_timestamped_tag_is_taken_off_and_each_ranks_warning_kept() -> None:
    got = _failures("nccl_2.18.3_mpirun_timestamped_cuda_invalid_argument_proxy_connect_cut.log")
    cuda = [
        (f["rank"], f["host"], f["device"]) for f in got if f.get("code_name") == "invalid argument"
    ]
    # two processes (ranks 0 and 3) each warned once: neither is folded into the other
    assert cuda == [(0, "tomte401", 0), (3, "tomte401", 3)]


def test_one_process_driving_two_gpus_warns_once_for_each() -> None:
    got = _failures("tensorflow_srun_a100_sharp_nccl_2.8.3_ibv_create_qp_failed_cut.log")
    qp = [
        (f["device"], f["pid"])
        for f in got
        if f["message"].startswith("Call to ibv_create_qp failed")
    ]
    assert qp == [(4, 3778851), (5, 3778851)]
    # the process's first WARN with the result NCCL passed up from it (its trace right under it)
    assert got[0]["message"].startswith("Call to ibv_create_qp failed (then 2 = ncclSystemError")


def test_channels_over_net_socket_between_two_hosts_are_a_socket_network() -> None:
    ev = load_paths(
        [HELDOUT / "horovod_mpirun_aws_2node_net_socket_launch_mode_parallel_hang_cut.log"]
    )
    hosts = [f["host"] for f in ev.failures if f["kind"] == "nccl_socket_network"]
    assert hosts == ["ip-172-31-0-63", "ip-172-31-12-129"]
    assert "evidence-nccl-socket-network" in _findings(ev, "nccl")


def test_a_net_plugin_that_failed_to_start_then_sockets_on_one_host_is_said() -> None:
    name = "nccl_ofi_p4d_plugin_init_fail_socket_fallback_cloudwatch_cut.log"
    ev = load_paths([HELDOUT / name])
    # one host and no channel of its over the network: said in a note, no finding (a job of
    # this host alone sends nothing between hosts)
    assert not [f for f in ev.failures if f["kind"] == "nccl_socket_network"]
    notes = " ".join(m.message for m in ev.files[0].messages)
    assert (
        "ip-10-36-29-253: the net plugin failed to start (NET/OFI aws-ofi-nccl initialization "
        "failed) and NCCL fell back to its sockets"
    ) in notes
    # the same host setting a channel up over NET/Socket: its traffic crosses hosts on sockets
    text = (HELDOUT / name).read_text() + (
        "  | 2025-05-16T16:39:56.217-07:00 | ip-10-36-29-253:84:2553 [0] NCCL INFO Channel 00 : "
        "0[101c0] -> 8[101c0] [send] via NET/Socket/0\n"
    )
    (sock,) = [f for f in load_text(text, "p4d.log").failures if f["kind"] == "nccl_socket_network"]
    assert sock["host"] == "ip-10-36-29-253"
    assert (
        "net plugin failed to start (NET/OFI aws-ofi-nccl initialization failed)"
        in sock["exception_type"]
    )
    # without the failed plugin, one host's fallback says nothing at all
    calm = "\n".join(
        line
        for line in (HELDOUT / name).read_text().splitlines()
        if "initialization failed" not in line and "Initializing plugin failed" not in line
    )
    assert not [
        f for f in load_text(calm, "one.log").failures if f["kind"] == "nccl_socket_network"
    ]


def test_a_warning_whose_pid_the_poster_masked_keeps_its_host_and_device() -> None:
    (warn,) = _failures("nccl_2.27_hgx_ibv_modify_qp_110_init_to_rtr_one_line.log")
    assert (warn["host"], warn["device"], warn.get("pid")) == ("host-01.example.com", 5, None)
    assert warn["message"].startswith("Call to ibv_modify_qp failed with 110 Connection timed out")


def test_a_last_completed_work_above_the_last_enqueued_is_not_read_as_progress() -> None:
    ev = load_paths(
        [HELDOUT / "vllm_ray_worker_watchdog_allreduce_seq1_bogus_last_completed_cut.log"]
    )
    (timeout,) = [f for f in ev.failures if f["kind"] == "watchdog_timeout"]
    assert (timeout["rank"], timeout["seq"], timeout["last_enqueued"]) == (1, 1, 1)
    assert timeout["last_completed"] is None
    assert any(
        "93459313471793" in m.message and "never set" in m.message for m in ev.files[0].messages
    )
    finding = _findings(ev, "nccl")["evidence-watchdog-timeout"]
    assert "last completed unknown" in " ".join(finding.items)


def test_pytests_exception_lines_give_ncclsystemerror_its_last_error() -> None:
    (fail,) = _failures("pytest_mpi_distbackenderror_nccl_2.22.3_socketstartconnect_abort.log")
    assert (fail["kind"], fail["code_name"]) == ("nccl_call_failure", "ncclSystemError")
    assert fail["exception_type"].startswith("socketStartConnect: Connect to 10.31.241.62<36865>")


def test_ranks_started_twice_and_a_short_store_barrier_are_read() -> None:
    ev = load_paths(
        [HELDOUT / "nemo_megatron_gpt_slurm_2node_duplicate_global_ranks_store_barrier_cut.log"]
    )
    dup = sorted(f["rank"] for f in ev.failures if f["kind"] == "duplicate_rank")
    assert dup == [1, 2, 3]
    (wait,) = [f for f in ev.failures if f["kind"] == "store_barrier_wait"]
    assert (wait["numel"], wait["rank_size"]) == (3, 8)
    assert "rank(s) 2, 3 waited" in wait["exception_type"]
    assert {"evidence-duplicate-rank", "evidence-store-barrier-wait"} <= set(_findings(ev, "nccl"))
    # one process a rank, each printing once (tags or not): no duplicate
    once = "".join(
        f"{r}: Initializing distributed: GLOBAL_RANK: {r}, MEMBER: {r + 1}/8\n" for r in range(8)
    )
    assert not [f for f in load_text(once, "x.log").failures if f["kind"] == "duplicate_rank"]


def test_processgroupnccls_settings_say_the_flight_recorder_is_off() -> None:
    ev = load_paths([HELDOUT / "torch_2.5_pgnccl_env_dump_tcpstore_debug_8xh100_init_cut.log"])
    (settings,) = ev.failures
    assert (settings["kind"], settings["code"], settings["rank"], settings["numel"]) == (
        "pg_settings",
        "2.21.5",
        7,
        0,
    )
    assert "flight recorder off (TORCH_NCCL_TRACE_BUFFER_SIZE 0)" in settings["exception_type"]
    assert "heartbeat time-out (s) 480" in settings["exception_type"]
    off = _findings(ev, "nccl")["evidence-flight-recorder-off"]
    assert off.severity == "info"
    assert {r.name: r.value for r in off.recommendations if r.kind != "advice"} == {
        "TORCH_NCCL_TRACE_BUFFER_SIZE": "2000",
        "TORCH_NCCL_DUMP_ON_TIMEOUT": "1",
    }


def test_a_kernel_logs_xids_keep_the_host_syslog_names() -> None:
    got = _failures("dmesg_xid63_xid64_row_remap_aws_m4logs_cut.txt")
    assert [(f["code"], f["host"]) for f in got] == [
        ("63", "ip-26-0-146-100"),
        ("64", "ip-26-0-147-135"),
    ]


def test_an_ibv_devinfo_device_cut_before_its_port_is_said() -> None:
    text = (
        DATA
        / "evidence_heldout_41"
        / "ibv_devinfo_two_mlx4_dual_port_device_ports_heading_port2_down_heioy_books.txt"
    ).read_text()
    lines = text.splitlines()
    cut = lines[: next(i for i, line in enumerate(lines) if "port:" in line)]
    head = lines[next(i for i, line in enumerate(lines) if line.startswith("hca_id:"))]
    # a whole device, then the same device again cut before its ports
    ev = load_text("\n".join([*lines, "", *cut]), "devinfo.txt")
    assert any(
        head.split()[1] in m.message and "no port listed" in m.message for m in ev.files[0].messages
    )


def test_ascend_fault_diag_26_reports_are_read_with_their_root_cause_analysis() -> None:
    ev = load_paths(
        [HELDOUT / "ascend_fd_diag_report_26.1.0_root_worker0_device2_link_down_cqe.txt"]
    )
    assert ev.files[0].formats == ["faultdiag"]  # the quoted hccn_tool lines are its key log
    assert ev.npu_ports == []
    (fault,) = ev.failures
    assert fault["code"] is None and fault["root_cause"]  # masked code; the root-cause node's
    assert "Link Down" in fault["exception_type"]
    notes = " ".join(m.message for m in ev.files[0].messages)
    assert "root-cause node(s) worker-0 device-2;" in notes
    assert "first error worker-1 device-2: 2023-09-01-06:35:52.960343" in notes
    assert "status code the copy masked" in notes

    pod = load_paths(
        [HELDOUT / "ascend_fd_diag_superpod_pd_disagg_multi_instance_link_down_wait_chain.txt"]
    )
    names = [f["exception_type"].split(" on ")[0] for f in pod.failures]
    assert len(pod.failures) == 3 and names[1].startswith("instance xxx.xxx.xx8.201")
    notes = " ".join(m.message for m in pod.files[0].messages)
    assert "wait chain worker-2 device-0 -> worker-5 device-0" in notes
    assert "last error worker-3 device-6: 2025-06-23-11:10:44.883255" in notes


def test_asys_diagnose_fail_and_warn_per_device() -> None:
    ev = load_paths([HELDOUT / "asys_diagnose_4dev_stress_hbm_cpu_stl_partial_warn_fail.txt"])
    got = [(f["code"], f["exception_type"].split(":")[0]) for f in ev.failures]
    assert got == [
        ("Warn", "Stress Detect (Performance)"),
        ("Warn", "HBM Detect (Hardware)"),
        ("Fail", "CPU Detect (Hardware)"),
        ("Fail", "AICore STL Detect (Hardware)"),
    ]
    assert "Fail on device(s) 3; Warn on device(s) 1 (of 4" in ev.failures[2]["exception_type"]
    # HBM Detect's figures are the ECC errors the check newly found (asys's documentation)
    assert "new ECC errors (9, 0, 5, 0)" in ev.failures[1]["exception_type"]
    assert {"evidence-asys-fail", "evidence-asys-warn"} <= set(_findings(ev, "hccl"))
    passed = load_text(
        "asys diagnose -r=component\n"
        " +------------------------+------------------------+\n"
        " | Group of 4 Device      | Diagnostic Result      |\n"
        " +========================+========================+\n"
        " +--- Component ----------+------------------------+\n"
        " | AI Vector              | Pass - All             |\n"
        " +------------------------+------------------------+\n",
        "asys.txt",
    )
    assert passed.failures == []
    assert "AI Vector (Component): Pass on every device" in passed.files[0].messages[0].message


def test_mindclusters_sampled_npu_smi_csv_says_where_the_frequency_fell() -> None:
    ev = load_paths(
        [
            HELDOUT
            / "mindcluster_env_check_npu_smi_0_details_csv_dev0_temp107_freq1000_to_800_throttle.csv"
        ]
    )
    assert ev.files[0].status == "read"
    (note,) = ev.files[0].messages
    assert "device 0: 23 sample(s) over 338 s" in note.message
    assert (
        "freq under its highest (1000) in 1 stretch(es), the first 7 sample(s) "
        "1670052538-1670052623 (epoch s)"
    ) in note.message
    assert "down to 800, temp then up to 107" in note.message


def test_msprof_analyzes_advisor_tables_are_read_into_notes() -> None:
    ev = load_paths(
        [HELDOUT / "msprof_analyze_advisor_cluster_slow_rank_step5_rank0_compute_comm_free.txt"]
    )
    (note,) = ev.files[0].messages
    assert ev.files[0].formats == ["msprof"] and ev.failures == []
    assert (
        "step 5, 1 rank(s): rank 0: compute 1725.1 ms, communication 520.8 ms, free 2897.9 ms"
        in note.message
    )
    ev = load_paths(
        [HELDOUT / "msprof_analyze_advisor_cluster_slow_link_rdma_sdma_bandwidth_summary.txt"]
    )
    slow_rank, slow_link = (m.message for m in ev.files[0].messages)
    assert slow_rank.endswith("慢卡分析: 没有慢节点问题")
    # the verdict wrapped over three rows is one text again
    assert "RDMA bandwidth(GB/s)： 平均值是 24.356" in slow_link and slow_link.endswith(
        "差距为 0.0GB/s。"
    )


def test_npu_smis_vnpu_templates_are_listed_in_a_note() -> None:
    ev = load_paths(
        [HELDOUT / "npu_smi_info_t_template_info_310p3_seven_vnpu_templates_hami_lab_cut.txt"]
    )
    (note,) = ev.files[0].messages
    assert ev.files[0].status == "read" and ev.npu_chips == []
    assert "7 vNPU template(s): vir01 (AI Core 1, 3 GB, AICPU 1)" in note.message
    assert "vir04_4c_dvpp (AI Core 4, 12 GB, AICPU 4)" in note.message


def test_settings_and_notices_never_hide_a_failure_nor_start_a_timeline(tmp_path: Path) -> None:
    """A log with ProcessGroupNCCL's settings (or a barrier wait) that ends in an ordinary
    exception still reads the exception; two ranks' settings lines at init are no failure order."""
    settings = (
        HELDOUT / "torch_2.5_pgnccl_env_dump_tcpstore_debug_8xh100_init_cut.log"
    ).read_text()
    text = settings + (
        "Traceback (most recent call last):\n"
        '  File "train.py", line 3, in <module>\n'
        "ValueError: global batch size 96 is not divisible by micro batch size 5\n"
    )
    kinds = [f["kind"] for f in load_text(text, "x.log").failures]
    assert sorted(kinds) == ["pg_settings", "python_exception"]
    line = settings.splitlines()[0]
    for rank, (init, fail) in enumerate((("01:20:07", "01:40:00"), ("01:20:17", "01:41:00"))):
        (tmp_path / f"rank{rank}.log").write_text(
            line.replace("01:20:17", init).replace("Rank 7]", f"Rank {rank}]")
            + f"\n[E1107 {fail}.000000000 ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught "
            "collective operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, "
            "NumelOut=1, Timeout(ms)=600000) ran for 600021 milliseconds before timing out.\n"
        )
    (timeline,) = load_paths([tmp_path]).timelines
    assert [(e.rank, e.kind) for e in timeline.entries] == [
        (0, "watchdog_timeout"),
        (1, "watchdog_timeout"),
    ]


def test_a_store_barrier_that_completed_is_no_warning() -> None:
    wait = (
        "2023-01-18 07:39:50,012 - torch.distributed.distributed_c10d - INFO - Waiting in store "
        "based barrier to initialize process group for rank: 0, key: store_based_barrier_key:1 "
        "(world_size=8, worker_count=7, timeout=0:30:00)\n"
    )
    done = (
        "2023-01-18 07:39:52,100 - torch.distributed.distributed_c10d - INFO - Rank 0: Completed "
        "store-based barrier for key:store_based_barrier_key:1 with 8 nodes.\n"
    )
    assert [f["kind"] for f in load_text(wait, "w.log").failures] == ["store_barrier_wait"]
    assert load_text(wait + done, "w.log").failures == []


def test_a_last_completed_work_of_another_sequence_is_kept() -> None:
    # since torch 2.4 a P2P work is numbered in its own sequence: a last completed P2P work can
    # be numbered above the last enqueued collective; only an unset counter is dropped
    text = (
        "[rank3]:[E1107 01:40:00.000000000 ProcessGroupNCCL.cpp:616] [PG ID 0 PG GUID 0 Rank 3] "
        "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE, "
        "NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600021 milliseconds before timing out.\n"
        "[rank3]:[E1107 01:40:00.000100000 ProcessGroupNCCL.cpp:630] [PG ID 0 PG GUID 0 Rank 3] "
        "Timeout at NCCL work: 12, last enqueued NCCL work: 12, last completed NCCL work: 3071.\n"
    )
    (timeout,) = load_text(text, "p2p.log").failures
    assert (timeout["last_enqueued"], timeout["last_completed"]) == (12, 3071)


def test_one_warning_a_host_even_where_pids_repeat_or_are_masked() -> None:
    text = (
        "host-01:XXXXXX [5] ibvwrap.c:262 NCCL WARN Call to ibv_modify_qp failed with 110 "
        "Connection timed out\n"
        "host-02:XXXXXX [5] ibvwrap.c:262 NCCL WARN Call to ibv_modify_qp failed with 110 "
        "Connection timed out\n"
        "node-a:84:90 [0] transport.cc:154 NCCL WARN Cuda failure 'invalid argument'\n"
        "node-b:84:90 [0] transport.cc:154 NCCL WARN Cuda failure 'invalid argument'\n"
    )
    hosts = [f["host"] for f in load_text(text, "w.log").failures]
    assert hosts == ["host-01", "host-02", "node-a", "node-b"]


def test_asys_every_device_forms_and_one_devices_figure() -> None:
    def table(head: str, value: str) -> str:
        return (
            "asys diagnose -r=hbm_detect\n"
            f" | {head} | Diagnostic Result |\n"
            " +--- Hardware ---+---+\n"
            f" | HBM Detect | {value} |\n"
        )

    (every,) = load_text(table("Group of 4 Device", "Fail - All"), "a.txt").failures
    assert every["exception_type"] == "HBM Detect (Hardware): Fail on every device (4)"
    one = load_text(table("Device ID: 0", "Pass(9)"), "a.txt")
    assert one.failures == []
    assert "Pass on device 0; new ECC errors (9)" in one.files[0].messages[0].message
    short = load_text(table("Group of 4 Device", "Warn, Fail"), "a.txt")
    assert "among 2 result(s) for 4 device(s)" in short.failures[0]["exception_type"]


def test_an_asys_import_alone_is_an_npu_clusters_verdict() -> None:
    from advisor.evidence.command import cluster_from

    ev = load_paths([HELDOUT / "asys_diagnose_4dev_stress_hbm_cpu_stl_partial_warn_fail.txt"])
    assert cluster_from(ev).backend == "hccl"


def test_mindcluster_csv_rows_it_cannot_read_are_skipped_and_said() -> None:
    text = (
        "time,dev_id,power,freq,temp\n1670052428,0,69.6,1000,42\n1670052442,0,NA,1000,42\n"
        "1670052455,0,69.2,800,90\n1670052469,0,nan,1000,42\n1670052483,0,69.2,1000,42\n"
        "1670052497,0,69.2,800,91\n1670052511,0,69.2,10"
    )
    ev = load_text(text, "npu_smi_0_details.csv")
    assert ev.files[0].status in ("read", "partial")
    said = " ".join(m.message for m in ev.files[0].messages)
    assert "device 0: 4 sample(s)" in said and "in 2 stretch(es)" in said
    assert said.count("unreadable sample") == 3


def test_a_distributed_node_health_checks_failed_nodes_are_named() -> None:
    ev = load_paths(
        [HELDOUT / "azure_distributed_nhc_health_and_debug_log_xid119_lowbw_ib_down_ecc_cut.txt"]
    )
    nhc = [(f["host"], f.get("code")) for f in ev.failures if f["kind"] == "nhc_failure"]
    assert nhc == [
        ("mynode-066", "check_gpu_xid"),
        ("mynode-079", "check_nccl_allreduce_ib_loopback"),
        ("mynode-084", None),
        ("mynode-108", None),
        ("mynode-123", None),
        ("mynode-273", "check_hw_ib"),
        ("mynode-510", "check_gpu_ecc"),
    ]
    # the node names are the lines' own prefix, not a log collector's to take off
    assert not any("container prefix" in m.message for m in ev.files[0].messages)
    finding = _findings(ev, "nccl")["evidence-nhc-failure"]
    assert finding.severity == "critical" and "on 7" in finding.message


def test_a_dcgm_check_failing_with_its_internal_error_alone_is_the_tests_own_failure() -> None:
    (diag, unrun) = load_paths(
        [HELDOUT / "dcgmi_diag_r2_4.4.1_v100_pcie_fail_missing_cuda13_plugin_cut.txt"]
    ).dcgm_diags
    assert diag["failed"] == []
    # (the -r 3 run after it returned an error, -30, instead of a table: no GPU judged)
    assert unrun["failed"] == [] and unrun["level"] == "3"
    assert [c["name"] for c in diag["test_errors"]] == ["pcie"]


def test_ibstats_panic_on_a_missing_device_is_said() -> None:
    ev = load_paths([HELDOUT / "ibstat_a100_8x_hdr200_then_ibpanic_mlx5_8.txt"])
    assert len(ev.hca_ports) == 8 and all(p["active"] for p in ev.hca_ports)
    (gone,) = ev.failures
    assert gone["kind"] == "rdma_device_unreadable"
    assert "stat of IB device 'mlx5_8' failed" in gone["message"]


def test_iblinkinfo_lines_a_grep_kept_without_headings_are_read() -> None:
    ev = load_paths([HELDOUT / "ibstat_iblinkinfo_edr_sb7700_2node_hpl_cut.txt"])
    links = [(p["ca"], p["port"], p.get("peer")) for p in ev.hca_ports if p["tool"] == "iblinkinfo"]
    assert links[0] == ("LID 4 (port GUID 0xec0d9a03003d62be)", 1, "MF0;SB7700:MSB7700/U1 port 17")
    # a switch's own lines lead with its LID alone
    assert ("LID 2", 17, "n02 HCA-1 port 1") in links
    assert len(links) == 6 and all(p["rate_gbps"] == 100.0 for p in ev.hca_ports)


def test_nvidia_smis_corrupt_inforom_warning_names_the_gpu() -> None:
    ev = load_paths([HELDOUT / "nvidia-smi_460_v100x8_inforom_corrupted_warning.txt"])
    assert len(ev.gpus) == 8
    (warn,) = ev.failures
    assert (warn["kind"], warn["device"]) == ("gpu_driver_error", 7)
    assert "InfoROM of GPU 0008:00:00.0 (GPU 7) is corrupted" in warn["exception_type"]


def test_asys_health_warning_with_its_error_code() -> None:
    ev = load_paths(
        [
            HELDOUT
            / "asys_health_d0_overall_Warning_errorcode_0xa419321c_lp_pmbus_error_u202c_char_oamtools_doc.txt"
        ]
    )
    (health,) = ev.failures
    assert (health["code"], health["device"]) == ("Warn", 0)
    # the text-direction mark the page left after the code is taken off
    assert health["exception_type"].endswith("error codes 0xa419321c lp pmbus error")
    assert health["message"].startswith("asys health -d=0: Overall Health: Warning")


def test_mindsporess_run_together_p2p_timeout_names_both_devices() -> None:
    ev = load_paths(
        [
            HELDOUT
            / "mindspore_EI9999_connected_p2p_timeout_600s_logicDevid0_remote_physic7_AllGather_load_task_fail_hiascend_forum_cut.log"
        ]
    )
    (p2p,) = [f for f in ev.failures if f["kind"] == "hccl_p2p_failure"]
    assert (p2p["device"], p2p["timeout_ms"]) == (0, 600000)
    assert "remote physic id:7" in p2p["message"]


def test_ranks_each_started_twice_without_launcher_tags_are_duplicates() -> None:
    ev = load_paths([HELDOUT / "lightning_srun_two_nodes_duplicate_global_ranks_ddp_init_hang.log"])
    dup = sorted(f["rank"] for f in ev.failures if f["kind"] == "duplicate_rank")
    assert dup == [0, 1, 2, 3]
    assert "2 times, while 4 of the 8 ranks never came" in ev.failures[0]["exception_type"]
    # every rank of the world named twice (a log of two runs): no duplicate is claimed
    twice = (
        "".join(f"initializing ddp: GLOBAL_RANK: {r}, MEMBER: {r + 1}/4\n" for r in range(4)) * 2
    )
    # (the log ends at the init lines with no line that the processes registered: that start
    # is not shown to have worked, a warning of its own, not a duplicate)
    assert [f["kind"] for f in load_text(twice, "t.log").failures] == ["pg_init_unconfirmed"]


def test_nccl_sockets_on_the_loopback_are_said() -> None:
    ev = load_paths([HELDOUT / "kubeflow_pytorchjob_master_pod_nccl_socket_picks_lo_first_cut.log"])
    assert ev.files[0].status == "read"
    (note,) = [m for m in ev.files[0].messages if "loopback" in m.message]
    assert "NCCL's socket interfaces include the loopback ([0]lo:127.0.0.1<0>" in note.message
