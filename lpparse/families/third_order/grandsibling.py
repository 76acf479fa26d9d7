"""The grand-sibling polytope: third-order part variables zgsib over the arcs and the consecutive-sibling
windows (:mod:`lpparse.families.consecutive.rows`), one head automaton of h per grandparent g.

Koo & Collins 2010, "Efficient Third-Order Dependency Parsers", ACL 2010 (the parts, decoded projectively);
Martins, Almeida & Smith 2013, "Turning on the Turbo: Fast Third-Order Non-Projective Turbo Parsers", ACL
2013 (grand-siblings in a non-projective model, as head automata conditioned on the grandparent). A part
⟨g, h, a, b⟩ is a consecutive-sibling window ⟨h, a, b⟩ of a token h (h >= 1) together with h's head g; it is
a candidate when g→h is a candidate arc and ⟨h, a, b⟩ a candidate window
(:func:`~lpparse.families.consecutive.rows.csib_mask`). A tree holds one per window of a non-root head
(:func:`max_gsibs_per_tree`). On top of the consecutive-sibling program come

* ``zgsib[g,h,a,b]`` >= 0 for every candidate part, cost s(g,h,a,b), integral in the ILP;
* ``GSibStart[g,h,σ]`` (candidate arc g→h, σ a side of h with a candidate child):
  Σ_{b on σ} zgsib[g,h,h,b] - z[g,h] <= 0;
* ``GSibFlow[g,h,m]`` (candidate arcs g→h and h→m): Σ_a zgsib[g,h,a,m] - Σ_b zgsib[g,h,m,b] = 0;
* ``GSibSum[h,a,b]`` (every candidate window of a token h): Σ_g zgsib[g,h,a,b] - zcs[h,a,b] = 0.

Per (g, h, σ), zgsib[g,h,·,·] is a flow in h's head-automaton DAG (START, h's candidate children on σ, END;
:mod:`lpparse.families.consecutive.rows`) with supply at most z[g,h], and the flows of all g add up to the
windows.

(1) *Valid.* Take a tree, its windows, and zgsib = 1 on ⟨head(h), h, a, b⟩ for each window ⟨h, a, b⟩ of a
token h. For g = head(h): a nonempty side has one first window (GSibStart: 1 - 1), each child of h has one
window into it and one out (GSibFlow: 1 - 1), other nodes none; for g ≠ head(h) every term is 0 (GSibStart
reads 0 - z[g,h] <= 0). GSibSum: a window of the tree has exactly one grandparent term, others none.

(2) *Exact.* Let (z, zcs) be a tree's arcs and windows and zgsib >= 0 satisfy the rows. For g ≠ head(h),
z[g,h] = 0, so the flow of (g, h, σ) has supply 0; in a DAG a flow conserved at every child node with no
supply is 0 (a positive edge traced backwards reaches START). GSibSum then sets zgsib[head(h),h,a,b] =
zcs[h,a,b]: the tree's parts. c·x is the tree's score and the ILP's optima are the best trees.

(3) *Extension.* Any feasible (z, zcs) of the consecutive-sibling LP extends by zgsib[g,h,a,b] =
z[g,h]·zcs[h,a,b] (Σ_g z[g,h] = 1 for a token h; GSibFlow reads z[g,h]·(CSibIn - CSibOut) = 0, GSibStart
z[g,h]·(Σ first windows - 1) <= 0): grand-sibling scores of zero leave the consecutive-sibling LP unchanged.

**Rows from the start.** Every row is indexed by arcs, pairs of arcs or windows and exists from the start,
GSibSum with the coefficient -1 of each window column, present or future (linked to the consecutive-sibling
program), so a program holding a subset of the parts is the full program with the absent columns at 0. A
window column of a token is forced to 0 until a part over it enters, so a restricted program must hold the
grand-sibling parts of the tree it starts from.

**Pruned parts** (scored -inf) get no column: the flow cannot use that edge under that grandparent, and (2)
goes through: a tree holding it has no feasible zgsib.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.families.consecutive.rows import (
    ConsecutiveSiblingProgram,
    csib_mask,
    full_consecutive_program,
    tree_csibs,
)
from lpparse.families.third_order.windows import PartKeys, WindowPartProgram, join_sorted
from lpparse.formulations.arborescence import ArborescenceLP
from lpparse.lp.program import Terms
from lpparse.lp.solution import Solution
from lpparse.trees import allowed_mask_shape
from lpparse.triples import (
    DenseQuadScorer,
    GrandSiblingBounds,
    SparseQuadScorer,
    check_gsib_batch,
)

__all__ = [
    "DenseGrandSiblingScorer",
    "SparseGrandSiblingScorer",
    "GrandSiblingProgram",
    "candidate_gsibs",
    "check_gsib_batch",
    "count_gsibs",
    "full_grandsibling_program",
    "grandsibling_program",
    "max_gsibs_per_tree",
    "solve_grandsibling",
    "gsibs_over",
    "synthetic_gsib_scorer",
    "tree_gsibs",
]

Quads = tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]


# ------------------------------------------------------------------------------------------------ parts


def _token_windows(arc_mask: NDArray[np.bool_], single_root: bool) -> NDArray[np.bool_]:
    """The candidate windows ⟨h, a, b⟩ of tokens h >= 1."""
    windows = csib_mask(arc_mask, single_root)
    windows[0] = False
    return windows


def candidate_gsibs(arc_mask: NDArray[np.bool_], single_root: bool = False) -> Quads:
    """The (g, h, a, b) index arrays of every candidate part (module docstring), in lexicographic order: each
    arc g → h joined with the windows ⟨h, a, b⟩ of h."""
    arcs = np.asarray(arc_mask, bool) & allowed_mask_shape(arc_mask.shape[0])
    h, a, b = (v.astype(np.int64) for v in np.nonzero(_token_windows(arcs, single_root)))
    g, child = (v.astype(np.int64) for v in np.nonzero(arcs))
    arc, window = join_sorted(child, h)
    return g[arc], child[arc], a[window], b[window]


def gsibs_over(arc_mask: NDArray[np.bool_], single_root: bool, parts: Quads) -> NDArray[np.bool_]:
    """Which of ``parts`` are candidates over the arcs ``arc_mask`` (:func:`candidate_gsibs`, as a test)."""
    arcs = np.asarray(arc_mask, bool) & allowed_mask_shape(arc_mask.shape[0])
    g, h, a, b = parts
    return arcs[g, h] & _token_windows(arcs, single_root)[h, a, b]


def count_gsibs(arc_mask: NDArray[np.bool_], single_root: bool = False) -> int:
    """How many candidate parts there are, in O(n³): Σ_h (candidate heads of h) × (windows of h)."""
    arcs = np.asarray(arc_mask, bool) & allowed_mask_shape(arc_mask.shape[0])
    windows = _token_windows(arcs, single_root)
    return int((arcs.sum(axis=0) * windows.sum(axis=(1, 2))).sum())


def tree_gsibs(heads: ArrayLike) -> Quads:
    """The parts ⟨head(h), h, a, b⟩ of a tree (``heads[0] = -1``), one per window of a token h, in
    lexicographic order."""
    heads = np.asarray(heads, dtype=np.int64)
    h, a, b = tree_csibs(heads)
    keep = h > 0
    h, a, b = h[keep], a[keep], b[keep]
    g = heads[h]
    order = np.lexsort((b, a, h, g))
    return g[order], h[order], a[order], b[order]


def max_gsibs_per_tree(n: int) -> int:
    """The most parts a tree of n tokens holds: the windows of its token heads, n - 1 + (nonempty sides of
    tokens) <= 2n - 2 for n >= 2 (the chain 0→1→...→n attains it; n = 1: none)."""
    if n < 0:
        raise ValueError(f"need n >= 0 tokens, got {n}")
    return max(2 * n - 2, 0)


# ---------------------------------------------------------------------------------------------- scorers


def _all_gsibs(size: int) -> NDArray[np.bool_]:
    """The (size,)*4 mask of every grand-sibling shape (all arcs candidates)."""
    arcs = allowed_mask_shape(size)
    return arcs[:, :, None, None] & _token_windows(arcs, False)[None]


@dataclass
class DenseGrandSiblingScorer(GrandSiblingBounds, DenseQuadScorer):
    """A grand-sibling scorer over an explicit (n+1,)*4 array (:class:`lpparse.triples.DenseQuadScorer`)."""

    kind = "grand-sibling"
    shapes = staticmethod(_all_gsibs)
    _check = staticmethod(check_gsib_batch)


class SparseGrandSiblingScorer(GrandSiblingBounds, SparseQuadScorer):
    """A grand-sibling scorer over listed parts (:class:`lpparse.triples.SparseQuadScorer`)."""

    kind = "grand-sibling"
    _check = staticmethod(check_gsib_batch)


def synthetic_gsib_scorer(
    n: int, rng: np.random.Generator | int | None = None, scale: float = 1.0, slack: float = 0.5
) -> DenseGrandSiblingScorer:
    """A random grand-sibling model for n tokens: N(0, scale²) scores, bounds loosened by ``slack``."""
    if n < 1:
        raise ValueError(f"need at least one token, got n={n}")
    rng = np.random.default_rng(rng)
    return DenseGrandSiblingScorer(rng.normal(0.0, scale, (n + 1,) * 4), slack=slack)


# ---------------------------------------------------------------------------------------------- program


@dataclass
class GrandSiblingProgram(WindowPartProgram):
    """Grand-sibling columns and rows on a consecutive-sibling program ``csibs``: ``start_row[g, h, σ]``,
    ``flow_row[g, h, m]`` and ``sum_row[h, a, b]`` (-1: none); the parts with a column or pruned in
    ``keys``."""

    start_row: NDArray[np.int64]
    flow_row: NDArray[np.int64]
    sum_row: NDArray[np.int64]
    #: windows whose GSibSum row holds a part (the others hold at most their window's column)
    sum_used: NDArray[np.bool_] = field(init=False)

    block = "zgsib"
    kind = "grand-sibling"
    needs = "⟨g, h, a, b⟩ needs a candidate arc g→h and a candidate window ⟨h, a, b⟩ of a token h"

    def __post_init__(self) -> None:
        self.sum_used = np.zeros(self.sum_row.shape, bool)

    def candidate(self, parts: Quads) -> NDArray[np.bool_]:
        g, h, a, b = parts
        return (self.csibs.z_col[g, h] >= 0) & (self.sum_row[h, a, b] >= 0)

    def _coefficients(self, parts: Quads, cols: NDArray[np.int64]) -> None:
        g, h, a, b = parts
        first, into, out_of = a == h, b != h, a != h
        side = (b > h).astype(np.int64)
        rows = np.concatenate(
            [
                self.start_row[g[first], h[first], side[first]],
                self.flow_row[g[into], h[into], b[into]],
                self.flow_row[g[out_of], h[out_of], a[out_of]],
                self.sum_row[h, a, b],
            ]
        )
        columns = np.concatenate([cols[first], cols[into], cols[out_of], cols])
        values = np.concatenate(
            [np.ones(int(first.sum())), np.ones(int(into.sum())), -np.ones(int(out_of.sum())), np.ones(cols.size)]
        )
        self.lp.add_coefficients(rows, columns, values)
        self.sum_used[h, a, b] = True

    def row_duals(
        self, y: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """The duals of GSibStart [g, h, σ], GSibFlow [g, h, m] and GSibSum [h, a, b] (0: no row)."""

        def read(rows: NDArray[np.int64]) -> NDArray[np.float64]:
            return np.where(rows >= 0, y[np.maximum(rows, 0)], 0.0)

        return read(self.start_row), read(self.flow_row), read(self.sum_row)


def _empty_equalities(lp: ArborescenceLP, name: str, index: NDArray[np.int64]) -> NDArray[np.int64]:
    """Rows ``name[index]`` reading 0 = 0 until parts (and linked window columns) add their coefficients."""
    nothing = np.empty(0, np.int64)
    return lp.add_constraints(name, index, nothing, nothing, np.empty(0), 0.0, 0.0)


def grandsibling_program(csibs: ConsecutiveSiblingProgram) -> GrandSiblingProgram:
    """Attach the GSibStart, GSibFlow and GSibSum rows to the consecutive-sibling program ``csibs`` (no
    grand-sibling part yet), GSibSum with the coefficient -1 of its window columns, present and future;
    ValueError if attached already."""
    lp = csibs.lp
    if "zgsib" in lp.var_blocks:
        raise ValueError("the grand-sibling family is attached to this program already")
    size = csibs.n + 1
    arcs = csibs.arc_mask
    g, h = np.nonzero(arcs[:, 1:])
    h = h + 1  # arcs into tokens
    # GSibStart[g, h, σ]: sides of h with a candidate child
    child_side = np.zeros((size, 2), bool)
    hh, mm = np.nonzero(arcs)
    child_side[hh, (mm > hh).astype(np.int64)] = True
    pair, side = np.nonzero(child_side[h])  # per arc g→h, the sides of h with a candidate child
    start_index = np.column_stack([g[pair], h[pair], side]).astype(np.int64)
    start_row = np.full((size, size, 2), -1, np.int64)
    z = csibs.z_col[start_index[:, 0], start_index[:, 1]]
    start_row[start_index[:, 0], start_index[:, 1], start_index[:, 2]] = lp.constrain(
        "GSibStart", start_index, -Terms.columns(z), upper=0.0
    )
    # GSibFlow[g, h, m]: arcs g→h and h→m
    flow = arcs[:, :, None] & arcs[None, :, :]
    flow[:, 0, :] = False
    fg, fh, fm = np.nonzero(flow)
    flow_row = np.full((size,) * 3, -1, np.int64)
    flow_row[fg, fh, fm] = _empty_equalities(lp, "GSibFlow", np.column_stack([fg, fh, fm]))
    # GSibSum[h, a, b]: windows of tokens
    wh, wa, wb = np.nonzero(_token_windows(arcs, csibs.single_root))
    sum_row = np.full((size,) * 3, -1, np.int64)
    sum_row[wh, wa, wb] = _empty_equalities(lp, "GSibSum", np.column_stack([wh, wa, wb]))
    csibs.link(sum_row, -1.0)
    lp.name += "+grandsibling"
    lp.add_variables("zgsib", np.empty((0, 4), np.int64), integer=True)
    return GrandSiblingProgram(csibs, PartKeys(csibs.n, 4), start_row, flow_row, sum_row)


def full_grandsibling_program(
    arc_scores: ArrayLike,
    csib_scores: ArrayLike,
    gsib_scores: ArrayLike,
    single_root: bool = False,
    base: str = "single-flow",
) -> GrandSiblingProgram:
    """The arborescence program ``base`` with every candidate window (dense (n+1,)*3 ``csib_scores``) and
    every candidate grand-sibling part (dense (n+1,)*4 ``gsib_scores``) instantiated (-inf: pruned). Raises
    NoTreeError."""
    prog = grandsibling_program(full_consecutive_program(arc_scores, csib_scores, single_root, base))
    quads = candidate_gsibs(prog.csibs.arc_mask, single_root)
    prog.add_parts(*quads, np.asarray(gsib_scores, dtype=np.float64)[quads])
    return prog


def solve_grandsibling(
    arc_scores: ArrayLike,
    csib_scores: ArrayLike,
    gsib_scores: ArrayLike,
    single_root: bool = False,
    mip: bool = False,
    base: str = "single-flow",
) -> tuple[GrandSiblingProgram, Solution]:
    """Build the full program (:func:`full_grandsibling_program`) and solve it with HiGHS as LP or ILP."""
    prog = full_grandsibling_program(arc_scores, csib_scores, gsib_scores, single_root, base)
    from lpparse.lp.highs_view import HighsModel  # HiGHS where a program is solved: building one needs none

    return prog, HighsModel(prog.lp, mip=mip).solve()
