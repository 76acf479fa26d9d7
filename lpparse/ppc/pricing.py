"""Pricing for parse-price-cut: reduced costs of absent triples, bound filtering, dual tightening.

Riedel, Smith & McCallum 2012 (``001_96d0466e746ddc9d.txt``) §4.3. With the duals of the absent triples'
own ArcGP/GPArc rows set to 0, the reduced cost of an absent zgp[g,p,c] in the full LP is (eq. 8)

    r(g,p,c) = s(g,p,c) - μ_OneGP(p,c) - μ_NoGP(g,p),

where a family that is off has μ = 0 (so for ``martins`` r = s, and for ``all`` without NoGP μ_NoGP = 0).
Pricing never scores a triple whose upper bound (eq. 11)

    r̄(g,p,c) = min(s̄(g,p,·), s̄(·,p,c)) - μ_OneGP(p,c) - μ_NoGP(g,p)

is <= tol: first whole pairs ⟨p,c⟩ are dropped with s̄(·,p,c) - μ_OneGP(p,c) - min(0, min_g μ_NoGP(g,p))
(NoGP is a <= row, so μ_NoGP >= 0 and the last term is 0 up to round-off), then each g (eqs. 9–10).
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from lpparse.formulations.grandparent import GrandparentProgram
from lpparse.triples import TripleScorer

__all__ = ["PriceResult", "ScoreCache", "gp_duals", "price", "tighten_duals"]

Triples = tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]


class ScoreCache:
    """Exact triple scores, each asked from the scorer once (the scorer counts them); times the scoring."""

    def __init__(self, scorer: TripleScorer, size: int) -> None:
        self.scorer = scorer
        self.values = np.full((size, size, size), np.nan)
        self.seconds = 0.0

    def get(self, g: NDArray[np.int64], p: NDArray[np.int64], c: NDArray[np.int64]) -> NDArray[np.float64]:
        """Scores of a batch of triples, scoring only those not seen before."""
        values = self.values[g, p, c]
        new = np.isnan(values)
        if new.any():
            start = time.perf_counter()
            fresh = np.asarray(self.scorer.score(g[new], p[new], c[new]), dtype=np.float64)
            self.seconds += time.perf_counter() - start
            if not np.isfinite(fresh).all():
                raise ValueError("the triple scorer returned NaN or an infinite score")
            values[new] = fresh
            self.values[g[new], p[new], c[new]] = fresh
        return values


def gp_duals(
    prog: GrandparentProgram, row_dual: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(μ_OneGP, μ_NoGP) as dense (n+1, n+1) arrays (0 where the row or its family is absent)."""
    out = []
    for rows in (prog.onegp_row, prog.nogp_row):
        mu = np.zeros(rows.shape)
        on = rows >= 0
        mu[on] = row_dual[rows[on]]
        out.append(mu)
    return out[0], out[1]


def tighten_duals(
    prog: GrandparentProgram,
    x: NDArray[np.float64],
    row_dual: NDArray[np.float64],
    col_dual: NDArray[np.float64],
    zero: float = 1e-12,
) -> tuple[NDArray[np.float64], int]:
    """§4.3.3: for every arc p→c (p > 0) with z[p,c] = 0 and reduced cost d_z < 0, raise μ_OneGP(p,c) by
    -d_z (z[p,c] has coefficient -1 in OneGP, so its reduced cost becomes 0). Dual feasibility and
    complementary slackness of the restricted LP are kept (present zgp[·,p,c] are 0 and only lose reduced
    cost); every absent triple ⟨·,p,c⟩ loses -d_z of reduced cost. Returns (tightened row duals, #raised).
    """
    y = row_dual.copy()
    if "OneGP" not in prog.families:
        return y, 0
    rows = prog.onegp_row
    p, c = np.nonzero(rows >= 0)
    zc = prog.z_col[p, c]
    d = col_dual[zc]
    raise_ = (np.abs(x[zc]) <= zero) & (d < 0)
    y[rows[p[raise_], c[raise_]]] -= d[raise_]
    return y, int(raise_.sum())


@dataclass
class PriceResult:
    """Triples with positive reduced cost (and their scores), and what pricing looked at.

    ``max_bound``: the largest upper bound on the reduced cost of an absent triple that was *not* returned
    (<= tol by construction; reported for the certificate).
    """

    g: NDArray[np.int64]
    p: NDArray[np.int64]
    c: NDArray[np.int64]
    scores: NDArray[np.float64]
    pairs_kept: int
    bounded: int
    max_bound: float


def price(
    prog: GrandparentProgram,
    cache: ScoreCache,
    bound_gp: NDArray[np.float64],
    bound_pc: NDArray[np.float64],
    mu_onegp: NDArray[np.float64],
    mu_nogp: NDArray[np.float64],
    tol: float,
    per_pair: int | None = None,
) -> PriceResult:
    """Absent triples with reduced cost (eq. 8) > tol, scoring only those whose bound (eq. 11) is > tol;
    with ``per_pair``, only the ``per_pair`` of highest reduced cost for each ⟨p,c⟩ (partial pricing: the
    others are priced again next round; nothing is returned only when no reduced cost is > tol)."""
    arc = prog.arc_mask
    size = arc.shape[0]
    words = arc.copy()
    words[0, :] = False
    slack_nogp = np.minimum(mu_nogp, 0.0).min(axis=0)  # min(0, min_g μ_NoGP(g, p)), per p
    pair_bound = bound_pc - mu_onegp - slack_nogp[:, None]
    pair_ok = words & (pair_bound > tol)
    max_bound = float(pair_bound[words & ~pair_ok].max(initial=-np.inf))
    pp, cc = np.nonzero(pair_ok)
    g_all = np.arange(size)[:, None]
    absent = arc[:, pp] & (g_all != cc[None, :]) & ~prog.present[:, pp, cc]
    bound = (
        np.minimum(bound_gp[:, pp], bound_pc[pp, cc][None, :]) - mu_onegp[pp, cc][None, :] - mu_nogp[:, pp]
    )
    cand = absent & (bound > tol)
    max_bound = max(max_bound, float(bound[absent & ~cand].max(initial=-np.inf)))
    gi, ki = np.nonzero(cand)
    g, p, c = gi.astype(np.int64), pp[ki].astype(np.int64), cc[ki].astype(np.int64)
    s = cache.get(g, p, c)
    r = s - mu_onegp[p, c] - mu_nogp[g, p]
    keep = r > tol
    max_bound = max(max_bound, float(r[~keep].max(initial=-np.inf)))
    if per_pair is not None and keep.any():
        idx = np.flatnonzero(keep)
        pair = p[idx] * size + c[idx]
        order = idx[np.lexsort((-r[idx], pair))]
        sorted_pair = p[order] * size + c[order]
        first = np.r_[True, sorted_pair[1:] != sorted_pair[:-1]]
        start = np.maximum.accumulate(np.where(first, np.arange(order.size), 0))
        keep = np.zeros_like(keep)
        keep[order[np.arange(order.size) - start < per_pair]] = True
    return PriceResult(g[keep], p[keep], c[keep], s[keep], int(pp.size), int(g.size), max_bound)
