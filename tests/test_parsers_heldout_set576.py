"""Outputs of round XXX's held-out evaluation (set 576) that the advisor read wrong before this
change (tests/data/evidence_heldout_61, sources in tests/data/SOURCES.md): XLA's NCCL stub with no
NCCL library, and NCCL's INFO lines that Ray's deduplication marked."""

from __future__ import annotations

from functools import partial

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_61"


_load = partial(heldout.load, HELDOUT)


def test_xlas_nccl_stub_without_a_library_is_a_failed_nccl_call() -> None:
    ev = _load("jax18391_xla_all_reduce_ncclgetuniqueid_unable_to_load_nccl_library_v0420.log")
    (failed,) = ev.failures
    assert (failed["kind"], failed["code_name"], failed["call"], failed["line"]) == (
        "nccl_call_failure",
        "ncclSystemError",
        "ncclGetUniqueId",
        1,
    )
    assert failed["exception_type"].startswith("no NCCL library could be loaded")
    found = heldout.found(ev)
    assert "evidence-python-exception" not in found
    nccl = found["evidence-nccl-call-failed"]
    (item,) = nccl.items
    assert "ncclSystemError at ncclGetUniqueId (no NCCL library could be loaded" in item
    assert "last NCCL error" not in item
    (advice,) = [r.why for r in nccl.recommendations if r.kind == "advice"]
    assert advice.startswith("No NCCL library was loaded")


def test_rays_dedup_mark_is_no_part_of_nccls_words() -> None:
    ev = _load(
        "vllm16318_nemotron_ultra_253b_ray_2node_rayworker_pid38530_nccl_info_net_ib_gdrdma_repeated_healthy_cut.log"
    )
    assert not ev.failures
    said = heldout.said(ev)
    assert "log: NCCL's network plugin: IB" in said
    assert not any("NCCL's network plugin: IB [repeated" in s for s in said)
    assert (
        "log: NCCL's channels go via NET/IB (2 line(s): over the network; all with /GDRDMA: GPU "
        "Direct RDMA, the NIC reading and writing GPU memory)"
    ) in said
    assert (
        "log: NCCL: DMA-BUF is available on GPU device(s) 4 (its network can register GPU memory "
        "through DMA-BUF)"
    ) in said
    (folded,) = [s for s in said if s.startswith("log: Ray folded")]
    assert "copies of 6 of these line(s)" in folded
    assert "up to 14 more each" in folded
    assert not [f for f in heldout.found(ev).values() if f.severity in ("critical", "warning")]
