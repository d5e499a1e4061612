"""Outputs of round LLLL's held-out evaluation (set 659, NVIDIA collective logs) that the advisor
read in part before this change (tests/data/evidence_heldout_72, sources in
tests/data/SOURCES.md): RCCL's "hipIpcGetMemHandle failed" WARNs of three devices, each glued to
the next device's own "node [N] NCCL INFO" line as if a terminal had wrapped it; torch's
ncclUnhandledCudaError of an NVLS multicast bind that failed, NCCL's own cause (Fabric Manager
or NVSwitches) and workaround (NCCL_NVLS_ENABLE=0) dropped and the advice sent to the GPU's
driver log, ECC and Xid; and the SHARP plugin's "Streaming Tree lock failed (-18)", not said to be
CollNet (SHARP) that could not be set up and answered with the generic CUDA-failure advice."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.rules.findings import RulesOutcome
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_72"

RCCL = "rccl2.27.7_mi350x_p2p_hipipcgetmemhandle_invalid_argument_ranks0_2_rccl2188_cut.log"
NVLS = (
    "torch_nccl2.29.7_distbackenderror_nvls_multicast_bind_oom_unhandled_cuda_error_h200_"
    "nccl2077.log"
)
SHARP = (
    "nccl_debug_sharp_plugin_streaming_tree_lock_failed_collnet_setup_error_node174_rank3_"
    "nccl1219_cut.log"
)

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _advice(outcome: RulesOutcome, rule_id: str) -> list[str]:
    (finding,) = [f for f in outcome.findings if f.rule_id == rule_id]
    return [r.why for r in finding.recommendations]


# --- RCCL: a host before its device is a line of its own, no terminal's wrap -----------------


def test_rccl_ipc_handle_warnings_are_not_glued_to_the_next_devices_line() -> None:
    ev = _load(RCCL)
    warned = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    assert [(f["line"], f["device"], f["host"]) for f in warned] == [
        (2, 0, "node"),
        (4, 1, "node"),
        (6, 2, "node"),
    ]
    assert {f["message"] for f in warned} == {"hipIpcGetMemHandle failed : invalid argument"}
    assert not any("wrapped" in note for note in heldout.said(ev))
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-nccl-warning", "critical")]
    items = heldout.items(outcome, "evidence-nccl-warning")
    assert items[0] == (
        f"node, device 0: hipIpcGetMemHandle failed : invalid argument ({ev.files[0].path}, line 2)"
    )
    assert not any("Cuda Alloc" in item for item in items)


def test_rccl_warnings_on_another_host_and_devices_stay_apart(tmp_path: Path) -> None:
    text = _text(RCCL).replace("node [", "mi350-n07 [")
    for old, new in (("[0]", "[4]"), ("[1]", "[5]"), ("[2]", "[6]"), ("[3]", "[7]")):
        text = text.replace(old, new)
    ev = _write(tmp_path, text)
    warned = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    assert [(f["line"], f["device"], f["host"]) for f in warned] == [
        (2, 4, "mi350-n07"),
        (4, 5, "mi350-n07"),
        (6, 6, "mi350-n07"),
    ]
    assert {f["message"] for f in warned} == {"hipIpcGetMemHandle failed : invalid argument"}


def test_rccl_allocations_without_the_warnings_stay_ready(tmp_path: Path) -> None:
    # (the healthy twin: the P2P buffers allocated, no WARN)
    text = "".join(line for line in _text(RCCL).splitlines(True) if "NCCL WARN" not in line)
    ev = _write(tmp_path, text)
    assert ev.failures == []
    level, _ = heldout.imported(ev)
    assert level == "READY"


# --- NVLS multicast bind: NCCL's own cause and workaround -----------------------------------------


def test_nvls_bind_failure_says_nccls_cause_and_workaround() -> None:
    ev = _load(NVLS)
    (failed,) = ev.failures
    assert failed["kind"] == "nccl_call_failure"
    assert failed["code_name"] == "ncclUnhandledCudaError"
    assert failed["line"] == 1
    said = failed["exception_type"]
    assert said.startswith(
        "Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : "
        "CUDA error 2 'out of memory'."
    )
    assert "in the Fabric Manager or NVSwitches." in said
    assert said.endswith(
        "Disable NVLS (NCCL_NVLS_ENABLE=0) if you wish to avoid this error in the future."
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-nccl-call-failed", "critical")]
    (item,) = heldout.items(outcome, "evidence-nccl-call-failed")
    assert "Fabric Manager or NVSwitches" in item and "NCCL_NVLS_ENABLE=0" in item
    (advice,) = _advice(outcome, "evidence-nccl-call-failed")
    assert "NCCL_NVLS_ENABLE=0" in advice and "Fabric Manager" in advice
    assert "Xid" not in advice  # (not the device's fault the generic advice points at)


def test_nvls_bind_failure_under_torchs_last_error_label(tmp_path: Path) -> None:
    # torch's usual block: "Last error:" over NCCL's WARN, another CUDA error, rank-tagged
    lines = _text(NVLS).splitlines()
    text = "\n".join(
        [
            lines[0],
            lines[1],
            "Last error:",
            lines[2].replace(
                "CUDA error 2 'out of memory'", "CUDA error 401 'operation not supported'"
            ),
            lines[3],
            lines[4],
        ]
    )
    ev = _write(tmp_path, text + "\n")
    (failed,) = ev.failures
    assert (
        "CUDA error 401 'operation not supported'. This is usually caused"
        in failed["exception_type"]
    )
    assert failed["exception_type"].endswith("in the future.")
    _, outcome = heldout.imported(ev)
    assert any("NCCL_NVLS_ENABLE=0" in a for a in _advice(outcome, "evidence-nccl-call-failed"))


def test_another_unhandled_cuda_error_keeps_the_generic_advice(tmp_path: Path) -> None:
    lines = _text(NVLS).splitlines()
    text = "\n".join([lines[0], lines[1], "Last error:", "Cuda failure 'out of memory'"])
    ev = _write(tmp_path, text + "\n")
    (failed,) = ev.failures
    assert failed["exception_type"] == "Cuda failure 'out of memory'"
    _, outcome = heldout.imported(ev)
    (advice,) = _advice(outcome, "evidence-nccl-call-failed")
    assert "Xid" in advice and "NCCL_NVLS_ENABLE" not in advice


def test_nvls_bind_failure_without_nccls_hint_lines_adds_nothing(tmp_path: Path) -> None:
    # a copy cut after the bind failure: nothing of NCCL's words is made up
    text = "\n".join(_text(NVLS).splitlines()[:3])
    ev = _write(tmp_path, text + "\n")
    (failed,) = ev.failures
    assert failed["exception_type"].endswith("CUDA error 2 'out of memory'.")


# --- SHARP: CollNet that could not be set up --------------------------------------------------


def test_sharp_streaming_tree_lock_failure_is_collnet_set_up() -> None:
    ev = _load(SHARP)
    (warned,) = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    assert (warned["line"], warned["pid"], warned["device"]) == (8, 174, 3)
    assert "Streaming Tree lock failed (-18)" in warned["message"]
    said = warned["exception_type"]
    assert said.startswith("CollNet (SHARP) could not be set up for this communicator")
    assert "SHARP rank 0/4 on mlx5_4:1 (line 4)" in said
    assert "libsharp ERROR Failed to lock SAT tree(ID:0x208) (lines 5, 6)" in said
    level, outcome = heldout.imported(ev)
    # (kept: no "Cannot initialize CollNet" line shows NCCL went on, set 653's reading)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-nccl-warning", "critical")]
    (item,) = heldout.items(outcome, "evidence-nccl-warning")
    assert "CollNet (SHARP) could not be set up" in item and "mlx5_4:1" in item
    (advice,) = _advice(outcome, "evidence-nccl-warning")
    assert "sharp_am" in advice and "NCCL_COLLNET_ENABLE" in advice
    assert "a CUDA failure is the device" not in advice


def test_sharp_lock_failure_on_another_host_and_process(tmp_path: Path) -> None:
    text = (
        _text(SHARP)
        .replace("node:174:", "gpu12:2211:")
        .replace("node:176:", "gpu12:2213:")
        .replace("[node:0:174 ", "[gpu12:0:2211 ")
        .replace("[3]", "[6]")
        .replace("mlx5_4:1", "mlx5_7:1")
        .replace("0x208", "0x41")
    )
    ev = _write(tmp_path, text)
    (warned,) = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    assert (warned["host"], warned["pid"], warned["device"]) == ("gpu12", 2211, 6)
    assert "SHARP rank 0/4 on mlx5_7:1 (line 4)" in warned["exception_type"]
    assert "tree(ID:0x41) (lines 5, 6)" in warned["exception_type"]


def test_another_process_s_libsharp_errors_are_not_this_ones(tmp_path: Path) -> None:
    text = _text(SHARP).replace("[node:0:174 - tree_ops", "[node:1:175 - tree_ops")
    text = text.replace("[node:0:174 - comm.c", "[node:1:175 - comm.c")
    ev = _write(tmp_path, text)
    (warned,) = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    assert "mlx5_4:1 (line 4)" in warned["exception_type"]
    assert "libsharp" not in warned["exception_type"]


def test_sharp_lock_failure_with_nccls_fallback_is_a_warning(tmp_path: Path) -> None:
    text = _text(SHARP) + (
        "node:174:4359 [3] transport.cc:330 NCCL WARN Cannot initialize CollNet, using "
        "point-to-point network instead\n"
    )
    ev = _write(tmp_path, text)
    sharp = [f for f in ev.failures if "Streaming Tree" in f["message"]]
    assert [f["exception_type"] for f in sharp] == ["start-up fallback"]
    level, _ = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"


def test_sharp_initialised_without_errors_stays_ready(tmp_path: Path) -> None:
    # (the healthy twin: SHARP's INFO lines and a CollNet connection, no ERROR, no WARN)
    text = "".join(
        line
        for line in _text(SHARP).splitlines(True)
        if " ERROR " not in line and "NCCL WARN" not in line and "-> 2" not in line
    )
    ev = _write(tmp_path, text)
    assert ev.failures == []
    level, _ = heldout.imported(ev)
    assert level == "READY"
