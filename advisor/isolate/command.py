"""``advisor isolate RUN_DIR``: run the isolate stage on a finished run, then re-render it.

The run's own config says how to reach the nodes (cluster, launcher, environment); the stage
reads the run's facts to see what failed. An isolation already in the run is kept beside the new
one (its records renamed, never deleted).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from advisor import console, outputs, stages
from advisor.errors import ConfigError
from advisor.facts import Facts
from advisor.launch.jobs import Launcher
from advisor.launch.plan import LaunchPlan
from advisor.paths import FACTS_FILE, STAGES_FILE, results_dir
from advisor.results import append_line, stage_file
from advisor.runner import load_config, rebuild_facts, run_driver_stage

STAGE = "isolate"


def main(args: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="advisor isolate",
        description="find the node, NIC or link behind a finished run's failed or slow stage",
    )
    parser.add_argument("run_dir", type=Path, help="the directory `advisor run` printed")
    parser.add_argument(
        "--force", action="store_true", help="isolate even when no stage failed or ran slow"
    )
    parser.add_argument(
        "--job-deadline-s", type=float, default=None, help="deadline of each isolation job"
    )
    ns = parser.parse_args(args)
    run_dir: Path = ns.run_dir.resolve()
    cfg = load_config(run_dir)
    facts_path = run_dir / FACTS_FILE
    if not facts_path.exists():
        raise ConfigError(
            f"{facts_path} is missing: run `advisor report {run_dir}` first to rebuild it."
        )
    params = cfg.stages.isolate
    params.enabled = True
    params.force = params.force or ns.force
    if ns.job_deadline_s is not None:
        if ns.job_deadline_s <= 0:
            raise ConfigError("--job-deadline-s must be above 0 seconds.")
        params.job_deadline_s = ns.job_deadline_s
    cluster = Facts.read(facts_path).cluster.to_cluster()
    plan = LaunchPlan.make(cfg.launcher, cluster, cfg.env)
    old = stage_file(run_dir, STAGE)
    if old.exists():
        old.rename(old.with_name(f"{old.stem}.before-{int(time.time())}{old.suffix}"))
    launcher = Launcher(
        plan,
        run_dir,
        pg_timeout_s=cfg.pg_timeout_s,
        faults=[],
        strict=cfg.strict_emulation,
        flight=cfg.flight,
    )
    stage = stages.get(STAGE)
    console.plain(f"isolate: {run_dir} ({cluster.nodes} nodes)")
    try:
        sf = run_driver_stage(stage, stages.names().index(STAGE), cfg, launcher, run_dir, params)
    finally:
        launcher.close()
    append_line(results_dir(run_dir) / STAGES_FILE, json.dumps(sf.to_dict(), default=str))
    facts = rebuild_facts(run_dir, cfg)
    facts.write(facts_path)
    data = facts.summary(STAGE)
    if data is not None:
        console.plain(f"isolate: {data.summary or data.note}")
    return outputs.write_all(facts, cfg, run_dir)
