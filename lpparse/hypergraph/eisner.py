"""Eisner's (1996) first-order projective dependency DP as a hypergraph: the chart program of
:mod:`lpparse.dp.eisner` read edge by edge (:mod:`lpparse.hypergraph.program`).

Edge kinds: ``span`` (a split CR[s,r] CL[r+1,t] of a span), ``I`` (the span with its arc s→t or t→s, a unary
edge whose part is the arc), ``complete`` (a split of CR[s,t] or CL[s,t]) and ``goal``. Parts are the (n+1)²
arcs, part id h·(n+1) + m, label (h, m); arcs into the root are forbidden, so their edges are absent.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.dp.eisner import eisner_program
from lpparse.hypergraph.core import Hypergraph
from lpparse.hypergraph.program import program_hypergraph
from lpparse.trees import validate_scores

__all__ = ["arc_weights", "eisner_hypergraph", "heads_from_parts"]


def eisner_hypergraph(n: int, single_root: bool = False) -> Hypergraph:
    """The Eisner hypergraph for n tokens."""
    size = n + 1
    part_label = np.column_stack(np.divmod(np.arange(size * size), size))
    return program_hypergraph(eisner_program(n, single_root), "eisner", part_label)


def arc_weights(hg: Hypergraph, scores: ArrayLike) -> NDArray[np.float64]:
    """Edge weights of an arc-factored model: S[h, m] on the edges that build arc h→m (−inf prunes)."""
    s = validate_scores(scores)
    return hg.weights(0.0, s.ravel())


def heads_from_parts(parts: NDArray[np.float64]) -> NDArray[np.int64]:
    """Heads array (heads[0] = -1) of a 0/1 arc-part vector of length (n+1)²."""
    size = round(np.sqrt(parts.shape[0]))
    heads = np.argmax(parts.reshape(size, size), axis=0).astype(np.int64)
    heads[0] = -1
    return heads
