"""MBR decoding from BP beliefs, and the ``bp`` decoder of :mod:`lpparse.decoding`.

Gormley, Dredze & Eisner (2015) eq. 3: the minimum-Bayes-risk tree under the loss of eq. 1 maximizes the
expected recall Σ_{a ∈ y} b_a(ON), so it is the best first-order tree with *additive* arc scores equal to
the beliefs (not their log-odds, footnote 3): Eisner's algorithm for PTREE models, Chu-Liu-Edmonds for TREE.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.bp.loopy import bp_marginals
from lpparse.decoder import DecodeResult, dense_sibling_scores, dense_triple_scores, register_decoder
from lpparse.oracles import chu_liu_edmonds, eisner
from lpparse.oracles.brute_force import second_order_tree_scores
from lpparse.trees import allowed_arcs, tree_score, validate_scores
from lpparse.triples import SiblingScorer, TripleScorer

__all__ = ["bp_decode", "mbr_decode"]


def mbr_decode(
    marginals: ArrayLike, arc_mask: ArrayLike, single_root: bool = False, projective: bool = True
) -> tuple[NDArray[np.int64], float]:
    """``(heads, expected recall)``: the (projective) tree maximizing Σ marginals over its arcs (eq. 3)."""
    mu = np.asarray(marginals, dtype=np.float64)
    scores = np.where(np.asarray(arc_mask, dtype=bool), mu, -np.inf)
    heads = (eisner if projective else chu_liu_edmonds)(scores, single_root=single_root)
    return heads, tree_score(mu, heads)


def bp_decode(
    arc_scores: NDArray[np.float64],
    triple_scorer: TripleScorer | None,
    single_root: bool,
    iterations: int = 4,
    projective: bool = True,
    damping: float = 0.0,
    sibling_scorer: SiblingScorer | None = None,
    **_: Any,
) -> DecodeResult:
    """BP beliefs of the grandparent model, with sibling factors when ``sibling_scorer`` is given
    (``iterations`` iterations), then MBR decoding."""
    s = validate_scores(arc_scores)
    before = triple_scorer.scored if triple_scorer is not None else 0
    gp = dense_triple_scores(s, triple_scorer) if triple_scorer is not None else None
    sib = dense_sibling_scores(s, sibling_scorer, single_root) if sibling_scorer is not None else None
    result = bp_marginals(s, gp, sib, single_root, projective, iterations, damping)
    heads, recall = mbr_decode(result.marginals, allowed_arcs(s), single_root, projective)
    stats = {
        "expected_recall": recall,
        "iterations": iterations,
        "residual": result.residuals[-1],
        "log_z_bethe": result.log_z_bethe,
        "triples_scored": (triple_scorer.scored - before) if triple_scorer is not None else 0,
    }
    objective = float(second_order_tree_scores(heads[None], s, gp, sib)[0])
    return DecodeResult(heads, objective, stats)


register_decoder(
    "bp",
    bp_decode,
    2,
    "loopy BP on the grandparent (and sibling) factor graph (options iterations=4, projective=True, damping), "
    "then MBR",
    siblings=True,
)
