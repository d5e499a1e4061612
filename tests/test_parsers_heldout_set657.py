"""Outputs of round LLLL's held-out evaluation (set 657, NVIDIA tool outputs) that the advisor
read wrong before this change (tests/data/evidence_heldout_72, sources in tests/data/SOURCES.md):
gpu-burn on 8 H100 HBM3 whose workers threw "system not yet initialized" (CUDA 802, the system
not ready: on an NVSwitch system Fabric Manager), a warning that quoted only the C++ runtime's
"terminate called ..." line; and nvbandwidth's own list of test cases (``nvbandwidth -l``),
nothing measured, called unreadable."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_72"

BURN = "gpu_burn_h100_hbm3_system_not_yet_initialized_802_cut_gpuburn92.log"
LISTING = "nvbandwidth_v0_6_list_testcases_no_measurement_cut_superbench675.txt"


_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


# --- gpu-burn: system not yet initialized (802) ---------------------------------------------------


def test_gpu_burn_system_not_yet_initialized_is_cuda_802_not_ready() -> None:
    ev = _load(BURN)
    assert ev.files[0].status == "read"
    (hit,) = [f for f in ev.failures if f["kind"] == "gpu_driver_error"]
    assert (hit["line"], hit["code"], hit["call"]) == (8, "802", "cuda_init")
    assert "gpu_burn-drv.cpp:298" in hit["message"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-cuda-not-ready", "critical")]
    (item,) = heldout.items(outcome, "evidence-cuda-not-ready")
    assert "error 802, cudaErrorSystemNotReady" in item
    assert "Fabric Manager" in item
    assert item.endswith(f"{BURN}, line 8)")
    # (the "terminate called" line is the C++ runtime's, not the cause: no longer the finding)
    assert all(f.rule_id != "evidence-log-error" for f in outcome.findings)


def test_gpu_burn_802_named_where_a_call_names_itself_and_under_a_host_prefix(
    tmp_path: Path,
) -> None:
    # gpu-burn's _checkError with a description: "Error in <desc> (file:line): ..."; pdsh's
    # "host: " before each line
    text = "".join(
        f"gpu-node03: {line}\n"
        for line in _text(BURN)
        .replace("Error (gpu_burn-drv.cpp:298)", "Error in init (gpu_burn-drv.cpp:113)", 1)
        .splitlines()
    )
    ev = _write(tmp_path, text)
    (hit,) = [f for f in ev.failures if f["kind"] == "gpu_driver_error"]
    assert (hit["line"], hit["code"]) == (8, "802")
    level, _ = heldout.imported(ev)
    assert level == "NOT READY"


def test_gpu_burn_other_driver_error_is_not_called_802(tmp_path: Path) -> None:
    # (the file's other workers' words, CUDA_ERROR_OPERATING_SYSTEM: not the system-not-ready
    # code, and nothing here reads it as such)
    text = _text(BURN).replace(
        "system not yet initialized", "OS call failed or operation not supported on this OS"
    )
    ev = _write(tmp_path, text)
    assert [f for f in ev.failures if f.get("code") == "802"] == []
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert all(f.rule_id != "evidence-cuda-not-ready" for f in outcome.findings)


def test_gpu_burn_that_started_stays_ready(tmp_path: Path) -> None:
    # the healthy twin: the same head, the workers initialised instead of throwing
    head = "".join(_text(BURN).splitlines(keepends=True)[:6])
    text = head + "".join(
        f"Initialized device {i} with 81008 MB of memory (80475 MB available, using 72427 MB of "
        "it), using FLOATS\n"
        for i in range(8)
    )
    ev = _write(tmp_path, text)
    assert [f for f in ev.failures if f["kind"] == "gpu_driver_error"] == []
    level, _ = heldout.imported(ev)
    assert level == "READY"


# --- nvbandwidth -l -------------------------------------------------------------------------------


def test_nvbandwidth_list_of_test_cases_is_read_and_measures_nothing() -> None:
    ev = _load(LISTING)
    assert ev.files[0].status == "read"
    assert ev.files[0].formats == ["nvbandwidth"]
    assert ev.gpu_copy == []
    (note,) = heldout.said(ev)
    assert "list of test cases (nvbandwidth -l, v0.6), 6 listed" in note
    assert "(host_to_device_memcpy_ce ... device_to_device_memcpy_write_ce)" in note
    assert "no copy was measured" in note
    (message,) = ev.files[0].messages
    assert message.line == 5
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_nvbandwidth_list_without_its_version_lines_is_still_read(tmp_path: Path) -> None:
    # a copy of the listing alone (older builds print no version line before it)
    text = "".join(_text(LISTING).splitlines(keepends=True)[4:])
    ev = heldout.load_copy(tmp_path, text, name="nvbw.txt")
    assert ev.files[0].status == "read"
    assert ev.files[0].formats == ["nvbandwidth"]
    (note,) = heldout.said(ev)
    assert "list of test cases (nvbandwidth -l), 6 listed" in note
    assert ev.files[0].messages[0].line == 1


def test_nvbandwidth_version_alone_is_still_unreadable(tmp_path: Path) -> None:
    # the listing is what is read: the version lines with nothing under them stay unread
    text = "".join(_text(LISTING).splitlines(keepends=True)[:3])
    ev = heldout.load_copy(tmp_path, text, name="nvbw.txt")
    assert ev.files[0].status == "unreadable"
    assert any("no test's matrix" in m.message for m in ev.files[0].messages)
