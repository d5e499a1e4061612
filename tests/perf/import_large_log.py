"""Benchmark: ``advisor import`` of one large failure log, to show its cost is linear in the size.

Writes logs of 1,000, 10,000 and 50,000 PyTorch watchdog events (the 50,000 one is about 25 MB)
built from the real lines of ``tests/data/evidence_real/watchdog_torch26_pg_guid.log`` and
``watchdog_torch27_pg_status.log`` (both torch forms of the time-out and progress lines, and the
flight-recorder notice on some), one rank per event: the worst case for joining each time-out with its
rank's progress line. For each it times, in a child process each, the evidence load alone
(``load_paths``: detection, parsing, the failure timeline) and the whole ``advisor import``
(facts, rules, report; with the size of its report). ``--base COMMIT`` times the same for a git
worktree of that commit (sizes up to ``--base-max``: the quadratic version needs minutes for
50,000), and prints the ratio of the two imports' CPU time for each size both timed.

    python tests/perf/import_large_log.py [--sizes 1000,10000,50000] [--base COMMIT] [--record]

``--record`` appends the figures to tests/perf/RESULTS.md. The machine is shared and noisy:
read the per-event ratios of CPU time (wall time, also printed, follows the load of others).
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]

# The real lines (tests/data/evidence_real/, sources in tests/data/SOURCES.md), with the rank,
# the sequence number and the clock as fields.
_TIMEOUT = (
    "[rank{r}]:[E626 06:{m:02d}:{s:02d}.903881913 ProcessGroupNCCL.cpp:616] [Rank {r}] Watchdog "
    "caught collective operation timeout: WorkNCCL(SeqNum={q}, OpType=ALLREDUCE, "
    "NumelIn=9801523, NumelOut=9801523, Timeout(ms)=600000) ran for 600020 milliseconds before "
    "timing out.\n"
)
_PROGRESS_26 = (
    "[rank{r}]:[E626 06:{m:02d}:{s:02d}.906457629 ProcessGroupNCCL.cpp:1785] [PG ID 0 PG GUID "
    "0(default_pg) Rank {r}] Exception (either an error or timeout) detected by watchdog at "
    "work: {q}, last enqueued NCCL work: {e}, last completed NCCL work: {c}.\n"
)
_PROGRESS_27 = (
    "[rank{r}]:[E709 17:{m:02d}:{s:02d}.162814866 ProcessGroupNCCL.cpp:2271] [PG ID 0 PG GUID "
    "0(default_pg) Rank {r}]  failure detected by watchdog at work sequence id: {q} PG status: "
    "last enqueued work: {e}, last completed work: {c}\n"
)
_NOTICE = (
    "[rank{r}]:[E709 17:{m:02d}:{s:02d}.162832798 ProcessGroupNCCL.cpp:670] Stack trace of the "
    "failed collective not found, potentially because FlightRecorder is disabled. You can enable "
    "it by setting TORCH_NCCL_TRACE_BUFFER_SIZE to a non-zero value.\n"
)


def make_log(events: int) -> str:
    """A log of ``events`` watchdog time-outs, one rank each, in both torch forms."""
    out = []
    for i in range(events):
        fields = {"r": i, "q": 808 + i % 7, "m": (i // 60) % 60, "s": i % 60}
        fields |= {"e": fields["q"] + 3, "c": fields["q"] - 1}
        out.append(_TIMEOUT.format(**fields))
        if i % 2:
            out.append(_PROGRESS_27.format(**fields))
            if i % 8 == 1:
                out.append(_NOTICE.format(**fields))
        else:
            out.append(_PROGRESS_26.format(**fields))
    return "".join(out)


_LOAD = (
    "import sys, time; from advisor.evidence.load import load_paths; "
    "w, c = time.perf_counter(), time.process_time(); f = load_paths([sys.argv[1]]); "
    "print(time.perf_counter() - w, time.process_time() - c, len(f.failures))"
)


def _env(tree: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(tree)}


def _time_load(tree: Path, log: Path) -> tuple[float, float, int]:
    """Wall and CPU seconds of ``load_paths`` on ``log``, and the events it read."""
    out = subprocess.run(
        [sys.executable, "-c", _LOAD, str(log)],
        env=_env(tree),
        cwd=tree,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return float(out[0]), float(out[1]), int(out[2])


def _time_import(tree: Path, log: Path, out_dir: Path) -> tuple[float, float]:
    """Wall and CPU seconds of ``advisor import log`` in a child process (which must write its
    report: a run that failed is no figure)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "advisor", "import", str(log), "--out", str(out_dir)],
        env=_env(tree),
        cwd=tree,
        capture_output=True,
        text=True,
        check=False,  # the verdict (NOT READY) is an exit status, not a failure of the import
    )
    wall_s = time.perf_counter() - start
    if not (out_dir / "report.html").is_file():
        raise SystemExit(f"advisor import {log} wrote no report in {out_dir}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu_s = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return wall_s, cpu_s


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,10000,50000")
    ap.add_argument("--base", help="a commit to time the same way (a git worktree of it)")
    ap.add_argument("--base-max", type=int, default=20000, help="largest size timed for --base")
    ap.add_argument("--record", action="store_true")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    lines = []
    import_cpu: dict[tuple[str, int], float] = {}
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        trees = {"this tree": REPO}
        if args.base:
            base = tmp / "base"
            subprocess.run(
                ["git", "-C", str(REPO), "worktree", "add", "--detach", str(base), args.base],
                check=True,
                capture_output=True,
            )
            trees[f"base {args.base}"] = base
        try:
            for label, tree in trees.items():
                for n in sizes:
                    if tree is not REPO and n > args.base_max:
                        continue
                    log = tmp / f"watchdog_{n}.log"
                    if not log.exists():
                        log.write_text(make_log(n), encoding="utf-8")
                    mb = log.stat().st_size / 1e6
                    load_s, load_cpu_s, found = _time_load(tree, log)
                    out_dir = tmp / f"out_{label[:4]}_{n}"
                    import_s, import_cpu_s = _time_import(tree, log, out_dir)
                    import_cpu[label, n] = import_cpu_s
                    report_mb = (out_dir / "report.html").stat().st_size / 1e6
                    line = (
                        f"- {label}: {n} events ({mb:.1f} MB): evidence load CPU "
                        f"{load_cpu_s:.2f} s ({load_cpu_s / n * 1e6:.0f} us/event; wall "
                        f"{load_s:.2f} s; {found} events read); advisor import CPU "
                        f"{import_cpu_s:.1f} s ({import_cpu_s / n * 1e3:.2f} ms/event; wall "
                        f"{import_s:.1f} s; report.html {report_mb:.1f} MB)"
                    )
                    print(line, flush=True)
                    lines.append(line)
            for n in sizes:
                if (f"base {args.base}", n) in import_cpu:
                    ratio = import_cpu[f"base {args.base}", n] / import_cpu["this tree", n]
                    line = f"- {n} events: advisor import CPU, base over this tree: {ratio:.1f}x"
                    print(line, flush=True)
                    lines.append(line)
        finally:
            if args.base:
                subprocess.run(
                    ["git", "-C", str(REPO), "worktree", "remove", "--force", str(tmp / "base")],
                    check=False,
                    capture_output=True,
                )
    if args.record:
        when = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
        command = "python tests/perf/import_large_log.py " + " ".join(sys.argv[1:])
        machine = (
            f"{platform.machine()}, {os.cpu_count()} CPUs, Python {platform.python_version()}, "
            f"load average {os.getloadavg()[0]:.1f} at the end"
        )
        with (REPO / "tests" / "perf" / "RESULTS.md").open("a", encoding="utf-8") as f:
            f.write(
                f"\n## advisor import of one large failure log: {when}\n"
                f"Command: `{command}`  \nMachine: {machine}\n" + "\n".join(lines) + "\n"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
