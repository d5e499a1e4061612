"""Review 52 of round GGGG (sets 625-630 and review 51's mends), faults 3, 4, 5, 6, 8 and 9: a
torch elastic keep-alive failure before a worker's error that its remote peer went away; another
local rank's "Socket recv failed" before the process that ran out of memory; 8000 closed
connections to their own host; a Ray Tune run restored and stopped by its user; another rank's
line between a rank's "Last error:" and its text; two DeepSpeed runs appended, each with its
scaler's start-up search: each on its input (tests/data/review52, described in
tests/data/SOURCES.md)."""

from __future__ import annotations

import time

from advisor.evidence.load import load_paths
from advisor.parsers import logs
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review52"
REVIEW51 = DATA / "review51"
HELDOUT68 = DATA / "evidence_heldout_68"


# --- 3. a keep-alive failure, then a worker's ncclRemoteError from the node that went away -----


def test_a_worker_failing_as_its_peer_went_away_leaves_the_rendezvous_lost() -> None:
    ev = load_paths(
        [
            REVIEW
            / "torch_elastic_keepalive_failed_then_worker0_distbackenderror_remote_peer_closed_childfailed.log"
        ]
    )
    (lost,) = [e for e in ev.failures if e["kind"] == "rendezvous_lost"]
    assert lost["line"] == 1 and lost["host"] == "gpu-node-2"
    assert "its remote peer went away (line 5), the same loss" in lost["exception_type"]
    assert "pid 3494, SIGTERM (line 9)" in lost["exception_type"]
    assert not [m for _, m in heldout.notes(ev) if "failed on its own" in m]
    assert [e for e in ev.failures if e["code_name"] == "ncclRemoteError"]
    assert heldout.rules_verdict(ev) == "NOT READY"


def test_review51s_worker_oom_after_a_keepalive_warning_is_still_a_note() -> None:
    ev = load_paths(
        [
            REVIEW51
            / "torch_elastic_keepalive_warning_then_worker0_cuda_oom_childfailed_sigterm_to_worker1.log"
        ]
    )
    assert not [e for e in ev.failures if e["kind"] in ("rendezvous_lost", "store_lost")]
    (note,) = [m for n, m in heldout.notes(ev) if n == 1 and "keep-alive" in m]
    assert "after a worker failed on its own (line 5)" in note


# --- 4. another victim's "Socket recv failed" before the process that ran out of memory -------


def test_another_local_victims_proxy_warn_is_not_the_process_that_went_away() -> None:
    ev = load_paths(
        [REVIEW / "nccl1235_variant_gpu1_proxy_recv_failed_victim_before_gpu3_cuda_oom.log"]
    )
    (closed,) = [e for e in ev.failures if e["line"] == 1]
    assert (
        "that end is this host, where pid 3063028, device 3 printed its own failure at line 18 "
        "(Cuda failure 'out of memory'): likely the process that went away"
    ) in closed["exception_type"]
    assert "3063026" not in closed["exception_type"]
    assert heldout.rules_verdict(ev) == "NOT READY"


def test_the_real_nccl1235_copy_still_names_the_oom_process() -> None:
    ev = load_paths(
        [
            HELDOUT68
            / "nccl1235_narval_socket_closed_proxy_recv_failed_then_cuda_oom_calloc_p2p_cut.log"
        ]
    )
    (closed,) = [e for e in ev.failures if e["line"] == 1]
    assert "pid 3063028, device 3 printed its own failure at line 14" in closed["exception_type"]


def test_a_long_quoted_warn_is_cut_between_words_outside_its_parentheses() -> None:
    text = "Socket recv failed while polling for opId=0x56 (then 3 = ncclInternalError passed up)"
    assert logs._quote_cut(text, 60) == "Socket recv failed while polling for opId=0x56 ..."
    assert logs._quote_cut(text, len(text)) == text


# --- 5. 8000 closed connections to their own host, in linear time -----------------------------


GONE_LOG = "nccl_warn_8000_lines_connection_closed_by_own_host_alias_quadratic.log"
GONE_PARSE_MAX_S = 20.0
"""Well over the log's reading in linear time (under a second's CPU), well under the 118 s of
the quadratic one the review timed."""
LINEAR_RATIO = 9.0
"""Linear time grows ~4x from 2000 to 8000 lines, quadratic ~16x; room for a busy host between."""


def test_eight_thousand_closed_connections_to_their_own_host_are_read_in_linear_time() -> None:
    lines = (REVIEW / GONE_LOG).read_text().splitlines(keepends=True)
    took_s = []
    for count in (2000, 8000):
        started = time.process_time()
        report = logs.parse("".join(lines[:count]))
        took_s.append(time.process_time() - started)
        assert len([e for e in report.events if e.kind == "nccl_warning"]) == count
    assert took_s[1] < GONE_PARSE_MAX_S
    assert took_s[1] < LINEAR_RATIO * took_s[0] + 1.0, took_s
    # (every WARN a peer's going: none of them named as the process that went away)
    assert not [e for e in report.events if "that end is this host" in (e.exception_type or "")]


# --- 6. a Ray Tune run restored, then stopped by its user before any table --------------------


def test_a_restored_run_stopped_by_its_user_inherits_no_failure_of_the_first() -> None:
    ev = load_paths(
        [
            REVIEW
            / "ray_tune_restored_run_trial_error_then_restore_resume_errored_ctrl_c_before_any_table.log"
        ]
    )
    (failed,) = [e for e in ev.failures if e["kind"] == "trial_failed"]
    assert failed["line"] == 15
    assert "LightningTrainer_42993_00000 failed 1 time(s)" in failed["exception_type"]
    assert "the other trial(s)" not in failed["exception_type"]
    (note,) = [(n, m) for n, m in heldout.notes(ev) if "stopped by its user" in m]
    assert note[0] == 21
    assert "a restored run of the experiment reported at line 15" in note[1]
    assert "none failed again in this run" in note[1]
    assert heldout.rules_verdict(ev) == "NOT READY"


def test_review51s_two_runs_still_read_as_before() -> None:
    ev = load_paths(
        [
            REVIEW51
            / "ray_tune_two_runs_first_ctrl_c_interrupted_second_TuneError_trials_did_not_complete.log"
        ]
    )
    (failed,) = [e for e in ev.failures if e["kind"] == "trial_failed"]
    assert failed["line"] == 17
    (note,) = [m for _, m in heldout.notes(ev) if "stopped by its user" in m]
    assert "none failed in the copy" in note and "restored" not in note
    errored = load_paths(
        [REVIEW51 / "ray_tune_ctrl_c_status_table_trial00000_ERROR_then_interrupted.log"]
    )
    (failed,) = [e for e in errored.failures if e["kind"] == "trial_failed"]
    assert "is in ERROR in Tune's trial table (line 5)" in failed["exception_type"]


# --- 8. another rank's line between a rank's "Last error:" and its text -----------------------


def test_another_ranks_line_between_last_error_and_its_text_is_skipped() -> None:
    ev = load_paths(
        [
            REVIEW
            / "nccl577_variant_slurm_tags_last_error_interleaved_other_rank_line_before_its_text.log"
        ]
    )
    (failed,) = [e for e in ev.failures if e["kind"] == "nccl_call_failure"]
    assert failed["rank"] == 52 and failed["code_name"] == "ncclInternalError"
    assert failed["exception_type"] == "Error : ring 0 does not loop back to start (48 != 52)"
    assert "group.barrier" not in failed["message"]
    assert heldout.rules_verdict(ev) == "NOT READY"


def test_the_real_nccl577_copy_still_reads_no_last_error() -> None:
    ev = load_paths(
        [
            HELDOUT68
            / "nccl577_ngc2109_bert_slurm_taskprefix_ring0_not_loop_back_internal_error_barrier.log"
        ]
    )
    failed = [e for e in ev.failures if e["kind"] == "nccl_call_failure"]
    assert [(e["line"], e["rank"], e["exception_type"]) for e in failed] == [
        (10, 52, None),
        (13, 54, None),
    ]


# --- 9. two DeepSpeed runs appended, each with its scaler's start-up search -------------------


def test_two_runs_start_up_searches_are_no_steady_state() -> None:
    ev = load_paths(
        [
            REVIEW
            / "deepspeed_fp16_overflow_two_runs_appended_same_startup_falls_65536_to_8192_not_steady_state.log"
        ]
    )
    (note,) = [m for _, m in heldout.notes(ev) if "loss scaler" in m]
    assert "2 DeepSpeed runs in the log" in note
    assert "the run from line 1: 3 fp16 overflow(s)" in note
    assert "the run from line 6: 3 fp16 overflow(s)" in note
    assert note.count("the loss scale falling from 65536 to 8192") == 2
    assert "steady state" not in note and "back up" not in note
    assert heldout.rules_verdict(ev) == "READY"


def test_the_real_hysteresis_copy_still_reads_its_steady_state() -> None:
    ev = load_paths(
        [
            HELDOUT68
            / "deepspeed_fp16_overflow_hysteresis_8192_repeating_terminal_wrapped_scal_e_learndeepspeed1_cut.log"
        ]
    )
    (note,) = [m for _, m in heldout.notes(ev) if "loss scaler" in m]
    assert "the same fall, 8192 to 4096, 3 times (lines 2, 4, 6)" in note
    assert "the scaler's steady state" in note
