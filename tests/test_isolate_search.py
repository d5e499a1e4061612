"""The isolation search on simulated faults: every node, every link, clusters of 2 to 16 nodes.

The search is pure (it is handed the function that runs a round of jobs), so it is checked here
against a model of each fault; the lab tests (tests/test_isolate_lab.py) run it on real jobs.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest

from advisor.isolate.search import Search, Trial, job_budget

Fault = Callable[[set[int]], bool]


def runner(fault: Fault, log: list[list[int]]) -> Callable[[list[list[int]]], list[Trial]]:
    def run_round(subsets: list[list[int]]) -> list[Trial]:
        log.extend(subsets)
        return [Trial(nodes=s, verdict="failed" if fault(set(s)) else "ok") for s in subsets]

    return run_round


@pytest.mark.parametrize("n", [3, 4, 5, 6, 8, 13, 16])
def test_every_bad_node_is_named_within_budget(n: int) -> None:
    for bad in range(n):
        log: list[list[int]] = []
        search = Search(range(n), runner(lambda s, b=bad: b in s, log))
        c = search.run()
        assert (c.kind, c.nodes) == ("node", [bad]), (n, bad, c, log)
        assert search.jobs == len(log) <= job_budget(n), (n, bad, log)
        assert all(len(s) >= 2 for s in log), "a one-node job tests no link"


@pytest.mark.parametrize("n", [3, 4, 5, 8, 16])
def test_every_cut_link_is_named_within_budget(n: int) -> None:
    for a, b in itertools.combinations(range(n), 2):
        log: list[list[int]] = []
        search = Search(range(n), runner(lambda s, a=a, b=b: a in s and b in s, log))
        c = search.run()
        assert (c.kind, c.nodes) == ("link", [a, b]), (n, a, b, c, log)
        assert search.jobs <= job_budget(n), (n, a, b, log)


def test_two_nodes_without_a_third_cannot_tell_node_from_link() -> None:
    search = Search([0, 1], runner(lambda s: 1 in s, []))
    c = search.run()
    assert c.kind == "pair" and c.nodes == [0, 1]
    assert "third" in c.detail


def test_a_fault_that_needs_many_nodes_is_scale() -> None:
    search = Search(range(8), runner(lambda s: len(s) >= 6, []))
    c = search.run()
    assert c.kind == "scale"
    assert len(c.nodes) >= 6


def test_a_passing_whole_is_not_reproduced_in_one_job() -> None:
    log: list[list[int]] = []
    c = Search(range(4), runner(lambda s: False, log)).run()
    assert c.kind == "not_reproduced" and log == [[0, 1, 2, 3]]


def test_two_bad_nodes_in_different_halves_are_both_named() -> None:
    c = Search(range(8), runner(lambda s: bool(s & {1, 6}), [])).run()
    assert c.kind == "nodes" and c.nodes == [1, 6]


def test_a_subset_is_never_run_twice() -> None:
    log: list[list[int]] = []
    Search(range(4), runner(lambda s: 2 in s and 3 in s, log)).run()
    assert len(log) == len({tuple(s) for s in log})


def test_budget_is_two_log2_plus_two() -> None:
    assert [job_budget(n) for n in (2, 4, 8, 16, 5)] == [4, 6, 8, 10, 8]


def slow_runner(slow: set[int], log: list[list[int]]) -> Callable[[list[list[int]]], list[Trial]]:
    """Like the stage's judge: a job's bandwidth is that of its slowest member's link, and every
    job so far is judged again against the best one after each round."""
    trials: list[tuple[Trial, float]] = []

    def run_round(subsets: list[list[int]]) -> list[Trial]:
        log.extend(subsets)
        fresh = [(Trial(nodes=s), 0.1 if set(s) & slow else 1.0) for s in subsets]
        trials.extend(fresh)
        best = max(bw for _, bw in trials)
        for t, bw in trials:
            t.verdict = "slow" if bw < 0.5 * best else "ok"
        return [t for t, _ in fresh]

    return run_round


@pytest.mark.parametrize("n", [2, 3, 4, 8])
def test_a_slow_node_is_found_once_faster_subsets_are_measured(n: int) -> None:
    for bad in range(n):
        log: list[list[int]] = []
        search = Search(range(n), slow_runner({bad}, log), expect_slow=True)
        c = search.run()
        if n == 2:
            # two nodes: every job holds the slow one, nothing to compare with
            assert c.kind == "not_reproduced"
            continue
        assert (c.kind, c.nodes) == ("node", [bad]), (n, bad, c, log)
        assert search.jobs <= job_budget(n)


def test_without_slowness_expected_a_passing_whole_ends_the_search() -> None:
    log: list[list[int]] = []
    c = Search(range(4), slow_runner({2}, log)).run()
    assert c.kind == "not_reproduced" and len(log) == 1
