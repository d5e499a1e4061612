"""Words a regular expression cannot match without: a fast test before a slow search.

Python's regex engine tries a pattern of many alternatives at every position of a text (the
format signatures take about a second each on a 25 MB log, the failure-log one seven on a log it
does not match); ``word in text`` is a fast substring scan. For each alternative of a pattern,
one literal run it must contain is taken from the pattern's parsed form; a text that holds none
of them cannot match, and the search is skipped.
"""

from __future__ import annotations

import re
from typing import Any

try:  # the parser behind re.compile (Python 3.11+); without it nothing is skipped
    from re import _constants as _sre_constants  # type: ignore[attr-defined]
    from re import _parser as _sre_parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - a Python without them: every search runs
    _sre_parser = None
    _sre_constants = None

MIN_WORD_CHARS = 3
"""Shorter runs are too common to skip anything; an alternative without a longer one is ``None``."""


def required_words(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """Words of which every text ``pattern`` matches holds one, or None when no such set was
    found (a case-insensitive pattern, an alternative without a literal run): then the search
    must always run."""
    if _sre_parser is None or pattern.flags & re.IGNORECASE:
        return None
    try:
        parsed = _sre_parser.parse(pattern.pattern, pattern.flags)
    except Exception:  # pragma: no cover - a parser of another shape: be safe, skip nothing
        return None
    return _sequence_words(list(parsed))


def may_match(words: tuple[str, ...] | None, text: str) -> bool:
    """False only when ``text`` holds none of ``words`` (from :func:`required_words`)."""
    return words is None or any(word in text for word in words)


def _sequence_words(items: list[tuple[Any, Any]]) -> tuple[str, ...] | None:
    """The most selective word set of a sequence: a literal run of it, or the words of a group,
    a branch or a repeat (at least once) inside it; the longer its shortest word, the better."""
    c = _sre_constants
    candidates: list[tuple[str, ...]] = []
    run: list[str] = []

    def flush() -> None:
        if len(run) >= MIN_WORD_CHARS:
            candidates.append(("".join(run),))
        run.clear()

    for op, av in items:
        if op is c.LITERAL:
            run.append(chr(av))
            continue
        flush()
        words: tuple[str, ...] | None = None
        if op is c.SUBPATTERN:
            if not av[1] & re.IGNORECASE:  # a (?i:...) group's letters match either case
                words = _sequence_words(list(av[-1]))
        elif op is c.BRANCH:
            words = _branch_words(av[1])
        elif op in (c.MAX_REPEAT, c.MIN_REPEAT, c.POSSESSIVE_REPEAT) and av[0] >= 1:
            words = _sequence_words(list(av[2]))
        elif op is c.ATOMIC_GROUP:
            words = _sequence_words(list(av))
        if words:
            candidates.append(words)
    flush()
    if not candidates:
        return None
    return max(candidates, key=lambda words: min(len(w) for w in words))


def _branch_words(alternatives: list[Any]) -> tuple[str, ...] | None:
    """Every alternative's words together; None when one alternative has none."""
    out: list[str] = []
    for alternative in alternatives:
        words = _sequence_words(list(alternative))
        if words is None:
            return None
        out.extend(w for w in words if w not in out)
    return tuple(out)


def split_alternation(pattern: str) -> list[str]:
    """The top-level alternatives of ``pattern`` (its ``|`` outside groups, classes and
    escapes), as pattern texts; the pattern whole where it has one."""
    parts: list[str] = []
    depth = 0
    start = 0
    i = 0
    in_class = False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            i += 2
            continue
        if in_class:
            in_class = ch != "]"
        elif ch == "[":
            in_class = True
            if pattern[i + 1 : i + 2] == "]" or pattern[i + 1 : i + 3] == "^]":
                i += 2 if pattern[i + 1] == "]" else 3  # a "]" first is a member, not the end
                continue
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        elif ch == "|" and depth == 0:
            parts.append(pattern[start:i])
            start = i + 1
        i += 1
    parts.append(pattern[start:])
    return parts


_BLANKS_ON_ONE_LINE = r"[^\S\n]*"


def line_local_blanks(pattern: str, *, multiline: bool) -> str:
    r"""``pattern`` with each greedy ``\s*`` right after a ``\n``, or after a line's start (``^``
    or ``^(?:`` where ``multiline``), read as blanks on that one line: ``[^\S\n]*``.

    Whether it matches somewhere in a text is unchanged: a run that crossed newlines to reach
    its next token has a last newline, and the line after it holds the rest of the match. What
    changes is the cost on a run of blank lines: each line start no longer scans the whole run
    (and backs off through it), which is quadratic in the run's length."""
    out: list[str] = []
    i = 0
    in_class = False
    line_start = False  # (the last token read was "^", "^(?:" or "\n")
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            escape = pattern[i : i + 2]
            quantifier = pattern[i + 2 : i + 4]
            if (
                not in_class
                and line_start
                and escape == r"\s"
                and quantifier[:1] == "*"
                and quantifier[1:2] not in ("?", "+")
            ):
                out.append(_BLANKS_ON_ONE_LINE)
                i += 3
                line_start = False
                continue
            out.append(escape)
            i += 2
            line_start = not in_class and escape == r"\n"
            continue
        out.append(ch)
        i += 1
        if in_class:
            in_class = ch != "]"
            continue
        if ch == "[":
            in_class = True
            line_start = False
            if pattern[i : i + 1] == "]" or pattern[i : i + 2] == "^]":
                # (a "]" first is a member, not the class's end)
                take = 1 if pattern[i] == "]" else 2
                out.append(pattern[i : i + take])
                i += take
            continue
        if ch == "^" and multiline:
            line_start = True
        elif not (line_start and ch == "(" and pattern.startswith("?:", i)):
            line_start = False
        else:
            out.append("?:")
            i += 2
    return "".join(out)


class BranchSearch:
    """A pattern of many alternatives, searched one alternative at a time and each only on a
    text that holds one of its own words: on a text that holds few of them (a long log of
    another kind) the engine runs a few alternatives, not all of them at every position. It
    answers whether the pattern matches, as ``pattern.search(text)`` would."""

    def __init__(self, pattern: re.Pattern[str]) -> None:
        self.pattern = pattern
        self.words = required_words(pattern)
        multiline = bool(pattern.flags & re.M)
        branches = [
            re.compile(line_local_blanks(part, multiline=multiline), pattern.flags)
            for part in split_alternation(pattern.pattern)
        ]
        self.branches = [(required_words(branch), branch) for branch in branches]

    def found(self, text: str) -> bool:
        if not may_match(self.words, text):
            return False
        return any(may_match(words, text) and b.search(text) for words, b in self.branches)
