"""Outputs the twelfth held-out evaluation misread: an NCCL WARN line whose prefix has no pid,
torch_npu's failed NPU call named with its C++ namespace, and torch_npu's op-plugin form of a
failed HCCL call ("OPS function error: HcclAllreduce, error code is 6").

Samples: ``tests/data/evidence_heldout_16/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from advisor.parsers import logs
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_16"


def _parse(name: str) -> logs.LogReport:
    return logs.parse((HELDOUT / name).read_text())


def test_nccl_warn_without_pid_names_host_device_and_peer() -> None:
    (ev,) = _parse("nccl_warn_no_pid.log").of_kind("nccl_warning")
    assert (ev.line, ev.host, ev.pid, ev.device, ev.remote_ip, ev.port) == (
        1, "gpu-server320", None, 5, "10.44.137.149", 52905,
    )  # fmt: skip
    assert ev.message.endswith("Connection reset by peer")


def test_npu_call_with_a_namespace_and_its_acl_code() -> None:
    (ev,) = _parse("npu_call_namespaced.log").of_kind("npu_runtime_error")
    assert (ev.line, ev.call, ev.code, ev.code_name, ev.rank, ev.device, ev.pid) == (
        1, "AclrtSynchronizeStreamWithTimeout", "507001", "ACL_ERROR_RT_TS_ERROR", 0, 0, 1162,
    )  # fmt: skip


def test_ops_form_of_a_failed_hccl_call() -> None:
    parsed = _parse("ops_hccl_call.log")
    (call,) = parsed.of_kind("hccl_call_failure")
    assert (call.line, call.call, call.code, call.code_name, call.rank, call.device) == (
        3, "HcclAllreduce", "ERR01100", "HCCL_E_NOT_FOUND", 1, 1,
    )  # fmt: skip
    (code,) = parsed.of_kind("hccl_error")
    assert (code.code, code.op, code.rank) == ("EI0006", "all_reduce", 1)
