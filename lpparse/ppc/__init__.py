"""Parse, Price and Cut (Riedel, Smith & McCallum 2012 §4): delayed column and row generation for the
grandparent LP, its pricing, separation and certificates, and the brute-force baseline."""

from lpparse.ppc.certificate import certify_full, extend_solution, ppc_certificate
from lpparse.ppc.loop import (
    PPCResult,
    PPCRound,
    PPCStats,
    parse_price_cut,
    project_to_tree,
    solve_bf,
    tree_objective,
)

__all__ = [
    "PPCResult",
    "PPCRound",
    "PPCStats",
    "certify_full",
    "extend_solution",
    "parse_price_cut",
    "ppc_certificate",
    "project_to_tree",
    "solve_bf",
    "tree_objective",
]
