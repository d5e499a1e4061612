"""The cluster model: nodes, devices, ranks, their placement, groups and link classes.

A cluster is declared in config (``conf/cluster/*.yaml``) or, with no ``+cluster``, describes this
host. Ranks are placed node-major, as torchrun does: rank = node * devices_per_node + local_rank.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field, replace

from advisor import backends
from advisor.backends import CHIPS
from advisor.errors import ConfigError

DEVICE_TYPES = ("auto", "npu", "cuda", "cpu")


@dataclass(kw_only=True)
class LinkClassConfig:
    """A class of link between ranks, with its nominal bandwidth."""

    type: str = "unknown"
    """Link technology, e.g. ``HCCS``, ``NVLink``, ``RoCE``, ``loopback``, ``veth``."""
    nominal_gbps: float = 0.0
    """Nominal bandwidth per direction in Gbit/s; 0 when unknown (measured figures are used)."""


@dataclass(kw_only=True)
class ClusterConfig:
    """Declared shape of the cluster (``cluster`` group)."""

    name: str = "local"
    """Preset name; ``local`` describes this host."""
    nodes: int = 1
    """Number of nodes (hosts)."""
    devices_per_node: int = 0
    """Accelerators (ranks) per node; 0 means detect on this host (on CPU: ``cpu_ranks``)."""
    device: str = "auto"
    """Device type: auto (npu, then cuda, then cpu), npu, cuda or cpu."""
    cpu_ranks: int = 2
    """Ranks per node when the device is the CPU and devices_per_node is 0."""
    hosts: list[str] = field(default_factory=list)
    """Host name or address of each node, node 0 first; empty means this host for every node."""
    master_addr: str = ""
    """Rendezvous address; empty means the first host (127.0.0.1 on a single host)."""
    master_port: int = 0
    """Rendezvous port; 0 picks a free port for each stage."""
    interface: str = ""
    """NIC for the communication backend (GLOO/NCCL/HCCL_SOCKET_IFNAME); empty lets it choose."""
    chip: str = ""
    """Ascend generation (910, A2, A3, 950) whose HCCL rules apply; empty: read from the device on
    an NPU host, else A2 assumed (npu clusters only)."""
    device_memory_gib: float = 0.0
    """Memory of one npu or cuda device in GiB; 0: not declared. Declared, a benchmark whose
    buffers would not fit one device is refused before the run; undeclared, such a buffer
    fails on the rank (this process does not open the devices to ask)."""
    intra: LinkClassConfig = field(default_factory=LinkClassConfig)
    """Link class between ranks of one node."""
    inter: LinkClassConfig = field(default_factory=LinkClassConfig)
    """Link class between nodes."""

    def __post_init__(self) -> None:
        if self.nodes < 1:
            raise ConfigError(f"cluster.nodes must be at least 1, got {self.nodes}.")
        if self.devices_per_node < 0:
            raise ConfigError(
                f"cluster.devices_per_node must be 0 (detect) or more, got {self.devices_per_node}."
            )
        if self.cpu_ranks < 1:
            raise ConfigError(f"cluster.cpu_ranks must be at least 1, got {self.cpu_ranks}.")
        if self.device not in DEVICE_TYPES:
            raise ConfigError(
                f"cluster.device={self.device!r} is not one of {', '.join(DEVICE_TYPES)}."
            )
        if self.hosts and len(self.hosts) != self.nodes:
            raise ConfigError(
                f"cluster.hosts lists {len(self.hosts)} hosts but cluster.nodes={self.nodes}: "
                "give one host per node, node 0 first."
            )
        if self.device_memory_gib < 0:
            raise ConfigError(
                f"cluster.device_memory_gib must be 0 (not declared) or more, got "
                f"{self.device_memory_gib}."
            )
        if not 0 <= self.master_port <= 65535:
            raise ConfigError(f"cluster.master_port={self.master_port} is not a TCP port.")
        if self.chip and self.chip not in CHIPS:
            raise ConfigError(
                f"cluster.chip={self.chip!r} is not one of {', '.join(CHIPS)} (Atlas training "
                "series 910, Atlas A2 = 910B, Atlas A3 = 910_93, Ascend 950)."
            )


@dataclass(kw_only=True)
class LinkClass:
    name: str
    """``intra`` or ``inter``."""
    type: str
    nominal_gbps: float


@dataclass(kw_only=True)
class RankPlacement:
    rank: int
    node: int
    local_rank: int
    node_name: str


@dataclass(kw_only=True)
class Cluster:
    """A resolved cluster: concrete device type, backend and ranks per node."""

    name: str
    nodes: int
    devices_per_node: int
    device_type: str
    """npu, cuda or cpu: what the job really runs on."""
    declared_device: str
    """What the cluster declares (differs from device_type when emulated)."""
    backend: str
    """hccl, nccl or gloo."""
    emulated: bool
    hosts: list[str]
    master_addr: str
    master_port: int
    interface: str
    links: dict[str, LinkClass]
    chip: str = ""
    """Ascend generation of the (declared) npu devices; '' when not an npu cluster or unknown."""
    node_names: list[str] = field(default_factory=list)
    """Names of the nodes when this is a subset of a run's cluster (isolation jobs keep the
    run's names); empty: from ``hosts``."""
    device_memory_gib: float = 0.0
    """Declared memory of one device (``cluster.device_memory_gib``); 0: not declared."""

    @property
    def world_size(self) -> int:
        return self.nodes * self.devices_per_node

    @property
    def shape(self) -> str:
        return f"{self.nodes}x{self.devices_per_node}"

    def node_of(self, rank: int) -> int:
        return rank // self.devices_per_node

    def local_rank_of(self, rank: int) -> int:
        return rank % self.devices_per_node

    def node_name(self, node: int) -> str:
        if self.node_names:
            return self.node_names[node]
        if self.emulated or not self.hosts:
            return f"node{node}"
        return self.hosts[node]

    def placements(self) -> list[RankPlacement]:
        return [
            RankPlacement(
                rank=r,
                node=self.node_of(r),
                local_rank=self.local_rank_of(r),
                node_name=self.node_name(self.node_of(r)),
            )
            for r in range(self.world_size)
        ]

    def node_groups(self) -> list[list[int]]:
        """Ranks of each node: the intra-node groups."""
        g = self.devices_per_node
        return [list(range(n * g, (n + 1) * g)) for n in range(self.nodes)]

    def inter_node_groups(self) -> list[list[int]]:
        """One group per local rank, holding that local rank of every node (same-local-rank peers).

        This is the group the hierarchical all-reduce uses between nodes; the seed article's
        ``list(range(num_nodes))`` puts ranks of one node together instead.
        """
        g = self.devices_per_node
        return [[n * g + local for n in range(self.nodes)] for local in range(g)]

    def subset(self, nodes: list[int]) -> Cluster:
        """The same cluster on some of its nodes (ascending), keeping their names; the job meets
        at its first node (the run's master when node 0 is in it)."""
        hosts = [self.hosts[n] for n in nodes] if self.hosts else []
        master = self.master_addr if nodes[0] == 0 or not hosts else hosts[0]
        return replace(
            self,
            nodes=len(nodes),
            hosts=hosts,
            master_addr=master,
            node_names=[self.node_name(n) for n in nodes],
        )

    def link_class(self, rank_a: int, rank_b: int) -> str:
        return "intra" if self.node_of(rank_a) == self.node_of(rank_b) else "inter"

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "nodes": self.nodes,
            "devices_per_node": self.devices_per_node,
            "world_size": self.world_size,
            "device_type": self.device_type,
            "declared_device": self.declared_device,
            "backend": self.backend,
            "emulated": self.emulated,
            "hosts": list(self.hosts),
            "master_addr": self.master_addr,
            "master_port": self.master_port,
            "interface": self.interface,
            "chip": self.chip,
            "node_names": list(self.node_names),
            "device_memory_gib": self.device_memory_gib,
            "links": {
                k: {"name": v.name, "type": v.type, "nominal_gbps": v.nominal_gbps}
                for k, v in self.links.items()
            },
        }

    @classmethod
    def from_dict(cls, d: dict[str, object]) -> Cluster:
        links_raw = d.get("links") or {}
        assert isinstance(links_raw, dict)
        links = {k: LinkClass(**v) for k, v in links_raw.items()}
        kwargs = {k: v for k, v in d.items() if k not in ("links", "world_size")}
        return cls(links=links, **kwargs)  # type: ignore[arg-type]


def resolve(cfg: ClusterConfig, *, emulate: bool) -> Cluster:
    """Turn the declared cluster into a runnable one, or say clearly why it cannot run here.

    ``emulate`` runs the declared shape on this host's CPUs with gloo, each rank told its
    emulated node; without it a device the host lacks is an error, never a silent fallback.
    """
    declared = cfg.device
    if emulate:
        device = "cpu"
        if declared == "auto":
            declared = "cpu"
    else:
        device = backends.detect() if declared == "auto" else declared
        backends.require(device, cluster_name=cfg.name)
        if declared == "auto":
            declared = device
    per_node = cfg.devices_per_node
    if per_node == 0:
        per_node = cfg.cpu_ranks if device == "cpu" else backends.device_count(device)
        if per_node < 1:
            raise ConfigError(f"no {device} devices found on this host for cluster {cfg.name!r}.")
    if not emulate and cfg.nodes == 1 and device != "cpu":
        available = backends.device_count(device)
        if per_node > available:
            raise ConfigError(
                f"cluster {cfg.name!r} declares {per_node} {device} devices per node but this "
                f"host has {available}: set cluster.devices_per_node={available} or "
                "emulate=true."
            )
    hosts = list(cfg.hosts)
    single_host = emulate or cfg.nodes == 1
    master = cfg.master_addr or (hosts[0] if hosts and not emulate else "127.0.0.1")
    if single_host and not hosts:
        hosts = [socket.gethostname()] * cfg.nodes if not emulate else []
    links = {
        "intra": LinkClass(name="intra", type=cfg.intra.type, nominal_gbps=cfg.intra.nominal_gbps),
        "inter": LinkClass(name="inter", type=cfg.inter.type, nominal_gbps=cfg.inter.nominal_gbps),
    }
    chip = cfg.chip
    if declared == "npu" and not chip and not emulate:
        chip = backends.chip_of_device()
    return Cluster(
        name=cfg.name,
        nodes=cfg.nodes,
        devices_per_node=per_node,
        device_type=device,
        declared_device=declared,
        backend=backends.BACKEND_OF[device],
        emulated=emulate,
        hosts=hosts,
        master_addr=master,
        master_port=cfg.master_port,
        interface=cfg.interface or os.environ.get(backends.IFNAME_VAR[device], ""),
        links=links,
        chip=chip if declared == "npu" else "",
        device_memory_gib=cfg.device_memory_gib,
    )
