"""The rank entry point, started by torchrun's elastic agent for every job stage.

``python -m advisor.worker --spec <run_dir>/jobs/<stage>.json``: binds the device, initialises the
process group with the stage's backend and timeout, runs the stage, and appends JSON-lines records
as it goes (see ``advisor.results``), so whatever happens later, what was measured is on disk.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from datetime import timedelta
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from advisor import backends, faults, stages
from advisor.cluster import Cluster
from advisor.results import Record, append_record


@dataclass(kw_only=True)
class JobSpec:
    """What the launcher tells every rank of a job stage (written as JSON in the run dir)."""

    stage: str
    run_dir: str
    params: dict[str, Any]
    cluster: dict[str, Any]
    pg_timeout_s: float
    launched_at: float
    """Epoch seconds when the launcher started the agents (for rendezvous time)."""
    faults: list[dict[str, Any]] = field(default_factory=list)
    job: str = ""
    """Job name within the stage (driver stages run several jobs); tags every record."""
    strict: bool = True
    """On an emulated hccl/nccl cluster, refuse what the real backend would (advisor.comm)."""

    def write(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(asdict(self), indent=2, sort_keys=True), encoding="utf-8")

    @classmethod
    def read(cls, path: Path) -> JobSpec:
        return cls(**json.loads(path.read_text(encoding="utf-8")))


def typed_params(stage: stages.Stage, params: dict[str, Any], *, job: bool = False) -> Any:
    """Rebuild the stage's (or, for a driver stage's job, the job's) typed config from JSON."""
    kind = stage.job_config_type if job and stage.job_config_type else stage.config_type
    base = OmegaConf.structured(kind)
    return OmegaConf.to_object(OmegaConf.merge(base, params))


class _Recorder:
    stage: str
    job: str = ""
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
        append_record(
            self.run_dir,
            Record(
                stage=self.stage,
                rank=self.rank,
                node=self.node,
                node_name=self.node_name,
                host=self.host,
                local_rank=self.local_rank,
                job=self.job,
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


class RankContext(_Recorder):
    """Everything a job stage's ``run_rank`` needs about its rank, and how to report."""

    def __init__(self, spec: JobSpec, *, env: dict[str, str] | os._Environ[str]) -> None:
        self.spec = spec
        self.stage = spec.stage
        self.job = spec.job
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

    @property
    def num_nodes(self) -> int:
        return self.cluster.nodes

    def sync(self) -> None:
        """Synchronise the device (call before reading the clock after device work)."""
        backends.synchronize(self.device)

    def node_of(self, rank: int) -> int:
        return self.cluster.node_of(rank)


class HostContext(_Recorder):
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


def run(spec: JobSpec) -> int:
    import torch.distributed as dist

    from advisor import comm

    stage = stages.get(spec.stage)
    assert stage.run_rank is not None, f"stage {stage.name} is not a job stage"
    ctx = RankContext(spec, env=os.environ)
    ctx.record(
        "start",
        pid=os.getpid(),
        since_launch_s=time.time() - spec.launched_at,
        device=ctx.cluster.device_type,
    )
    try:
        params = typed_params(stage, spec.params, job=bool(spec.job))
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
        stage.run_rank(ctx, params)
        ctx.record("done")
    except Exception as e:
        ctx.record(
            "error",
            "error",
            error=f"{type(e).__name__}: {e}",
            traceback=traceback.format_exc()[-4000:],
        )
        print(f"[advisor.worker rank {ctx.rank}] {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    finally:
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
