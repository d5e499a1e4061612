"""Outputs the thirty-eighth to forty-third held-out evaluations misread that this round reads:
an output quoted in Markdown (``>`` before every line: npu-smi, rccl-tests); a terminal's colour
codes and carriage returns copied as caret text (``^[[1;36m``, ``^M``) around a vLLM worker's
prefix; a rank table annotated with ``#`` comments; the node pdsh puts before each line of a
DeepSpeed run; a nccl-tests list of ranks that is not known to be whole (no shape from it);
vLLM's own NCCL binding's error, on the host its NCCL WARN line names; a process group's
description in torch's log prefix; an NCCL WARN line whose host NCCL printed empty; HCCL's
device-to-device (P2P) link time-out; torch's numbered ``NCCL Error N:``; a rank's own
``Timeout at NCCL work`` line.

Samples: ``tests/data/evidence_heldout_22/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from advisor.evidence.load import load_paths
from advisor.parsers import strip_launcher_prefix
from tests.conftest import DATA
from tests.rules_facts import builtin_findings

HELDOUT = DATA / "evidence_heldout_22"


def test_an_npu_smi_table_quoted_in_markdown_is_read_and_the_unquoting_said() -> None:
    ev = load_paths([HELDOUT / "npu_smi_info_blockquote_910b4.txt"])
    report = ev.files[0]
    assert report.status == "read" and report.formats == ["npu_smi_info"], report
    (chip,) = ev.npu_chips
    assert (chip["name"], chip["bus_id"], chip["power_w"], chip["temp_c"]) == (
        "910B4", "0000:C1:00.0", 94.0, 39.0,
    )  # fmt: skip
    assert (chip["hbm_used_mb"], chip["hbm_total_mb"], chip["line"]) == (2880, 32768, 7)
    assert [m.message for m in report.messages] == [
        "read as a Markdown quote: '>' taken off 9 line(s)"
    ]


def test_a_quoted_rccl_header_gives_its_sizes_and_a_list_of_ranks_that_ended_in_the_file() -> None:
    ev = load_paths([HELDOUT / "rccl_tests_quoted.log"])
    assert ev.files[0].status == "partial"  # no table: the copy ends in the init lines
    (bench,) = ev.benchmarks
    assert (bench["min_bytes"], bench["max_bytes"], bench["ranks"], bench["hosts"]) == (
        8, 536870912, 4, ["node-0"],
    )  # fmt: skip
    # RCCL's own lines follow rank 3: the list was whole, so the file states its shape
    assert bench["ranks_listed"] and not bench["results"]
    (shape,) = ev.shapes
    assert (shape["nodes"], shape["per_node"], shape["hosts"]) == (1, 4, ["node-0"])


def test_a_list_of_ranks_the_copy_ends_in_states_no_shape() -> None:
    # 16 ranks on gpu1 and gpu0, and nothing after rank 15: a third host's ranks may have
    # followed, so the import states no cluster shape (it keeps what the lines name)
    ev = load_paths([HELDOUT / "nccl_tests_rank_list_only.log"])
    (bench,) = ev.benchmarks
    assert (bench["ranks"], bench["hosts"], bench["ranks_listed"]) == (16, ["gpu1", "gpu0"], False)
    assert ev.shapes == []


def test_caret_colour_codes_around_a_vllm_prefix_are_taken_off_and_the_pid_kept() -> None:
    ev = load_paths([HELDOUT / "torch_npu_hccl_init_caret_escapes.log"])
    report = ev.files[0]
    assert report.status == "read", report
    (failure,) = ev.failures
    assert (failure["kind"], failure["call"], failure["code"], failure["pid"], failure["line"]) == (
        "hccl_call_failure", "HcclCommInitRootInfo", "7", 176029, 3,
    )  # fmt: skip
    assert failure["code_name"] == "HCCL_E_UNAVAIL"
    assert [m.message for m in report.messages] == [
        "6 terminal colour code(s) taken off before reading",
        "3 carriage return(s) shown as '^M' taken off line ends",
    ]


def test_a_rank_table_with_hash_comments_is_read_and_called_invalid_json() -> None:
    ev = load_paths([HELDOUT / "rank_table_hash_comments.json"])
    (table,) = ev.rank_tables
    assert len(table["ranks"]) == 32 and table["servers"][0] == "172.30.209.140"
    rank24 = table["ranks"][24]
    assert (rank24["server_id"], rank24["device_ip"]) == ("172.30.210.94", "11.12.165.80")
    assert table["errors"] == [
        "not valid JSON: # comments (line 3, 4, 7, 8, 10); a JSON parser refuses the file: "
        "remove them"
    ]


def test_the_node_pdsh_puts_before_each_line_is_the_failure_s_host() -> None:
    ev = load_paths([HELDOUT / "watchdog_pdsh_prefix.log"])
    (timeout,) = ev.failures
    assert (timeout["kind"], timeout["rank"], timeout["seq"]) == ("watchdog_timeout", 1, 395)
    assert (timeout["last_enqueued"], timeout["last_completed"]) == (395, 394)
    # the first line lost its "202.197.0.170: " to a progress bar; every other line names it
    assert timeout["host"] == "202.197.0.170"


def test_pdsh_prefixes_are_taken_off_only_where_they_name_a_node() -> None:
    assert strip_launcher_prefix("10.0.0.2: Traceback (most recent call last):") == (
        "Traceback (most recent call last):", None,
    )  # fmt: skip
    assert strip_launcher_prefix("worker-1: [rank1]:boom") == ("boom", 1)
    # a message's own "CODE: text" is not a node, nor a name without a bracketed tag after it
    for line in (
        "EI0006: Getting socket times out.",
        "EI0002: [PID: 1] heartbeat lost",
        "worker-1: Traceback",
        "RuntimeError: x",
    ):
        assert strip_launcher_prefix(line) == (line, None)


def test_a_binding_s_nccl_error_is_a_failed_call_on_the_host_its_warn_line_names() -> None:
    # vLLM's (and SGLang's) own NCCL binding raises RuntimeError(f"NCCL error: {text}") with
    # NCCL's ncclGetErrorString text, no file and no version (pynccl_wrapper.py NCCL_CHECK); the
    # file's one NCCL WARN line names the host both were printed on (set 41)
    ev = load_paths([HELDOUT / "nccl_warn_then_pynccl_error.log"])
    assert ev.files[0].status == "read", ev.files[0]
    warn, call = ev.failures
    assert (warn["kind"], warn["host"], warn["pid"], warn["remote_ip"], warn["port"]) == (
        "nccl_warning", "jnlh102072", 8969, "10.37.12.78", 46417,
    )  # fmt: skip
    assert (call["kind"], call["line"], call["code"], call["code_name"], call["host"]) == (
        "nccl_call_failure", 3, "2", "ncclSystemError", "jnlh102072",
    )  # fmt: skip


def test_a_binding_s_nccl_error_alone_is_found_and_names_the_call_of_its_frame() -> None:
    # nothing else in the file: the binding's RuntimeError is what makes it a failure log, and
    # the traceback frame above it names the NCCL call that failed
    ev = load_paths([HELDOUT / "pynccl_init_system_error.log"])
    assert (ev.files[0].status, ev.files[0].formats) == ("read", ["log"]), ev.files[0]
    (call,) = ev.failures
    assert (call["kind"], call["call"], call["code_name"], call["line"]) == (
        "nccl_call_failure", "ncclCommInitRank", "ncclSystemError", 10,
    )  # fmt: skip


def test_a_process_group_s_description_is_part_of_the_group_a_watchdog_names() -> None:
    # torch names a described group "[PG ID 2 PG GUID 5(mesh_ulysses) Rank 2]" (set 40)
    ev = load_paths([HELDOUT / "watchdog_group_description.log"])
    (timeout,) = ev.failures
    assert (timeout["kind"], timeout["rank"], timeout["op"], timeout["seq"]) == (
        "watchdog_timeout", 2, "all_to_all", 472025,
    )  # fmt: skip
    assert timeout["group"] == "2 (mesh_ulysses)"


def test_an_nccl_warn_line_whose_host_is_empty_keeps_its_pid_and_device() -> None:
    # ":166:1226 [0] misc/socket.cc:484 NCCL WARN ...": NCCL found no host name (set 40)
    ev = load_paths([HELDOUT / "nccl_warn_empty_host.log"])
    (warn,) = ev.failures
    assert (warn["kind"], warn["host"], warn["pid"], warn["device"], warn["line"]) == (
        "nccl_warning", None, 166, 0, 9,
    )  # fmt: skip
    assert warn["message"].startswith("socketFinalizeAccept: wrong magic")


def test_a_p2p_link_between_two_devices_that_never_came_up_is_its_own_failure() -> None:
    # after the socket wait, HCCL's device-to-device link timed out (set 42)
    ev = load_paths([HELDOUT / "hccl_plog_p2p_timeout.log"])
    link, p2p = ev.failures
    assert (link["kind"], link["rank"], link["remote_rank"]) == ("hccl_link_timeout", 10, 8)
    assert (p2p["kind"], p2p["line"], p2p["device"], p2p["pid"], p2p["timeout_ms"]) == (
        "hccl_p2p_failure", 9, 2, 114654, 130000,
    )  # fmt: skip
    assert (p2p["code"], p2p["code_name"]) == ("16", "HCCL_E_DRV")
    assert "remote physic id:1" in p2p["message"] and "dst devicePhyId[1]" in p2p["message"]
    finding = builtin_findings({"evidence.failures": [p2p]}, "hccl")["evidence-hccl-p2p-failed"]
    (item,) = [str(i) for i in finding.items]
    assert item.startswith("Device 2 (pid 114654): ") and "(HCCL_E_DRV)" in item, item


def test_torch_s_numbered_nccl_error_behind_a_quote_is_a_failed_call_of_its_rank() -> None:
    # torch/csrc/cuda/nccl.cpp throw_nccl_error: "NCCL Error 2: unhandled system error" (set 43)
    ev = load_paths([HELDOUT / "nccl_error_number_quoted.log"])
    call = next(f for f in ev.failures if f["kind"] == "nccl_call_failure")
    assert (call["rank"], call["code"], call["code_name"], call["line"]) == (
        10, "2", "ncclSystemError", 7,
    )  # fmt: skip


def test_a_rank_s_own_timeout_at_work_line_gives_its_failure_the_work_and_progress() -> None:
    # rank 2 printed no "Watchdog caught" line, only torch 2.5's "Timeout at NCCL work: 93201,
    # last enqueued ...: 93201, last completed ...: 93200" and the notices (set 43)
    ev = load_paths([HELDOUT / "watchdog_timeout_at_work.log"])
    by_rank = {f["rank"]: f for f in ev.failures}
    assert (by_rank[0]["kind"], by_rank[0]["seq"], by_rank[0]["last_completed"]) == (
        "watchdog_timeout", 93202, 93201,
    )  # fmt: skip
    two = by_rank[2]
    assert (two["kind"], two["seq"], two["last_enqueued"], two["last_completed"]) == (
        "watchdog_failure", 93201, 93201, 93200,
    )  # fmt: skip
    assert two["group"] == "0 (default_pg)"
