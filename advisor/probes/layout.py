"""Static validation of a subgroup layout: pure functions, no job, no torch.

A layout is a set of *dimensions*, each a list of groups of global ranks, as a training script
passes them to ``new_group``: declared explicitly (``stages.subgroups.layout.groups``), derived
from parallel dimension sizes (``stages.subgroups.layout.parallel``, e.g. tp=8, dp=2 with
node-major placement), or, when nothing is declared, the cluster's natural one (the ranks of each
node, and the same-local-rank peers across nodes). Every rank of the world must be in exactly one
group of each dimension, groups of a dimension are the same size, an ``intra_node`` group holds
ranks of one node and an ``inter_node`` group one rank per node, all with the same local rank.
A wrong group is reported exactly, with the corrected groups where they follow from the kind.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field

from advisor.errors import ConfigError

GROUP_KINDS = ("intra_node", "inter_node", "any")
"""intra_node: ranks of one node; inter_node: one rank per node, same local rank; any: no
placement rule."""

KEY = "stages.subgroups.layout"


@dataclass(kw_only=True)
class GroupSetConfig:
    """One dimension's groups, as a training script would create them."""

    kind: str = "any"
    """Where its groups must lie: intra_node, inter_node or any."""
    ranks: list[list[int]] = field(default_factory=list)
    """The groups, each a list of global ranks, e.g. [[0, 8], [1, 9]]."""


@dataclass(kw_only=True)
class LayoutConfig:
    """The subgroup layout to check (``stages.subgroups.layout``); empty: the cluster's own."""

    groups: dict[str, GroupSetConfig] = field(default_factory=dict)
    """Explicit groups by dimension name, e.g. ``{inter: {kind: inter_node, ranks: [[0, 8]]}}``;
    on the command line a new mapping key takes Hydra's ``+``:
    ``+stages.subgroups.layout.groups={inter:{kind:inter_node,ranks:[[0,8],[1,9]]}}``."""
    parallel: dict[str, int] = field(default_factory=dict)
    """Parallel dimension sizes, innermost (consecutive ranks) first, e.g. ``{tp: 8, dp: 2}``;
    ranks are placed node-major, so the innermost dimension's groups fill a node first."""
    kinds: dict[str, str] = field(default_factory=dict)
    """Kind required of each parallel dimension's groups (default any), e.g. ``{tp: intra_node}``."""

    def __post_init__(self) -> None:
        if self.groups and self.parallel:
            raise ConfigError(
                f"{KEY}: give either groups or parallel, not both (parallel derives the groups)."
            )
        for name, gs in self.groups.items():
            if gs.kind not in GROUP_KINDS:
                raise ConfigError(
                    f"{KEY}.groups.{name}.kind={gs.kind!r} is not one of {', '.join(GROUP_KINDS)}."
                )
            if not gs.ranks or any(len(g) == 0 for g in gs.ranks):
                raise ConfigError(
                    f"{KEY}.groups.{name}.ranks must be a non-empty list of non-empty rank "
                    f"lists, e.g. [[0, 8], [1, 9]]; got {gs.ranks}."
                )
        for name, size in self.parallel.items():
            if size < 1:
                raise ConfigError(f"{KEY}.parallel.{name}={size} must be at least 1.")
        for name, kind in self.kinds.items():
            if name not in self.parallel:
                raise ConfigError(
                    f"{KEY}.kinds.{name} names no parallel dimension "
                    f"(parallel: {', '.join(self.parallel) or 'none'})."
                )
            if kind not in GROUP_KINDS:
                raise ConfigError(
                    f"{KEY}.kinds.{name}={kind!r} is not one of {', '.join(GROUP_KINDS)}."
                )


@dataclass(kw_only=True)
class Dimension:
    name: str
    kind: str
    groups: list[list[int]]


@dataclass(kw_only=True)
class LayoutError:
    """One problem with a dimension, or with one of its groups."""

    dimension: str
    group: list[int] | None
    """The offending group as declared; None when the problem is the dimension as a whole."""
    kind: str
    """out_of_range, duplicate, overlap, incomplete, uneven, same_node, local_rank_mismatch,
    not_all_nodes, spans_nodes, parallel_size."""
    message: str
    expected: list[int] | None = None
    """The group that belongs in its place, where the dimension's kind determines it."""


@dataclass(kw_only=True)
class LayoutCheck:
    """The verdict on a layout (facts ``stages.subgroups.data``, static part)."""

    source: str
    """declared (explicit groups), parallel (derived from sizes) or natural (the cluster's)."""
    declared: dict[str, list[list[int]]] = field(default_factory=dict)
    """Groups of each dimension, as declared or derived."""
    kinds: dict[str, str] = field(default_factory=dict)
    """Kind required of each dimension."""
    spans: dict[str, str] = field(default_factory=dict)
    """Where each dimension's groups really lie: intra_node (each within a node), inter_node (one
    rank per node, same local rank), mixed."""
    errors: list[LayoutError] = field(default_factory=list)
    corrected: dict[str, list[list[int]]] = field(default_factory=dict)
    """For each dimension with errors whose kind determines them: the right groups."""

    @property
    def ok(self) -> bool:
        return not self.errors


def node_groups(nodes: int, per_node: int) -> list[list[int]]:
    return [list(range(n * per_node, (n + 1) * per_node)) for n in range(nodes)]


def inter_node_groups(nodes: int, per_node: int) -> list[list[int]]:
    return [[n * per_node + local for n in range(nodes)] for local in range(per_node)]


def natural_layout(nodes: int, per_node: int) -> list[Dimension]:
    """The cluster's own hierarchy: the ranks of each node, and same-local-rank peers."""
    return [
        Dimension(name="intra_node", kind="intra_node", groups=node_groups(nodes, per_node)),
        Dimension(name="inter_node", kind="inter_node", groups=inter_node_groups(nodes, per_node)),
    ]


def parallel_groups(sizes: dict[str, int]) -> dict[str, list[list[int]]]:
    """Groups of each parallel dimension, innermost first (Megatron-style rank ordering).

    Rank r has coordinate (r // stride_d) % size_d in dimension d, stride_d being the product of
    the sizes inside d; a group holds the ranks that differ only in that coordinate.
    """
    world = math.prod(sizes.values())
    out: dict[str, list[list[int]]] = {}
    stride = 1
    for name, size in sizes.items():
        groups: dict[int, list[int]] = {}
        for r in range(world):
            base = r - ((r // stride) % size) * stride
            groups.setdefault(base, []).append(r)
        out[name] = [groups[b] for b in sorted(groups)]
        stride *= size
    return out


def _span(groups: list[list[int]], nodes: int, per_node: int) -> str:
    def node(r: int) -> int:
        return r // per_node

    # Inter-node first: on a single node, one-rank groups are the (trivial) inter-node groups.
    if all(
        len({node(r) for r in g}) == len(g) == nodes and len({r % per_node for r in g}) == 1
        for g in groups
    ):
        return "inter_node"
    if all(len({node(r) for r in g}) == 1 for g in groups):
        return "intra_node"
    return "mixed"


def _ranks_text(ranks: list[int]) -> str:
    """0, 1, 2, 3 → '0–3'; short lists spelled out."""
    if len(ranks) > 3 and ranks == list(range(ranks[0], ranks[-1] + 1)):
        return f"{ranks[0]}–{ranks[-1]}"
    return ", ".join(map(str, ranks))


def _expected_intra(size: int, nodes: int, per_node: int) -> list[list[int]] | None:
    """Consecutive blocks of ``size`` inside each node, when ``size`` divides a node."""
    if size < 1 or per_node % size:
        return None
    return [list(range(b, b + size)) for b in range(0, nodes * per_node, size)]


def validate_dimension(dim: Dimension, *, nodes: int, per_node: int) -> list[LayoutError]:
    """Every check on one dimension; each error names the group and the fix."""
    world = nodes * per_node
    errors: list[LayoutError] = []

    def err(
        kind: str, message: str, group: list[int] | None = None, expected: list[int] | None = None
    ) -> None:
        errors.append(
            LayoutError(
                dimension=dim.name, group=group, kind=kind, message=message, expected=expected
            )
        )

    seen: dict[int, list[int]] = {}
    for g in dim.groups:
        outside = sorted({r for r in g if not 0 <= r < world})
        if outside:
            err(
                "out_of_range",
                f"{dim.name}: group {g} has ranks {_ranks_text(outside)} outside the world "
                f"0–{world - 1}",
                g,
            )
        dups = sorted(r for r, c in Counter(g).items() if c > 1)
        if dups:
            err("duplicate", f"{dim.name}: group {g} lists rank {_ranks_text(dups)} twice", g)
        for r in dict.fromkeys(g):
            if r in seen and 0 <= r < world:
                err(
                    "overlap",
                    f"{dim.name}: rank {r} is in two groups, {seen[r]} and {g}; a rank belongs "
                    "to exactly one group of each dimension",
                    g,
                )
            seen.setdefault(r, g)
    missing = [r for r in range(world) if r not in seen]
    if missing:
        err(
            "incomplete",
            f"{dim.name}: ranks {_ranks_text(missing)} are in no group; every rank must be in "
            "exactly one group of each dimension",
        )
    sizes = Counter(len(g) for g in dim.groups)
    if len(sizes) > 1:
        common = sizes.most_common(1)[0][0]
        for g in dim.groups:
            if len(g) != common:
                err(
                    "uneven",
                    f"{dim.name}: group {g} has {len(g)} ranks, the others {common}; groups of "
                    "a dimension are the same size",
                    g,
                )
    in_world = [[r for r in g if 0 <= r < world] for g in dim.groups]
    for g, members in zip(dim.groups, in_world, strict=True):
        if not members:
            continue
        node_of = {r: r // per_node for r in members}
        if dim.kind == "inter_node":
            expected = [n * per_node + members[0] % per_node for n in range(nodes)]
            by_node = Counter(node_of.values())
            shared = sorted(r for r in members if by_node[node_of[r]] > 1)
            if shared:
                err(
                    "same_node",
                    f"{dim.name}: inter-node group {g} puts ranks {_ranks_text(shared)} on one "
                    f"node; it should hold one rank per node with the same local rank: "
                    f"{expected}",
                    g,
                    expected=expected,
                )
            elif len({r % per_node for r in members}) > 1:
                err(
                    "local_rank_mismatch",
                    f"{dim.name}: inter-node group {g} mixes local ranks "
                    f"{_ranks_text(sorted({r % per_node for r in members}))}; peers across "
                    f"nodes share one local rank: {expected}",
                    g,
                    expected=expected,
                )
            elif len(by_node) != nodes:
                err(
                    "not_all_nodes",
                    f"{dim.name}: inter-node group {g} spans {len(by_node)} of {nodes} nodes; "
                    f"it should hold one rank of every node: {expected}",
                    g,
                    expected=expected,
                )
        elif dim.kind == "intra_node" and len(set(node_of.values())) > 1:
            blocks = _expected_intra(len(g), nodes, per_node) or []
            expected_block = next((b for b in blocks if members[0] in b), None)
            err(
                "spans_nodes",
                f"{dim.name}: intra-node group {g} spans nodes "
                f"{_ranks_text(sorted(set(node_of.values())))}; it should hold ranks of one node"
                + (f": {expected_block}" if expected_block else f" ({per_node} per node)"),
                g,
                expected=expected_block,
            )
    return errors


def corrected_groups(dim: Dimension, *, nodes: int, per_node: int) -> list[list[int]] | None:
    """The right groups for a dimension whose kind determines them; None for ``any``."""
    if dim.kind == "inter_node":
        return inter_node_groups(nodes, per_node)
    if dim.kind == "intra_node":
        size = Counter(len(g) for g in dim.groups).most_common(1)[0][0] if dim.groups else 0
        return _expected_intra(size, nodes, per_node)
    return None


def validate_layout(
    dims: list[Dimension], *, nodes: int, per_node: int, source: str = "declared"
) -> LayoutCheck:
    """Check every dimension against a nodes x per_node cluster (ranks placed node-major)."""
    check = LayoutCheck(source=source)
    for dim in dims:
        check.declared[dim.name] = [list(g) for g in dim.groups]
        check.kinds[dim.name] = dim.kind
        in_world = [[r for r in g if 0 <= r < nodes * per_node] for g in dim.groups]
        check.spans[dim.name] = _span([g for g in in_world if g], nodes, per_node)
        errors = validate_dimension(dim, nodes=nodes, per_node=per_node)
        check.errors += errors
        if errors:
            fixed = corrected_groups(dim, nodes=nodes, per_node=per_node)
            if fixed is not None:
                check.corrected[dim.name] = fixed
    return check


def check_layout(cfg: LayoutConfig, *, nodes: int, per_node: int) -> LayoutCheck:
    """The layout a config declares (or the natural one), validated: the static check."""
    world = nodes * per_node
    if cfg.groups:
        dims = [Dimension(name=n, kind=g.kind, groups=g.ranks) for n, g in cfg.groups.items()]
        return validate_layout(dims, nodes=nodes, per_node=per_node, source="declared")
    if cfg.parallel:
        product = math.prod(cfg.parallel.values())
        if product != world:
            sizes = " x ".join(f"{n}={s}" for n, s in cfg.parallel.items())
            return LayoutCheck(
                source="parallel",
                kinds={n: cfg.kinds.get(n, "any") for n in cfg.parallel},
                errors=[
                    LayoutError(
                        dimension="*",
                        group=None,
                        kind="parallel_size",
                        message=f"parallel sizes {sizes} = {product} ranks, but the cluster has "
                        f"{world} ({nodes} nodes x {per_node}); their product must equal the "
                        "world size",
                    )
                ],
            )
        dims = [
            Dimension(name=n, kind=cfg.kinds.get(n, "any"), groups=g)
            for n, g in parallel_groups(cfg.parallel).items()
        ]
        return validate_layout(dims, nodes=nodes, per_node=per_node, source="parallel")
    return validate_layout(
        natural_layout(nodes, per_node), nodes=nodes, per_node=per_node, source="natural"
    )
