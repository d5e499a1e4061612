"""Outputs of the held-out evaluation's set 361 (tests/data/evidence_heldout_52, sources in
tests/data/SOURCES.md) that the advisor read wrong or not at all before this change."""

from __future__ import annotations

from functools import partial

from advisor.parsers import dcgm
from advisor.parsers.rdma import GBIT_PER_MIB, NO_DEVICE, parse_perftest
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_52"


_load = partial(heldout.load, HELDOUT)


def test_an_old_perftest_head_without_a_device_line_is_a_run_on_the_commands_port() -> None:
    ev = _load("ib_send_bw_ud_mlx4_port2_old_perftest_format_sweep_jebtang.txt")
    (report,) = ev.files
    assert (report.status, report.formats, report.messages) == ("read", ["perftest"], [])
    (port,) = ev.hca_ports
    # the device and port are the command's -d and -i; the run starts at its title (line 3)
    assert (port["ca"], port["port"], port["line"], port["tool"]) == (
        "mlx4_0",
        2,
        3,
        "perftest ib_send_bw",
    )
    assert port["active_mtu"] == 2048
    run = port["perftest"]
    assert (run["test"], run["peer"], run["failed"]) == ("Send BW", "10.10.11.8", None)
    assert [int(r["bytes"]) for r in run["rows"]] == [2**k for k in range(1, 12)]
    assert {r["iterations"] for r in run["rows"]} == {1000}
    # BW average[MB/sec] (MiB/s) 2919.91 at 2048 B, its peak 2923.29
    last = run["rows"][-1]
    assert last["bw_average_gbps"] == run["bw_average_gbps"] == round(2919.91 * GBIT_PER_MIB, 3)
    assert last["bw_peak_gbps"] == round(2923.29 * GBIT_PER_MIB, 3)
    assert run["compare_key"] == "Send BW at 2048 B"
    findings = builtin_findings({"evidence.hca_ports": ev.hca_ports}, "nccl")
    (line,) = findings["evidence-rdma-perftest"].items
    assert line.startswith("mlx4_0 port 2: Send BW to 10.10.11.8: 24.494 Gb/s average at 2048 B")
    # a completed sweep: healthy
    assert not [f for f in findings.values() if f.severity != "info"]


def test_perftests_bare_qp_to_rtr_failures_are_failed_runs() -> None:
    ev = _load("ib_write_bw_failed_modify_qp_to_rtr_grh_required_perftest393.txt")
    (report,) = ev.files
    assert (report.status, report.formats) == ("read", ["perftest"])
    # two processes (each main() gave up with "Unable to Connect the HCA's through the link")
    assert [(p["ca"], p["line"], p["perftest"]["failed"]) for p in ev.hca_ports] == [
        (NO_DEVICE, 1, "Failed to modify QP 122273 to RTR"),
        (NO_DEVICE, 3, "Failed to modify QP 122272 to RTR"),
    ]
    findings = builtin_findings({"evidence.hca_ports": ev.hca_ports}, "nccl")
    failed = findings["evidence-rdma-perftest-failed"]
    assert failed.severity == "warning"
    assert "Failed to modify QP 122273 to RTR" in failed.items[0]
    assert failed.items[0].endswith(", line 1)")


def test_a_dcgmi_diag_table_cut_after_a_section_header_is_partial_and_warned() -> None:
    ev = _load("dcgmi_diag_r3_dcgm_3_0_4_deployment_all_pass_no_metadata_dcgm55_cut.txt")
    (report,) = ev.files
    assert (report.status, report.formats) == ("partial", ["dcgm_diag"])
    # (round RRRR set 693 added a note of the results above a cut: the Deployment passes here)
    note, kept = report.messages
    assert "the results in the copy above its cut: Deployment: all 9 checks Pass" in kept.message
    assert note.line == 16
    assert "the table ends after its Integration header" in note.message
    assert "the level-3 run's Integration/Hardware/Stress results are not in the copy" in (
        note.message
    )
    (diag,) = ev.dcgm_diags
    assert diag["level"] == "3"
    assert diag["cut"] == {
        "line": 16,
        "after": "Integration",
        "missing": ["Integration", "Hardware", "Stress"],
        "inside_row": False,
    }
    assert [(c["section"], c["result"]) for c in diag["checks"]] == [("Deployment", "Pass")] * 9
    findings = builtin_findings({"evidence.dcgm_diags": ev.dcgm_diags}, "nccl")
    cut = findings["evidence-dcgm-diag-cut-short"]
    assert cut.severity == "warning"
    (line,) = cut.items
    assert line.startswith(
        "dcgmi diag -r 3: the table ends after its Integration header (line 16); not in the "
        "copy: Integration, Hardware, Stress"
    )
    assert "evidence-dcgm-diag-failed" not in findings


_HEAD = """\
$ dcgmi diag -r {level}
Successfully ran diagnostic for group.
+---------------------------+------------------------------------------------+
| Diagnostic                | Result                                         |
+===========================+================================================+
|-----  Deployment  --------+------------------------------------------------|
| Denylist                  | Pass                                           |
+-----  Integration  -------+------------------------------------------------+
"""
_FOOTER = "+---------------------------+------------------------------------------------+\n"


def test_a_level_1_table_cut_after_a_section_header_loses_no_result() -> None:
    (diag,), (note,) = dcgm.parse(_HEAD.format(level="1"))
    assert diag.cut is not None and diag.cut.missing == []
    assert note.line == 8 and not note.skipped


def test_an_empty_section_under_its_closing_border_is_no_cut() -> None:
    (diag,), notes = dcgm.parse(_HEAD.format(level="3") + _FOOTER)
    assert diag.cut is None and notes == []


def test_an_old_perftest_head_without_its_command_names_no_device() -> None:
    text = (HELDOUT / "ib_send_bw_ud_mlx4_port2_old_perftest_format_sweep_jebtang.txt").read_text()
    ports, (note,) = parse_perftest(text.split("\n", 1)[1])
    (port,) = ports
    assert (port.ca, port.port, port.line) == (NO_DEVICE, 1, 2)
    assert port.perftest is not None and len(port.perftest.rows) == 11
    assert note.line == 2 and not note.skipped
