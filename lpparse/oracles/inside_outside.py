"""Projective partition function and arc marginals: inside-outside over Eisner's chart in log space.

The inside pass is :func:`lpparse.dp.eisner.eisner_chart` under ``LOG``; the outside pass is its backward pass, so the arc
marginals are d log Z / d scores (Gormley, Dredze & Eisner 2015, eqs. 13-15; BP reading note §2.3).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.dp.eisner import eisner_chart
from lpparse.dp.semiring import LOG

__all__ = ["projective_inside_outside", "projective_log_partition", "projective_marginals"]


def projective_inside_outside(scores: ArrayLike, single_root: bool = False) -> tuple[float, NDArray[np.float64]]:
    """``(log Z, marginals)`` over projective trees; ``marginals[h, m]`` = P(arc h -> m)."""
    result = eisner_chart(scores, single_root, LOG)
    return float(result.value[0]), np.clip(result.adjoints[0], 0.0, 1.0)  # rounding can leave 1 + 1e-16


def projective_log_partition(scores: ArrayLike, single_root: bool = False) -> float:
    """log of the sum over projective trees of exp(tree score)."""
    return projective_inside_outside(scores, single_root)[0]


def projective_marginals(scores: ArrayLike, single_root: bool = False) -> NDArray[np.float64]:
    """(n+1, n+1) arc marginals over projective trees (column 0 and the diagonal are 0)."""
    return projective_inside_outside(scores, single_root)[1]
