"""Outputs of round WWWW's held-out evaluation (set 726, framework logs on NVIDIA clusters) that
the advisor read wrong or in part before this change (tests/data/evidence_heldout_83, sources in
tests/data/SOURCES.md): the end of an MLPerf NeMo result log, MLLOG records, Slurm's
slurmstepd NVML line and UCC's teardown warnings with no NCCL line beside them, was no format
the advisor knew; and a two-rank Slurm job whose ranks each raised their own ValueError was read
as rank 1's alone."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_83"

MLLOG = "nemo_mlperf_v41_llama2_lora_lambda_2node_success_slurmstepd_nvml_ucc_warn_cut.log"
PIPELINE = (
    "slurm_pipeline_inference_openllama_2node_rank0_rank1_valueerror_no_device_set"
    "_llama_pipeline4205_cut.log"
)

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


# --- an MLPerf result log's end: MLLOG records alone, slurmstepd and UCC around them ---------


def test_an_mllog_result_end_is_read_as_the_runs_success_with_its_figures() -> None:
    ev = _load(MLLOG)
    assert ev.files[0].formats == ["log"] and ev.files[0].status == "read"
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    (said,) = heldout.items(outcome, "evidence-run-success")
    assert said.startswith('MLPerf\'s run_stop, status "success" (/workspace/ft-llm/')
    assert said.endswith("line 5)")
    notes = dict(heldout.notes(ev))
    assert "eval_accuracy 0.9238 (line 3)" in notes[5]
    assert "slurmstepd's GPU accounting" in notes[26] and "not the job's failure" in notes[26]
    assert (
        "on calvin-training-node-013, calvin-training-node-014 (lines 39-86, 48 line(s))"
        in notes[39]
    )
    assert "after the run's run_stop" in notes[39]
    assert "RESULT LLM_FINETUNING 1701 s" in notes[88]
    assert not [f for f in ev.failures if f["kind"] not in ("run_success",)]


def test_other_nodes_and_no_slurmstepd_line_are_said_as_they_are(tmp_path: Path) -> None:
    text = (
        _text(MLLOG)
        .replace("calvin-training-node-013", "gpu-a17")
        .replace("calvin-training-node-014", "gpu-b03")
        .replace(" 0: slurmstepd: error: NVML: Failed to get Compute running procs(7): "
                 "Insufficient Size\n", "")
        .replace(",,1701,", ",,2250,")
    )  # fmt: skip
    ev = _write(tmp_path, text)
    assert heldout.imported(ev)[0] == "READY"
    notes = heldout.notes(ev)
    assert not [n for _, n in notes if "slurmstepd" in n]
    (ucc,) = [(no, n) for no, n in notes if "UCC" in n]
    assert ucc[0] == 38 and "on gpu-a17, gpu-b03 (lines 38-85," in ucc[1]
    assert [n for _, n in notes if "RESULT LLM_FINETUNING 2250 s" in n]


def test_an_aborted_run_stop_is_not_said_to_be_a_success(tmp_path: Path) -> None:
    ev = _write(tmp_path, _text(MLLOG).replace('"status": "success"', '"status": "aborted"'))
    assert not [f for f in ev.failures if f["kind"] == "run_success"]
    assert not [n for _, n in heldout.notes(ev) if "ended in success" in n]
    # the run's own word that it stopped without success: a warning naming its run_stop line
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-run-aborted")
    # (review 69b fault 5: the status gives no cause, and no error line of the run is above it)
    assert item.startswith('MLPerf\'s run_stop, status "aborted", and no error line of the run')
    assert item.endswith("line 5)")


def test_an_aborted_trial_followed_by_a_successful_one_is_the_success(tmp_path: Path) -> None:
    lines = _text(MLLOG).splitlines(keepends=True)
    aborted = lines[4].replace('"status": "success"', '"status": "aborted"')
    # an earlier trial's aborted end, then the next trial's run_start (the same record's form)
    start = lines[4].replace('"key": "run_stop"', '"key": "run_start"')
    ev = _write(tmp_path, "".join([aborted, start, *lines]))
    _, outcome = heldout.imported(ev)
    assert not [f for f in outcome.findings if f.rule_id == "evidence-run-aborted"]
    assert [f for f in ev.failures if f["kind"] == "run_success"]


def test_ucc_lines_before_run_stop_are_not_called_its_teardown(tmp_path: Path) -> None:
    lines = _text(MLLOG).splitlines(keepends=True)
    # the UCC lines moved above the records: printed before the run said it ended
    text = "".join(lines[38:86] + lines[:38] + lines[86:])
    ev = _write(tmp_path, text)
    (ucc,) = [(no, n) for no, n in heldout.notes(ev) if "UCC" in n]
    assert ucc[0] == 1 and "after the run's run_stop" not in ucc[1]


# --- several ranks' own tracebacks: each rank's exception named --------------------------------


def test_each_ranks_own_exception_is_named() -> None:
    ev = _load(PIPELINE)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-python-exception", "critical")]
    message, (item,) = heldout.finding(outcome, "evidence-python-exception")
    assert "nothing in the log names a communication error" in message
    assert item.startswith(
        "Rank 1: ValueError: model.layers.0.self_attn.q_proj.weight doesn't have any device set."
    )
    assert (
        "(rank 0 raised its own at line 60: ValueError: model.embed_tokens.weight doesn't have "
        "any device set.)" in item
    )
    assert item.endswith("line 44)")


def test_other_ranks_are_named_by_their_own_tags(tmp_path: Path) -> None:
    text = _text(PIPELINE).replace("[rank1]:", "[rank7]:").replace("[rank0]:", "[rank6]:")
    _, outcome = heldout.imported(_write(tmp_path, text))
    (item,) = heldout.items(outcome, "evidence-python-exception")
    assert item.startswith("Rank 7: ValueError: model.layers.0.")
    assert "(rank 6 raised its own at line 60: ValueError: model.embed_tokens.weight" in item


def test_one_ranks_traceback_alone_names_no_other(tmp_path: Path) -> None:
    text = "".join(_text(PIPELINE).splitlines(keepends=True)[:44])
    _, outcome = heldout.imported(_write(tmp_path, text))
    (item,) = heldout.items(outcome, "evidence-python-exception")
    assert item.startswith("Rank 1: ValueError: model.layers.0.")
    assert "raised its own" not in item
