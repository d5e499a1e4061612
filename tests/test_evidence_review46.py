"""Review 46 of rounds AAAA and BBBB's change, faults 5, 6 and 8 (a Fabric Manager unit inactive
then started, one inactive beside PCIe-only A30s, ethtool -m's power lines beside a long run of
blanks): each on its input (tests/data/review46, described in tests/data/SOURCES.md)."""

from __future__ import annotations

import re
import time

from advisor.evidence.load import load_paths
from advisor.parsers import ethtool
from tests.conftest import DATA
from tests.test_evidence_review41 import _verdict

REVIEW = DATA / "review46"


def test_a_fabric_manager_started_after_an_inactive_status_is_running() -> None:
    ev = load_paths(
        [
            REVIEW
            / "systemctl_status_fabricmanager_inactive_then_started_then_active_running_p4d.txt"
        ]
    )
    assert not [e for e in ev.failures if e["kind"] == "fabric_manager_failed"]
    assert _verdict(ev) == "READY"


def test_an_inactive_fabric_manager_beside_a30_cards_is_not_a_failure() -> None:
    ev = load_paths(
        [REVIEW / "nvidia_smi_4xa30_pcie_plus_systemctl_fabricmanager_inactive_disabled.txt"]
    )
    assert not [e for e in ev.failures if e["kind"] == "fabric_manager_failed"]
    (unneeded,) = [e for e in ev.failures if e["kind"] == "fabric_manager_unneeded"]
    assert "NVIDIA A30" in unneeded["exception_type"]
    assert _verdict(ev) != "NOT READY"


def test_ethtool_module_power_lines_are_linear_beside_a_long_run_of_blanks() -> None:
    signature = re.compile(ethtool.MODULE_SIGNATURE, re.M)
    for text in (
        "\tLaser output power" + " " * 80_000 + "x",
        "Laser output power (Channel 1)" + " " * 80_000 + "x",
        "Vendor name : a" + " " * 80_000 + "b",
    ):
        start = time.process_time()
        signature.search(text)
        ethtool._MODULE_FIELD_RE.match(text)
        assert time.process_time() - start < 0.5
    field = ethtool._MODULE_FIELD_RE.match("\tLaser output power    : 0.6755 mW / -1.70 dBm  ")
    assert field is not None
    assert (field["key"], field["value"]) == ("Laser output power", "0.6755 mW / -1.70 dBm")
