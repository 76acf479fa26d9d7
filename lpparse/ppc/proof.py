"""Proofs that stand alone: node bounds recomputed from labelled duals over one full program.

A branch-and-bound proof (:mod:`lpparse.ppc.exact`) records, per solved node, the duals of its LP by row
*label* (block name and index tuple, :data:`LabelledDuals`), not a certificate's verdict. The checker
(:class:`ProofProgram`) builds the sentence's full program once, with every candidate arc and every
candidate part of every family (what brute force solves), and derives each node's program from it by bounds
alone: columns that the node's arcs do not allow (its dropped arcs, their flow columns, the parts over them)
are fixed at 0. On the cycle-cut base the full program also holds every NoCycle row that a recorded dual or
ray names: such a row's label is its token set S, and the checker builds Σ_{h,m in S} z[h,m] <= |S| - 1 from
it (valid for every tree, whatever S is); likewise every row that a family separates as a cut and a label names
(a family's ``add_named_rows``: SibTriangle and GPSibTriangle rows,
:meth:`lpparse.ppc.families.SiblingFamily.add_named_rows`; GSibGP rows,
:meth:`lpparse.ppc.third_order.GrandSiblingFamily.add_named_rows`). Every row of the full program is valid for
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

This is the shape of VIPR's certificates for exact MIP (Cheung, Gleixner & Steffy 2017, "Verifying Integer
Programming Results", IPCO 2017): the search may use any solver and any tolerance; the proof is re-checked
from the problem and the recorded duals by a small program.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.colgen.cache import ScoreCache
from lpparse.colgen.options import ColgenOptions
from lpparse.formulations.arborescence import add_subtour_cuts
from lpparse.formulations.grandparent import arc_program
from lpparse.lp.program import LinearProgram
from lpparse.lp.solution import _bound_value
from lpparse.oracles.chu_liu_edmonds import chu_liu_edmonds
from lpparse.ppc.certificate import OutsideDuals
from lpparse.ppc.parts import Binding, Parts, tree_score
from lpparse.ppc.search_tree import BranchNode, ExactResult, child_mask, gap_abs
from lpparse.trees import allowed_arcs, tree_error, tree_problem

__all__ = [
    "LabelledDuals",
    "ProofProgram",
    "check_proof",
    "children_problem",
    "claim_problem",
    "label_duals",
    "signed",
]

#: Duals by row label: block name -> (index tuples (k, arity), values (k,)), nonzero values only
LabelledDuals = dict[str, tuple[NDArray[np.int64], NDArray[np.float64]]]


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
    arborescence program ``base``), against which node records are checked (module docstring). Under a base
    whose rows are separated (``cycle-cuts``) it holds the NoCycle rows that the labels of ``separated``
    (duals and rays) name: a NoCycle row's label is its token set (a 0/1 membership row), from which the row
    is built here, valid for every tree whatever set it names."""

    def __init__(
        self,
        arc_scores: NDArray[np.float64],
        parts: Sequence[Parts],
        single_root: bool,
        base: str,
        separated: Iterable[LabelledDuals] = (),
    ) -> None:
        self.s, self.parts, self.single_root, self.base = arc_scores, list(parts), single_root, base
        separated = list(separated)
        prog = arc_program(arc_scores, single_root, base)
        if prog.lp.formulation == "cycle-cuts":
            add_subtour_cuts(prog.lp, _token_sets(separated, arc_scores.shape[0]))
        tree = chu_liu_edmonds(arc_scores, single_root=single_root)
        families = [p.bind(Binding(prog, arc_scores, tree, ColgenOptions(), None)) for p in parts]
        for family in families:
            family.tree = None  # every candidate part
            family.seed()
        for family in families:  # the rows a family separates as cuts that the labels name
            named = getattr(family, "add_named_rows", None)
            if named is not None:
                named(separated)
        self.lp = prog.lp
        self.A_T = self.lp.A.T.tocsr()
        self.n = arc_scores.shape[0] - 1
        #: column upper bounds with those the rows imply made explicit (module docstring)
        self.upper = self.lp.col_upper.copy()
        self.upper[self.lp.cols("z")] = np.minimum(self.upper[self.lp.cols("z")], 1.0)
        if "phi" in self.lp.var_blocks:
            flows = self.lp.cols("phi")
            self.upper[flows] = np.minimum(self.upper[flows], float(prog.lp.flow_capacity))

    def place(self, duals: LabelledDuals) -> NDArray[np.float64]:
        """``duals`` as one value per row of the full program; duals on rows it lacks count as 0 (any y gives
        a valid bound: dropping a dual can only weaken it)."""
        y = np.zeros(self.lp.num_rows)
        for name, (index, values) in duals.items():
            block = self.lp.con_blocks.get(name)
            if block is None or not len(index):
                continue
            rows = block.find(index)
            np.add.at(y, rows[rows >= 0], values[rows >= 0])
        return y

    def node_upper(self, mask: NDArray[np.bool_]) -> NDArray[np.float64]:
        """Column upper bounds of the node over the arcs ``mask``: 0 for every column its arcs do not allow."""
        upper = self.upper.copy()
        node = arc_program(np.where(mask, self.s, -np.inf), self.single_root, self.base).lp
        for name, block in self.lp.var_blocks.items():
            if name in node.var_blocks:
                held = node.var_blocks[name].index
            else:
                part = next((p for p in self.parts if p.column_block == name), None)
                if part is None:
                    raise ValueError(
                        f"columns {name!r} belong to neither the arborescence program nor a family"
                    )
                held = np.column_stack(part.candidates(mask, self.single_root)).astype(np.int64)
            allowed = np.zeros(self.lp.num_cols, bool)
            if len(held):
                found = block.find(held)
                allowed[found[found >= 0]] = True
            cols = block.positions
            upper[cols[~allowed[cols]]] = 0.0
        return upper

    def _sums(
        self, y: NDArray[np.float64], upper: NDArray[np.float64]
    ) -> tuple[float, float, NDArray[np.float64]]:
        """(value, mass on an infinite side, d) of Σ_i max(y_i L_i, y_i U_i) + Σ_j max(d_j l_j, d_j u_j) with
        each family's part columns (bounds [0, 1]) bounded by its top ``max_per_tree`` positive d_j."""
        lp = self.lp
        d = lp.cost - self.A_T @ y
        rows, rows_wrong = _bound_value(lp.row_lower, lp.row_upper, y)
        lower = lp.col_lower
        part_cols = np.zeros(lp.num_cols, bool)
        value = rows
        for part in self.parts:
            block = lp.var_blocks.get(part.column_block)
            if block is None:
                continue
            cols = block.positions
            part_cols[cols] = True
            gain = np.where(upper[cols] > 0, np.maximum(d[cols], 0.0), 0.0)
            k = part.max_per_tree(self.n)
            if gain.size > k:
                gain = np.partition(gain, gain.size - k)[gain.size - k :]
            value += float(gain.sum())
        other = ~part_cols
        cols_value, cols_wrong = _bound_value(lower[other], upper[other], d[other])
        return value + cols_value, max(rows_wrong, cols_wrong), d

    def bound(
        self, duals: LabelledDuals, mask: NDArray[np.bool_], tol: float = 1e-9
    ) -> tuple[float, NDArray[np.float64]] | str:
        """An upper bound on the score of every tree over the arcs ``mask`` (with its parts), from ``duals``
        alone, and each arc's bound when a tree must use it ((n+1, n+1): the bound less max(d, 0) plus d of its
        column; -inf for arcs outside ``mask``); or why the duals give none."""
        y = self.place(duals)
        value, wrong, d = self._sums(y, self.node_upper(mask))
        if wrong > tol * (1.0 + float(np.abs(y).max(initial=0.0))):
            return "its duals sit on an infinite side of a row or column"
        arcs = self.lp.var_blocks["z"]
        with_arc = np.full(mask.shape, -np.inf)
        h, m = arcs.index.T
        dz = d[arcs.positions]
        with_arc[h, m] = np.where(mask[h, m], value - np.maximum(dz, 0.0) + dz, -np.inf)
        return value, with_arc

    def proves_infeasible(self, ray: LabelledDuals, mask: NDArray[np.bool_], tol: float = 1e-9) -> bool:
        """Whether the labelled dual ray ``ray`` proves that no tree over ``mask`` (with its parts) exists."""
        placed = self.place(ray)
        upper = self.node_upper(mask)
        for y in (placed, -placed):
            scale = 1.0 + float(np.abs(y).max(initial=0.0))
            rows, rows_wrong = _bound_value(self.lp.row_lower, self.lp.row_upper, y)
            cols, cols_wrong = _bound_value(self.lp.col_lower, upper, -(self.A_T @ y))
            if max(rows_wrong, cols_wrong) <= tol * scale and rows + cols < -tol * scale:
                return True
        return False


def _token_sets(separated: Iterable[LabelledDuals], size: int) -> list[tuple[int, ...]]:
    """The token sets named by the NoCycle labels of ``separated`` (0/1 rows of ``size`` entries); a label of
    another shape names no row (its dual then counts as 0)."""
    sets: dict[tuple[int, ...], None] = {}
    for duals in separated:
        index = duals.get("NoCycle", (np.empty((0, size), np.int64), None))[0]
        if index.ndim != 2 or index.shape[1] != size:
            continue
        for row in index[((index == 0) | (index == 1)).all(axis=1)]:
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
    if result.heads is None:
        return "no tree"
    problem = tree_error(result.heads, result.single_root)
    if problem is not None:
        return f"not a tree: {problem}"
    m = np.arange(1, result.heads.size)
    if not np.isfinite(s[result.heads[1:], m]).all():
        return "the tree uses an arc that is not a candidate"
    value = tree_score(s, parts, result.heads, caches)
    if abs(value - result.objective) > 1e-9 * (1.0 + abs(value)):
        return f"objective {result.objective!r} is not the tree's score {value!r}"
    tolerance = gap_abs(value, result.gap_tol)
    if result.bound < value - tolerance:
        return f"bound {result.bound!r} is below the tree's score {value!r}"
    if result.bound - value > tolerance:
        return f"bound - objective = {result.bound - value:.3g} exceeds the tolerance {tolerance:.3g}"
    nodes = result.nodes
    if not nodes or nodes[0].parent != -1 or not np.array_equal(nodes[0].mask, allowed_arcs(s)):
        return "the root node does not hold every candidate arc"
    return None


def check_proof(arc_scores: ArrayLike, parts: Sequence[Parts], result: ExactResult) -> str | None:
    """Why ``result`` is not a proof that ``result.heads`` is an optimal tree under the arcs and the families
    ``parts`` (None when it is), from the proof alone (:mod:`lpparse.ppc.proof`): the full program of every
    candidate part is built once; each solved node's bound (and each fixed arc's) is recomputed from its
    labelled duals over it, never read from a certificate or a stored bound; a leaf's recomputed bound, a
    fixed arc's, and the recomputed bound of the parent of a node closed unsolved must not exceed the tree's
    score by more than the gap tolerance; infeasible leaves are proved by their labelled dual rays; the
    children of every branched node partition its heads of one modifier. ``parts`` should hold the row
    families the search used: duals on rows the full program lacks count as 0, which keeps every bound
    valid but may leave it too weak to close the node."""
    s = np.asarray(arc_scores, dtype=np.float64)
    problem = claim_problem(s, parts, result)
    if problem is not None:
        return problem
    value = tree_score(s, parts, result.heads)  # type: ignore[arg-type]
    limit = value + gap_abs(value, result.gap_tol)
    separated = [d for node in result.nodes for d in (node.duals, node.ray) if d is not None]
    full = ProofProgram(s, parts, result.single_root, result.base, separated)
    bounds: dict[int, float] = {}
    for node in result.nodes:
        problem = _proved(node, result.nodes, full, limit, bounds)
        if problem is not None:
            return f"node {node.id}: {problem}"
    return None


def _proved(
    node: BranchNode, nodes: list[BranchNode], full: ProofProgram, limit: float, bounds: dict[int, float]
) -> str | None:
    """Why one node is not proved from its duals over ``full`` (None when it is); ``limit``: the tree's score
    plus the gap tolerance; ``bounds``: the recomputed bounds of the nodes checked so far (parents first)."""
    if node.closed == "infeasible":
        if tree_problem(node.mask, full.single_root) is not None:
            return None
        if node.ray is None or not full.proves_infeasible(node.ray, node.mask):
            return "closed as infeasible without a dual ray that proves it"
        return None
    if node.closed == "open":
        return "left open"
    if node.duals is None:
        if node.closed != "bound" or node.parent not in bounds:
            return f"closed as {node.closed!r} without duals"
        if bounds[node.parent] > limit:  # closed unsolved: its parent's bound must close it
            return (
                f"closed unsolved, its parent's recomputed bound {bounds[node.parent]!r} exceeds the tree's"
            )
        return None
    got = full.bound(node.duals, node.mask)
    if isinstance(got, str):
        return got
    bound, with_arc = got
    bounds[node.id] = bound
    if node.closed in ("integral", "bound"):
        return None if bound <= limit else f"its recomputed bound {bound!r} exceeds the tree's score"
    if node.closed != "branched":
        return f"closed as {node.closed!r}"
    for h, m, _ in node.fixed:
        if with_arc[h, m] > limit:
            return f"arc {h}->{m} fixed, but trees using it are bounded by {with_arc[h, m]!r} only"
    return children_problem(node, nodes)


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
