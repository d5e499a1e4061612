"""Outputs of round RRRR's held-out evaluation (set 692, Ascend logs) that the advisor read wrong
or in part before this change (tests/data/evidence_heldout_78, sources in tests/data/SOURCES.md):
a Ray/Megatron RL training actor's crash, Abseil's failure signal handler's "*** SIGSEGV received
at time=... ***" logged by Ray's logging.cc (folded with 7 more processes' copies) and its frames
down to ``op::internal::OpRunContextMgr::Tiling()``, was read as READY ("no line says an error");
and a vLLM-Ascend worker's EZ9999 (aclnnCausalConv1d's tiling failed) was read, but its finding
did not name the worker ``(Worker_TP7_EP7 pid=584)`` that every line's prefix names."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_78"

SIGSEGV = "fla_npu_megatron_ray_rl_train_sigsegv_op_tiling_8_ranks_fla272_cut.log"
EZ9999 = "vllm_ascend_qwen3_6_w8a8_tp7_aclnncausalconv1d_ez9999_tiling_failed_va11092_cut.log"

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


# --- absl's failure signal handler in a Ray actor's log -------------------------------------


def test_the_ray_actors_sigsegv_is_a_crash_with_its_worker_count_and_frame() -> None:
    ev = _load(SIGSEGV)
    (crash,) = [f for f in ev.failures if f["kind"] == "launcher_exit"]
    assert crash["line"] == 3
    assert crash["worker"] == "MegatronTrainRayActor" and crash["pid"] == 3848117
    assert crash["exit_code"] == -11 and crash["rank"] is None
    # (line 7, the innermost named frame by Ray's log time: lines 5-6 are later, line 1 untimed)
    assert crash["call"] == "op::internal::OpRunContextMgr::Tiling()"
    assert "SIGSEGV received on cpu 169 at 2026-08-05 07:11:08,188" in crash["message"]
    assert "7 more process(es) into it: 8 processes received it" in crash["message"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-launcher-exit", "critical")]
    (item,) = heldout.items(outcome, "evidence-launcher-exit")
    assert "MegatronTrainRayActor (pid 3848117) exited with -11 (signal 11)" in item
    assert "op::internal::OpRunContextMgr::Tiling()" in item and "line 3)" in item
    said = [m.message for f in ev.files for m in f.messages]
    assert not any("no line says an error" in m for m in said)


def test_another_actor_and_signal_unfolded_are_read_alike(tmp_path: Path) -> None:
    text = (
        _text(SIGSEGV)
        .replace("3848117", "51234")
        .replace("MegatronTrainRayActor", "RolloutRayActor")
        .replace("SIGSEGV", "SIGBUS")
    )
    text = "\n".join(line.split(" [repeated")[0] for line in text.splitlines()) + "\n"
    ev = _write(tmp_path, text)
    (crash,) = [f for f in ev.failures if f["kind"] == "launcher_exit"]
    assert (crash["worker"], crash["pid"], crash["exit_code"], crash["line"]) == (
        "RolloutRayActor",
        51234,
        -7,
        3,
    )
    assert "processes received it" not in crash["message"]  # nothing folded: one process
    assert crash["call"] == "op::internal::OpRunContextMgr::Tiling()"
    assert heldout.imported(ev)[0] == "NOT READY"


def test_another_processes_frame_is_not_taken_for_the_crashing_ones(tmp_path: Path) -> None:
    other = (
        "(MegatronTrainRayActor pid=777) [2026-08-05 07:11:08,190 E 777 777] logging.cc:501:"
        "     @     0xffd0c58c7000         64  other::Process::Frame()\n"
    )
    lines = _text(SIGSEGV).splitlines(keepends=True)
    ev = _write(tmp_path, "".join([*lines[:4], other, *lines[4:]]))
    crash = next(f for f in ev.failures if f["kind"] == "launcher_exit" and f["pid"] == 3848117)
    assert crash["call"] == "op::internal::OpRunContextMgr::Tiling()"


def test_absls_own_stderr_block_without_ray_is_read(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "*** SIGABRT received at time=1785913868 on cpu 3 ***\n"
        "PC: @     0xffcffdec261c  (unknown)  (unknown)\n"
        "    @     0xffd09432e314        144  aclnn::Runner::Launch()\n"
        "    @     0xffd0c5ded9bc         96  (anonymous namespace)::THPFunction_apply()\n",
    )
    (crash,) = [f for f in ev.failures if f["kind"] == "launcher_exit"]
    assert (crash["line"], crash["exit_code"], crash["pid"]) == (1, -6, None)
    assert crash["call"] == "aclnn::Runner::Launch()"  # the first frame under it, innermost
    assert crash["exception_type"] == "absl's failure signal handler"


def test_a_healthy_ray_actor_log_stays_ready(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "(MegatronTrainRayActor pid=3848117) [2026-08-05 07:11:08,188 I 3848117 3848117] "
        "core_worker.cc:501: Task finished [repeated 7x across cluster]\n"
        "(MegatronTrainRayActor pid=3848117) step 10 loss 0.512 [repeated 7x across cluster]\n",
    )
    assert not [f for f in ev.failures if f["kind"] == "launcher_exit"]
    assert heldout.imported(ev)[0] == "READY"


# --- vLLM-Ascend's worker prefix on a CANN error code ----------------------------------------


def test_the_ez9999_finding_names_the_worker_its_prefix_names() -> None:
    ev = _load(EZ9999)
    (error,) = [f for f in ev.failures if f["kind"] == "hccl_error"]
    assert (error["code"], error["line"], error["worker"], error["pid"]) == (
        "EZ9999",
        4,
        "Worker_TP7_EP7",
        584,
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-hccl-other-error")
    assert item.startswith("EZ9999 on Worker_TP7_EP7 (pid 584): an inner error")
    assert "CausalConv1d do tiling failed, ret is -1" in item and "line 4)" in item


def test_another_worker_is_named_and_a_healthy_twin_stays_ready(tmp_path: Path) -> None:
    text = _text(EZ9999).replace("Worker_TP7_EP7 pid=584", "Worker_TP2_EP2 pid=4242")
    ev = _write(tmp_path, text.replace("PID: 584", "PID: 4242"))
    (item,) = heldout.items(heldout.imported(ev)[1], "evidence-hccl-other-error")
    assert item.startswith("EZ9999 on Worker_TP2_EP2 (pid 4242):")
    healthy = _write(
        tmp_path,
        "(Worker_TP7_EP7 pid=584) INFO 06-22 11:12:13 [gpu_model_runner.py:2000] Model loading "
        "took 18.43 GiB memory and 41.2 seconds\n",
    )
    assert heldout.imported(healthy)[0] == "READY"


def test_a_ranked_ez9999_still_says_its_rank_not_a_worker(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "[rank3]: RuntimeError: call aclnnCausalConv1d failed, detail:EZ9999: Inner Error!\n"
        "[rank3]: EZ9999[PID: 584] 2026-06-22-11:12:13.398.186 AclNN_Inner_Error(EZ9999):  "
        "CausalConv1d do tiling failed, ret is -1.\n",
    )
    items = heldout.items(heldout.imported(ev)[1], "evidence-hccl-other-error")
    assert items and all(i.startswith("EZ9999 on rank 3") for i in items)
