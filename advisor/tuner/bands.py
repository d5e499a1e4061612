"""Size bands with the fastest measured setting per op, from the benchmark's per-size rows.

For each op and measured size, the fastest variant (by median time) is chosen over the default
only when it wins beyond the measurement's noise: its p90 below the default's p10 (no overlap of
the two spreads). Neighbouring sizes with the same choice merge into one band; a band reaches
half-way (geometrically) to the next measured size, and the outermost bands to 0 and to the
largest size a 64-bit count holds. Sizes where the default holds its own keep the default (no
rule: the library's own tuning stays in charge).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from advisor.tuner.formats import U64_MAX

NATIVE = "native"


@dataclass(kw_only=True)
class Band:
    op: str
    min_bytes: int
    max_bytes: int
    choice: str
    """The winning algorithm as the bench names it (``native[nccl-Ring-LL]``, ``tree``)."""
    native: bool = False
    """The choice is one of the library's own settings (a tuner plugin can apply it), not an
    in-project algorithm."""
    measured_bytes: list[int]
    """The measured sizes this band holds."""
    gain: float
    """Default median time over the choice's, at the band's sizes (the smallest of them)."""
    gain_low: float
    """The same with the choice's p90 against the default's p10 (the worst case the spreads
    allow)."""


class Row(Protocol):
    """A benchmark row (``advisor.bench.collectives.BenchResult``)."""

    op: str
    dtype: str
    algorithm: str
    bytes: int
    time_us_p50: float
    time_us_p10: float | None
    time_us_p90: float | None


def bands(rows: Sequence[Row], *, default: str = NATIVE) -> list[Band]:
    """Bands per op from ``rows`` (one dtype: the first row's; sendrecv has no algorithm)."""
    table: dict[tuple[str, int], dict[str, tuple[float, float, float]]] = {}
    dtype = rows[0].dtype if rows else ""
    for r in rows:
        if r.op == "sendrecv" or r.dtype != dtype:
            continue
        low = r.time_us_p10 if r.time_us_p10 is not None else r.time_us_p50
        high = r.time_us_p90 if r.time_us_p90 is not None else r.time_us_p50
        table.setdefault((r.op, r.bytes), {})[r.algorithm] = (r.time_us_p50, low, high)
    winners: dict[str, list[tuple[int, str, float, float]]] = {}
    for (op, size), by_algo in sorted(table.items()):
        if default not in by_algo:
            continue
        d50, d10, _ = by_algo[default]
        choice, gain, gain_low = default, 1.0, 1.0
        for algo, (p50, _, p90) in by_algo.items():
            if algo == default:
                continue
            if p90 < d10 and d50 / p50 > gain:
                choice, gain, gain_low = algo, d50 / p50, d10 / p90
        winners.setdefault(op, []).append((size, choice, gain, gain_low))
    out: list[Band] = []
    for op, points in winners.items():
        sizes = [p[0] for p in points]
        edges = [0] + [_mid(a, b) for a, b in itertools.pairwise(sizes)] + [U64_MAX]
        run: list[tuple[int, str, float, float]] = []
        start = 0
        for i, point in enumerate(points):
            if run and point[1] != run[-1][1]:
                out += _band(op, run, edges[start], edges[i] - 1)
                run, start = [], i
            run.append(point)
        out += _band(op, run, edges[start], edges[len(points)])
    return out


def _mid(a: int, b: int) -> int:
    return int(math.sqrt(a * b)) + 1


def _band(op: str, run: list[tuple[int, str, float, float]], low: int, high: int) -> list[Band]:
    if not run or run[0][1] == NATIVE:
        return []
    return [
        Band(
            op=op,
            min_bytes=low,
            max_bytes=high,
            choice=run[0][1],
            native=run[0][1].startswith(f"{NATIVE}["),
            measured_bytes=[p[0] for p in run],
            gain=min(p[2] for p in run),
            gain_low=min(p[3] for p in run),
        )
    ]
