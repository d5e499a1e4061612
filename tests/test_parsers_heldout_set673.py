"""Outputs of round OOOO's held-out evaluation (set 673, Ascend tool outputs) that the advisor
read wrong, or cited at the wrong lines, before this change (tests/data/evidence_heldout_75,
sources in tests/data/SOURCES.md): Ascend 950's ``npu-smi info -t ecc-enable`` answer, one line
``HBM ECC-Enable Status : True`` (the on-chip memory's ECC on, its default), was not known as an
npu-smi answer at all; and hccn_tool's answers on device 4, ``link status: DOWN`` and ``present :
not present``, were judged right but both findings cited line 1, the first command, not the
answers' own lines 2 and 4."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_75"

ECC = "npu_smi_info_t_ecc_enable_hbm_true_ascend950_doc.txt"
HCCN = "hccn_tool_910b3_dev4_link_down_optical_not_present_ip_set_cut_vllm_ascend14506.txt"

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


# --- npu-smi info -t ecc-enable -------------------------------------------------------------


def test_hbm_ecc_enabled_true_is_read_and_ready_with_a_note() -> None:
    ev = _load(ECC)
    assert ev.files[0].status == "read" and ev.files[0].formats == ["npu_smi_query"]
    assert ev.npu_chips == []
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    assert _said(ev) == [
        (
            1,
            "npu_smi_query: npu-smi info -t ecc-enable: HBM ECC-Enable Status True (the on-chip "
            "memory's ECC on, its default)",
        )
    ]


def test_the_answer_under_its_command_names_the_npu(tmp_path: Path) -> None:
    text = "[root@node-a3 ~]# npu-smi info -t ecc-enable -i 6\n" + _text(ECC)
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    (said,) = [m for no, m in _said(ev) if no == 2]
    assert said.endswith(
        "npu-smi info -t ecc-enable of NPU 6: HBM ECC-Enable Status True (the on-chip memory's "
        "ECC on, its default)"
    )


def test_hbm_ecc_disabled_is_the_chips_warning(tmp_path: Path) -> None:
    text = "$ npu-smi info -t ecc-enable -i 3\n" + _text(ECC).replace(": True", ": False")
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-npu-chip-health", "warning")]
    (item,) = heldout.items(outcome, "evidence-npu-chip-health")
    assert item.startswith(
        "NPU 3 health HBM ECC-Enable Status False: the ECC of its on-chip memory (HBM) is off, "
        "against its default True ("
    )
    assert item.endswith(", line 2)")
    (chip,) = ev.npu_chips
    assert chip["query"] == "ecc-enable" and chip["npu"] == 3


def test_hbm_ecc_disabled_without_its_command_is_still_said(tmp_path: Path) -> None:
    ev = _write(tmp_path, _text(ECC).replace(": True", ": False"))
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-npu-chip-health")
    assert item.startswith("NPU (not named) health HBM ECC-Enable Status False")
    assert item.endswith(", line 1)")


def test_a_value_the_reference_does_not_name_is_not_judged(tmp_path: Path) -> None:
    ev = _write(tmp_path, _text(ECC).replace(": True", ": NA"))
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    assert ev.npu_chips == []
    (said,) = [m for _, m in _said(ev)]
    assert said.endswith(
        "HBM ECC-Enable Status NA (npu-smi's reference names True or False only): not judged"
    )


# --- hccn_tool: findings cite the answers' lines --------------------------------------------


def test_the_link_down_and_missing_module_cite_their_answers_lines() -> None:
    ev = _load(HCCN)
    assert ev.files[0].status == "read" and ev.files[0].formats == ["hccn_tool"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [
        ("evidence-npu-port-down", "critical"),
        ("evidence-npu-optical-alarm", "warning"),
    ]
    (down,) = heldout.items(outcome, "evidence-npu-port-down")
    assert down.startswith("NPU 4 link DOWN (") and down.endswith(f"{HCCN}, line 2)")
    (optical,) = heldout.items(outcome, "evidence-npu-optical-alarm")
    assert optical.startswith("NPU 4: module not present (")
    assert optical.endswith(f"{HCCN}, line 4)")
    (port,) = ev.npu_ports
    assert (port["device"], port["ipaddr"], port["line"]) == (4, "192.168.100.105", 1)


def test_another_device_with_its_answers_in_another_order(tmp_path: Path) -> None:
    lines = _text(HCCN).replace("-i 4", "-i 1").splitlines(keepends=True)
    # the -ip answer first, then -optical, then -link: each finding follows its own answer
    text = "".join(lines[4:6] + lines[2:4] + lines[0:2])
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (down,) = heldout.items(outcome, "evidence-npu-port-down")
    assert down.startswith("NPU 1 link DOWN (") and down.endswith(", line 6)")
    (optical,) = heldout.items(outcome, "evidence-npu-optical-alarm")
    assert optical.startswith("NPU 1: module not present (") and optical.endswith(", line 4)")


def test_the_healthy_twin_stays_ready(tmp_path: Path) -> None:
    text = _text(HCCN).replace("link status: DOWN", "link status: UP")
    text = text.replace("present : not present", "present : present")
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []
    (port,) = ev.npu_ports
    assert (port["link"], port["link_line"], port["optical_line"]) == ("UP", 2, 4)
