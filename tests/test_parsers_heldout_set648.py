"""Outputs of round JJJJ's held-out evaluation (set 648, framework logs on NVIDIA clusters) that
the advisor read in part or not at all before this change (tests/data/evidence_heldout_70,
sources in tests/data/SOURCES.md): DeepSpeed's launcher under Determined with pdsh, whose return
code 247 was read as "signal 119" and whose two nodes' failures were counted as 4 ranks; a NeMo-RL
log where rank 31 dumped on rank 107's time-out signal before rank 97's own time-out, read as
rank 97 failing first; and a healthy GPT-NeoX/DeepSpeed log (timers, skipped steps, the pipeline
engine's progress line) read as nothing at all."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_70"

DETERMINED = (
    "deepspeed_determined_pdsh_2node_zero3_offload_exit247_ckpt_save_cifar10offload_cut.log"
)
NEMO_RL = (
    "nemo_rl_megatron_policy_worker_ray_dump_signal_from_rank107_coalesced_timeout_rank97_"
    "nemorl2140_cut.log"
)
NEOX = "gpt_neox_deepspeed_2node_16gpu_mosaic_training_started_timers_healthy_mosaicgptneox_cut.log"


_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


# --- DeepSpeed's launcher under Determined: exit 247 on two pdsh nodes ------------------------


def test_deepspeed_exit_247_is_no_signal_and_two_nodes_not_four_ranks() -> None:
    ev = _load(DETERMINED)
    exits = [f for f in ev.failures if f["kind"] == "launcher_exit"]
    # the launcher's record of each node, pdsh's line of the same node and code folded into it
    assert [(f["line"], f["host"], f["exit_code"]) for f in exits] == [
        (5, "172.31.42.141", 247),
        (6, "172.31.36.1", 247),
    ]
    assert [f["repeated_lines"] for f in exits] == [[8], [7]]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert dict(heldout.above_info(outcome))["evidence-launcher-exit"] == "critical"
    message, items = heldout.finding(outcome, "evidence-launcher-exit")
    assert message.startswith("2 node(s) whose launcher exited non-zero")
    assert "rank(s)" not in message
    assert "signal 119" not in " ".join(items)
    assert "on 172.31.42.141 exited with 247 (not a shell's 128 + a signal" in items[0]
    assert "as a byte it is -9" in items[0] and "line 5)" in items[0]
    assert "pdsh's ssh to the node exited with the same code (line(s) 8)" in items[0]
    assert "on 172.31.36.1 exited with 247" in items[1] and "(line(s) 7)" in items[1]
    # the log gives no cause: no NCCL or GPU finding is made up
    assert not any(
        r.startswith(("evidence-nccl", "evidence-gpu")) for r, _ in heldout.above_info(outcome)
    )


def test_deepspeed_pdsh_exit_on_another_node_and_code(tmp_path: Path) -> None:
    # a node named, not addressed, behind no Determined tag, exiting with a shell's 128 + 9
    text = (
        "gpu-node-07: [INFO] [launch.py:178:sigkill_handler] Killing subprocess 4711\n"
        "gpu-node-07: [ERROR] [launch.py:184:sigkill_handler] ['python3', '-u', 'train.py', "
        "'--local_rank=3'] exits with return code = 137\n"
        "pdsh@gpu-node-01: gpu-node-07: ssh exited with exit code 137\n"
    )
    ev = _write(tmp_path, text)
    (exit_,) = [f for f in ev.failures if f["kind"] == "launcher_exit"]
    assert (exit_["line"], exit_["host"], exit_["exit_code"]) == (2, "gpu-node-07", 137)
    _, items = heldout.finding(heldout.imported(ev)[1], "evidence-launcher-exit")
    assert "exited with 137 (signal 9)" in items[0]
    assert "line(s) 3" in items[0]


def test_pdsh_exit_of_another_code_or_node_stays_its_own(tmp_path: Path) -> None:
    text = _text(DETERMINED).replace(
        "172.31.42.141: ssh exited with exit code 247", "172.31.42.141: ssh exited with exit code 1"
    )
    ev = _write(tmp_path, text)
    exits = [
        (f["line"], f["host"], f["exit_code"]) for f in ev.failures if f["kind"] == "launcher_exit"
    ]
    assert (8, "172.31.42.141", 1) in exits and len(exits) == 3
    # 255 (exit(-1), ssh's own error) is said as no signal at all
    ev = _write(tmp_path, _text(DETERMINED).replace("code = 247", "code = 255"))
    _, items = heldout.finding(heldout.imported(ev)[1], "evidence-launcher-exit")
    ds_255 = [i for i in items if "exited with 255" in i]
    assert len(ds_255) == 2
    assert not any("exited with 255 (signal" in i or "as a byte" in i for i in ds_255)


# --- NeMo-RL: rank 107's time-out signal before rank 97's own time-out ------------------------


def test_a_time_out_signal_received_first_names_its_sender_first() -> None:
    ev = _load(NEMO_RL)
    (tl,) = ev.timelines
    assert tl.first_rank == 107 and tl.signalled_first == 107
    assert tl.consequences == [31]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    _, items = heldout.finding(outcome, "evidence-failure-order")
    assert items[0].startswith("rank 107 failed first: rank 31 received its collective time-out")
    assert "line 1), 0.451 s before rank 97's own failure (watchdog timeout, line 3)" in items[0]
    assert "rank 107's own log is not among the files" in items[0]
    assert "rank 97 failed first" not in items[0]
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-failure-order"]
    assert "Start with rank 107" in " ".join(str(r) for r in finding.recommendations)
    # the time-out itself is still rank 97's
    _, timeouts = heldout.finding(outcome, "evidence-watchdog-timeout")
    assert timeouts[0].startswith("Rank 97: coalesced (SeqNum 1, 0 elements) ran 651421 ms")


def test_a_signal_from_another_rank_names_that_rank(tmp_path: Path) -> None:
    text = _text(NEMO_RL).replace("from  rank 107", "from  rank 12")
    _, outcome = heldout.imported(_write(tmp_path, text))
    _, items = heldout.finding(outcome, "evidence-failure-order")
    assert items[0].startswith("rank 12 failed first")


def test_an_own_time_out_before_the_signal_stays_first(tmp_path: Path) -> None:
    # rank 97's time-out stamped before rank 31 received the signal: rank 97 is first
    text = _text(NEMO_RL).replace("05:14:22.969036376", "05:14:22.100000000")
    ev = _write(tmp_path, text)
    (tl,) = ev.timelines
    assert tl.first_rank == 97 and tl.signalled_first is None
    _, items = heldout.finding(heldout.imported(ev)[1], "evidence-failure-order")
    assert items[0].startswith("rank 97")


# --- GPT-NeoX on DeepSpeed: a healthy run's timers and progress ------------------------------


def test_a_healthy_gpt_neox_log_is_read_ready_with_its_figures() -> None:
    ev = _load(NEOX)
    assert ev.files[0].formats == ["log"]
    assert not [f for f in ev.failures if f["kind"] not in ("fp16_overflow",)]
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    (note,) = [m for m in heldout.said(ev) if "pipeline engine" in m]
    assert "step 30: loss 10.7133, 0.283 s an iteration, 226.457 samples/s (line 7)" in note
    assert "skipped 20 of 30 steps" in note and "(line 6)" in note
    assert "comms 126.14 ms (line 5)" in note and "forward 519.08 ms" in note


def test_gpt_neox_progress_lines_alone_are_a_log_and_an_error_after_them_is_read(
    tmp_path: Path,
) -> None:
    progress = "".join(
        f"steps: {n} loss: {10.9 - n / 100:.4f} iter time (s): 0.283 samples/sec: 226.457\n"
        for n in (10, 20, 30)
    )
    ev = _write(tmp_path, progress)
    level, _ = heldout.imported(ev)
    assert level == "READY"
    assert any("step 30: loss 10.6000" in m for m in heldout.said(ev))
    # a failing twin: the error after the progress is the run's failure
    ev = _write(tmp_path, progress + "RuntimeError: CUDA error: an illegal memory access\n")
    assert heldout.imported(ev)[0] == "NOT READY"


def test_gpt_neox_with_most_steps_skipped_past_100_still_warns(tmp_path: Path) -> None:
    text = _text(NEOX).replace("step=30, skipped=20", "step=300, skipped=200")
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "READY WITH WARNINGS"
    assert any("fp16" in r or "overflow" in r for r, _ in heldout.above_info(outcome))
