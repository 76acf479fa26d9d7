"""Eisner's (1996) first-order projective dependency DP as a hypergraph.

Items over 0 ≤ s ≤ t ≤ n (root 0 at the left edge, never a modifier): incomplete spans IR[s,t] (arc s→t)
and IL[s,t] (arc t→s), complete spans CR[s,t] (head s) and CL[s,t] (head t); CR[s,s] and CL[s,s] are
axioms. Hyperedges

    IR[s,t] ← CR[s,r] CL[r+1,t]   (part: arc s→t)      IL[s,t] ← CR[s,r] CL[r+1,t]   (part: arc t→s, s > 0)
    CR[s,t] ← IR[s,r] CR[r,t]                            CL[s,t] ← CL[s,r] IL[r,t]

Edge labels are (s, r, t) (the goal's: (0, m, n), or (0, -1, n) multi-root), and the goal ← CR[0,n] (multi-root) or goal ← CL[1,m] CR[m,n] with part arc 0→m (single-root, as in
:mod:`lpparse.oracles._chart`). Parts are the (n+1)² arcs, part id h·(n+1) + m.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.hypergraph.core import Hypergraph, hypergraph
from lpparse.trees import validate_scores

__all__ = ["arc_weights", "eisner_hypergraph", "heads_from_parts"]

_IR, _IL, _CR, _CL = range(4)


def eisner_hypergraph(n: int, single_root: bool = False) -> Hypergraph:
    """The Eisner hypergraph for n tokens (edge kinds ``IR``, ``IL``, ``CR``, ``CL``, ``goal``)."""
    if n < 1:
        raise ValueError(f"need at least one token, got n={n}")
    size = n + 1

    def node(t: int, s: NDArray[np.int64], e: NDArray[np.int64]) -> NDArray[np.int64]:
        return (t * size + s) * size + e

    s, r, t = (a.ravel() for a in np.meshgrid(*(np.arange(size),) * 3, indexing="ij"))
    split = (s <= r) & (r < t)  # s ≤ r < t
    lo = 1 if single_root else 0
    heads, tails1, tails2, kinds, labels = [], [], [], [], []

    def add(kind: int, mask: NDArray[np.bool_], h: NDArray, t1: NDArray, t2: NDArray, lab: NDArray) -> None:
        heads.append(h[mask])
        tails1.append(t1[mask])
        tails2.append(t2[mask])
        kinds.append(np.full(int(mask.sum()), kind))
        labels.append(lab[mask])

    span = np.column_stack([s, r, t])
    add(_IR, split & (s >= lo), node(_IR, s, t), node(_CR, s, r), node(_CL, np.minimum(r + 1, n), t), span)
    add(_IL, split & (s >= 1), node(_IL, s, t), node(_CR, s, r), node(_CL, np.minimum(r + 1, n), t), span)
    add(_CR, (s < r) & (r <= t) & (s >= lo), node(_CR, s, t), node(_IR, s, r), node(_CR, r, t), span)
    add(_CL, split & (s >= 1), node(_CL, s, t), node(_CL, s, r), node(_IL, r, t), span)
    goal = 4 * size * size
    if single_root:
        m = np.arange(1, size)
        heads.append(np.full(n, goal))
        tails1.append(node(_CL, np.ones(n, np.int64), m))
        tails2.append(node(_CR, m, np.full(n, n)))
        kinds.append(np.full(n, 4))
        labels.append(np.column_stack([np.zeros(n, np.int64), m, np.full(n, n)]))
    else:
        heads.append(np.array([goal]))
        tails1.append(np.array([node(_CR, np.array(0), np.array(n))]))
        tails2.append(np.array([-1]))
        kinds.append(np.array([4]))
        labels.append(np.array([[0, -1, n]]))
    head, t1, t2, kind, label = (np.concatenate(x) for x in (heads, tails1, tails2, kinds, labels))
    arc_h = np.select([kind == _IR, kind == _IL, kind == 4], [label[:, 0], label[:, 2], 0], -1)
    arc_m = np.select([kind == _IR, kind == _IL, kind == 4], [label[:, 2], label[:, 0], label[:, 1]], -1)
    arc = (arc_h >= 0) & (arc_m > 0)
    diag = np.arange(size)
    return hypergraph(
        num_nodes=goal + 1,
        root=goal,
        head=head,
        tails=[t1, t2],
        kinds=("IR", "IL", "CR", "CL", "goal"),
        kind=kind,
        label=label,
        part_edge=(arc_h[arc] * size + arc_m[arc], np.flatnonzero(arc)),
        part_label=np.column_stack(np.divmod(np.arange(size * size), size)),
        axiom=np.concatenate([node(_CR, diag, diag), node(_CL, diag, diag)]),
        name="eisner",
    )


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
