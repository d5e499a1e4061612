"""NCCL's topology XML, as ``NCCL_TOPO_DUMP_FILE`` writes it (and ``NCCL_TOPO_FILE`` reads it).

NCCL's src/graph/xml.cc builds the tree it detected: ``<system version="1">`` holds a ``<cpu
numaid=.. affinity=..>`` per NUMA node, under it ``<pci busid=.. class=.. link_speed="16.0 GT/s
PCIe" link_width="16">`` nodes (bridges and switches nest), a GPU's ``<gpu dev=.. sm=.. rank=..
gdr=..>`` (``sm`` its compute capability, major * 10 + minor; ``gdr`` whether GPU Direct RDMA can
reach it) with an ``<nvlink target=BUSID count=N tclass=..>`` per peer its NVLinks reach (an
NVSwitch's class 0x068000), and a NIC's ``<nic>`` with a ``<net name=.. dev=.. speed=.. port=..
gdr=..>`` per port (``speed`` in Mb/s: topo.cc's ncclTopoAddNet divides it by 8000 for GB/s).
RCCL writes the same tree for AMD GPUs, a ``gcn`` attribute on each ``<gpu>`` and ``<xgmi>``
links in place of NVLinks.

A dump is what NCCL saw, not a fault: it is said (GPUs, their NVLinks and PCIe links, the NICs
and which of them GPU Direct RDMA reaches), and read as far as a cut copy goes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.parsers import ParseError

SIGNATURE = (
    r'<system version="\d+"\s*>'
    r'|<gpu dev="\d+" sm="\d+"'
    r'|<net name="[^"\n]*" dev="\d+" speed="\d+"'
)
_TAG_RE = re.compile(
    r"<(?P<close>/?)(?P<tag>system|cpu|pci|gpu|nvlink|xgmi|nic|net)\b(?P<attrs>[^<>]*?)(?P<empty>/?)>"
)
# (linear time on a long run: a match starts where its run starts, not at each character of a long
# one)
_ATTR_RE = re.compile(r'(?<!\w)(?P<key>[\w]+)="(?P<value>[^"]*)"')


@dataclass(kw_only=True)
class TopoGpu:
    line: int
    dev: int
    sm: int | None = None
    rank: int | None = None
    gdr: bool | None = None
    busid: str = ""
    link_speed: str = ""
    link_width: int | None = None
    nvlinks: dict[str, int] = field(default_factory=dict)
    """Target bus id → NVLinks to it."""
    nvswitch_links: int = 0
    """Of them, the links to NVSwitches (class 0x068000)."""
    gcn: str | None = None
    """RCCL's dump of an AMD GPU: its ``gcn`` architecture (its ``sm`` is then no CUDA compute
    capability, and its peers are reached over ``<xgmi>`` links, in ``nvlinks``)."""


@dataclass(kw_only=True)
class TopoNet:
    line: int
    name: str
    speed_mbps: int | None = None
    port: int | None = None
    gdr: bool | None = None
    busid: str = ""


@dataclass(kw_only=True)
class Topology:
    gpus: list[TopoGpu] = field(default_factory=list)
    nets: list[TopoNet] = field(default_factory=list)
    cpus: list[tuple[str, str]] = field(default_factory=list)
    """Each CPU node's NUMA id and CPU affinity mask."""
    cut: bool = False
    """The copy ends with elements still open (or starts inside one)."""


def _attrs(text: str) -> dict[str, str]:
    return {m.group("key"): m.group("value") for m in _ATTR_RE.finditer(text)}


def _int(value: str | None) -> int | None:
    try:
        return int(value) if value is not None else None
    except ValueError:
        return None


def parse(text: str) -> Topology:
    """The GPUs, NICs and CPUs of an NCCL topology dump; ParseError when it holds no GPU or NIC."""
    topo = Topology()
    pci: list[dict[str, str]] = []  # the pci elements open around the current position
    depth = 0
    gpu: TopoGpu | None = None
    line_starts = [0] + [i + 1 for i, ch in enumerate(text) if ch == "\n"]
    line_of = 0
    for m in _TAG_RE.finditer(text):
        while line_of + 1 < len(line_starts) and line_starts[line_of + 1] <= m.start():
            line_of += 1
        no = line_of + 1
        tag, attrs = m.group("tag"), _attrs(m.group("attrs"))
        if m.group("close"):
            depth -= 1
            if tag == "pci" and pci:
                pci.pop()
            elif tag == "gpu":
                gpu = None
            if depth < 0:
                topo.cut, depth = True, 0  # the copy starts inside the tree
            continue
        if not m.group("empty"):
            depth += 1
        if tag == "cpu":
            topo.cpus.append((attrs.get("numaid", "?"), attrs.get("affinity", "")))
        elif tag == "pci":
            if not m.group("empty"):
                pci.append(attrs)
        elif tag == "gpu":
            dev = _int(attrs.get("dev"))
            if dev is None:
                continue
            here = pci[-1] if pci else {}
            gpu = TopoGpu(
                line=no,
                dev=dev,
                sm=_int(attrs.get("sm")),
                rank=_int(attrs.get("rank")),
                gdr=None if "gdr" not in attrs else attrs["gdr"] == "1",
                busid=here.get("busid", ""),
                link_speed=here.get("link_speed", ""),
                link_width=_int(here.get("link_width")),
                gcn=attrs.get("gcn"),
            )
            topo.gpus.append(gpu)
            if m.group("empty"):
                gpu = None
        elif tag in ("nvlink", "xgmi") and gpu is not None:
            target, count = attrs.get("target", "?"), _int(attrs.get("count")) or 1
            gpu.nvlinks[target] = gpu.nvlinks.get(target, 0) + count
            if attrs.get("tclass") == "0x068000":
                gpu.nvswitch_links += count
        elif tag == "net":
            topo.nets.append(
                TopoNet(
                    line=no,
                    name=attrs.get("name", "?"),
                    speed_mbps=_int(attrs.get("speed")),
                    port=_int(attrs.get("port")),
                    gdr=None if "gdr" not in attrs else attrs["gdr"] == "1",
                    busid=pci[-1].get("busid", "") if pci else "",
                )
            )
    topo.cut = topo.cut or depth > 0
    if not topo.gpus and not topo.nets:
        raise ParseError("no <gpu> or <net> element of an NCCL topology dump")
    return topo
