"""The RDMA NICs' (HCAs') port states as ``ibstat``, ``ibv_devinfo`` and their kin print them.

``ibstat`` (infiniband-diags) prints a block a device, ``CA 'mlx5_0'``, with its type and
firmware, then a block a port, ``Port 1:``, whose ``State`` is ``Active`` when the port passes
traffic (``Down``, ``Initializing``, ``Armed`` otherwise), with its ``Physical state``, ``Rate``
(Gb/s) and ``Link layer`` (InfiniBand, or Ethernet for RoCE). ``ibv_devinfo`` (rdma-core) prints
``hca_id: mlx5_0``, then per ``port: 1`` a ``state`` of libibverbs' ``enum ibv_port_state``
(PORT_DOWN 1, PORT_INIT 2, PORT_ARMED 3, PORT_ACTIVE 4, PORT_ACTIVE_DEFER 5: only the last two
carry traffic), its MTUs and its ``link_layer``. NCCL's IB/RoCE transport uses the active ports
only.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.parsers import ParseError, ParseWarning, numbered_lines

IBSTAT_SIGNATURE = (
    r"^[ \t]*CA '[^'\n]+'[ \t]*\r?\n[ \t]*CA type:"
    # ibstat's own failure alone (libibumad's IBPANIC: "ibpanic: [pid] main: stat of IB device
    # 'mlx5_8' failed: ..."), read as what it says
    r"|^ibpanic: \[\d+\] main: stat of IB device '[^'\n]+' failed"
)
IBSTATUS_SIGNATURE = r"^[ \t]*Infiniband device '[^'\n]+' port \d+ status:"
# iproute2's ``rdma link`` (rdma link show): a line a port, "link mlx5_7/1 subnet_prefix ... lid
# 3403 sm_lid 1 lmc 0 state DOWN physical_state POLLING [netdev ib7]"
RDMA_LINK_SIGNATURE = r"^[ \t]*link [\w-]+/\d+ .*?\bstate [A-Z_]+ physical_state [A-Z_]+"
_RDMA_LINK_RE = re.compile(
    r"^\s*link (?P<ca>[\w-]+)/(?P<port>\d+) .*?\bstate (?P<state>[A-Z_]+) "
    r"physical_state (?P<phys>[A-Z_]+)(?:.*?\bnetdev (?P<netdev>\S+))?"
)
"""``ibstatus`` (infiniband-diags' script over sysfs): a block a port, ``state: 4: ACTIVE``,
``phys state: 5: LinkUp``, ``rate: 100 Gb/sec (4X EDR)``, ``link_layer: InfiniBand``."""
_IBSTATUS_RE = re.compile(r"^\s*Infiniband device '(?P<ca>[^']+)' port (?P<port>\d+) status:\s*$")
_IBSTATUS_NUMBER_RE = re.compile(r"^\d+:\s*")
IBDEV2NETDEV_SIGNATURE = (
    r"^[ \t]*(?:[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.\d[ \t]+)?[A-Za-z][\w-]*"
    r"(?:[ \t]+\([^)\n]*\)[^\n]*?\bfw[ \t]+\S+)?"
    r"[ \t]+port[ \t]+\d+(?:[ \t]+\([A-Z_]+[ \t]*\))?[ \t]+==>[ \t]+\S+[ \t]+\((?:Up|Down)\)"
)
"""``ibdev2netdev`` (Mellanox OFED): ``mlx5_0 port 1 ==> ib0 (Up)``, the netdev of each RDMA port
and that netdev's own state (for InfiniBand the IPoIB interface's, not the port's). With ``-v``:
``0000:02:00.0 mlx5_0 (MT4115 - MT1523X04353) CX456A - ConnectX-4 QSFP fw 12.23.1020 port 1
(ACTIVE) ==> ib0 (Up)``, the PCI address, part, firmware and the RDMA port's own state. Device
names need no digit group (rdma-core's ``irdma0``, ``rocep12s0f0``)."""
_IBDEV2NETDEV_RE = re.compile(
    r"^\s*(?:(?P<pci>[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.\d)\s+)?(?P<ca>[A-Za-z][\w-]*)"
    r"(?:\s+\((?P<part>[^)]*)\)(?P<desc>.*?)\bfw\s+(?P<fw>\S+))?"
    r"\s+port\s+(?P<port>\d+)(?:\s+\((?P<state>[A-Z_]+)\s*\))?\s+==>\s+(?P<netdev>\S+)\s+\((?P<up>Up|Down)\)"
)
# infiniband-diags' ibportstate (a port's PortInfo by LID or path): "# Port info: Lid 2 port 36",
# then "LinkState:.......................Down", "PhysLinkState:...................Disabled",
# "LinkWidthActive:.................4X", "LinkSpeedActive:.................2.5 Gbps"; a query
# that failed: "ibportstate: iberror: failed: smp query portinfo failed"
IBPORTSTATE_SIGNATURE = (
    r"^#[ \t]*Port info: Lid \d+ port \d+[ \t]*\r?\n(?:.*\r?\n)??[ \t]*\w+:\.{3,}"
)
_IBPORTSTATE_HEAD_RE = re.compile(r"^#\s*Port info: Lid (?P<lid>\d+) port (?P<port>\d+)\s*$")
_DOTTED_FIELD_RE = re.compile(r"^\s*(?P<key>\w+):\.{3,}(?P<value>.+?)\s*$")
_IBERROR_RE = re.compile(r"^\s*ibportstate: iberror: (?P<what>.+?)\s*$")
IBV_DEVINFO_SIGNATURE = r"^[ \t]*hca_id:[ \t]*\S+[ \t]*\r?\n[ \t]+transport:"
IBLINKINFO_SIGNATURE = (
    r"^[ \t]*(?:0x[0-9a-fA-F]+[ \t]+)?(?:\"[^\"\n]*\"[ \t]+)?\d+[ \t]+\d+\[[^\]\n]*\][ \t]+==\("
)
"""``iblinkinfo`` (infiniband-diags): under each ``CA: NAME:`` or ``Switch: 0xGUID NAME:``, a line
a port, ``LID PORT[ ] ==( 4X 25.78125 Gbps Active/  LinkUp)==> PEER_LID PEER_PORT[ ] "PEER"``:
the link's width and per-lane speed, its logical and physical state, the node at its other
end; an unconnected port reads ``==(  Down/ Polling)==>  [ ] ""``."""
# iblinkinfo prints a lane's signalling rate as libibmad's speed strings (mad_dump_linkspeed /
# mad_dump_linkspeedext: "2.5 Gbps" SDR ... "14.0625 Gbps" FDR, "25.78125 Gbps" EDR, then
# "53.125 Gbps" HDR, "106.25 Gbps" NDR); ibstat's Rate is the nominal one (EDR 4X: 100, HDR 4X:
# 200): the same figure is kept for both tools.
_LANE_NOMINAL_GBPS = {14.0625: 14.0, 25.78125: 25.0, 53.125: 50.0, 106.25: 100.0, 212.5: 200.0}
_IBLINK_HEAD_RE = re.compile(r"^\s*(?:CA: (?P<ca>.+?)|Switch: 0x[0-9a-fA-F]+ (?P<switch>.+?)):\s*$")
_IBLINK_RE = re.compile(
    # (-l puts the node's GUID and name before each line; FDR10 names itself after the speed)
    r"^\s*(?:(?P<guid>0x[0-9a-fA-F]+)\s+)?(?:\"(?P<node>[^\"]*)\"\s+)?(?P<lid>\d+)\s+(?P<port>\d+)\[[^\]]*\]\s+==\(\s*"
    r"(?:(?P<width>\d+)X\s+(?P<speed>[\d.]+) Gbps\s+(?:\([^)]*\)\s+)?)?(?P<state>\w+)/\s*(?P<phys>[\w ]+?)\s*\)==>"
    r"\s*(?:0x[0-9a-fA-F]+\s+)?(?:(?P<plid>\d+)\s+(?P<pport>\d+))?\s*\[[^\]]*\]\s+\"(?P<peer>[^\"]*)\""
    r"(?:\s*\((?P<note>[^)]*)\))?"
)
"""A link line; ``note``: iblinkinfo's remark after it, ``Could be 4X 53.125 Gbps`` where the link
trained narrower or slower than both its ends support."""


_HCA_NAME_RE = re.compile(r"\bHCA-\d+\b|\bmlx\d+_\d+\b")
"""A node description naming an HCA (the default "host HCA-1", or "host mlx5_0")."""

ACTIVE_STATES = frozenset({"Active", "PORT_ACTIVE", "PORT_ACTIVE_DEFER", "ACTIVE"})
"""The states of a port that carries traffic (ibstat's, ibv_devinfo's and ibstatus' words)."""

_CA_RE = re.compile(r"^\s*CA '(?P<ca>[^']+)'\s*$")
_HCA_RE = re.compile(r"^\s*hca_id:\s*(?P<ca>\S+)\s*$")
_IBSTAT_PORT_RE = re.compile(r"^\s*Port (?P<port>\d+):\s*$")
_DEVINFO_PORT_RE = re.compile(r"^\s*port:\s*(?P<port>\d+)\s*$")
_FIELD_RE = re.compile(r"^\s*(?P<key>[A-Za-z_][\w ]*?)\s*:\s*(?P<value>\S.*?)\s*$")
_STATE_NUMBER_RE = re.compile(r"\s*\(\d+\)$")
"""ibv_devinfo's number after a state or MTU ("PORT_ACTIVE (4)", "4096 (5)")."""


@dataclass(kw_only=True)
class HcaPort:
    """One port of an RDMA device."""

    ca: str
    port: int
    line: int
    """The line of the port's block."""
    tool: str
    """``ibstat``, ``ibv_devinfo``, ``ibstatus``, ``ibdev2netdev``, ``iblinkinfo`` or
    ``ibportstate`` (its ``ca`` the LID: a switch's port or an HCA's, as queried)."""
    state: str | None = None
    """As printed, without ibv_devinfo's number: ``Active``, ``Down``, ``PORT_ACTIVE`` ..."""
    active: bool | None = None
    """The state carries traffic (``ACTIVE_STATES``); None without a state line."""
    physical_state: str | None = None
    rate_gbps: float | None = None
    link_layer: str | None = None
    ca_type: str | None = None
    firmware: str | None = None
    active_mtu: int | None = None
    netdev: str | None = None
    """``ibdev2netdev``: the port's network interface."""
    netdev_up: bool | None = None
    """``ibdev2netdev``'s ``(Up)``/``(Down)``: the interface's state, not the RDMA port's (an
    InfiniBand port's IPoIB interface may be down while the port carries NCCL's traffic)."""
    peer: str | None = None
    """``iblinkinfo``: the node and port at the link's other end (``"MF0;sw:MQM8700/U1" port 3``)."""
    could_be: str | None = None
    """``iblinkinfo``'s remark that the link trained below what both its ends support (``Could be
    4X 53.125 Gbps``): a cable or lane fault, or a port forced lower."""
    perftest: PerftestRun | None = None
    """A perftest run from this port (``parse_perftest``)."""


def _state(port: HcaPort, value: str) -> None:
    port.state = _STATE_NUMBER_RE.sub("", value)
    port.active = port.state in ACTIVE_STATES


def parse(text: str) -> tuple[list[HcaPort], list[ParseWarning]]:
    """Every port of every device block in ``text`` (ibstat's and ibv_devinfo's outputs, several
    in one file). Raises ParseError when no device block holds a port."""
    ports: list[HcaPort] = []
    warnings: list[ParseWarning] = []
    ca: str | None = None
    tool = ""
    device: dict[str, str] = {}
    current: HcaPort | None = None
    link_node: tuple[str, bool] | None = None  # iblinkinfo's node above: (name, a switch)
    unlinked = 0  # -l ports with nothing attached whose node is not known for an HCA
    heads: list[
        tuple[int, str, int]
    ] = []  # ibstat's / ibv_devinfo's device: (line, name, ports before)
    for no, line, _ in numbered_lines(text):
        if "==(" in line and (lk := _IBLINK_RE.match(line)):
            if lk.group("node") is None and link_node is None:
                # a copy that kept only the link lines ("iblinkinfo | grep Up"): its node
                # headings are gone; an HCA's port line leads with its GUID, a switch's with
                # its LID alone
                guid = lk.group("guid")
                headless = (
                    f"LID {lk.group('lid')}" + (f" (port GUID {guid})" if guid else ""),
                    guid is None,
                )
            if lk.group("node") is not None:
                # -l: each line names its node; a switch is told from an HCA by its name only
                # (an HCA's names its device: "node17 mlx5_0", "host HCA-1"), so an unnamed
                # node's port with nothing at its other end is left out, counted and said
                name = lk.group("node").strip()
                switch = not _HCA_NAME_RE.search(name)
                if switch and not lk.group("peer"):
                    unlinked += 1
                    continue
            else:
                name, switch = link_node if link_node is not None else headless
            if switch and not lk.group("peer"):
                continue  # a switch port with nothing plugged in
            port = HcaPort(
                ca=name,
                port=int(lk.group("port")),
                line=no,
                tool="iblinkinfo",
                physical_state=lk.group("phys"),
                peer=f"{lk.group('peer')} port {lk.group('pport')}" if lk.group("peer") else None,
                could_be=(lk.group("note") or "").strip() or None,
            )
            _state(port, lk.group("state"))
            if lk.group("width") and lk.group("speed"):
                lane = float(lk.group("speed"))
                lane = _LANE_NOMINAL_GBPS.get(lane, lane)
                port.rate_gbps = round(int(lk.group("width")) * lane, 3)
            ports.append(port)
            continue
        if line.lstrip().startswith(("CA: ", "Switch: 0x")) and (hd := _IBLINK_HEAD_RE.match(line)):
            link_node = (hd.group("ca") or hd.group("switch"), hd.group("switch") is not None)
            ca, current = None, None
            continue
        if d := _IBDEV2NETDEV_RE.match(line):
            port = HcaPort(
                ca=d.group("ca"),
                port=int(d.group("port")),
                line=no,
                tool="ibdev2netdev",
                netdev=d.group("netdev"),
                netdev_up=d.group("up") == "Up",
                ca_type=(d.group("part") or "").split(" - ")[0].strip() or None,
                firmware=d.group("fw"),
            )
            if d.group("state"):  # -v: the RDMA port's own state
                _state(port, d.group("state"))
            ports.append(port)
            ca, current = None, None
            continue
        if "Port info:" in line and (ps := _IBPORTSTATE_HEAD_RE.match(line)):
            ca, tool, device = f"LID {ps.group('lid')}", "ibportstate", {}
            current = HcaPort(ca=ca, port=int(ps.group("port")), line=no, tool=tool)
            ports.append(current)
            continue
        if "iberror:" in line and (ie := _IBERROR_RE.match(line)):
            warnings.append(
                ParseWarning(
                    line=no,
                    message=f"ibportstate could not query a port ({ie.group('what')}): its state "
                    "is unknown",
                    skipped=False,
                )
            )
            ca, current = None, None
            continue
        if tool == "ibportstate" and current is not None:
            if df := _DOTTED_FIELD_RE.match(line):
                key, value = df.group("key"), df.group("value")
                if key == "LinkState":
                    _state(current, value)
                elif key == "PhysLinkState":
                    current.physical_state = value
                elif key in ("LinkWidthActive", "LinkSpeedActive"):
                    device[key] = value
                    width, speed = device.get("LinkWidthActive"), device.get("LinkSpeedActive")
                    if width and speed and (w := re.match(r"(\d+)X", width)):
                        if sp := re.match(r"([\d.]+) Gbps", speed):
                            current.rate_gbps = int(w.group(1)) * float(sp.group(1))
                continue
            if not line.strip() or line.startswith("#") or "ibportstate" in line:
                ca, current = None, None  # the port's block ended (another command, a prompt)
            continue
        if "physical_state" in line and (rl := _RDMA_LINK_RE.match(line)):
            port = HcaPort(
                ca=rl.group("ca"),
                port=int(rl.group("port")),
                line=no,
                tool="rdma link",
                physical_state=rl.group("phys").capitalize(),
                netdev=rl.group("netdev"),
            )
            _state(port, rl.group("state"))
            ports.append(port)
            continue
        if st := _IBSTATUS_RE.match(line):
            ca, tool, device = st.group("ca"), "ibstatus", {}
            current = HcaPort(ca=ca, port=int(st.group("port")), line=no, tool=tool)
            ports.append(current)
            continue
        if m := _CA_RE.match(line) or _HCA_RE.match(line):
            heads.append((no, m.group("ca"), len(ports)))
            ca, tool, device, current = (
                m.group("ca"),
                "ibstat" if "CA '" in line else "ibv_devinfo",
                {},
                None,
            )
            continue
        if line.startswith("ibpanic:"):
            # ibstat's own failure on a device it was asked for ("ibpanic: [1400444] main: stat
            # of IB device 'mlx5_8' failed: No such file or directory"): no such device
            warnings.append(
                ParseWarning(line=no, message=f"ibstat failed: {line.strip()[:200]}", skipped=False)
            )
            ca, current = None, None
            continue
        if ca is None:
            continue
        port_m = _IBSTAT_PORT_RE.match(line) if tool == "ibstat" else _DEVINFO_PORT_RE.match(line)
        if port_m:
            current = HcaPort(
                ca=ca,
                port=int(port_m.group("port")),
                line=no,
                tool=tool,
                ca_type=device.get("CA type") or device.get("vendor_part_id"),
                firmware=device.get("Firmware version") or device.get("fw_ver"),
            )
            ports.append(current)
            continue
        if line.strip().endswith(":") and current is None:
            continue  # a heading inside the device's block ("Device ports:")
        f = _FIELD_RE.match(line)
        if f is None:
            if line.strip() and not line[:1].isspace():
                ca, current = None, None  # another output starts (a device's lines are indented)
            continue  # ibv_devinfo -v's flag lists and GID[ N] lines under a key
        key, value = f.group("key"), f.group("value")
        if current is None:
            device[key] = value
        elif key in ("State", "state"):
            _state(current, _IBSTATUS_NUMBER_RE.sub("", value))
        elif key in ("Physical state", "phys_state", "phys state"):
            current.physical_state = _STATE_NUMBER_RE.sub("", _IBSTATUS_NUMBER_RE.sub("", value))
        elif key in ("Rate", "rate"):
            try:
                # ibstat: "200"; ibstatus: "10 Gb/sec (4X SDR)"
                current.rate_gbps = float(value.split()[0])
            except ValueError:
                warnings.append(ParseWarning(line=no, message=f"unreadable Rate {value!r}"))
        elif key in ("Link layer", "link_layer"):
            current.link_layer = value
        elif key == "active_mtu" and value.split()[0].isdigit():
            current.active_mtu = int(value.split()[0])
    # a device block with no port (the copy ended, or was cut, before its port section): said,
    # its state unknown rather than left out unnoticed
    for at, (head_line, name, before) in enumerate(heads):
        after = heads[at + 1][2] if at + 1 < len(heads) else len(ports)
        if after == before:
            warnings.append(
                ParseWarning(
                    line=head_line,
                    message=f"{name}: no port listed under it (the copy ends before its port "
                    "section?): its state is unknown",
                    skipped=False,
                )
            )
    if unlinked:
        warnings.append(
            ParseWarning(
                line=0,
                message=f"iblinkinfo -l: {unlinked} port(s) with nothing attached, of nodes its "
                "names do not tell for HCAs or switches, not judged",
                skipped=False,
            )
        )
    if not ports:
        panics = [w for w in warnings if w.message.startswith("ibstat failed: ibpanic")]
        if panics:
            # what the file holds is ibstat's failure: no port is read, the device it named is
            # not found
            raise ParseError(panics[0].message, line=panics[0].line)
        raise ParseError('no RDMA device port (ibstat\'s "Port N:" or ibv_devinfo\'s "port: N")')
    return ports, warnings


# perftest (linux-rdma/perftest: ib_write_bw, ib_read_bw, ib_send_bw, ib_atomic_bw and their
# _lat twins) between two hosts: its settings block (src/perftest_parameters.c ctx_print_test_info:
# " Dual-port       : OFF\t\tDevice         : mlx5_0", " Link type       : Ethernet",
# " Mtu             : 1024[B]"), each side's "local address:"/"remote address:" line with its GID,
# then a report under "#bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]"
# (src/perftest_parameters.h RESULT_FMT; "[MiB/sec]" since perftest's 2024 unit fix, "[Gb/sec]"
# under --report_gbits) or, for a latency test, "#bytes #iterations t_min[usec] t_max[usec]
# t_typical[usec] t_avg[usec] ..." (RESULT_FMT_LAT). Its MB/sec was always MiB/sec
# (perftest_parameters.c: format_factor 0x100000 for MBS, 125000000 for Gb/sec).
PERFTEST_SIGNATURE = r"^[ \t]*Dual-port[ \t]+: (?:ON|OFF)[ \t]+Device[ \t]+: \S+"
_PERFTEST_TITLE_RE = re.compile(
    r"^\s*(?P<test>[A-Za-z_]+(?: [A-Za-z_]+)*) (?P<kind>BW|Latency) Test\s*$"
)
_PERFTEST_DEVICE_RE = re.compile(r"Device\s+: (?P<ca>\S+)")
_PERFTEST_SETTING_RE = re.compile(
    r"^\s*(?P<key>Link type|Mtu|Transport type|Connection type)\s*: (?P<value>\S+)"
)
_PERFTEST_GID_RE = re.compile(r"^\s*GID:\s+(?:\d+:){10}255:255:(?P<ip>\d+:\d+:\d+:\d+)\s*$")
_PERFTEST_BW_HEAD_RE = re.compile(
    r"#bytes\s+#iterations\s+BW peak\[(?P<unit>MB|MiB|Gb)/sec\]\s+BW average\[(?:MB|MiB|Gb)/sec\]"
)
_PERFTEST_LAT_HEAD_RE = re.compile(
    r"#bytes\s+#iterations\s+t_min\[usec\]\s+t_max\[usec\]\s+t_typical\[usec\]\s+t_avg\[usec\]"
)
_PERFTEST_ROW_RE = re.compile(
    r"^\s*(?P<bytes>\d+)\s+(?P<iters>\d+)\s+(?P<a>[0-9.]+)\s+(?P<b>[0-9.]+)(?:\s+(?P<c>[0-9.]+)\s+(?P<d>[0-9.]+))?"
)
_PERFTEST_PORT_RE = re.compile(r"(?:^|\s)(?:-i\s*|--ib-port[= ])(?P<port>\d+)\b")
_PERFTEST_COMMAND_RE = re.compile(
    r"\b(?P<tool>ib_(?:write|read|send|atomic)_(?:bw|lat))\b(?P<args>.*)$"
)
_PERFTEST_FLAGS = frozenset(
    {
        "-F",
        "-a",
        "-R",
        "-b",
        "-e",
        "-z",
        "-H",
        "-N",
        "-O",
        "-V",
        "-h",
        "--report_gbits",
        "--run_infinitely",
        "--report-both",
        "--CPU-freq",
        "--all",
        "--bidirectional",
        "--odp",
    }
)
"""perftest's options that take no value (src/perftest_parameters.c usage): the server a
client names is the word that is no option and no option's value."""
# its failures (src/perftest_communication.c, perftest_resources.c, the tests' main()s)
_PERFTEST_ERROR_RE = re.compile(
    r"^\s*(?P<what>Couldn't connect to \S+|Unable to init the socket connection"
    r"|Failed to exchange data between server and clients|Completion with error at (?:client|server)"
    r"|Couldn't get context for the device|IB device \S+ not found|No IB devices found"
    r"|Failed to modify QP \d* ?to (?:INIT|RTR|RTS)|Couldn't post send|Unable to create QP"
    r"|Failed to create QP|Couldn't listen to port \d+|Problem in receiving the server's data)"
)
GBIT_PER_MIB = 1048576 * 8 / 1e9
"""Gbit/s in one MiB/s (perftest's MB/sec)."""


@dataclass(kw_only=True)
class PerftestRun:
    """What one perftest run measured between this host's port and its peer's."""

    test: str
    """perftest's title (``RDMA_Write BW``, ``Send Latency``) or its binary's name."""
    peer: str | None = None
    """The server the client named, else the remote GID's IPv4 address."""
    local: str | None = None
    """The local GID's IPv4 address (RoCE), when it is one."""
    rows: list[dict[str, float]] = field(default_factory=list)
    """``{bytes, iterations, bw_peak_gbps, bw_average_gbps}`` or ``{bytes, iterations, t_min_us,
    t_avg_us}``, one a size (a --run_infinitely run repeats its one size)."""
    bw_average_gbps: float | None = None
    """The largest size's average bandwidth (the last row's, in Gbit/s)."""
    latency_avg_us: float | None = None
    failed: str | None = None
    """perftest's own failure line when it stopped before its report."""


def parse_perftest(text: str) -> tuple[list[HcaPort], list[ParseWarning]]:
    """Each perftest run in ``text`` as the port it ran on, its ``perftest`` what it measured
    (Gbit/s and microseconds). The port is the command's ``-i``/``--ib-port``, else perftest's
    default 1 (said). Raises ParseError when no run's settings block names its device."""
    ports: list[HcaPort] = []
    warnings: list[ParseWarning] = []
    command: tuple[str, int | None, str | None] | None = None  # (tool, port, server)
    current: HcaPort | None = None
    run: PerftestRun | None = None
    gids: list[str] = []
    head: str | None = None  # "bw" or "lat" under a report header
    scale = GBIT_PER_MIB
    title: str | None = None
    for no, line, _ in numbered_lines(text):
        if (c := _PERFTEST_COMMAND_RE.search(line)) and "#" not in line:
            args = c.group("args")
            p, words = _PERFTEST_PORT_RE.search(args), args.split()
            server, at = None, 0
            while at < len(words):
                word = words[at]
                if not word.startswith("-"):
                    server, at = word, at + 1
                else:  # an option: a flag alone, or with its value in the next word
                    at += 1 if word in _PERFTEST_FLAGS or "=" in word else 2
            command = (c.group("tool"), int(p.group("port")) if p else None, server)
            continue
        if t := _PERFTEST_TITLE_RE.match(line):
            title = f"{t.group('test')} {t.group('kind')}"
            continue
        if "Dual-port" in line and (d := _PERFTEST_DEVICE_RE.search(line)):
            port_no = command[1] if command and command[1] is not None else None
            run = PerftestRun(test=title or (command[0] if command else "perftest"))
            if command and command[2]:
                run.peer = command[2]
            current = HcaPort(
                ca=d.group("ca"),
                port=port_no or 1,
                line=no,
                tool=f"perftest {command[0] if command else run.test}",
            )
            current.perftest = run
            if port_no is None:
                warnings.append(
                    ParseWarning(
                        line=no,
                        message=f"perftest on {d.group('ca')}: the command is not in the file, so its port is taken as perftest's default 1",
                        skipped=False,
                    )
                )
            ports.append(current)
            gids, head, title, command = [], None, None, None
            continue
        if current is None or run is None:
            continue
        if s := _PERFTEST_SETTING_RE.match(line):
            key, value = s.group("key"), s.group("value")
            if key == "Link type":
                current.link_layer = value
            elif key == "Mtu" and (mtu := re.match(r"\d+", value)):
                current.active_mtu = int(mtu.group(0))
            continue
        if g := _PERFTEST_GID_RE.match(line):
            gids.append(g.group("ip").replace(":", "."))
            run.local = gids[0]
            if len(gids) > 1 and run.peer is None:
                run.peer = gids[1]
            continue
        if h := _PERFTEST_BW_HEAD_RE.search(line):
            head, scale = "bw", (1.0 if h.group("unit") == "Gb" else GBIT_PER_MIB)
            continue
        if _PERFTEST_LAT_HEAD_RE.search(line):
            head = "lat"
            continue
        if e := _PERFTEST_ERROR_RE.match(line):
            run.failed = run.failed or e.group("what")
            continue
        if head and (r := _PERFTEST_ROW_RE.match(line)):
            if head == "bw":
                avg = round(float(r.group("b")) * scale, 3)
                run.rows.append(
                    {
                        "bytes": int(r.group("bytes")),
                        "iterations": int(r.group("iters")),
                        "bw_peak_gbps": round(float(r.group("a")) * scale, 3),
                        "bw_average_gbps": avg,
                    }
                )
                run.bw_average_gbps = avg
            elif r.group("d") is not None:
                t_avg = float(r.group("d"))
                run.rows.append(
                    {
                        "bytes": int(r.group("bytes")),
                        "iterations": int(r.group("iters")),
                        "t_min_us": float(r.group("a")),
                        "t_avg_us": t_avg,
                    }
                )
                run.latency_avg_us = t_avg
    if not ports:
        raise ParseError('no perftest settings block ("Dual-port : ... Device : ...")')
    for port in ports:
        run = port.perftest
        if run is not None and not run.rows and run.failed is None:
            warnings.append(
                ParseWarning(
                    line=port.line,
                    message=f"perftest on {port.ca}: no report row under its settings (the copy ends before it?)",
                    skipped=False,
                )
            )
    return ports, warnings
