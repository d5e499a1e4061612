"""The drift stage: each node's fingerprint, compared across nodes before any job starts.

A fingerprint is what a node runs and how it is set up, as far as it is cheap to read without a
job: OS and kernel, Python, torch and torch_npu, the CANN toolkit, the npu-smi (driver) version
and chip names, the NCCL torch was built with (CUDA hosts), the NVIDIA driver, OFED
(``ofed_info -s``), the communication variables of the jobs' environment, every NIC's MTU, speed
and state (``/sys/class/net``), each NPU port's TLS switch (``hccn_tool -i N -tls -g``) and the
version of the rank table ``RANK_TABLE_FILE`` names. A tool or file that is not there reads
``not present``; nothing here fails a node.

Nodes are then compared key by key (``nic.eth0.mtu``, ``env.NCCL_IB_HCA``, ``package.torch``
...). A key whose value differs is a :class:`DriftFinding` with every value and the nodes that
have it. Values that legitimately differ per node are never compared (``DEFAULT_IGNORE``); host
names and addresses are not collected at all.

Where it runs: like preflight, once per node before any process group: in the advisor process
for the node itself (``launcher=torchrun``/``env``: one advisor per node; node 0 then waits up to
``peer_wait_s`` for the other nodes' fingerprints in the shared run directory), inside each
node's network namespace (the lab), or over ssh on each host (``launcher=ssh``), as
``python -m advisor.probes.drift`` printing the fingerprint as JSON. Under ``launcher=slurm``
host stages run on the advisor's host alone, so no fingerprint is taken (the facts say why).

``advisor import`` builds the same facts from several hosts' tool outputs (see
:func:`from_evidence`): a host's files sit in a folder of their own.
"""

from __future__ import annotations

import contextlib
import fnmatch
import glob
import importlib.metadata
import json
import os
import platform
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from advisor.backends import chip_generation, nccl_version
from advisor.errors import ConfigError
from advisor.launch.commands import wrap_for_node
from advisor.parsers import ParseError, hccn_tool, npu_smi
from advisor.parsers import rank_table as rank_table_parser
from advisor.probes.preflight import launch_plan
from advisor.probes.tools import find_tool
from advisor.results import nodes_that_left, read_records
from advisor.stages import Stage, StageConfig

if TYPE_CHECKING:
    from advisor.cluster import Cluster
    from advisor.context import HostContext
    from advisor.evidence.load import EvidenceFacts
    from advisor.launch.plan import LaunchPlan
    from advisor.results import Record

NOT_PRESENT = "not present"
"""The value of a tool, file or package a node does not have."""
UNSET = "unset"
"""The value of an environment variable a node does not set."""
ABSENT_NIC = "absent"
"""The value of a NIC key on a node that has no interface of that name."""

ENV_PREFIXES = ("HCCL_", "NCCL_", "GLOO_", "TORCH_", "MASTER_", "ASCEND_")
"""Communication variables compared across nodes (TORCH_ covers TORCH_NCCL_* and
TORCH_DISTRIBUTED_*)."""

DEFAULT_IGNORE = (
    # Each node's own address: the CANN variable reference has HCCL_IF_IP name this host's NIC.
    "env.HCCL_IF_IP",
    # Which devices a process uses: set per rank, or per node by a scheduler.
    "env.ASCEND_DEVICE_ID",
    "env.ASCEND_RT_VISIBLE_DEVICES",
    "env.ASCEND_VISIBLE_DEVICES",
    # Rank-like variables: they differ per node and per process by design.
    "env.*RANK*",
    "env.*WORLD_SIZE",
    # Container and virtual interfaces: created per host, named after it or its containers.
    "nic.docker*",
    "nic.veth*",
    "nic.br-*",
    "nic.virbr*",
    "nic.cni*",
    "nic.flannel*",
    "nic.cali*",
    "nic.tun*",
    "nic.tap*",
)
"""Keys (shell patterns over the compared keys) never compared: values that legitimately
differ per node. MASTER_ADDR and MASTER_PORT are compared: every node must name the same
master."""

RANK_TABLE_VERSION = {"910": "1.0", "A2": "1.0", "A3": "1.2"}
"""The rank-table version each Ascend generation takes: MindCluster's hccl.json / global
ranktable description gives ``"version": "1.0"`` for Atlas A2 training products and ``"1.2"``
(with ``super_device_id`` and ``super_pod_list``) for Atlas A3; the 1.0 layout predates A2."""

TOOLKIT_INFO_GLOBS = (
    "{home}/latest/*-linux/ascend_toolkit_install.info",
    "{home}/*-linux/ascend_toolkit_install.info",
)
"""Where the CANN toolkit records its version: ``<install>/ascend-toolkit/latest/<arch>-linux/
ascend_toolkit_install.info`` (CANN installation guide, "Querying the Software Package
Version"); ``{home}`` is ASCEND_TOOLKIT_HOME (set by set_env.sh, already ``.../latest``) or the
default root install ``/usr/local/Ascend/ascend-toolkit``."""
DEFAULT_TOOLKIT_HOME = "/usr/local/Ascend/ascend-toolkit"


SLURM_NOTE = (
    "launcher=slurm runs host stages on the advisor's host only: no node's own fingerprint was "
    "taken (run the advisor with launcher=torchrun on each node, or launcher=ssh)"
)


@dataclass(kw_only=True)
class DriftConfig(StageConfig):
    """The drift stage's settings."""

    deadline_s: float = 60.0
    tool_timeout_s: float = 5.0
    """Longest run of one tool (npu-smi, hccn_tool, ofed_info, nvidia-smi) or of one node's
    collection over ssh or in its namespace (times 4)."""
    peer_wait_s: float = 30.0
    """One advisor per node: how long node 0 waits for the other nodes' fingerprints before it
    compares those it has (the others are named missing)."""
    hccn_devices: int = 8
    """NPU devices whose TLS switch is read where hccn_tool is installed (npu clusters use
    ``cluster.devices_per_node`` when it is set)."""
    ignore: list[str] = field(default_factory=lambda: list(DEFAULT_IGNORE))
    """Keys never compared (shell patterns such as ``env.MY_*`` or ``nic.ib*``); the default
    is ``DEFAULT_IGNORE``: per-node addresses, device choices, rank-like variables, container
    interfaces."""

    def __post_init__(self) -> None:
        if min(self.tool_timeout_s, self.peer_wait_s + 1) <= 0:
            raise ConfigError(
                "stages.drift.tool_timeout_s must be positive and peer_wait_s 0 or more."
            )
        if not 0 <= self.hccn_devices <= 64:
            raise ConfigError("stages.drift.hccn_devices must be between 0 and 64.")


# --- the fingerprint ------------------------------------------------------------------------


@dataclass(kw_only=True)
class NicPrint:
    """One interface as ``/sys/class/net`` describes it."""

    mtu: int
    speed_mbps: int
    """-1 when the driver does not say (a virtual or down link)."""
    state: str
    """operstate: up, down, unknown ..."""


@dataclass(kw_only=True)
class NodeFingerprint:
    """What one node runs and how it is set up (``not present`` for what it lacks)."""

    os: str = ""
    kernel: str = ""
    python: str = ""
    packages: dict[str, str] = field(default_factory=dict)
    """torch, torch_npu: the installed distribution's version."""
    nccl: str = ""
    """NCCL torch was built with (CUDA hosts only; '' elsewhere)."""
    cann_toolkit: str = NOT_PRESENT
    """``version=`` of ascend_toolkit_install.info."""
    npu_smi: str = NOT_PRESENT
    """npu-smi's version (its header's ``Version:``, the driver package)."""
    npu_chips: list[str] = field(default_factory=list)
    """Chip names npu-smi lists (sorted, each once)."""
    nvidia_driver: str = NOT_PRESENT
    ofed: str = NOT_PRESENT
    """First line of ``ofed_info -s`` (e.g. ``MLNX_OFED_LINUX-5.8-1.0.1.1``)."""
    env: dict[str, str] = field(default_factory=dict)
    """Communication variables (ENV_PREFIXES) of the jobs' environment on this node."""
    nics: dict[str, NicPrint] = field(default_factory=dict)
    """Every interface but loopback."""
    hccn_tls: dict[str, str] = field(default_factory=dict)
    """Per NPU device: enabled or disabled (hccn_tool installed only)."""
    rank_table: str = ""
    """Version of the rank table RANK_TABLE_FILE names ('' when unset, ``not present`` when
    the file cannot be read)."""
    errors: list[str] = field(default_factory=list)
    """Tools that were there but failed or timed out, each with its error."""


def _run(argv: list[str], timeout_s: float, errors: list[str]) -> str | None:
    """A tool's stdout; None when it failed (the error noted) or timed out."""
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        errors.append(f"{' '.join(argv)}: no result within {timeout_s:g} s")
        return None
    except OSError as e:
        errors.append(f"{' '.join(argv)}: {e}")
        return None
    if proc.returncode != 0:
        errors.append(f"{' '.join(argv)}: exit {proc.returncode}: {proc.stderr.strip()[:200]}")
        return None
    return proc.stdout


def _os_name() -> str:
    with contextlib.suppress(OSError):
        for line in Path("/etc/os-release").read_text(encoding="utf-8").splitlines():
            if line.startswith("PRETTY_NAME="):
                return line.split("=", 1)[1].strip().strip('"')
    return platform.system()


def _package(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return NOT_PRESENT


def read_nics(root: Path = Path("/sys/class/net")) -> dict[str, NicPrint]:
    """Every interface but loopback: MTU, speed and operstate from sysfs (speed reads fail on
    links without one, e.g. down or virtual: -1)."""
    out = {}
    for d in sorted(root.iterdir()) if root.is_dir() else []:
        if d.name == "lo":
            continue
        values = {}
        for attr in ("mtu", "speed", "operstate"):
            try:
                values[attr] = (d / attr).read_text(encoding="utf-8").strip()
            except OSError:
                values[attr] = ""
        try:
            speed = int(values["speed"])
        except ValueError:
            speed = -1
        out[d.name] = NicPrint(
            mtu=int(values["mtu"]) if values["mtu"].isdigit() else 0,
            speed_mbps=speed,
            state=values["operstate"] or "unknown",
        )
    return out


def toolkit_version(text: str) -> str:
    """``version=`` of an ascend_toolkit_install.info (key=value lines); '' when absent."""
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "version":
            return value.strip()
    return ""


def _cann_toolkit(env: Mapping[str, str]) -> str:
    home = env.get("ASCEND_TOOLKIT_HOME", "")
    patterns = [p.format(home=home) for p in TOOLKIT_INFO_GLOBS] if home else []
    patterns.append(TOOLKIT_INFO_GLOBS[0].format(home=DEFAULT_TOOLKIT_HOME))
    for pattern in patterns:
        for path in sorted(glob.glob(pattern)):
            with contextlib.suppress(OSError, UnicodeDecodeError):
                version = toolkit_version(Path(path).read_text(encoding="utf-8"))
                if version:
                    return version
    return NOT_PRESENT


def communication_env(env: Mapping[str, str]) -> dict[str, str]:
    """The variables of ``env`` that drift compares (ENV_PREFIXES), sorted."""
    return {k: v for k, v in sorted(env.items()) if k.startswith(ENV_PREFIXES)}


def collect(
    env: Mapping[str, str], *, device_type: str, devices: int, timeout_s: float
) -> NodeFingerprint:
    """This host's fingerprint; ``env`` is the jobs' environment here."""
    errors: list[str] = []
    fp = NodeFingerprint(
        os=_os_name(),
        kernel=platform.release(),
        python=platform.python_version(),
        packages={name: _package(name) for name in ("torch", "torch_npu")},
        cann_toolkit=_cann_toolkit(env),
        env=communication_env(env),
        nics=read_nics(),
        errors=errors,
    )
    if device_type == "cuda":
        version = nccl_version()
        fp.nccl = ".".join(str(x) for x in version) if version else NOT_PRESENT
    npu = find_tool("npu-smi")
    if npu:
        out = _run([npu, "info"], timeout_s, errors)
        if out is not None:
            try:
                info = npu_smi.parse_info(out)
                fp.npu_smi = info.version or NOT_PRESENT
                fp.npu_chips = sorted({c.name for c in info.chips})
            except ParseError as e:
                errors.append(f"npu-smi info: {e}")
    hccn = find_tool("hccn_tool")
    for dev in range(devices) if hccn else ():
        out = _run([str(hccn), "-i", str(dev), "-tls", "-g"], timeout_s, errors)
        if out is None:
            continue
        try:
            enabled = hccn_tool.parse_tls(out).enabled
        except ParseError as e:
            errors.append(f"hccn_tool -i {dev} -tls -g: {e}")
            continue
        fp.hccn_tls[str(dev)] = "enabled" if enabled else "disabled"
    nvidia = find_tool("nvidia-smi")
    if nvidia:
        # one line per GPU (nvidia-smi --help-query-gpu: driver_version)
        out = _run(
            [nvidia, "--query-gpu=driver_version", "--format=csv,noheader"], timeout_s, errors
        )
        if out and out.strip():
            fp.nvidia_driver = ",".join(
                sorted({line.strip() for line in out.splitlines() if line.strip()})
            )
    ofed = find_tool("ofed_info")
    if ofed:
        out = _run([ofed, "-s"], timeout_s, errors)
        if out and out.strip():
            fp.ofed = out.strip().splitlines()[0].rstrip(":")
    table = env.get("RANK_TABLE_FILE", "")
    if table:
        try:
            fp.rank_table = rank_table_parser.parse(Path(table).read_text(encoding="utf-8")).version
        except (OSError, UnicodeDecodeError, ParseError) as e:
            fp.rank_table = NOT_PRESENT
            errors.append(f"RANK_TABLE_FILE={table}: {e}")
    return fp


# --- comparing ------------------------------------------------------------------------------


def flatten(fp: NodeFingerprint) -> dict[str, str]:
    """The fingerprint as compared keys: ``os``, ``package.torch``, ``env.NCCL_DEBUG``,
    ``nic.eth0.mtu``, ``hccn.3.tls`` ... (a key a node lacks reads as ``missing_value``)."""
    out = {
        "os": fp.os,
        "kernel": fp.kernel,
        "python": fp.python,
        "cann.toolkit": fp.cann_toolkit,
        "npu_smi.version": fp.npu_smi,
        "nvidia.driver": fp.nvidia_driver,
        "ofed": fp.ofed,
    }
    if fp.npu_chips:
        out["npu.chips"] = ",".join(fp.npu_chips)
    out.update({f"package.{k}": v for k, v in fp.packages.items()})
    if fp.nccl:
        out["nccl"] = fp.nccl
    out.update({f"env.{k}": v for k, v in fp.env.items()})
    for name, nic in fp.nics.items():
        out[f"nic.{name}.mtu"] = str(nic.mtu)
        out[f"nic.{name}.speed_mbps"] = str(nic.speed_mbps)
        out[f"nic.{name}.state"] = nic.state
    out.update({f"hccn.{dev}.tls": v for dev, v in fp.hccn_tls.items()})
    if fp.rank_table:
        out["rank_table.version"] = fp.rank_table
    return {k: v for k, v in out.items() if v != ""}


def missing_value(key: str) -> str:
    """What a node that lacks ``key`` has: unset (a variable), absent (a NIC), not present."""
    if key.startswith("env."):
        return UNSET
    if key.startswith("nic."):
        return ABSENT_NIC
    return NOT_PRESENT


@dataclass(kw_only=True)
class DriftValue:
    value: str
    nodes: list[str]


@dataclass(kw_only=True)
class DriftFinding:
    """A key whose value differs between nodes."""

    key: str
    """The compared key (``nic.lab0.mtu``, ``env.NCCL_DEBUG``, ``package.torch`` ...)."""
    category: str
    """Its first part: os, kernel, python, package, nccl, cann, npu_smi, npu, nvidia, ofed, env,
    nic, hccn, rank_table."""
    values: list[DriftValue]
    """Every value with the nodes that have it, the most common first."""
    odd_nodes: list[str] = field(default_factory=list)
    """Nodes outside the one largest group (empty when no group is larger than the others)."""
    summary: str = ""
    """``key: value on nodes; other value on nodes``."""


@dataclass(kw_only=True)
class RankTableCheck:
    """A rank table's version against the chip generation of the node that reads it."""

    node: str
    version: str
    chip: str
    """Generation (910, A2, A3) from npu-smi's chip names, or the cluster's declared chip."""
    expected: str
    problem: str = ""


@dataclass(kw_only=True)
class DriftFacts:
    """Summary of the drift stage (or of an import of several hosts' outputs)."""

    nodes: dict[str, NodeFingerprint] = field(default_factory=dict)
    findings: list[DriftFinding] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)
    """Keys present on some node that were not compared (matched by ``ignore``)."""
    missing_nodes: list[str] = field(default_factory=list)
    """Nodes whose fingerprint never arrived (one advisor per node, a peer late or down)."""
    rank_tables: list[RankTableCheck] = field(default_factory=list)
    not_collected: str = ""
    """Why no fingerprint was taken at all (launcher=slurm); '' when they were."""
    imported: bool = False
    """Built from imported files (``advisor import``), where a node is a folder of files; only
    what every host's files tell is compared."""


def compare(
    nodes: Mapping[str, NodeFingerprint],
    ignore: Sequence[str] = DEFAULT_IGNORE,
    *,
    common_only: bool = False,
) -> tuple[list[DriftFinding], list[str]]:
    """Every key whose value differs between ``nodes``, and the keys ``ignore`` left out.

    ``common_only``: compare only keys every node has (imported files: a key a host's files do
    not mention is unknown there, not absent)."""
    flat = {name: flatten(fp) for name, fp in sorted(nodes.items())}
    keys = sorted({k for values in flat.values() for k in values})
    if common_only:
        keys = [k for k in keys if all(k in values for values in flat.values())]
    findings: list[DriftFinding] = []
    ignored: list[str] = []
    for key in keys:
        if any(fnmatch.fnmatchcase(key, pattern) for pattern in ignore):
            ignored.append(key)
            continue
        groups: dict[str, list[str]] = {}
        for name, values in flat.items():
            groups.setdefault(values.get(key, missing_value(key)), []).append(name)
        if len(groups) < 2:
            continue
        ordered = sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))
        odd = (
            []
            if len(ordered[0][1]) == len(ordered[1][1])
            else [n for _, ns in ordered[1:] for n in ns]
        )
        findings.append(
            DriftFinding(
                key=key,
                category=key.split(".", 1)[0],
                values=[DriftValue(value=v, nodes=ns) for v, ns in ordered],
                odd_nodes=odd,
                summary=f"{key}: " + "; ".join(f"{v!r} on {', '.join(ns)}" for v, ns in ordered),
            )
        )
    return findings, ignored


def rank_table_checks(
    nodes: Mapping[str, NodeFingerprint], cluster_chip: str = ""
) -> list[RankTableCheck]:
    """Each node's rank table version against its chips' generation (or the declared chip)."""
    out = []
    for name, fp in sorted(nodes.items()):
        if not fp.rank_table or fp.rank_table == NOT_PRESENT:
            continue
        generations = sorted({g for g in map(chip_generation, fp.npu_chips) if g})
        chip = generations[0] if len(generations) == 1 else cluster_chip
        expected = RANK_TABLE_VERSION.get(chip, "")
        check = RankTableCheck(node=name, version=fp.rank_table, chip=chip, expected=expected)
        if expected and fp.rank_table != expected:
            check.problem = (
                f"{name}: rank table version {fp.rank_table} on {chip} chips, which take version "
                f"{expected}"
            )
        out.append(check)
    return out


def build(
    nodes: Mapping[str, NodeFingerprint],
    *,
    ignore: Sequence[str] = DEFAULT_IGNORE,
    expected_nodes: Sequence[str] = (),
    cluster_chip: str = "",
    imported: bool = False,
) -> DriftFacts:
    """The drift facts of these fingerprints."""
    findings, ignored = compare(nodes, ignore, common_only=imported)
    return DriftFacts(
        nodes=dict(sorted(nodes.items())),
        findings=findings,
        ignored=ignored,
        missing_nodes=[n for n in expected_nodes if n not in nodes],
        rank_tables=rank_table_checks(nodes, cluster_chip),
        imported=imported,
    )


# --- the stage ------------------------------------------------------------------------------


def run_host(ctx: HostContext, params: DriftConfig) -> None:
    """Record this node's fingerprint; node 0 of a one-advisor-per-node run then waits for the
    others' (they share the run directory)."""
    cluster = ctx.cluster
    plan = launch_plan(ctx.cfg, cluster)
    env = plan.node_env(ctx.node)
    devices = cluster.devices_per_node if cluster.device_type == "npu" else params.hccn_devices
    launcher = plan.launcher
    if launcher.kind == "slurm":
        # srun places this stage's process nowhere: the advisor's host would pass for every node
        ctx.record("fingerprint", "skipped", reason=SLURM_NOTE)
        return
    with ctx.step("fingerprint") as m:
        remote = (launcher.kind == "local" and bool(launcher.netns)) or launcher.kind == "ssh"
        if remote:
            fp = _collect_on_node(ctx, params, plan, env, devices)
            m["where"] = "netns" if launcher.kind == "local" else "ssh"
        else:
            fp = collect(
                env,
                device_type=cluster.device_type,
                devices=devices,
                timeout_s=params.tool_timeout_s,
            )
            m["where"] = "here"
        m["fingerprint"] = asdict(fp)
    if plan.primary and plan.one_per_node and ctx.node == max(ctx.nodes_here):
        with ctx.step("peers") as m:
            m.update(_wait_for_peers(ctx, params, plan.peers_since_s()))


def _collect_on_node(
    ctx: HostContext, params: DriftConfig, plan: LaunchPlan, env: dict[str, str], devices: int
) -> NodeFingerprint:
    """The fingerprint taken on the node itself (its namespace, or over ssh): ``python -m
    advisor.probes.drift`` reads its settings on stdin and prints the fingerprint."""
    python = plan.launcher.python or sys.executable
    argv = wrap_for_node(plan.launcher, plan, ctx.node, [python, "-m", "advisor.probes.drift"], env)
    spec = {
        "device_type": ctx.cluster.device_type,
        "devices": devices,
        "timeout_s": params.tool_timeout_s,
    }
    proc = subprocess.run(
        argv,
        input=json.dumps(spec),
        capture_output=True,
        text=True,
        timeout=params.tool_timeout_s * 4 + 30,
        env=env,
        check=False,
    )
    if proc.returncode != 0:
        tail = (proc.stderr.strip().splitlines() or ["no message"])[-1]
        raise RuntimeError(
            f"collecting node {ctx.node_name}'s fingerprint ({argv[0]} ...) exited with code "
            f"{proc.returncode}: {tail}"
        )
    return fingerprint_of(json.loads(proc.stdout))


def fingerprint_of(data: Mapping[str, Any]) -> NodeFingerprint:
    """A fingerprint from its JSON form."""
    fields = dict(data)
    fields["nics"] = {k: NicPrint(**v) for k, v in dict(fields.get("nics", {})).items()}
    return NodeFingerprint(**fields)


def _fingerprints(records: list[Record], since_s: float = 0.0) -> dict[str, NodeFingerprint]:
    """The latest fingerprint of each node among ``records`` (written after ``since_s``)."""
    out = {}
    for r in records:
        if r.step == "fingerprint" and r.status == "ok" and r.t_wall_s >= since_s:
            out[r.node_name] = fingerprint_of(r.metrics["fingerprint"])
    return out


def _wait_for_peers(ctx: HostContext, params: DriftConfig, since_s: float) -> dict[str, Any]:
    """Wait for every node's fingerprint, up to ``peer_wait_s``; a node that announced it left
    the run (its preflight failed) is not waited for."""
    wanted = [ctx.cluster.node_name(n) for n in range(ctx.cluster.nodes)]
    deadline = time.monotonic() + params.peer_wait_s
    while True:
        have = _fingerprints(read_records(ctx.run_dir, "drift"), since_s)
        missing = [n for n in wanted if n not in have]
        left = nodes_that_left(ctx.run_dir, ctx.nodes_here, since_s)
        if not missing or left or time.monotonic() >= deadline:
            return {"arrived": sorted(have), "missing": missing, "left": left}
        time.sleep(0.2)


def summarize(records: list[Record], cluster: Cluster, params: Any) -> DriftFacts:
    ignore = params.ignore if isinstance(params, DriftConfig) else DEFAULT_IGNORE
    skipped = [str(r.metrics.get("reason", "")) for r in records if r.status == "skipped"]
    if skipped:
        return DriftFacts(not_collected=skipped[0])
    return build(
        _fingerprints(records),
        ignore=ignore,
        expected_nodes=[cluster.node_name(n) for n in range(cluster.nodes)],
        cluster_chip=cluster.chip,
    )


STAGE = Stage(
    name="drift",
    description="per node before any job: software, settings and NICs compared across nodes",
    config_type=DriftConfig,
    run_host=run_host,
    summarize=summarize,
    facts_type=DriftFacts,
)


# --- imported evidence ----------------------------------------------------------------------


def evidence_host(source: str) -> str:
    """The host an evidence item belongs to: the node of a live tool output (``node0: npu-smi
    info``), else the folder its file sits in (one folder per host)."""
    head, sep, _ = source.partition(": ")
    if sep and "/" not in head:
        return head
    return Path(source).parent.name


def from_evidence(evidence: EvidenceFacts) -> DriftFacts | None:
    """Drift between the hosts of imported files: npu-smi versions and chips, each port's TLS
    switch, rank table versions. None unless the files come from two hosts or more."""
    nodes: dict[str, NodeFingerprint] = {}

    def node(source: str) -> NodeFingerprint:
        # only what the files tell: unknown parts stay '' and are not compared
        return nodes.setdefault(
            evidence_host(source),
            NodeFingerprint(cann_toolkit="", npu_smi="", nvidia_driver="", ofed=""),
        )

    for chip in evidence.npu_chips:
        fp = node(chip["source"])
        fp.npu_smi = chip.get("version") or fp.npu_smi
        if chip["name"]:  # an npu-smi info -t health answer names no chip
            fp.npu_chips = sorted({*fp.npu_chips, str(chip["name"])})
    for port in evidence.npu_ports:
        if port.get("device") is not None and port.get("tls_enabled") is not None:
            fp = node(port["source"])
            fp.hccn_tls[str(port["device"])] = "enabled" if port["tls_enabled"] else "disabled"
    for table in evidence.rank_tables:
        if table.get("form") == rank_table_parser.PD_FORM:
            # vllm-ascend writes "1.2" into its prefill/decode table on every chip
            # (examples/disaggregated_prefill/gen_ranktable.py): no HCCL version to compare
            continue
        node(table["source"]).rank_table = str(table["version"])
    if len(nodes) < 2:
        return None
    return build(nodes, imported=True)


def main() -> int:
    """``python -m advisor.probes.drift``: this node's fingerprint as JSON on stdout (settings
    ``{device_type, devices, timeout_s}`` as JSON on stdin); the environment is the jobs'."""
    spec = json.loads(sys.stdin.read() or "{}")
    fp = collect(
        dict(os.environ),
        device_type=str(spec.get("device_type", "cpu")),
        devices=int(spec.get("devices", 0)),
        timeout_s=float(spec.get("timeout_s", 5.0)),
    )
    print(json.dumps(asdict(fp)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
