"""CKY for a weighted CFG in Chomsky normal form as a hypergraph (Rush et al. 2010 §3, Fig. 2; Rush & Collins
2012 §4.1), optionally refined at tag boundaries for bigram tightening (Rush & Collins 2012 §9.4; DD reading
note, P12, A12).

Non-terminals 0..G-1, of which ``tags`` (|T| = K of them) may sit on a word. Nodes (A, i, j), 1 ≤ i ≤ j ≤ n,
plus the goal; hyperedges are the paper's index set I' in three families:

* ``rule``  ⟨A → B C, i, k, j⟩: (A, i, j) ← (B, i, k) (C, k+1, j), label (A, B, C, i, k, j, f, t1, t2, l);
* ``tag``   (i, A) for A a tag: (A, i, i) ← (no tails), label (i, A), part (i, A) = μ(i, A) of Rush et al.
  2010 eq. 7;
* ``root``  A: goal ← (A, 1, n), label (A,), the root row of Rush et al. 2010 eq. 5.

A non-tag over a single word has no incoming edge, so it is dead: the leaf restriction of the DD reading note,
P2(a). n = 1 needs no special case (goal ← (A, 1, 1) ← tag).

**Refinement at boundaries** i/i+1 (DD reading note, P12: the bigram y(i, t1, t2) is not linear in the plain
rule variables, since adjacent leaves may lie in different subtrees). For every boundary i in ``boundaries``,
a node whose span ends at i carries its last tag l, and a node whose span starts at i+1 carries its first tag
f (the Bar-Hillel construction of the DD reading note, A12, only at these points; -1 = not carried). The one
rule edge splitting at k = i then sees both tags, t1 (last of its left child) and t2 (first of its right
child), so the bigram is the sum of those edges: linear in the refined edges. Unrefined, the label's last four
entries are -1.

Parts: unigrams (i, t), id (i-1)·K + t, label (i, tags[t], -1); then bigrams (i, t1, t2) for i = 1..n-1,
id n·K + (i-1)·K² + t1·K + t2 (the tagger's layout, :mod:`lpparse.hypergraph.tagger`), label
(i, tags[t1], tags[t2]). Bigram parts have edges only at refined boundaries.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.hypergraph.core import Edges, Hypergraph, hypergraph

__all__ = ["cky_hypergraph", "cky_weights"]


def _expand(cols: list[NDArray[np.int64]], need: NDArray[np.bool_], k: int) -> list[NDArray[np.int64]]:
    """Repeat every row k times where ``need`` (appending the copy index 0..k-1), else once (appending -1)."""
    reps = np.where(need, k, 1)
    start = np.cumsum(reps) - reps
    copy = np.arange(int(reps.sum())) - np.repeat(start, reps)
    return [np.repeat(c, reps) for c in cols] + [np.where(np.repeat(need, reps), copy, -1)]


def _refined(n: int, boundaries: Iterable[int]) -> NDArray[np.bool_]:
    """(n+2,) flags of the refined tag boundaries i/i+1 (1 ≤ i < n, else ValueError)."""
    refined = np.zeros(n + 2, dtype=bool)
    b = np.asarray(sorted(set(boundaries)), dtype=np.int64)
    if b.size and (b.min() < 1 or b.max() >= n):
        raise ValueError(f"boundaries must lie in 1..{n - 1}, got {b.tolist()}")
    refined[b] = True
    return refined


def _rule_edges(
    g: int, size: int, tags: NDArray[np.int64], refined: NDArray[np.bool_]
) -> list[NDArray[np.int64]]:
    """The binary rule edges A -> B C over spans i..k, k+1..j, as columns a, b, c, i, k, j and the tags they
    fix at refined boundaries: f (first tag), t1, t2 (across the split), l (last tag); -1 where none. A
    single-word child must carry the tag it fixes."""
    kt = tags.shape[0]
    tag_index = np.full(g, -1)
    tag_index[tags] = np.arange(kt)
    a, bb, c, i, k, j = (
        x.ravel() for x in np.meshgrid(*(np.arange(g),) * 3, *(np.arange(1, size),) * 3, indexing="ij")
    )
    keep = (i <= k) & (k < j)
    cols = [x[keep] for x in (a, bb, c, i, k, j)]
    cols = _expand(cols, refined[cols[3] - 1], kt)  # f: first tag, if a boundary ends just before i
    cols = _expand(cols, refined[cols[4]], kt * kt)  # (t1, t2) across the split, if k is a boundary
    cols = _expand(cols, refined[cols[5]], kt)  # l: last tag, if j is a boundary
    a, bb, c, i, k, j, f, pair, l = cols
    t1, t2 = np.where(pair >= 0, pair // kt, -1), np.where(pair >= 0, pair % kt, -1)

    def single_word_ok(child: NDArray, lo: NDArray, hi: NDArray, *marks: NDArray) -> NDArray[np.bool_]:
        ok = np.ones(child.shape[0], dtype=bool)
        for mark in marks:
            ok &= (lo != hi) | (mark < 0) | (mark == tag_index[child])
        return ok

    keep = single_word_ok(bb, i, k, f, t1) & single_word_ok(c, k + 1, j, t2, l)
    return [x[keep] for x in (a, bb, c, i, k, j, f, t1, t2, l)]


def cky_hypergraph(
    n: int, num_nonterminals: int, tags: ArrayLike, boundaries: Iterable[int] = ()
) -> Hypergraph:
    """The CKY hypergraph for n words and G non-terminals, ``tags`` ⊆ 0..G-1 allowed on words, refined at
    the tag boundaries i/i+1 listed in ``boundaries`` (1 ≤ i < n; module docstring)."""
    if n < 1:
        raise ValueError(f"need at least one word, got n={n}")
    g = num_nonterminals
    tags = np.asarray(tags, dtype=np.int64)
    kt = tags.shape[0]
    size = n + 1
    refined = _refined(n, boundaries)

    def node(a: NDArray, i: NDArray, j: NDArray, f: NDArray, l: NDArray) -> NDArray[np.int64]:
        return (((a * size + i) * size + j) * (kt + 1) + f + 1) * (kt + 1) + l + 1

    a, bb, c, i, k, j, f, t1, t2, l = _rule_edges(g, size, tags, refined)
    n_rule = a.shape[0]
    ti, tt = (x.ravel() for x in np.meshgrid(np.arange(1, size), np.arange(kt), indexing="ij"))
    n_tag = ti.shape[0]
    goal = g * size * size * (kt + 1) ** 2
    roots = np.arange(g)
    label = np.full((n_rule + n_tag + g, 10), -1)
    label[:n_rule] = np.column_stack([a, bb, c, i, k, j, f, t1, t2, l])
    label[n_rule : n_rule + n_tag, :2] = np.column_stack([ti, tags[tt]])
    label[n_rule + n_tag :, 0] = roots
    ones, none = np.ones(g, np.int64), np.full(g, -1)
    leaf_f = np.where(refined[ti - 1], tt, -1)
    leaf_l = np.where(refined[ti], tt, -1)
    bigram = np.flatnonzero(t1 >= 0)
    bi_i, bi_1, bi_2 = (x.ravel() for x in np.meshgrid(np.arange(1, n), tags, tags, indexing="ij"))
    return hypergraph(
        num_nodes=goal + 1,
        root=goal,
        edges=Edges(
            head=np.concatenate(
                [node(a, i, j, f, l), node(tags[tt], ti, ti, leaf_f, leaf_l), np.full(g, goal)]
            ),
            tails=[
                np.concatenate(
                    [node(bb, i, k, f, t1), np.full(n_tag, -1), node(roots, ones, n * ones, none, none)]
                ),
                np.concatenate([node(c, k + 1, j, t2, l), np.full(n_tag + g, -1)]),
            ],
            kinds=("rule", "tag", "root"),
            kind=np.repeat([0, 1, 2], [n_rule, n_tag, g]),
            label=label,
        ),
        part_edge=(
            np.concatenate(
                [(ti - 1) * kt + tt, n * kt + (k[bigram] - 1) * kt * kt + t1[bigram] * kt + t2[bigram]]
            ),
            np.concatenate([n_rule + np.arange(n_tag), bigram]),
        ),
        part_label=np.concatenate(
            [np.column_stack([ti, tags[tt], np.full(n_tag, -1)]), np.column_stack([bi_i, bi_1, bi_2])]
        ),
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
    unused) and ``root`` θ(A) of shape (G,) (both default 0). Refined copies of a rule share its weight."""
    rule = np.asarray(rule, dtype=np.float64)
    lab = hg.label
    theta = np.zeros(hg.num_edges)
    r = hg.edges_of("rule")
    theta[r] = rule[tuple(lab[r, :6].T)] if rule.ndim == 6 else rule[tuple(lab[r, :3].T)]
    if tag is not None:
        t = hg.edges_of("tag")
        theta[t] = np.asarray(tag, dtype=np.float64)[lab[t, 0], lab[t, 1]]
    if root is not None:
        t = hg.edges_of("root")
        theta[t] = np.asarray(root, dtype=np.float64)[lab[t, 0]]
    return theta
