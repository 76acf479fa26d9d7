"""Rows that linearize a part variable y = x₁ ∧ x₂ over two arc variables, shared by the grandparent and
sibling polytopes: y >= x₁ + x₂ - 1 (ArcGP, ArcSib) and y <= x₁, y <= x₂ (GPArc, SibArc). A pruned part
(score -inf) has y fixed at 0 and no column: its first row alone, x₁ + x₂ <= 1 (PrunedGP, PrunedSib), keeps
its two arcs out of the same tree.

Martins, Smith & Xing 2009, "Concise Integer Linear Programming Formulations for Dependency Parsing",
ACL-IJCNLP 2009 (the linearization of their second-order parts); Riedel, Smith & McCallum 2012
(Riedel, Smith & McCallum 2012) §3.2. On 0/1 points the three rows force y = x₁x₂.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from lpparse.lp.program import LinearProgram

__all__ = ["add_and_rows", "add_arc_rows"]


def add_and_rows(
    lp: LinearProgram,
    name: str,
    part: str | None,
    index: NDArray[np.int64],
    first: NDArray[np.int64],
    second: NDArray[np.int64],
) -> NDArray[np.int64]:
    """Append rows ``name[t]``: z[first] + z[second] - part[t] <= 1 for the part tuples t of ``index`` and
    their arcs ``first``, ``second`` ((k, 2) each; ``part`` None: a pruned part, y = 0 without a column,
    z[first] + z[second] <= 1); return them."""
    terms = lp.var("z", first) + lp.var("z", second)
    return lp.constrain(name, index, terms if part is None else terms - lp.var(part, index), upper=1.0)


def add_arc_rows(
    lp: LinearProgram,
    name: str,
    part: str,
    index: NDArray[np.int64],
    arcs: Sequence[NDArray[np.int64]],
    sides: Sequence[int],
) -> NDArray[np.int64]:
    """Append rows ``name[(*t, side)]``: z[arcs[i]] - part[t] >= 0 for the part tuples t of ``index``, for
    each ``side = sides[i]``, side after side; return them."""
    s = len(sides)
    parts = np.tile(index, (s, 1))
    rows = np.column_stack([parts, np.repeat(np.asarray(sides, np.int64), index.shape[0])])
    return lp.constrain(name, rows, lp.var("z", np.concatenate(arcs)) - lp.var(part, parts), lower=0.0)
