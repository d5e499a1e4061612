"""``ethtool -S <iface>``: a NIC driver's counters, read for the ones that count losses.

ethtool prints ``NIC statistics:`` and then one ``     name: value`` line a counter, in the
driver's own names (mlx5_core: ``rx_packets``, ``rx_out_of_buffer``, ``rx_discards_phy``,
``rx_crc_errors_phy``, ``link_down_events_phy`` ...; the kernel's mlx5 counters documentation
names what each counts). The counters only grow from the driver's start, so one output says
what was lost since then, not when; a note says which loss counters are not 0.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.parsers import MARKED_PROMPT_HOST_RE, ParseError, numbered_lines, pdsh_by_host

SIGNATURE = (
    r"^[ \t]*NIC statistics:[ \t]*\n[ \t]+[\w.\[\]-]+: -?\d+[ \t]*$"
    # a copy without its heading: mlx5's port counters, a line each (a note after a "#" kept)
    r"|(?:^[ \t]*[a-z]\w*_phy: \d+[ \t]*(?:#[^\n]*)?\n){3}"
    # (or its first counters, every NIC's rx/tx packet and byte counts, indented as printed)
    r"|^[ \t]+rx_packets: \d+[ \t]*\n[ \t]+tx_packets: \d+[ \t]*\n[ \t]+rx_bytes: \d+"
    # (or a grep of its counters under the command that named them: "ethtool -S eth1 | grep
    # pause", or a grep of a sosreport's sos_commands/networking/ethtool_-S_eth1, the file
    # sosreport writes that output to)
    r"|^[^\n]{0,200}?\bethtool(?:_-S_| -S )[^\n]{0,200}\n[ \t]+[a-z]\w{0,100}: \d+[ \t]*$"
    # (the same through pdsh, "node01: " before each counter: pdsh -w node0[1-3] "ethtool -S
    # eth1 | grep pause")
    r"|^[^\n]{0,200}?\bethtool -S [^\n]{0,200}\n[A-Za-z0-9][\w.-]{0,62}:[ \t]+[a-z]\w{0,100}: \d+[ \t]*$"
    # (or grep over several of sosreport's files, grep's "FILE:" before each line: grep pause
    # sos_commands/networking/ethtool_-S_*)
    r"|^[^\s:]{0,300}?ethtool_-S_[A-Za-z][\w.@-]{0,63}:[ \t]+[a-z]\w{0,100}: \d+[ \t]*$"
)
_COUNTER_RE = re.compile(r"^\s+(?P<name>[\w.\[\]-]+(?:: [\w.\[\]-]+)?): (?P<value>-?\d+)\s*$")
_HEADLESS_COUNTER_RE = re.compile(r"^\s*(?P<name>[a-z]\w*): (?P<value>\d+)\s*(?:#.*)?$")
"""A counter line of a copy without its ``NIC statistics:`` heading, a note after it."""
"""A counter line, per queue too (be2net's "rxq0: rx_drops_no_frags: 3885606854")."""
_LOSS_WORDS = frozenset(
    {"err", "errs", "error", "errors", "drop", "drops", "dropped", "discard", "discards",
     "discarded", "crc", "timeout", "timeouts", "lost", "symbol", "undersize", "oversize",
     "fragments", "jabber", "jabbers", "aborted", "overflow", "overflows", "stall", "stalls"}
)  # fmt: skip
"""The words of a counter's name (split at ``_``, ``.``, ``:`` and spaces) that say it counts
something lost or refused, as mlx5 and other drivers name them; ``rx_xdp_drop`` of a program's
own XDP verdicts is one of them only by name."""
_LOSS_PHRASES = ("out_of_buffer", "out_of_range", "link_down")


@dataclass(kw_only=True)
class NicStats:
    line: int
    counters: dict[str, int] = field(default_factory=dict)
    losses: dict[str, int] = field(default_factory=dict)
    """The loss counters that are not 0."""
    counter_lines: dict[str, int] = field(default_factory=dict)
    """Each counter's line in the copy."""
    iface: str | None = None
    """The interface the copy names above the block (``ethtool -S ens1f0np0``, a loop's
    ``== ens1f0np0`` heading); None where it names none."""
    host: str | None = None
    """The host pdsh put before its lines (``node01:``); None where the copy is no pdsh one."""


def _is_loss(name: str) -> bool:
    words = re.split(r"[_.:\s\[\]]+", name.lower())
    return bool(_LOSS_WORDS.intersection(words)) or any(p in name.lower() for p in _LOSS_PHRASES)


PAUSES_SENT_MIN = 10_000
"""Fewer link-level pause frames sent than this, since the driver started, are a burst's (a port
under flow control pauses its peer now and then), whatever the traffic."""
PAUSES_SENT_SHARE = 1e-4
"""Pause frames sent per packet the port received (``rx_packets_phy``, else ``rx_packets``) below
which they are flow control at work, not an adapter falling behind: PFC on a lossless RoCE
fabric pauses its peer by design, and the counters run from the driver's start, weeks of
traffic. One pause a 10,000 packets received is past what a port keeping up sends."""
# mlx5's counters of pause frames the port sent (the kernel's mlx5 counters documentation,
# Documentation/networking/device_drivers/ethernet/mellanox/mlx5/counters.rst): tx_pause_ctrl_phy,
# link-level pause packets ("if this counter is increasing, it implies that the NIC is congested
# and cannot absorb the traffic coming from the network"), tx_global_pause (global pause),
# tx_prio<p>_pause (PFC, per priority)
# (and bnx2x's tx_pause_frames / rx_pause_frames, its port's pause frames sent and received:
# bnx2x_ethtool.c bnx2x_stats_arr, "rx_pause_frames" from pause_frames_received)
_PAUSES_SENT_RE = re.compile(r"tx_(?:pause_ctrl_phy|pause_frames|global_pause|prio[0-7]_pause)")
# The pause frames the port received: counters.rst's rx_pause_ctrl_phy, "if this counter is
# increasing, it implies that the network is congested and cannot absorb the traffic coming
# from to the adapter": its link partner held this port's sending back
_PAUSES_RECEIVED_RE = re.compile(r"rx_(?:pause_ctrl_phy|pause_frames|global_pause|prio[0-7]_pause)")
_PAUSE_STORMS = ("tx_pause_storm_warning_events", "tx_pause_storm_error_events")
"""mlx5's PFC stall prevention (kernel commit "net/mlx5e: Expose PFC stall prevention counters"):
the device stalled past a watermark (warning) or past its timeout, pause sending then disabled
(error)."""
_PCIE_SIGNAL = ("rx_pci_signal_integrity", "tx_pci_signal_integrity")
"""mlx5's PCIe physical-layer errors (counters.rst: transitions to recovery on framing and CRC
errors, or the other side's; "if this counter is raising, try moving the adapter card to a
different slot")."""


def received_packets(stats: NicStats) -> int | None:
    """The packets the port received since its driver started (mlx5's ``rx_packets_phy``, the
    physical port's, else the driver's ``rx_packets``); None where the copy holds neither."""
    return stats.counters.get("rx_packets_phy") or stats.counters.get("rx_packets")


def pauses_sent(stats: NicStats) -> tuple[str, int] | None:
    """The pause-frame counter of a block that counts the most sent (link-level or a PFC
    priority's), with its value; None where the block holds none above 0."""
    pauses = [(k, v) for k, v in stats.counters.items() if _PAUSES_SENT_RE.fullmatch(k) and v]
    return max(pauses, key=lambda kv: kv[1]) if pauses else None


def sent_packets(stats: NicStats) -> int | None:
    """The packets the port sent since its driver started (``tx_packets_phy``, else
    ``tx_packets``); None where the copy holds neither."""
    return stats.counters.get("tx_packets_phy") or stats.counters.get("tx_packets")


def pauses_received(stats: NicStats) -> tuple[str, int] | None:
    """The pause-frame counter of a block that counts the most received, with its value; None
    where the block holds none above 0."""
    pauses = [(k, v) for k, v in stats.counters.items() if _PAUSES_RECEIVED_RE.fullmatch(k) and v]
    return max(pauses, key=lambda kv: kv[1]) if pauses else None


PHY_ERRORS_MIN = 10_000
"""Fewer packets than this lost to physical-layer errors since the driver started are a link's
bring-up or a cable moved once (a few CRC errors as a link trains); more say the link itself
corrupts frames: a module, cable or port fault."""
# mlx5's physical-layer loss counters (the kernel's mlx5 counters documentation, counters.rst):
# rx_crc_errors_phy "the number of received packets dropped due to FCS (Frame Check Sequence)
# error on the physical port", rx_symbol_err_phy "... dropped due to physical coding errors
# (symbol errors)", rx_pcs_symbol_err_phy symbol errors FEC did not correct ("the link ... is
# suffering from high BER, and traffic is lost. You may need to replace the cable/transceiver");
# rx_err_lane_<l>_phy counts raw errors before FEC (corrected ones too): said beside them only
_PHY_LOSSES = ("rx_crc_errors_phy", "rx_symbol_err_phy", "rx_pcs_symbol_err_phy")
_LANE_ERRORS_RE = re.compile(r"rx_err_lane_\d+_phy")


def phy_errors_said(stats: NicStats) -> tuple[str, int, list[str]] | None:
    """A block's packets lost to physical-layer errors past ``PHY_ERRORS_MIN``: the largest such
    counter, its value, and the lanes whose raw error counters are not 0 (``rx_err_lane_2_phy``);
    None where no such counter reaches it."""
    lost = [
        (k, stats.counters[k]) for k in _PHY_LOSSES if stats.counters.get(k, 0) >= PHY_ERRORS_MIN
    ]
    if not lost:
        return None
    most = max(lost, key=lambda kv: kv[1])
    lanes = [k for k, v in stats.counters.items() if v and _LANE_ERRORS_RE.fullmatch(k)]
    return most[0], most[1], lanes


def congestion_said(stats: NicStats) -> list[tuple[str, int, str]]:
    """The counters of a block that tell of an adapter that could not keep up or of a PCIe link
    that errs, as ``(counter, value, what it says)``: pause frames sent past
    ``PAUSES_SENT_MIN`` and, where the copy holds the packets received, past
    ``PAUSES_SENT_SHARE`` of them; a pause storm; PCIe signal-integrity errors; none on a block
    whose counters are all 0 or that holds none of them."""
    said: list[tuple[str, int, str]] = []
    most = pauses_sent(stats)
    received = received_packets(stats)
    if (
        most is not None
        and most[1] >= PAUSES_SENT_MIN
        and (not received or most[1] / received >= PAUSES_SENT_SHARE)
    ):
        said.append(
            (
                most[0],
                most[1],
                "pause frames the port sent since its driver started"
                + (
                    f", {most[1] / received:.2g} a packet received"
                    if received
                    else " (the copy holds no count of the packets received to weigh them against)"
                )
                + ": the adapter did not take in the traffic as fast as it came and held its "
                "link partner back",
            )
        )
    # (the pauses its link partner sent it, weighed as the ones it sends are, against the
    # packets it sent: past them the network could not take this port's traffic in)
    got = pauses_received(stats)
    sent = sent_packets(stats)
    if (
        got is not None
        and got[1] >= PAUSES_SENT_MIN
        and (not sent or got[1] / sent >= PAUSES_SENT_SHARE)
    ):
        said.append(
            (
                got[0],
                got[1],
                "pause frames the port received since its driver started"
                + (
                    f", {got[1] / sent:.2g} a packet sent"
                    if sent
                    else " (the copy holds no count of the packets sent to weigh them against)"
                )
                + ": its link partner (the switch port) did not take in the traffic as fast as "
                "this port sent it and held it back",
            )
        )
    for name in _PAUSE_STORMS:
        if stats.counters.get(name):
            said.append(
                (
                    name,
                    stats.counters[name],
                    "pause storms: the device stalled sending pauses"
                    + (", and stopped sending them" if name.endswith("error_events") else ""),
                )
            )
    for name in _PCIE_SIGNAL:
        if stats.counters.get(name):
            said.append(
                (
                    name,
                    stats.counters[name],
                    "PCIe signal-integrity errors: the NIC's PCIe link went into recovery on "
                    "framing or CRC errors (a slot, riser or card fault if it keeps growing)",
                )
            )
    return said


_IFACE_NAMED_RE = re.compile(
    r"\bethtool\s+-S\s+(?P<iface>[A-Za-z][\w.@-]*)\s*(?:\||$)"
    # (sosreport's file of that output, grepped: "sos_commands/networking/ethtool_-S_eth1")
    r"|\bethtool_-S_(?P<iface3>[A-Za-z][\w.@-]*)\s*$|^\s*={2,}\s*(?P<iface2>[A-Za-z][\w.@-]*)\s*={0,}\s*$"
)


# grep's "FILE:" before each line where it reads several files, a sosreport's ethtool -S output
# file naming the interface (grep pause sos_commands/networking/ethtool_-S_*)
_GREP_FILE_RE = re.compile(r"^[^\s:]{0,300}?ethtool_-S_(?P<iface>[A-Za-z][\w.@-]{0,63}):(?=[ \t])")
# the pdsh command line above a pdsh copy (no host's output), the interface it names
_PDSH_CMD_RE = re.compile(r"^[^\n]{0,200}?\bpdsh\b[^\n]{0,400}?\bethtool\b")


def parse(text: str) -> list[NicStats]:
    """Each ``NIC statistics:`` block (or headless copy's block: one a command line or grep file
    names), per host in a pdsh copy; ParseError when none has a counter."""
    parts = pdsh_by_host(text, _PDSH_CMD_RE)
    if parts[0][0] is not None:
        command = next((line for line in text.splitlines() if _PDSH_CMD_RE.match(line)), "")
        said = _IFACE_NAMED_RE.search(command)
        iface = said.group("iface") if said else None
        per_host: list[NicStats] = []
        try:
            for host, part in parts:
                for b in _parse_blocks(part):
                    b.host, b.iface = host, b.iface or iface
                    per_host.append(b)
        except ParseError:
            per_host = []  # a part with no counter: the "host: " was no host (a counter's name)
        if per_host:
            return per_host
    return _parse_blocks(text)


def _parse_blocks(text: str) -> list[NicStats]:
    blocks: list[NicStats] = []
    named: str | None = None  # the interface the last command or heading above named
    headless = "NIC statistics:" not in text
    fresh = False  # a command line (or grep's file) named an interface since the last counter
    for no, line, _ in numbered_lines(text):
        if headless and (g := _GREP_FILE_RE.match(line)):
            fresh = fresh or g.group("iface") != named
            named = g.group("iface")
            line = line[g.end() :]
        if headless and (hm := _HEADLESS_COUNTER_RE.match(line)):
            # (the copy kept the counters only: a block from its first counter, and one from
            # the first counter under each command line or grep's file naming an interface,
            # so one interface's counters are not taken for another's)
            if not blocks or fresh:
                blocks.append(NicStats(line=no, iface=named))
                fresh = False
            value = int(hm.group("value"))
            blocks[-1].counters[hm.group("name")] = value
            blocks[-1].counter_lines[hm.group("name")] = no
            if value and _is_loss(hm.group("name")):
                blocks[-1].losses[hm.group("name")] = value
            continue
        if line.strip() == "NIC statistics:":
            blocks.append(NicStats(line=no, iface=named))
            named = None
            continue
        if n := _IFACE_NAMED_RE.search(line):
            named = n.group("iface") or n.group("iface2") or n.group("iface3")
            fresh = True
            continue
        if blocks and (m := _COUNTER_RE.match(line)):
            value = int(m.group("value"))
            blocks[-1].counters[m.group("name")] = value
            blocks[-1].counter_lines[m.group("name")] = no
            if value and _is_loss(m.group("name")):
                blocks[-1].losses[m.group("name")] = value
    blocks = [b for b in blocks if b.counters]
    if not blocks:
        raise ParseError("no 'NIC statistics:' block with counters")
    return blocks


# An RDMA device port's hardware counters as Mellanox's show_counters prints them ("Port 1 hw
# counters:" then "out_of_buffer: 135" a line): the kernel's mlx5 hw_counters (sysfs
# .../infiniband/<dev>/ports/<n>/hw_counters/), the device named by the command line above
HW_COUNTERS_SIGNATURE = (
    r"^[ \t]*Port \d+ hw counters:[ \t]*\r?\n[ \t]*[a-z][\w]*: \d+[ \t]*$"
    # the same counters through iproute2's ``rdma statistic show [link DEV/PORT]`` (rdma/stat.c
    # stat_show_link / res_get_hwcounters: "link %s/" "%u ", then " name value " a counter; from
    # 2019's first form (iproute2 a7137e5) on one line; under -p, and always since iproute2
    # f962b24a (2024-01, "rdma: make pretty behave like other commands"), each counter on its own
    # line after newline_indent's four spaces). A link's head with two counters
    # or more on its line, or with one on the indented line under it: ``rdma link``'s "link
    # mlx5_0/1 state ACTIVE ..." has words for values, the qp counters' "cntn 4 qp-type RC" too
    r"|^[ \t]*link [\w.-]{1,64}/\d{1,3}(?:[ \t]+[a-z]\w{0,100}[ \t]+\d{1,20}){2,64}[ \t]*$"
    r"|^[ \t]*link [\w.-]{1,64}/\d{1,3}[ \t]*\r?\n[ \t]+[a-z]\w{0,100}[ \t]+\d{1,20}[ \t]*$"
)
_STAT_LINK_RE = re.compile(
    r"^\s*link (?P<dev>[\w.-]{1,64})/(?P<port>\d{1,3})(?P<rest>(?:\s[^\n]*)?)$"
)
# a line of " name value" pairs only (the one-line form a copy wrapped, or one counter a line)
_STAT_PAIRS_RE = re.compile(r"(?:[ \t]+[a-z]\w{0,100}[ \t]+\d{1,20}){1,64}[ \t]*")
_STAT_PAIR_RE = re.compile(r"(?P<name>[a-z]\w{0,100})[ \t]+(?P<value>\d{1,20})")
# (the mlx5 counters of loss and retransmission whose names hold no loss word: Linux 0ad17a8f
# "IB/mlx5: Add port protocol stats", out_of_sequence "Number of errors in the packet transport
# sequence number"; NVIDIA's "Understanding mlx5 Linux counters and status parameters" files
# duplicate_request under its Error group, "Number of received packets. A duplicate request is
# a request that had been previously executed": the requester sent it again, its packet or
# its ACK lost; Linux d7fab916 "IB/mlx5: Expose RoCE accelerator counters", roce_adp_retrans
# "number of adaptive retransmission for RoCE traffic" and roce_adp_retrans_to "number of
# times RoCE traffic reached time out due to adaptive retransmission": packets sent again
# after no ACK came. roce_slow_restart, the same commit's rate-control event, is no loss.)
_RDMA_ERROR_NAMES = frozenset(
    {"out_of_sequence", "duplicate_request", "roce_adp_retrans", "roce_adp_retrans_to"}
)
_HW_HEAD_RE = re.compile(r"^\s*Port (?P<port>\d+) hw counters:\s*$")
_HW_COUNTER_RE = re.compile(r"^\s*(?P<name>[a-z][\w]*): (?P<value>\d+)\s*$")
_HW_DEVICE_RE = re.compile(r"\bshow_counters\s+(?P<dev>[\w-]+)|/infiniband/(?P<dev2>[\w-]+)/ports/")


@dataclass(kw_only=True)
class HwCounters:
    line: int
    device: str | None
    port: int
    counters: dict[str, int] = field(default_factory=dict)
    losses: dict[str, int] = field(default_factory=dict)
    """The counters of errors and drops that are not 0 (req_cqe_error, out_of_buffer ...)."""
    tool: str = "show_counters"
    """``show_counters`` or ``rdma statistic`` (iproute2's, one block a link)."""


def _stat_pairs(block: HwCounters, text: str) -> None:
    """``rdma statistic``'s " name value" pairs of ``text`` into ``block``."""
    for m in _STAT_PAIR_RE.finditer(text):
        name, value = m.group("name"), int(m.group("value"))
        block.counters[name] = value
        if value and (_is_loss(name) or name in _RDMA_ERROR_NAMES):
            block.losses[name] = value


def parse_hw_counters(text: str) -> list[HwCounters]:
    """Each ``Port N hw counters:`` block with its device, and each ``rdma statistic`` link with
    its counters; ParseError when none has a counter."""
    blocks: list[HwCounters] = []
    device: str | None = None
    stat: HwCounters | None = None  # the ``rdma statistic`` link whose counters go on
    for no, line, _ in numbered_lines(text):
        if link := _STAT_LINK_RE.match(line):
            rest = link.group("rest")
            stat = None
            if not rest.strip() or _STAT_PAIRS_RE.fullmatch(rest):
                stat = HwCounters(
                    line=no,
                    device=link.group("dev"),
                    port=int(link.group("port")),
                    tool="rdma statistic",
                )
                blocks.append(stat)
                _stat_pairs(stat, rest)
            continue
        if stat is not None:
            if _STAT_PAIRS_RE.fullmatch(" " + line):
                _stat_pairs(stat, line)
                continue
            stat = None
        if d := _HW_DEVICE_RE.search(line):
            device = d.group("dev") or d.group("dev2")
            continue
        if h := _HW_HEAD_RE.match(line):
            blocks.append(HwCounters(line=no, device=device, port=int(h.group("port"))))
            continue
        if blocks and (m := _HW_COUNTER_RE.match(line)):
            value = int(m.group("value"))
            blocks[-1].counters[m.group("name")] = value
            # (the same kernel hw_counters as rdma statistic's: the same names of loss)
            if value and (_is_loss(m.group("name")) or m.group("name") in _RDMA_ERROR_NAMES):
                blocks[-1].losses[m.group("name")] = value
        elif blocks and line.strip():
            device = None  # another output: the next block's device is its own command's
    blocks = [b for b in blocks if b.counters]
    if not blocks:
        raise ParseError("no 'Port N hw counters:' block or rdma statistic link with counters")
    return blocks


# pdsh's "node12: " before each line of a host's output (dshbak(1): "the leading node: is
# stripped"; ``pdsh -w node[12-13] ethtool bond0``): any host name, taken only where the line
# after it is ethtool's own (its "Settings for IFACE:" head, or that host's block below it)
_PDSH_HOST = r"[A-Za-z0-9][\w.-]{0,252}: "
_PDSH_HOST_RE = re.compile(r"^(?P<host>[A-Za-z0-9][\w.-]{0,252}): ")
# (an ethtool key line right under it: a log's own "Settings for training:" is no port; pdsh's
# host before both, or before neither)
SETTINGS_SIGNATURE = (
    r"^[ \t]*Settings for [\w.:@-]+:[ \t]*\r?\n(?:[^\n]*\n){0,2}?[ \t]*(?:Supported ports|"
    r"Supported link modes|Speed|Link detected|Cannot get \w[\w -]*(?: settings)?):"
    rf"|^{_PDSH_HOST}Settings for [\w.:@-]+:[ \t]*\r?\n{_PDSH_HOST}[ \t]*(?:Supported ports|"
    r"Supported link modes|Speed|Link detected|Cannot get \w[\w -]*(?: settings)?):"
)
_SETTINGS_HEAD_RE = re.compile(r"^\s*Settings for (?P<iface>[\w.:@-]+):\s*$")
_SETTING_RE = re.compile(r"^\s+(?P<key>[A-Z][\w -]*?):\s*(?P<value>.*?)\s*$")
_CANNOT_RE = re.compile(r"^\s*Cannot get (?P<what>[\w -]+?)(?: settings)?: (?P<why>.+?)\s*$")


_MODE_LISTS = {
    "Supported link modes": "supported_modes",
    "Advertised link modes": "advertised_modes",
    "Link partner advertised link modes": "partner_modes",
}


@dataclass(kw_only=True)
class LinkSettings:
    """``ethtool IFACE``: a port's link settings as the driver reports them (ethtool's
    ``Settings for IFACE:`` block; as a user without CAP_NET_ADMIN, ethtool says it cannot get
    the wake-on-lan settings and prints the rest its driver gives)."""

    line: int
    iface: str
    speed: str = ""
    """As printed: ``100000Mb/s``, or ``Unknown!`` when the link is down."""
    duplex: str = ""
    autoneg: str = ""
    port: str = ""
    link_detected: bool | None = None
    link_line: int = 0
    supported_modes: list[str] = field(default_factory=list)
    advertised_modes: list[str] = field(default_factory=list)
    partner_modes: list[str] = field(default_factory=list)
    """The link partner's advertised modes (what the switch port or peer NIC offers)."""
    speed_line: int = 0
    refused: list[str] = field(default_factory=list)
    """What ethtool could not get ("wake-on-lan settings: Operation not permitted")."""
    cut: bool = False
    """The copy ends before the block's ``Link detected`` line."""
    host: str | None = None
    """The host the last shell prompt above the block names (``[root@node12 ~]# ethtool bond0``),
    or pdsh's before its lines (``node12: Settings for bond0:``): a copy of several hosts' blocks
    tells their ports apart by it. None where neither names one."""

    @property
    def speed_mbps(self) -> int | None:
        """The speed it runs at in Mb/s ("100000Mb/s"), None when unknown ("Unknown!")."""
        m = re.match(r"(\d+)Mb/s", self.speed)
        return int(m.group(1)) if m else None


def parse_settings(text: str) -> list[LinkSettings]:
    """Each ``Settings for IFACE:`` block; ParseError when none."""
    blocks: list[LinkSettings] = []
    key = ""
    host: str | None = None
    # under pdsh: each host's block still open, and the key its last line set (pdsh prints the
    # hosts' lines as they come, so two hosts' blocks may interleave)
    pdsh_open: dict[str, tuple[LinkSettings, str]] = {}
    raw = text.splitlines()
    for no, line, _ in numbered_lines(text):
        if "@" in line and (prompt := MARKED_PROMPT_HOST_RE.match(line)):
            host, key = prompt["host"], ""
            pdsh_open.clear()  # (another command's output from here)
            continue
        # (pdsh's host from the line as written: numbered_lines takes an address's "10.0.0.12: "
        # off as a launcher's prefix)
        if p := _PDSH_HOST_RE.match(raw[no - 1]):
            on, rest = p["host"], raw[no - 1][p.end() :].rstrip("\r")
            if m := _SETTINGS_HEAD_RE.match(rest):
                pdsh_open[on] = (LinkSettings(line=no, iface=m.group("iface"), host=on), "")
                blocks.append(pdsh_open[on][0])
                continue
            if on in pdsh_open:
                b, key = pdsh_open[on]
                key = _read_setting(b, no, rest, key)
                pdsh_open[on] = (b, key)
                continue
        if m := _SETTINGS_HEAD_RE.match(line):
            blocks.append(LinkSettings(line=no, iface=m.group("iface"), host=host))
            key = ""
            pdsh_open.clear()  # (a block with no host's prefix: pdsh's output ended above)
            continue
        if not blocks or pdsh_open:
            continue  # (under pdsh, a line with no host of a block is none of theirs)
        key = _read_setting(blocks[-1], no, line, key)
    if not blocks:
        raise ParseError("no ethtool 'Settings for IFACE:' block")
    for b in blocks:
        b.cut = b.link_detected is None
    return blocks


def _read_setting(b: LinkSettings, no: int, line: str, key: str) -> str:
    """One line of a ``Settings for`` block read into it; the key it leaves open (a mode list
    goes on over the lines under it)."""
    if m := _CANNOT_RE.match(line):
        b.refused.append(f"{m.group('what')}: {m.group('why')}")
        return key
    if m := _SETTING_RE.match(line):
        key, value = m.group("key"), m.group("value")
        if key == "Speed":
            b.speed, b.speed_line = value, no
        elif key == "Duplex":
            b.duplex = value
        elif key == "Auto-negotiation":
            b.autoneg = value
        elif key == "Port":
            b.port = value
        elif key == "Link detected":
            b.link_detected = value.lower().startswith("yes")
            b.link_line = no
        elif key in _MODE_LISTS:
            getattr(b, _MODE_LISTS[key]).extend(value.split())
        return key
    if key in _MODE_LISTS and line.startswith((" ", "\t")) and line.strip():
        getattr(b, _MODE_LISTS[key]).extend(line.split())
    return key


def best_common_mbps(b: LinkSettings) -> int | None:
    """The fastest full-duplex speed both this port and its link partner advertise, None when
    the copy lacks either list."""
    ours = {_mode_mbps(m) for m in b.advertised_modes if m.endswith("/Full")} - {None}
    theirs = {_mode_mbps(m) for m in b.partner_modes if m.endswith("/Full")} - {None}
    common = ours & theirs
    return max(common) if common else None  # type: ignore[type-var]


def _mode_mbps(mode: str) -> int | None:
    m = re.match(r"(\d+)base", mode)
    return int(m.group(1)) if m else None


def fastest_mode_mbps(modes: list[str]) -> int | None:
    """The fastest of a port's supported link modes ("100000baseCR4/Full"), in Mb/s."""
    speeds = [int(m.group(1)) for mode in modes if (m := re.match(r"(\d+)base", mode))]
    return max(speeds) if speeds else None


# ethtool -m IFACE (--module-info): the transceiver's EEPROM decoded, "Key : value" a line
# (ethtool's sfpid.c / qsfp.c / cmis.c): "Identifier : 0x11 (QSFP28)", "Transceiver type : 40G
# Ethernet: 40G Base-CR4" (one line per code), "Vendor name", "Vendor PN", "Length (Copper or
# Active cable) : 3m", and on optics their readings and alarm flags ("... alarm : On").
# An optic's power readings, "mW / dBm" (sff-common.c PRINT_xX_PWR), are also kept alone, as ops
# teams grep them (``ethtool -m swp1 | grep dBm``): the Identifier line is then not in the copy
MODULE_SIGNATURE = (
    r"^[ \t]*Identifier[ \t]+:[ \t]*0x[0-9a-fA-F]{2} \((?:SFP|QSFP|OSFP|CMIS|GBIC)[^)\n]*\)"
    r"|^[ \t]*(?:Laser output power|Receiver signal average optical power|Receiver signal OMA"
    r"|Transmit avg optical power|Rcvr signal avg optical power|Rcvr signal OMA)"
    # (one run of blanks before the colon: two around an optional group try every split of it)
    r"[ \t]*(?:\(Channel \d+\)[ \t]*)?:[ \t]*[0-9.]+ mW / "
    # the module's temperature alone, as "ethtool -m IFACE | grep temperature" keeps it
    # (sff-common.c module_show_dom_mod_lvl_monitors: PRINT_TEMP("Module temperature", ...),
    # printed "%-41s : %.2f degrees C / %.2f degrees F")
    r"|^[ \t]*Module temperature[ \t]*:[ \t]*-?[0-9.]+ degrees C\b"
)
# (the key's words one run each, the value from its first non-blank to its last: a lazy key or
# value beside a run of blanks tries every split of it, quadratic on a long one)
_MODULE_FIELD_RE = re.compile(
    r"^\s*(?P<key>[A-Z][\w()/.,-]*(?:[ ]+[\w()/.,-]+)*)\s+:\s*(?P<value>\S(?:.*\S)?)\s*$"
)
_MODULE_CMD_RE = re.compile(
    r"\bethtool\s+(?:-m|--module-info|--dump-module-eeprom)\s+(?P<iface>[\w.:-]+)"
)
# A port's name alone on its line, as a loop prints it above each port's output (``for i in swp1
# swp2; do echo $i; ethtool -m $i | grep dBm; done``); taken for a port only where power lines
# follow it. (One run of blanks before an optional colon and its own: linear on a long run.)
_MODULE_ECHOED_IFACE_RE = re.compile(r"^[ \t]*(?P<iface>[A-Za-z][\w.@-]*)[ \t]*(?::[ \t]*)?$")


@dataclass(kw_only=True)
class ModuleInfo:
    line: int
    iface: str | None
    identifier: str
    host: str | None = None
    """The host a loop over hosts echoed above it (``for h in a b; do echo $h; ssh $h "ethtool -m
    eth2"; done``), None where the copy names none."""
    connector: str | None = None
    transceiver: list[str] = field(default_factory=list)
    vendor: str | None = None
    part: str | None = None
    length: list[str] = field(default_factory=list)
    alarms_on: list[str] = field(default_factory=list)
    """The alarm and warning flags the module reads as On (its optics out of their range)."""
    powers: list[ModulePower] = field(default_factory=list)
    """Its optical power readings (Tx, Rx; one per lane on a QSFP or CMIS module)."""
    thresholds_mw: dict[str, float] = field(default_factory=dict)
    """Its own power thresholds by "tx|rx high|low alarm|warning", in mW."""
    temperature_c: float | None = None
    """Its "Module temperature" reading, in degrees C (None where the copy has none)."""
    temperature_line: int | None = None
    temperature_thresholds_c: dict[str, float] = field(default_factory=dict)
    """Its own temperature thresholds by "high|low alarm|warning", in degrees C."""
    flags_off: int = 0
    """How many of its alarm and warning flags read Off."""


@dataclass(kw_only=True)
class ModulePower:
    line: int
    key: str
    """As printed: "Receiver signal average optical power", "Rcvr signal avg optical
    power(Channel 2)"."""
    direction: str
    """"tx" or "rx"."""
    mw: float
    reading: str
    """The reading as printed ("0.5806 mW / -2.36 dBm")."""


# The readings and thresholds ethtool prints per direction (sff-common.c sff_show_thresholds:
# "Laser output power high alarm threshold", "Laser rx power low warning threshold"; sfpdiag.c
# "Laser output power", "Receiver signal average optical power" or "Receiver signal OMA";
# qsfp.c and cmis.c per lane, "Transmit avg optical power (Channel 1)", "Rcvr signal avg optical
# power(Channel 1)"). mW is always printed, dBm is -inf at 0 mW: mW is what is compared.
_POWER_READING_RE = re.compile(
    r"^(?:(?P<tx>Laser output power|Transmit avg optical power)"
    r"|(?P<rx>Receiver signal average optical power|Receiver signal OMA|Rcvr signal avg optical power"
    r"|Rcvr signal OMA))\s*(?:\(Channel \d+\))?$",
    re.I,
)
_POWER_THRESHOLD_RE = re.compile(
    r"^Laser (?:(?P<tx>output)|(?P<rx>rx)) power (?P<bound>high|low) (?P<level>alarm|warning) threshold$",
    re.I,
)
_MW_RE = re.compile(r"^(?P<mw>[0-9]+(?:\.[0-9]+)?) mW\b")
# the module's temperature and its own thresholds (sff-common.c: PRINT_TEMP("Module temperature",
# ...) and sff_show_thresholds' "Module temperature high alarm threshold" .. "low warning
# threshold", each "%.2f degrees C / %.2f degrees F")
_TEMP_THRESHOLD_RE = re.compile(
    r"^Module temperature (?P<bound>high|low) (?P<level>alarm|warning) threshold$", re.I
)
_DEGREES_C_RE = re.compile(r"^(?P<c>-?[0-9]+(?:\.[0-9]+)?) degrees C\b")


def _threshold_key(threshold: re.Match[str]) -> str:
    """A ``_POWER_THRESHOLD_RE`` match's key in ``ModuleInfo.thresholds_mw``."""
    direction = "tx" if threshold.group("tx") else "rx"
    return f"{direction} {threshold.group('bound').lower()} {threshold.group('level').lower()}"


def _another_module(mod: ModuleInfo, key: str, threshold: re.Match[str] | None) -> bool:
    """Whether a power line ``key`` (a threshold's where ``threshold`` is its match) in a grep'd
    copy starts the module after ``mod``: ethtool prints a module's readings once each, then its
    thresholds (sff-common.c sff_show_thresholds, after sfpdiag.c's, qsfp.c's or cmis.c's
    readings), each from that module's own EEPROM; its first reading seen again, a reading
    after the thresholds or a threshold seen again is another port's. A decode with its Identifier is
    never split here: its next Identifier starts the next."""
    if mod.identifier:
        return False
    if threshold is not None:
        return _threshold_key(threshold) in mod.thresholds_mw
    # (a module's readings repeat in the same order: the next module's first is this one's first)
    return bool(mod.thresholds_mw) or (bool(mod.powers) and mod.powers[0].key == key)


def garbled_thresholds(mod: ModuleInfo) -> dict[str, str]:
    """The module's threshold sets that contradict themselves, by "tx", "rx" or "temperature":
    a high alarm threshold at or under its low alarm one. SFF-8472 (Table 9-5) sets each high
    alarm above its low alarm, the warnings inside them; a set with high <= low is a misread or
    corrupt EEPROM page A2h, so no reading can be judged against it."""
    out = {}
    for direction in ("tx", "rx"):
        high = mod.thresholds_mw.get(f"{direction} high alarm")
        low = mod.thresholds_mw.get(f"{direction} low alarm")
        if high is not None and low is not None and high <= low:
            out[direction] = f"high alarm {high:g} mW, low alarm {low:g} mW"
    high_c = mod.temperature_thresholds_c.get("high alarm")
    low_c = mod.temperature_thresholds_c.get("low alarm")
    if high_c is not None and low_c is not None and high_c <= low_c:
        out["temperature"] = f"high alarm {high_c:g} C, low alarm {low_c:g} C"
    return out


# the module's own power flags (sfpdiag.c sff8472_aw_flags: "Laser output power high alarm",
# "Laser rx power low warning" ...; qsfp.c per channel "Laser tx power high alarm (Chan 1)",
# "Laser rx power ..."), by direction: what its own monitor says where its thresholds are garbled
_TX_FLAG_PREFIXES = ("laser output power ", "laser tx power ", "transmit avg optical power ")
_RX_FLAG_PREFIXES = ("laser rx power ", "rcvr signal ", "receiver signal ")


def _power_flags_on(mod: ModuleInfo, direction: str) -> list[str]:
    """The module's alarm and warning flags On for ``direction``'s optical power."""
    prefixes = _TX_FLAG_PREFIXES if direction == "tx" else _RX_FLAG_PREFIXES
    return [f for f in mod.alarms_on if f.lower().startswith(prefixes)]


def module_power_faults(mod: ModuleInfo) -> list[tuple[str, ModulePower, str]]:
    """Each power reading past the module's own thresholds: ("alarm" or "warning", the reading,
    in words), an alarm where it is past both. SFF-8472 and SFF-8636 set a warning threshold
    inside the alarm one: past a warning the optic is drifting, past an alarm out of its range.
    Where a direction's thresholds contradict themselves (``garbled_thresholds``) nothing is
    compared to them: the module's own flag On for that direction is said instead, as a warning
    (its diagnostics are unreadable, so even its flag is not proof of a dead optic)."""
    out = []
    garbled = garbled_thresholds(mod)
    flagged: set[str] = set()
    for p in mod.powers:
        if p.direction in garbled:
            if p.direction in flagged or not (flags := _power_flags_on(mod, p.direction)):
                continue
            flagged.add(p.direction)
            out.append(
                (
                    "warning",
                    p,
                    f"{p.key} {p.reading}: the module's own {', '.join(flags[:4])} flag(s) On, "
                    f"but its {p.direction.capitalize()} power thresholds contradict themselves "
                    f"({garbled[p.direction]}): its diagnostics (DOM) are unreadable, not "
                    "judged against them",
                )
            )
            continue
        for level in ("alarm", "warning"):
            high = mod.thresholds_mw.get(f"{p.direction} high {level}")
            low = mod.thresholds_mw.get(f"{p.direction} low {level}")
            said = None
            if high is not None and p.mw > high:
                said = f"{p.key} {p.reading}: over its high {level} threshold {high:g} mW"
            elif low is not None and p.mw < low:
                said = f"{p.key} {p.reading}: under its low {level} threshold {low:g} mW"
            if said:
                out.append((level, p, said))
                break
    return out


def parse_module(text: str) -> list[ModuleInfo]:
    """Each ``ethtool -m`` decode in ``text``, or its power lines kept alone (the module's
    ``identifier`` then empty); ParseError when none."""
    out: list[ModuleInfo] = []
    iface: str | None = None
    host: str | None = None
    echoed: str | None = None  # a port's (or a host's) name alone on the line above (a loop's echo)
    # the port the last command line names itself ("ethtool -m eth2", not a loop's "$i"): a
    # word echoed above its output is then not a port but what the loop runs over, its hosts
    named: str | None = None
    for no, line in enumerate(text.splitlines(), 1):
        if c := _MODULE_CMD_RE.search(line):
            iface = named = c.group("iface")
            continue
        if (f := _MODULE_FIELD_RE.match(line)) is None:
            if e := _MODULE_ECHOED_IFACE_RE.match(line):
                echoed = e.group("iface")
            elif line.strip():
                echoed = None
            continue
        if echoed is not None and named is not None and iface in (None, named):
            iface = named
            host = echoed if echoed != named else None
        elif echoed is not None and iface is None:
            iface = echoed
        echoed = None
        key, value = f.group("key"), f.group("value")
        if key == "Identifier":
            paren = re.search(r"\(([^)]*)\)", value)
            out.append(
                ModuleInfo(
                    line=no,
                    iface=iface,
                    identifier=paren.group(1) if paren else value,
                    host=host,
                )
            )
            iface = host = None
            continue
        power = _POWER_READING_RE.match(key)
        threshold = None if power else _POWER_THRESHOLD_RE.match(key)
        mw = _MW_RE.match(value) if power or threshold else None
        temp = key == "Module temperature" or _TEMP_THRESHOLD_RE.match(key) is not None
        degrees = _DEGREES_C_RE.match(value) if temp else None
        if degrees and (
            not out
            or iface is not None
            # (a module prints its temperature once: a second one, grep'd, is the next port's)
            or (key == "Module temperature" and out[-1].temperature_c is not None)
        ):
            # a copy grep'd to the temperature lines: no Identifier, no power line above them
            out.append(ModuleInfo(line=no, iface=iface, identifier="", host=host))
            iface = host = None
        if mw and (not out or iface is not None or _another_module(out[-1], key, threshold)):
            # a grep'd copy: its power lines with no Identifier above them (a new command's
            # interface, or a line the module already has, starts a new module)
            out.append(ModuleInfo(line=no, iface=iface, identifier="", host=host))
            iface = host = None
        if not out:
            continue
        mod = out[-1]
        if mw and power:
            mod.powers.append(
                ModulePower(
                    line=no,
                    key=key,
                    direction="tx" if power.group("tx") else "rx",
                    mw=float(mw.group("mw")),
                    reading=value,
                )
            )
            continue
        if mw and threshold:
            mod.thresholds_mw[_threshold_key(threshold)] = float(mw.group("mw"))
            continue
        if degrees and key == "Module temperature":
            mod.temperature_c, mod.temperature_line = float(degrees.group("c")), no
            continue
        if degrees and (t := _TEMP_THRESHOLD_RE.match(key)):
            bound, level = t.group("bound").lower(), t.group("level").lower()
            mod.temperature_thresholds_c[f"{bound} {level}"] = float(degrees.group("c"))
            continue
        if key == "Connector":
            paren = re.search(r"\(([^)]*)\)", value)
            mod.connector = paren.group(1) if paren else value
        elif key == "Transceiver type":
            mod.transceiver.append(value)
        elif key == "Vendor name":
            mod.vendor = value
        elif key == "Vendor PN":
            mod.part = value
        elif key.startswith("Length (") and value not in ("0m", "0km"):
            mod.length.append(f"{key[len('Length (') : -1]} {value}")
        elif ("alarm" in key or "warning" in key) and value == "On":
            mod.alarms_on.append(key)
        elif ("alarm" in key or "warning" in key) and value == "Off":
            mod.flags_off += 1
    if not out:
        raise ParseError(
            "no ethtool -m module decode ('Identifier : 0x.. (QSFP28)'), no power or"
            " temperature reading"
        )
    return out


# ethtool -i IFACE (--driver): the driver's ETHTOOL_GDRVINFO answer, one "key: value" a line in
# a fixed order (ethtool.c dump_drvinfo: "driver:", "version:", "firmware-version:",
# "expansion-rom-version:", "bus-info:", then the "supports-...: yes|no" lines). It says what
# drives the port, not how its link is: no state in it is judged.
DRIVER_SIGNATURE = (
    r"^[ \t]*driver: \S+[ \t]*\r?\n(?:[ \t]*version: [^\n]*\n)?[ \t]*firmware-version: "
)
_DRIVER_FIELD_RE = re.compile(r"^[ \t]*(?P<key>[a-z][a-z-]*):(?P<value>.*)$")
_DRIVER_CMD_RE = re.compile(r"\bethtool\s+(?:-i|--driver)\s+(?P<iface>[\w.:@-]+)")
_DRIVER_KEYS = frozenset(
    {"driver", "version", "firmware-version", "expansion-rom-version", "bus-info"}
)


@dataclass(kw_only=True)
class DriverInfo:
    line: int
    """The line of its ``driver:``."""
    iface: str | None
    """The interface the command above names (``ethtool -i eth0``); None where none does."""
    driver: str
    version: str = ""
    firmware: str = ""
    bus: str = ""
    """``bus-info``: the port's PCI address (``0000:04:00.0``), or the bus's name."""


def parse_driver(text: str) -> list[DriverInfo]:
    """Each ``ethtool -i`` answer in ``text``; ParseError when none."""
    out: list[DriverInfo] = []
    iface: str | None = None
    for no, line in enumerate(text.splitlines(), 1):
        if c := _DRIVER_CMD_RE.search(line):
            iface = c.group("iface")
            continue
        if (f := _DRIVER_FIELD_RE.match(line)) is None or f.group("key") not in _DRIVER_KEYS:
            continue
        key, value = f.group("key"), f.group("value").strip()
        if key == "driver":
            out.append(DriverInfo(line=no, iface=iface, driver=value))
            iface = None
        elif out and key == "version" and not out[-1].version:
            out[-1].version = value
        elif out and key == "firmware-version":
            out[-1].firmware = value
        elif out and key == "bus-info":
            out[-1].bus = value
    out = [d for d in out if d.driver]
    if not out:
        raise ParseError("no ethtool -i answer ('driver: ...' over 'firmware-version: ...')")
    return out
