"""The k best trees under arcs and part families, each proved.

Murty's partition (Murty 1968, "An Algorithm for Ranking all the Assignments in Order of Increasing Cost",
Operations Research 16(3); for arborescences Camerini, Fratta & Maffioli 1980, "The k Best Spanning
Arborescences of a Network", Networks 10(2)) over the arc sets that exact decoding already searches
(:func:`lpparse.ppc.exact.exact_search`). A *subproblem* is an arc mask; its best tree comes with a proof.
When the best tree T of a subproblem M is listed, M is replaced by its children: for the modifiers m1 < m2 <
... whose column in M holds more than one head (the others are forced), child i keeps T's head of m1..m(i-1)
as their only head and drops T's head of mi (:func:`lpparse.ppc.kbest_proof.murty_child`). A tree of M other
than T first differs from T at one such modifier, so the children partition the trees of M but T.
Subproblems wait in a queue by their best score; the best one's tree is the next best tree, as every tree not
yet listed is in some waiting subproblem, whose proved optimum is no better. The K-th tree is proved when
every subproblem left waiting has an optimum at most its score (or no tree).

A subproblem whose arcs carry trees that all hold a pruned part (scored -inf) has none of finite score: its
exact search raises NoTreeError, and the nodes of that search (every leaf infeasible: no tree over its arcs,
or a dual ray) are its proof (:func:`lpparse.ppc.kbest_proof.no_tree_problem`).

:func:`check_kbest` re-checks a result as :func:`lpparse.ppc.kbest_proof.check_kbest_record` checks its
record, both through :func:`lpparse.ppc.kbest_proof.partition_problem`: each tree's score recomputed, the
trees distinct and best first, each subproblem's mask rebuilt from its parent's mask and tree and its proof
checked over it, and every subproblem left unsplit bounded by the K-th score.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.lp.solution import TOL, Status
from lpparse.ppc.exact import ExactOptions, ExactResult, _Parts, _Search, exact_search
from lpparse.ppc.kbest_proof import Piece, murty_child, murty_modifiers, partition_problem
from lpparse.ppc.loop import _validated
from lpparse.ppc.parts import Parts, exact_parts, tree_score
from lpparse.trees import NoTreeError, allowed_arcs, tree_problem, validate_scores

__all__ = ["KBest", "Subproblem", "check_kbest", "k_best_search"]


@dataclass
class Subproblem:
    """An arc ``mask`` of the partition: Murty's child of ``parent`` (-1: the root) at ``modifier`` (None:
    the root); ``result``: its exact search (heads None: the nodes that prove no tree of finite score exists;
    None: no tree over its arcs, or never solved); ``rank``: its tree's position in the list (None: not
    listed); ``children``: its children's ids once its tree is listed. The check reads ``parent``,
    ``modifier``, ``rank`` and ``result`` only: masks and children are rebuilt."""

    id: int
    parent: int
    modifier: int | None
    mask: NDArray[np.bool_]
    result: ExactResult | None = None
    children: tuple[int, ...] = ()
    rank: int | None = None
    empty: bool = False  #: no tree over its arcs, or none of finite score

    @property
    def listed(self) -> bool:
        return self.rank is not None


@dataclass
class KBest:
    """The best trees, best first, as (heads, score) pairs, and the partition that proves them; ``status``
    OPTIMAL when ``k`` trees (or every tree) were listed and proved, else the limit that stopped the
    search."""

    k: int
    trees: list[tuple[NDArray[np.int64], float]] = field(default_factory=list)
    subproblems: list[Subproblem] = field(default_factory=list)
    status: Status = Status.OPTIMAL
    seconds: float = 0.0


def _no_tree_search(
    s: NDArray[np.float64],
    parts: Sequence[Parts],
    single_root: bool,
    time_limit: float | None,
    options: ExactOptions | None,
) -> ExactResult | None:
    """The search of :func:`exact_search` over ``s`` that found no tree of finite score, run again for its
    nodes (exact_search drops them when it raises NoTreeError); None when a limit stops it."""
    opts = options or ExactOptions()
    parts = exact_parts(parts)
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    search = _Search(_Parts(_validated(s, parts), parts, single_root), single_root, opts, deadline)
    search.new_node(None)
    status = search.run()
    if status is not Status.OPTIMAL or search.best is not None:
        return None
    nodes, stats, tol = search.nodes, search.stats, opts.gap_tol
    return ExactResult(status, None, math.nan, -math.inf, single_root, tol, nodes, stats, base=opts.base)


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

    def add(mask: NDArray[np.bool_], parent: int, modifier: int | None) -> Subproblem | None:
        sub = Subproblem(len(out.subproblems), parent, modifier, mask)
        out.subproblems.append(sub)
        if tree_problem(mask, single_root) is not None:
            sub.empty = True
            return sub
        left = None if time_limit is None else time_limit - (time.perf_counter() - start)
        if left is not None and left <= 0:
            return None
        masked = np.where(mask, s, -np.inf)
        try:
            sub.result = exact_search(masked, parts, single_root, left, options)
        except NoTreeError:
            if parent < 0:
                raise
            left = None if time_limit is None else time_limit - (time.perf_counter() - start)
            sub.result = _no_tree_search(masked, parts, single_root, left, options)
            sub.empty = sub.result is not None
            return sub if sub.empty else None
        if sub.result.status is not Status.OPTIMAL:
            return None
        heapq.heappush(queue, (-sub.result.objective, sub.id))
        return sub

    if add(allowed_arcs(s), -1, None) is None:
        out.status = out.subproblems[0].result.status if out.subproblems[0].result else Status.TIME_LIMIT
    while queue and len(out.trees) < k and out.status is Status.OPTIMAL:
        _, i = heapq.heappop(queue)
        sub = out.subproblems[i]
        assert sub.result is not None and sub.result.heads is not None
        sub.rank = len(out.trees)
        out.trees.append((sub.result.heads.copy(), float(sub.result.objective)))
        if len(out.trees) == k:
            break
        ids = []
        for m in murty_modifiers(sub.mask):
            made = add(murty_child(sub.mask, sub.result.heads, m), sub.id, m)
            if made is None:  # a limit: the trees so far stay proved
                out.status = Status.TIME_LIMIT
                break
            ids.append(made.id)
        sub.children = tuple(ids)
    out.seconds = time.perf_counter() - start
    return out


def check_kbest(
    arc_scores: ArrayLike, parts: Sequence[Parts], result: KBest, single_root: bool, gap_tol: float = TOL
) -> str | None:
    """Why ``result`` does not prove its trees the best, in order (None when it does), under the root rule
    and the gap tolerance given (not its proofs'): :func:`lpparse.ppc.kbest_proof.partition_problem` on its
    trees, its partition's shape and its subproblems' searches, and each tree's score as recomputed."""
    s = validate_scores(arc_scores)
    pieces = [Piece(sub.parent, sub.modifier, sub.rank) for sub in result.subproblems]
    trees = [heads for heads, _ in result.trees]
    problem = partition_problem(
        s, parts, result.k, trees, pieces, lambda i, _: result.subproblems[i].result, single_root, gap_tol
    )
    if problem is not None:
        return problem
    for rank, (heads, score) in enumerate(result.trees):
        value = tree_score(s, parts, heads)
        if not abs(value - score) <= 1e-9 * (1.0 + abs(value)):
            return f"tree {rank + 1}: score {score!r} is not its recomputed {value!r}"
    return None
