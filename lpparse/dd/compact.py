"""The compact LP behind a dual decomposition (Rush & Collins 2012 §9.5 eq. 37; Rush et al. 2010 §5.2 eq. 10,
§6.1), built from the same components: every component's polytope (prefix ``<name>_``) plus the agreement rows
``Agree``.

    max Σ_k θ_k · y_k   s.t.  y_k = M_k x_k,  x_k ∈ P_k (conv(Y_k)),   Σ_k A_k y_k = b.

"Debugging dual decomposition with a generic LP solver" (Rush & Collins 2012 §9.6): its value equals min_u
L(u) (Rush et al. 2010 §6.1; Rush & Collins 2012 Thm 7–8), an optimal u is read off the ``Agree`` duals, and
DD can certify only when it is tight. With HiGHS duals (c − Aᵀy = reduced costs, :mod:`lpparse.lp`), the
Lagrangian c·x − y·(Ax − b) gives u* = −y on the ``Agree`` rows in the sign of :mod:`lpparse.dd.core`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray

from lpparse.dd.core import Agreement, Problem
from lpparse.lp import LinearProgram, Solution

__all__ = ["CompactLP", "compact_lp"]


@dataclass
class CompactLP:
    lp: LinearProgram
    part_matrices: list[sp.csr_matrix]  #: M_k (num_parts_k, lp.num_cols)
    agreement: Agreement

    def parts(self, x: NDArray[np.float64]) -> list[NDArray[np.float64]]:
        """Every component's part vector y_k = M_k x."""
        return [m @ x for m in self.part_matrices]

    def multipliers(self, solution: Solution) -> NDArray[np.float64]:
        """u* from the duals of the ``Agree`` rows (module docstring)."""
        return -solution.row_dual[self.lp.rows("Agree")]


def compact_lp(problem: Problem, agreement: Agreement | None = None, name: str | None = None) -> CompactLP:
    """The compact LP of ``problem`` with its agreement rows (or ``agreement``, e.g. a tightened set)."""
    ag = agreement if agreement is not None else problem.agreement
    lp = LinearProgram(name or problem.name)
    mats = [comp.polytope(lp, f"{comp.name}_") for comp in problem.components]
    mats = [sp.csr_matrix((m.data, m.indices, m.indptr), shape=(m.shape[0], lp.num_cols)) for m in mats]
    coo = sum((a @ m for a, m in zip(ag.A, mats)), sp.csr_matrix((ag.num_rows, lp.num_cols))).tocoo()
    lp.add_constraints("Agree", ag.label, coo.row, coo.col, coo.data, ag.b, ag.b)
    return CompactLP(lp, mats, ag)
