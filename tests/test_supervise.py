"""A job's processes are stopped whole: workers started since the last look, agents of a start
that failed half way, and agents a Ctrl-C caught as they started (real processes throughout)."""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from advisor.cluster import ClusterConfig, resolve
from advisor.launch import jobs
from advisor.launch.commands import NodeCommand
from advisor.launch.jobs import Launcher, StageRun
from advisor.launch.plan import LauncherConfig, LaunchPlan
from advisor.launch.supervise import Agents


def _of(marker: Path) -> list[psutil.Process]:
    """Live (not zombie) processes whose command line names ``marker``."""
    found = []
    for p in psutil.process_iter(["cmdline", "status"]):
        if p.info["status"] != psutil.STATUS_ZOMBIE and str(marker) in " ".join(
            p.info["cmdline"] or []
        ):
            found.append(p)
    return found


def _wait_for(path: Path, timeout_s: float = 30.0) -> None:
    end = time.monotonic() + timeout_s
    while not path.exists() and time.monotonic() < end:
        time.sleep(0.05)
    assert path.exists(), f"{path} was never written"


@pytest.fixture
def python_sigint() -> Iterator[None]:
    """Python's own Ctrl-C handler, as a terminal's run has it (a suite started in the background
    inherits SIGINT ignored)."""
    before = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, before)


def test_stop_reaches_a_worker_started_after_the_last_look(tmp_path: Path) -> None:
    """An agent whose worker (in a session of its own, as torchrun starts them) appeared after
    the last ``watch`` and which dies on SIGTERM without stopping it: the worker is stopped too."""
    pid_file = tmp_path / "worker.pid"
    worker = f"import time; time.sleep(120)  # {tmp_path}"
    agent = (
        "import subprocess, sys, time\n"
        f"w = subprocess.Popen([sys.executable, '-c', {worker!r}], start_new_session=True)\n"
        f"open({str(pid_file)!r}, 'w').write(str(w.pid))\n"
        "time.sleep(120)\n"
    )
    cmd = NodeCommand(
        node=0,
        argv=[sys.executable, "-c", agent],
        env=dict(os.environ),
        log_path=tmp_path / "a.log",
    )
    agents = Agents([cmd], kill_grace_s=2.0)
    try:
        _wait_for(pid_file)
        worker_pid = int(pid_file.read_text())
        assert [p.pid for p in _of(tmp_path) if p.pid == worker_pid] == [worker_pid]
        agents.stop()  # no watch() since the worker started
        end = time.monotonic() + 5
        while _of(tmp_path) and time.monotonic() < end:
            time.sleep(0.05)
        assert _of(tmp_path) == []
    finally:
        for p in _of(tmp_path):
            p.kill()


def test_an_agent_that_cannot_start_stops_the_ones_started_before_it(tmp_path: Path) -> None:
    first = NodeCommand(
        node=0,
        argv=[sys.executable, "-c", f"import time; time.sleep(120)  # {tmp_path}"],
        env=dict(os.environ),
        log_path=tmp_path / "n0.log",
    )
    missing = NodeCommand(
        node=1,
        argv=[str(tmp_path / "no-such-launcher")],
        env=dict(os.environ),
        log_path=tmp_path / "n1.log",
    )
    try:
        with pytest.raises(FileNotFoundError):
            Agents([first, missing], kill_grace_s=2.0)
        assert _of(tmp_path) == []
    finally:
        for p in _of(tmp_path):
            p.kill()


def test_a_ctrl_c_as_a_jobs_agents_start_stops_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, python_sigint: None
) -> None:
    """The interrupted-run drill once found two agents alive after the run exited: the Ctrl-C had
    landed between their start and the launcher holding the job. Here it lands right after the
    agents of a real 1x2 job start; the launcher raises it and nothing of the job is left."""

    class InterruptedAgents(Agents):
        def __init__(self, *args: object, **kw: object) -> None:
            super().__init__(*args, **kw)  # type: ignore[arg-type]
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(0.05)  # Python runs the handler here

    monkeypatch.setattr(jobs, "Agents", InterruptedAgents)
    cluster = resolve(
        ClusterConfig(name="t", nodes=1, devices_per_node=2, device="cpu"), emulate=True
    )
    plan = LaunchPlan.make(LauncherConfig(), cluster, environ={})
    run_dir = tmp_path / "run"
    launcher = Launcher(plan, run_dir, pg_timeout_s=30.0, faults=[], strict=True)
    run = StageRun(stage="smoke", params={}, deadline_s=60.0, offset=0)
    try:
        with pytest.raises(KeyboardInterrupt):
            next(iter(launcher.run([run])))
        launcher.close()
        assert _of(run_dir) == []
    finally:
        for p in _of(run_dir):
            p.kill()
