"""Outputs of round XXXX's held-out evaluation (set 732, framework logs on NVIDIA clusters) that
the advisor read wrong or in part before this change (tests/data/evidence_heldout_84, sources in
tests/data/SOURCES.md): a JAX multi-process start on GKE (its coordinator connect, 4 GPUs over 2
processes, a psum's result) was no format the advisor knew; eight ranks that DALI stopped with
"Could not open file /data/train.rec: No such file or directory" were said only to have exited 1;
and an MLPerf run that said it succeeded was raised to a warning by c10d's connect retries
before its process group came up, its lines numbered past a progress bar's bare carriage returns
as str.splitlines counts them (run_stop at 1942, not the editor's 1509)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.parsers import as_editor_lines, numbered_lines
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_84"

JAX = "jax_multihost_gke_2x2_t4_kubectl_logs_hello_world_psum_ok_cut.log"
DALI = "mlperf40_oracle_mxnet_horovod_resnet_dali_train_rec_missing_8tasks_exit1_240501033912.log"
SSD = "mlperf30_dell_xe8545_4xa100_ssd_torchrun_success_c10d_socket_errno22_warnings_result0.txt"

_load = partial(heldout.load, HELDOUT)
_write = partial(heldout.load_copy, name="copy.log")


def _raw(name: str) -> str:
    """The file's text with its carriage returns (read_text's universal newlines would turn a
    bare "\\r" into a line break)."""
    return (HELDOUT / name).read_bytes().decode("utf-8")


# --- JAX's multi-process start --------------------------------------------------------------------


def test_a_jax_multi_process_start_is_read_healthy_with_its_processes_devices_and_psum() -> None:
    ev = _load(JAX)
    assert ev.files[0].status == "read" and ev.files[0].formats == ["log"]
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    ((line, note),) = heldout.notes(ev)
    assert line == 2  # the "Connecting to JAX distributed service on" line
    for said in (
        "connected to the JAX distributed service at 10.108.4.20:1234 (line 2)",
        "4 GPU device(s) (StreamExecutorGpuDevice) in all across 2 process(es) "
        "(process_index 0, 1) (line 9)",
        "this process's own: device(s) 2, 3 (process_index 1) (line 10)",
        "(tpu_driver, rocm, tpu, plugin, line(s) 3, 4, 5, 6) are INFO, not failures",
        "the program printed [4. 4.] (line 11): one value a local device, each 4, the number of "
        "devices in all",
    ):
        assert said in note


def test_process_zero_of_a_jax_start_with_another_address_and_a_wrong_sum(tmp_path: Path) -> None:
    text = _raw(JAX).replace("10.108.4.20:1234", "10.0.0.7:8476")
    text = text.replace(
        "JAX local devices:[StreamExecutorGpuDevice(id=2, process_index=1, slice_index=1), "
        "StreamExecutorGpuDevice(id=3, process_index=1, slice_index=1)]",
        "JAX local devices:[StreamExecutorGpuDevice(id=0, process_index=0, slice_index=0), "
        "StreamExecutorGpuDevice(id=1, process_index=0, slice_index=0)]",
    ).replace("[4. 4.]", "[3. 3.]")
    ev = _write(tmp_path, text)
    level, _ = heldout.imported(ev)
    assert level == "READY"
    ((_, note),) = heldout.notes(ev)
    assert "JAX distributed service at 10.0.0.7:8476" in note
    assert "this process's own: device(s) 0, 1 (process_index 0)" in note
    # a sum that is not the device count is said as printed, no psum claimed of it
    assert "the program printed [3. 3.] (line 11); no error" in note


def test_a_jax_start_whose_program_then_raised_is_not_a_healthy_note(tmp_path: Path) -> None:
    text = _raw(JAX).replace(
        "[4. 4.]\n", "Traceback (most recent call last):\nRuntimeError: psum failed\n"
    )
    ev = _write(tmp_path, text)
    assert not any("JAX's multi-process start" in said for said in heldout.said(ev))


# --- DALI's dataset file that is not there ---------------------------------------------------------


def test_dalis_missing_dataset_file_is_named_as_the_cause_of_the_eight_exits() -> None:
    ev = _load(DALI)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    message, (item,) = heldout.finding(outcome, "evidence-data-file-missing")
    assert "(/data/train.rec)" in message
    assert "the ranks that exited after it (8 on compute-hpc-node-25) stopped on it" in message
    assert item.startswith(
        "DALI: DALI could not open /data/train.rec (No such file or directory), 8 time(s) "
        "(line(s) 453, 507, 561, 615, 669, 723, 777, 843)"
    )
    assert item.endswith("line 453)")
    assert len(heldout.items(outcome, "evidence-launcher-exit")) == 8
    # PMIx's gds_ds12 lock lines near the start stay unsaid
    assert not any("gds_ds12" in said for said in heldout.said(ev))


def test_another_path_and_srun_labelled_ranks_are_named(tmp_path: Path) -> None:
    lines = _raw(DALI).split("\n")
    at = [i for i, line in enumerate(lines) if "Could not open file /data/train.rec" in line]
    for rank, i in enumerate(at[:2]):
        lines[i] = f"{rank + 3}: " + lines[i].replace("/data/train.rec", "/mnt/imagenet/val.rec")
    for i in at[2:]:
        lines[i] = ""
    ev = _write(tmp_path, "\n".join(lines))
    _, outcome = heldout.imported(ev)
    message, (item,) = heldout.finding(outcome, "evidence-data-file-missing")
    assert "(/mnt/imagenet/val.rec)" in message
    assert "/mnt/imagenet/val.rec (No such file or directory) on rank(s) 3, 4, 2 time(s)" in item


def test_a_healthy_twin_without_dalis_error_names_no_dataset(tmp_path: Path) -> None:
    text = _raw(DALI)
    text = text.replace("Could not open file /data/train.rec", "Opened /data/train.rec")
    ev = _write(tmp_path, text)
    _, outcome = heldout.imported(ev)
    assert not [f for f in outcome.findings if f.rule_id == "evidence-data-file-missing"]


# --- c10d's connect retries before a run that succeeded; lines as an editor counts them ----------


def test_a_run_that_succeeded_past_c10d_connect_retries_is_ready_at_the_editors_lines() -> None:
    ev = _load(SSD)
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    (success,) = [f for f in ev.failures if f["kind"] == "run_success"]
    assert success["line"] == 1509  # grep -n's line (not 1942: the \r progress bar is one line)
    assert (59, "log: c10d's store client retried its connect to xe8545node26:52159 (error 22: "
            "Invalid argument), line(s) 59: the run went on and said it succeeded (line 1509): "
            "connect retries gone past, benign") in heldout.notes(ev)  # fmt: skip


def test_lines_are_numbered_as_an_editor_numbers_them() -> None:
    text = _raw(SSD)
    assert "\r" in text.split("\n")[142]  # (the progress bar's updates, line 143)
    numbered = numbered_lines(text)
    assert len(numbered) == text.count("\n") == 1520
    no, line, _ = numbered[1508]
    assert no == 1509 and '"key": "run_stop"' in line
    # a bare CR inside a line: what follows the last one stands for it, as a terminal showed it
    assert as_editor_lines("a\r\nb 1%\rb 100%\r\nc\n") == "a\nb 100%\nc\n"
    assert as_editor_lines("x\fy\nz\x85w\n").splitlines() == ["x y", "z w"]
    # only CRs (a classic Mac file): they are its line breaks
    assert as_editor_lines("a\rb\r") == "a\nb\n"


def test_the_same_retries_in_a_run_that_never_said_it_succeeded_stay_a_warning(
    tmp_path: Path,
) -> None:
    text = _raw(SSD).replace('"status": "success"', '"status": "unknown"')
    ev = _write(tmp_path, text)
    assert any(f["kind"] == "store_connect_failure" for f in ev.failures)
    assert not any("retries gone past" in said for said in heldout.said(ev))


def test_retries_to_another_host_before_success_are_a_note_too(tmp_path: Path) -> None:
    ev = _write(tmp_path, _raw(SSD).replace("[xe8545node26]:52159", "[gpu-7]:29500"))
    level, _ = heldout.imported(ev)
    assert level == "READY"
    assert any(
        "retried its connect to gpu-7:29500" in said and "(line 1509)" in said
        for said in heldout.said(ev)
    )
