"""Outputs the twelfth held-out evaluation misread: an NCCL WARN line whose prefix has no pid,
torch_npu's failed NPU call named with its C++ namespace, torch_npu's op-plugin form of a
failed HCCL call ("OPS function error: HcclAllreduce, error code is 6"), and Open MPI's
help-message lines between two nccl-tests rows.

Samples: ``tests/data/evidence_heldout_16/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from advisor.parsers import logs, nccl_tests
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
    # torch_npu's own code from the next line; its later warning of the same code (line 12) is
    # the same failure, not a second one
    assert ev.torch_npu_code == "ERR00100"


def test_ops_form_of_a_failed_hccl_call() -> None:
    parsed = _parse("ops_hccl_call.log")
    (call,) = parsed.of_kind("hccl_call_failure")
    assert (call.line, call.call, call.code, call.code_name, call.rank, call.device) == (
        3, "HcclAllreduce", "6", "HCCL_E_NOT_FOUND", 1, 1,
    )  # fmt: skip
    assert call.torch_npu_code == "ERR01100"
    (code,) = parsed.of_kind("hccl_error")
    assert (code.code, code.op, code.rank) == ("EI0006", "all_reduce", 1)


def test_open_mpi_help_lines_between_rows_are_not_rows() -> None:
    log = nccl_tests.parse((HELDOUT / "nccl_tests_mpi_help.log").read_text())
    (table,) = log.tables
    assert (len(table.rows), table.complete, log.warnings) == (30, True, [])
    assert (table.rows[0].size_bytes, table.rows[-1].size_bytes) == (8, 4294967296)
    assert (log.ranks, log.hosts) == (8, ["thanos"])
