"""Outputs the ninth held-out evaluation misread: nccl-tests lines behind srun's padded
``--label`` tag, an error completion on NCCL's InfiniBand transport, and torch_npu's ERR lines
of the processes an elastic agent then stopped.

Samples: ``tests/data/evidence_heldout_13/`` (sources in ``tests/data/SOURCES.md``).
"""

from __future__ import annotations

from advisor.evidence.load import load_paths
from advisor.parsers import logs, strip_launcher_prefix
from tests.conftest import DATA
from tests.rules_facts import finding_items

HELDOUT = DATA / "evidence_heldout_13"


def _findings(name: str, backend: str) -> dict[str, list[str]]:
    ev = load_paths([HELDOUT / name])
    return finding_items({"evidence.failures": ev.failures}, backend)


def test_padded_srun_label_is_a_launcher_tag() -> None:
    assert strip_launcher_prefix(" 0: #  size") == ("#  size", 0)
    assert strip_launcher_prefix("12: x") == ("x", 12)


def test_nccl_tests_behind_srun_labels_are_read() -> None:
    ev = load_paths([HELDOUT / "nccl_tests_srun_label.log"])
    (report,) = ev.files
    assert report.status == "read"  # the missing request line is a note, no line skipped
    (bench,) = ev.benchmarks
    by_size = {(r["bytes"], r["in_place"]): r for r in bench["results"]}
    row = by_size[(4294967296, False)]
    assert (row["time_us_p50"], round(row["busbw_gbps"], 2)) == (44904.0, 741.28)
    assert round(by_size[(4294967296, True)]["busbw_gbps"], 2) == 741.92
    assert round(bench["footer_avg_busbw_gbps"], 4) == 303.8944


def test_ib_error_completion_names_peer_status_and_process() -> None:
    (ev,) = logs.parse((HELDOUT / "nccl_ib_completion_error.log").read_text()).events
    assert (ev.kind, ev.line, ev.host, ev.pid, ev.device) == (
        "nccl_net_error", 25, "tpgds-aihub0007", 185303, 1,
    )  # fmt: skip
    # its own init line is not in the log; the processes whose init lines are all name 16 ranks
    assert (ev.rank, ev.rank_size) == (None, 16)
    assert (ev.remote_ip, ev.port, ev.code, ev.code_name, ev.exception_type) == (
        "10.99.91.63", 51161, "4", "IBV_WC_LOC_PROT_ERR", "hca mlx5_1",
    )  # fmt: skip
    (item,) = _findings("nccl_ib_completion_error.log", "nccl")["evidence-nccl-ib-completion-error"]
    assert "from peer 10.99.91.63:51161, IBV_WC_LOC_PROT_ERR (4), hca mlx5_1" in item


def test_newer_ib_completion_form_with_the_status_name() -> None:
    line = (
        "[2026-09-09 10:46:33] ubuntu2:319733:319761 [1] transport/net_ib/p2p.cc:648 NCCL WARN "
        "NET/IB: Got completion from peer 10.153.235.13<40554> with status=IBV_WC_RETRY_EXC_ERR(12)"
        " opcode=IBV_WC_RECV_RDMA_WITH_IMM(129) vendor_err=129 localGid ::ffff:1.1.2.2 hca mlx5_1"
    )
    (ev,) = logs.parse(line).events
    assert (ev.code, ev.code_name, ev.remote_ip, ev.port, ev.host, ev.pid) == (
        "12", "IBV_WC_RETRY_EXC_ERR", "10.153.235.13", 40554, "ubuntu2", 319733,
    )  # fmt: skip


def test_torch_npu_err_lines_name_each_stopped_device() -> None:
    events = logs.parse((HELDOUT / "torch_npu_err_elastic.log").read_text()).of_kind(
        "torch_npu_error"
    )
    assert [(e.line, e.device, e.pid) for e in events][:3] == [
        (1, 1, 3938695), (3, 5, 3938699), (5, 7, 3938701),
    ]  # fmt: skip
    assert {e.code for e in events} == {"ERR99999"}
    assert sorted(e.device for e in events if e.device is not None) == [0, 1, 2, 4, 5, 6, 7]
    items = _findings("torch_npu_err_elastic.log", "hccl")["evidence-torch-npu-error"]
    assert items[0].startswith("ERR99999 on device 1, pid 3938695: UNKNOWN applicaiton exception")


def test_err_line_next_to_a_failed_call_is_not_a_second_event() -> None:
    text = (
        "RuntimeError: create:x.cpp:89 HCCL function error: HcclCommInitRootInfo(numRanks, "
        "&rootInfo, rank, &(comm->hcclComm_)), error code is 2\n"
        "[ERROR] 2025-03-26-11:49:12 (PID:3674, Device:0, RankID:0) ERR02200 DIST call hccl api "
        "failed.\n"
    )
    assert [e.kind for e in logs.parse(text).events] == ["hccl_call_failure"]


def test_failed_npu_runtime_call_names_its_acl_code() -> None:
    parsed = logs.parse((HELDOUT / "npu_sync_task_timeout.log").read_text())
    (ev,) = parsed.of_kind("npu_runtime_error")
    assert (ev.line, ev.call, ev.code, ev.code_name, ev.rank, ev.device, ev.pid) == (
        11, "npuSynchronizeDevice", "107020", "ACL_ERROR_RT_TASK_TIMEOUT", 16, 0, 639,
    )  # fmt: skip
    # the EI9999 block after it is still its own event, with the runtime's time-out in seconds
    (code,) = parsed.of_kind("hccl_error")
    assert (code.code, code.timeout_ms) == ("EI9999", 1836 * 1000)
