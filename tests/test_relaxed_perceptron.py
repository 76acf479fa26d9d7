"""The perceptron and the structured hinge loss with the second-order LP as their decoder (relaxed training,
Martins, Smith & Xing 2009): the update against brute force, training over pruned arcs, the dev decoder they
record, and the CLI."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lpparse import training
from lpparse.cli import main
from lpparse.corpus import read_treebank, sample_treebank_path
from lpparse.decoder import dense_sibling_scores, dense_triple_scores
from lpparse.oracles import brute_force
from lpparse.parsing import default_decoder, evaluate
from lpparse.ppc import solve_bf
from lpparse.pruning import ArcPruning, pruning_mask
from lpparse.scoring import SIBLING_TEMPLATES, Model, Vocabulary
from lpparse.training import TrainConfig, gold_triples, train
from lpparse.triples import DenseSiblingScorer, DenseTripleScorer, tree_siblings

SAMPLE = read_treebank(sample_treebank_path())
VOCAB = Vocabulary.build(SAMPLE)
SHORT = [s for s in SAMPLE if s.n <= 6]
SMALL = [s for s in SAMPLE if s.n <= 9]
BITS = 14


def _model(siblings: bool, single_root: bool = False, seed: int | None = None, scale: float = 0.3) -> Model:
    model = Model(
        VOCAB, order=2, bits=BITS, single_root=single_root, siblings=SIBLING_TEMPLATES if siblings else ()
    )
    if seed is not None:
        model.weights = np.random.default_rng(seed).normal(0.0, scale, 1 << BITS)
    return model


def _dense(idx: np.ndarray, val: np.ndarray) -> np.ndarray:
    return np.bincount(idx, weights=val, minlength=1 << BITS)


def _features(model: Model, sentence, heads: np.ndarray) -> np.ndarray:
    """f(tree) as a dense vector over the hashed slots, from the scorers' slots (no LP involved)."""
    scorer = model.scorer(sentence)
    indicator = np.zeros((heads.size, heads.size))
    indicator[heads[1:], np.arange(1, heads.size)] = 1.0
    idx, val = scorer.arcs.gradient(indicator)
    out = _dense(idx, val) + _dense(scorer.triples().slots(*gold_triples(heads)).ravel(), None)
    if model.siblings:
        sibs = scorer.siblings().slots(*tree_siblings(heads)).ravel()
        out += _dense(sibs, np.ones(sibs.size))
    return out


@settings(deadline=None, max_examples=30, suppress_health_check=[HealthCheck.too_slow])
@given(
    index=st.integers(0, len(SHORT) - 1),
    seed=st.integers(0, 2**32 - 1),
    siblings=st.booleans(),
    scale=st.sampled_from([0.05, 0.3]),
)
def test_relaxed_update_against_brute_force(index: int, seed: int, siblings: bool, scale: float) -> None:
    """The LP optimum is the brute-force LP's (solved over dense scores); the update Δ moves the scores by
    exactly the loss (w·Δ = s(y*) − LP optimum); when the LP optimum is integral, Δ = f(y*) − f(ŷ) for the
    brute-force best tree ŷ, and with exact decoding always."""
    sentence = SHORT[index]
    model = _model(siblings, seed=seed, scale=scale)
    scorer = model.scorer(sentence)
    arcs = scorer.arc_scores()
    gold = sentence.heads
    update = training._second_order_step(scorer, arcs, "bf", 0.0, gold)
    gp = dense_triple_scores(arcs, scorer.triples())
    sib = dense_sibling_scores(arcs, scorer.siblings(), False) if siblings else None
    reference = solve_bf(
        arcs, DenseTripleScorer(gp), sibling_scorer=None if sib is None else DenseSiblingScorer(sib)
    )
    best, best_value = brute_force(arcs, gp_scores=gp, sib_scores=sib)
    gold_value = float(model.weights @ _features(model, sentence, gold))
    assert reference.objective >= best_value - 1e-7 and best_value >= gold_value - 1e-7
    assert not update.unsolved and update.fractional == (not reference.integral)
    delta = _dense(update.idx, update.val)
    assert update.loss == pytest.approx(reference.objective - gold_value, abs=1e-6)
    assert model.weights @ delta == pytest.approx(-update.loss, abs=1e-6)
    expected = _features(model, sentence, gold) - _features(model, sentence, best)
    if reference.integral:
        assert np.allclose(delta, expected, atol=1e-9)
    exact = training._second_order_step(model.scorer(sentence), arcs, "exact", 0.0, gold)
    assert not exact.unsolved and exact.loss == pytest.approx(best_value - gold_value, abs=1e-6)
    assert np.allclose(_dense(exact.idx, exact.val), expected, atol=1e-9)


@pytest.mark.parametrize("siblings", [False, True])
def test_loss_augmented_decoding_adds_the_hamming_cost(siblings: bool) -> None:
    """With cost c the decoder maximizes s(μ) + c·(wrong heads of μ): the loss is at least c·(wrong heads of
    the best tree) above the plain one, and a huge cost makes every head wrong whenever a tree allows it."""
    sentence = next(s for s in SMALL if s.n >= 5)
    model = _model(siblings, seed=3)
    scorer = model.scorer(sentence)
    arcs = scorer.arc_scores()
    plain = training._second_order_step(scorer, arcs, "bf", 0.0, sentence.heads)
    augmented = training._second_order_step(model.scorer(sentence), arcs, "bf", 1.0, sentence.heads)
    assert augmented.loss >= plain.loss - 1e-7
    huge = training._second_order_step(model.scorer(sentence), arcs, "bf", 1e4, sentence.heads)
    assert abs(huge.loss - 1e4 * sentence.n) < 1e3  # a tree with every head wrong exists for n >= 2 words
    with pytest.raises(ValueError, match="cost .* needs an LP or exact decoder"):
        train(_model(False), SHORT, [], TrainConfig(trainer="perceptron", cost=1.0, progress=False))


def test_relaxed_perceptron_fits_its_training_sentences_and_records_its_decoder() -> None:
    model = _model(True)
    config = TrainConfig(trainer="perceptron", epochs=6, patience=6, progress=False)
    history = train(model, SHORT, SHORT[:10], config)
    assert history[-1].loss < history[0].loss and history[0].fractional > 0
    assert model.training["decoder"] == "auto" == default_decoder(model)
    assert default_decoder(model, trained=False) == "bp"
    assert evaluate(model, SHORT).uas > 0.95  # the default decoder: auto, as trained
    assert model.training["config"]["decoder"] == "auto" and model.training["config"]["cost"] == 0.0
    exact = _model(True)
    history = train(
        exact, SHORT, [], TrainConfig(trainer="perceptron", decoder="exact", epochs=4, progress=False)
    )
    assert history[-1].loss < history[0].loss and default_decoder(exact) == "exact"
    assert exact.training["decoder_options"] == {"time_limit": training.EXACT_TRAIN_TIME_LIMIT}
    assert evaluate(exact, SHORT).uas > 0.95
    with pytest.raises(ValueError, match="one of auto, bf, ppc, exact, not 'gp-eisner'"):
        train(_model(True), SHORT, [], TrainConfig(trainer="perceptron", decoder="gp-eisner", progress=False))
    with pytest.raises(ValueError, match="options of the perceptron"):
        train(_model(True), SHORT, [], TrainConfig(decoder="auto", progress=False))


def test_hinge_trainer_takes_adagrad_steps_against_the_relaxed_update(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The hinge trainer minimizes: AdaGrad gets minus the perceptron's update; and it fits the sentences."""
    steps: list[np.ndarray] = []
    real_step, real_update = training.AdaGrad.step, training._second_order_step
    updates: list[np.ndarray] = []

    def spy_adagrad(self, w, idx, val):  # type: ignore[no-untyped-def]
        steps.append(_dense(idx, val))
        return real_step(self, w, idx, val)

    def spy_update(*args):  # type: ignore[no-untyped-def]
        update = real_update(*args)
        if update.idx.size:
            updates.append(_dense(update.idx, update.val))
        return update

    monkeypatch.setattr(training.AdaGrad, "step", spy_adagrad)
    monkeypatch.setattr(training, "_second_order_step", spy_update)
    model = _model(True)
    history = train(
        model,
        SHORT,
        [],
        TrainConfig(trainer="hinge", cost=1.0, epochs=4, patience=4, learning_rate=1.0, progress=False),
    )
    assert len(steps) == len(updates) > 0 and all(np.array_equal(a, -b) for a, b in zip(steps, updates))
    assert history[-1].loss < history[0].loss
    assert evaluate(model, SHORT).uas > 0.95
    with pytest.raises(ValueError, match="trainer must be one of cll, perceptron, hinge"):
        train(_model(True), SHORT, [], TrainConfig(trainer="svm", progress=False))


@pytest.fixture(scope="module")
def pruner() -> Model:
    model = Model(VOCAB, order=1, bits=16)
    train(model, SAMPLE[:60], [], TrainConfig(epochs=1, progress=False))
    return model


def test_training_decodes_over_the_pruned_arcs_and_the_gold_ones(
    pruner: Model, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each training sentence is decoded over the arcs the pruner keeps plus its gold arcs; the dev sentences
    over the arcs the pruner keeps, with the same options."""
    options = ArcPruning(threshold=0.05, max_heads=2)
    seen: dict[int, np.ndarray] = {}
    relaxed, evaluated = training._second_order_step, []

    def spy_step(scorer, arcs, decoder, cost, gold):  # type: ignore[no-untyped-def]
        seen[id(gold)] = np.isfinite(arcs)
        return relaxed(scorer, arcs, decoder, cost, gold)

    def spy_evaluate(model, sentences, decoder=None, progress=False, **kwargs):  # type: ignore[no-untyped-def]
        evaluated.append(kwargs)
        return evaluate(model, sentences, decoder, progress, **kwargs)

    monkeypatch.setattr(training, "_second_order_step", spy_step)
    monkeypatch.setattr(training, "evaluate", spy_evaluate)
    model = _model(True)
    train(
        model,
        SMALL,
        SMALL[:4],
        TrainConfig(trainer="perceptron", epochs=1, pruning=options, progress=False),
        pruner=pruner,
    )
    assert evaluated == [{"pruning": options, "pruner": pruner}]
    assert len(seen) == len(SMALL)
    pruned_gold = 0
    for s in SMALL:
        mask = pruning_mask(pruner.scorer(s).arc_scores(), options)
        m = np.arange(1, s.n + 1)
        pruned_gold += int((~mask[s.heads[1:], m]).sum())
        mask[s.heads[1:], m] = True
        assert np.array_equal(seen[id(s.heads)], mask)
    assert pruned_gold > 0  # the gold arcs really had to be put back
    with pytest.raises(ValueError, match="with the model's root rule; it is an order-1, multi-root model"):
        config = TrainConfig(trainer="perceptron", pruning=options, progress=False)
        train(_model(True, single_root=True), SHORT, [], config, pruner=pruner)
    with pytest.raises(ValueError, match="pruning needs a first-order pruner"):
        train(_model(True), SHORT, [], TrainConfig(trainer="perceptron", pruning=options, progress=False))


def test_cli_trains_a_sibling_model_by_the_relaxed_perceptron_over_pruned_arcs(
    tmp_path: Path, pruner: Model, capsys: pytest.CaptureFixture[str]
) -> None:
    sample = str(sample_treebank_path())
    first, model = tmp_path / "first.npz", tmp_path / "sib.npz"
    pruner.save(first)
    data = ["--treebank", sample, "--dev", sample]
    options = "--dev-limit 5 --order 2 --siblings --multi-root --trainer perceptron --epochs 1 --bits 16"
    options += " --limit 30 --max-length 12"
    args = ["train", *data, *options.split()]
    assert (
        main(
            [*args, "--pruner", str(first), "--prune-threshold", "0.01", "--out", str(model), "--no-progress"]
        )
        == 0
    )
    out = capsys.readouterr().out
    assert "LP fractional on" in out and "dev UAS" in out
    trained = Model.load(model)
    assert (
        trained.training["pruner"] == str(first)
        and trained.training["config"]["pruning"]["threshold"] == 0.01
    )
    # the pruner travels inside the model: parse prunes as training did with no flag, even without its file
    first.rename(tmp_path / "moved.npz")
    parse = ["parse", "--model", str(model), "--treebank", sample, "--limit", "3", "--no-progress"]
    outs = {name: tmp_path / f"{name}.conllu" for name in ("trained", "explicit", "unpruned")}
    assert main([*parse, "--out", str(outs["trained"])]) == 0
    out, err = capsys.readouterr()
    assert "decoder auto" in out and "arc pruning: kept" in out and "Pass the same" not in err
    assert main([*parse, "--pruner", str(tmp_path / "moved.npz"), "--prune-threshold", "0.01", "--out", str(outs["explicit"])]) == 0
    assert "arc pruning: kept" in capsys.readouterr().out
    assert outs["trained"].read_text() == outs["explicit"].read_text()
    assert main([*parse, "--no-prune", "--out", str(outs["unpruned"])]) == 0
    out, err = capsys.readouterr()
    assert "arc pruning" not in out and "Pass the same" not in err
    assert main([*parse, "--no-prune", "--prune-threshold", "0.1"]) == 2
    assert "--no-prune" in capsys.readouterr().err
    # exact proofs over the arcs as trained, checked with no flag either: the checker decides as parse does
    proofs, trees = tmp_path / "p.jsonl", tmp_path / "exact.conllu"
    assert main([*parse, "--decoder", "exact", "--out", str(trees), "--proof", str(proofs)]) == 0
    capsys.readouterr()
    check = ["check-proof", str(proofs), "--model", str(model), "--treebank", sample, "--no-progress"]
    assert main([*check, "--trees", str(trees)]) == 0
    assert "as trained" in capsys.readouterr().out
    # a model whose file holds no pruner (trained before pruners travelled with models): warned, unpruned
    old = Model.load(model)
    old.pruner = None
    old.save(tmp_path / "old.npz")
    assert main(["parse", "--model", str(tmp_path / "old.npz"), *parse[3:]]) == 0
    out, err = capsys.readouterr()
    assert "arc pruning" not in out and "Pass the same --pruner and --prune-threshold" in err
    assert main([*args, "--trainer", "hinge", "--out", str(model), "--no-progress"]) == 0
    assert Model.load(model).training["config"]["cost"] == 1.0  # the hinge's default margin
    capsys.readouterr()
    for extra, message in (
        (["--prune-threshold", "0.01"], "needs --pruner"),
        (["--decoder", "gp-eisner"], "one of auto, bf, ppc, exact, not 'gp-eisner'"),
        (["--pruner", str(model)], "the pruner must be a first-order model"),
        (["--trainer", "cll", "--cost", "1"], "options of the perceptron and hinge trainers, not of cll"),
    ):
        assert main([*args, *extra, "--out", str(tmp_path / "x.npz"), "--no-progress"]) == 2
        assert message in capsys.readouterr().err
