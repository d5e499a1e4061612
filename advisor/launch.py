"""Launch a job stage through torchrun's elastic agent, enforce its deadline, diagnose its ranks.

Every job stage is one distributed job: one ``torch.distributed.run`` agent per node (on this host
for a single node or an emulated cluster; through ``ip netns exec``, ssh or srun otherwise), each
starting the node's ranks as ``python -m advisor.worker``. The launcher never spawns ranks itself.
At the deadline every agent and worker process is stopped; then each rank's outcome is read from
its own records (last step started or finished) and from the agent's failure summary.
"""

from __future__ import annotations

import os
import re
import shlex
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psutil

from advisor.cluster import Cluster
from advisor.errors import ConfigError
from advisor.facts import RankOutcome, StageFacts
from advisor.results import Record, nodes_that_left, read_records

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


@dataclass(kw_only=True)
class LauncherConfig:
    """How job stages are started (``launcher`` group)."""

    kind: str = "local"
    """local: every node's agent on this host (single node, emulation, or lab namespaces);
    torchrun: this process is node ``node_rank`` of a multi-node run, rendezvous at
    ``rdzv_endpoint``; env: like torchrun with node rank, node count and master taken from the
    environment (advisor itself started by torchrun or a Kubernetes PyTorchJob); slurm: one
    ``srun`` per stage with one agent per node; ssh: one agent per host over ssh."""
    rdzv_backend: str = "static"
    """static: node ranks fixed by ``--node-rank`` (node i is hosts[i]); c10d: assigned at join."""
    rdzv_endpoint: str = ""
    """host:port of the rendezvous for torchrun/env/slurm/ssh; empty: master_addr and a port."""
    node_rank: int = 0
    """For torchrun: which node this advisor process is."""
    join_timeout_s: float = 600.0
    """torchrun's rendezvous join timeout (``--rdzv-conf join_timeout``)."""
    monitor_interval_s: float = 0.5
    """How often the agent checks its workers."""
    python: str = ""
    """Python on the nodes; empty: this interpreter."""
    netns: list[str] = field(default_factory=list)
    """local only: network namespace of each node (the emulated lab), node 0 first."""
    ssh: SshConfig = field(default_factory=SshConfig)
    slurm: SlurmConfig = field(default_factory=SlurmConfig)
    kill_grace_s: float = 5.0
    """After the deadline, seconds between SIGTERM and SIGKILL."""

    def __post_init__(self) -> None:
        if self.kind not in LAUNCHER_KINDS:
            raise ConfigError(
                f"launcher.kind={self.kind!r} is not one of {', '.join(LAUNCHER_KINDS)}."
            )
        if self.rdzv_backend not in ("static", "c10d"):
            raise ConfigError(
                f"launcher.rdzv_backend={self.rdzv_backend!r} must be static or c10d."
            )


@dataclass(kw_only=True)
class NodeCommand:
    """The argv that starts one node's agent, and where its output goes."""

    node: int
    argv: list[str]
    env: dict[str, str]
    log_path: Path


@dataclass(kw_only=True)
class AgentResult:
    node: int
    returncode: int | None
    """None when it was still running at the deadline."""
    log_path: Path


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host if host not in ("localhost",) else "127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass(kw_only=True)
class Topology:
    """Which nodes this advisor process starts agents for, and where they meet."""

    local_nodes: list[int]
    master_addr: str
    master_port: int


def plan_topology(
    launcher: LauncherConfig, cluster: Cluster, port_offset: int, env: dict[str, str]
) -> Topology:
    """Decide which agents this process starts and the rendezvous address for one stage.

    Multi-process launchers (torchrun/env) run one advisor per node: they must agree on the port
    without talking, so it is derived from a base port and the job's offset (stage index * 100 +
    job index within a driver stage).
    """
    host, _, port_s = launcher.rdzv_endpoint.rpartition(":")
    endpoint_port = int(port_s) if port_s.isdigit() else 0
    base_port = endpoint_port or cluster.master_port
    master = host or cluster.master_addr
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
        port = base_port + port_offset if base_port else free_port()
        return Topology(
            local_nodes=list(range(cluster.nodes)), master_addr=master, master_port=port
        )
    if launcher.kind in ("torchrun", "env"):
        node_rank = launcher.node_rank
        if launcher.kind == "env":
            missing = [
                k for k in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT") if k not in env
            ]
            if missing:
                raise ConfigError(
                    f"launcher=env needs {', '.join(missing)} in the environment (set by torchrun "
                    "or a PyTorchJob); use launcher=local or launcher=torchrun otherwise."
                )
            node_rank = int(env["RANK"])
            if int(env["WORLD_SIZE"]) != cluster.nodes:
                raise ConfigError(
                    f"launcher=env: WORLD_SIZE={env['WORLD_SIZE']} advisor processes but cluster "
                    f"{cluster.name!r} has {cluster.nodes} nodes; start one advisor per node."
                )
            master = env["MASTER_ADDR"]
            # The outer job's store holds MASTER_PORT itself: stage jobs take the ports above it.
            base_port = int(env["MASTER_PORT"]) + 1
        if not base_port:
            raise ConfigError(
                f"launcher={launcher.kind} needs a fixed port every node agrees on: set "
                "launcher.rdzv_endpoint=HOST:PORT or cluster.master_port."
            )
        if not 0 <= node_rank < cluster.nodes:
            raise ConfigError(f"launcher.node_rank={node_rank} is outside 0..{cluster.nodes - 1}.")
        return Topology(
            local_nodes=[node_rank], master_addr=master, master_port=base_port + port_offset
        )
    port = base_port + port_offset if base_port else free_port()
    return Topology(local_nodes=list(range(cluster.nodes)), master_addr=master, master_port=port)


def agent_argv(
    launcher: LauncherConfig,
    cluster: Cluster,
    topo: Topology,
    node: int,
    spec_path: Path,
    rdzv_id: str,
    entry: list[str] | None = None,
    rank_log_dir: Path | None = None,
) -> list[str]:
    """torchrun's command line for one node's agent (an argument list, never a shell string).

    ``entry`` replaces the advisor's worker with an arbitrary program (a user's training script,
    run by a sweep trial); its ranks' stdout and stderr go to files under ``rank_log_dir``
    (torchrun's ``<dir>/<run id>_*/attempt_0/<local rank>/std{out,err}.log``) to be parsed.
    """
    python = launcher.python or sys.executable
    argv = [
        python,
        "-m",
        "torch.distributed.run",
        f"--nnodes={cluster.nodes}",
        f"--nproc-per-node={cluster.devices_per_node}",
        "--max-restarts=0",
        f"--monitor-interval={launcher.monitor_interval_s}",
    ]
    if launcher.rdzv_backend == "static":
        argv += [
            f"--node-rank={node}",
            f"--master-addr={topo.master_addr}",
            f"--master-port={topo.master_port}",
        ]
    else:
        argv += [
            "--rdzv-backend=c10d",
            f"--rdzv-endpoint={topo.master_addr}:{topo.master_port}",
            f"--rdzv-id={rdzv_id}",
            f"--rdzv-conf=join_timeout={int(launcher.join_timeout_s)}",
        ]
    if entry:
        argv += ["--no-python", "--redirects=3"]
        if rank_log_dir is not None:
            argv.append(f"--log-dir={rank_log_dir}")
        return [*argv, *entry]
    argv += ["-m", "advisor.worker", "--spec", str(spec_path)]
    return argv


def agent_env(cluster: Cluster, node: int, extra: dict[str, str]) -> dict[str, str]:
    from advisor.backends import interface_env

    env = dict(os.environ)
    env.update(extra)
    env["ADVISOR_NODE_NAME"] = cluster.node_name(node)
    env["PYTHONUNBUFFERED"] = "1"
    # One intra-op thread per rank: ranks share the host's cores, and oversubscription would
    # measure the CPU scheduler instead of the network.
    env.setdefault("OMP_NUM_THREADS", "1")
    for var, value in interface_env(cluster.device_type, cluster.interface).items():
        if var not in extra:  # a variable the run's env sets explicitly stays as given
            env[var] = value
    return env


def wrap_for_node(
    launcher: LauncherConfig, cluster: Cluster, node: int, argv: list[str], env: dict[str, str]
) -> list[str]:
    """Run ``argv`` on node ``node``: directly, in its lab namespace, over ssh, or under srun."""
    if launcher.kind == "local" and launcher.netns:
        return ["ip", "netns", "exec", launcher.netns[node], *argv]
    if launcher.kind == "ssh":
        host = cluster.hosts[node] if cluster.hosts else ""
        if not host:
            raise ConfigError("launcher=ssh needs cluster.hosts (one host per node).")
        target = f"{launcher.ssh.user}@{host}" if launcher.ssh.user else host
        ssh = ["ssh", "-p", str(launcher.ssh.port)]
        for opt in launcher.ssh.options:
            ssh += ["-o", opt]
        if launcher.ssh.identity_file:
            ssh += ["-i", launcher.ssh.identity_file]
        forwarded = {k: v for k, v in env.items() if _forwarded(k)}
        # ssh joins its arguments into one remote shell line: quote every word ourselves.
        remote = shlex.join(["env", *(f"{k}={v}" for k, v in sorted(forwarded.items())), *argv])
        return [*ssh, target, remote]
    return argv


def slurm_argv(launcher: LauncherConfig, cluster: Cluster, argv: list[str]) -> list[str]:
    """One ``srun`` that starts one agent per node (c10d rendezvous assigns node ranks)."""
    srun = ["srun", f"--nodes={cluster.nodes}", "--ntasks-per-node=1", "--kill-on-bad-exit=1"]
    if launcher.slurm.partition:
        srun.append(f"--partition={launcher.slurm.partition}")
    if launcher.slurm.account:
        srun.append(f"--account={launcher.slurm.account}")
    return [*srun, *launcher.slurm.extra_args, *argv]


_FORWARD_PREFIXES = ("HCCL_", "NCCL_", "GLOO_", "TORCH_", "ADVISOR_", "ASCEND_", "OMP_", "PYTHON")


def _forwarded(key: str) -> bool:
    from advisor.backends import VISIBLE_DEVICES_VAR

    # CUDA_VISIBLE_DEVICES too: it decides which GPUs a node's ranks see (ASCEND_RT_VISIBLE_DEVICES
    # travels with the ASCEND_ prefix).
    return (
        key.startswith(_FORWARD_PREFIXES)
        or key in ("PATH", "LD_LIBRARY_PATH")
        or key in VISIBLE_DEVICES_VAR.values()
    )


def node_commands(
    launcher: LauncherConfig,
    cluster: Cluster,
    topo: Topology,
    spec_path: Path,
    rdzv_id: str,
    log_dir: Path,
    extra_env: dict[str, str],
    entry: list[str] | None = None,
) -> list[NodeCommand]:
    if launcher.kind == "slurm":
        cfg = LauncherConfig(
            **{**launcher.__dict__, "rdzv_backend": "c10d"}  # srun cannot give per-node ranks
        )
        argv = agent_argv(
            cfg, cluster, topo, 0, spec_path, rdzv_id, entry, log_dir / "ranks" if entry else None
        )
        env = agent_env(cluster, 0, extra_env)
        return [
            NodeCommand(
                node=0,
                argv=slurm_argv(launcher, cluster, argv),
                env=env,
                log_path=log_dir / "srun.log",
            )
        ]
    out = []
    for node in topo.local_nodes:
        rank_logs = log_dir / f"node{node}-ranks" if entry else None
        argv = agent_argv(launcher, cluster, topo, node, spec_path, rdzv_id, entry, rank_logs)
        env = agent_env(cluster, node, extra_env)
        out.append(
            NodeCommand(
                node=node,
                argv=wrap_for_node(launcher, cluster, node, argv, env),
                env=env,
                log_path=log_dir / f"node{node}.log",
            )
        )
    return out


def run_agents(
    commands: Sequence[NodeCommand],
    deadline_s: float,
    kill_grace_s: float,
    finished: Callable[[], bool] | None = None,
    abandoned: Callable[[], str] | None = None,
) -> tuple[list[AgentResult], bool]:
    """Start every agent, wait until all exit or the deadline passes; returns (results, timed_out).

    ``abandoned`` (checked each second) says why the job cannot complete any more (another
    node's advisor left the run): the agents are stopped at once, not at the deadline.

    At the deadline the agents and every process below them are stopped: SIGTERM, then SIGKILL
    after the grace period. Workers run in sessions of their own, so the whole tree is collected
    with psutil rather than by process group.
    """
    procs: list[tuple[NodeCommand, subprocess.Popen[bytes]]] = []
    for cmd in commands:
        cmd.log_path.parent.mkdir(parents=True, exist_ok=True)
        with open(cmd.log_path, "wb") as log:
            procs.append(
                (
                    cmd,
                    subprocess.Popen(
                        cmd.argv,
                        env=cmd.env,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        stdin=subprocess.DEVNULL,
                        start_new_session=True,
                    ),
                )
            )
    end = time.monotonic() + deadline_s
    timed_out = False
    done_seen = False
    next_check = 0.0
    tree: dict[int, psutil.Process] = {}
    while True:
        _collect_tree([p for _, p in procs], tree)
        if all(p.poll() is not None for _, p in procs):
            break
        # A failed agent leaves the others waiting at a rendezvous or in a collective: once one
        # agent has failed, give the rest a short grace to report, then stop them.
        failed = [p for _, p in procs if p.poll() not in (None, 0)]
        if failed:
            end = min(end, time.monotonic() + 3 * kill_grace_s)
        # Every rank has reported done: the work is over, only the agents' teardown is left,
        # which a loaded host can stretch past the deadline. Give it a grace, not the deadline.
        if time.monotonic() >= next_check:
            next_check = time.monotonic() + 1.0
            if not done_seen and finished is not None and finished():
                done_seen = True
                end = min(end, time.monotonic() + 2 * kill_grace_s)
            if not done_seen and abandoned is not None and abandoned():
                break
        if time.monotonic() >= end:
            timed_out = not failed and not done_seen
            break
        time.sleep(0.2)
    results = []
    running = [p for _, p in procs if p.poll() is None]
    if running:
        _stop(list(tree.values()), [p for _, p in procs], kill_grace_s)
    for cmd, p in procs:
        rc = p.poll()
        results.append(
            AgentResult(
                node=cmd.node, returncode=None if p in running else rc, log_path=cmd.log_path
            )
        )
    # Workers orphaned by an agent that exited on its own are stopped too.
    leftovers = [t for t in tree.values() if _alive(t)]
    if leftovers:
        _stop(leftovers, [], kill_grace_s)
    return results, timed_out


def _alive(p: psutil.Process) -> bool:
    try:
        return p.is_running() and p.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _collect_tree(roots: list[subprocess.Popen[bytes]], tree: dict[int, psutil.Process]) -> None:
    for root in roots:
        try:
            proc = psutil.Process(root.pid)
            for child in proc.children(recursive=True):
                tree.setdefault(child.pid, child)
        except psutil.Error:
            continue


def _stop(tree: list[psutil.Process], roots: list[subprocess.Popen[bytes]], grace_s: float) -> None:
    for root in roots:
        if root.poll() is None:
            try:
                os.killpg(root.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
    for p in tree:
        try:
            p.terminate()
        except psutil.Error:
            pass
    _, alive = psutil.wait_procs([p for p in tree if _alive(p)], timeout=grace_s)
    for root in roots:
        try:
            root.wait(timeout=max(0.1, grace_s))
        except subprocess.TimeoutExpired:
            try:
                os.killpg(root.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            root.wait()
    for p in alive:
        try:
            p.kill()
        except psutil.Error:
            pass


_ROOT_CAUSE = re.compile(
    r"rank\s*:\s*(?P<rank>\d+)\s*\(local_rank:\s*(?P<local>\d+)\)\s*\n\s*exitcode\s*:\s*"
    r"(?P<code>-?\d+)",
)


def parse_agent_failures(text: str) -> dict[int, int]:
    """Ranks that failed on their own, with exit codes, from torchrun's ``ChildFailedError``.

    The summary lists the root cause and the other failures; ranks the agent itself ended with
    SIGTERM after the root cause are not failures of their own and are left out.
    """
    failures: dict[int, int] = {}
    root_at = text.find("Root Cause")
    for m in _ROOT_CAUSE.finditer(text):
        rank, code = int(m.group("rank")), int(m.group("code"))
        is_root = root_at != -1 and m.start() > root_at
        if code == -signal.SIGTERM and not is_root:
            continue
        failures.setdefault(rank, code)
    return failures


def diagnose(
    stage: str,
    cluster: Cluster,
    records: list[Record],
    agents: list[AgentResult],
    timed_out: bool,
    local_nodes: list[int] | None = None,
) -> tuple[list[RankOutcome], str]:
    """Each rank's outcome from its records and the agents' failure summaries; plus a reason."""
    by_rank: dict[int, list[Record]] = {}
    for r in records:
        by_rank.setdefault(r.rank, []).append(r)
    agent_failures: dict[int, int] = {}
    for a in agents:
        if a.log_path.exists():
            agent_failures.update(
                parse_agent_failures(a.log_path.read_text(encoding="utf-8", errors="replace"))
            )
    first_failure = min(agent_failures, default=None) if agent_failures else None
    # Progress = steps started. At a hang, ranks behind the furthest one are the culprits; the
    # ones at the front are only waiting for them.
    unfinished = {
        p.rank: _started_count(by_rank.get(p.rank, []))
        for p in cluster.placements()
        if not any(r.step == "done" for r in by_rank.get(p.rank, []))
    }
    furthest = max(unfinished.values(), default=0)
    laggards = sorted(r for r, n in unfinished.items() if n < furthest)
    furthest_step = next(
        (
            _last_started(by_rank[r])
            for r, n in unfinished.items()
            if n == furthest and by_rank.get(r)
        ),
        "",
    )
    outcomes: list[RankOutcome] = []
    # Errors of ranks that failed waiting for a laggard: they often say who was missing.
    consequences: list[tuple[int, str]] = []
    for p in cluster.placements():
        recs = by_rank.get(p.rank, [])
        host = recs[-1].host if recs else (cluster.hosts[p.node] if cluster.hosts else "")
        node_name = recs[-1].node_name if recs else p.node_name
        last = recs[-1] if recs else None
        last_step = last.step if last else ""
        error = next((r for r in reversed(recs) if r.status == "error"), None)
        out = RankOutcome(
            rank=p.rank,
            node=recs[-1].node if recs else p.node,
            node_name=node_name,
            host=host,
            local_rank=p.local_rank,
            state="ok",
            last_step=last_step,
        )
        if any(r.step == "done" for r in recs):
            pass
        elif error is not None and laggards and p.rank not in laggards:
            # Its collective failed while waiting for ranks that never arrived: a consequence.
            out.state = "stopped"
            own_error = _first_line(str(error.metrics.get("error", "reported an error")), 160)
            out.reason = (
                f"waiting in step {_last_started(recs)!r} for rank(s) "
                f"{', '.join(str(r) for r in laggards[:8])}, then: {own_error}"
            )
            out.last_step = _last_started(recs)
            consequences.append((p.rank, own_error))
        elif error is not None:
            out.state = "error"
            out.reason = _first_line(str(error.metrics.get("error", "reported an error")))
            out.last_step = error.step if error.step != "error" else _last_started(recs)
        elif not recs:
            out.state = "not_started"
            out.reason = "never started (its node or process did not come up)"
        elif p.rank in agent_failures and (timed_out is False):
            out.state = "died"
            out.exit_code = agent_failures[p.rank]
            when = "during" if last is not None and last.status == "started" else "after"
            out.reason = f"process exited with code {out.exit_code} {when} step {last_step!r}"
        elif timed_out:
            started = _started_count(recs)
            if started < furthest:
                out.state = "hung"
                out.reason = (
                    f"never arrived at step {furthest_step!r} that other ranks reached "
                    f"(last step {last_step!r} {last.status if last else ''})"
                )
            elif laggards:
                out.state = "stopped"
                out.reason = (
                    f"waiting in step {_last_started(recs)!r} for rank(s) "
                    f"{', '.join(str(r) for r in laggards[:8])}"
                )
            else:
                out.state = "hung"
                out.reason = f"still in step {_last_started(recs)!r} at the deadline"
            out.last_step = _last_started(recs) or last_step
        elif p.rank in laggards:
            # Peers gave up waiting for it (their collectives timed out) before the deadline.
            out.state = "hung"
            out.reason = (
                f"never arrived at step {furthest_step!r} that other ranks reached "
                f"(last step {last_step!r} {last.status if last else ''})"
            )
        else:
            out.state = "stopped"
            out.reason = f"stopped by the agent during step {last_step!r} after another rank failed"
        outcomes.append(out)
    bad = [o for o in outcomes if o.state != "ok"]
    if not bad:
        return outcomes, ""
    # Root causes first: a rank that died or hung makes its peers raise errors of their own.
    order = {"died": 0, "hung": 1, "not_started": 2, "error": 3}
    culprits = (
        sorted((o for o in bad if o.state in order), key=lambda o: (order[o.state], o.rank)) or bad
    )
    parts = [f"rank {o.rank} on {_where(o)} {o.state}: {o.reason}" for o in culprits[:8]]
    if len(culprits) > 8:
        parts.append(f"... and {len(culprits) - 8} more")
    if consequences:
        rank, text = consequences[0]
        parts.append(f"rank {rank} reports: {text}")
    if first_failure is not None and not any(o.state == "died" for o in culprits):
        parts.append(f"torchrun reported rank {first_failure} failing first")
    prefix = f"{stage} timed out" if timed_out else f"{stage} failed"
    return outcomes, f"{prefix}: " + "; ".join(parts)


def _started_count(recs: list[Record]) -> int:
    return sum(1 for r in recs if r.status == "started")


def _last_started(recs: list[Record]) -> str:
    for r in reversed(recs):
        if r.status == "started":
            return r.step
    return recs[-1].step if recs else ""


def peers_since_s(launcher: LauncherConfig) -> float:
    """Notes from other nodes count when written after this advisor could have been waited for:
    its own start less the rendezvous join timeout (peers start within it of each other)."""
    return psutil.Process().create_time() - launcher.join_timeout_s


def run_job_stage(
    *,
    stage: str,
    port_offset: int,
    job: str = "",
    run_dir: Path,
    cluster: Cluster,
    launcher: LauncherConfig,
    params: dict[str, Any],
    deadline_s: float,
    pg_timeout_s: float,
    faults: list[dict[str, Any]],
    extra_env: dict[str, str],
    entry: list[str] | None = None,
    strict: bool = True,
) -> StageFacts:
    """Run one job of a stage to completion or deadline; returns its outcome (data filled later).

    ``job`` names one of several jobs of a driver stage: its spec, logs and records are kept
    apart from the stage's other jobs. ``entry`` runs that argv on every rank instead of the
    advisor's worker (a user's own training command): it writes no records, so its outcome is
    read from the agents alone, and its ranks' output is kept under the job's log directory.
    """
    from advisor.worker import JobSpec

    started = time.time()
    topo = plan_topology(launcher, cluster, port_offset, dict(os.environ))
    tag = f"{stage}-{job}" if job else stage
    spec_path = run_dir / "jobs" / f"{tag}.json"
    spec = JobSpec(
        stage=stage,
        run_dir=str(run_dir),
        params=params,
        cluster=cluster.to_dict(),
        # A collective must fail before the stage's deadline so the rank can report it.
        pg_timeout_s=max(5.0, min(pg_timeout_s, deadline_s - 5.0)),
        launched_at=started,
        faults=faults,
        job=job,
        strict=strict,
    )
    spec.write(spec_path)
    commands = node_commands(
        launcher,
        cluster,
        topo,
        spec_path,
        rdzv_id=f"{run_dir.name}-{tag}",
        log_dir=run_dir / "logs" / stage / job if job else run_dir / "logs" / stage,
        extra_env=extra_env,
        entry=entry,
    )
    world = cluster.world_size

    def finished() -> bool:
        done = {r.rank for r in read_records(run_dir, stage) if r.job == job and r.step == "done"}
        return len(done) >= world

    left = ""
    since_s = peers_since_s(launcher)

    def abandoned() -> str:
        nonlocal left
        if len(topo.local_nodes) < cluster.nodes:  # one advisor per node: a peer may leave
            left = nodes_that_left(run_dir, topo.local_nodes, since_s)
        return left

    try:
        agents, timed_out = run_agents(
            commands, deadline_s, launcher.kill_grace_s, finished, abandoned
        )
    except FileNotFoundError as e:
        return StageFacts(
            name=stage,
            status="error",
            started_at=started,
            duration_s=time.time() - started,
            deadline_s=deadline_s,
            reason=f"could not start the agent: {e} (is it installed on every node?)",
        )
    if entry and not left:
        return _external_outcome(tag, started, deadline_s, agents, timed_out)
    outcomes: list[RankOutcome] = []
    reason = ""
    if not entry:
        records = [r for r in read_records(run_dir, stage) if r.job == job]
        outcomes, reason = diagnose(tag, cluster, records, agents, timed_out, topo.local_nodes)
    all_done = bool(outcomes) and all(o.state == "ok" for o in outcomes)
    if left:
        # The peer's own reason, not "its ranks never started": the cause is on that node.
        status, reason = "failed", f"{tag} stopped: {left}"
    elif timed_out and all_done:
        # Every rank finished its work and said so; only the agents' shutdown ran late.
        status = "ok"
    elif timed_out:
        status = "timeout"
        reason = reason or f"{tag} reached its deadline ({deadline_s:.0f} s)"
    elif reason or any(a.returncode not in (0, None) for a in agents):
        status = "failed"
        if not reason:
            codes = {a.node: a.returncode for a in agents}
            reason = f"{tag} failed: agent exit codes {codes} (see logs/{stage}/)"
    else:
        status = "ok"
    return StageFacts(
        name=tag,
        status=status,
        started_at=started,
        duration_s=time.time() - started,
        deadline_s=deadline_s,
        reason=reason,
        ranks=outcomes,
    )


def _where(o: RankOutcome) -> str:
    if not o.host or o.host == o.node_name:
        return o.node_name or o.host or "?"
    return f"{o.node_name} (host {o.host})"


def _first_line(text: str, limit: int = 240) -> str:
    line = text.strip().splitlines()[0] if text.strip() else text
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _external_outcome(
    tag: str, started: float, deadline_s: float, agents: list[AgentResult], timed_out: bool
) -> StageFacts:
    """Outcome of a job running a foreign program: only the agents' exit codes tell."""
    failures: dict[int, int] = {}
    for a in agents:
        if a.log_path.exists():
            failures.update(
                parse_agent_failures(a.log_path.read_text(encoding="utf-8", errors="replace"))
            )
    if timed_out:
        status, reason = "timeout", f"{tag} was still running at its deadline ({deadline_s:.0f} s)"
    elif failures or any(a.returncode not in (0, None) for a in agents):
        status = "failed"
        ranks = ", ".join(f"rank {r} exit code {c}" for r, c in sorted(failures.items()))
        codes = {a.node: a.returncode for a in agents}
        reason = f"{tag} failed: {ranks or f'agent exit codes {codes}'}"
    else:
        status, reason = "ok", ""
    return StageFacts(
        name=tag,
        status=status,
        started_at=started,
        duration_s=time.time() - started,
        deadline_s=deadline_s,
        reason=reason,
    )
