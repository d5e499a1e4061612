"""Charts for the report: matplotlib figures rendered to inline SVG strings.

Every chart must stay readable without colour (markers, line styles, hatching, labels) and small
(text stays text, ``svg.fonttype: none``; no embedded fonts or metadata). Functions take plain
data (already extracted from facts by ``advisor.report.sections``) and return SVG markup, or ""
when there is nothing to draw.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import matplotlib

matplotlib.use("Agg")  # no display; must come before pyplot is imported

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.collections import PatchCollection
from matplotlib.colors import Normalize
from matplotlib.patches import FancyBboxPatch, Rectangle
from matplotlib.ticker import FuncFormatter, NullLocator

if TYPE_CHECKING:
    from matplotlib.figure import Figure

MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
LINESTYLES = ("-", "--", "-.", ":")
HATCHES = ("", "//", "\\\\", "xx", "..", "++", "oo", "--")
CMAP = "viridis"
"""Perceptually uniform and readable in greyscale: dark is slow, bright is fast."""

MAX_MATRIX_RANKS = 64
"""Above this many ranks the pair matrix is drawn per node pair (keeps the SVG small)."""

_RC: Any = {
    "svg.fonttype": "none",
    "svg.hashsalt": "advisor",
    "font.size": 9,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "figure.dpi": 96,
}


def _t(text: object) -> str:
    """Text from the cluster as a label: a ``$`` would start matplotlib's maths typesetting."""
    return str(text).replace("$", r"\$")


def _svg(fig: Figure) -> str:
    buf = io.StringIO()
    try:
        fig.savefig(buf, format="svg", bbox_inches="tight", metadata={"Date": None})
    finally:
        plt.close(fig)
    text = buf.getvalue()
    start = text.find("<svg")  # drop the XML prolog and DOCTYPE: the SVG is inlined in HTML
    return text[start:] if start >= 0 else text


def _log_axis(ax: Any, which: str, base: float = 10) -> None:
    """Log scale with plain tick labels and no minor ticks.

    matplotlib's default log labels are typeset as maths, which is slow to lay out and becomes
    text like ``$\\mathdefault{10^{2}}$`` in an SVG that keeps text as text.
    """
    axis = ax.xaxis if which == "x" else ax.yaxis
    (ax.set_xscale if which == "x" else ax.set_yscale)("log", base=base)
    axis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    axis.set_minor_locator(NullLocator())


def _style(i: int) -> dict[str, Any]:
    return {
        "marker": MARKERS[i % len(MARKERS)],
        "linestyle": LINESTYLES[(i // len(MARKERS) + i) % len(LINESTYLES)],
    }


def _bytes_label(n: float) -> str:
    for unit, size in (("GiB", 2**30), ("MiB", 2**20), ("KiB", 2**10)):
        if n >= size:
            return f"{n / size:g} {unit}"
    return f"{n:g} B"


def pair_matrix(
    labels: Sequence[str],
    values: Sequence[Sequence[float | None]],
    failed: Iterable[tuple[int, int]],
    *,
    groups: Sequence[int] = (),
    title: str,
) -> str:
    """A square matrix of bandwidth (Gbit/s) coloured by value; failed cells hatched and crossed.

    ``values[i][j]`` is None for a pair that was not measured (drawn blank). ``groups`` gives the
    index where each node starts, to draw node boundaries.
    """
    n = len(labels)
    if n == 0:
        return ""
    measured = [v for row in values for v in row if v is not None and v > 0]
    vmax = max(measured, default=1.0)
    norm = Normalize(vmin=0.0, vmax=vmax)
    cmap = plt.get_cmap(CMAP)
    with plt.rc_context({**_RC, "axes.grid": False}):
        side = min(9.0, 2.5 + 0.22 * n)
        fig, ax = plt.subplots(figsize=(side + 1.2, side))
        grid = np.ma.masked_invalid(
            np.array([[np.nan if v is None else v for v in row] for row in values], dtype=float)
        )
        cmap_bad = cmap.with_extremes(bad="#f4f4f4")
        ax.pcolormesh(np.arange(n + 1), np.arange(n + 1), grid, cmap=cmap_bad, norm=norm)
        cells = [Rectangle((b, a), 1, 1) for i, j in failed for a, b in ((i, j), (j, i))]
        if cells:
            ax.add_collection(
                PatchCollection(
                    cells, facecolor="#ffffff", edgecolor="#c00000", hatch="xxx", linewidth=0.8
                )
            )
        for g in groups:
            if 0 < g < n:
                ax.axhline(g, color="black", lw=1.2)
                ax.axvline(g, color="black", lw=1.2)
        ax.set_xlim(0, n)
        ax.set_ylim(n, 0)
        ax.set_aspect("equal")
        step = 1 if n <= 16 else max(1, n // 16)
        ticks = list(range(0, n, step))
        ax.set_xticks([t + 0.5 for t in ticks], [_t(labels[t]) for t in ticks], rotation=90)
        ax.set_yticks([t + 0.5 for t in ticks], [_t(labels[t]) for t in ticks])
        ax.set_xlabel("destination")
        ax.set_ylabel("source")
        ax.set_title(_t(title))
        sm = plt.cm.ScalarMappable(norm=norm, cmap=cmap)
        fig.colorbar(sm, ax=ax, fraction=0.046, pad=0.04, label="bandwidth (Gbit/s)")
        if failed:
            ax.add_patch(
                Rectangle(
                    (0, 0),
                    0,
                    0,
                    facecolor="white",
                    edgecolor="#c00000",
                    hatch="xxx",
                    label="failed",
                )
            )
            ax.legend(loc="upper left", bbox_to_anchor=(0, -0.08), frameon=False)
        return _svg(fig)


@dataclass(kw_only=True)
class PhaseTiming:
    """One measured phase of the timeouts probe, and the configured limit it must stay under."""

    label: str
    p50_s: float
    p90_s: float
    max_s: float
    limit_s: float | None
    """Seconds the limit allows; None when the run has no such limit (or it never fires)."""
    limit_name: str

    @property
    def headroom(self) -> float | None:
        """How many times the slowest measurement fits under the limit."""
        return self.limit_s / self.max_s if self.limit_s and self.max_s else None


def timeouts_chart(rows: Sequence[PhaseTiming]) -> str:
    """Measured p50/p90/max of each phase against the configured limit it must stay under.

    Log scale, because limits (minutes) dwarf healthy measurements (milliseconds).
    """
    if not rows:
        return ""
    with plt.rc_context(_RC):
        fig, ax = plt.subplots(figsize=(8, 0.7 * len(rows) + 1.4))
        for y, r in enumerate(rows):
            lo = max(min(r.p50_s or r.max_s, r.max_s), 1e-4)
            ax.plot([lo, max(r.max_s, 1e-4)], [y, y], color="#555555", lw=2)
            for key, value, marker in (
                ("p50", r.p50_s, "o"),
                ("p90", r.p90_s, "s"),
                ("max", r.max_s, "^"),
            ):
                ax.plot(
                    max(value, 1e-4),
                    y,
                    marker=marker,
                    color="#1f4e79",
                    ms=7,
                    ls="none",
                    label=key if y == 0 else None,
                )
            if r.limit_s:
                ax.plot(
                    [r.limit_s] * 2,
                    [y - 0.35, y + 0.35],
                    color="#c00000",
                    lw=2.5,
                    label="configured limit" if y == 0 else None,
                )
                ax.annotate(
                    _t(f"{r.limit_name} {r.limit_s:g} s"),
                    (r.limit_s, y + 0.38),
                    ha="right",
                    va="bottom",
                    fontsize=8,
                    color="#c00000",
                )
        _log_axis(ax, "x")
        ax.set_yticks(range(len(rows)), [_t(r.label) for r in rows])
        ax.set_ylim(len(rows) - 0.4, -0.6)
        ax.set_xlabel("seconds (log scale)")
        ax.set_title("Measured phases against configured limits")
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
        return _svg(fig)


def topology_picture(
    node_names: Sequence[str],
    node_ranks: Sequence[Sequence[int]],
    *,
    islands: Sequence[Sequence[int]],
    node_links_gbps: dict[tuple[int, int], float],
    intra_gbps: dict[int, float],
    slow_links: Sequence[tuple[int, int, float]],
    failed_links: Sequence[tuple[int, int]],
    duplicate_ranks: Iterable[int] = (),
) -> str:
    """Nodes as boxes holding their devices (rank numbers); links coloured by measured bandwidth.

    Node-to-node lines carry the median measured bandwidth between the two nodes; inside each box
    the median intra-node figure. Slow links are dashed, failed links dotted, each labelled; device
    fill and hatch show the inferred island.
    """
    if not node_ranks:
        return ""
    cols = min(4, len(node_ranks))
    rows_n = math.ceil(len(node_ranks) / cols)
    per_row = max(len(r) for r in node_ranks)
    dev_cols = min(4, per_row)
    dev_rows = math.ceil(per_row / dev_cols)
    box_w, box_h = dev_cols * 1.0 + 0.6, dev_rows * 1.0 + 1.0
    gap_x, gap_y = 2.2, 1.6
    all_gbps = [*node_links_gbps.values(), *intra_gbps.values()]
    norm = Normalize(vmin=0.0, vmax=max(all_gbps, default=1.0) or 1.0)
    cmap = plt.get_cmap(CMAP)
    island_of = {r: i for i, isl in enumerate(islands) for r in isl}
    dup = set(duplicate_ranks)
    pos: dict[int, tuple[float, float]] = {}
    centres: list[tuple[float, float]] = []
    with plt.rc_context({**_RC, "axes.grid": False}):
        width = cols * box_w + (cols - 1) * gap_x
        height = rows_n * box_h + (rows_n - 1) * gap_y
        bows = max((abs(b - a) for a, b in node_links_gbps), default=1) - 1
        extra_h = 0.9 * bows + 1.2 + box_h / 2 if bows > 0 else 0.0
        fig, ax = plt.subplots(
            figsize=(min(12, 1.2 + width * 0.75), 1.0 + (height + extra_h) * 0.75)
        )
        for n, ranks in enumerate(node_ranks):
            x0 = (n % cols) * (box_w + gap_x)
            y0 = (n // cols) * (box_h + gap_y)
            centres.append((x0 + box_w / 2, y0 + box_h / 2))
            fill = cmap(norm(intra_gbps[n])) if n in intra_gbps else (0.92, 0.92, 0.92, 1.0)
            ax.add_patch(
                FancyBboxPatch(
                    (x0, y0),
                    box_w,
                    box_h,
                    boxstyle="round,pad=0.05",
                    facecolor=(*fill[:3], 0.25),
                    edgecolor="black",
                    lw=1.2,
                    zorder=1,
                )
            )
            label = _t(node_names[n]) if n < len(node_names) else f"node{n}"
            if n in intra_gbps:
                label += f"  (intra {intra_gbps[n]:.3g} Gbit/s)"
            ax.text(x0 + 0.1, y0 + 0.35, label, fontsize=8, va="center", zorder=3)
            for k, r in enumerate(ranks):
                cx = x0 + 0.8 + (k % dev_cols) * 1.0
                cy = y0 + 1.2 + (k // dev_cols) * 1.0
                pos[r] = (cx, cy)
                isl = island_of.get(r)
                ax.add_patch(
                    Rectangle(
                        (cx - 0.35, cy - 0.35),
                        0.7,
                        0.7,
                        facecolor="white" if isl is None else plt.get_cmap("Pastel1")(isl % 9),
                        hatch=HATCHES[isl % len(HATCHES)] if isl is not None else "",
                        edgecolor="#c00000" if r in dup else "black",
                        lw=2.5 if r in dup else 0.8,
                        zorder=4,
                    )
                )
                ax.text(
                    cx,
                    cy,
                    str(r),
                    ha="center",
                    va="center",
                    fontsize=8,
                    zorder=5,
                    bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none", "alpha": 0.8},
                )
        top = -0.4
        for (a, b), gbps in sorted(node_links_gbps.items()):
            (xa, ya), (xb, yb) = centres[a], centres[b]
            # Neighbours get a straight line; a link that would cross the boxes between its two
            # nodes bows out (further for longer spans) so every node pair stays visible.
            span = abs(b - a) if ya == yb else 1
            bow = 0.0 if span == 1 else 0.9 * (span - 1) + 1.2
            length = math.hypot(xb - xa, yb - ya) or 1.0
            cx = (xa + xb) / 2 + bow * (yb - ya) / length
            cy = (ya + yb) / 2 - bow * (xb - xa) / length - (box_h / 2 if bow else 0.0)
            t = np.linspace(0.0, 1.0, 30)
            xs = (1 - t) ** 2 * xa + 2 * (1 - t) * t * cx + t**2 * xb
            ys = (1 - t) ** 2 * ya + 2 * (1 - t) * t * cy + t**2 * yb
            top = min(top, float(ys.min()) - 0.4)
            ax.plot(xs, ys, color=cmap(norm(gbps)), lw=5, zorder=0, alpha=0.9)
            ax.text(
                float(xs[15]),
                float(ys[15]),
                f"{gbps:.3g} Gbit/s",
                ha="center",
                va="center",
                fontsize=7,
                zorder=2,
                bbox={"fc": "white", "ec": "#888888", "boxstyle": "round"},
            )
        marked = [
            (a, b, "#d97706", "--", f"slow {a}–{b}: {g:.3g} Gbit/s") for a, b, g in slow_links
        ]
        marked += [(a, b, "#c00000", ":", f"failed {a}–{b}") for a, b in failed_links]
        for a, b, colour, style, label in marked:
            if a in pos and b in pos:
                (xa, ya), (xb, yb) = pos[a], pos[b]
                ax.plot([xa, xb], [ya, yb], color=colour, lw=2, ls=style, zorder=6, label=label)
        ax.set_xlim(-0.4, width + 0.4)
        ax.set_ylim(height + 0.4, top)
        ax.set_aspect("equal")
        ax.axis("off")
        handles, labels = ax.get_legend_handles_labels()
        if handles:
            ax.legend(
                handles[:8],
                labels[:8],
                loc="upper left",
                bbox_to_anchor=(0, 0),
                fontsize=8,
                frameon=False,
            )
        if all_gbps:
            sm = plt.cm.ScalarMappable(norm=norm, cmap=cmap)
            fig.colorbar(sm, ax=ax, fraction=0.03, pad=0.02, label="measured Gbit/s")
        return _svg(fig)


def busbw_chart(
    series: dict[str, list[tuple[float, float]]], *, nominal_gbps: float, title: str
) -> str:
    """Bus bandwidth (Gbit/s) against message size for each algorithm/dtype of one op."""
    series = {k: sorted(v) for k, v in series.items() if v}
    if not series:
        return ""
    with plt.rc_context(_RC):
        fig, ax = plt.subplots(figsize=(7, 3.6))
        for i, (label, pts) in enumerate(sorted(series.items())):
            ax.plot([p[0] for p in pts], [p[1] for p in pts], label=_t(label), ms=5, **_style(i))
        if nominal_gbps:
            ax.axhline(
                nominal_gbps,
                color="#c00000",
                ls="--",
                lw=1.2,
                label=f"bottleneck nominal {nominal_gbps:g} Gbit/s",
            )
        _log_axis(ax, "x", base=2)
        sizes = sorted({p[0] for pts in series.values() for p in pts})
        ticks = sizes[:: max(1, len(sizes) // 8)]
        ax.set_xticks(ticks, [_bytes_label(s) for s in ticks], rotation=30)
        if nominal_gbps and _spans_decades(series, nominal_gbps):
            _log_axis(ax, "y")
        ax.set_xlabel("message size")
        ax.set_ylabel("busbw (Gbit/s)")
        ax.set_title(_t(title))
        ax.legend(fontsize=8, loc="lower right")
        return _svg(fig)


def _spans_decades(series: dict[str, list[tuple[float, float]]], nominal: float) -> bool:
    top = max((p[1] for pts in series.values() for p in pts), default=0.0)
    return top > 0 and nominal / top > 20


def lines_chart(
    series: dict[str, list[tuple[float, float]]],
    *,
    xlabel: str,
    ylabel: str,
    title: str,
    logx: bool = False,
    hline: tuple[float, str] | None = None,
    spans: Sequence[tuple[float, float]] = (),
    span_label: str = "",
) -> str:
    """Generic line chart: one marker and line style per series (throughput, comm share ...);
    ``spans`` shade x ranges (the soak's stalls), labelled ``span_label`` once."""
    series = {k: sorted(v) for k, v in series.items() if v}
    if not series:
        return ""
    with plt.rc_context(_RC):
        fig, ax = plt.subplots(figsize=(6.4, 3.4))
        for i, (label, pts) in enumerate(sorted(series.items())):
            ax.plot([p[0] for p in pts], [p[1] for p in pts], label=_t(label), ms=6, **_style(i))
        if hline is not None:
            ax.axhline(hline[0], color="#c00000", ls="--", lw=1.2, label=_t(hline[1]))
        for i, (x0, x1) in enumerate(spans):
            shade = _t(span_label) if i == 0 and span_label else None
            ax.axvspan(x0, x1, color="#c00000", alpha=0.15, lw=0, label=shade)
        if logx:
            _log_axis(ax, "x", base=2)
            xs = sorted({p[0] for pts in series.values() for p in pts})
            ax.set_xticks(xs, [f"{x:g}" for x in xs])
        ax.set_xlabel(_t(xlabel))
        ax.set_ylabel(_t(ylabel))
        ax.set_title(_t(title))
        if len(series) > 1 or hline is not None or (spans and span_label):
            # a fixed place: loc="best" searches every data point and dominates drawing time
            ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
        return _svg(fig)
