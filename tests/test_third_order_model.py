"""Third-order parts in trained models: the grand-sibling and tri-sibling templates' factorized bounds hold
for every part of random models, model files (version 4) keep them, the relaxed perceptron step over every
family matches brute force, and ``lpparse train --grand-siblings --tri-siblings`` / ``parse`` end to end."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lpparse import training
from lpparse.cli import main
from lpparse.corpus import read_treebank, sample_treebank_path
from lpparse.decoder import dense_triple_scores
from lpparse.families.consecutive.rows import DenseConsecutiveScorer, candidate_csibs
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.families.third_order.family import window_parts
from lpparse.families.third_order.grandsibling import DenseGrandSiblingScorer, candidate_gsibs
from lpparse.families.third_order.trisibling import DenseTriSiblingScorer, candidate_tsibs
from lpparse.oracles.brute_force import enumerate_trees
from lpparse.ppc import solve_lp
from lpparse.scoring import Model, Vocabulary
from lpparse.training import gold_triples
from lpparse.trees import allowed_mask_shape
from lpparse.triples import DenseTripleScorer

SAMPLE_PATH = sample_treebank_path()
SAMPLE = read_treebank(SAMPLE_PATH)
VOCAB = Vocabulary.build(SAMPLE)
SHORT = [s for s in SAMPLE if 2 <= s.n <= 6]
BITS = 14


def _model(seed: int | None = None, scale: float = 0.3, grand: bool = True, tri: bool = True) -> Model:
    model = Model(VOCAB, order=2, bits=BITS, consecutive=True, grandsiblings=grand, trisiblings=tri)
    if seed is not None:  # dense random weights: every slot matters, collisions included
        model.weights = np.random.default_rng(seed).normal(0.0, scale, 1 << BITS)
    return model


@settings(deadline=None, max_examples=20, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(0, len(SAMPLE) - 1), seed=st.integers(0, 2**32 - 1))
def test_bounds_bound_every_part_of_a_random_model(index: int, seed: int) -> None:
    sentence = SAMPLE[index]
    if sentence.n > 14:
        sentence = SHORT[index % len(SHORT)]
    scorer = _model(seed).scorer(sentence)
    mask = allowed_mask_shape(sentence.n + 1)
    grand, tri = scorer.grand_siblings(), scorer.tri_siblings()
    g, h, a, b = candidate_gsibs(mask)
    values = grand.score(g, h, a, b)
    assert grand.scored == g.size
    for bound, kept in ((grand.bound_gha(), (g, h, a)), (grand.bound_ghb(), (g, h, b)), (grand.bound_hab(), (h, a, b))):
        assert (values <= bound[kept] + 1e-9).all()
    h, x, a, b = candidate_tsibs(mask)
    values = tri.score(h, x, a, b)
    assert (values <= tri.bound_first()[h, x, a] + 1e-9).all()
    assert (values <= tri.bound_second()[h, a, b] + 1e-9).all()
    assert np.isfinite(tri.bound_first()[h, x, a]).all() and np.isfinite(grand.bound_hab()).any()


def test_model_files_keep_third_order_templates_and_weights(tmp_path: Path) -> None:
    model = _model(seed=1)
    model.save(tmp_path / "m.npz")
    loaded = Model.load(tmp_path / "m.npz")
    assert loaded.grandsiblings and loaded.trisiblings and loaded.third_order
    assert loaded.grandsibling_templates == model.grandsibling_templates
    np.testing.assert_array_equal(loaded.weights, model.weights)
    sentence = SHORT[0]
    parts = candidate_gsibs(allowed_mask_shape(sentence.n + 1))
    np.testing.assert_array_equal(
        loaded.scorer(sentence).grand_siblings().score(*parts), model.scorer(sentence).grand_siblings().score(*parts)
    )
    with pytest.raises(ValueError, match="need consecutive"):
        Model(VOCAB, order=2, trisiblings=True)


def _dense_parts(scorer) -> list:
    """Every family of the scorer as dense scorers (every candidate part scored): the brute-force reference."""
    n = scorer.n
    mask = allowed_mask_shape(n + 1)
    arcs = scorer.arc_scores()
    out = [GrandparentParts(DenseTripleScorer(dense_triple_scores(arcs, scorer.triples())))]
    csib, tsib, gsib = np.zeros((n + 1,) * 3), np.zeros((n + 1,) * 4), np.zeros((n + 1,) * 4)
    for cube, parts, family in (
        (csib, candidate_csibs(mask), scorer.consecutive()),
        (tsib, candidate_tsibs(mask), scorer.tri_siblings()),
        (gsib, candidate_gsibs(mask), scorer.grand_siblings()),
    ):
        cube[parts] = family.score(*parts)
    return out + window_parts(n, DenseConsecutiveScorer(csib), DenseTriSiblingScorer(tsib), DenseGrandSiblingScorer(gsib))


def _value(arcs: np.ndarray, parts: list, heads: np.ndarray) -> float:
    value = float(arcs[heads[1:], np.arange(1, heads.size)].sum())
    for part in parts:
        idx = part.tree_parts(heads)
        if idx[0].size:
            value += float(part.scorer.scores[idx].sum())
    return value


def _features(model: Model, sentence, heads: np.ndarray) -> np.ndarray:
    """f(tree) as a dense vector over the hashed slots, from every family's slots (no LP involved)."""
    scorer = model.scorer(sentence)
    indicator = np.zeros((heads.size, heads.size))
    indicator[heads[1:], np.arange(1, heads.size)] = 1.0
    idx, val = scorer.arcs.gradient(indicator)
    out = np.bincount(idx, weights=val, minlength=1 << BITS)
    out += np.bincount(scorer.triples().slots(*gold_triples(heads)).ravel(), minlength=1 << BITS)
    for part in window_parts(scorer.n, *scorer.window_scorers()):
        out += np.bincount(part.scorer.slots(*part.tree_parts(heads)).ravel(), minlength=1 << BITS)
    return out


@settings(deadline=None, max_examples=8, suppress_health_check=[HealthCheck.too_slow])
@given(index=st.integers(0, len(SHORT) - 1), seed=st.integers(0, 2**32 - 1), cost=st.sampled_from([0.0, 1.0]))
def test_relaxed_update_with_third_order_parts_against_brute_force(index: int, seed: int, cost: float) -> None:
    """The LP step's objective is brute force's full LP (dense scores, every family) and bounds the best tree;
    the exact step's update is f(y*) − f(ŷ) for the enumerated best tree ŷ."""
    sentence = SHORT[index]
    model = _model(seed, scale=0.2)
    scorer = model.scorer(sentence)
    arcs, gold, n = scorer.arc_scores(), sentence.heads, sentence.n
    update = training._second_order_step(scorer, arcs, "bf", cost, gold)
    target = np.zeros((n + 1, n + 1))
    target[gold[1:], np.arange(1, n + 1)] = 1.0
    decoded = arcs + cost * (1.0 - target)
    parts = _dense_parts(scorer)
    reference = solve_lp(decoded, parts, "bf")
    trees = list(enumerate_trees(n, False))
    plain = np.array([_value(arcs, parts, t) for t in trees])
    values = plain + cost * np.array([(t[1:] != gold[1:]).sum() for t in trees])
    best = trees[int(np.argmax(values))]
    gold_value = float(model.weights @ _features(model, sentence, gold))
    assert gold_value == pytest.approx(_value(arcs, parts, gold), abs=1e-7)
    assert reference.certified and reference.objective >= values.max() - 1e-7
    assert not update.unsolved and update.loss == pytest.approx(reference.objective - gold_value, abs=1e-6)
    exact = training._second_order_step(model.scorer(sentence), arcs, "exact", cost, gold)
    assert not exact.unsolved and exact.loss == pytest.approx(values.max() - gold_value, abs=1e-6)
    delta = np.bincount(exact.idx, weights=exact.val, minlength=1 << BITS)
    assert np.allclose(delta, _features(model, sentence, gold) - _features(model, sentence, best), atol=1e-9)


def lpparse(*args: str | Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "lpparse", *map(str, args)], capture_output=True, text=True, timeout=timeout)


def test_cli_trains_and_parses_a_third_order_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "full.npz"
    common = ["--treebank", SAMPLE_PATH, "--order", "2", "--max-length", "8", "--bits", "14", "--no-progress"]
    done = lpparse("train", *common, "--grand-siblings", "--tri-siblings", "--limit", "12", "--epochs", "1", "--out", out)
    assert done.returncode == 0, done.stderr
    assert "+ consecutive siblings + grand-siblings + tri-siblings, perceptron" in done.stdout
    model = Model.load(out)
    assert model.consecutive and model.grandsiblings and model.trisiblings
    selection = ["--limit", "12", "--max-length", "8", "--no-progress"]
    parse = lpparse("parse", "--model", out, "--treebank", SAMPLE_PATH, *selection, "--decoder", "exact")
    assert parse.returncode == 0, parse.stderr
    parsed = int(parse.stdout.split(" sentences")[0].split(": ")[-1])
    assert f"{parsed} of {parsed} certified optimal" in parse.stdout
    export = lpparse("scores", "export", "--model", out, "--treebank", SAMPLE_PATH, "--out", tmp_path / "s.npz")
    assert export.returncode == 2 and "third-order" in export.stderr
    argv = ["train", "--treebank", str(SAMPLE_PATH), "--order", "2", "--out", str(tmp_path / "x.npz"), "--no-progress"]
    assert main([*argv, "--init", str(out), "--consecutive"]) == 2
    assert "pass --grand-siblings" in capsys.readouterr().err
    assert main([*argv[:3], "--order", "1", "--tri-siblings", "--out", str(tmp_path / "y.npz")]) == 2
    assert "need --order 2" in capsys.readouterr().err
