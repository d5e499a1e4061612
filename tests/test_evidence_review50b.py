"""Review 50 of round EEEE (sets 613-618 and review 49's mends), faults 1, 2, 5, 7, 8 and 9: a
loss that runs away across epochs though one epoch's first loss spikes back near the start; a
MindIE server's failed start beside another pod's successful one under `kubectl logs -l
--prefix`; a watchdog record wrapped inside the word of its rank tag; a Ray Tune experiment its
user stopped with Ctrl+C; Tune's list of incomplete trials cut before its "]"; NCCL's ring lines
over NET/Socket with their host prefixes taken off: each on its input (tests/data/review50,
described in tests/data/SOURCES.md)."""

from __future__ import annotations

import time
from pathlib import Path

from advisor.evidence.load import load_paths, load_text
from advisor.parsers import logs
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review50"
REVIEW49 = DATA / "review49"
HELDOUT67 = DATA / "evidence_heldout_67"


# --- 1. a loss running away across epochs, one epoch's first loss near the start ---------------


def test_a_runaway_whose_epoch_opens_within_2x_of_the_first_loss_is_said() -> None:
    ev = load_paths(
        [
            REVIEW
            / "pytorch_plain_print_epoch_step_reset_epoch1_first_loss_3.5_within_2x_then_runs_away_to_110.log"
        ]
    )
    (ran,) = [e for e in ev.failures if e["kind"] == "loss_diverged"]
    assert ran["line"] == 12
    assert ran["exception_type"].startswith(
        "the loss ran away: from 0.4000 at step 9 to 61.5000 at step 1 and 110.4000 at step 9, "
        "the last step logged (276 times its lowest)"
    )
    (note,) = [m for _, m in heldout.notes(ev) if "training loop" in m]
    assert "no error in them" not in note
    assert heldout.rules_verdict(ev) == "READY WITH WARNINGS"


def test_a_rerun_trains_again_from_its_start_and_the_original_still_runs_away() -> None:
    # (a rerun appended with no prompt: every loss of it back at the start-up level, its own run)
    first = "".join(f"step: {s}  loss: {v}\n" for s, v in enumerate([2.3, 1.1, 0.05, 0.01]))
    rerun = "".join(f"step: {s}  loss: {v}\n" for s, v in enumerate([2.4, 1.2, 0.6, 0.4]))
    ev = load_text(first + rerun, "train.log")
    assert not [e for e in ev.failures if e["kind"] == "loss_diverged"]
    # review 49's sample, 48.2 at epoch 1's first step: the same runaway as before
    orig = load_paths(
        [
            REVIEW49
            / "pytorch_plain_print_epoch_step_reset_each_epoch_loss_runs_away_from_epoch1.log"
        ]
    )
    (ran,) = [e for e in orig.failures if e["kind"] == "loss_diverged"]
    assert ran["line"] == 11 and "(276 times its lowest)" in ran["exception_type"]


def test_weighing_each_restarted_stretch_is_linear_in_the_rows() -> None:
    epochs = 2000
    text = "".join(
        f"epoch {e} step: {s} loss: {2.0 if s == 0 else 1.0}\n"
        for e in range(epochs)
        for s in range(20)
    )
    started = time.process_time()
    load_text(text, "train.log")
    assert time.process_time() - started < 20.0


# --- 2. MindIE under kubectl logs -l --prefix: pod 1's start is not pod 0's --------------------


def test_another_pods_successful_start_leaves_this_pods_failed_start() -> None:
    ev = load_paths([REVIEW / "mindie_kubectl_logs_prefix_pod0_start_fail_pod1_start_success.log"])
    (failed,) = [e for e in ev.failures if e["kind"] == "service_start_failure"]
    assert failed["line"] == 2
    assert "MIE04E02041C" in failed["exception_type"] and "MIE04E02011C" in failed["exception_type"]
    # (pod 1's "[success]" is pod 1's server: nothing of pod 0's went past)
    assert not [e for e in ev.failures if e["kind"] in ("gone_past", "run_success")]
    assert "evidence-run-gone-past" not in heldout.found(ev)
    assert "evidence-service-start-failed" in heldout.found(ev)
    assert heldout.rules_verdict(ev) == "NOT READY"


def test_one_pods_restart_and_pods_whose_prefixes_stay_are_told_apart() -> None:
    text = (
        REVIEW / "mindie_kubectl_logs_prefix_pod0_start_fail_pod1_start_success.log"
    ).read_text()
    # one pod's log (`kubectl logs POD`): its own later start, the failed one gone past
    one = text.replace("-l app=mindie-server ", "mindie-server-0 ").replace(
        "[pod/mindie-server-1/mindie] ", "[pod/mindie-server-0/mindie] "
    )
    ev = load_text(one, "mindie.log")
    assert not [e for e in ev.failures if e["kind"] == "service_start_failure"]
    (past,) = [e for e in ev.failures if e["kind"] == "gone_past"]
    assert past["was"] == "service_start_failure"
    # the prefixes on too few lines to be taken off: each pod its own server, by name
    lines = text.splitlines()
    mixed = "\n".join([*lines[:2], *(line.split("] ", 1)[1] for line in lines[2:4]), *lines[4:]])
    (failed,) = [
        e for e in load_text(mixed, "m.log").failures if e["kind"] == "service_start_failure"
    ]
    assert (failed["line"], failed["host"]) == (2, "mindie-server-0")
    assert not [e for e in load_text(mixed, "m.log").failures if e["kind"] == "gone_past"]


def test_the_pdsh_sample_still_reads_as_node1s_failed_start() -> None:
    ev = load_paths([REVIEW49 / "mindie_pdsh_node1_start_fail_node2_start_success.log"])
    (failed,) = [e for e in ev.failures if e["kind"] == "service_start_failure"]
    assert failed["host"] == "node1"
    assert heldout.rules_verdict(ev) == "NOT READY"


# --- 5. a watchdog record wrapped inside the word of its rank tag ------------------------------


def test_a_watchdog_record_wrapped_inside_rank_names_rank_1() -> None:
    ev = load_paths(
        [REVIEW / "nemo-fastconformer-tqdm-watchdog-wrapped_inside_Rank_word_Ra_nk_1.log"]
    )
    (timeout,) = [f for f in ev.failures if f["kind"] == "watchdog_timeout"]
    assert (timeout["rank"], timeout["seq"], timeout["line"]) == (1, 1363596, 1)
    (item,) = heldout.found(ev)["evidence-watchdog-timeout"].items
    assert item.startswith("Rank 1: broadcast (SeqNum 1363596, 5158880 elements)")
    assert "does not name" not in item
    assert heldout.rules_verdict(ev) == "NOT READY"


def test_a_rank_tag_wrapped_at_any_column_reads_alike(tmp_path: Path) -> None:
    record = (
        "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE, "
        "NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600123 milliseconds before timing out.\n"
    )
    tag = "[PG 0 Rank 13] "
    for cut in range(1, len(tag) - 1):
        head, tail = tag[:cut], tag[cut:]
        text = f"[rank13]:[E ProcessGroupNCCL.cpp:563] {head}\n{tail.lstrip()}{record}"
        (timeout,) = [
            f for f in load_text(text, "w.log").failures if f["kind"] == "watchdog_timeout"
        ]
        assert (timeout["rank"], timeout["line"]) == (13, 1), (head, tail)
    # (two pieces that make no rank tag are not joined: "[I init] [Ra" / "nge 5] ...")
    plain = load_text("[I init] [Ra\nnge 5] " + record, "w.log")
    assert [f["rank"] for f in plain.failures if f["kind"] == "watchdog_timeout"] == [None]


def test_the_set_618_sample_still_names_rank_1() -> None:
    ev = load_paths([HELDOUT67 / "nemo-fastconformer-tqdm-wrapped-watchdog-broadcast-timeout.log"])
    (timeout,) = [f for f in ev.failures if f["kind"] == "watchdog_timeout"]
    assert timeout["rank"] == 1


# --- 7. a Ray Tune experiment its user stopped (Ctrl+C) ----------------------------------------


def test_a_tune_experiment_stopped_by_its_user_is_no_failed_trial() -> None:
    ev = load_paths(
        [REVIEW / "ray_tune_ctrl_c_interrupted_two_pending_trials_did_not_complete_state_saved.log"]
    )
    assert not [e for e in ev.failures if e["kind"] == "trial_failed"]
    assert "evidence-trial-failed" not in heldout.found(ev)
    (note,) = [m for _, m in heldout.notes(ev) if "stopped by its user" in m]
    assert "(SIGINT, Ctrl+C; line 10) with 2 trial(s) not finished" in note
    assert "LightningTrainer_42993_00000, LightningTrainer_42993_00001" in note
    assert heldout.rules_verdict(ev) == "READY"


def test_a_stopped_experiment_with_a_trial_that_failed_still_fails() -> None:
    text = (HELDOUT67 / "ray-tune-torchtrainer-trial-failed-table.log").read_text()
    text += (
        "2022-11-15 19:26:37,001\tWARNING tune.py:1152 -- Experiment has been interrupted, but "
        "the most recent state was saved.\n"
    )
    (trial,) = [e for e in load_text(text, "tune.log").failures if e["kind"] == "trial_failed"]
    assert "TorchTrainer_96bfe_00000 failed 1 time(s)" in trial["exception_type"]


# --- 8. Tune's list of incomplete trials cut before its "]" ------------------------------------


def test_a_cut_list_of_incomplete_trials_still_reads_the_failed_trial() -> None:
    ev = load_paths(
        [REVIEW / "ray_tune_trial_failed_table_then_trials_did_not_complete_list_cut_mid_name.log"]
    )
    assert ev.files[0].formats == ["log"]
    (trial,) = ev.failures
    assert (trial["kind"], trial["line"]) == ("trial_failed", 6)
    assert trial["exception_type"].startswith(
        "at least 2 trial(s) did not complete (TorchTrainer_96bfe_00000, TorchTrainer_96bfe_00001, "
        "... (the list cut in the copy)); TorchTrainer_96bfe_00000 failed 1 time(s), its traceback "
        "in /home/ray/ray_results/"
    )
    # (the name cut inside, "TorchTrainer_96bfe_0", is no trial)
    assert "TorchTrainer_96bfe_0," not in trial["exception_type"]
    assert heldout.rules_verdict(ev) == "NOT READY"


def test_the_set_618_tune_sample_still_reads_its_one_trial() -> None:
    ev = load_paths([HELDOUT67 / "ray-tune-torchtrainer-trial-failed-table.log"])
    (trial,) = ev.failures
    assert trial["exception_type"].startswith(
        "1 trial(s) did not complete (TorchTrainer_96bfe_00000)"
    )
    assert heldout.rules_verdict(ev) == "NOT READY"


def test_a_long_cut_list_reads_in_linear_time() -> None:
    text = "ERROR tune.py:773 -- Trials did not complete: [" + "t_00000, " * 200000 + "\n"
    started = time.process_time()
    (trial,) = logs.parse(text).events
    assert time.process_time() - started < 5.0
    assert "(the list cut in the copy)" in (trial.exception_type or "")


# --- 9. NCCL's ring lines over NET/Socket without host prefixes ---------------------------------


def test_prefix_less_ring_lines_over_net_socket_warn_as_the_prefixed_ones() -> None:
    bare = load_paths(
        [
            REVIEW
            / "nccl_2020_ring00_numbered_no_host_prefix_16gpu_2node_cross_node_via_net_socket.log"
        ]
    )
    (sock,) = [e for e in bare.failures if e["kind"] == "nccl_socket_network"]
    assert (sock["line"], sock["host"]) == (8, None)
    assert sock["exception_type"].startswith("NCCL sets its channels up over TCP sockets")
    (item,) = heldout.found(bare)["evidence-nccl-socket-network"].items
    assert item.startswith("hosts the log does not name: NCCL sets its channels up over TCP")
    assert heldout.rules_verdict(bare) == "READY WITH WARNINGS"
    control = load_paths(
        [
            REVIEW
            / "nccl_2020_ring00_host_prefixed_16gpu_2node_cross_node_via_net_socket_control.log"
        ]
    )
    hosts = [e["host"] for e in control.failures if e["kind"] == "nccl_socket_network"]
    assert hosts == ["node01", "node02"]
    assert heldout.rules_verdict(control) == "READY WITH WARNINGS"


def test_prefix_less_net_socket_with_shm_turned_off_is_no_crossing() -> None:
    text = (
        "NCCL INFO NCCL_SHM_DISABLE set by environment to 1.\n"
        "NCCL INFO Channel 00/0 : 0[1b000] -> 1[1c000] via NET/Socket/0\n"
        "NCCL INFO Channel 01/0 : 1[1c000] -> 0[1b000] via NET/Socket/0\n"
    )
    ev = load_text(text, "nccl.log")
    assert not [e for e in ev.failures if e["kind"] == "nccl_socket_network"]


def test_the_set_617_ib_sample_still_reads_healthy() -> None:
    ev = load_paths(
        [
            HELDOUT67
            / "nccl_2020_ring00_numbered_lines_no_host_prefix_16gpu_2node_ib_gdrdma_question.log"
        ]
    )
    assert ev.failures == []
    assert heldout.rules_verdict(ev) == "READY"
