"""Outputs of round MMMM's held-out evaluation (set 662, Ascend logs) that the advisor read wrong or
in part before this change (tests/data/evidence_heldout_73, sources in tests/data/SOURCES.md):
CANN's TBE compile helpers' "main process disappeared!" after a finished verl run, read as an
error; verl's warning that its NPU platform has no device in a Ray actor, and HCCL's rank table
check of a missing device_ip quoted without its plog head, both not read at all."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_73"

TBE = "verl_grpo_npu_final_validation_then_tbe_subprocess_main_process_disappeared_verl2012_cut.log"
PLATFORM = "verl_ray_platform_huawei_npu_registered_not_available_cpu_only_actor_verl6741.log"
DEVICE_IP = "vllm_ascend_pd_mooncake_d_node_plog_ranktablcheck_device_ip_not_set_vllmascend7711.log"


_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


def _notes(ev: EvidenceFacts) -> list[str]:
    return [m.message for m in ev.files[0].messages]


# --- TBE's helpers after a finished run ---------------------------------------------------------


def test_tbe_main_process_disappeared_after_final_validation_is_no_error() -> None:
    ev = _load(TBE)
    assert ev.files[0].formats == ["log"]
    assert ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    (note,) = [n for n in _notes(ev) if "TBE" in n]
    assert "4 line(s)" in note and "line(s) 4, 5, 6, 7" in note


def test_tbe_lines_do_not_hide_a_real_error_after_them(tmp_path: Path) -> None:
    # the run failed first: its own error is still quoted, the TBE lines are not
    text = _text(TBE).replace(
        "'0.3661865049279757}')\n",
        "'0.3661865049279757}')\n(WorkerDict pid=1896673) RuntimeError: NPU out of memory.\n",
    )
    ev = _write(tmp_path, text)
    (failure,) = ev.failures
    assert failure["line"] == 3
    assert "NPU out of memory" in failure["message"]
    assert heldout.imported(ev)[0] != "READY"


def test_tbe_lines_without_the_ray_tag_on_another_pid(tmp_path: Path) -> None:
    text = _text(TBE).replace("(WorkerDict pid=1896673) ", "")
    ev = _write(tmp_path, text)
    assert ev.failures == []
    assert heldout.imported(ev)[0] == "READY"


# --- verl's platform with no device --------------------------------------------------------------


def test_verl_platform_registered_but_not_available_is_a_warning() -> None:
    ev = _load(PLATFORM)
    assert ev.files[0].formats == ["log"]
    (failure,) = ev.failures
    assert failure["kind"] == "accelerator_unavailable"
    assert failure["line"] == 1
    assert failure["library"] == "verl" and failure["call"] == "PlatformNPU"
    assert "'huawei' (PlatformNPU)" in failure["exception_type"]
    assert "CPU-only" in failure["exception_type"]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-verl-platform-unavailable", "warning")]
    _, (item,) = heldout.finding(outcome, "evidence-verl-platform-unavailable")
    assert "line 1)" in item


def test_verl_platform_cuda_in_ray_actors_counted_once(tmp_path: Path) -> None:
    # another platform, behind Ray's actor tags, two workers: one notice, the second a repeat
    line = (
        "(WorkerDict pid={pid}) Platform 'nvidia' (PlatformCUDA) is registered but not available. "
        "This may be due to this ray actor being a CPU-only actor.\n"
    )
    ev = _write(tmp_path, line.format(pid=11) + line.format(pid=12))
    (failure,) = ev.failures
    assert failure["call"] == "PlatformCUDA"
    assert failure["repeated_lines"] == [2]
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


def test_verl_platform_healthy_twin_stays_ready(tmp_path: Path) -> None:
    ev = _write(tmp_path, "INFO 06-16 10:00:01 Platform 'huawei' (PlatformNPU) is available.\n" * 3)
    assert ev.failures == []
    assert heldout.imported(ev)[0] == "READY"


# --- HCCL's rank table check, quoted without its plog head ----------------------------------------


def test_ranktable_device_ip_not_set_is_a_configuration_failure() -> None:
    ev = _load(DEVICE_IP)
    assert ev.files[0].formats == ["log"]
    (failure,) = ev.failures
    assert failure["kind"] == "hccl_plog_error"
    assert failure["line"] == 1 and failure["library"] == "HCCL"
    assert failure["exception_type"].startswith("the rank table gives no device_ip")
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-hccl-plog-error", "critical")]
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-hccl-plog-error"]
    assert any("hccn.conf" in r.why for r in finding.recommendations)


def test_ranktable_device_ip_with_underscores_and_plog_head_read_once(tmp_path: Path) -> None:
    # the plog's own line (HCCL's words with their underscores) is read by the plog reading, once
    text = (
        "[ERROR] HCCL(705,python):2026-02-11-06:09:23.236.320 [topoinfo_ranktableConcise.cc:446] "
        "[737][Get][SingleDeviceIp]'device_ip' is not set correctly,must be set when multi Server "
        "or HCCL_INTRA_ROCE_ENABLE enabled\n"
    )
    ev = _write(tmp_path, text)
    (failure,) = ev.failures
    assert failure["exception_type"].startswith("the rank table gives no device_ip")
    assert heldout.imported(ev)[0] == "NOT READY"


def test_ranktable_check_on_another_line_of_a_log(tmp_path: Path) -> None:
    text = (
        "INFO 03-27 10:00:01 [worker.py:10] starting D node\n"
        "INFO 03-27 10:00:02 [worker.py:11] loading model\n"
        + _text(DEVICE_IP).replace("'device ip'", "'device_ip'")
    )
    ev = _write(tmp_path, text)
    failure = next(f for f in ev.failures if f["kind"] == "hccl_plog_error")
    assert failure["line"] == 3
    assert heldout.imported(ev)[0] == "NOT READY"
