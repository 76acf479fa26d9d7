"""The marginal polytope of a dynamic program, as a LinearProgram (Martin, Rardin & Campbell 1990).

For an acyclic hypergraph with root r (:mod:`lpparse.hypergraph.core`), conv(derivations) is the set of
hyperedge flows μ ≥ 0 with (Rush et al. 2010 §5.1 eq. 4; Rush & Collins 2012 §9.5; DD reading note, P6)

    ``Root``:     Σ_{e: head(e) = r} μ_e = 1
    ``Flow[v]``:  Σ_{e: head(e) = v} μ_e − Σ_{e: v ∈ tails(e)} μ_e = 0    for every other non-axiom node v,

and parts (tags, arcs, ...) are the linear images ``parts @ μ``. For CKY (:func:`cky_hypergraph`) these
are Rush et al. 2010 Fig. 2 exactly: ``Root`` with the root edges is eq. 5, ``Flow`` at a span (X, i, j) is
eq. 6 and at a word (t, i, i) it is eq. 7 (the ``tag`` edge variable is μ(i, t)). For the tagger it is the
corrected bigram-state polytope of the DD reading note, P3 (erratum E1 of the DD reading note). One variable
block per edge family (``rule``, ``tag``, ``root``; ``trans``, ``end``; ``IR``, ...), indexed by the edge
labels, so a user reads the Pyomo model in the papers' terms. The LP optimum equals the DP optimum for every θ
(Rush et al. 2010 Thm 5.1/5.2).

:func:`r10_trigram_polytope` writes the trigram tagger's polytope in Rush et al.'s (2010) own variables, both
as printed in Rush et al. 2010 Fig. 3 (a strict relaxation: erratum E1 of the DD reading note) and corrected
(DD reading note, P3), so the two can be compared.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from lpparse.hypergraph.core import Hypergraph
from lpparse.lp import LinearProgram

__all__ = ["MarginalPolytope", "marginal_polytope", "r10_trigram_polytope"]


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


def r10_trigram_polytope(
    theta: ArrayLike, printed: bool = False, lp: LinearProgram | None = None, prefix: str = ""
) -> LinearProgram:
    """The trigram tagger's polytope in the variables of Rush et al. 2010 §3 (DD reading note, P3), objective
    θ·ν.

    ``theta`` (n+1, K, K, K) holds θ((A, B) → C, i) at [i, A, B, C] for 3 ≤ i ≤ n (rows 0–2 unused).
    Blocks: ``trigram`` ν((A, B) → C, i) labelled (i, A, B, C) and ``unigram`` ν(i, X) labelled (i, X);
    rows ``Root`` (Σ ν(·, 3) = 1) and ``Unigram`` (the three ν(i, X) definitions), then either

    * ``printed=True``, Rush et al. 2010 Fig. 3 as printed: ``Skip`` ∀X, 3 ≤ i ≤ n−2: Σ_{Y,Z} ν((Y,Z)→X, i) =
      Σ_{Y,Z} ν((X,Y)→Z, i+2) and ``Next`` ∀X, 3 ≤ i ≤ n−1: Σ_{Y,Z} ν((Y,Z)→X, i) = Σ_{Y,Z} ν((Y,X)→Z, i+1).
      They tie neighbouring trigrams only through single tags, so the LP can exceed Viterbi (erratum E1 of the
      DD reading note; fixture F3);
    * ``printed=False``, the exact bigram-state flow of the DD reading note, P3: ``Bigram`` ∀X, Y, 3 ≤ i ≤
      n−1: Σ_Z ν((Z,X)→Y, i) = Σ_Z ν((X,Y)→Z, i+1) (the ``Skip`` rows are then implied).
    """
    theta = np.asarray(theta, dtype=np.float64)
    n, k = theta.shape[0] - 1, theta.shape[1]
    if n < 3:
        raise ValueError(f"the trigram variables of Rush et al. (2010) need n >= 3, got n={n}")
    lp = lp if lp is not None else LinearProgram("r10-trigram-printed" if printed else "r10-trigram")
    i, a, b, c = (x.ravel() for x in np.meshgrid(np.arange(3, n + 1), *(np.arange(k),) * 3, indexing="ij"))
    tri = lp.add_variables(prefix + "trigram", np.column_stack([i, a, b, c]), theta[i, a, b, c])
    ui, ux = (x.ravel() for x in np.meshgrid(np.arange(1, n + 1), np.arange(k), indexing="ij"))
    uni = lp.add_variables(prefix + "unigram", np.column_stack([ui, ux]))
    first = i == 3
    lp.add_constraints(
        prefix + "Root",
        [0],
        np.zeros(int(first.sum()), np.int64),
        tri[first],
        np.ones(int(first.sum())),
        1.0,
        1.0,
    )

    rows = functools.partial(_balance_rows, lp, prefix)
    key = lambda *cols: np.column_stack(cols)  # noqa: E731
    rows(
        "Unigram",
        (key(ui, ux), uni),
        (
            np.concatenate([key(i, c), key(1 + 0 * i[first], a[first]), key(2 + 0 * i[first], b[first])]),
            np.concatenate([tri, tri[first], tri[first]]),
        ),
        2,
    )
    nxt, later = i <= n - 1, i >= 4
    if printed:
        skip = i <= n - 2
        rows("Skip", (key(i[skip], c[skip]), tri[skip]), (key(i[i >= 5] - 2, a[i >= 5]), tri[i >= 5]), 2)
        rows("Next", (key(i[nxt], c[nxt]), tri[nxt]), (key(i[later] - 1, b[later]), tri[later]), 2)
    else:
        ahead = (key(i[nxt], b[nxt], c[nxt]), tri[nxt])
        rows("Bigram", ahead, (key(i[later] - 1, a[later], b[later]), tri[later]), 3)
    return lp


def _balance_rows(
    lp: LinearProgram,
    prefix: str,
    name: str,
    plus: tuple[NDArray[np.int64], NDArray[np.int64]],
    minus: tuple[NDArray[np.int64], NDArray[np.int64]],
    index_width: int,
) -> None:
    """Rows Σ (plus columns of a key) − Σ (minus columns of that key) = 0, one per key present; ``plus`` and
    ``minus`` hold (keys (k, width+), columns (k,))."""
    keys = np.concatenate([plus[0], minus[0]])
    labels, local = np.unique(keys, axis=0, return_inverse=True)
    cols = np.concatenate([plus[1], minus[1]])
    vals = np.concatenate([np.ones(plus[1].shape[0]), -np.ones(minus[1].shape[0])])
    lp.add_constraints(prefix + name, labels[:, :index_width], local.ravel(), cols, vals, 0.0, 0.0)
