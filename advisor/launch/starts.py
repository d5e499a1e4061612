"""What starting each job's ranks cost, from the records the ranks write before any stage."""

from __future__ import annotations

import statistics
from pathlib import Path

from advisor.facts import LaunchFacts
from advisor.results import LAUNCHES, read_records


def summarize_launches(run_dir: Path) -> list[LaunchFacts]:
    """One LaunchFacts per launch in ``results/launches.jsonl``, in launch order."""
    by_launch: dict[str, LaunchFacts] = {}
    nodes: dict[int, str] = {}
    for r in read_records(run_dir, LAUNCHES):
        lf = by_launch.setdefault(r.launch, LaunchFacts(launch=r.launch))
        key = str(r.rank)
        nodes[r.rank] = r.node_name
        if r.step == "start":
            lf.start_s[key] = float(r.metrics.get("since_launch_s", 0.0))
            lf.stages = [str(s) for s in r.metrics.get("stages", lf.stages)]
        elif r.step == "init" and r.status == "ok":
            lf.init_s[key] = float(r.metrics.get("init_s", 0.0))
    for lf in by_launch.values():
        lf.ranks = len(lf.start_s)
        per_node: dict[str, list[float]] = {}
        for key, start in lf.start_s.items():
            if key in lf.init_s:
                per_node.setdefault(nodes[int(key)], []).append(start + lf.init_s[key])
        lf.node_ready_s = {n: statistics.median(v) for n, v in sorted(per_node.items())}
        if lf.node_ready_s:
            lf.slowest_node = max(lf.node_ready_s, key=lambda n: lf.node_ready_s[n])
            lf.slowest_node_ready_s = lf.node_ready_s[lf.slowest_node]
            others = [v for n, v in lf.node_ready_s.items() if n != lf.slowest_node]
            if others:
                lf.others_ready_s = statistics.median(others)
                lf.slow_excess_s = lf.slowest_node_ready_s - lf.others_ready_s
                lf.slow_ratio = lf.slowest_node_ready_s / max(lf.others_ready_s, 1e-6)
    return list(by_launch.values())
