"""Outputs the hundred-fifty-seventh to hundred-sixty-first held-out evaluations misread that this
stop reads: CANN plogs whose first error is another module's (the runtime's failed AIV kernel, its
SDMA task error above HCCL's task failure, the RoCE driver's error CQE above HCCP's), an EI0012
screen line with an empty communicator, an nvidia-smi matrix whose tabs a copy turned into spaces
with affinity cells left empty, hccn_tool output run onto its command's line, a C assertion above
the abort it raised and a shell's report of a rank's end under a launcher's tag.

Samples: ``tests/data/evidence_heldout_29/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from advisor.evidence.command import cluster_from
from advisor.evidence.load import detect
from advisor.parsers import hccn_tool, logs
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import event, finding_items, npu_chip

HELDOUT = DATA / "evidence_heldout_29"


_load = partial(heldout.load, HELDOUT)


def _failures(name: str) -> list[dict[str, Any]]:
    return _load(name).failures


def test_a_runtime_plog_line_alone_is_read_as_the_npus_error() -> None:
    ev = _load("hccl_doc_aiv_all_reduce_kernel_execute_failed_device0_runtime_plog.log")
    assert ev.files[0].status == "read"
    (kernel,) = ev.failures
    assert (kernel["kind"], kernel["library"], kernel["line"]) == ("hccl_plog_error", "RUNTIME", 1)
    assert kernel["message"].startswith("[davinci_kernel_task.cc:1268]")
    assert "fault kernel_name=aiv_all_reduce_***" in kernel["message"]
    # a CANN module's plog line is an NPU's: the hccl rules apply
    assert cluster_from(ev).backend == "hccl"
    items = finding_items({"evidence.failures": ev.failures}, "hccl")["evidence-hccl-plog-error"]
    assert items[0].startswith("Device 0: RUNTIME error: [davinci_kernel_task.cc:1268]")


def test_the_device_layers_error_above_hccls_failure_is_where_it_began() -> None:
    sdma = _failures("hccl_doc_ei0012_fftsplus_sdma_error_allgather_rank0_of_8_plog.log")
    assert [(e["kind"], e["line"]) for e in sdma] == [("hccl_plog_error", 1), ("hccl_error", 3)]
    began = sdma[0]
    assert began["library"] == "RUNTIME" and began["exception_type"] == (
        "RUNTIME error before HCCL's failure: err_type 4 (fftsplus sdma error)"
    )
    assert "err_type=4[fftsplus sdma error]" in began["message"]
    assert (sdma[1]["op"], sdma[1]["rank"], sdma[1]["rank_size"]) == ("all_gather", 0, 8)
    cqe = _failures("hccl_doc_ei0013_alltoall_test_roce_error_cqe_0x15_hccp_status12_plog.log")
    first = min(cqe, key=lambda e: e["line"])
    assert (first["kind"], first["library"], first["line"]) == ("hccl_plog_error", "ROCE", 1)
    assert first["message"].endswith("error cqe status: 0x15")


def test_an_empty_communicator_names_no_rank() -> None:
    (sdma,) = _failures("hccl_doc_ei0012_sdma_memcpy_exception_remote_rank4800_screen.log")
    assert sdma["code"] == "EI0012"
    # "Communicator information: [group:[], ..., rankSize[0], rankId[0]]": no rank 0
    assert (sdma["rank"], sdma["rank_size"]) == (None, None)
    text = "EI0002: group information: [group:[hccl_world_group], rankSize[8], rankId[6].]"
    assert logs._GROUP_RANKID_RE.search(text) is not None
    assert logs._GROUP_RANKID_RE.search(text.replace("rankSize[8]", "rankSize[0]")) is None


def test_an_affinity_value_as_near_two_columns_is_not_placed() -> None:
    ev = _load("vllm_19607_collect_env_2gpu_nv12_8nic_empty_cpu_numa_affinity_legend_cut.txt")
    (topo,) = ev.topologies
    assert topo["links"]["GPU0"]["GPU1"] == "NV12" and topo["links"]["GPU0"]["NIC6"] == "PXB"
    # "N/A" stands one tab stop past NUMA Affinity's start and one short of GPU NUMA ID's: the
    # copy cannot say which it is, so neither says N/A (the GPU0 row's " X " does not shift it)
    assert (topo["cpu_affinity"], topo["numa_affinity"], topo["gpu_numa_id"]) == ({}, {}, {})
    assert ev.files[0].status == "partial"
    assert any(
        "not placed: 'N/A' (as near NUMA Affinity as GPU NUMA ID)" in m.message
        for m in ev.files[0].messages
    )


def test_output_run_onto_its_commands_line_is_read() -> None:
    text = (
        "root@node-1:~# hccn_tool -i 0 -ip -g ipaddr:10.250.45.69 netmask:255.255.255.0\n"
        "root@node-1:~# hccn_tool -i 8 -ip -g ipaddr:10.250.45.28 netmask:255.255.255.0\n"
        "root@node-1:~# hccn_tool -i 1 -ping -g address 10.250.45.28\n"
    )
    ports = hccn_tool.parse_bundle(text).ports
    assert [(p.device, p.ipaddr, p.netmask) for p in ports if p.ipaddr] == [
        (0, "10.250.45.69", "255.255.255.0"),
        (8, "10.250.45.28", "255.255.255.0"),
    ]
    # a ping's address after -g is its argument, not its output
    assert all(p.ping_target is None and p.ping_loss_pct is None for p in ports)


def test_the_switch_each_port_hears_over_lldp_is_read() -> None:
    ev = _load("hccn_tool_lldp_g_grep_system_name_tlv_16nic_h3c_switches_elided.txt")
    assert [(p["device"], p["lldp"]["system_name"]) for p in ev.npu_ports] == [
        (0, "SH-YS2-M203-J12U28-H3CS9825-G0-04001"),
        (1, "SH-YS2-M203-J12U33-H3CS9825-G0-03001"),
        (2, "SH-YS2-M203-J12U43-H3CS9825-G0-01001"),
        (8, "SH-YS2-M203-J12U33-H3CS9825-G0-03001"),
        (9, "SH-YS2-M203-J12U28-H3CS9825-G0-04001"),
    ]
    # "# .....省略" ("omitted"): the ports between were cut
    assert ev.files[0].status == "partial"
    # the whole output, in lldptool's layout (each TLV's value indented under its name)
    text = (
        "hccn_tool -i 3 -lldp -g\nChassis ID TLV\n\tMAC: 00:11:22:33:44:55\nPort ID TLV\n"
        "\tIfname: 400GE1/1/20:2\nSystem Name TLV\n\tSW-A-01\nManagement Address TLV\n"
        "\tIPv4: 26.1.2.3\n\tIfindex: 12\nEnd of LLDPDU TLV\n"
    )
    (port,) = hccn_tool.parse_bundle(text).ports
    assert (port.device, port.lldp) == (
        3,
        {
            "chassis_id": "00:11:22:33:44:55",
            "port_id": "400GE1/1/20:2",
            "system_name": "SW-A-01",
            "management_address": "26.1.2.3",
        },
    )


def test_a_roce_bandwidth_test_from_a_port_is_read_and_a_slow_port_named() -> None:
    ev = _load("hccn_tool_roce_test_ib_send_bw_dev0_to_10_250_45_28_2mib_23365mbs.txt")
    assert ev.files[0].status == "read"
    (port,) = ev.npu_ports
    assert (port["device"], port["roce_test"]) == (
        0,
        {
            "test": "ib_send_bw",
            "target": "10.250.45.28",  # from the command's wrapped second line
            "bytes": 2097152,
            "iterations": 1000,
            "bw_peak_mb_s": 23370.21,
            "bw_average_mb_s": 23365.53,
        },
    )
    # a second port at half that rate is named beside it
    slow = {**port, "device": 1, "roce_test": {**port["roce_test"], "bw_average_mb_s": 11000.0}}
    items = finding_items({"evidence.npu_ports": [port, slow]}, "hccl")[
        "evidence-npu-roce-test-slow"
    ]
    assert items == [
        "NPU 1: ib_send_bw 11000.0 MiB/s to 10.250.45.28 (2097152 B x 1000) "
        f"({port['source']}, line 1)"
    ]
    # perftest's report in Gb/sec (--report_gbits) is converted to the MB/s perftest prints
    # otherwise, which are MiB/s (perftest_parameters.c: format_factor 0x100000)
    report = (
        "hccn_tool -i 2 -roce_test ib_write_bw address 10.0.0.2\n"
        " #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n"
        " 65536      5000             180.00             179.20               0.341797\n"
    )
    (gbits,) = hccn_tool.parse_bundle(report).ports
    assert gbits.roce_test is not None and gbits.roce_test["bw_average_mb_s"] == 21362.3


def test_a_failed_setdevice_names_the_device_it_could_not_open() -> None:
    failures = _failures(
        "hiascend_forum_mindie_llm_setdevice_107001_ee1001_invalid_device_2_of_range_0_2_cut.log"
    )
    (call,) = [e for e in failures if e["kind"] == "npu_runtime_error"]
    # torch_npu's "(PID:4603, Device:0, ...)" is the device current before the call
    assert (call["call"], call["code"], call["device"]) == ("SetDevice", "107001", 2)


def test_a_tls_output_cut_inside_a_certificate_block_is_partial() -> None:
    ev = _load("cann850_hcclug_ei0014_hccn_tool_tls_g_dev0_pub_ca1_certs_cut.txt")
    (port,) = ev.npu_ports
    assert (port["device"], port["tls_enabled"]) == (0, False)
    assert [c["name"] for c in port["tls_certs"]] == ["pub cert", "ca1 cert"]
    assert ev.files[0].status == "partial"
    assert "ends inside the 'ca1 cert' block" in ev.files[0].messages[0].message


def test_an_elastic_summary_without_its_root_cause_and_a_programs_rank_lines() -> None:
    # ChildFailedError's heading and "<NO_OTHER_FAILURES>", the Root Cause cut off
    summary = (
        "    raise ChildFailedError(\n"
        "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
        "============================================================\n"
        "utils/train.py FAILED\n"
        "------------------------------------------------------------\n"
        "Failures:\n"
        "  <NO_OTHER_FAILURES>\n"
        "------------------------------------------------------------\n"
    )
    report = logs.parse(summary)
    (failed,) = report.events
    assert (failed.kind, failed.line, failed.message, failed.root_cause) == (
        "elastic_failure", 4, "utils/train.py FAILED", True,
    )  # fmt: skip
    assert "without its Root Cause entry" in report.unread[0].message
    # a training script's own "rank: 0, memory allocated: 0" lines are no summary entry: the
    # CUDA error raised in barrier() is what the log says (nnU-Net's DDP trainer, synthetic)
    text = (
        "rank: 2, memory allocated: 0\nrank: 0, memory allocated: 0\n\n"
        "Traceback (most recent call last):\n"
        '  File "run/run_training_DDP.py", line 157, in main\n'
        "    trainer.initialize(not validation_only)\n"
        '  File "/opt/conda/lib/python3.7/site-packages/torch/distributed/distributed_c10d.py",'
        " line 2420, in barrier\n"
        "    work = default_pg.barrier(opts=opts)\n"
        "RuntimeError: CUDA error: out of memory\n"
        "Killing subprocess 31867\n"
    )
    (raised,) = logs.parse(text).events
    assert (raised.kind, raised.line, raised.library) == (
        "python_exception", 9, "torch.distributed",
    )  # fmt: skip


def test_a_start_up_fallback_warning_is_not_named_as_the_cause() -> None:
    warned = _failures("wenet1891_2node_socket_nccl_warn_connect_fe80_network_unreachable_cut.log")
    assert [(e["line"], e["exception_type"]) for e in warned] == [
        (1, "start-up fallback"),
        (16, None),
    ]
    items = finding_items({"evidence.failures": warned}, "nccl")["evidence-nccl-warning"]
    assert items[0].startswith("voicec105 pid 90736, device 0: Connect to fe80::")
    assert "(a start-up fallback: NCCL went on without it)" in items[1]


def test_nccl_info_lines_behind_a_masked_host_are_ncclss_log() -> None:
    ev = _load("nccl952_info_p2p_ipc_read_and_net_socket_channels_cut.log")
    assert ev.files[0].status == "read" and ev.files[0].formats == ["log"]
    assert ev.failures == []  # NCCL's own healthy log: what its channels go over, said
    assert [m.message for m in ev.files[0].messages] == [
        "log: NCCL's channels go via P2P/IPC/read (14 line(s): GPU to GPU, NVLink or PCIe "
        "peer-to-peer), via NET/Socket (2 line(s): over the network)"
    ]


def test_a_matrix_whose_header_ran_the_names_together_is_read() -> None:
    ev = _load("sheffield_dgx1_lab05_8gpu_nv1_4mlx5_nvidia_smi_topo_glued_header.txt")
    assert ev.files[0].status == "read"  # every name and cell is read: a note, not a gap
    (topo,) = ev.topologies
    assert topo["devices"][8:] == ["mlx5_0", "mlx5_2", "mlx5_1", "mlx5_3"]
    assert [topo["links"]["mlx5_0"][g] for g in ("GPU0", "GPU1", "GPU2")] == ["PIX", "PIX", "PHB"]
    assert topo["links"]["GPU6"]["mlx5_3"] == "PIX" and topo["links"]["GPU0"]["GPU5"] == "SOC"
    assert topo["cpu_affinity"]["GPU7"] == "1-1"


# ---------------------------------------------------------------- round 3 (sets 167-171)


def test_kubernetes_accounts_of_a_container_that_ended_are_launcher_exits() -> None:
    (operator,) = _failures(
        "kubeflow_trainer2008_pytorchjob_operator_log_worker0_exited_with_code_1_cut.log"
    )
    assert (operator["kind"], operator["line"], operator["exit_code"]) == ("launcher_exit", 3, 1)
    assert (
        operator["exception_type"] == "Kubernetes (pod pytorch-simple-worker-0 container pytorch)"
    )
    (oom,) = _failures("kuberay4287_raycluster_head_pod_last_state_oomkilled_exitcode_137.txt")
    assert (oom["exception_type"], oom["exit_code"], oom["root_cause"]) == (
        "Kubernetes (container terminated: OOMKilled)", 137, True,
    )  # fmt: skip
    (lws,) = _failures("lws_awsdoeks68_decode_worker_pod_failed_deleted_leader_recreate_group0.log")
    assert lws["exception_type"].startswith(
        "LeaderWorkerSet (worker pod nemotron3-ultra-550b-disagg-decode-0 failed"
    )
    # kubectl describe's layout of the same state
    described = logs.parse(
        "    Last State:     Terminated\n      Reason:       OOMKilled\n"
        "      Exit Code:    137\n      Started:      Mon, 01 Dec 2025 10:00:00 +0000\n"
    ).events
    assert [(e.exception_type, e.exit_code) for e in described] == [
        ("Kubernetes (container terminated: OOMKilled)", 137)
    ]


def test_slurm_cancelling_a_step_and_its_oom_killer_are_named_first() -> None:
    cancelled, terminated = _failures(
        "slurm_myria3d123_ddp_prepare_data_step_6053_0_cancelled_srun_task0_terminated.log"
    )
    assert (cancelled["line"], cancelled["host"], cancelled["exception_type"]) == (
        2, "DEL2212S020", "slurmstepd (step 6053.0 cancelled)",
    )  # fmt: skip
    assert (terminated["rank"], terminated["exit_code"]) == (0, 143)
    # the time limit, and slurmstepd's OOM killer (synthetic lines of Slurm's own wording)
    text = (
        "slurmstepd: error: Detected 1 oom_kill event in StepId=440575.0. Some of the step "
        "tasks have been OOM Killed.\nsrun: error: nid001277: tasks 1-3: Out Of Memory\n"
        "slurmstepd: error: *** JOB 416593 ON cgpu08 CANCELLED AT 2020-01-27T14:51:17 DUE TO "
        "TIME LIMIT ***\n"
    )
    events = logs.parse(text).events
    assert [(e.line, e.rank, e.exception_type) for e in events] == [
        (1, None, "slurmstepd (Slurm's OOM killer: 1 oom_kill event(s) in step 440575.0)"),
        (2, 1, "srun (the task ran out of memory: Slurm's OOM killer)"),
        (2, 2, "srun (the task ran out of memory: Slurm's OOM killer)"),
        (2, 3, "srun (the task ran out of memory: Slurm's OOM killer)"),
        (3, None, "slurmstepd (job 416593 cancelled due to time limit)"),
    ]
    facts = [{**event(), **vars(e), "source": "slurm.out"} for e in events]
    items = finding_items({"evidence.failures": facts}, "gloo")["evidence-launcher-exit"]
    assert "task/rank 2 on nid001277: srun: error" in items[2]


def test_torchruns_agent_stopped_from_outside_is_named() -> None:
    (agent,) = _failures(
        "pytorch150916_other_node_agent_death_signal_15_sigterm_pid1365_torchrun_traceback_cut.log"
    )
    assert (agent["kind"], agent["line"], agent["exit_code"]) == ("launcher_exit", 1, -15)


def test_healthy_torch_lines_are_read_as_a_torch_log_with_nothing_found() -> None:
    for name in (
        "pytorch120849_valid_ddp_shutdown_false_alarm_async_exception_process_group_shutdown_rank3.log",
        "pytorch126275_torch24_process_group_not_destroyed_warnings_rank3_rank6_no_failure_cut.log",
    ):
        ev = _load(name)
        assert (ev.files[0].status, ev.files[0].formats, ev.failures) == ("read", ["log"], [])
        assert not ev.files[0].messages, name  # not "a program's log in no form ..."
    # torchrun's start-up INFO and its launch configuration (a synthetic copy)
    text = (
        "[INFO] 2021-12-08 12:28:26,050 run: Running torch.distributed.run with args: ['x']\n"
        "[INFO] 2021-12-08 12:28:26,098 api: Starting elastic_operator with launch configs:\n"
        "  min_nodes        : 2\n  rdzv_backend     : c10d\n"
    )
    assert logs.parse(text).events == []


def test_nccl_retrying_a_refused_connect_names_the_peer() -> None:
    (retry,) = _failures(
        "pytorch167288_k8s_torchrun_max_restarts_nccl_socketpollconnect_connection_refused_retrying_cut.log"
    )
    assert (retry["kind"], retry["exception_type"], retry["remote_ip"], retry["port"]) == (
        "nccl_connect_retry", "Connection refused", "10.29.224.148", 52333,
    )  # fmt: skip
    assert (retry["pid"], retry["device"]) == (5971, 4)


def test_a_node_and_index_prefix_behind_skypilots_leaves_ncclss_own() -> None:
    (warned,) = _failures(
        "skypilot4448_azure_head_rank0_nccl_warn_socketstartconnect_fe80_software_caused_connection_abort_cut.log"
    )
    assert (warned["host"], warned["pid"], warned["device"]) == ("nccl-e9ef-7d4f-0", 11172, 3)


def test_glog_lines_with_the_year_and_a_message_ending_in_error() -> None:
    (first,) = _failures("mooncake_ascend_direct_connect_status_103900_kv_transfer_failed_910b.log")
    assert (first["kind"], first["line"]) == ("log_error", 1)
    assert "Failed to connect to target: 172.17.0.16:25482, status: 103900" in first["message"]
    (cut,) = _failures(
        "sglang_8324_pd_mooncake_mlx5_bond_2_local_protection_error_rnic_inactive_cut.log"
    )
    assert (cut["line"], cut["message"].endswith("local protection error")) == (1, True)


def test_a_name_run_into_the_affinity_label_is_split_from_it() -> None:
    (topo,) = _load(
        "vllm_19261_h20_18nic_collect_env_topo_glued_nic17_cpu_affinity_cut.txt"
    ).topologies
    assert topo["devices"] == ["GPU0", "GPU1", "GPU2"]
    assert topo["links"]["GPU0"]["NIC17"] == "SYS" and topo["links"]["GPU1"]["NIC4"] == "PIX"
    assert topo["cpu_affinity"]["GPU2"] == "0-47,96-143" and topo["numa_affinity"]["GPU0"] == "0"
    assert "0-47,96-143" not in topo["kinds"]


def test_a_gloo_error_repeated_in_elastics_json_record_is_one() -> None:
    (gloo,) = _failures(
        "kubeflow_trainer1638_elastic_pytorchjob_worker0_gloo_connection_closed_by_peer_cut.log"
    )
    assert (gloo["exception_type"], gloo["line"]) == ("Connection closed by peer", 6)


# ---------------------------------------------------------------- round 4 (sets 172-176)


def test_open_mpis_error_handler_and_roc_ms_memory_fault_are_failures() -> None:
    (mpi,) = _failures(
        "megatron_bridge_issue665_tp_comm_overlap_mpi_init_thread_null_communicator.log"
    )
    assert (mpi["kind"], mpi["line"]) == ("launcher_exit", 1)
    assert mpi["exception_type"] == (
        "Open MPI (MPI_Init_thread failed on a NULL communicator: the processes abort)"
    )
    faults = _failures(
        "rocm_issue2494_mi300x_megatron_deepspeed_memory_access_fault_3_nodes_step1.log"
    )
    assert [e["kind"] for e in faults] == ["gpu_hw_exception"] * 3
    assert all(
        e["exception_type"].startswith("Memory access fault (reason: Unknown) (GPU node-")
        for e in faults
    )
    assert "GPU node-3" in faults[1]["message"] and "node-3" in faults[1]["exception_type"]


def test_an_exception_under_position_marks_and_a_ray_tasks_error_are_read() -> None:
    (oom,) = _failures("nemo_rl_issue2702_megatron_policy_worker_hf_to_megatron_cuda_oom_cut.log")
    assert (oom["kind"], oom["line"], oom["exception_type"]) == (
        "python_exception", 2, "AcceleratorError",
    )  # fmt: skip
    # Ray's wrapper of a remote task's exception, with its process, node and rank (synthetic)
    (task,) = logs.parse(
        "ray.exceptions.RayTaskError(OutOfMemoryError): ray::PolicyWorker.get_logprobs() "
        "(pid=2671339, ip=10.65.16.209, actor_id=d58, repr=PolicyWorker[rank=0])\n"
        '  File "/opt/app/worker.py", line 653, in get_logprobs\n'
    ).events
    assert (task.exception_type, task.pid, task.host, task.rank, task.call) == (
        "OutOfMemoryError", 2671339, "10.65.16.209", 0, "ray::PolicyWorker.get_logprobs",
    )  # fmt: skip


def test_deepspeeds_and_pdshs_accounts_of_a_node_that_failed() -> None:
    failures = _failures(
        "accelerate2468_deepspeed_pdsh_trainer2_tcpstore_no_route_to_host_exits_return_code_1_cut.log"
    )
    # (set 648: pdsh's ssh exit of the node with the launcher's own code is that node's one
    # failure, said with the launcher's record, not a second exit)
    assert [(e["kind"], e["line"], e["host"], e["exit_code"]) for e in failures] == [
        ("store_connect_failure", 5, "192.168.121.122", None),
        ("launcher_exit", 10, "trainer-2", 1),
    ]
    assert failures[1]["exception_type"].startswith("deepspeed (a process of its node failed")
    assert failures[1]["worker"] == "a node's launcher"
    assert failures[1]["repeated_lines"] == [11]


def test_ranks_stamped_the_same_second_with_no_root_cause_leave_the_first_untold() -> None:
    ev = _load("deepspeed4715_mpcdf_ravg1038_childfailederror_ranks1_3_exitcode1_cut.log")
    (timeline,) = ev.timelines
    assert (timeline.first_rank, timeline.tied) == (None, [1, 2, 3])
    assert "which failed first cannot be told" in timeline.summary


def test_lowercase_bracketed_levels_and_rccls_start_up_advice() -> None:
    text = (
        "I20251208 11:52:33.906306 69771 loader.cpp:65] Loading model weights\n"
        "[2025-12-08 11:52:44.735471] [error] [69197] [operation_util.h:156] rankSize [16] is "
        "invalid\n"
        "E20251208 11:52:44.736321 69197 impl.cpp:96] node.operation is null\n"
    )
    (first,) = logs.parse(text).events
    assert (first.kind, first.line) == ("log_error", 2)
    warned = logs.parse(
        'node-a:2048:2048 [0] src/init.cc:125 NCCL WARN Missing "amd_iommu=on" from kernel '
        "command line which can lead to system instablity or hang!\n"
        "node-a:2048:2050 [1] transport/p2p.cc:220 NCCL WARN hipIpcGetMemHandle failed : "
        "invalid argument\n"
    ).events
    assert [(e.line, e.exception_type) for e in warned] == [(1, "start-up fallback"), (2, None)]


def test_a_wrapped_hccl_function_error_and_a_quoted_command_in_a_table() -> None:
    (call,) = logs.parse(
        "RuntimeError: create_config:...HCCLUtils.cpp:130 HCCL function error:\n"
        "hcclCommInitRootInfoConfig(...), error code is 15\n"
    ).events
    assert (call.kind, call.call, call.code, call.line) == (
        "hccl_call_failure", "hcclCommInitRootInfoConfig", "15", 1,
    )  # fmt: skip
    table = "| item | value |\n|---|---|\n| `hccn_tool -i 0 -link -g` | all **DOWN** |\n"
    assert "hccn_tool" not in detect(table)


def test_a_chip_whose_row_was_cut_is_said_so_in_the_health_finding() -> None:
    chips = [
        npu_chip(npu=0, chip=0, name="Ascend910", health="Alarm", bus_id="0000:9D:00.0"),
        npu_chip(npu=0, chip=None, name="Ascend910", health="Alarm", bus_id=None),
    ]
    items = finding_items({"evidence.npu_chips": chips}, "hccl")["evidence-npu-chip-health"]
    assert items[1].startswith("NPU 0 (its chip row cut off) (Ascend910) health Alarm")
