"""Exact decoding with a proof: branch and bound over the LPs of :mod:`lpparse.ppc` (:func:`exact_search`,
its nodes as bound changes on one live master, branching rules and primal heuristics), the K best trees by
Murty's partition (:func:`k_best_search`), and second-order models from their scorers
(:func:`parse_exact`). What a proof is and how it is checked, without a solver: :mod:`lpparse.proofs`."""

from lpparse.exact.kbest import check_kbest, k_best_search
from lpparse.exact.search import ExactOptions, exact_search
from lpparse.exact.second_order import check_exact, parse_exact
from lpparse.proofs.kbest import KBest
from lpparse.proofs.search_tree import ExactResult

__all__ = [
    "ExactOptions",
    "ExactResult",
    "KBest",
    "check_exact",
    "check_kbest",
    "exact_search",
    "k_best_search",
    "parse_exact",
]
