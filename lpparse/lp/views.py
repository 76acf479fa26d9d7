"""One entry point for both views: ``make_model(lp, view="highs"|"pyomo", ...)`` with ``.solve()``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lpparse.lp.highs_view import HighsModel
from lpparse.lp.program import LinearProgram
from lpparse.lp.solution import TOL

if TYPE_CHECKING:
    from lpparse.lp.pyomo_view import PyomoModel

__all__ = ["VIEWS", "make_model"]

VIEWS = ("highs", "pyomo")


def make_model(
    lp: LinearProgram,
    view: str = "highs",
    mip: bool = False,
    time_limit: float | None = None,
    tol: float = TOL,
    solver: str = "appsi_highs",
) -> HighsModel | PyomoModel:
    """A live model of ``lp`` in the chosen view; both have ``solve() -> Solution`` and ``write(path)``
    and follow rows/columns appended to ``lp`` (synced at the next solve). ``solver``: Pyomo view only."""
    if view == "highs":
        return HighsModel(lp, mip=mip, time_limit=time_limit, tol=tol)
    if view == "pyomo":
        from lpparse.lp.pyomo_view import PyomoModel  # Pyomo is imported only when its view is used

        return PyomoModel(lp, mip=mip, solver=solver, time_limit=time_limit, tol=tol)
    raise ValueError(f"unknown view {view!r}; choose one of {VIEWS}")
