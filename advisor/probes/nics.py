"""This host's network interfaces, which one routes to an address, and interface-name variables.

Shared by preflight (before any job) and connectivity (inside the job, compared across nodes).
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
from dataclasses import dataclass, field
from typing import Any

import psutil


@dataclass(kw_only=True)
class Nic:
    """One network interface of a host."""

    name: str
    up: bool
    mtu: int
    speed_mbps: int
    """Link speed psutil reports (0 when the driver does not say, e.g. loopback, veth)."""
    addresses: list[str] = field(default_factory=list)
    """IPv4 and IPv6 addresses (without scope suffix)."""


def list_nics() -> list[Nic]:
    stats = psutil.net_if_stats()
    addrs = psutil.net_if_addrs()
    out = []
    for name in sorted(set(stats) | set(addrs)):
        st = stats.get(name)
        ips = [
            a.address.split("%", 1)[0]
            for a in addrs.get(name, [])
            if a.family in (socket.AF_INET, socket.AF_INET6)
        ]
        out.append(
            Nic(
                name=name,
                up=bool(st.isup) if st else False,
                mtu=int(st.mtu) if st else 0,
                speed_mbps=int(st.speed) if st else 0,
                addresses=ips,
            )
        )
    return out


def nic_dicts(nics: list[Nic]) -> list[dict[str, Any]]:
    return [
        {
            "name": n.name,
            "up": n.up,
            "mtu": n.mtu,
            "speed_mbps": n.speed_mbps,
            "addresses": list(n.addresses),
        }
        for n in nics
    ]


def source_address(dest: str, port: int = 9) -> str | None:
    """The local address the kernel would use to reach ``dest`` (None when there is no route).

    Connecting a UDP socket sends nothing; it only asks the routing table for a source address.
    """
    try:
        infos = socket.getaddrinfo(dest, port, type=socket.SOCK_DGRAM)
    except OSError:
        return None
    for family, kind, proto, _, sockaddr in infos:
        with contextlib.suppress(OSError), socket.socket(family, kind, proto) as s:
            s.connect(sockaddr)
            return str(s.getsockname()[0]).split("%", 1)[0]
    return None


def nic_with_address(nics: list[Nic], address: str) -> Nic | None:
    try:
        want = ipaddress.ip_address(address)
    except ValueError:
        return None
    for n in nics:
        for a in n.addresses:
            with contextlib.suppress(ValueError):
                if ipaddress.ip_address(a) == want:
                    return n
    return None


def route_nic(nics: list[Nic], dest: str) -> Nic | None:
    """The interface whose address the kernel picks as source towards ``dest``."""
    src = source_address(dest)
    return nic_with_address(nics, src) if src else None


@dataclass(kw_only=True)
class IfnameSpec:
    """A parsed ``*_SOCKET_IFNAME`` value.

    HCCL and NCCL read a comma-separated list of name prefixes; a leading ``^`` excludes the
    listed interfaces instead, and a leading ``=`` (after any ``^``) makes the names exact.
    GLOO_SOCKET_IFNAME lists exact names only.
    """

    exclude: bool
    exact: bool
    names: list[str]

    def matches(self, nic: str) -> bool:
        hit = any(nic == n if self.exact else nic.startswith(n) for n in self.names)
        return not hit if self.exclude else hit


def parse_ifname(var: str, value: str) -> IfnameSpec:
    if var == "GLOO_SOCKET_IFNAME":
        return IfnameSpec(
            exclude=False, exact=True, names=[n for n in value.split(",") if n.strip()]
        )
    v = value.strip()
    exclude = v.startswith("^")
    if exclude:
        v = v[1:]
    exact = v.startswith("=")
    if exact:
        v = v[1:]
    return IfnameSpec(
        exclude=exclude, exact=exact, names=[n.strip() for n in v.split(",") if n.strip()]
    )


def selected_nics(var: str, value: str, nics: list[Nic]) -> list[Nic]:
    """Interfaces an ``*_SOCKET_IFNAME`` setting lets the library pick (loopback only if named)."""
    spec = parse_ifname(var, value)
    chosen = [n for n in nics if spec.matches(n.name)]
    if spec.exclude:
        chosen = [n for n in chosen if not n.name.startswith("lo")]
    return chosen


def check_ifname(var: str, value: str, nics: list[Nic]) -> dict[str, Any]:
    """Does an interface variable name interfaces that exist and are up on this host?

    Returns ``{var, value, ok, selected, problem}``; ``selected`` are the up interfaces the
    setting allows, ``problem`` says what is wrong and how to fix it.
    """
    spec = parse_ifname(var, value)
    by_name = {n.name: n for n in nics}
    chosen = selected_nics(var, value, nics)
    up = [n.name for n in chosen if n.up]
    problem = ""
    if not spec.names:
        problem = f"{var}={value!r} names no interface"
    elif spec.exact and not spec.exclude:
        missing = [n for n in spec.names if n not in by_name]
        down = [n for n in spec.names if n in by_name and not by_name[n].up]
        if missing:
            problem = f"{var} names {', '.join(missing)}, which this host does not have"
        elif down:
            problem = f"{var} names {', '.join(down)}, which is down"
    elif not up:
        what = "leaves no interface that is up" if spec.exclude else "matches no interface up"
        problem = f"{var}={value!r} {what}"
    if problem:
        problem += f" (interfaces here: {', '.join(sorted(by_name)) or 'none'})"
    return {"var": var, "value": value, "ok": not problem, "selected": up, "problem": problem}


def check_if_ip(value: str, nics: list[Nic]) -> dict[str, Any]:
    """HCCL_IF_IP must be an address of this host (it is per node: one value cannot suit two)."""
    nic = nic_with_address(nics, value)
    problem = ""
    if nic is None:
        problem = f"HCCL_IF_IP={value} is not an address of this host"
    elif not nic.up:
        problem = f"HCCL_IF_IP={value} belongs to {nic.name}, which is down"
    return {
        "var": "HCCL_IF_IP",
        "value": value,
        "ok": not problem,
        "selected": [nic.name] if nic and nic.up else [],
        "problem": problem,
    }
