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

import itertools
import re
import statistics
from collections import Counter
from dataclasses import dataclass, field

from advisor.parsers import (
    MARKED_PROMPT_HOST_RE,
    NODE_NAME,
    ParseError,
    ParseWarning,
    numbered_lines,
)

IBSTAT_SIGNATURE = (
    # (a copy of a terminal multiplexer's pane keeps its border before each line: PANE_BARS)
    r"^[│┃║]?[ \t]*CA '[^'\n]+'[ \t]*\r?\n[│┃║]?[ \t]*CA type:"
    # ibstat's own failure alone (libibumad's IBPANIC: "ibpanic: [pid] main: stat of IB device
    # 'mlx5_8' failed: ..."), read as what it says
    r"|^ibpanic: \[\d+\] main: stat of IB device '[^'\n]+' failed"
    # (or on a name it was given that no listed device's name starts: IBSTAT_NOT_FOUND_RE)
    r"|^ibpanic: \[\d+\] main: '[^'\n]+' IB device can't be found"
    # a port's block copied without its device's ("Port 1:" over "State: Down")
    r"|^[ \t]*Port \d+:[ \t]*\r?\n[ \t]+State:[ \t]*\w+"
)
_HEADLESS_IBSTAT_PORT_RE = re.compile(r"^\s*Port \d+:\s*\n\s+State:\s*\w+")
IBSTATUS_SIGNATURE = r"^[ \t]*Infiniband device '[^'\n]+' port \d+ status:"
# iproute2's ``rdma link`` (rdma link show): a line a port, "link mlx5_7/1 subnet_prefix ... lid
# 3403 sm_lid 1 lmc 0 state DOWN physical_state POLLING [netdev ib7]"
# (older iproute2 leads with the device's and port's indexes instead of "link": "0/1: mlx5_0/1:
# state DOWN physical_state DISABLED")
RDMA_LINK_SIGNATURE = (
    r"^[ \t]*(?:link |\d+/\d+: )[\w-]+/\d+:? .*?\bstate [A-Z_]+ physical_state [A-Z_]+"
)
# the RDMA core's own files, read with grep or cat (the kernel's sysfs ABI for InfiniBand ports,
# /sys/class/infiniband/<device>/ports/<n>/{state,phys_state,rate,link_layer}, which ibstatus
# prints too): "/sys/class/infiniband/mlx5_0/ports/1/state:4: ACTIVE" (grep ""), or a cat of a
# path a copy wrapped after "ports/" ("# cat /sys/class/infiniband/mlx4_0/ports/" then
# "1/state 2: INIT")
SYSFS_PORTS_SIGNATURE = (
    r"^[ \t]*/sys/class/infiniband/[\w.-]+/ports/\d+/(?:state|phys_state|rate|link_layer):[ \t]*\S"
    r"|/sys/class/infiniband/[\w.-]+/ports/[ \t]*\r?\n\d+/(?:state|phys_state|rate|link_layer)[ \t]+\S"
)
_SYSFS_ATTR_RE = re.compile(
    r"^\s*/sys/class/infiniband/(?P<ca>[\w.-]+)/ports/(?P<port>\d+)/"
    r"(?P<attr>state|phys_state|rate|link_layer)(?::\s*|\s+)(?P<value>\S.*?)\s*$"
)
_SYSFS_WRAPPED_RE = re.compile(r"/sys/class/infiniband/(?P<ca>[\w.-]+)/ports/\s*$")
_SYSFS_TAIL_RE = re.compile(
    r"^(?P<port>\d+)/(?P<attr>state|phys_state|rate|link_layer)\s+(?P<value>\S.*?)\s*$"
)
_SYSFS_RATE_RE = re.compile(r"^(?P<gbps>\d+(?:\.\d+)?) Gb/sec")


def _sysfs_ports(numbered: list[tuple[int, str, int | None]]) -> list[HcaPort]:
    """Ports of the RDMA core's sysfs files as a copy shows them (``SYSFS_PORTS_SIGNATURE``): each
    (device, port) once, its state, physical state, rate and link layer where read."""
    ports: dict[tuple[str, int], HcaPort] = {}
    for index, (no, line, _) in enumerate(numbered):
        if m := _SYSFS_ATTR_RE.match(line):
            ca, port, attr, value = m.group("ca"), int(m.group("port")), m["attr"], m["value"]
        elif (w := _SYSFS_WRAPPED_RE.search(line)) and index + 1 < len(numbered):
            if not (t := _SYSFS_TAIL_RE.match(numbered[index + 1][1].strip())):
                continue
            ca, port, attr, value = w.group("ca"), int(t.group("port")), t["attr"], t["value"]
        else:
            continue
        hp = ports.setdefault((ca, port), HcaPort(ca=ca, port=port, line=no, tool="sysfs"))
        value = re.sub(r"^\d+:\s*", "", value)  # ("4: ACTIVE": the number before the name)
        if attr == "state":
            hp.state, hp.active = value, value in ACTIVE_STATES
        elif attr == "phys_state":
            hp.physical_state = value
        elif attr == "rate" and (r := _SYSFS_RATE_RE.match(value)):
            hp.rate_gbps = float(r.group("gbps"))
        elif attr == "link_layer":
            hp.link_layer = value
    return list(ports.values())


_RDMA_LINK_RE = re.compile(
    r"^\s*(?:link |\d+/\d+: )(?P<ca>[\w-]+)/(?P<port>\d+):? .*?\bstate (?P<state>[A-Z_]+) "
    r"physical_state (?P<phys>[A-Z_]+)(?:.*?\bnetdev (?P<netdev>\S+))?"
)
"""``ibstatus`` (infiniband-diags' script over sysfs): a block a port, ``state: 4: ACTIVE``,
``phys state: 5: LinkUp``, ``rate: 100 Gb/sec (4X EDR)``, ``link_layer: InfiniBand``."""
_IBSTATUS_RE = re.compile(r"^\s*Infiniband device '(?P<ca>[^']+)' port (?P<port>\d+) status:\s*$")
_IBSTATUS_NUMBER_RE = re.compile(r"^\d+:\s*")
# (linear time on a long run: a match starts where its run starts, not at each character of a long
# one)
_POSTED_MARK_RE = re.compile(
    r"(?:(?<!\s)\s+)?(?:<-{2,}|<={2,}|<{2,}|\u2190|<--?\s*(?:here|this|!+)).*$", re.IGNORECASE
)
IBDEV2NETDEV_SIGNATURE = (
    # (pdsh's "node1: " before a row: ``_PDSH_IBDEV2NETDEV_HOST_RE``)
    r"^(?:[A-Za-z0-9][\w.-]{0,252}: )?[ \t]*(?:[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.\d[ \t]+)?[A-Za-z][\w-]*"
    r"(?:[ \t]+\([^)\n]*\)[^\n]*?\bfw[ \t]+\S+)?"
    r"[ \t]+port[ \t]+\d+(?:[ \t]+\([A-Z_]+[ \t]*\))?[ \t]+==>[ \t]+\S+[ \t]+\((?:Up|Down)\)"
)
"""``ibdev2netdev`` (Mellanox OFED): ``mlx5_0 port 1 ==> ib0 (Up)``, the netdev of each RDMA port
and that netdev's own state (for InfiniBand the IPoIB interface's, not the port's). With ``-v``:
``0000:02:00.0 mlx5_0 (MT4115 - MT1523X04353) CX456A - ConnectX-4 QSFP fw 12.23.1020 port 1
(ACTIVE) ==> ib0 (Up)``, the PCI address, part, firmware and the RDMA port's own state. Device
names need no digit group (rdma-core's ``irdma0``, ``rocep12s0f0``)."""
# pdsh's "node1: " before each row of a host's ibdev2netdev (dshbak(1): "the leading node: is
# stripped"; ``pdsh -w node[1-2] ibdev2netdev``): any host name, taken only where an
# ibdev2netdev row follows it
_PDSH_IBDEV2NETDEV_HOST_RE = re.compile(r"^(?P<host>[A-Za-z0-9][\w.-]{0,252}): (?=[ \t]*\S)")
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
# infiniband-diags' sminfo (sminfo.c: printf("sminfo: sm lid %d sm guid 0x%" PRIx64 ", activity
# count %u priority %d state %d %s\n"), the state one of SMINFO_NOTACT, SMINFO_DISCOVER,
# SMINFO_STANDBY, SMINFO_MASTER). Without a destination it asks the SM its own port knows
# (ibdiag_common.c resolve_sm_portid: the port's sm_lid), through the default port (libibumad
# umad.c resolve_ca_name: the first CA with an active InfiniBand port). The GUID is taken as any
# word after "0x": a copy posted in public often masks it ("0x2cGUID"), the rest of the line as
# printed
_SMINFO_RE = re.compile(
    r"^\s*sminfo: sm lid (?P<lid>\d+) sm guid (?P<guid>0x\w{1,40}), activity count "
    r"(?P<activity>\d+) priority (?P<priority>\d+) state (?P<state>\d+) (?P<name>[A-Z_?]+)"
)
# sminfo's answer, or its exit (ibdiag_common.c ibexit: "sminfo: iberror: failed: %s"), is the
# copy's own: a copy holding sminfo alone is read (the state numbers are the man page's, sminfo.8:
# -s "0 not active, 1 discovering, 2 standby, 3 master")
SMINFO_SIGNATURE = (
    r"^[ \t]*sminfo: (?:sm lid \d+ sm guid 0x\w{1,40}, activity count|iberror: )"
    # smpquery's NodeDesc answer under its command (infiniband-diags smpquery.c node_desc:
    # printf("Node Description:%s%s\n", dots, nodename), dots padding the name to 32 columns,
    # one dot at least; the op's names "NodeDesc" and "ND")
    r"|smpquery[ \t]+(?:-[\w-]+[ \t]+){0,4}(?:ND|NodeDesc|nd|nodedesc)\b[^\n]*\r?\n"
    r"[ \t]*Node Description:\."
)
# saquery's own failure to reach the SA, a copy holding it alone (no sminfo line above): its
# IBWARN in infiniband-diags ibdiag_sa.c sa_get_handle ("umad_open_port on port %s:%d failed")
# and saquery.c main's IBPANIC("Failed to bind to the SA") where sa_get_handle returns NULL
# (libibmad's ibpanic puts "ibpanic: [pid] fn: " first and ": " strerror(errno) after)
SA_BIND_FAILED_SIGNATURE = (
    r"^[ \t]*ibwarn: \[\d{1,10}\] sa_get_handle: umad_open_port on port [^\s:]{0,80}:\d{1,6} failed"
    r"|^[ \t]*ibpanic: \[\d{1,10}\] main: Failed to bind to the SA\b"
)
_NODE_DESC_RE = re.compile(r"^\s*Node Description:\.{1,32}(?P<desc>[^\n]{0,200}?)\s*$")
_SMPQUERY_RE = re.compile(r"(?:^|[\s/$#])smpquery[ \t]+(?P<args>[^\n]{0,300})")
# smpquery's flags that take a value (infiniband-diags ibdiag_common.c's common options: -C ca,
# -P port, -t timeout, -y m_key, -z config, --node-name-map file); -L, -G and -D take none: they
# say how the destination is given (a LID unless -G or -D)
_SMPQUERY_VALUED = frozenset({"-C", "-P", "-t", "-y", "-z", "--node-name-map", "--Ca", "--Port"})


def _smpquery_nd_dest(args: str) -> str | None:
    """The destination of an ``smpquery ND`` command line's arguments, as ``lid N``, ``guid G``
    or ``path P``; None where the op is another or no destination is given."""
    words = args.split()
    kind = "lid"
    plain: list[str] = []
    skip = False
    for word in words:
        if skip:
            skip = False
        elif word in _SMPQUERY_VALUED:
            skip = True
        elif word in ("-G", "--Guid"):
            kind = "guid"
        elif word in ("-D", "--Direct"):
            kind = "path"
        elif not word.startswith("-"):
            plain.append(word)
    if len(plain) < 2 or plain[0].lower() not in ("nd", "nodedesc"):
        return None
    return f"{kind} {plain[1]}"


# A MAD tool that could not open its port (rdma-core): libibmad rpc.c mad_rpc_open_port's
# IBWARN ("ibwarn: [%d] %s: " fmt): "can't open UMAD port (%s:%d)" where libibumad's
# umad_open_port fails (umad.c do_umad_open_port: no ABI version, ib_umad not loaded; no CA or
# port found; open() of /dev/infiniband/umadN refused), and "client_register for mgmt %d failed"
# after it opened, where umad_register is refused for a management class (the kernel's
# ib_register_mad_agent, Linux drivers/infiniband/core/mad.c: -EPROTONOSUPPORT for a QP the
# port does not have, "Ethernet devices will not have QP0"; -ENODEV for a port with no MAD
# agent); libibnetdisc ibnetdisc.c ibnd_discover_fabric's IBND_ERROR ("%s:%u; " __FILE__,
# __LINE__) "can't open MAD port (%s:%d)", its CA and port as given ("(null):0": none, the
# default); and the tool's exit, infiniband-diags ibdiag_common.c ibexit: "%s: iberror: failed:
# %s" ("%s: iberror: [pid %d] %s: failed: %s" under -d), ibnetdiscover.c's "discover failed"
_MAD_OPEN_FAILED_RE = re.compile(
    r"^\s*ibwarn: \[\d+\] (?P<fn>\w+): (?:client_register for mgmt (?P<mgmt>\d+) failed"
    r"|can't open UMAD port \((?P<umad>[^\n]*?:\d+)\))"
)
_IBND_OPEN_FAILED_RE = re.compile(
    r"^\s*(?:\S*/)?ibnetdisc\.c:\d+; can't open MAD port \((?P<ca>[^:\n]*?):(?P<port>\d+)\)"
)
_DIAG_IBERROR_RE = re.compile(
    r"^[ \t]*(?:\S*/)?(?P<tool>[\w.-]+): iberror: (?:\[pid \d+\] \w+: )?failed: (?P<what>[^\n]+)"
)
# infiniband-diags' SA tools (saquery; ibdiag_sa.c sa_get_handle): "umad_open_port on port %s:%d
# failed" (IBWARN) where libibumad's umad_open_port fails, then saquery.c main's
# IBPANIC("Failed to bind to the SA"), libibmad's ibpanic adding ": " and strerror(errno) ("ibpanic:
# [pid] main: Failed to bind to the SA: Permission denied": open() of /dev/infiniband/umadN
# refused to that user)
_SA_UMAD_FAILED_RE = re.compile(
    r"^\s*ibwarn: \[\d+\] (?P<fn>\w+): umad_open_port on port (?P<umad>[^\s:]{0,80}:\d+) failed"
)
# another tool's IBPANIC than ibstat's two (IBSTAT_SIGNATURE's): "ibpanic: [pid] fn: what"
_DIAG_PANIC_RE = re.compile(r"^\s*ibpanic: \[\d+\] (?P<fn>\w+): (?P<what>[^\n]{1,300}?)\s*$")
_IBSTAT_PANIC_RE = re.compile(
    r"^\s*ibpanic: \[\d+\] main: (?:stat of IB device '[^'\n]+' failed|'[^'\n]+' IB device can't be found)"
)
# the command a shell prompt ran ("[dphpc@slimflysmw benchmarks]$ saquery -s": saquery), found
# anywhere in the line (the perftest reader's _PROMPT_COMMAND_RE below is anchored at its start)
_PROMPT_RAN_RE = re.compile(r"[$#][ \t]{1,8}(?:sudo[ \t]{1,8})?(?P<cmd>[\w.-]{1,40})(?:[ \t]|$)")
_UMAD_FILES_RE = re.compile(r"^\s*/dev/infiniband/umad\d+(?:\s+/dev/infiniband/umad\d+)*\s*$")
# libibmad mad.h's management classes (IB_SMI_CLASS 0x1, IB_SMI_DIRECT_CLASS 0x81, IB_SA_CLASS
# 0x3, IB_PERFORMANCE_CLASS 0x4), as mad_rpc_open_port prints them, in decimal
_MGMT_CLASSES = {
    1: "subnet management by LID, the port's QP0",
    129: "directed-route subnet management, the port's QP0",
    3: "subnet administration",
    4: "performance management",
}
# libibnetdisc's users: their failure is the fabric's discovery's (ibhosts, ibswitches and
# ibnodes run ibnetdiscover)
_FABRIC_TOOLS = frozenset({"ibnetdiscover", "iblinkinfo", "ibqueryerrors", "ibhosts", "ibswitches"})


def _mad_failure_note(
    failed: list[tuple[int, str, re.Match[str]]], umad_files: tuple[int, int] | None
) -> ParseWarning:
    """One note for a MAD tool's failure: its exit (``iberror``) and the lines above it that say
    why (``failed``: ``(line, kind, match)`` in the copy's order, kind ``register``, ``umad``,
    ``ibnd`` or ``iberror``); ``umad_files``: the line and count of a listing of
    /dev/infiniband/umad* in the same copy."""
    exit_ = next(((no, m) for no, kind, m in failed if kind in ("iberror", "panic")), None)
    opened: list[str] = []  # libibnetdisc's word that it could not open its MAD port
    causes: list[str] = []  # libibmad's, on why
    for no, kind, m in failed:
        if kind == "ibnd":
            named = m.group("ca") not in ("(null)", "") or m.group("port") != "0"
            opened.append(
                f"libibnetdisc could not open its MAD port (line {no}"
                + (
                    f", {m.group('ca')}:{m.group('port')})"
                    if named
                    else ": none named, the default)"
                )
            )
        elif kind == "register":
            mgmt = int(m.group("mgmt"))
            causes.append(
                f"libibmad could not register for management class {mgmt}"
                + (f" ({_MGMT_CLASSES[mgmt]})" if mgmt in _MGMT_CLASSES else "")
                + f" (line {no}): ib_umad is loaded and the umad device opened (libibmad says "
                "'can't open UMAD port' where ib_umad is not loaded or /dev/infiniband/umad* "
                "cannot be opened"
                + (
                    f"; {umad_files[1]} umad device(s) listed on line {umad_files[0]}"
                    if umad_files
                    else ""
                )
                + "), but the kernel refused the agent on that port (a port without that QP, "
                "as an Ethernet port has no QP0, or one with no MAD agent)"
            )
        elif kind == "umad":
            port = (
                "(none named, the default)"
                if m.group("umad") in ("(null):0", ":0")
                else m.group("umad")
            )
            if exit_ and "Permission denied" in exit_[1].group("what"):
                # (the exit's strerror names the cause: open() of the umad device refused)
                causes.append(
                    f"its umad port (/dev/infiniband/umad*) could not be opened {port} (line "
                    f"{no}), Permission denied: the user running it may not open the umad "
                    "device (root's, unless its mode or group grants the user access)"
                )
            else:
                causes.append(
                    f"libibmad could not open the umad port {port} (line {no}): ib_umad "
                    "not loaded, no permission on /dev/infiniband/umad*, or no InfiniBand port "
                    "to use"
                )
    tool = exit_[1].group("tool") if exit_ else "ibnetdiscover" if opened else None
    said = (
        f"{tool} failed: {exit_[1].group('what').strip()} (line {exit_[0]})"
        if exit_
        else f"{tool or 'a MAD tool'} could not open its port (the copy ends before its exit)"
    )
    why = ", as ".join(x for x in ("; ".join(opened), "; ".join(causes)) if x)
    return ParseWarning(
        line=failed[0][0],
        message=said
        + (f": {why}" if why else "")
        + (
            "; the fabric was not discovered: none of its nodes or links is read here"
            if tool in _FABRIC_TOOLS or opened
            else ""
        ),
        skipped=False,
    )


def _sminfo_note(
    no: int, m: re.Match[str], unmanaged: list[HcaPort], node: tuple[int, str] | None = None
) -> ParseWarning:
    """sminfo's answer said: the SM's LID, GUID, priority and state; ``unmanaged``: the same
    host's InfiniBand ports in the copy that know no SM (SM lid 0) while sminfo reached one;
    ``node``: smpquery ND's answer for the SM's LID (its line, the node's description)."""
    state = m.group("name")
    said = (
        f"sminfo: the subnet manager at lid {m.group('lid')} (guid {m.group('guid')}, priority "
        f"{m.group('priority')}, activity count {m.group('activity')}) is "
        + {
            "SMINFO_MASTER": "the master (SMINFO_MASTER): a subnet manager runs on the fabric "
            "sminfo's port is on",
            "SMINFO_STANDBY": "a standby (SMINFO_STANDBY): the master is another",
            "SMINFO_DISCOVER": "still discovering the fabric (SMINFO_DISCOVER)",
            "SMINFO_NOTACT": "not active (SMINFO_NOTACT)",
        }.get(state, f"in state {m.group('state')} {state}")
        + f" (line {no})"
    )
    if node is not None:
        said += f"; smpquery ND names lid {m.group('lid')}'s node: {node[1]} (line {node[0]})"
    if unmanaged and m.group("lid") != "0":
        names = ", ".join(
            f"{p.ca} port {p.port} ({p.state}, line {p.state_line or p.line})" for p in unmanaged
        )
        said += (
            f"; {names} report{'s' if len(unmanaged) == 1 else ''} SM lid 0: sminfo, given no "
            "LID, asks the SM its own port knows, so its answer came through another port, and "
            f"that SM has not configured {'it' if len(unmanaged) == 1 else 'them'}"
        )
    return ParseWarning(line=no, message=said, skipped=False)


# ibv_devinfo -v's port lines copied from its phys_state on, with the port's GID rows under it
# and neither the device's hca_id nor the port's "port:" line (rdma-core
# libibverbs/examples/devinfo.c print_formated_gid: "\t\t\tGID[%3d]:\t\t<gid>, RoCE v2", the
# type after a comma on an Ethernet port only; a RoCE v1 GID in hex groups, a RoCE v2 one through
# inet_ntop, "::ffff:a.b.c.d" for an IPv4 address)
# (devinfo.c port_phy_state_str: SLEEP, POLLING, DISABLED, "PORT_CONFIGURATION TRAINNING",
# LINK_UP, LINK_ERROR_RECOVERY, "PHY TEST", then the number in brackets)
_DEVINFO_PHYS_RE = re.compile(
    r"^[ \t]*phys_state:[ \t]*(?P<state>[A-Z_]{1,40}(?: [A-Z_]{1,20})?)(?:[ \t]*\(\d{1,3}\))?[ \t]*$"
)
_DEVINFO_GID_RE = re.compile(
    r"^[ \t]*GID\[[ \t]*(?P<index>\d{1,5})\]:[ \t]*(?P<gid>[0-9a-fA-F:.]{2,45})"
    r"(?:,[ \t]*(?P<type>RoCE v[12]|IB/RoCE v1|IB))?[ \t]*$"
)
_DEVINFO_FRAGMENT_SIGNATURE = (
    r"^[ \t]*phys_state:[ \t]*[A-Z_]{1,40}(?: [A-Z_]{1,20})?[ \t]*(?:\(\d+\))?[ \t]*\r?\n"
    r"[ \t]*GID\[[ \t]*\d+\]:"
)


@dataclass
class DevinfoGid:
    """One ``GID[ N]:`` row of an ibv_devinfo -v port."""

    line: int
    index: int
    gid: str
    gid_type: str | None
    """``RoCE v1`` / ``RoCE v2`` as printed; None where the row names none (an InfiniBand port)."""

    @property
    def ipv4(self) -> str | None:
        """The IPv4 address a RoCE GID carries (``::ffff:a.b.c.d``), else None."""
        m = re.fullmatch(r"::ffff:(\d{1,3}(?:\.\d{1,3}){3})", self.gid, re.I)
        return m.group(1) if m else None


def devinfo_gid_fragment(text: str) -> tuple[str, int, list[DevinfoGid]] | None:
    """An ibv_devinfo -v port fragment: its phys_state (as printed, without the number), that
    line, and the GID rows under it; None where the text does not start so (after blank lines)."""
    lines = [(no, line) for no, line, _ in numbered_lines(text) if line.strip()]
    if not lines or not (phys := _DEVINFO_PHYS_RE.match(lines[0][1])):
        return None
    gids = []
    for no, line in lines[1:]:
        g = _DEVINFO_GID_RE.match(line)
        if g is None:
            return None  # (another field or output: not this fragment alone)
        gids.append(DevinfoGid(no, int(g["index"]), g["gid"], g["type"]))
    return (phys["state"], lines[0][0], gids) if gids else None


IBV_DEVINFO_SIGNATURE = (
    _DEVINFO_FRAGMENT_SIGNATURE + "|"
    # (a web page may drop the tab before each field: "transport:" flush left under hca_id)
    r"^[ \t]*hca_id:[ \t]*\S+[ \t]*\r?\n[ \t]*transport:[ \t]+\w"
    # a port block copied without its device (ibv_devinfo -v's "port: 1" over "state: PORT_...")
    r"|^[ \t]*port:[ \t]*\d+[ \t]*\r?\n[ \t]+state:[ \t]*PORT_[A-Z_]+"
    # a grep of ibv_devinfo -v that kept the device and state lines, not the port's
    # ("ibv_devinfo -v | grep -E 'hca_id|state|active_width'")
    r"|^[ \t]*hca_id:[ \t]*\S+[ \t]*\r?\n[ \t]+state:[ \t]*PORT_[A-Z_]+"
    # ... or that kept some of the device's fields between them too ("grep -E
    # 'hca_id|fw_ver|vendor_part_id|state|phys_state'"): a port's state within the next
    # lines of the device's "key: value" fields (bounded, so a long file is scanned once)
    r"|^[ \t]*hca_id:[ \t]*\S+[ \t]*\r?\n(?:[ \t]+\w+:[ \t][^\n]*\n){1,40}?[ \t]+state:"
    r"[ \t]*PORT_[A-Z_]+"
)
_HEADLESS_PORT_RE = re.compile(r"^\s*port:\s*\d+\s*\n\s+state:\s*PORT_[A-Z_]+")
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
# (older infiniband-diags print "Switch 0xGUID NAME:" without the colon after Switch)
_IBLINK_HEAD_RE = re.compile(
    r"^\s*(?:CA: (?P<ca>.+?)|Switch:? 0x[0-9a-fA-F]+ (?P<switch>.+?)):\s*$"
)
_IBLINK_RE = re.compile(
    # (-l puts the node's GUID and name before each line; FDR10 names itself after the speed)
    r"^\s*(?:(?P<guid>0x[0-9a-fA-F]+)\s+)?(?:\"(?P<node>[^\"]*)\"\s+)?(?P<lid>\d+)\s+(?P<port>\d+)\[[^\]]*\]\s+==\(\s*"
    r"(?:(?P<width>\d+)X\s+(?P<speed>[\d.]+) Gbps\s+(?:\([^)]*\)\s+)?)?(?P<state>\w+)/\s*(?P<phys>[\w ]+?)\s*\)==>"
    r"\s*(?:0x[0-9a-fA-F]+\s+)?(?:(?P<plid>\d+)\s+(?P<pport>\d+))?\s*\[[^\]]*\]\s+\"(?P<peer>[^\"]*)\""
    r"(?:\s*\((?P<note>[^)]*)\))?"
)
"""A link line; ``note``: iblinkinfo's remark after it, ``Could be 4X 53.125 Gbps`` where the link
trained narrower or slower than both its ends support."""


IBNETDISCOVER_SIGNATURE = (
    # (the kind, then a tab as ibnetdiscover.c's out_switch_detail and out_ca_detail print it,
    # or a space where a web copy collapsed it: spelt out, words the fast pre-test can look for)
    r"^(?:Switch[ \t]|Ca |Ca\t|Rt |Rt\t)[ \t]*\d+[ \t]+\"[^\"\n]+\"[ \t]+#[ \t]+\"[^\"\n]*\"[^\n]*\n"
    r"\[\d+\][^\n]*\"[^\"\n]+\"\[\d+\]"
)
"""``ibnetdiscover`` (infiniband-diags): the fabric's topology file, a block a node (``Switch
36 "S-..."  # "desc" ... lid 7``, ``Ca 2 "H-..."  # "desc"``) with a line a connected port:
``[1](PORTGUID)  "S-..."[3]  # lid 6 lmc 0 "desc" lid 7 4xEDR``, the link's width and speed
(libibnetdisc's names: SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR) at its end."""
_IBNET_NODE_RE = re.compile(
    r'^(?P<kind>Switch|Ca|Rt)\s+\d+\s+"(?P<id>[^"]+)"\s+#\s+"(?P<desc>[^"]*)"'
)
# A port GUID in parentheses: ibnetdiscover prints it in hex ("(144fa5eb88002d)"); a copy put on
# the web may have had its digits masked ("(b83f<redacted>)", "(b83fXXXXXXXXXXXX)", "(****)"),
# the rest of the line as printed: any run of hex digits, mask letters and mask marks (bounded).
_IBNET_GUID = r"\([0-9A-Za-z<>*._-]{1,40}\)"
_IBNET_PORT_RE = re.compile(
    rf'^\[(?P<port>\d+)\](?:{_IBNET_GUID})?\s+"(?P<peer>[^"]+)"\[(?P<pport>\d+)\]'
    rf"(?:{_IBNET_GUID})?\s+#(?P<rest>.*?)\s(?P<width>\d+)x(?P<speed>SDR|DDR|QDR|FDR10|FDR|EDR|HDR|NDR|XDR)\s*$"
)
_IBNET_PEER_DESC_RE = re.compile(r'"(?P<desc>[^"]*)"')
# A line that stands for lines a copy left out ("...", "...omitted", "... 省略"): the topology
# file goes on past it, unread.
_IBNET_ELIDED_RE = re.compile(r"^[ \t]*(?:\.{3,}|…)[ \t]*(?:omitted|省略)?[ \t]*$")


def ibnetdiscover_outline(text: str) -> tuple[list[tuple[int, str, str]], int | None]:
    """``ibnetdiscover``'s nodes, ``(line, kind, description)`` a ``Switch`` / ``Ca`` / ``Rt``
    line, and the line of a "..." below the first one where the copy left the rest out (None
    when it left nothing out)."""
    nodes: list[tuple[int, str, str]] = []
    elided: int | None = None
    for no, line in enumerate(text.splitlines(), 1):
        if line.startswith(("Switch", "Ca", "Rt")) and (nd := _IBNET_NODE_RE.match(line)):
            nodes.append((no, nd.group("kind"), nd.group("desc") or nd.group("id")))
        elif nodes and elided is None and _IBNET_ELIDED_RE.match(line):
            elided = no
    return nodes, elided


def ibnetdiscover_switch_peers(text: str) -> dict[int, bool]:
    """Each ``ibnetdiscover`` port line's number: whether the node at its other end is a switch
    (its id "S-GUID", as ibnetdiscover and ibdiagnet's topology file name a switch; "H-GUID" an
    HCA's port)."""
    peers: dict[int, bool] = {}
    for no, line in enumerate(text.splitlines(), 1):
        if line.startswith("[") and (ip := _IBNET_PORT_RE.match(line)):
            peers[no] = ip.group("peer").startswith("S-")
    return peers


# a lane's nominal rate by libibnetdisc's speed name (InfiniBand's SDR 2.5 Gb/s ... NDR 100)
_IB_SPEED_GBPS = {
    "SDR": 2.5, "DDR": 5.0, "QDR": 10.0, "FDR10": 10.0, "FDR": 14.0, "EDR": 25.0, "HDR": 50.0,
    "NDR": 100.0, "XDR": 200.0,
}  # fmt: skip
_HCA_MODEL_RE = re.compile(r"\bHCA\b|ConnectX|InfiniHost|\bMT\d{4,5}\b")
"""An HCA's model in a node description ("MT25204 InfiniHostLx Mellanox Technologies")."""
_HCA_NAME_RE = re.compile(r"\bHCA-\d+\b|\bmlx\d+_\d+\b")
"""A node description naming an HCA (the default "host HCA-1", or "host mlx5_0")."""

ACTIVE_STATES = frozenset({"Active", "PORT_ACTIVE", "PORT_ACTIVE_DEFER", "ACTIVE"})
_PORT_STATES = ACTIVE_STATES | frozenset(
    {"Down", "Initializing", "Armed", "PORT_DOWN", "PORT_INIT", "PORT_ARMED", "DOWN", "INIT"}
)
"""ibstat's and ibv_devinfo's port states (libibverbs' enum ibv_port_state, in their words)."""
"""The states of a port that carries traffic (ibstat's, ibv_devinfo's and ibstatus' words)."""

_CA_RE = re.compile(r"^\s*CA '(?P<ca>[^']+)'\s*$")
_HCA_RE = re.compile(r"^\s*hca_id:\s*(?P<ca>\S+)\s*$")
_IBSTAT_PORT_RE = re.compile(r"^\s*Port (?P<port>\d+):\s*$")
_DEVINFO_PORT_RE = re.compile(r"^\s*port:\s*(?P<port>\d+)\s*$")
_FIELD_RE = re.compile(r"^\s*(?P<key>[A-Za-z_][\w ]*?)\s*:\s*(?P<value>\S.*?)\s*$")
# (linear time on a long run: a match starts where its run starts, not at each character of a long
# one)
_STATE_NUMBER_RE = re.compile(r"(?:(?<!\s)\s+)?\(\d+\)$")
"""ibv_devinfo's number after a state or MTU ("PORT_ACTIVE (4)", "4096 (5)")."""


@dataclass(kw_only=True)
class HcaPort:
    """One port of an RDMA device."""

    ca: str
    port: int
    line: int
    """The line of the port's block."""
    tool: str
    """``ibstat``, ``ibv_devinfo``, ``ibstatus``, ``ibdev2netdev``, ``iblinkinfo``,
    ``ibnetdiscover``, ``ibportstate`` (its ``ca`` the LID: a switch's port or an HCA's, as
    queried) or ``sysfs`` (the RDMA core's port files, read with grep or cat)."""
    state: str | None = None
    """As printed, without ibv_devinfo's number: ``Active``, ``Down``, ``PORT_ACTIVE`` ..."""
    state_line: int | None = None
    """The line of the port's state where the output prints it on a line of its own under the
    port's heading (ibstat's ``State:``, ibv_devinfo's ``state:``, ibstatus' ``state:``): what a
    finding on the state cites; None where the state stands on the port's own line."""
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
    trouble: str | None = None
    """``mlxlink``'s Troubleshooting Info where its Status Opcode is not 0 (``status opcode 25
    (group PHY FW): Cable speed not enabled``): the adapter firmware's own diagnosis of why the
    link is not as it should be."""
    trouble_line: int | None = None
    """With ``trouble``: the line of its Status Opcode."""
    perftest: PerftestRun | None = None
    """A perftest run from this port (``parse_perftest``)."""
    switch: bool | None = None
    """``iblinkinfo`` / ``ibnetdiscover``: the node the link is listed under is a switch."""
    guid_zero: bool | None = None
    """The device's node GUID is all zeros: none was assigned (an SR-IOV virtual function's GUIDs
    are set on the host, /sys/class/infiniband/DEV/device/sriov/N/node and port, or by the subnet
    manager: MLNX_OFED's Single Root IO Virtualization chapter); None where the output gives no
    GUID."""
    sm_lid: int | None = None
    """ibstat's ``SM lid``, ibv_devinfo's ``sm_lid``: the subnet manager's LID the port knows; 0 on
    an InfiniBand port that no subnet manager has configured (it stays Initializing)."""
    base_lid: int | None = None
    """ibstat's ``Base lid``, ibv_devinfo's ``port_lid``: the LID the subnet manager gave the port
    (0, or 65535 on a virtual function's port, where none was given)."""
    all_down: bool | None = None
    """Set on each port of a host's listing (``ibstat``, ``ibv_devinfo``, ``ibstatus``, ``rdma
    link``) whose every port is in state Down (``_mark_all_down``): the listing shows no port
    that carries RDMA traffic, nor one on its way to Active."""
    lane_gbps: float | None = None
    """``iblinkinfo`` / ``ibnetdiscover``: the link's nominal rate a lane (SDR 2.5 ... NDR 100)."""
    fastest_lane_gbps: float | None = None
    """Set where this active link's lanes run slower than the fastest active link's in the same
    file's ``iblinkinfo`` / ``ibnetdiscover`` output: that figure. Width is left out of the
    comparison (a split port, 2X HDR100, is narrower by design); lane speed is what an older
    HCA, a cable or a port forced lower brings down."""
    peer_lanes: int | None = None
    """Set where this active host link (``iblinkinfo`` / ``ibnetdiscover``) runs on fewer lanes
    than most host links of the same file (1x or 2x where they run 4x): that usual width. A lane
    that failed to train narrows a link (iblinkinfo's "Could be" remark, where printed, says the
    same and is left to that); a width most host links share is the build's (split ports)."""
    host: str | None = None
    """The host whose shell prompt (``user@host:~$ ibstat``) stands above the listing: a copy of
    several hosts' listings tells their ports apart by it. None where no prompt names one, and
    for a fabric's nodes (``iblinkinfo``, ``ibnetdiscover``: any host's, seen from that one)."""
    no_active_on_host: bool | None = None
    """Set on each port of a host's whole listing (``ibstat``, ``ibv_devinfo``, ``ibstatus``,
    ``rdma link``, no device named on their command line) when none of its ports is active and
    one of them is linked up (physical state LinkUp): the host has no RDMA port a job can use,
    though a cable to a live fabric is in (an InfiniBand port that no subnet manager brought to
    Active stays Initializing, or Armed)."""
    no_netdev_up_on_host: bool | None = None
    """Set on each ``ibdev2netdev`` port of a host (by its prompt) whose every listed port's
    interface is Down, where nothing in the copy shows one of that host's ports active: the
    RDMA devices it lists are all the host (or pod: an SR-IOV VF is all the RDMA a pod is
    given) has, and none shows a live link (``_mark_no_netdev_up``)."""
    sibling_rate_gbps: float | None = None
    """An active InfiniBand port's: the rate of the fastest active InfiniBand port of the same
    device model (CA type) in the same host's listing, where this port's is lower (ConnectX-5s
    at EDR 100 beside one at FDR 56)."""
    sibling_sm_lid: int | None = None
    """With ``sibling_rate_gbps``: the SM lid the faster ports know, where this port's differs
    (another subnet, under another subnet manager)."""
    software: str | None = None
    """What software device it is, where its device's name is the kernel's software RDMA
    driver's (``SOFTWARE_DEVICES``): Soft-RoCE (rxe) or Soft-iWARP (siw), RDMA run by the host's
    CPU over its IP stack and whatever netdev it is bound to, no RDMA NIC."""
    vf: str | None = None
    """What SR-IOV virtual function it is, where its CA type (``MT<PCI device id>``, the id in
    decimal) is one of the mlx5 VF ids (``MLX5_VF_PARTS``): "ConnectX-4 Virtual Function"."""
    vf_unused: bool | None = None
    """A virtual function's port that is not active (or whose netdev is Down) in a listing of
    its host that shows a physical function's port active: the hypervisor's view of VFs not
    yet given to a VM or pod and configured (``_mark_unused_vfs``), not a rail that failed."""


def _mark_slower_lanes(ports: list[HcaPort]) -> None:
    """Each active fabric link (iblinkinfo, ibnetdiscover) whose lanes run slower than the
    fastest one's of its class in the file gets that figure in ``fastest_lane_gbps``: host links
    (an HCA at one end) are compared with host links, switch-to-switch links with those (HDR
    hosts under NDR uplinks are a design, not a fault). A link listed from both its ends is
    marked once; one iblinkinfo already says could run faster ("Could be ...") is left to that
    remark."""
    links = [
        p for p in ports if p.tool in ("iblinkinfo", "ibnetdiscover") and p.active and p.lane_gbps
    ]

    switches = {p.ca for p in links if p.switch}

    def host_link(p: HcaPort) -> bool:
        # (a switch's link to a node no HCA name marks is to a switch, listed in the file or
        # not: an uplink, "iblinkinfo -S" of one leaf)
        peer = (p.peer or "").rsplit(" port ", 1)[0]
        if not p.switch or _HCA_NAME_RE.search(peer) or _HCA_MODEL_RE.search(peer):
            return True
        return peer not in switches and not peer

    for is_host in (True, False):
        group = [p for p in links if host_link(p) == is_host]
        fastest = max((p.lane_gbps or 0.0 for p in group), default=0.0)
        seen: set[frozenset[str]] = set()
        for p in group:
            ends = frozenset({f"{p.ca} port {p.port}", p.peer or ""})
            if ends in seen:
                continue  # the same link from its other end
            seen.add(ends)
            if p.lane_gbps and p.lane_gbps < fastest and not p.could_be:
                p.fastest_lane_gbps = fastest
        if is_host:
            _mark_narrower(group)


def _mark_narrower(group: list[HcaPort]) -> None:
    """Of one file's active host links, each on fewer lanes than the width most of them run at
    gets that width in ``peer_lanes``: only where the narrower ones are a minority (a width half
    the host links or more share is the build's, split ports 2x HDR100, not a fault)."""
    lanes = {
        id(p): round(p.rate_gbps / p.lane_gbps)
        for p in group
        if p.rate_gbps and p.lane_gbps and not p.could_be
    }
    if not lanes:
        return
    usual, count = Counter(lanes.values()).most_common(1)[0]
    if count * 2 <= len(lanes):
        return  # (no width most host links share: nothing to hold one against)
    seen: set[frozenset[str]] = set()
    for p in group:
        ends = frozenset({f"{p.ca} port {p.port}", p.peer or ""})
        if ends in seen:
            continue  # the same link from its other end: marked once
        seen.add(ends)
        if (n := lanes.get(id(p))) is not None and n < usual:
            p.peer_lanes = usual


def _could_be_once(ports: list[HcaPort]) -> None:
    """iblinkinfo's "Could be ..." remark kept on one end of a link: a file that lists both
    ends (the switch's block and the HCA's) repeats it for the same link."""
    seen: set[frozenset[str]] = set()
    for p in ports:
        if p.tool != "iblinkinfo" or not p.could_be:
            continue
        ends = frozenset({f"{p.ca} port {p.port}", p.peer or ""})
        if ends in seen:
            p.could_be = None
        seen.add(ends)


def _state(port: HcaPort, value: str) -> None:
    port.state = _STATE_NUMBER_RE.sub("", value)
    port.active = port.state in ACTIVE_STATES


PANE_BARS = ("│", "┃", "║")
"""A terminal multiplexer's (tmux's, screen's) vertical pane border, box-drawing bars: a copy of
a pane keeps one before each of its lines. The loader takes it off where it leads nearly every
line of a file; a copy that joined a pane's lines to others' keeps it on that part."""


def _off_pane_border(
    numbered: list[tuple[int, str, int | None]],
) -> tuple[list[tuple[int, str, int | None]], list[ParseWarning]]:
    """``numbered`` with a pane's border taken off the lines it leads, and a note that says so."""
    bordered = [no for no, line, _ in numbered if line.startswith(PANE_BARS)]
    if not bordered:
        return numbered, []
    return [
        (no, line[1:] if line.startswith(PANE_BARS) else line, rank) for no, line, rank in numbered
    ], [
        ParseWarning(
            line=bordered[0],
            message=f"a terminal pane's border ('│') taken off {len(bordered)} line(s) before "
            f"reading (lines {bordered[0]}-{bordered[-1]})",
            skipped=False,
        )
    ]


_HOST_WORD_HEADING_RE = re.compile(
    r"^\s*(?:#{1,6}|={2,}|-{2,}|\*{2,}|\[)?\s*(?:(?:on|from)\s+)?(?i:host|node|server|machine)"
    r"\s*[:=]?\s*(?P<host>[A-Za-z][\w.-]*)(?:\s*\([^)\n]*\))?\s*(?:\]|={2,}|-{2,}|\*{2,})?\s*:?\s*$"
)
_NAME_HEADING_RE = re.compile(
    rf"^\s*(?P<lead>#{{1,6}}|={{2,}}|-{{2,}}|\*{{2,}}|\[)?\s*(?P<host>{NODE_NAME}|(?i:server|client))"
    r"\s*(?P<tail>\]|={2,}|-{2,}|\*{2,}|:)?\s*$"
)
# the header dshbak (pdsh's scripts/dshbak: 16 dashes, the host or, with -c, the hosts of the
# same output, 16 dashes) and "clush -b" (15 dashes, the node set, " (N)" where several) print
# above each host's lines
_GATHER_RULE_RE = re.compile(r"^-{10,}\s*$")
_GATHER_HOST_RE = re.compile(r"^(?P<host>[\w.\-\[\],]+)(?: \(\d+\))?\s*$")
# the one-line header a cluster-wide run puts above each host's lines, as OSCAR's cexec (C3)
# does in the copy of round RRRR set 694 ("--------- n01---------", under the cluster's
# "*** oscar_cluster ***" banner): dashes, the host, dashes (a host name never ends in "-":
# RFC 1123's labels end in a letter or digit)
_DASHED_HOST_HEADER_RE = re.compile(
    r"^-{3,40} ?(?P<host>[A-Za-z0-9](?:[\w.]|-(?!-)){0,252}?)-{3,40}\s*$"
)
# an RDMA device's or network interface's name is no host's ("mlx5_0:" over its own lines)
_DEVICE_NAME_RE = re.compile(
    r"(?:mlx\d|mthca|qib|hfi\d|ib[a-z]*\d|roce|irdma|rxe|siw|bnxt_re|qedr|efa|erdma|hns|eth\d"
    r"|en[ops]\d|eno\d)",
    re.IGNORECASE,
)


def _host_heading(line: str) -> str | None:
    """The host a heading line names (``## node02``, ``=== gpu-3 ===``, ``[node1]``, ``node1:``,
    ``Server Genie(native)``, ``# client``): the listings under it are that host's. A bare
    name needs a heading's mark (``#``, ``==``, brackets, a closing colon); a device's name
    (``mlx5_0:``) is none."""
    if len(line) > 80:
        return None
    if m := _HOST_WORD_HEADING_RE.match(line):
        return m.group("host")
    m = _NAME_HEADING_RE.match(line)
    if m is None or not (m.group("lead") or m.group("tail")):
        return None
    if _DEVICE_NAME_RE.match(m.group("host")):
        return None
    return m.group("host")


_MERGED_TOOLS = ("ibstat", "ibv_devinfo", "rdma link")
_MERGED_FIELDS = (
    "physical_state", "rate_gbps", "link_layer", "ca_type", "firmware", "active_mtu",
    "guid_zero", "sm_lid", "netdev",
)  # fmt: skip


def _one_port_of_two_tools(
    ports: list[HcaPort], hosts: dict[int, str | None], guids: dict[int, str] | None = None
) -> list[tuple[str, str]]:
    """ibstat, ibv_devinfo and iproute2's ``rdma link`` of one host listing the same port (a
    copy of several commands): one port, read once, the other listings' fields added to it where
    it had none. The port kept is ibstat's or ibv_devinfo's where either lists it (their block
    cites the state's own line; rdma link's one line a port says less), else the first. Left
    apart where they disagree on whether it carries traffic (run at different times), where one
    tool lists it twice (two hosts' copies) or where another host's prompt or heading stands
    between them, or where both name their device's node GUID and the two differ (device names
    repeat on every host: "ssh gpu-b ibv_devinfo" under gpu-a's prompt). Returns ``(the tools,
    the port's name)`` for each merge."""
    merged: list[tuple[str, str]] = []
    first: dict[tuple[str, int, str | None], HcaPort] = {}
    tools: dict[tuple[str, int, str | None], set[str]] = {}
    for p in list(ports):
        if p.tool not in _MERGED_TOOLS or p.ca == NO_DEVICE:
            continue
        key = (p.ca, p.port, hosts.get(id(p)))
        if (same := first.get(key)) is None:
            first[key], tools[key] = p, {p.tool}
            continue
        if p.tool in tools[key] or same.active != p.active:
            continue
        if guids and (a := guids.get(id(same))) and (b := guids.get(id(p))) and a != b:
            continue  # (two hosts' devices of one name)
        keep, drop = (p, same) if same.tool == "rdma link" else (same, p)
        for name in _MERGED_FIELDS:
            if getattr(keep, name) is None:
                setattr(keep, name, getattr(drop, name))
        ports.remove(drop)
        first[key] = keep
        tools[key].add(p.tool)
        pair = " and ".join(sorted((same.tool, p.tool), key=_MERGED_TOOLS.index))
        merged.append((pair, f"{p.ca} port {p.port}"))
    return merged


# the fields ibstat prints before a port's Link layer (rdma-core infiniband-diags/ibstat.c
# port_dump: State, Physical state, Rate, Base lid, LMC, SM lid, Capability mask, Port GUID,
# then Link layer, the block's last line)
_IBSTAT_PORT_FIELD_RE = re.compile(
    r"^\s*(?:State|Physical state|Rate|Base lid|LMC|SM lid|Capability mask|Port GUID):"
)


def _cut_before_link_layer(
    ports: list[HcaPort], numbered: list[tuple[int, str, int | None]]
) -> HcaPort | None:
    """ibstat's last port where the copy ends inside its block, before its Link layer line,
    the file's other ibstat ports giving theirs (the same ibstat prints it); else None."""
    listed = sorted((p for p in ports if p.tool == "ibstat"), key=lambda p: p.line)
    shown = [(no, line) for no, line, _ in numbered if line.strip()]
    if len(listed) < 2 or listed[-1].link_layer is not None or not shown:
        return None
    if not any(p.link_layer for p in listed[:-1]) or shown[-1][0] <= listed[-1].line:
        return None
    return listed[-1] if _IBSTAT_PORT_FIELD_RE.match(shown[-1][1]) else None


def parse(text: str) -> tuple[list[HcaPort], list[ParseWarning]]:
    """Every port of every device block in ``text`` (ibstat's and ibv_devinfo's outputs, several
    in one file). Raises ParseError when no device block holds a port."""
    ports: list[HcaPort] = []
    # ibdev2netdev's, by pdsh's host and port
    netdev_ports: dict[tuple[str | None, str, int, str | None], HcaPort] = {}
    pdsh_hosts: dict[int, str] = {}  # an ibdev2netdev port's (by id) host, pdsh's before its row
    # an ibdev2netdev -v port's (by id) PCI address, "0000:03:00.1": a VF's own PF by it
    pci_of: dict[int, str] = {}
    prompt_host: str | None = None  # the host the last shell prompt (or heading) named
    # (line, host) where a prompt named a host, or a heading (None: it names no prompt's host)
    prompted: list[tuple[int, str | None]] = []
    sminfo: list[tuple[int, re.Match[str], str | None]] = []  # sminfo's answers, their host
    # smpquery ND's answers: (line, node description, destination its command named or None)
    node_descs: list[tuple[int, str, str | None]] = []
    nd_dest: str | None = None  # the destination of the smpquery ND command above
    mad_runs: list[list[tuple[int, str, re.Match[str]]]] = []  # MAD tools' failures, each
    mad_failed: list[tuple[int, str, re.Match[str]]] = []  # the lines of one before its exit
    umad_files: tuple[int, int] | None = None  # a listing of /dev/infiniband/umad*: line, count
    ca: str | None = None
    tool = ""
    device: dict[str, str] = {}
    current: HcaPort | None = None
    link_node: tuple[str, bool] | None = None  # iblinkinfo's node above: (name, a switch)
    unlinked = 0  # -l ports with nothing attached whose node is not known for an HCA
    heads: list[
        tuple[int, str, int]
    ] = []  # ibstat's / ibv_devinfo's device: (line, name, ports before)
    numbered, warnings = _off_pane_border(numbered_lines(text))
    hosts: dict[int, str | None] = {}  # an ibstat / ibv_devinfo port's (by id) prompt's host
    guids: dict[int, str] = {}  # a port's (by id) device's node GUID, its hex digits
    ports_fields: dict[int, dict[str, str]] = {}  # a port's ibv_devinfo -v width and speed
    grepped: set[int] = set()  # ports (by id) taken from a state line with no "port:" line
    head_fields: dict[int, dict[str, str]] = {}  # a device block's fields, by its line
    ibnet: tuple[str, bool] | None = None  # ibnetdiscover's node above: (name, a switch)
    # (a port's "[1] " is no launcher's tag; the lines numbered as numbered_lines numbers them)
    raw = text.splitlines() if "\n[" in text else []
    raw_lines = text.splitlines()
    for index, (no, line, _) in enumerate(numbered):
        if ibnet is not None and raw and raw[no - 1].startswith("["):
            line = raw[no - 1]
        if line.startswith(("Switch", "Ca", "Rt")) and (nd := _IBNET_NODE_RE.match(line)):
            ibnet = (nd.group("desc") or nd.group("id"), nd.group("kind") != "Ca")
            ca, current = None, None
            continue
        if ibnet is not None and line.startswith("[") and (ip := _IBNET_PORT_RE.match(line)):
            peer_desc = _IBNET_PEER_DESC_RE.search(ip.group("rest"))
            port = HcaPort(
                ca=ibnet[0],
                port=int(ip.group("port")),
                line=no,
                tool="ibnetdiscover",
                switch=ibnet[1],
                peer=f"{peer_desc.group('desc') if peer_desc else ip.group('peer')} port "
                f"{ip.group('pport')}",
                rate_gbps=int(ip.group("width")) * _IB_SPEED_GBPS[ip.group("speed")],
                lane_gbps=_IB_SPEED_GBPS[ip.group("speed")],
            )
            # (ibnetdiscover lists connected ports only: each is up)
            _state(port, "Active")
            ports.append(port)
            continue
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
                switch=switch,
                physical_state=lk.group("phys"),
                peer=f"{lk.group('peer')} port {lk.group('pport')}" if lk.group("peer") else None,
                could_be=(lk.group("note") or "").strip() or None,
            )
            _state(port, lk.group("state"))
            if lk.group("width") and lk.group("speed"):
                lane = float(lk.group("speed"))
                lane = _LANE_NOMINAL_GBPS.get(lane, lane)
                port.lane_gbps = lane
                port.rate_gbps = round(int(lk.group("width")) * lane, 3)
            ports.append(port)
            continue
        if line.lstrip().startswith(("CA: ", "Switch: 0x", "Switch 0x")) and (
            hd := _IBLINK_HEAD_RE.match(line)
        ):
            link_node = (hd.group("ca") or hd.group("switch"), hd.group("switch") is not None)
            ca, current = None, None
            continue
        if (
            line.startswith("-----")
            and _GATHER_RULE_RE.match(line)
            and index + 2 < len(numbered)
            and _GATHER_RULE_RE.match(numbered[index + 2][1])
            and (gathered := _GATHER_HOST_RE.match(numbered[index + 1][1]))
        ):
            # a dshbak / clush header: the lines below it, to the next, are that host's
            if prompt_host is not None:
                netdev_ports.clear()
            prompt_host = gathered.group("host")
            prompted.append((no, prompt_host))
            ca, current = None, None
            continue
        if line.startswith("---") and (dashed := _DASHED_HOST_HEADER_RE.match(line)):
            # (cexec's header: the lines below it, to the next, are that host's, as dshbak's)
            if prompt_host is not None:
                netdev_ports.clear()
            prompt_host = dashed.group("host")
            prompted.append((no, prompt_host))
            ca, current = None, None
            continue
        if (
            "@" in line
            and (host := MARKED_PROMPT_HOST_RE.match(line))
            and host["host"] != prompt_host
        ):
            # another host's prompt (after one that named a host): its listing's ports are its
            # own
            if prompt_host is not None:
                netdev_ports.clear()
            prompt_host = host["host"]
            prompted.append((no, prompt_host))
        elif (named := _host_heading(line)) is not None:
            # a heading that names a host ("## node02", "Server Genie(native)"): the listings
            # under it are that host's, as under its prompt
            if named != prompt_host:
                if prompt_host is not None:
                    netdev_ports.clear()
                prompt_host = named
                prompted.append((no, None))
            ca, current = None, None
            continue
        on: str | None = None
        if "==>" in line and (pd := _PDSH_IBDEV2NETDEV_HOST_RE.match(raw_lines[no - 1])):
            # (from the line as written: numbered_lines takes an address's "10.0.0.1: " off)
            row = raw_lines[no - 1][pd.end() :]
            if _IBDEV2NETDEV_RE.match(row):
                on, line = pd["host"], row
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
            ca, current = None, None
            if on is not None:
                pdsh_hosts[id(port)] = on
            if d.group("pci"):
                pci_of[id(port)] = d.group("pci").lower()
            if (same := netdev_ports.get((on, port.ca, port.port, port.netdev))) is not None and (
                (same.firmware is None) != (port.firmware is None)
            ):
                # the same port listed again (ibdev2netdev, then ibdev2netdev -v, whose rows
                # name a firmware): one port, the second listing's details added to the first's
                # (two plain listings, or two -v ones, are two hosts'; either may come first)
                same.ca_type = same.ca_type or port.ca_type
                # (either listing's Down stands: the interface is down in one of them)
                if same.netdev_up is not None and port.netdev_up is not None:
                    same.netdev_up = same.netdev_up and port.netdev_up
                same.firmware = same.firmware or port.firmware
                if d.group("state"):
                    _state(same, d.group("state"))
                continue
            netdev_ports[(on, port.ca, port.port, port.netdev)] = port
            ports.append(port)
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
        if "sminfo:" in line and (
            (sm := _SMINFO_RE.match(line))
            # (its one line wrapped after "priority N" by a mail or a narrow window: its state on
            # the next line, "state 3 SMINFO_MASTER", read as the one line sminfo printed)
            or (
                index + 1 < len(numbered)
                and numbered[index + 1][1].lstrip().startswith("state ")
                and (sm := _SMINFO_RE.match(f"{line.rstrip()} {numbered[index + 1][1].strip()}"))
            )
        ):
            sminfo.append((no, sm, prompt_host))
            ca, current = None, None
            continue
        if "smpquery" in line and (sq := _SMPQUERY_RE.search(line)):
            nd_dest = _smpquery_nd_dest(sq.group("args"))
            continue
        if "Node Description:" in line and (ndm := _NODE_DESC_RE.match(line)):
            node_descs.append((no, ndm.group("desc"), nd_dest))
            nd_dest = None
            ca, current = None, None
            continue
        if "ibpanic:" in line and not _IBSTAT_PANIC_RE.match(line):
            if panic := _DIAG_PANIC_RE.match(line):
                # another diag's panic (saquery's "Failed to bind to the SA: Permission
                # denied"), not ibstat's: that tool's exit, named by the prompt above it
                ran = next(
                    (
                        c.group("cmd")
                        for _, above, _ in reversed(numbered[max(0, index - 8) : index])
                        if (c := _PROMPT_RAN_RE.search(above))
                    ),
                    None,
                )
                # (read as the iberror exit it stands for; without a prompt the tool is the
                # package's)
                exit_line = f"{ran or 'infiniband-diags'}: iberror: failed: {panic.group('what')}"
                if panic_exit := _DIAG_IBERROR_RE.match(exit_line):
                    mad_failed.append((no, "panic", panic_exit))
                    mad_runs.append(mad_failed)
                    mad_failed = []
                    ca, current = None, None
                    continue
        if (
            ("ibwarn:" in line and (mad := _MAD_OPEN_FAILED_RE.match(line)))
            or ("ibwarn:" in line and (mad := _SA_UMAD_FAILED_RE.match(line)))
            or ("can't open MAD port" in line and (mad := _IBND_OPEN_FAILED_RE.match(line)))
            or ("iberror:" in line and (mad := _DIAG_IBERROR_RE.match(line)))
        ):
            # a MAD tool's failure (ibnetdiscover, ibhosts ...): its causes, then its exit
            kind = (
                "iberror"
                if "iberror:" in line
                else "ibnd"
                if "ibnetdisc" in line
                else "register"
                if "mgmt" in mad.re.groupindex and mad.group("mgmt")
                else "umad"
            )
            mad_failed.append((no, kind, mad))
            if kind == "iberror":
                mad_runs.append(mad_failed)
                mad_failed = []
            ca, current = None, None
            continue
        if "/dev/infiniband/umad" in line and _UMAD_FILES_RE.match(line):
            umad_files = umad_files or (no, line.count("/dev/infiniband/umad"))
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
            hosts[id(port)] = prompt_host
            continue
        if st := _IBSTATUS_RE.match(line):
            ca, tool, device = st.group("ca"), "ibstatus", {}
            current = HcaPort(ca=ca, port=int(st.group("port")), line=no, tool=tool)
            ports.append(current)
            continue
        if m := _CA_RE.match(line) or _HCA_RE.match(line):
            ca, tool, device, current = (
                m.group("ca"),
                "ibstat" if "CA '" in line else "ibv_devinfo",
                {},
                None,
            )
            heads.append((no, m.group("ca"), len(ports)))
            head_fields[no] = device
            continue
        if line.startswith("ibpanic:"):
            # ibstat's own failure on a device it was asked for ("ibpanic: [1400444] main: stat
            # of IB device 'mlx5_8' failed: No such file or directory"): no such device
            warnings.append(
                ParseWarning(line=no, message=f"ibstat failed: {line.strip()[:200]}", skipped=False)
            )
            ca, current = None, None
            continue
        if (
            ca is None
            and _DEVINFO_PORT_RE.match(line)
            and _HEADLESS_PORT_RE.match("\n".join(t for _, t, _ in numbered[index : index + 2]))
        ):
            # ibv_devinfo -v's port block copied without its device's hca_id: read, its device
            # unnamed
            ca, tool, device, current = NO_DEVICE, "ibv_devinfo", {}, None
            warnings.append(
                ParseWarning(
                    line=no,
                    message="ibv_devinfo port block without its hca_id line: its device is not "
                    "named in the copy",
                    skipped=False,
                )
            )
        if (
            ca is None
            and _IBSTAT_PORT_RE.match(line)
            and _HEADLESS_IBSTAT_PORT_RE.match(
                "\n".join(t for _, t, _ in numbered[index : index + 2])
            )
        ):
            # ibstat's port block copied without its CA line: read, its device unnamed
            ca, tool, device, current = NO_DEVICE, "ibstat", {}, None
            warnings.append(
                ParseWarning(
                    line=no,
                    message="ibstat port block without its CA line: its device is not named in "
                    "the copy",
                    skipped=False,
                )
            )
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
            if guid := device.get("Node GUID") or device.get("node_guid"):
                # (ibstat's "0x0000000000000000", ibv_devinfo's "0000:0000:0000:0000")
                digits = guid.strip().lower().removeprefix("0x").replace(":", "")
                current.guid_zero = not digits.strip("0")
                guids[id(current)] = digits
            ports.append(current)
            hosts[id(current)] = prompt_host
            continue
        if line.strip().endswith(":") and current is None:
            continue  # a heading inside the device's block ("Device ports:")
        f = _FIELD_RE.match(line)
        if f is None:
            if line.strip() and not line[:1].isspace():
                ca, current = None, None  # another output starts (a device's lines are indented)
            continue  # ibv_devinfo -v's flag lists and GID[ N] lines under a key
        # (a mark the poster typed after a value, "State: Initializing  <-------", is not the
        # value)
        key, value = f.group("key"), _POSTED_MARK_RE.sub("", f.group("value")) or f.group("value")
        if (
            key == "state"
            and tool == "ibv_devinfo"
            and value.startswith("PORT_")
            and (current is None or (id(current) in grepped and current.state is not None))
        ):
            # a port's state with no "port: N" line above it (a grep kept the device and state
            # lines): the device's ports in order, numbered from 1, said
            numbered_ports = sum(1 for p in ports if p.ca == ca and p.tool == tool)
            # (the device's fields the grep kept above it, fw_ver and vendor_part_id, are its)
            current = HcaPort(
                ca=ca,
                port=numbered_ports + 1,
                line=no,
                tool=tool,
                ca_type=device.get("vendor_part_id"),
                firmware=device.get("fw_ver"),
            )
            grepped.add(id(current))
            ports.append(current)
            if not any("a state line with no 'port:' line" in w.message for w in warnings):
                warnings.append(
                    ParseWarning(
                        line=no,
                        message="a state line with no 'port:' line above it (a grep of "
                        "ibv_devinfo -v): each device's ports taken in order from port 1",
                        skipped=False,
                    )
                )
        if current is None:
            device[key] = value
        elif key in ("State", "state"):
            said = _IBSTATUS_NUMBER_RE.sub("", value)
            if (
                no == numbered[-1][0]
                and said not in _PORT_STATES
                and any(st.startswith(said) for st in _PORT_STATES)
            ):
                # the copy ends inside the state's word ("State: Acti"): not a state
                warnings.append(
                    ParseWarning(
                        line=no,
                        message=f"{current.ca} port {current.port}: the copy ends inside its "
                        f"state ({said!r}): its state is unknown",
                    )
                )
                continue
            _state(current, said)
            current.state_line = no
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
        elif key in ("SM lid", "sm_lid") and value.split()[0].isdigit():
            current.sm_lid = int(value.split()[0])
        elif key in ("Base lid", "port_lid") and value.split()[0].isdigit():
            current.base_lid = int(value.split()[0])
        elif key == "active_mtu" and value.split()[0].isdigit():
            current.active_mtu = int(value.split()[0])
        elif key in ("active_width", "active_speed"):
            # ibv_devinfo -v: "active_width: 4X (2)", "active_speed: 25.0 Gbps (32)"; the
            # port's rate is the lanes times each lane's speed
            device_port = ports_fields.setdefault(id(current), {})
            device_port[key] = value
            lanes_m = re.match(r"(\d+)X\b", device_port.get("active_width", ""))
            lane_gbps_m = re.match(r"([\d.]+) Gbps\b", device_port.get("active_speed", ""))
            if lanes_m and lane_gbps_m and current.rate_gbps is None:
                current.rate_gbps = int(lanes_m.group(1)) * float(lane_gbps_m.group(1))
    # a device block with no port (the copy ended, or was cut, before its port section): said,
    # its state unknown rather than left out unnoticed
    for at, (head_line, name, before) in enumerate(heads):
        after = heads[at + 1][2] if at + 1 < len(heads) else len(ports)
        if after == before:
            fields = head_fields.get(head_line, {})
            known = [
                f"{label} {fields[k]}"
                for k, label in (
                    ("fw_ver", "firmware"),
                    ("Firmware version", "firmware"),
                    ("vendor_part_id", "part"),
                    ("CA type", "type"),
                )
                if fields.get(k)
            ]
            warnings.append(
                ParseWarning(
                    line=head_line,
                    message=f"{name}"
                    + (f" ({', '.join(known)})" if known else "")
                    + ": no port listed under it (the copy ends before its port section?): its "
                    "state is unknown",
                    skipped=not ports,
                )
            )
    if (last := _cut_before_link_layer(ports, numbered)) is not None:
        warnings.append(
            ParseWarning(
                line=last.line,
                message=f"{last.ca} port {last.port}: the copy ends before its Link layer line "
                "(ibstat prints it last in a port's block, as the other ports' show): its link "
                "layer is unknown",
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
    merged = _one_port_of_two_tools(ports, hosts, guids)
    for pair in dict.fromkeys(tools for tools, _ in merged):
        warnings.append(
            ParseWarning(
                line=0,
                message=f"{pair} both list "
                + ", ".join(name for tools, name in merged if tools == pair)
                + ": each port read once, with the fields of both",
                skipped=False,
            )
        )
    # (several hosts' sminfo, a cluster-wide run's: each said with the host it ran on)
    sminfo_hosts = len({asked_on for _, _, asked_on in sminfo if asked_on}) > 1
    for at, answer, asked_on in sminfo:
        unmanaged = [
            p
            for p in ports
            if p.tool in ("ibstat", "ibv_devinfo")
            and hosts.get(id(p)) == asked_on
            and p.sm_lid == 0
            and p.link_layer == "InfiniBand"
            and p.active is False
        ]
        lid = f"lid {answer.group('lid')}"
        node = next(((n, d) for n, d, dest in node_descs if dest == lid), None)
        note = _sminfo_note(at, answer, unmanaged, node)
        if sminfo_hosts and asked_on:
            note.message = f"{asked_on}: {note.message}"
        warnings.append(note)
    said_lids = {f"lid {answer.group('lid')}" for _, answer, _ in sminfo}
    for n, desc, dest in node_descs:
        if dest is None or dest not in said_lids:
            # (a node sminfo did not name: said alone, its destination as the command gave it)
            warnings.append(
                ParseWarning(
                    line=n,
                    message=f"smpquery ND: the node at {dest or 'a destination not in the copy'}"
                    f" is {desc} (line {n})",
                    skipped=False,
                )
            )
    if mad_failed:
        mad_runs.append(mad_failed)  # (the copy ends before the tool's exit line)
    warnings += [_mad_failure_note(run, umad_files) for run in mad_runs]
    if "/sys/class/infiniband/" in text:
        ports += _sysfs_ports(numbered)
    if prompted:
        for p in ports:
            if p.tool not in ("iblinkinfo", "ibnetdiscover"):
                p.host = next((h for at, h in reversed(prompted) if at <= p.line), None)
    for p in ports:
        # (pdsh's host before a row is the host it ran on, whatever prompt is above it)
        p.host = pdsh_hosts.get(id(p), p.host)
    _mark_slower_lanes(ports)
    _could_be_once(ports)
    _mark_host_without_active_port(ports, text, guids)
    _mark_all_down(ports, text, guids)
    _mark_no_netdev_up(ports)
    _mark_slower_than_siblings(ports)
    for p in ports:
        if sw := SOFTWARE_DEVICE_RE.match(p.ca):
            p.software = SOFTWARE_DEVICES[sw.group(1).lower()]
    warnings += _mark_unused_vfs(ports, text, pci_of)
    if not ports:
        panics = [w for w in warnings if w.message.startswith("ibstat failed: ibpanic")]
        if panics:
            # what the file holds is ibstat's failure: no port is read, the device it named is
            # not found
            raise ParseError(panics[0].message, line=panics[0].line)
        if heads:
            return ports, warnings  # device blocks cut before their ports: said, none made up
        if sminfo or mad_runs or node_descs:
            # sminfo's (or smpquery's, or a MAD tool's failure) alone: the subnet manager's
            # answer is what the copy holds, and no port is made up
            return ports, warnings
        raise ParseError('no RDMA device port (ibstat\'s "Port N:" or ibv_devinfo\'s "port: N")')
    return ports, warnings


VF_NO_LID = 65535
"""The base LID a virtual function's port reads where none was given (MLNX_OFED's SR-IOV
chapter; ``HcaPort.base_lid``)."""
PORT_LISTING_TOOLS = ("ibstat", "ibv_devinfo", "ibstatus", "rdma link")
"""The tools that list a host's RDMA ports with each one's state."""
# a listing of named devices only ("ibstat mlx5_0", "ibstatus mlx5_1:1", "ibv_devinfo -d mlx5_0",
# "rdma link show mlx5_0/1"): its ports are not all the host's
_SELECTED_LISTING_RE = re.compile(
    r"(?:^|[\s/$#])(?:ibstat(?:us)?[ \t]+[^\s'\"|;&<>-]"
    r"|ibv_devinfo\b[^\n|;&]{0,200}?\s(?:-d|--ib-dev)\b|rdma[ \t]+link[ \t]+(?:show[ \t]+)?\w)",
    re.M,
)


def _linked_up(port: HcaPort) -> bool:
    # (ibstat "LinkUp", ibstatus "5: LinkUp" with its number taken off, rdma link "LINK_UP")
    return (port.physical_state or "").replace("_", "").lower() == "linkup"


def _host_listings(
    ports: list[HcaPort], guids: dict[int, str] | None = None
) -> list[list[HcaPort]]:
    """The listing tools' ports, a list a host's listing: by the host a prompt or header names,
    and, within it, a new listing where a tool lists a port it has listed already (two hosts'
    outputs pasted one after the other with nothing naming them: device names repeat on every
    host, ``CA 'mlx5_0'`` again). With ``guids`` (each port's device's node GUID, by id), a port
    listed again under the node GUID it had is the same adapter listed again (before and after
    a fix): the later listing stands for the host, the earlier one is left out."""
    listings: list[list[HcaPort]] = []
    current: dict[str | None, tuple[list[HcaPort], dict[tuple[str, str, int], HcaPort]]] = {}
    for p in sorted((p for p in ports if p.tool in PORT_LISTING_TOOLS), key=lambda p: p.line):
        listed, seen = current.get(p.host, ([], {}))
        key = (p.tool, p.ca, p.port)
        if not listed or key in seen:
            was = guids.get(id(seen[key]), "") if listed and guids else ""
            if was.strip("0") and was == (guids or {}).get(id(p)):
                # (a GUID is the adapter's own, burnt in: no other host's device has it; an
                # all-zero one is a virtual function's none, on any host)
                listings = [other for other in listings if other is not listed]
            listed, seen = [], {}
            listings.append(listed)
            current[p.host] = (listed, seen)
        listed.append(p)
        seen[key] = p
    return listings


def _mark_host_without_active_port(
    ports: list[HcaPort], text: str, guids: dict[int, str] | None = None
) -> None:
    """``no_active_on_host`` on each port of a host whose whole listing has no active port and
    a linked-up one. IBA vol. 1 14.2.5.6 (PortState): a port whose link trained (PortPhysicalState
    LinkUp) is Initialize until the subnet manager assigns its LID and moves it through Armed
    to Active; only an Active port carries data (NCCL's IB transport and perftest use active
    ports only), so such a host runs no RDMA job until its subnet manager is running."""
    if _SELECTED_LISTING_RE.search(text):
        return
    for listed in _host_listings(ports, guids):
        if all(p.active is False for p in listed) and any(_linked_up(p) for p in listed):
            for p in listed:
                p.no_active_on_host = True


# the kernel's software RDMA drivers (drivers/infiniband/sw/rxe, "Soft RoCE", and sw/siw,
# "Software iWARP"): rxe_cfg named its devices rxe0, rxe1 ...; "rdma link add NAME type rxe|siw
# netdev DEV" (rdma(8)) takes any name, by custom "rxe_<netdev>" / "siw_<netdev>"
SOFTWARE_DEVICE_RE = re.compile(r"(rxe|siw)(?:\d|_|$)", re.I)
SOFTWARE_DEVICES = {"rxe": "Soft-RoCE (rxe)", "siw": "Soft-iWARP (siw)"}


def _mark_slower_than_siblings(ports: list[HcaPort]) -> None:
    """``sibling_rate_gbps`` (and ``sibling_sm_lid``) on each active InfiniBand port of a host's
    listing whose rate is below the fastest of its model's there: the same HCA trained lower
    (a cable, a switch of an older speed, a port forced lower), or a separate, slower fabric. A
    job over all of them runs each step at the slowest rail's pace."""
    groups: dict[tuple[int, str], list[HcaPort]] = {}
    for at, listed in enumerate(_host_listings(ports)):
        for p in listed:
            if p.active and p.link_layer == "InfiniBand" and p.ca_type and p.rate_gbps:
                groups.setdefault((at, p.ca_type), []).append(p)
    for same in groups.values():
        fastest = max(p.rate_gbps or 0.0 for p in same)
        lids = {p.sm_lid for p in same if p.rate_gbps == fastest and p.sm_lid is not None}
        for p in same:
            if (p.rate_gbps or 0.0) < fastest:
                p.sibling_rate_gbps = fastest
                if len(lids) == 1 and p.sm_lid is not None and p.sm_lid not in lids:
                    p.sibling_sm_lid = next(iter(lids))


# rdma-core providers/mlx5/mlx5.c mlx5_hca_table: the PCI device ids (vendor Mellanox) of the
# mlx5 virtual functions; MLNX_OFED's ibstat / ibdev2netdev -v print a CA type "MT<id>", the id
# in decimal (ConnectX-4's 0x1013 is "MT4115", its VF's 0x1014 "MT4116")
MLX5_VF_PARTS = {
    0x1012: "Connect-IB Virtual Function",
    0x1014: "ConnectX-4 Virtual Function",
    0x1016: "ConnectX-4 Lx Virtual Function",
    0x1018: "ConnectX-5 Virtual Function",
    0x101A: "ConnectX-5 Ex Virtual Function",
    0x101C: "ConnectX-6 Virtual Function",
    0x101E: "ConnectX family mlx5Gen Virtual Function",
    0xA2D3: "BlueField integrated ConnectX-5 Virtual Function",
}
# (ibv_devinfo's vendor_part_id is the bare decimal id: "4116")
_MT_PART_RE = re.compile(r"^(?:MT)?(\d{1,6})$")
# "echo 4 > /sys/class/net/enp2s0f0/device/sriov_numvfs" (the kernel's PCI sysfs: writing N
# to a physical function's sriov_numvfs creates N VFs, Documentation/PCI/pci-iov-howto)
_SRIOV_NUMVFS_RE = re.compile(
    r"^[^\n]{0,200}?\becho[ \t]+(?P<n>\d{1,4})[ \t]*>[ \t]*(?P<path>\S{0,300}sriov_numvfs)\b",
    re.M,
)


def _part_id(ca_type: str | None) -> int:
    m = _MT_PART_RE.match((ca_type or "").strip())
    return int(m.group(1)) if m else 0


def _vf_part(ca_type: str | None) -> str | None:
    return MLX5_VF_PARTS.get(_part_id(ca_type))


def _pci_device(pci: str) -> str:
    """A PCI address's domain:bus:device, its function left off: "0000:03:00" of
    "0000:03:00.2"."""
    return pci.rsplit(".", 1)[0]


def _own_pfs(vf: HcaPort, pfs: list[HcaPort], pci_of: dict[int, str]) -> list[HcaPort]:
    """The physical function ports ``vf`` is a function of, where ibdev2netdev -v gave both
    their PCI addresses: those on its PCI domain:bus:device (a VF of ConnectX's PF 03:00.0 is
    03:00.1, 03:00.2 ...). Where the copy gives the VF's address but none of the host's PFs
    shares its device, those on its bus (PCI ARI spreads many VFs over the bus's next device
    numbers, 03:01.0 ...). Where no address pairs them (a plain ibdev2netdev, ibstat), every
    PF of the host: the listing does not say whose VF it is."""
    mine = pci_of.get(id(vf))
    addressed = [p for p in pfs if id(p) in pci_of]
    if mine is None or not addressed:
        return pfs
    same = [p for p in addressed if _pci_device(pci_of[id(p)]) == _pci_device(mine)]
    if same:
        return same
    bus = mine.rsplit(":", 1)[0]
    return [p for p in addressed if pci_of[id(p)].rsplit(":", 1)[0] == bus]


def _mark_unused_vfs(
    ports: list[HcaPort], text: str, pci_of: dict[int, str] | None = None
) -> list[ParseWarning]:
    """``vf`` on each virtual function's port (by its CA type), and ``vf_unused`` on each VF
    port that is not active or whose netdev is Down where the listing shows its own physical
    function's port active (``_own_pfs``: by PCI address where ibdev2netdev -v gives it): that
    listing is the hypervisor's, where VFs wait, Down, until a VM or pod is given them and they
    are configured (a VF's link is the embedded switch's, not a cable's), so they are no failed
    rail. A VF whose own PF is down is down with it (a VF's traffic leaves through its PF's
    port: the kernel's mlx5 counters.rst draws VFs under their PF's eSwitch): it is left to the
    rules as the PF is, and a note says whose VF it is. A pod's or VM's own listing holds VFs
    only: a VF Down there is its RDMA path down, and is left to the rules as before. One note a
    host says which ports they are, and the sriov_numvfs write that created them."""
    pci_of = pci_of or {}
    for p in ports:
        p.vf = _vf_part(p.ca_type)
    hosts: dict[str | None, list[HcaPort]] = {}
    for p in ports:
        hosts.setdefault(p.host, []).append(p)
    writes = [
        (text.count("\n", 0, m.start()) + 1, int(m.group("n")), m.group("path"))
        for m in _SRIOV_NUMVFS_RE.finditer(text)
    ]
    notes: list[ParseWarning] = []
    for host, mine in hosts.items():
        all_pfs = [p for p in mine if not p.vf and p.ca_type]
        down = [p for p in mine if p.vf and (p.active is False or p.netdev_up is False)]
        unused: list[HcaPort] = []
        with_pf: list[tuple[HcaPort, list[HcaPort]]] = []
        for vf in down:
            own = _own_pfs(vf, all_pfs, pci_of)
            if any(p.active for p in own):
                unused.append(vf)
            elif own and any(id(p) in pci_of for p in own):
                with_pf.append((vf, own))
        pfs = sorted({p.ca for vf in unused for p in _own_pfs(vf, all_pfs, pci_of) if p.active})
        for p in unused:
            p.vf_unused = True
        if with_pf:
            notes.append(
                ParseWarning(
                    line=with_pf[0][0].line,
                    message=(f"{host}: " if host else "")
                    + f"{len(with_pf)} SR-IOV virtual function port(s) not active: "
                    + ", ".join(
                        f"{vf.ca} port {vf.port} (line {vf.line}, PCI {pci_of[id(vf)]})"
                        for vf, _ in with_pf
                    )
                    + "; they are functions of the physical function(s) "
                    + ", ".join(
                        sorted({f"{p.ca} (PCI {pci_of[id(p)]})" for _, own in with_pf for p in own})
                    )
                    + ", which are not active themselves: they are down with their PF",
                    skipped=False,
                )
            )
        if not unused:
            continue
        parts = sorted(
            {f"{p.vf} ({p.ca_type}, PCI device 0x{_part_id(p.ca_type):04x})" for p in unused}
        )
        made = [w for w in writes if w[0] < unused[0].line]
        notes.append(
            ParseWarning(
                line=unused[0].line,
                message=(f"{host}: " if host else "")
                + f"{len(unused)} SR-IOV virtual function port(s) not active: "
                + ", ".join(f"{p.ca} port {p.port} (line {p.line})" for p in unused)
                + f", each a {' / '.join(parts)}"
                + (
                    f", created by the write of {made[-1][1]} to {made[-1][2]} at line "
                    f"{made[-1][0]}"
                    if made
                    else ""
                )
                + "; beside their physical function port(s) active ("
                + ", ".join(pfs)
                + ") they are VFs not yet given to a VM or pod and configured: no failed rail",
                skipped=False,
            )
        )
    return notes


def _mark_no_netdev_up(ports: list[HcaPort]) -> None:
    """``no_netdev_up_on_host`` on the ``ibdev2netdev`` ports of each host whose every listed
    interface is Down and none of whose ports the copy shows active. ibdev2netdev (MLNX_OFED)
    lists every RDMA device's ports and prints "(Down)" where the netdev's
    /sys/class/net/IFACE/carrier is not 1: a RoCE port with no carrier carries nothing; an
    InfiniBand port's netdev is IPoIB, whose carrier needs the port Active too, though an
    interface left administratively down reads Down over an Active port as well, so the port's
    own state (ibstat) settles it."""
    by_host: dict[str | None, list[HcaPort]] = {}
    for p in ports:
        by_host.setdefault(p.host, []).append(p)
    for mine in by_host.values():
        listed = [p for p in mine if p.tool == "ibdev2netdev"]
        if not listed or any(p.netdev_up is not False for p in listed):
            continue
        if any(p.active for p in mine):
            continue  # (ibstat, or ibdev2netdev -v, shows a port of it active)
        for p in listed:
            p.no_netdev_up_on_host = True


def _mark_all_down(ports: list[HcaPort], text: str, guids: dict[int, str] | None = None) -> None:
    """``all_down`` on each port of a host's listing whose every port is Down. IBA vol. 1
    14.2.5.6: a port whose link trains leaves Down for Initialize (then Armed and Active, moved
    by the subnet manager), so Down is a port with no link (PortPhysicalState Polling: no cable
    or peer; Disabled) or, with its link up (LinkUp), one that was not let up: a virtual
    function's port whose GUID and state the host has not set (MLNX_OFED's SR-IOV chapter: its
    LID reads 65535). NCCL's IB transport uses active ports only, so a host with no other port
    has no RDMA path at all. A listing of named devices (``ibstat mlx5_2``) says so only of a
    virtual function's ports (base lid 65535): ibstat(8) lists only the CAs it is given, so a
    physical device's Down port leaves the host's other HCAs unknown, while an SR-IOV VF is all
    the RDMA a pod or VM is given."""
    named = _SELECTED_LISTING_RE.search(text) is not None
    for listed in _host_listings(ports, guids):
        if named and not all(p.base_lid == VF_NO_LID for p in listed):
            continue
        # (ibstat "Down", ibv_devinfo "PORT_DOWN (1)", ibstatus "1: DOWN", rdma link "DOWN")
        # (a listing marked no_active_on_host is that rule's: one finding a host)
        if all(
            p.active is False and "DOWN" in (p.state or "").upper() and not p.no_active_on_host
            for p in listed
        ):
            for p in listed:
                p.all_down = True


# ibstat given a name (ibstat NAME) that no RDMA device umad lists begins with (rdma-core
# infiniband-diags/ibstat.c main(): each listed ca_name is compared with strncmp over its own
# length, and where none matches IBPANIC("'%s' IB device can't be found", argv[0]); IBPANIC adds
# ": " and strerror(errno)): nothing is reported, the name is not an RDMA device's (a network
# interface's, ib0, or a device this host does not have)
# (the reason after the colon is taken whole and trimmed in code: "[ \t]*" before "[^\n]*" would
# be two runs over the same blanks)
IBSTAT_NOT_FOUND_RE = re.compile(
    r"^ibpanic: \[\d+\] main: '(?P<name>[^'\n]+)' IB device can't be found"
    r"(?::(?P<why>[^\n]*))?"
)


@dataclass(kw_only=True)
class IbstatNotFound:
    """One ``ibstat NAME`` that ended on ``IB device can't be found``."""

    line: int
    """The line of the ``ibstat NAME`` command that got the answer, where the copy holds it (the
    run starts there); else the answer's."""
    answer_line: int
    """The line of ibstat's ``ibpanic: ...`` answer."""
    name: str
    """The name ibstat was given."""
    why: str | None
    """IBPANIC's errno words (``No such file or directory``); None where the copy has none."""
    host: str | None
    """The host whose shell prompt stands above it; None where no prompt names one."""


# (the command's name word, then the name: "ubuntu@ubuntu:~$ ibstat ib1", "sudo ibstat ib1")
_IBSTAT_COMMAND_RE = re.compile(r"(?:^|[\s/$#])ibstat[ \t]+(?P<name>[^\s'\"|;&<>-][^\s'\"|;&<>]*)")


def ibstat_not_found(text: str) -> list[IbstatNotFound]:
    """Every ``ibpanic: ... '<name>' IB device can't be found`` in ``text``, with its line (the
    ``ibstat <name>`` command's just above it, where there is one) and the host of the nearest
    shell prompt above it."""
    found: list[IbstatNotFound] = []
    host: str | None = None
    command: tuple[int, str] | None = None  # the last ibstat command: its line, the name given
    for no, line, _ in numbered_lines(text):
        if m := IBSTAT_NOT_FOUND_RE.match(line.strip()):
            why = (m.group("why") or "").strip()
            at = command[0] if command and command[1] == m["name"] else no
            found.append(
                IbstatNotFound(line=at, answer_line=no, name=m["name"], why=why or None, host=host)
            )
            command = None
            continue
        if "@" in line and (prompt := MARKED_PROMPT_HOST_RE.match(line)):
            host = prompt["host"]
        c = _IBSTAT_COMMAND_RE.search(line)
        command = (no, c["name"]) if c else None
    return found


# perftest (linux-rdma/perftest: ib_write_bw, ib_read_bw, ib_send_bw, ib_atomic_bw and their
# _lat twins) between two hosts: its settings block (src/perftest_parameters.c ctx_print_test_info:
# " Dual-port       : OFF\t\tDevice         : mlx5_0", " Link type       : Ethernet",
# " Mtu             : 1024[B]"), each side's "local address:"/"remote address:" line with its GID,
# then a report under "#bytes #iterations BW peak[MB/sec] BW average[MB/sec] MsgRate[Mpps]"
# (src/perftest_parameters.h RESULT_FMT; "[MiB/sec]" since perftest's 2024 unit fix, "[Gb/sec]"
# under --report_gbits) or, for a latency test, "#bytes #iterations t_min[usec] t_max[usec]
# t_typical[usec] t_avg[usec] ..." (RESULT_FMT_LAT). Its MB/sec was always MiB/sec
# (perftest_parameters.c: format_factor 0x100000 for MBS, 125000000 for Gb/sec).
# Latency reports before perftest's commit 1ccb3fd (2016, "Extra measurements in latency tests")
# end at t_typical, the median (RESULT_FMT_LAT " #bytes #iterations    t_min[usec]    t_max[usec]
# t_typical[usec]", REPORT_FMT_LAT " %-7lu %d          %-7.2f        %-7.2f      %-7.2f"); since
# then t_avg[usec], t_stdev[usec] and the 99% and 99.9% percentiles follow. Under -D (a duration,
# test_type DURATION) a latency test prints RESULT_FMT_LAT_DUR " #bytes        #iterations
# t_avg[usec]    tps average" (" tps average" since 8e3996d, 2016) over one row, the iterations
# the test completed in that time (perftest_parameters.c print_report_lat_duration); a bandwidth
# test under -D keeps RESULT_FMT's header, its #iterations those the duration held, its peak not
# measured (perftest_parameters.c: " WARNING: BW peak won't be measured in this run.").
# Before perftest's dual-port support (commit 5787613, 2012, which brought the "Dual-port ...
# Device" line and the MsgRate column) a run's head named no device. Until 836ebdc (2011,
# "Changed Information print out in all tests") each test printed its own: send_bw.c as of
# 663b400 (2010) the title, "Connection type : UD" (" Connection type : UD" from 2c20e31),
# "Inline data is used up to %d bytes message", the addresses, "Mtu : %d" (pp_connect_ctx), then
# " #bytes #iterations    BW peak[MB/sec]    BW average[MB/sec] " over its print_report rows
# ("%7d        %d            %7.2f               %7.2f", its MB also 0x100000 bytes). From 836ebdc
# ctx_print_test_info printed the title, " Number of qps   : %d", " Connection type : %s" ...
# The device is then the command's -d alone, the port its -i.
PERFTEST_SIGNATURE = (
    # (the Device cell padded, "Device         : mlx5_0"; perftest's 2012-2013 head has "Device
    # : %s"; some latency heads print it unpadded, "Device: rxe0", beside "Transport type: IB")
    r"^[ \t]*Dual-port[ \t]+: (?:ON|OFF)[ \t]+Device[ \t]*: ?\S+"
    # the old head: its title, then its connection type within a few lines ("Test with
    # events.", write_bw_postlist.c's "Number of qp's running %d" may come between)
    r"|^[ \t]*[A-Za-z_]+(?: [A-Za-z_]+){0,5} (?:BW|Latency) Test[ \t]*\r?\n(?:[^\n]*\n){0,3}?"
    # (hccn_tool -roce_test's saved report: "Number of qps: 1      Connection type: RC")
    r"[^\n]*?Connection type ?: ?(?:RC|UC|UD)\b"
    # a run that stopped before its settings (those come after the TCP exchange and the device's
    # resources, write_bw.c main(): ctx_print_test_info after set_up_connection): the command,
    # then perftest's failure line within a few lines
    r"|\bib_(?:write|read|send|atomic)_(?:bw|lat)\b[^\n]*\n(?:[^\n]*\n){0,16}?[ \t]*(?:"
    r"Couldn't connect to \S+:\d+|Unable to open file descriptor for socket connection"
    r"|Unable to init the socket connection|Unable to find the Infiniband/RoCE device"
    r"|Couldn't get context for the device|IB device \S+ not found|No IB devices found"
    r"|Couldn't listen to port \d+|Couldn't create IB resources|Couldn't allocate MR"
    r"|Failed to create QP\.|Unable to create QP\.|Port number \d+ state is \w+"
    r"|Parser function exited with Error|RDMA CM event error:"
    # the shell's report that the test crashed (bash: strsignal's words, " (core dumped)")
    r"|Segmentation fault\b|Bus error\b|Illegal instruction\b)"
    # perftest's own set-up failing on its memory region, copied alone: ibv_reg_mr refused
    # (perftest_resources.c create_single_mr: "Couldn't allocate MR", since b0823b7 (2022)
    # "Couldn't allocate MR with error=%d"), then create_mr's "failed to create mr" (ctx_init then
    # prints "Failed to create MR", the test's main() " Couldn't create IB resources"): only
    # perftest prints the two together
    r"|^[ \t]*Couldn't allocate MR(?: with error=-?\d+)?[ \t]*\r?\n[ \t]*failed to create mr\b"
    # the kernel's report of a perftest binary that crashed (Linux arch/x86/mm/fault.c
    # show_signal_msg: "%s[%d]: segfault at %lx ip %px sp %px error %lx", then print_vma_addr's
    # " in %s[%lx+%lx]", the object the instruction was in)
    r"|\bib_(?:write|read|send|atomic)_(?:bw|lat)\[\d+\]: segfault at [0-9a-f]+ ip "
    # a client's failure copied without its command: its connect to the server's TCP port, then
    # perftest_communication.c's own words that the socket could not be set up
    r"|^[ \t]*Couldn't connect to \d+\.\d+\.\d+\.\d+:\d+[ \t]*\r?\n[^\n]*Unable to (?:open file descriptor "
    r"for socket connection|init the socket connection)"
    # the server's banner while it waits (perftest_communication.c), then its set-up failing
    r"|^[ \t]*\*+[ \t]*\r?\n[ \t]*\* Waiting for client to connect\.\.\. \*[ \t]*\r?\n[ \t]*\*+[ \t]*\r?\n"
    r"(?:[^\n]*\n){0,3}?[ \t]*(?:Unable to create QP\.|Failed to create QP\.|Couldn't create IB resources"
    r"|Couldn't allocate MR|Couldn't get context for the device)"
    # a port-state failure copied alone (perftest_resources.c ctx_set_link_layer: " Port number
    # %d state is %s", then " Couldn't set the link layer")
    r"|^[ \t]*Port number \d+ state is (?!Active\b)\w+[ \t]*\r?\n[ \t]*Couldn't set the link layer"
    # the exchange over the RDMA CM connection failing on its completion, copied alone:
    # perftest_communication.c rdma_write_keys' " Bad wc status %d" (rdma_read_keys' "Bad wc
    # status -- %d -- %d"), then ctx_hand_shake's " Unable to write from socket/rdam_cm" (or
    # "read to"): only perftest prints the two together (linux-rdma/perftest a0c16d4's message)
    r"|^[ \t]*Bad wc status (?:\d+|-- -?\d+ -- -?\d+)[ \t]*\r?\n"
    r"[ \t]*Unable to (?:read|write) (?:to|from) socket/rd(?:am|ma)_cm"
    # a completion error's block copied alone (perftest_resources.c)
    r"|^[ \t]*Completion with error at (?:client|server)[ \t]*\n?[ \t]*Failed status[- ][^\n]*?: wr_id"
    # a QP that would not connect, copied alone: ctx_connect()'s "Failed to modify QP %d to RTR"
    # (or "... QP to RTS", perftest_resources.c), then the test's main() giving up, " Unable to
    # Connect the HCA's through the link" (write_bw.c and every test's main()); only perftest
    # prints the two together
    r"|^[ \t]*Failed to modify QP (?:\d+ )?to (?:RTR|RTS)[ \t]*\r?\n"
    r"[ \t]*Unable to Connect the HCA's through the link"
    # its report table copied alone: the header row, then a row of figures, or perftest's dashed
    # RESULT_LINE between them as a copy of the table's top keeps it (a commit message's copy may
    # lose both "#" signs: linux-rdma/perftest 068b205's " bytes     iterations    BW
    # peak[Gb/sec] ...", RESULT_FMT_G in perftest_parameters.h being " #bytes     #iterations")
    r"|^[ \t]*#?bytes[ \t]+#?iterations[ \t]+(?:BW peak\[(?:MB|MiB|Gb)/sec\]|t_min\[usec\])[^\n]*\n"
    r"(?:[ \t]*-{20,200}[ \t]*\r?\n)?[ \t]*\d+[ \t]+\d+[ \t]+[\d.*]+"
)
_PERFTEST_TITLE_RE = re.compile(
    r"^\s*(?P<test>[A-Za-z_]+(?: [A-Za-z_]+)*) (?P<kind>BW|Latency) Test\s*$"
)
_PERFTEST_DEVICE_RE = re.compile(r"Device[ \t]*: ?(?P<ca>\S+)")
_PERFTEST_SETTING_RE = re.compile(
    # (the compact head of hccn_tool -roce_test's saved report puts two on a line: "Number of
    # qps: 1      Connection type: RC")
    r"^[ \t]*(?:Number of qps[ \t]*:[ \t]*\d+[ \t]+)?"
    r"(?P<key>Link type|Mtu|Transport type|Connection type)[ \t]*: (?P<value>\S+)"
)
_PERFTEST_SIDE_RE = re.compile(r"^\s*(local|remote) address:")
_PERFTEST_GID_RE = re.compile(r"^\s*GID:\s+(?:\d+:){10}255:255:(?P<ip>\d+:\d+:\d+:\d+)\s*$")
# an empty GID ("GID: 00:00:...:00"): on RoCE the port has no address at the GID index asked
# (-x, perftest's "GID index"), and a QP to the peer cannot be addressed (RTR fails). (The
# kernel shows an empty GID table entry as zeros: Linux drivers/infiniband/core/sysfs.c
# show_port_gid, "If reading GID fails, it is likely due to GID entry being empty"; a RoCE
# port's GIDs are made from its network interface's IP addresses, and the table stays empty
# without one: Linux commit acc4fccf4eff "IB/mlx4: Make sure GID index 0 is always occupied",
# https://git.zx2c4.com/linux-dev/patch/?id=acc4fccf4eff5b29e545995b75de77e60ea44aae)
_PERFTEST_ZERO_GID_RE = re.compile(r"^\s*GID:\s+00(?::00){15}\s*$")
# its settings' "GID index       : 2" ("Gid index" in older perftest)
_PERFTEST_GID_INDEX_RE = re.compile(r"^\s*G[Ii][Dd] index\s*: (?P<index>\d+)\s*$")
# (a copy may lose the "#" before "iterations", as a Markdown paste of a report did, or both
# "#" signs, as the table quoted in linux-rdma/perftest 068b205's commit message did)
_PERFTEST_BW_HEAD_RE = re.compile(
    r"(?<!\w)#?bytes\s+#?iterations\s+BW peak\[(?P<unit>MB|MiB|Gb)/sec\]\s+BW average\[(?:MB|MiB|Gb)/sec\]"
)
# (hccn_tool -roce_test's saved report prints the average alone: "#bytes #iterations BW
# average[MB/sec] MsgRate[Mpps]")
_PERFTEST_BW_AVG_HEAD_RE = re.compile(
    r"#bytes\s+#?iterations\s+BW average\[(?P<unit>MB|MiB|Gb)/sec\]\s+MsgRate"
)
_PERFTEST_LAT_HEAD_RE = re.compile(
    r"#bytes\s+#?iterations\s+t_min\[usec\]\s+t_max\[usec\]\s+t_typical\[usec\]"
    r"(?P<avg>\s+t_avg\[usec\])?"
)
_PERFTEST_LAT_DUR_HEAD_RE = re.compile(r"#bytes\s+#?iterations\s+t_avg\[usec\]")
_PERFTEST_ROW_RE = re.compile(
    r"^\s*(?P<bytes>\d+)\s+(?P<iters>\d+)\s+(?P<a>[0-9.]+)(?:\s+(?P<b>[0-9.]+))?"
    r"(?:\s+(?P<c>[0-9.]+))?(?:\s+(?P<d>[0-9.]+))?"
)
# a report row cut after its first two columns (#bytes, #iterations): a copy that ends inside the
# row perftest prints once the size is measured (perftest_parameters.c print_report_bw: "%d %lu"
# then the figures on the same line), its figures lost with the rest of the line
_PERFTEST_CUT_ROW_RE = re.compile(r"^\s*(?P<bytes>\d+)\s+(?P<iters>\d+)\s*$")
_PERFTEST_TOOL_RE = re.compile(r"\bib_(?:write|read|send|atomic)_(?:bw|lat)(?=$|[\s'\"|;&<>])")
# a perftest command's own words end where the shell's plumbing starts: a pipe (| tee out.txt),
# a redirection (> file, 2>&1), a list (;, &&, ||), a background &, a comment (" # ...")
_SHELL_END_RE = re.compile(r"[|;&<>`]|\s#")
_FD_BEFORE_REDIRECT_RE = re.compile(r"(?:^|\s)\d+$")
# a shell prompt before the command (root@host:~# , [root@h ~]# , user@h:~$ , (venv) $ )
# (linear time on a long run: blanks at the start are read once (possessive): what follows cannot
# begin with a blank)
# (or "root@pod /]#": a "[user@host dir]#" prompt whose opening bracket the copy cut)
_PROMPT_RE = re.compile(
    r"^\s*+(?:\([^)\n]*\)\s*)?(?:\[[^\]\n]*\]|[\w.@:~+-]{1,200}[ \t][\w.~/+-]{0,200}\]"
    r"|[\w.@:~/+-]*)\s*[#$%>]\s*"
)
# the host a shell prompt names ("root@rdma-test-pod-1 /]#", "[root@node1 ~]#", "user@h:~$")
_PROMPT_HOST_RE = re.compile(r"^\s*\[?[\w.-]{1,64}@(?P<host>[A-Za-z0-9][\w.-]{0,62})[ \t:\]]")
_LAUNCH_WORDS = frozenset(
    {"sudo", "env", "timeout", "numactl", "taskset", "stdbuf", "nohup", "time", "exec", "nice"}
)
"""Words that start a command in front of the binary's name (``sudo taskset -c 3 ib_write_bw``)."""
# perftest's options that take no value (src/perftest_parameters.c parser(): getopt_long's
# "w:y:p:d:i:...:aFegzRvhbNVCHUOZP" and the long_options with has_arg 0): the server a client
# names is the word that is no option and no option's value
_PERFTEST_SHORT_FLAGS = frozenset("aFegzRvhbNVCHUOZPG")
_PERFTEST_LONG_FLAGS = frozenset(
    """all CPU-freq events mcg comm_rdma_cm rdma_cm help bidirectional noPeak version report-cycles
    report-histogrm report-unsorted dualport server client mac_fwd use_rss run_infinitely
    report_gbits use-srq no_lock use-null-mr report-both reversed tcp cpu_util out_json
    dont_xchg_versions use_cuda_dmabuf use_cuda_pcie_mapping use_data_direct use_musa_dmabuf
    use_musa_pcie_mapping use_rocm_dmabuf use_neuron_dmabuf use_mlu_dmabuf ipv6 ipv6-addr raw_ipv6
    report-per-port odp use_hugepages use_old_post_send promiscuous sniffer raw_mcast mr_per_qp
    perform_warm_up vlan_en aes_xts encrypt_on_tx sig_before disable_pcie_relaxed use_ooo
    write_with_imm send_with_imm no_enhanced_reorder unsolicited_write connectionless
    disable_dynamic_polling sig_offload data_validation data_validation_debug
    disable_numa""".split()
)
_PERFTEST_LONG_VALUED = frozenset(
    """port ib-dev ib-port mtu size iters tx-depth qp-timeout sl gid-index connection qp vector
    inline_size outs tos hop_limit MGID rx-depth cq-mod atomic_type post_list duration margin
    source_mac dest_mac dest_ip source_ip dest_port source_port ethertype limit_bw limit_msgrate
    report-counters force-link remote_mac local_mac remote_ip local_ip remote_port local_port
    pkey_index burst_size typical_pkt_size rate_limit rate_limit_type rate_units output
    out_json_file latency_gap flow_label retry_count payload_file_path use_cuda use_cuda_bus_id
    cuda_mem_type use_musa use_musa_bus_id use_rocm use_neuron use_hl use_mlu use_opencl
    opencl_platform_id use_ib_dm_dmabuf gpu_touch mmap mmap-offset dlid tclass wait_destroy flows
    flows_burst reply_every vlan_pcp recv_post_list aes_block_size kek_path credentials_path
    data_enc_keys_number data_enc_key_app_path log_dci_streams log_active_dci_streams
    congest_type bind_source_ip cqe_poll tph_mem cpu_id ph pin_cores numa_node""".split()
)
"""perftest's long options that take a value (the long_options with has_arg 1)."""
# Its failures, as perftest prints them (each stops the run):
# - src/perftest_communication.c: "Couldn't connect to %s:%d", "Unable to open file descriptor for
#   socket connection", "Couldn't listen to port %d", "Problem in resolving basic address and
#   port", " Failed to exchange data between server and clients", "Couldn't post send " (and
#   " Couldn't post send my QP number %d"), "Failed to create QP.";
# - src/perftest_resources.c: "No IB devices found", "IB device %s not found", "Couldn't get
#   context for the device", "Unable to create QP.", "Failed to create QP.", "Couldn't allocate MR"
#   (and "... with error=%d"), "Failed to modify QP to INIT", "Failed to modify QP %d to RTR",
#   "Failed to modify QP to RTS", "Couldn't post send during warm up: ..." / "Couldn't post send:
#   qp %d ..."; src/perftest_resources.h NOTIFY_COMP_ERROR_SEND/RECV: " Completion with error at
#   client" / "... at server";
# - the tests' main()s (src/write_bw.c, read_bw.c, send_bw.c, atomic_bw.c, write_lat.c,
#   read_lat.c, send_lat.c, atomic_lat.c): " Unable to find the Infiniband/RoCE device",
#   " Couldn't get context for the device", " Unable to create RDMA_CM resources", " Unable to
#   init the socket connection", "Couldn't allocate context", " Failed to negotiate parameters",
#   "Failed to create RDMA CM connection with resources.", " Couldn't create IB resources",
#   " Unable to set up socket connection", " Found Incompatibility issue with GID types.",
#   " Unable to Connect the HCA's through the link", "Problems with warm up" (write_bw.c, read_bw.c,
#   atomic_bw.c), "Failed to sync between server and client between different msg sizes",
#   " Failed to complete run_iter_bw function successfully" (_bi, _bw_server), " Error occurred
#   while running infinitely! aborting ..." (" ... on server! ..."), "Test exited with Error"
#   (write_lat.c), " Parser function exited with Error".
# perftest has no "Couldn't modify QP to RTS": its QP transitions fail as "Failed to modify QP".
_PERFTEST_ERROR_RE = re.compile(
    # (ethernet_read_keys() names itself before its words: "ethernet_read_keys: Couldn't read
    # remote address", perftest_communication.c)
    r"^\s*(?:ethernet_read_keys: )?(?P<what>Couldn't connect to \S+|Unable to open file descriptor for socket connection"
    r"|Couldn't listen to port \d+|Problem in resolving basic address and port"
    r"|Failed to exchange data between server and clients|Couldn't post send\b"
    r"|No IB devices found|IB device \S+ not found|Couldn't get context for the device"
    r"|Unable to create QP\.|Failed to create QP\.|Couldn't allocate MR"
    # (ibv_query_device failing on the device: DEVICE_QUERY_FAILED)
    r"|Couldn't get device attributes|Failed to query device attributes"
    # (create_mr's and ctx_init's words after it: perftest_resources.c)
    r"|failed to create mr|Failed to create MR"
    r"|Failed to modify QP (?:\d+ )?to (?:INIT|RTR|RTS)|Completion with error at (?:client|server)"
    r"|Unable to find the Infiniband/RoCE device|Unable to create RDMA_CM resources"
    r"|Unable to init the socket connection|Couldn't allocate context"
    r"|Failed to negotiate parameters|Failed to create RDMA CM connection with resources\."
    r"|Couldn't create IB resources|Unable to set up socket connection"
    r"|Found Incompatibility issue with GID types\.|Unable to Connect the HCA's through the link"
    r"|Problems with warm up|Failed to sync between server and client between different msg sizes"
    r"|Failed to complete run_iter_\w+ function successfully"
    r"|Error occurred while running infinitely(?: on server)?! aborting \.\.\."
    r"|Test exited with Error|Parser function exited with Error"
    # the TCP exchange with the other side broken (perftest_communication.c: ethernet_read_keys'
    # "Couldn't read remote address", ctx_hand_shake's " Unable to read to socket/rdam_cm" and
    # its twins, "socket/rdma_cm" since linux-rdma/perftest ac87d0e (2020, "Fixed typo in
    # perftest_communication error output"), ctx_close_connection's "Failed to close connection
    # between server and client")
    r"|Couldn't read remote address|Unable to (?:read|write) (?:to|from) socket/rd(?:am|ma)_cm"
    r"|Failed to close connection between server and client"
    # the port it was asked for is not ACTIVE (perftest_parameters.c, before the link layer is
    # set: " Port number %d state is %s" from portStates, then " Couldn't set the link layer")
    r"|Port number \d+ state is (?!Active\b)\w+"
    # rdma_cm's answer to the client's connect (-R): "Event: RDMA_CM_EVENT_REJECTED; error: -111."
    # under "RDMA CM event error:" (the peer refused: -111, ECONNREFUSED)
    r"|Event: RDMA_CM_EVENT_\w+; error: -?\d+"
    # a work completion in error in its exchange of keys or data over RDMA CM (-R, or the close
    # of an iWARP run): perftest_communication.c rdma_write_keys and rdma_write_data " Bad wc
    # status %d", rdma_read_keys and rdma_read_data "Bad wc status -- %d -- %d" (status, wr_id),
    # create_ah_from_wc_recv "Bad wc status when
    # trying to create AH -- %d -- %d"; the status an ibv_wc_status (IBV_WC_STATUS)
    r"|Bad wc status (?:when trying to create AH )?(?:\d+|-- -?\d+ -- -?\d+))"
)
# perftest's words on the exchange of keys and data over its connection (TCP or RDMA CM) that
# ctx_close_connection also runs at the end (perftest_communication.c): after a complete table
# they are the tear-down's (``PerftestRun.teardown_failed``)
_PERFTEST_TEARDOWN_RE = re.compile(
    r"Bad wc status |Unable to (?:read|write) (?:to|from) socket/rd(?:am|ma)_cm"
    r"|Failed to close connection between server and client"
)
_PERFTEST_TABLE_RULE_RE = re.compile(r"^[ \t]*-{20,200}[ \t]*$")
_BAD_WC_STATUS_RE = re.compile(
    r"Bad wc status (?:when trying to create AH )?(?:-- )?(?P<status>\d+)"
)
_QP_NOT_CONNECTED_RE = re.compile(r"Failed to modify QP (?:\d{1,10} )?to (?:RTR|RTS)")
"""ctx_connect()'s words (perftest_resources.c) when a QP would not move to RTR or RTS with the
other side's address."""
_PERFTEST_EXCHANGE_BROKE_RE = re.compile(
    r"Couldn't read remote address|Unable to (?:read|write) (?:to|from) socket/rd(?:am|ma)_cm"
    r"|Failed to exchange data between server and clients"
)
"""perftest's words (``_PERFTEST_ERROR_RE``'s) on its TCP exchange of addresses with the other
side breaking (perftest_communication.c ethernet_read_keys, ctx_hand_shake): the other side
closed its connection."""
# perftest's words when ibv_query_device (or MOFED's ibv_exp_query_device) fails on the device it
# opened: "Couldn't get device attributes" (perftest_resources.c check_for_contig_pages_support,
# called from ctx_init before the PD and QPs, until linux-rdma/perftest 4948417, 2020, "Removed
# some features that are not supported in rdma-core"), " Failed to query device attributes"
# (perftest_communication.c, since). A device that cannot answer its own attributes has a
# user-space driver that does not match the kernel's (linux-rdma list, 2019-07, on
# ofiwg/libfabric#5149: "Don't use MOFED userspace with an upstream kernel release"): its QPs
# fail next ("Unable to create QP."), whatever the options.
DEVICE_QUERY_FAILED = ("Couldn't get device attributes", "Failed to query device attributes")
# The tests' main()s print these and end the process (each followed by "goto return_error",
# "goto free_devname", "goto destroy_context" ...: src/write_bw.c main() and its twins): a perftest
# failure line after one is another process's (a server and its client pasted one after the
# other), not the same run's next words. ("Couldn't get context for the device" is left out:
# perftest_resources.c prints it too, before main()'s own.)
_PERFTEST_LAST_WORDS_RE = re.compile(
    r"^\s*(?:Parser function exited with Error|Unable to find the Infiniband/RoCE device"
    r"|Unable to create RDMA_CM resources|Unable to init the socket connection"
    r"|Couldn't allocate context|Failed to negotiate parameters|Couldn't create IB resources"
    r"|Unable to set up socket connection|Found Incompatibility issue with GID types\."
    r"|Unable to Connect the HCA's through the link|Problems with warm up"
    r"|Failed to sync between server and client between different msg sizes"
    r"|Failed to complete run_iter_\w+ function successfully|Error occurred while running infinitely"
    r"|Test exited with Error)"
)
# libibverbs verbs.h, enum ibv_wc_status, in order from 0.
IBV_WC_STATUS = (
    "IBV_WC_SUCCESS", "IBV_WC_LOC_LEN_ERR", "IBV_WC_LOC_QP_OP_ERR", "IBV_WC_LOC_EEC_OP_ERR",
    "IBV_WC_LOC_PROT_ERR", "IBV_WC_WR_FLUSH_ERR", "IBV_WC_MW_BIND_ERR", "IBV_WC_BAD_RESP_ERR",
    "IBV_WC_LOC_ACCESS_ERR", "IBV_WC_REM_INV_REQ_ERR", "IBV_WC_REM_ACCESS_ERR",
    "IBV_WC_REM_OP_ERR", "IBV_WC_RETRY_EXC_ERR", "IBV_WC_RNR_RETRY_EXC_ERR",
    "IBV_WC_LOC_RDD_VIOL_ERR", "IBV_WC_REM_INV_RD_REQ_ERR", "IBV_WC_REM_ABORT_ERR",
    "IBV_WC_INV_EECN_ERR", "IBV_WC_INV_EEC_STATE_ERR", "IBV_WC_FATAL_ERR",
    "IBV_WC_RESP_TIMEOUT_ERR", "IBV_WC_GENERAL_ERR",
)  # fmt: skip
# perftest's completion error (perftest_resources.c, after "Completion with error at client"):
# " Failed status %d: wr_id %d syndrom 0x%x" (the work completion's status, an ibv_wc_status,
# and the vendor's error syndrome), then "scnt=%lu, ccnt=%lu" (work requests posted, completed)
# (since perftest's commit c7f9e40, 2025: " Failed status-%s (%d): wr_id ..." with
# ibv_wc_status_str's words; the receiving side's counts are "rcnt=%lu")
_PERFTEST_STATUS_RE = re.compile(
    r"^\s*Failed status(?:-(?P<words>[^(\n]+?) \((?P<status2>\d+)\)| (?P<status>\d+)): wr_id \d+"
    r" syndrom (?P<syndrome>0x[0-9a-fA-F]+)"
)
_PERFTEST_COUNTS_RE = re.compile(
    r"^\s*(?:scnt=(?P<sent>\d+), ccnt=(?P<done>\d+)|rcnt=(?P<received>\d+))"
)


# what a work completion's status says, where perftest's failure names only its number: rdma-core
# libibverbs/enum_strs.c ibv_wc_status_str's words, in IBV_WC_STATUS's order; a flushed request
# (ibv_poll_cq(3): "A Work Request was in process or outstanding when the QP transitioned into
# the Error State") says the queue pair had already failed or been torn down, not why
WC_STATUS_WORDS = (
    "success", "local length error", "local QP operation error",
    "local EE context operation error", "local protection error",
    "Work Request Flushed Error: in process or outstanding when its queue pair went to the error state",
    "memory management operation error", "bad response error", "local access error",
    "remote invalid request error", "remote access error", "remote operation error",
    "transport retry counter exceeded", "RNR retry counter exceeded", "local RDD violation error",
    "remote invalid RD request", "aborted error", "invalid EE context number",
    "invalid EE context state", "fatal error", "response timeout error", "general error",
)  # fmt: skip


def _wc_status_said(status: int) -> str:
    """A work completion status number as its ibv_wc_status name and libibverbs' words for it."""
    if status >= len(IBV_WC_STATUS):
        return f"work completion status {status}, no ibv_wc_status of libibverbs"
    return f"{IBV_WC_STATUS[status]}, {WC_STATUS_WORDS[status]}"


def _completion_details(run: PerftestRun, text: str) -> bool:
    """A completion error's status and counts (its lines, or what follows its first line where a
    copy joined them) added to ``run.failed``; False when ``text`` holds neither."""
    said = False
    run.failed = run.failed or ""
    if st := _PERFTEST_STATUS_RE.match(text):
        status = int(st.group("status") or st.group("status2"))
        name = IBV_WC_STATUS[status] if status < len(IBV_WC_STATUS) else f"status {status}"
        run.failed += f" ({name}, vendor syndrome {st.group('syndrome')})"
        # (a size mismatch only where the message that failed outran the buffer a server
        # started without -a or -s registers: below it the server held room for it, so the sizes
        # do not explain the refusal)
        run.sizes_mismatched = (
            name == "IBV_WC_REM_ACCESS_ERR"
            and bool(run.rows)
            and run.rows[-1]["bytes"] >= PERFTEST_SERVER_DEFAULT_BYTES
        )
        text, said = text[st.end() :], True
    if ct := _PERFTEST_COUNTS_RE.match(text):
        run.failed += (
            f", {ct.group('done')} of {ct.group('sent')} work requests completed"
            if ct.group("sent") is not None
            else f", {ct.group('received')} received"
        )
        said = True
    return said


GBIT_PER_MIB = 1048576 * 8 / 1e9
"""Gbit/s in one MiB/s (perftest's MB/sec)."""
NO_DEVICE = "(device not named)"
"""The ``ca`` of a run that failed before its settings and whose command named no ``-d``."""


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
    """``{bytes, iterations, bw_peak_gbps, bw_average_gbps}`` (bw_peak_gbps left out of a report
    that prints the average alone), ``{bytes, iterations, t_min_us,
    t_max_us, t_typical_us[, t_avg_us]}`` (t_avg_us where perftest printed it) or, for a latency
    test under -D, ``{bytes, iterations, t_avg_us[, tps]}``; one a size (a --run_infinitely run
    repeats its one size; under -D the iterations are those the duration held)."""
    bw_average_gbps: float | None = None
    """The largest size's average bandwidth (the last row's, in Gbit/s)."""
    msg_rate_mpps: float | None = None
    """The last bandwidth row's MsgRate[Mpps] (perftest's report_bw prints it after the average:
    perftest_parameters.c print_report_bw, header "MsgRate[Mpps]"), the figure a small-message
    or post-list test (``--post_list``) is run for: its bandwidth at 8 B is no link's measure."""
    result_line: int | None = None
    """The line of the report row its figures come from (the last one kept), not its head's."""
    latency_avg_us: float | None = None
    """The last row's t_avg (None where perftest printed none: before 2016 it printed t_typical
    alone)."""
    latency_typical_us: float | None = None
    """The last row's t_typical, the median latency (not printed under -D)."""
    compare_key: str | None = None
    """What a bandwidth compares with: the test and its largest size (``RDMA_Write BW at 65536
    B``); None without a bandwidth."""
    failed: str | None = None
    """perftest's own failure line when it stopped before its report."""
    failed_line: int | None = None
    """The line of that failure line."""
    device_unanswered: bool = False
    """Its failure began with its device refusing a query of its attributes
    (``DEVICE_QUERY_FAILED``): the device's verbs do not work on that host, whatever the test's
    options, so no RDMA program (NCCL's IB transport among them) can use the device there."""
    gid_index: int | None = None
    """Its settings' ``GID index`` (RoCE: the entry of the port's GID table it addresses from)."""
    empty_gids: dict[str, int] = field(default_factory=dict)
    """The all-zero GIDs it printed (``GID: 00:...:00``), by side (``local``, ``remote``): their
    lines. On RoCE, no address at that GID index on that side."""
    slow_latency_us: float | None = None
    """Its 2 B row's t_avg (t_typical where perftest printed no average), where it is above
    ``latency_pass_us``: NVIDIA's ngc_multinode_perf fails such a run."""
    latency_pass_us: float | None = None
    """The pass value it was held to (``perftest_latency_pass_us``)."""
    under_floor: bool = False
    """Its bandwidth at its largest size, ``PERFTEST_FLOOR_BYTES`` or more, is above 0 and under
    ``PERFTEST_FLOOR_GBPS``: less than a 1 Gb/s Ethernet link carries."""
    cpu_clock_line: int | None = None
    """The line of perftest's first "Conflicting CPU frequency values detected" during the run
    (its get_cpu_mhz: the cores' clocks differ by over 2%, "CPU Frequency is not max")."""
    cpu_clock: str | None = None
    """That warning's clocks, "1500.000000 != 3300.016000 MHz"."""
    cpu_clock_ratio: float | None = None
    """The higher of that warning's two clocks over the lower: the most its one-clock turning of
    cycle counts into time can be off by (perftest's get_cpu_mhz, src/get_clock.c, uses one rate
    for every count: /proc/cpuinfo's first core's, or the rate it samples against gettimeofday
    where the two differ by over 2%)."""
    clock_skewed_latency_us: float | None = None
    """A latency run's 2 B figure (``slow_latency_us``'s) times ``cpu_clock_ratio``, where even
    that stays within ``clock_skewed_pass_us``: a run the CPU-clock warning cannot have turned
    from a slow one into a healthy one (its figures healthy whatever the clock); None otherwise."""
    clock_skewed_pass_us: float | None = None
    """The pass value ``clock_skewed_latency_us`` was held to (``perftest_latency_pass_us``)."""
    at_line_rate_gbps: float | None = None
    """Its port's rate, where its average bandwidth reaches ``PERFTEST_AT_RATE_SHARE`` of it
    and not above (``line_rate_reached``): the rate an ``ibstat`` / ``ibv_devinfo`` of the same
    import gives that port (evidence.load ``_perftest_at_port_rate``). perftest prints no port
    rate, so None where the import holds none, or the figure falls short of it."""
    broke_off: bool = False
    """It failed after its report's header and before any row: both sides had exchanged their
    addresses and the test had begun (perftest prints the header once the two sides connected,
    then runs its iterations), so the peer or the path went away mid-test; no figure was
    measured between the two hosts. Or its exchange of addresses broke after its settings
    (``_PERFTEST_EXCHANGE_BROKE_RE``): printed once the other side connected, so that side
    connected and then failed before the test began (its memory registration, its QPs). Or it
    stopped on a completion with error before any row: perftest polls completions only once the
    QPs are connected and the test runs."""
    sizes_mismatched: bool = False
    """It stopped on a remote access error (IBV_WC_REM_ACCESS_ERR, status 10) after measuring
    some sizes, the last of them ``PERFTEST_SERVER_DEFAULT_BYTES`` or larger: its next, larger
    message fell outside the memory region the server registered, which the server sizes by its
    own options (perftest_parameters.c: -a sets the largest size; without it or -s, perftest's
    default DEF_SIZE_BW, 65536 B). The two sides ran with different size options, a fault of the
    test's set-up; the path carried every size measured. After a smaller last row the default
    buffer held the next message, so the error stays the run's stop (``failed``)."""
    port_not_active: str | None = None
    """The state it found its own port in where it refused to run on it (``_PORT_NOT_ACTIVE_RE``:
    ``Down``, ``Init``, ``Armed``): the local port it was given (-d, -i; the first device's port 1
    by default) carries no RDMA traffic."""
    cut_row_line: int | None = None
    """The line of a report row the copy cut after its #bytes and #iterations, before any figure
    (``_PERFTEST_CUT_ROW_RE``), in a run with no whole row: it ran that size, its result is not in
    the copy."""
    teardown_failed: bool = False
    """Its failure came after its report's table was complete (the closing dashed rule under
    its last row, or ctx_close_connection's "Failed to close connection between server and
    client"), on the two sides' exchange over the connection as they close it
    (``_PERFTEST_TEARDOWN_RE``): each test's main() prints RESULT_LINE after its last size,
    then calls ctx_close_connection, whose rdma_write_keys / rdma_read_keys print "Bad wc
    status" where the RDMA CM connection's completion fails (perftest_communication.c; perftest
    a0c16d4 fixed such a flush at close against iWARP adapters). Its rows stand as measured:
    no size was cut short."""
    race_rows: list[dict[str, float]] = field(default_factory=list)
    gpu_mr_failed: bool = False
    """It stopped on ibv_reg_mr refusing its buffer, and that buffer was GPU memory (its command's
    ``--use_cuda``, or perftest's own CUDA set-up lines above the failure: "allocated GPU buffer",
    "for type CUDA_MEM_DEVICE", perftest_resources.c / cuda_memory.c): the HCA could not map the
    GPU's memory, GPUDirect RDMA (the nvidia-peermem module, or dma-buf with --use_cuda_dmabuf)
    was not there for it; no test could run."""
    mr_failed: bool = False
    """It stopped on ibv_reg_mr refusing its host-memory buffer ("Couldn't allocate MR",
    perftest_resources.c create_single_mr, then create_mr's "failed to create mr"): the device
    registered no memory, so no RDMA operation could run on it (every verb works on registered
    memory: rdma-core's ibv_reg_mr man page); the GPU buffer's case is ``gpu_mr_failed``."""
    gpu_name: str | None = None
    """The GPU perftest picked (its CUDA set-up's "device name = [Tesla K80]")."""
    mr_errno: int | None = None
    """The errno ibv_reg_mr left ("Couldn't allocate MR with error=14", perftest since 2022)."""
    port_said: bool = True
    """Whether the port is the copy's (-i/--ib-port, or perftest's own port line), not the
    default 1 taken for a run whose command does not say it."""
    """Rows left out of ``rows`` (each with its ``line``): a --run_infinitely report that counted
    two periods' iterations (``_doubled_period``), not a figure the link carried."""


PERFTEST_AT_RATE_SHARE = 0.85
"""A bandwidth test reaching this share of its port's rate fills that link (RoCE's and IB's
headers take some 5-10% of it: DeepOps' RoCE guide reads 92.40 Gb/s as the rate of its 100 Gb/s
NIC)."""


def line_rate_reached(gbps: float | None, rate_gbps: float | None, test: str = "") -> bool:
    """Whether ``gbps`` fills a port of ``rate_gbps`` (``PERFTEST_AT_RATE_SHARE`` of it, not
    above it). The rate must come from the port (ibstat's ``Rate:``, ibv_devinfo's width and
    speed): perftest prints none (perftest_parameters.c's settings block: MTU, link type, GID,
    no port speed), and a figure alone fits many rates (45 Gb/s is 90 % of a 50G link and 45 %
    of a 100G one). False for a bidirectional test (perftest -b sums both directions: up to
    twice its link's rate)."""
    if gbps is None or not rate_gbps or "Bidirectional" in test:
        return False
    return PERFTEST_AT_RATE_SHARE * rate_gbps <= gbps <= rate_gbps


PERFTEST_LAT_PASS_WRITE_SEND_US = 2.5
PERFTEST_LAT_PASS_READ_US = 4.5
"""NVIDIA's NGC-Ready multi-node test (Mellanox/ngc_multinode_perf common.sh, since 653b420
"rdma: Add pass/fail criteria for latency tests"): a write or send latency test fails above
2.5 µs t_avg, a read test above 4.5 µs, at its latency message size (ngc_rdma_test.sh
--lat_message_size_list, default 2 B)."""
PERFTEST_LAT_PASS_BYTES = 2
"""The message size ngc_multinode_perf's latency tests run at unless told otherwise."""


def perftest_latency_pass_us(test: str) -> float:
    """The t_avg a latency test of ``test`` passes at (ngc_multinode_perf): 2.5 µs for a write
    or send, 4.5 µs for a read; a test the copy does not name is held to the laxer 4.5 µs, so
    no write or send run is failed for a figure a read run would pass with."""
    if re.search(r"write|send", test, re.I):
        return PERFTEST_LAT_PASS_WRITE_SEND_US
    return PERFTEST_LAT_PASS_READ_US


PERFTEST_FLOOR_GBPS = 1.0
"""The least a perftest bandwidth run between two hosts' RDMA ports is taken to move: the
slowest Ethernet a cluster host's NIC runs (1000BASE-T; parsers.lspci counts a 1 Gb/s NIC as no
job data NIC). RDMA NICs run at 10 Gb/s and up (RoCE) or 10 Gb/s SDR 4X and up (InfiniBand),
so a run under it measured a path that cannot carry a training job's collectives, whatever the
port's rate (a software device, rxe or siw, runs over the host's TCP/IP stack and CPU)."""
PERFTEST_SERVER_DEFAULT_BYTES = 65536
"""The buffer a perftest server started without -a or -s registers, at the least:
perftest_parameters.h ``#define DEF_SIZE_BW (65536)`` and ``BUFF_SIZE(size, cycle_buffer)``,
the larger of the size and the page (a latency test's DEF_SIZE_LAT, 2 B, gets a page: 4 KiB,
64 KiB on a 64 KiB-page host). An -a sweep's next message (twice its last row) outruns it only
after a row of this size or larger; a remote access error before that is not the sizes'."""
PERFTEST_FLOOR_BYTES = 65536
"""The message size from which a perftest bandwidth run is judged against
``PERFTEST_FLOOR_GBPS``: perftest's default size for its bandwidth tests (perftest_parameters.h
DEF_SIZE_BW 65536), large enough to fill the link; a run of small messages alone is bound by its
message rate, not the link."""


# perftest's check of its own port before it sets the link layer (ctx_set_link_layer:
# " Port number %d state is %s" with the port's state from portStates, "Down", "Init", "Armed",
# when it is not IBV_PORT_ACTIVE, then " Couldn't set the link layer" and the test's main()'s
# " Couldn't get context for the device"): the local port, not the path to the peer, failed
_PORT_NOT_ACTIVE_RE = re.compile(r"Port number \d+ state is (?P<state>(?!Active\b)\w+)")

# perftest's CUDA set-up before it registers its buffer (src/cuda_memory.c cuda_memory_init and
# cuda_memory_allocate_buffer: "[pid = %d, dev = %d] device name = [%s]", "allocated GPU buffer
# address at %016llx pointer=%p" (older), "allocated GPU buffer of a %lu address at %p for type
# %s" (CUDA_MEM_DEVICE, CUDA_MEM_MANAGED ...)): the buffer create_single_mr then gives ibv_reg_mr
# is GPU memory
_PERFTEST_GPU_NAME_RE = re.compile(r"\] device name = \[(?P<name>[^\]\n]{1,80})\]")
_PERFTEST_GPU_BUFFER_RE = re.compile(
    r"^\s*allocated GPU buffer\b(?:[^\n]{0,120}? for type (?P<type>\w{1,40}))?"
)
_MR_ERRNO_RE = re.compile(r"Couldn't allocate MR with error=(?P<errno>-?\d{1,4})")
ERRNO_NAMES = {12: "ENOMEM, Cannot allocate memory", 14: "EFAULT, Bad address"}
"""Linux's errno values ibv_reg_mr leaves (include/uapi/asm-generic/errno-base.h: ENOMEM 12,
EFAULT 14): EFAULT on a GPU buffer is the kernel unable to pin those pages, which only
nvidia-peermem (or dma-buf registration) can (NVIDIA GPUDirect RDMA documentation)."""


# perftest's dma-buf path (cuda_memory.c cuda_allocate_device_memory_buffer under
# --use_cuda_dmabuf: "using DMA-BUF for GPU buffer address at %#llx ..."): the buffer is already
# handed to ibv_reg_dmabuf_mr, so --use_cuda_dmabuf is no advice for its failure
_PERFTEST_DMABUF_RE = re.compile(r"^\s*using DMA-BUF for GPU buffer\b")
# perftest's integrated-GPU check (cuda_memory.c: "CUDA device integrated: %X"): 1 allocates the
# buffer with cuMemAllocHost, host memory
_PERFTEST_INTEGRATED_RE = re.compile(r"^\s*CUDA device integrated: (?P<flag>[0-9A-Fa-f]{1,8})\s*$")
PERFTEST_HOST_MEM_TYPES = frozenset(
    {"CUDA_MEM_MALLOC", "CUDA_MEM_HOSTALLOC", "CUDA_MEM_HOSTREGISTER"}
)
"""perftest's --cuda_mem_type values whose buffer is host memory: cuda_memory.c
cuda_memory_allocate_buffer allocates CUDA_MEM_MALLOC with memalign ("Host allocation selected,
calling memalign allocator ...") and still prints "allocated GPU buffer of a %lu address at %p for
type %s" for it, as for every type; only CUDA_MEM_DEVICE (cuMemAlloc) is the GPU's memory."""


def _gpu_mr_failure(
    run: PerftestRun,
    line: str,
    gpu_buffer: bool,
    gpu_name: str | None,
    mem_type: str | None,
    dmabuf: bool = False,
) -> None:
    """Mark ``run``, stopped on "Couldn't allocate MR" (``line``), as a GPU buffer's
    registration that failed where its buffer was GPU memory, and say so in its failure.
    ``dmabuf``: the run already registered it as a dma-buf (--use_cuda_dmabuf)."""
    if (e := _MR_ERRNO_RE.search(line)) is not None:
        run.mr_errno = int(e.group("errno"))
    if not gpu_buffer or (mem_type is not None and mem_type != "CUDA_MEM_DEVICE"):
        # (host memory, a CUDA_MEM_MALLOC buffer among them: its failure stays as perftest
        # wrote it, its errno kept aside; only CUDA_MEM_DEVICE is the GPU's memory, see
        # PERFTEST_HOST_MEM_TYPES; CUDA_MEM_MANAGED is cuMemAllocManaged's migrating memory,
        # not told apart here)
        run.mr_failed = True
        return
    run.gpu_mr_failed, run.gpu_name = True, gpu_name
    errno = ""
    if run.mr_errno is not None:
        errno = f", error={run.mr_errno}" + (
            f" ({ERRNO_NAMES[run.mr_errno]})" if run.mr_errno in ERRNO_NAMES else ""
        )
    # (ibv_reg_mr on GPU memory: an HCA registers it only through GPUDirect RDMA, the
    # nvidia-peermem module, or a dma-buf of the buffer, perftest's --use_cuda_dmabuf)
    run.failed = (
        "Couldn't allocate MR (its buffer is GPU memory"
        + (f" ({mem_type})" if mem_type else "")
        + (f" on the {gpu_name}" if gpu_name else "")
        + (f"{errno}" if errno else "")
        + (
            # (already dma-buf: perftest gave ibv_reg_dmabuf_mr the buffer, create_single_mr;
            # what is left is the kernel's and HCA driver's dma-buf support, or nvidia-peermem)
            ": the run registered it as a dma-buf (--use_cuda_dmabuf) and that was refused: the "
            "kernel and RDMA driver must support dma-buf registration, or nvidia-peermem be loaded "
            "for a run without --use_cuda_dmabuf)"
            if dmabuf
            else ": registering it for RDMA needs GPUDirect RDMA, the nvidia-peermem module, or "
            "dma-buf with --use_cuda_dmabuf, on a GPU and driver that allow it)"
        )
    )


@dataclass(kw_only=True)
class _PerftestCommand:
    line: int
    tool: str
    device: str | None
    port: int | None
    server: str | None
    tcp_port: int | None = None
    """``-p``/``--port``: the TCP port of its exchange with the server (perftest's 18515 unset)."""
    gpu_buffer: bool = False
    """``--use_cuda``: its buffers are GPU memory (perftest built with CUDA)."""
    dmabuf: bool = False
    """``--use_cuda_dmabuf``: its GPU buffer is registered as a dma-buf (ibv_reg_dmabuf_mr)."""
    host: str | None = None
    """The host its shell prompt names (``root@rdma-test-pod-1 /]#``): where it ran."""


def _launch_prefix(prefix: str) -> bool:
    """Whether ``prefix`` (the line before a perftest binary's name) is how a command starts:
    a prompt that ends in ``#`` (root's) and launch words, not a comment that names the tool
    (``# then run ib_write_bw on node-b``). A prefix without ``#`` is taken as before."""
    if "#" not in prefix:
        return True
    rest = _PROMPT_RE.sub("", prefix, count=1)
    rest = re.sub(r"\S*/$", "", rest)  # the binary's directory: ./ib_write_bw, /usr/bin/...
    return "#" not in rest and all(
        w in _LAUNCH_WORDS or w.startswith("-") or "=" in w or re.fullmatch(r"[\d.,:-]+[smhd]?", w)
        for w in rest.split()
    )


def _perftest_args(rest: str) -> list[str]:
    """The command's own words in ``rest`` (the line after the binary's name)."""
    if stop := _SHELL_END_RE.search(rest):
        rest = rest[: stop.start()]
        if stop.group(0) in "<>":  # "2>&1", "2> err.txt": the digits are the descriptor
            rest = _FD_BEFORE_REDIRECT_RE.sub("", rest)
    for quote in "'\"":
        if rest.count(quote) % 2:  # the quote that closes the command (ssh h "ib_write_bw ...")
            rest = rest[: rest.index(quote)]
    return [w.strip("'\"") for w in rest.split()]


def _perftest_option(word: str, following: str | None) -> tuple[str, str | None, int]:
    """An option word's ``(name, value, words it takes)`` (getopt_long's forms: ``-d mlx5_0``,
    ``-dmlx5_0``, ``-aF``, ``--ib-dev=mlx5_0``, ``--ib-port 2``, a long flag's unique prefix)."""
    if word.startswith("--"):
        name, eq, value = word[2:].partition("=")
        if eq:
            return name, value, 1
        if name in _PERFTEST_LONG_FLAGS or (
            name not in _PERFTEST_LONG_VALUED
            and any(f.startswith(name) for f in _PERFTEST_LONG_FLAGS)
        ):
            return name, None, 1
        return name, following, 2
    letters = word[1:]
    for at, letter in enumerate(letters):
        if letter not in _PERFTEST_SHORT_FLAGS:  # it takes a value: the rest, or the next word
            rest = letters[at + 1 :]
            return (letter, rest, 1) if rest else (letter, following, 2)
    return letters, None, 1


_IPV4_RE = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}")
_CPU_FREQ_CONFLICT_RE = re.compile(
    r"Conflicting CPU frequency values detected: (\d+(?:\.\d+)?) != (\d+(?:\.\d+)?)"
)


def _perftest_command(no: int, line: str) -> _PerftestCommand | None:
    """A perftest command on ``line`` (after a prompt or launch words; the last binary's name
    before any shell plumbing), with its device, port and server."""
    tools = list(_PERFTEST_TOOL_RE.finditer(line))
    if not tools:
        return None
    end = _SHELL_END_RE.search(line, tools[0].end())
    tool = [t for t in tools if end is None or t.start() < end.start()][-1]
    if not _launch_prefix(line[: tool.start()]):
        return None
    words = _perftest_args(line[tool.end() :])
    device: str | None = None
    port: int | None = None
    server: str | None = None
    tcp_port: int | None = None
    at = 0
    while at < len(words):
        word = words[at]
        if not word.startswith("-") or word == "-":
            server, at = word, at + 1
            continue
        name, value, used = _perftest_option(word, words[at + 1] if at + 1 < len(words) else None)
        at += used
        if name in ("d", "ib-dev") and value:
            device = value
        elif name in ("i", "ib-port") and value and value.isdigit():
            port = int(value)
        elif name in ("p", "port") and value and value.isdigit():
            tcp_port = int(value)
    return _PerftestCommand(
        line=no,
        tool=tool.group(0),
        device=device,
        port=port,
        server=server,
        tcp_port=tcp_port,
        gpu_buffer="--use_cuda" in line,
        dmabuf="--use_cuda_dmabuf" in line,
        host=h.group("host") if (h := _PROMPT_HOST_RE.match(line[: tool.start()])) else None,
    )


_CONNECT_TO_RE = re.compile(r"Couldn't connect to (?P<host>\S+?):(?P<port>\d+)")
PERFTEST_DEFAULT_TCP_PORT = 18515
"""perftest's TCP port when ``-p`` is not given (perftest_parameters.h DEF_PORT)."""


def _connected_by(pending: list[_PerftestCommand], what: str) -> _PerftestCommand | None:
    """The command whose server and TCP port a "Couldn't connect to HOST:PORT" names."""
    if not (m := _CONNECT_TO_RE.search(what)):
        return None
    port = int(m.group("port"))
    for command in reversed(pending):
        if (
            command.server == m.group("host")
            and (command.tcp_port or PERFTEST_DEFAULT_TCP_PORT) == port
        ):
            return command
    return None


def _commanded(pending: list[_PerftestCommand], ca: str) -> _PerftestCommand | None:
    """The command of the run whose settings name ``ca``: the last one since the previous run
    that names that device (perftest prints the ``-d`` it was given), else the last that names
    none."""
    for want in (ca, None):
        for command in reversed(pending):
            if command.device == want:
                return command
    return None


def _command_port(cmd: _PerftestCommand | None, line: int, test: str) -> HcaPort:
    """The port a perftest run is on: its command's -d and -i (perftest's default port 1; a
    device the copy does not name where the command has no -d), or, with no command in the
    copy, an unnamed device's port 1, its tool ``perftest <test>``."""
    return HcaPort(
        ca=cmd.device if cmd and cmd.device else NO_DEVICE,
        port=cmd.port if cmd and cmd.port is not None else 1,
        line=line,
        tool=f"perftest {cmd.tool if cmd else test}",
    )


_PROMPT_COMMAND_RE = re.compile(r"^\s*(?:\S+@\S+|\[[^\]\n]*\])?[:~\w/.-]*[#$]\s*(?P<cmd>\S+)")
_PERFTEST_TOOLS = ("ib_write_", "ib_read_", "ib_send_", "ib_atomic_", "raw_ethernet_")


def _under_other_tool(numbered: list[tuple[int, str, int | None]], no: int) -> bool:
    """Line ``no`` stands under a shell prompt that ran another tool than a perftest one (the
    nearest prompt above it, "root@pod:/# ibv_devinfo"): perftest's error words there are that
    tool's."""
    for at, line, _ in reversed(numbered):
        if at >= no:
            continue
        if (p := _PROMPT_COMMAND_RE.match(line)) and ("#" in line or "$" in line):
            return not p.group("cmd").startswith(_PERFTEST_TOOLS)
    return False


def parse_perftest(text: str) -> tuple[list[HcaPort], list[ParseWarning]]:
    """Each perftest run in ``text`` as the port it ran on, its ``perftest`` what it measured
    (Gbit/s and microseconds). The port is the command's ``-i``/``--ib-port``, else perftest's
    default 1 (said when the command is not in the file). A run that failed before its settings
    is the port its command names. A perftest from before 2012 names no device in its head
    (PERFTEST_SIGNATURE): its run is the last command's, the device that command's -d. Failure
    lines with no command and no settings are a run on a port the copy does not name, one per
    process (a failure line after main()'s last words is another's). Raises ParseError when no
    run's settings block names its device and no command failed."""
    ports: list[HcaPort] = []
    warnings: list[ParseWarning] = []
    pending: list[_PerftestCommand] = []  # commands no run has been matched to yet
    closed: set[int] = set()  # runs (by id) whose table was complete: ``teardown_failed``
    failure_open = False  # a run failed before its settings, no command or settings since
    ended = False  # the current run's test printed its main()'s last words (it exited)
    current: HcaPort | None = None
    run: PerftestRun | None = None
    gids: list[str] = []
    gid_side: str | None = None  # "local" / "remote": the address line the next GID follows
    head: str | None = None  # "bw", "lat", "lat_typical" or "lat_dur" under a report header
    scale = GBIT_PER_MIB
    title: str | None = None
    title_at = 0
    previous = ""  # the line above (perftest's parser says what it refused there)
    error_at = 0  # the last perftest failure line read
    gpu_buffer_seen = False  # perftest's CUDA set-up allocated a GPU buffer since the last command
    dmabuf_seen = False  # its set-up said "using DMA-BUF for GPU buffer" (--use_cuda_dmabuf)
    integrated = False  # "CUDA device integrated: 1": the buffer is cuMemAllocHost host memory
    gpu_name: str | None = None  # the GPU that set-up named
    mem_type: str | None = None  # its buffer's kind ("CUDA_MEM_DEVICE")
    peer_addressed: set[int] = set()  # runs (by id) that printed the other side's address
    numbered = numbered_lines(text)
    for index, (no, line, _) in enumerate(numbered):
        above, previous = previous, line
        if command := _perftest_command(no, line):
            nxt = numbered[index + 1][1].strip() if index + 1 < len(numbered) else ""
            if (
                command.server
                and _IPV4_RE.fullmatch(command.server + nxt)
                and (
                    not _IPV4_RE.fullmatch(command.server)
                    # (or wrapped inside its last number: "192.168.1.6" / "0", a line of
                    # digits alone being no perftest output's)
                    or (nxt.isdigit() and int(command.server.rsplit(".", 1)[1] + nxt) <= 255)
                )
            ):
                # a terminal that wrapped the prompt's line inside the server's address ("...
                # --iter 20000 1" / "92.168.1.60"): the address whole
                command.server += nxt
            pending.append(command)
            failure_open, gpu_buffer_seen, gpu_name, mem_type = False, False, None, None
            dmabuf_seen, integrated = "--use_cuda_dmabuf" in line, False
            continue
        if "GPU buffer" in line and (gpu_buffer := _PERFTEST_GPU_BUFFER_RE.match(line)):
            # (an integrated GPU's CUDA_MEM_DEVICE buffer is cuMemAllocHost's host memory)
            gpu_buffer_seen = not integrated
            mem_type = gpu_buffer.group("type") or mem_type
        elif "DMA-BUF" in line and _PERFTEST_DMABUF_RE.match(line):
            dmabuf_seen = True
        elif "integrated" in line and (i := _PERFTEST_INTEGRATED_RE.match(line)):
            integrated = int(i.group("flag"), 16) == 1
        elif "device name" in line and (gpu := _PERFTEST_GPU_NAME_RE.search(line)):
            gpu_name = gpu.group("name").strip()
        if t := _PERFTEST_TITLE_RE.match(line):
            title, title_at = f"{t.group('test')} {t.group('kind')}", no
            continue
        if "Dual-port" in line and (d := _PERFTEST_DEVICE_RE.search(line)):
            failure_open = ended = False
            ca = d.group("ca")
            cmd = _commanded(pending, ca)
            run = PerftestRun(test=title or (cmd.tool if cmd else "perftest"))
            if cmd and cmd.server:
                run.peer = cmd.server
            current = HcaPort(
                ca=ca,
                port=cmd.port if cmd and cmd.port is not None else 1,
                line=no,
                tool=f"perftest {cmd.tool if cmd else run.test}",
                host=cmd.host if cmd else None,
            )
            current.perftest = run
            if cmd is None:
                warnings.append(
                    ParseWarning(
                        line=no,
                        message=f"perftest on {ca}: the command is not in the file, so its port is taken as perftest's default 1",
                        skipped=False,
                    )
                )
            ports.append(current)
            # (the commands no run has matched yet stay: clients sent to the background print
            # their runs after all of them were typed)
            pending = [c for c in pending if c is not cmd]
            gids, head, title, gid_side = [], None, None, None
            continue
        if (
            title is not None
            and (setting := _PERFTEST_SETTING_RE.match(line))
            and setting.group("key") == "Connection type"
        ):
            # the head of a perftest from before 2012 (PERFTEST_SIGNATURE): its connection type
            # under its title, no Device line. The run is the last command's, on its -d and -i
            failure_open = ended = False
            cmd = pending[-1] if pending else None
            run = PerftestRun(test=title, peer=cmd.server if cmd else None)
            current = _command_port(cmd, title_at, title)
            current.perftest = run
            if cmd is None:
                warnings.append(
                    ParseWarning(
                        line=title_at,
                        message=f"perftest {title}: the command is not in the file and this "
                        "perftest's head names no device: its device is unknown, its port taken "
                        "as perftest's default 1",
                        skipped=False,
                    )
                )
            ports.append(current)
            pending = [c for c in pending if c is not cmd]
            gids, head, title, gid_side = [], None, None, None
            continue
        if run is not None and run.failed and _completion_details(run, line):
            continue
        if (
            (sig := _SHELL_SIGNAL_RE.match(line))
            and (pending or run is not None)
            and not _under_other_tool(numbered, no)
        ):
            # the shell's word that the test ended on a signal: a crash, not perftest's own
            # failure line. A run that failed already crashed on its way out; one still waiting
            # for its settings (the last command) or its report crashed there
            what = (
                f"the process crashed (line {no}): {sig.group(0).strip()} (the shell's report of "
                "its signal)"
            )
            if run is not None and (failure_open or (run.failed and not pending)):
                run.failed = f"{run.failed}, then {what}"
            elif pending and (current is None or run is None or ended or run.rows):
                cmd = pending[-1]
                run = PerftestRun(test=title or cmd.tool, peer=cmd.server, failed=what)
                current = _command_port(cmd, cmd.line, cmd.tool)
                current.perftest = run
                ports.append(current)
                pending = [c for c in pending if c is not cmd]
                gids, head, title, gid_side = [], None, None, None
            elif run is not None and not run.rows:
                run.failed = run.failed or what
            failure_open, ended = True, True
            continue
        if "segfault at" in line and (kernel := _KERNEL_SEGFAULT_RE.search(line)):
            _kernel_segfault(kernel, no, ports, pending)
            continue
        if (
            run is not None
            and run.cpu_clock_line is None
            and "Conflicting CPU" in line
            and (clock := _CPU_FREQ_CONFLICT_RE.search(line))
        ):
            # (printed inside the run's report, between its header and its rows)
            run.cpu_clock_line = no
            run.cpu_clock = f"{clock.group(1)} != {clock.group(2)} MHz"
            low_mhz, high_mhz = sorted((float(clock.group(1)), float(clock.group(2))))
            run.cpu_clock_ratio = high_mhz / low_mhz if low_mhz > 0 else None
        e = _PERFTEST_ERROR_RE.match(line)
        if e is None and "@" in line and (prompt := MARKED_PROMPT_HOST_RE.match(line)):
            # a run sent to the background ("ib_write_bw -d mlx5_18 &") prints its words after
            # the shell's next prompt, on that prompt's line: " Port number 1 state is Down"
            # after "root@pod:/# "
            if e := _PERFTEST_ERROR_RE.match(line[prompt.end() :]):
                line = line[prompt.end() :]
        if run is not None and run.rows and (run.failed is None or e is not None):
            # (the table closed: its rule under its last row, before any failure; or
            # ctx_close_connection's own words among the failure's lines)
            if (run.failed is None and _PERFTEST_TABLE_RULE_RE.match(line)) or (
                e is not None and e.group("what").startswith("Failed to close connection")
            ):
                closed.add(id(run))
        last = e is not None and _PERFTEST_LAST_WORDS_RE.match(line) is not None
        # a command typed after the run's failure lines (a server that failed, then its client
        # started by hand) is another process: a failure line after it is that command's, not
        # the failed run's next words
        retyped = bool(
            e and run is not None and run.failed and pending and pending[-1].line > error_at
        )
        error_at = no if e else error_at
        if e and failure_open and not ended:
            ended = last
            if (
                run is not None
                and run.device_unanswered
                and "create QP" in e.group("what")
                and ", then " not in (run.failed or "")
            ):
                run.failed = f"{run.failed}, then {e.group('what')}"
            continue  # the same client's next words on its failure ("Unable to open file ...")
        if e and not pending and (current is None or ended) and _under_other_tool(numbered, no):
            continue  # (another tool's words, "No IB devices found" under "$ ibv_devinfo")
        if e and not pending and (current is None or ended):
            # the failure's block copied with no command and no settings (or another process's
            # after the last one's main() gave up): a run on a port the copy does not name
            run = PerftestRun(test=title or "perftest", failed=e.group("what"), failed_line=no)
            run.device_unanswered = e.group("what") in DEVICE_QUERY_FAILED
            run.port_said = False  # (perftest's default port 1: the copy does not say it)
            if e.group("what") == "Couldn't allocate MR":
                _gpu_mr_failure(run, line, gpu_buffer_seen, gpu_name, mem_type, dmabuf_seen)
            current = HcaPort(ca=NO_DEVICE, port=1, line=no, tool="perftest")
            current.perftest = run
            ports.append(current)
            ended = last
            # (a copy that joined the completion error's lines: its status on the same line)
            _completion_details(run, line[e.end() :])
            continue
        # (a failure under a run's rows is that run's where no command was typed after its
        # settings: a command line copied twice above one run, the prompt's and a stray copy of
        # it, leaves one of them pending that printed nothing of its own)
        typed_since = bool(pending) and current is not None and pending[-1].line > current.line
        if (
            e
            and pending
            and (current is None or run is None or ended or retyped or (run.rows and typed_since))
        ):
            # (a run whose settings were printed and whose report has not started: the error is
            # its own, the commands still pending are others', a server waiting meanwhile)
            # the last command stopped before its settings (its device, its TCP exchange with
            # the server, its resources): the port it names failed; "Couldn't connect to
            # HOST:PORT" names the command by its server and -p (perftest_communication.c)
            cmd = _connected_by(pending, e.group("what")) or pending[-1]
            failure_open, ended = True, last
            what = e.group("what")
            if what == "Parser function exited with Error" and above.strip():
                # its own words on the argument it refused, the line above: the command line,
                # not the link, is what failed
                what = f"its command line was refused ({above.strip()[:160]}): no test ran"
            run = PerftestRun(test=title or cmd.tool, peer=cmd.server, failed=what, failed_line=no)
            run.device_unanswered = what in DEVICE_QUERY_FAILED
            run.port_said = cmd.port is not None
            if what == "Couldn't allocate MR":
                _gpu_mr_failure(
                    run,
                    line,
                    cmd.gpu_buffer or gpu_buffer_seen,
                    gpu_name,
                    mem_type,
                    dmabuf_seen or cmd.dmabuf,
                )
            current = _command_port(cmd, cmd.line, cmd.tool)
            current.perftest = run
            ports.append(current)
            pending = [c for c in pending if c is not cmd]
            gids, head, title, gid_side = [], None, None, None
            continue
        bw_head = _PERFTEST_BW_HEAD_RE.search(line)
        avg_only = None if bw_head else _PERFTEST_BW_AVG_HEAD_RE.search(line)
        bw_head = bw_head or avg_only
        lat_head = None if bw_head else _PERFTEST_LAT_HEAD_RE.search(line)
        if (bw_head or lat_head) and (run is None or run.rows or ended):
            # a report table copied without the settings above it (a user's paste of the
            # results alone): a run of the next command not matched yet, on its -d and -i
            cmd = pending[0] if pending else None
            run = PerftestRun(
                test=cmd.tool if cmd else "perftest", peer=cmd.server if cmd else None
            )
            current = _command_port(cmd, no, "run")
            current.perftest = run
            warnings.append(
                ParseWarning(
                    line=no,
                    message="perftest's report table without its settings block"
                    + (
                        f": read as the run of the command on line {cmd.line}"
                        if cmd
                        else ": its command and device are not in the file"
                    ),
                    skipped=False,
                )
            )
            ports.append(current)
            pending = [c for c in pending if c is not cmd]
            failure_open = ended = False
        if current is None or run is None:
            continue
        if s := _PERFTEST_SETTING_RE.match(line):
            key, value = s.group("key"), s.group("value")
            if key == "Link type":
                current.link_layer = value
            elif key == "Mtu" and (mtu := re.match(r"\d+", value)):
                current.active_mtu = int(mtu.group(0))
            continue
        if _PERFTEST_ZERO_GID_RE.match(line):
            run.empty_gids.setdefault(gid_side or ("remote" if run.empty_gids else "local"), no)
            continue
        if gi := _PERFTEST_GID_INDEX_RE.match(line):
            run.gid_index = int(gi.group("index"))
            continue
        if side := _PERFTEST_SIDE_RE.match(line):
            gid_side = side.group(1)
            if gid_side == "remote" and run is not None:
                peer_addressed.add(id(run))
        if g := _PERFTEST_GID_RE.match(line):
            # (the GID's bytes printed "%02d": "200:00:45:14" is 200.0.45.14); with several QPs
            # each side prints an address line and GID per QP: the GID is the side's whose
            # "local address:" / "remote address:" line stands above it
            ip = ".".join(str(int(b)) for b in g.group("ip").split(":"))
            if gid_side == "local" or (gid_side is None and not gids):
                run.local = run.local or ip
            elif run.peer is None:
                run.peer = ip
            gids.append(ip)
            continue
        if bw_head:
            head = "bw_avg" if avg_only else "bw"
            scale = 1.0 if bw_head.group("unit") == "Gb" else GBIT_PER_MIB
            continue
        if h := lat_head:
            head = "lat" if h.group("avg") else "lat_typical"
            continue
        if _PERFTEST_LAT_DUR_HEAD_RE.search(line):
            head = "lat_dur"
            continue
        if e:
            if run.failed is None:
                run.failed, run.failed_line = e.group("what"), no
                run.device_unanswered = run.failed in DEVICE_QUERY_FAILED
                # (or its exchange of addresses with the other side broke after its settings:
                # perftest prints them once the other side connected, establish_connection
                # then ctx_print_test_info in each test's main(), so that side went away)
                run.broke_off = not run.rows and (
                    head is not None or _PERFTEST_EXCHANGE_BROKE_RE.match(run.failed) is not None
                )
            elif (
                run.device_unanswered
                and "create QP" in e.group("what")
                and ", then " not in run.failed
            ):
                run.failed = f"{run.failed}, then {e.group('what')}"
            ended = ended or last
            continue
        # (a row a user pasted into Markdown may carry its figure in bold: "**5544.28**")
        if head and run is not None and (r := _PERFTEST_ROW_RE.match(line.replace("**", ""))):
            rows_before = len(run.rows)
            kept_rate, kept_line = run.msg_rate_mpps, run.result_line
            _perftest_row(run, head, scale, r)
            if len(run.rows) > rows_before:
                run.result_line = no
            if head.startswith("bw") and len(run.rows) > rows_before:
                if said := _doubled_period(run, no):
                    # (the row left out takes its rate and line with it: the run's figures are
                    # the row before's again)
                    run.msg_rate_mpps, run.result_line = kept_rate, kept_line
                    warnings.append(ParseWarning(line=no, message=said, skipped=False))
        elif head and run is not None and not run.rows and _PERFTEST_CUT_ROW_RE.match(line):
            run.cut_row_line = run.cut_row_line or no
    if not ports:
        raise ParseError('no perftest settings block ("Dual-port : ... Device : ...")')
    for hca in ports:
        # A completion with error before any row broke off too, whatever the copy kept of the
        # run above it (its command, its settings, its header, or nothing): perftest polls
        # completions only in its warm-up and run_iter_* loops, after ctx_connect moved the QPs
        # to RTR/RTS with the other side's address and after the report's header (src/write_bw.c
        # main(); perftest_resources.h NOTIFY_COMP_ERROR_SEND/RECV): the RDMA path failed
        if (
            (done := hca.perftest) is not None
            and not done.rows
            and (done.failed or "").startswith(("Completion with error", "Bad wc status"))
        ):
            # (a "Bad wc status" is a completion in error too, on the RDMA CM connection the two
            # sides exchange their keys and data over: perftest_communication.c rdma_write_keys,
            # rdma_read_keys, rdma_write_data, rdma_read_data poll it once it was set up)
            done.broke_off = True
        if (
            done is not None
            and not done.rows
            and id(done) in peer_addressed
            and _QP_NOT_CONNECTED_RE.match(done.failed or "")
        ):
            # a QP that would not move to RTR/RTS after the other side's address was printed:
            # perftest prints "remote address:" (ctx_print_pingpong_data) once ctx_hand_shake
            # exchanged the two sides' addresses, then ctx_connect moves the QPs to RTR/RTS with
            # it ("Unable to Connect the HCA's through the link", src/write_bw.c main()): both
            # sides had connected and the RDMA connection itself could not be set up
            done.broke_off = True
        if (
            done is not None
            and done.failed
            and (bad := _BAD_WC_STATUS_RE.match(done.failed))
            and "(IBV_WC_" not in done.failed
        ):
            done.failed += f" ({_wc_status_said(int(bad.group('status')))})"
        if (
            done is not None
            and done.rows
            and done.failed
            and id(done) in closed
            and _PERFTEST_TEARDOWN_RE.match(done.failed)
        ):
            done.teardown_failed = True
    _interleaved_server_row(ports, warnings)
    if freqs := [(no, m) for no, line, _ in numbered if (m := _CPU_FREQ_CONFLICT_RE.search(line))]:
        # perftest's get_cpu_mhz (src/get_clock.c): /proc/cpuinfo's cores at different clocks;
        # its cycle counts are turned into time with one clock (and its bandwidth with that
        # time: perftest_parameters.c print_report_bw), so its figures may be off
        warnings.append(
            ParseWarning(
                line=freqs[0][0],
                message=f"perftest warned {len(freqs)} time(s) that the CPU clocks differ "
                f"({freqs[0][1].group(1)} != {freqs[0][1].group(2)} MHz, 'CPU Frequency is not "
                "max'): it turns its cycle counts into time with one clock, so its bandwidth, "
                "latency and time figures may be off (a CPU governor that scales the clock)",
                skipped=False,
            )
        )
    for port in ports:
        run = port.perftest
        if (
            run is not None
            and run.empty_gids
            and run.failed
            and "to RTR" in run.failed
            and port.link_layer == "Ethernet"
        ):
            run.failed += (
                " (its GID is all zeros: the port has no RoCE address at the GID index used: "
                "an interface without an IP address, or the wrong -x index)"
            )
        if run is not None and run.failed and (down := _PORT_NOT_ACTIVE_RE.match(run.failed)):
            run.port_not_active = down.group("state")
        if run is not None and run.bw_average_gbps is not None:
            run.compare_key = f"{run.test} at {int(run.rows[-1]['bytes'])} B"
            run.under_floor = (
                run.rows[-1]["bytes"] >= PERFTEST_FLOOR_BYTES
                and 0 < run.bw_average_gbps < PERFTEST_FLOOR_GBPS
            )
        if run is not None and run.bw_average_gbps is None and not run.failed:
            for row in run.rows:
                figure = row.get("t_avg_us", row.get("t_typical_us"))
                if row.get("bytes") == PERFTEST_LAT_PASS_BYTES and figure is not None:
                    pass_us = perftest_latency_pass_us(f"{run.test} {port.tool}")
                    if figure > pass_us:
                        run.slow_latency_us, run.latency_pass_us = figure, pass_us
                    elif run.cpu_clock_ratio and figure * run.cpu_clock_ratio <= pass_us:
                        # (the figure scaled by the warning's two clocks' ratio, the most
                        # one wrong clock rate could have shrunk it, still passes: the
                        # warning says nothing against this run's figures)
                        run.clock_skewed_latency_us = round(figure * run.cpu_clock_ratio, 2)
                        run.clock_skewed_pass_us = pass_us
                    break
        if run is not None and not run.rows and run.failed is None:
            warnings.append(
                ParseWarning(
                    line=run.cut_row_line or port.line,
                    message=f"perftest on {port.ca}: its report row is cut after #bytes and "
                    "#iterations, before its figures"
                    if run.cut_row_line
                    else f"perftest on {port.ca}: no report row under its settings (the copy ends "
                    "before it?)",
                    skipped=False,
                )
            )
    return ports, warnings


# bash's report of a child a signal ended (strsignal's words, " (core dumped)" where it dumped
# core), on a line of its own
_SHELL_SIGNAL_RE = re.compile(
    r"^\s*(?:Segmentation fault|Bus error|Illegal instruction|Aborted|Floating point exception)"
    r"(?: \(core dumped\))?\s*$"
)
# the kernel's log of a perftest binary that crashed (a dmesg line, its time stamp before it):
# Linux arch/x86/mm/fault.c show_signal_msg, "%s%s[%d]: segfault at %lx ip %px sp %px error %lx"
# (the command's name, its pid, the address it read or wrote), print_vma_addr's " in %s[%lx+%lx]"
# after it (the file the faulting instruction is in: the library that crashed)
_KERNEL_SEGFAULT_RE = re.compile(
    r"\b(?P<tool>ib_(?:write|read|send|atomic)_(?:bw|lat))\[(?P<pid>\d+)\]: segfault at "
    r"(?P<address>[0-9a-f]+) ip [0-9a-fx]+ sp [0-9a-fx]+ error [0-9a-f]+"
    r"(?: in (?P<object>[^\s\[]+)\[)?"
)


def _kernel_segfault(
    kernel: re.Match[str], no: int, ports: list[HcaPort], pending: list[_PerftestCommand]
) -> None:
    """The kernel's segfault line of a perftest binary: added to the run of that binary that
    crashed (the shell said so above), else a crashed run of the last command of that binary,
    else one on a port the copy does not name."""
    where = (
        f"the kernel's log (line {no}): {kernel.group('tool')}[{kernel.group('pid')}] segfault at "
        + (
            "address 0 (a null pointer)"
            if kernel.group("address").strip("0") == ""
            else f"address 0x{kernel.group('address')}"
        )
        + (f" in {kernel.group('object')}" if kernel.group("object") else "")
        + (
            " (librdmacm: the RDMA connection manager's library, which -R / --rdma_cm uses)"
            if (kernel.group("object") or "").startswith("librdmacm")
            else ""
        )
    )
    tool = f"perftest {kernel.group('tool')}"
    for port in reversed(ports):
        run = port.perftest
        if port.tool == tool and run is not None and run.failed and "crashed" in run.failed:
            run.failed += f"; {where}"
            return
    cmd = next((c for c in reversed(pending) if c.tool == kernel.group("tool")), None)
    if cmd is not None:
        pending.remove(cmd)
    run = PerftestRun(
        test=kernel.group("tool"),
        peer=cmd.server if cmd else None,
        failed=f"the process crashed: {where}",
    )
    port = _command_port(cmd, cmd.line if cmd else no, kernel.group("tool"))
    port.perftest = run
    ports.append(port)


def _interleaved_server_row(ports: list[HcaPort], warnings: list[ParseWarning]) -> None:
    """Two runs on one device copied interleaved (a loopback test's server and client writing
    to one terminal): every row went under the later settings block, and the server's one
    report row (the last size again, after the client's closing rule) with them. That repeated
    last row is the run with no row's own."""
    for empty in ports:
        if empty.perftest is None or empty.perftest.rows or empty.perftest.failed:
            continue
        for other in ports:
            run = other.perftest
            if (
                other is empty
                or other.ca != empty.ca
                or run is None
                or len(run.rows) < 2
                or run.rows[-1] != run.rows[-2]
            ):
                continue
            row = run.rows.pop()
            empty.perftest.rows.append(row)
            for key in ("bw_average_gbps", "latency_avg_us", "latency_typical_us"):
                setattr(empty.perftest, key, getattr(run, key))
            warnings.append(
                ParseWarning(
                    line=empty.line,
                    message=f"perftest on {empty.ca}: two runs' lines interleaved (a server and "
                    "its client on one terminal); this one's report row is the last size "
                    f"repeated after the other's table ({row['bytes']} B)",
                    skipped=False,
                )
            )
            break


RACE_PERIODS_BEFORE = 2
"""The reports at one size a doubled one must follow to be judged against them."""
RACE_ITERATIONS_RATIO = (1.8, 2.2)
"""The span, around 2, of a report's iterations over the median of the earlier reports at its
size that marks it as two periods counted as one."""


def _doubled_period(run: PerftestRun, line: int) -> str | None:
    """A note, and the row moved to ``run.race_rows``, where the row just read is a
    --run_infinitely report that counted two periods' iterations.

    perftest's --run_infinitely (and -D's periodic report) prints a row every period at one size,
    each with the iterations of that period. Before linux-rdma/perftest 068b205 (2020-04, "Fix
    race condition issue on iteration") the report (print_report_bw, on the alarm) and the
    traffic loop (run_iter_bw_infinitely) shared ``iters`` unlocked, and a period was sometimes
    reported with the last one's iterations added: twice the others', so twice the bandwidth
    (its commit message: 92.70, 92.70, then 189.42 Gb/s "<--- unexpected"). Such a row is no
    figure the link carried; the run's bandwidth stays the last row before it."""
    row = run.rows[-1]
    before = [
        r["iterations"]
        for r in run.rows[:-1]
        if r["bytes"] == row["bytes"] and "bw_average_gbps" in r
    ]
    if len(before) < RACE_PERIODS_BEFORE or "bw_average_gbps" not in row:
        return None
    usual = statistics.median(before)
    low, high = RACE_ITERATIONS_RATIO
    if not usual or not low <= row["iterations"] / usual <= high:
        return None
    run.rows.pop()
    run.race_rows.append({**row, "line": line})
    run.bw_average_gbps = run.rows[-1]["bw_average_gbps"]
    return (
        f"perftest's row at line {line} ({int(row['bytes'])} B, {int(row['iterations'])} "
        f"iterations, {row['bw_average_gbps']} Gb/s) left out: about twice the iterations of the "
        f"{len(before)} periodic report(s) at that size before it (median {usual:g}), perftest's "
        "--run_infinitely counting two periods as one (a race fixed in linux-rdma/perftest "
        f"068b205, 2020), not what the link carried; its bandwidth is taken as {run.bw_average_gbps} "
        "Gb/s"
    )


def _perftest_row(run: PerftestRun, head: str, scale: float, r: re.Match[str]) -> None:
    """One report row into ``run`` (a row cut short of the columns its header names is left)."""
    numbers = [r.group(k) for k in "abcd"]
    size = {"bytes": int(r.group("bytes")), "iterations": int(r.group("iters"))}
    if head == "bw_avg":  # (the average alone: no peak printed)
        avg = round(float(numbers[0]) * scale, 3)
        run.rows.append({**size, "bw_average_gbps": avg})
        run.bw_average_gbps = avg
        run.msg_rate_mpps = float(numbers[1]) if numbers[1] is not None else None
    elif head == "bw":
        if numbers[1] is None:
            return
        avg = round(float(numbers[1]) * scale, 3)
        run.rows.append(
            {**size, "bw_peak_gbps": round(float(numbers[0]) * scale, 3), "bw_average_gbps": avg}
        )
        run.bw_average_gbps = avg
        # (the MsgRate column is in Mpps whatever unit the bandwidth is reported in)
        run.msg_rate_mpps = float(numbers[2]) if numbers[2] is not None else None
    elif head in ("lat", "lat_typical"):
        if numbers[2] is None or (head == "lat" and numbers[3] is None):
            return
        t_min, t_max, t_typical = (float(n) for n in numbers[:3])
        row = {**size, "t_min_us": t_min, "t_max_us": t_max, "t_typical_us": t_typical}
        if head == "lat":
            row["t_avg_us"] = run.latency_avg_us = float(numbers[3])
        run.rows.append(row)
        run.latency_typical_us = t_typical
    else:  # lat_dur: " #bytes #iterations t_avg[usec] tps average"
        row = {**size, "t_avg_us": float(numbers[0])}
        if numbers[1] is not None:
            row["tps"] = float(numbers[1])
        run.rows.append(row)
        run.latency_avg_us = row["t_avg_us"]


# NVIDIA MFT's mlxlink (mlxlink -d <device> [-p <port>]): blocks of "Key : value" lines under
# headings over a dashed rule ("Operational Info" / "----------------" then "State : Active",
# (the field names as mstflint's mlxlink source spells them: "Status Opcode", "Group Opcode",
# "Recommendation", "Link Down Counter", "Link Error Recovery Counter")
# "Physical state : LinkUp", "Speed : 25GbE" (Ethernet; "IB-HDR" on InfiniBand), "Width : 1x",
# "FEC : ..."), "Supported Info", "Troubleshooting Info" ("Status Opcode : 0", "Recommendation :
# No issue was observed") and, with -c / --show_ber, "Physical Counters and BER Info" ("Link Down
# Counter", "Effective Physical BER")
MLXLINK_SIGNATURE = (
    r"^[ \t]*Operational Info[ \t]*\r?\n[ \t]*-{8,}[ \t]*\r?\n[ \t]*State[ \t]*:"
    # a page that turned the dashed rules into Markdown headings ("Operational Info #")
    r"|^[ \t]*Operational Info[ \t]*#*[ \t]*\r?\n[ \t]*State[ \t]*:"
    # --json: the same blocks as JSON objects ("result" / "output" / "Operational Info" : {...})
    r"|\"Operational Info\"[ \t]*:[ \t]*\{"
    r"|^\S*?[#$][ \t]*mlxlink[ \t]+-d[ \t]"
    # a script's excerpt of it ("mlxlink -d $dev | grep -A3 'Operational Info'"): the block's
    # heading over its Physical state, the State line and the dashed rule left out
    r"|^[ \t]*Operational Info[ \t]*\r?\n(?:[ \t]*-{8,}[ \t]*\r?\n)?[ \t]*Physical state[ \t]*:"
)
# a health-check script's heading over each device's outputs ("=== Device: 0000:05:00.0 ===",
# "### NIC mlx5_0 ###"): the device the mlxlink lines under it are of
_SCRIPT_DEVICE_RE = re.compile(
    r"^[ \t]*[=#*-]{2,}[ \t]*(?:Device|NIC|HCA)\b[ \t:]*(?P<dev>[\w/.:-]+)[ \t]*[=#*-]*[ \t]*$"
)
_MLXLINK_CMD_RE = re.compile(r"\bmlxlink\s+(?:.*?\s)?-d\s+(?P<dev>\S+)(?:.*?\s-p\s+(?P<port>\d+))?")
# (the key's words each own the one blank before them, the value taken to the line's end and its
# blanks stripped in code: lazy captures before "\s*$" were quadratic on a long blank run)
_MLXLINK_FIELD_RE = re.compile(r"^\s*(?P<key>[A-Z][\w/()-]*(?: [\w/()-]+)*)\s*:\s*(?P<value>\S.*)$")
# InfiniBand's data rates of a 4x link (IBTA: SDR 10, DDR 20, QDR 40, FDR 56, EDR 100, HDR 200,
# NDR 400, XDR 800 Gb/s), a lane a quarter of it
_IB_4X_GBPS = {
    "SDR": 10.0, "DDR": 20.0, "QDR": 40.0, "FDR10": 40.0, "FDR": 56.0, "EDR": 100.0,
    "HDR": 200.0, "NDR": 400.0, "XDR": 800.0,
}  # fmt: skip
MLXLINK_HEALTHY_OPCODE = "0"
"""mlxlink's Troubleshooting Info "Status Opcode" when it observed no issue."""


def _mlxlink_rate(speed: str, width: str | None) -> tuple[float | None, str | None]:
    """A port's rate in Gb/s and its link layer from mlxlink's Speed ("25GbE", "100G", "IB-HDR")
    and Width ("4x")."""
    if m := re.fullmatch(r"(\d+(?:\.\d+)?)\s*G(?:bE|b/s|E)?", speed):
        return float(m.group(1)), "Ethernet"
    if m := re.fullmatch(r"IB-(\w+)", speed):
        lanes = int(w.group(1)) if width and (w := re.fullmatch(r"(\d+)x", width)) else 4
        per4x = _IB_4X_GBPS.get(m.group(1))
        return (per4x * lanes / 4 if per4x else None), "InfiniBand"
    return None, None


_MLXLINK_JSON_BLOCK_RE = re.compile(r'"(?P<name>[A-Z][\w ]*? Info)"\s*:\s*\{(?P<body>[^{}]*)\}')
_MLXLINK_JSON_PAIR_RE = re.compile(r'"(?P<key>[^"\n]+)"\s*:\s*"(?P<value>[^"\n]*)"')


def _mlxlink_json_blocks(text: str) -> dict[str, dict[str, tuple[int, str]]]:
    """mlxlink --json's blocks of plain "key" : "value" pairs (a block with a nested object,
    Supported Info's masks, is left out), each value with its line; read without a JSON parser
    so that a copy cut after its Operational Info still reads."""
    blocks: dict[str, dict[str, tuple[int, str]]] = {}
    for b in _MLXLINK_JSON_BLOCK_RE.finditer(text):
        start = text.count("\n", 0, b.start("body")) + 1
        pairs = blocks.setdefault(b.group("name"), {})
        for p in _MLXLINK_JSON_PAIR_RE.finditer(b.group("body")):
            line = start + b.group("body").count("\n", 0, p.start())
            pairs.setdefault(p.group("key"), (line, p.group("value")))
    return blocks


def parse_mlxlink(text: str) -> tuple[list[HcaPort], list[ParseWarning]]:
    """mlxlink's ports, one a run (a file may hold several, each under its "mlxlink -d ..."
    command): each one's operational state, speed and width, and what its troubleshooting and
    counters blocks say; raises ParseError where no run has an Operational Info block."""
    numbered = numbered_lines(text)
    starts = [
        i
        for i, (_, line, _) in enumerate(numbered)
        if _MLXLINK_CMD_RE.search(line) or _SCRIPT_DEVICE_RE.match(line)
    ]
    if not starts or starts[0] != 0:
        starts = [0, *starts]
    ports: list[HcaPort] = []
    warnings: list[ParseWarning] = []
    for at, begin in enumerate(starts):
        run = numbered[begin : starts[at + 1] if at + 1 < len(starts) else len(numbered)]
        read = _mlxlink_run(run)
        if read is not None:
            ports.append(read[0])
            warnings += read[1]
    if not ports:
        raise ParseError("mlxlink: no 'Operational Info' block with the port's State")
    return ports, warnings


def _mlxlink_run(
    run: list[tuple[int, str, int | None]],
) -> tuple[HcaPort, list[ParseWarning]] | None:
    """One mlxlink run's port (its lines from its command on), or None without its State."""
    command = next((m for _, line, _ in run if (m := _MLXLINK_CMD_RE.search(line))), None)
    heading = next((m for _, line, _ in run[:1] if (m := _SCRIPT_DEVICE_RE.match(line))), None)
    section = ""
    fields: dict[str, dict[str, tuple[int, str]]] = {}
    for no, line, _ in run:
        s = line.strip()
        if not s or set(s) == {"-"}:
            continue
        if (f := _MLXLINK_FIELD_RE.match(line)) is not None and section:
            value = f.group("value").rstrip()
            fields.setdefault(section, {}).setdefault(f.group("key"), (no, value))
        elif ":" not in s and not s.startswith(("$", "#")) and "mlxlink" not in s:
            # a block's heading ("Operational Info"; a Markdown page's "Operational Info #")
            section = s.rstrip("# ").strip()
    if "Operational Info" not in fields:
        offset = run[0][0] - 1 if run else 0
        for name, pairs in _mlxlink_json_blocks("\n".join(t for _, t, _ in run)).items():
            fields[name] = {k: (no + offset, v) for k, (no, v) in pairs.items()}
    op = fields.get("Operational Info", {})
    # (an excerpt of the block may keep its Physical state alone: the port's logical state is
    # then not in the copy, so it stays unknown, None, and the physical state is what is said)
    if "State" not in op and "Physical state" not in op:
        return None
    state_no, state = op.get("State", op["Physical state"])
    port = HcaPort(
        ca=command.group("dev")
        if command
        else heading.group("dev")
        if heading
        else "the device mlxlink was asked",
        port=int(command.group("port")) if command and command.group("port") else 1,
        line=state_no,
        tool="mlxlink",
        physical_state=op.get("Physical state", (0, None))[1],
    )
    if "State" in op:
        _state(port, state)
    elif port.physical_state not in ("LinkUp", "N/A") and not (
        port.physical_state or ""
    ).startswith("ETH_AN_FSM_"):
        # (a port whose PHY is not up, "Polling", "Disabled", carries nothing whatever its
        # logical state; one at LinkUp may still wait for its subnet manager, so stays unknown.
        # An Ethernet port's "Physical state" is its autonegotiation machine's (mlxlink's
        # _ethANFsmState: 0x0 "ETH_AN_FSM_ENABLE" ... 0x6 "LinkUp"): an Active 100G RoCE port
        # prints ETH_AN_FSM_ENABLE, and so does one whose cable is out (State "Disable"), so it
        # says nothing of the port's state alone: unknown)
        port.active = False
    # flint query's "FW Version:" where a script prints it beside the port (mlxlink's own Module
    # Info names the cable's firmware, not the adapter's)
    port.firmware = next(
        (
            pairs["FW Version"][1]
            for name, pairs in fields.items()
            if name != "Module Info" and "FW Version" in pairs
        ),
        None,
    )
    if "Speed" in op:
        port.rate_gbps, port.link_layer = _mlxlink_rate(
            op["Speed"][1], op.get("Width", (0, None))[1]
        )
    warnings: list[ParseWarning] = []
    trouble = fields.get("Troubleshooting Info", {})
    # what the port runs at where no rate is computed from it (an NVLink port's "NVLink-XDR",
    # "2x"), its FEC, and the troubleshooting block's word on a healthy port
    said = []
    if port.rate_gbps is None and (speed := op.get("Speed", (0, ""))[1]) not in ("", "N/A"):
        width = op.get("Width", (0, ""))[1]
        said.append(f"speed {speed}" + (f", width {width}" if width not in ("", "N/A") else ""))
    if (fec := op.get("FEC", (0, ""))[1]) not in ("", "N/A"):
        said.append(f"FEC {fec}")
    if (opcode := trouble.get("Status Opcode")) and opcode[1] == MLXLINK_HEALTHY_OPCODE:
        if rec := trouble.get("Recommendation", (0, ""))[1]:
            said.append(f"status opcode 0, its recommendation: {rec}")
    if said:
        warnings.append(
            ParseWarning(line=state_no, message=f"{port.ca} " + "; ".join(said), skipped=False)
        )
    if opcode and opcode[1] not in (MLXLINK_HEALTHY_OPCODE, "N/A"):
        why = trouble.get("Recommendation", (opcode[0], ""))[1]
        port.trouble_line = opcode[0]
        port.trouble = (
            f"status opcode {opcode[1]}"
            + (f" (group opcode {g[1]})" if (g := trouble.get("Group Opcode")) else "")
            + (f"; its recommendation: {why}" if why else "")
        )
        warnings.append(
            ParseWarning(line=opcode[0], message=f"{port.ca} {port.trouble}", skipped=False)
        )
    counters = fields.get("Physical Counters and BER Info", {})
    for key in ("Link Down Counter", "Link Error Recovery Counter"):
        if key in counters and counters[key][1] not in ("0", "N/A"):
            warnings.append(
                ParseWarning(
                    line=counters[key][0],
                    message=f"{port.ca} {key} {counters[key][1]} (the link went down "
                    "or retrained since the counters were cleared)",
                    skipped=False,
                )
            )
    return port, warnings


# Mellanox OFED's show_gids script: a table of every RDMA port's GIDs read from sysfs ("DEV PORT
# INDEX GID IPv4 VER DEV", tab-separated: mlx5_0, 1, 3, 0000:...:ffff:0a1f:0402, 10.31.4.2, v2,
# its netdev), then "n_gids_found=N"; VER v1 is RoCEv1 (Ethernet only), v2 RoCEv2 (routed over
# UDP/IP, the one NCCL prefers: NCCL_IB_ROCE_VERSION_NUM defaults to 2)
SHOW_GIDS_SIGNATURE = r"^DEV\s+PORT\s+INDEX\s+GID\s+IPv4\s+VER\s+DEV\s*$|^n_gids_found=\d+\s*$"
# (each optional field owns the blanks before it: one run of blanks split three ways was cubic)
# (a GID whose groups the copy's author masked, "fe80:0000:0000:0000:xxxx:xxxx:xxxx:xxxx", is
# still a row of the port's table: counted, its address unknown, ``Gid.masked``)
_GID_ROW_RE = re.compile(
    r"^(?P<dev>[\w.-]+)\s+(?P<port>\d+)\s+(?P<index>\d+)\s+(?P<gid>[0-9a-fA-FxX]{4}(?::[0-9a-fA-FxX]{4}){7})"
    r"(?:\s+(?P<ipv4>\d{1,3}(?:\.\d{1,3}){3}))?(?:\s+(?P<ver>[vV][12]|IB/RoCE v1|RoCE v2))?"
    r"(?:\s+(?P<netdev>\S+))?\s*$"
)
_GIDS_FOUND_RE = re.compile(r"^n_gids_found=(?P<n>\d+)\s*$")


@dataclass(kw_only=True)
class Gid:
    line: int
    ca: str
    port: int
    index: int
    gid: str
    ipv4: str | None
    version: str | None
    """``v1`` or ``v2`` (the kernel's gid_attrs type: an InfiniBand port's reads "IB/RoCE v1",
    so v1 there too); None where the row shows none."""
    netdev: str | None
    output: int = 1
    """Which of the file's show_gids outputs it is in (its header printed again starts the
    next: another host's or container's, whose device names may be the same)."""
    masked: bool = False
    """The copy's author masked the GID's groups with ``x`` (its address is not known)."""


_GIDS_HEADER_RE = re.compile(r"^DEV\s+PORT\s+INDEX\s+GID\s+IPv4\s+VER\s+DEV\s*$")


def parse_show_gids(text: str) -> tuple[list[Gid], int | None, int]:
    """show_gids' rows, the count its last line gives (None where the copy ends before it) and
    that line's number; raises ParseError when neither a row nor the count is there."""
    gids: list[Gid] = []
    found: int | None = None
    found_line = 0
    output = 1
    for no, line, _ in numbered_lines(text):
        if gids and gids[-1].output == output and _GIDS_HEADER_RE.match(line.strip()):
            output += 1
            continue
        if m := _GID_ROW_RE.match(line.strip()):
            ver = m.group("ver")
            gids.append(
                Gid(
                    line=no,
                    ca=m.group("dev"),
                    port=int(m.group("port")),
                    index=int(m.group("index")),
                    gid=m.group("gid"),
                    ipv4=m.group("ipv4"),
                    version=("v2" if "2" in ver else "v1") if ver else None,
                    netdev=m.group("netdev"),
                    output=output,
                    masked="x" in m.group("gid").lower(),
                )
            )
        elif m := _GIDS_FOUND_RE.match(line.strip()):
            found, found_line = int(m.group("n")), no
    if not gids and found is None:
        raise ParseError("show_gids: no GID row and no n_gids_found line")
    return gids, found, found_line


# show_gids' table whose line breaks a copy lost (a page that kept its spacing, each tab's run of
# blanks, and nothing between the lines): the header "DEV PORT INDEX GID IPv4 VER DEV" with its
# dashes and rows after it on one line, each row's netdev run into the next row's device name
# ("... v1      enp4s0f1mlx5_1  1       1       fe80:...") and the last into "n_gids_found=N"
# (each blank run before a literal word or a digit: no two runs over the same characters)
_FLAT_GIDS_HEAD_RE = re.compile(r"DEV[ \t]+PORT[ \t]+INDEX[ \t]+GID[ \t]+IPv4[ \t]+VER[ \t]+DEV")
# a row's port, index and GID, each after a blank ("  1       0       fe80:0000:...")
_FLAT_GID_ROW_RE = re.compile(
    r"(?<=[ \t])\d{1,3}[ \t]+\d{1,5}[ \t]+[0-9a-fA-FxX]{4}(?::[0-9a-fA-FxX]{4}){7}(?![0-9a-fA-FxX:])"
)
_GIDS_DEVICE_RE = re.compile(r"[\w.-]+")
"""A show_gids row's device name (_GID_ROW_RE's ``dev``)."""


def _glued_device(word: str, first: str, seen: set[str]) -> int | None:
    """Where the device name starts in ``word``, a row's netdev run into the next row's device
    (``enp4s0f1mlx5_1``): at the last place the first row's device name (``first``) without its
    closing number starts again, or its letters before a digit, or a device seen already ends
    it; None where none of these finds it."""
    stem = first.rstrip("0123456789")
    if word in seen or (stem and word.startswith(stem) and word[len(stem) :].isdigit()):
        return 0
    if stem and (at := word.rfind(stem)) > 0 and word[at + len(stem) :].isdigit():
        return at
    letters = re.match(r"[A-Za-z]+", first)
    if letters and (at := word.rfind(letters.group(0))) > 0:
        rest = word[at + len(letters.group(0)) :]
        if rest[:1].isdigit() and _GIDS_DEVICE_RE.fullmatch(rest):
            return at
    return next((len(word) - len(d) for d in seen if word.endswith(d)), None)


def flat_show_gids(line: str) -> list[str] | None:
    """``line`` split back into show_gids' lines (its header, its dashes, a line a GID, its
    n_gids_found) where it holds the whole table run together; None where it holds no header
    followed by a GID row, or a row's device name cannot be told from the netdev before it."""
    head = _FLAT_GIDS_HEAD_RE.search(line)
    if head is None:
        return None
    rows = list(_FLAT_GID_ROW_RE.finditer(line, head.end()))
    if not rows:
        return None
    cuts = [head.start()] if line[: head.start()].strip() else []
    cuts.append(head.end())
    end = head.end()
    first: str | None = None
    seen: set[str] = set()
    for row in rows:
        before = line[end : row.start()].rstrip(" \t")
        word = before.split()[-1] if before.split() else ""
        word_start = end + len(before) - len(word)
        if first is None:
            # (the dashes under the header run into the first row's device name)
            at: int | None = len(word) - len(word.lstrip("-"))
            first = word.lstrip("-")
        else:
            at = _glued_device(word, first, seen)
        if at is None or not _GIDS_DEVICE_RE.fullmatch(word[at:]):
            return None
        cuts.append(word_start + at)
        seen.add(word[at:])
        end = row.end()
    if (found := line.rfind("n_gids_found=", end)) >= 0:
        cuts.append(found)
    cut = sorted(set(c for c in cuts if 0 < c < len(line)))
    parts = [line[a:b].rstrip() for a, b in zip([0, *cut], [*cut, len(line)], strict=True)]
    return [p for p in parts if p.strip()]


# MLNX_OFED's mlnx_qos (mlnx_qos -i <interface>): "DCBX mode: OS controlled", "Priority trust
# state: dscp" (or pcp), the dscp2prio map, "PFC configuration:" over "priority 0 1 2 3 4 5 6 7"
# and "enabled 1 0 1 0 0 0 1 1", then each traffic class "tc: 0 ratelimit: unlimited, tsa: ets,
# bw: 10%" over its "priority: N" lines (NVIDIA's mlnx_qos documentation)
MLNX_QOS_SIGNATURE = (
    r"mlnx_qos[^\n]*\n(?:[^\n]*\n){0,6}?[ \t]*(?:DCBX mode|Priority trust state):"
    r"|^[ \t]*Priority trust state:[ \t]*(?:dscp|pcp)[ \t]*$"
)
_QOS_IFACE_RE = re.compile(r"\bmlnx_qos\b.*?\s-i\s*(?P<iface>[\w.:-]+)")
_QOS_TRUST_RE = re.compile(r"^\s*Priority trust state:\s*(?P<trust>\w+)")
_QOS_PFC_PRIO_RE = re.compile(r"^\s*priority((?:\s+\d){8})\s*$")
_QOS_PFC_ON_RE = re.compile(r"^\s*enabled((?:\s+[01]){8})\s*$")
_QOS_TC_RE = re.compile(
    r"^\s*tc:\s*(?P<tc>\d+)\s+ratelimit:\s*(?P<rate>[^,]+),\s*tsa:\s*(?P<tsa>\w+)"
    r"(?:,\s*bw:\s*(?P<bw>\d+)%)?"
)


def parse_mlnx_qos(text: str) -> list[ParseWarning]:
    """A note of each ``mlnx_qos`` answer (one per ``mlnx_qos -i IFACE`` command in the copy):
    the interface, its trust state, the priorities PFC is on for, and each traffic class's
    scheduling (settings, not judged); ParseError without any."""
    lines = text.splitlines()
    starts = [i for i, line in enumerate(lines) if _QOS_IFACE_RE.search(line)]
    if len(starts) < 2:
        return _mlnx_qos_block(text, 0)
    notes: list[ParseWarning] = []
    for n, start in enumerate(starts):
        end = starts[n + 1] if n + 1 < len(starts) else len(lines)
        try:
            notes += _mlnx_qos_block("\n".join(lines[start:end]), start)
        except ParseError:
            continue  # (a command whose answer is not in the copy)
    if not notes:
        raise ParseError("mlnx_qos: no trust state and no PFC configuration")
    return notes


def _mlnx_qos_block(text: str, offset: int) -> list[ParseWarning]:
    iface = trust = ""
    pfc: list[int] | None = None
    prios: list[int] = []
    classes: list[str] = []
    first = 0
    for no, line, _ in numbered_lines(text):
        if (i := _QOS_IFACE_RE.search(line)) and not iface:
            iface, first = i.group("iface"), first or no
        elif t := _QOS_TRUST_RE.match(line):
            trust, first = t.group("trust"), first or no
        elif p := _QOS_PFC_PRIO_RE.match(line):
            prios = [int(x) for x in p.group(1).split()]
        elif (e := _QOS_PFC_ON_RE.match(line)) and prios:
            flags = [int(x) for x in e.group(1).split()]
            pfc = [prio for prio, on in zip(prios, flags, strict=True) if on]
        elif c := _QOS_TC_RE.match(line):
            classes.append(
                f"tc{c.group('tc')} {c.group('tsa')}"
                + (f" {c.group('bw')}%" if c.group("bw") else "")
            )
    if pfc is None and not trust:
        raise ParseError("mlnx_qos: no trust state and no PFC configuration")
    said = [f"trust {trust}" if trust else ""]
    if pfc is not None:
        said.append(
            "PFC on priorities " + ", ".join(str(x) for x in pfc) if pfc else "PFC on no priority"
        )
    if classes:
        said.append("traffic classes " + ", ".join(classes))
    return [
        ParseWarning(
            line=(first or 1) + offset,
            message=f"mlnx_qos{f' {iface}' if iface else ''}: "
            + "; ".join(x for x in said if x)
            + " (a NIC's QoS settings: RoCE's lossless traffic needs PFC on the priority its "
            "traffic is mapped to, as the switch has it; not judged here)",
            skipped=False,
        )
    ]


# mlxconfig (NVIDIA's MFT) query: "Device #1:", "Device type:    ConnectX3", "Device:
# /dev/mst/mt4099_pciconf0", then "Configurations:  Next Boot" (or "Default  Current  Next Boot")
# over one "   NAME    VALUE" line a setting: the NIC's firmware settings, read as settings.
# Newer MFT releases print the card's "Name:" and "Description:" between the type and the device
# (mstflint's mlxconfig/mlxcfg_ui.cpp, queryDevsCfg: "Device type:", "Name:", "Description:",
# "Device:"): up to three such lines may stand between them.
# flint (MFT's burning tool) query: "Image type:   FS3" over "FW Version:   12.28.2006", then
# "FW Release Date:", "Rom Info:", the GUIDs and MACs and "PSID:   LNV2180110032" (mstflint's
# flint/subcommands.cpp, QuerySubCommand): the firmware the card runs, read with its settings
MLXCONFIG_SIGNATURE = (
    r"^[ \t]*Device type:[ \t]*\S+[ \t]*\n(?:[ \t]*(?:Name|Description|PCI device):[^\n]*\n){0,3}"
    r"[ \t]*Device:[ \t]*\S+"
    r"|^[ \t]*Image type:[ \t]*\S+[ \t]*\n[ \t]*FW Version:[ \t]*\d"
    # a query cut to its settings rows by a grep ("mlxconfig -d 4b:00.0 q | grep -i roce"; the
    # mstflint package names the same tool mstconfig): the command over its first row
    # (read from the line's start, its first tool name and then its last " q" each taken once, in
    # atomic groups: "mlxconfig" tried at each later name and each later " q", each try reading
    # to the line's end, took minutes on one 400 KB line of 4,000 JSON'd query commands)
    r"|^(?>[^\n]*?\b(?:mlxconfig|mstconfig)\b)(?>[^\n]*[ \t](?:q|query)\b)[^\n]*\n"
    # (under pdsh each row is led by its node's "node1: ", dshbak(1))
    r"(?:[\w.-]+: )?\*?[ \t]+[A-Z][A-Z0-9_]+[ \t]{2,}\S"
    # a command of the tool that answered with its "-E-" error line, on one of the next two lines
    # (a caller's log, the SR-IOV operator's "RunCommand(): mstconfig, [-e -d 0000:18:00.0 q]"
    # over "RunCommand(): -E- Failed to open the device"); each line start reads three lines at
    # most
    r"|^(?>[^\n]*?\b(?:mlxconfig|mstconfig)\b)[^\n]*\n(?:[^\n]*\n)?[^\n]*?(?<!\S)-E-[ \t]+\S"
    # a query -e's rows cut below its "Device #1:" and "Configurations:  Default  Current  Next
    # Boot" header: three rows running, each a name and its three values (NVIDIA MFT
    # documentation, "Examples of mlxconfig Usage"); the name split at its first underscore, so
    # each row is read one way only; the third a flag's, "False(0)" or "True(1)" as mlxconfig
    # prints a boolean (the words a fast scan looks for before this search runs)
    r"|^(?:\*?[ \t]+[A-Z][A-Z0-9]*_[A-Za-z0-9_]*[ \t]{2,}\S+[ \t]+\S+[ \t]+\S+[ \t]*\n){2}"
    r"\*?[ \t]+[A-Z][A-Z0-9]*_[A-Za-z0-9_]*[ \t]{2,}(?:False\(0\)|True\(1\))[ \t]+\S+[ \t]+\S+[ \t]*$"
)
_FLINT_IMAGE_RE = re.compile(r"^\s*Image type:\s*(?P<image>\S+)\s*$")
_FLINT_FIELD_RE = re.compile(
    r"^\s*(?P<key>FW Version|FW Release Date|PSID|Product Version):[ \t]*(?P<value>\S+)\s*$"
)
_MLXCONFIG_DEVICE_RE = re.compile(r"^\s*Device type:\s*(?P<type>\S+)\s*$")
_MLXCONFIG_PATH_RE = re.compile(r"^\s*Device:\s*(?P<path>\S+)\s*$")
# (a query with -e/--enable_verbosity marks a setting changed from its default with a "*" at the
# line's start: NVIDIA MFT documentation, "Examples of mlxconfig Usage")
# (a name's parts after an underscore may hold lower case: MFT's "EXP_ROM_UEFI_x86_ENABLE"; the
# parts split at each underscore, so a name is read one way only)
_MLXCONFIG_SETTING_RE = re.compile(
    r"^(?:\*[ \t]*|\s+)(?P<name>[A-Z][A-Z0-9]*(?:_[A-Za-z0-9]*)+|[A-Z][A-Z0-9]+)"
    r"\s+(?P<value>\S+)(?P<more>(?:\s+\S+)*)\s*$"
)
# the query command a grep'd copy keeps above its rows (mlxconfig or mstflint's mstconfig, "-d
# DEVICE" and "q"/"query" in either order)
# (from the line's start, its first tool name taken once, in an atomic group: a name tried at
# each later name, each try reading to the line's end for a " q", took 73 s on 200 KB of names)
_MLXCONFIG_QUERY_COMMAND_RE = re.compile(
    r"^(?>[^\n]*?\b(?:mlxconfig|mstconfig)\b)(?=[^\n]*[ \t](?:q|query)\b)"
    r"(?:[^\n]*?[ \t]-d[ \t]+(?P<device>\S+))?"
)
# each tool name of a command line, one query a name ("mlxconfig -d 4b:00.0 q | grep ROCE;
# mlxconfig -d 4b:00.1 q | grep ROCE"): the text up to the next name is that query's
_MLXCONFIG_TOOL_RE = re.compile(r"\b(?:mlxconfig|mstconfig)\b")
_QUERY_WORD_RE = re.compile(r"[ \t](?:q|query)\b")
_DEVICE_OPTION_RE = re.compile(r"[ \t]-d[ \t]+(?P<device>[^\s'\";|&]+)")
# pdsh's "node1: " before a grep'd query's row (dshbak(1): "the leading node: is stripped"), the
# row's own indent after it
_PDSH_ROW_HOST_RE = re.compile(r"^(?P<host>[A-Za-z0-9][\w.-]*): (?=[ \t*])")
# mlxconfig -e query ("--enable_verbosity"): "Configurations:  Default  Current  Next Boot", the
# Current column the values the firmware runs now (NVIDIA MFT documentation, "Examples of
# mlxconfig Usage")
_MLXCONFIG_COLUMNS_RE = re.compile(r"\bDefault\s+Current\s+Next Boot\b")
# mlxconfig's own description of ROCE_CONTROL ("mlxconfig -d DEVICE i", HCA CONF: "Control
# support for RDMA over Converged Ethernet (RoCE) 0x0: DEVICE_DEFAULT 0x1: ROCE_DISABLE 0x2:
# ROCE_ENABLE"), printed "ROCE_DISABLE(1)", or its number alone
_ROCE_DISABLED_RE = re.compile(r"ROCE_DISABLE\b|1$")
# mlxconfig set (NVIDIA MFT documentation, mlxconfig: "Configurations:  Next Boot  New" over a row
# a setting, its value at the next boot and the one asked for; "Apply new Configuration? (y/n)
# [n] : y", "Applying... Done!", "-I- Please reboot machine to load new configurations."): the
# new values are written to the card's non-volatile configuration and load at its next boot
_MLXCONFIG_SET_HEADER_RE = re.compile(r"^\s*Configurations:.*\bNext Boot\s+New\s*$")
_MLXCONFIG_QUERY_HEADER_RE = re.compile(r"^\s*Configurations:")
# mlxfwreset (NVIDIA MFT documentation, mlxfwreset): "The reset level for device, c2:00.0 is:"
# names the device, as other versions' "Requested reset level for device, 3d:00.0:" (a level
# given with -l) and "Minimal reset level for device, 04:00.0:" (none given) do: mstflint's
# mstfwreset prints both ("Requested reset level for device, %s:\n" % device, "Minimal reset
# level for device, %s:\n"); "-I- FW was loaded successfully." ends a reset that loaded the
# firmware and with it the configuration mlxconfig set for the next boot
_MLXFWRESET_DEVICE_RE = re.compile(
    r"^\s*(?:The|Requested|Minimal) reset level for device,\s*(?P<path>\S+?)(?:\s+is)?:\s*$"
)
# its command line, where the copy keeps it: "mlxfwreset -d 3d:00.0 reset -y -l3" (its -d, or
# --device, names the device where the level line is cut or reworded)
_MLXFWRESET_COMMAND_RE = re.compile(
    r"\b(?:mlx|mst)fwreset\b[^\n]*?\s(?:-d|--device)[ \t=]*(?P<path>[^\s-]\S*)"
)
_MLXFWRESET_DONE_RE = re.compile(r"^\s*-I-\s*FW was loaded successfully")
_MLXCONFIG_APPLIED_RE = re.compile(r"^\s*Applying\.\.\.\s*Done!?\s*$")
_MLXCONFIG_REBOOT_RE = re.compile(
    r"^\s*-I-\s*Please reboot (?:the )?machine to load new configurations"
)
MLXCONFIG_SHOWN = (
    "LINK_TYPE_P1", "LINK_TYPE_P2", "SRIOV_EN", "NUM_OF_VFS", "ATS_ENABLED",
    "ADVANCED_PCI_SETTINGS", "PCI_WR_ORDERING", "ROCE_CC_PRIO_MASK_P1",
)  # fmt: skip
"""The settings a note names first (the link type, SR-IOV, ATS for GPUDirect ...)."""


# the MFT tools' error line (mstflint's mlxconfig/mlxcfg_ui.cpp main(): printf("-E- %s\n",
# e.what()), then exit MLX_CFG_ERROR, 3: mlxconfig/mlxcfg_status.h), after whatever a caller's log
# put before it; its text read to the line's last non-blank (greedy: linear on a long line)
_MFT_ERROR_RE = re.compile(r"(?<!\S)-E-[ \t]+(?P<what>[^\n]*\S)")
# the exit status a Go caller logged for the command (os/exec's ExitError, os.ProcessState's
# String(): "exit status 3")
_EXIT_STATUS_RE = re.compile(r"\bexit status (?P<status>\d+)\b")
MFT_ERROR_WITHIN_LINES = 2
"""Lines after an mlxconfig / mstconfig command its "-E-" error line is read as that command's
within (a caller's log may print the command twice, its own words and its runner's, over it)."""
# mlxconfig's words where it could not open the device at all (mstflint
# mlxconfig/mlxcfg_commander.cpp Commander::create: "Failed to open the device" where mopen_adv
# opens nothing at the -d address, "Failed to get device type" where the device does not answer)
_MFT_UNOPENED_RE = re.compile(
    r"Failed to open (?:the )?device|Failed to get device type|Cannot open", re.IGNORECASE
)


@dataclass(kw_only=True)
class MlxconfigError:
    """An mlxconfig (or mstflint's mstconfig) command that answered with its "-E-" error."""

    line: int
    """The error line's."""
    tool: str
    """``mlxconfig`` or ``mstconfig``, as the command names it."""
    device: str
    """The command's ``-d`` device ("" where the copy does not name it)."""
    what: str
    """The error's own words, after ``-E-``."""
    exit_status: int | None = None
    """The exit status a caller logged for the command (``exit status 3``), where it did."""
    unopened: bool = False
    """The tool could not open the device at all (``_MFT_UNOPENED_RE``): the card is not reached
    at that address (gone from the bus, another driver holding it, no access to its
    configuration space), so nothing on it can be queried or configured."""


def mlxconfig_errors(text: str) -> list[MlxconfigError]:
    """Each mlxconfig / mstconfig command of ``text`` answered by an ``-E-`` error line within
    ``MFT_ERROR_WITHIN_LINES`` lines, with the exit status a caller logged after it."""
    errors: list[MlxconfigError] = []
    command: tuple[int, str, str] | None = None  # the last command's line, tool and -d device
    for no, line, _ in numbered_lines(text):
        last = errors[-1] if errors else None
        if last is not None and last.exit_status is None and no - last.line <= 1:
            if x := _EXIT_STATUS_RE.search(line):
                last.exit_status = int(x.group("status"))
        e = _MFT_ERROR_RE.search(line) if "-E-" in line else None
        t = _MLXCONFIG_TOOL_RE.search(line) if "config" in line else None
        if t is not None and (e is None or t.start() < e.start()):
            d = _DEVICE_OPTION_RE.search(line, t.end())
            command = (no, t.group(0), d.group("device").strip("]") if d else "")
            if e is None:
                continue
        if e is None or command is None or no - command[0] > MFT_ERROR_WITHIN_LINES:
            continue
        what = e.group("what")
        status = _EXIT_STATUS_RE.search(what)
        if status is not None:
            what = what[: status.start()]
        # (a Markdown copy's emphasis or code marks after the words: "**_", "`")
        what = what.rstrip(" ,;*_`")
        errors.append(
            MlxconfigError(
                line=no,
                tool=command[1],
                device=command[2],
                what=what,
                exit_status=int(status.group("status")) if status else None,
                unopened=_MFT_UNOPENED_RE.search(what) is not None,
            )
        )
        command = None
    return errors


@dataclass(kw_only=True)
class MlxconfigBlock:
    line: int
    kind: str | None
    """The device type; None where the copy starts inside the block, below it."""
    path: str = ""
    host: str = ""
    """The node pdsh named before a grep'd query's rows ("" where none)."""
    settings: dict[str, str] = field(default_factory=dict)
    """Each setting's value (a query's, or a set's at the next boot)."""
    new: dict[str, str] = field(default_factory=dict)
    """A set's values asked for (its "New" column)."""
    set_form: bool = False
    headed: bool = False
    """Whether its "Configurations:" line is in the copy."""
    applied_line: int | None = None
    """The "Applying... Done!" of a set."""
    reboot_line: int | None = None
    """The set's "-I- Please reboot machine to load new configurations."."""
    reset_line: int | None = None
    """A later mlxfwreset's "-I- FW was loaded successfully." for the device of an applied set:
    the set's values run since."""
    verbose: bool = False
    """A query -e's block ("Default  Current  Next Boot"): ``settings`` holds the Current
    column, what the card runs."""
    setting_lines: dict[str, int] = field(default_factory=dict)
    """Each setting's line."""
    defaults: dict[str, str] = field(default_factory=dict)
    """A query -e's Default column, each setting's firmware default."""
    next_boot: dict[str, str] = field(default_factory=dict)
    """A query -e's Next Boot column."""

    def no_vfs(self) -> bool:
        """A query whose NUM_OF_VFS is 0 now, set away from a default that had VFs, where the
        block does not show SR-IOV turned off (SRIOV_EN False): the firmware's NUM_OF_VFS is the
        most VFs the card can expose (MFT documentation, "Before setting the number of VFs in
        SR-IOV ..."; OpenShift's SR-IOV operator docs: "The number of virtual functions in the
        firmware will be the maximum number of virtual functions that you can request"), so
        none can be made on it. SR-IOV off with it is a card meant to run without VFs."""
        return (
            not self.set_form
            and self.settings.get("NUM_OF_VFS") == "0"
            and self.defaults.get("NUM_OF_VFS", "0") != "0"
            and not self.settings.get("SRIOV_EN", "").startswith(("False", "0"))
        )

    def roce_disabled(self) -> bool:
        """A query's ROCE_CONTROL reads ROCE_DISABLE: the card's firmware turns RoCE off
        (``_ROCE_DISABLED_RE``). A set's rows are what it changes, judged as a change."""
        return not self.set_form and bool(
            _ROCE_DISABLED_RE.match(self.settings.get("ROCE_CONTROL", ""))
        )

    def changed(self) -> list[str]:
        """A set's settings whose new value is not their next boot's, "NAME old → new"."""
        return [
            f"{n} {self.settings.get(n, '?')} → {v}"
            for n, v in self.new.items()
            if self.settings.get(n) != v
        ]

    def running_in(self, later: MlxconfigBlock) -> bool:
        """Whether ``later``, a query printed after this set, shows every value this set asked
        for in its Current column (the same device, or one whose path either copy leaves out)."""
        wanted = {n: v for n, v in self.new.items() if self.settings.get(n) != v} or self.new
        return (
            bool(wanted)
            and (not self.path or not later.path or _pci_key(self.path) == _pci_key(later.path))
            and later.verbose
            and not later.set_form
            and all(later.settings.get(n) == v for n, v in wanted.items())
        )

    def where(self) -> str:
        if self.kind is None:
            # (a grep'd query keeps its command's -d, not the device's type)
            on = f"{self.host}: " if self.host else ""
            return on + (
                f"{self.path} (its type not in the copy)"
                if self.path
                else "a device named above the copy"
            )
        return f"{self.kind} ({self.path or 'its device not in the copy'})"


def _pci_key(path: str) -> str:
    """A device's PCI address without its domain, as mlxconfig and mlxfwreset print it both ways
    ("0000:04:00.0" asked for, "04:00.0" in mlxfwreset's level line); other names as they are."""
    return path[5:] if path.startswith("0000:") else path


def _query_devices(line: str) -> list[str]:
    """The ``-d`` device of each query on a command line, in order ("" where one names none)."""
    starts = [m.start() for m in _MLXCONFIG_TOOL_RE.finditer(line)] + [len(line)]
    devices = []
    for start, end in itertools.pairwise(starts):
        part = line[start:end]
        if _QUERY_WORD_RE.search(part):
            d = _DEVICE_OPTION_RE.search(part)
            devices.append(d.group("device") if d else "")
    return devices


def parse_mlxconfig_blocks(text: str) -> list[MlxconfigBlock]:
    """The ``mlxconfig query`` and ``set`` blocks of ``text``, a block a device in the order
    printed, and the set rows a copy starts in (no device above them)."""
    blocks: list[MlxconfigBlock] = []
    block: MlxconfigBlock | None = None  # the block the lines now read belong to
    reset_path = ""  # the device the mlxfwreset now read resets ("" where not named)
    query: tuple[int, str] | None = None  # a query command no block has followed yet: line, -d
    # the devices a grep'd command line queries, in order, and the blocks each node's rows under
    # it have opened so far: mlxconfig prints a setting once a device, so a name seen again in
    # the open grep'd block is the next device's row (or, under pdsh, another node's)
    grep_devices: list[str] = []
    grep_opened: dict[str, int] = {}
    # each node's block now open under a grep'd query: pdsh prints the nodes' rows in the order
    # they arrive, not node by node (its -S / dshbak sort them), so a node's row after another
    # node's continues its own device unless that setting repeats in it
    grep_open: dict[str, MlxconfigBlock] = {}
    for no, line, _ in numbered_lines(text):
        if r := _MLXFWRESET_DEVICE_RE.match(line):
            reset_path = r.group("path")
            continue
        if "fwreset" in line and (r := _MLXFWRESET_COMMAND_RE.search(line)):
            reset_path = r.group("path")
            continue
        if _MLXFWRESET_DONE_RE.match(line):
            waiting = [b for b in blocks if b.applied_line is not None and b.reset_line is None]
            # a reset whose device the copy does not name loads the set only where one device
            # waits: a reset loads the firmware of the card it names alone (mlxfwreset -d)
            named = {_pci_key(b.path) for b in waiting if b.path}
            for b in waiting:
                if (
                    _pci_key(b.path) == _pci_key(reset_path)
                    if reset_path and b.path
                    else len(named) <= 1
                ):
                    b.reset_line = no
            reset_path = ""
            continue
        if d := _MLXCONFIG_DEVICE_RE.match(line):
            block = MlxconfigBlock(line=no, kind=d.group("type"))
            blocks.append(block)
            query, grep_devices, grep_open = None, [], {}
            continue
        if "config" in line and (c := _MLXCONFIG_QUERY_COMMAND_RE.search(line)):
            query = (no, c.group("device") or "")
            grep_devices, grep_opened, grep_open = _query_devices(line) or [query[1]], {}, {}
            continue
        if _FLINT_IMAGE_RE.match(line):
            block = None  # flint's query ends a device's settings
            continue
        # (a node's "node1: " is read off a row only under a grep'd query's command)
        h = _PDSH_ROW_HOST_RE.match(line) if grep_devices else None
        row, host = (line[h.end() :], h.group("host")) if h else (line, "")
        if block is not None and block.kind is not None and (p := _MLXCONFIG_PATH_RE.match(line)):
            block.path = p.group("path")
        elif block is not None and _MLXCONFIG_QUERY_HEADER_RE.match(line):
            block.headed = True
            block.set_form = bool(_MLXCONFIG_SET_HEADER_RE.match(line))
            block.verbose = bool(_MLXCONFIG_COLUMNS_RE.search(line))
        elif st := _MLXCONFIG_SETTING_RE.match(row):
            more = st.group("more").split()
            if (
                grep_devices
                and query is None
                and block is not None
                and host != block.host
                and (own := grep_open.get(host)) is not None
                and st.group("name") not in own.settings
            ):
                block = own  # (this node's device again, after another node's rows)
            grep_next = (
                grep_devices
                and query is None
                and block is not None
                and block.kind is None
                and not block.set_form
                and (host != block.host or st.group("name") in block.settings)
            )
            if query is not None or grep_next:
                # a query's rows a grep kept under its command, with no device block between
                # (query -e's rows carry three values: default, current, next boot); the next
                # device's (or node's) rows open a block of their own
                opened = grep_opened.get(host, 0)
                grep_opened[host] = opened + 1
                path = grep_devices[opened] if opened < len(grep_devices) else ""
                block = MlxconfigBlock(
                    line=no, kind=None, path=path, host=host, verbose=len(more) == 2
                )
                blocks.append(block)
                grep_open[host] = block
                query = None
            elif block is None and not blocks and len(more) == 2:
                # a query -e's rows a copy starts in, cut below its device and its "Default
                # Current  Next Boot" header (three values a row; a set prints two)
                block = MlxconfigBlock(line=no, kind=None, verbose=True)
                blocks.append(block)
            elif not blocks and len(more) == 1:
                # a set's row a copy starts in (a query prints one value, or three with -e):
                # its device and header are above the copy
                block = MlxconfigBlock(line=no, kind=None, set_form=True, headed=False)
                blocks.append(block)
            if block is None or block.applied_line is not None:
                continue
            block.settings[st.group("name")] = (
                more[0] if block.verbose and len(more) == 2 else st.group("value")
            )
            block.setting_lines[st.group("name")] = no
            if block.verbose and len(more) == 2:
                block.defaults[st.group("name")] = st.group("value")
                block.next_boot[st.group("name")] = more[1]
            if block.set_form and more:
                block.new[st.group("name")] = more[-1]
        elif block is not None and _MLXCONFIG_APPLIED_RE.match(line):
            block.applied_line = no
        elif block is not None and _MLXCONFIG_REBOOT_RE.match(line):
            block.reboot_line = no
    return blocks


def parse_mlxconfig(text: str) -> list[ParseWarning]:
    """A note per device of ``mlxconfig query`` (its type and settings) or ``set`` (the values
    it changed, and whether they were applied), and one per ``flint query``: its firmware
    version and PSID; ParseError when neither is there. A block the copy ends in before its
    settings is said to be cut, not read as a device with none."""
    notes: list[ParseWarning] = []
    blocks = parse_mlxconfig_blocks(text)
    for i, b in enumerate(blocks):
        # a later ``-e query`` whose Current column holds the new values: loaded since (as
        # evidence.load's _mlxconfig judges it, so the two notes agree)
        current_at = next((q.line for q in blocks[i + 1 :] if b.running_in(q)), None)
        if not b.settings and not b.headed:
            notes.append(
                ParseWarning(
                    line=b.line,
                    message=f"the copy ends in a block of {b.kind}, before its device and "
                    "settings: no device is read from it",
                    skipped=False,
                )
            )
        elif b.set_form or b.new:
            changed = b.changed()
            notes.append(
                ParseWarning(
                    line=b.line,
                    message=f"mlxconfig set: {b.where()}, "
                    + (f"{', '.join(changed)}" if changed else "no value changed")
                    + f" ({len(b.new)} setting(s) shown); "
                    + (
                        f"applied, loaded by the firmware reset at line {b.reset_line}"
                        if b.reset_line is not None
                        else f"applied, running since: the query at line {current_at} shows them current"
                        if current_at is not None and b.applied_line is not None
                        else "applied, loaded at the next reboot"
                        if b.reboot_line is not None
                        else "applied"
                        if b.applied_line is not None
                        else "not applied in the copy"
                    ),
                    skipped=False,
                )
            )
        else:
            shown = [n for n in MLXCONFIG_SHOWN if n in b.settings]
            if b.roce_disabled():
                shown.append("ROCE_CONTROL")
            notes.append(
                ParseWarning(
                    line=b.line,
                    message=f"mlxconfig query: {b.where()}, {len(b.settings)} setting(s)"
                    + (f": {', '.join(f'{n} {b.settings[n]}' for n in shown)}" if shown else "")
                    + (
                        "; firmware settings, not judged but RoCE disabled"
                        if b.roce_disabled()
                        else f"; firmware settings, not judged but NUM_OF_VFS set to 0 from its "
                        f"default {b.defaults['NUM_OF_VFS']} (line {b.setting_lines['NUM_OF_VFS']})"
                        if b.no_vfs()
                        else "; firmware settings, not judged"
                    ),
                    skipped=False,
                )
            )

    flint: tuple[int, dict[str, str]] | None = None  # flint query's block: its line, fields

    def flint_said() -> None:
        if flint is None:
            return
        at, fields = flint
        notes.append(
            ParseWarning(
                line=at,
                message="flint query: firmware "
                + (fields.get("FW Version") or "(version not in the copy)")
                + (f" of {fields['FW Release Date']}" if "FW Release Date" in fields else "")
                + (f", PSID {fields['PSID']}" if "PSID" in fields else "")
                + f", image {fields['Image type']}; not judged",
                skipped=False,
            )
        )

    for no, line, _ in numbered_lines(text):
        if im := _FLINT_IMAGE_RE.match(line):
            flint_said()
            flint = (no, {"Image type": im.group("image")})
        elif flint is not None and (f := _FLINT_FIELD_RE.match(line)):
            flint[1].setdefault(f.group("key"), f.group("value"))
    flint_said()
    if not notes and not mlxconfig_errors(text):
        # (a command that answered with its error alone is read: the importer's failure)
        raise ParseError("no mlxconfig 'Device type:' block and no flint query")
    return sorted(notes, key=lambda n: n.line)


# ``ibv_devices`` (rdma-core): "    device                 node GUID" over dashes, then one device a
# line with its node GUID in hex
IBV_DEVICES_SIGNATURE = r"^[ \t]*device[ \t]+node GUID[ \t]*\r?\n[ \t]*-{4,}[ \t]+-{8,}"
_IBV_DEVICES_ROW_RE = re.compile(r"^\s*(?P<dev>[A-Za-z][\w.-]*)\s+(?P<guid>[0-9a-fA-F]{16})\s*$")


def parse_ibv_devices(text: str) -> list[tuple[int, str, str]]:
    """``ibv_devices``' devices, each (line, name, node GUID); ParseError when none."""
    rows = [
        (no, m.group("dev"), m.group("guid").lower())
        for no, line, _ in numbered_lines(text)
        if (m := _IBV_DEVICES_ROW_RE.match(line))
    ]
    if not rows:
        if _IBV_DEVICES_HEAD_RE.search(text) and _empty_listing(numbered_lines(text)) is None:
            # (its rows replaced by "..." or a note of the copy's: not an empty list)
            raise ParseError("the copy left out its rows (no device row is in it)")
        if _IBV_DEVICES_HEAD_RE.search(text):
            raise ParseError("ibv_devices listed no device (its header, no row under it)")
        raise ParseError("no ibv_devices row (a device and its node GUID)")
    return rows


_IBV_DEVICES_HEAD_RE = re.compile(r"^[ \t]*device[ \t]+node GUID[ \t]*$", re.M)


# rxe_cfg status (rdma-core's Soft-RoCE script, providers/rxe/rxe_cfg.in do_status, removed in
# 0d2ff0e (2020) for iproute2's "rdma link add NAME type rxe netdev DEV"): a row an Ethernet
# interface under "Name Link Driver Speed NMTU IPv4_addr RDEV RMTU", RDEV the rxe device bound to
# it and RMTU that device's active_mtu; status_print pads each column to its widest field and
# prints an empty one as blanks, so a column is read at its heading's place, not by its words'
# order (an interface with no rxe device ends after its address)
RXE_CFG_STATUS_SIGNATURE = (
    r"^[ \t]*Name[ \t]+Link[ \t]+Driver[ \t]+Speed[ \t]+NMTU[ \t]+IPv4_addr[ \t]+RDEV[ \t]+RMTU"
    r"[ \t]*$"
)
_RXE_CFG_HEAD_RE = re.compile(RXE_CFG_STATUS_SIGNATURE)
# lsmod's row of the Soft-RoCE driver ("rdma_rxe   102400  0": its size and use count)
_LSMOD_RXE_RE = re.compile(r"^\s*rdma_rxe\s+\d+\s+\d+\b")


@dataclass(kw_only=True)
class RxeInterface:
    """An interface of ``rxe_cfg status``: the rxe (Soft-RoCE) device bound to it, if any."""

    line: int
    name: str
    link: str | None = None
    """``yes`` where the interface's link is up."""
    driver: str | None = None
    mtu: int | None = None
    """The interface's own MTU (NMTU)."""
    ipv4: str | None = None
    rdev: str | None = None
    """The rxe device on it (``rxe0``); None where none was added."""
    rmtu: str | None = None


def parse_rxe_cfg_status(text: str) -> list[RxeInterface]:
    """Each interface row of ``rxe_cfg status`` (none where the file has no such table)."""
    rows: list[RxeInterface] = []
    columns: list[tuple[str, int]] = []  # (heading, where its column starts)
    for no, line, _ in numbered_lines(text):
        if _RXE_CFG_HEAD_RE.match(line):
            columns = [(m.group(0), m.start()) for m in re.finditer(r"\S+", line)]
            continue
        if not columns:
            continue
        if not line.strip() or line[: columns[0][1]].strip():
            columns = []  # the table ended (a blank line, a line that starts left of it)
            continue
        cells: dict[str, str] = {}
        for at, (heading, start) in enumerate(columns):
            end = columns[at + 1][1] if at + 1 < len(columns) else len(line)
            if cell := line[start:end].strip():
                cells[heading] = cell
        if "Name" not in cells or " " in cells["Name"]:
            columns = []
            continue
        nmtu = cells.get("NMTU", "")
        rows.append(
            RxeInterface(
                line=no,
                name=cells["Name"],
                link=cells.get("Link"),
                driver=cells.get("Driver"),
                mtu=int(nmtu) if nmtu.isdigit() else None,
                ipv4=cells.get("IPv4_addr"),
                rdev=cells.get("RDEV"),
                rmtu=cells.get("RMTU"),
            )
        )
    return rows


def rxe_cfg_notes(text: str) -> list[ParseWarning]:
    """A note an interface of ``rxe_cfg status``: its driver, link, address and rxe device."""
    return [
        ParseWarning(
            line=r.line,
            message=f"rxe_cfg status: {r.name} ("
            + ", ".join(
                part
                for part in (
                    r.driver,
                    f"link {r.link}" if r.link else None,
                    f"MTU {r.mtu}" if r.mtu else None,
                    r.ipv4 or "no IPv4 address",
                )
                if part
            )
            + "): "
            + (
                f"rxe device {r.rdev}" + (f" (MTU {r.rmtu})" if r.rmtu else "")
                if r.rdev
                else "no rxe (Soft-RoCE) device bound to it"
            ),
            skipped=False,
        )
        for r in parse_rxe_cfg_status(text)
    ]


def _empty_listing(numbered: list[tuple[int, str, int | None]]) -> int | None:
    """The line of the first ``ibv_devices`` header with nothing under it to the next prompt,
    header or the end (its dashes and blank lines aside); None where every listing has rows, or
    something else the copy put there ("...", a note that it trimmed the list)."""
    index = 0
    while index < len(numbered):
        no, line, _ = numbered[index]
        index += 1
        if not _IBV_DEVICES_HEAD_RE.match(line):
            continue
        under: list[str] = []
        while index < len(numbered):
            below = numbered[index][1]
            if (
                _IBV_DEVICES_HEAD_RE.match(below)
                or _PROMPT_COMMAND_RE.match(below)
                # (a collector's section heading, "===== gpu-b: ibv_devices =====")
                or (
                    below.lstrip().startswith(("=====", "#####", "-----"))
                    and set(below.strip()) - {"-", " ", "\t"}
                )
            ):
                break
            index += 1
            if below.strip() and set(below.strip()) - {"-", " ", "\t"}:
                under.append(below)
        if not under:
            return no
    return None


def no_rdma_device(text: str) -> tuple[int, str] | None:
    """Where ``ibv_devices`` printed its header and no device under it: (the header's line, what
    that says, with the Soft-RoCE context the same copy gives: lsmod's rdma_rxe, rxe_cfg status'
    interfaces without an rxe device). None where it lists a device or is not in the file."""
    numbered = numbered_lines(text)
    head = _empty_listing(numbered)
    if head is None:
        return None
    said = "ibv_devices listed no RDMA device (its header, no row under it)"
    if sum(1 for _, line, _ in numbered if _IBV_DEVICES_HEAD_RE.match(line)) > 1:
        said += f" at line {head} (another listing in the file names devices, or is empty too)"
    module = next((no for no, line, _ in numbered if _LSMOD_RXE_RE.match(line)), None)
    bare = [r for r in parse_rxe_cfg_status(text) if r.rdev is None]
    if module is not None:
        said += f": the Soft-RoCE driver rdma_rxe is loaded (lsmod, line {module})"
    if bare:
        said += (
            (" but" if module is not None else ":")
            + " rxe_cfg status shows no rxe device on "
            + ", ".join(f"{r.name} (line {r.line})" for r in bare[:4])
            + ": none was added (rxe_cfg add IFACE, or rdma link add rxe0 type rxe netdev IFACE)"
        )
    return head, said


# ``mst status -v`` (NVIDIA MFT): its PCI devices table, "DEVICE_TYPE  MST  PCI  RDMA  NET  NUMA",
# one device a row ("ConnectX7(rev:0)  /dev/mst/mt4129_pciconf8  e3:00.0  mlx5_10  net-ib7  3")
_MST_V_HEAD = r"^[ \t]*DEVICE_TYPE[ \t]+MST[ \t]+PCI[ \t]+RDMA[ \t]+NET[ \t]+NUMA[ \t]*$"
# Plain ``mst status`` (no -v), as MFT prints it in the public copies (its script is not open
# source): under "MST devices:" and a dashed rule, a device a line "/dev/mst/mt4127_pciconf0
# - PCI configuration cycles access." (or "_pci_cr0 - PCI direct access."), then indented
# "domain:bus:dev.fn=0002:01:00.0 addr.reg=88 ..." and "Chip revision is: 00".
_MST_PLAIN_HEAD = r"^[ \t]*MST devices:[ \t]*\n[ \t]*-{4,}[ \t]*\n[ \t]*/dev/mst/"
# mst status's module lines, the head it prints first (NVIDIA MFT documentation, "Running mst in
# an Environment without a Kernel": "MST modules:", a dashed rule, then "MST PCI module is not
# loaded" / "MST PCI configuration module is not loaded" where mst's kernel modules are absent;
# the devices then follow under "PCI Devices:" by their PCI address, or none)
_MST_MODULES_HEAD = (
    r"^[ \t]*MST modules:[ \t]*\n[ \t]*-{4,}[ \t]*\n[ \t]*MST PCI (?:configuration )?module is "
    r"not loaded"
)
MST_MODULE_NOT_LOADED_RE = re.compile(
    r"^[ \t]*MST PCI (?P<which>configuration )?module is not loaded[ \t]*$", re.M
)
# the devices mst lists by PCI address where its modules are not loaded ("PCI Devices:", a
# dashed rule, "05:00.0" a line, as in that documentation)
MST_PCI_ADDRESS_RE = re.compile(
    r"^[ \t]*(?:[0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7][ \t]*$", re.M
)
MST_STATUS_SIGNATURE = f"{_MST_V_HEAD}|{_MST_PLAIN_HEAD}|{_MST_MODULES_HEAD}"
_MST_HEAD_RE = re.compile(_MST_V_HEAD, re.M)
_MST_PLAIN_DEVICE_RE = re.compile(
    r"^\s*/dev/mst/(?P<mst>mt(?P<devid>\d{4,5})_\w{1,40}?)\s+-\s+(?P<access>[^\n]{1,80}?)\.?\s*$"
)
_MST_PLAIN_PCI_RE = re.compile(
    r"^\s*domain:bus:dev\.fn=(?P<pci>[0-9a-fA-F]{4}:[0-9a-fA-F:.]{7,12})"
)
# The number in an MST device's name is the NIC's PCI device id in decimal (mt4129 = 0x1021, the
# ConnectX-7 that mst status -v names on the same row); the models by device id (vendor 15b3) as
# the PCI ID list names them (k8snetworkplumbingwg/sriov-network-operator,
# doc/supported-hardware.md: 1013 ConnectX-4 ... 1023 ConnectX-8).
MST_DEVICE_MODELS = {
    0x1013: "ConnectX-4", 0x1015: "ConnectX-4 Lx", 0x1017: "ConnectX-5", 0x1019: "ConnectX-5 Ex",
    0x101B: "ConnectX-6", 0x101D: "ConnectX-6 Dx", 0x101F: "ConnectX-6 Lx", 0x1021: "ConnectX-7",
    0x1023: "ConnectX-8",
}  # fmt: skip


def _parse_mst_plain(text: str) -> list[tuple[int, dict[str, str]]]:
    """Plain ``mst status``'s devices under "MST devices:": (line, {mst, pci, access, type})."""
    rows: list[tuple[int, dict[str, str]]] = []
    inside = False
    current: dict[str, str] | None = None  # the device above an indented address line
    for no, line, _ in numbered_lines(text):
        if line.strip() == "MST devices:":
            inside = True
        elif inside and (m := _MST_PLAIN_DEVICE_RE.match(line)):
            mst = f"/dev/mst/{m.group('mst')}"
            if any(r["mst"] == mst for _, r in rows):
                current = None  # mst status run again further down: the device once
                continue
            model = MST_DEVICE_MODELS.get(int(m.group("devid")))
            current = {
                "mst": mst,
                "access": m.group("access"),
                "type": model or f"device id {int(m.group('devid')):#06x}",
            }
            rows.append((no, current))
        elif current is not None and (pci := _MST_PLAIN_PCI_RE.match(line)):
            current.setdefault("pci", pci.group("pci"))
    return rows


_MST_ROW_RE = re.compile(
    r"^\s*(?P<type>\S+?\(rev:\w+\))\s+(?P<mst>\S+)\s+(?P<pci>[0-9a-fA-F:.]+)\s+(?P<rdma>\S+)"
    r"(?:\s+(?P<net>net-\S+|\S+))?(?:\s+(?P<numa>-?\d+))?\s*$"
)


def parse_mst_status(text: str) -> list[tuple[int, dict[str, str]]]:
    """``mst status -v``'s devices, each (line, its columns), or plain ``mst status``'s (no
    ``rdma`` / ``net`` / ``numa``: it prints none); ParseError when none."""
    rows: list[tuple[int, dict[str, str]]] = []
    if not _MST_HEAD_RE.search(text.replace("\r", "")) and "MST devices:" in text:
        if plain := _parse_mst_plain(text):
            return plain
        raise ParseError("no /dev/mst/ device under mst status's MST devices:")
    inside = False
    for no, line, _ in numbered_lines(text):
        if _MST_HEAD_RE.match(line):
            inside = True
        elif inside and (m := _MST_ROW_RE.match(line)):
            rows.append((no, {k: v for k, v in m.groupdict().items() if v is not None}))
    if not rows:
        raise ParseError("no mst status -v device row under DEVICE_TYPE MST PCI RDMA NET NUMA")
    return rows


# infiniband-diags' ibqueryerrors (src/ibqueryerrors.c): for each node with a port counter over
# its threshold, 'Errors for 0x<node guid> "<node description>"' (a CA's without the GUID in
# older releases), then one line a port, "   GUID 0x<port guid> port <n>: [<counter> == <value>]
# ...", "port ALL" the switch's ports summed (PortSelect 0xFF); at the end "## Summary: N nodes
# checked, M bad nodes found" over "##      P ports checked, Q ports have errors beyond
# threshold". The counters are the IBA PortCounters': SymbolErrorCounter is 16 bits wide (65535
# its ceiling, where it stops), LinkDownedCounter 8, PortXmitDiscards 16, PortXmitWait 32.
# PortXmitWait counts the ticks a port had data and no credit to send it: congestion, not an error.
IBQUERYERRORS_SIGNATURE = (
    r'^[ \t]*Errors for (?:0x[0-9a-fA-F]+[ \t]+)?"[^"\n]*"[ \t]*\n'
    r"[ \t]*GUID 0x[0-9a-fA-F]+ port (?:\d+|ALL):"
    r"|^#+[ \t]*Summary:[ \t]*\d+ nodes checked, \d+ bad nodes found"
)
_IBQE_NODE_RE = re.compile(r'^\s*Errors for (?:0x(?P<guid>[0-9a-fA-F]+)\s+)?"(?P<node>[^"\n]*)"')
_IBQE_PORT_RE = re.compile(
    r"^\s*GUID 0x(?P<guid>[0-9a-fA-F]+) port (?P<port>\d+|ALL):(?P<rest>.*)$"
)
_IBQE_COUNTER_RE = re.compile(r"\[(?P<name>\w+) == (?P<value>\d+)\]")
_IBQE_SUMMARY_RE = re.compile(r"^#+\s*Summary:\s*(?P<nodes>\d+) nodes checked, (?P<bad>\d+) bad")
_IBQE_PORTS_RE = re.compile(r"^#+\s*(?P<ports>\d+) ports checked, (?P<bad>\d+) ports have errors")
IBQE_CONGESTION = frozenset({"PortXmitWait"})
"""Counters of congestion (waiting for credit), not of errors."""
IBQE_CEILINGS = {
    "SymbolErrorCounter": 0xFFFF,
    "LinkErrorRecoveryCounter": 0xFF,
    "LinkDownedCounter": 0xFF,
    "PortRcvErrors": 0xFFFF,
    "PortXmitDiscards": 0xFFFF,
    "PortRcvSwitchRelayErrors": 0xFFFF,
    "VL15Dropped": 0xFFFF,
    "PortXmitWait": 0xFFFFFFFF,
    # (libibmad fields.c before PortXmitDiscards: "XmtDiscards", the same 16-bit counter; the
    # PortXmitDiscardDetails fields are 16 bits wide, BITSOFFS(48, 16) PortNeighborMTUDiscards)
    "XmtDiscards": 0xFFFF,
    "PortNeighborMTUDiscards": 0xFFFF,
}
"""The IBA PortCounters' widths: a counter at its ceiling stopped there (the true count is more)."""
# PortXmitDiscardDetails' PortNeighborMTUDiscards (libibmad fields.c; ibqueryerrors --details
# prints it beside the port's XmtDiscards, rdma-core 8d673b4): "Total outbound packets discarded
# by the port because packet length exceeded the neighbor MTU" (IBA 1.3, as the infiniband
# exporters quote it, guilbaults/infiniband-exporter): packets the port got to send that the
# link to its neighbour, whose MTU the two ends agreed (NeighborMTU), cannot carry; a sender
# (or a path record) using a larger MTU than a link on its path: an MTU mismatch, each packet lost
IBQE_MTU_DISCARDS = "PortNeighborMTUDiscards"


def neighbor_mtu_discards(ports: list[PortErrors]) -> list[PortErrors]:
    """The ports with PortNeighborMTUDiscards above 0: a node's own ports where listed, its
    "port ALL" sum only where no own port of it carries the counter (one discard counted once)."""
    hit = [p for p in ports if p.counters.get(IBQE_MTU_DISCARDS)]
    own = {p.node for p in hit if p.port != "ALL"}
    return [p for p in hit if p.port != "ALL" or p.node not in own]


@dataclass(kw_only=True)
class PortErrors:
    line: int
    node: str
    """The node's description as ibqueryerrors quotes it ("MF0;ys23ib4:SX6036/U1", "host mlx4_0")."""
    port: str
    """The port number, or ``ALL`` (a switch's ports summed)."""
    counters: dict[str, int]


def parse_ibqueryerrors(
    text: str,
) -> tuple[list[PortErrors], tuple[int, int, int, int | None, int | None] | None]:
    """ibqueryerrors' port lines, and its summary (line, nodes checked, bad nodes, ports
    checked, ports with errors; None where the copy has none); ParseError when neither."""
    ports: list[PortErrors] = []
    node = ""
    summary: tuple[int, int, int, int | None, int | None] | None = None
    for no, line, _ in numbered_lines(text):
        if n := _IBQE_NODE_RE.match(line):
            node = n.group("node")
        elif p := _IBQE_PORT_RE.match(line):
            counters = {
                c.group("name"): int(c.group("value"))
                for c in _IBQE_COUNTER_RE.finditer(p.group("rest"))
            }
            if counters:
                ports.append(
                    PortErrors(line=no, node=node, port=p.group("port"), counters=counters)
                )
        elif s := _IBQE_SUMMARY_RE.match(line):
            summary = (no, int(s.group("nodes")), int(s.group("bad")), None, None)
        elif summary is not None and (q := _IBQE_PORTS_RE.match(line)):
            summary = (*summary[:3], int(q.group("ports")), int(q.group("bad")))
    if not ports and summary is None:
        raise ParseError("ibqueryerrors: no port's counters and no summary")
    return ports, summary


def ibqueryerrors_notes(text: str) -> list[ParseWarning]:
    """A note per node of ibqueryerrors: its ports' error counters (those at their ceiling said
    so), congestion apart; and one of its summary."""
    ports, summary = parse_ibqueryerrors(text)
    notes: list[ParseWarning] = []
    by_node: dict[str, list[PortErrors]] = {}
    for p in ports:
        by_node.setdefault(p.node, []).append(p)

    def said(name: str, value: int) -> str:
        full = " (its ceiling: it stopped counting)" if IBQE_CEILINGS.get(name) == value else ""
        return f"{name} {value}{full}"

    for node, own in by_node.items():
        errors = [
            (p, {k: v for k, v in p.counters.items() if k not in IBQE_CONGESTION}) for p in own
        ]
        with_errors = [(p, c) for p, c in errors if c]
        waits = [p for p in own if any(k in IBQE_CONGESTION for k in p.counters)]
        notes.append(
            ParseWarning(
                line=own[0].line,
                message=f"ibqueryerrors {node or '(node not named)'}: "
                + (
                    "; ".join(
                        f"port {p.port}"
                        + (" (the switch's ports summed)" if p.port == "ALL" else "")
                        + ": "
                        + ", ".join(said(k, v) for k, v in c.items())
                        for p, c in with_errors
                    )
                    if with_errors
                    else "no error counter, congestion only"
                )
                + (
                    "; PortNeighborMTUDiscards: packets longer than the MTU of the port's link "
                    "to its neighbour were dropped (an MTU mismatch on that link)"
                    if any(p.counters.get(IBQE_MTU_DISCARDS) for p in own)
                    else ""
                )
                + (
                    f"; PortXmitWait (congestion, not an error) on {len(waits)} port(s)"
                    if waits
                    else ""
                ),
                skipped=False,
            )
        )
    if summary is not None:
        at, nodes, bad, checked, bad_ports = summary
        notes.append(
            ParseWarning(
                line=at,
                message=f"ibqueryerrors summary: {bad} of {nodes} node(s) bad"
                + (
                    f", {bad_ports} of {checked} port(s) with errors beyond threshold"
                    if checked is not None
                    else ""
                ),
                skipped=False,
            )
        )
    return notes


# ibdiagnet (ibutils' ibdiag 1.x, ibdebug.tcl SummaryMessage) ends with "-I- Stages Status
# Report:" over "    STAGE   Errors Warnings" and a row a stage ("    %-40s %-6d %-6d": name,
# errors, warnings); ibdiagnet2 (MFT/OFED's ibdiagnet 2.x) ends with "Summary" over "-I- Stage
# Warnings   Errors   Comment" and "-I- Discovery   0   0" rows: the columns' order is read from
# the header. Its report body has a section a check, its name on the line after a dashed rule
# ("-I---------" then "-I- IPoIB Subnets Check" in 1.x, "-------" then "Links Check" in 2.x), in
# which "-E-" lines are errors and "-W-" lines warnings (ibdiagnet(1): -E- error, -W- warning).
IBDIAGNET_SIGNATURE = (
    r"^[ \t]*-I- Stages Status Report:"
    r"|^[ \t]*(?:-I-[ \t]+)?Stage[ \t]+Warnings[ \t]+Errors\b"
    r"|^[ \t]*Loading IBDIAGNET from:"
)
_IBDIAG_HEADER_RE = re.compile(
    r"^\s*(?:-I-\s+)?STAGE\s+(?P<first>Errors|Warnings)\s+(?:Errors|Warnings)\b", re.I
)
_IBDIAG_RULE_RE = re.compile(r"^\s*(?:-I-)?-{8,}\s*$")
_IBDIAG_MESSAGE_RE = re.compile(r"^\s*-(?P<level>[EW])-\s+(?P<text>\S.*)$")
_IBDIAG_VERSION_RE = re.compile(r"Loading IBDIAGNET from: \S*?ibdiagnet(?P<version>[\d.]+)")
# the local port a run sends its MADs from, which decides the subnet it sees (ibdiagnet(1):
# "-i <dev-index>" and "-p <port-num>" pick it, 2.x's "-i|--device <dev-name>" and "-p|--port
# <port-num>"): 1.x says it, "-I- Using port 1 as the local port."; a prompt's command line says
# what was asked where the run says nothing of it
_IBDIAG_LOCAL_PORT_RE = re.compile(r"-I- Using port (?P<port>\d+) as the local port")
_IBDIAG_COMMAND_RE = re.compile(r"\bibdiagnet2?(?:[ \t]+|$)(?P<args>[^\n|;&]*)")
_IBDIAG_DISCOVERED_RE = re.compile(
    r"Discovering \.\.\. (?P<nodes>\d+) nodes \((?P<switches>\d+) Switches & (?P<cas>\d+) CA-s\)"
)


@dataclass(kw_only=True)
class IbdiagStage:
    line: int
    name: str
    errors: int
    warnings: int
    messages: list[tuple[int, str, str]] = field(default_factory=list)
    """The report body's ``-E-``/``-W-`` lines of the section of the same name: (line, "E" or
    "W", text)."""


@dataclass(kw_only=True)
class IbdiagReport:
    line: int
    """The summary's header line (or the report's first line where the summary is not there)."""
    version: str | None = None
    discovered: str | None = None
    """"2 nodes (0 switches, 2 CAs)" as its discovery said."""
    stages: list[IbdiagStage] = field(default_factory=list)
    local_port: str | None = None
    """The local port it ran from ("port 2", "mlx5_1 port 1"), None where the copy does not say:
    runs from two ports see two subnets (two rails, two fabrics)."""
    summary: bool = False
    """Whether the stage summary is in the copy (a copy cut before it judges nothing)."""
    messages: list[tuple[int, str, str, str]] = field(default_factory=list)
    """Every ``-E-``/``-W-`` line: (line, "E" or "W", its section, text)."""


def _ibdiag_counts(line: str) -> tuple[str, int, int, str] | None:
    """A summary row split on blanks (no pattern that backtracks on a long line): the stage's
    name up to its first two numbers, the two numbers, the comment after them."""
    words = line.split()
    if words and words[0] == "-I-":
        words = words[1:]
    for i in range(1, len(words) - 1):
        if words[i].isdigit() and words[i + 1].isdigit():
            return " ".join(words[:i]), int(words[i]), int(words[i + 1]), " ".join(words[i + 2 :])
    return None


def _ibdiag_asked_port(args: list[str]) -> str | None:
    """The local port ibdiagnet's arguments pick ("-p 2", "--port=2", "-i mlx5_1"), None where
    they pick none (its default: the first active port)."""
    device = port = None
    for i, arg in enumerate(args):
        flag, eq, value = arg.partition("=")
        if not eq:
            value = args[i + 1] if i + 1 < len(args) else ""
        if flag in ("-p", "--port", "--port_num") and value.isdigit():
            port = value
        elif flag in ("-i", "--device", "--dev") and value and not value.startswith("-"):
            device = value
    if port is None and device is None:
        return None
    return f"{device or ''} port {port or '?'}".strip()


def parse_ibdiagnet(text: str) -> list[IbdiagReport]:
    """ibdiagnet's reports in ``text``, a run each in the order printed: its stage summary and
    the ``-E-``/``-W-`` lines of its sections; ParseError when neither a summary nor the tool's
    banner is there. Each run prints its own "Loading IBDIAGNET from:" banner and its own
    summary (ibdiagnet(1)), so a second banner, or a second summary in a copy cut above its
    banner, starts the next run: a rerun's stages are not the first run's."""
    reports: list[IbdiagReport] = []
    report: IbdiagReport | None = None
    section = ""
    after_rule = named = False
    errors_first: bool | None = None  # the summary's column order, once its header is read
    asked: str | None = None  # the local port the last ibdiagnet command line asked for
    for no, line, _ in numbered_lines(text):
        if "ibdiagnet" in line and "Loading" not in line and (c := _IBDIAG_COMMAND_RE.search(line)):
            asked = _ibdiag_asked_port(c.group("args").split())
        v = _IBDIAG_VERSION_RE.search(line)
        h = _IBDIAG_HEADER_RE.match(line)
        if report is None or (
            (v and (report.version or report.discovered or report.summary or report.messages))
            or (h and report.summary)
        ):
            report = IbdiagReport(line=no)
            reports.append(report)
            section, after_rule, named, errors_first = "", False, False, None
        if v:
            report.version = v.group("version").rstrip(".")
            report.local_port = asked
            asked = None
        if lp := _IBDIAG_LOCAL_PORT_RE.search(line):
            device = (report.local_port or "").rpartition(" port ")[0]
            report.local_port = f"{device} port {lp.group('port')}".strip()
        if d := _IBDIAG_DISCOVERED_RE.search(line):
            report.discovered = (
                f"{d.group('nodes')} nodes ({d.group('switches')} switches, {d.group('cas')} CAs)"
            )
        if h:
            errors_first = h.group("first").lower() == "errors"
            report.summary, report.line = True, no
            continue
        if errors_first is not None:
            row = _ibdiag_counts(line)
            if row is None:
                if line.strip():
                    errors_first = None  # the table ends at its first line of another form
                continue
            name, a, b, _comment = row
            errors, warnings = (a, b) if errors_first else (b, a)
            report.stages.append(IbdiagStage(line=no, name=name, errors=errors, warnings=warnings))
            continue
        if _IBDIAG_RULE_RE.match(line):
            # 1.x rules a name off above and below: the rule right under a name opens no section
            after_rule, named = not named, False
            continue
        stripped = line.strip()
        if after_rule and stripped:
            # a section's name: the line after its rule, without 1.x's "-I- "
            if not stripped.startswith(("-E-", "-W-")):
                section = stripped.removeprefix("-I-").strip()
                named = True
            after_rule = False
        elif stripped:
            named = False
        if m := _IBDIAG_MESSAGE_RE.match(line):
            report.messages.append((no, m.group("level"), section, m.group("text").rstrip()))
    reports = [r for r in reports if r.summary or r.version is not None]
    if not reports:
        raise ParseError("no ibdiagnet stage summary and no 'Loading IBDIAGNET from:' banner")
    for r in reports:
        by_name = {s.name.lower(): s for s in r.stages}
        for no, level, where, said in r.messages:
            if (stage := by_name.get(where.lower())) is not None:
                stage.messages.append((no, level, said))
    return reports


# infiniband-diags' ibping (rdma-core infiniband-diags/ibping.c; src/ibping.c in the older
# infiniband-diags tree), an OpenIB vendor MAD sent to a port that runs "ibping -S". A reply is
# a line, printf("Pong from %s (%s): time %" PRIu64 ".%03" PRIu64 " ms\n", data,
# portid2str(portid), ...): data the server's "hostname.domainname" (get_host_and_domain, so
# "host.(none)" where no domain is set), portid2str (libibmad portid.c) the destination, "Lid N"
# (with " Gid G" behind a GRH) or "DR path ..."; a lost pong prints nothing (a DEBUG line only),
# and -f (flood) prints no pong line. At its count's end or on ^C, report(): "\n--- %s (%s) ibping
# statistics ---" (the first pong's host, the destination), "%N packets transmitted, %N
# received, %N%% packet loss, time %N ms" (loss: lost * 100 / transmitted, an integer) and
# "rtt min/avg/max = a/b/c ms".
# Run over pdsh/clush (``pdsh -w node[1-2] ibping -c 10 -L 23``) each line carries the node's
# "node: " (dshbak(1): "the leading node: is stripped"); any host name is taken, since ibping's
# own words must follow it (as dcgm's _UBERGEMM_HOST_RE).
_IBPING_NODE = r"(?:[A-Za-z0-9][\w.-]{0,252}: )?"
IBPING_SIGNATURE = (
    rf"^[ \t]*{_IBPING_NODE}Pong from [^\n]{{0,300}}? \((?:Lid \d+|DR path)[^)\n]{{0,200}}\): "
    r"time \d+\.\d+ ms"
    rf"|^[ \t]*{_IBPING_NODE}--- [^\n]{{0,300}}?\([^)\n]{{1,200}}\) ibping statistics ---"
)
_IBPING_NODE_RE = re.compile(
    r"^[ \t]{0,40}(?P<node>[A-Za-z0-9][\w.-]{0,252}): ?"
    r"(?=Pong from |--- |\d+ packets transmitted|rtt min/avg/max|\^C|\s*$)"
)
_IBPING_PONG_RE = re.compile(
    r"^\s*Pong from (?P<host>[^\n]{0,300}?) \((?P<dest>(?:Lid \d+|DR path)[^)\n]{0,200})\): "
    r"time (?P<ms>\d+\.\d+) ms"
)
# (the host is empty where no pong came back: last_host is then "")
_IBPING_HEAD_RE = re.compile(
    r"^\s*--- (?P<host>[^\n]{0,300}?) ?\((?P<dest>[^)\n]{1,200})\) ibping statistics ---"
)
_IBPING_SUMMARY_RE = re.compile(
    r"^\s*(?P<sent>\d+) packets transmitted, (?P<recv>\d+) received, (?P<loss>\d+)% packet "
    r"loss, time (?P<ms>\d+) ?ms"
)
_IBPING_RTT_RE = re.compile(
    r"^\s*rtt min/avg/max = (?P<min>\d+\.\d+)/(?P<avg>\d+\.\d+)/(?P<max>\d+\.\d+) ms"
)


@dataclass(kw_only=True)
class IbpingRun:
    """One ibping client run: its pongs and, where the copy holds it, its statistics."""

    line: int
    """The run's first line (its first pong, else its statistics heading)."""
    host: str | None = None
    """The answering server's name as its pongs carry it (the heading's where no pong is in the
    copy); None where neither names one."""
    dest: str | None = None
    """The destination as ibping names it, ``Lid 1`` (the pongs', else the heading's)."""
    heading_dest: str | None = None
    """The destination the statistics heading names (the same port in ibping's source: a copy
    that says another was edited or pieced together)."""
    pong_lines: list[int] = field(default_factory=list)
    rtt_ms: list[float] = field(default_factory=list)
    summary_line: int | None = None
    sent: int | None = None
    received: int | None = None
    loss_pct: int | None = None
    """ibping's own figure: the lost share of those sent, in whole percent."""
    rtt_min_ms: float | None = None
    rtt_avg_ms: float | None = None
    rtt_max_ms: float | None = None
    node: str | None = None
    """The node pdsh/clush named before the run's lines; None where none leads them."""
    ctrl_c: bool = False
    """A "^C" (the terminal's echo of the interrupt) stands above the statistics."""

    @property
    def unanswered(self) -> int | None:
        """Pings sent and not answered (transmitted less received)."""
        return None if self.sent is None or self.received is None else self.sent - self.received

    @property
    def lost(self) -> int | None:
        """ibping's own lost count, as its figures fix it. ibping.c's main loop counts a ping in
        ntrans before it goes out and in ``replied`` or ``lost`` only once it is answered or
        timed out; report() runs on SIGINT/SIGTERM too (signal(SIGINT, report)), so a ping in
        flight then is transmitted, neither received nor lost (in flood mode nearly every ^C).
        Its figure is ``lost * 100 / ntrans`` (0 where lost is 0): where only one less than
        the unanswered fits it, that one was in flight; where both fit (past 100 sent), a "^C"
        above the statistics says it was."""
        unanswered = self.unanswered
        if unanswered is None or unanswered <= 0 or self.loss_pct is None or self.sent is None:
            return unanswered
        fits_all = _ibping_loss_pct(unanswered, self.sent) == self.loss_pct
        fits_one_less = _ibping_loss_pct(unanswered - 1, self.sent) == self.loss_pct
        if fits_one_less and (not fits_all or self.ctrl_c):
            return unanswered - 1
        return unanswered

    @property
    def in_flight(self) -> bool:
        """One ping was in flight when ibping was stopped (``lost``)."""
        return (
            self.lost is not None
            and self.unanswered is not None
            and (self.unanswered - self.lost == 1)
        )

    @property
    def in_flight_unsure(self) -> bool:
        """One ping unanswered that may have been lost or in flight: ibping's figure fits both
        (past 100 sent) and no "^C" says it was stopped."""
        if self.in_flight or self.loss_pct is None or self.sent is None:
            return False
        unanswered = self.unanswered or 0
        return unanswered >= 1 and _ibping_loss_pct(unanswered - 1, self.sent) == self.loss_pct


def _ibping_loss_pct(lost: int, sent: int) -> int:
    """ibping.c report()'s figure: ``(lost != 0) ? lost * 100 / ntrans : 0``."""
    return lost * 100 // sent if lost else 0


def parse_ibping(text: str) -> list[IbpingRun]:
    """Each ibping client run in ``text`` (a run ends with its statistics); ParseError when
    none."""
    runs: list[IbpingRun] = []
    # each node's run still open (pdsh interleaves several nodes' lines; None: no prefix)
    open_runs: dict[str | None, IbpingRun] = {}
    ctrl_c: set[str | None] = set()  # nodes whose "^C" stands above their next statistics
    for no, line, _ in numbered_lines(text):
        node = None
        if n := _IBPING_NODE_RE.match(line):
            node, line = n.group("node"), line[n.end() :]
        run = open_runs.get(node)
        if line.strip() == "^C":
            ctrl_c.add(node)
        elif "Pong from" in line and (p := _IBPING_PONG_RE.match(line)):
            if run is None or run.summary_line is not None or run.heading_dest is not None:
                run = open_runs[node] = IbpingRun(line=no, node=node)
                runs.append(run)
            run.host = run.host or p.group("host").strip() or None
            run.dest = run.dest or p.group("dest")
            run.pong_lines.append(no)
            run.rtt_ms.append(float(p.group("ms")))
        elif "ibping statistics" in line and (h := _IBPING_HEAD_RE.match(line)):
            if run is None or run.summary_line is not None or run.heading_dest is not None:
                run = open_runs[node] = IbpingRun(line=no, node=node)
                runs.append(run)
            run.ctrl_c = node in ctrl_c
            ctrl_c.discard(node)
            run.heading_dest = h.group("dest")
            run.dest = run.dest or run.heading_dest
            run.host = run.host or h.group("host").strip() or None
        elif run is not None and run.heading_dest is not None:
            if run.summary_line is None and (s := _IBPING_SUMMARY_RE.match(line)):
                run.summary_line = no
                run.sent, run.received = int(s.group("sent")), int(s.group("recv"))
                run.loss_pct = int(s.group("loss"))
            elif run.summary_line is not None and (r := _IBPING_RTT_RE.match(line)):
                run.rtt_min_ms = float(r.group("min"))
                run.rtt_avg_ms = float(r.group("avg"))
                run.rtt_max_ms = float(r.group("max"))
    if not runs:
        raise ParseError("no ibping run ('Pong from HOST (Lid N): time T ms')")
    return runs


# mlxfwmanager (NVIDIA MFT; mstflint's mstfwmanager and mlxup share its code,
# mlxfwupdate/mlxfwmanager.cpp): printDeviceInfoQuery prints a block a device, "Device #1:" over
# "----------", its "Device Type:", "Part Number:", "Description:", "PSID:", "PCI Device Name:"
# and MAC/GUID rows, "Versions:  Current  Available" over one row a component ("FW 2.33.5220
# 2.42.5000", "PXE ...", "UEFI ..."), then "Status:" (one of "Update required", "Forced update
# required", "Up to date", "No matching image found", "Failed to open device", "Multiple image
# files found", "Device has unknown expansion rom", "Image has unknown expansion rom", "Skipped
# (same version)", "N/A (Mixed versions)"). The signature: the block's head over its device
# type, or its versions heading.
MLXFWMANAGER_SIGNATURE = (
    r"^[ \t]*Device #\d{1,4}:[ \t]*\r?\n[ \t]*-{5,}[ \t]*\r?\n(?:[ \t]*\r?\n){0,2}[ \t]*Device Type:"
    r"|^[ \t]*Versions:[ \t]+Current[ \t]+Available[ \t]*\r?$"
)
_FWM_DEVICE_RE = re.compile(r"^[ \t]*Device #(?P<index>\d{1,4}):[ \t]*$")
_FWM_FIELD_RE = re.compile(
    r"^[ \t]*(?P<key>Device Type|Part Number|Description|PSID|PCI Device Name):[ \t]*"
    r"(?P<value>\S[^\n]{0,300}?)[ \t]*$"
)
_FWM_VERSION_RE = re.compile(
    # ("FW (Running)": the firmware the device runs where it differs from the flash's "FW" row,
    # mstflint mlxfwupdate/mlnx_dev.cpp setVersion("FW (Running)", ...) at b9d9e84)
    r"^[ \t]*(?P<component>FW \(Running\)|FW|PXE|UEFI|FCODE|[A-Z][A-Z0-9_]{1,15})[ \t]+(?P<current>\S+)"
    r"[ \t]+(?P<available>\S+)[ \t]*$"
)
_FWM_STATUS_RE = re.compile(r"^[ \t]*Status:[ \t]*(?P<status>\S[^\n]{0,200}?)[ \t]*$")
# the update's own lines (mlxfwmanager.cpp): one device's "Device #1: Updating FW ..." (or
# "Updating FW ..." where the host has one device; "Device #1 (NAME): Updating FW ..." when
# several burn at once), then "Done", "Fail : WHY" or "Interrupted"; after them, where at least one
# burn succeeded, "Restart needed for updates to take effect.": the new firmware runs only after
# the device restarts (a reboot, or mlxfwreset)
_FWM_UPDATING_RE = re.compile(
    r"^[ \t]*(?:Device #(?P<index>\d{1,4})(?:[ \t]+\([^)\n]{1,200}\))?:[ \t]*)?Updating FW \.\.\."
    r"[ \t]*(?P<rest>[^\n]{0,300}?)[ \t]*$"
)
_FWM_PARALLEL_END_RE = re.compile(
    r"^[ \t]*Device #(?P<index>\d{1,4})(?:[ \t]+\([^)\n]{1,200}\))?:[ \t]*"
    r"(?P<end>Done|Interrupted|Fail[ \t]*:[ \t]*[^\n]{0,300}?)[ \t]*$"
)
_FWM_END_RE = re.compile(r"^[ \t]*(?P<end>Done|Interrupted|Fail[ \t]*:[ \t]*[^\n]{0,300}?)[ \t]*$")
_FWM_RESTART_RE = re.compile(r"^[ \t]*Restart needed for updates to take effect\.?[ \t]*$")
_FWM_DECLINED_RE = re.compile(r"^[ \t]*No updates performed[ \t]*$")


@dataclass(kw_only=True)
class FirmwareDevice:
    """One device block of mlxfwmanager (or mlxup), and what its update did."""

    index: int
    line: int
    fields: dict[str, str] = field(default_factory=dict)
    versions: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Component (FW, PXE, UEFI) → (current, available) as printed."""
    version_lines: dict[str, int] = field(default_factory=dict)
    status: str = ""
    status_line: int = 0
    burn: str = ""
    """"done", "fail" or "interrupted" where the copy shows the update's end; "" otherwise."""
    burn_line: int = 0
    burn_error: str = ""

    def where(self) -> str:
        """The device as its block names it: type, part number and PCI device name."""
        kind = self.fields.get("Device Type", "")
        part = self.fields.get("Part Number", "")
        pci = self.fields.get("PCI Device Name", "")
        said = " ".join(x for x in (kind, part) if x and x != "N/A") or f"device #{self.index}"
        return said + (f" ({pci})" if pci else "")


@dataclass(kw_only=True)
class FirmwareUpdate:
    devices: list[FirmwareDevice] = field(default_factory=list)
    restart_line: int = 0
    """The line of "Restart needed for updates to take effect." (0: none)."""
    declined_line: int = 0
    """The line of "No updates performed" (the prompt answered no)."""


def parse_mlxfwmanager(text: str) -> FirmwareUpdate:
    """mlxfwmanager's device blocks and its update's lines; ParseError where no block is there."""
    out = FirmwareUpdate()
    by_index: dict[int, FirmwareDevice] = {}
    device: FirmwareDevice | None = None
    burning: FirmwareDevice | None = None  # the device whose "Updating FW ..." came last
    in_versions = False
    for no, line in enumerate(text.splitlines(), 1):
        if m := _FWM_DEVICE_RE.match(line):
            device = FirmwareDevice(index=int(m.group("index")), line=no)
            by_index.setdefault(device.index, device)
            out.devices.append(device)
            in_versions = False
            continue
        if m := _FWM_UPDATING_RE.match(line):
            index = int(m.group("index")) if m.group("index") else 1
            burning = by_index.get(index) or (out.devices[-1] if out.devices else None)
            in_versions = False
            rest = m.group("rest")
            if burning is not None and (end := _FWM_END_RE.match(rest)):
                _burn_end(burning, end.group("end"), no)
            continue
        if (m := _FWM_PARALLEL_END_RE.match(line)) and int(m.group("index")) in by_index:
            _burn_end(by_index[int(m.group("index"))], m.group("end"), no)
            continue
        if burning is not None and not burning.burn and (m := _FWM_END_RE.match(line)):
            _burn_end(burning, m.group("end"), no)
            continue
        if _FWM_RESTART_RE.match(line):
            out.restart_line = no
            continue
        if _FWM_DECLINED_RE.match(line):
            out.declined_line = no
            continue
        if device is None:
            continue
        if m := _FWM_FIELD_RE.match(line):
            device.fields.setdefault(m.group("key"), m.group("value"))
        elif re.match(r"^[ \t]*Versions:", line):
            in_versions = True
        elif m := _FWM_STATUS_RE.match(line):
            device.status, device.status_line = m.group("status"), no
            in_versions = False
        elif in_versions and (m := _FWM_VERSION_RE.match(line)):
            component = m.group("component")
            device.versions[component] = (m.group("current"), m.group("available"))
            device.version_lines[component] = no
    if not out.devices:
        raise ParseError("no mlxfwmanager device block ('Device #1:' over 'Device Type:')")
    return out


def _burn_end(device: FirmwareDevice, end: str, line: int) -> None:
    device.burn_line = line
    if end == "Done":
        device.burn = "done"
    elif end == "Interrupted":
        device.burn = "interrupted"
    else:
        device.burn = "fail"
        device.burn_error = end.split(":", 1)[1].strip()
