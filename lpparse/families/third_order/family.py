"""Third-order parts as part families of parse-price-cut: tri-siblings ⟨h, x, a, b⟩ and grand-siblings
⟨g, h, a, b⟩, priced by factorized bounds without enumerating their O(n⁴) parts, scoring only what the duals
ask for.

Both polytopes sit on the windows of the consecutive-sibling family
(:mod:`lpparse.families.third_order.trisibling`, :mod:`lpparse.families.third_order.grandsibling`), which must come before
them in the list of parts: their rows hold the window columns. Every row is indexed by windows, arcs or
pairs of arcs and exists from the start, so an absent part is a column at 0 of the full program; its reduced
cost there is d = c - Aᵀy over its rows, and nothing is ever violated by an absent part (it has no row of its
own): nothing to separate. Pricing bounds the reduced cost of every part of a pair of leading indices at once
(the counterpart of Riedel, Smith & McCallum 2012, "Parse, Price and Cut—Delayed Column and Row Generation for
Graph Based Parsers", EMNLP-CoNLL 2012, eq. 11), searches the pairs whose bound exceeds tol part by part
over the other two indices (on bounds, never scoring), and scores the rest.

**Tri-siblings** (the part's coefficient +1 in TSibOut[h,x,a] and TSibIn[h,a,b]):

    r(h, x, a, b) = s - y_Out(h, x, a) - y_In(h, a, b)
                 <= min(B1[h,x,a] - y_Out, B2[h,a,b] - y_In) - (the other dual),

with B1 >= max_b s and B2 >= max_x s; pairs (h, a).

**Grand-siblings** (+1 in GSibStart[g,h,σ(b)] when a = h, +1 in GSibFlow[g,h,b] when b ≠ h, -1 in
GSibFlow[g,h,a] when a ≠ h, +1 in GSibSum[h,a,b]):

    r(g, h, a, b) = s - [a = h] y_Start(g,h,σ(b)) - [b ≠ h] y_Flow(g,h,b) + [a ≠ h] y_Flow(g,h,a)
                    - y_Sum(h,a,b),

bounded with min(B[g,h,a], B[g,h,b], B[h,a,b]) >= s; pairs (g, h).

The start: the parts of the start tree and of a warm start and, with ``only_children``, what lets every arc
carry weight from the first round together with the consecutive-sibling family's first- and last-child
windows ⟨h, h, m⟩, ⟨h, m, h⟩: the only-child tri-sibling ⟨h, h, m, h⟩, and those windows under h's head in
the start tree.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lpparse.colgen.cache import ScoreCache
from lpparse.colgen.family import DualState, Priced, Separated, Warm
from lpparse.colgen.options import MasterSettings
from lpparse.families.base import Binding, Counted, copy_sharing, named_labels
from lpparse.families.consecutive.family import WINDOW_SLACK, ConsecutiveSiblingParts
from lpparse.families.consecutive.rows import ConsecutiveSiblingProgram, DenseConsecutiveScorer, csib_mask
from lpparse.families.third_order.grandsibling import (
    GrandSiblingProgram,
    candidate_gsibs,
    count_gsibs,
    grandsibling_program,
    gsibs_over,
    max_gsibs_per_tree,
    tree_gsibs,
)
from lpparse.families.third_order.grandsibling_links import (
    LINK_BLOCK,
    add_grandparent_links,
    every_grandparent_link,
    grandparent_link_known,
    violated_grandparent_links,
)
from lpparse.families.third_order.trisibling import (
    TriSiblingProgram,
    candidate_tsibs,
    count_tsibs,
    max_tsibs_per_tree,
    tree_tsibs,
    trisibling_program,
    tsibs_over,
)
from lpparse.lp.solution import Solution
from lpparse.lp.views import LPModel

__all__ = ["GrandSiblingFamily", "GrandSiblingParts", "TriSiblingFamily", "TriSiblingParts", "window_parts"]

Index = tuple[NDArray[np.int64], ...]
_EMPTY = np.empty(0, np.int64)
#: leading-index pairs searched at once in pricing (memory: PAIRS × (n+1)² floats)
_PAIRS = 256
#: ``auto`` runs BF on runs with third-order parts below this many candidate parts (:func:`lpparse.ppc.loop.bf_below`):
#: their pricing scores and adds most candidates (the full models of benchmarks/results/third_order*.md: 90-97%
#: scored, 61-78% added), so PPC's rounds re-solve a master that grows towards BF's. Danish full model, one
#: core, PPC against BF: over pruned arcs the six longest dev sentences (6.6k-16.9k candidates) 1.5-3.8x
#: slower, Italian's eight longest (6.7k-14.6k) 1.9-4.7x; unpruned, 6.7k-13.1k candidates (10-12 tokens)
#: 1.6-2.6x, 72k-105k (19-21 tokens) 19-48x (PPC 34-129 s). BF: 32 s at 408k candidates (30 tokens), 310 s
#: at 1.24M (40 tokens).
THIRD_ORDER_BF_BELOW = 1_500_000
#: GSibGP cuts (:mod:`lpparse.families.third_order.grandsibling_links`): at most this many per token a round, the most
#: violated first, each violated by more than LINK_TOL
LINKS_PER_TOKEN = 4
LINK_TOL = 1e-4


def _window_program(binding: Binding, kind: str) -> ConsecutiveSiblingProgram:
    """The run's consecutive-sibling program, which third-order parts live on (ValueError without it)."""
    csibs = binding.program.lp.extensions.get("consecutive")
    if not isinstance(csibs, ConsecutiveSiblingProgram):
        raise ValueError(
            f"{kind} parts live on consecutive-sibling windows: list ConsecutiveSiblingParts before them "
            "(zero scores if the model has none)"
        )
    return csibs


class _WindowFamily(Counted):
    """What the third-order families share: a program on the consecutive-sibling windows (``prog``, with
    ``keys``, ``add_parts`` and ``parts``), a score cache, the start and the parts held until commit. A
    subclass gives ``spec`` its parts' shapes and prices them."""

    #: the master's re-solves and brute force's solve use HiGHS's dual steepest edge and scaling: their window
    #: flows stall lpparse's devex settings. A 13-token sentence with grandparents, windows and both
    #: third-order families, all parts (17,875 columns): 6.3 s, 16,056 simplex iterations with
    #: :data:`lpparse.colgen.options.BF_HIGHS_OPTIONS`; 2.0 s, 6,720 with the defaults. Brute force skips
    #: presolve (Danish full model over pruned arcs, exact decoding, CPU: every fifth dev sentence 5.5-6.0 s
    #: against 6.1-6.5 s with it, 32 sentences that branch 13.0 s against 14.7 s, the same nodes)
    degenerate_master = True
    bf_master = MasterSettings(None, {"presolve": "off"})
    held_out = 0
    prog: Any

    def __init__(self, spec: Any, binding: Binding, prog: Any, candidates: int) -> None:
        self.prog = prog
        self.spec = spec
        self.tree: NDArray[np.int64] | None = binding.first_order
        warm = binding.warm
        self._warm_parts = warm.parts if warm is not None else None
        cache = warm.cache if warm is not None and warm.cache is not None else None
        super().__init__(cache or spec.cache(prog.csibs.arc_mask, prog.csibs.single_root), candidates)
        self._new: Index = (_EMPTY,) * 4
        self.complete = False
        #: the arcs priced over and their candidate windows (a branch-and-bound node's: :meth:`restrict`)
        self._arcs = prog.csibs.arc_mask
        self._windows = csib_mask(self._arcs, prog.csibs.single_root)

    def __deepcopy__(self, memo: dict[int, Any]) -> _WindowFamily:
        """A copy for another branch-and-bound node's master (:meth:`lpparse.exact.live.LiveMaster.fork`): the
        program (through ``memo``) and the family's own state copied; the score cache and the spec shared."""
        return copy_sharing(self, memo, (self.cache, self.spec))

    @property
    def added(self) -> int:
        return self.prog.num_parts

    def restrict(self, arc_mask: NDArray[np.bool_]) -> None:
        """Price only the parts over the arcs ``arc_mask`` (a branch-and-bound node's)."""
        csibs = self.prog.csibs
        self._arcs = arc_mask & csibs.arc_mask
        self._windows = csib_mask(self._arcs, csibs.single_root)

    def include(self, heads: NDArray[np.int64], model: LPModel) -> None:
        """Add the parts of the tree ``heads`` that the program lacks."""
        self._add(self.spec.tree_parts(heads))

    def node_columns(self, arc_mask: NDArray[np.bool_]) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
        """The family's columns, and whether each part is a candidate over ``arc_mask``."""
        parts = self.prog.parts()
        return self.prog.lp.cols(self.prog.block), self._over(arc_mask, parts)

    def _over(self, arc_mask: NDArray[np.bool_], parts: Index) -> NDArray[np.bool_]:
        """Which of ``parts`` are candidates over ``arc_mask``."""
        raise NotImplementedError

    def _add(self, parts: Index) -> None:
        """Add the candidate parts of ``parts`` that are neither present nor pruned."""
        parts = tuple(np.asarray(v, np.int64) for v in parts)
        keep = self.prog.candidate(parts)
        parts = tuple(v[keep] for v in parts)
        if parts[0].size == 0:
            return
        shape = self.prog.keys.shape
        key = np.unique(np.ravel_multi_index(parts, shape))
        parts = tuple(v.astype(np.int64) for v in np.unravel_index(key, shape))
        new = self.prog.keys.new(*parts)
        parts = tuple(v[new] for v in parts)
        if parts[0].size:
            self.prog.add_parts(*parts, self.cache.get(*parts))

    def _start_parts(self, tree: NDArray[np.int64]) -> Index:
        """Parts to start from besides the tree's own (``only_children``)."""
        raise NotImplementedError

    def warm(self) -> Warm:
        return Warm(self.cache, self.prog.parts())

    def point(self, x: NDArray[np.float64]) -> tuple[Index, NDArray[np.float64]]:
        """The present parts and their values in the primal vector ``x``."""
        return self.prog.parts(), self.prog.part_values(x)

    def seed(self) -> None:
        csibs = self.prog.csibs
        #: every candidate part present from the start (brute force): nothing to price, no bounds needed
        self.complete = self.tree is None
        if self.complete:
            self._add(self.spec.candidates(csibs.arc_mask, csibs.single_root))
            return
        self._add(self.spec.tree_parts(self.tree))
        if self._warm_parts is not None:
            self._add(tuple(np.asarray(v, np.int64) for v in self._warm_parts))
        if self.spec.only_children:
            self._add(self._start_parts(self.tree))

    def inactive(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        return _EMPTY, _EMPTY

    def repair(self, solution: Solution) -> Solution:
        return solution

    def _search(
        self,
        state: DualState,
        pairs: NDArray[np.bool_],
        bound: Callable[[NDArray[np.int64], NDArray[np.int64]], NDArray[np.float64]],
        assemble: Callable[[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]], Index],
        exact: Callable[[Index], NDArray[np.float64]],
        screened: float,
        tightened: int = 0,
    ) -> Priced:
        """Price the absent parts of the leading-index ``pairs`` (i, j) that pass the screen: ``bound(i, j)``
        gives each pair's (k, l) grid of reduced-cost bounds, ``assemble(i, j, k, l)`` the parts, ``exact``
        their reduced costs once scored; ``screened``: the largest bound of the pairs left out."""
        pi, pj = (v.astype(np.int64) for v in np.nonzero(pairs))
        max_bound = screened
        found: list[Index] = []
        for start in range(0, pi.size, _PAIRS):
            i, j = pi[start : start + _PAIRS], pj[start : start + _PAIRS]
            grid = bound(i, j)  # [pair, k, l]
            p, k, l = (v.astype(np.int64) for v in np.nonzero(grid > state.tol))
            parts = assemble(i[p], j[p], k, l)
            parts = tuple(v[self.prog.keys.new(*parts)] for v in parts)
            out = np.isfinite(grid) & (grid <= state.tol)  # bounded out (present parts too: a safe over-estimate)
            max_bound = max(max_bound, float(grid[out].max(initial=-np.inf)))
            found.append(parts)
        parts = tuple(np.concatenate([f[q] for f in found]) if found else _EMPTY for q in range(4))
        r = exact(parts)
        enter = r > state.tol
        max_bound = max(max_bound, float(r[~enter].max(initial=-np.inf)))
        self._new = tuple(v[enter] for v in parts)
        return Priced(int(enter.sum()), max_bound, tightened)

    def _raise(self, state: DualState, rows: NDArray[np.int64], free: NDArray[np.bool_], need: NDArray[np.float64]) -> int:
        """Dual tightening: raise the duals of the empty rows ``rows[w]`` (``free``) of windows that stay out
        by ``need[w]`` (what the parts through them ask), at most the window's remaining slack
        (:data:`lpparse.families.consecutive.family.WINDOW_SLACK`, spent here). An empty row's dual changes no present
        column's reduced cost; the window's rises by as much, to at most 0. Returns the rows raised."""
        slack = state.shared.get(WINDOW_SLACK)
        if slack is None:
            return 0
        lam = np.where(free & np.isfinite(need), np.minimum(np.maximum(need, 0.0), slack), 0.0)
        raise_ = lam > 0
        state.y[rows[raise_]] += lam[raise_]
        slack -= lam
        return int(raise_.sum())

    def separate(self, state: DualState) -> Separated:
        return Separated(0, 0, -np.inf, False)  # an absent part has no row of its own: nothing is violated

    def commit(self, model: LPModel) -> None:
        self._add(self._new)
        self._new = (_EMPTY,) * 4

    def outside_duals(self) -> dict[str, tuple[NDArray[np.int64], NDArray[np.float64]]]:
        return {}

    def outside_shift(self) -> NDArray[np.float64]:
        return np.zeros(self.prog.lp.num_cols)


def _fractional(values: NDArray[np.float64]) -> bool:
    """Whether some value is more than LINK_TOL from an integer."""
    return bool((np.abs(values - np.round(values)) > LINK_TOL).any())


def _screen(values: NDArray[np.float64], tol: float) -> tuple[NDArray[np.bool_], float]:
    """Pairs whose bound exceeds tol, and the largest finite bound of the others."""
    search = values > tol
    return search, float(values[~search & np.isfinite(values)].max(initial=-np.inf))


# ------------------------------------------------------------------------------------------ tri-siblings


@dataclass(frozen=True)
class TriSiblingParts:
    """Tri-sibling parts ⟨h, x, a, b⟩ (score convention ``tsib[h, x, a, b]``) scored by ``scorer`` (``n``,
    ``scored``, ``score(h, x, a, b)``, and the factorized bounds ``bound_first()`` (n+1)³ [h, x, a] >=
    max_b s and ``bound_second()`` [h, a, b] >= max_x s); ``only_children``: start with every arc's
    only-child part (module docstring). Needs :class:`lpparse.families.consecutive.family.ConsecutiveSiblingParts` before
    it in the list of parts."""

    scorer: Any
    only_children: bool = True

    name = "trisibling"
    arity = 4
    bf_below = THIRD_ORDER_BF_BELOW
    column_block = "ztsib"
    pruned_block = None
    live = True

    def candidates(self, arc_mask: NDArray[np.bool_], single_root: bool) -> Index:
        return candidate_tsibs(arc_mask, single_root)

    def count(self, arc_mask: NDArray[np.bool_], single_root: bool) -> int:
        return count_tsibs(arc_mask, single_root)

    def tree_parts(self, heads: NDArray[np.int64]) -> Index:
        return tree_tsibs(heads)

    def max_per_tree(self, n: int) -> int:
        return max_tsibs_per_tree(n)

    def cache(self, arc_mask: NDArray[np.bool_], single_root: bool) -> ScoreCache:
        return ScoreCache(self.scorer, arc_mask.shape[0], "tri-sibling", ("bound_first", "bound_second"), 4)

    def bind(self, binding: Binding) -> TriSiblingFamily:
        return TriSiblingFamily(self, binding)


class TriSiblingFamily(_WindowFamily):
    """Tri-sibling parts on the windows of a run's consecutive-sibling program (module docstring): a
    :class:`lpparse.colgen.PartFamily`."""

    name = TriSiblingParts.name
    prog: TriSiblingProgram

    def __init__(self, spec: TriSiblingParts, binding: Binding) -> None:
        csibs = _window_program(binding, "tri-sibling")
        prog = trisibling_program(csibs)
        super().__init__(spec, binding, prog, count_tsibs(csibs.arc_mask, csibs.single_root))

    def _start_parts(self, tree: NDArray[np.int64]) -> Index:
        h, m = (v.astype(np.int64) for v in np.nonzero(self.prog.csibs.arc_mask))
        return h, h, m, h

    def _over(self, arc_mask: NDArray[np.bool_], parts: Index) -> NDArray[np.bool_]:
        return tsibs_over(arc_mask, self.prog.csibs.single_root, parts)  # type: ignore[arg-type]

    def pruned_arcs(self, heads: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """The arc h→a (a the middle child) of each of the tree's parts scored -inf."""
        h, x, a, b = tree_tsibs(heads)
        bad = np.isneginf(self.cache.get(h, x, a, b))
        return h[bad], a[bad]

    def price(self, state: DualState) -> Priced:
        if self.complete:
            return Priced(0, -np.inf)
        bound_first, bound_second = self.cache.bounds()
        prog = self.prog
        out_ok, in_ok = (prog.out_row >= 0) & self._windows, (prog.in_row >= 0) & self._windows
        absent = ~prog.csibs.present
        y_out, y_in = prog.node_duals(state.y)
        # parts into window w = ⟨h, a, b⟩: r <= B2[w] - y_In[w] - min_x y_Out[h, x, a]
        low_out = np.where(out_ok, y_out, np.inf).min(axis=1)  # [h, a]
        tightened = self._raise(
            state, prog.in_row, in_ok & ~prog.in_used & absent, bound_second - y_in - low_out[:, :, None]
        )
        y_out, y_in = prog.node_duals(state.y)
        # parts out of w: r <= B1[w] - y_Out[w] - min_c y_In[h, b, c]
        low_in = np.where(in_ok, y_in, np.inf).min(axis=2)  # [h, b]
        tightened += self._raise(
            state, prog.out_row, out_ok & ~prog.out_used & absent, bound_first - y_out - low_in[:, None, :]
        )
        y_out, y_in = prog.node_duals(state.y)
        u = np.where(out_ok, bound_first - y_out, -np.inf)  # [h, x, a]
        w = np.where(out_ok, -y_out, -np.inf)
        v = np.where(in_ok, -y_in, -np.inf)  # [h, a, b]
        z = np.where(in_ok, bound_second - y_in, -np.inf)
        pairs, screened = _screen(
            np.minimum(u.max(axis=1) + v.max(axis=2), w.max(axis=1) + z.max(axis=2)), state.tol
        )  # [h, a]

        def bound(h: NDArray[np.int64], a: NDArray[np.int64]) -> NDArray[np.float64]:
            return np.minimum(
                u[h, :, a][:, :, None] + v[h, a, :][:, None, :], w[h, :, a][:, :, None] + z[h, a, :][:, None, :]
            )  # [pair, x, b]

        return self._search(
            state,
            pairs,
            bound,
            lambda h, a, x, b: (h, x, a, b),
            lambda p: self.cache.get(*p) - y_out[p[0], p[1], p[2]] - y_in[p[0], p[2], p[3]],
            screened,
            tightened,
        )


# ---------------------------------------------------------------------------------------- grand-siblings


@dataclass(frozen=True)
class GrandSiblingParts:
    """Grand-sibling parts ⟨g, h, a, b⟩ (score convention ``gsib[g, h, a, b]``: window ⟨h, a, b⟩ of h under
    h's head g) scored by ``scorer`` (``n``, ``scored``, ``score(g, h, a, b)``, and the factorized bounds
    ``bound_gha()`` [g, h, a] >= max_b s, ``bound_ghb()`` [g, h, b] >= max_a s, ``bound_hab()`` [h, a, b] >=
    max_g s, each (n+1)³); ``only_children``: start with the first- and last-child windows of every arc of
    a token under its head in the start tree (module docstring); ``link_grandparents``: separate the GSibGP
    cuts (:mod:`lpparse.families.third_order.grandsibling_links`), as exact decoding does
    (:meth:`for_exact`). Needs :class:`lpparse.families.consecutive.family.ConsecutiveSiblingParts` before it in the list
    of parts."""

    scorer: Any
    only_children: bool = True
    link_grandparents: bool = False

    name = "grandsibling"
    arity = 4
    bf_below = THIRD_ORDER_BF_BELOW
    column_block = "zgsib"
    pruned_block = None
    live = True

    def candidates(self, arc_mask: NDArray[np.bool_], single_root: bool) -> Index:
        return candidate_gsibs(arc_mask, single_root)

    def count(self, arc_mask: NDArray[np.bool_], single_root: bool) -> int:
        return count_gsibs(arc_mask, single_root)

    def tree_parts(self, heads: NDArray[np.int64]) -> Index:
        return tree_gsibs(heads)

    def max_per_tree(self, n: int) -> int:
        return max_gsibs_per_tree(n)

    def cache(self, arc_mask: NDArray[np.bool_], single_root: bool) -> ScoreCache:
        bounds = ("bound_gha", "bound_ghb", "bound_hab")
        return ScoreCache(self.scorer, arc_mask.shape[0], "grand-sibling", bounds, 4)

    def bind(self, binding: Binding) -> GrandSiblingFamily:
        return GrandSiblingFamily(self, binding)

    def for_exact(self) -> GrandSiblingParts:
        """The family as exact decoding uses it: with the GSibGP cuts, which tighten its node LPs beyond the
        LP decoders' (:func:`lpparse.exact.search.exact_search`)."""
        return replace(self, link_grandparents=True)


class GrandSiblingFamily(_WindowFamily):
    """Grand-sibling parts on the arcs and windows of a run's consecutive-sibling program (module
    docstring): a :class:`lpparse.colgen.PartFamily`."""

    name = GrandSiblingParts.name
    prog: GrandSiblingProgram

    def __init__(self, spec: GrandSiblingParts, binding: Binding) -> None:
        csibs = _window_program(binding, "grand-sibling")
        prog = grandsibling_program(csibs)
        super().__init__(spec, binding, prog, count_gsibs(csibs.arc_mask, csibs.single_root))
        self.gp = binding.program  #: the grandparent program whose triples the GSibGP cuts name
        self._links = np.zeros((0, 3), np.int64)  #: the GSibGP rows this round adds
        self._linked_all = False  #: every row over the present parts entered (brute force's fractional point)

    def separate(self, state: DualState) -> Separated:
        """GSibGP cuts (:mod:`lpparse.families.third_order.grandsibling_links`) with ``link_grandparents``: the most
        violated, at most LINKS_PER_TOKEN·n, or, when every part is present (brute force: a branch-and-bound
        search's master) and the arcs are fractional, every row at once, so that the nodes below need no
        rounds of them (Danish full model over pruned arcs, the 32 dev sentences that branch: 11.6 s against
        13.2 s CPU, the same nodes; #173 6.9 s against 8.5 s; every fifth sentence unchanged). They are cuts,
        valid for every tree, outside the LP that the certificate is about: what stays out is not in
        ``max_violation``; none when the round separates no cuts (``state.cuts``)."""
        self._links = np.zeros((0, 3), np.int64)
        if not self.spec.link_grandparents or self.prog.num_parts == 0 or not state.cuts:
            return Separated(0, 0, -np.inf, False)
        if self.complete and not self._linked_all and _fractional(self.gp.arc_values(state.x)):
            self._linked_all = True
            index = every_grandparent_link(self.prog, self.gp)
        else:
            index, excess = violated_grandparent_links(self.prog, self.gp, state.x, LINK_TOL)
            limit = LINKS_PER_TOKEN * self.prog.n
            if len(index) > limit:
                index = index[np.argsort(-excess, kind="stable")[:limit]]
        self._links = index
        return Separated(0, len(index), -np.inf, bool(len(index)))

    def commit(self, model: LPModel) -> None:
        super().commit(model)
        if len(self._links):
            add_grandparent_links(self.prog, self.gp, self._links)
        self._links = np.zeros((0, 3), np.int64)

    def add_named_rows(self, duals: Iterable[Mapping[str, tuple[NDArray[np.int64], Any]]]) -> None:
        """Add the GSibGP rows that the labels of ``duals`` name (a proof's full program,
        :class:`lpparse.proofs.check.ProofProgram`, holding every candidate part), each over every part the
        program holds; a label that names no row (:func:`grandparent_link_known`) adds none (its dual then
        counts as 0)."""
        index = named_labels(duals, LINK_BLOCK, 3, self.gp)
        index = index[grandparent_link_known(self.gp, index)]
        if len(index):
            add_grandparent_links(self.prog, self.gp, index)

    def _start_parts(self, tree: NDArray[np.int64]) -> Index:
        h, m = (v.astype(np.int64) for v in np.nonzero(self.prog.csibs.arc_mask[1:]))
        h = h + 1
        g = tree[h]
        return np.r_[g, g], np.r_[h, h], np.r_[h, m], np.r_[m, h]

    def _over(self, arc_mask: NDArray[np.bool_], parts: Index) -> NDArray[np.bool_]:
        return gsibs_over(arc_mask, self.prog.csibs.single_root, parts)  # type: ignore[arg-type]

    def pruned_arcs(self, heads: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """The arc g→h of each of the tree's parts scored -inf."""
        g, h, a, b = tree_gsibs(heads)
        bad = np.isneginf(self.cache.get(g, h, a, b))
        return g[bad], h[bad]

    def _terms(
        self, y: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
        """The dual terms of a part's reduced cost: [g, h, a] (+y_Flow, a ≠ h; 0 at a = h), [g, h, b] (-y_Flow,
        b ≠ h; 0 at b = h), the start term [g, h, b] (-y_Start of b's side, counted when a = h) and [h, a, b]
        (-y_Sum; -inf where no window)."""
        prog = self.prog
        y_start, y_flow, y_sum = prog.row_duals(y)
        size = prog.n + 1
        i = np.arange(size)
        not_h = i[None, :, None] != i[None, None, :]  # [·, h, a]: a ≠ h
        t_a = np.where(not_h, y_flow, 0.0)
        t_b = np.where(not_h, -y_flow, 0.0)
        side = (i[None, :] > i[:, None]).astype(np.int64)  # [h, b]: 1 when b is right of h
        t_start = -y_start[:, i[:, None], side]  # [g, h, b]
        t_sum = np.where((prog.sum_row >= 0) & self._windows, -y_sum, -np.inf)
        return t_a, t_b, t_start, t_sum

    def price(self, state: DualState) -> Priced:
        if self.complete:
            return Priced(0, -np.inf)
        gha, ghb, hab = self.cache.bounds()
        prog = self.prog
        t_a, t_b, t_start, t_sum = self._terms(state.y)
        arcs = self._arcs.copy()
        arcs[:, 0] = False
        # parts over window w = ⟨h, a, b⟩: r <= B[h, a, b] + max_g t_a + max_g (t_b + start+) - y_Sum[w]
        heads = arcs[:, :, None]
        most_a = np.where(heads, t_a, -np.inf).max(axis=0)  # [h, a]
        most_b = np.where(heads, t_b + np.maximum(t_start, 0.0), -np.inf).max(axis=0)  # [h, b]
        need = hab + most_a[:, :, None] + most_b[:, None, :] + t_sum
        free = (prog.sum_row >= 0) & ~prog.sum_used & ~prog.csibs.present
        tightened = self._raise(state, prog.sum_row, free, need)
        if tightened:
            t_a, t_b, t_start, t_sum = self._terms(state.y)
        best_b = (t_b + np.maximum(t_start, 0.0)).max(axis=2)  # [g, h]
        screen = np.minimum(
            (gha + t_a).max(axis=2) + best_b + t_sum.max(axis=(1, 2))[None, :],
            t_a.max(axis=2) + best_b + (hab + t_sum).max(axis=(1, 2))[None, :],
        )
        pairs, screened = _screen(np.where(arcs, screen, -np.inf), state.tol)

        def bound(g: NDArray[np.int64], h: NDArray[np.int64]) -> NDArray[np.float64]:
            cap = np.minimum(
                np.minimum(gha[g, h, :][:, :, None], ghb[g, h, :][:, None, :]), hab[h]
            )
            out = cap + t_a[g, h, :][:, :, None] + t_b[g, h, :][:, None, :] + t_sum[h]  # [pair, a, b]
            out[np.arange(g.size), h, :] += t_start[g, h, :]  # the first windows, a = h
            return out

        def exact(p: Index) -> NDArray[np.float64]:
            g, h, a, b = p
            start = np.where(a == h, t_start[g, h, b], 0.0)
            return self.cache.get(g, h, a, b) + t_a[g, h, a] + t_b[g, h, b] + start + t_sum[h, a, b]

        return self._search(state, pairs, bound, lambda g, h, a, b: (g, h, a, b), exact, screened, tightened)


def window_parts(
    n: int, consecutive: Any = None, trisiblings: Any = None, grandsiblings: Any = None
) -> list[Any]:
    """The part families on consecutive-sibling windows for the scorers given, in the order they bind: the
    consecutive-sibling family (of ``consecutive``, or of zero window scores when only a third-order scorer
    is given), then tri-siblings and grand-siblings; [] when no scorer is given."""
    if consecutive is None and trisiblings is None and grandsiblings is None:
        return []
    if consecutive is None:
        consecutive = DenseConsecutiveScorer(np.zeros((n + 1,) * 3))
    out: list[Any] = [ConsecutiveSiblingParts(consecutive)]
    if trisiblings is not None:
        out.append(TriSiblingParts(trisiblings))
    if grandsiblings is not None:
        out.append(GrandSiblingParts(grandsiblings))
    return out
