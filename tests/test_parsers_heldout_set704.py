"""Outputs of round TTTT's held-out evaluation (set 704, Ascend logs) that the advisor read in
part before this change (tests/data/evidence_heldout_80, sources in tests/data/SOURCES.md):
MindSpore 1.9's run_check whose framework message "Create stream failed, ret:207000" and failed
check went unnamed beside its EE8888; a MindIE Server start failure without the host its
operation log names; a MindSpore exit's "SyncStream failed" taken for the failure instead of the
traceback the run stopped in; and a MindX SDK run's final RuntimeError named instead of its cause,
"Failed to recognize Ascend chip"."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout

HELDOUT = Path(__file__).parent / "data" / "evidence_heldout_80"

MS_CHECK = (
    "mindspore190_run_check_failed_ee8888_stream_create_flags4_feature_not_support_207000_"
    "modelbox357_cut.txt"
)
MINDIE = "mindie_server_mie04e02011c_failed_to_init_engine_start_fail_910b_gpustack2221_cut.log"
MS_SYNC = (
    "mindspore_device_syncstream_failed_stream_null_then_train_traceback_modelarts_"
    "mindyolo186_cut.log"
)
MINDX = (
    "mindx_sdk_600rc3_container_failed_to_recognize_ascend_chip_acl_general_failure_"
    "paddlecustomdevice1478.log"
)

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _items(ev: EvidenceFacts) -> list[str]:
    _, outcome = heldout.imported(ev)
    return [i for f in outcome.findings for i in f.items]


# --- MindSpore 1.9 run_check: EE8888 with the framework's ret:207000 ----------------------------


def test_ms_run_check_names_207000_the_failed_check_and_the_version_set() -> None:
    ev = _load(MS_CHECK)
    level, _ = heldout.imported(ev)
    assert level == "NOT READY"
    (f,) = ev.failures
    assert f["code"] == "EE8888" and f["line"] == 10
    said = f["exception_type"]
    assert "Create stream failed, ret:207000 = ACL_ERROR_RT_FEATURE_NOT_SUPPORT (line 18)" in said
    assert "MindSpore's run_check failed (line 4)" in said
    assert "Ascend kernel runtime initialization failed (line 5)" in said
    assert "matched set" in said
    assert any("ret:207000" in i for i in _items(ev))


def test_another_return_code_is_named_without_the_version_advice(tmp_path: Path) -> None:
    text = _text(MS_CHECK).replace("ret:207000", "ret:207008")
    (f,) = _write(tmp_path, text).failures
    assert "ret:207008 = ACL_ERROR_RT_NO_STREAM_RESOURCE (line 18)" in f["exception_type"]
    assert "matched set" not in f["exception_type"]


# --- MindIE Server: the node its operation log names ----------------------------------------------


def test_mindie_start_failure_names_the_host_of_its_operation_log() -> None:
    ev = _load(MINDIE)
    level, _ = heldout.imported(ev)
    assert level == "NOT READY"
    (f,) = ev.failures
    assert f["kind"] == "service_start_failure" and f["line"] == 1
    assert f["host"] == "910B-36.141.20.235"
    assert any(i.startswith("910B-36.141.20.235: ") for i in _items(ev))


def test_another_node_is_read_as_that_node(tmp_path: Path) -> None:
    text = _text(MINDIE).replace("[910B-36.141.20.235]", "[worker-7]")
    (f,) = _write(tmp_path, text).failures
    assert f["host"] == "worker-7"


def test_a_start_that_succeeded_on_that_node_stays_ready(tmp_path: Path) -> None:
    text = _text(MINDIE).splitlines()[1].replace("[fail]", "[success]") + "\n"
    ev = _write(tmp_path, text)
    level, _ = heldout.imported(ev)
    assert level == "READY"
    assert not [f for f in ev.failures if f["kind"] == "service_start_failure"]


# --- MindSpore's exit-time SyncStream error after a traceback ---------------------------------------


def test_the_traceback_is_the_failure_and_syncstream_its_consequence() -> None:
    ev = _load(MS_SYNC)
    level, _ = heldout.imported(ev)
    assert level == "NOT READY"
    (f,) = ev.failures
    assert f["kind"] == "python_exception" and f["line"] == 8
    assert 'yolov7_head.py", line 79, in initialize_biases' in f["message"]
    assert 'File "train.py", line 290, in <module>' in f["message"]
    assert "'SyncStream failed' (line 1)" in f["exception_type"]
    assert "consequence" in f["exception_type"]


def test_the_exception_line_when_present_is_the_one_named(tmp_path: Path) -> None:
    text = _text(MS_SYNC) + "TypeError: zip argument #2 must support iteration\n"
    (f,) = _write(tmp_path, text).failures
    assert f["kind"] == "python_exception"
    assert "TypeError" in f["message"]
    assert "'SyncStream failed' (line 1)" in f["exception_type"]


def test_syncstream_alone_is_still_read_as_mindspore_error(tmp_path: Path) -> None:
    text = "\n".join(_text(MS_SYNC).splitlines()[:6]) + "\n"
    (f,) = _write(tmp_path, text).failures
    assert f["library"] == "MindSpore" and f["line"] == 1


# --- MindX SDK: the chip not recognised -------------------------------------------------------------


def test_mindx_names_the_unrecognised_chip_and_the_container_fix() -> None:
    ev = _load(MINDX)
    level, _ = heldout.imported(ev)
    assert level == "NOT READY"
    (f,) = ev.failures
    assert f["line"] == 7
    assert "Failed to recognize Ascend chip." in f["message"]
    said = f["exception_type"]
    assert "'RuntimeError: [-1][ACL: general failure]' (line 14)" in said
    assert "/dev/davinci_manager" in said and "container" in said


def test_without_the_chip_line_the_exception_is_read_as_before(tmp_path: Path) -> None:
    text = "".join(
        line for line in _text(MINDX).splitlines(keepends=True) if "recognize Ascend" not in line
    )
    (f,) = _write(tmp_path, text).failures
    assert f["line"] == 13 and "RuntimeError" in f["message"]
    assert "davinci" not in (f["exception_type"] or "")
