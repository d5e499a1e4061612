"""The command line that starts one node's agent: torchrun's arguments, wrapped for the node.

Every command is an argument list, never a shell string; ssh joins its arguments into a remote
shell line, so each word is quoted here first.
"""

from __future__ import annotations

import shlex
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from advisor.backends import VISIBLE_DEVICES_VAR
from advisor.errors import ConfigError
from advisor.launch.plan import LauncherConfig, LaunchPlan


@dataclass(kw_only=True)
class NodeCommand:
    """The argv that starts one node's agent, and where its output goes."""

    node: int
    argv: list[str]
    env: dict[str, str]
    log_path: Path


def torchrun_args(
    *,
    nodes: int,
    per_node: int,
    node_rank: int | str | None,
    master_addr: str,
    master_port: int | str,
    rdzv_backend: str = "static",
    rdzv_id: str = "",
    join_timeout_s: float | None = None,
) -> list[str]:
    """torchrun's options for one node (static: ``--node-rank``; c10d: a rendezvous id).

    Shared by the advisor's own agents, the launch.sh it writes for the training job and the
    report's launch line. ``master_port`` (and ``master_addr``) may be a ``shell_line`` marker.
    """
    args = [f"--nnodes={nodes}", f"--nproc-per-node={per_node}"]
    if rdzv_backend == "static":
        if node_rank is not None:
            args.append(f"--node-rank={node_rank}")
        args += [f"--master-addr={master_addr}", f"--master-port={master_port}"]
    else:
        args += [
            "--rdzv-backend=c10d",
            f"--rdzv-endpoint={master_addr}:{master_port}",
            f"--rdzv-id={rdzv_id}",
        ]
    if join_timeout_s:
        args.append(f"--rdzv-conf=join_timeout={int(join_timeout_s)}")
    return args


def shell_line(argv: list[str], variables: tuple[str, ...] = ()) -> str:
    """``argv`` as one shell line, every word quoted, where the marker ``@NAME@`` of each of
    ``variables`` becomes ``"$NAME"``, expanded by the shell that runs the line (launch.sh takes
    the master's address from the caller's environment)."""
    words = []
    for word in argv:
        quoted = shlex.quote(word)
        if any(f"@{name}@" in word for name in variables):
            # a quoted word would keep "$NAME" literal: a marker goes only in a word that needs
            # no quotes (the rest of it is an option name or a number)
            if quoted != word:
                raise ValueError(f"shell_line: {word!r} holds a variable and needs quoting")
            for name in variables:
                quoted = quoted.replace(f"@{name}@", f'"${name}"')
        words.append(quoted)
    return " ".join(words)


def agent_argv(
    launcher: LauncherConfig,
    plan: LaunchPlan,
    node: int,
    port: int,
    spec_path: Path,
    rdzv_id: str,
    entry: list[str] | None = None,
    rank_log_dir: Path | None = None,
) -> list[str]:
    """torchrun's command line for one node's agent.

    ``entry`` replaces the advisor's worker with an arbitrary program (a user's training script,
    run by a sweep trial); its ranks' stdout and stderr go to files under ``rank_log_dir``
    (torchrun's ``<dir>/<run id>_*/attempt_0/<local rank>/std{out,err}.log``) to be parsed.
    """
    cluster = plan.cluster
    # the advisor's own ranks may be forked from a server that imported torch (advisor.launch.
    # agent: torchrun's main with that preload); a user's program always starts as torchrun does
    forked = not entry and rank_start(launcher, plan) == "forkserver"
    argv = [
        launcher.python or sys.executable,
        "-m",
        "advisor.launch.agent" if forked else "torch.distributed.run",
        *torchrun_args(
            nodes=cluster.nodes,
            per_node=cluster.devices_per_node,
            node_rank=node,
            master_addr=plan.master_addr,
            master_port=port,
            rdzv_backend=launcher.rdzv_backend,
            rdzv_id=rdzv_id,
            join_timeout_s=launcher.join_timeout_s if launcher.rdzv_backend == "c10d" else None,
        ),
        "--max-restarts=0",
        f"--monitor-interval={launcher.monitor_interval_s}",
    ]
    if entry:
        argv += ["--no-python", "--redirects=3"]
        if rank_log_dir is not None:
            argv.append(f"--log-dir={rank_log_dir}")
        return [*argv, *entry]
    if forked:
        return [*argv, "--spec", str(spec_path)]  # the agent names the worker script itself
    return [*argv, "-m", "advisor.worker", "--spec", str(spec_path)]


FORK_MIN_RANKS_PER_NODE = 4
"""``rank_start=auto`` forks a CPU job's ranks from its node's fork server from this many ranks per
node: the saved imports grow with the ranks (an emulated 2x8: 42 -> 25 s), while a job stopped at
its deadline took about 1.5 s longer to end than with one interpreter per rank (2x2 hang drills,
tests/perf/RESULTS.md), which small jobs do not win back."""


def rank_start(launcher: LauncherConfig, plan: LaunchPlan) -> str:
    """forkserver or process: ``launcher.rank_start``, with auto resolved by the job's device
    and its ranks per node."""
    if launcher.rank_start != "auto":
        return launcher.rank_start
    cluster = plan.cluster
    forks = cluster.device_type == "cpu" and cluster.devices_per_node >= FORK_MIN_RANKS_PER_NODE
    return "forkserver" if forks else "process"


def wrap_for_node(
    launcher: LauncherConfig, plan: LaunchPlan, node: int, argv: list[str], env: dict[str, str]
) -> list[str]:
    """Run ``argv`` on node ``node``: directly, in its lab namespace, over ssh, or under srun."""
    cluster = plan.cluster
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


def slurm_argv(launcher: LauncherConfig, nodes: int, argv: list[str]) -> list[str]:
    """One ``srun`` that starts one agent per node (c10d rendezvous assigns node ranks)."""
    srun = ["srun", f"--nodes={nodes}", "--ntasks-per-node=1", "--kill-on-bad-exit=1"]
    if launcher.slurm.partition:
        srun.append(f"--partition={launcher.slurm.partition}")
    if launcher.slurm.account:
        srun.append(f"--account={launcher.slurm.account}")
    return [*srun, *launcher.slurm.extra_args, *argv]


_FORWARD_PREFIXES = ("HCCL_", "NCCL_", "GLOO_", "TORCH_", "ADVISOR_", "ASCEND_", "OMP_", "PYTHON")


def _forwarded(key: str) -> bool:
    # CUDA_VISIBLE_DEVICES too: it decides which GPUs a node's ranks see (ASCEND_RT_VISIBLE_DEVICES
    # travels with the ASCEND_ prefix).
    return (
        key.startswith(_FORWARD_PREFIXES)
        or key in ("PATH", "LD_LIBRARY_PATH")
        or key in VISIBLE_DEVICES_VAR.values()
    )


def node_commands(
    plan: LaunchPlan,
    port: int,
    spec_path: Path,
    rdzv_id: str,
    log_dir: Path,
    extra_env: dict[str, str],
    entry: list[str] | None = None,
) -> list[NodeCommand]:
    """One command per agent this process starts for a job meeting at ``port``."""
    launcher = plan.launcher
    if launcher.kind == "slurm":
        # srun cannot give each node its rank: a c10d rendezvous assigns them
        c10d = replace(launcher, rdzv_backend="c10d")
        argv = agent_argv(
            c10d, plan, 0, port, spec_path, rdzv_id, entry, log_dir / "ranks" if entry else None
        )
        return [
            NodeCommand(
                node=0,
                argv=slurm_argv(launcher, plan.cluster.nodes, argv),
                env=plan.node_env(0, extra_env),
                log_path=log_dir / "srun.log",
            )
        ]
    out = []
    for node in plan.local_nodes:
        rank_logs = log_dir / f"node{node}-ranks" if entry else None
        argv = agent_argv(launcher, plan, node, port, spec_path, rdzv_id, entry, rank_logs)
        env = plan.node_env(node, extra_env)
        out.append(
            NodeCommand(
                node=node,
                argv=wrap_for_node(launcher, plan, node, argv, env),
                env=env,
                log_path=log_dir / f"node{node}.log",
            )
        )
    return out
