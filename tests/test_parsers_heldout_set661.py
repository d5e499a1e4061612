"""Outputs of round MMMM's held-out evaluation (set 661, Ascend tool outputs) that the advisor
read wrong or in part before this change (tests/data/evidence_heldout_73, sources in
tests/data/SOURCES.md): npu-smi info's process table copied alone from the border over its first
row (not recognised), an HCCL socket table whose link wait was said with "error number None" and
without its port, its 120 s wait and its TLS status, and npu-smi's DCMI start failure whose
finding named runtime errors the copy does not have and left out the board type's -9005."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_73"

PROCESSES = "npu_smi_process_table_only_no_running_processes_npu0_to_5_vllm_ascend3289_cut.txt"
LINK = (
    "hccl_plog_socket_manager_table_rank27_10_20_0_29_port16666_time_out_tls_disable_ret9_"
    "vllm_ascend9447_cut.log"
)
DCMI = (
    "npu_smi_dcmi_8020_board_type_9005_drvgetdevnum_87_rt_507899_container_easyr1_npu_patterns.log"
)


_load = partial(heldout.load, HELDOUT)
_text = partial(heldout.text, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


# --- npu-smi info's process table alone, from its border -----------------------------------------


def test_process_table_from_its_border_is_read_as_idle_npus() -> None:
    ev = _load(PROCESSES)
    (report,) = ev.files
    assert report.status == "read" and report.formats == ["ascend_notes"]
    (note,) = report.messages
    assert note.line == 2  # the first "No running processes" row, under the border
    assert note.message.endswith("no process running on NPU 0, 1, 2, 3, 4, 5")
    # nothing of a chip is made up from it
    assert ev.npu_chips == [] and ev.npu_process_chips == [] and ev.failures == []
    assert heldout.imported(ev)[0] == "READY"


def test_process_table_of_other_npus_from_a_dashed_border(tmp_path: Path) -> None:
    # another server's NPUs 8-13, the border drawn with "-" as npu-smi's other borders are
    text = _text(PROCESSES).replace("=", "-")
    for n in range(6):
        text = text.replace(f"in NPU {n} ", f"in NPU {n + 8}")
    ev = heldout.load_copy(tmp_path, text, name="copy.txt")
    (report,) = ev.files
    assert report.status == "read"
    assert report.messages[0].message.endswith("no process running on NPU 8, 9, 10, 11, 12, 13")
    assert heldout.imported(ev)[0] == "READY"


def test_a_border_over_other_words_is_not_a_process_table(tmp_path: Path) -> None:
    # a border over a row that is not npu-smi's idle row: not this reading
    text = "+======+\n| hello |\n+======+\n"
    ev = heldout.load_copy(tmp_path, text, name="copy.txt")
    assert "ascend_notes" not in ev.files[0].formats


# --- HCCL socket table: link to rank 27 timed out ------------------------------------------------


def test_link_wait_names_the_port_the_120_s_wait_the_tls_status_and_ret_9() -> None:
    ev = _load(LINK)
    (link,) = ev.failures
    assert (link["kind"], link["line"], link["rank"], link["ip"]) == (
        "hccl_link_timeout",
        3,
        0,
        "10.20.0.2",
    )
    assert (link["remote_rank"], link["remote_ip"], link["port"]) == (27, "10.20.0.29", 16666)
    assert (link["code"], link["code_name"], link["library"]) == ("9", "HCCL_E_TIMEOUT", "HCCL")
    assert link["timeout_ms"] == 120_000  # line 7's timeout[120 s]
    assert link["exception_type"] == "time out, TLS DISABLE"
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-hccl-link-wait-timeout", "critical")]
    _, (item,) = heldout.finding(outcome, "evidence-hccl-link-wait-timeout")
    assert item.startswith(
        "Rank 0 (10.20.0.2) waited 120 s for rank 27 (10.20.0.29, port 16666), status "
        '"time out, TLS DISABLE", error number 9 = HCCL_E_TIMEOUT ('
    )
    assert "None" not in item and item.endswith("line 3)")


def test_link_wait_of_another_rank_and_peer(tmp_path: Path) -> None:
    # rank 3 at 10.20.0.5 waiting for rank 12 at 10.20.0.40 port 16667, 300 s, TLS ENABLE
    text = (
        _text(LINK)
        .replace("10.20.0.29(27)", "10.20.0.40(12)")
        .replace("10.20.0.2(0)", "10.20.0.5(3)")
        .replace("|  16666  |", "|  16667  |")
        .replace("DISABLE", "ENABLE")
        .replace("rank[0] timeout[120 s]", "rank[3] timeout[300 s]")
    )
    (link,) = _write(tmp_path, text).failures
    assert (link["rank"], link["ip"], link["remote_rank"], link["remote_ip"], link["port"]) == (
        3,
        "10.20.0.5",
        12,
        "10.20.0.40",
        16667,
    )
    assert (link["timeout_ms"], link["exception_type"], link["code"]) == (
        300_000,
        "time out, TLS ENABLE",
        "9",
    )


def test_a_wait_line_of_another_rank_gives_this_row_no_timeout(tmp_path: Path) -> None:
    # the wait line names rank 5, not the row's rank 0: its 120 s is not this link's
    text = _text(LINK).replace("rank[0] timeout[120 s]", "rank[5] timeout[120 s]")
    links = [f for f in _write(tmp_path, text).failures if f["line"] == 3]
    (link,) = links
    assert link["timeout_ms"] is None


def test_table_without_its_ret_line_keeps_no_number(tmp_path: Path) -> None:
    # the copy cut after the row: no ret[N], so no error number is said (nor "None")
    lines = _text(LINK).splitlines(keepends=True)
    ev = _write(tmp_path, "".join(lines[:3]))
    (link,) = ev.failures
    assert link["code"] is None and link["code_name"] is None
    _, (item,) = heldout.finding(heldout.imported(ev)[1], "evidence-hccl-link-wait-timeout")
    assert "error number" not in item and "None" not in item


# --- npu-smi: DCMI -8020, board type -9005, drvGetDevNum 87 ------------------------------------


def test_dcmi_start_names_the_board_type_failure_and_no_absent_runtime_errors() -> None:
    ev = _load(DCMI)
    init, count = sorted(ev.failures, key=lambda f: f["line"])
    assert (init["line"], init["call"], init["code"]) == (1, "dcmi_init", "-8020")
    assert init["exception_type"].endswith(
        "; also npu-smi could not read the board type: -9005 NPU_ERR_CODE_INNER_ERR (internal "
        "error) (line 2)"
    )
    assert (count["line"], count["call"], count["code"]) == (3, "drvGetDevNum", "87")
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert set(heldout.above_info(outcome)) == {
        ("evidence-npu-devices-unavailable", "critical"),
        ("evidence-npu-dcmi-init-failed", "critical"),
    }
    message, _ = heldout.finding(outcome, "evidence-npu-devices-unavailable")
    # the copy has no null context and no EE1001: the finding must not name them
    assert "null context" not in message and "EE1001" not in message
    _, (item,) = heldout.finding(outcome, "evidence-npu-dcmi-init-failed")
    assert "-9005" in item and item.endswith("line 1)")


def test_board_type_failure_alone_is_npu_smi_reading_no_npu(tmp_path: Path) -> None:
    # a container's npu-smi that started DCMI but could not read the board type (another code)
    ev = _write(tmp_path, "root@node:~# npu-smi info\nnpu get board type failed. ret is -9008\n")
    (failure,) = ev.failures
    assert (failure["line"], failure["call"], failure["code"], failure["code_name"]) == (
        2,
        "npu_get_board_type",
        "-9008",
        "NPU_ERR_CODE_DEVICE_NOT_EXIST",
    )
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-npu-dcmi-error", "warning")]


def test_npu_smi_that_started_stays_ready(tmp_path: Path) -> None:
    # the healthy twin: npu-smi's version line and nothing failed
    ev = _write(tmp_path, "root@node:~# npu-smi -v\nnpu-smi version: 24.1.rc2\n")
    assert not ev.failures
    assert heldout.imported(ev)[0] == "READY"
