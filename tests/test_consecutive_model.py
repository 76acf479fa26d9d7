"""Consecutive-sibling parts in trained models: the templates and their hashing, the counted scorer and its
factorized bounds, the relaxed perceptron step with the consecutive-sibling family against brute force,
model files with and without the flag, and ``lpparse train --consecutive`` / ``parse`` / ``scores export``
end to end."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lpparse import training
from lpparse.cli import main
from lpparse.corpus import read_treebank, sample_treebank_path, write_treebank
from lpparse.decoder import dense_sibling_scores, dense_triple_scores
from lpparse.families.consecutive.family import ConsecutiveSiblingParts
from lpparse.families.consecutive.rows import (
    ConsecutiveSiblingScorer,
    DenseConsecutiveScorer,
    candidate_csibs,
    csib_mask,
    tree_csibs,
)
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.families.sibling.family import SiblingParts
from lpparse.oracles.brute_force import all_trees, second_order_tree_scores
from lpparse.parsing import decode_sentence, default_decoder, evaluate
from lpparse.ppc import solve_lp
from lpparse.scores import load_scores
from lpparse.scoring import CONSECUTIVE_TEMPLATES, SIBLING_TEMPLATES, CSibTemplate, Model, Vocabulary
from lpparse.scoring.features import CSIB_SEED, CSIB_START, CSIB_STOP, DISTANCE_EDGES, encode, hash_columns
from lpparse.scoring.model import ModelFormatError
from lpparse.training import TrainConfig, gold_triples, train
from lpparse.trees import allowed_arcs, allowed_mask_shape
from lpparse.triples import DenseSiblingScorer, DenseTripleScorer, check_csib_batch, tree_siblings

SAMPLE_PATH = sample_treebank_path()
SAMPLE = read_treebank(SAMPLE_PATH)
VOCAB = Vocabulary.build(SAMPLE)
SHORT = [s for s in SAMPLE if s.n <= 6]
BITS = 14


def _model(siblings: bool = False, seed: int | None = None, scale: float = 0.3, bits: int = BITS) -> Model:
    model = Model(VOCAB, order=2, bits=bits, siblings=SIBLING_TEMPLATES if siblings else (), consecutive=True)
    if seed is not None:  # dense random weights: every slot matters, collisions included
        model.weights = np.random.default_rng(seed).normal(0.0, scale, 1 << bits)
    return model


def _dense(idx: np.ndarray, val: np.ndarray | None) -> np.ndarray:
    return np.bincount(idx, weights=val, minlength=1 << BITS)


def _features(model: Model, sentence, heads: np.ndarray) -> np.ndarray:
    """f(tree) as a dense vector over the hashed slots, from the scorers' slots (no LP involved)."""
    scorer = model.scorer(sentence)
    indicator = np.zeros((heads.size, heads.size))
    indicator[heads[1:], np.arange(1, heads.size)] = 1.0
    idx, val = scorer.arcs.gradient(indicator)
    out = _dense(idx, val) + _dense(scorer.triples().slots(*gold_triples(heads)).ravel(), None)
    if model.siblings:
        out += _dense(scorer.siblings().slots(*tree_siblings(heads)).ravel(), None)
    return out + _dense(scorer.consecutive().slots(*tree_csibs(heads)).ravel(), None)


def _cube(scorer) -> np.ndarray:
    """Every window's score as a dense (n+1,)*3 array (0 elsewhere)."""
    csibs = scorer.consecutive()
    windows = candidate_csibs(allowed_mask_shape(scorer.n + 1))
    cube = np.zeros((scorer.n + 1,) * 3)
    cube[windows] = csibs.score(*windows)
    return cube


def _window_values(trees: np.ndarray, cube: np.ndarray) -> np.ndarray:
    """Σ of the windows of each tree (K, n+1), vectorized from the definition: the window into child m is
    ⟨h, the nearest sibling of m between h and m (or h), m⟩, and the outermost child c of each side closes
    with ⟨h, c, h⟩."""
    k, size = trees.shape
    m = np.arange(1, size)
    h = trees[:, 1:]  # (K, n)
    same = h[:, :, None] == h[:, None, :]  # same[k, i, j]: tokens i+1 and j+1 share a head
    hi, mi, ji = h[:, :, None], m[None, :, None], m[None, None, :]
    between = same & (((hi < ji) & (ji < mi)) | ((mi < ji) & (ji < hi)))
    nearest_right = np.where(between, ji, -1).max(axis=2)
    nearest_left = np.where(between, ji, size).min(axis=2)
    right = m[None, :] > h
    prev = np.where(
        right, np.where(nearest_right >= 0, nearest_right, h), np.where(nearest_left < size, nearest_left, h)
    )
    farther = same & np.where(right[:, :, None], ji > mi, ji < mi)
    last = ~farther.any(axis=2)
    mm = np.broadcast_to(m, h.shape)
    return cube[h, prev, mm].sum(axis=1) + np.where(last, cube[h, mm, h], 0.0).sum(axis=1)


# ------------------------------------------------------------------------------------ features and bounds


def test_window_values_and_window_checks_match_the_formulation() -> None:
    """The test's vectorized windows are tree_csibs', and the scoring layer's batch check accepts exactly the
    window shapes of csib_mask."""
    rng = np.random.default_rng(0)
    trees = all_trees(5)
    cube = rng.normal(size=(6,) * 3)
    picked = rng.choice(len(trees), 200, replace=False)
    expected = [cube[tree_csibs(trees[t])].sum() for t in picked]
    assert np.allclose(_window_values(trees[picked], cube), expected)
    shapes = csib_mask(allowed_mask_shape(6))
    for h, a, b in np.ndindex(6, 6, 6):
        if shapes[h, a, b]:
            check_csib_batch(5, [h], [a], [b])
        else:
            with pytest.raises(ValueError, match="not a consecutive-sibling window"):
                check_csib_batch(5, [h], [a], [b])
    with pytest.raises(ValueError, match="lie in 0..5"):
        check_csib_batch(5, [1], [1], [6])


def test_features_read_start_and_stop_side_kind_and_distance() -> None:
    """Each template's slot is the hash of its fields, a = h as START and b = h as STOP, with side + 2·kind
    (+ 6·distance bin of |b - a|), computed here window by window."""
    sentence = next(s for s in SAMPLE if s.n >= 6)
    model = _model()
    ids = encode(sentence, VOCAB)
    h, a, b = candidate_csibs(allowed_mask_shape(sentence.n + 1))
    slots = model.scorer(sentence).consecutive().slots(h, a, b)
    assert slots.shape == (len(CONSECUTIVE_TEMPLATES), h.size) and 8 <= len(CONSECUTIVE_TEMPLATES) <= 12
    for i in np.random.default_rng(1).choice(h.size, 40, replace=False):
        hh, aa, bb = int(h[i]), int(a[i]), int(b[i])
        side = int(max(aa, bb) > hh)
        kind = 0 if aa == hh else 2 if bb == hh else 1
        gap = int(np.searchsorted(DISTANCE_EDGES, abs(bb - aa), side="right"))
        for t, tpl in enumerate(CONSECUTIVE_TEMPLATES):
            fields = []
            if tpl.h:
                fields.append(int(ids.padded[tpl.h][hh + 1]))
            if tpl.a:
                fields.append(CSIB_START if aa == hh else int(ids.padded[tpl.a][aa + 1]))
            if tpl.b:
                fields.append(CSIB_STOP if bb == hh else int(ids.padded[tpl.b][bb + 1]))
            code = side + 2 * kind + (6 * gap if tpl.distance else 0)
            columns = [np.array([f], np.int64) for f in (*fields, code)]
            assert slots[t, i] == hash_columns(CSIB_SEED + t, columns, BITS)[0]
    assert CSibTemplate("pos", None, "gword", True).name() == "h.pos b.gword side kind dist"


@settings(max_examples=25, deadline=None)
@given(
    index=st.integers(0, len(SAMPLE) - 1), seed=st.integers(0, 2**32 - 1), scale=st.sampled_from([0.1, 1.0])
)
def test_bounds_bound_every_window_and_scores_are_the_hashed_sums(
    index: int, seed: int, scale: float
) -> None:
    sentence = SAMPLE[index]
    scorer = _model(seed=seed, scale=scale).scorer(sentence)
    csibs = scorer.consecutive()
    assert isinstance(csibs, ConsecutiveSiblingScorer) and csibs.n == sentence.n
    h, a, b = candidate_csibs(allowed_arcs(scorer.arc_scores()))
    hashed = scorer.model.weights[csibs.slots(h, a, b)].sum(axis=0)
    first, second = csibs.bound_first(), csibs.bound_second()
    assert csibs.scored == 0  # the bounds enumerate template weights: no window is scored
    values = csibs.score(h, a, b)
    assert csibs.scored == h.size
    np.testing.assert_array_equal(values, hashed)  # look-up in the enumeration: the same sums, bit for bit
    order = np.random.default_rng(seed).permutation(h.size)
    np.testing.assert_array_equal(csibs.score(h[order], a[order], b[order]), hashed[order])
    size = sentence.n + 1
    best_first, best_second = np.full((size, size), -np.inf), np.full((size, size), -np.inf)
    np.maximum.at(best_first, (h, a), values)
    np.maximum.at(best_second, (h, b), values)
    assert (first >= best_first - 1e-9).all() and (second >= best_second - 1e-9).all()
    # finite exactly where some window has the pair
    assert np.array_equal(np.isfinite(first), np.isfinite(best_first))
    assert np.array_equal(np.isfinite(second), np.isfinite(best_second))


def test_bounds_are_exact_for_the_bias_template_alone() -> None:
    """With only the (side, kind) bias, B1[h, h] is the best first-child weight over the sides h has, B2[h, h]
    the best last-child weight, and B1[h, a] the best window from a when a token lies beyond a: nothing is
    lost to factorizing."""
    sentence = next(s for s in SAMPLE if s.n >= 4)
    bias = (CSibTemplate(None, None, None),)
    model = Model(VOCAB, order=2, bits=BITS, consecutive=True, consecutive_templates=bias)
    model.weights = np.random.default_rng(2).normal(size=1 << BITS)
    csibs = model.scorer(sentence).consecutive()
    h, a, b = candidate_csibs(allowed_mask_shape(sentence.n + 1))
    values = csibs.score(h, a, b)
    first, second = csibs.bound_first(), csibs.bound_second()
    for head in range(sentence.n + 1):
        opening = (h == head) & (a == head)
        closing = (h == head) & (b == head)
        assert first[head, head] == pytest.approx(values[opening].max())
        assert second[head, head] == pytest.approx(values[closing].max())
        for child in range(2, sentence.n):  # a token lies beyond the child, on either side
            if child != head:
                assert first[head, child] == pytest.approx(values[(h == head) & (a == child)].max())


# ------------------------------------------------------------------------------- training with the LP


@settings(deadline=None, max_examples=15, suppress_health_check=[HealthCheck.too_slow])
@given(
    index=st.integers(0, len(SHORT) - 1),
    seed=st.integers(0, 2**32 - 1),
    siblings=st.booleans(),
    scale=st.sampled_from([0.05, 0.3]),
    cost=st.sampled_from([0.0, 1.0]),
)
def test_relaxed_update_with_consecutive_siblings_against_brute_force(
    index: int, seed: int, siblings: bool, scale: float, cost: float
) -> None:
    """The LP optimum is the brute-force LP's (every part scored, on dense scores); it bounds the best tree
    found by enumeration; the update Δ moves the scores by the loss less the Hamming cost (w·Δ = s(y*) − s(μ),
    = −loss without cost); when the LP optimum is integral, Δ = f(y*) − f(ŷ) for the enumerated best tree ŷ,
    and with exact decoding always."""
    sentence = SHORT[index]
    model = _model(siblings, seed=seed, scale=scale)
    scorer = model.scorer(sentence)
    arcs = scorer.arc_scores()
    gold = sentence.heads
    n = sentence.n
    update = training._second_order_step(scorer, arcs, "bf", cost, gold)
    target = np.zeros((n + 1, n + 1))
    target[gold[1:], np.arange(1, n + 1)] = 1.0
    decoded = arcs + cost * (1.0 - target)  # the loss-augmented scores (-inf stays -inf)
    gp = dense_triple_scores(arcs, scorer.triples())
    sib = dense_sibling_scores(arcs, scorer.siblings(), False) if siblings else None
    cube = _cube(scorer)
    parts = [GrandparentParts(DenseTripleScorer(gp))]
    if sib is not None:
        parts.append(SiblingParts(DenseSiblingScorer(sib)))
    parts.append(ConsecutiveSiblingParts(DenseConsecutiveScorer(cube)))
    reference = solve_lp(decoded, parts, "bf")
    trees = all_trees(n)
    plain = second_order_tree_scores(trees, arcs, gp, sib) + _window_values(trees, cube)
    wrong = (trees[:, 1:] != gold[1:]).sum(axis=1)
    values = plain + cost * wrong
    best = trees[int(np.argmax(values))]
    best_value = float(values.max())
    gold_value = float(model.weights @ _features(model, sentence, gold))
    assert gold_value == pytest.approx(plain[(trees == gold).all(axis=1)][0], abs=1e-7)
    assert reference.certified and reference.objective >= best_value - 1e-7
    assert best_value >= gold_value - 1e-7
    assert not update.unsolved and update.fractional == (not reference.integral)
    delta = _dense(update.idx, update.val)
    assert update.loss == pytest.approx(reference.objective - gold_value, abs=1e-6)
    hamming = model.weights @ delta + update.loss  # cost · (wrong heads of μ)
    assert -1e-6 <= hamming <= cost * n + 1e-6
    expected = _features(model, sentence, gold) - _features(model, sentence, best)
    if reference.integral:
        assert np.allclose(delta, expected, atol=1e-9)
        assert hamming == pytest.approx(cost * wrong[(trees == best).all(axis=1)][0], abs=1e-6)
    exact = training._second_order_step(model.scorer(sentence), arcs, "exact", cost, gold)
    assert not exact.unsolved and exact.loss == pytest.approx(best_value - gold_value, abs=1e-6)
    assert np.allclose(_dense(exact.idx, exact.val), expected, atol=1e-9)


def test_perceptron_fits_with_consecutive_parts_and_cll_refuses_them() -> None:
    model = _model()
    history = train(model, SHORT, [], TrainConfig(trainer="perceptron", epochs=4, patience=4, progress=False))
    assert history[-1].loss < history[0].loss
    assert model.training["decoder"] == "auto" == default_decoder(model)
    assert default_decoder(model, trained=False) == "auto"
    assert evaluate(model, SHORT).uas > 0.9  # auto, with the consecutive-sibling family
    result = decode_sentence(model, SHORT[-1], "auto")
    assert result.stats["consecutive_total"] > 0 and result.stats["consecutive_scored"] > 0
    assert "consecutive_total" not in decode_sentence(model, SHORT[-1], "auto", consecutive=False).stats
    assert decode_sentence(model, SHORT[-1], "gp-eisner").heads.size == SHORT[-1].n + 1  # without them
    with pytest.raises(ValueError, match="cll cannot train consecutive-sibling parts"):
        train(_model(), SHORT, [], TrainConfig(progress=False))
    with pytest.raises(ValueError, match="one of auto, bf, ppc, exact, not 'gp-eisner'"):
        train(_model(), SHORT, [], TrainConfig(trainer="hinge", decoder="gp-eisner", progress=False))


# ---------------------------------------------------------------------------------------- model files


def test_model_files_with_and_without_consecutive_parts(tmp_path: Path) -> None:
    sentence = SHORT[3]
    model = _model(seed=4)
    path = tmp_path / "csib.npz"
    model.save(path)
    meta = json.loads(str(np.load(path)["meta"]))
    assert meta["version"] == 3 and meta["consecutive"] is True and len(meta["consecutive_templates"]) == 12
    loaded = Model.load(path)
    assert loaded.consecutive and loaded.consecutive_templates == CONSECUTIVE_TEMPLATES
    windows = candidate_csibs(allowed_mask_shape(sentence.n + 1))
    np.testing.assert_array_equal(
        loaded.scorer(sentence).consecutive().score(*windows),
        model.scorer(sentence).consecutive().score(*windows),
    )
    for siblings, version in ((False, 1), (True, 2)):  # without the flag: the files earlier lpparse wrote
        plain = tmp_path / f"plain{version}.npz"
        Model(VOCAB, order=2, bits=BITS, siblings=SIBLING_TEMPLATES if siblings else ()).save(plain)
        meta = json.loads(str(np.load(plain)["meta"]))
        assert meta["version"] == version and "consecutive" not in meta
        old = Model.load(plain)
        assert not old.consecutive and default_decoder(old) == ("bp" if siblings else "gp-eisner")
        with pytest.raises(ValueError, match="no consecutive-sibling parts"):
            old.scorer(sentence).consecutive()
    with pytest.raises(ValueError, match="need a grandparent"):
        Model(VOCAB, order=1, consecutive=True)
    arrays = dict(np.load(path))
    meta = json.loads(str(arrays.pop("meta")))
    del meta["consecutive_templates"]
    damaged = tmp_path / "damaged.npz"
    np.savez_compressed(damaged, meta=np.array(json.dumps(meta)), **arrays)
    with pytest.raises(ModelFormatError, match="damaged model file"):
        Model.load(damaged)


# ------------------------------------------------------------------------------------------------ CLI


def lpparse(*args: str | Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run the real console script (``python -m lpparse``) in a subprocess."""
    argv = [sys.executable, "-m", "lpparse", *map(str, args)]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout)


def test_cli_trains_parses_and_exports_a_consecutive_model(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "csib.npz"
    common = ["--treebank", SAMPLE_PATH, "--order", "2", "--max-length", "10", "--bits", "14"]
    common.append("--no-progress")
    done = lpparse("train", *common, "--consecutive", "--limit", "8", "--epochs", "1", "--out", out)
    assert done.returncode == 0, done.stderr
    assert "+ consecutive siblings, perceptron" in done.stdout and "LP fractional on" in done.stdout
    model = Model.load(out)
    assert model.consecutive and model.training["decoder"] == "auto"
    assert model.training["config"]["trainer"] == "perceptron"
    selection = ["--limit", "3", "--max-length", "10", "--no-progress"]
    parse = lpparse("parse", "--model", out, "--treebank", SAMPLE_PATH, *selection, "--decoder", "exact")
    assert parse.returncode == 0, parse.stderr
    assert "decoder exact" in parse.stdout and "consecutive-sibling parts" in parse.stdout
    assert "3 of 3 certified optimal" in parse.stdout
    scores, few = tmp_path / "scores.npz", tmp_path / "few.conllu"
    write_treebank(few, SAMPLE[:3], [s.heads for s in SAMPLE[:3]])
    export = lpparse("scores", "export", "--model", out, "--treebank", few, "--out", scores, "--no-progress")
    assert export.returncode == 0, export.stderr
    assert "consecutive-sibling" in export.stdout
    loaded = load_scores(scores)
    assert loaded.consecutive and default_decoder(loaded) == "auto"
    assert len(loaded) == 3
    np.testing.assert_array_equal(np.asarray(loaded[2].csib), _cube(model.scorer(SAMPLE[2])))
    # usage errors, in process: cll, --order 1
    for extra, message in (
        (["--order", "2", "--trainer", "cll"], "--consecutive needs --trainer perceptron or hinge"),
        (["--order", "1"], "--consecutive needs --order 2"),
    ):
        argv = ["train", "--treebank", str(SAMPLE_PATH), "--consecutive", "--out", str(tmp_path / "x.npz")]
        assert main([*argv, *extra, "--no-progress"]) == 2
        assert message in capsys.readouterr().err
