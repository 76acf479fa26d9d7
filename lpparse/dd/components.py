"""Oracles for dual decomposition, each with its polytope for the compact LP (Rush & Collins 2012 §9.5; DD
reading note, P7).

* :class:`HypergraphComponent`: any DP (:mod:`lpparse.hypergraph`), Viterbi oracle, marginal polytope;
* :class:`RefinableCKYComponent`: CKY that refines its hypergraph at tag boundaries for bigram
  tightening (Rush & Collins 2012 §9.4; DD reading note, P12);
* :class:`ArborescenceComponent`: Chu-Liu-Edmonds over arcs, multi-commodity flow polytope (exact);
* :class:`OneTreeComponent`: the 1-tree oracle of Held-Karp (Rush & Collins 2012 §6.3), spanning-tree flow
  polytope;
* :class:`EnumeratedComponent`: an explicit list of structures (toys), the simplex of Rush & Collins 2012 §9.1
  (DD reading note, OP5).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from scipy.sparse.csgraph import minimum_spanning_tree

from lpparse.formulations.arborescence import multi_commodity_flow
from lpparse.formulations.marginal import marginal_polytope
from lpparse.hypergraph.cfg import cky_hypergraph, cky_weights
from lpparse.hypergraph.core import Hypergraph, viterbi
from lpparse.lp import LinearProgram
from lpparse.oracles import chu_liu_edmonds
from lpparse.trees import validate_scores

__all__ = [
    "ArborescenceComponent",
    "EnumeratedComponent",
    "HypergraphComponent",
    "OneTreeComponent",
    "RefinableCKYComponent",
    "append_program",
]


def append_program(target: LinearProgram, source: LinearProgram, prefix: str) -> NDArray[np.int64]:
    """Copy every block of ``source`` into ``target`` under ``prefix + name``; return the new column of
    each source column (how a stand-alone formulation becomes a piece of a compact LP)."""
    new_col = np.empty(source.num_cols, dtype=np.int64)
    for name, block in source.var_blocks.items():
        pos = block.positions
        new_col[pos] = target.add_variables(
            prefix + name,
            block.index,
            source.cost[pos],
            source.col_lower[pos],
            source.col_upper[pos],
            block.integer,
        )
    a = source.A.tocsr()
    for name, block in source.con_blocks.items():
        pos = block.positions
        sub = a[pos].tocoo()
        target.add_constraints(
            prefix + name,
            block.index,
            sub.row,
            new_col[sub.col],
            sub.data,
            source.row_lower[pos],
            source.row_upper[pos],
        )
    return new_col


@dataclass
class HypergraphComponent:
    """A dynamic program: max (θ + partsᵀ δ)·μ by Viterbi; conv(Y) is its marginal polytope."""

    hypergraph: Hypergraph
    theta: NDArray[np.float64]
    name: str = "dp"

    @property
    def num_parts(self) -> int:
        return self.hypergraph.num_parts

    def argmax(self, delta: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        d = viterbi(self.hypergraph, self.hypergraph.weights(self.theta, delta))
        return d.value, d.parts

    def polytope(self, lp: LinearProgram, prefix: str) -> sp.csr_matrix:
        # edge indicators are integral in the ILP, so Solution.integral tells a fractional vertex apart
        return marginal_polytope(self.hypergraph, self.theta, lp, prefix, integer=True).part_matrix()


class RefinableCKYComponent(HypergraphComponent):
    """CKY (:func:`cky_hypergraph`) whose parts are the unigram tags and every bigram (i, t1, t2).

    At a refined boundary the bigram is linear in the hyperedges, so it may carry multipliers and enter
    agreement rows (DD reading note, P12: tightening is joint row and column generation). At an unrefined
    boundary the oracle still reports it, as the product y(i, t1)·y(i+1, t2) of its integral tags (what a pool
    of candidate rows is checked against), but it has no column: call :meth:`refine` before any row or
    multiplier uses it. Refining keeps the set of derivations and their scores (a bijection).
    """

    def __init__(
        self,
        n: int,
        num_nonterminals: int,
        tags: ArrayLike,
        rule: ArrayLike,
        tag_rule: ArrayLike | None = None,
        root: ArrayLike | None = None,
        name: str = "cfg",
    ) -> None:
        self.n, self.num_nonterminals, self.tags = n, num_nonterminals, np.asarray(tags, dtype=np.int64)
        self.rule, self.tag_rule, self.root = rule, tag_rule, root
        self.boundaries: tuple[int, ...] = ()
        self.name = name
        self.refine(())

    def refine(self, boundaries: ArrayLike) -> None:
        """Add the boundaries i/i+1 (1 ≤ i < n) to the refined ones and rebuild the hypergraph."""
        self.boundaries = tuple(sorted(set(self.boundaries) | {int(i) for i in np.ravel(boundaries)}))
        self.hypergraph = cky_hypergraph(self.n, self.num_nonterminals, self.tags, self.boundaries)
        self.theta = cky_weights(self.hypergraph, self.rule, self.tag_rule, self.root)

    def argmax(self, delta: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        k, n = self.tags.shape[0], self.n
        bigrams = delta[n * k :].reshape(max(n - 1, 0), k * k)
        loose = np.setdiff1d(np.arange(1, n), self.boundaries) - 1
        if np.any(bigrams[loose] != 0):
            raise ValueError("a multiplier on a bigram at an unrefined boundary: refine it first")
        value, y = super().argmax(delta)
        uni = y[: n * k].reshape(n, k)
        y[n * k :].reshape(-1, k * k)[loose] = (uni[loose, :, None] * uni[loose + 1, None, :]).reshape(
            -1, k * k
        )
        return value, y


@dataclass
class ArborescenceComponent:
    """Non-projective trees: Chu-Liu-Edmonds on S + δ; parts are the (n+1)² arcs (id h·(n+1) + m)."""

    scores: NDArray[np.float64]
    single_root: bool = False
    name: str = "tree"

    def __post_init__(self) -> None:
        self.scores = validate_scores(self.scores)

    @property
    def num_parts(self) -> int:
        return self.scores.size

    def argmax(self, delta: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        size = self.scores.shape[0]
        s = self.scores + delta.reshape(size, size)
        heads = chu_liu_edmonds(s, self.single_root)
        y = np.zeros((size, size))
        m = np.arange(1, size)
        y[heads[1:], m] = 1.0
        return float(s[heads[1:], m].sum()), y.ravel()

    def polytope(self, lp: LinearProgram, prefix: str) -> sp.csr_matrix:
        """The multi-commodity flow LP (exact: it projects onto the arborescence polytope)."""
        src = multi_commodity_flow(self.scores, self.single_root)
        cols = append_program(lp, src, prefix)[src.cols("z")]
        arcs = src.var_blocks["z"].index
        size = self.scores.shape[0]
        ids = arcs[:, 0] * size + arcs[:, 1]
        return sp.csr_matrix((np.ones(ids.shape[0]), (ids, cols)), shape=(self.num_parts, lp.num_cols))


def _edges(v: int) -> NDArray[np.int64]:
    i, j = np.triu_indices(v, 1)
    return np.column_stack([i, j])


@dataclass
class OneTreeComponent:
    """1-trees on vertices 0..V-1 (vertex 0 plays the tutorial's vertex 1): a maximum spanning tree on
    1..V-1 plus the two best edges at 0 (Rush & Collins 2012 §6.3). Parts are the edges (i < j) in
    ``triu_indices`` order."""

    weights: NDArray[np.float64]  #: (V, V) symmetric edge scores θ_e
    name: str = "one-tree"
    edges: NDArray[np.int64] = field(init=False)

    def __post_init__(self) -> None:
        self.weights = np.asarray(self.weights, dtype=np.float64)
        self.edges = _edges(self.weights.shape[0])

    @property
    def num_parts(self) -> int:
        return int(self.edges.shape[0])

    def argmax(self, delta: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        v = self.weights.shape[0]
        w = self.weights[self.edges[:, 0], self.edges[:, 1]] + delta
        rest = self.edges[:, 0] > 0
        cost = np.zeros((v, v))
        cost[self.edges[rest, 0], self.edges[rest, 1]] = (
            w[rest].max() - w[rest] + 1.0
        )  # > 0: min tree = max tree
        tree = minimum_spanning_tree(sp.csr_matrix(cost)).tocoo()
        y = np.zeros(self.num_parts)
        lo, hi = np.minimum(tree.row, tree.col), np.maximum(tree.row, tree.col)
        y[np.searchsorted(self.edges[:, 0] * v + self.edges[:, 1], lo * v + hi)] = 1.0
        at0 = np.flatnonzero(~rest)
        y[at0[np.argsort(-w[at0], kind="stable")[:2]]] = 1.0
        return float(w @ y), y

    def polytope(self, lp: LinearProgram, prefix: str) -> sp.csr_matrix:
        """Spanning trees of 1..V-1 as arborescences rooted at 1 (multi-commodity flow, x_ij = z_ij + z_ji)
        plus edges at 0 in [0, 1] summing to 2."""
        v = self.weights.shape[0]
        arb = np.full(
            (v - 1, v - 1), -np.inf
        )  # node k of the arborescence is vertex k + 1, root 0 = vertex 1
        i, j = np.meshgrid(np.arange(1, v), np.arange(1, v), indexing="ij")
        off = i != j
        arb[off] = self.weights[i[off], j[off]]
        arb[:, 0] = -np.inf
        src = multi_commodity_flow(arb)
        zcols = append_program(lp, src, prefix)[src.cols("z")]
        arcs = src.var_blocks["z"].index + 1
        lo, hi = np.minimum(arcs[:, 0], arcs[:, 1]), np.maximum(arcs[:, 0], arcs[:, 1])
        key = self.edges[:, 0] * v + self.edges[:, 1]
        ids = np.searchsorted(key, lo * v + hi)
        at0 = np.flatnonzero(self.edges[:, 0] == 0)
        ecols = lp.add_variables(
            prefix + "x0", self.edges[at0], self.weights[0, self.edges[at0, 1]], 0.0, 1.0
        )
        lp.add_constraints(
            prefix + "Degree0", [0], np.zeros(at0.shape[0], np.int64), ecols, np.ones(at0.shape[0]), 2.0, 2.0
        )
        rows = np.concatenate([ids, at0])
        cols = np.concatenate([zcols, ecols])
        return sp.csr_matrix((np.ones(rows.shape[0]), (rows, cols)), shape=(self.num_parts, lp.num_cols))


@dataclass
class EnumeratedComponent:
    """An explicit finite set: ``structures`` (S, P) 0/1 part vectors with ``scores`` (S,). Ties go to the
    first structure; conv(Y) is the simplex of Rush & Collins 2012 §9.1 (variables α_y, Σ α = 1)."""

    structures: ArrayLike
    scores: ArrayLike
    name: str = "enum"

    def __post_init__(self) -> None:
        self.structures = np.asarray(self.structures, dtype=np.float64)
        self.scores = np.asarray(self.scores, dtype=np.float64)

    @property
    def num_parts(self) -> int:
        return int(self.structures.shape[1])

    def argmax(self, delta: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        forbidden = np.isneginf(delta)
        total = self.scores + self.structures @ np.where(forbidden, 0.0, delta)
        total[(self.structures[:, forbidden] > 0).any(axis=1)] = -np.inf
        best = int(np.argmax(total))
        return float(total[best]), self.structures[best].copy()

    def polytope(self, lp: LinearProgram, prefix: str) -> sp.csr_matrix:
        k = self.structures.shape[0]
        cols = lp.add_variables(prefix + "alpha", np.arange(k), self.scores, integer=True)
        lp.add_constraints(prefix + "Simplex", [0], np.zeros(k, np.int64), cols, np.ones(k), 1.0, 1.0)
        coo = sp.coo_matrix(self.structures.T)
        return sp.csr_matrix((coo.data, (coo.row, cols[coo.col])), shape=(self.num_parts, lp.num_cols))
