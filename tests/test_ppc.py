"""Parse, Price and Cut (Riedel, Smith & McCallum 2012 §4) against brute force (BF), with the full-LP
certificate checked by scoring every triple: every constraint and every reduced cost of the full LP, for every
preset and score shape."""

from __future__ import annotations

import dataclasses
import math
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lpparse.colgen.engine import Round
from lpparse.colgen.options import HIGHS_OPTIONS, MasterSettings
from lpparse.decoding import decode
from lpparse.families.base import Parts
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.families.grandparent.rows import PRESETS, full_grandparent_program
from lpparse.families.sibling.family import SiblingParts
from lpparse.formulations.arborescence import arc_matrix, separate_subtours
from lpparse.lp import Status, certify_lp
from lpparse.oracles.brute_force import brute_force
from lpparse.oracles.grandparent_eisner import grandparent_eisner
from lpparse.ppc import (
    BF_BELOW_PARTS,
    PPCResult,
    candidate_parts,
    certify_full,
    choose_method,
    extend_solution,
    parse_price_cut,
    solve_bf,
    solve_lp,
    solve_second_order,
)
from lpparse.scores import noisy_gold_scores, random_scores
from lpparse.trees import NoTreeError, allowed_arcs, check_tree_exists, is_tree
from lpparse.triples import (
    GP_DISTRIBUTIONS,
    DenseSiblingScorer,
    DenseTripleScorer,
    synthetic_triple_scorer,
    triple_mask,
)

SETTINGS = settings(deadline=None, max_examples=250, suppress_health_check=[HealthCheck.too_slow])


@st.composite
def instances(draw: st.DrawFn, max_n: int = 9) -> tuple[np.ndarray, DenseTripleScorer, bool]:
    """n = 2..max_n, N(0,1) or noisy-gold arc scores, some arcs pruned, every triple-score distribution."""
    n = draw(st.integers(2, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    dist = draw(st.sampled_from(GP_DISTRIBUTIONS))
    single_root = draw(st.booleans())
    if draw(st.booleans()):
        s = random_scores(n, rng)
    else:
        gold = np.full(n + 1, -1)
        gold[1:] = rng.integers(0, np.arange(1, n + 1))  # head left of the token: a tree
        s = noisy_gold_scores(gold, rng=rng, gold_bonus=2.0)
    pruned = s.copy()
    pruned[rng.random(s.shape) < draw(st.sampled_from([0.0, 0.3]))] = -np.inf
    try:
        check_tree_exists(pruned, single_root)
        s = pruned
    except NoTreeError:
        pass
    return s, synthetic_triple_scorer(n, rng, dist, slack=draw(st.sampled_from([0.0, 0.5]))), single_root


def check_against_bf(
    s: np.ndarray, scorer: DenseTripleScorer, preset: str, single_root: bool, **kw: object
) -> PPCResult:
    """PPC = BF within 1e-6, PPC's certificate holds, and so does the full LP's on the extension by zeros."""
    result = parse_price_cut(s, scorer, preset, single_root, **kw)  # type: ignore[arg-type]
    bf = solve_bf(s, DenseTripleScorer(scorer.scores), preset, single_root)
    assert result.certified, (preset, result.certificate)
    assert bf.certified
    assert result.objective == pytest.approx(bf.objective, abs=1e-6), preset
    full = full_grandparent_program(s, scorer.scores, preset, single_root)
    cert = certify_full(
        full.lp, result.program.lp, result.solution.x, result.row_dual, outside=result.outside_duals()
    )
    assert cert.ok, (preset, str(cert))
    stats, gp = result.stats, result.counts["grandparent"]
    assert gp.added <= gp.scored <= gp.candidates == bf.counts["grandparent"].added
    assert stats.cols == result.program.lp.num_cols and stats.iterations >= 1
    return result


@pytest.mark.parametrize("preset", ["all", "martins", "onegp"])
@SETTINGS
@given(instance=instances())
def test_ppc_equals_bf_with_full_certificate(
    preset: str, instance: tuple[np.ndarray, DenseTripleScorer, bool]
) -> None:
    check_against_bf(*instance[:2], preset, instance[2])


@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(instances())
def test_ppc_without_tightening_and_with_nogp(instance: tuple[np.ndarray, DenseTripleScorer, bool]) -> None:
    s, scorer, single_root = instance
    check_against_bf(s, scorer, "all", single_root, tighten=False)
    check_against_bf(s, DenseTripleScorer(scorer.scores), ("ArcGP", "GPArc", "OneGP", "NoGP"), single_root)  # type: ignore[arg-type]


@settings(deadline=None, max_examples=80, suppress_health_check=[HealthCheck.too_slow])
@given(instances())
def test_ppc_pricing_variants_equal_bf(instance: tuple[np.ndarray, DenseTripleScorer, bool]) -> None:
    """Always deferring degenerate triples (and, when only those price, letting one in a round: the cap at
    RELEASE·n with DEFER = 0 and a RELEASE below 1/n), one triple per pair (lazy scoring of 1 per pair), no
    GPArc duals, or pricing everything at once: the same optimum, certified on the full LP."""
    s, scorer, single_root = instance
    variants = ({"defer": 0.0, "release": 1e-3, "per_pair": 1}, {"parent_duals": False})
    for kw in (*variants, {"per_pair": None, "defer": None}):
        check_against_bf(s, DenseTripleScorer(scorer.scores), "all", single_root, **kw)


@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(instances())
def test_lazy_arcgp_rows_equal_bf(instance: tuple[np.ndarray, DenseTripleScorer, bool]) -> None:
    """ArcGP rows held back until violated (the default) or entering with their columns (§4): the same
    optimum as BF (with every row), certified on the full LP; held back, every ArcGP row in the program
    entered with a cut column or as a violated row."""
    s, scorer, single_root = instance
    for preset in PRESETS:
        check_against_bf(s, DenseTripleScorer(scorer.scores), preset, single_root, lazy_arcgp=False)
        result = check_against_bf(s, DenseTripleScorer(scorer.scores), preset, single_root, lazy_arcgp=True)
        rows = result.program.lp.con_blocks.get("ArcGP")
        assert result.stats.rows_cut + result.stats.cut == (len(rows) if rows is not None else 0)
        held = result.program.present & ~result.program.arcgp if "ArcGP" in result.program.families else []
        assert result.program.held_back_arcgp == int(np.sum(held))


def _timeless(trace: list[Round]) -> list[Round]:
    return [dataclasses.replace(r, solve_seconds=0.0) for r in trace]


@settings(deadline=None, max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(instances())
def test_trace_matches_stats_and_truncated_runs(instance: tuple[np.ndarray, DenseTripleScorer, bool]) -> None:
    """One Round per LP solve; its totals are the run's, and round k is what a run stopped after k rounds
    reports (PPC is deterministic)."""
    s, scorer, single_root = instance
    result = parse_price_cut(s, DenseTripleScorer(scorer.scores), "all", single_root)
    stats = result.stats
    trace = result.rounds
    gp = [r.families["grandparent"] for r in trace]
    assert len(trace) == stats.iterations and [r.round for r in trace] == list(range(1, len(trace) + 1))
    assert sum(r.simplex_iterations for r in trace) == stats.simplex_iterations
    assert sum(g.priced for g in gp) == stats.priced and sum(g.cut for g in gp) == stats.cut
    last = gp[-1]
    assert (last.priced, last.cut, last.rows_cut) == (0, 0, 0) and trace[-1].max_reduced_cost <= 1e-7
    assert trace[-1].objective == result.objective and last.scored == stats.scored
    assert last.added == stats.added and (trace[-1].rows, trace[-1].cols) == (stats.rows, stats.cols)
    prog = result.program
    assert last.held_out == np.sum((prog.onegp_row >= 0) & ~prog.present.any(axis=0))
    assert all(nxt.held_out <= g.held_out for g, nxt in zip(gp, gp[1:]))
    for r, g, nxt, g_nxt in zip(trace, gp, trace[1:], gp[1:]):
        assert g_nxt.added == g.added + g.priced + g.cut and nxt.objective >= r.objective - 1e-6
    for r, g in zip(trace[:-1], gp):
        stopped = parse_price_cut(s, DenseTripleScorer(scorer.scores), "all", single_root, max_iterations=r.round)
        assert stopped.status is Status.ITERATION_LIMIT
        assert _timeless(stopped.rounds) == _timeless(trace[: r.round])
        assert stopped.solution.objective == r.objective and stopped.stats.added == g.added


def test_lazy_arcgp_rows_enter_when_violated() -> None:
    """``martins`` on negative triple scores: zgp wants 0, so ArcGP rows bind and must be cut in."""
    rng = np.random.default_rng(3)
    s = random_scores(8, rng)
    scorer = synthetic_triple_scorer(8, rng, "negative")
    result = check_against_bf(s, scorer, "martins", False, lazy_arcgp=True)
    assert result.stats.rows_cut > 0


@settings(deadline=None, max_examples=80, suppress_health_check=[HealthCheck.too_slow])
@given(instances(max_n=7))
def test_integral_ppc_is_the_best_tree(instance: tuple[np.ndarray, DenseTripleScorer, bool]) -> None:
    s, scorer, single_root = instance
    result = parse_price_cut(s, scorer, "all", single_root)
    _, best = brute_force(s, single_root, gp_scores=scorer.scores)
    assert result.objective >= best - 1e-6
    if result.integral:
        assert result.heads is not None and is_tree(result.heads, single_root)
        assert result.objective == pytest.approx(best, abs=1e-6)
    decoded = decode("ppc", s, DenseTripleScorer(scorer.scores), single_root)
    assert is_tree(decoded.heads, single_root) and decoded.objective <= best + 1e-6


@settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])
@given(instances())
def test_tampered_duals_fail_the_certificate(instance: tuple[np.ndarray, DenseTripleScorer, bool]) -> None:
    """Lowering μ_OneGP(p,c) by 100 makes every triple ⟨·,p,c⟩ price at >= 100 - |s|: dual infeasible. So
    does raising the GPArc dual λ of an absent triple by 100 past its arc's slack (which may itself exceed 100)."""
    s, scorer, single_root = instance
    result = parse_price_cut(s, scorer, "all", single_root)
    full = full_grandparent_program(s, scorer.scores, "all", single_root)
    outside = result.outside_duals()
    x, y = extend_solution(full.lp, result.program.lp, result.solution.x, result.row_dual, outside)
    assert certify_lp(full.lp, x, y).ok
    if outside:
        index, lam = outside["GPArc"]
        g0, p0 = index[0, 0], index[0, 1]
        reduced = full.lp.cost - full.lp.A.T @ y
        slack = max(0.0, -float(reduced[full.z_col[g0, p0]]))  # what λ may still take
        greedy = {"GPArc": (index, lam - (slack + 100.0) * (np.arange(lam.size) == 0))}
        _, over = extend_solution(full.lp, result.program.lp, result.solution.x, result.row_dual, greedy)
        assert not certify_lp(full.lp, x, over).ok
    g, p, c = full.triples()
    if g.size == 0:
        return
    tampered = y.copy()
    tampered[full.onegp_row[p[0], c[0]]] -= 100.0
    assert not certify_lp(full.lp, x, tampered).ok
    tampered = y.copy()
    tampered[full.lp.rows("OneHead")] += 1.0  # shifts every z's reduced cost: breaks the gap or feasibility
    assert not certify_lp(full.lp, x, tampered).ok


class LyingScorer(DenseTripleScorer):
    """Bounds far below the true maxima: pricing then misses triples."""

    def bound_gp(self) -> np.ndarray:
        return super().bound_gp() - 100.0

    def bound_pc(self) -> np.ndarray:
        return super().bound_pc() - 100.0


def test_invalid_bounds_are_caught_by_the_full_certificate() -> None:
    rng = np.random.default_rng(0)
    n = 7
    s = random_scores(n, rng)
    gp = synthetic_triple_scorer(n, rng, "positive").scores
    result = parse_price_cut(s, LyingScorer(gp), "all")
    bf = solve_bf(s, DenseTripleScorer(gp), "all")
    assert result.objective < bf.objective - 1e-3
    full = full_grandparent_program(s, gp, "all")
    assert not certify_full(full.lp, result.program.lp, result.solution.x, result.row_dual).ok


@pytest.mark.parametrize("seed", range(3))
def test_projective_long_sentences_bounded_by_grandparent_eisner(seed: int) -> None:
    """n = 12..16 noisy-gold chains: every preset's PPC = BF, and the LP bounds the exact projective DP."""
    rng = np.random.default_rng(seed)
    n = 12 + 2 * seed
    gold = np.full(n + 1, -1)
    gold[1:] = np.arange(0, n)
    s = noisy_gold_scores(gold, noise=0.5, rng=rng, gold_bonus=2.0)
    scorer = synthetic_triple_scorer(n, rng, scale=0.3)
    _, dp = grandparent_eisner(s, scorer.scores)
    for preset in PRESETS:
        result = check_against_bf(
            s, DenseTripleScorer(scorer.scores, scorer.slack_gp, scorer.slack_pc), preset, False
        )
        assert result.objective >= dp - 1e-6
    for init in ("tree", "root"):
        result = parse_price_cut(s, scorer, "all", init=init)
        assert result.certified and result.objective >= dp - 1e-6
        assert result.stats.scored < result.stats.candidates
    for seed_heads in (None, 0, 1, 2, 5):  # arcs without an initial triple start at 0, pricing brings them in
        check_against_bf(s, scorer, "all", False, seed_heads=seed_heads)
        check_against_bf(s, scorer, "all", True, seed_heads=seed_heads)
    for per_pair in (None, 1, 3):  # partial pricing
        for preset in PRESETS:
            check_against_bf(s, scorer, preset, False, per_pair=per_pair)


class NaNScorer(DenseTripleScorer):
    def score(self, g: object, p: object, c: object) -> np.ndarray:
        return np.full(np.asarray(g).size, np.nan)


def test_bad_input_gives_clear_errors_or_status() -> None:
    s = random_scores(5, 0)
    scorer = synthetic_triple_scorer(5, 0)
    bad = s.copy()
    bad[2, 3] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        parse_price_cut(bad, scorer)
    with pytest.raises(ValueError, match="NaN"):
        parse_price_cut(s, NaNScorer(scorer.scores))
    with pytest.raises(ValueError, match="n=6"):
        parse_price_cut(random_scores(6, 0), scorer)
    no_tree = s.copy()
    no_tree[:, 4] = -np.inf
    with pytest.raises(NoTreeError):
        parse_price_cut(no_tree, scorer)
    with pytest.raises(NoTreeError):
        solve_bf(no_tree, scorer)
    with pytest.raises(ValueError, match="preset"):
        parse_price_cut(s, scorer, "nope")
    n = 40
    big, big_scorer = random_scores(n, 1), synthetic_triple_scorer(n, 1)
    # out of time before the first solve (a deadline already passed: no dependence on the machine's speed)
    timed = parse_price_cut(big, big_scorer, time_limit=0.0)
    assert timed.status is Status.TIME_LIMIT and not timed.certified and timed.heads is None
    assert solve_bf(big, big_scorer, time_limit=0.0).status is Status.TIME_LIMIT
    with pytest.raises(RuntimeError, match="time limit"):
        decode("ppc", big, big_scorer, time_limit=0.0)


def test_a_run_stopped_by_a_limit_returns_no_tree() -> None:
    """The contract at a limit: status says which, and no tree is returned, even when the last restricted LP
    was integral (its tree is not proved optimal). One master solve of a clear-cut sentence is integral."""
    gold = np.array([-1, 0, 1, 2, 3, 4, 5])
    s = noisy_gold_scores(gold, rng=np.random.default_rng(0), gold_bonus=2.0)
    scorer = synthetic_triple_scorer(6, 0, scale=3.0)
    capped = parse_price_cut(s, scorer, max_iterations=1)
    assert capped.status is Status.ITERATION_LIMIT and not capped.certified and capped.heads is None
    assert capped.solution.status is Status.OPTIMAL and capped.solution.integral


def test_decoders_bf_and_ppc_agree() -> None:
    rng = np.random.default_rng(3)
    n = 10
    gold = np.full(n + 1, -1)
    gold[1:] = rng.integers(0, np.arange(1, n + 1))
    s = noisy_gold_scores(gold, rng=rng, gold_bonus=2.0)
    gp = synthetic_triple_scorer(n, rng, scale=0.5).scores
    for preset in PRESETS:
        ppc = decode("ppc", s, DenseTripleScorer(gp), False, preset=preset)
        bf = decode("bf", s, DenseTripleScorer(gp), False, preset=preset)
        assert ppc.stats["lp_objective"] == pytest.approx(bf.stats["lp_objective"], abs=1e-6)
        assert ppc.stats["triples_scored"] <= bf.stats["triples_scored"]
        assert is_tree(ppc.heads) and is_tree(bf.heads)


def test_stalled_primal_resolves_fall_back_to_dual_simplex(monkeypatch: pytest.MonkeyPatch) -> None:
    """Warm re-solves stopped by the stall limit (here after 1 iteration) go on with the dual simplex, as the
    run's later re-solves: still exact."""
    monkeypatch.setattr("lpparse.colgen.engine.DEFAULT_MASTER", MasterSettings(0.0, HIGHS_OPTIONS))
    stalled = 0
    for seed in range(4):
        rng = np.random.default_rng(seed)
        s = random_scores(10, rng)
        scorer = synthetic_triple_scorer(10, rng)
        for single_root in (False, True):
            stalled += check_against_bf(s, scorer, "all", single_root).info["stalled"]
    assert stalled > 0


@pytest.mark.parametrize("seed", range(2))
def test_martins_on_multi_flow_stays_within_a_few_bfs(seed: int) -> None:
    """``martins`` on the multi-flow base with random scores, where warm primal re-solves stall round after
    round (lpparse.colgen.engine, "Stalls"): n = 14 took 6.2x and 6.4x BF's simplex iterations before the
    dual simplex took over after a stall, 4.5x and 4.9x since (n = 20: 231k against 104k; BF 24k)."""
    n = 14
    rng = np.random.default_rng(seed)
    s, scorer = rng.normal(size=(n + 1, n + 1)), synthetic_triple_scorer(n, rng)
    ppc = parse_price_cut(s, DenseTripleScorer(scorer.scores), "martins", base="multi-flow")
    bf = solve_bf(s, DenseTripleScorer(scorer.scores), "martins", base="multi-flow")
    assert ppc.certified and bf.certified and ppc.objective == pytest.approx(bf.objective, abs=1e-6)
    assert ppc.info["stalled"] and ppc.stats.simplex_iterations <= 5.5 * bf.stats.simplex_iterations


@pytest.mark.parametrize("preset", ["all", "martins"])
@settings(deadline=None, max_examples=50, suppress_health_check=[HealthCheck.too_slow])
@given(instance=instances(max_n=7), siblings=st.booleans())
def test_cycle_cut_base_reaches_the_multi_flow_lp(
    preset: str, instance: tuple[np.ndarray, DenseTripleScorer, bool], siblings: bool
) -> None:
    """On the cycle-cut base (NoCycle rows separated by max-flow, no flow columns) PPC and BF reach the LP
    value of the multi-commodity flow base (both project onto the arborescence polytope), certified, with no
    NoCycle row violated at the end (a fresh exact separation finds none); the single-flow LP is no
    tighter. With or without sibling parts."""
    s, scorer, single_root = instance
    rng = np.random.default_rng(int(abs(scorer.scores[0, 0, 0]) * 1e6))
    sibs = DenseSiblingScorer(rng.normal(size=scorer.scores.shape))

    def families() -> list[Parts]:
        gp = GrandparentParts(DenseTripleScorer(scorer.scores), preset)
        return [gp, SiblingParts(DenseSiblingScorer(sibs.scores))] if siblings else [gp]

    multi = solve_lp(s, families(), "bf", single_root, "multi-flow")
    single = solve_lp(s, families(), "bf", single_root, "single-flow")
    assert multi.certified and multi.objective <= single.objective + 1e-6
    for method in ("ppc", "bf"):
        cuts = solve_lp(s, families(), method, single_root, "cycle-cuts")
        assert cuts.certified and cuts.objective == pytest.approx(multi.objective, abs=1e-6), method
        assert separate_subtours(arc_matrix(cuts.program.lp, cuts.solution.x)) == []
        assert "phi" not in cuts.program.lp.var_blocks


@settings(deadline=None, max_examples=80, suppress_health_check=[HealthCheck.too_slow])
@given(instances(), st.sampled_from(sorted(PRESETS)), st.integers(1, 200))
def test_auto_runs_bf_below_the_threshold_and_ppc_from_it(
    instance: tuple[np.ndarray, DenseTripleScorer, bool], preset: str, below: int
) -> None:
    """solve_second_order: BF on fewer than BF_BELOW_PARTS candidate triples (here ``below``), else PPC; both
    certified on the full LP with the same optimum and a result of the same kind (a trace whose last round
    ends it). Brute force that ``auto`` chose leaves out the ArcGP rows that OneGP and GPArc imply, and its
    solution still holds the certificate of the full program with every row; ``bf`` keeps them, and so does
    ``auto`` with ``implied_rows``."""
    s, scorer, single_root = instance
    parts = int(triple_mask(allowed_arcs(s)).sum())
    assert candidate_parts(s, [GrandparentParts(scorer)]) == parts
    with mock.patch("lpparse.ppc.loop.BF_BELOW_PARTS", below):
        auto = solve_second_order(s, DenseTripleScorer(scorer.scores), preset, single_root)
    ppc = parse_price_cut(s, DenseTripleScorer(scorer.scores), preset, single_root)
    bf = solve_bf(s, DenseTripleScorer(scorer.scores), preset, single_root)
    assert auto.method == ("bf" if parts < below else "ppc") == auto.stats.method
    for result in (auto, ppc, bf):
        assert result.certified and result.objective == pytest.approx(bf.objective, abs=1e-6)
        assert len(result.rounds) == result.stats.iterations
        last = result.rounds[-1]
        assert last.entering == 0 and last.max_reduced_cost <= 1e-7
        assert last.objective == result.solution.objective
        assert last.families["grandparent"].added == result.stats.added
        assert (last.rows, last.cols) == (result.stats.rows, result.stats.cols)
        assert result.info["max_reduced_cost"] <= 1e-7 and result.info["max_violation"] <= 1e-7
        assert (result.heads is not None) == result.integral
    assert bf.rounds[0].families["grandparent"].scored == bf.stats.candidates

    def arcgp_rows(result: PPCResult) -> int:
        return len(result.program.lp.con_blocks.get("ArcGP", ()))

    triples = bf.program.num_triples if "ArcGP" in bf.program.families else 0
    assert arcgp_rows(bf) == triples
    if auto.method == "bf":
        assert arcgp_rows(auto) == (0 if auto.program.arcgp_implied else triples)
        with mock.patch("lpparse.ppc.loop.BF_BELOW_PARTS", below):
            kept = solve_second_order(
                s, DenseTripleScorer(scorer.scores), preset, single_root, implied_rows=True
            )
        assert arcgp_rows(kept) == triples and kept.objective == pytest.approx(bf.objective, abs=1e-6)
        full = full_grandparent_program(s, scorer.scores, preset, single_root)
        outside = auto.outside_duals()
        cert = certify_full(full.lp, auto.program.lp, auto.solution.x, auto.row_dual, outside=outside)
        assert cert.ok, str(cert)


class _CountingBounds:
    """A dense triple or sibling scorer that counts the look-ups of its factorized bounds (``bound_*``)."""

    def __init__(self, scorer: DenseTripleScorer | DenseSiblingScorer) -> None:
        self.scorer, self.calls = scorer, 0

    def __getattr__(self, name: str):  # noqa: ANN204
        attr = getattr(self.scorer, name)
        if name.startswith("bound_") and callable(attr):
            self.calls += 1
        return attr


@settings(deadline=None, max_examples=20, suppress_health_check=[HealthCheck.too_slow])
@given(instance=instances(max_n=7), base=st.sampled_from(["single-flow", "cycle-cuts"]))
def test_brute_force_builds_no_bounds_and_prices_nothing(
    instance: tuple[np.ndarray, DenseTripleScorer, bool], base: str
) -> None:
    """Brute force seeds every candidate part, so the grandparent and sibling families are complete: they
    never ask their scorers for factorized bounds (which only pricing reads), and report nothing to price;
    parse-price-cut asks for them. Both end certified at the same value."""
    s, scorer, single_root = instance
    rng = np.random.default_rng(int(abs(scorer.scores[0, 0, 0]) * 1e6))
    sib_scores = rng.normal(size=scorer.scores.shape)
    values = {}
    for method in ("bf", "ppc"):
        triples = _CountingBounds(DenseTripleScorer(scorer.scores))
        siblings = _CountingBounds(DenseSiblingScorer(sib_scores))
        parts = [GrandparentParts(triples), SiblingParts(siblings)]  # type: ignore[arg-type]
        result = solve_lp(s, parts, method, single_root, base)
        assert result.certified
        values[method] = result.objective
        asked = triples.calls + siblings.calls
        if method == "bf":
            assert asked == 0
            for r in result.rounds:
                assert r.families["grandparent"].priced == 0 and r.families["sibling"].priced == 0
        else:
            assert asked > 0
    assert values["bf"] == pytest.approx(values["ppc"], abs=1e-6)


def test_method_follows_the_threshold() -> None:
    assert choose_method(BF_BELOW_PARTS - 1) == "bf" and choose_method(BF_BELOW_PARTS) == "ppc"
    assert choose_method(1, "ppc") == "ppc" and choose_method(10**6, "bf") == "bf"
    with pytest.raises(ValueError, match="unknown method"):
        choose_method(5, "fast")
    def gp(n: int) -> GrandparentParts:
        return GrandparentParts(DenseTripleScorer(np.zeros((n + 1,) * 3)))

    def sib(n: int) -> SiblingParts:
        return SiblingParts(DenseSiblingScorer(np.zeros((n + 1,) * 3)))

    full = [candidate_parts(np.zeros((n + 1, n + 1)), [gp(n)]) for n in range(1, 20)]  # dense: n (n-1)²
    assert full[:4] == [0, 2, 12, 36] and all(a < b for a, b in zip(full[1:], full[2:]))
    n_switch = 1 + sum(parts < BF_BELOW_PARTS for parts in full)  # the first length PPC runs at
    for n in (3, 5, 7):  # sibling pairs of the root's n children (multi-root only) and of n - 1 per word
        dense = np.zeros((n + 1, n + 1))
        assert candidate_parts(dense, [sib(n)]) == math.comb(n, 2) + n * math.comb(n - 1, 2)
        assert candidate_parts(dense, [sib(n)], single_root=True) == n * math.comb(n - 1, 2)
        both = candidate_parts(dense, [gp(n), sib(n)])
        assert both == n * (n - 1) ** 2 + candidate_parts(dense, [sib(n)])
    for n in (n_switch - 1, n_switch):
        rng = np.random.default_rng(n)
        gold = np.r_[-1, rng.integers(0, np.arange(1, n + 1))]
        s, scorer = noisy_gold_scores(gold, rng=rng), synthetic_triple_scorer(n, rng)
        decoded = decode("auto", s, scorer, False, preset="all")
        assert decoded.stats["method"] == ("bf" if n < n_switch else "ppc") and decoded.stats["certified"]
        bf = decode("bf", s, scorer, False).stats["lp_objective"]
        assert decoded.stats["lp_objective"] == pytest.approx(bf, abs=1e-6)
