"""Grandparent and sibling head automata, one per head (Koo, Rush, Collins, Jaakkola & Sontag 2010), as one
hypergraph: the product of the per-head automata under a goal edge.

The automaton of head p > 0 chooses its own head g (part ``in``(g, p)) and any set of modifiers c
(parts ``out``(p, c)), scoring s(g, p, c) per chosen modifier (the grandparent triples of
Riedel, Smith & McCallum (2012) §2.2, via a :class:`lpparse.triples.TripleScorer`) and, with sibling scores,
σ(p, c', c) for consecutive modifiers c', c on the same side (c' = p for the first one, outward from p).
Without sibling scores each modifier is an independent take/skip choice (2 edges per ⟨g, p, c⟩); with them
each side of each (g, p) is a chain, O(n⁴) edges in all (Rush & Collins 2012 §6.1: the head-automaton DP).
With sibling scores the root gets an automaton too (no ``in`` part). Arc scores are not in these automata: the
tree oracle carries them, and agreement ties y(h, m) = out(h, m) = in(h, m).

Parts: ``in``(g, p) id g·(n+1) + p, ``out``(p, c) id (n+1)² + p·(n+1) + c; ``part_label`` (0|1, h, m).

The automata run by the hypergraph passes of :mod:`lpparse.hypergraph.core`, under the semirings of
:mod:`lpparse.dp.semiring` (``MAX``: Viterbi for dual decomposition; ``LOG``: part marginals; ``DUAL_LOG``:
their tangents). They are built as a hypergraph rather than as a chart :class:`~lpparse.dp.chart.Program`:
an automaton ⊗-multiplies all its modifiers' choices (one hyperedge with a tail per modifier, where a chart
rule ⊕-sums over splits of a fixed number of operands), and the grandparent and sibling scores are edge
weights, not parts, so that only the ``in``/``out`` parts that dual decomposition ties to the tree carry
multipliers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.hypergraph.core import Edges, Hypergraph, hypergraph

__all__ = ["head_automata", "head_automata_weights"]


def head_automata(arc_mask: ArrayLike, siblings: bool = False) -> Hypergraph:
    """Head automata over the allowed arcs ``arc_mask`` (n+1, n+1); sibling chains if ``siblings``.

    Edge kinds: ``take`` ⟨g, p, c⟩ (independent modifiers), ``skip`` ⟨g, p, c⟩, ``first`` ⟨g, p, c⟩ and
    ``next`` ⟨g, p, c', c⟩ (chains), ``stop`` ⟨g, p, side, c⟩ (c = -1: empty side), ``head`` ⟨g, p⟩, ``goal``.
    The root's automaton (siblings only) has g = p = 0.
    """
    mask = np.asarray(arc_mask, dtype=bool)
    size = mask.shape[0]
    idx = np.arange(size)
    gg, pp, cc = np.meshgrid(idx, idx, idx, indexing="ij")
    has_head = mask[gg, pp] | ((gg == 0) & (pp == 0) & siblings)  # the root automaton: g = p = 0
    gp = mask | (np.eye(size, dtype=bool) & (idx == 0)[:, None] & siblings)
    heads_g, heads_p = np.nonzero(gp)
    p_node = size**3 + 2 * size * size + idx
    goal = p_node[-1] + 1
    automata = _Automata(size, has_head & mask[pp, cc] & (gg != cc), gp, heads_g, heads_p, p_node)
    edges = _EdgeList()
    if siblings:
        _chain_edges(edges, automata)
    else:
        _independent_edges(edges, automata)
    live = np.unique(heads_p)
    edges.add(
        6, np.array([goal]), np.array([0, live.shape[0]]), p_node[live], np.zeros((1, 1), np.int64), None
    )
    hs = np.arange(size)
    part_label = np.concatenate(
        [
            np.column_stack([np.zeros(size * size, np.int64), np.repeat(hs, size), np.tile(hs, size)]),
            np.column_stack([np.ones(size * size, np.int64), np.repeat(hs, size), np.tile(hs, size)]),
        ]
    )
    return hypergraph(
        num_nodes=goal + 1,
        root=goal,
        edges=edges.edges(("take", "skip", "first", "next", "stop", "head", "goal")),
        part_edge=edges.part_edge(),
        part_label=part_label,
        name="head-automata",
    )


class _Automata(NamedTuple):
    """The automata over an arc mask: ``size`` = n+1, the live triples ⟨g, p, c⟩ (``gpc``) and pairs ⟨g, p⟩
    (``gp``, listed as ``heads_g``, ``heads_p``), and the node of each head p's automaton."""

    size: int
    gpc: NDArray[np.bool_]
    gp: NDArray[np.bool_]
    heads_g: NDArray[np.int64]
    heads_p: NDArray[np.int64]
    p_node: NDArray[np.int64]


@dataclass
class _EdgeList:
    """Edges gathered kind by kind (CSR tails, labels padded to 4 columns) with their part incidences."""

    heads: list[NDArray[np.int64]] = field(default_factory=list)
    tails: list[tuple[NDArray[np.int64], NDArray[np.int64]]] = field(default_factory=list)
    kinds: list[NDArray[np.int64]] = field(default_factory=list)
    labels: list[NDArray[np.int64]] = field(default_factory=list)
    part_ids: list[NDArray[np.int64]] = field(default_factory=list)
    part_edges: list[NDArray[np.int64]] = field(default_factory=list)
    count: int = 0

    def add(
        self,
        kind: int,
        head: NDArray[np.int64],
        tail_ptr: NDArray[np.int64],
        tail: NDArray[np.int64],
        label: NDArray[np.int64],
        parts: NDArray[np.int64] | None,
        at: NDArray[np.int64] | None = None,
    ) -> None:
        """Edges of ``kind``; ``parts``: the part of each (of each edge ``at``, if given), None: no part."""
        k = head.shape[0]
        self.heads.append(head)
        self.tails.append((tail_ptr, tail))
        self.kinds.append(np.full(k, kind))
        self.labels.append(np.pad(label, ((0, 0), (0, 4 - label.shape[1])), constant_values=-1))
        if parts is not None:
            self.part_ids.append(parts)
            self.part_edges.append(self.count + (np.arange(k) if at is None else at))
        self.count += k

    def edges(self, kinds: tuple[str, ...]) -> Edges:
        ptr_all, offset = [np.zeros(1, np.int64)], 0
        for ptr, _ in self.tails:
            ptr_all.append(ptr[1:] + offset)
            offset += ptr[-1]
        tails = (np.concatenate(ptr_all), np.concatenate([tail for _, tail in self.tails]))
        return Edges(
            np.concatenate(self.heads), tails, kinds, np.concatenate(self.kinds), np.concatenate(self.labels)
        )

    def part_edge(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        return np.concatenate(self.part_ids), np.concatenate(self.part_edges)


def _arity(k: int, a: int) -> NDArray[np.int64]:
    """CSR pointers of ``k`` edges with ``a`` tails each."""
    return np.arange(k + 1) * a


def _independent_edges(edges: _EdgeList, automata: _Automata) -> None:
    """Without siblings: a take or skip edge per modifier ⟨g, p, c⟩, and the head edge of each ⟨g, p⟩ over
    all its modifiers' choices."""
    size, heads_g, heads_p = automata.size, automata.heads_g, automata.heads_p
    g, p, c = (x.astype(np.int64) for x in np.nonzero(automata.gpc))
    last = (g * size + p) * size + c
    k = g.shape[0]
    none = np.empty(0, np.int64)
    edges.add(0, last, _arity(k, 0), none, np.column_stack([g, p, c]), size * size + p * size + c)
    edges.add(1, last, _arity(k, 0), none, np.column_stack([g, p, c]), None)
    owner = np.searchsorted(heads_g * size + heads_p, g * size + p)  # (g, p) of each M node, sorted
    ptr = np.concatenate([[0], np.cumsum(np.bincount(owner, minlength=heads_g.shape[0]))])
    edges.add(
        5, automata.p_node[heads_p], ptr, last, np.column_stack([heads_g, heads_p]), heads_g * size + heads_p
    )


def _chain_edges(edges: _EdgeList, automata: _Automata) -> None:
    """With siblings: each side of each ⟨g, p⟩ a chain of modifiers outward from p (first, next, stop), and the
    head edge of each ⟨g, p⟩ over its two sides."""
    size, gpc, heads_g, heads_p = automata.size, automata.gpc, automata.heads_g, automata.heads_p
    idx = np.arange(size)
    n3 = size**3
    g, p, c = (x.astype(np.int64) for x in np.nonzero(gpc))
    last = (g * size + p) * size + c
    k = g.shape[0]
    side = (c > p).astype(np.int64)
    end = n3 + (g * size + p) * 2 + side
    edges.add(
        2, last, _arity(k, 0), np.empty(0, np.int64), np.column_stack([g, p, c]), size * size + p * size + c
    )
    # next: c' strictly between p and c on the same side, c' != g, p -> c' allowed
    g4, p4, c1, c2 = (x.ravel() for x in np.meshgrid(idx, idx, idx, idx, indexing="ij", sparse=False))
    ok = gpc[g4, p4, c1] & gpc[g4, p4, c2] & (((p4 < c1) & (c1 < c2)) | ((c2 < c1) & (c1 < p4)))
    g4, p4, c1, c2 = (x[ok] for x in (g4, p4, c1, c2))
    edges.add(
        3,
        (g4 * size + p4) * size + c2,
        _arity(g4.shape[0], 1),
        (g4 * size + p4) * size + c1,
        np.column_stack([g4, p4, c1, c2]),
        size * size + p4 * size + c2,
    )
    edges.add(4, end, _arity(k, 1), last, np.column_stack([g, p, (c > p).astype(np.int64), c]), None)
    sg, sp_, ss = (x.ravel() for x in np.meshgrid(idx, idx, [0, 1], indexing="ij"))
    live = automata.gp[sg, sp_]
    sg, sp_, ss = sg[live], sp_[live], ss[live]
    ke = sg.shape[0]
    stops = np.column_stack([sg, sp_, ss, -np.ones(ke, np.int64)])
    edges.add(4, n3 + (sg * size + sp_) * 2 + ss, _arity(ke, 0), np.empty(0, np.int64), stops, None)
    both = n3 + (heads_g * size + heads_p)[:, None] * 2 + np.array([0, 1])
    word = heads_p > 0
    edges.add(
        5,
        automata.p_node[heads_p],
        _arity(heads_g.shape[0], 2),
        both.ravel(),
        np.column_stack([heads_g, heads_p]),
        heads_g[word] * size + heads_p[word],
        at=np.flatnonzero(word),
    )


def head_automata_weights(
    hg: Hypergraph, grandparent: ArrayLike | None = None, sibling: ArrayLike | None = None
) -> NDArray[np.float64]:
    """Edge weights: s(g, p, c) (``grandparent``, (n+1,)*3) on every edge choosing c for head p under g, and
    σ(p, c', c) (``sibling``, (n+1,)*3, c' = p for the first modifier) on the chain edges. The root's
    automaton (g = p = 0) gets no grandparent score."""
    theta = np.zeros(hg.num_edges)
    lab = hg.label
    if grandparent is not None:
        s = np.asarray(grandparent, dtype=np.float64)
        for kind in ("take", "first"):
            e = hg.edges_of(kind)
            e = e[lab[e, 1] > 0]
            theta[e] += s[lab[e, 0], lab[e, 1], lab[e, 2]]
        e = hg.edges_of("next")
        e = e[lab[e, 1] > 0]
        theta[e] += s[lab[e, 0], lab[e, 1], lab[e, 3]]
    if sibling is not None:
        sig = np.asarray(sibling, dtype=np.float64)
        e = hg.edges_of("first")
        theta[e] += sig[lab[e, 1], lab[e, 1], lab[e, 2]]
        e = hg.edges_of("next")
        theta[e] += sig[lab[e, 1], lab[e, 2], lab[e, 3]]
    return theta
