"""Chain cuts on grandparent triples: ``GPChain[g, p, q, c]``.

Take a chain of two arcs g→p→q and a token c whose head may be p (under grandparent g) or q (under
grandparent p). In every tree

    zgp[g,p,c] + zgp[p,q,c] + zgp[g,p,q] <= z[g,p] + z[p,q],

with distinct g, p, q, c (p, q, c tokens). Proof, case by case on the arcs of the right-hand side: with
neither arc, every term on the left is 0 (each triple uses one of them); with one, the chain's triple
zgp[g,p,q] is 0 and c has one head, so at most one of the other two terms is 1; with both, the chain's triple
is 1 and c still has one head. The products zgp of the grandparent LP (Riedel, Smith & McCallum 2012,
"Parse, Price and Cut—Delayed Column and Row Generation for Graph Based Parsers", EMNLP-CoNLL 2012, §3;
Martins, Smith & Xing 2009, "Concise Integer Linear Programming Formulations for Dependency Parsing",
ACL-IJCNLP 2009) do not imply it: at fractional roots of the Hungarian grandparent model, c takes p under g,
q under p, and the chain g→p→q, each with a third, from arcs g→p and p→q of a third each (the LP's point is
a mixture of trees in which the three never meet). Added at those roots, the rows close 11 of the 34 root
gaps of the dev set.

Every term on the left has coefficient +1, so dropping any of them leaves a weaker row, valid too: a row is
built over the triples present when it enters, and a triple that enters later has no coefficient in it, as
the rows separated by parse-price-cut must be (pricing does not see them). A proof names a row by its label
[g, p, q, c]; a checker rebuilds it over the triples it holds, every candidate one, a row at least as tight.
The arcs g→p and p→q must be candidates: without one of them the row says nothing the LP does not.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.formulations.grandparent import GrandparentProgram

__all__ = ["CHAIN_BLOCK", "add_chains", "chain_known", "violated_chains"]

#: the name of the rows' block
CHAIN_BLOCK = "GPChain"


def chain_known(gp: GrandparentProgram, index: ArrayLike) -> NDArray[np.bool_]:
    """Which labels [g, p, q, c] name a GPChain row: in range, p, q, c tokens, all four distinct, the arcs
    g→p and p→q candidates."""
    idx = np.asarray(index, dtype=np.int64).reshape(-1, 4)
    size = gp.arc_mask.shape[0]
    ok = (idx >= 0).all(axis=1) & (idx < size).all(axis=1)
    g, p, q, c = (np.where(ok, idx[:, i], 0) for i in range(4))
    ok &= (p >= 1) & (q >= 1) & (c >= 1)
    ok &= (g != p) & (g != q) & (g != c) & (p != q) & (p != c) & (q != c)
    return ok & gp.arc_mask[g, p] & gp.arc_mask[p, q]


def _absent(gp: GrandparentProgram, index: NDArray[np.int64]) -> NDArray[np.bool_]:
    """Which labels of ``index`` name rows the program does not hold yet."""
    block = gp.lp.con_blocks.get(CHAIN_BLOCK)
    return block.find(index) < 0 if block is not None and len(index) else np.ones(len(index), bool)


def violated_chains(
    gp: GrandparentProgram, x: NDArray[np.float64], tol: float
) -> tuple[NDArray[np.int64], NDArray[np.float64]]:
    """The GPChain rows over the present triples whose chain triple zgp[g,p,q] exceeds ``tol``, that the
    primal vector ``x`` violates by more than ``tol`` and that the program does not hold yet: labels (k, 4)
    [g, p, q, c] and violations (k,). At a point that meets the GPArc rows (zgp[g,p,c] <= z[g,p]; the
    ``martins`` and ``all`` presets), that is every row violated by more than ``tol``: the chain triple's
    term is the row's violation less two terms that are at most 0. So the chains are the positive triples
    ⟨g, p, q⟩ and c ranges over the tokens: O(chains · n)."""
    g, p, c = gp.triples()
    values = gp.triple_values(x)
    positive = values > tol
    if not positive.any():
        return np.zeros((0, 4), np.int64), np.zeros(0)
    size = gp.arc_mask.shape[0]
    zgp = np.zeros((size,) * 3)
    zgp[g, p, c] = values
    z = gp.arc_values(x)
    # the chains g→p→q: the positive triples themselves (renamed: their last index is the chain's q)
    cg, cp, cq = g[positive], p[positive], c[positive]
    slack = z[cg, cp] + z[cp, cq] - zgp[cg, cp, cq]
    excess = zgp[cg, cp, :] + zgp[cp, cq, :] - slack[:, None]  # (chains, c)
    excess[np.arange(cg.size), cg] = -np.inf  # c = g names no row (zgp[g,p,g] is no triple)
    k, cc = np.nonzero(excess > tol)
    index = np.column_stack([cg[k], cp[k], cq[k], cc]).astype(np.int64)
    keep = chain_known(gp, index) & _absent(gp, index)
    return index[keep], excess[k, cc][keep]


def add_chains(gp: GrandparentProgram, index: ArrayLike) -> NDArray[np.int64]:
    """Append the GPChain rows of the labels ``index`` ((k, 4): g, p, q, c) over the triples the program
    holds now; return them. ValueError for a label that names no row (:func:`chain_known`)."""
    idx = np.asarray(index, dtype=np.int64).reshape(-1, 4)
    if not chain_known(gp, idx).all():
        raise ValueError(
            "a GPChain row [g, p, q, c] needs distinct g, p, q, c (p, q, c tokens) and arcs g→p, p→q"
        )
    g, p, q, c = idx.T
    k = np.arange(len(idx))
    triple_cols = [gp.triple_cols(*t) for t in ((g, p, c), (p, q, c), (g, p, q))]
    arc_cols = [gp.z_col[g, p], gp.z_col[p, q]]
    rows, cols, values = [], [], []
    for found, sign in [*((t, 1.0) for t in triple_cols), *((a, -1.0) for a in arc_cols)]:
        has = found >= 0
        rows.append(k[has])
        cols.append(found[has])
        values.append(np.full(int(has.sum()), sign))
    return gp.lp.add_constraints(
        CHAIN_BLOCK, idx, np.concatenate(rows), np.concatenate(cols), np.concatenate(values), upper=0.0
    )
