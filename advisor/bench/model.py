"""The α–β performance model: per link class a latency α and an inverse bandwidth β, fitted from
the measured sweep, predicting each algorithm's all-reduce time at other sizes and scales.

Each algorithm's cost is a sum over its communication steps. A step whose flows all stay inside
a node costs ``α_intra + β_intra·bytes``; a step with any flow crossing nodes costs
``α_inter + β_inter·bytes·k``, where k is the number of that step's flows leaving one node (they
share the node's link: β_inter is the inverse bandwidth of one node's inter-node link). Ranks are
placed node-major, as torchrun does. The time is therefore linear in (α, β) per link class and the
fit is a weighted least squares (relative error) with non-negative parameters.

The pipelined hierarchical all-reduce overlaps phases, so its cost has a ``max`` in it; it is
linearised around the current parameters and the fit repeated until the choice settles.
"""

from __future__ import annotations

import itertools
import math
import statistics
from dataclasses import dataclass, field

import numpy as np

from advisor.bench import catalog
from advisor.bench.catalog import DEFAULT_PIPELINE_CHUNK_BYTES

LINKS = ("intra", "inter")
PARAMS = ("alpha_intra", "beta_intra", "alpha_inter", "beta_inter")
MODELLED = ("native", "ring", "halving_doubling", "tree", "hierarchical")
"""Algorithms with a cost formula; ``native`` is modelled as a ring (gloo's and the libraries'
bandwidth-optimal default)."""


@dataclass
class Cost:
    """Coefficients of a time: Σ over link classes of alpha_count·α + bytes·β."""

    alpha_count: dict[str, float] = field(default_factory=lambda: dict.fromkeys(LINKS, 0.0))
    bytes_: dict[str, float] = field(default_factory=lambda: dict.fromkeys(LINKS, 0.0))

    def add_step(self, link: str, nbytes: float, times: float = 1.0) -> None:
        self.alpha_count[link] += times
        self.bytes_[link] += nbytes * times

    def plus(self, other: Cost, scale: float = 1.0) -> Cost:
        out = Cost()
        for k in LINKS:
            out.alpha_count[k] = self.alpha_count[k] + scale * other.alpha_count[k]
            out.bytes_[k] = self.bytes_[k] + scale * other.bytes_[k]
        return out

    def row(self) -> list[float]:
        return [
            self.alpha_count["intra"],
            self.bytes_["intra"],
            self.alpha_count["inter"],
            self.bytes_["inter"],
        ]

    def time_us(self, p: np.ndarray) -> float:
        return float(np.dot(self.row(), p))


def _step(cost: Cost, flows: list[tuple[int, int]], nbytes: float, rpn: int) -> None:
    """Add one step where each (src, dst) flow moves ``nbytes``."""
    if not flows:
        return
    leaving: dict[int, int] = {}
    for a, b in flows:
        if a // rpn != b // rpn:
            leaving[a // rpn] = leaving.get(a // rpn, 0) + 1
    if leaving:
        cost.add_step("inter", nbytes * max(leaving.values()))
    else:
        cost.add_step("intra", nbytes)


def ring_cost(nodes: int, rpn: int, nbytes: float) -> Cost:
    """2(n-1) steps of S/n; with several nodes each step is bound by one flow per node link."""
    n = nodes * rpn
    cost = Cost()
    if n > 1:
        cost.add_step("inter" if nodes > 1 else "intra", nbytes / n, times=2 * (n - 1))
    return cost


def halving_doubling_cost(nodes: int, rpn: int, nbytes: float) -> Cost:
    n = nodes * rpn
    cost = Cost()
    if n == 1:
        return cost
    p = 1 << (n.bit_length() - 1)
    r = n - p

    def real(nr: int) -> int:
        return nr * 2 + 1 if nr < r else nr + r

    fold = [(2 * i, 2 * i + 1) for i in range(r)]
    if fold:
        _step(cost, fold, nbytes, rpn)
    distances = [p >> (k + 1) for k in range(p.bit_length() - 1)]
    for d in distances + distances[::-1]:
        flows = [(real(i), real(i ^ d)) for i in range(p)]
        _step(cost, flows, nbytes * d / p, rpn)
    if fold:
        _step(cost, [(b, a) for a, b in fold], nbytes, rpn)
    return cost


def tree_cost(nodes: int, rpn: int, nbytes: float) -> Cost:
    n = nodes * rpn
    cost = Cost()
    d = 1
    steps = []
    while d < n:
        steps.append([(r, r - d) for r in range(n) if r % (2 * d) == d])
        d *= 2
    for flows in steps:
        _step(cost, flows, nbytes, rpn)
    for flows in reversed(steps):
        _step(cost, [(b, a) for a, b in flows], nbytes, rpn)
    return cost


def pipeline_chunks(nbytes: float, rpn: int, chunk_bytes: int, element_bytes: int = 4) -> int:
    """Chunks the hierarchical all-reduce cuts a tensor of ``nbytes`` into (the implementation's
    own rule, for fp32 elements)."""
    return catalog.pipeline_chunks(
        max(1, math.ceil(nbytes / element_bytes)), element_bytes, rpn, chunk_bytes
    )


def hierarchical_cost(
    nodes: int,
    rpn: int,
    nbytes: float,
    params: np.ndarray | None = None,
    *,
    chunk_bytes: int = DEFAULT_PIPELINE_CHUNK_BYTES,
) -> Cost:
    """Pipelined RS (intra) → AR (inter, rpn flows per node link) → AG (intra), K chunks.

    Time ≈ one chunk through every phase, plus K-1 chunks at the pace of the slower of the
    intra-node phases (RS and AG share the node) and the inter-node phase.
    """
    k = pipeline_chunks(nbytes, rpn, chunk_bytes)
    chunk = nbytes / k
    intra, inter = Cost(), Cost()
    if rpn > 1 and nodes > 1:
        intra.add_step("intra", chunk / rpn, times=2 * (rpn - 1))
        inter.add_step("inter", chunk / nodes, times=2 * (nodes - 1))
    elif nodes > 1:
        inter.add_step("inter", chunk / nodes, times=2 * (nodes - 1))
    else:
        intra.add_step("intra", chunk / rpn, times=2 * (rpn - 1))
    first = intra.plus(inter)
    if k == 1:
        return first
    p = params if params is not None else np.array([1.0, 1e-3, 1.0, 1e-3])
    slower = intra if intra.time_us(p) >= inter.time_us(p) else inter
    return first.plus(slower, scale=k - 1)


def sendrecv_cost(link: str, nbytes: float) -> Cost:
    cost = Cost()
    cost.add_step(link, nbytes)
    return cost


def algorithm_cost(
    algorithm: str, nodes: int, rpn: int, nbytes: float, params: np.ndarray | None = None
) -> Cost:
    if algorithm in ("native", "ring"):
        return ring_cost(nodes, rpn, nbytes)
    if algorithm == "halving_doubling":
        return halving_doubling_cost(nodes, rpn, nbytes)
    if algorithm == "tree":
        return tree_cost(nodes, rpn, nbytes)
    if algorithm == "hierarchical":
        return hierarchical_cost(nodes, rpn, nbytes, params)
    raise KeyError(f"no cost model for algorithm {algorithm!r}; modelled: {', '.join(MODELLED)}")


@dataclass(kw_only=True)
class Point:
    """One measured time the model is fitted on or checked against."""

    kind: str
    """``all_reduce/<algorithm>`` or ``sendrecv/<link>``."""
    nodes: int
    ranks_per_node: int
    bytes: int
    time_us: float

    def cost(self, params: np.ndarray | None) -> Cost:
        op, name = self.kind.split("/", 1)
        if op == "sendrecv":
            return sendrecv_cost(name, self.bytes)
        return algorithm_cost(name, self.nodes, self.ranks_per_node, self.bytes, params)


def _nnls(a: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Least squares with every parameter ≥ 0: best over subsets of free parameters (4 of them)."""
    best, best_err = np.zeros(a.shape[1]), float(np.sum(y**2))
    usable = [j for j in range(a.shape[1]) if np.any(a[:, j] != 0)]
    for size in range(1, len(usable) + 1):
        for cols in itertools.combinations(usable, size):
            sol, *_ = np.linalg.lstsq(a[:, cols], y, rcond=None)
            if np.any(sol < 0):
                continue
            x = np.zeros(a.shape[1])
            x[list(cols)] = sol
            err = float(np.sum((a @ x - y) ** 2))
            if err < best_err:
                best, best_err = x, err
    return best


def fit(points: list[Point], iterations: int = 6) -> np.ndarray:
    """Fit (α_intra, β_intra, α_inter, β_inter) minimising the relative error of every point."""
    params: np.ndarray | None = None
    for _ in range(iterations):
        rows = np.array([p.cost(params).row() for p in points])
        times = np.array([p.time_us for p in points])
        weights = 1.0 / times
        new = _nnls(rows * weights[:, None], np.ones(len(points)))
        if params is not None and np.allclose(new, params, rtol=1e-6):
            return new
        params = new
    assert params is not None
    return params


def relative_errors(points: list[Point], params: np.ndarray) -> list[float]:
    return [abs(p.cost(params).time_us(params) - p.time_us) / p.time_us for p in points]


@dataclass(kw_only=True)
class LinkParams:
    alpha_us: float
    """Latency per step, µs."""
    beta_us_per_byte: float
    """Inverse bandwidth, µs per byte (per node link for inter)."""
    bandwidth_gbps: float | None
    """1/β in Gbit/s (None when β is 0: not identifiable from the data)."""
    fitted: bool
    """False when no measured point involved this link class (parameters are 0)."""


@dataclass(kw_only=True)
class ModelFacts:
    links: dict[str, LinkParams] = field(default_factory=dict)
    heldout_median_error: float | None = None
    """Median relative error of predictions on held-out sizes (every other measured size), from
    a fit on the remaining sizes; ``links`` is then refitted on all points."""
    heldout_points: int = 0
    train_points: int = 0
    heldout: list[dict[str, float | int | str]] = field(default_factory=list)
    """Each held-out point: kind, bytes, measured and predicted time (µs), relative error."""
    notes: list[str] = field(default_factory=list)


def gbps_of(beta_us_per_byte: float) -> float | None:
    return None if beta_us_per_byte <= 0 else 8.0 / (beta_us_per_byte * 1e3)


def build(points: list[Point]) -> tuple[ModelFacts, np.ndarray | None]:
    """Fit with every other size held out, report that error, then fit on everything."""
    facts = ModelFacts()
    if len(points) < 4:
        facts.notes.append(f"{len(points)} measured points: too few to fit a model (need 4).")
        return facts, None
    sizes = sorted({p.bytes for p in points})
    held_sizes = set(sizes[1::2])
    train = [p for p in points if p.bytes not in held_sizes]
    held = [p for p in points if p.bytes in held_sizes]
    if held and len(train) >= 4:
        params = fit(train)
        errors = relative_errors(held, params)
        facts.heldout_median_error = statistics.median(errors)
        facts.heldout_points, facts.train_points = len(held), len(train)
        facts.heldout = [
            {
                "kind": p.kind,
                "bytes": p.bytes,
                "measured_us": round(p.time_us, 3),
                "predicted_us": round(p.cost(params).time_us(params), 3),
                "error": round(e, 4),
            }
            for p, e in zip(held, errors, strict=True)
        ]
    params = fit(points)
    used = np.array([p.cost(params).row() for p in points]).sum(axis=0)
    for i, link in enumerate(LINKS):
        alpha, beta = float(params[2 * i]), float(params[2 * i + 1])
        fitted = bool(used[2 * i] > 0 or used[2 * i + 1] > 0)
        facts.links[link] = LinkParams(
            alpha_us=alpha, beta_us_per_byte=beta, bandwidth_gbps=gbps_of(beta), fitted=fitted
        )
        if not fitted:
            facts.notes.append(f"no measured point crossed a {link} link: its α, β are unknown.")
    return facts, params


def params_with_nominal(
    params: np.ndarray, facts: ModelFacts, nominal_gbps: dict[str, float]
) -> np.ndarray:
    """Fill a link class the data could not fit with its nominal bandwidth (α kept at 0)."""
    out = params.copy()
    for i, link in enumerate(LINKS):
        if not facts.links[link].fitted and nominal_gbps.get(link, 0) > 0:
            out[2 * i + 1] = 8.0 / (nominal_gbps[link] * 1e3)
            facts.notes.append(f"{link}: β from the nominal {nominal_gbps[link]} Gbit/s.")
    return out


@dataclass(kw_only=True)
class WhatIf:
    nodes: int
    ranks_per_node: int
    bytes: int
    algorithm: str
    predicted_ms: float
    best: bool


def whatif(
    params: np.ndarray, shapes: list[tuple[int, int]], nbytes: int, algorithms: list[str]
) -> list[WhatIf]:
    """Predicted all-reduce time of each algorithm on each (nodes, ranks per node) shape."""
    rows: list[WhatIf] = []
    for nodes, rpn in shapes:
        shape_rows = [
            WhatIf(
                nodes=nodes,
                ranks_per_node=rpn,
                bytes=nbytes,
                algorithm=name,
                predicted_ms=algorithm_cost(name, nodes, rpn, nbytes, params).time_us(params) / 1e3,
                best=False,
            )
            for name in algorithms
            if name in MODELLED
        ]
        if shape_rows:
            min(shape_rows, key=lambda w: w.predicted_ms).best = True
        rows.extend(shape_rows)
    return rows
