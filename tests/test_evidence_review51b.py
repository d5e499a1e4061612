"""Review 51 of round FFFF (sets 619-624 and review 50's mends), faults 1, 2, 3, 10 and 11: a Ray
Tune trial in ERROR before its user's Ctrl+C; a run stopped by its user before another run that
raised TuneError; one experiment's list cut in the logger's line and whole in the TuneError; a
torch elastic keep-alive warning before a worker's own CUDA OOM; a vLLM worker's AssertionError
traceback above the engine core's "Worker failed with error ''": each on its input
(tests/data/review51, described in tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor.evidence.load import load_paths, load_text
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review51"
REVIEW50 = DATA / "review50"
HELDOUT67 = DATA / "evidence_heldout_67"


# --- 1. a trial in ERROR in Tune's table, then the user's Ctrl+C --------------------------------


def test_a_trial_in_error_before_the_users_stop_is_a_failed_trial() -> None:
    ev = load_paths([REVIEW / "ray_tune_ctrl_c_status_table_trial00000_ERROR_then_interrupted.log"])
    (failed,) = [e for e in ev.failures if e["kind"] == "trial_failed"]
    assert failed["line"] == 11
    assert (
        "LightningTrainer_42993_00000 is in ERROR in Tune's trial table (line 5)"
        in failed["exception_type"]
    )
    assert "then the user stopped the run (SIGINT, Ctrl+C; line 10)" in failed["exception_type"]
    assert not [m for _, m in heldout.notes(ev) if "none failed in the copy" in m]
    assert heldout.rules_verdict(ev) == "NOT READY"


def test_review50s_stopped_run_with_its_trials_pending_is_still_a_note() -> None:
    ev = load_paths(
        [
            REVIEW50
            / "ray_tune_ctrl_c_interrupted_two_pending_trials_did_not_complete_state_saved.log"
        ]
    )
    assert not [e for e in ev.failures if e["kind"] == "trial_failed"]
    assert [m for _, m in heldout.notes(ev) if "stopped by its user" in m]


# --- 2. a run stopped by its user, then another that raised TuneError ---------------------------


def test_a_later_run_that_raised_tune_error_is_not_the_earlier_runs_stop() -> None:
    ev = load_paths(
        [
            REVIEW
            / "ray_tune_two_runs_first_ctrl_c_interrupted_second_TuneError_trials_did_not_complete.log"
        ]
    )
    (failed,) = [e for e in ev.failures if e["kind"] == "trial_failed"]
    assert failed["line"] == 17
    assert failed["exception_type"].startswith(
        "2 trial(s) did not complete (LightningTrainer_7a1c0_00000, LightningTrainer_7a1c0_00001)"
    )
    assert "stopped" not in failed["exception_type"]
    (note,) = [(n, m) for n, m in heldout.notes(ev) if "stopped by its user" in m]
    assert note[0] == 11 and "LightningTrainer_42993_00000" in note[1]
    assert "7a1c0" not in note[1]
    assert heldout.rules_verdict(ev) == "NOT READY"


# --- 3. the logger's list cut, the TuneError's whole: one experiment ----------------------------


def test_a_cut_list_and_the_whole_one_after_it_are_one_experiment() -> None:
    ev = load_paths(
        [
            REVIEW
            / "ray_tune_trial_failed_table_error_line_cut_then_TuneError_full_list_same_experiment.log"
        ]
    )
    (failed,) = [e for e in ev.failures if e["kind"] == "trial_failed"]
    assert failed["exception_type"].startswith(
        "3 trial(s) did not complete (TorchTrainer_96bfe_00000, TorchTrainer_96bfe_00001, "
        "TorchTrainer_96bfe_00002); TorchTrainer_96bfe_00000 failed 1 time(s)"
    )
    assert "at least" not in failed["exception_type"]
    assert heldout.rules_verdict(ev) == "NOT READY"


def test_review50s_cut_list_and_the_real_table_still_read_as_before() -> None:
    ev = load_paths(
        [
            REVIEW50
            / "ray_tune_trial_failed_table_then_trials_did_not_complete_list_cut_mid_name.log"
        ]
    )
    (failed,) = [e for e in ev.failures if e["kind"] == "trial_failed"]
    assert failed["exception_type"].startswith("at least 2 trial(s) did not complete")
    real = load_paths([HELDOUT67 / "ray-tune-torchtrainer-trial-failed-table.log"])
    assert len([e for e in real.failures if e["kind"] == "trial_failed"]) == 1


# --- 10. a keep-alive warning, then a worker's own crash ----------------------------------------


def test_a_worker_crash_after_a_keepalive_warning_is_not_the_rendezvous_lost() -> None:
    ev = load_paths(
        [
            REVIEW
            / "torch_elastic_keepalive_warning_then_worker0_cuda_oom_childfailed_sigterm_to_worker1.log"
        ]
    )
    kinds = {e["kind"] for e in ev.failures}
    assert "rendezvous_lost" not in kinds and "store_lost" not in kinds
    assert [e for e in ev.failures if "torch.OutOfMemoryError" in (e["message"] or "")]
    (note,) = [m for n, m in heldout.notes(ev) if n == 1 and "keep-alive" in m]
    assert "after a worker failed on its own (line 5)" in note
    assert heldout.rules_verdict(ev) == "NOT READY"


def test_the_real_keepalive_then_sigterm_is_still_the_rendezvous_lost() -> None:
    ev = load_paths(
        [
            HELDOUT67
            / "torch_elastic_pytorch67742_quoted_gt_prefix_c10d_rdzv_keepalive_failed_RendezvousConnectionError_sigterm_cut.log"
        ]
    )
    (lost,) = [e for e in ev.failures if e["kind"] == "rendezvous_lost"]
    assert "pid 3494, SIGTERM (line 2)" in lost["exception_type"]


# --- 11. a vLLM worker's own traceback above the engine core's empty error ----------------------


def test_the_workers_own_exception_above_is_the_root_cause() -> None:
    ev = load_paths(
        [
            REVIEW
            / "vllm_worker_assertionerror_traceback_above_then_enginecore_worker_failed_with_empty_error.log"
        ]
    )
    (raised,) = [e for e in ev.failures if e["kind"] == "python_exception"]
    assert raised["line"] == 7
    assert raised["message"] == (
        "AssertionError: (no message; raised by: assert param.shape == loaded_weight.shape)"
    )
    assert not [e for e in ev.failures if "Worker failed with error" in (e["message"] or "")]
    assert heldout.rules_verdict(ev) == "NOT READY"


def test_the_real_cut_copy_still_says_its_empty_error_and_no_traceback() -> None:
    ev = load_paths(
        [
            HELDOUT67
            / "msswift6011_npu_swift_rollout_enginecore_dp0_worker_failed_with_empty_error_cut.log"
        ]
    )
    (raised,) = [e for e in ev.failures if e["kind"] == "python_exception"]
    assert (
        "its error text is empty, its stack trace above it is not in the copy"
        in (raised["exception_type"])
    )


# --- 7. MindIE under `kubectl logs -l --prefix`, its command line not in the copy --------------


def test_pod_prefixes_kept_with_no_kubectl_command_still_tell_the_servers_apart() -> None:
    # (three lines of the saver's own above the pods' lines: the prefixes stay on, under the share
    # that load takes a collector's prefix off at, and no line says "kubectl")
    text = (
        REVIEW50 / "mindie_kubectl_logs_prefix_pod0_start_fail_pod1_start_success.log"
    ).read_text()
    pods = "".join(text.splitlines(keepends=True)[1:])
    ev = load_text("# mindie servers\n# namespace infer\n# both pods\n" + pods, "mindie.log")
    (failed,) = [e for e in ev.failures if e["kind"] == "service_start_failure"]
    assert failed["host"] == "mindie-server-0"
    assert not [e for e in ev.failures if e["kind"] == "gone_past"]
    assert heldout.rules_verdict(ev) == "NOT READY"
