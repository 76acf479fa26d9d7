"""BP training objectives, MBR decoding and the ``bp`` decoder (Gormley, Dredze & Eisner 2015 §3–4, §6;
BP reading note §5 items 23–31)."""

from __future__ import annotations

import numpy as np
import pytest

from lpparse.bp import bp_marginals, factor_graph, tree_marginals
from lpparse.bp.decoder import bp_decode, mbr_decode
from lpparse.bp.objectives import annealed_risk, cll_surrogate, objective_gradients, temperature
from lpparse.decoding import decode
from lpparse.oracles import all_trees, brute_force, grandparent_eisner
from lpparse.trees import allowed_arcs, is_projective
from lpparse.triples import DenseTripleScorer

MODES = [(p, r) for p in (True, False) for r in (False, True)]


def _model(seed: int, n: int, prune: float = 0.0):
    rng = np.random.default_rng(seed)
    s = rng.normal(size=(n + 1, n + 1))
    s[rng.random(s.shape) < prune] = -np.inf
    s[np.arange(n), np.arange(1, n + 1)] = rng.normal(size=n)
    return s, rng.normal(size=(n + 1,) * 3), rng.normal(size=(n + 1,) * 3)


def _gold(n: int, single_root: bool, projective: bool, seed: int):
    trees = all_trees(n, single_root, projective)
    return trees[np.random.default_rng(seed).integers(len(trees))].copy()


@pytest.mark.parametrize("projective,single_root", MODES)
@pytest.mark.parametrize("objective", ["l2", "ar"])
def test_objective_gradients_match_finite_differences(objective, projective, single_root):
    n = 4
    s, gp, sib = _model(11, n, prune=0.1)
    gold = np.array([-1, 0, 1, 2, 3]) if single_root else np.array([-1, 0, 1, 0, 3])
    kw = {"iterations": 2, "damping": 0.2, "temperature": 0.3}

    def run(*scores: np.ndarray) -> tuple:
        return objective_gradients(objective, gold, factor_graph(*scores, single_root, projective), **kw)

    _, grads, _ = run(s, gp, sib)
    rng = np.random.default_rng(0)
    h = 1e-6
    for which, array, grad in ((0, s, grads.arc), (1, gp, grads.grandparent), (2, sib, grads.sibling)):
        nonzero = np.argwhere(grad != 0)
        for idx in map(tuple, nonzero[rng.choice(len(nonzero), 6, replace=False)]):
            args_p, args_m = [s, gp, sib], [s, gp, sib]
            args_p[which], args_m[which] = array.copy(), array.copy()
            args_p[which][idx] += h
            args_m[which][idx] -= h
            fd = (run(*args_p)[0] - run(*args_m)[0]) / (2 * h)
            assert grad[idx] == pytest.approx(fd, abs=1e-6), (which, idx)


@pytest.mark.parametrize("projective,single_root", MODES)
def test_cll_is_exact_on_a_first_order_graph(projective, single_root):
    s, _, _ = _model(12, 5)
    gold = _gold(5, single_root, projective, 0)
    loss, grads = cll_surrogate(
        bp_marginals(s, single_root=single_root, projective=projective, iterations=1), gold
    )
    log_z, mu = tree_marginals(s, single_root, projective)
    indicator = np.zeros_like(s)
    indicator[gold[1:], np.arange(1, 6)] = 1
    assert loss == pytest.approx(log_z - (s * indicator).sum(), abs=1e-9)
    assert np.allclose(grads.arc, mu - indicator)


def test_cll_surrogate_gradient_is_the_bethe_gradient_at_a_fixed_point():
    """At a BP fixed point ∂ log Z_Bethe / ∂s_α = b_α(ON, ON): the surrogate gradient is exact for the Bethe
    approximation (Wainwright 2006)."""
    s, gp, sib = _model(13, 4)
    gp *= 0.5
    gold = np.array([-1, 0, 1, 2, 2])
    r = bp_marginals(s, gp, sib, iterations=60)
    assert r.residuals[-1] < 1e-10
    _, grads = cll_surrogate(r, gold)
    h = 1e-5
    for which, idx in ((0, (1, 3)), (1, (0, 1, 2)), (1, (1, 2, 4)), (1, (2, 3, 4)), (2, (1, 2, 3))):
        args_p, args_m = [s.copy(), gp.copy(), sib.copy()], [s.copy(), gp.copy(), sib.copy()]
        args_p[which][idx] += h
        args_m[which][idx] -= h
        fd = (
            bp_marginals(*args_p, iterations=60).log_z_bethe
            - bp_marginals(*args_m, iterations=60).log_z_bethe
        ) / (2 * h)
        gold_part = [grads.arc, grads.grandparent, grads.sibling][which][idx]
        indicator = 1.0 if (which, idx) in ((1, (0, 1, 2)), (1, (1, 2, 4))) else 0.0
        assert gold_part + indicator == pytest.approx(fd, abs=1e-6)


def test_cll_rejects_a_pruned_gold_arc():
    s, _, _ = _model(14, 3)
    s[0, 1] = -np.inf
    with pytest.raises(ValueError, match="pruned"):
        cll_surrogate(bp_marginals(s, iterations=1), np.array([-1, 0, 1, 2]))


def test_annealed_risk_tends_to_minus_mbr_recall():
    """BP reading note §5 item 26: R^{1/T} → −|MBR ∩ gold| as T → 0."""
    s, gp, _ = _model(15, 5)
    r = bp_marginals(s, gp, iterations=4)
    gold = np.array([-1, 0, 1, 2, 3, 4])
    mbr, _ = mbr_decode(r.marginals, r.graph.arc_mask, projective=True)
    hits = int((mbr[1:] == gold[1:]).sum())
    risks = [annealed_risk(r, gold, t)[0] for t in (1.0, 0.1, 1e-3, 1e-4)]
    assert risks[-1] == pytest.approx(-hits, abs=1e-6)
    assert abs(risks[0] + hits) > abs(risks[-1] + hits)


def test_temperature_schedule_is_linear_from_0_1_to_1e_4():
    assert temperature(0, 11) == pytest.approx(0.1)
    assert temperature(10, 11) == pytest.approx(1e-4)
    assert temperature(5, 11) == pytest.approx((0.1 + 1e-4) / 2)


@pytest.mark.parametrize("projective,single_root", MODES)
def test_mbr_maximizes_expected_recall_by_brute_force(projective, single_root):
    s, gp, _ = _model(16, 5, prune=0.2)
    r = bp_marginals(s, gp, single_root=single_root, projective=projective)
    heads, recall = mbr_decode(r.marginals, r.graph.arc_mask, single_root, projective)
    _, value = brute_force(np.where(r.graph.arc_mask, r.marginals, -np.inf), single_root, projective)
    assert recall == pytest.approx(value)
    assert not projective or is_projective(heads)


@pytest.mark.parametrize("projective,single_root", MODES)
def test_mbr_differs_from_the_best_tree(projective, single_root):
    """MAP ≠ MBR (BP reading note §5 item 24): among the first seeded random first-order models (n = 5) the
    first one where they differ is found; there the MBR tree has strictly higher expected recall than the MAP
    tree, which has the strictly higher score. Also the grandparent model: BP-MBR against the exact
    grandparent decoder."""
    m = np.arange(1, 6)
    for seed in range(200):
        s, gp, _ = _model(seed, 5)
        mu = tree_marginals(s, single_root, projective)[1]
        best, value = brute_force(s, single_root, projective)
        mbr, recall = mbr_decode(mu, allowed_arcs(s), single_root, projective)
        if not np.array_equal(mbr, best):
            break
    else:
        pytest.fail("no model where MBR and MAP differ")
    assert recall > mu[best[1:], m].sum() + 1e-9
    assert value > s[mbr[1:], m].sum() + 1e-9
    for seed in range(200):
        s, gp, _ = _model(seed, 5)
        exact, _ = grandparent_eisner(s, gp, single_root)
        if not np.array_equal(bp_decode(s, DenseTripleScorer(gp), single_root).heads, exact):
            return
    pytest.fail("BP-MBR always equals the grandparent MAP")


def test_bp_decoder_is_registered_and_close_to_exact_on_an_easy_model():
    rng = np.random.default_rng(17)
    n = 8
    gold = np.array([-1, 2, 0, 2, 5, 3, 5, 8, 6])
    s = rng.normal(size=(n + 1, n + 1))
    s[gold[1:], np.arange(1, n + 1)] += 4.0
    gp = 0.5 * rng.normal(size=(n + 1,) * 3)
    scorer = DenseTripleScorer(gp)
    result = decode("bp", s, scorer, single_root=True, iterations=4)
    exact, _ = grandparent_eisner(s, gp, single_root=True)
    assert list(result.heads) == list(exact)
    assert result.stats["triples_scored"] > 0
    assert bp_decode(s, scorer, True, iterations=2).heads.tolist() == result.heads.tolist()
