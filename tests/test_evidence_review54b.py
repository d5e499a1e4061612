"""Review 54 of round IIII (sets 637-642) and review 53's mends, faults 3, 6, 7 and 8: Megatron-
LM's iteration line behind its own time stamp with a NaN gradient norm; Keras' verbose=2 epoch
lines with no "Epoch N/M" heading; the exception Horovod's shutdown points to, in the finding's
item; NeMo's NaN train loss beside a checkpoint whose validation loss is finite: each on its
input (tests/data/review54 and the review 53 and set 642 files they name, described in
tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review54"
REVIEW53 = DATA / "review53"
HELDOUT69 = DATA / "evidence_heldout_69"

_write = partial(heldout.load_copy, name="copy.log")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


def _diverged(ev: EvidenceFacts) -> dict[str, object]:
    (nan,) = [f for f in ev.failures if f["kind"] == "loss_diverged"]
    return nan


# --- 3. Megatron-LM's iteration line begins with its time stamp --------------------------------

TIMESTAMPED = "megatron_lm_training_log_timestamped_iter6_7_grad_norm_nan_no_lm_loss.log"
TIMESTAMPED_AFTER_LOSS = (
    "megatron_lm_training_log_timestamped_iter5_lm_loss_then_iter6_7_grad_norm_nan.log"
)
WRAPPED = (
    "megatron_bridge_dsv4pro_fp8mx_gb300_wrapped_iter5_grad_norm_nan_nan_iters_0_mb5306_cut.log"
)


def test_megatrons_own_time_stamped_line_with_a_nan_grad_norm_is_a_divergence() -> None:
    ev = _load(TIMESTAMPED)
    nan = _diverged(ev)
    assert nan["line"] == 1
    said = str(nan["exception_type"])
    assert "the gradient norm is nan at iteration 6 of 50 and on 1 more iteration line" in said
    assert "iteration 6 took 21313.4 ms" in said
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-loss-diverged", "warning")]


def test_a_finite_time_stamped_iteration_then_nan_grad_norms_diverged_at_the_first() -> None:
    ev = _load(TIMESTAMPED_AFTER_LOSS)
    nan = _diverged(ev)
    assert nan["line"] == 2
    assert "at iteration 6 of 50" in str(nan["exception_type"])
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


def test_the_time_stamp_with_microseconds_and_a_rank_tag_read_alike(tmp_path: Path) -> None:
    text = (REVIEW / TIMESTAMPED).read_text()
    # (newer Megatron-LM: "%Y-%m-%d %H:%M:%S.%f"; torchrun's --tee tag before it)
    tagged = "".join(
        f"[default0]: [2024-05-01 10:00:2{n}.123456] " + line.split("] ", 1)[1]
        for n, line in enumerate(text.splitlines(keepends=True))
    )
    assert "iteration 6 of 50" in str(_diverged(_write(tmp_path, tagged))["exception_type"])


def test_time_stamped_finite_grad_norms_are_no_divergence(tmp_path: Path) -> None:
    text = (REVIEW / TIMESTAMPED).read_text().replace("grad norm: nan", "grad norm: 0.512")
    ev = _write(tmp_path, text)
    assert not [f for f in ev.failures if f["kind"] == "loss_diverged"]


def test_a_word_ending_in_iteration_is_not_megatrons_line(tmp_path: Path) -> None:
    text = (REVIEW / TIMESTAMPED).read_text().replace("] iteration ", "] eval_iteration ")
    ev = _write(tmp_path, text)
    assert not [f for f in ev.failures if f["kind"] == "loss_diverged"]


def test_the_wrapped_set642_copy_still_reads_as_before() -> None:
    nan = _diverged(_load(WRAPPED, HELDOUT69))
    assert nan["line"] == 1
    assert "the gradient norm is nan at iteration 5 of 50" in str(nan["exception_type"])


# --- 6. Keras' verbose=2 epoch lines with no "Epoch N/M" heading -------------------------------

KERAS_HEADLESS = "keras_fit_verbose2_five_epoch_lines_no_epoch_headings_nan_from_third.log"


def test_headless_verbose2_lines_are_five_epochs_not_one_step_printed_again() -> None:
    ev = _load(KERAS_HEADLESS)
    nan = _diverged(ev)
    assert nan["line"] == 3
    said = str(nan["exception_type"])
    assert "the loss turned NaN at the 3rd of 5 epoch lines logged (batch 469 of 469)" in said
    assert "after 2 epoch(s) with a finite loss (the last 0.1702)" in said
    (note,) = [m for _, m in heldout.notes(ev) if "loss lines" in m]
    assert "5 epoch(s) logged" in note
    assert "several processes" not in note
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


def test_keras3_headless_lines_metrics_first_read_alike(tmp_path: Path) -> None:
    text = (
        "469/469 - 3s - 6ms/step - accuracy: 0.8801 - loss: 0.4213\n"
        "469/469 - 2s - 4ms/step - accuracy: 0.9499 - loss: 0.1702\n"
        "469/469 - 2s - 4ms/step - accuracy: 0.0987 - loss: nan\n"
        "469/469 - 2s - 4ms/step - accuracy: 0.0987 - loss: nan\n"
    )
    ev = _write(tmp_path, text)
    said = str(_diverged(ev)["exception_type"])
    assert "the 3rd of 4 epoch lines logged" in said and "after 2 epoch(s)" in said
    assert not [m for _, m in heldout.notes(ev) if "several processes" in m]


def test_verbose1_final_bars_printed_again_are_still_one_step(tmp_path: Path) -> None:
    # (verbose=1's line has its bar after the count: not verbose=2's epoch line)
    row = "469/469 [==============================] - 2s 4ms/step - loss: {}\n"
    ev = _write(tmp_path, row.format("0.1702") + row.format("nan") + row.format("nan"))
    assert [m for _, m in heldout.notes(ev) if "several processes" in m]


def test_the_headed_review53_copy_still_reads_by_its_epochs() -> None:
    ev = _load("keras_fit_verbose2_nan_from_epoch3_no_error.log", REVIEW53)
    said = str(_diverged(ev)["exception_type"])
    assert "the loss turned NaN at epoch 3 of 5, batch 469 of 469, after 2 epoch(s)" in said


def test_a_single_headless_line_is_still_its_step(tmp_path: Path) -> None:
    ev = _write(tmp_path, "1/1 - 3s - loss: nan\n")
    said = str(_diverged(ev)["exception_type"])
    assert "the loss is NaN from the first step logged, step 1 of 1" in said


# --- 7. Horovod's shutdown: the exception before it in the finding's item ----------------------

HOROVOD = "horovod_tf_keras_stall_rank0_recovered_epoch2_then_oom_then_shutdown_two_causes.log"


def test_the_shutdowns_item_names_the_oom_before_it() -> None:
    ev = _load(HOROVOD, REVIEW53)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-horovod-shutdown")
    assert "Horovod has been shut down" in item and "line 32)" in item
    assert (
        "; the exception before it, which that message points to: tensorflow.python.framework."
        "errors_impl.ResourceExhaustedError: OOM when allocating tensor"
    ) in item
    assert item.endswith("(line 13)")


def test_a_shutdown_with_no_exception_above_it_has_the_item_as_before(tmp_path: Path) -> None:
    text = (REVIEW53 / HOROVOD).read_text().splitlines(keepends=True)
    # (lines 10-14, the OOM's traceback, left out: no exception above the shutdown)
    ev = _write(tmp_path, "".join(text[:9] + text[14:]))
    (item,) = heldout.items(heldout.imported(ev)[1], "evidence-horovod-shutdown")
    assert "Horovod has been shut down" in item
    assert "the exception before it" not in item


def test_another_exception_before_the_shutdown_is_named_instead(tmp_path: Path) -> None:
    text = (
        (REVIEW53 / HOROVOD)
        .read_text()
        .replace(
            "tensorflow.python.framework.errors_impl.ResourceExhaustedError:  OOM when allocating "
            "tensor",
            "ValueError:  input shape mismatch for tensor",
        )
    )
    ev = _write(tmp_path, text)
    (item,) = heldout.items(heldout.imported(ev)[1], "evidence-horovod-shutdown")
    assert "the exception before it, which that message points to: ValueError:" in item
    assert "OOM" not in item


# --- 8. NeMo's NaN train loss, the checkpoint's validation loss finite -------------------------

NEMO = (
    "nemo_megatron_gpt7b_ptl_bar_step9000_reduced_train_loss_nan_val_loss_7.04_checkpoint_"
    "nemo7957.log"
)


def test_a_checkpoint_whose_val_loss_is_finite_is_not_called_a_diverged_state() -> None:
    ev = _load(NEMO, HELDOUT69)
    said = str(_diverged(ev)["exception_type"])
    assert "the loss is NaN from the first step logged, step 9000 of 301500" in said
    assert "saved a checkpoint after it, at global step 9000 (val_loss 7.04238, line 2)" in said
    assert "its validation loss is finite at that step" in said
    assert "resumes that state" not in said and "diverged run" not in said
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-loss-diverged"]
    assert "every step after it trained nothing" not in finding.message
    assert "the validation loss of a checkpoint saved after it is finite" in finding.message


def test_a_checkpoint_whose_val_loss_is_nan_is_still_the_diverged_state(tmp_path: Path) -> None:
    text = (HELDOUT69 / NEMO).read_text().replace("reached 7.04238", "reached nan")
    ev = _write(tmp_path, text)
    said = str(_diverged(ev)["exception_type"])
    assert "it was taken from the diverged run, and a restart from it resumes that state" in said
    (finding,) = [
        f for f in heldout.imported(ev)[1].findings if f.rule_id == "evidence-loss-diverged"
    ]
    assert "every step after it trained nothing" in finding.message


def test_a_checkpoint_on_a_train_metric_or_accuracy_proves_nothing(tmp_path: Path) -> None:
    base = (HELDOUT69 / NEMO).read_text()
    for monitor in ("reduced_train_loss", "val_acc"):
        ev = _write(tmp_path, base.replace("'val_loss' reached", f"'{monitor}' reached"))
        said = str(_diverged(ev)["exception_type"])
        assert "resumes that state" in said, monitor
        assert "validation loss is finite" not in said, monitor
