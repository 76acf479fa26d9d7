"""The dual-decomposition problems of the papers, built from :mod:`lpparse.dd.components`.

* :func:`cfg_tagger` — CKY + trigram tagger agreeing on tags (Rush et al. 2010 §4.1 Fig. 1; Rush & Collins
  2012 §4), with the fractional fixture of Rush et al. 2010 App. A (:func:`r10_appendix_a`);
* :func:`dependency` — Chu-Liu-Edmonds + grandparent/sibling head automata (Koo et al. 2010; Rush & Collins
  2012 §6.1) on the same arc scores and :class:`~lpparse.triples.TripleScorer` as parse-price-cut;
* :func:`mrf` — pairwise MRF MAP by forest decomposition (Rush & Collins 2012 §6.2);
* :func:`held_karp` — TSP by Lagrangian relaxation over 1-trees (Rush & Collins 2012 §6.3);
* :func:`tutorial_toy` — the 3×3 toy of Rush & Collins 2012 §9.3 with its bigram tightening pool (§9.4).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from lpparse.dd.components import (
    ArborescenceComponent,
    EnumeratedComponent,
    HypergraphComponent,
    OneTreeComponent,
    RefinableCKYComponent,
)
from lpparse.dd.core import Agreement, Problem
from lpparse.hypergraph.head_automata import head_automata, head_automata_weights
from lpparse.hypergraph.mrf import forest_hypergraph, forest_weights
from lpparse.hypergraph.tagger import tagger_hypergraph, tagger_weights
from lpparse.trees import allowed_arcs, validate_scores
from lpparse.triples import TripleScorer, candidate_triples

__all__ = [
    "Grammar",
    "cfg_tagger",
    "dependency",
    "dependency_objective",
    "held_karp",
    "mrf",
    "r10_appendix_a",
    "tutorial_toy",
]


def _agreeing_primal(problem: Problem, ys: list[NDArray[np.float64]]) -> tuple[float, list] | None:
    """Re-solve every component forbidding the agreement parts that the first component left at 0; a
    primal if the restricted solutions agree exactly (e.g. the parse and the best tagging of its tags:
    f(y') + g(l(y)) ≥ f(y) + g(l(y)), Rush & Collins 2012 §7). Needs rows y_0[a] − y_k[b] = 0."""
    ag = problem.agreement
    first = ag.A[0].tocoo()
    zero_rows = first.row[ys[0][first.col] == 0]
    vals, sols = 0.0, []
    for k, comp in enumerate(problem.components):
        delta = np.zeros(comp.num_parts)
        delta[ag.A[k][zero_rows].tocoo().col] = -np.inf
        value, y = comp.argmax(delta)
        if value == -np.inf:
            return None
        vals += value
        sols.append(y)
    if np.any(np.abs(ag.residual(sols)) > 1e-9):
        return None
    return vals, sols


@dataclass(frozen=True)
class Grammar:
    """The weighted grammar of CKY: ``num_nonterminals`` non-terminals and the ``rule``, ``tag_rule`` and
    ``root`` weights of :func:`~lpparse.hypergraph.cfg.cky_weights`."""

    num_nonterminals: int
    rule: ArrayLike
    tag_rule: ArrayLike | None = None
    root: ArrayLike | None = None


def cfg_tagger(
    n: int, grammar: Grammar, tags: ArrayLike, tagger: ArrayLike, order: int = 2, tighten: bool = False
) -> Problem:
    """CKY under ``grammar`` and an order-m tagger over the |T| tags (``tagger`` as in
    :func:`~lpparse.hypergraph.tagger.tagger_weights`, tag t meaning non-terminal ``tags[t]``) agreeing on
    y(i, t) = z(i, t) (Rush et al. 2010 Fig. 1), rows labelled (i, tags[t], -1).

    ``tighten``: the pool holds every bigram row y(i, t1, t2) = z(i, t1, t2), labelled (i, tags[t1],
    tags[t2]) (Rush & Collins 2012 §9.4). They are not linear in the plain CKY edges (DD reading note, P12),
    so a row joins only with new columns: ``refine`` refines the CKY hypergraph at its boundary i/i+1 first
    (:class:`RefinableCKYComponent`); the component keeps its refinement, so :func:`compact_lp` with the
    tightened rows then builds the tightened LP."""
    tags = np.asarray(tags, dtype=np.int64)
    k = tags.shape[0]
    cky = RefinableCKYComponent(
        n, grammar.num_nonterminals, tags, grammar.rule, grammar.tag_rule, grammar.root
    )
    tag_hg = tagger_hypergraph(n, k, order)
    comps = [cky, HypergraphComponent(tag_hg, tagger_weights(tag_hg, tagger), "tagger")]
    sizes = [c.num_parts for c in comps]
    labels = cky.hypergraph.part_label
    uni, bi = np.arange(n * k), np.arange(n * k, cky.num_parts)
    problem = Problem(comps, Agreement.equal(sizes, 0, 1, uni, uni, labels[uni]), name="cfg-tagger")
    problem.primal = lambda ys: _agreeing_primal(problem, ys)
    if tighten:
        problem.pool = Agreement.equal(sizes, 0, 1, bi, bi, labels[bi])
        problem.refine = lambda rows: cky.refine(rows.label[:, 0])
    return problem


def r10_appendix_a(negative: float = -1.0, tighten: bool = False) -> Problem:
    """Rush et al. 2010 App. A (DD reading note, fixture F1): N = {A, B, X} = 0, 1, 2, T = {A, B}, n = 3.
    Zero-weight tagger trigrams ⟨(A,A)→A, 3⟩, ⟨(A,B)→B, 3⟩ and zero-weight rules ⟨X → A X, 1, 1, 3⟩, ⟨X → A B,
    2, 2, 3⟩, ⟨X → B A, 2, 2, 3⟩; everything else ``negative``. LP(Q') = 0 at a fractional point; every
    agreeing pair scores below 0."""
    a, b, x = 0, 1, 2
    rule = np.full((3, 3, 3, 4, 4, 4), negative)
    rule[x, a, x, 1, 1, 3] = rule[x, a, b, 2, 2, 3] = rule[x, b, a, 2, 2, 3] = 0.0
    tagger = np.full((4, 3, 3, 2), negative)  # padded trigram weights; START = 2
    tagger[1, 2, 2, :] = tagger[2, 2, :, :] = 0.0  # positions 1, 2 carry no weight of their own
    tagger[3] = negative
    tagger[3, a, a, a] = tagger[3, a, b, b] = 0.0
    return cfg_tagger(3, Grammar(3, rule), [a, b], tagger, tighten=tighten)


def dependency_objective(
    heads: NDArray[np.int64],
    arc_scores: NDArray[np.float64],
    grandparent: NDArray[np.float64] | None = None,
    sibling: NDArray[np.float64] | None = None,
) -> float:
    """Arc + grandparent s(g, p, c) + sibling σ(p, c', c) score of a tree (c' = p for the first modifier
    on each side, consecutive modifiers outward from p)."""
    m = np.arange(1, heads.shape[0])
    total = float(arc_scores[heads[1:], m].sum())
    if grandparent is not None:
        inner = m[heads[m] > 0]
        total += float(grandparent[heads[heads[inner]], heads[inner], inner].sum())
    if sibling is not None:
        for p in range(heads.shape[0]):
            kids = m[heads[1:] == p]
            for side in (kids[kids > p], kids[kids < p][::-1]):
                prev = np.concatenate([[p], side[:-1]])
                total += float(sibling[p, prev, side].sum())
    return total


def dependency(
    arc_scores: ArrayLike,
    triples: TripleScorer | NDArray[np.float64] | None = None,
    sibling: NDArray[np.float64] | None = None,
    single_root: bool = False,
    arc_share: float = 0.0,
) -> Problem:
    """Koo et al. (2010) dual decomposition: a spanning-tree oracle (Chu-Liu-Edmonds, arc scores) and
    one head automaton per head (grandparent triples scored once by ``triples``; sibling scores
    σ[p, c', c]), with rows y(h, m) = out(h, m) (label (0, h, m)) and y(g, p) = in(g, p) (label (1, g, p)).
    ``arc_share`` of every arc score moves from the tree to the head automata's ``out`` parts (the split
    does not change the problem; it makes the first rounds agree more often). The primal of a round is the
    tree's full objective (the tree is always a feasible parse)."""
    s = validate_scores(arc_scores)
    size = s.shape[0]
    mask = allowed_arcs(s)
    gp = np.zeros((size,) * 3)
    if isinstance(triples, np.ndarray):
        gp = triples
    elif triples is not None:
        g, p, c = candidate_triples(mask)
        gp[g, p, c] = triples.score(g, p, c)
    siblings = sibling is not None
    ha = head_automata(mask, siblings)
    movable = mask.copy()
    movable[0] &= siblings  # the root has an automaton (out parts) only with sibling scores
    moved = np.zeros(2 * size * size)
    moved[size * size :] = arc_share * np.where(movable, s, 0.0).ravel()
    comps = [
        ArborescenceComponent(np.where(movable, (1.0 - arc_share) * s, s), single_root, "tree"),
        HypergraphComponent(ha, ha.weights(head_automata_weights(ha, gp, sibling), moved), "automata"),
    ]
    h, m = np.nonzero(mask)
    out = h >= (0 if siblings else 1)
    sizes = [c.num_parts for c in comps]
    ag = Agreement.equal(
        sizes,
        0,
        1,
        (h * size + m)[out],
        size * size + (h * size + m)[out],
        np.column_stack([0 * h, h, m])[out],
    ).join(Agreement.equal(sizes, 0, 1, h * size + m, h * size + m, np.column_stack([1 + 0 * h, h, m])))

    def primal(ys: list[NDArray[np.float64]]) -> tuple[float, NDArray[np.int64]]:
        heads = np.argmax(ys[0].reshape(size, size), axis=0).astype(np.int64)
        heads[0] = -1
        return dependency_objective(heads, s, gp, sibling), heads

    return Problem(comps, ag, primal, name="dependency")


def mrf(
    num_vars: int,
    num_labels: int,
    pairwise: NDArray[np.float64],
    forests: list[ArrayLike],
    unary: ArrayLike | None = None,
) -> Problem:
    """MAP in a pairwise MRF by forest decomposition (Rush & Collins 2012 §6.2): each edge's potential is
    split evenly among the forests holding it, unaries go to the first forest, and every forest agrees with
    the first on every label indicator y_i(x). ``pairwise[i, j]`` (K, K) is the potential of edge (i, j)."""
    count = np.zeros((num_vars, num_vars))
    for f in forests:
        e = np.asarray(f).reshape(-1, 2)
        count[e[:, 0], e[:, 1]] += 1
        count[e[:, 1], e[:, 0]] += 1
    share = pairwise / np.maximum(count, 1)[:, :, None, None]
    comps = []
    for t, f in enumerate(forests):
        hg = forest_hypergraph(num_vars, num_labels, f)
        comps.append(
            HypergraphComponent(hg, forest_weights(hg, share, unary if t == 0 else None), f"forest{t}")
        )
    ids = np.arange(num_vars * num_labels)
    sizes = [c.num_parts for c in comps]
    ag = Agreement.equal(sizes, 0, 1, ids, ids, np.column_stack([np.ones_like(ids), ids]))
    for t in range(2, len(comps)):
        ag = ag.join(Agreement.equal(sizes, 0, t, ids, ids, np.column_stack([np.full_like(ids, t), ids])))
    un = np.zeros((num_vars, num_labels)) if unary is None else np.asarray(unary, dtype=np.float64)
    i, j = np.nonzero(count)

    def primal(ys: list[NDArray[np.float64]]) -> tuple[float, NDArray[np.int64]]:
        x = np.argmax(ys[0].reshape(num_vars, num_labels), axis=1)
        keep = i < j
        value = un[np.arange(num_vars), x].sum() + pairwise[i[keep], j[keep], x[i[keep]], x[j[keep]]].sum()
        value += pairwise[j[keep], i[keep], x[j[keep]], x[i[keep]]].sum()
        return float(value), x

    return Problem(comps, ag, primal, name="mrf")


def held_karp(weights: ArrayLike) -> Problem:
    """Held-Karp (Rush & Collins 2012 §6.3 eqs. 20–22): 1-trees with degree rows Σ_{e∋i} y_e = 2 (one oracle:
    Lagrangian relaxation). A degree-2 1-tree is a tour; its value is the round's primal."""
    comp = OneTreeComponent(np.asarray(weights, dtype=np.float64))
    v, e = comp.weights.shape[0], comp.edges
    cols = np.arange(e.shape[0])
    a = sp.csr_matrix(
        (np.ones(2 * cols.shape[0]), (e.T.ravel(), np.concatenate([cols, cols]))), shape=(v, e.shape[0])
    )
    ag = Agreement([a], np.full(v, 2.0), np.arange(v)[:, None])

    def primal(ys: list[NDArray[np.float64]]) -> tuple[float, NDArray[np.int64]] | None:
        if np.any(a @ ys[0] != 2):
            return None
        return float(comp.weights[e[:, 0], e[:, 1]] @ ys[0]), e[ys[0] > 0]

    return Problem([comp], ag, primal, name="held-karp")


def tutorial_toy(f: ArrayLike, g: ArrayLike) -> Problem:
    """Rush & Collins 2012 §9.3 (DD reading note, fixture F2): n = 2, tags a, b, c; Y = {(a,b), (b,a), (c,c)}
    with scores ``f``, Z = {(a,a), (b,b), (c,c)} with scores ``g``. Parts: unigrams (i, t), id 3(i−1) + t,
    then bigrams (1, t1, t2), id 6 + 3·t1 + t2. Agreement on unigrams; the pool holds the bigram rows of
    §9.4."""

    def vectors(seqs: list[tuple[int, int]]) -> NDArray[np.float64]:
        out = np.zeros((len(seqs), 15))
        for r, (t1, t2) in enumerate(seqs):
            out[r, [t1, 3 + t2, 6 + 3 * t1 + t2]] = 1.0
        return out

    comps = [
        EnumeratedComponent(vectors([(0, 1), (1, 0), (2, 2)]), f, "y"),
        EnumeratedComponent(vectors([(0, 0), (1, 1), (2, 2)]), g, "z"),
    ]
    uni, bi = np.arange(6), np.arange(6, 15)
    sizes = [15, 15]
    ag = Agreement.equal(
        sizes, 0, 1, uni, uni, np.column_stack([uni // 3 + 1, uni % 3, -np.ones(6, np.int64)])
    )
    pool = Agreement.equal(
        sizes, 0, 1, bi, bi, np.column_stack([np.ones(9, np.int64), (bi - 6) // 3, (bi - 6) % 3])
    )
    problem = Problem(comps, ag, pool=pool, name="toy")
    problem.primal = lambda ys: _agreeing_primal(problem, ys)
    return problem
