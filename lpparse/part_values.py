"""Values of parts kept once computed: scores (:class:`lpparse.colgen.cache.ScoreCache`) and score bounds
(:class:`lpparse.scoring.model.GrandparentScorer`). Parts of k indices over 0..n are stored densely ((n+1)^k
floats, one fancy index a look-up) while that takes at most a given number of cells, else by their flat index
in a sorted array (a 290-token sentence's triples as a dense cube take 197 MB, of which a run asks for a few
percent), where ``np.isin`` would sort the sorted array again at every call: :func:`find_sorted` searches
it."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["DENSE_CELLS", "PartValues", "find_sorted"]

#: the most cells of a dense store by default (3-index parts up to n = 255: 134 MB)
DENSE_CELLS = 1 << 24


def find_sorted(
    table: NDArray[np.int64], keys: NDArray[np.int64]
) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
    """For each of ``keys``, its position in the sorted array ``table`` and whether it is there (where it is
    not, the position is a valid index of a non-empty ``table`` holding another key, or 0)."""
    if table.size == 0:
        return np.zeros(keys.shape, np.int64), np.zeros(keys.shape, bool)
    at = np.minimum(np.searchsorted(table, keys), table.size - 1)
    return at, table[at] == keys


class PartValues:
    """The values ``compute(*index_arrays)`` of parts over the box ``shape``, each computed once: dense while
    the box has at most ``dense_limit`` cells (``values``, NaN where not computed yet), else sorted flat
    keys."""

    def __init__(
        self,
        compute: Callable[..., NDArray[np.float64]],
        shape: tuple[int, ...],
        dense_limit: int = DENSE_CELLS,
    ) -> None:
        self.compute = compute
        self.shape = shape
        self.values = np.full(shape, np.nan) if math.prod(shape) <= dense_limit else None
        self._keys = np.empty(0, np.int64)
        self._stored = np.empty(0)

    def get(self, *parts: NDArray[np.int64]) -> NDArray[np.float64]:
        """The values of a batch of parts (one index array per position), computing only those not seen
        before."""
        keys = None
        if self.values is not None:
            values = self.values[parts]
        else:
            keys = np.ravel_multi_index(parts, self.shape).astype(np.int64)
            at, found = find_sorted(self._keys, keys)
            values = np.full(keys.shape, np.nan)
            values[found] = self._stored[at[found]]
        new = np.isnan(values)
        if new.any():
            fresh = np.asarray(self.compute(*(a[new] for a in parts)), dtype=np.float64)
            values[new] = fresh
            if keys is None:
                assert self.values is not None
                self.values[tuple(a[new] for a in parts)] = fresh
            else:
                k, first = np.unique(keys[new], return_index=True)
                merged = np.concatenate([self._keys, k])
                order = np.argsort(merged, kind="stable")
                self._keys = merged[order]
                self._stored = np.concatenate([self._stored, fresh[first]])[order]
        return values


def check_part_scores(values: ArrayLike, kind: str) -> None:
    """ValueError if a batch of part scores holds NaN or +inf (-inf prunes a part)."""
    v = np.asarray(values, dtype=np.float64)
    if (np.isnan(v) | np.isposinf(v)).any():
        raise ValueError(f"the {kind} scores hold NaN or +inf (finite scores, or -inf for a pruned part)")
