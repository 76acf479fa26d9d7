"""A minimal priced part family: head bigrams ⟨h, h', m⟩, "h heads m, h' heads m + 1" (Martins, Almeida &
Smith 2013, "Turning on the Turbo: Fast Third-Order Non-Projective Turbo Parsers", ACL 2013). Walk-through:
``docs/families.md``; installed (``pip install docs/examples/head_bigrams``), it is the registered family
``bigram`` (``head_bigrams_entry.py``). Rows over the arcs z, one per candidate arc, from the start:

    BigramLeft[h, m] (m < n):   Σ_h' y[h, h', m] - z[h, m] = 0
    BigramRight[h', m] (m > 1): Σ_h y[h, h', m - 1] - z[h', m] = 0

Valid (on a tree y[h, h', m] = z[h, m] z[h', m + 1], one head per token) and exact (on a tree they force y to
those products). A part has no row of its own, so an absent part's reduced cost in the full program is
d = s - μ_Left[h, m] - μ_Right[h', m + 1].
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lpparse.colgen import DualState, Priced, ScoreCache, Separated, Warm
from lpparse.families.base import Binding, Counted
from lpparse.lp.program import Terms

Index = tuple[NDArray[np.int64], ...]


def bigram_mask(arc_mask: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """(n+1)^3 mask of the candidate parts ⟨h, h', m⟩: arcs h→m and h'→m+1 both candidates."""
    mask = np.zeros((arc_mask.shape[0],) * 3, bool)
    mask[:, :, :-1] = arc_mask[:, None, :-1] & arc_mask[None, :, 1:]
    mask[:, :, 0] = False
    return mask


def tree_bigrams(heads: NDArray[np.int64]) -> Index:
    """The parts ⟨heads[m], heads[m+1], m⟩ of a tree."""
    m = np.arange(1, heads.size - 1)
    return heads[m], heads[m + 1], m


@dataclass(frozen=True)
class HeadBigramParts:
    """The user's side: a scorer of (h, h', m) batches (``n``, ``scored``, ``score``), here any dense cube."""

    scorer: Any
    name = "bigram"
    arity = 3
    column_block = "zbig"
    pruned_block = None  # a part scored -inf gets no column and no row

    def candidates(self, arc_mask: NDArray[np.bool_], single_root: bool) -> Index:
        return tuple(a.astype(np.int64) for a in np.nonzero(bigram_mask(arc_mask)))

    def tree_parts(self, heads: NDArray[np.int64]) -> Index:
        return tree_bigrams(heads)

    def max_per_tree(self, n: int) -> int:
        return max(n - 1, 0)

    def cache(self, arc_mask: NDArray[np.bool_], single_root: bool) -> ScoreCache:
        return ScoreCache(self.scorer, arc_mask.shape[0], "bigram", ())

    def bind(self, binding: Binding) -> HeadBigramFamily:
        return HeadBigramFamily(self, binding)


class HeadBigramFamily(Counted):
    """The engine's side: columns, rows, pricing. No bounds: every absent part is scored each round."""

    name = "bigram"
    degenerate_master = False
    held_out = 0

    def __init__(self, spec: HeadBigramParts, binding: Binding) -> None:
        lp, z_col = binding.program.lp, binding.program.z_col
        self.mask = bigram_mask(z_col >= 0)
        warm = binding.warm
        cache = warm.cache if warm and warm.cache else spec.cache(z_col >= 0, False)
        super().__init__(cache, int(self.mask.sum()))
        self.lp, self.z_col, self.tree = lp, z_col, binding.first_order
        self.present = np.zeros(self.mask.shape, bool)
        h, m = np.nonzero(z_col >= 0)
        self.left_row, self.right_row = np.full_like(z_col, -1), np.full_like(z_col, -1)
        last = z_col.shape[0] - 1
        sides = (("BigramLeft", self.left_row, m < last), ("BigramRight", self.right_row, m > 1))
        for name, rows, on in sides:  # Σ y - z[h, m] = 0, the y terms coming with the parts
            hs, ms = h[on], m[on]
            rows[hs, ms] = lp.constrain(name, np.column_stack([hs, ms]), -Terms.columns(z_col[hs, ms]), 0, 0)
        lp.add_variables("zbig", np.empty((0, 3), np.int64), integer=True)
        self._new: Index = (np.empty(0, np.int64),) * 3

    @property
    def added(self) -> int:
        return int(self.present.sum())

    def _add(self, parts: Index) -> None:
        h, h2, m = parts
        scores = self.cache.get(h, h2, m)
        keep = np.isfinite(scores) & ~self.present[h, h2, m]  # -inf: pruned, never a column
        h, h2, m, scores = h[keep], h2[keep], m[keep], scores[keep]
        cols = self.lp.add_variables("zbig", np.column_stack([h, h2, m]), cost=scores, integer=True)
        self.lp.add_coefficients(self.left_row[h, m], cols, np.ones(cols.size))
        self.lp.add_coefficients(self.right_row[h2, m + 1], cols, np.ones(cols.size))
        self.present[h, h2, m] = True

    def pruned_arcs(self, heads: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        h, h2, m = tree_bigrams(heads)
        bad = np.isneginf(self.cache.get(h, h2, m))
        return h2[bad], m[bad] + 1

    def warm(self) -> Warm:
        return Warm(self.cache, tuple(a.astype(np.int64) for a in np.nonzero(self.present)))

    def seed(self) -> None:
        if self.tree is None:
            self._add(tuple(a.astype(np.int64) for a in np.nonzero(self.mask)))
        else:
            self._add(tree_bigrams(self.tree))

    def inactive(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        return np.empty(0, np.int64), np.empty(0, np.int64)

    def repair(self, solution: Any) -> Any:
        return solution

    def price(self, state: DualState) -> Priced:
        mu_left = np.where(self.left_row >= 0, state.y[self.left_row], 0.0)
        mu_right = np.where(self.right_row >= 0, state.y[self.right_row], 0.0)
        absent = self.mask & ~self.present
        h, h2, m = (a.astype(np.int64) for a in np.nonzero(absent))
        r = self.cache.get(h, h2, m) - mu_left[h, m] - mu_right[h2, m + 1]  # d = c - Aᵀy
        enter = r > state.tol
        self._new = (h[enter], h2[enter], m[enter])
        return Priced(int(enter.sum()), float(r[~enter].max(initial=-np.inf)))

    def separate(self, state: DualState) -> Separated:
        return Separated(0, 0, -np.inf, False)  # no part has a row of its own: nothing to cut

    def commit(self, model: Any) -> None:
        self._add(self._new)

    def outside_duals(self) -> dict[str, tuple[NDArray[np.int64], NDArray[np.float64]]]:
        return {}

    def outside_shift(self) -> NDArray[np.float64]:
        return np.zeros(self.lp.num_cols)
