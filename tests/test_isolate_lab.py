"""Isolation drills on a 4-node lab (one gloo rank per node, 200 Mbit/s links), run side by side:
a node's link degraded to a tenth (the isolate stage forced), a node whose every port is
blocked (isolation started by the failed smoke stage) and a link cut between two nodes
(``advisor isolate RUN`` on the finished run). Each must name the node or link, its NIC, in at
most 2·log2(4) + 2 = 6 jobs. The same drills with the fault on each node in turn are
tests/perf/isolate_drills.py (figures in tests/perf/RESULTS.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.isolate_drills import Drill, run_drills
from tests.lab import lab_leak_check, requires_lab

# alone: each drill tells a tenth-rate link from healthy pairs by measured rates
pytestmark = [pytest.mark.root, requires_lab, pytest.mark.alone]


@pytest.fixture(scope="module", autouse=True)
def _no_leaks(lab_leak_check: None) -> None:
    """Pull the session-end leak check into every run of this module."""


def test_isolation_names_the_node_or_link_in_each_drill(tmp_path: Path) -> None:
    drills = [
        Drill(fault="degraded", node=3, mode="forced"),
        Drill(fault="blocked", node=0, mode="trigger"),
        Drill(fault="cut", node=1, mode="command"),
    ]
    results = run_drills(drills, tmp_path)
    for r in results:
        why = f"{r.drill}: {r.isolate}\n{r.output}"
        assert r.named, why
        assert r.within_budget, why
        # a failing node or link (and the failed smoke stage) is not ready; a slow node warns
        assert r.returncode == (0 if r.drill.fault == "degraded" else 1), why
        for node in r.isolate["culprit_nodes"]:
            assert r.isolate["nics"][node].startswith("lab0 "), why
    degraded, blocked, cut = results
    assert degraded.isolate["symptom"] == "slow" and "isolate-slow-node" in degraded.findings
    assert degraded.isolate["forced"] and not degraded.isolate["triggers"]
    assert blocked.isolate["symptom"] == "failed" and "isolate-bad-node" in blocked.findings
    # the blocked node's ranks never formed a group: its NIC is the configured one, said so
    assert "as configured" in blocked.isolate["nics"][blocked.expected_nodes[0]]
    assert any(t.startswith("stage smoke") for t in blocked.isolate["triggers"]), blocked.isolate
    assert cut.isolate["link"] == cut.expected_nodes and "isolate-bad-link" in cut.findings
    assert "isolate:" in cut.output  # the command's own summary line


__all__ = ["lab_leak_check"]
