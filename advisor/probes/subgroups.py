"""The subgroups probe: a layout checked statically, then created and exercised on every rank.

Static (no job, ``advisor.probes.layout``): the declared layout, or the cluster's natural one,
validated; wrong groups are reported with the corrected ones. Dynamic (this job's ranks):

1. creation order: each rank's planned ``new_group`` sequence is gathered and compared *before*
   any group is created. torch names groups by creation count, so ranks creating groups in
   different orders would cross-wire them (a hang or silently wrong results); the diverging ranks
   are named and no group is created.
2. creation: every rank creates every group, in order, each with ``collective_timeout_s`` so a
   collective that cannot complete fails fast instead of waiting for the process-group timeout.
3. membership: a known-value all_reduce per group (sum of rank+1 and member count).
4. fingerprints: a short scripted collective sequence is described per rank (op, shape, dtype,
   dimension, in call order) and gathered before it runs, as ``TORCH_DISTRIBUTED_DEBUG=DETAIL``
   checks each collective; ranks whose sequence differs from the majority are named with the
   first differing call. This needs no subgroup, so it runs even when creation was skipped.
5. sequence: when the groups exist and every script agrees, run it and check every result;
   a mismatched script is not run, as it would deadlock or mix data.

Each step is entered through the arrival guard, so a rank that never arrives is named, never
waited for until the stage deadline.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from advisor.errors import ConfigError
from advisor.probes.guard import Guard, Hang, hang_from_records
from advisor.probes.layout import (
    Dimension,
    LayoutCheck,
    LayoutConfig,
    LayoutError,
    check_layout,
    natural_layout,
)
from advisor.stages import Stage, StageConfig

if TYPE_CHECKING:
    from advisor.cluster import Cluster
    from advisor.results import Record
    from advisor.worker import RankContext


@dataclass(kw_only=True)
class SubgroupsConfig(StageConfig):
    """The subgroups probe's settings (``stages.subgroups``)."""

    deadline_s: float = 90.0
    layout: LayoutConfig = field(default_factory=LayoutConfig)
    """Layout to check; empty: the cluster's natural one (node groups and inter-node groups)."""
    arrival_timeout_s: float = 10.0
    """How long ranks wait at each step for the others before naming those that never came."""
    collective_timeout_s: float = 10.0
    """Timeout of every group created: a collective that cannot complete fails after this."""
    elements: int = 1024
    """Elements per tensor in the scripted collective sequence."""
    inject_mismatch_ranks: list[int] = field(default_factory=list)
    """Drill knob: these ranks script a different collective sequence (a float64 all_gather
    and one extra all_reduce), to prove mismatches are named."""
    inject_reorder_ranks: list[int] = field(default_factory=list)
    """Drill knob: these ranks plan to create the groups in reverse order, to prove a
    divergent creation order is named."""

    def __post_init__(self) -> None:
        if not 0 < self.arrival_timeout_s <= self.deadline_s - 10:
            raise ConfigError(
                f"stages.subgroups.arrival_timeout_s={self.arrival_timeout_s:g} must be positive "
                f"and at least 10 s below stages.subgroups.deadline_s={self.deadline_s:g}, so a "
                "missing rank is named before the stage is stopped."
            )
        if self.collective_timeout_s <= 0:
            raise ConfigError(
                "stages.subgroups.collective_timeout_s must be positive, got "
                f"{self.collective_timeout_s:g}."
            )
        if self.elements < 1:
            raise ConfigError(f"stages.subgroups.elements must be at least 1, got {self.elements}.")


@dataclass(kw_only=True)
class MembershipResult:
    dimension: str
    group: list[int]
    rank: int
    expected: list[float]
    """[sum of member rank+1, member count]."""
    got: list[float]
    ok: bool


@dataclass(kw_only=True)
class SequenceMismatch:
    rank: int
    call: int
    """Index of the first differing call (== expected_count when only the count differs)."""
    expected: dict[str, Any] | None
    """The majority's call at that index; None when the rank made extra calls."""
    got: dict[str, Any] | None
    """This rank's call at that index; None when it made fewer calls."""
    count: int
    expected_count: int


@dataclass(kw_only=True)
class SubgroupsFacts:
    """Summary of the subgroups probe (facts ``stages.subgroups.data``)."""

    source: str = ""
    """declared, parallel or natural: where the checked layout came from."""
    declared: dict[str, list[list[int]]] = field(default_factory=dict)
    """Groups of each dimension, as declared or derived."""
    kinds: dict[str, str] = field(default_factory=dict)
    spans: dict[str, str] = field(default_factory=dict)
    """Where each dimension's groups really lie (intra_node, inter_node, mixed)."""
    errors: list[LayoutError] = field(default_factory=list)
    """Static errors: {dimension, group, kind, message, expected}."""
    corrected: dict[str, list[list[int]]] = field(default_factory=dict)
    """The right groups for each dimension with errors, where its kind determines them."""
    exercised: str = ""
    """Which layout the job created: declared/parallel/natural when valid, else corrected (or
    natural when nothing could be corrected)."""
    exercised_groups: dict[str, list[list[int]]] = field(default_factory=dict)
    creation_mismatch_ranks: list[int] = field(default_factory=list)
    """Ranks whose group creation order differs from the majority (groups then not created)."""
    groups_created: bool | None = None
    membership_ok: bool | None = None
    """Every group's known-value all_reduce was right; None when not reached."""
    membership_errors: list[MembershipResult] = field(default_factory=list)
    fingerprint_mismatch_ranks: list[int] = field(default_factory=list)
    """Ranks whose scripted collective sequence differs from the majority."""
    fingerprint_mismatches: list[SequenceMismatch] = field(default_factory=list)
    sequence_ok: bool | None = None
    """The scripted sequence ran and every result was right; None when not run."""
    hang: Hang | None = None
    """Set when ranks never reached a step."""


def exercised_layout(check: LayoutCheck, nodes: int, per_node: int) -> tuple[str, list[Dimension]]:
    """What the job creates: a valid layout as is; else its corrections; else the natural one."""
    if check.ok:
        dims = [Dimension(name=n, kind=check.kinds[n], groups=g) for n, g in check.declared.items()]
        return check.source, dims
    dims = [
        Dimension(name=n, kind=check.kinds.get(n, "any"), groups=check.corrected.get(n, g))
        for n, g in check.declared.items()
        if not any(e.dimension == n for e in check.errors) or n in check.corrected
    ]
    if dims and len(dims) == len(check.declared):
        return "corrected", dims
    return "natural", natural_layout(nodes, per_node)


def digest(obj: Any) -> str:
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:16]


def majority(values: dict[int, str]) -> str:
    """The most common value; a tie goes to the value held by the lowest rank."""
    counts = Counter(values.values())
    top = max(counts.values())
    return next(v for _, v in sorted(values.items()) if counts[v] == top)


def compare_sequences(seqs: dict[int, list[dict[str, Any]]]) -> list[SequenceMismatch]:
    """Ranks whose call sequence differs from the majority, each with its first difference."""
    hashes = {r: digest(s) for r, s in seqs.items()}
    ref_hash = majority(hashes)
    ref = next(seqs[r] for r in sorted(seqs) if hashes[r] == ref_hash)
    out = []
    for rank in sorted(seqs):
        seq = seqs[rank]
        if hashes[rank] == ref_hash:
            continue
        i = next(
            (k for k in range(min(len(seq), len(ref))) if seq[k] != ref[k]), min(len(seq), len(ref))
        )
        out.append(
            SequenceMismatch(
                rank=rank,
                call=i,
                expected=ref[i] if i < len(ref) else None,
                got=seq[i] if i < len(seq) else None,
                count=len(seq),
                expected_count=len(ref),
            )
        )
    return out


def script(dims: list[Dimension], elements: int, *, mismatch: bool) -> list[dict[str, Any]]:
    """The scripted collective sequence: per dimension all_reduce, all_gather, broadcast.

    Calls name the dimension, not the group, so every rank's script is comparable.
    """
    calls: list[dict[str, Any]] = []
    for d in dims:
        calls += [
            {"op": "all_reduce", "shape": [elements], "dtype": "float32", "dim": d.name},
            {"op": "all_gather", "shape": [elements], "dtype": "float32", "dim": d.name},
            {"op": "broadcast", "shape": [elements], "dtype": "float32", "dim": d.name},
        ]
    if mismatch:
        calls[1] = {**calls[1], "dtype": "float64"}
        calls.append({"op": "all_reduce", "shape": [1], "dtype": "float32", "dim": dims[0].name})
    return calls


def run_rank(ctx: RankContext, params: SubgroupsConfig) -> None:
    from advisor import comm

    guard = Guard(ctx, params.arrival_timeout_s)
    nodes, per_node = ctx.cluster.nodes, ctx.cluster.devices_per_node
    check = check_layout(params.layout, nodes=nodes, per_node=per_node)
    exercised, dims = exercised_layout(check, nodes, per_node)
    if ctx.rank == 0:
        ctx.record("plan", exercised=exercised, groups={d.name: d.groups for d in dims})

    with ctx.step("creation_order") as m:
        guard.arrive("creation_order")
        plan = [[d.name, g] for d in dims for g in d.groups]
        if ctx.rank in params.inject_reorder_ranks:
            plan.reverse()
        plans = comm.gather_objects(plan)
        hashes = {r: digest(p) for r, p in enumerate(plans)}
        m.update(sequence_hash=hashes[ctx.rank], sequence=plan)
        diverging = sorted(r for r, h in hashes.items() if h != majority(hashes))
        m["diverging_ranks"] = diverging
    handles = {} if diverging else create_groups(ctx, guard, plan, params)
    with ctx.step("fingerprint") as m:
        guard.arrive("fingerprint")
        calls = script(dims, params.elements, mismatch=ctx.rank in params.inject_mismatch_ranks)
        gathered = comm.gather_objects(calls)
        mismatches = compare_sequences(dict(enumerate(gathered)))
        m.update(calls=calls, sequence_hash=digest(calls), count=len(calls))
        m["mismatch_ranks"] = [x.rank for x in mismatches]
    if not (diverging or mismatches):
        with ctx.step("sequence") as m:
            guard.arrive("sequence")
            m["wrong"] = run_script(ctx, calls, handles)


def create_groups(
    ctx: RankContext, guard: Guard, plan: list[Any], params: SubgroupsConfig
) -> dict[str, tuple[list[int], Any]]:
    """Create every group in plan order (every rank, every group); check each one's members."""
    import torch
    import torch.distributed as dist

    from advisor import comm

    handles: dict[str, tuple[list[int], Any]] = {}
    with ctx.step("create_groups") as m:
        guard.arrive("create_groups")
        t0 = time.perf_counter()
        for name, ranks in plan:
            h = comm.new_group(ranks, timeout_s=params.collective_timeout_s)
            if ctx.rank in ranks:
                handles[name] = (ranks, h)
        m.update(groups=len(plan), create_s=time.perf_counter() - t0)

    with ctx.step("membership") as m:
        guard.arrive("membership")
        results = []
        for name, (ranks, h) in handles.items():
            # int64: exact, and every backend reduces it (HCCL has no float64 all_reduce before
            # the 950; see advisor.backends.HCCL_DTYPES).
            t = comm.tensor([ctx.rank + 1, 1], dtype=torch.int64)
            comm.all_reduce(t, group=h)
            ctx.sync()
            expected = [float(sum(r + 1 for r in ranks)), float(len(ranks))]
            got = [float(x) for x in t.tolist()]
            ok = got == expected and dist.get_world_size(h) == len(ranks)
            results.append(
                {"dimension": name, "group": ranks, "expected": expected, "got": got, "ok": ok}
            )
        m.update(results=results, ok=all(r["ok"] for r in results))
    return handles


def run_script(
    ctx: RankContext, calls: list[dict[str, Any]], handles: dict[str, tuple[list[int], Any]]
) -> int:
    """Run the scripted calls on this rank's groups; returns how many results were wrong."""
    import torch

    from advisor import comm

    wrong = 0
    for call in calls:
        ranks, h = handles[call["dim"]]
        dtype = getattr(torch, call["dtype"])
        mine = comm.full(call["shape"], float(ctx.rank + 1), dtype=dtype)
        if call["op"] == "all_reduce":
            comm.all_reduce(mine, group=h)
            expected = [torch.full_like(mine, float(sum(r + 1 for r in ranks)))]
            got = [mine]
        elif call["op"] == "all_gather":
            got = [torch.empty_like(mine) for _ in ranks]
            comm.all_gather(got, mine, group=h)
            expected = [torch.full_like(mine, float(r + 1)) for r in ranks]
        else:
            comm.broadcast(mine, src=ranks[0], group=h)
            expected = [torch.full_like(mine, float(ranks[0] + 1))]
            got = [mine]
        ctx.sync()
        wrong += sum(int((g != e).sum().item()) for g, e in zip(got, expected, strict=True))
    return wrong


def summarize(records: list[Record], cluster: Cluster, params: SubgroupsConfig) -> SubgroupsFacts:
    check = check_layout(params.layout, nodes=cluster.nodes, per_node=cluster.devices_per_node)
    facts = SubgroupsFacts(
        source=check.source,
        declared=check.declared,
        kinds=check.kinds,
        spans=check.spans,
        errors=check.errors,
        corrected=check.corrected,
    )
    ok = [r for r in records if r.status == "ok"]
    for r in ok:
        if r.step == "plan":
            facts.exercised = str(r.metrics.get("exercised", ""))
            facts.exercised_groups = dict(r.metrics.get("groups", {}))
    orders = {r.rank: str(r.metrics["sequence_hash"]) for r in ok if r.step == "creation_order"}
    if orders:
        ref = majority(orders)
        facts.creation_mismatch_ranks = sorted(r for r, h in orders.items() if h != ref)
    created = [r for r in records if r.step == "create_groups" and r.status != "started"]
    if created:
        facts.groups_created = all(r.status == "ok" for r in created)
    member = [r for r in ok if r.step == "membership"]
    if member:
        facts.membership_ok = all(bool(r.metrics.get("ok")) for r in member)
        facts.membership_errors = [
            MembershipResult(rank=r.rank, **res)
            for r in member
            for res in r.metrics.get("results", [])
            if not res["ok"]
        ]
    seqs = {r.rank: list(r.metrics["calls"]) for r in ok if r.step == "fingerprint"}
    if seqs:
        facts.fingerprint_mismatches = compare_sequences(seqs)
        facts.fingerprint_mismatch_ranks = [m.rank for m in facts.fingerprint_mismatches]
    ran = [r for r in records if r.step == "sequence" and r.status != "started"]
    if ran:
        facts.sequence_ok = all(r.status == "ok" and not r.metrics.get("wrong") for r in ran)
    facts.hang = hang_from_records(records)
    return facts


STAGE = Stage(
    name="subgroups",
    description="layout validated; groups created in one order, membership and call sequences",
    config_type=SubgroupsConfig,
    run_rank=run_rank,
    summarize=summarize,
    facts_type=SubgroupsFacts,
)
