"""Lab nodes as network namespaces on a private bridge, with shaped links and fault helpers.

Layout of a lab with id ``abc123`` and two nodes::

    adv-abc123-br   bridge ``br0`` with ports v0, v1 (no address: it is the switch)
    adv-abc123-n0   loopback + ``lab0`` 10.213.X.1/24 (veth peer of v0)
    adv-abc123-n1   loopback + ``lab0`` 10.213.X.2/24 (veth peer of v1)

Every node names its NIC the same (``lab0``), so one ``cluster.interface`` setting selects the lab
NIC on every node, as on a real cluster. Ranks of one node talk over that node's loopback (the
kernel routes a namespace's own addresses locally), so only inter-node traffic crosses the
shaped veths. Nothing is created in the host's namespace: deleting the lab's namespaces removes
every link with them.

A node link is shaped in both directions: on the node's ``lab0`` (node to switch) and on the
switch port ``v<i>`` (switch to node), each an htb class at the rate with netem below it for delay
and jitter. The kernel may lack netem (some VMs ship only htb and tbf): loss then falls back to
iptables' ``statistic`` match in the node, and delay or jitter are refused with the reason.

Teardown always happens: ``with Lab(...)`` tears down on exit, an atexit hook and SIGTERM/SIGHUP
handlers tear down labs still up, and every new lab first removes the leftovers of labs whose
owning process is gone (found by the ``adv-`` name prefix and the state file in ``STATE_DIR``).
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import ipaddress
import json
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from types import FrameType
from typing import Any

import psutil

from advisor.errors import AdvisorError, ConfigError

PREFIX = "adv-"
"""Every lab namespace starts with this; nothing else on the host may use it."""
_NAME_RE = re.compile(r"^adv-(?P<id>[0-9a-f]{6})-(?P<part>br|n\d+)$")
INTERFACE = "lab0"
"""Name of every lab node's NIC, inside its namespace."""
BRIDGE = "br0"
SUBNET_BASE = "10.213.0.0/16"
"""Lab subnets are /24s carved from this private range (one per lab, by its index)."""
MASTER_PORT = 29500
"""Rendezvous port the torchrun launcher path uses inside the lab (namespaces have no
competition for it)."""


_CREATING = threading.Lock()
"""Held while a lab picks its id and subnet and writes its state file."""
CLAIM_LOCK = ".claim.lock"
"""File in ``state_dir()`` that processes bringing labs up at once lock (flock) in turn."""


def state_dir() -> Path:
    """Where lab state files live (tmpfs: a reboot clears them along with the namespaces)."""
    return Path(os.environ.get("ADVISOR_LAB_STATE_DIR", "/run/advisor-lab"))


@contextlib.contextmanager
def _claiming() -> Iterator[None]:
    """Held while a lab picks its id and subnet and writes its state file: by one thread of this
    process (``_CREATING``) and one process of this host (an flock on ``CLAIM_LOCK``), so that
    labs brought up at once (two test workers, two advisors) take distinct subnets."""
    d = state_dir()
    d.mkdir(parents=True, exist_ok=True)
    with _CREATING, open(d / CLAIM_LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        yield


class LabError(AdvisorError):
    """A lab command failed: the message names the command and what the kernel said."""


def require_root() -> None:
    if os.geteuid() != 0:
        raise ConfigError(
            "the lab needs root (it creates network namespaces, veth links and tc qdiscs): run "
            "`sudo advisor lab ...` or the tests as root."
        )


def sh(argv: Sequence[str], *, check: bool = True, timeout_s: float = 30.0) -> str:
    """Run one command (an argument list); stdout, or LabError naming the command on failure."""
    try:
        proc = subprocess.run(
            list(argv), capture_output=True, text=True, timeout=timeout_s, check=False
        )
    except FileNotFoundError as e:
        raise LabError(
            f"{argv[0]} is not installed: install iproute2 (ip, tc) and iptables ({e})."
        ) from e
    if check and proc.returncode != 0:
        raise LabError(
            f"`{' '.join(argv)}` failed ({proc.returncode}): {proc.stderr.strip() or proc.stdout}"
        )
    return proc.stdout


@dataclass(kw_only=True)
class LinkShape:
    """How one node's link is shaped (each direction)."""

    rate_mbit: float = 0.0
    """Rate in Mbit/s; 0 leaves the link unshaped."""
    delay_ms: float = 0.0
    """Added one-way delay in ms (needs the kernel's netem)."""
    jitter_ms: float = 0.0
    """Delay variation in ms (needs netem and a delay)."""
    loss_pct: float = 0.0
    """Random packet loss per direction, in percent."""

    def __post_init__(self) -> None:
        for name in ("rate_mbit", "delay_ms", "jitter_ms", "loss_pct"):
            if getattr(self, name) < 0:
                raise ConfigError(f"lab link {name}={getattr(self, name)} must be 0 or more.")
        if self.loss_pct >= 100:
            raise ConfigError(f"lab link loss_pct={self.loss_pct} must be below 100.")
        if self.jitter_ms and not self.delay_ms:
            raise ConfigError("lab link jitter_ms needs delay_ms (jitter varies the delay).")

    @property
    def shaped(self) -> bool:
        return bool(self.rate_mbit or self.delay_ms or self.loss_pct)


@dataclass(kw_only=True)
class LabState:
    """What a lab writes to ``STATE_DIR/<id>.json`` so another process can use or remove it."""

    id: str
    nodes: int
    subnet: str
    interface: str
    owner_pid: int
    owner_started_at: float
    """Creation time of the owner process (so a reused pid is not taken for the owner)."""
    persistent: bool
    """Made by ``advisor lab up``: lives until ``advisor lab down``."""
    created_at: float
    shapes: dict[str, dict[str, float]] = field(default_factory=dict)
    """Per node index: its LinkShape as a mapping."""

    @property
    def prefix(self) -> str:
        return f"{PREFIX}{self.id}"


# Labs this process owns and has not torn down: the atexit and signal hooks tear these down.
_ACTIVE: dict[str, Lab] = {}
_HOOKS_INSTALLED = False
_PREVIOUS_HANDLERS: dict[int, Any] = {}


class Lab:
    """N emulated nodes on a private switch. Use as ``with Lab(nodes=2) as lab: ...``."""

    def __init__(
        self,
        nodes: int = 2,
        *,
        shape: LinkShape | None = None,
        node_shapes: dict[int, LinkShape] | None = None,
        persistent: bool = False,
        interface: str = INTERFACE,
    ) -> None:
        if nodes < 1:
            raise ConfigError(f"a lab needs at least 1 node, got nodes={nodes}.")
        if nodes > 200:
            raise ConfigError(f"a lab has at most 200 nodes (one /24), got nodes={nodes}.")
        if node_shapes and any(not 0 <= n < nodes for n in node_shapes):
            raise ConfigError(f"lab node_shapes names nodes outside 0..{nodes - 1}.")
        self.state: LabState | None = None
        self._nodes = nodes
        self._interface = interface
        self._persistent = persistent
        base = shape or LinkShape()
        self._shapes = {n: (node_shapes or {}).get(n, base) for n in range(nodes)}
        self.has_netem = False
        self._ssh_dir: Path | None = None

    # ------------------------------------------------------------------ names and addresses

    @property
    def id(self) -> str:
        return self._require().id

    @property
    def nodes(self) -> int:
        return self._nodes

    @property
    def interface(self) -> str:
        return self._interface

    @property
    def bridge_ns(self) -> str:
        return f"{self._require().prefix}-br"

    def ns(self, node: int) -> str:
        """Namespace of node ``node``."""
        self._check_node(node)
        return f"{self._require().prefix}-n{node}"

    @property
    def namespaces(self) -> list[str]:
        """Node namespaces, node 0 first."""
        return [self.ns(n) for n in range(self._nodes)]

    def address(self, node: int) -> str:
        """Node ``node``'s lab address."""
        self._check_node(node)
        net = ipaddress.ip_network(self._require().subnet)
        return str(net.network_address + node + 1)

    @property
    def addresses(self) -> list[str]:
        return [self.address(n) for n in range(self._nodes)]

    @property
    def master_addr(self) -> str:
        return self.address(0)

    def shape_of(self, node: int) -> LinkShape:
        self._check_node(node)
        return self._shapes[node]

    # ------------------------------------------------------------------ lifecycle

    def up(self) -> Lab:
        """Create the namespaces, the switch and the shaped links; clean stale labs first."""
        require_root()
        if self.state is not None:
            return self
        cleanup_stale()
        with _claiming():  # labs built side by side take distinct subnets
            self._claim()
        self._build_or_undo()
        return self

    def _claim(self) -> None:
        lab_id = _new_id()
        me = psutil.Process()
        self.state = LabState(
            id=lab_id,
            nodes=self._nodes,
            subnet=_free_subnet(),
            interface=self._interface,
            owner_pid=me.pid,
            owner_started_at=me.create_time(),
            persistent=self._persistent,
            created_at=time.time(),
        )
        # The state file goes first: a crash half-way through leaves something to clean.
        self._write_state()
        if not self._persistent:
            _install_hooks()
            _ACTIVE[lab_id] = self

    def _build_or_undo(self) -> None:
        try:
            self._build()
        except BaseException:
            self.down()
            raise

    def _build(self) -> None:
        br = self.bridge_ns
        self._add_ns(br)
        sh(["ip", "-n", br, "link", "set", "lo", "up"])
        sh(["ip", "-n", br, "link", "add", BRIDGE, "type", "bridge"])
        sh(["ip", "-n", br, "link", "set", BRIDGE, "up"])
        self.has_netem = _probe_netem(br)
        prefix_len = ipaddress.ip_network(self._require().subnet).prefixlen
        for n in range(self._nodes):
            ns = self.ns(n)
            port = f"v{n}"
            self._add_ns(ns)
            sh(["ip", "-n", ns, "link", "set", "lo", "up"])
            sh(
                [
                    *("ip", "-n", br, "link", "add", port, "type", "veth"),
                    *("peer", "name", self._interface, "netns", ns),
                ]
            )
            sh(["ip", "-n", br, "link", "set", port, "master", BRIDGE])
            sh(["ip", "-n", br, "link", "set", port, "up"])
            sh(
                [
                    *("ip", "-n", ns, "addr", "add"),
                    f"{self.address(n)}/{prefix_len}",
                    *("dev", self._interface),
                ]
            )
            sh(["ip", "-n", ns, "link", "set", self._interface, "up"])
            self.set_shape(n, self._shapes[n])

    def _add_ns(self, name: str) -> None:
        sh(["ip", "netns", "add", name])

    def down(self) -> None:
        """Remove everything the lab made: processes in its namespaces, the namespaces, state."""
        if self.state is None:
            return
        destroy(self.state.id)
        _ACTIVE.pop(self.state.id, None)
        self.state = None
        self._ssh_dir = None

    def __enter__(self) -> Lab:
        return self.up()

    def __exit__(self, *exc: object) -> None:
        self.down()

    @classmethod
    def attach(cls, lab_id: str) -> Lab:
        """A handle on a lab made by another process (``advisor lab up``); it is not owned."""
        path = state_dir() / f"{lab_id}.json"
        if not path.exists():
            known = ", ".join(s.id for s in list_labs()) or "none"
            raise ConfigError(f"no lab {lab_id!r} (labs up: {known}); start one with `lab up`.")
        st = LabState(**json.loads(path.read_text(encoding="utf-8")))
        lab = cls(st.nodes, interface=st.interface, persistent=st.persistent)
        lab._shapes = {int(k): LinkShape(**v) for k, v in st.shapes.items()} or lab._shapes
        lab.state = st
        lab.has_netem = _probe_netem(lab.bridge_ns)
        return lab

    # ------------------------------------------------------------------ shaping and faults

    def set_shape(self, node: int, shape: LinkShape) -> None:
        """Shape node ``node``'s link in both directions (replacing any earlier shape)."""
        self._check_node(node)
        if (shape.delay_ms or shape.jitter_ms) and not self.has_netem:
            raise LabError(
                "this kernel has no netem qdisc (sch_netem): a lab link cannot add delay or "
                "jitter here; load it (`modprobe sch_netem`) or shape rate and loss only."
            )
        for ns, dev in ((self.ns(node), self._interface), (self.bridge_ns, f"v{node}")):
            sh(["tc", "-n", ns, "qdisc", "del", "dev", dev, "root"], check=False)
            _shape_dev(ns, dev, shape, netem=self.has_netem)
        # Without netem the loss is dropped by iptables inside the node, once per direction.
        self._iptables_chain(node, "adv-loss")
        if shape.loss_pct and not self.has_netem:
            p = f"{shape.loss_pct / 100:.6f}"
            for flag in ("-i", "-o"):
                self._iptables(
                    node,
                    [
                        *("-A", "adv-loss", flag, self._interface),
                        *("-m", "statistic", "--mode", "random", "--probability", p),
                        *("-j", "DROP"),
                    ],
                )
        self._shapes[node] = shape
        st = self._require()
        st.shapes = {str(n): asdict(s) for n, s in self._shapes.items()}
        self._write_state()

    def degrade(
        self, node: int, *, rate_factor: float = 0.25, delay_ms: float = 0.0, loss_pct: float = 0.0
    ) -> LinkShape:
        """Degrade node ``node``'s link: a fraction of its rate, plus delay and loss.

        An unshaped link has no rate to take a fraction of: give it a rate first.
        """
        old = self.shape_of(node)
        if rate_factor != 1.0 and not old.rate_mbit:
            raise ConfigError(
                f"lab node {node} has an unshaped link: set its rate_mbit before degrading it "
                "to a fraction of that rate."
            )
        new = LinkShape(
            rate_mbit=old.rate_mbit * rate_factor,
            delay_ms=old.delay_ms + delay_ms,
            jitter_ms=old.jitter_ms,
            loss_pct=min(99.0, old.loss_pct + loss_pct),
        )
        self.set_shape(node, new)
        return new

    def link_down(self, node: int) -> None:
        """Pull node ``node``'s cable: its switch port goes down, packets are lost silently."""
        sh(["ip", "-n", self.bridge_ns, "link", "set", f"v{self._check_node(node)}", "down"])

    def link_up(self, node: int) -> None:
        sh(["ip", "-n", self.bridge_ns, "link", "set", f"v{self._check_node(node)}", "up"])

    def set_mtu(self, node: int, mtu: int) -> None:
        """Give node ``node``'s NIC this MTU (a node set up unlike the others)."""
        if not 68 <= mtu <= 65535:
            raise ConfigError(f"lab MTU {mtu} is outside 68..65535.")
        sh(
            [
                "ip",
                "-n",
                self.ns(self._check_node(node)),
                "link",
                "set",
                self._interface,
                "mtu",
                str(mtu),
            ]
        )

    def block_ports(self, node: int, first: int, last: int | None = None) -> None:
        """Drop TCP packets arriving at node ``node`` for ports first..last (a firewall)."""
        last = first if last is None else last
        if not 0 < first <= last <= 65535:
            raise ConfigError(f"lab port range {first}..{last} is not a TCP port range.")
        self._iptables_chain(node, "adv-block", chains=("INPUT",), flush=False)
        self._iptables(
            node,
            [
                *("-A", "adv-block", "-i", self._interface, "-p", "tcp"),
                *("--dport", f"{first}:{last}", "-j", "DROP"),
            ],
        )

    def unblock_ports(self, node: int) -> None:
        self._iptables_chain(node, "adv-block", chains=("INPUT",))

    def cut_link(self, a: int, b: int) -> None:
        """Cut the link between nodes ``a`` and ``b`` only: node ``a`` drops every packet to and
        from ``b``'s address (each still reaches the other nodes)."""
        self._check_node(b)
        self._iptables_chain(a, "adv-cut", flush=False)
        peer = self.address(b)
        self._iptables(a, ["-A", "adv-cut", "-s", peer, "-j", "DROP"])
        self._iptables(a, ["-A", "adv-cut", "-d", peer, "-j", "DROP"])

    def restore_links(self, node: int) -> None:
        """Undo every ``cut_link`` made on ``node``."""
        self._iptables_chain(node, "adv-cut")

    def _iptables_chain(
        self, node: int, name: str, chains: Sequence[str] = ("INPUT", "OUTPUT"), flush: bool = True
    ) -> None:
        """Make (or empty) a chain of ours in the node's filter table, jumped to from ``chains``."""
        existing = self._iptables(node, ["-S"])
        if f"-N {name}" not in existing.splitlines():
            self._iptables(node, ["-N", name])
            for chain in chains:
                self._iptables(node, ["-A", chain, "-j", name])
        elif flush:
            self._iptables(node, ["-F", name])

    def _iptables(self, node: int, args: list[str]) -> str:
        # -w: wait for the xtables lock, which iptables-legacy takes host-wide (not per
        # namespace) and without -w exits at once when another iptables holds it (iptables(8)).
        return sh(["ip", "netns", "exec", self.ns(node), _iptables_bin(), "-w", *args])

    # ------------------------------------------------------------------ running things inside

    def start_sshd(self) -> list[str]:
        """Start an sshd in every node, on its lab address, accepting a key made for this lab;
        returns the ``launcher.ssh`` overrides that log in with it (for ``launcher=ssh``).

        The sshds live in the node namespaces, so teardown stops them with everything else.
        """
        if self._ssh_dir is None:
            self._ssh_dir = Path(tempfile.mkdtemp(prefix=f"{self._require().prefix}-ssh-"))
            d = self._ssh_dir
            for key in ("host_key", "id"):
                sh(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(d / key)])
            (d / "authorized_keys").write_text((d / "id.pub").read_text(), encoding="utf-8")
            Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege-separation directory
            for n in range(self._nodes):
                conf = d / f"sshd_n{n}.conf"
                conf.write_text(
                    "\n".join(
                        [
                            f"ListenAddress {self.address(n)}",
                            f"HostKey {d / 'host_key'}",
                            f"AuthorizedKeysFile {d / 'authorized_keys'}",
                            "PermitRootLogin prohibit-password",
                            "PasswordAuthentication no",
                            "StrictModes no",
                            "UsePAM no",
                            "PidFile none",
                            "",
                        ]
                    ),
                    encoding="utf-8",
                )
                subprocess.Popen(
                    self.exec_argv(n, [_sshd_bin(), "-D", "-e", "-f", str(conf)]),
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                    stdin=subprocess.DEVNULL,
                    start_new_session=True,
                )
            for n in range(self._nodes):
                _wait_listening(self, n, 22)
        options = [
            "BatchMode=yes",
            "ConnectTimeout=10",
            "StrictHostKeyChecking=no",
            "UserKnownHostsFile=/dev/null",
            "LogLevel=ERROR",
        ]
        return [
            f"launcher.ssh.identity_file={self._ssh_dir / 'id'}",
            # Quoted: Hydra's grammar reads a bare '=' inside a list element as an error.
            "launcher.ssh.options=[" + ",".join(f"'{o}'" for o in options) + "]",
        ]

    def exec_argv(self, node: int, argv: Sequence[str]) -> list[str]:
        """``argv`` run inside node ``node``'s namespace."""
        return ["ip", "netns", "exec", self.ns(node), *argv]

    def pids(self, node: int) -> list[int]:
        """Processes living in node ``node``'s namespace."""
        return _ns_pids(self.ns(node))

    def overrides(self, *, absent_nodes: Sequence[int] = ()) -> list[str]:
        """Hydra overrides that run the advisor's cluster on this lab (launcher=local, netns).

        ``absent_nodes`` get a namespace that does not exist: their agent's ``ip netns exec``
        exits at once, as a node that never comes up.
        """
        netns = [
            f"{self.ns(n)}-absent" if n in absent_nodes else self.ns(n) for n in range(self._nodes)
        ]
        return [*self.cluster_overrides(), f"launcher.netns=[{','.join(netns)}]"]

    def cluster_overrides(self) -> list[str]:
        """The cluster part: nodes, their addresses, the master and the NIC to use."""
        return [
            f"cluster.nodes={self._nodes}",
            f"cluster.hosts=[{','.join(self.addresses)}]",
            f"cluster.master_addr={self.master_addr}",
            f"cluster.interface={self._interface}",
        ]

    def advisor_commands(
        self,
        args: Sequence[str],
        run_dir: Path,
        *,
        launcher: str = "local",
        absent_nodes: Sequence[int] = (),
        python: str = "",
        node_env: Mapping[int, Mapping[str, str]] | None = None,
    ) -> list[list[str]]:
        """Command lines that run ``advisor run ARGS`` on the lab.

        local: one advisor in this namespace starts every node's agent in its namespace.
        torchrun: one advisor per node, inside that node's namespace, sharing ``run_dir``; node
        ranks are fixed, and they meet at node 0's address. ssh: one advisor inside node 0's
        namespace (a login node that is node 0) starting each node's agent over ssh to the sshd
        of that node (``start_sshd`` first). A node in ``absent_nodes`` never starts its advisor
        (torchrun) or its agent (local). ``node_env`` (torchrun only): variables set in one
        node's advisor environment alone (a node set up unlike the others).
        """
        if node_env and launcher != "torchrun":
            raise LabError(
                "node_env needs launcher=torchrun: one advisor, and environment, per node."
            )
        exe = [python or sys.executable, "-m", "advisor", "run"]
        tail = [*args, f"hydra.run.dir={run_dir}"]
        if launcher == "local":
            return [[*exe, *self.overrides(absent_nodes=absent_nodes), *tail]]
        if launcher == "ssh":
            if self._ssh_dir is None:
                raise LabError("launcher=ssh on the lab needs start_sshd() first.")
            ssh_args = [*self.cluster_overrides(), "launcher=ssh", *self.start_sshd()]
            return [self.exec_argv(0, [*exe, *ssh_args, *tail])]
        if launcher != "torchrun":
            raise ConfigError(f"lab launcher={launcher!r} must be local, torchrun or ssh.")
        out = []
        for n in range(self._nodes):
            if n in absent_nodes:
                continue
            node_args = [
                *self.cluster_overrides(),
                "launcher=torchrun",
                f"launcher.node_rank={n}",
                f"launcher.rdzv_endpoint={self.master_addr}:{MASTER_PORT}",
            ]
            extra = [f"{k}={v}" for k, v in sorted((node_env or {}).get(n, {}).items())]
            env_argv = ["env", *extra] if extra else []
            out.append(self.exec_argv(n, [*env_argv, *exe, *node_args, *tail]))
        return out

    # ------------------------------------------------------------------ internals

    def _require(self) -> LabState:
        if self.state is None:
            raise LabError("the lab is not up: call up() or use it as a context manager.")
        return self.state

    def _check_node(self, node: int) -> int:
        if not 0 <= node < self._nodes:
            raise ConfigError(f"lab node {node} is outside 0..{self._nodes - 1}.")
        return node

    def _write_state(self) -> None:
        st = self._require()
        d = state_dir()
        d.mkdir(parents=True, exist_ok=True)
        tmp = d / f".{st.id}.json.tmp"
        tmp.write_text(json.dumps(asdict(st), indent=2), encoding="utf-8")
        tmp.replace(d / f"{st.id}.json")


# ---------------------------------------------------------------------------- module helpers


def _shape_dev(ns: str, dev: str, shape: LinkShape, *, netem: bool) -> None:
    tc = ["tc", "-n", ns]
    emulate = netem and (shape.delay_ms or shape.loss_pct)
    netem_args = ["netem", "limit", "100000"]
    if shape.delay_ms:
        netem_args += ["delay", f"{shape.delay_ms}ms"]
        if shape.jitter_ms:
            netem_args += [f"{shape.jitter_ms}ms"]
    if shape.loss_pct:
        netem_args += ["loss", f"{shape.loss_pct}%"]
    if shape.rate_mbit:
        rate = f"{shape.rate_mbit:g}mbit"
        sh([*tc, "qdisc", "add", "dev", dev, "root", "handle", "1:", "htb", "default", "10"])
        # One class, so the quantum only needs to cover an MTU-sized packet; the default
        # (rate / r2q) is far too large at Gbit rates and makes tc warn.
        sh(
            [
                *tc,
                *("class", "add", "dev", dev, "parent", "1:", "classid", "1:10", "htb"),
                *("rate", rate, "ceil", rate, "quantum", "60000"),
            ]
        )
        if emulate:
            sh([*tc, "qdisc", "add", "dev", dev, "parent", "1:10", "handle", "10:", *netem_args])
    elif emulate:
        sh([*tc, "qdisc", "add", "dev", dev, "root", "handle", "10:", *netem_args])


def _sshd_bin() -> str:
    found = shutil.which("sshd") or ("/usr/sbin/sshd" if Path("/usr/sbin/sshd").exists() else "")
    if not found:
        raise LabError("sshd is not installed: install Debian's openssh-server for launcher=ssh.")
    return found


def _wait_listening(lab: Lab, node: int, port: int, timeout_s: float = 10.0) -> None:
    """Wait until something listens on the node's address:port (checked inside the node)."""
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        out = sh(lab.exec_argv(node, ["ss", "-Hltn", f"sport = :{port}"]), check=False)
        if lab.address(node) in out:
            return
        time.sleep(0.1)
    raise LabError(f"sshd on lab node {node} ({lab.address(node)}:{port}) did not start.")


def _probe_netem(ns: str) -> bool:
    """Whether this kernel has netem (tried on the namespace's loopback, then removed)."""
    ok = (
        subprocess.run(
            ["tc", "-n", ns, "qdisc", "add", "dev", "lo", "root", "netem", "delay", "0ms"],
            capture_output=True,
            check=False,
        ).returncode
        == 0
    )
    if ok:
        sh(["tc", "-n", ns, "qdisc", "del", "dev", "lo", "root"], check=False)
    return ok


_IPTABLES: str | None = None


def _iptables_bin() -> str:
    """iptables (nftables backend) where the kernel has it, else iptables-legacy."""
    global _IPTABLES
    if _IPTABLES is None:
        _IPTABLES = "iptables"
        for candidate in ("iptables", "iptables-legacy"):
            try:
                rc = subprocess.run(
                    [candidate, "-S"], capture_output=True, check=False, timeout=10
                ).returncode
            except FileNotFoundError:
                continue
            if rc == 0:
                _IPTABLES = candidate
                break
    return _IPTABLES


def _new_id() -> str:
    taken = {m.group("id") for name in list_namespaces() if (m := _NAME_RE.match(name))}
    while True:
        lab_id = secrets.token_hex(3)
        if lab_id not in taken and not (state_dir() / f"{lab_id}.json").exists():
            return lab_id


def _free_subnet() -> str:
    """A /24 of SUBNET_BASE no other lab uses (labs are isolated anyway; distinct subnets keep
    their addresses unambiguous in logs and facts)."""
    used = {s.subnet for s in list_labs()}
    for net in ipaddress.ip_network(SUBNET_BASE).subnets(new_prefix=24):
        if str(net) not in used and net.network_address.packed[2] != 0:
            return str(net)
    raise LabError(f"every /24 of {SUBNET_BASE} is used by a lab: run `advisor lab down --all`.")


def list_namespaces() -> list[str]:
    """Names of every network namespace on this host (``ip netns list``)."""
    out = sh(["ip", "netns", "list"], check=False)
    return [line.split()[0] for line in out.splitlines() if line.strip()]


def list_labs() -> list[LabState]:
    """Labs with a state file (up, or crashed and not yet cleaned)."""
    d = state_dir()
    labs = []
    for path in sorted(d.glob("*.json")) if d.exists() else []:
        try:
            labs.append(LabState(**json.loads(path.read_text(encoding="utf-8"))))
        except (OSError, ValueError, TypeError):
            continue
    return labs


def lab_namespaces(lab_id: str) -> list[str]:
    return [n for n in list_namespaces() if (m := _NAME_RE.match(n)) and m.group("id") == lab_id]


def _ns_pids(ns: str) -> list[int]:
    out = sh(["ip", "netns", "pids", ns], check=False)
    return [int(p) for p in out.split() if p.isdigit()]


def _owner_alive(st: LabState) -> bool:
    try:
        p = psutil.Process(st.owner_pid)
        return abs(p.create_time() - st.owner_started_at) < 1.0 and p.status() != "zombie"
    except psutil.Error:
        return False


def destroy(lab_id: str) -> list[str]:
    """Remove a lab: kill what runs in its namespaces, delete them, drop its state file.

    Deleting a node namespace deletes its veth and so the peer switch port too; processes inside
    (agents, ranks, a lab sshd) are killed first. Returns the namespaces removed.
    """
    names = lab_namespaces(lab_id)
    # Nodes first, then the switch: processes go before their namespace, or the namespace
    # would outlive its name while they hold it.
    names.sort(key=lambda n: n.endswith("-br"))
    survivors: list[str] = []
    for ns in names:
        procs = []
        for pid in _ns_pids(ns):
            with contextlib.suppress(psutil.Error):
                procs.append(psutil.Process(pid))
        for p in procs:
            with contextlib.suppress(psutil.Error):
                p.kill()
        psutil.wait_procs(procs, timeout=5)
        survivors += [f"pid {pid} in {ns}" for pid in _ns_pids(ns)]
        sh(["ip", "netns", "del", ns], check=False)
    (state_dir() / f"{lab_id}.json").unlink(missing_ok=True)
    # The keys start_sshd made for this lab.
    for d in Path(tempfile.gettempdir()).glob(f"{PREFIX}{lab_id}-ssh-*"):
        shutil.rmtree(d, ignore_errors=True)
    if survivors:
        # a namespace lives on, nameless, while a process holds it
        raise LabError(
            f"lab {lab_id}: processes outlived SIGKILL and hold its namespaces: "
            f"{', '.join(survivors)}"
        )
    return names


def cleanup_stale() -> list[str]:
    """Remove labs whose owner is gone (a crashed test run, a killed advisor): by the ``adv-``
    name prefix, whether or not a state file survived. Persistent labs stay until ``lab down``.
    Returns the ids removed."""
    # Namespaces first, state files second: a lab writes its state file before its first
    # namespace, so a lab being built now is never taken for an orphan (the other order let a
    # concurrent lab's new namespaces be destroyed under it).
    seen = {m.group("id") for n in list_namespaces() if (m := _NAME_RE.match(n))}
    states = {s.id: s for s in list_labs()}
    ids = seen | set(states)
    removed = []
    for lab_id in sorted(ids):
        st = states.get(lab_id)
        if st is not None and (st.persistent or _owner_alive(st)):
            continue
        destroy(lab_id)
        removed.append(lab_id)
    return removed


def _teardown_all() -> None:
    for lab in list(_ACTIVE.values()):
        if lab.state is not None and lab.state.owner_pid == os.getpid():
            with contextlib.suppress(Exception):
                lab.down()


def _on_signal(signum: int, frame: FrameType | None) -> None:
    _teardown_all()
    previous = _PREVIOUS_HANDLERS.get(signum)
    if callable(previous):
        previous(signum, frame)
        return
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _install_hooks() -> None:
    global _HOOKS_INSTALLED
    if _HOOKS_INSTALLED:
        return
    _HOOKS_INSTALLED = True
    atexit.register(_teardown_all)
    # Signal handlers can only be set from the main thread; elsewhere atexit and the next
    # lab's stale cleanup still cover us.
    if threading.current_thread() is threading.main_thread():
        for sig in (signal.SIGTERM, signal.SIGHUP):
            _PREVIOUS_HANDLERS[sig] = signal.getsignal(sig)
            signal.signal(sig, _on_signal)
