"""What the programs of third-order parts on consecutive-sibling windows share: which parts have a column or
were pruned, kept as sorted flat keys (an (n+1)^4 mask would take 100 MB at n = 100, while a run holds a few
thousand parts), and the checks and bookkeeping of adding parts."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.families.consecutive.rows import ConsecutiveSiblingProgram
from lpparse.formulations.arborescence import ArborescenceLP
from lpparse.part_values import check_part_scores, find_sorted

__all__ = ["PartKeys", "WindowPartProgram", "join_sorted"]

Quads = tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]


def join_sorted(left: NDArray[np.int64], right: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Every pair (i, j) with ``left[i] == right[j]``, for ``right`` sorted: index arrays ordered by i, then
    j (so parts built from a lexicographically sorted ``left`` and ``right`` come out sorted), in time linear
    in the output (the 4-index candidates of a sentence without an (n+1)^4 mask)."""
    start = np.searchsorted(right, left, "left")
    counts = np.searchsorted(right, left, "right") - start
    i = np.repeat(np.arange(left.size), counts)
    j = np.repeat(start - (np.cumsum(counts) - counts), counts) + np.arange(i.size)
    return i, j


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
        return find_sorted(self._present, self.keys(*parts))[1]

    def new(self, *parts: NDArray[np.int64]) -> NDArray[np.bool_]:
        """Whether each part has neither a column nor a pruned mark."""
        return self._new(self.keys(*parts))

    def _new(self, keys: NDArray[np.int64]) -> NDArray[np.bool_]:
        return ~(find_sorted(self._present, keys)[1] | find_sorted(self._pruned, keys)[1])

    def mark(self, keys: NDArray[np.int64], pruned: NDArray[np.bool_]) -> None:
        """Record new parts by key: the ``pruned`` ones as pruned, the others as present. ValueError if one
        is known already or listed twice."""
        ordered = np.sort(keys)
        if (ordered[1:] == ordered[:-1]).any() or not self._new(ordered).all():
            raise ValueError("part added twice")
        self._pruned = _merged(self._pruned, keys[pruned])
        self._present = _merged(self._present, keys[~pruned])


def _merged(table: NDArray[np.int64], keys: NDArray[np.int64]) -> NDArray[np.int64]:
    """The sorted array ``table`` with the new distinct ``keys`` in their places."""
    if keys.size == 0:
        return table
    return np.sort(np.concatenate([table, keys])) if table.size else np.sort(keys)


@dataclass
class WindowPartProgram:
    """What the programs of 4-index parts on consecutive-sibling windows share
    (:mod:`lpparse.families.third_order.trisibling`, :mod:`lpparse.families.third_order.grandsibling`): the window program
    ``csibs`` they sit on, the parts with a column or pruned (``keys``), the column block ``block`` and the
    checks and bookkeeping of :meth:`add_parts`. A subclass says which parts are candidates
    (:meth:`candidate`) and where a new column's coefficients go (:meth:`_coefficients`)."""

    csibs: ConsecutiveSiblingProgram
    keys: PartKeys

    block: ClassVar[str]
    kind: ClassVar[str]
    #: what a candidate part needs, for the error on one that is not
    needs: ClassVar[str]

    @property
    def lp(self) -> ArborescenceLP:
        return self.csibs.lp

    @property
    def n(self) -> int:
        return self.csibs.n

    @property
    def num_parts(self) -> int:
        return len(self.lp.var_blocks[self.block])

    def candidate(self, parts: Quads) -> NDArray[np.bool_]:
        """Which of ``parts`` (index arrays in 0..n) are candidates of the program."""
        raise NotImplementedError

    def _coefficients(self, parts: Quads, cols: NDArray[np.int64]) -> None:
        """Add the new columns ``cols`` of ``parts`` to their rows."""
        raise NotImplementedError

    def add_parts(
        self, i: ArrayLike, j: ArrayLike, k: ArrayLike, l: ArrayLike, scores: ArrayLike  # noqa: E741
    ) -> NDArray[np.int64]:
        """Append columns for new candidate parts with costs ``scores`` and their coefficients in their rows;
        return the new columns. A part scored -inf gets no column (``keys`` marks it pruned)."""
        parts = tuple(np.asarray(v, dtype=np.int64).ravel() for v in (i, j, k, l))
        if len({v.shape for v in parts}) > 1:
            raise ValueError(f"the {self.kind} index arrays must have the same length")
        scores = np.broadcast_to(np.asarray(scores, dtype=np.float64), parts[0].shape)
        if parts[0].size == 0:
            return np.empty(0, np.int64)
        if min(int(v.min()) for v in parts) < 0 or max(int(v.max()) for v in parts) > self.n:
            raise ValueError(f"{self.kind} indices must lie in 0..{self.n}")
        if not self.candidate(parts).all():  # type: ignore[arg-type]
            raise ValueError(f"every {self.kind} part {self.needs}")
        check_part_scores(scores, self.kind)
        cut = np.isneginf(scores)
        try:
            self.keys.mark(self.keys.keys(*parts), cut)
        except ValueError:
            raise ValueError(f"{self.kind} part added twice") from None
        kept: Quads = tuple(v[~cut] for v in parts)  # type: ignore[assignment]
        if kept[0].size == 0:
            return np.empty(0, np.int64)
        cols = self.lp.add_variables(self.block, np.column_stack(kept), cost=scores[~cut], integer=True)
        self._coefficients(kept, cols)
        return cols

    def parts(self) -> Quads:
        """The parts with a column, in column order."""
        idx = self.lp.var_blocks[self.block].index
        return idx[:, 0], idx[:, 1], idx[:, 2], idx[:, 3]

    def part_values(self, values: NDArray[np.float64]) -> NDArray[np.float64]:
        """The parts' values in a primal vector, aligned with :meth:`parts`."""
        return values[self.lp.cols(self.block)]
