"""Outputs of round WWWW's held-out evaluation (set 721, Ascend tool outputs) that the advisor did
not read before this change (tests/data/evidence_heldout_83, sources in tests/data/SOURCES.md):
three settings answers of Ascend 950's npu-smi (``-t sys-time``'s "System Time(local)", ``-t
tls-cert-period``'s "Certificate validity period", ``-t sys-log-info``'s three "Current syslog
dump config" lines) carried no key the npu-smi reader knew, and a notes page that wrote the
output of ``npu-smi info -l`` and ``-t health`` as ``# `` comments under each command line was
no format at all. Each is now read, READY, what it says said with its line."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_83"

SYS_TIME = "npu_smi_info_t_sys_time_dev0_ascend950_doc_cut.txt"
CERT_PERIOD = "npu_smi_info_t_tls_cert_period_90_days_ascend950_doc_cut.txt"
SYS_LOG = "npu_smi_info_t_sys_log_info_dump_disabled_ascend950_doc_cut.txt"
COMMENTED = "npu_smi_info_l_total_4_npu1_health_ok_commented_910b_driver_25_5_1_notes_cut.txt"

_write = partial(heldout.load_copy, name="copy.txt")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


# --- Ascend 950 npu-smi settings answers ------------------------------------------------------


def test_sys_time_answer_is_read_with_its_time_and_ready() -> None:
    ev = _load(SYS_TIME)
    assert ev.files[0].formats == ["npu_smi_query"] and ev.files[0].status == "read"
    ((line, message),) = heldout.notes(ev)
    assert line == 1
    assert message.startswith("npu_smi_query: npu-smi info -t sys-time (")
    assert "System Time(local) Thu Apr  9 10:03:04 2026" in message
    assert "not its health: not judged" in message
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    assert ev.npu_chips == []  # a clock, no chip's health


def test_certificate_period_answer_is_read_as_a_setting_not_a_certificate() -> None:
    ev = _load(CERT_PERIOD)
    assert ev.files[0].formats == ["npu_smi_query"] and ev.files[0].status == "read"
    ((line, message),) = heldout.notes(ev)
    assert line == 1
    assert "npu-smi info -t tls-cert-period (Certificate validity period 90 days)" in message
    assert "expiry-alarm threshold" in message
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []
    # (no certificate's alarm read from a threshold: -t tls-cert's answers are other lines)
    assert ev.npu_ports == []


def test_sys_log_info_answer_says_its_three_settings() -> None:
    ev = _load(SYS_LOG)
    assert ev.files[0].formats == ["npu_smi_query"] and ev.files[0].status == "read"
    ((line, message),) = heldout.notes(ev)
    assert line == 1
    assert "npu-smi info -t sys-log-info (" in message
    for said in (
        "Current syslog dump config recover mode disable",
        "Current syslog dump config gear NA",
        "Current syslog dump config path NA",
    ):
        assert said in message
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []


def test_settings_answers_under_their_command_lines_name_the_npu(tmp_path: Path) -> None:
    text = (
        "npu-smi info -t sys-time -i 3\n"
        + _text(SYS_TIME)
        + "npu-smi info -t tls-cert-period -i 5\n"
        + "         Certificate validity period    : 30 days\n"
    )
    ev = _write(tmp_path, text)
    assert ev.files[0].formats == ["npu_smi_query"] and ev.files[0].status == "read"
    said = heldout.notes(ev)
    assert [line for line, _ in said] == [2, 4]
    assert "npu-smi info -t sys-time of NPU 3 (" in said[0][1]
    assert said[0][1].endswith(
        "the chip's clock in the host's local time zone, not its health: not judged"
    )
    assert "expiry-alarm threshold" in said[1][1]
    assert (
        "npu-smi info -t tls-cert-period of NPU 5 (Certificate validity period 30 days)"
        in (said[1][1])
    )
    assert heldout.imported(ev)[0] == "READY"


def test_sys_log_info_enabled_with_a_path_is_said_as_printed(tmp_path: Path) -> None:
    text = (
        _text(SYS_LOG)
        .replace("recover mode : disable", "recover mode : enable")
        .replace("gear         : NA", "gear         : 2")
        .replace("path         : NA", "path         : /var/log/npu/syslog")
    )
    ev = _write(tmp_path, text)
    ((line, message),) = heldout.notes(ev)
    assert line == 1
    assert "recover mode enable" in message and "gear 2" in message
    assert "path /var/log/npu/syslog" in message
    assert heldout.imported(ev)[0] == "READY"


# --- npu-smi output written as '# ' comments under its command line --------------------------


def test_commented_output_under_npu_smi_commands_is_read() -> None:
    ev = _load(COMMENTED)
    report = ev.files[0]
    assert report.formats == ["npu_smi_query"]
    # (the copy lists NPU 1 of the 4 it counts, then the author's "# ...": partial, said so)
    assert report.status == "partial"
    said = heldout.notes(ev)
    assert (10, "npu_smi_query: npu-smi info -t health of NPU 1: Health OK") in said
    (listing,) = [m for line, m in said if line == 2]
    assert "npu-smi info -l: Total Count 4; 1 NPU(s) listed (NPU 1 (IT22PDHC))" in listing
    assert (
        0,
        "6 line(s) of npu-smi output written as '#' comments under their uncommented npu-smi "
        "command line read as the output",
    ) in said
    (chip,) = ev.npu_chips
    assert (chip["npu"], chip["health"], chip["line"], chip["query"]) == (1, "OK", 10, "health")
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []


def test_commented_whole_listing_of_another_npu_is_read_in_full(tmp_path: Path) -> None:
    text = (
        _text(COMMENTED)
        .replace("# Total Count                    : 4", "# Total Count                    : 1")
        .replace("# NPU ID                         : 1", "# NPU ID                         : 6")
        .replace("# ...\n", "")
        .replace("npu-smi info -t health -i 1", "npu-smi info -t health -i 6")
    )
    ev = _write(tmp_path, text)
    assert ev.files[0].status == "read"
    said = heldout.notes(ev)
    assert (9, "npu_smi_query: npu-smi info -t health of NPU 6: Health OK") in said
    assert [c["npu"] for c in ev.npu_chips] == [6]
    assert heldout.imported(ev)[0] == "READY"


def test_commented_health_not_ok_is_judged_on_its_npu(tmp_path: Path) -> None:
    text = _text(COMMENTED).replace(
        "# Health                         : OK", "# Health                         : Alarm"
    )
    ev = _write(tmp_path, text)
    (chip,) = ev.npu_chips
    assert (chip["npu"], chip["health"], chip["line"]) == (1, "Alarm", 10)
    assert not any("Health OK" in m for m in heldout.said(ev))
    level, outcome = heldout.imported(ev)
    assert level != "READY" and heldout.above_info(outcome)


def test_comment_lines_not_right_under_an_npu_smi_command_stay_comments(tmp_path: Path) -> None:
    # a blank line between, prose above, or another command above: the '#' lines are comments
    for text in (
        "npu-smi info -t health -i 1\n\n# Health                         : Alarm\n",
        "Check the NPUs first:\n# Health                         : Alarm\n",
        "hccn_tool -i 0 -link -g\n# Health                         : Alarm\n",
        "npu-smi info -t health -i 1  # what to run\n# Health                         : Alarm\n",
    ):
        ev = _write(tmp_path, text)
        assert ev.npu_chips == [], text
        assert not any("comments" in m for m in heldout.said(ev)), text
