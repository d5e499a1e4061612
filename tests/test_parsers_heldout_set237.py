"""Outputs the two-hundred-thirty-seventh held-out evaluation misread (tests/data/evidence_heldout_42,
sources in tests/data/SOURCES.md): npu-smi's and a device plugin's DCMI return codes, a tool the
shell did not find, glog's FATAL line among other outputs."""

from __future__ import annotations

import dataclasses

from advisor.evidence.load import load_paths
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_42"


def _load(name: str):  # type: ignore[no-untyped-def]
    return load_paths([HELDOUT / name])


def test_npu_smi_whose_dcmi_did_not_start_gives_dcmis_code_and_its_meaning() -> None:
    ev = _load(
        "npu_smi_info_container_dcmi_init_failed_ret_8020_device_used_cann_container_image46.txt"
    )
    (report,) = ev.files
    assert report.status == "read" and report.formats == ["log"]
    (dcmi,) = ev.failures
    assert (dcmi["kind"], dcmi["code"], dcmi["code_name"], dcmi["line"]) == (
        "npu_dcmi_error",
        "-8020",
        "DCMI_ERR_CODE_RESOURCE_OCCUPIED",
        3,
    )
    assert "another container or process holds it" in dcmi["exception_type"]
    assert ev.npu_chips == []  # no table: nothing said of the chips
    findings = builtin_findings({"evidence.failures": ev.failures}, "hccl")
    assert "evidence-npu-dcmi-init-failed" in findings


def test_a_device_plugins_failed_dcmi_call_is_read_from_its_warning() -> None:
    ev = _load(
        "hami_ascend_device_plugin_log_dcmi_retcode_8255_vdev_activity_ascend_device_plugin66_cut.txt"
    )
    (dcmi,) = ev.failures
    assert (dcmi["code"], dcmi["code_name"], dcmi["line"]) == (
        "-8255",
        "DCMI_ERR_CODE_NOT_SUPPORT",
        7,
    )
    assert "get cur vDev's activity info failed" in dcmi["exception_type"]


def test_glogs_fatal_line_is_the_error_of_a_file_that_also_holds_a_table_header() -> None:
    name = "hami_ascend_device_plugin_k9s_glog_fatal_no_vnpu_config_910B4_1_then_npu_smi_header_volcano_vgpu51_cut.txt"
    ev = _load(name)
    (report,) = ev.files
    assert "log" in report.formats and report.status == "partial"
    (error,) = ev.failures
    # (a glog FATAL line: the process aborted there, read as such since round TTTT set 706)
    assert error["kind"] == "glog_fatal" and error["line"] == 5
    assert "can not find vnpu config for chip 910B4-1" in error["message"]
    # the npu-smi part is its header only: said, no chip made up
    assert ev.npu_chips == [] and any(
        "no chip row in the copy" in m.message for m in report.messages
    )


def test_a_tool_the_shell_did_not_find_is_the_failure_before_the_traceback() -> None:
    ev = _load("mindformers_hccl_tools_sh_hccn_tool_not_found_then_keyerror_mindspore252_cut.txt")
    (failure,) = [f for f in ev.failures if f["kind"] == "ascend_tool_failure"]
    assert failure["line"] == 5 and failure["exception_type"].startswith("hccn_tool was not found")
    assert "evidence-ascend-tool-failure" in builtin_findings(
        {"evidence.failures": ev.failures}, "hccl"
    )


def test_a_prompt_ends_a_commands_output_and_each_host_keeps_its_own_devices() -> None:
    ev = _load(
        "hccn_tool_multiline_ip_loop_two_hosts_prompts_ping_then_lossy_ping_mindie_llm_doc_cut.txt"
    )
    looped = sorted((p for p in ev.npu_ports if p["ipaddr"]), key=lambda p: p["device"])
    assert [(p["host"], p["device"], p["ipaddr"]) for p in looped] == [
        ("huawei89", n, f"10.10.100.{10 + n}") for n in range(8)
    ]
    pings = sorted(p["ping_loss_pct"] for p in ev.npu_ports if p["ping_loss_pct"] is not None)
    assert pings == [0.0, 33.33]  # the lossy ping after the prompt is not device 0's first ping
    (lossy,) = [p for p in ev.npu_ports if p["ping_loss_pct"] == 33.33]
    assert lossy["device"] is None and lossy["line"] == 30


def test_ranks_timing_out_in_one_collective_name_no_first_rank_to_blame() -> None:
    # ranks 0 and 1 both time out in SeqNum 196: rank 0's watchdog fired 0.19 s earlier only
    # because it entered the all-reduce earlier; neither is the cause
    ev = _load(
        "npu_smi_info_8_910B1_then_torch_npu_watchdog_ranks_0_1_allreduce_seqnum_196_3600000ms_vllm_ascend382_cut.txt"
    )
    assert len(ev.npu_chips) == 8
    (timeline,) = ev.timelines
    assert timeline.all_waiting and timeline.summary.startswith("every rank's error says it waited")
    timelines = [dataclasses.asdict(t) for t in ev.timelines]
    findings = builtin_findings(
        {"evidence.timelines": timelines, "evidence.failures": ev.failures}, "hccl"
    )
    assert "evidence-failure-order" not in findings
    assert "evidence-watchdog-timeout" in findings


def test_hccls_init_summary_names_the_failed_processs_rank_and_group() -> None:
    ev = _load(
        "vllm_ascend_torch_npu_ej0003_bind_failed_then_plog_listen_16666_init_failed_rank4_group_name_53_vllm_ascend4725_cut.txt"
    )
    (bind,) = [f for f in ev.failures if f["code"] == "EJ0003"]
    assert (bind["ip"], bind["port"]) == ("192.2.2.195", 16666)
    plog = [f for f in ev.failures if f["kind"] == "hccl_call_failure" and f["pid"] == 60570]
    # line 22, the init's summary, says again what lines 15 and 24 said, and names the rank
    # and group of both (one before it, one after)
    assert [f["line"] for f in plog] == [15, 24]
    assert {(f["rank"], f["rank_size"], f["group"]) for f in plog} == {(4, 8, "group_name_53")}
    assert {f["code_name"] for f in plog} == {"HCCL_E_UNAVAIL"}
    findings = builtin_findings({"evidence.failures": ev.failures}, "hccl")
    assert "16666" in findings["evidence-hccl-port-bind"].message
