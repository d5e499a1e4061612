"""Pytest helpers for the emulated multi-node lab: a lab factory, running the advisor in a lab,
and the session-end leak check. Import the fixtures into a test module::

    from tests.lab import lab_leak_check, make_lab, requires_lab, run_in_lab  # noqa: F401

Every lab test is ``@pytest.mark.root`` and ``@requires_lab``: it skips, saying why, when not
root or without iproute2.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil
import pytest

from advisor.lab import Lab, LinkShape
from advisor.lab.cli import stop_tree
from advisor.lab.netns import INTERFACE, list_labs, list_namespaces
from advisor.results import LAUNCHES

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
    node_env: dict[int, dict[str, str]] | None = None,
) -> LabRun:
    """``advisor run ARGS`` on the lab (one advisor, or one per node with launcher=torchrun)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO)
    cmds = lab.advisor_commands(
        args, run_dir, launcher=launcher, absent_nodes=absent_nodes, node_env=node_env
    )
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
    last lab test of the session. (A process that outlives its lab's teardown already failed
    that lab's ``down()``: the lab raises LabError.)"""
    before = set(list_namespaces())
    yield
    if lab_unavailable_reason():
        return
    # Only this process's labs: other processes (the other xdist worker, a benchmark, another
    # test run) may have labs of their own up, or coming up or down, at the same time. A lab
    # writes its state file before its first namespace and removes it after its last, so a
    # namespace listed both before and after reading the state files had its state file read.
    seen = set(list_namespaces())
    others = {
        s.id for s in list_labs() if s.owner_pid != os.getpid() and psutil.pid_exists(s.owner_pid)
    }
    still = set(list_namespaces())
    left = sorted(n for n in (seen & still) - before if not any(f"-{i}-" in n for i in others))
    assert not left, f"lab namespaces left behind: {left}"
    children = [_cmdline(p) for p in psutil.Process().children(recursive=True)]
    ours = [c for c in children if any(mark in c for mark in LAB_PROCS)]
    assert not ours, f"processes started by lab tests are still running: {ours}"
    mine = [s.id for s in list_labs() if s.owner_pid == os.getpid()]
    assert not mine, f"lab state files left behind: {mine}"
    host_links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    assert f" {INTERFACE}" not in host_links, (
        f"a lab link is left in the host namespace: {host_links}"
    )


LAB_PROCS = (
    "advisor.worker",
    "torch.distributed.run",
    "advisor.launch.agent",
    "multiprocessing.forkserver",
    "iperf3",
)
"""What a lab test's leftover process would be running (besides a lab namespace's name)."""


def _cmdline(p: psutil.Process) -> str:
    try:
        return "" if p.status() == psutil.STATUS_ZOMBIE else " ".join(p.cmdline())
    except psutil.Error:
        return ""


# ---------------------------------------------------------------------------- run-time triggers


@dataclass(kw_only=True)
class StepWatch:
    """Fires ``action`` once a rank's record shows it started ``step`` of ``stage``."""

    run_dir: Path
    stage: str
    step: str = ""
    """Step name prefix ('' = the rank's first record of the stage)."""
    rank: int | None = None
    """Rank to watch; None: any rank."""
    action: Callable[[dict[str, Any]], None]
    """Called with the matching record (a mapping: rank, step, metrics incl. pid for start)."""
    fired: threading.Event = field(default_factory=threading.Event)
    error: BaseException | None = None


def _matching(w: StepWatch) -> dict[str, Any] | None:
    path = w.run_dir / "results" / f"{w.stage}.jsonl"
    if not path.exists():
        return None
    found = None
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue
        if w.rank is not None and rec.get("rank") != w.rank:
            continue
        if str(rec.get("step", "")).startswith(w.step):
            found = dict(rec)
            if w.stage != LAUNCHES:
                return found
    return found  # of a rank's launches, its latest


@contextlib.contextmanager
def when_step(
    run_dir: Path,
    stage: str,
    action: Callable[[dict[str, Any]], None],
    *,
    step: str = "",
    rank: int | None = None,
    poll_s: float = 0.05,
) -> Iterator[StepWatch]:
    """Run ``action`` in a background thread as soon as a rank reaches a step (for faults that
    must strike mid-stage). The watch stops when the block exits; ``watch.fired`` says whether
    it struck, and an error in the action is re-raised on exit."""
    watch = StepWatch(run_dir=run_dir, stage=stage, step=step, rank=rank, action=action)
    stop = threading.Event()

    def loop() -> None:
        while not stop.is_set():
            rec = _matching(watch)
            if rec is not None:
                try:
                    action(rec)
                except BaseException as e:
                    watch.error = e
                watch.fired.set()
                return
            stop.wait(poll_s)

    t = threading.Thread(target=loop, name=f"lab-watch-{stage}-{step}", daemon=True)
    t.start()
    try:
        yield watch
    finally:
        stop.set()
        t.join(timeout=5)
    if watch.error is not None:
        raise watch.error


def kill_pid(pid: int, sig: int = signal.SIGKILL) -> None:
    """Kill one process (a rank found through its ``start`` record's pid)."""
    with contextlib.suppress(psutil.NoSuchProcess):
        psutil.Process(pid).send_signal(sig)


def rank_pid(run_dir: Path, rank: int) -> int | None:
    """The pid a rank recorded at its start in its latest launch (None before it started)."""
    w = StepWatch(run_dir=run_dir, stage=LAUNCHES, step="start", rank=rank, action=lambda r: None)
    rec = _matching(w)
    if rec is None:
        return None
    pid = rec.get("metrics", {}).get("pid")
    return int(pid) if pid is not None else None
