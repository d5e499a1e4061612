"""Review 37 of round PPP's readings, earlier rounds' leftovers and review 36's mends (benchmark
summaries' failures, a shell trace's quoted quote, notify waits of two workers, looped queries by
name or index, ibdev2netdev's listings in either order, torch's CUDA error code, Ray's folded
warnings, two slow patterns, lifetime ECC beside an unqueried count, an npu-smi banner before a
DCMI failure): each fault it found, on its input (tests/data/review37, described in
tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review37"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def test_a_summarys_fail_with_a_signal_or_no_code_is_a_failure() -> None:
    ev = _load("bench_summary_fail_signal_and_bare_fail_ready.txt")
    said = [f["message"].split(";")[0] for f in ev.failures]
    assert said == ["alltoall failed: ended by signal 9", "reduce_scatter failed: no code printed"]


def test_a_summarys_fail_0_is_no_hccl_success() -> None:
    (failed,) = _load("bench_summary_fail_0_said_hccl_success.txt").failures
    assert failed["message"].startswith("alltoall failed: its summary's code 0, no error code")
    assert "HCCL_SUCCESS" not in failed["message"]


def test_a_shell_traces_quoted_quote_is_nvidia_smis_answer() -> None:
    ev = _load("shell_trace_nvidia_smi_couldnt_communicate_unread.txt")
    (item,) = heldout.found(ev)["evidence-nvml-unavailable"].items
    assert "couldn't communicate with the NVIDIA driver" in item


def test_two_workers_notify_waits_on_one_chip_are_two_events() -> None:
    ev = _load("notify_wait_two_workers_two_hosts_chip4_folded.log")
    assert len([f for f in ev.failures if f["kind"] == "hccl_plog_error"]) == 2


def test_a_looped_query_by_index_is_one_gpu_and_by_name_samples() -> None:
    ev = _load("query_gpu_loop_l1_index_gpu0_read_as_4.csv")
    assert [g["gpu"] for g in ev.gpus] == [0]
    ev = _load("query_gpu_loop_l1_name_one_gpu_read_as_4.csv")
    assert ev.gpus == []
    (note,) = heldout.said(ev)
    assert "its GPUs named by product name alone" in note


def test_ibdev2netdev_v_before_the_plain_listing_is_one_port() -> None:
    ev = _load("ibdev2netdev_v_then_plain_ports_twice.txt")
    assert len(heldout.found(ev)["evidence-hca-netdev-down"].items) == 1


def test_torchs_cuda_error_code_is_kept() -> None:
    ev = _load("torch_cuda_init_error_804_cause_dropped.log")
    (failed,) = ev.failures
    assert failed["code"] == "804"
    assert (
        "error 804, forward compatibility was attempted on non supported HW"
        in (failed["exception_type"])
    )


def test_rays_fold_of_a_warning_is_no_error() -> None:
    said = heldout.said(_load("ray_fold_custom_allreduce_warning_said_error.log"))
    assert not any("Ray folded the same error line" in m for m in said)


def test_long_blank_runs_under_two_patterns_read() -> None:
    ev = _load("slow_tmux_pane_border_long_line.txt")
    assert any("border" in m for m in heldout.said(ev))
    ev = _load("slow_query_field_listing_spaces.txt")
    (gpu,) = ev.gpus
    assert gpu["ecc_aggregate_corrected"] is not None


def test_lifetime_ecc_beside_an_unqueried_volatile_count_claims_none() -> None:
    said = heldout.said(_load("query_gpu_aggregate_vs_uncorr_volatile_only_none_since_load.csv"))
    (note,) = [m for m in said if "lifetime" in m]
    assert "none counted since the driver loaded" not in note


def test_an_npu_smi_banner_before_a_dcmi_failure_claims_no_cut() -> None:
    ev = _load("npu_smi_banner_then_dcmi_failure_said_copy_ends.txt")
    assert not any("the copy ends" in m for m in heldout.said(ev))
    assert "evidence-npu-dcmi-init-failed" in heldout.found(ev, "hccl")
