"""Separation for parse-price-cut: ArcGP rows of absent triples violated by the current arcs.

Riedel, Smith & McCallum 2012 (``001_96d0466e746ddc9d.txt``) §4.4: an absent triple has zgp = 0, so its
ArcGP row reads z[g,p] + z[p,c] <= 1. Only arcs with z > 0 can violate it; for each active g→p the active
p→c are checked at once, and every violated triple is returned so its column (with its rows) enters at
once instead of the cut.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from lpparse.formulations.grandparent import GrandparentProgram

__all__ = ["CutResult", "separate_arcgp"]


@dataclass
class CutResult:
    """Absent triples whose ArcGP row is violated by more than tol, and the largest violation among the
    absent triples *not* returned (<= tol; reported for the certificate)."""

    g: NDArray[np.int64]
    p: NDArray[np.int64]
    c: NDArray[np.int64]
    max_violation: float


def separate_arcgp(prog: GrandparentProgram, zm: NDArray[np.float64], tol: float) -> CutResult:
    """ArcGP violations z[g,p] + z[p,c] - 1 > tol over the absent triples (arc values ``zm``)."""
    empty = np.empty(0, np.int64)
    if "ArcGP" not in prog.families:
        return CutResult(empty, empty, empty, -np.inf)
    active = zm > tol
    active[:, 0] = False
    gg, pp = np.nonzero(active)
    size = zm.shape[0]
    excess = zm[gg, pp][:, None] + zm[pp, :] - 1.0
    absent = active[pp, :] & (np.arange(size)[None, :] != gg[:, None]) & ~prog.present[gg, pp, :]
    violated = absent & (excess > tol)
    max_violation = float(excess[absent & ~violated].max(initial=-np.inf))
    k, c = np.nonzero(violated)
    return CutResult(gg[k].astype(np.int64), pp[k].astype(np.int64), c.astype(np.int64), max_violation)
