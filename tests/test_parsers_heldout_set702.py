"""Outputs of round SSSS's held-out evaluation (set 702, framework logs on NVIDIA clusters) that
the advisor read wrong or in part before this change (tests/data/evidence_heldout_79, sources in
tests/data/SOURCES.md): one m4 training-progress line (``iteration:  4875/500000   0% | elapsed
time: 19:29:30 | per_token_loss: 3.3900 | ...``, m4's Trainer._log_training print) was not known
as a log at all; and Megatron-LM's dataset builder stopping on ``assert num_samples > 0`` (a
split asked for samples it has none of: the job's settings) was a critical NOT READY, where the
cluster is not what failed: it is now a warning of the job's data check, READY WITH WARNINGS."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_79"

M4 = "m4_deepspeed_0.6.7_iteration_4875_after_19h_healthy_m4logs_nw04_cut.log"
MEGATRON = "megatron_lm_pretrain_gpt_num_samples_assertion_awsome_megatron_k8s_cut.log"

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


# --- m4's training progress line ------------------------------------------------------------


def test_one_m4_progress_line_is_a_healthy_log_with_its_figures() -> None:
    ev = _load(M4)
    assert ev.files[0].status == "read" and ev.files[0].formats == ["log"]
    assert ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    assert _said(ev) == [
        (
            1,
            "log: m4's training progress: iteration 4875 of 500000, 19:29:30 elapsed, "
            "per_token_loss 3.3900 (line 1); no error",
        )
    ]


def test_newer_m4_lines_with_their_time_are_read_to_the_last(tmp_path: Path) -> None:
    line = _text(M4)
    later = line.replace("4875/500000", "4900/500000").replace("19:29:30", "19:35:02")
    text = f"[2023-05-01 10:00:00] {line}[2023-05-01 10:05:32] {later}"
    ev = _write(tmp_path, text)
    assert ev.failures == [] and ev.files[0].formats == ["log"]
    assert heldout.imported(ev)[0] == "READY"
    assert _said(ev) == [
        (
            1,
            "log: m4's training progress: iteration 4900 of 500000, 19:35:02 elapsed, "
            "per_token_loss 3.3900 (2 progress lines, the last on line 2); no error",
        )
    ]


def test_an_m4_loss_that_turned_nan_to_the_end_is_the_jobs_divergence(tmp_path: Path) -> None:
    line = _text(M4)
    nan = line.replace("4875/500000", "4900/500000").replace("3.3900", "nan")
    ev = _write(tmp_path, line + nan)
    (diverged,) = ev.failures
    assert (diverged["kind"], diverged["line"]) == ("loss_diverged", 2)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-loss-diverged", "warning")]


def test_prose_naming_an_iteration_is_still_no_log(tmp_path: Path) -> None:
    ev = _write(tmp_path, "iteration: the run reached 4875/500000 | elapsed time: long\n")
    assert ev.files[0].status == "unknown"


# --- Megatron's dataset builder's num_samples assertion ----------------------------------


def test_megatrons_num_samples_assertion_is_the_jobs_data_check_not_the_cluster() -> None:
    ev = _load(MEGATRON)
    (check,) = ev.failures
    assert (check["kind"], check["exception_type"], check["line"]) == (
        "job_data_check", "AssertionError", 26,
    )  # fmt: skip
    assert check["message"] == "AssertionError: (no message; raised by: assert num_samples > 0)"
    assert check["call"] == "megatron/core/datasets/megatron_dataset.py:42, __init__"
    assert (check["rank"], check["host"], check["device"]) == (None, None, None)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-job-data-check", "warning")]
    (item,) = heldout.items(outcome, "evidence-job-data-check")
    assert item.startswith(
        "AssertionError: (no message; raised by: assert num_samples > 0) (in "
        "megatron/core/datasets/megatron_dataset.py:42, __init__)"
    )
    assert item.endswith(f"{MEGATRON}, line 26)")


def test_an_older_megatron_data_valueerror_on_a_tagged_rank_is_the_same(tmp_path: Path) -> None:
    text = (
        "[rank3]: Traceback (most recent call last):\n"
        '[rank3]:   File "/opt/Megatron-DeepSpeed/pretrain_gpt.py", line 230, in <module>\n'
        "[rank3]:     pretrain(train_valid_test_datasets_provider, model_provider)\n"
        '[rank3]:   File "/opt/Megatron-DeepSpeed/megatron/data/gpt_dataset.py", line 51, in '
        "build_train_valid_test_datasets\n"
        "[rank3]:     raise ValueError('no data prefix given')\n"
        "[rank3]: ValueError: no data prefix given\n"
    )
    ev = _write(tmp_path, text)
    (check,) = ev.failures
    assert (check["kind"], check["line"], check["rank"]) == ("job_data_check", 6, 3)
    assert check["call"] == "megatron/data/gpt_dataset.py:51, build_train_valid_test_datasets"
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


def test_a_cuda_error_in_the_dataset_builder_stays_a_critical_exception(tmp_path: Path) -> None:
    text = _text(MEGATRON).replace(
        "    assert num_samples > 0\nAssertionError\n",
        "    torch.cuda.synchronize()\nRuntimeError: CUDA error: an illegal memory access was "
        "encountered\n",
    )
    ev = _write(tmp_path, text)
    assert "job_data_check" not in [f["kind"] for f in ev.failures]
    assert heldout.imported(ev)[0] == "NOT READY"


def test_the_same_assertion_outside_the_dataset_builder_stays_critical(tmp_path: Path) -> None:
    text = _text(MEGATRON).replace(
        "/workspace/Megatron-LM/megatron/core/datasets/megatron_dataset.py",
        "/workspace/Megatron-LM/megatron/core/pipeline_parallel/schedules.py",
    )
    ev = _write(tmp_path, text)
    (raised,) = ev.failures
    assert (raised["kind"], raised["line"]) == ("python_exception", 26)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-python-exception", "critical")]
