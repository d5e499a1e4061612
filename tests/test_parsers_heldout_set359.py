"""Outputs of round BB's held-out evaluation (sets 359-362; tests/data/evidence_heldout_52,
sources in tests/data/SOURCES.md) that the advisor read wrong or not at all before this change."""

from __future__ import annotations

from functools import partial

from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_52"


_load = partial(heldout.load, HELDOUT)


def test_nccls_result_and_last_error_under_a_ray_prefix_are_read() -> None:
    ev = _load("vllm798_ray_llmengine_prefix_ncclinternalerror_proxy_call_rank7_connect_cut.log")
    assert ev.files[0].formats == ["log"] and ev.files[0].status == "read"
    (call,) = ev.failures
    assert (call["kind"], call["code_name"], call["line"]) == (
        "nccl_call_failure",
        "ncclInternalError",
        1,
    )
    assert call["exception_type"] == "Proxy Call to rank 7 failed (Connect)"


def test_a_socket_network_nccl_chose_is_not_called_a_missing_device() -> None:
    ev = _load("nccl676_healthy_socket_net_2node_dgxa100_nccl2_11_4_store_barrier_cut.log")
    (sockets,) = [f for f in ev.failures if f["kind"] == "nccl_socket_network"]
    # no "NET/IB : No device found" in the log: why NCCL chose sockets is not said
    assert sockets["exception_type"] == "NCCL chose its socket network ('Using network Socket')"


def test_a_bus_error_inside_nccl_names_shared_memory_and_each_crashed_gpu() -> None:
    ev = _load("megatron516_nccl_init_sigbus_bus_error_shm_docker_ranks7_4_cut.log")
    crashes = [(f["pid"], f["device"], f["exit_code"], f["call"]) for f in ev.failures]
    # the second crash's words are cut ("(Bus error"): still a crash, on GPU 4
    assert crashes == [(5283, 7, -7, "ncclGroupEnd"), (5279, 4, -7, None)]
    finding = builtin_findings({"evidence.failures": ev.failures}, "nccl")["evidence-launcher-exit"]
    assert any("/dev/shm" in r.why for r in finding.recommendations)
    assert "(device 7) exited with -7" in finding.items[0]


def test_a_device_side_assert_names_the_kernels_assertion() -> None:
    ev = _load("pytorch112488_loss_cu_device_assert_then_watchdog_rank1_cut.log")
    (death,) = ev.failures
    assert (death["kind"], death["rank"]) == ("watchdog_exception", 1)
    assert death["exception_type"].startswith(
        "the kernel's assertion Loss.cu:94 `input_val >= zero && input_val <= one` failed "
        "(6 thread(s))"
    )


def test_mindspores_unregistered_node_is_said_with_the_rank_it_keeps() -> None:
    ev = _load(
        "mindrl144_mindspore_distributed_tcp_connect_retry_topology_build_timeout_then_cluster_"
        "initialized_node_redundant_warnings_cut.log"
    )
    (node,) = ev.failures
    assert (node["kind"], node["pid"], node["line"]) == ("mindspore_unregistered", 22503, 5)
    findings = builtin_findings({"evidence.failures": ev.failures}, "hccl")
    assert findings["evidence-mindspore-node-unregistered"].severity == "info"


def test_msruns_worker_start_is_read_as_a_healthy_launch() -> None:
    ev = _load("telechat2_msrun_launcher_8_workers_started_rank0_7_healthy.log")
    assert ev.files[0].status == "read" and not ev.failures
    (note,) = ev.files[0].messages
    assert note.line == 1 and "msrun started 8 worker process(es), rank id(s) 0-7" in note.message


def test_a_store_connect_that_used_the_whole_time_out_is_a_time_out() -> None:
    ev = _load(
        "verl849_910b_ray_workerdict_c10d_client_socket_timeout_1800000ms_tcpstore_10_123_132_"
        "218_38321_cut.log"
    )
    (timeout,) = [f for f in ev.failures if f["kind"] == "store_timeout"]
    assert (timeout["line"], timeout["timeout_ms"], timeout["remote_ip"], timeout["port"]) == (
        8, 1_800_000, "10.123.132.218", 38321,
    )  # fmt: skip


def test_a_vllm_workers_prefix_names_the_worker() -> None:
    ev = _load(
        "vllm_ascend13185_qwen3vl32b_worker_tp3_207001_tail_ansi_caret_m_then_apiserver_metrics_"
        "cut.log"
    )
    (err,) = ev.failures
    assert (err["worker"], err["pid"], err["code"]) == ("Worker_TP3", 134707, "207001")
    findings = builtin_findings({"evidence.failures": ev.failures}, "hccl")
    assert findings["evidence-npu-runtime-error"].items[0].startswith("Worker_TP3 (pid 134707):")


def test_an_ascend_c_kernels_assertion_is_said_with_the_device_exception() -> None:
    ev = _load(
        "vllm_omni6057_helios_npu_cholesky_ascendc_assert_not_positive_definite_ez9999_aivec_"
        "chip4_core7_cut.log"
    )
    (code,) = [f for f in ev.failures if f["code"] == "EZ9999"]
    assert (
        "the kernel's assertion cholesky.h:322 `b1 > 0.0f` failed: The factorization"
        in (code["message"])
    )


def test_a_cann_code_above_a_torch_npu_err_line_of_its_process_explains_it() -> None:
    ev = _load(
        "llamafactory3779_llmtuner_lora_aclnncast_ez9999_op_cast_no_binary_561000_err01005_"
        "device0_cut.log"
    )
    # (and CANN's "Op Cast does not has any binary" under it: the operator kernel package)
    assert [(f["kind"], f["code"]) for f in ev.failures] == [
        ("hccl_error", "EZ9999"), ("library_missing", None),
    ]  # fmt: skip


def test_a_cann_code_in_a_one_line_repr_is_quoted_from_its_own_line() -> None:
    ev = _load(
        "msswift9135_910b_infer_rank54_device6_el9999_haldeviceenablep2p_drvret17_507899_repr_"
        "oneline_cut.log"
    )
    (code,) = [f for f in ev.failures if f["code"] == "EL9999"]
    assert code["message"].endswith("halDeviceEnableP2P failed: drv devId=6, phyIdSrc=0, "
                                    "drvRetCode=17![FUNC:EnableP2P][FILE:npu_driver.cc][LINE:4088]")  # fmt: skip
    assert code["message"].startswith("EL9999[PID: 7136]")


def test_a_code_line_with_stage_tags_is_the_codes_own_line() -> None:
    ev = _load(
        "ascend_pytorch7_python_repl_torch_npu_eh9999_init_env_failed_build_op_model_500001_aborted.log"
    )
    (code,) = ev.failures
    assert (code["code"], code["line"]) == ("EH9999", 11)
    assert "[Init][Env]init env failed!" in code["message"]


def test_an_error_line_of_its_own_words_above_a_failed_line_is_quoted_first() -> None:
    ev = _load(
        "oamtools_ascend_install_910b_fw_7_7_15_upgrade_ok_driver_vermagic_kernel_5_4_vs_6_8_"
        "fail_cut.log"
    )
    (err,) = ev.failures
    # (the driver's run stopped at its ERROR lines and ended, no later run installed it: a
    # failed install, as a CANN installer's ERROR is, round KKKK set 649; its own words first)
    assert (err["kind"], err["line"]) == ("install_failed", 176)
    assert "is different from the driver(6.8.0-41-generic)" in err["exception_type"]
    assert "then 'driver vermagic check failed.' (line 177)" in err["exception_type"]


def test_an_operators_failed_aicore_kernel_is_a_device_exception() -> None:
    ev = _load(
        "hiascend_cann800_troubleshooting0019_plog_aicore_kernel_realdiv_failed_args_host_"
        "address_device0.log"
    )
    (fault,) = ev.failures
    assert (fault["kind"], fault["device"]) == ("npu_device_exception", 0)
    assert fault["exception_type"].endswith("in kernel RealDiv")


def test_a_table_flattened_onto_one_line_is_read() -> None:
    ev = _load("borimooc1187_blog_npu_smi_info_910b_flattened_one_line_version_21__4_cut.txt")
    assert ev.files[0].formats == ["npu_smi_info"] and ev.files[0].status == "partial"
    (chip,) = ev.npu_chips
    assert (chip["npu"], chip["name"], chip["health"], chip["power_w"], chip["temp_c"]) == (
        0, "910B", "OK", 65.8, 45,
    )  # fmt: skip
    assert any("flattened onto line 1" in m.message for m in ev.files[0].messages)


def test_ascend_950s_link_query_names_its_port() -> None:
    ev = _load("driver950_hccn_tool_g_link_npu0_udie0_port4_link_status_down_doc.txt")
    (port,) = ev.npu_ports
    assert (port["device"], port["die_port"], port["link"]) == (0, "UDie 0 port 4", "DOWN")
