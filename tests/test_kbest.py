"""The k best trees with proof (Murty's partition over exact decoding's arc sets), against brute-force
enumeration of every tree, with grandparent, arbitrary-sibling and consecutive-sibling parts."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lpparse.formulations.consecutive import synthetic_csib_scorer
from lpparse.oracles.brute_force import enumerate_trees
from lpparse.ppc import (
    GrandparentParts,
    SiblingParts,
    check_kbest,
    k_best_search,
    parse_exact,
)
from lpparse.ppc.consecutive import ConsecutiveSiblingParts
from lpparse.ppc.parts import tree_scores
from lpparse.triples import DenseSiblingScorer, DenseTripleScorer


def _parts(kind: str, n: int, rng: np.random.Generator) -> list:
    size = n + 1
    gp = DenseTripleScorer(rng.normal(size=(size,) * 3))
    if kind == "grandparent":
        return [GrandparentParts(gp)]
    if kind == "siblings":
        return [GrandparentParts(gp), SiblingParts(DenseSiblingScorer(rng.normal(size=(size,) * 3)))]
    return [GrandparentParts(gp), ConsecutiveSiblingParts(synthetic_csib_scorer(n, rng))]


def _ranked(s: np.ndarray, parts: list, single_root: bool) -> list[tuple[float, np.ndarray]]:
    heads = list(enumerate_trees(s.shape[0] - 1, single_root))
    return sorted(zip(tree_scores(s, parts, heads).tolist(), heads), key=lambda t: -t[0])


@settings(deadline=None, max_examples=12, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.integers(2, 5),
    st.integers(0, 2**32 - 1),
    st.booleans(),
    st.sampled_from(["grandparent", "siblings", "consecutive"]),
    st.integers(1, 5),
)
def test_k_best_equals_brute_force(n: int, seed: int, single_root: bool, kind: str, k: int) -> None:
    """The K = 1..5 best scores and trees (Gaussian scores: distinct), in order, and the proof checks; every
    tree of a small sentence when K exceeds their number."""
    rng = np.random.default_rng(seed)
    s = rng.normal(size=(n + 1, n + 1))
    parts = _parts(kind, n, rng)
    ranked = _ranked(s, parts, single_root)
    result = k_best_search(s, parts, k, single_root)
    assert len(result.trees) == min(k, len(ranked))
    for (heads, score), (value, best) in zip(result.trees, ranked):
        assert score == pytest.approx(value, abs=1e-7)
        np.testing.assert_array_equal(heads, best)
    assert check_kbest(s, parts, result, single_root) is None


def test_k_best_through_parse_exact_and_tampering() -> None:
    """``parse_exact(..., k_best=K)`` returns the best tree's search with ``kbest``; a proof with a tree
    swapped, reordered, a split dropped or an unlisted subproblem above the last tree fails the check."""
    rng = np.random.default_rng(3)
    n = 5
    s = rng.normal(size=(n + 1, n + 1))
    gp = rng.normal(size=(n + 1,) * 3)
    result = parse_exact(s, DenseTripleScorer(gp), "all", False, k_best=4)
    kbest = result.kbest
    parts = [GrandparentParts(DenseTripleScorer(gp))]
    ranked = _ranked(s, parts, False)
    assert result.certified and np.array_equal(result.heads, ranked[0][1])
    assert [t[1] for t in kbest.trees] == pytest.approx([r[0] for r in ranked[:4]])
    assert check_kbest(s, parts, kbest, False) is None
    swapped = dataclasses.replace(kbest, trees=[kbest.trees[1], kbest.trees[0], *kbest.trees[2:]])
    assert "scores above" in check_kbest(s, parts, swapped, False)
    other = dataclasses.replace(kbest, trees=[*kbest.trees[:3], (ranked[5][1], ranked[5][0])])
    assert check_kbest(s, parts, other, False) is not None
    split = next(sub for sub in kbest.subproblems if sub.children)
    subs = [dataclasses.replace(sub) for sub in kbest.subproblems]
    subs[split.id] = dataclasses.replace(split, children=split.children[1:])
    assert check_kbest(s, parts, dataclasses.replace(kbest, subproblems=subs), False) is not None
    shorter = dataclasses.replace(kbest, k=3, trees=kbest.trees[:3])  # the 4th tree's subproblem waits above
    assert check_kbest(s, parts, shorter, False) is not None
    with pytest.raises(ValueError, match="at least 1"):
        k_best_search(s, parts, 0)


def test_parse_k_best_writes_ranked_copies(tmp_path) -> None:
    """``lpparse parse --decoder exact --k-best 3`` on a score file: three copies of each sentence, best
    first, whose trees and score comments are brute force's three best; other decoders refuse it."""
    from test_cli_errors import fails, lpparse

    from lpparse.corpus import read_treebank, sample_treebank_path, write_treebank
    from lpparse.scores import SentenceScores, save_scores

    sentences = [s for s in read_treebank(sample_treebank_path()) if 3 <= s.n <= 5][:3]
    treebank = tmp_path / "short.conllu"
    write_treebank(treebank, sentences)
    rng = np.random.default_rng(5)
    entries = [
        SentenceScores(s.sent_id, rng.normal(size=(s.n + 1,) * 2), rng.normal(size=(s.n + 1,) * 3))
        for s in sentences
    ]
    scores = tmp_path / "scores.npz"
    save_scores(scores, entries)
    out = tmp_path / "k.conllu"
    argv = ["parse", "--scores", scores, "--treebank", treebank, "--decoder", "exact", "--no-progress"]
    done = lpparse(*argv, "--k-best", "3", "--out", out, "--single-root")
    assert done.returncode == 0, done.stderr
    copies = read_treebank(out)
    assert len(copies) == 3 * len(sentences)
    for i, entry in enumerate(entries):
        parts = [GrandparentParts(DenseTripleScorer(entry.gp))]
        ranked = _ranked(entry.arcs, parts, True)
        for rank in range(3):
            copy = copies[3 * i + rank]
            assert copy.sent_id == entry.sent_id and copy.tokens.metadata["k_best_rank"] == str(rank + 1)
            assert float(copy.tokens.metadata["k_best_score"]) == pytest.approx(ranked[rank][0], abs=1e-7)
            np.testing.assert_array_equal(copy.heads, ranked[rank][1])
    fails(lpparse(*argv[:-3], "--decoder", "ppc", "--k-best", "2"), 2, "--k-best", "exact")
