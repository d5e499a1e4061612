"""One run: resolve the cluster, run the planned stages, assemble facts, write every output.

Facts are written after every stage, so an interrupted or failing run keeps what it measured.
``advisor report RUN_DIR`` rebuilds the same facts from the stored results without re-measuring.
"""

from __future__ import annotations

import json
import os
import platform
import socket
import time
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING, Any

import psutil
from omegaconf import OmegaConf

from advisor import __version__, backends, capacity, console, outputs, results, stages
from advisor.cluster import Cluster, resolve
from advisor.config import AdvisorConfig, to_typed
from advisor.context import HostContext
from advisor.driver import DriverContext, job_params
from advisor.errors import ConfigError
from advisor.evidence import command as evidence_command
from advisor.evidence.command import print_files
from advisor.evidence.load import EvidenceFacts, from_tool_outputs
from advisor.evidence.load import load_paths as load_evidence
from advisor.facts import (
    ClusterFacts,
    EnvironmentFacts,
    Facts,
    RunInfo,
    StageFacts,
    TunerConfigFacts,
)
from advisor.interrupts import ctrl_c_held
from advisor.launch.jobs import Launcher, StageRun
from advisor.launch.plan import LaunchPlan
from advisor.launch.starts import summarize_launches
from advisor.paths import EVIDENCE_FILE, FACTS_FILE, RUN_FILE, STAGES_FILE, results_dir
from advisor.results import append_line, read_jsonl, read_records, with_launch_records
from advisor.rules.apply import check as check_rules
from advisor.tuner import formats as tuner_formats
from advisor.verdict import BAD_STAGE_STATUSES

if TYPE_CHECKING:
    from advisor.probes.preflight import PreflightFacts

ENV_PREFIXES = ("HCCL_", "NCCL_", "GLOO_", "TORCH_", "MASTER_", "ASCEND_", "CUDA_VISIBLE", "OMP_")


def environment_facts(cfg: AdvisorConfig, plan: LaunchPlan) -> EnvironmentFacts:
    """This host, its software, and the communication variables the jobs run with."""
    cluster = plan.cluster
    variables = {k: v for k, v in plan.job_env().items() if k.startswith(ENV_PREFIXES)}
    return EnvironmentFacts(
        host=socket.gethostname(),
        platform=platform.platform(),
        cpu_count=os.cpu_count() or 0,
        memory_gib=round(psutil.virtual_memory().total / 2**30, 1),
        versions=backends.versions(cluster.device_type),
        variables=dict(sorted(variables.items())),
        tuner_configs=tuner_configs(variables, cluster),
    )


TUNER_CONFIG_VARS = {"NCCL_TUNER_CONFIG_FILE": "nccl", "HCCL_TUNER_CONFIG_FILE": "hccl"}


def tuner_configs(variables: dict[str, str], cluster: Cluster) -> list[TunerConfigFacts]:
    """Each tuner config the jobs' environment names, read on this host and checked for the
    job's node and rank counts (a plugin that misreads it would quietly run untuned)."""
    out = []
    for var, fmt in TUNER_CONFIG_VARS.items():
        if var not in variables:
            continue
        entry = TunerConfigFacts(variable=var, path=variables[var])
        try:
            text = Path(variables[var]).expanduser().read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as e:
            entry.errors.append(f"file: cannot read it on {socket.gethostname()} ({e})")
            out.append(entry)
            continue
        checked = tuner_formats.check(
            text, variables[var], nodes=cluster.nodes, ranks=cluster.world_size
        )
        entry.format, entry.rules = checked.format, len(checked.rules)
        if checked.format != fmt:
            entry.errors.append(f"file: {var} names a {checked.format} config, not a {fmt} one")
        for problem in checked.problems:
            line = f"{problem.where}: {problem.field}: {problem.message}"
            (entry.errors if problem.severity == "error" else entry.warnings).append(line)
        out.append(entry)
    return out


def planned(cfg: AdvisorConfig) -> list[str]:
    """Stages to run, in registry order, as the profile and overrides enable them."""
    return [n for n in stages.names() if getattr(cfg.stages, n).enabled]


def check_plan(cfg: AdvisorConfig, cluster: Cluster) -> None:
    """Refuse, before any job starts, settings the cluster's backend would refuse at run time."""
    problems = []
    for name in planned(cfg):
        stage = stages.get(name)
        if stage.check is not None:
            problems += stage.check(getattr(cfg.stages, name), cluster)
    if problems:
        raise ConfigError(
            f"cluster {cluster.name!r} ({cluster.declared_device}/"
            f"{backends.BACKEND_OF[cluster.declared_device]}) cannot run these settings: "
            + "; ".join(problems)
        )


def summarize(
    stage: stages.Stage, sf: StageFacts, run_dir: Path, cluster: Cluster, params: Any
) -> None:
    """Fill ``sf.data`` from whatever records exist (after the start records of the launch that
    ran it); a summariser bug never loses the outcome."""
    records = with_launch_records(run_dir, read_records(run_dir, stage.name), sf.launch)
    try:
        sf.data = stage.summarize(records, cluster, params)
    except Exception as e:
        sf.data = None
        note = f"summary failed: {type(e).__name__}: {e}"
        sf.reason = f"{sf.reason}; {note}" if sf.reason else note
        if sf.status == "ok":
            sf.status = "error"


def with_live_tools(
    imported: EvidenceFacts | None, preflight: PreflightFacts | None
) -> EvidenceFacts | None:
    """The run's evidence: files the user imported, and what the host tools (npu-smi,
    hccn_tool, nvidia-smi) printed during preflight, read by the same parsers and rules."""
    nodes = {name: node.tools for name, node in preflight.nodes.items()} if preflight else {}
    live = from_tool_outputs(nodes)
    if live == EvidenceFacts():
        return imported
    merged = EvidenceFacts()
    if imported is not None:
        merged.extend(imported)
    merged.extend(live)
    return merged


def run_host_stage(
    stage: stages.Stage,
    cfg: AdvisorConfig,
    plan: LaunchPlan,
    run_dir: Path,
    params: Any,
) -> StageFacts:
    """Run a host stage for each node this process speaks for."""
    assert stage.run_host is not None
    started = time.time()
    errors = []
    for node in plan.local_nodes:
        ctx = HostContext(
            stage=stage.name,
            run_dir=run_dir,
            cluster=plan.cluster,
            node=node,
            params=params,
            cfg=cfg,
            nodes_here=plan.local_nodes,
        )
        try:
            stage.run_host(ctx, params)
        except Exception as e:
            errors.append(f"node {ctx.node_name}: {type(e).__name__}: {e}")
            ctx.record("error", "error", error=f"{type(e).__name__}: {e}")
    return StageFacts(
        name=stage.name,
        status="failed" if errors else "ok",
        started_at=started,
        duration_s=time.time() - started,
        deadline_s=params.deadline_s,
        reason="; ".join(errors),
    )


def skipped(name: str, reason: str) -> StageFacts:
    return StageFacts(name=name, status="skipped", started_at=time.time(), reason=reason)


def run_driver_stage(
    stage: stages.Stage,
    index: int,
    cfg: AdvisorConfig,
    launcher: Launcher,
    run_dir: Path,
    params: Any,
    done: dict[str, StageFacts] | None = None,
) -> StageFacts:
    """Run a driver stage; its status is the worst of its jobs unless the driver failed itself.

    ``done``: jobs of the stage that already ran in the shared job (their time counts against
    the stage's deadline)."""
    assert stage.drive is not None
    spent_s = sum(sf.duration_s for sf in (done or {}).values())
    started = time.time() - spent_s
    ctx = DriverContext(
        stage=stage.name,
        stage_index=index,
        run_dir=run_dir,
        cluster=launcher.plan.cluster,
        cfg=cfg,
        launcher=launcher,
        deadline_s=params.deadline_s - spent_s,
        done=done,
    )
    status, reason = "ok", ""
    try:
        stage.drive(ctx, params)
    except Exception as e:
        status, reason = "error", f"{stage.name} driver: {type(e).__name__}: {e}"
        ctx.record("error", "error", error=reason)
    if status == "ok" and ctx.time_left_s <= 0:
        status, reason = "timeout", f"{stage.name} reached its deadline ({params.deadline_s:.0f} s)"
    return StageFacts(
        name=stage.name,
        status=status,
        started_at=started,
        duration_s=time.time() - started,
        deadline_s=params.deadline_s,
        reason=reason,
        ranks=[r for o in ctx.outcomes[-1:] for r in o.ranks],
    )


def shared_runs(
    cfg: AdvisorConfig, cluster: Cluster, names: list[str], start: int
) -> list[StageRun]:
    """The stages from ``start`` on that can share one job, in order: job stages, and the first
    job of driver stages that have one (the benchmark's default job)."""
    runs = []
    for index in range(start, len(names)):
        stage = stages.get(names[index])
        params = getattr(cfg.stages, stage.name)
        if stage.kind == "job":
            runs.append(
                StageRun(
                    stage=stage.name,
                    params=job_params(params),
                    deadline_s=params.deadline_s,
                    offset=index * 100,
                )
            )
        elif stage.first_job is not None:
            job, job_config, deadline_s = stage.first_job(params, cluster)
            runs.append(
                StageRun(
                    stage=stage.name,
                    job=job,
                    params=job_params(job_config),
                    deadline_s=deadline_s,
                    offset=index * 100,
                )
            )
        else:
            break
    return runs


class _Session:
    """One run's bookkeeping as stages end: facts, the gate that skips the rest, the console."""

    def __init__(
        self,
        cfg: AdvisorConfig,
        plan: LaunchPlan,
        run_dir: Path,
        facts: Facts,
        imported: EvidenceFacts | None,
    ) -> None:
        self.cfg = cfg
        self.plan = plan
        self.run_dir = run_dir
        self.facts = facts
        self.imported = imported
        self.gate = ""
        """Why the remaining stages are skipped (a gating stage failed, a node left)."""
        self.statuses: list[str] = []
        self.since_s = plan.peers_since_s()  # notes older than this are another run's

    def left(self) -> str:
        return results.nodes_that_left(self.run_dir, self.plan.local_nodes, self.since_s)

    def end(self, stage: stages.Stage, sf: StageFacts) -> None:
        """Record a stage's outcome (facts written at once: an interrupted run keeps them)."""
        with ctrl_c_held():
            self._end(stage, sf)

    def _end(self, stage: stages.Stage, sf: StageFacts) -> None:
        params = getattr(self.cfg.stages, stage.name)
        if stage.gates_run and sf.status != "ok" and getattr(params, "fail_fast", True):
            self.gate = f"skipped: {stage.name} {sf.status}: {sf.reason[:300]}"
            if not self.plan.primary:
                # the other nodes would otherwise wait for this one at their next rendezvous
                reason = f"{stage.name} {sf.status}: {sf.reason[:300]}"
                results.announce_leaving(
                    self.run_dir, self.plan.local_nodes[0], socket.gethostname(), reason
                )
        if not self.gate and stage.kind in ("job", "driver"):
            # a node that left while this stage ran (the stage stopped and said so)
            left = self.left()
            self.gate = f"skipped: {left}" if left else ""
        self.statuses.append(sf.status)
        console.stage_end(sf)
        if not self.plan.primary:
            return
        append_line(results_dir(self.run_dir) / STAGES_FILE, json.dumps(sf.to_dict(), default=str))
        summarize(stage, sf, self.run_dir, self.plan.cluster, params)
        self.facts.stages[stage.name] = sf
        if stage.name == "preflight":
            self.facts.evidence = with_live_tools(self.imported, sf.data)
        self.facts.write(self.run_dir / FACTS_FILE)


def run(cfg: AdvisorConfig, run_dir: Path, *, command: str, overrides: list[str]) -> int:
    """The main job. Returns the exit code: 0 ready, 1 not ready."""
    cluster = resolve(cfg.cluster, emulate=cfg.emulate)
    check_plan(cfg, cluster)
    check_rules(cfg.rules)  # a bad rule file fails now, not after every stage has run
    # Read the evidence before measuring: a wrong path is a usage error, found at once.
    evidence = load_evidence(cfg.evidence) if cfg.evidence else None
    # Validates the launcher settings before anything is measured, and tells which nodes this
    # process speaks for: with launcher=torchrun/env one advisor runs per node and node 0 alone
    # writes the facts and the report.
    plan = LaunchPlan.make(cfg.launcher, cluster, cfg.env)
    # A shape or a buffer this host cannot hold is refused now, not after minutes of starting.
    bench = cfg.stages.bench if "bench" in planned(cfg) else None
    capacity.check(cluster, cfg.launcher.kind, plan.local_nodes, bench)
    run_dir.mkdir(parents=True, exist_ok=True)
    results_dir(run_dir).mkdir(parents=True, exist_ok=True)
    started = time.time()
    facts = Facts(
        run=RunInfo(
            run_id=run_dir.name,
            run_dir=str(run_dir),
            command=command,
            overrides=list(overrides),
            profile=cfg.profile,
            started_at=started,
            emulated=cluster.emulated,
            advisor_version=__version__,
        ),
        cluster=ClusterFacts.of(cluster),
        environment=environment_facts(cfg, plan),
    )
    if plan.primary:
        _write_run_file(run_dir, facts)
    console.banner(cluster, cfg.profile, run_dir)
    if evidence is not None:
        console.out.print(f"evidence: {len(evidence.files)} file(s)")
        print_files(evidence)
        facts.evidence = evidence
        (results_dir(run_dir) / EVIDENCE_FILE).write_text(
            json.dumps(asdict(evidence), indent=2), encoding="utf-8"
        )
    launcher = Launcher(
        plan,
        run_dir,
        pg_timeout_s=cfg.pg_timeout_s,
        faults=[asdict(f) for f in cfg.faults],
        strict=cfg.strict_emulation,
        flight=cfg.flight,
    )
    try:
        return _measure_and_write(cfg, plan, run_dir, facts, evidence, launcher, started)
    finally:
        launcher.close()


def _measure_and_write(
    cfg: AdvisorConfig,
    plan: LaunchPlan,
    run_dir: Path,
    facts: Facts,
    evidence: EvidenceFacts | None,
    launcher: Launcher,
    started: float,
) -> int:
    """Every planned stage, then every output; the exit code."""
    session = _Session(cfg, plan, run_dir, facts, evidence)
    names = planned(cfg)
    index = 0
    try:
        while index < len(names):
            stage = stages.get(names[index])
            params = getattr(cfg.stages, stage.name)
            left = "" if session.gate else session.left()
            if session.gate or (left and stage.kind in ("job", "driver")):
                console.stage_start(index, len(names), stage)
                if session.gate:
                    session.end(stage, skipped(stage.name, session.gate))
                else:
                    # This stage cannot run without that node: it fails (the run is not ready), the
                    # stages after it are skipped with the same reason.
                    failed = StageFacts(name=stage.name, status="failed", started_at=time.time())
                    failed.reason = left
                    session.end(stage, failed)
                    session.gate = f"skipped: {left}"
                index += 1
            elif stage.kind == "host":
                console.stage_start(index, len(names), stage)
                session.end(stage, run_host_stage(stage, cfg, plan, run_dir, params))
                index += 1
            elif runs := shared_runs(cfg, plan.cluster, names, index):
                index = _shared_job(session, launcher, names, index, runs)
            else:
                console.stage_start(index, len(names), stage)
                session.end(stage, run_driver_stage(stage, index, cfg, launcher, run_dir, params))
                index += 1
    except KeyboardInterrupt:
        # Ctrl-C: the job of the stage in progress was stopped on the way out (Launcher.run);
        # what was measured is still written, and the exit code says the run was interrupted.
        _interrupted(session, names)
        if plan.primary:
            _finish(facts, run_dir, started)
            outputs.write_all(facts, cfg, run_dir)
        return INTERRUPTED_EXIT
    if not plan.primary:
        console.plain(f"node {plan.local_nodes[0]} done; node 0 writes the facts and the report")
        return 1 if any(st in BAD_STAGE_STATUSES for st in session.statuses) else 0
    _finish(facts, run_dir, started)
    return outputs.write_all(facts, cfg, run_dir)


INTERRUPTED_EXIT = 130
"""Exit code of an interrupted run: 128 + SIGINT, as a shell reports a process Ctrl-C ended."""


def _interrupted(session: _Session, names: list[str]) -> None:
    """Mark an interrupted run: the first stage that did not end failed with what it recorded,
    the ones after it skipped."""
    session.facts.run.interrupted = True
    console.error("interrupted: writing the facts and the report of what was measured")
    reason = "interrupted (Ctrl-C / SIGINT) while this stage ran; its records so far are kept"
    pending = names[len(session.statuses) :]
    for i, name in enumerate(pending):
        stage = stages.get(name)
        if i == 0:
            sf = StageFacts(name=name, status="failed", started_at=time.time(), reason=reason)
        else:
            sf = skipped(name, "skipped: the run was interrupted before this stage")
        session.end(stage, sf)


def _finish(facts: Facts, run_dir: Path, started: float) -> None:
    facts.run.finished_at = time.time()
    facts.run.duration_s = facts.run.finished_at - started
    facts.launches = summarize_launches(run_dir)
    _write_run_file(run_dir, facts)


def _shared_job(
    session: _Session, launcher: Launcher, names: list[str], index: int, runs: list[StageRun]
) -> int:
    """Run these consecutive stages in one job (a fresh job after a failure), then the drivers
    whose first job ran there. Returns the index of the first stage not yet ended."""
    first_jobs: dict[str, dict[str, StageFacts]] = {}
    ended: set[str] = set()
    console.stage_start(index, len(names), stages.get(runs[0].stage))
    outcomes = launcher.run(runs)
    for position, sf in enumerate(outcomes):
        run = runs[position]
        if run.job:
            first_jobs[run.stage] = {run.job: sf}  # the stage's outcome is its driver's
        else:
            session.end(stages.get(run.stage), sf)
            ended.add(run.stage)
        if session.gate:
            outcomes.close()  # a node left: stop the job; what remains is skipped
            break
        if position + 1 < len(runs):
            following = runs[position + 1].stage
            console.stage_start(names.index(following), len(names), stages.get(following))
    for stage_name, done in first_jobs.items():
        if session.gate:
            break
        stage = stages.get(stage_name)
        params = getattr(session.cfg.stages, stage_name)
        sf = run_driver_stage(
            stage, names.index(stage_name), session.cfg, launcher, session.run_dir, params, done
        )
        session.end(stage, sf)
        ended.add(stage_name)
    position = index
    while position < len(names) and names[position] in ended:
        position += 1
    return position


def _write_run_file(run_dir: Path, facts: Facts) -> None:
    payload = {
        "run": asdict(facts.run),
        "cluster": asdict(facts.cluster),
        "environment": asdict(facts.environment),
    }
    (results_dir(run_dir) / RUN_FILE).write_text(json.dumps(payload, indent=2), encoding="utf-8")


def load_config(run_dir: Path) -> AdvisorConfig:
    path = run_dir / ".hydra" / "config.yaml"
    if not path.exists():
        raise ConfigError(
            f"{run_dir} is not an advisor run directory: {path} is missing "
            "(pass the directory that `advisor run` printed)."
        )
    return to_typed(OmegaConf.load(path))  # type: ignore[arg-type]


def rebuild_facts(run_dir: Path, cfg: AdvisorConfig) -> Facts:
    """Facts from the stored results alone: run.json, stages.jsonl and each stage's records."""
    run_file = results_dir(run_dir) / RUN_FILE
    if not run_file.exists():
        raise ConfigError(f"{run_file} is missing: the run never started measuring.")
    stored = json.loads(run_file.read_text(encoding="utf-8"))
    evidence_file = results_dir(run_dir) / EVIDENCE_FILE
    if evidence_file.exists():
        stored["evidence"] = json.loads(evidence_file.read_text(encoding="utf-8"))
    rows = {row["name"]: row for row in read_jsonl(results_dir(run_dir) / STAGES_FILE)}
    base = Facts.from_dict({**stored, "stages": rows}, source=str(results_dir(run_dir)))
    for name in stages.names():
        cut = [] if name in base.stages else read_records(run_dir, name)
        if cut:
            # The run was stopped (interrupted) inside this stage before its outcome was written:
            # what its ranks recorded so far is still summarised (a soak's first half hour).
            base.stages[name] = StageFacts(
                name=name,
                status="failed",
                started_at=min(r.t_wall_s for r in cut),
                duration_s=max(r.t_wall_s for r in cut) - min(r.t_wall_s for r in cut),
                reason=f"{name} was interrupted: summarised from the records written before",
                launch=cut[0].launch,
            )
    imported = base.evidence
    cluster = base.cluster.to_cluster()
    for sf in base.stages.values():
        if sf.name in stages.STAGE_MODULES:
            summarize(stages.get(sf.name), sf, run_dir, cluster, getattr(cfg.stages, sf.name))
        if sf.name == "preflight":
            base.evidence = with_live_tools(imported, sf.data)
    base.launches = summarize_launches(run_dir)
    return base


def rerender(run_dir: Path) -> int:
    """``advisor report RUN_DIR``: every output again from stored results, nothing re-measured."""
    if not (run_dir / ".hydra").exists() and (results_dir(run_dir) / EVIDENCE_FILE).exists():
        return evidence_command.rerender(run_dir)  # written by `advisor import`, not by a Hydra run
    cfg = load_config(run_dir)
    facts = rebuild_facts(run_dir, cfg)
    facts.write(run_dir / FACTS_FILE)
    return outputs.write_all(facts, cfg, run_dir)
