"""The global TREE / PTREE factor: marginals by the first-order oracles, and their tangents for back-propagation.

Forward (Smith & Eisner 2008; Gormley, Dredze & Eisner 2015 §5.3, Fig. 2 C.1–C.3): the factor's outgoing
messages come from the arc marginals of the tree distribution whose arc log-weights are the incoming message
log-odds (the ratio trick), given by :func:`lpparse.oracles.matrix_tree` (matrix-tree) or
:func:`lpparse.oracles.projective_inside_outside` (inside-outside).

Backward (BP reading note §2.9): the marginals are μ = ∇ log Z, so the adjoint of the scores given an adjoint
ðμ of the marginals is the Hessian-vector product ∇² log Z · ðμ, which, the Hessian being symmetric, is the
tangent of μ in the direction ðμ. :func:`tree_marginals_jvp` computes it exactly in O(n³):

* matrix-tree: μ_a = w_a tr(M E_a) with M = L̂⁻¹ and L̂ = Σ_a w_a E_a linear in the weights, so
  dμ_a = dw_a tr(M E_a) − w_a tr(M dL̂ M E_a) (Koo et al. 2007; ðL̂ = −Mᵀ ðM Mᵀ in BP reading note §2.9);
  where L̂ is numerically singular this is replaced by a central difference of the oracle's stable marginals;
* inside-outside: forward-over-reverse differentiation of Eisner's chart, i.e. the chart of
  :mod:`lpparse.dp.eisner` under the dual-number semiring :data:`lpparse.dp.semiring.DUAL_LOG` (Li & Eisner
  2009): tangents of every item's log inside value, then of every outside gradient through the softmax
  weights of each split.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from lpparse.dp.eisner import eisner_chart
from lpparse.dp.semiring import DUAL_LOG
from lpparse.oracles import matrix_tree, projective_inside_outside
from lpparse.trees import allowed_arcs, check_tree_exists, validate_scores

__all__ = ["FD_STEP", "LAPLACIAN_ATOL", "tree_marginals", "tree_marginals_jvp"]

#: The inverse-Laplacian tangent is trusted when its marginals match the oracle's to this absolute tolerance.
LAPLACIAN_ATOL = 1e-9
#: Step (in units of the tangent's max-norm) of the central-difference fallback; its error is O(FD_STEP²).
FD_STEP = 1e-4


def tree_marginals(
    scores: NDArray[np.float64], single_root: bool, projective: bool
) -> tuple[float, NDArray[np.float64]]:
    """``(log Z, arc marginals)`` of the (projective) tree distribution with arc log-weights ``scores``."""
    if projective:
        return projective_inside_outside(scores, single_root)
    log_z, mu = matrix_tree(scores, single_root)
    assert mu is not None
    return log_z, mu


def tree_marginals_jvp(
    scores: NDArray[np.float64], tangent: NDArray[np.float64], single_root: bool, projective: bool
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(μ, dμ)``: the arc marginals and their derivative along ``tangent`` (= ∇² log Z · tangent).

    Entries of ``tangent`` on pruned arcs (``-inf`` score), column 0 and the diagonal are ignored.
    """
    s = validate_scores(scores)
    check_tree_exists(s, single_root)
    v = np.where(allowed_arcs(s), np.asarray(tangent, dtype=np.float64), 0.0)
    if projective:
        return _projective_jvp(s, v, single_root)
    return _matrix_tree_jvp(s, v, single_root)


def _laplacian(a: NDArray[np.float64], r: NDArray[np.float64], single_root: bool) -> NDArray[np.float64]:
    """L̂ (linear in the word weights ``a`` and root weights ``r``; Koo et al. 2007, BP reading note §2.2)."""
    lap = -a.copy()
    diag = np.arange(a.shape[0])
    lap[diag, diag] = a.sum(axis=0) + (0.0 if single_root else r)
    if single_root:
        lap[0, :] = r
    return lap


def _contract(x: NDArray[np.float64], single_root: bool) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """tr(X E_a) for every word arc (n x n) and root arc (n): μ_a = w_a tr(M E_a) for X = M = L̂⁻¹."""
    d = np.diagonal(x)
    if single_root:
        words = np.where(np.arange(x.shape[0]) == 0, 0.0, d)[None, :] - x.T
        words[0, :] += x[:, 0]  # (1 - δ(h,1)) drops the -X[m, 1] term of head 1
        return words, x[:, 0].copy()
    return d[None, :] - x.T, d.copy()


def _matrix_tree_jvp(
    s: NDArray[np.float64], v: NDArray[np.float64], single_root: bool
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Tangent through the inverse Laplacian; when that is inaccurate (the best incoming arcs form a cycle
    whose entering arcs are far weaker, so L̂ is numerically singular — scores of size 1e3, or annealed
    beliefs b/T), fall back to a central difference of the oracle's subtraction-free marginals."""
    mu_ref = tree_marginals(s, single_root, projective=False)[1]
    mask = allowed_arcs(s)
    shift = np.max(np.where(mask, s, -np.inf), axis=0)  # column shift leaves μ and its tangent unchanged
    shift[0] = 0.0
    with np.errstate(invalid="ignore", over="ignore"):
        w = np.where(mask, np.exp(s - shift[None, :]), 0.0)
    a, r = w[1:, 1:], w[0, 1:]
    da, dr = a * v[1:, 1:], r * v[0, 1:]
    with np.errstate(all="ignore"):
        try:
            inv = np.linalg.inv(_laplacian(a, r, single_root))
        except np.linalg.LinAlgError:
            inv = np.full(a.shape, np.nan)
        t_words, t_root = _contract(inv, single_root)
        dt_words, dt_root = _contract(-inv @ _laplacian(da, dr, single_root) @ inv, single_root)
        mu = np.zeros_like(s)
        dmu = np.zeros_like(s)
        mu[1:, 1:], mu[0, 1:] = a * t_words, r * t_root
        dmu[1:, 1:], dmu[0, 1:] = da * t_words + a * dt_words, dr * t_root + r * dt_root
    np.fill_diagonal(dmu, 0.0)
    np.fill_diagonal(mu, 0.0)
    if np.isfinite(dmu).all() and np.allclose(mu, mu_ref, rtol=0.0, atol=LAPLACIAN_ATOL):
        return mu_ref, dmu
    scale = float(np.abs(v).max())
    if scale == 0.0:
        return mu_ref, np.zeros_like(s)
    h = FD_STEP / scale
    plus = tree_marginals(np.where(mask, s + h * v, -np.inf), single_root, projective=False)[1]
    minus = tree_marginals(np.where(mask, s - h * v, -np.inf), single_root, projective=False)[1]
    return mu_ref, (plus - minus) / (2 * h)


def _projective_jvp(
    s: NDArray[np.float64], v: NDArray[np.float64], single_root: bool
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Forward-over-reverse on Eisner's chart: its backward pass under the dual-number semiring ``DUAL_LOG``."""
    adjoints = eisner_chart(s, single_root, DUAL_LOG, v).adjoints
    return adjoints[0], adjoints[1]
