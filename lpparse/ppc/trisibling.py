"""Tri-siblings as a part family of parse-price-cut: pricing by factorized bounds over pairs of windows,
scoring only the 4-index parts the duals ask for.

The polytope is :mod:`lpparse.formulations.trisibling` (a second-order head automaton per head and side on
the windows of the consecutive-sibling family, which must come before this family in the list of parts: its
rows hold the window columns). Rows are indexed by windows and exist from the start, so an absent part is a
column at 0 of the full program, and its reduced cost there is (maximization, d = c - Aᵀy, the part's
coefficient +1 in its two rows)

    r(h, x, a, b) = s(h, x, a, b) - y_Out(h, x, a) - y_In(h, a, b).

With the scorer's factorized bounds B1[h, x, a] >= max_b s and B2[h, a, b] >= max_x s,

    r <= min(U[h, x, a] + V[h, a, b], W[h, x, a] + Z[h, a, b]),
    U = B1 - y_Out,  V = -y_In,  W = -y_Out,  Z = B2 - y_In,

so a pair (h, a) whose max_x U + max_b V or max_x W + max_b Z is <= tol holds no part worth scoring, and the
others are searched pair by pair over (x, b) (the counterpart of Riedel, Smith & McCallum 2012, "Parse,
Price and Cut—Delayed Column and Row Generation for Graph Based Parsers", EMNLP-CoNLL 2012, eq. 11). Pricing
never enumerates the O(n⁴) parts. Nothing is ever violated by an absent part (it has no row of its own):
nothing to separate. The start: the parts of the start tree and of a warm start and, with
``only_children``, every candidate arc's only-child part ⟨h, h, m, h⟩, which with the consecutive-sibling
family's ⟨h, h, m⟩ and ⟨h, m, h⟩ lets every arc carry weight from the first round.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from lpparse.colgen.cache import ScoreCache
from lpparse.colgen.family import DualState, Priced, Separated, Warm
from lpparse.formulations.consecutive import ConsecutiveSiblingProgram
from lpparse.formulations.trisibling import (
    TriSiblingProgram,
    candidate_tsibs,
    count_tsibs,
    max_tsibs_per_tree,
    tree_tsibs,
    trisibling_program,
)
from lpparse.lp.solution import Solution
from lpparse.lp.views import LPModel
from lpparse.ppc.families import Counted
from lpparse.ppc.parts import Binding

__all__ = ["TriSiblingFamily", "TriSiblingParts"]

Index = tuple[NDArray[np.int64], ...]
_EMPTY = np.empty(0, np.int64)
#: (h, a) pairs searched over (x, b) at once in pricing (memory: PAIRS × (n+1)² floats)
_PAIRS = 256


@dataclass(frozen=True)
class TriSiblingParts:
    """Tri-sibling parts ⟨h, x, a, b⟩ (score convention ``tsib[h, x, a, b]``) scored by ``scorer`` (``n``,
    ``scored``, ``score(h, x, a, b)``, and the factorized bounds ``bound_first()`` (n+1)³ [h, x, a] >=
    max_b s and ``bound_second()`` [h, a, b] >= max_x s); ``only_children``: start with every arc's
    only-child part (module docstring). Needs :class:`lpparse.ppc.consecutive.ConsecutiveSiblingParts` before
    it in the list of parts."""

    scorer: object
    only_children: bool = True

    name = "trisibling"
    arity = 4
    column_block = "ztsib"
    pruned_block = None

    def candidates(self, arc_mask: NDArray[np.bool_], single_root: bool) -> Index:
        return candidate_tsibs(arc_mask, single_root)

    def tree_parts(self, heads: NDArray[np.int64]) -> Index:
        return tree_tsibs(heads)

    def max_per_tree(self, n: int) -> int:
        return max_tsibs_per_tree(n)

    def cache(self, arc_mask: NDArray[np.bool_], single_root: bool) -> ScoreCache:
        return ScoreCache(self.scorer, arc_mask.shape[0], "tri-sibling", ("bound_first", "bound_second"), 4)

    def bind(self, binding: Binding) -> TriSiblingFamily:
        return TriSiblingFamily(self, binding)


class TriSiblingFamily(Counted):
    """Tri-sibling parts on the windows of a run's consecutive-sibling program (module docstring): a
    :class:`lpparse.colgen.PartFamily`."""

    name = TriSiblingParts.name
    degenerate_master = False
    held_out = 0

    def __init__(self, spec: TriSiblingParts, binding: Binding) -> None:
        csibs = binding.program.lp.extensions.get("consecutive")
        if not isinstance(csibs, ConsecutiveSiblingProgram):
            raise ValueError(
                "tri-sibling parts live on consecutive-sibling windows: list ConsecutiveSiblingParts before "
                "TriSiblingParts (zero scores if the model has none)"
            )
        self.prog: TriSiblingProgram = trisibling_program(csibs)
        self.spec = spec
        self.tree: NDArray[np.int64] | None = binding.first_order
        warm = binding.warm
        self._warm_parts = warm.parts if warm is not None else None
        cache = warm.cache if warm is not None and warm.cache is not None else None
        cache = cache or spec.cache(csibs.arc_mask, csibs.single_root)
        super().__init__(cache, count_tsibs(csibs.arc_mask, csibs.single_root))
        self._bound_first, self._bound_second = cache.bounds()
        self._new: Index = (_EMPTY,) * 4

    @property
    def added(self) -> int:
        return self.prog.num_parts

    def _add(self, parts: Index) -> None:
        """Add the candidate parts of ``parts`` that are neither present nor pruned."""
        h, x, a, b = (np.asarray(v, np.int64) for v in parts)
        prog = self.prog
        keep = (a != h) & (prog.out_row[h, x, a] >= 0) & (prog.in_row[h, a, b] >= 0)
        h, x, a, b = h[keep], x[keep], a[keep], b[keep]
        if h.size == 0:
            return
        shape = (prog.n + 1,) * 4
        key = np.unique(np.ravel_multi_index((h, x, a, b), shape))
        h, x, a, b = (v.astype(np.int64) for v in np.unravel_index(key, shape))
        new = prog.keys.new(h, x, a, b)
        h, x, a, b = h[new], x[new], a[new], b[new]
        if h.size:
            prog.add_parts(h, x, a, b, self.cache.get(h, x, a, b))

    def pruned_arcs(self, heads: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """The arc h→a (a the middle child) of each of the tree's parts scored -inf."""
        h, x, a, b = tree_tsibs(heads)
        bad = np.isneginf(self.cache.get(h, x, a, b))
        return h[bad], a[bad]

    def warm(self) -> Warm:
        return Warm(self.cache, self.prog.parts())

    def seed(self) -> None:
        csibs = self.prog.csibs
        if self.tree is None:
            self._add(candidate_tsibs(csibs.arc_mask, csibs.single_root))
            return
        self._add(tree_tsibs(self.tree))
        if self._warm_parts is not None:
            self._add(tuple(np.asarray(v, np.int64) for v in self._warm_parts))
        if self.spec.only_children:
            h, m = (v.astype(np.int64) for v in np.nonzero(csibs.arc_mask))
            self._add((h, h, m, h))

    def inactive(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        return _EMPTY, _EMPTY

    def repair(self, solution: Solution) -> Solution:
        return solution

    def price(self, state: DualState) -> Priced:
        prog = self.prog
        y_out, y_in = prog.node_duals(state.y)
        out_ok, in_ok = prog.out_row >= 0, prog.in_row >= 0
        u = np.where(out_ok, self._bound_first - y_out, -np.inf)  # [h, x, a]
        w = np.where(out_ok, -y_out, -np.inf)
        v = np.where(in_ok, -y_in, -np.inf)  # [h, a, b]
        z = np.where(in_ok, self._bound_second - y_in, -np.inf)
        screen = np.minimum(u.max(axis=1) + v.max(axis=2), w.max(axis=1) + z.max(axis=2))  # [h, a]
        search = screen > state.tol
        max_bound = float(screen[~search & np.isfinite(screen)].max(initial=-np.inf))
        hs, as_ = (p.astype(np.int64) for p in np.nonzero(search))
        found: list[Index] = []
        for start in range(0, hs.size, _PAIRS):
            h, a = hs[start : start + _PAIRS], as_[start : start + _PAIRS]
            bound = np.minimum(
                u[h, :, a][:, :, None] + v[h, a, :][:, None, :], w[h, :, a][:, :, None] + z[h, a, :][:, None, :]
            )  # [pair, x, b]
            k, x, b = (p.astype(np.int64) for p in np.nonzero(bound > state.tol))
            parts = (h[k], x, a[k], b)
            absent = prog.keys.new(*parts)
            parts = tuple(p[absent] for p in parts)
            # parts bounded out, and present ones, stay as they are: their bound still bounds what stays out
            out = np.isfinite(bound) & (bound <= state.tol)
            max_bound = max(max_bound, float(bound[out].max(initial=-np.inf)))
            found.append(parts)
        h, x, a, b = (np.concatenate([f[i] for f in found]) if found else _EMPTY for i in range(4))
        r = self.cache.get(h, x, a, b) - y_out[h, x, a] - y_in[h, a, b]
        enter = r > state.tol
        max_bound = max(max_bound, float(r[~enter].max(initial=-np.inf)))
        self._new = (h[enter], x[enter], a[enter], b[enter])
        return Priced(int(enter.sum()), max_bound)

    def separate(self, state: DualState) -> Separated:
        return Separated(0, 0, -np.inf, False)  # an absent part has no row of its own: nothing is violated

    def commit(self, model: LPModel) -> None:
        self._add(self._new)
        self._new = (_EMPTY,) * 4

    def outside_duals(self) -> dict[str, tuple[NDArray[np.int64], NDArray[np.float64]]]:
        return {}

    def outside_shift(self) -> NDArray[np.float64]:
        return np.zeros(self.prog.lp.num_cols)
