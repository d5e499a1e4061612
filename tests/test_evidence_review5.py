"""A review's findings on the readings of this stop, each on a real sample (tests/data, sources in
tests/data/SOURCES.md) changed the way the finding's input differs: ascend-fd's healthy, single-
server and English reports and its later fault events; a rank that failed a time-out before the
others; one collective's time-outs measured against the watchdog's; a ``${device_id}``
placeholder; a DR4 module's unused lanes; lldptool's output; a DCGM precondition; a link iblinkinfo
says could run faster; one NPU pinged twice."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

from advisor.evidence import command
from advisor.evidence.load import load_paths, load_text
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

H42 = DATA / "evidence_heldout_42"
FD = (
    H42
    / "ascend_fd_diag_report_comp_network_custom_05_optical_not_present_device_0_4_mindcluster_quick_start_cut.txt"
)


def _timelines(tmp_path: Path, text: str) -> list:  # type: ignore[type-arg]
    # (timelines are drawn over the files of one import, as load_paths reads them)
    path = tmp_path / "wd.log"
    path.write_text(text)
    return load_paths([path]).timelines


def _findings_of(tmp_path: Path, name: str, text: str) -> dict:
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / name).write_text(text)
    out = tmp_path / "run"
    command.main([str(tmp_path / "in"), "--out", str(out)])
    return json.loads((out / "findings.json").read_text())


def test_an_ascend_fd_report_that_found_nothing_has_no_fault() -> None:
    # ascend-fd writes "nothing found" as the status code NORMAL_OR_UNSUPPORTED in the fault row
    healthy = FD.read_text().replace(
        "Comp_Network_Custom_05        ", "NORMAL_OR_UNSUPPORTED        ", 1
    )
    ev = load_text(healthy, "fd.txt")
    assert ev.failures == []
    assert any(
        "no fault event in the report (status NORMAL_OR_UNSUPPORTED)" in m.message
        for m in ev.files[0].messages
    )


def test_a_single_server_report_without_the_root_cause_label_keeps_its_fault() -> None:
    # single-diag prints no 疑似根因故障 label: the fault's rows stand under 故障事件分析
    single = FD.read_text().replace("| 疑似根因故障 |", "|              |")
    ev = load_text(single, "fd.txt")
    (fault,) = ev.failures
    assert (fault["code"], fault["root_cause"]) == ("Comp_Network_Custom_05", False)
    assert "parse_out device-4" in fault["exception_type"]


def test_ascend_fds_english_labels_give_the_devices_and_key_log() -> None:
    # ascend-fd's label_en: Faulty Device(s), Key Info, Handling Suggestion, Fault Propagation Chain
    english = FD.read_text()
    for zh, en in (
        ("疑似根因故障", "Suspected Root Cause Fault"),
        ("故障事件分析", "Fault Event Analysis"),
        ("状态码", "Status Code"),
        ("故障设备", "Faulty Device(s)"),
        ("故障名称", "Fault Name"),
        ("关键日志", "Key Info"),
        ("建议方案", "Handling Suggestion"),
    ):
        english = english.replace(zh, en)
    (fault,) = load_text(english, "fd.txt").failures
    assert fault["root_cause"] and "parse_out device-0" in fault["exception_type"]
    assert (
        "key log: /usr/local/Ascend/driver/tools/hccn_tool -i 0 -optical -g"
        in fault["exception_type"]
    )


def test_only_the_first_fault_event_is_the_suspected_root_cause() -> None:
    lines = FD.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if "疑似根因故障" in line)
    end = next(i for i in range(start, len(lines)) if lines[i].strip().startswith("+--"))
    second = [line.replace("| 疑似根因故障 |", "|              |") for line in lines[start:end]]
    two = "\n".join(lines[:end] + second + lines[end:])
    first, later = load_text(two, "fd.txt").failures
    assert (first["root_cause"], later["root_cause"]) == (True, False)
    items = [
        str(i)
        for i in builtin_findings({"evidence.failures": [first, later]}, "hccl")[
            "evidence-faultdiag-fault"
        ].items
    ]
    assert items[0].startswith("(suspected root cause)") and not items[1].startswith("(suspected")


def _stamp_earlier(line: str, minutes: int) -> str:
    m = re.search(r"E1206 18:(\d\d):(\d\d)", line)
    assert m
    return line.replace(m.group(0), f"E1206 18:{int(m.group(1)) - minutes:02d}:{m.group(2)}")


def test_a_rank_that_failed_a_time_out_before_the_others_is_named_first(tmp_path: Path) -> None:
    # the real log's rank 2 "failed or timed out" line, ten minutes before the others' time-outs:
    # its own failure, not one of the same waits
    text = (
        H42
        / "pg_watchdog_pg1_reduce_scatter_seqnum_7753_ranks_0_3_4_timeout_2_failed_6_timeout_at_work_llamafactory6269_cut.log"
    ).read_text()
    lines = [_stamp_earlier(line, 10) if "[Rank 2]" in line else line for line in text.splitlines()]
    (tl,) = _timelines(tmp_path, "\n".join(lines) + "\n")
    assert not tl.one_collective and tl.first_rank == 2


def test_one_collectives_time_outs_are_not_measured_against_the_connect_time_out(
    tmp_path: Path,
) -> None:
    # torch_npu's ranks 0 and 1 time out in SeqNum 196, 150 s apart: not HCCL_CONNECT_TIMEOUT's
    # business (its 120 s is for link set-up), and the flight recorder is torch_npu's
    name = "npu_smi_info_8_910B1_then_torch_npu_watchdog_ranks_0_1_allreduce_seqnum_196_3600000ms_vllm_ascend382_cut.txt"
    text = (H42 / name).read_text().replace("E324 13:00:25.428029551", "E324 13:02:55.428029551")
    (tl,) = _timelines(tmp_path, text)
    assert tl.one_collective and tl.spread_s and tl.spread_s > 120
    assert (tl.limit_s, tl.beyond_limit) == (3600.0, False)
    findings = _findings_of(tmp_path, "wd.log", text)
    ids = {f["rule_id"] for f in findings["findings"]}
    assert "evidence-failure-spread-beyond-connect-timeout" not in ids
    envs = {
        r["name"] for f in findings["findings"] for r in f["recommendations"] if r["kind"] == "env"
    }
    assert "TORCH_HCCL_DUMP_ON_TIMEOUT" in envs and "TORCH_NCCL_DUMP_ON_TIMEOUT" not in envs


def test_a_dollar_brace_placeholder_is_one_port_as_the_brace_one() -> None:
    name = "hccn_tool_placeholder_device_link_down_net_health_fault_recovery_success_mindcluster_doc.txt"
    text = (H42 / name).read_text().replace("{device_id}", "${device_id}")
    ev = load_text(text, "drill.txt")
    (port,) = ev.npu_ports
    assert port["net_health"] == "Success"


def test_a_dr4_modules_na_lanes_are_not_said_unjudged() -> None:
    sample = (
        DATA
        / "evidence_heldout_39"
        / "npu_info_before_910A_dump_optical_rx_power1_under_threshold_rx_los_0xff_ip_g_dev2_empty_mindcluster_faultdiag.txt"
    )
    lines = sample.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("optical info"))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith("Host SNR Lane3"))
    block = "\n".join(lines[start : end + 1])
    for lane in ("Tx Power2", "Rx Power2", "Tx Power3", "Rx Power3"):
        block = re.sub(rf"^{lane}( +): [0-9.]+ mW$", rf"{lane}\1: NA", block, flags=re.M)
    ev = load_text("hccn_tool -i 0 -optical -g\n" + block + "\n", "optical.txt")
    assert not [m for m in ev.files[0].messages if "not judged" in m.message]
    (port,) = ev.npu_ports
    assert any(a.startswith("Rx Power1 0.0054 mW under") for a in port["optical_alarms"])


def test_lldptools_output_of_a_host_nic_is_not_an_npu_port() -> None:
    sample = (
        DATA
        / "evidence_heldout_39"
        / "hccn_tool_lldp_g_dev3_switch_400GE1_1_20_2_author_elided_middle_tlv_arthurchiao_blog.txt"
    )
    text = "$ lldptool -t -n -i ens1f0np0\n" + sample.read_text().split("\n", 1)[1]
    ev = load_text(text, "lldp.txt")
    assert ev.npu_ports == [] and "hccn_tool" not in ev.files[0].formats


def test_a_failed_deployment_check_is_a_precondition_not_a_gpu_fault() -> None:
    name = "dcgmi_diag_r3_2_blackwell_gpus_deployment_pass_every_hardware_check_skipped_printed_twice_slurm_on_aws_cut.txt"
    text = re.sub(r"(\| Persistence Mode +\| )Pass( +)", r"\1Fail\2", (H42 / name).read_text())
    (diag,) = load_text(text, "dcgm.txt").dcgm_diags
    assert diag["failed"] == [] and [c["name"] for c in diag["precondition_failed"]] == [
        "Persistence Mode"
    ]
    findings = builtin_findings({"evidence.dcgm_diags": [diag]}, "nccl")
    assert (
        "evidence-dcgm-diag-precondition" in findings
        and "evidence-dcgm-diag-failed" not in findings
    )


def test_a_link_iblinkinfo_says_could_run_faster_is_a_warning() -> None:
    text = (
        H42 / "iblinkinfo_4_v100_hcas_edr_sharp_aggnode_hdr_mqm8700_nccl_tests71_cut.txt"
    ).read_text()
    slow = text.replace(
        '==( 4X      25.78125 Gbps Active/  LinkUp)==>       3    3[  ] "MF0;ibswitch254:MQM8700/U1" ( )',
        '==( 1X      25.78125 Gbps Active/  LinkUp)==>       3    3[  ] "MF0;ibswitch254:MQM8700/U1" ( Could be 4X 25.78125 Gbps)',
    )
    ev = load_text(slow, "ib.txt")
    (port,) = [p for p in ev.hca_ports if p["could_be"]]
    assert (port["ca"], port["rate_gbps"], port["could_be"]) == (
        "gpu-v100-3 HCA-1",
        25.0,
        "Could be 4X 25.78125 Gbps",
    )
    assert "evidence-hca-link-below-capability" in builtin_findings(
        {"evidence.hca_ports": ev.hca_ports}, "nccl"
    )


def test_one_npu_pinged_twice_keeps_its_worst_loss() -> None:
    text = (H42 / "hccn_tool_t_ub_ping_i0_ascend950_6_of_6_driver_doc.txt").read_text()
    lossy = text.replace(
        "6 packets transmitted, 6 received, 0.00% packet loss",
        "6 packets transmitted, 2 received, 66.67% packet loss",
    )
    ev = load_text(lossy + text, "ping.txt")
    (port,) = ev.npu_ports
    assert (port["device"], port["ping_loss_pct"]) == (0, 66.67)
    assert any("pinged more than once" in m.message for m in ev.files[0].messages)


def test_timelines_stay_typed_through_asdict(tmp_path: Path) -> None:
    # the new field travels with the timeline into the facts
    text = (
        H42
        / "pg_watchdog_pg1_reduce_scatter_seqnum_7753_ranks_0_3_4_timeout_2_failed_6_timeout_at_work_llamafactory6269_cut.log"
    ).read_text()
    (tl,) = _timelines(tmp_path, text)
    assert dataclasses.asdict(tl)["one_collective"] is True
