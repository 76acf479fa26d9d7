"""Bases by label (:mod:`lpparse.lp.basis`): read from HiGHS in program order, placed on another program of
the same labels, made consistent; a branch-and-bound search that starts its nodes from them finds what a cold
one finds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpparse.exact.search import ExactOptions
from lpparse.exact.second_order import parse_exact
from lpparse.formulations.arborescence import single_commodity_flow
from lpparse.lp.basis import BASIC, LOWER, UPPER, ZERO, LabelledBasis, consistent
from lpparse.lp.highs_view import HighsModel
from lpparse.oracles.brute_force import brute_force
from lpparse.triples import DenseTripleScorer


@pytest.mark.parametrize("seed", range(4))
def test_a_solved_basis_placed_on_the_same_program_needs_no_iteration(seed: int) -> None:
    s = np.random.default_rng(seed).normal(size=(12, 12))
    lp = single_commodity_flow(s)
    solved = HighsModel(lp)
    first = solved.solve()
    cols, rows = solved.program_basis()
    assert (cols == BASIC).sum() + (rows == BASIC).sum() == lp.num_rows
    again = HighsModel(single_commodity_flow(s))  # another program, the same labels
    assert again.start_from(LabelledBasis.of(lp, cols, rows))
    sol = again.solve()
    assert sol.certified and sol.iterations == 0
    assert sol.objective == pytest.approx(first.objective, abs=1e-9)


@pytest.mark.parametrize("seed", range(4))
def test_a_parent_basis_on_a_pruned_program_reaches_the_cold_optimum(seed: int) -> None:
    """Arcs removed (their columns and rows gone) and arcs no longer named: the placed basis is repaired to a
    consistent one, and the warm solve ends where a cold one does."""
    rng = np.random.default_rng(seed)
    s = rng.normal(size=(12, 12))
    parent = HighsModel(single_commodity_flow(s))
    parent.solve()
    basis = LabelledBasis.of(parent.lp, *parent.program_basis())
    child_scores = s.copy()
    heads = parent.lp.var_blocks["z"].index
    chosen = heads[rng.random(len(heads)) < 0.3]
    child_scores[chosen[:, 0], chosen[:, 1]] = -np.inf
    child_scores[0, 1:] = s[0, 1:]  # keep a tree
    warm, cold = (
        HighsModel(single_commodity_flow(child_scores)),
        HighsModel(single_commodity_flow(child_scores)),
    )
    assert warm.start_from(basis)
    w, c = warm.solve(), cold.solve()
    assert w.certified and c.certified
    assert w.objective == pytest.approx(c.objective, abs=1e-7)


@settings(deadline=None, max_examples=200)
@given(st.data())
def test_consistent_bases_have_one_basic_entry_per_row_on_finite_bounds(data: st.DataObject) -> None:
    n_cols, n_rows = data.draw(st.integers(0, 12)), data.draw(st.integers(0, 12))
    codes = st.sampled_from([LOWER, BASIC, UPPER, ZERO])
    bound = st.sampled_from([-np.inf, -1.0, 0.0, 1.0, np.inf])
    cols = np.array(data.draw(st.lists(codes, min_size=n_cols, max_size=n_cols)), np.int8)
    rows = np.array(data.draw(st.lists(codes, min_size=n_rows, max_size=n_rows)), np.int8)

    def sides(k: int) -> tuple[np.ndarray, np.ndarray]:
        a = np.array(data.draw(st.lists(bound, min_size=k, max_size=k)))
        b = np.array(data.draw(st.lists(bound, min_size=k, max_size=k)))
        return np.minimum(a, b), np.maximum(a, b)

    col_bounds, row_bounds = sides(n_cols), sides(n_rows)
    given_cols, given_rows = cols.copy(), rows.copy()
    c, r = consistent(cols, rows, col_bounds, row_bounds)
    assert (c == BASIC).sum() + (r == BASIC).sum() == n_rows
    for status, (lower, upper) in ((c, col_bounds), (r, row_bounds)):
        assert not np.any((status == LOWER) & ~np.isfinite(lower))
        assert not np.any((status == UPPER) & ~np.isfinite(upper))
        assert not np.any((status == ZERO) & (np.isfinite(lower) | np.isfinite(upper)))
    assert np.array_equal(cols, given_cols) and np.array_equal(rows, given_rows)  # inputs untouched


def test_warm_and_cold_node_starts_find_the_same_optimum() -> None:
    for seed in range(40):
        rng = np.random.default_rng(seed)
        s, t = rng.normal(size=(8, 8)), rng.normal(size=(8, 8, 8))
        warm = parse_exact(s, DenseTripleScorer(t), "all", False, options=ExactOptions(warm_basis=True))
        if warm.stats.nodes > 3:
            break
    else:
        raise AssertionError("no instance that branches")
    cold = parse_exact(s, DenseTripleScorer(t), "all", False, options=ExactOptions(warm_basis=False))
    _, value = brute_force(s, False, gp_scores=t)
    assert warm.certified and cold.certified
    assert warm.objective == pytest.approx(value, abs=1e-9) and cold.objective == pytest.approx(
        value, abs=1e-9
    )
