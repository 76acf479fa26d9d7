"""LP layer: named blocks (:class:`LinearProgram`) built row by row (:class:`Terms`), Pyomo and HiGHS views
(:class:`LPModel`), solutions with certificates."""

from lpparse.lp.highs_view import HighsModel, duals_from_highs, solve_highs
from lpparse.lp.program import INF, Block, IndexMap, LinearProgram, Terms
from lpparse.lp.solution import (
    TOL,
    Certificate,
    FractionalSolutionError,
    Solution,
    SolutionError,
    Status,
    UncertifiedSolutionError,
    certify_lp,
    certify_mip,
)
from lpparse.lp.views import VIEWS, LPModel, make_model

__all__ = [
    "INF",
    "TOL",
    "VIEWS",
    "Block",
    "Certificate",
    "FractionalSolutionError",
    "HighsModel",
    "IndexMap",
    "LPModel",
    "LinearProgram",
    "Solution",
    "SolutionError",
    "Status",
    "Terms",
    "UncertifiedSolutionError",
    "certify_lp",
    "certify_mip",
    "duals_from_highs",
    "make_model",
    "solve_highs",
]
