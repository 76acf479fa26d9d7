"""Is one parser better than another? The paired bootstrap over sentences for a difference in UAS or LAS.

Koehn 2004, "Statistical Significance Tests for Machine Translation Evaluation", EMNLP 2004, §4 (paired
bootstrap resampling); Berg-Kirkpatrick, Burkett & Klein 2012, "An Empirical Investigation of Statistical
Significance in NLP", EMNLP-CoNLL 2012, §2-3 (the test as used for parsers, and the p-value read off the
resampled differences). The test set's sentences are drawn with replacement ``samples`` times; each draw
gives the corpus-level (micro-averaged) UAS (LAS, given both systems' labels) difference of the two systems
on the same drawn sentences. The interval is the percentile interval of those differences; the p-value of
"B is no better than A" is the fraction of draws whose difference is at most 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.corpus import Sentence, sentence_uas

__all__ = ["UASDifference", "paired_bootstrap"]

#: Resampled sentence indices are drawn in blocks of this many resamples (memory: block x sentences int64).
_BLOCK = 1000


@dataclass(frozen=True)
class UASDifference:
    """UAS of systems A and B on the same sentences, B - A, its ``level`` percentile interval over the
    bootstrap resamples and the one-sided p-value of "B is no better than A" (module docstring)."""

    uas_a: float
    uas_b: float
    delta: float
    low: float
    high: float
    p_value: float
    samples: int
    level: float
    #: what ``uas_a`` and ``uas_b`` measure: UAS, or LAS (with labels)
    metric: str = "UAS"

    def __str__(self) -> str:
        return (
            f"{self.metric} {100 * self.uas_a:.2f} -> {100 * self.uas_b:.2f}: {100 * self.delta:+.2f} "
            f"[{100 * self.low:+.2f}, {100 * self.high:+.2f}] ({100 * self.level:g}% interval, "
            f"{self.samples} resamples), p = {self.p_value:.4f}"
        )


def _counts(
    sentences: Sequence[Sentence],
    heads: Sequence[ArrayLike],
    punct: bool,
    labels: Sequence[Sequence[str]] | None = None,
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(correct, scored tokens) per sentence; correct: head (and, with ``labels``, label) right."""
    per = [None] * len(sentences) if labels is None else labels
    scores = [sentence_uas(s, h, lab) for s, h, lab in zip(sentences, heads, per, strict=True)]
    suffix = "" if punct else "_no_punct"
    correct = f"correct{'_labelled' if labels is not None else ''}{suffix}"
    return (
        np.array([getattr(u, correct) for u in scores], dtype=np.int64),
        np.array([getattr(u, f"total{suffix}") for u in scores], dtype=np.int64),
    )


def paired_bootstrap(  # long: the two systems' trees and labels, and the bootstrap's own settings
    sentences: Sequence[Sentence],
    heads_a: Sequence[ArrayLike],
    heads_b: Sequence[ArrayLike],
    samples: int = 10_000,
    level: float = 0.95,
    seed: int = 0,
    punct: bool = False,
    labels_a: Sequence[Sequence[str]] | None = None,
    labels_b: Sequence[Sequence[str]] | None = None,
) -> UASDifference:
    """The paired bootstrap (module docstring) of the UAS of ``heads_b`` against ``heads_a`` on
    ``sentences`` (of the LAS, given both systems' labels ``labels_a`` and ``labels_b``, one list per
    sentence indexed by token), without punctuation unless ``punct``. Reproducible for a given ``seed``."""
    if not sentences:
        raise ValueError("no sentences to compare")
    if samples < 1 or not 0 < level < 1:
        raise ValueError(f"need samples >= 1 and 0 < level < 1, got {samples} and {level}")
    if (labels_a is None) != (labels_b is None):
        raise ValueError("LAS needs the labels of both systems")
    correct_a, total = _counts(sentences, heads_a, punct, labels_a)
    correct_b, _ = _counts(sentences, heads_b, punct, labels_b)
    if total.sum() == 0:
        raise ValueError("no scored token in these sentences")
    gain = correct_b - correct_a
    rng = np.random.default_rng(seed)
    deltas = np.empty(samples)
    for start in range(0, samples, _BLOCK):
        k = min(_BLOCK, samples - start)
        draw = rng.integers(0, len(sentences), size=(k, len(sentences)))
        tokens = total[draw].sum(axis=1)
        # a draw of only sentences without a scored token has no UAS: its difference counts as 0
        deltas[start : start + k] = np.where(tokens > 0, gain[draw].sum(axis=1) / np.maximum(tokens, 1), 0.0)
    tail = (1 - level) / 2
    low, high = np.quantile(deltas, [tail, 1 - tail])
    n = total.sum()
    return UASDifference(
        uas_a=correct_a.sum() / n,
        uas_b=correct_b.sum() / n,
        delta=gain.sum() / n,
        low=float(low),
        high=float(high),
        p_value=float(np.mean(deltas <= 0)),
        samples=samples,
        level=level,
        metric="UAS" if labels_a is None else "LAS",
    )
