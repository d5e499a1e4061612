"""Review 70 (part a) of round XXXX (sets 728, 729 and 731), faults 1 to 6: bash's job-signal line
behind pdsh's bare "host: "; an AISBench log of two tasks, the second's requests failed; a CPU
fallback warning above a torch_npu code that is not ERR01007; nvidia-smi's handle error under a
host's prompt after a failed ``docker run``; bash's job lines read in one pass over a soak
script's log; SW Power Cap at 87 % of the limit at full utilisation: each on its input
(tests/data/review70, described in tests/data/SOURCES.md)."""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import logs
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review70"
HELDOUT = DATA / "evidence_heldout_84"

_write = partial(heldout.load_copy, name="copy.log")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


# --- 1. bash's job-signal line behind pdsh's "host: " ---------------------------------------------

SEGV_PDSH = "mocknccl_shell_segfault_zh_pdsh_host_prefix.log"
SEGV_REAL = "mocknccl_2_20_5_simai_64_mock_ranks_init_channels_then_shell_segfault_core_dumped_zh_simai146_cut.log"


def _launcher_items(ev: EvidenceFacts) -> tuple[str, list[str]]:
    level, outcome = heldout.imported(ev)
    return level, heldout.items(outcome, "evidence-launcher-exit")


def test_a_bash_segfault_behind_pdsh_host_is_read_with_its_host() -> None:
    level, (item,) = _launcher_items(_load(SEGV_PDSH))
    assert level == "NOT READY"
    assert "a process on inspur-gpu-server-15 exited with -11 (signal 11)" in item
    assert "process 2563676 (inspur-gpu-server-15, the NCCL process of line(s) 1-6)" in item
    assert "core dumped" in item and "line 7)" in item
    # the real file it was built from reads as before
    level, (item,) = _launcher_items(_load(SEGV_REAL, HELDOUT))
    assert level == "NOT READY"
    assert "process 2563676 (inspur-gpu-server-15, the NCCL process of line(s) 1-6)" in item


def test_pdsh_host_names_the_node_where_no_nccl_line_does(tmp_path: Path) -> None:
    # an English line behind another node's prefix, no NCCL line of its pid: a crash signal still
    # read, on pdsh's node
    ev = _write(tmp_path, "node-b2: job.sh: line 4: 777 Aborted (core dumped) ./train\n")
    level, (item,) = _launcher_items(ev)
    assert level == "NOT READY"
    assert "a process on node-b2 exited with -6 (signal 6)" in item
    # a bare "word: " before something that is not bash's job line stays unread
    ev = _write(tmp_path, "node-b2: job.sh: started 777 Aborted jobs\n")
    assert not [f for f in ev.failures if f.get("kind") == "launcher_exit"]


# --- 2. every AISBench task's report ----------------------------------------------------------

AIS_TWO = "ais_bench_two_tasks_second_3_of_8_failed.txt"
AIS_REAL = "ais_bench_vllm_ascend_hunyuan_a13b_gsm8k_perf_8_requests_0_failed_healthy_cut.txt"


def test_a_later_aisbench_tasks_failed_requests_are_read() -> None:
    ev = _load(AIS_TWO)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-log-error")
    assert "line 73)" in item and "3 of 8 request(s) failed" in item
    reports = [m for _, m in heldout.notes(ev) if "AISBench's performance report" in m]
    assert len(reports) == 2
    assert "demo_gsm8k_1, line 48): 8 request(s) sent, 3 failed, 5 succeeded" in reports[1]
    # the real file it was built from: one task, none failed, READY
    real = _load(AIS_REAL, HELDOUT)
    assert heldout.imported(real)[0] == "READY"
    assert [m for _, m in heldout.notes(real) if "8 request(s) sent, 0 failed" in m]


def test_aisbench_first_task_failed_second_clean(tmp_path: Path) -> None:
    text = (REVIEW / AIS_TWO).read_text(encoding="utf-8").splitlines(keepends=True)
    # swap the two tasks: the failed one first, the clean one second
    swapped = "".join(text[47:] + (["\n"] if not text[-1].strip() else []) + text[:47])
    ev = _write(tmp_path, swapped)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-log-error")
    assert "3 of 8 request(s) failed" in item
    assert len([m for _, m in heldout.notes(ev) if "AISBench's performance report" in m]) == 2


# --- 3. the CPU-fallback wording only under ERR01007 ---------------------------------------------

ERR00100 = "torch_npu_err00100_acl_sync_after_cpu_fallback.log"
ERR02002 = "torch_npu_err02002_dist_after_cpu_fallback.log"
ERR01007_REAL = "torch_npu_err01007_linalg_lstsq_cpu_fallback_copy_same_size_not_cluster.log"


def _npu_item(ev: EvidenceFacts) -> str:
    (item,) = heldout.items(heldout.imported(ev)[1], "evidence-torch-npu-error")
    return item


def test_a_cpu_fallback_is_not_the_cause_of_another_code() -> None:
    item = _npu_item(_load(ERR00100))
    assert (
        "PTA call acl api failed: the exception above it (line 5): RuntimeError: ACL stream" in item
    )
    assert "on the CPU" not in item and "not the cluster" not in item
    item = _npu_item(_load(ERR02002))
    assert "RuntimeError: Tensors must be contiguous" in item
    assert "on the CPU" not in item and "not the cluster" not in item
    # the real ERR01007 file keeps its operator and its words
    item = _npu_item(_load(ERR01007_REAL, HELDOUT))
    assert "torch_npu ran aten::linalg_lstsq.out (line 1) on the CPU (no NPU kernel)" in item
    assert "not the cluster" in item


def test_err01007_under_an_ops_fallback_keeps_the_operator(tmp_path: Path) -> None:
    # the ERR00100 variant with its code made ERR01007: the operator is named again
    text = (REVIEW / ERR00100).read_text(encoding="utf-8")
    ev = _write(
        tmp_path,
        text.replace("ERR00100 PTA call acl api failed", "ERR01007 OPS feature not supported"),
    )
    assert "torch_npu ran aten::_unique2 (line 1) on the CPU" in _npu_item(ev)
    # another OPS code (ERR01002, OPS invalid type) is not the operator-support one
    ev = _write(
        tmp_path, text.replace("ERR00100 PTA call acl api failed", "ERR01002 OPS invalid type")
    )
    assert "on the CPU" not in _npu_item(ev)


# --- 4. the prompt that ran nvidia-smi decides host or container ---------------------------------

SMI_HOST = "nvidia_smi_handle_unknown_error_host_prompt_after_failed_docker_run.txt"
SMI_CONTAINER_REAL = (
    "nvidia_smi_in_container_unable_to_determine_device_handle_gpu_0000_03_00_0_unknown_error_"
    "bethgelab_docker1.txt"
)


def _fault_item(ev: EvidenceFacts) -> str:
    (item,) = heldout.items(heldout.imported(ev)[1], "evidence-gpu-driver-fault")
    return item


def test_a_host_prompt_after_a_docker_run_is_the_host_reading() -> None:
    item = _fault_item(_load(SMI_HOST))
    assert item.startswith("gpu-node-07: nvidia-smi could not reach GPU 0000:03:00.0")
    assert "(the GPU is lost to the driver until it is reset)" in item
    assert "inside a container" not in item
    # the real file it was built from (nvidia-smi in a container): both readings, as before
    real = _fault_item(_load(SMI_CONTAINER_REAL, HELDOUT))
    assert "device was not passed into the container" in real or "not passed in" in real


def test_docker_exec_nearest_above_is_the_container_reading(tmp_path: Path) -> None:
    text = (REVIEW / SMI_HOST).read_text(encoding="utf-8")
    # the same nvidia-smi run by docker exec from the host's prompt: the container's reading
    ev = _write(
        tmp_path,
        text.replace(
            "[root@gpu-node-07 ~]# nvidia-smi\n",
            "[root@gpu-node-07 ~]# docker exec -it trainer nvidia-smi\n",
        ),
    )
    assert "device was not passed into the container" in _fault_item(ev)
    # a container's shell prompt first, then the host's own prompt: the host reading
    ev = _write(
        tmp_path,
        "root@3f4e8a9b2c1d:/# exit\n" + text.split("\n", 3)[3],
    )
    assert "(the GPU is lost to the driver until it is reset)" in _fault_item(ev)


# --- 5. bash's job lines in one pass ---------------------------------------------------------------

SEGV_LOOP = "bash_segv_loop_1000_runs_nccl_info_then_segfault.log"


def _loop(runs: int) -> list[tuple[int, str, int | None]]:
    text = "".join(
        f"inspur-gpu-server-15:{pid}:{pid + 2} [0] NCCL INFO 8 coll channels, 0 collnet channels\n"
        f"run.sh: line 11: {pid} Segmentation fault      (core dumped) ./MultiDevOneP core{n}\n"
        for n, pid in enumerate(range(2_000_000, 2_000_000 + 7 * runs, 7))
    )
    return [(no, line, None) for no, line in enumerate(text.splitlines(), 1)]


def _best_of_three(lines: list[tuple[int, str, int | None]]) -> float:
    best = float("inf")
    for _ in range(3):
        report = logs.LogReport()
        start = time.perf_counter()
        logs._launcher_exits(lines, report)
        best = min(best, time.perf_counter() - start)
    return best


def test_bash_job_lines_are_read_in_linear_time() -> None:
    small, large = _loop(500), _loop(4000)
    report = logs.LogReport()
    logs._launcher_exits(large, report)
    assert len(report.events) == 4000
    assert (
        "(inspur-gpu-server-15, the NCCL process of line(s) 7999-7999)" in report.events[-1].message
    )
    # 8x the lines: well under 8x squared (64x) the time, a linear reading (allowing for noise)
    ratio = _best_of_three(large) / _best_of_three(small)
    assert ratio < 24, ratio


def test_the_soak_log_ties_each_run_to_its_own_pid() -> None:
    ev = _load(SEGV_LOOP)
    level, items = _launcher_items(ev)
    assert level == "NOT READY"
    said = " ".join(items)
    assert "process 2563676 (inspur-gpu-server-15, the NCCL process of line(s) 1-1)" in said
    assert "process 2563683 (inspur-gpu-server-15, the NCCL process of line(s) 3-3)" in said


# --- 6. SW Power Cap near the limit at full utilisation ----------------------------------------

CAP_BUSY = "nvidia_smi_q_h100_sw_power_cap_612w_of_700w_util100.txt"
CAP_REAL = (
    "nvidia_smi_q_535_183_01_8x_h100_sxm_fabric_completed_pcie_replays_58_120_gpu75_hw_power_"
    "brake_sw_power_cap_sw_thermal_active_gpud.txt"
)


def _cap_note(ev: EvidenceFacts) -> str:
    (note,) = [m for _, m in heldout.notes(ev) if "SW Power Cap in force" in m]
    return note


def test_a_busy_gpu_near_its_limit_is_the_power_limit_at_work() -> None:
    note = _cap_note(_load(CAP_BUSY))
    assert (
        "the GPU draws 612.34 W of its 700 W limit (lines 580-581) at 100 % utilisation (line "
        "518): the driver holds the clocks below those asked" in note
    )
    assert "far under" not in note
    # the real record (118 W at 0 %, clocks at max) keeps "far under its limit"
    real = _cap_note(_load(CAP_REAL, HELDOUT))
    assert "far under its limit, the record does not show why the flag is set" in real


def test_a_middle_draw_is_said_without_a_claim(tmp_path: Path) -> None:
    text = (REVIEW / CAP_BUSY).read_text(encoding="utf-8")
    # 450 W (64 %) at full utilisation: neither at the limit nor far under it
    note = _cap_note(_write(tmp_path, text.replace("612.34 W", "450.00 W"), name="q.txt"))
    assert "450 W of its 700 W limit" in note
    assert "far under" not in note and "holds the clocks" not in note
    assert "said, not judged" in note
    # 612 W at 40 % utilisation: not the busy case, not far under either
    idle = text.replace("612.34 W", "612.00 W").replace(
        "        Gpu                               : 100 %",
        "        Gpu                               : 40 %",
    )
    note = _cap_note(_write(tmp_path, idle, name="q.txt"))
    assert "holds the clocks" not in note and "far under" not in note
