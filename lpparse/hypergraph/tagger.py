"""An m-th order tagger (HMM or CRF; m = 2 is the trigram tagger of Rush et al. 2010 §3 / Rush & Collins 2012
§4.1) as a hypergraph.

Positions 1..n, tags 0..K-1, START = K pads positions ≤ 0 (DD reading note, P3, "robust padded
representation"). A node (i, a_0..a_{m-1}) is the state after tagging word i, with a_j the tag of word
i-m+1+j; the axiom is (0, START..START). A hyperedge (``trans``) ⟨i, a_0..a_{m-1}, c⟩ goes from
(i-1, a_0..a_{m-1}) to (i, a_1..a_{m-1}, c) with weight θ(i, z_{i-m}..z_{i-1}, z_i); ``end`` edges
(label (n, a_0..a_{m-1}, -1)) lead every state at n to the goal. Its marginal polytope is the exact
bigram-state flow polytope of the DD reading note, P3 (not the printed Rush et al. 2010 Fig. 3, which is a
strict relaxation: erratum E1 of the DD reading note).

Parts: unigrams (i, t) with ids (i-1)·K + t, then bigrams (i, t1, t2) = [z_i = t1, z_{i+1} = t2] for
i = 1..n-1 with ids n·K + (i-1)·K² + t1·K + t2 (the tightening parts of Rush & Collins 2012 §9.4).
``part_label`` is (i, t1, t2) with t2 = -1 for unigrams.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.hypergraph.core import Edges, Hypergraph, hypergraph

__all__ = ["tagger_hypergraph", "tagger_weights", "tags_from_parts"]


def tagger_hypergraph(n: int, num_tags: int, order: int = 2) -> Hypergraph:
    """The m-th order tagger hypergraph (edge kinds ``trans`` with label (i, a_0..a_{m-1}, c) and ``end``)."""
    if n < 1 or num_tags < 1 or order < 1:
        raise ValueError(f"need n, num_tags, order >= 1, got {n}, {num_tags}, {order}")
    k, m = num_tags, order
    base = k + 1
    codes = np.arange(base**m)
    digits = (codes[:, None] // base ** np.arange(m - 1, -1, -1)) % base  # a_0 most significant
    offset = np.arange(m)  # digit j is the tag of position i-m+1+j

    def valid(i: int) -> NDArray[np.bool_]:
        pos = i - m + 1 + offset
        return np.all((digits == k) == (pos <= 0), axis=1)

    heads, tails, labels = [], [], []
    for i in range(1, n + 1):
        prev = codes[valid(i - 1)]
        p, c = (x.ravel() for x in np.meshgrid(prev, np.arange(k), indexing="ij"))
        heads.append(i * base**m + (p % base ** (m - 1)) * base + c)
        tails.append((i - 1) * base**m + p)
        labels.append(np.column_stack([np.full(p.shape[0], i), digits[p], c]))
    head, tail, label = np.concatenate(heads), np.concatenate(tails), np.concatenate(labels)
    n_trans = head.shape[0]
    goal = (n + 1) * base**m
    last = codes[valid(n)]
    pi, pt1, pt2 = label[:, 0], label[:, m], label[:, m + 1]
    bigram = pi >= 2
    part_id = np.concatenate(
        [(pi - 1) * k + pt2, n * k + (pi[bigram] - 2) * k * k + pt1[bigram] * k + pt2[bigram]]
    )
    part_edge = np.concatenate([np.arange(n_trans), np.flatnonzero(bigram)])
    uni = np.column_stack([np.repeat(np.arange(1, n + 1), k), np.tile(np.arange(k), n), np.full(n * k, -1)])
    bi_i, bi_1, bi_2 = (
        x.ravel() for x in np.meshgrid(np.arange(1, n), np.arange(k), np.arange(k), indexing="ij")
    )
    end_label = np.column_stack([np.full(last.shape[0], n), digits[last], np.full(last.shape[0], -1)])
    return hypergraph(
        num_nodes=goal + 1,
        root=goal,
        edges=Edges(
            head=np.concatenate([head, np.full(last.shape[0], goal)]),
            tails=[np.concatenate([tail, n * base**m + last])],
            kinds=("trans", "end"),
            kind=np.repeat([0, 1], [n_trans, last.shape[0]]),
            label=np.concatenate([label, end_label]),
        ),
        part_edge=(part_id, part_edge),
        part_label=np.concatenate([uni, np.column_stack([bi_i, bi_1, bi_2])]),
        axiom=[base**m - 1],
        name=f"tagger{m}",
    )


def tagger_weights(hg: Hypergraph, theta: ArrayLike) -> NDArray[np.float64]:
    """Edge weights from θ of shape (n+1,) + (K+1,)*m + (K,): θ[i, a_0..a_{m-1}, c] (row 0 unused)."""
    theta = np.asarray(theta, dtype=np.float64)
    out = np.zeros(hg.num_edges)
    t = hg.edges_of("trans")
    out[t] = theta[tuple(hg.label[t].T)]
    return out


def tags_from_parts(parts: NDArray[np.float64], n: int, num_tags: int) -> NDArray[np.int64]:
    """Tag sequence (length n) of a 0/1 part vector (unigram block)."""
    return np.argmax(parts[: n * num_tags].reshape(n, num_tags), axis=1).astype(np.int64)
