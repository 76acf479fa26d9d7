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

from lpparse.trees import check_tree_exists, validate_scores

__all__ = ["chu_liu_edmonds"]


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


def _all_cycles(head: NDArray[np.int64], alive: NDArray[np.bool_]) -> list[list[int]]:
    """All (disjoint) cycles of the greedy graph over the alive tokens."""
    state = np.zeros(head.shape[0], dtype=np.int8)  # 0 new, 1 on the current walk, 2 done
    cycles = []
    for start in np.flatnonzero(alive[1:]) + 1:
        walk = []
        v = int(start)
        while v > 0 and state[v] == 0:
            state[v] = 1
            walk.append(v)
            v = int(head[v])
        if v > 0 and state[v] == 1:
            cycles.append(walk[walk.index(v) :])
        state[walk] = 2
    return cycles


def _contract(w: NDArray[np.float64], head: NDArray[np.int64], alive: NDArray[np.bool_], cycle: list[int]) -> _Contraction:
    members = np.asarray(cycle, dtype=np.int64)
    rep = int(members[0])
    cycle_heads = head[members].copy()
    into = w[:, members] - w[cycle_heads, members]  # gain of entering the cycle at each member
    into[members] = -np.inf
    entry_idx = np.argmax(into, axis=1)
    out_idx = np.argmax(w[members], axis=0)
    record = _Contraction(rep, members, cycle_heads, members[entry_idx], members[out_idx])
    into_best = into[np.arange(w.shape[0]), entry_idx]
    out_best = w[members, :][out_idx, np.arange(w.shape[0])]
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
    head[rep] = int(np.argmax(w[:, rep]))
    return record


def _expand(head: NDArray[np.int64], alive: NDArray[np.bool_], record: _Contraction) -> None:
    rep = record.rep
    entering_from = int(head[rep])
    pointing = np.flatnonzero(alive & (head == rep))
    head[pointing] = record.exit[pointing]
    head[record.members] = record.cycle_heads
    head[record.entry[entering_from]] = entering_from
    alive[record.members] = True


def chu_liu_edmonds(scores: ArrayLike, single_root: bool = False) -> NDArray[np.int64]:
    """Heads of a maximum-score (non-projective) dependency tree rooted at 0.

    Raises ``ValueError`` on invalid scores and :class:`~lpparse.trees.NoTreeError` when no tree exists
    over the finite-score arcs.
    """
    s = validate_scores(scores)
    check_tree_exists(s, single_root)
    size = s.shape[0]
    w = s.copy()
    w[:, 0] = -np.inf
    np.fill_diagonal(w, -np.inf)
    head = np.argmax(w, axis=0)
    head[0] = -1
    alive = np.ones(size, dtype=bool)
    pending = _all_cycles(head, alive)
    records = []
    while True:
        while pending:
            record = _contract(w, head, alive, pending.pop())
            records.append(record)
            cycle = _cycle_from(head, record.rep)
            if cycle is not None:
                pending.append(cycle)
        roots = np.flatnonzero(alive & (head == 0))
        if not single_root or len(roots) <= 1:
            break
        second = np.max(w[1:, roots], axis=0)
        drop = int(roots[np.argmin(w[0, roots] - second)])
        head[drop] = 1 + int(np.argmax(w[1:, drop]))  # the root arc stays: a contraction may use it
        cycle = _cycle_from(head, drop)
        if cycle is not None:
            pending.append(cycle)
    for record in reversed(records):
        _expand(head, alive, record)
    head[0] = -1
    return head.astype(np.int64)
