"""The words test before each format signature: it must never skip a signature that matches.

``words.required_words`` takes from a pattern's parsed form words one of which every match holds;
``detect`` runs a signature only on a text holding one. Checked on patterns whose words are known,
and on every sample file in tests/data against the signatures run with no skipping at all.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from advisor.evidence import load
from advisor.evidence.words import line_local_blanks, may_match, required_words
from advisor.parsers import logs
from tests.conftest import DATA


def test_words_are_one_literal_run_of_each_alternative() -> None:
    assert required_words(re.compile(r"^\s*ipaddr\s*:|tls switch\[\d+\]")) == (
        "ipaddr",
        "tls switch[",
    )
    # a group's branch: any of its alternatives will do; the longest run of a sequence is taken
    assert required_words(re.compile(r"Work[NH]CCL\(SeqNum=\d+")) == ("CCL(SeqNum=",)
    assert required_words(re.compile(r"(?:CUDA|NPU) out of memory")) == (" out of memory",)
    assert required_words(re.compile(r"(?:abcd|xyz)\d+")) == ("abcd", "xyz")
    # a repeat that may be absent is not required; one that must occur is
    assert required_words(re.compile(r"(?:abcdef)?ghi")) == ("ghi",)
    assert required_words(re.compile(r"(?:abcdef)+gh")) == ("abcdef",)


def test_no_words_where_a_match_need_not_hold_one() -> None:
    # an alternative without a literal run: every text may match
    assert required_words(re.compile(r"abcdef|\d+x")) is None
    # letters matched in either case are not a substring test
    assert required_words(re.compile(r"abcdef", re.I)) is None
    assert required_words(re.compile(r"(?i:abcdef)\d")) is None
    assert may_match(None, "") and not may_match(("abc",), "ab c")


def test_every_signature_but_the_npu_smi_one_has_words() -> None:
    # the npu-smi fragment signature is cells and bars only: it always runs (a fast one)
    assert [name for name, words in load._SIGNATURE_WORDS.items() if words is None] == [
        "npu_smi_info"
    ]
    assert load._NCCL_DEBUG_WORDS is not None


_CANN_CODE_WITH_BOUNDARY = re.compile(r"\bE[A-Z0-9]\d{4}\b(?:[:)]|\[PID: \d)")


def _detect_without_words(text: str) -> list[str]:
    return [
        name
        for name, sig in load._SIGNATURES.items()
        if sig.search(text)
        or (name == "log" and _CANN_CODE_WITH_BOUNDARY.search(text))
        or (name == "log" and logs.GLOG_FATAL_RE.search(text))
        or (name == "rank_table" and load.embedded_rank_table(text) is not None)
    ]


_CHUNKS = 8
"""The sample files are checked in eight parts (every eighth file): the whole runs every signature
without its words on 16 MB, minutes on a busy 2-core host, which one test's time-out should not
have to hold."""


def _samples() -> list[Path]:
    return [
        path
        for path in sorted(DATA.rglob("*"))
        if path.is_file() and path.stat().st_size <= load.MAX_FILE_BYTES
    ]


@pytest.mark.parametrize("part", range(_CHUNKS))
def test_detection_with_words_equals_detection_without_them_on_every_sample(part: int) -> None:
    checked = 0
    for path in _samples()[part::_CHUNKS]:
        text = path.read_bytes().decode("utf-8", "replace")
        assert load.detect(text) == _detect_without_words(text), path
        debug = bool(load._NCCL_DEBUG_RE.search(text))
        assert (load.may_match(load._NCCL_DEBUG_WORDS, text) and debug) == debug, path
        checked += 1
    assert checked > 200 // _CHUNKS


_LONG_RUNS = {
    "blanks": " " * 20_000,
    "one word": "a" * 20_000,
    "blank lines": "\n" * 20_000,
    "blank lines with blanks": " \t\n" * 6_667,
    "colons": "a:" * 10_000,
    "dots": "1." * 10_000,
    "slashes": "a/" * 10_000,
    "bars": " | " * 6_667,
    "braces": "{ " * 10_000,
    # a grep'd mlxconfig query's command: each tool name tried at each later " q" once read to the
    # line's end (review 48: minutes on one 400 KB line of JSON'd query commands)
    "query words": "mlxconfig" + " q" * 10_000,
    "query commands": '{"cmd": "mlxconfig -d mlx5_0 q", "rc": 0}, ' * 500,
}


@pytest.mark.parametrize("run", sorted(_LONG_RUNS))
def test_every_signature_branch_is_linear_on_a_long_run(run: str) -> None:
    # (detection runs each branch whose words the text holds: a branch quadratic in a run of
    # blank lines or one long word costs seconds on a 20,000-character run, minutes on a log's;
    # the linear ones take under 0.1 s on a quiet host, up to 0.7 s on a 2-core host running
    # ten other jobs, hence the 1.5 s line: the quadratic ones the scan found took 12-37 s)
    text = _LONG_RUNS[run]
    slow = []
    for name, search in load._SIGNATURE_SEARCH.items():
        for _, branch in search.branches:
            started = time.perf_counter()
            branch.search(text)
            if (took := time.perf_counter() - started) > 1.5:
                slow.append((name, branch.pattern[:80], round(took, 2)))
    assert not slow


def test_blanks_that_follow_a_line_start_stay_on_that_line() -> None:
    assert line_local_blanks(r"^\s*abc|\n\s*x", multiline=True) == (r"^[^\S\n]*abc|\n[^\S\n]*x")
    assert line_local_blanks(r"^(?:\s*rc=\d+\s+)?F", multiline=True) == r"^(?:[^\S\n]*rc=\d+\s+)?F"
    # (not in a class, not lazy, not an escaped "\n", not "+", not "^" without MULTILINE)
    for kept in (r"[^\s*]x", r"^\s*?x", r"\\n\s*x", r"^[\n\s*]", r"^\s+x", r"x\s*$"):
        assert line_local_blanks(kept, multiline=True) == kept
    assert line_local_blanks(r"^\s*abc", multiline=False) == r"^\s*abc"
    # whether a pattern matches is the same, on blank lines before its line too
    for text in ("\n\n  abc", "x\n \n\t\n  rc=1  F", " \n\n\n"):
        for source in (r"^\s*abc", r"^(?:\s*rc=\d+\s+)?F", r"\n\s*\n"):
            rewritten = line_local_blanks(source, multiline=True)
            assert bool(re.search(source, text, re.M)) == bool(re.search(rewritten, text, re.M))
