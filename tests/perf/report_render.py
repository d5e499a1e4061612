"""Benchmark: render report.html from the emulated 4x8 (and 2x8) facts fixtures.

Target (issue 8): a few seconds at most, and under 2 MB so the report can be mailed. Prints wall
and CPU seconds (CPU time is the fairer figure on a shared, loaded machine), the size, and the
load average, and appends a line per fixture to tests/perf/RESULTS.md with --record.

    PYTHONPATH=. python tests/perf/report_render.py [--repeat 3] [--record]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from tempfile import TemporaryDirectory

HERE = Path(__file__).resolve().parent
DATA = HERE.parent / "data"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--record", action="store_true", help="append to tests/perf/RESULTS.md")
    ns = parser.parse_args()
    started = time.process_time()
    from advisor.facts import Facts
    from advisor.report import render
    from advisor.verdict import verdict

    import_cpu_s = time.process_time() - started
    lines = []
    with TemporaryDirectory() as tmp:
        for name in ("2x8", "4x8"):
            facts = Facts.read(DATA / f"facts_{name}.json")
            out = Path(tmp) / f"report-{name}.html"
            walls, cpus = [], []
            for _ in range(ns.repeat):
                w, c = time.perf_counter(), time.process_time()
                render.write_report(facts, verdict(facts), out)
                walls.append(time.perf_counter() - w)
                cpus.append(time.process_time() - c)
            size = out.stat().st_size
            load = os.getloadavg()[0]
            line = (
                f"emulated {name} facts fixture: wall median {statistics.median(walls):.2f} s, "
                f"CPU median {statistics.median(cpus):.2f} s (of {ns.repeat}), "
                f"size {size / 2**20:.2f} MiB, load average {load:.1f}"
            )
            print(line)
            lines.append(line)
            if size >= 2 * 2**20:
                print(f"FAIL: {name} report is {size} bytes, over 2 MB", file=sys.stderr)
                return 1
    print(f"import of the report modules (matplotlib, jinja2): CPU {import_cpu_s:.2f} s")
    if ns.record:
        stamp = datetime.now(tz=timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        machine = f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}"
        with (HERE / "RESULTS.md").open("a", encoding="utf-8") as f:
            f.write(
                f"\n## report rendering — {stamp}\n"
                f"Command: `PYTHONPATH=. python tests/perf/report_render.py --repeat {ns.repeat} "
                f"--record`  \nMachine: {machine} (shared with other jobs)\n"
                + "".join(f"- {line}\n" for line in lines)
                + f"- import of the report modules: CPU {import_cpu_s:.2f} s\n"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
