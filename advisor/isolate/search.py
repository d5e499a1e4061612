"""Which node or link makes a job fail: the bisection over node subsets, free of any launcher.

The search is handed a function that runs one round of small jobs, each on a subset of the
nodes, and says of each whether it was healthy. It narrows the suspects the way maintainers do
it by hand, but in a bounded number of jobs:

1. the whole set once (does the small job reproduce the fault at all?);
2. halves, then halves of the failing half, down to a pair;
3. a failing pair is told apart with a known-good third node: ``{x, g}`` and ``{y, g}``. Only
   x's job fails: node x; only y's: node y; neither: the link x–y; both: both nodes;
4. when both halves pass but the whole fails, the fault lies across them (a link between the
   halves, or one that shows only at a size): one end is found by testing parts of the first
   half together with the second, the other end against that node, and the pair is then tested
   on its own (a pair that passes means the fault needs more nodes: "scale").

A node fault costs 1 + 2·(log2 N − 1) + 2 jobs, a link across halves 2 + 2·log2(N/2) + 2; both
within ``2·log2(N) + 2`` (:func:`job_budget`). Every round is kept with its verdicts: the report
draws them, and a finding cites each as evidence.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

VERDICTS = ("ok", "failed", "slow")
"""ok: the job finished and was not slow; failed: it failed, hung past its deadline or computed a
wrong sum; slow: it finished with a bus bandwidth far below the best subset measured."""

CONCLUSIONS = (
    "node",
    "nodes",
    "link",
    "pair",
    "scale",
    "not_reproduced",
    "undetermined",
)
"""node: one node's presence causes it; nodes: several nodes each cause it; link: two nodes that
are fine with others fail together; pair: two nodes fail together and there is no third node to
tell node from link; scale: every pair passes, only a larger set fails; not_reproduced: the whole
set passed the small job; undetermined: the job budget ran out."""


@dataclass(kw_only=True)
class Trial:
    """One job of a round: the nodes it ran on and what it showed."""

    nodes: list[int]
    verdict: str = "ok"
    """One of VERDICTS."""
    detail: str = ""
    """Why it failed or was slow, in the launcher's words (ranks, hosts, reason)."""

    @property
    def bad(self) -> bool:
        return self.verdict != "ok"


@dataclass(kw_only=True)
class Conclusion:
    kind: str
    """One of CONCLUSIONS."""
    nodes: list[int] = field(default_factory=list)
    """The culprit node(s); for link/pair/scale the nodes whose set fails."""
    detail: str = ""


def _not_reproduced() -> Conclusion:
    return Conclusion(kind="not_reproduced", detail="the small job passed on every node together")


RunRound = Callable[[list[list[int]]], list[Trial]]
"""Runs one job per subset (node indices, ascending) and returns their trials in that order."""


def job_budget(nodes: int) -> int:
    """The most jobs a search on ``nodes`` nodes runs: 2·log2(N) + 2 (log rounded up)."""
    return 2 * math.ceil(math.log2(max(nodes, 2))) + 2


def halves(nodes: Sequence[int]) -> tuple[list[int], list[int]]:
    mid = (len(nodes) + 1) // 2
    return list(nodes[:mid]), list(nodes[mid:])


class Search:
    """One isolation: call :meth:`run`; ``rounds`` holds every round it ran."""

    def __init__(self, nodes: Sequence[int], run_round: RunRound, *, expect_slow: bool = False):
        self.nodes = sorted(nodes)
        self._run_round = run_round
        self._expect_slow = expect_slow
        self.rounds: list[list[Trial]] = []
        self._seen: dict[tuple[int, ...], Trial] = {}

    @property
    def good(self) -> set[int]:
        """Nodes seen in a healthy job: partners for triangulation. Verdicts may change as
        rounds come (slowness is judged against the best job so far), so this is read anew."""
        return {n for t in self._seen.values() if not t.bad for n in t.nodes}

    @property
    def jobs(self) -> int:
        return sum(len(r) for r in self.rounds)

    def test(self, subsets: list[list[int]]) -> list[Trial]:
        """Run a round; a subset already tested is not run again."""
        wanted = [sorted(s) for s in subsets]
        fresh = [s for s in wanted if tuple(s) not in self._seen]
        if fresh:
            trials = self._run_round(fresh)
            self.rounds.append(trials)
            for t in trials:
                self._seen[tuple(t.nodes)] = t
        return [self._seen[tuple(s)] for s in wanted]

    def run(self) -> Conclusion:
        if len(self.nodes) < 2:
            return Conclusion(
                kind="undetermined",
                nodes=list(self.nodes),
                detail="one node: no subset to compare (isolation needs two nodes or more)",
            )
        (whole,) = self.test([self.nodes])
        if not whole.bad and not self._expect_slow:
            return _not_reproduced()
        # Expecting slowness, a passing whole is judged again once the halves are measured.
        return self._search(self.nodes)

    # ------------------------------------------------------------------ the steps

    def _with_partner(self, node: int, avoid: Sequence[int] = ()) -> list[int] | None:
        partner = next((g for g in sorted(self.good) if g != node and g not in avoid), None)
        return None if partner is None else sorted([node, partner])

    def _search(self, suspects: list[int]) -> Conclusion:
        """``suspects`` fail together; find what in them causes it."""
        if len(suspects) == 2:
            return self._triangulate(suspects[0], suspects[1])
        if len(suspects) == 3 and not self.good - set(suspects):
            return self._triple(suspects)
        first, second = halves(suspects)
        subsets = [self._testable(first), self._testable(second)]
        runnable = [s for s in subsets if s is not None]
        trials = dict(zip([tuple(s) for s in runnable], self.test(runnable), strict=True))
        verdict = [trials[tuple(s)] if s is not None else None for s in subsets]
        bad = [
            part
            for part, trial in zip((first, second), verdict, strict=True)
            if trial is not None and trial.bad
        ]
        untested = [
            part for part, trial in zip((first, second), verdict, strict=True) if trial is None
        ]
        if not bad and untested:
            # A lone node with no known-good partner yet: its partner is now the passing half.
            return self._single(untested[0][0])
        if not bad:
            whole = self._seen.get(tuple(suspects))
            if whole is not None and not whole.bad:
                return _not_reproduced()
            return self._across(first, second)
        found = [self._narrow(part) for part in bad]
        if len(found) == 1:
            return found[0]
        culprits = sorted({n for c in found for n in c.nodes})
        return Conclusion(
            kind="nodes" if all(c.kind == "node" for c in found) else "undetermined",
            nodes=culprits,
            detail="; ".join(c.detail for c in found),
        )

    def _triple(self, suspects: list[int]) -> Conclusion:
        """Three nodes and no healthy one outside them: every pair at once. A lone node padded
        with one of the others could only be compared with jobs that hold the culprit too."""
        a, b, c = suspects
        trials = self.test([[a, b], [a, c], [b, c]])
        bad = [t.nodes for t in trials if t.bad]
        if len(bad) == 1:
            return Conclusion(kind="link", nodes=bad[0], detail="the other pairs pass")
        if len(bad) == 2:
            common = sorted(set(bad[0]) & set(bad[1]))
            return Conclusion(kind="node", nodes=common, detail=f"node {common[0]} fails in both")
        if not bad:
            whole = self._seen.get(tuple(suspects))
            if whole is not None and not whole.bad:
                return _not_reproduced()
            return Conclusion(kind="scale", nodes=suspects, detail="every pair passes")
        return Conclusion(kind="undetermined", nodes=suspects, detail="every pair fails")

    def _testable(self, part: list[int]) -> list[int] | None:
        """A part as a job: a lone node needs a healthy partner (one rank alone tests nothing)."""
        if len(part) >= 2:
            return part
        return self._with_partner(part[0])

    def _narrow(self, part: list[int]) -> Conclusion:
        # A lone node failed with one healthy partner: node or link, a second partner tells.
        return self._search(part) if len(part) >= 2 else self._single(part[0])

    def _single(self, node: int) -> Conclusion:
        """One suspect node: with two healthy partners, a node fault fails both jobs, a link
        fault only one."""
        first = self._with_partner(node)
        if first is None:
            return Conclusion(kind="undetermined", nodes=[node], detail="no healthy node")
        partner = next(n for n in first if n != node)
        second = self._with_partner(node, avoid=[partner])
        trials = self.test([first] if second is None else [first, second])
        failing = [t for t in trials if t.bad]
        if not failing:
            return Conclusion(kind="scale", nodes=self.nodes, detail="every pair passes")
        if len(failing) == len(trials) and second is not None:
            return Conclusion(
                kind="node", nodes=[node], detail=f"node {node} fails with two others"
            )
        if second is None:
            return Conclusion(
                kind="pair",
                nodes=first,
                detail="one healthy partner only: node and link cannot be told apart",
            )
        return Conclusion(kind="link", nodes=failing[0].nodes, detail="fails only with this peer")

    def _triangulate(self, x: int, y: int) -> Conclusion:
        px, py = self._with_partner(x, avoid=[y]), self._with_partner(y, avoid=[x])
        untried = [n for n in self.nodes if n not in (x, y) and n not in self.good]
        if (px is None or py is None) and untried:
            # No node is known healthy yet (an odd split left one untested): a third node of
            # unknown health still tells, since x and y already failed together.
            px, py = sorted([x, untried[0]]), sorted([y, untried[0]])
        if px is None or py is None:
            (pair,) = self.test([[x, y]])
            if not pair.bad:
                return _not_reproduced()
            return Conclusion(
                kind="pair",
                nodes=[x, y],
                detail="no third node: node and link cannot be told apart",
            )
        tx, ty = self.test([px, py])
        if tx.bad and ty.bad:
            third = sorted({*px, *py} - {x, y})
            if third and third[0] not in self.good:
                return Conclusion(
                    kind="undetermined",
                    nodes=sorted([x, y, *third]),
                    detail="every pair of these three fails",
                )
            return Conclusion(kind="nodes", nodes=[x, y], detail="both fail with a healthy node")
        if tx.bad:
            return Conclusion(kind="node", nodes=[x], detail=f"node {x} fails with two peers")
        if ty.bad:
            return Conclusion(kind="node", nodes=[y], detail=f"node {y} fails with two peers")
        return Conclusion(
            kind="link", nodes=[x, y], detail="each passes with a third node, not together"
        )

    def _across(self, first: list[int], second: list[int]) -> Conclusion:
        """Both parts pass, their union fails: find one end in ``first``, then its peer."""
        ends = first
        while len(ends) > 1:
            left, right = halves(ends)
            (trial,) = self.test([left + second])
            ends = left if trial.bad else right
        a = ends[0]
        peers = second
        while len(peers) > 1:
            left, right = halves(peers)
            (trial,) = self.test([[a, *left]])
            peers = left if trial.bad else right
        b = peers[0]
        (pair,) = self.test([[a, b]])
        if pair.bad:
            return Conclusion(
                kind="link", nodes=[a, b], detail="each half passes; this pair fails alone"
            )
        failing = [t for r in self.rounds for t in r if t.bad]
        smallest = min(failing, key=lambda t: len(t.nodes)).nodes if failing else self.nodes
        return Conclusion(
            kind="scale",
            nodes=smallest,
            detail=f"every tested pair passes; the smallest failing set has {len(smallest)} nodes",
        )
