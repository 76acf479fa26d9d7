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
* inside-outside: forward-over-reverse differentiation of Eisner's chart (the dual-number version of
  :mod:`lpparse.oracles._chart`): tangents of every item's log inside value, then of every outside
  gradient through the softmax weights of each split.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from lpparse.oracles import matrix_tree, projective_inside_outside
from lpparse.oracles._chart import logsumexp_reduce
from lpparse.trees import NoTreeError, allowed_arcs, check_tree_exists, validate_scores

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


def _lse_dual(
    x: NDArray[np.float64], dx: NDArray[np.float64]
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Log-sum-exp over the last axis with its softmax weights, and both their tangents."""
    out, g = logsumexp_reduce(x)
    dx = np.where(g > 0, dx, 0.0)
    dout = (g * dx).sum(axis=-1)
    return out, dout, g, g * (dx - dout[..., None])


def _projective_jvp(
    s: NDArray[np.float64], v: NDArray[np.float64], single_root: bool
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Forward-over-reverse on Eisner's chart, with the table layout of :func:`lpparse.oracles._chart.eisner_chart`."""
    size = s.shape[0]
    n = size - 1
    s = s.copy()
    s[:, 0] = -np.inf
    neg = np.full((size, size), -np.inf)
    cr_s, cr_e, cl_s, cl_e, ir_s, il_e = (neg.copy() for _ in range(6))
    for table in (cr_s, cr_e, cl_s, cl_e):
        table[:, 0] = 0.0
    dcr_s, dcr_e, dcl_s, dcl_e, dir_s, dil_e = (np.zeros((size, size)) for _ in range(6))
    saved = []
    for w in range(1, size):
        ns = size - w
        inner, dinner, g1, dg1 = _lse_dual(
            cr_s[:ns, :w] + cl_e[w:, :w][:, ::-1], dcr_s[:ns, :w] + dcl_e[w:, :w][:, ::-1]
        )
        ir_s[:ns, w] = inner + np.diagonal(s, w)
        il_e[w:, w] = inner + np.diagonal(s, -w)
        dir_s[:ns, w] = dinner + np.diagonal(v, w)
        dil_e[w:, w] = dinner + np.diagonal(v, -w)
        cr, dcr, g2, dg2 = _lse_dual(
            ir_s[:ns, 1 : w + 1] + cr_e[w:, :w][:, ::-1], dir_s[:ns, 1 : w + 1] + dcr_e[w:, :w][:, ::-1]
        )
        cl, dcl, g3, dg3 = _lse_dual(
            cl_s[:ns, :w] + il_e[w:, 1 : w + 1][:, ::-1], dcl_s[:ns, :w] + dil_e[w:, 1 : w + 1][:, ::-1]
        )
        cr_s[:ns, w] = cr_e[w:, w] = cr
        cl_s[:ns, w] = cl_e[w:, w] = cl
        dcr_s[:ns, w] = dcr_e[w:, w] = dcr
        dcl_s[:ns, w] = dcl_e[w:, w] = dcl
        saved.append((g1, dg1, g2, dg2, g3, dg3))

    # gradients d log Z / d item (outside weights) and their tangents
    gcr_s, gcr_e, gcl_s, gcl_e, gir_s, gil_e = (np.zeros((size, size)) for _ in range(6))
    dgcr_s, dgcr_e, dgcl_s, dgcl_e, dgir_s, dgil_e = (np.zeros((size, size)) for _ in range(6))
    mu = np.zeros((size, size))
    dmu = np.zeros((size, size))
    if single_root:
        m = np.arange(1, size)
        x = s[0, 1:] + cl_e[m, m - 1] + cr_s[m, n - m]
        dx = v[0, 1:] + dcl_e[m, m - 1] + dcr_s[m, n - m]
        value, _, g_goal, dg_goal = _lse_dual(x[None, :], dx[None, :])
        value, g_goal, dg_goal = value[0], g_goal[0], dg_goal[0]
        mu[0, 1:], dmu[0, 1:] = g_goal, dg_goal
        gcl_e[m, m - 1] += g_goal
        gcr_s[m, n - m] += g_goal
        dgcl_e[m, m - 1] += dg_goal
        dgcr_s[m, n - m] += dg_goal
    else:
        value = cr_s[0, n]
        gcr_s[0, n] = 1.0
    if value == -np.inf:
        raise NoTreeError("no projective dependency tree exists over the allowed arcs")
    for w in range(size - 1, 0, -1):
        ns = size - w
        g1, dg1, g2, dg2, g3, dg3 = saved[w - 1]
        for (p_s, p_e, dp_s, dp_e), g, dg, (a, da), (b, db) in (
            (
                (gcl_s, gcl_e, dgcl_s, dgcl_e),
                g3,
                dg3,
                (gcl_s[:ns, :w], dgcl_s[:ns, :w]),
                (gil_e[w:, 1 : w + 1][:, ::-1], dgil_e[w:, 1 : w + 1][:, ::-1]),
            ),
            (
                (gcr_s, gcr_e, dgcr_s, dgcr_e),
                g2,
                dg2,
                (gir_s[:ns, 1 : w + 1], dgir_s[:ns, 1 : w + 1]),
                (gcr_e[w:, :w][:, ::-1], dgcr_e[w:, :w][:, ::-1]),
            ),
            (
                (gir_s, gil_e, dgir_s, dgil_e),
                g1,
                dg1,
                (gcr_s[:ns, :w], dgcr_s[:ns, :w]),
                (gcl_e[w:, :w][:, ::-1], dgcl_e[w:, :w][:, ::-1]),
            ),
        ):
            parent = (p_s[:ns, w] + p_e[w:, w])[:, None]
            dparent = (dp_s[:ns, w] + dp_e[w:, w])[:, None]
            contrib, dcontrib = parent * g, dparent * g + parent * dg
            a += contrib
            b += contrib
            da += dcontrib
            db += dcontrib
    start, width = np.triu_indices(size, 1)
    width = width - start
    mu[start, start + width] += gir_s[start, width]
    mu[start + width, start] += gil_e[start + width, width]
    dmu[start, start + width] += dgir_s[start, width]
    dmu[start + width, start] += dgil_e[start + width, width]
    mu[:, 0] = 0.0
    dmu[:, 0] = 0.0
    return mu, dmu
