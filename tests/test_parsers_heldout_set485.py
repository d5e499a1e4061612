"""Outputs of rounds III and JJJ's held-out evaluation (sets 485-492) and earlier rounds' leftovers
that the advisor read wrong or not at all before this change (tests/data/evidence_heldout_59,
sources in tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor.parsers import rdma
from tests.rules_facts import builtin_findings
from tests.test_parsers_heldout_set453 import HELDOUT, _load

# --- round HHH's leftovers ---------------------------------------------------------------------


def test_iblinkinfo_links_whose_lanes_run_slower_than_the_fastest_are_a_warning() -> None:
    # an old fabric: faui36b/c at 4X 10.0 Gbps (QDR lanes), faui36a/d/e/f at 5.0 (DDR), an
    # InfiniHostLx and every link of the second switch at 2.5 (SDR); width is not compared (a
    # split port is narrower by design)
    name = "iblinkinfo_ompi_users_2010_faui36_ibm_hssm_topspin_4x_sdr_ddr_qdr_mixed_speeds_ports_down_polling.txt"
    ports, _ = rdma.parse((HELDOUT / name).read_text())
    active = [p for p in ports if p.active]
    assert len(active) == 13
    # the heading without a colon after "Switch" names the switch
    assert {p.ca for p in active} == {"IBM HSSM", "Topspin Switch"}
    slower = {(p.ca, p.port): p.lane_gbps for p in active if p.fastest_lane_gbps == 10.0}
    assert slower[("IBM HSSM", 1)] == 5.0
    assert slower[("IBM HSSM", 2)] == 2.5
    assert ("IBM HSSM", 17) not in slower and ("IBM HSSM", 18) not in slower
    assert len(slower) == 11
    found = builtin_findings({"evidence.hca_ports": _load(name).hca_ports}, "nccl")
    finding = found["evidence-hca-link-lanes-slower"]
    assert finding.severity == "warning"
    assert finding.message.startswith("11 active link(s) in 1 fabric output(s)")
    assert any(
        "IBM HSSM port 19 to faui36d HCA-1 port 1: 5.0 Gb/s a lane" in i for i in finding.items
    )


def test_one_lane_speed_with_different_widths_is_no_warning() -> None:
    # an HDR switch with a split (2X) port beside 4X ones: narrower by design, lanes alike
    text = (
        "Switch: 0x0c42a10300c1e0d0 MF0;sw01:MQM8700/U1:\n"
        '          1    1[  ] ==( 4X 53.125 Gbps Active/  LinkUp)==>      5    1[  ] "gpu01 mlx5_0" ( )\n'
        '          1    2[  ] ==( 2X 53.125 Gbps Active/  LinkUp)==>      6    1[  ] "gpu02 mlx5_0" ( )\n'
    )
    ports, _ = rdma.parse(text)
    assert [(p.rate_gbps, p.lane_gbps, p.fastest_lane_gbps) for p in ports] == [
        (200.0, 50.0, None),
        (100.0, 50.0, None),
    ]
