"""Outputs of round SSSS's held-out evaluation (set 697, Ascend tool outputs) that the advisor read
wrong or in part before this change (tests/data/evidence_heldout_79, sources in
tests/data/SOURCES.md): hccn_tool -s -tls's certificate-replacement answer, its pass phrase
prompt and private-key reminder over "Cmd executed successfully!", was no format the advisor
knew; MindCluster's sampled hccn_tool -stat CSV of an NPU that received PFC pause frames on
0.039 of the RoCE packets it sent between its samples said "PFC pause frames on priority 4"
without their size, rise or share, and no congestion; and npu-smi info's process table alone,
one python3 of 58 MB on NPU 0, was warned of as a chip a job may not have free."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import NPU_PROCESS_SMALL_MB, EvidenceFacts, load_paths
from advisor.parsers import hccn_tool
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_79"

TLS = "hccn_tool_950_tls_replace_cert_dev0_delete_private_key_warning_success_driver_doc_cut.txt"
STAT_CSV = "hccn_tool_stat_csv_npu1_pfc_pri4_rx_964m_tx_3_4m_no_err_mindcluster_faultdiag.txt"
PROCESSES = "npu_smi_info_process_table_only_npu0_python3_58mb_oamtools_msprof_dynamic_doc_cut.txt"

PFC = "evidence-npu-pfc-congestion"
HELD = "evidence-npu-process-chips"

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


def _said(ev: EvidenceFacts) -> list[tuple[int | None, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


# --- hccn_tool -s -tls: the certificate replacement's answer -----------------------------------


def test_a_tls_certificate_replacement_that_succeeded_is_a_note() -> None:
    ev = _load(TLS)
    (report,) = ev.files
    assert (report.formats, report.status, ev.failures) == (["ascend_notes"], "read", [])
    ((line, note),) = _said(ev)
    assert line == 3  # "Cmd executed successfully!"
    assert note.startswith(
        "ascend_notes: hccn_tool -s -tls: the TLS certificate replacement was accepted"
    )
    # the WARNING is the guide's reminder to delete the key (precaution 5), said with its line
    assert "'[WARNING] Please delete the private key file' (line 2)" in note
    assert "not a fault" in note
    assert "device" not in note.split(":")[1]  # the copy names no device: none is made up
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_the_replacement_with_its_command_names_the_device(tmp_path: Path) -> None:
    command = "hccn_tool -s -tls -i 3 -path /root/certs -pri pri.pem -pub pub.pem -ca1 ca1.pem\n"
    ev = _write(tmp_path, command + _text(TLS))
    ((line, note),) = _said(ev)
    assert line == 4
    assert note.startswith("ascend_notes: hccn_tool -s -tls (device 3): the TLS certificate ")
    assert "(line 3)" in note  # the reminder, a line lower under the command
    assert heldout.imported(ev)[0] == "READY"


def test_the_reminder_alone_over_its_success_is_read_too(tmp_path: Path) -> None:
    # a copy that left the pass phrase prompt out (the reminder is its first line)
    ev = _write(tmp_path, "".join(_text(TLS).splitlines(keepends=True)[1:]))
    ((line, note),) = _said(ev)
    assert line == 2
    assert "'[WARNING] Please delete the private key file' (line 1)" in note
    assert heldout.imported(ev)[0] == "READY"


def test_the_reminder_without_the_success_line_is_not_taken_for_a_success(tmp_path: Path) -> None:
    text = _text(TLS).replace("Cmd executed successfully!", "Cmd executed failed!")
    ev = _write(tmp_path, text)
    assert not any("replacement was accepted" in m for _, m in _said(ev))


# --- MindCluster's hccn_tool -stat samples: PFC pause frames received ---------------------------


def test_pfc_pause_frames_received_past_faultdiags_share_are_a_congestion_warning() -> None:
    ev = _load(STAT_CSV)
    assert ev.files[0].formats == ["hccn_stat_csv"]
    (port,) = ev.npu_ports
    assert (port["device"], port["line"], port["stat_errors"]) == (1, 4, {})
    ((line, note),) = _said(ev)
    assert line == 4
    assert "NPU 1: 3 sample(s) over 5 s" in note
    assert "every error and bad-packet counter 0" in note
    # the figures and their rise (lines 2-4), and all of the rise by line 3
    assert (
        "PFC pause frames received (mac_rx_pfc_pkt_num) 963,935,016 (line 2) to 964,010,889 "
        "(line 4), +75,873 in 5 s (all of it by line 3, 3 s in)" in note
    )
    # FaultDiag's t_congestion_index over the samples' growth, and since the driver started
    assert "0.039 a RoCE packet sent between the samples (roce_tx_all_pkt_num +1,933,923)" in note
    assert "0.3 a RoCE packet sent since the driver started" in note
    assert "sent (mac_tx_pfc_pkt_num) 3,375,911, +0" in note
    (failure,) = ev.failures
    assert (failure["kind"], failure["line"], failure["device"]) == ("npu_pfc_congestion", 4, 1)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [(PFC, "warning")]
    (item,) = heldout.items(outcome, PFC)
    assert item.startswith(
        "NPU 1: mac_rx_pfc_pkt_num 964,010,889 (+75,873 over its samples): 0.039"
    )
    assert item.endswith(f"({HELDOUT / STAT_CSV}, line 4)")
    assert "error" not in item  # no error is made up: every error counter is 0


def test_another_npu_of_the_same_samples_is_named(tmp_path: Path) -> None:
    lines = _text(STAT_CSV).splitlines(keepends=True)
    rows = [r.replace(",1,2022/11/9", ",6,2022/11/9") for r in lines[1:]]
    ev = _write(tmp_path, "".join([lines[0], *rows]))
    (failure,) = ev.failures
    assert (failure["device"], failure["message"]) == (
        6,
        "NPU 6: mac_rx_pfc_pkt_num 964,010,889 (+75,873 over its samples)",
    )


def test_faultdiags_npu_0_below_the_share_stays_ready() -> None:
    # the same job's NPU 0 (set 631): +98,813 pause frames on +4,820,833 RoCE packets sent, 0.02,
    # within what FaultDiag's training set labels uncongested: figures said, no warning
    ev = load_paths(
        [
            DATA
            / "evidence_heldout_68"
            / "mindcluster_npu_0_details_csv_hccn_stat_counters_dev0_3samples_no_roce_err_rx_pfc_1e9.csv"
        ]
    )
    ((_, note),) = _said(ev)
    assert "+98,813 in 4 s; 0.02 a RoCE packet sent between the samples" in note
    assert ev.failures == []
    assert heldout.imported(ev)[0] == "READY"


def test_a_healthy_twin_with_few_pause_frames_stays_ready(tmp_path: Path) -> None:
    # the same samples with the received pause frames a thousandth of theirs (963,935 to 964,010)
    text = _text(STAT_CSV).replace("963935016", "963935").replace("964010889", "964010")
    ev = _write(tmp_path, text)
    ((_, note),) = _said(ev)
    assert "963,935 (line 2) to 964,010 (line 4), +75 in 5 s" in note
    assert ev.failures == []
    assert heldout.imported(ev)[0] == "READY"


def test_one_sample_says_its_totals_and_judges_no_share(tmp_path: Path) -> None:
    # (review 65a fault 1: FaultDiag weighs the samples' differences, never the totals since the
    # driver started, so one sample's lifetime ratio is said, not judged)
    lines = _text(STAT_CSV).splitlines(keepends=True)
    ev = _write(tmp_path, lines[0] + lines[1])
    ((_, note),) = _said(ev)
    assert "963,935,016 (line 2); 0.3 a RoCE packet sent since the driver started" in note
    assert "no congestion share judged: one sample" in note
    assert ev.failures == []
    assert heldout.imported(ev)[0] == "READY"


def test_the_share_is_faultdiags_ratio_at_its_bound() -> None:
    # mac_rx_pfc_pkt_num / roce_tx_all_pkt_num over the samples' growth, 0.03 and 10,000 frames
    (npu,) = hccn_tool.parse_stat_csv(_text(STAT_CSV))[0]
    got = hccn_tool.pfc_received(npu)
    assert got is not None and got.over_samples and got.congested
    assert got.share is not None and round(got.share, 4) == round(75873 / 1933923, 4)
    assert hccn_tool.PFC_RECEIVED_SHARE == 0.03 and hccn_tool.PFC_RECEIVED_MIN == 10_000


# --- npu-smi info's process table alone -----------------------------------------------------------


def test_a_small_process_on_a_chip_without_its_rows_is_a_note() -> None:
    ev = _load(PROCESSES)
    assert ev.npu_chips == []
    (chip,) = ev.npu_process_chips
    assert (chip["npu"], chip["chip"], chip["line"], chip["memory_mb"]) == (0, 0, 4, 58)
    assert chip["small_hold"] is True
    notes = [m for line, m in _said(ev) if line == 4]
    assert any("python3 830236, 58 MB" in m for m in notes)
    assert any(f"hold 58 MB together, under {NPU_PROCESS_SMALL_MB} MB" in m for m in notes)
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_the_same_table_with_a_large_hold_stays_a_warning(tmp_path: Path) -> None:
    # another NPU, its python3 holding 52919 MB (as the busy set 697 twin's): still held
    text = (
        _text(PROCESSES)
        .replace("| 0       0   ", "| 3       0   ")
        .replace("| 58                      |", "| 52919                   |")
    )
    ev = _write(tmp_path, text)
    (chip,) = ev.npu_process_chips
    assert (chip["npu"], chip["memory_mb"], chip["small_hold"]) == (3, 52919, False)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, HELD)
    assert item.startswith("NPU 3 chip 0: 1 process(es) holding 52919 MB: python3 (pid 830236")


def test_several_small_processes_are_summed_before_the_bound(tmp_path: Path) -> None:
    # two processes of 600 MB each on one chip: 1200 MB together, past the bound, a warning
    lines = _text(PROCESSES).splitlines(keepends=True)
    row = lines[3].replace("| 58                      |", "| 600                     |")
    ev = _write(tmp_path, "".join([*lines[:3], row, row.replace("830236", "830237"), *lines[4:]]))
    (chip,) = ev.npu_process_chips
    assert (chip["memory_mb"], chip["small_hold"]) == (1200, False)
    assert heldout.above_info(heldout.imported(ev)[1]) == [(HELD, "warning")]
