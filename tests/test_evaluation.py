"""The paired bootstrap of lpparse.evaluation against exhaustive resampling, and ``lpparse compare``."""

from __future__ import annotations

import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lpparse.cli import main
from lpparse.corpus import Sentence, corpus_uas, read_treebank, sample_treebank_path, write_treebank
from lpparse.evaluation import paired_bootstrap

SAMPLE = sample_treebank_path()
SENTENCES = read_treebank(SAMPLE)


def _wrong(sentence: Sentence, count: int, offset: int = 0) -> np.ndarray:
    """The gold heads with ``count`` of the scored (non-punctuation) words not attached to the root attached
    to the root instead (from the ``offset``-th such word on, cyclically): still a tree, ``count`` errors."""
    heads = sentence.heads.copy()
    words = np.flatnonzero(~sentence.punct_mask[1:] & (sentence.heads[1:] != 0)) + 1
    heads[words[(offset + np.arange(min(count, words.size))) % words.size]] = 0
    return heads


def test_difference_is_the_corpus_uas_difference() -> None:
    a = [_wrong(s, 1) for s in SENTENCES]
    b = [_wrong(s, i % 2) for i, s in enumerate(SENTENCES)]
    result = paired_bootstrap(SENTENCES, a, b, samples=500)
    ua, ub = corpus_uas(SENTENCES, a).uas_no_punct, corpus_uas(SENTENCES, b).uas_no_punct
    assert result.uas_a == pytest.approx(ua) and result.uas_b == pytest.approx(ub)
    assert result.delta == pytest.approx(ub - ua) and result.delta > 0
    assert result.low <= result.delta <= result.high
    with_punct = paired_bootstrap(SENTENCES, a, b, samples=500, punct=True)
    assert with_punct.uas_a == pytest.approx(corpus_uas(SENTENCES, a).uas)


def test_identical_systems_differ_by_nothing() -> None:
    heads = [_wrong(s, 1) for s in SENTENCES]
    result = paired_bootstrap(SENTENCES, heads, heads, samples=300)
    assert result.delta == result.low == result.high == 0.0
    assert result.p_value == 1.0


def test_p_value_and_interval_match_exhaustive_resampling() -> None:
    """Three sentences: all 27 equally likely resamples give the exact distribution of the difference."""
    sentences = SENTENCES[10:13]
    a = [_wrong(s, k) for s, k in zip(sentences, (2, 0, 1))]
    b = [_wrong(s, k, offset=1) for s, k in zip(sentences, (0, 1, 0))]
    gain = np.array([(b_[1:] == s.heads[1:])[~s.punct_mask[1:]].sum() - (a_[1:] == s.heads[1:])[~s.punct_mask[1:]].sum()
                     for s, a_, b_ in zip(sentences, a, b)])
    tokens = np.array([(~s.punct_mask[1:]).sum() for s in sentences])
    exact = np.array([gain[list(d)].sum() / tokens[list(d)].sum() for d in itertools.product(range(3), repeat=3)])
    result = paired_bootstrap(sentences, a, b, samples=200_000, seed=1)
    assert result.p_value == pytest.approx(np.mean(exact <= 0), abs=0.005)
    # the percentile interval's ends are values the exact distribution takes, at about its 2.5% and 97.5%
    assert np.mean(exact <= result.low) >= 0.025 - 0.005 and np.mean(exact >= result.high) >= 0.025 - 0.005
    assert result.low in set(np.round(exact, 12)) or np.isclose(exact, result.low).any()


@settings(max_examples=30, deadline=None)
@given(
    wrong_a=st.lists(st.integers(0, 3), min_size=5, max_size=5),
    wrong_b=st.lists(st.integers(0, 3), min_size=5, max_size=5),
    seed=st.integers(0, 100),
)
def test_swapping_the_systems_mirrors_the_result(wrong_a: list[int], wrong_b: list[int], seed: int) -> None:
    sentences = SENTENCES[20:25]
    a = [_wrong(s, k) for s, k in zip(sentences, wrong_a)]
    b = [_wrong(s, k, offset=2) for s, k in zip(sentences, wrong_b)]
    ab = paired_bootstrap(sentences, a, b, samples=400, seed=seed)
    ba = paired_bootstrap(sentences, b, a, samples=400, seed=seed)
    assert ab.delta == pytest.approx(-ba.delta)
    assert ab.low == pytest.approx(-ba.high) and ab.high == pytest.approx(-ba.low)
    assert 0 <= ab.p_value <= 1 and ab.low <= ab.high
    # the same draws: P(d <= 0) + P(d >= 0) = 1 + P(d = 0) >= 1
    assert ab.p_value + ba.p_value >= 1 - 1e-12
    assert paired_bootstrap(sentences, a, b, samples=400, seed=seed) == ab  # reproducible


def test_bad_input_is_named() -> None:
    heads = [s.heads for s in SENTENCES]
    with pytest.raises(ValueError, match="no sentences"):
        paired_bootstrap([], [], [])
    with pytest.raises(ValueError, match="samples"):
        paired_bootstrap(SENTENCES, heads, heads, samples=0)
    with pytest.raises(ValueError):
        paired_bootstrap(SENTENCES, heads, heads[:-1])


def test_compare_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a, b = tmp_path / "a.conllu", tmp_path / "b.conllu"
    write_treebank(a, SENTENCES, [_wrong(s, 2) for s in SENTENCES])
    write_treebank(b, SENTENCES, [_wrong(s, 1) for s in SENTENCES])
    assert main(["compare", str(SAMPLE), str(a), str(b), "--samples", "300"]) == 0
    out = capsys.readouterr().out
    expected = paired_bootstrap(
        SENTENCES, [_wrong(s, 2) for s in SENTENCES], [_wrong(s, 1) for s in SENTENCES], samples=300
    )
    assert f"{100 * expected.uas_a:.2f}" in out and f"{100 * expected.uas_b:.2f}" in out
    assert f"{100 * expected.delta:+.2f} points" in out and f"p = {expected.p_value:.4f}" in out
    short = tmp_path / "short.conllu"
    write_treebank(short, SENTENCES[:-1])
    assert main(["compare", str(SAMPLE), str(a), str(short)]) == 1
    assert "49 sentences, the gold treebank has 50" in capsys.readouterr().err
    assert main(["compare", str(SAMPLE), str(a), str(tmp_path / "missing.conllu")]) == 2
    assert "system output not found" in capsys.readouterr().err
