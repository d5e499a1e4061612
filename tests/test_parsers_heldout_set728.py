"""Outputs of round XXXX's held-out evaluation (set 728, Ascend logs) that the advisor read wrong
or in part before this change (tests/data/evidence_heldout_84, sources in tests/data/SOURCES.md):
AISBench's performance report for a vLLM-Ascend model was no format the advisor knew; HCCL's IP
family check ("rank[0] device ip family[2] is not same as others[10]") left the enum values
(2 = IPv4, 10 = IPv6) and the rank that differs unsaid; and torch_npu's ERR01007 said its reason
was "earlier in their logs" when the CPU-fallback warning and the RuntimeError were above it."""

from __future__ import annotations

from functools import partial

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_84"

AIS = "ais_bench_vllm_ascend_hunyuan_a13b_gsm8k_perf_8_requests_0_failed_healthy_cut.txt"
FAMILY = "hccl_ranktablecheck_ip_family_mismatch_rank0_ipv4_vs_ipv6_cut.log"
LSTSQ = "torch_npu_err01007_linalg_lstsq_cpu_fallback_copy_same_size_not_cluster.log"

_write = partial(heldout.load_copy, name="copy.log")
_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


# --- AISBench's performance report ----------------------------------------------------------


def test_aisbench_perf_report_is_read_with_its_request_counts_and_figures() -> None:
    ev = _load(AIS)
    assert ev.files[0].formats == ["log"] and ev.files[0].status == "read"
    (note,) = heldout.said(ev)
    assert "AISBench's performance report (vllm-api-stream-chat/demo_gsm8k, line 1)" in note
    assert "8 request(s) sent, 0 failed, 8 succeeded (line 24)" in note
    for figure in ("mean E2EL 29982.6 ms", "mean TTFT 238.6 ms", "mean TPOT 60.1 ms"):
        assert figure in note
    assert "output 96.6928 token/s" in note and "total 379.9686 token/s" in note
    level, outcome = heldout.imported(ev)
    assert level == "READY" and heldout.above_info(outcome) == []


def test_aisbench_failed_requests_are_a_warning(tmp_path) -> None:
    text = _text(AIS)
    text = text.replace(
        "│ Failed Requests          │ total   │ 0 ", "│ Failed Requests          │ total   │ 3 "
    )
    text = text.replace(
        "│ Success Requests         │ total   │ 8 ", "│ Success Requests         │ total   │ 5 "
    )
    ev = _write(tmp_path, text)
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert any("3 of 8 request(s) failed" in i for f in outcome.findings for i in map(str, f.items))
    assert any("line 26" in i for f in outcome.findings for i in map(str, f.items))


def test_aisbench_older_heading_form_is_read(tmp_path) -> None:
    text = _text(AIS).replace(
        "[2026-04-08 05:27:40,180] [ais_bench] [INFO] Performance Results of task "
        "[vllm-api-stream-chat/demo_gsm8k]: ",
        "06/05 20:22:24 - AISBench - INFO - Performance Results of task: vllm-api/textvqa:",
    )
    ev = _write(tmp_path, text)
    (note,) = heldout.said(ev)
    assert "(vllm-api/textvqa, line 1)" in note and "0 failed" in note
    assert heldout.imported(ev)[0] == "READY"


def test_aisbench_heading_alone_is_not_read_as_a_report(tmp_path) -> None:
    ev = _write(tmp_path, _text(AIS).splitlines()[0] + "\n")
    assert ev.files[0].status != "read" or "AISBench" not in " ".join(heldout.said(ev))


# --- HCCL's IP family check -------------------------------------------------------------------


def test_ip_family_mismatch_names_rank_0_and_both_families() -> None:
    level, outcome = heldout.imported(_load(FAMILY))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-hccl-other-error")
    assert item.startswith("EI0001 on rank 0")
    assert "rank 0's device IP is IPv4 (AF_INET) while the other ranks' are IPv6 (AF_INET6)" in item
    assert "rank 0 is the one that differs" in item and "line 1" in item


def test_ip_family_mismatch_another_rank_the_other_way(tmp_path) -> None:
    text = _text(FAMILY).replace(
        "rank[0] device ip family[2] is not same as others[10]",
        "rank[5] device ip family[10] is not same as others[2]",
    )
    level, outcome = heldout.imported(_write(tmp_path, text))
    assert level == "NOT READY"
    (item,) = heldout.items(outcome, "evidence-hccl-other-error")
    assert "rank 5's device IP is IPv6 (AF_INET6) while the other ranks' are IPv4 (AF_INET)" in item


def test_ip_family_unknown_value_is_said_as_a_number(tmp_path) -> None:
    text = _text(FAMILY).replace("family[2]", "family[7]")
    (item,) = heldout.items(
        heldout.imported(_write(tmp_path, text))[1], "evidence-hccl-other-error"
    )
    assert "address family 7" in item and "IPv4" not in item


# --- torch_npu's ERR01007 after a CPU fallback --------------------------------------------------


def test_err01007_names_the_fallback_operator_and_the_runtime_error() -> None:
    level, outcome = heldout.imported(_load(LSTSQ))
    assert level == "READY WITH WARNINGS"
    (item,) = heldout.items(outcome, "evidence-torch-npu-error")
    assert "ERR01007 on device 0, pid 6547" in item
    assert (
        "the exception above it (line 5): RuntimeError: _copy_from_and_resize now only support"
        in item
    )
    assert "aten::linalg_lstsq.out (line 1) on the CPU" in item and "not the cluster" in item
    assert "line 6" in item


def test_err01007_another_operator_and_device(tmp_path) -> None:
    text = (
        _text(LSTSQ)
        .replace("aten::linalg_lstsq.out", "aten::cholesky_inverse")
        .replace("Device:0", "Device:3")
    )
    (item,) = heldout.items(heldout.imported(_write(tmp_path, text))[1], "evidence-torch-npu-error")
    assert "on device 3" in item and "aten::cholesky_inverse (line 1)" in item


def test_err01007_without_the_fallback_warning_names_only_the_exception(tmp_path) -> None:
    text = "\n".join(_text(LSTSQ).splitlines()[1:]) + "\n"
    (item,) = heldout.items(heldout.imported(_write(tmp_path, text))[1], "evidence-torch-npu-error")
    assert "the exception above it (line 4): RuntimeError" in item and "on the CPU" not in item
