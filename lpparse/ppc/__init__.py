"""Parse, Price and Cut (Riedel, Smith & McCallum 2012 §4): delayed column and row generation over any list
of part families (:mod:`lpparse.ppc.parts`: grandparent triples, arbitrary siblings, and families written
elsewhere) on the engine of :mod:`lpparse.colgen`, their pricing, separation and certificates, the
brute-force baseline (:func:`solve_lp`), and exact decoding with a proof on top of them
(:func:`exact_search`)."""

from lpparse._lazy import lazy_exports

#: submodule -> the names it gives this package (imported on first use: :mod:`lpparse._lazy`)
__all__, __getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "lpparse.colgen.family": ("Warm",),
        "certificate": ("certify_full", "extend_solution", "ppc_certificate"),
        "exact": ("ExactOptions", "ExactResult", "check_exact", "check_proof", "exact_search", "parse_exact"),
        "kbest": ("KBest", "check_kbest", "k_best_search"),
        "kbest_proof": ("check_kbest_record", "kbest_record"),
        "loop": (
            "BF_BELOW_PARTS",
            "METHODS",
            "FamilyCounts",
            "PPCResult",
            "PPCStats",
            "candidate_parts",
            "bf_below",
            "choose_method",
            "parse_price_cut",
            "project_to_tree",
            "second_order_parts",
            "solve_bf",
            "solve_lp",
            "solve_second_order",
            "tree_objective",
        ),
        "parts": ("Binding", "GrandparentParts", "Parts", "SiblingParts"),
    },
)
