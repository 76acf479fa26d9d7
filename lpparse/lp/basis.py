"""Simplex bases by label, carried from one program to another of the same family of programs.

A branch-and-bound child's program is its parent's less some columns and rows (the arcs its branching and
reduced-cost fixing remove, their flows and parts) plus what its own pricing adds. Its first solve need not
start cold: the parent's final basis, read by column and row *label* (block name and index tuple), is placed
on the child's program and repaired where the removed columns were basic. This is the node LP warm start of
branch-and-bound solvers (Achterberg 2007, "Constraint Integer Programming", PhD thesis, TU Berlin, §2.1),
done by labels because lpparse rebuilds a node's program. Measured on the dev sentences that branch
(``benchmarks/results/exact_warm_basis.md``): half the first-solve simplex iterations, 1.05-1.12x the speed;
a warm iteration costs about twice a cold one, and as fixing removes most arcs at the first branching, the
placed basis is often dual infeasible (HiGHS then starts with dual phase 1).

Statuses are HiGHS's codes (``highspy.HighsBasisStatus``): :data:`LOWER`, :data:`BASIC`, :data:`UPPER`,
:data:`ZERO` (a free nonbasic). A basis placed on another program is *repaired* to a consistent one (as many
basic entries as rows, nonbasic entries on finite bounds) by :func:`consistent`; a singular one is HiGHS's to
repair (it replaces dependent basic columns by slacks).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from lpparse.lp.program import LinearProgram

__all__ = ["BASIC", "LOWER", "UPPER", "ZERO", "LabelledBasis", "consistent"]

#: HiGHS's basis status codes (``highspy.HighsBasisStatus``)
LOWER, BASIC, UPPER, ZERO = 0, 1, 2, 3

#: Statuses by block name: (index tuples (k, arity), status codes (k,))
_Entries = dict[str, tuple[NDArray[np.int64], NDArray[np.int8]]]


def _labelled(blocks: dict, status: NDArray[np.int8], default: int) -> _Entries:
    out: _Entries = {}
    for name, block in blocks.items():
        codes = status[block.positions]
        keep = codes != default
        if keep.any():
            out[name] = (block.index[keep], codes[keep])
    return out


def _placed(blocks: dict, entries: _Entries, size: int, default: int) -> NDArray[np.int8]:
    status = np.full(size, default, np.int8)
    for name, (index, codes) in entries.items():
        block = blocks.get(name)
        if block is None or not len(index):
            continue
        at = block.find(index)
        found = at >= 0
        status[at[found]] = codes[found]
    return status


@dataclass(frozen=True)
class LabelledBasis:
    """A basis by label: the columns not at their lower bound and the rows whose slack is not basic (the
    defaults of a column and a row that the basis does not name: a new column enters nonbasic at its lower
    bound, a new row with its slack basic)."""

    cols: _Entries
    rows: _Entries

    @classmethod
    def of(
        cls, lp: LinearProgram, col_status: NDArray[np.int8], row_status: NDArray[np.int8]
    ) -> LabelledBasis:
        """The basis ``col_status``, ``row_status`` (program order) of ``lp``, by label."""
        return cls(_labelled(lp.var_blocks, col_status, LOWER), _labelled(lp.con_blocks, row_status, BASIC))

    def placed(self, lp: LinearProgram) -> tuple[NDArray[np.int8], NDArray[np.int8]]:
        """The statuses of ``lp``'s columns and rows (program order): the named ones as named, the others by
        default; not yet :func:`consistent`."""
        return (
            _placed(lp.var_blocks, self.cols, lp.num_cols, LOWER),
            _placed(lp.con_blocks, self.rows, lp.num_rows, BASIC),
        )


def _on_bounds(status: NDArray[np.int8], lower: NDArray[np.float64], upper: NDArray[np.float64]) -> None:
    """Move nonbasic entries onto a finite bound (a free one: ZERO), in place."""
    nonbasic = status != BASIC
    lo, up = np.isfinite(lower), np.isfinite(upper)
    status[nonbasic & (status == LOWER) & ~lo & up] = UPPER
    status[nonbasic & (status == UPPER) & ~up & lo] = LOWER
    status[nonbasic & ~lo & ~up] = ZERO
    status[nonbasic & (status == ZERO) & lo] = LOWER
    status[nonbasic & (status == ZERO) & ~lo & up] = UPPER


def consistent(
    col_status: NDArray[np.int8],
    row_status: NDArray[np.int8],
    col_bounds: tuple[NDArray[np.float64], NDArray[np.float64]],
    row_bounds: tuple[NDArray[np.float64], NDArray[np.float64]],
) -> tuple[NDArray[np.int8], NDArray[np.int8]]:
    """Copies of the statuses with nonbasic entries on finite bounds and exactly one basic entry per row: too
    few (a basic column was removed) are made up by the slacks of nonbasic rows, inequalities first; too many
    (a row with a nonbasic slack was removed) are cut by making the last basic columns nonbasic, then the
    last basic slacks."""
    cols, rows = col_status.astype(np.int8), row_status.astype(np.int8)
    missing = rows.size - int((cols == BASIC).sum() + (rows == BASIC).sum())
    if missing > 0:
        candidates = np.flatnonzero(rows != BASIC)
        equality = row_bounds[0][candidates] == row_bounds[1][candidates]
        rows[candidates[np.argsort(equality, kind="stable")][:missing]] = BASIC
    extra = -missing
    for status in (cols, rows):
        if extra > 0:
            basic = np.flatnonzero(status == BASIC)[-extra:]
            status[basic] = LOWER
            extra -= basic.size
    _on_bounds(cols, *col_bounds)
    _on_bounds(rows, *row_bounds)
    return cols, rows
