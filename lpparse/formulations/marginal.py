"""The marginal polytope of a dynamic program, as a LinearProgram (Martin, Rardin & Campbell 1990).

For an acyclic hypergraph with root r (:mod:`lpparse.hypergraph.core`), conv(derivations) is the set of
hyperedge flows μ ≥ 0 with (R10 §5.1 eq. 4; TUT §9.5; NOTES-dual-decomposition.md P6)

    ``Root``:     Σ_{e: head(e) = r} μ_e = 1
    ``Flow[v]``:  Σ_{e: head(e) = v} μ_e − Σ_{e: v ∈ tails(e)} μ_e = 0    for every other non-axiom node v,

and parts (tags, arcs, ...) are the linear images ``parts @ μ``. For CKY (:func:`cky_hypergraph`) these
are R10 Fig. 2 exactly: ``Root`` with the root edges is eq. 5, ``Flow`` at a span (X, i, j) is eq. 6 and
at a word (t, i, i) it is eq. 7 (the ``tag`` edge variable is μ(i, t)). For the tagger it is the corrected
bigram-state polytope of NOTES P3 (erratum E1). One variable block per edge family (``rule``, ``tag``,
``root``; ``trans``, ``end``; ``IR``, ...), indexed by the edge labels, so a user reads the Pyomo model in
the papers' terms. The LP optimum equals the DP optimum for every θ (R10 Thm 5.1/5.2).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from lpparse.hypergraph.core import Hypergraph
from lpparse.lp import LinearProgram

__all__ = ["MarginalPolytope", "marginal_polytope"]


@dataclass
class MarginalPolytope:
    """Where a hypergraph's polytope sits inside a LinearProgram."""

    lp: LinearProgram
    hypergraph: Hypergraph
    edge_cols: NDArray[np.int64]  #: global column of each hyperedge

    def part_matrix(self) -> sp.csr_matrix:
        """(num_parts, lp.num_cols) matrix M with parts = M x."""
        hg = self.hypergraph
        coo = hg.parts.tocoo()
        return sp.csr_matrix(
            (coo.data, (coo.row, self.edge_cols[coo.col])), shape=(hg.num_parts, self.lp.num_cols)
        )

    def edges(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """Hyperedge values of a primal vector."""
        return x[self.edge_cols]


def marginal_polytope(
    hg: Hypergraph,
    theta: ArrayLike,
    lp: LinearProgram | None = None,
    prefix: str = "",
    integer: bool = False,
) -> MarginalPolytope:
    """Add conv(derivations of ``hg``) with objective θ·μ to ``lp`` (a new program if None).

    Blocks are named ``prefix + kind`` (variables), ``prefix + "Root"`` and ``prefix + "Flow"`` (rows);
    edges with θ_e = -inf are fixed to 0. ``integer`` makes the edge variables integral (the ILP).
    """
    theta = np.asarray(theta, dtype=np.float64)
    lp = lp if lp is not None else LinearProgram(hg.name)
    cols = np.empty(hg.num_edges, dtype=np.int64)
    pruned = np.isneginf(theta)
    for k, kind in enumerate(hg.kinds):
        e = np.flatnonzero(hg.kind == k)
        lab = hg.label[e]
        used = ~np.all(lab == -1, axis=0)
        width = int(np.flatnonzero(used).max()) + 1 if used.any() else 1
        cols[e] = lp.add_variables(
            prefix + kind,
            lab[:, :width],
            cost=np.where(pruned[e], 0.0, theta[e]),
            upper=np.where(pruned[e], 0.0, np.inf),
            integer=integer,
        )
    into_root = np.flatnonzero(hg.head == hg.root)
    k = into_root.shape[0]
    lp.add_constraints(prefix + "Root", [0], np.zeros(k, np.int64), cols[into_root], np.ones(k), 1.0, 1.0)
    nodes = np.unique(np.concatenate([hg.head, hg.tail]))
    nodes = nodes[(nodes != hg.root) & ~hg.axiom[nodes]]
    row_of = np.full(hg.num_nodes, -1)
    row_of[nodes] = np.arange(nodes.shape[0])
    inner = np.flatnonzero(hg.head != hg.root)
    keep_t = row_of[hg.tail] >= 0
    lp.add_constraints(
        prefix + "Flow",
        nodes,
        np.concatenate([row_of[hg.head[inner]], row_of[hg.tail[keep_t]]]),
        np.concatenate([cols[inner], cols[hg.tail_edge[keep_t]]]),
        np.concatenate([np.ones(inner.shape[0]), -np.ones(int(keep_t.sum()))]),
        0.0,
        0.0,
    )
    return MarginalPolytope(lp, hg, cols)
