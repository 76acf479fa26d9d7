"""Certificates for parse-price-cut.

Riedel, Smith & McCallum (2012) §4.1: a restricted solution (x_I, y_J) that is
optimal for the restricted LP extends to the full LP by setting every absent primal and dual variable to 0;
if the extension is primal feasible (no violated ArcGP row: §4.4) and dual feasible (no absent triple with
positive reduced cost: eq. 8), complementary slackness holds trivially and it is optimal for the full LP.

* :func:`ppc_certificate` (the engine's, :mod:`lpparse.colgen.certificate`): what a normal run can certify
  without scoring every part: lpparse's check of the restricted LP with the (tightened) duals, combined with
  the largest reduced-cost bound and the largest violation over the absent parts that pricing and
  separation saw.
* :func:`extend_solution` and :func:`certify_full`: what the tests do: map (x, y) onto the full program by
  block names and index tuples and check every constraint and every reduced cost with
  :func:`lpparse.lp.certify_lp`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from lpparse.colgen.certificate import ppc_certificate
from lpparse.colgen.family import OutsideDuals
from lpparse.lp.program import Block, LinearProgram
from lpparse.lp.solution import TOL, Certificate, certify_lp

__all__ = ["certify_full", "extend_solution", "ppc_certificate"]


def _positions(full: Block, part: Block, what: str, missing_ok: bool = False) -> NDArray[np.int64]:
    """Positions in ``full`` of the index tuples of ``part`` (KeyError if one is missing; with
    ``missing_ok``, -1)."""
    if part.arity != full.arity:
        raise ValueError(
            f"block {part.name!r} has arity {part.arity} here and {full.arity} in the full program"
        )
    if len(part) == 0:
        return np.empty(0, np.int64)
    fi, pi = full.index, part.index
    hi = int(max(fi.max(initial=0), pi.max(initial=0))) + 2
    fk = np.ravel_multi_index(tuple((fi + 1).T), (hi,) * full.arity)
    pk = np.ravel_multi_index(tuple((pi + 1).T), (hi,) * full.arity)
    order = np.argsort(fk)
    at = np.searchsorted(fk, pk, sorter=order)
    at = np.minimum(at, fk.size - 1)
    found = fk[order[at]] == pk
    if missing_ok:
        return np.where(found, full.positions[order[at]], -1)
    if not found.all():
        missing = tuple(pi[np.flatnonzero(~found)[0]].tolist())
        raise KeyError(f"{what} {part.name}{missing} of the restricted program is not in the full program")
    return full.positions[order[at]]


def extend_solution(
    full: LinearProgram,
    part: LinearProgram,
    x: NDArray[np.float64],
    row_dual: NDArray[np.float64],
    outside: OutsideDuals | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(x, y) of ``part`` (a restriction of ``full`` to some columns and rows) extended to ``full`` by
    zeros, matched by block name and index tuple; ``outside`` sets the duals of some rows absent from
    ``part`` (e.g. :meth:`lpparse.ppc.PPCResult.outside_duals`). An outside row that ``full`` lacks is
    dropped: dual tightening may give a dual to the GPArc/SibArc row of an absent part that it never scored,
    and a part scored -inf has no column and no such row in the full program (only its PrunedGP/PrunedSib
    row). Dropping a dual -λ of a row z[h,m] - part >= 0 only lowers the reduced cost of z[h,m], which
    tightening spent from that arc's slack; either way :func:`certify_full` checks the (x, y) it gets."""
    xf = np.zeros(full.num_cols)
    yf = np.zeros(full.num_rows)
    for name, block in part.var_blocks.items():
        xf[_positions(full.var_blocks[name], block, "column")] = x[block.positions]
    for name, block in part.con_blocks.items():
        yf[_positions(full.con_blocks[name], block, "row")] = row_dual[block.positions]
    for name, (index, values) in (outside or {}).items():
        index = np.asarray(index, np.int64)
        if name not in full.con_blocks:
            continue
        rows = Block(name, "con", index.shape[1], _index=[index], _pos=[np.arange(len(values))])
        at = _positions(full.con_blocks[name], rows, "row", missing_ok=True)
        yf[at[at >= 0]] = np.asarray(values)[at >= 0]
    return xf, yf


def certify_full(
    full: LinearProgram,
    part: LinearProgram,
    x: NDArray[np.float64],
    row_dual: NDArray[np.float64],
    tol: float = TOL,
    outside: OutsideDuals | None = None,
) -> Certificate:
    """lpparse's LP certificate of the extension of (x, y) on the full program (zeros, except ``outside``)."""
    xf, yf = extend_solution(full, part, x, row_dual, outside)
    return certify_lp(full, xf, yf, tol)
