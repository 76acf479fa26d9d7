"""Pseudo-cost branching for the exact search on arcs (:mod:`lpparse.exact.search`).

Branching on an arc h→m with LP value f makes two children: "up" keeps h as m's only head (z[h,m] = 1),
"down" drops the arc (z[h,m] = 0). The most fractional arc is, in integer programming, about as good a
choice as a random one (Achterberg, Koch & Martin 2005, "Branching rules revisited", Operations Research
Letters 33(1), §2); *pseudo-cost branching* (Bénichou, Gauthier, Girodet, Hentges, Ribière & Vincent 1971,
"Experiments in mixed-integer linear programming", Mathematical Programming 1(1)) learns, per arc and
direction, how much the bound fell per unit of change in that arc's value,

    ψ⁺[h,m] = mean over up branchings of (UB_parent - UB_child) / (1 - f),
    ψ⁻[h,m] = mean over down branchings of (UB_parent - UB_child) / f,

and branches on the fractional arc of largest product score max(ψ⁻f, μ)·max(ψ⁺(1 - f), μ) (Achterberg
et al. 2005, eq. 2, with μ = 10⁻⁶). An arc never branched on in a direction takes the mean ψ of the arcs
that were (1 before any), and ties go to the higher arc score. The rule changes which trees each node
holds, never what the proof checks (:func:`lpparse.proofs.check.check_proof`: the children of every
branched node partition its trees).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["PseudoCosts"]

#: the floor of each direction's estimate in the product score (Achterberg, Koch & Martin 2005, eq. 2)
_MU = 1e-6
#: arcs this close to 0 or 1 are integral
_FRACTIONAL = 1e-6


class PseudoCosts:
    """Per-arc, per-direction bound degradation per unit change, learned over one search (module
    docstring) for a sentence of ``size`` = n + 1 nodes."""

    def __init__(self, size: int) -> None:
        shape = (2, size, size)  # [down, up]
        self.total = np.zeros(shape)
        self.count = np.zeros(shape, np.int64)

    def record(self, h: int, m: int, value: float, up: bool, parent_bound: float, child_bound: float) -> None:
        """Learn from a solved child of a branching on h→m at LP value ``value``."""
        change = 1.0 - value if up else value
        if change <= _FRACTIONAL or not np.isfinite(child_bound) or not np.isfinite(parent_bound):
            return
        self.total[int(up), h, m] += max(parent_bound - child_bound, 0.0) / change
        self.count[int(up), h, m] += 1

    def _psi(self) -> NDArray[np.float64]:
        """ψ per direction and arc, the direction's mean where the arc has no record yet."""
        seen = self.count > 0
        psi = np.divide(self.total, self.count, out=np.zeros_like(self.total), where=seen)
        for d in range(2):
            mean = psi[d][seen[d]].mean() if seen[d].any() else 1.0
            psi[d][~seen[d]] = mean
        return psi

    def ranked(self, z: NDArray[np.float64], candidates: NDArray[np.bool_]) -> list[tuple[int, int]]:
        """The fractional arcs among ``candidates``, best product score first."""
        product = self._product(z, candidates)
        h, m = np.nonzero(product > -1.0)
        order = np.argsort(-product[h, m], kind="stable")
        return [(int(h[i]), int(m[i])) for i in order]

    def _product(self, z: NDArray[np.float64], candidates: NDArray[np.bool_]) -> NDArray[np.float64]:
        """The product score of each fractional candidate arc, -1 elsewhere."""
        fractional = candidates & (z > _FRACTIONAL) & (z < 1.0 - _FRACTIONAL)
        psi = self._psi()
        product = np.maximum(psi[0] * z, _MU) * np.maximum(psi[1] * (1.0 - z), _MU)
        return np.where(fractional, product, -1.0)

    def choose(
        self, z: NDArray[np.float64], candidates: NDArray[np.bool_], scores: NDArray[np.float64]
    ) -> tuple[int, int] | None:
        """The fractional arc (h, m) among ``candidates`` (LP values ``z``) of best product score, ties to
        the higher arc score; None when no candidate is fractional."""
        product = self._product(z, candidates)
        if product.max(initial=-1.0) < 0.0:
            return None
        h, m = np.nonzero(product >= product.max() * (1.0 - 1e-9))
        i = int(np.argmax(scores[h, m]))
        return int(h[i]), int(m[i])
