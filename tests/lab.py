"""Pytest helpers for the emulated multi-node lab: a lab factory, running the advisor in a lab,
and the session-end leak check. Import the fixtures into a test module::

    from tests.lab import lab_leak_check, make_lab, requires_lab, run_in_lab  # noqa: F401

Every lab test is ``@pytest.mark.root`` and ``@requires_lab``: it skips, saying why, when not
root or without iproute2.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import psutil
import pytest

from advisor.lab import Lab, LinkShape
from advisor.lab.cli import stop_tree
from advisor.lab.netns import (
    CREATED_NAMESPACES,
    INTERFACE,
    SURVIVORS,
    list_labs,
    list_namespaces,
)

REPO = Path(__file__).resolve().parent.parent


def lab_unavailable_reason() -> str:
    if os.geteuid() != 0:
        return "needs root: the lab creates network namespaces, veth links and tc qdiscs"
    missing = [t for t in ("ip", "tc", "iptables") if shutil.which(t) is None]
    if missing:
        return f"needs {', '.join(missing)} (Debian packages iproute2, iptables)"
    return ""


requires_lab = pytest.mark.skipif(bool(lab_unavailable_reason()), reason=lab_unavailable_reason())


@dataclass
class LabRun:
    """What one ``advisor run`` in the lab left: exit codes and output of each advisor process."""

    returncodes: list[int]
    outputs: list[str]
    run_dir: Path
    wall_s: float

    @property
    def facts(self) -> dict[str, Any]:
        return json.loads((self.run_dir / "facts.json").read_text())

    def stage(self, name: str) -> dict[str, Any]:
        return self.facts["stages"][name]

    def ranks(self, stage: str) -> dict[int, dict[str, Any]]:
        return {r["rank"]: r for r in self.stage(stage)["ranks"]}

    def describe(self) -> str:
        """Everything needed to understand a failing assertion."""
        logs = []
        for log in sorted((self.run_dir / "logs").rglob("*.log")):
            logs.append(f"--- {log.relative_to(self.run_dir)}\n{log.read_text()[-2000:]}")
        out = "\n".join(f"--- advisor {i}\n{o[-3000:]}" for i, o in enumerate(self.outputs))
        return f"codes {self.returncodes} in {self.wall_s:.0f}s\n{out}\n" + "\n".join(logs)


def run_in_lab(
    lab: Lab,
    args: Sequence[str],
    run_dir: Path,
    *,
    launcher: str = "local",
    absent_nodes: Sequence[int] = (),
    timeout_s: float = 240.0,
) -> LabRun:
    """``advisor run ARGS`` on the lab (one advisor, or one per node with launcher=torchrun)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO)
    cmds = lab.advisor_commands(args, run_dir, launcher=launcher, absent_nodes=absent_nodes)
    logs = [run_dir.parent / f"{run_dir.name}.advisor{i}.out" for i in range(len(cmds))]
    run_dir.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    procs = []
    for cmd, log in zip(cmds, logs):
        with open(log, "wb") as out:
            procs.append(
                subprocess.Popen(
                    cmd, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env
                )
            )
    try:
        for p in procs:
            p.wait(timeout=max(1.0, timeout_s - (time.monotonic() - t0)))
    finally:
        stop_tree(procs)
    return LabRun(
        returncodes=[p.returncode for p in procs],
        outputs=[log.read_text(errors="replace") for log in logs],
        run_dir=run_dir,
        wall_s=time.monotonic() - t0,
    )


@pytest.fixture
def make_lab() -> Iterator[Any]:
    """``lab = make_lab(nodes=2, shape=LinkShape(rate_mbit=200))``: up now, down after the test."""
    labs: list[Lab] = []

    def _make(
        nodes: int = 2,
        *,
        shape: LinkShape | None = None,
        node_shapes: dict[int, LinkShape] | None = None,
    ) -> Lab:
        lab = Lab(nodes, shape=shape, node_shapes=node_shapes)
        labs.append(lab)
        return lab.up()

    yield _make
    for lab in labs:
        lab.down()


@pytest.fixture(scope="session")
def lab_leak_check() -> Iterator[None]:
    """At the end of the session: no lab namespace, link, state file or process is left.

    Lab test modules pull it in with a module-scoped autouse fixture, so it runs once, after the
    last lab test of the session."""
    yield
    if lab_unavailable_reason():
        return
    # Only this process's labs: other processes (a benchmark, another test run) may have labs
    # of their own up at the same time.
    left = sorted(n for n in list_namespaces() if n in CREATED_NAMESPACES)
    assert not left, f"lab namespaces left behind: {left}"
    assert not SURVIVORS, f"processes outlived their lab namespace's teardown: {SURVIVORS}"
    children = [_cmdline(p) for p in psutil.Process().children(recursive=True)]
    ours = [c for c in children if any(mark in c for mark in (*CREATED_NAMESPACES, *LAB_PROCS))]
    assert not ours, f"processes started by lab tests are still running: {ours}"


LAB_PROCS = ("advisor.worker", "torch.distributed.run", "iperf3")
"""What a lab test's leftover process would be running (besides a lab namespace's name)."""


def _cmdline(p: psutil.Process) -> str:
    try:
        return "" if p.status() == psutil.STATUS_ZOMBIE else " ".join(p.cmdline())
    except psutil.Error:
        return ""
    mine = [s.id for s in list_labs() if s.owner_pid == os.getpid()]
    assert not mine, f"lab state files left behind: {mine}"
    host_links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    assert f" {INTERFACE}" not in host_links, (
        f"a lab link is left in the host namespace: {host_links}"
    )
