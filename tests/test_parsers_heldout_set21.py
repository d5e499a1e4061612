"""Outputs the held-out evaluations misread that this round reads (sets 20-23): torch's notice
that a failed work takes the process down; CANN 8.5's multi-level keywords (``[TaskExecStage]
[Timeout]``, ``[InitGroupStage][EnvConfig]``) read as the fault codes HCCL's guide gives them;
HCCP's device-IP check (EI0014); EI0002's older ``serverId[..], deviceId[..]`` verdict; a rank
table printed with ``//`` comments; runtime result codes; early nccl-tests times in ms; hosts from
NCCL's debug prefix; the worker's exception above torchrun's verdict.

Samples: ``tests/data/evidence_heldout_20/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from typing import Any

from advisor.evidence.load import load_paths
from advisor.parsers import nccl_tests, rank_table
from tests.conftest import DATA
from tests.rules_facts import builtin_findings, event

HELDOUT = DATA / "evidence_heldout_20"


def _failures(name: str) -> list[dict[str, Any]]:
    ev = load_paths([HELDOUT / name])
    assert ev.files[0].status == "read", ev.files[0]
    return ev.failures


def test_handled_work_exception_is_the_ranks_own_failure_on_its_nccl_host() -> None:
    path = HELDOUT / "nccl_handle_exception.log"
    (failure,) = _failures(path.name)
    assert (failure["kind"], failure["rank"], failure["line"]) == ("watchdog_failure", 6, 12)
    assert failure["seq"] is None and "Some NCCL operations have failed" in failure["message"]
    # NCCL's own "comm 0x.. rank 6 nranks 8" line names the host rank 6 ran on
    assert (failure["host"], failure["library"]) == ("n124-137-109", "NCCL")
    finding = builtin_findings({"evidence.failures": [failure]}, "nccl")[
        "evidence-watchdog-failure"
    ]
    (item,) = [str(i) for i in finding.items]
    assert item.startswith("Rank 6: [E624 04:14:29.224103812 ProcessGroupNCCL.cpp:684]"), item
    assert item.endswith(f"({path}, line 12)") and "work None" not in item


def test_task_exec_timeout_keyword_is_ei0002_with_its_op_and_the_exec_timeout_finding() -> None:
    (ev,) = _failures("stage_keyword_task_timeout.log")
    assert (ev["kind"], ev["code"], ev["code_name"], ev["op"], ev["pid"], ev["library"]) == (
        "hccl_error", "EI0002", "TaskExecStage/Timeout", "all_reduce", 858209, "HCCL",
    )  # fmt: skip
    findings = builtin_findings({"evidence.failures": [ev]}, "hccl")
    assert "evidence-hccl-exec-timeout" in findings


def test_env_config_keyword_names_the_variable_its_range_and_the_call_that_failed() -> None:
    (ev,) = _failures("stage_keyword_env_config.log")
    assert (ev["line"], ev["code"], ev["code_name"], ev["call"], ev["pid"]) == (
        2, "EI0001", "InitGroupStage/EnvConfig", "HcclGetRootInfo", 3729526,
    )  # fmt: skip
    assert ev["message"].startswith("HCCL_RDMA_SL[1000] is invalid. except: [0, 7] / ")
    assert ev["message"].endswith("HcclGetRootInfo returned 1 = HCCL_E_PARA")
    finding = builtin_findings({"evidence.failures": [ev]}, "hccl")["evidence-hccl-other-error"]
    (item,) = [str(i) for i in finding.items]
    assert item.startswith("EI0001: environment variable configuration error"), item


def test_hccp_device_ip_check_is_ei0014_with_the_rank_tables_address() -> None:
    (ev,) = _failures("hccp_device_ip_check.log")
    assert (ev["code"], ev["ip"], ev["pid"], ev["library"]) == (
        "EI0014",
        "127.10.0.0",
        166192,
        "HCCL",
    )
    assert "IP address(127.10.0.1) of the network adapter" in ev["message"]


def test_older_ei0002_verdict_names_the_abnormal_server_and_device() -> None:
    (ev,) = _failures("ei0002_server_device_form.log")
    assert (ev["code"], ev["remote_rank"], ev["op"]) == ("EI0002", 4, "all_reduce")
    assert (ev["culprit_ip"], ev["culprit_device"], ev["exception_type"]) == (
        "192.168.100.111", 4, "Heartbeat Lost Occurred",
    )  # fmt: skip


def test_rank_table_with_comments_is_read_and_the_comments_are_an_error() -> None:
    table = rank_table.parse((HELDOUT / "rank_table_commented.json").read_text())
    assert (table.version, len(table.ranks), table.cut) == ("1.2", 16, False)
    assert table.errors == [
        "not valid JSON: // comments (line 2, 3, 4, 7, 8 ...); a JSON parser refuses the file: "
        "remove them"
    ]
    assert table.ranks[15].device_ip == "192.168.4.9"


def test_runtime_result_codes_are_runtime_errors_with_their_names() -> None:
    result = [e for e in _failures("runtime_result_code.log") if e["kind"] == "npu_runtime_error"]
    assert [(e["line"], e["code"], e["code_name"], e["call"]) for e in result] == [
        (10, "507011", "ACL_ERROR_RT_MODEL_EXECUTE", "synchronize stream")
    ]
    cut = [e for e in _failures("runtime_code_cut.log") if e["kind"] == "npu_runtime_error"]
    assert [(e["line"], e["code"], e["code_name"]) for e in cut] == [
        (2, "507048", "ACL_ERROR_RT_FFTS_PLUS_TIMEOUT")
    ]
    finding = builtin_findings({"evidence.failures": cut}, "hccl")["evidence-npu-runtime-error"]
    assert "the runtime reported 507048 = ACL_ERROR_RT_FFTS_PLUS_TIMEOUT" in str(finding.items[0])


def test_operator_failure_and_a_compiler_code_are_not_called_hccl() -> None:
    ops, compiler = _failures("ops_operator_failure.log")
    assert (ops["kind"], ops["call"], ops["code"], ops["torch_npu_code"]) == (
        "npu_runtime_error", "RepeatInterleave", "500002", "ERR01100",
    )  # fmt: skip
    assert (compiler["kind"], compiler["code"], compiler["library"]) == (
        "hccl_error",
        "E40024",
        None,
    )


def test_torch_npu_code_line_keeps_the_exception_it_ends() -> None:
    (ev,) = _failures("torch_npu_after_exception.log")
    assert ev["message"].startswith("RuntimeError: Tensors must be contiguous / [ERROR]")
    assert (ev["code"], ev["pid"]) == ("ERR02002", 23232)


def test_store_that_listens_nowhere_is_one_failure_with_torchs_verdict() -> None:
    (ev,) = _failures("store_listen_verdict.log")
    assert (ev["kind"], ev["line"], ev["port"]) == ("store_bind_failure", 2, 29500)
    assert ev["message"].endswith(
        "/ The server socket has failed to listen on any local network address."
    )


def test_agent_verdict_names_the_workers_exception_above_it() -> None:
    (ev,) = _failures("agent_after_exception.log")
    assert (ev["kind"], ev["pid"], ev["exit_code"], ev["root_cause"]) == (
        "elastic_failure", 16651, 1, True,
    )  # fmt: skip
    assert ev["message"].endswith("last exception above it (line 16): Exception: test exception")


def test_early_nccl_tests_times_in_ms_become_us_and_old_rank_lines_name_hosts() -> None:
    log = nccl_tests.parse((HELDOUT / "nccl_tests_ms_times.log").read_text())
    (table,) = log.tables
    # in rank order: rank 0 ran on managed-worker-3jq5
    assert (log.hosts, log.ranks) == (["managed-worker-3jq5", "managed-worker-0khr"], 2)
    row = table.rows[4]
    assert row.size_bytes == 16777216 and row.out_of_place is not None
    # 16 MiB / 17.616 ms = 0.95 GB/s, the printed algbw
    assert (row.out_of_place.time_us, row.out_of_place.algbw_gbytes_s) == (17616.0, 0.95)
    assert any("times read as milliseconds" in w.message for w in log.warnings)


def test_times_in_us_are_left_alone() -> None:
    log = nccl_tests.parse((HELDOUT / "nccl_tests_info_host.log").read_text())
    assert log.tables[0].rows[0].out_of_place.time_us == 13.84  # type: ignore[union-attr]
    assert not any("milliseconds" in w.message for w in log.warnings)
    # no "# Rank N ... on HOST" line: NCCL's debug prefix names the host
    assert log.hosts == ["ip-172-31-39-141"]


def test_a_keyword_with_no_code_of_its_own_is_named_by_its_keyword() -> None:
    # TaskExecStage/RunFailed has no fault code in HCCL's table: the finding names the keyword
    ran = event(kind="hccl_error", code=None, code_name="TaskExecStage/RunFailed", message="x")
    finding = builtin_findings({"evidence.failures": [ran]}, "hccl")["evidence-hccl-other-error"]
    assert "other CANN / HCCL error(s): TaskExecStage/RunFailed:" in finding.message
    assert str(finding.items[0]).startswith(
        "TaskExecStage/RunFailed: a task of the collective failed on the device"
    )


def test_a_log_of_nccl_info_lines_only_is_read_for_its_host_with_no_failure() -> None:
    path = HELDOUT / "nccl_info_only.log"
    ev = load_paths([path])
    assert (ev.files[0].status, ev.files[0].formats, ev.failures) == ("read", ["log"], [])
    assert ev.hosts == [{"host": "dsw-251511-c5cfcb8-lwcpt", "named": True, "files": [str(path)]}]


def test_an_nccl_failure_takes_the_one_host_every_nccl_line_names() -> None:
    path = HELDOUT / "nccl_error_one_host.log"
    ev = load_paths([path])
    (failure,) = ev.failures
    assert (failure["kind"], failure["host"]) == ("nccl_call_failure", "workergpu22")
    # "...+cuda10.2workergpu22:1810803:..." glued to other output names no host of its own
    assert [h["host"] for h in ev.hosts] == ["workergpu22"]


def test_the_roots_list_of_agents_that_never_connected_joins_its_time_out() -> None:
    (ev,) = _failures("root_failed_agent_list.log")
    assert (ev["kind"], ev["line"], ev["timeout_ms"], ev["rank_size"]) == (
        "hccl_negotiation_failure", 1, 3_600_000, 2048,
    )  # fmt: skip
    missing = ev["missing_ranks"]
    assert (len(missing), missing[:3], missing[-1]) == (44, [10, 17, 40], 2007)
    finding = builtin_findings({"evidence.failures": [ev]}, "hccl")[
        "evidence-hccl-negotiation-failed"
    ]
    (item,) = [str(i) for i in finding.items]
    assert "2048 ranks expected" in item and "never connected: rank(s) 10, 17, 40," in item


def test_ray_prefix_gives_pid_and_node_and_the_progress_line_gives_the_group() -> None:
    (timeout,) = _failures("ray_watchdog_progress_group.log")
    assert (timeout["kind"], timeout["rank"], timeout["seq"], timeout["pid"]) == (
        "watchdog_timeout", 1, 1, 231421,
    )  # fmt: skip
    # "[PG 0 (default_pg) Rank 1]": the group and its description, as the GUID form gives them
    assert (timeout["group"], timeout["last_enqueued"], timeout["last_completed"]) == (
        "0 (default_pg)", 1, -1,
    )  # fmt: skip
    ev = load_paths([HELDOUT / "ray_stamp_subgroup_timeout.log"])
    # (beside it, torch's word that the flight recorder was off: a notice, no failure)
    (sub,) = [f for f in ev.failures if f["kind"] != "pg_settings"]
    # the launcher's [rank15] is the global rank; "[Rank 1]" is the rank in mesh_tp (PG 4)
    assert (sub["rank"], sub["group"], sub["seq"], sub["op"]) == (15, "4 (mesh_tp)", 3, "broadcast")
    assert (sub["pid"], sub["host"]) == (1230, "train-1316148307689748608-9zzm714v3bpc-worker-0")


def test_taking_the_process_down_alone_is_that_ranks_own_failure() -> None:
    failures = {e["rank"]: e for e in _failures("taking_process_down_alone.log")}
    assert (failures[3]["kind"], failures[3]["line"]) == ("watchdog_failure", 1)
    assert (failures[2]["kind"], failures[2]["seq"]) == ("watchdog_timeout", 1)


def test_async_nccl_error_names_its_rank_and_last_error_once() -> None:
    net, call = _failures("nccl_async_exception.log")
    assert (net["kind"], net["line"], net["pid"]) == ("nccl_net_error", 1, 34610)
    assert (call["kind"], call["rank"], call["code_name"], call["call"]) == (
        "nccl_call_failure", 4, "ncclRemoteError", "checkForNCCLErrors",
    )  # fmt: skip
    assert "/ Last error: NET/IB: Got completion from peer 10.0.1.23<34696>" in call["message"]


def test_cann_code_glued_to_its_pid_and_ei0005s_op_and_group() -> None:
    ez, small = _failures("ez9999_glued_pid.log")
    assert (ez["code"], ez["pid"], ez["library"]) == ("EZ9999", 940663, None)
    assert "HCCL_BUFFSIZE is too SMALL" in ez["message"]
    # the message's window check is read for what it asks (tests/test_parsers_heldout_set338.py)
    assert (small["kind"], small["numel"]) == ("hccl_buffsize_small", 294)
    (ei,) = _failures("ei0005_ccl_op.log")
    assert (ei["code"], ei["code_name"], ei["op"], ei["group"]) == (
        "EI0005", "Invalid_Argument", "reduce_scatter", "group_name_1",
    )  # fmt: skip


def test_error_cqe_without_its_code_names_both_devices() -> None:
    (ev,) = _failures("error_cqe_no_code.log")
    assert (ev["code"], ev["code_name"], ev["device"], ev["ip"], ev["remote_ip"]) == (
        None, "error CQE", 0, "192.168.200.100", "192.168.200.101",
    )  # fmt: skip
    finding = builtin_findings({"evidence.failures": [ev]}, "hccl")["evidence-hccl-other-error"]
    assert str(finding.items[0]).startswith(
        "error CQE (device 0): a transfer to the peer device failed"
    )


def test_a_torch_npu_code_of_another_process_is_its_own_event() -> None:
    err, code = _failures("two_processes_err_and_code.log")
    assert (err["kind"], err["pid"], err["code"]) == ("torch_npu_error", 343, "ERR00100")
    assert (code["kind"], code["pid"], code["code"]) == ("hccl_error", 143, "EI0003")


def test_store_connect_time_outs_in_seconds_and_the_old_form() -> None:
    connect, rendezvous = _failures("store_connect_seconds.log")
    assert (connect["kind"], connect["timeout_ms"], connect["remote_ip"], connect["port"]) == (
        "store_timeout", 60_000, "192.0.0.1", 1234,
    )  # fmt: skip
    assert (rendezvous["kind"], rendezvous["exception_type"]) == (
        "rendezvous_failure", "RendezvousConnectionError",
    )  # fmt: skip
    (old,) = _failures("store_connect_old_form.log")
    assert (old["kind"], old["line"], old["timeout_ms"], old["port"]) == (
        "store_timeout",
        4,
        60_000,
        None,
    )
    (socket,) = _failures("socket_timeout.log")  # the second process's line is the same failure
    assert (socket["kind"], socket["line"], socket["exception_type"]) == (
        "store_timeout", 6, "store operation",
    )  # fmt: skip
    finding = builtin_findings({"evidence.failures": [socket]}, "gloo")["evidence-store-timeout"]
    assert str(finding.items[0]).startswith("A process timed out store operation (")


def test_rendezvous_errors_from_a_traceback_and_from_the_error_handlers_json() -> None:
    (closed,) = _failures("rendezvous_closed.log")
    assert (closed["line"], closed["exception_type"]) == (14, "RendezvousClosedError")
    (timeout,) = _failures("rendezvous_timeout_json.log")
    assert (timeout["line"], timeout["exception_type"]) == (3, "RendezvousTimeoutError")
    finding = builtin_findings({"evidence.failures": [closed, timeout]}, "gloo")[
        "evidence-rendezvous-failure"
    ]
    assert "(RendezvousClosedError, RendezvousTimeoutError)" in finding.message


def test_nccl_tests_behind_launcher_tags_is_found_and_read() -> None:
    ev = load_paths([HELDOUT / "nccl_tests_skypilot_tagged.log"])
    (bench,) = ev.benchmarks
    assert ev.files[0].formats == ["nccl_tests"]
    # (ranks 0-3 listed, the copy cut there: the header's "nGpus 8" is one process's eight)
    assert (bench["min_bytes"], bench["max_bytes"], bench["ranks"], bench["complete"]) == (
        8, 134217728, 8, False,
    )  # fmt: skip
    assert bench["hosts"] == ["nccl-ebd1-head-5vwmjam2-compute"]
    ev = load_paths([HELDOUT / "nccl_tests_mpi_indented.log"])
    (bench,) = ev.benchmarks
    assert (bench["max_bytes"], bench["ranks"]) == (2147483648, 2)
    assert bench["hosts"] == ["multi-node-nccl-test-worker-0", "multi-node-nccl-test-worker-1"]


def test_nccl_warn_lines_without_nccls_prefix() -> None:
    warnings = [e for e in _failures("nccl_warn_no_prefix.log") if e["kind"] == "nccl_warning"]
    assert [(e["line"], e["message"]) for e in warnings] == [
        (1, "NET/OFI Unexpected status (0) for message 246"),
        (6, "NET/OFI Write complete from unexpected request type!"),
        (11, "Attempt to use communicator before the previous operation returned ncclSuccess"),
    ]


def test_torch_npu_code_behind_two_worker_prefixes_and_a_code_name_with_a_slash() -> None:
    (err,) = _failures("torch_npu_nested_prefixes.log")
    assert (err["torch_npu_code"], err["pid"], err["device"]) == ("ERR00100", 2805207, 1)
    el = [e for e in _failures("el0001_slash_name.log") if e["kind"] == "hccl_error"]
    assert [(e["code"], e["code_name"], e["pid"]) for e in el] == [
        ("EL0001", "Device_Absent/Abnormal", 1070)
    ]
