"""Separation for parse-price-cut: ArcGP rows violated by the current solution.

Riedel, Smith & McCallum (2012) §4.4: an absent triple has zgp = 0, so its
ArcGP row reads z[g,p] + z[p,c] <= 1. Only arcs with z > 0 can violate it; for each active g→p the active
p→c are checked at once, and every violated triple is returned so its column (with its rows) enters at
once instead of the cut. With lazy rows (``parse_price_cut(..., lazy_arcgp=True)``), present triples whose
ArcGP row z[g,p] + z[p,c] - zgp[g,p,c] <= 1 was held back are checked too, and the violated rows enter.

A triple scored -inf has the same row, PrunedGP, under every preset (:mod:`lpparse.families.grandparent.rows`),
so absent triples are checked without the ArcGP family too: the caller scores the violated ones and keeps
those scored -inf, whose rows enter (without a column).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from lpparse.families.grandparent.rows import GrandparentProgram

__all__ = ["CutResult", "separate_arcgp"]

Triples = tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]
_NONE: Triples = (np.empty(0, np.int64),) * 3  # type: ignore[assignment]


@dataclass
class CutResult:
    """Absent triples whose ArcGP row is violated by more than tol (``g, p, c``: their columns enter), present
    triples whose held-back ArcGP row is (``rows``: the rows enter), and the largest violation among the
    rows *not* returned (<= tol; reported for the certificate)."""

    g: NDArray[np.int64]
    p: NDArray[np.int64]
    c: NDArray[np.int64]
    max_violation: float
    rows: Triples = _NONE


def separate_arcgp(
    prog: GrandparentProgram, zm: NDArray[np.float64], tol: float, x: NDArray[np.float64] | None = None
) -> CutResult:
    """ArcGP violations z[g,p] + z[p,c] - zgp - 1 > tol (arc values ``zm``): over the absent triples
    (zgp = 0, neither a column nor a PrunedGP row; with or without the ArcGP family: module docstring), and,
    given the primal vector ``x``, over the present triples without their ArcGP row."""
    active = zm > tol
    active[:, 0] = False
    gg, pp = np.nonzero(active)
    size = zm.shape[0]
    excess = zm[gg, pp][:, None] + zm[pp, :] - 1.0
    absent = active[pp, :] & (np.arange(size)[None, :] != gg[:, None])
    absent &= ~prog.present[gg, pp, :] & ~prog.pruned[gg, pp, :]
    violated = absent & (excess > tol)
    max_violation = float(excess[absent & ~violated].max(initial=-np.inf))
    k, c = np.nonzero(violated)
    result = CutResult(gg[k].astype(np.int64), pp[k].astype(np.int64), c.astype(np.int64), max_violation)
    if prog.held_back_arcgp:  # only with lazy rows: skip the look-up otherwise
        if x is None:
            raise ValueError("present triples without their ArcGP row: pass the primal vector x")
        k, c = np.nonzero(active[pp, :] & prog.present[gg, pp, :] & ~prog.arcgp[gg, pp, :])
        g, p = gg[k], pp[k]
        row_excess = excess[k, c] - x[prog.triple_cols(g, p, c)]
        cut = row_excess > tol
        result.rows = (g[cut].astype(np.int64), p[cut].astype(np.int64), c[cut].astype(np.int64))
        result.max_violation = max(max_violation, float(row_excess[~cut].max(initial=-np.inf)))
    return result
