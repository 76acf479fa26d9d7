"""Look-ups in sorted key arrays: the bookkeeping of sparse part sets (score caches, index maps, part keys),
where an (n+1)^k mask would not fit and ``np.isin`` would sort the sorted array again at every call."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["find_sorted"]


def find_sorted(table: NDArray[np.int64], keys: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
    """For each of ``keys``, its position in the sorted array ``table`` and whether it is there (where it is
    not, the position is a valid index of a non-empty ``table`` holding another key, or 0)."""
    if table.size == 0:
        return np.zeros(keys.shape, np.int64), np.zeros(keys.shape, bool)
    at = np.minimum(np.searchsorted(table, keys), table.size - 1)
    return at, table[at] == keys
