"""Arc labels (issue 57 item 1): the second-stage label model, its training, its exact per-arc choice, model
and score files with labels, and ``parse`` / ``compare`` writing valid UD labels and reporting LAS."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from lpparse.cli import main
from lpparse.corpus import Sentence, corpus_uas, read_treebank, sample_treebank_path, write_treebank
from lpparse.evaluation import paired_bootstrap
from lpparse.scores import SentenceScores, load_scores, save_scores
from lpparse.scoring import Model, Vocabulary
from lpparse.scoring.labels import LabelFeatures, Labeller, choose_labels, label_ids, label_set
from lpparse.scoring.model import ModelFormatError
from lpparse.training import LabelConfig, train_labels

SAMPLE = sample_treebank_path()
SENTENCES = read_treebank(SAMPLE)


def check_ud_labels(path: Path, root: str = "root") -> list[Sentence]:
    """Assert that a parse output is valid UD in heads and labels: every token has a label, the ``root`` label
    is on exactly the tokens attached to 0, and a single-rooted tree has one; returns its sentences."""
    sentences = read_treebank(path)  # a tree: no cycle, heads in range (read_treebank checks them)
    for s in sentences:
        heads, labels = s.heads[1:], s.labels[1:]
        assert "_" not in labels, s.sent_id
        is_root = np.array([label == root for label in labels])
        assert np.array_equal(is_root, heads == 0), (s.sent_id, list(zip(heads, labels)))
    return sentences


@pytest.fixture(scope="module")
def labelled_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A first-order model with labels, trained on the sample by the command."""
    path = tmp_path_factory.mktemp("labels") / "model.npz"
    args = ["train", "--treebank", str(SAMPLE), "--dev", str(SAMPLE), "--dev-limit", "10", "--epochs", "2"]
    args += [
        "--bits",
        "16",
        "--label-bits",
        "14",
        "--trainer",
        "perceptron",
        "--no-progress",
        "--out",
        str(path),
    ]
    assert main(args) == 0
    return path


def _tiny_labeller(seed: int, names: tuple[str, ...] = ("root", "nsubj", "obj", "punct")) -> Labeller:
    rng = np.random.default_rng(seed)
    return Labeller(names, 0, bits=10, weights=rng.normal(size=1 << 10))


# ------------------------------------------------------------------------------------- features, training


def test_label_set_and_root_label() -> None:
    names, root = label_set(SENTENCES)
    assert names[root] == "root" and "punct" in names and "_" not in names
    assert len(set(names)) == len(names)


def test_label_scores_are_the_sums_of_their_features_weights() -> None:
    vocab = Vocabulary.build(SENTENCES)
    labeller = _tiny_labeller(0)
    s = SENTENCES[7]
    features = LabelFeatures.of(label_ids(s, vocab), labeller.templates)
    scores = features.scores(labeller.weights, len(labeller.names), labeller.bits)
    assert scores.shape == (features.heads.size, len(labeller.names))
    for label in range(len(labeller.names)):
        column = np.full(features.heads.size, label)
        slots, arc = features.labelled_slots(column, labeller.bits)
        expected = np.bincount(arc, weights=labeller.weights[slots], minlength=features.heads.size)
        np.testing.assert_allclose(scores[:, label], expected)
    # the label is conjoined with every feature: another label, other slots
    a, _ = features.labelled_slots(np.zeros(features.heads.size, np.int64), labeller.bits)
    b, _ = features.labelled_slots(np.ones(features.heads.size, np.int64), labeller.bits)
    assert np.mean(a != b) > 0.9


def test_training_learns_the_sample_labels() -> None:
    vocab = Vocabulary.build(SENTENCES)
    labeller = train_labels(vocab, SENTENCES, SENTENCES[:10], LabelConfig(epochs=4, bits=14, progress=False))
    assert labeller.root_label == "root" and labeller.training["history"]
    assert labeller.training["history"][labeller.training["best_epoch"] - 1]["dev_accuracy"] > 0.9
    right = total = 0
    for s in SENTENCES:
        predicted = labeller.tree_labels(vocab, s, s.heads)
        right += sum(p == g for p, g in zip(predicted[1:], s.labels[1:]))
        total += s.n
    assert right / total > 0.9  # the training data, nearly learnt in 4 epochs


def test_best_label_per_arc_is_the_best_labelling_by_brute_force() -> None:
    vocab = Vocabulary.build(SENTENCES)
    for seed, s in enumerate(x for x in SENTENCES if 3 <= x.n <= 4):
        labeller = _tiny_labeller(seed)
        table = labeller.arc_label_scores(vocab, s)
        heads = s.heads.copy() if seed % 2 else np.array([-1, 0, *range(1, s.n)])  # or a chain
        m = np.arange(1, s.n + 1)
        best, best_value = None, -np.inf
        for labels in itertools.product(range(len(labeller.names)), repeat=s.n):
            labels = np.array(labels)
            if not np.array_equal(labels == labeller.root, heads[1:] == 0):  # valid UD only
                continue
            value = table[heads[1:], m, labels].sum()
            if value > best_value:
                best, best_value = labels, value
        assert best is not None
        assert labeller.tree_labels(vocab, s, heads)[1:] == [labeller.names[i] for i in best]
        np.testing.assert_array_equal(choose_labels(table[heads[1:], m], heads[1:], labeller.root), best)


def test_choose_labels_puts_the_root_label_on_head_zero_arcs_only() -> None:
    scores = np.array([[5.0, 1.0, 0.0], [0.0, 1.0, 2.0], [9.0, -1.0, -2.0]])
    assert choose_labels(scores, [2, 0, 1], root=0).tolist() == [1, 0, 1]


# ------------------------------------------------------------------------------------- LAS, compare


def test_las_on_a_hand_example() -> None:
    s = SENTENCES[1]  # Please sit down . : heads 2 0 2 2, labels discourse root compound:prt punct
    assert s.heads.tolist() == [-1, 2, 0, 2, 2] and s.cpos[4] == "PUNCT"
    heads = np.array([-1, 2, 0, 2, 3])  # the period attached to 'down': wrong
    labels = ["<root>", "discourse", "root", "obj", "punct"]  # 'down' mislabelled
    score = corpus_uas([s], [heads], [labels])
    assert (score.correct, score.total, score.correct_labelled) == (3, 4, 2)
    assert (score.correct_no_punct, score.total_no_punct, score.correct_labelled_no_punct) == (3, 3, 2)
    assert score.las == pytest.approx(0.5) and score.las_no_punct == pytest.approx(2 / 3)
    assert score.uas == pytest.approx(0.75) and not corpus_uas([s], [heads]).labelled
    assert np.isnan(corpus_uas([s], [heads]).las)


def _mislabel(s: Sentence, count: int) -> list[str]:
    """The gold labels with the first ``count`` non-root labels replaced."""
    out = list(s.labels)
    for m in [m for m in range(1, s.n + 1) if s.heads[m] != 0][:count]:
        out[m] = "dep"
    return out


def test_compare_bootstraps_las(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "a.conllu", tmp_path / "b.conllu"
    labels_a = [_mislabel(s, 2) for s in SENTENCES]
    labels_b = [_mislabel(s, 1) for s in SENTENCES]
    heads = [s.heads for s in SENTENCES]
    write_treebank(a, SENTENCES, heads, labels_a)
    write_treebank(b, SENTENCES, heads, labels_b)
    assert main(["compare", str(SAMPLE), str(a), str(b), "--samples", "300"]) == 0
    out = capsys.readouterr().out
    las = paired_bootstrap(SENTENCES, heads, heads, samples=300, labels_a=labels_a, labels_b=labels_b)
    assert las.metric == "LAS" and las.delta > 0 and las.p_value == 0.0
    assert f"LAS A {a}: {100 * las.uas_a:.2f}" in out and f"LAS B {b}: {100 * las.uas_b:.2f}" in out
    assert f"LAS B - A: {100 * las.delta:+.2f} points" in out and "UAS B - A: +0.00 points" in out
    with pytest.raises(ValueError, match="both systems"):
        paired_bootstrap(SENTENCES, heads, heads, labels_a=labels_a)


# ------------------------------------------------------------------------------------- model and score files


def test_labelled_model_round_trip_and_damage(labelled_model: Path, tmp_path: Path) -> None:
    model = Model.load(labelled_model)
    assert model.labels is not None and model.labels.root_label == "root"
    copy = tmp_path / "copy.npz"
    model.save(copy)
    again = Model.load(copy)
    assert again.labels is not None and again.labels.names == model.labels.names
    np.testing.assert_array_equal(again.labels.weights, model.labels.weights)
    with np.load(copy) as archive:
        meta = json.loads(str(archive["meta"]))
        arrays = {k: archive[k] for k in archive.files if k != "meta"}
    assert meta["version"] == 5
    meta["labels"]["root"] = 99
    bad = tmp_path / "bad.npz"
    np.savez(bad, meta=np.array(json.dumps(meta)), **arrays)
    with pytest.raises(ModelFormatError, match="not a label set"):
        Model.load(bad)


def test_score_files_with_labels_round_trip(tmp_path: Path) -> None:
    rng = np.random.default_rng(0)
    names = ("root", "nsubj", "obj")
    entries = [
        SentenceScores(f"s{n}", rng.normal(size=(n + 1, n + 1)), labels=rng.normal(size=(n + 1, n + 1, 3)))
        for n in (2, 5)
    ]
    path = tmp_path / "scores.npz"
    save_scores(path, entries, labels=(names, "root"))
    loaded = load_scores(path)
    assert loaded.label_names == names and loaded.root_label == 0
    for entry, back in zip(entries, loaded):
        np.testing.assert_array_equal(back.labels, entry.labels)
    with pytest.raises(ValueError, match="label names"):
        save_scores(tmp_path / "x.npz", entries)
    with pytest.raises(ValueError, match="2 label scores an arc for 3 labels"):
        save_scores(
            tmp_path / "x.npz",
            [SentenceScores("s", entries[0].arcs, labels=np.zeros((3, 3, 2)))],
            labels=(names, "root"),
        )


def test_parse_writes_valid_ud_labels_never_the_inputs(
    labelled_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    leaky = tmp_path / "leaky.conllu"  # the input's DEPREL must never reach the output
    write_treebank(leaky, SENTENCES, labels=[["<root>", *(["LEAK"] * s.n)] for s in SENTENCES])
    out = tmp_path / "pred.conllu"
    assert (
        main(
            [
                "parse",
                "--model",
                str(labelled_model),
                "--treebank",
                str(leaky),
                "--out",
                str(out),
                "--no-progress",
            ]
        )
        == 0
    )
    capsys.readouterr()
    parsed = check_ud_labels(out)
    assert not any("LEAK" in s.labels for s in parsed)
    # against the real labels: LAS printed beside UAS, and equal to the output's
    gold_out = tmp_path / "gold-pred.conllu"
    assert (
        main(
            [
                "parse",
                "--model",
                str(labelled_model),
                "--treebank",
                str(SAMPLE),
                "--out",
                str(gold_out),
                "--no-progress",
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    predicted = check_ud_labels(gold_out)
    score = corpus_uas(SENTENCES, [s.heads for s in predicted], [s.labels for s in predicted])
    assert f"LAS {100 * score.las:.2f}%, LAS no punct {100 * score.las_no_punct:.2f}%" in printed
    assert 0.5 < score.las <= score.uas


def test_scores_export_carries_labels_and_parse_uses_them(labelled_model: Path, tmp_path: Path) -> None:
    scores = tmp_path / "scores.npz"
    assert (
        main(
            [
                "scores",
                "export",
                "--model",
                str(labelled_model),
                "--treebank",
                str(SAMPLE),
                "--out",
                str(scores),
                "--no-progress",
            ]
        )
        == 0
    )
    loaded = load_scores(scores)
    model = Model.load(labelled_model)
    assert model.labels is not None and loaded.label_names == model.labels.names
    assert loaded[0].labels is not None and loaded[0].labels.shape == (4, 4, len(model.labels.names))
    by_model, by_scores = tmp_path / "model.conllu", tmp_path / "scores.conllu"
    for flag, path, out in (("--model", labelled_model, by_model), ("--scores", scores, by_scores)):
        assert (
            main(["parse", flag, str(path), "--treebank", str(SAMPLE), "--out", str(out), "--no-progress"])
            == 0
        )
    assert by_model.read_text() == by_scores.read_text()
    check_ud_labels(by_scores)


def test_models_without_labels_still_parse(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    vocab = Vocabulary.build(SENTENCES)
    old = tmp_path / "old.npz"
    model = Model(vocab, bits=12, weights=np.random.default_rng(0).normal(size=1 << 12))
    model.save(old)  # no labels: written as version 1, as lpparse before labels wrote it
    with np.load(old) as archive:
        assert '"version": 1' in str(archive["meta"]) and "label_index" not in archive.files
    out = tmp_path / "pred.conllu"
    assert (
        main(["parse", "--model", str(old), "--treebank", str(SAMPLE), "--out", str(out), "--no-progress"])
        == 0
    )
    captured = capsys.readouterr()
    assert captured.err.count("no label scores") == 1 and "labelled 'dep', each root 'root'" in captured.err
    assert "LAS" not in captured.out  # no label model: no LAS to report
    parsed = check_ud_labels(out)
    assert {label for s in parsed for label in s.labels[1:]} == {"root", "dep"}


def test_train_without_labels_and_labels_only(
    labelled_model: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plain = tmp_path / "plain.npz"
    common = [
        "--treebank",
        str(SAMPLE),
        "--epochs",
        "1",
        "--bits",
        "14",
        "--trainer",
        "perceptron",
        "--no-progress",
    ]
    assert main(["train", *common, "--no-labels", "--out", str(plain)]) == 0
    assert Model.load(plain).labels is None
    added = tmp_path / "added.npz"
    args = [
        "train",
        "--treebank",
        str(SAMPLE),
        "--dev",
        str(SAMPLE),
        "--init",
        str(plain),
        "--labels-only",
        "--label-epochs",
        "2",
        "--label-bits",
        "12",
        "--no-progress",
        "--out",
        str(added),
    ]
    assert main(args) == 0
    assert "LAS" in capsys.readouterr().out
    model, start = Model.load(added), Model.load(plain)
    assert model.labels is not None and model.labels.bits == 12
    np.testing.assert_array_equal(model.weights, start.weights)  # the arcs untouched
    assert main(["train", *common, "--labels-only", "--out", str(tmp_path / "x.npz")]) == 2
