"""Outputs of round YYY's held-out set 577 that the advisor read with the wrong verdict before
this change (tests/data/evidence_heldout_62, sources in tests/data/SOURCES.md): npu-smi snapshots
whose chips' HBM running processes (vLLM) held while the AI cores were idle, said as info with the
verdict READY. A pre-flight check asks whether the chips are free for the job about to start:
they are not, so the finding is a warning that names the chips, their memory and processes."""

from __future__ import annotations

from functools import partial

from advisor.evidence.load import load_text
from advisor.rules.findings import RulesOutcome
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_62"

VLLM_TP = "npu_smi_info_25.5.1_910B3_8npu_hbm90pct_vllm_procs_nvitop_sample.txt"
USAGES = "npu_smi_info_t_usages_i0_910b3_hbm90_tab_indented_nvitop_sample.txt"
A3_DP = "npu_smi_info_26.1.0.b087_a3_8npu_16chips_vllm_dp_procs_container_pid_npu_top_capture.txt"


_load = partial(heldout.load, HELDOUT)


def _held(outcome: RulesOutcome) -> list[str]:
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-npu-hbm-held"]
    assert finding.severity == "warning"
    # the only finding that is not info: nothing else about these healthy chips is said
    assert [f.rule_id for f in outcome.findings if f.severity != "info"] == [finding.rule_id]
    return [str(item) for item in finding.items]


def test_chips_a_vllm_deployment_holds_are_not_free_for_a_job() -> None:
    ev = _load(VLLM_TP)
    assert {c["health"] for c in ev.npu_chips} == {"OK"}
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    items = _held(outcome)
    # NPU 0-6 hold 59021-59944 of 65536 MB (lines 8-26); NPU 7's 19319 MB (29 %) is under half
    assert len(items) == 7
    assert items[0].startswith(
        "NPU 0 chip 0 (0000:C1:00.0): HBM 59189 of 65536 MB (90.3 %), AICore 0 %; held by "
        "VLLMWorker_TP (pid 3233241, 55844 MB)"
    )
    assert "NPU 6 chip 0 (0000:41:00.0): HBM 59021 of 65536 MB (90.1 %)" in items[6]
    assert "VLLMEngineCor (pid 2895155, 55671 MB)" in items[6]
    assert not any(i.startswith("NPU 7") for i in items)


def test_npu_smi_t_usages_held_memory_is_a_warning_without_a_process_invented() -> None:
    ev = _load(USAGES)
    (chip,) = ev.npu_chips
    assert (chip["npu"], chip["hbm_used_pct"], chip["aicore_pct"], chip["health"]) == (
        0,
        90.0,
        0,
        None,
    )
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = _held(outcome)
    assert item.startswith("NPU 0 chip 0: HBM 90.0 % used, AICore 0 %; no process listed")


def test_an_a3s_sixteen_chips_each_held_by_a_vllm_dp_worker_are_a_warning() -> None:
    ev = _load(A3_DP)
    assert [c["phy_id"] for c in ev.npu_chips] == list(range(16))
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    items = _held(outcome)
    assert len(items) == 16
    assert items[0].startswith(
        "NPU 0 chip 0 (0000:9D:00.0): HBM 37397 of 65536 MB (57.1 %), AICore 0 %; held by "
        "VLLMWorker_DP (pid 3224097, 34309 MB)"
    )
    assert items[15].startswith("NPU 7 chip 1 (0000:83:00.0): HBM 37054 of 65536 MB (56.5 %)")
    # the container's pid column reads NA: no container pid is said
    assert not any("NA" in i.split("held by", 1)[1] for i in items)


def test_an_idle_chips_own_reserve_and_memory_under_half_stay_ready() -> None:
    # the same table with the chips' memory at an idle 910B's reserve (3197 MB) and one chip
    # just under half (32700 of 65536 MB, 49.9 %), the processes kept: no chip is said held
    text = (HELDOUT / VLLM_TP).read_text()
    for used in ("59189", "59184", "59186", "59932", "59944", "59021", "19319"):
        text = text.replace(f"{used}/ 65536", "3197 / 65536")
    text = text.replace("3197 / 65536", "32700/ 65536", 1)
    ev = load_text(text, "npu-smi.txt")
    assert sorted(c["hbm_used_mb"] for c in ev.npu_chips)[-2:] == [3197, 32700]
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert "evidence-npu-hbm-held" not in {f.rule_id for f in outcome.findings}


def test_a_chip_computing_and_a_copy_behind_a_prompt_are_read_alike() -> None:
    # the table pasted behind a shell prompt, NPU 0's AI cores busy: its memory is held all the
    # same (by work running there: the job's own or another's, which the copy cannot tell), so
    # it is said with the other six, its AICore figure shown (set 583)
    text = (HELDOUT / VLLM_TP).read_text()
    row = "| 0                         | 0000:C1:00.0  | {}0    / 0"
    text = "[root@node-1 ~]# npu-smi info\n" + text.replace(
        row.format("0           "), row.format("87          ")
    )
    ev = load_text(text, "npu-smi.txt")
    assert ev.npu_chips[0]["aicore_pct"] == 87
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    items = _held(outcome)
    assert len(items) == 7
    assert items[0].startswith(
        "NPU 0 chip 0 (0000:C1:00.0): HBM 59189 of 65536 MB (90.3 %), AICore 87 %; held by"
    )
    assert items[1].startswith("NPU 1 chip 0 (0000:C2:00.0)") and "AICore 0 %" in items[1]
