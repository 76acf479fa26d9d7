"""A valid inequality that a fractional LP point violates, and the bound once it is added.

First lpparse's own rows (Riedel, Smith & McCallum 2012, "Parse, Price and Cut", EMNLP-CoNLL 2012, §3-4;
Martins, Smith & Xing 2009 for the sibling and grandparent rows): the point, mapped by column labels onto a
*reference program* of the sentence (:class:`ReferenceProgram`: every candidate part of every family, every
row family of each (the tightest presets), on the cycle-cut base, so no flow columns), is checked against all
its rows; and the families' cuts are separated at it into that program (NoCycle subtours, GPChain and
GPSibChain, SibTriangle, GPSibTriangle and GPSibArc, GSibGP: :mod:`lpparse.formulations`). Every row of the
reference program is valid for every tree. The most violated row (violation over its largest coefficient)
wins. Failing that, the rows HiGHS's MIP separates at its root on the relaxation's own program
(:func:`lpparse.lp.cut_pool.mip_pool`) over arcs and parts, each checked valid for every tree by exact
decoding with its coefficients as scores (:func:`tree_range`: HiGHS's pool also holds rows that only the trees
better than its incumbent keep, from reduced-cost fixing). Failing
that too (HiGHS may close the root without a cut, or cut off another vertex of the same face), the
*objective cut* c·x <= OPT, valid for every tree once exact decoding has proved OPT, which a point above OPT
violates (source ``objective``; its terms are the program's costs, left out of the record).

The cut is then added to the relaxation's program, by labels, and the LP solved again (on the cycle-cut base
with its NoCycle rows separated anew): ``bound_after``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lpparse.colgen.options import ColgenOptions
from lpparse.exact.search import exact_search
from lpparse.families.base import Binding, Parts
from lpparse.families.consecutive.family import ConsecutiveSiblingParts
from lpparse.families.consecutive.rows import DenseConsecutiveScorer
from lpparse.families.grandparent.chains import CHAINS, violated_chains
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.families.grandparent.rows import FAMILIES, GrandparentProgram, arc_program
from lpparse.families.sibling.arc_heads import ARC_HEADS_BLOCK, violated_arc_heads
from lpparse.families.sibling.family import SiblingParts
from lpparse.families.sibling.triangles import violated_cross_triangles, violated_sibling_triangles
from lpparse.families.third_order.family import GrandSiblingParts, TriSiblingParts
from lpparse.families.third_order.grandsibling import DenseGrandSiblingScorer
from lpparse.families.third_order.grandsibling_links import LINK_BLOCK, violated_grandparent_links
from lpparse.families.third_order.trisibling import DenseTriSiblingScorer
from lpparse.formulations.arborescence import add_subtour_cuts, separate_subtours
from lpparse.lp.cut_pool import cut_terms, mip_pool
from lpparse.lp.highs_view import HighsModel
from lpparse.lp.program import LinearProgram
from lpparse.oracles.chu_liu_edmonds import chu_liu_edmonds
from lpparse.triples import DenseSiblingScorer, DenseTripleScorer

__all__ = [
    "VIOLATION_TOL",
    "Cut",
    "ReferenceProgram",
    "bound_after",
    "find_cut",
    "pool_cut",
    "row_text",
    "tree_range",
]

#: a row is violated when its excess over its largest coefficient exceeds this
VIOLATION_TOL = 1e-6
#: HiGHS's root cuts checked for validity at most (the most violated first: :func:`pool_cut`)
POOL_CHECKED = 10
#: a dense scorer class per family name, for :func:`tree_range`
DENSE_SCORERS = {
    GrandparentParts.name: DenseTripleScorer,
    SiblingParts.name: DenseSiblingScorer,
    ConsecutiveSiblingParts.name: DenseConsecutiveScorer,
    TriSiblingParts.name: DenseTriSiblingScorer,
    GrandSiblingParts.name: DenseGrandSiblingScorer,
}
#: the sibling rows of the reference program (SibTriangle: separated, never built in full)
SIBLING_ROWS = ("ArcSib", "SibArc", "SibClique", "SibTriangle")

Term = tuple[str, list[int], float]


@dataclass
class Cut:
    """A valid row ``lower <= Σ coef·x <= upper`` over ``terms`` (column block, index, coefficient) that the
    point violates by ``violation``: from ``source`` ``lpparse`` (row ``block``/``label`` of the reference
    program), ``mip-root`` (HiGHS's root cut pool: block ``HiGHSCut``, label [position in the pool]) or
    ``objective`` (block ``Objective``, no terms: c·x <= ``upper``, the proved optimum);
    ``bound_after``: the relaxation's LP bound with it added; ``found``: violated rows by block."""

    source: str
    block: str
    label: list[int]
    terms: list[Term]
    lower: float
    upper: float
    violation: float
    bound_after: float | None = None
    found: dict[str, int] = field(default_factory=dict)

    @property
    def text(self) -> str:
        if self.source == "objective":
            return f"score(x) <= {self.upper:g} (the proved best tree's score)"
        return row_text(self.terms, self.lower, self.upper)

    def as_json(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "block": self.block,
            "label": self.label,
            "text": self.text,
            "violation": self.violation,
            "bound_after": self.bound_after,
            "terms": [[b, i, c] for b, i, c in self.terms],
            "lower": _number(self.lower),
            "upper": _number(self.upper),
            "found": self.found,
        }


def _number(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def row_text(terms: Sequence[Term], lower: float, upper: float) -> str:
    """``z[1,2] + z[2,3] - zgp[1,2,3] <= 1``: a row in the program's labels."""
    parts = []
    for k, (block, index, coef) in enumerate(terms):
        name = f"{block}[{','.join(map(str, index))}]"
        sign = "-" if coef < 0 else ("+" if k else "")
        size = abs(coef)
        parts.append(f"{sign} {'' if size == 1 else f'{size:g} '}{name}".strip())
    body = " ".join(parts) or "0"
    if lower == upper:
        return f"{body} = {upper:g}"
    if np.isfinite(lower) and np.isfinite(upper):
        return f"{lower:g} <= {body} <= {upper:g}"
    return f"{body} <= {upper:g}" if np.isfinite(upper) else f"{body} >= {lower:g}"


class ReferenceProgram:
    """The sentence's program of every candidate part of every family ``parts`` with every row family each
    has (grandparents: ArcGP, GPArc, OneGP, NoGP; siblings: ArcSib, SibArc, SibClique), on the cycle-cut base:
    rows valid for every tree, over arcs and parts only, which separation extends (:meth:`separate`)."""

    def __init__(self, arc_scores: NDArray[np.float64], parts: Sequence[Parts], single_root: bool) -> None:
        tightest: list[Parts] = []
        for p in parts:
            if isinstance(p, GrandparentParts):
                p = replace(p, preset=FAMILIES, chains=())
            elif isinstance(p, SiblingParts):
                p = replace(p, preset=SIBLING_ROWS)
            tightest.append(p)
        self.prog: GrandparentProgram = arc_program(arc_scores, single_root, "cycle-cuts")
        tree = chu_liu_edmonds(arc_scores, single_root=single_root)
        binding = Binding(self.prog, arc_scores, tree, ColgenOptions(), None)
        families = [p.bind(binding) for p in tightest]
        for family in families:
            family.tree = None  # every candidate part enters
            family.seed()
        self.families = {f.name: f for f in families}
        self.lp: LinearProgram = self.prog.lp

    def point(
        self, lp: LinearProgram, x: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
        """The point ``x`` of program ``lp`` on this program's columns (0 where ``lp`` has no such column),
        and each of this program's columns' position in ``lp`` (-1: none)."""
        where = np.full(self.lp.num_cols, -1, np.int64)
        for name, block in self.lp.var_blocks.items():
            theirs = lp.var_blocks.get(name)
            if theirs is not None and len(block):
                where[block.positions] = theirs.find(block.index)
        return np.where(where >= 0, x[np.maximum(where, 0)], 0.0), where

    def separate(self, x: NDArray[np.float64]) -> None:
        """Add the families' cuts that the point ``x`` (of this program) violates, each named by its label."""
        gp, tol = self.prog, VIOLATION_TOL
        z = gp.arc_values(x)
        add_subtour_cuts(self.lp, separate_subtours(z, tol))
        found: dict[str, dict[str, tuple[NDArray[np.int64], NDArray[np.float64]]]] = {}
        if GrandparentParts.name in self.families:
            for name, rows in CHAINS.items():
                found.setdefault(GrandparentParts.name, {})[name] = violated_chains(rows, gp, x, tol)
        sibling = self.families.get(SiblingParts.name)
        if sibling is not None:
            sibs = sibling.sibs
            y = np.zeros(sibs.present.shape)
            y[sibs.siblings()] = sibs.sibling_values(x)
            known = sibs.present | sibs.pruned
            rows = {"SibTriangle": violated_sibling_triangles(z, y, known, tol)}
            if GrandparentParts.name in self.families:
                triples = np.zeros(y.shape)
                triples[gp.triples()] = gp.triple_values(x)
                rows["GPSibTriangle"] = violated_cross_triangles(
                    z, triples, gp.present | gp.pruned, y, known, tol
                )
                rows[ARC_HEADS_BLOCK] = violated_arc_heads(gp, sibs, x, tol)
            found[SiblingParts.name] = rows
        grandsibling = self.families.get("grandsibling")
        if grandsibling is not None:
            found["grandsibling"] = {LINK_BLOCK: violated_grandparent_links(grandsibling.prog, gp, x, tol)}
        for family, rows in found.items():
            self.families[family].add_named_rows([{k: v for k, v in rows.items() if len(v[0])}])

    def violations(self, x: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """Each row's excess at ``x`` (this program's point) and its excess over its largest coefficient."""
        lp = self.lp
        activity = lp.dot(x)
        excess = np.maximum(activity - lp.row_upper, lp.row_lower - activity)
        largest = abs(lp.A).max(axis=1).toarray().ravel()
        return excess, excess / np.where(largest > 0, largest, 1.0)


def _row_blocks(lp: LinearProgram, rows: NDArray[np.int64]) -> dict[str, int]:
    names = [lp.row_label(i)[0] for i in rows.tolist()]
    return {name: names.count(name) for name in dict.fromkeys(names)}


def _own_cut(reference: ReferenceProgram, lp: LinearProgram, x: NDArray[np.float64]) -> Cut | None:
    """The most violated row of the reference program at the point ``x`` of ``lp``, after separation."""
    point, where = reference.point(lp, x)
    reference.separate(point)
    excess, relative = reference.violations(point)
    violated = np.flatnonzero(relative > VIOLATION_TOL)
    if not violated.size:
        return None
    best = int(violated[np.argmax(relative[violated])])
    A = reference.lp.A
    cols, coefs = A.indices[A.indptr[best] : A.indptr[best + 1]], A.data[A.indptr[best] : A.indptr[best + 1]]
    if (where[cols] < 0).any():
        return None  # a column the relaxation lacks (cannot happen for a brute-force program)
    block, label = reference.lp.row_label(best)
    return Cut(
        "lpparse",
        block,
        list(label),
        cut_terms(reference.lp, cols.astype(np.int64), coefs),
        float(reference.lp.row_lower[best]),
        float(reference.lp.row_upper[best]),
        float(excess[best]),
        found=_row_blocks(reference.lp, violated),
    )


def tree_range(
    prog: GrandparentProgram, parts: Sequence[Parts], terms: Sequence[Term], single_root: bool
) -> tuple[float, float] | None:
    """The least and the most that a tree over ``prog``'s candidate arcs and parts (pruned parts excluded) makes
    of Σ coef·x over ``terms`` (arcs and parts of the families ``parts``), each proved by exact decoding with
    the coefficients as scores; None when a term is over other columns (flows) or a search is not proved."""
    lp, size = prog.lp, prog.n + 1
    by_block = {p.column_block: p for p in parts}
    if any(block != "z" and block not in by_block for block, *_ in terms):
        return None
    out = []
    for sign in (-1.0, 1.0):
        arcs = np.where(prog.arc_mask, 0.0, -np.inf)
        cubes = {}
        for name, part in by_block.items():
            block = lp.var_blocks.get(name)
            cube = np.full((size,) * part.arity, -np.inf)
            if block is not None and len(block):
                cube[tuple(block.index.T)] = 0.0  # a candidate part without a column is pruned: in no tree
            cubes[name] = cube
        for block, index, coef in terms:
            target = arcs if block == "z" else cubes[block]
            target[tuple(index)] += sign * coef
        dense = [replace(p, scorer=DENSE_SCORERS[p.name](cubes[p.column_block])) for p in parts]  # type: ignore[type-var]
        best = exact_search(arcs, dense, single_root)
        if not best.certified:
            return None
        out.append(sign * best.objective)
    return out[0], out[1]


def pool_cut(
    prog: GrandparentProgram,
    x: NDArray[np.float64],
    limit: float,
    parts: Sequence[Parts],
    single_root: bool,
) -> Cut | None:
    """The most violated cut of HiGHS's root cut pool on ``prog`` at ``x`` that is valid for every tree: over
    arcs and parts, and kept by the least and the most any tree makes of it (:func:`tree_range`). HiGHS's pool
    also holds rows valid only for trees better than its incumbent (from reduced-cost fixing): those are left
    out (counted in ``found`` as ``HiGHSCut (not valid for every tree)``), as are rows over flows."""
    lp = prog.lp
    _, pool, _ = mip_pool(lp, limit)
    ranked = []
    for k, cut in enumerate(pool):
        activity = float(cut.values @ x[cut.cols])
        excess = max(activity - cut.upper, cut.lower - activity)
        relative = excess / max(float(np.abs(cut.values).max(initial=0.0)), 1e-12)
        if relative > VIOLATION_TOL and lp.integrality[cut.cols].all():
            ranked.append((-relative, k, excess))
    found = {"HiGHSCut": len(pool)}
    for _, k, excess in sorted(ranked)[:POOL_CHECKED]:
        cut = pool[k]
        terms = cut_terms(lp, cut.cols, cut.values)
        low_high = tree_range(prog, parts, terms, single_root)
        tol = VIOLATION_TOL * (1.0 + float(np.abs(cut.values).sum()))
        if low_high is not None and low_high[0] >= cut.lower - tol and low_high[1] <= cut.upper + tol:
            return Cut(
                "mip-root", "HiGHSCut", [k], terms, float(cut.lower), float(cut.upper), excess, found=found
            )
        found["HiGHSCut (not valid for every tree)"] = found.get("HiGHSCut (not valid for every tree)", 0) + 1
    return None


def _objective_cut(lp: LinearProgram, x: NDArray[np.float64], optimum: float) -> Cut | None:
    """The objective cut c·x <= ``optimum`` (the proved best tree's score) if ``x`` violates it."""
    excess = float(lp.cost @ x) - optimum
    if excess <= VIOLATION_TOL * (1.0 + abs(optimum)):
        return None
    return Cut("objective", "Objective", [], [], -np.inf, optimum, excess)


def bound_after(prog: GrandparentProgram, cut: Cut) -> float | None:
    """The LP bound of ``prog`` with ``cut`` added by its labels (a row of block ``cut.block``, or of
    ``Cut<block>`` if the program has rows of that name already); under the cycle-cut base, NoCycle rows are
    separated until none is violated. None when the LP is not solved to a certified optimum."""
    lp = prog.lp
    if cut.source == "objective":
        cols = np.flatnonzero(lp.cost)
        coefs = lp.cost[cols]
    else:
        cols = np.array([lp.col(block, tuple(index)) for block, index, _ in cut.terms], np.int64)
        coefs = np.array([c for *_, c in cut.terms])
    name = cut.block if cut.block not in lp.con_blocks else f"Cut{cut.block}"
    lp.add_constraints(name, [cut.label], np.zeros(cols.size, np.int64), cols, coefs, cut.lower, cut.upper)
    model = HighsModel(lp)
    while True:
        sol = model.solve()
        if not sol.certified or lp.formulation != "cycle-cuts":
            break
        subsets = separate_subtours(prog.arc_values(sol.x), VIOLATION_TOL)  # type: ignore[arg-type]
        if not subsets:
            break
        add_subtour_cuts(lp, subsets)
    return sol.objective if sol.certified else None


def find_cut(
    prog: GrandparentProgram,
    x: NDArray[np.float64],
    reference: ReferenceProgram,
    root_limit: float | None,
    parts: Sequence[Parts],
    single_root: bool,
    optimum: float | None = None,
) -> Cut | None:
    """A valid row that the point ``x`` of the relaxation ``prog`` violates (module docstring): lpparse's own,
    else (``root_limit`` seconds, None: none) a row of HiGHS's root cut pool on ``prog`` checked valid for
    every tree of the families ``parts`` (:func:`pool_cut`), else the objective cut at the proved ``optimum``
    (None: none); with its ``bound_after``. Adds the row to ``prog``."""
    cut = _own_cut(reference, prog.lp, x)
    if cut is None and root_limit is not None:
        cut = pool_cut(prog, x, root_limit, parts, single_root)
    if cut is None and optimum is not None:
        cut = _objective_cut(prog.lp, x, optimum)
    if cut is not None:
        cut.bound_after = bound_after(prog, cut)
    return cut
