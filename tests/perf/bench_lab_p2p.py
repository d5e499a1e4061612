"""Benchmark: the advisor's point-to-point bandwidth on a shaped lab link agrees with iperf3.

Two lab nodes (one gloo rank each) whose links are shaped to ``--rate-mbit`` (default 1000):
the connectivity stage measures the pair's ping-pong bandwidth at several message sizes through
the real ``advisor run`` path, then iperf3 measures the same link (one TCP stream, node 0 to
node 1). Pass: at the largest message the advisor is within 10% of iperf3, and both reach at
least 90% of the shaped rate.

Needs root and iperf3 (Debian: ``apt-get install -y iperf3``). Run from the repository root:

    sudo python tests/perf/bench_lab_p2p.py [--rate-mbit 1000] [--record]

``--record`` appends the figures to tests/perf/RESULTS.md.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shlex
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from advisor.lab import Lab, LinkShape  # noqa: E402

SIZES = [1 << 20, 8 << 20, 32 << 20]


def advisor_p2p(lab: Lab, run_dir: Path, iters: int) -> tuple[dict[str, float], float]:
    """Pair bandwidth by message size (Gbit/s) from the connectivity stage, and its wall time."""
    sizes = ",".join(str(s) for s in SIZES)
    args = [
        "+cluster=2x2",
        "cluster.devices_per_node=1",
        "profile=quick",
        "stages.smoke.enabled=false",
        "stages.connectivity.enabled=true",
        *(f"stages.{s}.enabled=false" for s in ("topology",) if _has_stage(s)),
        f"stages.connectivity.bandwidth_bytes=[{sizes}]",
        f"stages.connectivity.bandwidth_iters={iters}",
        "stages.connectivity.warmup_iters=2",
        "stages.connectivity.pair_timeout_s=60",
        "stages.connectivity.deadline_s=300",
    ]
    (cmd,) = lab.advisor_commands(args, run_dir)
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600, check=False)
    wall = time.monotonic() - t0
    facts_path = run_dir / "facts.json"
    if not facts_path.exists():
        raise SystemExit(f"advisor run failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    conn = json.loads(facts_path.read_text())["stages"]["connectivity"]
    if conn["status"] != "ok" or not conn["data"]["pairs"]:
        raise SystemExit(f"connectivity stage {conn['status']}: {conn['reason']}")
    pair = conn["data"]["pairs"][0]
    return {k: float(v) for k, v in pair["bandwidth_by_bytes_gbps"].items()}, wall


def _has_stage(name: str) -> bool:
    from advisor.stages import STAGE_MODULES

    return name in STAGE_MODULES


def iperf3(lab: Lab, seconds: int) -> float:
    """One TCP stream node 0 -> node 1 for ``seconds``; the receiver's Gbit/s."""
    server = subprocess.Popen(
        lab.exec_argv(1, ["iperf3", "-s", "-1", "-B", lab.address(1)]),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        time.sleep(1.0)
        out = subprocess.run(
            lab.exec_argv(0, ["iperf3", "-c", lab.address(1), "-t", str(seconds), "-J"]),
            capture_output=True,
            text=True,
            check=True,
            timeout=seconds + 30,
        ).stdout
    finally:
        server.kill()
        server.wait()
    return float(json.loads(out)["end"]["sum_received"]["bits_per_second"]) / 1e9


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rate-mbit", type=float, default=1000.0)
    parser.add_argument("--iters", type=int, default=5, help="timed round trips per size")
    parser.add_argument("--iperf-seconds", type=int, default=5)
    parser.add_argument("--iperf-runs", type=int, default=3, help="iperf3 runs; median used")
    parser.add_argument("--record", action="store_true", help="append to tests/perf/RESULTS.md")
    ns = parser.parse_args()
    rate_gbps = ns.rate_mbit / 1000
    with (
        Lab(2, shape=LinkShape(rate_mbit=ns.rate_mbit)) as lab,
        tempfile.TemporaryDirectory(prefix="bench-lab-p2p-") as tmp,
    ):
        load_before = os.getloadavg()[0]
        by_size, wall = advisor_p2p(lab, Path(tmp) / "run", ns.iters)
        runs = [iperf3(lab, ns.iperf_seconds) for _ in range(ns.iperf_runs)]
        load_after = os.getloadavg()[0]
    ip = statistics.median(runs)
    largest = by_size[str(max(SIZES))]
    agree = abs(largest - ip) / ip
    ok = agree <= 0.10 and largest >= 0.9 * rate_gbps and ip >= 0.9 * rate_gbps
    lines = [
        f"link shaped to {rate_gbps:g} Gbit/s (htb, both directions of each node link)",
        "advisor connectivity pair bandwidth (ping-pong, gloo):",
        *(
            f"  {int(k) / 2**20:>5.0f} MiB: {v:.3f} Gbit/s ({v / rate_gbps:.1%} of shaped)"
            for k, v in sorted(by_size.items(), key=lambda kv: int(kv[0]))
        ),
        f"iperf3 (1 TCP stream, {ns.iperf_runs} x {ns.iperf_seconds} s): median {ip:.3f} Gbit/s "
        f"({ip / rate_gbps:.1%}); runs {', '.join(f'{r:.3f}' for r in runs)}",
        f"advisor vs iperf3 at {max(SIZES) >> 20} MiB: {agree:.1%} apart -> "
        f"{'PASS' if ok else 'FAIL'} (within 10%, both >= 90% of shaped)",
        f"advisor run wall time: {wall:.0f} s; load average {load_before:.1f} before, "
        f"{load_after:.1f} after (the machine is shared)",
    ]
    print("\n".join(lines))
    if ns.record:
        cmd = shlex.join(["python", "tests/perf/bench_lab_p2p.py", *sys.argv[1:]])
        machine = f"{platform.node()}: {os.cpu_count()} CPUs, {platform.platform()}"
        entry = [
            f"\n## bench_lab_p2p: {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC",
            "",
            f"- command: `{cmd}` (as root)",
            f"- machine: {machine}",
            "",
            "```",
            *lines,
            "```",
        ]
        results = REPO / "tests" / "perf" / "RESULTS.md"
        if not results.exists():
            results.write_text("# Benchmark results\n", encoding="utf-8")
        with results.open("a", encoding="utf-8") as f:
            f.write("\n".join(entry) + "\n")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
