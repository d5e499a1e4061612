"""Outputs the seventeenth and eighteenth held-out evaluations misread: the c10d store's client
side (ranks timing out waiting for the store, a connect that timed out, failed connect attempts),
the caching allocator's out-of-memory error, the NPU runtime's device exception dump, vLLM
worker prefixes with a TP index, an "Inner Error!" heading that carries the rank tag, and a torch
elastic summary copied without its heading.

Samples: ``tests/data/evidence_heldout_18/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from advisor.evidence.load import load_paths
from advisor.parsers import logs, strip_launcher_prefix
from tests.conftest import DATA
from tests.rules_facts import builtin_findings, finding_items

HELDOUT = DATA / "evidence_heldout_18"
STORE_RULE = "evidence-store-timeout"


def _parse(name: str) -> logs.LogReport:
    return logs.parse((HELDOUT / name).read_text())


def test_ranks_waiting_on_the_store_each_time_out_once() -> None:
    events = _parse("store_wait_timeouts.log").of_kind("store_timeout")
    assert [e.rank for e in events] == [6, 3, 4, 5, 1, 7, 0]
    assert {(e.remote_ip, e.port, e.timeout_ms) for e in events} == {
        ("7.150.11.200", 47904, 1800000)
    }
    ev = load_paths([HELDOUT / "store_wait_timeouts.log"])
    items = finding_items({"evidence.failures": ev.failures}, "hccl")[STORE_RULE]
    assert items[0].startswith(
        "Rank 6 timed out after 1800 s waiting for the store (7.150.11.200:47904)"
    )


def test_a_connect_that_timed_out_names_the_store_host() -> None:
    (ev,) = _parse("store_connect_timeout.log").of_kind("store_timeout")
    assert (ev.line, ev.host, ev.remote_ip, ev.port, ev.timeout_ms) == (
        3, "036c56dce41b", None, 41331, 300000,
    )  # fmt: skip


def test_failed_connect_attempts_are_one_warning_per_address() -> None:
    ev = load_paths([HELDOUT / "store_connect_failed.log"])
    assert ev.files[0].status == "read"
    (tried,) = ev.failures
    assert (tried["kind"], tried["line"], tried["host"], tried["port"]) == (
        "store_connect_failure", 6, "neo2", 29500,
    )  # fmt: skip
    assert tried["exception_type"].startswith("error 10049: The requested address")
    finding = builtin_findings({"evidence.failures": ev.failures}, "nccl")[
        "evidence-store-connect-failed"
    ]
    assert finding.severity == "warning"


def test_out_of_memory_names_device_size_and_free_memory() -> None:
    (ev,) = _parse("npu_oom.log").of_kind("device_oom")
    assert (ev.line, ev.device, ev.library, ev.exception_type) == (
        1, 3, "NPU",
        # (the older message's figures said too; the process holds most of it, nothing outside)
        "tried to allocate 5.03 GiB, 1.32 GiB free; 60.96 GiB total, 49.47 GiB allocated by this "
        "process",
    )  # fmt: skip


def test_npu_device_exception_dump() -> None:
    ev = load_paths([HELDOUT / "npu_device_exception.log"])
    assert ev.files[0].status == "read"
    (dump,) = ev.failures
    assert (dump["kind"], dump["line"], dump["device"], dump["pid"], dump["code"]) == (
        "npu_device_exception", 4, 0, 358, "0x26",
    )  # fmt: skip
    assert dump["exception_type"] == "RTS_HWTS: aicore exception"


def test_vllm_worker_prefix_with_a_tp_index_is_taken_off() -> None:
    assert strip_launcher_prefix("(VllmWorker TP1 pid=961) ERROR x") == ("ERROR x", None)
    first, second = _parse("vllm_worker_eh9999.log").of_kind("hccl_error")
    assert (first.line, first.code, first.pid, first.device, first.torch_npu_code) == (
        4, "EH9999", 961, 1, "ERR00100",
    )  # fmt: skip
    assert (second.line, second.code) == (6, "EH9999")
    assert "runtime result = 507048" in second.message


def test_an_inner_error_heading_gives_its_rank_to_the_line_it_heads() -> None:
    # (a vector core's exception the device reported: the device's, since round HH)
    (ev,) = _parse("ez9999_heading_rank.log").of_kind("npu_device_exception")
    assert (ev.line, ev.code, ev.rank, ev.pid, ev.device) == (2, "EZ9999", 7, 14897, 7)


def test_elastic_summary_without_its_heading() -> None:
    ev = load_paths([HELDOUT / "elastic_failures_only.log"])
    assert ev.files[0].status == "read"
    assert [(f["rank"], f["pid"], f["exit_code"], f["root_cause"]) for f in ev.failures] == [
        (3, 386091, 1, False),
        (2, 386090, 1, True),
    ]
