"""Eisner's (1996) first-order projective chart over a semiring, vectorized over split points.

One forward pass computes the goal value under ``max`` (Viterbi) or ``logsumexp`` (inside); one backward
pass propagates d(goal)/d(item) through the hyperedges. Under ``logsumexp`` the backward pass is the
outside pass and gives arc marginals (Gormley et al. 2015, eqs. 13-15, as gradients); under ``max`` the
derivatives are one-hot, so the backward pass is back-pointer following and gives the Viterbi tree's
arcs. Items (BP reading note §2.3): complete spans C[s,t,->] (head s) and
C[s,t,<-] (head t), incomplete spans I[s,t,->] (arc s->t) and I[s,t,<-] (arc t->s). Root 0 sits at
the left edge and is never a modifier. Single-root: the goal is sum_m w(0->m) C[1,m,<-] C[m,n,->].

Each item table is stored by (start, width) or by (end, width), whichever makes every split-point
operand a plain (possibly reversed) slice: the loop runs over span widths only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.trees import NoTreeError, check_tree_exists, validate_scores

Reduce = Callable[[NDArray[np.float64]], tuple[NDArray[np.float64], NDArray[np.float64]]]


def max_reduce(x: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Max over the last axis and its (one-hot, first argmax) derivative."""
    idx = np.argmax(x, axis=-1)
    out = np.take_along_axis(x, idx[..., None], axis=-1)[..., 0]
    grad = np.zeros_like(x)
    np.put_along_axis(grad, idx[..., None], 1.0, axis=-1)
    return out, grad


def logsumexp_reduce(x: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Log-sum-exp over the last axis and its derivative (softmax; zero where every term is -inf)."""
    m = np.max(x, axis=-1)
    m = np.where(np.isfinite(m), m, 0.0)
    e = np.exp(x - m[..., None])
    total = e.sum(axis=-1)
    with np.errstate(divide="ignore"):
        out = np.log(total) + m
    grad = e / np.where(total > 0, total, 1.0)[..., None]
    return out, grad


@dataclass
class ChartResult:
    value: float  #: goal value: best tree score (max) or log partition function (logsumexp)
    arcs: NDArray[np.float64]  #: d value / d scores[h, m]: 0/1 Viterbi arcs (max) or arc marginals


def eisner_chart(scores: ArrayLike, single_root: bool, reduce: Reduce) -> ChartResult:
    """Validate ``scores``, run the forward and backward passes, raise NoTreeError if no projective tree."""
    s = validate_scores(scores)
    check_tree_exists(s, single_root)
    size = s.shape[0]
    n = size - 1
    s = s.copy()
    s[:, 0] = -np.inf  # the root is never a modifier
    neg = np.full((size, size), -np.inf)
    # complete: CR by (start, width) and (end, width); CL likewise; IR by start; IL by end
    cr_s, cr_e, cl_s, cl_e, ir_s, il_e = (neg.copy() for _ in range(6))
    for table in (cr_s, cr_e, cl_s, cl_e):
        table[:, 0] = 0.0
    saved = []
    for w in range(1, size):
        ns = size - w
        inner, g_inner = reduce(cr_s[:ns, :w] + cl_e[w:, :w][:, ::-1])  # split r = s+k
        ir_s[:ns, w] = inner + np.diagonal(s, w)
        il_e[w:, w] = inner + np.diagonal(s, -w)
        cr, g_cr = reduce(ir_s[:ns, 1 : w + 1] + cr_e[w:, :w][:, ::-1])  # I[s, s+k] C[s+k, t]
        cl, g_cl = reduce(cl_s[:ns, :w] + il_e[w:, 1 : w + 1][:, ::-1])  # C[s, s+k] I[s+k, t]
        cr_s[:ns, w] = cr_e[w:, w] = cr
        cl_s[:ns, w] = cl_e[w:, w] = cl
        saved.append((g_inner, g_cr, g_cl))

    gcr_s, gcr_e, gcl_s, gcl_e, gir_s, gil_e = (np.zeros((size, size)) for _ in range(6))
    arcs = np.zeros((size, size))
    if single_root:
        m = np.arange(1, size)
        value, g_goal = reduce((s[0, 1:] + cl_e[m, m - 1] + cr_s[m, n - m])[None, :])
        value, g_goal = float(value[0]), g_goal[0]
        arcs[0, 1:] = g_goal
        gcl_e[m, m - 1] += g_goal
        gcr_s[m, n - m] += g_goal
    else:
        value = float(cr_s[0, n])
        gcr_s[0, n] = 1.0
    if value == -np.inf:
        kind = "single-root" if single_root else "multi-root"
        raise NoTreeError(f"no projective {kind} dependency tree exists over the allowed arcs")
    for w in range(size - 1, 0, -1):
        ns = size - w
        g_inner, g_cr, g_cl = saved[w - 1]
        contrib = (gcl_s[:ns, w] + gcl_e[w:, w])[:, None] * g_cl
        gcl_s[:ns, :w] += contrib
        gil_e[w:, 1 : w + 1][:, ::-1] += contrib
        contrib = (gcr_s[:ns, w] + gcr_e[w:, w])[:, None] * g_cr
        gir_s[:ns, 1 : w + 1] += contrib
        gcr_e[w:, :w][:, ::-1] += contrib
        contrib = (gir_s[:ns, w] + gil_e[w:, w])[:, None] * g_inner
        gcr_s[:ns, :w] += contrib
        gcl_e[w:, :w][:, ::-1] += contrib
    start, width = np.triu_indices(size, 1)  # all (start, width >= 1) with start + width <= n
    width = width - start
    arcs[start, start + width] += gir_s[start, width]
    arcs[start + width, start] += gil_e[start + width, width]
    arcs[:, 0] = 0.0
    return ChartResult(value, arcs)
