"""Isolation drills with the fault on each of the 4 lab nodes in turn: a degraded link (a tenth of
the rate), every port blocked, a link cut to the next node. Prints and appends to RESULTS.md:
per drill, whether the node or link was named, jobs used (budget 2·log2(4) + 2 = 6), wall time.

    sudo .venv/bin/python tests/perf/isolate_drills.py [--parallel 3] [--no-record]
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from advisor.isolate.search import job_budget  # noqa: E402
from tests.isolate_drills import FAULTS, NODES, Drill, run_drills  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parallel", type=int, default=3)
    parser.add_argument("--no-record", action="store_true")
    ns = parser.parse_args()
    drills = [Drill(fault=f, node=n) for f in FAULTS for n in range(NODES)]
    with tempfile.TemporaryDirectory() as tmp:
        results = run_drills(drills, Path(tmp), parallel=ns.parallel)
    rows = [
        f"| {r.drill.fault} | {r.drill.node} | {r.isolate.get('conclusion')} "
        f"{' – '.join(r.isolate.get('culprit_nodes', []))} | {'yes' if r.named else 'NO'} | "
        f"{r.jobs} | {r.wall_s:.0f} |"
        for r in results
    ]
    named = sum(r.named for r in results)
    within = sum(r.within_budget for r in results)
    worst = max(r.jobs for r in results)
    lines = [
        f"## Isolation drills, 4 lab nodes ({datetime.date.today().isoformat()})",
        "",
        f"Command: `{' '.join(['python', *sys.argv])}` (root). Machine: {platform.machine()}, "
        f"{os.cpu_count()} CPUs, Python {platform.python_version()}, shared with other jobs; "
        f"{ns.parallel} drills side by side, load average {os.getloadavg()[0]:.1f} at the end.",
        "",
        "| fault | node | conclusion | named | jobs | wall (s) |",
        "|---|---|---|---|---|---|",
        *rows,
        "",
        f"Named {named}/{len(results)}; within the budget of {job_budget(NODES)} jobs: "
        f"{within}/{len(results)} (most jobs in a drill: {worst}).",
        "",
    ]
    text = "\n".join(lines)
    print(text)
    if not ns.no_record:
        with open(REPO / "tests" / "perf" / "RESULTS.md", "a", encoding="utf-8") as f:
            f.write("\n" + text)
    return 0 if named == len(results) and within == len(results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
