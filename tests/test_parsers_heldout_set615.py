"""Outputs of round EEEE's held-out evaluation (set 615, NVIDIA tool outputs) that the advisor read
in part or not at all before this change (tests/data/evidence_heldout_67, sources in
tests/data/SOURCES.md): p2pBandwidthLatencyTest's slow P2P cell cited at its matrix's title; the
CUDA samples' simpleP2P, whose data check failed, not read at all; --query-gpu CSV rows keyed by
the GPU's UUID, and a query of mig.mode.current alone, not read."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA
from tests.test_parsers_heldout_set591 import _write

HELDOUT = DATA / "evidence_heldout_67"

P2P_BW = "p2pBandwidthLatencyTest_cuda11.8_2x_rtx4090_p2p_can_access_asymmetric_uni_1to0_11GBs.txt"
SIMPLE_P2P = "simpleP2P_cuda11.8_2x_rtx4090_verification_error_nan_test_failed.txt"
UUID_CSV = "nvidia_smi_query_gpu_csv_mig_mode_current_pending_4gpu_nvmm_prefixed_compute01.txt"
MIG_NA = "nvidia_smi_query_gpu_mig_mode_current_geforce_na_brackets.txt"
MIG_DISABLED = "nvidia_smi_query_gpu_mig_mode_current_a100_disabled_ellipsis.txt"


_load = partial(heldout.load, HELDOUT)


# --- p2pBandwidthLatencyTest: the slow cell's line ---------------------------------------------


def test_a_p2p_cell_slower_than_the_host_path_is_cited_at_its_row() -> None:
    ev = _load(P2P_BW)
    (run,) = ev.gpu_copy
    (slow,) = run["p2p_slower"]
    assert (slow["a"], slow["b"], slow["enabled_gbytes_s"], slow["disabled_gbytes_s"]) == (
        1,
        0,
        11.46,
        22.67,
    )
    # (the P2P=Enabled row "1  11.46 916.42" and the P2P=Disabled row it is set against)
    assert (slow["line"], slow["disabled_line"]) == (22, 18)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-p2p-slower-than-host-path", "warning")]
    (item,) = heldout.items(outcome, "evidence-p2p-slower-than-host-path")
    assert "1->0 11.46 vs 22.67 GB/s" in item and item.endswith("line 22)")


# --- simpleP2P ---------------------------------------------------------------------------------


def test_simple_p2ps_wrong_data_through_peer_access_is_a_failed_copy_test() -> None:
    ev = _load(SIMPLE_P2P)
    assert ev.files[0].formats == ["simple_p2p"]
    (run,) = ev.gpu_copy
    assert run["tool"] == "simpleP2P"
    assert [d["name"] for d in run["devices"]] == ["NVIDIA GeForce RTX 4090"] * 2
    assert run["peer_access"] == {"0": {"1": True}, "1": {"0": True}}
    (failed,) = run["failed"]
    assert (failed["line"], failed["test"]) == (17, "simpleP2P GPU0<->GPU1")
    assert failed["message"].startswith("Verification error @ element 0: val = nan, ref = 0.0")
    assert (
        "12 wrong value(s)" in failed["message"] and "Test failed! (line 31)" in failed["message"]
    )
    assert any("cudaMemcpyPeer GPU0<->GPU1: 10.39 GB/s" in m for m in heldout.said(ev))
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-gpu-copy-test-failed", "critical")]
    (item,) = heldout.items(outcome, "evidence-gpu-copy-test-failed")
    assert item.startswith("simpleP2P GPU0<->GPU1: Verification error @ element 0")
    assert item.endswith("line 17)")


def test_a_passing_simple_p2p_under_a_launchers_prefix_is_no_failure(tmp_path: Path) -> None:
    # another pair (the first that can: GPU2 and GPU3), each line behind mpirun's tag
    text = "".join(
        f"[1,0]<stdout>:{line}\n"
        for line in (
            "[/opt/cuda-samples/bin/simpleP2P] - Starting...",
            "CUDA-capable device count: 4",
            "> Peer access from NVIDIA A100-SXM4-80GB (GPU2) -> NVIDIA A100-SXM4-80GB (GPU3) : Yes",
            "> Peer access from NVIDIA A100-SXM4-80GB (GPU3) -> NVIDIA A100-SXM4-80GB (GPU2) : Yes",
            "Enabling peer access between GPU2 and GPU3...",
            "cudaMemcpyPeer / cudaMemcpy between GPU2 and GPU3: 183.20GB/s",
            "Disabling peer access...",
            "Test passed",
        )
    )
    ev = _write(tmp_path, text)
    (run,) = ev.gpu_copy
    assert run["tool"] == "simpleP2P" and run["failed"] == [] and run["complete"]
    assert sorted(run["peer_access"]) == ["2", "3"]
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []


def test_a_simple_p2p_cut_before_its_result_with_a_wrong_value_still_fails(
    tmp_path: Path,
) -> None:
    text = (
        "> Peer access from Tesla V100-SXM2-32GB (GPU0) -> Tesla V100-SXM2-32GB (GPU1) : Yes\n"
        "Enabling peer access between GPU0 and GPU1...\n"
        "Verification error @ element 4096: val = 0.000000, ref = 0.000000\n"
    )
    ev = _write(tmp_path, text)
    (run,) = ev.gpu_copy
    (failed,) = run["failed"]
    assert failed["line"] == 3 and "Test failed!" not in failed["message"]
    assert not run["complete"]
    assert heldout.imported(ev)[0] == "NOT READY"


# --- nvidia-smi --query-gpu: rows keyed by UUID, and mig.mode alone -----------------------------


def test_query_gpu_rows_keyed_by_uuid_are_gpus_in_index_order() -> None:
    ev = _load(UUID_CSV)
    assert ev.files[0].formats == ["nvidia_smi_query_csv"]
    assert [(g["gpu"], g["line"], g["mig_mode"]) for g in ev.gpus] == [
        (0, 6, "Enabled"),
        (1, 7, "Disabled"),
        (2, 8, "Disabled"),
        (3, 9, "Disabled"),
    ]
    assert all(g["name"] == "" for g in ev.gpus)  # (the query names no model)
    level, outcome = heldout.imported(ev)
    # GPU 0 in MIG mode is a warning since set 633 (MIG User Guide: no P2P between MIG
    # instances, one MIG instance per CUDA process): a training job cannot use it whole
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-gpu-mig-mode", "warning")]


def test_uuid_rows_by_the_fields_other_name_and_without_a_header(tmp_path: Path) -> None:
    # "gpu_uuid" is --query-gpu's other name for "uuid"; noheader leaves the command to name them
    rows = "".join(f"GPU-{n:08x}-0000-1111-2222-{n:012x}, Disabled\n" for n in range(8))
    text = "$ nvidia-smi --query-gpu=gpu_uuid,mig.mode.current --format=csv,noheader\n" + rows
    ev = _write(tmp_path, text)
    assert [(g["gpu"], g["mig_mode"]) for g in ev.gpus] == [(n, "Disabled") for n in range(8)]


def test_mig_mode_current_alone_on_a_geforce_is_not_supported_not_a_fault() -> None:
    ev = _load(MIG_NA)
    (gpu,) = ev.gpus
    assert (gpu["gpu"], gpu["line"], gpu["mig_mode"], gpu["name"]) == (0, 3, "", "")
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []


def test_mig_mode_current_alone_reads_each_row_and_stops_at_the_users_ellipsis() -> None:
    ev = _load(MIG_DISABLED)
    assert [(g["gpu"], g["line"], g["mig_mode"]) for g in ev.gpus] == [
        (0, 3, "Disabled"),
        (1, 4, "Disabled"),
    ]
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []


def test_mig_mode_pending_alone_with_its_header_and_no_command(tmp_path: Path) -> None:
    ev = _write(tmp_path, "mig.mode.pending\nEnabled\nEnabled\nDisabled\n")
    assert [g["gpu"] for g in ev.gpus] == [0, 1, 2]
