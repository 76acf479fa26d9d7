"""Proofs that stand alone: node bounds recomputed from labelled duals over one full program.

A branch-and-bound proof (:mod:`lpparse.exact.search`) records, per solved node, the duals of its LP by row
*label* (block name and index tuple, :data:`LabelledDuals`), not a certificate's verdict. The checker
(:class:`ProofProgram`) builds the sentence's full program once, with every candidate arc and every
candidate part of every family (what brute force solves), and derives each node's program from it by bounds
alone: columns that the node's arcs do not allow (its dropped arcs, their flow columns, the parts over them)
are fixed at 0. On the cycle-cut base the full program also holds every NoCycle row that a recorded dual or
ray names: such a row's label is its token set S, and the checker builds Σ_{h,m in S} z[h,m] <= |S| - 1 from
it (valid for every tree, whatever S is); likewise every row that a family separates as a cut and a label names
(a family's ``add_named_rows``: SibTriangle and GPSibTriangle rows,
:meth:`lpparse.families.sibling.family.SiblingFamily.add_named_rows`; GSibGP rows,
:meth:`lpparse.families.third_order.family.GrandSiblingFamily.add_named_rows`). Every row of the full program is valid for
every tree, so for any duals y and any tree x of the node (with its parts and flows), weak duality gives

    c·x = yᵀAx + dᵀx <= Σ_i max(y_i L_i, y_i U_i) + Σ_j max(d_j l_j, d_j u_j),    d = c - Aᵀy,

whatever y is: no dual feasibility is assumed, nothing is read from a solver or a record but y. The bounds
are the program's, with two that its rows imply made explicit, as every tree meets them: an arc column is at
most 1 (OneHead), a flow at most the flow capacity (NoFlow); a solver's reduced cost of an arc or a flow that
is round-off above 0 then costs round-off, not an infinite bound. For part
columns the tree is used: a tree holds at most ``max_per_tree(n)`` parts of a family, so their term is at
most the sum of the largest positive d_j of the family (:meth:`ProofProgram.bound`). As any y gives a valid
bound, a dual on a row the full program lacks (a row family another preset has, the row of a part scored
-inf) is read as 0: the bound can only weaken, never become invalid. A dual on an infinite side makes the
bound infinite, but for mass within round-off (1e-9 relative to the largest dual, the tolerance of
:func:`lpparse.lp.solution.farkas_margin`), which is read as 0 as every certificate here reads it. An arc
h→m is ruled out of a node's children when the bound of the node's trees that use it, the same sum with
x_{hm} = 1, is at most the best tree's score; a node whose arcs carry trees is infeasible when a labelled
dual ray y proves the node's program infeasible (Farkas: the same sums with zero cost are negative).

**Soundness for any duals, by construction.** The bound above needs only that every row is valid for every
tree of finite score (with its parts at 1, other parts at 0, and some flow) and every column bound holds;
nothing is assumed of y. The checker adds, itself: part columns count wherever their arcs are in the node
(:meth:`ProofProgram.node_upper`, by each family's ``candidates``), a tree holds at most ``max_per_tree(n)``
parts of a family, an infinite row side is replaced by the row's finite implied activity over the node's
column bounds (:meth:`ProofProgram.node_sides`), every floating-point product and sum gets its round-off
bound added outward and the terms are summed exactly (``math.fsum``), a non-finite dual or an overflow gives
no bound, and every comparison is written so that a NaN fails. The rows, by block (each family's module gives
its rows and why a tree satisfies them; ``tests/test_proof_attacks.py`` checks every row of every family and
base against every tree, with labels drawn at random and garbage among them, and attacks the bound with
random, huge, sparse, negated and other problems' duals against brute force):

=============================================== ===================================== ===========================
block                                           rows (a tree's vector satisfies them) module
=============================================== ===================================== ===========================
OneHead, OneRoot                                one head a token; one root child      formulations.arborescence
Source, Consume, NoFlow (one or n commodities)  the tree's flow out of the root        formulations.arborescence
NoCycle[S], two tokens or more                  Σ_{h,m in S} z[h,m] <= |S| - 1        formulations.arborescence
ArcGP, GPArc, OneGP, NoGP, PrunedGP             zgp[g,p,c] = z[g,p] z[p,c]             formulations.grandparent
GPChain, GPSibChain (named by label)            chains of triples on a tree path      formulations.grandparent_chains
ArcSib, SibArc, SibClique, PrunedSib            zsib[h,m,s] = z[h,m] z[h,s]            formulations.sibling
SibTriangle, GPSibTriangle, arc-head rows       triangles of sibling/triple products  formulations.triangles, arc_heads
CSibIn, CSibOut, CSibStart                      one window into and out of a child    formulations.consecutive
GSibStart, GSibFlow, GSibSum, GSibGP            windows under the head's own head     formulations.grandsibling(_links)
TSibIn, TSibOut                                 windows of three on a head's side     formulations.trisibling
=============================================== ===================================== ===========================

A row that a label names (NoCycle, GPChain, SibTriangle, GSibGP ...) is built only when the label names a
valid row of candidate parts (the families' ``*_known`` checks); any other label names no row and its dual
counts as 0.

This is the shape of VIPR's certificates for exact MIP (Cheung, Gleixner & Steffy 2017, "Verifying Integer
Programming Results", IPCO 2017): the search may use any solver and any tolerance; the proof is re-checked
from the problem and the recorded duals by a small program.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray

from lpparse.colgen.cache import ScoreCache
from lpparse.colgen.family import OutsideDuals
from lpparse.colgen.options import ColgenOptions
from lpparse.families.base import Binding, Parts, tree_score
from lpparse.families.grandparent.rows import GrandparentProgram, arc_program
from lpparse.formulations.arborescence import add_subtour_cuts
from lpparse.lp.program import LinearProgram
from lpparse.oracles.chu_liu_edmonds import chu_liu_edmonds
from lpparse.proofs.search_tree import BranchNode, ExactResult, LabelledDuals, child_mask, gap_abs
from lpparse.trees import allowed_arcs, tree_error, tree_problem

__all__ = [
    "LabelledDuals",
    "ProofProgram",
    "check_proof",
    "children_problem",
    "claim_problem",
    "infeasible_problem",
    "label_duals",
    "signed",
    "tree_claim",
]

#: Unit round-off of float64, doubled (the round-off bounds of :meth:`ProofProgram._sums` are outward)
EPS = float(np.finfo(np.float64).eps)
#: A bound on every tree over a node's arcs from its duals, over the full program (``nan`` fails): what proves a
#: node closed as ``tree`` (:func:`lpparse.proofs.kbest.no_tree_problem`)
TreeBound = Callable[["ProofProgram", BranchNode], float]


def label_duals(
    lp: LinearProgram, y: NDArray[np.float64], outside: OutsideDuals | None = None
) -> LabelledDuals:
    """The nonzero entries of ``y`` (one per row of ``lp``) by row label, with the duals ``outside`` of rows
    that ``lp`` lacks."""
    out: LabelledDuals = {}
    for name, block in lp.con_blocks.items():
        values = y[block.positions]
        keep = values != 0.0
        if keep.any():
            out[name] = (block.index[keep].copy(), values[keep].copy())
    for name, (index, values) in (outside or {}).items():
        index = np.asarray(index, np.int64).reshape(len(values), -1)
        if name in out:
            out[name] = (np.concatenate([out[name][0], index]), np.concatenate([out[name][1], values]))
        else:
            out[name] = (index, np.asarray(values, np.float64))
    return out


def signed(lp: LinearProgram, y: NDArray[np.float64]) -> NDArray[np.float64]:
    """LP duals ``y`` of ``lp`` (maximization) moved to the signs their rows allow: 0 on an infinite side. A
    solver's duals may carry round-off of the wrong sign (a warm-started re-solve more often), which would make
    a bound from them infinite; any y gives a valid bound, and these differ from ``y`` by round-off only.
    (Not for dual rays, whose sign :meth:`ProofProgram.proves_infeasible` tries both ways.)"""
    y = np.where(np.isfinite(lp.row_lower), y, np.maximum(y, 0.0))
    return np.where(np.isfinite(lp.row_upper), y, np.minimum(y, 0.0))


class ProofProgram:
    """The full program of a sentence (every candidate arc and part of every family ``parts`` over the
    arborescence program ``base``), against which node records are checked (module docstring); ``tree``: a
    tree over candidate arcs for the families to bind to (default: Chu-Liu-Edmonds's). Under a base
    whose rows are separated (``cycle-cuts``) it holds the NoCycle rows that the labels of ``separated``
    (duals and rays) name: a NoCycle row's label is its token set (a 0/1 membership row of two tokens or
    more), from which the row is built here, valid for every tree whatever set it names.

    Every column has finite bounds (arcs at most 1, flows at most the flow capacity, parts at most 1), so each
    row's activity over a node's columns has finite implied bounds, which replace an infinite side of the row
    (:meth:`node_sides`): the weak-duality sum is then finite for every finite y, and no tolerance is needed
    for a dual of the wrong sign (it costs its size times the row's finite range)."""

    def __init__(
        self,
        arc_scores: NDArray[np.float64],
        parts: Sequence[Parts],
        single_root: bool,
        base: str,
        separated: Iterable[LabelledDuals] = (),
        tree: NDArray[np.int64] | None = None,
    ) -> None:
        self.s, self.parts, self.single_root, self.base = arc_scores, list(parts), single_root, base
        prog, base_blocks = self._full_program(list(separated), tree)
        self.lp = prog.lp
        self._matrices()
        self.n = arc_scores.shape[0] - 1
        #: the part family of each part column block
        self.part_blocks = {p.column_block: p for p in self.parts}
        self._check_blocks(base_blocks)
        self._column_bounds(float(prog.lp.flow_capacity) if "phi" in self.lp.var_blocks else 0.0)

    def _full_program(
        self, separated: list[LabelledDuals], tree: NDArray[np.int64] | None
    ) -> tuple[GrandparentProgram, set[str]]:
        """The arborescence program with every candidate part of every family and the cut rows the labels
        name, and the arborescence program's own column blocks."""
        prog = arc_program(self.s, self.single_root, self.base)
        base_blocks = set(prog.lp.var_blocks)
        if prog.lp.formulation == "cycle-cuts":
            add_subtour_cuts(prog.lp, _token_sets(separated, self.s.shape[0]))
        if tree is None:  # the families bind to a tree over candidate arcs (then hold every candidate part)
            tree = chu_liu_edmonds(self.s, single_root=self.single_root)
        families = [p.bind(Binding(prog, self.s, tree, ColgenOptions(), None)) for p in self.parts]
        for family in families:
            family.tree = None  # every candidate part
            family.seed()
        for family in families:  # the rows a family separates as cuts that the labels name
            named = getattr(family, "add_named_rows", None)
            if named is not None:
                named(separated)
        return prog, base_blocks

    def _matrices(self) -> None:
        """A, Aᵀ and the parts of A of either sign and of its absolute value, once."""
        A = self.lp.A.tocsr()
        csc = A.tocsc()  # its arrays are those of Aᵀ in CSR
        self.A_T = sp.csr_matrix((csc.data, csc.indices, csc.indptr), shape=A.shape[::-1])
        self.abs_A_T = sp.csr_matrix((np.abs(csc.data), csc.indices, csc.indptr), shape=A.shape[::-1])
        self._A_pos = sp.csr_matrix((np.maximum(A.data, 0.0), A.indices, A.indptr), shape=A.shape)
        self._A_neg = sp.csr_matrix((np.minimum(A.data, 0.0), A.indices, A.indptr), shape=A.shape)
        self._abs_A = abs(A)
        #: nonzeros of each column and each row, for the round-off bounds of :meth:`_sums`
        self.col_nnz = np.diff(csc.indptr).astype(np.float64)
        self.row_nnz = np.diff(A.indptr).astype(np.float64)

    def _check_blocks(self, base_blocks: set[str]) -> None:
        """ValueError for columns of neither the arborescence program nor a family, or base columns other
        than arcs and flows (:meth:`node_upper` knows those only)."""
        unknown = set(self.lp.var_blocks) - set(self.part_blocks) - base_blocks
        if unknown:
            raise ValueError(
                f"columns {sorted(unknown)} belong to neither the arborescence program nor a family"
            )
        odd = [
            name
            for name in base_blocks - set(self.part_blocks) - {"z", "phi"}
            if len(self.lp.var_blocks[name])
        ]
        if odd:
            raise ValueError(
                f"the arborescence program {self.base!r} has columns {odd} that are neither arcs nor flows"
            )

    def _column_bounds(self, flow_capacity: float) -> None:
        """Column bounds with those the rows imply made explicit (module docstring): arcs and parts at most
        1, flows at most the capacity; ValueError for a column without finite bounds."""
        self.upper = self.lp.col_upper.copy()
        self.upper[self.lp.cols("z")] = np.minimum(self.upper[self.lp.cols("z")], 1.0)
        if "phi" in self.lp.var_blocks:
            flows = self.lp.cols("phi")
            self.upper[flows] = np.minimum(self.upper[flows], flow_capacity)
        for name in self.part_blocks:
            if name in self.lp.var_blocks:
                cols = self.lp.cols(name)
                self.upper[cols] = np.minimum(self.upper[cols], 1.0)
        self.lower = self.lp.col_lower.copy()
        if not (np.isfinite(self.lower).all() and np.isfinite(self.upper).all()):
            raise ValueError("the full program has a column without finite bounds")

    def place(self, duals: LabelledDuals) -> NDArray[np.float64]:
        """``duals`` as one value per row of the full program; a label that names no row of it (another
        block, another arity, an index it lacks) counts as 0 (any y gives a valid bound: dropping a dual can
        only weaken it); labels named twice add up. Raises ValueError on a value that is not finite."""
        y = np.zeros(self.lp.num_rows)
        for name, (index, values) in duals.items():
            values = np.asarray(values, np.float64)
            if not np.isfinite(values).all():
                raise ValueError(f"a dual of {name} is not finite")
            block = self.lp.con_blocks.get(name)
            index = np.asarray(index, np.int64)
            if block is None or not len(index) or index.ndim != 2 or index.shape[1] != block.arity:
                continue
            rows = block.find(index)
            np.add.at(y, rows[rows >= 0], values[rows >= 0])
        if not np.isfinite(y).all():
            raise ValueError("the duals overflow")
        return y

    def node_upper(self, mask: NDArray[np.bool_]) -> NDArray[np.float64]:
        """Column upper bounds of the node over the arcs ``mask``: 0 for every column its arcs do not allow
        (an arc or a flow on an arc outside ``mask``: a tree of the node routes its flow on its arcs; a part
        not among the family's candidates over ``mask``)."""
        upper = self.upper.copy()
        for name, block in self.lp.var_blocks.items():
            part = self.part_blocks.get(name)
            if part is None:  # z (h, m), phi (h, m) or (commodity, h, m): the arc is the last two
                index = block.index
                allowed = mask[index[:, -2], index[:, -1]] if len(index) else np.zeros(0, bool)
                upper[block.positions[~allowed]] = 0.0
                continue
            held = np.column_stack(part.candidates(mask, self.single_root)).astype(np.int64)
            allowed = np.zeros(self.lp.num_cols, bool)
            if len(held):
                found = block.find(held)
                allowed[found[found >= 0]] = True
            cols = block.positions
            upper[cols[~allowed[cols]]] = 0.0
        return upper

    def node_sides(self, upper: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Each row's sides for the columns within [col_lower, ``upper``]: its own, tightened to the range of
        its activity over those bounds (widened by that range's round-off), so that every side is finite."""
        lp = self.lp
        hi = self._A_pos @ upper + self._A_neg @ self.lower
        lo = self._A_pos @ self.lower + self._A_neg @ upper
        size = np.maximum(np.abs(upper), np.abs(self.lower))
        slack = 4.0 * EPS * (self.row_nnz + 2.0) * (self._abs_A @ size)
        return np.maximum(lp.row_lower, lo - slack), np.minimum(lp.row_upper, hi + slack)

    def _sums(
        self, y: NDArray[np.float64], upper: NDArray[np.float64], cost: NDArray[np.float64]
    ) -> tuple[float, NDArray[np.float64], NDArray[np.float64]]:
        """An upper bound on ``cost``·x over every tree x of the node whose column bounds are ``upper`` (with
        its parts and flows, finite score), for any finite y: Σ_i max(y_i L_i, y_i U_i) + Σ_j max(d_j l_j,
        d_j u_j) with d = cost - Aᵀy, each family's part columns bounded by its top ``max_per_tree`` positive
        d_j; every floating-point step's round-off is added (outward), the sum taken exactly (math.fsum).
        Returns (the bound, d, each column's round-off bound); the bound is NaN when a number overflows."""
        lp = self.lp
        rows = np.flatnonzero(y)
        lo_side, hi_side = self.node_sides(upper)
        row_terms = np.maximum(y[rows] * lo_side[rows], y[rows] * hi_side[rows])
        live = np.isfinite(cost)
        d = np.where(live, cost - self.A_T @ y, -np.inf)
        err = (
            4.0 * EPS * (self.col_nnz + 2.0) * (np.where(live, np.abs(cost), 0.0) + self.abs_A_T @ np.abs(y))
        )
        terms = [row_terms, *self.column_terms(d, err, upper, self.parts, np.zeros(lp.num_cols, bool))]
        flat = np.concatenate(terms)
        if not np.isfinite(flat).all():
            return float("nan"), d, err
        try:
            total = math.fsum(flat.tolist())
        except OverflowError:  # a partial sum beyond float range: no bound (fails closed)
            return float("nan"), d, err
        total += 4.0 * EPS * (float(np.abs(flat).sum()) + abs(total))  # each product's rounding, the sum's
        return total, d, err

    def column_terms(
        self,
        d: NDArray[np.float64],
        err: NDArray[np.float64],
        upper: NDArray[np.float64],
        parts: Sequence[Parts],
        taken: NDArray[np.bool_],
    ) -> list[NDArray[np.float64]]:
        """The nonzero terms of d·x (with each column's round-off ``err``) over the columns not ``taken``: each
        family of ``parts`` by its top ``max_per_tree`` positive d_j (a tree holds at most that many of its
        parts), every other column by its box [lower, ``upper``] (:meth:`_sums`)."""
        taken = taken.copy()
        terms = []
        for part in parts:
            block = self.lp.var_blocks.get(part.column_block)
            if block is None:
                continue
            cols = block.positions
            taken[cols] = True
            gain = np.where(upper[cols] > 0, np.maximum(d[cols] + err[cols], 0.0), 0.0)
            k = part.max_per_tree(self.n)
            if gain.size > k:
                gain = np.partition(gain, gain.size - k)[gain.size - k :]
            terms.append(gain[gain > 0])
        rest = ~taken
        d_rest, lower, top = d[rest], self.lower[rest], upper[rest]
        box = np.maximum(d_rest * lower, d_rest * top) + err[rest] * np.maximum(np.abs(lower), top)
        return [*terms, box[box != 0.0]]

    def bound(self, duals: LabelledDuals, mask: NDArray[np.bool_]) -> tuple[float, NDArray[np.float64]] | str:
        """An upper bound on the score of every tree over the arcs ``mask`` (with its parts), from ``duals``
        alone, and each arc's bound when a tree must use it ((n+1, n+1): the bound less the arc column's
        term plus d of its column at 1; -inf for arcs outside ``mask``); or why the duals give none (a value
        that is not finite, or a sum that overflows)."""
        try:
            y = self.place(duals)
        except ValueError as err:
            return f"its duals do not bound it: {err}"
        upper = self.node_upper(mask)
        value, d, err = self._sums(y, upper, self.lp.cost)
        if not np.isfinite(value):
            return "its duals do not bound it: the bound overflows"
        arcs = self.lp.var_blocks["z"]
        with_arc = np.full(mask.shape, -np.inf)
        h, m = arcs.index.T
        cols = arcs.positions
        dz = d[cols] + err[cols]
        at_one = value - np.maximum(dz * upper[cols], 0.0) + dz
        with_arc[h, m] = np.where(mask[h, m] & (upper[cols] > 0), at_one, -np.inf)
        return value, with_arc

    def proves_infeasible(self, ray: LabelledDuals, mask: NDArray[np.bool_]) -> bool:
        """Whether the labelled dual ray ``ray`` proves that no tree over ``mask`` (with its parts, finite
        score) exists: for y = ±ray, the bound of :meth:`_sums` with zero cost is negative (Farkas), where
        every tree would give 0."""
        try:
            placed = self.place(ray)
        except ValueError:
            return False
        upper = self.node_upper(mask)
        zero = np.zeros(self.lp.num_cols)
        return any(self._sums(y, upper, zero)[0] < 0.0 for y in (placed, -placed))


def _token_sets(separated: Iterable[LabelledDuals], size: int) -> list[tuple[int, ...]]:
    """The token sets named by the NoCycle labels of ``separated`` (0/1 rows of ``size`` entries, two tokens or
    more: the row of an empty set, 0 <= -1, holds for no tree); a label of another shape names no row (its
    dual then counts as 0)."""
    sets: dict[tuple[int, ...], None] = {}
    for duals in separated:
        index = duals.get("NoCycle", (np.empty((0, size), np.int64), None))[0]
        if index.ndim != 2 or index.shape[1] != size:
            continue
        for row in index[((index == 0) | (index == 1)).all(axis=1) & (index.sum(axis=1) >= 2)]:
            sets[tuple(np.flatnonzero(row).tolist())] = None
    return list(sets)


def claim_problem(
    s: NDArray[np.float64],
    parts: Sequence[Parts],
    result: ExactResult,
    caches: Mapping[str, ScoreCache] | None = None,
) -> str | None:
    """Why ``result``'s claim does not hold on its face (None when it does): its tree is a tree over candidate
    arcs whose recomputed score is its objective, its bound is within the gap tolerance of it, and its root
    node holds every candidate arc. The tree's parts are scored by the families' scorers, or read from
    ``caches`` (the search's score caches, by family name) when given."""
    value = tree_claim(s, parts, result.heads, result.single_root, caches)
    if isinstance(value, str):
        return value
    if not abs(value - result.objective) <= 1e-9 * (1.0 + abs(value)):
        return f"objective {result.objective!r} is not the tree's score {value!r}"
    tolerance = gap_abs(value, result.gap_tol)
    if not result.bound >= value - tolerance:
        return f"bound {result.bound!r} is below the tree's score {value!r}"
    if not result.bound - value <= tolerance:
        return f"bound - objective = {result.bound - value:.3g} exceeds the tolerance {tolerance:.3g}"
    nodes = result.nodes
    if not nodes or nodes[0].parent != -1 or not np.array_equal(nodes[0].mask, allowed_arcs(s)):
        return "the root node does not hold every candidate arc"
    return None


def check_proof(
    arc_scores: ArrayLike,
    parts: Sequence[Parts],
    result: ExactResult,
    single_root: bool | None = None,
    gap_tol: float | None = None,
) -> str | None:
    """Why ``result`` is not a proof that ``result.heads`` is an optimal tree under the arcs and the families
    ``parts`` (None when it is), from the proof alone (:mod:`lpparse.proofs.check`). The problem is the caller's:
    the arcs, the families, the root rule ``single_root`` and the relative gap tolerance ``gap_tol`` (None:
    the result's own, for a search checking itself; a proof file's checker passes its own). Of ``result`` only
    the tree and the search tree are read (each node's parent, branching decision, fixed arcs, how it was
    closed, its duals or ray), never its objective, bound, certificates or status. The full program of every
    candidate part is built once; each solved node's bound (and each fixed arc's) is recomputed from its
    labelled duals over it; a leaf's bound, a fixed arc's, and the bound of the parent of a node closed
    unsolved must not exceed the tree's score by more than the gap tolerance; infeasible leaves are proved by
    their labelled dual rays; the children of every branched node partition its heads of one modifier. Every
    comparison fails closed (a NaN fails). ``parts`` should hold the row families the search used: duals on
    rows the full program lacks count as 0, which keeps every bound valid but may leave it too weak."""
    s = np.asarray(arc_scores, dtype=np.float64)
    single_root = result.single_root if single_root is None else bool(single_root)
    gap_tol = result.gap_tol if gap_tol is None else float(gap_tol)
    if not 0.0 <= gap_tol < math.inf:
        return f"the gap tolerance {gap_tol!r} is not a finite number >= 0"
    got = tree_claim(s, parts, result.heads, single_root)
    if isinstance(got, str):
        return got
    return nodes_problem(s, parts, result, single_root, got + gap_abs(got, gap_tol), tree=result.heads)


def nodes_problem(
    s: NDArray[np.float64],
    parts: Sequence[Parts],
    result: ExactResult,
    single_root: bool,
    limit: float,
    tree: NDArray[np.int64] | None = None,
    tree_bound: TreeBound | None = None,
) -> str | None:
    """Why the nodes of ``result`` do not prove every tree over the candidate arcs of ``s`` at most ``limit``
    (None when they do): the root holds every candidate arc, and each node is proved by :func:`_proved` over
    the full program of every candidate part (``tree``: the tree its families bind to), built once with the
    cut rows the nodes' duals and rays name. What :func:`check_proof` asks of a search with a tree, and
    :func:`lpparse.proofs.kbest.no_tree_problem` of one without, whose nodes may be closed by the
    ``tree_bound`` of their duals (none here: a node closed so fails)."""
    nodes = result.nodes
    if not nodes or nodes[0].parent != -1 or not np.array_equal(nodes[0].mask, allowed_arcs(s)):
        return "the root node does not hold every candidate arc"
    separated = [d for node in nodes for d in (node.duals, node.ray) if d is not None]
    full = ProofProgram(s, parts, single_root, result.base, separated, tree=tree)
    bounds: dict[int, float] = {}
    for node in nodes:
        problem = _proved(node, nodes, full, limit, bounds, tree_bound)
        if problem is not None:
            return f"node {node.id}: {problem}"
    return None


def tree_claim(
    s: NDArray[np.float64],
    parts: Sequence[Parts],
    heads: NDArray[np.int64] | None,
    single_root: bool,
    caches: Mapping[str, ScoreCache] | None = None,
) -> float | str:
    """The score of ``heads`` (its arcs and every family's parts), or why it is not a tree of the problem:
    not a tree under the root rule, not of the sentence's length, over an arc that is not a candidate, or of
    a score that is not finite (a pruned part)."""
    if heads is None:
        return "no tree"
    heads = np.asarray(heads)
    if heads.ndim != 1 or heads.size != s.shape[0]:
        return f"heads has {heads.size} entries, the sentence {s.shape[0] - 1} tokens and the root"
    problem = tree_error(heads, single_root)
    if problem is not None:
        return f"not a tree: {problem}"
    m = np.arange(1, heads.size)
    if not np.isfinite(s[heads[1:], m]).all():
        return "the tree uses an arc that is not a candidate"
    value = tree_score(s, parts, heads, caches)
    if not math.isfinite(value):
        return f"the tree's score {value!r} is not finite"
    return value


def _proved(
    node: BranchNode,
    nodes: list[BranchNode],
    full: ProofProgram,
    limit: float,
    bounds: dict[int, float],
    tree_bound: TreeBound | None = None,
) -> str | None:
    """Why one node is not proved from its duals over ``full`` (None when it is); ``limit``: the tree's score
    plus the gap tolerance; ``bounds``: the recomputed bounds of the nodes checked so far (parents first);
    ``tree_bound``: what bounds the trees of a node closed as ``tree`` from its duals (None: no node may be).
    Every comparison is written so that a NaN fails."""
    if node.closed == "infeasible":
        return infeasible_problem(node, full)
    if node.closed == "open":
        return "left open"
    if node.duals is None:
        if node.closed != "bound" or node.parent not in bounds:
            return f"closed as {node.closed!r} without duals"
        if not bounds[node.parent] <= limit:  # closed unsolved: its parent's bound must close it
            return (
                f"closed unsolved, its parent's recomputed bound {bounds[node.parent]!r} exceeds the tree's"
            )
        return None
    got = full.bound(node.duals, node.mask)
    if isinstance(got, str):
        return got
    bound, with_arc = got
    bounds[node.id] = bound
    if node.closed == "tree":
        if tree_bound is None:
            return "closed by the tree bound of its duals, which only a k-best subproblem's search may be"
        value = tree_bound(full, node)
        return None if value <= limit else f"its recomputed tree bound {value!r} exceeds the limit {limit!r}"
    if node.closed in ("integral", "bound"):
        return None if bound <= limit else f"its recomputed bound {bound!r} exceeds the tree's score"
    if node.closed != "branched":
        return f"closed as {node.closed!r}"
    for h, m, _ in node.fixed:
        if not (0 <= h <= full.n and 0 < m <= full.n) or not with_arc[h, m] <= limit:
            return f"arc {h}->{m} fixed, but trees using it are bounded by {with_arc[h, m]!r} only"
    return children_problem(node, nodes)


def infeasible_problem(node: BranchNode, full: ProofProgram) -> str | None:
    """Why a node closed as infeasible is not proved so (None when it is): no tree over its arcs, or a
    labelled dual ray that proves no tree of finite score exists over them (:meth:`ProofProgram.proves_infeasible`)."""
    if tree_problem(node.mask, full.single_root) is not None:
        return None
    if node.ray is None or not full.proves_infeasible(node.ray, node.mask):
        return "closed as infeasible without a dual ray that proves it"
    return None


def children_problem(node: BranchNode, nodes: list[BranchNode]) -> str | None:
    """Why the children of a branched node do not split its heads of one modifier (None when they do)."""
    children = [nodes[i] for i in node.children]
    if len(children) < 2 or any(child.parent != node.id for child in children):
        return f"children {node.children} do not record it as their parent"
    modifier = children[0].modifier
    if modifier is None or any(child.modifier != modifier or child.kept is None for child in children):
        return "its children do not split the heads of one modifier"
    base = node.base_mask()
    kept = np.array([child.kept for child in children])
    if (kept.sum(axis=0) != base[:, modifier]).any():
        return f"its children's heads of {modifier} do not partition its own"
    for child in children:
        if not np.array_equal(child.mask, child_mask(base, modifier, child.kept)):
            return f"child {child.id} does not hold its arcs"
    return None
