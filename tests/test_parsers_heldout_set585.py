"""Outputs of round ZZZ's held-out evaluation (set 585) that the advisor read only in part before
this change (tests/data/evidence_heldout_62, sources in tests/data/SOURCES.md): a
p2pBandwidthLatencyTest where no GPU can access another, an nccl-tests run over two hosts whose
busbw went unsaid, and an older nccl-tests alltoall table whose in-place error cells the test
itself did not count."""

from __future__ import annotations

from functools import partial
from typing import Any

from advisor.evidence.load import EvidenceFacts
from advisor.parsers import p2p_bandwidth
from tests import heldout
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_62"
NO_P2P = "p2pBandwidthLatencyTest_4x_rtx3090_no_p2p_all_cannot_access.txt"
TWO_HOSTS = "nccl-tests_all_reduce_2x8_h100_ndr_srun_prefixed_busbw155_low.txt"
ALLTOALL = "nccl-tests_alltoall_8x8_v100_ib100g_cut_busbw0.51_inplace_error1.txt"


_load = partial(heldout.load, HELDOUT)


def _bad(ev: EvidenceFacts) -> dict[str, Any]:
    """The built-in rules' critical and warning findings on an import's facts."""
    found = builtin_findings(
        {
            "evidence.failures": ev.failures,
            "evidence.gpu_copy": ev.gpu_copy,
            "evidence.benchmarks": ev.benchmarks,
        },
        "nccl",
    )
    return {k: f for k, f in found.items() if f.severity in ("critical", "warning")}


def test_a_p2p_test_where_no_gpu_reaches_another_is_a_warning() -> None:
    ev = _load(NO_P2P)
    (run,) = ev.gpu_copy
    assert run["no_peer_access"] is True
    assert sum(not ok for row in run["peer_access"].values() for ok in row.values()) == 12
    bad = _bad(ev)
    # (set 603: the copies through host memory, 5.9 GB/s, are also under what four lanes of the
    # RTX 3090's PCIe Gen 4 carry, 7.88 GB/s: a slow path besides no direct one)
    assert list(bad) == ["evidence-gpu-no-peer-access", "evidence-gpu-pair-copy-slow"]
    (item,) = bad["evidence-gpu-no-peer-access"].items
    assert item.startswith("4 GPU(s) (GeForce RTX 3090), every pair CANNOT Access Peer")
    said = heldout.said(ev)
    assert any("peer access between no GPUs; 12 ordered pair(s) CANNOT" in s for s in said)
    assert any("Unidirectional P2P=Enabled Bandwidth (P2P Writes): 4 GPU(s), between GPUs "
               "5.89-5.9 GB/s" in s for s in said)  # fmt: skip


def test_a_p2p_copy_with_every_matrix_whole_is_not_called_cut() -> None:
    # the paste ends with the last latency matrix's CPU block: only the closing NOTE, which
    # holds no figure, is not in it -- nothing shows the copy lost a line
    ev = _load(NO_P2P)
    assert ev.gpu_copy[0]["complete"] is True
    assert not any("closing NOTE" in s or "copy lost" in s for s in heldout.said(ev))


def test_a_p2p_copy_cut_inside_a_matrix_still_says_so() -> None:
    text = (HELDOUT / NO_P2P).read_text()
    cut = "\n".join(text.splitlines()[:68])  # inside the P2P=Enabled latency's GPU block
    run, notes = p2p_bandwidth.parse(cut)
    assert run.complete is False
    assert any("ends before the run's closing NOTE" in n.message for n in notes)


def test_a_run_over_two_hosts_says_its_busbw_without_a_verdict() -> None:
    ev = _load(TWO_HOSTS)
    (bench,) = ev.benchmarks
    assert (bench["op"], bench["ranks"], bench["hosts"]) == (
        "all_reduce",
        16,
        ["node005", "node007"],
    )
    said = heldout.said(ev)
    (figure,) = [s for s in said if "busbw over 2 hosts" in s]
    assert (
        "at most 167.87 GB/s (268435456 B), 155.57 GB/s at its largest size (8589934592 B)"
        in figure
    )
    assert "142.735 GB/s on average (its footer)" in figure
    assert "said without a verdict" in figure
    assert any("validation off" in s for s in said)
    # the file names no NIC nor link rate: nothing about the fabric is said, nor a verdict on it
    assert not any("NDR" in s or "400" in s or "InfiniBand" in s for s in said)
    assert _bad(ev) == {}


def test_uncounted_in_place_error_cells_of_an_old_table_are_no_data_failure() -> None:
    ev = _load(ALLTOALL)
    (bench,) = ev.benchmarks
    assert bench["failed_checks"] == [] and bench["complete"] is True
    # (no binary name, blank redop: alltoall or one of the other ops whose cells are alike)
    assert bench["op"] == "unknown"
    said = heldout.said(ev)
    (note,) = [s for s in said if "in-place error cells" in s]
    assert "up to 1e+00 on 2 size(s) while the footer counts 0 values out of bounds" in note
    assert "out-of-place checks, which it counts, are within bounds" in note
    # no ranks, hosts nor fabric are in the copy: none is said
    assert not any("busbw over" in s or "100 Gb" in s or "V100" in s for s in said)
    assert _bad(ev) == {}
