"""Driver stages: code in the advisor process that launches several jobs of one stage.

A sweep runs one distributed job per trial, a benchmark one job per native-algorithm setting
(libraries read those variables at init, so each needs a fresh process group). The driver decides
what to launch next from what earlier jobs measured; every job still goes through the one launcher
(torchrun's elastic agent, deadline, per-rank diagnosis). A driver stage's first job may already
have run in the run's shared job (the benchmark's default job beside the probes): ``done`` has it.
"""

from __future__ import annotations

import socket
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from omegaconf import OmegaConf

from advisor.context import Recorder
from advisor.facts import StageFacts
from advisor.launch.jobs import Launcher, StageRun
from advisor.results import Record, read_records

if TYPE_CHECKING:
    from advisor.cluster import Cluster
    from advisor.config import AdvisorConfig
    from advisor.launch.plan import LaunchPlan


class DriverContext(Recorder):
    """What a driver stage gets: the cluster, a deadline, and ``launch`` for each job."""

    def __init__(
        self,
        *,
        stage: str,
        stage_index: int,
        run_dir: Path,
        cluster: Cluster,
        cfg: AdvisorConfig,
        launcher: Launcher,
        deadline_s: float,
        done: dict[str, StageFacts] | None = None,
    ) -> None:
        self.stage = stage
        self.stage_index = stage_index
        self.run_dir = run_dir
        self.cluster = cluster
        self.cfg = cfg
        self.launcher = launcher
        self.node = 0
        self.node_name = cluster.node_name(0)
        self.host = socket.gethostname()
        self.rank = -1
        self.local_rank = -1
        self._faults = []
        self._first_step_seen = False
        self._deadline = time.monotonic() + deadline_s
        self._jobs = 0
        self.done: dict[str, StageFacts] = dict(done or {})
        """Jobs of this stage that already ran in the run's shared job, by job name."""
        self.outcomes: list[StageFacts] = list(self.done.values())
        """Every job run so far, in order (name = ``<stage>-<job>``)."""

    @property
    def time_left_s(self) -> float:
        return max(0.0, self._deadline - time.monotonic())

    def launch(
        self,
        job: str,
        params: Any,
        *,
        deadline_s: float,
        env: dict[str, str] | None = None,
        cluster: Cluster | None = None,
        nodes: list[int] | None = None,
        entry: list[str] | None = None,
    ) -> StageFacts:
        """Run one job of this stage; every rank runs ``run_rank`` with ``params``.

        ``params`` is the job's config (a dataclass of the stage's ``job_config_type``, or a
        mapping); ``env`` adds variables for this job only; ``cluster`` runs it on a smaller
        world (scaling runs) on the first nodes; ``nodes`` on those nodes of the run (isolation). The
        deadline is capped by the time the stage has left. ``entry``
        runs that argv on every rank instead (a user's own training command, see
        ``advisor.launch.jobs``); its ranks' output lands in ``logs/<stage>/<job>/``.
        """
        self._jobs += 1
        outcome = self.launcher.run_one(
            StageRun(
                stage=self.stage,
                job=job,
                params=job_params(params),
                deadline_s=max(1.0, min(deadline_s, self.time_left_s)),
                offset=self.stage_index * 100 + self._jobs,
            ),
            plan=self._plan(cluster, nodes),
            env=env,
            entry=entry,
        )
        self.outcomes.append(outcome)
        return outcome

    def _plan(self, cluster: Cluster | None, nodes: list[int] | None) -> LaunchPlan | None:
        if nodes is not None:
            return self.launcher.plan.subset(nodes)
        return self.launcher.plan.on(cluster) if cluster is not None else None

    def records(self, job: str | None = None) -> list[Record]:
        """Records of this stage's jobs (one job, or all)."""
        recs = read_records(self.run_dir, self.stage)
        return recs if job is None else [r for r in recs if r.job == job]


def job_params(params: Any) -> dict[str, Any]:
    """A job's config (a dataclass, or a mapping already) as the plain data a job spec holds."""
    if isinstance(params, dict):
        return params
    out = OmegaConf.to_container(OmegaConf.structured(params))
    assert isinstance(out, dict)
    return out  # type: ignore[return-value]
