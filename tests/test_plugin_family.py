"""A part family in a package of its own (docs/examples/head_bigrams), installed into the environment the
commands run in, reaches every command that reads score files through the entry-point registry: exact
decoding with a proof, the K best trees, and the standalone proof checker, against brute-force enumeration
of the trees. Without the package, the same files are refused, naming the family."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from itertools import islice
from pathlib import Path

import numpy as np
import pytest

from lpparse.corpus import read_treebank, sample_treebank_path
from lpparse.families import GROUP, family_parts, registered
from lpparse.families.base import tree_scores
from lpparse.families.grandparent import GrandparentParts
from lpparse.inspect.sources import sentence_problem
from lpparse.oracles.brute_force import enumerate_trees
from lpparse.scores import SentenceScores, SparseParts, load_scores, save_scores
from lpparse.scoring import Model

PACKAGE = Path(__file__).resolve().parents[1] / "docs" / "examples" / "head_bigrams"
SENTENCES = 4  # short sample sentences: brute force enumerates their trees


@pytest.fixture(scope="module")
def plugin(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The example package installed (pip) into a directory on the path of this process and its commands,
    built from a copy of its source: pip builds in the source tree, and under pytest-xdist each worker that
    runs a test of this module installs it at the same time (one shared tree made a worker's build fail)."""
    target = tmp_path_factory.mktemp("site")
    source = tmp_path_factory.mktemp("source") / PACKAGE.name
    shutil.copytree(PACKAGE, source, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    sys.path.insert(0, str(target))
    registered.cache_clear()
    yield target
    sys.path.remove(str(target))
    registered.cache_clear()
    sys.modules.pop("head_bigrams", None)


def run(args: list[str], site: Path | None) -> subprocess.CompletedProcess[str]:
    """``lpparse ARGS`` with (or without) the installed package on the path."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(site) if site else "", os.environ.get("PYTHONPATH", "")])),
    }
    return subprocess.run(
        [sys.executable, "-m", "lpparse", *args], capture_output=True, text=True, env=env, timeout=600
    )


def best_scores(entry: SentenceScores, bigram: np.ndarray, k: int) -> list[float]:
    """The k best single-root tree scores (the sample treebank's rule) over arcs, grandparents and head
    bigrams, by enumeration."""
    values = []
    for heads in enumerate_trees(entry.n, single_root=True):
        m = np.arange(1, entry.n + 1)
        p = heads[m]
        score = entry.arcs[p, m].sum() + entry.gp[heads[p[p > 0]], p[p > 0], m[p > 0]].sum()
        b = np.arange(1, entry.n)
        values.append(score + bigram[heads[b], heads[b + 1], b].sum())
    return sorted(values, reverse=True)[:k]


@pytest.fixture(scope="module")
def files(plugin: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, list[SentenceScores]]:
    """A treebank of short sample sentences and a score file with arc, grandparent and head-bigram scores."""
    out = tmp_path_factory.mktemp("data")
    sentences = list(islice((s for s in read_treebank(sample_treebank_path()) if 3 <= s.n <= 6), SENTENCES))
    treebank = out / "short.conllu"
    blocks = sample_treebank_path().read_text(encoding="utf-8").strip().split("\n\n")
    wanted = {s.sent_id for s in sentences}
    treebank.write_text("\n\n".join(b for b in blocks if any(f"sent_id = {w}" in b for w in wanted)) + "\n\n")
    rng = np.random.default_rng(7)
    entries = []
    for s in sentences:
        size = s.n + 1
        entries.append(
            SentenceScores(
                s.sent_id,
                rng.normal(size=(size, size)),
                gp=rng.normal(size=(size,) * 3),
                more={"bigram": rng.normal(size=(size,) * 3) * 2.0},
            )
        )
    scores = out / "scores.npz"
    save_scores(scores, entries)
    return treebank, scores, entries


def test_the_package_registers_its_family(plugin: Path) -> None:
    assert list(registered())[-1] == "bigram"
    assert {"grandparent", "sibling", "consecutive", "trisibling", "grandsibling"} <= set(registered())


def test_score_files_keep_the_family(files: tuple[Path, Path, list[SentenceScores]]) -> None:
    _, scores, entries = files
    loaded = load_scores(scores)
    assert loaded.families == {"bigram": "bigram"} and loaded.meta["version"] == 4
    for entry, back in zip(entries, loaded):
        np.testing.assert_array_equal(np.asarray(back.more["bigram"]), entry.more["bigram"])
        assert [p.name for p in family_parts(back.part_scorers(), back.n)] == ["grandparent", "bigram"]


def test_exact_and_k_best_prove_the_brute_force_trees(
    files: tuple[Path, Path, list[SentenceScores]], plugin: Path, tmp_path: Path
) -> None:
    treebank, scores, entries = files
    common = ["--scores", str(scores), "--treebank", str(treebank), "--no-progress"]
    out, proof = tmp_path / "out.conllu", tmp_path / "proof.jsonl"
    done = run(["parse", *common, "--decoder", "exact", "--out", str(out), "--proof", str(proof)], plugin)
    assert done.returncode == 0, done.stderr
    for entry, tree in zip(entries, read_treebank(out)):
        bigram = np.asarray(entry.more["bigram"])
        heads = np.asarray(tree.heads)
        assert best_scores(entry, bigram, 1)[0] == pytest.approx(best_scores_of(entry, bigram, heads))
    checked = run(["check-proof", str(proof), *common, "--trees", str(out)], plugin)
    assert checked.returncode == 0, checked.stderr + checked.stdout
    kproof = tmp_path / "kbest.jsonl"
    done = run(
        [
            "parse",
            *common,
            "--decoder",
            "exact",
            "--k-best",
            "3",
            "--out",
            str(tmp_path / "k.conllu"),
            "--proof",
            str(kproof),
        ],
        plugin,
    )
    assert done.returncode == 0, done.stderr
    trees = list(read_treebank(tmp_path / "k.conllu"))
    assert len(trees) == 3 * len(entries)  # the K trees of a sentence, best first
    for i, entry in enumerate(entries):
        bigram = np.asarray(entry.more["bigram"])
        found = [best_scores_of(entry, bigram, np.asarray(t.heads)) for t in trees[3 * i : 3 * i + 3]]
        assert found == pytest.approx(best_scores(entry, bigram, 3))
    checked = run(["check-proof", str(kproof), *common], plugin)
    assert checked.returncode == 0, checked.stderr + checked.stdout


def best_scores_of(entry: SentenceScores, bigram: np.ndarray, heads: np.ndarray) -> float:
    """One tree's score over arcs, grandparents and head bigrams."""
    m = np.arange(1, entry.n + 1)
    p = heads[m]
    word = p > 0
    b = np.arange(1, entry.n)
    return float(
        entry.arcs[p, m].sum()
        + entry.gp[heads[p[word]], p[word], m[word]].sum()
        + bigram[heads[b], heads[b + 1], b].sum()
    )


def test_without_the_package_the_family_is_refused(
    files: tuple[Path, Path, list[SentenceScores]], tmp_path: Path
) -> None:
    treebank, scores, _ = files
    done = run(
        [
            "parse",
            "--scores",
            str(scores),
            "--treebank",
            str(treebank),
            "--decoder",
            "exact",
            "--out",
            str(tmp_path / "o.conllu"),
        ],
        None,
    )
    assert done.returncode != 0
    assert "bigram" in done.stderr and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.count("\n") == 1  # one line
    assert GROUP == "lpparse.families"


@pytest.fixture(scope="module")
def trained(plugin: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A model trained with arcs, grandparents and head bigrams on the sample treebank (lpparse train
    --families bigram: the family's own feature templates)."""
    model = tmp_path_factory.mktemp("model") / "bigram.npz"
    args = ["train", "--treebank", str(sample_treebank_path()), "--order", "2", "--families", "bigram"]
    args += ["--trainer", "perceptron", "--epochs", "1", "--limit", "25", "--out", str(model), "--no-progress"]
    done = run(args, plugin)
    assert done.returncode == 0, done.stderr
    assert [t.name for t in Model.load(model).families] == ["bigram"]
    return model


def test_train_export_parse_prove_and_k_best_through_the_cli(trained: Path, plugin: Path, tmp_path: Path) -> None:
    """The trained model exported to a score file and read back: parse --decoder exact --proof over the model
    and over its scores give the same trees, whose proofs check; the K best too; inspect sees the family."""
    sample = str(sample_treebank_path())
    model = trained
    scores = tmp_path / "scores.npz"
    exported = run(
        ["scores", "export", "--model", str(model), "--treebank", sample, "--out", str(scores), "--no-progress"], plugin
    )
    assert exported.returncode == 0 and "bigram" in exported.stdout, exported.stderr
    outputs = {}
    for source in (["--model", str(model)], ["--scores", str(scores)]):
        out, proof = tmp_path / f"{source[0][2:]}.conllu", tmp_path / f"{source[0][2:]}.jsonl"
        common = [*source, "--treebank", sample, "--no-progress"]
        done = run(["parse", *common, "--decoder", "exact", "--out", str(out), "--proof", str(proof)], plugin)
        assert done.returncode == 0, done.stderr
        checked = run(["check-proof", str(proof), *common, "--trees", str(out)], plugin)
        assert checked.returncode == 0, checked.stderr + checked.stdout
        outputs[source[0]] = [s.heads for s in read_treebank(out)]
    assert all(np.array_equal(a, b) for a, b in zip(outputs["--model"], outputs["--scores"]))
    kproof = tmp_path / "k.jsonl"
    common = ["--model", str(model), "--treebank", sample, "--no-progress"]
    done = run(
        [
            "parse",
            *common,
            "--decoder",
            "exact",
            "--k-best",
            "2",
            "--limit",
            "10",
            "--out",
            str(tmp_path / "k.conllu"),
            "--proof",
            str(kproof),
        ],
        plugin,
    )
    assert done.returncode == 0, done.stderr
    assert run(["check-proof", str(kproof), *common], plugin).returncode == 0
    problem = sentence_problem(Model.load(model), read_treebank(sample_treebank_path())[3], 3, True)
    assert "bigram" in [p.name for p in problem.parts]
    chosen = sentence_problem(Model.load(model), read_treebank(sample_treebank_path())[3], 3, True, parts=("bigram",))
    assert [p.name for p in chosen.parts] == ["bigram"]


def test_parts_chooses_the_families_to_decode_prove_and_check(trained: Path, plugin: Path, tmp_path: Path) -> None:
    """--parts grandparent decodes the bigram model without its bigrams: the trees are brute force's over arcs
    and grandparents (first sentences of up to 7 tokens), their proofs check under the same --parts and are
    refused without it (the problem differs); a family the model lacks is a usage error."""
    sample = sample_treebank_path()
    common = ["--model", str(trained), "--treebank", str(sample), "--no-progress"]
    out, proof = tmp_path / "gp.conllu", tmp_path / "gp.jsonl"
    args = ["parse", *common, "--decoder", "exact", "--parts", "grandparent", "--out", str(out), "--proof", str(proof)]
    assert run(args, plugin).returncode == 0
    model = Model.load(trained)
    for sentence, tree in zip(read_treebank(sample), read_treebank(out)):
        if sentence.n > 7:
            continue
        scorer = model.scorer(sentence)
        arcs, triples = scorer.arc_scores(), scorer.triples()
        parts = [GrandparentParts(triples)]
        best = tree_scores(arcs, parts, list(enumerate_trees(sentence.n, single_root=True))).max()
        assert tree_scores(arcs, parts, [np.asarray(tree.heads)])[0] == pytest.approx(best)
    same = run(["check-proof", str(proof), *common, "--parts", "grandparent", "--trees", str(out)], plugin)
    assert same.returncode == 0, same.stderr + same.stdout
    assert "with the grandparent parts only" in same.stdout
    other = run(["check-proof", str(proof), *common], plugin)
    assert other.returncode == 1 and "the proof is over the families ['grandparent']" in other.stdout + other.stderr
    lacking = run(["parse", *common, "--parts", "sibling", "--out", str(tmp_path / "x.conllu")], plugin)
    assert lacking.returncode == 2 and "has no sibling parts (grandparent, bigram)" in lacking.stderr


def test_train_refuses_families_it_cannot_train(plugin: Path) -> None:
    """--families without --order 2, or with a trainer or decoder that needs a family's LP point."""
    sample = str(sample_treebank_path())
    for extra, words in (
        ([], "--families needs --order 2"),
        (["--order", "2", "--decoder", "auto"], "--families trains with --trainer perceptron or hinge"),
        (["--order", "2", "--trainer", "cll"], "--families trains with --trainer perceptron or hinge"),
    ):
        done = run(["train", "--treebank", sample, "--families", "bigram", *extra, "--out", "unused.npz"], plugin)
        assert done.returncode == 2 and words in done.stderr and done.stderr.count("\n") == 1, done.stderr


def test_score_files_refuse_bad_scores_of_a_registered_family(plugin: Path, tmp_path: Path) -> None:
    """A registered family's scores in a score file are checked as lpparse's own: NaN or +inf, the wrong shape,
    a sparse index that names no part (the family's check_index) or lists a part twice, a NaN default."""
    n = 4
    arcs = np.zeros((n + 1, n + 1))
    for bad, words in (
        (np.full((n + 1,) * 3, np.nan), "NaN or \\+inf"),
        (np.full((n + 1,) * 3, np.inf), "NaN or \\+inf"),
        (np.zeros((n + 2,) * 3), "shape"),
        (SparseParts(np.array([[0, 0, 4]]), np.array([1.0])), "is not a head bigram"),
        (SparseParts(np.array([[0, 0, 1], [0, 0, 1]]), np.array([1.0, 2.0])), "lists a part twice"),
        (SparseParts(np.array([[0, 0, 1]]), np.array([1.0]), float("nan")), "default is nan"),
    ):
        with pytest.raises(ValueError, match=words):
            save_scores(tmp_path / "bad.npz", [SentenceScores("s1", arcs, more={"bigram": bad})])
    sparse = SparseParts(np.array([[0, 3, 1]]), np.array([1.5]))
    save_scores(tmp_path / "sparse.npz", [SentenceScores("s1", arcs, more={"bigram": sparse})])
    back = load_scores(tmp_path / "sparse.npz")[0].more_scorers()["bigram"]
    assert back.score(np.array([0, 0]), np.array([3, 0]), np.array([1, 1])).tolist() == [1.5, 0.0]
