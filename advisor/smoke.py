"""The smoke stage: the process group comes up on every rank and a known-value all_reduce is right.

It is the cheapest proof that the cluster can run a job at all, and it records how long launch,
rendezvous and process-group init took on each rank.
"""

from __future__ import annotations

import os
import socket
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import psutil

from advisor.backends import IFNAME_VAR
from advisor.stages import Stage, StageConfig

if TYPE_CHECKING:
    from advisor.cluster import Cluster
    from advisor.results import Record
    from advisor.worker import RankContext


@dataclass(kw_only=True)
class SmokeConfig(StageConfig):
    """The smoke stage's settings."""

    deadline_s: float = 90.0


@dataclass(kw_only=True)
class SmokeFacts:
    """Summary of the smoke stage."""

    ranks_reporting: int = 0
    """Ranks that wrote at least one record."""
    ranks_initialised: int = 0
    """Ranks whose process group came up."""
    all_reduce_ok: bool | None = None
    """True when every rank saw the expected sum; None when no rank got that far."""
    launch_to_start_s: dict[str, float] = field(default_factory=dict)
    """Per rank: seconds from the launcher starting the agents to the rank's first record."""
    init_s: dict[str, float] = field(default_factory=dict)
    """Per rank: seconds spent in init_process_group (rendezvous of the process group)."""
    hosts: dict[str, str] = field(default_factory=dict)
    """Per rank: real host name."""
    addresses: dict[str, str] = field(default_factory=dict)
    """Per rank: IPv4 address of the NIC it talks through (the backend's interface variable,
    else the one routing to the master); tells nodes apart where host names do not."""
    interfaces: dict[str, str] = field(default_factory=dict)
    """Per rank: that NIC's name ('' when it could not be told)."""


def local_address(cluster: Cluster) -> tuple[str, str]:
    """(interface, IPv4 address) this rank's traffic leaves through.

    The backend's interface variable names the NIC when set; otherwise the address is the
    source the kernel picks to reach the master (no packet is sent: a UDP connect only routes).
    """
    wanted = os.environ.get(IFNAME_VAR.get(cluster.device_type, ""), "").split(",")[0].strip()
    nics = psutil.net_if_addrs()
    if wanted:
        for a in nics.get(wanted, []):
            if a.family == socket.AF_INET:
                return wanted, a.address
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.connect((cluster.master_addr or "127.0.0.1", 1))
            addr = str(s.getsockname()[0])
    except OSError:
        return "", ""
    name = next((n for n, addrs in nics.items() for a in addrs if a.address == addr), "")
    return name, addr


def run_rank(ctx: RankContext, params: SmokeConfig) -> None:
    interface, address = local_address(ctx.cluster)
    ctx.record("address", interface=interface, address=address)
    barrier_and_known_sum(ctx)


def barrier_and_known_sum(ctx: RankContext) -> None:
    """A barrier, then a known-value all_reduce checked on every rank (steps ``barrier`` and
    ``all_reduce``): the cheapest proof a group works. Raises on a wrong sum."""
    from advisor import comm

    with ctx.step("barrier"):
        comm.barrier()
    with ctx.step("all_reduce") as m:
        t = comm.full(1024, float(ctx.rank + 1))
        comm.all_reduce(t)
        ctx.sync()
        n = ctx.world_size
        expected = n * (n + 1) / 2
        wrong = int((t != expected).sum().item())
        m.update(expected=expected, wrong=wrong, ok=wrong == 0)
        if wrong:
            raise RuntimeError(f"all_reduce gave {wrong} wrong elements (expected {expected})")


def summarize(records: list[Record], cluster: Cluster, params: Any) -> SmokeFacts:
    facts = SmokeFacts()
    reporting = set()
    results: list[bool] = []
    for r in records:
        reporting.add(r.rank)
        key = str(r.rank)
        facts.hosts[key] = r.host
        if r.step == "start":
            facts.launch_to_start_s[key] = float(r.metrics.get("since_launch_s", 0.0))
        elif r.step == "address":
            facts.addresses[key] = str(r.metrics.get("address", ""))
            facts.interfaces[key] = str(r.metrics.get("interface", ""))
        elif r.step == "init" and r.status == "ok":
            facts.init_s[key] = float(r.metrics.get("init_s", 0.0))
        elif r.step == "all_reduce" and r.status in ("ok", "error"):
            results.append(bool(r.metrics.get("ok", False)))
    facts.ranks_reporting = len(reporting)
    facts.ranks_initialised = len(facts.init_s)
    facts.all_reduce_ok = all(results) if results else None
    return facts


STAGE = Stage(
    name="smoke",
    description="process group comes up on every rank; known-value all_reduce",
    config_type=SmokeConfig,
    run_rank=run_rank,
    summarize=summarize,
    facts_type=SmokeFacts,
)
