"""Eisner's (1996) O(n^3) projective first-order decoder: Eisner's chart of :mod:`lpparse.dp.eisner` under
``MAX``, by back-pointers (:func:`lpparse.dp.eisner.eisner_best`)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.dp.eisner import eisner_best

__all__ = ["eisner"]


def eisner(scores: ArrayLike, single_root: bool = False) -> NDArray[np.int64]:
    """Heads of the best projective tree (root arcs count for projectivity; root at the left edge).

    Raises ``ValueError`` on invalid scores and :class:`~lpparse.trees.NoTreeError` when no tree, or no
    projective tree, exists over the finite-score arcs.
    """
    heads = np.argmax(eisner_best(scores, single_root)[1], axis=0)
    heads[0] = -1
    return heads.astype(np.int64)
