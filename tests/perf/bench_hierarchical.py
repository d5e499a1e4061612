"""Benchmark: pipelined hierarchical all-reduce against gloo's native one on a shaped lab link.

Runs ``advisor run`` (bench stage only) on the emulated lab: 2 nodes × 4 gloo ranks, each node a
network namespace, the inter-node link shaped to 250 Mbit/s (on a small host the intra-node path is
loopback TCP at ~1 GB/s shared by all ranks, so this keeps the intra/inter ratio near a real
cluster's ~10x). Targets: at 32 MB fp32 the hierarchical all-reduce reaches at least 1.5x the busbw
of the native one (the traffic ratio predicts 1.75x), and the α–β model's median error on held-out
sizes is at most 15%. Needs root (network namespaces, tc).

    sudo python tests/perf/bench_hierarchical.py [--record tests/perf/RESULTS.md]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from advisor.lab import Lab, LinkShape  # noqa: E402

TARGET_BYTES = 32 * 2**20
SPEEDUP_TARGET = 1.5
MODEL_ERROR_TARGET = 0.15


def bench_args(args: argparse.Namespace) -> list[str]:
    algorithms = ",".join(args.algorithms)
    return [
        "+cluster=2x2",
        f"cluster.devices_per_node={args.ranks_per_node}",
        "cluster.device=cpu",
        f"cluster.inter.nominal_gbps={args.rate_mbit / 1000}",
        "cluster.inter.type=veth",
        "profile=standard",
        *[f"stages.{s}.enabled=false" for s in ("smoke", "connectivity", "topology")],
        "stages.bench.ops=[all_reduce,sendrecv]",
        "stages.bench.dtypes=[fp32]",
        f"stages.bench.algorithms=[{algorithms}]",
        f"stages.bench.min_bytes={args.min_bytes}",
        f"stages.bench.max_bytes={TARGET_BYTES}",
        "stages.bench.factor=2",
        f"stages.bench.iters={args.iters}",
        "stages.bench.warmup_iters=1",
        f"stages.bench.deadline_s={args.deadline_s}",
        "stages.bench.native_variants=false",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate-mbit", type=float, default=250.0)
    parser.add_argument("--ranks-per-node", type=int, default=4)
    parser.add_argument("--min-bytes", type=int, default=1 * 2**20)
    parser.add_argument("--iters", type=int, default=5)
    parser.add_argument("--deadline-s", type=float, default=1500.0)
    parser.add_argument(
        "--algorithms",
        nargs="+",
        default=["native", "hierarchical", "ring", "halving_doubling", "tree"],
    )
    parser.add_argument("--run-dir", type=Path, default=None)
    parser.add_argument("--record", type=Path, default=None, help="append the result here")
    args = parser.parse_args()

    run_dir = args.run_dir or Path(tempfile.mkdtemp(prefix="bench-hier-")) / "run"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    started = time.monotonic()
    load_before = os.getloadavg()[0]
    with Lab(2, shape=LinkShape(rate_mbit=args.rate_mbit)) as lab:
        [cmd] = lab.advisor_commands(bench_args(args), run_dir)
        print("$", shlex.join(cmd), flush=True)
        proc = subprocess.run(cmd, env=env, text=True, capture_output=True)
    wall_s = time.monotonic() - started
    print(proc.stdout[-6000:])
    if proc.returncode not in (0, 1):
        print(proc.stderr[-4000:], file=sys.stderr)
        return 2
    bench = json.loads((run_dir / "facts.json").read_text())["stages"]["bench"]
    data = bench["data"]
    at_target = {
        r["algorithm"]: r
        for r in data["results"]
        if r["op"] == "all_reduce" and r["bytes"] == TARGET_BYTES
    }
    native, hier = at_target["native"], at_target["hierarchical"]
    speedup = hier["busbw_gbps"] / native["busbw_gbps"]
    model_error = data["model"]["heldout_median_error"]
    figures = {
        "native_busbw_MBps": native["busbw_gbps"] * 1e3 / 8,
        "hierarchical_busbw_MBps": hier["busbw_gbps"] * 1e3 / 8,
        "speedup": speedup,
        "model_heldout_median_error": model_error,
        "model_links": data["model"]["links"],
        "busbw_MBps_at_32MB": {k: v["busbw_gbps"] * 1e3 / 8 for k, v in at_target.items()},
        "wrong_total": data["wrong_total"],
        "wall_s": wall_s,
        "load_avg_1min": [round(load_before, 1), round(os.getloadavg()[0], 1)],
        "run_dir": str(run_dir),
    }
    ok = speedup >= SPEEDUP_TARGET and model_error is not None
    ok = ok and model_error <= MODEL_ERROR_TARGET and data["wrong_total"] == 0
    print(json.dumps(figures, indent=2))
    print(
        f"hierarchical/native busbw at 32 MB: {speedup:.2f}x (target >= {SPEEDUP_TARGET}); "
        f"model held-out median error {model_error:.1%} (target <= {MODEL_ERROR_TARGET:.0%}): "
        f"{'PASS' if ok else 'FAIL'}"
    )
    if args.record:
        # the interpreter and run-dir paths are this machine's: the record names neither
        argv = ["python", *(a if not a.startswith("/") else Path(a).name for a in sys.argv)]
        record(args, figures, ok, shlex.join(argv))
    return 0 if ok else 1


def record(args: argparse.Namespace, figures: dict, ok: bool, command: str) -> None:
    when = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    cpus = os.cpu_count()
    lines = [
        f"\n## bench_hierarchical — {when} — {'PASS' if ok else 'FAIL'}\n",
        f"- command: `{command}`",
        f"- machine: {platform.platform()}, {cpus} CPUs (shared with other jobs), lab 2 nodes x "
        f"{args.ranks_per_node} gloo ranks, inter-node link {args.rate_mbit:g} Mbit/s",
        "- 32 MB fp32 all_reduce busbw (MB/s): "
        + ", ".join(f"{k} {v:.1f}" for k, v in figures["busbw_MBps_at_32MB"].items()),
        f"- hierarchical / native: {figures['speedup']:.2f}x (target >= {SPEEDUP_TARGET})",
        f"- α–β model held-out median error: {figures['model_heldout_median_error']:.1%} "
        f"(target <= {MODEL_ERROR_TARGET:.0%}); links: "
        + ", ".join(
            f"{k} α={v['alpha_us']:.0f} µs, "
            + (
                f"1/β={v['bandwidth_gbps']:.3f} Gbit/s"
                if v["bandwidth_gbps"]
                else "β not identified (0)"
            )
            for k, v in figures["model_links"].items()
        ),
        f"- wrong elements: {figures['wrong_total']}; wall time {figures['wall_s']:.0f} s; "
        f"host load average (1 min) before/after: {figures['load_avg_1min']}",
    ]
    with open(args.record, "a", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    raise SystemExit(main())
