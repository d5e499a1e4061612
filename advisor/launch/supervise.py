"""The agents of one job as processes: started, watched, and stopped with everything below them.

Workers run in sessions of their own, so an agent's tree is collected with psutil as it grows
rather than by process group; stopping is SIGTERM to every process of the tree, then SIGKILL to
those still alive after the grace period.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import psutil

from advisor.launch.commands import NodeCommand

AGENT_TEARDOWN_S = 1.0
"""An agent still running once every worker below it has exited is only tearing itself down
(closing its rendezvous, printing its summary): it gets this long, not the whole grace, before
SIGKILL. Its workers' dumps and records are written by then; a stage's deadline must not wait on
that teardown (measured 0.2-0.9 s on a loaded 2-core host; over 3 s once in CI)."""


@dataclass(kw_only=True)
class AgentResult:
    node: int
    returncode: int | None
    """None when it was still running when the job was stopped."""
    log_path: Path


class Agents:
    """The running agents of one job."""

    def __init__(self, commands: Sequence[NodeCommand], kill_grace_s: float) -> None:
        self.kill_grace_s = kill_grace_s
        self.procs: list[tuple[NodeCommand, subprocess.Popen[bytes]]] = []
        self._tree: dict[int, psutil.Process] = {}
        self._stopped: set[int] = set()
        try:
            for cmd in commands:
                cmd.log_path.parent.mkdir(parents=True, exist_ok=True)
                with open(cmd.log_path, "wb") as log:
                    self.procs.append(
                        (
                            cmd,
                            subprocess.Popen(
                                cmd.argv,
                                env=cmd.env,
                                stdout=log,
                                stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL,
                                start_new_session=True,
                            ),
                        )
                    )
        except BaseException:
            # a later node's agent that cannot start (its launcher missing) must not leave the
            # earlier nodes' agents running: the caller never gets them to stop
            self.stop()
            raise

    def watch(self) -> None:
        """Remember every process below the agents (called as they run: workers come and go)."""
        for _, root in self.procs:
            try:
                for child in psutil.Process(root.pid).children(recursive=True):
                    self._tree.setdefault(child.pid, child)
            except psutil.Error:
                continue

    @property
    def all_exited(self) -> bool:
        return all(p.poll() is not None for _, p in self.procs)

    @property
    def failed(self) -> bool:
        """An agent exited with a non-zero code (a rank failed, or the agent itself)."""
        return any(p.poll() not in (None, 0) for _, p in self.procs)

    def stop(self) -> None:
        """Stop every agent still running and every process below any agent."""
        # the workers an agent started since the last look are in the tree too (one stopped
        # before the first look would otherwise outlive an agent that dies before them)
        self.watch()
        running = [p for _, p in self.procs if p.poll() is None]
        self._stopped.update(p.pid for p in running)
        if running:
            _stop(list(self._tree.values()), running, self.kill_grace_s)
        # Workers orphaned by an agent that exited on its own are stopped too.
        leftovers = [t for t in self._tree.values() if _alive(t)]
        if leftovers:
            _stop(leftovers, [], self.kill_grace_s)

    def results(self) -> list[AgentResult]:
        return [
            AgentResult(
                node=cmd.node,
                returncode=None if p.pid in self._stopped else p.poll(),
                log_path=cmd.log_path,
            )
            for cmd, p in self.procs
        ]


def _alive(p: psutil.Process) -> bool:
    try:
        return p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _stop(tree: list[psutil.Process], roots: list[subprocess.Popen[bytes]], grace_s: float) -> None:
    for root in roots:
        if root.poll() is None:
            try:
                os.killpg(root.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    for p in tree:
        try:
            p.terminate()
        except psutil.Error:
            pass
    _, alive = psutil.wait_procs([p for p in tree if _alive(p)], timeout=grace_s)
    # The tree holds the workers of a local agent; an ssh or srun client's workers are remote and
    # only the client knows when they are gone: it keeps the whole grace.
    teardown_s = AGENT_TEARDOWN_S if tree and not alive else grace_s
    for root in roots:
        try:
            root.wait(timeout=max(0.1, min(grace_s, teardown_s)))
        except subprocess.TimeoutExpired:
            try:
                os.killpg(root.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            root.wait()
    for p in alive:
        try:
            p.kill()
        except psutil.Error:
            pass
