"""The semiring-generic DP engine (lpparse.dp) against brute-force enumeration of every projective tree, for
each semiring; its back-pointer fast path and its hypergraph reading against the engine."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpparse.bp.exact import brute_force_second_order
from lpparse.dp.chart import best, run
from lpparse.dp.eisner import eisner_best, eisner_chart, eisner_program
from lpparse.dp.grandparent import grandparent_program
from lpparse.dp.semiring import DUAL_LOG, LOG, MAX, SEMIRINGS
from lpparse.hypergraph.core import outside
from lpparse.hypergraph.eisner import arc_weights, eisner_hypergraph
from lpparse.hypergraph.program import program_hypergraph
from lpparse.oracles import all_trees
from lpparse.oracles.brute_force import second_order_tree_scores
from lpparse.scores import random_scores
from lpparse.trees import NoTreeError

SETTINGS = settings(deadline=None, max_examples=25)
instances = {
    "n": st.integers(1, 6),
    "single_root": st.booleans(),
    "seed": st.integers(0, 10**6),
    "prune": st.booleans(),
}


def _instance(n: int, seed: int, prune: bool) -> tuple[np.ndarray, np.ndarray]:
    """Arc scores (a third of the arcs pruned if ``prune``) and a tangent direction."""
    rng = np.random.default_rng(seed)
    s = random_scores(n, rng)
    if prune:
        s[rng.random(s.shape) < 0.3] = -np.inf
    return s, rng.normal(size=s.shape)


def _enumerate(
    s: np.ndarray, v: np.ndarray, single_root: bool
) -> dict[str, tuple[np.ndarray, np.ndarray]] | None:
    """Per semiring, the goal value (and tangent) and the adjoints of the arc scores, by enumeration:
    max and the best tree's arcs; log Z and the arc marginals; d log Z along v and the marginals' tangent
    (the covariance of each arc with v·T: Li & Eisner 2009's second-order expectation). None if no
    projective tree has a finite score."""
    size = s.shape[0]
    trees = all_trees(size - 1, single_root, projective=True)
    arcs = np.zeros((trees.shape[0], size, size))
    t, m = np.nonzero(trees[:, 1:] >= 0)
    arcs[t, trees[t, m + 1], m + 1] = 1.0
    flat = arcs.reshape(trees.shape[0], -1)
    with np.errstate(invalid="ignore"):
        score = np.where(flat > 0, s.ravel(), 0.0).sum(axis=1)
    top = int(np.argmax(score))
    if score[top] == -np.inf:
        return None
    p = np.exp(score - score[top])
    log_z = score[top] + np.log(p.sum())
    p /= p.sum()
    mu = p @ flat
    tangent = flat @ np.where(np.isfinite(s), v, 0.0).ravel()
    d_log_z = p @ tangent
    d_mu = (p * (tangent - d_log_z)) @ flat
    return {
        "max": (np.array([score[top]]), arcs[top][None]),
        "log": (np.array([log_z]), mu.reshape(1, size, size)),
        "dual-log": (np.array([log_z, d_log_z]), np.stack([mu, d_mu]).reshape(2, size, size)),
    }


@SETTINGS
@given(**instances)
def test_eisner_chart_against_enumeration_in_every_semiring(
    n: int, single_root: bool, seed: int, prune: bool
) -> None:
    s, v = _instance(n, seed, prune)
    expected = _enumerate(s, v, single_root)
    for name, semiring in SEMIRINGS.items():
        tangent = v if semiring is DUAL_LOG else None
        if expected is None:
            with pytest.raises(NoTreeError):
                eisner_chart(s, single_root, semiring, tangent)
            continue
        value, adjoints = expected[name]
        result = eisner_chart(s, single_root, semiring, tangent)
        np.testing.assert_allclose(result.value, value, atol=1e-9)
        np.testing.assert_allclose(result.adjoints, adjoints, atol=1e-9)


@SETTINGS
@given(**instances)
def test_eisner_fast_path_and_hypergraph_agree_with_the_engine(
    n: int, single_root: bool, seed: int, prune: bool
) -> None:
    """The back-pointer path equals ``run`` under MAX; the compiled hypergraph's outside pass equals the
    chart's backward pass under every semiring; its edges have distinct (kind, label) (LP column names)."""
    s, v = _instance(n, seed, prune)
    try:
        engine = {
            name: eisner_chart(s, single_root, sr, v if sr is DUAL_LOG else None)
            for name, sr in SEMIRINGS.items()
        }
    except NoTreeError:
        return
    value, arcs = eisner_best(s, single_root)
    assert value == engine["max"].value[0]
    np.testing.assert_array_equal(arcs, engine["max"].adjoints[0])
    hg = eisner_hypergraph(n, single_root)
    assert np.unique(np.column_stack([hg.kind, hg.label]), axis=0).shape[0] == hg.num_edges
    theta = arc_weights(hg, s)
    for name, semiring in SEMIRINGS.items():
        weights = np.stack([theta, hg.parts.T @ np.where(np.isfinite(s), v, 0.0).ravel()])[: semiring.width]
        root, mu = outside(hg, weights, semiring)
        np.testing.assert_allclose(root, engine[name].value, atol=1e-9)
        parts = np.stack([hg.parts @ row for row in mu]).reshape(semiring.width, n + 1, n + 1)
        np.testing.assert_allclose(parts, engine[name].adjoints, atol=1e-9)


@settings(deadline=None, max_examples=15)
@given(n=st.integers(1, 5), single_root=st.booleans(), seed=st.integers(0, 10**6))
def test_grandparent_program_against_enumeration(n: int, single_root: bool, seed: int) -> None:
    """Under MAX (back-pointers and dense) the best second-order tree; under LOG its log Z and arc marginals."""
    rng = np.random.default_rng(seed)
    s, gp = random_scores(n, rng), rng.normal(size=(n + 1,) * 3)
    trees = all_trees(n, single_root, projective=True)
    best_value = second_order_tree_scores(trees, s, gp, None).max()
    log_z, mu = brute_force_second_order(s, gp, None, single_root, projective=True)
    program = grandparent_program(n, single_root)
    g, p, c = np.indices(gp.shape)
    weights = np.zeros((n + 2, n + 1, n + 1))
    weights[: n + 1] = np.where((p > 0) & (c > 0) & (g != p) & (p != c) & (g != c), gp, 0.0)
    weights += s[None]
    value, chosen = best(program, weights)
    assert value == pytest.approx(best_value, abs=1e-9)
    dense = run(program, weights[None], MAX)
    np.testing.assert_array_equal(dense.adjoints[0], chosen)
    inside = run(program, weights[None], LOG)
    assert inside.value[0] == pytest.approx(log_z, abs=1e-9)
    np.testing.assert_allclose(inside.adjoints[0].sum(axis=0), mu, atol=1e-9)
    if n <= 3:
        hg = program_hypergraph(program, "grandparent")
        assert outside(hg, (hg.parts.T @ weights.ravel())[None], MAX)[0][0] == pytest.approx(
            best_value, abs=1e-9
        )


def test_semiring_segments_match_rows() -> None:
    """``segment_reduce`` over equal segments is ``reduce`` over rows, in every semiring, -inf rows included."""
    x = np.random.default_rng(0).normal(size=(2, 3, 4))
    x[0, 0, 1] = x[0, 1, :] = -np.inf
    for semiring in (MAX, LOG, DUAL_LOG):
        y = x[: semiring.width]
        value, weights = semiring.reduce(y)
        seg_value, seg_weights = semiring.segment_reduce(y.reshape(semiring.width, -1), np.arange(0, 12, 4))
        np.testing.assert_array_equal(value.reshape(seg_value.shape), seg_value)
        np.testing.assert_allclose(weights.reshape(seg_weights.shape), seg_weights)
        assert value[0, 1] == -np.inf and not weights[1:, 1].any()


def test_eisner_program_is_cached_and_rejects_empty_sentences() -> None:
    assert eisner_program(4, True) is eisner_program(4, True)
    with pytest.raises(ValueError, match="at least one token"):
        eisner_program(0, False)
