"""Which parts of a third-order family have a column or were pruned, kept as sorted flat keys: an
(n+1)^4 mask would take 100 MB at n = 100, while a run holds a few thousand parts."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["PartKeys"]


class PartKeys:
    """The parts with a column (``present``) and those scored -inf (``pruned``, no column) of a family of
    ``arity``-index parts over 0..n, as sorted flat indices."""

    def __init__(self, n: int, arity: int) -> None:
        self.shape = (n + 1,) * arity
        self._present = np.empty(0, np.int64)
        self._pruned = np.empty(0, np.int64)

    def keys(self, *parts: NDArray[np.int64]) -> NDArray[np.int64]:
        """The flat index of each part."""
        return np.ravel_multi_index(parts, self.shape).astype(np.int64)

    def present(self, *parts: NDArray[np.int64]) -> NDArray[np.bool_]:
        """Whether each part has a column."""
        return np.isin(self.keys(*parts), self._present)

    def new(self, *parts: NDArray[np.int64]) -> NDArray[np.bool_]:
        """Whether each part has neither a column nor a pruned mark."""
        keys = self.keys(*parts)
        return ~np.isin(keys, self._present) & ~np.isin(keys, self._pruned)

    def mark(self, keys: NDArray[np.int64], pruned: NDArray[np.bool_]) -> None:
        """Record new parts by key: the ``pruned`` ones as pruned, the others as present. ValueError if one
        is known already or listed twice."""
        if np.unique(keys).size < keys.size or (~self.new(*np.unravel_index(keys, self.shape))).any():
            raise ValueError("part added twice")
        self._pruned = np.union1d(self._pruned, keys[pruned])
        self._present = np.union1d(self._present, keys[~pruned])
