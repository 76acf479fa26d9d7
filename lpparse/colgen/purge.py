"""Column purging: part columns at 0 with a negative reduced cost leave the HiGHS master, and come back as soon
as a round's duals price them again.

Column generation only ever grows its restricted master. With arbitrary siblings over every arc, a 77-token
sentence ends with some 100,000 rows and 68,000 columns, most of them parts at 0 that never return to the
basis, and a simplex iteration costs over a millisecond. Taking such columns out of the restricted master is
standard column management (Lübbecke & Desrosiers 2005, "Selected topics in column generation", Operations
Research 53(6); Desaulniers, Desrosiers & Solomon 2002, "Accelerating strategies in column generation
methods", in Essays and Surveys in Metaheuristics). Here a purge

1. takes out of HiGHS the columns that the families priced or cut in (parts: not the base polytope's arcs
   and flows, nor the seeded parts) that are nonbasic at 0 with reduced cost below ``-margin`` x (1 + max
   |cost|), and the basic rows that are redundant without them (by the activity bounds of the row's other
   active columns: a part's linking row z_part - z_arc <= 0 becomes -z_arc <= 0). Both keep HiGHS's basis
   valid (:meth:`lpparse.lp.highs_view.HighsModel.deactivate`), so the next solve goes on from it;
2. leaves the program as it is: a purged column stays a column of the restricted LP, at 0 (HiGHS's solution
   extended by zeros), and a purged row gets dual 0.

Every round, after the families' pricing, the purged columns are priced against the round's duals (after
tightening): d = c - Aᵀy. Those with d > tol come back with their purged rows, and the round does not count
as converged; a purged row that a new active column enters comes back too, before the next solve. So a run
ends only when every purged column is dual feasible and every purged row still redundant, and the engine's
extension-by-zeros certificate covers them like any program column and row. A column that came back is never
purged again in the run, so nothing cycles.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from lpparse.lp.program import LinearProgram
from lpparse.lp.solution import Solution

if TYPE_CHECKING:  # the standalone proof checker imports the engine's options without HiGHS
    from lpparse.lp.highs_view import HighsModel

__all__ = ["Purge", "PurgeState"]


@dataclass(frozen=True)
class Purge:
    """When the engine purges its master (module docstring): every ``every`` rounds once HiGHS holds at least
    ``min_rows`` rows, the family columns at 0 with reduced cost below ``-margin`` x (1 + max |cost|)."""

    min_rows: int = 20_000
    every: int = 4
    margin: float = 1e-3

    def __post_init__(self) -> None:
        if self.min_rows < 0 or self.every < 1 or self.margin < 0:
            raise ValueError(f"invalid purge settings {self!r}")


class PurgeState:
    """The purged columns and rows of one engine run on ``lp`` and its HiGHS master ``model``. Only the
    columns the families add after the state is made (once they have seeded the program) may leave: the base
    polytope's stay, and so do the seeded parts, which hold the start tree, a point of the restricted LP
    whatever rows the families add later."""

    def __init__(self, settings: Purge, lp: LinearProgram, model: HighsModel) -> None:
        self.settings, self.lp, self.model = settings, lp, model
        self.first_col = lp.num_cols  #: the first column that may leave
        self.cols = np.zeros(0, np.int64)  #: purged columns (program indices), sorted
        self.rows = np.zeros(0, np.int64)  #: purged rows
        self._returned = np.zeros(0, bool)  #: per program column: came back once (never purged again)
        self._nz = 0  #: program coefficients already checked against the purged rows
        self.purged = 0  #: columns purged over the run
        self.purged_rows = 0  #: rows purged over the run
        self.returned = 0  #: columns that came back over the run

    def _grow(self) -> None:
        if self._returned.size < self.lp.num_cols:
            self._returned = np.concatenate(
                [self._returned, np.zeros(self.lp.num_cols - self._returned.size, bool)]
            )

    def purge(self, sol: Solution, round_: int) -> int:
        """Purge the master after the solve ``sol`` of round ``round_`` when due; return the columns purged."""
        s, model = self.settings, self.model
        if round_ % s.every or sol.x is None or sol.col_dual is None:
            return 0
        active_col, active_row = model.active()
        if int(active_row.sum()) < s.min_rows:
            return 0
        lp = self.lp
        self._grow()
        basic_col, basic_row = model.basic()
        scale = 1.0 + float(np.abs(lp.cost).max(initial=0.0))
        family = np.zeros(lp.num_cols, bool)
        family[self.first_col :] = True
        out = (
            family
            & active_col
            & ~basic_col
            & ~self._returned[: lp.num_cols]
            & (lp.col_lower == 0.0)
            & (np.abs(sol.x) <= 1e-12)
            & (sol.col_dual < -s.margin * scale)
        )
        cols = np.flatnonzero(out)
        if cols.size == 0:
            return 0
        r, c, v = lp.coefficients_since(0)
        touched = np.zeros(lp.num_rows, bool)
        touched[r[out[c]]] = True
        stay = active_col & ~out
        rows = np.flatnonzero(touched & active_row & basic_row & _redundant(lp, r, c, v, stay))
        model.deactivate(cols, rows)
        self.cols = np.union1d(self.cols, cols)
        self.rows = np.union1d(self.rows, rows)
        self._nz = lp.num_nz
        self.purged += cols.size
        self.purged_rows += rows.size
        return int(cols.size)

    def returning(self, y: NDArray[np.float64], tol: float) -> int:
        """Bring back the purged columns with reduced cost > ``tol`` under the duals ``y`` (and their purged
        rows); return how many."""
        if self.cols.size == 0:
            return 0
        lp = self.lp
        r, c, v = lp.coefficients_since(0)
        purged = np.zeros(lp.num_cols, bool)
        purged[self.cols] = True
        sel = purged[c]
        aty = np.bincount(c[sel], v[sel] * y[r[sel]], minlength=lp.num_cols)
        back = self.cols[lp.cost[self.cols] - aty[self.cols] > tol]
        if back.size == 0:
            return 0
        coming = np.zeros(lp.num_cols, bool)
        coming[back] = True
        in_rows = np.zeros(lp.num_rows, bool)
        in_rows[r[coming[c]]] = True
        rows = self.rows[in_rows[self.rows]]
        self._grow()
        self._returned[back] = True
        self.cols = np.setdiff1d(self.cols, back, assume_unique=True)
        self.rows = np.setdiff1d(self.rows, rows, assume_unique=True)
        self.model.activate(back, rows)
        self.returned += back.size
        return int(back.size)

    def entered(self) -> int:
        """Bring back the purged rows that a column active in the master entered since the last check (new
        coefficients: they may bind again); return how many."""
        lp = self.lp
        if self.rows.size == 0 or lp.num_nz == self._nz:
            self._nz = lp.num_nz
            return 0
        r, c, _ = lp.coefficients_since(self._nz)
        self._nz = lp.num_nz
        active_col, _ = self.model.active()
        held = np.zeros(lp.num_rows, bool)
        held[self.rows] = True
        hit = np.zeros(lp.num_rows, bool)
        hit[r[held[r] & active_col[c]]] = True
        rows = self.rows[hit[self.rows]]
        if rows.size:
            self.rows = np.setdiff1d(self.rows, rows, assume_unique=True)
            self.model.activate((), rows)
        return int(rows.size)


def _redundant(
    lp: LinearProgram,
    r: NDArray[np.int64],
    c: NDArray[np.int64],
    v: NDArray[np.float64],
    on: NDArray[np.bool_],
    eps: float = 1e-9,
) -> NDArray[np.bool_]:
    """Per row: whether it holds for every value of the columns ``on`` within their bounds (the others at 0),
    from its activity bounds."""
    sel = on[c]
    r, c, v = r[sel], c[sel], v[sel]
    lo, up = lp.col_lower[c], lp.col_upper[c]
    low_end = np.where(v > 0, lo, up)  # the column's value at the row's least activity
    high_end = np.where(v > 0, up, lo)
    size = lp.num_rows
    inf_low = np.bincount(r, np.isinf(low_end), size) > 0
    inf_high = np.bincount(r, np.isinf(high_end), size) > 0
    least = np.bincount(r, np.where(np.isinf(low_end), 0.0, v * low_end), size)
    most = np.bincount(r, np.where(np.isinf(high_end), 0.0, v * high_end), size)
    lower_ok = np.isneginf(lp.row_lower) | (~inf_low & (least >= lp.row_lower - eps))
    upper_ok = np.isposinf(lp.row_upper) | (~inf_high & (most <= lp.row_upper + eps))
    return lower_ok & upper_ok
