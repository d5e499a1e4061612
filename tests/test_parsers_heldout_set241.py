"""Outputs the two-hundred-forty-first held-out evaluation misread (tests/data/evidence_heldout_42,
sources in tests/data/SOURCES.md): the store's client retrying, torch_npu's time-out warning at
process-group init, another program's print above a tool's failure."""

from __future__ import annotations

from advisor.evidence.load import load_paths
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_42"


def _load(name: str):  # type: ignore[no-untyped-def]
    return load_paths([HELDOUT / name])


def test_a_store_client_retrying_its_connect_is_a_connect_failure_to_that_address() -> None:
    ev = _load("vllm_ascend_ray_c10d_server_socket_198_18_0_1_timed_out_will_retry_x4_cut.log")
    (report,) = ev.files
    assert (report.status, report.formats) == ("read", ["log"])
    (retry,) = ev.failures  # one address: one event, not one a retry
    assert (retry["kind"], retry["remote_ip"], retry["port"], retry["line"]) == (
        "store_connect_failure",
        "198.18.0.1",
        43195,
        1,
    )


def test_torch_npus_warning_that_the_watchdog_ends_a_hang_first_is_a_finding() -> None:
    ev = _load(
        "mindie_torch_npu_hccl_exec_timeout_1800s_bigger_than_watchdog_300s_ranks_3_5_6_cut.log"
    )
    (warning,) = ev.failures
    assert (warning["kind"], warning["timeout_ms"], warning["line"]) == (
        "pg_timeout_warning",
        300000,
        6,
    )
    assert (
        warning["exception_type"] == "watchdog 300 s, HCCL execution 1800 s (3 process(es) warned)"
    )
    finding = builtin_findings({"evidence.failures": ev.failures}, "hccl")[
        "evidence-pg-timeout-not-above-hccl-exec"
    ]
    assert finding.severity == "warning"


def test_another_programs_print_above_a_tools_failure_is_not_its_reason() -> None:
    ev = _load(
        "hccn_net_health_init_then_hccl_tools_prints_device_list_command_execute_failed_keyerror_cut.log"
    )
    (port,) = ev.npu_ports
    assert (port["device"], port["net_health"]) == (1, "Init")
    (failure,) = [f for f in ev.failures if f["kind"] == "ascend_tool_failure"]
    assert (
        failure["exception_type"] == "1 command(s) failed: no reason given"
        and failure["line"] == 14
    )
