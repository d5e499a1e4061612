"""Outputs of round IIII's held-out evaluation (set 638, Ascend logs) that the advisor read in part
before this change (tests/data/evidence_heldout_69, sources in tests/data/SOURCES.md): MindIE LLM's
file-permission check that warned of a model's config.json and went on, not seen (READY, the file
said to be a PROFILING plog); and the runtime's report of a core exception by its chip
("device(chipId:1, ...)") said on "Device 1" while torch_npu's line puts the same pid on its
Device 0: one process's one failure shown as a second device."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_69"

MINDIE = "gpustack3153_mindie_2.1rc2_910b2_llm_init_warn_config_permission_profiling_cut.log"
CHIP = "tilelang995_torchnpu_maskedselect_507015_ez9999_pid_prefix_chip1_core37_cut.log"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


def _kinds(ev: EvidenceFacts) -> list[tuple[str, int]]:
    return [(f["kind"], f["line"]) for f in ev.failures]


# --- MindIE's permission check that warned and went on -----------------------------------------

_CONFIG = "/var/lib/gpustack/cache/model_scope/Qwen/Qwen2.5-VL-7B-Instruct/config.json"


def test_mindie_permission_check_warned_is_a_warning() -> None:
    ev = _load(MINDIE)
    assert _kinds(ev) == [("file_permission_warning", 3)]
    (warned,) = ev.failures
    assert warned["library"] == "MindIE LLM"
    assert warned["exception_type"] == (
        f"MindIE LLM's file-permission check failed on {_CONFIG}: others' permission is 4, "
        "required no greater than 0 (mode 644, required 750), logged at WARN; MindIE LLM's "
        "runtime had started (line 2)"
    )
    # (nothing invented: no device, rank or code the lines do not give)
    assert (warned["device"], warned["rank"], warned["code"]) == (None, None, None)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-file-permission-warning", "warning")]


def test_mindie_permission_check_cut_or_quoted_or_other_wording(tmp_path: Path) -> None:
    # the WARN line alone (the copy's other lines cut), no runtime line to name
    (line,) = [t for t in (HELDOUT / MINDIE).read_text().splitlines() if "[WARN]" in t]
    ev = _write(tmp_path, line + "\n")
    assert _kinds(ev) == [("file_permission_warning", 1)]
    assert "runtime had started" not in ev.failures[0]["exception_type"]
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"
    # a Markdown quote of another version's wording (the path after "for file"), at WARNING,
    # on the group's class
    ev = _write(
        tmp_path,
        "> [2025-11-05 20:32:25.735] [34] [2814733] [llm] [WARNING] [file_utils.cpp:12]  Check "
        "Owner group permission for file /models/w/model.safetensors failed. Current permission "
        "is 6, but required no greater than 5.\n",
    )
    assert _kinds(ev) == [("file_permission_warning", 1)]
    assert ev.failures[0]["exception_type"] == (
        "MindIE LLM's file-permission check failed on /models/w/model.safetensors: the group's "
        "permission is 6, required no greater than 5, logged at WARNING"
    )


def test_a_permission_check_at_error_is_not_said_to_have_gone_on(tmp_path: Path) -> None:
    # at ERROR the check refused the file: no warning that it went on, its error line is read
    ev = _write(
        tmp_path,
        "E20240827 13:21:49.997465 3987495 Util.cpp:87] Check Owner permission failed: Current "
        "permission is 7, but required no greater than 6.\n",
    )
    assert all(f["kind"] != "file_permission_warning" for f in ev.failures)


# --- the runtime's chip against the process's device --------------------------------------------


def test_a_core_exception_by_its_chip_is_on_the_process_device() -> None:
    ev = _load(CHIP)
    assert _kinds(ev) == [("npu_runtime_error", 1), ("npu_device_exception", 6)]
    runtime, core = ev.failures
    assert (runtime["pid"], runtime["device"], runtime["code"]) == (6228, 0, "507015")
    assert (core["pid"], core["device"], core["code"]) == (6228, 0, "EZ9999")
    assert core["exception_type"] == (
        "exception of fftsplus aivector exception on core 37: The UB address accessed by the VEC "
        "instruction is not aligned (the report's chip 1)"
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert {r for r, _ in heldout.above_info(outcome)} == {
        "evidence-npu-device-exception",
        "evidence-npu-runtime-error",
    }


_REPORT = (
    "EZ9999[PID: {pid}] 2026-05-10-16:29:39.280.676 (EZ9999):  The error from device(chipId:{chip}, "
    "dieId:0), serial number is 12, there is an exception of aivec error, core id is 3, error code "
    "= 0, dump info: pc start: 0x12c0414007d4.[FUNC:PrintCoreInfo][FILE:device_error_core_proc.cc]"
    "[LINE:347]\n"
)


def _torch_npu(pid: int, device: int) -> str:
    return (
        "[E510 16:29:39.567695551 compiler_depend.ts:444] NPU function error: call aclnnAdd "
        "failed, error code is 507015\n"
        f"[ERROR] 2026-05-10-16:29:39 (PID:{pid}, Device:{device}, RankID:-1) ERR00100 PTA call "
        "acl api failed\n"
        "EZ9999: Inner Error!\n"
    )


def test_the_chip_is_mapped_for_another_numbering_only_by_its_own_pid(tmp_path: Path) -> None:
    # another device and chip (ASCEND_RT_VISIBLE_DEVICES=4,5: device 1 is chip 5)
    ev = _write(tmp_path, _torch_npu(71, 1) + _REPORT.format(pid=71, chip=5))
    (core,) = [f for f in ev.failures if f["kind"] == "npu_device_exception"]
    assert core["device"] == 1
    assert core["exception_type"].endswith("(the report's chip 5)")
    # another process's report: its chip stays as the runtime gave it
    ev = _write(tmp_path, _torch_npu(71, 1) + _REPORT.format(pid=72, chip=5))
    (core,) = [f for f in ev.failures if f["kind"] == "npu_device_exception"]
    assert core["device"] == 5
    assert "the report's chip" not in core["exception_type"]
    # the same chip and device: nothing to say
    ev = _write(tmp_path, _torch_npu(71, 0) + _REPORT.format(pid=71, chip=0))
    (core,) = [f for f in ev.failures if f["kind"] == "npu_device_exception"]
    assert core["device"] == 0
    assert "the report's chip" not in core["exception_type"]
