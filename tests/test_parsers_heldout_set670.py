"""Outputs of round NNNN's held-out evaluation (set 670, network and node tool outputs on GPU
clusters) that the advisor read wrong before this change (tests/data/evidence_heldout_74, sources
in tests/data/SOURCES.md): an mlxconfig -e query cut below its device and column header, whose
NUM_OF_VFS was set to 0 from its default 8, not read at all; and ethtool -m's module temperature
lines kept by a grep (57.09 C, its flags Off, thresholds 70 C and 80 C), not read at all."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_74"

MLXCONFIG = "mlxconfig_q_connectx_num_of_vfs_default8_current0_sriov_vfs_off_kubeovn2685_cut.txt"
TEMPERATURE = "ethtool_m_sfp_enp3s0f0np0_module_temperature_57c_no_alarms_beszel554.txt"

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[str]:
    # (each message without the "format: " its reading puts first)
    return [m.message.split(": ", 1)[-1] for f in ev.files for m in f.messages]


# --- mlxconfig -e rows without their header: NUM_OF_VFS 8 -> 0 ----------------------------------


def test_headerless_query_rows_are_read_and_no_vfs_is_a_warning() -> None:
    ev = _load(MLXCONFIG)
    assert ev.files[0].formats == ["mlxconfig"]
    (note,) = [m for m in _said(ev) if m.startswith("mlxconfig")]
    assert "a device named above the copy, 14 setting(s)" in note
    assert "NUM_OF_VFS set to 0 from its default 8 (line 14)" in note
    (failure,) = [f for f in ev.failures if f["kind"] == "nic_sriov_no_vfs"]
    assert failure["line"] == 14
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nic-sriov-no-vfs", "warning")]
    (item,) = heldout.items(outcome, "evidence-nic-sriov-no-vfs")
    assert item.startswith(
        "a device named above the copy: NUM_OF_VFS 0 current, 0 at the next boot, its default 8;"
        " SRIOV_EN not in the copy"
    )
    assert "line 14" in item


def test_the_same_rows_with_sr_iov_on_and_another_default(tmp_path: Path) -> None:
    text = _text(MLXCONFIG).replace("8               0               0", "16              0   0")
    text += "         SRIOV_EN                                    True(1)         True(1)         True(1)\n"
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-nic-sriov-no-vfs")
    assert "NUM_OF_VFS 0 current, 0 at the next boot, its default 16; SRIOV_EN True(1)" in item


def test_vfs_kept_or_sr_iov_off_is_no_warning(tmp_path: Path) -> None:
    # the healthy twin: NUM_OF_VFS raised from its default 8 to 16
    kept = _text(MLXCONFIG).replace(
        "*        NUM_OF_VFS                                  8               0               0",
        "*        NUM_OF_VFS                                  8               16              16",
    )
    ev = _write(tmp_path, kept)
    assert ev.files[0].formats == ["mlxconfig"]
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    # SR-IOV turned off with it: a card meant to run without VFs
    off = _text(MLXCONFIG) + (
        "*        SRIOV_EN                                    True(1)         False(0)        False(0)\n"
    )
    level, outcome = heldout.imported(_write(tmp_path, off))
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_two_rows_alone_are_not_taken_for_an_mlxconfig_query(tmp_path: Path) -> None:
    two = "".join(_text(MLXCONFIG).splitlines(keepends=True)[-2:])
    ev = _write(tmp_path, two)
    assert "mlxconfig" not in ev.files[0].formats


# --- ethtool -m | grep temperature ----------------------------------------------------------------


def test_grepped_module_temperature_is_read_healthy_with_its_figures() -> None:
    ev = _load(TEMPERATURE)
    assert ev.files[0].formats == ["ethtool_module"]
    (note,) = [m for m in _said(ev) if m.startswith("ethtool -m")]
    assert note.startswith("ethtool -m enp3s0f0np0: temperature lines only")
    assert "module temperature 57.09 C (line 2)" in note
    assert "12.91 C under its high warning threshold 70 C" in note
    assert "22.91 C under its high alarm threshold 80 C" in note
    assert "its 4 alarm and warning flag(s) shown Off" in note
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_a_hot_module_on_another_port_is_said_past_its_threshold(tmp_path: Path) -> None:
    text = (
        _text(TEMPERATURE)
        .replace("enp3s0f0np0", "ens1f1np1")
        .replace("57.09 degrees C / 134.76", "72.50 degrees C / 162.50")
        .replace("high warning           : Off", "high warning           : On")
    )
    ev = _write(tmp_path, text)
    (note,) = [m for m in _said(ev) if m.startswith("ethtool -m")]
    assert note.startswith("ethtool -m ens1f1np1: temperature lines only")
    assert "module temperature 72.5 C (line 2), past its high warning threshold 70 C" in note
    assert "alarm or warning flags On: Module temperature high warning" in note


def test_two_ports_temperatures_grepped_are_two_modules(tmp_path: Path) -> None:
    lines = _text(TEMPERATURE).splitlines(keepends=True)
    text = "".join(lines[1:]) + "".join(lines[1:]).replace("57.09 degrees C", "41.00 degrees C")
    ev = _write(tmp_path, text)
    notes = [m for m in _said(ev) if m.startswith("ethtool -m")]
    assert len(notes) == 2
    assert "module temperature 57.09 C (line 1)" in notes[0]
    assert "module temperature 41 C (line 10)" in notes[1]
