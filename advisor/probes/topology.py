"""The topology stage: where every rank runs, whether the placement is sound, and the hierarchy
the measured links reveal.

Per rank: host, node, local rank, device index and PCI bus id (where the backend has them), NUMA
node, CPU affinity. Checks: ranks per node equal the declared devices per node, one rank per
device (two ranks on one device is Ascend's EI0015), local ranks contiguous, CPU affinity sets not
shared. Ranks that share a device fail the stage themselves, naming each other.

The hierarchy comes from the connectivity stage's measurements (it runs first; rank 0 copies its
pair bandwidths into this stage's records so the summary needs no other file): sorted on a log
scale, consecutive links whose bandwidths differ by ``class_gap_ratio`` or more fall into
different classes; the ranks joined by links of the fastest class form the inferred islands,
compared with the declared nodes. A link is slow when it is below ``slow_link_fraction`` of the
median of the other links of its declared class (intra or inter): the declared class says what a
link should be, so a degraded link is compared with its healthy siblings even when it is slow
enough to form a class of its own.

On CPU (emulated clusters) there is no device to read: a rank's device is the emulated device
index it claims, its local rank unless ``device_of_local_rank`` maps it elsewhere. That knob also
reproduces a script that binds ranks to the wrong devices on real hardware.
"""

from __future__ import annotations

import os
import statistics
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from advisor import backends
from advisor.errors import ConfigError
from advisor.parsers import ParseError
from advisor.parsers.npu_smi import parse_info
from advisor.probes import connectivity
from advisor.probes.connectivity import Pair
from advisor.probes.tools import find_tool
from advisor.results import read_records
from advisor.stages import Stage, StageConfig

if TYPE_CHECKING:
    from advisor.cluster import Cluster
    from advisor.results import Record
    from advisor.worker import RankContext

SYS_PCI = Path("/sys/bus/pci/devices")
SYS_NODES = Path("/sys/devices/system/node")


@dataclass(kw_only=True)
class TopologyConfig(StageConfig):
    """The topology stage's settings."""

    deadline_s: float = 120.0
    device_of_local_rank: list[int] = field(default_factory=list)
    """Device index each local rank binds instead of its local rank (empty: the local rank, as
    the worker binds). Reproduces a wrong rank-to-device mapping: ``[0, 0]`` puts local ranks 0
    and 1 on device 0 (Ascend EI0015). On CPU it sets the emulated device a rank claims."""
    class_gap_ratio: float = 2.0
    """Bandwidth ratio between consecutive measured links that separates two link classes."""
    slow_link_fraction: float = 0.5
    """A link below this fraction of the median of the other links of its class is slow."""

    def __post_init__(self) -> None:
        if self.class_gap_ratio <= 1.0:
            raise ConfigError(
                f"stages.topology.class_gap_ratio={self.class_gap_ratio} must be above 1 "
                "(e.g. 2.0: classes at least twice apart)."
            )
        if not 0.0 < self.slow_link_fraction < 1.0:
            raise ConfigError(
                f"stages.topology.slow_link_fraction={self.slow_link_fraction} must be between "
                "0 and 1 (e.g. 0.5)."
            )
        if any(i < 0 for i in self.device_of_local_rank):
            raise ConfigError("stages.topology.device_of_local_rank lists device indices (>= 0).")


# --- rank side ------------------------------------------------------------------------------


def parse_cpulist(text: str) -> set[int]:
    """``0-3,8,10-11`` → {0, 1, 2, 3, 8, 10, 11} (the kernel's cpulist format)."""
    cpus: set[int] = set()
    for part in text.strip().split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


def format_cpulist(cpus: set[int] | list[int]) -> str:
    """The inverse of ``parse_cpulist``: compact ranges."""
    out: list[str] = []
    for c in sorted(cpus):
        if out and "-" not in out[-1] and int(out[-1]) == c - 1:
            out[-1] = f"{out[-1]}-{c}"
        elif out and "-" in out[-1] and int(out[-1].split("-")[1]) == c - 1:
            out[-1] = f"{out[-1].split('-')[0]}-{c}"
        else:
            out.append(str(c))
    return ",".join(out)


def cpu_numa_nodes(cpus: set[int], root: Path = SYS_NODES) -> list[int]:
    """NUMA nodes holding any of ``cpus`` (empty where /sys does not say)."""
    nodes = []
    for d in sorted(root.glob("node[0-9]*")):
        try:
            if parse_cpulist((d / "cpulist").read_text()) & cpus:
                nodes.append(int(d.name[4:]))
        except (OSError, ValueError):
            continue
    return nodes


def device_numa_node(bus_id: str, root: Path = SYS_PCI) -> int | None:
    """NUMA node of a PCI device; None where unknown (-1 in /sys means no NUMA affinity)."""
    try:
        value = int((root / bus_id.lower() / "numa_node").read_text().strip())
    except (OSError, ValueError):
        return None
    return value if value >= 0 else None


def _identity(ctx: RankContext, params: TopologyConfig) -> dict[str, Any]:
    kind = ctx.cluster.device_type
    mapped = params.device_of_local_rank
    index = mapped[ctx.local_rank] if ctx.local_rank < len(mapped) else ctx.local_rank
    device = ctx.device
    if kind != "cpu" and index != ctx.local_rank:
        device = backends.set_device(kind, index)
    info = backends.device_id(device)
    affinity = set(os.sched_getaffinity(0))
    out: dict[str, Any] = {
        "device_type": ctx.cluster.declared_device if kind == "cpu" else kind,
        "device_index": index if kind == "cpu" else info.get("index", index),
        "device_emulated": kind == "cpu",
        "bus_id": info.get("bus_id", ""),
        "device_name": info.get("name", ""),
        "cpu_affinity": format_cpulist(affinity),
        "cpu_numa_nodes": cpu_numa_nodes(affinity),
        "visible_devices": backends.device_count(kind) if kind != "cpu" else None,
    }
    if kind == "npu" and not out["bus_id"]:
        out["bus_id"] = npu_bus_id(int(out["device_index"]))
    numa = device_numa_node(out["bus_id"]) if out["bus_id"] else None
    if numa is None and len(out["cpu_numa_nodes"]) == 1:
        numa = out["cpu_numa_nodes"][0]
    out["numa_node"] = numa
    return out


def npu_bus_id(logical: int, timeout_s: float = 10.0) -> str:
    """PCI bus id of NPU ``logical`` (this process's device index) from ``npu-smi info``.

    torch_npu's device properties carry no PCI address (torch_npu/csrc/npu/Module.cpp), but the
    npu-smi table lists each chip's Bus-Id. A logical index is the physical chip's unless
    ASCEND_RT_VISIBLE_DEVICES renumbers them; a chip's physical id is its Phy-ID where the table
    has one (Atlas A3), else its place in the table. '' when npu-smi is missing or silent.
    """
    visible = [v for v in os.environ.get("ASCEND_RT_VISIBLE_DEVICES", "").split(",") if v.strip()]
    physical = int(visible[logical]) if logical < len(visible) else logical
    tool = find_tool("npu-smi")
    if tool is None:
        return ""
    try:
        text = subprocess.run(
            [tool, "info"], capture_output=True, text=True, timeout=timeout_s, check=False
        ).stdout
        chips = parse_info(text).chips
    except (OSError, subprocess.TimeoutExpired, ParseError):
        return ""
    # a chip whose second row was cut off has no chip index (nor bus id): it sorts first
    for place, chip in enumerate(
        sorted(chips, key=lambda c: (c.npu, -1 if c.chip is None else c.chip))
    ):
        if (chip.phy_id if chip.phy_id is not None else place) == physical:
            return chip.bus_id.lower()
    return ""


def device_key(node_name: str, host: str, device: str, bus_id: str) -> str:
    """A device's identity: its bus id on its host where known, else type and index."""
    return f"{node_name} ({host}) {bus_id or device}"


def run_rank(ctx: RankContext, params: TopologyConfig) -> None:
    from advisor import comm

    with ctx.step("identity") as m:
        m.update(_identity(ctx, params))
    mine = device_key(
        ctx.node_name, ctx.host, f"{m['device_type']}:{m['device_index']}", m["bus_id"]
    )
    with ctx.step("devices") as d:
        # Over the CPU (gloo) side group, not the device's: two ranks on one device can break
        # the device communicator, and this check must still name them.
        keys = comm.gather_objects(mine)
        sharing = [r for r, k in enumerate(keys) if k == mine and r != ctx.rank]
        d["sharing_ranks"] = sharing
    if ctx.rank == 0:
        with ctx.step("links") as lm:
            lm["links"] = measured_links(ctx.run_dir, ctx.cluster)
    if sharing:
        raise RuntimeError(
            f"rank {ctx.rank} shares device {mine} with rank(s) "
            f"{', '.join(map(str, sharing))} (Ascend EI0015): bind each rank to its own device"
        )


def measured_links(run_dir: Path, cluster: Cluster) -> list[list[Any]]:
    """``[[a, b, bandwidth_gbps], ...]`` of the connectivity stage's successful pairs."""
    facts = connectivity.summarize(read_records(run_dir, "connectivity"), cluster, None)
    return [[p.src, p.dst, p.bandwidth_gbps] for p in facts.pairs if p.bandwidth_gbps]


# --- summary --------------------------------------------------------------------------------


@dataclass(kw_only=True)
class RankTopology:
    rank: int
    node: int
    node_name: str
    host: str
    local_rank: int
    device: str
    """Device the rank uses, e.g. ``npu:3``; emulated devices carry the declared type."""
    device_emulated: bool = False
    bus_id: str = ""
    numa_node: int | None = None
    """NUMA node of the device (from /sys), else of the rank's CPUs when they sit in one."""
    cpu_affinity: str = ""
    """CPUs the rank may run on, in cpulist form (``0-23,48-71``)."""
    visible_devices: int | None = None
    """Devices of this type the rank's process sees (None on CPU)."""


@dataclass(kw_only=True)
class LinkClass:
    """Measured links whose bandwidths lie within ``class_gap_ratio`` of their neighbours."""

    index: int
    """0 is the fastest class."""
    median_gbps: float
    min_gbps: float
    max_gbps: float
    count: int
    declared: dict[str, int] = field(default_factory=dict)
    """How many of its links are declared intra and inter."""


@dataclass(kw_only=True)
class SlowLink:
    a: int
    b: int
    a_node: str
    b_node: str
    link: str
    """Declared class: intra or inter."""
    bandwidth_gbps: float
    class_median_gbps: float
    """Median of the other links of the same declared class."""


@dataclass(kw_only=True)
class TopologyFacts:
    """Summary of the topology stage."""

    ranks: list[RankTopology] = field(default_factory=list)
    ranks_per_node: dict[str, int] = field(default_factory=dict)
    duplicate_devices: list[dict[str, Any]] = field(default_factory=list)
    """``{device, ranks}`` for every device claimed by more than one rank (EI0015)."""
    shared_affinity: list[dict[str, Any]] = field(default_factory=list)
    """``{host, ranks, cpus}``: ranks of one host whose CPU affinity sets overlap (unpinned ranks
    compete for the same cores); ``cpus`` are the CPUs they share."""
    contiguous_local_ranks: bool = True
    errors: list[str] = field(default_factory=list)
    """Placement problems, each naming ranks, nodes and the fix."""
    measured_links: int = 0
    """Links (rank pairs) the inference used."""
    link_classes: list[LinkClass] = field(default_factory=list)
    islands: list[list[int]] = field(default_factory=list)
    """Ranks joined by links of the fastest class (each rank alone when it has none)."""
    islands_match_declared: bool | None = None
    """Islands equal the declared nodes; None when there was nothing measured to infer from."""
    island_notes: list[str] = field(default_factory=list)
    """How inferred islands differ from the declared nodes."""
    slow_links: list[SlowLink] = field(default_factory=list)


def summarize(records: list[Record], cluster: Cluster, params: Any) -> TopologyFacts:
    p = params if isinstance(params, TopologyConfig) else TopologyConfig()
    facts = TopologyFacts()
    links: list[list[Any]] = []
    for r in records:
        if r.status != "ok":
            continue
        if r.step == "identity":
            m = r.metrics
            facts.ranks.append(
                RankTopology(
                    rank=r.rank,
                    node=r.node,
                    node_name=r.node_name,
                    host=r.host,
                    local_rank=r.local_rank,
                    device=f"{m.get('device_type')}:{m.get('device_index')}",
                    device_emulated=bool(m.get("device_emulated")),
                    bus_id=str(m.get("bus_id") or ""),
                    numa_node=m.get("numa_node"),
                    cpu_affinity=str(m.get("cpu_affinity", "")),
                    visible_devices=m.get("visible_devices"),
                )
            )
        elif r.step == "links":
            links = list(r.metrics.get("links", []))
    facts.ranks.sort(key=lambda t: t.rank)
    _check_placement(facts, cluster)
    pairs = [(int(a), int(b), float(bw)) for a, b, bw in links if bw]
    infer(facts, pairs, cluster, p)
    return facts


def _check_placement(facts: TopologyFacts, cluster: Cluster) -> None:
    by_node: dict[str, list[RankTopology]] = {}
    for t in facts.ranks:
        by_node.setdefault(t.node_name, []).append(t)
    for name, ranks in sorted(by_node.items()):
        facts.ranks_per_node[name] = len(ranks)
        if len(ranks) != cluster.devices_per_node:
            facts.errors.append(
                f"{name} runs {len(ranks)} ranks but the cluster declares "
                f"{cluster.devices_per_node} devices per node: set cluster.devices_per_node "
                "or the launcher's processes per node to match"
            )
        visible = [t.visible_devices for t in ranks if t.visible_devices is not None]
        if visible and min(visible) < len(ranks):
            facts.errors.append(
                f"{name} runs {len(ranks)} ranks but its processes see {min(visible)} devices "
                "(check ASCEND_RT_VISIBLE_DEVICES / CUDA_VISIBLE_DEVICES)"
            )
        order = sorted(ranks, key=lambda t: t.rank)
        nums = [t.rank for t in order]
        if nums != list(range(nums[0], nums[0] + len(nums))) or [t.local_rank for t in order] != (
            list(range(len(order)))
        ):
            facts.contiguous_local_ranks = False
            facts.errors.append(
                f"{name}: ranks {nums} have local ranks {[t.local_rank for t in order]}; "
                "expected consecutive ranks with local ranks 0..n-1 (node-major placement)"
            )
    devices: dict[str, list[int]] = {}
    for t in facts.ranks:
        devices.setdefault(device_key(t.node_name, t.host, t.device, t.bus_id), []).append(t.rank)
    for dev, ranks_on in sorted(devices.items()):
        if len(ranks_on) > 1:
            facts.duplicate_devices.append({"device": dev, "ranks": ranks_on})
            facts.errors.append(
                f"ranks {', '.join(map(str, ranks_on))} share device {dev} (Ascend EI0015): "
                "bind each rank to its own device (set_device(local_rank)) before init"
            )
    _shared_affinity(facts)


def _shared_affinity(facts: TopologyFacts) -> None:
    by_host: dict[str, list[RankTopology]] = {}
    for t in facts.ranks:
        if t.cpu_affinity:
            by_host.setdefault(t.host, []).append(t)
    for host, ranks in sorted(by_host.items()):
        sets = {t.rank: parse_cpulist(t.cpu_affinity) for t in ranks}
        overlaps: list[Pair] = [(a, b) for a in sets for b in sets if a < b and sets[a] & sets[b]]
        for group in _components(sorted(sets), overlaps):
            if len(group) < 2:
                continue
            shared: set[int] = set()
            for a, b in overlaps:
                if a in group:
                    shared |= sets[a] & sets[b]
            facts.shared_affinity.append(
                {"host": host, "ranks": group, "cpus": format_cpulist(shared)}
            )


def _components(nodes: list[int], edges: list[tuple[int, int]]) -> list[list[int]]:
    parent = {n: n for n in nodes}

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, b in edges:
        if a in parent and b in parent:
            parent[find(a)] = find(b)
    groups: dict[int, list[int]] = {}
    for n in nodes:
        groups.setdefault(find(n), []).append(n)
    return sorted(sorted(g) for g in groups.values())


def link_classes(bandwidths: list[float], gap_ratio: float) -> list[list[float]]:
    """Split bandwidths into classes at every gap of ``gap_ratio`` or more, fastest class first."""
    values = sorted(bandwidths, reverse=True)
    classes: list[list[float]] = []
    for v in values:
        if classes and classes[-1][-1] / v < gap_ratio:
            classes[-1].append(v)
        else:
            classes.append([v])
    return classes


def infer(
    facts: TopologyFacts,
    pairs: list[tuple[int, int, float]],
    cluster: Cluster,
    params: TopologyConfig,
) -> None:
    """Fill link classes, islands and slow links from measured ``(a, b, bandwidth_gbps)``."""
    facts.measured_links = len(pairs)
    if not pairs:
        return
    classes = link_classes([bw for _, _, bw in pairs], params.class_gap_ratio)
    for i, values in enumerate(classes):
        lo, hi = min(values), max(values)
        declared: dict[str, int] = {}
        for a, b, bw in pairs:
            if lo <= bw <= hi:
                kind = cluster.link_class(a, b)
                declared[kind] = declared.get(kind, 0) + 1
        facts.link_classes.append(
            LinkClass(
                index=i,
                median_gbps=statistics.median(values),
                min_gbps=lo,
                max_gbps=hi,
                count=len(values),
                declared=declared,
            )
        )
    fastest_min = min(classes[0])
    fast = [(a, b) for a, b, bw in pairs if bw >= fastest_min]
    facts.islands = _components(list(range(cluster.world_size)), fast)
    declared_nodes = cluster.node_groups()
    facts.islands_match_declared = facts.islands == declared_nodes
    if not facts.islands_match_declared:
        facts.island_notes = _island_notes(facts.islands, cluster, len(classes))
    for a, b, bw in pairs:
        kind = cluster.link_class(a, b)
        others = [x for c, d, x in pairs if cluster.link_class(c, d) == kind and (c, d) != (a, b)]
        if not others:
            continue
        median = statistics.median(others)
        if bw < params.slow_link_fraction * median:
            facts.slow_links.append(
                SlowLink(
                    a=a,
                    b=b,
                    a_node=cluster.node_name(cluster.node_of(a)),
                    b_node=cluster.node_name(cluster.node_of(b)),
                    link=kind,
                    bandwidth_gbps=bw,
                    class_median_gbps=median,
                )
            )
    facts.slow_links.sort(key=lambda s: s.bandwidth_gbps)


def _island_notes(islands: list[list[int]], cluster: Cluster, n_classes: int) -> list[str]:
    notes = []
    if n_classes == 1 and cluster.nodes > 1:
        notes.append(
            "every measured link falls in one class: intra-node links are no faster than "
            "inter-node ones (expected on an emulated cluster; on real nodes intra-node traffic "
            "may be going over the network)"
        )
    for island in islands:
        nodes = sorted({cluster.node_name(cluster.node_of(r)) for r in island})
        if len(nodes) > 1:
            notes.append(f"ranks {island} form one fast island across {', '.join(nodes)}")
    for group in cluster.node_groups():
        parts = [i for i in islands if set(i) & set(group)]
        if len(parts) > 1:
            name = cluster.node_name(cluster.node_of(group[0]))
            notes.append(f"{name}'s ranks split into islands {parts}")
    return notes


STAGE = Stage(
    name="topology",
    description="rank placement (devices, NUMA, CPU affinity) and the hierarchy measured links show",
    config_type=TopologyConfig,
    run_rank=run_rank,
    summarize=summarize,
    facts_type=TopologyFacts,
)
