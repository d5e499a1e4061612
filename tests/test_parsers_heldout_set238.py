"""Outputs the two-hundred-thirty-eighth held-out evaluation could not read
(tests/data/evidence_heldout_42, sources in tests/data/SOURCES.md): ``iblinkinfo``'s fabric
links and ``dcgmi diag``'s result table."""

from __future__ import annotations

from advisor.evidence.load import load_paths, load_text
from tests.conftest import DATA
from tests.rules_facts import builtin_findings, finding_items

HELDOUT = DATA / "evidence_heldout_42"


def test_iblinkinfo_gives_each_links_state_nominal_rate_and_peer() -> None:
    ev = load_paths(
        [HELDOUT / "iblinkinfo_4_v100_hcas_edr_sharp_aggnode_hdr_mqm8700_nccl_tests71_cut.txt"]
    )
    (report,) = ev.files
    assert (report.status, report.formats) == ("read", ["rdma"])
    got = [
        (p["ca"], p["port"], p["state"], p["physical_state"], p["rate_gbps"]) for p in ev.hca_ports
    ]
    # EDR's 25.78125 Gbps lanes are 100 Gb/s at 4X (ibstat's Rate), HDR's 53.125 are 200
    assert got[0] == ("gpu-v100-3 HCA-1", 1, "Active", "LinkUp", 100.0)
    assert got[1] == ("Mellanox Technologies Aggregation Node", 1, "Active", "LinkUp", 200.0)
    assert len(got) == 8 and all(p["active"] for p in ev.hca_ports)
    assert ev.hca_ports[0]["peer"] == "MF0;ibswitch254:MQM8700/U1 port 3"
    switch = [p for p in ev.hca_ports if p["ca"] == "MF0;ibswitch254:MQM8700/U1"]
    assert [p["peer"] for p in switch][-1] == "gpu-v100-2 HCA-1 port 1"
    assert "evidence-hca-port-not-active" not in builtin_findings(
        {"evidence.hca_ports": ev.hca_ports}, "nccl"
    )


def test_a_down_link_in_iblinkinfo_is_a_port_not_active_and_an_empty_switch_port_is_none() -> None:
    text = (
        HELDOUT / "iblinkinfo_4_v100_hcas_edr_sharp_aggnode_hdr_mqm8700_nccl_tests71_cut.txt"
    ).read_text()
    # the first host link as a cable pulled: the HCA reads Down/Polling with no peer; the switch's
    # own empty port (no peer) is no port of anything
    down = text.replace(
        '( 4X      25.78125 Gbps Active/  LinkUp)==>       3    3[  ] "MF0;ibswitch254:MQM8700/U1"',
        '(                Down/ Polling)==>             [  ] ""',
        1,
    ).replace(
        '( 4X      25.78125 Gbps Active/  LinkUp)==>       6    1[  ] "gpu-v100-3 HCA-1"',
        '(                Down/ Polling)==>             [  ] ""',
    )
    ev = load_text(down, "iblinkinfo.txt")
    (host,) = [p for p in ev.hca_ports if p["ca"] == "gpu-v100-3 HCA-1"]
    assert (host["state"], host["active"], host["physical_state"], host["peer"]) == (
        "Down",
        False,
        "Polling",
        None,
    )
    assert len([p for p in ev.hca_ports if p["ca"].startswith("MF0")]) == 3
    items = finding_items({"evidence.hca_ports": ev.hca_ports}, "nccl")[
        "evidence-hca-port-not-active"
    ]
    assert len(items) == 1 and "gpu-v100-3 HCA-1" in items[0]


def test_dcgmi_diag_whose_hardware_checks_were_all_skipped_is_said_unchecked() -> None:
    name = "dcgmi_diag_r3_2_blackwell_gpus_deployment_pass_every_hardware_check_skipped_printed_twice_slurm_on_aws_cut.txt"
    ev = load_paths([HELDOUT / name])
    (report,) = ev.files
    assert (report.status, report.formats) == ("read", ["dcgm_diag"])
    (diag,) = ev.dcgm_diags  # the same table printed twice is one run, said twice
    assert (diag["dcgm_version"], diag["driver"], diag["gpu_ids"], diag["repeats"]) == (
        "3.3.9",
        "570.172.08",
        "2bb5,2bb5",
        2,
    )
    assert len(diag["checks"]) == 15 and not diag["failed"] and not diag["hardware_run"]
    assert diag["hardware_skipped"] == [
        "PCIe",
        "GPU Memory",
        "Targeted Stress",
        "Targeted Power",
        "Memory Bandwidth",
        "EUD Test",
    ]
    findings = builtin_findings({"evidence.dcgm_diags": ev.dcgm_diags}, "nccl")
    assert "evidence-dcgm-diag-not-run" in findings and "evidence-dcgm-diag-failed" not in findings
