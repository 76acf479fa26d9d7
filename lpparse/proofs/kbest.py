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
  (a search that stopped at the K-th best score found so far): every tree of it scores at most the K-th;
* one *enumerated*: every tree over its arcs, when its tokens' head choices number at most
  :data:`ENUMERATE` (:func:`lpparse.trees.mask_trees`), each scored (:func:`lpparse.families.base.tree_scores`):
  the best of them is its listed tree (within the tolerance), or for one left unsplit at most the K-th tree's
  score (none of finite score, when fewer than K trees are listed);
* one never solved, *closed by its parent's bound* (a lazy search's, :mod:`lpparse.exact.kbest`), by its
  parent's proof: every tree of the child at modifier m is a tree of the parent that uses one of the child's
  heads h of m, and the duals of the root node of the parent's proof bound the parent's trees that use h→m
  (:meth:`lpparse.proofs.check.ProofProgram.bound` over the parent's arcs, its ``with_arc``: valid for any
  duals), so the largest of these over the child's heads of m bounds the child; so do the same duals over
  the child's trees as a whole, by the arborescence of largest reduced cost (:class:`ClosingBound`); the
  smaller of the two (:func:`closing_bounds`) must be at most the K-th tree's score (within the tolerance),
  K trees must be listed, and the child must carry no proof of its own.

The trees must be distinct trees over the candidate arcs, of finite score, best first; the tree of each listed
subproblem's proof is its listed tree; every unsplit subproblem's best tree scores at most the K-th (within
the tolerance); and when fewer than K trees are listed, no subproblem left unsplit holds a tree. Every
comparison fails closed (NaN fails it). Nothing is read from a record but the trees, K, the partition's shape
(each subproblem's parent, modifier, rank, whether it is closed by its parent's bound or enumerated) and the
proofs: no
score, bound or mask.

**The record** (:func:`kbest_record`; ``parse`` adds the ``sent_id`` and the arcs pruning kept)::

    {"families": {...}, "kbest": {"kbest_version": 2, "k": K, "trees": [heads, ...], "subproblems": [
        {"parent": p, "modifier": m, "rank": r, "proof": {...} | null[, "closed": "parent" | "enumerated": true]},
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
checker of version 3 would find with trees and no proof. This checker reads all four.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lpparse.colgen.family import Warm
from lpparse.families.base import Parts, tree_score, tree_scores
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.lp.solution import Status
from lpparse.oracles.chu_liu_edmonds import chu_liu_edmonds
from lpparse.proofs.check import EPS, ProofProgram, _proved, check_proof, tree_claim
from lpparse.proofs.record import proof_record, read_proof_record
from lpparse.proofs.search_tree import ExactResult, gap_abs
from lpparse.trees import NoTreeError, allowed_arcs, mask_trees, tree_problem, validate_scores

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
]

#: version of the k-best record layout (2: a child closed by its parent's bound may be closed by its tree
#: bound, a subproblem proved without a tree by nodes bounded by the K-th score; 3: a subproblem's children in
#: any order; 4: enumerated subproblems), and the versions read
VERSION = 4
READS = (1, 2, 3, 4)
#: the most head choices (the product of the tokens' numbers of heads) of a subproblem proved by enumerating
#: its trees
ENUMERATE = 256


@dataclass
class Subproblem:
    """An arc ``mask`` of the partition: Murty's child of ``parent`` (-1: the root) at ``modifier`` (None:
    the root); ``bound``: its key while unsolved, a bound on its trees from its parent's root LP (the root:
    inf); ``result``: its exact search's proof, without LPs or caches (heads None: the nodes that prove no
    tree of finite score exists; None: no tree over its arcs, closed by its parent's bound, or never solved);
    ``rank``: its tree's position in the list (None: not listed); ``children``: its children's ids once its
    tree is listed; ``closed``: never solved, closed by its parent's bound (at most the K-th tree's score);
    ``enumerated``: its best tree, ``(heads, score)``, found by enumerating its trees (no search, ``result``
    None; its heads None when none scores finite). The check reads ``parent``, ``modifier``, ``rank``,
    ``closed``, whether it is ``enumerated``, and ``result`` only: masks, bounds and
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
    def enumerated(self) -> int:
        """Subproblems proved by enumerating their trees."""
        return sum(sub.enumerated is not None for sub in self.subproblems)


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
    solved, ``closed`` by its parent's bound, and whether its trees are ``enumerated`` (its proof)."""

    parent: int
    modifier: int | None
    rank: int | None
    closed: bool = False
    enumerated: bool = False


@dataclass
class ClosingBound:
    """What the duals of a listed subproblem's root node bound, over the full program ``full`` of its arcs:
    per arc, the trees that use it (``with_arc``, :meth:`lpparse.proofs.check.ProofProgram.bound`), and per
    Murty child, its trees as a whole (:meth:`child`). Weak duality with any duals y (d = c - Aᵀy, each d_j
    widened by its round-off bound): a tree x of the parent scores c·x <= R + d·x, R the rows' terms over the
    parent's column bounds. Of d·x, the columns of other families and the flows are bounded as the check
    bounds them (each family's top ``max_per_tree`` gains, each flow by its box; with R: ``terms``), while the
    arcs and the grandparent triples are bounded over the child's trees: a tree holds one triple ⟨g, p, c⟩ per
    arc p→c with p > 0, g the head of p, so d·x of them is at most the arborescence of largest weight under
    w[p, c] = d[p→c] + max_g d⟨g, p, c⟩ over the child's arcs (Chu-Liu-Edmonds), which is exact for the
    tokens whose head the child fixes. With the K-th tree's score, it closes children whose trees the
    parent's root LP bounds above it arc by arc only (degenerate duals: many arcs of reduced cost 0)."""

    with_arc: NDArray[np.float64]
    terms: list[float]
    arc_d: NDArray[np.float64]
    triple_d: list[NDArray[np.float64]]
    single_root: bool

    def child(self, mask: NDArray[np.bool_], modifier: int) -> float:
        """A bound on every tree of the Murty child with arcs ``mask`` at ``modifier``: the smaller of the
        arc bound (the largest ``with_arc`` of its heads of the modifier) and :meth:`tree`."""
        heads = mask[:, modifier]
        arc = float(self.with_arc[heads, modifier].max()) if heads.any() else -math.inf
        return min(arc, self.tree(mask)) if arc > -math.inf else arc  # NaN fails closed

    def tree(self, mask: NDArray[np.bool_]) -> float:
        """The class docstring's bound on the trees over ``mask`` (NaN when a number is not finite)."""
        w = np.where(mask, self.arc_d, -np.inf)
        for cube in self.triple_d:  # the best triple of each arc p→c over the heads g of p within mask
            best = np.where(mask[:, :, None], cube, -np.inf).max(axis=0)
            best[0] = 0.0  # the root's children have no triple
            w = w + best
        if np.isnan(w).any():
            return math.nan
        try:
            heads = chu_liu_edmonds(w, single_root=self.single_root)
        except NoTreeError:
            return -math.inf  # no tree of finite score over mask
        chosen = w[heads[1:], np.arange(1, heads.size)]
        if not np.isfinite(chosen).all():
            return -math.inf
        terms = [*self.terms, *chosen.tolist()]
        try:
            total = math.fsum(terms)
        except OverflowError:
            return math.nan
        spread = float(np.abs(w[np.isfinite(w)]).max(initial=0.0))
        # each term's rounding and the sum's, and Chu-Liu-Edmonds's contractions (at most n, each n sums)
        return total + 4.0 * EPS * (math.fsum(abs(t) for t in terms) + abs(total) + heads.size**2 * spread)


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
    mask = allowed_arcs(arc_scores)
    got = full.bound(root.duals, mask)
    if isinstance(got, str):
        return got
    y = full.place(root.duals)
    upper = full.node_upper(mask)
    _, d, err = full._sums(y, upper, full.lp.cost)
    dz = np.where(upper > 0, d + err, -np.inf)  # outward; a column the arcs rule out holds nothing
    lp, size = full.lp, arc_scores.shape[0]
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
    search's, given the K-th best score of the trees found so far) none above the K-th tree."""
    nodes = result.nodes
    if not nodes or nodes[0].parent != -1 or not np.array_equal(nodes[0].mask, allowed_arcs(arc_scores)):
        return "the root node does not hold every candidate arc"
    separated = [d for node in nodes for d in (node.duals, node.ray) if d is not None]
    full = ProofProgram(arc_scores, parts, single_root, result.base, separated)
    bounds: dict[int, float] = {}
    for node in nodes:
        problem = _proved(node, nodes, full, limit, bounds)
        if problem is not None:
            return f"node {node.id}: {problem}"
    return None


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
    check = _PartitionCheck(
        arc_scores, parts, k, trees, single_root, gap_tol, values[-1] if values else -np.inf
    )
    closers = {p.parent for p in pieces if p.closed}
    for i, piece in enumerate(pieces):
        mask = check.mask(i, piece, pieces)
        if isinstance(mask, str):
            return f"subproblem {i}{mask}"
        masked = np.where(mask, arc_scores, -np.inf)
        result = proof(i, masked)
        problem = check.piece_problem(piece, mask, masked, result)
        if problem is not None:
            return f"subproblem {i}: {problem}"
        if i in closers and piece.rank is not None and result is not None:
            check.closing[i] = (masked, result)
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
    K and listed trees, the checker's root rule and gap tolerance, the K-th tree's score ``kth``; the arc
    masks and children found so far; ``closing``: by parent, its arc scores and proof (listed subproblems
    whose children are closed by their bound), replaced by :func:`closing_bounds` once computed."""

    s: NDArray[np.float64]
    parts: Sequence[Parts]
    k: int
    trees: Sequence[NDArray[np.int64]]
    single_root: bool
    gap_tol: float
    kth: float
    masks: list[NDArray[np.bool_]] = field(default_factory=list)
    kids: dict[int, list[int]] = field(default_factory=dict)
    closing: dict[int, tuple[NDArray[np.float64], ExactResult] | NDArray[np.float64] | str] = field(
        default_factory=dict
    )

    @property
    def full(self) -> bool:
        """K trees are listed (else every tree must be)."""
        return len(self.trees) == self.k

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
        piece: Piece,
        mask: NDArray[np.bool_],
        masked: NDArray[np.float64],
        result: ExactResult | None,
    ) -> str | None:
        """Why one subproblem (its arcs ``mask``, their scores ``masked``, its proof ``result``) is not
        proved as the partition needs it (None when it is)."""
        kth, full, gap_tol = self.kth, self.full, self.gap_tol
        if piece.enumerated:
            return self.enumerated_problem(piece, mask, result)
        if piece.closed:
            problem = self.closed_problem(piece, mask, result)
        elif result is None:
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

    def closed_problem(self, piece: Piece, mask: NDArray[np.bool_], result: ExactResult | None) -> str | None:
        """Why a subproblem closed by its parent's bound (its arcs ``mask``) is not proved to hold no tree
        above the K-th score (None when it is): module docstring."""
        if piece.rank is not None or result is not None:
            return "closed by its parent's bound, yet listed or with a proof of its own"
        if not self.full:
            return "closed by its parent's bound, but fewer than K trees are listed"
        if piece.parent not in self.closing:
            return "closed by the bound of a parent without a proved tree"
        got = self.closing[piece.parent]
        if isinstance(got, tuple):
            got = self.closing[piece.parent] = closing_bounds(got[0], self.parts, got[1], self.single_root)
        if isinstance(got, str):
            return f"closed by its parent's bound, but its parent's proof gives none: {got}"
        assert piece.modifier is not None
        value = got.child(mask, piece.modifier)
        if not value <= self.kth + gap_abs(self.kth, self.gap_tol):
            return f"closed by its parent's bound {value!r} on its trees, above the K-th tree's score {self.kth!r}"
        return None

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
            **({"closed": "parent"} if sub.closed else {}),
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


def _closed(value: Any, i: int) -> bool:
    """Whether a record's subproblem ``i`` is closed by its parent's bound (its ``closed`` entry: absent, or
    ``"parent"``), or ValueError."""
    if value not in (None, "parent"):
        raise ValueError(f'subproblem {i}\'s closed is {value!r}, not "parent"')
    return value == "parent"


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
    pieces = [
        Piece(
            _int(entry["parent"], f"subproblem {i}'s parent", -1 if i == 0 else 0, i),
            _optional_int(entry["modifier"], f"subproblem {i}'s modifier", 1, size),
            _optional_int(entry["rank"], f"subproblem {i}'s rank", 0, len(trees)),
            _closed(entry.get("closed"), i),
            _enumerated(entry.get("enumerated"), i),
        )
        for i, entry in enumerate(entries)
    ]

    def proof(i: int, masked: NDArray[np.float64]) -> ExactResult | None:
        found = entries[i]["proof"]
        try:
            return None if found is None else _read_proof(found, masked, single_root, gap_tol)
        except (IndexError, AttributeError) as err:
            raise ValueError(f"subproblem {i}: not a readable proof ({err!r})") from None

    return partition_problem(s, parts, k, trees, pieces, proof, single_root, gap_tol)
