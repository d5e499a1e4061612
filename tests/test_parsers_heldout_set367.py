"""Outputs of round DD's held-out evaluation (sets 367-370; tests/data/evidence_heldout_54,
sources in tests/data/SOURCES.md) that the advisor read wrong or not at all before this change."""

from __future__ import annotations

from functools import partial

from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_54"


_load = partial(heldout.load, HELDOUT)


def test_a_perftest_header_without_its_second_hash_is_read() -> None:
    ev = _load("ib_read_bw_root_prompt_no_dash_lines_mlx5_1_ib_small_sizes_ucx8852_cut.txt")
    (port,) = ev.hca_ports
    run = port["perftest"]
    assert port["ca"] == "mlx5_1" and len(run["rows"]) == 7
    assert run["rows"][-1]["bytes"] == 128


def test_a_perftest_port_that_is_down_is_its_failure() -> None:
    ev = _load("ib_send_lat_port1_state_down_couldnt_set_link_layer_quoted_lsgunth_perftest1.txt")
    assert ev.files[0].formats == ["perftest"]
    assert any("Markdown quote" in m.message for m in ev.files[0].messages)
    (port,) = ev.hca_ports
    assert port["perftest"]["failed"] == "Port number 1 state is Down"


def test_a_gpu_nvml_cannot_reach_is_a_fault() -> None:
    ev = _load(
        "nvidia_smi_a_i0_unable_to_determine_device_handle_0900_unknown_error_nvidiadocker1553.txt"
    )
    (lost,) = ev.failures
    assert lost["kind"] == "gpu_driver_fault"
    assert lost["exception_type"].startswith("nvidia-smi could not reach GPU 0000:09:00.0")


def test_a_gpus_sys_path_to_a_nic_is_no_gpu_pair_through_sys() -> None:
    ev = _load("nvidia_smi_topo_m_8gpu_nv8_9nic_pix_node_numa01_no_gpu_numa_col_nccl933_cut.txt")
    (topo,) = ev.topologies
    assert topo["sys_pairs"] == []
    assert "evidence-gpu-topology-sys" not in builtin_findings(
        {"evidence.topologies": ev.topologies}, "nccl"
    )


def test_dcgmi_discovery_lists_the_gpus_and_says_the_ones_left_out() -> None:
    ev = _load(
        "dcgmi_discovery_l_8x_h100_active_gpu0_only_elided_indented_prompt_kempnerpulse15_cut.txt"
    )
    assert ev.files[0].formats == ["dcgmi_discovery"] and ev.files[0].status == "partial"
    said = [m.message for m in ev.files[0].messages]
    assert any("8 GPU(s) found: GPU 0 NVIDIA H100 80GB HBM3 (00000000:19:00.0)" in m for m in said)
    assert any("8 GPU(s) found, 1 listed in the copy" in m for m in said)


def test_mlxlinks_json_is_read_even_cut() -> None:
    ev = _load("mlxlink_json_cx5_mt4119_port1_ib_edr_active_linkup_4x_lshca11_cut.txt")
    (port,) = ev.hca_ports
    assert (port["ca"], port["state"], port["physical_state"]) == (
        "/dev/mst/mt4119_pciconf0", "Active", "LinkUp",
    )  # fmt: skip
    assert (port["rate_gbps"], port["link_layer"]) == (100.0, "InfiniBand")


def test_a_healthy_nccl_start_without_its_prefixes_is_read() -> None:
    ev = _load(
        "nccl1584_healthy_bare_lines_no_prefix_nccl2_24_3_ibext_sharp_8hca_nvls_multicast_"
        "available_rank0_of8_cut.log"
    )
    assert ev.files[0].status == "read" and not ev.failures
    said = [m.message for m in ev.files[0].messages]
    assert any(m.endswith("NCCL 2.24.3+cuda12.2") for m in said)
    assert any("NET/IB uses [0]ibp0:1/IB/SHARP" in m for m in said)


def test_a_listen_failure_on_an_address_with_its_interface_is_the_port_held() -> None:
    ev = _load(
        "hiascend_cann850_en_hcclug35_ej0003_server_socket_type2_listen_60000_fail_"
        "startrootnetwork_ret7_cut.log"
    )
    kinds = [f["kind"] for f in ev.failures]
    assert kinds == ["hccl_bind_failure"]
    assert (ev.failures[0]["ip"], ev.failures[0]["port"]) == ("10.137.69.222", 60000)


def test_mindformers_step_lines_are_a_training_log() -> None:
    ev = _load(
        "mindformers_docs_high_availability_llama2_13b_msrun_worker0_grep_epoch_5_steps_healthy.log"
    )
    assert not ev.failures
    (note,) = ev.files[0].messages
    assert "5 step(s) logged, from epoch 1 step 1 (loss 10.649) to epoch 1 step 5 (loss 8.867)" in (
        note.message
    )


def test_a_task_queue_exit_names_its_rank_and_claims_no_dump() -> None:
    ev = _load(
        "msswift6671_910b_qwen3next_zero3_partition_rank0_hccl_broadcast_inner_error_cut.log"
    )
    finding = builtin_findings({"evidence.failures": ev.failures}, "hccl")[
        "evidence-npu-device-exception"
    ]
    assert finding.items[0].startswith("Rank 0: an inner (CANN) error stopped the process")
    assert "The NPU runtime dumped" not in finding.message


def test_worker_records_joined_onto_one_line_are_split() -> None:
    ev = _load("vllm_ascend3196_pp_send_tensor_dict_worker_rank0_flattened_one_line_cut.log")
    (err,) = ev.failures
    assert (err["kind"], err["rank"], err["line"]) == ("log_error", 0, 2)
    assert err["message"].endswith("WorkerProc hit an exception.")


def test_ascend_950s_second_rows_with_no_bus_id_are_read() -> None:
    ev = _load(
        "nputop_npu_smi_info_950dt_26_2_0_b007_8npu_all_warning_idle_bus_na_no_procs_capture.txt"
    )
    assert ev.files[0].status == "read"
    assert len(ev.npu_chips) == 8
    assert {(c["bus_id"], c["hbm_total_mb"]) for c in ev.npu_chips} == {("NA", 98304)}
    assert {c["health"] for c in ev.npu_chips} == {"Warning"}


def test_a_process_row_naming_the_npu_alone_is_on_its_one_chip() -> None:
    ev = _load(
        "nputop_npu_smi_info_950dt_26_2_0_b007_8npu_ok_npu0_chipless_proc_udma_d2h_demo_capture.txt"
    )
    assert not ev.files[0].messages
    (npu0,) = [c for c in ev.npu_chips if c["npu"] == 0]
    assert npu0["processes"] == ["udma_d2h_demo (pid 3252331, 341 MB)"]


def test_npu_smi_refusing_a_query_without_a_card_is_a_note() -> None:
    ev = _load(
        "nputop_npu_smi_info_t_usages_no_card_id_must_input_card_id_help_a3_26_1_capture.txt"
    )
    assert ev.files[0].formats == ["ascend_notes"] and not ev.failures
    assert "no card id (-i) was given" in ev.files[0].messages[0].message


def test_a_query_answer_under_its_command_is_read_whatever_its_keys() -> None:
    sio = _load("driver950_npu_smi_info_t_sio_info_i0_tx_rx_error_count_0_doc.txt")
    assert "npu-smi info -t sio-info of NPU 0: no error counted" in sio.files[0].messages[0].message
    cpus = _load("csdn_atlas200dka2_npu_smi_info_t_cpu_num_cfg_i0_c0_aicpu1_ctrlcpu3_prompt.txt")
    assert "npu-smi info -t cpu-num-cfg of NPU 0 (Current AI CPU number 1" in (
        cpus.files[0].messages[0].message
    )


def test_hccn_tools_configuration_recovery_status_is_a_note() -> None:
    ev = _load("driver950_hccn_tool_g_cfg_recovery_i0_config_status_none_doc.txt")
    assert ev.files[0].status == "read" and ev.files[0].formats == ["ascend_notes"]
    assert "device 0 configuration recovery status NONE" in ev.files[0].messages[0].message
