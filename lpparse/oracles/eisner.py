"""Eisner's (1996) O(n^3) projective first-order decoder: :func:`lpparse.dp.eisner.eisner_chart` under
``MAX``, whose adjoints of the arc scores are the best tree's arcs."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.dp.eisner import eisner_chart
from lpparse.dp.semiring import MAX

__all__ = ["eisner"]


def eisner(scores: ArrayLike, single_root: bool = False) -> NDArray[np.int64]:
    """Heads of the best projective tree (root arcs count for projectivity; root at the left edge).

    Raises ``ValueError`` on invalid scores and :class:`~lpparse.trees.NoTreeError` when no tree, or no
    projective tree, exists over the finite-score arcs.
    """
    heads = np.argmax(eisner_chart(scores, single_root, MAX).adjoints[0], axis=0)
    heads[0] = -1
    return heads.astype(np.int64)
