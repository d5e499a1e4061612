"""Outputs of round NNNN's held-out evaluation (set 667, Ascend tool outputs) that the advisor read
wrong before this change (tests/data/evidence_heldout_74, sources in tests/data/SOURCES.md): an
Ascend 950 ``npu-smi info -t pcie-err`` answer saved without its command line, whose RX Error
Count 991 and Retry Count 415 were said as figures "not judged"; and an ``hccn_tool -g
-ub_connect`` answer saved without its command line, read as one port whose link was "PARTIAL",
its port 5 DOWN and port 6 PARTIAL UP (up on fewer lanes) not read."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_74"

PCIE = "npu_smi_950_pcie_err_rx_errors_retries_hicann_driver_zh.txt"
UB = "hccn_tool_950_ub_connect_partial_link_port5_down_hicann_driver_zh.txt"

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


# --- npu-smi info -t pcie-err without its command line -------------------------------------------


def test_pcie_error_and_retry_counts_are_an_unhealthy_npu() -> None:
    ev = _load(PCIE)
    assert ev.files[0].formats == ["npu_smi_query"]
    (chip,) = ev.npu_chips
    assert (chip["npu"], chip["query"], chip["line"]) == (0, "pcie-err", 1)
    assert chip["health"] == (
        "PCIe link errors: RX Error Count 991 (line 3), Retry Count 415 (line 6)"
    )
    assert not [m for m in ev.files[0].messages if "not judged" in m.message]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-npu-chip-health", "warning")]
    (item,) = heldout.items(outcome, "evidence-npu-chip-health")
    assert item.startswith(
        "NPU 0 health PCIe link errors: RX Error Count 991 (line 3), Retry Count 415 (line 6)"
    )


def test_another_npu_with_lcrc_errors_only(tmp_path: Path) -> None:
    text = (
        _text(PCIE)
        .replace(": 0\n", ": 5\n", 1)
        .replace(": 991", ": 0")
        .replace(": 415", ": 0")
        .replace("Lcrc Error Count               : 0", "Lcrc Error Count               : 12")
    )
    assert text.startswith("NPU ID                         : 5\n")
    ev = _write(tmp_path, text)
    (chip,) = ev.npu_chips
    assert (chip["npu"], chip["health"]) == (5, "PCIe link errors: Lcrc Error Count 12 (line 4)")
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-npu-chip-health")
    assert item.startswith("NPU 5 health PCIe link errors: Lcrc Error Count 12 (line 4)")


def test_a_pcie_answer_with_no_error_counted_stays_ready(tmp_path: Path) -> None:
    # the healthy twin: every counter 0
    text = _text(PCIE).replace(": 991", ": 0").replace(": 415", ": 0")
    ev = _write(tmp_path, text)
    assert not ev.npu_chips
    (said,) = [m.message for m in ev.files[0].messages]
    assert said == "npu_smi_query: npu-smi info -t pcie-err of NPU 0: no error counted"
    level, _ = heldout.imported(ev)
    assert level == "READY"


def test_a_tx_rx_pair_alone_is_not_taken_for_pcie(tmp_path: Path) -> None:
    # -t sio-info prints TX and RX Error Count only: without the command line that pair may be
    # either query's, so it is not named a PCIe link's (nor judged)
    text = "NPU ID                         : 0\nTX Error Count                 : 0\n"
    text += "RX Error Count                 : 7\n"
    ev = _write(tmp_path, text)
    assert not [c for c in ev.npu_chips if "PCIe" in (c["health"] or "")]


# --- hccn_tool -g -ub_connect without its command line --------------------------------------------


def test_a_partial_ub_interconnect_names_its_down_and_partial_ports() -> None:
    ev = _load(UB)
    assert ev.files[0].status == "read"
    got = [(p["device"], p["die_port"], p["link"], p["line"]) for p in ev.npu_ports]
    assert got == [
        (None, "UB port 4", "UP", 2),
        (None, "UB port 5", "DOWN", 3),
        (None, "UB port 6", "PARTIAL UP", 4),
    ]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [
        ("evidence-npu-port-down", "critical"),
        ("evidence-npu-port-partial-up", "warning"),
    ]
    (down,) = heldout.items(outcome, "evidence-npu-port-down")
    assert "UB port 5 link DOWN" in down and down.endswith("line 3)")
    assert "device not named" in down
    (partial_up,) = heldout.items(outcome, "evidence-npu-port-partial-up")
    assert partial_up.startswith("UB port 6 (device not named) link PARTIAL UP: up on fewer lanes")
    assert partial_up.endswith("line 4)")


def test_the_same_answer_under_its_command_names_the_npu(tmp_path: Path) -> None:
    ev = _write(tmp_path, "hccn_tool -g -ub_connect -i 3\n" + _text(UB))
    got = [(p["device"], p["die_port"], p["link"], p["line"]) for p in ev.npu_ports]
    assert got == [
        (3, "UB port 4", "UP", 3),
        (3, "UB port 5", "DOWN", 4),
        (3, "UB port 6", "PARTIAL UP", 5),
    ]
    _, outcome = heldout.imported(ev)
    (partial_up,) = heldout.items(outcome, "evidence-npu-port-partial-up")
    assert partial_up.startswith("NPU 3 UB port 6 link PARTIAL UP")


def test_other_ports_one_partial_up_only_is_a_warning(tmp_path: Path) -> None:
    # a 2-card interconnect with other ports (the reference: the ports a system form activates
    # differ): none DOWN, port 1 up on fewer lanes
    text = "link status : PARTIAL LINK\nport 0 : UP\nport 1 : PARTIAL UP\n"
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-npu-port-partial-up", "warning")]
    (item,) = heldout.items(outcome, "evidence-npu-port-partial-up")
    assert item.startswith("UB port 1 (device not named) link PARTIAL UP") and "line 3" in item


def test_a_whole_ub_interconnect_stays_ready(tmp_path: Path) -> None:
    # the healthy twin: the card and each of its ports UP
    text = (
        _text(UB)
        .replace("PARTIAL LINK", "UP")
        .replace("5 : DOWN", "5 : UP")
        .replace("PARTIAL UP", "UP")
    )
    ev = _write(tmp_path, text)
    assert [p["link"] for p in ev.npu_ports] == ["UP", "UP", "UP"]
    level, _ = heldout.imported(ev)
    assert level == "READY"


def test_a_link_answer_alone_is_still_one_port(tmp_path: Path) -> None:
    # -link -g prints one state line: not taken for -ub_connect
    ev = _write(tmp_path, "link status: DOWN\n")
    ((link, die_port),) = [(p["link"], p["die_port"]) for p in ev.npu_ports]
    assert (link, die_port) == ("DOWN", None)
