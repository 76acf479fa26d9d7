"""The O(n^4) projective grandparent DP against brute-force enumeration of projective trees."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpparse.oracles import brute_force, eisner, grandparent_eisner
from lpparse.trees import NoTreeError, is_projective, is_tree, tree_score


def gp_value(scores: np.ndarray, gp: np.ndarray, heads: np.ndarray) -> float:
    """Score of a tree under eq. 3 of Riedel et al. (2012), computed directly."""
    c = np.arange(1, len(heads))
    p = heads[1:]
    inner = p > 0
    return tree_score(scores, heads) + float(gp[heads[p[inner]], p[inner], c[inner]].sum())


@settings(max_examples=300, deadline=None)
@given(
    n=st.integers(1, 6),
    single_root=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
    prune=st.sampled_from([0.0, 0.2, 0.4]),
    gp_scale=st.sampled_from([0.0, 1.0, 5.0]),
)
def test_matches_projective_brute_force(n: int, single_root: bool, seed: int, prune: float, gp_scale: float) -> None:
    rng = np.random.default_rng(seed)
    scores = rng.normal(size=(n + 1, n + 1))
    scores[rng.random(scores.shape) < prune] = -np.inf
    gp = gp_scale * rng.standard_t(2.0, size=(n + 1, n + 1, n + 1))
    try:
        expected_heads, expected = brute_force(scores, single_root=single_root, projective=True, gp_scores=gp)
    except NoTreeError:
        with pytest.raises(NoTreeError):
            grandparent_eisner(scores, gp, single_root=single_root)
        return
    heads, value = grandparent_eisner(scores, gp, single_root=single_root)
    assert is_tree(heads, single_root=single_root) and is_projective(heads)
    assert value == pytest.approx(expected, rel=1e-9, abs=1e-9)
    assert gp_value(scores, gp, heads) == pytest.approx(value, rel=1e-9, abs=1e-9)
    assert gp_value(scores, gp, expected_heads) == pytest.approx(expected, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("single_root", [False, True])
def test_zero_grandparent_scores_reduce_to_eisner(single_root: bool) -> None:
    rng = np.random.default_rng(7)
    for n in (8, 15, 30):
        scores = rng.normal(size=(n + 1, n + 1))
        heads, value = grandparent_eisner(scores, np.zeros((n + 1,) * 3), single_root=single_root)
        first = eisner(scores, single_root=single_root)
        assert value == pytest.approx(tree_score(scores, first), rel=1e-12)


def test_errors() -> None:
    scores = np.zeros((4, 4))
    with pytest.raises(ValueError, match="shape"):
        grandparent_eisner(scores, np.zeros((3, 3, 3)))
    gp = np.zeros((4, 4, 4))
    gp[0, 1, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        grandparent_eisner(scores, gp)
    # only the crossing arcs 0->2, 2->... : token 1 must take head 3, and 0->2, 3->1 cross
    scores = np.full((4, 4), -np.inf)
    scores[0, 2], scores[2, 3], scores[3, 1] = 0.0, 0.0, 0.0
    with pytest.raises(NoTreeError, match="projective"):
        grandparent_eisner(scores, np.zeros((4, 4, 4)))
