"""Primal heuristics for exact grandparent decoding: trees whose (recomputed) score is a lower bound.

* rounding: the maximum arborescence under an LP solution's arc values (Riedel, Smith & McCallum 2012,
  "Parse, Price and Cut—Delayed Column and Row Generation for Graph Based Parsers", EMNLP-CoNLL 2012, §3:
  map a fractional point onto the trees);
* :func:`improve_tree`: hill climbing over single head changes (the neighbourhood of McDonald & Pereira
  2006, "Online Learning of Approximate Dependency Parsing Algorithms", EACL 2006, §3.2, here for
  non-projective grandparent scores), scoring only the triples a move touches;
* :func:`improve_along_lp`: the same climb for any part families, over the head changes an LP solution puts
  weight on, each candidate tree scored whole (:func:`lpparse.families.base.tree_scores`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

import numpy as np
from numpy.typing import NDArray

from lpparse.colgen.cache import ScoreCache
from lpparse.families.base import Parts, tree_scores

__all__ = ["improve_along_lp", "improve_tree", "lp_moves", "move_gains", "tree_value"]


def tree_value(arc_scores: NDArray[np.float64], cache: ScoreCache | None, heads: NDArray[np.int64]) -> float:
    """Arc plus triple score of a tree, its triples scored through ``cache`` (each at most once; None: arcs
    only)."""
    m = np.arange(1, heads.size)
    value = float(arc_scores[heads[1:], m].sum())
    c = m[heads[1:] > 0]
    if c.size and cache is not None:
        p = heads[c]
        value += float(cache.get(heads[p], p, c).sum())
    return value


def _ancestors(heads: NDArray[np.int64]) -> NDArray[np.bool_]:
    """anc[x, a]: a is x or an ancestor of x (the root 0 included)."""
    size = heads.size
    anc = np.zeros((size, size), bool)
    cur = np.arange(size)
    alive = np.ones(size, bool)
    while alive.any():
        anc[np.flatnonzero(alive), cur[alive]] = True
        alive &= cur > 0
        cur = np.where(alive, heads[np.maximum(cur, 0)], 0)
    return anc


def _movable(heads: NDArray[np.int64], allowed: NDArray[np.bool_], single_root: bool) -> NDArray[np.bool_]:
    """ok[h', m]: m may take head h' instead of heads[m] among the ``allowed`` arcs and stay in the trees (h'
    neither m nor below it; under ``single_root`` the root's only child keeps the root, no other takes it)."""
    size = heads.size
    m_all = np.arange(size)
    old = np.where(m_all > 0, heads, 0)
    ok = allowed & ~_ancestors(heads)  # h' below m (or m itself) would close a cycle
    ok[old, m_all] = False
    ok[:, 0] = False
    if single_root:
        ok[1:, old == 0] = False  # m is the root's only child
        ok[0, old > 0] = False
    return ok


def move_gains(
    arc_scores: NDArray[np.float64], cache: ScoreCache, heads: NDArray[np.int64], single_root: bool
) -> NDArray[np.float64]:
    """gain[h', m]: change of the tree's score when m takes head h' instead of heads[m], -inf where the
    move leaves the trees or the candidate arcs (finite ``arc_scores``). Scores the triples the moves touch:
    m's own ⟨heads[h'], h', m⟩ and its children's ⟨h', m, c⟩."""
    size = heads.size
    m_all = np.arange(size)
    old = np.where(m_all > 0, heads, 0)
    ok = _movable(heads, np.isfinite(arc_scores), single_root)
    hh, mm = np.nonzero(ok)
    gain = np.full((size, size), -np.inf)
    if hh.size == 0:
        return gain
    value = arc_scores[hh, mm] - arc_scores[old[mm], mm]
    word = hh > 0  # m's own triple after the move
    value[word] += cache.get(heads[hh[word]], hh[word], mm[word])
    c = np.flatnonzero((m_all > 0) & (old > 0))  # every token with a word head: its triple before
    own = np.zeros(size)
    own[c] = cache.get(heads[old[c]], old[c], c)
    value -= own[mm]
    # the children c of m keep m as head but their triple ⟨heads[m], m, c⟩ becomes ⟨h', m, c⟩
    moved = ok[:, old[c]]  # (h', c): c's head m = old[c] may move to h'
    ph, pc = np.nonzero(moved)
    if ph.size:
        after = np.zeros((size, size))
        np.add.at(after, (ph, old[c[pc]]), cache.get(ph, old[c[pc]], c[pc]))
        before = np.bincount(old[c], own[c], size)  # Σ over m's children c of ⟨heads[m], m, c⟩
        value += after[hh, mm] - before[mm]
    gain[hh, mm] = value
    return gain


def improve_tree(
    arc_scores: NDArray[np.float64],
    cache: ScoreCache,
    heads: NDArray[np.int64],
    single_root: bool,
    max_moves: int | None = None,
    min_gain: float = 1e-9,
) -> tuple[NDArray[np.int64], int]:
    """Hill climbing from ``heads``: the single head change of largest gain (:func:`move_gains`) while it
    gains more than ``min_gain``, at most ``max_moves`` times (default n); returns the tree and the number
    of moves. Every touched triple is scored once, through ``cache``."""
    heads = heads.copy()
    limit = heads.size - 1 if max_moves is None else max_moves
    moves = 0
    while moves < limit:
        gain = move_gains(arc_scores, cache, heads, single_root)
        h, m = np.unravel_index(int(np.argmax(gain)), gain.shape)
        if not gain[h, m] > min_gain:
            break
        heads[m] = h
        moves += 1
    return heads, moves


def lp_moves(
    heads: NDArray[np.int64], arc_values: NDArray[np.float64], single_root: bool, tol: float = 1e-6
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """The head changes (h', m) that keep a tree and that the LP's ``arc_values`` put weight on (> ``tol``):
    the alternatives a fractional LP point mixes into the tree."""
    ok = _movable(heads, arc_values > tol, single_root)
    hh, mm = np.nonzero(ok)
    return hh.astype(np.int64), mm.astype(np.int64)


def improve_along_lp(  # long: the search's state at a node, and the climb's three limits
    arc_scores: NDArray[np.float64],
    parts: Sequence[Parts],
    caches: Mapping[str, ScoreCache] | None,
    heads: NDArray[np.int64],
    arc_values: NDArray[np.float64],
    single_root: bool,
    max_moves: int | None = None,
    min_gain: float = 1e-9,
    deadline: float | None = None,
) -> tuple[NDArray[np.int64], int]:
    """Hill climbing from ``heads`` for any part families: the head change of :func:`lp_moves` whose tree
    scores highest, whole (arcs and every family's parts, through ``caches``, each part scored at most once;
    None: by the scorers),
    while it gains more than ``min_gain``, at most ``max_moves`` times (default n) and until ``deadline`` (a
    ``time.perf_counter()`` value); each climb weighs the 4n moves of largest LP value at most (a dense LP
    point, such as an unpruned sibling model's, offers thousands). Returns the tree and the number of
    moves."""
    heads = heads.copy()
    value = float(tree_scores(arc_scores, parts, heads[None], caches)[0])
    limit = heads.size - 1 if max_moves is None else max_moves
    moves = 0
    while moves < limit and (deadline is None or time.perf_counter() < deadline):
        hh, mm = lp_moves(heads, arc_values, single_root)
        if hh.size == 0:
            break
        if hh.size > 4 * limit:
            top = np.argsort(-arc_values[hh, mm], kind="stable")[: 4 * limit]
            hh, mm = hh[top], mm[top]
        trees = np.repeat(heads[None], hh.size, axis=0)
        trees[np.arange(hh.size), mm] = hh
        values = tree_scores(arc_scores, parts, trees, caches)
        best = int(np.argmax(values))
        if not values[best] > value + min_gain:
            break
        heads, value = trees[best], float(values[best])
        moves += 1
    return heads, moves
