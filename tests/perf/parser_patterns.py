"""Time every module-level pattern of the parsers and the evidence reader (advisor/parsers/*.py,
advisor/evidence/*.py, in tuples and dicts too; not the format signatures, which detection runs
per branch: tests/perf/signature_branches.py) on long runs of one kind of character: a pattern
that re-reads a run from each of its positions costs time quadratic (or worse) in its length.
Each pattern's ``search`` and a full ``finditer`` run on each run at ``--chars`` characters; one
that takes over a second on a quarter of that is counted at that and not run longer (a cubic
one would take minutes). Prints the total CPU time and the slowest patterns; run it on two trees
side by side (PYTHONPATH=<tree>) to compare. tests/test_parser_regex_linear.py is the check.

    PYTHONPATH=. python tests/perf/parser_patterns.py [--chars 8000]
"""

from __future__ import annotations

import argparse
import importlib
import re
import time
from pathlib import Path
from typing import Any

import advisor

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


def _patterns() -> dict[tuple[str, int], tuple[str, re.Pattern[str]]]:
    root = Path(advisor.__file__).resolve().parent
    found: dict[tuple[str, int], tuple[str, re.Pattern[str]]] = {}
    for package in ("parsers", "evidence"):
        for path in sorted((root / package).glob("*.py")):
            module = f"advisor.{package}" + ("" if path.stem == "__init__" else f".{path.stem}")
            stack: list[tuple[str, Any]] = [
                (f"{module}.{k}", v) for k, v in vars(importlib.import_module(module)).items()
            ]
            while stack:
                name, value = stack.pop()
                if name.endswith("._SIGNATURES"):
                    continue  # (detection runs these per branch: tests/perf/signature_branches.py)
                if isinstance(value, re.Pattern) and isinstance(value.pattern, str):
                    found.setdefault((value.pattern, value.flags), (name, value))
                elif isinstance(value, (tuple, list, set, frozenset)):
                    stack.extend((f"{name}[{i}]", v) for i, v in enumerate(value))
                elif isinstance(value, dict):
                    stack.extend((f"{name}[{k!r}]", v) for k, v in value.items())
    return found


def _time_s(pattern: re.Pattern[str], text: str) -> float:
    started = time.process_time()
    pattern.search(text)
    for _ in pattern.finditer(text):
        pass
    return time.process_time() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=8_000, help="length of each run")
    n = parser.parse_args().chars
    patterns = _patterns()
    total_s = 0.0
    capped = 0
    slow: list[tuple[float, str, str]] = []
    for name, pattern in patterns.values():
        for run, unit in _RUNS.items():
            quarter = unit * (n // 4 // len(unit))
            if (took_s := _time_s(pattern, quarter)) > 1.0:
                capped += 1  # (not run on the full length: counted at its quarter's time)
            else:
                took_s = _time_s(pattern, unit * (n // len(unit)))
            total_s += took_s
            if took_s > 0.05:
                slow.append((took_s, name, run))
    print(
        f"{len(patterns)} patterns x {len(_RUNS)} runs of {n} characters: {total_s:.1f} s CPU"
        + (f" ({capped} over 1 s on a quarter, counted there)" if capped else "")
    )
    for took_s, name, run in sorted(slow, reverse=True)[:8]:
        print(f"  {took_s:7.2f} s  {run:<12} {name}")


if __name__ == "__main__":
    main()
