"""Every module-level pattern of the parsers and the evidence reader runs in linear time.

A pattern such as ``^\\s*X`` under MULTILINE, ``\\s+status:`` or ``(\\d+)\\s*/`` is tried at every
position of a long run of blanks, newlines or digits and re-reads the rest of the run each time:
time quadratic in the run's length (seconds on 20,000 characters, hours on a log's 1 MB line).
Each pattern's ``search`` and ``finditer`` are timed on long runs of one kind of character (and
on its own leading literal repeated) at ``n`` and ``4 n`` characters: linear time grows about 4x,
quadratic 16x. A pattern fast at ``n`` is not timed again (a quadratic one is not fast there).
"""

from __future__ import annotations

import importlib
import re
import time
from pathlib import Path
from typing import Any

import pytest

from advisor.evidence.words import required_words

try:  # the parser behind re.compile (Python 3.11+), for a pattern's leading literal
    from re import _constants as _sre_constants  # type: ignore[attr-defined]
    from re import _parser as _sre_parser  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - a Python without them: no prefix runs
    _sre_parser = None
    _sre_constants = None

_ROOT = Path(__file__).resolve().parent.parent / "advisor"
_MODULES = [
    f"advisor.{package}" + ("" if path.stem == "__init__" else f".{path.stem}")
    for package in ("parsers", "evidence")
    for path in sorted((_ROOT / package).glob("*.py"))
]

_N = 2_000
"""The shorter run: a quadratic pattern reads 4 million characters on it (ten ms or more)."""
_FAST_S = 0.002
"""Under this at ``n``, a pattern is linear enough (a quadratic one takes several times it)."""
_MAX_RATIO = 9.0
"""Linear time grows ~4x from ``n`` to ``4 n``, quadratic ~16x; room for a busy host between."""
_CEILING_S = 0.5
"""The most one pattern may take on a ``4 n`` run."""

_RUNS = {
    "blanks": " ",
    "newlines": "\n",
    "blank lines": " \n",
    "words": "a ",
    "one word": "a",
    "digits": "1",
    "equals": "=",
    "word colons": "a:",
    "dots": "1.",
    "slashes": "a/",
}


def _patterns(module: str) -> dict[tuple[str, int], tuple[str, re.Pattern[str]]]:
    """Compiled patterns among ``module``'s globals, in tuples, lists, sets and dicts too."""
    found: dict[tuple[str, int], tuple[str, re.Pattern[str]]] = {}
    stack: list[tuple[str, Any]] = list(vars(importlib.import_module(module)).items())
    while stack:
        name, value = stack.pop()
        if isinstance(value, re.Pattern):
            if isinstance(value.pattern, str):
                found.setdefault((value.pattern, value.flags), (name, value))
        elif isinstance(value, (tuple, list, set, frozenset)):
            stack.extend((f"{name}[{i}]", item) for i, item in enumerate(value))
        elif isinstance(value, dict):
            stack.extend((f"{name}[{key!r}]", item) for key, item in value.items())
            stack.extend((f"{name} key", key) for key in value if isinstance(key, re.Pattern))
    return found


_SOURCES = "\n".join(
    line
    for path in sorted(_ROOT.rglob("*.py"))
    for line in path.read_text().splitlines()
    if not line.lstrip().startswith("#")
)


def _detection() -> set[int]:
    """Format signatures: detection runs their branches with line-local blanks
    (``load.BranchSearch``, timed in tests/test_evidence_words.py), not these patterns whole."""
    from advisor.evidence import load

    return {id(pattern) for pattern in load._SIGNATURES.values()}


def _anchored_only(name: str) -> bool:
    """A pattern every use of which in advisor/ is ``.match`` or ``.fullmatch`` (or its text
    put inside another pattern, scanned on its own): it is tried at one position of a line, so
    a run it re-reads from each position never arises."""
    if not name.isidentifier():
        return False
    uses = []
    at = _SOURCES.find(name)
    while at >= 0:
        before, after = _SOURCES[at - 1 : at], _SOURCES[at + len(name) : at + len(name) + 16]
        if not (before.isidentifier() or before.isdigit() or after[:1].isidentifier()):
            if not after.startswith((" = re.compile", ": re.Pattern")):
                uses.append(re.match(r"(?:\.\w+\(?)?", after).group())  # type: ignore[union-attr]
        at = _SOURCES.find(name, at + 1)
    return bool(uses) and all(use in (".match(", ".fullmatch(", ".pattern") for use in uses)


def _leading_literal(pattern: re.Pattern[str]) -> str:
    """The literal characters a match starts with, after anchors and optional blanks."""
    if _sre_parser is None:  # pragma: no cover
        return ""
    c = _sre_constants
    literal: list[str] = []
    for op, av in _sre_parser.parse(pattern.pattern, pattern.flags):
        if op is c.LITERAL:
            literal.append(chr(av))
        elif literal:
            break
        elif op is c.AT or (op in (c.MAX_REPEAT, c.MIN_REPEAT) and av[0] == 0):
            continue
        else:
            break
    return "".join(literal)


def _units(pattern: re.Pattern[str]) -> dict[str, str]:
    units = dict(_RUNS)
    if word := _leading_literal(pattern) or (required_words(pattern) or ("",))[0]:
        units[f"{word!r} on lines"] = "\n" + word
        units[f"{word!r} repeated"] = word
    return units


def _time(pattern: re.Pattern[str], text: str) -> float:
    started = time.process_time()
    pattern.search(text)
    for _ in pattern.finditer(text):
        pass
    return time.process_time() - started


def _best_of_3(pattern: re.Pattern[str], text: str) -> float:
    return min(_time(pattern, text) for _ in range(3))


def _slow(took_n: float, took_4n: float) -> bool:
    return took_4n > _CEILING_S or took_4n / max(took_n, _FAST_S / 4) > _MAX_RATIO


_REPEATS_LEFT = frozenset(
    {
        "_NVSHMEM_RE", "_GDR_HCA_RE", "_NVRM_VERSION_RE", "HUNG_TASK_RE", "_CPER_LAYER_RE",
        "_REPORTING_DEVICE_RE", "_TASK_FAIL_RE", "_AICPU_GETNEXT_RE", "_DEEPEP_TIMEOUT_RE",
        "_CONNECT_RETRY_RE", "_GLOO_ERROR_RE", "_FM_FAILED_RE", "_DS_UNREACHABLE_RE", "_DS_EXIT_RE",
        "_NOTIFY_WAIT_TIMEOUT_RE", "_SRC_DEST_RE", "_TITAN_START_RE", "_TITAN_DONE_RE",
        "_SGLANG_TP_SIZE_RE", "_HCOM_INIT_RE", "_ESTABLISH_RE", "_GROUP_RE",
        "_VLLM_CORE_PROCS_RE", "_RAY_OOM_RE", "_SERVER_RETRY_RE",
    }
)  # fmt: skip
"""logs.py patterns "A ... B" read from one line at a time: on a line that repeats A thousands of
times without B each A re-reads the rest of the line (time quadratic in A's count; the last three
also across lines: a class such as ``[^}]*`` does not stop at a line end); left as they are, their
runs of blanks, lines, digits and words are checked."""


@pytest.mark.parametrize("module", _MODULES)
def test_every_module_pattern_is_linear_on_a_long_run(module: str) -> None:
    slow = []
    detection = _detection()
    for name, pattern in _patterns(module).values():
        if id(pattern) in detection or _anchored_only(name):
            continue
        for run, unit in _units(pattern).items():
            if run.startswith("'") and name in _REPEATS_LEFT and module.endswith(".logs"):
                continue
            short = unit * (_N // len(unit))
            if (took_n := _time(pattern, short)) < _FAST_S:
                continue
            # (one already slow on n is not run on 4 n: a cubic one would take minutes there)
            took = took_n, _time(pattern, short * 4) if took_n < _CEILING_S else took_n
            if _slow(*took) and took_n < _CEILING_S and max(took) < 2 * _CEILING_S:  # retime
                took = _best_of_3(pattern, short), _best_of_3(pattern, short * 4)
            if _slow(*took):
                slow.append((name, run, round(took[0], 3), round(took[1], 3)))
    assert not slow, f"{module}: {slow}"


def test_the_scan_finds_patterns_in_tuples_dicts_and_prefixes() -> None:
    assert len(_patterns("advisor.parsers.logs")) > 500
    assert any(
        " key" in name or "[" in name for name, _ in _patterns("advisor.evidence.load").values()
    )
    assert _leading_literal(re.compile(r"^\s*Speed:\s*(\d+)", re.M)) == "Speed:"
    assert _leading_literal(re.compile(r"(\d+)x")) == ""


def test_the_grep_d_mlxconfig_query_signature_is_linear_on_one_long_line() -> None:
    # (review 48: its command branch tried each "mlxconfig" at each later " q", each try read to
    # the line's end: 80 s on 100 KB of one JSON line of query commands; the signature runs on
    # every imported file)
    from advisor.parsers import rdma

    signature = re.compile(rdma.MLXCONFIG_SIGNATURE, re.M)
    for unit in ("mlxconfig q ", "mlxconfig ", " q", '{"cmd": "mlxconfig -d mlx5_0 q"}, '):
        line = ("mlxconfig" if unit == " q" else "") + unit * (_N * 5 // len(unit))
        for pattern in (signature, rdma._MLXCONFIG_QUERY_COMMAND_RE):
            took = _best_of_3(pattern, line), _best_of_3(pattern, line * 4)
            assert not _slow(*took), (pattern.pattern[:40], unit, took)
    assert signature.search(
        "# mlxconfig -d 4b:00.0 q | grep ROCE\n   ROCE_CONTROL    ROCE_ENABLE(2)"
    )
