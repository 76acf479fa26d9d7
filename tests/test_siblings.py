"""Arbitrary-sibling parts (Martins, Smith & Xing 2009): candidates, the dense scorer's bounds, the sibling
polytope's rows on every tree, brute-force LPs against enumeration, BP against exact marginals."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from unittest import mock

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lpparse.bp import bp_marginals, brute_force_second_order, tree_marginals
from lpparse.cli import main
from lpparse.corpus import read_treebank, sample_treebank_path
from lpparse.decoding import decode
from lpparse.families.sibling.rows import SIBLING_FAMILIES, SIBLING_PRESETS, sibling_program
from lpparse.formulations.arborescence import FORMULATIONS
from lpparse.lp.pyomo_view import to_pyomo
from lpparse.lp.views import make_model
from lpparse.oracles import all_trees, brute_force
from lpparse.oracles.brute_force import second_order_tree_scores
from lpparse.parsing import evaluate
from lpparse.parsing import parse as parse_model
from lpparse.ppc import solve_bf
from lpparse.scores import random_scores
from lpparse.scoring import SIBLING_TEMPLATES, Model, Vocabulary
from lpparse.training import (
    SiblingTable,
    TrainConfig,
    TripleTable,
    bp_gp_marginals,
    exact_gp_marginals,
    train,
)
from lpparse.trees import NoTreeError, allowed_arcs, allowed_mask_shape, check_tree_exists
from lpparse.triples import (
    GP_DISTRIBUTIONS,
    DenseSiblingScorer,
    DenseTripleScorer,
    SiblingScorer,
    TripleScorer,
    candidate_siblings,
    synthetic_sibling_scorer,
    synthetic_triple_scorer,
    tree_siblings,
)

SETTINGS = settings(deadline=None, max_examples=40, suppress_health_check=[HealthCheck.too_slow])
TOL = 1e-6


@st.composite
def instances(draw: st.DrawFn, max_n: int = 6) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """(arc scores, triple scores, sibling scores, single_root): n = 2..max_n, some arcs pruned."""
    n = draw(st.integers(2, max_n))
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    dist = draw(st.sampled_from(GP_DISTRIBUTIONS))
    single_root = draw(st.booleans())
    s = random_scores(n, rng)
    pruned = np.where(rng.random(s.shape) < draw(st.sampled_from([0.0, 0.3])), -np.inf, s)
    try:
        check_tree_exists(pruned, single_root)
        s = pruned
    except NoTreeError:
        pass
    gp = synthetic_triple_scorer(n, rng, dist).scores
    return s, gp, synthetic_sibling_scorer(n, rng, dist).scores, single_root


def _bf(s, gp, sib, single_root, **kw):
    result = solve_bf(
        s,
        None if gp is None else DenseTripleScorer(gp),
        single_root=single_root,
        sibling_scorer=None if sib is None else DenseSiblingScorer(sib),
        **kw,
    )
    assert result.certified, result.status
    return result


# ------------------------------------------------------------------------------------ parts and scorers


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 6), seed=st.integers(0, 2**32 - 1), prune=st.floats(0.0, 0.6), single_root=st.booleans())
def test_candidate_and_tree_siblings_match_definition(n: int, seed: int, prune: float, single_root: bool) -> None:
    rng = np.random.default_rng(seed)
    scores = random_scores(n, rng)
    scores[rng.random(scores.shape) < prune] = -np.inf
    arcs = allowed_arcs(scores)
    expected = [
        (h, m, m2)
        for h, m, m2 in itertools.product(range(n + 1), repeat=3)
        if 0 < m < m2 and arcs[h, m] and arcs[h, m2] and not (single_root and h == 0)
    ]
    assert list(zip(*(a.tolist() for a in candidate_siblings(arcs, single_root)))) == expected
    heads = all_trees(n)[rng.integers(len(all_trees(n)))]
    pairs = [(heads[m], m, m2) for m in range(1, n + 1) for m2 in range(m + 1, n + 1) if heads[m] == heads[m2]]
    assert list(zip(*(a.tolist() for a in tree_siblings(heads)))) == pairs


@pytest.mark.parametrize("distribution", GP_DISTRIBUTIONS)
def test_dense_sibling_bounds_are_valid_exact_and_scoring_is_counted(distribution: str) -> None:
    n = 6
    exact = DenseSiblingScorer(synthetic_sibling_scorer(n, 3, distribution).scores)
    loose = synthetic_sibling_scorer(n, 3, distribution)
    assert isinstance(exact, SiblingScorer) and not isinstance(exact, TripleScorer)
    h, m, m2 = candidate_siblings(allowed_mask_shape(n + 1))
    values = exact.score(h, m, m2)
    assert exact.scored == h.size and loose.scored == 0
    best = np.full((n + 1, n + 1), -np.inf)  # max over partners on either side, by a plain loop
    for hh, a, b, v in zip(h, m, m2, values):
        best[hh, a] = max(best[hh, a], v)
        best[hh, b] = max(best[hh, b], v)
    used = np.isfinite(best)
    assert np.array_equal(exact.bound_hm()[used], best[used])  # exact
    assert (loose.bound_hm()[used] >= best[used]).all()  # valid
    assert (np.minimum(exact.bound_hm()[h, m], exact.bound_hm()[h, m2]) >= values).all()
    with pytest.raises(ValueError, match="not a sibling part"):
        exact.score([1], [3], [2])
    with pytest.raises(ValueError, match="NaN"):
        DenseSiblingScorer(np.full((3, 3, 3), np.nan))


# ------------------------------------------------------------------------------------------ the polytope


@pytest.mark.parametrize("single_root", [False, True])
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_sibling_rows_hold_on_every_tree(n: int, single_root: bool) -> None:
    """Every tree, with zsib its sibling pairs, satisfies ArcSib, SibArc and SibClique (the SibClique rows at
    equality for some tree, so they are not loose)."""
    s = np.zeros((n + 1, n + 1))
    lp = FORMULATIONS["single-flow"](s, single_root)
    prog = sibling_program(lp, SIBLING_FAMILIES)
    h, m, m2 = prog.candidates()
    prog.add_siblings(h, m, m2, np.zeros(h.size))
    trees = all_trees(n, single_root)
    x = np.zeros((len(trees), lp.num_cols))
    heads = trees[:, 1:]
    x[np.arange(len(trees))[:, None], prog.z_col[heads, np.arange(1, n + 1)]] = 1.0
    x[:, prog.sibling_cols(h, m, m2)] = (trees[:, m] == h) & (trees[:, m2] == h)
    for block in SIBLING_FAMILIES:
        if block not in lp.con_blocks:
            continue
        rows = lp.rows(block)
        ax = lp.A[rows] @ x.T
        assert (ax <= lp.row_upper[rows, None] + TOL).all() and (ax >= lp.row_lower[rows, None] - TOL).all(), block
        if block == "SibClique":
            assert np.isclose(ax, lp.row_upper[rows, None]).any(axis=1).all()


def test_clique_rows_cut_off_the_half_point() -> None:
    """Three children at z = 1/2 with zsib = 0 satisfy ArcSib and SibArc but not SibClique[h, 1]."""
    n = 4
    lp = FORMULATIONS["single-flow"](np.zeros((n + 1, n + 1)), False)
    prog = sibling_program(lp, "all")
    h, m, m2 = prog.candidates()
    prog.add_siblings(h, m, m2, np.zeros(h.size))
    x = np.zeros(lp.num_cols)
    x[prog.z_col[1, [2, 3, 4]]] = 0.5
    ax = lp.A @ x
    for block, ok in (("ArcSib", True), ("SibArc", True), ("SibClique", False)):
        rows = lp.rows(block)
        holds = (ax[rows] <= lp.row_upper[rows] + TOL).all() and (ax[rows] >= lp.row_lower[rows] - TOL).all()
        assert holds == ok, block


def test_sibling_program_in_both_views_with_paper_names() -> None:
    n = 4
    rng = np.random.default_rng(7)
    s, sib = random_scores(n, rng), synthetic_sibling_scorer(n, rng).scores
    result = _bf(s, None, sib, False, sibling_preset="all")
    lp = result.program.lp
    assert {"ArcSib", "SibArc", "SibClique"} <= set(lp.con_blocks) and "zsib" in lp.var_blocks
    assert "ArcGP" not in lp.con_blocks and "OneGP" not in lp.con_blocks
    pyomo = make_model(lp, view="pyomo").solve()
    assert pyomo.certified and pyomo.objective == pytest.approx(result.objective, abs=TOL)
    names = {c.name for c in to_pyomo(lp).component_objects()}
    assert {"zsib", "ArcSib", "SibArc", "SibClique"} <= names
    prog = result.families["sibling"].sibs
    with pytest.raises(ValueError, match="added twice"):
        prog.add_siblings([1], [2], [3], [0.0])


# ------------------------------------------------------------------------------ brute force against trees


@SETTINGS
@given(instances())
def test_bf_lp_bounds_the_best_tree_and_integral_is_optimal(instance) -> None:
    s, gp, sib, single_root = instance
    for g, b in ((None, sib), (gp, None), (gp, sib)):
        heads, best = brute_force(s, single_root, gp_scores=g, sib_scores=b)
        for preset in SIBLING_PRESETS:
            result = _bf(s, g, b, single_root, sibling_preset=preset)
            assert result.objective >= best - TOL
            if result.integral:
                assert result.objective == pytest.approx(best, abs=TOL)
                assert np.array_equal(result.heads, heads)


@SETTINGS
@given(instances(max_n=5))
def test_sibling_ilp_is_the_best_tree_and_clique_never_loosens(instance) -> None:
    s, gp, sib, single_root = instance
    _, best = brute_force(s, single_root, gp_scores=gp, sib_scores=sib)
    values = {}
    for preset in SIBLING_PRESETS:
        result = _bf(s, gp, sib, single_root, sibling_preset=preset)
        values[preset] = result.objective
        mip = make_model(result.program.lp, mip=True).solve()
        assert mip.objective == pytest.approx(best, abs=TOL)
    assert values["all"] <= values["martins"] + TOL


@SETTINGS
@given(instances())
def test_zero_sibling_scores_give_the_grandparent_only_result(instance) -> None:
    s, gp, sib, single_root = instance
    alone = _bf(s, gp, None, single_root)
    for preset in SIBLING_PRESETS:
        both = _bf(s, gp, np.zeros_like(sib), single_root, sibling_preset=preset)
        assert both.objective == pytest.approx(alone.objective, abs=TOL)
        assert both.integral == alone.integral
        if alone.integral:
            assert np.array_equal(both.heads, alone.heads)
    assert both.counts["sibling"].scored == both.counts["sibling"].candidates == both.families["sibling"].sibs.num_siblings
    assert both.counts["grandparent"].scored == both.counts["grandparent"].candidates == alone.counts["grandparent"].candidates


def test_solve_bf_needs_a_scorer_of_the_right_length() -> None:
    s = random_scores(4, 0)
    with pytest.raises(ValueError, match="need a triple scorer, a sibling scorer or both"):
        solve_bf(s, None)
    with pytest.raises(ValueError, match="sibling scorer is for n=3"):
        solve_bf(s, None, sibling_scorer=synthetic_sibling_scorer(3, 0))


# ------------------------------------------------------------------------------------------------- BP


@pytest.mark.parametrize("single_root", [False, True])
@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_bp_with_sibling_factors_stays_close_to_brute_force(n: int, single_root: bool) -> None:
    """Loopy: each head's sibling factors form a complete graph over its arcs, closed through the tree
    factor. Measured on 40 seeds per n (n = 2..5, sibling scores N(0, 0.5²), 8 iterations): max |b - p| <=
    0.12; here 10 seeds, tolerance 0.15, and BP must beat ignoring the siblings on average. With a single
    root, the factor graph has no root siblings (they never fire on a tree, and used to bias BP)."""
    bp_err, first_err = [], []
    for seed in range(10):
        rng = np.random.default_rng(seed)
        s = random_scores(n, rng)
        sib = 0.5 * rng.normal(size=(n + 1,) * 3)
        _, exact = brute_force_second_order(s, None, sib, single_root, projective=False)
        beliefs = bp_marginals(s, None, sib, single_root, projective=False, iterations=8).marginals
        bp_err.append(np.abs(beliefs - exact).max())
        first_err.append(np.abs(tree_marginals(s, single_root, False)[1] - exact).max())
    assert max(bp_err) <= 0.15
    assert np.mean(bp_err) <= np.mean(first_err) + 1e-12  # equal (exact) at n = 2 with a single root


@pytest.mark.parametrize("single_root", [False, True])
def test_bp_is_exact_when_every_sibling_factor_touches_a_forced_arc(single_root: bool) -> None:
    """Token 1 can only take head 2, and only the parts ⟨2, 1, m'⟩ score: each factor acts as a unary factor
    on 2→m', so BP is exact from the second iteration on."""
    n = 5
    rng = np.random.default_rng(0)
    s = random_scores(n, rng)
    s[np.arange(n + 1) != 2, 1] = -np.inf
    sib = np.zeros((n + 1,) * 3)
    sib[2, 1, 3:] = rng.normal(size=n - 2)
    _, exact = brute_force_second_order(s, None, sib, single_root, projective=False)
    beliefs = bp_marginals(s, None, sib, single_root, projective=False, iterations=2).marginals
    assert np.allclose(beliefs, exact, atol=1e-10)


# ------------------------------------------------------------------------------------ models and decoding

SAMPLE = read_treebank(sample_treebank_path())
VOCAB = Vocabulary.build(SAMPLE, gwords=60)
SHORT = [s for s in SAMPLE if s.n <= 6]


def _sibling_model(seed: int | None = None, bits: int = 16) -> Model:
    model = Model(VOCAB, order=2, bits=bits, siblings=SIBLING_TEMPLATES)
    if seed is not None:  # dense random weights: every slot matters, collisions included
        model.weights = np.random.default_rng(seed).normal(0.0, 1.0, 1 << bits)
    return model


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), index=st.integers(0, len(SAMPLE) - 1))
def test_model_sibling_bounds_cover_every_scored_part(seed: int, index: int) -> None:
    scorer = _sibling_model(seed).scorer(SAMPLE[index])
    sibs = scorer.siblings()
    assert isinstance(sibs, SiblingScorer) and not isinstance(sibs, TripleScorer)
    h, m, m2 = candidate_siblings(allowed_arcs(scorer.arc_scores()))
    per_part = sibs.bound_siblings(h, m, m2)
    bound = sibs.bound_hm()
    assert sibs.scored == 0
    values = sibs.score(h, m, m2)
    assert sibs.scored == h.size
    assert (per_part >= values - 1e-9).all()
    assert (np.minimum(bound[h, m], bound[h, m2]) >= per_part - 1e-9).all()
    # the slots a feature hashes to: one per template, and the score is their weights' sum; once the bounds
    # exist, scores come from their enumeration: the same sums, bit for bit, in any order
    slots = sibs.slots(h, m, m2)
    assert slots.shape == (len(SIBLING_TEMPLATES), h.size)
    hashed = scorer.model.weights[slots].sum(axis=0)
    np.testing.assert_array_equal(values, hashed)
    order = np.random.default_rng(seed).permutation(h.size)
    np.testing.assert_array_equal(sibs.score(h[order], m[order], m2[order]), hashed[order])
    np.testing.assert_array_equal(scorer.siblings().score(h, m, m2), hashed)  # no bounds yet: hashed


def test_sibling_model_files_round_trip_and_grandparent_files_stay_version_1(tmp_path: Path) -> None:
    path = tmp_path / "sib.npz"
    model = _sibling_model(4)
    model.save(path)
    loaded = Model.load(path)
    assert loaded.siblings == SIBLING_TEMPLATES
    assert json.loads(str(np.load(path)["meta"]))["version"] == 2
    sentence = SAMPLE[3]
    h, m, m2 = candidate_siblings(allowed_arcs(model.scorer(sentence).arc_scores()))
    assert np.array_equal(model.scorer(sentence).siblings().score(h, m, m2), loaded.scorer(sentence).siblings().score(h, m, m2))
    plain = tmp_path / "gp.npz"
    Model(VOCAB, order=2, bits=16).save(plain)
    meta = json.loads(str(np.load(plain)["meta"]))
    assert meta["version"] == 1 and "sibling_templates" not in meta
    assert Model.load(plain).siblings == ()
    with pytest.raises(ValueError, match="no sibling templates"):
        Model.load(plain).scorer(sentence).siblings()
    with pytest.raises(ValueError, match="need a grandparent"):
        Model(VOCAB, order=1, siblings=SIBLING_TEMPLATES)


def test_exact_sibling_marginals_are_pair_probabilities_and_bp_is_close() -> None:
    scorer = _sibling_model(5).scorer(SHORT[-1])
    arcs = scorer.arc_scores() / 4
    table = TripleTable.of(scorer, arcs)
    sibs = SiblingTable.of(scorer, arcs)
    log_z, mu, _, smu = exact_gp_marginals(arcs, table.scores / 4, False, sibs.scores / 4)
    trees = all_trees(SHORT[-1].n)
    values = second_order_tree_scores(trees, arcs, table.scores / 4, sibs.scores / 4)
    prob = np.exp(values - log_z)
    expected = np.zeros_like(smu)
    for heads, p in zip(trees, prob):
        expected[tree_siblings(heads)] += p
    assert np.allclose(smu, expected)
    _, mu_bp, _, smu_bp = bp_gp_marginals(arcs, table.scores / 4, False, sibs.scores / 4)
    assert smu_bp is not None and np.abs(mu_bp - mu).max() < 0.15


@pytest.mark.parametrize("marginals", ["exact", "bp"])
def test_training_with_siblings_lowers_the_loss(marginals: str) -> None:
    model = _sibling_model(bits=18)
    config = TrainConfig(epochs=3, patience=3, progress=False, gp_marginals=marginals)
    history = train(model, SHORT, [], config)
    assert history[-1].loss < history[0].loss
    assert evaluate(model, SHORT).uas > 0.9
    assert np.abs(model.weights).sum() > 0


@pytest.mark.parametrize("single_root", [False, True])
def test_bf_and_bp_decoders_use_sibling_scores(single_root: bool) -> None:
    n = 5
    rng = np.random.default_rng(11)
    s, triples, sibs = random_scores(n, rng), synthetic_triple_scorer(n, rng), synthetic_sibling_scorer(n, rng, scale=2.0)
    heads, best = brute_force(s, single_root, gp_scores=triples.scores, sib_scores=sibs.scores)
    bf = decode("bf", s, triples, single_root, sibling_scorer=sibs)
    assert bf.stats["sibs_scored"] == bf.stats["sibs_total"] > 0
    assert bf.objective == pytest.approx(
        second_order_tree_scores(bf.heads[None], s, triples.scores, sibs.scores)[0]
    ) and bf.objective <= best + TOL
    if bf.stats["integral"]:
        assert np.array_equal(bf.heads, heads)
    bp = decode("bp", s, triples, single_root, sibling_scorer=sibs, projective=False)
    assert bp.objective == pytest.approx(second_order_tree_scores(bp.heads[None], s, triples.scores, sibs.scores)[0])
    scored = sibs.scored
    decode("gp-eisner", s, triples, single_root, sibling_scorer=sibs)  # decodes without the siblings
    assert sibs.scored == scored


def test_cli_trains_and_parses_with_siblings(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "sib.npz"
    sample = str(sample_treebank_path())
    args = ["train", "--treebank", sample, "--order", "2", "--siblings", "--epochs", "1", "--bits", "16"]
    assert main([*args, "--limit", "20", "--max-length", "12", "--out", str(model), "--no-progress"]) == 0
    assert Model.load(model).siblings == SIBLING_TEMPLATES
    parse = ["parse", "--model", str(model), "--treebank", sample, "--limit", "8", "--no-progress"]
    parse.append("--decoder")
    out = {}
    for decoder in ("bf", "bp", "ppc", "ppc --no-siblings"):
        assert main([*parse, *decoder.split()]) == 0
        out[decoder] = capsys.readouterr().out
        assert f"decoder {decoder.split()[0]}" in out[decoder]
    objective = {decoder: text.split("mean objective ")[1].split()[0] for decoder, text in out.items()}
    assert objective["ppc"] == objective["bf"] != objective["ppc --no-siblings"]
    assert "sibling parts" in out["ppc"] and "sibling parts" not in out["ppc --no-siblings"]
    assert main([*parse, "cle", "--sibling-preset", "all"]) == 2
    assert "applies to the ppc, bf, auto and exact decoders" in capsys.readouterr().err
    assert main(["train", "--treebank", sample, "--siblings", "--out", str(model)]) != 0
    assert "--siblings needs --order 2" in capsys.readouterr().err
    sentences = read_treebank(sample)[:8]
    ppc, bf = (parse_model(Model.load(model), sentences, decoder) for decoder in ("ppc", "bf"))
    alone = parse_model(Model.load(model), sentences, "ppc", siblings=False)
    for a, b, c in zip(ppc, bf, alone):
        assert a.objective == pytest.approx(b.objective, abs=1e-7) and "sibs_scored" not in c.stats
        assert a.stats["sibs_scored"] <= a.stats["sibs_total"] == b.stats["sibs_scored"]
    assert any(abs(a.objective - c.objective) > 1e-6 for a, c in zip(ppc, alone))


def test_bp_dev_decoding_uses_the_tree_factor_and_iterations_of_training(monkeypatch: pytest.MonkeyPatch) -> None:
    """Sibling models are decoded by ``bp`` during training (dev UAS, early stopping) and by ``lpparse parse``
    with the TREE factor and the BP iterations and damping their CLL marginals used; the decoder's own
    default (PTREE) lost 2 points of dev UAS on hu_szeged (77.53 against 79.59 with TREE)."""
    import lpparse.training as train_module
    from lpparse.parsing import default_decoder_options, trained_projective

    seen: list[dict[str, object]] = []
    real = train_module.evaluate

    def spy(model, sentences, decoder=None, progress=False, **options):  # type: ignore[no-untyped-def]
        seen.append({"decoder": decoder, **options})
        return real(model, sentences, decoder, progress, **options)

    monkeypatch.setattr(train_module, "evaluate", spy)
    model = _sibling_model(bits=16)
    config = TrainConfig(epochs=1, progress=False, projective=True, bp_iterations=6, bp_damping=0.25)
    train(model, SHORT[:5], SHORT[:3], config)
    expected = {"projective": False, "iterations": 6, "damping": 0.25}
    assert seen == [{"decoder": "bp", **expected}]
    assert model.training["decoder_options"] == expected
    assert trained_projective(model) is False
    assert default_decoder_options(model, "bp") == expected
    assert default_decoder_options(model, "gp-eisner") == {}
    assert default_decoder_options(model, "bp", projective=True) == {**expected, "projective": True}
    # a model with a config but no recorded decoder options (trained before they were recorded)
    model.training = {"config": {"trainer": "cll", "projective": True}}
    assert trained_projective(model) is False
    assert default_decoder_options(model, "bp") == {"projective": False}
    assert default_decoder_options(Model(VOCAB, order=2, bits=12), "bp") == {}


def test_bp_training_iterations_and_damping_reach_the_marginals(monkeypatch: pytest.MonkeyPatch) -> None:
    import lpparse.training as train_module

    calls: list[tuple[int, float]] = []
    real = train_module.bp_marginals

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append((kwargs["iterations"], kwargs["damping"]))
        return real(*args, **kwargs)

    monkeypatch.setattr(train_module, "bp_marginals", spy)
    train(_sibling_model(bits=16), SHORT[:3], [], TrainConfig(epochs=1, progress=False, bp_iterations=7, bp_damping=0.5))
    assert calls == [(7, 0.5)] * 3
    calls.clear()
    train(_sibling_model(bits=16), SHORT[:2], [], TrainConfig(epochs=1, progress=False))
    assert calls == [(4, 0.0)] * 2


@pytest.mark.parametrize("single_root", [False, True])
def test_ppc_decoder_prices_sibling_parts(single_root: bool) -> None:
    """The ``ppc`` decoder takes the sibling scorer (it used to decode sibling models grandparent-only): its LP
    optimum is the ``bf`` decoder's."""
    n = 5
    rng = np.random.default_rng(11)
    s, triples, sibs = random_scores(n, rng), synthetic_triple_scorer(n, rng), synthetic_sibling_scorer(n, rng, scale=2.0)
    bf = decode("bf", s, triples, single_root, sibling_scorer=sibs)
    scored = sibs.scored
    ppc = decode("ppc", s, triples, single_root, sibling_scorer=sibs)
    assert sibs.scored > scored and ppc.stats["sibs_total"] > 0
    assert ppc.stats["lp_objective"] == pytest.approx(bf.stats["lp_objective"], abs=1e-6)
    assert ppc.objective == pytest.approx(second_order_tree_scores(ppc.heads[None], s, triples.scores, sibs.scores)[0])


def test_cli_trains_a_sibling_model_from_a_grandparent_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sample = str(sample_treebank_path())
    gp, sib = tmp_path / "gp.npz", tmp_path / "sib.npz"
    common = ["train", "--treebank", sample, "--order", "2", "--epochs", "1", "--limit", "10", "--max-length", "10", "--no-progress"]
    assert main([*common, "--bits", "14", "--out", str(gp)]) == 0
    assert main([*common, "--siblings", "--init", str(gp), "--out", str(sib)]) == 0
    start, model = Model.load(gp), Model.load(sib)
    assert model.bits == 14 and model.vocab == start.vocab and model.siblings == SIBLING_TEMPLATES
    assert model.training["init"] == str(gp) and not np.array_equal(model.weights, start.weights)
    # --siblings trains (and dev-decodes) with 10 BP iterations damped by 0.5; grandparent models with 4, undamped
    assert (model.training["config"]["bp_iterations"], model.training["config"]["bp_damping"]) == (10, 0.5)
    assert model.training["decoder_options"] == {"projective": False, "iterations": 10, "damping": 0.5}
    assert (start.training["config"]["bp_iterations"], start.training["config"]["bp_damping"]) == (None, 0.0)
    capsys.readouterr()
    assert main(["train", "--treebank", sample, "--order", "1", "--init", str(gp), "--out", str(sib)]) != 0
    assert "order-2 model, not order 1" in capsys.readouterr().err


@pytest.mark.parametrize("decoder", ["auto", "exact"])
def test_auto_bounds_take_the_offline_tables_over_pruned_arcs_and_decode_the_same(decoder: str) -> None:
    """``bounds="auto"`` gives the triple scorer the model's offline tables when arcs are pruned and the
    sentence's own values otherwise; either way the same tree and objective as the other bounds."""
    from lpparse.parsing import decode_sentence, triple_bounds
    from lpparse.pruning import ArcPruning
    from lpparse.scoring.model import SentenceScorer

    assert triple_bounds("auto", True) == "offline" and triple_bounds("auto", False) == "sentence"
    assert triple_bounds("sentence", True) == "sentence"
    with pytest.raises(ValueError, match="unknown bounds"):
        triple_bounds("loose", False)
    model = _sibling_model(3)
    sentence = max(SAMPLE, key=lambda s: s.n)
    pruning = ArcPruning(threshold=0.01, max_heads=4)
    seen = {}
    for bounds in ("auto", "offline", "sentence"):
        with mock.patch.object(SentenceScorer, "triples", autospec=True, side_effect=SentenceScorer.triples) as spy:
            result = decode_sentence(model, sentence, decoder, bounds, pruning=pruning)
        assert spy.call_args.args[1] == ("offline" if bounds == "auto" else bounds)
        seen[bounds] = (tuple(result.heads), round(result.objective, 6))
    assert len(set(seen.values())) == 1
    with mock.patch.object(SentenceScorer, "triples", autospec=True, side_effect=SentenceScorer.triples) as spy:
        decode_sentence(model, min(SAMPLE, key=lambda s: abs(s.n - 8)), decoder)
    assert spy.call_args.args[1] == "sentence"  # unpruned
