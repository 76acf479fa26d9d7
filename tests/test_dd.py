"""Dual decomposition: the guarantees of the DD reading note §3 (docs/references.md) and its fixtures F1,
F2."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpparse.dd.compact import compact_lp
from lpparse.dd.core import StepRule, dual_decomposition, dual_value
from lpparse.dd.problems import (
    Grammar,
    cfg_tagger,
    dependency,
    dependency_objective,
    held_karp,
    mrf,
    r10_appendix_a,
    tutorial_toy,
)
from lpparse.lp.views import make_model
from lpparse.oracles import all_trees
from lpparse.scores import noisy_gold_scores, random_scores
from lpparse.triples import synthetic_triple_scorer

SETTINGS = settings(deadline=None, max_examples=8)


def lp_value(problem) -> tuple[float, np.ndarray, object]:
    """Compact LP value, an optimal u* from its Agree duals, and the LP itself."""
    c = compact_lp(problem)
    sol = make_model(c.lp).solve()
    assert sol.certified
    return sol.objective, c.multipliers(sol), (c, sol)


def random_cfg_tagger(seed: int, n: int = 4):
    rng = np.random.default_rng(seed)
    return cfg_tagger(n, Grammar(3, rng.normal(size=(3, 3, 3))), [0, 1], rng.normal(size=(n + 1, 3, 3, 2)))


def test_update_direction_toy() -> None:
    """DD reading note §0.1: a part over-used by the first oracle becomes less attractive to it, more to the
    other."""
    problem = tutorial_toy([1.0, 0.0, 0.0], [0.0, 1.0, 0.0])  # y picks (a, b), z picks (b, b)
    r = dual_decomposition(problem, max_iter=2, step=StepRule("constant", 0.5))
    row = 0  # y(1, a) − z(1, a): y = 1, z = 0
    assert r.parts[0][0] == 1 or r.iterations == 2
    assert r.u[row] < 0  # component 0 gets θ + u: (1, a) is now less attractive to y, more to z (−u)


@SETTINGS
@given(seed=st.integers(0, 10**6))
def test_cfg_tagger_weak_duality_and_strong_duality(seed: int) -> None:
    """L(u) ≥ LP(Q') ≥ every primal at every iteration (Rush & Collins 2012 Thm 1a, §7.1); L(u*) = LP(Q') for
    the Agree duals (Rush et al. 2010 §6.1); a certificate only when the LP is tight, and then the dual equals
    the primal."""
    problem = random_cfg_tagger(seed)
    lp, u_star, (c, sol) = lp_value(problem)
    assert dual_value(problem, u_star)[0] == pytest.approx(lp, abs=1e-6)
    r = dual_decomposition(problem, max_iter=150, step=StepRule("tut", 1.0))
    assert np.all(r.dual >= lp - 1e-9)
    primals = r.primal[np.isfinite(r.primal)]
    assert np.all(primals <= lp + 1e-9)
    assert np.all(np.diff(np.minimum.accumulate(r.dual)) <= 0)
    parts = np.concatenate(c.parts(sol.x))
    if r.certified:
        assert r.dual[-1] == pytest.approx(r.best_primal, abs=1e-9) and r.best_primal == pytest.approx(
            lp, abs=1e-7
        )
    else:
        assert r.best_dual - lp < 0.05 or not np.allclose(parts, np.round(parts), atol=1e-7)


def test_r10_appendix_a_fixture() -> None:
    """F1: LP(Q') = 0 at a fractional point, every agreeing pair scores < 0, L(0) = 0, no agreement."""
    problem = r10_appendix_a()
    lp, _, (c, sol) = lp_value(problem)
    assert lp == pytest.approx(0.0, abs=1e-9)
    tags = c.parts(sol.x)[0]
    assert not np.allclose(tags, np.round(tags), atol=1e-6)  # fractional tag marginals
    assert sol.certified and not sol.integral  # the compact LP's part indicators are integer columns
    assert dual_value(problem, np.zeros(problem.agreement.num_rows))[0] == pytest.approx(0.0)
    r = dual_decomposition(problem, max_iter=200)
    assert not r.certified and r.best_dual == pytest.approx(0.0) and r.best_primal < 0
    ilp = make_model(compact_lp(problem).lp, mip=True).solve()
    assert ilp.integral and ilp.objective == pytest.approx(-1.0)


def test_tutorial_toy_gap_oscillation_and_tightening() -> None:
    """F2 (Rush & Collins 2012 §9.3–9.4): with δ_k = 1/k, L(u(9)) = 2.064 and the oracles alternate between
    (y1, z1) and (y2, z2) while min L → LP = 2 > OPT = 0; c/(t+1) without the fallback of the DD reading note
    erratum E10 stalls at L = 3; adding the bigram row y(1,a,b) = z(1,a,b) makes the LP tight (0) and the
    method certifies."""
    f, g = [1.0, 1.0, 2.0], [1.0, 1.0, -2.0]
    problem = tutorial_toy(f, g)
    lp, _, _ = lp_value(problem)
    assert lp == pytest.approx(2.0)
    problem.pool = None
    r = dual_decomposition(problem, max_iter=200, step=StepRule("harmonic", 1.0, patience=None))
    assert r.dual[8] == pytest.approx(2.064, abs=5e-4)
    assert not r.certified and r.best_dual == pytest.approx(2.0, abs=0.01) and r.best_primal == 0.0
    assert r.parts[0][2] == 0 and r.parts[1][2] == 0  # alternating on a/b, never the integral (c, c)
    stalled = dual_decomposition(problem, max_iter=100, step=StepRule("tut", 1.0, patience=None))
    assert np.all(stalled.dual == 3.0) and np.all(stalled.step[:-1] == 1.0)  # E10
    fallback = dual_decomposition(problem, max_iter=100, step=StepRule("tut", 1.0, patience=5))
    assert fallback.best_dual < 2.2
    tight = tutorial_toy(f, g)
    row = np.flatnonzero((tight.pool.label == [1, 0, 1]).all(axis=1))  # y(1, a, b) = z(1, a, b)
    tightened = compact_lp(tight, tight.agreement.join(tight.pool.take(row)))
    assert make_model(tightened.lp).solve().objective == pytest.approx(0.0, abs=1e-9)
    r = dual_decomposition(tutorial_toy(f, g), max_iter=400, step=StepRule("tut", 1.0, patience=None))
    assert r.tightened_at and r.certified and r.best_primal == 0.0 and r.dual[-1] == pytest.approx(0.0)


def brute_dependency(s, gp, sib, single_root=False) -> float:
    n = s.shape[0] - 1
    return max(dependency_objective(h, s, gp, sib) for h in all_trees(n, single_root))


@SETTINGS
@given(
    seed=st.integers(0, 10**6),
    siblings=st.booleans(),
    single_root=st.booleans(),
    share=st.sampled_from([0.0, 0.5]),
)
def test_dependency_dd_against_brute_force_and_lp(
    seed: int, siblings: bool, single_root: bool, share: float
) -> None:
    """Koo et al. 2010 DD: every dual ≥ the non-projective grandparent(+sibling) optimum; a certificate
    gives that optimum; min dual → the compact LP value; L(u*) = LP."""
    rng = np.random.default_rng(seed)
    n = 5
    s = noisy_gold_scores(np.array([-1, 0, 1, 1, 2, 3]), noise=1.0, rng=rng)
    gp = synthetic_triple_scorer(n, rng, scale=0.5)
    sib = 0.5 * rng.normal(size=(n + 1,) * 3) if siblings else None
    problem = dependency(s, gp, sib, single_root, arc_share=share)
    assert gp.scored > 0  # every candidate triple scored once, when the problem is built
    best = brute_dependency(s, gp.scores, sib, single_root)
    lp, u_star, _ = lp_value(problem)
    assert lp >= best - 1e-7
    assert dual_value(problem, u_star)[0] == pytest.approx(lp, abs=1e-6)
    r = dual_decomposition(problem, max_iter=400, step=StepRule("tut", 1.0))
    assert np.all(r.dual >= lp - 1e-9) and r.best_primal <= best + 1e-9
    if r.certified:
        assert r.best_primal == pytest.approx(best, abs=1e-9) and r.dual[-1] == pytest.approx(best, abs=1e-9)
    assert r.best_dual - lp < 0.05 * max(1.0, abs(lp))


def test_dependency_certificate_matches_brute_force() -> None:
    """On clear scores (as trained models give) DD certifies quickly, and the certificate is optimal."""
    rng = np.random.default_rng(3)
    heads = np.array([-1, 2, 0, 2, 5, 3, 5])
    certified = 0
    for trial in range(5):
        s = noisy_gold_scores(heads, noise=0.5, rng=rng, gold_bonus=2.0)
        gp = synthetic_triple_scorer(6, rng, scale=0.3)
        r = dual_decomposition(dependency(s, gp), max_iter=100, step=StepRule("tut", 1.0))
        if r.certified:
            certified += 1
            assert r.best_primal == pytest.approx(brute_dependency(s, gp.scores, None), abs=1e-9)
    assert certified >= 4


def test_mrf_tree_decomposition() -> None:
    """Rush & Collins 2012 §6.2 on a 3x3 grid: two forests (rows, columns); L(u) ≥ MAP; agreement gives the
    MAP; the compact LP (forest local polytopes + agreement) is the value min L approaches."""
    rng = np.random.default_rng(0)
    side, k = 3, 2
    v = side * side
    idx = np.arange(v).reshape(side, side)
    rows = np.column_stack([idx[:, :-1].ravel(), idx[:, 1:].ravel()])
    cols = np.column_stack([idx[:-1, :].ravel(), idx[1:, :].ravel()])
    for trial, strength in enumerate((0.3, 2.0)):
        pairwise = np.zeros((v, v, k, k))
        for i, j in np.concatenate([rows, cols]):
            pairwise[i, j] = strength * rng.normal(size=(k, k))
        unary = rng.normal(size=(v, k))
        problem = mrf(v, k, pairwise, [rows, cols], unary)
        best = max(
            unary[np.arange(v), x].sum()
            + sum(pairwise[i, j, x[i], x[j]] for i, j in np.concatenate([rows, cols]))
            for x in map(np.array, itertools.product(range(k), repeat=v))
        )
        lp, u_star, _ = lp_value(problem)
        assert lp >= best - 1e-7 and dual_value(problem, u_star)[0] == pytest.approx(lp, abs=1e-6)
        r = dual_decomposition(problem, max_iter=300, step=StepRule("tut", 1.0))
        assert np.all(r.dual >= best - 1e-9)
        if r.certified:
            assert r.best_primal == pytest.approx(best, abs=1e-9)
        assert r.best_dual - lp < 0.05


def test_held_karp() -> None:
    """Rush & Collins 2012 §6.3: L(u) ≥ the best tour; a degree-2 1-tree is an optimal tour; min L → the
    Held-Karp LP."""
    rng = np.random.default_rng(1)
    certified = 0
    for trial in range(4):
        v = 6
        pts = rng.random((v, 2))
        w = -np.linalg.norm(pts[:, None] - pts[None], axis=2)  # maximize minus length
        best = max(
            sum(w[t[i], t[(i + 1) % v]] for i in range(v))
            for t in ((0, *p) for p in itertools.permutations(range(1, v)))
        )
        problem = held_karp(w)
        lp, _, _ = lp_value(problem)
        assert lp >= best - 1e-7
        r = dual_decomposition(problem, max_iter=300, step=StepRule("tut", 0.3))
        assert np.all(r.dual >= best - 1e-9)
        if r.certified:
            certified += 1
            assert r.best_primal == pytest.approx(best, abs=1e-9)
        assert r.best_dual - lp < 0.02
    assert certified >= 1


def test_step_rules() -> None:
    rule = StepRule("r10", 0.5, patience=None)
    assert [rule(k, d) for k, d in enumerate([3.0, 2.0, 2.5, 2.4, 2.6], 1)] == [0.5, 0.5, 0.25, 0.25, 0.125]
    rule = StepRule("r10", 1.0, patience=2)
    assert [rule(k, 1.0) for k in range(1, 6)] == [1.0, 1.0, 0.5, 0.5, 0.25]  # flat dual: E10 fallback
    assert StepRule("harmonic", 2.0)(4, 0.0) == 0.5 and StepRule("sqrt", 2.0)(4, 0.0) == 1.0
    with pytest.raises(ValueError):
        StepRule("polyak")


def test_random_scores_dependency_loose_lp_never_certified() -> None:
    """No false certificates (DD reading note §3.6): when LP > OPT, agreement cannot happen."""
    rng = np.random.default_rng(11)
    loose = 0
    for trial in range(6):
        s = random_scores(4, rng)
        gp = synthetic_triple_scorer(4, rng, scale=1.5)
        problem = dependency(s, gp)
        lp = lp_value(problem)[0]
        best = brute_dependency(s, gp.scores, None)
        r = dual_decomposition(problem, max_iter=150, step=StepRule("tut", 1.0))
        if lp > best + 1e-6:
            loose += 1
            assert not r.certified
    assert loose >= 1


def test_compact_lp_both_views() -> None:
    """The compact LP of CFG + tagger has the same value in the Pyomo and the HiGHS view."""
    c = compact_lp(random_cfg_tagger(7, n=3))
    assert make_model(c.lp, "pyomo").solve().objective == pytest.approx(
        make_model(c.lp).solve().objective, abs=1e-7
    )


def test_dd_table_experiment_on_sample() -> None:
    """Table-1 runner on the shipped sample: certified DD = compact LP = PPC objective."""
    from importlib.resources import files

    from lpparse.corpus import read_treebank
    from lpparse.experiments.dd_table import DDSettings, bucket_table, run_treebank

    sents = read_treebank(files("lpparse") / "data" / "sample.conllu", max_length=8)[:3]
    runs, described = run_treebank(sents, settings=DDSettings(max_iter=100))
    assert "synthetic" in described
    table = bucket_table(runs, 100)
    assert sum(v for _, v in table) == pytest.approx(100.0)
    for r in runs:
        assert r.dd_bound >= r.lp_value - 1e-7 and r.ppc_objective <= r.lp_value + 1e-7
        if r.certified:
            assert r.lp_integral and r.dd_objective == pytest.approx(r.lp_value, abs=1e-7)
            assert r.ppc_objective == pytest.approx(r.dd_objective, abs=1e-6)


def test_cfg_tagger_tightening_refines_cky() -> None:
    """DD reading note, P12 / Rush & Collins 2012 §9.4 on F1: plain DD never certifies (LP(Q') = 0 > OPT =
    −1); when the dual stalls, the bigram rows of the most violated boundary join with the CKY hypergraph
    refined there (new columns), the tightened compact LP equals the ILP (−1) and DD certifies the optimum."""
    plain = r10_appendix_a()
    assert not dual_decomposition(plain, max_iter=100).certified
    problem = r10_appendix_a(tighten=True)
    r = dual_decomposition(problem, max_iter=100, stall_window=10, tighten_rows=4)
    assert r.tightened_at == [10] and problem.components[0].boundaries == (2,)  # selective: one boundary
    assert sorted(map(tuple, r.agreement.label[6:])) == [(2, a, b) for a in (0, 1) for b in (0, 1)]
    assert r.certified and r.best_primal == pytest.approx(-1.0) and r.dual[-1] == pytest.approx(-1.0)
    tightened = compact_lp(problem, r.agreement)
    sol = make_model(tightened.lp).solve()
    assert sol.objective == pytest.approx(-1.0, abs=1e-9)
    assert make_model(compact_lp(plain).lp).solve().objective == pytest.approx(0.0, abs=1e-9)
    with pytest.raises(ValueError, match="unrefined"):
        problem.components[0].argmax(np.ones(problem.components[0].num_parts))
