"""Review 53 of round HHHH (sets 631-636 and review 52's mends), faults 2, 3, 9, 10, 11 and 12:
an older serving benchmark's report in which no request succeeded; Keras' verbose=2 lines, one
an epoch; a Horovod stall that training went on past, before a shutdown an exception caused; a
vLLM engine core's whole traceback ending in a bare AssertionError; an installer's log whose
later driver run took effect at once; a worker's own CUDA crash before another rank's "remote
peer closed" after a keep-alive warning: each on its input (tests/data/review53, described in
tests/data/SOURCES.md)."""

from __future__ import annotations

from pathlib import Path

from advisor.evidence.load import load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review53"
REVIEW52 = DATA / "review52"
HELDOUT68 = DATA / "evidence_heldout_68"


# --- 2. an older serving benchmark's report: no request succeeded, no "Failed requests" row ----


def test_a_benchmark_with_no_successful_request_is_no_ready_server() -> None:
    ev = load_paths(
        [REVIEW / "bench_serving_old_no_failed_row_all_requests_failed_successful_0.log"]
    )
    (failed,) = ev.failures
    assert failed["kind"] == "log_error" and failed["line"] == 4
    assert failed["message"].startswith("Successful requests:")
    assert "no request succeeded" in failed["exception_type"]
    assert "all requests failed" in failed["exception_type"]
    assert heldout.rules_verdict(ev) != "READY"
    assert "evidence-log-error" in heldout.found(ev)


def test_a_prefixed_copy_and_the_newer_failed_row_are_said_once_each(tmp_path: Path) -> None:
    text = (
        REVIEW / "bench_serving_old_no_failed_row_all_requests_failed_successful_0.log"
    ).read_text()
    hashed = tmp_path / "hashed.log"
    hashed.write_text("".join(f"# {line}" for line in text.splitlines(keepends=True)))
    (failed,) = load_paths([hashed]).failures
    assert "no request succeeded" in failed["exception_type"]
    # (the newer report's "Failed requests:" row: its count said, not "no request" beside it)
    newer = tmp_path / "newer.log"
    newer.write_text(
        text.replace(
            "Successful requests:                     0         \n",
            "Successful requests:                     0         \n"
            "Failed requests:                         200       \n",
        )
    )
    (failed,) = load_paths([newer]).failures
    assert "200 of 200 request(s) failed" in failed["exception_type"]


def test_the_real_healthy_benchmark_still_reads_ready() -> None:
    ev = load_paths(
        [HELDOUT68 / "vllm_ascend11751_bench_serve_qwen3_vl_8b_200_of_200_ok_healthy_cut.log"]
    )
    assert ev.failures == []
    assert any("200 request(s) succeeded" in m for _, m in heldout.notes(ev))
    assert heldout.rules_verdict(ev) == "READY"


# --- 3. Keras' verbose=2: one line an epoch, under its "Epoch N/M" --------------------------


def test_keras_epoch_lines_are_said_by_their_epoch() -> None:
    ev = load_paths([REVIEW / "keras_fit_verbose2_nan_from_epoch3_no_error.log"])
    (nan,) = ev.failures
    assert (nan["kind"], nan["line"]) == ("loss_diverged", 6)
    said = nan["exception_type"]
    # (epochs 1 and 2 finite, the NaN from epoch 3 of 5: keras/callbacks.py ProgbarLogger)
    assert "the loss turned NaN at epoch 3 of 5, batch 469 of 469" in said
    assert "after 2 epoch(s) with a finite loss (the last 0.1702)" in said
    assert "after 1 step(s)" not in said and "at step 469 of 469" not in said
    (note,) = [m for _, m in heldout.notes(ev) if "a training loop's loss lines" in m]
    assert "5 epoch(s) logged, from epoch 1 of 5, batch 469 of 469 (loss 0.4213)" in note
    assert "to epoch 5 of 5, batch 469 of 469 (loss nan)" in note
    assert heldout.rules_verdict(ev) == "READY WITH WARNINGS"


def test_keras_epochs_under_an_mpirun_tag_read_alike(tmp_path: Path) -> None:
    text = (REVIEW / "keras_fit_verbose2_nan_from_epoch3_no_error.log").read_text()
    tagged = tmp_path / "tagged.log"
    tagged.write_text("".join(f"[1,0]<stdout>:{t}" for t in text.splitlines(keepends=True)))
    (nan,) = load_paths([tagged]).failures
    assert "at epoch 3 of 5, batch 469 of 469, after 2 epoch(s)" in nan["exception_type"]


def test_the_real_keras_nan_line_with_no_epoch_heading_reads_as_before() -> None:
    ev = load_paths(
        [
            HELDOUT68
            / "horovod_tf_keras_loss_nan_stall_inspector_missing_rank0_allreduce_grads_then_shutdown_mpirun_rank1_exit1.log"
        ]
    )
    (nan,) = [f for f in ev.failures if f["kind"] == "loss_diverged"]
    assert "the loss is NaN from the first step logged, step 1 of 1" in nan["exception_type"]


# --- 9. a Horovod stall that training went on past, then an OOM and the shutdown -------------


def test_a_stall_training_went_on_past_is_not_the_later_shutdowns_deadlock() -> None:
    ev = load_paths(
        [
            REVIEW
            / "horovod_tf_keras_stall_rank0_recovered_epoch2_then_oom_then_shutdown_two_causes.log"
        ]
    )
    kinds = [(f["kind"], f["line"]) for f in ev.failures]
    assert ("horovod_deadlock", 3) not in kinds
    (stall,) = [f for f in ev.failures if f["kind"] == "horovod_stall"]
    assert not stall["root_cause"]
    assert "training went on after it (line 7)" in stall["exception_type"]
    assert "Horovod then shut down" not in stall["exception_type"]
    (shutdown,) = [f for f in ev.failures if f["kind"] == "horovod_shutdown"]
    # (the exception Horovod's message points to, "before the first shutdown message")
    assert (
        "the exception before it: tensorflow.python.framework.errors_impl.ResourceExhaustedError: "
        "OOM when allocating tensor"
    ) in shutdown["exception_type"]
    assert "(line 13)" in shutdown["exception_type"]
    assert "evidence-horovod-deadlock" not in heldout.found(ev)
    assert heldout.rules_verdict(ev) == "NOT READY"


def test_the_real_stall_then_shutdown_is_still_the_deadlock() -> None:
    ev = load_paths(
        [
            HELDOUT68
            / "horovod_tf_keras_loss_nan_stall_inspector_missing_rank0_allreduce_grads_then_shutdown_mpirun_rank1_exit1.log"
        ]
    )
    (stall,) = [f for f in ev.failures if f["kind"] == "horovod_deadlock"]
    assert stall["root_cause"] and "Horovod then shut down (line 32)" in stall["exception_type"]
    assert "training went on" not in stall["exception_type"]


# --- 10. vLLM's engine core: a whole traceback ending in a bare AssertionError ---------------


def test_an_engine_cores_bare_assertion_is_its_exception_not_a_cut_copy() -> None:
    ev = load_paths(
        [
            REVIEW
            / "vllm_v1_enginecore_fatal_error_whole_traceback_bare_assertionerror_scheduler.log"
        ]
    )
    assert not [f for f in ev.failures if "cut before its exception" in str(f["exception_type"])]
    (raised,) = [f for f in ev.failures if f["exception_type"] == "AssertionError"]
    assert (raised["kind"], raised["line"]) == ("python_exception", 24)
    assert (
        "AssertionError: (no message; raised by: assert (len(self.running) + "
        "len(scheduled_new_reqs) > 0))"
    ) in raised["message"]
    assert heldout.rules_verdict(ev) == "NOT READY"


def test_the_real_cut_engine_core_traceback_is_still_said_cut() -> None:
    ev = load_paths(
        [
            HELDOUT68
            / "vllm_v1_h100_nvl_mig_fp8_dump_input_scheduler_stats_21_running_enginecore_fatal_error_21466_cut.log"
        ]
    )
    (core,) = ev.failures
    assert (core["kind"], core["line"]) == ("launcher_exit", 9)
    assert "the traceback under it is cut before its exception" in core["exception_type"]


# --- 11. an installer's log: a later driver run took effect at once -------------------------


def test_a_later_driver_run_that_took_effect_supersedes_the_earlier_reboot() -> None:
    ev = load_paths(
        [
            REVIEW
            / "ascend_install_log_two_driver_runs_first_reboot_needed_later_takes_effect_immediately.log"
        ]
    )
    assert not [f for f in ev.failures if f["kind"] == "npu_package_reboot_pending"]
    (first,) = [m for n, m in heldout.notes(ev) if n == 1]
    assert (
        "its reboot superseded by the later [Driver] run's install (line 25), which took effect "
        "at once"
    ) in first
    assert any(n == 14 and "takes effect immediately" in m for n, m in heldout.notes(ev))
    assert not [m for _, m in heldout.notes(ev) if "say a reboot is pending" in m]
    assert heldout.rules_verdict(ev, "hccl") == "READY"


def test_a_later_run_that_also_waits_for_a_reboot_is_the_one_warned(tmp_path: Path) -> None:
    text = (
        REVIEW
        / "ascend_install_log_two_driver_runs_first_reboot_needed_later_takes_effect_immediately.log"
    ).read_text()
    both = tmp_path / "ascend_install.log"
    both.write_text(
        text.replace(
            "The new version takes effect immediately.",
            "Reboot needed for installation/upgrade to take effect!",
        )
    )
    ev = load_paths([both])
    (pending,) = ev.failures
    assert (pending["kind"], pending["line"]) == ("npu_package_reboot_pending", 25)
    (first,) = [m for n, m in heldout.notes(ev) if n == 1]
    assert "superseded by the later [Driver] run's install (line 25)" in first
    assert "took effect at once" not in first


def test_the_real_single_driver_run_still_waits_for_its_reboot() -> None:
    ev = load_paths(
        [HELDOUT68 / "ascend_hdk_910_npu_driver_24_1_0_install_dkms_success_reboot_needed.log"]
    )
    (pending,) = ev.failures
    assert (pending["kind"], pending["line"]) == ("npu_package_reboot_pending", 14)
    assert heldout.rules_verdict(ev, "hccl") == "READY WITH WARNINGS"


# --- 12. a keep-alive warning, a worker's own crash, then another rank's "remote peer" -------


def test_a_workers_own_crash_before_a_peers_remote_error_keeps_the_keepalive_a_note() -> None:
    ev = load_paths(
        [
            REVIEW
            / "torch_elastic_keepalive_warn_then_rank8_own_cuda_illegal_access_then_rank9_remote_peer_closed.log"
        ]
    )
    assert not [f for f in ev.failures if f["kind"] in ("rendezvous_lost", "store_lost")]
    (note,) = [m for n, m in heldout.notes(ev) if n == 1 and "keep-alive" in m]
    assert "after a worker failed on its own (line 5), not for that" in note
    (root,) = [f for f in ev.failures if f["kind"] == "elastic_failure"]
    assert root["rank"] == 8 and root["root_cause"]
    assert "RuntimeError: CUDA error: an illegal memory access" in root["message"]
    assert "evidence-rendezvous-lost" not in heldout.found(ev)
    assert heldout.rules_verdict(ev) == "NOT READY"


def test_other_ranks_and_hosts_read_alike(tmp_path: Path) -> None:
    text = (
        REVIEW
        / "torch_elastic_keepalive_warn_then_rank8_own_cuda_illegal_access_then_rank9_remote_peer_closed.log"
    ).read_text()
    other = tmp_path / "other.log"
    other.write_text(
        text.replace("[rank8]", "[rank0]")
        .replace("[rank9]", "[rank3]")
        .replace("gpu-node-2", "node-a17")
        .replace("Connection closed by remote peer", "Connection reset by peer")
    )
    ev = load_paths([other])
    assert not [f for f in ev.failures if f["kind"] in ("rendezvous_lost", "store_lost")]
    assert any(
        "after a worker failed on its own (line 5)" in m for n, m in heldout.notes(ev) if n == 1
    )


def test_review52s_worker_failing_as_its_peer_went_away_still_loses_the_rendezvous() -> None:
    ev = load_paths(
        [
            REVIEW52
            / "torch_elastic_keepalive_failed_then_worker0_distbackenderror_remote_peer_closed_childfailed.log"
        ]
    )
    (lost,) = [e for e in ev.failures if e["kind"] == "rendezvous_lost"]
    assert "its remote peer went away (line 5), the same loss" in lost["exception_type"]
