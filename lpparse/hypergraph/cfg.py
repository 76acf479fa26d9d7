"""CKY for a weighted CFG in Chomsky normal form as a hypergraph (R10 §3, Fig. 2; TUT §4.1).

Non-terminals 0..G-1, of which ``tags`` may sit on a word. Nodes (A, i, j), 1 ≤ i ≤ j ≤ n, plus the goal;
hyperedges are the paper's index set I' in three families:

* ``rule``  ⟨A → B C, i, k, j⟩: (A, i, j) ← (B, i, k) (C, k+1, j), label (A, B, C, i, k, j);
* ``tag``   (i, A) for A a tag: (A, i, i) ← (no tails), label (i, A), part (i, A) = μ(i, A) of R10 eq. 7;
* ``root``  A: goal ← (A, 1, n), label (A,), the root row of R10 eq. 5.

A non-tag over a single word has no incoming edge, so it is dead: the leaf restriction of
NOTES-dual-decomposition.md P2(a). n = 1 needs no special case (goal ← (A, 1, 1) ← tag).
Parts are the n·|T| tag indicators y(i, t), part id (i-1)·|T| + (index of t in ``tags``).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.hypergraph.core import Hypergraph, hypergraph

__all__ = ["cky_hypergraph", "cky_weights"]


def cky_hypergraph(n: int, num_nonterminals: int, tags: ArrayLike) -> Hypergraph:
    """The CKY hypergraph for n words and G non-terminals, ``tags`` ⊆ 0..G-1 allowed on words."""
    if n < 1:
        raise ValueError(f"need at least one word, got n={n}")
    g = num_nonterminals
    tags = np.asarray(tags, dtype=np.int64)
    size = n + 1

    def node(a: NDArray, i: NDArray, j: NDArray) -> NDArray[np.int64]:
        return (a * size + i) * size + j

    a, b, c, i, k, j = (
        x.ravel() for x in np.meshgrid(*(np.arange(g),) * 3, *(np.arange(1, size),) * 3, indexing="ij")
    )
    keep = (i <= k) & (k < j)
    a, b, c, i, k, j = (x[keep] for x in (a, b, c, i, k, j))
    n_rule = a.shape[0]
    ti, tt = (x.ravel() for x in np.meshgrid(np.arange(1, size), np.arange(tags.shape[0]), indexing="ij"))
    n_tag = ti.shape[0]
    goal = g * size * size
    roots = np.arange(g)
    label = np.full((n_rule + n_tag + g, 6), -1)
    label[:n_rule] = np.column_stack([a, b, c, i, k, j])
    label[n_rule : n_rule + n_tag, :2] = np.column_stack([ti, tags[tt]])
    label[n_rule + n_tag :, 0] = roots
    ones = np.ones(g, np.int64)
    return hypergraph(
        num_nodes=goal + 1,
        root=goal,
        head=np.concatenate([node(a, i, j), node(tags[tt], ti, ti), np.full(g, goal)]),
        tails=[
            np.concatenate([node(b, i, k), np.full(n_tag, -1), node(roots, ones, n * ones)]),
            np.concatenate([node(c, k + 1, j), np.full(n_tag + g, -1)]),
        ],
        kinds=("rule", "tag", "root"),
        kind=np.repeat([0, 1, 2], [n_rule, n_tag, g]),
        label=label,
        part_edge=((ti - 1) * tags.shape[0] + tt, n_rule + np.arange(n_tag)),
        part_label=np.column_stack([ti, tags[tt]]),
        name="cky",
    )


def cky_weights(
    hg: Hypergraph,
    rule: ArrayLike,
    tag: ArrayLike | None = None,
    root: ArrayLike | None = None,
) -> NDArray[np.float64]:
    """Edge weights from ``rule`` scores θ(A → B C) of shape (G, G, G), or position-dependent
    θ(A → B C, i, k, j) of shape (G, G, G, n+1, n+1, n+1); ``tag`` θ(t → w_i) of shape (n+1, G) (row 0
    unused) and ``root`` θ(A) of shape (G,) (both default 0)."""
    rule = np.asarray(rule, dtype=np.float64)
    lab = hg.label
    theta = np.zeros(hg.num_edges)
    r = hg.edges_of("rule")
    theta[r] = rule[tuple(lab[r].T)] if rule.ndim == 6 else rule[tuple(lab[r, :3].T)]
    if tag is not None:
        t = hg.edges_of("tag")
        theta[t] = np.asarray(tag, dtype=np.float64)[lab[t, 0], lab[t, 1]]
    if root is not None:
        t = hg.edges_of("root")
        theta[t] = np.asarray(root, dtype=np.float64)[lab[t, 0]]
    return theta
