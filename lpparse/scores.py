"""Arc-score generators for demos, tests and benchmarks (until trained models exist).

Every generator follows the convention of :mod:`lpparse.trees`: an (n+1, n+1) float64 array, ``S[h, m]`` the
score of h -> m, ``-inf`` on the diagonal and in column 0.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.trees import allowed_mask_shape, check_tree

__all__ = ["noisy_gold_scores", "random_scores"]


def _mask_unused(scores: NDArray[np.float64]) -> NDArray[np.float64]:
    scores[~allowed_mask_shape(scores.shape[0])] = -np.inf
    return scores


def random_scores(
    n: int, rng: np.random.Generator | int | None = None, scale: float = 1.0, distance_bonus: float = 0.0
) -> NDArray[np.float64]:
    """N(0, scale^2) arc scores for n tokens, plus ``distance_bonus / |h - m|`` favouring short arcs."""
    if n < 1:
        raise ValueError(f"need at least one token, got n={n}")
    rng = np.random.default_rng(rng)
    scores = rng.normal(0.0, scale, size=(n + 1, n + 1))
    if distance_bonus:
        idx = np.arange(n + 1)
        dist = np.abs(idx[:, None] - idx[None, :]).astype(float)
        np.divide(distance_bonus, dist, out=dist, where=dist > 0)
        scores += dist
    return _mask_unused(scores)


def noisy_gold_scores(
    heads: ArrayLike, noise: float = 1.0, rng: np.random.Generator | int | None = None, gold_bonus: float = 1.0
) -> NDArray[np.float64]:
    """Gold arcs score ``gold_bonus``, every arc gets N(0, noise^2) on top (seeded by ``rng``).

    The stand-in for a trained first-order model: with ``noise`` around ``gold_bonus`` the best tree is
    close to, but not always, the gold tree.
    """
    gold = check_tree(heads)
    n = gold.shape[0] - 1
    rng = np.random.default_rng(rng)
    scores = rng.normal(0.0, noise, size=(n + 1, n + 1))
    scores[gold[1:], np.arange(1, n + 1)] += gold_bonus
    return _mask_unused(scores)
