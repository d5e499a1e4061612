"""Time every detection branch (each alternative of each format signature, as detection runs it)
on long runs of one kind of character: a branch that backtracks over a run costs time quadratic
in its length. Prints the total CPU time and the slowest branches; run it on two trees side by
side (PYTHONPATH=<tree>) to compare.

    PYTHONPATH=. python tests/perf/signature_branches.py [--chars 20000]
"""

from __future__ import annotations

import argparse
import time

from advisor.evidence import load


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chars", type=int, default=20_000, help="length of each run")
    n = parser.parse_args().chars
    runs = {
        "blanks": " " * n,
        "one word": "a" * n,
        "blank lines": "\n" * n,
        "blank lines with blanks": " \t\n" * (n // 3),
        "colons": "a:" * (n // 2),
        "dots": "1." * (n // 2),
        "slashes": "a/" * (n // 2),
        "bars": " | " * (n // 3),
        "braces": "{ " * (n // 2),
    }
    total_s = 0.0
    slow: list[tuple[float, str, str, str]] = []
    for name, search in load._SIGNATURE_SEARCH.items():
        for _, branch in search.branches:
            for run, text in runs.items():
                started = time.process_time()
                branch.search(text)
                took_s = time.process_time() - started
                total_s += took_s
                if took_s > 0.05:
                    slow.append((took_s, name, run, branch.pattern[:70]))
    branches = sum(len(s.branches) for s in load._SIGNATURE_SEARCH.values())
    print(f"{branches} branches x {len(runs)} runs of {n} characters: {total_s:.1f} s CPU")
    for took_s, name, run, pattern in sorted(slow, reverse=True)[:8]:
        print(f"  {took_s:6.2f} s  {name:>14}  {run:<24} {pattern}")


if __name__ == "__main__":
    main()
