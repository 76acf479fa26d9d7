"""Exact first-order oracles: decoders (Eisner, Chu-Liu-Edmonds), partition functions and marginals
(matrix-tree theorem, projective inside-outside) and brute-force enumeration as ground truth."""

from lpparse.oracles.brute_force import (
    all_trees,
    brute_force,
    brute_force_log_partition,
    brute_force_marginals,
    enumerate_trees,
)
from lpparse.oracles.chu_liu_edmonds import chu_liu_edmonds
from lpparse.oracles.eisner import eisner
from lpparse.oracles.grandparent_eisner import grandparent_eisner
from lpparse.oracles.inside_outside import (
    projective_inside_outside,
    projective_log_partition,
    projective_marginals,
)
from lpparse.oracles.matrix_tree import arc_marginals, fast_arc_marginals, log_partition, matrix_tree

__all__ = [
    "all_trees",
    "arc_marginals",
    "fast_arc_marginals",
    "brute_force",
    "brute_force_log_partition",
    "brute_force_marginals",
    "chu_liu_edmonds",
    "eisner",
    "enumerate_trees",
    "grandparent_eisner",
    "log_partition",
    "matrix_tree",
    "projective_inside_outside",
    "projective_log_partition",
    "projective_marginals",
]
