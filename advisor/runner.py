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

from advisor import __version__, backends, console, launch, outputs, results, stages
from advisor.cluster import Cluster, resolve
from advisor.config import AdvisorConfig, to_typed
from advisor.errors import ConfigError
from advisor.evidence.load import EvidenceFacts, from_tool_outputs
from advisor.evidence.load import load_paths as load_evidence
from advisor.facts import ClusterFacts, EnvironmentFacts, Facts, RunInfo, StageFacts
from advisor.results import STAGES_FILE, append_line, read_jsonl, read_records, results_dir
from advisor.worker import HostContext

if TYPE_CHECKING:
    from advisor.probes.preflight import PreflightFacts

RUN_FILE = "run.json"
"""Run-level facts measured once (run info, cluster, environment), beside the stage results."""

ENV_PREFIXES = ("HCCL_", "NCCL_", "GLOO_", "TORCH_", "MASTER_", "ASCEND_", "CUDA_VISIBLE", "OMP_")


def environment_facts(cfg: AdvisorConfig, cluster: Cluster) -> EnvironmentFacts:
    variables = {k: v for k, v in os.environ.items() if k.startswith(ENV_PREFIXES)}
    variables.update(cfg.env)
    for var, value in backends.interface_env(cluster.device_type, cluster.interface).items():
        if var not in cfg.env:  # a variable the run's env sets explicitly stays as given
            variables[var] = value
    return EnvironmentFacts(
        host=socket.gethostname(),
        platform=platform.platform(),
        cpu_count=os.cpu_count() or 0,
        memory_gib=round(psutil.virtual_memory().total / 2**30, 1),
        versions=backends.versions(cluster.device_type),
        variables=dict(sorted(variables.items())),
    )


def plan(cfg: AdvisorConfig) -> list[str]:
    """Stages to run, in registry order, as the profile and overrides enable them."""
    return [n for n in stages.names() if getattr(cfg.stages, n).enabled]


def check_plan(cfg: AdvisorConfig, cluster: Cluster) -> None:
    """Refuse, before any job starts, settings the cluster's backend would refuse at run time."""
    problems = []
    for name in plan(cfg):
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
    """Fill ``sf.data`` from whatever records exist; a summariser bug never loses the outcome."""
    try:
        sf.data = stage.summarize(read_records(run_dir, stage.name), cluster, params)
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
    cluster: Cluster,
    run_dir: Path,
    params: Any,
    nodes: list[int],
) -> StageFacts:
    """Run a host stage for each node this process speaks for."""
    assert stage.run_host is not None
    started = time.time()
    errors = []
    for node in nodes:
        ctx = HostContext(
            stage=stage.name,
            run_dir=run_dir,
            cluster=cluster,
            node=node,
            params=params,
            cfg=cfg,
            nodes_here=nodes,
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
    cluster: Cluster,
    run_dir: Path,
    params: Any,
) -> StageFacts:
    """Run a driver stage; its status is the worst of its jobs unless the driver failed itself."""
    from advisor.driver import DriverContext

    assert stage.drive is not None
    started = time.time()
    ctx = DriverContext(
        stage=stage.name,
        stage_index=index,
        run_dir=run_dir,
        cluster=cluster,
        cfg=cfg,
        deadline_s=params.deadline_s,
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


def run(cfg: AdvisorConfig, run_dir: Path, *, command: str, overrides: list[str]) -> int:
    """The main job. Returns the exit code: 0 ready, 1 not ready."""
    from advisor import rules

    cluster = resolve(cfg.cluster, emulate=cfg.emulate)
    check_plan(cfg, cluster)
    rules.check(cfg.rules)  # a bad rule file fails now, not after every stage has run
    # Read the evidence before measuring: a wrong path is a usage error, found at once.
    evidence = load_evidence(cfg.evidence) if cfg.evidence else None
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
        environment=environment_facts(cfg, cluster),
    )
    # Validates the launcher settings before anything is measured, and tells which nodes this
    # process speaks for: with launcher=torchrun/env one advisor runs per node and node 0 alone
    # writes the facts and the report.
    local_nodes = launch.plan_topology(cfg.launcher, cluster, 0, dict(os.environ)).local_nodes
    primary = 0 in local_nodes or cfg.launcher.kind == "slurm"
    if primary:
        _write_run_file(run_dir, facts)
    console.banner(cluster, cfg.profile, run_dir)
    if evidence is not None:
        from advisor.evidence.command import EVIDENCE_FILE, print_files

        console.out.print(f"evidence: {len(evidence.files)} file(s)")
        print_files(evidence)
        facts.evidence = evidence
        (results_dir(run_dir) / EVIDENCE_FILE).write_text(
            json.dumps(asdict(evidence), indent=2), encoding="utf-8"
        )
    names = plan(cfg)
    node_statuses: list[str] = []
    gate = ""
    """Set when a gating stage (preflight) failed: why the remaining stages are skipped."""
    since_s = launch.peers_since_s(cfg.launcher)  # notes older than this are another run's
    for index, name in enumerate(names):
        stage = stages.get(name)
        params = getattr(cfg.stages, name)
        console.stage_start(index, len(names), stage)
        left = "" if gate else results.nodes_that_left(run_dir, local_nodes, since_s)
        if left and stage.kind in ("job", "driver"):
            # This stage cannot run without that node: it fails (the run is not ready), the
            # stages after it are skipped with the same reason.
            sf = StageFacts(name=name, status="failed", started_at=time.time(), reason=left)
            gate = f"skipped: {left}"
        elif gate:
            sf = skipped(name, gate)
        elif stage.kind == "job":
            sf = launch.run_job_stage(
                stage=name,
                port_offset=index * 100,
                run_dir=run_dir,
                cluster=cluster,
                launcher=cfg.launcher,
                params=OmegaConf.to_container(OmegaConf.structured(params)),  # type: ignore[arg-type]
                deadline_s=params.deadline_s,
                pg_timeout_s=cfg.pg_timeout_s,
                faults=[asdict(f) for f in cfg.faults],
                extra_env=dict(cfg.env),
                strict=cfg.strict_emulation,
            )
        elif stage.kind == "driver":
            sf = run_driver_stage(stage, index, cfg, cluster, run_dir, params)
        else:
            sf = run_host_stage(stage, cfg, cluster, run_dir, params, local_nodes)
        if stage.gates_run and sf.status != "ok" and getattr(params, "fail_fast", True):
            gate = f"skipped: {name} {sf.status}: {sf.reason[:300]}"
            if not primary:
                # the other nodes would otherwise wait for this one at their next rendezvous
                reason = f"{name} {sf.status}: {sf.reason[:300]}"
                results.announce_leaving(run_dir, local_nodes[0], socket.gethostname(), reason)
        if not gate and stage.kind in ("job", "driver"):
            # a node that left while this stage ran (the stage stopped and said so)
            left = results.nodes_that_left(run_dir, local_nodes, since_s)
            gate = f"skipped: {left}" if left else ""
        if not primary:
            console.stage_end(sf)
            node_statuses.append(sf.status)
            continue
        append_line(results_dir(run_dir) / STAGES_FILE, json.dumps(sf.to_dict(), default=str))
        summarize(stage, sf, run_dir, cluster, params)
        facts.stages[name] = sf
        if name == "preflight":
            facts.evidence = with_live_tools(evidence, sf.data)
        facts.write(run_dir / "facts.json")
        console.stage_end(sf)
    if not primary:
        console.plain(f"node {local_nodes[0]} done; node 0 writes the facts and the report")
        return 1 if any(st in ("failed", "timeout", "error") for st in node_statuses) else 0
    facts.run.finished_at = time.time()
    facts.run.duration_s = facts.run.finished_at - started
    _write_run_file(run_dir, facts)
    return outputs.write_all(facts, cfg, run_dir)


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
    evidence_file = results_dir(run_dir) / "evidence.json"
    if evidence_file.exists():
        stored["evidence"] = json.loads(evidence_file.read_text(encoding="utf-8"))
    rows = {row["name"]: row for row in read_jsonl(results_dir(run_dir) / STAGES_FILE)}
    base = Facts.from_dict({**stored, "stages": rows}, source=str(results_dir(run_dir)))
    imported = base.evidence
    cluster = base.cluster.to_cluster()
    for sf in base.stages.values():
        if sf.name in stages.STAGE_MODULES:
            summarize(stages.get(sf.name), sf, run_dir, cluster, getattr(cfg.stages, sf.name))
        if sf.name == "preflight":
            base.evidence = with_live_tools(imported, sf.data)
    return base


def rerender(run_dir: Path) -> int:
    """``advisor report RUN_DIR``: every output again from stored results, nothing re-measured."""
    if not (run_dir / ".hydra").exists() and (results_dir(run_dir) / "evidence.json").exists():
        from advisor.evidence import command

        return command.rerender(run_dir)  # written by `advisor import`, not by a Hydra run
    cfg = load_config(run_dir)
    facts = rebuild_facts(run_dir, cfg)
    facts.write(run_dir / "facts.json")
    return outputs.write_all(facts, cfg, run_dir)
