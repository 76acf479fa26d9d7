"""Exact first-order oracles against brute-force enumeration (and networkx for Chu-Liu-Edmonds)."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from lpparse.oracles import (
    all_trees,
    arc_marginals,
    brute_force,
    brute_force_log_partition,
    brute_force_marginals,
    chu_liu_edmonds,
    eisner,
    enumerate_trees,
    fast_arc_marginals,
    log_partition,
    matrix_tree,
    projective_inside_outside,
    projective_log_partition,
    projective_marginals,
)
from lpparse.oracles.chu_liu_edmonds import chu_liu_edmonds_valid
from lpparse.trees import NoTreeError, is_projective, is_tree, tree_score

# counts of trees, BP reading note §1: (single-root, projective) -> counts for n = 1..6
TREE_COUNTS = {
    (True, False): [1, 2, 9, 64, 625, 7776],
    (True, True): [1, 2, 7, 30, 143, 728],
    (False, False): [1, 3, 16, 125, 1296, 16807],
    (False, True): [1, 3, 12, 55, 273, 1428],
}

instances = dict(
    n=st.integers(1, 7),
    single_root=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
    prune=st.sampled_from([0.0, 0.0, 0.2, 0.4, 0.6]),
)


def random_scores(n: int, seed: int, prune: float, scale: float = 1.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    scores = scale * rng.normal(size=(n + 1, n + 1))
    scores[rng.random(scores.shape) < prune] = -np.inf
    return scores


def networkx_value(scores: np.ndarray) -> float:
    graph = nx.DiGraph()
    size = scores.shape[0]
    graph.add_nodes_from(range(size))
    for h in range(size):
        for m in range(1, size):
            if h != m and np.isfinite(scores[h, m]):
                graph.add_edge(h, m, weight=scores[h, m])
    tree = nx.maximum_spanning_arborescence(graph, attr="weight", preserve_attrs=True)
    return sum(d["weight"] for _, _, d in tree.edges(data=True))


@pytest.mark.parametrize(("single_root", "projective"), list(TREE_COUNTS))
def test_enumeration_counts_and_validity(single_root: bool, projective: bool) -> None:
    for n, count in enumerate(TREE_COUNTS[single_root, projective], start=1):
        trees = all_trees(n, single_root, projective)
        assert len(trees) == count
        assert len({tuple(t) for t in trees}) == count
        assert all(is_tree(t, single_root) and (is_projective(t) or not projective) for t in trees)
    assert len(list(enumerate_trees(3, single_root, projective))) == TREE_COUNTS[single_root, projective][2]


def test_brute_force_limits() -> None:
    with pytest.raises(ValueError, match="n <= 7"):
        next(enumerate_trees(8))
    with pytest.raises(ValueError, match="n <= 7"):
        brute_force(np.zeros((9, 9)))


def test_brute_force_grandparent_scores() -> None:
    rng = np.random.default_rng(3)
    n = 4
    scores, gp = rng.normal(size=(n + 1, n + 1)), rng.normal(size=(n + 1,) * 3)
    heads, value = brute_force(scores, gp_scores=gp)
    c = np.arange(1, n + 1)

    def total(h: np.ndarray) -> float:
        p = h[1:]
        return tree_score(scores, h) + float(gp[h[p[p > 0]], p[p > 0], c[p > 0]].sum())

    assert value == pytest.approx(total(heads))
    assert value == pytest.approx(max(total(t) for t in enumerate_trees(n)))
    with pytest.raises(ValueError, match="shape"):
        brute_force(scores, gp_scores=gp[:-1])


@settings(max_examples=300, deadline=None)
@given(**instances)
@example(n=6, single_root=False, seed=9205783, prune=0.6)  # networkx 3.6.1 finds no arborescence here
def test_chu_liu_edmonds_matches_brute_force_and_networkx(
    n: int, single_root: bool, seed: int, prune: float
) -> None:
    scores = random_scores(n, seed, prune)
    try:
        _, expected = brute_force(scores, single_root)
    except NoTreeError:
        with pytest.raises(NoTreeError):
            chu_liu_edmonds(scores, single_root)
        return
    heads = chu_liu_edmonds(scores, single_root)
    assert is_tree(heads, single_root)
    assert tree_score(scores, heads) == pytest.approx(expected, rel=1e-12, abs=1e-12)
    if not single_root:
        try:
            value = networkx_value(scores)
        except nx.NetworkXException:
            # networkx's Edmonds (3.6.1) misses the arborescences of some sparse graphs: on the example above
            # it raises "No maximum spanning arborescence" where brute force and Chu-Liu-Edmonds find one
            # (heads -1 6 4 2 0 3 3); brute force stays the independent check there
            assert prune > 0
        else:
            assert value == pytest.approx(expected, rel=1e-12, abs=1e-12)


@settings(max_examples=200, deadline=None)
@given(**instances)
def test_chu_liu_edmonds_with_ties(n: int, single_root: bool, seed: int, prune: float) -> None:
    """Integer scores make many ties; the value must still be optimal."""
    scores = np.round(random_scores(n, seed, prune, scale=1.5))
    try:
        _, expected = brute_force(scores, single_root)
    except NoTreeError:
        return
    heads = chu_liu_edmonds(scores, single_root)
    assert is_tree(heads, single_root)
    assert tree_score(scores, heads) == expected


@settings(max_examples=300, deadline=None)
@given(**instances, forced=st.integers(0, 3), huge=st.booleans())
# a contraction's weight overflows to -inf while a tree exists: the guarded run stops, the unguarded one ends
@example(n=5, single_root=True, seed=18, prune=0.2, forced=0, huge=True)
def test_chu_liu_edmonds_valid_is_chu_liu_edmonds(
    n: int, single_root: bool, seed: int, prune: float, forced: int, huge: bool
) -> None:
    """:func:`chu_liu_edmonds_valid` (scores taken as valid, no question whether a tree exists before the run)
    gives the heads of :func:`chu_liu_edmonds`, and NoTreeError exactly when it raises it: pruned arcs, tokens
    whose only head is the root, ties, and weights whose contractions overflow."""
    scores = np.round(random_scores(n, seed, prune, scale=1.5))
    scores[1:, 1 : forced + 1] = -np.inf  # the first tokens' only head is the root (when it is one)
    with np.errstate(over="ignore", invalid="ignore"):  # huge: the same overflows in both
        if huge:
            scores = np.clip(5e307 * scores, -1.7e308, 1.7e308)
        try:
            expected = chu_liu_edmonds(scores, single_root)
        except NoTreeError:
            with pytest.raises(NoTreeError):
                chu_liu_edmonds_valid(scores, single_root)
            return
        assert np.array_equal(chu_liu_edmonds_valid(scores, single_root), expected)


@settings(max_examples=300, deadline=None)
@given(**instances)
def test_eisner_matches_projective_brute_force(n: int, single_root: bool, seed: int, prune: float) -> None:
    scores = random_scores(n, seed, prune)
    try:
        _, expected = brute_force(scores, single_root, projective=True)
    except NoTreeError:
        with pytest.raises(NoTreeError):
            eisner(scores, single_root)
        return
    heads = eisner(scores, single_root)
    assert is_tree(heads, single_root) and is_projective(heads)
    assert tree_score(scores, heads) == pytest.approx(expected, rel=1e-12, abs=1e-12)


def check_distribution(
    log_z: float, mu: np.ndarray, scores: np.ndarray, single_root: bool, projective: bool
) -> None:
    expected_z = brute_force_log_partition(scores, single_root, projective)
    expected_mu = brute_force_marginals(scores, single_root, projective)
    assert log_z == pytest.approx(expected_z, rel=1e-9, abs=1e-9)
    np.testing.assert_allclose(mu, expected_mu, rtol=1e-9, atol=1e-10)
    assert np.all((mu >= 0) & (mu <= 1))
    np.testing.assert_allclose(mu.sum(axis=0)[1:], 1.0, atol=1e-10)
    assert mu[:, 0].sum() == 0 and np.trace(mu) == 0
    if single_root:
        assert mu[0].sum() == pytest.approx(1.0, abs=1e-10)


@settings(max_examples=500, deadline=None)
@given(**instances, scale=st.sampled_from([1.0, 1.0, 30.0, 1000.0]), projective=st.booleans())
@example(n=2, single_root=False, seed=272221, prune=0.0, scale=30.0, projective=False)  # a near-cycle
def test_partition_and_marginals_match_brute_force(
    n: int, single_root: bool, seed: int, prune: float, scale: float, projective: bool
) -> None:
    """Matrix-tree (non-projective) and inside-outside (projective), scores up to +-1e3 included."""
    both, z_only, mu_only = (
        (projective_inside_outside, projective_log_partition, projective_marginals)
        if projective
        else (matrix_tree, log_partition, arc_marginals)
    )
    scores = random_scores(n, seed, prune, scale)
    try:
        brute_force_log_partition(scores, single_root, projective)
    except NoTreeError:
        with pytest.raises(NoTreeError):
            both(scores, single_root)
        return
    log_z, mu = both(scores, single_root)
    check_distribution(log_z, mu, scores, single_root, projective)
    assert z_only(scores, single_root) == log_z
    np.testing.assert_array_equal(mu_only(scores, single_root), mu)
    if not projective:  # the inverse-Laplacian marginals of pruning, or the elimination's where they fail
        np.testing.assert_allclose(fast_arc_marginals(scores, single_root), mu, rtol=0, atol=1e-9)


@pytest.mark.parametrize("single_root", [False, True])
def test_unit_weights_count_trees(single_root: bool) -> None:
    for n in range(1, 7):
        zeros = np.zeros((n + 1, n + 1))
        assert np.exp(log_partition(zeros, single_root)) == pytest.approx(
            TREE_COUNTS[single_root, False][n - 1]
        )
        assert np.exp(projective_log_partition(zeros, single_root)) == pytest.approx(
            TREE_COUNTS[single_root, True][n - 1]
        )


@pytest.mark.parametrize("single_root", [False, True])
def test_large_sentences_are_consistent(single_root: bool) -> None:
    """n beyond brute force: decoders give valid trees, marginals sum to one, MAP <= log Z."""
    rng = np.random.default_rng(11)
    n = 60
    scores = 5.0 * rng.normal(size=(n + 1, n + 1))
    cle, proj = chu_liu_edmonds(scores, single_root), eisner(scores, single_root)
    assert is_tree(cle, single_root) and is_tree(proj, single_root) and is_projective(proj)
    assert tree_score(scores, cle) >= tree_score(scores, proj) - 1e-9
    for log_z, mu, best in [
        (*matrix_tree(scores, single_root), tree_score(scores, cle)),
        (*projective_inside_outside(scores, single_root), tree_score(scores, proj)),
    ]:
        assert best <= log_z
        np.testing.assert_allclose(mu.sum(axis=0)[1:], 1.0, atol=1e-9)
        assert mu.sum() == pytest.approx(n)
    exact = matrix_tree(scores, single_root)[1]
    np.testing.assert_allclose(fast_arc_marginals(scores, single_root), exact, atol=1e-9)
    # sharpening the scores concentrates the marginals on the MAP tree (unique with continuous scores)
    for mu, best in [
        (matrix_tree(100 * scores, single_root)[1], cle),
        (projective_marginals(100 * scores, single_root), proj),
    ]:
        np.testing.assert_array_equal(np.argmax(mu, axis=0)[1:], best[1:])
    with pytest.raises(FloatingPointError, match="range"):
        matrix_tree(1e5 * scores, single_root)


ORACLES = [
    chu_liu_edmonds,
    eisner,
    log_partition,
    arc_marginals,
    fast_arc_marginals,
    projective_log_partition,
    projective_marginals,
    brute_force,
    brute_force_log_partition,
    brute_force_marginals,
]


@pytest.mark.parametrize("oracle", ORACLES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("single_root", [False, True])
def test_clear_errors(oracle, single_root: bool) -> None:
    good = np.zeros((4, 4))
    bad = good.copy()
    bad[1, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        oracle(bad, single_root=single_root)
    bad[1, 2] = np.inf
    with pytest.raises(ValueError, match=r"\+inf"):
        oracle(bad, single_root=single_root)
    with pytest.raises(ValueError, match="empty"):
        oracle(np.zeros((1, 1)), single_root=single_root)
    with pytest.raises(ValueError, match="square"):
        oracle(np.zeros((3, 4)), single_root=single_root)
    orphan = good.copy()
    orphan[:, 2] = -np.inf  # token 2 has no allowed head
    with pytest.raises(NoTreeError):
        oracle(orphan, single_root=single_root)


PROJECTIVE = [eisner, projective_log_partition, projective_marginals, brute_force, brute_force_marginals]


@pytest.mark.parametrize("oracle", PROJECTIVE, ids=lambda f: f.__name__)
def test_no_projective_tree(oracle) -> None:
    """Only the crossing arcs 0->2, 2->4, 4->3, 3->1 make a tree: projective oracles raise NoTreeError."""
    heads = np.array([-1, 3, 0, 4, 2])
    scores = np.full((5, 5), -np.inf)
    scores[heads[1:], np.arange(1, 5)] = 0.0
    assert not is_projective(heads)
    assert tree_score(scores, chu_liu_edmonds(scores)) == 0.0
    assert log_partition(scores) == 0.0
    kwargs = {"projective": True} if oracle in (brute_force, brute_force_marginals) else {}
    with pytest.raises(NoTreeError, match="projective"):
        oracle(scores, **kwargs)


def test_single_root_forces_one_root_child() -> None:
    """All root arcs strong: multi-root takes them all, single-root exactly one."""
    n = 5
    scores = np.zeros((n + 1, n + 1))
    scores[0, 1:] = 10.0
    for oracle in (chu_liu_edmonds, eisner):
        assert np.all(oracle(scores)[1:] == 0)
        assert np.sum(oracle(scores, single_root=True)[1:] == 0) == 1
    assert arc_marginals(scores, single_root=True)[0].sum() == pytest.approx(1.0)
    assert projective_marginals(scores, single_root=True)[0].sum() == pytest.approx(1.0)


@pytest.mark.parametrize("gap", [30.0, 290.0])
def test_fast_marginals_fall_back_where_the_inverse_cancels(gap: float) -> None:
    """A cycle of strong arcs whose entering arcs (root arcs included) are exp(-gap) weaker, within float64's
    span: the multi-root Laplacian's inverse cancels, the check sees it and the elimination answers; the
    single-root one stays accurate."""
    import sys
    from unittest import mock

    module = sys.modules["lpparse.oracles.matrix_tree"]
    n = 6
    scores = np.full((n + 1, n + 1), -gap)
    scores[np.arange(1, n), np.arange(2, n + 1)] = 0.0
    scores[n, 1] = 0.0
    np.fill_diagonal(scores, -np.inf)
    scores[:, 0] = -np.inf
    for single_root, falls_back in ((False, True), (True, False)):
        with mock.patch.object(module, "arc_marginals", wraps=module.arc_marginals) as elimination:
            fast = fast_arc_marginals(scores, single_root)
        assert elimination.called == falls_back
        np.testing.assert_allclose(fast, arc_marginals(scores, single_root), rtol=0, atol=1e-12)


def test_single_root_never_moves_a_root_child_without_another_head() -> None:
    """Under the single-root rule, a root child with no head but the root stays there: with weights whose
    differences overflow (every root child's loss +inf) the algorithm once moved such a token under token 1 by
    an arc of weight -inf (a wrong tree; when that token was 1 itself, a loop without end). Both entries give
    the tree of finite arcs."""
    s = np.full((4, 4), -1.7e308)
    s[0, 1:] = 1.7e308
    s[1:, 1] = -np.inf  # token 1: the root is its only head
    np.fill_diagonal(s, -np.inf)
    s[:, 0] = -np.inf
    with np.errstate(over="ignore", invalid="ignore"):
        for heads in (chu_liu_edmonds(s, True), chu_liu_edmonds_valid(s, True)):
            assert is_tree(heads, True)
            assert np.isfinite(s[heads[1:], np.arange(1, 4)]).all()
            assert heads[1] == 0
