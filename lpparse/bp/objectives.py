"""Training objectives through BP (Gormley, Dredze & Eisner 2015 §4 and §6; BP reading note §2.8–2.9).

Each objective maps a :class:`~lpparse.bp.loopy.BPResult` and a gold tree to a loss and its gradient with
respect to every factor score (:class:`~lpparse.bp.loopy.ScoreGradients`); a model turns those into feature
gradients by the chain rule (ðw = Σ_parts ðscore · f(part)).

* ``cll``: surrogate conditional log-likelihood −log p(y*) ≈ log Z_Bethe − s(y*), whose gradient uses the
  beliefs in place of the marginals: ðθ_a = b_a(ON) − 1[a ∈ y*], ðs_α = b_α(ON,ON) − 1[α ⊂ y*] (§6,
  Wainwright 2006). No back-propagation. With PTREE the gold tree must be projective (projectivize first).
* ``l2``: J = Σ_a Σ_{y ∈ {ON,OFF}} (b_a(y) − 1[y*_a = y])² = 2 Σ_a (b_a(ON) − y*_a)² (eq. 12), back-propagated.
* ``ar``: annealed risk R = −Σ_{a ∈ y*} q_a with q the arc marginals of the tree distribution with arc scores
  b_a(ON)/T (eqs. 10–11, the constant n dropped), back-propagated through q (inside-outside or matrix-tree)
  and then through BP. T follows :func:`temperature` (linear from 0.1 to 1e-4 over the training steps).
* ``l2+ar`` is a schedule, not a loss: train with ``l2``, then continue from that model with ``ar`` (§4.3).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.bp.loopy import BPResult, FactorGraph, ScoreGradients, bp_marginals
from lpparse.bp.tree_factor import tree_marginals_jvp
from lpparse.trees import heads_to_matrix

__all__ = [
    "OBJECTIVES",
    "annealed_risk",
    "cll_surrogate",
    "l2_distance",
    "objective_gradients",
    "temperature",
]


def temperature(step: int, total_steps: int, start: float = 0.1, end: float = 1e-4) -> float:
    """Annealing temperature at optimisation ``step`` of ``total_steps``: linear from ``start`` to ``end`` (§4.1)."""
    if total_steps <= 1:
        return end
    frac = min(max(step / (total_steps - 1), 0.0), 1.0)
    return start + frac * (end - start)


def _gold(result: BPResult, gold_heads: ArrayLike) -> NDArray[np.float64]:
    return heads_to_matrix(gold_heads) * result.graph.arc_mask


def cll_surrogate(
    result: BPResult, gold_heads: ArrayLike, temperature: float | None = None
) -> tuple[float, ScoreGradients]:
    """(log Z_Bethe − s(y*), surrogate gradient from the beliefs); ``temperature`` is unused."""
    graph = result.graph
    full = heads_to_matrix(gold_heads)
    if (full > 0)[~graph.arc_mask].any():
        raise ValueError("the gold tree uses an arc that is not a candidate (pruned): its likelihood is 0")
    gold = full * graph.arc_mask
    score = float(np.where(gold > 0, graph.arc_scores, 0.0).sum())
    grads = ScoreGradients(np.where(graph.arc_mask, result.marginals - gold, 0.0))
    for f in graph.families:
        gold_pairs = f.first(gold) * f.second(gold) * f.mask
        score += float((f.scores * gold_pairs).sum())
        setattr(grads, f.name, np.where(f.mask, result.factor_beliefs[f.name] - gold_pairs, 0.0))
    return result.log_z_bethe - score, grads


def l2_distance(
    result: BPResult, gold_heads: ArrayLike, temperature: float | None = None
) -> tuple[float, ScoreGradients]:
    """(Σ_a Σ_y (b_a(y) − b*_a(y))², gradient by back-propagation through BP); eq. 12."""
    diff = np.where(result.graph.arc_mask, result.marginals - _gold(result, gold_heads), 0.0)
    return float(2.0 * (diff**2).sum()), result.backward(4.0 * diff)


def annealed_risk(
    result: BPResult, gold_heads: ArrayLike, temperature: float = 1e-3
) -> tuple[float, ScoreGradients]:
    """(R^{1/T} = −Σ_{a ∈ y*} q^{1/T}_a, gradient by back-propagation); eqs. 10–11 without the constant n."""
    if temperature <= 0:
        raise ValueError(f"temperature must be positive, got {temperature}")
    graph = result.graph
    gold = _gold(result, gold_heads)
    annealed = np.where(graph.arc_mask, result.marginals / temperature, -np.inf)
    q, d_annealed = tree_marginals_jvp(annealed, -gold, graph.single_root, graph.projective)
    return -float((q * gold).sum()), result.backward(d_annealed / temperature)


#: Objective name -> function(result, gold heads, temperature) -> (loss, score gradients).
OBJECTIVES: dict[str, Callable[[BPResult, ArrayLike, float], tuple[float, ScoreGradients]]] = {
    "cll": cll_surrogate,
    "l2": l2_distance,
    "ar": annealed_risk,
}


def objective_gradients(
    objective: str,
    gold_heads: ArrayLike,
    graph: FactorGraph,
    iterations: int = 4,
    damping: float = 0.0,
    temperature: float = 1e-3,
) -> tuple[float, ScoreGradients, BPResult]:
    """Run BP on the factor ``graph`` (:func:`lpparse.bp.loopy.factor_graph`) and return (loss, gradients wrt
    every factor score, the BP result) for ``objective``."""
    if objective not in OBJECTIVES:
        raise ValueError(f"unknown objective {objective!r}; choose from {sorted(OBJECTIVES)}")
    result = bp_marginals(graph, iterations=iterations, damping=damping)
    loss, grads = OBJECTIVES[objective](result, gold_heads, temperature)
    return loss, grads, result
