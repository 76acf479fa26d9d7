"""LP layer: named blocks (:class:`LinearProgram`), Pyomo and HiGHS views, solutions with certificates."""

from lpparse.lp.highs_view import HighsModel, duals_from_highs, solve_highs
from lpparse.lp.program import INF, Block, LinearProgram
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

__all__ = [
    "INF",
    "TOL",
    "Block",
    "Certificate",
    "FractionalSolutionError",
    "HighsModel",
    "LinearProgram",
    "Solution",
    "SolutionError",
    "Status",
    "UncertifiedSolutionError",
    "certify_lp",
    "certify_mip",
    "duals_from_highs",
    "solve_highs",
]
