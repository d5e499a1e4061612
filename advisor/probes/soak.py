"""The soak stage: all_reduce and point-to-point traffic repeated for a time budget, watched.

Where the other probes take one measurement, the soak keeps the links busy for ``duration_s``
and reports what only time shows. The profiles' budgets follow the levels of NVIDIA's DCGM
diagnostics (``dcgmi diag -r``: 1 quick, seconds; 2 medium, about two minutes; 3 long, about 15
minutes; 4 extended): quick 60 s and standard 120 s (both off unless asked), deep 900 s, and the
``soak`` profile an hour. What it reports:

* variance over time and per pair: each rank keeps a series of windows (``window_s``) with the
  median and worst iteration of every operation it ran: the all_reduce of all ranks, and the
  point-to-point exchange with its partner of the iteration (ring neighbours, or every pair
  rotating through the round-robin rounds of the connectivity probe);
* stalls: an iteration far above the running median of its operation (``stall_factor``, at least
  ``stall_min_s``), named with the time since the stage began, how long it lasted, the ranks and
  the pair; an operation still in flight past that bound is recorded at once by a watcher thread
  (``stall_open``), so a stall that never ends is named even when the deadline stops the job;
* link flaps and errors: every node's ``/sys/class/net/*`` counters (``statistics/*``,
  ``carrier_changes``) and, where ``hccn_tool`` exists, each NPU port's ``-stat -g`` and
  ``-link_stat -g``, read before and after; while it runs the watcher polls each interface's
  carrier and operstate, so a flap is placed in time and matched to the stall it caused.

Every record is written as it goes (windows, stalls, link events), so a soak cut short (the
deadline, an interrupt) still summarises: ``summarize`` reads whatever records exist.

All ranks stop together: each all_reduce carries a flag (element 0) that a rank sets once its
own clock passes the budget; after the reduction every rank sees the sum and leaves the loop at
the same iteration, so no rank waits in a collective its peers never enter.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import threading
import time
from collections import defaultdict, deque
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from advisor.bench.collectives import bandwidths_gbps
from advisor.errors import ConfigError
from advisor.parsers import ParseError
from advisor.parsers.hccn_tool import parse_link_stat, parse_stat
from advisor.probes import nics as nicmod
from advisor.probes.connectivity import PAIR_MODES, Pair, plan_rounds
from advisor.stages import Stage, StageConfig

if TYPE_CHECKING:
    from advisor.cluster import Cluster
    from advisor.results import Record
    from advisor.worker import RankContext

DEADLINE_MARGIN_S = 180.0
"""What the profiles add to ``duration_s`` for ``deadline_s``: the job's launch (every rank
importing torch on a loaded node) and the counters read after the traffic."""
MIN_MARGIN_S = 30.0
"""The least ``deadline_s`` may exceed ``duration_s`` by: below it the deadline stops the soak
before its budget ends."""

SYS_NET = Path("/sys/class/net")
HCCN_TOOL_PATHS = ("hccn_tool", "/usr/local/Ascend/driver/tools/hccn_tool")
"""Where hccn_tool is found: on the PATH, else the driver's tools folder (the path the MindCluster
collection scripts call it by)."""
HCCN_TIMEOUT_S = 10.0
NOT_PRESENT = "not present"
ERROR_COUNTER_MARKS = ("err", "drop", "miss", "fifo", "collision")
"""A counter whose name holds one of these counts a fault (rx_errors, tx_dropped,
rx_missed_errors, roce_qp_status_err_num ...); the rest count traffic."""
HISTORY = 64
"""Iterations of an operation the running median is taken over."""
MIN_HISTORY = 5
"""Iterations of an operation before its running median is trusted."""


@dataclass(kw_only=True)
class SoakConfig(StageConfig):
    """The soak stage's settings (``stages.soak``)."""

    enabled: bool = False
    """Off unless a profile (``soak``, ``deep``) or an override asks: it runs for ``duration_s``."""
    deadline_s: float = 240.0
    """Wall-clock limit of the stage: ``duration_s`` plus the launch (the profiles give
    ``duration_s`` + 180 s); past it the stage is stopped, and what was recorded is kept."""
    duration_s: float = 60.0
    """Time budget of the traffic: the loop stops at the first iteration past it."""
    all_reduce_bytes: int = 1 << 20
    """Message size of the repeated all_reduce (float32 elements)."""
    p2p_bytes: int = 1 << 20
    """Message size each side of a pair sends in one point-to-point exchange."""
    pairs: str = "ring"
    """ring: ring neighbours; all: every pair, rotating through the round-robin rounds."""
    window_s: float = 5.0
    """Length of one point of the time series (median and worst iteration per window)."""
    stall_factor: float = 10.0
    """An iteration this many times its operation's running median is a stall..."""
    stall_min_s: float = 1.0
    """...when it also lasts at least this long (a 2 ms iteration taking 30 ms is noise)."""
    op_timeout_s: float = 300.0
    """Timeout of the soak's own process group: how long one blocked operation may wait before
    the backend fails it. A link that flaps for seconds blocks gloo's TCP pairs until the kernel
    retransmits after the link returns (exponential back-off, so up to about twice the outage;
    Linux gives up on a connection only after tcp_retries2, ~924 s by default: kernel
    ip-sysctl documentation), and gloo fails any operation that waits past the group's timeout
    (torch ProcessGroupGloo.cpp: ``context->setTimeout(options_->timeout)``). 300 s lets a flap
    of a minute pass and be named as a stall, and still ends a dead link's job well inside the
    default 600 s process-group timeout. On hccl and nccl it is the watchdog's timeout of the
    soak's group (``torch.distributed.new_group`` takes the timeout ``init_process_group`` does:
    ``pg_timeout_s`` in ``advisor.probes.settings``): a five-minute stall is a dead link."""
    poll_s: float = 0.5
    """How often the watcher thread checks the operation in flight and the links' carrier."""
    variance_cv_max: float = 0.25
    """A series whose window figures vary more than this (std / mean) is reported as unsteady."""

    def __post_init__(self) -> None:
        key = "stages.soak"
        if self.pairs not in PAIR_MODES:
            raise ConfigError(f"{key}.pairs={self.pairs!r} must be one of {', '.join(PAIR_MODES)}.")
        if self.duration_s <= 0 or self.window_s <= 0 or self.poll_s <= 0:
            raise ConfigError(f"{key}.duration_s, window_s and poll_s must be positive.")
        if self.all_reduce_bytes < 4 or self.p2p_bytes < 1:
            raise ConfigError(
                f"{key}.all_reduce_bytes must be at least 4 (one float32), p2p_bytes at least 1."
            )
        if self.stall_factor <= 1 or self.stall_min_s <= 0 or self.op_timeout_s <= 0:
            raise ConfigError(
                f"{key}.stall_factor must exceed 1; stall_min_s and op_timeout_s must be positive."
            )
        if self.deadline_s < self.duration_s + MIN_MARGIN_S:
            raise ConfigError(
                f"{key}.deadline_s={self.deadline_s:g} leaves less than {MIN_MARGIN_S:g} s beyond "
                f"duration_s={self.duration_s:g} for the launch and the counters read after; "
                f"set {key}.deadline_s={self.duration_s + DEADLINE_MARGIN_S:g}."
            )


# --- counters -------------------------------------------------------------------------------


def read_net_counters(root: Path = SYS_NET) -> dict[str, dict[str, Any]]:
    """Every interface's kernel counters: ``statistics/*``, ``carrier_changes`` (since 3.15),
    ``carrier_up_count``/``carrier_down_count`` (since 4.16: sysfs-class-net ABI) and operstate.

    ``/sys/class/net`` shows the network namespace sysfs was mounted in (``ip netns exec``
    mounts the namespace's own), so each rank reads its node's interfaces.
    """
    out: dict[str, dict[str, Any]] = {}
    if not root.is_dir():
        return out
    for dev in sorted(root.iterdir()):
        if dev.name == "lo":
            continue
        entry: dict[str, Any] = {"operstate": _read_text(dev / "operstate")}
        for name in ("carrier_changes", "carrier_up_count", "carrier_down_count"):
            value = _read_int(dev / name)
            if value is not None:
                entry[name] = value
        stats: dict[str, int] = {}
        stat_dir = dev / "statistics"
        if stat_dir.is_dir():
            for f in sorted(stat_dir.iterdir()):
                v = _read_int(f)
                if v is not None:
                    stats[f.name] = v
        entry["statistics"] = stats
        out[dev.name] = entry
    return out


def _read_text(path: Path) -> str:
    try:
        return path.read_text().strip()
    except OSError:
        return ""


def _read_int(path: Path) -> int | None:
    try:
        return int(path.read_text().strip())
    except (OSError, ValueError):
        return None  # a counter the driver does not provide (reading it fails with EINVAL)


def hccn_tool() -> str:
    """The hccn_tool executable, or '' when this node has none (not an Ascend node)."""
    for candidate in HCCN_TOOL_PATHS:
        found = shutil.which(candidate)
        if found:
            return found
    return ""


def read_hccn(devices: list[int]) -> dict[str, Any]:
    """Each NPU port's ``-stat -g`` counters and ``-link_stat -g`` up/down counts; ``status`` is
    ``not present`` without hccn_tool."""
    tool = hccn_tool()
    if not tool:
        return {"status": NOT_PRESENT, "ports": {}}
    ports: dict[str, Any] = {}
    for dev in devices:
        port: dict[str, Any] = {}
        for query in ("stat", "link_stat"):
            try:
                done = subprocess.run(
                    [tool, "-i", str(dev), f"-{query}", "-g"],
                    capture_output=True,
                    text=True,
                    timeout=HCCN_TIMEOUT_S,
                    check=False,
                )
                if query == "stat":
                    port["stat"] = parse_stat(done.stdout)
                else:
                    ls = parse_link_stat(done.stdout)
                    port["link_up_count"], port["link_down_count"] = ls.up_count, ls.down_count
            except (OSError, subprocess.TimeoutExpired, ParseError) as e:
                port.setdefault("errors", []).append(f"hccn_tool -i {dev} -{query} -g: {e}")
        ports[str(dev)] = port
    return {"status": "read", "ports": ports}


# --- rank side ------------------------------------------------------------------------------


class _Watcher(threading.Thread):
    """Names an operation that stops making progress while it is still blocked, and (on one
    rank per node) places every carrier change of the node's interfaces in time."""

    def __init__(
        self, ctx: RankContext, t0: float, poll_s: float, repeat_s: float, links: bool
    ) -> None:
        super().__init__(name="advisor-soak-watch", daemon=True)
        self.ctx, self.t0, self.poll_s = ctx, t0, poll_s
        self.repeat_s = repeat_s
        """While an operation stays blocked, its ``stall_open`` is written again this often, so
        a job stopped during the stall still tells how long it lasted."""
        self._told_at = 0.0
        self.links = links
        self.stop = threading.Event()
        self.current: tuple[str, float, float, int] | None = None
        """(operation, wall-clock start, stall bound in s, iteration) of the one in flight."""
        self._told: tuple[str, float, float, int] | None = None
        self._carrier: dict[str, tuple[int | None, str]] = {}
        if links:
            self._carrier = self._read_carrier()

    def _read_carrier(self) -> dict[str, tuple[int | None, str]]:
        out = {}
        if SYS_NET.is_dir():
            for dev in SYS_NET.iterdir():
                if dev.name != "lo":
                    out[dev.name] = (
                        _read_int(dev / "carrier_changes"),
                        _read_text(dev / "operstate"),
                    )
        return out

    def run(self) -> None:
        while not self.stop.wait(self.poll_s):
            cur = self.current
            now = time.time()
            again = cur is self._told and now - self._told_at >= self.repeat_s
            if cur is not None and (cur is not self._told or again) and now - cur[1] > cur[2]:
                self._told, self._told_at = cur, now
                self.ctx.record(
                    "stall_open",
                    op=cur[0],
                    iteration=cur[3],
                    t_start_s=cur[1] - self.t0,
                    waited_s=now - cur[1],
                    bound_s=cur[2],
                )
            if self.links:
                seen = self._read_carrier()
                for name, (changes, state) in sorted(seen.items()):
                    before = self._carrier.get(name)
                    if before is not None and before != (changes, state):
                        self.ctx.record(
                            "link_event",
                            interface=name,
                            t_s=now - self.t0,
                            operstate=state,
                            carrier_changes=changes,
                            was=before[1],
                        )
                self._carrier = seen


class _Windows:
    """Iteration times per operation, flushed as one ``window`` record every ``window_s``."""

    def __init__(self, ctx: RankContext, t0: float, window_s: float, sizes: dict[str, int]):
        self.ctx, self.t0, self.window_s, self.sizes = ctx, t0, window_s, sizes
        self.start_s = 0.0
        self.times: dict[str, list[float]] = defaultdict(list)

    def add(self, key: str, seconds: float) -> None:
        self.times[key].append(seconds)

    def due(self) -> bool:
        return time.time() - self.t0 - self.start_s >= self.window_s

    def flush(self, iteration: int) -> dict[str, Any]:
        end_s = time.time() - self.t0
        series = {}
        for key, ts in sorted(self.times.items()):
            median = statistics.median(ts)
            series[key] = {
                "n": len(ts),
                "median_s": median,
                "max_s": max(ts),
                "gbps": _gbps(key, self.sizes, median, self.ctx.world_size),
            }
        if series:
            self.ctx.record(
                "window", t_start_s=self.start_s, t_end_s=end_s, iteration=iteration, series=series
            )
        self.start_s, self.times = end_s, defaultdict(list)
        return series


def _gbps(key: str, sizes: dict[str, int], seconds: float, world: int) -> float:
    """all_reduce: busbw (nccl-tests' factor); a pair: Gbit/s each way (both send at once)."""
    if key == "all_reduce":
        return bandwidths_gbps("all_reduce", sizes["all_reduce"], seconds * 1e6, world)[1]
    return sizes["p2p"] * 8 / seconds / 1e9 if seconds > 0 else 0.0


def _comm_nic(ctx: RankContext) -> str:
    """The interface the job's traffic leaves by: the one holding the route to the master."""
    found = nicmod.route_nic(nicmod.list_nics(), os.environ.get("MASTER_ADDR", "127.0.0.1"))
    return found.name if found else ""


def run_rank(ctx: RankContext, params: SoakConfig) -> None:
    import torch

    from advisor import comm

    reads_node = ctx.local_rank == 0
    devices = list(range(ctx.local_world_size))
    with ctx.step("setup") as m:
        mine = {"rank": ctx.rank, "node_name": ctx.node_name, "nic": _comm_nic(ctx)}
        table = comm.gather_objects(mine)
        # The soak's own group: its timeout, not the run's, bounds a blocked operation.
        group = comm.new_group(timeout_s=params.op_timeout_s)
        m["nic"] = mine["nic"]
        if ctx.rank == 0:
            m["nics"] = {str(t["rank"]): f"{t['node_name']}/{t['nic']}" for t in table}
    if reads_node:
        ctx.record("counters", when="before", net=read_net_counters(), hccn=read_hccn(devices))
    comm.gather_objects(None)  # start together: every rank's clock starts at this point
    t0 = time.time()
    ctx.record("begin", t0_wall_s=t0, duration_s=params.duration_s)
    watcher = _Watcher(ctx, t0, params.poll_s, params.window_s, links=reads_node)
    watcher.start()
    rounds = plan_rounds(params.pairs, ctx.world_size)
    buf = comm.zeros(params.all_reduce_bytes // 4, dtype=torch.float32)
    send = comm.ones(params.p2p_bytes, dtype=torch.int8)
    recv = comm.empty(params.p2p_bytes, dtype=torch.int8)
    windows = _Windows(
        ctx, t0, params.window_s, {"all_reduce": params.all_reduce_bytes, "p2p": params.p2p_bytes}
    )
    history: dict[str, deque[float]] = defaultdict(lambda: deque(maxlen=HISTORY))
    end = t0 + params.duration_s
    iteration = stall_count = 0

    def bound(key: str) -> float:
        h = history[key]
        if len(h) < MIN_HISTORY:
            return params.stall_min_s * params.stall_factor
        return max(params.stall_min_s, params.stall_factor * statistics.median(h))

    def timed(key: str, peers: list[int], op: Any) -> None:
        nonlocal stall_count
        limit = bound(key)
        start = time.time()
        watcher.current = (key, start, limit, iteration)
        op()
        ctx.sync()
        took = time.time() - start
        watcher.current = None
        if took > limit:
            stall_count += 1
            ctx.record(
                "stall",
                op=key,
                iteration=iteration,
                t_start_s=start - t0,
                duration_s=took,
                median_s=statistics.median(history[key]) if history[key] else None,
                bound_s=limit,
                peers=peers,
            )
        history[key].append(took)
        windows.add(key, took)

    last: dict[str, Any] = {}
    try:
        # a step: a job stopped during the traffic is named as hung or stopped in it
        with ctx.step("traffic") as m:
            while True:
                buf.zero_()
                buf[:1].fill_(1.0 if time.time() >= end else 0.0)
                timed("all_reduce", [], partial(comm.all_reduce, buf, group=group))
                stop = float(buf[:1].cpu().item()) > 0
                pairs = rounds[iteration % len(rounds)] if rounds else []
                pair: Pair | None = next((p for p in pairs if ctx.rank in p), None)
                if pair is not None:
                    peer = pair[1] if pair[0] == ctx.rank else pair[0]
                    timed(
                        f"p2p/{pair[0]}-{pair[1]}",
                        [peer],
                        partial(comm.exchange, [(send, peer)], [(recv, peer)], group=group),
                    )
                iteration += 1
                if windows.due() or stop:
                    last = windows.flush(iteration) or last
                    if ctx.rank == 0:
                        ctx.record(
                            "progress", text=_progress(t0, params, iteration, stall_count, last)
                        )
                if stop:
                    break
            m.update(iterations=iteration, stalls=stall_count)
    finally:
        watcher.stop.set()
        watcher.join(timeout=2 * params.poll_s)
    if reads_node:
        ctx.record("counters", when="after", net=read_net_counters(), hccn=read_hccn(devices))
    ctx.record("end", iterations=iteration, elapsed_s=time.time() - t0, stalls=stall_count)


def _progress(t0: float, p: SoakConfig, iteration: int, stalls: int, last: dict[str, Any]) -> str:
    ar = last.get("all_reduce", {})
    text = f"soak {time.time() - t0:.0f}/{p.duration_s:.0f} s, {iteration} iterations"
    if ar:
        text += f", all_reduce busbw {ar['gbps']:.3g} Gbit/s (worst {ar['max_s'] * 1e3:.3g} ms)"
    return text + f", stalls on rank 0: {stalls}"


# --- summary --------------------------------------------------------------------------------


@dataclass(kw_only=True)
class SoakPoint:
    """One window of one operation."""

    t_s: float
    """End of the window, seconds since the soak began."""
    gbps: float
    """all_reduce: busbw; a pair: Gbit/s each way; from the window's median iteration."""
    median_ms: float
    max_ms: float
    """The window's slowest iteration."""
    n: int


@dataclass(kw_only=True)
class SoakSeries:
    """The windows of one operation as one rank saw them (all_reduce: rank 0; a pair: its lower
    rank), and how much they vary."""

    key: str
    """``all_reduce`` or ``p2p/<a>-<b>``."""
    rank: int
    nodes: list[str] = field(default_factory=list)
    """The pair's nodes (all_reduce: every node)."""
    points: list[SoakPoint] = field(default_factory=list)
    mean_gbps: float = 0.0
    min_gbps: float = 0.0
    cv: float = 0.0
    """Standard deviation over mean of the windows' Gbit/s (0 with fewer than 2 windows)."""
    median_ms: float = 0.0
    """Median of the windows' median iteration."""
    max_ms: float = 0.0
    """Slowest iteration of the whole soak."""


@dataclass(kw_only=True)
class SoakStall:
    """One stall: overlapping slow iterations of any ranks, merged."""

    t_start_s: float
    """Seconds since the soak began."""
    duration_s: float
    ongoing: bool = False
    """No progress until the records end (the deadline or an interrupt stopped it)."""
    ops: list[str] = field(default_factory=list)
    ranks: list[int] = field(default_factory=list)
    nodes: list[str] = field(default_factory=list)
    links: list[str] = field(default_factory=list)
    """``node/interface`` whose carrier changed during the stall (±2 polls): the flapping link."""
    suspects: list[str] = field(default_factory=list)
    """``node/interface`` the stalled ranks' traffic uses, when no link event explains it."""
    text: str = ""
    """One line: when, how long, which operations, ranks and links."""


@dataclass(kw_only=True)
class LinkEvent:
    """A carrier or operstate change seen while the soak ran."""

    node: str
    interface: str
    t_s: float
    operstate: str
    was: str = ""
    carrier_changes: int | None = None


@dataclass(kw_only=True)
class LinkCounters:
    """One interface's counters after the soak against before (only those that changed in a way
    that matters: carrier changes or a fault counter)."""

    node: str
    interface: str
    carrier_changes: int = 0
    flaps: int = 0
    """Times the link went down (``carrier_down_count``; else half the carrier changes)."""
    errors: dict[str, int] = field(default_factory=dict)
    """Fault counters that grew (``rx_errors``, ``tx_dropped`` ...), by how much."""


@dataclass(kw_only=True)
class HccnPortCounters:
    """One NPU port's hccn_tool counters after the soak against before."""

    node: str
    device: int
    link_down: int | None = None
    """Growth of ``link down count`` (``-link_stat -g``); None when not printed."""
    link_up: int | None = None
    errors: dict[str, int] = field(default_factory=dict)
    """``-stat -g`` fault counters that grew."""
    problems: list[str] = field(default_factory=list)
    """Queries that failed."""


@dataclass(kw_only=True)
class SoakFacts:
    """Summary of the soak stage (possibly of a soak cut short)."""

    planned_s: float = 0.0
    elapsed_s: float = 0.0
    """Seconds of traffic the records cover."""
    completed: bool = False
    """Every rank reached the end of its budget."""
    iterations: int = 0
    """Iterations of the lowest rank that reported them."""
    started_wall_s: float = 0.0
    """Epoch seconds of t=0 (rank 0's clock)."""
    pairs: str = "ring"
    all_reduce_bytes: int = 0
    p2p_bytes: int = 0
    window_s: float = 0.0
    series: list[SoakSeries] = field(default_factory=list)
    stalls: list[SoakStall] = field(default_factory=list)
    link_events: list[LinkEvent] = field(default_factory=list)
    link_counters: list[LinkCounters] = field(default_factory=list)
    flapping_links: list[str] = field(default_factory=list)
    """``node/interface (N flaps)`` for every link that went down during the soak (counters)."""
    counter_errors: list[str] = field(default_factory=list)
    """``node/interface counter +N`` for every fault counter that grew."""
    high_variance: list[str] = field(default_factory=list)
    """Series whose window Gbit/s vary beyond ``cv_max`` (``key cv 0.41``)."""
    cv_max: float = 0.0
    hccn_tool: dict[str, str] = field(default_factory=dict)
    """Per node: ``read``, or ``not present`` where hccn_tool is missing."""
    hccn_ports: list[HccnPortCounters] = field(default_factory=list)


def summarize(records: list[Record], cluster: Cluster, params: Any) -> SoakFacts:
    p = params if isinstance(params, SoakConfig) else SoakConfig()
    facts = SoakFacts(
        planned_s=p.duration_s,
        pairs=p.pairs,
        all_reduce_bytes=p.all_reduce_bytes,
        p2p_bytes=p.p2p_bytes,
        window_s=p.window_s,
        cv_max=p.variance_cv_max,
    )
    nic_of: dict[int, str] = {}
    ends: dict[int, Record] = {}
    last_t: dict[int, float] = {}
    for r in records:
        if r.step == "setup" and r.status == "ok":
            nic_of[r.rank] = f"{r.node_name}/{r.metrics.get('nic', '')}"
        elif r.step == "begin" and r.rank == 0:
            facts.started_wall_s = float(r.metrics.get("t0_wall_s", 0.0))
        elif r.step == "end":
            ends[r.rank] = r
        elif r.step == "window":
            last_t[r.rank] = max(last_t.get(r.rank, 0.0), float(r.metrics.get("t_end_s", 0.0)))
    facts.link_events = link_events(records)
    facts.series = window_series(records, cluster)
    facts.stalls = find_stalls(records, facts.link_events, nic_of, cluster, p.poll_s)
    facts.completed = bool(ends) and set(ends) >= set(range(cluster.world_size))
    if ends:
        facts.iterations = int(ends[min(ends)].metrics.get("iterations", 0))
        facts.elapsed_s = max(float(e.metrics.get("elapsed_s", 0.0)) for e in ends.values())
    else:
        facts.elapsed_s = max(last_t.values(), default=0.0)
    facts.link_counters, facts.hccn_ports, facts.hccn_tool = counter_deltas(records)
    for c in facts.link_counters:
        if c.flaps:
            facts.flapping_links.append(f"{c.node}/{c.interface} ({c.flaps} flaps)")
        facts.counter_errors += [f"{c.node}/{c.interface} {k} +{v}" for k, v in c.errors.items()]
    for h in facts.hccn_ports:
        if h.link_down:
            facts.flapping_links.append(f"{h.node}/npu{h.device} ({h.link_down} flaps)")
        facts.counter_errors += [f"{h.node}/npu{h.device} {k} +{v}" for k, v in h.errors.items()]
    facts.high_variance = [
        f"{s.key} cv {s.cv:.2f}"
        for s in facts.series
        if len(s.points) > 1 and s.cv > p.variance_cv_max
    ]
    return facts


def link_events(records: list[Record]) -> list[LinkEvent]:
    return sorted(
        (
            LinkEvent(
                node=r.node_name,
                interface=str(r.metrics.get("interface", "")),
                t_s=float(r.metrics.get("t_s", 0.0)),
                operstate=str(r.metrics.get("operstate", "")),
                was=str(r.metrics.get("was", "")),
                carrier_changes=r.metrics.get("carrier_changes"),
            )
            for r in records
            if r.step == "link_event"
        ),
        key=lambda e: (e.t_s, e.node, e.interface),
    )


def window_series(records: list[Record], cluster: Cluster) -> list[SoakSeries]:
    """One series per operation, from the lowest rank that ran it, with its spread."""
    by_key: dict[str, dict[int, list[SoakPoint]]] = defaultdict(lambda: defaultdict(list))
    for r in records:
        if r.step != "window":
            continue
        for key, m in (r.metrics.get("series") or {}).items():
            by_key[key][r.rank].append(
                SoakPoint(
                    t_s=float(r.metrics.get("t_end_s", 0.0)),
                    gbps=float(m.get("gbps", 0.0)),
                    median_ms=float(m.get("median_s", 0.0)) * 1e3,
                    max_ms=float(m.get("max_s", 0.0)) * 1e3,
                    n=int(m.get("n", 0)),
                )
            )
    out = []
    for key in sorted(by_key):
        rank = min(by_key[key])
        points = sorted(by_key[key][rank], key=lambda pt: pt.t_s)
        gbps = [pt.gbps for pt in points]
        mean = statistics.fmean(gbps)
        s = SoakSeries(key=key, rank=rank, points=points)
        if key.startswith("p2p/"):
            a, _, b = key[4:].partition("-")
            s.nodes = sorted({cluster.node_name(cluster.node_of(int(x))) for x in (a, b)})
        else:
            s.nodes = [cluster.node_name(n) for n in range(cluster.nodes)]
        s.mean_gbps, s.min_gbps = mean, min(gbps)
        s.cv = statistics.stdev(gbps) / mean if len(gbps) > 1 and mean > 0 else 0.0
        s.median_ms = statistics.median(pt.median_ms for pt in points)
        s.max_ms = max(pt.max_ms for pt in points)
        out.append(s)
    return out


def find_stalls(
    records: list[Record],
    events: list[LinkEvent],
    nic_of: dict[int, str],
    cluster: Cluster,
    poll_s: float,
) -> list[SoakStall]:
    """Slow iterations of every rank merged where they overlap in time, each named with the link
    whose carrier changed meanwhile (else the stalled ranks' interfaces as suspects).

    A ``stall_open`` record (the watcher saw the operation blocked) without the ``stall`` that
    would have closed it is a stall that never ended: it lasts until that rank's last record.
    """
    spans: list[tuple[float, float, str, int, bool, list[int]]] = []
    closed = {
        (r.rank, r.metrics.get("op"), r.metrics.get("iteration"))
        for r in records
        if r.step == "stall"
    }
    t0_of = {
        r.rank: float(r.metrics["t0_wall_s"])
        for r in records
        if r.step == "begin" and "t0_wall_s" in r.metrics
    }
    last_seen: dict[int, float] = {}
    for r in records:
        if r.rank in t0_of:
            last_seen[r.rank] = max(last_seen.get(r.rank, 0.0), r.t_wall_s - t0_of[r.rank])
    for r in records:
        m = r.metrics
        start = float(m.get("t_start_s", 0.0))
        op = str(m.get("op", ""))
        if r.step == "stall":
            end = start + float(m.get("duration_s", 0.0))
            peers = [int(x) for x in m.get("peers", [])]
            spans.append((start, end, op, r.rank, False, peers))
        elif r.step == "stall_open" and (r.rank, m.get("op"), m.get("iteration")) not in closed:
            end = max(last_seen.get(r.rank, start), start + float(m.get("waited_s", 0.0)))
            spans.append((start, end, op, r.rank, True, []))
    spans.sort()
    merged: list[SoakStall] = []
    ends: list[float] = []
    for start, end, op, rank, ongoing, peers in spans:
        if merged and start <= ends[-1]:
            st = merged[-1]
            ends[-1] = max(ends[-1], end)
        else:
            st = SoakStall(t_start_s=start, duration_s=0.0)
            merged.append(st)
            ends.append(end)
        st.duration_s = ends[-1] - st.t_start_s
        st.ongoing = st.ongoing or ongoing
        if op not in st.ops:
            st.ops.append(op)
        for rk in [rank, *peers]:
            if rk not in st.ranks:
                st.ranks.append(rk)
    margin = 2 * poll_s
    for st, end in zip(merged, ends, strict=True):
        st.ranks.sort()
        st.ops.sort()
        if any(op == "all_reduce" for op in st.ops):
            # every rank waits in a blocked all_reduce: the pair that blocks it is not named by
            # the ranks that stalled, so every node's link is in question
            involved = sorted(nic_of) or list(range(cluster.world_size))
        else:
            involved = st.ranks
        st.nodes = sorted({cluster.node_name(cluster.node_of(rk)) for rk in st.ranks})
        st.links = sorted(
            {
                f"{e.node}/{e.interface}"
                for e in events
                if st.t_start_s - margin <= e.t_s <= end + margin
            }
        )
        if not st.links:
            st.suspects = sorted({nic_of[rk] for rk in involved if rk in nic_of})
        where = st.links or st.suspects
        how = (
            f"with no progress for {st.duration_s:.1f} s (still blocked)"
            if st.ongoing
            else f"lasting {st.duration_s:.1f} s"
        )
        st.text = (
            f"stall at t={st.t_start_s:.1f} s {how} in {', '.join(st.ops)} "
            f"on ranks {', '.join(map(str, st.ranks))}"
        )
        if where:
            st.text += f"; {'link' if st.links else 'links in use'}: {', '.join(where)}"
    return merged


def counter_deltas(
    records: list[Record],
) -> tuple[list[LinkCounters], list[HccnPortCounters], dict[str, str]]:
    """After against before, per node (the first reader of the node before, the last after)."""
    before: dict[str, dict[str, Any]] = {}
    after: dict[str, dict[str, Any]] = {}
    for r in records:
        if r.step == "counters":
            when = r.metrics.get("when")
            if when == "before":
                before.setdefault(r.node_name, r.metrics)
            elif when == "after":
                after[r.node_name] = r.metrics
    links: list[LinkCounters] = []
    ports: list[HccnPortCounters] = []
    hccn_status: dict[str, str] = {}
    for node in sorted(set(before) | set(after)):
        hccn_status[node] = str(
            (before.get(node) or after.get(node, {})).get("hccn", {}).get("status", "")
        )
        if node not in before or node not in after:
            continue
        net_a, net_b = before[node].get("net", {}), after[node].get("net", {})
        for iface in sorted(set(net_a) & set(net_b)):
            a, b = net_a[iface], net_b[iface]
            changes = _delta(a.get("carrier_changes"), b.get("carrier_changes")) or 0
            downs = _delta(a.get("carrier_down_count"), b.get("carrier_down_count"))
            c = LinkCounters(
                node=node,
                interface=iface,
                carrier_changes=changes,
                flaps=downs if downs is not None else (changes + 1) // 2,
                errors=_grown(a.get("statistics", {}), b.get("statistics", {})),
            )
            if c.carrier_changes or c.errors:
                links.append(c)
        hc_a = before[node].get("hccn", {}).get("ports", {})
        hc_b = after[node].get("hccn", {}).get("ports", {})
        for dev in sorted(set(hc_a) & set(hc_b), key=int):
            a, b = hc_a[dev], hc_b[dev]
            ports.append(
                HccnPortCounters(
                    node=node,
                    device=int(dev),
                    link_down=_delta(a.get("link_down_count"), b.get("link_down_count")),
                    link_up=_delta(a.get("link_up_count"), b.get("link_up_count")),
                    errors=_grown(a.get("stat", {}), b.get("stat", {})),
                    problems=[*a.get("errors", []), *b.get("errors", [])],
                )
            )
    return links, ports, hccn_status


def _delta(a: Any, b: Any) -> int | None:
    return int(b) - int(a) if isinstance(a, int) and isinstance(b, int) else None


def _grown(a: dict[str, Any], b: dict[str, Any]) -> dict[str, int]:
    out = {}
    for name in sorted(set(a) & set(b)):
        if any(mark in name for mark in ERROR_COUNTER_MARKS):
            d = _delta(a[name], b[name])
            if d:
                out[name] = d
    return out


STAGE = Stage(
    name="soak",
    description="all_reduce and point-to-point traffic for a time budget: stalls, flaps, variance",
    config_type=SoakConfig,
    run_rank=run_rank,
    summarize=summarize,
    facts_type=SoakFacts,
)
