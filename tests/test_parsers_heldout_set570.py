"""Outputs of round WWW's held-out set 570 that the advisor read wrong before this change
(tests/data/evidence_heldout_60, sources in tests/data/SOURCES.md): frameworks' logs over NCCL
(SGLang's start, Megatron-LM's interleaved failed p2p calls)."""

from __future__ import annotations

import time

from advisor.parsers import logs, numbered_lines
from tests import heldout
from tests.test_parsers_heldout_set569 import _load, _said, each_linear


def test_sglangs_pynccl_version_and_its_tensor_parallel_ranks_are_said() -> None:
    ev = _load("grok2_sglang_blog_tp8_h100_nccl2273_init_to_server_ready_healthy_cut.log")
    assert ev.files[0].status == "read"
    assert [m.line for m in ev.files[0].messages] == [17]
    assert _said(ev) == [
        "log: SGLang: NCCL 2.27.3 (SGLang's pynccl); 8 tensor-parallel rank(s) logged (TP0-TP7); "
        "gloo's mesh up on rank(s) 0-7, each connected to its 7 peer(s)"
    ]
    assert not ev.failures


def test_interleaved_processes_failed_calls_keep_each_its_own_last_error() -> None:
    # l.1's "Last error:" stands empty: l.8's proxy error is another process's, not l.1's, and
    # l.12 (empty again, after l.8's) a third process's
    ev = _load(
        "megatron792_distopt_odd_dp_p2p_recv_nccl2193_system_error_proxy_service_connect_rank2_retcode3_cut.log"
    )
    calls = [(e["line"], e["code_name"], e["exception_type"]) for e in ev.failures]
    assert calls == [
        (1, "ncclSystemError", None),
        (
            8,
            "ncclSystemError",
            "[Proxy Service 2] Failed to execute operation Connect from rank 2, retcode 3",
        ),
        (12, "ncclSystemError", None),
        (16, "ncclSystemError", None),
    ]
    failed = heldout.found(ev)["evidence-nccl-call-failed"]
    assert failed.message.startswith("4 NCCL call(s) returned an error")


def test_a_copy_of_a_failed_call_is_still_completed_by_its_last_error() -> None:
    # (a program logging the error's first line, then torch's whole message: one failure)
    text = (
        "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1691, unhandled "
        "system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3\n"
        "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:1691, unhandled "
        "system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.19.3\n"
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed.\n"
        "Last error:\n"
        "socketStartConnect: Connect to 10.0.0.2<4321> failed : Connection refused\n"
    )
    (call,) = [e for e in logs.parse(text).events if e.kind == "nccl_call_failure"]
    assert (call.line, call.exception_type) == (
        1,
        "socketStartConnect: Connect to 10.0.0.2<4321> failed : Connection refused",
    )


def test_new_patterns_are_linear_on_a_long_line_and_many_blank_lines() -> None:
    blanks = "\n" * 100_000
    cases = [
        (logs._VLLM_NCCL_RE.search, "sglang is using nccl==" + "1." * 50_000),
        (logs._VLLM_NCCL_RE.search, " is using nccl==" * 6_250),
        (logs._SGLANG_TP_RE.match, "[2025-09-11 10:24:21 " + "TP1" * 33_333),
        (logs._SGLANG_TP_RE.match, "[" + "1" * 100_000),
    ]
    each_linear(cases)
    # (the changed readers on 100,000 blank lines and on many tagged lines)
    for text in (
        "sglang is using nccl==2.27.3\n" + blanks + "[2025-09-11 10:24:21 TP0] x\n" * 4_000,
        ("torch.distributed.DistBackendError: NCCL error in: a.cpp:1, unhandled system error\n"
         "ncclSystemError: x\nLast error:\n\n") * 2_000 + blanks,
    ):  # fmt: skip
        lines = numbered_lines(text)
        start = time.process_time()
        logs._vllm_notes(text, lines, logs.LogReport())
        logs._nccl_call_failures(lines, logs.LogReport())
        assert time.process_time() - start < 2.0
