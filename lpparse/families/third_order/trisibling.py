"""The tri-sibling polytope: third-order part variables ztsib over the consecutive-sibling program
(:mod:`lpparse.families.consecutive.rows`), a second-order head automaton per head and side.

Koo & Collins 2010, "Efficient Third-Order Dependency Parsers", ACL 2010 (the parts, decoded projectively);
Martins, Almeida & Smith 2013, "Turning on the Turbo: Fast Third-Order Non-Projective Turbo Parsers", ACL
2013 (tri-siblings in a non-projective model, as second-order head automata). For head h and one side with
children c1..ck ordered outward, the parts are the windows of three over [h, c1, ..., ck, h]:
⟨h, h, c1, c2⟩, ⟨h, c(i-1), ci, c(i+1)⟩, ⟨h, c(k-1), ck, h⟩, and ⟨h, h, c1, h⟩ for an only child; an empty
side has none. Each child is the middle of exactly one part, so a tree holds n of them
(:func:`max_tsibs_per_tree`). A part ⟨h, x, a, b⟩ is a candidate when a ≠ h and both ⟨h, x, a⟩ and
⟨h, a, b⟩ are candidate consecutive-sibling windows (:func:`~lpparse.families.consecutive.rows.csib_mask`):
then x, a, b lie outward on one side of h.

The parts are the edges of a DAG per (h, side) whose nodes are the consecutive-sibling windows: ⟨h, x, a, b⟩
leads from window ⟨h, x, a⟩ to window ⟨h, a, b⟩. On top of the consecutive-sibling program come

* ``ztsib[h,x,a,b]`` >= 0 for every candidate part, cost s(h,x,a,b), integral in the ILP;
* ``TSibIn[h,a,b]`` (every candidate window with a ≠ h):  Σ_x ztsib[h,x,a,b] - zcs[h,a,b] = 0;
* ``TSibOut[h,x,a]`` (every candidate window with a ≠ h): Σ_b ztsib[h,x,a,b] - zcs[h,x,a] = 0.

(1) *Valid.* A tree's windows form, per nonempty side, the path ⟨h,h,c1⟩ → ⟨h,c1,c2⟩ → ... → ⟨h,ck,h⟩, and its
tri-sibling parts are that path's edges. A window ⟨h, a, b⟩ of the tree with a ≠ h has exactly one part into
it (the one with middle a) and, with b ≠ h, exactly one out of it (middle b): both rows read 1 - 1; a window
outside the tree has no part of the tree: 0 - 0.

(2) *Exact.* Let (z, zcs) be a tree's arcs and windows, so zcs is the indicator of the tree's paths, and let
ztsib >= 0 satisfy the rows. An edge out of a window not in the tree, or into one, carries 0 (its TSibOut or
TSibIn row has zcs = 0). Each window of the tree other than the last has TSibOut = 1 spread over edges into
windows of the tree, and the only window of the tree that continues it (shares its second child as first)
is the next one on the path: that edge carries 1. So ztsib is the tree's tri-sibling indicator, c·x is the
tree's score, and the ILP's optima are the best trees.

(3) *Extension.* Any feasible (z, zcs) of the consecutive-sibling LP extends: per (h, side), zcs is a flow on
the head automaton's DAG; decompose it into START→END paths and give each path's consecutive window pairs
its weight. Tri-sibling scores of zero leave the consecutive-sibling LP's value unchanged, and the LP is the
consecutive-sibling LP intersected with one second-order automaton flow per (h, side).

**Rows from the start.** TSibIn and TSibOut are indexed by candidate windows and exist from the start, with
the coefficient -1 of each window column present now or added later (:class:`TriSiblingProgram` links
them to the consecutive-sibling program), so a program with a subset of the parts is the full program with
the absent columns at 0 and every row present. A window column whose rows hold no part is forced to 0, so a
restricted program must hold the tri-sibling parts of the tree it starts from.

**Pruned parts** (scored -inf) get no column: the flow cannot use that edge, and (2) goes through without
it: a tree using it has no feasible ztsib.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.families.consecutive.rows import (
    ConsecutiveSiblingProgram,
    candidate_csibs,
    csib_mask,
    full_consecutive_program,
    outward_children,
)
from lpparse.families.third_order.windows import PartKeys, WindowPartProgram, join_sorted
from lpparse.lp.solution import Solution
from lpparse.trees import allowed_mask_shape
from lpparse.triples import (
    DenseQuadScorer,
    SparseQuadScorer,
    TriSiblingBounds,
    check_tsib_batch,
)

__all__ = [
    "DenseTriSiblingScorer",
    "SparseTriSiblingScorer",
    "check_tsib_batch",
    "TriSiblingProgram",
    "candidate_tsibs",
    "count_tsibs",
    "full_trisibling_program",
    "max_tsibs_per_tree",
    "solve_trisibling",
    "synthetic_tsib_scorer",
    "trisibling_program",
    "tree_tsibs",
    "tsibs_over",
]

Quads = tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]


# ------------------------------------------------------------------------------------------------ parts


def candidate_tsibs(arc_mask: NDArray[np.bool_], single_root: bool = False) -> Quads:
    """The (h, x, a, b) index arrays of every candidate part (module docstring), in lexicographic order: each
    window ⟨h, x, a⟩ with a child a ≠ h, joined with the windows ⟨h, a, b⟩ out of a."""
    windows = csib_mask(arc_mask, single_root)
    size = windows.shape[0]
    h, x, a = (v.astype(np.int64) for v in np.nonzero(windows))  # lexicographic
    first, second = join_sorted(np.where(a != h, h * size + a, -1), h * size + x)
    return h[first], x[first], a[first], a[second]


def tsibs_over(arc_mask: NDArray[np.bool_], single_root: bool, parts: Quads) -> NDArray[np.bool_]:
    """Which of ``parts`` are candidates over the arcs ``arc_mask`` (:func:`candidate_tsibs`, as a test)."""
    windows = csib_mask(arc_mask, single_root)
    h, x, a, b = parts
    return (a != h) & windows[h, x, a] & windows[h, a, b]


def count_tsibs(arc_mask: NDArray[np.bool_], single_root: bool = False) -> int:
    """How many candidate parts there are (:func:`candidate_tsibs`), in O(n³): Σ over windows' middles a ≠ h
    of (windows into a) × (windows out of a)."""
    windows = csib_mask(arc_mask, single_root)
    into = windows.sum(axis=1)  # [h, a]: windows ⟨h, ·, a⟩
    out = windows.sum(axis=2)  # [h, a]: windows ⟨h, a, ·⟩
    np.fill_diagonal(into, 0)
    return int((into * out).sum())


def tree_tsibs(heads: ArrayLike) -> Quads:
    """The parts ⟨h, x, a, b⟩ of a tree (``heads[0] = -1``), one per token a, in lexicographic order: per
    head and side, the children sorted outward and the windows of three over [h, c1, ..., ck, h]."""
    p, m, before, after = outward_children(heads)
    lex = np.lexsort((after, m, before, p))
    return p[lex], before[lex], m[lex], after[lex]


def max_tsibs_per_tree(n: int) -> int:
    """The most parts a tree of n tokens holds: one per token (module docstring)."""
    if n < 0:
        raise ValueError(f"need n >= 0 tokens, got {n}")
    return n


# ---------------------------------------------------------------------------------------------- scorers


def _all_tsibs(size: int) -> NDArray[np.bool_]:
    """The (size,)*4 mask of every tri-sibling shape (all arcs candidates)."""
    w = csib_mask(allowed_mask_shape(size))
    i = np.arange(size)
    middle = i[None, :] != i[:, None]  # [h, a]: a ≠ h
    return w[:, :, :, None] & w[:, None, :, :] & middle[:, None, :, None]


@dataclass
class DenseTriSiblingScorer(TriSiblingBounds, DenseQuadScorer):
    """A tri-sibling scorer over an explicit (n+1,)*4 array (:class:`lpparse.triples.DenseQuadScorer`)."""

    kind = "tri-sibling"
    shapes = staticmethod(_all_tsibs)
    _check = staticmethod(check_tsib_batch)


class SparseTriSiblingScorer(TriSiblingBounds, SparseQuadScorer):
    """A tri-sibling scorer over listed parts (:class:`lpparse.triples.SparseQuadScorer`)."""

    kind = "tri-sibling"
    _check = staticmethod(check_tsib_batch)


def synthetic_tsib_scorer(
    n: int, rng: np.random.Generator | int | None = None, scale: float = 1.0, slack: float = 0.5
) -> DenseTriSiblingScorer:
    """A random tri-sibling model for n tokens: N(0, scale²) scores, bounds loosened by ``slack``."""
    if n < 1:
        raise ValueError(f"need at least one token, got n={n}")
    rng = np.random.default_rng(rng)
    return DenseTriSiblingScorer(rng.normal(0.0, scale, (n + 1,) * 4), slack=slack)


# ---------------------------------------------------------------------------------------------- program


@dataclass
class TriSiblingProgram(WindowPartProgram):
    """Tri-sibling columns and rows on a consecutive-sibling program ``csibs``: ``in_row[h, a, b]`` and
    ``out_row[h, x, a]``: rows TSibIn/TSibOut of a window (-1: none); the parts with a column or pruned in
    ``keys``."""

    in_row: NDArray[np.int64]
    out_row: NDArray[np.int64]
    #: windows whose TSibIn / TSibOut row holds a part (the others hold at most their window's column)
    in_used: NDArray[np.bool_] = field(init=False)
    out_used: NDArray[np.bool_] = field(init=False)

    block = "ztsib"
    kind = "tri-sibling"
    needs = "⟨h, x, a, b⟩ needs a ≠ h and candidate windows ⟨h, x, a⟩, ⟨h, a, b⟩"

    def __post_init__(self) -> None:
        self.in_used = np.zeros(self.in_row.shape, bool)
        self.out_used = np.zeros(self.out_row.shape, bool)

    def candidate(self, parts: Quads) -> NDArray[np.bool_]:
        h, x, a, b = parts
        return (self.out_row[h, x, a] >= 0) & (self.in_row[h, a, b] >= 0)

    def _coefficients(self, parts: Quads, cols: NDArray[np.int64]) -> None:
        h, x, a, b = parts
        rows = np.concatenate([self.out_row[h, x, a], self.in_row[h, a, b]])
        self.lp.add_coefficients(rows, np.concatenate([cols, cols]), np.ones(rows.size))
        self.out_used[h, x, a] = True
        self.in_used[h, a, b] = True

    def node_duals(self, y: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """(y_out, y_in) as (n+1)^3 arrays: the duals of TSibOut[h, x, a] and TSibIn[h, a, b] (0: no row)."""
        out = np.where(self.out_row >= 0, y[np.maximum(self.out_row, 0)], 0.0)
        into = np.where(self.in_row >= 0, y[np.maximum(self.in_row, 0)], 0.0)
        return out, into


def trisibling_program(csibs: ConsecutiveSiblingProgram) -> TriSiblingProgram:
    """Attach the TSibIn/TSibOut rows of every candidate window to the consecutive-sibling program ``csibs``
    (no tri-sibling part yet), with the coefficient -1 of its window columns, present and future; ValueError
    if attached already."""
    lp = csibs.lp
    if "ztsib" in lp.var_blocks:
        raise ValueError("the tri-sibling family is attached to this program already")
    size = csibs.n + 1
    h, a, b = candidate_csibs(csibs.arc_mask, csibs.single_root)
    in_row = np.full((size,) * 3, -1, np.int64)
    out_row = np.full((size,) * 3, -1, np.int64)
    has_in = a != h  # the window has a part into it: its first child is not START
    has_out = b != h  # ... out of it: its second child is not END
    for name, rows, keep in (("TSibIn", in_row, has_in), ("TSibOut", out_row, has_out)):
        index = np.column_stack([h[keep], a[keep], b[keep]])
        rows[h[keep], a[keep], b[keep]] = lp.add_constraints(
            name, index, np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0), 0.0, 0.0
        )
        csibs.link(rows, -1.0)
    lp.name += "+trisibling"
    lp.add_variables("ztsib", np.empty((0, 4), np.int64), integer=True)
    return TriSiblingProgram(csibs, PartKeys(csibs.n, 4), in_row, out_row)


def full_trisibling_program(
    arc_scores: ArrayLike,
    csib_scores: ArrayLike,
    tsib_scores: ArrayLike,
    single_root: bool = False,
    base: str = "single-flow",
) -> TriSiblingProgram:
    """The arborescence program ``base`` with every candidate window (dense (n+1,)*3 ``csib_scores``) and
    every candidate tri-sibling part (dense (n+1,)*4 ``tsib_scores``) instantiated (-inf: pruned). Raises
    NoTreeError."""
    prog = trisibling_program(full_consecutive_program(arc_scores, csib_scores, single_root, base))
    quads = candidate_tsibs(prog.csibs.arc_mask, single_root)
    prog.add_parts(*quads, np.asarray(tsib_scores, dtype=np.float64)[quads])
    return prog


def solve_trisibling(
    arc_scores: ArrayLike,
    csib_scores: ArrayLike,
    tsib_scores: ArrayLike,
    single_root: bool = False,
    mip: bool = False,
    base: str = "single-flow",
) -> tuple[TriSiblingProgram, Solution]:
    """Build the full program (:func:`full_trisibling_program`) and solve it with HiGHS as LP or ILP."""
    prog = full_trisibling_program(arc_scores, csib_scores, tsib_scores, single_root, base)
    from lpparse.lp.highs_view import HighsModel  # HiGHS where a program is solved: building one needs none

    return prog, HighsModel(prog.lp, mip=mip).solve()

