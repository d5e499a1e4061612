"""Outputs of round BBBB's held-out set 598 (tests/data/evidence_heldout_64, sources in
tests/data/SOURCES.md): InfiniBand and NIC tools the importer read as no format, or as the
wrong command.

ibdiagnet is judged by its own stage summary (an error a failure, a warning a warning), in
1.x's "Stages Status Report" (STAGE, Errors, Warnings) and ibdiagnet2's "Summary" (Stage,
Warnings, Errors, Comment: the other order). ``ethtool -m | grep dBm`` keeps only the optic's
power lines and thresholds: read as ethtool -m, the readings judged against the module's own
thresholds. ``mlxconfig set`` (Next Boot / New, "Applying... Done!", "-I- Please reboot machine
to load new configurations.") applied values that load at the next boot: a warning, and a step
the copy is cut in is no device."""

from __future__ import annotations

from functools import partial

from advisor.evidence.load import EvidenceFacts, load_text
from advisor.parsers import ethtool, rdma
from advisor.rules.findings import RulesOutcome
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_64"

IBDIAGNET = "ibdiagnet_1.5.7_archwiki_2_ca_0_errors_1_warning_ipoib_group_rate_10g.txt"
ETHTOOL_DBM = "ethtool_m_swp1_grep_dbm_rx_-2.36dbm_within_thresholds.txt"
MLXCONFIG_SET = (
    "mlxconfig_set_connectx6_mcx653106a_boot_options_applied_reboot_required_maas_cut.txt"
)


_load = partial(heldout.load, HELDOUT)


def _above_info(outcome: RulesOutcome) -> set[tuple[str, str]]:
    return {(f.rule_id, f.severity) for f in outcome.findings if f.severity != "info"}


def _notes(ev: EvidenceFacts) -> list[tuple[int, str]]:
    return [(m.line, m.message) for f in ev.files for m in f.messages]


def test_ibdiagnet_1_5_7_summary_with_one_warning_is_a_warning() -> None:
    ev = _load(IBDIAGNET)
    assert ev.files[0].formats == ["ibdiagnet"] and len(ev.failures) == 1
    (note,) = _notes(ev)
    assert note[0] == 54
    assert note[1].endswith(
        "ibdiagnet 1.5.7: 2 nodes (0 switches, 2 CAs) discovered; stage summary: 8 stage(s), "
        "0 error(s), 1 warning(s)"
    )
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert _above_info(outcome) == {("evidence-ibdiagnet-warnings", "warning")}
    (item,) = heldout.items(outcome, "evidence-ibdiagnet-warnings")
    # the stage's own -W- line (46), not the topology-file notice of line 2
    assert item.startswith(
        "IPoIB Subnets Check: 0 error(s), 1 warning(s): -W- Suboptimal rate for group. Lowest "
        "member rate:20Gbps > group-rate:10Gbps (line 46)"
    )
    assert item.endswith("line 62)") and "Topology" not in item


# ibdiagnet2's summary (MFT's ibdiagnet 2.x): Warnings before Errors, a Comment column, "-I- "
# before each row; its sections are a name under a dashed rule
IBDIAGNET2 = """\
---------------------------------------------
Discovery
-I- Discovering ... 15 nodes (3 Switches & 12 CA-s) discovered.
-I- Fabric Discover finished successfully
---------------------------------------------
Links Check
-E- Links Check finished with errors
-E- Link is in INIT state: S7cfe900300a5a2c0/N7cfe900300a5a2c0/P9<-->S7cfe900300a5a2a0/P13
---------------------------------------------
Summary
-I- Stage                     Warnings   Errors     Comment
-I- Discovery                 3          0
-I- Links Check               0          1
-I- Port Counters             2          0

-I- You can find detailed errors/warnings in: /var/tmp/ibdiagnet2/ibdiagnet2.log
"""


def test_ibdiagnet2_summary_reads_its_columns_in_their_order() -> None:
    (report,) = rdma.parse_ibdiagnet(IBDIAGNET2)
    assert [(s.name, s.errors, s.warnings) for s in report.stages] == [
        ("Discovery", 0, 3),
        ("Links Check", 1, 0),
        ("Port Counters", 0, 2),
    ]
    assert [m[0] for m in report.stages[1].messages] == [7, 8]
    ev = load_text(IBDIAGNET2, "ibdiagnet2.out")
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert _above_info(outcome) == {
        ("evidence-ibdiagnet-errors", "critical"),
        ("evidence-ibdiagnet-warnings", "warning"),
    }
    (error,) = heldout.items(outcome, "evidence-ibdiagnet-errors")
    assert error.startswith("Links Check: 1 error(s), 0 warning(s): -E- Links Check finished")
    assert [i.split(":", 1)[0] for i in heldout.items(outcome, "evidence-ibdiagnet-warnings")] == [
        "Discovery",
        "Port Counters",
    ]


def test_ibdiagnet_cut_before_its_summary_is_not_judged() -> None:
    head = (HELDOUT / IBDIAGNET).read_text().split("-I- Stages Status Report:")[0]
    ev = load_text(head.replace("-I- Stages", ""), "ibdiagnet_cut.txt")
    assert ev.files[0].formats == ["ibdiagnet"] and not ev.failures
    assert "the stage summary is not in the copy" in _notes(ev)[0][1]
    level, _ = heldout.imported(ev)
    assert level == "READY"


def test_ethtool_m_grepped_to_its_power_lines_within_thresholds_is_healthy() -> None:
    ev = _load(ETHTOOL_DBM)
    assert ev.files[0].formats == ["ethtool_module"] and not ev.failures
    (note,) = _notes(ev)
    assert note == (
        2,
        "ethtool_module: ethtool -m swp1: power lines only (the module's identifier is not in "
        "the copy), optical power Tx 0.6770 mW / -1.69 dBm; Rx 0.5806 mW / -2.36 dBm (8 of its "
        "thresholds shown)",
    )
    (module,) = ethtool.parse_module((HELDOUT / ETHTOOL_DBM).read_text())
    assert module.thresholds_mw["rx low warning"] == 0.0363
    assert module.thresholds_mw["tx high alarm"] == 1.7783
    level, _ = heldout.imported(ev)
    assert level == "READY"


def test_ethtool_m_power_past_an_alarm_threshold_is_a_failure() -> None:
    # the same lines with Rx at 0.0200 mW (past the low alarm 0.0229), Tx past its high warning
    # only (1.2000 mW, warning 1.1220, alarm 1.7783), a QSFP lane's form for the Rx reading
    text = (HELDOUT / ETHTOOL_DBM).read_text()
    text = text.replace("0.6770 mW / -1.69 dBm", "1.2000 mW / 0.79 dBm")
    text = text.replace(
        "Receiver signal average optical power     : 0.5806 mW / -2.36 dBm",
        "Rcvr signal avg optical power(Channel 1) : 0.0200 mW / -16.99 dBm",
    )
    ev = load_text(text, "ethtool_m.txt")
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert _above_info(outcome) == {
        ("evidence-nic-optical-power-alarm", "critical"),
        ("evidence-nic-optical-power-warn", "warning"),
    }
    (alarm,) = heldout.items(outcome, "evidence-nic-optical-power-alarm")
    assert alarm.startswith(
        "swp1: Rcvr signal avg optical power(Channel 1) 0.0200 mW / -16.99 dBm: under its low "
        "alarm threshold 0.0229 mW"
    )
    assert alarm.endswith("line 3)")
    (warn,) = heldout.items(outcome, "evidence-nic-optical-power-warn")
    assert "over its high warning threshold 1.122 mW" in warn and warn.endswith("line 2)")


def test_mlxconfig_set_applied_and_pending_a_reboot_is_a_warning() -> None:
    ev = _load(MLXCONFIG_SET)
    assert ev.files[0].formats == ["mlxconfig"]
    notes = _notes(ev)
    assert [line for line, _ in notes] == [1, 11, 30]
    assert "IP_VER IPv4(0) → IPv4_IPv6(2)" in notes[0][1]
    assert notes[1][1].endswith(
        "mlxconfig set: ConnectX6 (c2:00.0), BOOT_VLAN 1 → 0, BOOT_UNDI_NETWORK_WAIT 0 → 30 "
        "(4 setting(s) shown); applied, loaded at the next reboot"
    )
    # the third step is cut at its device type: no device with no settings is made of it
    assert "no device is read from it" in notes[2][1]
    assert not any("query" in m or "0 setting(s)" in m for _, m in notes)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert _above_info(outcome) == {("evidence-nic-config-pending-reboot", "warning")}
    items = heldout.items(outcome, "evidence-nic-config-pending-reboot")
    assert len(items) == 2
    assert items[0].startswith("a device named above the copy: IP_VER IPv4(0) → IPv4_IPv6(2)")
    assert items[0].endswith("line 5)")
    assert items[1].startswith(
        "ConnectX6 (c2:00.0): BOOT_VLAN 1 → 0, BOOT_UNDI_NETWORK_WAIT 0 → 30 applied, loaded "
        "at the next reboot"
    )
    assert items[1].endswith("line 24)")


def test_mlxconfig_set_answered_no_is_not_pending() -> None:
    text = (HELDOUT / MLXCONFIG_SET).read_text().split("Enabling Expansion ROM")[0]
    text = text[text.index("Device #1:") :].replace(
        "[n] : y\nApplying... Done!\n-I- Please reboot machine to load new configurations.",
        "[n] : n\n-I- Aborted by user",
    )
    ev = load_text(text, "mlxconfig_set.txt")
    assert not ev.failures
    assert _notes(ev)[0][1].endswith("not applied in the copy")
    level, _ = heldout.imported(ev)
    assert level == "READY"
