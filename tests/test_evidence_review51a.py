"""Review 51 of round FFFF (sets 619-624) and review 50's mends, faults 4, 5, 6, 8, 9 and 12: an
NVLink replay counter of 1 read from one nvidia-smi nvlink -e; mlxlink's RoCE ports whose
Physical state is the autonegotiation machine's ETH_AN_FSM_ENABLE; a grepped ``nvidia-smi -i 3
-q`` section beside --query-gpu rows of other fields; an lspci LnkSta loop without pciutils 3.7's
marks, one NIC at x4; npu-smi info | grep 0000 under pdsh's host prefixes; nvidia-smi -L of two
hosts: each on its input (tests/data/review51, described in tests/data/SOURCES.md)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review51"
HELDOUT = DATA / "evidence_heldout_67"

_write = partial(heldout.load_copy, name="copy.txt")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


# --- 4. nvidia-smi nvlink -e: a replay counter of 1, kept since the driver loaded -------------

NVLINK_1 = "nvidia_smi_nvlink_e_v100_lifetime_counter_gpu0_link3_replay_1_rest_0.txt"
NVLINK_2353 = (
    "nvidia_smi_nvlink_e_v100_sxm2_condensed_gpu0_link3_replay2353_gpu2_link0_crc65535.txt"
)


def test_one_replay_counted_since_the_driver_loaded_is_a_warning_not_a_failed_gpu() -> None:
    ev = _load(NVLINK_1)
    assert [(g["gpu"], g["replay_total"], g["error_total"]) for g in ev.nvlinks] == [
        (0, 1, 1),
        (2, 0, 0),
    ]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    # DCGM fails a GPU on one error *more* over its watch window; one read gives a total
    assert heldout.above_info(outcome) == [("evidence-nvlink-errors", "warning")]
    (item,) = heldout.items(outcome, "evidence-nvlink-errors")
    assert item.startswith("GPU 0 (Tesla V100-SXM2-32GB-LS): link 3 Replay Errors 1;")
    assert "evidence-nvlink-replay-errors" not in {f.rule_id for f in outcome.findings}


def test_the_real_samples_thousands_of_replays_still_fail_the_gpus() -> None:
    level, outcome = heldout.imported(_load(NVLINK_2353, HELDOUT))
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-nvlink-replay-errors", "critical")]
    first, second = heldout.items(outcome, "evidence-nvlink-replay-errors")
    assert first.startswith("GPU 0 (Tesla V100-SXM2-32GB-LS): link 3 Replay Errors 2353;")
    assert second.startswith("GPU 2 (Tesla V100-SXM2-32GB-LS): link 0 Replay Errors 148;")


def test_a_few_recovery_errors_in_dcgmis_or_smis_form_stay_a_warning(tmp_path: Path) -> None:
    text = (
        "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-5261e3df-82f6-67b4-9953-4e63527e0e9d)\n"
        "\t Link 0: Replay Errors: 0\n"
        "\t Link 0: Recovery Errors: {n}\n"
        "\t Link 0: CRC Errors: 0\n"
    )
    level, outcome = heldout.imported(_write(tmp_path, text.format(n=3)))
    assert (level, heldout.above_info(outcome)) == (
        "READY WITH WARNINGS",
        [("evidence-nvlink-errors", "warning")],
    )
    level, outcome = heldout.imported(_write(tmp_path, text.format(n=100)))
    assert (level, heldout.above_info(outcome)) == (
        "NOT READY",
        [("evidence-nvlink-replay-errors", "critical")],
    )


# --- 5. mlxlink on RoCE ports: Physical state ETH_AN_FSM_ENABLE --------------------------------

ROCE = (
    "mft_health_check_script_4x_cx7_roce_mlxlink_excerpt_physical_state_ETH_AN_FSM_ENABLE_200G.txt"
)
ROCE_LINKUP = "mft_mlx_nic_health_check_script_4x_cx7_200g_linkup_fw28.40_temp65_mst_mlxconfig_mlxlink_flint.txt"


def test_an_ethernet_ports_autonegotiation_state_says_nothing_of_the_port_alone() -> None:
    ev = _load(ROCE)
    ports = [(p["ca"], p["physical_state"], p["active"], p["rate_gbps"]) for p in ev.hca_ports]
    assert ports == [
        (ca, "ETH_AN_FSM_ENABLE", None, 200.0)
        for ca in ("0000:05:00.0", "0000:05:00.1", "0001:05:00.0", "0001:05:00.1")
    ]
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert "evidence-hca-port-not-active" not in {f.rule_id for f in outcome.findings}
    # the same ports at LinkUp (the real sample) read as before
    linkup = _load(ROCE_LINKUP, HELDOUT)
    assert [(p["physical_state"], p["active"]) for p in linkup.hca_ports] == [("LinkUp", None)] * 4
    assert heldout.imported(linkup)[0] == level


def test_a_port_whose_logical_state_is_said_is_judged_by_it_and_an_ib_phy_down_still_is(
    tmp_path: Path,
) -> None:
    block = "Operational Info\n----------------\nState : {state}Physical state : {phys}\nSpeed : {speed}\n"
    # a RoCE port whose cable is out prints the same ETH_AN_FSM_ENABLE: its State says so
    ev = _write(tmp_path, block.format(state="Disable\n", phys="ETH_AN_FSM_ENABLE", speed="N/A"))
    assert [p["active"] for p in ev.hca_ports] == [False]
    ev = _write(tmp_path, block.format(state="Active\n", phys="ETH_AN_FSM_ENABLE", speed="100G"))
    assert [p["active"] for p in ev.hca_ports] == [True]
    # an InfiniBand PHY that is not up, its logical state cut: not active, as before
    cut = "Operational Info\n----------------\nPhysical state : Polling\nSpeed : N/A\n"
    assert [p["active"] for p in _write(tmp_path, cut).hca_ports] == [False]


# --- 6. nvidia-smi -i 3 -q | grep Fabric beside --query-gpu rows of memory fields --------------

FABRIC_I3 = "nvidia_smi_query_gpu_4x_gb300_memory_rows_then_i_3_q_grep_fabric_in_progress.txt"
FABRIC = (
    "nvidia_smi_query_fabric_state_4x_gb300_in_progress_status_na_plus_q_fabric_grep_elided.txt"
)


def test_a_grepped_section_of_the_gpu_i_asked_is_that_gpus_and_not_folded_into_a_row() -> None:
    ev = _load(FABRIC_I3)
    rows = [g for g in ev.gpus if g.get("query") == "csv"]
    assert [g["gpu"] for g in rows] == [0, 1, 2, 3]
    assert not any(g.get("fabric_state") for g in rows)
    (section,) = [g for g in ev.gpus if g.get("query") == "q"]
    assert (section["gpu"], section["line"], section["fabric_state"]) == (3, 10, "In Progress")
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-gpu-fabric-not-registered")
    assert item.startswith("GPU 3: Fabric State In Progress Status N/A (")
    assert item.endswith(", line 10)")
    assert not any(
        i.startswith("GPU 0") for i in heldout.items(outcome, "evidence-gpu-fabric-not-registered")
    )


def test_the_real_samples_section_that_agrees_with_its_row_still_folds_into_it() -> None:
    ev = _load(FABRIC, HELDOUT)
    assert [(g["gpu"], g["line"], g["query"]) for g in ev.gpus] == [
        (0, 3, "csv"),
        (1, 4, "csv"),
        (2, 5, "csv"),
        (3, 6, "csv"),
    ]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert len(heldout.items(outcome, "evidence-gpu-fabric-not-registered")) == 4


# --- 8. lspci LnkSta per mlx5 device, pciutils before 3.7 (no "(ok)/(downgraded)") ------------

LNKSTA_OLD = "lspci_lnksta_per_mlx5_loop_older_pciutils_no_ok_downgraded_marks_mlx5_106_x4.txt"
LNKSTA = "lspci_lnksta_per_mlx5_loop_mlx5_106_gen4_width_x4_downgraded_nccl_precheck.txt"


def test_an_unmarked_x4_nic_among_x16_siblings_is_said_narrow_against_them() -> None:
    ev = _load(LNKSTA_OLD)
    (narrow,) = ev.failures
    assert (narrow["kind"], narrow["line"], narrow["message"]) == (
        "pcie_link_narrow",
        2,
        "mlx5_106",
    )
    assert narrow["exception_type"] == (
        "PCIe link 16GT/s x4: fewer lanes than the other NICs of the listing (x16); no LnkCap "
        "or lspci (ok)/(downgraded) mark in the copy says its own width"
    )
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-pcie-link-narrow", "warning")]
    # the marked real sample reads as before: lspci's own mark
    marked = _load(LNKSTA, HELDOUT)
    assert [(f["line"], f["exception_type"]) for f in marked.failures] == [
        (2, "PCIe link 16GT/s x4: fewer lanes than the device has")
    ]
    assert heldout.imported(marked)[0] == level


def test_unmarked_nics_split_evenly_or_alike_say_nothing_of_each_other(tmp_path: Path) -> None:
    row = "MLX Number: mlx5_{n}            LnkSta: Speed 16GT/s, Width x{w}\n"
    even = row.format(n=0, w=16) + row.format(n=1, w=4)
    assert not _write(tmp_path, even).failures
    alike = "".join(row.format(n=n, w=8) for n in range(4))
    assert not _write(tmp_path, alike).failures


# --- 9. npu-smi info | grep 0000 under pdsh's host prefixes ------------------------------------

NPU_PDSH = "npu_smi_info_grep_0000_pdsh_two_nodes_node02_chip_0000_02_hbm_held.txt"
NPU_GREP = DATA / "review50" / "npu_smi_info_grep_0000_910b2_8_chip_rows_npu5_hbm_61234_held.txt"


def test_pdsh_prefixed_chip_rows_are_read_per_host_and_the_held_chip_named_with_its_host() -> None:
    ev = _load(NPU_PDSH)
    chips = ev.npu_chips
    assert len(chips) == 16
    assert [c["host"] for c in chips] == ["node01"] * 8 + ["node02"] * 8
    held = [(c["host"], c["bus_id"], c["hbm_used_pct"]) for c in chips if c["hbm_used_pct"] > 50]
    assert held == [("node02", "0000:02:00.0", 93.4)]
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-npu-hbm-held", "warning")]
    (item,) = heldout.items(outcome, "evidence-npu-hbm-held")
    assert item.startswith("the NPU chip at bus id 0000:02:00.0 on node02 (its NPU id, name")
    assert "HBM 61234 of 65536 MB (93.4 %)" in item and "line 15" in item
    assert not any("no form the advisor reads" in m for _, m in heldout.notes(ev))
    # the unprefixed real sample reads as before, no host said
    plain = load_paths([NPU_GREP])
    (item,) = heldout.items(heldout.imported(plain)[1], "evidence-npu-hbm-held")
    assert item.startswith("the NPU chip at bus id 0000:02:00.0 (its NPU id, name and health")
    assert {c["host"] for c in plain.npu_chips} == {None}


# --- 12. nvidia-smi -L of two hosts through ssh -----------------------------------------------

L_TWO_HOSTS = "nvidia_smi_L_two_hosts_ssh_loop_gpu01_gpu02_each_2_gpus.txt"


def test_a_second_hosts_listing_is_not_called_a_view_of_the_first_hosts_gpus() -> None:
    ev = _load(L_TWO_HOSTS)
    ((line, note),) = [(n, m) for n, m in heldout.notes(ev) if "GPU(s)" in m]
    assert line == 3
    assert "nvidia-smi -L: 4 GPU(s) (NVIDIA A100-SXM4-80GB): by their UUIDs, in" in note
    assert "GPU 0, 1 (the listing at line 3); GPU 0, 1 (the listing at line 6: GPUs the" in note
    assert "another listing, another host's (a loop over hosts) or a restricted view" in note
    assert "as a container's or a job's view of the host's GPUs numbers them" not in note
    assert heldout.imported(ev)[0] == "READY"
