"""LP layer: blocks and lookups, dual sign convention, certificates, statuses, growth of live models."""

from __future__ import annotations

import copy
import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpparse.formulations.arborescence import (
    add_subtour_cuts,
    arc_matrix,
    cycle_cut_program,
    heads_from_solution,
    multi_commodity_flow,
    separate_subtours,
    single_commodity_flow,
)
from lpparse.lp import (
    INF,
    FractionalSolutionError,
    LinearProgram,
    Solution,
    Status,
    UncertifiedSolutionError,
    certify_lp,
    dual_bound,
)
from lpparse.lp.highs_view import Entries, HighsModel
from lpparse.lp.pyomo_view import PyomoModel, to_pyomo
from lpparse.trees import allowed_arcs


def hand_lp() -> LinearProgram:
    """max 3x - y + z + 5w  s.t.  r0: x + y + z <= 4,  r1: y >= 1,  x, y, z >= 0, z <= 10, w in [0, 1].

    Optimum x=3, y=1, z=0, w=1, value 13. Shadow prices: r0 (<=, binding) +3; r1 (>=, binding) -4
    (raising y's floor moves one unit from x to y: -3 - 1). Reduced costs c - Aᵀy: x 0, y 0, z 1-3 = -2
    (at its lower bound), w +5 (at its upper bound).
    """
    lp = LinearProgram("hand")
    lp.add_variables("v", [0, 1, 2], cost=[3.0, -1.0, 1.0], upper=[INF, INF, 10.0])
    lp.add_variables("w", [0], cost=5.0, upper=1.0)
    lp.add_constraints("r0", [0], [0, 0, 0], [0, 1, 2], [1.0, 1.0, 1.0], upper=4.0)
    lp.add_constraints("r1", [0], [0], [1], [1.0], lower=1.0)
    return lp


EXPECTED_ROW_DUAL = np.array([3.0, -4.0])
EXPECTED_COL_DUAL = np.array([0.0, 0.0, -2.0, 5.0])


def test_dual_sign_convention_highs() -> None:
    sol = HighsModel(hand_lp()).solve()
    assert sol.certified
    assert sol.objective == pytest.approx(13.0)
    np.testing.assert_allclose(sol.x, [3.0, 1.0, 0.0, 1.0], atol=1e-9)
    np.testing.assert_allclose(sol.row_dual, EXPECTED_ROW_DUAL, atol=1e-9)
    np.testing.assert_allclose(sol.col_dual, EXPECTED_COL_DUAL, atol=1e-9)


def test_solve_without_certificate_is_never_certified() -> None:
    sol = HighsModel(hand_lp()).solve(certify=False)
    assert sol.status is Status.OPTIMAL and sol.certificate is None and not sol.certified
    np.testing.assert_allclose(sol.x, [3.0, 1.0, 0.0, 1.0], atol=1e-9)
    with pytest.raises(UncertifiedSolutionError):
        sol.require_certified()


@pytest.mark.parametrize("solver", ["appsi_highs", "highs"])
def test_dual_sign_convention_pyomo(solver: str) -> None:
    sol = PyomoModel(hand_lp(), solver=solver).solve()
    assert sol.certified
    np.testing.assert_allclose(sol.row_dual, EXPECTED_ROW_DUAL, atol=1e-9)
    np.testing.assert_allclose(sol.col_dual, EXPECTED_COL_DUAL, atol=1e-9)


def test_program_lookups_and_labels() -> None:
    s = np.random.default_rng(1).normal(size=(5, 5))
    s[2, 3] = -np.inf
    lp = single_commodity_flow(s)
    arcs = np.argwhere(allowed_arcs(s))
    assert len(lp.var_blocks["z"]) == len(arcs) == len(lp.var_blocks["phi"])
    for h, m in arcs:
        j = lp.col("z", (h, m))
        assert lp.col_label(j) == ("z", (h, m))
        assert lp.cost[j] == s[h, m]
    with pytest.raises(KeyError):
        lp.col("z", (2, 3))  # pruned: no variable
    i = lp.row("Consume", 3)
    assert lp.row_label(i) == ("Consume", (3,))
    assert lp.row_label(lp.row("NoFlow", (0, 1))) == ("NoFlow", (0, 1))
    assert lp.A.shape == (lp.num_rows, lp.num_cols)
    with pytest.raises(ValueError, match="duplicate"):
        lp.add_variables("z", [[0, 1]], integer=True)


def test_certificate_rejects_tampered_primal_and_dual() -> None:
    s = np.random.default_rng(3).normal(size=(6, 6))
    lp = multi_commodity_flow(s)
    sol = HighsModel(lp).solve()
    assert sol.certified and sol.integral
    x, y = sol.x.copy(), sol.row_dual.copy()
    assert certify_lp(lp, x, y).ok

    bad_x = x.copy()
    bad_x[lp.cols("z")[0]] += 0.3  # breaks OneHead
    assert not certify_lp(lp, bad_x, y).ok
    tampered = Solution.checked(lp, Status.OPTIMAL, False, x=bad_x, row_dual=y, col_dual=sol.col_dual)
    assert not tampered.certified
    with pytest.raises(UncertifiedSolutionError):
        heads_from_solution(tampered)

    bad_y = y.copy()
    bad_y[lp.row("OneHead", 2)] += 0.5  # feasible sign, but the gap opens
    cert = certify_lp(lp, x, bad_y)
    assert not cert.ok and cert.gap > 1e-3

    bad_y = y.copy()
    noflow = lp.rows("NoFlow")
    bad_y[noflow[0]] = -1.0  # a <= row with a negative dual: dual infeasible
    assert certify_lp(lp, x, bad_y).dual_infeasibility > 1e-3


def test_an_uncertified_mip_optimum_is_solved_again_without_presolve() -> None:
    """A MIP that HiGHS reports optimal but lpparse's check does not certify is solved once more with presolve
    off (HiGHS 1.15's presolve gave NaN values on tiny programs), and the presolve option is restored after."""
    lp = single_commodity_flow(fractional_instance())
    model = HighsModel(lp, mip=True)
    before = model.highs.getOptionValue("presolve")[1]
    run, seen = model._run, []

    def first_uncertified(certify: bool):
        seen.append(model.highs.getOptionValue("presolve")[1])
        sol = run(certify)
        return dataclasses.replace(sol, certificate=None) if len(seen) == 1 else sol

    model._run = first_uncertified  # type: ignore[method-assign]
    sol = model.solve()
    assert seen == [before, "off"] and sol.certified
    assert model.highs.getOptionValue("presolve")[1] == before


def test_statuses_are_never_certified() -> None:
    lp = LinearProgram("infeasible")
    lp.add_variables("x", [0], cost=1.0, upper=1.0)
    lp.add_constraints("r", [0], [0], [0], [1.0], lower=2.0)
    for sol in (HighsModel(lp).solve(), PyomoModel(lp).solve(), HighsModel(lp, mip=True).solve()):
        assert sol.status in (Status.INFEASIBLE, Status.INFEASIBLE_OR_UNBOUNDED)
        assert not sol.certified
        with pytest.raises(UncertifiedSolutionError):
            sol.require_certified()

    lp = LinearProgram("unbounded")
    lp.add_variables("x", [0], cost=1.0)
    lp.add_constraints("r", [0], [0], [0], [1.0], lower=0.0)
    for sol in (HighsModel(lp).solve(), PyomoModel(lp).solve()):
        assert sol.status in (Status.UNBOUNDED, Status.INFEASIBLE_OR_UNBOUNDED)
        assert not sol.certified

    big = multi_commodity_flow(np.random.default_rng(0).normal(size=(16, 16)))
    sol = HighsModel(big, time_limit=1e-9).solve()
    assert sol.status is Status.TIME_LIMIT and not sol.certified


def fractional_instance() -> np.ndarray:
    """First seeded N(0,1) instance whose single-commodity LP optimum is fractional."""
    for seed in range(100):
        s = np.random.default_rng(seed).normal(size=(6, 6))
        if not HighsModel(single_commodity_flow(s)).solve().integral:
            return s
    raise AssertionError("no fractional instance in 100 seeds")


def test_fractional_solution_has_no_heads() -> None:
    sol = HighsModel(single_commodity_flow(fractional_instance())).solve()
    assert sol.certified and not sol.integral
    with pytest.raises(FractionalSolutionError):
        heads_from_solution(sol)


def test_warm_resolve_after_rows_matches_cold_and_saves_iterations() -> None:
    s = np.random.default_rng(7).normal(size=(21, 21))
    lp = cycle_cut_program(s)
    warm = HighsModel(lp)
    sol = warm.solve()
    warm_iters, rounds = 0, 0
    while cuts := separate_subtours(arc_matrix(lp, sol.x)):
        add_subtour_cuts(lp, cuts)
        sol = warm.solve()
        warm_iters += sol.iterations
        rounds += 1
    assert rounds >= 1
    cold = HighsModel(lp).solve()
    assert sol.certified and cold.certified
    assert sol.objective == pytest.approx(cold.objective, abs=1e-7)
    assert sol.iterations < cold.iterations  # the last warm re-solve beats a cold solve of the same LP
    assert PyomoModel(lp).solve().objective == pytest.approx(cold.objective, abs=1e-7)


def test_add_columns_in_existing_rows_matches_full_program() -> None:
    """Column generation in miniature: start without some arcs, add their z and phi columns (coefficients in
    OneHead/Source/Consume) and their NoFlow rows to the live model, and reach the full program's optimum."""
    rng = np.random.default_rng(11)
    s = rng.normal(size=(9, 9))
    n = s.shape[0] - 1
    full = single_commodity_flow(s)
    late = allowed_arcs(s) & (rng.random(s.shape) < 0.4)
    late[0, 1] = False  # keep a tree among the early arcs
    late[np.arange(1, n), np.arange(2, n + 1)] = False
    early_scores = np.where(late, -np.inf, s)
    lp = single_commodity_flow(early_scores)
    model = HighsModel(lp)
    first = model.solve()
    pyomo_model = PyomoModel(lp)

    arcs = np.argwhere(late)
    k = len(arcs)
    zc = model.add_columns(
        "z",
        arcs,
        s[arcs[:, 0], arcs[:, 1]],
        Entries(np.arange(k), lp.rows("OneHead")[arcs[:, 1] - 1], np.ones(k)),
        integer=True,
    )
    word = arcs[:, 0] > 0
    consume = lp.rows("Consume")
    phi_rows = np.concatenate([consume[arcs[:, 1] - 1], consume[arcs[word, 0] - 1]])
    phi_vals = np.concatenate([np.ones(k), -np.ones(int(word.sum()))])
    phi_local = np.concatenate([np.arange(k), np.flatnonzero(word)])
    root = np.flatnonzero(arcs[:, 0] == 0)
    phi_rows = np.concatenate([phi_rows, np.full(len(root), lp.row("Source", 0))])
    phi_vals = np.concatenate([phi_vals, np.ones(len(root))])
    phi_local = np.concatenate([phi_local, root])
    pc = model.add_columns("phi", arcs, 0.0, Entries(phi_local, phi_rows, phi_vals))
    model.add_rows(
        "NoFlow",
        arcs,
        np.concatenate([np.arange(k)] * 2),
        np.concatenate([pc, zc]),
        np.concatenate([np.ones(k), np.full(k, -float(n))]),
        upper=0.0,
    )
    grown = model.solve()
    reference = HighsModel(full).solve()
    assert grown.certified and reference.certified
    assert grown.objective >= first.objective - 1e-9
    assert grown.objective == pytest.approx(reference.objective, abs=1e-7)
    assert pyomo_model.solve().objective == pytest.approx(reference.objective, abs=1e-7)


def test_pyomo_model_carries_paper_names(tmp_path) -> None:
    import pyomo.environ as pyo

    s = np.random.default_rng(5).normal(size=(4, 4))
    lp = single_commodity_flow(s, single_root=True)
    m = to_pyomo(lp)
    for name in ("z", "phi", "OneHead", "Source", "Consume", "NoFlow", "OneRoot", "obj", "dual"):
        assert hasattr(m, name), name
    assert m.z[0, 1].lb == 0 and m.OneHead[2].upper == 1
    m.extra = pyo.Constraint(expr=m.z[0, 1] == 1)  # a user's own constraint
    pyo.SolverFactory("appsi_highs").solve(m)
    assert pyo.value(m.z[0, 1]) == pytest.approx(1.0)
    assert m.dual[m.OneHead[1]] is not None
    PyomoModel(lp).write(tmp_path / "flow.lp")
    text = (tmp_path / "flow.lp").read_text()
    assert "OneHead(1)" in text and "z(0_1)" in text
    HighsModel(lp).write(tmp_path / "flow_highs.lp")
    assert "NoFlow(0_1)" in (tmp_path / "flow_highs.lp").read_text()


def test_sync_changes_old_coefficients_and_new_integer_columns() -> None:
    """Coefficients appended to old rows/old columns reach the live model (summed), and new columns of an
    integer block stay integer in a live MIP."""
    lp = hand_lp()
    model = HighsModel(lp)
    model.solve()
    lp.add_coefficients([0], [0], [1.0])  # r0: 2x + y + z <= 4
    warm = model.solve()
    assert warm.objective == pytest.approx(HighsModel(lp).solve().objective)
    assert warm.x[0] == pytest.approx(1.5)

    ilp = LinearProgram("ilp")
    ilp.add_variables("x", [0], cost=1.0, upper=10.0, integer=True)
    ilp.add_constraints("r", [0], [0], [0], [2.0], upper=3.0)
    mip = HighsModel(ilp, mip=True)
    assert mip.solve().objective == pytest.approx(1.0)
    mip.add_columns(
        "x", [1], cost=1.0, entries=Entries([0], [ilp.row("r", 0)], [2.0]), upper=10.0, integer=True
    )
    sol = mip.solve()
    assert sol.certified and sol.integral and sol.objective == pytest.approx(1.0)


@pytest.mark.parametrize("seed", range(6))
def test_inactive_columns_and_rows_stay_out_until_activated(seed: int) -> None:
    """A masked model solves the program without the inactive columns (held at 0) and rows; its solution comes
    back in program order with d = c - Aᵀy on the inactive columns; appended columns with coefficients in an
    inactive row, and activation, reach the full program's optimum."""
    rng = np.random.default_rng(seed)
    s = rng.normal(size=(8, 8))
    lp = single_commodity_flow(s)
    arcs = lp.var_blocks["z"].index
    out = rng.random(len(arcs)) < 0.5
    out[arcs[:, 0] == 0] = False  # the root arcs keep a tree
    cols = np.concatenate([lp.cols("z")[out], lp.cols("phi")[out]])
    rows = lp.rows("NoFlow")[out]
    model = HighsModel(lp, inactive_cols=cols, inactive_rows=rows)
    assert model.masked and model.highs.getNumCol() == lp.num_cols - cols.size
    with pytest.raises(ValueError, match="order"):
        model.set_basis(model.basis())
    sol = model.solve(certify=False)
    pruned = s.copy()
    pruned[arcs[out, 0], arcs[out, 1]] = -np.inf  # the same program without those arcs
    reference = HighsModel(single_commodity_flow(pruned)).solve()
    assert sol.objective == pytest.approx(reference.objective, abs=1e-7)
    assert np.all(sol.x[cols] == 0.0)
    assert np.all(sol.row_dual[rows] == 0.0)
    assert sol.col_dual == pytest.approx(lp.cost - lp.A.T @ sol.row_dual, abs=1e-9)
    # a new column with a coefficient in an inactive row: it enters HiGHS without it until the row does
    extra = model.add_columns("w", [0], 0.5, Entries([0], [rows[0]], [1.0]), upper=1.0)
    assert model.highs.getNumCol() == lp.num_cols - cols.size
    model.activate(cols, rows)
    assert not model.masked
    with pytest.raises(ValueError, match="inactive"):
        model.activate(cols[:1])
    with pytest.raises(ValueError, match="order"):  # activated columns come after the others
        model.set_basis(model.basis())
    grown = model.solve()
    lp_full = single_commodity_flow(s)
    lp_full.add_variables("w", [0], cost=0.5, upper=1.0)
    lp_full.add_coefficients([lp_full.rows("NoFlow")[out][0]], lp_full.cols("w"), [1.0])
    full = HighsModel(lp_full).solve()
    assert grown.certified and full.certified
    assert grown.objective == pytest.approx(full.objective, abs=1e-7)
    assert extra.size == 1


@pytest.mark.parametrize("minimizing", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_a_copy_holds_the_model_and_its_basis_and_goes_its_own_way(seed: int, minimizing: bool) -> None:
    """HighsModel.copy onto a copy of the program: the same HiGHS columns and rows (inactive ones held out,
    activated ones after the others), options (a cutoff's sense) and basis, so its solve takes no simplex
    iteration; bounds changed on the copy leave the original as it was, and the copy reaches its own
    optimum, that of a model built anew from its program."""
    rng = np.random.default_rng(seed)
    s = rng.normal(size=(9, 9))
    lp = single_commodity_flow(s)
    arcs = lp.var_blocks["z"].index
    out = rng.random(len(arcs)) < 0.4
    out[arcs[:, 0] == 0] = False
    held = np.concatenate([lp.cols("z")[out], lp.cols("phi")[out]])
    model = HighsModel(lp, options={"presolve": "off"}, inactive_cols=held, inactive_rows=lp.rows("NoFlow")[out])
    if minimizing:
        model.set_cutoff(-1e9)
    unsolved = model.copy(copy.deepcopy(lp))  # no basis yet: both solve from scratch, alike
    cold, before = unsolved.solve(certify=False), model.solve(certify=False)
    assert cold.iterations == before.iterations and cold.objective == pytest.approx(before.objective, abs=1e-9)
    model.activate(held[: held.size // 2])
    first = model.solve()
    other = copy.deepcopy(lp)
    other.add_variables("w", [0], cost=0.5, upper=1.0)
    with pytest.raises(ValueError, match="copy of its program"):
        model.copy(other)
    program = copy.deepcopy(lp)
    twin = model.copy(program)
    assert twin.lp is program and twin.highs is not model.highs and twin.masked
    again = twin.solve()
    assert again.status is Status.OPTIMAL and again.iterations == 0
    assert again.objective == pytest.approx(first.objective, abs=1e-9)
    np.testing.assert_allclose(again.x, first.x, atol=1e-9)
    z = np.flatnonzero(first.x[program.cols("z")] > 0.5)[:2]
    twin.set_col_upper(program.cols("z")[z], np.zeros(z.size))
    changed = twin.solve()
    fresh = copy.deepcopy(program)
    fresh.col_upper[held[held.size // 2 :]] = 0.0  # what the copy still holds out, at 0
    assert changed.status is Status.OPTIMAL
    assert changed.objective == pytest.approx(HighsModel(fresh).solve().objective, abs=1e-7)
    assert np.array_equal(lp.col_upper[program.cols("z")], single_commodity_flow(s).col_upper[program.cols("z")])
    still = model.solve()
    assert still.iterations == 0 and still.objective == pytest.approx(first.objective, abs=1e-9)


def test_highs_out_of_memory_is_a_memory_error() -> None:
    """HiGHS reports "memory limit reached" (seen under ulimit -v on a 110-token brute-force LP) as a model status,
    not an exception: lpparse raises MemoryError, which commands report per sentence, not NOT_SOLVED."""
    import highspy

    from lpparse.formulations.arborescence import single_commodity_flow
    from lpparse.lp.highs_view import HighsModel
    from lpparse.scores import random_scores

    model = HighsModel(single_commodity_flow(random_scores(4, 0)))

    class OutOfMemory:
        def __init__(self, inner: object) -> None:
            self.inner = inner

        def __getattr__(self, name: str) -> object:
            return getattr(self.inner, name)

        def getModelStatus(self) -> object:  # noqa: N802 (HiGHS's name)
            return highspy.HighsModelStatus.kMemoryLimit

    model.highs = OutOfMemory(model.highs)  # type: ignore[assignment]
    with pytest.raises(MemoryError, match="HiGHS ran out of memory"):
        model.solve()


@pytest.mark.parametrize("minimizing", [False, True])
@pytest.mark.parametrize("seed", range(4))
def test_probe_bounds_the_changed_lp_and_restores_the_model(seed: int, minimizing: bool) -> None:
    """Probes give the changed LP's value in the program's (maximizing) sense, -inf for an infeasible child,
    whether HiGHS maximizes c or, after a cutoff (HighsModel.set_cutoff, one never reached), minimizes -c."""
    s = np.random.default_rng(seed).normal(size=(9, 9))
    lp = single_commodity_flow(s)
    model = HighsModel(lp, options={"presolve": "off"})
    if minimizing:
        model.set_cutoff(-1e9)
    first = model.solve()
    z = np.flatnonzero(first.x[: lp.num_cols] > 0.5)[:1]  # a column at 1 in the optimum: probing it matters
    upper = lp.col_upper.copy()
    child = copy.deepcopy(lp)
    child.col_upper[z] = 0.0
    exact = HighsModel(child).solve().objective
    assert model.probe(z, [0.0], 10_000) == pytest.approx(exact, abs=1e-7)  # run to the end: the child's optimum
    assert model.probe(z, [0.0], 1) >= exact - 1e-7  # stopped early: never below it (dual simplex, maximizing)
    heads = lp.cols("z")[lp.var_blocks["z"].index[:, 1] == 1]  # every arc into token 1: no tree is left
    assert model.probe(heads, np.zeros(heads.size), 10_000) == -np.inf
    assert np.array_equal(lp.col_upper, upper)
    again = model.solve()
    assert again.objective == pytest.approx(first.objective, abs=1e-9) and again.iterations == 0  # basis restored


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), dropped=st.integers(1, 3), offset=st.floats(-3.0, 3.0))
def test_a_cutoff_stops_the_dual_simplex_with_duals_that_bound_the_lp(
    seed: int, dropped: int, offset: float
) -> None:
    """HighsModel.set_cutoff, as a branch-and-bound child uses it: after bound changes, the dual simplex
    reaches the child's optimum (status OPTIMAL, a fresh model's value), necessarily so when the cutoff is
    below it, or stops with status CUTOFF, its duals dual feasible for the child and their dual objective
    between the child's optimum and the cutoff. Without the cutoff it goes on to the optimum, and a column
    added after the switch to minimizing -c keeps its cost."""
    rng = np.random.default_rng(seed)
    lp = single_commodity_flow(rng.normal(size=(8, 8)))
    model = HighsModel(lp, options={"presolve": "off"})
    root = model.solve()
    z = lp.cols("z")
    drop = rng.choice(z[root.x[z] > 0.5], size=dropped, replace=False)  # arcs of the root's tree
    child = copy.deepcopy(lp)
    child.col_upper[drop] = 0.0
    exact = HighsModel(child).solve()
    assert exact.certified
    cutoff = exact.objective + offset
    model.set_cutoff(cutoff)
    model.set_col_upper(drop, np.zeros(drop.size))
    sol = model.solve(certify=False)
    if cutoff < exact.objective - 1e-6:
        assert sol.status is Status.OPTIMAL
    if sol.status is Status.OPTIMAL:
        assert sol.objective == pytest.approx(exact.objective, abs=1e-7)
    else:
        assert sol.status is Status.CUTOFF
        bound, infeasibility = dual_bound(child, sol.row_dual)
        assert infeasibility <= 1e-9
        assert exact.objective - 1e-7 <= bound <= cutoff + 1e-7
    model.set_cutoff(None)
    assert model.solve().objective == pytest.approx(exact.objective, abs=1e-7)
    model.add_columns("w", [0], 2.0, upper=1.0)  # a free column worth 2
    assert model.solve().objective == pytest.approx(exact.objective + 2.0, abs=1e-7)


def test_a_mip_takes_no_cutoff() -> None:
    """The cutoff stops an LP's dual simplex; a MIP refuses one (and takes None, as the engine passes it)."""
    model = HighsModel(hand_lp(), mip=True)
    model.set_cutoff(None)
    with pytest.raises(ValueError, match="MIP"):
        model.set_cutoff(1.0)
    assert model.solve().objective == pytest.approx(13.0)


def test_products_from_coo_match_the_csr_as_the_program_grows() -> None:
    """A x and Aᵀ y straight from the COO triplets (the program grew since its CSR) equal the CSR's products,
    duplicate coefficients summed; once the CSR is current they come from it, the same."""
    lp = hand_lp()
    rng = np.random.default_rng(0)
    _ = lp.A  # a CSR, then the program grows past it
    lp.add_constraints("r2", [0], [0, 0, 0], [0, 3, 0], [1.0, 2.0, 0.5], upper=3.0)  # x twice: summed
    expected = _coo_dense(lp)
    np.testing.assert_allclose(expected, lp.A.toarray())  # the CSR sums duplicates alike
    lp.add_constraints("r3", [0], [0], [2], [1.0], upper=9.0)  # and grows past its CSR again
    expected = _coo_dense(lp)
    for current in (False, True):  # stale CSR: from the triplets; then from the CSR
        if current:
            _ = lp.A
        x, y = rng.normal(size=lp.num_cols), rng.normal(size=lp.num_rows)
        np.testing.assert_allclose(lp.dot(x), expected @ x)
        np.testing.assert_allclose(lp.tdot(y), expected.T @ y)


def _coo_dense(lp: LinearProgram) -> np.ndarray:
    """The constraint matrix summed from the COO triplets by a plain loop."""
    out = np.zeros((lp.num_rows, lp.num_cols))
    rows, cols, vals = lp.coefficients_since(0)
    for r, c, v in zip(rows, cols, vals):
        out[r, c] += v
    return out
