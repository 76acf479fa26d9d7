"""Arc pruning (lpparse.pruning): the kept arcs against marginals by enumeration, a tree always remains, and
decoding over the kept arcs is exact for the pruned problem (brute force over the trees that use them)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpparse.cli import main
from lpparse.corpus import sample_treebank_path
from lpparse.decoding import decode
from lpparse.oracles import chu_liu_edmonds
from lpparse.oracles.brute_force import all_trees, brute_force_marginals, second_order_tree_scores
from lpparse.pruning import ArcPruning, gold_recall, prune_arcs, pruning_mask
from lpparse.trees import check_tree_exists
from lpparse.triples import DenseSiblingScorer, DenseTripleScorer, synthetic_triple_scorer


def _scores(n: int, seed: int, scale: float) -> np.ndarray:
    rng = np.random.default_rng(seed)
    s = scale * rng.normal(size=(n + 1, n + 1))
    s[:, 0] = -np.inf
    np.fill_diagonal(s, -np.inf)
    return s


def _expected_mask(s: np.ndarray, options: ArcPruning, single_root: bool) -> np.ndarray:
    """The rule written out per word, with marginals by enumeration of all trees."""
    mu = brute_force_marginals(s, single_root)
    size = s.shape[0]
    keep = np.zeros((size, size), dtype=bool)
    for m in range(1, size):
        heads = sorted((h for h in range(size) if np.isfinite(s[h, m])), key=lambda h: (-mu[h, m], h))
        for rank, h in enumerate(heads):
            keep[h, m] = mu[h, m] >= options.threshold and rank < options.max_heads
    best = chu_liu_edmonds(s, single_root)
    keep[best[1:], np.arange(1, size)] = True
    return keep


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(1, 6),
    seed=st.integers(0, 10**6),
    scale=st.sampled_from([0.5, 2.0, 6.0]),
    threshold=st.sampled_from([0.0, 1e-4, 0.05, 0.3, 1.0]),
    max_heads=st.integers(1, 7),
    single_root=st.booleans(),
)
def test_mask_is_the_posterior_rule_plus_the_best_tree(
    n: int, seed: int, scale: float, threshold: float, max_heads: int, single_root: bool
) -> None:
    s = _scores(n, seed, scale)
    options = ArcPruning(threshold, max_heads)
    keep = pruning_mask(s, options, single_root)
    np.testing.assert_array_equal(keep, _expected_mask(s, options, single_root))
    pruned, kept = prune_arcs(s, options, single_root)
    check_tree_exists(pruned, single_root)  # the best tree survives
    assert np.array_equal(np.isfinite(pruned), keep)
    assert kept == pytest.approx(keep.sum() / np.isfinite(s).sum())


def test_nothing_is_pruned_at_threshold_zero_with_every_head() -> None:
    s = _scores(6, 3, 2.0)
    pruned, kept = prune_arcs(s, ArcPruning(0.0, 7))
    np.testing.assert_array_equal(pruned, s)
    assert kept == 1.0


def test_pruner_scores_give_the_posteriors_and_already_pruned_arcs_stay_pruned() -> None:
    s = _scores(5, 1, 1.0)
    s[2, 3] = -np.inf
    pruner = _scores(5, 2, 4.0)
    options = ArcPruning(0.05, 2)
    pruned, _ = prune_arcs(s, options, pruner_scores=pruner)
    masked = np.where(np.isfinite(s), pruner, -np.inf)
    np.testing.assert_array_equal(np.isfinite(pruned), _expected_mask(masked, options, False))
    assert not np.isfinite(pruned[2, 3])
    with pytest.raises(ValueError, match=r"pruner scores have shape \(4, 4\), arc scores \(6, 6\)"):
        prune_arcs(s, options, pruner_scores=pruner[:4, :4])
    with pytest.raises(ValueError, match="threshold"):
        ArcPruning(1.5)
    with pytest.raises(ValueError, match="max_heads"):
        ArcPruning(max_heads=0)


def test_gold_recall_counts_the_gold_arcs_kept() -> None:
    keep = np.zeros((4, 4), dtype=bool)
    keep[0, 1] = keep[1, 2] = True
    assert gold_recall(keep, [-1, 0, 1, 1]) == (2, 3)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 6), seed=st.integers(0, 10**6), decoder=st.sampled_from(["cle", "bf", "ppc"]))
def test_decoding_is_exact_over_the_kept_arcs(n: int, seed: int, decoder: str) -> None:
    rng = np.random.default_rng(seed)
    s = _scores(n, seed, 2.0)
    gp = rng.normal(size=(n + 1,) * 3)
    sib = rng.normal(size=(n + 1,) * 3)
    options = ArcPruning(0.1, 2)
    keep = pruning_mask(s, options)
    result = decode(
        decoder, s, DenseTripleScorer(gp), False, DenseSiblingScorer(sib), pruning=options
    )
    np.testing.assert_array_equal(result.kept_arcs, keep)
    trees = all_trees(n)
    allowed = keep[trees[:, 1:], np.arange(1, n + 1)].all(axis=1)
    if decoder == "cle":
        values = second_order_tree_scores(trees[allowed], s)
    else:
        values = second_order_tree_scores(trees[allowed], s, gp, sib)
    assert keep[result.heads[1:], np.arange(1, n + 1)].all()
    if decoder == "cle" or result.stats.get("integral", True):
        assert result.objective == pytest.approx(values.max(), abs=1e-6)
    else:  # a fractional LP optimum bounds every tree over the kept arcs
        assert result.stats["lp_objective"] >= values.max() - 1e-6 >= result.objective - 2e-6


def test_parse_prune_reports_kept_arcs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sample = str(sample_treebank_path())
    model = tmp_path / "m.npz"
    train = ["train", "--treebank", sample, "--out", str(model), "--epochs", "1", "--bits", "14"]
    assert main(train + ["--order", "2", "--trainer", "perceptron", "--no-progress"]) == 0
    base = ["parse", "--model", str(model), "--treebank", sample, "--limit", "6", "--no-progress"]
    assert main(base + ["--decoder", "ppc", "--max-heads", "3"]) == 0
    text = capsys.readouterr().out
    assert "arc pruning: kept" in text and "of gold arcs" in text
    assert main(base + ["--decoder", "ppc", "--pruner", str(tmp_path / "missing.npz")]) != 0
    err = capsys.readouterr().err
    assert "missing.npz" in err and "Traceback" not in err


def test_projective_decoders_keep_a_projective_tree_after_pruning() -> None:
    """Pruning to one head per word keeps the best (non-projective) tree alone: no projective tree is left,
    unless the decoder is projective, when the best projective tree's arcs are kept too."""
    from lpparse.oracles import eisner
    from lpparse.trees import NoTreeError, is_projective

    rng = np.random.default_rng(0)
    tight = ArcPruning(threshold=0.0, max_heads=1)
    found = 0
    for _ in range(40):
        s = rng.normal(size=(8, 8))
        s[:, 0] = -np.inf
        np.fill_diagonal(s, -np.inf)
        pruned, _ = prune_arcs(s, tight)
        if is_projective(chu_liu_edmonds(pruned)):
            continue
        found += 1
        with pytest.raises(NoTreeError):
            eisner(pruned)
        kept, _ = prune_arcs(s, tight, projective=True)
        assert (np.isfinite(kept) >= np.isfinite(pruned)).all()
        assert is_projective(eisner(kept))
        for name in ("eisner", "gp-eisner"):
            gp = synthetic_triple_scorer(7, rng) if name == "gp-eisner" else None
            assert is_projective(decode(name, s, gp, pruning=tight).heads)
    assert found >= 5


def test_a_model_pruned_by_a_pruner_scores_the_kept_arcs_alone_and_decodes_as_if_it_scored_all() -> None:
    """decode_sentence with a pruner scores the model's features on the arcs the pruner keeps alone; the
    tree, objective, kept arcs and kept fraction are those of scoring every arc and pruning in decode."""
    from lpparse.corpus import read_treebank
    from lpparse.decoding import pruning_keep
    from lpparse.parsing import decode_sentence
    from lpparse.scoring import SIBLING_TEMPLATES, Model, Vocabulary

    sample = read_treebank(sample_treebank_path())
    vocab = Vocabulary.build(sample)
    rng = np.random.default_rng(3)
    model = Model(vocab, order=2, bits=14, siblings=SIBLING_TEMPLATES)
    model.weights = rng.normal(0.0, 0.3, 1 << 14)
    pruner = Model(vocab, order=1, bits=14)
    pruner.weights = rng.normal(0.0, 1.0, 1 << 14)
    options = ArcPruning(threshold=0.01, max_heads=3)
    for sentence in [s for s in sample if 4 <= s.n <= 12][:8]:
        pruner_scores = pruner.scorer(sentence).arc_scores()
        keep = pruning_keep("ppc", pruner_scores, options, False)
        full = model.scorer(sentence).arc_scores()
        kept_only = model.scorer(sentence, keep).arc_scores()
        np.testing.assert_array_equal(kept_only, np.where(keep, full, -np.inf))
        assert (~keep[np.isfinite(full)]).any()  # some arcs really were left unscored
        scorer = model.scorer(sentence)
        expected = decode(
            "ppc",
            full,
            scorer.triples("offline"),
            False,
            scorer.siblings(),
            pruning=options,
            pruner_scores=pruner_scores,
        )
        got = decode_sentence(model, sentence, "ppc", pruner=pruner, pruning=options)
        np.testing.assert_array_equal(got.heads, expected.heads)
        assert got.objective == pytest.approx(expected.objective, abs=1e-9)
        np.testing.assert_array_equal(got.kept_arcs, expected.kept_arcs)
        assert got.stats["arcs_kept"] == pytest.approx(expected.stats["arcs_kept"])
        assert got.stats["arcs_kept"] < 1.0
    with pytest.raises(ValueError, match="an arc mask of shape"):
        model.scorer(sample[0], np.ones((2, 2), dtype=bool))
