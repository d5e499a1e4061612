"""Which trials to run: the exhaustive grid, or coordinate descent (the default).

Why coordinate descent. The dimensions are few, small and mostly act on different parts of a
step: the batch size sets the compute per byte communicated, the precision the compute time,
the compression the bytes on the wire, the bucket size and gradient view how well the
communication overlaps the backward, the native algorithm how the library moves the bytes. With
effects that nearly separate, optimising one dimension at a time from the default finds the
grid's optimum or comes close, at the cost of the *sum* of the dimension sizes per pass instead
of their *product*; a second pass (stopped early when it changes nothing) catches the
interactions that exist (a larger batch hides more communication). Successive halving was the
alternative, but it saves by running many configurations briefly, and a short trial here is
dominated by fixed costs (process start, rendezvous, warm-up) and noise, so its early
eliminations would be unreliable; a model-based search needs more trials than the budget to fit.

The batch size is an ordered dimension: it is grown (doubling, or along the given list) until
the first out-of-memory — the limit, recorded, never a crash — or until throughput stops rising
by ``plateau``; then optionally one bisection between the largest that fit and the first that
did not.

Both strategies only decide what to try; ``evaluate`` runs (or recalls) a trial and raises
``BudgetExhausted`` when no more may run. A setting that failed or diverged scores None and is
never adopted.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from advisor.sweep.config import TrialConfig


@dataclass(frozen=True, kw_only=True)
class Outcome:
    """What the search needs to know of a trial."""

    score: float | None
    """Samples/s when the trial is usable (finished, not diverged); None otherwise."""
    oom: bool = False
    """It ran out of memory (larger batches will too)."""


class BudgetExhausted(Exception):
    """No more trials may run (budget or deadline)."""


Evaluate = Callable[[TrialConfig], Outcome]


@dataclass(kw_only=True)
class Space:
    """The values of each dimension."""

    batch_sizes: list[int]
    """Ascending; scanned upwards from the base until out-of-memory or plateau."""
    precisions: list[str]
    comms: list[str]
    bucket_caps_mb: list[float]
    gradient_as_bucket_view: list[bool]
    native_envs: list[str]

    def _unordered(self) -> list[tuple[str, list[Any]]]:
        """The unordered dimensions (TrialConfig field, values) in coordinate-descent order."""
        return [
            ("comm", list(self.comms)),
            ("precision", list(self.precisions)),
            ("bucket_cap_mb", list(self.bucket_caps_mb)),
            ("gradient_as_bucket_view", list(self.gradient_as_bucket_view)),
            ("native_env", list(self.native_envs)),
        ]

    def categorical(self) -> list[tuple[str, list[Any]]]:
        """The unordered dimensions with a choice, in the order coordinate descent visits them."""
        return [(name, values) for name, values in self._unordered() if len(values) > 1]

    def fixed(self) -> dict[str, Any]:
        """The unordered dimensions given a single value: every trial uses that value."""
        return {name: values[0] for name, values in self._unordered() if len(values) == 1}

    def grid_size(self) -> int:
        n = len(self.batch_sizes)
        for _, values in self.categorical():
            n *= len(values)
        return n


def start(space: Space, base: TrialConfig) -> TrialConfig:
    """Where every search starts: the default setting with each single-valued dimension fixed at
    its value (``comms=[bf16]`` means every trial compresses to bf16, not the default's fp32)."""
    return replace(base, **space.fixed())


def batch_ladder(base: int, maximum: int, given: list[int]) -> list[int]:
    """Batch sizes to scan: the given list, or powers of two from ``base`` to ``maximum``."""
    if given:
        return sorted(set(given))
    out, b = [], base
    while b <= maximum:
        out.append(b)
        b *= 2
    return out


def _score(o: Outcome) -> float:
    return o.score if o.score is not None else float("-inf")


def grid(space: Space, base: TrialConfig, evaluate: Evaluate) -> None:
    """Every combination; for each setting, batches above its first out-of-memory are skipped."""
    dims = space.categorical()
    names = [name for name, _ in dims]
    try:
        for combo in itertools.product(*(values for _, values in dims)):
            settings: dict[str, Any] = dict(zip(names, combo, strict=True))
            point = replace(base, **settings)
            for b in space.batch_sizes:
                if evaluate(replace(point, batch_size=b)).oom:
                    break
    except BudgetExhausted:
        return


def coordinate_descent(
    space: Space,
    base: TrialConfig,
    evaluate: Evaluate,
    *,
    passes: int = 2,
    min_gain: float = 0.03,
    plateau: float = 0.05,
    binary_search: bool = False,
) -> TrialConfig:
    """Optimise one dimension at a time from ``base``; returns the best setting found."""
    best = base
    try:
        best_score = _score(evaluate(base))
        for _ in range(passes):
            before = best
            best, best_score = _scan_batch(
                space, best, best_score, evaluate, min_gain, plateau, binary_search
            )
            for name, values in space.categorical():
                candidates = [replace(best, **{name: v}) for v in values]
                scored = [(c, _score(evaluate(c))) for c in candidates if c != best]
                if not scored:
                    continue
                top, top_score = max(scored, key=lambda cs: cs[1])
                if _better(top_score, best_score, min_gain):
                    best, best_score = top, top_score
            if best == before:
                break  # a full pass changed nothing: converged
    except BudgetExhausted:
        pass
    return best


def _better(score: float, than: float, min_gain: float) -> bool:
    if than == float("-inf"):
        return score > than
    return score > than * (1 + min_gain)


def _scan_batch(
    space: Space,
    best: TrialConfig,
    best_score: float,
    evaluate: Evaluate,
    min_gain: float,
    plateau: float,
    binary_search: bool,
) -> tuple[TrialConfig, float]:
    ladder = [b for b in space.batch_sizes if b > best.batch_size]
    current, current_score = best, best_score
    for b in ladder:
        cand = replace(best, batch_size=b)
        out = evaluate(cand)
        if out.oom:
            if binary_search:
                mid = (current.batch_size + b) // 2
                if current.batch_size < mid < b:
                    mid_out = evaluate(replace(best, batch_size=mid))
                    if _better(_score(mid_out), current_score, min_gain):
                        current, current_score = replace(best, batch_size=mid), _score(mid_out)
            break
        score = _score(out)
        gained = _better(score, current_score, plateau)
        if _better(score, current_score, min_gain):
            current, current_score = cand, score
        if not gained:
            break  # plateau (or failure): larger batches are not worth their memory
    return current, current_score
