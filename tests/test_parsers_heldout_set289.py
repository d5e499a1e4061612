"""Outputs of round J's held-out evaluation (tests/data/evidence_heldout_46, sources in
tests/data/SOURCES.md) that the advisor read wrong or not at all before this change."""

from __future__ import annotations

from dataclasses import asdict
from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths, load_text
from advisor.parsers.logs import STARTUP_FALLBACK
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings, finding_items

HELDOUT = DATA / "evidence_heldout_46"


_load = partial(heldout.load, HELDOUT)


def _findings(ev: EvidenceFacts, backend: str = "nccl") -> dict[str, list[str]]:
    return finding_items(
        {"evidence.failures": ev.failures, "evidence.topologies": ev.topologies}, backend
    )


def test_an_ib_port_error_on_every_process_of_a_node_is_that_ports_link_going_down() -> None:
    # "NET/IB : Got async event : port error" from the eight processes of one node (NCCL 2.x)
    ev = _load("litllama380_ib_async_port_error_8procs_cut.log")
    events = [f for f in ev.failures if f["kind"] == "nccl_ib_port_event"]
    # (NCCL 2.x names no HCA: each process's report is kept)
    assert len(events) == 8 and {f["host"] for f in events} == {"...-48"}
    assert {f["code_name"] for f in events} == {"port error"}
    assert all("link went down" in f["exception_type"] for f in events)
    found = _findings(ev)
    # a non-fatal event NCCL goes on past: a warning, not the node drained
    assert len(found["evidence-nccl-ib-port-error"]) == 8
    assert "evidence-nccl-ib-fatal-event" not in found
    # no longer a bare list of WARN lines: the generic warning has nothing left to say
    assert "evidence-nccl-warning" not in found


def test_a_local_catastrophic_error_is_the_adapter_failing_behind_a_collectors_stamp() -> None:
    # "2019-06-02T16:13:44.884Z: [1,12]<stdout>:host:815:864 [0] ... local catastrophic error":
    # the collector's stamp (with a colon) and mpirun's tag come off, so the host, pid and
    # rank of each of the three processes are read
    ev = _load("nccl230_mpirun_iso_ts_ib_local_catastrophic_cut.log")
    assert any("a log collector's time stamp" in m.message for m in ev.files[0].messages)
    events = [f for f in ev.failures if f["kind"] == "nccl_ib_fatal_event"]
    assert sorted((f["rank"], f["pid"]) for f in events) == [(12, 815), (13, 812), (14, 814)]
    assert all(f["host"] == "container-e275-1553839402050-12124-01-000057" for f in events)
    assert all("IBV_EVENT_DEVICE_FATAL" in f["exception_type"] for f in events)
    assert "evidence-nccl-ib-fatal-event" in _findings(ev)


def test_a_broken_pipe_and_the_proxy_connect_it_failed_say_the_peer_went_away() -> None:
    ev = _load("nccl795_socket_broken_pipe_proxy_connect_cut.log")
    warns = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    assert warns[0]["exception_type"].startswith(
        "the other end 10.200.84.247 dropped the connection (Broken pipe)"
    )
    assert warns[1]["remote_rank"] == 9
    assert warns[1]["exception_type"] == (
        "NCCL's proxy could not Connect for rank 9 (result 6 = ncclRemoteError)"
    )
    assert all(f["exception_type"] != STARTUP_FALLBACK for f in warns)
    items = _findings(ev)["evidence-nccl-warning"]
    assert "dropped the connection" in items[0] and "could not Connect for rank 9" in items[1]


def test_an_xid_caused_by_an_earlier_nvlink_xid_names_that_xid() -> None:
    # "Xid 45 ... caused by previous Xid 149": the channel teardown after an NVLink error
    ev = _load("ogkm1150_journal_xid45_after_149_145_cut.log")
    said = [f["exception_type"] for f in ev.failures if f["kind"] == "gpu_driver_error"]
    assert len(said) == 4
    assert "[Xid 149 = NVLINK_NETIR_ERROR, an NVLink error: the fault this follows]" in said[0]
    assert all("Xid 145 = NVLINK_RLW_ERROR" in s for s in said[1:])


def test_an_nvlink_path_nccl_sees_narrower_one_way_is_a_warning() -> None:
    # NCCL's GRAPH paths: GPU/0-65000 -> GPU/0-17000 NVL 20 GB/s, the way back 240 GB/s
    ev = _load("timezx_nccltests_allreduce_topo_fail_nvl20_head_cut.log")
    (asym,) = [f for f in ev.failures if f["kind"] == "nccl_nvlink_asymmetric"]
    assert asym["host"] == "mew0" and asym["exception_type"] == (
        "NCCL's topology gives the NVLink path GPU/65000 -> GPU/17000 20 GB/s and the way "
        "back 240 GB/s"
    )
    assert (
        builtin_findings({"evidence.failures": ev.failures}, "nccl")[
            "evidence-nccl-nvlink-asymmetric"
        ].severity
        == "warning"
    )
    # the same host's healthy run: 240 GB/s both ways
    healthy = _load("timezx_nccltests_allreduce_healthy_nvl240_head_cut.log")
    assert not [f for f in healthy.failures if f["kind"] == "nccl_nvlink_asymmetric"]


def test_a_one_rank_alltoall_table_is_told_from_sendrecv_by_its_zero_bus_bandwidth() -> None:
    # one rank: size = count for both; alltoall's bus factor (n-1)/n is 0, sendrecv's is 1
    ev = _load("nccltests287_alltoall_perf_1gpu_rtx5090.txt")
    (bench,) = ev.benchmarks
    assert (bench["op"], bench["op_from"], bench["ranks"]) == ("all_to_all", "columns", 1)


def test_a_plogs_call_trace_gives_the_uncoded_errors_result_and_device() -> None:
    # "this package does not support hrtRaAiQpCreate", then "creat qp failed, localDeviceId[11]"
    # and "[CreateQp]call trace: hcclRet -> 12"
    ev = _load("vllm-ascend_2406_pd_plog_qp_create_cut.log")
    (plog,) = [f for f in ev.failures if f["kind"] == "hccl_plog_error"]
    assert (plog["code"], plog["code_name"]) == ("12", "HCCL_E_ROCE_CONNECT")
    assert "does not support hrtRaAiQpCreate" in plog["message"]
    # (localDeviceId is the device's physical id, said as such, not a rank's logical device)
    assert plog["exception_type"] == (
        "HCCL passed up 12 = HCCL_E_ROCE_CONNECT (RoCE connect failure), on physical device 11"
    )


def test_ei0009_says_the_link_to_the_peer_rank_could_not_be_set_up() -> None:
    ev = _load("vllm-ascend_3162_grpo_ei0009_transport_init_cut.log")
    (item,) = _findings(ev, "hccl")["evidence-hccl-other-error"]
    assert item.startswith("EI0009 on rank 1: the link to a peer rank could not be set up")
    assert "dst_rank[0]" in item


def test_mindsporess_getnext_task_failure_is_the_input_pipeline_not_communication() -> None:
    ev = _load("mindocr_586_mindspore_ascend_getnext_dump_cut.log")
    (fail,) = ev.failures
    assert (fail["kind"], fail["pid"], fail["library"]) == (
        "input_pipeline_failure",
        45501,
        "MindSpore",
    )
    assert "slow data processing (bigger than 20s / batch)" in fail["exception_type"]
    assert "evidence-input-pipeline-failure" in _findings(ev, "hccl")


def test_a_board_without_hccs_is_read_as_its_design_not_a_missing_link() -> None:
    # Atlas 350 dual cards: UB pairs, SYS between the rest; no HCCS anywhere
    ub = _load("npusmi_topo_ub_dualcard_a5.txt")
    (topo,) = ub.topologies
    assert topo["hccs"] is False and topo["sys_by_design"] and topo["kinds"] == ["SYS", "UB"]
    found = _findings(ub, "hccl")
    assert "evidence-npu-topology-sys" not in found
    assert "NPU0–NPU2" in found["evidence-npu-topology-no-hccs"][0]
    # an all-HCCS 910B board: neither note
    hccs = _load("npusmi_topo_910_hccs_8npu.txt")
    assert hccs.topologies[0]["hccs"] is True and not hccs.topologies[0]["sys_pairs"]
    assert not {"evidence-npu-topology-sys", "evidence-npu-topology-no-hccs"} & set(
        _findings(hccs, "hccl")
    )


# Round K (held-out sets 293-296): what the advisor read wrong before its fixes


def test_torch_npus_dispatch_time_outs_are_a_warning_of_one_device_not_a_peer() -> None:
    # six works "dispatch timeout. device 6" behind a logger's "[7928] [date]" prefix
    ev = _load("vllmascend10013_torch_npu_dispatch_timeout_warnings_cut.log")
    works = [f for f in ev.failures if f["exception_type"] == "dispatch timeout"]
    assert [w["seq"] for w in works] == [250, 251, 252, 253, 254, 255]
    assert {w["device"] for w in works} == {6}
    # the logger's pid is no MPICH rank tag
    assert all(w["rank"] is None for w in works)
    found = builtin_findings({"evidence.failures": ev.failures}, "hccl")
    assert found["evidence-dispatch-timeout"].severity == "warning"
    assert "evidence-watchdog-timeout" not in found


def test_a_dispatch_that_went_out_after_its_warning_is_no_time_out() -> None:
    text = (
        "[7928] [2026-06-04 15:40:34:813] torch.distributed: [WARNING] [8641] Process group work "
        "ALLGATHER, seq_num 250 dispatch timeout. device 6: the current working event is 0xff.\n"
        "[7928] [2026-06-04 15:41:02:001] torch.distributed: [WARNING] [8641] Process group work "
        "ALLGATHER, seq_num 250 dispatch success. This warning log can be ignored.\n"
    )
    assert not load_text(text, "dispatch.log").failures


def test_a_pasted_plogs_notify_wait_time_out_is_read_beside_the_watchdogs_death() -> None:
    ev = _load("vllmascend13482_hccl_watchdog_err02005_plog_notify_wait_cut.log")
    (wait,) = [f for f in ev.failures if f["kind"] == "hccl_plog_error"]
    assert (wait["device"], wait["timeout_ms"]) == (3, 204_000)
    assert wait["exception_type"].startswith("a notify wait (an HCCL collective waiting")
    assert "ProcessStarsWaitTimeoutErrorInfo" in wait["message"]
    # the terminate's what() re-raises the same exception: one watchdog death, not a second
    # rank's with the next line ("plog日志：") as its message
    (died,) = [f for f in ev.failures if f["kind"] == "watchdog_exception"]
    assert "ERR02005" in died["message"]


def test_an_older_torchs_time_outs_of_other_sizes_at_one_seqnum_are_not_called_a_mismatch() -> None:
    # no group printed: two groups (tensor and data parallel) can share a SeqNum, and a group
    # whose members start at rank 0 numbers them as the world does (review 16)
    ev = _load("retfound39_watchdog_allreduce_numel_mismatch_cut.log")
    assert [(f["rank"], f["numel"]) for f in ev.failures] == [(0, 1), (1, 2958336)]
    (timeline,) = ev.timelines
    assert timeline.mismatched_ops == {}


def test_a_named_groups_time_outs_of_other_sizes_at_one_seqnum_are_a_mismatch(
    tmp_path: Path,
) -> None:
    # torch 2.6's two lines a rank: the record, then its group's "detected by watchdog at work"
    lines = (
        "[rank{r}]:[E626 06:24:44.9 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog caught "
        "collective operation timeout: WorkNCCL(SeqNum=808, OpType=ALLREDUCE, NumelIn={n}, "
        "NumelOut={n}, Timeout(ms)=600000) ran for 600020 milliseconds before timing out.\n"
        "[rank{r}]:[E626 06:24:44.9 ProcessGroupNCCL.cpp:1785] [PG ID 0 PG GUID 0(default_pg) "
        "Rank {r}] Exception (either an error or timeout) detected by watchdog at work: 808, last "
        "enqueued NCCL work: 811, last completed NCCL work: 807."
    )
    text = "\n".join(lines.format(r=r, n=n) for r, n in ((0, 9801523), (1, 9801523), (2, 1024)))
    (tmp_path / "pg.log").write_text(text)
    (timeline,) = load_paths([tmp_path / "pg.log"]).timelines
    assert timeline.mismatched_ops == {
        "all_reduce of 1024 element(s)": [2],
        "all_reduce of 9801523 element(s)": [0, 1],
    }
    assert "evidence-collective-mismatch" in builtin_findings(
        {"evidence.timelines": [asdict(timeline)]}, "nccl"
    )


def test_a_socket_step_that_names_its_error_says_it_where_no_warn_does() -> None:
    ev = _load("pytorch131781_nccl_bootstrap_inprogress_cut.log")
    calls = [f for f in ev.failures if f["kind"] == "nccl_call_failure"]
    assert len(calls) == 3
    assert all(
        c["exception_type"].startswith("a socket call met 'Operation now in progress'")
        for c in calls
    )


def test_two_ranks_of_one_communicator_on_one_gpu_are_a_duplicate_gpu() -> None:
    ev = _load("accelerate2246_slurm_nccl_init_ib_roce_cut.log")
    dups = [f for f in ev.failures if f["kind"] == "duplicate_gpu"]
    assert [d["exception_type"] for d in dups] == [
        "ranks 0, 2 of communicator 0x26b3ece72ee71028 on qgpu2008 share the GPU at bus 31000",
        "ranks 1, 3 of communicator 0x26b3ece72ee71028 on qgpu2008 share the GPU at bus 4b000",
    ]
    assert "evidence-duplicate-gpu" in _findings(ev)


def test_a_p2p_test_cut_before_its_matrices_still_says_which_gpus_reach_each_other() -> None:
    ev = _load("aikitoria_pr5_p2pBandwidthLatencyTest_mixed_gpus_cannot_access_cut.txt")
    assert ev.files[0].status == "read"
    (run,) = ev.gpu_copy
    assert run["peer_access"]["0"] == {
        "1": True, "2": False, "3": False, "4": False, "5": False, "6": False,
    }  # fmt: skip
    assert any("peer access GPU0<->GPU1, GPU2<->GPU3" in m.message for m in ev.files[0].messages)


# Round L (held-out sets 297-300)


def test_vllm_ascends_acl_stream_synchronize_failure_is_the_runtimes_code() -> None:
    for name, code, code_name in (
        (
            "vllm_ascend_2763_acl_sync_507035_cut.log",
            "507035",
            "ACL_ERROR_RT_VECTOR_CORE_EXCEPTION",
        ),
        ("vllm_ascend_4914_acl_sync_507014_cut.log", "507014", "ACL_ERROR_RT_AICORE_TIMEOUT"),
    ):
        (err,) = [f for f in _load(name).failures if f["kind"] == "npu_runtime_error"]
        assert (err["call"], err["code"], err["code_name"]) == (
            "ACL stream synchronize",
            code,
            code_name,
        ), name


def test_torch_npus_task_queue_exit_names_the_operator_that_ran() -> None:
    ev = _load("vllm_ascend_1007_lccl_allreduce_inner_error_cut.log")
    (exc,) = ev.failures
    assert (exc["kind"], exc["op"]) == ("npu_device_exception", "lccl_allreduce")
    assert "evidence-npu-device-exception" in _findings(ev, "hccl")


def test_ibportstate_names_a_disabled_port_and_a_query_that_failed() -> None:
    ev = _load("exadata2_ibportstate_port36_disabled_port37_smp_query_failed_cut.txt")
    (port,) = ev.hca_ports
    assert (port["ca"], port["port"], port["state"], port["physical_state"], port["rate_gbps"]) == (
        "LID 2", 36, "Down", "Disabled", 10.0,
    )  # fmt: skip
    assert any("smp query portinfo failed" in m.message for m in ev.files[0].messages)


def test_ncclss_graph_search_falling_back_to_simple_order_is_no_failure() -> None:
    ev = _load("nccltests131_p2p_disable_gtx1050ti_gtx950_init_warn_cut.log")
    (warn,) = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    assert warn["exception_type"] == STARTUP_FALLBACK
    assert "evidence-nccl-warning" not in _findings(ev)


def test_a_rank_that_checked_in_twice_at_ncclss_bootstrap_root_is_a_duplicate_rank() -> None:
    ev = _load("lightning14986_slurm_bootstrap_root_already_checked_in_cut.log")
    (dup,) = [f for f in ev.failures if f["kind"] == "duplicate_rank"]
    assert (dup["rank"], dup["rank_size"]) == (1, 8)
    assert "evidence-duplicate-rank" in _findings(ev)


# Round M (held-out sets 301-304)


def test_a_programs_own_acl_check_is_the_runtimes_failed_call() -> None:
    for name, call, code, code_name in (
        ("ptoas426_a5_aclrtSynchronizeStream_507015_EZ9999_aicore_errcode95_cut.log",
         "aclrtSynchronizeStream", "507015", "ACL_ERROR_RT_AICORE_EXCEPTION"),
        ("ptoas523_aclrtSetDevice_507033_E39009_tsdopen_dev2_cut.log",
         "aclrtSetDevice", "507033", "ACL_ERROR_RT_DEV_SETUP_ERROR"),
    ):  # fmt: skip
        ev = _load(name)
        assert ev.files[0].status == "read", name
        (err,) = [f for f in ev.failures if f["kind"] == "npu_runtime_error"]
        assert (err["call"], err["code"], err["code_name"]) == (call, code, code_name), name


def test_pytests_e_prefix_before_a_deeper_indented_traceback_is_taken_off() -> None:
    ev = _load("transformers27120_pytest_E_prefix_processgrouphccl_no_gather_cut.log")
    assert ev.files[0].status == "read"
    (exc,) = ev.failures
    assert exc["kind"] == "python_exception"
    assert "ProcessGroupHCCL does not support gather" in exc["message"]
