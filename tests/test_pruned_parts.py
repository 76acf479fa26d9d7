"""Pruned second-order parts: a grandparent triple or sibling part scored -inf while both its arcs stay
candidates. BF's LP has no column for it and forbids its two arcs together (PrunedGP / PrunedSib) under every
preset, so it bounds the best tree; parse-price-cut reaches BF's value with a certificate that holds on BF's
program; exact decoding finds the best tree by a brute force written here (or says that none is left)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lpparse.decoding import decode
from lpparse.exact.search import ExactOptions, check_records
from lpparse.exact.second_order import check_exact, parse_exact
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.families.grandparent.rows import full_grandparent_program
from lpparse.lp.highs_view import HighsModel
from lpparse.lp.pyomo_view import PyomoModel
from lpparse.lp.solution import Status, farkas_margin
from lpparse.oracles.brute_force import brute_force
from lpparse.ppc import parse_price_cut, solve_bf
from lpparse.ppc.certificate import certify_full
from lpparse.trees import NoTreeError, allowed_arcs, tree_problem
from lpparse.triples import DenseSiblingScorer, DenseTripleScorer, candidate_siblings, candidate_triples

Instance = tuple[np.ndarray, np.ndarray, np.ndarray | None, bool]


def best_tree(
    s: np.ndarray, gp: np.ndarray, sib: np.ndarray | None, single_root: bool
) -> tuple[float, np.ndarray]:
    """The best tree's score and heads by enumerating every head assignment (-inf: no tree avoids the
    pruned parts)."""
    n = s.shape[0] - 1
    m = np.arange(1, n + 1)
    heads = np.array(list(itertools.product(range(n + 1), repeat=n)), dtype=np.int64).reshape(-1, n)
    full = np.concatenate([np.zeros((len(heads), 1), np.int64), heads], axis=1)  # 0 is its own head here
    top = np.tile(np.arange(n + 1), (len(heads), 1))
    for _ in range(n):
        top = np.take_along_axis(full, top, axis=1)
    ok = (heads != m).all(axis=1) & (top == 0).all(axis=1)
    if single_root:
        ok &= (heads == 0).sum(axis=1) == 1
    full = full[ok]
    score = s[full[:, 1:], m].sum(axis=1)
    for c in m:
        p = full[:, c]
        inner = p > 0
        score[inner] += gp[full[inner][np.arange(inner.sum()), p[inner]], p[inner], c]
    if sib is not None:
        for a, b in itertools.combinations(m, 2):
            same = full[:, a] == full[:, b]
            score[same] += sib[full[same, a], a, b]
    best = int(np.argmax(score))
    full[:, 0] = -1
    return float(score[best]), full[best]


@st.composite
def pruned_instances(draw: st.DrawFn, max_n: int = 6) -> Instance:
    """n = 2..max_n, N(0,1) arc scores, some arcs pruned, a share of the triples (and of the sibling parts,
    when there are any) scored -inf."""
    n = draw(st.integers(2, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    s = rng.normal(size=(n + 1, n + 1))
    pruned = np.where(rng.random(s.shape) < draw(st.sampled_from([0.0, 0.15])), -np.inf, s)
    single_root = draw(st.booleans())
    if tree_problem(allowed_arcs(pruned), single_root) is None:  # some tree is left over the arcs
        s = pruned
    share = draw(st.sampled_from([0.1, 0.3, 0.6]))
    gp = rng.normal(size=(n + 1,) * 3)
    gp[rng.random(gp.shape) < share] = -np.inf
    sib = None
    if draw(st.booleans()):
        sib = rng.normal(size=(n + 1,) * 3)
        sib[rng.random(sib.shape) < share / 2] = -np.inf
    return s, gp, sib, single_root


def _sibs(sib: np.ndarray | None) -> DenseSiblingScorer | None:
    return None if sib is None else DenseSiblingScorer(sib)


SETTINGS = settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.parametrize("preset", ["martins", "onegp", "all"])
@SETTINGS
@given(pruned_instances())
def test_bf_bounds_the_best_tree_and_ppc_reaches_bf(preset: str, inst: Instance) -> None:
    s, gp, sib, single_root = inst
    value, _ = best_tree(s, gp, sib, single_root)
    bf = solve_bf(s, DenseTripleScorer(gp), preset, single_root, sibling_scorer=_sibs(sib))
    ppc = parse_price_cut(s, DenseTripleScorer(gp), preset, single_root, sibling_scorer=_sibs(sib))
    # BF: a pruned triple has no column but its PrunedGP row; so has a pruned sibling part
    arcs = bf.program.arc_mask
    g, p, c = candidate_triples(arcs)
    cut = np.isneginf(gp[g, p, c])
    assert np.array_equal(np.argwhere(bf.program.present), np.column_stack([g[~cut], p[~cut], c[~cut]]))
    assert np.array_equal(np.argwhere(bf.program.pruned), np.column_stack([g[cut], p[cut], c[cut]]))
    assert len(bf.program.lp.con_blocks.get("PrunedGP", ())) == cut.sum()
    assert not (ppc.program.present & np.isneginf(gp)).any()  # pricing never adds a pruned triple
    if sib is not None:
        sibs = bf.families["sibling"].sibs
        h, m, m2 = candidate_siblings(arcs, single_root)
        assert np.array_equal(sibs.pruned[h, m, m2], np.isneginf(sib[h, m, m2]))
        assert not (ppc.families["sibling"].sibs.present & np.isneginf(sib)).any()
    if bf.status is not Status.OPTIMAL:  # the LP has no point: then no tree avoids the pruned parts
        assert bf.status is Status.INFEASIBLE and value == -np.inf and ppc.status is Status.INFEASIBLE
        return
    assert bf.certified and bf.objective >= value - 1e-7
    assert ppc.certified and ppc.objective == pytest.approx(bf.objective, abs=1e-6)
    lp = ppc.program.lp
    full = certify_full(bf.program.lp, lp, ppc.solution.x, ppc.row_dual, outside=ppc.outside_duals())
    assert full.ok, full


@settings(deadline=None, max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(pruned_instances(), st.sampled_from(["all", "martins", "onegp"]))
def test_exact_equals_the_brute_force(inst: Instance, preset: str) -> None:
    s, gp, sib, single_root = inst
    value, heads = best_tree(s, gp, sib, single_root)
    if value > -np.inf:
        assert brute_force(s, single_root, gp_scores=gp, sib_scores=sib)[1] == pytest.approx(value)
    if value == -np.inf:
        with pytest.raises(NoTreeError, match="pruned part"):
            parse_exact(s, DenseTripleScorer(gp), preset, single_root, sibling_scorer=_sibs(sib))
        return
    result = parse_exact(s, DenseTripleScorer(gp), preset, single_root, sibling_scorer=_sibs(sib))
    assert result.status is Status.OPTIMAL and result.certified
    assert result.objective == pytest.approx(value, abs=1e-7)
    np.testing.assert_array_equal(result.heads, heads)  # Gaussian scores: the best tree is unique
    assert check_exact(s, DenseTripleScorer(gp), result, _sibs(sib), preset) is None


def test_no_tree_without_pruned_parts_is_an_error_though_the_lp_is_feasible() -> None:
    """Two tokens under a single root: the trees 0 -> 1 -> 2 and 0 -> 2 -> 1 each hold one triple, both
    pruned. Under ``martins`` BF's LP keeps the point z = 1/2 on every arc, so exact decoding branches and
    proves both children empty; under ``all`` OneGP leaves p -> c no grandparent, and the LP is empty."""
    s = np.zeros((3, 3))
    gp = np.zeros((3, 3, 3))
    gp[0, 1, 2] = gp[0, 2, 1] = -np.inf
    assert best_tree(s, gp, None, True)[0] == -np.inf
    with pytest.raises(NoTreeError, match="leave no tree"):
        brute_force(s, True, gp_scores=gp)
    bf = solve_bf(s, DenseTripleScorer(gp), "martins", True)
    assert bf.certified and not bf.integral
    np.testing.assert_allclose(bf.arc_values()[[0, 0, 1, 2], [1, 2, 2, 1]], 0.5)
    assert solve_bf(s, DenseTripleScorer(gp), "all", True).status is Status.INFEASIBLE
    for preset in ("martins", "all"):
        with pytest.raises(NoTreeError, match="pruned part"):
            parse_exact(s, DenseTripleScorer(gp), preset, True)
    assert parse_exact(s, DenseTripleScorer(gp), "all", False).objective == 0.0  # 0 -> 1, 0 -> 2 remains


def _infeasible_node_instance() -> tuple[np.ndarray, np.ndarray, bool]:
    """A seeded instance whose search closes a node by its LP's infeasibility (found by search)."""
    for seed in range(200):
        rng = np.random.default_rng(seed)
        n = 6
        s, gp = rng.normal(size=(n + 1, n + 1)), rng.normal(size=(n + 1,) * 3)
        gp[rng.random(gp.shape) < 0.5] = -np.inf
        if best_tree(s, gp, None, True)[0] == -np.inf:
            continue
        result = parse_exact(s, DenseTripleScorer(gp), "all", True, options=ExactOptions(fixing=False))
        if any(node.farkas is not None for node in result.nodes):
            return s, gp, True
    raise AssertionError("no instance with an infeasible node")


def test_an_infeasible_node_is_proved_by_a_dual_ray() -> None:
    s, gp, single_root = _infeasible_node_instance()
    result = parse_exact(s, DenseTripleScorer(gp), "all", single_root, options=ExactOptions(fixing=False))
    assert result.certified and result.objective == pytest.approx(best_tree(s, gp, None, single_root)[0])
    node = next(node for node in result.nodes if node.farkas is not None)
    lp, ray = node.farkas
    assert node.closed == "infeasible" and farkas_margin(lp, ray) > 0
    assert farkas_margin(lp, np.zeros_like(ray)) == 0.0  # zero proves nothing
    parts = [GrandparentParts(DenseTripleScorer(gp))]
    assert node.ray and check_records(s, parts, result) is None
    node.farkas = (lp, 0.0 * ray)
    assert "does not prove" in check_records(s, parts, result)
    node.farkas = None
    assert "a tree exists" in check_records(s, parts, result)
    assert check_exact(s, DenseTripleScorer(gp), result) is None  # the standalone check reads the labelled ray
    node.ray = {name: (index, 0.0 * values) for name, (index, values) in node.ray.items()}
    assert "without a dual ray that proves it" in check_exact(s, DenseTripleScorer(gp), result)
    node.ray = None
    assert "without a dual ray that proves it" in check_exact(s, DenseTripleScorer(gp), result)


def test_the_pruned_row_forbids_both_arcs_under_every_preset() -> None:
    """Arcs 0 -> 1 -> 2 -> 3 score 5 each, the chain 15; pruning ⟨1, 2, 3⟩ keeps both arcs 1 -> 2 and
    2 -> 3 but not together, under every preset (onegp has no ArcGP row to imply it)."""
    n = 3
    s = np.full((n + 1, n + 1), -1.0)
    s[0, 1] = s[1, 2] = s[2, 3] = 5.0
    gp = np.zeros((n + 1,) * 3)
    gp[1, 2, 3] = -np.inf
    value, heads = best_tree(s, gp, None, False)
    assert value == 9.0 and not (heads[2] == 1 and heads[3] == 2)
    for preset in ("martins", "onegp", "all"):
        prog = full_grandparent_program(s, gp, preset)
        assert prog.triple_cols(1, 2, 3)[0] == -1 and prog.pruned[1, 2, 3]
        sol = HighsModel(prog.lp).solve()
        z = prog.arc_values(sol.x)
        assert z[1, 2] + z[2, 3] <= 1.0 + 1e-9 and sol.objective >= value - 1e-9
        assert sol.objective < 15.0 - 1e-6  # the chain's value
    with pytest.raises(ValueError, match=r"NaN or \+inf"):
        full_grandparent_program(s, np.where(gp == -np.inf, np.inf, gp))


def test_pyomo_view_holds_the_pruned_rows() -> None:
    n = 4
    rng = np.random.default_rng(3)
    s, gp = rng.normal(size=(n + 1, n + 1)), rng.normal(size=(n + 1,) * 3)
    gp[rng.random(gp.shape) < 0.4] = -np.inf
    prog = full_grandparent_program(s, gp, "onegp")
    highs = HighsModel(prog.lp).solve()
    pyomo = PyomoModel(prog.lp)
    pyomo_sol = pyomo.solve()
    assert "PrunedGP" in prog.lp.con_blocks and hasattr(pyomo.model, "PrunedGP")
    assert pyomo_sol.objective == pytest.approx(highs.objective, abs=1e-6)


def test_lp_decoders_never_return_a_tree_with_a_pruned_part() -> None:
    """A fractional LP optimum may round to a tree holding a pruned part; the decoders then decode exactly,
    and the tree is the brute-force best (or NoTreeError when none is left)."""
    fallbacks = 0
    for seed in range(30):
        rng = np.random.default_rng(seed)
        n = int(rng.integers(4, 6))
        s = rng.normal(size=(n + 1, n + 1))
        gp = 2 * rng.normal(size=(n + 1,) * 3)
        gp[rng.random(gp.shape) < 0.3] = -np.inf
        sib = rng.normal(size=(n + 1,) * 3) if seed % 2 else None
        value, _ = best_tree(s, gp, sib, False)
        if not np.isfinite(value):
            with pytest.raises(NoTreeError):
                decode("ppc", s, DenseTripleScorer(gp), False, _sibs(sib))
            continue
        for decoder in ("ppc", "bf"):
            result = decode(decoder, s, DenseTripleScorer(gp), False, _sibs(sib))
            assert np.isfinite(result.objective) and result.objective <= value + 1e-6
            if result.stats.get("rounded_to_pruned_part"):
                fallbacks += 1
                assert result.objective == pytest.approx(value, abs=1e-6) and result.stats["exact_certified"]
    assert fallbacks >= 5  # the path is exercised (measured: about a quarter of these instances)
