"""Outputs of round UUUU's held-out evaluation (set 710, Ascend logs) that the advisor read in
part before this change (tests/data/evidence_heldout_81, sources in tests/data/SOURCES.md): a
device slog's task scheduler line of an AI Core task time-out was filed as an HCCL/plog error
with its meaning unsaid; an older runtime's "[ERROR] RUNTIME(pid)... retCode=0x91" line was a
warning of a log in no known form; torch_npu's failed acl call with 500001 left the code and
torch_npu's ERR00100 unsaid; and a Ray worker's failed device set-up did not name its node."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.rules.findings import RulesOutcome
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_81"

TSCH = "cann_device_slog_tsch_atlas200dk_aicore_task_timeout_fault_task0_huaweicloud_atlaste_10_0382.log"
RETCODE = "mindspore_modelarts_runtime_model_execute_error_retcode_0x91_model_stream_execute_failed_otc_trouble0054.log"
ACL = "torch_npu_pt2.1_init_aclsetcompileopt_500001_err00100_device0_ascendpytorch_initerr.log"
RAY = "vllm_ascend_ray_worker_ip10_0_0_5_init_device_open_device0_507033_newdevice_0x7010006_vllmascend727_cut.log"

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _advice(outcome: RulesOutcome, rule_id: str) -> str:
    (finding,) = [f for f in outcome.findings if f.rule_id == rule_id]
    return " ".join(str(r) for r in finding.recommendations)


# --- the device's task scheduler: an AI Core task time-out ------------------------------------


def test_a_tsch_aicore_task_timeout_is_a_device_exception_naming_its_task() -> None:
    level, outcome = heldout.imported(_load(TSCH))
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-npu-device-exception", "critical")]
    (item,) = heldout.items(outcome, "evidence-npu-device-exception")
    assert item.startswith("A device: AI Core task timeout: task 0 ran past")
    assert "fault_task=0" in item and item.endswith("line 1)")
    assert "HCCL" not in item
    assert "task_id=<fault_task>" in _advice(outcome, "evidence-npu-device-exception")


def test_another_task_and_device_of_the_scheduler_are_named(tmp_path: Path) -> None:
    text = (
        _text(TSCH)
        .replace("TSCH(-1,null)", "TSCH(3,null)")
        .replace("fault_task=0", "fault_task=17")
    )
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-npu-device-exception")
    # (review 67a: TSCH(3,...)'s 3 is the process id, CANN's log reference's "ModuleName(PID,
    # PName)", not a device: this copy names none, so "A device", not "Device 3")
    assert item.startswith("A device: AI Core task timeout: task 17 ran past")


def test_a_tsch_line_of_something_else_is_no_timeout(tmp_path: Path) -> None:
    text = _text(TSCH).replace("bs_done_exception_proc_timeout", "bs_done_proc")
    _, outcome = heldout.imported(_write(tmp_path, text))
    assert "evidence-npu-device-exception" not in {f.rule_id for f in outcome.findings}


# --- an older runtime's retCode=0x91 --------------------------------------------------------------


def test_retcode_0x91_of_the_runtime_is_a_failure_named_by_the_task_scheduler() -> None:
    level, outcome = heldout.imported(_load(RETCODE))
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-npu-runtime-error", "critical")]
    (item,) = heldout.items(outcome, "evidence-npu-runtime-error")
    assert item.startswith("Process 3002: the runtime reported 0x91 = TS_MODEL_STREAM_EXE_FAILED")
    assert "the model stream execute failed" in item and item.endswith("line 1)")
    assert "shuffle" in _advice(outcome, "evidence-npu-runtime-error")


def test_the_runtime_line_under_it_names_the_device(tmp_path: Path) -> None:
    text = (
        "[2020-11-27 11:26:53.638664: F tf_adapter/kernels/geop_npu.cc:669] DoRunAsync Failed\n"
        + _text(RETCODE).replace("3002", "62299").rstrip("\n")
        + ".\n[ERROR] RUNTIME(62299)model execute task failed, device_id=5, model stream_id=575,"
        " model task_id=1, model_id=522, first_task_id=65535\n"
    )
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-npu-runtime-error")
    assert item.startswith("Process 62299 (device 5): the runtime reported 0x91")


def test_a_runtime_info_line_without_error_stays_ready(tmp_path: Path) -> None:
    text = "[INFO] RUNTIME(3002)model execute done, retCode=0x0, [success]\n"
    level, _ = heldout.imported(_write(tmp_path, text + "epoch: 1 step: 10, loss is 2.30\n"))
    assert level == "READY"


# --- torch_npu's failed acl call: 500001 and ERR00100 -------------------------------------------


def test_500001_is_named_with_torch_npus_words_and_its_err_code() -> None:
    level, outcome = heldout.imported(_load(ACL))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-npu-runtime-error")
    assert item.startswith("Process 6038 (device 0): AclSetCompileopt returned 500001 = ")
    assert "ACL_ERROR_FAILURE, an internal error" in item
    assert "torch_npu: The internal ACL of the system is incorrect" in item
    assert "(torch_npu ERR00100)" in item and item.endswith("line 7)")


def test_another_inner_code_and_device_are_named(tmp_path: Path) -> None:
    text = _text(ACL).replace("500001", "500003").replace("Device:0", "Device:6")
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-npu-runtime-error")
    assert "(device 6)" in item and "500003 = ACL_ERROR_RT_FAILURE, an error of the runtime" in item


# --- a Ray worker's failed device set-up names its node ------------------------------------------


def test_the_ray_workers_node_is_named_in_the_finding() -> None:
    level, outcome = heldout.imported(_load(RAY))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-npu-runtime-error")
    assert item.startswith(
        "RayWorkerWrapper (pid 26693) on 10.0.0.5 (device 0): open device 0 returned 507033 = "
        "ACL_ERROR_RT_DEV_SETUP_ERROR"
    )
    assert item.endswith("line 6)")


def test_another_node_is_the_one_named(tmp_path: Path) -> None:
    text = _text(RAY).replace("ip=10.0.0.5", "ip=192.168.7.21")
    _, outcome = heldout.imported(_write(tmp_path, text))
    (item,) = heldout.items(outcome, "evidence-npu-runtime-error")
    assert " on 192.168.7.21 (device 0)" in item and "10.0.0.5" not in item
