"""Proofs of k-best lists: Murty's partition (Murty 1968, "An Algorithm for Ranking all the Assignments in
Order of Increasing Cost", Operations Research 16(3); for arborescences Camerini, Fratta & Maffioli 1980,
"The k Best Spanning Arborescences of a Network", Networks 10(2)) with each subproblem's exact-search proof,
checked from the problem, and written as one JSON record per sentence (``lpparse parse --decoder exact
--k-best K --proof FILE``).

**The claim.** The listed trees T1..Tr (r = K, or r < K: every tree) are the best, in order, within the gap
tolerance. **The proof** (:func:`partition_problem`) is a partition of the trees into subproblems (arc
sets). The root holds every candidate arc; any other subproblem is a Murty child of a listed subproblem L with
tree T, named by its *modifier* m (:func:`murty_child`): T's heads of the modifiers of its earlier siblings
kept as their only heads, T's head of m dropped. Each listed subproblem but the K-th is split into exactly its
Murty children, one per modifier whose column in L holds more than one head (:func:`murty_modifiers`), in any
order (the record's: the order of its children in the partition), which partition L's trees but T: a tree of L
other than T first differs from T, in that order, at exactly one of them. So every tree is a listed tree or
lies in a subproblem left unsplit: one never listed, or the K-th's. The check recomputes every mask from its
parent's mask and tree and its earlier siblings' modifiers (none is read), every
tree's score from the scores, and proves each subproblem's claim by its own proof:

* a subproblem whose arcs carry no tree (:func:`lpparse.trees.tree_problem`) needs none;
* a solved one's best tree, by its exact search's proof (:func:`lpparse.proofs.check.check_proof` over its
  masked arcs, under the checker's root rule and gap tolerance): every tree of it scores at most that tree's
  score plus the tolerance;
* one with trees over its arcs but none of finite score (each holds a pruned part, scored -inf), by a proof
  that none exists (:func:`no_tree_problem`): the nodes of its exact search, every leaf infeasible (no tree
  over its arcs, or a dual ray over the full program that proves it,
  :meth:`lpparse.proofs.check.ProofProgram.proves_infeasible`), every branched node split by its children;
  when K trees are listed and the subproblem is not, its leaves may also be bounded by the K-th tree's score
  (a search that stopped at the K-th best score found so far): every tree of it scores at most the K-th, by
  the node's LP bound or by the tree bound of its duals (the node's ``"closed": "tree"``: the
  :class:`ClosingBound` of its duals over its arcs, valid for any duals, so for those of a round of an LP
  that had not converged yet);
* one *enumerated*: every tree over its arcs, when its tokens' head choices number at most
  :data:`ENUMERATE` (:func:`lpparse.trees.mask_trees`), each scored (:func:`lpparse.families.base.tree_scores`):
  the best of them is its listed tree (within the tolerance), or for one left unsplit at most the K-th tree's
  score (none of finite score, when fewer than K trees are listed);
* one never searched, *closed by its parent's bound* (a lazy search's, :mod:`lpparse.exact.kbest`), by the
  proof of its nearest ancestor with one of its own (a listed subproblem searched; the record's ``"closed":
  "parent"``): every tree of the subproblem at modifier m is a tree of that ancestor that uses one of its
  heads h of m, and the duals of the root node of the ancestor's proof bound the ancestor's trees that use
  h→m (:meth:`lpparse.proofs.check.ProofProgram.bound` over its arcs, its ``with_arc``: valid for any duals),
  so the largest of these over the subproblem's heads of m bounds it; so do the same duals over its trees as
  a whole, by the arborescence of largest reduced cost (:class:`ClosingBound`); the smaller of the two
  (:func:`closing_bounds`), or when above, the tree bound refined by branching on heads within
  :data:`REFINE_BRANCHES` bounds (:meth:`ClosingBound.refined`), must be at most the K-th tree's score
  (within the tolerance), K trees must be listed, and the subproblem must carry no proof of its own. A
  listed subproblem may be closed so too, *solved by the bound*: its listed tree is a tree over its arcs and
  the bound is at most that tree's score (within the tolerance).
* one *closed by its scores* (the record's ``"closed": "scores"``), as one closed by its parent's bound but
  with no duals at all (:func:`score_bound`: every arc and triple bounded by its own score, refined by
  branching on heads as above): it needs no ancestor's proof, and bounds a subproblem of few free tokens as a
  branch-and-bound over their heads would, with no LP. A listed subproblem may be solved so too.
* one *closed by its parent's duals and its scores together* (the record's ``"closed": "paired"``), as one
  closed by its parent's bound but with both bounds at once (:class:`PairedBound`): every branch of the
  refinement split by the same token in both, and done when either bound is at most the limit (each bounds
  every tree of the branch, so the smaller does). A listed subproblem may be solved so too.

The trees must be distinct trees over the candidate arcs, of finite score, best first; the tree of each listed
subproblem's proof is its listed tree; every unsplit subproblem's best tree scores at most the K-th (within
the tolerance); and when fewer than K trees are listed, no subproblem left unsplit holds a tree. Every
comparison fails closed (NaN fails it). Nothing is read from a record but the trees, K, the partition's shape
(each subproblem's parent, modifier, rank, whether it is closed by its parent's bound, its scores' or both
together, or enumerated) and the proofs: no score, bound or mask.

**The record** (:func:`kbest_record`; ``parse`` adds the ``sent_id`` and the arcs pruning kept)::

    {"families": {...}, "kbest": {"kbest_version": 2, "k": K, "trees": [heads, ...], "subproblems": [
        {"parent": p, "modifier": m, "rank": r, "proof": {...} | null[, "closed": "parent" | "scores"
         | "paired" | "enumerated": true]},
        ...]}}

``families`` as in :func:`lpparse.proofs.record.proof_record`; the root first, its parent -1 and its
modifier null, every subproblem after its parent; ``rank``: the position of the subproblem's tree in
``trees`` (null: not listed); ``proof``: its exact search's proof record
(:func:`lpparse.proofs.record.proof_record`, node arc sets rebuilt from the branching decisions), with
``heads``, ``objective`` and ``bound`` null for a search that proves no tree of finite score (or none above
the K-th); null for a subproblem whose arcs carry no tree, and for one closed by its parent's bound, which
alone has the entry ``"closed": "parent"`` (no bound is written: the check recomputes it from the parent's
proof). A checker that does not know the entry finds a subproblem with trees and no proof, and fails
(closed). Version 2 (tree bounds, searches stopped at the K-th best found) has version 1's layout; version 3
orders a subproblem's children as the search chose (:mod:`lpparse.exact.kbest`), not by increasing modifier,
with the same layout. Version 4 adds enumerated subproblems (``"enumerated": true``, proof null), which a
checker of version 3 would find with trees and no proof, and closures by the nearest ancestor searched,
refined by branching, listed subproblems among them, which it would fail. Version 5 adds closures by the
scores' bound (``"closed": "scores"``), which a checker of version 4 would refuse; version 6, by the parent's
and the scores' bounds together (``"closed": "paired"``), which a checker of version 5 would refuse; version
7, search nodes of a subproblem proved without a tree closed by their duals' tree bound (a node's
``"closed": "tree"``), which a checker of version 6 would refuse. This checker reads all seven.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from lpparse.colgen.family import Warm
from lpparse.families.base import Parts, tree_score, tree_scores
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.lp.solution import Status
from lpparse.oracles.chu_liu_edmonds import chu_liu_edmonds_valid
from lpparse.proofs.check import EPS, ProofProgram, check_proof, nodes_problem, tree_claim
from lpparse.proofs.record import proof_record, read_proof_record
from lpparse.proofs.search_tree import BranchNode, ExactResult, LabelledDuals, gap_abs
from lpparse.trees import NoTreeError, allowed_arcs, mask_trees, rooted, tree_problem, validate_scores

__all__ = [
    "ClosingBound",
    "Piece",
    "check_kbest_record",
    "closing_bounds",
    "is_kbest_record",
    "kbest_record",
    "murty_child",
    "murty_modifiers",
    "no_tree_problem",
    "partition_problem",
    "score_bound",
]

#: version of the k-best record layout (2: a child closed by its parent's bound may be closed by its tree
#: bound, a subproblem proved without a tree by nodes bounded by the K-th score; 3: a subproblem's children in
#: any order; 4: enumerated subproblems; 5: subproblems closed by their scores' bound; 6: by their parent's
#: and their scores' bounds together; 7: search nodes closed by their own duals' tree bound), and the versions
#: read
VERSION = 7
READS = (1, 2, 3, 4, 5, 6, 7)
#: the most head choices (the product of the tokens' numbers of heads) of a subproblem proved by enumerating
#: its trees
ENUMERATE = 256
#: the bounds the check computes to refine one closing tree bound (:meth:`ClosingBound.refined`; the search
#: refines within a quarter of them)
REFINE_BRANCHES = 1024
#: the arc sets whose weights a bound remembers (:meth:`ClosingBound._weights`)
ASKED = 4


@dataclass
class Subproblem:
    """An arc ``mask`` of the partition: Murty's child of ``parent`` (-1: the root) at ``modifier`` (None:
    the root); ``bound``: its key while unsolved, a bound on its trees from its parent's root LP (the root:
    inf); ``result``: its exact search's proof, without LPs or caches (heads None: the nodes that prove no
    tree of finite score exists; None: no tree over its arcs, closed by its parent's bound, or never solved);
    ``rank``: its tree's position in the list (None: not listed); ``children``: its children's ids once its
    tree is listed; ``closed``: never solved, closed by its parent's bound (at most the K-th tree's score);
    ``enumerated``: its best tree, ``(heads, score)``, found by enumerating its trees (no search, ``result``
    None; its heads None when none scores finite); ``scores``: closed (or its best tree proved, ``bounded``)
    by the bound of its arcs' scores alone (:func:`score_bound`), not by an ancestor's duals; ``paired``: by
    both together (:class:`PairedBound`). The check reads ``parent``, ``modifier``, ``rank``, ``closed``,
    whether it is ``enumerated`` or closed by ``scores`` or ``paired``, and ``result`` only: masks, bounds and
    children are rebuilt."""

    id: int
    parent: int
    modifier: int | None
    mask: NDArray[np.bool_]
    bound: float = math.inf
    result: ExactResult | None = None
    children: tuple[int, ...] = ()
    rank: int | None = None
    empty: bool = False  #: no tree over its arcs, or none of finite score (asked once it is at the head)
    closed: bool = False
    enumerated: tuple[NDArray[np.int64] | None, float] | None = None
    bounded: tuple[NDArray[np.int64], float] | None = None
    scores: bool = False
    paired: bool = False
    #: a solved subproblem's root LP: each arc's bound on the trees that use it (until its children are made)
    #: and its columns (its children's start)
    arc_bounds: NDArray[np.float64] | None = field(default=None, repr=False)
    columns: dict[str, Warm] | None = field(default=None, repr=False)

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

    @property
    def solved(self) -> int:
        """Subproblems whose exact search ran."""
        return sum(sub.result is not None for sub in self.subproblems)

    @property
    def closed(self) -> int:
        """Subproblems never solved, closed by their parent's bound."""
        return sum(sub.closed for sub in self.subproblems)

    @property
    def bounded(self) -> int:
        """Subproblems never searched whose best tree their nearest searched ancestor's bound proves."""
        return sum(sub.bounded is not None for sub in self.subproblems)

    @property
    def enumerated(self) -> int:
        """Subproblems proved by enumerating their trees."""
        return sum(sub.enumerated is not None for sub in self.subproblems)

    @property
    def by_scores(self) -> int:
        """Subproblems closed, or their best tree proved, by the bound of their arcs' scores alone."""
        return sum(sub.scores for sub in self.subproblems)

    @property
    def paired(self) -> int:
        """Subproblems closed, or their best tree proved, by an ancestor's duals and their scores together."""
        return sum(sub.paired for sub in self.subproblems)


def murty_modifiers(mask: NDArray[np.bool_]) -> list[int]:
    """The modifiers whose column in ``mask`` holds more than one head: one Murty child each (the others are
    forced to their only head)."""
    return (np.flatnonzero(mask[:, 1:].sum(axis=0) > 1) + 1).tolist()


def murty_child(
    mask: NDArray[np.bool_], heads: NDArray[np.int64], modifier: int, before: Sequence[int]
) -> NDArray[np.bool_]:
    """The Murty child of the subproblem ``mask`` with tree ``heads`` at ``modifier``, whose earlier siblings
    are at the modifiers ``before``: their heads cut down to the tree's (within ``mask``), the tree's head of
    ``modifier`` dropped."""
    child = mask.copy()
    before = np.asarray(before, dtype=np.int64)
    child[:, before] = False
    child[heads[before], before] = mask[heads[before], before]
    child[heads[modifier], modifier] = False
    return child


@dataclass(frozen=True)
class Piece:
    """A subproblem as the check reads it: its ``parent`` (-1: the root), the ``modifier`` of the Murty child
    it is (None: the root), the ``rank`` of its listed tree (None: not listed), and whether it was never
    solved, ``closed`` by its parent's bound (or, with ``scores``, by its arcs' scores alone; with ``paired``,
    by both together), and whether its trees are ``enumerated`` (its proof)."""

    parent: int
    modifier: int | None
    rank: int | None
    closed: bool = False
    enumerated: bool = False
    scores: bool = False
    paired: bool = False


class _Rounding(NamedTuple):
    """A :class:`ClosingBound`'s R summed exactly (``r``), its terms' absolute values summed (``r_abs``) and
    a bound on the size of any arc's weight (``spread``)."""

    r: float
    r_abs: float
    spread: float

    def totals(self, chosen: NDArray[np.float64]) -> Any:
        """Per row of the weights ``chosen`` (..., n) of its tokens' heads (a NumPy float for one row: (n,)),
        R plus their sum, with every rounding's bound added (R summed exactly; the weights' sum within n
        roundings of their absolute sum, at most n weights of size at most ``spread``; and Chu-Liu-Edmonds's
        contractions: at most n, each n sums of such weights); NaN on overflow, -inf when a chosen weight is
        -inf. Under the caller's ``np.errstate`` (overflow, inf - inf)."""
        size = chosen.shape[-1] + 1
        total = self.r + np.add.reduce(chosen, axis=-1)
        value = total + 4.0 * EPS * (self.r_abs + abs(total) + 2.0 * size**2 * self.spread)
        if not np.isfinite(total).all():  # a -inf weight makes the sum -inf or NaN: sought there alone
            value = np.where(
                np.isfinite(total), value, np.where((chosen == -np.inf).any(axis=-1), -np.inf, np.nan)
            )
        return value


class _Parts(NamedTuple):
    """Parts of a level of a refinement, unbuilt (:meth:`_Refinement._parts`): per part its branch (``node``),
    the head and token it fixes, and per bound (the first axis) the head's weight in the token's column
    (``fixed``); with, per bound that bounded them so far, their bounds and the token's row of weights under
    that head."""

    node: NDArray[np.int64]
    head: NDArray[np.int64]
    token: NDArray[np.int64]
    fixed: NDArray[np.float64]
    value: list[NDArray[np.float64]]
    rows: list[NDArray[np.float64]]

    def keep(self, kept: NDArray[np.int64], value: NDArray[np.float64], rows: NDArray[np.float64]) -> _Parts:
        """The parts ``kept``, with one more bound's ``value`` and ``rows`` of every part."""
        return _Parts(
            self.node.take(kept),
            self.head.take(kept),
            self.token.take(kept),
            self.fixed.take(kept, axis=1),
            [x.take(kept) for x in (*self.value, value)],
            [x.take(kept, axis=0) for x in (*self.rows, rows)],
        )


@dataclass
class ClosingBound:
    """What the duals of a listed subproblem's root node bound, over the full program ``full`` of its arcs:
    per arc, the trees that use it (``with_arc``, :meth:`lpparse.proofs.check.ProofProgram.bound`), and the
    trees of any subset of its arcs as a whole (:meth:`tree`, :meth:`refined`). Weak duality with any duals y
    (d = c - Aᵀy, each d_j widened by its round-off bound): a tree x of the subproblem scores c·x <= R + d·x, R
    the rows' terms over its column bounds. Of d·x, the columns of other families and the flows are bounded as
    the check bounds them (each family's top ``max_per_tree`` gains, each flow by its box; with R: ``terms``),
    while the arcs and the grandparent triples are bounded over the trees of the arc set: a tree holds one
    triple ⟨g, p, c⟩ per arc p→c with p > 0, g the head of p, so d·x of them is at most the arborescence of
    largest weight under w[p, c] = d[p→c] + max_g d⟨g, p, c⟩ over the set's heads g of p (Chu-Liu-Edmonds),
    which is exact for the tokens whose head the set fixes. With the K-th tree's score, it closes children
    whose trees the root LP bounds above it arc by arc only (degenerate duals: many arcs of reduced cost 0).

    The max over g lets each child of a token p take its best grandparent whatever p's head: the arborescence
    that sets the bound is then often no tree of its own value (Italian dev, grandparent model, the Murty
    children of 6 free tokens or more that the bound left open: the best arborescence's own reduced costs
    6.9 below the K-th score at the median, its bound 0.7 above). :meth:`refined` branches on the head of
    the token where that arborescence is least consistent, each branch's children of the token taking the
    triple of its head, until every branch's bound is at most the limit."""

    with_arc: NDArray[np.float64]
    terms: list[float]
    arc_d: NDArray[np.float64]
    triple_d: list[NDArray[np.float64]]
    single_root: bool

    def __post_init__(self) -> None:
        #: the arcs of the bound's own program, and per arc p→c the best triple over all its heads g of p
        self.base = np.isfinite(self.arc_d)
        self.every = [cube.max(axis=0) for cube in self.triple_d]
        #: R summed exactly, its terms' absolute values, and a bound on the size of any arc's weight
        try:
            r, r_abs = math.fsum(self.terms), math.fsum(abs(t) for t in self.terms)
        except (OverflowError, ValueError):
            r = r_abs = math.nan
        try:
            spread = math.fsum(_finite_max_abs(a) for a in (self.arc_d, *self.triple_d))
        except OverflowError:  # weights past the float range: every bound +inf or NaN, nothing closes
            spread = math.inf
        self._rounding = _Rounding(r, r_abs, spread)
        #: whether no token has an arc to itself, nor a triple over one of +inf, as in every program: then no
        #: branch of a refinement holds one, and a part's bound is the one its next level would find
        self._loopless = bool((np.diagonal(self.arc_d) == -np.inf).all()) and not any(
            (np.diagonal(cube, axis1=1, axis2=2) == np.inf).any() for cube in self.triple_d
        )
        #: the tokens 1..n, and the weights of the last arc sets asked (:meth:`_weights`)
        self._m = np.arange(1, self.arc_d.shape[0])
        self._asked: dict[tuple[Any, ...], NDArray[np.float64]] = {}

    def child(self, mask: NDArray[np.bool_], modifier: int) -> float:
        """A bound on every tree of the Murty child with arcs ``mask`` at ``modifier``: the smaller of the
        arc bound (the largest ``with_arc`` of its heads of the modifier) and :meth:`tree`."""
        heads = mask[:, modifier]
        arc = float(self.with_arc[heads, modifier].max()) if heads.any() else -math.inf
        return min(arc, self.tree(mask)) if arc > -math.inf else arc  # NaN fails closed

    def weights(self, mask: NDArray[np.bool_]) -> NDArray[np.float64]:
        """w over the arcs ``mask`` (a subset of the bound's own): per arc p→c, d[p→c] plus each triple
        family's best ⟨g, p, c⟩ over the heads g of p in ``mask``; -inf outside ``mask``."""
        w = np.where(mask, self.arc_d, -np.inf)
        cut = (mask != self.base).any(axis=0)  # tokens whose heads the set restricts
        cut[0] = False
        one = mask.sum(axis=0) == 1
        single = (cut & one).nonzero()[0]  # one head: its triples, in one look-up
        head = mask.take(single, axis=1).argmax(axis=0)
        several = (cut & ~one).nonzero()[0]  # the others: a max over their heads, all at once
        among = mask.take(several, axis=1)[:, :, None]
        for cube, every in zip(self.triple_d, self.every):
            best = every.copy()
            best[single] = cube[head, single, :]
            if several.size:
                best[several] = np.where(among, cube.take(several, axis=1), -np.inf).max(axis=0)
            best[0] = 0.0  # the root's children have no triple
            w += best
        return w

    def _weights(self, mask: NDArray[np.bool_]) -> NDArray[np.float64]:
        """:meth:`weights`, read-only, remembered for the last :data:`ASKED` arc sets asked (a search bounds a
        subproblem's trees, then refines that bound, over the same arcs)."""
        key = (mask.shape, mask.dtype.str, mask.tobytes())
        w = self._asked.pop(key, None)
        if w is None:
            w = self.weights(mask)
            w.flags.writeable = False
            if len(self._asked) >= ASKED:
                del self._asked[next(iter(self._asked))]
        self._asked[key] = w
        return w

    def tree(self, mask: NDArray[np.bool_], enough: float = -math.inf) -> float:
        """The class docstring's bound on the trees over ``mask`` (NaN when a number is not finite); or, when
        each token's best head alone already bounds them at most ``enough``, that weaker bound."""
        w = self._weights(mask)
        if np.isnan(w).any():
            return math.nan
        with np.errstate(invalid="ignore", over="ignore"):  # overflow: NaN, which fails closed
            return self._best(w, enough)

    def tree_value(self, heads: NDArray[np.int64]) -> float:
        """R + the reduced costs of one tree's arcs and of its own triples: what the bound can never fall
        below over a set of arcs that holds the tree (rounded to nearest, for a search's decisions)."""
        m = np.arange(1, heads.size)
        p = heads[1:]
        value = self._rounding.r + float(self.arc_d[p, m].sum())
        inner = p > 0
        for cube in self.triple_d:
            value += float(cube[heads[p[inner]], p[inner], m[inner]].sum())
        return value

    def refined(self, mask: NDArray[np.bool_], limit: float, branches: int) -> bool:
        """Whether every tree over ``mask`` scores at most ``limit`` by the tree bound refined by branching
        (class docstring), within ``branches`` bounds computed: a branch's best arborescence is checked
        against ``limit``; above it, unless its own reduced costs (each child of a token with the triple of
        the token's head in it) are too, the branch splits by the heads of the token p whose children's
        triples gain most over those of its head, and in each part p's children take the triple of its one
        head; a part whose bound (each token's best head alone) is at most ``limit`` is done. False when a
        tree's own reduced costs are above ``limit`` (no branching gets below it), at the branch limit, or on
        a number that is not finite."""
        return self.refine(mask, limit, branches)[0]

    def refine(
        self, mask: NDArray[np.bool_], limit: float, branches: int
    ) -> tuple[bool, NDArray[np.int64] | None]:
        """:meth:`refined`, and when False for a tree whose own reduced costs are above ``limit``, that tree
        (a search may score it: a tree above the limit is worth knowing). The branches are bounded a level at
        a time, as one array (:class:`_Refinement`; which branches are bounded does not depend on the order:
        a branch splits when its bound is above the limit, each part kept when its bound is), each split by
        :meth:`_branch_tokens`."""

        def tokens(
            w: NDArray[Any], heads: NDArray[Any], chosen: NDArray[Any], value: NDArray[Any], limit: float
        ) -> tuple[NDArray[np.int64] | None, NDArray[np.int64] | None]:
            return self._branch_tokens(w[0], heads[0], chosen[0], value[0], limit)  # the one bound's arrays

        return _Refinement((self,), tokens).run(mask, limit, branches)

    def _branch_tokens(
        self,
        w: NDArray[np.float64],
        heads: NDArray[np.int64],
        chosen: NDArray[np.float64],
        value: NDArray[np.float64],
        limit: float,
    ) -> tuple[NDArray[np.int64] | None, NDArray[np.int64] | None]:
        """Per branch of weights ``w`` (B, n+1, n+1, each transposed: :class:`_Refinement`), the token it splits
        by (:meth:`refined`; 0: its bound is at most ``limit``); None when one branch has no split that gets it
        there, with the tree whose own reduced costs are above it (None when a number is not finite). Each
        token's best head alone first (``heads``, their weights ``chosen``: (B, n+1); their bound ``value``,
        :meth:`_Rounding.totals`): their heads, when inconsistent below the limit, name the token without an
        arborescence computed (:meth:`_arborescence_token`)."""
        if np.count_nonzero(np.isnan(value)):
            return None, None
        token, gain = self._least_consistent(heads, chosen[:, 1:])
        over = value > limit
        tokens = np.where(over, token, 0)
        stuck = (over & (value - gain > limit)).nonzero()[0]
        if not stuck.size:
            return tokens, None
        trees = rooted(heads[stuck], self.single_root)
        if trees.any():
            witness = heads[stuck[np.argmax(trees)]].copy()
            witness[0] = -1
            return None, witness
        for b in stuck.tolist():  # the best arborescence: each token's best heads hold a cycle
            found, witness = self._arborescence_token(w[b].T, limit)
            if found is None:
                return None, witness
            tokens[b] = found
        return tokens, None

    def _arborescence_token(
        self, w: NDArray[np.float64], limit: float
    ) -> tuple[int | None, NDArray[np.int64] | None]:
        """The token a branch of weights ``w`` (n+1, n+1) splits by when its tokens' best heads hold a cycle:
        by its best arborescence's own reduced costs (:meth:`_least_consistent`; 0: no tree of finite score,
        or that arborescence's bound at most ``limit``); None, with the arborescence, when its own reduced
        costs are above ``limit`` too (None when a number is not finite)."""
        try:
            best = chu_liu_edmonds_valid(w, self.single_root)
        except NoTreeError:
            return 0, None  # no tree of finite score over the arcs
        own = w[best[1:], self._m]
        total = float(self._rounding.totals(own))
        if math.isnan(total):
            return None, None
        if not total > limit:
            return 0, None
        exact, gain = self._least_consistent(best[None], own[None])
        if total - gain[0] > limit:
            best[0] = -1
            return None, best
        return int(exact[0]), None

    def _least_consistent(
        self, heads: NDArray[np.int64], chosen: NDArray[np.float64]
    ) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """Per branch of arborescence ``heads`` (B, n+1) and its weights ``chosen`` (B, n: its tokens'
        weights): the token whose children's triples in the weights gain most over the triples of its own head
        in it, and what all tokens' children gain so (their weights less their own values)."""
        count, size = heads.shape
        p = heads[:, 1:]
        at = p + np.arange(0, count * size, size)[:, None]  # each branch's tokens' heads, as flat places
        grand = heads.take(at)  # the root's children: any (-1 too: the last), masked below
        gain = chosen - self.arc_d[p, self._m]
        for cube in self.triple_d:
            gain -= cube[grand, p, self._m]
        gain[p == 0] = 0.0
        gain[np.isnan(gain)] = np.inf  # fails towards branching there
        per = np.bincount(at.ravel(), gain.ravel(), count * size).reshape(count, size)
        per[:, 0] = -np.inf
        return per.argmax(axis=1), np.add.reduce(gain, axis=1)

    def _best(self, w: NDArray[np.float64], limit: float) -> float:
        """The bound R + the best arborescence under ``w`` (round-off outward); first each token's best head
        alone, which bounds it and settles it at most ``limit`` (-inf: always the arborescence's) or when
        those heads make a tree; -inf when no tree has finite weight."""
        heads = w.argmax(axis=0)
        value = float(self._rounding.totals(w[heads[1:], self._m]))
        if not value > limit or rooted(heads, self.single_root):
            return value
        try:
            heads = chu_liu_edmonds_valid(w, self.single_root)
        except NoTreeError:
            return -math.inf  # no tree of finite score over the arcs
        chosen = w[heads[1:], self._m]
        if not np.isfinite(chosen).all():
            return -math.inf
        return float(self._rounding.totals(chosen))


class _Refinement:
    """The refinement of one :class:`ClosingBound`, or of several over the same trees together
    (:class:`PairedBound`), a level at a time: the level's branches as one array of their weights, each
    transposed (w[p, c] at [c, p]: a token's heads along the last axis) and stacked over the bounds
    (k, B, n+1, n+1). Per level, each branch's best head of each token and its weight are found once, for its
    bound, its token and its split; ``tokens(level, heads, chosen, value, limit)`` names the token each branch
    splits by (0: done; as :meth:`ClosingBound._branch_tokens`), and every bound splits it by that token's
    heads; a part is kept when every bound's bound of it is above the limit (:meth:`_parts`). A part's bound,
    found to keep it, is its bound at the next level (``_loopless``: else found again there)."""

    def __init__(self, bounds: tuple[ClosingBound, ...], tokens: Callable[..., Any]) -> None:
        self.bounds, self.tokens = bounds, tokens
        self.loopless = np.array([[bound._loopless] for bound in bounds])
        self.all_loopless = bool(self.loopless.all())

    def run(
        self, mask: NDArray[np.bool_], limit: float, branches: int
    ) -> tuple[bool, NDArray[np.int64] | None]:
        """Whether every tree over ``mask`` is at most ``limit`` within ``branches`` bounds, and the tree
        that stops it when one does (:meth:`ClosingBound.refine`)."""
        level = np.stack([bound._weights(mask).T for bound in self.bounds])[:, None]
        if np.count_nonzero(np.isnan(level)) or not limit < math.inf:
            return False, None
        value, done = None, 1
        with np.errstate(invalid="ignore", over="ignore"):  # -inf - -inf, inf - inf: NaN, which fails closed
            while True:
                if done > branches:
                    return False, None
                heads, chosen = self._heads(level)
                if value is None or not self.all_loopless:
                    fresh = np.array([b._rounding.totals(c[:, 1:]) for b, c in zip(self.bounds, chosen)])
                    value = fresh if value is None else np.where(self.loopless, value, fresh)
                tokens, witness = self.tokens(level, heads, chosen, value, limit)
                if tokens is None:
                    return False, witness
                split = tokens > 0
                if np.count_nonzero(split) < split.size:
                    if not np.count_nonzero(split):
                        return True, None
                    level, tokens, heads, chosen = (
                        level[:, split],
                        tokens[split],
                        heads[:, split],
                        chosen[:, split],
                    )
                parts = self._parts(level, tokens, heads, chosen, limit)
                if parts is None:  # the bounds' heads of a token differ (never over one mask): fails closed
                    return False, None
                if parts.node.size > branches - done:  # none is made (memory stays within the limit)
                    return False, None
                if not parts.node.size:
                    return True, None
                level, value = self._built(level, parts), np.array(parts.value)
                done += parts.node.size

    @staticmethod
    def _heads(level: NDArray[np.float64]) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
        """Per bound and branch of weights ``level`` (k, B, n+1, n+1, transposed), each token's best head and
        its weight (k, B, n+1)."""
        heads = level.argmax(axis=3)
        at = np.arange(0, level.size, level.shape[3]).reshape(heads.shape)
        at += heads
        return heads, level.take(at)

    def _parts(
        self,
        w: NDArray[np.float64],
        tokens: NDArray[np.int64],
        heads: NDArray[np.int64],
        chosen: NDArray[np.float64],
        limit: float,
    ) -> _Parts | None:
        """The parts of branches ``w`` (k, B, n+1, n+1, transposed) split by the heads of their ``tokens`` that
        every bound bounds above ``limit`` (NaN too: it fails when bounded), one per finite head (in row-major
        order of branch and head), unbuilt (:meth:`_bound`): each bound bounds only the parts the bounds
        before it keep. None when the bounds' finite heads of a token differ."""
        branch = np.arange(w.shape[1])
        column = w[:, branch, tokens]  # (k, B, n+1): each branch's token's heads, per bound
        finite = np.isfinite(column)
        if len(self.bounds) > 1 and not (finite == finite[0]).all():
            return None
        node, head = finite[0].nonzero()
        parts = _Parts(node, head, tokens.take(node), column[:, node, head], [], [])
        for i, bound in enumerate(self.bounds):
            if not parts.node.size:  # none left to bound (nor to build)
                break
            value, rows = self._bound(bound, w[i], heads[i], chosen[i], tokens, parts, i)
            parts = parts.keep((~(value <= limit)).nonzero()[0], value, rows)
        return parts

    @staticmethod
    def _bound(
        bound: ClosingBound,
        w: NDArray[np.float64],
        heads: NDArray[np.int64],
        chosen: NDArray[np.float64],
        tokens: NDArray[np.int64],
        parts: _Parts,
        i: int,
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The bound of each of ``parts`` by ``bound`` (the ``i``-th), over its branches' weights ``w``
        (B, n+1, n+1, transposed), best heads and their weights (``heads``, ``chosen``: (B, n+1)) split by their
        ``tokens``, and the parts' rows: in each, the token has one head h and its children take h's triples
        (its row, at most its branch's own, the max over its heads; -inf where those are); its bound R + each
        token's best head alone in it (:meth:`_Rounding.totals`, of the part's column maxima: its branch's
        without the token, :meth:`_others_max`, and its row)."""
        size = w.shape[1]
        rows = w[np.arange(w.shape[0]), :, tokens].take(parts.node, axis=0)  # the token's row in the branch
        own = bound.arc_d.take(parts.token, axis=0)
        for cube in bound.triple_d:
            own += cube.reshape(-1, size).take(parts.head * size + parts.token, axis=0)
        np.minimum(own, rows, out=rows)
        best = _Refinement._others_max(w, tokens, heads, chosen)[:, 1:].take(parts.node, axis=0)  # (P, n)
        np.maximum(best, rows[:, 1:], out=best)
        best[np.arange(parts.node.size), parts.token - 1] = parts.fixed[i]
        return bound._rounding.totals(best), rows

    @staticmethod
    def _built(w: NDArray[np.float64], parts: _Parts) -> NDArray[np.float64]:
        """The weights of ``parts`` of branches ``w`` (transposed, :meth:`_parts`)."""
        out = w.take(parts.node, axis=1)
        part = np.arange(parts.node.size)
        out[:, part, parts.token] = -np.inf  # the token's column
        out[:, part, parts.token, parts.head] = parts.fixed
        for weights, rows in zip(out, parts.rows):
            weights[part, :, parts.token] = rows  # its row
        return out

    @staticmethod
    def _others_max(
        w: NDArray[np.float64],
        tokens: NDArray[np.int64],
        heads: NDArray[np.int64],
        chosen: NDArray[np.float64],
    ) -> NDArray[np.float64]:
        """Per branch of weights ``w`` (B, n+1, n+1, transposed), with each token's best head and its weight in
        it (``heads``, ``chosen``: (B, n+1)), each token's best weight over the heads other than the branch's
        token (B, n+1): the column maxima, and where the token holds one, the column without it."""
        top = chosen.copy()
        b, c = (heads == tokens[:, None]).nonzero()
        if b.size:
            column = w[b, c]
            column[np.arange(b.size), tokens.take(b)] = -np.inf
            top[b, c] = np.maximum.reduce(column, axis=1)
        return top


@dataclass
class PairedBound:
    """Two :class:`ClosingBound` over the same trees, the smaller at every branch of a refinement: a searched
    ancestor's root duals (``duals``) and the scores alone (``scores``, :func:`score_bound`). The two fail on
    different trees: the duals bound a large subproblem at once but not a tree whose own reduced costs exceed
    the limit while it scores below it (only the subproblem's own LP gives duals complementary to it), where
    the scores bound each tree by its score. English dev, the first 30 sentences, K = 5: 55 subproblems that
    neither bound closed alone closed or solved so, searches 101 -> 43, 6 ms a pairing against 13 a search."""

    duals: ClosingBound
    scores: ClosingBound

    def child(self, mask: NDArray[np.bool_], modifier: int) -> float:
        """The smaller of the two bounds' :meth:`ClosingBound.child` (NaN when either is)."""
        return _smaller(self.duals.child(mask, modifier), self.scores.child(mask, modifier))

    def tree_value(self, heads: NDArray[np.int64]) -> float:
        """The smaller of the two bounds' :meth:`ClosingBound.tree_value` (NaN when either is)."""
        return _smaller(self.duals.tree_value(heads), self.scores.tree_value(heads))

    def refined(self, mask: NDArray[np.bool_], limit: float, branches: int) -> bool:
        """Whether every tree over ``mask`` scores at most ``limit``: :meth:`refine`."""
        return self.refine(mask, limit, branches)[0]

    def refine(
        self, mask: NDArray[np.bool_], limit: float, branches: int
    ) -> tuple[bool, NDArray[np.int64] | None]:
        """:meth:`ClosingBound.refine` of the two bounds together (:class:`_Refinement`): both split every
        branch by the same token (the duals' choice, or the scores' where the duals' own tree is above
        ``limit``: :meth:`_tokens`), and a branch or a part is done when either bound is at most ``limit``;
        False when a branch is above it by both bounds with neither able to split it (with the scores' tree
        above it, when that is why), at the branch limit, or on a number that is not finite."""
        return _Refinement((self.duals, self.scores), self._tokens).run(mask, limit, branches)

    def _tokens(
        self,
        w: NDArray[np.float64],
        heads: NDArray[np.int64],
        chosen: NDArray[np.float64],
        value: NDArray[np.float64],
        limit: float,
    ) -> tuple[NDArray[np.int64] | None, NDArray[np.int64] | None]:
        """Per branch (the two bounds' weights ``w``, best heads, their weights and bounds, stacked), the token
        both bounds split it by (0: either bound is at most ``limit``): the duals' choice by their best heads,
        else the scores', else the duals' or the scores' by the best arborescence
        (:meth:`ClosingBound._branch_tokens`); None when a branch has none, with the scores' tree above
        ``limit``."""
        if np.isnan(value).any():
            return None, None
        (hd, hs), (cd, cs), (vd, vs) = heads, chosen, value
        token, gain = self.duals._least_consistent(hd, cd[:, 1:])
        tokens = np.where(vd - gain > limit, -1, token)  # -1: the duals' own heads are above the limit
        tokens[(value <= limit).any(axis=0)] = 0
        stuck = (tokens < 0).nonzero()[0]
        if stuck.size:  # the scores' choice by their best heads
            token, gain = self.scores._least_consistent(hs[stuck], cs[stuck, 1:])
            tokens[stuck] = np.where(vs[stuck] - gain > limit, -1, token)
        for b in (tokens < 0).nonzero()[0].tolist():
            one = slice(b, b + 1)
            found, _ = self.duals._branch_tokens(w[0, one], hd[one], cd[one], vd[one], limit)
            if found is None:
                found, witness = self.scores._branch_tokens(w[1, one], hs[one], cs[one], vs[one], limit)
                if found is None:
                    return None, witness
            tokens[b] = found[0]
        return tokens, None


def _finite_max_abs(a: NDArray[np.float64]) -> float:
    """The largest absolute value of the finite entries of ``a`` (0 when none): ±inf made NaN by adding a - a
    (NaN there, 0 elsewhere), which ``fmax`` passes over (a quarter of the time of indexing by a mask)."""
    with np.errstate(invalid="ignore"):
        return float(np.fmax.reduce(np.abs(a + (a - a)), axis=None, initial=0.0))


def _smaller(a: float, b: float) -> float:
    """The smaller of two bounds, NaN when either is (fails closed)."""
    return math.nan if math.isnan(a) or math.isnan(b) else min(a, b)


def closing_bounds(
    arc_scores: NDArray[np.float64],
    parts: Sequence[Parts],
    result: ExactResult,
    single_root: bool,
) -> ClosingBound | str:
    """The :class:`ClosingBound` of the duals of the root node of ``result`` (a listed subproblem's proof
    over the arcs of ``arc_scores``; a tree of the proof for the families to bind to), over the full program
    of every candidate part of those arcs; or why there is none. What closes the subproblem's children
    unsolved."""
    root = result.nodes[0] if result.nodes else None
    if root is None or root.duals is None:
        return "its root node has no duals"
    full = ProofProgram(arc_scores, parts, single_root, result.base, [root.duals], tree=result.heads)
    return _closing_bound(full, root.duals, allowed_arcs(arc_scores))


def score_bound(
    arc_scores: NDArray[np.float64], parts: Sequence[Parts], result: ExactResult, single_root: bool
) -> ClosingBound | str:
    """The :class:`ClosingBound` of no duals (y = 0) over every candidate arc and part of ``arc_scores``: the
    arcs' and triples' reduced costs are their scores, R the other families' top scores (none for the
    grandparent family alone), so that refined by branching it bounds a subproblem by its scores alone, as a
    branch-and-bound over heads would, with no LP; or why there is none. ``result``: the root's proof, whose
    tree the families bind to. What closes (or solves) a subproblem of few free tokens whose ancestors' duals
    leave it open (:mod:`lpparse.exact.kbest`)."""
    full = ProofProgram(arc_scores, parts, single_root, result.base, [], tree=result.heads)
    return _closing_bound(full, {}, allowed_arcs(arc_scores))


def _closing_bound(full: ProofProgram, duals: LabelledDuals, mask: NDArray[np.bool_]) -> ClosingBound | str:
    """:func:`closing_bounds` of the labelled ``duals`` over the full program ``full`` (its arcs ``mask``)."""
    parts, single_root = full.parts, full.single_root
    got = full.bound(duals, mask)
    if isinstance(got, str):
        return got
    y = full.place(duals)
    upper = full.node_upper(mask)
    _, d, err = full._sums(y, upper, full.lp.cost)
    dz = np.where(upper > 0, d + err, -np.inf)  # outward; a column the arcs rule out holds nothing
    lp, size = full.lp, mask.shape[0]
    lo, hi = full.node_sides(upper)
    at = np.flatnonzero(y)
    terms = np.maximum(y[at] * lo[at], y[at] * hi[at]).tolist()
    grouped = [p for p in parts if type(p) is GrandparentParts and p.column_block in lp.var_blocks]
    tree_cols = np.zeros(lp.num_cols, bool)
    arcs = lp.var_blocks["z"]
    arc_d = np.full((size, size), -np.inf)
    arc_d[tuple(arcs.index.T)] = dz[arcs.positions]
    tree_cols[arcs.positions] = True
    cubes = []
    for part in grouped:
        block = lp.var_blocks[part.column_block]
        cube = np.full((size,) * 3, -np.inf)
        cube[tuple(block.index.T)] = dz[block.positions]
        tree_cols[block.positions] = True
        cubes.append(cube)
    others = [p for p in parts if p not in grouped]  # as ProofProgram._sums bounds them
    terms += np.concatenate(full.column_terms(d, err, upper, others, tree_cols)).tolist()
    return ClosingBound(got[1], terms, arc_d, cubes, single_root)


def no_tree_problem(
    arc_scores: NDArray[np.float64],
    parts: Sequence[Parts],
    result: ExactResult,
    single_root: bool,
    limit: float = -math.inf,
) -> str | None:
    """Why ``result.nodes`` do not prove that no tree of finite score over the arcs of ``arc_scores`` scores
    above ``limit`` (None when they do; -inf: that none exists): the root holds every candidate arc, and every
    node is proved as :func:`lpparse.proofs.check.check_proof` proves a search's nodes against ``limit``
    instead of a tree's score (:func:`lpparse.proofs.check._proved`, over the full program of every
    candidate part, the pruned parts' rows included): a branched node split by its children (its fixed arcs
    bounded by ``limit``), a leaf infeasible (no tree over its arcs, or a dual ray that proves it) or bounded
    by ``limit``. What proves a subproblem whose search returned no tree: none of finite score, or (a lazy
    search's, given the K-th best score of the trees found so far) none above the K-th tree. A node may also be
    closed by its duals' tree bound (``tree``: :meth:`ClosingBound.tree` of the node's duals over its arcs, at
    most ``limit``), which holds for duals of any LP round, optimal or not: what stops a Murty child's search
    once its own duals bound its trees below the K-th tree (:mod:`lpparse.exact.kbest`)."""
    return nodes_problem(arc_scores, parts, result, single_root, limit, tree_bound=_node_tree_bound)


def _node_tree_bound(full: ProofProgram, node: BranchNode) -> float:
    """The :class:`ClosingBound` of a node's duals on every tree over its arcs (NaN when there is none)."""
    if node.duals is None:
        return math.nan
    bound = _closing_bound(full, node.duals, node.mask)
    return math.nan if isinstance(bound, str) else bound.tree(node.mask)


def partition_problem(  # long: the claim (k trees), the partition, its proofs, and the checker's problem
    arc_scores: NDArray[np.float64],
    parts: Sequence[Parts],
    k: int,
    trees: Sequence[NDArray[np.int64]],
    pieces: Sequence[Piece],
    proof: Callable[[int, NDArray[np.float64]], ExactResult | None],
    single_root: bool,
    gap_tol: float,
) -> str | None:
    """Why the ``trees`` are not proved the ``k`` best (or, fewer, every tree) by the partition ``pieces``
    (None when they are): module docstring. ``proof(i, masked)``: subproblem i's proof, read over its arc
    scores ``masked`` (its arcs' scores, -inf elsewhere): an exact search's result, with its tree or (heads
    None) with nodes that prove none of finite score, or None (no proof)."""
    if len(trees) > k:
        return f"{len(trees)} trees listed for k = {k}"
    values = _listed_values(arc_scores, parts, trees, single_root, gap_tol)
    if isinstance(values, str):
        return values
    ranks = sorted(p.rank for p in pieces if p.rank is not None)
    if ranks != list(range(len(trees))):
        return f"{len(trees)} trees, but the ranks of the listed subproblems are {ranks}"
    if not pieces or pieces[0].parent != -1 or pieces[0].modifier is not None:
        return "the first subproblem is not the root"
    check = _PartitionCheck(arc_scores, parts, k, trees, single_root, gap_tol, values)
    for i, piece in enumerate(pieces):
        mask = check.mask(i, piece, pieces)
        if isinstance(mask, str):
            return f"subproblem {i}{mask}"
        masked = np.where(mask, arc_scores, -np.inf)
        result = proof(i, masked)
        problem = check.piece_problem(i, piece, pieces, masked, result)
        if problem is not None:
            return f"subproblem {i}: {problem}"
        if piece.rank is not None and result is not None:  # its root duals may close its descendants
            check.closing[i] = (masked, result)
        if i == 0:
            check.root = result
    return check.murty_problem(pieces)


def _listed_values(
    s: NDArray[np.float64],
    parts: Sequence[Parts],
    trees: Sequence[NDArray[np.int64]],
    single_root: bool,
    gap_tol: float,
) -> list[float] | str:
    """The listed trees' scores, recomputed (why not, when a tree is no tree, listed twice or out of order)."""
    values: list[float] = []
    for r, heads in enumerate(trees):
        value = tree_claim(s, parts, heads, single_root)
        if isinstance(value, str):
            return f"tree {r + 1}: {value}"
        if any(np.array_equal(heads, other) for other in trees[:r]):
            return f"tree {r + 1} is listed twice"
        if r and not value <= values[-1] + gap_abs(values[-1], gap_tol):
            return f"tree {r + 1} scores {value!r}, above tree {r} ({values[-1]!r})"
        values.append(value)
    return values


@dataclass
class _PartitionCheck:
    """The check of one partition's subproblems, in order (:func:`partition_problem`): the scores, families,
    K and listed trees with their recomputed ``values``, the checker's root rule and gap tolerance; the arc
    masks and children found so far; ``closing``: by listed subproblem searched, its arc scores and proof
    (whose root duals may close its descendants), replaced by :func:`closing_bounds` once computed."""

    s: NDArray[np.float64]
    parts: Sequence[Parts]
    k: int
    trees: Sequence[NDArray[np.int64]]
    single_root: bool
    gap_tol: float
    values: list[float]
    masks: list[NDArray[np.bool_]] = field(default_factory=list)
    kids: dict[int, list[int]] = field(default_factory=dict)
    closing: dict[int, tuple[NDArray[np.float64], ExactResult] | ClosingBound | str] = field(
        default_factory=dict
    )
    #: the root's proof once checked, and the bound of the scores alone (:func:`score_bound`) once a
    #: subproblem closed by it asks
    root: ExactResult | None = None
    scores: ClosingBound | str | None = None

    @property
    def full(self) -> bool:
        """K trees are listed (else every tree must be)."""
        return len(self.trees) == self.k

    @property
    def kth(self) -> float:
        """The last listed tree's score (-inf: none)."""
        return self.values[-1] if self.values else -math.inf

    def mask(self, i: int, piece: Piece, pieces: Sequence[Piece]) -> NDArray[np.bool_] | str:
        """Subproblem i's arcs, rebuilt from its parent's (why it has none: the rest of a message)."""
        if i == 0:
            if piece.closed:
                return ": the root is closed by no parent's bound"
            mask = allowed_arcs(self.s)
        else:
            parent = pieces[piece.parent] if 0 <= piece.parent < i else None
            if parent is None or parent.rank is None:
                return " is not a child of a listed subproblem recorded before it"
            if self.full and parent.rank == self.k - 1:
                return ": the K-th tree's subproblem is split"
            if piece.modifier is None or not 1 <= piece.modifier < self.s.shape[0]:
                return f": modifier {piece.modifier!r} is not a token"
            siblings = self.kids.setdefault(piece.parent, [])
            mask = murty_child(self.masks[piece.parent], self.trees[parent.rank], piece.modifier, siblings)
            siblings.append(piece.modifier)
        self.masks.append(mask)
        return mask

    def piece_problem(
        self,
        i: int,
        piece: Piece,
        pieces: Sequence[Piece],
        masked: NDArray[np.float64],
        result: ExactResult | None,
    ) -> str | None:
        """Why subproblem ``i`` (its arc scores ``masked``, its proof ``result``) is not proved as the
        partition needs it (None when it is)."""
        kth, full, gap_tol, mask = self.kth, self.full, self.gap_tol, self.masks[i]
        if piece.enumerated:
            return self.enumerated_problem(piece, mask, result)
        if piece.closed:
            return self.closed_problem(i, piece, pieces, result)
        if result is None:
            problem = (
                None if tree_problem(mask, self.single_root) is not None else "it holds trees but no proof"
            )
        elif result.heads is None:  # no tree above the K-th (none at all, fewer than K listed)
            limit = kth + gap_abs(kth, gap_tol) if full and piece.rank is None else -np.inf
            problem = no_tree_problem(masked, self.parts, result, self.single_root, limit)
        else:
            problem = check_proof(masked, self.parts, result, single_root=self.single_root, gap_tol=gap_tol)
        if problem is None and piece.rank is not None:
            if (
                result is None
                or result.heads is None
                or not np.array_equal(result.heads, self.trees[piece.rank])
            ):
                problem = f"its proof's tree is not tree {piece.rank + 1}"
        elif problem is None and result is not None and result.heads is not None:  # left unsplit
            value = tree_score(self.s, self.parts, result.heads)
            if not full:
                problem = f"it holds a tree scoring {value!r}, but fewer than {self.k} trees are listed"
            elif not value <= kth + gap_abs(kth, gap_tol):
                problem = f"it holds a tree scoring {value!r}, above tree {self.k} ({kth!r})"
        return problem

    def enumerated_problem(
        self, piece: Piece, mask: NDArray[np.bool_], result: ExactResult | None
    ) -> str | None:
        """Why an enumerated subproblem (its arcs ``mask``) is not proved by its trees, each scored (None when
        it is): module docstring."""
        if piece.closed or result is not None:
            return "enumerated, yet closed by its parent's bound or with a proof of its own"
        trees = mask_trees(mask, self.single_root, ENUMERATE)
        if trees is None:
            return f"enumerated, but its tokens' head choices number more than {ENUMERATE}"
        values = tree_scores(self.s, self.parts, trees)
        best = float(values.max(initial=-np.inf))
        if np.isnan(values).any():
            return "enumerated, but a tree's score is NaN"
        if piece.rank is not None:
            listed = (trees == self.trees[piece.rank]).all(axis=1)
            if not listed.any():
                return f"enumerated, but tree {piece.rank + 1} is not one of its trees"
            value = float(values[listed][0])
            if not best <= value + gap_abs(value, self.gap_tol):
                return f"enumerated: a tree of it scores {best!r}, above tree {piece.rank + 1} ({value!r})"
            return None
        if not best > -math.inf:
            return None
        if not self.full:
            return f"it holds a tree scoring {best!r}, but fewer than {self.k} trees are listed"
        if not best <= self.kth + gap_abs(self.kth, self.gap_tol):
            return f"it holds a tree scoring {best!r}, above tree {self.k} ({self.kth!r})"
        return None

    def closed_problem(
        self, i: int, piece: Piece, pieces: Sequence[Piece], result: ExactResult | None
    ) -> str | None:
        """Why subproblem ``i``, closed by the bound of its nearest ancestor searched (a listed subproblem with
        a proof of its own), by its scores alone (``piece.scores``) or by both together (``piece.paired``),
        is not proved (None when it is): every
        tree of it at most the K-th tree's score, or, listed, at most its listed tree's, which is one of its
        trees (module docstring)."""
        mask = self.masks[i]
        if result is not None or piece.enumerated:
            return "closed by its parent's bound, yet with a proof of its own"
        if piece.rank is None:
            if not self.full:
                return "closed by its parent's bound, but fewer than K trees are listed"
            limit, what = self.kth, f"the K-th tree's score {self.kth!r}"
        else:
            tree = self.trees[piece.rank]
            if not mask[tree[1:], np.arange(1, tree.size)].all():
                return f"closed by its parent's bound under tree {piece.rank + 1}, which is not a tree of its arcs"
            limit, what = self.values[piece.rank], f"tree {piece.rank + 1}'s score"
        bound = self.closing_bound(i, piece, pieces)
        if isinstance(bound, str):
            return bound
        assert piece.modifier is not None
        value = bound.child(mask, piece.modifier)
        cap = limit + gap_abs(limit, self.gap_tol)
        if value <= cap or bound.refined(mask, cap, REFINE_BRANCHES):
            return None
        whose = (
            "its scores'"
            if piece.scores
            else "its parent's and its scores'"
            if piece.paired
            else "its parent's"
        )
        return (
            f"closed by {whose} bound {value!r} on its trees (not refined below within {REFINE_BRANCHES} "
            f"branches), above {what}"
        )

    def closing_bound(
        self, i: int, piece: Piece, pieces: Sequence[Piece]
    ) -> ClosingBound | PairedBound | str:
        """The bound that closes subproblem ``i``: its nearest searched ancestor's (:meth:`bound_of`), its
        scores' (:meth:`score_bound`), or both together (:class:`PairedBound`); why there is none."""
        if piece.scores and piece.paired:
            return "closed by its scores' bound and by both bounds together"
        ancestor = None if piece.scores else self.bound_of(i, pieces)
        scores = self.score_bound() if piece.scores or piece.paired else None
        for got in (ancestor, scores):
            if isinstance(got, str):
                return got
        if ancestor is not None and scores is not None:
            return PairedBound(ancestor, scores)
        bound = ancestor or scores
        assert bound is not None
        return bound

    def score_bound(self) -> ClosingBound | str:
        """The bound of the scores alone (:func:`score_bound`, its families bound to the root's proof),
        made once."""
        if self.scores is None:
            if self.root is None or self.root.heads is None:
                return "closed by its scores' bound, but the root has no proved tree"
            self.scores = score_bound(self.s, self.parts, self.root, self.single_root)
        if isinstance(self.scores, str):
            return f"closed by its scores' bound, but the scores give none: {self.scores}"
        return self.scores

    def bound_of(self, i: int, pieces: Sequence[Piece]) -> ClosingBound | str:
        """The :class:`ClosingBound` of the nearest ancestor of subproblem ``i`` with a proof of its own (why
        there is none: a message)."""
        a = pieces[i].parent
        while a >= 0 and a not in self.closing:
            a = pieces[a].parent
        if a < 0:
            return "closed by the bound of a parent without a proved tree"
        got = self.closing[a]
        if isinstance(got, tuple):
            got = self.closing[a] = closing_bounds(got[0], self.parts, got[1], self.single_root)
        if isinstance(got, str):
            return f"closed by its parent's bound, but its parent's proof gives none: {got}"
        return got

    def murty_problem(self, pieces: Sequence[Piece]) -> str | None:
        """Why the split subproblems' children are not Murty's partition of their arcs, in some order (None
        when they are)."""
        for i, piece in enumerate(pieces):
            split = piece.rank is not None and not (self.full and piece.rank == self.k - 1)
            if split and sorted(self.kids.get(i, [])) != murty_modifiers(self.masks[i]):
                return (
                    f"subproblem {i}: its children's modifiers {self.kids.get(i, [])} are not Murty's "
                    f"partition {murty_modifiers(self.masks[i])} in any order"
                )
        return None


def is_kbest_record(record: dict[str, Any]) -> bool:
    """Whether a proof file's record is a k-best list's (for ``lpparse check-proof``: check it by
    :func:`check_kbest_record`)."""
    return "kbest" in record


def kbest_record(kbest: KBest, parts: Sequence[Parts]) -> dict[str, Any]:
    """The JSON-able proof of a k-best search over ``parts`` (module docstring); ValueError when a limit
    stopped it."""
    if kbest.status is not Status.OPTIMAL:
        raise ValueError(f"no proof of a k-best search stopped by a limit ({kbest.status.value})")
    subproblems = [
        {
            "parent": sub.parent,
            "modifier": sub.modifier,
            "rank": sub.rank,
            "proof": None if sub.result is None else _proof_record(sub.result, parts),
            **(
                {"closed": "scores" if sub.scores else "paired" if sub.paired else "parent"}
                if sub.closed or sub.bounded is not None
                else {}
            ),
            **({"enumerated": True} if sub.enumerated is not None else {}),
        }
        for sub in kbest.subproblems
    ]
    root = subproblems[0]["proof"]
    if root is None or root["heads"] is None:
        raise ValueError("no tree to prove")
    trees = [heads.tolist() for heads, _ in kbest.trees]
    return {
        "families": root["families"],
        "kbest": {"kbest_version": VERSION, "k": kbest.k, "trees": trees, "subproblems": subproblems},
    }


def _proof_record(result: ExactResult, parts: Sequence[Parts]) -> dict[str, Any]:
    """A subproblem's proof record: its search's :func:`lpparse.proofs.record.proof_record`, or for a search
    that found no tree of finite score the same with ``heads``, ``objective`` and ``bound`` null."""
    if result.heads is not None:
        return proof_record(result, parts)
    shaped = replace(result, heads=np.full(result.nodes[0].mask.shape[0], -1), objective=0.0, bound=0.0)
    return {**proof_record(shaped, parts), "heads": None, "objective": None, "bound": None}


def _read_proof(
    record: Any, arc_scores: NDArray[np.float64], single_root: bool, gap_tol: float
) -> ExactResult:
    """The search a subproblem's proof record describes over its arc scores, under the checker's root rule and
    tolerance (:func:`lpparse.proofs.record.read_proof_record`: only the tree and the search tree are read;
    heads None for a no-tree proof)."""
    if not isinstance(record, dict):
        raise TypeError(f"a proof is {type(record).__name__}, not an object")
    tree = record["heads"] is not None
    shaped = record if tree else {**record, "heads": [-1] * arc_scores.shape[0]}
    result = read_proof_record(shaped, arc_scores, single_root=single_root, gap_tol=gap_tol)
    return result if tree else replace(result, heads=None)


def _int(value: Any, what: str, low: int, high: int) -> int:
    """``value`` as an int in [low, high), or ValueError/TypeError naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{what} is {value!r}, not an integer")
    if not low <= value < high:
        raise ValueError(f"{what} is {value}, outside {low}..{high - 1}")
    return value


def _optional_int(value: Any, what: str, low: int, high: int) -> int | None:
    return None if value is None else _int(value, what, low, high)


def _enumerated(value: Any, i: int) -> bool:
    """Whether a record's subproblem ``i`` is enumerated (its ``enumerated`` entry: absent, or true), or
    ValueError."""
    if value is not None and value is not True:
        raise ValueError(f"subproblem {i}'s enumerated is {value!r}, not true")
    return value is True


def _closed(value: Any, i: int) -> tuple[bool, bool, bool]:
    """Whether a record's subproblem ``i`` is closed by a bound, whether by its scores' alone, and whether by
    its parent's and its scores' together (its ``closed`` entry: absent, ``"parent"``, ``"scores"`` or
    ``"paired"``), or ValueError."""
    if value not in (None, "parent", "scores", "paired"):
        raise ValueError(f'subproblem {i}\'s closed is {value!r}, not "parent", "scores" or "paired"')
    return value is not None, value == "scores", value == "paired"


def check_kbest_record(
    record: dict[str, Any],
    arc_scores: NDArray[np.float64],
    parts: Sequence[Parts],
    single_root: bool,
    gap_tol: float,
) -> str | None:
    """Why a k-best record (a proof file's line, :func:`kbest_record`) does not prove its trees the K best
    (None when it does), over the problem's ``arc_scores`` (pruned as the parse pruned them) and families
    ``parts``, under the checker's root rule and gap tolerance (:func:`partition_problem`). Reads only the
    trees, K, the partition's shape and the proofs; raises ValueError, KeyError or TypeError on a record that
    is not one."""
    data = record["kbest"]
    if not isinstance(data, dict):
        raise TypeError(f"kbest is {type(data).__name__}, not an object")
    if type(data.get("kbest_version")) is not int or data["kbest_version"] not in READS:
        raise ValueError(f"kbest_version {data.get('kbest_version')!r}: this lpparse reads versions {READS}")
    s = validate_scores(arc_scores)
    size = s.shape[0]
    k = _int(data["k"], "k", 1, 2**62)
    trees = []
    for r, heads in enumerate(data["trees"]):
        if not isinstance(heads, list) or len(heads) != size:
            raise ValueError(f"tree {r + 1} is not a list of {size} heads")
        trees.append(np.array([_int(h, f"tree {r + 1}'s head", -1, size) for h in heads], np.int64))
    entries = data["subproblems"]
    if not isinstance(entries, list):
        raise TypeError("subproblems is not a list")
    pieces = []
    for i, entry in enumerate(entries):
        closed, scores, paired = _closed(entry.get("closed"), i)
        if scores and data["kbest_version"] < 5:
            raise ValueError(f'subproblem {i} is closed by "scores", which kbest_version 5 brought')
        if paired and data["kbest_version"] < 6:
            raise ValueError(f'subproblem {i} is closed by "paired", which kbest_version 6 brought')
        pieces.append(
            Piece(
                _int(entry["parent"], f"subproblem {i}'s parent", -1 if i == 0 else 0, i),
                _optional_int(entry["modifier"], f"subproblem {i}'s modifier", 1, size),
                _optional_int(entry["rank"], f"subproblem {i}'s rank", 0, len(trees)),
                closed,
                _enumerated(entry.get("enumerated"), i),
                scores,
                paired,
            )
        )

    def proof(i: int, masked: NDArray[np.float64]) -> ExactResult | None:
        found = entries[i]["proof"]
        try:
            result = None if found is None else _read_proof(found, masked, single_root, gap_tol)
        except (IndexError, AttributeError) as err:
            raise ValueError(f"subproblem {i}: not a readable proof ({err!r})") from None
        if result is not None and data["kbest_version"] < 7 and any(n.closed == "tree" for n in result.nodes):
            raise ValueError(f'subproblem {i}: a node closed by "tree", which kbest_version 7 brought')
        return result

    return partition_problem(s, parts, k, trees, pieces, proof, single_root, gap_tol)
