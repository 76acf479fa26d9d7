"""Exact projective second-order parsing with grandparent parts, O(n^4): the grandparent chart of
:mod:`lpparse.dp.grandparent` (Koo & Collins 2010, Model 1 without siblings) decoded by back-pointers.

The reference for the grandparent polytope on projective instances of any length.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.dp.chart import best
from lpparse.dp.grandparent import grandparent_program
from lpparse.trees import NoTreeError, check_tree_exists, validate_scores

__all__ = ["grandparent_eisner"]


def _gp_table(gp_scores: ArrayLike, size: int) -> NDArray[np.float64]:
    """GP as a (size+1, size, size) array with a zero row for the virtual grandparent and zeros on every
    entry that is not a triple (so the charts never read garbage)."""
    gp = np.asarray(gp_scores, dtype=np.float64)
    if gp.shape != (size, size, size):
        raise ValueError(f"gp_scores must have shape {(size, size, size)}, got {gp.shape}")
    g, p, c = np.indices(gp.shape)
    valid = (p > 0) & (c > 0) & (g != p) & (p != c) & (g != c)
    if np.isnan(gp[valid]).any():
        raise ValueError("gp_scores contain NaN")
    if np.isposinf(gp[valid]).any():
        raise ValueError("gp_scores contain +inf")
    table = np.zeros((size + 1, size, size))
    table[:size][valid] = gp[valid]
    return table


def grandparent_eisner(
    scores: ArrayLike, gp_scores: ArrayLike, single_root: bool = False
) -> tuple[NDArray[np.int64], float]:
    """Best projective tree under arc plus grandparent scores; returns (heads, value).

    ``gp_scores[g, p, c]`` scores the arcs g→p and p→c together (entries that are not triples are
    ignored; ``-inf`` forbids a triple). Raises :class:`NoTreeError` when no projective tree has a finite
    score.
    """
    s = validate_scores(scores)
    check_tree_exists(s, single_root)
    size = s.shape[0]
    value, chosen = best(grandparent_program(size - 1, single_root), _gp_table(gp_scores, size) + s[None])
    if not np.isfinite(value):
        kind = "single-root" if single_root else "multi-root"
        raise NoTreeError(f"no projective {kind} tree with a finite score exists over the allowed arcs and triples")
    heads = np.argmax(chosen.sum(axis=0), axis=0)
    heads[0] = -1
    return heads.astype(np.int64), value
