"""The launcher's configuration and the launch plan of a run.

One plan says, for every job of a run: which nodes this advisor process starts agents for, the
master address and the port the job meets at (every node must agree without talking: ports come
from a base port plus the job's offset), and each node's environment. The runner, the drivers,
preflight and launch.sh read it, so the rules live in one place.
"""

from __future__ import annotations

import os
import random
import socket
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

import psutil

from advisor.backends import interface_env
from advisor.errors import ConfigError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from advisor.cluster import Cluster

LAUNCHER_KINDS = ("local", "torchrun", "env", "slurm", "ssh")


@dataclass(kw_only=True)
class SshConfig:
    """How the ssh launcher reaches each host."""

    user: str = ""
    """Login user; empty uses ssh's default."""
    port: int = 22
    identity_file: str = ""
    options: list[str] = field(default_factory=lambda: ["BatchMode=yes", "ConnectTimeout=10"])
    """``-o`` options passed to ssh."""


@dataclass(kw_only=True)
class SlurmConfig:
    """How the slurm launcher submits ``srun`` (run the advisor inside an allocation)."""

    partition: str = ""
    account: str = ""
    extra_args: list[str] = field(default_factory=list)
    """Further srun arguments, e.g. ``["--gres=gpu:8"]``."""


RANK_STARTS = ("auto", "forkserver", "process")
"""``launcher.rank_start`` values."""


@dataclass(kw_only=True)
class LauncherConfig:
    """How jobs are started (``launcher`` group)."""

    kind: str = "local"
    """local: every node's agent on this host (single node, emulation, or lab namespaces);
    torchrun: this process is node ``node_rank`` of a multi-node run, rendezvous at
    ``rdzv_endpoint``; env: like torchrun with node rank, node count and master taken from the
    environment (advisor itself started by torchrun or a Kubernetes PyTorchJob); slurm: one
    ``srun`` per job with one agent per node; ssh: one agent per host over ssh."""
    rdzv_backend: str = "static"
    """static: node ranks fixed by ``--node-rank`` (node i is hosts[i]); c10d: assigned at join."""
    rdzv_endpoint: str = ""
    """host:port of the rendezvous for torchrun/env/slurm/ssh; empty: master_addr and a port."""
    node_rank: int = 0
    """For torchrun: which node this advisor process is."""
    join_timeout_s: float = 600.0
    """torchrun's rendezvous join timeout (``--rdzv-conf join_timeout``)."""
    monitor_interval_s: float = 0.1
    """How often the agent checks its workers (torchrun's own default, run.py
    ``--monitor-interval``): the agent sees its ranks exit that much sooner, a job ends sooner."""
    python: str = ""
    """Python on the nodes; empty: this interpreter."""
    netns: list[str] = field(default_factory=list)
    """local only: network namespace of each node (the emulated lab), node 0 first."""
    ssh: SshConfig = field(default_factory=SshConfig)
    slurm: SlurmConfig = field(default_factory=SlurmConfig)
    kill_grace_s: float = 5.0
    """After the deadline, seconds between SIGTERM and SIGKILL."""
    rank_start: str = "auto"
    """How an agent starts its ranks: forkserver (forked from one process per agent that has
    imported torch: a rank starts in a fraction of a second instead of about 2 s of imports),
    process (a new interpreter per rank, torchrun's default for a script) or auto (forkserver
    for CPU jobs of at least ``launch.commands.FORK_MIN_RANKS_PER_NODE`` ranks per node, process
    otherwise and on devices, where a fork after torch's device extension loaded is not checked;
    ``advisor.launch.agent``)."""

    def __post_init__(self) -> None:
        if self.kind not in LAUNCHER_KINDS:
            raise ConfigError(
                f"launcher.kind={self.kind!r} is not one of {', '.join(LAUNCHER_KINDS)}."
            )
        if self.rank_start not in RANK_STARTS:
            raise ConfigError(
                f"launcher.rank_start={self.rank_start!r} must be one of {', '.join(RANK_STARTS)}."
            )
        if self.rdzv_backend not in ("static", "c10d"):
            raise ConfigError(
                f"launcher.rdzv_backend={self.rdzv_backend!r} must be static or c10d."
            )


EPHEMERAL_RANGE_FILE = Path("/proc/sys/net/ipv4/ip_local_port_range")
"""Linux's local port range: the ports TCP and UDP choose a local port from (bind to port 0,
connect) — Documentation/networking/ip-sysctl (ip_local_port_range, default 32768 60999)."""
FREE_PORT_SPAN = 16384
"""How many ports below the ephemeral range ``free_port`` picks from."""


def _ephemeral_low() -> int:
    try:
        return int(EPHEMERAL_RANGE_FILE.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0


def free_port(host: str = "127.0.0.1") -> int:
    """A port that binds on ``host`` now, for a job to meet at.

    A job's store binds the port seconds later (after torchrun starts), so the port comes from
    just below the kernel's ephemeral range: a port the kernel hands out for bind(0) or
    connect() — every gloo socket of another job on this host — could be taken in that gap.
    Without a readable range (not Linux), the kernel's own pick."""
    addr = host if host not in ("localhost",) else "127.0.0.1"
    high = _ephemeral_low()
    low = max(1024, high - FREE_PORT_SPAN)
    candidates = random.sample(range(low, high), k=min(64, max(0, high - low)))
    for port in [*candidates, 0]:
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            try:
                s.bind((addr, port))
            except OSError:
                continue
            return int(s.getsockname()[1])
    raise ConfigError(f"no free TCP port to bind on {addr}: set cluster.master_port.")


@dataclass(kw_only=True)
class LaunchPlan:
    """How this advisor process launches every job of a run."""

    launcher: LauncherConfig
    cluster: Cluster
    local_nodes: list[int]
    """Nodes this process starts agents for (all of them, except with one advisor per node)."""
    master_addr: str
    base_port: int
    """Port of offset 0; 0: a free port is picked for each job (one advisor for every node)."""
    env: dict[str, str] = field(default_factory=dict)
    """Variables the run sets for every job (the config's ``env``)."""

    @classmethod
    def make(
        cls,
        launcher: LauncherConfig,
        cluster: Cluster,
        env: Mapping[str, str] | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> LaunchPlan:
        """The plan, or a ConfigError naming the launcher setting that cannot work.

        ``environ`` is this process's environment (``launcher=env`` reads the node rank, node
        count and master from it). Multi-process launchers (torchrun/env) run one advisor per
        node: they must agree on ports without talking, so a base port is required.
        """
        environ = os.environ if environ is None else environ
        host, _, port_s = launcher.rdzv_endpoint.rpartition(":")
        endpoint_port = int(port_s) if port_s.isdigit() else 0
        base_port = endpoint_port or cluster.master_port
        master = host or cluster.master_addr
        local_nodes = list(range(cluster.nodes))
        if launcher.kind == "local":
            if cluster.nodes > 1 and not cluster.emulated and not launcher.netns:
                raise ConfigError(
                    f"cluster {cluster.name!r} has {cluster.nodes} nodes but launcher=local starts "
                    "agents on this host only: use launcher=ssh, launcher=slurm, launcher=torchrun "
                    "(one advisor per node) or emulate=true."
                )
            if launcher.netns and len(launcher.netns) != cluster.nodes:
                raise ConfigError(
                    f"launcher.netns lists {len(launcher.netns)} namespaces for "
                    f"{cluster.nodes} nodes: give one per node."
                )
        elif launcher.kind in ("torchrun", "env"):
            node_rank = launcher.node_rank
            if launcher.kind == "env":
                missing = [
                    k
                    for k in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT")
                    if k not in environ
                ]
                if missing:
                    raise ConfigError(
                        f"launcher=env needs {', '.join(missing)} in the environment (set by "
                        "torchrun or a PyTorchJob); use launcher=local or launcher=torchrun "
                        "otherwise."
                    )
                node_rank = int(environ["RANK"])
                if int(environ["WORLD_SIZE"]) != cluster.nodes:
                    raise ConfigError(
                        f"launcher=env: WORLD_SIZE={environ['WORLD_SIZE']} advisor processes but "
                        f"cluster {cluster.name!r} has {cluster.nodes} nodes; start one advisor "
                        "per node."
                    )
                master = environ["MASTER_ADDR"]
                # The outer job's store holds MASTER_PORT itself: jobs take the ports above it.
                base_port = int(environ["MASTER_PORT"]) + 1
            if not base_port:
                raise ConfigError(
                    f"launcher={launcher.kind} needs a fixed port every node agrees on: set "
                    "launcher.rdzv_endpoint=HOST:PORT or cluster.master_port."
                )
            if not 0 <= node_rank < cluster.nodes:
                raise ConfigError(
                    f"launcher.node_rank={node_rank} is outside 0..{cluster.nodes - 1}."
                )
            local_nodes = [node_rank]
        return cls(
            launcher=launcher,
            cluster=cluster,
            local_nodes=local_nodes,
            master_addr=master,
            base_port=base_port,
            env=dict(env or {}),
        )

    @property
    def primary(self) -> bool:
        """This process writes the run's facts and report (node 0's, or the only one)."""
        return 0 in self.local_nodes or self.launcher.kind == "slurm"

    @property
    def one_per_node(self) -> bool:
        """One advisor process per node: a peer node may leave the run."""
        return len(self.local_nodes) < self.cluster.nodes

    def port(self, offset: int) -> int:
        """The port a job of this offset meets at (a fresh free one without a base port)."""
        return self.base_port + offset if self.base_port else free_port()

    def job_env(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """The environment a job's ranks see on this host: this process's, the run's ``env``,
        ``extra`` (a job's own, e.g. a native algorithm variant), and the interface variables
        of ``cluster.interface`` unless the run sets them itself."""
        given = {**self.env, **(extra or {})}
        out = {**os.environ, **given}
        for var, value in interface_env(self.cluster.device_type, self.cluster.interface).items():
            if var not in given:
                out[var] = value
        # One intra-op thread per rank: ranks share the host's cores, and oversubscription would
        # measure the CPU scheduler instead of the network.
        out.setdefault("OMP_NUM_THREADS", "1")
        out["PYTHONUNBUFFERED"] = "1"
        return out

    def node_env(self, node: int, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        """``job_env`` for one node's agent (its ranks learn their node's name from it)."""
        return {**self.job_env(extra), "ADVISOR_NODE_NAME": self.cluster.node_name(node)}

    def on(self, cluster: Cluster) -> LaunchPlan:
        """The same plan for a smaller world on the first nodes (scaling runs): in the lab, those
        nodes' namespaces."""
        launcher = self.launcher
        if launcher.netns and len(launcher.netns) != cluster.nodes:
            launcher = replace(launcher, netns=launcher.netns[: cluster.nodes])
        return LaunchPlan.make(launcher, cluster, self.env)

    def subset(self, nodes: list[int]) -> LaunchPlan:
        """The same plan on some of the nodes (isolation jobs): their hosts, in the lab their
        namespaces, their names."""
        launcher = self.launcher
        if launcher.netns:
            launcher = replace(launcher, netns=[launcher.netns[n] for n in nodes])
        return LaunchPlan.make(launcher, self.cluster.subset(nodes), self.env)

    def peers_since_s(self) -> float:
        """Notes from other nodes count when written after this advisor could have been waited
        for: its own start less the rendezvous join timeout (peers start within it of each
        other)."""
        return psutil.Process().create_time() - self.launcher.join_timeout_s
