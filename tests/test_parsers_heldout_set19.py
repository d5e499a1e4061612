"""Outputs the nineteenth and twentieth held-out evaluations misread: nccl-tests' own verdict of
wrong data in an older log that prints a max error, nvidia-smi's underlined header copied without
its escape character, a rank table printed into a log and cut, an elastic summary copied from
inside an entry, and a plog prefix with no space after its level.

Samples: ``tests/data/evidence_heldout_19/`` and ``evidence_real/hccl_heartbeat_plog.log``
(sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from advisor.evidence.load import load_paths
from advisor.parsers import logs
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_19"


def test_out_of_bounds_values_are_a_failed_check_with_a_critical_finding() -> None:
    path = HELDOUT / "nccl_tests_oob_failed.log"
    ev = load_paths([path])
    (bench,) = ev.benchmarks
    # footer lines copied without their "#"
    assert (bench["footer_avg_busbw_gbps"], bench["complete"]) == (128.942 * 8, True)
    assert bench["failed_checks"] == [{"bytes": None, "ranks": [], "out_of_bounds": 2}]
    finding = builtin_findings({"evidence.benchmarks": ev.benchmarks}, "nccl")[
        "evidence-hccl-test-check-failed"
    ]
    assert finding.severity == "critical"
    assert [str(i) for i in finding.items] == [
        f"{path}: all_gather failed its check — 2 value(s) out of bounds"
    ]


def test_underlined_header_of_nvidia_smi_topo() -> None:
    ev = load_paths([HELDOUT / "nvidia_topo_underlined.txt"])
    assert ev.files[0].status == "read"
    (topo,) = ev.topologies
    assert (topo["links"]["GPU0"]["GPU7"], topo["links"]["GPU4"]["NIC4"]) == ("NV18", "PXB")
    assert (topo["cpu_affinity"]["GPU7"], topo["numa_affinity"]["GPU7"]) == ("64-127,192-255", "1")
    assert (topo["nics"]["NIC0"], topo["nics"]["NIC8"]) == ("mlx5_10", "mlx5_bond_0")


def test_rank_table_printed_into_a_log_and_cut() -> None:
    ev = load_paths([HELDOUT / "rank_table_in_log_cut.log"])
    (report,) = ev.files
    # the file's last line: the table is cut there
    assert (report.status, [m.line for m in report.messages]) == ("partial", [39])
    (table,) = ev.rank_tables
    assert (table["version"], table["server_count"], table["cut"]) == ("1.0", 4, True)
    assert [(r["rank"], r["server_id"], r["device_ip"]) for r in table["ranks"]][:2] == [
        (0, "118.183.202.44", "-.-.-.-"),
        (1, "118.183.202.44", "-.-.-.-"),
    ]
    # keys after the cut are not missing; the dashes a generator wrote where it found no
    # address, on six devices, are a finding
    assert table["errors"] == [
        "device_ip is '-.-.-.-' for 6 device(s) (ranks 0, 1, 2, 3, 4, 5): no address, the "
        "table's generator found none (give each NPU its device IP, hccn_tool -i N -ip -s, "
        "and generate the table again)"
    ]
    # six of the table's ranks are no cluster shape
    assert ev.shapes == []


def test_elastic_summary_copied_from_inside_an_entry() -> None:
    ev = load_paths([HELDOUT / "elastic_inside_entry.log"])
    assert [(f["line"], f["rank"], f["pid"], f["root_cause"]) for f in ev.failures] == [
        (1, 1, 69812, False),
        (6, 2, 69813, False),
        (13, 3, 69814, False),
        (22, 0, 69811, True),
    ]


def test_plog_prefix_without_a_space_names_its_process() -> None:
    events = logs.parse((DATA / "evidence_real" / "hccl_heartbeat_plog.log").read_text()).events
    assert [(e.line, e.pid) for e in events] == [(1, 686), (2, 835695), (3, 1219039)]
