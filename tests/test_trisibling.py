"""Tri-siblings ⟨h, x, a, b⟩ (lpparse.formulations.trisibling, lpparse.ppc.trisibling): the parts of a tree by
hand and against their definition, the family kit (valid rows, ILP = best tree, pricing, certificates) alone
with consecutive siblings and with every other family, BF / PPC / exact against brute force."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lpparse.colgen.testing import check_parts, random_arc_scores
from lpparse.formulations.consecutive import DenseConsecutiveScorer, csib_mask, tree_csibs
from lpparse.formulations.trisibling import (
    DenseTriSiblingScorer,
    candidate_tsibs,
    check_tsib_batch,
    count_tsibs,
    max_tsibs_per_tree,
    solve_trisibling,
    tree_tsibs,
)
from lpparse.oracles.brute_force import enumerate_trees
from lpparse.ppc import GrandparentParts, SiblingParts, check_proof, exact_search, solve_lp
from lpparse.ppc.consecutive import ConsecutiveSiblingParts
from lpparse.ppc.exact import ExactOptions
from lpparse.ppc.trisibling import TriSiblingParts
from lpparse.trees import allowed_mask_shape
from lpparse.triples import DenseSiblingScorer, DenseTripleScorer


def _pruned(rng: np.random.Generator, scores: np.ndarray, share: float = 0.05) -> np.ndarray:
    out = scores.copy()
    out[rng.random(scores.shape) < share] = -np.inf
    return out


def _families(rng: np.random.Generator, n: int, combo: str) -> list:
    """Consecutive siblings and tri-siblings (``trisib``), plus grandparents and arbitrary siblings (``full``)."""
    size = n + 1
    out: list = [
        ConsecutiveSiblingParts(DenseConsecutiveScorer(_pruned(rng, rng.normal(size=(size,) * 3)))),
        TriSiblingParts(DenseTriSiblingScorer(_pruned(rng, rng.normal(size=(size,) * 4)), slack=0.3)),
    ]
    if combo == "full":
        out += [
            GrandparentParts(DenseTripleScorer(rng.normal(size=(size,) * 3))),
            SiblingParts(DenseSiblingScorer(rng.normal(scale=0.5, size=(size,) * 3))),
        ]
    return out


def _brute_force(s: np.ndarray, parts: list, single_root: bool) -> float:
    m = np.arange(1, s.shape[0])
    best = -np.inf
    for heads in enumerate_trees(s.shape[0] - 1, single_root):
        value = float(s[heads[1:], m].sum())
        for part in parts:
            idx = part.tree_parts(heads)
            if idx[0].size:
                value += float(part.scorer.scores[idx].sum())
        best = max(best, value)
    return best


def test_tree_parts_by_hand() -> None:
    # 0 -> 3; 3 has left children 2, 1 (outward: 2 then 1) and right children 4, 5
    heads = np.array([-1, 3, 3, 0, 3, 3])
    got = set(zip(*(x.tolist() for x in tree_tsibs(heads))))
    assert got == {(0, 0, 3, 0), (3, 3, 2, 1), (3, 2, 1, 3), (3, 3, 4, 5), (3, 4, 5, 3)}
    assert len(got) == 5 == max_tsibs_per_tree(5)
    # each part chains two of the tree's windows
    windows = set(zip(*(x.tolist() for x in tree_csibs(heads))))
    assert all((h, x, a) in windows and (h, a, b) in windows for h, x, a, b in got)


@pytest.mark.parametrize("single_root", [False, True])
def test_candidates_count_and_tree_parts_match_their_definitions(single_root: bool) -> None:
    rng = np.random.default_rng(5)
    for n in (1, 2, 3, 4, 5):
        mask = allowed_mask_shape(n + 1) & (rng.random((n + 1, n + 1)) > 0.2)
        windows = csib_mask(mask, single_root)
        want = {
            (h, x, a, b)
            for h, x, a, b in itertools.product(range(n + 1), repeat=4)
            if a != h and windows[h, x, a] and windows[h, a, b]
        }
        got = list(zip(*(v.tolist() for v in candidate_tsibs(mask, single_root))))
        assert got == sorted(want) and count_tsibs(mask, single_root) == len(want)
        for heads in enumerate_trees(n, single_root):
            parts = tree_tsibs(heads)
            assert parts[0].size == n  # one part per token, its middle child
            np.testing.assert_array_equal(np.sort(parts[2]), np.arange(1, n + 1))
            if mask[heads[1:], np.arange(1, n + 1)].all():
                assert set(zip(*(v.tolist() for v in parts))) <= want
            check_tsib_batch(n, *parts)


def test_bad_batches_scores_and_orders_are_refused() -> None:
    with pytest.raises(ValueError, match="needs a token a"):
        check_tsib_batch(3, [1], [1], [1], [2])  # a = h
    with pytest.raises(ValueError, match="needs a token a"):
        check_tsib_batch(3, [0], [2], [1], [3])  # x farther than a
    scores = np.zeros((4,) * 4)
    scores[1, 1, 2, 3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        DenseTriSiblingScorer(scores)
    with pytest.raises(ValueError, match=r"\(n\+1,\)\*4"):
        DenseTriSiblingScorer(np.zeros((4, 4, 4)))
    s = random_arc_scores(3, np.random.default_rng(0), prune=0.0)
    with pytest.raises(ValueError, match="list ConsecutiveSiblingParts before"):
        solve_lp(s, [TriSiblingParts(DenseTriSiblingScorer(np.zeros((4,) * 4)))], "bf")


def test_dense_scorer_bounds_bound_every_part() -> None:
    rng = np.random.default_rng(2)
    scorer = DenseTriSiblingScorer(rng.normal(size=(6,) * 4), slack=0.25)
    h, x, a, b = candidate_tsibs(allowed_mask_shape(6))
    values = scorer.score(h, x, a, b)
    assert scorer.scored == h.size
    first, second = scorer.bound_first(), scorer.bound_second()
    assert (values <= first[h, x, a] - 0.25 + 1e-12).all() and (values <= second[h, a, b] - 0.25 + 1e-12).all()
    # exact up to the slack: some part attains each bound
    assert np.isclose(first[h, x, a] - 0.25, values).any() and np.isclose(second[h, a, b] - 0.25, values).any()


@pytest.mark.parametrize("combo", ["trisib", "full"])
def test_the_kit_passes_tri_siblings(combo: str) -> None:
    report = check_parts(lambda s, single_root, rng: _families(rng, s.shape[0] - 1, combo), per_size=3, seed=0)
    assert report.sentences + len(report.notes) == 12 and report.trees > 200 and report.entered > 0
    assert report.fractional > 0


def test_ilp_is_the_best_tree_and_zero_scores_leave_the_window_lp_unchanged() -> None:
    rng = np.random.default_rng(8)
    for trial in range(12):
        n, single_root = 2 + trial % 4, bool(trial % 2)
        s = random_arc_scores(n, rng, prune=0.0, single_root=single_root)
        cs, ts = rng.normal(size=(n + 1,) * 3), rng.normal(size=(n + 1,) * 4)
        parts = [
            ConsecutiveSiblingParts(DenseConsecutiveScorer(cs)),
            TriSiblingParts(DenseTriSiblingScorer(ts)),
        ]
        _, mip = solve_trisibling(s, cs, ts, single_root, mip=True)
        assert mip.objective == pytest.approx(_brute_force(s, parts, single_root), abs=1e-6)
        _, zero = solve_trisibling(s, cs, np.zeros_like(ts), single_root)
        windows_only = solve_lp(s, parts[:1], "bf", single_root)
        assert zero.objective == pytest.approx(windows_only.objective, abs=1e-6)


@settings(deadline=None, max_examples=12, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(2, 6), st.integers(0, 2**32 - 1), st.booleans(), st.sampled_from(["trisib", "full"]))
def test_bf_ppc_exact_against_brute_force(n: int, seed: int, single_root: bool, combo: str) -> None:
    rng = np.random.default_rng(seed)
    s = random_arc_scores(n, rng, single_root=single_root)
    state = rng.bit_generator.state

    def parts() -> list:
        rng.bit_generator.state = state
        return _families(rng, n, combo)

    best = _brute_force(s, parts(), single_root)
    if np.isneginf(best):
        return
    bf = solve_lp(s, parts(), "bf", single_root)
    ppc = solve_lp(s, parts(), "ppc", single_root)
    assert bf.certified and ppc.certified
    assert bf.objective >= best - 1e-6
    assert ppc.objective == pytest.approx(bf.objective, abs=1e-6)
    assert ppc.counts["trisibling"].scored <= bf.counts["trisibling"].scored == bf.counts["trisibling"].candidates
    exact = exact_search(s, parts(), single_root, options=ExactOptions(verify=True))
    assert exact.certified and exact.objective == pytest.approx(best, abs=1e-6)
    assert check_proof(s, parts(), exact) is None
