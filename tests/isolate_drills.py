"""Isolation drills on the emulated lab: one fault on one node (or link) of a 4-node lab, then
``advisor run`` with only the isolate stage, forced. Shared by tests/test_isolate_lab.py and
tests/perf/isolate_drills.py; several drills run side by side (their failing jobs mostly wait
out a deadline, so the host's two cores are not the limit).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from advisor.isolate.search import job_budget
from advisor.lab import Lab, LinkShape
from advisor.stages import STAGE_MODULES
from tests.lab import REPO, run_in_lab

NODES = 4
RATE_MBIT = 200.0
FAULTS = ("degraded", "blocked", "cut")
"""degraded: the node's link at a tenth of its rate; blocked: every TCP port of the node
dropped by its firewall; cut: the link between the node and the next one dropped (iptables)."""
JOB_DEADLINE_S = 60.0
"""Each job's deadline. Three drills side by side start 12 ranks and 12 agents at once on two
cores; at 25 s a clean-clone CI saw the first four-node job of the degraded drill time out with
no rank started (a host slower that day), so the drill named no node; at 40 s a later CI (and
the drill run alone after it, twice) saw the same on a host whose whole suite ran 35 min."""
BLOCKED_JOB_DEADLINE_S = 40.0
"""The blocked drill's: every job with the blocked node waits in torchrun's rendezvous until its
deadline (three of them a drill), and its healthy two-node jobs run late, when the other drills
have finished or are waiting: they need far less than the four-node jobs at the start."""
SMOKE_DEADLINE_S = 20.0
"""The smoke stage of the trigger and command drills, which is meant to fail (or time out: either
triggers isolation): its deadline only bounds the wait."""


MODES = ("forced", "trigger", "command")
"""forced: only the isolate stage, forced; trigger: smoke then isolate, which runs because smoke
failed; command: smoke alone, then ``advisor isolate RUN`` on the finished run."""


@dataclass(kw_only=True)
class Drill:
    fault: str
    node: int
    mode: str = "forced"

    @property
    def peer(self) -> int:
        return (self.node + 1) % NODES


@dataclass(kw_only=True)
class DrillResult:
    drill: Drill
    expected_kind: str
    expected_nodes: list[str]
    isolate: dict[str, Any]
    findings: list[str]
    """Ids of the run's findings after isolation."""
    returncode: int
    wall_s: float
    output: str

    @property
    def named(self) -> bool:
        return self.isolate.get("conclusion") == self.expected_kind and sorted(
            self.isolate.get("culprit_nodes", [])
        ) == sorted(self.expected_nodes)

    @property
    def jobs(self) -> int:
        return len(self.isolate.get("jobs", []))

    @property
    def within_budget(self) -> bool:
        return 0 < self.jobs <= job_budget(NODES)


def overrides(mode: str, job_deadline_s: float = JOB_DEADLINE_S) -> list[str]:
    wanted = {"forced": ["isolate"], "trigger": ["smoke", "isolate"], "command": ["smoke"]}[mode]
    return [
        "+cluster=2x2",
        "profile=quick",
        "cluster.devices_per_node=1",
        "pg_timeout_s=20",
        *[f"stages.{s}.enabled={str(s in wanted).lower()}" for s in STAGE_MODULES],
        f"stages.smoke.deadline_s={SMOKE_DEADLINE_S}",
        f"stages.isolate.force={str(mode == 'forced').lower()}",
        f"stages.isolate.job_deadline_s={job_deadline_s}",
        "stages.isolate.probe_bytes=1048576",
        "stages.isolate.iters=3",
    ]


def run_drill(drill: Drill, work: Path) -> DrillResult:
    with Lab(NODES, shape=LinkShape(rate_mbit=RATE_MBIT)) as lab:
        if drill.fault == "degraded":
            lab.degrade(drill.node, rate_factor=0.1)
            kind, nodes = "node", [drill.node]
        elif drill.fault == "blocked":
            lab.block_ports(drill.node, 1, 65535)
            kind, nodes = "node", [drill.node]
        elif drill.fault == "cut":
            lab.cut_link(drill.node, drill.peer)
            kind, nodes = "link", [drill.node, drill.peer]
        else:
            raise ValueError(f"unknown drill fault {drill.fault!r}; faults: {FAULTS}")
        run_dir = work / f"{drill.fault}-{drill.node}-{drill.mode}"
        deadline_s = BLOCKED_JOB_DEADLINE_S if drill.fault == "blocked" else JOB_DEADLINE_S
        run = run_in_lab(lab, overrides(drill.mode, deadline_s), run_dir, timeout_s=600)
        output, wall_s, returncode = run.outputs[0], run.wall_s, run.returncodes[0]
        if drill.mode == "command":
            # The finished run is isolated from node 0's namespace, as an operator would.
            t0 = time.monotonic()
            done = subprocess.run(
                lab.exec_argv(0, [sys.executable, "-m", "advisor", "isolate", str(run_dir)]),
                capture_output=True,
                text=True,
                timeout=600,
                env={**os.environ, "PYTHONPATH": str(REPO)},
            )
            output += done.stdout + done.stderr
            wall_s += time.monotonic() - t0
            returncode = done.returncode
        facts = json.loads((run_dir / "facts.json").read_text())
        findings = json.loads((run_dir / "findings.json").read_text())
        return DrillResult(
            drill=drill,
            expected_kind=kind,
            expected_nodes=[lab.address(n) for n in nodes],
            isolate=facts["stages"]["isolate"]["data"],
            findings=[f["rule_id"] for f in findings.get("findings", [])],
            returncode=returncode,
            wall_s=wall_s,
            output=output[-4000:],
        )


def run_drills(drills: Sequence[Drill], work: Path, *, parallel: int = 3) -> list[DrillResult]:
    with ThreadPoolExecutor(max_workers=parallel) as pool:
        return list(pool.map(lambda d: run_drill(d, work), drills))
