"""HiGHS view of a :class:`~lpparse.lp.program.LinearProgram`: one ``passModel``, then incremental growth.

:class:`HighsModel` mirrors a LinearProgram in a live ``highspy.Highs`` object. The program is the single
source of truth: :meth:`HighsModel.sync` pushes the columns, rows and coefficients appended to it since the
last sync (batched ``addCols`` with their coefficients in existing rows, then batched ``addRows``), which
keeps HiGHS's basis, so the next :meth:`HighsModel.solve` is a warm dual-simplex re-solve.
:meth:`HighsModel.add_columns` and :meth:`HighsModel.add_rows` append to the program and sync in one step
(delayed column/row generation, parse-price-cut).

A model may leave some of the program's columns and rows out of HiGHS (``inactive_cols``/``inactive_rows``,
brought in later by :meth:`HighsModel.activate`): for parts the rows force to 0 (dead arcs in parse-price-cut),
which a warm re-solve without presolve would otherwise carry. :meth:`HighsModel.deactivate` takes active ones
out again, keeping the basis (nonbasic columns at 0, basic rows: column purging, :mod:`lpparse.colgen.purge`).
Solutions are mapped back to the program: an inactive column is 0 with reduced cost c - Aᵀy, an inactive row
has dual 0.

All sign conversion between HiGHS and lpparse happens in :func:`duals_from_highs`.
"""

from __future__ import annotations

import copy
import math
import os
import sys
import time
from pathlib import Path
from typing import NamedTuple

import highspy
import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.lp.basis import BASIC, LOWER, UPPER, LabelledBasis, consistent
from lpparse.lp.program import INF, LinearProgram
from lpparse.lp.solution import TOL, Solution, Status

__all__ = [
    "DUAL",
    "MIP_GAPS",
    "NO_ENTRIES",
    "PRIMAL",
    "Entries",
    "HighsModel",
    "duals_from_highs",
    "solve_highs",
]


class Entries(NamedTuple):
    """Coefficients of new columns in existing rows (:meth:`HighsModel.add_columns`), as triplets: each
    entry's local column (0..k-1), global row and value."""

    col: ArrayLike
    row: ArrayLike
    value: ArrayLike


#: New columns without coefficients
NO_ENTRIES = Entries((), (), ())

#: HiGHS ``simplex_strategy`` values: dual and primal simplex
DUAL, PRIMAL = 1, 4

_STATUS = {
    highspy.HighsModelStatus.kOptimal: Status.OPTIMAL,
    highspy.HighsModelStatus.kInfeasible: Status.INFEASIBLE,
    highspy.HighsModelStatus.kUnbounded: Status.UNBOUNDED,
    highspy.HighsModelStatus.kUnboundedOrInfeasible: Status.INFEASIBLE_OR_UNBOUNDED,
    highspy.HighsModelStatus.kTimeLimit: Status.TIME_LIMIT,
    highspy.HighsModelStatus.kIterationLimit: Status.ITERATION_LIMIT,
    highspy.HighsModelStatus.kSolveError: Status.NUMERICAL_TROUBLE,
    highspy.HighsModelStatus.kUnknown: Status.NUMERICAL_TROUBLE,
    highspy.HighsModelStatus.kPostsolveError: Status.NUMERICAL_TROUBLE,
    highspy.HighsModelStatus.kPresolveError: Status.NUMERICAL_TROUBLE,
    # the dual simplex stopped once its bound fell below the cutoff (HighsModel.set_cutoff)
    highspy.HighsModelStatus.kObjectiveBound: Status.CUTOFF,
}


#: HiGHS's basis statuses by code (:mod:`lpparse.lp.basis`)
_BASIS_STATUS = list(highspy.HighsBasisStatus.__members__.values())


def _side(
    values: NDArray[np.float64], lower: NDArray[np.float64], upper: NDArray[np.float64]
) -> NDArray[np.int8]:
    """UPPER where a nonbasic entry of ``values`` would sit at its finite upper bound (nearer to it than to the
    lower one, or the lower one infinite), else LOWER."""
    with np.errstate(invalid="ignore"):
        at_upper = np.isfinite(upper) & ((values > (lower + upper) / 2) | ~np.isfinite(lower))
    return np.where(at_upper, UPPER, LOWER).astype(np.int8)


def duals_from_highs(
    row_dual: ArrayLike, col_dual: ArrayLike, sense: highspy.ObjSense = highspy.ObjSense.kMaximize
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Convert HiGHS's (row_dual, col_dual) to lpparse's (y, d) convention (see :mod:`lpparse.lp.solution`).

    HiGHS (1.15, pinned by ``tests/test_lp.py::test_dual_sign_convention_highs``) reports, in both senses,
    ``col_dual = c - Aᵀ row_dual`` with ``row_dual`` = d(objective)/d(row bound): when maximizing, duals of
    binding ``<=`` rows are >= 0 and of binding ``>=`` rows <= 0. That is lpparse's maximize convention, so
    for ``kMaximize`` the conversion is the identity; a model passed as ``kMinimize`` of -c would flip both.
    """
    y = np.array(row_dual, dtype=np.float64)
    d = np.array(col_dual, dtype=np.float64)
    if sense == highspy.ObjSense.kMinimize:
        return -y, -d
    return y, d


def _inf(a: NDArray[np.float64]) -> NDArray[np.float64]:
    """Replace ±inf by HiGHS's infinity (nothing to replace when that is inf, as in highspy 1.16)."""
    if math.isinf(highspy.kHighsInf):
        return a
    return np.clip(a, -highspy.kHighsInf, highspy.kHighsInf)


def _increasing(index: NDArray[np.int64]) -> NDArray[np.int32]:
    """HiGHS indices as a set HiGHS deletes: in increasing order (activated columns and rows sit after the
    others in HiGHS, whatever their program order)."""
    return np.sort(index).astype(np.int32)


def _vector(values: list[float]) -> NDArray[np.float64]:
    """A vector of HiGHS's solution (highspy gives a list) as an array: ``np.fromiter`` with the length is
    faster than ``np.asarray``."""
    return np.fromiter(values, np.float64, len(values))


def _positions(size: int, inactive: ArrayLike) -> NDArray[np.int64]:
    """Index map 0..size-1 -> consecutive positions of the active items, -1 for the ``inactive`` ones."""
    out = np.zeros(size, np.int64)
    out[np.asarray(inactive, dtype=np.int64)] = -1
    active = out == 0
    out[active] = np.arange(int(active.sum()))
    return out


def _compressed(
    major: NDArray[np.int64], minor: NDArray[np.int64], values: NDArray[np.float64], size: int
) -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.float64]]:
    """COO triplets -> (starts, indices, values) compressed along ``major`` (0..size-1), sorted, duplicates
    summed: HiGHS's column-wise (major = column) or row-wise (major = row) format, without a scipy matrix."""
    key = major * (int(minor.max(initial=0)) + 1) + minor
    order = np.argsort(key, kind="stable")
    key, values, minor = key[order], values[order], minor[order]
    first = key[1:] != key[:-1]
    if not first.all():
        first = np.concatenate([[True], first])
        values = np.add.reduceat(values, np.flatnonzero(first))
        major, minor = major[order][first], minor[first]
    starts = np.zeros(size, np.int32)  # entries before each major index: no sorted copy of major
    np.cumsum(np.bincount(major, minlength=size)[:-1], out=starts[1:])
    return starts, minor.astype(np.int32), values


_banner_done = False


def _new_highs() -> highspy.Highs:
    """A ``highspy.Highs``. The first one a process makes prints HiGHS's banner to the C stdout before any
    option can be set (highspy 1.16; ERGO-Code/HiGHS issue 2749), which would land in every command's
    output: that construction runs with file descriptor 1 pointed at the null device."""
    global _banner_done
    if _banner_done:
        return highspy.Highs()
    _banner_done = True
    try:
        sys.stdout.flush()
        saved = os.dup(1)
    except (OSError, ValueError):  # no file descriptor 1: nothing to protect
        return highspy.Highs()
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 1)
            return highspy.Highs()
    finally:
        os.dup2(saved, 1)
        os.close(saved)


#: HiGHS's MIP stopping gaps in every view: its defaults (1e-4 relative) stop short of lpparse's MIP certificate
MIP_GAPS = {"mip_rel_gap": 1e-9, "mip_abs_gap": 1e-9}


class HighsModel:
    """A live HiGHS model of a LinearProgram (maximize; dual simplex; quiet).

    ``mip=True`` imposes the program's integrality (ILP); otherwise the LP relaxation is solved.
    ``time_limit`` in seconds; ``options`` are passed to ``Highs.setOptionValue``. ``inactive_cols`` and
    ``inactive_rows`` (program indices) stay out of HiGHS until :meth:`activate`; the caller vouches that the
    program forces those columns to 0, or that it treats them as fixed at 0 (module docstring).
    """

    def __init__(
        self,
        lp: LinearProgram,
        mip: bool = False,
        time_limit: float | None = None,
        tol: float = TOL,
        options: dict[str, object] | None = None,
        inactive_cols: ArrayLike = (),
        inactive_rows: ArrayLike = (),
    ) -> None:
        self.lp = lp
        self.mip = mip
        self.tol = tol
        self.highs = _new_highs()
        self._deadline: float | None = None
        # program index -> HiGHS index (-1: inactive) and back; new program columns and rows are active
        self._col_h = _positions(lp.num_cols, inactive_cols)
        self._row_h = _positions(lp.num_rows, inactive_rows)
        self._col_p = np.flatnonzero(self._col_h >= 0)
        self._row_p = np.flatnonzero(self._row_h >= 0)
        #: the program's COO triplets (rows, cols, values) with an inactive row or column, held for activate()
        self._held = (np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))
        #: 1.0 while HiGHS maximizes c, -1.0 once it minimizes -c (:meth:`set_cutoff`)
        self._sign = 1.0
        opts: dict[str, object] = {
            "output_flag": False,
            # dual simplex: in design runs interior point took 89 s at n = 60 and PDLP did not converge
            "simplex_strategy": 1,
            **MIP_GAPS,
        }
        if time_limit is not None:
            opts["time_limit"] = float(time_limit)
        opts.update(options or {})
        for key, value in opts.items():
            self._check(self.highs.setOptionValue(key, value), f"option {key}")
        self._pass_model()

    @staticmethod
    def _check(status: highspy.HighsStatus, what: str) -> None:
        if status == highspy.HighsStatus.kError:
            raise RuntimeError(f"HiGHS error in {what}")

    def _pass_model(self) -> None:
        """One ``passModel`` from flat arrays (the array overload: no HighsLp vectors filled from Python)."""
        lp = self.lp
        cols, rows = self._col_p, self._row_p
        hr, hc, vals = self._active_coefficients(*lp.coefficients_since(0))
        starts, index, values = _compressed(hc, hr, vals, cols.size)
        integrality = lp.integrality[cols].astype(np.int32) if self.mip else np.zeros(cols.size, np.int32)
        self._check(
            self.highs.passModel(
                cols.size,
                rows.size,
                index.size,
                int(highspy.MatrixFormat.kColwise),
                int(highspy.ObjSense.kMaximize),
                0.0,
                np.ascontiguousarray(lp.cost[cols]),
                _inf(lp.col_lower[cols]),
                _inf(lp.col_upper[cols]),
                _inf(lp.row_lower[rows]),
                _inf(lp.row_upper[rows]),
                starts,
                index,
                values,
                integrality,
            ),
            "passModel",
        )
        self._synced = (lp.num_cols, lp.num_rows, lp.num_nz)

    @property
    def masked(self) -> bool:
        """Whether some program column or row is not in HiGHS."""
        return self._col_p.size < self._col_h.size or self._row_p.size < self._row_h.size

    def _in_program_order(self) -> bool:
        """Whether HiGHS's columns and rows are the program's, in its order (nothing inactive or activated)."""
        return all(
            p.size == h.size and bool((p == np.arange(p.size)).all())
            for p, h in ((self._col_p, self._col_h), (self._row_p, self._row_h))
        )

    def _active_coefficients(
        self, rows: NDArray[np.int64], cols: NDArray[np.int64], vals: NDArray[np.float64]
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
        """COO triplets in HiGHS indices (rows, cols, values), of the program's triplets whose row and column
        are both in HiGHS; the others are held until :meth:`activate`."""
        hr, hc = self._row_h[rows], self._col_h[cols]
        keep = (hr >= 0) & (hc >= 0)
        if keep.all():
            return hr, hc, vals
        held = ~keep
        self._held = (
            np.concatenate([self._held[0], rows[held]]),
            np.concatenate([self._held[1], cols[held]]),
            np.concatenate([self._held[2], vals[held]]),
        )
        return hr[keep], hc[keep], vals[keep]

    def _add_cols(
        self, cols: NDArray[np.int64], hr: NDArray[np.int64], hc: NDArray[np.int64], vals: NDArray[np.float64]
    ) -> None:
        """addCols for program columns ``cols`` (HiGHS columns h0.. in order), with the COO triplets (HiGHS
        indices) of their coefficients in HiGHS's rows."""
        lp, h0 = self.lp, int(self._col_p.size) - cols.size
        starts, index, values = _compressed(hc - h0, hr, vals, cols.size)
        self._check(
            self.highs.addCols(
                cols.size,
                self._sign * lp.cost[cols],
                _inf(lp.col_lower[cols]),
                _inf(lp.col_upper[cols]),
                index.size,
                starts,
                index,
                values,
            ),
            "addCols",
        )
        if self.mip and lp.integrality[cols].any():
            self._check(
                self.highs.changeColsIntegrality(
                    cols.size,
                    np.arange(h0, h0 + cols.size, dtype=np.int32),
                    lp.integrality[cols].astype(np.uint8),
                ),
                "changeColsIntegrality",
            )

    def _add_rows(
        self, rows: NDArray[np.int64], hr: NDArray[np.int64], hc: NDArray[np.int64], vals: NDArray[np.float64]
    ) -> None:
        """addRows for program rows ``rows`` (HiGHS rows h0.. in order), with the COO triplets (HiGHS indices)
        of their coefficients in HiGHS's columns."""
        lp, h0 = self.lp, int(self._row_p.size) - rows.size
        starts, index, values = _compressed(hr - h0, hc, vals, rows.size)
        self._check(
            self.highs.addRows(
                rows.size,
                _inf(lp.row_lower[rows]),
                _inf(lp.row_upper[rows]),
                index.size,
                starts,
                index,
                values,
            ),
            "addRows",
        )

    def activate(self, cols: ArrayLike = (), rows: ArrayLike = ()) -> None:
        """Bring inactive program columns and rows into HiGHS, with all their coefficients among the active
        ones (keeps the basis: new columns enter nonbasic, new rows with basic slacks)."""
        self.sync()
        cols = np.unique(np.asarray(cols, dtype=np.int64))
        rows = np.unique(np.asarray(rows, dtype=np.int64))
        if (self._col_h[cols] >= 0).any() or (self._row_h[rows] >= 0).any():
            raise ValueError("activate only inactive columns and rows")
        h_rows = self._row_p.size
        if cols.size:
            self._col_h[cols] = self._col_p.size + np.arange(cols.size)
            self._col_p = np.concatenate([self._col_p, cols])
        if rows.size:
            self._row_h[rows] = h_rows + np.arange(rows.size)
            self._row_p = np.concatenate([self._row_p, rows])
        r, c, v = self._held
        hr, hc = self._row_h[r], self._col_h[c]
        now = (hr >= 0) & (hc >= 0)
        self._held = (r[~now], c[~now], v[~now])
        hr, hc, v = hr[now], hc[now], v[now]
        in_new_row = hr >= h_rows  # coefficients of new rows go with the rows, after the columns
        if cols.size:
            self._add_cols(cols, hr[~in_new_row], hc[~in_new_row], v[~in_new_row])
        if rows.size:
            self._add_rows(rows, hr[in_new_row], hc[in_new_row], v[in_new_row])

    def deactivate(self, cols: ArrayLike = (), rows: ArrayLike = ()) -> None:
        """Take active program columns and rows out of HiGHS, holding their coefficients for :meth:`activate`
        (the reverse of it). The caller vouches that the columns are nonbasic at 0 and the rows basic, so that
        HiGHS's basis stays valid and the next solve goes on from it, and that the rows are redundant once the
        columns are out (a solution of the smaller model then satisfies them, extended by zeros)."""
        self.sync()
        cols = np.unique(np.asarray(cols, dtype=np.int64))
        rows = np.unique(np.asarray(rows, dtype=np.int64))
        if (self._col_h[cols] < 0).any() or (self._row_h[rows] < 0).any():
            raise ValueError("deactivate only active columns and rows")
        r, c, v = self.lp.coefficients_since(0)
        leaving_col = np.zeros(self._col_h.size, bool)
        leaving_col[cols] = True
        leaving_row = np.zeros(self._row_h.size, bool)
        leaving_row[rows] = True
        hold = (self._row_h[r] >= 0) & (self._col_h[c] >= 0) & (leaving_col[c] | leaving_row[r])
        held_r, held_c, held_v = self._held
        self._held = (
            np.concatenate([held_r, r[hold]]),
            np.concatenate([held_c, c[hold]]),
            np.concatenate([held_v, v[hold]]),
        )
        if cols.size:
            self._check(self.highs.deleteCols(cols.size, _increasing(self._col_h[cols])), "deleteCols")
            self._col_p = self._col_p[~leaving_col[self._col_p]]
            self._col_h[cols] = -1
            self._col_h[self._col_p] = np.arange(self._col_p.size)
        if rows.size:
            self._check(self.highs.deleteRows(rows.size, _increasing(self._row_h[rows])), "deleteRows")
            self._row_p = self._row_p[~leaving_row[self._row_p]]
            self._row_h[rows] = -1
            self._row_h[self._row_p] = np.arange(self._row_p.size)

    def active(self) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
        """Whether each program column and row is in HiGHS."""
        self.sync()
        return self._col_h >= 0, self._row_h >= 0

    def basic(self) -> tuple[NDArray[np.bool_], NDArray[np.bool_]]:
        """Whether each program column and row is basic in HiGHS's current basis (an inactive one is not)."""
        self.sync()
        _, index = self.highs.getBasicVariables()
        index = np.asarray(index, np.int64)
        cols = np.zeros(self._col_h.size, bool)
        rows = np.zeros(self._row_h.size, bool)
        cols[self._col_p[index[index >= 0]]] = True
        rows[self._row_p[-1 - index[index < 0]]] = True
        return cols, rows

    # ---- growth -----------------------------------------------------------------------------------
    def sync(self) -> None:
        """Push columns, rows and coefficients appended to the program since the last sync (keeps the
        basis)."""
        lp = self.lp
        c0, r0, nz0 = self._synced
        c1, r1 = lp.num_cols, lp.num_rows
        h_cols, h_rows = self._col_p.size, self._row_p.size
        if c1 > c0:
            self._col_h = np.concatenate([self._col_h, h_cols + np.arange(c1 - c0)])
            self._col_p = np.concatenate([self._col_p, np.arange(c0, c1)])
        if r1 > r0:
            self._row_h = np.concatenate([self._row_h, h_rows + np.arange(r1 - r0)])
            self._row_p = np.concatenate([self._row_p, np.arange(r0, r1)])
        rows, cols, vals = self._active_coefficients(*lp.coefficients_since(nz0))
        new_row = rows >= h_rows
        new_col_old_row = (cols >= h_cols) & ~new_row
        old = ~new_row & ~new_col_old_row
        if c1 > c0:
            sel = new_col_old_row
            self._add_cols(np.arange(c0, c1), rows[sel], cols[sel], vals[sel])
        if r1 > r0:
            self._add_rows(np.arange(r0, r1), rows[new_row], cols[new_row], vals[new_row])
        if old.any():  # new coefficients of old columns in old rows: set the summed value
            a = lp.A
            for i, j in {(int(i), int(j)) for i, j in zip(rows[old], cols[old])}:
                value = float(a[self._row_p[i], self._col_p[j]])
                self._check(self.highs.changeCoeff(i, j, value), "changeCoeff")
        self._synced = (c1, r1, lp.num_nz)

    def add_columns(
        self,
        block: str,
        index: ArrayLike,
        cost: ArrayLike,
        entries: Entries = NO_ENTRIES,
        lower: ArrayLike = 0.0,
        upper: ArrayLike = INF,
        integer: bool = False,
    ) -> NDArray[np.int64]:
        """Append columns to variable block ``block`` with coefficients ``entries`` in existing rows, and sync.
        Returns the new global column positions."""
        pos = self.lp.add_variables(block, index, cost, lower, upper, integer)
        local = np.asarray(entries.col, dtype=np.int64)
        self.lp.add_coefficients(entries.row, pos[local] if local.size else local, entries.value)
        self.sync()
        return pos

    def add_rows(
        self,
        block: str,
        index: ArrayLike,
        rows: ArrayLike,
        cols: ArrayLike,
        values: ArrayLike,
        lower: ArrayLike = -INF,
        upper: ArrayLike = INF,
    ) -> NDArray[np.int64]:
        """Append rows to constraint block ``block`` (local ``rows``, global ``cols``), and sync."""
        pos = self.lp.add_constraints(block, index, rows, cols, values, lower, upper)
        self.sync()
        return pos

    def set_col_upper(self, cols: ArrayLike, upper: ArrayLike) -> None:
        """Set the upper bounds of program columns ``cols`` in the program and in HiGHS (keeps the basis: a
        branch-and-bound node as bound changes on one master)."""
        cols = np.asarray(cols, dtype=np.int64)
        self.lp.col_upper[cols] = upper
        h = self._col_h[cols]
        active = cols[h >= 0]
        if active.size:
            self._check(
                self.highs.changeColsBounds(
                    active.size,
                    self._col_h[active].astype(np.int32),
                    _inf(self.lp.col_lower[active]),
                    _inf(self.lp.col_upper[active]),
                ),
                "changeColsBounds",
            )

    def probe(self, cols: ArrayLike, upper: ArrayLike, iterations: int) -> float:
        """The objective after at most ``iterations`` dual simplex iterations from the current basis with
        the upper bounds of program columns ``cols`` set to ``upper`` (strong branching's estimate of a
        child: for a solved LP, bound changes keep the basis dual feasible, so the value never falls below the
        changed LP's optimum); the bounds, basis and options are then restored. NaN if HiGHS reports no
        value."""
        cols = np.asarray(cols, dtype=np.int64)
        before = self.lp.col_upper[cols].copy()
        basis = self.highs.getBasis()
        options = {
            name: self.highs.getOptionValue(name)[1]
            for name in ("simplex_strategy", "simplex_iteration_limit", "presolve")
        }
        self.set_col_upper(cols, upper)
        self.highs.setOptionValue("simplex_strategy", DUAL)
        self.highs.setOptionValue("presolve", "off")
        self.highs.setOptionValue("simplex_iteration_limit", int(iterations))
        try:
            self.highs.run()
            value = self._sign * float(self.highs.getInfo().objective_function_value)
            status = self.highs.getModelStatus()
            if status == highspy.HighsModelStatus.kInfeasible:  # the program maximizes, in either HiGHS sense
                value = -np.inf
        finally:
            self.set_col_upper(cols, before)
            for name, v in options.items():
                self.highs.setOptionValue(name, v)
            self._check(self.highs.setBasis(basis), "setBasis")
        return value

    # ---- solving ----------------------------------------------------------------------------------
    def set_deadline(self, deadline: float | None) -> None:
        """Stop the next solves at ``deadline`` (a ``time.perf_counter()`` value; None: no limit). HiGHS's
        ``time_limit`` counts the object's cumulative run time, so each solve sets it, after pushing what the
        program grew by (which takes time too), to that plus what is left."""
        self._deadline = deadline
        if deadline is None:
            self.highs.setOptionValue("time_limit", float("inf"))

    def _apply_deadline(self) -> None:
        if self._deadline is not None:
            left = max(self._deadline - time.perf_counter(), 1e-3)
            self.highs.setOptionValue("time_limit", self.highs.getRunTime() + left)

    def set_strategy(self, strategy: int) -> None:
        """HiGHS ``simplex_strategy`` of the next solves (:data:`DUAL` 1, :data:`PRIMAL` 4)."""
        self._check(self.highs.setOptionValue("simplex_strategy", int(strategy)), "simplex_strategy")

    def set_cutoff(self, value: float | None) -> None:
        """Let the next solves' dual simplex stop, with status CUTOFF, once the objective bound of its basis
        falls below ``value`` (None: solve to optimality). In the dual simplex's second phase every basis is
        dual feasible, so its duals bound the LP by their dual objective; HiGHS stops (``objective_bound``)
        when that is below the cutoff, which closes a branch-and-bound node before its LP is solved (the
        duals of such a stop are dual feasible, the primal is not feasible). HiGHS stops so when minimizing
        only: the first cutoff turns the model into the minimization of -c (:func:`duals_from_highs` reads the
        duals of either sense). Not for a MIP."""
        if value is not None and self._sign > 0:
            if self.mip:
                raise ValueError("a cutoff stops the dual simplex of an LP; a MIP has none")
            cols = self._col_p
            self._check(self.highs.changeObjectiveSense(highspy.ObjSense.kMinimize), "changeObjectiveSense")
            order = np.arange(cols.size, dtype=np.int32)
            self._check(self.highs.changeColsCost(cols.size, order, -self.lp.cost[cols]), "changeColsCost")
            self._sign = -1.0
        bound = float("inf") if value is None else -float(value)
        self._check(self.highs.setOptionValue("objective_bound", bound), "objective_bound")

    def set_perturbation(self, on: bool, iteration_limit: int | None = None) -> None:
        """Primal simplex bound perturbation on (HiGHS's default) or off; ``iteration_limit`` caps the next
        solves' simplex iterations (None: no cap), so that a solve without perturbation that stalls stops and
        can go on with it."""
        self.highs.setOptionValue("primal_simplex_bound_perturbation_multiplier", 1.0 if on else 0.0)
        limit = 2**31 - 1 if iteration_limit is None else int(iteration_limit)
        self.highs.setOptionValue("simplex_iteration_limit", limit)

    def solve(self, certify: bool = True) -> Solution:
        """Solve (warm when the model was solved before and only grew); return a certified-or-not Solution.

        ``certify=False`` skips lpparse's own check (for the intermediate solves of a loop that certifies its
        final answer itself, such as parse-price-cut). HiGHS 1.15's MIP presolve can report "Optimal" with
        NaN values on tiny programs; such a MIP is solved once more without presolve, so the caller sees
        either a certified answer or an honest status.
        """
        sol = self._run(certify)
        if certify and self.mip and sol.status is Status.OPTIMAL and not sol.certified:
            presolve = self.highs.getOptionValue("presolve")[1]
            self.highs.setOptionValue("presolve", "off")
            try:
                sol = self._run(certify)
            finally:
                self.highs.setOptionValue("presolve", presolve)
        return sol

    def _run(self, certify: bool) -> Solution:
        self.sync()
        self._apply_deadline()
        start = time.perf_counter()
        run_status = self.highs.run()
        elapsed = time.perf_counter() - start
        info = self.highs.getInfo()
        if self.highs.getModelStatus() == highspy.HighsModelStatus.kMemoryLimit:
            raise MemoryError(
                f"HiGHS ran out of memory on a program of {self.lp.num_rows} rows and {self.lp.num_cols} columns"
            )
        status = _STATUS.get(self.highs.getModelStatus(), Status.NOT_SOLVED)
        if run_status == highspy.HighsStatus.kError and status is Status.OPTIMAL:
            status = Status.NUMERICAL_TROUBLE
        details: dict[str, object] = {
            "model_status": self.highs.modelStatusToString(self.highs.getModelStatus())
        }
        if self.mip:
            details["mip_nodes"] = int(info.mip_node_count)
        kw: dict[str, object] = {
            "iterations": int(info.simplex_iteration_count),
            "time": elapsed,
            "solver_objective": self._sign * float(info.objective_function_value),
            "info": details,
        }
        sol = self.highs.getSolution()
        if sol.value_valid:
            kw["x"] = self._to_program(_vector(sol.col_value), self._col_p, self.lp.num_cols)
        if sol.dual_valid and not self.mip:
            sense = self.highs.getObjectiveSense()[1]
            y, d = duals_from_highs(_vector(sol.row_dual), _vector(sol.col_dual), sense)
            kw["row_dual"] = y = self._to_program(y, self._row_p, self.lp.num_rows)
            kw["col_dual"] = self._reduced_costs(y, self._to_program(d, self._col_p, self.lp.num_cols))
        return Solution.checked(
            self.lp,
            status,
            self.mip,
            tol=self.tol,
            bound=float(info.mip_dual_bound),
            certify=certify,
            **kw,  # type: ignore[arg-type]
        )

    def dual_ray(self) -> NDArray[np.float64] | None:
        """After an infeasible solve, HiGHS's dual ray in program row order (0 on inactive rows; None when
        HiGHS has none, e.g. presolve found the infeasibility: solve with ``presolve`` off). Check it with
        :func:`lpparse.lp.solution.farkas_margin`."""
        _, has_ray, values = self.highs.getDualRay()
        return self._to_program(np.asarray(values), self._row_p, self.lp.num_rows) if has_ray else None

    @staticmethod
    def _to_program(values: NDArray[np.float64], at: NDArray[np.int64], size: int) -> NDArray[np.float64]:
        """A HiGHS vector in program order (0 for inactive entries; activated ones come after the others)."""
        out = np.zeros(size)
        out[at] = values
        return out

    def _reduced_costs(self, y: NDArray[np.float64], d: NDArray[np.float64]) -> NDArray[np.float64]:
        """``d`` with the reduced costs c - Aᵀy of the inactive columns filled in."""
        lp = self.lp
        out = self._col_h < 0
        if not out.any():
            return d
        rows, cols, vals = self._held  # every coefficient of an inactive column is held
        sel = out[cols]
        aty = np.bincount(cols[sel], vals[sel] * y[rows[sel]], minlength=lp.num_cols)
        d[out] = lp.cost[out] - aty[out]
        return d

    def copy(self, lp: LinearProgram) -> HighsModel:
        """A model of ``lp``, a copy of this model's program as it stands, holding a copy of this model made
        inside HiGHS (its program, options and basis, the same columns and rows in the same order): its next
        solve starts from this model's basis, with no basis placed by label and no program passed from Python
        (a branch-and-bound node's master for a second child, :mod:`lpparse.exact.live`)."""
        self.sync()
        if (lp.num_cols, lp.num_rows, lp.num_nz) != self._synced:
            raise ValueError("copy a model onto a copy of its program as it stands")
        twin = copy.copy(self)
        twin.lp, twin.highs = lp, _new_highs()
        twin._col_h, twin._row_h = self._col_h.copy(), self._row_h.copy()
        twin._col_p, twin._row_p = self._col_p.copy(), self._row_p.copy()
        twin._held = tuple(a.copy() for a in self._held)  # type: ignore[assignment]
        self._check(twin.highs.passOptions(self.highs.getOptions()), "passOptions")
        self._check(twin.highs.passModel(self.highs.getLp()), "passModel")
        basis = self.highs.getBasis()
        if basis.valid:  # else (never solved) the copy solves from scratch, as this model would
            twin.highs.setBasis(basis)
        return twin

    def basis(self) -> highspy.HighsBasis:
        """HiGHS's current basis (col_status, row_status), in HiGHS's order: the program's unless some column
        or row was inactive."""
        return self.highs.getBasis()

    def set_basis(self, basis: highspy.HighsBasis) -> None:
        """Install a basis (e.g. from another model of the same program) for a warm start."""
        if not self._in_program_order():
            raise ValueError("this model's HiGHS order is not the program's (inactive columns or rows)")
        self._check(self.highs.setBasis(basis), "setBasis")

    def program_basis(self) -> tuple[NDArray[np.int8], NDArray[np.int8]]:
        """The current basis in program order (:mod:`lpparse.lp.basis` codes): HiGHS's basic variables, the
        nonbasic ones at the bound their value is nearer; an inactive column at its lower bound, an inactive
        row basic. (From the basic variables and the values, not HiGHS's status lists: reading those costs a
        Python object per column.)"""
        lp, cp, rp = self.lp, self._col_p, self._row_p
        _, basic = self.highs.getBasicVariables()
        sol = self.highs.getSolution()
        cols = np.full(lp.num_cols, LOWER, np.int8)
        rows = np.full(lp.num_rows, BASIC, np.int8)
        cols[cp] = _side(_vector(sol.col_value), lp.col_lower[cp], lp.col_upper[cp])
        rows[rp] = _side(_vector(sol.row_value), lp.row_lower[rp], lp.row_upper[rp])
        basic = np.asarray(basic, np.int64)
        cols[cp[basic[basic >= 0]]] = BASIC
        rows[rp[-1 - basic[basic < 0]]] = BASIC
        return cols, rows

    def start_from(self, basis: LabelledBasis) -> bool:
        """Install ``basis`` (another program's, by label: :class:`lpparse.lp.basis.LabelledBasis`), placed on
        this program and made consistent, so that the next solve starts from it; False when HiGHS refuses it
        (the solve then starts as it would have)."""
        self.sync()
        lp, cp, rp = self.lp, self._col_p, self._row_p
        col, row = basis.placed(lp)
        col, row = consistent(
            col[cp], row[rp], (lp.col_lower[cp], lp.col_upper[cp]), (lp.row_lower[rp], lp.row_upper[rp])
        )
        start = highspy.HighsBasis()
        start.col_status = [_BASIS_STATUS[c] for c in col.tolist()]
        start.row_status = [_BASIS_STATUS[r] for r in row.tolist()]
        start.valid = True
        return self.highs.setBasis(start) != highspy.HighsStatus.kError

    def write(self, path: str | Path) -> None:
        """Write the model (``.lp`` or ``.mps``; the active part) with symbolic names ``block[i,j]``."""
        self.sync()
        cols, rows = list(self.lp.col_names()), list(self.lp.row_names())
        for j, p in enumerate(self._col_p):
            self.highs.passColName(j, cols[p])
        for i, p in enumerate(self._row_p):
            self.highs.passRowName(i, rows[p])
        self._check(self.highs.writeModel(str(path)), "writeModel")


def solve_highs(
    lp: LinearProgram, mip: bool = False, time_limit: float | None = None, tol: float = TOL
) -> Solution:
    """Build a :class:`HighsModel` and solve it once."""
    return HighsModel(lp, mip=mip, time_limit=time_limit, tol=tol).solve()
