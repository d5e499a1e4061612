"""Outputs of round HHHH's held-out evaluation (set 635, NVIDIA collective logs) that the advisor
read in part before this change (tests/data/evidence_heldout_68, sources in tests/data/SOURCES.md):
NCCL's "nvmlDeviceGetHandleByPciBusId() failed: Not Found" WARN of two processes that then went on
with their set-up (no failed result traced: the caller went past the NVML query, NVIDIA/nccl#1066)
read as NCCL errors, NOT READY; and NCCL's start with every line's host prefix taken off (its
INFO lines and bare version line, NVIDIA/nccl#1292) read as no form, its version and CUDA driver
not said."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.parsers.logs import STARTUP_FALLBACK
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_68"

NVML = "nccl2.12.12_gcn6_ib_roce_nvmlDeviceGetHandleByPciBusId_not_found_warn_own_gpu_per_rank_nccl1066_cut.log"
BARE = "nccl2.20.3_unprefixed_netplugin_v8_symbol_not_found_info_only_nccl1292.log"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


# --- an NVML query NCCL's caller went past -------------------------------------------------------


def test_an_nvml_warn_its_process_went_on_past_is_a_warning() -> None:
    ev = _load(NVML)
    warns = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    assert [(f["pid"], f["line"], f["exception_type"]) for f in warns] == [
        (1080061, 11, STARTUP_FALLBACK),
        (1080060, 13, STARTUP_FALLBACK),
    ]
    # each process's own line of going on: pid 1080061's affinity at 15, 1080060's at 14
    assert "went on with its set-up, line 15" in warns[0]["message"]
    assert "went on with its set-up, line 14" in warns[1]["message"]
    assert all("passed up" not in f["message"] for f in warns)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-nccl-fallback-warning", "warning")]
    said = heldout.said(ev)
    assert "log: NCCL 2.12.12+cuda11.7" in said
    assert "log: gcn6: NCCL's bootstrap uses eno1np0:172.18.62.6" in said


def test_an_nvml_warn_with_a_traced_result_is_still_an_error(tmp_path: Path) -> None:
    # NVIDIA/nccl#1529's form (2.19+: nvmlwrap.cc:187): the result passed up, the init failed
    ev = _write(
        tmp_path,
        "node1:6896:7103 [1] NCCL INFO ncclCommInitRank comm 0xf1486b0 rank 1 nranks 8 cudaDev 1 "
        "nvmlDev 1 busId 8a000 commId 0xc928078d70c6fe2c - Init START\n"
        "node1:6896:7103 [1] misc/nvmlwrap.cc:187 NCCL WARN nvmlDeviceGetHandleByPciBusId() "
        "failed: Not Found\n"
        "node1:6896:7103 [1] NCCL INFO graph/xml.cc:850 -> 2\n"
        "node1:6896:7103 [1] NCCL INFO graph/topo.cc:706 -> 2\n"
        "node1:6896:7103 [1] NCCL INFO Setting affinity for GPU 1 to ffff\n",
    )
    (warn,) = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    assert warn["exception_type"] != STARTUP_FALLBACK
    assert "2 = ncclSystemError passed up through graph/xml.cc" in warn["message"]
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert ("evidence-nccl-warning", "critical") in heldout.above_info(outcome)


def test_an_nvml_warn_the_log_ends_on_is_still_an_error(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "node1:11:11 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>\n"
        "NCCL version 2.18.5+cuda12.2\n"
        "node1:11:40 [0] misc/nvmlwrap.cc:181 NCCL WARN nvmlDeviceGetHandleByPciBusId() failed: "
        "Not Found\n"
        "node1:12:41 [1] NCCL INFO Setting affinity for GPU 1 to ffff\n"
        "node1:11:40 [0] NCCL INFO ncclCommInitRank comm 0x7f10 rank 0 nranks 2 cudaDev 0 "
        "nvmlDev 0 busId 1b000 commId 0x5e2c - Init START\n",
    )
    (warn,) = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    # (another process's going on says nothing of this one, nor a communicator's start)
    assert warn["exception_type"] != STARTUP_FALLBACK
    level, _ = heldout.imported(ev)
    assert level == "NOT READY"


def test_a_prefixed_copy_with_other_devices_reads_the_same(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "[1,3]<stdout>:gpu-b07:5501:5640 [3] misc/nvmlwrap.cc:181 NCCL WARN "
        "nvmlDeviceGetNvLinkRemotePciInfo() failed: Unknown Error\n"
        "[1,3]<stdout>:gpu-b07:5501:5640 [3] misc/nvmlwrap.cc:181 NCCL WARN "
        "nvmlDeviceGetHandleByPciBusId() failed: Not Found\n"
        "[1,3]<stdout>:gpu-b07:5501:5640 [3] NCCL INFO comm 0x55d0 rank 3 nranks 4 cudaDev 3 "
        "busId 4f000 - Init COMPLETE\n",
    )
    warns = [f for f in ev.failures if f["kind"] == "nccl_warning"]
    assert [(f["host"], f["device"], f["exception_type"]) for f in warns] == [
        ("gpu-b07", 3, STARTUP_FALLBACK),
        ("gpu-b07", 3, STARTUP_FALLBACK),
    ]
    assert all("went on with its set-up, line 3" in f["message"] for f in warns)
    level, _ = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"


# --- NCCL's start without its line prefixes ------------------------------------------------------


def test_a_prefixless_nccl_start_says_its_version_and_cuda_driver() -> None:
    ev = _load(BARE)
    said = heldout.said(ev)
    assert "log: NCCL 2.20.3+cuda12.4" in said
    assert "log: the CUDA driver NCCL found: 12.4 (cudaDriverVersion 12040)" in said
    assert not [m for m in said if "no form the advisor reads" in m]
    assert ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_a_quoted_prefixless_start_and_two_hosts_drivers(tmp_path: Path) -> None:
    ev = _write(
        tmp_path,
        "> NCCL INFO cudaDriverVersion 11080\n> NCCL version 2.15.5+cuda11.8\n",
    )
    assert "log: NCCL 2.15.5+cuda11.8" in heldout.said(ev)
    assert "log: the CUDA driver NCCL found: 11.8 (cudaDriverVersion 11080)" in heldout.said(ev)
    ev = _write(
        tmp_path,
        "a1:10:10 [0] NCCL INFO cudaDriverVersion 12040\n"
        "NCCL version 2.21.5+cuda12.4\n"
        "a2:20:20 [0] NCCL INFO cudaDriverVersion 12020\n"
        "a2:20:20 [0] NCCL INFO Bootstrap : Using ib0:10.1.0.2<0>\n",
    )
    assert (
        "log: the CUDA drivers NCCL found: 12.2 (cudaDriverVersion 12020) and 12.4 "
        "(cudaDriverVersion 12040)" in heldout.said(ev)
    )


def test_a_version_line_alone_in_prose_is_no_nccl_log(tmp_path: Path) -> None:
    ev = _write(tmp_path, "We upgraded last week.\nNCCL version 2.20.3+cuda12.4\nStill slow.\n")
    assert not [m for m in heldout.said(ev) if "NCCL 2.20.3" in m]
