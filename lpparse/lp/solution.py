"""Solutions of a :class:`~lpparse.lp.program.LinearProgram` and lpparse's own optimality certificate.

Dual convention (lpparse's, for *maximize* c·x s.t. L <= Ax <= U, l <= x <= u): the row dual y_i is the
shadow price dObjective/d(active side of row i) and the reduced cost is d = c - Aᵀy. Optimality then reads

* y_i >= 0 only if U_i is finite (the ``<=`` side binds), y_i <= 0 only if L_i is finite (``>=`` side);
* d_j >= 0 only if u_j is finite, d_j <= 0 only if l_j is finite;
* zero duality gap: c·x = Σ_i (U_i y_i⁺ - L_i y_i⁻) + Σ_j (u_j d_j⁺ - l_j d_j⁻).

The certificate recomputes A x, d and both objectives from the program's arrays with numpy and never uses a
residual or status that the solver reports. Tolerance: ``tol`` (default 1e-6) scaled as
primal: tol·(1 + |bound|) per bound; dual: tol·(1 + max|c|); gap: tol·(1 + |c·x|).

A MIP solution carries no duals: its certificate is primal feasibility + integrality (checked here) + the
solver's reported bound gap (the only part taken from the solver), marked ``kind="mip"``.
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from lpparse.lp.program import LinearProgram

__all__ = [
    "TOL",
    "Certificate",
    "FractionalSolutionError",
    "Solution",
    "SolutionError",
    "Status",
    "UncertifiedSolutionError",
    "certify_lp",
    "certify_mip",
    "dual_bound",
    "farkas_margin",
    "is_integral",
]

TOL = 1e-6


class Status(enum.Enum):
    """Outcome of a solve; only OPTIMAL solutions are candidates for a certificate."""

    OPTIMAL = "optimal"
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    INFEASIBLE_OR_UNBOUNDED = "infeasible or unbounded"
    TIME_LIMIT = "time limit"
    ITERATION_LIMIT = "iteration limit"
    NUMERICAL_TROUBLE = "numerical trouble"
    NOT_SOLVED = "not solved"
    #: a column-generation run stopped once its bound fell to a given cutoff (``ColgenOptions.cutoff``): its
    #: duals prove that no solution scores above it, but the LP's optimum is not known
    CUTOFF = "cutoff"


class SolutionError(RuntimeError):
    """A solution was used for something it does not support."""


class UncertifiedSolutionError(SolutionError):
    """The solution is not certified optimal (status, or lpparse's own check failed)."""


class FractionalSolutionError(SolutionError):
    """The certified solution is fractional, so it is not a tree."""


@dataclass(frozen=True)
class Certificate:
    """lpparse's check of a solution; ``ok`` iff every measure is within ``tol`` (see module docstring)."""

    #: "lp", "mip", "ppc" (column generation: :func:`lpparse.colgen.certificate.ppc_certificate`) or "ppc-bound"
    #: (a run stopped at its cutoff: its dual objective bounds the full LP, its primal is not checked against
    #: the rows it did not separate)
    kind: str
    primal_infeasibility: float
    dual_infeasibility: float
    primal_objective: float
    dual_objective: float  # for "mip": the solver's bound
    gap: float  # relative: |dual - primal| / (1 + |primal|)
    tol: float

    @property
    def ok(self) -> bool:
        return (
            self.primal_infeasibility <= self.tol
            and self.dual_infeasibility <= self.tol
            and self.gap <= self.tol
        )

    def __str__(self) -> str:
        verdict = "certified" if self.ok else "NOT certified"
        return (
            f"{verdict} ({self.kind}, tol {self.tol:g}): primal infeas {self.primal_infeasibility:.2e}, "
            f"dual infeas {self.dual_infeasibility:.2e}, gap {self.gap:.2e}"
        )


def _primal_infeasibility(lp: LinearProgram, x: NDArray[np.float64]) -> float:
    ax = lp.dot(x)
    viol = [0.0]
    for val, lo, hi in ((x, lp.col_lower, lp.col_upper), (ax, lp.row_lower, lp.row_upper)):
        with np.errstate(invalid="ignore"):
            below = np.where(np.isfinite(lo), (lo - val) / (1.0 + np.abs(lo)), 0.0)
            above = np.where(np.isfinite(hi), (val - hi) / (1.0 + np.abs(hi)), 0.0)
        viol += [float(below.max(initial=0.0)), float(above.max(initial=0.0))]
    return max(viol)


def _bound_value(
    lo: NDArray[np.float64], hi: NDArray[np.float64], dual: NDArray[np.float64]
) -> tuple[float, float]:
    """(Σ hi·dual⁺ - lo·dual⁻ over finite sides, largest dual mass sitting on an infinite side)."""
    pos, neg = np.maximum(dual, 0.0), np.maximum(-dual, 0.0)
    fin_hi, fin_lo = np.isfinite(hi), np.isfinite(lo)
    value = float(np.dot(np.where(fin_hi, hi, 0.0), np.where(fin_hi, pos, 0.0)))
    value -= float(np.dot(np.where(fin_lo, lo, 0.0), np.where(fin_lo, neg, 0.0)))
    wrong = max(
        float(np.where(fin_hi, 0.0, pos).max(initial=0.0)), float(np.where(fin_lo, 0.0, neg).max(initial=0.0))
    )
    return value, wrong


def farkas_margin(lp: LinearProgram, ray: NDArray[np.float64], tol: float = 1e-9) -> float:
    """How far ``ray`` (one value per row) proves ``lp`` infeasible (Farkas' lemma; > 0: it does).

    For y = ±ray and a feasible x, yᵀ(Ax) <= Σ_i max(y_i L_i, y_i U_i) and -(Aᵀy)ᵀx <= Σ_j (its max over
    x_j's bounds), so the two sums (:func:`certify_lp`'s dual objective of the program with zero cost) add
    up to >= 0; a sign of y whose sums are finite and add up to < 0 proves that no x exists. The margin is
    minus that sum over s = 1 + max |y| (-inf when neither sign qualifies); mass up to ``tol``·s on an
    infinite side (round-off in Aᵀy) is taken as 0, as every certificate here holds within a tolerance."""
    best = -np.inf
    for y in (ray, -ray):
        scale = 1.0 + float(np.abs(y).max(initial=0.0))
        rows_value, rows_wrong = _bound_value(lp.row_lower, lp.row_upper, y)
        cols_value, cols_wrong = _bound_value(lp.col_lower, lp.col_upper, -lp.tdot(y))
        if max(rows_wrong, cols_wrong) <= tol * scale:
            best = max(best, -(rows_value + cols_value) / scale)
    return best


def certify_lp(
    lp: LinearProgram,
    x: NDArray[np.float64],
    row_dual: NDArray[np.float64],
    tol: float = TOL,
    outside: NDArray[np.float64] | None = None,
) -> Certificate:
    """Check primal feasibility, dual feasibility and zero gap of (x, row_dual) for the LP relaxation.

    Reduced costs are recomputed as d = c - Aᵀy; a dual on a side that is infinite is dual infeasibility.
    ``outside``: Aᵀy of rows that are not in ``lp`` but carry duals, each with right-hand side 0 (so it adds
    nothing to the dual objective) and satisfied by x with equality (the caller's claim); it enters d.
    """
    primal = float(lp.cost @ x)
    dual, dual_infeasibility = dual_bound(lp, row_dual, outside)
    return Certificate(
        kind="lp",
        primal_infeasibility=_primal_infeasibility(lp, x),
        dual_infeasibility=dual_infeasibility,
        primal_objective=primal,
        dual_objective=dual,
        gap=abs(dual - primal) / (1.0 + abs(primal)),
        tol=tol,
    )


def dual_bound(
    lp: LinearProgram, row_dual: NDArray[np.float64], outside: NDArray[np.float64] | None = None
) -> tuple[float, float]:
    """The dual objective of ``row_dual`` (with the reduced costs d = c - Aᵀy - ``outside`` on the column
    bounds: :func:`certify_lp`) and its dual infeasibility, relative to 1 + max |c|: a dual feasible y bounds
    the LP's value by the former."""
    c = lp.cost
    d = c - lp.tdot(row_dual)
    if outside is not None:
        d = d - outside
    rows_value, rows_wrong = _bound_value(lp.row_lower, lp.row_upper, row_dual)
    cols_value, cols_wrong = _bound_value(lp.col_lower, lp.col_upper, d)
    return rows_value + cols_value, max(rows_wrong, cols_wrong) / (1.0 + float(np.abs(c).max(initial=0.0)))


def is_integral(lp: LinearProgram, x: NDArray[np.float64], tol: float = TOL) -> bool:
    """True iff every column of an integer block is within ``tol`` of an integer."""
    xi = x[lp.integrality[: x.shape[0]]]
    return bool(np.all(np.abs(xi - np.round(xi)) <= tol))


def certify_mip(lp: LinearProgram, x: NDArray[np.float64], bound: float, tol: float = TOL) -> Certificate:
    """Check primal feasibility and integrality of x; the gap uses the solver's dual ``bound``."""
    primal = float(lp.cost @ x)
    return Certificate(
        kind="mip",
        primal_infeasibility=max(_primal_infeasibility(lp, x), 0.0 if is_integral(lp, x, tol) else np.inf),
        dual_infeasibility=0.0,
        primal_objective=primal,
        dual_objective=float(bound),
        gap=abs(float(bound) - primal) / (1.0 + abs(primal)),
        tol=tol,
    )


@dataclass
class Solution:
    """A solve's result: status, values and, when OPTIMAL, lpparse's certificate.

    ``x`` primal column values, ``row_dual`` y and ``col_dual`` reduced costs in lpparse's convention (see
    module docstring; None for a MIP). ``num_cols``/``num_rows`` are the program's sizes at solve time.
    """

    lp: LinearProgram
    status: Status
    mip: bool
    x: NDArray[np.float64] | None = None
    row_dual: NDArray[np.float64] | None = None
    col_dual: NDArray[np.float64] | None = None
    solver_objective: float = float("nan")
    iterations: int = 0
    time: float = 0.0
    certificate: Certificate | None = None
    num_cols: int = 0
    num_rows: int = 0
    info: dict[str, object] = field(default_factory=dict)

    @classmethod
    def checked(
        cls,
        lp: LinearProgram,
        status: Status,
        mip: bool,
        tol: float = TOL,
        bound: float = float("nan"),
        certify: bool = True,
        **kw: object,
    ) -> Solution:
        """Make a Solution and, unless ``certify`` is False, certify it when the status is OPTIMAL
        (``bound``: MIP dual bound). An uncertified Solution is never :attr:`certified`."""
        sol = cls(lp, status, mip, num_cols=lp.num_cols, num_rows=lp.num_rows, **kw)  # type: ignore[arg-type]
        if certify and status is Status.OPTIMAL and sol.x is not None:
            if mip:
                sol.certificate = certify_mip(lp, sol.x, bound, tol)
            elif sol.row_dual is not None:
                sol.certificate = certify_lp(lp, sol.x, sol.row_dual, tol)
        return sol

    @property
    def certified(self) -> bool:
        """OPTIMAL and lpparse's own certificate holds."""
        return self.status is Status.OPTIMAL and self.certificate is not None and self.certificate.ok

    @property
    def objective(self) -> float:
        """c·x recomputed from the program (NaN without a primal), correctly rounded (``math.fsum``): the
        same value whatever the BLAS threading, so runs on different workers record identical objectives. Over
        the nonzero entries of x only (exact zeros change no correctly rounded sum; most of x is 0)."""
        if self.x is None:
            return float("nan")
        on = np.flatnonzero(self.x)
        return math.fsum(self.lp.cost[on] * self.x[on])

    @property
    def integral(self) -> bool:
        """Every integer-block column within the certificate tolerance of an integer."""
        if self.x is None:
            return False
        tol = self.certificate.tol if self.certificate else TOL
        return is_integral(self.lp, self.x, tol)

    def values(self, block: str) -> NDArray[np.float64]:
        """Primal values of a variable block, aligned with ``lp.var_blocks[block].index``."""
        if self.x is None:
            raise UncertifiedSolutionError(f"no primal values (status {self.status.value})")
        return self.x[self.lp.cols(block)]

    def require_certified(self) -> None:
        """Raise :class:`UncertifiedSolutionError` unless :attr:`certified`."""
        if not self.certified:
            if self.status is not Status.OPTIMAL:
                why = f"status {self.status.value}"
            elif self.certificate is None:
                why = "it was solved without lpparse's certificate check (solve(certify=False))"
            else:
                why = str(self.certificate)
            raise UncertifiedSolutionError(f"solution is not certified optimal: {why}")

    def __str__(self) -> str:
        kind = "MIP" if self.mip else "LP"
        if self.status is not Status.OPTIMAL:
            return f"{kind} {self.status.value}"
        frac = "integral" if self.integral else "fractional"
        return f"{kind} value {self.objective:.6g}, {frac}, {self.certificate}"
