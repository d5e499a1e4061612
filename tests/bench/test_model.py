"""The α–β model: cost formulas follow the algorithms' traffic, and the fit recovers known links."""

from __future__ import annotations

import numpy as np
import pytest

from advisor.bench import model

TRUE = np.array([40.0, 2e-3, 900.0, 0.032])
"""α_intra µs, β_intra µs/B (~4 Gbit/s), α_inter µs, β_inter µs/B (250 Mbit/s)."""
SIZES = [2**k for k in range(16, 26)]


def synthetic(params: np.ndarray, nodes: int = 2, rpn: int = 4, noise: float = 0.0):
    rng = np.random.default_rng(0)
    points = []
    for name in model.MODELLED:
        for s in SIZES:
            t = model.algorithm_cost(name, nodes, rpn, s, params).time_us(params)
            t *= 1 + noise * rng.uniform(-1, 1)
            points.append(
                model.Point(
                    kind=f"all_reduce/{name}", nodes=nodes, ranks_per_node=rpn, bytes=s, time_us=t
                )
            )
    return points


def test_ring_moves_2_n_minus_1_over_n_of_the_tensor_per_link() -> None:
    cost = model.ring_cost(2, 4, 8e6)
    assert cost.bytes_["inter"] == pytest.approx(2 * 7 / 8 * 8e6)
    assert cost.alpha_count["inter"] == 14
    assert cost.bytes_["intra"] == 0


def test_hierarchical_traffic_ratio_matches_the_design_physics() -> None:
    # with the inter-node phase the slower one, every chunk's inter bytes add up to
    # 2(N-1)/N·S per node link, against 2(n-1)/n·S for the flat ring
    inter_bound = np.array([0.0, 1e-6, 0.0, 1.0])
    for nodes, rpn, ratio in ((2, 8, 1.875), (2, 4, 1.75), (2, 2, 1.5)):
        flat = model.ring_cost(nodes, rpn, 1e6).bytes_["inter"]
        hier = model.hierarchical_cost(nodes, rpn, 1e6, inter_bound).bytes_["inter"]
        assert flat / hier == pytest.approx(ratio)


def test_halving_doubling_folds_extra_ranks_when_not_a_power_of_two() -> None:
    six = model.halving_doubling_cost(1, 6, 1e6)
    eight = model.halving_doubling_cost(1, 8, 1e6)
    # 6 ranks: fold + 2 halving + 2 doubling + unfold; 8 ranks: 3 + 3
    assert six.alpha_count["intra"] == 6
    assert eight.alpha_count["intra"] == 6
    assert six.bytes_["intra"] == pytest.approx(2e6 + 2 * (0.5e6 + 0.25e6))


def test_tree_crosses_nodes_once_each_way_on_two_nodes() -> None:
    cost = model.tree_cost(2, 4, 1e6)
    assert cost.alpha_count["inter"] == 2
    assert cost.alpha_count["intra"] == 4


def test_fit_recovers_known_links_and_predicts_held_out_sizes() -> None:
    facts, params = model.build(synthetic(TRUE))
    assert params is not None
    np.testing.assert_allclose(params, TRUE, rtol=1e-3)
    assert facts.heldout_median_error is not None and facts.heldout_median_error < 1e-3
    assert facts.links["inter"].bandwidth_gbps == pytest.approx(0.25, rel=1e-3)
    assert facts.heldout_points > 0 and facts.train_points > 0


def test_fit_with_noise_stays_within_the_noise() -> None:
    facts, params = model.build(synthetic(TRUE, noise=0.05))
    assert params is not None
    assert facts.heldout_median_error is not None and facts.heldout_median_error < 0.05
    assert params[3] == pytest.approx(TRUE[3], rel=0.1)


def test_single_node_data_leave_inter_unfitted_and_say_so() -> None:
    facts, params = model.build(synthetic(TRUE, nodes=1, rpn=4))
    assert params is not None
    assert not facts.links["inter"].fitted
    assert any("inter" in n for n in facts.notes)
    filled = model.params_with_nominal(params, facts, {"inter": 200.0})
    assert filled[3] == pytest.approx(8 / 200e3)


def test_too_few_points_give_no_model() -> None:
    facts, params = model.build(synthetic(TRUE)[:3])
    assert params is None and facts.notes


def test_whatif_marks_one_best_algorithm_per_shape() -> None:
    rows = model.whatif(TRUE, [(4, 8), (64, 8)], 100_000_000, list(model.MODELLED))
    assert len(rows) == 2 * len(model.MODELLED)
    for nodes in (4, 64):
        shape = [r for r in rows if r.nodes == nodes]
        best = [r for r in shape if r.best]
        assert len(best) == 1
        assert best[0].predicted_ms == min(r.predicted_ms for r in shape)
    # a 100 MB all-reduce over a 250 Mbit/s node link takes seconds, not microseconds
    ring = next(r for r in rows if r.nodes == 4 and r.algorithm == "ring")
    assert 2 * 31 / 32 * 100e6 * 0.032 / 1e3 <= ring.predicted_ms
