"""Cuts linking grand-sibling flows to grandparent triples: ``GSibGP[g, h, m]``.

In every tree, the grand-sibling parts ⟨g, h, m, b⟩ leaving child m in h's head automaton under grandparent g
(:mod:`lpparse.families.third_order.grandsibling`; b is m's next sibling on its side, or h after the last) number
exactly one when g→h→m is in the tree and none otherwise: Σ_b zgsib[g,h,m,b] = zgp[g,h,m]
(:mod:`lpparse.families.grandparent.rows`). The LP of the two families does not say so: the automaton's flow
under g is tied to the arc g→h (GSibStart) and, summed over g, to the windows (GSibSum), but not to the
triple g→h→m, and at fractional points of trained full models the two differ by up to 1/2 (Martins, Almeida
& Smith 2013, "Turning on the Turbo: Fast Third-Order Non-Projective Turbo Parsers", ACL 2013, link the
head automata to the grandparent factor only through the arcs, too).

The cut is the "at most" half over a subset of the parts:

    Σ_{b ∈ B} zgsib[g,h,m,b] - zgp[g,h,m] <= 0,    m ≠ h,

valid for every tree and every subset B of m's next siblings, and so for a row over the parts present when it
enters: a part that enters later has no coefficient in it. The triple must be *known* (a column, or pruned:
scored -inf, in no tree) or g = m (g→h→g is a cycle): an absent triple's row would read Σ zgsib <= 0. Summed
over g (every triple known) the rows give the equality, since both sides then add up to z[h,m]. There are
O(n³) of them, so they are separated; a proof names a row by its label [g, h, m], and a checker rebuilds it
over every candidate part it holds (a larger B, so a row at least as tight).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.families.grandparent.rows import GrandparentProgram
from lpparse.families.third_order.grandsibling import GrandSiblingProgram

__all__ = [
    "LINK_BLOCK",
    "add_grandparent_links",
    "every_grandparent_link",
    "grandparent_link_known",
    "violated_grandparent_links",
]

#: the name of the rows' block
LINK_BLOCK = "GSibGP"


def _known_triples(gp: GrandparentProgram) -> NDArray[np.bool_]:
    """(n+1)³ mask of the triples [g, h, m] whose zgp is a column or 0 in every tree (pruned, or g = m)."""
    known = gp.present | gp.pruned
    size = known.shape[0]
    known[np.arange(size), :, np.arange(size)] = True
    return known


def grandparent_link_known(gp: GrandparentProgram, index: ArrayLike) -> NDArray[np.bool_]:
    """Which labels [g, h, m] name a GSibGP row: in range, h a token, m ≠ h, g ≠ h, the triple known."""
    idx = np.asarray(index, dtype=np.int64).reshape(-1, 3)
    size = gp.present.shape[0]
    ok = (idx >= 0).all(axis=1) & (idx < size).all(axis=1)
    g, h, m = (np.where(ok, idx[:, i], 0) for i in range(3))
    ok &= (h >= 1) & (m != h) & (g != h)
    return ok & _known_triples(gp)[g, h, m]


def _flow_out(prog: GrandSiblingProgram, x: NDArray[np.float64]) -> NDArray[np.float64]:
    """(n+1)³ [g, h, m]: Σ_b zgsib[g,h,m,b] over the present parts with m ≠ h, in the primal vector ``x``."""
    g, h, a, _ = prog.parts()
    size = prog.n + 1
    leave = a != h
    key = (g[leave] * size + h[leave]) * size + a[leave]
    return np.bincount(key, prog.part_values(x)[leave], size**3).reshape((size,) * 3)


def _new(prog: GrandSiblingProgram, index: NDArray[np.int64]) -> NDArray[np.int64]:
    """The labels of ``index`` whose rows the program does not hold yet."""
    block = prog.lp.con_blocks.get(LINK_BLOCK)
    return index[block.find(index) < 0] if block is not None and len(index) else index


def every_grandparent_link(prog: GrandSiblingProgram, gp: GrandparentProgram) -> NDArray[np.int64]:
    """The labels (k, 3) of every GSibGP row over the present parts that the program does not hold yet:
    each (g, h, m) with a part leaving m and a known triple."""
    g, h, a, _ = prog.parts()
    leave = a != h
    index = np.unique(np.column_stack([g[leave], h[leave], a[leave]]), axis=0).astype(np.int64)
    return _new(prog, index[grandparent_link_known(gp, index)])


def violated_grandparent_links(
    prog: GrandSiblingProgram, gp: GrandparentProgram, x: NDArray[np.float64], tol: float
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """The GSibGP rows over the present parts that the primal vector ``x`` violates by more than ``tol`` and
    that the program does not hold yet: labels (k, 3) [g, h, m] and violations (k,)."""
    excess = _flow_out(prog, x)
    g, p, c = gp.triples()
    np.subtract.at(excess, (g, p, c), gp.triple_values(x))
    g, h, m = (v.astype(np.int64) for v in np.nonzero((excess > tol) & _known_triples(gp)))
    index = _new(prog, np.column_stack([g, h, m]))
    return index, excess[tuple(index.T)]


def add_grandparent_links(
    prog: GrandSiblingProgram, gp: GrandparentProgram, index: ArrayLike
) -> NDArray[np.int64]:
    """Append the GSibGP rows of the labels ``index`` ((k, 3): g, h, m) over the grand-sibling parts the
    program holds now; return them. ValueError for a label that names no row (:func:`grandparent_link_known`)."""
    idx = np.asarray(index, dtype=np.int64).reshape(-1, 3)
    if not grandparent_link_known(gp, idx).all():
        raise ValueError("a GSibGP row [g, h, m] needs a token h, m ≠ h, g ≠ h and a triple with a column or pruned")
    size = prog.n + 1
    label_key = (idx[:, 0] * size + idx[:, 1]) * size + idx[:, 2]
    order = np.argsort(label_key, kind="stable")
    sorted_keys = label_key[order]
    g, h, a, _ = prog.parts()
    part_key = (g * size + h) * size + a
    at = np.minimum(np.searchsorted(sorted_keys, part_key), max(idx.shape[0] - 1, 0))
    named = (a != h) & (sorted_keys[at] == part_key) if idx.shape[0] else np.zeros(a.size, bool)
    part_rows = order[at[named]]
    part_cols = prog.lp.cols(prog.block)[named]
    gp_cols = gp.triple_cols(idx[:, 0], idx[:, 1], idx[:, 2])
    has = gp_cols >= 0
    rows = np.concatenate([part_rows, np.flatnonzero(has)])
    cols = np.concatenate([part_cols, gp_cols[has]])
    values = np.concatenate([np.ones(part_rows.size), -np.ones(int(has.sum()))])
    return prog.lp.add_constraints(LINK_BLOCK, idx, rows, cols, values, upper=0.0)
