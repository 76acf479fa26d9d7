"""Arc pruning by first-order posteriors: fewer candidate arcs, and far fewer second-order parts, per sentence.

An arc (h, m) is kept when its marginal probability μ(h, m) under a first-order distribution over trees
(matrix-tree marginals, Koo, Globerson, Carreras & Collins 2007, "Structured Prediction Models via the
Matrix-Tree Theorem", EMNLP-CoNLL 2007; by the inverse Laplacian, checked, with the elimination where the
check fails: :func:`lpparse.oracles.fast_arc_marginals`) is at least ``threshold`` and it is among the
``max_heads`` most probable heads of m. This is the "basic pruner" of TurboParser, the parser of Martins,
Almeida & Smith (2013, "Turning on the Turbo: Fast Third-Order Non-Projective Turbo Parsers", ACL 2013),
whose released training scripts set a posterior threshold of 10⁻⁴ and at most 10 candidate heads per word:
the defaults here. The pruner's distribution is a first-order model's (TurboParser trains one for the
purpose), or the decoded model's own arc scores. The arcs of the best first-order tree (Chu-Liu-Edmonds) are
always kept, so that a tree remains, and for projective decoders (Eisner, grandparent Eisner) those of the
best projective tree too (the kept arcs of a non-projective best tree may hold no projective tree).

Pruning shrinks the candidate grandparent triples and sibling parts from O(n³) to O(n·k²) for k heads per
word. Decoding is then exact (and certified) *for the pruned problem*: an arc pruned away is in no tree the
decoder can return. :func:`prune_arcs` reports the kept fraction; :func:`gold_recall` the share of gold arcs
that survive, the pruner's own error bound on UAS.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.oracles import chu_liu_edmonds, eisner, fast_arc_marginals
from lpparse.trees import allowed_arcs, validate_scores

if TYPE_CHECKING:
    from lpparse.scoring.model import Model

__all__ = [
    "ArcPruning",
    "apply_pruning",
    "decoding_pruning",
    "gold_recall",
    "keep_mask",
    "kept_fraction",
    "prune_arcs",
    "pruned_scores",
    "pruning_mask",
]


@dataclass(frozen=True)
class ArcPruning:
    """Which arcs survive: marginal μ(h, m) >= ``threshold`` and among the ``max_heads`` best heads of m."""

    threshold: float = 1e-4
    max_heads: int = 10

    def __post_init__(self) -> None:
        if not 0.0 <= self.threshold <= 1.0:
            raise ValueError(f"pruning threshold must be in [0, 1], got {self.threshold}")
        if self.max_heads < 1:
            raise ValueError(f"max_heads must be at least 1, got {self.max_heads}")


def decoding_pruning(model: Model, asked: ArcPruning | None, no_prune: bool = False) -> ArcPruning | None:
    """The arc pruning to decode ``model`` with: none with ``no_prune``, the pruning ``asked`` for, else the one
    it was trained over (:meth:`lpparse.scoring.model.Model.trained_pruning`, when its file holds its pruner):
    a model decodes as it was trained by default (``lpparse parse`` and ``lpparse check-proof`` alike)."""
    if no_prune:
        return None
    if asked is not None:
        return asked
    trained = model.trained_pruning()
    return None if trained is None else ArcPruning(*trained)


def pruning_mask(
    pruner_scores: ArrayLike, options: ArcPruning, single_root: bool = False, projective: bool = False
) -> NDArray[np.bool_]:
    """The (n+1, n+1) mask of arcs that survive ``options`` under first-order ``pruner_scores`` (``-inf`` =
    already pruned): the posterior rule of the module docstring, plus the best tree's arcs and, for a
    ``projective`` decoder, the best projective tree's (Eisner), so that a projective tree remains."""
    s = validate_scores(pruner_scores, "pruner scores")
    allowed = allowed_arcs(s)
    mu = fast_arc_marginals(s, single_root)
    size = s.shape[0]
    mu = np.where(allowed, mu, -1.0)
    keep = allowed & (mu >= options.threshold)
    if options.max_heads < size:
        # rank of each head within its modifier's column, best first (ties broken by head index)
        order = np.argsort(-mu, axis=0, kind="stable")
        rank = np.empty_like(order)
        np.put_along_axis(rank, order, np.arange(size)[:, None], axis=0)
        keep &= rank < options.max_heads
    m = np.arange(1, size)
    for best in [chu_liu_edmonds(s, single_root), *([eisner(s, single_root)] if projective else [])]:
        keep[best[m], m] = True
    return keep


def pruned_scores(arc_scores: ArrayLike, pruner_scores: ArrayLike) -> NDArray[np.float64]:
    """``pruner_scores`` (a first-order model's arc scores for the same sentence) with the arcs absent from
    ``arc_scores`` set to ``-inf``: the scores whose posteriors prune ``arc_scores``."""
    s = validate_scores(arc_scores)
    p = validate_scores(pruner_scores, "pruner scores")
    if p.shape != s.shape:
        raise ValueError(f"pruner scores have shape {p.shape}, arc scores {s.shape}")
    return np.where(allowed_arcs(s), p, -np.inf)


def apply_pruning(arc_scores: ArrayLike, keep: NDArray[np.bool_]) -> NDArray[np.float64]:
    """``arc_scores`` with the arcs outside ``keep`` set to ``-inf``."""
    return np.where(keep, validate_scores(arc_scores), -np.inf)


def kept_fraction(keep: NDArray[np.bool_], candidates: NDArray[np.bool_]) -> float:
    """The fraction of the ``candidates`` arcs that ``keep`` keeps (1 when there are none)."""
    total = int(candidates.sum())
    return float((keep & candidates).sum()) / total if total else 1.0


def keep_mask(
    arc_scores: ArrayLike,
    options: ArcPruning,
    single_root: bool = False,
    pruner_scores: ArrayLike | None = None,
    projective: bool = False,
) -> NDArray[np.bool_]:
    """The mask of the arcs of ``arc_scores`` that ``options`` keeps. The posteriors come from
    ``pruner_scores`` (a first-order model's arc scores for the same sentence), else from ``arc_scores``
    themselves; ``projective``: for a projective decoder (:func:`pruning_mask`)."""
    p = arc_scores if pruner_scores is None else pruned_scores(arc_scores, pruner_scores)
    return pruning_mask(p, options, single_root, projective)


def prune_arcs(
    arc_scores: ArrayLike,
    options: ArcPruning,
    single_root: bool = False,
    pruner_scores: ArrayLike | None = None,
    projective: bool = False,
) -> tuple[NDArray[np.float64], float]:
    """``arc_scores`` with the arcs that ``options`` prunes set to ``-inf`` (:func:`keep_mask`), and the
    fraction of candidate arcs kept."""
    keep = keep_mask(arc_scores, options, single_root, pruner_scores, projective)
    return apply_pruning(arc_scores, keep), kept_fraction(keep, allowed_arcs(validate_scores(arc_scores)))


def gold_recall(keep: NDArray[np.bool_], gold_heads: ArrayLike) -> tuple[int, int]:
    """(gold arcs kept by mask ``keep``, gold arcs): the oracle accuracy bound of a pruned decoder."""
    heads = np.asarray(gold_heads, dtype=np.int64)
    m = np.arange(1, heads.shape[0])
    return int(keep[heads[m], m].sum()), int(m.shape[0])
