"""The certificate of a column-and-row generation run: the restricted solution extended by zeros to the
full LP.

Riedel, Smith & McCallum (2012) §4.1: a restricted solution (x_I, y_J) that is
optimal for the restricted LP extends to the full LP by setting every absent primal and dual variable to 0
(or, for absent rows that dual tightening gave a dual, to that dual); if the extension is primal feasible (no
violated row of an absent part: §4.4) and dual feasible (no absent part with positive reduced cost: eq. 8),
it is optimal for the full LP.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from numpy.typing import NDArray

from lpparse.lp.program import LinearProgram
from lpparse.lp.solution import TOL, Certificate, certify_lp, dual_bound

__all__ = ["bound_certificate", "ppc_certificate"]


def ppc_certificate(
    restricted: LinearProgram,
    x: NDArray[np.float64],
    row_dual: NDArray[np.float64],
    max_reduced_cost: float,
    max_arcgp_violation: float,
    tol: float = TOL,
    outside: NDArray[np.float64] | None = None,
) -> Certificate:
    """Certificate (kind ``"ppc"``) of the extension by zeros of a restricted solution to the full LP.

    Primal infeasibility also counts the absent parts' rows (ArcGP, ArcSib, and PrunedGP, PrunedSib of pruned
    parts, which have no column: rhs 1), dual infeasibility the absent parts' reduced costs (bounded by eq. 11
    or exact, after tightening); the objectives are those of the restricted LP, which the extension by zeros
    leaves unchanged. ``outside``: Aᵀy, on the restricted columns, of the absent rows given nonzero duals
    (tight GPArc/SibArc rows of absent parts; :func:`lpparse.lp.certify_lp`).
    """
    base = certify_lp(restricted, x, row_dual, tol, outside)
    scale = 1.0 + float(np.abs(restricted.cost).max(initial=0.0))
    return dataclasses.replace(
        base,
        kind="ppc",
        primal_infeasibility=max(base.primal_infeasibility, max(max_arcgp_violation, 0.0) / 2.0),
        dual_infeasibility=max(base.dual_infeasibility, max(max_reduced_cost, 0.0) / scale),
    )


def bound_certificate(
    restricted: LinearProgram,
    row_dual: NDArray[np.float64],
    max_reduced_cost: float,
    tol: float = TOL,
    outside: NDArray[np.float64] | None = None,
) -> Certificate:
    """Certificate (kind ``"ppc-bound"``) of the bound that the duals of a run stopped at its cutoff prove on
    the full LP: dual feasibility over the restricted columns (recomputed) and the absent parts (their largest
    reduced cost), and the dual objective. No primal is claimed (the run's last master solution need not be
    feasible: :meth:`lpparse.lp.highs_view.HighsModel.set_cutoff`): its primal fields are the dual objective
    and 0."""
    dual, infeasibility = dual_bound(restricted, row_dual, outside)
    scale = 1.0 + float(np.abs(restricted.cost).max(initial=0.0))
    return Certificate(
        kind="ppc-bound",
        primal_infeasibility=0.0,
        dual_infeasibility=max(infeasibility, max(max_reduced_cost, 0.0) / scale),
        primal_objective=dual,
        dual_objective=dual,
        gap=0.0,
        tol=tol,
    )
