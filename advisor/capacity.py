"""Whether this host can run the planned jobs: refused before anything starts, with the limit.

An emulated cluster runs every rank on this host, so a shape far beyond it (100000 nodes) or a
benchmark buffer beyond its memory would start and then die after minutes (a rank killed for
memory, the kernel out of processes or sockets). The limits come from the host as it is now:
available memory (psutil), the open-file limit every rank inherits (``ulimit -n``) and the
process and thread limits (``ulimit -u`` for a user other than root, the kernel's
``threads-max``). What a rank costs is measured (figures below), not guessed.

Ranks on other hosts (``launcher=ssh``/``slurm``) are those hosts' business: only the device
memory a cluster declares (``cluster.device_memory_gib``) is checked for them. On npu and cuda
the benchmark's buffers live in device memory, which this process does not query (it would have
to initialise the device runtime before the ranks do); without the declaration an oversize
buffer fails on the rank, whose allocation error the stage reports.
"""

from __future__ import annotations

import os
import resource
from dataclasses import dataclass
from pathlib import Path

import psutil

from advisor.bench.collectives import BenchConfig, rank_peak_bytes
from advisor.cluster import Cluster
from advisor.errors import ConfigError

GIB = 2**30
MIB = 2**20

RANK_MEMORY_BYTES = 160 * MIB
"""Private memory of one idle rank (Python, torch, gloo): 158–159 MiB of Private_Dirty in
/proc/PID/smaps_rollup for each rank of an emulated 2x2 quick run on the development host
(torch 2.x CPU); shared library pages are not counted, they are shared."""
AGENT_MEMORY_BYTES = 150 * MIB
"""Private memory of one torchrun elastic agent (one per node): 148 MiB measured the same way."""
ADVISOR_MEMORY_BYTES = 512 * MIB
"""Headroom kept for this advisor process and the rest of the host."""
THREADS_PER_PROCESS = 16
"""Threads of one rank or agent: 8–11 measured per rank (gloo's loop and torch's pools) on a
2-core host; torchrun sets OMP_NUM_THREADS=1 when it starts several ranks, so larger hosts add
few."""
FDS_BASE = 64
"""Open files of a rank before it connects: 18–23 measured at world size 4 (libraries, logs,
the TCP store), with headroom."""
FDS_PER_PEER = 4
"""Sockets a gloo rank opens per other rank: gloo's ``connectFullMesh`` makes one pair (one TCP
connection) to every other rank for each process group (gloo/rendezvous/context.cc in
facebookincubator/gloo); a rank holds the device group, the side group and the probes'
subgroups."""


@dataclass(kw_only=True)
class Host:
    """What this host offers now."""

    available_bytes: int
    """Memory available without swapping (psutil ``virtual_memory().available``)."""
    open_files_limit: int
    """Soft ``RLIMIT_NOFILE`` every rank inherits (``ulimit -n``); -1: unlimited."""
    threads_limit: int
    """Threads this user may still start: ``ulimit -u`` for a user other than root, the kernel's
    ``threads-max`` for all, less those already running; -1: unknown."""

    @classmethod
    def measure(cls) -> Host:
        nofile = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        uid = os.geteuid()
        counts = [(_uid(p), _threads(p)) for p in psutil.process_iter()]
        room = []
        nproc = resource.getrlimit(resource.RLIMIT_NPROC)[0]
        if uid != 0 and nproc != resource.RLIM_INFINITY:
            # RLIMIT_NPROC counts this user's threads (the kernel does not apply it to root)
            room.append(int(nproc) - sum(n for owner, n in counts if owner == uid))
        threads_max = Path("/proc/sys/kernel/threads-max")
        if threads_max.exists():
            room.append(int(threads_max.read_text().split()[0]) - sum(n for _, n in counts))
        return cls(
            available_bytes=int(psutil.virtual_memory().available),
            open_files_limit=-1 if nofile == resource.RLIM_INFINITY else int(nofile),
            threads_limit=min(room) if room else -1,
        )


def _uid(p: psutil.Process) -> int:
    try:
        return int(p.uids().real)
    except psutil.Error:
        return -1


def _threads(p: psutil.Process) -> int:
    try:
        return int(p.num_threads())
    except psutil.Error:
        return 0


def hosted_nodes(launcher_kind: str, local_nodes: list[int]) -> int:
    """Nodes whose ranks run on this host: every local node with launcher=local (emulated, the
    network-namespace lab, or one node), this node with one advisor per node, none when the
    agents are started on other hosts (ssh, slurm)."""
    if launcher_kind == "local":
        return len(local_nodes)
    if launcher_kind in ("torchrun", "env"):
        return 1
    return 0


def problems(cluster: Cluster, nodes_here: int, bench: BenchConfig | None, host: Host) -> list[str]:
    """Why this host cannot run ``nodes_here`` nodes of ``cluster`` (and the benchmark, when it
    is planned), each naming the limit, what the run needs, and the setting to change."""
    out: list[str] = []
    world = cluster.world_size
    peak_bytes, peak_point = rank_peak_bytes(bench, world) if bench is not None else (0, "")
    on_host = cluster.device_type == "cpu"
    if bench is not None and not on_host and cluster.device_memory_gib > 0:
        device_bytes = int(cluster.device_memory_gib * GIB)
        if peak_bytes > device_bytes:
            out.append(
                f"stages.bench.max_bytes={bench.max_bytes}: {peak_point} needs about "
                f"{peak_bytes / GIB:.1f} GiB on each device, over cluster.device_memory_gib="
                f"{cluster.device_memory_gib:g}; lower stages.bench.max_bytes"
            )
    if nodes_here == 0:
        return out
    ranks = nodes_here * cluster.devices_per_node
    per_rank = RANK_MEMORY_BYTES + (peak_bytes if on_host else 0)
    need = ranks * per_rank + nodes_here * AGENT_MEMORY_BYTES + ADVISOR_MEMORY_BYTES
    if need > host.available_bytes:
        what = (
            f"{ranks} ranks × {per_rank / MIB:,.0f} MiB (a rank's {RANK_MEMORY_BYTES // MIB} MiB"
            + (
                f" + the benchmark's {peak_bytes / MIB:,.0f} MiB for {peak_point}"
                if peak_bytes and on_host
                else ""
            )
            + f") + {nodes_here} agents × {AGENT_MEMORY_BYTES // MIB} MiB"
        )
        spare = host.available_bytes - ADVISOR_MEMORY_BYTES - nodes_here * AGENT_MEMORY_BYTES
        bench_room = spare // ranks - RANK_MEMORY_BYTES
        if bench is not None and on_host and bench_room > 0 and peak_bytes > bench_room:
            # The peak grows in proportion to max_bytes: scale it down to the room left.
            fitting = int(bench.max_bytes * bench_room / peak_bytes)
            fix = f"set stages.bench.max_bytes={fitting} or less"
        else:
            per_node = per_rank * cluster.devices_per_node + AGENT_MEMORY_BYTES
            nodes_fit = max(0, (host.available_bytes - ADVISOR_MEMORY_BYTES) // per_node)
            fix = f"about {nodes_fit} such nodes fit: declare fewer nodes or devices_per_node"
        out.append(
            f"this host has {host.available_bytes / GIB:.1f} GiB of memory available but "
            f"{cluster.shape} on it needs about {need / GIB:,.1f} GiB: {what}; {fix}"
        )
    threads = (ranks + nodes_here) * THREADS_PER_PROCESS
    if host.threads_limit >= 0 and threads > host.threads_limit:
        out.append(
            f"{ranks} ranks and {nodes_here} agents start about {threads:,} threads but this "
            f"host allows {host.threads_limit:,} more (ulimit -u, /proc/sys/kernel/threads-max): "
            "declare fewer nodes or devices_per_node"
        )
    fds = FDS_BASE + FDS_PER_PEER * (world - 1)
    if cluster.backend == "gloo" and host.open_files_limit >= 0 and fds > host.open_files_limit:
        out.append(
            f"each gloo rank of a {world}-rank world holds about {fds:,} open files (a socket to "
            f"every other rank per group) but ulimit -n is {host.open_files_limit:,}: raise it "
            "(ulimit -n) or declare a smaller cluster"
        )
    return out


def check(
    cluster: Cluster, launcher_kind: str, local_nodes: list[int], bench: BenchConfig | None
) -> None:
    """ConfigError before anything starts when this host cannot run the plan."""
    nodes_here = hosted_nodes(launcher_kind, local_nodes)
    found = problems(cluster, nodes_here, bench, Host.measure())
    if found:
        where = "emulated on this host" if cluster.emulated else "on this host"
        raise ConfigError(
            f"cluster {cluster.name!r} ({cluster.shape}, {cluster.world_size} ranks) cannot run "
            f"{where}: " + "; ".join(found) + "."
        )
