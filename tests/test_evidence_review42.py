"""Review 42 of round WWW's change (60d274f..12d0e8e): a single-process nvbandwidth, a training
log whose loss turns NaN, the same NCCL failures of two ranks in either order, an SGLang start that
crashes after gloo's mesh came up (and a mesh one rank of which lacked a peer), and a torch CUDA
error printed onto a progress bar; each on its input (tests/data/review42, built from real
samples as tests/data/SOURCES.md says)."""

from __future__ import annotations

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review42"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def test_a_single_process_nvbandwidth_is_no_one_gpu_cluster() -> None:
    # nvbandwidth v0.8 prints "Process 0 (dgx01): device 0: ..." in a single-process run too,
    # then "Device 0:" .. "Device 3:": its GPUs are the four, and the file states no cluster
    ev = load_paths([DATA / "review16" / "nvb01_v0.8_device_to_device_latency_sm.txt"])
    (run,) = ev.gpu_copy
    assert [d["index"] for d in run["devices"]] == [0, 1, 2, 3]
    assert not ev.shapes
    assert not any("one GPU each" in m for m in heldout.said(ev))
    # a multi-node run still gives its hosts' shape
    ev = load_paths(
        [
            DATA
            / "evidence_heldout_60"
            / "oke_gb200_kubectl_logs_nvbandwidth_v07_multinode_d2d_read_ce_2x4_hgx_gb200_798gbs_sum_44685.txt"
        ]
    )
    (shape,) = ev.shapes
    assert (shape["nodes"], shape["per_node"]) == (2, 4)


def test_a_loss_that_turns_nan_is_a_warning_naming_its_line_and_step() -> None:
    name = "megatron_gpt2_lm_loss_nan_from_iteration_300_read_ready.log"
    found = heldout.found(_load(name))
    # (a warning, the job's: no critical finding makes the cluster NOT READY)
    assert {f.severity for f in found.values()} - {"info"} == {"warning"}
    (item,) = found["evidence-loss-diverged"].items
    assert "the loss turned NaN at iteration 300 of 5000, after 2 step(s)" in item
    assert f"{name}, line 28)" in item


def test_a_loss_nan_from_its_first_step_says_so() -> None:
    found = heldout.found(_load("megatron_gpt2_lm_loss_nan_from_first_iteration_read_ready.log"))
    (item,) = found["evidence-loss-diverged"].items
    assert "NaN from the first step logged, iteration 100 of 5000" in item
    assert "line 22)" in item


def test_a_healthy_training_log_stays_ready() -> None:
    ev = load_paths(
        [
            DATA
            / "evidence_heldout_47"
            / "megatron_gpt2_4rank_train_processgroupnccl_avoid_record_streams_warning_healthy_llm_action_cut.log"
        ]
    )
    assert {f.severity for f in heldout.found(ev).values()} <= {"info"}
    assert any("no error in them" in m for m in heldout.said(ev))


def test_two_ranks_nccl_failures_read_alike_in_either_order() -> None:
    # (the same two blocks, one after the other and interleaved line by line)
    read = []
    for order in ("one_after_another", "interleaved_line_by_line"):
        ev = _load(f"nccl_remote_error_two_ranks_blocks_{order}.log")
        calls = [f for f in ev.failures if f["kind"] == "nccl_call_failure"]
        warned = {f["pid"] for f in ev.failures if f["kind"] == "nccl_warning"}
        read.append(([f["rank"] for f in calls], warned))
    assert read[0] == read[1] == ([1, 0], {10208, 10209})


def test_an_sglang_start_that_crashes_after_its_mesh_is_not_ready() -> None:
    ev = _load("sglang_tp8_scheduler_tp3_runtime_error_after_gloo_mesh_read_ready.log")
    found = heldout.found(ev)
    assert {f.severity for f in found.values()} - {"info"} == {"critical"}
    (item,) = found["evidence-python-exception"].items
    assert item.startswith("RuntimeError: Not enough memory") and "line 64)" in item
    # the size its server_args state, not the two ranks that logged
    (note,) = [m for m in heldout.said(ev) if "SGLang" in m]
    assert "tensor-parallel size 8 (TP0, TP3 logged)" in note


def test_a_mesh_one_rank_of_which_lacked_a_peer_is_not_said_up() -> None:
    ev = _load("sglang_tp8_gloo_rank5_six_of_seven_peers_said_mesh_up.log")
    (note,) = [m for m in heldout.said(ev) if "SGLang" in m]
    assert "gloo's mesh not up: rank 5 connected to 6 of 7 peer(s)" in note
    assert "8 tensor-parallel rank(s) logged (TP0-TP7)" in note
    assert "evidence-gloo-error" in heldout.found(ev)


def test_a_cuda_error_printed_onto_a_progress_bar_is_a_failure() -> None:
    ev = _load("safetensors_bars_then_capture_bar_glued_cuda_illegal_address_unread.log")
    (item,) = heldout.found(ev)["evidence-cuda-error"].items
    assert "an illegal memory access was encountered" in item and "line 16)" in item
