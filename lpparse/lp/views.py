"""The two views of a :class:`~lpparse.lp.program.LinearProgram` behind one protocol, :class:`LPModel`, and
one entry point, ``make_model(lp, view="highs"|"pyomo", ...)``."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol, runtime_checkable

from lpparse.lp.program import LinearProgram
from lpparse.lp.solution import TOL, Solution

__all__ = ["VIEWS", "LPModel", "make_model"]

VIEWS = ("highs", "pyomo")


@runtime_checkable
class LPModel(Protocol):
    """A live model of ``lp`` in one view (:class:`~lpparse.lp.highs_view.HighsModel`,
    :class:`~lpparse.lp.pyomo_view.PyomoModel`): it follows the rows and columns appended to ``lp``
    (:meth:`sync`, done by every :meth:`solve` and :meth:`write`), solves the LP relaxation or, with ``mip``,
    the ILP, and returns a :class:`~lpparse.lp.solution.Solution` certified by lpparse within ``tol``. The
    column-and-row generation engine drives any LPModel (:class:`lpparse.colgen.engine.Engine`); the simplex
    controls are no-ops where a view leaves them to its solver."""

    lp: LinearProgram
    mip: bool
    tol: float

    def sync(self) -> None: ...

    def solve(self, certify: bool = True) -> Solution: ...

    def write(self, path: str | Path) -> None: ...

    def set_deadline(self, deadline: float | None) -> None: ...

    def set_strategy(self, strategy: int) -> None: ...

    def set_perturbation(self, on: bool, iteration_limit: int | None = None) -> None: ...


def make_model(
    lp: LinearProgram,
    view: str = "highs",
    mip: bool = False,
    time_limit: float | None = None,
    tol: float = TOL,
    solver: str = "appsi_highs",
) -> LPModel:
    """A live model of ``lp`` in the chosen view (:class:`LPModel`). ``solver``: Pyomo view only."""
    if view == "highs":
        from lpparse.lp.highs_view import HighsModel  # HiGHS is imported when a program is solved

        return HighsModel(lp, mip=mip, time_limit=time_limit, tol=tol)
    if view == "pyomo":
        from lpparse.lp.pyomo_view import PyomoModel  # Pyomo is imported only when its view is used

        return PyomoModel(lp, mip=mip, solver=solver, time_limit=time_limit, tol=tol)
    raise ValueError(f"unknown view {view!r}; choose one of {VIEWS}")
