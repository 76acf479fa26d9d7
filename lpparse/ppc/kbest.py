"""The k best trees under arcs and part families, each proved.

Murty's partition (Murty 1968, "An Algorithm for Ranking all the Assignments in Order of Increasing Cost",
Operations Research 16(3); for arborescences Camerini, Fratta & Maffioli 1980, "The k Best Spanning
Arborescences of a Network", Networks 10(2)) over the arc sets that exact decoding already searches
(:func:`lpparse.ppc.exact.exact_search`). A *subproblem* is an arc mask; its best tree comes with a proof. When
the best tree T of a subproblem M is listed, M is replaced by its children: for the modifiers m1 < m2 < ...
whose column in M holds more than one head (the others are forced), child i keeps T's head of m1..m(i-1) as
their only head and drops T's head of mi. A tree of M other than T first differs from T at one such
modifier, so the children partition the trees of M but T. Subproblems wait in a queue by their best score;
the best one's tree is the next best tree, as every tree not yet listed is in some waiting subproblem, whose
proved optimum is no better. The K-th tree is proved when every subproblem left waiting has an optimum at
most its score (or no tree).

:func:`check_kbest` re-checks a result: each tree's score recomputed, the trees distinct and best first, each
solved subproblem's proof (:func:`lpparse.ppc.exact.check_proof` on its masked arcs), the children of every
split subproblem rebuilt from its mask and tree, and every subproblem left unsplit bounded by the K-th score.
"""

from __future__ import annotations

import heapq
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.lp.solution import Status
from lpparse.ppc.exact import ExactOptions, ExactResult, check_proof, exact_search
from lpparse.ppc.parts import Parts, tree_score
from lpparse.trees import NoTreeError, allowed_arcs, tree_problem, validate_scores

__all__ = ["KBest", "Subproblem", "check_kbest", "k_best_search"]


@dataclass
class Subproblem:
    """An arc ``mask`` of the partition; ``parent`` (-1: the root) and ``split``: its children's ids once its
    tree is listed; ``result``: its exact search (None: no tree over its arcs avoids the pruned parts, or
    it was never solved)."""

    id: int
    parent: int
    mask: NDArray[np.bool_]
    result: ExactResult | None = None
    children: tuple[int, ...] = ()
    listed: bool = False
    empty: bool = False  #: no tree over the mask (or none without a pruned part)


@dataclass
class KBest:
    """The best trees, best first, as (heads, score) pairs, and the partition that proves them; ``status``
    OPTIMAL when ``k`` trees (or every tree) were listed and proved, else the limit that stopped the search."""

    k: int
    trees: list[tuple[NDArray[np.int64], float]] = field(default_factory=list)
    subproblems: list[Subproblem] = field(default_factory=list)
    status: Status = Status.OPTIMAL
    seconds: float = 0.0


def _children_masks(mask: NDArray[np.bool_], heads: NDArray[np.int64]) -> list[NDArray[np.bool_]]:
    """Murty's children of the subproblem ``mask`` after its tree ``heads`` (module docstring)."""
    out = []
    current = mask.copy()
    for m in range(1, heads.size):
        if current[:, m].sum() <= 1:
            continue  # forced: its only head is the tree's
        child = current.copy()
        child[heads[m], m] = False
        out.append(child)
        current[:, m] = False
        current[heads[m], m] = True
    return out


def k_best_search(
    arc_scores: ArrayLike,
    parts: Sequence[Parts],
    k: int,
    single_root: bool = False,
    time_limit: float | None = None,
    options: ExactOptions | None = None,
) -> KBest:
    """The ``k`` best distinct trees under the arcs and the families ``parts``, best first, with a proof
    (module docstring). ``time_limit``: seconds for the whole search (each subproblem's exact search gets
    what is left); at the limit the trees listed so far are proved and ``status`` says TIME_LIMIT."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    start = time.perf_counter()
    s = validate_scores(arc_scores)
    out = KBest(k)
    queue: list[tuple[float, int]] = []

    def add(mask: NDArray[np.bool_], parent: int) -> Subproblem | None:
        sub = Subproblem(len(out.subproblems), parent, mask)
        out.subproblems.append(sub)
        if tree_problem(mask, single_root) is not None:
            sub.empty = True
            return sub
        left = None if time_limit is None else time_limit - (time.perf_counter() - start)
        if left is not None and left <= 0:
            return None
        try:
            sub.result = exact_search(np.where(mask, s, -np.inf), parts, single_root, left, options)
        except NoTreeError:
            if parent < 0:
                raise
            sub.empty = True
            return sub
        if sub.result.status is not Status.OPTIMAL:
            return None
        heapq.heappush(queue, (-sub.result.objective, sub.id))
        return sub

    if add(allowed_arcs(s), -1) is None:
        out.status = out.subproblems[0].result.status if out.subproblems[0].result else Status.TIME_LIMIT
    while queue and len(out.trees) < k and out.status is Status.OPTIMAL:
        _, i = heapq.heappop(queue)
        sub = out.subproblems[i]
        assert sub.result is not None and sub.result.heads is not None
        sub.listed = True
        out.trees.append((sub.result.heads.copy(), float(sub.result.objective)))
        if len(out.trees) == k:
            break
        ids = []
        for child in _children_masks(sub.mask, sub.result.heads):
            made = add(child, sub.id)
            if made is None:  # a limit: the trees so far stay proved
                out.status = Status.TIME_LIMIT
                break
            ids.append(made.id)
        sub.children = tuple(ids)
    out.seconds = time.perf_counter() - start
    return out


def check_kbest(
    arc_scores: ArrayLike, parts: Sequence[Parts], result: KBest, single_root: bool
) -> str | None:
    """Why ``result`` does not prove its trees the best, in order (None when it does): module docstring."""
    s = validate_scores(arc_scores)
    subs = result.subproblems
    if not subs or subs[0].parent != -1 or not np.array_equal(subs[0].mask, allowed_arcs(s)):
        return "the first subproblem is not every candidate arc"
    listed = [sub for sub in subs if sub.listed]
    if len(listed) != len(result.trees):
        return f"{len(result.trees)} trees but {len(listed)} subproblems listed"
    last = -np.inf
    seen: set[bytes] = set()
    for rank, (heads, score) in enumerate(result.trees):
        value = tree_score(s, parts, heads)
        if abs(value - score) > 1e-9 * (1.0 + abs(value)):
            return f"tree {rank + 1}: score {score!r} is not its recomputed {value!r}"
        if heads.tobytes() in seen:
            return f"tree {rank + 1} is listed twice"
        seen.add(heads.tobytes())
        if rank and score > last + 1e-9 * (1.0 + abs(last)):
            return f"tree {rank + 1} scores above tree {rank}"
        last = score
    kth = result.trees[-1][1] if result.trees else np.inf
    last_listed = next(
        (
            sub.id
            for sub in subs
            if sub.listed
            and result.trees
            and sub.result is not None
            and np.array_equal(sub.result.heads, result.trees[-1][0])
        ),
        None,
    )
    for sub in subs:
        if sub.parent >= 0:
            parent = subs[sub.parent]
            if sub.id not in parent.children or not parent.listed:
                return f"subproblem {sub.id} is not a child of a listed subproblem"
        if sub.empty:
            if tree_problem(sub.mask, single_root) is None:
                return f"subproblem {sub.id}: closed as empty, but trees exist over its arcs (unproved)"
            continue
        if sub.result is None:
            return f"subproblem {sub.id} was never solved"
        problem = check_proof(np.where(sub.mask, s, -np.inf), parts, sub.result)
        if problem is not None:
            return f"subproblem {sub.id}: {problem}"
        if not sub.listed:
            if sub.children:
                return f"subproblem {sub.id} is split but its tree is not listed"
            if sub.result.objective > kth + 1e-9 * (1.0 + abs(kth)):
                return f"subproblem {sub.id} holds a tree scoring {sub.result.objective!r}, above the last listed"
            continue
        if not any(np.array_equal(sub.result.heads, h) for h, _ in result.trees):
            return f"subproblem {sub.id}: its tree is not listed"
        kids = [subs[i].mask for i in sub.children]
        if sub.id == last_listed and len(result.trees) == result.k:
            if kids:
                return f"subproblem {sub.id}: the last tree's subproblem is split"
            continue
        expected = _children_masks(sub.mask, sub.result.heads)  # type: ignore[arg-type]
        if len(kids) != len(expected) or any(not np.array_equal(a, b) for a, b in zip(kids, expected)):
            return f"subproblem {sub.id}: its children are not Murty's partition"
    return None
