"""Acyclic hypergraphs of dynamic programs, with inside and outside passes under the semirings of
:mod:`lpparse.dp.semiring` (max: Viterbi; log: inside-outside; dual-log: their tangents).

A dynamic program is a hypergraph (Klein & Manning 2001; Martin, Rardin & Campbell 1990): nodes are the
items, a hyperedge e = (head(e), tails(e)) derives its head from its tails with weight θ_e, axioms are
given (value one), and the root is the goal. Under a semiring (⊕, ⊗) the inside value of a node is

    β(v) = ⊕_{e: head(e)=v} θ_e ⊗ (⊗_{u ∈ tails(e)} β(u)),        β(axiom) = one.

Edges are stored sorted by the *level* of their head (1 + the deepest tail level), so one level is one
contiguous slice whose tails are all final: a forward pass is one gather, one segment sum and one segment
reduction (``reduceat``) per level. The backward pass pushes a unit of flow down from the root,

    μ_e = μ(head(e)) · w_e,        μ(u) = Σ_{e: u ∈ tails(e)} μ_e,

with w_e the semiring's local weight of the edge in its head's sum: the one-hot best edge of its head (max: μ
is the Viterbi derivation) or the edge's share exp(θ_e ⊗ tails − β(head)) (log: μ are the edge marginals,
i.e. inside-outside). Both are flows that satisfy
the marginal-polytope rows of :mod:`lpparse.formulations.marginal` (Rush et al. 2010 §5.1 eq. 4; Rush &
Collins 2012 §9.5).

*Parts* (tags at positions, arcs, trigrams, ...) are linear in the edges: ``parts`` is a sparse
(num_parts, E) 0/1 matrix, so part indicators (or marginals) are ``parts @ μ`` and part weights w enter the
edge weights as θ + partsᵀ w (how dual decomposition adds its multipliers, Rush et al. 2010 Fig. 1; Rush &
Collins 2012 Fig. 2).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from lpparse.dp.semiring import LOG, MAX, SEMIRINGS, Semiring

__all__ = ["Derivation", "Edges", "Hypergraph", "hypergraph", "inside", "marginals", "outside", "viterbi"]


@dataclass(frozen=True)
class Hypergraph:
    """A DP hypergraph with edges sorted by head level (build it with :func:`hypergraph`).

    ``label`` (E, d) and ``kind`` (E,) name each edge (``kinds[kind[e]]`` is the name of its family, e.g.
    ``rule``/``tag``/``root`` for CKY); ``part_label`` (P, d') names the parts.
    """

    num_nodes: int
    root: int
    axiom: NDArray[np.bool_]  #: (V,) nodes with value one and no incoming edge
    head: NDArray[np.int64]  #: (E,)
    tail_ptr: NDArray[np.int64]  #: (E+1,) CSR pointers into ``tail``
    tail: NDArray[np.int64]  #: tails of all edges, edge by edge
    tail_edge: NDArray[np.int64]  #: edge of each entry of ``tail``
    kinds: tuple[str, ...]
    kind: NDArray[np.int64]
    label: NDArray[np.int64]
    parts: sp.csr_matrix  #: (P, E) part indicators of each edge
    part_label: NDArray[np.int64]
    level_ptr: NDArray[np.int64]  #: edges of level L are level_ptr[L-1]:level_ptr[L]
    name: str = "hypergraph"
    _groups: list[tuple[NDArray[np.int64], NDArray[np.int64]]] = field(default_factory=list, repr=False)

    @property
    def num_edges(self) -> int:
        return int(self.head.shape[0])

    @property
    def num_parts(self) -> int:
        return int(self.parts.shape[0])

    def edges_of(self, kind: str) -> NDArray[np.int64]:
        """Edge ids of the family ``kind``."""
        return np.flatnonzero(self.kind == self.kinds.index(kind))

    def weights(self, base: ArrayLike, part_weights: ArrayLike | None = None) -> NDArray[np.float64]:
        """Edge weights θ + partsᵀ w (``w`` per part, e.g. arc scores or Lagrange multipliers; -inf prunes)."""
        theta = np.array(np.broadcast_to(np.asarray(base, dtype=np.float64), (self.num_edges,)))
        if part_weights is None:
            return theta
        w = np.asarray(part_weights, dtype=np.float64)
        pruned = np.isneginf(w)
        theta += self.parts.T @ np.where(pruned, 0.0, w)
        if pruned.any():
            theta[self.parts.T @ pruned.astype(np.float64) > 0] = -np.inf
        return theta

    def tails_of(self, e: int) -> NDArray[np.int64]:
        return self.tail[self.tail_ptr[e] : self.tail_ptr[e + 1]]


@dataclass(frozen=True)
class Edges:
    """A hypergraph's edges as a builder gives them to :func:`hypergraph`: each edge's ``head`` node, its
    ``tails`` (a list of fixed-arity (E,) arrays, padded with -1 for absent tails, or CSR ``(tail_ptr,
    tail)``), its ``kind`` (an index into ``kinds``, the names of the edge families) and its ``label`` row."""

    head: ArrayLike
    tails: list[ArrayLike] | tuple[ArrayLike, ArrayLike]
    kinds: tuple[str, ...]
    kind: ArrayLike
    label: ArrayLike


def hypergraph(
    num_nodes: int,
    root: int,
    edges: Edges,
    part_edge: tuple[ArrayLike, ArrayLike],
    part_label: ArrayLike,
    axiom: ArrayLike = (),
    name: str = "hypergraph",
) -> Hypergraph:
    """Validate, level and sort a hypergraph.

    ``part_edge = (part ids, edge ids)`` lists the (part, edge) incidences, ``part_label`` names the parts;
    ``axiom`` lists the axiom nodes. Raises ``ValueError`` on a cycle or on out-of-range ids.
    """
    head = np.asarray(edges.head, dtype=np.int64)
    n_e = head.shape[0]
    ptr, flat = _csr_tails(edges.tails, n_e)
    ax = np.zeros(num_nodes, dtype=bool)
    ax[np.asarray(axiom, dtype=np.int64)] = True
    _check_nodes(num_nodes, head, flat, ax)
    level = _levels(num_nodes, head, flat, np.repeat(np.arange(n_e), np.diff(ptr)))
    order = np.lexsort((head, level[head]))
    head = head[order]
    lens = np.diff(ptr)[order]
    new_ptr = np.concatenate([[0], np.cumsum(lens)]).astype(np.int64)
    gather = np.repeat(ptr[:-1][order] - new_ptr[:-1], lens) + np.arange(new_ptr[-1])
    flat = flat[gather]
    inverse = np.empty(n_e, dtype=np.int64)
    inverse[order] = np.arange(n_e)
    pid, peid = (np.asarray(a, dtype=np.int64) for a in part_edge)
    plabel = np.asarray(part_label, dtype=np.int64)
    plabel = plabel[:, None] if plabel.ndim == 1 else plabel
    parts = sp.csr_matrix((np.ones(pid.shape[0]), (pid, inverse[peid])), shape=(plabel.shape[0], n_e))
    lab = np.asarray(edges.label, dtype=np.int64)
    levels = level[head]
    level_ptr = np.searchsorted(levels, np.arange(1, (levels.max() if n_e else 0) + 2))
    hg = Hypergraph(
        num_nodes=num_nodes,
        root=int(root),
        axiom=ax,
        head=head,
        tail_ptr=new_ptr,
        tail=flat,
        tail_edge=np.repeat(np.arange(n_e), lens),
        kinds=tuple(edges.kinds),
        kind=np.broadcast_to(np.asarray(edges.kind, dtype=np.int64), (n_e,))[order].copy(),
        label=(lab[:, None] if lab.ndim == 1 else lab)[order],
        parts=parts,
        part_label=plabel,
        level_ptr=level_ptr.astype(np.int64),
        name=name,
    )
    hg._groups.extend(_head_groups(head, level_ptr))
    return hg


def _check_nodes(
    num_nodes: int, head: NDArray[np.int64], flat: NDArray[np.int64], axiom: NDArray[np.bool_]
) -> None:
    """``ValueError`` for a node id out of range or an axiom with an incoming edge."""
    if head.shape[0] and (
        head.min() < 0
        or head.max() >= num_nodes
        or (flat.size and (flat.min() < 0 or flat.max() >= num_nodes))
    ):
        raise ValueError("node id out of range")
    if axiom[head].any():
        raise ValueError("an axiom has an incoming edge")


def _head_groups(
    head: NDArray[np.int64], level_ptr: NDArray[np.int64]
) -> list[tuple[NDArray[np.int64], NDArray[np.int64]]]:
    """Per level, the heads of its edges (sorted by head) and where each head's edges start."""
    groups = []
    for lo, hi in itertools.pairwise(level_ptr):
        h = head[lo:hi]
        starts = (
            np.flatnonzero(np.concatenate([[True], h[1:] != h[:-1]])) if hi > lo else np.empty(0, np.int64)
        )
        groups.append((h[starts], starts))
    return groups


def _csr_tails(
    tails: list[ArrayLike] | tuple[ArrayLike, ArrayLike], n_e: int
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The tails of :class:`Edges` as CSR ``(tail_ptr, tail)``."""
    if isinstance(tails, tuple):
        ptr, flat = (np.asarray(a, dtype=np.int64) for a in tails)
        return ptr, flat
    cols = np.column_stack([np.asarray(t, dtype=np.int64) for t in tails]) if tails else np.empty((n_e, 0))
    present = cols >= 0
    ptr = np.concatenate([[0], np.cumsum(present.sum(axis=1))]).astype(np.int64)
    return ptr, cols[present].astype(np.int64)


def _levels(
    num_nodes: int, head: NDArray[np.int64], flat: NDArray[np.int64], edge_of_tail: NDArray[np.int64]
) -> NDArray[np.int64]:
    """Each node's level, by relaxation: 1 + the deepest tail of its incoming edges (0 for leaves);
    ``ValueError`` on a cycle."""
    n_e = head.shape[0]
    level = np.zeros(num_nodes, dtype=np.int64)
    for _ in range(num_nodes + 1):
        deepest = np.zeros(n_e, dtype=np.int64)
        np.maximum.at(deepest, edge_of_tail, level[flat])
        new = np.zeros(num_nodes, dtype=np.int64)
        np.maximum.at(new, head, deepest + 1)
        if np.array_equal(new, level):
            return level
        level = new
    raise ValueError("the hypergraph has a cycle")


def inside(
    hg: Hypergraph, theta: ArrayLike, semiring: str = "max"
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Inside values β (V,) and edge scores θ_e ⊗ tails (E,) under ``max`` or ``log`` (log-sum-exp)."""
    if semiring not in ("max", "log"):
        raise ValueError(f"unknown semiring {semiring!r}; choose from ('max', 'log')")
    beta, score, _ = _inside(hg, np.asarray(theta, dtype=np.float64)[None], SEMIRINGS[semiring])
    return beta[0], score[0]


def _inside(
    hg: Hypergraph, theta: NDArray[np.float64], semiring: Semiring
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Inside values (width, V), edge scores (width, E) and each edge's local weight in its head's sum."""
    beta = semiring.zeros((hg.num_nodes,))
    beta[:, hg.axiom] = 0.0
    score = np.empty_like(theta)
    share = np.empty_like(theta)
    for (lo, hi), (heads, starts) in zip(zip(hg.level_ptr[:-1], hg.level_ptr[1:]), hg._groups):
        t0, t1 = hg.tail_ptr[lo], hg.tail_ptr[hi]
        for row in range(semiring.width):
            score[row, lo:hi] = theta[row, lo:hi] + np.bincount(
                hg.tail_edge[t0:t1] - lo, weights=beta[row, hg.tail[t0:t1]], minlength=hi - lo
            )
        beta[:, heads], share[:, lo:hi] = semiring.segment_reduce(score[:, lo:hi], starts)
    return beta, score, share


def outside(
    hg: Hypergraph, theta: ArrayLike, semiring: Semiring
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Root value (width,) and edge adjoints μ_e = d β(root) / d θ_e (width, E), ``theta`` (width, E).

    The adjoints flow down from a unit at the root, μ_e = μ(head(e)) · w_e and μ(u) = Σ_{e: u ∈ tails(e)} μ_e,
    level by level (top first), with w_e the edge's local weight in its head's sum: the Viterbi derivation
    under ``MAX``, the edge marginals under ``LOG``, and those with their tangents under ``DUAL_LOG``.
    """
    beta, _, share = _inside(hg, np.asarray(theta, dtype=np.float64), semiring)
    node = np.zeros((semiring.width, hg.num_nodes))
    node[:, hg.root] = semiring.unit()
    mu = np.zeros_like(share)
    for lo, hi in zip(hg.level_ptr[-2::-1], hg.level_ptr[:0:-1]):
        mu[:, lo:hi] = semiring.mul(node[:, hg.head[lo:hi]], share[:, lo:hi])
        t0, t1 = hg.tail_ptr[lo], hg.tail_ptr[hi]
        for row in range(semiring.width):
            node[row] += np.bincount(
                hg.tail[t0:t1], weights=mu[row, hg.tail_edge[t0:t1]], minlength=hg.num_nodes
            )
    return beta[:, hg.root], mu


@dataclass
class Derivation:
    """Best derivation: its value, 0/1 edge indicators and 0/1 (or counted) part indicators."""

    value: float
    edges: NDArray[np.float64]
    parts: NDArray[np.float64]


def viterbi(hg: Hypergraph, theta: ArrayLike) -> Derivation:
    """Max-semiring inside pass plus back-pointers (first best edge per head on ties).

    The value is -inf, with empty indicators, when the root is unreachable.
    """
    value, mu = outside(hg, np.asarray(theta, dtype=np.float64)[None], MAX)
    if value[0] == -np.inf:
        return Derivation(-np.inf, np.zeros(hg.num_edges), np.zeros(hg.num_parts))
    return Derivation(float(value[0]), mu[0], hg.parts @ mu[0])


def marginals(hg: Hypergraph, theta: ArrayLike) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
    """``(log Z, edge marginals, part marginals)`` by inside-outside in log space."""
    log_z, mu = outside(hg, np.asarray(theta, dtype=np.float64)[None], LOG)
    if log_z[0] == -np.inf:
        return -np.inf, np.zeros(hg.num_edges), np.zeros(hg.num_parts)
    return float(log_z[0]), mu[0], hg.parts @ mu[0]
