"""The preflight stage: per node, before any process group exists, can a job start at all?

Checks, each recorded as a step of the node:
- dns: every host of the cluster and the master address resolve (within ``dns_timeout_s``).
- master: the rendezvous master, as ``master_check`` says:
  ``listen``: a TCP connection to master:port must succeed (something must already listen: the
  outer job's store under ``launcher=env``, or a rendezvous started beforehand);
  ``reach``: the master host must answer: a connection accepted or refused both prove the path (a
  refusal is expected before the job starts), a timeout, an unreachable network or a name that
  does not resolve fail;
  ``auto``: ``listen`` under ``launcher=env``; ``reach`` when the master is another host; when
  this host is the master, nothing listens before the job, so the ports the jobs will bind are
  checked free instead. ``reach`` connects to every port a planned job will meet at (a firewall
  may drop some and not others). Causes are told apart: refused, timed_out, unreachable, dns.
- ports: the rendezvous ports this host will bind (when a fixed base port is configured) and, for
  hccl, ``HCCL_IF_BASE_PORT`` (default 60000) and the ports after it, are free; a busy port is
  named with the process holding it where the system says.
- nics: interfaces (up, speed, MTU, addresses) and the one that routes to the master.
- ifnames: ``HCCL_SOCKET_IFNAME`` (``eth,enp`` prefixes, ``^`` excludes, ``=`` exact),
  ``NCCL_SOCKET_IFNAME``, ``GLOO_SOCKET_IFNAME`` and ``HCCL_IF_IP`` in the jobs' environment name
  interfaces that exist and are up here.
- tools: ``npu-smi``, ``hccn_tool`` and ``nvidia-smi`` where installed, run with a timeout; raw
  output kept, parsed by ``advisor.parsers``.

A problem that would stop every job (a name that does not resolve, a master that cannot be
reached, a port the job needs held by another process, the backend's interface variable naming no
usable interface) is *blocking*: the node fails preflight with the node, address:port and cause
named, within ``connect_timeout_s``, and the run skips the job stages (``fail_fast``) instead of
letting each wait for its rendezvous timeout. Other findings are warnings for the rules.

Where it runs: in the advisor process, once per node this process starts agents for. With
``launcher=torchrun`` or ``env`` (one advisor per node) that is the node itself; with ``local``
it is this host (every emulated node), except under ``launcher.netns`` (the lab), where each
node's checks run inside that node's namespace (``ip netns exec ... python -m
advisor.probes.preflight``), among its own interfaces, routes and firewall; with ``ssh`` and
``slurm`` the checks run on the advisor's host, so they show what this host can resolve and reach,
not each node's own interfaces.
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import errno
import ipaddress
import json
import os
import socket
import subprocess
import sys
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from omegaconf import OmegaConf

from advisor import backends, stages
from advisor.errors import ConfigError
from advisor.launch.plan import LauncherConfig, LaunchPlan
from advisor.probes import nics as nicmod
from advisor.probes.tools import run_tool, tool_commands
from advisor.stages import Stage, StageConfig

if TYPE_CHECKING:
    from advisor.cluster import Cluster
    from advisor.config import AdvisorConfig
    from advisor.context import HostContext
    from advisor.results import Record

MASTER_CHECKS = ("auto", "listen", "reach", "off")
HCCL_PORT_MODES = ("auto", "on", "off")
HCCL_DEFAULT_BASE_PORT = 60000
IFNAME_VARS = ("HCCL_SOCKET_IFNAME", "NCCL_SOCKET_IFNAME", "GLOO_SOCKET_IFNAME")


class PreflightFailed(RuntimeError):
    """A node has a problem that would stop every job; the message names node, target, cause."""


@dataclass(kw_only=True)
class PreflightConfig(StageConfig):
    """The preflight stage's settings."""

    deadline_s: float = 60.0
    connect_timeout_s: float = 3.0
    """Longest wait for the TCP connection to the master."""
    dns_timeout_s: float = 3.0
    """Longest wait for one name to resolve."""
    master_check: str = "auto"
    """auto, listen (master:port must accept), reach (master host must answer), off."""
    hccl_ports: str = "auto"
    """Check HCCL_IF_BASE_PORT and the ports after it: auto (when the backend is hccl), on, off."""
    hccl_port_count: int = 32
    """Ports HCCL takes from its base port: 32 on CANN 8.2.RC1 and later, 16 before (CANN
    environment variable reference, HCCL_IF_BASE_PORT); the larger count covers both."""
    tools: bool = True
    """Run npu-smi, hccn_tool and nvidia-smi where installed."""
    tool_timeout_s: float = 10.0
    """Longest run of one host tool command."""
    fail_fast: bool = True
    """When a node has a blocking problem, skip the job stages instead of letting each wait for
    its rendezvous timeout."""

    def __post_init__(self) -> None:
        if self.master_check not in MASTER_CHECKS:
            raise ConfigError(
                f"stages.preflight.master_check={self.master_check!r} must be one of "
                f"{', '.join(MASTER_CHECKS)}."
            )
        if self.hccl_ports not in HCCL_PORT_MODES:
            raise ConfigError(
                f"stages.preflight.hccl_ports={self.hccl_ports!r} must be one of "
                f"{', '.join(HCCL_PORT_MODES)}."
            )
        if not 1 <= self.hccl_port_count <= 1024:
            raise ConfigError("stages.preflight.hccl_port_count must be between 1 and 1024.")
        if min(self.connect_timeout_s, self.dns_timeout_s, self.tool_timeout_s) <= 0:
            raise ConfigError(
                "stages.preflight connect_timeout_s, dns_timeout_s and tool_timeout_s must be "
                "positive."
            )


# --- network checks -------------------------------------------------------------------------


def resolve_host(host: str, timeout_s: float) -> dict[str, Any]:
    """``getaddrinfo`` with a deadline (a dead resolver would otherwise block for long)."""
    t0 = time.monotonic()
    pool = concurrent.futures.ThreadPoolExecutor(max_workers=1)
    future = pool.submit(socket.getaddrinfo, host, None, 0, socket.SOCK_STREAM)
    try:
        infos = future.result(timeout=timeout_s)
        addrs = sorted({str(i[4][0]) for i in infos})
        return {"ok": True, "addresses": addrs, "error": "", "elapsed_s": time.monotonic() - t0}
    except concurrent.futures.TimeoutError:
        error = f"resolving {host!r} took longer than {timeout_s:g} s (resolver not answering)"
    except OSError as e:
        error = f"{host!r} does not resolve: {e}"
    finally:
        pool.shutdown(wait=False)
    return {"ok": False, "addresses": [], "error": error, "elapsed_s": time.monotonic() - t0}


def tcp_probe(addr: str, port: int, timeout_s: float) -> dict[str, Any]:
    """Connect to addr:port; ``cause`` is connected, refused, timed_out, unreachable or dns."""
    t0 = time.monotonic()
    out: dict[str, Any] = {"addr": addr, "port": port, "connected": False}
    try:
        infos = socket.getaddrinfo(addr, port, 0, socket.SOCK_STREAM)
    except OSError as e:
        return {**out, "cause": "dns", "detail": str(e), "elapsed_s": time.monotonic() - t0}
    cause, detail = "unreachable", "no address"
    for family, kind, proto, _, sockaddr in infos:
        left = timeout_s - (time.monotonic() - t0)
        if left <= 0:
            cause, detail = "timed_out", f"no answer within {timeout_s:g} s"
            break
        with socket.socket(family, kind, proto) as s:
            s.settimeout(left)
            try:
                s.connect(sockaddr)
                return {**out, "connected": True, "cause": "connected", "detail": "",
                        "elapsed_s": time.monotonic() - t0}  # fmt: skip
            except ConnectionRefusedError:
                cause, detail = "refused", "connection refused (host answered, port closed)"
            except TimeoutError:
                cause, detail = "timed_out", f"no answer within {timeout_s:g} s"
            except OSError as e:
                cause = "unreachable" if e.errno in _UNREACHABLE else "error"
                detail = str(e)
    return {**out, "cause": cause, "detail": detail, "elapsed_s": time.monotonic() - t0}


_UNREACHABLE = {errno.ENETUNREACH, errno.EHOSTUNREACH, errno.EHOSTDOWN, errno.ENETDOWN}


def is_local_address(addr: str) -> bool:
    """Does ``addr`` resolve to this host (loopback or one of its interface addresses)?"""
    try:
        infos = socket.getaddrinfo(addr, None)
    except OSError:
        return False
    mine = {a for n in nicmod.list_nics() for a in n.addresses}
    for info in infos:
        ip = str(info[4][0]).split("%", 1)[0]
        with contextlib.suppress(ValueError):
            if ipaddress.ip_address(ip).is_loopback or ip in mine:
                return True
    return False


def port_busy(port: int) -> dict[str, Any] | None:
    """None when ``port`` can be bound here as a server binds it; else who holds it."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        # SO_REUSEADDR as rendezvous stores set it: a port in TIME_WAIT is not busy for them.
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("", port))
            return None
        except OSError as e:
            holder = {"port": port, "error": str(e), "pid": None, "process": ""}
    with contextlib.suppress(Exception):
        import psutil

        for c in psutil.net_connections(kind="tcp"):
            if c.laddr and c.laddr.port == port and c.status == psutil.CONN_LISTEN:
                holder["pid"] = c.pid
                if c.pid:
                    holder["process"] = psutil.Process(c.pid).name()
                break
    return holder


def gloo_bind_address(all_nics: list[Any], timeout_s: float) -> dict[str, Any]:
    """Where gloo binds on this host with GLOO_SOCKET_IFNAME unset: the host name's address.

    torch's ProcessGroupGloo uses the address the host name resolves to, and the loopback
    address when that is not usable (createDefaultDevice). A loopback address (Debian and Ubuntu
    map the host name to 127.0.1.1) cannot be reached from the other nodes, so every gloo group
    of the job (its default group on gloo, the side groups on hccl/nccl) hangs at creation.
    """
    host = socket.gethostname()
    found = resolve_host(host, timeout_s)
    addrs = [a.split("%", 1)[0] for a in found["addresses"]]
    nic = next((n.name for n in all_nics for a in addrs if a in n.addresses), "")
    loopback = bool(addrs) and all(ipaddress.ip_address(a).is_loopback for a in addrs)
    problem = ""
    fix = (
        "set cluster.interface=<NIC> (the launcher then sets GLOO_SOCKET_IFNAME) or "
        "+env.GLOO_SOCKET_IFNAME=<NIC>"
    )
    if not found["ok"]:
        problem = (
            f"GLOO_SOCKET_IFNAME is unset and this host's name {host!r} does not resolve: gloo "
            f"falls back to the loopback address, which other nodes cannot reach; {fix}"
        )
    elif loopback:
        problem = (
            f"GLOO_SOCKET_IFNAME is unset and this host's name {host!r} resolves to "
            f"{', '.join(addrs)} (loopback): gloo groups bind there and other nodes cannot "
            f"connect; {fix}"
        )
    return {"host": host, "addresses": addrs, "nic": nic, "problem": problem}


# --- the stage ------------------------------------------------------------------------------


def launch_plan(cfg: AdvisorConfig | None, cluster: Cluster) -> LaunchPlan:
    """The run's launch plan (a default local one when preflight runs without a run config)."""
    if cfg is None:
        return LaunchPlan(
            launcher=LauncherConfig(),
            cluster=cluster,
            local_nodes=list(range(cluster.nodes)),
            master_addr=cluster.master_addr,
            base_port=cluster.master_port,
        )
    return LaunchPlan.make(cfg.launcher, cluster, cfg.env)


def master_target(plan: LaunchPlan) -> tuple[str, int]:
    """Master address and the fixed port something must serve or the jobs meet at (0 when each
    job picks a free one). Under ``launcher=env`` that is the outer job's store (MASTER_PORT),
    which listens before the advisor starts; the jobs take the ports above it."""
    if plan.launcher.kind == "env":
        return plan.master_addr, plan.base_port - 1
    return plan.master_addr, plan.base_port


def job_ports(cfg: AdvisorConfig | None, plan: LaunchPlan) -> list[tuple[int, str]]:
    """``(port, stage)`` the planned jobs meet at: a job starting with stage i at offset i*100
    (the shared job starts with the first job stage; after a failure, a fresh job with the
    next), a driver's own jobs from i*100 + 1."""
    if cfg is None or not plan.base_port:
        return []
    names = [n for n in stages.names() if getattr(cfg.stages, n).enabled]
    ports = []
    for index, name in enumerate(names):
        kind = stages.get(name).kind
        if kind == "job":
            ports.append((plan.port(index * 100), name))
        elif kind == "driver":
            ports.append((plan.port(index * 100 + 1), name))
    return ports


def run_host(ctx: HostContext, params: PreflightConfig) -> None:
    cfg = ctx.cfg
    if cfg is not None and cfg.launcher.netns and not os.environ.get(IN_NETNS_VAR):
        _run_in_netns(ctx, params, cfg.launcher.netns[ctx.node])
    else:
        check_node(ctx, params)


def check_node(ctx: HostContext, params: PreflightConfig) -> None:
    """Every check of one node, from the network namespace this process is in."""
    cluster = ctx.cluster
    cfg = ctx.cfg
    plan = launch_plan(cfg, cluster)
    env = plan.job_env()
    blocking: list[str] = []
    warnings: list[str] = []
    master_addr, master_port = master_target(plan)

    with ctx.step("dns") as m:
        names = sorted({*cluster.hosts, master_addr} - {""})
        dns = {h: resolve_host(h, params.dns_timeout_s) for h in names}
        m["dns"] = dns
        blocking += [d["error"] for d in dns.values() if not d["ok"]]

    local_master = is_local_address(master_addr)
    mode = params.master_check
    if mode == "auto":
        env_launcher = cfg is not None and cfg.launcher.kind == "env"
        mode = "listen" if env_launcher else ("free" if local_master else "reach")
    with ctx.step("master", mode=mode) as m:
        result: dict[str, Any] = {"addr": master_addr, "port": master_port, "mode": mode}
        # listen: the one port something must already serve; reach: every port a job meets at.
        targets = [(master_port, "master")] if mode == "listen" else job_ports(cfg, plan)
        if mode in ("listen", "reach") and not (master_port and targets):
            result.update(ok=True, cause="skipped", detail="no fixed master port to connect to")
        elif mode in ("listen", "reach"):
            with concurrent.futures.ThreadPoolExecutor(max_workers=8) as pool:
                probes = list(
                    pool.map(
                        lambda t: {
                            **tcp_probe(master_addr, t[0], params.connect_timeout_s),
                            "purpose": t[1],
                        },
                        targets,
                    )
                )
            for probe in probes:
                probe["ok"] = probe["connected"] or (
                    mode == "reach" and probe["cause"] == "refused"
                )
            bad = [p for p in probes if not p["ok"]]
            result.update({k: v for k, v in (bad or probes)[0].items() if k != "purpose"})
            result["probes"] = probes
            for probe in bad:
                blocking.append(
                    f"master {master_addr}:{probe['port']} ({probe['purpose']}) "
                    f"{_cause_text(probe)} (master_check={mode}, after "
                    f"{probe['elapsed_s']:.1f} s)"
                )
        else:
            result.update(ok=True, cause=mode, detail="")
            if mode == "free":
                result["detail"] = "this host is the master: its ports are checked free instead"
        m["master"] = result

    with ctx.step("ports") as m:
        busy = []
        # The emulated nodes share this host and one master: check the ports once, on node 0.
        if local_master and ctx.node == min(ctx.nodes_here or [ctx.node]):
            for port, stage_name in job_ports(cfg, plan):
                holder = port_busy(port)
                if holder:
                    busy.append({**holder, "purpose": f"rendezvous of {stage_name}"})
        hccl = params.hccl_ports == "on" or (
            params.hccl_ports == "auto" and cluster.backend == "hccl"
        )
        if hccl and ctx.node == min(ctx.nodes_here or [ctx.node]):
            base = int(env.get("HCCL_IF_BASE_PORT", "") or HCCL_DEFAULT_BASE_PORT)
            m["hccl_base_port"] = base
            for port in range(base, base + params.hccl_port_count):
                holder = port_busy(port)
                if holder:
                    busy.append({**holder, "purpose": "HCCL_IF_BASE_PORT"})
        m["ports_busy"] = busy
        for b in busy:
            who = f"{b['process']} (pid {b['pid']})" if b["pid"] else "another process"
            blocking.append(
                f"port {b['port']} ({b['purpose']}) is held by {who}: free it, or move the "
                + (
                    "HCCL ports with HCCL_IF_BASE_PORT"
                    if b["purpose"] == "HCCL_IF_BASE_PORT"
                    else "jobs with cluster.master_port"
                )
            )

    all_nics = nicmod.list_nics()
    with ctx.step("nics") as m:
        route = nicmod.route_nic(all_nics, master_addr)
        m["nics"] = nicmod.nic_dicts(all_nics)
        m["route_nic"] = route.name if route else ""
        if route is None:
            warnings.append(f"no interface routes to the master {master_addr}")

    with ctx.step("ifnames") as m:
        checks = []
        own_var = backends.IFNAME_VAR[cluster.device_type]
        for var in IFNAME_VARS:
            if env.get(var):
                checks.append(nicmod.check_ifname(var, env[var], all_nics))
        if env.get("HCCL_IF_IP"):
            checks.append(nicmod.check_if_ip(env["HCCL_IF_IP"], all_nics))
        for c in checks:
            # GLOO_SOCKET_IFNAME is read by every run: hccl and nccl jobs keep gloo side groups.
            c["used_by_this_run"] = c["var"] in (own_var, backends.GLOO_IFNAME_VAR) or (
                c["var"] == "HCCL_IF_IP" and cluster.backend == "hccl"
            )
            if not c["ok"]:
                (blocking if c["used_by_this_run"] else warnings).append(c["problem"])
        m["ifname_checks"] = checks
        # Nodes all on this host (one advisor per node in a test, say) reach loopback too.
        spans_hosts = not all(is_local_address(h) for h in (cluster.hosts or [master_addr]))
        if spans_hosts and not cluster.emulated and not env.get(backends.GLOO_IFNAME_VAR):
            gloo = gloo_bind_address(all_nics, params.dns_timeout_s)
            m["gloo_bind"] = gloo
            if gloo["problem"]:
                blocking.append(gloo["problem"])

    if params.tools:
        with ctx.step("tools") as m:
            m["tools"] = {
                " ".join(argv): run_tool(argv, mod, func, params.tool_timeout_s)
                for argv, mod, func in tool_commands(cluster)
            }

    ctx.record("summary", "error" if blocking else "ok", blocking=blocking, warnings=warnings)
    if blocking:
        raise PreflightFailed("; ".join(blocking))


IN_NETNS_VAR = "ADVISOR_PREFLIGHT_IN_NETNS"
"""Set for the copy of preflight that runs inside a node's network namespace."""
FAILED_EXIT = 3
"""Exit code of that copy when the node has a blocking problem (its message on stderr)."""


def _run_in_netns(ctx: HostContext, params: PreflightConfig, netns: str) -> None:
    """Run this node's checks inside its network namespace (the lab), where its NICs, routes and
    firewall are; the copy writes its records into the same run directory."""
    assert ctx.cfg is not None
    spec = ctx.run_dir / "jobs" / f"preflight-node{ctx.node}.json"
    spec.parent.mkdir(parents=True, exist_ok=True)
    spec.write_text(
        json.dumps(
            {
                "run_dir": str(ctx.run_dir),
                "node": ctx.node,
                "cluster": ctx.cluster.to_dict(),
                "cfg": OmegaConf.to_container(OmegaConf.structured(ctx.cfg)),
            }
        ),
        encoding="utf-8",
    )
    argv = ["ip", "netns", "exec", netns, sys.executable, "-m", "advisor.probes.netns_preflight"]
    proc = subprocess.run(
        [*argv, "--spec", str(spec)],
        capture_output=True,
        text=True,
        timeout=params.deadline_s,
        env={**os.environ, IN_NETNS_VAR: "1"},
        check=False,
    )
    message = (proc.stderr.strip().splitlines() or [""])[-1]
    if proc.returncode == FAILED_EXIT:
        raise PreflightFailed(message)
    if proc.returncode != 0:
        raise RuntimeError(
            f"preflight in network namespace {netns} exited with code {proc.returncode}: "
            f"{message or 'no message'}"
        )


def _cause_text(probe: dict[str, Any]) -> str:
    return {
        "refused": "refused the connection: nothing listens there",
        "timed_out": "did not answer (timed out: packets dropped by a firewall, or no route)",
        "unreachable": f"is unreachable ({probe.get('detail', '')})",
        "dns": f"does not resolve ({probe.get('detail', '')})",
    }.get(str(probe["cause"]), f"failed: {probe.get('detail', '')}")


# --- summary --------------------------------------------------------------------------------


@dataclass(kw_only=True)
class NodePreflight:
    """What preflight found on one node."""

    dns: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per name: ``{ok, addresses, error, elapsed_s}``."""
    master: dict[str, Any] = field(default_factory=dict)
    """``{addr, port, mode, ok, cause, detail, elapsed_s}``; cause is connected, refused,
    timed_out, unreachable, dns, skipped, free (this host is the master) or off."""
    ports_busy: list[dict[str, Any]] = field(default_factory=list)
    """``{port, purpose, pid, process, error}`` for each port the jobs need that is taken."""
    hccl_base_port: int | None = None
    nics: list[dict[str, Any]] = field(default_factory=list)
    """``{name, up, mtu, speed_mbps, addresses}``."""
    route_nic: str = ""
    """Interface whose address is the source towards the master."""
    ifname_checks: list[dict[str, Any]] = field(default_factory=list)
    """``{var, value, ok, selected, problem, used_by_this_run}``."""
    gloo_bind: dict[str, Any] = field(default_factory=dict)
    """Multi-node with GLOO_SOCKET_IFNAME unset: ``{host, addresses, nic, problem}``, where
    gloo groups bind (the host name's address)."""
    tools: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per command: ``{argv, returncode, timed_out, elapsed_s, output, parsed | parse_error}``."""
    blocking: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)


@dataclass(kw_only=True)
class PreflightFacts:
    """Summary of the preflight stage."""

    nodes: dict[str, NodePreflight] = field(default_factory=dict)
    blocking: list[str] = field(default_factory=list)
    """Problems that stop every job, each prefixed with its node."""
    warnings: list[str] = field(default_factory=list)


def summarize(records: list[Record], cluster: Cluster, params: Any) -> PreflightFacts:
    facts = PreflightFacts()
    for r in records:
        node = facts.nodes.setdefault(r.node_name, NodePreflight())
        m = r.metrics
        if r.status == "started":
            continue
        if r.step == "dns":
            node.dns = dict(m.get("dns", {}))
        elif r.step == "master":
            node.master = dict(m.get("master", {}))
        elif r.step == "ports":
            node.ports_busy = list(m.get("ports_busy", []))
            node.hccl_base_port = m.get("hccl_base_port")
        elif r.step == "nics":
            node.nics = list(m.get("nics", []))
            node.route_nic = str(m.get("route_nic", ""))
        elif r.step == "ifnames":
            node.ifname_checks = list(m.get("ifname_checks", []))
            node.gloo_bind = dict(m.get("gloo_bind", {}))
        elif r.step == "tools":
            node.tools = dict(m.get("tools", {}))
        elif r.step == "summary":
            node.blocking = list(m.get("blocking", []))
            node.warnings = list(m.get("warnings", []))
            facts.blocking += [f"{r.node_name}: {b}" for b in node.blocking]
            facts.warnings += [f"{r.node_name}: {w}" for w in node.warnings]
        elif r.step == "error" and not node.blocking:
            node.blocking = [str(m.get("error", "preflight failed"))]
            facts.blocking.append(f"{r.node_name}: {node.blocking[0]}")
    return facts


STAGE = Stage(
    name="preflight",
    description="per node before any job: names resolve, master reachable, ports free, NICs",
    config_type=PreflightConfig,
    run_host=run_host,
    summarize=summarize,
    facts_type=PreflightFacts,
    gates_run=True,
)
