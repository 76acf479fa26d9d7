"""Parse, Price and Cut (Riedel, Smith & McCallum 2012 §4): delayed column and row generation over any list
of part families (:mod:`lpparse.ppc.parts`: grandparent triples, arbitrary siblings, and families written
elsewhere) on the engine of :mod:`lpparse.colgen`, their pricing, separation and certificates, the
brute-force baseline (:func:`solve_lp`), and exact decoding with a proof on top of them
(:func:`exact_search`)."""

from lpparse.colgen.family import Warm
from lpparse.ppc.certificate import certify_full, extend_solution, ppc_certificate
from lpparse.ppc.exact import ExactOptions, ExactResult, check_exact, check_proof, exact_search, parse_exact
from lpparse.ppc.kbest import KBest, check_kbest, k_best_search
from lpparse.ppc.loop import (
    BF_BELOW_PARTS,
    METHODS,
    FamilyCounts,
    PPCResult,
    PPCStats,
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
from lpparse.ppc.parts import Binding, GrandparentParts, Parts, SiblingParts

__all__ = [
    "BF_BELOW_PARTS",
    "METHODS",
    "Binding",
    "ExactOptions",
    "ExactResult",
    "FamilyCounts",
    "KBest",
    "GrandparentParts",
    "PPCResult",
    "PPCStats",
    "Parts",
    "SiblingParts",
    "Warm",
    "candidate_parts",
    "certify_full",
    "check_exact",
    "check_kbest",
    "check_proof",
    "choose_method",
    "exact_search",
    "extend_solution",
    "k_best_search",
    "parse_exact",
    "parse_price_cut",
    "ppc_certificate",
    "project_to_tree",
    "second_order_parts",
    "solve_bf",
    "solve_lp",
    "solve_second_order",
    "tree_objective",
]
