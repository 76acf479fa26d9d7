"""The column-and-row generation engine (lpparse.colgen) with the grandparent and sibling part families
(lpparse.families), against brute force written here: each family alone and both together, PPC = BF and
certified on the full program, an integral PPC tree is the brute-force optimum, zero sibling scores give the
grandparent-only result, and the time limit is honoured; cycle-cut row generation on the same engine."""

from __future__ import annotations

import time

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_siblings import instances as dense_instances

from lpparse.colgen import ColgenOptions, PartFamily
from lpparse.colgen.engine import Engine
from lpparse.colgen.options import DEFAULT_MASTER, DEGENERATE_MASTER, MasterSettings
from lpparse.colgen.purge import Purge
from lpparse.families.base import Binding
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.families.grandparent.rows import arc_program
from lpparse.families.sibling.family import SiblingParts
from lpparse.formulations.arborescence import solve_cycle_cuts
from lpparse.lp import Status
from lpparse.oracles.brute_force import brute_force
from lpparse.oracles.chu_liu_edmonds import chu_liu_edmonds
from lpparse.ppc import PPCResult, certify_full, parse_price_cut, solve_bf, solve_lp
from lpparse.scores import noisy_gold_scores, random_scores
from lpparse.trees import is_tree
from lpparse.triples import (
    DenseSiblingScorer,
    DenseTripleScorer,
    synthetic_sibling_scorer,
    synthetic_triple_scorer,
    tree_siblings,
)

SETTINGS = settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
TOL = 1e-6
PARTS = ("grandparent", "sibling", "both")


@st.composite
def instances(
    draw: st.DrawFn, max_n: int = 6
) -> tuple[np.ndarray, DenseTripleScorer, DenseSiblingScorer, bool]:
    """The sibling tests' instances (n = 2..max_n, some arcs pruned, every score distribution) as counted
    scorers whose bounds are exact or loosened by U(0, 0.5)."""
    s, gp, sib, single_root = draw(dense_instances(max_n))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    slack = draw(st.sampled_from([0.0, 0.5]))
    size = s.shape[0]
    loose = [rng.uniform(0.0, slack, (size, size)) for _ in range(3)]
    return s, DenseTripleScorer(gp, *loose[:2]), DenseSiblingScorer(sib, loose[2]), single_root


def _scorers(
    parts: str, gp: DenseTripleScorer, sib: DenseSiblingScorer
) -> tuple[DenseTripleScorer | None, DenseSiblingScorer | None]:
    """Fresh counted scorers of the chosen parts (the bounds' slack kept)."""
    triples = DenseTripleScorer(gp.scores, gp.slack_gp, gp.slack_pc) if parts != "sibling" else None
    sibs = DenseSiblingScorer(sib.scores, sib.slack) if parts != "grandparent" else None
    return triples, sibs


def check_against_bf(
    s: np.ndarray,
    gp: DenseTripleScorer,
    sib: DenseSiblingScorer,
    single_root: bool,
    parts: str,
    preset: str = "all",
    sibling_preset: str = "martins",
    **kw: object,
) -> tuple[PPCResult, PPCResult]:
    """PPC = BF, both certified, PPC's solution certified on BF's full program (extension by zeros plus the
    duals of absent GPArc/SibArc rows), and no more parts scored than BF."""
    triples, sibs = _scorers(parts, gp, sib)
    result = parse_price_cut(
        s,
        triples,
        preset,
        single_root,
        sibling_scorer=sibs,
        sibling_preset=sibling_preset,
        **kw,  # type: ignore[arg-type]
    )
    bf_triples, bf_sibs = _scorers(parts, gp, sib)
    bf = solve_bf(s, bf_triples, preset, single_root, sibling_scorer=bf_sibs, sibling_preset=sibling_preset)
    assert bf.certified
    assert result.certified, (parts, preset, sibling_preset, result.status, result.certificate)
    assert result.objective == pytest.approx(bf.objective, abs=TOL)
    cert = certify_full(
        bf.program.lp, result.program.lp, result.solution.x, result.row_dual, outside=result.outside_duals()
    )
    assert cert.ok, (parts, preset, sibling_preset, str(cert))
    if sibs is not None:
        sib = result.counts["sibling"]
        assert sib.added == result.families["sibling"].sibs.num_siblings <= sib.scored
        assert sib.scored <= sib.candidates
        assert sib.candidates == bf.counts["sibling"].candidates
        assert result.rounds[-1].families["sibling"].priced == result.rounds[-1].families["sibling"].cut == 0
    if triples is not None:
        gp, gp_bf = result.counts["grandparent"], bf.counts["grandparent"]
        assert gp.added <= gp.scored <= gp.candidates == gp_bf.added
    return result, bf


@pytest.mark.parametrize("parts", PARTS)
@SETTINGS
@given(instance=instances())
def test_each_family_alone_and_together_equal_bf_certified_on_the_full_lp(parts: str, instance) -> None:
    s, gp, sib, single_root = instance
    for preset, sibling_preset in (("all", "martins"), ("martins", "all")):
        result, _ = check_against_bf(s, gp, sib, single_root, parts, preset, sibling_preset)
    heads, best = brute_force(
        s,
        single_root,
        gp_scores=gp.scores if parts != "sibling" else None,
        sib_scores=sib.scores if parts != "grandparent" else None,
    )
    assert result.objective >= best - TOL  # the LP bounds every tree
    if result.integral:
        assert result.heads is not None and is_tree(result.heads, single_root)
        assert result.objective == pytest.approx(best, abs=TOL)


@settings(deadline=None, max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(instances())
def test_sibling_pricing_variants_equal_bf(instance) -> None:
    """Without tightening, with ArcGP and ArcSib rows entering with their columns (§4), without dead arcs, and
    pricing everything at once: the same optimum with both families, certified on the full LP."""
    s, gp, sib, single_root = instance
    variants = ({"tighten": False}, {"lazy_arcgp": False, "lazy_arcsib": False}, {"dead_arcs": False})
    for kw in (*variants, {"per_pair": None}):
        check_against_bf(s, gp, sib, single_root, "both", **kw)


def test_held_back_arcsib_rows_enter_when_violated() -> None:
    """Negative sibling scores: zsib wants 0, so held-back ArcSib rows bind and are cut in; every part with a
    column has its row or is counted as held back, and held back or not, PPC = BF."""
    rng = np.random.default_rng(5)
    s = random_scores(8, rng)
    sib = synthetic_sibling_scorer(8, rng, "negative")
    gp = DenseTripleScorer(np.zeros((9, 9, 9)))
    for lazy in (True, False):
        result, _ = check_against_bf(s, gp, sib, False, "sibling", lazy_arcsib=lazy)
        sibs = result.families["sibling"].sibs
        rows = result.program.lp.con_blocks.get("ArcSib")
        assert sibs.held_back_arcsib == sibs.num_siblings - (len(rows) if rows is not None else 0)
        # held back, rows entered by separation (no part is pruned: every row cut is an ArcSib row)
        assert result.stats.rows_cut > 0 if lazy else result.stats.rows_cut == sibs.held_back_arcsib == 0


@SETTINGS
@given(instances())
def test_zero_sibling_scores_give_the_grandparent_only_result(instance) -> None:
    s, gp, sib, single_root = instance
    alone = parse_price_cut(s, DenseTripleScorer(gp.scores), "all", single_root)
    for preset in ("martins", "all"):
        zero = DenseSiblingScorer(np.zeros_like(sib.scores))
        both = parse_price_cut(
            s, DenseTripleScorer(gp.scores), "all", single_root, sibling_scorer=zero, sibling_preset=preset
        )
        assert both.certified and alone.certified
        assert both.objective == pytest.approx(alone.objective, abs=TOL)
        if alone.integral and both.integral:  # continuous random scores: a unique best tree
            assert np.array_equal(alone.heads, both.heads)
        # a zero part never prices (its reduced cost is 0 with martins): only the start's and cut parts enter
        assert both.counts["sibling"].priced == 0 or preset == "all"


def test_factorized_and_per_part_bounds_spare_scoring() -> None:
    """A noisy-gold sentence and sibling model (the gold tree's parts +1, the others N(-0.5, 0.3²), as a
    trained model's): the sibling family scores under half of the parts and adds a few; per-part bounds
    (``bound_siblings``) spare more, with the same certified optimum."""

    class PerPart(DenseSiblingScorer):
        def bound_siblings(self, h: np.ndarray, m: np.ndarray, m2: np.ndarray) -> np.ndarray:
            return self.scores[h, m, m2] + 0.05

    rng = np.random.default_rng(5)
    n = 14
    gold = np.full(n + 1, -1)
    gold[1:] = rng.integers(0, np.arange(1, n + 1))
    s = noisy_gold_scores(gold, rng=rng, gold_bonus=2.0)
    cube = rng.normal(-0.5, 0.3, (n + 1,) * 3)
    cube[tree_siblings(gold)] += 1.0
    sib = DenseSiblingScorer(cube, slack=rng.uniform(0.0, 0.5, (n + 1, n + 1)))
    gp = synthetic_triple_scorer(n, rng, scale=0.3)
    result, _ = check_against_bf(s, gp, sib, False, "both")
    assert result.counts["sibling"].scored < result.counts["sibling"].candidates / 2
    assert result.counts["sibling"].added < result.counts["sibling"].candidates / 10  # slack spent on exact reduced costs
    per_part = PerPart(sib.scores, sib.slack)
    tight = parse_price_cut(s, DenseTripleScorer(gp.scores), "all", sibling_scorer=per_part)
    assert tight.certified and tight.objective == pytest.approx(result.objective, abs=TOL)
    assert tight.counts["sibling"].scored <= result.counts["sibling"].scored


def test_lying_sibling_bounds_are_caught_by_the_full_certificate() -> None:
    class Lying(DenseSiblingScorer):
        def bound_hm(self) -> np.ndarray:
            return super().bound_hm() - 100.0

    rng = np.random.default_rng(0)
    n = 6
    s = random_scores(n, rng)
    sib = synthetic_sibling_scorer(n, rng, "positive").scores
    result = parse_price_cut(s, None, sibling_scorer=Lying(sib))
    bf = solve_bf(s, None, sibling_scorer=DenseSiblingScorer(sib))
    assert result.objective < bf.objective - 1e-3
    assert not certify_full(bf.program.lp, result.program.lp, result.solution.x, result.row_dual).ok


def test_engine_api_options_trace_and_errors() -> None:
    """``solve_lp`` over a list of families = the keyword wrapper; counts per family by name; the engine's
    per-family rounds add up to the counts; a run needs a family; families are PartFamily and need
    distinct names."""
    rng = np.random.default_rng(2)
    n = 8
    s = random_scores(n, rng)
    gp = synthetic_triple_scorer(n, rng)
    sib = synthetic_sibling_scorer(n, rng)
    sibs = DenseSiblingScorer(sib.scores)
    parts = [GrandparentParts(DenseTripleScorer(gp.scores), per_pair=3), SiblingParts(sibs, "all")]
    a = solve_lp(s, parts, "ppc")
    b = parse_price_cut(
        s,
        DenseTripleScorer(gp.scores),
        "all",
        per_pair=3,
        sibling_scorer=DenseSiblingScorer(sib.scores),
        sibling_preset="all",
    )
    assert a.certified and b.certified and a.objective == b.objective
    assert [r.objective for r in a.rounds] == [r.objective for r in b.rounds]
    assert len(a.rounds) == a.stats.iterations
    assert set(a.counts) == {"grandparent", "sibling"} and set(a.families) == set(a.counts)
    assert a.stats.scored == a.counts["sibling"].scored + a.counts["grandparent"].scored
    last = a.rounds[-1]
    for name in ("grandparent", "sibling"):
        assert last.families[name].added == a.counts[name].added and last.families[name].scored == a.counts[name].scored
        assert a.counts[name].priced == sum(r.families[name].priced for r in a.rounds)
    assert last.max_reduced_cost == a.info["max_reduced_cost"]
    d = a.reduced_costs()
    assert d.max() <= 1e-6 and np.abs(d @ a.solution.x) <= 1e-6  # dual feasible, complementary
    with pytest.raises(ValueError, match="triple scorer, a sibling scorer or both"):
        parse_price_cut(s, None)
    with pytest.raises(ValueError, match="at least one part family"):
        solve_lp(s, [])
    with pytest.raises(ValueError, match="names must differ"):
        solve_lp(s, [parts[0], parts[0]])
    with pytest.raises(TypeError, match="not a part family"):
        solve_lp(s, [gp.scores])  # type: ignore[list-item]
    with pytest.raises(ValueError, match="unknown init"):
        GrandparentParts(gp, init="nope")
    with pytest.raises(ValueError, match="release must be > 0"):
        GrandparentParts(gp, release=0.0)
    prog = arc_program(s)
    tree = chu_liu_edmonds(s)
    binding = Binding(prog, s, tree, ColgenOptions())
    family = parts[0].bind(binding)
    assert isinstance(family, PartFamily)
    assert isinstance(parts[1].bind(binding), PartFamily)
    with pytest.raises(ValueError, match="names must differ"):
        Engine(prog.lp, [family, family])
    # how the master re-solves: a family with a degenerate master asks for HiGHS's defaults, options override
    fresh = arc_program(s)
    bound = Binding(fresh, s, tree, ColgenOptions())
    triples, sibling = parts[0].bind(bound), parts[1].bind(bound)
    assert Engine(fresh.lp, [triples]).settings == DEFAULT_MASTER
    assert Engine(fresh.lp, [triples, sibling]).settings == DEGENERATE_MASTER
    forced = ColgenOptions(master=DEFAULT_MASTER)
    assert Engine(fresh.lp, [triples, sibling], forced).settings == DEFAULT_MASTER
    c = solve_lp(s, parts, "ppc", options=forced)
    assert c.certified and c.objective == pytest.approx(a.objective, abs=1e-7)  # settings change speed only


def test_stalled_sibling_masters_go_on_by_the_dual_simplex(monkeypatch: pytest.MonkeyPatch) -> None:
    """The sibling family's degenerate master keeps HiGHS's bound perturbation on its primal re-solves and,
    once one passes its stall limit (here 1 iteration), goes on by the dual simplex for the rest of the run:
    the same optimum as brute force, certified on the full LP."""
    stalled = 0
    for seed in range(3):
        rng = np.random.default_rng(seed)
        n = 8
        s = random_scores(n, rng)
        gp, sib = synthetic_triple_scorer(n, rng), synthetic_sibling_scorer(n, rng)
        sibs = DenseSiblingScorer(sib.scores)
        with monkeypatch.context() as patch:
            patch.setattr("lpparse.colgen.engine.DEGENERATE_MASTER", MasterSettings(0.0, {}, Purge(), True))
            result, _ = check_against_bf(s, DenseTripleScorer(gp.scores), sibs, False, "both")
            kept = solve_lp(s, [SiblingParts(sibs)], "ppc", keep_master=True)
        assert kept.certified and kept.master is not None
        assert kept.master.highs.getOptionValue("primal_simplex_bound_perturbation_multiplier")[1] == 1.0
        stalled += result.info["stalled"] + kept.info["stalled"]
    assert stalled > 0


def test_families_price_by_priority_then_as_listed() -> None:
    """The sibling family (``pricing_priority`` -1) prices before the grandparent family (none: 0) in every
    round, listed first or last, and so spends the arcs' slack first; a family given a lower priority goes
    first instead; rounds and counts stay by name, and every order reaches the same certified optimum."""
    rng = np.random.default_rng(5)
    n = 9
    s = random_scores(n, rng)
    gp, sib = synthetic_triple_scorer(n, rng), synthetic_sibling_scorer(n, rng)

    def run(order: tuple[str, ...], first: str | None = None) -> tuple[list[str], float]:
        prog = arc_program(s)
        tree = chu_liu_edmonds(s)
        binding = Binding(prog, s, tree, ColgenOptions())
        bound = {
            "grandparent": GrandparentParts(DenseTripleScorer(gp.scores)).bind(binding),
            "sibling": SiblingParts(DenseSiblingScorer(sib.scores)).bind(binding),
        }
        calls: list[str] = []
        for name, family in bound.items():
            family.tree = tree
            family.price = lambda state, f=family, price=family.price: calls.append(f.name) or price(state)
            if name == first:
                family.pricing_priority = -2
        engine = Engine(prog.lp, [bound[name] for name in order])
        result = engine.run()
        assert result.status is Status.OPTIMAL and result.certificate is not None and result.certificate.ok
        assert list(result.trace[-1].families) == list(order)
        assert len(calls) == 2 * len(result.trace)
        return calls, result.solution.objective

    calls, objective = run(("grandparent", "sibling"))
    assert calls[:2] == ["sibling", "grandparent"] and len(set(zip(calls[::2], calls[1::2]))) == 1
    calls_b, objective_b = run(("sibling", "grandparent"))
    assert set(zip(calls_b[::2], calls_b[1::2])) == {("sibling", "grandparent")}
    calls_c, objective_c = run(("grandparent", "sibling"), first="grandparent")
    assert set(zip(calls_c[::2], calls_c[1::2])) == {("grandparent", "sibling")}
    assert objective == pytest.approx(objective_b, abs=1e-7) and objective == pytest.approx(objective_c, abs=1e-7)


@pytest.mark.parametrize(
    ("n", "limit", "siblings", "preset", "base"),
    [
        (40, 0.3, False, "all", "single-flow"),
        (40, 0.6, True, "all", "single-flow"),
        (20, 1.0, False, "martins", "multi-flow"),
    ],
)
def test_time_limit_is_honoured_within_ten_percent(
    n: int, limit: float, siblings: bool, preset: str, base: str
) -> None:
    """A run that cannot finish in time stops at the limit: within 10% of it (plus 0.05 s), not earlier
    than 90% of it (HiGHS's time limit is cumulative over the model's solves: HighsModel.set_deadline)."""
    s, gp = random_scores(n, 1), synthetic_triple_scorer(n, 1)
    sib = synthetic_sibling_scorer(n, 2) if siblings else None
    start = time.perf_counter()
    result = parse_price_cut(s, gp, preset, base=base, time_limit=limit, sibling_scorer=sib)
    elapsed = time.perf_counter() - start
    assert result.status is Status.TIME_LIMIT and not result.certified
    assert 0.9 * limit - 0.05 <= elapsed <= 1.1 * limit + 0.05, elapsed


@pytest.mark.parametrize("view", ["highs", "pyomo"])
def test_cycle_cuts_run_on_the_engine(view: str) -> None:
    """Riedel & Clarke's row generation is the engine with one separating family: its LP (and ILP) value is
    the best tree's (Chu-Liu-Edmonds), certified, with the rounds counted; a run out of rounds says so."""
    needed = 0
    for seed in range(6):
        s = random_scores(7, seed)
        tree = chu_liu_edmonds(s)
        best = float(s[tree[1:], np.arange(1, 8)].sum())
        for mip in (False, True):
            sol = solve_cycle_cuts(s, mip=mip, view=view)
            assert sol.certified and sol.objective == pytest.approx(best, abs=TOL)
            assert sol.info["rounds"] >= (sol.info["cuts"] > 0)
        if sol.info["rounds"] > 0:
            needed += 1
            stopped = solve_cycle_cuts(s, view=view, max_rounds=0)
            assert stopped.status is Status.ITERATION_LIMIT and not stopped.certified
    assert needed > 0
