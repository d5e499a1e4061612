"""Outputs the two-hundred-first to two-hundred-fourth held-out evaluations misread that this
stop reads: HCCL's init trace that names the failed call's rank, the older task exception
handler's three lines, the device's own task scheduler log, the runtime's invalid device id,
vLLM's and sglang's custom all-reduce CUDA checks, the NVSwitch driver's SXid records beside the
GPU driver's Xids, ColossalAI's launcher naming the host whose torchrun failed, nvidia-smi's
status table and NVLink states whose indent a page lost; and the edge cases a review of this
stop's readings found.

Samples: ``tests/data/evidence_heldout_32/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import load_text
from tests import heldout
from tests.conftest import DATA, run_advisor
from tests.rules_facts import finding_items

HELDOUT = DATA / "evidence_heldout_32"


_load = partial(heldout.load, HELDOUT)


def _failures(name: str, kind: str) -> list[dict]:
    return [f for f in _load(name).failures if f["kind"] == kind]


def test_an_init_trace_names_the_failed_calls_rank_and_world() -> None:
    name = "hccl_plog_rootinfo_init_failed_rank6_of_8_recv_timeout_firewall_setup_topo_detect_error_mindcluster_rcdiag.log"
    (call,) = _failures(name, "hccl_call_failure")
    assert (call["call"], call["code"], call["code_name"]) == (
        "HcclCommInitRootInfo",
        "4",
        "HCCL_E_INTERNAL",
    )
    assert (call["rank"], call["rank_size"], call["line"]) == (6, 8, 11)
    # the socket wait before it is read too
    (wait,) = _failures(name, "hccl_link_timeout")
    assert wait["exception_type"].startswith("socket recv timed out")


def test_the_older_task_exception_handler_names_rank_peer_op_and_group() -> None:
    name = "hccl_plog_4rank_init_success_then_allreduce_notify_wait_task_exception_rank0_remote_rank3_mindcluster_rc122.log"
    (ev,) = _failures(name, "hccl_plog_error")
    assert (ev["rank"], ev["remote_rank"], ev["op"], ev["rank_size"]) == (0, 3, "all_reduce", 4)
    assert ev["exception_type"] == "task exception on a Notify Wait task"
    items = finding_items({"evidence.failures": [ev]}, "hccl")["evidence-hccl-plog-error"]
    assert items[0].startswith(
        "Rank 0: task exception on a Notify Wait task (peer rank 3) in op all_reduce"
    )


def test_the_devices_task_scheduler_log_is_a_device_exception() -> None:
    name = "npu_device_slog_tsch_hwts_timeout_exception_notify_wait_timeout_device0_stream16_task43_mindcluster.log"
    assert _load(name).files[0].formats == ["log"]
    (ev,) = _failures(name, "npu_device_exception")
    assert (ev["device"], ev["code"], ev["line"]) == (0, "0xb4060007", 1)
    assert ev["exception_type"] == "hwts timeout exception (notify wait timeout), stream 16 task 43"
    items = finding_items({"evidence.failures": [ev]}, "hccl")["evidence-npu-device-exception"]
    assert items[0].startswith("Device 0: hwts timeout exception (notify wait timeout)")


def test_an_invalid_device_id_is_the_runtimes_coded_failure() -> None:
    name = "cann_plog_runtime_ascendcl_mindie_npu_vm_set_visible_device_failed_invalid_device0_visible4_rtsetdevice_107001_gpustack3352_cut.log"
    (ev,) = _failures(name, "npu_runtime_error")
    assert (ev["code"], ev["code_name"], ev["call"], ev["device"]) == (
        "107001",
        "ACL_ERROR_RT_INVALID_DEVICEID",
        "rtSetDevice",
        0,
    )
    (first,) = _failures(name, "hccl_plog_error")
    # the runtime's own line above a failure that is not HCCL's
    assert first["exception_type"] == "RUNTIME error before the failure read"


def test_custom_all_reduce_cuda_checks_of_sglang_and_vllm_are_cuda_errors() -> None:
    (sglang,) = _failures(
        "custom_allreduce_cuda_error_peer_access_not_supported_sglang1509_tp0_tp1_bench_latency_cut.log",
        "cuda_error",
    )
    # (two processes of the log printed it)
    assert sglang["exception_type"] == (
        "peer access is not supported between these two devices; 2 processes reported it"
    )
    assert sglang["call"] == "/workspace/csrc/custom_all_reduce.cuh:307"
    (vllm,) = _failures(
        "dynamo_run_vllm_tp8_worker_log_custom_all_reduce_cuh368_invalid_argument_7_ranks_dynamo787_cut.log",
        "cuda_error",
    )
    assert (vllm["call"], vllm["exception_type"]) == (
        "/workspace/csrc/custom_all_reduce.cuh:368",
        "invalid argument; 7 processes reported it",  # (the seven ranks' workers)
    )
    # "Failed: x:1 'y'" of a file that is no source file is no CUDA check
    assert not load_text("Failed: step:3 'loss is nan'\n", "t.log").failures


def test_nvswitch_sxids_are_read_beside_the_gpu_drivers_xids() -> None:
    ev = _load(
        "dmesg_ctime_hgx_nvswitch_sxid12028_nonfatal_link62_priv_error_xid94_contained_xid137_tlc_rx_links4_7_sulao_cn_cut.log"
    )
    told = [(f["kind"], f["code"], f["line"]) for f in ev.failures]
    # switches 1 and 3 show only their records' Data lines: one event each; switch 2's record
    # has its first line; the GPU's Xid 137 on links 4-7 is one event with its repeats counted
    assert told == [
        ("gpu_driver_error", "12028", 1),
        ("gpu_driver_error", "12028", 2),
        ("gpu_driver_error", "12028", 3),
        ("gpu_driver_error", "94", 4),
        ("gpu_driver_error", "137", 7),
        ("gpu_driver_error", "94", 11),
    ]
    assert ev.failures[2]["exception_type"] == (
        "SXid 12028 on NVSwitch PCI:0000:07:00.0 (nvidia-nvswitch2): Non-fatal, Link 62 egress "
        "non-posted PRIV error (First)"
    )
    assert ev.failures[4]["exception_type"].endswith("(4 reports)")
    # the pid and process the driver names stay in the message, not in what failed
    assert ev.failures[3]["exception_type"] == "Xid 94 on PCI:0000:cb:00: channel 0x0000000b"


def test_a_gpu_off_the_bus_and_fatal_sxids_are_faults() -> None:
    ev = _load(
        "dmesg_quoted_xid79_fallen_off_bus_9100_then_nvswitch_sxid20034_ltssm_fault_up_links48_63_37_62_gpud_sxid_readme.txt"
    )
    faults = [f for f in ev.failures if f["kind"] == "gpu_driver_fault"]
    assert [(f["code"], f["line"]) for f in faults] == [
        ("79", 5),
        ("20034", 11),
        ("20034", 13),
        ("20034", 19),
        ("20034", 21),
    ]
    items = finding_items({"evidence.failures": faults}, "nccl")["evidence-gpu-driver-fault"]
    assert items[1].startswith(
        "SXid 20034 on NVSwitch PCI:0000:06:00.0 (nvidia-nvswitch1): Fatal, Link 48 LTSSM Fault Up"
    )


def test_colossalais_launcher_names_the_host_whose_torchrun_failed() -> None:
    name = "c10d_rendezvous_connection_error_tcp_store_then_colossalai_run_failed_torchrun_on_gpu01_bad_exit_code_colossalai4009_cut.log"
    (launcher,) = _failures(name, "launcher_exit")
    assert (launcher["host"], launcher["line"]) == ("GPU01", 5)
    assert launcher["exception_type"] == "colossalai run (Encountered a bad command exit code!)"
    assert _failures(name, "rendezvous_failure")


def test_nvidia_smis_status_table_is_read_per_gpu() -> None:
    ev = _load(
        "gh200_lambda_container_specs_dump_free_lscpu_df_nvidia_smi_1gpu_97871mib_ecc0_cuda_props_warp_ik.txt"
    )
    # (its lscpu block, lines 30-46, is read too since set 694b: a note, nothing judged)
    assert ev.files[0].formats == ["lscpu", "nvidia_smi"] and ev.files[0].status == "read"
    (gpu,) = ev.gpus
    assert (gpu["gpu"], gpu["name"], gpu["bus_id"], gpu["driver"], gpu["cuda"]) == (
        0,
        "NVIDIA GH200 480GB",
        "00000000:DD:00.0",
        "570.124.06",
        "12.8",
    )
    assert (gpu["ecc_uncorrected"], gpu["temp_c"], gpu["power_w"], gpu["power_cap_w"]) == (
        0,
        33,
        86,
        700,
    )
    assert (gpu["memory_used_mib"], gpu["memory_total_mib"], gpu["mig_mode"]) == (
        1,
        97871,
        "Disabled",
    )
    findings = finding_items({"evidence.gpus": ev.gpus}, "nccl")
    assert (
        "evidence-gpu-ecc-uncorrected" not in findings and "evidence-gpu-unreadable" not in findings
    )
    # the old two-row layout, an uncorrectable ECC count and a field NVML could not read
    old = (
        "| NVIDIA-SMI 418.67       Driver Version: 418.67       CUDA Version: 10.1     |\n"
        "|-------------------------------+----------------------+----------------------+\n"
        "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
        "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\n"
        "|===============================+======================+======================|\n"
        "|   0  Tesla V100-SXM2...  Off  | 00000000:8A:00.0 Off |                    2 |\n"
        "| N/A   35C    P0    56W / 300W |     10MiB / 16130MiB |      0%      Default |\n"
        "+-------------------------------+----------------------+----------------------+\n"
        "|   1  Tesla V100-SXM2...  Off  | 00000000:8B:00.0 Off |                    0 |\n"
        "| N/A   36C    P0   ERR! / 300W |     10MiB / 16130MiB |      0%      Default |\n"
        "+-------------------------------+----------------------+----------------------+\n"
    )
    gpus = load_text(old, "smi.txt").gpus
    assert [(g["ecc_uncorrected"], g["unreadable"]) for g in gpus] == [(2, []), (0, ["power"])]
    findings = finding_items({"evidence.gpus": gpus}, "nccl")
    assert findings["evidence-gpu-ecc-uncorrected"][0].startswith(
        "GPU 0 (Tesla V100-SXM2..., 00000000:8A:00.0): 2 uncorrectable ECC error(s)"
    )
    # (a power sensor alone unreadable: the GPU answered; a warning, not a GPU in a bad state)
    assert findings["evidence-gpu-sensor-unreadable"][0].startswith(
        "GPU 1 (Tesla V100-SXM2..., 00000000:8B:00.0): power unreadable"
    )


def test_nvlink_states_whose_indent_a_page_lost_are_read() -> None:
    ev = _load(
        "nvidia_smi_nvlink_status_i0_i1_2xv100_sxm2_2of6_links_each_25_781gbs_rwth_claix_prompt_flat_indent.txt"
    )
    assert [(g["gpu"], g["active"], g["inactive"]) for g in ev.nvlinks] == [
        (0, 2, [1, 3, 4, 5]),
        (1, 2, [0, 3, 4, 5]),
    ]
    assert not any(g["fewer_than_peers"] for g in ev.nvlinks)


# ---- the review's cases ----------------------------------------------------------------------


def _nvlink_lines(gpu: int, links: int, name: str = "NVIDIA H100 PCIe") -> str:
    rows = "".join(f"\t Link {n}: 26.562 GB/s\n" for n in range(links))
    return f"GPU {gpu}: {name} (UUID: GPU-{gpu})\n{rows}"


def test_a_gpu_listing_fewer_links_than_its_peers_is_cut_wherever_it_stands() -> None:
    for tail in ("", "root@x:~# exit\nlogout\n"):
        ev = load_text(_nvlink_lines(0, 18) + _nvlink_lines(1, 15) + tail, "n.txt")
        assert [g["cut"] for g in ev.nvlinks] == [False, True], tail
        assert not any(g["fewer_than_peers"] for g in ev.nvlinks)
    # in the middle: a copy that left lines out
    ev = load_text(_nvlink_lines(0, 18) + _nvlink_lines(1, 12) + _nvlink_lines(2, 18), "n.txt")
    assert [g["cut"] for g in ev.nvlinks] == [False, True, False]


def test_nvmls_none_up_answer_under_one_gpus_command_takes_its_peers_model() -> None:
    text = (
        "$ nvidia-smi nvlink -i 0 -s\n"
        "NVML: Unable to retrieve NVLink information as all links are inActive\n"
        "$ nvidia-smi -i 1 nvlink --status\n" + _nvlink_lines(1, 4, "Quadro RTX 8000")
    )
    ev = load_text(text, "n.txt")
    assert [(g["gpu"], g["name"], g["none_up"], g["fewer_than_peers"]) for g in ev.nvlinks] == [
        (0, "Quadro RTX 8000", True, True),
        (1, "Quadro RTX 8000", False, False),
    ]
    # without -i the answer names no GPU: not read
    lone = "$ nvidia-smi nvlink -s\nNVML: Unable to retrieve NVLink information as all links are inActive\n"
    assert load_text(lone, "n.txt").files[0].status == "unknown"


def test_only_a_factor_some_all_reduce_has_is_read_as_all_reduce() -> None:
    header = (
        "#       size         count      type   redop    root     time   algbw   busbw #wrong"
        "     time   algbw   busbw #wrong\n"
    )

    def table(busbw: float) -> str:
        return header + "".join(
            f"{n:>12} {n // 4:>12}     float     sum      -1    10.00   10.00  {busbw:6.2f}"
            f"    N/A    10.00   10.00  {busbw:6.2f}    N/A\n"
            for n in (1048576, 2097152)
        )

    assert load_text(table(18.75), "t.log").benchmarks[0]["op"] == "all_reduce"  # n = 16
    for impossible in (30.0, 11.5):  # 3.0: no n; 1.15: below n = 3's 1.33
        assert load_text(table(impossible), "t.log").benchmarks[0]["op"] == "unknown"


def test_a_reduced_max_bytes_run_is_judged_by_its_count_of_sizes() -> None:
    head = (
        "# nThread 1 nGpus 1 minBytes 1073741824 maxBytes 8589934592 step: 2(factor) warmup "
        "iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n# Using devices\n"
        "#  Rank  0 Group  0 Pid 1 on a device  0 [0x1b] NVIDIA H100\n#\n"
        "# Reducing maxBytes to 5284866730 due to memory limitation\n#\n"
    )
    cols = (
        "#       size         count      type   redop    root     time   algbw   busbw #wrong"
        "     time   algbw   busbw #wrong\n"
    )
    rows = "".join(
        f"{n:>12} {n // 4:>12}     float     sum      -1    10.00   1.00   1.00      0    10.00"
        "   1.00   1.00      0\n"
        for n in (1073741824, 2147483648, 4294967296)
    )
    notes = [m.message for m in load_text(head + cols + rows, "t.log").files[0].messages]
    assert any("its rows reach the last size asked (4294967296 B)" in n for n in notes), notes
    # a run that reduced and stopped before its table: what it kept, not what it asked
    (note,) = load_text(head + "NCCL WARN boom\n", "t.log").files[0].messages
    assert "0 of 3 sizes (the 5284866730 B maxBytes the run kept" in note.message


def test_an_ascend_tools_reason_is_only_its_own_words() -> None:
    traced = (
        "+ hccn_tool -i 0 -ip -s address 10.0.0.1 netmask 255.255.255.0\n"
        "Command execute failed!\n"
        "+ hccn_tool -i 1 -ip -s address 10.0.0.2 netmask 255.255.255.0\n"
        "Command execute failed!\n"
        "Command execute failed!\n"
    )
    (ev,) = load_text(traced, "t.log").failures
    assert ev["exception_type"] == "3 command(s) failed: no reason given"


def test_a_rank_table_missing_only_its_brace_keeps_every_check() -> None:
    text = (
        '"version": "1.0",\n"server_count": "2",\n"server_list": [{"server_id": "1.1.1.1", '
        '"device": [{"device_id": "0", "device_ip": "2.2.2.2", "rank_id": "0"}, '
        '{"device_id": "1", "device_ip": "2.2.2.3", "rank_id": "0"}]}],\n"status": "completed"\n}\n'
    )
    (table,) = load_text(text, "r.json").rank_tables
    assert table["braceless"] and not table["headless"]
    assert "server_count is 2 but server_list holds 1 servers" in table["errors"]
    assert any(e.startswith("rank_id 0 is used 2 times") for e in table["errors"])


def test_the_report_shows_each_gpu_of_nvidia_smis_table_and_a_kernel_logs_faults(
    tmp_path: Path,
) -> None:
    out = tmp_path / "run"
    files = [
        HELDOUT
        / "gh200_lambda_container_specs_dump_free_lscpu_df_nvidia_smi_1gpu_97871mib_ecc0_cuda_props_warp_ik.txt",
        HELDOUT
        / "dmesg_quoted_xid79_fallen_off_bus_9100_then_nvswitch_sxid20034_ltssm_fault_up_links48_63_37_62_gpud_sxid_readme.txt",
    ]
    res = run_advisor([*map(str, files), "--out", str(out)], out, command="import", timeout_s=120)
    assert res.returncode == 1, res.stdout + res.stderr  # a GPU off the bus: not ready
    assert "evidence-gpu-driver-fault" in res.stdout
    html = (out / "report.html").read_text()
    table = html[html.index('<table class="gpus">') :]
    table = table[: table.index("</table>")]
    assert "NVIDIA GH200 480GB" in table and "1 / 97871" in table and "86 / 700" in table
