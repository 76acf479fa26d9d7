"""Triple enumeration and the lazy grandparent scorers: counts, bounds, errors."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpparse.families.base import count_candidates
from lpparse.families.consecutive.family import ConsecutiveSiblingParts
from lpparse.families.consecutive.rows import DenseConsecutiveScorer
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.families.sibling.family import SiblingParts
from lpparse.families.third_order.family import GrandSiblingParts, TriSiblingParts
from lpparse.families.third_order.grandsibling import DenseGrandSiblingScorer
from lpparse.families.third_order.trisibling import DenseTriSiblingScorer
from lpparse.scores import random_scores
from lpparse.trees import allowed_arcs
from lpparse.triples import (
    GP_DISTRIBUTIONS,
    DenseSiblingScorer,
    DenseTripleScorer,
    TripleScorer,
    candidate_triples,
    synthetic_triple_scorer,
)


@settings(max_examples=100, deadline=None)
@given(n=st.integers(1, 7), seed=st.integers(0, 2**32 - 1), prune=st.floats(0.0, 0.6))
def test_candidate_triples_match_definition(n: int, seed: int, prune: float) -> None:
    rng = np.random.default_rng(seed)
    scores = random_scores(n, rng)
    scores[rng.random(scores.shape) < prune] = -np.inf
    arcs = allowed_arcs(scores)
    expected = [
        (g, p, c)
        for g, p, c in itertools.product(range(n + 1), repeat=3)
        if p > 0 and g != c and arcs[g, p] and arcs[p, c]
    ]
    assert list(zip(*(a.tolist() for a in candidate_triples(arcs)))) == expected


@pytest.mark.parametrize("distribution", GP_DISTRIBUTIONS)
def test_synthetic_bounds_are_valid_and_scoring_is_counted(distribution: str) -> None:
    n = 6
    scorer = synthetic_triple_scorer(n, rng=3, distribution=distribution)
    assert isinstance(scorer, TripleScorer)
    g, p, c = candidate_triples(allowed_arcs(random_scores(n, 0)))
    values = scorer.score(g, p, c)
    assert scorer.scored == g.size
    scorer.score(g[:5], p[:5], c[:5])
    assert scorer.scored == g.size + 5
    assert np.all(scorer.bound_gp()[g, p] >= values)
    assert np.all(scorer.bound_pc()[p, c] >= values)
    exact = DenseTripleScorer(scorer.scores)
    best_gp = np.full((n + 1, n + 1), -np.inf)
    np.maximum.at(best_gp, (g, p), values)
    assert np.allclose(exact.bound_gp()[g, p], best_gp[g, p])  # exact bounds are the true maxima
    if distribution != "flat":
        assert np.any(scorer.bound_gp()[g, p] > best_gp[g, p])  # the synthetic ones are loose


def test_bad_batches_and_arrays() -> None:
    scorer = synthetic_triple_scorer(4, rng=0)
    with pytest.raises(ValueError, match="not a grandparent triple"):
        scorer.score([1], [1], [2])
    with pytest.raises(ValueError, match="0..4"):
        scorer.score([0], [1], [5])
    with pytest.raises(ValueError, match="same length"):
        scorer.score([0, 1], [1], [2])
    assert scorer.scored == 0
    bad = np.zeros((4, 4, 4))
    bad[0, 1, 2] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        DenseTripleScorer(bad)
    with pytest.raises(ValueError, match="non-negative"):
        DenseTripleScorer(np.zeros((4, 4, 4)), slack_gp=-np.ones((4, 4)))
    with pytest.raises(ValueError, match="unknown distribution"):
        synthetic_triple_scorer(3, distribution="uniform")


def test_bf_and_ppc_refuse_nan_and_plus_inf_triple_scores_but_prune_at_minus_inf() -> None:
    """NaN or +inf triple scores would give HiGHS infinite costs: refused by BF and by PPC's pricing; -inf
    prunes the triple (no column, its PrunedGP row: tests/test_pruned_parts.py)."""
    from lpparse.ppc.loop import parse_price_cut, solve_bf

    scores = np.random.default_rng(0).normal(size=(5, 5, 5))
    scores[1, 2, 3] = -np.inf
    bf = solve_bf(random_scores(4, 0), DenseTripleScorer(scores))
    assert bf.certified and bf.program.pruned[1, 2, 3] and bf.program.triple_cols(1, 2, 3)[0] == -1
    for bad, solvers in ((np.nan, [solve_bf]), (np.inf, [solve_bf, parse_price_cut])):
        for solve in solvers:
            scorer = DenseTripleScorer(np.where(np.isinf(scores), 0.0, scores))
            scorer.scores[1, 2, 3] = bad  # past the scorer's own check (PPC never scores a NaN bound's triple)
            with pytest.raises(ValueError, match=r"NaN or \+inf"), np.errstate(invalid="ignore"):  # +inf bounds
                solve(random_scores(4, 0), scorer)


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 6), seed=st.integers(0, 2**32 - 1), prune=st.floats(0.0, 0.7), single_root=st.booleans()
)
def test_every_family_counts_its_candidates_without_enumerating_them(
    n: int, seed: int, prune: float, single_root: bool
) -> None:
    """``count_candidates`` (auto's choice of method, the decoders' ``*_total`` statistics) equals the number
    of candidates each of lpparse's five families enumerates, and reads them through the family's ``count``,
    not its candidates (a long sentence's candidate triples as index arrays would take 0.6 GB at n = 290)."""
    rng = np.random.default_rng(seed)
    scores = random_scores(n, rng)
    scores[rng.random(scores.shape) < prune] = -np.inf
    arcs = allowed_arcs(scores)
    cube, quad = np.zeros((n + 1,) * 3), np.zeros((n + 1,) * 4)
    families = [
        GrandparentParts(DenseTripleScorer(cube)),
        SiblingParts(DenseSiblingScorer(cube)),
        ConsecutiveSiblingParts(DenseConsecutiveScorer(cube)),
        TriSiblingParts(DenseTriSiblingScorer(quad)),
        GrandSiblingParts(DenseGrandSiblingScorer(quad)),
    ]
    for family in families:
        enumerated = family.candidates(arcs, single_root)[0].size
        assert family.count(arcs, single_root) == enumerated, family.name
        assert count_candidates(_CountOnly(family), arcs, single_root) == enumerated


class _CountOnly:
    """A family's ``count`` alone: counting must not enumerate the candidates."""

    def __init__(self, family: Any) -> None:
        self.count = family.count

    def candidates(self, arc_mask: Any, single_root: bool) -> Any:
        raise AssertionError("counting enumerated the candidates")
