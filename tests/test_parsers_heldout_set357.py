"""Outputs of round AA's held-out evaluation (sets 357-358; tests/data/evidence_heldout_51,
sources in tests/data/SOURCES.md) that the advisor read wrong or not at all before this change."""

from __future__ import annotations

from advisor.evidence.load import EvidenceFacts, load_paths
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_51"


def _load(name: str) -> EvidenceFacts:
    return load_paths([HELDOUT / name])


def test_nccls_last_connect_retry_is_a_failed_connect() -> None:
    ev = _load(
        "llamafactory8045_nccl_info_socketpollconnect_no_route_to_host_retries_26_to_34_of_34_cut.log"
    )
    (retry,) = ev.failures
    assert (retry["code"], retry["host"], retry["line"]) == ("exhausted", "zgiot", 9)
    assert retry["exception_type"] == "No route to host (retries used up: 34 of 34)"
    findings = builtin_findings({"evidence.failures": ev.failures}, "nccl")
    assert findings["evidence-nccl-connect-exhausted"].severity == "critical"
    assert "evidence-nccl-connect-retry" not in findings


def test_an_xid_that_needs_a_reset_is_a_fault() -> None:
    ev = _load(
        "ogkm829_dmesg_xid120_gsp_task_exception_store_access_page_fault_pci_06_riscv_dump_cut.txt"
    )
    (xid,) = [e for e in ev.failures if e["code"] == "120"]
    assert xid["kind"] == "gpu_driver_fault" and xid["code_name"].startswith("GSP error")


def test_nvidia_smi_610s_banner_gives_the_driver_and_cuda() -> None:
    ev = _load("sglang27487_nvidia_smi_610_kmd_version_cuda_umd_header_b200_gpu0_gpu1_cut.txt")
    assert {(g["driver"], g["cuda"]) for g in ev.gpus} == {("610.43.02", "13.3")}
