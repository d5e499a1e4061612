"""Outputs of round FF's held-out evaluation (sets 375-378; tests/data/evidence_heldout_56,
sources in tests/data/SOURCES.md) that the advisor read wrong or not at all before this change."""

from __future__ import annotations

from advisor.evidence.load import EvidenceFacts, load_paths
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_56"


def _load(name: str) -> EvidenceFacts:
    return load_paths([HELDOUT / name])


def _said(ev: EvidenceFacts) -> list[str]:
    return [m.message for f in ev.files for m in f.messages]


def test_setupagents_root_is_its_identifiers_address_not_the_server_field() -> None:
    # rank 8 runs on 51.38.67.143; its root info names the root 51.38.67.141
    ev = _load("mindcluster_run_plog_setupagent_rank8_of16_vnic_listen_16666_healthy.log")
    assert not ev.failures
    (said,) = [m for m in _said(ev) if "by root info" in m]
    assert "rank 8 of 16, root 51.38.67.141 port 60000, this host 51.38.67.143" in said


def test_an_agents_socket_wait_on_the_root_names_its_rank_the_root_and_the_result() -> None:
    ev = _load(
        "mindcluster_rc118_plog_hcclcomminitrootinfo_rank5_of8_rasocket_recv_timeout_5000013_"
        "topo_detect_5000004.log"
    )
    (wait,) = [f for f in ev.failures if f["kind"] == "hccl_link_timeout"]
    # its process (pid 136) names rank 5 on its other lines; the root is its entry's host ip
    assert (wait["rank"], wait["code"], wait["code_name"]) == (5, "19", "HCCL_E_NETWORK")
    assert (wait["remote_ip"], wait["port"]) == ("51.38.67.143", 60004)
    assert "connected, nothing came" in wait["exception_type"]
    finding = builtin_findings({"evidence.failures": ev.failures})[
        "evidence-hccl-link-wait-timeout"
    ]
    (line,) = [str(i) for i in finding.items]
    assert line.startswith("Rank 5 waited for 51.38.67.143 port 60004")
    assert "error number 19 = HCCL_E_NETWORK" in line


def test_an_inner_error_heading_takes_its_codes_next_line_without_a_colon() -> None:
    ev = _load(
        "mindcluster_modelarts_proc_rank1_device1_el9999_halqueueenqueuebuff_acltdtsendtensor_args_dict.txt"
    )
    (err,) = ev.failures
    assert (err["code"], err["line"], err["device"]) == ("EL9999", 3, 0)
    assert err["message"] == (
        "EL9999: Inner Error! [drv api] halQueueEnQueueBuff failed: deviceId=0, qid=1, "
        "timeout=3000, drvRetCode=27."
    )
    assert (err["call"], err["exception_type"]) == (
        "rtMemQueueEnQueueBuff",
        "rtMemQueueEnQueueBuff failed: hdc send msg fail, under acltdtSendTensor",
    )


def test_a_vector_cores_exception_above_a_coded_runtime_failure_is_the_devices() -> None:
    ev = _load(
        "oamtools_asys_run_plog_aiv_vector_core_exception_mte_ddr_out_of_range_device0_stream11.log"
    )
    (exc,) = [f for f in ev.failures if f["kind"] == "npu_device_exception"]
    assert (exc["line"], exc["device"]) == (1, 0)
    assert "aivec error exception on core 12" in exc["exception_type"]
    assert exc["exception_type"].endswith("in kernel 0/1_-1_0_GatherV21_tvmbin")
    assert [f["code"] for f in ev.failures if f["kind"] == "npu_runtime_error"] == ["507035"]
    assert not [f for f in ev.failures if f["kind"] == "hccl_plog_error"]
