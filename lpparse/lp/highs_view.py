"""HiGHS view of a :class:`~lpparse.lp.program.LinearProgram`: one ``passModel``, then incremental growth.

:class:`HighsModel` mirrors a LinearProgram in a live ``highspy.Highs`` object. The program is the single
source of truth: :meth:`HighsModel.sync` pushes the columns, rows and coefficients appended to it since the
last sync (batched ``addCols`` with their coefficients in existing rows, then batched ``addRows``), which
keeps HiGHS's basis, so the next :meth:`HighsModel.solve` is a warm dual-simplex re-solve.
:meth:`HighsModel.add_columns` and :meth:`HighsModel.add_rows` append to the program and sync in one step
(delayed column/row generation, parse-price-cut).

All sign conversion between HiGHS and lpparse happens in :func:`duals_from_highs`.
"""

from __future__ import annotations

import time
from pathlib import Path

import highspy
import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.lp.program import INF, LinearProgram
from lpparse.lp.solution import TOL, Solution, Status

__all__ = ["HighsModel", "duals_from_highs", "solve_highs"]

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
}


def duals_from_highs(
    row_dual: ArrayLike, col_dual: ArrayLike, sense: highspy.ObjSense = highspy.ObjSense.kMaximize
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Convert HiGHS's (row_dual, col_dual) to lpparse's (y, d) convention (see :mod:`lpparse.lp.solution`).

    HiGHS (1.15, pinned by ``tests/test_lp_highs.py::test_dual_sign_convention``) reports, in both senses,
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
    """Replace ±inf by HiGHS's infinity."""
    return np.clip(a, -highspy.kHighsInf, highspy.kHighsInf)


def _compressed(
    major: NDArray[np.int64], minor: NDArray[np.int64], values: NDArray[np.float64], size: int
) -> tuple[NDArray[np.int32], NDArray[np.int32], NDArray[np.float64]]:
    """COO triplets -> (starts, indices, values) compressed along ``major`` (0..size-1), sorted, duplicates
    summed: HiGHS's column-wise (major = column) or row-wise (major = row) format, without a scipy matrix."""
    key = major * (int(minor.max(initial=0)) + 1) + minor
    order = np.argsort(key, kind="stable")
    key, values = key[order], values[order]
    first = np.r_[True, key[1:] != key[:-1]] if key.size else np.zeros(0, bool)
    if not first.all():
        values = np.add.reduceat(values, np.flatnonzero(first))
    major, minor = major[order][first], minor[order][first]
    starts = np.searchsorted(major, np.arange(size)).astype(np.int32)
    return starts, minor.astype(np.int32), values


class HighsModel:
    """A live HiGHS model of a LinearProgram (maximize; dual simplex; quiet).

    ``mip=True`` imposes the program's integrality (ILP); otherwise the LP relaxation is solved.
    ``time_limit`` in seconds; ``options`` are passed to ``Highs.setOptionValue``.
    """

    def __init__(
        self,
        lp: LinearProgram,
        mip: bool = False,
        time_limit: float | None = None,
        tol: float = TOL,
        options: dict[str, object] | None = None,
    ) -> None:
        self.lp = lp
        self.mip = mip
        self.tol = tol
        self.highs = highspy.Highs()
        opts: dict[str, object] = {
            "output_flag": False,
            "simplex_strategy": 1,  # dual simplex (DESIGN.md: IPM and PDLP lose here)
            "mip_rel_gap": 1e-9,
            "mip_abs_gap": 1e-9,
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
        rows, cols, vals = lp.coefficients_since(0)
        starts, index, values = _compressed(cols, rows, vals, lp.num_cols)
        integrality = lp.integrality.astype(np.int32) if self.mip else np.zeros(lp.num_cols, np.int32)
        self._check(
            self.highs.passModel(
                lp.num_cols,
                lp.num_rows,
                index.size,
                int(highspy.MatrixFormat.kColwise),
                int(highspy.ObjSense.kMaximize),
                0.0,
                np.ascontiguousarray(lp.cost),
                _inf(lp.col_lower),
                _inf(lp.col_upper),
                _inf(lp.row_lower),
                _inf(lp.row_upper),
                starts,
                index,
                values,
                integrality,
            ),
            "passModel",
        )
        self._synced = (lp.num_cols, lp.num_rows, lp.num_nz)

    # ---- growth -----------------------------------------------------------------------------------
    def sync(self) -> None:
        """Push columns, rows and coefficients appended to the program since the last sync (keeps the
        basis)."""
        lp = self.lp
        c0, r0, nz0 = self._synced
        c1, r1 = lp.num_cols, lp.num_rows
        rows, cols, vals = lp.coefficients_since(nz0)
        new_row = rows >= r0
        new_col_old_row = (cols >= c0) & ~new_row
        old = ~new_row & ~new_col_old_row
        if c1 > c0:
            sel = new_col_old_row
            starts, index, values = _compressed(cols[sel] - c0, rows[sel], vals[sel], c1 - c0)
            self._check(
                self.highs.addCols(
                    c1 - c0,
                    lp.cost[c0:c1].copy(),
                    _inf(lp.col_lower[c0:c1]),
                    _inf(lp.col_upper[c0:c1]),
                    index.size,
                    starts,
                    index,
                    values,
                ),
                "addCols",
            )
            if self.mip and lp.integrality[c0:c1].any():
                self._check(
                    self.highs.changeColsIntegrality(
                        c1 - c0, np.arange(c0, c1, dtype=np.int32), lp.integrality[c0:c1].astype(np.uint8)
                    ),
                    "changeColsIntegrality",
                )
        if r1 > r0:
            starts, index, values = _compressed(rows[new_row] - r0, cols[new_row], vals[new_row], r1 - r0)
            self._check(
                self.highs.addRows(
                    r1 - r0,
                    _inf(lp.row_lower[r0:r1]),
                    _inf(lp.row_upper[r0:r1]),
                    index.size,
                    starts,
                    index,
                    values,
                ),
                "addRows",
            )
        if old.any():  # new coefficients of old columns in old rows: set the summed value
            a = lp.A
            for i, j in {(int(i), int(j)) for i, j in zip(rows[old], cols[old])}:
                self._check(self.highs.changeCoeff(i, j, float(a[i, j])), "changeCoeff")
        self._synced = (c1, r1, lp.num_nz)

    def add_columns(
        self,
        block: str,
        index: ArrayLike,
        cost: ArrayLike,
        rows: ArrayLike = (),
        values: ArrayLike = (),
        col_of_entry: ArrayLike = (),
        lower: ArrayLike = 0.0,
        upper: ArrayLike = INF,
        integer: bool = False,
    ) -> NDArray[np.int64]:
        """Append columns to variable block ``block`` with coefficients in existing rows, and sync.

        Coefficients are triplets: ``col_of_entry`` local column (0..k-1), ``rows`` global row, ``values``.
        Returns the new global column positions.
        """
        pos = self.lp.add_variables(block, index, cost, lower, upper, integer)
        local = np.asarray(col_of_entry, dtype=np.int64)
        self.lp.add_coefficients(rows, pos[local] if local.size else local, values)
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

    def set_solver_bounds(
        self, cols: ArrayLike, lower: ArrayLike | None = None, upper: ArrayLike | None = None
    ) -> None:
        """Set column bounds in HiGHS only, not in the program (None: back to the program's bounds).

        For bounds the program implies, such as columns its rows force to 0, which a warm re-solve (no
        presolve) cannot see. Solutions are then still checked against the program, so solve with
        ``certify=False`` and extend the duals of the columns held this way yourself (the reduced cost of a
        fixed column may have either sign). A bound change keeps HiGHS's factorization, unlike new columns.
        """
        self.sync()
        cols = np.asarray(cols, dtype=np.int64).ravel()
        if cols.size == 0:
            return
        lo = self.lp.col_lower[cols] if lower is None else np.broadcast_to(np.asarray(lower, float), cols.shape)
        hi = self.lp.col_upper[cols] if upper is None else np.broadcast_to(np.asarray(upper, float), cols.shape)
        self._check(
            self.highs.changeColsBounds(cols.size, cols.astype(np.int32), _inf(lo), _inf(hi)), "changeColsBounds"
        )

    # ---- solving ----------------------------------------------------------------------------------
    def solve(self, certify: bool = True) -> Solution:
        """Solve (warm when the model was solved before and only grew); return a certified-or-not Solution.

        ``certify=False`` skips lpparse's own check (for the intermediate solves of a loop that certifies its
        final answer itself, such as parse-price-cut). HiGHS 1.15's MIP presolve can report "Optimal" with
        NaN values on tiny programs; such a MIP is solved once more without presolve, so the caller sees
        either a certified answer or an honest status.
        """
        sol = self._run(certify)
        if certify and self.mip and sol.status is Status.OPTIMAL and not sol.certified:
            presolve = self.highs.getOptionValue("presolve")
            self.highs.setOptionValue("presolve", "off")
            try:
                sol = self._run(certify)
            finally:
                self.highs.setOptionValue("presolve", presolve)
        return sol

    def _run(self, certify: bool) -> Solution:
        self.sync()
        start = time.perf_counter()
        run_status = self.highs.run()
        elapsed = time.perf_counter() - start
        info = self.highs.getInfo()
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
            "solver_objective": float(info.objective_function_value),
            "info": details,
        }
        sol = self.highs.getSolution()
        if sol.value_valid:
            kw["x"] = np.array(sol.col_value, dtype=np.float64)
        if sol.dual_valid and not self.mip:
            kw["row_dual"], kw["col_dual"] = duals_from_highs(
                sol.row_dual, sol.col_dual, self.highs.getObjectiveSense()[1]
            )
        return Solution.checked(
            self.lp,
            status,
            self.mip,
            tol=self.tol,
            bound=float(info.mip_dual_bound),
            certify=certify,
            **kw,  # type: ignore[arg-type]
        )

    def basis(self) -> highspy.HighsBasis:
        """HiGHS's current basis (col_status, row_status)."""
        return self.highs.getBasis()

    def set_basis(self, basis: highspy.HighsBasis) -> None:
        """Install a basis (e.g. from another model of the same program) for a warm start."""
        self._check(self.highs.setBasis(basis), "setBasis")

    def write(self, path: str | Path) -> None:
        """Write the model (``.lp`` or ``.mps``) with symbolic names ``block[i,j]`` for inspection."""
        self.sync()
        for j, name in enumerate(self.lp.col_names()):
            self.highs.passColName(j, name)
        for i, name in enumerate(self.lp.row_names()):
            self.highs.passRowName(i, name)
        self._check(self.highs.writeModel(str(path)), "writeModel")


def solve_highs(
    lp: LinearProgram, mip: bool = False, time_limit: float | None = None, tol: float = TOL
) -> Solution:
    """Build a :class:`HighsModel` and solve it once."""
    return HighsModel(lp, mip=mip, time_limit=time_limit, tol=tol).solve()
