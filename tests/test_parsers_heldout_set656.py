"""Outputs of round LLLL's held-out evaluation (set 656, Ascend logs) that the advisor read in part
before this change (tests/data/evidence_heldout_72, sources in tests/data/SOURCES.md): HAMi's
ascend-device-plugin failing a pod's Allocate because npu-smi was not found, read as the first
line only and with kubelet's reason UnexpectedAdmissionError the copy never says; a Ray Train run
whose TrainingFailedError torch_npu stamped ERR99999, read as a device warning, not the run's
failure; and a verl job's HCCL init error 4 whose Ray report of the failing actor names its host
(ip=177.24.9.2), named nowhere."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_72"

HAMI = "hami_ascend_device_plugin_vnpu_allocate_npu_smi_not_found_adp103.log"
RAY = "ray_train_torch_npu_actor_died_err99999_ray49998_cut.log"
VERL = "verl_ray_npu_multinode_hccl_init_error4_verl3947_cut.log"


_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


# --- HAMi ascend-device-plugin: npu-smi not found --------------------------------------------------


def test_allocate_failed_names_npu_smi_not_found_on_npu_1_as_the_cause() -> None:
    ev = _load(HAMI)
    (failed,) = ev.failures
    assert (failed["kind"], failed["line"]) == ("container_start_failure", 1)
    said = failed["exception_type"]
    assert "UnexpectedAdmissionError" not in said  # (the copy never says it)
    assert said.startswith("kubelet would not admit the pod: the device plugin's Allocate failed")
    assert (
        "the cause (line 3): npu-smi set device-share -i 1 -c 0 -d 1 could not run on NPU 1 "
        "(chip 0): npu-smi not found in [/usr/local/Ascend/driver/tools/npu-smi "
        "/usr/local/sbin/npu-smi /usr/local/bin/npu-smi] or PATH"
    ) in said
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-container-start-failure", "critical")]
    (item,) = heldout.items(outcome, "evidence-container-start-failure")
    assert "could not run on NPU 1" in item and item.endswith(f"{HAMI}, line 1)")


def test_another_npu_and_the_reason_word_when_the_copy_says_it(tmp_path: Path) -> None:
    text = _text(HAMI).replace("-i 1 -c 0", "-i 5 -c 1")
    text = "  Warning  UnexpectedAdmissionError  12s  kubelet  " + text
    (failed,) = _write(tmp_path, text).failures
    said = failed["exception_type"]
    assert said.startswith("kubelet would not admit the pod (UnexpectedAdmissionError):")
    assert "npu-smi set device-share -i 5 -c 1 -d 1 could not run on NPU 5 (chip 1)" in said


def test_a_device_share_set_that_failed_otherwise_says_its_own_words(tmp_path: Path) -> None:
    text = (
        "Allocate failed due to rpc error: code = Unknown desc = apply device-share for pod\n"
        "ns/p-0:\n"
        "npu-smi set device-share -i 2 -c 0 -d 1: exit status 203: Status : Fail, which is "
        "unexpected\n"
    )
    (failed, *_) = [
        f for f in _write(tmp_path, text).failures if f["kind"] == "container_start_failure"
    ]
    assert (
        "the cause (line 3): npu-smi set device-share -i 2 -c 0 -d 1 failed on NPU 2: "
        in (failed["exception_type"])
    )
    assert "not found" not in failed["exception_type"]


def test_an_allocate_failure_with_no_npu_smi_chain_gets_no_cause(tmp_path: Path) -> None:
    text = (
        "Allocate failed due to rpc error: code = Unknown desc = no enough devices, which is "
        "unexpected\n"
    )
    (failed,) = _write(tmp_path, text).failures
    assert failed["exception_type"] == (
        "kubelet would not admit the pod: the device plugin's Allocate failed (rpc error: code = "
        "Unknown desc = no enough devices, which is unexpected)"
    )


# --- Ray Train's TrainingFailedError stamped ERR99999 -----------------------------------------------


def test_training_failed_error_stamped_err99999_is_the_runs_failure() -> None:
    ev = _load(RAY)
    (failed,) = ev.failures
    assert (failed["kind"], failed["line"], failed["pid"]) == ("python_exception", 6, 39837)
    assert failed["message"].startswith(
        "ray.train.base_trainer.TrainingFailedError: The Ray Train run failed."
    )
    assert (failed["rank"], failed["device"]) == (None, None)  # (Device:-1, RankID:-1)
    assert failed["exception_type"].startswith(
        "TrainingFailedError: the run failed; torch_npu stamped it ERR99999 (line 9, pid 39837, "
        "no device or rank named)"
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-python-exception", "critical")]
    (item,) = heldout.items(outcome, "evidence-python-exception")
    assert item.endswith(f"{RAY}, line 6)") and "Rank" not in item


def test_training_failed_error_right_above_its_err_line_on_a_named_device(tmp_path: Path) -> None:
    lines = _text(RAY).splitlines()
    # (the exception's line and torch_npu's own line right under it, device 3 rank 3 named)
    text = "\n".join([lines[5], lines[8].replace("Device:-1, RankID:-1", "Device:3, RankID:3")])
    (failed,) = _write(tmp_path, text + "\n").failures
    assert (failed["kind"], failed["line"], failed["device"], failed["rank"]) == (
        "python_exception",
        1,
        3,
        3,
    )
    assert "ERR99999 (line 2, pid 39837, device 3, rank 3)" in failed["exception_type"]


def test_another_exception_stamped_err99999_stays_torch_npus_warning(tmp_path: Path) -> None:
    # (the twin: an exception that says nothing of the whole run stays as it was read)
    text = _text(RAY).replace(
        "ray.train.base_trainer.TrainingFailedError: The Ray Train run failed.",
        "ValueError: bad batch size.",
    )
    ev = _write(tmp_path, text)
    assert [f["kind"] for f in ev.failures] == ["torch_npu_error"]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-torch-npu-error", "warning")]


# --- verl over Ray: the failing actor's host -----------------------------------------------------------


def test_hccl_init_error_4_says_rays_next_report_and_its_host() -> None:
    ev = _load(VERL)
    (failed,) = ev.failures
    assert (failed["kind"], failed["line"], failed["rank"], failed["device"]) == (
        "hccl_call_failure",
        1,
        0,
        0,
    )
    assert (failed["code"], failed["code_name"], failed["pid"]) == ("4", "HCCL_E_INTERNAL", 144556)
    # (the report names pid 144557, not the ERR line's 144556: its host is said, not given)
    assert failed["host"] is None
    assert failed["message"] == (
        "hcclCommInitRootInfoConfig returned 4 = HCCL_E_INTERNAL (internal error), ERR02200; "
        "Ray's next report (line 3): ray::WorkerDict.ref_init_model() failed, pid 144557 on "
        "177.24.9.2 (its exception is past the copy's end)"
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-hccl-call-failed")
    assert item.startswith("Rank 0 (device 0): ") and "on 177.24.9.2" in item


def test_a_ray_report_of_the_same_process_gives_it_its_host(tmp_path: Path) -> None:
    lines = _text(VERL).splitlines()
    # Ray's order: the task's heading first, its traceback, then its exception (pid 144556 on
    # another host)
    heading = lines[2].replace("pid=144557, ip=177.24.9.2", "pid=144556, ip=10.0.0.7")
    text = "\n".join([heading, *lines[3:7], lines[0], lines[1]]) + "\n"
    (failed,) = _write(tmp_path, text).failures
    assert (failed["kind"], failed["host"], failed["rank"]) == ("hccl_call_failure", "10.0.0.7", 0)
    assert "Ray's next report" not in failed["message"]


def test_an_hccl_init_error_with_no_ray_report_is_read_as_before(tmp_path: Path) -> None:
    lines = _text(VERL).splitlines()
    (failed,) = _write(tmp_path, "\n".join(lines[:2]) + "\n").failures
    assert failed["host"] is None
    assert failed["message"] == (
        "hcclCommInitRootInfoConfig returned 4 = HCCL_E_INTERNAL (internal error), ERR02200"
    )


def test_a_ray_report_far_below_the_error_is_not_its_neighbour(tmp_path: Path) -> None:
    lines = _text(VERL).splitlines()
    filler = ["(TaskRunner pid=30188) step 1 loss 0.5"] * 12
    (failed,) = _write(tmp_path, "\n".join([*lines[:2], *filler, *lines[2:]]) + "\n").failures
    assert "Ray's next report" not in failed["message"]
