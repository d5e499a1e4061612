"""AMD-SMI's view of an AMD Pensando AI NIC (AINIC, the ``ionic`` driver): its network ports and
its RDMA devices' ports, as the CLI prints them in its indented ``KEY: value`` text.

The fields are read by their names as the output prints them (the rocm-systems snapshot this
was written against, 2025-08-09, predates the AINIC code; the sample is ROCm/rocm-systems PR
3654's): under ``PORTS:`` each ``PORT_N:`` gives the port's ``NETDEV``, ``CARRIER``,
``LINK_STATE`` and ``LINK_SPEED`` (``0 Mb/s`` with no link); under ``RDMA_DEVICES:`` each
``RDMA_DEVICE_N:`` gives its ``NAME`` and, per ``PORT_N:``, the ``NETDEV``, ``PORT_NUM`` and
``STATE`` of its RDMA port. ``CARRIER`` is the netdev's sysfs carrier (Linux
Documentation/ABI/testing/sysfs-class-net: "0 physical link is down, 1 physical link is up").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from advisor.parsers import ParseError, numbered_lines

SIGNATURE = r"^[ \t]*RDMA_DEVICE_\d{1,4}:[ \t]*$|^[ \t]*LINK_STATE:[ \t]*(?:up|down)[ \t]*$"
_KEY_RE = re.compile(r"^(?P<indent>[ \t]{0,200})(?P<key>[A-Z][A-Z0-9_]{0,60}):[ \t]*(?P<value>.*)$")
_SPEED_RE = re.compile(r"^(?P<n>\d{1,9})\s*Mb/s$")


@dataclass(kw_only=True)
class NetPort:
    """A ``PORTS:`` entry: the NIC's network interface."""

    line: int
    netdev: str = ""
    port_type: str = ""
    carrier: int | None = None
    carrier_line: int = 0
    link_state: str = ""
    link_state_line: int = 0
    speed_mbps: int | None = None
    speed_line: int = 0


@dataclass(kw_only=True)
class RdmaPort:
    """A port of an ``RDMA_DEVICES:`` entry."""

    line: int
    device: str
    port: int | None = None
    netdev: str = ""
    state: str = ""
    state_line: int = 0


def parse(text: str) -> tuple[list[NetPort], list[RdmaPort]]:
    """The network ports and RDMA ports in ``text``; ParseError when neither is in it."""
    nets: list[NetPort] = []
    rdmas: list[RdmaPort] = []
    # the open headings (KEY with no value) above the line, by their indent
    stack: list[tuple[int, str]] = []
    device = ""
    for no, line, _ in numbered_lines(text):
        m = _KEY_RE.match(line.rstrip())
        if m is None:
            continue
        indent = len(m.group("indent").expandtabs(8))
        key, value = m.group("key"), m.group("value").strip()
        while stack and stack[-1][0] >= indent:
            stack.pop()
        parents = [k for _, k in stack]
        if not value:
            stack.append((indent, key))
            if key.startswith("PORT_") and parents and parents[-1] == "PORTS":
                nets.append(NetPort(line=no))
            elif key.startswith("PORT_") and "RDMA_DEVICES" in parents:
                rdmas.append(RdmaPort(line=no, device=device))
            elif key.startswith("RDMA_DEVICE_"):
                device = ""
            continue
        owner = parents[-1] if parents else ""
        if owner.startswith("RDMA_DEVICE_") and key == "NAME":
            device = value
        elif owner.startswith("PORT_") and len(parents) > 1 and parents[-2] == "PORTS" and nets:
            net = nets[-1]
            if key == "NETDEV":
                net.netdev = value
            elif key == "TYPE":
                net.port_type = value
            elif key == "CARRIER" and value in ("0", "1"):
                net.carrier, net.carrier_line = int(value), no
            elif key == "LINK_STATE":
                net.link_state, net.link_state_line = value, no
            elif key == "LINK_SPEED" and (s := _SPEED_RE.match(value)):
                net.speed_mbps, net.speed_line = int(s.group("n")), no
        elif owner.startswith("PORT_") and "RDMA_DEVICES" in parents and rdmas:
            port = rdmas[-1]
            if key == "NETDEV":
                port.netdev = value
            elif key == "PORT_NUM" and value.isdigit():
                port.port = int(value)
            elif key == "STATE":
                port.state, port.state_line = value, no
    nets = [n for n in nets if n.netdev or n.link_state or n.carrier is not None]
    rdmas = [r for r in rdmas if r.state]
    if not nets and not rdmas:
        raise ParseError("no AMD-SMI NIC port (PORTS: / RDMA_DEVICES:) in the text")
    return nets, rdmas
