"""Outputs of round TTT's held-out evaluation (sets 547-552) that the advisor read wrong or not
at all before this change (tests/data/evidence_heldout_59, sources in tests/data/SOURCES.md):
the Ascend and NVIDIA logs and the rank table (sets 549 and 550's tools are in their own
files)."""

from __future__ import annotations

from advisor.evidence.load import load_text
from advisor.parsers import logs
from tests import heldout
from tests.rules_facts import builtin_findings
from tests.test_parsers_heldout_set453 import _load

# --- Ascend tools and logs (sets 547 and 548) --------------------------------------------------


def test_a_rank_table_whose_server_ids_are_chinese_placeholder_words_is_a_template() -> None:
    ev = _load(
        "rank_table_v10_2srv_16p_server_id_placeholder_master_slave_node_ip_zh_dev_ip_10_20_0_2_17_mindie_llm_pd_mixed_doc.json"
    )
    (table,) = ev.rank_tables
    assert table["placeholders"] == ["Master节点IP地址", "Slave节点IP地址"]
    assert all(shape["hosts"] == [] for shape in ev.shapes)  # (no host is named by them)
    found = builtin_findings({"evidence.rank_tables": ev.rank_tables}, "hccl")
    (item,) = found["evidence-rank-table-template"].items
    assert item.endswith(": Master节点IP地址, Slave节点IP地址")


def test_a_filled_in_rank_table_is_no_template() -> None:
    text = (
        '{"version": "1.0", "server_count": "1", "status": "completed", "server_list": [{'
        '"server_id": "10.0.0.1", "device": [{"device_id": "0", "device_ip": "192.168.1.1", '
        '"rank_id": "0"}]}]}'
    )
    (table,) = load_text(text, "hccl.json").rank_tables
    assert table["placeholders"] == []


def test_mindformers_step_lines_without_an_epoch_are_a_training_loop() -> None:
    ev = _load(
        "mindformers_quickstart_pynative_ds3_msrun_2dev_worker0_steps_1_2_of_10_loss_11_81_grad_norm_healthy.log"
    )
    assert ev.files[0].status == "read"
    (note,) = heldout.said(ev)
    assert note == (
        "log: a training loop's loss lines: 2 step(s) logged, from step 1 (loss 11.813965) to "
        "step 2 (loss 11.755612); no error in them"
    )


def test_a_progress_bars_loss_is_a_training_loop_each_step_once() -> None:
    ev = _load(
        "veomni_pr269_npu_fused_moe_epoch1_tqdm_steps_0_to_6_of_3828049_loss_11_4_grad_norm_29_healthy_cut.log"
    )
    (note,) = heldout.said(ev)
    # (twelve lines: the bar redrawn, a step's line printed twice)
    assert note == (
        "log: a training loop's loss lines: 7 step(s) logged, from step 0 of 3828049 (loss "
        "11.41) to step 6 of 3828049 (loss 11.37); no error in them"
    )


def test_a_programs_logger_after_its_printed_configuration_is_its_log() -> None:
    ev = _load(
        "torchtune_pr1826_npu_lora_single_device_llama31_8b_memory_stats_after_init_16_98gib_healthy_cut.log"
    )
    assert ev.files[0].formats == ["log"]
    assert not ev.failures
    # (ten lines of YAML, then the logger's; a table with a few logged lines stays no log)
    assert logs.is_program_log("a: 1\nb: 2\nc: 3\nd: 4\nINFO:x:one\nWARNING:x:two\n") is False


# --- NVIDIA logs (sets 551 and 552) ------------------------------------------------------------


def test_a_watchdog_record_cut_inside_its_optype_keeps_its_rank_and_seqnum() -> None:
    ev = _load("algoperf247_wmt_pytorch_broadcast_seq464_3600000ms_ranks6_2_cut.log")
    timeouts = [
        (f["rank"], f["seq"], f["op"], f["timeout_ms"])
        for f in ev.failures
        if f["kind"] == "watchdog_timeout"
    ]
    # "OpType=BROADCA": only BROADCAST starts so
    assert timeouts == [(6, 464, "broadcast", 3600000), (2, 464, "broadcast", None)]


def test_ray_trains_process_group_and_finished_run_are_a_healthy_log() -> None:
    ev = _load("ecs_blueprints_ray_train_fsdp_dolly7b_world12_g5_training_finished_healthy.log")
    assert not ev.failures
    (note,) = heldout.said(ev)
    assert note == (
        "log: Ray Train set up torch's process group of world size 12 (this log: rank(s) 0); "
        "training finished iteration 1 (total running time 51min 37s); no error"
    )


def test_torchtitans_steps_torchruns_processes_and_its_completion_are_said() -> None:
    ev = _load("torchtitan_llama3_8b_fsdp_8x_h200_100_steps_training_completed_healthy.log")
    assert not ev.failures
    (note,) = heldout.said(ev)
    assert note == (
        "log: a training loop's loss lines: 11 step(s) logged, from step 1 (loss 12.2417) to "
        "step 100 (loss 6.4719); no error in them; launched by torchrun with 8 process(es) a "
        "node; the run said its training completed (line 45)"
    )


def test_nccl_lines_a_terminal_wrapped_inside_a_token_are_joined() -> None:
    ev = _load(
        "vllm11139_eks_ray_pp_vllm0_rank1_of4_net_ib_no_device_socket_eth0_nccl2215_p2p_disabled_wrapped_healthy_cut.log"
    )
    said = heldout.said(ev)
    assert (
        "log: a communicator of 4 rank(s) being set up (Init START) (this log: rank(s) 1)" in said
    )
    assert (
        "log: NCCL found no peer-to-peer between PCIe-connected GPUs 1 and 0, 2 and 0 (CUDA "
        "refused it there): their traffic goes through host memory, slower than GPU to GPU; not "
        "an error"
    ) in said
    assert "evidence-nccl-socket-network" in heldout.found(ev)


def test_rows_of_one_width_that_go_on_at_the_width_are_not_joined() -> None:
    # a CSV's rows all of one width, digits at both ends: rows, not a terminal's wrap
    row = "{}, NVIDIA H100 80GB HBM3, 00000000:18:00.0, 535.104.05, " + "9" * 80
    text = "\n".join(row.format(i) for i in range(5)) + "\n"
    messages = load_text(text, "q.csv").files[0].messages
    assert not any("wrapped" in m.message for m in messages)
