"""Arbitrary siblings ⟨h,m,m'⟩ as a part family of parse-price-cut on the column-and-row generation engine
(:mod:`lpparse.colgen`), over the arc columns of an arborescence program (Martins, Smith & Xing 2009,
"Concise Integer Linear Programming Formulations for Dependency Parsing", ACL-IJCNLP 2009; rows:
:mod:`lpparse.families.sibling.rows`): :class:`SiblingParts` and :class:`SiblingFamily`.

With the duals of an absent part's own ArcSib/SibArc
rows at 0, the reduced cost of an absent zsib[h,m,m'] in the full LP is

    r(h,m,m') = s(h,m,m') + Σ_α μ_SibClique(h,α)

(zsib has coefficient -1 in the <= rows SibClique, whose duals are >= 0; 0 under the default ``martins``
preset, which has none), bounded without scoring by min(s̄(h,m), s̄(h,m')) + Σ_α μ_SibClique(h,α) (the
scorer's ``bound_hm``) and, if the scorer offers them, its per-part bounds ``bound_siblings``. Dual
tightening as for GPArc: an arc h→m at 0 with reduced cost d_z < 0 has slack β = -d_z (what the grandparent
family left of it); giving the tight SibArc row z[h,m] - zsib[h,m,m'] >= 0 (side 0; side 1 on h→m') of an
absent part the dual -λ lowers the part's reduced cost by λ and raises d_z by λ, so with the λ of an arc
summed within its β the extended duals stay feasible and complementary. Parts are priced out greedily,
cheapest first, on their bounds (never scored), then on their exact reduced costs. Separation: an absent
part has zsib = 0, so its ArcSib row reads z[h,m] + z[h,m'] <= 1; the violated ones enter as columns. With
SibTriangle (the ``triangles`` preset; exact decoding adds it to any), a fractional point also gets the most
violated SibTriangle and GPSibTriangle cuts over parts with columns (:mod:`lpparse.families.sibling.triangles`): valid for every tree, they
tighten the LP that a certificate is about (absent parts have no coefficient in them, so pricing is
unchanged). The start: the sibling parts of the first-order best tree, and those of a warm start
(:class:`lpparse.colgen.Warm`).

**Pruned parts** (scored -inf) have no column in the full LP but their PrunedSib row z + z' <= 1, under
every preset; pricing never adds one, separation adds a pruned one's row alone; the family starts from a tree
with no pruned part (:func:`lpparse.families.base.clean_tree`), as the grandparent family does
(:mod:`lpparse.families.grandparent.family`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from lpparse.colgen.cache import ScoreCache
from lpparse.colgen.family import DualState, PartFamily, Priced, Separated, Warm
from lpparse.families.base import Binding, Counted, copy_sharing, named_labels
from lpparse.families.grandparent.family import (
    absent_row_shift,
    round_arc_slack,
    round_arc_values,
    union_triples,
)
from lpparse.families.grandparent.pricing import Triples, _spend
from lpparse.families.grandparent.rows import GrandparentProgram, resolve_families
from lpparse.families.sibling.arc_heads import (
    ARC_HEADS_BLOCK,
    add_arc_heads,
    arc_heads_known,
    violated_arc_heads,
)
from lpparse.families.sibling.rows import SIBLING_FAMILIES, SIBLING_PRESETS, sibling_program
from lpparse.families.sibling.triangles import (
    add_cross_triangles,
    add_sibling_triangles,
    cross_triangle_known,
    sibling_triangle_known,
    violated_cross_triangles,
    violated_sibling_triangles,
)
from lpparse.lp.solution import Solution
from lpparse.triples import (
    DenseSiblingScorer,
    SiblingScorer,
    candidate_siblings,
    count_siblings,
    sibling_mask,
    tree_siblings,
)

if TYPE_CHECKING:  # the engine hands families its HiGHS master; building their rows needs none
    from lpparse.lp.highs_view import HighsModel

Index = tuple[NDArray[np.int64], ...]

_EMPTY = np.empty(0, np.int64)
_NONE: Triples = (_EMPTY, _EMPTY, _EMPTY)
_NO_SIBARC: tuple[NDArray[np.int64], ...] = (_EMPTY,) * 4 + (np.empty(0),)
#: SibTriangle separation: the violation a row needs, and at most this many rows per token a round
TRIANGLE_TOL = 1e-4
TRIANGLES_PER_TOKEN = 4


@dataclass(frozen=True)
class SiblingParts:
    """Arbitrary-sibling parts ⟨h, m, m'⟩ scored by ``scorer`` (:class:`~lpparse.triples.SiblingScorer`)
    under the sibling polytope ``preset`` (``martins``, ``all``, ``triangles`` or a set of ArcSib, SibArc,
    SibClique, SibTriangle; exact decoding adds SibTriangle, :meth:`for_exact`:
    :mod:`lpparse.families.sibling.rows`), priced by :class:`lpparse.families.sibling.family.SiblingFamily`. Its shared
    cache (:meth:`cache`, for branch and bound) scores every candidate part at once into a dense table whose
    bound is exact: with trained models that took 12-32% less CPU time than pricing from the scorer's own
    bounds (:mod:`lpparse.exact.search`). ``lazy_arcsib``: in parse-price-cut, a part's ArcSib row enters only
    once violated (False: with its column; BF's program has every row either way). ``arc_heads``: with
    SibTriangle and grandparent triples, separate the GPSibArc cuts too
    (:mod:`lpparse.families.sibling.arc_heads`), as exact decoding does."""

    scorer: SiblingScorer
    preset: str | Iterable[str] = "martins"
    lazy_arcsib: bool = True
    arc_heads: bool = False

    name = "sibling"
    arity = 3
    column_block = "zsib"
    live = True
    pruned_block = "PrunedSib"

    @property
    def probes_pay(self) -> bool:
        """Reliability branching pays under Martins et al.'s rows, not with the triangle cuts (Danish grandparent
        + sibling model, pruned: 19 dev sentences branch with them, in 4.0 s with ``arc`` against 6.8 s with
        ``pseudocost``)."""
        return "SibTriangle" not in self.preset  # type: ignore[operator]

    def __post_init__(self) -> None:
        object.__setattr__(self, "preset", resolve_families(self.preset, SIBLING_FAMILIES, SIBLING_PRESETS))

    def for_exact(self) -> SiblingParts:
        """The family as exact decoding uses it: its rows and the SibTriangle cuts
        (:mod:`lpparse.families.sibling.triangles`; Danish grandparent + sibling model, pruned, the 23 dev
        sentences whose root LP under Martins et al.'s rows is fractional: 2.1 s and 35 nodes against 6.3 s
        and 101 nodes, 18 closed at the root; SibTriangle alone, without the rows across grandparents: 4.5 s,
        67 nodes, 9 closed)."""
        return replace(self, preset=(*self.preset, "SibTriangle"), arc_heads=True)  # type: ignore[misc]

    def candidates(self, arc_mask: NDArray[np.bool_], single_root: bool) -> Index:
        return candidate_siblings(arc_mask, single_root)

    def count(self, arc_mask: NDArray[np.bool_], single_root: bool) -> int:
        return count_siblings(arc_mask, single_root)

    def tree_parts(self, heads: NDArray[np.int64]) -> Index:
        return tree_siblings(heads)

    def max_per_tree(self, n: int) -> int:
        return n * (n - 1) // 2

    def cache(self, arc_mask: NDArray[np.bool_], single_root: bool) -> ScoreCache:
        size = arc_mask.shape[0]
        table = np.zeros((size,) * 3)
        h, m, m2 = candidate_siblings(arc_mask, single_root)
        table[h, m, m2] = self.scorer.score(h, m, m2)
        return ScoreCache(DenseSiblingScorer(table), size, "sibling", ("bound_hm",))

    def bind(self, binding: Binding) -> PartFamily:

        return SiblingFamily(binding.program, self, binding)


class SiblingFamily(Counted):
    """Arbitrary-sibling parts attached to an arborescence or grandparent program ``lp`` (module
    docstring): a :class:`lpparse.colgen.family.PartFamily`. ``tree``: a tree with no pruned part (its parts
    are the start, with the candidate ones of ``warm``, whose score cache it shares; None: start from every
    candidate part, :func:`clean_tree`)."""

    name = "sibling"
    degenerate_master = True  # thousands of parts with both arcs at 0 (colgen.options.DEGENERATE_MASTER)
    #: prices before the grandparent family, taking the arcs' slack first (lpparse.colgen.engine)
    pricing_priority = -1

    def __init__(self, prog: GrandparentProgram, spec: SiblingParts, binding: Binding) -> None:
        self.sibs = sibling_program(prog.lp, spec.preset)
        self.gp = prog  #: the grandparent program the parts share their arcs with (GPSibTriangle rows)
        self.spec, self.tighten = spec, binding.options.tighten
        self.tree: NDArray[np.int64] | None = binding.first_order
        warm = binding.warm
        self._warm_parts: Triples | None = warm.parts if warm is not None else None  # type: ignore[assignment]
        self._mask = sibling_mask(self.sibs.arc_mask, self.sibs.single_root)
        cache = (
            warm.cache
            if warm is not None and warm.cache is not None
            else ScoreCache(spec.scorer, self._mask.shape[0], "sibling", ("bound_hm",))
        )
        super().__init__(cache, int(self._mask.sum()))
        #: (h, m, m', side, λ) of the absent parts whose SibArc row [h,m,m',side] carries dual -λ
        self.sibarc: tuple[NDArray[np.int64], ...] = _NO_SIBARC
        self._new: Triples = _NONE
        self._new_scores = np.empty(0)
        self._cut: Triples = _NONE
        self._cut_scores = np.empty(0)
        #: ArcSib rows held back until violated (SiblingParts.lazy_arcsib), and those this round adds
        self._lazy = spec.lazy_arcsib and "ArcSib" in self.sibs.families
        self._rows: Triples = _NONE
        self._triangles: dict[str, NDArray[np.int64]] = {}  #: the triangle rows this round adds, by block
        #: every candidate part present from the start (brute force, :meth:`seed`): nothing to price, no bounds
        self.complete = False

    def __deepcopy__(self, memo: dict[int, Any]) -> SiblingFamily:
        """A copy for another branch-and-bound node's master (:meth:`lpparse.exact.live.LiveMaster.fork`): the
        program (through ``memo``) and the family's own state copied; the score cache, the spec with its scorer
        and the bounds shared."""
        return copy_sharing(self, memo, (self.cache, self.spec))

    def restrict(self, arc_mask: NDArray[np.bool_]) -> None:
        """Price and separate only the parts over the arcs ``arc_mask`` (a branch-and-bound node's, a subset of
        the program's: :class:`lpparse.exact.live.LiveMaster`)."""
        self._mask = sibling_mask(arc_mask & self.sibs.arc_mask, self.sibs.single_root)

    def node_columns(self, arc_mask: NDArray[np.bool_]) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
        """The zsib columns, and whether both arcs of each part are in ``arc_mask``."""
        h, m, m2 = self.sibs.siblings()
        return (self.sibs.lp.cols("zsib") if h.size else h), arc_mask[h, m] & arc_mask[h, m2]

    def include(self, heads: NDArray[np.int64], model: HighsModel) -> None:
        """Add the parts of the tree ``heads`` that the program lacks (as
        :meth:`GrandparentFamily.include`)."""
        h, m, m2 = self._candidate_parts(tree_siblings(heads))
        new = ~self.sibs.present[h, m, m2] & ~self.sibs.pruned[h, m, m2]
        h, m, m2 = h[new], m[new], m2[new]
        self.sibs.add_siblings(h, m, m2, self.cache.get(h, m, m2), arcsib=not self._lazy)

    @property
    def added(self) -> int:
        return self.sibs.num_siblings

    @property
    def held_out(self) -> int:
        return 0

    def _candidate_parts(self, parts: Triples) -> Triples:
        """Those of ``parts`` that are candidates."""
        h, m, m2 = parts
        ok = self._mask[h, m, m2]
        return h[ok], m[ok], m2[ok]

    def pruned_arcs(self, heads: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """The arcs h→m' of the tree's parts ⟨h, m, m'⟩ scored -inf (scoring the tree's parts)."""
        h, m, m2 = self._candidate_parts(tree_siblings(heads))
        pruned = np.isneginf(self.cache.get(h, m, m2))
        return h[pruned], m2[pruned]

    def warm(self) -> Warm:
        return Warm(self.cache, self.sibs.siblings())

    def seed(self) -> None:
        self.complete = self.tree is None
        if self.complete:
            h, m, m2 = self.sibs.candidates()
        else:
            warm = [self._warm_parts] if self._warm_parts is not None else []
            h, m, m2 = self._candidate_parts(union_triples([tree_siblings(self.tree), *warm], self._mask.shape[0]))
        # every candidate (BF, a proof's full program): every row too; parse-price-cut may hold ArcSib back
        self.sibs.add_siblings(h, m, m2, self.cache.get(h, m, m2), arcsib=self.tree is None or not self._lazy)

    def inactive(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        return _EMPTY, _EMPTY

    def repair(self, solution: Solution) -> Solution:
        return solution

    def _clique_duals(self, row_dual: NDArray[np.float64]) -> NDArray[np.float64]:
        """Σ_α μ_SibClique(h, α) per head h (0 without the family)."""
        rows = self.sibs.clique_row
        on = rows >= 0
        return np.where(on, row_dual[np.where(on, rows, 0)], 0.0).sum(axis=1)

    def price(self, state: DualState) -> Priced:
        if self.complete:
            self.sibarc, self._new, self._new_scores = _NO_SIBARC, _NONE, np.empty(0)
            return Priced(0, -np.inf)
        sibs, tol = self.sibs, state.tol
        sol = state.solution
        assert sol.row_dual is not None
        mu = self._clique_duals(sol.row_dual)
        (b,) = self.cache.bounds()
        absent = self._mask & ~sibs.present
        bound = np.minimum(b[:, :, None], b[:, None, :]) + mu[:, None, None]
        cand = absent & (bound > tol)
        max_bound = float(bound[absent & ~cand].max(initial=-np.inf))
        h, m, m2 = (a.astype(np.int64) for a in np.nonzero(cand))
        rb = bound[h, m, m2]
        per_part = getattr(self.cache.scorer, "bound_siblings", None)
        if per_part is not None and h.size:  # a scorer's tighter per-part bound, still without scoring
            rb = np.minimum(rb, np.asarray(per_part(h, m, m2), dtype=np.float64) + mu[h])
            tight = rb > tol
            max_bound = max(max_bound, float(rb[~tight].max(initial=-np.inf)))
            h, m, m2, rb = h[tight], m[tight], m2[tight], rb[tight]
        use_slack = self.tighten and "SibArc" in sibs.families
        slack = round_arc_slack(state, sibs, use_slack)
        size = slack.shape[0]
        # SibArc duals on bounds for arcs whose slack covers all their parts (never scored), then on exact
        # reduced costs (spending scarce slack on loose bounds would leave parts with r > 0 uncovered)
        out, lam, side = self._spend_whole(h, m, m2, rb, slack, size)
        scored = ~out
        hs, ms, m2s = h[scored], m[scored], m2[scored]
        s = self.cache.get(hs, ms, m2s)
        r = s + mu[hs]
        keep = r > tol
        idx = np.flatnonzero(keep)
        more, lam2, side2 = self._spend(hs[idx], ms[idx], m2s[idx], r[idx], slack, size)
        keep[idx[more]] = False
        residual = r.copy()  # reduced cost after λ: 0 for those priced out
        residual[idx[more]] = 0.0
        max_bound = max(max_bound, float(residual[~keep].max(initial=-np.inf)))
        self.sibarc = (
            np.concatenate([h[out], hs[idx[more]]]),
            np.concatenate([m[out], ms[idx[more]]]),
            np.concatenate([m2[out], m2s[idx[more]]]),
            np.concatenate([side[out], side2[more]]),
            np.concatenate([lam[out], lam2[more]]),
        )
        self._new, self._new_scores = (hs[keep], ms[keep], m2s[keep]), s[keep]
        return Priced(int(keep.sum()), max_bound, int(self.sibarc[4].size))

    @staticmethod
    def _spend(
        h: NDArray[np.int64],
        m: NDArray[np.int64],
        m2: NDArray[np.int64],
        cost: NDArray[np.float64],
        slack: NDArray[np.float64],
        size: int,
    ) -> tuple[NDArray[np.bool_], NDArray[np.float64], NDArray[np.int64]]:
        """Price parts out with SibArc duals: greedily, cheapest first, on the slack of h→m (side 0), then
        of h→m' (side 1); spends ``slack`` in place. (priced out, λ, side) per part."""
        out = np.zeros(h.size, bool)
        side = np.zeros(h.size, np.int64)
        if not slack.any() or h.size == 0:
            return out, np.where(out, cost, 0.0), side
        for k, arc in enumerate((m, m2)):
            todo = np.flatnonzero(~out)
            key = h[todo] * size + arc[todo]
            ok = todo[_spend(key, cost[todo], slack.ravel())]
            out[ok], side[ok] = True, k
            flat = slack.ravel()
            flat -= np.bincount(h[ok] * size + arc[ok], cost[ok], size * size)
            np.maximum(slack, 0.0, out=slack)
        return out, np.where(out, cost, 0.0), side

    @staticmethod
    def _spend_whole(
        h: NDArray[np.int64],
        m: NDArray[np.int64],
        m2: NDArray[np.int64],
        cost: NDArray[np.float64],
        slack: NDArray[np.float64],
        size: int,
    ) -> tuple[NDArray[np.bool_], NDArray[np.float64], NDArray[np.int64]]:
        """Price out every part of an arc whose slack covers the parts' total ``cost``: arcs h→m (side 0),
        then h→m' (side 1) for the parts left; spends ``slack`` in place. (priced out, λ, side) per part."""
        out = np.zeros(h.size, bool)
        side = np.zeros(h.size, np.int64)
        flat = slack.ravel()
        for k, arc in enumerate((m, m2)):
            if not flat.any() or out.all():
                break
            todo = np.flatnonzero(~out)
            key = h[todo] * size + arc[todo]
            need = np.bincount(key, cost[todo], size * size)
            fits = (need > 0) & (need <= flat)
            ok = todo[fits[key]]
            out[ok], side[ok] = True, k
            flat -= np.where(fits, need, 0.0)
            np.maximum(slack, 0.0, out=slack)
        return out, np.where(out, cost, 0.0), side

    def separate(self, state: DualState) -> Separated:
        sibs, tol = self.sibs, state.tol
        z = round_arc_values(state, sibs)
        active = z > tol
        absent = self._mask & ~sibs.present & ~sibs.pruned & active[:, :, None] & active[:, None, :]
        excess = z[:, :, None] + z[:, None, :] - 1.0
        violated = absent & (excess > tol)
        max_violation = float(excess[absent & ~violated].max(initial=-np.inf))
        priced = np.zeros(violated.shape, bool)
        priced[self._new] = True
        ch, cm, cm2 = (a.astype(np.int64) for a in np.nonzero(violated & ~priced))
        scores = self.cache.get(ch, cm, cm2)
        pruned = np.isneginf(scores)
        arcsib = "ArcSib" in sibs.families
        if not arcsib:  # in the full LP only a pruned part has this row (PrunedSib)
            ch, cm, cm2, scores, pruned = ch[pruned], cm[pruned], cm2[pruned], scores[pruned], pruned[pruned]
        self._cut, self._cut_scores = (ch, cm, cm2), scores
        rows = int(pruned.sum())
        infeasible = bool(violated.any()) if arcsib else bool(rows)
        self._rows = _NONE
        if self._lazy and sibs.held_back_arcsib:  # present parts without their ArcSib row
            h, m, m2 = np.nonzero(sibs.present & ~sibs.arcsib & active[:, :, None] & active[:, None, :])
            row_excess = excess[h, m, m2] - state.x[sibs.sibling_cols(h, m, m2)]
            cut = row_excess > tol
            self._rows = (h[cut].astype(np.int64), m[cut].astype(np.int64), m2[cut].astype(np.int64))
            max_violation = max(max_violation, float(row_excess[~cut].max(initial=-np.inf)))
            rows += int(cut.sum())
            infeasible = infeasible or bool(cut.any())
        self._triangles = self._separate_triangles(state, z)
        rows += sum(len(index) for index in self._triangles.values())
        infeasible = infeasible or bool(self._triangles)
        return Separated(ch.size - int(pruned.sum()), rows, max_violation, infeasible)

    def _crossed(self) -> bool:
        """Whether GPSibTriangle rows apply: the program has grandparent triples."""
        return "zgp" in self.gp.lp.var_blocks

    def _separate_triangles(self, state: DualState, z: NDArray[np.float64]) -> dict[str, NDArray[np.int64]]:
        """The SibTriangle and GPSibTriangle rows to add (:mod:`lpparse.families.sibling.triangles`), and with
        triples and the spec's ``arc_heads`` the GPSibArc rows (:mod:`lpparse.families.sibling.arc_heads`), the
        most violated ones, at most TRIANGLES_PER_TOKEN·n of each; none without SibTriangle or when the round
        separates no cuts (``state.cuts``). They are cuts, valid for every tree, outside the LP that the
        certificate is about: what stays out is not in ``max_violation``."""
        sibs = self.sibs
        if not state.cuts or "SibTriangle" not in sibs.families or sibs.num_siblings == 0:
            return {}
        if (np.abs(z - np.round(z)) <= TRIANGLE_TOL).all():  # integral arcs: ArcSib's separation is enough
            return {}
        y = np.zeros(sibs.present.shape)
        y[sibs.siblings()] = state.x[sibs.lp.cols("zsib")]
        sib_known = sibs.present | sibs.pruned
        found = {"SibTriangle": violated_sibling_triangles(z, y, sib_known, TRIANGLE_TOL)}
        if self._crossed() and self.gp.num_triples:
            gp = np.zeros(y.shape)
            gp[self.gp.triples()] = self.gp.triple_values(state.x)
            found["GPSibTriangle"] = violated_cross_triangles(
                z, gp, self.gp.present | self.gp.pruned, y, sib_known, TRIANGLE_TOL
            )
            if self.spec.arc_heads:
                found[ARC_HEADS_BLOCK] = violated_arc_heads(self.gp, sibs, state.x, TRIANGLE_TOL)
        limit = TRIANGLES_PER_TOKEN * (z.shape[0] - 1)
        out = {}
        for name, (index, excess) in found.items():
            block = sibs.lp.con_blocks.get(name)
            if block is not None and len(index):
                new = block.find(index) < 0
                index, excess = index[new], excess[new]
            if len(index) > limit:
                index = index[np.argsort(-excess, kind="stable")[:limit]]
            if len(index):
                out[name] = index
        return out

    def _add_triangles(self, rows: Mapping[str, NDArray[np.int64]]) -> None:
        if "SibTriangle" in rows:
            add_sibling_triangles(self.sibs, rows["SibTriangle"])
        if "GPSibTriangle" in rows:
            add_cross_triangles(self.gp, self.sibs, rows["GPSibTriangle"])
        if ARC_HEADS_BLOCK in rows:
            add_arc_heads(self.gp, self.sibs, rows[ARC_HEADS_BLOCK])

    def add_named_rows(self, duals: Iterable[Mapping[str, tuple[NDArray[np.int64], Any]]]) -> None:
        """Add the SibTriangle, GPSibTriangle and GPSibArc rows that the labels of ``duals`` name (a proof's
        full program, :class:`lpparse.proofs.check.ProofProgram`, holding every candidate part): each is built
        from its label, valid for every tree whatever the label says; a label that names no row of candidate
        parts names none here (its dual then counts as 0). Valid for every tree, they are built under any
        preset: exact decoding separates them whatever its rows (:meth:`lpparse.families.sibling.family.SiblingParts.for_exact`)."""
        duals = list(duals)
        rows = {}
        for name, width, known in (
            ("SibTriangle", 5, lambda idx: sibling_triangle_known(self.sibs, idx)),
            ("GPSibTriangle", 5, lambda idx: cross_triangle_known(self.gp, self.sibs, idx)),
            (ARC_HEADS_BLOCK, 3, lambda idx: arc_heads_known(self.gp, idx)),
        ):
            if name != "SibTriangle" and not self._crossed():
                continue
            index = named_labels(duals, name, width, self.gp)
            index = index[known(index)]
            if len(index):
                rows[name] = index
        self._add_triangles(rows)

    def commit(self, model: HighsModel) -> None:
        self._add_triangles(self._triangles)
        self.sibs.add_arcsib_rows(*self._rows)
        h, m, m2 = self._new
        self.sibs.add_siblings(h, m, m2, self._new_scores, arcsib=not self._lazy)
        ch, cm, cm2 = self._cut
        self.sibs.add_siblings(ch, cm, cm2, self._cut_scores)  # cut: their ArcSib (PrunedSib) rows are violated

    def outside_duals(self) -> dict[str, tuple[NDArray[np.int64], NDArray[np.float64]]]:
        h, m, m2, side, lam = self.sibarc
        if lam.size == 0:
            return {}
        return {"SibArc": (np.column_stack([h, m, m2, side]), -lam)}

    def outside_shift(self) -> NDArray[np.float64]:
        h, m, m2, side, lam = self.sibarc
        return absent_row_shift(self.sibs.lp.num_cols, self.sibs.z_col, h, np.where(side == 0, m, m2), lam)
