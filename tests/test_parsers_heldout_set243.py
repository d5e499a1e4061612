"""Outputs the two-hundred-forty-third and -fourth held-out evaluations misread
(tests/data/evidence_heldout_42, sources in tests/data/SOURCES.md): npu-smi's ECC answer, NCCL
falling back to sockets between hosts."""

from __future__ import annotations

from advisor.evidence.load import load_paths, load_text
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_42"


def test_npu_smis_ecc_answer_is_judged_by_its_double_bit_counts() -> None:
    name = "npu_smi_info_t_ecc_i0_ascend950_hbm_single_double_bit_counts_0_driver_doc.txt"
    ev = load_paths([HELDOUT / name])
    assert ev.npu_chips == []
    (note,) = ev.files[0].messages
    assert "no double-bit (uncorrectable) memory error" in note.message
    text = (
        (HELDOUT / name)
        .read_text()
        .replace(
            "HBM Double Bit Error Count               : 0",
            "HBM Double Bit Error Count               : 2",
        )
    )
    (chip,) = load_text(text, "ecc.txt").npu_chips
    assert (chip["npu"], chip["health"]) == (0, "HBM Double Bit Error Count 2 (uncorrectable)")


def test_nccl_on_two_hosts_without_an_ib_device_is_a_socket_network_warning() -> None:
    ev = load_paths(
        [
            HELDOUT
            / "slurm_shifter_nccl_2_5_6_two_hosts_net_ib_no_device_found_net_socket_ipoib_2x8.out"
        ]
    )
    hosts = [(f["kind"], f["host"]) for f in ev.failures]
    assert hosts == [("nccl_socket_network", "cgpu15"), ("nccl_socket_network", "cgpu16")]
    assert "over [0]ib1:10.101.105.115<0>" in ev.failures[0]["exception_type"]
    finding = builtin_findings({"evidence.failures": ev.failures}, "nccl")[
        "evidence-nccl-socket-network"
    ]
    assert finding.severity == "warning"


def test_one_hosts_socket_choice_says_nothing_of_traffic_between_hosts() -> None:
    text = (
        HELDOUT
        / "slurm_shifter_nccl_2_5_6_two_hosts_net_ib_no_device_found_net_socket_ipoib_2x8.out"
    ).read_text()
    one_host = "\n".join(line for line in text.splitlines() if "cgpu16" not in line)
    assert [
        f for f in load_text(one_host, "one.out").failures if f["kind"] == "nccl_socket_network"
    ] == []
