"""Outputs of round JJJJ's held-out evaluation (set 644, Ascend logs) that the advisor read in
part before this change (tests/data/evidence_heldout_70, sources in tests/data/SOURCES.md):
MindIE MS's and MindIE Server's ERROR lines with their MindIE error codes (MIE03E400008, the MS
HTTP server's time-out; MIE1AE66666B, the server's llm_backend that could not get its model
instance's cache block count) read only as an unknown program's first error lines, a warning,
the codes given no meaning. MindIE's error code reference: "MIE", the component (03 MS, 04
Server, 05 LLM ...), the level (E: Error), six hex digits; MS's six: sub-component (40
ms-common, its HTTP server), feature, error type (08 DEADLINE_EXCEEDED)."""

from __future__ import annotations

from functools import partial
from pathlib import Path

from advisor.evidence.load import EvidenceFacts
from tests import heldout
from tests.conftest import DATA

HELDOUT = DATA / "evidence_heldout_70"

MINDIE = "mindie_ms_server_mie_error_codes_http_timeout_cache_blocks_mindcluster.log"


_load = partial(heldout.load, HELDOUT)


_write = partial(heldout.load_copy, name="copy.log")


def _kinds(ev: EvidenceFacts) -> list[tuple[str, int]]:
    return [(f["kind"], f["line"]) for f in ev.failures]


def _lines() -> list[str]:
    """The real file's three lines, each with its newline: MS's ERROR, MS's INFO link info,
    the server's ERROR."""
    return (HELDOUT / MINDIE).read_text().splitlines(keepends=True)


# --- MindIE MS's HTTP server time-out and MindIE Server's llm_backend failure -------------------


def test_mindie_coded_error_lines_are_failures_their_codes_said() -> None:
    ev = _load(MINDIE)
    assert ev.files[0].status == "read" and ev.files[0].formats == ["log"]
    assert _kinds(ev) == [("mindie_error", 1), ("mindie_error", 3)]
    ms, server = ev.failures
    assert (ms["code"], ms["library"]) == ("MIE03E400008", "MindIE MS")
    assert "MindIE MS's ms-common" in ms["exception_type"]
    assert "error type 08 DEADLINE_EXCEEDED (an operation timed out)" in ms["exception_type"]
    assert ms["exception_type"].endswith("its HttpServer): Http server on timeout")
    assert (server["code"], server["library"]) == ("MIE1AE66666B", "MindIE Server")
    # (component 1A is none of the reference's 00-08: its level E is still an error)
    assert (
        "component 1A, one MindIE's error code reference does not list"
        in (server["exception_type"])
    )
    assert server["exception_type"].endswith(
        "its llm_backend): get model instance cache block nums failed."
    )
    # the INFO line between them (rank 48, device 6) is MS's link info, no fault of either
    for f in ev.failures:
        assert (f["rank"], f["device"], f["host"], f["ip"]) == (None, None, None, None)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-mindie-error", "critical")]
    items = heldout.items(outcome, "evidence-mindie-error")
    assert [item.split("(", 1)[0].split(":", 1)[0] for item in items] == [
        "MIE03E400008",
        "MIE1AE66666B",
    ]
    assert items[0].endswith(f"{MINDIE}, line 1)") and items[1].endswith(f"{MINDIE}, line 3)")
    assert not any("48" in item.split(": ", 1)[0] for item in items)


def test_the_same_lines_at_info_are_a_healthy_twin(tmp_path: Path) -> None:
    # the same three lines at INFO: MindIE's codes on no error line, nothing failed
    ms, link, server = _lines()
    ev = _write(
        tmp_path, ms.replace("[ERROR]", "[INFO]") + link + server.replace("[ERROR]", "[INFO]")
    )
    assert ev.files[0].status == "read"
    assert ev.failures == []
    level, outcome = heldout.imported(ev)
    assert level == "READY"
    assert heldout.above_info(outcome) == []


def test_another_servers_backend_alone_is_its_failure(tmp_path: Path) -> None:
    # another server process (pid 9001) on its own, the MS lines left out
    _, link, server = _lines()
    ev = _write(tmp_path, link + server.replace("[8771] [8775]", "[9001] [9002]"))
    assert _kinds(ev) == [("mindie_error", 2)]
    assert ev.failures[0]["code"] == "MIE1AE66666B"
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert heldout.above_info(outcome) == [("evidence-mindie-error", "critical")]


def test_an_ms_coordinators_code_is_decoded_by_its_fields(tmp_path: Path) -> None:
    # MS's ms-coordinator (20), error type 09 UNREACHABLE; the same line repeated twice more
    ms, link, _ = _lines()
    coordinator = ms.replace("MIE03E400008", "MIE03E200109")
    ev = _write(tmp_path, link + coordinator * 3)
    assert _kinds(ev) == [("mindie_error", 2)]
    (failure,) = ev.failures
    assert failure["code"] == "MIE03E200109"
    assert "MindIE MS's ms-coordinator" in failure["exception_type"]
    assert "error type 09 UNREACHABLE" in failure["exception_type"]
    assert failure["repeated_lines"] == [3, 4]
    _, outcome = heldout.imported(ev)
    assert heldout.items(outcome, "evidence-mindie-error")[0].endswith(
        "copy.log, line 2; the same code on 2 more line(s))"
    )


def test_a_mindie_llm_code_names_its_sub_component(tmp_path: Path) -> None:
    # MindIE LLM's (05) own line format, its sub-component 00 ATB_MODELS; on rank 3 of a
    # launcher's "[rank3]:" tag
    ev = _write(
        tmp_path,
        "[rank3]:[2025-10-28 16:54:21.902229] [41331] [281459407450464] [llm] [ERROR] "
        "[model.cpp:348] [MIE05E000002] Execute fail, enable log: export ASDOPS_LOG_LEVEL=ERROR\n",
    )
    (failure,) = ev.failures
    assert (failure["kind"], failure["code"], failure["library"]) == (
        "mindie_error",
        "MIE05E000002",
        "MindIE LLM",
    )
    assert "MindIE LLM's ATB_MODELS, level E (error)" in failure["exception_type"]


_STARTED = (
    "[2025-06-30 20:37:05.113+08:00] [8771] [ubuntu] [system] [server] [Start mindie server] "
    "[success]\n"
)
"""MindIE Server's operation log's verdict on its start: it came up."""


def test_a_server_start_that_succeeded_after_its_errors_went_past_them(tmp_path: Path) -> None:
    # the server's backend error, then its operation log's start verdict, success: the error
    # is one it went past (a warning, as a failed start it came back from), no failure
    _, _, server = _lines()
    ev = _write(tmp_path, server + _STARTED)
    assert _kinds(ev) == [("gone_past", 1), ("run_success", 2)]
    assert ev.failures[0]["was"] == "mindie_error"
    level, outcome = heldout.imported(ev)
    assert level == "READY WITH WARNINGS"
    assert heldout.above_info(outcome) == [("evidence-run-gone-past", "warning")]


def test_the_same_error_after_the_start_succeeded_is_the_failure(tmp_path: Path) -> None:
    # the backend error again after the server came up: that one is the failure
    _, _, server = _lines()
    ev = _write(tmp_path, server + _STARTED + server)
    assert ("mindie_error", 3) in _kinds(ev)
    assert ("gone_past", 1) in _kinds(ev)
    level, outcome = heldout.imported(ev)
    assert level == "NOT READY"
    assert ("evidence-mindie-error", "critical") in heldout.above_info(outcome)
