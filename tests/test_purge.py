"""Column purging (lpparse.colgen.purge): columns and rows out of HiGHS and back, and runs that purge after every
round still reach brute force's LP optimum with a certificate."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.typing import NDArray

from lpparse.colgen.purge import Purge, _redundant
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.families.sibling.family import SiblingParts
from lpparse.family_kit import PURGE_EVERY_ROUND
from lpparse.lp.highs_view import HighsModel
from lpparse.lp.program import LinearProgram
from lpparse.lp.solution import Solution
from lpparse.ppc.loop import solve_lp
from lpparse.scores import random_scores
from lpparse.trees import NoTreeError, check_tree_exists
from lpparse.triples import synthetic_sibling_scorer, synthetic_triple_scorer


def _parts(n: int, rng: np.random.Generator, preset: str) -> list:
    return [
        GrandparentParts(synthetic_triple_scorer(n, rng)),
        SiblingParts(synthetic_sibling_scorer(n, rng, scale=2.0), preset),
    ]


@settings(max_examples=40, deadline=None)
@given(
    n=st.integers(2, 7),
    seed=st.integers(0, 2**32 - 1),
    single_root=st.booleans(),
    preset=st.sampled_from(["martins", "all"]),  # triangles are cuts: PPC bounds, not equals, BF there
    prune=st.sampled_from([0.0, 0.3]),
)
def test_runs_that_purge_every_round_reach_the_full_lp_optimum(
    n: int, seed: int, single_root: bool, preset: str, prune: float
) -> None:
    rng = np.random.default_rng(seed)
    s = random_scores(n, rng)
    pruned = np.where(rng.random(s.shape) < prune, -np.inf, s)
    try:
        check_tree_exists(pruned, single_root)
        s = pruned
    except NoTreeError:
        pass
    parts = _parts(n, np.random.default_rng(seed + 1), preset)
    ppc = solve_lp(s, parts, "ppc", single_root, options=PURGE_EVERY_ROUND)
    bf = solve_lp(s, _parts(n, np.random.default_rng(seed + 1), preset), "bf", single_root)
    assert ppc.certified and bf.certified
    assert ppc.solution.objective == pytest.approx(bf.solution.objective, abs=1e-6)
    assert "purged" in ppc.info


def test_a_purging_run_purges_columns_and_rows_and_brings_some_back() -> None:
    """Seed 35, n = 7: purged columns and rows, some priced back in; the answer is brute force's, and a run
    without purging (the default below 20,000 rows) takes the same LP optimum."""
    rng = np.random.default_rng(35)
    n = 7
    s = random_scores(n, rng)
    gp, sib = synthetic_triple_scorer(n, rng), synthetic_sibling_scorer(n, rng, scale=2.0)
    ppc = solve_lp(s, [GrandparentParts(gp), SiblingParts(sib)], "ppc", options=PURGE_EVERY_ROUND)
    plain = solve_lp(s, [GrandparentParts(gp), SiblingParts(sib)], "ppc")
    off = solve_lp(
        s, [GrandparentParts(gp), SiblingParts(sib)], "ppc", options=replace(PURGE_EVERY_ROUND, purge=False)
    )
    bf = solve_lp(s, [GrandparentParts(gp), SiblingParts(sib)], "bf")
    assert ppc.info["purged"] > 0 and ppc.info["purged_rows"] > 0 and ppc.info["returned"] > 0
    assert plain.info["purged"] == 0 and "purged" not in off.info
    assert ppc.certified and ppc.certificate is not None and ppc.certificate.ok
    for other in (plain, off, bf):
        assert ppc.solution.objective == pytest.approx(other.solution.objective, abs=1e-6)


def _purgeable() -> tuple[LinearProgram, HighsModel, Solution, NDArray[np.bool_], NDArray[np.int64]]:
    """A solved full program (seed 3, n = 6) in HiGHS, the part columns a purge may take out (nonbasic at 0,
    negative reduced cost) and the basic rows they leave redundant."""
    rng = np.random.default_rng(3)
    n = 6
    result = solve_lp(random_scores(n, rng), _parts(n, rng, "all"), "bf")
    lp = result.program.lp
    model = HighsModel(lp)
    full = model.solve()
    basic_col, basic_row = model.basic()
    assert basic_col.sum() + basic_row.sum() == lp.num_rows
    out = ~basic_col & (np.abs(full.x) <= 1e-12) & (lp.col_lower == 0) & (full.col_dual < -1e-9)
    out[: lp.var_blocks["z"].index.shape[0]] = False  # parts only, as a purge would
    r, c, v = lp.coefficients_since(0)
    touched = np.zeros(lp.num_rows, bool)
    touched[r[out[c]]] = True
    rows = np.flatnonzero(touched & basic_row & _redundant(lp, r, c, v, ~out))
    assert out.any() and rows.size >= 2
    return lp, model, full, out, rows


def test_deactivated_columns_and_rows_leave_the_basis_valid_and_come_back() -> None:
    """Out of HiGHS: nonbasic columns at 0 and the basic rows redundant without them; the re-solve takes no
    iteration and keeps the objective, inactive columns get their reduced costs from the held coefficients
    (as a model with every column computes them), and :meth:`activate` brings everything back."""
    lp, model, full, out, rows = _purgeable()
    model.deactivate(np.flatnonzero(out), rows)
    active_col, active_row = model.active()
    assert not active_col[out].any() and not active_row[rows].any()
    smaller = model.solve()
    assert smaller.iterations == 0
    assert smaller.objective == pytest.approx(full.objective, abs=1e-9)
    y = smaller.row_dual
    np.testing.assert_allclose(smaller.col_dual[out], (lp.cost - lp.A.T @ y)[out], atol=1e-9)
    with pytest.raises(ValueError, match="only active"):
        model.deactivate(np.flatnonzero(out)[:1])
    model.activate(np.flatnonzero(out), rows)
    again = model.solve()
    assert again.iterations == 0 and again.objective == pytest.approx(full.objective, abs=1e-9)
    assert all(a.all() for a in model.active())


def test_rows_brought_back_can_leave_again_with_rows_that_never_left() -> None:
    """Activated rows go to the end of HiGHS's rows, out of program order; taking them out again together with
    rows before them in HiGHS (after them in the program) must hand HiGHS its indices in increasing order, as
    its deletions require (a purge of the full model's window rows, shared by many parts, did this)."""
    _, model, full, out, rows = _purgeable()
    cols = np.flatnonzero(out)
    model.deactivate(cols, rows[: rows.size // 2])
    model.activate(cols, rows[: rows.size // 2])  # now after rows[rows.size // 2:] in HiGHS
    model.deactivate(cols, rows)
    assert not model.active()[1][rows].any()
    smaller = model.solve()
    assert smaller.iterations == 0 and smaller.objective == pytest.approx(full.objective, abs=1e-9)
    model.activate(cols, rows)
    assert model.solve().objective == pytest.approx(full.objective, abs=1e-9)


def test_redundant_rows_follow_the_activity_bounds() -> None:
    """x - z <= 0 holds for every z >= 0 once x is out; x + z >= 1 does not; z <= 2 with z in [0, 1] always;
    an unbounded column never makes a row redundant on its unbounded side."""
    lp = LinearProgram()
    lp.add_variables("z", [[0]], upper=1.0)
    lp.add_variables("x", [[0]])
    lp.add_variables("w", [[0]])
    z, x, w = lp.var("z", [0]), lp.var("x", [0]), lp.var("w", [0])
    lp.constrain("A", [[0]], x - z, upper=0.0)
    lp.constrain("B", [[0]], x + z, lower=1.0)
    lp.constrain("C", [[0]], 1.0 * z, upper=2.0)
    lp.constrain("D", [[0]], w + z, upper=5.0)
    r, c, v = lp.coefficients_since(0)
    on = np.array([True, False, True])  # x out
    np.testing.assert_array_equal(_redundant(lp, r, c, v, on), [True, False, True, False])


@pytest.mark.parametrize("settings_", [dict(min_rows=-1), dict(every=0), dict(margin=-1.0)])
def test_purge_settings_are_checked(settings_: dict) -> None:
    with pytest.raises(ValueError, match="invalid purge"):
        Purge(**settings_)
