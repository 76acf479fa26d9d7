"""Partition function and arc marginals over non-projective trees by the matrix-tree theorem.

Koo, Globerson, Carreras & Collins (2007); BP reading note §2.2. With word weights
A[h, m] = exp(S[h, m] - c_m) and root weights r_m = exp(S[0, m] - c_m) (c_m = column max), the
multi-root Z is det(L), L = diag(r + column sums of A) - A, and the single-root Z is
sum_r r_r * (weight of the word trees rooted at r).

Stability. Plain LU on L cancels catastrophically when the best incoming arcs form a cycle whose
entering arcs are much weaker (with scores of size 1e3 the computed det is 0). So the determinant is
computed by Gaussian elimination in the Grassmann-Taksar-Heyman form: L is kept as its off-diagonal
weights plus its column excesses (r), and eliminating token k updates them by sums of products of
non-negative numbers only:

    p_k = [r_k] + sum_{i>k} A[i, k]         (r_k counted only for multi-root)
    A[i, j] += A[i, k] A[k, j] / p_k        (i, j > k)
    r_j += r_k A[k, j] / p_k                (j > k)

Z = p_1 ... p_{n-1} r_n. Without r in the pivots this eliminates the root-free word Laplacian, whose
leading minors are the weights of the word trees rooted at the last token, with the root weights carried
along (the Markov chain tree theorem); so single-root needs only a last token that reaches every other
one. There is no subtraction, so every quantity has small relative error. Float64 serves when every
column's finite scores span at most 300 (no weight or product of two falls below exp(-600)); wider
spans use extended precision (``np.longdouble``, weights down to exp(-11000)), about 3x slower. The marginals are
d log Z / d S, computed by reverse-mode differentiation of the elimination (its adjoints times the
weights are expected counts in [0, 1], again without cancellation of large terms).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.sparse.csgraph import connected_components

from lpparse.trees import allowed_arcs, check_tree_exists, validate_scores

__all__ = ["matrix_tree", "log_partition", "arc_marginals", "fast_arc_marginals"]

_FLOAT64_SPAN = 300.0


def _single_root_order(mask: NDArray[np.bool_]) -> NDArray[np.int64]:
    """Token order that ends with a possible root child reaching every token over word-to-word arcs."""
    n = mask.shape[0] - 1
    words = mask[1:, 1:]
    _, comp = connected_components(words, directed=True, connection="strong")
    entered = np.zeros(comp.max() + 1, dtype=bool)
    src, dst = np.nonzero(words)
    entered[comp[dst[comp[src] != comp[dst]]]] = True
    candidates = np.flatnonzero(~entered[comp] & mask[0, 1:])  # in the source component, has a root arc
    last = int(candidates[0])
    return np.concatenate([np.delete(np.arange(n), last), [last]])


def _eliminate(a: NDArray[np.floating], r: NDArray[np.floating], single_root: bool) -> NDArray[np.floating]:
    """GTH elimination in place over tokens 0..n-2 in order; return the pivots (last = final r)."""
    n = a.shape[0]
    pivots = np.empty(n, dtype=a.dtype)
    for k in range(n - 1):
        col, row = a[k + 1 :, k], a[k, k + 1 :]
        p = col.sum() + (0 if single_root else r[k])
        pivots[k] = p
        a[k + 1 :, k + 1 :] += np.multiply.outer(col / p, row)
        r[k + 1 :] += (r[k] / p) * row
    pivots[n - 1] = r[n - 1]
    return pivots


def _backprop(
    a: NDArray[np.floating], r: NDArray[np.floating], pivots: NDArray[np.floating], single_root: bool
) -> tuple[NDArray[np.floating], NDArray[np.floating]]:
    """d (sum log pivots) / d (a, r) at their values before elimination (a, r as left by ``_eliminate``)."""
    n = a.shape[0]
    ga = np.zeros_like(a)
    gr = np.zeros_like(r)
    gr[n - 1] = 1 / pivots[n - 1]
    for k in range(n - 2, -1, -1):
        col, row, p = a[k + 1 :, k], a[k, k + 1 :], pivots[k]
        g_block = ga[k + 1 :, k + 1 :]
        g_row_part = g_block @ row  # sum_j G[i, j] a[k, j]
        g_col_part = col @ g_block  # sum_i a[i, k] G[i, j]
        gr_tail = gr[k + 1 :]
        ga[k + 1 :, k] += g_row_part / p
        ga[k, k + 1 :] += g_col_part / p + gr_tail * (r[k] / p)
        gr[k] += (gr_tail @ row) / p
        gp = 1 / p - (col @ g_row_part + r[k] * (gr_tail @ row)) / (p * p)
        ga[k + 1 :, k] += gp
        if not single_root:
            gr[k] += gp
    return ga, gr


def _weights(s: NDArray[np.float64]) -> tuple[NDArray[np.floating], NDArray[np.floating], float]:
    """Column-shifted word weights A (n x n, zero diagonal), root weights r and the sum of the shifts."""
    mask = allowed_arcs(s)
    shift = np.max(np.where(mask, s, -np.inf), axis=0)[1:]
    span = np.max(shift - np.min(np.where(mask, s, np.inf), axis=0)[1:])
    dtype = np.float64 if span <= _FLOAT64_SPAN else np.longdouble
    with np.errstate(invalid="ignore", over="ignore"):  # only entries that np.where drops can overflow
        e = np.where(mask, np.exp(s.astype(dtype) - np.concatenate([[0.0], shift])), 0)
    return e[1:, 1:], e[0, 1:], float(shift.sum())


def matrix_tree(scores: ArrayLike, single_root: bool = False, marginals: bool = True) -> tuple[float, NDArray[np.float64] | None]:
    """``(log Z, arc marginals)`` over all (non-projective) trees; marginals is None when not requested.

    ``marginals[h, m]`` = P(arc h -> m); column 0 and the diagonal are 0. Raises ``ValueError`` on
    invalid scores and :class:`~lpparse.trees.NoTreeError` when no tree exists.
    """
    s = validate_scores(scores)
    check_tree_exists(s, single_root)
    n = s.shape[0] - 1
    a0, r0, shift = _weights(s)
    order = _single_root_order(allowed_arcs(s)) if single_root else np.arange(n)
    a0, r0 = a0[np.ix_(order, order)], r0[order]
    a, r = a0.copy(), r0.copy()
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):  # checked on the pivots below
        pivots = _eliminate(a, r, single_root)
    if not np.all(np.isfinite(pivots) & (pivots > 0)):  # a tree exists: only under- or overflow gets here
        raise FloatingPointError("scores span too wide a range for extended precision (about 1e4 per column)")
    log_z = float(np.log(pivots).sum()) + shift
    if not marginals:
        return log_z, None
    ga, gr = _backprop(a, r, pivots, single_root)
    mu = np.zeros((n + 1, n + 1))
    inverse = np.argsort(order)
    mu[1:, 1:] = (a0 * ga)[np.ix_(inverse, inverse)]
    mu[0, 1:] = (r0 * gr)[inverse]
    np.fill_diagonal(mu, 0.0)
    return log_z, np.clip(mu, 0.0, 1.0)


def log_partition(scores: ArrayLike, single_root: bool = False) -> float:
    """log of the sum over all dependency trees of exp(tree score)."""
    return matrix_tree(scores, single_root, marginals=False)[0]


def arc_marginals(scores: ArrayLike, single_root: bool = False) -> NDArray[np.float64]:
    """(n+1, n+1) arc marginals over all dependency trees."""
    mu = matrix_tree(scores, single_root)[1]
    assert mu is not None
    return mu


#: what :func:`fast_arc_marginals` accepts of its inverse-Laplacian marginals: every column's sum within this
#: of 1, no marginal below minus this, and the Laplacian's condition number (Skeel's, || |L⁻¹| |L| ||∞, which
#: a single-root Laplacian's tiny first row does not inflate) times the machine epsilon at most a tenth of it:
#: the inverse's relative error, for a column can sum to 1 within 1e-9 while its entries are off by more, as at
#: a near-cycle of two tokens (condition 3e7); the first 200 dev sentences of English and Hungarian under
#: first-order models: at most 2.6e3)
_FAST_TOL = 1e-9


def fast_arc_marginals(scores: ArrayLike, single_root: bool = False) -> NDArray[np.float64]:
    """:func:`arc_marginals` by inverting the (single-root: first-row-replaced) Laplacian, Koo, Globerson,
    Carreras & Collins (2007, "Structured Prediction Models via the Matrix-Tree Theorem", EMNLP-CoNLL, §3):

        μ(h, m) = A[h, m] (L⁻¹[m, m] [m not first, single-root] - L⁻¹[m, h] [h is a word]),
        μ(0, m) = r_m L⁻¹[m, m] (multi-root) or r_m L⁻¹[m, first] (single-root),

    one LU instead of the elimination's Python loop over tokens (10-20x faster on 20-40 tokens). The LU may
    cancel where the elimination does not (module docstring), so the answer is checked (the Laplacian's
    condition number, and finite, every column summing to 1 within 1e-9, none below -1e-9: :data:`_FAST_TOL`)
    and the elimination runs when it fails the check or
    the scores span more than float64 weights can hold. For arc pruning, whose posteriors run per sentence
    before decoding; the oracle itself stays :func:`arc_marginals`."""
    s = validate_scores(scores)
    check_tree_exists(s, single_root)
    a, r, _ = _weights(s)
    mu = _inverse_marginals(a, r, single_root) if a.dtype == np.float64 else None
    return arc_marginals(s, single_root) if mu is None else mu


def _inverse_marginals(
    a: NDArray[np.float64], r: NDArray[np.float64], single_root: bool
) -> NDArray[np.float64] | None:
    """:func:`fast_arc_marginals`' formulas from the weights of :func:`_weights`; None when the Laplacian is
    singular in floating point or the answer fails the check."""
    n = a.shape[0]
    lap = np.diag(a.sum(axis=0) + (0.0 if single_root else r)) - a
    if single_root:
        lap[0] = r
    with np.errstate(all="ignore"):
        try:
            inv = np.linalg.inv(lap)
        except np.linalg.LinAlgError:
            return None
        condition = (np.abs(inv) @ np.abs(lap)).sum(axis=1).max()  # Skeel's: blind to row scaling
        if not condition * np.finfo(np.float64).eps <= _FAST_TOL / 10:
            return None
        diag = np.diag(inv).copy()
        if single_root:
            diag[0] = 0.0
        mu = np.zeros((n + 1, n + 1))
        mu[1:, 1:] = a * (diag[None, :] - inv.T)
        if single_root:
            mu[1, 1:] = a[0] * diag  # h = the first token: its row of L was replaced
        mu[0, 1:] = r * (inv[:, 0] if single_root else np.diag(inv))
    np.fill_diagonal(mu, 0.0)
    sums = mu.sum(axis=0)[1:]
    if not np.isfinite(mu).all() or (np.abs(sums - 1.0) > _FAST_TOL).any() or mu.min() < -_FAST_TOL:
        return None
    return np.clip(mu, 0.0, 1.0)
