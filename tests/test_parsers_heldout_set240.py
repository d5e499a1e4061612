"""Outputs the two-hundred-fortieth held-out evaluation misread (tests/data/evidence_heldout_42,
sources in tests/data/SOURCES.md): the middle of a dcgmi diag table, ranks of one collective
whose lines are of two kinds, nvidia-smi's MIG devices table."""

from __future__ import annotations

import dataclasses

from advisor.evidence.load import load_paths
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_42"


def _load(name: str):  # type: ignore[no-untyped-def]
    return load_paths([HELDOUT / name])


def test_the_middle_of_a_dcgm_table_gives_each_gpus_result_and_the_unwrapped_warning() -> None:
    ev = _load(
        "dcgmi_diag_table_middle_only_gpu_memory_pass_gpu1_fail_gpu0_cuda_busy_wrapped_warning_go_dcgm52_cut.txt"
    )
    (report,) = ev.files
    assert report.status == "partial" and any(
        "header and metadata" in m.message for m in report.messages
    )
    (diag,) = ev.dcgm_diags
    got = [(c["section"], c["name"], c["result"], c["gpus"]) for c in diag["checks"]]
    assert got == [
        ("Hardware", "GPU Memory", "Pass", "GPU: 1"),
        ("Hardware", "GPU Memory", "Fail", "GPU: 0"),
    ]
    (warning,) = diag["failed"][0]["details"]
    # rows wrapped inside words ("R" / "estart") join without a space, others with one
    assert "Reset GPU. Restart DCGM. Rerun diagnostics. Unable to create CUDA context" in warning
    assert warning.startswith("Warning: GPU 0 Error using CUDA API cuCtxCreate Check DCGM")
    findings = builtin_findings({"evidence.dcgm_diags": ev.dcgm_diags}, "nccl")
    assert "GPU Memory (Hardware): Fail - GPU: 0" in str(
        findings["evidence-dcgm-diag-failed"].items[0]
    )


def test_ranks_that_timed_out_or_failed_at_one_work_blame_none() -> None:
    ev = _load(
        "pg_watchdog_pg1_reduce_scatter_seqnum_7753_ranks_0_3_4_timeout_2_failed_6_timeout_at_work_llamafactory6269_cut.log"
    )
    assert {f["seq"] for f in ev.failures} == {7753}
    (timeline,) = ev.timelines
    assert timeline.all_waiting
    timelines = [dataclasses.asdict(t) for t in ev.timelines]
    findings = builtin_findings(
        {"evidence.timelines": timelines, "evidence.failures": ev.failures}, "nccl"
    )
    assert "evidence-failure-order" not in findings


def test_nvidia_smis_mig_devices_table_is_read_as_far_as_the_copy_goes() -> None:
    # (said unread before set 579; now its devices are read, and the copy's cut said)
    ev = _load(
        "nvidia_smi_535_h100_mig_enabled_two_gpus_then_mig_devices_table_gpu_operator1310_cut.txt"
    )
    assert [(g["gpu"], g["mig_mode"]) for g in ev.gpus] == [(0, "Enabled"), (1, "Enabled")]
    (report,) = ev.files
    assert report.status == "partial"
    listed, cut = [m for m in report.messages if "MIG device" in m.message]
    assert listed.line == 23
    assert listed.message.startswith(
        "nvidia_smi: nvidia-smi: GPU 0 (MIG mode Enabled) split into 3 MIG device(s): GI 2 / CI 0 "
        "(device 0): 60 SMs, 37 of 40320 MiB used, uncorrectable ECC 0;"
    )
    assert cut.line == 29
    assert "the MIG devices after GPU 0's GI 9 are unknown" in cut.message
