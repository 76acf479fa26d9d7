"""Cuts on an arc and a third token's head: ``GPSibArc[h, m, c]``.

Given an arc h→m of a tree, a third token c relates to it in at most one of three ways: c's head is m (the
grandparent triple ⟨h, m, c⟩), c's head is h (the sibling part ⟨h, {m, c}⟩), or c is h's head (the triple
⟨c, h, m⟩); c has one head, and c→h with h→c or m→c would close a cycle. Each of the three parts needs the
arc, so in every tree

    zgp[h,m,c] + zsib[h, min(m,c), max(m,c)] + zgp[c,h,m] <= z[h,m],

with distinct h, m, c (m, c tokens). The grandparent + sibling LP (Martins, Smith & Xing 2009, "Concise
Integer Linear Programming Formulations for Dependency Parsing", ACL-IJCNLP 2009; Riedel, Smith & McCallum
2012, "Parse, Price and Cut", EMNLP-CoNLL 2012) bounds each part by the arc alone: at a fractional root of the
Danish grandparent + sibling model (#471), z[2,8] = 1/2 carries both the triple ⟨2, 8, 6⟩ and the sibling part
⟨2, {6, 8}⟩ at 1/2. Added at the 17 dev roots that branch under the triangle and chain cuts, the rows close 5.
Exact decoding separates them with the triangle cuts (:meth:`lpparse.families.sibling.family.SiblingParts.for_exact`):
grandparent + sibling models over pruned arcs, Danish dev: 11 sentences branch instead of 17, 611 nodes in
all instead of 625, the same CPU time; Hungarian dev: 595 nodes instead of 635, 0.94x the CPU time. The LP
decoders leave them out: with zero sibling scores they would tighten the grandparent LP itself
(zgp[h,m,c] + zgp[c,h,m] <= z[h,m]).

Every term on the left has coefficient +1, so a row over the parts present when it enters is valid and a part
that enters later has no coefficient in it (pricing does not see the rows). A proof names a row by its label
[h, m, c]; a checker rebuilds it over every candidate part, a row at least as tight.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.families.grandparent.rows import GrandparentProgram
from lpparse.families.pairs import add_present_rows
from lpparse.families.sibling.rows import SiblingProgram

__all__ = ["ARC_HEADS_BLOCK", "add_arc_heads", "arc_heads_known", "violated_arc_heads"]

#: the name of the rows' block
ARC_HEADS_BLOCK = "GPSibArc"


def arc_heads_known(gp: GrandparentProgram, index: ArrayLike) -> NDArray[np.bool_]:
    """Which labels [h, m, c] name a GPSibArc row: in range, distinct, m and c tokens, h→m a candidate arc."""
    idx = np.asarray(index, dtype=np.int64).reshape(-1, 3)
    size = gp.arc_mask.shape[0]
    ok = (idx >= 0).all(axis=1) & (idx < size).all(axis=1)
    h, m, c = (np.where(ok, idx[:, i], 0) for i in range(3))
    ok &= (m >= 1) & (c >= 1) & (h != m) & (h != c) & (m != c)
    return ok & gp.arc_mask[h, m]


def violated_arc_heads(
    gp: GrandparentProgram, sibs: SiblingProgram, x: NDArray[np.float64], tol: float
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """The GPSibArc rows over the present parts that the primal vector ``x`` violates by more than ``tol`` and
    that the program does not hold yet: labels (k, 3) [h, m, c] and violations (k,), over dense (n+1)³
    arrays of the part values."""
    size = gp.arc_mask.shape[0]
    excess = np.zeros((size,) * 3)
    g, p, c = gp.triples()
    values = gp.triple_values(x)
    excess[g, p, c] += values  # ⟨h, m, c⟩: c's head is m
    excess[p, c, g] += values  # ⟨c, h, m⟩ read at [h, m, c]: c is h's head
    h, a, b = sibs.siblings()
    values = sibs.sibling_values(x)
    excess[h, a, b] += values  # ⟨h, {m, c}⟩ at both orders
    excess[h, b, a] += values
    excess -= gp.arc_values(x)[:, :, None]
    h, m, c = (v.astype(np.int64) for v in np.nonzero(excess > tol))
    index = np.column_stack([h, m, c])
    index = index[arc_heads_known(gp, index)]
    block = gp.lp.con_blocks.get(ARC_HEADS_BLOCK)
    if block is not None and len(index):
        index = index[block.find(index) < 0]
    return index, excess[tuple(index.T)]


def add_arc_heads(gp: GrandparentProgram, sibs: SiblingProgram, index: ArrayLike) -> NDArray[np.int64]:
    """Append the GPSibArc rows of the labels ``index`` ((k, 3): h, m, c) over the parts the program holds
    now; return them. ValueError for a label that names no row (:func:`arc_heads_known`)."""
    idx = np.asarray(index, dtype=np.int64).reshape(-1, 3)
    if not arc_heads_known(gp, idx).all():
        raise ValueError(
            "a GPSibArc row [h, m, c] needs distinct h, m, c (m, c tokens) and a candidate arc h→m"
        )
    h, m, c = idx.T
    lo, hi = np.minimum(m, c), np.maximum(m, c)
    sibling = sibs.sibling_cols(h, lo, hi) if "zsib" in sibs.lp.var_blocks else np.full(len(idx), -1)
    terms = [
        (gp.triple_cols(h, m, c), 1.0),
        (gp.triple_cols(c, h, m), 1.0),
        (sibling, 1.0),
        (gp.z_col[h, m], -1.0),
    ]
    return add_present_rows(gp.lp, ARC_HEADS_BLOCK, idx, terms, 0.0)
