"""Outputs the hundred-eighty-first to hundred-eighty-eighth held-out evaluations misread that
this stop reads: ``nvidia-smi nvlink -s`` and ``-e`` (links inactive on one GPU against its
peers, alike on all, none up; error counters), an old driver's ``SOC`` link kind (today's SYS), a
matrix whose last link cell a copy ran into the CPU affinity, ``npu-smi info -t health`` at Alarm
in a collection file, an ``-t usages`` answer saved without its command and a process table
alone, nccl-tests logs of processes that each ran one rank or whose test's own ``-n`` follows
mpirun's options, a wrapped NET/IB completion and torchrun's rank tag a page capitalised.

Samples: ``tests/data/evidence_heldout_30/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest

from advisor.evidence.command import cluster_from
from advisor.evidence.load import detect, load_text, shape_note
from advisor.parsers import ParseError, npu_smi, nvidia_smi
from tests import heldout
from tests.conftest import DATA, run_advisor
from tests.rules_facts import bench_table, builtin_findings, finding_items, npu_chip

HELDOUT = DATA / "evidence_heldout_30"


_load = partial(heldout.load, HELDOUT)


def test_inactive_nvlinks_are_read_per_gpu_and_named_in_a_finding() -> None:
    ev = _load("nvidia_smi_nvlink_s_v100_two_inactive_links_azhpc73.txt")
    # the page's "...." stands for the GPUs before GPU 3: partial, said on its line
    assert ev.files[0].status == "partial" and ev.files[0].formats == ["nvidia_smi_nvlink"]
    assert ev.files[0].messages[0].line == 2
    (gpu,) = ev.nvlinks
    assert (gpu["gpu"], gpu["name"], gpu["line"]) == (3, "Tesla V100-SXM2-32GB", 3)
    assert gpu["inactive"] == [3, 5] and gpu["active"] == 4
    assert gpu["links"]["0"] == 25.781 and gpu["links"]["3"] is None
    # an nvlink output is a CUDA host's: the nccl rules apply
    assert cluster_from(ev).backend == "nccl"
    # shown alone it has no peer to be judged by, but an SXM module's links are all wired on
    # its baseboard (a PCIe card's bridge may leave some unconnected; an SXM2's never): a fault
    assert gpu["alone"] and not gpu["fewer_than_peers"] and gpu["baseboard"]
    findings = finding_items({"evidence.nvlinks": ev.nvlinks}, "nccl")
    assert "evidence-nvlink-inactive" not in findings
    assert "evidence-nvlink-inactive-alike" not in findings
    assert findings["evidence-nvlink-down-on-baseboard"][0].startswith(
        "GPU 3 (Tesla V100-SXM2-32GB): link(s) 3, 5 inactive"
    )


@pytest.mark.parametrize(
    ("model", "rule", "peers"),
    [
        # a card's bridge: the links its peers keep and it lost are a warning
        ("NVIDIA A100 80GB PCIe", "evidence-nvlink-inactive", ""),
        # an SXM module's baseboard wires every link: one lost is a fault, as links down alike
        # are (set 579)
        (
            "Tesla V100-SXM2-32GB",
            "evidence-nvlink-down-on-baseboard",
            " (more than the other GPUs of its model in the output)",
        ),
    ],
)
def test_a_gpu_with_more_inactive_links_than_its_peers_lost_them(
    model: str, rule: str, peers: str
) -> None:
    text = "".join(
        f"GPU {g}: {model} (UUID: GPU-{g})\n"
        + "".join(
            f"\t Link {n}: {'<inactive>' if (g, n) in ((1, 3), (1, 5)) else '25.781 GB/s'}\n"
            for n in range(6)
        )
        for g in range(4)
    )
    ev = load_text(text, "nvlink.txt")
    assert [g["gpu"] for g in ev.nvlinks if g["fewer_than_peers"]] == [1]
    findings = finding_items({"evidence.nvlinks": ev.nvlinks}, "nccl")
    assert findings[rule] == [
        f"GPU 1 ({model}): link(s) 3, 5 inactive, 4 of 6 active{peers} (nvlink.txt, line 8)"
    ]
    assert {"evidence-nvlink-inactive", "evidence-nvlink-down-on-baseboard"} & set(findings) == {
        rule
    }


def test_a_healthy_nvlink_status_before_a_matrix_is_read_with_it_and_judged_healthy() -> None:
    ev = _load("nvidia_smi_nvlink_s_then_topo_2x3090_nv4_root_prompts_masked_uuid.txt")
    assert ev.files[0].formats == ["nvidia_smi_topo", "nvidia_smi_nvlink"]
    assert [(g["gpu"], g["active"], g["inactive"]) for g in ev.nvlinks] == [(0, 4, []), (1, 4, [])]
    assert ev.topologies[0]["links"]["GPU0"]["GPU1"] == "NV4"
    findings = finding_items({"evidence.nvlinks": ev.nvlinks}, "nccl")
    assert "evidence-nvlink-inactive" not in findings


def test_a_gpu_line_without_link_lines_is_no_nvlink_output() -> None:
    listing = (
        "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-1)\nGPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-2)\n"
    )
    assert "nvidia_smi_nvlink" not in detect(listing)
    with pytest.raises(ParseError):
        nvidia_smi.parse_nvlink_status(listing)


def test_an_old_drivers_soc_link_is_a_pair_joined_only_through_sys() -> None:
    ev = _load("nvidia_smi_topo_8xp40_soc_mlx5_0_old_driver_legend.txt")
    (topo,) = ev.topologies
    assert topo["links"]["GPU0"]["mlx5_0"] == "SOC"
    # every GPU reaches the NIC across the sockets; no GPU pair is SOC (PIX/PXB between them), and
    # a GPU's path to a NIC is no GPU pair (the nearest-NIC note says it)
    assert topo["sys_pairs"] == []
    assert (
        "nvidia_smi_topo: nvidia-smi topo -m: the nearest NIC of each GPU: GPU0, GPU1, GPU2, "
        "GPU3, GPU4, GPU5, GPU6, GPU7: mlx5_0 (SOC)"
        in [m.message for f in ev.files for m in f.messages]
    )
    assert topo["cpu_affinity"]["GPU0"] == "0-13" and topo["numa_affinity"] == {}


def test_npu_smi_health_answer_in_a_collection_file_is_a_chip_at_alarm() -> None:
    ev = _load(
        "hccn_npu_smi_collect_after_linkstat_board_invalid_card_health_alarm_heartbeat_lost_kgparse.txt"
    )
    assert ev.files[0].status == "read"
    # (its lspci listing of the NPUs is read too)
    assert sorted(ev.files[0].formats) == [
        "ascend_versions", "hccn_tool", "lspci_list", "npu_smi_query",
    ]  # fmt: skip
    (chip,) = ev.npu_chips
    assert (chip["npu"], chip["chip"], chip["health"], chip["line"]) == (0, 0, "Alarm", 30)
    assert chip["error_codes"] == ["A4025021", "8C03A000", "8C084E00"]
    assert chip["error_info"][0] == "ascend_monitor adda heart beat lost error"
    assert chip["error_info"][2].endswith("event state=Heartbeat Lost.")
    # the hccn_tool outputs of the same file are still read
    assert ev.npu_ports[0]["link_up_count"] == 2
    items = finding_items({"evidence.npu_chips": ev.npu_chips})["evidence-npu-chip-health"]
    assert items[0].startswith("NPU 0 chip 0 health Alarm, error code(s) A4025021 8C03A000")
    assert "heart beat lost" in items[0]


def test_npu_smi_figures_without_health_are_read_and_not_judged() -> None:
    ev = _load(
        "npu_smi_info_t_usages_npu0_chip0_ddr15171_hbm32768_ctrlcpu9_gpustack_test_fixture.txt"
    )
    assert ev.files[0].status == "read" and ev.files[0].formats == ["npu_smi_query"]
    # its HBM and AI core use are kept as a chip with no health stated (the held-memory check
    # reads them); nothing else in it is judged
    (chip,) = ev.npu_chips
    assert chip["health"] is None and chip["query"] == "usages"
    assert (
        builtin_findings({"evidence.npu_chips": ev.npu_chips}, "hccl").get(
            "evidence-npu-chip-health"
        )
        is None
    )
    (note,) = ev.files[0].messages
    assert (
        note.line == 1
        and "of NPU 0 (" in note.message
        and "): figures with no health in them" in note.message
    )
    (answer,) = npu_smi.parse_query(
        (
            HELDOUT
            / "npu_smi_info_t_usages_npu0_chip0_ddr15171_hbm32768_ctrlcpu9_gpustack_test_fixture.txt"
        ).read_text()
    )
    assert answer.fields["HBM Capacity(MB)"] == ["32768"] and answer.chip == 0


def test_a_health_answer_names_the_chip_its_command_asked_for() -> None:
    text = (
        "npu-smi info -t health -i 4 -c 1\n"
        "\tHealth Status                  : OK\n"
        "\tError Code                     : NA\n"
    )
    (answer,) = npu_smi.parse_query(text)
    assert (answer.type, answer.npu, answer.chip, answer.health) == ("health", 4, 1, "OK")
    findings = finding_items({"evidence.npu_chips": [npu_chip(npu=4, chip=1, query="health")]})
    assert "evidence-npu-chip-health" not in findings


def test_processes_that_each_ran_one_rank_measured_no_link() -> None:
    ev = _load("nccl_tests_allreduce_non_mpi_build_16proc_rows_only_busbw_zero.log")
    (table,) = ev.benchmarks
    assert table["one_rank"] and table["op"] == "all_reduce"
    items = finding_items({"evidence.benchmarks": ev.benchmarks}, "nccl")[
        "evidence-benchmark-one-rank"
    ]
    assert items[0].endswith("the log names 1 rank; sizes repeat (several runs' rows interleaved)")


def test_busbw_zero_means_one_rank_only_for_ops_whose_factor_depends_on_it() -> None:
    row = "{size:>12} {count:>13}     float {redop:>7} {root:>7}    631.9  212.41    {bus}      0     0.51  263017.30    {bus}      0\n"
    reduce = "".join(
        row.format(size=s, count=s // 4, redop="sum", root=-1, bus="0.00") for s in (2**27, 2**28)
    )
    (table,) = load_text(reduce, "reduce.log").benchmarks
    assert table["op"] == "all_reduce" and table["one_rank"]
    # broadcast's factor is 1 at any rank count: its busbw is its algbw, never 0 for one rank
    bcast = "".join(
        row.format(size=s, count=s // 4, redop="none", root=0, bus="212.41") for s in (2**27, 2**28)
    )
    (table,) = load_text(bcast, "bcast.log").benchmarks
    assert table["op"] == "broadcast" and not table["one_rank"]
    # a log that names its ranks is taken at its word
    two = bench_table(ranks=2, one_rank=False)
    one = bench_table(ranks=None, one_rank=True, source="solo.log")
    findings = finding_items({"evidence.benchmarks": [two, one]}, "nccl")
    assert findings["evidence-benchmark-one-rank"] == [
        "solo.log: nccl-tests all_reduce, every row's busbw is 0 with an algbw measured"
    ]


def test_links_inactive_alike_on_every_gpu_of_a_model_are_information_not_a_fault() -> None:
    ev = _load("nvidia_smi_nvlink_s_2xh100_pcie_bridge_12of18_active_6_inactive_dl380a.txt")
    assert [(g["active"], g["inactive"]) for g in ev.nvlinks] == [(12, [4, 5, 10, 11, 16, 17])] * 2
    assert not any(g["fewer_than_peers"] for g in ev.nvlinks)
    findings = finding_items({"evidence.nvlinks": ev.nvlinks}, "nccl")
    assert "evidence-nvlink-inactive" not in findings
    alike = findings["evidence-nvlink-inactive-alike"]
    assert alike[0].startswith(
        "GPU 0 (NVIDIA H100 PCIe): link(s) 4, 5, 10, 11, 16, 17 inactive, 12 of 18"
    )
    # one GPU of the two losing a link more than its peer is the fault
    lost = [dict(g) for g in ev.nvlinks]
    lost[1] = {**lost[1], "inactive": [0, *lost[1]["inactive"]], "fewer_than_peers": True}
    assert finding_items({"evidence.nvlinks": lost}, "nccl")["evidence-nvlink-inactive"]


def test_a_copy_cut_inside_a_gpus_links_is_said_and_judged_by_nothing_it_lost() -> None:
    text = HELDOUT / "nvidia_smi_nvlink_s_2xh100_pcie_bridge_12of18_active_6_inactive_dl380a.txt"
    cut = "\n".join(text.read_text().splitlines()[:-3]) + "\n"  # GPU 1 ends at its Link 14
    ev = load_text(cut, "nvlink.txt")
    assert ev.files[0].status == "partial"
    (note,) = ev.files[0].messages
    assert note.line == 21 and "GPU 1 lists 15 links where the other GPUs of its model list 18" in (
        note.message
    )
    assert [len(g["links"]) for g in ev.nvlinks] == [18, 15]
    assert not any(g["fewer_than_peers"] for g in ev.nvlinks)
    items = finding_items({"evidence.nvlinks": ev.nvlinks}, "nccl")[
        "evidence-nvlink-inactive-alike"
    ]
    assert (
        "11 of 15 active (the copy lost the rest of its list: those links are unknown)" in items[1]
    )
    # the whole output says nothing of a cut
    whole = _load(text.name).files[0]
    assert whole.status == "read" and not any("cut" in m.message for m in whole.messages)


def test_nvml_answering_that_no_link_is_up_is_read_per_gpu() -> None:
    ev = _load("nvidia_smi_nvlink_s_2xa100_pcie_no_nvlink_all_links_inactive_nvml_msg.txt")
    assert ev.files[0].formats == ["nvidia_smi_nvlink"]
    assert [(g["gpu"], g["none_up"], g["links"]) for g in ev.nvlinks] == [
        (0, True, {}),
        (1, True, {}),
    ]
    findings = finding_items({"evidence.nvlinks": ev.nvlinks}, "nccl")
    assert findings["evidence-nvlink-inactive-alike"][1].startswith(
        "GPU 1 (NVIDIA A100-PCIE-40GB): no link up (NVML: all links inactive)"
    )


def test_nvlink_error_counters_are_read_and_only_nonzero_ones_reported() -> None:
    ev = _load("nvidia_smi_nvlink_e_loop_8xa100_sxm4_12links_all_zero_vm.txt")
    assert ev.files[0].status == "read" and len(ev.nvlinks) == 8
    first = ev.nvlinks[0]
    assert len(first["errors"]) == 12 and first["errors"]["0"] == {
        "Replay Errors": 0,
        "Recovery Errors": 0,
        "CRC Errors": 0,
    }
    findings = finding_items({"evidence.nvlinks": ev.nvlinks}, "nccl")
    assert "evidence-nvlink-errors" not in findings
    counted = {**first, "errors": {"3": {"Replay Errors": 0, "CRC Errors": 17}}, "error_total": 17}
    items = finding_items({"evidence.nvlinks": [counted]}, "nccl")["evidence-nvlink-errors"]
    assert items[0].startswith("GPU 0 (NVIDIA A100-SXM4-40GB): link 3 CRC Errors 17;")
    assert "Replay" not in items[0]


def test_an_elided_nvlink_status_is_partial() -> None:
    ev = _load("nvidia_smi_nvlink_s_gb200_18links_53gbs_elided_k8stestinfra371.txt")
    assert ev.files[0].status == "partial"
    assert [(g["gpu"], len(g["links"])) for g in ev.nvlinks] == [(0, 18), (1, 2)]
    assert not any(g["fewer_than_peers"] or g["inactive"] for g in ev.nvlinks)


def test_a_link_cell_run_into_the_cpu_affinity_is_split_back() -> None:
    ev = _load("nvidia_smi_topo_8xa100_sxm4_nv12_8nic_all_phb_glued_ph0_115_vm.txt")
    (topo,) = ev.topologies
    assert topo["links"]["GPU0"]["NIC7"] == "PHB"
    assert set(topo["cpu_affinity"].values()) == {"0-115"}
    assert set(topo["numa_affinity"].values()) == {"0-3"}
    assert set(topo["gpu_numa_id"].values()) == {"N/A"}
    note = ev.files[0].messages[0]
    assert note.line == 3 and "'PH0-115' ran into its CPU affinity" in note.message
    assert ev.files[0].status == "read"  # every cell is read


def test_the_tests_own_dash_n_is_not_mpiruns_process_count() -> None:
    ev = _load("nccl_tests_allreduce_k8s_sriov_vf_roce_2pod_info_elided_koordinator_report.log")
    (table,) = ev.benchmarks
    assert table["ranks"] == 2 and table["op"] == "all_reduce"


def test_a_wrapped_net_ib_completion_is_read_as_one() -> None:
    ev = _load("nccl_tests_roce_bond0_2node_net_ib_completion_status12_remote_process_exited.log")
    net = next(e for e in ev.failures if e["kind"] == "nccl_net_error")
    assert (net["line"], net["code"], net["remote_ip"], net["host"]) == (
        1,
        "12",
        "10.77.0.1",
        "gx10-9c8c",
    )
    assert "hca roceP2p1s0f0" in net["message"]


def test_a_capitalised_rank_tag_is_the_global_rank() -> None:
    ev = _load("watchdog_verl1420_ray_workerdict_mesh_tp_seq3_allreduce_sequence_id_cut.log")
    (timeout,) = [e for e in ev.failures if e["kind"] == "watchdog_timeout"]
    # "[Rank 3]" in the record is the rank in mesh_tp; the tag before it is the world's
    assert (timeout["rank"], timeout["op"], timeout["seq"]) == (7, "all_reduce", 3)


def test_a_process_table_alone_is_read_as_who_holds_the_npus() -> None:
    ev = _load(
        "npu_smi_info_process_table_only_npu0_five_vllmworker_tp_55124_107mb_vllm_ascend_pr7107_cut.txt"
    )
    assert ev.files[0].status == "partial" and ev.npu_chips == []
    notes = [m.message for m in ev.files[0].messages]
    assert any("5 process(es) on NPU 0 chip 0 (VLLMWorker_TP 669096 55124 MB" in n for n in notes)
    assert any("process table ends without its closing border" in n for n in notes)


def test_the_report_shows_each_gpus_nvlinks_and_a_chips_alarm_codes(tmp_path: Path) -> None:
    out = tmp_path / "run"
    files = [
        HELDOUT / "nvidia_smi_nvlink_s_v100_two_inactive_links_azhpc73.txt",
        HELDOUT
        / "hccn_npu_smi_collect_after_linkstat_board_invalid_card_health_alarm_heartbeat_lost_kgparse.txt",
    ]
    res = run_advisor([*map(str, files), "--out", str(out)], out, command="import", timeout_s=120)
    # a chip whose Health is Alarm (npu-smi's major alarm) is not ready (round DDDD, set 607:
    # evidence-npu-chip-health-alarm); the NVLink rows and the alarm codes are shown all the same
    assert res.returncode == 1, res.stderr
    assert "evidence-npu-chip-health-alarm" in res.stdout
    html = (out / "report.html").read_text()
    row = html[html.index('<table class="nvlinks">') :]
    row = row[: row.index("</table>")]
    assert "<td>3, 5</td>" in row and "4 of 6" in row
    assert "Alarm (A4025021 8C03A000 8C084E00)" in html


def test_each_run_of_a_paste_has_its_own_ranks() -> None:
    ev = _load(
        "nccl_tests_6runs_2x2080ti_pcie_no_p2p_allreduce_4gbs_single_gpu_reduce_inplace_inflated_autodl_blog.log"
    )
    assert [(b["op"], b["ranks"]) for b in ev.benchmarks] == [
        ("all_reduce", 2), ("all_gather", 2), ("broadcast", 2), ("reduce", 2), ("reduce", 1),
        ("all_to_all", 2),
    ]  # fmt: skip
    one = [b for b in ev.benchmarks if b["one_rank"]]
    assert [b["op"] for b in one] == ["reduce"]
    items = finding_items({"evidence.benchmarks": ev.benchmarks}, "nccl")
    (one_item,) = items["evidence-benchmark-one-rank"]
    assert "sizes repeat" not in one_item  # each size once, out-of-place and in-place
    # the one-GPU run states no shape: the two-GPU runs' one node of two devices stands
    cluster = cluster_from(ev)
    assert (cluster.nodes, cluster.devices_per_node) == (1, 2)


def test_two_nodes_headers_each_with_its_own_rank_0_are_solo_runs_without_mpiruns_line() -> None:
    ev = _load(
        "nccl_tests_allreduce_2x8_h20_non_mpi_build_two_runs_interleaved_split_mod8_nccltests306.log"
    )
    assert [(b["ranks"], b["hosts"]) for b in ev.benchmarks] == [(8, ["node3"]), (8, ["node2"])]
    assert ev.benchmarks[0]["solo_hosts"] == ["node3", "node2"]
    items = finding_items({"evidence.benchmarks": ev.benchmarks}, "nccl")
    assert items["evidence-nccl-tests-solo-runs"][0].endswith("2 one-process runs on node3, node2")
    # the one file states two shapes, told apart by their hosts
    note = shape_note(ev, cluster_from(ev))
    assert "(node3): 1 node(s) x 8; " in note and "(node2): 1 node(s) x 8" in note, note


def test_a_matrix_a_narrow_terminal_cut_says_what_it_lost() -> None:
    ev = _load(
        "nvidia_smi_topo_matrix_8xa800_nv8_terminal_cut_columns_cpu_affinity_truncated_legend_llm_action.txt"
    )
    assert ev.files[0].status == "partial"
    (topo,) = ev.topologies
    # "-31,64-95" is no CPU list: not read; GPU4's "32-63,96-127" is
    assert "GPU0" not in topo["cpu_affinity"] and topo["cpu_affinity"]["GPU4"] == "32-63,96-127"
    notes = [m.message for m in ev.files[0].messages]
    assert any("header has no column for NIC0, NIC1, NIC2, NIC3" in n for n in notes)


def test_npu_smi_with_npu_id_and_name_columns_is_read() -> None:
    ev = _load(
        "npu_smi_info_950pr_25_7_rc1_6_npu_id_name_columns_npu_util_hbm_5239_of_131072_no_processes_excerpt_env_report.txt"
    )
    (chip,) = ev.npu_chips
    assert (chip["npu"], chip["chip"], chip["name"], chip["health"]) == (
        0,
        None,
        "Ascend950PR",
        "OK",
    )
    assert (chip["bus_id"], chip["hbm_used_mb"], chip["hbm_total_mb"]) == (
        "0000:61:00.0",
        5239,
        131072,
    )
    assert (chip["power_w"], chip["temp_c"]) == (195.6, 56.0)
    # the 950's "NPU Util(%)" stands where older layouts print AICore(%): kept apart
    assert (chip["npu_util_pct"], chip["aicore_pct"]) == (0.0, None)
    assert (chip["memory_used_mb"], chip["memory_total_mb"]) == (0, 0)
    # no chip index printed is no cut row
    sick = {**chip, "health": "Alarm"}
    items = finding_items({"evidence.npu_chips": [sick]})["evidence-npu-chip-health"]
    assert "cut off" not in items[0] and items[0].startswith("NPU 0 (Ascend950PR, 0000:61:00.0)")


def test_nccls_last_error_without_its_label_is_kept() -> None:
    (failure,) = _load(
        "distbackenderror_nccl2297_unhandled_cuda_error_nvls_multicast_bind_oom_h200_fsdp_stepcodex.log"
    ).failures
    assert failure["kind"] == "nccl_call_failure" and failure["code"] == "1"
    # (NCCL's own cause and workaround under it kept with it since set 659)
    assert (
        "/ Last error: Failed to bind NVLink SHARP (NVLS) Multicast memory of size 2097152 : CUDA error 2 'out of memory'. This is usually caused"
        in failure["message"]
    )
    assert failure["message"].endswith(
        "Disable NVLS (NCCL_NVLS_ENABLE=0) if you wish to avoid this error in the future."
    )


def test_a_device_error_report_with_its_code_before_the_pid_is_read() -> None:
    ev = _load(
        "ee9999_fftsplus_sdma_error_device_side_ascend_pytorch166_new_group_hccl_camem_sleep_mode_chip1.log"
    )
    assert ev.files[0].status == "read"
    (error,) = ev.failures
    assert (error["kind"], error["code"], error["line"]) == ("hccl_error", "EE9999", 1)
    assert error["message"].endswith("/ there is a fftsplus sdma error, sdma channel is 2,")


def test_a_cuda_error_that_took_a_rank_down_in_torchs_thread_is_read() -> None:
    ev = _load(
        "cuda_error_unknown_in_processgroupnccl_workcleanuploop_default3_prefix_bloom176b_jeanzay_2022_03_21.log"
    )
    (error,) = ev.failures
    assert (error["kind"], error["line"], error["rank"]) == ("cuda_error", 2, 3)
    assert error["message"] == "what():  CUDA error: unknown error"


def test_hccn_tool_status_gives_the_ports_speed_and_link() -> None:
    ev = _load(
        "hccn_tool_status_dev3_eth3_200000mbs_full_dac_link_detected_yes_llm_action_npu_smi_notes.txt"
    )
    (port,) = ev.npu_ports
    assert (port["device"], port["link"], port["speed_mbps"]) == (3, "UP", 200000)
    items = finding_items({"evidence.npu_ports": ev.npu_ports})["evidence-npu-port-state"]
    assert items[0].startswith("NPU 3: link UP at 200000 Mb/s")


def test_a_heartbeat_culprit_a_page_masked_is_kept_as_printed() -> None:
    (error,) = _load(
        "mindspore_ei0002_notify_wait_timeout_heartbeat_lost_device0_notify_wait_device1_stream14_cann_cases.log"
    ).failures
    assert (error["code"], error["culprit_ip"], error["culprit_device"]) == (
        "EI0002",
        "10.*.*.*",
        0,
    )
    assert error["exception_type"] == "Heartbeat Lost Occurred"


def test_a_loops_health_answers_without_commands_are_one_chip_each() -> None:
    text = (
        "\tHealth Status                  : OK\n\tError Code                     : NA\n\n"
        "\tHealth Status                  : Alarm\n\tError Code                     : A4025021\n"
    )
    answers = npu_smi.parse_query(text)
    assert [a.health for a in answers] == ["OK", "Alarm"]
    ev = load_text(text, "health.txt")
    assert [c["health"] for c in ev.npu_chips] == ["OK", "Alarm"]


def test_nvidia_smi_q_is_no_npu_smi_answer() -> None:
    text = (
        "==============NVSMI LOG==============\n\nAttached GPUs                             : 1\n"
        "GPU 00000000:17:00.0\n    Product Name                          : NVIDIA H100\n"
        "    Board ID                              : 0x1700\n"
    )
    assert "npu_smi_query" not in detect(text)


def test_only_error_counters_count_as_nvlink_errors() -> None:
    text = (
        "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-0)\n\t Link 0: Replay Errors: 0\n"
        "\t Link 0: Tx packets: 123456\n\t Link 0: CRC Errors: 2\n"
    )
    (gpu,) = load_text(text, "nvlink_e.txt").nvlinks
    assert gpu["errors"]["0"]["Tx packets"] == 123456 and gpu["error_total"] == 2


def test_sequential_runs_on_two_hosts_are_not_solo_runs() -> None:
    def run(host: str) -> str:
        return (
            "# nThread 1 nGpus 2 minBytes 1048576 maxBytes 2097152 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n"
            "#\n# Using devices\n"
            f"#  Rank  0 Group  0 Pid   100 on {host:>8} device  0 [0x1b] NVIDIA H100\n"
            f"#  Rank  1 Group  0 Pid   100 on {host:>8} device  1 [0x2b] NVIDIA H100\n"
            "#\n#                                                              out-of-place                       in-place\n"
            "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
            "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n"
            "     1048576        262144     float     sum      -1    20.00   52.43   52.43      0    20.00   52.43   52.43      0\n"
            "     2097152        524288     float     sum      -1    30.00   69.91   69.91      0    30.00   69.91   69.91      0\n"
            "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 61.17\n#\n\n"
        )

    ev = load_text(run("nodeA") + run("nodeB"), "two_runs.log")
    assert [(b["ranks"], b["hosts"], b["solo_hosts"]) for b in ev.benchmarks] == [
        (2, ["nodeA"], []),
        (2, ["nodeB"], []),
    ]


def test_nccls_unlabelled_last_error_is_not_another_loggers_record() -> None:
    text = (
        "torch.distributed.DistBackendError: NCCL error in: /pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\n"
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error.\n"
        "E0612 10:01:02.123000 140 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) local_rank: 0 (pid: 77) of binary: /usr/bin/python\n"
    )
    failure = next(e for e in load_text(text, "t.log").failures if e["kind"] == "nccl_call_failure")
    assert "Last error" not in failure["message"]


def test_mpiruns_process_count_is_not_the_tests_own_n_after_a_perf_mpi_binary() -> None:
    text = (
        "mpirun -H a:1,b:1 ./build/all_reduce_perf_mpi -b 8 -e 16 -f 2 -g 1 -n 100\n"
        "# nThread 1 nGpus 1 minBytes 8 maxBytes 16 step: 2(factor) warmup iters: 5 iters: 100 agg iters: 1 validation: 1 graph: 0\n"
        "#\n# Using devices\n#  Rank  0 Group  0 Pid   100 on        a device  0 [0x1b] NVIDIA H100\n"
        "#  Rank  1 Group  0 Pid   200 on        b device  0 [0x1b] NVIDIA H100\n"
        "#\n#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n"
        "           8             2     float     sum      -1    20.00    0.00    0.00      0    20.00    0.00    0.00      0\n"
        "          16             4     float     sum      -1    20.00    0.00    0.00      0    20.00    0.00    0.00      0\n"
        "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 0.00\n"
    )
    (table,) = load_text(text, "perf_mpi.log").benchmarks
    # two ranks over two hosts; tiny sizes print 0.00 for both figures: no one-rank run
    assert table["ranks"] == 2 and not table["one_rank"]
