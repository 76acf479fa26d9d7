"""Chain cuts on grandparent triples: ``GPChain[g, p, q, c]`` and ``GPSibChain[g, h, p, q, c]``.

A token c has one head. The grandparent LP (Riedel, Smith & McCallum 2012, "Parse, Price and Cut—Delayed
Column and Row Generation for Graph Based Parsers", EMNLP-CoNLL 2012, §3; Martins, Smith & Xing 2009,
"Concise Integer Linear Programming Formulations for Dependency Parsing", ACL-IJCNLP 2009) knows it of the
arcs, but not of two triples into c whose own arcs meet in one tree. Two families of rows say it, each valid
for every tree:

* **GPChain** (a chain g→p→q; c's head p under g, or q under p), distinct g, p, q, c with p, q, c tokens:

      zgp[g,p,c] + zgp[p,q,c] + zgp[g,p,q] <= z[g,p] + z[p,q].

  With neither arc on the right every term on the left is 0 (each triple uses one of them); with one, the
  chain's triple is 0 and c has one head; with both, the chain's triple is 1 and c still has one head.

* **GPSibChain** (siblings p < q under h, under h's head g; c's head p or q, under h), distinct g, h, p, q, c
  with h, p, q, c tokens:

      zgp[h,p,c] + zgp[h,q,c] + zgp[g,h,p] + zgp[g,h,q] <= z[g,h] + z[h,p] + z[h,q].

  The product [h→p and h→q] is at least zgp[g,h,p] + zgp[g,h,q] - z[g,h] (0 without g→h; with it, the
  two triples are the two arcs), and c has one head, so zgp[h,p,c] + zgp[h,q,c] <= z[h,p] + z[h,q] - [h→p
  and h→q]; the row is the sum of the two.

Neither is implied by the LP: at fractional roots of the Hungarian grandparent model, c takes p under g, q
under p and the chain g→p→q each with a third from arcs g→p, p→q of a third (GPChain), or, with g→h at 1/2,
h's children p and q under g at 1/2 each and c's heads p and q under h at 1/2 each (GPSibChain): mixtures of
trees in which those parts never meet. Added at the 34 fractional roots of the dev set, GPChain rows close
11 of them, both families 14. Exact decoding separates GPChain (:meth:`lpparse.families.grandparent.family.GrandparentParts.
for_exact`), unless third-order families are in the search (their GSibGP links tie the triples to the windows,
and the rows only add LP work); GPSibChain only on request (``GrandparentParts.chains``): its rows of seven
terms slow the node LPs more than the roots it closes save (the 34 sentences: 9.6-9.8 s against 7.6 s).

Every term on the left has coefficient +1, so dropping any of them leaves a weaker row, valid too: a row is
built over the triples present when it enters, and a triple that enters later has no coefficient in it, as
the rows separated by parse-price-cut must be (pricing does not see them). A proof names a row by its label;
a checker rebuilds it over the triples it holds, every candidate one, a row at least as tight. The arcs on
the right must be candidates (without one of them the row says nothing the LP does not).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.families.grandparent.rows import GrandparentProgram
from lpparse.families.pairs import add_present_rows

__all__ = [
    "CHAIN",
    "CHAINS",
    "SIBLING_CHAIN",
    "ChainRows",
    "add_chain_rows",
    "chain_known",
    "violated_chains",
]


@dataclass(frozen=True)
class ChainRows:
    """A family of rows Σ zgp[triples] - Σ z[arcs] <= 0 over labels of ``width`` indices: ``triples`` and
    ``arcs`` name each term's indices by their positions in the label; ``tokens``: the positions that must
    be words (not the root); ``ordered``: a pair of positions whose indices must increase (the rows of a
    symmetric pair counted once)."""

    block: str
    width: int
    triples: tuple[tuple[int, int, int], ...]
    arcs: tuple[tuple[int, int], ...]
    tokens: tuple[int, ...]
    ordered: tuple[int, int] | None = None


CHAIN = ChainRows("GPChain", 4, ((0, 1, 3), (1, 2, 3), (0, 1, 2)), ((0, 1), (1, 2)), (1, 2, 3))
SIBLING_CHAIN = ChainRows(
    "GPSibChain",
    5,
    ((1, 2, 4), (1, 3, 4), (0, 1, 2), (0, 1, 3)),
    ((0, 1), (1, 2), (1, 3)),
    (1, 2, 3, 4),
    (2, 3),
)
#: Both families, by block name.
CHAINS = {rows.block: rows for rows in (CHAIN, SIBLING_CHAIN)}


def chain_known(rows: ChainRows, gp: GrandparentProgram, index: ArrayLike) -> NDArray[np.bool_]:
    """Which labels name a row of ``rows``: in range, distinct indices, words where it needs words, ordered
    where it needs an order, every arc on the right a candidate."""
    idx = np.asarray(index, dtype=np.int64).reshape(-1, rows.width)
    size = gp.arc_mask.shape[0]
    ok = (idx >= 0).all(axis=1) & (idx < size).all(axis=1)
    at = np.where(ok[:, None], idx, 0)
    ok &= (at[:, list(rows.tokens)] >= 1).all(axis=1)
    ordered = np.sort(at, axis=1)
    ok &= (ordered[:, 1:] != ordered[:, :-1]).all(axis=1)
    if rows.ordered is not None:
        ok &= at[:, rows.ordered[0]] < at[:, rows.ordered[1]]
    for a, b in rows.arcs:
        ok &= gp.arc_mask[at[:, a], at[:, b]]
    return ok


def _absent(rows: ChainRows, gp: GrandparentProgram, index: NDArray[np.int64]) -> NDArray[np.bool_]:
    """Which labels of ``index`` name rows the program does not hold yet."""
    block = gp.lp.con_blocks.get(rows.block)
    return block.find(index) < 0 if block is not None and len(index) else np.ones(len(index), bool)


def _pairs(keys: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Every pair (i, j) of distinct positions with equal ``keys``, each pair once."""
    order = np.argsort(keys, kind="stable")
    end = np.searchsorted(keys[order], keys[order], side="right")
    later = end - np.arange(keys.size) - 1  # how many of the same key follow each, in sorted order
    first = np.repeat(np.arange(keys.size), later)
    second = first + 1 + np.arange(first.size) - np.repeat(np.cumsum(later) - later, later)
    return order[first], order[second]


def violated_chains(
    rows: ChainRows, gp: GrandparentProgram, x: NDArray[np.float64], tol: float
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """The rows of ``rows`` over the present triples whose triples on the arcs of the right-hand side (the
    chain's zgp[g,p,q]; the siblings' zgp[g,h,p] and zgp[g,h,q]) exceed ``tol``, that the primal vector ``x``
    violates by more than ``tol`` and that the program does not hold yet: labels and violations. At a point
    that meets the GPArc rows (zgp[g,p,c] <= z[g,p]: the ``martins`` and ``all`` presets) that is every row
    violated by more than ``tol``, since each other term is at most its arc's. So the rows are found from the
    positive triples (chains) or pairs of them under one arc (siblings), c ranging over the tokens."""
    g, p, c = gp.triples()
    values = gp.triple_values(x)
    positive = values > tol
    none = np.zeros((0, rows.width), np.int64), np.zeros(0)
    if not positive.any():
        return none
    size = gp.arc_mask.shape[0]
    zgp = np.zeros((size,) * 3)
    zgp[g, p, c] = values
    z = gp.arc_values(x)
    g, p, c = g[positive], p[positive], c[positive]
    if rows is CHAIN:  # the chains g→p→q: the positive triples themselves
        heads = np.column_stack([g, p, c])
        excess = zgp[p, c, :] + zgp[g, p, :] + (zgp[g, p, c] - z[g, p] - z[p, c])[:, None]
    else:  # two positive triples ⟨g, h, p⟩, ⟨g, h, q⟩, p < q: the siblings p, q under h under g
        i, j = _pairs(g * size + p)
        swap = c[i] > c[j]
        i, j = np.where(swap, j, i), np.where(swap, i, j)
        hg, hh, hp, hq = g[i], p[i], c[i], c[j]
        if hg.size == 0:
            return none
        heads = np.column_stack([hg, hh, hp, hq])
        excess = zgp[hh, hp, :] + zgp[hh, hq, :]
        excess += (zgp[hg, hh, hp] + zgp[hg, hh, hq] - z[hg, hh] - z[hh, hp] - z[hh, hq])[:, None]
    k, cc = np.nonzero(excess > tol)
    index = np.column_stack([heads[k], cc]).astype(np.int64)
    keep = chain_known(rows, gp, index)
    index, violation = index[keep], excess[k, cc][keep]
    new = _absent(rows, gp, index)
    return index[new], violation[new]


def add_chain_rows(rows: ChainRows, gp: GrandparentProgram, index: ArrayLike) -> NDArray[np.int64]:
    """Append the rows of ``rows`` of the labels ``index`` over the triples the program holds now; return
    them. ValueError for a label that names no row (:func:`chain_known`)."""
    idx = np.asarray(index, dtype=np.int64).reshape(-1, rows.width)
    if not chain_known(rows, gp, idx).all():
        raise ValueError(
            f"a label that names no {rows.block} row (see lpparse.families.grandparent.chains)"
        )
    terms = [(gp.triple_cols(*idx[:, list(t)].T), 1.0) for t in rows.triples]
    terms += [(gp.z_col[idx[:, a], idx[:, b]], -1.0) for a, b in rows.arcs]
    return add_present_rows(gp.lp, rows.block, idx, terms, 0.0)
