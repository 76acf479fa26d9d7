"""The k best trees under arcs and part families, each proved.

Murty's partition (Murty 1968, "An Algorithm for Ranking all the Assignments in Order of Increasing Cost",
Operations Research 16(3); for arborescences Camerini, Fratta & Maffioli 1980, "The k Best Spanning
Arborescences of a Network", Networks 10(2)) over the arc sets that exact decoding already searches
(:func:`lpparse.exact.search.exact_search`). A *subproblem* is an arc mask; its best tree comes with a proof.
When the best tree T of a subproblem M is listed, M is replaced by its children: for the modifiers m1, m2,
... whose column in M holds more than one head (the others are forced), in an order chosen below, child i
keeps T's head of m1..m(i-1) as their only head and drops T's head of mi
(:func:`lpparse.proofs.kbest.murty_child`). A tree of M other than T first differs from T, in that order, at
one such modifier, so the children partition the trees of M but T.

**The order** (:func:`_murty_order`). Any order partitions M; it decides how large the children are whose
trees compete. The modifiers go by the best tree one head change away from T at each (its move gain,
:func:`lpparse.exact.heuristics.move_gains`, grandparent family alone; else the parent's arc bound on the
trees that give it another head), lowest first: the modifiers whose other heads are poor come first, their
children (few heads fixed) closed by their parent's bound, and those where the next trees lie come last,
their children with nearly every head fixed, so small that enumeration or a bound settles them. Italian
dev, the first 30 sentences, K = 5, against increasing modifiers: 1,862 -> 995 subproblems, 462 -> 380
searched (before the devices below).

**Lazily** (Lawler 1972, "A Procedure for Computing the K Best Solutions to Discrete Optimization Problems
and its Application to the Shortest Path Problem", Management Science 18(7): a subproblem is solved only
when it can still hold one of the K best): a child waits unsolved in the queue under a bound its parent
proved. Every tree of child i uses one of its heads h of mi, and the parent's root LP bounds the trees that
use h→mi by reduced costs, UB + d + ε (:func:`lpparse.exact.search._arc_bounds`, reduced-cost fixing's bound):
the largest over the child's heads of mi bounds the child. The queue pops the subproblem of largest key
(bound, or a solved one's tree score, the solved first on a tie): a waiting one is solved and goes back
under its tree's score; a solved one's tree is the next best tree, as every tree not yet listed is in some
waiting subproblem, whose key is no lower. The K-th tree is proved once listed: every subproblem left
waiting has a key at most its score, and those never solved are *closed by their parent's bound*.

**Tree bounds.** The root LPs of trained models are dual degenerate: many arcs keep reduced cost 0, and the
arc bound of most children is their parent's score (Italian dev: 57 of 73 subproblems searched on a
25-token sentence). Before its search, a subproblem popped from the queue is bounded by the root duals of
its nearest searched ancestor over its trees as a whole (:class:`lpparse.proofs.kbest.ClosingBound`,
estimated by :func:`_estimate`): UB + the arborescence of largest reduced cost over its arcs, each arc p→c
with its best triple ⟨g, p, c⟩ over the subproblem's heads g of p (exact where it fixes p's head), the
absent triples' reduced costs from their scores (every candidate triple scored once a sentence). It goes
back under the smaller key. Popped again, that bound is *refined* by branching on heads
(:meth:`lpparse.proofs.kbest.ClosingBound.refined`, at most a quarter of the branches the check allows):
the max over g lets a token's children take grandparents other than its head, and the arborescence that sets
the bound is mostly no tree of its own value (Italian dev, the children of 6 free tokens or more that the
bound left open: its own reduced costs 6.9 below the K-th best score at the median, the bound 0.7 above).
Refined below the K-th best score found outside it, the subproblem waits under that score; when a tree found
inside it (or its parent tree's best head change at its modifier, :attr:`_Lazy.moves`) scores above that,
the refined bound at that tree's score makes it the subproblem's best, *solved by the bound*, never searched.
(Grandparent family alone; the check recomputes the bounds for any families.) Where the ancestor's duals
fail, often because a tree of the subproblem has its own reduced costs above the limit while it scores
below it (only the subproblem's own LP gives duals complementary to that tree), a subproblem of at most
:data:`SCORE_FREE` free tokens is bounded by its scores alone, refined the same way
(:func:`lpparse.proofs.kbest.score_bound`: no duals, a branch-and-bound over its free tokens' heads; the
record's ``"closed": "scores"``). English dev, the first 30 sentences, K = 5: 201 -> 101 searches, CPU time
-10%; Hungarian -20%. Left open still, it is bounded by both together, the smaller at every branch of one
refinement (:class:`lpparse.proofs.kbest.PairedBound`, ``"closed": "paired"``): the duals settle the large
branches at once, the scores the branches that hold a tree the duals overrate. English, the same sentences:
101 -> 43 searches, CPU time -7 to -10% (each pairing 6 ms, a search 13); Hungarian and Italian -8%. Only then
is it searched. But not when the ancestor's duals alone ran out of branches (:data:`REFINE_BRANCHES` / 4):
the pair then runs out too (Hungarian dev, every fourth sentence from #1, K = 5: of 107 such pairings 8
closed, 0.9 s of 20), and the subproblem is searched at once (interleaved A/B: Hungarian dev #100-#299 and
#300-#440 -3.5% and -9.7%, English #0-#399 -11.3%, the same lists).

**Small subproblems are enumerated**: at most :data:`lpparse.proofs.kbest.ENUMERATE` head choices, every
tree over its arcs scored (:func:`lpparse.trees.mask_trees`), no LP. Italian dev, the first 30 sentences, K =
5: 89 searches (30 of them the roots) instead of 380, 66 subproblems solved by the bound, 46 enumerated.
Such a subproblem is enumerated the first time it is popped, no bound tried before: enumerating costs what
its first tree bound would (0.2 ms on average), and its key is then its best tree's score, which no bound is
below (English dev, 300 sentences from #300, K = 5: CPU time -7%, the same lists and searches).

**Searches stop at the K-th best found.** A child's search need not find its best tree when that scores
below the K-th tree: it starts with the K-th best score of the distinct trees found so far outside the child
(the solved subproblems' trees, and the best trees one or two head changes away from each listed tree,
:func:`_neighbours`, which set that score early) as its incumbent's (:class:`lpparse.exact.search.RootStart`
``lower``); its node LPs stop at that cutoff, and a search that finds no tree above it returns none, its
nodes proving every tree of the subproblem at most that score, hence at most the K-th tree's
(:func:`lpparse.proofs.kbest.no_tree_problem` with the K-th score as the limit). The trees found inside the
child do not count, so none of them is lost.

**Children price every triple.** The grandparent family's pricing takes at most
:data:`lpparse.colgen.options.PER_PAIR` triples per arc a round so as to score few (partial pricing); by a
child's search every candidate triple is scored (for the tree bounds), so its LPs price every triple of
positive reduced cost: fewer rounds (Hungarian dev #100-#299, K = 5, interleaved A/B: CPU time -5%, the same
lists; with the pairs of :data:`PAIRED`, the whole dev set's K = 5 against K = 1 3.26x -> 3.15x).

**Children stop at their own duals.** A child's root LP that stops at its cutoff (or ends below it) while
columns still price proves nothing by itself: its bound holds for the restricted master only, and the LP
goes on, round after round, to its optimum. But the tree bound of any duals bounds every tree
(:class:`lpparse.proofs.kbest.ClosingBound`): of its own round's duals (:class:`_OwnDuals`, every candidate
triple scored) it is often at most the K-th best score found rounds before the LP ends, and the search stops
there, its root closed as ``tree`` (the check recomputes that bound from the node's duals:
:func:`lpparse.proofs.kbest.no_tree_problem`). Hungarian dev, every fourth sentence from #1, K = 5: 72 of the
127 children searched stop so; interleaved A/B on #100-#299 and #300-#440: CPU time -3.7% and -3.8%, the
same lists.

**What is kept.** All subproblems' searches share one score cache per family (each part scored once for the
sentence, :meth:`lpparse.exact.search._Parts.over`); a child's root LP solves on a copy of its parent's root
master, as bound changes (:class:`lpparse.exact.search.RootStart` ``live``), or else starts from its parent's
root LP columns and final basis. Of a search, a subproblem keeps its proof alone (tree, nodes with their duals
or rays, statistics): no LP, master or cache; of a solved subproblem waiting to be listed, also its root's arc
bounds (an (n+1, n+1) array, until its children are made); of a listed one, its root LP's columns and basis
(its children's start); of every searched one that holds a tree, its tree bound's estimate (the reduced costs
of its arcs and of every candidate triple, an (n+1)³ array: K of them listed at most, and the few solved
subproblems never listed).

A subproblem whose arcs carry trees that all hold a pruned part (scored -inf) has none of finite score: its
search's nodes (every leaf infeasible: no tree over its arcs, or a dual ray) are its proof
(:func:`lpparse.proofs.kbest.no_tree_problem`).

:func:`check_kbest` re-checks a result as :func:`lpparse.proofs.kbest.check_kbest_record` checks its
record, both through :func:`lpparse.proofs.kbest.partition_problem`: each tree's score recomputed, the
trees distinct and best first, each subproblem's mask rebuilt from its parent's mask and tree and its proof
checked over it, every subproblem left unsplit bounded by the K-th score, and every subproblem closed (or
solved) by an ancestor's bound bounded so by that ancestor's root duals, or by its scores, recomputed.
"""

from __future__ import annotations

import heapq
import math
import time
from collections.abc import Sequence
from dataclasses import replace

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.colgen import DualState, PartFamily
from lpparse.colgen.family import OutsideDuals
from lpparse.exact.branching import PseudoCosts
from lpparse.exact.heuristics import move_gains
from lpparse.exact.live import LiveMaster
from lpparse.exact.search import (
    ExactOptions,
    RootStart,
    TreeCosts,
    _Parts,
    _triple_scores,
    dual_costs,
    score_costs,
    search_over,
    tree_costs,
    triples_over,
)
from lpparse.families.base import Parts, exact_parts, tree_score, tree_scores
from lpparse.families.grandparent.family import GrandparentFamily
from lpparse.lp.basis import LabelledBasis
from lpparse.lp.solution import TOL, Status, dual_bound
from lpparse.oracles.chu_liu_edmonds import chu_liu_edmonds_valid
from lpparse.ppc.loop import _validated
from lpparse.proofs.kbest import (
    ENUMERATE,
    REFINE_BRANCHES,
    ClosingBound,
    KBest,
    PairedBound,
    Piece,
    Subproblem,
    murty_child,
    murty_modifiers,
    partition_problem,
)
from lpparse.proofs.search_tree import ExactResult, gap_abs
from lpparse.trees import (
    NoTreeError,
    allowed_arcs,
    check_tree_exists,
    head_choices,
    mask_trees,
    rooted,
    tree_problem,
    validate_scores,
)

__all__ = ["check_kbest", "k_best_search"]

#: the best trees one head change away from each listed tree that seed the K-th best score found, per tree
#: sought (a subproblem's searches stop at the K-th of those outside it: with K of them, the first children
#: searched stop there too)
NEIGHBOURS = 3
#: the best of those head changes taken two at a time as well (Hungarian dev, every fourth sentence from #1,
#: K = 5: 134 -> 128 subproblems searched, with pairs of the best 4 130, of the best 10 or 15 128; the whole
#: dev sets: 2,478 -> 2,415 searches on English, 841 -> 814 on Hungarian, K = 5 against K = 1 2.90x -> 2.85x
#: and 3.29x -> 3.24x)
PAIRED = 6
#: refinements of one subproblem's bound, each at the score of a better tree that stopped the last
RETRIES = 3
#: the most free tokens (of more than one head) of a subproblem bounded by its scores alone before a search
#: (English dev, the first 30 sentences, K = 5, the 135 subproblems searched without it that hold no tree
#: above the K-th, refined within 256 bounds at the K-th score: of those with 12 free tokens or fewer, 73 of
#: 92 closed, 1.1 ms at the median and 2.0 ms on average; of those with more, 7 of 43, 2.2 and 6.3 ms)
SCORE_FREE = 12


def _estimate(costs: TreeCosts, arc_bounds: NDArray[np.float64], single_root: bool) -> ClosingBound:
    """The search's estimate of the :class:`lpparse.proofs.kbest.ClosingBound` that the check recomputes from
    a searched subproblem's root duals (or from none, :func:`lpparse.proofs.kbest.score_bound`): its
    certified dual objective for R (which holds R and the columns' terms besides), the reduced costs of its
    arcs and of every candidate triple."""
    return ClosingBound(arc_bounds, [costs.ub], costs.arcs, [costs.triples], single_root)


def _neighbours(
    shared: _Parts, heads: NDArray[np.int64], gains: NDArray[np.float64], k: int, single_root: bool
) -> list[tuple[NDArray[np.int64], float]]:
    """Up to ``k`` of the best trees one head change away from ``heads`` (by their move ``gains``,
    :func:`lpparse.exact.heuristics.move_gains`), and the trees two of the best :data:`PAIRED` of those
    changes make together (at two tokens, when that is a tree), by their heads, with their scores recomputed:
    trees that raise the K-th best score found early, so that the subproblems' searches stop there from the
    start."""
    gain = gains.ravel()
    top = np.argsort(-gain)[:k]
    h, m = np.unravel_index(top[np.isfinite(gain[top])], gains.shape)
    first, second = np.triu_indices(min(h.size, PAIRED), 1)
    apart = m[first] != m[second]
    first, second = first[apart], second[apart]
    trees = np.repeat(heads[None], h.size + first.size, axis=0)
    trees[np.arange(h.size), m] = h
    pairs = np.arange(h.size, trees.shape[0])
    trees[pairs, m[first]] = h[first]
    trees[pairs, m[second]] = h[second]
    trees = trees[rooted(trees, single_root)]  # a pair may make a cycle (each change alone is a tree)
    values = tree_scores(shared.s, shared.parts, trees, shared.caches)
    return list(zip(trees, values.tolist()))


class _OwnDuals:
    """The :attr:`lpparse.exact.search.RootStart.closer` of a Murty child's search (grandparent family alone,
    every candidate triple scored): the tree bound of its root LP's duals of a round over its arcs ``mask``
    (:func:`lpparse.exact.search.dual_costs`, R their dual objective), which stops that LP at the K-th best
    score found while columns still price (module docstring). An estimate, as :func:`_estimate`'s: the check
    recomputes it from the node's duals (:class:`lpparse.proofs.kbest.ClosingBound`, rounded outward), with
    the search's half gap to spare. Every head of the mask's tokens is theirs, so each arc p→c takes its best
    triple over all heads of p."""

    def __init__(self, mask: NDArray[np.bool_], scores: NDArray[np.float64], single_root: bool) -> None:
        self.mask, self.single_root = mask, single_root
        self.scores = triples_over(scores, mask)  # the sentence's, over the mask's arcs alone
        self.m = np.arange(1, mask.shape[0])

    def __call__(self, state: DualState, families: Sequence[PartFamily], enough: float) -> float:
        gp = [f for f in families if isinstance(f, GrandparentFamily)]
        if len(gp) != 1 or (self.mask & (gp[0].prog.z_col < 0)).any():
            return math.inf
        prog, y, lp = gp[0].prog, state.y, gp[0].prog.lp
        shift = np.zeros(lp.num_cols)
        outside: OutsideDuals = {}
        for family in families:
            shift += family.outside_shift()
            outside.update(family.outside_duals())
        d = lp.cost - lp.tdot(y) - shift
        costs = dual_costs(prog, y, d, outside, dual_bound(lp, y, shift)[0], self.mask, self.scores)
        best = costs.triples.max(axis=0)
        best[0] = 0.0  # the root's children have no triple
        w = costs.arcs + best
        heads = w.argmax(axis=0)
        value = costs.ub + float(w[heads[1:], self.m].sum())
        if value <= enough or rooted(heads, self.single_root):  # each token's best head alone settles it
            return value
        try:
            heads = chu_liu_edmonds_valid(w, self.single_root)
        except NoTreeError:
            return -math.inf
        return costs.ub + float(w[heads[1:], self.m].sum())


class _Found:
    """The distinct trees found in a k-best search, with their scores: stacked into arrays for the questions
    asked of them (which lie over a subproblem's arcs) once per new tree."""

    def __init__(self) -> None:
        self._seen: set[bytes] = set()
        self._trees: list[NDArray[np.int64]] = []
        self._scores: list[float] = []
        self._stacked: tuple[NDArray[np.int64], NDArray[np.float64]] | None = None

    def add(self, heads: NDArray[np.int64], score: float) -> None:
        key = heads.tobytes()
        if key not in self._seen:
            self._seen.add(key)
            self._trees.append(heads.copy())
            self._scores.append(score)
            self._stacked = None

    def over(
        self, mask: NDArray[np.bool_], inside: bool = True
    ) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """The trees found over the arcs ``mask`` (``inside``), or the others, and their scores."""
        if self._stacked is None:
            size = mask.shape[0]
            trees = np.array(self._trees, dtype=np.int64).reshape(-1, size)
            self._stacked = trees, np.array(self._scores, dtype=np.float64)
        trees, scores = self._stacked
        within = mask[trees[:, 1:], np.arange(1, mask.shape[0])].all(axis=1)
        keep = within if inside else ~within
        return trees[keep], scores[keep]


def _murty_order(
    mask: NDArray[np.bool_],
    heads: NDArray[np.int64],
    bounds: NDArray[np.float64],
    gains: NDArray[np.float64] | None,
) -> list[int]:
    """The modifiers of the Murty children of the subproblem ``mask`` with tree ``heads``, in the order of the
    module docstring: by the best move gain of a head change at each (``gains``: grandparent family alone),
    else by ``bounds`` (its root LP's arc bounds, :func:`lpparse.exact.search._arc_bounds`) over its other
    heads, lowest first."""
    modifiers = np.asarray(murty_modifiers(mask), dtype=np.int64)
    others = mask.copy()
    others[heads[1:], np.arange(1, mask.shape[0])] = False
    key = np.where(others, bounds if gains is None else gains, -np.inf)
    return modifiers[np.argsort(key[:, modifiers].max(axis=0), kind="stable")].tolist()


def _lean(result: ExactResult) -> ExactResult:
    """A search's result with what its proof needs only: no root LP, node LPs or infeasible programs (each
    node keeps its duals or dual ray)."""
    for node in result.nodes:
        node.farkas = None
    return replace(result, root=None, node_results={})


def k_best_search(
    arc_scores: ArrayLike,
    parts: Sequence[Parts],
    k: int,
    single_root: bool = False,
    time_limit: float | None = None,
    options: ExactOptions | None = None,
    enumerate_below: int = ENUMERATE,
    score_free: int = SCORE_FREE,
) -> KBest:
    """The ``k`` best distinct trees under the arcs and the families ``parts``, best first, with a proof,
    solving subproblems lazily (module docstring). ``time_limit``: seconds for the whole search (each
    subproblem's exact search gets what is left); at the limit the trees listed so far are proved and
    ``status`` says which limit. ``enumerate_below``: the most head choices of a subproblem proved by
    enumerating its trees (0: none; at most the check's :data:`lpparse.proofs.kbest.ENUMERATE`);
    ``score_free``: the most free tokens of a subproblem bounded by its scores alone (-1: no bound of the
    scores, alone or with an ancestor's duals; with ``enumerate_below`` 0, every subproblem that no ancestor's
    duals close is searched). Raises NoTreeError
    when no tree of finite score exists."""
    if k < 1:
        raise ValueError(f"k must be at least 1, got {k}")
    if not 0 <= enumerate_below <= ENUMERATE:
        raise ValueError(f"enumerate_below must be in 0..{ENUMERATE}, got {enumerate_below}")
    if score_free < -1:
        raise ValueError(f"score_free must be -1 (none) or more, got {score_free}")
    start = time.perf_counter()
    families = exact_parts(parts)
    s = _validated(validate_scores(arc_scores), families)
    check_tree_exists(s, single_root)
    lazy = _Lazy(_Parts(s, families, single_root), KBest(k), single_root, start, time_limit, options)
    lazy.enumerate_below, lazy.score_free = enumerate_below, score_free
    out = lazy.run(allowed_arcs(s))
    for sub in out.subproblems:
        sub.arc_bounds = sub.columns = None
    out.seconds = time.perf_counter() - start
    return out


class _Lazy:
    """The state of one :func:`k_best_search`: the partition ``out``, the queue, and what the subproblems
    hand on (module docstring)."""

    def __init__(
        self,
        shared: _Parts,
        out: KBest,
        single_root: bool,
        start: float,
        time_limit: float | None,
        options: ExactOptions | None,
    ) -> None:
        self.shared, self.out, self.single_root = shared, out, single_root
        self.start, self.time_limit, self.options = start, time_limit, options
        #: (-key, 1 for a waiting subproblem (a solved one pops first on a tie), id)
        self.queue: list[tuple[float, int, int]] = []
        #: the searched subproblems' tree bounds (grandparent family alone), and how far each subproblem
        #: waiting under them is bounded (1: by the tree bound, 2: refined, or solved by it)
        self.bounds: dict[int, ClosingBound] = {}
        self.tightened: dict[int, int] = {}
        #: per listed subproblem searched, the best tree one head change away at each modifier (heads, score)
        self.moves: dict[int, tuple[NDArray[np.int64], NDArray[np.float64]]] = {}
        #: the root LPs' final bases (their children's start), and the distinct trees found, by their heads
        self.bases: dict[int, LabelledBasis | None] = {}
        self.found = _Found()
        #: the most head choices of a subproblem proved by enumerating its trees, and the most free tokens of
        #: one bounded by its scores alone
        self.enumerate_below, self.score_free = ENUMERATE, SCORE_FREE
        #: the root masters of the searched subproblems that hold a tree: their children's LPs fork them
        self.masters: dict[int, LiveMaster] = {}
        #: the bound of the scores alone (None: not made yet; False: none for these families), and the scores
        #: of every candidate triple (:meth:`triple_scores`)
        self.scores: ClosingBound | None | bool = None
        self.triples: NDArray[np.float64] | None = None
        #: the subproblems whose ancestor's duals ran out of branches refining their bound: never paired
        self.unpaired: set[int] = set()
        #: the pseudo-costs every search of the sentence learns and branches by (one sentence, one set)
        self.pseudo = PseudoCosts(shared.s.shape[0])

    def add(self, mask: NDArray[np.bool_], parent: int, modifier: int | None, bound: float) -> int:
        sub = Subproblem(len(self.out.subproblems), parent, modifier, mask, bound)
        self.out.subproblems.append(sub)
        heapq.heappush(self.queue, (-bound, 1, sub.id))
        return sub.id

    def run(self, arcs: NDArray[np.bool_]) -> KBest:
        """Pop the subproblem of largest key until K trees are listed (or a limit stops the search)."""
        out, k = self.out, self.out.k
        self.add(arcs, -1, None, math.inf)
        while self.queue and len(out.trees) < k:
            _, waiting, i = heapq.heappop(self.queue)
            if not waiting:
                self.take(out.subproblems[i])
            elif not self.tighten(out.subproblems[i]):
                out.status = self.solve(out.subproblems[i])
                if out.status is not Status.OPTIMAL:  # a limit: the trees so far stay proved
                    break
        if len(out.trees) == k:  # every subproblem still waiting has a key at most the K-th score
            for _, waiting, i in self.queue:
                out.subproblems[i].closed = bool(waiting)
        return out

    def tighten(self, sub: Subproblem) -> bool:
        """Whether a waiting subproblem goes back to the queue under a tighter key, or leaves it without a
        search (no tree over its arcs); else it is searched (or enumerated: at once when it is small enough,
        module docstring) next. By the tree bound of its nearest searched ancestor's root duals, then that
        bound refined (:meth:`lpparse.proofs.kbest.ClosingBound.refined`),
        then, with at most ``score_free`` free tokens (:data:`SCORE_FREE`), the bound of its scores alone
        refined (:func:`lpparse.proofs.kbest.score_bound`), then both together
        (:class:`lpparse.proofs.kbest.PairedBound`): below the K-th best score found outside it, it waits
        under that score; or, when a tree found in it scores above that, at most that tree's score, which it
        then holds as its best (solved by the bound)."""
        stage = self.tightened.get(sub.id, 0)
        if stage == 0 and sub.parent >= 0 and head_choices(sub.mask, self.enumerate_below) is not None:
            return False  # enumerated next: exact, for what its first bound would cost
        bound: ClosingBound | PairedBound | None = self.ancestor_bound(sub) if stage < 2 else None
        if bound is not None and stage == 0:  # a key below the next is enough to wait: best heads first
            following = -self.queue[0][0] if self.queue else -math.inf
            sub.bound = min(sub.bound, bound.tree(sub.mask, following))
            self.tightened[sub.id] = 1
        else:
            last = 2  # the ancestor's bound refined, else the scores' alone, else both together
            if bound is None and stage < 3:
                bound, last = self.score_bound(sub), 3
            if bound is None and stage < 4:
                bound, last = self.paired_bound(sub), 4
            if bound is not None:
                self.tightened[sub.id] = last
                self.refine(sub, bound)
        if bound is not None:
            if sub.bounded is None:
                heapq.heappush(self.queue, (-sub.bound, 1, sub.id))
            return True
        if tree_problem(sub.mask, self.single_root) is not None:  # asked only once it can matter
            sub.empty = True
            return True
        return False

    def refine(self, sub: Subproblem, bound: ClosingBound | PairedBound) -> None:
        """The refined tree bound of a waiting subproblem (:meth:`tighten`): its key lowered to the K-th best
        score found outside it, or its best found tree proved its best and queued as solved. A tree that
        stops the refinement (its own reduced costs above the limit) is scored and joins the trees found;
        when it scores above the limit, the refinement tries again at its score (:data:`RETRIES` times)."""
        gap = self.options.gap_tol if self.options is not None else TOL
        lower = self.lower(sub.mask)
        known = self.inside(sub)
        inside = max(known, key=lambda t: t[1]) if known else None
        for _ in range(RETRIES):
            target = inside if inside is not None and inside[1] > lower else None
            limit = lower if target is None else target[1]
            if not limit > -math.inf:
                return
            limit += 0.5 * gap_abs(limit, gap)
            if any(bound.tree_value(heads) > limit for heads, _ in known):  # no refinement gets below it
                return
            done, witness = bound.refine(sub.mask, limit, REFINE_BRANCHES // 4)
            if done:
                sub.scores, sub.paired = bound is self.scores, isinstance(bound, PairedBound)
                if target is None:
                    sub.bound = min(sub.bound, lower)
                else:
                    sub.bounded = (target[0].copy(), target[1])
                    heapq.heappush(self.queue, (-target[1], 0, sub.id))
                return
            if witness is None:  # the branch limit (or a number not finite): no pairing with these duals
                if bound is not self.scores and isinstance(bound, ClosingBound):
                    self.unpaired.add(sub.id)
                return
            value = self.shared.value(witness)
            self.found.add(witness, value)
            if not value > limit:  # the duals are too weak for it: an LP's are needed
                return
            inside = (witness, value)
            known.append(inside)

    def score_bound(self, sub: Subproblem) -> ClosingBound | None:
        """The bound of the scores alone (:meth:`scores_bound`) for a subproblem of at most ``score_free``
        free tokens that :meth:`scores_may_bound`; else None."""
        free = int((sub.mask[:, 1:].sum(axis=0) > 1).sum())
        return self.scores_bound() if free <= self.score_free and self.scores_may_bound(sub) else None

    def paired_bound(self, sub: Subproblem) -> PairedBound | None:
        """Its nearest searched ancestor's tree bound and its scores' together, for a subproblem that
        :meth:`scores_may_bound` (none with ``score_free`` -1) and whose refinement by that bound alone did not
        run out of branches (module docstring); else None."""
        if self.score_free < 0 or not self.scores_may_bound(sub) or sub.id in self.unpaired:
            return None
        duals, scores = self.ancestor_bound(sub), self.scores_bound()
        return None if duals is None or scores is None else PairedBound(duals, scores)

    def scores_may_bound(self, sub: Subproblem) -> bool:
        """Whether a subproblem is one the scores' bound is for: not the root, and not small enough to be
        enumerated when searched (which proves it outright)."""
        return sub.parent >= 0 and head_choices(sub.mask, self.enumerate_below) is None

    def triple_scores(self) -> NDArray[np.float64]:
        """The scores of every candidate triple of the sentence, (n+1)³ (-inf where none), scored once through
        the shared cache: what the tree bounds of the subproblems and their searches read (grandparent family
        alone)."""
        if self.triples is None:
            family = self.shared.parts[0]
            self.triples = _triple_scores(family, self.out.subproblems[0].mask, self.shared)  # type: ignore
        return self.triples

    def scores_bound(self) -> ClosingBound | None:
        """The bound of the scores alone (:func:`lpparse.exact.search.score_costs`, made once; None for
        families other than the grandparent family alone)."""
        if self.scores is None:
            root = self.out.subproblems[0].mask
            costs = score_costs(root, self.shared, self.triple_scores)
            no_arc_bound = np.full(root.shape, np.inf)
            self.scores = False if costs is None else _estimate(costs, no_arc_bound, self.single_root)
        return self.scores or None

    def ancestor_bound(self, sub: Subproblem) -> ClosingBound | None:
        """The tree bound of the nearest searched ancestor of a subproblem, the one whose proof the check
        closes it by (None: that one has none, or no ancestor was searched)."""
        a = sub.parent
        while a >= 0 and self.out.subproblems[a].result is None:
            a = self.out.subproblems[a].parent
        return self.bounds.get(a)

    def inside(self, sub: Subproblem) -> list[tuple[NDArray[np.int64], float]]:
        """The trees found over a subproblem's arcs, and its parent tree's best head change at its modifier,
        with their scores."""
        m = np.arange(1, sub.mask.shape[0])
        heads, scores = self.found.over(sub.mask)
        found = list(zip(heads, scores.tolist()))
        move = self.moves.get(sub.parent)
        rank = self.out.subproblems[sub.parent].rank if sub.parent >= 0 else None
        if move is not None and sub.modifier is not None and rank is not None:
            heads, values = move
            tree = self.out.trees[rank][0].copy()
            tree[sub.modifier] = heads[sub.modifier]
            if np.isfinite(values[sub.modifier]) and sub.mask[tree[1:], m].all():
                found.append((tree, self.shared.value(tree)))
        return found

    def lower(self, mask: NDArray[np.bool_]) -> float:
        """The K-th best score of the distinct trees found outside the subproblem of arcs ``mask``: the K-th
        tree scores at least it, and a search of the subproblem that stops there loses none of them (-inf
        before K)."""
        outside = self.found.over(mask, inside=False)[1]
        k = self.out.k
        return float(np.partition(outside, -k)[-k]) if outside.size >= k else -math.inf

    def solve(self, sub: Subproblem) -> Status:
        """Search a subproblem from its parent's root LP, stopping at :meth:`lower`; a tree found goes back to
        the queue under its score, with what the subproblem's children will start from."""
        left = None if self.time_limit is None else self.time_limit - (time.perf_counter() - self.start)
        if left is not None and left <= 0:
            return Status.TIME_LIMIT
        trees = mask_trees(sub.mask, self.single_root, self.enumerate_below) if sub.parent >= 0 else None
        if trees is not None:
            self.enumerate(sub, trees)
            return Status.OPTIMAL
        sub.scores = sub.paired = False  # searched after all: its key was the largest
        columns = self.out.subproblems[sub.parent].columns if sub.parent >= 0 else None
        live = self.masters.get(sub.parent)
        root = RootStart(
            columns, self.lower(sub.mask), basis=self.bases.get(sub.parent), live=live, pseudo=self.pseudo
        )
        view = self.shared.over(sub.mask)
        if sub.parent >= 0 and 0 in self.bounds:  # the root's tree bound scored every triple: price them all
            view.parts = [replace(family, per_pair=None) for family in view.parts]
            root.closer = _OwnDuals(sub.mask, self.triple_scores(), self.single_root)
        result = search_over(view, self.single_root, left, self.options, start=root)
        sub.result = _lean(result)
        if result.status is not Status.OPTIMAL:
            return result.status
        if result.heads is None:
            if sub.parent < 0:
                raise NoTreeError("every tree over the candidate arcs holds a pruned part (scored -inf)")
            sub.empty = True
            return result.status
        self.found.add(result.heads, float(result.objective))
        sub.arc_bounds, sub.columns, self.bases[sub.id] = root.arc_bounds, root.columns, root.basis
        if root.live is not None and root.live is not live:  # its children's LPs: bound changes on its master
            self.masters[sub.id] = root.live
        costs = (
            None
            if result.root is None
            else tree_costs(result.root, sub.mask, self.shared, self.triple_scores)
        )
        if costs is not None and root.arc_bounds is not None:
            self.bounds[sub.id] = _estimate(costs, root.arc_bounds, self.single_root)
        heapq.heappush(self.queue, (-result.objective, 0, sub.id))
        return result.status

    def enumerate(self, sub: Subproblem, trees: NDArray[np.int64]) -> None:
        """Prove a small subproblem by its ``trees``, each scored (through the shared caches): its best goes
        back to the queue under its score, and its K best join the trees found."""
        values = tree_scores(self.shared.s, self.shared.parts, trees, self.shared.caches)
        top = np.argsort(-values, kind="stable")[: self.out.k]
        top = top[np.isfinite(values[top])]
        for t in top:
            self.found.add(trees[t], float(values[t]))
        if not top.size:  # every tree over its arcs holds a pruned part
            sub.enumerated, sub.empty = (None, -math.inf), True
            return
        sub.enumerated = (trees[top[0]].copy(), float(values[top[0]]))
        heapq.heappush(self.queue, (-sub.enumerated[1], 0, sub.id))

    def take(self, sub: Subproblem) -> None:
        """List a solved subproblem's tree (the next best) and, unless it is the K-th, make its children (an
        enumerated subproblem's under its tree's score: no LP bounds them)."""
        if sub.enumerated is not None or sub.bounded is not None:
            heads, score = sub.enumerated or sub.bounded  # type: ignore[misc]
            bounds = None
        else:
            assert sub.result is not None and sub.result.heads is not None and sub.arc_bounds is not None
            heads, score = sub.result.heads, float(sub.result.objective)
            bounds, sub.arc_bounds = sub.arc_bounds, None
        assert heads is not None
        out = self.out
        sub.rank = len(out.trees)
        out.trees.append((heads.copy(), score))
        if len(out.trees) == out.k:  # the search ends: no children, no neighbours to find
            return
        cache = self.shared.climbing
        gains = None if cache is None else move_gains(self.shared.s, cache, heads, self.single_root)
        if gains is not None:
            for tree, value in _neighbours(self.shared, heads, gains, NEIGHBOURS * out.k, self.single_root):
                self.found.add(tree, value)
        if bounds is None:
            bounds = np.where(sub.mask, score, -np.inf)
        if gains is not None:  # each Murty child's likely best tree: the best head change at its modifier
            gain = np.where(sub.mask, gains, -np.inf)
            gain[heads[1:], np.arange(1, heads.size)] = -np.inf
            self.moves[sub.id] = (np.argmax(gain, axis=0), score + gain.max(axis=0))
        children = []
        order = _murty_order(sub.mask, heads, bounds, gains)
        for i, m in enumerate(order):
            mask = murty_child(sub.mask, heads, m, order[:i])
            children.append(self.add(mask, sub.id, m, float(bounds[mask[:, m], m].max())))
        sub.children = tuple(children)


def check_kbest(
    arc_scores: ArrayLike, parts: Sequence[Parts], result: KBest, single_root: bool, gap_tol: float = TOL
) -> str | None:
    """Why ``result`` does not prove its trees the best, in order (None when it does), under the root rule
    and the gap tolerance given (not its proofs'): :func:`lpparse.proofs.kbest.partition_problem` on its
    trees, its partition's shape and its subproblems' searches, and each tree's score as recomputed."""
    s = validate_scores(arc_scores)
    pieces = [
        Piece(
            sub.parent,
            sub.modifier,
            sub.rank,
            sub.closed or sub.bounded is not None,
            sub.enumerated is not None,
            sub.scores,
            sub.paired,
        )
        for sub in result.subproblems
    ]
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
