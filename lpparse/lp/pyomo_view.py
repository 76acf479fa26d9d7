"""Pyomo view of a :class:`~lpparse.lp.program.LinearProgram`: a ConcreteModel to read, extend and solve.

Each variable block becomes a ``Var`` and each constraint block a ``Constraint`` carrying the papers' names
(``z``, ``phi``, ``OneHead``, ``Source``, ``Consume``, ``NoFlow``, ...), indexed by the blocks' index tuples
(arcs (h, m); a 1-tuple index becomes a plain int). The objective ``obj`` maximizes; for an LP, suffixes
``dual`` and ``rc`` import duals and reduced costs (a MIP model has neither). Expressions are built once
per row from the CSR matrix as ``LinearExpression`` objects (linear in nnz, no operator overloading).

:class:`PyomoModel` keeps the model in step with a growing program (:meth:`PyomoModel.sync`) and solves it
through a Pyomo HiGHS interface (``appsi_highs`` by default; ``highs`` works too with pyomo 6.10 + highspy
1.15), returning the same :class:`~lpparse.lp.solution.Solution` as the HiGHS view.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np
import pyomo.environ as pyo
from pyomo.core.expr.numeric_expr import LinearExpression, MonomialTermExpression
from pyomo.opt import TerminationCondition as TC

from lpparse.lp.highs_view import MIP_GAPS, duals_from_highs
from lpparse.lp.program import LinearProgram
from lpparse.lp.solution import TOL, Solution, Status

__all__ = ["PYOMO_SOLVERS", "PyomoModel", "to_pyomo"]

PYOMO_SOLVERS = ("appsi_highs", "highs")

_STATUS = {
    TC.optimal: Status.OPTIMAL,
    TC.infeasible: Status.INFEASIBLE,
    TC.unbounded: Status.UNBOUNDED,
    TC.infeasibleOrUnbounded: Status.INFEASIBLE_OR_UNBOUNDED,
    TC.maxTimeLimit: Status.TIME_LIMIT,
    TC.maxIterations: Status.ITERATION_LIMIT,
}


def _key(idx: tuple[int, ...]) -> Any:
    return idx[0] if len(idx) == 1 else idx


def _bound(v: float) -> float | None:
    return float(v) if np.isfinite(v) else None


class PyomoModel:
    """A Pyomo ConcreteModel (``.model``) mirroring a LinearProgram (a :class:`lpparse.lp.views.LPModel`);
    ``mip`` keeps integer domains; every solve goes through ``SolverFactory(solver)`` within ``time_limit``.
    """

    def __init__(
        self,
        lp: LinearProgram,
        mip: bool = False,
        solver: str = "appsi_highs",
        time_limit: float | None = None,
        tol: float = TOL,
    ) -> None:
        self.lp = lp
        self.mip = mip
        self.solver = solver
        self.time_limit = time_limit
        self.tol = tol
        self.model = pyo.ConcreteModel(name=lp.name)
        if not mip:  # a MIP has no duals (and Pyomo's HiGHS interfaces fail when asked for them)
            self.model.dual = pyo.Suffix(direction=pyo.Suffix.IMPORT)
            self.model.rc = pyo.Suffix(direction=pyo.Suffix.IMPORT)
        self.vars: list[Any] = []  # VarData by global column
        self.cons: list[Any] = []  # ConstraintData by global row
        self._synced = (0, 0, 0)
        self._solver: Any = None
        self._solver_name = ""
        self._deadline: float | None = None
        self.sync()

    # ---- building ---------------------------------------------------------------------------------
    def _linear(self, cols: np.ndarray, coefs: np.ndarray) -> LinearExpression:
        vs = self.vars
        return LinearExpression(
            [MonomialTermExpression((float(a), vs[j])) for a, j in zip(coefs, cols.tolist())]
        )

    def _add_cols(self, c0: int, c1: int) -> None:
        lp, m = self.lp, self.model
        lo, hi = lp.col_lower, lp.col_upper
        new: dict[int, Any] = {}
        for name, block in lp.var_blocks.items():
            pos = block.positions
            sel = (pos >= c0) & (pos < c1)
            if not sel.any():
                continue
            keys = [_key(t) for t in map(tuple, block.index[sel].tolist())]
            domain = pyo.Integers if (self.mip and block.integer) else pyo.Reals
            if not hasattr(m, name):
                setattr(m, f"{name}_index", pyo.Set(initialize=[], dimen=block.arity, ordered=True))
                setattr(m, name, pyo.Var(getattr(m, f"{name}_index"), domain=domain, dense=False))
            index_set, var = getattr(m, f"{name}_index"), getattr(m, name)
            for k in keys:
                index_set.add(k)
            for k, j in zip(keys, pos[sel].tolist()):
                v = new[j] = var[k]
                v.setlb(_bound(lo[j]))
                v.setub(_bound(hi[j]))
        self.vars.extend(new[j] for j in range(c0, c1))

    def _row_expr(self, csr: Any, i: int) -> LinearExpression:
        a, b = csr.indptr[i], csr.indptr[i + 1]
        return self._linear(csr.indices[a:b], csr.data[a:b])

    def _add_rows(self, r0: int, r1: int) -> None:
        lp, m = self.lp, self.model
        csr = lp.A
        lo, hi = lp.row_lower, lp.row_upper
        new: dict[int, Any] = {}
        for name, block in lp.con_blocks.items():
            pos = block.positions
            sel = (pos >= r0) & (pos < r1)
            if not sel.any():
                continue
            if not hasattr(m, name):
                setattr(m, f"{name}_index", pyo.Set(initialize=[], dimen=block.arity, ordered=True))
                setattr(m, name, pyo.Constraint(getattr(m, f"{name}_index")))
            index_set, con = getattr(m, f"{name}_index"), getattr(m, name)
            for k, i in zip(map(tuple, block.index[sel].tolist()), pos[sel].tolist()):
                k = _key(k)
                index_set.add(k)
                con[k] = (_bound(lo[i]), self._row_expr(csr, i), _bound(hi[i]))
                new[i] = con[k]
        self.cons.extend(new[i] for i in range(r0, r1))

    def sync(self) -> None:
        """Add the program's columns, rows and coefficients appended since the last sync."""
        lp = self.lp
        c0, r0, nz0 = self._synced
        c1, r1 = lp.num_cols, lp.num_rows
        if c1 > c0:
            self._add_cols(c0, c1)
        touched = np.unique(lp.coefficients_since(nz0)[0])
        touched = touched[touched < r0]
        if touched.size:  # old rows with new coefficients (e.g. new columns): rebuild their bodies
            csr = lp.A
            for i in touched.tolist():
                self.cons[i].set_value(
                    (_bound(lp.row_lower[i]), self._row_expr(csr, i), _bound(lp.row_upper[i]))
                )
        if r1 > r0:
            self._add_rows(r0, r1)
        if c1 > c0 or not hasattr(self.model, "obj"):
            nz = np.flatnonzero(lp.cost)
            expr = self._linear(nz, lp.cost[nz])
            if hasattr(self.model, "obj"):
                self.model.obj.expr = expr
            else:
                self.model.obj = pyo.Objective(expr=expr, sense=pyo.maximize)
        self._synced = (c1, r1, lp.num_nz)

    # ---- solving ----------------------------------------------------------------------------------
    def set_deadline(self, deadline: float | None) -> None:
        """Stop the next solves at ``deadline`` (a ``time.perf_counter()`` value; None: ``time_limit`` per
        solve, as constructed): each solve gets what is left."""
        self._deadline = deadline

    def set_strategy(self, strategy: int) -> None:
        """No-op: the Pyomo view leaves the simplex strategy to the solver."""

    def set_perturbation(self, on: bool, iteration_limit: int | None = None) -> None:
        """No-op: the Pyomo view leaves perturbation and iteration limits to the solver."""

    def solve(self, certify: bool = True) -> Solution:
        """Solve through ``SolverFactory(solver)`` (kept between calls, so persistent solvers re-solve
        incrementally) and return a Solution certified by lpparse from the imported values and duals
        (``certify=False``: not checked, for a loop that certifies its final answer itself)."""
        self.sync()
        solver = self.solver
        time_limit, tol = self.time_limit, self.tol
        if self._deadline is not None:
            time_limit = max(self._deadline - time.perf_counter(), 1e-3)
        if self._solver is None or self._solver_name != solver:
            self._solver = pyo.SolverFactory(solver)
            self._solver_name = solver
        opts: dict[str, float] = dict(MIP_GAPS) if self.mip else {}
        if time_limit is not None:
            opts["time_limit"] = float(time_limit)
        m = self.model
        if not self.mip:
            m.dual.clear()
            m.rc.clear()
        start = time.perf_counter()
        try:
            results = self._solver.solve(m, load_solutions=False, options=opts)
            term = results.solver.termination_condition
        except (RuntimeError, ValueError) as exc:  # the Pyomo interfaces raise on some failures
            return Solution.checked(
                self.lp,
                Status.NUMERICAL_TROUBLE,
                self.mip,
                tol=tol,
                certify=certify,
                info={"error": str(exc)},
            )
        status = _STATUS.get(term, Status.NUMERICAL_TROUBLE)
        kw: dict[str, Any] = {"info": {"termination": str(term)}}
        if status is Status.OPTIMAL:
            m.solutions.load_from(results)
            kw["x"] = np.array([v.value if v.value is not None else 0.0 for v in self.vars], dtype=np.float64)
            if not self.mip:
                y = np.array([m.dual.get(c, 0.0) for c in self.cons], dtype=np.float64)
                get_rc = getattr(self._solver, "get_reduced_costs", None)  # appsi: not imported by load_from
                if get_rc is not None:
                    m.rc.update(get_rc())
                if len(m.rc) == len(self.vars):
                    d = np.array([m.rc[v] for v in self.vars], dtype=np.float64)
                else:  # interface without reduced costs: d = c - Aᵀy (the identity HiGHS's duals satisfy)
                    d = self.lp.cost - self.lp.A.T @ y
                kw["row_dual"], kw["col_dual"] = duals_from_highs(y, d)  # Pyomo passes HiGHS's duals through
        kw["time"] = time.perf_counter() - start
        bound = results.problem.upper_bound if self.mip else float("nan")
        return Solution.checked(self.lp, status, self.mip, tol=tol, bound=float(bound), certify=certify, **kw)

    def write(self, path: str | Path) -> None:
        """Write the model (``.lp``) with symbolic labels (the papers' names and indices)."""
        self.sync()
        self.model.write(str(path), io_options={"symbolic_solver_labels": True})


def to_pyomo(lp: LinearProgram, mip: bool = False) -> pyo.ConcreteModel:
    """Pyomo ConcreteModel of ``lp`` (see module docstring); ``mip=True`` keeps integer domains."""
    return PyomoModel(lp, mip=mip).model
