"""Ground truth by enumeration of every dependency tree (n <= 7).

All trees of a given (n, single_root, projective) are built once as an int array (cached) and scored at
once with fancy indexing. Used to test every other oracle.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Iterator

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.trees import NoTreeError, validate_scores

__all__ = [
    "MAX_BRUTE_FORCE_N",
    "all_trees",
    "enumerate_trees",
    "brute_force",
    "brute_force_log_partition",
    "brute_force_marginals",
    "second_order_tree_scores",
]

MAX_BRUTE_FORCE_N = 7


@lru_cache(maxsize=None)
def all_trees(n: int, single_root: bool = False, projective: bool = False) -> NDArray[np.int64]:
    """Read-only (T, n+1) array of the heads of every tree over n tokens (column 0 is -1)."""
    if not 1 <= n <= MAX_BRUTE_FORCE_N:
        raise ValueError(f"brute force enumerates trees for 1 <= n <= {MAX_BRUTE_FORCE_N}, got n={n}")
    m = np.arange(1, n + 1)
    # every head assignment: token m takes digit d in 0..n-1 and head d + (d >= m), skipping itself
    digits = (np.arange(n**n)[:, None] // n ** (m - 1)) % n
    heads = np.zeros((n**n, n + 1), dtype=np.int64)
    heads[:, 1:] = digits + (digits >= m)
    # pointer jumping: after 2^k >= n steps every token of a tree has reached the root
    up = heads.copy()
    for _ in range(int(np.ceil(np.log2(n))) + 1):
        up = np.take_along_axis(up, up, axis=1)
    trees = heads[(up[:, 1:] == 0).all(axis=1)]
    if single_root:
        trees = trees[(trees[:, 1:] == 0).sum(axis=1) == 1]
    if projective:
        lo = np.minimum(trees[:, 1:], m)
        hi = np.maximum(trees[:, 1:], m)
        a_lo, b_lo, a_hi, b_hi = lo[:, :, None], lo[:, None, :], hi[:, :, None], hi[:, None, :]
        crossing = (a_lo < b_lo) & (b_lo < a_hi) & (a_hi < b_hi)
        trees = trees[~crossing.any(axis=(1, 2))]
    trees[:, 0] = -1
    trees.flags.writeable = False
    return trees


def enumerate_trees(n: int, single_root: bool = False, projective: bool = False) -> Iterator[NDArray[np.int64]]:
    """Yield the heads array of every dependency tree over n tokens (n <= 7)."""
    for heads in all_trees(n, single_root, projective):
        yield heads.copy()


def second_order_tree_scores(
    heads: NDArray[np.int64],
    arc_scores: NDArray[np.float64],
    gp_scores: NDArray[np.float64] | None = None,
    sib_scores: NDArray[np.float64] | None = None,
) -> NDArray[np.float64]:
    """Scores of a batch of trees ``heads`` (K, n+1): arcs, grandparent triples ⟨heads[p], p, c⟩ (p > 0) and
    sibling parts ⟨h, m, m'⟩ (m < m', same head h)."""
    n = heads.shape[1] - 1
    m = np.arange(1, n + 1)
    parents = heads[:, 1:]
    values = arc_scores[parents, m].sum(axis=1)
    if gp_scores is not None:
        inner = parents > 0
        grand = np.take_along_axis(heads, np.maximum(parents, 0), axis=1)
        values = values + np.where(inner, gp_scores[np.where(inner, grand, 0), parents, m], 0.0).sum(axis=1)
    if sib_scores is not None:
        same = (parents[:, :, None] == parents[:, None, :]) & (m[:, None] < m[None, :])
        pair = sib_scores[parents[:, :, None], m[None, :, None], m[None, None, :]]
        values = values + np.where(same, pair, 0.0).sum(axis=(1, 2))
    return values


def _part_scores(scores: ArrayLike | None, n: int, kind: str, used: NDArray[np.bool_]) -> NDArray[np.float64] | None:
    """``scores`` as an (n+1,)*3 array, checked for NaN and +inf on the ``used`` entries (None stays None)."""
    if scores is None:
        return None
    out = np.asarray(scores, dtype=np.float64)
    if out.shape != (n + 1,) * 3:
        raise ValueError(f"{kind} must have shape {(n + 1,) * 3}, got {out.shape}")
    if (used & (np.isnan(out) | np.isposinf(out))).any():
        raise ValueError(f"{kind} contains NaN or +inf")
    return out


def _tree_scores(
    scores: ArrayLike,
    single_root: bool,
    projective: bool,
    gp_scores: ArrayLike | None = None,
    sib_scores: ArrayLike | None = None,
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    s = validate_scores(scores)
    n = s.shape[0] - 1
    trees = all_trees(n, single_root, projective)
    i, j, k = np.indices((n + 1,) * 3)
    gp = _part_scores(gp_scores, n, "gp_scores", (j > 0) & (k > 0) & (i != j) & (j != k) & (i != k))
    sib = _part_scores(sib_scores, n, "sib_scores", (j > 0) & (j < k) & (i != j) & (i != k))
    values = second_order_tree_scores(trees, s, gp, sib)
    if not np.isfinite(values).any():
        kind = ("single-root " if single_root else "multi-root ") + ("projective " if projective else "")
        raise NoTreeError(
            f"no {kind}dependency tree has a finite score: pruned arcs or parts (-inf) leave no tree"
        )
    return trees, values


def brute_force(
    scores: ArrayLike,
    single_root: bool = False,
    projective: bool = False,
    gp_scores: ArrayLike | None = None,
    sib_scores: ArrayLike | None = None,
) -> tuple[NDArray[np.int64], float]:
    """``(heads, value)`` of a best tree by enumeration.

    ``gp_scores[g, p, c]`` (optional, shape (n+1,)*3) is added for every pair of arcs g->p, p->c with p > 0;
    ``sib_scores[h, m, m']`` (optional, read where m < m') for every pair of arcs h->m, h->m'. A part at -inf
    is pruned: a tree holding it scores -inf and is never the answer; NoTreeError when every tree scores -inf.
    """
    trees, values = _tree_scores(scores, single_root, projective, gp_scores, sib_scores)
    best = int(np.argmax(values))
    return trees[best].copy(), float(values[best])


def _log_weights(
    scores: ArrayLike, single_root: bool, projective: bool
) -> tuple[NDArray[np.int64], NDArray[np.float64], float]:
    trees, values = _tree_scores(scores, single_root, projective)
    top = values.max()
    log_z = float(top + np.log(np.exp(values - top).sum()))
    return trees, values, log_z


def brute_force_log_partition(scores: ArrayLike, single_root: bool = False, projective: bool = False) -> float:
    """log sum over trees of exp(tree score), by enumeration (stable log-sum-exp)."""
    return _log_weights(scores, single_root, projective)[2]


def brute_force_marginals(
    scores: ArrayLike, single_root: bool = False, projective: bool = False
) -> NDArray[np.float64]:
    """(n+1, n+1) arc marginals P(h -> m) under P(tree) proportional to exp(tree score), by enumeration."""
    trees, values, log_z = _log_weights(scores, single_root, projective)
    weights = np.exp(values - log_z)
    size = trees.shape[1]
    marginals = np.zeros((size, size))
    for m in range(1, size):
        marginals[:, m] = np.bincount(trees[:, m], weights=weights, minlength=size)
    return marginals
