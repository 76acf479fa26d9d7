"""Training on the shipped sample: loss goes down, UAS goes up, for every trainer and both orders."""

from __future__ import annotations

import numpy as np
import pytest

from lpparse.corpus import read_treebank, sample_treebank_path
from lpparse.decoder import dense_triple_scores
from lpparse.oracles import matrix_tree
from lpparse.parsing import evaluate
from lpparse.scoring import Model, Vocabulary
from lpparse.training import (
    EXACT_MAX_N,
    TrainConfig,
    bp_gp_marginals,
    exact_gp_marginals,
    gold_triples,
    train,
)
from lpparse.trees import allowed_arcs
from lpparse.triples import candidate_triples

SAMPLE = read_treebank(sample_treebank_path())
VOCAB = Vocabulary.build(SAMPLE)
SHORT = [s for s in SAMPLE if s.n <= EXACT_MAX_N]


def _train(
    order: int, trainer: str, sentences=SAMPLE, epochs: int = 3, **options
) -> tuple[Model, list, float, float]:
    model = Model(VOCAB, order=order, bits=18)
    before = evaluate(model, sentences).uas
    config = TrainConfig(trainer=trainer, epochs=epochs, patience=epochs, progress=False, **options)
    history = train(model, sentences, [], config)
    return model, history, before, evaluate(model, sentences).uas


@pytest.mark.parametrize(
    ("order", "trainer", "options"),
    [
        (1, "cll", {}),
        (1, "cll", {"projective": True}),
        (1, "perceptron", {}),
        (2, "perceptron", {}),
        (2, "cll", {"gp_marginals": "bp"}),
    ],
)
def test_training_lowers_loss_and_raises_uas(order: int, trainer: str, options: dict) -> None:
    model, history, before, after = _train(order, trainer, **options)
    losses = [r.loss for r in history]
    assert losses[-1] < losses[0]
    assert after > before + 0.5
    assert after > 0.85
    assert model.training["history"][0]["epoch"] == 1


def test_grandparent_cll_with_exact_marginals_on_short_sentences() -> None:
    _, history, before, after = _train(2, "cll", SHORT, gp_marginals="exact")
    assert history[-1].loss < history[0].loss
    assert after > before


def test_exact_gp_marginals_reduce_to_matrix_tree_without_triples() -> None:
    model = Model(VOCAB, order=2, bits=18)
    model.weights = np.random.default_rng(0).normal(size=model.weights.size)
    sentence = SHORT[0]
    arcs = model.scorer(sentence).arc_scores()
    log_z, mu, gmu, _ = exact_gp_marginals(arcs, np.zeros((sentence.n + 1,) * 3), False)
    ref_z, ref_mu = matrix_tree(arcs)
    assert log_z == pytest.approx(ref_z)
    assert np.allclose(mu, ref_mu)
    # the triple marginal of ⟨g, p, c⟩ is P(g→p and p→c); summed over g it is P(p→c)
    g, p, c = candidate_triples(allowed_arcs(arcs))
    assert np.allclose(gmu.sum(axis=0)[1:, 1:], mu[1:, 1:])


def test_bp_marginals_close_to_exact_for_a_trained_model() -> None:
    model, _, _, _ = _train(2, "perceptron", SHORT, epochs=1)
    sentence = SHORT[-1]
    scorer = model.scorer(sentence)
    arcs = scorer.arc_scores()
    gp = dense_triple_scores(arcs, scorer.triples())
    _, mu_exact, _, _ = exact_gp_marginals(arcs, gp, False)
    _, mu_bp, _, _ = bp_gp_marginals(arcs, gp, False)
    assert np.allclose(mu_bp.sum(axis=0)[1:], 1.0)
    assert np.abs(mu_bp - mu_exact).max() < 0.2


def test_trained_model_bounds_valid_and_gold_triples_scored() -> None:
    model, _, _, _ = _train(2, "perceptron", epochs=2)
    assert np.count_nonzero(model.weights) > 0
    for sentence in SAMPLE[:20]:
        scorer = model.scorer(sentence)
        triples = scorer.triples()
        full = np.full((sentence.n + 1,) * 3, -np.inf)
        g, p, c = candidate_triples(allowed_arcs(scorer.arc_scores()))
        full[g, p, c] = triples.score(g, p, c)
        assert np.all(triples.bound_gp() >= full.max(axis=2) - 1e-9)
        assert np.all(triples.bound_pc() >= full.max(axis=0) - 1e-9)
        gg, gp_, gc = gold_triples(sentence.heads)
        assert np.array_equal(triples.score(gg, gp_, gc), full[gg, gp_, gc])


def test_early_stopping_keeps_the_best_dev_epoch() -> None:
    model = Model(VOCAB, order=1, bits=18)
    history = train(model, SAMPLE[:30], SAMPLE[30:], TrainConfig(epochs=6, patience=1, progress=False))
    dev = [r.dev_uas_no_punct for r in history]
    assert len(history) < 6 or all(b > a for a, b in zip(dev, dev[1:]))
    assert evaluate(model, SAMPLE[30:]).uas_no_punct == pytest.approx(max(dev))


def test_single_root_training_and_bad_options() -> None:
    model = Model(VOCAB, order=1, bits=18, single_root=True)
    train(model, SAMPLE, [], TrainConfig(epochs=1, progress=False))
    with pytest.raises(ValueError, match="trainer"):
        train(model, SAMPLE, [], TrainConfig(trainer="svm", progress=False))
    with pytest.raises(ValueError, match="marginals"):
        train(Model(VOCAB, order=2, bits=18), SAMPLE, [], TrainConfig(gp_marginals="nope", progress=False))


def test_an_interrupted_cli_run_keeps_its_best_epoch(
    tmp_path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``lpparse train --dev`` rewrites --out after each improving epoch: interrupted in epoch 3, the file
    holds the best of epochs 1-2 (``finished`` false); a run that ends writes ``finished`` true."""
    import lpparse.training as train_module
    from lpparse.cli import main

    real, calls = train_module.evaluate, []

    def interrupting(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(train_module, "evaluate", interrupting)
    out = tmp_path / "m.npz"
    sample = str(sample_treebank_path())
    args = ["train", "--treebank", sample, "--dev", sample, *"--dev-limit 10 --limit 30 --bits 16".split()]
    assert main([*args, "--epochs", "5", "--patience", "5", "--out", str(out), "--no-progress"]) == 130
    assert "interrupted" in capsys.readouterr().err
    saved = Model.load(out)
    assert saved.training["finished"] is False and len(saved.training["history"]) in (1, 2)
    best = saved.training["history"][saved.training["best_epoch"] - 1]["dev_uas_no_punct"]
    assert evaluate(saved, SAMPLE[:10]).uas_no_punct == pytest.approx(best)
    monkeypatch.setattr(train_module, "evaluate", real)
    assert main([*args, "--epochs", "1", "--out", str(out), "--no-progress"]) == 0
    assert Model.load(out).training["finished"] is True
