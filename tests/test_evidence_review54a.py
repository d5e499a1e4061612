"""Review 54 (round IIII sets 637-642 and review 53's mends), faults 1, 2, 4, 5 and 9: a
restarted worker group whose workers print ``key=value`` lines; dcgmi dmon's "Result: -18: GPU is
lost"; ``nvidia-smi -i 1,3 -q | grep Fabric``; a core-exception report without "[PID: N]"; the
MindIE permission check's older wording without a path: each on its input (tests/data/review54,
described in tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review54"
REVIEW53 = DATA / "review53"
HELDOUT = DATA / "evidence_heldout_69"

_write = partial(heldout.load_copy, name="copy.txt")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


def _kinds(ev: EvidenceFacts) -> list[tuple[str, int]]:
    return [(f["kind"], f["line"]) for f in ev.failures]


# --- 1. the restarted workers' own key=value lines: the restart ran ------------------------------

ELASTIC_STEPS = "torchelastic_restart_then_restarted_workers_key_value_step_lines.log"
ELASTIC_REAL = (
    "torchelastic_py_logging_worker_group_failed_restart_rendezvous_result_doc2edag24_cut.log"
)


def test_restarted_workers_key_value_lines_show_the_restart_ran() -> None:
    ev = _load(ELASTIC_STEPS)
    (restart,) = [f for f in ev.failures if f["kind"].startswith("elastic_restart")]
    assert (restart["kind"], restart["line"]) == ("elastic_restart", 1)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-elastic-restart", "warning")]
    assert "nothing shows the restarted workers ran" not in str(outcome.findings)
    # the set-641 file it was built from, cut in the agent's steps (the Result block's
    # restart_count=... fields among them), is still a failed attempt
    real = _load(ELASTIC_REAL, HELDOUT)
    (pending,) = [f for f in real.failures if f["kind"].startswith("elastic_restart")]
    assert pending["kind"] == "elastic_restart_pending"
    assert heldout.imported(real)[0] == "NOT READY"


def test_only_the_result_block_fields_are_agent_steps(tmp_path: Path) -> None:
    real = (HELDOUT / ELASTIC_REAL).read_text()
    # an epoch line of another form the workers print ("epoch=0 ...")
    ev = _write(tmp_path, real.rstrip("\n") + "\nepoch=0 iter=100 loss=4.12\n")
    assert [f["kind"] for f in ev.failures if f["kind"].startswith("elastic")] == [
        "elastic_restart"
    ]
    # a later torch's extra Result field (event_log_handler=...) is still the agent's
    text = real.replace(
        "  global_world_sizes=[4, 4, 4, 4]\n",
        "  global_world_sizes=[4, 4, 4, 4]\n  event_log_handler=null\n",
    )
    assert "event_log_handler" in text
    ev = _write(tmp_path, text)
    assert [f["kind"] for f in ev.failures if f["kind"].startswith("elastic")] == [
        "elastic_restart_pending"
    ]


# --- 2. dcgmi dmon's -18 "GPU is lost": a GPU fault, not DCGM's refusal ---------------------------

DMON_LOST = "dcgmi_dmon_d100_e1040_error_setting_watches_minus18_gpu_is_lost.txt"
DMON_REAL = (
    "dcgmi_3.1.3_dmon_d100_e1040_nvlink_l0_tx_error_setting_watches_minus6_feature_not_"
    "supported_a100.txt"
)


def test_dmon_gpu_is_lost_is_a_gpu_fault() -> None:
    ev = _load(DMON_LOST)
    assert _kinds(ev) == [("gpu_driver_fault", 4)]
    (lost,) = ev.failures
    assert lost["code"] == "-18" and lost["library"] == "DCGM"
    assert "DCGM_ST_GPU_IS_LOST" in lost["exception_type"]
    assert "not a GPU fault" not in lost["exception_type"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-gpu-driver-fault", "critical")]
    # the set-639 file it was built from (-6, Feature not supported) is still DCGM's refusal
    real = _load(DMON_REAL, HELDOUT)
    assert [f["kind"] for f in real.failures] == ["dcgm_watch_refused"]
    assert heldout.imported(real)[0] == "READY WITH WARNINGS"


def test_dmon_reset_required_faults_and_nvml_error_is_not_called_dcgms_own(
    tmp_path: Path,
) -> None:
    head = "$ dcgmi dmon -e 1011,1012 -c 5\n#Entity   NVLTX          NVLRX\nID\n"
    ev = _write(tmp_path, head + "Error setting watches. Result: -19: GPU requires reset\n")
    assert [(f["kind"], f["code"]) for f in ev.failures] == [("gpu_driver_fault", "-19")]
    assert "DCGM_ST_RESET_REQUIRED" in ev.failures[0]["exception_type"]
    # -8, DCGM's code for every NVML error: not a GPU fault the result shows, not DCGM's refusal
    ev = _write(tmp_path, head + "Error setting watches. Result: -8: NVML error\n")
    (nvml,) = ev.failures
    assert (nvml["kind"], nvml["code"]) == ("dcgm_watch_refused", "-8")
    assert "DCGM_ST_NVML_ERROR" in nvml["exception_type"]
    assert "DCGM's own failure" not in nvml["exception_type"]
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


# --- 4. nvidia-smi -i 1,3: the list's GPUs in turn ------------------------------------------------

FABRIC_LIST = "nvidia_smi_i_1comma3_one_command_grep_fabric_gpu3_in_progress.txt"
FABRIC_TWO_COMMANDS = "nvidia_smi_i_1_and_i_3_grep_fabric_one_command_line_gpu3_in_progress.txt"


def test_an_id_list_gives_each_section_its_gpu() -> None:
    ev = _load(FABRIC_LIST)
    assert [(g["gpu"], g["line"], g["fabric_state"]) for g in ev.gpus] == [
        (1, 3, "Completed"),
        (3, 10, "In Progress"),
    ]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-gpu-fabric-not-registered")
    assert item.startswith("GPU 3: Fabric State In Progress Status N/A (")
    assert "GPU 1:" not in str(outcome.findings)
    # review 53's file it was built from, two commands on one line, reads as before
    two = _load(FABRIC_TWO_COMMANDS, REVIEW53)
    assert [(g["gpu"], g["line"]) for g in two.gpus] == [(1, 3), (3, 10)]


def test_id_lists_with_gpu_lines_or_out_of_order(tmp_path: Path) -> None:
    fabric = "    Fabric\n        State          : {state}\n        Status         : {status}\n"
    # three ids, --id=, then a second command with one id
    text = (
        "$ nvidia-smi --id=0,2,5 -q | grep -A 2 Fabric; nvidia-smi -i 7 -q | grep -A 2 Fabric\n"
        + fabric.format(state="Completed", status="Success") * 3
        + fabric.format(state="In Progress", status="N/A")
    )
    assert [(g["gpu"], g["fabric_state"]) for g in _write(tmp_path, text).gpus] == [
        (0, "Completed"),
        (2, "Completed"),
        (5, "Completed"),
        (7, "In Progress"),
    ]
    # the whole records, each under its "GPU 0000:..." line
    whole = (
        "$ nvidia-smi -i 4,6 -q\n"
        "GPU 00000000:45:00.0\n    Product Name                    : NVIDIA H100 80GB HBM3\n"
        + fabric.format(state="Completed", status="Success")
        + "GPU 00000000:47:00.0\n    Product Name                    : NVIDIA H100 80GB HBM3\n"
        + fabric.format(state="In Progress", status="N/A")
    )
    assert [(g["gpu"], g["fabric_state"]) for g in _write(tmp_path, whole).gpus] == [
        (4, "Completed"),
        (6, "In Progress"),
    ]
    # a list out of order: in what order nvidia-smi prints it is not documented, so neither
    # of its ids is put on a section
    unordered = (
        "$ nvidia-smi -i 3,1 -q | grep -A 2 Fabric\n"
        + fabric.format(state="Completed", status="Success")
        + fabric.format(state="In Progress", status="N/A")
    )
    assert [g["gpu"] for g in _write(tmp_path, unordered).gpus] != [3, 1]


# --- 5. a core-exception report without its pid: the log's one process ---------------------------

CHIP_NO_PID = "tilelang995_ez9999_no_pid_older_cann_chip1_torchnpu_pid6228_device0.log"
CHIP_REAL = "tilelang995_torchnpu_maskedselect_507015_ez9999_pid_prefix_chip1_core37_cut.log"


def test_a_report_without_pid_is_the_one_process_on_its_device() -> None:
    for ev in (_load(CHIP_NO_PID), _load(CHIP_REAL, HELDOUT)):
        assert _kinds(ev) == [("npu_runtime_error", 1), ("npu_device_exception", 6)]
        runtime, core = ev.failures
        assert (runtime["pid"], runtime["device"]) == (6228, 0)
        assert (core["pid"], core["device"], core["code"]) == (6228, 0, "EZ9999")
        assert core["exception_type"].endswith("(the report's chip 1)")
        level, outcome = heldout.imported(ev)
        assert level == "NOT READY"
        assert "Device 1" not in str(outcome.findings)


_REPORT = (
    "EZ9999: 2024-12-09-17:28:22.114.456  The error from device(chipId:{chip}, dieId:0), serial "
    "number is 12, there is an exception of aivec error, core id is 3, error code = 0, dump info: "
    "pc start: 0x12c0414007d4.[FUNC:PrintCoreInfo][FILE:device_error_core_proc.cc][LINE:347]\n"
)


def _torch_npu(pid: int, device: int) -> str:
    return (
        "[E510 16:29:39.567695551 compiler_depend.ts:444] NPU function error: call aclnnAdd "
        "failed, error code is 507015\n"
        f"[ERROR] 2026-05-10-16:29:39 (PID:{pid}, Device:{device}, RankID:-1) ERR00100 PTA call "
        "acl api failed\n"
        "EZ9999: Inner Error!\n"
    )


def _core(ev: EvidenceFacts) -> dict:
    (core,) = [f for f in ev.failures if f["kind"] == "npu_device_exception"]
    return core


def test_a_pidless_report_is_mapped_only_where_one_process_is_named(tmp_path: Path) -> None:
    # one process, another device and chip (ASCEND_RT_VISIBLE_DEVICES=4,5: device 1 is chip 5),
    # torch_npu's advice between its lines and the report (as in the real file)
    advice = (
        "[Error]: The aicore execution is abnormal. \n"
        "        Rectify the fault based on the error information in the ascend log.\n"
    )
    core = _core(_write(tmp_path, _torch_npu(71, 1) + advice + _REPORT.format(chip=5)))
    assert (core["device"], core["pid"]) == (1, 71)
    assert core["exception_type"].endswith("(the report's chip 5)")
    # two processes named: the log's one process is not there to take it (the older reading,
    # the torch_npu block just above the report, is left as it was)
    core = _core(_write(tmp_path, _torch_npu(71, 1) + _torch_npu(72, 0) + _REPORT.format(chip=5)))
    assert (core["device"], core["pid"]) != (1, 71)
    # no torch_npu line at all: nothing to map it to
    core = _core(_write(tmp_path, "EZ9999: Inner Error!\n" + _REPORT.format(chip=5)))
    assert (core["device"], core["pid"]) == (5, None)


# --- 9. permission checks without a path: no count of files ----------------------------------------

PERM_NO_PATH = "mindie_llm_perm_warn_no_path_owner_twice_other_group_once.log"
PERM_REAL = "gpustack3153_mindie_2.1rc2_910b2_llm_init_warn_config_permission_profiling_cut.log"


def test_pathless_checks_are_not_counted_as_files() -> None:
    ev = _load(PERM_NO_PATH)
    assert _kinds(ev) == [("file_permission_warning", 1), ("file_permission_warning", 3)]
    owner, other = ev.failures
    assert "on a file the log does not name: the owner's permission is 7" in owner["exception_type"]
    assert owner["exception_type"].endswith(
        "the same check logged 2 times (lines 1, 2): on one file or several, the log does not say"
    )
    assert "others' permission is 5" in other["exception_type"]
    assert "logged 2 times" not in other["exception_type"]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-file-permission-warning", "warning")]
    assert "file(s) whose permissions" not in str(outcome.findings)
    # the set-638 file it was built from (the path given) reads as before
    real = _load(PERM_REAL, HELDOUT)
    assert _kinds(real) == [("file_permission_warning", 3)]
    assert " on /var/lib/gpustack/cache/" in real.failures[0]["exception_type"]


def test_named_files_are_still_one_a_file(tmp_path: Path) -> None:
    line = (
        "[2025-11-05 20:32:25.735] [34] [2814] [llm] [WARN] [file_utils.cpp:98] Check Owner "
        "permission for file {path} failed. Current permission is 7, but required no greater "
        "than 6.\n"
    )
    ev = _write(tmp_path, line.format(path="/m/a.json") * 2 + line.format(path="/m/b.json"))
    assert [f["line"] for f in ev.failures] == [1, 3]
    assert all("logged" not in f["exception_type"].split("WARN")[-1] for f in ev.failures)
    # the same pathless check with another permission is another check
    bare = (
        "[2025-11-05 20:32:25.735] [34] [2814] [llm] [WARN] [file_utils.cpp:98] Check Owner "
        "permission failed: Current permission is {cur}, but required no greater than 6.\n"
    )
    ev = _write(
        tmp_path, bare.format(cur=7) + bare.format(cur=7) + bare.format(cur=7) + bare.format(cur=8)
    )
    assert _kinds(ev) == [("file_permission_warning", 1), ("file_permission_warning", 4)]
    assert "logged 3 times (lines 1, 2, 3)" in ev.failures[0]["exception_type"]
