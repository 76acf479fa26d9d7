"""LP layer: named blocks (:class:`LinearProgram`) built row by row (:class:`Terms`), Pyomo and HiGHS views
(:class:`LPModel`), solutions with certificates."""

from lpparse._lazy import lazy_exports

#: submodule -> the names it gives this package (imported on first use: :mod:`lpparse._lazy`)
__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "highs_view": ("HighsModel", "duals_from_highs", "solve_highs"),
        "program": ("INF", "Block", "IndexMap", "LinearProgram", "Terms"),
        "solution": (
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
        ),
        "views": ("VIEWS", "LPModel", "make_model"),
    },
)
