"""Semirings in log space for the dynamic programs of lpparse, each with the derivative of its sum.

Every semiring here works on log values, so ⊗ is ``+`` and ``one`` is 0; they differ in ⊕. A value array
carries a leading axis of length :attr:`Semiring.width`: 1 for ``MAX`` and ``LOG``; 2 for ``DUAL_LOG``,
whose second row is the tangent of the first (a dual number, so ⊗ still adds row by row).

``reduce(x)`` sums the last axis and returns the derivative of the sum with respect to each term
(its *local weights*): one-hot on the first best term under ``MAX`` (back-pointers), the softmax under
``LOG`` (the outside shares of inside-outside). A DP's backward pass multiplies these weights into the
adjoints of its items with :meth:`Semiring.mul` (Eisner, Goldlust & Smith 2005, "Compiling comp ling:
weighted dynamic programming and the Dyna language", HLT-EMNLP: the outside pass is back-propagation).
Under ``DUAL_LOG`` the values, weights and adjoints are all dual numbers, so the backward pass also
carries their tangents: forward-over-reverse differentiation, which gives the Hessian-vector product
∇² log Z · v of the log partition function. It is the log-space form of the first- and second-order
expectation semirings of Li & Eisner (2009), "First- and second-order expectation semirings with
applications to minimum-risk training on translation forests", EMNLP.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

__all__ = ["DUAL_LOG", "LOG", "MAX", "SEMIRINGS", "Semiring"]

Array = NDArray[np.float64]


@dataclass(frozen=True)
class Semiring:
    """⊕ with its local derivative; ⊗ is ``+`` (all semirings are in log space)."""

    name: str
    width: int  #: length of the leading axis of a value array (2 for dual numbers)

    def zeros(self, shape: tuple[int, ...]) -> Array:
        """Semiring zero (log 0 = -inf; tangent 0) everywhere, leading axis included."""
        out = np.zeros((self.width, *shape))
        out[0] = -np.inf
        return out

    def unit(self) -> Array:
        """The adjoint of the goal with respect to itself: 1 (tangent 0)."""
        out = np.zeros(self.width)
        out[0] = 1.0
        return out

    def reduce(self, x: Array) -> tuple[Array, Array]:
        """⊕ over the last axis of ``x`` (leading axis: :attr:`width`) and the local weights d sum / d x."""
        return self._sum(x, _ROWS)

    def segment_reduce(self, x: Array, starts: NDArray[np.int64]) -> tuple[Array, Array]:
        """⊕ over the segments ``x[..., starts[i]:starts[i+1]]`` (the last one runs to the end) and the local
        weights."""
        return self._sum(x, _Segments(starts, x.shape[-1]))

    def _sum(self, x: Array, groups: _Rows | _Segments) -> tuple[Array, Array]:
        best = groups.fold(np.maximum, x[0])
        if self.name == "max":
            position = np.arange(x.shape[-1])
            first = groups.fold(np.minimum, np.where(x[0] == groups.spread(best), position, x.shape[-1]))
            weights = np.zeros_like(x)
            weights[0] = position == groups.spread(first)
            return best[None], weights
        # Shifted by the group's best term, a group with a finite term sums to at least exp(0) = 1 and a group
        # of -inf terms to 0 (shifted by the lowest float: -inf stays -inf); clipping the sum at 1 then gives
        # log Z = log(sum) + best in both cases (-inf for the empty group), and softmax weights 0 there.
        weights = np.empty_like(x)
        g = np.subtract(x[0], groups.spread(np.maximum(best, _LOWEST)), out=weights[0])
        np.exp(g, out=g)
        total = np.maximum(groups.fold(np.add, g), 1.0)
        out = np.log(total)
        out += best
        g /= groups.spread(total)
        if self.width == 1:
            return out[None], weights
        value = np.empty((2, *out.shape))
        value[0] = out
        dx = np.where(g > 0, x[1], 0.0)
        value[1] = groups.fold(np.add, g * dx)
        dx -= groups.spread(value[1])
        np.multiply(g, dx, out=weights[1])
        return value, weights

    def mul(self, a: Array, b: Array) -> Array:
        """Product of adjoints ``a`` and local weights ``b`` (the product rule for dual numbers), written into
        ``b``."""
        if self.width == 2:
            b[1] *= a[0]
            b[1] += a[1] * b[0]
        b[0] *= a[0]
        return b


class _Rows:
    """Groups = the rows of the last axis."""

    def fold(self, op: np.ufunc, a: Array) -> Array:
        return op.reduce(a, axis=-1)

    def spread(self, r: Array) -> Array:
        return r[..., None]


@dataclass(frozen=True)
class _Segments:
    """Groups = consecutive segments of the last axis starting at ``starts``."""

    starts: NDArray[np.int64]
    size: int

    def fold(self, op: np.ufunc, a: Array) -> Array:
        return op.reduceat(a, self.starts, axis=-1)

    def spread(self, r: Array) -> Array:
        return np.repeat(r, np.diff(np.append(self.starts, self.size)), axis=-1)


_ROWS = _Rows()
_LOWEST = np.finfo(np.float64).min
MAX = Semiring("max", 1)  #: Viterbi: max-plus, first best term on ties
LOG = Semiring("log", 1)  #: inside: log-sum-exp
DUAL_LOG = Semiring("dual-log", 2)  #: log-sum-exp on dual numbers (value, tangent)
SEMIRINGS = {s.name: s for s in (MAX, LOG, DUAL_LOG)}
