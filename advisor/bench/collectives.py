"""The ``bench`` stage: the project's nccl-tests — collectives × sizes × dtypes × algorithms.

A driver stage: native algorithm settings (``HCCL_ALGO``/``HCCL_BUFFSIZE``,
``NCCL_ALGO``×``NCCL_PROTO``/``NCCL_BUFFSIZE``) are read by the libraries when a communicator is
created, so each variant runs as a fresh job; the first job (the backend's defaults) also runs the
in-project algorithms side by side with the native one. On gloo there are no native variants.

Every point is timed per iteration between a barrier and a device synchronisation; the time of an
iteration is the slowest rank's (all_reduce MAX over ranks), and each point reports the median,
p10 and p90 over iterations, algbw and busbw with nccl-tests' factors, and how many elements came
out wrong in a checked run before the timed ones. Rank 0 records the point; the advisor process
prints the table (nccl-tests shape) from those records and fits the α–β model.
"""

from __future__ import annotations

import json
import statistics
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from advisor import console
from advisor.backends import (
    BACKEND_OF,
    dtype_problems,
    native_setting_problems,
    nccl_allreduce_only,
    nccl_version,
)
from advisor.bench import load as ab_load
from advisor.bench import model as ab_model
from advisor.bench.catalog import ALGORITHM_NAMES, DEFAULT_PIPELINE_CHUNK_BYTES
from advisor.bench.load import ComputeLoadConfig, LoadChoice, LoadResult
from advisor.bench.model import ModelFacts, WhatIf
from advisor.errors import ConfigError
from advisor.stages import Stage, StageConfig
from advisor.tuner.bands import Band
from advisor.tuner.bands import bands as tuner_bands

if TYPE_CHECKING:
    from advisor.bench import algorithms
    from advisor.cluster import Cluster
    from advisor.driver import DriverContext
    from advisor.results import Record
    from advisor.worker import RankContext

OPS = ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "all_to_all", "sendrecv")
DTYPES = {"fp32": "float32", "fp16": "float16", "bf16": "bfloat16", "fp64": "float64"}
ELEMENT_BYTES = {"fp32": 4, "fp16": 2, "bf16": 2, "fp64": 8}
TABLE_OP = {
    "all_reduce": "all_reduce",
    "all_gather": "all_gather",
    "reduce_scatter": "reduce_scatter",
    "broadcast": "broadcast",
    "all_to_all": "all_to_all",
    "sendrecv": "send",
}
"""Each benchmarked op under its name in advisor.backends' support tables."""
BUSBW_FACTOR = {
    "all_reduce": lambda n: 2 * (n - 1) / n,
    "all_gather": lambda n: (n - 1) / n,
    "reduce_scatter": lambda n: (n - 1) / n,
    "all_to_all": lambda n: (n - 1) / n,
    "broadcast": lambda n: 1.0,
    "sendrecv": lambda n: 1.0,
}
"""nccl-tests' bus-bandwidth factors (doc/PERFORMANCE.md); ``bytes`` is S in that document."""
IN_PLACE_MODES = {
    "all_reduce": (True,),
    "all_gather": (False, True),
    "reduce_scatter": (False, True),
    "broadcast": (True,),
    "all_to_all": (False,),
    "sendrecv": (False,),
}
"""torch's all_reduce and broadcast work in place only; all_to_all_single has no in-place form."""
HCCL_VARIANTS: dict[str, dict[str, str]] = {
    "hccl-ring": {"HCCL_ALGO": "level0:NA;level1:ring"},
    "hccl-H-D_R": {"HCCL_ALGO": "level0:NA;level1:H-D_R"},
    "hccl-NHR": {"HCCL_ALGO": "level0:NA;level1:NHR"},
    "hccl-NB": {"HCCL_ALGO": "level0:NA;level1:NB"},
    "hccl-buff400": {"HCCL_BUFFSIZE": "400"},
}


def native_variants(
    backend: str, nccl_version: tuple[int, ...] | None = None
) -> dict[str, dict[str, str]]:
    """Native-algorithm settings tried when ``bench.variants`` is empty (one fresh job each).

    NCCL's algorithm and protocol are fixed for all_reduce alone (``backends.nccl_allreduce_only``):
    a global ``NCCL_ALGO=Tree`` breaks every other collective from NCCL 2.24 on.
    """
    if backend == "hccl":
        return dict(HCCL_VARIANTS)
    if backend == "nccl":
        out = {
            f"nccl-{algo}-{proto}": {
                "NCCL_ALGO": nccl_allreduce_only(algo, nccl_version),
                "NCCL_PROTO": nccl_allreduce_only(proto, nccl_version),
            }
            for algo in ("Ring", "Tree")
            for proto in ("LL", "LL128", "Simple")
        }
        out["nccl-buff16M"] = {"NCCL_BUFFSIZE": str(16 * 2**20)}
        return out
    return {}


DEFAULT_VARIANT = "default"


@dataclass(kw_only=True)
class BenchJobConfig:
    """What one benchmark job measures (the driver fills it for each variant)."""

    variant: str = DEFAULT_VARIANT
    """Native-setting variant this job runs under (its environment is set by the driver)."""
    env: dict[str, str] = field(default_factory=dict)
    """The variant's environment, as the driver set it; rank 0 records what it really sees."""
    ops: list[str] = field(default_factory=lambda: list(OPS))
    """Collectives to time: all_reduce, all_gather, reduce_scatter, broadcast, all_to_all,
    sendrecv."""
    dtypes: list[str] = field(default_factory=lambda: ["fp32"])
    """Element types: fp32, fp16, bf16, fp64."""
    algorithms: list[str] = field(default_factory=lambda: ["native"])
    """all_reduce algorithms: native and the in-project ones (advisor.bench.algorithms)."""
    min_bytes: int = 1024
    """Smallest message (S of nccl-tests: tensor bytes; per-rank bytes × ranks for gathers)."""
    max_bytes: int = 4 * 2**20
    """Largest message."""
    factor: int = 4
    """Each size is the previous one times this."""
    warmup_iters: int = 2
    """Untimed iterations before the timed ones (after the checked run)."""
    iters: int = 10
    """Timed iterations per point."""
    check: bool = True
    """Run each point once on known values first and count wrong elements."""
    pipeline_chunk_bytes: int = DEFAULT_PIPELINE_CHUNK_BYTES
    """Chunk size of the pipelined hierarchical all-reduce."""
    compute_load: ComputeLoadConfig = field(default_factory=ComputeLoadConfig)
    """Matmul load to time the collectives under (default job only; off in a variant job)."""


@dataclass(kw_only=True)
class BenchConfig(StageConfig):
    """The collective benchmark's settings (``stages.bench``)."""

    deadline_s: float = 600.0
    ops: list[str] = field(default_factory=lambda: list(OPS))
    """Collectives to time (see BenchJobConfig.ops)."""
    dtypes: list[str] = field(default_factory=lambda: ["fp32", "fp16", "bf16"])
    """Element types: fp32, fp16, bf16, fp64 (each must be one the backend takes for every op:
    HCCL reduces no fp64 before the 950, the 910 no bf16)."""
    algorithms: list[str] = field(default_factory=lambda: list(ALGORITHM_NAMES))
    """all_reduce algorithms compared side by side: native plus the in-project ones."""
    min_bytes: int = 1024
    """Smallest message size in bytes."""
    max_bytes: int = 16 * 2**20
    """Largest message size in bytes."""
    factor: int = 4
    """Size step: each size is the previous one times this (≥ 2)."""
    warmup_iters: int = 2
    """Untimed iterations per point."""
    iters: int = 10
    """Timed iterations per point (median, p10 and p90 over them)."""
    check: bool = True
    """Count wrong elements in one checked run per point."""
    pipeline_chunk_bytes: int = DEFAULT_PIPELINE_CHUNK_BYTES
    """Chunk size of the pipelined hierarchical all-reduce."""
    native_variants: bool = True
    """Also run one job per native-algorithm setting of the backend (none on gloo)."""
    variants: dict[str, dict[str, str]] = field(default_factory=dict)
    """Native variants to run (name → environment); empty: the backend's defaults
    (advisor.bench.collectives.native_variants). Override one with
    ``+stages.bench.variants.NAME={HCCL_ALGO:'level0:NA;level1:ring'}``."""
    variant_ops: list[str] = field(default_factory=lambda: ["all_reduce"])
    """Collectives timed in the variant jobs (native algorithm only)."""
    variant_deadline_s: float = 180.0
    """Deadline of each variant job."""
    whatif_shapes: list[list[int]] = field(default_factory=lambda: [[4, 8], [16, 8], [64, 8]])
    """[nodes, ranks per node] of the clusters the model predicts."""
    whatif_bytes: int = 100_000_000
    """Message of the what-if table (a 100 MB gradient)."""
    utilisation_min_bytes: int = 8 * 2**20
    """Bus bandwidth is judged against the bottleneck link only at sizes at least this large:
    smaller messages are latency-bound, so their busbw says nothing about the link (nccl-tests
    quotes busbw at its largest sizes for the same reason)."""
    compute_load: ComputeLoadConfig = field(default_factory=ComputeLoadConfig)
    """Time collectives again while every rank runs a matmul load of these intensities, idle
    and loaded rounds interleaved (advisor.bench.load); off unless intensities are given."""

    def __post_init__(self) -> None:
        bad = [o for o in self.ops + self.variant_ops if o not in OPS]
        if bad:
            raise ConfigError(f"stages.bench.ops: unknown {bad}; choose from {', '.join(OPS)}.")
        timed = [o for o in OPS if o != "sendrecv"]
        bad = [o for o in self.compute_load.ops if o not in timed]
        if bad:
            raise ConfigError(
                f"stages.bench.compute_load.ops: {bad} not timed under load; choose from "
                f"{', '.join(timed)} (sendrecv pairs are measured idle only)."
            )
        bad = [d for d in self.dtypes if d not in DTYPES]
        if bad:
            raise ConfigError(
                f"stages.bench.dtypes: unknown {bad}; choose from {', '.join(DTYPES)}."
            )
        bad = [a for a in self.algorithms if a not in ALGORITHM_NAMES]
        if bad:
            raise ConfigError(
                f"stages.bench.algorithms: unknown {bad}; choose from {', '.join(ALGORITHM_NAMES)}."
            )
        if not 0 < self.min_bytes <= self.max_bytes:
            raise ConfigError(
                f"stages.bench: need 0 < min_bytes ({self.min_bytes}) <= max_bytes "
                f"({self.max_bytes})."
            )
        if self.factor < 2:
            raise ConfigError(f"stages.bench.factor must be at least 2, got {self.factor}.")
        if self.iters < 1 or self.warmup_iters < 0:
            raise ConfigError("stages.bench: iters must be ≥ 1 and warmup_iters ≥ 0.")
        for name, env in self.variants.items():
            for var, value in env.items():
                problems = native_setting_problems(f"{var}={value}")
                if problems:
                    raise ConfigError(
                        f"stages.bench.variants.{name}.{var}={value!r}: {'; '.join(problems)}."
                    )
        for shape in self.whatif_shapes:
            if len(shape) != 2 or min(shape) < 1:
                raise ConfigError(
                    f"stages.bench.whatif_shapes: {shape} is not [nodes, ranks_per_node]."
                )

    def job(
        self, variant: str = DEFAULT_VARIANT, env: dict[str, str] | None = None
    ) -> BenchJobConfig:
        default = variant == DEFAULT_VARIANT
        return BenchJobConfig(
            variant=variant,
            env=dict(env or {}),
            ops=list(self.ops if default else self.variant_ops),
            dtypes=list(self.dtypes if default else self.dtypes[:1]),
            algorithms=list(self.algorithms if default else ["native"]),
            min_bytes=self.min_bytes,
            max_bytes=self.max_bytes,
            factor=self.factor,
            warmup_iters=self.warmup_iters,
            iters=self.iters,
            check=self.check,
            pipeline_chunk_bytes=self.pipeline_chunk_bytes,
            compute_load=self.compute_load if default else ComputeLoadConfig(),
        )


def backend_problems(params: BenchConfig, cluster: Cluster) -> list[str]:
    """What the cluster's backend refuses among the benchmark's op × dtype points."""
    backend = BACKEND_OF[cluster.declared_device]
    ops = [TABLE_OP[op] for op in dict.fromkeys(params.ops + params.variant_ops)]
    if any(a != "native" for a in params.algorithms):
        ops += ["send", "recv"]  # the in-project algorithms move data point to point
    problems = dtype_problems(
        backend, list(dict.fromkeys(ops)), [DTYPES[d] for d in params.dtypes], cluster.chip
    )
    return [f"stages.bench.dtypes: {p}" for p in problems]


def sizes(min_bytes: int, max_bytes: int, factor: int) -> list[int]:
    out, s = [], min_bytes
    while s <= max_bytes:
        out.append(s)
        s *= factor
    return out


PATTERN_BYTES_PER_ELEMENT = 16
"""Transient bytes per element while a rank fills or checks a buffer (``_Point.pattern``): an
int64 index and its remainder, before the cast to the element type."""
CHECK_BYTES_PER_ELEMENT = 24
"""Transient bytes per element while ``_Point.wrong`` compares a result: float32 copies of the
result and of the expected values, their difference and the tolerance, alive together."""


def rank_peak_bytes(params: BenchConfig, world: int) -> tuple[int, str]:
    """The most memory one rank's buffers reach at ``max_bytes``, and the point that needs it
    (``"all_to_all fp32 at S=…"``): the point's buffers (an all_gather's output is S, its input
    S/world; all_to_all and sendrecv keep S in and S out) plus the transient tensors that fill
    and check them. An estimate from this module's own allocations, not counting the backend's
    internal buffers: for all_reduce (native and ring) and all_to_all fp32 at S=256 MiB on an
    emulated 2x2 it gives 2.0 GiB a rank where 1.65–1.69 GiB of Private_Dirty was measured
    (/proc/PID/smaps_rollup sampled every 0.5 s), so it errs on the side of refusing."""
    best, where = 0, ""
    points = [(op, dtype, params.algorithms) for op in params.ops for dtype in params.dtypes]
    if params.native_variants or params.variants:
        # variant jobs: their ops, the first dtype, the native algorithm (BenchConfig.job)
        points += [(op, params.dtypes[0], ["native"]) for op in params.variant_ops]
    for op, dtype, algorithms in points:
        e = ELEMENT_BYTES[dtype]
        count = element_count(op, params.max_bytes, e, world)
        block = count // world if op in ("all_gather", "reduce_scatter") else 0
        copies = 2 if op in ("all_to_all", "sendrecv") else 1
        if op == "all_reduce" and any(a != "native" for a in algorithms):
            copies = 2  # the in-project algorithms keep a receive buffer beside the data
        buffers = (copies * count + block) * e
        transient = count * (
            max(PATTERN_BYTES_PER_ELEMENT + e, CHECK_BYTES_PER_ELEMENT if params.check else 0)
        )
        if buffers + transient > best:
            best, where = buffers + transient, f"{op} {dtype} at S={params.max_bytes}"
    return best, where


def element_count(op: str, nbytes: int, element_bytes: int, world: int) -> int:
    """Elements of S: at least 1, a multiple of the world size where S is split across ranks."""
    count = max(1, nbytes // element_bytes)
    if op in ("all_gather", "reduce_scatter", "all_to_all"):
        count = max(world, count - count % world)
    return count


# ---------------------------------------------------------------- rank side


class _Point:
    """Buffers of one (op, dtype, size, in-place) point and how to run and check it.

    Every buffer is made on the rank's device through ``advisor.comm`` (a receive buffer made
    without the device is refused by HCCL and NCCL: their groups serve device tensors only).
    """

    def __init__(self, ctx: RankContext, op: str, dtype: str, count: int, in_place: bool) -> None:
        import torch

        self.torch = torch
        self.op, self.count, self.in_place = op, count, in_place
        self.rank, self.n = ctx.rank, ctx.world_size
        self.dtype = getattr(torch, DTYPES[dtype])
        self.block = count // self.n if op in ("all_gather", "reduce_scatter", "all_to_all") else 0
        self.peer = -1
        self.link = ""

    def pattern(self, count: int, offset: int, base: float) -> Any:
        """base + (global index mod 3): small integers, exact in every dtype."""
        from advisor import comm

        idx = comm.arange(offset, offset + count)
        return (idx % 3).to(self.dtype) + base

    def zeros(self, count: int) -> Any:
        from advisor import comm

        return comm.zeros(count, dtype=self.dtype)

    def fill(self) -> None:
        r, c, b = self.rank, self.count, self.block
        if self.op == "all_reduce":
            self.buf = self.pattern(c, 0, r + 1.0)
        elif self.op == "broadcast":
            self.buf = self.pattern(c, 0, 1.0) if r == 0 else self.zeros(c)
        elif self.op == "all_gather":
            self.out = self.zeros(c)
            if self.in_place:
                self.out[r * b : (r + 1) * b] = self.pattern(b, r * b, r + 1.0)
                self.inp = self.out[r * b : (r + 1) * b]
            else:
                self.inp = self.pattern(b, r * b, r + 1.0)
        elif self.op == "reduce_scatter":
            self.inp = self.pattern(c, 0, r + 1.0)
            self.out = self.inp[r * b : (r + 1) * b] if self.in_place else self.zeros(b)
        elif self.op in ("all_to_all", "sendrecv"):
            self.inp = self.pattern(c, 0, r + 1.0)
            self.out = self.zeros(c)

    def run(self, fn: algorithms.AllReduceFn) -> None:
        from advisor import comm

        if self.op == "all_reduce":
            fn(self.buf)
        elif self.op == "broadcast":
            comm.broadcast(self.buf, src=0)
        elif self.op == "all_gather":
            comm.all_gather_into_tensor(self.out, self.inp)
        elif self.op == "reduce_scatter":
            comm.reduce_scatter_tensor(self.out, self.inp)
        elif self.op == "all_to_all":
            comm.all_to_all_single(self.out, self.inp)
        elif self.op == "sendrecv" and self.peer >= 0:
            comm.exchange([(self.inp, self.peer)], [(self.out, self.peer)])

    def wrong(self) -> int:
        """Elements that differ from the expected result (relative tolerance for half types)."""
        t, n, r, c, b = self.torch, self.n, self.rank, self.count, self.block
        total = n * (n + 1) / 2
        if self.op == "all_reduce":
            got, want = self.buf, self.pattern(c, 0, 0.0).float() * n + total
        elif self.op == "broadcast":
            got, want = self.buf, self.pattern(c, 0, 1.0).float()
        elif self.op == "all_gather":
            got = self.out
            want = t.cat([self.pattern(b, s * b, s + 1.0).float() for s in range(n)])
        elif self.op == "reduce_scatter":
            got, want = self.out, self.pattern(b, r * b, 0.0).float() * n + total
        elif self.op == "all_to_all":
            got = self.out
            want = t.cat([self.pattern(b, r * b, s + 1.0).float() for s in range(n)])
        elif self.op == "sendrecv":
            if self.peer < 0:
                return 0
            got, want = self.out, self.pattern(c, 0, self.peer + 1.0).float()
        else:
            return 0
        tol = {t.float32: 1e-5, t.float16: 1e-3, t.bfloat16: 1e-2, t.float64: 1e-12}[self.dtype]
        got_h, want_h = got.float().cpu(), want.cpu()
        bad = (got_h - want_h).abs() > tol * want_h.abs().clamp(min=1.0)
        return int(bad.sum().item())


def _sendrecv_pairs(ctx: RankContext) -> list[tuple[str, int, int]]:
    """One pair per link class the cluster has: ranks 0↔1 (intra) and 0↔first of node 1 (inter)."""
    g, nodes = ctx.cluster.devices_per_node, ctx.cluster.nodes
    pairs = []
    if g > 1:
        pairs.append(("intra", 0, 1))
    if nodes > 1:
        pairs.append(("inter", 0, g))
    return pairs


def _time_point(ctx: RankContext, point: _Point, fn: algorithms.AllReduceFn, p: Any) -> dict:
    import torch

    from advisor import comm

    wrong = 0
    point.fill()
    if p.check:
        point.run(fn)
        ctx.sync()
        wrong = point.wrong()
    for _ in range(p.warmup_iters):
        point.run(fn)
    times: list[float] = []
    for _ in range(p.iters):
        comm.barrier()
        ctx.sync()
        t0 = time.perf_counter()
        point.run(fn)
        ctx.sync()
        times.append(time.perf_counter() - t0)
    # Bookkeeping on the CPU over the gloo side group, exact in float64: the device group would
    # need device tensors, and HCCL reduces no float64 before the 950 (advisor.backends).
    slowest = torch.tensor(times, dtype=torch.float64)
    wrong_sum = torch.tensor([wrong], dtype=torch.int64)
    comm.all_reduce(slowest, op="max", group=comm.side_group())
    comm.all_reduce(wrong_sum, op="sum", group=comm.side_group())
    per_iter_us = sorted(float(x) * 1e6 for x in slowest)
    return {
        "time_us_p50": statistics.median(per_iter_us),
        "time_us_p10": _quantile(per_iter_us, 0.1),
        "time_us_p90": _quantile(per_iter_us, 0.9),
        "wrong": int(wrong_sum.item()),
    }


def _quantile(sorted_values: list[float], q: float) -> float:
    if len(sorted_values) == 1:
        return sorted_values[0]
    pos = q * (len(sorted_values) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def bandwidths_gbps(op: str, nbytes: int, time_us: float, world: int) -> tuple[float, float]:
    """(algbw, busbw) in Gbit/s: algbw = S / t, busbw = algbw × the op's factor."""
    if time_us <= 0:
        return 0.0, 0.0
    algbw = nbytes * 8 / (time_us * 1e3)
    return algbw, algbw * BUSBW_FACTOR[op](world)


def run_rank(ctx: RankContext, p: BenchJobConfig) -> None:
    import os

    from advisor import comm
    from advisor.bench import algorithms

    if ctx.rank == 0 and p.env:
        ctx.record("env", variant=p.variant, seen={k: os.environ.get(k) for k in p.env})
    fns = {name: algorithms.get(name) for name in p.algorithms}
    if "hierarchical" in fns and ctx.world_size > 1:
        with ctx.step("groups"):
            # groups are created collectively, before any timing, in the same order everywhere
            h = algorithms.hierarchy_for(None, ranks_per_node=ctx.cluster.devices_per_node)
        chunk = p.pipeline_chunk_bytes

        def hierarchical(t: Any, group: Any = None) -> None:
            algorithms.hierarchical_all_reduce(t, hierarchy=h, chunk_bytes=chunk)

        fns["hierarchical"] = hierarchical
    for op in p.ops:
        for dtype in p.dtypes:
            names = list(fns) if op == "all_reduce" else ["native"]
            for name in names:
                fn = fns.get(name, algorithms.native_all_reduce)
                for in_place in IN_PLACE_MODES[op]:
                    links = _sendrecv_pairs(ctx) if op == "sendrecv" else [("", -1, -1)]
                    for link, a, b in links:
                        for nbytes in sizes(p.min_bytes, p.max_bytes, p.factor):
                            count = element_count(op, nbytes, ELEMENT_BYTES[dtype], ctx.world_size)
                            point = _Point(ctx, op, dtype, count, in_place)
                            point.link = link
                            if op == "sendrecv":
                                point.peer = b if ctx.rank == a else a if ctx.rank == b else -1
                            label = "in" if in_place else "out"
                            step = f"point/{op}/{name}/{dtype}/{label}/{link or '-'}/{nbytes}"
                            with ctx.step(step) as m:
                                stats = _time_point(ctx, point, fn, p)
                                if ctx.rank == 0:
                                    m.update(
                                        op=op,
                                        dtype=dtype,
                                        algorithm=_label(name, p.variant),
                                        variant=p.variant,
                                        in_place=in_place,
                                        link=link,
                                        bytes=count * ELEMENT_BYTES[dtype],
                                        count=count,
                                        world_size=ctx.world_size,
                                        **stats,
                                    )
    if p.compute_load.levels():
        _run_loaded(ctx, p, fns)
    comm.barrier()


def _run_loaded(ctx: RankContext, p: BenchJobConfig, fns: dict[str, Any]) -> None:
    """Every load op × algorithm × size of the first dtype, idle and under each intensity."""
    from advisor.bench import algorithms

    cfg = p.compute_load
    dtype = p.dtypes[0]
    with ab_load.running(ctx.device, cfg) as load:
        if ctx.rank == 0:
            ctx.record(
                "load/setup",
                device=str(ctx.device),
                matrix_size=load.matrix_size,
                period_ms=cfg.period_ms,
                cpu_threads=cfg.cpu_threads,
                intensities=cfg.levels(),
            )
        for op in cfg.ops:
            for name in list(fns) if op == "all_reduce" else ["native"]:
                fn = fns.get(name, algorithms.native_all_reduce)
                for nbytes in sizes(p.min_bytes, p.max_bytes, p.factor):
                    count = element_count(op, nbytes, ELEMENT_BYTES[dtype], ctx.world_size)
                    point = _Point(ctx, op, dtype, count, IN_PLACE_MODES[op][0])
                    with ctx.step(f"load/{op}/{name}/{dtype}/{nbytes}") as m:
                        stats = _time_loaded(ctx, point, fn, p, load)
                        if ctx.rank == 0:
                            m.update(
                                op=op,
                                dtype=dtype,
                                algorithm=name,
                                bytes=count * ELEMENT_BYTES[dtype],
                                count=count,
                                **stats,
                            )


def _time_loaded(
    ctx: RankContext,
    point: _Point,
    fn: algorithms.AllReduceFn,
    p: BenchJobConfig,
    load: ab_load.MatmulLoad,
) -> dict[str, Any]:
    """Rounds of one timed iteration idle and one per intensity, in an order rotating each round.

    Before each timed iteration the load runs at its level for one to two periods (a random
    share of the second), so the collective starts at a random phase of the duty cycle, as
    training's collectives meet its compute, instead of always at the start of a busy phase.
    """
    import random

    import torch

    from advisor import comm

    levels = p.compute_load.levels()
    conditions = [0.0, *levels]
    period_s = p.compute_load.period_ms / 1e3
    phase = random.Random(ctx.rank)  # noqa: S311 -- a phase offset, nothing secret
    point.fill()
    for _ in range(p.warmup_iters):
        point.run(fn)
    load.take_seconds()
    times: list[list[float]] = [[] for _ in conditions]
    for r in range(p.iters):
        for k in range(len(conditions)):
            j = (r + k) % len(conditions)
            load.set(conditions[j])
            time.sleep(period_s * (1.0 + phase.random()))
            comm.barrier()
            ab_load.sync_stream(ctx.device)
            t0 = time.perf_counter()
            point.run(fn)
            ab_load.sync_stream(ctx.device)
            times[j].append(time.perf_counter() - t0)
    load.set(0.0)
    seconds = load.take_seconds()
    # The slowest rank's time per iteration, and the mean achieved busy share over ranks, both
    # on the CPU side group in float64 (as _time_point does).
    slowest = torch.tensor(times, dtype=torch.float64)
    comm.all_reduce(slowest, op="max", group=comm.side_group())
    busy, wall = zip(*(seconds.get(x, (0.0, 0.0)) for x in levels), strict=True)
    shares = torch.tensor(
        [b / w if w > 0 else 0.0 for b, w in zip(busy, wall, strict=True)], dtype=torch.float64
    )
    comm.all_reduce(shares, op="sum", group=comm.side_group())

    def spread(row: Any) -> dict[str, float]:
        us = sorted(float(x) * 1e6 for x in row)
        return {"p50": statistics.median(us), "p10": _quantile(us, 0.1), "p90": _quantile(us, 0.9)}

    return {
        "rounds": p.iters,
        "idle": spread(slowest[0]),
        "loaded": [
            {
                "intensity": x,
                "busy_share": float(shares[i]) / ctx.world_size,
                **spread(slowest[i + 1]),
            }
            for i, x in enumerate(levels)
        ],
    }


def _label(algorithm: str, variant: str) -> str:
    if algorithm == "native" and variant != DEFAULT_VARIANT:
        return f"native[{variant}]"
    return algorithm


# ---------------------------------------------------------------- advisor side


@dataclass(kw_only=True)
class BenchResult:
    """One measured point (time over ranks: the slowest rank's, per iteration).

    A row of a benchmark table imported from a file (``advisor import``) has this shape too; the
    figures such a file does not give are None there, never in a row this stage measured.
    """

    op: str
    dtype: str
    algorithm: str
    """native, native[<variant>] or an in-project algorithm."""
    variant: str = DEFAULT_VARIANT
    in_place: bool
    link: str = ""
    """sendrecv only: the link class of the measured pair (intra, inter)."""
    bytes: int
    count: int | None
    """None for an imported hccl_test table (it prints no element count)."""
    time_us_p50: float
    time_us_p10: float | None = None
    """None for an imported table (one time per size)."""
    time_us_p90: float | None = None
    """None for an imported table (one time per size)."""
    algbw_gbps: float
    busbw_gbps: float | None
    """None for an imported hccl_test table that names neither the op nor the rank count."""
    wrong: int | None
    """Wrong elements; None for an imported table whose run did not check them."""


@dataclass(kw_only=True)
class BenchFacts:
    """Summary of the bench stage (``stages.bench.data``)."""

    results: list[BenchResult] = field(default_factory=list)
    avg_busbw_gbps: dict[str, float] = field(default_factory=dict)
    """Per ``op/algorithm/dtype`` (sendrecv: ``sendrecv/<link>/dtype``), mean busbw over sizes."""
    utilisation: dict[str, float] = field(default_factory=dict)
    """Per ``op/algorithm/dtype``: busbw at the largest size over ``bottleneck_gbps``; only series
    whose largest size reaches ``utilisation_min_bytes``."""
    utilisation_min_bytes: int = 0
    """The smallest size judged for utilisation (stages.bench.utilisation_min_bytes)."""
    utilisation_note: str = ""
    """Why some series were not judged for utilisation (their largest size is latency-bound)."""
    bottleneck_gbps: float | None = None
    """Bandwidth of the bottleneck link class (inter when the cluster has several nodes)."""
    bottleneck_link: str = ""
    bottleneck_source: str = ""
    """``nominal`` (cluster config) or ``measured`` (connectivity stage median); empty: unknown."""
    best_algorithm: dict[str, dict[str, str]] = field(default_factory=dict)
    """Per op, per size in bytes (as a string key): the fastest algorithm (median time)."""
    bands: list[Band] = field(default_factory=list)
    """Per op, the size bands where a measured setting beats the default beyond noise (its p90
    below the default's p10), merged where neighbours agree (advisor.tuner.bands)."""
    wrong_total: int = 0
    """Wrong elements over every checked point."""
    variants: dict[str, dict[str, str]] = field(default_factory=dict)
    """Native variants run: name → the environment the job had."""
    failed_variants: dict[str, str] = field(default_factory=dict)
    """Variant → why its job did not finish."""
    variants_seen: dict[str, dict[str, str | None]] = field(default_factory=dict)
    """Variant → its variables as rank 0 of the job saw them (proof the setting reached it)."""
    model: ModelFacts = field(default_factory=ModelFacts)
    """The α–β model fitted on the all-reduce times (per link class α and β, held-out error)."""
    whatif: list[WhatIf] = field(default_factory=list)
    """Predicted all-reduce time per algorithm on larger clusters."""
    imported: bool = False
    """The results are benchmark tables imported from files (``advisor import``), not measured."""
    sources: list[str] = field(default_factory=list)
    """The imported files the results come from."""
    load: list[LoadResult] = field(default_factory=list)
    """Per op, algorithm, size and load intensity: the collective's time idle and while every
    rank runs a matmul load (stages.bench.compute_load), interleaved in one job, and the
    slowdown (loaded / idle median)."""
    load_choices: list[LoadChoice] = field(default_factory=list)
    """Per op, size and intensity timed with several algorithms: the fastest idle and loaded."""
    load_matrix_size: int = 0
    """Side of the load's square matrices (0: no load ran)."""
    load_period_ms: float = 0.0
    """The load's duty-cycle period."""
    load_max_slowdown: float = 0.0
    """stages.bench.compute_load.max_slowdown: the slowdown conf/rules/load.yaml flags."""


def results_of(records: list[Record], world: int) -> list[BenchResult]:
    out = []
    for r in records:
        m = r.metrics
        if r.rank != 0 or r.status != "ok" or not r.step.startswith("point/") or "op" not in m:
            continue
        algbw, busbw = bandwidths_gbps(m["op"], int(m["bytes"]), float(m["time_us_p50"]), world)
        out.append(
            BenchResult(
                op=m["op"],
                dtype=m["dtype"],
                algorithm=m["algorithm"],
                variant=m.get("variant", DEFAULT_VARIANT),
                in_place=bool(m["in_place"]),
                link=m.get("link", ""),
                bytes=int(m["bytes"]),
                count=int(m["count"]),
                time_us_p50=float(m["time_us_p50"]),
                time_us_p10=float(m["time_us_p10"]),
                time_us_p90=float(m["time_us_p90"]),
                algbw_gbps=algbw,
                busbw_gbps=busbw,
                wrong=int(m["wrong"]),
            )
        )
    return out


def series_key(r: BenchResult) -> str:
    middle = r.link if r.op == "sendrecv" else r.algorithm
    return f"{r.op}/{middle}/{r.dtype}"


def bottleneck(cluster: Cluster, records: list[Record]) -> tuple[str, float | None, str]:
    """(link class, Gbit/s, source): nominal from the cluster, else measured by connectivity."""
    link = "inter" if cluster.nodes > 1 else "intra"
    nominal = cluster.links[link].nominal_gbps if link in cluster.links else 0.0
    if nominal > 0:
        return link, nominal, "nominal"
    for r in records:
        if r.step == "bottleneck" and r.metrics.get("measured_gbps"):
            return link, float(r.metrics["measured_gbps"]), "measured"
    return link, None, ""


def model_points(results: list[BenchResult], cluster: Cluster) -> list[ab_model.Point]:
    """all_reduce times (first dtype, modelled algorithms), for the α–β fit.

    sendrecv is left out: a pair exchanging over one connection both ways measures that
    connection's duplex behaviour (on a shaped TCP link about half the one-way rate, acks queued
    behind data), not the one-direction-per-flow steps the algorithms are made of.
    """
    dtypes = [r.dtype for r in results if r.op == "all_reduce"]
    dtype = dtypes[0] if dtypes else "fp32"
    return [
        ab_model.Point(
            kind=f"all_reduce/{r.algorithm}",
            nodes=cluster.nodes,
            ranks_per_node=cluster.devices_per_node,
            bytes=r.bytes,
            time_us=r.time_us_p50,
        )
        for r in results
        if r.op == "all_reduce"
        and r.dtype == dtype
        and r.algorithm in ab_model.MODELLED
        and r.time_us_p50 > 0
    ]


def summarize(records: list[Record], cluster: Cluster, params: Any) -> BenchFacts:
    facts = BenchFacts()
    facts.results = sorted(
        results_of(records, cluster.world_size),
        key=lambda r: (OPS.index(r.op), r.dtype, r.algorithm, r.in_place, r.link, r.bytes),
    )
    for rec in records:
        if rec.rank == -1 and rec.step == "variant":
            facts.variants[rec.metrics["name"]] = dict(rec.metrics.get("env", {}))
            if rec.status != "ok":
                facts.failed_variants[rec.metrics["name"]] = str(rec.metrics.get("reason", ""))
        elif rec.rank == 0 and rec.step == "env":
            facts.variants_seen[rec.metrics["variant"]] = dict(rec.metrics.get("seen", {}))
    facts.wrong_total = sum(r.wrong for r in facts.results if r.wrong is not None)
    link, gbps, source = bottleneck(cluster, records)
    facts.bottleneck_link, facts.bottleneck_gbps, facts.bottleneck_source = link, gbps, source
    series: dict[str, list[BenchResult]] = {}
    for r in facts.results:
        series.setdefault(series_key(r), []).append(r)
    facts.utilisation_min_bytes = int(getattr(params, "utilisation_min_bytes", 0))
    too_small: list[int] = []
    for key, rows in series.items():
        facts.avg_busbw_gbps[key] = statistics.fmean(_busbw(r) for r in rows)
        largest = max(rows, key=lambda r: r.bytes)
        if gbps and largest.bytes >= facts.utilisation_min_bytes:
            facts.utilisation[key] = _busbw(largest) / gbps
        elif gbps:
            too_small.append(largest.bytes)
    if too_small:
        facts.utilisation_note = (
            f"{len(too_small)} series not judged against the {gbps:.3g} Gbit/s bottleneck: their "
            f"largest size ({max(too_small)} B) is below stages.bench.utilisation_min_bytes "
            f"({facts.utilisation_min_bytes} B), where messages are latency-bound; raise "
            "stages.bench.max_bytes (profile=standard goes to 16 MiB) to judge the link."
        )
    for op in OPS:
        by_size: dict[int, list[BenchResult]] = {}
        for r in facts.results:
            if r.op == op and r.op != "sendrecv" and r.dtype == facts.results[0].dtype:
                by_size.setdefault(r.bytes, []).append(r)
        if by_size:
            facts.best_algorithm[op] = {
                str(size): min(rows, key=lambda r: r.time_us_p50).algorithm
                for size, rows in sorted(by_size.items())
            }
    facts.bands = tuner_bands(facts.results)
    model_facts, fitted = ab_model.build(model_points(facts.results, cluster))
    if fitted is not None:
        nominal = {k: v.nominal_gbps for k, v in cluster.links.items()}
        fitted = ab_model.params_with_nominal(fitted, model_facts, nominal)
        shapes = [(int(s[0]), int(s[1])) for s in getattr(params, "whatif_shapes", [])]
        algos = [a for a in getattr(params, "algorithms", ab_model.MODELLED) if a]
        predicted = ab_model.whatif(
            fitted, shapes, int(getattr(params, "whatif_bytes", 100_000_000)), algos
        )
        facts.whatif = predicted
    facts.model = model_facts
    facts.load = ab_load.results_of(records)
    facts.load_choices = ab_load.choices(facts.load)
    for rec in records:
        if rec.rank == 0 and rec.step == "load/setup":
            facts.load_matrix_size = int(rec.metrics["matrix_size"])
            facts.load_period_ms = float(rec.metrics["period_ms"])
    load_cfg = getattr(params, "compute_load", None)
    facts.load_max_slowdown = float(getattr(load_cfg, "max_slowdown", 0.0))
    return facts


def _busbw(r: BenchResult) -> float:
    # Every row this stage measures has its busbw; only an imported table may lack it.
    assert r.busbw_gbps is not None, f"measured {series_key(r)} has no busbw"
    return r.busbw_gbps


# ---------------------------------------------------------------- console table


def table(results: list[BenchResult], *, title: str = "") -> str:
    """nccl-tests-shaped table: a names row, a units row, fixed columns, an average-busbw footer."""
    lines = []
    if title:
        lines.append(f"# {title}")
    head = (
        f"#{'op':>15} {'algorithm':>18} {'type':>5} {'place':>5} {'size':>12} {'count':>11}"
        f" {'time':>10} {'p10':>10} {'p90':>10} {'algbw':>8} {'busbw':>8} {'#wrong':>7}"
    )
    units = (
        f"#{'':>15} {'':>18} {'':>5} {'':>5} {'(B)':>12} {'(elements)':>11}"
        f" {'(us)':>10} {'(us)':>10} {'(us)':>10} {'(GB/s)':>8} {'(GB/s)':>8} {'':>7}"
    )
    lines += [head, units]
    for r in results:
        name = f"{r.op}/{r.link}" if r.link else r.op
        lines.append(
            f" {name:>15} {r.algorithm[:18]:>18} {r.dtype:>5} {'in' if r.in_place else 'out':>5}"
            f" {r.bytes:>12} {r.count!s:>11} {r.time_us_p50:>10.1f} {_us(r.time_us_p10):>10}"
            f" {_us(r.time_us_p90):>10} {r.algbw_gbps / 8:>8.3f} {_busbw(r) / 8:>8.3f}"
            f" {r.wrong!s:>7}"
        )
    wrong = sum(r.wrong for r in results if r.wrong is not None)
    avg = statistics.fmean(_busbw(r) / 8 for r in results) if results else 0.0
    lines.append(f"# Out of bounds values : {wrong} {'OK' if wrong == 0 else 'FAILED'}")
    lines.append(f"# Avg bus bandwidth    : {avg:.3f} GB/s")
    return "\n".join(lines)


def _us(time_us: float | None) -> str:
    return "N/A" if time_us is None else f"{time_us:.1f}"


# ---------------------------------------------------------------- driver


def _measured_bottleneck(ctx: DriverContext, link: str) -> float | None:
    """Median bandwidth of the link class from the connectivity stage of this run, if it ran."""
    path = ctx.run_dir / "facts.json"
    if not path.exists():
        return None
    try:
        stages = json.loads(path.read_text(encoding="utf-8")).get("stages", {})
        value = stages["connectivity"]["data"]["links"][link]["median_gbps"]
    except (KeyError, TypeError, ValueError):
        return None
    return float(value) if value else None


def variants_of(params: BenchConfig, backend: str) -> dict[str, dict[str, str]]:
    if not params.native_variants:
        return {}
    if params.variants:
        return dict(params.variants)
    return native_variants(backend, nccl_version() if backend == "nccl" else None)


def default_job(params: BenchConfig, cluster: Cluster) -> tuple[str, BenchJobConfig, float]:
    """The default job (the backend's settings, the in-project algorithms beside it): it can
    run in the run's shared job. Its deadline leaves the variants at most half of the stage."""
    variants = len(variants_of(params, cluster.backend))
    reserve = min(params.variant_deadline_s * variants, params.deadline_s / 2)
    return DEFAULT_VARIANT, params.job(), params.deadline_s - reserve


def drive(ctx: DriverContext, params: BenchConfig) -> None:
    cluster = ctx.cluster
    link = "inter" if cluster.nodes > 1 else "intra"
    measured = _measured_bottleneck(ctx, link)
    if measured:
        ctx.record("bottleneck", link=link, measured_gbps=measured)
    jobs = {DEFAULT_VARIANT: {}, **variants_of(params, cluster.backend)}
    for index, (variant, env) in enumerate(jobs.items()):
        left = len(jobs) - index
        if variant in ctx.done:
            outcome = ctx.done[variant]  # it ran in the run's shared job
        elif ctx.time_left_s < 5:
            ctx.record("variant", "error", name=variant, env=env, reason="stage deadline reached")
            continue
        else:
            if index == 0:
                # the default job measures the most; the variants share at most half the stage
                reserve = min(params.variant_deadline_s * (left - 1), ctx.time_left_s / 2)
                deadline = ctx.time_left_s - reserve
            else:
                deadline = min(params.variant_deadline_s, ctx.time_left_s / left)
            outcome = ctx.launch(variant, params.job(variant, env), deadline_s=deadline, env=env)
        ctx.record(
            "variant",
            "ok" if outcome.status == "ok" else "error",
            name=variant,
            env=env,
            reason=outcome.reason,
        )
        rows = results_of(ctx.records(variant), cluster.world_size)
        console.plain(table(rows, title=f"bench {variant} ({cluster.shape}, {cluster.backend})"))
        loaded = ab_load.results_of(ctx.records(variant))
        if loaded:
            title = f"bench {variant} under matmul load: slowdown against idle ({cluster.shape})"
            console.plain(ab_load.table(loaded, title=title))
        if index == 0 and outcome.status != "ok":
            # without the default job there is nothing to compare the variants with
            raise RuntimeError(f"the {variant} benchmark job {outcome.status}: {outcome.reason}")


STAGE = Stage(
    name="bench",
    description="collective benchmark: ops × sizes × dtypes × algorithms, α–β model",
    config_type=BenchConfig,
    job_config_type=BenchJobConfig,
    run_rank=run_rank,
    drive=drive,
    first_job=default_job,
    summarize=summarize,
    facts_type=BenchFacts,
    check=backend_problems,
)
