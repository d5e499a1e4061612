"""Outputs the two-hundred-seventeenth to two-hundred-twentieth held-out evaluations misread that
this stop reads: torch's store-based barrier time-out at process-group init, rows of several runs
pasted under a banner each, ``nvidia-smi nvlink -R``'s map of where each link goes, and a
benchmark's bus bandwidth halving at one size.

Samples: ``tests/data/evidence_heldout_36/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from functools import partial
from typing import Any

from advisor.evidence.load import EvidenceFacts, load_text
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import finding_items

HELDOUT = DATA / "evidence_heldout_36"


_load = partial(heldout.load, HELDOUT)


def _kinds(ev: EvidenceFacts, kind: str) -> list[dict[str, Any]]:
    return [f for f in ev.failures if f["kind"] == kind]


def test_a_store_based_barrier_time_out_names_how_many_ranks_joined() -> None:
    ev = _load(
        "c10d_store_based_barrier_timeout_rank0_key1_world8_worker_count7_timeout_5s_init_"
        "process_group_composer_initialize_ddp_composer179.log"
    )
    (barrier,) = _kinds(ev, "store_timeout")
    assert (barrier["rank"], barrier["line"], barrier["rank_size"], barrier["timeout_ms"]) == (
        0,
        16,
        8,
        5000,
    )
    assert barrier["exception_type"] == (
        "in the store-based barrier at process-group init (7 of 8 ranks joined)"
    )
    assert _kinds(ev, "python_exception") == []
    items = finding_items({"evidence.failures": [barrier]}, "nccl")["evidence-store-timeout"]
    assert items[0].startswith("Rank 0 timed out after 5 s in the store-based barrier")


def test_newer_torchs_barrier_wording_and_a_count_past_the_world_are_read() -> None:
    # torch's later DistStoreError wording (num_workers_joined), and a key an earlier run with the
    # same store address left counting past the world size
    text = (
        "torch.distributed.DistStoreError: Timed out initializing process group in store based "
        "barrier on rank 3, for key: store_based_barrier_key:1 (world_size=8, "
        "num_workers_joined=16, timeout=0:15:00)\n"
    )
    (barrier,) = _kinds(load_text(text, "train.log"), "store_timeout")
    assert (barrier["rank"], barrier["rank_size"], barrier["timeout_ms"]) == (3, 8, 900_000)
    assert "the key counts 16 for 8 ranks" in barrier["exception_type"]


def test_rows_of_several_runs_under_a_banner_each_are_one_table_a_run() -> None:
    ev = _load("rccl_tests_allreduce_mi325x_1_2_4_8node_egrep_large_sizes_only.txt")
    assert ev.files[0].status == "partial"  # no header, no footer: what the grep kept
    largest = [
        next(r["busbw_gbps"] for r in b["results"] if r["bytes"] == 16 << 30 and not r["in_place"])
        for b in ev.benchmarks
    ]
    assert largest == [319.08 * 8, 350.24 * 8, 350.59 * 8, 350.84 * 8]
    assert all(len(b["results"]) == 6 and b["op"] == "all_reduce" for b in ev.benchmarks)


def test_nvlink_r_is_read_as_where_each_link_goes_and_not_judged() -> None:
    ev = _load("nvidia_smi_nvlink_R_2x_h100_pcie_nvlink_bridge_remote_link_map_dl380a.txt")
    assert ev.files[0].status == "read"
    gpu0, gpu1 = ev.nvlinks
    assert (gpu0["gpu"], len(gpu0["remote"]), gpu0["remote"]["4"]) == (
        0,
        12,
        "00000000:D5:00.0 link 6",
    )
    assert set(gpu1["remote"].values()) >= {"00000000:C2:00.0 link 15"}
    assert gpu0["active"] is None and gpu0["inactive"] == [] and not gpu0["fewer_than_peers"]
    findings = finding_items({"evidence.nvlinks": ev.nvlinks}, "nccl")
    assert not {"evidence-nvlink-inactive", "evidence-nvlink-inactive-alike"} & set(findings)


def test_a_dip_in_a_vendors_example_output_is_a_warning() -> None:
    ev = _load("rccl_tests_allreduce_1node_8x_mi350x_whitespace_collapsed_rcccl_typo_doc.log")
    (bench,) = ev.benchmarks
    (dip,) = bench["busbw_drops"]
    assert (dip["in_place"], dip["from_bytes"], dip["to_largest"]) == (False, 64 << 20, False)
    assert (dip["best_bytes"], dip["lowest_busbw_gbps"]) == (32 << 20, 111.92 * 8)
    items = finding_items({"evidence.benchmarks": [bench]}, "nccl")
    assert "(a dip: larger sizes recover)" in items["evidence-benchmark-busbw-drop"][0]


def test_npu_smi_watch_is_read_as_figures_per_chip_and_not_judged() -> None:
    ev = _load(
        "npu_smi_info_watch_i2_910b3_npu2_chip0_31_samples_90_100w_34c_aicore0_neutronascend_readme.txt"
    )
    report = ev.files[0]
    assert (report.status, report.formats) == ("read", ["npu_smi_watch"])
    (note,) = report.messages
    assert note.message.startswith(
        "npu_smi_watch: npu-smi info watch, NPU 2 chip 0: 31 sample(s), Pwr(W) 90.1-100.1, "
        "Temp(C) 34-35, AI Core(%) 0, Memory(%) 5"
    )
    assert ev.failures == [] and ev.npu_chips == []
    newer = _load(
        "npu_smi_info_watch_all_8npu_ascend950_288_292w_48_51c_npu_util_ai_cube_cols_driver_doc.txt"
    )
    notes = [m.message for m in newer.files[0].messages]
    assert len(notes) == 8 and "NPU 6: 1 sample(s), Pwr(W) 288.5, Temp(C) 48" in notes[6]
    assert "NPU Util(%) 0" in notes[0]


def test_npu_smi_m_is_read_as_a_map_of_ids() -> None:
    text = "".join(
        f"        {npu:<31}{chip:<31}{logic:<31}{name}\n"
        for npu, chip, logic, name in (
            ("NPU ID", "Chip ID", "Chip Logic ID", "Chip Name"),
            ("0", "0", "0", "Ascend 910B4"),
            ("0", "1", "-", "Mcu"),
            ("1", "0", "1", "Ascend 910B4"),
            ("1", "1", "-", "Mcu"),
        )
    )
    report = load_text(text, "npu-smi-m.txt").files[0]
    assert (report.status, report.formats) == ("read", ["npu_smi_mapping"])
    assert report.messages[0].message == (
        "npu_smi_mapping: npu-smi info -m: 2 chip(s) (Ascend 910B4) used as logical devices 0, 1; "
        "2 without one (Mcu): a map of ids, not judged"
    )


def test_ascend_950s_dev_info_port_table_gives_each_ports_link() -> None:
    ev = _load(
        "hccn_tool_dev_info_ascend950_dev0_udie0_ports4_6_ub_400g_up_end0v0_ipourma0_eids_driver_doc.txt"
    )
    assert ev.files[0].status == "read"
    assert [(p["die_port"], p["link"], p["speed_mbps"], p["line"]) for p in ev.npu_ports] == [
        ("UDie 0 port 4", "UP", 400_000, 4),
        ("UDie 0 port 5", "UP", 400_000, 5),
        ("UDie 0 port 6", "UP", 400_000, 6),
    ]
    down = load_text(
        "| UDie ID | Port ID | Speed Ability(Gbps) | Port Type | Link Status | Media Type |\n"
        "| 0       | 4       | 400                 | UB        | DOWN        | Electrical |\n",
        "dev_info.txt",
    )
    items = finding_items({"evidence.npu_ports": down.npu_ports})["evidence-npu-port-down"]
    assert items[0].startswith("the port at line 2 (device not named) UDie 0 port 4 link DOWN")


def test_ranks_creating_their_communicator_beyond_the_connect_time_out_apart_warn() -> None:
    ev = _load(
        "hccl_run_plog_grep_entry_comminitrootinfo_4ranks_rank3_issued_200s_after_others_all_reduce_test_hicann_doc.log"
    )
    (late,) = _kinds(ev, "hccl_init_skew")
    assert (late["rank"], late["remote_rank"], late["line"], late["ran_for_ms"]) == (
        3,
        0,
        1,
        200005,
    )
    assert late["message"].startswith("rank 3 called HcclCommInitRootInfo 200 s after rank 0")
    findings = finding_items({"evidence.failures": [late]})
    assert "evidence-hccl-init-skew" in findings
    # within the default 120 s: nothing
    near = "".join(
        f"[INFO] HCCL({100 + r},all_reduce_test):2025-11-20-11:5{6 + r}:36.704.523 [op_base.cc:1293] "
        f"[{100 + r}]Entry-HcclCommInitRootInfoInner:ranks[2], rank[{r}], rootinfo: host "
        "ip[127.10.0.1] port[60000]\n"
        for r in (0, 1)
    )
    assert _kinds(load_text(near, "plog.log"), "hccl_init_skew") == []


def test_ascend_950s_port_info_and_link_set_up_history_are_read() -> None:
    (port,) = _load(
        "hccn_tool_port_info_ascend950_dev0_udie0_port4_400g_x4_link_active_fec_err_driver_doc.txt"
    ).npu_ports
    assert (port["die_port"], port["link"]) == ("port 4", "UP")
    ev = _load(
        "hccn_tool_adapt_status_ascend950_dev0_udie0_port4_link_fail_linkdown_history_epoch_"
        "timestamps_driver_doc.txt"
    )
    (told,) = ev.npu_ports
    assert (told["device"], told["die_port"], told["link"]) == (0, "UDie 0 port 4", None)
    assert told["link_history"][:2] == [
        "index 0: L0:link_proc|L1:link_fail",
        "index 1: L0:link_proc|L1:wait_detect|L2:linkdown|L3:linkdown_off",
    ]
    assert len(told["link_history"]) == 5  # the lane table after it is not the port's
    (item,) = finding_items({"evidence.npu_ports": ev.npu_ports})["evidence-npu-port-link-history"]
    assert item.startswith("NPU 0 UDie 0 port 4: index 0: L0:link_proc|L1:link_fail; index 1:")
