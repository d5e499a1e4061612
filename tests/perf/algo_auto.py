"""Benchmark: ``algo:auto`` (per-bucket algorithm from this run's bench bands) against default
DDP and against the best single algorithm, on a workload whose buckets span small and large sizes.

One run measures the all_reduce bands (bench: native and the project's algorithms, 16 KiB to
32 MiB) and sweeps the gradient communication of the ``comm_heavy`` model with 1 MB buckets (its
buckets run from a few KB to its 33 MB embedding gradients): fp32 (default DDP), ``algo:auto``
and each single algorithm. Then ``--repeats`` more sweeps of the same settings in the same run
directory (algo:auto reads the same bands) re-measure them alternately; medians are compared.

    python tests/perf/algo_auto.py --out DIR [--repeats 2] [--record] -- OVERRIDES...

The overrides choose the cluster (the lab: ``advisor lab up --nodes 2 --rate-mbit 250``, then
the 2x4 overrides it prints). ``--record`` appends the figures to tests/perf/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.conftest import only_stages  # noqa: E402

SINGLE = ["algo:hierarchical", "algo:ring", "algo:tree"]
COMMS = ["fp32", "algo:auto", *SINGLE]
BENCH = [
    "stages.bench.ops=[all_reduce]",
    "stages.bench.dtypes=[fp32]",
    "stages.bench.algorithms=[native,ring,tree,hierarchical]",
    "stages.bench.min_bytes=16384",
    "stages.bench.max_bytes=33554432",
    "stages.bench.iters=5",
    "stages.bench.native_variants=false",
    "stages.bench.deadline_s=3600",
]
SWEEP = [
    "stages.sweep.model.preset=comm_heavy",
    "stages.sweep.model.steps=4",
    "stages.sweep.model.nosync_steps=1",
    "stages.sweep.base.batch_size=4",
    "stages.sweep.batch_sizes=[4]",
    "stages.sweep.precisions=[fp32]",
    f"stages.sweep.comms=[{','.join(COMMS)}]",
    "stages.sweep.bucket_caps_mb=[1]",
    "stages.sweep.base.bucket_cap_mb=1",
    "stages.sweep.gradient_as_bucket_view=[false]",
    "stages.sweep.search=grid",
    "stages.sweep.scaling=false",
    "stages.sweep.resume=false",
    "stages.sweep.deadline_s=7200",
    "stages.sweep.trial_deadline_s=900",
]


def run(run_dir: Path, overrides: list[str]) -> dict:
    env = dict(os.environ, PYTHONPATH=str(REPO))
    argv = [sys.executable, "-m", "advisor", "run", *overrides, f"hydra.run.dir={run_dir}"]
    proc = subprocess.run(argv, env=env, text=True, capture_output=True, check=False)
    print(proc.stdout[-3000:], proc.stderr[-1500:], sep="\n", flush=True)
    return json.loads((run_dir / "facts.json").read_text())


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--record", action="store_true")
    parser.add_argument("overrides", nargs="*")
    ns = parser.parse_args()
    t0 = time.monotonic()
    run_dir = ns.out / "run"
    first = run(run_dir, [*only_stages("bench", "sweep"), *BENCH, *SWEEP, *ns.overrides])
    sweep = first["stages"]["sweep"]["data"]
    table = sweep.get("auto_table") or []
    measured: dict[str, list[float]] = {c: [] for c in COMMS}

    def collect(data: dict) -> None:
        for t in data["trials"]:
            ok = t["status"] == "ok" and not t["diverged"] and t["samples_per_s"]
            measured[t["config"]["comm"]].append(float(t["samples_per_s"]) if ok else 0.0)

    collect(sweep)
    for _ in range(ns.repeats):
        again = run(run_dir, [*only_stages("sweep"), *SWEEP, *ns.overrides])
        collect(again["stages"]["sweep"]["data"])
    med = {c: statistics.median(v) if v else 0.0 for c, v in measured.items()}
    best_single = max(SINGLE, key=lambda c: med[c])
    lines = [
        "- algo:auto table (from this run's bench): "
        + (", ".join(f"{a}–{b} B: {n}" for a, b, n in table) or sweep.get("auto_note", "none")),
        *(
            f"- {c}: samples/s {', '.join(f'{x:.2f}' for x in measured[c])} (median {med[c]:.2f})"
            for c in COMMS
        ),
        f"- algo:auto / default DDP (fp32): {med['algo:auto'] / med['fp32']:.2f}x"
        if med["fp32"]
        else "- default DDP failed",
        f"- algo:auto / best single algorithm ({best_single}): "
        f"{med['algo:auto'] / med[best_single]:.2f}x"
        if med[best_single]
        else "- no single algorithm ran",
        f"- wall time {time.monotonic() - t0:.0f} s",
    ]
    text = "\n".join(lines)
    print(text)
    if ns.record:
        now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
        with open(REPO / "tests" / "perf" / "RESULTS.md", "a", encoding="utf-8") as f:
            f.write(
                f"\n## algo:auto against default DDP and the single algorithms (issue 16): {now}\n"
                f"Command: `python tests/perf/algo_auto.py --out DIR --repeats {ns.repeats} "
                f"--record -- {' '.join(ns.overrides)}`  \n"
                f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, Python "
                f"{platform.python_version()}, load average {os.getloadavg()[0]:.1f} at the end\n"
                f"{text}\n"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
