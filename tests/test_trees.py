"""The shared conventions of lpparse.trees, held against direct definitions."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpparse.scores import noisy_gold_scores, random_scores
from lpparse.trees import (
    DENSE_REACH,
    NoTreeError,
    _reachability,
    _sparse_tree_problem,
    _tree_problem,
    check_tree,
    check_tree_exists,
    find_cycle,
    head_choices,
    heads_to_matrix,
    is_projective,
    is_tree,
    mask_trees,
    rooted,
    tree_problem,
    tree_score,
    validate_scores,
)


def all_head_arrays(n: int):
    for rest in itertools.product(range(n + 1), repeat=n):
        yield np.array([-1, *rest])


def reaches_root(heads: np.ndarray) -> bool:
    """Definition: following heads from every token reaches 0 within n steps, no self-loops."""
    n = len(heads) - 1
    for m in range(1, n + 1):
        v, steps = m, 0
        while v != 0 and steps <= n:
            if heads[v] == v:
                return False
            v, steps = heads[v], steps + 1
        if v != 0:
            return False
    return True


def crosses(heads: np.ndarray) -> bool:
    arcs = [(min(h, m), max(h, m)) for m, h in enumerate(heads) if m > 0]
    return any(a < c < b < d for (a, b), (c, d) in itertools.permutations(arcs, 2))


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_tree_checks_match_definitions_exhaustively(n: int) -> None:
    trees = 0
    for heads in all_head_arrays(n):
        tree = reaches_root(heads)
        trees += tree
        assert is_tree(heads) is tree
        assert (find_cycle(heads) is None) is tree  # a self-loop is a cycle of length one
        assert is_tree(heads, single_root=True) is (tree and int(np.sum(heads[1:] == 0)) == 1)
        if tree:
            assert is_projective(heads) is not crosses(heads)
    assert trees == (n + 1) ** (n - 1)  # Cayley: rooted labelled trees on n+1 nodes rooted at 0


def test_check_tree_errors() -> None:
    with pytest.raises(ValueError, match="cycle"):
        check_tree([-1, 2, 1])
    with pytest.raises(ValueError, match="outside"):
        check_tree([-1, 0, 5])
    with pytest.raises(ValueError, match="heads\\[0\\]"):
        check_tree([0, 0, 1])
    with pytest.raises(ValueError, match="exactly one child"):
        check_tree([-1, 0, 0], single_root=True)


def test_validate_scores_rejects_bad_input() -> None:
    s = random_scores(3, rng=0)
    validate_scores(s)
    with pytest.raises(ValueError, match="square"):
        validate_scores(np.zeros((3, 4)))
    with pytest.raises(ValueError, match="empty"):
        validate_scores(np.zeros((1, 1)))
    bad = s.copy()
    bad[1, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        validate_scores(bad)
    bad[1, 2] = np.inf
    with pytest.raises(ValueError, match=r"\+inf"):
        validate_scores(bad)
    bad[1, 2] = 0.0
    bad[2, 2] = np.nan  # the diagonal is never used
    validate_scores(bad)


def test_tree_existence() -> None:
    s = random_scores(3, rng=1)
    check_tree_exists(s, single_root=True)
    s[:, 2] = -np.inf
    with pytest.raises(NoTreeError, match=r"\[2\]"):
        check_tree_exists(s)
    s = random_scores(3, rng=1)
    s[0, 1:] = [0.0, 0.0, 0.0]
    s[1:, 1:] = -np.inf  # only root arcs: a multi-root tree exists, a single-root one does not
    check_tree_exists(s)
    with pytest.raises(NoTreeError, match="single"):
        check_tree_exists(s, single_root=True)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 4), st.integers(0, 2**32 - 1), st.sampled_from([0.0, 0.3, 0.6]), st.booleans())
def test_tree_existence_matches_enumeration(n: int, seed: int, prune: float, single_root: bool) -> None:
    """check_tree_exists (with its shortcut for an unpruned root row) against every head array."""
    s = random_scores(n, rng=seed)
    s[np.random.default_rng(seed).random(s.shape) < prune] = -np.inf
    exists = any(
        is_tree(h, single_root) and np.isfinite(s[h[1:], np.arange(1, n + 1)]).all() for h in all_head_arrays(n)
    )
    if exists:
        check_tree_exists(s, single_root)
    else:
        with pytest.raises(NoTreeError):
            check_tree_exists(s, single_root)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 5), st.integers(0, 2**32 - 1), st.floats(0.1, 0.9), st.booleans())
def test_mask_trees_and_both_tree_questions_match_enumeration(
    n: int, seed: int, density: float, single_root: bool
) -> None:
    """mask_trees lists exactly the trees over a random arc mask (every head array checked), and the dense and
    sparse answers of whether one exists agree with it."""
    rng = np.random.default_rng(seed)
    mask = rng.random((n + 1, n + 1)) < density
    mask[:, 0] = False
    np.fill_diagonal(mask, False)
    m = np.arange(1, n + 1)
    expected = sorted(
        h.tolist() for h in all_head_arrays(n) if is_tree(h, single_root) and mask[h[1:], m].all()
    )
    assert sorted(mask_trees(mask, single_root, 10**6).tolist()) == expected
    assert mask_trees(mask, single_root, 0) is None or not mask.any(axis=0)[1:].all()
    choices = sum(1 for h in all_head_arrays(n) if mask[h[1:], m].all())  # head arrays over the mask
    assert head_choices(mask, 10**6) == choices
    assert head_choices(mask, choices - 1) is None and head_choices(mask, choices) == choices
    for answer in (_tree_problem, _sparse_tree_problem):
        assert (answer(mask, single_root) is None) == bool(expected)


@pytest.mark.parametrize("n", [1, 2, 3, 4])
def test_rooted_matches_is_tree_on_every_head_array(n: int) -> None:
    """rooted (pointer jumping, one array or a batch) against is_tree (following each token's path) on every
    head array of n tokens, heads[0] -1 or 0, both root rules."""
    heads = np.array(list(all_head_arrays(n)))
    for single_root in (False, True):
        expected = np.array([is_tree(h, single_root) for h in heads])
        np.testing.assert_array_equal(rooted(heads, single_root), expected)
        zeroed = heads.copy()
        zeroed[:, 0] = 0
        assert [bool(rooted(h, single_root)) for h in zeroed] == expected.tolist()


def test_dense_and_sparse_tree_questions_agree_on_long_sentences() -> None:
    """Above DENSE_REACH tokens the sparse traversals answer; both agree on sparse random masks of 40-90
    tokens, where trees exist or not."""
    rng = np.random.default_rng(3)
    answers = set()
    for _ in range(60):
        n = int(rng.integers(40, 90))
        mask = rng.random((n + 1, n + 1)) < rng.uniform(0.01, 0.08)
        mask[:, 0] = False
        np.fill_diagonal(mask, False)
        for single_root in (False, True):
            sparse = _sparse_tree_problem(mask, single_root) is None
            assert (_tree_problem.__wrapped__(mask, single_root) is None) == sparse or n + 1 > DENSE_REACH
            reach = _reachability(mask)
            dense = bool(reach[0].all()) and (
                not single_root or bool((mask[0, 1:] & _reachability(mask[1:, 1:]).all(axis=1)).any())
            )
            assert dense == sparse
            answers.add(sparse)
    assert answers == {False, True}


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_noisy_gold_scores_and_tree_score(n: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    heads = np.array([-1, *(rng.integers(0, m) for m in range(1, n + 1))])  # heads to the left: a tree
    s = noisy_gold_scores(heads, noise=0.5, rng=seed)
    assert np.isneginf(s[:, 0]).all() and np.isneginf(np.diag(s)).all()
    assert tree_score(s, heads) == pytest.approx(float((heads_to_matrix(heads) * np.where(np.isfinite(s), s, 0)).sum()))
    assert np.array_equal(s, noisy_gold_scores(heads, noise=0.5, rng=seed))


def test_tree_problem_remembers_masks_by_content_not_identity() -> None:
    """The same array changed in place is asked about afresh (the answers are kept by the mask's bytes)."""
    mask = np.zeros((4, 4), bool)
    mask[0, 1], mask[1, 2] = True, True  # token 3 has no head
    assert "cannot be reached" in tree_problem(mask)
    mask[2, 3] = True
    assert tree_problem(mask) is None
    mask[2, 3] = False
    assert "cannot be reached" in tree_problem(mask)
    assert tree_problem(mask.astype(np.int8)) == tree_problem(mask)  # any dtype read as booleans


def test_masks_remembered_by_content_are_handed_out_as_copies() -> None:
    """A caller that changes the mask it got does not change what the next caller gets."""
    from lpparse.triples import sibling_mask

    arcs = np.ones((5, 5), bool)
    first = sibling_mask(arcs)
    expected = first.copy()
    first[:] = False
    np.testing.assert_array_equal(sibling_mask(arcs), expected)
    assert expected.any()


def test_candidate_parts_remembered_by_content_are_handed_out_as_copies() -> None:
    """The index arrays of remembered candidate triples and siblings are fresh copies each call, and a mask
    with other content gets its own answer."""
    from lpparse.triples import candidate_siblings, candidate_triples

    arcs = np.ones((5, 5), bool)
    np.fill_diagonal(arcs, False)
    arcs[:, 0] = False
    for candidates in (candidate_triples, candidate_siblings):
        first = candidates(arcs)
        expected = tuple(x.copy() for x in first)
        for x in first:
            x[:] = -1
        again = candidates(arcs)
        for x, y in zip(again, expected):
            np.testing.assert_array_equal(x, y)
        fewer = arcs.copy()
        fewer[1, 2] = False
        assert candidates(fewer)[0].size < expected[0].size
