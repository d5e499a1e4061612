"""How a stage reports: records appended as it goes, steps with a start and an end, faults.

Every stage code gets a context that is a :class:`Recorder` (a rank's in ``advisor.worker``, the
advisor process's for host and driver stages); :class:`HostContext` is the host stages' own.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from advisor import faults
from advisor.cluster import Cluster
from advisor.results import Record, append_record


class Recorder:
    """Appends this process's records to the stage's results file, flushed at once."""

    stage: str
    job: str = ""
    launch_id: str = ""
    """The launch (job) this process belongs to; '' in the advisor process."""
    run_dir: Path
    rank: int
    node: int
    node_name: str
    host: str
    local_rank: int
    _faults: list[faults.FaultConfig]
    _first_step_seen: bool

    def record(self, step: str, status: str = "ok", **metrics: Any) -> None:
        """Append one record now (flushed at once: a rank that dies later keeps it)."""
        self._append(self.stage, step, status, metrics)

    def _append(self, stage: str, step: str, status: str, metrics: dict[str, Any]) -> None:
        append_record(
            self.run_dir,
            Record(
                stage=stage,
                rank=self.rank,
                node=self.node,
                node_name=self.node_name,
                host=self.host,
                local_rank=self.local_rank,
                job=self.job,
                launch=self.launch_id,
                step=step,
                status=status,
                metrics=metrics,
            ),
        )

    @contextmanager
    def step(self, name: str, **metrics: Any) -> Iterator[dict[str, Any]]:
        """Record the start of a step, then its end with whatever the body put in the dict.

        The ``started`` record is what hang diagnosis reads: a rank that never finishes a step is
        reported at the last step it started.
        """
        # An injected fault fires before the step is announced: a hung or dead rank then looks
        # exactly like one that never arrived, which is what hang diagnosis must tell apart.
        self._maybe_fault(name)
        self.record(name, "started", **metrics)
        out: dict[str, Any] = {}
        t0 = time.perf_counter()
        try:
            yield out
        except Exception as e:
            self.record(name, "error", error=f"{type(e).__name__}: {e}")
            raise
        out.setdefault("elapsed_s", time.perf_counter() - t0)
        self.record(name, "ok", **out)

    def _maybe_fault(self, step: str) -> None:
        for f in self._faults:
            if f.stage != self.stage or f.rank != self.rank:
                continue
            if (f.step == "" and not self._first_step_seen) or (f.step and step.startswith(f.step)):
                self._first_step_seen = True
                faults.apply(f)
        self._first_step_seen = True


class HostContext(Recorder):
    """What a host stage (preflight) gets: the node it checks and how to report."""

    def __init__(
        self,
        *,
        stage: str,
        run_dir: Path,
        cluster: Cluster,
        node: int,
        params: Any,
        cfg: Any = None,
        nodes_here: list[int] | None = None,
    ) -> None:
        self.stage = stage
        self.run_dir = run_dir
        self.cluster = cluster
        self.node = node
        self.cfg = cfg
        """The run's AdvisorConfig (launcher, the jobs' env, which stages are planned)."""
        self.nodes_here = list(nodes_here or [node])
        """Every node this advisor process checks (emulated nodes share one host)."""
        self.node_name = cluster.node_name(node)
        self.host = socket.gethostname()
        self.rank = -1
        self.local_rank = -1
        self.params = params
        self._faults = []
        self._first_step_seen = False
