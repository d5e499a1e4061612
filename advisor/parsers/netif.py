"""A host's network interfaces as ``ip link`` / ``ip addr`` (iproute2, also ``-br`` and ``-s``)
and ``ifconfig`` (Linux net-tools in its old and new layouts, FreeBSD's) print them.

What an ops engineer reads in them before a job: which interfaces are up, which have a link
(a carrier), their addresses and MTU, and their error and drop counters.

- iproute2 (ip/ipaddress.c, ``print_link_flags``): ``2: eth0: <NO-CARRIER,BROADCAST,MULTICAST,UP>
  mtu 1500 qdisc mq state DOWN ...``; ``NO-CARRIER`` is printed where the interface is
  administratively up (``IFF_UP``) but not running (no ``IFF_RUNNING``: the driver has no
  carrier); ``LOWER_UP`` is the driver's layer-1 up; ``state`` is the RFC 2863 operational state
  (UNKNOWN, NOTPRESENT, DOWN, LOWERLAYERDOWN, TESTING, DORMANT, UP). ``-s`` adds ``RX: bytes
  packets errors dropped ...`` and ``TX: bytes packets errors dropped carrier collsns`` rows; ``-br``
  prints one line an interface: name, state, then the link address and flags (``link``) or the
  addresses (``addr``).
- net-tools ifconfig, new layout: ``eth0: flags=4163<UP,BROADCAST,RUNNING,MULTICAST>  mtu 1500``
  then ``inet``, ``ether``, ``RX errors 0  dropped 0 ...`` lines; old layout: ``eth0      Link
  encap:Ethernet  HWaddr ...`` then ``UP BROADCAST RUNNING MULTICAST  MTU:1500``; in both, ``UP``
  without ``RUNNING`` is an interface up with no carrier.
- FreeBSD ifconfig: ``mce0: flags=8843<UP,...> metric 0 mtu 1500`` then ``media: ...`` and
  ``status: active`` or ``status: no carrier``; NVIDIA's FreeBSD mlx5en driver puts the firmware's
  port-down reason after it (``status: no carrier (FEC sync loss)``, its manual's "Port Down State
  Diagnostics"). A copy flattened to one line (a web page's text) is read the same way.

An interface the administrator left down is said, not judged, unless it is a devlink-named port
of a data-path NIC (``Interface.devlink_port``: ConnectX's ``ens13f0np0``), left down after a
boot; one that is up with no carrier is a link that is down (``Interface.no_carrier``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TypeVar

from advisor.parsers import MARKED_PROMPT_HOST_RE, PDSH_HOST, ParseError, pdsh_by_host

VIRTUAL_IFACE_RE = re.compile(
    r"^(?:veth|cali|docker|br-|virbr|cni|flannel|vxlan|tun|tap|lo\d*$|kube-|weave|cilium|lxc|"
    r"genev|wg|gre|ipvlan|macvtap|dummy|bond\d+\.|sit\d|ip6tnl|ip_vti|ip6_vti|erspan|teql|usb|wl|"
    # bridges, up with no carrier while no port (no container, no VM) is attached to them:
    # podman's, LXD's and Incus's, kubenet's cbr0, Proxmox's vmbr, nerdctl's, a plain brN
    r"podman\d|lxdbr|incusbr|cbr\d|vmbr|nerdctl|br\d)"
)
"""Interfaces whose carrier says nothing of a training link: virtual ones, whose carrier comes
and goes with the containers, bridges and tunnels they serve (a pod's veth pair, Calico's cali*,
Docker's bridge, the kernel's sit0 placeholder; a bridge with no port attached has no carrier by
design), and wireless ones (wlan0, wlp2s0)."""

# a name whose last part is a physical port's devlink name, "np0", "np1" (a split port "np0s1"):
# systemd's predictable names end in "n<phys_port_name>" where the driver gives one
# (systemd.net-naming-scheme(7): "[P<domain>]p<bus>s<slot>[f<function>][n<phys_port_name>|
# d<dev_port>]"), and the kernel's devlink names a physical port "p<number>" (net/devlink
# __devlink_port_phys_port_name_get, DEVLINK_PORT_FLAVOUR_PHYSICAL; mlx5's ConnectX and
# BlueField Ethernet ports register one, en/devlink.c mlx5e_devlink_port_register, as do
# Netronome's nfp ports, nfp_port.c "p%d"): a data-path NIC's port, not an onboard
# management port (eno1) nor a plain driver's (eth1)
DEVLINK_PORT_NAME_RE = re.compile(r"^(?:en|eth)[\w-]{0,24}?np\d{1,3}(?:s\d{1,3})?$")
# the same name less its "f<function>" and "n<phys_port_name>" parts: the card's slot or bus
# ("ens13f1np1" -> "ens13", "enp15s0f1np1" -> "enp15s0"): two ports with the same are functions
# of one PCI device, one card (systemd.net-naming-scheme(7): "s<slot>[f<function>]",
# "p<bus>s<slot>[f<function>]")
_PORT_OF_CARD_RE = re.compile(r"(?:f\d{1,3})?np\d{1,3}(?:s\d{1,3})?$")

_OPER_STATES = "UP|DOWN|UNKNOWN|LOWERLAYERDOWN|DORMANT|NOTPRESENT|TESTING"
_IP_HEAD = r"\d+: (?P<name>[\w.:-]+)(?:@[\w.:-]+)?: <(?P<flags>[A-Z0-9_,-]*)> mtu (?P<mtu>\d+)"
_IFCONFIG_HEAD = (
    r"(?P<name>[\w.:-]+): flags=[0-9a-fA-F]+<(?P<flags>[A-Z0-9_,]*)>"
    r"(?:[ \t]+metric[ \t]+\d+)?[ \t]+mtu[ \t]+(?P<mtu>\d+)"
)
_BRIEF = (
    rf"(?P<name>[\w.:-]+)(?:@[\w.:-]+)?[ \t]+(?P<state>{_OPER_STATES})[ \t]+"
    r"(?:(?P<mac>[0-9a-f]{2}(?::[0-9a-f]{2}){5,19})[ \t]+<(?P<flags>[A-Z0-9_,-]*)>"
    r"|(?P<addrs>(?:(?:\d{1,3}\.){3}\d{1,3}|[0-9a-f]*:[0-9a-f:]*)/\d{1,3}(?:[ \t]+\S+/\d{1,3})*))"
    r"[ \t]*$"
)
# (-br addr's interface with no address: only its name and state, read among lines of the form)
_BRIEF_BARE_RE = re.compile(
    rf"^(?P<name>[\w.:-]+)(?:@[\w.:-]+)?[ \t]+(?P<state>{_OPER_STATES})[ \t]*$"
)

SIGNATURE = re.sub(
    r"\(\?P<\w+>",
    "(?:",
    rf"^[ \t]*{_IP_HEAD}"
    # (ifconfig's header may stand after a prompt, or mid-line where a page flattened the copy)
    rf"|(?:^|[ \t]){_IFCONFIG_HEAD}"
    r"|^[\w.:-]+[ \t]+Link encap:[ \t]*\w"
    # (-br's state with the space after it: a word the fast pre-test can look for, "UP " too)
    + "|^"
    + _BRIEF.replace(
        rf"(?P<state>{_OPER_STATES})[ \t]+", "(?:" + _OPER_STATES.replace("|", " |") + r" )[ \t]*"
    ),
)
_IP_HEAD_RE = re.compile(rf"^\s*{_IP_HEAD}(?P<rest>.*)$")
_IFCONFIG_HEAD_RE = re.compile(rf"(?:^|(?<=\s)){_IFCONFIG_HEAD}")
# net-tools' "eth0      Link encap:Ethernet  HWaddr ..." (a paste may keep one space of the run)
_OLD_HEAD_RE = re.compile(
    r"^(?P<name>[\w.:-]+)\s+Link encap:\s*(?P<encap>\w[\w -]*?)(?=\s+HWaddr\b|\s{2,}|\s*$)"
)
_BRIEF_RE = re.compile(rf"^{_BRIEF}")
_STATE_RE = re.compile(rf"\bstate ({_OPER_STATES})\b")
# a shell prompt that names its host ("[root@node1 ~]# ip link", "user@gpu-03:~$ ifconfig")
# (ssh's options that take an argument, "-p 2222", "-o Key=value", "-i key", skipped; a host is
# a name that starts with a letter or a digit and is not all digits)
_REMOTE_RUN_RE = re.compile(
    r"^\s*(?:ssh(?:\s+(?:-[bcDEeFIiJLlmOopQRSWw]\s*\S+|-[A-Za-z]+))*\s+(?:[\w.-]+@)?"
    r"|(?:pdsh|srun)\s+(?:-\S+\s+)*?-w\s*)"
    r"(?P<host>(?!\d+\s)[A-Za-z0-9][\w.-]*)\s+\S"
)
_LINK_RE = re.compile(r"^\s*link/(?P<type>\w+)(?:\s+(?P<mac>[0-9a-f]{2}(?::[0-9a-f]{2})+))?")
_INET_RE = re.compile(
    r"(?:^|\s)inet6?\s+(?:addr:\s*)?(?P<addr>(?:\d{1,3}\.){3}\d{1,3}(?:/\d+)?"
    r"|[0-9a-fA-F]*:[0-9a-fA-F:]*(?:%[\w.]+)?(?:/\d+)?)"
)
_ETHER_RE = re.compile(
    r"(?:^|\s)(?:ether|HWaddr|lladdr)\s+(?P<mac>[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2})+)"
)
_OLD_FLAGS_RE = re.compile(r"^\s*(?P<flags>(?:[A-Z]+ )*[A-Z]+)\s+MTU:(?P<mtu>\d+)")
_BSD_STATUS_RE = re.compile(
    r"(?:^|\s)status:\s*(?P<status>active|no carrier|no network|inactive|inserted|associated|running)"
    r"(?:\s*\((?P<reason>[^)\n]*)\))?"
)
_MEDIA_RE = re.compile(r"(?:^|\s)media:[ \t]*(?P<media>[^\n]*)")
# (linear time on a long run: a match starts where its run starts, not at each character of a long
# one)
_BEFORE_STATUS_RE = re.compile(r"(?<!\s)\s+status:")
# net-tools: "RX errors 0  dropped 0  overruns 0  frame 0" / old "RX packets:1 errors:0 dropped:0"
_TOOL_COUNTERS_RE = re.compile(r"^\s*(?P<dir>RX|TX)\b(?P<rest>.*\berrors\b.*)$")
_COUNTER_RE = re.compile(r"\b(?P<what>errors|dropped):?\s*(?P<n>\d+)")
# net-tools' packet counts: "RX packets 0  bytes 0 (0.0 B)" / old "RX packets:1 errors:0 ..."
_TOOL_PACKETS_RE = re.compile(r"^\s*(?P<dir>RX|TX) packets:?[ \t]*(?P<n>\d+)\b")
# iproute2 -s: a heading row then the figures under it; -s -s adds "RX errors: length crc
# frame fifo missed" and "TX errors: aborted fifo window heartbeat" rows (ip/ipaddress.c
# print_link_stats64; newer iproute2 prints "missed" in the first row and "overrun" in the
# second, so each figure is taken by its heading's word)
_STATS_HEAD_RE = re.compile(
    r"^\s*(?P<dir>RX|TX):\s+(?P<cols>bytes\s+packets\s+errors\s+dropped.*)$"
    r"|^\s*(?P<dir2>RX|TX) errors:(?P<cols2>(?:[ \t]+[a-z]+){1,10})[ \t]*$"
)
# the rows' words that count packets lost or in error (bytes, packets, mcast and compressed
# count what went through: not kept as errors). Linux include/uapi/linux/if_link.h
# rtnl_link_stats64: rx_missed_errors, packets the device dropped for lack of buffer space (the
# host not keeping up); rx_over_errors ("overrun"), the receive ring's overflow; rx_fifo_errors
# (iproute2 ip/ipaddress.c print_link_stats64 heads -s -s's "TX errors:" row "aborted fifo
# window heartbt transns": "heartbt" is tx_heartbeat_errors, an error; "transns" is the link's
# carrier_changes (IFLA_CARRIER_CHANGES, its JSON key "carrier_changes"), the times the carrier
# went up or down, printed there only where the kernel gives it: no packet lost nor in error, an
# interface that came up once already counts 1 or 2, so not among them)
_STATS_ERROR_WORDS = frozenset(
    ("errors", "dropped", "overrun", "missed", "length", "crc", "frame", "fifo", "carrier",
     "collsns", "aborted", "window", "heartbt", "heartbeat", "nohandler", "otherhost")
)  # fmt: skip
# a header that a page wrapped: "6: eth4: <...> mtu 1500 qdisc mq " then, unindented, "state UP
# qlen 1000" (the rest of iproute2's header line)
_WRAPPED_HEAD_REST_RE = re.compile(
    r"^(?:state (?P<state>[A-Z]+)\b|qlen \d+|group \S+|mode \S+|link-netnsid \d+)"
)


@dataclass(kw_only=True)
class Interface:
    line: int
    name: str
    host: str | None = None
    """The host a shell prompt above named (``[root@node1 ~]#``), where the copy holds one."""
    tool: str
    """``ip``, ``ip -br``, ``ifconfig`` or ``ifconfig (FreeBSD)``."""
    flags: tuple[str, ...] = ()
    operstate: str | None = None
    """iproute2's RFC 2863 state (``-br``'s column too); None where the tool prints none."""
    mtu: int | None = None
    link_type: str | None = None
    """iproute2's ``link/ether``, ``link/infiniband`` ...; net-tools' ``Link encap:``."""
    mac: str | None = None
    addresses: list[str] = field(default_factory=list)
    media: str | None = None
    status: str | None = None
    """FreeBSD's ``status:`` word (``active``, ``no carrier``)."""
    reason: str | None = None
    """What FreeBSD's driver put after its status (``FEC sync loss``)."""
    errors: dict[str, int] = field(default_factory=dict)
    """``rx_errors``, ``rx_dropped``, ``tx_errors``, ``tx_dropped`` where printed; iproute2's
    ``-s -s`` rows add ``rx_overrun``, ``rx_missed``, ``rx_crc`` ... (by their heading's word)."""
    rx_packets: int | None = None
    """iproute2 ``-s``'s (or ifconfig's) RX packets, where printed."""
    tx_packets: int | None = None
    """iproute2 ``-s``'s (or ifconfig's) TX packets, where printed."""
    packet_lines: dict[str, int] = field(default_factory=dict)
    """The line ``rx_packets`` and ``tx_packets`` were read from (by "rx" / "tx")."""
    error_lines: dict[str, int] = field(default_factory=dict)
    """The line each counter of ``errors`` was read from (iproute2's figures row)."""

    @property
    def admin_up(self) -> bool | None:
        if self.flags or (self.tool.startswith("ifconfig") and self.mtu is not None):
            # (ifconfig's "flags=0<>": nothing set, down; net-tools' flags line, which holds
            # the MTU, may be missing from a copy: then the state is not shown)
            return "UP" in self.flags
        return None if self.operstate in (None, "UNKNOWN") else True

    @property
    def no_carrier(self) -> bool:
        """Up, yet no link: iproute2's NO-CARRIER, ifconfig's UP without RUNNING, FreeBSD's
        ``status: no carrier``, or ``-br``'s DOWN/LOWERLAYERDOWN with UP among its flags."""
        if self.status is not None:
            # (macOS and FreeBSD say an unplugged port "inactive")
            return self.status in ("no carrier", "inactive") and "UP" in self.flags
        if "NO-CARRIER" in self.flags:
            return True
        if self.tool.startswith("ifconfig") and "UP" in self.flags:
            return "RUNNING" not in self.flags and "LOOPBACK" not in self.flags
        return (
            self.tool == "ip -br"
            and self.operstate in ("DOWN", "LOWERLAYERDOWN")
            and ("UP" in self.flags)
        )

    @property
    def devlink_port(self) -> bool:
        """A physical port of a NIC whose driver names it through devlink (``np0``:
        ``DEVLINK_PORT_NAME_RE``), the RDMA-class NICs a training job's traffic runs over."""
        return not self.virtual and DEVLINK_PORT_NAME_RE.match(self.name) is not None

    @property
    def card(self) -> str | None:
        """The card a devlink-named port is a function of (``_PORT_OF_CARD_RE``), with its
        host; None for any other interface."""
        if not self.devlink_port:
            return None
        return f"{self.host or ''}/{_PORT_OF_CARD_RE.sub('', self.name)}"

    @property
    def link_up(self) -> bool:
        """Brought up with its link up (UP and LOWER_UP, or ifconfig's RUNNING)."""
        return self.admin_up is True and ("LOWER_UP" in self.flags or "RUNNING" in self.flags)

    @property
    def virtual(self) -> bool:
        return (
            bool(VIRTUAL_IFACE_RE.match(self.name))
            or self.link_type in ("loopback", "none", "void")
            or (self.link_type or "").startswith("Local")
            or "LOOPBACK" in self.flags
        )


def _counters(iface: Interface, direction: str, text: str) -> None:
    for m in _COUNTER_RE.finditer(text):
        iface.errors.setdefault(f"{direction.lower()}_{m.group('what')}", int(m.group("n")))


def _flattened(text: str) -> list[tuple[int, str]]:
    """The lines of ``text`` numbered, a line holding several ifconfig headers (a flattened copy)
    split before each."""
    out: list[tuple[int, str]] = []
    for no, raw in enumerate(text.splitlines(), 1):
        # (Markdown's inline code marks around a pasted block: "`10: bond1: <...>", "... 0 `")
        line = raw[1:] if raw.startswith("`") and not raw.startswith("``") else raw
        line = (
            line.rstrip().removesuffix("`")
            if line.rstrip().endswith(" `") or (line is not raw and line.rstrip().endswith("`"))
            else line
        )
        heads = [m.start("name") for m in _IFCONFIG_HEAD_RE.finditer(line)]
        if not heads:
            out.append((no, line))
            continue
        if line[: heads[0]].strip():
            out.append((no, line[: heads[0]]))
        for a, b in zip(heads, [*heads[1:], len(line)], strict=True):
            out.append((no, line[a:b]))
    return out


# the flag bits a listing has no name for, printed in hex glued to the last name (busybox's ip
# and iproute2's print_link_flags: "<BROADCAST,MULTICAST,UP,LOWER_UP800>", 0x800 a bond's port)
_GLUED_HEX_FLAG_RE = re.compile(r"^(?P<name>[A-Z][A-Z_-]*[A-Z])(?P<hex>[0-9a-f]+)$")


def _ip_flags(said: str) -> tuple[str, ...]:
    """An ip listing's flags, the unnamed bits glued to the last name taken off."""
    flags = [f for f in said.split(",") if f]
    if flags and (g := _GLUED_HEX_FLAG_RE.match(flags[-1])):
        flags[-1] = g.group("name")
    return tuple(flags)


def parse(text: str) -> list[Interface]:
    """Each interface's block; ParseError when no interface is found. A copy sent through pdsh
    (every line "host: ", ``pdsh -w azhpc21 ifconfig ib0``) is read per host with the prefix
    taken off, each interface named for its host: anchored line readers (the RX/TX counters)
    would miss its lines otherwise."""
    parts = pdsh_by_host(text)
    if len(parts) == 1 and parts[0][0] is None:
        return _parse(text, None)
    found: list[Interface] = []
    for pdsh_host, part in parts:
        try:
            found.extend(_parse(part, pdsh_host))
        except ParseError:
            continue  # (a host whose lines hold no interface: pdsh's own or an error)
    if not found:
        raise ParseError("no network interface (ip link / ip addr / ifconfig) found")
    return found


def _parse(text: str, host: str | None) -> list[Interface]:
    """``parse`` of one host's copy; ``host``: the host pdsh named, None where none did."""
    found: list[Interface] = []
    current: Interface | None = None
    stats_dir: str | None = None
    stats_cols: list[str] = []
    for no, line in _flattened(text):
        if p := MARKED_PROMPT_HOST_RE.match(line):
            host, current = p.group("host"), None
            # (a command run on another host from this prompt: "ssh gpu02 ip -br link")
            if r := _REMOTE_RUN_RE.search(line[p.end() :]):
                host = r.group("host")
            continue
        if stats_dir is not None:
            figures = line.split()
            if (
                figures
                and all(f.isascii() and f.isdigit() for f in figures)
                and current is not None
            ):
                # bytes packets errors dropped ... (heading order)
                for word, figure in zip(stats_cols, figures, strict=False):
                    # (-s's errors and dropped always; -s -s's detail where not 0)
                    if word in ("errors", "dropped") or (
                        word in _STATS_ERROR_WORDS and int(figure)
                    ):
                        current.errors[f"{stats_dir}_{word}"] = int(figure)
                        current.error_lines[f"{stats_dir}_{word}"] = no
                    elif word == "packets" and stats_dir == "rx":
                        current.rx_packets = int(figure)
                        current.packet_lines["rx"] = no
                    elif word == "packets" and stats_dir == "tx":
                        current.tx_packets = int(figure)
                        current.packet_lines["tx"] = no
                stats_dir = None
                continue
            stats_dir = None
        if m := _IP_HEAD_RE.match(line):
            flags = _ip_flags(m.group("flags"))
            state = _STATE_RE.search(m.group("rest"))
            current = Interface(
                line=no,
                name=m.group("name"),
                host=host,
                tool="ip",
                flags=flags,
                mtu=int(m.group("mtu")),
                operstate=state.group(1) if state else None,
            )
            found.append(current)
            continue
        if m := _IFCONFIG_HEAD_RE.match(line):
            current = Interface(
                line=no,
                name=m.group("name"),
                host=host,
                tool="ifconfig",
                flags=tuple(f for f in m.group("flags").split(",") if f),
                mtu=int(m.group("mtu")),
            )
            found.append(current)
            rest = line[m.end() :]
            _fields(current, rest)
            continue
        if m := _OLD_HEAD_RE.match(line):
            current = Interface(
                line=no,
                name=m.group("name"),
                host=host,
                tool="ifconfig",
                link_type=m.group("encap").strip(),
            )
            found.append(current)
            _fields(current, line[m.end("encap") :])
            continue
        if (m := _BRIEF_RE.match(line)) or (
            any(f.tool == "ip -br" for f in found) and (m := _BRIEF_BARE_RE.match(line))
        ):
            current = None
            found.append(
                Interface(
                    line=no,
                    name=m.group("name"),
                    host=host,
                    tool="ip -br",
                    operstate=m.group("state"),
                    flags=tuple(f for f in (m.groupdict().get("flags") or "").split(",") if f),
                    mac=m.groupdict().get("mac"),
                    addresses=(m.groupdict().get("addrs") or "").split(),
                )
            )
            continue
        if current is None or not line.strip():
            if not line.strip() and current is not None and current.tool != "ip":
                current = None
            continue
        if (
            not line[:1].isspace()
            and current.tool == "ip"
            and no == current.line + 1
            and (w := _WRAPPED_HEAD_REST_RE.match(line)) is not None
        ):
            current.operstate = current.operstate or w.group("state")
            continue
        if not line[:1].isspace() and current.tool == "ip":
            current = None  # an unindented line of something else ends iproute2's block
            continue
        if (s := _STATS_HEAD_RE.match(line)) is not None:
            stats_dir = (s.group("dir") or s.group("dir2")).lower()
            stats_cols = (s.group("cols") or s.group("cols2")).split()
            continue
        if (k := _LINK_RE.match(line)) is not None:
            current.link_type, current.mac = k.group("type"), k.group("mac") or current.mac
            continue
        if (o := _OLD_FLAGS_RE.match(line)) is not None:
            current.flags, current.mtu = tuple(o.group("flags").split()), int(o.group("mtu"))
            continue
        if (pk := _TOOL_PACKETS_RE.match(line)) is not None:
            if pk.group("dir") == "RX":
                current.rx_packets = int(pk.group("n"))
            else:
                current.tx_packets = int(pk.group("n"))
            current.packet_lines[pk.group("dir").lower()] = no
            if _TOOL_COUNTERS_RE.match(line) is None:
                continue  # (the new layout's packets line holds its bytes only)
        if (c := _TOOL_COUNTERS_RE.match(line)) is not None:
            _counters(current, c.group("dir"), c.group("rest"))
            continue
        _fields(current, line)
    if not found:
        raise ParseError("no network interface (ip link / ip addr / ifconfig) found")
    return _merged(found)


def _carries(i: Interface) -> bool | None:
    """Whether an interface's link is up (True), down (False), or its state not shown (None):
    iproute2's operational state (RFC 2863, ``-br``'s column) where printed, else its flags."""
    if i.operstate == "UP" or (not i.operstate and "LOWER_UP" in i.flags):
        return True
    if i.operstate in ("DOWN", "LOWERLAYERDOWN") or i.no_carrier or i.admin_up is False:
        return False
    return None


def down_where_peers_up(interfaces: list[Interface]) -> list[tuple[Interface, list[str]]]:
    """Of a copy of several hosts' listings, each physical interface that is down on one host
    while the interface of the same name is up on another, with those hosts: the nodes were
    built alike (the same names), so a port up on a peer and down here is this node's (its
    cable, its switch port, a bond member that left its bond), not the build's. None from a copy
    of one host, or where no host is named; an interface up with no carrier is left to its own
    report (``no_carrier``)."""
    hosts = {i.host for i in interfaces}
    if len(hosts) < 2 or None in hosts:
        return []
    up_on: dict[str, list[str]] = {}
    for i in interfaces:
        if not i.virtual and _carries(i) and i.host is not None:
            up_on.setdefault(i.name, []).append(i.host)
    return [
        (i, up_on[i.name])
        for i in interfaces
        if not i.virtual and not i.no_carrier and _carries(i) is False and up_on.get(i.name)
    ]


def _merged(found: list[Interface]) -> list[Interface]:
    """One record per host and interface: a later listing by the same tool replaces the earlier
    (a copy of two runs of the command); one by another tool (ip -br addr after ip link) adds
    what it says, never clearing what the other said unless it prints flags of its own (then
    they are the state now: a link brought back up after an earlier listing lost it)."""
    by_key: dict[tuple[str | None, str], Interface] = {}
    out: list[Interface] = []
    for i in found:
        key = (i.host, i.name)
        if (seen := by_key.get(key)) is None:
            by_key[key] = i
            out.append(i)
        elif seen.tool == i.tool:
            out[out.index(seen)] = by_key[key] = i
        else:
            if i.flags and seen.no_carrier and not i.no_carrier:
                # (a later listing with flags of its own that shows the carrier back says the
                # state now; its flags are its tool's words, so the tool goes with them)
                seen.flags, seen.tool = i.flags, i.tool
                seen.operstate = i.operstate or seen.operstate
            elif not seen.flags and i.flags:
                # (an earlier listing without flags, ip -br addr's: the later one's say them,
                # a lost carrier among them; the tool goes with its flags' words)
                seen.flags, seen.tool = i.flags, i.tool
            seen.operstate = seen.operstate or i.operstate
            seen.mtu, seen.mac = seen.mtu or i.mtu, seen.mac or i.mac
            seen.link_type = seen.link_type or i.link_type
            seen.addresses += [a for a in i.addresses if a not in seen.addresses]
            seen.errors = {**i.errors, **seen.errors}
    return out


def _fields(iface: Interface, text: str) -> None:
    """The fields an ifconfig block (or a flattened one's rest) carries on one line."""
    for m in _INET_RE.finditer(text):
        if m.group("addr") not in iface.addresses and any(ch.isdigit() for ch in m.group("addr")):
            iface.addresses.append(m.group("addr"))
    if (e := _ETHER_RE.search(text)) is not None:
        iface.mac = iface.mac or e.group("mac")
        if iface.tool == "ifconfig" and iface.link_type is None and "ether" in text:
            iface.link_type = "ether"
    if (md := _MEDIA_RE.search(text)) is not None:
        media = md.group("media")
        if (cut := _BEFORE_STATUS_RE.search(media)) is not None:
            media = media[: cut.start()]
        iface.media = media.strip()
    if (st := _BSD_STATUS_RE.search(text)) is not None:
        iface.status, iface.reason = st.group("status"), st.group("reason")
        iface.tool = "ifconfig (FreeBSD)"


# iputils' ping between hosts (ping(8)): "PING host (192.168.20.32) 8972(9000) bytes of data."
# (the payload, then the packet with its 28 bytes of IPv4 and ICMP headers), a reply a line
# ("8980 bytes from host (ip): icmp_seq=0 ttl=64 time=0.914 ms"), the summary ("3 packets
# transmitted, 3 received, 0% packet loss, time 2003ms"); with -M do (don't fragment) a packet
# larger than the interface's MTU is refused at the host ("ping: local error: message too long,
# mtu=1500"), and a router with a smaller one answers "Frag needed and DF set (mtu = 1500)"
# (-I IFACE adds its source: "PING 10.10.1.12 (10.10.1.12) from 10.10.1.11 ib0: 4064(4092) ...")
# (pdsh or clush gathering it from several nodes puts the node before each line, "gpu01: PING
# ...": dshbak(1), "the leading node: is stripped"; read as the run of that node)
PING_SIGNATURE = (
    r"^(?:" + PDSH_HOST + r":[ \t]+)?"
    r"PING [\w.:-]+ \((?:\d{1,3}\.){3}\d{1,3}\)(?: from [\d.]+ [\w.:-]+:)? \d+\(\d+\) bytes of data\."
)
_PING_HEAD_RE = re.compile(
    r"^PING (?P<host>[\w.:-]+?)\.? \((?P<ip>[\d.]+)\)(?: from [\d.]+ [\w.:-]+:)? "
    r"(?P<payload>\d+)\((?P<total>\d+)\) bytes"
)
# (a ping run on another host from the prompt, "ssh gpu03 ping -M do ...", is the same command)
_PING_COMMAND_RE = re.compile(
    r"(?:^|[$#>]\s)\s*(?:sudo\s+)?(?:(?:ssh|pdsh|srun)\s[^\n|]*?\s)?ping6?\s+(?P<args>[^\n|]*)"
)
_PING_DF_RE = re.compile(r"\s-M\s*do\b")
_PING_REPLY_RE = re.compile(
    r"^\d+ bytes from [^\n]{0,200}?\bicmp_seq=\d+ [^\n]{0,100}?\btime=(?P<ms>\d+(?:\.\d+)?) ms"
)
# ("4 packets transmitted, 0 received, +4 errors, 100% packet loss": the errors count optional)
_PING_SUMMARY_RE = re.compile(
    r"^(?P<sent>\d+) packets transmitted, (?P<recv>\d+) (?:packets )?received,"
    r"(?: \+\d+ (?:errors|duplicates),)* (?P<loss>\d+(?:\.\d+)?)% packet loss"
)
_PING_MTU_RE = re.compile(
    r"[Mm]essage too long, mtu\s*=\s*(?P<mtu>\d+)|Frag needed and DF set \(mtu = (?P<mtu2>\d+)\)"
)
_PING_UNREACHABLE_RE = re.compile(r"Destination (?:Host|Net|Port) Unreachable")
# the options that end a run while pings may still be in flight: -f (flood: one "." a request,
# a backspace a reply) with no -c count and -w N (a deadline); a "^C" at a line's end is the run stopped by hand.
# iputils ping_common.c finish() counts loss as (transmitted - received) * 100 / transmitted, so
# a request still in flight when the run stops is counted lost; the rtt line's "pipe N" (printed
# when more than one was in flight at once) is the most that were (iputils issue #583: "ping -f
# always says last packet was not answered")
# A flood run bounded by -c N (and no -w) ends on its count and is not cut off: iputils
# ping.h schedule_exit() calls __schedule_exit() once ntransmitted >= npackets, which arms a
# timer of 2 * tmax (the slowest reply seen; ping_common.c) or, no reply yet, lingertime (-W,
# MAXWAIT 10 s) before sigexit() ends the loop: the outstanding replies are waited for, and one
# still missing then is lost, not in flight. Only -f with no count (ended by ^C or -w) may
# leave a request in flight.
_PING_FLOOD_RE = re.compile(r"\s-[a-zA-Z]*f")
_PING_COUNT_RE = re.compile(r"\s-[a-zA-Z]*c\s*\d")
_PING_DEADLINE_RE = re.compile(r"\s-w\s*\d")
_PING_PIPE_RE = re.compile(r"^rtt [^\n]{0,200}?\bpipe (?P<pipe>\d+)")
_PING_NODE_RE = re.compile(rf"^(?P<node>{PDSH_HOST}):[ \t]+(?=\S)")


@dataclass(kw_only=True)
class HostPing:
    line: int
    host: str
    ip: str
    payload_bytes: int
    packet_bytes: int
    dont_fragment: bool | None = None
    """-M do on the command line (None where the command is not in the copy)."""
    replies: int = 0
    rtt_ms: list[float] = field(default_factory=list)
    sent: int | None = None
    received: int | None = None
    loss_pct: float | None = None
    mtu: int | None = None
    """The MTU a refused don't-fragment packet ran into (the host's interface, or a router's)."""
    mtu_line: int = 0
    unreachable: bool = False
    summary_line: int = 0
    stopped_early: bool = False
    """Stopped by hand (a "^C" in the run) or by a -w deadline, or a flood run (-f) with no -c
    count: the last
    request(s) may still have been in flight, and ping counts them lost."""
    pipe: int = 1
    """The most requests in flight at once: the rtt line's "pipe N", 1 where it prints none."""
    node: str | None = None
    """The node pdsh or clush named before the run's lines ("gpu01: PING ..."), None where
    the copy has none."""

    @property
    def lost(self) -> int:
        return (self.sent or 0) - (self.received or 0)

    @property
    def no_reply(self) -> bool:
        """Nothing came back: its summary counts no reply, or (no summary) only unreachables."""
        return self.received == 0 or (self.sent is None and self.replies == 0 and self.unreachable)


_T = TypeVar("_T")


def _ping_state(state: dict[str | None, _T], node: str | None, default: _T) -> _T:
    """The -M/-f/-w state of the command a run of ``node`` follows, taken: its node's own
    command's, else the untagged one typed on the shell (taken only where used)."""
    if node is not None and node in state:
        return state.pop(node)
    return state.pop(None, default)


def parse_ping(text: str) -> list[HostPing]:
    """Each iputils ping run in ``text``; ParseError when none."""
    runs: list[HostPing] = []
    # pdsh prints each node's lines as they come, so two nodes' runs interleave ("gpu01: PING",
    # "gpu02: PING", then gpu02's statistics before gpu01's): a node-tagged line belongs to the
    # last run of its own node, and the command's -M/-f/-w state is kept per node too.
    df: dict[str | None, bool | None] = {}
    early: dict[str | None, bool] = {}
    last: dict[str | None, HostPing] = {}
    for no, line in enumerate(text.splitlines(), 1):
        body = line.strip()
        node = None
        if nm := _PING_NODE_RE.match(body):
            node, body = nm.group("node"), body[nm.end() :]
        if (c := _PING_COMMAND_RE.search(body)) and not body.startswith("PING "):
            args = " " + c.group("args")
            df[node] = bool(_PING_DF_RE.search(args))
            early[node] = bool(
                (_PING_FLOOD_RE.search(args) and not _PING_COUNT_RE.search(args))
                or _PING_DEADLINE_RE.search(args)
            )
            continue
        if h := _PING_HEAD_RE.match(body):
            runs.append(
                HostPing(
                    line=no,
                    host=h.group("host"),
                    ip=h.group("ip"),
                    payload_bytes=int(h.group("payload")),
                    packet_bytes=int(h.group("total")),
                    # a command typed on the shell (no node tag) applies to the run that follows
                    # where the run's node gave none of its own (a node's own command leaves the
                    # shell's for the untagged run it was typed for)
                    dont_fragment=_ping_state(df, node, None),
                    stopped_early=_ping_state(early, node, False),
                    node=node,
                )
            )
            last[node] = runs[-1]
            continue
        if not runs:
            continue
        # a line with no node tag goes to the last run, as before; a tagged one to its node's
        # last run (the last run of all when its node has no PING head in the copy)
        run = last.get(node, runs[-1]) if node is not None else runs[-1]
        if body.endswith("^C") and not run.summary_line:
            run.stopped_early = True
        if r := _PING_REPLY_RE.match(body):
            run.replies += 1
            run.rtt_ms.append(float(r.group("ms")))
        elif s := _PING_SUMMARY_RE.match(body):
            run.sent, run.received = int(s.group("sent")), int(s.group("recv"))
            run.loss_pct = float(s.group("loss"))
            run.summary_line = no
        elif run.summary_line and (pp := _PING_PIPE_RE.match(body)):
            run.pipe = int(pp.group("pipe"))
        elif m := _PING_MTU_RE.search(body):
            if run.mtu is None:
                run.mtu, run.mtu_line = int(m.group("mtu") or m.group("mtu2")), no
        elif _PING_UNREACHABLE_RE.search(body):
            run.unreachable = True
    if not runs:
        raise ParseError("no ping run ('PING host (address) N(M) bytes of data.')")
    return runs
