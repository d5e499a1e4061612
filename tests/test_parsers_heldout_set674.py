"""Outputs of round OOOO's held-out evaluation (set 674, Ascend logs) that the advisor read in
part before this change (tests/data/evidence_heldout_75, sources in tests/data/SOURCES.md): a
MindSpore ResNet50 job's CANN plog whose process (rank 1, device 1 on 51.38.68.155 by its init
line) timed out waiting with "client : device[2] rank[2] get socket timeout", read as "Rank 2
waited for its peers"; SGLang's torch_npu "NPU out of memory. NPUWorkspaceAllocator tried to
allocate 216.00 MiB(NPU 0; ...)" read as an unknown program's error; and vLLM-Ascend's rank 7
warning that HCCL's execution time-out is never, beyond the 1800000 ms watchdog, left unnamed
beside the NPU 3 out-of-memory."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.rules.findings import RulesOutcome
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_75"

PLOG = (
    "cann_plog_hccl_mindspore_resnet50_8p_rank1_get_socket_timeout_device2_500000b_"
    "mindcluster_plog11044.log"
)
WORKSPACE = "sglang_ascend_cann9_qwen3_14b_w8a8_npu0_workspace_oom_216mib_ascendsglang667.log"
NEVER = (
    "vllm_ascend_073post1_deepseek_r1_w8a8_2x8_910b2_npu3_oom_hccl_watchdog_warning_cut_"
    "vllmascend1127.log"
)

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _advice(outcome: RulesOutcome, rule_id: str) -> str:
    (finding,) = [f for f in outcome.findings if f.rule_id == rule_id]
    return " ".join(r.why for r in finding.recommendations)


# --- the older exchanger's wait: the process's own init line says who waited ------------------


def test_the_plogs_own_rank_waited_and_the_named_rank_is_its_peer() -> None:
    ev = _load(PLOG)
    assert ev.files[0].status == "read"
    (wait,) = [f for f in ev.failures if f["kind"] == "hccl_link_timeout"]
    assert (wait["line"], wait["rank"], wait["device"], wait["ip"]) == (2, 1, 1, "51.38.68.155")
    assert (wait["remote_rank"], wait["rank_size"]) == (2, 8)
    assert (wait["code"], wait["code_name"]) == ("11", "HCCL_E_TCP_CONNECT")
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-hccl-link-wait-timeout")
    assert item.startswith("Rank 1 (51.38.68.155) waited for rank 2, ")
    assert "2 of the 4 sockets it waited for never connected" in item
    assert "names device 2 rank 2, this process is device 1" in item and "line 2)" in item
    assert "Rank 2 waited" not in item


def test_another_rank_and_host_waiting_for_another_peer(tmp_path: Path) -> None:
    text = (
        _text(PLOG)
        .replace("rank[1],server[51.38.68.155], device[1]", "rank[5],server[10.0.3.17], device[5]")
        .replace("device[2] rank[2] get socket", "device[6] rank[6] get socket")
        .replace("rankNum[8], rank[1]", "rankNum[8], rank[5]")
    )
    ev = _write(tmp_path, text)
    (wait,) = [f for f in ev.failures if f["kind"] == "hccl_link_timeout"]
    assert (wait["rank"], wait["device"], wait["ip"], wait["remote_rank"]) == (5, 5, "10.0.3.17", 6)
    _, outcome = heldout.imported(ev)
    (item,) = heldout.items(outcome, "evidence-hccl-link-wait-timeout")
    assert item.startswith("Rank 5 (10.0.3.17) waited for rank 6, ")


def test_a_wait_line_naming_the_process_itself_keeps_its_rank(tmp_path: Path) -> None:
    # HCCL's own sample (a MindSpore FAQ) names the waiting rank itself: nothing to swap
    text = _text(PLOG).replace("device[2] rank[2] get socket", "device[1] rank[1] get socket")
    ev = _write(tmp_path, text)
    (wait,) = [f for f in ev.failures if f["kind"] == "hccl_link_timeout"]
    assert (wait["rank"], wait["remote_rank"], wait["ip"]) == (1, None, None)
    _, outcome = heldout.imported(ev)
    (item,) = heldout.items(outcome, "evidence-hccl-link-wait-timeout")
    assert item.startswith("Rank 1 waited for its peers (no socket table read)")


def test_the_plog_without_its_wait_line_is_healthy(tmp_path: Path) -> None:
    lines = _text(PLOG).splitlines(keepends=True)
    ev = _write(tmp_path, lines[0] + lines[3])
    assert not [f for f in ev.failures if f["kind"] == "hccl_link_timeout"]
    level, _ = heldout.imported(ev)
    assert level == "READY"


# --- torch_npu's operator workspace allocator out of memory -----------------------------------


def test_the_workspace_allocators_oom_is_a_device_out_of_memory() -> None:
    ev = _load(WORKSPACE)
    assert ev.files[0].status == "read"
    (oom,) = ev.failures
    assert (oom["kind"], oom["line"], oom["rank"], oom["device"]) == ("device_oom", 1, 0, 0)
    assert oom["library"] == "NPU"
    assert oom["exception_type"] == (
        "torch_npu's NPUWorkspaceAllocator tried to allocate 216.00 MiB, 151.18 MiB free; "
        "61.27 GiB total"
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert ("evidence-device-out-of-memory", "critical") in heldout.above_info(outcome)
    assert not [f for f in outcome.findings if f.rule_id == "evidence-log-error"]
    (item,) = heldout.items(outcome, "evidence-device-out-of-memory")
    assert item.startswith("Rank 0 on device 0: torch_npu's NPUWorkspaceAllocator tried to")


def test_the_workspace_oom_on_another_device_and_size(tmp_path: Path) -> None:
    # (another release's source file, as a vLLM-Ascend report prints it: compiler_depend.ts:444)
    text = (
        _text(WORKSPACE)
        .replace("[rank0]", "[rank7]")
        .replace("OpParamMaker.cpp:454", "compiler_depend.ts:444")
        .replace("216.00 MiB(NPU 0; 61.27 GiB", "1.89 GiB(NPU 7; 60.96 GiB")
        .replace("151.18 MiB free", "1.82 GiB free")
    )
    ev = _write(tmp_path, text)
    (oom,) = ev.failures
    assert (oom["rank"], oom["device"]) == (7, 7)
    assert oom["exception_type"].endswith(
        "tried to allocate 1.89 GiB, 1.82 GiB free; 60.96 GiB total"
    )


def test_the_caching_allocators_form_is_read_as_before(tmp_path: Path) -> None:
    text = "RuntimeError: NPU out of memory. Tried to allocate 30.00 MiB (NPU 3; 60.96 GiB total capacity; 60.34 GiB already allocated; 60.34 GiB current active; 14.24 MiB free; 60.60 GiB reserved in total by PyTorch)\n"
    (oom,) = _write(tmp_path, text).failures
    assert oom["device"] == 3
    assert oom["exception_type"].startswith("tried to allocate 30.00 MiB, 14.24 MiB free; 60.96")


# --- torch_npu's warning: HCCL's execution time-out never, the watchdog's 1800 s --------------


def test_the_never_timeout_warning_of_rank_7_is_named_beside_the_oom() -> None:
    ev = _load(NEVER)
    (warned,) = [f for f in ev.failures if f["kind"] == "pg_timeout_warning"]
    assert (warned["line"], warned["rank"], warned["timeout_ms"]) == (4, 7, 1800000)
    assert warned["exception_type"] == (
        "watchdog 1800 s, HCCL execution time-out never as torch_npu read it (HCCL_EXEC_TIMEOUT "
        "set to 0; or unset, in a torch_npu release that reads unset as 0, where HCCL keeps its "
        "own default 1836 s) (27 process(es) warned: rank(s) 7; 26 more folded by Ray into the "
        "line(s) read, their ranks not shown ('[repeated Nx across cluster]'))"
    )
    (oom,) = [f for f in ev.failures if f["kind"] == "device_oom"]
    assert (oom["line"], oom["device"]) == (3, 3)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert ("evidence-pg-timeout-not-above-hccl-exec", "warning") in heldout.above_info(outcome)
    (item,) = heldout.items(outcome, "evidence-pg-timeout-not-above-hccl-exec")
    assert item.startswith("watchdog 1800 s, HCCL execution time-out never") and "line 4)" in item
    advice = _advice(outcome, "evidence-pg-timeout-not-above-hccl-exec")
    assert "HCCL reports no hang by itself" in advice


def test_the_source_form_of_the_never_warning_alone(tmp_path: Path) -> None:
    # torch_npu's ProcessGroupHCCL.cpp text ("set to 0(never timeout)"), another rank and watchdog
    text = (
        "[rank3]:[W609 06:57:47.819535026 ProcessGroupHCCL.cpp:877] Warning: The HCCL execution "
        "timeout was set to 0(never timeout), so it is bigger than watchdog timeout 600000ms "
        "which is set by init_process_group! The plog may not be recorded. You can disable "
        "watchdog by 'export HCCL_ASYNC_ERROR_HANDLING=0'. (function ProcessGroupHCCL)\n"
    )
    ev = _write(tmp_path, text)
    assert ev.files[0].status == "read"
    (warned,) = ev.failures
    assert (warned["rank"], warned["timeout_ms"]) == (3, 600000)
    assert warned["exception_type"].startswith("watchdog 600 s, HCCL execution time-out never")
    level, _ = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"


def test_a_numbered_exec_timeout_warning_keeps_its_old_advice(tmp_path: Path) -> None:
    text = (
        "[W compiler_depend.ts:795] Warning: The HCCL execution timeout 1800000ms is bigger than "
        "watchdog timeout 300000ms which is set by init_process_group! The plog may not be "
        "recorded. (function ProcessGroupHCCL)\n"
    )
    ev = _write(tmp_path, text)
    _, outcome = heldout.imported(ev)
    (item,) = heldout.items(outcome, "evidence-pg-timeout-not-above-hccl-exec")
    assert item.startswith("watchdog 300 s, HCCL execution 1800 s (1 process(es) warned)")
    assert "no hang by itself" not in _advice(outcome, "evidence-pg-timeout-not-above-hccl-exec")
