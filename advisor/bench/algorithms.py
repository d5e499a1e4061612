"""All-reduce algorithms written in the project, over torch.distributed point-to-point and
collectives, so they run on every backend (hccl, nccl, gloo) and can be compared with the native one.

Every algorithm has the signature ``fn(tensor, group=None)`` and sums ``tensor`` across the group's
ranks in place, like ``dist.all_reduce(tensor, group=group)``. Each is also a DDP communication
hook (``DDP_HOOKS``): ``model.register_comm_hook(group_or_None, DDP_HOOKS["ring"])``.

Point-to-point steps post the send and the receive together (``batch_isend_irecv``), so no rank
blocks in a receive before its neighbour has sent: the seed article's ring did exactly that and
deadlocks. Chunk boundaries are computed identically on every rank, so any tensor size works,
including one element and sizes not divisible by the world size (empty chunks are not sent).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import torch
import torch.distributed as dist

from advisor import comm
from advisor.bench.catalog import ALGORITHM_NAMES, DEFAULT_PIPELINE_CHUNK_BYTES, pipeline_chunks

AllReduceFn = Callable[..., None]
"""``fn(tensor, group=None)``: sum ``tensor`` over the group's ranks, in place."""


def _bounds(numel: int, parts: int) -> list[tuple[int, int]]:
    """Split ``numel`` elements into ``parts`` contiguous ranges differing in size by at most 1."""
    base, extra = divmod(numel, parts)
    out = []
    start = 0
    for i in range(parts):
        size = base + (1 if i < extra else 0)
        out.append((start, start + size))
        start += size
    return out


def _flat(tensor: torch.Tensor) -> tuple[torch.Tensor, bool]:
    """A 1-D view of ``tensor`` (or a contiguous copy; the bool says whether to copy back)."""
    if tensor.is_contiguous():
        return tensor.view(-1), False
    return tensor.contiguous().view(-1), True


def _group_info(group: Any) -> tuple[int, int]:
    """(this rank's index in the group, group size)."""
    return dist.get_rank(group), dist.get_world_size(group)


def _exchange(
    send: torch.Tensor | None,
    to: int,
    recv: torch.Tensor | None,
    frm: int,
    group: Any,
) -> None:
    """Post a send and a receive together and wait for both (group-local peer indices)."""
    comm.exchange(
        [(send, to)] if send is not None else [], [(recv, frm)] if recv is not None else [], group
    )


def native_all_reduce(tensor: torch.Tensor, group: Any = None) -> None:
    """The backend's own all_reduce (the reference every algorithm is checked against)."""
    comm.all_reduce(tensor, group=group)


def _ring_reduce_scatter(
    flat: torch.Tensor, bounds: list[tuple[int, int]], rank: int, n: int, group: Any
) -> None:
    """n-1 ring steps after which block ``rank`` of ``flat`` holds the sum over the group.

    Step s sends block (rank-s-1) to the right neighbour and adds block (rank-s-2) received
    from the left one, so each rank ends owning its own block.
    """
    right, left = (rank + 1) % n, (rank - 1) % n
    scratch = flat.new_empty(bounds[0][1] - bounds[0][0])
    for step in range(n - 1):
        s0, s1 = bounds[(rank - step - 1) % n]
        r0, r1 = bounds[(rank - step - 2) % n]
        incoming = scratch[: r1 - r0]
        _exchange(flat[s0:s1], right, incoming, left, group)
        flat[r0:r1].add_(incoming)


def _ring_all_gather(
    flat: torch.Tensor, bounds: list[tuple[int, int]], rank: int, n: int, group: Any
) -> None:
    """n-1 ring steps that circulate each rank's block ``rank`` to every rank."""
    right, left = (rank + 1) % n, (rank - 1) % n
    for step in range(n - 1):
        s0, s1 = bounds[(rank - step) % n]
        r0, r1 = bounds[(rank - step - 1) % n]
        _exchange(flat[s0:s1], right, flat[r0:r1], left, group)


def ring_all_reduce(tensor: torch.Tensor, group: Any = None) -> None:
    """Ring all-reduce: reduce-scatter then all-gather around the ring, one chunk per step.

    n-1 steps pass one chunk (1/n of the tensor) to the next rank and add the chunk received from
    the previous one; after them each rank holds one fully reduced chunk. n-1 more steps circulate
    the reduced chunks. Every rank sends 2(n-1)/n of the tensor in total.
    """
    rank, n = _group_info(group)
    if n == 1:
        return
    flat, copied = _flat(tensor)
    bounds = _bounds(flat.numel(), n)
    _ring_reduce_scatter(flat, bounds, rank, n, group)
    _ring_all_gather(flat, bounds, rank, n, group)
    if copied:
        tensor.copy_(flat.view_as(tensor))


def halving_doubling_all_reduce(tensor: torch.Tensor, group: Any = None) -> None:
    """Recursive halving (reduce-scatter) then recursive doubling (all-gather), Rabenseifner.

    Non-power-of-two sizes: with p the largest power of two not above n and r = n - p, the first
    2r ranks pair up; the even one of each pair folds its tensor into the odd one and sits out,
    leaving p ranks; at the end the odd one sends the result back. log2(p) exchange steps each
    way, halving then doubling the bytes exchanged.
    """
    rank, n = _group_info(group)
    if n == 1:
        return
    flat, copied = _flat(tensor)
    p = 1 << (n.bit_length() - 1)
    r = n - p
    if rank < 2 * r:
        if rank % 2 == 0:
            _exchange(flat, rank + 1, None, 0, group)
            _exchange(None, 0, flat, rank + 1, group)
            if copied:
                tensor.copy_(flat.view_as(tensor))
            return
        incoming = torch.empty_like(flat)
        _exchange(None, 0, incoming, rank - 1, group)
        flat.add_(incoming)
        new_rank = rank // 2
    else:
        new_rank = rank - r

    def real(nr: int) -> int:
        return nr * 2 + 1 if nr < r else nr + r

    blocks = _bounds(flat.numel(), p)
    lo, hi = 0, p
    scratch = flat.new_empty(blocks[0][1] * (p // 2 or 1))
    d = p // 2
    while d >= 1:
        partner = new_rank ^ d
        mid = lo + d
        keep, give = ((lo, mid), (mid, hi)) if new_rank & d == 0 else ((mid, hi), (lo, mid))
        k0, k1 = blocks[keep[0]][0], blocks[keep[1] - 1][1]
        g0, g1 = blocks[give[0]][0], blocks[give[1] - 1][1]
        incoming = scratch[: k1 - k0]
        _exchange(flat[g0:g1], real(partner), incoming, real(partner), group)
        flat[k0:k1].add_(incoming)
        lo, hi = keep
        d //= 2
    d = 1
    while d < p:
        partner = new_rank ^ d
        # our range has d blocks; the partner holds the d blocks beside it (below when we kept
        # the upper half at this distance while halving)
        plo = lo - d if new_rank & d else lo + d
        phi = plo + d
        m0, m1 = blocks[lo][0], blocks[hi - 1][1]
        q0, q1 = blocks[plo][0], blocks[phi - 1][1]
        _exchange(flat[m0:m1], real(partner), flat[q0:q1], real(partner), group)
        lo, hi = min(lo, plo), max(hi, phi)
        d *= 2
    if rank < 2 * r:
        _exchange(flat, rank - 1, None, 0, group)
    if copied:
        tensor.copy_(flat.view_as(tensor))


def tree_all_reduce(tensor: torch.Tensor, group: Any = None) -> None:
    """Binomial-tree reduce to the group's first rank, then binomial-tree broadcast from it.

    2·ceil(log2 n) steps, each moving the whole tensor: few steps (good for small messages),
    many bytes (poor for large ones) — the latency end of the trade-off.
    """
    rank, n = _group_info(group)
    if n == 1:
        return
    flat, copied = _flat(tensor)
    incoming = torch.empty_like(flat)
    d = 1
    while d < n:
        if rank % (2 * d) == d:
            _exchange(flat, rank - d, None, 0, group)
            break
        if rank % (2 * d) == 0 and rank + d < n:
            _exchange(None, 0, incoming, rank + d, group)
            flat.add_(incoming)
        d *= 2
    d = 1 << (n - 1).bit_length()
    while d >= 1:
        if rank % (2 * d) == d:
            _exchange(None, 0, flat, rank - d, group)
        elif rank % (2 * d) == 0 and rank + d < n:
            _exchange(flat, rank + d, None, 0, group)
        d //= 2
    if copied:
        tensor.copy_(flat.view_as(tensor))


@dataclass(kw_only=True)
class Hierarchy:
    """Process groups of a two-level all-reduce: this rank's node, and its same-local-rank peers.

    Built by ``Hierarchy.build`` on every rank of the parent group in the same order (``new_group``
    is collective): all node groups, then all inter-node groups.
    """

    nodes: int
    ranks_per_node: int
    node: int
    local_rank: int
    node_group: Any
    inter_group: Any

    @classmethod
    def build(cls, ranks_per_node: int, group: Any = None) -> Hierarchy:
        """Groups for ranks placed node-major: rank = node * ranks_per_node + local_rank."""
        ranks = (
            list(range(dist.get_world_size()))
            if group is None
            else dist.get_process_group_ranks(group)
        )
        n = len(ranks)
        if ranks_per_node < 1 or n % ranks_per_node:
            raise ValueError(
                f"hierarchical all-reduce: {n} ranks do not split into nodes of "
                f"{ranks_per_node} ranks; pass ranks_per_node dividing the group size."
            )
        nodes = n // ranks_per_node
        me = dist.get_rank(group)
        node_groups = [ranks[i * ranks_per_node : (i + 1) * ranks_per_node] for i in range(nodes)]
        inter_groups = [
            [ranks[i * ranks_per_node + j] for i in range(nodes)] for j in range(ranks_per_node)
        ]
        mine: dict[str, Any] = {}
        for kind, groups in (("node", node_groups), ("inter", inter_groups)):
            for members in groups:
                pg = comm.new_group(members)
                if ranks[me] in members:
                    mine[kind] = pg
        return cls(
            nodes=nodes,
            ranks_per_node=ranks_per_node,
            node=me // ranks_per_node,
            local_rank=me % ranks_per_node,
            node_group=mine["node"],
            inter_group=mine["inter"],
        )


_HIERARCHIES: dict[tuple[int, int], Hierarchy] = {}


def default_ranks_per_node() -> int:
    """Ranks per node of this job: torchrun's LOCAL_WORLD_SIZE (one agent per node)."""
    value = os.environ.get("LOCAL_WORLD_SIZE")
    if not value:
        raise RuntimeError(
            "hierarchical all-reduce needs the node layout: run under torchrun (which sets "
            "LOCAL_WORLD_SIZE) or pass hierarchy=Hierarchy.build(ranks_per_node)."
        )
    return int(value)


def hierarchy_for(group: Any = None, ranks_per_node: int | None = None) -> Hierarchy:
    """The cached hierarchy of ``group`` (built on first use; every rank calls it together)."""
    rpn = ranks_per_node or default_ranks_per_node()
    key = (id(group), rpn)
    if key not in _HIERARCHIES:
        _HIERARCHIES[key] = Hierarchy.build(rpn, group)
        # its groups are the stage's: destroyed when it ends, so the cache must forget them
        comm.at_stage_end(_HIERARCHIES.clear)
    return _HIERARCHIES[key]


def hierarchical_all_reduce(
    tensor: torch.Tensor,
    group: Any = None,
    *,
    hierarchy: Hierarchy | None = None,
    chunk_bytes: int = DEFAULT_PIPELINE_CHUNK_BYTES,
) -> None:
    """Two-level all-reduce: reduce-scatter in the node, all-reduce across nodes, all-gather.

    Only 1/G of the tensor (G ranks per node) crosses the inter-node link per rank: the G peer
    all-reduces together move 2(N-1)/N of the tensor over each node's link, against 2(n-1)/n for
    a flat ring. The tensor is cut into chunks and the phases pipelined: while chunk c crosses
    nodes (the backend's all-reduce, running asynchronously), this thread reduce-scatters chunk
    c+1 and all-gathers chunk c-1 inside the node with ring point-to-point steps, so the
    intra-node phases hide behind the inter-node one. (On gloo the point-to-point ring is also
    about twice as fast as its reduce_scatter_tensor and all_gather_into_tensor.)
    """
    h = hierarchy or hierarchy_for(group)
    g = h.ranks_per_node
    flat, copied = _flat(tensor)
    numel = flat.numel()
    padded_numel = -(-numel // g) * g
    work = flat
    if padded_numel != numel:
        work = flat.new_zeros(padded_numel)
        work[:numel].copy_(flat)
    units = padded_numel // g
    chunks = pipeline_chunks(numel, flat.element_size(), g, chunk_bytes)
    pieces = [work[u0 * g : u1 * g] for u0, u1 in _bounds(units, chunks) if u1 > u0]

    if g == 1 or h.nodes == 1:
        one_level = h.inter_group if g == 1 else h.node_group
        for piece in pieces:
            comm.all_reduce(piece, group=one_level)
    else:
        me = h.local_rank

        def blocks(piece: torch.Tensor) -> list[tuple[int, int]]:
            u = piece.numel() // g
            return [(i * u, (i + 1) * u) for i in range(g)]

        def shard(piece: torch.Tensor) -> torch.Tensor:
            b0, b1 = blocks(piece)[me]
            return piece[b0:b1]

        inter: list[Any] = []
        for i, piece in enumerate(pieces):
            _ring_reduce_scatter(piece, blocks(piece), me, g, h.node_group)
            # the same block index on every node: the peers of one inter group add like parts
            inter.append(comm.all_reduce(shard(piece), group=h.inter_group, async_op=True))
            if i >= 1:
                inter[i - 1].wait()
                _ring_all_gather(pieces[i - 1], blocks(pieces[i - 1]), me, g, h.node_group)
        inter[-1].wait()
        _ring_all_gather(pieces[-1], blocks(pieces[-1]), me, g, h.node_group)
    if work is not flat:
        flat.copy_(work[:numel])
    if copied:
        tensor.copy_(flat.view_as(tensor))


ALGORITHMS: dict[str, AllReduceFn] = {
    "native": native_all_reduce,
    "ring": ring_all_reduce,
    "halving_doubling": halving_doubling_all_reduce,
    "tree": tree_all_reduce,
    "hierarchical": hierarchical_all_reduce,
}
"""Name → all-reduce function; ``native`` is the backend's own."""
assert tuple(ALGORITHMS) == ALGORITHM_NAMES, "advisor.bench.catalog lists the same algorithms"


def make_ddp_hook(fn: AllReduceFn) -> Callable[[Any, Any], torch.futures.Future[torch.Tensor]]:
    """A DDP communication hook that all-reduces each gradient bucket with ``fn`` and averages.

    Register with ``model.register_comm_hook(state, hook)`` where ``state`` is the process group
    DDP uses (None for the default group). The reduction runs when the bucket is ready and the
    returned future is already complete, so the hook is exact but does not overlap backward.
    """

    def hook(state: Any, bucket: Any) -> torch.futures.Future[torch.Tensor]:
        buffer = bucket.buffer()
        # DDP's bucket lives where the model does: on the device (advisor.comm.adopt).
        fn(comm.adopt(buffer), state)
        buffer.div_(dist.get_world_size(state))
        fut: torch.futures.Future[torch.Tensor] = torch.futures.Future()
        fut.set_result(buffer)
        return fut

    hook.__name__ = f"{getattr(fn, '__name__', 'all_reduce')}_hook"
    # DDP checks the hook's annotations as objects; this module's are strings (postponed).
    hook.__annotations__ = {
        "state": object,
        "bucket": dist.GradBucket,
        "return": torch.futures.Future[torch.Tensor],
    }
    return hook


def make_auto_hook(
    table: list[tuple[int, int, str]],
) -> Callable[[Any, Any], torch.futures.Future[torch.Tensor]]:
    """A DDP hook that all-reduces each bucket with the algorithm ``table`` names for its size in
    bytes (``(min_bytes, max_bytes, algorithm)``, inclusive, the benchmark's per-size bands);
    the backend's own all_reduce where no band holds the size."""
    hooks = {name: make_ddp_hook(fn) for name, fn in ALGORITHMS.items()}

    def hook(state: Any, bucket: Any) -> torch.futures.Future[torch.Tensor]:
        buffer = bucket.buffer()
        size = buffer.numel() * buffer.element_size()
        name = next((a for low, high, a in table if low <= size <= high), "native")
        return hooks[name](state, bucket)

    hook.__name__ = "auto_hook"
    hook.__annotations__ = {
        "state": object,
        "bucket": dist.GradBucket,
        "return": torch.futures.Future[torch.Tensor],
    }
    return hook


DDP_HOOKS: dict[str, Callable[[Any, Any], torch.futures.Future[torch.Tensor]]] = {
    name: make_ddp_hook(fn) for name, fn in ALGORITHMS.items()
}
"""Name → DDP communication hook (sum with the algorithm, then divide by the world size)."""


def get(name: str) -> AllReduceFn:
    try:
        return ALGORITHMS[name]
    except KeyError:
        raise KeyError(
            f"unknown all-reduce algorithm {name!r}; known: {', '.join(ALGORITHMS)}"
        ) from None
