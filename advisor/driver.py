"""Driver stages: code in the advisor process that launches several jobs of one stage.

A sweep runs one distributed job per trial, a benchmark one job per native-algorithm setting
(libraries read those variables at init, so each needs a fresh process group). The driver decides
what to launch next from what earlier jobs measured; every job still goes through the one launcher
(torchrun's elastic agent, deadline, per-rank diagnosis).
"""

from __future__ import annotations

import time
from dataclasses import asdict, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from omegaconf import OmegaConf

from advisor import launch
from advisor.facts import StageFacts
from advisor.results import Record, read_records
from advisor.worker import _Recorder

if TYPE_CHECKING:
    from advisor.cluster import Cluster
    from advisor.config import AdvisorConfig


class DriverContext(_Recorder):
    """What a driver stage gets: the cluster, a deadline, and ``launch`` for each job."""

    def __init__(
        self,
        *,
        stage: str,
        stage_index: int,
        run_dir: Path,
        cluster: Cluster,
        cfg: AdvisorConfig,
        deadline_s: float,
    ) -> None:
        import socket

        self.stage = stage
        self.stage_index = stage_index
        self.run_dir = run_dir
        self.cluster = cluster
        self.cfg = cfg
        self.node = 0
        self.node_name = cluster.node_name(0)
        self.host = socket.gethostname()
        self.rank = -1
        self.local_rank = -1
        self._faults = []
        self._first_step_seen = False
        self._deadline = time.monotonic() + deadline_s
        self._jobs = 0
        self.outcomes: list[StageFacts] = []
        """Every job launched so far, in order (name = ``<stage>-<job>``)."""

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
        entry: list[str] | None = None,
    ) -> StageFacts:
        """Run one job of this stage; every rank runs ``run_rank`` with ``params``.

        ``params`` is the job's config (a dataclass of the stage's ``job_config_type``, or a
        mapping); ``env`` adds variables for this job only; ``cluster`` runs it on a smaller
        world (scaling runs). The deadline is capped by the time the stage has left. ``entry``
        runs that argv on every rank instead (a user's own training command, see
        ``launch.run_job_stage``); its ranks' output lands in ``logs/<stage>/<job>/``.
        """
        mapping = (
            params
            if isinstance(params, dict)
            else OmegaConf.to_container(OmegaConf.structured(params))
        )
        self._jobs += 1
        launcher = self.cfg.launcher
        if cluster is not None and launcher.netns and len(launcher.netns) != cluster.nodes:
            # A smaller world (scaling) runs on the first nodes of the lab: their namespaces.
            launcher = replace(launcher, netns=launcher.netns[: cluster.nodes])
        outcome = launch.run_job_stage(
            stage=self.stage,
            port_offset=self.stage_index * 100 + self._jobs,
            job=job,
            run_dir=self.run_dir,
            cluster=cluster or self.cluster,
            launcher=launcher,
            params=mapping,  # type: ignore[arg-type]
            deadline_s=max(1.0, min(deadline_s, self.time_left_s)),
            pg_timeout_s=self.cfg.pg_timeout_s,
            faults=[asdict(f) for f in self.cfg.faults],
            extra_env={**self.cfg.env, **(env or {})},
            entry=entry,
            strict=self.cfg.strict_emulation,
        )
        self.outcomes.append(outcome)
        return outcome

    def records(self, job: str | None = None) -> list[Record]:
        """Records of this stage's jobs (one job, or all)."""
        recs = read_records(self.run_dir, self.stage)
        return recs if job is None else [r for r in recs if r.job == job]
