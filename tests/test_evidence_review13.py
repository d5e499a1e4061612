"""Mends of the thirteenth review (of the twenty-seventh round's readings): two real hosts whose
processes share a pid are both hosts, a coded task time-out repeated is read once (by its code),
NCCL WARNs are said gone past only when nothing else failed and the process warned no more after
its init (NCCL 2.19's init line too), a GPU is said left out of an NVLink mesh only on an 8-GPU
board whose matrix is whole. The inputs are the review's own (tests/data/review13, SOURCES.md)."""

from __future__ import annotations

from collections import Counter

from advisor.evidence.load import EvidenceFacts, load_paths, load_text
from advisor.parsers.logs import STARTUP_FALLBACK
from tests.conftest import DATA

REVIEW = DATA / "review13"
HELDOUT = DATA / "evidence_heldout_45"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def test_two_hosts_whose_processes_share_a_pid_are_both_hosts() -> None:
    # containers reuse pids: a name that ends like the other's is no splice of it
    for name, hosts in (
        ("hosts_dgx-a12_dgx-b12_same_pid.log", ["dgx-a12", "dgx-b12"]),
        ("k8s_master0_worker0_same_pid.log", ["pytorchjob-master-0", "pytorchjob-worker-0"]),
    ):
        assert sorted(h["host"] for h in _load(name).log_hosts) == hosts, name


def test_a_coded_task_timeout_repeated_is_read_by_its_code_alone() -> None:
    ev = _load("ffts_ei9999_coded_12_reports.log")
    # (one event a device and code, as the coded reading keeps them: nine of the twelve)
    assert Counter(f["kind"] for f in ev.failures) == {"hccl_error": 9}


def test_a_warn_repeated_after_init_is_no_start_up_fallback() -> None:
    # the port error came again while the job trained: the process did not go past it
    ev = _load("nccl_warn_repeated_after_init_then_destroy.log")
    # (read as the IB port's fault event it is, never downgraded to a start-up fallback)
    assert [(f["kind"], f["code_name"]) for f in ev.failures] == [
        ("nccl_ib_port_event", "port error")
    ]
    assert "link went down" in ev.failures[0]["exception_type"]


def test_warns_beside_another_failure_or_another_containers_init_stay_failures() -> None:
    # a subgroup's failed set-up (a result passed up, the caller's error) and one container's
    # failure beside another container of the same host name and pid that ended cleanly
    for name in (
        "nccl_subgroup_init_warn_then_world_destroy.log",
        "nccl_two_containers_same_host_pid_shm_failure.log",
    ):
        warns = [f for f in _load(name).failures if f["kind"] == "nccl_warning"]
        # (not start-up fallbacks; the /dev/shm one now says what its WARN means: set 701; and
        # the shm transport's own "Error while creating shared memory segment" its: set 725)
        assert warns and all(f["exception_type"] != STARTUP_FALLBACK for f in warns), name
        assert [f["exception_type"] is None for f in warns] == (
            [False, False] if "shm" in name else [True] * len(warns)
        ), name


def test_nccl_2_19s_init_line_is_read_as_the_process_going_on() -> None:
    name = "nccl_warn_failed_to_find_libcuda_bluerdma_net_ib_single_rank.log"
    text = (HELDOUT / name).read_text()
    # NCCL 2.19 and later name the call before the communicator: "ncclCommInitRank comm 0x.."
    newer = text.replace(
        "NCCL INFO comm 0x5cbc082046f0 rank 0 nranks 1 cudaDev 0 nvmlDev 0",
        "NCCL INFO ncclCommInitRank comm 0x5cbc082046f0 rank 0 nranks 1 cudaDev 0 nvmlDev 0",
    )
    assert newer != text
    ev = load_text(newer, name)
    assert [f["exception_type"] for f in ev.failures] == ["start-up fallback"] * 3


def test_only_an_8_gpu_boards_whole_matrix_names_a_gpu_left_out() -> None:
    # DGX Station A100's display GPU and a PCIe card beside a 4-GPU board have no NVLink by
    # design; a matrix whose last row a copy cut has links the parser calls unknown
    for name in (
        "nvidia-smi_topo-m_dgx_station_a100_display_gpu3.txt",
        "nvidia-smi_topo-m_4xA100sxm_plus_T4_inference_card.txt",
        "nvidia-smi_topo-m_dgx1v_last_row_cut.txt",
    ):
        (topo,) = _load(name).topologies
        assert topo["nvlink_left_out"] == [], name
