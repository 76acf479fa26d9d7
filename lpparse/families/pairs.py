"""Rows that linearize a part variable y = x₁ ∧ x₂ over two arc variables, shared by the grandparent and
sibling polytopes: y >= x₁ + x₂ - 1 (ArcGP, ArcSib) and y <= x₁, y <= x₂ (GPArc, SibArc). A pruned part
(score -inf) has y fixed at 0 and no column: its first row alone, x₁ + x₂ <= 1 (PrunedGP, PrunedSib), keeps
its two arcs out of the same tree.

Martins, Smith & Xing 2009, "Concise Integer Linear Programming Formulations for Dependency Parsing",
ACL-IJCNLP 2009 (the linearization of their second-order parts); Riedel, Smith & McCallum 2012
(Riedel, Smith & McCallum 2012) §3.2. On 0/1 points the three rows force y = x₁x₂.

Also here, for the cuts that extend these rows to several parts: :func:`add_present_rows` builds rows over the
parts a program holds (a part without a column has no term), as cuts separated over present parts are.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.lp.program import LinearProgram, Terms

__all__ = ["OnArcs", "add_and_rows", "add_arc_rows", "add_present_rows", "taken"]


class OnArcs:
    """What a part program on an arborescence program's arcs derives from its dense arc map ``z_col[h, m]``
    (column of z[h,m], -1 = no candidate arc): ``n`` and the candidate-arc mask."""

    z_col: NDArray[np.int64]

    @property
    def n(self) -> int:
        return self.z_col.shape[0] - 1

    @property
    def arc_mask(self) -> NDArray[np.bool_]:
        return self.z_col >= 0


def add_and_rows(
    lp: LinearProgram, name: str, index: NDArray[np.int64], first: Terms, second: Terms, part: Terms | None
) -> NDArray[np.int64]:
    """Append rows ``name[t]``: x₁ + x₂ - y <= 1 for the part tuples t of ``index``, with the terms of the
    arcs x₁ (``first``), x₂ (``second``) and of the part y (``part``; None: a pruned part, y = 0 without a
    column, x₁ + x₂ <= 1), one per row; return them."""
    terms = first + second
    return lp.constrain(name, index, terms if part is None else terms - part, upper=1.0)


def add_present_rows(
    lp: LinearProgram,
    name: str,
    index: NDArray[np.int64],
    terms: Sequence[tuple[NDArray[np.int64], float]],
    upper: float,
) -> NDArray[np.int64]:
    """Append rows ``name[index[i]]``: Σ_terms sign · x[cols[i]] <= ``upper``, each term (cols, sign) giving
    one column per row, -1 where the row has none (a part absent from the program); return them."""
    k = np.arange(len(index))
    rows, cols, values = [], [], []
    for found, sign in terms:
        has = found >= 0
        rows.append(k[has])
        cols.append(found[has])
        values.append(np.full(int(has.sum()), sign))
    return lp.add_constraints(
        name, index, np.concatenate(rows), np.concatenate(cols), np.concatenate(values), upper=upper
    )


def held_back(lp: LinearProgram, families: Sequence[str], row_family: str, parts: int) -> int:
    """How many of the ``parts`` columns of a part program lack their ``row_family`` row (0 without that
    family): the rows a program holds back until they are violated."""
    if row_family not in families:
        return 0
    rows = lp.con_blocks.get(row_family)
    return parts - (len(rows) if rows is not None else 0)


def add_held_back_rows(
    lp: LinearProgram,
    families: Sequence[str],
    row_family: str,
    block: str,
    present: NDArray[np.bool_],
    has_row: NDArray[np.bool_],
    parts: Sequence[ArrayLike],
    add: Callable[[NDArray[np.int64], Terms], None],
) -> None:
    """Add, by ``add(index, columns)``, the held-back ``row_family`` rows of the parts ``parts`` (three index
    arrays) of column block ``block``, which must have a column (``present``) and no row yet (``has_row``);
    a no-op without that family."""
    if row_family not in families:
        return
    a, b, c = (np.asarray(x, dtype=np.int64).ravel() for x in parts)
    if a.size == 0:
        return
    if not present[a, b, c].all() or has_row[a, b, c].any():
        raise ValueError(f"{row_family} rows are added once, for parts with a column")
    index = np.column_stack([a, b, c])
    add(index, lp.var(block, index))


def add_arc_rows(
    lp: LinearProgram,
    name: str,
    index: NDArray[np.int64],
    arcs: Sequence[Terms],
    sides: Sequence[int],
    part: Terms,
) -> NDArray[np.int64]:
    """Append rows ``name[(*t, side)]``: x[arcs[i]] - y >= 0 for the part tuples t of ``index`` (``part``:
    the terms of y, one per tuple) and each ``side = sides[i]``, side after side; return them."""
    rows = np.column_stack(
        [np.tile(index, (len(sides), 1)), np.repeat(np.asarray(sides, np.int64), len(index))]
    )
    return lp.constrain(name, rows, Terms.stack(*arcs) - Terms.stack(*[part] * len(sides)), lower=0.0)


def taken(
    parts: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]], *masks: NDArray[np.bool_]
) -> bool:
    """Whether a part tuple of the index arrays ``parts`` is set in one of the (n+1)^3 ``masks`` (it has a
    column or a pruned row already) or occurs twice in ``parts`` (one mark per tuple: no sort)."""
    for mask in masks:
        if mask[parts].any():
            return True
    seen = np.zeros(masks[0].shape, bool)
    seen[parts] = True
    return int(np.count_nonzero(seen)) < parts[0].size
