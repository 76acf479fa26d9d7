"""A relaxation's compact program solved as a MIP by generic solvers: HiGHS through highspy, and any solver
Pyomo can reach (Rush & Collins 2012, "A Tutorial on Dual Decomposition and Lagrangian Relaxation for
Inference in Natural Language Processing", JAIR 45, §8: debug a specialized algorithm against a generic LP or
ILP solver on the same problem).

The program is the relaxation's, every candidate part a column, with the integrality its blocks declare (arcs
and parts; flows continuous). Each run has a time limit and says how it ended: ``optimal`` (then its
objective is the best tree's score, if lpparse's formulations and exact decoding are right), ``time limit``
(with its incumbent and dual bound, which must still bracket the best tree), ``unavailable`` (Pyomo knows no
such solver here), ``error`` (the solver failed).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lpparse.families.grandparent.rows import GrandparentProgram
from lpparse.lp.solution import Solution, Status

__all__ = ["TIME_LIMIT_OPTIONS", "MipOptions", "MipRun", "heads_of", "highs_mip", "pyomo_mip"]

#: The time-limit option of solvers that Pyomo reaches, by name (others run without one, and say so)
TIME_LIMIT_OPTIONS = {
    "appsi_highs": "time_limit",
    "highs": "time_limit",
    "glpk": "tmlim",
    "cbc": "sec",
    "appsi_cbc": "seconds",
    "gurobi": "TimeLimit",
    "gurobi_direct": "TimeLimit",
    "gurobi_persistent": "TimeLimit",
    "appsi_gurobi": "TimeLimit",
    "cplex": "timelimit",
    "cplex_direct": "timelimit",
    "scip": "limits/time",
}


@dataclass(frozen=True)
class MipOptions:
    """How the compact programs are solved as MIPs: ``time_limit`` seconds per solve; ``highs``: by highspy;
    ``pyomo_solver``: the Pyomo solver's name (None: no Pyomo run); ``pyomo_every``: Pyomo on every
    relaxation's program (default: the first relaxation's only; a Pyomo model is built row by row in Python,
    slow on long sentences); ``root_cuts``: read HiGHS's root cut pool for a fractional point that lpparse's
    rows do not cut off, within ``root_time_limit`` seconds (None: ``time_limit``)."""

    time_limit: float = 60.0
    highs: bool = True
    pyomo_solver: str | None = "appsi_highs"
    pyomo_every: bool = False
    root_cuts: bool = True
    root_time_limit: float | None = None


@dataclass
class MipRun:
    """One MIP solve: ``solver``, ``status`` (module docstring), its ``objective`` when optimal, the tree
    ``heads`` of its incumbent, ``incumbent`` and ``dual_bound`` (also under a limit), ``seconds`` (model
    building included) and ``agrees``: whether it agrees with the best tree (None: not finished, or no proved
    tree to compare with); ``note``: why it did not finish or run."""

    solver: str
    status: str
    objective: float | None = None
    heads: list[int] | None = None
    seconds: float = 0.0
    agrees: bool | None = None
    incumbent: float | None = None
    dual_bound: float | None = None
    note: str = ""
    x: NDArray[np.float64] | None = field(default=None, repr=False)

    def as_json(self) -> dict[str, Any]:
        """The JSON record (module :mod:`lpparse.inspect.report`)."""
        keys = (
            "solver",
            "status",
            "objective",
            "heads",
            "seconds",
            "agrees",
            "incumbent",
            "dual_bound",
            "note",
        )
        return {k: getattr(self, k) for k in keys}


def heads_of(prog: GrandparentProgram, x: NDArray[np.float64]) -> list[int]:
    """The tree of an integral point: each token's head by its largest arc value."""
    z = prog.arc_values(x)
    return [-1, *z[:, 1:].argmax(axis=0).tolist()]


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def _run(solver: str, prog: GrandparentProgram, sol: Solution, seconds: float) -> MipRun:
    """A :class:`MipRun` from a MIP solution of ``prog``."""
    has_x = sol.x is not None and bool(np.isfinite(sol.x).all())
    optimal = sol.status is Status.OPTIMAL and has_x
    status = "optimal" if optimal else sol.status.value
    if sol.status is Status.OPTIMAL and not sol.certified:
        status = "optimal (not certified: " + (str(sol.certificate) if sol.certificate else "no values") + ")"
    incumbent = sol.objective if has_x else None
    bound = sol.certificate.dual_objective if sol.certificate is not None else sol.info.get("bound", np.nan)
    return MipRun(
        solver,
        status,
        incumbent if optimal else None,
        heads_of(prog, sol.x) if has_x else None,  # type: ignore[arg-type]
        seconds,
        incumbent=incumbent,
        dual_bound=_finite(float(bound)),  # type: ignore[arg-type]
        note=str(sol.info.get("error", "")),
        x=sol.x if has_x else None,
    )


def highs_mip(prog: GrandparentProgram, time_limit: float) -> MipRun:
    """The program as a MIP by HiGHS through highspy (presolve on; lpparse's MIP certificate: a feasible
    integral point and HiGHS's gap)."""
    from lpparse.lp.highs_view import HighsModel

    start = time.perf_counter()
    model = HighsModel(prog.lp, mip=True, time_limit=time_limit)
    sol = model.solve()
    sol.info["bound"] = float(model.highs.getInfo().mip_dual_bound)
    return _run("highspy", prog, sol, time.perf_counter() - start)


def pyomo_mip(prog: GrandparentProgram, solver: str, time_limit: float) -> MipRun:
    """The program as a MIP through Pyomo's ``SolverFactory(solver)``: lpparse's Pyomo view
    (:class:`lpparse.lp.pyomo_view.PyomoModel`) for its HiGHS interfaces, else the view's model solved with
    the solver's own time-limit option (:data:`TIME_LIMIT_OPTIONS`); status ``unavailable`` when Pyomo
    cannot run the solver here."""
    import pyomo.environ as pyo

    from lpparse.lp.pyomo_view import PYOMO_SOLVERS, PyomoModel

    start = time.perf_counter()
    try:
        factory = pyo.SolverFactory(solver)
        available = factory is not None and bool(factory.available(exception_flag=False))
    except Exception as err:  # noqa: BLE001 (Pyomo raises assorted errors for a name it does not know)
        return MipRun(solver, "unavailable", seconds=time.perf_counter() - start, note=str(err))
    if not available:
        return MipRun(
            solver,
            "unavailable",
            seconds=time.perf_counter() - start,
            note=f"Pyomo cannot run {solver!r} here",
        )
    view = PyomoModel(prog.lp, mip=True, solver=solver, time_limit=time_limit)
    if solver in PYOMO_SOLVERS:
        sol = view.solve()
    else:
        sol = _solve_other(view, factory, solver, time_limit)
    return _run(solver, prog, sol, time.perf_counter() - start)


def _solve_other(view: Any, factory: Any, solver: str, time_limit: float) -> Solution:
    """Solve the Pyomo view's MIP model with a solver other than HiGHS (its own options)."""
    from pyomo.opt import TerminationCondition as TC

    from lpparse.lp.pyomo_view import _STATUS

    option = TIME_LIMIT_OPTIONS.get(solver)
    options = {option: time_limit} if option else {}
    info: dict[str, object] = {} if option else {"error": f"no time limit known for {solver!r}"}
    try:
        results = factory.solve(view.model, load_solutions=False, options=options)
    except Exception as err:  # noqa: BLE001 (a failure of a solver lpparse does not know is reported)
        return Solution.checked(view.lp, Status.NUMERICAL_TROUBLE, True, info={"error": str(err)})
    term = results.solver.termination_condition
    status = _STATUS.get(term, Status.NUMERICAL_TROUBLE)
    x = None
    if status is Status.OPTIMAL or (term == TC.maxTimeLimit and len(results.solution)):
        view.model.solutions.load_from(results)
        x = np.array([v.value if v.value is not None else np.nan for v in view.vars])
    bound = results.problem.upper_bound
    info["bound"] = float(bound) if bound is not None else np.nan
    return Solution.checked(view.lp, status, True, bound=info["bound"], x=x, info=info)  # type: ignore[arg-type]
