"""Dead arcs: word arcs of the restricted LP that no present triple can carry, kept out of the HiGHS master.

With OneGP (Riedel, Smith & McCallum 2012, §3.2), z[p,c] = Σ_g zgp[g,p,c] for
every word arc p→c. While the restricted LP has no triple ⟨·,p,c⟩, the arc is therefore 0, and so are its
flows (NoFlow: φ[...,p,c] <= capacity·z[p,c]). A cold solve's presolve removes such columns; PPC's warm
re-solves run without presolve, and the simplex would spend degenerate pivots on them. :class:`DeadArcs`
leaves the dead arcs' z and φ columns and their NoFlow rows out of the HiGHS model (inactive in
:class:`lpparse.lp.highs_view.HighsModel`; the program keeps them) and brings an arc in as soon as a triple
⟨·,p,c⟩ enters. Their OneGP rows stay in HiGHS, empty until then: HiGHS's duals on them lead to fewer rounds
than dual 0 (30 English dev sentences of 21-30 tokens: 200 rounds instead of 230).

Measured against keeping every arc in HiGHS, on 30 dev sentences of 21-30 tokens (2 seed heads, trained
models): PPC CPU time English 1.34 s -> 1.06 s (-21%), Hungarian 0.96 s -> 0.83 s (-14%); simplex iterations
-40% and -26%. It also makes a small start pay (:data:`lpparse.colgen.options.SEED_HEADS`).

**Duals.** HiGHS's solution comes back with dual 0 on the inactive rows and d = c - Aᵀy on the inactive
columns, which may be positive. :meth:`DeadArcs.extend` turns these into duals of the restricted LP (whose
bounds are z, φ >= 0), changing only rows whose columns are all dead or absent, so no other reduced cost
moves (lpparse's convention: maximization, d = c - Aᵀy):

1. a flow φ with d_φ > 0: its NoFlow row (<=, y >= 0) gets y + d_φ, so d_φ = 0 and d_z grows by
   capacity·d_φ;
2. then an arc with d_z > 0: its OneGP row (equality, y free; z has coefficient -1) gets y - d_z, so d_z = 0.

Step 2 lowers μ_OneGP(p,c) just enough, which raises the reduced costs s - μ_OneGP(p,c) - ... of the absent
triples ⟨·,p,c⟩ (eq. 8) by as much: pricing then sees the price of bringing the arc to life with its
triple. Both rows are tight (0 = 0), so complementary slackness holds.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from lpparse.families.grandparent.rows import GrandparentProgram
from lpparse.lp.solution import Solution

if TYPE_CHECKING:
    from lpparse.lp.highs_view import HighsModel

__all__ = ["DeadArcs"]


class DeadArcs:
    """The dead arcs of a grandparent program (module docstring). Needs the OneGP family and a flow base
    (``phi`` columns with ``NoFlow`` rows indexed ``(..., h, m)``) or the cycle-cut base (the arcs' z columns
    alone: their NoCycle rows stay); :meth:`applies` says whether a program has them. :meth:`model` builds the
    HiGHS master without them, :meth:`update` brings released arcs in. ``out`` is the (n+1, n+1) mask of the
    arcs left out."""

    def __init__(self, prog: GrandparentProgram) -> None:
        lp = prog.lp
        if not self.applies(prog):
            raise ValueError("dead arcs need the OneGP family and a flow or cycle-cut base formulation")
        self.prog = prog
        size = prog.z_col.shape[0]
        #: row of each candidate arc in the (arcs, commodities) tables below (-1: not a candidate)
        self._arc_row = np.full((size, size), -1, np.int64)
        if lp.flow_capacity is None:  # cycle cuts: no flow, nothing but the arcs' own columns
            arcs = lp.var_blocks["z"].index
            self._arc_row[arcs[:, 0], arcs[:, 1]] = np.arange(len(arcs))
            self._phi = self._noflow = np.empty((len(arcs), 0), np.int64)
            self._capacity = 0.0
        else:
            flows, rows = lp.var_blocks["phi"].index, lp.con_blocks["NoFlow"].index
            if not np.array_equal(flows, rows):
                raise ValueError("NoFlow rows must follow the phi columns")
            order = np.argsort(flows[:, -2] * size + flows[:, -1], kind="stable")
            arcs = flows[order][:, -2:]
            per_arc = lp.commodities
            self._arc_row[arcs[::per_arc, 0], arcs[::per_arc, 1]] = np.arange(len(order) // per_arc)
            self._phi = lp.cols("phi")[order].reshape(-1, per_arc)
            self._noflow = lp.rows("NoFlow")[order].reshape(-1, per_arc)
            self._capacity = lp.flow_capacity
        self._leave_out(self.dead())

    def _leave_out(self, out: NDArray[np.bool_]) -> None:
        """Set :attr:`out` and what :meth:`extend` reads of it: the dead arcs' flow columns and NoFlow rows
        (one line per arc, one entry per commodity), z columns and OneGP rows."""
        self.out = out
        at = self._arc_row[out]
        self._out_phi, self._out_noflow = self._phi[at], self._noflow[at]
        self._out_z, self._out_onegp = self.prog.z_col[out], self.prog.onegp_row[out]

    @staticmethod
    def applies(prog: GrandparentProgram) -> bool:
        lp = prog.lp
        return "OneGP" in prog.families and (lp.flow_capacity is not None or lp.formulation == "cycle-cuts")

    def dead(self) -> NDArray[np.bool_]:
        """(n+1, n+1) mask of the word arcs with a OneGP row and no present triple ⟨·,p,c⟩."""
        return (self.prog.onegp_row >= 0) & ~self.prog.present.any(axis=0)

    def _columns(self, arcs: NDArray[np.bool_]) -> NDArray[np.int64]:
        """z and flow columns of an arc mask."""
        return np.concatenate([self.prog.z_col[arcs], self._phi[self._arc_row[arcs]].ravel()])

    def _rows(self, arcs: NDArray[np.bool_]) -> NDArray[np.int64]:
        """NoFlow rows of an arc mask (the OneGP rows stay in HiGHS: module docstring)."""
        return self._noflow[self._arc_row[arcs]].ravel()

    def inactive(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """(columns, rows) of the dead arcs, to keep out of HiGHS."""
        return self._columns(self.out), self._rows(self.out)

    def model(self, **options: Any) -> HighsModel:
        """The HiGHS master of the program without the dead arcs (``options``: :class:`HighsModel`'s)."""
        cols, rows = self.inactive()
        from lpparse.lp.highs_view import HighsModel  # HiGHS where a master is built: the rows need none

        return HighsModel(self.prog.lp, inactive_cols=cols, inactive_rows=rows, **options)

    def update(self, model: HighsModel) -> None:
        """Bring into ``model`` the arcs that have a triple now (arcs only ever come to life)."""
        back = self.out & ~self.dead()
        if back.any():
            model.activate(self._columns(back), self._rows(back))
            self._leave_out(self.out & ~back)

    def extend(self, sol: Solution) -> Solution:
        """``sol`` with duals that are optimal for the restricted LP itself (module docstring)."""
        if sol.row_dual is None or sol.col_dual is None or not self.out.any():
            return sol
        y, d = sol.row_dual.copy(), sol.col_dual.copy()
        phi, z = self._out_phi, self._out_z
        raise_ = np.maximum(d[phi], 0.0)
        y[self._out_noflow] += raise_
        d[phi] -= raise_
        d[z] += self._capacity * raise_.sum(axis=1)
        lower = np.maximum(d[z], 0.0)
        y[self._out_onegp] -= lower
        d[z] -= lower
        return dataclasses.replace(sol, row_dual=y, col_dual=d)
