"""Parse, Price and Cut (Riedel, Smith & McCallum 2012 §4): the LP front end. :func:`solve_lp` solves the LP
over the arcs and any list of part families (:mod:`lpparse.families`) by delayed column and row generation
on the engine of :mod:`lpparse.colgen`, by brute force, or by whichever the sentence suits (``auto``), and
certifies the result on the full LP. Exact decoding with a proof builds on it: :mod:`lpparse.exact`."""

from lpparse.colgen.certificate import ppc_certificate
from lpparse.ppc.certificate import certify_full, extend_solution
from lpparse.ppc.loop import (
    BF_BELOW_PARTS,
    METHODS,
    FamilyCounts,
    PPCResult,
    PPCStats,
    bf_below,
    candidate_parts,
    choose_method,
    parse_price_cut,
    project_to_tree,
    second_order_parts,
    solve_bf,
    solve_lp,
    solve_second_order,
    tree_objective,
)

__all__ = [
    "BF_BELOW_PARTS",
    "METHODS",
    "FamilyCounts",
    "PPCResult",
    "PPCStats",
    "bf_below",
    "candidate_parts",
    "certify_full",
    "choose_method",
    "extend_solution",
    "parse_price_cut",
    "ppc_certificate",
    "project_to_tree",
    "second_order_parts",
    "solve_bf",
    "solve_lp",
    "solve_second_order",
    "tree_objective",
]
