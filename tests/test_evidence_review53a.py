"""Review 53 of round HHHH (sets 631-636) and review 52's mends, faults 1, 4, 5, 6, 7 and 8: a
ConnectX-7 named like its seven siblings trained at 16GT/s x8; upgrade-tool's versions through
pdsh and under two hosts' prompts; ``nvidia-smi -i 1 ...; nvidia-smi -i 3 ...`` on one line; a
JSON list of two escaped dcgmi diag outputs, the failing one second; an ib_write_bw -a client
stopped by a remote access error after its 8192 B row: each on its input (tests/data/review53,
described in tests/data/SOURCES.md)."""

from __future__ import annotations

import json
from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review53"
REVIEW52 = DATA / "review52"
HELDOUT = DATA / "evidence_heldout_68"

_write = partial(heldout.load_copy, name="copy.txt")


def _load(name: str, where: Path = REVIEW) -> EvidenceFacts:
    return load_paths([where / name])


# --- 1. lspci: a ConnectX-7 named like its siblings, trained at 16GT/s x8 -----------------------

CX7_NAMED = "lspci_vv_grep_8x_connectx7_same_model_named_one_at_16gt_x8_pciutils35.txt"
LNKSTA_MIXED = (
    "lspci_lnksta_per_mlx5_loop_older_pciutils_8x16_cx7_plus_2_cx6lx_native_x8_healthy.txt"
)


def test_a_nic_named_as_its_siblings_is_their_model_narrow_though_slower_too() -> None:
    ev = _load(CX7_NAMED)
    assert [(f["kind"], f["line"]) for f in ev.failures] == [("pcie_link_narrow", 13)]
    assert ev.failures[0]["message"].startswith("a5:00.0 Infiniband controller: Mellanox")
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-pcie-link-narrow", "warning")]
    (item,) = heldout.items(outcome, "evidence-pcie-link-narrow")
    assert (
        "MT2910 Family [ConnectX-7]: PCIe link 16GT/s x8: fewer lanes than the other NICs" in item
    )
    # the wrong claim: "most likely another model" of a card the listing names as the others
    assert not any("another model" in m for _, m in heldout.notes(ev))
    # the review-52 variant it was made from (no names, another speed) is still a note
    mixed = _load(LNKSTA_MIXED, REVIEW52)
    assert not mixed.failures
    assert heldout.imported(mixed)[0] == "READY"


def test_a_narrow_nic_named_otherwise_is_another_model_whatever_its_speed(
    tmp_path: Path,
) -> None:
    head = "{bus}:00.0 Infiniband controller: Mellanox Technologies {name} (rev 00)\n"
    sta = "\t\tLnkSta:\tSpeed {s}GT/s, Width x{w}, TrErr- Train- SlotClk+ DLActive-\n"
    cx7 = "MT2910 Family [ConnectX-7]"
    wide = "".join(head.format(bus=f"{n:02x}", name=cx7) + sta.format(s=32, w=16) for n in range(4))
    # another name (a ConnectX-6 Lx) at the siblings' own speed: another model, a note
    other = wide + head.format(bus="a5", name="MT2894 Family [ConnectX-6 Lx]")
    ev = _write(tmp_path, other + sta.format(s=32, w=8))
    assert not ev.failures
    (said,) = [m for _, m in heldout.notes(ev) if "another model by its name" in m]
    assert (
        "another model by its name (Mellanox Technologies MT2894 Family [ConnectX-6 Lx], theirs "
        "Mellanox Technologies MT2910 Family [ConnectX-7])" in said
    )
    # the siblings' name, another revision: the same model, narrow
    same = wide + head.format(bus="a5", name=cx7).replace("(rev 00)", "(rev 01)")
    ev = _write(tmp_path, same + sta.format(s=16, w=8))
    assert [(f["kind"], f["line"]) for f in ev.failures] == [("pcie_link_narrow", 10)]


# --- 4 and 5. upgrade-tool through pdsh, and under two hosts' prompts ----------------------------

UPGRADE_PDSH = "upgrade_tool_version_pdsh_two_nodes_node1_node2_2_devices.txt"
UPGRADE_TWO_HOSTS = "upgrade_tool_version_two_hosts_prompts_node1_7_5_node2_7_3.txt"
UPGRADE_REAL = "upgrade_tool_component_version_7_5_0_2_220_device0_nve_succeed.txt"


def _upgrade_notes(ev: EvidenceFacts) -> list[tuple[int, str]]:
    return [
        (n, m.removeprefix("ascend_notes: upgrade-tool --version: ")) for n, m in heldout.notes(ev)
    ]


def test_upgrade_tool_through_pdsh_is_read_per_host_and_device() -> None:
    ev = _load(UPGRADE_PDSH)
    assert ev.files[0].formats == ["ascend_notes"]
    versions = "nve 7.5.0.2.220 (componentType 0), imu 7.5.0.2.220 (componentType 3)"
    said = f"firmware component(s): {versions}; the versions it runs, not judged"
    assert _upgrade_notes(ev) == [
        (1, f"node1: NPU 0's {said}"),
        (5, f"node1: NPU 1's {said}"),
        (9, f"node2: NPU 0's {said}"),
        (13, f"node2: NPU 1's {said}"),
    ]
    assert heldout.imported(ev)[0] == "READY"
    # the real sample it was made from reads as before: one host, unnamed
    real = _load(UPGRADE_REAL, HELDOUT)
    assert _upgrade_notes(real) == [
        (
            1,
            "NPU 0's firmware component(s): nve 7.5.0.2.220 (componentType 0); the versions it "
            "runs, not judged",
        )
    ]


def test_two_hosts_prompts_keep_each_hosts_versions_and_say_they_differ() -> None:
    ev = _load(UPGRADE_TWO_HOSTS)
    said = _upgrade_notes(ev)
    assert [n for n, _ in said] == [2, 4, 7, 9, 2]
    assert said[0][1].startswith("node1: NPU 0's firmware component(s): nve 7.5.0.2.220 (")
    assert said[2][1].startswith("node2: NPU 0's firmware component(s): nve 7.3.0.1.231 (")
    assert (
        said[-1][1] == "the hosts' nve firmware differs: 7.5.0.2.220 on node1, 7.3.0.1.231 on node2"
    )
    # the wrong claim: one NPU running two versions of one component
    assert not any("7.5.0.2.220 (componentType 0), nve 7.3.0.1.231" in m for _, m in said)


def test_a_second_run_without_a_prompt_host_is_kept_apart(tmp_path: Path) -> None:
    text = (REVIEW / UPGRADE_TWO_HOSTS).read_text()
    bare = text.replace("[root@node1 ~]# ", "$ ").replace("[root@node2 ~]# ", "$ ")
    said = _upgrade_notes(_write(tmp_path, bare))
    assert said[2][1].startswith("the run of line 6: NPU 0's firmware component(s): nve 7.3.")
    assert said[-1][1] == (
        "the hosts' nve firmware differs: 7.5.0.2.220 on the first run, 7.3.0.1.231 on the run "
        "of line 6"
    )


# --- 6. nvidia-smi -i 1 ...; nvidia-smi -i 3 ... on one command line ----------------------------

FABRIC_ONE_LINE = "nvidia_smi_i_1_and_i_3_grep_fabric_one_command_line_gpu3_in_progress.txt"
FABRIC_TWO = "nvidia_smi_query_gpu_4x_gb300_then_i_1_and_i_3_q_grep_fabric_gpu3_in_progress.txt"


def test_each_command_of_one_line_gets_its_own_gpus_section() -> None:
    ev = _load(FABRIC_ONE_LINE)
    assert [(g["gpu"], g["line"], g["fabric_state"]) for g in ev.gpus] == [
        (1, 3, "Completed"),
        (3, 10, "In Progress"),
    ]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-gpu-fabric-not-registered")
    assert item.startswith("GPU 3: Fabric State In Progress Status N/A (")
    assert item.endswith(", line 10)")
    # the wrong claim: GPU 1 charged with GPU 3's state, citing GPU 1's Completed line
    assert "GPU 1:" not in str(outcome.findings)
    # the review-52 variant, a command a line, reads as before
    two = _load(FABRIC_TWO, REVIEW52)
    assert [(g["gpu"], g["line"]) for g in two.gpus if g["query"] == "q"] == [(1, 10), (3, 19)]


def test_one_i_on_a_line_still_keeps_a_section_printed_twice_one_gpus(tmp_path: Path) -> None:
    fabric = "    Fabric\n        State          : {state}\n        Status         : {status}\n"
    one = (
        "$ nvidia-smi -i 2 -q | grep -A 2 Fabric && echo done\n"
        + fabric.format(state="Completed", status="Success")
        + fabric.format(state="Completed", status="Success")
    )
    assert [g["gpu"] for g in _write(tmp_path, one).gpus] == [2]
    # "&&" between the commands, --id= on the second
    both = (
        "$ nvidia-smi -i 0 -q | grep -A 2 Fabric && nvidia-smi --id=5 -q | grep -A 2 Fabric\n"
        + fabric.format(state="Completed", status="Success")
        + fabric.format(state="In Progress", status="N/A")
    )
    assert [(g["gpu"], g["fabric_state"]) for g in _write(tmp_path, both).gpus] == [
        (0, "Completed"),
        (5, "In Progress"),
    ]


# --- 7. a JSON list of escaped outputs, the failing one second ----------------------------------

DCGM_TWO = "dcgmi_diag_r3_two_nodes_json_raw_output_escaped_healthy_first_gpu1_fail_second.json.txt"
DCGM_REAL = "dcgmi_diag_r3_dcgm_3.3.9_4x_a10g_targeted_power_fail_gpu1_json_escaped_one_line.txt"


def test_every_escaped_output_of_a_json_list_is_read_in_either_order(tmp_path: Path) -> None:
    ev = _load(DCGM_TWO)
    assert ev.files[0].formats == ["dcgm_diag"]
    assert any(
        "2 outputs kept as JSON strings (their line breaks written '\\n'), on line 5 as the 35 "
        "lines it holds, on line 10 as the 40 lines it holds" in m
        for _, m in heldout.notes(ev)
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-dcgm-diag-failed", "critical")]
    (item,) = heldout.items(outcome, "evidence-dcgm-diag-failed")
    assert item.startswith("Targeted Power (Stress): Fail - GPU: 1: Warning: GPU 1 Max power")
    # the records the other way round read alike: the verdict no longer follows their order
    records = json.loads((REVIEW / DCGM_TWO).read_text())
    swapped = _write(tmp_path, json.dumps(records[::-1], indent=4))
    assert heldout.above_info(heldout.imported(swapped)[1]) == heldout.above_info(outcome)
    # the real sample it was made from, one string, reads as before
    real = _load(DCGM_REAL, HELDOUT)
    assert any(
        "an output kept as one JSON string on line 1 (its line breaks written '\\n') read as "
        "the 40 lines it holds" in m
        for _, m in heldout.notes(real)
    )
    assert heldout.above_info(heldout.imported(real)[1]) == [
        ("evidence-dcgm-diag-failed", "critical")
    ]


# --- 8. ib_write_bw -a: a remote access error after the 8192 B row -------------------------------

PERFTEST_8192 = "ib_write_bw_a_rem_access_err_after_8192_row_below_server_default_65536.txt"
PERFTEST_65536 = (
    "ib_write_bw_a_client_only_rem_access_err_after_65536_row_server_default_size_single_prompt.txt"
)


def test_a_remote_access_error_below_the_servers_default_buffer_stays_the_runs_stop() -> None:
    ev = _load(PERFTEST_8192)
    run = ev.hca_ports[0]["perftest"]
    assert (run["rows"][-1]["bytes"], run["failed_line"], run["sizes_mismatched"]) == (
        8192,
        38,
        False,
    )
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-rdma-perftest-stopped-mid-run", "critical")]
    (item,) = heldout.items(outcome, "evidence-rdma-perftest-stopped-mid-run")
    assert "163.47 Gb/s average at 8192 B, its last row, then: Completion with error" in item
    assert "IBV_WC_REM_ACCESS_ERR" in item
    # the wrong cause: a server started without -a or -s (its 65536 B buffer held 16384 B)
    assert "evidence-rdma-perftest-sizes-mismatched" not in {f.rule_id for f in outcome.findings}
    # the review-52 sample it was made from, stopped after the 65536 B row, is still the set-up
    full = _load(PERFTEST_65536, REVIEW52)
    assert full.hca_ports[0]["perftest"]["sizes_mismatched"] is True
    assert heldout.above_info(heldout.imported(full)[1]) == [
        ("evidence-rdma-perftest-sizes-mismatched", "warning")
    ]
