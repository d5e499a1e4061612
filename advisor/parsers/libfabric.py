"""libfabric's own checks: ``fi_info`` (the providers and endpoints the library offers) and the
fabtests' ping-pong tables (``fi_pingpong``, ``fi_rdm_pingpong`` ...).

- ``fi_info`` (fi_info(1)) prints a block per offered interface: ``provider: efa`` over its
  indented ``fabric:``, ``domain:``, ``version:``, ``type:`` (``FI_EP_RDM``, ``FI_EP_DGRAM``,
  ``FI_EP_MSG``) and ``protocol:``. AWS's EFA provider offers ``FI_EP_DGRAM`` and ``FI_EP_RDM`` on
  its SRD protocol (fi_efa(7)); NCCL's aws-ofi-nccl plugin sends over RDM endpoints, so an EFA
  host whose fi_info lists no ``efa`` provider with ``FI_EP_RDM`` cannot carry NCCL over EFA.
  A layered provider reads ``efa;ofi_rxd`` (the utility provider over the core one).
- libfabric's own ``fi_pingpong`` (util/pingpong.c, show_perf) prints ``bytes #sent #ack total
  time MB/sec usec/xfer Mxfers/sec`` and a row per message size, its counts shortened by
  cnt_str (``1k``, ``10m``): ``1k 10 =10 20k 0.00s 48.53 21.10 0.05``, ``=`` where every message
  sent was acknowledged, else ``+N``/``-N``, the difference.
- The fabtests' benchmarks (``fi_rdm_pingpong``, ``fi_msg_pingpong`` ...; fabtests/common/
  shared.c, show_perf) print ``bytes iters total time MB/sec usec/xfer Mxfers/sec``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.parsers import ParseError

SIGNATURE = (
    r"^provider:[ \t]*\S+[ \t]*\r?\n[ \t]+fabric:[ \t]*\S"
    r"|^[ \t]*bytes[ \t]+#sent[ \t]+#ack[ \t]+total[ \t]+time[ \t]+MB/sec[ \t]+usec/xfer"
    r"|^[ \t]*bytes[ \t]+iters[ \t]+total[ \t]+time[ \t]+MB/sec[ \t]+usec/xfer"
)
_PROVIDER_RE = re.compile(r"^provider:\s*(?P<prov>\S+)\s*$")
_FIELD_RE = re.compile(r"^\s+(?P<key>fabric|domain|version|type|protocol):\s*(?P<value>\S.*?)\s*$")
_PERF_HEAD_RE = re.compile(
    r"^\s*bytes\s+(?:#sent\s+#ack|(?P<iters>iters))\s+total\s+time\s+MB/sec\s+usec/xfer"
)
_NUMBER = r"\d+(?:\.\d+)?"
_COUNT = rf"{_NUMBER}[kmgbKMGB]?"
_PERF_ROW_RE = re.compile(
    rf"^\s*(?P<size>{_COUNT})\s+(?P<sent>{_COUNT})\s+(?:(?P<sign>[=+-])?(?P<ack>{_COUNT})\s+)?"
    rf"{_COUNT}\s+{_NUMBER}s\s+(?P<mbs>{_NUMBER})\s+(?P<usec>{_NUMBER})\s+{_NUMBER}\s*$"
)
_COMMAND_RE = re.compile(r"^\s*(?:\S*[$#]\s+)?(?P<cmd>fi_\w+\s.*?)\s*$")
_SIZE_UNITS = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "b": 1 << 30}


@dataclass(kw_only=True)
class Endpoint:
    line: int
    provider: str
    fabric: str = ""
    domain: str = ""
    version: str = ""
    type: str = ""
    protocol: str = ""


@dataclass(kw_only=True)
class PingPongRow:
    line: int
    size_bytes: int
    mb_s: float
    usec_per_xfer: float
    unacked: str = ""
    """fi_pingpong's ``+N``/``-N`` in its #ack column: sent and acknowledged differ by N."""


@dataclass(kw_only=True)
class Fabric:
    endpoints: list[Endpoint] = field(default_factory=list)
    pingpong: list[PingPongRow] = field(default_factory=list)
    pingpong_line: int = 0
    command: str = ""
    """The fabtest's command line where the copy holds it (``fi_pingpong -e rdm -p efa HOST``)."""


def _size(text: str) -> int:
    unit = text[-1].lower() if text[-1].isalpha() else ""
    return int(float(text.rstrip("kmgKMG")) * _SIZE_UNITS[unit])


def parse(text: str) -> Fabric:
    """fi_info's endpoint blocks and a fabtest's rows; ParseError when neither is found."""
    fabric = Fabric()
    current: Endpoint | None = None
    acks = True  # the table's columns hold #sent and #ack (fi_pingpong), not iters (fabtests)
    for no, line in enumerate(text.splitlines(), 1):
        if m := _PROVIDER_RE.match(line):
            current = Endpoint(line=no, provider=m.group("prov"))
            fabric.endpoints.append(current)
        elif current is not None and (f := _FIELD_RE.match(line)):
            setattr(current, f.group("key"), f.group("value"))
        elif h := _PERF_HEAD_RE.match(line):
            current, fabric.pingpong_line = None, fabric.pingpong_line or no
            acks = h.group("iters") is None
        elif fabric.pingpong_line and (r := _PERF_ROW_RE.match(line)):
            if acks != (r.group("ack") is not None):
                continue  # (a row of the other table's columns)
            fabric.pingpong.append(
                PingPongRow(
                    line=no,
                    size_bytes=_size(r.group("size")),
                    mb_s=float(r.group("mbs")),
                    usec_per_xfer=float(r.group("usec")),
                    unacked=f"{r.group('sign')}{r.group('ack')}"
                    if r.group("sign") in ("+", "-")
                    else "",
                )
            )
        elif not fabric.command and " -p " in line and (c := _COMMAND_RE.match(line)):
            fabric.command = c.group("cmd")  # (behind a shell prompt too: "$ fi_pingpong ...")
        elif line.strip() and not line[:1].isspace():
            current = None
    if not fabric.endpoints and not fabric.pingpong_line:
        raise ParseError("no fi_info provider block or fabtests' ping-pong table")
    return fabric
