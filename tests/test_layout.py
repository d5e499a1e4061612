"""Static subgroup layout validation (pure, no job) and its config errors."""

from __future__ import annotations

import pytest

from advisor.config import to_typed
from advisor.errors import ConfigError
from advisor.probes.layout import (
    Dimension,
    GroupSetConfig,
    LayoutConfig,
    check_layout,
    parallel_groups,
    validate_layout,
)
from advisor.probes.subgroups import compare_sequences, exercised_layout, majority


def declared(name: str, kind: str, ranks: list[list[int]]) -> LayoutConfig:
    return LayoutConfig(groups={name: GroupSetConfig(kind=kind, ranks=ranks)})


def test_article_inter_node_group_is_reported_and_corrected_on_2x8() -> None:
    # The seed article builds its inter-node group as list(range(num_nodes)) = [0, 1].
    check = check_layout(declared("inter", "inter_node", [[0, 1]]), nodes=2, per_node=8)
    kinds = {e.kind: e for e in check.errors}
    assert set(kinds) == {"incomplete", "same_node"}
    assert kinds["same_node"].group == [0, 1]
    assert kinds["same_node"].expected == [0, 8]
    assert "[0, 1] puts ranks 0, 1 on one node" in kinds["same_node"].message
    assert "ranks 2–15 are in no group" in kinds["incomplete"].message
    assert check.corrected["inter"] == [[local, local + 8] for local in range(8)]
    assert check.spans["inter"] == "intra_node"


def test_the_natural_layout_is_valid() -> None:
    check = check_layout(LayoutConfig(), nodes=4, per_node=8)
    assert check.ok and check.source == "natural"
    assert check.declared["inter_node"][3] == [3, 11, 19, 27]
    assert check.spans == {"intra_node": "intra_node", "inter_node": "inter_node"}
    single = check_layout(LayoutConfig(), nodes=1, per_node=2)
    assert single.ok and single.spans == {"intra_node": "intra_node", "inter_node": "inter_node"}


@pytest.mark.parametrize(
    ("ranks", "kind", "error"),
    [
        ([[0, 1], [2, 4]], "any", "out_of_range"),
        ([[0, 0], [1, 2, 3]], "any", "duplicate"),
        ([[0, 1], [1, 2], [3]], "any", "overlap"),
        ([[0, 1, 2], [3]], "any", "uneven"),
        ([[0, 3], [1, 2]], "inter_node", "local_rank_mismatch"),
        ([[0, 2], [1, 3]], "intra_node", "spans_nodes"),
    ],
)
def test_each_broken_rule_is_named(ranks: list[list[int]], kind: str, error: str) -> None:
    check = check_layout(declared("d", kind, ranks), nodes=2, per_node=2)
    assert error in {e.kind for e in check.errors}, check.errors


def test_inter_node_group_missing_a_node() -> None:
    errors = validate_layout(
        [Dimension(name="x", kind="inter_node", groups=[[0, 4], [1, 5], [2, 6], [3, 7]])],
        nodes=4,
        per_node=2,
    ).errors
    # Every group is wrong: the first spans only nodes 0 and 2.
    assert errors[0].kind == "not_all_nodes" and errors[0].expected == [0, 2, 4, 6]


def test_intra_node_correction_keeps_the_group_size() -> None:
    check = check_layout(
        declared("tp", "intra_node", [[0, 1], [2, 3], [4, 5], [6, 7]]), nodes=2, per_node=4
    )
    assert check.ok
    bad = check_layout(
        declared("tp", "intra_node", [[0, 1], [2, 4], [3, 5], [6, 7]]), nodes=2, per_node=4
    )
    assert [e.group for e in bad.errors] == [[2, 4], [3, 5]]
    assert bad.corrected["tp"] == [[0, 1], [2, 3], [4, 5], [6, 7]]


def test_parallel_dimensions_are_derived_node_major() -> None:
    groups = parallel_groups({"tp": 4, "dp": 2, "pp": 2})
    assert groups["tp"][1] == [4, 5, 6, 7]
    assert groups["dp"][0] == [0, 4]
    assert groups["pp"][0] == [0, 8]
    check = check_layout(
        LayoutConfig(parallel={"tp": 8, "dp": 2}, kinds={"tp": "intra_node"}), nodes=2, per_node=8
    )
    assert check.ok and check.source == "parallel"
    assert check.spans == {"tp": "intra_node", "dp": "inter_node"}


def test_parallel_dimension_that_cannot_fit_a_node() -> None:
    check = check_layout(
        LayoutConfig(parallel={"tp": 16}, kinds={"tp": "intra_node"}), nodes=2, per_node=8
    )
    assert [e.kind for e in check.errors] == ["spans_nodes"]
    assert "tp" not in check.corrected  # no intra-node split of 16 ranks exists on 8 per node
    wrong_size = check_layout(LayoutConfig(parallel={"tp": 8, "dp": 4}), nodes=2, per_node=8)
    assert wrong_size.errors[0].kind == "parallel_size"
    assert "32 ranks" in wrong_size.errors[0].message and "16" in wrong_size.errors[0].message


def test_job_exercises_the_corrected_layout_when_the_declared_one_is_wrong() -> None:
    check = check_layout(declared("inter", "inter_node", [[0, 1]]), nodes=2, per_node=2)
    source, dims = exercised_layout(check, 2, 2)
    assert source == "corrected" and dims[0].groups == [[0, 2], [1, 3]]
    anyway = check_layout(declared("d", "any", [[0, 1, 2]]), nodes=2, per_node=2)
    assert exercised_layout(anyway, 2, 2)[0] == "natural"


@pytest.mark.parametrize(
    ("layout", "key"),
    [
        ({"groups": {"inter": {"kind": "between", "ranks": [[0, 1]]}}}, "groups.inter.kind"),
        ({"groups": {"inter": {"kind": "any", "ranks": []}}}, "groups.inter.ranks"),
        ({"groups": {"a": {"ranks": [[0]]}}, "parallel": {"tp": 2}}, "either groups or parallel"),
        ({"parallel": {"tp": 0}}, "parallel.tp=0"),
        ({"parallel": {"tp": 2}, "kinds": {"pp": "any"}}, "kinds.pp names no parallel"),
    ],
)
def test_bad_layout_config_names_the_key(layout: dict, key: str) -> None:
    with pytest.raises(ConfigError, match=r"stages\.subgroups\.layout") as e:
        to_typed({"stages": {"subgroups": {"layout": layout}}})
    assert key in str(e.value)


def test_sequence_comparison_names_the_odd_ranks_and_the_first_difference() -> None:
    call = {"op": "all_reduce", "shape": [4], "dtype": "float32", "dim": "x"}
    odd = {**call, "dtype": "float64"}
    seqs = {0: [call, call], 1: [call, odd], 2: [call, call], 3: [call, call, call]}
    found = {m.rank: m for m in compare_sequences(seqs)}
    assert set(found) == {1, 3}
    assert (found[1].call, found[1].got, found[1].expected) == (1, odd, call)
    assert (found[3].call, found[3].count, found[3].expected_count) == (2, 3, 2)
    assert found[3].expected is None
    # A tie goes to the sequence held by the lowest rank.
    assert majority({0: "a", 1: "b"}) == "a"
