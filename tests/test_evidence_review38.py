"""Review 38 of round QQQ's readings and review 37's mends (ibdev2netdev listings of two hosts,
Megatron's newer start line and a NaN loss, a shell trace of a local variable, an ERR line's
device given to the nearest event, interleaved notify waits, torch's message wrapped after the
file's colon, a summary's exit status, perftest's named port): each fault it found, on its input
(tests/data/review38, described in tests/data/SOURCES.md)."""

from __future__ import annotations

from advisor.evidence.load import EvidenceFacts, load_paths
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review38"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def test_a_plain_listings_down_port_after_a_v_listing_stays_down() -> None:
    for name in (
        "ibdev2netdev_v_then_other_hosts_plain_down_lost.txt",
        "ibdev2netdev_v_then_plain_same_host_down_lost.txt",
    ):
        items = heldout.found(_load(name))["evidence-hca-netdev-down"].items
        assert any("mlx5_1 port 1 ==> ib1 (Down)" in i for i in items), name


def test_megatrons_newer_start_line_and_a_nan_loss() -> None:
    said = heldout.said(_load("megatron_core_world_size_hierarchical_cp_unreadable.log"))
    assert any("Megatron: world size 2" in m and "context-parallel 1" in m for m in said)
    said = heldout.said(_load("megatron_nan_iteration_said_no_error.log"))
    (note,) = [m for m in said if "Megatron:" in m]
    assert "its loss was NaN at iteration" in note and "no error" not in note


def test_a_shell_trace_of_a_local_variable_is_read() -> None:
    ev = _load("shell_trace_local_nvidia_smi_couldnt_communicate_unread.txt")
    assert "evidence-nvml-unavailable" in heldout.found(ev)


def test_an_err_lines_device_goes_to_its_nearest_event_only() -> None:
    ev = _load("torch_npu_err_device_given_to_other_hosts_same_pid.log")
    codes = [(f["line"], f["device"]) for f in ev.failures if f["code"] == "EE9999"]
    assert codes[0][1] == 3 and codes[-1][1] is None


def test_interleaved_workers_notify_waits_stay_apart() -> None:
    ev = _load("notify_wait_interleaved_two_workers_folded_crosswise.log")
    waits = [f for f in ev.failures if f["kind"] == "hccl_plog_error"]
    assert len(waits) == 2


def test_torchs_message_wrapped_after_the_files_colon() -> None:
    ev = _load("nccl_error_wrapped_after_cpp_colon_not_nccl.log")
    (failed,) = [f for f in ev.failures if f["kind"] == "nccl_call_failure"]
    assert failed["call"].endswith("ProcessGroupNCCL.cpp:1331")


def test_a_summarys_exit_status_above_128_is_a_signal() -> None:
    ev = _load("bench_summary_fail_137_said_no_error_code.txt")
    assert ev.failures[0]["message"].startswith(
        "alltoall failed: exit status 137, a shell's for signal 9"
    )


def test_perftests_named_port_is_not_denied() -> None:
    ev = _load("perftest_port_number_1_down_said_port_not_named.txt")
    # (its own port not active: evidence-rdma-perftest-port-not-active's, since set 586)
    (item,) = heldout.found(ev)["evidence-rdma-perftest-port-not-active"].items
    assert item.startswith("the local host's RDMA device (not named in the copy: ")
    assert " port 1: " in item
