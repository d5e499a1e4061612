"""Every Xid whose Immediate Action in NVIDIA's Xid catalog is RESET_GPU is a fault by its number
alone (docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html, its "Resolution Bucket
(Immediate Action)" column: 46, 48 by its workflow, 62, 64, 79, 95, 109, 110, 119, 120, 136, 140,
143, 158), while the Xids the catalog sends to the application (RESTART_APP: 13, 31, 43) stay the
application's warning. The lines are in the driver's form (NVRM: Xid (PCI:bus): N, pid=...,
name=..., words), written with the words each Xid's catalog row gives."""

from __future__ import annotations

from pathlib import Path

import pytest

from advisor.parsers import logs
from tests import heldout

# (Xid, the driver's words after its pid and name) for the catalog's RESET_GPU rows added to
# XID_RESET beside the ones the earlier rounds met (48, 62, 64, 79, 95, 109, 119, 120)
RESET_GPU_LINES = [
    (46, "GPU stopped processing"),
    (110, "Security Fault Error"),
    (136, "Link Training Failed"),
    (140, "ECC Unrecovered Error"),
    (143, "GPU Initialization Error"),
    (158, "GPU Fatal Timeout"),
]


@pytest.mark.parametrize(("xid", "words"), RESET_GPU_LINES)
def test_a_reset_gpu_xid_is_a_fault_of_that_gpu(tmp_path: Path, xid: int, words: str) -> None:
    line = f"[ 9001.512345] NVRM: Xid (PCI:0000:3b:00): {xid}, pid=4242, name=python, {words}\n"
    ev = heldout.load_copy(tmp_path, line, "kern.log")
    (fault,) = ev.failures
    assert (fault["kind"], fault["code"]) == ("gpu_driver_fault", str(xid))
    assert "0000:3b:00" in fault["message"]
    assert heldout.imported(ev)[0] == "NOT READY"


@pytest.mark.parametrize("xid", [13, 31, 43])
def test_the_applications_xids_stay_warnings(tmp_path: Path, xid: int) -> None:
    line = f"[ 9001.512345] NVRM: Xid (PCI:0000:3b:00): {xid}, pid=4242, name=python, Ch 00000010\n"
    ev = heldout.load_copy(tmp_path, line, "kern.log")
    (error,) = ev.failures
    assert (error["kind"], error["code"]) == ("gpu_driver_error", str(xid))
    assert heldout.imported(ev)[0] == "READY WITH WARNINGS"


def test_every_reset_xid_is_named_and_explained() -> None:
    # a fault the report states by number alone says what the number means
    assert all(x in logs.XID_NAMES and x in logs.XID_MEANINGS for x in logs.XID_RESET)
    assert not logs.XID_RESET & {13, 31, 43, 45}
