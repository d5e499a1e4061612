"""Outputs the fifteenth and sixteenth held-out evaluations misread, and the NCCL call failures
no parser read: an aclnn operator's failed launch, an HCCL heartbeat block whose error-code line
was cut off, torch_npu's watchdog death with its process, the socket manager's link verdict with
no time-out line, a hand-typed rank table (trailing commas, no closing brace), PyTorch's and
nccl-tests' reports of a failed NCCL call, and TCPStore's port already in use.

Samples: ``tests/data/evidence_heldout_17/`` and ``evidence_heldout_14/rccl_warn_ucx.log``
(sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from advisor.evidence.load import load_paths
from advisor.parsers import logs, rank_table
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_17"


def _parse(name: str) -> logs.LogReport:
    return logs.parse((HELDOUT / name).read_text())


def test_aclnn_operator_launch_failure_is_a_runtime_event() -> None:
    (ev,) = _parse("aclnn_call_failed.log").of_kind("npu_runtime_error")
    assert (ev.line, ev.call, ev.code, ev.code_name, ev.rank) == (
        1, "aclnnMoeDistributeDispatchV4", "561000", None, 0,
    )  # fmt: skip
    assert (ev.pid, ev.device, ev.torch_npu_code) == (5317, 0, "ERR00100")


def test_heartbeat_block_without_its_code_line_names_op_group_and_rank() -> None:
    (ev,) = _parse("notify_timeout_no_code.log").events
    assert (ev.kind, ev.line, ev.culprit_ip, ev.culprit_device) == (
        "hccl_heartbeat", 6, "172.16.38.219", 6,
    )  # fmt: skip
    assert (ev.op, ev.rank_size, ev.rank, ev.library) == ("broadcast", 8, 3, "HCCL")
    assert ev.group == "172.16.38.219%eth0_60000_0_1742963775856197"


def test_hccl_watchdog_death_carries_its_process_and_device() -> None:
    (ev,) = _parse("hccl_watchdog_died_pid.log").of_kind("watchdog_exception")
    assert (ev.line, ev.rank, ev.pid, ev.device, ev.library) == (1, 7, 402, 7, "HCCL")


def test_link_verdict_without_a_time_out_line_is_a_link_failure_with_its_result() -> None:
    ev = load_paths([HELDOUT / "plog_links_failed.log"])
    assert ev.files[0].status == "read"
    (link,) = ev.failures
    assert (link["kind"], link["line"], link["pid"], link["code_name"], link["library"]) == (
        "hccl_link_timeout", 1, 55694, "HCCL_E_TIMEOUT", "HCCL",
    )  # fmt: skip
    assert (link["timeout_ms"], link["exception_type"]) == (None, "link set-up failed")
    # the next verdict says which end this rank was
    assert link["message"].endswith(
        "/ Wait links establish completed failed, local role is client. ret[9]"
    )


def test_hand_typed_rank_table_is_read_and_its_commas_are_an_error() -> None:
    text = (HELDOUT / "rank_table_typed.json").read_text()
    table = rank_table.parse(text)
    assert (table.version, table.status, table.cut) == ("1.0", "completed", True)
    assert [(r.rank, r.server_id, r.device_id, r.device_ip) for r in table.ranks] == [
        (0, "172.30.4.201", "0", "192.168.2.195"),
        (1, "172.30.4.201", "1", "192.168.2.193"),
    ]
    assert table.errors == [
        "not valid JSON: a comma before a closing bracket (line 10, 19); a JSON parser refuses "
        "the file",
        "server 172.30.4.201 appears 2 times in server_list",
    ]
    ev = load_paths([HELDOUT / "rank_table_typed.json"])
    (report,) = ev.files
    assert report.status == "partial"
    assert [m.line for m in report.messages] == [25]


def test_torch_reports_of_failed_nccl_calls_name_the_result_and_the_last_error() -> None:
    (system,) = _parse("nccl_error_in_torch.log").of_kind("nccl_call_failure")
    assert (system.line, system.code, system.code_name, system.call) == (
        1, "2", "ncclSystemError", "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333",
    )  # fmt: skip
    assert system.exception_type == (
        "socketStartConnect: Connect to 192.168.19.14<52822> failed : No route to host"
    )
    (remote,) = _parse("nccl_error_remote.log").events
    assert (remote.kind, remote.code_name) == ("nccl_call_failure", "ncclRemoteError")
    finding = builtin_findings(
        {"evidence.failures": [{"source": "x.log", **remote.__dict__}]}, "nccl"
    )["evidence-nccl-call-failed"]
    assert finding.severity == "critical"
    assert [str(i) for i in finding.items] == [
        "A process: ncclRemoteError at /pytorch/torch/csrc/distributed/c10d/NCCLUtils.hpp:268 "
        "(last NCCL error: socketProgressOpt: Call to recv from 172....<33759> failed : "
        "Connection reset by peer) (x.log, line 1)"
    ]


def test_nccl_tests_failures_name_each_host() -> None:
    parsed = logs.parse((DATA / "evidence_heldout_14" / "rccl_warn_ucx.log").read_text())
    calls = parsed.of_kind("nccl_call_failure")
    assert [(e.line, e.host, e.code_name, e.call) for e in calls] == [
        (22, "node02", "ncclInternalError", "common.cu:1158"),
        (49, "node01", "ncclInternalError", "common.cu:1158"),
    ]


def test_store_port_in_use_is_named_once_with_its_port() -> None:
    ev = load_paths([HELDOUT / "store_port_in_use.log"])
    (store,) = [f for f in ev.failures if f["kind"] == "store_bind_failure"]
    assert (store["line"], store["port"], store["ip"], store["exception_type"]) == (
        1, 29500, None, "errno 98: Address already in use",
    )  # fmt: skip
    finding = builtin_findings({"evidence.failures": ev.failures}, "nccl")[
        "evidence-store-port-taken"
    ]
    assert "could not listen on port(s) 29500" in finding.message
