"""Review 55 of round JJJJ (sets 643-648), faults 2, 4 and 5: a GPT-NeoX/DeepSpeed log whose
pipeline engine's loss turned NaN read READY with "no error"; CANN 8.0.RC3 said to be outside
driver 23.0.7's compatible_version though the package's own compatible_version names the
driver's release; NCCL's AF_UNIX address said to come from ungrouped ncclSend/ncclRecv in a log
that shows no point-to-point call: each on its input (tests/data/review55, described in
tests/data/SOURCES.md), beside the real file it was built from."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review55"
HELDOUT = DATA / "evidence_heldout_70"

_write = partial(heldout.load_copy, name="copy.log")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


def _diverged(ev: EvidenceFacts) -> list[tuple[int, str]]:
    return [(f["line"], f["exception_type"]) for f in ev.failures if f["kind"] == "loss_diverged"]


# --- 2. DeepSpeed's pipeline engine: a loss that turned NaN is a divergence ----------------------

NEOX = "gpt_neox_deepspeed_2node_16gpu_mosaic_training_started_timers_healthy_mosaicgptneox_cut.log"
NEOX_NAN = "gpt_neox_deepspeed_pipe_step30_loss_nan_only_progress_line_no_error.log"
NEOX_TO_NAN = "gpt_neox_deepspeed_pipe_loss_10_7_and_10_2_then_nan_at_steps_50_60.log"


def test_a_pipeline_loss_nan_from_its_only_step_is_a_divergence_not_no_error() -> None:
    ev = _load(NEOX_NAN)
    assert _diverged(ev) == [
        (
            7,
            "the loss is NaN from the first step logged, step 30: no step logged had a finite loss",
        )
    ]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-loss-diverged", "warning")]
    (note,) = [m for m in heldout.said(ev) if "pipeline engine" in m]
    assert "loss nan" in note and "the loss is not a number from line 7 on" in note
    assert "no error" not in note
    # (read by the engine's lines: no "first error line read as written" note of an unknown log)
    assert not any("first error line is read as written" in m for m in heldout.said(ev))


def test_a_pipeline_loss_that_turned_nan_at_step_50_is_said_at_its_first_nan_line() -> None:
    ev = _load(NEOX_TO_NAN)
    assert _diverged(ev) == [
        (9, "the loss turned NaN at step 50, after 2 step(s) with a finite loss (the last 10.2210)")
    ]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-loss-diverged")
    assert item.endswith(f"{NEOX_TO_NAN}, line 9)")
    (note,) = [m for m in heldout.said(ev) if "pipeline engine" in m]
    assert note.startswith("log: DeepSpeed's pipeline engine at step 60: loss nan")


def test_the_real_healthy_gpt_neox_log_still_reads_ready_with_no_error() -> None:
    ev = _load(NEOX, HELDOUT)
    assert _diverged(ev) == []
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    (note,) = [m for m in heldout.said(ev) if "pipeline engine" in m]
    assert "step 30: loss 10.7133" in note and note.endswith("; no error")


def _progress(losses: list[str]) -> str:
    return "".join(
        f"steps: {10 * (i + 1)} loss: {loss} iter time (s): 0.283 samples/sec: 226.457\n"
        for i, loss in enumerate(losses)
    )


def test_progress_lines_alone_turning_to_minus_inf_diverge(tmp_path: Path) -> None:
    # (agg_train_loss formatted with ":0.4f": a float's "-inf" where it overflowed negative)
    ev = _write(tmp_path, _progress(["10.9000", "10.8000", "-inf", "-inf"]))
    assert _diverged(ev) == [
        (
            3,
            "the loss turned infinite at step 30, after 2 step(s) with a finite loss (the last "
            "10.8000)",
        )
    ]
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


def test_a_nan_the_run_went_on_past_is_no_divergence(tmp_path: Path) -> None:
    # one NaN step, then finite losses again (a loss scaler's skipped step): it trained on
    ev = _write(tmp_path, _progress(["10.9000", "nan", "10.7000", "10.6000"]))
    assert _diverged(ev) == []
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    assert any(m.endswith("; no error") for m in heldout.said(ev) if "pipeline engine" in m)


# --- 4. CANN's own compatible_version names the driver's release -------------------------------

ASCEND_AFTER = (
    "npu_env_check_hccn_tool_23.0.7_roce_err_pkts_dev5_dev6_link_down_dev0_dev3_mindcluster_"
    "worker0_after.txt"
)
ASCEND_AFTER_COPY = (
    "npu_env_check_driver_23.0.7_c15_nnae_8.0.rc3_c19_own_list_c13_to_c19_names_driver_after.txt"
)
TORCH_SAID = (
    "torch-npu 2.1.0.post8.dev20241009 (line 51) is built for PyTorch 2.1.0, but torch 1.11.0 "
    "is installed (line 47)"
)


def _stack(ev: EvidenceFacts) -> list[str]:
    return [m["said"] for m in ev.package_stack]


def test_a_cann_package_whose_own_list_names_the_driver_is_no_mismatch() -> None:
    # nnae 8.0.RC3 (C19, line 39) lists [V100R001C13,V100R001C19] (line 40): driver 23.0.7's
    # V100R001C15 (line 13) is in it; only the torch pair stays
    for ev in (_load(ASCEND_AFTER_COPY), _load(ASCEND_AFTER, HELDOUT)):
        assert _stack(ev) == [TORCH_SAID]
        level, outcome = heldout.imported(ev)
        assert level == "NOT READY"  # (NPU 0 and NPU 3 down: unchanged)
        (item,) = heldout.items(outcome, "evidence-ascend-stack-mismatch")
        assert item.startswith(TORCH_SAID)


def _ascend_text() -> str:
    return (HELDOUT / ASCEND_AFTER).read_text()


def test_neither_list_naming_the_other_is_said_of_both_sides(tmp_path: Path) -> None:
    text = _ascend_text().replace(
        "compatible_version=[V100R001C13,V100R001C19],[V100R001C30]",
        "compatible_version=[V100R001C16,V100R001C19],[V100R001C30]",
    )
    ev = heldout.load_copy(tmp_path, text, "npu_info.txt")
    assert _stack(ev) == [
        "CANN 8.0.RC3 (V100R001C19SPC001B137, line 39) is not among driver 23.0.7's "
        "compatible_version (V100R001C29, V100R001C30, V100R001C13, V100R001C15, line 14), nor "
        "is the driver's V100R001C15 among the package's own compatible_version (V100R001C16 to "
        "V100R001C19, V100R001C30, line 40)",
        TORCH_SAID,
    ]


def test_a_package_with_no_list_of_its_own_is_read_by_the_drivers_list(tmp_path: Path) -> None:
    # no compatible_version in nnae's record: the driver's list is all there is, said as before
    text = _ascend_text().replace(
        "compatible_version=[V100R001C13,V100R001C19],[V100R001C30]\n", ""
    )
    ev = heldout.load_copy(tmp_path, text, "npu_info.txt")
    assert _stack(ev) == [
        "CANN 8.0.RC3 (V100R001C19SPC001B137, line 39) is not among driver 23.0.7's "
        "compatible_version (V100R001C29, V100R001C30, V100R001C13, V100R001C15, line 14)",
        # (the torch pair one line up: the package's record is a line shorter)
        TORCH_SAID.replace("line 51", "line 50").replace("line 47", "line 46"),
    ]


def test_a_single_entry_naming_the_driver_is_enough(tmp_path: Path) -> None:
    text = _ascend_text().replace(
        "compatible_version=[V100R001C13,V100R001C19],[V100R001C30]",
        "compatible_version=[V100R001C15],[V100R001C18],[V100R001C19]",
    )
    assert _stack(heldout.load_copy(tmp_path, text, "npu_info.txt")) == [TORCH_SAID]


# --- 5. NCCL's AF_UNIX address: the send/recv cause only where the log shows one ----------------

AF_UNIX_REAL = "nccl_2_29_2_socket_only_ungrouped_sendrecv_internal_error_af_unix_nccl2057.log"
AF_UNIX_ALLREDUCE = (
    "nccl_2_29_2_socket_only_allreduce_collective_channel_af_unix_internal_error_no_sendrecv.log"
)


def _af_unix_said(ev: EvidenceFacts) -> str:
    (warn,) = ev.failures
    assert warn["kind"] == "nccl_warning" and warn["line"] == 46
    said = warn["exception_type"]
    assert "local Unix-domain address (family 1, AF_UNIX; line 46)" in said
    assert "NCCL versions" not in said
    return str(said)


def test_an_allreduce_log_is_not_told_to_group_its_sends_and_receives() -> None:
    ev = _load(AF_UNIX_ALLREDUCE)
    said = _af_unix_said(ev)
    assert "ncclGroupStart" not in said
    assert "the one known trigger (NCCL issue 2057)" in said
    assert "this log shows no point-to-point call" in said
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-nccl-warning", "critical")]


def test_the_real_send_recv_log_keeps_its_grouping_advice() -> None:
    # its channel line is a point-to-point connection's ("Channel 01/1 ... via
    # NET/Socket/0/Shared", line 44: set up with no graph)
    said = _af_unix_said(_load(AF_UNIX_REAL, HELDOUT))
    assert "the log shows point-to-point calls (line 44)" in said
    assert "ncclGroupStart and ncclGroupEnd" in said


def test_a_program_naming_ncclsend_keeps_the_advice_too(tmp_path: Path) -> None:
    text = (REVIEW / AF_UNIX_ALLREDUCE).read_text()
    assert "/Shared" not in text
    text = text.replace(
        "NCCL error a.cu:46: internal error", "NCCL error a.cu:46 (ncclSend): internal error"
    )
    said = _af_unix_said(_write(tmp_path, text))
    assert "the log shows point-to-point calls (line 55)" in said
    assert "ncclGroupStart and ncclGroupEnd" in said
