"""Exact marginals of second-order (grandparent and arbitrary-sibling) models by enumeration, n <= 7.

The ground truth that BP beliefs are measured against: P(y) ∝ exp(Σ_arcs θ + Σ_⟨g,p,c⟩ s_gp + Σ_⟨h,m,m'⟩ s_sib)
over every (projective) tree, the distribution of the factor graph of Gormley et al. (2015, §2).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.oracles import all_trees
from lpparse.oracles.brute_force import second_order_tree_scores
from lpparse.trees import NoTreeError, validate_scores

__all__ = ["brute_force_second_order", "second_order_tree_scores"]


def brute_force_second_order(
    arc_scores: ArrayLike,
    gp_scores: ArrayLike | None = None,
    sib_scores: ArrayLike | None = None,
    single_root: bool = False,
    projective: bool = True,
) -> tuple[float, NDArray[np.float64]]:
    """``(log Z, arc marginals)`` of the second-order model by enumerating every tree."""
    s = validate_scores(arc_scores)
    gp = None if gp_scores is None else np.asarray(gp_scores, dtype=np.float64)
    sib = None if sib_scores is None else np.asarray(sib_scores, dtype=np.float64)
    trees = all_trees(s.shape[0] - 1, single_root, projective)
    values = second_order_tree_scores(trees, s, gp, sib)
    top = values.max()
    if not np.isfinite(top):
        raise NoTreeError("no tree has a finite second-order score")
    weights = np.exp(values - top)
    log_z = float(top + np.log(weights.sum()))
    weights /= weights.sum()
    size = s.shape[0]
    mu = np.zeros((size, size))
    for m in range(1, size):
        mu[:, m] = np.bincount(trees[:, m], weights=weights, minlength=size)
    return log_z, mu
