"""Exact projective second-order parsing with grandparent parts, O(n^4): Eisner's algorithm with the head's
parent added to every span (the grandparent half of Koo and Collins 2010, "Model 1" without siblings).

The reference for the grandparent polytope on projective instances of any length: the score of a tree is
Σ_m S[h(m), m] + Σ_{p>0, c: h(c)=p} GP[h(p), p, c] (Riedel, Smith & McCallum 2012, eq. 3).

Charts, for spans s ≤ t and a grandparent index g (the parent of the span's head; g = n+1 stands for "no
parent", used by the root's spans):

    IR[g,s,t] = max_{s≤r<t} CR[g,s,r] + CL[s,r+1,t] + S[s,t] + GP[g,s,t]     arc s→t
    IL[g,s,t] = max_{s≤r<t} CR[t,s,r] + CL[g,r+1,t] + S[t,s] + GP[g,t,s]     arc t→s
    CR[g,s,t] = max_{s<m≤t} IR[g,s,m] + CR[s,m,t]
    CL[g,s,t] = max_{s≤m<t} CL[t,s,m] + IL[g,m,t]

Each width is one vectorized numpy step over (g, s, split), so the Python loop runs over widths only.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.trees import NoTreeError, check_tree_exists, validate_scores

__all__ = ["grandparent_eisner"]


def _gp_table(gp_scores: ArrayLike, size: int) -> NDArray[np.float64]:
    """GP as a (size+1, size, size) array with a zero row for the virtual grandparent and zeros on every
    entry that is not a triple (so the charts never read garbage)."""
    gp = np.asarray(gp_scores, dtype=np.float64)
    if gp.shape != (size, size, size):
        raise ValueError(f"gp_scores must have shape {(size, size, size)}, got {gp.shape}")
    g, p, c = np.indices(gp.shape)
    valid = (p > 0) & (c > 0) & (g != p) & (p != c) & (g != c)
    if np.isnan(gp[valid]).any():
        raise ValueError("gp_scores contain NaN")
    if np.isposinf(gp[valid]).any():
        raise ValueError("gp_scores contain +inf")
    table = np.zeros((size + 1, size, size))
    table[:size][valid] = gp[valid]
    return table


def grandparent_eisner(
    scores: ArrayLike, gp_scores: ArrayLike, single_root: bool = False
) -> tuple[NDArray[np.int64], float]:
    """Best projective tree under arc plus grandparent scores; returns (heads, value).

    ``gp_scores[g, p, c]`` scores the arcs g→p and p→c together (entries that are not triples are
    ignored; ``-inf`` forbids a triple). Raises :class:`NoTreeError` when no projective tree has a finite
    score.
    """
    s = validate_scores(scores)
    check_tree_exists(s, single_root)
    size = s.shape[0]
    n = size - 1
    gp = _gp_table(gp_scores, size)
    G = size + 1  # grandparent indices 0..n, and n+1 = none
    neg = -np.inf
    CR = np.full((G, size, size), neg)
    CL = np.full((G, size, size), neg)
    IR = np.full((G, size, size), neg)
    IL = np.full((G, size, size), neg)
    diag = np.arange(size)
    CR[:, diag, diag] = 0.0
    CL[:, diag, diag] = 0.0
    # back-pointers, [g, s, t] -> split point
    bIR = np.zeros((G, size, size), dtype=np.int64)
    bIL = np.zeros_like(bIR)
    bCR = np.zeros_like(bIR)
    bCL = np.zeros_like(bIR)
    gs = np.arange(G)[:, None, None]
    with np.errstate(invalid="ignore"):
        for w in range(1, size):
            st = np.arange(0, size - w)
            t = st + w
            k = np.arange(w)
            r = st[:, None] + k[None, :]  # (S, K) split points s..t-1
            # incomplete spans
            left = CR[gs, st[None, :, None], r[None]]  # CR[g, s, r]          (G, S, K)
            right = CL[st[:, None], r + 1, t[:, None]]  # CL[s, r+1, t]       (S, K)
            cand = left + right[None]
            best = cand.argmax(axis=2)
            IR[:, st, t] = np.take_along_axis(cand, best[..., None], 2)[..., 0] + s[st, t] + gp[:, st, t]
            bIR[:, st, t] = st[None, :] + best
            left = CR[t[:, None], st[:, None], r]  # CR[t, s, r]            (S, K)
            right = CL[gs, r[None] + 1, t[None, :, None]]  # CL[g, r+1, t]  (G, S, K)
            cand = left[None] + right
            best = cand.argmax(axis=2)
            IL[:, st, t] = np.take_along_axis(cand, best[..., None], 2)[..., 0] + s[t, st] + gp[:, t, st]
            bIL[:, st, t] = st[None, :] + best
            # complete spans
            m = st[:, None] + k[None, :] + 1  # s+1..t
            cand = IR[gs, st[None, :, None], m[None]] + CR[st[:, None], m, t[:, None]][None]
            best = cand.argmax(axis=2)
            CR[:, st, t] = np.take_along_axis(cand, best[..., None], 2)[..., 0]
            bCR[:, st, t] = st[None, :] + 1 + best
            m = st[:, None] + k[None, :]  # s..t-1
            cand = CL[t[:, None], st[:, None], m][None] + IL[gs, m[None], t[None, :, None]]
            best = cand.argmax(axis=2)
            CL[:, st, t] = np.take_along_axis(cand, best[..., None], 2)[..., 0]
            bCL[:, st, t] = st[None, :] + best
    heads = np.full(size, -1, dtype=np.int64)
    none = size
    if single_root:
        root_values = s[0, 1:] + CL[0, 1, 1:] + CR[0, 1:, n]
        r = int(np.argmax(root_values)) + 1
        value = float(root_values[r - 1])
        stack = [("CL", 0, 1, r), ("CR", 0, r, n)]
        heads[r] = 0
    else:
        value = float(CR[none, 0, n])
        stack = [("CR", none, 0, n)]
    if not np.isfinite(value):
        kind = "single-root" if single_root else "multi-root"
        raise NoTreeError(f"no projective {kind} tree with a finite score exists over the allowed arcs and triples")
    while stack:
        kind, g, a, b = stack.pop()
        if a == b:
            continue
        if kind == "IR":
            r = bIR[g, a, b]
            heads[b] = a
            stack += [("CR", g, a, r), ("CL", a, r + 1, b)]
        elif kind == "IL":
            r = bIL[g, a, b]
            heads[a] = b
            stack += [("CR", b, a, r), ("CL", g, r + 1, b)]
        elif kind == "CR":
            m = bCR[g, a, b]
            stack += [("IR", g, a, m), ("CR", a, m, b)]
        else:
            m = bCL[g, a, b]
            stack += [("CL", b, a, m), ("IL", g, m, b)]
    return heads, value
