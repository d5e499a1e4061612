"""A re-review's findings on the mends of the review before, each on a real sample (tests/data,
sources in tests/data/SOURCES.md) changed the way the finding's input differs: a missing
npu-smi on a GPU node, DCGM's hardware checks under Deployment, DCGM 4's message rows, prompts
without a colon, a long prompt before a loop, iblinkinfo -l, ascend-fd's failed analysis."""

from __future__ import annotations

import json
import re
from pathlib import Path

from advisor.evidence import command
from advisor.evidence.load import load_text
from tests.conftest import DATA

H42 = DATA / "evidence_heldout_42"
MINDIE = (
    H42
    / "hccn_tool_multiline_ip_loop_two_hosts_prompts_ping_then_lossy_ping_mindie_llm_doc_cut.txt"
)


def test_a_missing_npu_smi_beside_nvidia_files_keeps_the_host_nvidias(tmp_path: Path) -> None:
    # a collection script that tries every vendor's tool prints "npu-smi: command not found" on
    # a GPU node: the DCGM failure beside it is still judged
    (tmp_path / "in").mkdir()
    for name in (
        "dcgmi_diag_table_middle_only_gpu_memory_pass_gpu1_fail_gpu0_cuda_busy_wrapped_warning_go_dcgm52_cut.txt",
        "nvidia_smi_535_h100_mig_enabled_two_gpus_then_mig_devices_table_gpu_operator1310_cut.txt",
    ):
        (tmp_path / "in" / name).write_text((H42 / name).read_text())
    (tmp_path / "in" / "collect.log").write_text("bash: npu-smi: command not found\n")
    out = tmp_path / "run"
    command.main([str(tmp_path / "in"), "--out", str(out)])
    ids = {f["rule_id"] for f in json.loads((out / "findings.json").read_text())["findings"]}
    assert "evidence-dcgm-diag-failed" in ids


def test_dcgm_deployment_checks_of_the_gpus_memory_stay_hardware_failures() -> None:
    name = "dcgmi_diag_r3_2_blackwell_gpus_deployment_pass_every_hardware_check_skipped_printed_twice_slurm_on_aws_cut.txt"
    text = re.sub(
        r"(\| Page Retirement/Row Remap \| )Pass( +)", r"\1Fail\2", (H42 / name).read_text()
    )
    text = re.sub(r"(\| Inforom +\| )Pass( +)", r"\1Fail\2", text)
    (diag,) = load_text(text, "dcgm.txt").dcgm_diags
    assert [c["name"] for c in diag["failed"]] == ["Page Retirement/Row Remap", "Inforom"]
    assert diag["precondition_failed"] == []


def test_dcgm_4s_gpu_named_message_row_keeps_its_first_chunk() -> None:
    name = "dcgmi_diag_table_middle_only_gpu_memory_pass_gpu1_fail_gpu0_cuda_busy_wrapped_warning_go_dcgm52_cut.txt"
    text = (
        (H42 / name)
        .read_text()
        .replace("| Warning                   |", "| Warning: GPU0             |")
    )
    (diag,) = load_text(text, "dcgm.txt").dcgm_diags
    (failed,) = diag["failed"]
    (message,) = failed["details"]
    assert message.startswith("Warning: GPU0: GPU 0 Error using CUDA API cuCtxCreate Check DCGM")
    assert "Restart DCGM. Rerun diagnostics. Unable to create CUDA context" in message


def test_prompts_with_a_bracket_or_tilde_after_the_host_keep_two_hosts_apart() -> None:
    text = (
        MINDIE.read_text()
        .replace("root@huawei89:~#", "[root@huawei89]#")
        .replace("root@huawei:~#", "root@huawei~#")
    )
    ports = load_text(text, "two.txt").npu_ports
    assert {p["host"] for p in ports} == {"huawei89", "huawei"}


def test_a_long_prompt_before_a_loop_keeps_its_devices() -> None:
    prompt = "(mindspore) [root@ascend-910b-node-0123.cluster.example.com /usr/local/Ascend/driver/tools]# "
    lines = MINDIE.read_text().splitlines()
    lines = [prompt + line.strip() if line.strip() == "for i in {0..7}" else line for line in lines]
    ports = load_text("\n".join(lines) + "\n", "loop.txt").npu_ports
    assert sorted(p["device"] for p in ports if p["ipaddr"]) == list(range(8))


def test_iblinkinfo_dash_l_lines_are_read_and_an_hcas_unplugged_port_is_kept() -> None:
    line = (
        '0xb88303ffff7f61c4 "             gpu-v100-3 HCA-1"      6    1[  ] ==( 4X      25.78125 Gbps '
        'Active/  LinkUp)==>  0x0c42a10300b95bfa       3    3[  ] "MF0;ibswitch254:MQM8700/U1" ( )'
    )
    down = '0xb88303ffff7f610c "             gpu-v100-1 HCA-1"      2    1[  ] ==(                Down/ Polling)==>             [  ] "" ( )'
    ev = load_text(f"{line}\n{down}\n", "ibl.txt")
    assert ev.files[0].formats == ["rdma"]
    got = [(p["ca"], p["state"], p["rate_gbps"]) for p in ev.hca_ports]
    assert got == [("gpu-v100-3 HCA-1", "Active", 100.0), ("gpu-v100-1 HCA-1", "Down", None)]


def test_ascend_fds_failed_analysis_is_said_not_taken_for_no_fault() -> None:
    fd = (
        H42
        / "ascend_fd_diag_report_comp_network_custom_05_optical_not_present_device_0_4_mindcluster_quick_start_cut.txt"
    )
    lines = fd.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if "疑似根因故障" in line)
    end = next(i for i in range(start, len(lines)) if lines[i].strip().startswith("+--"))
    failed = "    |              |  分析失败  | 请查看日志报错信息" + " " * 90 + "|"
    ev = load_text("\n".join([*lines[:start], failed, *lines[end:]]) + "\n", "fd.txt")
    assert ev.failures == [] and ev.files[0].status == "partial"
    assert any("its analysis failed for 故障事件分析" in m.message for m in ev.files[0].messages)
