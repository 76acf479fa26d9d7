"""Dual decomposition and Lagrangian relaxation by the subgradient method, over any number of oracles.

The problem (Rush & Collins 2012 §3.2, DD reading note, A2; one oracle is Lagrangian relaxation, Rush &
Collins 2012 §3.1):

    max Σ_k θ_k · y_k    over y_k ∈ Y_k (each solved exactly by an oracle)    s.t.  Σ_k A_k y_k = b.

Sign convention (Rush & Collins 2012; DD reading note §0.1): L(u) = Σ_k max_{y_k} (θ_k + A_kᵀ u) · y_k − u ·
b, the subgradient at u is g = Σ_k A_k y_k(u) − b and the update is u ← u − δ g. So if a component over-uses a
part that another under-uses, the next round makes it less attractive to the first and more to the second.
Every L(u) is an upper bound (weak duality, Rush & Collins 2012 Thm 1a); exact agreement (g = 0) certifies
optimality (Rush & Collins 2012 Thm 1c; Rush et al. 2010 §6.2 case 1); min_u L(u) is the value of the compact
LP (:mod:`lpparse.dd.compact`; Rush et al. 2010 §6.1).

Step sizes (DD reading note, A9): ``r10`` α₀ 2^{−η} with η the number of dual increases (Rush et al. 2010 App.
B), ``tut`` c/(t+1) (Rush & Collins 2012 §7.2), ``harmonic`` c/k, ``sqrt`` c/√k, ``constant`` c. The first two
stall when the dual never increases (erratum E10 of the DD reading note), so by default ``patience``
iterations without a new best dual also count as an increase. Primal recovery: best primal (Rush & Collins
2012 §7.3) and last iterate (Rush et al. 2010 §6.2, erratum E6 of the DD reading note) through a problem's
``primal`` callback, plus averaged part vectors (Nedić & Ozdaglar 2009). Tightening (Rush & Collins 2012
§9.4): when the best dual has not improved by ``stall_tol`` in ``stall_window`` iterations, the rows of a
candidate pool violated most often over that window join the agreement constraints.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from lpparse.lp import LinearProgram

__all__ = [
    "STEP_RULES",
    "Agreement",
    "Component",
    "DDResult",
    "Problem",
    "StepRule",
    "dual_decomposition",
    "dual_value",
]

STEP_RULES = ("r10", "tut", "harmonic", "sqrt", "constant")


class Component(Protocol):
    """An exactly solvable piece: max over its structures of θ·y + δ·y, plus its polytope conv(Y)."""

    name: str
    num_parts: int

    def argmax(self, delta: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        """(max_y (θ + δ)·y, the maximizing 0/1 part vector y)."""

    def polytope(self, lp: LinearProgram, prefix: str) -> sp.csr_matrix:
        """Add conv(Y) with objective θ to ``lp``; return M (num_parts, lp.num_cols) with parts = M x."""


@dataclass
class Agreement:
    """Rows Σ_k A_k y_k = b; ``label`` (p, d) names each row (e.g. (i, t) or (h, m))."""

    A: list[sp.csr_matrix]
    b: NDArray[np.float64]
    label: NDArray[np.int64]

    @property
    def num_rows(self) -> int:
        return int(self.b.shape[0])

    def residual(self, ys: Sequence[NDArray[np.float64]]) -> NDArray[np.float64]:
        return sum(a @ y for a, y in zip(self.A, ys)) - self.b

    def take(self, rows: NDArray[np.int64]) -> Agreement:
        return Agreement([a[rows] for a in self.A], self.b[rows], self.label[rows])

    def join(self, other: Agreement) -> Agreement:
        return Agreement(
            [sp.vstack([a, o]).tocsr() for a, o in zip(self.A, other.A)],
            np.concatenate([self.b, other.b]),
            np.concatenate([self.label, other.label]),
        )

    @staticmethod
    def equal(
        sizes: Sequence[int],
        first: int,
        second: int,
        parts1: NDArray[np.int64],
        parts2: NDArray[np.int64],
        label: NDArray,
    ) -> Agreement:
        """Rows y_first[parts1[r]] − y_second[parts2[r]] = 0 for r = 0..len-1."""
        p = parts1.shape[0]
        rows = np.arange(p)
        mats = [sp.csr_matrix((p, s)) for s in sizes]
        mats[first] = sp.csr_matrix((np.ones(p), (rows, parts1)), shape=(p, sizes[first]))
        mats[second] = sp.csr_matrix((-np.ones(p), (rows, parts2)), shape=(p, sizes[second]))
        lab = np.asarray(label, dtype=np.int64)
        return Agreement(mats, np.zeros(p), lab[:, None] if lab.ndim == 1 else lab)


@dataclass
class Problem:
    """Components, agreement rows, an optional primal heuristic and an optional pool for tightening.

    ``primal(ys)`` returns (objective, solution) of a feasible solution built from the oracles' outputs
    (e.g. the parse and its own tags, Rush & Collins 2012 §7: f(y) + g(l(y))), or None. ``refine(rows)`` is
    called with the pool rows about to join the agreement, before they do: the place to add the columns they
    need (e.g. refine the CKY hypergraph at their boundaries, DD reading note, P12); it may change the
    components.
    """

    components: list[Component]
    agreement: Agreement
    primal: Callable[[list[NDArray[np.float64]]], tuple[float, object] | None] | None = None
    pool: Agreement | None = None
    name: str = "dd"
    refine: Callable[[Agreement], None] | None = None

    @property
    def sizes(self) -> list[int]:
        return [c.num_parts for c in self.components]


def dual_value(
    problem: Problem, u: NDArray[np.float64], agreement: Agreement | None = None
) -> tuple[float, list]:
    """L(u) and the oracles' part vectors at u."""
    ag = agreement if agreement is not None else problem.agreement
    total = -float(u @ ag.b)
    ys = []
    for comp, a in zip(problem.components, ag.A):
        value, y = comp.argmax(a.T @ u)
        total += value
        ys.append(y)
    return total, ys


@dataclass
class StepRule:
    """Step size δ_k (see the module docstring); ``patience`` is the fallback of the DD reading note erratum
    E10 (None disables it)."""

    rule: str = "r10"
    scale: float = 0.5
    patience: int | None = 10
    increases: int = field(default=0, init=False)
    _last: float = field(default=np.inf, init=False)
    _best: float = field(default=np.inf, init=False)
    _since_best: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        if self.rule not in STEP_RULES:
            raise ValueError(f"unknown step rule {self.rule!r}; choose from {STEP_RULES}")

    def reset(self) -> None:
        self.increases, self._last, self._best, self._since_best = 0, np.inf, np.inf, 0

    def __call__(self, k: int, dual: float) -> float:
        """Step after observing L(u(k−1)) = ``dual`` at iteration k ≥ 1."""
        if dual > self._last:
            self.increases += 1
        if dual < self._best - 1e-12:
            self._best, self._since_best = dual, 0
        else:
            self._since_best += 1
            if self.patience is not None and self._since_best >= self.patience and dual <= self._last:
                self.increases += 1  # E10: no progress counts as an increase
                self._since_best = 0
        self._last = dual
        if self.rule == "r10":
            return self.scale * 2.0 ** (-self.increases)
        if self.rule == "tut":
            return self.scale / (self.increases + 1)
        if self.rule == "harmonic":
            return self.scale / k
        if self.rule == "sqrt":
            return self.scale / np.sqrt(k)
        return self.scale


@dataclass
class DDResult:
    """Outcome and traces of a run (index k-1 holds iteration k)."""

    certified: bool
    iterations: int
    u: NDArray[np.float64]
    parts: list[NDArray[np.float64]]  #: last iterate of every oracle
    averaged: list[NDArray[np.float64]]  #: averaged part vectors
    dual: NDArray[np.float64]  #: L(u(k-1)) per iteration
    primal: NDArray[np.float64]  #: primal heuristic value per iteration (nan if none)
    step: NDArray[np.float64]
    violations: NDArray[np.int64]  #: number of violated agreement rows per iteration
    best_primal: float
    best_solution: object
    last_solution: object
    agreement: Agreement  #: the final (possibly tightened) agreement rows
    tightened_at: list[int]
    seconds: float

    @property
    def best_dual(self) -> float:
        return float(self.dual.min())

    @property
    def gap(self) -> float:
        """min_k L(u(k)) − best primal: bounds the best primal's suboptimality (Rush & Collins 2012 §7.1)."""
        return self.best_dual - self.best_primal


@dataclass
class _Primals:
    """The primal heuristic's best value and solution so far, and its last solution."""

    value: float = -np.inf
    solution: object = None
    last: object = None

    def observe(self, found: tuple[float, object] | None) -> float:
        """Record the heuristic's (value, solution) of an iterate (None: none found); its value (nan: none)."""
        if found is None:
            return np.nan
        self.last = found[1]
        if found[0] > self.value:
            self.value, self.solution = found
        return found[0]


@dataclass
class _Pool:
    """Agreement rows that tightening may add (``rows``), and which of them the last ``window`` iterates
    violated: once the best dual has gained less than ``tol`` in ``window`` iterations, the ``per_round``
    rows violated most often join the problem."""

    rows: Agreement
    window: int
    tol: float
    per_round: int
    hits: NDArray[np.bool_] = field(init=False)

    def __post_init__(self) -> None:
        self.hits = np.zeros((0, self.rows.num_rows), dtype=bool)

    def take(self, ys: list[NDArray[np.float64]], duals: list[float], since: int) -> Agreement | None:
        """Record the rows the iterate ``ys`` violates; the rows to add, taken out of the pool, when the dual
        has stalled ``since`` the last tightening (None: none)."""
        self.hits = np.vstack([self.hits[-self.window + 1 :], np.abs(self.rows.residual(ys)) > 1e-9])
        best = np.minimum.accumulate(duals)
        if not (since >= self.window and best[-self.window] - best[-1] < self.tol):
            return None
        counts = self.hits.sum(axis=0)
        chosen = np.argsort(-counts, kind="stable")[: self.per_round]
        chosen = chosen[counts[chosen] > 0]
        if not chosen.size:
            return None
        keep = np.setdiff1d(np.arange(self.rows.num_rows), chosen)
        added = self.rows.take(chosen)
        self.rows, self.hits = self.rows.take(keep), self.hits[:, keep]
        return added


def _tightened(
    problem: Problem, ag: Agreement, u: NDArray[np.float64], added: Agreement
) -> tuple[Agreement, NDArray[np.float64]]:
    """The agreement rows with ``added`` joined (after ``problem.refine``) and the multipliers, 0 on them."""
    if problem.refine is not None:
        problem.refine(added)
    return ag.join(added), np.concatenate([u, np.zeros(added.num_rows)])


def dual_decomposition(
    problem: Problem,
    max_iter: int = 50,
    step: StepRule | None = None,
    gap_tol: float | None = None,
    stall_window: int = 20,
    stall_tol: float = 1e-3,
    tighten_rows: int = 1,
) -> DDResult:
    """Subgradient method on L(u) (module docstring); stops at agreement (certificate), at ``max_iter``, or
    when the best dual minus the best primal is within ``gap_tol`` (early stopping, no certificate).
    Tightening needs ``problem.pool``."""
    step = step or StepRule()
    step.reset()
    ag, u = problem.agreement, np.zeros(problem.agreement.num_rows)
    duals, primals, steps, viol = [], [], [], []
    sums = [np.zeros(s) for s in problem.sizes]
    best = _Primals()
    tightened: list[int] = []
    pool = _Pool(problem.pool, stall_window, stall_tol, tighten_rows) if problem.pool is not None else None
    start, certified, k = time.perf_counter(), False, 0
    for k in range(1, max_iter + 1):
        dual, ys = dual_value(problem, u, ag)
        sums = [acc + y for acc, y in zip(sums, ys)]
        g = ag.residual(ys)
        duals.append(dual)
        viol.append(int(np.sum(np.abs(g) > 1e-9)))
        primals.append(best.observe(problem.primal(ys) if problem.primal else None))
        certified = viol[-1] == 0
        if certified or (gap_tol is not None and min(duals) - best.value <= gap_tol):
            steps.append(0.0)
            break
        since = k - (tightened[-1] if tightened else 0)  # iterations since the last tightening
        added = pool.take(ys, duals, since) if pool is not None else None
        if added is not None:
            ag, u = _tightened(problem, ag, u, added)
            tightened.append(k)
            step.reset()
            steps.append(0.0)
            continue
        delta = step(since, dual)
        steps.append(delta)
        u = u - delta * g
    return DDResult(
        certified=certified,
        iterations=k,
        u=u,
        parts=ys,
        averaged=[acc / k for acc in sums],
        dual=np.array(duals),
        primal=np.array(primals),
        step=np.array(steps),
        violations=np.array(viol),
        best_primal=best.value,
        best_solution=best.solution,
        last_solution=best.last,
        agreement=ag,
        tightened_at=tightened,
        seconds=time.perf_counter() - start,
    )
