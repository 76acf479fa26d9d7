"""Maximum spanning arborescence rooted at 0: Chu-Liu-Edmonds with in-place cycle contraction.

Every token takes its best incoming arc; each cycle of that greedy graph is contracted into one of its
nodes (the representative) inside the same score matrix: arcs into the cycle are re-scored by
``S[u, v] - S[head(v), v]`` and the best one kept per source, arcs out of it keep their best source.
Contracting a cycle costs O(n |C|), so the whole run costs O(n^2) plus O(n) per contraction; a cycle
created by a contraction passes through the new node, so only that node is walked again.

Single root (exact): Zmigrod, Vieira & Cotterell (2020, "Please mind the root"), after Gabow & Tarjan
(1984). While the greedy graph is acyclic but the root has several children, swap the root arc whose
replacement by the next-best incoming arc of its target loses least for that arc, and go on contracting
(the root arc stays in the graph: if the swap closes a cycle, the contracted cycle may enter by it).
Expansion undoes the contractions in reverse order (the cycle arcs stay except the one into the node
that the chosen entering arc reaches).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.trees import NoTreeError, allowed_arcs, check_tree_exists, validate_scores

__all__ = ["chu_liu_edmonds", "chu_liu_edmonds_valid"]


@dataclass
class _Contraction:
    rep: int  #: the cycle node that stands for the contracted cycle
    members: NDArray[np.int64]
    cycle_heads: NDArray[np.int64]  #: heads of ``members`` along the cycle
    entry: NDArray[np.int64]  #: entry[u] = member reached by the best arc from u into the cycle
    exit: NDArray[np.int64]  #: exit[v] = member that is the best source of an arc to v


def _cycle_from(head: NDArray[np.int64], start: int) -> list[int] | None:
    """The cycle through ``start`` in the functional graph ``head`` (None if ``start`` is on none)."""
    path = [start]
    seen = {start}
    v = int(head[start])
    while v > 0 and v not in seen:
        path.append(v)
        seen.add(v)
        v = int(head[v])
    return path if v == start else None


def _all_cycles(head: NDArray[np.int64]) -> list[list[int]]:
    """All (disjoint) cycles of the greedy graph ``head`` over every token (walked as Python lists: a
    sentence's tokens are few)."""
    heads = head.tolist()
    state = [0] * len(heads)  # 0 new, 1 on the current walk, 2 done
    cycles = []
    for start in range(1, len(heads)):
        walk = []
        v = start
        while v > 0 and state[v] == 0:
            state[v] = 1
            walk.append(v)
            v = heads[v]
        if v > 0 and state[v] == 1:
            cycles.append(walk[walk.index(v) :])
        for u in walk:
            state[u] = 2
    return cycles


def _contract(
    w: NDArray[np.float64], head: NDArray[np.int64], alive: NDArray[np.bool_], cycle: list[int]
) -> _Contraction:
    members = np.asarray(cycle, dtype=np.int64)
    rep = int(members[0])
    cycle_heads = head[members]
    into = w[:, members] - w[cycle_heads, members]  # gain of entering the cycle at each member
    into[members] = -np.inf
    entry_idx = into.argmax(axis=1)
    out = w[members]
    out_idx = out.argmax(axis=0)
    record = _Contraction(rep, members, cycle_heads, members[entry_idx], members[out_idx])
    every = np.arange(w.shape[0])
    into_best = into[every, entry_idx]
    out_best = out[out_idx, every]
    w[:, rep] = into_best
    w[rep, :] = out_best
    w[rep, members] = -np.inf
    dead = members[1:]
    w[dead, :] = -np.inf
    w[:, dead] = -np.inf
    alive[dead] = False
    in_cycle = np.zeros(w.shape[0], dtype=bool)
    in_cycle[members] = True
    head[alive & in_cycle[np.maximum(head, 0)]] = rep
    head[rep] = int(w[:, rep].argmax())
    return record


def _expand(head: NDArray[np.int64], alive: NDArray[np.bool_], record: _Contraction) -> None:
    rep = record.rep
    entering_from = int(head[rep])
    pointing = (alive & (head == rep)).nonzero()[0]
    head[pointing] = record.exit[pointing]
    head[record.members] = record.cycle_heads
    head[record.entry[entering_from]] = entering_from
    alive[record.members] = True


class _Unsure(Exception):
    """A guarded run (:func:`_arborescence`) met a best head of weight -inf (or NaN): there may be no tree."""


def chu_liu_edmonds(scores: ArrayLike, single_root: bool = False) -> NDArray[np.int64]:
    """Heads of a maximum-score (non-projective) dependency tree rooted at 0.

    Raises ``ValueError`` on invalid scores and :class:`~lpparse.trees.NoTreeError` when no tree exists
    over the finite-score arcs.
    """
    s = validate_scores(scores)
    check_tree_exists(s, single_root)
    return _arborescence(s, single_root)


def chu_liu_edmonds_valid(s: NDArray[np.float64], single_root: bool = False) -> NDArray[np.int64]:
    """:func:`chu_liu_edmonds` of scores already valid (a float64 (n+1, n+1) array with no NaN nor +inf
    among its arcs, as :func:`lpparse.trees.validate_scores` returns them), for callers that know it (the
    k-best bounds' refinement): the same heads, and :class:`~lpparse.trees.NoTreeError` when no tree exists
    over the finite-score arcs, without asking first (:func:`lpparse.trees.check_tree_exists`, as costly as
    the algorithm on a short sentence): single root, two tokens with no finite head but the root; else the
    algorithm guarded, which meets a best head of weight -inf on the way when no tree exists (a token with
    none, a contracted cycle none enters, a root child no word can replace), and only then asks."""
    if single_root:
        only_root = (s[0, 1:] > -np.inf) & ~(allowed_arcs(s)[1:, 1:]).any(axis=0)
        if np.count_nonzero(only_root) > 1:
            raise NoTreeError(
                f"no single-root dependency tree exists: tokens {(np.flatnonzero(only_root) + 1).tolist()} "
                "have no head but the root"
            )
    try:
        return _arborescence(s, single_root, guarded=True)
    except _Unsure:
        check_tree_exists(s, single_root)  # none: NoTreeError; else a contraction's weights overflowed
        return _arborescence(s, single_root)


def _arborescence(s: NDArray[np.float64], single_root: bool, guarded: bool = False) -> NDArray[np.int64]:
    """The algorithm (module docstring) over valid scores ``s`` over whose finite arcs a tree exists; or,
    ``guarded``, over any valid scores, stopped (:class:`_Unsure`) at a best head of weight -inf or NaN (the
    guards only read: a guarded run that ends gives the unguarded run's heads, a tree of finite arcs)."""
    size = s.shape[0]
    w = s.copy()
    w[:, 0] = -np.inf
    w.ravel()[:: size + 1] = -np.inf  # the diagonal
    head = w.argmax(axis=0)
    head[0] = -1
    if guarded and not (w[head[1:], np.arange(1, size)] > -np.inf).all():
        raise _Unsure
    alive = np.ones(size, dtype=bool)
    pending = _all_cycles(head)
    records = []
    while True:
        while pending:
            record = _contract(w, head, alive, pending.pop())
            if guarded and not w[head[record.rep], record.rep] > -np.inf:
                raise _Unsure
            records.append(record)
            cycle = _cycle_from(head, record.rep)
            if cycle is not None:
                pending.append(cycle)
        if not single_root:
            break
        roots = (alive & (head == 0)).nonzero()[0]
        if len(roots) <= 1:
            break
        second = w[1:, roots].max(axis=0)
        movable = second > -np.inf  # a root child with no other head stays (else a loop, or a -inf arc)
        if not movable.any():  # none can move: no tree, or weights that overflowed in the contractions
            if guarded:
                raise _Unsure
            raise NoTreeError("no single-root tree found: the contractions' weights overflowed")
        roots, second = roots[movable], second[movable]
        drop = int(roots[(w[0, roots] - second).argmin()])
        head[drop] = 1 + int(w[1:, drop].argmax())  # the root arc stays: a contraction may use it
        cycle = _cycle_from(head, drop)
        if cycle is not None:
            pending.append(cycle)
    for record in reversed(records):
        _expand(head, alive, record)
    head[0] = -1
    return head.astype(np.int64)
