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
    index: NDArray[np.int64],
    first: NDArray[np.int64],
    second: NDArray[np.int64],
    part: NDArray[np.int64] | None,
) -> NDArray[np.int64]:
    """Append rows ``name[index]``: x[first] + x[second] - x[part] <= 1 (columns aligned; ``part`` None: a
    pruned part, y = 0 without a column, x[first] + x[second] <= 1); return them."""
    k = first.shape[0]
    ones = np.ones(k)
    cols, values = [first, second], [ones, ones]
    if part is not None:
        cols.append(part)
        values.append(-ones)
    return lp.add_constraints(
        name,
        index,
        np.tile(np.arange(k), len(cols)),
        np.concatenate(cols),
        np.concatenate(values),
        upper=1.0,
    )


def add_arc_rows(
    lp: LinearProgram,
    name: str,
    index: NDArray[np.int64],
    arcs: Sequence[NDArray[np.int64]],
    sides: Sequence[int],
    part: NDArray[np.int64],
) -> NDArray[np.int64]:
    """Append rows ``name[(*index, side)]``: x[arcs[i]] - x[part] >= 0 for each ``side = sides[i]``, side
    after side; return them."""
    k, s = part.shape[0], len(sides)
    ones = np.ones(k * s)
    return lp.add_constraints(
        name,
        np.column_stack([np.tile(index, (s, 1)), np.repeat(np.asarray(sides, np.int64), k)]),
        np.tile(np.arange(k * s), 2),
        np.concatenate([*arcs, np.tile(part, s)]),
        np.concatenate([ones, -ones]),
        lower=0.0,
    )
