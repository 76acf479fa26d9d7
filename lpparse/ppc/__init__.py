"""Parse, Price and Cut (Riedel, Smith & McCallum 2012 §4): delayed column and row generation for the
grandparent and sibling LPs on the engine of :mod:`lpparse.colgen`, their pricing, separation and
certificates, the brute-force baseline, and exact decoding with a proof on top of them
(:mod:`lpparse.ppc.exact`)."""

from lpparse.ppc.certificate import certify_full, extend_solution, ppc_certificate
from lpparse.ppc.exact import ExactOptions, ExactResult, check_exact, parse_exact
from lpparse.ppc.loop import (
    BF_BELOW_PARTS,
    METHODS,
    PPCResult,
    PPCRound,
    PPCStats,
    WarmStart,
    candidate_parts,
    choose_method,
    parse_price_cut,
    project_to_tree,
    run_ppc,
    solve_bf,
    solve_second_order,
    tree_objective,
)

__all__ = [
    "BF_BELOW_PARTS",
    "METHODS",
    "ExactOptions",
    "ExactResult",
    "PPCResult",
    "PPCRound",
    "PPCStats",
    "WarmStart",
    "certify_full",
    "check_exact",
    "candidate_parts",
    "choose_method",
    "extend_solution",
    "parse_exact",
    "parse_price_cut",
    "ppc_certificate",
    "project_to_tree",
    "run_ppc",
    "solve_bf",
    "solve_second_order",
    "tree_objective",
]
