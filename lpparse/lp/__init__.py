"""LP layer: named blocks (:class:`LinearProgram`) built row by row (:class:`Terms`), Pyomo and HiGHS views
(:class:`LPModel`), solutions with certificates. The HiGHS view itself is :mod:`lpparse.lp.highs_view`
(not imported here, so that a program can be built and checked without highspy)."""

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
    dual_bound,
)
from lpparse.lp.views import VIEWS, LPModel, make_model

__all__ = [
    "INF",
    "TOL",
    "VIEWS",
    "Block",
    "Certificate",
    "FractionalSolutionError",
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
    "dual_bound",
    "make_model",
]
