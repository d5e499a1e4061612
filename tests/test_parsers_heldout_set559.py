"""Outputs of round VVV's held-out evaluation (sets 559-564) that the advisor read wrong or not
at all before this change (tests/data/evidence_heldout_59, sources in tests/data/SOURCES.md)."""

from __future__ import annotations

import pytest

from advisor.parsers import ParseError, logs
from tests import heldout
from tests.test_parsers_heldout_set453 import _load


def test_an_hccn_tool_context_dump_is_said_as_raw_registers() -> None:
    ev = _load(
        "hccn_tool_g_context_i0_udma3_aeqc0_offset_aeq0_register_dump_ascend950_driver_doc.txt"
    )
    assert ev.files[0].status == "read"
    (note,) = heldout.said(ev)
    assert note.startswith(
        "ascend_notes: hccn_tool -context: NPU 0's udma3 aeqc 0 context, 16 register"
    )


def test_a_lower_case_warning_of_hccl_tests_logger_is_no_runtime_failure() -> None:
    # (the HCCL-VM's stub logs a capture-mode result the run went on past)
    text = (
        "[warning][PID:109016][TID:109016][log_stub.cc][DlogPrintStub] [HCCL-VM-HCCL_LOG]"
        "[model_ri.cpp:194]109016 aclmdlRICaptureThreadExchangeModeImpl: exchange capture mode "
        "failed, runtime result = 207000\n"
    )
    # (nor any error: below error by its logger's level, nothing failed; review 41)
    with pytest.raises(ParseError):
        logs.parse(text)


def test_a_reports_bullets_of_inline_code_are_its_log_lines_a_failure_a_rank() -> None:
    ev = _load("kimsale_mindspeedmm_ep8_aclrtsync_copy_stream_507018_report.txt")
    assert any("listed as Markdown bullets of inline code" in m for m in heldout.said(ev))
    failed = [f for f in ev.failures if f["kind"] == "npu_runtime_error"]
    assert sorted(f["rank"] for f in failed) == list(range(8))
    assert {f["code"] for f in failed} == {"507018"}


def test_torchruns_launch_configs_and_finished_agents_are_said() -> None:
    ev = _load("awsome_ddp_slurm_torchrun_c10d_2node_4proc_succeeded_healthy.log")
    assert not ev.failures
    assert (
        "log: torchrun's launch: 2 node(s), 4 process(es) a node, c10d rendezvous at "
        "10.1.96.108:29500; 2 agent(s) said their workers finished (SUCCEEDED); no error"
    ) in heldout.said(ev)


def test_aws_ofi_ncclss_failed_init_is_a_fallback_not_a_failure() -> None:
    ev = _load("tinyzero_verl_ray_ppo_qwen05b_nccl2205_net_ofi_init_failed_benign_steps0_8.log")
    found = heldout.found(ev)
    assert "evidence-nccl-warning" not in found
    assert "evidence-nccl-fallback-warning" in found
