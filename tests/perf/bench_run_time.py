"""Benchmark: a readiness check's wall time, and the commands that start no job, against a base.

Runs ``advisor run`` (quick profile) on this host's default cluster and on ``+cluster=2x8
emulate=true``, for this checkout and for a base commit (a git worktree of it), alternately
(this, base, this, base ...), ``--repeats`` times each; and the CPU time of ``advisor rules
list``, ``advisor run --help`` and a usage error (``advisor run +cluster=2x9``) for both. The
machine is shared and noisy: compare the medians of the same run, as ratios.

    python tests/perf/bench_run_time.py --base COMMIT [--repeats 3] [--record]

Both trees run with this interpreter (the same torch), from their own source (PYTHONPATH).
``--record`` appends the figures to tests/perf/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

RUNS = {
    "local quick": [],
    "emulated 2x8 quick": ["+cluster=2x8", "emulate=true", "stages.smoke.deadline_s=900"],
}
"""The readiness checks timed (wall clock, from start to exit)."""
COMMANDS = {
    "advisor rules list": ["rules", "list"],
    "advisor run --help": ["run", "--help"],
    "advisor run +cluster=2x9 (usage error)": ["run", "+cluster=2x9"],
}
"""The commands that start no job (CPU time of the process)."""


def advisor(tree: Path, args: list[str], cwd: Path) -> tuple[float, float, int]:
    """(wall s, CPU s, exit code) of ``python -m advisor ARGS`` from ``tree``'s source."""
    env = {**os.environ, "PYTHONPATH": str(tree)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    proc = subprocess.run(
        [sys.executable, "-m", "advisor", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.returncode


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="commit to compare with")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--record", action="store_true", help="append to tests/perf/RESULTS.md")
    ns = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="advisor-run-time-"))
    base = work / "base"
    subprocess.run(
        ["git", "-C", str(REPO), "worktree", "add", "--detach", str(base), ns.base],
        check=True,
        capture_output=True,
    )
    trees = {"this": REPO, "base": base}
    head = subprocess.run(
        ["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    walls: dict[tuple[str, str], list[float]] = {}
    cpus: dict[tuple[str, str], list[float]] = {}
    failures: list[str] = []
    try:
        for i in range(ns.repeats):
            for name, args in RUNS.items():
                for label, tree in trees.items():  # alternately: the host's load hits both
                    run_dir = work / f"{label}-{name.replace(' ', '-')}-{i}"
                    wall, _, code = advisor(tree, ["run", *args, f"hydra.run.dir={run_dir}"], work)
                    walls.setdefault((name, label), []).append(wall)
                    if code != 0:
                        failures.append(f"{label} {name} run {i}: exit {code}")
                    print(f"{name:>22} {label:>4} #{i}: {wall:6.1f} s (exit {code})", flush=True)
            for name, args in COMMANDS.items():
                for label, tree in trees.items():
                    _, cpu, _ = advisor(tree, args, work)
                    cpus.setdefault((name, label), []).append(cpu)
    finally:
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "remove", "--force", str(base)], check=False
        )
    lines = []
    for name in RUNS:
        this, old = (statistics.median(walls[(name, k)]) for k in ("this", "base"))
        lines.append(
            f"- {name}: median wall {this:.1f} s (this) vs {old:.1f} s (base {ns.base}): "
            f"{old / this:.2f}x faster; runs this {_fmt(walls[(name, 'this')])}, "
            f"base {_fmt(walls[(name, 'base')])}"
        )
    for name in COMMANDS:
        this, old = (statistics.median(cpus[(name, k)]) for k in ("this", "base"))
        lines.append(f"- {name}: median CPU {this:.2f} s (this) vs {old:.2f} s (base)")
    if failures:
        lines.append(f"- failures: {'; '.join(failures)}")
    load = os.getloadavg()[0]
    text = "\n".join(lines)
    print(text)
    if ns.record:
        now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        with open(REPO / "tests" / "perf" / "RESULTS.md", "a", encoding="utf-8") as f:
            f.write(
                f"\n## run time (issue 13): {now}\n"
                f"Command: `python tests/perf/bench_run_time.py --base {ns.base} "
                f"--repeats {ns.repeats} --record` (this = {head} and its working tree)  \n"
                f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python "
                f"{platform.python_version()}; load average {load:.1f} at the end (shared)\n"
                f"{text}\n"
            )
    return 1 if failures else 0


def _fmt(values: list[float]) -> str:
    return ", ".join(f"{v:.1f}" for v in values)


if __name__ == "__main__":
    raise SystemExit(main())
