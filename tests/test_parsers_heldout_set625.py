"""Outputs of round GGGG's held-out evaluation (set 625, Ascend tool outputs) that the advisor read
in part or not at all before this change (tests/data/evidence_heldout_68, sources in
tests/data/SOURCES.md): hccn_tool -g -context's register dump copied without its command, not
recognised; and hccn_tool -ip -g's "no ip was preset" answer, read as before (a warning: the file
names no job across servers, see the test)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_68"

CONTEXT = "hccn_tool_g_context_i0_udma3_ceqc0_offset_table_hicann_driver_950_doc.txt"
NO_IP = "hccn_tool_ip_g_get_ipconf_failed_no_ip_preset_npu0_npu1_two_a2_hosts_hixl_note.txt"

# the HCCN Tool reference's CEQ example (querying the CEQ context information of a network
# device): "offset  ceq0" over its offsets and hex words
_ROWS = "".join(
    f"{off}       {word}\n" for off, word in ((4, "00000019"), (8, "00000084"), (12, "00000000"))
)


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.txt")


def _nothing_judged(ev: EvidenceFacts) -> None:
    assert not ev.failures and not ev.npu_ports and not ev.npu_chips


# --- hccn_tool -g -context's dump without its command ------------------------------------------


def test_a_ceq_context_dump_without_its_command_is_said_as_raw_registers() -> None:
    ev = _load(CONTEXT)
    assert ev.files[0].formats == ["ascend_notes"]
    assert heldout.said(ev) == [
        "ascend_notes: hccn_tool -context: the ceq0 context of an NPU the copy does not name (its "
        "command is not in the copy), 16 register word(s): raw registers, no health or fault "
        "reading in them"
    ]
    assert ev.files[0].messages[0].line == 1
    _nothing_judged(ev)
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_a_quoted_aeq_dump_and_a_second_dump_are_each_said(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "> offset  aeq0\n" + "".join(f"> {r}" for r in _ROWS.splitlines(keepends=True))
        + "\noffset  ceq0\n" + _ROWS,
    )  # fmt: skip
    said = heldout.said(ev)
    assert [m.split(",")[0] for m in said] == [
        "ascend_notes: hccn_tool -context: the aeq0 context of an NPU the copy does not name (its "
        "command is not in the copy)",
        "ascend_notes: hccn_tool -context: the ceq0 context of an NPU the copy does not name (its "
        "command is not in the copy)",
    ]
    assert all("3 register word(s)" in m for m in said)
    assert [m.line for m in ev.files[0].messages] == [1, 6]
    _nothing_judged(ev)


def test_the_dump_under_its_command_still_names_the_npu(tmp_path: Path) -> None:
    ev = _write(tmp_path, "hccn_tool -g -context -i 2 -d udma3 -ceqc 0\noffset  ceq0\n" + _ROWS)
    assert heldout.said(ev) == [
        "ascend_notes: hccn_tool -context: NPU 2's udma3 ceqc 0 context, 3 register word(s): raw "
        "registers, no health or fault reading in them"
    ]


def test_an_offset_heading_over_one_row_is_no_dump(tmp_path: Path) -> None:
    ev = _write(tmp_path, "offset  ceq0\n4       00000019\n")
    assert ev.files[0].formats == []
    _nothing_judged(ev)


def test_a_long_line_of_quote_marks_reads_in_linear_time(tmp_path: Path) -> None:
    ev = _write(tmp_path, "> " * 100000 + "offset\n" + "> \t" * 100000 + "\n" + _ROWS)
    assert ev.files[0].formats == []


# --- hccn_tool -ip -g's "no ip was preset" -----------------------------------------------------


def test_a_port_with_no_device_ip_is_a_warning_that_names_the_cross_server_cost() -> None:
    # (the HCCL user guide's rank table: "多机场景下，device_ip必须配置" — a device IP is required
    # where the job spans servers; a one-server job reaches its NPUs without it, and this file
    # names no server, no job and no device: a warning, as evidence-npu-port-no-ip has it)
    ev = _load(NO_IP)
    assert ev.files[0].formats == ["hccn_tool"]
    (port,) = ev.npu_ports
    assert (port["device"], port["ip_preset"], port["ipaddr"], port["line"]) == (
        None,
        False,
        None,
        1,
    )
    assert not ev.failures
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-npu-port-no-ip", "warning")]
    (item,) = heldout.items(outcome, "evidence-npu-port-no-ip")
    assert "the port at line 1 (device not named)" in item and "line 1" in item
    (finding,) = [f for f in outcome.findings if f.rule_id == "evidence-npu-port-no-ip"]
    assert "cannot join a job across servers" in finding.message
    # (nothing else is said of a port the file does not show: no link, no health)
    assert "evidence-npu-port-down" not in str(outcome.findings)


def test_two_devices_without_an_ip_under_their_commands_are_each_named(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "[root@node-a ~]# hccn_tool -i 0 -ip -g\nGet ipconf failed, because no ip was preset there!\n"
        "[root@node-a ~]# hccn_tool -i 1 -ip -g\nGet ipconf failed, because no ip was preset there!\n",
    )
    assert sorted((p["device"], p["ip_preset"]) for p in ev.npu_ports) == [(0, False), (1, False)]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    items = heldout.items(outcome, "evidence-npu-port-no-ip")
    assert len(items) == 2 and any("NPU 0" in i for i in items) and any("NPU 1" in i for i in items)
