"""Outputs of round EE's held-out evaluation (sets 371-374; tests/data/evidence_heldout_55,
sources in tests/data/SOURCES.md) that the advisor read wrong or not at all before this change."""

from __future__ import annotations

from functools import partial

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings, smi_gpu

HELDOUT = DATA / "evidence_heldout_55"


_load = partial(heldout.load, HELDOUT)


def _said(ev: EvidenceFacts) -> list[str]:
    # (each message without the "format: " its reading puts first)
    return [
        m.message.split(": ", 1)[-1]
        if m.message.startswith(("ascend_notes: ", "rank_table: ", "nvbandwidth: "))
        else m.message
        for f in ev.files
        for m in f.messages
    ]


def test_hccn_tools_recovery_of_every_device_is_said() -> None:
    ev = _load("hccn_tool_s_cfg_recovery_all_device_0_2_recovery_success_elided_950_driver_doc.txt")
    assert ev.files[0].formats == ["ascend_notes"] and not ev.failures
    said = _said(ev)
    assert [m for m in said if "configuration recovery succeeded" in m] == [
        f"hccn_tool -cfg_recovery: device {n} network configuration recovery succeeded"
        for n in (0, 1, 2)
    ]


def test_asys_own_error_is_quoted_as_the_tools() -> None:
    ev = _load(
        "asys_stacktrace_export_error_generating_stackcore_bin_file_timeout_indented_oamtools_faq.txt"
    )
    assert any(
        m.startswith("asys ERROR: Generating the stackcore bin file timeout.")
        and m.endswith("(asys's own failure, not a device's)")
        for m in _said(ev)
    )


def test_asys_config_table_and_restore_are_notes() -> None:
    ev = _load(
        "asys_config_get_restore_stress_detect_dev0_aicore_bus_voltage_850mv_oamtools_doc.txt"
    )
    said = _said(ev)
    assert any(
        "device 0's configuration table" in m and "AI Core Voltage (MV) 850" in m for m in said
    )
    assert any(m == "asys INFO: Configuration successfully restore, on device 0." for m in said)


def test_a_rank_table_with_every_device_ip_empty_is_said() -> None:
    ev = _load(
        "rank_table_v10_1srv_8dev_server_id_0_device_ip_empty_host_nic_reserve_hccl_tf_example.json"
    )
    assert any("device_ip is empty for all 8 devices" in m for m in _said(ev))


def test_a_placeholder_server_id_and_the_ranks_sharing_an_address_are_named() -> None:
    ev = _load(
        "rank_table_v10_2srv_16dev_server_id_xx_device_ips_192_168_x_1_reused_ranks4_7_and_8_11_"
        "telechat2_mindformers_vit_doc.json"
    )
    assert any(
        "server_id xx.xx.xx.xx is a template's placeholder, shared by 2 servers" in m
        for m in _said(ev)
    )
    (table,) = ev.rank_tables
    assert "device_ip 192.168.0.1 is given to 2 devices (ranks 4, 8)" in table["errors"]


def test_ascend_fds_performance_modules_are_a_warning_not_a_fault() -> None:
    ev = _load(
        "ascend_fd_diag_26.0.0_performance_unknown_device_no_heartbeat_cpu_preemption_link_"
        "congestion_worker0_worker1_indented.txt"
    )
    assert {f["kind"] for f in ev.failures} == {"faultdiag_performance"}
    findings = builtin_findings({"evidence.failures": ev.failures}, "hccl")
    assert findings["evidence-faultdiag-performance"].severity == "warning"
    assert "evidence-faultdiag-fault" not in findings


def test_a_programs_print_of_an_acl_calls_result_is_read() -> None:
    ev = _load("cann_runtime_faq_aclrtsetdevice_107001_driver_not_loaded.log")
    (err,) = ev.failures
    assert (err["kind"], err["call"], err["code"], err["code_name"]) == (
        "npu_runtime_error", "aclrtSetDevice", "107001", "ACL_ERROR_RT_INVALID_DEVICEID",
    )  # fmt: skip


def test_bandwidth_tests_csv_lines_are_read() -> None:
    ev = _load("bandwidthTest_shmoo_h2d_pinned_v100_pcie_12_4gbs_superbench.log")
    assert ev.files[0].formats == ["bandwidth_test"]
    (run,) = ev.gpu_copy
    (h2d,) = run["matrices"]
    assert h2d["title"] == "Host to Device (PINNED)" and h2d["unit"] == "GB/s"
    assert max(r["bandwidth"] for r in h2d["rows"].values()) == 12.4
    assert run["host_copy_slow"] == []


def test_an_infiniband_ports_gids_raise_no_roce_warning() -> None:
    ev = _load("show_gids_mlx5_0_linklocal_only_v1_v2_no_ipv4_mlx5_1_no_netdev_rdmatest.txt")
    # mlx5_0 is RoCE (a netdev) with no IPv4 GID; mlx5_1 is InfiniBand (no netdev)
    assert [f["message"] for f in ev.failures] == [
        "mlx5_0 port 1: no RoCEv2 GID with an IPv4 address"
    ]
    assert any("mlx5_1 port 1: 1 GID(s); an InfiniBand port" in m for m in _said(ev))


def test_nvbandwidths_diagonal_is_no_pair() -> None:
    ev = _load("nvbandwidth_d2d_write_ce_8gpu_matrix_276gbs_uniform_readme_example.txt")
    assert any("lowest 274.89 GB/s" in m for m in _said(ev))


def test_an_nccl_return_its_process_went_on_from_is_no_failure() -> None:
    ev = _load(
        "opennmt1606_gcp_2x8_nccl24_init_complete_ranks9_14_of16_rank8_eth0_no_real_path_net_h19_"
        "ret2_net_socket_ring_cut.log"
    )
    assert not [f for f in ev.failures if f["kind"] == "nccl_call_failure"]


def test_a_bold_nccl_warn_and_its_shared_memory_cause_are_read() -> None:
    ev = _load(
        "xgboost5963_docker_nccl27_bold_markdown_warn_posix_fallocate_no_space_dev_shm_two_procs.log"
    )
    assert any("set in Markdown bold" in m for m in _said(ev))
    first = min(ev.failures, key=lambda f: f["line"])
    assert first["line"] == 2 and "/dev/shm is full or too small" in first["exception_type"]


def test_xlas_last_nccl_warning_is_the_calls_cause() -> None:
    ev = _load(
        "xla7201_jax_xla_ncclcomminitrank_unhandled_cuda_error_last_warning_cuda_failure_2_out_of_"
        "memory_all_reduce_start.log"
    )
    (call,) = ev.failures
    assert call["exception_type"] == "Cuda failure 2 'out of memory'"


def test_processes_that_each_listed_rank_0_and_no_table_are_one_process_runs() -> None:
    # (the post lost each line's "#" and the header line; the copy ends inside the 13th list)
    ev = _load(
        "nccl_tests_allreduce_16proc_2node_h100_all_rank0_device0_not_mpi_built_nccltests254_cut.txt"
    )
    assert ev.files[0].formats == ["nccl_tests"] and ev.files[0].status != "unknown"
    (bench,) = ev.benchmarks
    assert bench["solo_hosts"][:3] == ["dgx01", "dgx02", "dgx02"]
    assert len(bench["solo_hosts"]) == 12 and not bench["results"]
    assert any("16 started, the copy holds 12 lists" in m.message for m in ev.files[0].messages)
    findings = builtin_findings({"evidence.benchmarks": ev.benchmarks}, "nccl")
    assert "dgx01, dgx02" in str(findings["evidence-nccl-tests-solo-runs"].items[0])


def test_an_invalid_device_ordinal_advises_placing_one_process_per_gpu() -> None:
    # -g 1 asks one GPU per process; "-H host:2" put both processes on the first host
    ev = _load(
        "nccl_tests_allreduce_2node_v100_mpirun_invalid_device_ordinal_common892_nccltests165.txt"
    )
    (cuda,) = [f for f in ev.failures if f["kind"] == "cuda_error"]
    assert cuda["exception_type"] == "invalid device ordinal" and cuda["host"] == "majidnc24MPTXTH"
    finding = builtin_findings({"evidence.failures": ev.failures}, "nccl")["evidence-cuda-error"]
    advice = " ".join(r.why for r in finding.recommendations)
    assert "more processes placed on that host than it has GPUs" in advice
    assert "--map-by node" in advice


def test_nvidia_smi_qs_pci_record_and_attached_count_are_read() -> None:
    ev = _load(
        "nvidia_smi_q_h100_535_183_01_gpu53_replays_120_invalid_hw_slowdown_labels_gpud_cut.txt"
    )
    (gpu,) = ev.gpus
    assert (gpu["persistence"], gpu["mig_mode"], gpu["pcie_replays"]) == ("On", "Disabled", 120)
    assert gpu["pcie_gen"] == {"Max": 5, "Current": 5}
    assert gpu["pcie_width_lanes"] == {"Max": 16, "Current": 16} and not gpu["pcie_width_low"]
    notes = [m.message for m in ev.files[0].messages]
    assert any("8 GPUs attached, the file holds 1 GPU record(s)" in m for m in notes)
    assert any("00000000:53:00.0: 120 PCIe replays since its last reset" in m for m in notes)
    # a full-width link and a replay count alone (no rate) raise no finding
    assert not builtin_findings({"evidence.gpus": ev.gpus}, "nccl").get(
        "evidence-gpu-pcie-width-low"
    )


def test_a_gpu_link_on_fewer_lanes_than_its_maximum_is_a_warning() -> None:
    narrow = smi_gpu(query="q", pcie_width_lanes={"Max": 16, "Current": 8}, pcie_width_low=True)
    found = builtin_findings({"evidence.gpus": [narrow, smi_gpu(gpu=1, query="q")]}, "nccl")
    finding = found["evidence-gpu-pcie-width-low"]
    assert finding.severity == "warning"
    assert [str(i) for i in finding.items] == [
        "GPU 0 (00000000:18:00.0): link width x8 of x16 (nvidia-smi.txt, line 9)"
    ]
