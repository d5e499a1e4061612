"""The sixteenth review's findings on the NVIDIA tools' parsers and round K's readings (inputs in
tests/data/review16, each written from the format its name gives; sources in
tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor.evidence.load import EvidenceFacts, load_paths
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

REVIEW = DATA / "review16"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def test_nccl_2_30_runs_two_ranks_on_one_gpu_so_no_duplicate_is_said() -> None:
    ev = _load("dup01_nccl2.30_multirank_gpu_allowed.log")
    assert not [f for f in ev.failures if f["kind"] == "duplicate_gpu"]


def test_two_unnamed_groups_sharing_a_seqnum_are_no_mismatch() -> None:
    (timeline,) = _load("mm01_torch2.1_two_groups_same_seqnum.log").timelines
    assert timeline.mismatched_ops == {}


def test_an_all_to_alls_uneven_splits_are_no_mismatch() -> None:
    ev = _load("mm02_torch2.4_moe_alltoall_uneven_splits.log")
    assert {f["numel"] for f in ev.failures} == {1048576, 917504}
    (timeline,) = ev.timelines
    assert timeline.mismatched_ops == {}


def test_one_processs_dispatch_success_clears_only_its_own_work() -> None:
    ev = _load("disp01_two_processes_one_recovers.log")
    (left,) = ev.failures
    assert (left["seq"], left["device"], left["exception_type"]) == (250, 6, "dispatch timeout")


def test_an_mpich_rank_tag_before_a_loggers_time_stamp_keeps_its_rank() -> None:
    ev = _load("mpi01_intelmpi_prepend_rank_timestamped_logger.log")
    assert [f["rank"] for f in ev.failures] == [1]


def test_nvbandwidths_device_to_device_latency_matrix_is_read() -> None:
    ev = _load("nvb01_v0.8_device_to_device_latency_sm.txt")
    assert ev.files[0].status == "read"
    (run,) = ev.gpu_copy
    (matrix,) = run["matrices"]
    assert matrix["unit"] == "ns" and matrix["rows"]["0"]["3"] == 48211.30


def test_an_older_nvbandwidths_cuda_error_is_a_test_that_stopped() -> None:
    ev = _load("nvb02_v0.4_cuda_error_without_expression.txt")
    (run,) = ev.gpu_copy
    (failed,) = run["failed"]
    assert failed["test"] == "device_to_device_memcpy_read_ce"
    assert "CUDA_ERROR_ILLEGAL_ADDRESS" in failed["message"]
    assert "evidence-gpu-copy-test-failed" in builtin_findings(
        {"evidence.gpu_copy": ev.gpu_copy}, "nccl"
    )


def test_nvbandwidths_perf_formatter_total_is_its_sum_and_a_bare_waived_credits_no_test() -> None:
    ev = _load("nvb03_v0.8_perf_formatter_and_waived.txt")
    (run,) = ev.gpu_copy
    (matrix,) = run["matrices"]
    assert (matrix["test"], matrix["sum"]) == ("device_to_device_memcpy_read_ce", 778.85)
    assert run["waived"] == []
    # no "has no SUM line under it: the copy may have lost rows"
    assert not any("no SUM line" in m.message for m in ev.files[0].messages)
