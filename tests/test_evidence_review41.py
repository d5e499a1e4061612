"""Review 41 of round VVV's readings (aws-ofi-nccl's failed start, lspci's -s selection, one NPU
runtime failure a rank, hccl_test's lower-case warning, hccn_tool -context dumps, torchrun's
launch note, a report's bullets of inline code, a kernel past sixteen cores' reports, grep's
colour, patterns quadratic on long lines, the error pass before the launch note): each fault it
found, on its input (tests/data/review41, described in tests/data/SOURCES.md)."""

from __future__ import annotations

import re
import time

import pytest

from advisor.evidence import load
from advisor.evidence.load import EvidenceFacts, load_paths
from advisor.parsers import ParseError, ascend_notes, hccl_test, logs, lspci, numbered_lines
from tests import heldout
from tests.conftest import DATA

REVIEW = DATA / "review41"


def _load(name: str) -> EvidenceFacts:
    return load_paths([REVIEW / name])


def test_aws_ofi_nccls_failed_start_in_a_log_that_ends_there_is_no_fallback() -> None:
    ev = _load("nccl_ofi_only_efa_then_init_failed_then_log_ends_hang_said_went_on.log")
    warns = [(f["line"], f["message"], f["exception_type"]) for f in ev.failures]
    assert warns == [
        (7, "NET/OFI Only EFA provider is supported", None),
        (9, "NET/OFI aws-ofi-nccl initialization failed", None),
    ]
    assert "evidence-nccl-fallback-warning" not in heldout.found(ev)
    assert heldout.rules_verdict(ev) == "NOT READY"


def test_aws_ofi_nccls_three_line_set_before_training_steps_is_one_fallback() -> None:
    ev = _load("nccl_ofi_init_failed_three_line_set_plugin_1_8_benign_steps0_8_still_not_ready.log")
    assert [(f["line"], f["exception_type"]) for f in ev.failures] == [
        (118, logs.STARTUP_FALLBACK),
        (119, logs.STARTUP_FALLBACK),
        (120, logs.STARTUP_FALLBACK),
    ]
    assert "evidence-nccl-warning" not in heldout.found(ev)
    assert heldout.rules_verdict(ev) == "READY WITH WARNINGS"
    # the same set where nothing shows the processes went on (only the socket transport named,
    # the copy cut there): one event, none of its lines a fallback, none said to be one
    ev = load_paths([DATA / "evidence_heldout_21" / "nccl_warn_ofi_plugin_stamped.log"])
    assert len(ev.failures) == 9
    assert not [f for f in ev.failures if f["exception_type"] == logs.STARTUP_FALLBACK]


def test_an_lspci_command_without_s_names_no_device_for_the_links_under_it() -> None:
    ev = _load("lspci_s_selection_then_unselected_grep_narrow_link_named_as_selected.txt")
    ((line, device),) = [(f["line"], f["message"]) for f in ev.failures]
    assert (line, device) == (8, "a device (its lspci heading is not in the copy)")
    assert (
        3,
        "lspci_link: lspci: 18:00.0: PCIe link 32GT/s x16 against its 32GT/s x16 capability",
    ) in heldout.notes(ev)
    assert not [m for n, m in heldout.notes(ev) if n > 3 and "18:00.0" in m]


def test_an_untagged_quote_of_a_ranks_npu_failure_is_no_failure_of_its_own() -> None:
    ev = _load("npu_507018_four_ranks_then_torchrun_root_cause_block_counted_five.log")
    failed = [(f["rank"], f["line"]) for f in ev.failures if f["kind"] == "npu_runtime_error"]
    assert failed == [(7, 5), (2, 10), (1, 15), (0, 20)]
    ev = _load("npu_507018_one_rank_tagged_then_logger_repeats_untagged_counted_two.log")
    failed = [(f["rank"], f["line"]) for f in ev.failures if f["kind"] == "npu_runtime_error"]
    assert failed == [(0, 4)]


@pytest.mark.parametrize(
    "name",
    [
        "hccl_test_lower_warning_timestamp_prefix_read_as_failure.log",
        "hccl_test_lower_warning_grep_file_prefix_read_as_failure.log",
    ],
)
def test_hccl_tests_lower_case_warning_behind_a_stamp_or_a_grep_is_no_failure(name: str) -> None:
    ev = _load(name)
    assert ev.files[0].status == "read"
    assert not ev.failures
    assert heldout.rules_verdict(ev) == "READY"
    # (its results table read behind the same prefix: two rows, both checked "success")
    table = hccl_test.parse((REVIEW / name).read_text())
    assert [(r.line, r.size_bytes, r.check) for r in table.rows] == [
        (5, 8, "success"),
        (6, 1073741824, "success"),
    ]


def test_the_slow_inputs_read_as_before_and_their_patterns_stay_linear() -> None:
    ev = _load("hccn_context_one_line_of_commands_100k_then_dump.txt")
    assert heldout.notes(ev) == [
        (
            3,
            "ascend_notes: hccn_tool -context: NPU 0's udma3 aeqc 0 context, 16 register word(s): "
            "raw registers, no health or fault reading in them",
        )
    ]
    ev = _load("torchrun_launch_configs_min_nodes_run_100k.log")
    assert any(
        m.startswith("log: torchrun's launch: 2 node(s), 4 process(es) a node")
        for m in heldout.said(ev)
    )
    sig = re.compile(ascend_notes.SIGNATURE, re.M)
    blanks = "\n" * 100_000
    for pattern, text in (
        (sig, "[root@n ~]# " + "hccn_tool -g -context -i 0 -d udma3 -aeqc 0; " * 2_200),
        (sig, "hccn_tool -context" + blanks),
        (ascend_notes._CONTEXT_CMD_RE, "hccn_tool " * 10_000 + " -context"),
        (ascend_notes._CONTEXT_QUEUE_RE, " -aeqc" * 16_000),
        (logs._LAUNCH_CONFIG_RE, "min_nodes:" * 10_000 + " x"),
        (logs._LAUNCH_CONFIG_RE, "min_nodes : " * 8_000 + "x y"),
        (logs._LAUNCH_CONFIG_RE, "min_nodes:" + blanks),
        (logs._PLOG_NOT_ERROR_RE, "2026-05-11 10:02:01" + " " * 100_000 + "x"),
        (logs._PLOG_NOT_ERROR_RE, "a:1:" * 25_000 + "x"),
        (logs._PLOG_NOT_ERROR_RE, blanks + "x"),
        (logs._BELOW_ERROR_RE, "[warning]" * 11_000),
        (logs._AGENT_DEATH_RE, "Received Signals.SIGTERM " * 4_000),
        (logs._VERL_STEP_RE, "step:1 - " * 11_000),
        (lspci._LSPCI_CMD_RE, "lspcix" * 16_000),
        (load._COLOUR_RE, "\x1b[m\x1b[" * 20_000),
        (load._CODE_BULLET_RE, "1. `a` " * 14_000),
        (load._CODE_BULLET_RE, blanks),
        (hccl_test._LINE_PREFIX_RE, "2026-05-11 10:02:01" + " " * 100_000),
    ):  # fmt: skip
        began = time.perf_counter()
        pattern.search(text)
        # (ascend_notes' signature took 1 to 9 s on the first line, the launch configs' 12 to 25
        # s, the stamped lower-case warning 66 s before its last form)
        assert time.perf_counter() - began < 1.0


def test_hccn_tool_context_of_two_npus_is_a_note_each() -> None:
    ev = _load("hccn_context_two_npus_one_note_words_summed.txt")
    assert [(n, m.split(": ", 2)[2]) for n, m in heldout.notes(ev)] == [
        (1, "NPU 0's udma3 aeqc 0 context, 16 register word(s): raw registers, no health or fault reading in them"),
        (19, "NPU 1's udma3 aeqc 0 context, 16 register word(s): raw registers, no health or fault reading in them"),
    ]  # fmt: skip


def test_a_death_signal_before_any_agent_finished_is_said_and_no_error_is_not() -> None:
    ev = _load("torchrun_launch_sigterm_death_signal_said_no_error.log")
    # (round MMMM set 666: the agent's "Received Signals.SIGTERM death signal" is the agent's
    # end, as its "Received 15 death signal" form already was, with the workers it closed; the
    # launch note that said it is no longer written beside a failure)
    (agent,) = [f for f in ev.failures if f["kind"] == "launcher_exit"]
    assert (agent["line"], agent["exit_code"]) == (17, -15)
    assert agent["exception_type"] == (
        "torchrun's agent (received SIGTERM from outside the job, line 17: it sent SIGTERM to its "
        "4 running worker(s), pid(s) 51235, 51236, 51237, 51238 (line(s) 18-21))"
    )
    assert not any("no error" in m for m in heldout.said(ev))


@pytest.mark.parametrize(
    ("name", "ranks"),
    [
        ("report_bullets_two_ranks_below_threshold_read_as_one.txt", [7, 2]),
        ("report_bullets_numbered_list_eight_ranks_read_as_one.txt", [7, 2, 1, 5, 0, 4, 3, 6]),
        ("report_bullets_quoted_in_comment_eight_ranks_read_as_one.txt", [7, 2, 1, 5, 0, 4, 3, 6]),
    ],
)
def test_a_reports_bullets_of_its_ranks_failures_are_read_each(name: str, ranks: list[int]) -> None:
    ev = _load(name)
    failed = [f for f in ev.failures if f["kind"] == "npu_runtime_error"]
    assert [f["rank"] for f in failed] == ranks
    assert {f["code"] for f in failed} == {"507018"}


def test_the_failed_kernel_is_named_past_sixteen_cores_reports() -> None:
    ev = _load("plog_aivec_exception_sixteen_cores_kernel_name_past_48_lines_lost.log")
    (exc,) = [f for f in ev.failures if f["kind"] == "npu_device_exception"]
    assert exc["exception_type"].endswith(", in kernel AddCustom")


def test_hccn_tool_context_with_i_first_or_a_loops_variable_is_read() -> None:
    ev = _load("hccn_context_i_before_g_unreadable.txt")
    assert ev.files[0].status == "read"
    assert heldout.said(ev) == [
        "ascend_notes: hccn_tool -context: NPU 0's udma3 aeqc 0 context, 16 register word(s): raw "
        "registers, no health or fault reading in them"
    ]
    ev = _load("hccn_context_loop_variable_unreadable.txt")
    assert heldout.said(ev) == [
        "ascend_notes: hccn_tool -context: the udma3 aeqc 0 context of the NPU(s) a loop names "
        "($i), 2 dumps of 16 + 16 register word(s): raw registers, no health or fault reading in "
        "them"
    ]
    with pytest.raises(ParseError, match="-context"):
        ascend_notes.parse("nothing of hccn_tool\n")


def test_greps_erase_in_line_beside_its_colour_is_taken_off_too() -> None:
    ev = _load("lspci_s_grep_color_always_erase_codes_links_lost_ready.txt")
    narrow = [(f["line"], f["message"]) for f in ev.failures if f["kind"] == "pcie_link_narrow"]
    assert narrow == [(3, "01:00.0"), (9, "03:00.0")]
    assert heldout.rules_verdict(ev) == "READY WITH WARNINGS"


def test_the_error_pass_skips_only_lines_its_patterns_cannot_find() -> None:
    # first_error_line tests _may_say_error before its patterns: every line of the test data
    # that one of them finds passes it
    missed = []
    for path in sorted(DATA.glob("**/*")):
        if not path.is_file() or path.suffix in (".md", ".py") or path.stat().st_size > 2**18:
            continue
        for no, line, _ in numbered_lines(path.read_text(errors="replace")):
            if not logs._may_say_error(line) and (
                logs._ERROR_WORDS_RE.search(line)
                or logs._ERROR_LEVEL_RE.search(line)
                or logs._RAISES_RE.search(line)
            ):
                missed.append(f"{path.name}:{no}")
    assert not missed


def test_the_launch_note_is_read_before_the_error_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    # (the whole file's error pass is the slow part of a 25 MB log: it runs once the note read)
    order: list[str] = []
    note, error_pass = logs._elastic_launch_note, logs.first_error_line

    def noted(lines: list[tuple[int, str, int | None]]) -> logs.ParseWarning | None:
        order.append("note")
        return note(lines)

    def passed(lines: list[tuple[int, str, int | None]]) -> logs.LogEvent | None:
        order.append("error pass")
        return error_pass(lines)

    monkeypatch.setattr(logs, "_elastic_launch_note", noted)
    monkeypatch.setattr(logs, "first_error_line", passed)
    report = logs.parse((REVIEW / "torchrun_launch_configs_min_nodes_run_100k.log").read_text())
    assert order == ["note", "error pass"]
    assert report.unread[-1].message.endswith("(SUCCEEDED); no error")
