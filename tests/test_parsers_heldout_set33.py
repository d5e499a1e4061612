"""Outputs the thirty-third to thirty-fifth held-out evaluations misread that this round reads:
an old nccl-tests table whose alltoall rows leave the redop cell blank; HCCL's older socket table
without port columns; the device of a socket table cut before its row; vLLM's account of a worker
that died; a torch elastic summary behind a test helper's ``stderr:`` label, cut inside an entry;
NCCL WARN lines stamped with the time and carrying a net plugin's function signature (set 37).

Samples: ``tests/data/evidence_heldout_21/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from advisor.evidence.load import load_paths
from advisor.parsers import strip_launcher_prefix
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_21"


def test_blank_redop_cells_of_an_old_alltoall_table_are_read_as_no_reduction() -> None:
    ev = load_paths([HELDOUT / "nccl_tests_alltoall_blank_redop.log"])
    assert ev.files[0].status == "read", ev.files[0]
    (bench,) = ev.benchmarks
    assert (bench["ranks"], bench["hosts"], bench["min_bytes"], bench["max_bytes"]) == (
        8, ["localhost"], 1, 8589934592,
    )  # fmt: skip
    assert bench["complete"] and bench["footer_avg_busbw_gbps"] == 58.6481 * 8
    last = [r for r in bench["results"] if r["bytes"] == 8589934592]
    by_place = {r["in_place"]: r for r in last}
    assert by_place[False]["time_us_p50"] == 33508 and by_place[False]["busbw_gbps"] == 224.31 * 8
    assert by_place[True]["busbw_gbps"] == 226.16 * 8
    # validation 0: the error column is N/A, so nothing was checked (not "0 wrong")
    assert bench["wrong_total"] is None
    assert {r["dtype"] for r in bench["results"]} == {"float32"}


def test_older_socket_table_without_port_columns_names_both_ends() -> None:
    ev = load_paths([HELDOUT / "hccl_link_table_no_ports.log"])
    assert ev.files[0].status == "read", ev.files[0]
    (link,) = ev.failures
    assert (link["kind"], link["line"], link["device"], link["pid"]) == (
        "hccl_link_timeout", 6, 0, 23457,
    )  # fmt: skip
    assert (link["ip"], link["remote_ip"], link["remote_rank"], link["rank"]) == (
        "192.168.100.101", "192.168.100.100", 1, 0,
    )  # fmt: skip
    assert link["exception_type"] == "no connect" and link["port"] is None
    finding = builtin_findings({"evidence.failures": [link]}, "hccl")[
        "evidence-hccl-link-wait-timeout"
    ]
    (item,) = [str(i) for i in finding.items]
    # no time-out in the table: the status it printed instead of an invented wait
    assert item.startswith(
        'Rank 0 (192.168.100.101) waited for rank 1 (192.168.100.100), status "no connect" ('
    ), item


def test_a_socket_table_cut_before_its_row_still_gives_the_wait_its_device() -> None:
    ev = load_paths([HELDOUT / "hccl_link_table_no_row.log"])
    report = ev.files[0]
    assert report.status == "partial"
    assert [m.line for m in report.messages] == [3]
    assert "ends before its first row" in report.messages[0].message
    (wait,) = ev.failures
    assert (wait["kind"], wait["line"], wait["rank"], wait["device"], wait["timeout_ms"]) == (
        "hccl_link_timeout", 1, 0, 0, 120_000,
    )  # fmt: skip


def test_vllm_worker_death_is_a_launcher_exit_beside_the_heartbeat_verdict() -> None:
    ev = load_paths([HELDOUT / "vllm_worker_died_heartbeat.log"])
    assert ev.files[0].status == "read", ev.files[0]
    exit_, hang, dump = ev.failures
    assert (dump["kind"], dump["rank"]) == ("pg_debug_dump", 0)
    assert (exit_["kind"], exit_["line"], exit_["pid"], exit_["exit_code"]) == (
        "launcher_exit", 8, 198, -6,
    )  # fmt: skip
    assert exit_["exception_type"] == "vllm"
    assert (hang["kind"], hang["line"], hang["rank"]) == ("watchdog_hang", 10, 0)


def test_stderr_label_of_a_test_helper_is_a_tag_and_a_cut_entry_makes_the_file_partial() -> None:
    assert strip_launcher_prefix("stderr:     raise ChildFailedError(") == (
        "    raise ChildFailedError(",
        None,
    )
    ev = load_paths([HELDOUT / "elastic_summary_stderr_label.log"])
    report = ev.files[0]
    assert report.status == "partial"
    assert [(m.line, "rank 3" in m.message) for m in report.messages] == [(23, True)]
    entries = [(f["rank"], f["pid"], f["exit_code"], f["host"]) for f in ev.failures]
    assert entries == [(1, 8835, 1, "wph178"), (2, 8836, 1, "wph178"), (3, None, None, "wph178")]


def test_stamped_nccl_warn_lines_with_a_plugins_function_signature_keep_host_pid_and_device() -> (
    None
):
    # NCCL 2.27 stamps the line first; aws-ofi-nccl prints its function's whole signature where
    # NCCL prints file:line
    ev = load_paths([HELDOUT / "nccl_warn_ofi_plugin_stamped.log"])
    assert ev.files[0].status == "read", ev.files[0]
    warns = [(f["line"], f["host"], f["pid"], f["device"]) for f in ev.failures]
    assert warns[:2] == [(5, "ip-172-31-3-153", 35115, 2), (7, "ip-172-31-3-153", 35114, 1)]
    assert {f["kind"] for f in ev.failures} == {"nccl_warning"}
    # one per process and text: three texts for each of the three processes
    assert len(warns) == 9 and {w[2] for w in warns} == {35113, 35114, 35115}
    assert ev.failures[0]["message"] == "NET/OFI Failed to initialize sendrecv protocol"
    # the plugin's failure is its host's, though its WARN prefix holds a signature with spaces
    # (NCCL_IB_DISABLE=1 is not why the traffic went over sockets)
    (note,) = [m.message for m in ev.files[0].messages if "net plugin" in m.message]
    assert "ip-172-31-3-153: the net plugin failed to start (NET/OFI aws-ofi-nccl" in note

    ev = load_paths([HELDOUT / "nccl_warn_efa_stamped.log"])
    warn, call = ev.failures
    assert (warn["kind"], warn["line"], warn["host"], warn["pid"], warn["device"]) == (
        "nccl_warning", 7, "llama-3-8b-node-0-0", 194, 0,
    )  # fmt: skip
    assert warn["message"].startswith("NET/OFI Request 0x7f456c222f60 completed with error")
    assert (call["kind"], call["line"], call["code_name"], call["rank"]) == (
        "nccl_call_failure", 60, "ncclRemoteError", 0,
    )  # fmt: skip
