"""busGrind (the CUDA samples' bus test, whose logic DCGM's PCIe plugin carries on): the copy
bandwidth between the host and each GPU.

What it prints, a test a block between rows of asterisks: ``Test Description: Bus bandwidth
between the host and a single device``, then ``Host/Device Bandwidth Matrix (GB/s),
memory=Pinned`` (``memory=Pageable`` for the unpinned run; ``Concurrent Host/Device Bandwidth
Matrix ...`` where every GPU copies at once), a header ``Dir\\D   0   1 ...`` of the GPUs'
indexes (the concurrent one adds ``Total``) and a row a direction: ``D2H``, ``H2D`` and
``BiDir``, one figure a GPU. Its figures are 10^9 bytes a second, the bidirectional one counting
both directions' bytes (DCGM's plugin/pcie busGrind code the sample shares,
outputHostDeviceBandwidthMatrix: ``gb = numElems*sizeof(int)*repeat/1e9``, ``2*`` for the
bidirectional copy; one GPU at a time, then all at once in the concurrent matrix). Its latency
matrices (``Host/Device Latency Matrix (us)``) are not bandwidth and are not read here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from advisor.parsers import ParseError, ParseWarning, numbered_lines

SIGNATURE = r"^[ \t]*(?:Concurrent )?Host/Device Bandwidth Matrix \((?:GB|MB)/s\)"
"""A bandwidth matrix's title (a copy keeps its indentation or loses it)."""

_TITLE_RE = re.compile(
    r"^\s*(?P<concurrent>Concurrent )?Host/Device Bandwidth Matrix \((?P<unit>[GM]B/s)\)"
    r"(?:,\s*memory=(?P<memory>\w+))?"
)
# "Dir\D  0  1 ... 7  Total": the GPUs' indexes (a copy may double the backslash or lose it)
_HEAD_RE = re.compile(r"^\s*Dir\s*\\{0,2}\s*D\b(?P<columns>(?:\s+(?:\d+|Total))+)\s*$")
_ROW_RE = re.compile(r"^\s*(?P<dir>D2H|H2D|BiDir)(?P<figures>(?:\s+\d+(?:\.\d+)?)+)\s*$", re.I)
_DIRECTIONS = {"d2h": "D2H", "h2d": "H2D", "bidir": "BiDir"}


@dataclass(kw_only=True)
class Matrix:
    """One host/device bandwidth matrix: a figure a direction and GPU."""

    line: int
    concurrent: bool
    memory: str | None
    """Pinned or Pageable host memory, as printed; None where the title does not say."""
    unit: str
    gpus: list[int] = field(default_factory=list)
    """The GPU indexes of its header, in order (its Total column aside)."""
    rows: dict[str, dict[int, float]] = field(default_factory=dict)
    """Direction (D2H, H2D, BiDir) -> GPU index -> bandwidth in ``unit``."""
    totals: dict[str, float] = field(default_factory=dict)
    """The concurrent matrix's Total column, by direction."""
    row_lines: dict[str, int] = field(default_factory=dict)


def parse(text: str) -> tuple[list[Matrix], list[ParseWarning]]:
    """busGrind's host/device bandwidth matrices; raises ParseError where none has a row."""
    matrices: list[Matrix] = []
    warnings: list[ParseWarning] = []
    current: Matrix | None = None
    columns: list[str] = []
    for no, line, _ in numbered_lines(text):
        if t := _TITLE_RE.match(line):
            current = Matrix(
                line=no,
                concurrent=bool(t.group("concurrent")),
                memory=t.group("memory"),
                unit=t.group("unit"),
            )
            matrices.append(current)
            columns = []
            continue
        if current is None:
            continue
        if not columns and (h := _HEAD_RE.match(line)):
            columns = h.group("columns").split()
            current.gpus = [int(c) for c in columns if c.isdigit()]
            continue
        if columns and (r := _ROW_RE.match(line)):
            figures = [float(f) for f in r.group("figures").split()]
            direction = _DIRECTIONS[r.group("dir").lower()]
            if len(figures) != len(columns):
                warnings.append(
                    ParseWarning(
                        line=no,
                        message=f"busGrind: the {direction} row has {len(figures)} figures for "
                        f"{len(columns)} columns (a cut or garbled copy): not read",
                    )
                )
                continue
            cells = dict(zip(columns, figures, strict=True))
            current.rows[direction] = {int(c): v for c, v in cells.items() if c.isdigit()}
            if "Total" in cells:
                current.totals[direction] = cells["Total"]
            current.row_lines[direction] = no
            continue
        if line.strip() and current.rows:
            current = None  # (its rows ended: what follows is no row of it)
    for m in matrices:
        if not m.rows:
            warnings.append(
                ParseWarning(
                    line=m.line,
                    message=f"busGrind: the {'concurrent ' if m.concurrent else ''}host/device "
                    "bandwidth matrix has no row (the copy ends there): its figures are unknown",
                )
            )
    read = [m for m in matrices if m.rows]
    if not read:
        raise ParseError("busGrind: no host/device bandwidth matrix with a row of figures")
    return read, warnings


BELOW_PEERS_FRACTION = 0.8
"""A GPU's figure under this share of its direction's median over the matrix's GPUs is far
below its peers' (the margin the advisor's other per-device comparisons use: ascend-dmi -f's
compute, hccn_tool's RoCE test)."""


def below_peers(matrix: Matrix) -> list[dict[str, object]]:
    """The GPUs of a one-at-a-time matrix whose figure in a direction is under
    ``BELOW_PEERS_FRACTION`` of that direction's median: ``[{line, direction, gpu, gbytes_s,
    median_gbytes_s}]``. None from a concurrent matrix (GPUs behind one PCIe switch share its
    uplink there, so uneven figures are its layout) or one of fewer than two GPUs."""
    if matrix.concurrent:
        return []
    scale = 1000 if matrix.unit == "MB/s" else 1
    low: list[dict[str, object]] = []
    for direction, figures in matrix.rows.items():
        if len(figures) < 2:
            continue
        ordered = sorted(figures.values())
        half = len(ordered) // 2
        median = ordered[half] if len(ordered) % 2 else (ordered[half - 1] + ordered[half]) / 2
        for gpu, value in figures.items():
            if value < BELOW_PEERS_FRACTION * median:
                low.append(
                    {
                        "line": matrix.row_lines[direction],
                        "direction": direction,
                        "gpu": gpu,
                        "gbytes_s": round(value / scale, 2),
                        "median_gbytes_s": round(median / scale, 2),
                    }
                )
    return low
