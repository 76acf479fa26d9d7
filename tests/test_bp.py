"""Belief propagation on the dependency factor graph (Gormley, Dredze & Eisner 2015; BP reading note §5 items
16–22, 27–29)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpparse.bp import (
    bp_marginals,
    brute_force_second_order,
    factor_graph,
    tree_marginals,
    tree_marginals_jvp,
)
from lpparse.oracles import brute_force_marginals
from lpparse.trees import NoTreeError
from lpparse.triples import DenseTripleScorer

MODES = [(p, r) for p in (True, False) for r in (False, True)]


def _model(seed: int, n: int, prune: float = 0.0, scale: float = 1.0):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=(n + 1, n + 1))
    s[rng.random(s.shape) < prune] = -np.inf
    s[np.arange(n), np.arange(1, n + 1)] = rng.normal(size=n)  # keep the right-branching tree
    return s, scale * rng.normal(size=(n + 1,) * 3), scale * rng.normal(size=(n + 1,) * 3)


@settings(deadline=None, max_examples=25)
@given(seed=st.integers(0, 10**6), n=st.integers(1, 6), mode=st.sampled_from(MODES))
def test_tree_jvp_matches_oracle_and_finite_differences(seed, n, mode):
    projective, single_root = mode
    s, _, _ = _model(seed, n, prune=0.2, scale=1.0)
    s *= 2
    v = np.random.default_rng(seed + 1).normal(size=s.shape)
    mu, dmu = tree_marginals_jvp(s, v, single_root, projective)
    assert np.allclose(mu, tree_marginals(s, single_root, projective)[1], atol=1e-10)
    h = 1e-5
    fd = (
        tree_marginals(s + h * v, single_root, projective)[1]
        - tree_marginals(s - h * v, single_root, projective)[1]
    ) / (2 * h)
    assert np.allclose(dmu, fd, atol=1e-7)


@pytest.mark.parametrize("projective,single_root", MODES)
def test_first_order_graph_is_exact_after_one_iteration(projective, single_root):
    s, _, _ = _model(0, 6, prune=0.2)
    log_z, mu = tree_marginals(s, single_root, projective)
    for iterations in (1, 2, 3):
        r = bp_marginals(s, single_root=single_root, projective=projective, iterations=iterations)
        assert np.allclose(r.marginals, mu, atol=1e-12)
        assert r.log_z_bethe == pytest.approx(log_z, abs=1e-9)


@pytest.mark.parametrize("projective,single_root", MODES)
def test_zero_higher_order_scores_give_the_first_order_result(projective, single_root):
    s, gp, sib = _model(1, 5)
    log_z, mu = tree_marginals(s, single_root, projective)
    r = bp_marginals(s, 0 * gp, 0 * sib, single_root, projective, iterations=4, trace=True)
    assert np.allclose(r.marginals, mu, atol=1e-12)
    assert len(r.bethe_trace) == 4 and all(z == pytest.approx(log_z, abs=1e-9) for z in r.bethe_trace)
    assert max(r.residuals) < 1e-12


@pytest.mark.parametrize("projective,single_root", MODES)
def test_beliefs_are_tree_marginals_and_approach_brute_force(projective, single_root):
    """Loopy case (BP reading note §5 item 19): beliefs are one tree distribution's marginals; the error
    against the exact second-order marginals is reported, not zero. Measured here, n = 4, unit-variance
    scores, max |b − p| after 8 iterations: ≈ 0.07–0.11 (see benchmarks/results/bp.md for the table)."""
    s, gp, sib = _model(2, 4)
    _, exact = brute_force_second_order(s, gp, sib, single_root, projective)
    for iterations in (1, 2, 4, 8):
        r = bp_marginals(s, gp, sib, single_root, projective, iterations)
        assert np.allclose(r.marginals[:, 1:].sum(axis=0), 1.0)
        assert r.marginals.sum() == pytest.approx(4.0)
        err = np.abs(r.marginals - exact).max()
        assert err < 0.6
    assert err < 0.2
    assert r.residuals[-1] < r.residuals[0]


@pytest.mark.parametrize("projective,single_root", MODES)
def test_bp_is_exact_where_the_factor_graph_is_effectively_a_tree(projective, single_root):
    """Every higher-order factor touches a forced arc (the only head left for its token), so it acts as a unary
    factor on its other arc and the loops through the tree factor carry no information: BP is exact from the
    second iteration on (in the first, the factors have not yet heard that their forced arc is ON)."""
    n = 3
    rng = np.random.default_rng(3)
    s = rng.normal(size=(n + 1, n + 1))
    s[:, 1] = -np.inf
    s[0, 1] = 0.5  # 0 -> 1 forced
    if single_root:
        s[0, 2:] = -np.inf
    s[
        2:, 2:
    ] = -np.inf  # tokens 2 and 3 take head 0 or 1: factors join 0->1 with 1->c, or 0->c with c->1 (pruned)
    gp = 2 * rng.normal(size=(n + 1,) * 3)
    _, exact = brute_force_second_order(s, gp, None, single_root, projective)
    first = bp_marginals(s, gp, single_root=single_root, projective=projective, iterations=1).marginals
    assert single_root or not np.allclose(first, exact)  # single-root leaves one tree: trivially exact
    for iterations in (2, 4):
        r = bp_marginals(s, gp, single_root=single_root, projective=projective, iterations=iterations)
        assert np.allclose(r.marginals, exact, atol=1e-12)


def test_triple_scorer_input_equals_dense_scores():
    s, gp, _ = _model(4, 5, prune=0.3)
    scorer = DenseTripleScorer(gp)
    a = bp_marginals(s, gp, iterations=3)
    b = bp_marginals(s, scorer, iterations=3)
    assert np.array_equal(a.marginals, b.marginals)
    assert 0 < scorer.scored == int(factor_graph(s, gp).family("grandparent").mask.sum())


@pytest.mark.parametrize("projective,single_root", MODES)
@pytest.mark.parametrize("iterations,damping", [(1, 0.0), (3, 0.0), (2, 0.4)])
def test_backprop_matches_finite_differences_for_every_factor_type(
    projective, single_root, iterations, damping
):
    s, gp, sib = _model(5 + iterations, 4, prune=0.15)
    rng = np.random.default_rng(9)
    w = rng.normal(size=s.shape)

    def objective(arc, g, b):
        return float(
            (w * bp_marginals(arc, g, b, single_root, projective, iterations, damping).marginals).sum()
        )

    grads = bp_marginals(s, gp, sib, single_root, projective, iterations, damping).backward(w)
    graph = factor_graph(s, gp, sib, single_root, projective)
    h = 1e-6
    for which, array, grad, mask in (
        (0, s, grads.arc, graph.arc_mask),
        (1, gp, grads.grandparent, graph.family("grandparent").mask),
        (2, sib, grads.sibling, graph.family("sibling").mask),
    ):
        assert np.all(grad[~mask] == 0.0)
        for idx in map(tuple, np.argwhere(mask)[rng.choice(int(mask.sum()), 8, replace=False)]):
            args_p, args_m = [s, gp, sib], [s, gp, sib]
            args_p[which] = array.copy()
            args_m[which] = array.copy()
            args_p[which][idx] += h
            args_m[which][idx] -= h
            fd = (objective(*args_p) - objective(*args_m)) / (2 * h)
            assert grad[idx] == pytest.approx(fd, abs=1e-7), (which, idx)


@pytest.mark.parametrize("projective,single_root", MODES)
def test_large_and_pruned_scores_are_stable(projective, single_root):
    s, gp, sib = _model(6, 6, prune=0.3, scale=1e3)
    s *= 1e3
    r = bp_marginals(s, gp, sib, single_root, projective, iterations=4)
    assert np.isfinite(r.marginals).all() and np.isfinite(r.log_z_bethe)
    assert np.allclose(r.marginals[:, 1:].sum(axis=0), 1.0)
    assert np.all(r.marginals[~np.isfinite(s)] == 0.0)
    g = r.backward(np.ones_like(s))
    assert np.isfinite(g.arc).all() and np.isfinite(g.grandparent).all() and np.isfinite(g.sibling).all()


def test_bad_input_gives_clear_errors():
    s = np.zeros((4, 4))
    s[:, 2] = -np.inf
    with pytest.raises(NoTreeError):
        bp_marginals(s)
    s = np.zeros((4, 4))
    s[1, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        bp_marginals(s)
    gp = np.zeros((4, 4, 4))
    gp[0, 1, 2] = np.inf
    with pytest.raises(ValueError, match="inf"):
        bp_marginals(np.zeros((4, 4)), gp)
    with pytest.raises(ValueError, match="iterations"):
        bp_marginals(np.zeros((4, 4)), iterations=0)
    # a forbidden triple (score -inf) is a hard zero, not an error
    gp[0, 1, 2] = -np.inf
    r = bp_marginals(np.zeros((4, 4)), gp, iterations=3)
    assert r.gp_beliefs[0, 1, 2] == 0.0 and np.isfinite(r.marginals).all()


def test_single_root_multi_root_counts_at_zero_scores():
    """Unit weights: the first-order beliefs are uniform over trees, as the brute force says (BP reading note
    §1)."""
    for projective, single_root in MODES:
        r = bp_marginals(np.zeros((5, 5)), single_root=single_root, projective=projective, iterations=1)
        assert np.allclose(r.marginals, brute_force_marginals(np.zeros((5, 5)), single_root, projective))
