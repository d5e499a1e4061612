"""One job running a sequence of stages; a fresh job for the stages after one that failed.

The ranks start once (torch import, rendezvous, process group: most of a short run's time) and
run the job's stages in order, each writing its own records and a ``done`` record when it ends.
The supervisor follows one stage at a time with that stage's own deadline (the first stage's
counts from the launch): every rank done is the stage's success; a rank that died or reported an
error, a passed deadline, or a node that left the run ends the job, and that stage is diagnosed
as if it had been a job of its own (ranks named with node, host and last step). The stages after
it run in a fresh job, so one failure never poisons the ones behind it.
"""

from __future__ import annotations

import itertools
import os
import shutil
import time
from collections.abc import Generator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from advisor import console
from advisor.facts import StageFacts
from advisor.flight.examine import examine_dir
from advisor.flight.settings import (
    DUMP_PREFIX,
    DUMPS_SUBDIR,
    REQUEST_FILE,
    FlightConfig,
    job_dir,
    recorder_env,
    wait_for_dumps,
)
from advisor.interrupts import ctrl_c_held
from advisor.launch.commands import node_commands
from advisor.launch.diagnose import diagnose, external_status
from advisor.launch.plan import LaunchPlan
from advisor.launch.spec import JobSpec, StageSpec
from advisor.launch.supervise import Agents
from advisor.paths import JOBS_DIR, LOGS_DIR
from advisor.results import Record, nodes_that_left, read_records, with_launch_records

POLL_S = 0.2
"""How often the supervisor looks at the agents."""
READ_S = 0.5
"""How often it reads the stage's records (each read parses the stage's file)."""
STOP_RESERVE_S = 1.0
"""A job that reaches a stage's deadline is stopped this long before it, so that the stage, the
stopping of its processes included, ends by its deadline (stopping took 0.8-1.2 s on a loaded
2-core host: mostly the agents' own teardown, which ``supervise.AGENT_TEARDOWN_S`` bounds)."""
CLOCK_SKEW_S = 10.0
"""Records of a job are written after its launch; older ones in the same file (an earlier run in
the same directory) are not this job's. Nodes' clocks may differ by this much."""


@dataclass(kw_only=True)
class StageRun:
    """A stage, or one job of a driver stage, as a job runs it."""

    stage: str
    params: dict[str, Any]
    """The stage's (or the driver stage's job's) config as plain data."""
    deadline_s: float
    offset: int
    """Port offset of a job that starts with this stage (every node derives the same port)."""
    job: str = ""
    """Job name within a driver stage (``default``, ``t3`` ...)."""

    @property
    def tag(self) -> str:
        return f"{self.stage}-{self.job}" if self.job else self.stage


class Launcher:
    """Starts the jobs of one run and follows their stages."""

    def __init__(
        self,
        plan: LaunchPlan,
        run_dir: Path,
        *,
        pg_timeout_s: float,
        faults: list[dict[str, Any]],
        strict: bool,
        flight: FlightConfig | None = None,
    ) -> None:
        self.plan = plan
        self.run_dir = run_dir
        self.pg_timeout_s = pg_timeout_s
        self.faults = faults
        self.strict = strict
        self.flight = flight if flight is not None and flight.enabled else None
        """The flight recorder in every job (None: off)."""
        self.since_s = plan.peers_since_s()
        """Notes of departed nodes written before this are another run's."""
        # One advisor per node: every node must name a job alike, from its offset alone. One
        # advisor: the name also tells this invocation's jobs from an earlier run's.
        self._token = "" if plan.one_per_node else f"-{os.getpid()}"
        self._count = itertools.count(1)
        self._retiring: list[_Job] = []
        """Jobs whose every stage ended, their agents exiting on their own (``settle``)."""

    def run(
        self,
        runs: list[StageRun],
        *,
        plan: LaunchPlan | None = None,
        env: dict[str, str] | None = None,
        entry: list[str] | None = None,
    ) -> Generator[StageFacts, None, None]:
        """Run ``runs`` in order in as few jobs as failures allow; yield each stage's outcome as
        soon as it is known (closing the generator stops the job).

        ``plan`` runs them on another world (a scaling run); ``env`` adds variables for these
        jobs only; ``entry`` runs that argv on every rank instead of the advisor's worker (a
        user's own training command: one run, judged by the agents' exit codes alone).
        """
        pending = list(runs)
        while pending:
            # A job never starts beside the teardown of another: its start-up and timings are
            # its own.
            self.settle()
            job: _Job | None = None
            retiring = False
            try:
                # A Ctrl-C as the agents start would leave them running with no one to stop them:
                # it is raised once the job is held here, and the finally below stops it.
                with ctrl_c_held():
                    job = _Job(self, pending, plan or self.plan, env or {}, entry)
                for index, run in enumerate(pending):
                    sf = job.follow(run, first=index == 0)
                    yield sf
                    if sf.status != "ok":
                        pending = pending[index + 1 :]
                        break
                else:
                    pending = []
                    retiring = True
            finally:
                if job is not None and retiring:
                    self._retiring.append(job)
                elif job is not None:
                    job.stop()

    def settle(self) -> None:
        """Wait for the jobs whose stages all ended to exit on their own (a grace each, then
        stopped). Until then their agents exit while the run goes on: the last job's teardown,
        most of a second, overlaps the rules and the report. Called before each job starts and
        by ``close``."""
        while self._retiring:
            job = self._retiring.pop(0)
            try:
                job.finish()
            finally:
                job.stop()

    def close(self) -> None:
        """The run is over: no process of any of its jobs is left running after this."""
        self.settle()

    def run_one(self, run: StageRun, **kw: Any) -> StageFacts:
        """One stage (or one job of a driver stage) to completion or deadline."""
        return next(iter(self.run([run], **kw)))

    def launch_id(self, run: StageRun) -> str:
        return (
            f"L{run.offset}{self._token}.{next(self._count)}" if self._token else f"L{run.offset}"
        )


class _Job:
    """One launched job: its agents, and what its ranks have recorded."""

    def __init__(
        self,
        launcher: Launcher,
        runs: list[StageRun],
        plan: LaunchPlan,
        env: dict[str, str],
        entry: list[str] | None,
    ) -> None:
        self.launcher = launcher
        self.plan = plan
        self.entry = entry
        self.run_dir = launcher.run_dir
        first = runs[0]
        self.launch = launcher.launch_id(first)
        self.launched_at = self.mark = time.time()
        self.t0 = time.monotonic()
        # A collective must fail before the stage's deadline so the rank can report it.
        pg_timeout_s = max(5.0, min(launcher.pg_timeout_s, min(r.deadline_s for r in runs) - 5.0))
        spec_path = self.run_dir / JOBS_DIR / f"{self.launch}.json"
        self.flight = launcher.flight
        self.flight_dir = job_dir(self.run_dir, self.launch)
        self.requested_at: float | None = None
        if self.flight is not None and plan.primary:
            # a launch id repeats when one advisor per node reruns in the same directory: an
            # earlier run's dumps (a rank that died then) must not stand in for this job's
            shutil.rmtree(self.flight_dir, ignore_errors=True)
        if self.flight is not None:
            # the backend's own dump-on-timeout (nccl, hccl) writes where the advisor's does
            prefix = str(self.flight_dir / DUMPS_SUBDIR / DUMP_PREFIX)
            env = {
                **recorder_env(plan.cluster.backend, self.flight.buffer_entries, prefix),
                **env,
            }
        if entry is None:
            JobSpec(
                launch=self.launch,
                stages=[StageSpec(stage=r.stage, params=r.params, job=r.job) for r in runs],
                run_dir=str(self.run_dir),
                cluster=plan.cluster.to_dict(),
                pg_timeout_s=pg_timeout_s,
                launched_at=self.launched_at,
                faults=launcher.faults,
                strict=launcher.strict,
                flight=self.flight is not None,
                flight_wait_s=self.flight.dump_wait_s if self.flight else 0.0,
            ).write(spec_path)
        log_dir = self.run_dir / LOGS_DIR / first.stage
        if first.job:
            log_dir /= first.job
        commands = node_commands(
            plan,
            plan.port(first.offset),
            spec_path,
            rdzv_id=f"{self.run_dir.name}-{self.launch}",
            log_dir=log_dir,
            extra_env=env,
            entry=entry,
        )
        self.agents: Agents | None = None
        self.start_error = ""
        try:
            self.agents = Agents(commands, plan.launcher.kill_grace_s)
        except FileNotFoundError as e:
            self.start_error = f"could not start the agent: {e} (is it installed on every node?)"

    def records(self, run: StageRun) -> list[Record]:
        since = self.launched_at - CLOCK_SKEW_S
        return [
            r
            for r in read_records(self.run_dir, run.stage)
            if r.job == run.job and r.launch == self.launch and r.t_wall_s >= since
        ]

    def follow(self, run: StageRun, *, first: bool) -> StageFacts:
        """Wait for this stage to end in the job; its outcome (the job is stopped on failure)."""
        # The job runs ahead of its supervisor: a stage's span is measured by the ranks' own
        # records, from the previous stage's last "done" (the launch, for the first stage).
        started = self.launched_at if first else self.mark
        sf = StageFacts(
            name=run.tag,
            status="ok",
            started_at=started,
            deadline_s=run.deadline_s,
            launch=self.launch,
        )
        if self.agents is None:
            sf.status, sf.reason = "error", self.start_error
            return _finished(sf)
        end = (self.t0 if first else time.monotonic()) + max(
            run.deadline_s - STOP_RESERVE_S, run.deadline_s / 2
        )
        grace = self.plan.launcher.kill_grace_s
        world = self.plan.cluster.world_size
        failed = done = False
        left = ""
        next_read = 0.0
        shown = 0.0
        while True:
            self.agents.watch()
            now = time.monotonic()
            if now >= next_read and self.entry is None:
                next_read = now + READ_S
                recs = self.records(run)
                shown = _show_progress(recs, shown)
                done = len({r.rank for r in recs if r.step == "done"}) >= world
                if done:
                    break
                if not failed and any(r.status == "error" for r in recs):
                    # a rank reported its error: its peers get a short grace to report theirs
                    failed, end = True, min(end, now + 3 * grace)
                    self.request_dumps(run)
            if self.plan.one_per_node:
                left = nodes_that_left(self.run_dir, self.plan.local_nodes, self.launcher.since_s)
                if left:
                    break
            if not failed and self.agents.failed:
                # a failed agent leaves the others waiting at a rendezvous or in a collective
                failed, end = True, min(end, now + 3 * grace)
                self.request_dumps(run)
            if self.flight is not None and now >= end - self.flight.dump_wait_s:
                # near the deadline: the buffers are taken while the ranks still hold them
                self.request_dumps(run)
            if self.agents.all_exited:
                break
            if now >= end:
                break
            time.sleep(POLL_S)
        timed_out = not done and not failed and not left and time.monotonic() >= end
        if self.entry is not None:
            self.stop()
            ended = time.time()
            sf.status, sf.reason = external_status(
                run.tag, run.deadline_s, self.agents.results(), timed_out
            )
            if left:
                sf.status, sf.reason = "failed", f"{run.tag} stopped: {left}"
            dumps = self.flight_dir / DUMPS_SUBDIR
            if sf.status != "ok" and self.flight is not None and dumps.is_dir():
                # the user's ranks dumped on their own (the backend's dump on time-out)
                sf.flight = examine_dir(
                    dumps,
                    source=run.tag,
                    world=range(world),
                    timeline_entries=self.flight.timeline_entries,
                )
                if sf.flight.summary.startswith("flight recorder"):
                    sf.reason = f"{sf.reason}; {sf.flight.summary}"
            return _finished(sf, ended)
        if not done:
            self.await_dumps()
            self.stop()
        # The stage ends with its job; reading its records and dumps after is the supervisor's
        # own time (the first analysis in a run imports torch's analyzer: a second or more).
        ended = time.time()
        own = self.records(run)
        dones = [r for r in own if r.step == "done"]
        if len({r.rank for r in dones}) >= world:
            self.mark = max(r.t_wall_s for r in dones)
        recs = with_launch_records(self.run_dir, own, self.launch)
        sf.ranks, reason = diagnose(
            run.tag, self.plan.cluster, recs, self.agents.results(), timed_out
        )
        all_done = bool(sf.ranks) and all(o.state == "ok" for o in sf.ranks)
        if not all_done and self.flight is not None and self.requested_at is not None:
            sf.flight = examine_dir(
                self.flight_dir / DUMPS_SUBDIR,
                source=run.tag,
                world=range(world),
                where={o.rank: (o.node_name, o.host) for o in sf.ranks},
                timeline_entries=self.flight.timeline_entries,
            )
            if sf.flight.summary.startswith("flight recorder"):
                reason = f"{reason}; {sf.flight.summary}" if reason else sf.flight.summary
        if left:
            # The peer's own reason, not "its ranks never started": the cause is on that node.
            sf.status, sf.reason = "failed", f"{run.tag} stopped: {left}"
        elif all_done:
            sf.status = "ok"
            sf.duration_s = self.mark - started
            return sf
        elif timed_out:
            sf.status = "timeout"
            sf.reason = reason or f"{run.tag} reached its deadline ({run.deadline_s:.0f} s)"
        else:
            sf.status = "failed"
            codes = {a.node: a.returncode for a in self.agents.results()}
            sf.reason = reason or f"{run.tag} failed: agent exit codes {codes}"
        return _finished(sf, ended)

    def request_dumps(self, run: StageRun) -> None:
        """Ask every rank of the job for its flight-recorder buffer (once per job)."""
        if self.flight is None or self.requested_at is not None or self.entry is not None:
            return
        self.flight_dir.mkdir(parents=True, exist_ok=True)
        (self.flight_dir / REQUEST_FILE).write_text(run.tag, encoding="utf-8")
        self.requested_at = time.monotonic()

    def await_dumps(self) -> None:
        """Give the live ranks ``flight.dump_wait_s`` from the request to write their dumps
        (every rank's dump there ends the wait early; a dead rank never writes one)."""
        if self.flight is None or self.requested_at is None or self.agents is None:
            return
        until = self.requested_at + self.flight.dump_wait_s
        if not self.agents.all_exited:
            wait_for_dumps(self.flight_dir / DUMPS_SUBDIR, self.plan.cluster.world_size, until)

    def finish(self) -> None:
        """Every stage is done: the agents exit on their own; give them a grace, not a deadline
        (a loaded host can stretch the teardown)."""
        if self.agents is None:
            return
        end = time.monotonic() + 2 * self.plan.launcher.kill_grace_s
        while not self.agents.all_exited and time.monotonic() < end:
            self.agents.watch()
            time.sleep(POLL_S)

    def stop(self) -> None:
        if self.agents is not None:
            self.agents.stop()


def _show_progress(records: list[Record], shown_at: float) -> float:
    """Print the newest ``progress`` record a stage wrote since ``shown_at`` (a long stage, the
    soak, says how far it is); returns the time of the last one shown."""
    latest = max(
        (r for r in records if r.step == "progress" and r.t_wall_s > shown_at),
        key=lambda r: r.t_wall_s,
        default=None,
    )
    if latest is None:
        return shown_at
    console.progress(str(latest.metrics.get("text", "")))
    return latest.t_wall_s


def _finished(sf: StageFacts, ended: float | None = None) -> StageFacts:
    """``sf`` with its duration: to ``ended`` (when its job was stopped), else to now."""
    sf.duration_s = (ended if ended is not None else time.time()) - sf.started_at
    return sf
