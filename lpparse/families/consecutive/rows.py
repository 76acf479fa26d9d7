"""The consecutive-sibling (head automaton) polytope: part variables zcs over the arc variables of an
arborescence program, a grandparent program or a sibling program.

McDonald & Pereira 2006, "Online Learning of Approximate Dependency Parsing Algorithms", EACL 2006 (the
parts); Koo, Rush, Collins, Jaakkola & Sontag 2010, "Dual Decomposition for Parsing with Non-Projective Head
Automata", EMNLP 2010 (one head automaton per head and side). For head h and one side (left: children
m < h; right: m > h; the root 0 has a right side only) with children c1..ck ordered *outward* (nearest h
first), the parts are the windows of two over [h, c1, ..., ck, h]: ⟨h, h, c1⟩ (first child),
⟨h, ci, ci+1⟩, ⟨h, ck, h⟩ (last child); an empty side has none. A part ⟨h, a, b⟩ is a candidate when

* a = h ≠ b and h→b is a candidate arc (first child b), or b = h ≠ a and h→a is one (last child a), or
* a, b ≠ h on the same side of h, a strictly nearer (h < a < b or b < a < h), h→a and h→b candidates;
* with ``single_root`` the root takes one child, so its middle parts ⟨0, a, b⟩ are in no tree: they are
  **excluded** (no candidate), its parts are ⟨0, 0, c⟩ and ⟨0, c, 0⟩.

Per head h and side σ, the head automaton is the DAG G(h,σ) with nodes START, the candidate children of h
on σ and END, and one edge per candidate part: START→b is ⟨h,h,b⟩, a→b is ⟨h,a,b⟩, a→END is ⟨h,a,h⟩ (edges
point outward, so G is acyclic). On top of a program with arc columns ``z[h,m]``
(:mod:`lpparse.formulations.arborescence`) come

* ``zcs[h,a,b]`` >= 0 for every candidate part, cost s(h,a,b), integral in the ILP;
* ``CSibIn[h,m]`` (every candidate arc):  Σ_a zcs[h,a,m] - z[h,m] = 0   (flow into node m);
* ``CSibOut[h,m]`` (every candidate arc): Σ_b zcs[h,m,b] - z[h,m] = 0   (flow out of node m);
* ``CSibStart[h,σ]`` (σ = 0 left, 1 right; sides with a candidate child): Σ_b zcs[h,h,b] <= 1 (b on σ).

(1) *Valid.* Take a tree and its windows. A child ci of h is the b of exactly one window ⟨h, c(i-1) or h,
ci⟩ and the a of exactly one ⟨h, ci, c(i+1) or h⟩, so CSibIn and CSibOut read 1 - 1 = 0; an arc
outside the tree is in no window: 0 - 0. A nonempty side has one first-child window, an empty one none:
CSibStart reads 1 or 0. Tree arcs are candidates, so every window is a candidate part (with a single root the
root's side has one child, so no middle root window).

(2) *Exact.* Let z be a tree's arcs and zcs >= 0 (fractional even) satisfy the rows. Per (h, σ), zcs is a
flow in the DAG G(h,σ) with node throughputs z[h,m] and supply f <= 1 (END's balance is the sum of the
others); it decomposes into START→END paths of total weight f, and node m lies on paths of weight
z[h,m] ∈ {0, 1}. If the tree's child set C on σ is nonempty, a child of C lies on paths of weight 1 >= f,
so f = 1 and every path visits every node of C and, as z[h,m] = 0 outside C, nothing else: the one path
visits C outward, i.e. zcs is the indicator of the windows. If C is empty, no path visits a node, and
every START→END path does (an empty side has no part): f = 0, zcs = 0. So on integral z the zcs are
forced to the tree's windows, c·x is the tree's score (arcs + windows), and, as the base ILP's integral z
are the trees, the ILP's optima are the best trees.

(3) *The head automaton's polytope.* Fix (h, σ). Eliminating z[h,m] = inflow(m) (CSibIn), the rows read
inflow(m) - outflow(m) = 0 at each child node and outflow(START) <= 1, zcs >= 0: the flow polytope of
G(h,σ) with supply at most 1. Its matrix is the node-arc incidence matrix of a directed graph (rows of
START and the child nodes), a network matrix, totally unimodular; the right-hand sides are integral, so
the polytope is integral. Its vertices are 0 and the START→END paths of G(h,σ), i.e. the child sets of h
on σ (each visited outward) with their windows; (z, zcs) is its image under z = throughput: the convex hull
of the (child set, windows) indicator vectors, the marginal polytope of the head automaton given that side's
child set. The LP is thus the arc polytope of the base intersected with one integral head-automaton
polytope per (h, σ), coupled through z, the relaxation that Koo et al.'s dual decomposition solves the dual
of when the base is exact (``multi-flow``). It is not tight: the automata and the arc polytope can agree
on a fractional z. Measured here (40 random instances each, N(0,1) arcs, N(0, σ²) parts, multi-root): at
n = 6 the ``multi-flow`` LP is fractional on 7/10/12 of 40 for σ = 0.5/1/2 (``single-flow``: 25/23/23, and
17 with part scores 0, its arc LP being loose already), at n = 10 on 11/11/16 (``single-flow``: 34/29/30).

A point z of the arc polytope extends to zcs when no candidate part is pruned: per (h, σ), draw
u ~ Uniform(0, 1] and visit, outward, the children m with z[h,m] >= u (the path exists as every outward
pair of candidate children is a candidate part; a single root's side has Σ z[0,m] = 1, so paths
START→c→END of weight z[0,c]). The mean is a flow of supply max_m z[h,m] <= 1 and throughputs z[h,m]:
consecutive-sibling scores of zero leave the LP value of the base unchanged.

*Tree size.* Each nonempty side of a head holds k + 1 parts for k children, so a tree holds n + (number of
nonempty sides) parts; each nonempty side has a child of its own (a token is a child on one side of one
head), so at most n sides: :func:`max_csibs_per_tree` = 2n, attained by the chain 0→1→...→n (each head one
right child: n sides), a single-root tree too.

Rows indexed by arcs (CSibIn, CSibOut) and by (head, side) (CSibStart) exist from the start; a part only
adds its coefficients (:meth:`ConsecutiveSiblingProgram.add_parts`), so a program holding a subset of the
parts is the full program with the absent columns at 0: no row is missing. An arc with no part present is
forced to 0 (CSibIn[h,m] then reads -z[h,m] = 0), so a restricted program must hold the parts of some tree to
be feasible.

**Pruned parts.** A candidate part scored -inf may be in no tree: zcs is fixed at 0, so it has no column,
and that is all: the flow cannot use its edge. (2) goes through on the DAG without it: a tree whose
windows include it has no feasible zcs (its one path lacks that edge), every other tree keeps its windows,
so the ILP's optima are the best trees without pruned parts and no extra row is needed (unlike
:mod:`lpparse.families.sibling.rows`, whose absent parts drop their linearization rows).
:meth:`ConsecutiveSiblingProgram.add_parts` records it in ``pruned``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse._masks import by_arc_mask
from lpparse.families.pairs import OnArcs, taken
from lpparse.formulations.arborescence import FORMULATIONS, ArborescenceLP, arc_matrix
from lpparse.lp.program import Terms
from lpparse.lp.solution import Solution
from lpparse.part_values import check_part_scores
from lpparse.trees import allowed_mask_shape, validate_scores
from lpparse.triples import DensePartScorer, _dense_cube, check_csib_batch

__all__ = [
    "BASES",
    "ConsecutiveSiblingProgram",
    "ConsecutiveSiblingScorer",
    "DenseConsecutiveScorer",
    "candidate_csibs",
    "check_csib_batch",
    "consecutive_program",
    "csib_mask",
    "full_consecutive_program",
    "outward_children",
    "max_csibs_per_tree",
    "solve_consecutive",
    "synthetic_csib_scorer",
    "tree_csibs",
]

Parts = tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]

#: Arborescence programs the polytope can sit on (cycle cuts need their own row-generation loop).
BASES = ("single-flow", "multi-flow")


# ------------------------------------------------------------------------------------------------ parts


@by_arc_mask
def csib_mask(arc_mask: NDArray[np.bool_], single_root: bool = False) -> NDArray[np.bool_]:
    """Boolean (n+1, n+1, n+1) mask of the candidate parts ⟨h, a, b⟩ (module docstring): first child
    ⟨h, h, b⟩, last child ⟨h, a, h⟩, middle ⟨h, a, b⟩ with a strictly nearer h than b on the same side, over
    candidate arcs; with ``single_root`` no middle part has h = 0."""
    size = arc_mask.shape[0]
    arcs = np.asarray(arc_mask, dtype=bool) & allowed_mask_shape(size)
    i = np.arange(size)
    h, a, b = i[:, None, None], i[None, :, None], i[None, None, :]
    to_a, to_b = arcs[:, :, None], arcs[:, None, :]
    outward = ((h < a) & (a < b)) | ((b < a) & (a < h))
    middle = outward & to_a & to_b
    mask = ((a == h) & to_b) | ((b == h) & to_a) | middle
    if single_root:
        mask[0] &= ~middle[0]
    return mask


def candidate_csibs(arc_mask: NDArray[np.bool_], single_root: bool = False) -> Parts:
    """The (h, a, b) index arrays of every candidate part (:func:`csib_mask`), in lexicographic order."""
    h, a, b = np.nonzero(csib_mask(arc_mask, single_root))
    return h.astype(np.int64), a.astype(np.int64), b.astype(np.int64)


def outward_children(
    heads: ArrayLike,
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """A tree's arcs (``heads[0] = -1``) by head, side, then distance (each side's children outward): their
    heads p, children m, and each child's neighbours on its side, the child before it (nearer the head; p
    for the nearest) and the child after it (p for the outermost)."""
    heads = np.asarray(heads, dtype=np.int64)
    m = np.arange(1, heads.shape[0], dtype=np.int64)
    p = heads[1:]
    right = m > p
    order = np.lexsort((np.abs(m - p), right, p))  # by head, side, then distance: outward
    p, m, right = p[order], m[order], right[order]
    first = np.ones(m.shape, bool)  # nearest child of its (head, side)
    first[1:] = (p[1:] != p[:-1]) | (right[1:] != right[:-1])
    last = np.ones(m.shape, bool)
    last[:-1] = first[1:]
    before, after = m.copy(), m.copy()  # each child's predecessor and successor in this order (np.roll, slower)
    before[1:], after[:-1] = m[:-1], m[1:]
    return p, m, np.where(first, p, before), np.where(last, p, after)


def tree_csibs(heads: ArrayLike) -> Parts:
    """The windows ⟨h, a, b⟩ of a tree (``heads[0] = -1``), in lexicographic order: per head and side, the
    children sorted outward and the windows of two over [h, c1, ..., ck, h]."""
    p, m, previous, after = outward_children(heads)  # the window into m starts at h or at the child before m
    last = after == p
    h = np.concatenate([p, p[last]])
    a = np.concatenate([previous, m[last]])
    b = np.concatenate([m, p[last]])
    lex = np.lexsort((b, a, h))
    return h[lex], a[lex], b[lex]


def max_csibs_per_tree(n: int) -> int:
    """The most parts a tree of n tokens holds: n + (nonempty sides) <= 2n (module docstring, *Tree size*)."""
    if n < 0:
        raise ValueError(f"need n >= 0 tokens, got {n}")
    return 2 * n


# ---------------------------------------------------------------------------------------------- scorers


def _all_csibs(size: int) -> NDArray[np.bool_]:
    """Every window shape of a sentence of ``size - 1`` tokens (all arcs candidates)."""
    return csib_mask(allowed_mask_shape(size))


@runtime_checkable
class ConsecutiveSiblingScorer(Protocol):
    """What a solver needs from a consecutive-sibling model for one sentence: exact scores of batches of
    windows ⟨h, a, b⟩, counted, and the factorized bounds

        B1[h, a] >= max_b s(h, a, b)      and      B2[h, b] >= max_a s(h, a, b)

    (over window shapes; -inf where none), so that min(B1[h, a], B2[h, b]) bounds a part unscored."""

    @property
    def n(self) -> int:
        """Number of tokens."""

    @property
    def scored(self) -> int:
        """How many parts have been scored so far (each call counts every part it is given)."""

    def score(self, h: ArrayLike, a: ArrayLike, b: ArrayLike) -> NDArray[np.float64]:
        """Exact scores s(h, a, b) of a batch of windows."""

    def bound_first(self) -> NDArray[np.float64]:
        """(n+1, n+1) array B1 with B1[h, a] >= max_b s(h, a, b)."""

    def bound_second(self) -> NDArray[np.float64]:
        """(n+1, n+1) array B2 with B2[h, b] >= max_a s(h, a, b)."""


def _slack(slack: ArrayLike | None, size: int, name: str) -> NDArray[np.float64]:
    out = np.zeros((size, size)) if slack is None else np.asarray(slack, dtype=np.float64)
    if out.shape != (size, size) or (out < 0).any() or not np.isfinite(out).all():
        raise ValueError(f"{name} must be a finite non-negative ({size}, {size}) array")
    return out


@dataclass
class DenseConsecutiveScorer(DensePartScorer):
    """A :class:`ConsecutiveSiblingScorer` over an explicit (n+1, n+1, n+1) array ``scores[h, a, b]`` read on
    window shapes (other entries are ignored), counting the parts it scores; ``-inf`` prunes a part. Its
    bounds are exact, plus ``slack_first[h, a]`` / ``slack_second[h, b]`` (non-negative, default 0)."""

    slack_first: NDArray[np.float64] | None = None
    slack_second: NDArray[np.float64] | None = None
    _valid: NDArray[np.bool_] = field(init=False, repr=False)
    _check = staticmethod(check_csib_batch)

    def __post_init__(self) -> None:
        self.scores = _dense_cube(self.scores, _all_csibs, "consecutive-sibling")
        size = self.scores.shape[0]
        self._valid = _all_csibs(size)
        self.slack_first = _slack(self.slack_first, size, "slack_first")
        self.slack_second = _slack(self.slack_second, size, "slack_second")

    def _masked(self) -> NDArray[np.float64]:
        return np.where(self._valid, self.scores, -np.inf)

    def bound_first(self) -> NDArray[np.float64]:
        return self._masked().max(axis=2) + self.slack_first

    def bound_second(self) -> NDArray[np.float64]:
        return self._masked().max(axis=1) + self.slack_second


def synthetic_csib_scorer(
    n: int, rng: np.random.Generator | int | None = None, scale: float = 1.0, slack: float = 0.5
) -> DenseConsecutiveScorer:
    """A random consecutive-sibling model for n tokens: N(0, scale²) scores, each bound loosened by
    Uniform(0, ``slack``) (0: exact bounds)."""
    if n < 1:
        raise ValueError(f"need at least one token, got n={n}")
    rng = np.random.default_rng(rng)
    size = n + 1
    s = rng.normal(0.0, scale, (size,) * 3)
    first, second = rng.uniform(0.0, slack, (size, size)), rng.uniform(0.0, slack, (size, size))
    return DenseConsecutiveScorer(s, slack_first=first, slack_second=second)


# ---------------------------------------------------------------------------------------------- program


@dataclass
class ConsecutiveSiblingProgram(OnArcs):
    """Consecutive-sibling columns and rows on an arborescence program (arc columns ``z``), and the dense maps
    that grow them: ``z_col[h, m]``: column of z[h,m] (-1 = no arc); ``in_row[h, m]``, ``out_row[h, m]``:
    rows CSibIn/CSibOut[h,m] (-1 = no arc); ``start_row[h, σ]``: row CSibStart[h,σ] (σ = 0 left, 1 right; -1 =
    no candidate child on that side); masks ``present[h, a, b]``: the part has a column
    (:meth:`part_cols`); ``pruned[h, a, b]``: it scored -inf and has none (module docstring)."""

    lp: ArborescenceLP
    single_root: bool
    z_col: NDArray[np.int64]
    in_row: NDArray[np.int64]
    out_row: NDArray[np.int64]
    start_row: NDArray[np.int64]
    present: NDArray[np.bool_]
    pruned: NDArray[np.bool_]
    #: rows of other programs over the window columns (:meth:`link`): (row map [h, a, b] or -1, coefficient)
    links: list[tuple[NDArray[np.int64], float]] = field(default_factory=list)

    @property
    def num_parts(self) -> int:
        return len(self.lp.var_blocks["zcs"])

    def link(self, rows: NDArray[np.int64], coefficient: float) -> None:
        """Give every window column, present and future, the ``coefficient`` in its row ``rows[h, a, b]``
        (-1: none): rows of a program built on the windows (:mod:`lpparse.families.third_order.trisibling`)."""
        self.links.append((rows, coefficient))
        h, a, b = self.parts()
        self._add_links(h, a, b, self.lp.cols("zcs"), [(rows, coefficient)])

    def _add_links(
        self,
        h: NDArray[np.int64],
        a: NDArray[np.int64],
        b: NDArray[np.int64],
        cols: NDArray[np.int64],
        links: list[tuple[NDArray[np.int64], float]],
    ) -> None:
        for rows, coefficient in links:
            r = rows[h, a, b]
            keep = r >= 0
            self.lp.add_coefficients(r[keep], cols[keep], np.full(int(keep.sum()), coefficient))

    def linked_duals(self, y: NDArray[np.float64]) -> NDArray[np.float64]:
        """(n+1)^3 array: Σ over the linked rows of coefficient × dual, per window (what a window's reduced
        cost loses to them)."""
        out = np.zeros(self.present.shape)
        for rows, coefficient in self.links:
            out += coefficient * np.where(rows >= 0, y[np.maximum(rows, 0)], 0.0)
        return out

    def candidates(self) -> Parts:
        """(h, a, b) of every candidate part of the program's arcs and root rule, lexicographic."""
        return candidate_csibs(self.arc_mask, self.single_root)

    def add_parts(self, h: ArrayLike, a: ArrayLike, b: ArrayLike, scores: ArrayLike) -> NDArray[np.int64]:
        """Append zcs columns for new candidate parts with costs ``scores`` and their coefficients in the
        CSibIn, CSibOut and CSibStart rows, in one batch; return the new columns. A part scored -inf gets no
        column and is marked in ``pruned``."""
        h, a, b = (np.asarray(x, dtype=np.int64).ravel() for x in (h, a, b))
        if not h.shape == a.shape == b.shape:
            raise ValueError("h, a and b must have the same length")
        scores = np.broadcast_to(np.asarray(scores, dtype=np.float64), h.shape)
        if h.size == 0:
            return np.empty(0, np.int64)
        size = self.n + 1
        inside = all(int(x.min()) >= 0 and int(x.max()) < size for x in (h, a, b))
        if not inside or not csib_mask(self.arc_mask, self.single_root)[h, a, b].all():
            raise ValueError(
                "every part needs a window shape over candidate arcs: ⟨h, h, b⟩, ⟨h, a, h⟩ or a nearer h "
                "than b on one side (no middle root part with a single root)"
            )
        if taken((h, a, b), self.present, self.pruned):
            raise ValueError("consecutive-sibling part added twice")
        check_part_scores(scores, "consecutive-sibling")
        cut = np.isneginf(scores)
        if cut.any():
            self.pruned[h[cut], a[cut], b[cut]] = True
            h, a, b, scores = h[~cut], a[~cut], b[~cut], scores[~cut]
            if h.size == 0:
                return np.empty(0, np.int64)
        lp = self.lp
        cols = lp.add_variables("zcs", np.column_stack([h, a, b]), cost=scores, integer=True)
        self.present[h, a, b] = True
        into, out_of, start = b != h, a != h, a == h
        side = (b > h).astype(np.int64)
        rows = np.concatenate(
            [
                self.in_row[h[into], b[into]],
                self.out_row[h[out_of], a[out_of]],
                self.start_row[h[start], side[start]],
            ]
        )
        lp.add_coefficients(rows, np.concatenate([cols[into], cols[out_of], cols[start]]), np.ones(rows.size))
        self._add_links(h, a, b, cols, self.links)
        return cols

    def parts(self) -> Parts:
        """(h, a, b) of the parts with a column, in column order."""
        idx = self.lp.var_blocks["zcs"].index
        return idx[:, 0], idx[:, 1], idx[:, 2]

    def part_cols(self, h: ArrayLike, a: ArrayLike, b: ArrayLike) -> NDArray[np.int64]:
        """Columns of the parts (h, a, b) (-1: no column), through the zcs block's index map."""
        return self.lp.var_blocks["zcs"].find(np.column_stack([np.ravel(h), np.ravel(a), np.ravel(b)]))

    def part_values(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """zcs values of a primal vector, aligned with :meth:`parts`."""
        return x[self.lp.cols("zcs")]

    def arc_values(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """(n+1, n+1) z values of a primal vector (0 for absent arcs)."""
        return arc_matrix(self.lp, x)


def consecutive_program(lp: ArborescenceLP) -> ConsecutiveSiblingProgram:
    """Attach the consecutive-sibling rows (CSibIn, CSibOut, CSibStart) to ``lp`` (an arborescence program,
    or the ``lp`` of a grandparent or sibling program) with no part yet; ValueError if attached already."""
    if "zcs" in lp.var_blocks:
        raise ValueError("the consecutive-sibling family is attached to this program already")
    size = lp.n + 1
    arcs = lp.var_blocks["z"].index
    z = lp.cols("z")
    z_col = np.full((size, size), -1, np.int64)
    z_col[arcs[:, 0], arcs[:, 1]] = z
    in_row = np.full((size, size), -1, np.int64)
    out_row = np.full((size, size), -1, np.int64)
    minus_z = -Terms.columns(z)
    in_row[arcs[:, 0], arcs[:, 1]] = lp.constrain("CSibIn", arcs, minus_z, 0.0, 0.0)
    out_row[arcs[:, 0], arcs[:, 1]] = lp.constrain("CSibOut", arcs, minus_z, 0.0, 0.0)
    sides = np.unique(np.column_stack([arcs[:, 0], (arcs[:, 1] > arcs[:, 0]).astype(np.int64)]), axis=0)
    start_row = np.full((size, 2), -1, np.int64)
    start_row[sides[:, 0], sides[:, 1]] = lp.add_constraints(
        "CSibStart", sides, np.empty(0, np.int64), np.empty(0, np.int64), np.empty(0), upper=1.0
    )
    lp.name += "+consecutive"
    lp.add_variables("zcs", np.empty((0, 3), np.int64), integer=True)
    cube = (size,) * 3
    prog = ConsecutiveSiblingProgram(
        lp, lp.single_root, z_col, in_row, out_row, start_row, np.zeros(cube, bool), np.zeros(cube, bool)
    )
    lp.extensions["consecutive"] = prog
    return prog


def _part_costs(
    arc_mask: NDArray[np.bool_], single_root: bool, csib_scores: ConsecutiveSiblingScorer | ArrayLike
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
    """Every candidate part (h, a, b) and its score (counted when ``csib_scores`` is a scorer)."""
    h, a, b = candidate_csibs(arc_mask, single_root)
    size = arc_mask.shape[0]
    if isinstance(csib_scores, ConsecutiveSiblingScorer):
        if csib_scores.n != size - 1:
            raise ValueError(
                f"consecutive-sibling scorer is for n={csib_scores.n}, arc scores for n={size - 1}"
            )
        return h, a, b, np.asarray(csib_scores.score(h, a, b), dtype=np.float64)
    cube = np.asarray(csib_scores, dtype=np.float64)
    if cube.shape != (size,) * 3:
        raise ValueError(f"consecutive-sibling scores must have shape {(size,) * 3}, got {cube.shape}")
    return h, a, b, cube[h, a, b]


def full_consecutive_program(
    arc_scores: ArrayLike,
    csib_scores: ConsecutiveSiblingScorer | ArrayLike,
    single_root: bool = False,
    base: str = "single-flow",
) -> ConsecutiveSiblingProgram:
    """The arborescence program ``base`` (a key of :data:`BASES`) with every candidate part scored
    (``csib_scores`` a scorer or a dense (n+1,)*3 array ``[h, a, b]``) and instantiated (a part scored -inf
    pruned). Raises NoTreeError."""
    if base not in BASES:
        raise ValueError(f"unknown base formulation {base!r}; choose from {BASES}")
    lp = FORMULATIONS[base](validate_scores(arc_scores), single_root)
    prog = consecutive_program(lp)
    h, a, b, values = _part_costs(prog.arc_mask, single_root, csib_scores)
    check_part_scores(values, "consecutive-sibling")
    prog.add_parts(h, a, b, values)
    return prog


def solve_consecutive(
    arc_scores: ArrayLike,
    csib_scores: ConsecutiveSiblingScorer | ArrayLike,
    single_root: bool = False,
    mip: bool = False,
    base: str = "single-flow",
) -> tuple[ConsecutiveSiblingProgram, Solution]:
    """Build the full program (:func:`full_consecutive_program`) and solve it with HiGHS as LP (``mip=False``)
    or ILP; the Solution carries lpparse's certificate
    (:func:`~lpparse.formulations.arborescence.heads_from_solution` gives the tree of an integral one)."""
    prog = full_consecutive_program(arc_scores, csib_scores, single_root, base)
    from lpparse.lp.highs_view import HighsModel  # HiGHS where a program is solved: building one needs none

    return prog, HighsModel(prog.lp, mip=mip).solve()
