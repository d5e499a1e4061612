"""``hccn_tool`` outputs: one parser per ``-g`` query, and :func:`parse_bundle` for saved files.

A saved file may hold one bare output (``link status: UP``) or a collection such as MindCluster's
``npu_info_before.txt``: each output preceded by its command line
(``/usr/local/Ascend/driver/tools/hccn_tool -i 0 -link -g``), which names the device.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

from advisor.parsers import (
    NEXT_COMMAND_RE,
    PROMPT_HOST_RE,
    ParseError,
    ParseWarning,
    numbered_lines,
)

NET_HEALTH_OK = ("Success",)
"""``net health status`` values that mean the port reaches its detect address."""


@dataclass(kw_only=True)
class Link:
    status: str
    """UP or DOWN as printed."""
    up: bool


@dataclass(kw_only=True)
class NetHealth:
    status: str
    """Success, Init, Fault, Socket fail, Receive timeout, Unreachable, Time exceeded ..."""
    healthy: bool
    """True only for a status in NET_HEALTH_OK."""


@dataclass(kw_only=True)
class IpConfig:
    ipaddr: str | None
    """None when no address was preset on the port."""
    netmask: str | None
    preset: bool = True
    """False when hccn_tool said ``Get ipconf failed, because no ip was preset there!``."""


NO_IP_RE = re.compile(r"Get ipconf failed, because no ip was preset there")
"""What ``hccn_tool -i N -ip -g`` prints for a port that has no device IP (quoted by a public
Ascend P2P connector guide's device-IP check: such an NPU's P2P transfer fails)."""


@dataclass(kw_only=True)
class TlsCert:
    """One certificate block of ``-tls -g`` (``[pub cert]``, ``[ca1 cert]``, ``[crl]`` ...)."""

    name: str
    end_time: str | None
    """As printed (``Mon Mar  2 03:10:27 2026 GMT``)."""
    status: int | None
    """``tls expiration status[N]``: 0 normal, 1 near expiration, 2 has expired (the legend
    printed beside it)."""
    status_text: str | None
    """The legend's word for ``status`` as the output prints it (``near expiration``)."""
    line: int = 0
    """The line of its ``tls expiration status`` (its block's opening line while none is read):
    where a finding about its expiry points, not the port's first line."""


@dataclass(kw_only=True)
class Tls:
    device: int | None
    enabled: bool
    preconfigured: bool | None
    alarm_days: int | None
    certs: list[TlsCert] = field(default_factory=list)


# "dev_id:0, [crl] info:" opens a block; "end_time[...]" and "tls expiration status[1](0:normal,
# 1:near expiration, 2:has expired)" follow (hccn_tool's -tls -g reference example)
# (linear time on a long run: a name is never 400 characters: not each '[' of a long run re-reading
# the rest of the line)
_TLS_CERT_RE = re.compile(r"\[(?P<name>[^\]]{1,400})\] info\s*:")
# (linear time on a long run: a date is never 400 characters: not each 'end_time[' re-reading the
# rest of the line)
_TLS_END_RE = re.compile(r"end_time\[(?P<end>[^\]]{0,400})\]")
_TLS_STATUS_RE = re.compile(r"tls expiration status\[(?P<code>\d+)\](?:\((?P<legend>[^)]*)\))?")


@dataclass(kw_only=True)
class Ping:
    sent: int | None
    received: int | None
    loss_pct: float | None
    timeouts: int
    """``recv time out`` lines: probes that got no answer."""
    target: str | None = None
    reachable: bool = False
    """At least one probe answered."""


def _single(text: str, pattern: str, what: str) -> re.Match[str]:
    for _, line, _ in numbered_lines(text):
        m = re.search(pattern, line)
        if m:
            return m
    raise ParseError(f"no {what!r} line in hccn_tool output")


def parse_link(text: str) -> Link:
    """``hccn_tool -i N -link -g`` → ``link status: UP``."""
    status = _single(text, r"link status\s*:\s*(\w+)", "link status").group(1).upper()
    return Link(status=status, up=status == "UP")


def parse_net_health(text: str) -> NetHealth:
    """``hccn_tool -i N -net_health -g`` → ``net health status: Success``."""
    m = _single(text, r"net health status\s*:\s*(\S.*?)\s*$", "net health status")
    return NetHealth(status=m.group(1), healthy=m.group(1) in NET_HEALTH_OK)


def parse_ip(text: str) -> IpConfig:
    """``hccn_tool -i N -ip -g`` → ``ipaddr:10.0.0.10`` and ``netmask:255.255.255.0``, or the
    failure line of a port with no address (``preset`` False)."""
    if NO_IP_RE.search(text) and not re.search(r"ipaddr\s*:", text):
        return IpConfig(ipaddr=None, netmask=None, preset=False)
    ip = _single(text, r"ipaddr\s*:\s*(\S+)", "ipaddr").group(1)
    mask = re.search(r"netmask\s*:\s*(\S+)", text)
    return IpConfig(ipaddr=ip, netmask=mask.group(1) if mask else None)


def parse_tls(text: str) -> Tls:
    """``hccn_tool -i N -tls -g`` → ``dev_id:0, tls switch[0](0:disable, 1:enable), ...``."""
    m = _single(text, r"tls switch\[(\d)\]", "tls switch")
    dev = re.search(r"dev_id\s*:\s*(\d+)", text)
    pre = re.search(r"tls preconfigured\[(\d)\]", text)
    alarm = re.search(r"alarm time threshold\[(\d+)\]", text)
    certs: list[TlsCert] = []
    for no, line, _ in numbered_lines(text):
        if "info" in line and (c := _TLS_CERT_RE.search(line)):
            certs.append(
                TlsCert(name=c.group("name"), end_time=None, status=None, status_text=None, line=no)
            )
        elif certs and (e := _TLS_END_RE.search(line)):
            certs[-1].end_time = e.group("end").strip() or None
        elif certs and (st := _TLS_STATUS_RE.search(line)):
            code = int(st.group("code"))
            legend = dict(
                (k.strip(), v.strip())
                for k, _, v in (
                    part.partition(":") for part in (st.group("legend") or "").split(",")
                )
            )
            certs[-1].status, certs[-1].status_text = code, legend.get(str(code))
            certs[-1].line = no
    return Tls(
        device=int(dev.group(1)) if dev else None,
        enabled=m.group(1) == "1",
        preconfigured=(pre.group(1) == "1") if pre else None,
        alarm_days=int(alarm.group(1)) if alarm else None,
        certs=certs,
    )


def parse_ping(text: str) -> Ping:
    """``hccn_tool -i N -ping -g address IP``: the summary line and ``recv time out`` lines."""
    summary = re.search(
        r"(\d+) packets? transmitted,\s*(\d+) (?:packets? )?received,\s*([0-9.]+)% packet loss",
        text,
    )
    timeouts = len(re.findall(r"recv time ?out", text))
    target = re.search(r"(?:PING|address)\s+(\d+\.\d+\.\d+\.\d+|[0-9a-fA-F:]+:[0-9a-fA-F:]+)", text)
    if summary is None and timeouts == 0:
        raise ParseError("no ping summary ('N packets transmitted, M received, X% packet loss')")
    received = int(summary.group(2)) if summary else None
    return Ping(
        sent=int(summary.group(1)) if summary else None,
        received=received,
        loss_pct=float(summary.group(3)) if summary else None,
        timeouts=timeouts,
        target=target.group(1) if target else None,
        reachable=bool(received),
    )


def _key_values(text: str, sep: str) -> dict[str, str]:
    out = {}
    for _, line, _ in numbered_lines(text):
        if sep in line and not line.rstrip().endswith(":"):
            key, _, value = line.partition(sep)
            if key.strip() and value.strip():
                out[key.strip()] = value.strip()
    return out


def parse_optical(text: str) -> dict[str, str]:
    """``hccn_tool -i N -optical -g`` → ``{"Tx Power": "4.4035 mW", "present": "present" ...}``."""
    if "optical info" not in text and "Rx Power" not in text and "present" not in text:
        raise ParseError("no 'optical info:' block in hccn_tool output")
    return _key_values(text, ":")


# What an optical module's own readings say is wrong, judged as Ascend's fault-diagnosis tool
# judges ``-optical -g`` (Ascend/mind-cluster, component/ascend-faultdiag, npu_info_parser.py
# OpticalInfoParser): "present : not present"; a lane's Tx or Rx power outside the module's own
# "TxPower/RxPower Low/High Thres" (mW); a Tx/Rx "Los" (loss of signal) or "LoL" (loss of lock)
# flag other than 0x0 or NA.
_OPTICAL_POWER_RE = re.compile(r"^(?P<dir>tx|rx)\s*power\s*(?P<lane>\d*)$", re.I)
_POWER_RE = re.compile(r"^(-?[0-9.]+)\s*(mw|dbm)$", re.I)
_OPTICAL_FLAGS = ("Tx Los Flag", "Rx Los Flag", "Tx LoL Flag", "Rx LoL Flag")


def _optical_key(key: str) -> str:
    return re.sub(r"\s+", "", key).lower()


def _power(value: str) -> tuple[float, str] | None:
    """``"4.4035 mW"`` → ``(4.4035, "mw")``; ``"-2.1 dBm"`` → ``(-2.1, "dbm")``."""
    m = _POWER_RE.match(value.strip())
    return (float(m.group(1)), m.group(2).lower()) if m else None


def _optical_powers(
    optical: dict[str, str],
) -> list[tuple[str, str, str, tuple[float, str] | None]]:
    """Each lane's power reading: (key, value, "tx"|"rx", the number and unit, if readable)."""
    return [
        (key, value, m["dir"].lower(), _power(value))
        for key, value in optical.items()
        if (m := _OPTICAL_POWER_RE.match(key.strip()))
    ]


def _threshold(optical: dict[str, str], direction: str, bound: str) -> tuple[float, str] | None:
    # "TxPower Low Thres" in the outputs seen; spaces and case are not relied on
    want = f"{direction}power{bound}thres"
    for key, value in optical.items():
        if _optical_key(key) == want:
            return _power(value)
    return None


def optical_alarms(optical: dict[str, str]) -> list[str]:
    """The faults an ``-optical -g`` answer shows by its own thresholds and flags, in words."""
    alarms = []
    if optical.get("present", "").strip().lower() == "not present":
        alarms.append("module not present")
    for key, value, direction, power in _optical_powers(optical):
        if power is None:
            continue
        low, high = _threshold(optical, direction, "low"), _threshold(optical, direction, "high")
        unit = "mW" if power[1] == "mw" else "dBm"
        if low is not None and low[1] == power[1] and power[0] < low[0]:
            alarms.append(f"{key} {value} under its low threshold {low[0]} {unit}")
        elif high is not None and high[1] == power[1] and power[0] > high[0]:
            alarms.append(f"{key} {value} over its high threshold {high[0]} {unit}")
    flags = {_optical_key(k): v for k, v in optical.items()}
    for flag in _OPTICAL_FLAGS:
        value = flags.get(_optical_key(flag), "").strip()
        if value and value.lower() not in ("0x0", "0", "na", "0x00"):
            what = "loss of signal" if "los" in flag.lower() else "loss of lock"
            alarms.append(f"{flag} {value} ({what})")
    return alarms


def optical_unjudged(optical: dict[str, str]) -> list[str]:
    """Power readings ``optical_alarms`` could not judge though the output gave thresholds: no
    number and unit read (mW, dBm), or thresholds only in another unit. A module printing no
    thresholds at all is read as it is (older outputs have none); a lane the tool prints ``NA``
    (a DR4 module's unused lanes 2 and 3) is one it does not report."""
    out = []
    for key, value, direction, power in _optical_powers(optical):
        if value.strip().lower() in ("na", "n/a", "not supported", "-"):
            continue
        bounds = [
            b
            for b in (_threshold(optical, d, x) for d in ("tx", "rx") for x in ("low", "high"))
            if b
        ]
        own = [_threshold(optical, direction, x) for x in ("low", "high")]
        if not bounds:
            continue
        if power is None or not any(b is not None and b[1] == power[1] for b in own):
            out.append(f"{key} {value}".strip())
    return out


_COUNTER_NAME_RE = re.compile(r"^[ \t]*(\w+)[ \t]*:")
"""A ``-stat -g`` counter's name ("roce_rx_err_pkt_num:11")."""


def parse_stat(text: str) -> dict[str, int]:
    """``hccn_tool -i N -stat -g`` → counters such as ``roce_qp_status_err_num``."""
    out = {}
    for key, value in _key_values(text, ":").items():
        if value.isdigit():
            out[key] = int(value)
    if not out:
        raise ParseError("no 'name:count' counter in hccn_tool -stat output")
    return out


def parse_route(text: str) -> tuple[list[dict[str, str]], list[int]]:
    """``hccn_tool -i N -route -g`` → ``Routing table:`` then one row per route under a header
    ``Destination Gateway Genmask Flags Metric Ref Use Iface`` (a copy may keep fewer columns,
    e.g. without Metric/Ref/Use: the header names them).

    Returns the routes (keys: the header's column names, lower-cased) and the 1-based offsets,
    within ``text``, of rows under the header that do not have its number of columns."""
    routes: list[dict[str, str]] = []
    bad: list[int] = []
    columns: list[str] = []
    for no, line, _ in numbered_lines(text):
        tokens = line.split()
        if tokens[:2] == ["Destination", "Gateway"]:
            columns = [t.lower() for t in tokens]
            continue
        if columns and (routes or bad) and (not tokens or NEXT_COMMAND_RE.match(line)):
            # the table ends at its first blank line (the kernel's table has none), or where a
            # copy's next command starts ("> cat /etc/hccn.conf")
            break
        if not columns or not tokens:
            continue
        if len(tokens) != len(columns):
            bad.append(no)
            continue
        routes.append(dict(zip(columns, tokens, strict=True)))
    if not columns:
        raise ParseError("no 'Destination Gateway Genmask ...' routing table header")
    return routes, bad


# "hccn_tool -i 0 -arp -g": "arp table:" then one neighbour a line, as Linux's arp -a prints it:
# "(192.168.3.193) at 10:1b:54:92:ed:06 [ether]  on end2v1", "(192.168.1.11) at <incomplete>  on
# end0v3" (no answer from that address)
_ARP_ROW_RE = re.compile(
    r"^\s*\((?P<address>[0-9A-Fa-f.:]+)\) at (?:(?P<mac>[0-9A-Fa-f:]{17})(?: \[\w+\])?|<incomplete>)"
    r"\s+on (?P<iface>\S+)"
)


def parse_arp(text: str) -> tuple[list[dict[str, str | None]], list[int]]:
    """``hccn_tool -i N -arp -g`` → ``{address, mac, iface}`` per neighbour (``mac`` None for an
    ``<incomplete>`` entry: that address never answered), and the 1-based offsets of rows after
    ``arp table:`` that are not in that form."""
    rows: list[dict[str, str | None]] = []
    bad: list[int] = []
    seen = False
    for no, line, _ in numbered_lines(text):
        if re.match(r"^\s*arp table\s*:", line):
            seen = True
            continue
        if not seen or not line.strip():
            continue
        if m := _ARP_ROW_RE.match(line):
            rows.append(
                {"address": m.group("address"), "mac": m.group("mac"), "iface": m.group("iface")}
            )
        else:
            bad.append(no)
    if not seen:
        raise ParseError("no 'arp table:' line")
    return rows, bad


@dataclass(kw_only=True)
class LinkStat:
    """``hccn_tool -i N -link_stat -g``: how often the NPU port's link went up and down."""

    up_count: int | None
    """``link up count``; None when the output has no such line."""
    down_count: int | None
    """``link down count``; None when the output has no such line (some releases print only
    the up count and the change records)."""
    changes: list[tuple[str, str]] = field(default_factory=list)
    """``link change records``, newest first as printed: (time as printed, ``UP``/``DOWN``)."""
    device: int | None = None
    """From the ``[devid N]`` prefix of its lines, when they carry one."""
    die_port: str | None = None
    """Ascend 950's table names the port within the NPU: ``UDie 0 port 4``."""
    change_lines: list[int] = field(default_factory=list)
    """The line (of the text parsed) of each of ``changes``, in their order."""


# (a copy without the colon, "[devid 7]link down count 1", as the HCCL guide's packet-loss case
# prints it)
_LINK_STAT_COUNT = re.compile(r"link (up|down) count[ \t]*:?[ \t]*(\d+)")
_LINK_STAT_RECORD = re.compile(r"^(?:\[dev(?:id|ice) \d+\])?\s*(\S.*?\d{4})\s+LINK (UP|DOWN)\b")
# Ascend 950's boxed table (its HCCN Tool reference, "querying the historical link up and down
# status of a port": ``hccn_tool -g -link_stat -i 0 -u 0 -p 4``): one record a row under
# ``| NPU | UDie | Port | Link_Status | Time_Stamp |``, newest first
_LINK_STAT_ROW = re.compile(
    r"^\|\s*(?P<npu>\d+)\s*\|\s*(?P<udie>\d+)\s*\|\s*(?P<port>\d+)\s*\|\s*LINK_(?P<state>UP|DOWN)"
    r"\s*\|\s*(?P<time>\S.*?)\s*\|\s*$"
)


# ``hccn_tool -i N -lldp -g``: the LLDP neighbour the port hears (its switch), in lldptool's
# layout: each TLV's name on a line of its own ("Chassis ID TLV", "Port ID TLV", "System Name
# TLV", "Management Address TLV" ...) and its value indented under it ("\tIfname: 400GE1/1/20:2",
# "\tIPv4: 26.1.2.3"), up to "End of LLDPDU TLV". vllm-ascend's multi-node check reads the
# switch port with ``hccn_tool -i $i -lldp -g | grep Ifname``; a grep of one TLV over the ports
# keeps the TLV's name and value on one line ("Interface 0: System Name TLV   SW-01").
_LLDP_TLV_RE = re.compile(
    r"^\s*(?:Interface (?P<iface>\d+):\s*)?(?P<tlv>Chassis ID|Port ID|System Name|Port Description"
    r"|Management Address|System Description|System Capabilities|Maximum Frame Size) TLV\b"
    r"[ \t]*(?P<value>\S.*?)?\s*$"
)
LLDP_FIELDS = {
    "Chassis ID": "chassis_id",
    "Port ID": "port_id",
    "System Name": "system_name",
    "Port Description": "port_description",
    "Management Address": "management_address",
    "System Description": "system_description",
    "System Capabilities": "capabilities",
    # the largest frame the switch port takes (IEEE 802.3 TLV): a RoCE MTU above it is dropped
    "Maximum Frame Size": "max_frame_size",
}
_LLDP_SUBTYPE_RE = re.compile(
    r"^(?:MAC|Ifname|IPv4|IPv6|Local|IfAlias|Network Address|System capabilities"
    r"|Enabled capabilities):\s*"
)
"""The subtype label lldptool prints before a TLV's value ("MAC: ...", "Ifname: ...")."""


def parse_lldp(text: str) -> dict[str, str]:
    """``hccn_tool -i N -lldp -g`` → the neighbour's ``{system_name, port_id, chassis_id,
    port_description, management_address, system_description, capabilities, max_frame_size}``
    as far as the output gives them (values without their subtype label: ``Ifname:
    400GE1/1/20:2`` → ``400GE1/1/20:2``; a description's first line)."""
    out: dict[str, str] = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if (m := _LLDP_TLV_RE.match(line)) is None:
            continue
        value = m.group("value")
        if not value and i + 1 < len(lines):
            below = lines[i + 1].strip()
            if below and not _LLDP_TLV_RE.match(lines[i + 1]) and not below.startswith("End of"):
                value = below
        if value:
            out.setdefault(LLDP_FIELDS[m.group("tlv")], _LLDP_SUBTYPE_RE.sub("", value.strip()))
    if not out and _LOOP_LINE_RE.match(text.strip()):
        # a grep of one TLV's value ("Ifname: 400GE1/1/5:1", from the Port ID TLV; "MAC:" from
        # the Chassis ID one; "IPv4:" from the Management Address one)
        label, _, value = text.strip().partition(":")
        field_name = {"Ifname": "port_id", "MAC": "chassis_id"}.get(label, "management_address")
        out[field_name] = value.strip()
    if not out:
        raise ParseError("no LLDP TLV with a value (Chassis ID, Port ID, System Name ...)")
    return out


# ``hccn_tool -i N -roce_test ib_send_bw -s BYTES -n ITERS address IP -tcp``: perftest's
# bandwidth test between this port and the address's, its report as perftest prints it: a
# "#bytes  #iterations  BW peak[MB/sec]  BW average[MB/sec]  MsgRate[Mpps]" header over one row
# per size (Gb/sec under --report_gbits).
_ROCE_TEST_RE = re.compile(r"hccn_tool\s+-i\s+(\d+)\s+-roce_test\s+(?P<test>ib_\w+)")
_BW_HEADER_RE = re.compile(
    r"#bytes\s+#iterations\s+BW peak\[(?P<unit>MB|Gb|MiB|Gbit)/sec\]\s+BW average\[(?:MB|Gb|MiB|Gbit)/sec\]"
)
_BW_ROW_RE = re.compile(r"^\s*(\d+)\s+(\d+)\s+([0-9.]+)\s+([0-9.]+)")
_ROCE_ADDRESS_RE = re.compile(r"\baddress\s+(?P<ip>\d+\.\d+\.\d+\.\d+)")


def parse_roce_test(text: str, test: str) -> dict[str, object]:
    """The report of ``-roce_test ib_*_bw`` → ``{test, target, bytes, iterations, bw_peak_mb_s,
    bw_average_mb_s}`` (the largest size's row when several; in MiB/s, which perftest's MB/sec
    always were; a Gb/sec report converted)."""
    lines = text.splitlines()
    head = next((i for i, t in enumerate(lines) if _BW_HEADER_RE.search(t)), None)
    target = _ROCE_ADDRESS_RE.search(text)
    if head is None:
        raise ParseError(f"{test}: no '#bytes #iterations BW peak BW average' report")
    header = _BW_HEADER_RE.search(lines[head])
    assert header is not None
    # perftest's MB/sec is MiB/s (perftest_parameters.c: format_factor 0x100000, 125000000 for
    # Gb/sec): a Gb/sec report is said in the MiB/s perftest prints without --report_gbits
    scale = 1e9 / 8 / 1048576 if header.group("unit") in ("Gb", "Gbit") else 1.0
    rows = [m for t in lines[head + 1 :] if (m := _BW_ROW_RE.match(t))]
    if not rows:
        raise ParseError(f"{test}: its report has no size row under the header")
    last = rows[-1]
    return {
        "test": test,
        "target": target.group("ip") if target else None,
        "bytes": int(last.group(1)),
        "iterations": int(last.group(2)),
        "bw_peak_mb_s": round(float(last.group(3)) * scale, 2),
        "bw_average_mb_s": round(float(last.group(4)) * scale, 2),
    }


def parse_pfc(text: str) -> list[int]:
    """``hccn_tool -i N -pfc -g``: "PFC configuration:", then a "priority 0 1 ... 7" row over an
    "enabled 0 0 0 0 1 0 0 0" row → the priorities enabled (``[4]``)."""
    rows = {}
    for line in text.splitlines():
        cells = line.split()
        if cells and cells[0] in ("priority", "enabled") and all(c.isdigit() for c in cells[1:]):
            rows[cells[0]] = [int(c) for c in cells[1:]]
    priority, enabled = rows.get("priority"), rows.get("enabled")
    if not priority or not enabled or len(priority) != len(enabled):
        raise ParseError("no 'priority' row over an 'enabled' row of the same length")
    return [p for p, on in zip(priority, enabled, strict=True) if on]


def parse_link_stat(text: str) -> LinkStat:
    """``hccn_tool -i N -link_stat -g`` → up/down counts and the change records.

    Each line carries a ``[devid N]`` prefix (MindCluster FaultDiag's "Link Down: NPU
    intermittent disconnection" key log; the Ascend HCCL troubleshooting guide's ERROR CQE case):
    ``link up count : 2``, ``link down count : 1``, then ``<date>    LINK DOWN`` records;
    Ascend 950 prints the records as a boxed table of NPU, UDie, port, state and time.
    """
    counts: dict[str, int] = {}
    changes: list[tuple[str, str]] = []
    change_lines: list[int] = []
    # "[devid 0]" (driver 23.0) or "[device 0]" (the form MindCluster's collecting-logs guide shows)
    devid = re.search(r"^\s*\[dev(?:id|ice) (\d+)\]", text, re.M)
    device = int(devid.group(1)) if devid else None
    ports: dict[tuple[str, str, str], int] = {}
    for no, line, _ in numbered_lines(text):
        m = _LINK_STAT_COUNT.search(line)
        if m:
            counts[m.group(1)] = int(m.group(2))
            continue
        r = _LINK_STAT_RECORD.match(line.strip())
        if r:
            changes.append((r.group(1).strip(), r.group(2)))
            change_lines.append(no)
        elif t := _LINK_STAT_ROW.match(line.strip()):
            changes.append((t.group("time"), t.group("state")))
            change_lines.append(no)
            ports.setdefault((t.group("npu"), t.group("udie"), t.group("port")), no)
            device = int(t.group("npu")) if device is None else device
    if len(ports) > 1:
        # the command asks for one port (-i, -u, -p): records of several are not one port's
        where = ", ".join(f"NPU {n} UDie {u} port {p}" for n, u, p in ports)
        raise ParseError(f"hccn_tool -link_stat table holds records of several ports ({where})")
    if not counts and not changes:
        raise ParseError("no 'link up count' line or LINK UP/DOWN record in hccn_tool -link_stat")
    die_port = next((f"UDie {u} port {p}" for _, u, p in ports), None)
    return LinkStat(
        up_count=counts.get("up"),
        down_count=counts.get("down"),
        changes=changes,
        device=device,
        die_port=die_port,
        change_lines=change_lines,
    )


# Ascend 950's -bit_err (its HCCN Tool reference, "Querying the Number of Port Bit Errors", and
# the tool's source, which prints the driver's decoded_fail_block_num as the first counter):
#   -------------------------- dl-bit_err --------------------------
#   port_id: 0x4
#   st_fec_decoding_fail_num: 0x4       "Number of post-FEC error frames"
#   st_fec_err_bit_num: 0x3868275f      "Number of pre-FEC bit errors"
BIT_ERR_HEAD_RE = re.compile(r"^[ \t]*-+[ \t]*dl-bit_err[ \t]*-+[ \t]*$")
_BIT_ERR_FIELD_RE = re.compile(
    r"^\s*(?P<key>port_id|st_fec_decoding_fail_num|st_fec_err_bit_num)\s*:\s*(?P<value>\S*)\s*$"
)


@dataclass(kw_only=True)
class BitErr:
    port: int | None
    """``port_id`` as printed (the ``-p`` asked for); None where the copy lost it."""
    uncorrected_frames: int
    """``st_fec_decoding_fail_num``: frames FEC could not correct (their data was lost)."""
    pre_fec_error_bits: int | None
    """``st_fec_err_bit_num``: bit errors on the line before FEC corrected them."""


def parse_bit_err(text: str) -> BitErr:
    """``hccn_tool -g -bit_err -i N -u U -p P`` → the port's two FEC counters (hexadecimal)."""
    values: dict[str, int] = {}
    for no, line, _ in numbered_lines(text):
        if (m := _BIT_ERR_FIELD_RE.match(line)) is None:
            continue
        try:
            values[m.group("key")] = int(m.group("value"), 16)
        except ValueError:
            raise ParseError(
                f"{m.group('key')} {m.group('value')!r} is not a hexadecimal count", line=no
            ) from None
    if "st_fec_decoding_fail_num" not in values:
        raise ParseError("no 'st_fec_decoding_fail_num:' line in the -bit_err output")
    return BitErr(
        port=values.get("port_id"),
        uncorrected_frames=values["st_fec_decoding_fail_num"],
        pre_fec_error_bits=values.get("st_fec_err_bit_num"),
    )


# Ascend 950's -su_ber -result (its HCCN Tool reference, "Querying the SU Bit Error Mode and Bit
# Error Statistics of a Port"): one row a lane of the port. Done 0x0: "No data is available or
# bit error statistics are not complete", 0x1 "Completed", others "Abnormal state";
# Err_symb_t4: "SU error frames with more than four symbol errors"; Su_ber_rate =
# Bit_err_cnt/(Frm_cnt x Frm_bit). The reference gives no BER threshold, nor does the tool's
# source (tool_su_ber.c prints the figures and judges none).
SU_BER_HEAD_RE = re.compile(
    r"^[ \t]*\|\s*NPU\s*\|\s*UDie\s*\|\s*Port\s*\|\s*Lane\s*\|\s*Done\s*\|\s*Bit_err_cnt\s*\|"
)
_SU_BER_ROW_RE = re.compile(
    r"^\|\s*(?P<npu>\d+)\s*\|\s*(?P<udie>\d+)\s*\|\s*(?P<port>\d+)\s*\|"
    r"\s*(?P<lane>0x[0-9a-fA-F]+)\s*\|\s*(?P<done>0x[0-9a-fA-F]+)\s*\|"
    r"\s*(?P<bit_err_cnt>0x[0-9a-fA-F]+)\s*\|\s*(?P<err_symb_t4>0x[0-9a-fA-F]+)\s*\|"
    r"\s*(?P<frm_cnt>0x[0-9a-fA-F]+)\s*\|\s*(?P<frm_bit>0x[0-9a-fA-F]+)\s*\|"
    r"\s*(?P<su_ber_rate>[0-9.]+(?:e[-+]?\d+)?)\s*\|\s*(?P<su_err_frame_rate>[0-9.]+(?:e[-+]?\d+)?)\s*\|\s*$",
    re.I,
)
_SU_BER_MODE_HEAD_RE = re.compile(r"^\|\s*NPU\s*\|\s*UDie\s*\|\s*Port\s*\|\s*su_itlv_mode\s*\|")
SU_BER_DONE = {0: "no data or not complete", 1: "completed"}
"""``Done`` values the reference names; any other is "Abnormal state"."""


@dataclass(kw_only=True)
class SuBer:
    device: int
    die_port: str
    """``UDie 0 port 4`` from the rows."""
    lanes: list[dict[str, object]]
    """One a lane: ``{lane, done, bit_err_cnt, err_symb_t4, frm_cnt, frm_bit, su_ber_rate,
    su_err_frame_rate}`` (the counts as numbers, the rates as printed, read as floats)."""


def parse_su_ber(text: str) -> tuple[SuBer, list[ParseWarning]]:
    """``hccn_tool -g -su_ber -i N -u U -p P -result`` → the lanes' SU bit-error figures; rows
    that are not the table's are warnings."""
    lanes: list[dict[str, object]] = []
    warnings: list[ParseWarning] = []
    where: tuple[int, str] | None = None
    mode_table = False
    for no, line, _ in numbered_lines(text):
        s = line.strip()
        if _SU_BER_MODE_HEAD_RE.match(s):
            mode_table = True  # -mode_status's table: the test's mode, no figures
            continue
        if SU_BER_HEAD_RE.match(s):
            mode_table = False
            continue
        if not s.startswith("|") or mode_table:
            continue
        if (m := _SU_BER_ROW_RE.match(s)) is None:
            warnings.append(ParseWarning(line=no, message="hccn_tool -su_ber: unreadable lane row"))
            continue
        where = where or (int(m.group("npu")), f"UDie {m.group('udie')} port {m.group('port')}")
        lane: dict[str, object] = {
            k: int(m.group(k), 16)
            for k in ("lane", "done", "bit_err_cnt", "err_symb_t4", "frm_cnt", "frm_bit")
        }
        lane["su_ber_rate"] = float(m.group("su_ber_rate"))
        lane["su_err_frame_rate"] = float(m.group("su_err_frame_rate"))
        lanes.append(lane)
    if where is None and mode_table:
        raise ParseError(
            "-mode_status's table (the test's su_itlv_mode and status) holds no bit-error "
            "figures: not read"
        )
    if where is None:
        raise ParseError("no lane row under the -su_ber -result table's header")
    return SuBer(device=where[0], die_port=where[1], lanes=lanes), warnings


def su_ber_alarms(lanes: list[dict[str, object]]) -> list[str]:
    """What the lanes' figures show wrong by the reference's own words: frames with more than
    four symbol errors, a ``Done`` state it calls abnormal. (The BER itself has no documented
    threshold: it is reported, not judged.)"""
    out = []
    for lane in lanes:
        done = lane["done"]
        if isinstance(done, int) and done not in SU_BER_DONE:
            out.append(f"lane {lane['lane']}: Done {done:#x} (abnormal state)")
        errors = lane["err_symb_t4"]
        if isinstance(errors, int) and errors > 0:
            out.append(
                f"lane {lane['lane']}: {errors} frame(s) with more than four symbol errors "
                f"(Err_symb_t4, frame error rate {lane['su_err_frame_rate']:e})"
            )
    return out


# Ascend 950's -down_data (its HCCN Tool reference, "Querying Port Link Information When the Link
# Is Down": "If the link down event is triggered for five or more times, five link information
# records are displayed"; the tool's source prints "udie U port P: no down data" when there are
# none, and "down data of udie U port P - log row R:" over each record's lane table)
DOWN_DATA_HEAD_RE = re.compile(
    r"^[ \t]*(?:down data of udie \d+ port \d+ - log row \d+\s*:|udie \d+ port \d+: no down data)"
)
_DOWN_ROW_HEAD_RE = re.compile(r"^down data of udie (\d+) port (\d+) - log row (\d+)\s*:")
_NO_DOWN_DATA_RE = re.compile(r"^udie (\d+) port (\d+): no down data\s*$")
_DOWN_LANE_COLUMNS = (
    "lane", "snr_metric", "metric_his_min", "err_avg", "cycles_avg", "heh_avg", "c3_ud_2csr",
    "c5_ud_2csr",
)  # fmt: skip
_DOWN_LANE_RE = re.compile(
    r"^\|" + r"\|".join(r"\s*(-?\d+)\s*" for _ in _DOWN_LANE_COLUMNS) + r"\|$"
)


DOWN_DATA_LANES = 4
"""Lanes in each record (the tool's source: LANE_NUMBER 4, one table row each)."""


@dataclass(kw_only=True)
class DownData:
    die_port: str
    """``UDie 0 port 4`` from the record headings."""
    records: list[dict[str, object]]
    """One a link-down record: ``{row, line, lanes: [{lane, snr_metric, metric_his_min,
    err_avg, cycles_avg, heh_avg, c3_ud_2csr, c5_ud_2csr}]}`` as printed."""
    cut: bool = False
    """The copy ends inside a record, before its four lanes."""
    snr_zero: list[str] = field(default_factory=list)
    """``log row R lane L`` for each lane whose ``snr_metric`` read 0."""


def parse_down_data(text: str) -> tuple[DownData, list[ParseWarning]]:
    """``hccn_tool -g -down_data -i N -u U -p P`` → the SerDes snapshots the port recorded when
    its link went down (none: ``no down data``)."""
    records: list[dict[str, object]] = []
    warnings: list[ParseWarning] = []
    snr_zero: list[str] = []
    die_port: str | None = None
    for no, line, _ in numbered_lines(text):
        s = line.strip()
        if m := _DOWN_ROW_HEAD_RE.match(s):
            die_port = die_port or f"UDie {m.group(1)} port {m.group(2)}"
            records.append({"row": int(m.group(3)), "line": no, "lanes": []})
        elif m := _NO_DOWN_DATA_RE.match(s):
            die_port = die_port or f"UDie {m.group(1)} port {m.group(2)}"
        elif s.startswith("|") and not s.startswith("| lane"):
            if (row := _DOWN_LANE_RE.match(s)) is None or not records:
                warnings.append(
                    ParseWarning(line=no, message="hccn_tool -down_data: unreadable lane row")
                )
                continue
            lane = dict(zip(_DOWN_LANE_COLUMNS, map(int, row.groups()), strict=True))
            lanes = records[-1]["lanes"]
            assert isinstance(lanes, list)
            lanes.append(lane)
            if lane["snr_metric"] == 0:
                snr_zero.append(f"log row {records[-1]['row']} lane {lane['lane']}")
    if die_port is None:
        raise ParseError("no 'down data of udie U port P' or 'no down data' line")
    last = records[-1]["lanes"] if records else None
    cut = isinstance(last, list) and len(last) < DOWN_DATA_LANES
    return DownData(die_port=die_port, records=records, cut=cut, snr_zero=snr_zero), warnings


@dataclass(kw_only=True)
class Port:
    """What a saved collection says about one NPU port (one device's RoCE NIC)."""

    device: int | None
    """NPU device id from the command line (or ``device N PING``); None when not named."""
    host: str | None = None
    """The host the shell prompt above the output names, where the file's prompts name more than
    one (a page's examples from two machines): device 0 of one is not device 0 of the other."""
    link: str | None = None
    net_health: str | None = None
    ipaddr: str | None = None
    netmask: str | None = None
    ip_preset: bool | None = None
    """False when ``-ip -g`` said no address was preset on the port (it has no device IP); True
    when it printed an address; None when the file has no ``-ip`` output."""
    ipv6addr: str | None = None
    """``-ip -inet6 -g``'s ``ipv6_address:`` (with ``prefix_length:``, ``ipv6_prefix``)."""
    ipv6_prefix: int | None = None
    tls_enabled: bool | None = None
    tls_certs: list[dict[str, object]] = field(default_factory=list)
    """``-tls -g`` certificate blocks: ``{name, end_time, status, status_text}`` (status 0
    normal, 1 near expiration, 2 has expired)."""
    tls_alarms: list[dict[str, object]] = field(default_factory=list)
    """The ``tls_certs`` whose status is not 0 (near expiration or expired)."""
    link_up_count: int | None = None
    link_down_count: int | None = None
    link_changes: list[dict[str, str]] = field(default_factory=list)
    """``-link_stat -g`` records, newest first as printed: ``{time, state}`` (UP or DOWN)."""
    link_flapped: bool | None = None
    """From ``-link_stat -g``: the link dropped since the driver started (an up count above
    1 — the first UP is the driver's start —, or a DOWN record newer than the oldest UP);
    None without that output."""
    link_down_since: str | None = None
    """From ``-link_stat -g``: the time of its newest record where that record is a LINK DOWN
    (no UP after it: the link is down at the query's ``current time``, ``link`` DOWN); None
    otherwise."""
    link_down_line: int | None = None
    """The file's line of the newest ``LINK DOWN`` record of ``-link_stat -g`` (what a finding
    about the drop cites); None without one."""
    link_line: int | None = None
    """The file's line of the ``-link -g`` answer that set ``link`` (what a finding about the
    link's state cites, not the command above it); None without one."""
    optical_line: int | None = None
    """The file's line where the ``-optical -g`` answer starts (what a finding about the module
    cites); None without one."""
    stat_error_lines: list[int] = field(default_factory=list)
    """The file's lines of the ``-stat -g`` counters in ``stat_errors`` (what a finding about
    them cites)."""
    stat_errors: dict[str, int] = field(default_factory=dict)
    """The ``-stat -g`` error counters (``roce_*err*``: error packets, QP status errors; Ascend
    950's ``UB_STAT_ERROR_COUNTERS``) that are not 0."""
    stat_checked_lines: list[int] = field(default_factory=list)
    """The file's lines of every error counter of the ``-stat -g`` reading, 0 or not (what a
    note that they are all 0 cites)."""
    ping_loss_pct: float | None = None
    ping_target: str | None = None
    optical: dict[str, str] = field(default_factory=dict)
    optical_alarms: list[str] = field(default_factory=list)
    """What ``optical`` shows wrong by the module's own thresholds and flags:
    ``optical_alarms()``."""
    stat: dict[str, int] = field(default_factory=dict)
    line: int = 0
    """First line that spoke about this port."""
    routes: list[dict[str, str]] = field(default_factory=list)
    """``-route -g`` rows keyed by the header's columns: ``{destination, gateway, genmask, flags,
    metric, ref, use, iface}`` as hccn_tool prints them."""
    arp: list[dict[str, str | None]] = field(default_factory=list)
    """``-arp -g`` neighbours: ``{address, mac, iface}``, ``mac`` None for ``<incomplete>``."""
    pfc_priorities: list[int] | None = None
    """``-pfc -g``: the priorities PFC (priority flow control) is enabled on (RoCE traffic of
    HCCL's traffic class needs its priority among them); None without that output."""
    lldp: dict[str, str] = field(default_factory=dict)
    """``-lldp -g``: the switch the port is plugged into, ``{system_name, port_id, chassis_id,
    port_description, management_address, system_description, capabilities, max_frame_size}``
    as far as the output gives them."""
    gateway: str | None = None
    """``-gateway -g``: the port's default gateway (RoCE traffic to another subnet goes there);
    ``"none"`` where the answer named none."""
    roce_test: dict[str, object] | None = None
    """``-roce_test ib_*_bw``: ``{test, target, bytes, iterations, bw_peak_mb_s,
    bw_average_mb_s}``, the bandwidth measured from this port to the target's, in MiB/s (the
    ``_mb_s`` keys keep perftest's MB/sec name; its MB is MiB)."""
    speed_mbps: int | None = None
    """``-status -g`` (the port's netdev settings, as ethtool prints them): its ``Speed``."""
    die_port: str | None = None
    """Ascend 950, whose NPU has several ports: the one a ``-link_stat`` table names (``UDie 0
    port 4``); None elsewhere (one port a device)."""
    link_history: list[str] = field(default_factory=list)
    """Ascend 950's ``-adapt_status -g``: the port's last link set-up processes, newest first, as
    printed (``L0:link_proc|L1:link_fail``)."""
    link_setup_failed: str | None = None
    """Ascend 950's ``-adapt_status -g``: the newest set-up process (the first row printed) when
    a step of it is ``link_fail`` or ``linkdown`` (``index 0: L0:link_proc|L1:link_fail``); None
    when its newest process has neither, or without that output."""
    link_setup_failed_line: int | None = None
    """The line of that row."""
    fec_uncorrected_frames: int | None = None
    """Ascend 950's ``-bit_err``: ``st_fec_decoding_fail_num``, frames FEC could not correct
    (lost on the link); None without that output."""
    pre_fec_error_bits: int | None = None
    """Ascend 950's ``-bit_err``: ``st_fec_err_bit_num``, bit errors before FEC (corrected where
    their frame was not among the uncorrected ones)."""
    su_ber_lanes: list[dict[str, object]] = field(default_factory=list)
    """Ascend 950's ``-su_ber -result``: one a lane, ``{lane, done, bit_err_cnt, err_symb_t4,
    frm_cnt, frm_bit, su_ber_rate, su_err_frame_rate}``."""
    su_ber_alarms: list[str] = field(default_factory=list)
    """What ``su_ber_lanes`` shows wrong by the reference's words: ``su_ber_alarms()``."""
    fec_mode: dict[str, str] | None = None
    """Ascend 950's ``-fec``: ``{rs_mode, auto_change_mode, itlv_mode}`` as printed (its
    configuration; no counts)."""
    serdes_lanes: list[dict[str, object]] = field(default_factory=list)
    """Ascend 950's ``-serdes``: one a lane, ``{lane, snr, fir}`` (fir: pre2, pre1, main, post1,
    post2 taps); its reference gives no SNR threshold, so none is judged."""
    bandwidth_tx_mb_s: float | None = None
    """Ascend 950's ``-bandwidth``: the port's transmit rate over the sample, MB/s."""
    bandwidth_rx_mb_s: float | None = None
    link_down_records: int | None = None
    """Ascend 950's ``-down_data``: how many link-down records the port keeps (at most five; 0
    for ``no down data``); None without that output."""
    link_down_snapshots: list[dict[str, object]] = field(default_factory=list)
    """The records' lane tables: ``{row, line, lanes: [{lane, snr_metric, ...}]}``."""
    link_down_snr_zero: list[str] = field(default_factory=list)
    """``log row R lane L`` for each lane whose ``snr_metric`` read 0 in a record (no signal
    measured on that lane when the link went down)."""


@dataclass(kw_only=True)
class Bundle:
    ports: list[Port]
    warnings: list[ParseWarning] = field(default_factory=list)


# ``-inet6`` queries (IPv6 addresses) print the same forms as the IPv4 ones.
_COMMAND_RE = re.compile(
    # a document's placeholder for the device ("hccn_tool -i {device_id} -net_health -g")
    # ("-i ${device_id}" as Ascend's guides write it: a name with an underscore, not a loop's "$i")
    r"hccn_tool\s+(?:-i\s+(?:(?P<dev>\d+)|(?P<ph>\{[\w-]+\}|<[\w-]+>|&lt;[\w-]+&gt;"
    r"|\$\{[A-Za-z]\w*_\w+\}))\s+-(?P<query>\w+)"
    r"(?:\s+-inet6)?\s+-g\b"
    # Ascend 950's HCCN Tool puts the mode first: "hccn_tool -g -ub_connect -i 0", "hccn_tool -t
    # -ub_ping -i 0 -src_eid ..." (-t: a test)
    r"|-[gt]\s+-(?P<query950>\w+)\s+-i\s+(?P<dev950>\d+)\b)"
)
# Ascend 950's port of a device, after the device (its HCCN Tool reference: "-i 0 -u 0 -p 4",
# logical device 0, UDie 0, port 4)
_UB_PORT_ARGS_RE = re.compile(r"\s-i\s+\d+\s+-u\s+(\d+)\s+-p\s+(\d+)\b")
_STATE_OF = {"link": "link", "net_health": "net_health"}
"""The queries whose answer is one state of the port (asked twice, a change is said)."""
_QUERY_ALIASES = {"ub_ping": "ping", "peak_bw": "bandwidth"}
"""Ascend 950's queries that print another's form: -ub_ping answers as -ping does, -peak_bw as
-bandwidth (its peak rate over the sample)."""
_PLACEHOLDER_BASE = -1000
"""Devices a placeholder names are numbered below this while the file is read (each
placeholder its own port), and have no device in the result."""
_QUERIES = (
    "link", "net_health", "ip", "tls", "ping", "optical", "stat", "route", "arp", "link_stat",
    "pfc", "lldp", "roce_test", "status", "dev_info", "port_info", "adapt_status", "gateway",
    "ub_connect", "bit_err", "su_ber", "down_data", "fec", "serdes", "bandwidth", "speed",
)  # fmt: skip
_SIGNATURES = {
    "link": re.compile(r"^link status\s*:"),
    "net_health": re.compile(r"^net health status\s*:"),
    "ip": re.compile(r"^ipaddr\s*:|^Get ipconf failed, because no ip was preset|^ipv6_address\s*:"),
    "tls": re.compile(r"tls switch\["),
    # ``device 0 PING 10.0.0.2`` opens a ping's output; a summary or a time-out line alone too
    "ping": re.compile(r"^device \d+ PING\s|packets? transmitted|recv time ?out"),
    "optical": re.compile(r"^optical info\s*:"),
    "stat": re.compile(r"^packet statistics\s*:"),
    "route": re.compile(r"^Routing table\s*:"),
    "arp": re.compile(r"^arp table\s*:"),
    "pfc": re.compile(r"^PFC configuration\s*:"),
    # an LLDPDU opens with its Chassis ID TLV (IEEE 802.1AB: the first, mandatory one); a grep of
    # one TLV over the ports is one line a port
    "lldp": re.compile(r"^Chassis ID TLV\s*$|^Interface \d+:\s*[A-Z][\w ]*? TLV\b"),
    "link_stat": re.compile(
        r"^(?:\[dev(?:id|ice) \d+\])?[ \t]*(?:current time[ \t]*:|link up count[ \t]*:?[ \t]*\d)"
        r"|^\|\s*NPU\s*\|\s*UDie\s*\|\s*Port\s*\|\s*Link_Status\s*\|"
    ),
    # -status -g: "Netdev status:Settings for eth3:" then ethtool's settings of the port's netdev
    # (a Chinese note on npu-smi and hccn_tool kept in liguodongiot/llm-action shows the form)
    "status": re.compile(r"^Netdev status\s*:"),
    # -gateway -g: "default gateway:11.12.165.1, Iface:eth0" (a deployment guide's loop over the
    # devices shows the form)
    "gateway": re.compile(r"^default gateway\s*:\s*\S"),
    # Ascend 950's -dev_info: its port table opens the output (Querying the NPU Device
    # Information: "Link Status: Link status, which can be DOWN or UP"); the form MindCluster's
    # device manager parses prints "| UdieID | PortID | Speed | PortType | Link Status | Media
    # Type |" (mind-cluster component/ascend-common/devmanager/hccn/hccn_tool.go)
    "dev_info": re.compile(r"^\|\s*U[Dd]ie ?ID\s*\|\s*Port ?ID\s*\|"),
    # Ascend 950's -port_info (Querying the Port Status: "port_link: Port link establishment
    # status") and -adapt_status (the port's last five link set-up processes, newest first)
    "port_info": re.compile(r"^port_id\s*:\s*0x[0-9a-fA-F]+\s*$"),
    "adapt_status": re.compile(r"^print the adapt status table\s*:"),
    "bit_err": BIT_ERR_HEAD_RE,
    "su_ber": SU_BER_HEAD_RE,
    "down_data": DOWN_DATA_HEAD_RE,
    # Ascend 950's -fec, -serdes and -bandwidth (its HCCN Tool reference: "Querying Port FEC
    # Information", "Querying Port SerDes Information", "Querying the Real-Time Bandwidth
    # Information of a Port"): a table a port, a lane; two rate lines
    "fec": re.compile(r"^\|\s*NPU\s*\|\s*UDie\s*\|\s*Port\s*\|\s*rs_mode\s*\|"),
    "serdes": re.compile(r"^\|\s*NPU\s*\|\s*UDie\s*\|\s*Port\s*\|\s*Lane\s*\|\s*snr\s*\|"),
    "bandwidth": re.compile(r"^(?:Peak )?Bandwidth (?:TX|RX)\s*:\s*[0-9.]+ MB/sec"),
    # -speed ("Querying the Port Rate": the port's rate, its lane capability and width, status)
    "speed": re.compile(r"^\|\s*NPU\s*\|\s*UDie\s*\|\s*Port\s*\|\s*Speed\s*\|"),
}
DEVICE_STATE_RE = re.compile(
    r"^[ \t]*(?:\[dev(?:id|ice) (?P<dev_b>\d+)\]|(?:dev(?:ice)?[ \t]*|NPU[ \t]*)?(?P<dev_n>\d+)[ \t]*[:\]]?)"
    r"[ \t]*(?P<query>link status|net health status)[ \t]*:[ \t]*\S"
)
"""A state answer behind the device it is of: a loop's "0 net health status: Success"."""
_UB_PORT_RE = re.compile(r"^port (\d+)\s*:\s*(UP|DOWN|PARTIAL UP)\s*$")
_PORT_INFO_RE = re.compile(r"^(port_id|port_link|lstm_state)\s*:\s*(\S+)")
_FAILED_SETUP_STEPS = frozenset({"link_fail", "linkdown"})
"""The steps of an -adapt_status process that say its set-up failed or the link went down."""
_ADAPT_ROW_RE = re.compile(
    r"^\|\s*(?P<npu>\d+)\s*\|\s*(?P<udie>\d+)\s*\|\s*(?P<port>\d+)\s*\|\s*(?P<index>\d+)\s*\|"
    r"\s*(?P<time>[^|]*?)\s*\|\s*(?P<status>\S.*?)\s*\|\s*$"
)
_DEV_INFO_ROW_RE = re.compile(
    r"^\|\s*(?P<udie>\d+)\s*\|\s*(?P<port>\d+)\s*\|\s*(?P<gbps>\d+)\s*\|\s*(?P<type>\w+)\s*\|"
    r"\s*(?P<link>UP|DOWN)\s*\|"
)
_PING_DEVICE_RE = re.compile(r"^device (\d+) PING\s")
_LLDP_IFACE_RE = re.compile(r"^Interface (\d+):")
"""A grep's own label of the port ("Interface 0: System Name TLV ..."): the loop's ``-i``."""
_PING_SUMMARY_RE = re.compile(r"packets? transmitted")
_UDIE_PORT_RE = re.compile(r"\budie (\d+) port (\d+)")

_Section = tuple[int | None, str, int, list[tuple[int, str]]]
"""(device named by a command line or None, query, first line, [(line number, text)])."""


# A shell loop over the devices, its outputs printed one after another without their command
# lines: "for i in {0..7}; do hccn_tool -i $i -ip -g; done" (Ascend's deployment guides run them
# so). Its list names the device of each output, in order.
_LOOP_RE = re.compile(
    r"(?:^|[#$>]\s*)for\s+(?P<var>\w+)\s+in\s+(?P<list>[^;]+?)\s*;\s*do\b(?P<body>.*)$"
)
_LOOP_RANGE_RE = re.compile(r"^\{(\d+)\.\.(\d+)\}$|^[$`]\(?seq\s+(\d+)\s+(\d+)\)?`?$")
_LOOP_LINE_RE = re.compile(r"^\s*(?:Ifname|MAC|IPv4|IPv6):\s*\S")
"""One TLV's value a line, as ``-lldp -g | grep Ifname`` prints it in a loop."""


@dataclass(frozen=True)
class _Loop:
    line: int
    query: str
    devices: tuple[int, ...]
    grep: bool
    """The loop's output goes through grep: a device may print nothing."""
    background: bool = False
    """The body runs its command in the background (``... -g & done``): outputs in any order."""


def _loop(line: str, no: int) -> _Loop | None:
    """A ``for`` loop running one hccn_tool query over a list of devices; None otherwise."""
    m = _LOOP_RE.search(line.strip())
    if m is None:
        return None
    var = re.escape(m.group("var"))
    queries = re.findall(rf"hccn_tool\s+-i\s+\"?\$\{{?{var}\}}?\"?\s+-(\w+)", m.group("body"))
    if len(queries) != 1:
        return None  # several queries in one body interleave their outputs: none by order
    items = m.group("list").strip()
    if r := _LOOP_RANGE_RE.match(items):
        first, last = (int(g) for g in (r.groups()[:2] if r.group(1) else r.groups()[2:]))
        devices = tuple(range(first, last + 1))
    elif re.fullmatch(r"\d+(?:\s+\d+)*|\{\d+(?:,\d+)*\}", items):
        devices = tuple(int(d) for d in re.findall(r"\d+", items))
    else:
        return None
    body = m.group("body")
    return _Loop(
        line=no,
        query=queries[0],
        devices=devices,
        grep="grep" in body,
        background=re.search(r"(?<![&>|])&(?![&>])", body) is not None,
    )


_PROMPT_RE = re.compile(
    # (the user name starts the line, or after a "(venv) " or "[", and the host is followed by
    # ":", "]" or "~" only: disjoint runs, no backtracking over a long word before an "@")
    r"^(?:\([\w.-]+\)\s+)?\[?[\w.-]+@[\w.-]+(?:[:\]~][^\s#$]*)?(?:\s+[^\s#$]+)?\s*[#$](?:\s|$)"
)
"""A shell's prompt (``root@host:~#``, ``[root@host ~]$``), alone or before a command: the
output of the command above it has ended."""


def _prompt_hosts(text: str) -> list[tuple[int, str]]:
    """(line, host) of each shell prompt, where the prompts name more than one host; else none
    (one host's prompts say nothing a port needs told apart)."""
    found = [
        (no, m.group("host"))
        for no, line, _ in numbered_lines(text)
        if _PROMPT_RE.match(line.strip()) and (m := PROMPT_HOST_RE.match(line.strip()))
    ]
    return found if len({h for _, h in found}) > 1 else []


_LOOP_HEAD_RE = re.compile(
    # (the items end on a non-blank: a line padded with blanks before a box border cannot make the
    # engine try every split of the run)
    r"^(?P<head>(?:.*?[#$>]\s*)?for\s+\w+\s+in\s+[^;\s](?:[^;]*[^;\s])?)\s*(?P<do>;\s*do)?$"
)
_LOOP_MAX_LINES = 8
"""The most lines a loop typed over several lines spans (for / do / a command or two / done)."""


def _one_line_loops(text: str) -> str:
    """A loop typed over several lines (``for i in {0..7}`` / ``do`` / ``hccn_tool -i $i -ip
    -g`` / ``done``, as a terminal echoes it) written on its first line as the one-line form
    ``_loop`` reads; its other lines left blank, so every line keeps its number."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if "for" not in line or "hccn_tool" in line:
            continue
        head = _LOOP_HEAD_RE.match(line.strip())
        if head is None:
            continue
        body: list[str] = []
        for j in range(i + 1, min(len(lines), i + _LOOP_MAX_LINES)):
            s = re.sub(r"^>\s*", "", lines[j].strip())  # the shell's continuation prompt
            if s == "done" or s.startswith(("done ", "done;", "done|")):
                if any("hccn_tool" in b for b in body):
                    lines[i] = f"{head['head']}; do {'; '.join(body)}; {s}"
                    lines[i + 1 : j + 1] = [""] * (j - i)
                break
            s = re.sub(r"^do\b\s*", "", s) if s.startswith("do") and not s.startswith("done") else s
            if s:
                body.append(s.rstrip(";"))
    return "\n".join(lines)


def _sections(text: str) -> list[_Section]:
    sections: list[_Section] = []
    placeholders: dict[str, int] = {}
    current: _Section | None = None
    loop: _Loop | None = None
    for no, line, _ in numbered_lines(text):
        s = line.strip()
        if s.startswith("for ") or "for " in s.split("hccn_tool")[0]:
            loop = _loop(s, no)
            if loop is not None:
                current = None  # the loop's outputs start after it
                continue
        if loop is not None and loop.query == "lldp" and loop.grep and _LOOP_LINE_RE.match(s):
            # a grep of one TLV: one line a device
            sections.append((None, "lldp", no, [(no, line)]))
            continue
        if (rt := _ROCE_TEST_RE.search(s)) and not s.startswith(("for ", "#")):
            # its arguments may wrap onto the next line: the command stays in the chunk
            current = (int(rt.group(1)), "roce_test", no, [(no, s[rt.start() :])])
            sections.append(current)
            continue
        m = _COMMAND_RE.search(s)
        if m and not s.startswith(("for ", "#")):
            loop = None
            query = m.group("query") or m.group("query950")
            query = _QUERY_ALIASES.get(query, query)
            if m.group("ph"):
                device = _PLACEHOLDER_BASE - placeholders.setdefault(
                    m.group("ph"), len(placeholders)
                )
            else:
                device = int(m.group("dev") or m.group("dev950"))
            current = (device, query, no, [])
            sections.append(current)
            # a copy that lost the newline after the command keeps its output on the same line
            # ("... hccn_tool -i 0 -ip -g ipaddr:10.250.45.69 netmask:255.255.255.0"); arguments
            # after -g (a ping's address, a pipe) are not output
            rest = s[m.end() :].strip()
            if rest and (sig := _SIGNATURES.get(query)) is not None and sig.search(rest):
                current[3].append((no, rest))
            continue
        if current is not None and current[0] is not None:
            if re.search(r"\b(npu-smi|hccn_tool)\b", s) or _PROMPT_RE.match(s):
                # another tool's command, or the shell's prompt: its output is not ours
                current = None
                continue
            current[3].append((no, line))
            continue
        if current is None and (dm := DEVICE_STATE_RE.match(s)) is not None:
            # a loop that printed each device before its answer ("0 net health status:
            # Success", from `echo -n "$i "; hccn_tool -i $i -net_health -g`; "[devid 0] link
            # status: UP"): one port a line, the device its own
            query = "link" if dm.group("query").startswith("link") else "net_health"
            sections.append(
                (
                    int(dm.group("dev_b") or dm.group("dev_n")),
                    query,
                    no,
                    [(no, s[dm.start("query") :])],
                )
            )
            continue
        kind = next((k for k, sig in _SIGNATURES.items() if sig.search(s)), None)
        continues_ping = (
            current is not None
            and current[1] == "ping"
            and kind == "ping"
            and not _PING_DEVICE_RE.match(s)
            and not any(_PING_SUMMARY_RE.search(t) for _, t in current[3])
        )
        # "[devid 0]current time : ..." then "[devid 0]link up count : 2": one output
        continues_link_stat = (
            current is not None
            and current[1] == kind == "link_stat"
            and (
                not any("link up count" in t for _, t in current[3])
                or "Link_Status" in s  # Ascend 950: its records' table after both counts
            )
        )
        # Ascend 950's -bit_err prints "port_id: 0x4" under its heading (not -port_info's
        # output), and -down_data a heading over each record of the same port: one output
        continues_port_query = current is not None and (
            (
                current[1] == "bit_err"
                and kind == "port_info"
                and not any("port_id" in t for _, t in current[3])
            )
            or (
                current[1] == kind == "down_data"
                and _UDIE_PORT_RE.findall(s)[:1] == _UDIE_PORT_RE.findall(current[3][0][1])[:1]
            )
        )
        if (
            kind is not None
            and not continues_ping
            and not continues_link_stat
            and not continues_port_query
        ):
            current = (None, kind, no, [(no, line)])
            sections.append(current)
        elif current is not None and s:
            current[3].append((no, line))
    return sections


_PORT_QUERIES = ("bit_err", "su_ber", "down_data", "fec", "serdes", "bandwidth", "speed")
"""Ascend 950's queries of one port of the NPU (``-i N -u U -p P``): each names its port."""
_ASKED_DIE_RE = re.compile(r"\s-u\s+(\d+)\b")
_ASKED_PORT_RE = re.compile(r"\s-p\s+(\d+)\b")


# (-peak_bw prints the same two lines, "Peak Bandwidth TX: ...": the peak over its sample)
_BANDWIDTH_RE = re.compile(r"^(?:Peak )?Bandwidth (TX|RX)\s*:\s*([0-9.]+) MB/sec", re.M)
_TABLE_ROW_RE = re.compile(r"^\|(.*)\|\s*$")


def _port_table(
    query: str, chunk: str
) -> tuple[dict[str, object], str | None, int | None, list[ParseWarning]]:
    """Ascend 950's -fec (one row a port) or -serdes (one row a lane) table: NPU, UDie and Port
    first, then the query's columns as its header names them."""
    rows = [
        (no, [c.strip() for c in m.group(1).split("|")])
        for no, line in enumerate(chunk.splitlines(), 1)
        if (m := _TABLE_ROW_RE.match(line.strip()))
    ]
    if not rows or rows[0][1][:3] != ["NPU", "UDie", "Port"]:
        raise ParseError(f"no '| NPU | UDie | Port | ...' table in the -{query} output")
    header, body = rows[0][1], rows[1:]
    notes: list[ParseWarning] = []
    good = [(no, cells) for no, cells in body if len(cells) == len(header) and cells[0].isdigit()]
    notes += [
        ParseWarning(line=no, message=f"hccn_tool -{query}: unreadable row")
        for no, cells in body
        if (no, cells) not in good
    ]
    if not good:
        raise ParseError(f"no row under the -{query} table's header")
    _, first = good[0]
    device, die_port = int(first[0]), f"UDie {first[1]} port {first[2]}"
    if query == "fec":
        return dict(fec_mode=dict(zip(header[3:], first[3:], strict=True))), die_port, device, notes
    if query == "speed":
        values = dict(zip(header, first, strict=True))
        gbps = re.match(r"(\d+)\s*G\b", values.get("Speed", ""))
        if values.get("Width") != values.get("Cap") or values.get("Status", "normal") != "normal":
            notes.append(
                ParseWarning(
                    line=1,
                    message=f"hccn_tool -speed: {die_port} runs {values.get('Width')} of its "
                    f"{values.get('Cap')} lanes, status {values.get('Status')}",
                )
            )
        return (
            {"speed_mbps": int(gbps.group(1)) * 1000} if gbps else {},
            die_port,
            device,
            notes,
        )
    lanes: list[dict[str, object]] = []
    for _, cells in good:
        values = dict(zip(header, cells, strict=True))
        try:
            lanes.append(
                {
                    "lane": int(values["Lane"]),
                    "snr": int(values["snr"]),
                    "fir": [int(values[k]) for k in header[5:]],
                }
            )
        except (KeyError, ValueError):
            notes.append(ParseWarning(line=1, message="hccn_tool -serdes: unreadable lane row"))
    return {"serdes_lanes": lanes}, die_port, device, notes


def _port_query(
    query: str, chunk: str, command: str
) -> tuple[dict[str, object], str | None, int | None, list[ParseWarning]]:
    """One output of a ``_PORT_QUERIES`` query → (the Port fields it sets, the port it is of:
    ``UDie 0 port 4``, the device its table names, notes with lines in ``chunk``). ``command``:
    the command line above it, whose ``-u``/``-p`` name the die -bit_err does not print."""
    die = _ASKED_DIE_RE.search(command)
    asked = _ASKED_PORT_RE.search(command)
    if query == "bit_err":
        bit = parse_bit_err(chunk)
        notes = []
        if asked and bit.port is not None and bit.port != int(asked.group(1)):
            notes.append(
                ParseWarning(
                    line=1,
                    message=f"hccn_tool -bit_err: port_id {bit.port} under a command that asked "
                    f"for port {asked.group(1)}: read as port {bit.port}",
                    skipped=False,
                )
            )
        port = bit.port if bit.port is not None else int(asked.group(1)) if asked else None
        die_port = (
            None if port is None else f"UDie {die.group(1)} port {port}" if die else f"port {port}"
        )
        fields: dict[str, object] = {
            "fec_uncorrected_frames": bit.uncorrected_frames,
            "pre_fec_error_bits": bit.pre_fec_error_bits,
        }
        return fields, die_port, None, notes
    if query in ("fec", "serdes", "speed"):
        return _port_table(query, chunk)
    if query == "bandwidth":
        rates = dict(_BANDWIDTH_RE.findall(chunk))
        if not rates:
            raise ParseError("no 'Bandwidth TX/RX: N MB/sec' line")
        sampled = f"UDie {die.group(1)} port {asked.group(1)}" if die and asked else None
        return (
            {
                "bandwidth_tx_mb_s": float(rates["TX"]) if "TX" in rates else None,
                "bandwidth_rx_mb_s": float(rates["RX"]) if "RX" in rates else None,
            },
            sampled,
            None,
            [],
        )
    if query == "su_ber":
        ber, notes = parse_su_ber(chunk)
        fields = {"su_ber_lanes": ber.lanes, "su_ber_alarms": su_ber_alarms(ber.lanes)}
        return fields, ber.die_port, ber.device, notes
    down, notes = parse_down_data(chunk)
    if down.cut:
        notes.append(
            ParseWarning(
                line=int(str(down.records[-1]["line"])),
                message=f"hccn_tool -down_data: the copy ends inside log row "
                f"{down.records[-1]['row']}, before its {DOWN_DATA_LANES} lanes",
            )
        )
    fields = {
        "link_down_records": len(down.records),
        "link_down_snapshots": down.records,
        "link_down_snr_zero": down.snr_zero,
    }
    return fields, down.die_port, None, notes


def parse_bundle(text: str) -> Bundle:
    """Every hccn_tool output in a saved file, grouped by port.

    Outputs after a ``hccn_tool -i N -QUERY -g`` line belong to device N. Outputs saved without
    their command lines belong to one port until a query repeats (a ``for i in ...`` loop prints
    the same query once per port) or a ``device N PING`` line names another device. Raises
    ParseError when the text holds no hccn_tool output at all.
    """
    ports: list[Port] = []
    by_device: dict[tuple[str | None, int], Port] = {}
    bare: Port | None = None
    bare_queries: set[str] = set()
    warnings: list[ParseWarning] = []
    text = _one_line_loops(text)
    lines = text.splitlines()
    sections = _sections(text)
    by_loop = _loop_devices(text, sections, warnings)
    prompts = _prompt_hosts(text)
    for index, (device, query, no, body) in enumerate(sections):
        if device is None and index in by_loop:
            device = by_loop[index]
        if query == "link" and any(_UB_PORT_RE.match(t.strip()) for _, t in body[1:]):
            # Ascend 950's -ub_connect answer saved without its command line: its "link status :
            # PARTIAL LINK" is the card's, its "port N : ..." rows the ports' (-link -g prints
            # one state line only)
            query = "ub_connect"
        host = next((h for at, h in reversed(prompts) if at <= no), None)
        if device is not None:
            port = by_device.get((host, device)) or Port(device=device, host=host, line=no)
            if (host, device) not in by_device:
                by_device[(host, device)] = port
                ports.append(port)
            if port.die_port is None and 0 < no <= len(lines):
                # Ascend 950's command names the port it asked: "hccn_tool -g -link -i 0 -u 0
                # -p 4" (UDie 0, port 4)
                if ub := _UB_PORT_ARGS_RE.search(lines[no - 1]):
                    port.die_port = f"UDie {ub.group(1)} port {ub.group(2)}"
        else:
            head = body[0][1].strip() if body else ""
            named = _PING_DEVICE_RE.match(head) or _LLDP_IFACE_RE.match(head)
            named_device = int(named.group(1)) if named else None
            if (
                bare is None
                or query in bare_queries
                or bare.host != host
                or (named_device is not None and bare.device not in (None, named_device))
            ):
                bare = Port(device=named_device, host=host, line=no)
                bare_queries = set()
                ports.append(bare)
            elif named_device is not None:
                bare.device = named_device
            bare_queries.add(query)
            port = bare
        chunk = "\n".join(t for _, t in body)
        if query == "dev_info":
            # one row a port of the NPU (Ascend 950: several a device), each a port of its own
            for row_no, row in body:
                if m := _DEV_INFO_ROW_RE.match(row.strip()):
                    ports.append(
                        Port(
                            device=port.device,
                            line=row_no,
                            die_port=f"UDie {m.group('udie')} port {m.group('port')}",
                            link=m.group("link"),
                            speed_mbps=int(m.group("gbps")) * 1000,
                        )
                    )
            continue
        if query == "port_info":
            fields = {
                m.group(1): m.group(2) for _, t in body if (m := _PORT_INFO_RE.match(t.strip()))
            }
            if "port_id" in fields:
                port.die_port = f"port {int(fields['port_id'], 16)}"
            if fields.get("port_link") == "link":
                port.link = "UP"  # the only value the tool's reference shows: established
            elif "port_link" in fields:
                port.link_history = [f"port_link: {fields['port_link']}"]  # kept, as printed
                warnings.append(
                    ParseWarning(
                        line=no,
                        message=f"hccn_tool -port_info: port_link {fields['port_link']!r} (the "
                        "reference shows 'link' for an established link): not judged",
                        skipped=False,
                    )
                )
            continue
        if query == "ub_connect":
            # Ascend 950: "link status : PARTIAL LINK" over the card, then "port N : UP|DOWN|
            # PARTIAL UP" for each port its interconnect activates (its HCCN Tool reference:
            # only the valid ports are printed), each a port of its own
            for row_no, row in body:
                if m := _UB_PORT_RE.match(row.strip()):
                    ports.append(
                        Port(
                            device=port.device,
                            line=row_no,
                            die_port=f"UB port {m.group(1)}",
                            link=m.group(2),
                        )
                    )
            continue
        if query == "adapt_status":
            for row_no, row in body:
                if "LANE raise" in row:
                    break  # the lane table after it: the lanes' own processes
                if m := _ADAPT_ROW_RE.match(row.strip()):
                    if port.device is None:
                        port.device = int(m.group("npu"))
                    port.die_port = f"UDie {m.group('udie')} port {m.group('port')}"
                    port.line = port.line or row_no
                    port.link_history.append(f"index {m.group('index')}: {m.group('status')}")
                    # The Ascend 950 HCCN Tool reference (hicann/driver docs, "Querying the Status
                    # Information of a Historical Link Establishment Process of a Port",
                    # Precautions): "The query results are displayed in reverse chronological
                    # order": the first row is the port's latest set-up; one of its steps that
                    # failed (link_fail) or took the link down (linkdown) is the port's state now
                    steps = {
                        step.partition(":")[2].strip() for step in m.group("status").split("|")
                    }
                    if len(port.link_history) == 1 and steps & _FAILED_SETUP_STEPS:
                        port.link_setup_failed = port.link_history[0]
                        port.link_setup_failed_line = row_no
            continue
        if query in ("fec", "serdes", "speed") and "UDie" not in chunk:
            continue  # an older chip's -fec / -serdes answer, not Ascend 950's table: not read
        if query in _PORT_QUERIES:
            try:
                fields, die_port, named_device, notes = _port_query(query, chunk, lines[no - 1])
            except ParseError as e:
                at = body[e.line - 1][0] if 0 < e.line <= len(body) else no
                warnings.append(ParseWarning(line=at, message=f"hccn_tool -{query}: {e.message}"))
                continue
            if port.die_port is not None and port.die_port != die_port:
                # another port of the same NPU (Ascend 950: several a device): a port of its own
                port = Port(device=port.device, host=host, line=no)
                ports.append(port)
            port.die_port = die_port
            if port.device is None:
                port.device = named_device
            for name, value in fields.items():
                setattr(port, name, value)
            warnings += [
                ParseWarning(line=body[n.line - 1][0], message=n.message, skipped=n.skipped)
                for n in notes
            ]
            continue
        if query not in _QUERIES or not chunk.strip():
            continue
        before = getattr(port, _STATE_OF.get(query, ""), None)
        pinged_before = query == "ping" and port.ping_loss_pct is not None
        try:
            offsets = _apply(port, query, chunk)
            # a finding cites the answer's own line, not its command's (the later answer stands)
            answered = next((at for at, t in body if t.strip()), None)
            if query == "link" and port.link is not None:
                port.link_line = answered
            if query == "optical" and port.optical:
                port.optical_line = answered
            # _apply counts the chunk's lines; a finding cites the file's (the body's)
            if query == "link_stat" and port.link_down_line and port.link_down_line <= len(body):
                port.link_down_line = body[port.link_down_line - 1][0]
            if query == "stat":
                port.stat_error_lines = [
                    body[at - 1][0] for at in port.stat_error_lines if 0 < at <= len(body)
                ]
                port.stat_checked_lines = [
                    body[at - 1][0] for at in port.stat_checked_lines if 0 < at <= len(body)
                ]
                if port.die_port is None and "port_id" in port.stat:
                    # Ascend 950's -stat names the port it counts ("port_id: 4", its reference's
                    # example under "hccn_tool -g -stat -i 0 -u 0 -p 4"); the command line, where
                    # the copy kept it, names the die
                    asked = lines[no - 1] if 0 < no <= len(lines) else ""
                    die = _ASKED_DIE_RE.search(asked)
                    port.die_port = (
                        f"UDie {die.group(1)} port {port.stat['port_id']}"
                        if die
                        else f"port {port.stat['port_id']}"
                    )
            if query == "tls":
                for cert in port.tls_certs:
                    # _apply counts the chunk's lines; a finding cites the file's (the body's)
                    chunk_line = cert["line"]
                    if isinstance(chunk_line, int) and 0 < chunk_line <= len(body):
                        cert["line"] = body[chunk_line - 1][0]
            for offset in offsets:
                warnings.append(
                    ParseWarning(
                        line=body[offset - 1][0],
                        message=f"hccn_tool -{query}: unreadable row "
                        + (
                            "(not the header's route columns)"
                            if query == "route"
                            else "(not '(ADDRESS) at MAC|<incomplete> on IFACE')"
                        ),
                    )
                )
            if query == "optical" and (unjudged := optical_unjudged(port.optical)):
                warnings.append(
                    ParseWarning(
                        line=no,
                        message="hccn_tool -optical: power not judged against the module's "
                        f"thresholds (no number, or thresholds in another unit): {', '.join(unjudged)}",
                        skipped=False,
                    )
                )
            if query == "tls" and port.tls_certs and port.tls_certs[-1]["end_time"] is None:
                # a copy that stopped inside its last certificate block (the block just read)
                warnings.append(
                    ParseWarning(
                        line=body[-1][0],
                        message=f"hccn_tool -tls: the copy ends inside the "
                        f"'{port.tls_certs[-1]['name']}' block, before its end_time",
                    )
                )
        except ParseError as e:
            warnings.append(ParseWarning(line=no, message=f"hccn_tool -{query}: {e.message}"))
        after = getattr(port, _STATE_OF.get(query, ""), None)
        if pinged_before:
            warnings.append(
                ParseWarning(
                    line=no,
                    message=f"hccn_tool -ping: the port was pinged more than once: the worst loss "
                    f"of its pings is kept ({port.ping_loss_pct} %)",
                    skipped=False,
                )
            )
        if before is not None and after is not None and after != before:
            # the same port asked again (a document's fault drill, a check before and after a
            # fix): the later answer stands, the change is said
            warnings.append(
                ParseWarning(
                    line=no,
                    message=f"hccn_tool -{query}: the port answered {before} before and {after} "
                    "here: the later answer is kept",
                    skipped=False,
                )
            )
    found = [p for p in ports if _has_data(p)]
    if not found and warnings:
        # outputs were there, none could be read: say why, where
        raise ParseError(warnings[0].message, line=warnings[0].line)
    if not found:
        raise ParseError(
            "no hccn_tool output (link, net_health, ip, tls, ping, optical, stat, route, arp, "
            "link_stat, pfc, lldp, roce_test, status, gateway)"
        )
    warnings += _elisions(text, sections)
    merged = _merge_bare(found)
    for port in merged:
        if port.device is not None and port.device <= _PLACEHOLDER_BASE:
            port.device = None  # a document's placeholder: no device of a machine
    return Bundle(ports=merged, warnings=warnings)


# (linear time on a long run: blanks after a line start stay on that line, not re-read from each of
# many blank lines)
_SELF_LABEL_RE = re.compile(
    r"^[^\S\n]*(?:device (\d+) PING\s|dev_id:(\d+),|\[dev(?:id|ice) (\d+)\]|Interface (\d+):)", re.M
)
"""An output's own naming of its device (ping, -tls -g, -link_stat -g, a grepped -lldp -g)."""


def _loop_devices(
    text: str, sections: list[_Section], warnings: list[ParseWarning]
) -> dict[int, int]:
    """Section index → device, for the outputs of ``for`` loops saved without their command
    lines. An output that names its device keeps it. The others take the loop's k-th device
    only where that is sure: the loop owns one output for each of its devices, none names
    another device than its place gives, and no '...' stands among them (a device whose command
    failed, printed nothing through a grep, or was left out of the copy shifts every later
    output onto the wrong device). Otherwise they keep no device, said."""
    lines = text.splitlines()
    loops = [lp for no, line, _ in numbered_lines(text) if (lp := _loop(line, no)) is not None]
    # any "for" line that runs hccn_tool ends the outputs of the loop above it, read or not
    barriers = [
        i + 1 for i, line in enumerate(lines) if "hccn_tool" in line and re.search(r"\bfor\s", line)
    ] + [no for device, _, no, _ in sections if device is not None]
    owned: dict[int, list[int]] = {}
    for index, (device, query, no, _) in enumerate(sections):
        if device is not None:
            continue
        above = [lp for lp in loops if lp.line < no]
        if not above or any(above[-1].line < b < no for b in barriers):
            continue
        if above[-1].query == query:
            owned.setdefault(above[-1].line, []).append(index)
    out: dict[int, int] = {}
    for lp in loops:
        indexes = owned.get(lp.line, [])
        if not indexes:
            continue
        labels: dict[int, int] = {}
        for index in indexes:
            body = "\n".join(t for _, t in sections[index][3])
            if m := _SELF_LABEL_RE.search(body):
                labels[index] = int(next(g for g in m.groups() if g is not None))
        out.update(labels)
        last = sections[indexes[-1]][3][-1][0] if sections[indexes[-1]][3] else lp.line
        elided = any(_ELIDED_RE.match(lines[n - 1]) for n in range(lp.line + 1, last + 1))
        placed = all(labels.get(i, d) == d for i, d in zip(indexes, lp.devices, strict=False))
        if len(indexes) == len(lp.devices) and not elided and placed and not lp.background:
            out.update({i: d for i, d in zip(indexes, lp.devices, strict=True) if i not in labels})
        elif len(labels) < len(indexes):
            why = (
                "its commands ran in the background ('&'), their outputs in any order"
                if lp.background
                else "a '...' among them"
                if elided
                else "an output names another device than its place"
                if not placed
                else f"{len(indexes)} for its {len(lp.devices)} device(s)"
            )
            warnings.append(
                ParseWarning(
                    line=lp.line,
                    message=f"the -{lp.query} outputs of this loop are not given its devices by "
                    f"their order ({why}: a failed, filtered or left-out output would shift "
                    "them): their devices are unknown",
                    skipped=False,
                )
            )
    return out


def _elisions(text: str, sections: list[_Section]) -> list[ParseWarning]:
    """Where a copy left lines out ('...'): inside one output (a blog masking some of its
    lines: the rest of the output is read), between two outputs, or after the last."""
    notes = []
    for elided in _ELIDED_RE.finditer(text):
        no = text.count("\n", 0, elided.start()) + 1
        owner = next(
            (
                (device, query, body)
                for device, query, _, body in sections
                if any(n == no for n, _ in body)
            ),
            None,
        )
        later = owner is not None and any(n > no and t.strip() for n, t in owner[2])
        if owner is not None and later:
            message = (
                f"the copy left lines of this -{owner[1]} output out ('...'): what they held is "
                "unknown; the lines after them are read"
            )
        elif owner is not None and owner[0] is not None:
            # the last line of a command's output: the command names its device, so what was
            # left out is the rest of this output, not other devices' outputs
            message = (
                f"the copy left the rest of this -{owner[1]} output out ('...'): its last lines "
                "are unknown"
            )
        elif text[elided.end() :].strip():
            message = "the copy left outputs out here ('...'): the ports they were of are unknown"
        else:
            # a document's "... ..." after the first devices' outputs: the rest were left out
            message = (
                "the copy left the outputs after this point out ('...'): the other devices' "
                "ports are unknown"
            )
        notes.append(ParseWarning(line=no, message=message))
    return notes


# (blanks, not newlines, around the fields: "\s*" at each line's start ran over the blank lines
# after it, again from every one of them)
_IPV6_RE = re.compile(r"^[ \t]*ipv6_address[ \t]*:[ \t]*([0-9A-Fa-f:.]+)[ \t]*$", re.M)
_IPV6_PREFIX_RE = re.compile(r"^[ \t]*prefix_length[ \t]*:[ \t]*(\d+)[ \t]*$", re.M)
_ELIDED_RE = re.compile(
    r"^[ \t]*(?:#[ \t]*)?(?:\.{3,}|…)(?:[ \t]+(?:\.{3,}|…))*[ \t]*(?:省略|omitted)?[ \t]*$", re.M
)
"""A line of only "..." (or "... ...", "# .....省略": "omitted"): what a document writes where it
cut a loop's output."""


def _apply(port: Port, query: str | None, chunk: str) -> list[int]:
    """Store one output on ``port``; returns offsets (in ``chunk``) of rows it could not read."""
    if query == "link":
        port.link = parse_link(chunk).status
    elif query == "net_health":
        port.net_health = parse_net_health(chunk).status
    elif query == "ip" and (v6 := _IPV6_RE.search(chunk)) and not re.search(r"ipaddr\s*:", chunk):
        # -ip -inet6 -g: "ipv6_address:127::101" / "prefix_length:112" (the port's IPv6 address;
        # its IPv4 one is -ip -g's)
        port.ipv6addr = v6.group(1)
        if prefix := _IPV6_PREFIX_RE.search(chunk):
            port.ipv6_prefix = int(prefix.group(1))
    elif query == "ip":
        ip = parse_ip(chunk)
        port.ipaddr, port.netmask, port.ip_preset = ip.ipaddr, ip.netmask, ip.preset
    elif query == "tls":
        tls = parse_tls(chunk)
        port.tls_enabled = tls.enabled
        port.tls_certs = [asdict(c) for c in tls.certs]
        port.tls_alarms = [c for c in port.tls_certs if c["status"]]
        if port.device is None and tls.device is not None:
            port.device = tls.device
    elif query == "ping":
        ping = parse_ping(chunk)
        loss = 100.0 if ping.loss_pct is None and ping.timeouts else ping.loss_pct
        # one NPU pinged more than once (several targets, or Ascend 950's UB ping from several
        # source addresses): the worst loss stands
        if port.ping_loss_pct is None or (loss is not None and loss > port.ping_loss_pct):
            port.ping_loss_pct, port.ping_target = loss, ping.target
    elif query == "optical":
        port.optical = parse_optical(chunk)
        port.optical_alarms = optical_alarms(port.optical)
    elif query == "stat":
        port.stat = parse_stat(chunk)
        port.stat_errors = stat_errors(port.stat)
        # (chunk lines; parse_bundle turns them into the file's)
        counters = [
            (no, m.group(1))
            for no, line, _ in numbered_lines(chunk)
            if (m := _COUNTER_NAME_RE.match(line)) and _is_error_counter(m.group(1))
        ]
        port.stat_error_lines = [no for no, name in counters if name in port.stat_errors]
        port.stat_checked_lines = [no for no, _ in counters]
    elif query == "link_stat":
        stat = parse_link_stat(chunk)
        port.link_up_count, port.link_down_count = stat.up_count, stat.down_count
        port.link_changes = [{"time": t, "state": state} for t, state in stat.changes]
        # records are newest first: a DOWN before the oldest UP is the link before the driver
        # brought it up, not a drop
        states = [state for _, state in stat.changes]
        first_up = len(states) - 1 - states[::-1].index("UP") if "UP" in states else len(states)
        port.link_flapped = (stat.up_count or 0) > 1 or "DOWN" in states[:first_up]
        if "DOWN" in states:
            # (a chunk's line; parse_bundle turns it into the file's)
            port.link_down_line = stat.change_lines[states.index("DOWN")]
        if states and states[0] == "DOWN":
            # the records are the link's changes, newest first: with no UP after its newest
            # DOWN the link is down at the query's "current time" (its -link -g, where the file
            # has one, says the same; an earlier or later answer of it stands)
            port.link_down_since = stat.changes[0][0]
            if port.link is None:
                port.link = "DOWN"
        if port.device is None and stat.device is not None:
            port.device = stat.device
        port.die_port = stat.die_port
    elif query == "pfc":
        port.pfc_priorities = parse_pfc(chunk)
    elif query == "lldp":
        port.lldp = parse_lldp(chunk)
    elif query == "gateway":
        if (gw := _GATEWAY_RE.search(chunk)) is not None:
            port.gateway = gw.group(1)
        elif _NO_GATEWAY_RE.search(chunk):
            port.gateway = "none"  # "default gateway:, Iface:eth0": the port has none set
        else:
            raise ParseError("no 'default gateway:ADDRESS' line in the -gateway output")
    elif query == "roce_test":
        rt = _ROCE_TEST_RE.search(chunk)
        port.roce_test = parse_roce_test(chunk, rt.group("test") if rt else "roce_test")
    elif query == "status":
        port.speed_mbps, detected = parse_status(chunk)
        if detected is not None and port.link is None:  # -link -g's own answer comes first
            port.link = "UP" if detected else "DOWN"
    elif query == "route":
        port.routes, bad = parse_route(chunk)
        return bad
    elif query == "arp":
        port.arp, bad = parse_arp(chunk)
        return bad
    return []


# (linear time on a long run: blanks after a line start stay on that line, not re-read from each of
# many blank lines)
_GATEWAY_RE = re.compile(r"^[^\S\n]*default gateway[ \t]*:[ \t]*([^,\s]+)", re.M)
# (linear time on a long run: blanks after a line start stay on that line, not re-read from each of
# many blank lines)
_NO_GATEWAY_RE = re.compile(r"^[^\S\n]*default gateway[ \t]*:[ \t]*(?:,|$)", re.M)
# (linear time on a long run: blanks after a line start stay on that line, not re-read from each of
# many blank lines)
_SPEED_RE = re.compile(r"^[^\S\n]*Speed:\s*(\d+)\s*Mb/s", re.M)
# (linear time on a long run: blanks after a line start stay on that line, not re-read from each of
# many blank lines)
_DETECTED_RE = re.compile(r"^[^\S\n]*Link detected:\s*(yes|no)\b", re.M)


def parse_status(text: str) -> tuple[int | None, bool | None]:
    """``hccn_tool -i N -status -g`` → (``Speed`` in Mb/s, ``Link detected``), None for what the
    output leaves out (a port whose link is down prints ``Speed: Unknown!``)."""
    speed = _SPEED_RE.search(text)
    detected = _DETECTED_RE.search(text)
    if speed is None and detected is None:
        raise ParseError("no 'Speed:' or 'Link detected:' line in the -status output")
    return (
        int(speed.group(1)) if speed else None,
        detected.group(1) == "yes" if detected else None,
    )


def _has_data(p: Port) -> bool:
    return any(
        (
            p.link,
            p.link_history,
            p.net_health,
            p.ipaddr,
            p.ip_preset is not None,
            p.tls_enabled is not None,
            p.ping_loss_pct is not None,
            p.link_up_count is not None,
            p.pfc_priorities is not None,
            p.roce_test is not None,
            p.speed_mbps is not None,
            p.gateway,
            p.fec_uncorrected_frames is not None,
            p.link_down_records is not None,
            p.fec_mode is not None,
            p.bandwidth_tx_mb_s is not None or p.bandwidth_rx_mb_s is not None,
        )
    ) or bool(
        p.optical
        or p.stat
        or p.routes
        or p.arp
        or p.link_changes
        or p.lldp
        or p.su_ber_lanes
        or p.serdes_lanes
    )


def _merge_bare(ports: list[Port]) -> list[Port]:
    """Bare outputs whose device became known (a tls or ``device N PING`` line names it) join
    that device's port."""
    by_device: dict[tuple[int, str | None, str | None], Port] = {}
    out: list[Port] = []
    for p in ports:
        if p.device is None:
            out.append(p)
            continue
        # (Ascend 950: one NPU's ports are told apart by die and port)
        key = (p.device, p.die_port, p.host)
        if key in by_device:
            target = by_device[key]
            for name in (
                "link", "net_health", "ipaddr", "netmask", "ip_preset", "ipv6addr", "ipv6_prefix", "tls_enabled",
                "ping_loss_pct", "ping_target", "link_up_count", "link_down_count",
                "link_flapped", "pfc_priorities", "roce_test", "speed_mbps", "gateway",
                "fec_uncorrected_frames", "pre_fec_error_bits", "link_down_records",
                "link_down_since", "link_down_line",
            ):  # fmt: skip
                if getattr(p, name) is not None and getattr(target, name) is None:
                    setattr(target, name, getattr(p, name))
            target.optical = target.optical or p.optical
            target.optical_alarms = target.optical_alarms or p.optical_alarms
            target.stat = target.stat or p.stat
            target.stat_errors = target.stat_errors or p.stat_errors
            target.stat_error_lines = target.stat_error_lines or p.stat_error_lines
            target.stat_checked_lines = target.stat_checked_lines or p.stat_checked_lines
            target.routes = target.routes or p.routes
            target.arp = target.arp or p.arp
            target.tls_certs = target.tls_certs or p.tls_certs
            target.tls_alarms = target.tls_alarms or p.tls_alarms
            target.link_changes = target.link_changes or p.link_changes
            target.lldp = target.lldp or p.lldp
            target.su_ber_lanes = target.su_ber_lanes or p.su_ber_lanes
            target.su_ber_alarms = target.su_ber_alarms or p.su_ber_alarms
            target.link_down_snapshots = target.link_down_snapshots or p.link_down_snapshots
            target.link_down_snr_zero = target.link_down_snr_zero or p.link_down_snr_zero
            continue
        by_device[key] = p
        out.append(p)
    return sorted(out, key=lambda p: (p.device is None, p.device or 0, p.line))


VNIC_SIGNATURE = r"^[ \t]*vnic link status:[ \t]*\w+"
"""``hccn_tool -i N -g -vnic`` (Ascend 950): the virtual NIC's ``vnic link status: UP``, then its
``vnic ipaddr:`` and ``vnic netmask:`` lines."""
_VNIC_RE = re.compile(r"^\s*vnic (link status|ipaddr|netmask):\s*(\S+)\s*$")


@dataclass
class Vnic:
    line: int
    status: str
    ipaddr: str | None = None
    netmask: str | None = None


# MindCluster's npu-exporter in Prometheus' text form (its metrics reference, mind-cluster docs/en/
# scheduling/api/npu_exporter/01_prometheus_metrics_api.md): per chip "npu_chip_info_link_status
# {id="0",...} 1" (1 UP, 0 DOWN, -1 hccn_tool failed) and "npu_chip_info_network_status" (1
# healthy and reachable, 0 unhealthy or unreachable, -1 DCMI failed); its health_status (1
# healthy, 0 unhealthy, -1 unknown) is said in a note
EXPORTER_SIGNATURE = (
    r"^machine_npu_nums[ \t]+\d+[ \t]*$"
    r"|^npu_chip_info_(?:link|network|health)_status\{[^}\n]*?\bid=\"\d+\""
    # any of its per-chip samples, its labels in any order (the API reference's example)
    r"|^npu_chip_info_\w+\{[^}\n]*\bid=\"\d+\"[^}\n]*\}\s+-?[\d.]+"
    # its Telegraf plugin's output in InfluxDB's line protocol: a chip's measurement ("Ascend910
    # -0"), its tags, then its fields ("npu_chip_info_link_status=1i,...") and a time stamp
    r"|^[A-Za-z][\w]*-\d+(?:,[\w]+=[^,\s]*)*\s+(?:\w+=[^,\s]+,)*npu_chip_\w+=-?[\d.]+i?\b"
)
_TELEGRAF_RE = re.compile(r"^(?P<chip>[A-Za-z]\w*)-(?P<id>\d+)(?:,\w+=[^,\s]*)*\s+(?P<fields>\S+)")
_TELEGRAF_FIELD_RE = re.compile(
    r"\bnpu_chip_info_(?P<metric>link_status|network_status|health_status)=(?P<value>-?\d+)i?\b"
)
# the chip's error code gauge ("npu_chip_info_error_code{id="0"} 0"): 0 when the chip reports no
# fault code
_EXPORTER_ERROR_CODE_RE = re.compile(
    r"^npu_chip_info_error_code\{[^}\n]*?\bid=\"(?P<id>\d+)\"[^}\n]*\}\s+(?P<code>\d+)\b", re.M
)
_EXPORTER_CHIP_RE = re.compile(r"^npu_chip_info_\w+\{[^}\n]*\bid=\"(\d+)\"", re.M)
_EXPORTER_RE = re.compile(
    r"^npu_chip_info_(?P<metric>link_status|network_status|health_status)\{[^}\n]*?\bid=\"(?P<id>\d+)\""
    r"[^}\n]*\}\s+"
    r"(?P<value>-?\d+)\b"
)


# npu-exporter's count of the NPUs it found ("# HELP machine_npu_nums Amount of npu installed on
# the machine." then "machine_npu_nums 8")
MACHINE_NPU_NUMS_RE = re.compile(r"^machine_npu_nums\s+(?P<n>\d+)\s*$", re.M)


def parse_exporter(text: str) -> tuple[list[Port], list[ParseWarning]]:
    """The port states of npu-exporter's metrics, one Port a chip; the chips' health in notes."""
    ports: dict[int, Port] = {}
    unhealthy: list[tuple[int, int, int]] = []  # (line, chip, value)
    samples: list[tuple[int, int, str, int]] = []  # (line, chip, metric, value)
    for no, line, _ in numbered_lines(text):
        if m := _EXPORTER_RE.match(line.strip()):
            samples.append((no, int(m.group("id")), m.group("metric"), int(m.group("value"))))
        elif t := _TELEGRAF_RE.match(line.strip()):
            samples.extend(
                (no, int(t.group("id")), f.group("metric"), int(f.group("value")))
                for f in _TELEGRAF_FIELD_RE.finditer(line)
            )
    for no, chip, metric, value in samples:
        if metric == "health_status":
            if value != 1:
                unhealthy.append((no, chip, value))
            continue
        port = ports.setdefault(chip, Port(device=chip, line=no))
        if metric == "link_status":
            port.link = {1: "UP", 0: "DOWN"}.get(value)
        else:
            port.net_health = {1: "Success", 0: "Unhealthy (npu-exporter network_status 0)"}.get(
                value
            )
    codes = {
        int(c.group("id")): int(c.group("code")) for c in _EXPORTER_ERROR_CODE_RE.finditer(text)
    }
    code_note = (
        [
            ParseWarning(
                line=text.count("\n", 0, text.find("npu_chip_info_error_code{")) + 1,
                message=f"npu-exporter: error code of {len(codes)} chip(s): "
                + (
                    "0 on every one (no fault code)"
                    if not any(codes.values())
                    else ", ".join(
                        f"NPU {chip} {code}" for chip, code in sorted(codes.items()) if code
                    )
                    + " (the chips' fault codes: npu-smi info -t health -i N says what each is)"
                ),
                skipped=False,
            )
        ]
        if codes
        else []
    )
    if not ports and not unhealthy and code_note:
        return [], code_note
    if not ports and not unhealthy:
        chips = {c.group(1) for c in _EXPORTER_CHIP_RE.finditer(text)} | {
            t.group("id") for line in text.splitlines() if (t := _TELEGRAF_RE.match(line.strip()))
        }
        if not chips and (count := MACHINE_NPU_NUMS_RE.search(text)):
            return [], [
                ParseWarning(
                    line=text.count("\n", 0, count.start()) + 1,
                    message=f"npu-exporter: machine_npu_nums {count.group('n')}, no chip's "
                    "metrics in the copy",
                    skipped=False,
                )
            ]
        if not chips:
            raise ParseError("no npu_chip_info_* sample of a chip")
        # other metrics only (frequencies, bandwidth, memory ...): nothing of a link or of health
        return [], [
            ParseWarning(
                line=0,
                message=f"npu-exporter: metrics of {len(chips)} chip(s), none of their link, "
                "network or health status in the copy: not judged",
                skipped=False,
            )
        ]
    notes = [
        ParseWarning(
            line=no,
            message=f"npu-exporter: NPU {chip} health_status {value} "
            + ("(unhealthy)" if value == 0 else "(unknown: the DCMI call failed)"),
            skipped=False,
        )
        for no, chip, value in unhealthy
    ]
    return list(ports.values()), notes + code_note


def parse_vnic(text: str) -> list[Vnic]:
    """Each vNIC answer in ``text``, its address lines under its status line."""
    found: list[Vnic] = []
    for no, line, _ in numbered_lines(text):
        if not (m := _VNIC_RE.match(line)):
            continue
        key, value = m.group(1), m.group(2)
        if key == "link status":
            found.append(Vnic(line=no, status=value))
        elif found and key == "ipaddr":
            found[-1].ipaddr = value
        elif found and key == "netmask":
            found[-1].netmask = value
    if not found:
        raise ParseError("no 'vnic link status:' line")
    return found


# HCCP's own record of a device's TLS switch in its run log (rs_ssl.c rs_ssl_init): "[INFO]
# HCCP(2988,hccp_service.bin):2025-10-24-15:39:26.133.826 [rs_ssl.c:1529]tid:2988,rs_ssl_init(1529)
# : TLS SWITCH (1)", the device from the log's own path when a grep over the devices' run logs
# names it ("run/device-0/device-2849330_...log:[INFO] HCCP..."), as the HCCL guide's EI0006 page
# greps them (hicann/hccl docs/zh/user_guide/fault_diagnosis/link_timeout_EI0006.md: a switch
# that differs between the two ends fails the socket's check, and both ends time out)
_HCCP_TLS_RE = re.compile(
    r"^(?:(?P<host>[\w.-]+): )?(?:\S*?\bdevice-(?P<dev>\d+)/\S*?:)?.*?\bHCCP\((?P<pid>\d+),[^)]*\):"
    r".*?rs_ssl_init\(\d+\)\s*:\s*TLS SWITCH \((?P<on>[01])\)"
)


_HCCP_STAMP_RE = re.compile(r"\d{4}-\d\d-\d\d-\d\d:\d\d:\d\d(?:\.\d+)*")


def hccp_tls_switches(text: str) -> list[Port]:
    """One port a device (of a host, where pdsh's prefix names it) whose HCCP run log gives its
    TLS switch: the last line of each, since hccp_service logs it at each start and the link
    set-up that failed is the latest run's (lines naming no device are told apart by HCCP's
    pid, never folded into one)."""
    ports: dict[tuple[str | None, str], tuple[str, Port]] = {}
    for no, line, _ in numbered_lines(text):
        if "TLS SWITCH (" not in line or not (m := _HCCP_TLS_RE.search(line)):
            continue
        device = int(m.group("dev")) if m.group("dev") is not None else None
        key = (m.group("host"), str(device) if device is not None else f"pid {m.group('pid')}")
        # the latest by HCCP's own time stamp ("2025-10-24-15:39:26.133.826", in order as
        # text), not by the order a grep listed the files in
        stamp = t.group(0) if (t := _HCCP_STAMP_RE.search(line)) else ""
        if key not in ports or stamp >= ports[key][0]:
            ports[key] = (
                stamp,
                Port(
                    device=device, host=m.group("host"), tls_enabled=m.group("on") == "1", line=no
                ),
            )
    return [port for _, port in ports.values()]


# npu-smi's certificate query (Ascend 950 npu-smi guide, "Querying Certificate Information",
# ``npu-smi info -t tls-cert -i N``): "Alarm status : 0", "Start time", "End time" and "Common
# name" lines; the alarm is 0 not expired, 1 about to expire, 2 expired, 3 unavailable within its
# validity period. Read as the device's certificate, beside hccn_tool's -tls -g ones.
TLS_CERT_SIGNATURE = r"^[ \t]*Alarm status[ \t]+:[ \t]*\d+[ \t]*\n[ \t]*Start time[ \t]+:"
_TLS_CERT_FIELD_RE = re.compile(
    r"^\s*(?P<key>Alarm status|Start time|End time|Common name)\s+:\s*(?P<value>.*?)\s*$"
)
_TLS_CERT_COMMAND_RE = re.compile(r"npu-smi\s+info\s+-t\s+tls-cert\s+-i\s+(?P<dev>\d+)")
TLS_CERT_ALARMS = {
    0: "not expired",
    1: "about to expire",
    2: "expired",
    3: "unavailable within its validity period",
}


def parse_tls_cert(text: str) -> list[Port]:
    """Each ``npu-smi info -t tls-cert`` answer as its device's port with one certificate (its
    ``tls_alarms`` holding it when the alarm is not 0)."""
    ports: list[Port] = []
    device: int | None = None
    current: Port | None = None
    for no, line, _ in numbered_lines(text):
        if c := _TLS_CERT_COMMAND_RE.search(line):
            device, current = int(c.group("dev")), None
            continue
        if not (f := _TLS_CERT_FIELD_RE.match(line)):
            continue
        key, value = f.group("key"), f.group("value")
        if key == "Alarm status":
            code = int(value) if value.isdigit() else None
            cert: dict[str, object] = {
                "name": "npu-smi tls-cert",
                "end_time": None,
                "status": code,
                "status_text": TLS_CERT_ALARMS.get(code) if code is not None else value,
                "line": no,
            }
            current = Port(device=device, line=no, tls_certs=[cert])
            ports.append(current)
            device = None
        elif current is not None and key == "End time":
            current.tls_certs[0]["end_time"] = value or None
        elif current is not None and key == "Common name" and value:
            current.tls_certs[0]["name"] = f"certificate {value}"
    for port in ports:
        port.tls_alarms = [c for c in port.tls_certs if c["status"]]
    if not ports:
        raise ParseError("no npu-smi tls-cert 'Alarm status' line")
    return ports


# MindCluster's environment check saves each NPU's hccn_tool -stat counters it sampled as a CSV,
# npu_<id>_details.csv beside npu-smi's npu_smi_<id>_details.csv (Ascend/mind-cluster,
# component/ascend-faultdiag/test/st_testcase/modelarts-job-testdt/ascend/environment_check/
# worker-0/npu_0_details.csv): "timestamp,npu_index,report_time,host_ip," then the -stat -g
# counter names (mac_tx_pfc_pri4_pkt_num ... roce_rx_err_pkt_num ... roce_tx_cnp_pkt_num), a row
# a sample. The counters run from the driver's start, so the last sample holds all the rest do.
STAT_CSV_SIGNATURE = (
    r"^[ \t>]*\ufeff?timestamp,npu_index,[^\n]{0,200}?\b(?:mac|roce)_[a-z0-9_]{1,40}_num\b"
)
_STAT_CSV_HEAD_RE = re.compile(r"^(?P<lead>[ \t>]*)\ufeff?timestamp,npu_index,")


@dataclass(kw_only=True)
class StatSamples:
    """One NPU's samples of a MindCluster -stat counter CSV."""

    device: int
    line: int
    """The NPU's last sample's line: the counters there hold the earlier samples' counts."""
    samples: int
    first_s: int | None
    last_s: int | None
    """The first and last samples' ``timestamp`` (epoch seconds), None where not a number."""
    stat: dict[str, int]
    """The last sample's counters that are whole numbers (a spreadsheet's ``8.07084E+13``, an
    octet count rounded on its way through one, is no count and is left out)."""
    grew: dict[str, int]
    """Error counters (``*err*``, ``*bad*``) that grew from the first sample to the last."""
    rows: list[tuple[int, int | None, dict[str, int]]] = field(default_factory=list)
    """Each sample in order: its line, its ``timestamp`` (epoch seconds, None where not a number)
    and its counters that are whole numbers."""


# Ascend 950's -stat -g (a UB port's, "hccn_tool -g -stat -i N -u U -p P") has no roce_
# counters; its error counters, by its HCCN Tool reference's Output Description (hicann/driver
# docs/en/Ascend_950_HCCN_Tool/Ascend_950_HCCN_Tool/querying-port-statistics.md): ERR packets
# (err_ind_cnt_rx/_tx), routing table lookup errors (route_err_cnt_rx), erroneous packets found
# on verification (out_err_cnt_rx/_tx), length errors (length_err_cnt_rx/_tx) and CRC errors
# (crc_error_sum). Retransmission requests (retry_req_sum, retry_ack_sum) and drop_ind packets
# the reference calls no error: they are not among them.
UB_STAT_ERROR_COUNTERS = frozenset(
    {
        "err_ind_cnt_rx",
        "err_ind_cnt_tx",
        "route_err_cnt_rx",
        "out_err_cnt_rx",
        "out_err_cnt_tx",
        "length_err_cnt_rx",
        "length_err_cnt_tx",
        "crc_error_sum",
    }
)


def _is_error_counter(name: str) -> bool:
    """Whether a -stat -g counter counts errors: RoCE's ``roce_*err*``, Ascend 950's own."""
    return (name.startswith("roce_") and "err" in name) or name in UB_STAT_ERROR_COUNTERS


def stat_errors(stat: dict[str, int]) -> dict[str, int]:
    """The error counters of a -stat reading that are not 0 (as ``Port.stat_errors``)."""
    return {k: v for k, v in stat.items() if _is_error_counter(k) and v > 0}


def parse_stat_csv(text: str) -> tuple[list[StatSamples], list[ParseWarning]]:
    """Each NPU's samples of a MindCluster -stat counter CSV; a row cut short or of no NPU is
    said in a warning."""
    columns: list[str] = []
    lead = ""
    rows: dict[int, list[tuple[int, dict[str, str]]]] = {}
    warnings: list[ParseWarning] = []
    for no, line, _ in numbered_lines(text):
        if not columns:
            if head := _STAT_CSV_HEAD_RE.match(line):
                lead = head.group("lead")
                columns = [c.strip() for c in line[len(lead) :].lstrip("\ufeff").split(",")]
            continue
        row = line[len(lead) :] if line.startswith(lead) else line
        if not row.strip():
            continue
        values = [v.strip() for v in row.split(",")]
        if len(values) != len(columns) or not values[1].isdigit():
            warnings.append(
                ParseWarning(
                    line=no,
                    message=f"a row of {len(values)} field(s) under the {len(columns)}-column "
                    "header (cut, or not a sample): not read",
                )
            )
            continue
        rows.setdefault(int(values[1]), []).append((no, dict(zip(columns, values, strict=True))))
    if not rows:
        raise ParseError("no sample row under MindCluster's hccn_tool -stat CSV header")
    found: list[StatSamples] = []
    for device, samples in rows.items():
        counts = [
            {k: int(v) for k, v in values.items() if k.endswith("_num") and v.isdigit()}
            for _, values in samples
        ]
        first, last = counts[0], counts[-1]
        stamps = [values.get("timestamp", "") for _, values in samples]
        found.append(
            StatSamples(
                device=device,
                line=samples[-1][0],
                samples=len(samples),
                first_s=int(stamps[0]) if stamps[0].isdigit() else None,
                last_s=int(stamps[-1]) if stamps[-1].isdigit() else None,
                stat=last,
                rows=[
                    (no, int(stamp) if stamp.isdigit() else None, c)
                    for (no, _), stamp, c in zip(samples, stamps, counts, strict=True)
                ],
                grew={
                    k: v - first[k]
                    for k, v in last.items()
                    if ("err" in k or "bad" in k) and k in first and v > first[k]
                },
            )
        )
    return found, warnings


PFC_RECEIVED_SHARE = 0.03
"""PFC pause frames an NPU port received per RoCE packet it sent (MindCluster FaultDiag's
``t_congestion_index``, mac_rx_pfc_pkt_num / roce_tx_all_pkt_num: component/ascend-faultdiag
src/ascend_fd/pkg/parse/network_congestion/net_parse_job.py, feature_extract_cal_percentage) at
and past which the port's link partner held its sending back more than flow control at work does.
FaultDiag feeds the ratio, over the samples' growth (filter_valid_data_interval takes the
counters' differences), to a trained model, not to a threshold; its training set
(platform/net_model_training/train.csv, Ascend/mind-cluster 22bb3d98) labels no sample
uncongested at or past 0.03 (its uncongested rows' largest is 0.029, 95 % of them under 0.006),
and half its congested rows are past it (their median 0.034)."""
PFC_RECEIVED_MIN = 10_000
"""Fewer pause frames received than this are a burst's, whatever the share (as ethtool's
PAUSES_SENT_MIN for a NIC's)."""


@dataclass(kw_only=True)
class PfcReceived:
    """The PFC pause frames one NPU's samples say its port received, weighed as FaultDiag does."""

    first_line: int
    first: int
    last_line: int
    last: int
    grew: int
    """From the first sample to the last (0 with one sample)."""
    span_s: int | None
    """Seconds from the first sample to the last; None where a timestamp is no number."""
    grew_by_line: int | None
    """The sample's line by which the count had reached its last value, where that is before the
    last sample (the growth ended earlier); None otherwise."""
    grew_by_s: int | None
    sent_grew: int | None
    """The RoCE packets sent (roce_tx_all_pkt_num) from the first sample to the last; None where
    the samples hold no such count."""
    sent: int | None
    """The RoCE packets sent at the last sample (from the driver's start)."""
    share: float | None
    """Pause frames received a RoCE packet sent over the samples' growth, where RoCE traffic was
    sent between them (FaultDiag's reading); None otherwise (one sample, or none sent between
    them): the counts since the driver started say nothing of congestion now."""
    over_samples: bool
    """Whether ``share`` could be taken (over the samples' growth)."""
    congested: bool
    """Whether ``share`` reaches PFC_RECEIVED_SHARE on PFC_RECEIVED_MIN pause frames or more
    received between the samples; never on one sample's totals."""


def pfc_received(npu: StatSamples) -> PfcReceived | None:
    """The PFC pause frames ``npu``'s port received (``mac_rx_pfc_pkt_num``) over its samples,
    weighed against the RoCE packets it sent; None where its samples count none."""
    counted = [
        (no, ts, c["mac_rx_pfc_pkt_num"]) for no, ts, c in npu.rows if "mac_rx_pfc_pkt_num" in c
    ]
    if not counted or not counted[-1][2]:
        return None
    (first_line, first_s, first), (last_line, last_s, last) = counted[0], counted[-1]
    reached = next((no, ts) for no, ts, n in counted if n == last)
    sent_counts = [c["roce_tx_all_pkt_num"] for _, _, c in npu.rows if "roce_tx_all_pkt_num" in c]
    sent = sent_counts[-1] if sent_counts else None
    sent_grew = sent_counts[-1] - sent_counts[0] if sent_counts else None
    over_samples = bool(sent_grew and sent_grew > 0 and len(counted) > 1)
    # FaultDiag's t_congestion_index is taken over the samples' differences only (net_parse_job.py
    # filter_valid_data_interval: npu_df.diff(), kept where roce_tx_rc_pkt_num moved), never over
    # the totals since the driver started: a lifetime ratio says nothing of the port now, so with
    # one sample, or no RoCE packet sent between them, no share is taken and none is judged.
    pauses = last - first
    share = pauses / sent_grew if over_samples and sent_grew else None
    return PfcReceived(
        first_line=first_line,
        first=first,
        last_line=last_line,
        last=last,
        grew=last - first,
        span_s=last_s - first_s if last_s is not None and first_s is not None else None,
        grew_by_line=reached[0] if reached[0] != last_line and last != first else None,
        grew_by_s=(
            reached[1] - first_s
            if reached[0] != last_line and reached[1] is not None and first_s is not None
            else None
        ),
        sent_grew=sent_grew,
        sent=sent,
        share=share,
        over_samples=over_samples,
        congested=(
            over_samples
            and share is not None
            and share >= PFC_RECEIVED_SHARE
            and pauses >= PFC_RECEIVED_MIN
        ),
    )
