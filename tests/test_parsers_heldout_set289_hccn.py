"""Ascend 950 hccn_tool outputs of one port: -bit_err, -su_ber -result and -down_data (the HCCN
Tool reference's own examples, tests/data/evidence_heldout_46, sources in tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial

from advisor.evidence.load import load_text
from advisor.parsers import hccn_tool
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings, finding_items

HELDOUT = DATA / "evidence_heldout_46"
BIT_ERR = "hccn_tool_bit_err_port4.txt"
SU_BER = "hccn_tool_su_ber_result_port4.txt"
DOWN_DATA = "hccn_tool_down_data_udie0_port4.txt"


_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def test_uncorrected_fec_frames_are_a_warning_naming_device_die_and_port() -> None:
    ev = _load(BIT_ERR)
    assert [f.status for f in ev.files] == ["read"]
    (port,) = ev.npu_ports
    # st_fec_decoding_fail_num 0x4, st_fec_err_bit_num 0x3868275f; the die from the command's -u
    assert (port["device"], port["die_port"]) == (0, "UDie 0 port 4")
    assert (port["fec_uncorrected_frames"], port["pre_fec_error_bits"]) == (4, 946_349_919)
    findings = builtin_findings({"evidence.npu_ports": ev.npu_ports})
    assert findings["evidence-npu-fec-uncorrected"].severity == "warning"
    (item,) = finding_items({"evidence.npu_ports": ev.npu_ports})["evidence-npu-fec-uncorrected"]
    assert item.startswith(
        "NPU 0 UDie 0 port 4: 4 frame(s) FEC could not correct (st_fec_decoding_fail_num), "
        "946349919 bit error(s) before FEC"
    )
    # corrected bits alone would be information: not this port
    assert "evidence-npu-fec-corrected" not in findings


def test_corrected_bits_alone_are_information() -> None:
    text = _text(BIT_ERR).replace("st_fec_decoding_fail_num: 0x4", "st_fec_decoding_fail_num: 0x0")
    ev = load_text(text, "bit_err.txt")
    findings = builtin_findings({"evidence.npu_ports": ev.npu_ports})
    assert "evidence-npu-fec-uncorrected" not in findings
    assert findings["evidence-npu-fec-corrected"].severity == "info"


def test_su_ber_lanes_are_reported_and_not_judged_without_a_documented_threshold() -> None:
    ev = _load(SU_BER)
    (port,) = ev.npu_ports
    assert (port["device"], port["die_port"]) == (0, "UDie 0 port 4")
    lanes = port["su_ber_lanes"]
    assert [(x["lane"], x["done"], x["bit_err_cnt"]) for x in lanes] == [
        (0, 1, 746),
        (1, 1, 728),
        (2, 1, 2844),
        (3, 1, 1170),
    ]
    assert {(x["frm_cnt"], x["frm_bit"], x["err_symb_t4"]) for x in lanes} == {
        (0x8000000, 0x400, 0)
    }
    assert [x["su_ber_rate"] for x in lanes] == [
        5.427864e-09,
        5.296897e-09,
        2.069282e-08,
        8.51287e-09,
    ]
    # no frame errors, every lane done: nothing wrong by the reference's words
    assert port["su_ber_alarms"] == []
    findings = builtin_findings({"evidence.npu_ports": ev.npu_ports})
    assert "evidence-npu-su-ber-errors" not in findings
    assert findings["evidence-npu-su-ber"].severity == "info"
    assert "documents no BER threshold" in findings["evidence-npu-su-ber"].message
    (item,) = finding_items({"evidence.npu_ports": ev.npu_ports})["evidence-npu-su-ber"]
    assert "lane 2 BER 2.069282e-08 (2844 bit errors in 134217728 frames)" in item
    assert "highest BER on lane 2" in item


def test_su_ber_frame_errors_and_an_abnormal_done_are_a_warning() -> None:
    text = (
        _text(SU_BER)
        .replace("| 0x1  | 0x2d8       | 0x0 ", "| 0x1  | 0x2d8       | 0x3 ")
        .replace("| 0x3  | 0x1  |", "| 0x3  | 0x2  |")
    )
    ev = load_text(text, "su_ber.txt")
    (port,) = ev.npu_ports
    assert port["su_ber_alarms"] == [
        "lane 1: 3 frame(s) with more than four symbol errors (Err_symb_t4, frame error rate "
        "0.000000e+00)",
        "lane 3: Done 0x2 (abnormal state)",
    ]
    (item,) = finding_items({"evidence.npu_ports": ev.npu_ports})["evidence-npu-su-ber-errors"]
    assert item.startswith("NPU 0 UDie 0 port 4: lane 1: 3 frame(s)")


def test_down_data_says_the_link_went_down_with_the_lanes_whose_snr_read_0() -> None:
    ev = _load(DOWN_DATA)
    (port,) = ev.npu_ports
    assert (port["device"], port["die_port"], port["link_down_records"]) == (0, "UDie 0 port 4", 5)
    assert port["link_down_snr_zero"] == ["log row 2 lane 2", "log row 4 lane 0"]
    rows = port["link_down_snapshots"]
    assert [r["row"] for r in rows] == [0, 1, 2, 3, 4]
    assert rows[2]["lanes"][2]["metric_his_min"] == -2
    assert [r["lanes"][3]["c5_ud_2csr"] for r in rows] == [127, 0, 127, 126, 0]
    # the records are history: the port's current link state stays unknown
    assert port["link"] is None
    items = finding_items({"evidence.npu_ports": ev.npu_ports})
    (item,) = items["evidence-npu-link-down-records"]
    assert item.startswith(
        "NPU 0 UDie 0 port 4: the link went down (5 record(s)); lanes whose SNR read 0: "
        "log row 2 lane 2, log row 4 lane 0"
    )
    findings = builtin_findings({"evidence.npu_ports": ev.npu_ports})
    assert "current state" in findings["evidence-npu-link-down-records"].message
    assert "evidence-npu-port-down" not in findings
    (state,) = items["evidence-npu-port-state"]
    assert state.startswith("NPU 0 UDie 0 port 4: link not shown")


def test_each_output_is_recognised_by_its_content_inside_another_file() -> None:
    for name, field in (
        (BIT_ERR, "fec_uncorrected_frames"),
        (SU_BER, "su_ber_lanes"),
        (DOWN_DATA, "link_down_records"),
    ):
        output = _text(name).split("\n", 1)[1]  # without its command line
        ev = load_text(f"[INFO] collecting port data\n{output}\n[INFO] done\n", "collect.log")
        (port,) = ev.npu_ports
        assert port[field], name


def test_the_three_outputs_of_one_port_in_one_file_are_one_port() -> None:
    text = "".join(_text(n) for n in (BIT_ERR, SU_BER, DOWN_DATA))
    (port,) = hccn_tool.parse_bundle(text).ports
    assert (port.device, port.die_port) == (0, "UDie 0 port 4")
    assert (port.fec_uncorrected_frames, len(port.su_ber_lanes), port.link_down_records) == (
        4,
        4,
        5,
    )


def test_two_ports_of_one_npu_stay_apart() -> None:
    text = _text(BIT_ERR) + _text(BIT_ERR).replace("-p 4", "-p 5").replace("0x4\nst", "0x5\nst")
    ports = hccn_tool.parse_bundle(text).ports
    assert [(p.device, p.die_port) for p in ports] == [(0, "UDie 0 port 4"), (0, "UDie 0 port 5")]


def test_no_down_data_is_zero_records_and_no_finding() -> None:
    # the tool's source prints this where the port recorded no link-down
    (port,) = hccn_tool.parse_bundle(
        "hccn_tool -g -down_data -i 1 -u 0 -p 5\nudie 0 port 5: no down data\n"
    ).ports
    assert (port.device, port.die_port, port.link_down_records) == (1, "UDie 0 port 5", 0)


def test_a_cut_or_unreadable_output_is_said_with_its_line() -> None:
    cut = "\n".join(_text(DOWN_DATA).splitlines()[:27])
    bundle = hccn_tool.parse_bundle(cut)
    assert bundle.ports[0].link_down_records == 3
    assert [(w.line, w.message) for w in bundle.warnings] == [
        (22, "hccn_tool -down_data: the copy ends inside log row 2, before its 4 lanes")
    ]
    bad = _text(BIT_ERR).replace("st_fec_decoding_fail_num: 0x4", "st_fec_decoding_fail_num: 4x")
    ev = load_text(bad, "bit_err.txt")
    assert ev.npu_ports == []
    (message,) = ev.files[0].messages
    assert message.line == 4
    assert "st_fec_decoding_fail_num '4x' is not a hexadecimal count" in message.message
    row = _text(SU_BER).replace("| 0xb1c       |", "| 0xb1c  |  |")
    bundle = hccn_tool.parse_bundle(row)
    assert len(bundle.ports[0].su_ber_lanes) == 3
    assert [(w.line, w.message) for w in bundle.warnings] == [
        (7, "hccn_tool -su_ber: unreadable lane row")
    ]


def test_the_su_ber_mode_query_is_said_to_hold_no_figures() -> None:
    # the reference's -mode_status example: the test's mode, no bit-error counts
    text = (
        "hccn_tool -g -su_ber -i 0 -u 0 -p 4 -mode_status\n"
        "+-----+------+------+--------------+-----------+\n"
        "| NPU | UDie | Port | su_itlv_mode | status    |\n"
        "+-----+------+------+--------------+-----------+\n"
        "| 0   | 0    | 4    | non-itlv     | stop      |\n"
        "+-----+------+------+--------------+-----------+\n"
    )
    ev = load_text(text, "su_ber_mode.txt")
    assert ev.npu_ports == []
    (message,) = ev.files[0].messages
    assert "-mode_status's table" in message.message and "not read" in message.message
