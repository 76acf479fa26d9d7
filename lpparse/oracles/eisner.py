"""Eisner's (1996) O(n^3) projective first-order decoder (max semiring over the Eisner chart)."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.oracles._chart import eisner_chart, max_reduce

__all__ = ["eisner"]


def eisner(scores: ArrayLike, single_root: bool = False) -> NDArray[np.int64]:
    """Heads of the best projective tree (root arcs count for projectivity; root at the left edge).

    Raises ``ValueError`` on invalid scores and :class:`~lpparse.trees.NoTreeError` when no tree, or no
    projective tree, exists over the finite-score arcs.
    """
    result = eisner_chart(scores, single_root, max_reduce)
    heads = np.argmax(result.arcs, axis=0)
    heads[0] = -1
    return heads.astype(np.int64)
