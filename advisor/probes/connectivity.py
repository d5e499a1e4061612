"""The connectivity stage: point-to-point latency and bandwidth between rank pairs, NICs compared.

Ring neighbours are always tested; ``pairs: all`` tests every pair. Pairs are scheduled in rounds
in which no rank appears twice (a round-robin tournament for all pairs: n-1 rounds for even n, n
for odd), and the pairs of a round run concurrently, so the stage takes O(n) exchanges per rank
rather than O(n^2) serial steps. Each rank walks its own rounds without a global barrier, so a
dead rank stalls only its own partners, each of which names the failed pair and moves on.

Per pair the lower rank is the initiator: a small-message ping-pong gives the latency (half the
median round trip); a large-message ping-pong per configured size gives the bandwidth (the same
payload crosses the link twice per round trip, one direction at a time; the median round trip is
used so a preempted iteration does not make a healthy link look slow).
"""

from __future__ import annotations

import os
import statistics
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from advisor import backends
from advisor.errors import ConfigError
from advisor.probes import nics as nicmod
from advisor.stages import Stage, StageConfig

if TYPE_CHECKING:
    from advisor.cluster import Cluster
    from advisor.results import Record
    from advisor.worker import RankContext

PAIR_MODES = ("ring", "all")


@dataclass(kw_only=True)
class ConnectivityConfig(StageConfig):
    """The connectivity stage's settings."""

    deadline_s: float = 120.0
    pairs: str = "ring"
    """ring: each rank with its ring neighbours; all: every pair (n-1 concurrent rounds)."""
    latency_bytes: int = 8
    """Message size of the latency ping-pong."""
    latency_iters: int = 20
    """Timed round trips of the latency ping-pong."""
    bandwidth_bytes: list[int] = field(default_factory=lambda: [1 << 20])
    """Message sizes of the bandwidth ping-pong; the pair's ``bandwidth_gbps`` is the largest."""
    bandwidth_iters: int = 5
    """Timed round trips per bandwidth size."""
    warmup_iters: int = 2
    """Untimed round trips before each timed series (connection set-up, caches)."""
    pair_timeout_s: float = 15.0
    """Longest wait for one message of a pair; past it the pair is reported as failed."""

    def __post_init__(self) -> None:
        if self.pairs not in PAIR_MODES:
            raise ConfigError(
                f"stages.connectivity.pairs={self.pairs!r} must be one of {', '.join(PAIR_MODES)}."
            )
        if self.latency_bytes < 1 or any(b < 1 for b in self.bandwidth_bytes):
            raise ConfigError(
                "stages.connectivity.latency_bytes and bandwidth_bytes must be positive sizes."
            )
        if not self.bandwidth_bytes:
            raise ConfigError("stages.connectivity.bandwidth_bytes needs at least one size.")
        if min(self.latency_iters, self.bandwidth_iters) < 1 or self.warmup_iters < 0:
            raise ConfigError(
                "stages.connectivity.latency_iters and bandwidth_iters must be at least 1, "
                "warmup_iters at least 0."
            )
        if self.pair_timeout_s <= 0:
            raise ConfigError("stages.connectivity.pair_timeout_s must be positive.")


# --- schedule -------------------------------------------------------------------------------

Pair = tuple[int, int]


def round_robin_rounds(n: int) -> list[list[Pair]]:
    """Every pair of ``n`` ranks exactly once, in rounds where no rank appears twice.

    The circle method: rank 0 stays put, the others rotate; n-1 rounds for even n, n rounds for
    odd n (each round one rank sits out).
    """
    if n < 2:
        return []
    players: list[int | None] = list(range(n))
    if n % 2:
        players.append(None)
    m = len(players)
    rounds = []
    for _ in range(m - 1):
        pairs = []
        for i in range(m // 2):
            a, b = players[i], players[m - 1 - i]
            if a is not None and b is not None:
                pairs.append((min(a, b), max(a, b)))
        rounds.append(sorted(pairs))
        players = [players[0], players[-1], *players[1:-1]]
    return rounds


def ring_pairs(n: int) -> list[Pair]:
    return sorted({(min(i, (i + 1) % n), max(i, (i + 1) % n)) for i in range(n) if n > 1})


def schedule(pairs: list[Pair]) -> list[list[Pair]]:
    """Pack pairs into rounds greedily so that no rank is in two pairs of one round."""
    rounds: list[list[Pair]] = []
    busy: list[set[int]] = []
    for a, b in pairs:
        for i, used in enumerate(busy):
            if a not in used and b not in used:
                rounds[i].append((a, b))
                used.update((a, b))
                break
        else:
            rounds.append([(a, b)])
            busy.append({a, b})
    return rounds


def plan_rounds(mode: str, n: int) -> list[list[Pair]]:
    return round_robin_rounds(n) if mode == "all" else schedule(ring_pairs(n))


# --- rank side ------------------------------------------------------------------------------


def _ping_pong(peer: int, initiator: bool, send: Any, recv: Any, timeout_s: float) -> None:
    """One round trip with ``peer``; each message waited for at most ``timeout_s``.

    The wait is the advisor's own (``comm.wait``): on HCCL and NCCL ``Work.wait(timeout)`` does
    not bound the wait, so a dead peer would otherwise hold this rank until the stage deadline.
    No tag: HCCL and NCCL ignore tags; a pair's messages match in the order they are posted.
    """
    from advisor import comm

    def sent() -> None:
        comm.wait(comm.isend(send, peer), timeout_s, f"send to rank {peer}")

    def received() -> None:
        comm.wait(comm.irecv(recv, peer), timeout_s, f"receive from rank {peer}")

    if initiator:
        sent()
        received()
    else:
        received()
        sent()


def _series(
    ctx: RankContext,
    peer: int,
    initiator: bool,
    nbytes: int,
    iters: int,
    params: ConnectivityConfig,
) -> list[float]:
    """Round-trip times (s) of ``iters`` ping-pongs of ``nbytes``, after the warm-up."""
    import torch

    from advisor import comm

    # int8: a one-byte type every backend sends (HCCL's older releases lack uint8).
    send = comm.ones(nbytes, dtype=torch.int8)
    recv = comm.empty(nbytes, dtype=torch.int8)
    for _ in range(params.warmup_iters):
        _ping_pong(peer, initiator, send, recv, params.pair_timeout_s)
    ctx.sync()
    times = []
    for _ in range(iters):
        t0 = time.perf_counter()
        _ping_pong(peer, initiator, send, recv, params.pair_timeout_s)
        ctx.sync()
        times.append(time.perf_counter() - t0)
    return times


def _measure_pair(
    ctx: RankContext, peer: int, initiator: bool, params: ConnectivityConfig
) -> dict[str, Any]:
    rtts = _series(ctx, peer, initiator, params.latency_bytes, params.latency_iters, params)
    out: dict[str, Any] = {"latency_us": statistics.median(rtts) / 2 * 1e6}
    by_size: dict[str, float] = {}
    for nbytes in params.bandwidth_bytes:
        times = _series(ctx, peer, initiator, nbytes, params.bandwidth_iters, params)
        # The median round trip: one preempted iteration (ranks share cores when emulated)
        # must not drag the pair's figure down and make a healthy link look slow.
        by_size[str(nbytes)] = 2 * nbytes * 8 / statistics.median(times) / 1e9
    out["bandwidth_by_bytes_gbps"] = by_size
    out["bandwidth_gbps"] = by_size[str(max(params.bandwidth_bytes))]
    return out


def _node_nics(ctx: RankContext) -> dict[str, Any]:
    """This node's NICs and the one the job's traffic uses (the IFNAME choice, else the route)."""
    all_nics = nicmod.list_nics()
    var = backends.IFNAME_VAR[ctx.cluster.device_type]
    chosen = None
    if os.environ.get(var):
        picked = nicmod.selected_nics(var, os.environ[var], all_nics)
        chosen = picked[0] if picked else None
    if chosen is None:
        chosen = nicmod.route_nic(all_nics, os.environ.get("MASTER_ADDR", "127.0.0.1"))
    return {
        "nics": nicmod.nic_dicts(all_nics),
        "comm_nic": chosen.name if chosen else "",
        "mtu": chosen.mtu if chosen else 0,
    }


def run_rank(ctx: RankContext, params: ConnectivityConfig) -> None:
    from advisor import comm

    with ctx.step("gather") as m:
        mine = {"rank": ctx.rank, "host": ctx.host, "node_name": ctx.node_name}
        mine.update(_node_nics(ctx))
        table = comm.gather_objects(mine)
        if ctx.local_rank == 0:
            m.update(nics=mine["nics"], comm_nic=mine["comm_nic"], mtu=mine["mtu"])
        if ctx.rank == 0:
            mtu_by_node = {t["node_name"]: t["mtu"] for t in table}
            m.update(mtu_by_node=mtu_by_node, mtu_mismatch=len(set(mtu_by_node.values())) > 1)
    peers = {t["rank"]: t for t in table}
    rounds = plan_rounds(params.pairs, ctx.world_size)
    failures = []
    for index, pairs in enumerate(rounds):
        mine_pair = next((p for p in pairs if ctx.rank in p), None)
        if mine_pair is None:
            continue
        a, b = mine_pair
        peer = b if ctx.rank == a else a
        info = peers[peer]
        try:
            with ctx.step(
                f"pair/{a}-{b}",
                src=a,
                dst=b,
                round=index,
                peer=peer,
                peer_host=info["host"],
                peer_node_name=info["node_name"],
                role="initiator" if ctx.rank == a else "responder",
            ) as m:
                result = _measure_pair(ctx, peer, ctx.rank == a, params)
                if ctx.rank == a:
                    m.update(result)
        except comm.StrictEmulationError:
            raise  # the advisor's own call, not the pair's link
        except Exception as e:
            # gloo appends a paragraph of advice to every transport error; the first sentence
            # says what happened, the full text is in the pair's own record.
            cause = str(e).split(". This is typically", 1)[0][:200]
            failures.append(
                f"{a}-{b} ({ctx.node_name}/{ctx.host} <-> {info['node_name']}/{info['host']}): "
                f"{type(e).__name__}: {cause}"
            )
    if failures:
        raise RuntimeError(f"rank {ctx.rank}: pairs failed: " + "; ".join(failures))


# --- summary --------------------------------------------------------------------------------


@dataclass(kw_only=True)
class PairResult:
    """One tested pair (``src`` is the lower rank, the initiator)."""

    src: int
    dst: int
    src_node: str
    dst_node: str
    src_host: str = ""
    dst_host: str = ""
    link: str
    """Declared link class: intra (same node) or inter."""
    latency_us: float | None = None
    """Half the median small-message round trip."""
    bandwidth_gbps: float | None = None
    """Gbit/s of the largest ping-pong size: 2 x bytes over the median round trip."""
    bandwidth_by_bytes_gbps: dict[str, float] = field(default_factory=dict)
    ok: bool = False
    error: str = ""


@dataclass(kw_only=True)
class LinkSummary:
    median_gbps: float
    min_gbps: float
    count: int
    latency_median_us: float


@dataclass(kw_only=True)
class ConnectivityFacts:
    """Summary of the connectivity stage."""

    mode: str = "ring"
    """ring or all (which pairs were planned)."""
    rounds: int = 0
    """Rounds in the schedule."""
    planned_pairs: int = 0
    pairs: list[PairResult] = field(default_factory=list)
    """Pairs measured successfully."""
    failed_pairs: list[PairResult] = field(default_factory=list)
    """Pairs where either side reported an error, named with both ranks, nodes and hosts."""
    untested_pairs: list[list[int]] = field(default_factory=list)
    """Planned pairs with no result (the stage was cut short before reaching them)."""
    links: dict[str, LinkSummary] = field(default_factory=dict)
    """Per declared link class (intra, inter): bandwidth median, minimum and count of pairs."""
    nics: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Per node: its interfaces ``{name, up, mtu, speed_mbps, addresses}``."""
    comm_nic: dict[str, str] = field(default_factory=dict)
    """Per node: interface the job's traffic uses (the IFNAME variable's, else the route)."""
    mtu_by_node: dict[str, int] = field(default_factory=dict)
    """Per node: MTU of that interface."""
    mtu_mismatch: bool = False
    """True when the nodes' communication interfaces have different MTUs."""


def summarize(records: list[Record], cluster: Cluster, params: Any) -> ConnectivityFacts:
    mode = getattr(params, "pairs", "ring")
    rounds = plan_rounds(mode, cluster.world_size)
    planned = [p for r in rounds for p in r]
    facts = ConnectivityFacts(mode=mode, rounds=len(rounds), planned_pairs=len(planned))
    started: dict[Pair, dict[int, Record]] = {}
    ended: dict[Pair, dict[int, Record]] = {}
    hosts: dict[int, str] = {}
    for r in records:
        hosts.setdefault(r.rank, r.host)
        if r.step == "gather" and r.status == "ok":
            if "nics" in r.metrics:
                facts.nics[r.node_name] = list(r.metrics["nics"])
                facts.comm_nic[r.node_name] = str(r.metrics.get("comm_nic", ""))
                facts.mtu_by_node.setdefault(r.node_name, int(r.metrics.get("mtu", 0)))
            if "mtu_by_node" in r.metrics:
                facts.mtu_by_node.update({k: int(v) for k, v in r.metrics["mtu_by_node"].items()})
        if not r.step.startswith("pair/"):
            continue
        a_s, _, b_s = r.step[5:].partition("-")
        key = (int(a_s), int(b_s))
        (started if r.status == "started" else ended).setdefault(key, {})[r.rank] = r
    facts.mtu_mismatch = len(set(facts.mtu_by_node.values())) > 1
    for a, b in sorted(set(started) | set(ended)):
        starts, ends = started.get((a, b), {}), ended.get((a, b), {})
        peer_host = {
            int(s.metrics.get("peer", -1)): str(s.metrics.get("peer_host", ""))
            for s in starts.values()
        }
        pr = PairResult(
            src=a,
            dst=b,
            src_node=cluster.node_name(cluster.node_of(a)),
            dst_node=cluster.node_name(cluster.node_of(b)),
            src_host=hosts.get(a) or peer_host.get(a, ""),
            dst_host=hosts.get(b) or peer_host.get(b, ""),
            link=cluster.link_class(a, b),
        )
        init = ends.get(a)
        errors = [
            f"rank {rk}: {e.metrics.get('error', '')}"
            for rk, e in sorted(ends.items())
            if e.status == "error"
        ]
        if init is not None and init.status == "ok":
            pr.latency_us = _num(init.metrics.get("latency_us"))
            pr.bandwidth_gbps = _num(init.metrics.get("bandwidth_gbps"))
            pr.bandwidth_by_bytes_gbps = {
                str(k): float(v) for k, v in init.metrics.get("bandwidth_by_bytes_gbps", {}).items()
            }
        if errors:
            pr.error = "; ".join(errors)
        elif init is None or init.status != "ok" or b not in ends:
            missing = [rk for rk in (a, b) if rk not in ends]
            pr.error = "no result from rank " + ", ".join(str(x) for x in missing)
            pr.error += " (it died, hung or was stopped during the pair)"
        pr.ok = not pr.error
        (facts.pairs if pr.ok else facts.failed_pairs).append(pr)
    seen = {(p.src, p.dst) for p in facts.pairs + facts.failed_pairs}
    facts.untested_pairs = [[a, b] for a, b in planned if (a, b) not in seen]
    for link in ("intra", "inter"):
        bws = [p.bandwidth_gbps for p in facts.pairs if p.link == link and p.bandwidth_gbps]
        lats = [p.latency_us for p in facts.pairs if p.link == link and p.latency_us is not None]
        if bws:
            facts.links[link] = LinkSummary(
                median_gbps=statistics.median(bws),
                min_gbps=min(bws),
                count=len(bws),
                latency_median_us=statistics.median(lats) if lats else 0.0,
            )
    return facts


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, int | float) else None


STAGE = Stage(
    name="connectivity",
    description="point-to-point latency and bandwidth between rank pairs, in concurrent rounds",
    config_type=ConnectivityConfig,
    run_rank=run_rank,
    summarize=summarize,
    facts_type=ConnectivityFacts,
)
