"""The rank entry point, started by torchrun's elastic agent for every job.

``python -m advisor.worker --spec <run_dir>/jobs/<launch>.json``: binds the device, initialises the
process group once with the run's backend and timeout, runs the job's stages in order, and
appends JSON-lines records as it goes (see ``advisor.results``), so whatever happens later, what
was measured is on disk: the launch's own records (start, init) in ``results/launches.jsonl``,
each stage's in its own file.
"""

from __future__ import annotations

import argparse
import os
import socket
import sys
import time
import traceback
from datetime import timedelta
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from advisor import backends, faults, stages
from advisor.cluster import Cluster
from advisor.context import Recorder
from advisor.launch.spec import JobSpec, StageSpec
from advisor.results import LAUNCHES


def typed_params(stage: stages.Stage, params: dict[str, Any], *, job: bool = False) -> Any:
    """Rebuild the stage's (or, for a driver stage's job, the job's) typed config from JSON."""
    kind = stage.job_config_type if job and stage.job_config_type else stage.config_type
    base = OmegaConf.structured(kind)
    return OmegaConf.to_object(OmegaConf.merge(base, params))


class RankContext(Recorder):
    """Everything a job stage's ``run_rank`` needs about its rank, and how to report."""

    def __init__(self, spec: JobSpec, *, env: dict[str, str] | os._Environ[str]) -> None:
        self.spec = spec
        self.launch_id = spec.launch
        self.stage = LAUNCHES
        self.job = ""
        self.run_dir = Path(spec.run_dir)
        self.cluster = Cluster.from_dict(spec.cluster)
        self.rank = int(env["RANK"])
        self.world_size = int(env["WORLD_SIZE"])
        self.local_rank = int(env["LOCAL_RANK"])
        self.local_world_size = int(env.get("LOCAL_WORLD_SIZE", self.cluster.devices_per_node))
        self.node = int(env.get("GROUP_RANK", self.rank // max(self.local_world_size, 1)))
        self.node_name = env.get("ADVISOR_NODE_NAME") or self.cluster.node_name(self.node)
        self.host = socket.gethostname()
        self.backend = self.cluster.backend
        self.device: Any = None
        self._faults = [faults.FaultConfig(**f) for f in spec.faults]
        self._first_step_seen = False

    def begin(self, stage: StageSpec) -> None:
        """Report as ``stage`` from now on (its records, its faults)."""
        self.stage, self.job = stage.stage, stage.job
        self._first_step_seen = False

    @property
    def num_nodes(self) -> int:
        return self.cluster.nodes

    def sync(self) -> None:
        """Synchronise the device (call before reading the clock after device work)."""
        backends.synchronize(self.device)

    def node_of(self, rank: int) -> int:
        return self.cluster.node_of(rank)


def run(spec: JobSpec) -> int:
    """Start the process group once, then run every stage of the job in order.

    Each stage ends with a ``done`` record and the groups it created destroyed; a stage that
    raises ends the job (the supervisor diagnoses it and starts the remaining stages afresh).
    """
    import torch.distributed as dist

    from advisor import comm
    from advisor.flight.dump import Dumper

    ctx = RankContext(spec, env=os.environ)
    dumper: Dumper | None = None
    ctx.record(
        "start",
        pid=os.getpid(),
        since_launch_s=time.time() - spec.launched_at,
        device=ctx.cluster.device_type,
        stages=[s.stage for s in spec.stages],
    )
    try:
        with ctx.step("init") as m:
            ctx.device = backends.set_device(ctx.cluster.device_type, ctx.local_rank)
            t0 = time.perf_counter()
            dist.init_process_group(
                backend=ctx.backend, timeout=timedelta(seconds=spec.pg_timeout_s)
            )
            m["init_s"] = time.perf_counter() - t0
            declared = backends.BACKEND_OF[ctx.cluster.declared_device]
            m["strict"] = comm.setup(
                declared_backend=declared,
                strict=spec.strict and ctx.cluster.emulated,
                chip=ctx.cluster.chip,
                device=ctx.device,
            ).strict
        if spec.flight:
            dumper = Dumper(
                run_dir=ctx.run_dir,
                launch=spec.launch,
                rank=ctx.rank,
                where=(ctx.node_name, ctx.host),
            )
            dumper.start()
        for stage_spec in spec.stages:
            ctx.begin(stage_spec)
            stage = stages.get(stage_spec.stage)
            assert stage.run_rank is not None, f"stage {stage.name} runs no ranks"
            params = typed_params(stage, stage_spec.params, job=bool(stage_spec.job))
            stage.run_rank(ctx, params)
            # Each group holds communicator memory (2 x HCCL_BUFFSIZE on HCCL): freed before the
            # next stage, on the healthy path only (a failed job is stopped, and a destroy could
            # wait on a peer that is gone).
            comm.end_stage()
            ctx.record("done")
    except Exception as e:
        if dumper is not None:
            # before the error is reported: the supervisor then asks the others for theirs
            dumper.dump_on_error(f"{type(e).__name__}: {e}", wait_s=spec.flight_wait_s)
        ctx.record(
            "error",
            "error",
            error=f"{type(e).__name__}: {e}",
            traceback=traceback.format_exc()[-4000:],
        )
        print(f"[advisor.worker rank {ctx.rank}] {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    finally:
        if dumper is not None:
            dumper.stop()
        if dist.is_initialized():
            dist.destroy_process_group()
        comm.reset()
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m advisor.worker")
    parser.add_argument("--spec", required=True, type=Path, help="job spec written by the launcher")
    args = parser.parse_args(argv)
    return run(JobSpec.read(args.spec))


if __name__ == "__main__":
    raise SystemExit(main())
