"""The CUDA samples' p2pBandwidthLatencyTest (NVIDIA/cuda-samples,
Samples/5_Domain_Specific/p2pBandwidthLatencyTest): copy bandwidth and latency between every
pair of GPUs, with peer-to-peer access off and on.

What it prints (p2pBandwidthLatencyTest.cu, main): ``[P2P (Peer-to-Peer) GPU Bandwidth Latency
Test]``, a ``Device: N, NAME, pciBusID: 3b, pciDeviceID: 0, pciDomainID:0`` line a GPU, the ``P2P
Connectivity Matrix`` (1 where cudaDeviceCanAccessPeer says the pair can), then in this order
``Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)``, ``Unidirectional P2P=Enabled Bandwidth
(P2P Writes) Matrix (GB/s)``, with ``--p2p_read`` ``... (P2P Reads) Matrix (GB/s)``,
``Bidirectional P2P=Disabled`` and ``=Enabled Bandwidth Matrix (GB/s)``, ``P2P=Disabled Latency
Matrix (us)``, ``P2P=Enabled Latency (P2P Writes) Matrix (us)`` (and Reads) -- each latency one
``GPU`` and one ``CPU`` block -- and last ``NOTE: The CUDA Samples are not meant for performance
measurements``. A bandwidth matrix is a ``D\\D`` label row and a row per GPU, ``%6.02f`` each;
the diagonal is a copy inside one GPU.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.parsers import ParseWarning, numbered_lines

_DEVICE_RE = re.compile(
    r"^Device: (\d+), (.+?), pciBusID: ([0-9a-fA-F]+), pciDeviceID: ([0-9a-fA-F]+), "
    r"pciDomainID:\s*([0-9a-fA-F]+)"
)
_CONNECTIVITY_RE = re.compile(r"^\s*P2P Connectivity Matrix\s*$")
# its cudaDeviceCanAccessPeer answer for each ordered pair, before the matrices:
# "Device=0 CAN Access Peer Device=1", "Device=0 CANNOT Access Peer Device=2"
_ACCESS_RE = re.compile(r"^\s*Device=(\d+) (CAN|CANNOT) Access Peer Device=(\d+)\s*$")
_TITLE_RE = re.compile(
    r"^\s*(?:(?P<way>Unidirectional|Bidirectional) )?P2P=(?P<p2p>Disabled|Enabled) "
    r"(?P<what>Bandwidth|Latency) (?:\(P2P (?P<mode>Writes|Reads)\) )?Matrix \((?P<unit>GB/s|us)\)"
)
_LABELS_RE = re.compile(r"^\s*(?P<corner>D\\D|GPU|CPU)((?:\s+\d+)+)\s*$")
_ROW_RE = re.compile(r"^\s*(\d+)((?:\s+[0-9]+(?:\.[0-9]+)?)+)\s*$")
_NOTE_RE = re.compile(r"^\s*NOTE: The CUDA Samples are not meant for performance measurements")
SIGNATURE = (
    r"^\[P2P \(Peer-to-Peer\) GPU Bandwidth Latency Test\]"
    r"|^\s*(?:Unidirectional|Bidirectional) P2P=(?:Disabled|Enabled) Bandwidth "
    r"(?:\(P2P (?:Writes|Reads)\) )?Matrix \(GB/s\)"
    r"|^\s*P2P=(?:Disabled|Enabled) Latency (?:\(P2P (?:Writes|Reads)\) )?Matrix \(us\)"
)
"""Its banner, or one of its bandwidth or latency matrices' titles: a copy that kept any of
them."""

MATRICES_BEFORE_LATENCY = (
    "Unidirectional P2P=Disabled Bandwidth",
    "Unidirectional P2P=Enabled Bandwidth (P2P Writes)",
    "Bidirectional P2P=Disabled Bandwidth",
    "Bidirectional P2P=Enabled Bandwidth",
    "P2P=Disabled Latency",
    "P2P=Enabled Latency (P2P Writes)",
)
"""The matrices every run prints, in order (main); ``--p2p_read`` adds the Reads ones."""


@dataclass(kw_only=True)
class Matrix:
    line: int
    title: str
    """The title without its ``Matrix (unit)`` tail: ``Unidirectional P2P=Enabled Bandwidth
    (P2P Writes)``."""
    p2p: bool
    unit: str
    """``GB/s`` or ``us``."""
    direction: str | None
    """``Unidirectional``, ``Bidirectional``; None for a latency matrix."""
    mode: str | None
    """``Writes`` or ``Reads`` for a P2P=Enabled matrix that says which."""
    block: str = "D\\D"
    """A latency matrix's block: ``GPU`` or ``CPU`` (the time each side measured)."""
    values: dict[int, dict[int, float]] = field(default_factory=dict)
    """Row GPU → column GPU → figure."""
    row_lines: dict[int, int] = field(default_factory=dict)
    """Row GPU → its row's line (where a pair's figure is, not its matrix's title)."""
    columns: list[int] = field(default_factory=list)


@dataclass(kw_only=True)
class Run:
    devices: list[dict[str, str | int]] = field(default_factory=list)
    """``{index, name, bus_id}`` (``bus_id`` as printed, hex)."""
    connectivity: dict[int, dict[int, int]] = field(default_factory=dict)
    access: dict[int, dict[int, bool]] = field(default_factory=dict)
    """GPU → peer → whether cudaDeviceCanAccessPeer said it can ("CAN Access Peer")."""
    access_line: int = 0
    """The first of those "Device=A CAN / CANNOT Access Peer Device=B" lines; 0: none."""
    matrices: list[Matrix] = field(default_factory=list)
    complete: bool = False
    """The copy holds the whole run: its closing NOTE line, or (a copy that left that boilerplate
    out) every matrix the run prints with a row for each of its GPUs."""


def parse(text: str) -> tuple[Run, list[ParseWarning]]:
    """Read one p2pBandwidthLatencyTest output; a matrix the copy cut is said."""
    run = Run()
    notes: list[ParseWarning] = []
    current: Matrix | None = None
    in_connectivity = False
    for no, line, _ in numbered_lines(text):
        if m := _DEVICE_RE.match(line):
            run.devices.append({"index": int(m.group(1)), "name": m.group(2), "bus_id": m.group(3)})
        elif m := _ACCESS_RE.match(line):
            run.access.setdefault(int(m.group(1)), {})[int(m.group(3))] = m.group(2) == "CAN"
            run.access_line = run.access_line or no
        elif _CONNECTIVITY_RE.match(line):
            in_connectivity, current = True, None
        elif m := _TITLE_RE.match(line):
            in_connectivity = False
            title = line.strip().split(" Matrix (")[0]
            current = Matrix(
                line=no,
                title=title.replace(" Matrix", ""),
                p2p=m.group("p2p") == "Enabled",
                unit=m.group("unit"),
                direction=m.group("way"),
                mode=m.group("mode"),
            )
            run.matrices.append(current)
        elif m := _LABELS_RE.match(line):
            columns = [int(c) for c in m.group(2).split()]
            if current is not None and current.values:
                # a latency matrix's second (CPU) block: a matrix of its own
                current = Matrix(
                    line=no,
                    title=current.title,
                    p2p=current.p2p,
                    unit=current.unit,
                    direction=current.direction,
                    mode=current.mode,
                )
                run.matrices.append(current)
            if current is not None:
                current.block, current.columns = m.group("corner"), columns
        elif m := _ROW_RE.match(line):
            cells = m.group(2).split()
            if in_connectivity:
                run.connectivity[int(m.group(1))] = {j: int(float(c)) for j, c in enumerate(cells)}
            elif current is not None and len(cells) == len(current.columns):
                current.values[int(m.group(1))] = {
                    col: float(c) for col, c in zip(current.columns, cells, strict=True)
                }
                current.row_lines[int(m.group(1))] = no
            elif current is not None:
                notes.append(
                    ParseWarning(
                        line=no,
                        message=f"row {m.group(1)} of '{current.title}' has {len(cells)} "
                        f"figures for {len(current.columns)} GPUs: not read",
                    )
                )
        elif _NOTE_RE.match(line):
            run.complete = True
            current = None
    for matrix in run.matrices:
        if len(matrix.values) < len(matrix.columns):
            notes.append(
                ParseWarning(
                    line=matrix.line,
                    message=f"'{matrix.title}' lists {len(matrix.values)} of its "
                    f"{len(matrix.columns)} GPUs' rows: the copy lost the rest",
                    skipped=False,
                )
            )
    if not run.complete:
        seen = {m.title for m in run.matrices}
        expected = list(MATRICES_BEFORE_LATENCY)
        if any(m.mode == "Reads" for m in run.matrices):
            # --p2p_read: its Reads latency matrix comes last
            expected.append("P2P=Enabled Latency (P2P Reads)")
        missing = [t for t in expected if t not in seen]
        last = run.matrices[-1] if run.matrices else None
        # every figure the run prints in the copy, the last latency matrix's CPU block whole:
        # only the closing NOTE (boilerplate, no figure) is not, which a paste often leaves out;
        # nothing says the copy was cut
        run.complete = (
            not missing
            and last is not None
            and last.block == "CPU"
            and all(m.columns and len(m.values) == len(m.columns) for m in run.matrices)
        )
    if not run.complete:
        notes.append(
            ParseWarning(
                line=0,
                message="the copy ends before the run's closing NOTE: "
                + (", ".join(missing) + " not in it" if missing else "its last lines are not in it")
                + ("" if run.devices else "; no device list (GPU names unknown)"),
                skipped=False,
            )
        )
    return run, notes


# Each GPU family's own PCIe generation, as NVIDIA's product specifications give it, matched on
# the name CUDA prints ("NVIDIA GeForce RTX 4090", "Tesla V100-SXM2-32GB"): PCI Express Gen 5 for
# the GeForce RTX 50 series, H100, H200, H800, H20, GH200, B100, B200 and the RTX PRO Blackwell
# boards; Gen 4 for the RTX 40 and 30 series, A100, A800, A40, A30, A10(G), A16, A2, L40(S), L20,
# L4, the RTX A-series and RTX 6000 Ada; Gen 3 for V100, T4, P100, P40, P4, the RTX 20, GTX 16 and
# GTX 10 series, TITAN V / RTX and Quadro RTX. A name none of these matches has no generation.
_PCIE_GENERATIONS = (
    (5, re.compile(r"\b(?:RTX 50\d0|RTX PRO \d{4}|H100|H200|H800|H20|GH200|B100|B200|GB200)\b")),
    (
        4,
        re.compile(
            r"\b(?:RTX [34]0\d0|A100|A800|A40|A30|A10G?|A16|A2|L40S?|L20|L4|RTX A\d{4}"
            r"|RTX \d{4} Ada)\b"
        ),
    ),
    (
        3,
        re.compile(
            r"\b(?:V100|T4|P100|P40|P4|RTX 20\d0|GTX 1[06]\d0|TITAN (?:V|RTX)|Quadro RTX \d{4})\b"
        ),
    ),
)
PCIE_X4_GBYTES_S = {3: 3.94, 4: 7.88, 5: 15.75}
"""What four lanes of a PCIe generation carry a second before packet overhead: 8, 16 and 32 GT/s
a lane (Gen 3, 4, 5) with 128b/130b coding: a quarter of the x16 link most GPUs above have, half
the x8 of the smaller boards (A2, RTX 3050, RTX 4060)."""


def pcie_generation(name: str) -> int | None:
    """The PCIe generation of the GPU model CUDA names ``name``; None where it is not known."""
    return next((gen for gen, model in _PCIE_GENERATIONS if model.search(name)), None)
