"""Belief propagation with structured factors for dependency parsing (Gormley, Dredze & Eisner 2015): the factor
graph, loopy BP with the TREE/PTREE factor, back-propagation through it, MBR decoding and training objectives."""

from lpparse.bp.exact import brute_force_second_order
from lpparse.bp.loopy import BPResult, FactorGraph, PairwiseFamily, ScoreGradients, bp_marginals, factor_graph
from lpparse.bp.objectives import (
    OBJECTIVES,
    annealed_risk,
    cll_surrogate,
    l2_distance,
    objective_gradients,
    temperature,
)
from lpparse.bp.tree_factor import tree_marginals, tree_marginals_jvp
from lpparse.oracles.brute_force import second_order_tree_scores

__all__ = [
    "OBJECTIVES",
    "BPResult",
    "FactorGraph",
    "PairwiseFamily",
    "ScoreGradients",
    "annealed_risk",
    "bp_marginals",
    "brute_force_second_order",
    "cll_surrogate",
    "factor_graph",
    "l2_distance",
    "objective_gradients",
    "second_order_tree_scores",
    "temperature",
    "tree_marginals",
    "tree_marginals_jvp",
]
