"""Consecutive siblings as a part family of parse-price-cut: pricing by factorized bounds, scoring only what
the duals ask for.

The polytope is :mod:`lpparse.families.consecutive.rows` (one head automaton per head and side, McDonald &
Pereira 2006, "Online Learning of Approximate Dependency Parsing Algorithms", EACL 2006; Koo, Rush,
Collins, Jaakkola & Sontag 2010, "Dual Decomposition for Parsing with Non-Projective Head Automata", EMNLP
2010). Its rows are indexed by arcs and (head, side) and exist from the start, and a part has no row of its
own, so an absent part is a column at 0 of the full program, and its reduced cost there is (maximization,
d = c - Aᵀy, the part's coefficient +1 in each of its two rows)

    r(h, a, b) = s(h, a, b) - ν(h, a) - μ_In(h, b),
    ν(h, a) = μ_CSibStart(h, side of b) when a = h (first child), else μ_CSibOut(h, a);
    μ_In(h, b) = 0 when b = h (last child: END has no row).

Pricing never scores a part whose bound r̄ = min(s̄₁(h, a), s̄₂(h, b)) - ν - μ_In is <= tol, where s̄₁(h, a)
>= max_b s(h, a, b) and s̄₂(h, b) >= max_a s(h, a, b) are the scorer's factorized bounds (the counterpart
of Riedel, Smith & McCallum 2012, "Parse, Price and Cut—Delayed Column and Row Generation for Graph Based
Parsers", EMNLP-CoNLL 2012, eq. 11); it scores the rest and adds those with r > tol. Rows that a program
built on the windows links to them (:meth:`~lpparse.families.consecutive.rows.ConsecutiveSiblingProgram.link`,
the tri-siblings' TSibIn/TSibOut) add their coefficient × dual to ν, and the windows that stay out publish
their dual slack (:data:`WINDOW_SLACK`) for those families to tighten their rows' duals with. Nothing is ever
violated by an absent part (it has no row), so there is nothing to separate, and no dual of an absent row to
give. The start: the windows of the start tree and of a warm start and, with ``only_children``, each
candidate arc's first-child and last-child parts ⟨h, h, m⟩, ⟨h, m, h⟩, so that every arc can carry weight
from the first round (an arc with no part is held at 0 by its CSibIn row).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lpparse.colgen.cache import ScoreCache
from lpparse.colgen.family import DualState, Priced, Separated, Warm
from lpparse.families.base import Binding, Counted, copy_sharing
from lpparse.families.consecutive.rows import (
    ConsecutiveSiblingScorer,
    candidate_csibs,
    consecutive_program,
    csib_mask,
    max_csibs_per_tree,
    tree_csibs,
)
from lpparse.lp.solution import Solution
from lpparse.lp.views import LPModel

__all__ = ["WINDOW_SLACK", "ConsecutiveSiblingFamily", "ConsecutiveSiblingParts"]

#: ``DualState.shared`` key of the windows' dual slack: per window ⟨h, a, b⟩ that stays out, -(a bound on its
#: reduced cost) >= 0, what the duals of its linked rows may rise by in all (each raises the window's reduced
#: cost by as much) while it stays <= 0; the families on the windows spend it (:mod:`lpparse.families.third_order.family`)
WINDOW_SLACK = "window_slack"

Index = tuple[NDArray[np.int64], ...]
_EMPTY = np.empty(0, np.int64)


@dataclass(frozen=True)
class ConsecutiveSiblingParts:
    """Consecutive-sibling parts ⟨h, a, b⟩ (score convention ``csib[h, a, b]``) scored by ``scorer``
    (:class:`~lpparse.families.consecutive.rows.ConsecutiveSiblingScorer`); ``only_children``: start with every
    arc's first- and last-child parts (module docstring)."""

    scorer: ConsecutiveSiblingScorer
    only_children: bool = True

    name = "consecutive"
    arity = 3
    column_block = "zcs"
    pruned_block = None  # a pruned part has no column and needs no row
    live = True

    def candidates(self, arc_mask: NDArray[np.bool_], single_root: bool) -> Index:
        return candidate_csibs(arc_mask, single_root)

    def count(self, arc_mask: NDArray[np.bool_], single_root: bool) -> int:
        return int(csib_mask(arc_mask, single_root).sum())

    def tree_parts(self, heads: NDArray[np.int64]) -> Index:
        return tree_csibs(heads)

    def max_per_tree(self, n: int) -> int:
        return max_csibs_per_tree(n)

    def cache(self, arc_mask: NDArray[np.bool_], single_root: bool) -> ScoreCache:
        return ScoreCache(
            self.scorer, arc_mask.shape[0], "consecutive sibling", ("bound_first", "bound_second")
        )

    def bind(self, binding: Binding) -> ConsecutiveSiblingFamily:
        return ConsecutiveSiblingFamily(self, binding)


class ConsecutiveSiblingFamily(Counted):
    """Consecutive-sibling parts on the arcs of a run's program (module docstring): a
    :class:`lpparse.colgen.PartFamily`."""

    name = ConsecutiveSiblingParts.name
    degenerate_master = False
    held_out = 0

    def __init__(self, spec: ConsecutiveSiblingParts, binding: Binding) -> None:
        self.csibs = consecutive_program(binding.program.lp)
        self.spec = spec
        self.tree: NDArray[np.int64] | None = binding.first_order
        self.mask = csib_mask(self.csibs.arc_mask, self.csibs.single_root)
        warm = binding.warm
        self._warm_parts = warm.parts if warm is not None else None
        cache = warm.cache if warm is not None and warm.cache is not None else None
        cache = cache or spec.cache(self.csibs.arc_mask, self.csibs.single_root)
        super().__init__(cache, int(self.mask.sum()))
        self._new: Index = (_EMPTY,) * 3
        self.tighten = binding.options.tighten
        self.complete = False

    def __deepcopy__(self, memo: dict[int, Any]) -> ConsecutiveSiblingFamily:
        """A copy for another branch-and-bound node's master (:meth:`lpparse.exact.live.LiveMaster.fork`): the
        program (through ``memo``) and the family's own state copied; the score cache (with the bounds) and
        the spec shared."""
        return copy_sharing(self, memo, (self.cache, self.spec))

    @property
    def added(self) -> int:
        return self.csibs.num_parts

    def restrict(self, arc_mask: NDArray[np.bool_]) -> None:
        """Price only the windows over the arcs ``arc_mask`` (a branch-and-bound node's)."""
        self.mask = csib_mask(arc_mask & self.csibs.arc_mask, self.csibs.single_root)

    def include(self, heads: NDArray[np.int64], model: LPModel) -> None:
        """Add the windows of the tree ``heads`` that the program lacks."""
        self._add(tree_csibs(heads))

    def node_columns(self, arc_mask: NDArray[np.bool_]) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
        """The zcs columns, and whether each window is a candidate over ``arc_mask``."""
        h, a, b = self.csibs.parts()
        return self.csibs.lp.cols("zcs"), csib_mask(arc_mask, self.csibs.single_root)[h, a, b]

    def _add(self, parts: Index) -> None:
        """Add the candidate parts of ``parts`` that are neither present nor pruned (a -inf score: no column)."""
        h, a, b = parts
        keep = self.mask[h, a, b] & ~self.csibs.present[h, a, b] & ~self.csibs.pruned[h, a, b]
        h, a, b = h[keep], a[keep], b[keep]
        if h.size:
            key = np.unique(np.ravel_multi_index((h, a, b), self.mask.shape))
            h, a, b = (x.astype(np.int64) for x in np.unravel_index(key, self.mask.shape))
            self.csibs.add_parts(h, a, b, self.cache.get(h, a, b))

    def point(self, x: NDArray[np.float64]) -> tuple[Index, NDArray[np.float64]]:
        """The present parts and their values in the primal vector ``x``."""
        return self.csibs.parts(), self.csibs.part_values(x)

    def pruned_arcs(self, heads: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """The arc h→b (h→a for a last-child window) of each of the tree's windows scored -inf."""
        h, a, b = tree_csibs(heads)
        bad = np.isneginf(self.cache.get(h, a, b))
        return h[bad], np.where(b == h, a, b)[bad]

    def warm(self) -> Warm:
        return Warm(self.cache, self.csibs.parts())

    def seed(self) -> None:
        #: every candidate window present from the start (brute force): nothing to price
        self.complete = self.tree is None
        if self.complete:
            self._add(tuple(x.astype(np.int64) for x in np.nonzero(self.mask)))
            return
        self._add(tree_csibs(self.tree))
        if self._warm_parts is not None:
            self._add(tuple(np.asarray(x, np.int64) for x in self._warm_parts))
        if self.spec.only_children:
            h, m = (x.astype(np.int64) for x in np.nonzero(self.csibs.arc_mask))
            self._add((np.r_[h, h], np.r_[h, m], np.r_[m, h]))

    def inactive(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        return _EMPTY, _EMPTY

    def repair(self, solution: Solution) -> Solution:
        return solution

    def _duals(self, y: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """(ν, μ_In) as (n+1)^3 and (n+1)^2 arrays: ν[h, a, b] the dual charged to the part's first index (its
        CSibStart row when a = h, else CSibOut[h, a]), μ_In[h, b] (0 for b = h)."""
        p = self.csibs
        size = p.z_col.shape[0]

        def dual(rows: NDArray[np.int64]) -> NDArray[np.float64]:
            return np.where(rows >= 0, y[np.maximum(rows, 0)], 0.0)

        out, into, start = dual(p.out_row), dual(p.in_row), dual(p.start_row)
        i = np.arange(size)
        nu = np.broadcast_to(out[:, :, None], (size,) * 3).copy()
        side = (i[None, :] > i[:, None]).astype(np.int64)  # side[h, b]: 1 right, 0 left
        nu[i, i, :] = start[i[:, None], side]
        np.fill_diagonal(into, 0.0)
        return nu, into

    def price(self, state: DualState) -> Priced:
        if self.complete:
            return Priced(0, -np.inf)
        nu, into = self._duals(state.y)
        if self.csibs.links:  # rows of a program on the windows (tri-siblings): their duals count too
            nu = nu + self.csibs.linked_duals(state.y)
        absent = self.mask & ~self.csibs.present & ~self.csibs.pruned
        first, second = self.cache.bounds()  # asked for at the first pricing (brute force never prices)
        bound = np.minimum(first[:, :, None], second[:, None, :]) - nu - into[:, None, :]
        ask = absent & (bound > state.tol)
        max_bound = float(bound[absent & ~ask].max(initial=-np.inf))
        h, a, b = (x.astype(np.int64) for x in np.nonzero(ask))
        r = self.cache.get(h, a, b) - nu[h, a, b] - into[h, b]
        enter = r > state.tol
        max_bound = max(max_bound, float(r[~enter].max(initial=-np.inf)))
        self._new = (h[enter], a[enter], b[enter])
        if self.csibs.links and self.tighten:  # what an absent window's linked rows may take (third order)
            slack = np.where(absent & ~ask, -np.minimum(bound, 0.0), 0.0)
            slack[h[~enter], a[~enter], b[~enter]] = -np.minimum(r[~enter], 0.0)
            state.shared[WINDOW_SLACK] = slack
        return Priced(int(enter.sum()), max_bound)

    def separate(self, state: DualState) -> Separated:
        return Separated(0, 0, -np.inf, False)  # an absent part has no row: nothing is ever violated

    def commit(self, model: LPModel) -> None:
        self._add(self._new)
        self._new = (_EMPTY,) * 3

    def outside_duals(self) -> dict[str, tuple[NDArray[np.int64], NDArray[np.float64]]]:
        return {}

    def outside_shift(self) -> NDArray[np.float64]:
        return np.zeros(self.csibs.lp.num_cols)
