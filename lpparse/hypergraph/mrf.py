"""Max-product on a forest-structured pairwise MRF as a hypergraph (the tree oracles of Rush & Collins 2012
§6.2).

Variables 0..V-1 with K labels; a forest given by its edges. Each tree is rooted at its smallest variable.
Nodes: Node(v, x) (best of v's subtree with x_v = x), Msg(v, x_p) (v's subtree seen from its parent's label),
Root(r) and the goal. Hyperedges: ``unary`` Node(v, x) ← Msg(c, x) for the children c (part (v, x)),
``pair`` Msg(v, x_p) ← Node(v, x_v) with label (p, v, x_p, x_v), ``root`` Root(r) ← Node(r, x),
``goal`` ← every Root(r). Its marginal polytope is the local polytope of the forest (exact on trees).
Parts: the label indicators (v, x), id v·K + x.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from scipy.sparse.csgraph import breadth_first_order

from lpparse.hypergraph.core import Edges, Hypergraph, hypergraph

__all__ = ["forest_hypergraph", "forest_weights"]


def forest_hypergraph(num_vars: int, num_labels: int, edges: ArrayLike) -> Hypergraph:
    """The max-product hypergraph of the forest ``edges`` ((m, 2) variable pairs) over all variables."""
    v, k = num_vars, num_labels
    parent, roots = _forest(v, np.asarray(edges, dtype=np.int64).reshape(-1, 2))
    node = np.arange(v * k).reshape(v, k)
    msg = v * k + node
    root_node = 2 * v * k + np.arange(v)
    goal = 2 * v * k + v
    child = np.flatnonzero(parent >= 0)
    # unary edges: Node(v, x) <- Msg(c, x) for all children c, built as CSR grouped by (v, x)
    order = np.argsort(parent[child], kind="stable")
    kids = child[order]
    count = np.bincount(parent[child], minlength=v)
    uv, ux = (a.ravel() for a in np.meshgrid(np.arange(v), np.arange(k), indexing="ij"))
    ptr = np.concatenate([[0], np.cumsum(count[uv])])
    starts = np.concatenate([[0], np.cumsum(count)])
    tails_u = (
        np.concatenate([msg[kids[starts[a] : starts[a + 1]], x] for a, x in zip(uv, ux)])
        if kids.size
        else np.empty(0, np.int64)
    )
    pv, pxp, pxv = (a.ravel() for a in np.meshgrid(child, np.arange(k), np.arange(k), indexing="ij"))
    n_u, n_p = uv.shape[0], pv.shape[0]
    rr, rx = (a.ravel() for a in np.meshgrid(np.array(roots), np.arange(k), indexing="ij"))
    head = np.concatenate([node[uv, ux], msg[pv, pxp], root_node[rr], [goal]])
    ptr_all = np.concatenate(
        [
            ptr,
            ptr[-1] + np.arange(1, n_p + 1),
            ptr[-1] + n_p + np.arange(1, rr.shape[0] + 1),
            [ptr[-1] + n_p + rr.shape[0] + len(roots)],
        ]
    )
    tail = np.concatenate([tails_u, node[pv, pxv], node[rr, rx], root_node[roots]])
    label = np.full((head.shape[0], 4), -1)
    label[:n_u, :2] = np.column_stack([uv, ux])
    label[n_u : n_u + n_p] = np.column_stack([parent[pv], pv, pxp, pxv])
    label[n_u + n_p : n_u + n_p + rr.shape[0], :2] = np.column_stack([rr, rx])
    return hypergraph(
        num_nodes=goal + 1,
        root=goal,
        edges=Edges(
            head=head,
            tails=(ptr_all, tail),
            kinds=("unary", "pair", "root", "goal"),
            kind=np.repeat([0, 1, 2, 3], [n_u, n_p, rr.shape[0], 1]),
            label=label,
        ),
        part_edge=(uv * k + ux, np.arange(n_u)),
        part_label=np.column_stack([uv, ux]),
        name="forest",
    )


def _forest(num_vars: int, e: NDArray[np.int64]) -> tuple[NDArray[np.int64], list[int]]:
    """Each variable's parent (-1 for a root) in the forest of the variable pairs ``e``, and the roots (the
    first variable of each tree); ``ValueError`` unless ``e`` is a forest."""
    adj = sp.csr_matrix((np.ones(e.shape[0]), (e[:, 0], e[:, 1])), shape=(num_vars, num_vars))
    parent = np.full(num_vars, -1)
    seen = np.zeros(num_vars, dtype=bool)
    roots = []
    for r in range(num_vars):
        if not seen[r]:
            order, pred = breadth_first_order(adj, r, directed=False)
            seen[order] = True
            parent[order[1:]] = pred[order[1:]]
            roots.append(r)
    if e.shape[0] != num_vars - len(roots):
        raise ValueError("edges do not form a forest")
    return parent, roots


def forest_weights(
    hg: Hypergraph, pairwise: ArrayLike, unary: ArrayLike | None = None
) -> NDArray[np.float64]:
    """Edge weights: θ_ij(x_i, x_j) = ``pairwise[i, j, x_i, x_j] + pairwise[j, i, x_j, x_i]`` (V, V, K, K)
    on the forest's edges,
    ``unary[v, x]`` (V, K) on the unary edges."""
    theta = np.zeros(hg.num_edges)
    lab = hg.label
    pw = np.asarray(pairwise, dtype=np.float64)
    e = hg.edges_of("pair")
    theta[e] = pw[lab[e, 0], lab[e, 1], lab[e, 2], lab[e, 3]] + pw[lab[e, 1], lab[e, 0], lab[e, 3], lab[e, 2]]
    if unary is not None:
        e = hg.edges_of("unary")
        theta[e] = np.asarray(unary, dtype=np.float64)[lab[e, 0], lab[e, 1]]
    return theta
