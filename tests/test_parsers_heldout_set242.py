"""Outputs the two-hundred-forty-second held-out evaluation misread (tests/data/evidence_heldout_42,
sources in tests/data/SOURCES.md): DCGM 4's table, a test that failed while every GPU passed."""

from __future__ import annotations

from advisor.evidence.load import load_paths
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_42"


def test_a_dcgm_test_that_failed_while_every_gpu_passed_is_the_tests_own_error() -> None:
    ev = load_paths(
        [
            HELDOUT
            / "dcgmi_diag_dcgm4_l40s_and_b200_pcie_fail_internal_error_every_gpu_row_pass_dcgm253_cut.txt"
        ]
    )
    first, second = ev.dcgm_diags
    assert (first["dcgm_version"], second["dcgm_version"]) == ("4.2.3", "4.4.1")
    (pcie,) = [c for c in first["checks"] if c["name"] == "pcie"]
    assert pcie["result"] == "Fail" and pcie["gpu_results"] == {
        "0": "Pass",
        "1": "Pass",
        "2": "Pass",
        "3": "Pass",
    }
    assert "internal error during the test" in " ".join(pcie["details"])
    assert first["failed"] == [] and [c["name"] for c in first["test_errors"]] == ["pcie"]
    assert len(second["checks"]) == 3 and second["checks"][0]["gpu_results"]["7"] == "Pass"
    findings = builtin_findings({"evidence.dcgm_diags": ev.dcgm_diags}, "nccl")
    assert "evidence-dcgm-diag-failed" not in findings
    assert findings["evidence-dcgm-diag-precondition"].severity == "warning"
