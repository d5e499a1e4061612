"""Review 49 of round DDDD (sets 607-612 and review 48's mends), faults 3, 4, 5, 6, 7 and 9: a
MindIE server's failed start on one node and another node's successful one under pdsh; a loss
that runs away where the step counter restarts each epoch; a diverged run with a healthy rerun
appended after it; dpkg's errors of a long apt log read in linear time; MindSpore's line relaying
the runtime's retcode 507011 on device 0; SGLang's CUDA error with no TP tag or with PP after it:
each on its input (tests/data/review49, described in tests/data/SOURCES.md)."""

from __future__ import annotations

import time

from advisor.evidence.load import load_paths, load_text
from advisor.parsers import logs
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review49"
REVIEW48 = DATA / "review48"


# --- 3. MindIE under pdsh: node2's successful start is not node1's ------------------------------


def test_another_nodes_successful_start_leaves_this_nodes_failed_start() -> None:
    ev = load_paths([REVIEW / "mindie_pdsh_node1_start_fail_node2_start_success.log"])
    (failed,) = [e for e in ev.failures if e["kind"] == "service_start_failure"]
    assert failed["line"] == 2 and failed["host"] == "node1"
    assert "MIE04E02041C" in failed["exception_type"] and "MIE04E02011C" in failed["exception_type"]
    # (node2's "[success]" is node2's server: nothing of node1's went past)
    assert not [e for e in ev.failures if e["kind"] in ("gone_past", "run_success")]
    assert "evidence-run-gone-past" not in heldout.found(ev)
    (item,) = heldout.found(ev)["evidence-service-start-failed"].items
    assert item.startswith("node1: the MindIE server did not start")
    assert heldout.rules_verdict(ev) == "NOT READY"


def test_a_restart_on_the_same_node_and_in_another_tail_file_are_told_apart() -> None:
    text = (REVIEW / "mindie_pdsh_node1_start_fail_node2_start_success.log").read_text()
    # node1's own later start that succeeded: the failed one is one it went past
    again = text.replace("node2: ", "node1: ")
    ev = load_text(again, "mindie.log")
    assert not [e for e in ev.failures if e["kind"] == "service_start_failure"]
    (past,) = [e for e in ev.failures if e["kind"] == "gone_past"]
    assert past["was"] == "service_start_failure"
    # two servers' logs under tail's "==> file <==" headers: two servers, one failed
    lines = [line.removeprefix("node1: ").removeprefix("node2: ") for line in text.splitlines()]
    two_files = "\n".join(
        [
            "==> node1/mindie-server.log <==",
            *lines[1:5],
            "",
            "==> node2/mindie-server.log <==",
            *lines[5:],
        ]
    )
    (failed,) = [
        e for e in load_text(two_files, "m.log").failures if e["kind"] == "service_start_failure"
    ]
    assert failed["line"] == 2


def test_the_restart_in_one_log_still_reads_as_a_start_gone_past() -> None:
    ev = load_paths([REVIEW48 / "mindie_listen_fail_then_restart_success.log"])
    (past,) = [e for e in ev.failures if e["kind"] == "gone_past"]
    assert past["was"] == "service_start_failure" and past["line"] == 1
    assert heldout.rules_verdict(ev) == "READY WITH WARNINGS"


# --- 4. a step counter that restarts each epoch, with no epoch field read -----------------------


def test_a_loss_running_away_across_epochs_of_a_restarting_step_count_is_said() -> None:
    ev = load_paths(
        [REVIEW / "pytorch_plain_print_epoch_step_reset_each_epoch_loss_runs_away_from_epoch1.log"]
    )
    (ran,) = [e for e in ev.failures if e["kind"] == "loss_diverged"]
    assert ran["line"] == 11
    assert ran["exception_type"].startswith(
        "the loss ran away: from 0.4000 at step 9 to 48.2000 at step 0 and 110.4000 at step 9, "
        "the last step logged (276 times its lowest)"
    )
    (note,) = [m for _, m in heldout.notes(ev) if "training loop" in m]
    # (30 steps, three epochs of 10: not "several processes print each step")
    assert "30 step(s) logged" in note and "several processes" not in note
    assert "no error in them" not in note
    assert heldout.rules_verdict(ev) == "READY WITH WARNINGS"


def test_a_restarting_tqdm_bar_and_a_rerun_after_a_prompt_are_read_apart() -> None:
    losses = [2.31, 1.5, 0.9, 0.5, 0.4, 48.2, 61.5, 73.9, 85.0, 95.7]
    bars = "".join(
        f"Epoch {i // 5 + 1}/2:  {20 * (i % 5 + 1)}%|##   | {i % 5 + 1}/5 [00:0{i % 5}<00:04,"
        f"  1.00it/s, loss={loss}]\n" * 2  # (each step's bar drawn twice)
        for i, loss in enumerate(losses)
    )
    (ran,) = [e for e in load_text(bars, "train.log").failures if e["kind"] == "loss_diverged"]
    assert "from 0.4 at step 5 of 5 to 48.2 at step 1 of 5" in ran["exception_type"]
    # a rerun the shell started again (its prompt between): its own run, from its own lowest
    first = "".join(f"step: {s}  loss: {v}\n" for s, v in enumerate([2.3, 0.9, 0.02, 0.01]))
    rerun = "".join(f"step: {s}  loss: {v}\n" for s, v in enumerate([9.8, 9.5, 9.1]))
    ev = load_text(first + "$ torchrun --nproc_per_node=8 train.py\n" + rerun, "train.log")
    assert not [e for e in ev.failures if e["kind"] == "loss_diverged"]
    # (without the prompt, 9.8 is no start-up level of 2.3: the same run, run away)
    ev = load_text(first + rerun, "train.log")
    assert [e["line"] for e in ev.failures if e["kind"] == "loss_diverged"] == [5]


def test_two_appended_runs_with_epochs_still_read_as_two_healthy_runs() -> None:
    ev = load_paths(
        [REVIEW48 / "mindspore_two_runs_appended_mnist_then_msrun_sample_loss_healthy.log"]
    )
    assert not [e for e in ev.failures if e["kind"] == "loss_diverged"]
    assert heldout.rules_verdict(ev) == "READY"
    titan = load_paths(
        [
            DATA
            / "evidence_heldout_59"
            / "torchtitan_llama3_8b_fsdp_8x_h200_100_steps_training_completed_healthy.log"
        ]
    )
    assert not [e for e in titan.failures if e["kind"] == "loss_diverged"]


# --- 5. a diverged run with a healthy rerun appended after it ---------------------------------


def test_a_diverged_run_before_a_healthy_rerun_is_a_note_not_the_last_step() -> None:
    ev = load_paths(
        [
            REVIEW
            / "mindspore_lossmonitor_two_runs_appended_first_diverged_then_rerun_lower_lr_healthy.log"
        ]
    )
    assert not [e for e in ev.failures if e["kind"] == "loss_diverged"]
    (note,) = [m for _, m in heldout.notes(ev) if "training loop" in m]
    assert "a run before the last diverged from line 7 on (the loss ran away: from 0.3" in note
    assert "133.9 at epoch 1 step 10, that run's last step" in note
    assert "the last step logged" not in note
    assert "to epoch 1 step 10 (loss 0.15)" in note and "no error in the last run" in note
    assert heldout.rules_verdict(ev) == "READY"


def test_a_rerun_that_runs_away_too_is_the_one_said() -> None:
    text = (
        REVIEW
        / "mindspore_lossmonitor_two_runs_appended_first_diverged_then_rerun_lower_lr_healthy.log"
    ).read_text()
    text += "epoch: 1 step: 11, loss is 40.5\nepoch: 1 step: 12, loss is 52.1\n"
    (ran,) = [e for e in load_text(text, "train.log").failures if e["kind"] == "loss_diverged"]
    assert ran["line"] == 21
    assert "from 0.15 at epoch 1 step 10 to 40.5" in ran["exception_type"]
    assert "52.1 at epoch 1 step 12, the last step logged" in ran["exception_type"]


# --- 6. dpkg's errors of a long apt log, in linear time --------------------------------------


APT_LOG = "apt_get_install_f_retried_40_times_100_packages_dpkg_errors_4000.log"
APT_PARSE_MAX_S = 20.0
"""Well over the log's reading in linear time (under a second's CPU), well under the 46.8 s
(113.8 s under cProfile) of the quadratic one the review timed."""


def test_four_thousand_dpkg_errors_are_read_in_linear_time() -> None:
    text = (REVIEW / APT_LOG).read_text()
    started = time.process_time()
    report = logs.parse(text)
    assert time.process_time() - started < APT_PARSE_MAX_S
    failed = [e for e in report.events if e.kind == "install_failed"]
    assert len(failed) == 4000 and failed[0].library == "dpkg"
    assert failed[0].exception_type.startswith("dpkg could not configure cuda-lib-0: ")
    assert not [w for w in report.unread if w.message.endswith(logs.DPKG_SET_UP_AGAIN)]


def test_a_package_set_up_with_no_error_after_it_is_configured_since() -> None:
    text = (
        "dpkg: error processing package cuda-lib-0 (--configure):\n"
        " dependency problems - leaving unconfigured\n"
        "dpkg: error processing package cuda-lib-1 (--configure):\n"
        " dependency problems - leaving unconfigured\n"
        "Setting up cuda-lib-1 (12.2.0-1) ...\n"
        "Setting up cuda-lib-0 (12.2.0-1) ...\n"
        "dpkg: error processing package cuda-lib-0 (--configure):\n"
        " dependency problems - leaving unconfigured\n"
        "$ echo done\n"
    )
    report = logs.parse(text)
    # cuda-lib-1 set up with no error of it after, the prompt after; cuda-lib-0's set up failed
    # again, and its second error was set up never
    assert [e.line for e in report.events if e.kind == "install_failed"] == [1, 7]
    (again,) = [w for w in report.unread if w.message.endswith(logs.DPKG_SET_UP_AGAIN)]
    assert again.line == 3 and "set up again at line 5" in again.message


def test_the_cann_configure_rerun_still_reads_as_configured_since() -> None:
    ev = load_paths(
        [REVIEW48 / "cann_toolkit_deb_postinst_error_then_dpkg_configure_rerun_install_success.txt"]
    )
    assert not [e for e in ev.failures if e["kind"] == "install_failed"]
    assert heldout.rules_verdict(ev) == "READY"


# --- 7. MindSpore's DEVICE line relaying the runtime's retcode 507011 ---------------------------


def test_mindsporess_task_fail_line_is_the_runtimes_failure_on_device_0() -> None:
    ev = load_paths(
        [REVIEW / "mindspore_run_check_ok_then_grep_ERROR_DEVICE_task_fail_retcode_507011.log"]
    )
    (err,) = ev.failures
    assert (err["kind"], err["line"], err["device"]) == ("hccl_plog_error", 3, 0)
    assert (err["code"], err["code_name"]) == ("507011", "ACL_ERROR_RT_MODEL_EXECUTE")
    assert err["exception_type"].startswith(
        "the CANN runtime failed a task on the device, retcode 507011 "
        "(ACL_ERROR_RT_MODEL_EXECUTE), as MindSpore's DEVICE log line relays it"
    )
    assert "not CANN's" not in err["exception_type"]
    found = heldout.found(ev, "hccl")["evidence-hccl-plog-error"]
    assert "1 CANN error report(s)" in found.message and "of MindSpore" not in found.message
    (note,) = [m for _, m in heldout.notes(ev) if "run_check" in m]
    assert "what failed after it is the CANN runtime's on the device" in note
    assert "what failed after it is MindSpore's" not in note
    assert heldout.rules_verdict(ev, "hccl") == "NOT READY"


def test_mindspores_relays_of_a_runtime_call_and_of_the_driver_are_theirs() -> None:
    head = "[ERROR] DEVICE(16158,fffe34f491e0,python):2023-12-29-12:03:04.156.780 "
    said = {
        "[mindspore/ccsrc/plugin/device/ascend/hal/device/ascend_stream_manager.cc:194] "
        "SyncStream] Call runtime rtStreamSynchronize error.": "the CANN runtime's "
        "rtStreamSynchronize failed, as MindSpore's DEVICE log line relays it",
        "[ascend_memory_adapter.cc:80] Initialize] halMemAlloc failed, size=1024": "the driver's "
        "device memory allocation (halMemAlloc) failed, as MindSpore's DEVICE log line relays it",
    }
    for line, words in said.items():
        (err,) = load_text(head + line + "\n", "plog.log").failures
        assert err["exception_type"] == words
    # MindSpore's operator library's own error stays MindSpore's
    own = (
        "[ERROR] KERNEL(40354,fffdd6e1f1e0,python):2023-10-13-09:30:47.546.313 "
        "[mindspore/ccsrc/kernel/oplib/op_info_utils.cc:172] LoadOpInfoJson] Get op info json "
        "suffix path failed, soc_version: Ascend310P3\n"
    )
    (err,) = load_text(own, "plog.log").failures
    assert err["exception_type"].startswith("MindSpore's KERNEL error (MindSpore's own log line")


def test_the_faqs_whole_ez9999_block_still_reads_as_the_devices_exception() -> None:
    ev = load_paths(
        [
            REVIEW
            / "mindspore_run_check_ok_then_DEVICE_task_fail_507011_EZ9999_aicore_mindspore_faq.log"
        ]
    )
    (exc,) = [e for e in ev.failures if e["kind"] == "npu_device_exception"]
    assert exc["device"] == 0 and "Aicore kernel execute failed" in exc["exception_type"]
    assert heldout.rules_verdict(ev, "hccl") == "NOT READY"


# --- 9. SGLang's CUDA error with no TP tag, or with PP after it ------------------------------


_ILLEGAL = "an illegal memory access was encountered"


def test_sglangs_cuda_error_with_no_tag_or_tp_before_pp_is_a_cuda_error() -> None:
    for name, worker in [
        (
            "sglang_tp1_no_tp_tag_scheduler_cuda_illegal_memory_access_sigquit.log",
            "SGLang's scheduler",
        ),
        ("sglang_pp2_tp0_pp1_tag_scheduler_cuda_illegal_memory_access_sigquit.log", "TP0 PP1"),
    ]:
        ev = load_paths([REVIEW / name])
        (cuda,) = ev.failures
        assert (cuda["kind"], cuda["line"], cuda["exception_type"]) == ("cuda_error", 14, _ILLEGAL)
        assert cuda["worker"] == worker and cuda["rank"] is None
        found = heldout.found(ev)
        assert "evidence-python-exception" not in found
        (item,) = found["evidence-cuda-error"].items
        assert item.startswith(f"{worker}: '{_ILLEGAL}' (")
        assert heldout.rules_verdict(ev) == "NOT READY"


def test_every_rank_sglangs_tag_names_is_the_workers() -> None:
    original = (
        DATA
        / "evidence_heldout_66"
        / "sglang_lora_tp0_scheduler_cuda_illegal_memory_access_sigquit.log"
    )
    text = original.read_text()
    (cuda,) = load_paths([original]).failures
    assert (cuda["kind"], cuda["worker"]) == ("cuda_error", "TP0")
    tagged = text.replace("22:59:28 TP0]", "22:59:28 DP1 PP1 TP0 EP0]", 1)
    (cuda,) = load_text(tagged, "sglang.log").failures
    assert (cuda["kind"], cuda["worker"]) == ("cuda_error", "DP1 PP1 TP0 EP0")
    # another program's logger line with no rank tag and not SGLang's words: the exception as read
    other = text.replace("[2025-02-21 22:59:28 TP0] Scheduler hit an exception:", "[main] oops:", 1)
    (raised,) = load_text(other, "app.log").failures
    assert (raised["kind"], raised["worker"]) == ("python_exception", None)
