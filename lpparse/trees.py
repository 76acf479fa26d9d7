"""Dependency trees and arc-score arrays: the conventions every module shares.

A sentence has n tokens plus the root 0. Arc scores are a float64 array ``S`` of shape (n+1, n+1) with
``S[h, m]`` the score of head h -> modifier m; column 0 and the diagonal are never used and ``-inf`` marks a
forbidden (pruned) arc. Heads are an int array of length n+1 with ``heads[0] = -1``.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
import scipy.sparse as sp
from numpy.typing import ArrayLike, NDArray
from scipy.sparse import csgraph

from lpparse._masks import by_arc_mask

__all__ = [
    "NoTreeError",
    "allowed_arcs",
    "allowed_mask_shape",
    "check_tree",
    "check_tree_exists",
    "find_cycle",
    "head_choices",
    "heads_to_matrix",
    "is_projective",
    "is_tree",
    "mask_trees",
    "rooted",
    "tree_error",
    "tree_problem",
    "tree_score",
    "validate_scores",
]


#: the most tokens + 1 whose tree question is answered on dense arrays (:func:`_tree_problem`)
DENSE_REACH = 64


class NoTreeError(ValueError):
    """No dependency tree exists over the allowed (finite-score) arcs."""


def validate_scores(scores: ArrayLike, name: str = "scores") -> NDArray[np.float64]:
    """Return ``scores`` as a float64 (n+1, n+1) array, or raise ``ValueError``.

    NaN and ``+inf`` are rejected; ``-inf`` marks a pruned arc. Column 0 and the diagonal are ignored.
    """
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 2 or s.shape[0] != s.shape[1]:
        raise ValueError(f"{name} must be a square (n+1, n+1) array, got shape {s.shape}")
    if s.shape[0] < 2:
        raise ValueError(f"{name} describes an empty sentence (shape {s.shape}); need at least one token")
    used = allowed_mask_shape(s.shape[0])
    bad = used & np.isnan(s)
    if bad.any():
        h, m = np.argwhere(bad)[0]
        raise ValueError(f"{name} contains NaN (first at head {h}, modifier {m})")
    bad = used & np.isposinf(s)
    if bad.any():
        h, m = np.argwhere(bad)[0]
        raise ValueError(f"{name} contains +inf (first at head {h}, modifier {m})")
    return s


@lru_cache(maxsize=256)
def allowed_mask_shape(size: int) -> NDArray[np.bool_]:
    """Boolean (size, size) mask of the positions that can hold an arc: m > 0 and h != m (read-only: one
    array per size, asked for thousands of times a sentence)."""
    mask = ~np.eye(size, dtype=bool)
    mask[:, 0] = False
    mask.flags.writeable = False
    return mask


def allowed_arcs(scores: NDArray[np.float64]) -> NDArray[np.bool_]:
    """Boolean mask of arcs that are present: finite score, m > 0, h != m."""
    return allowed_mask_shape(scores.shape[0]) & np.isfinite(scores)


def tree_problem(mask: NDArray[np.bool_], single_root: bool = False) -> str | None:
    """Why no tree exists over the arcs in ``mask`` (None when one does).

    Multi-root: a tree exists iff every token is reachable from 0. Single-root: iff some root child r
    reaches every other token through word-to-word arcs, i.e. iff the condensation of the word graph has a
    single source component and that component holds a child of the root.
    """
    n = mask.shape[0] - 1
    if mask[0, 1:].all() and (not single_root or mask[1:, 1:].sum() == n * (n - 1)):
        return None  # every token hangs from the root (single root: and every word reaches every other)
    return _tree_problem(mask, single_root)


@by_arc_mask
def _tree_problem(mask: NDArray[np.bool_], single_root: bool) -> str | None:
    """:func:`tree_problem` past its quick case (decoders ask again about the same pruned arcs: the program,
    Chu-Liu-Edmonds, the search). Up to :data:`DENSE_REACH` tokens on dense arrays, what reaches what by
    repeated squaring of the reachability (log n boolean matrix products: a third of the time of a sparse
    graph's construction and traversal at 10-25 tokens, 0.6x at 50); above, scipy's traversals."""
    if mask.shape[0] > DENSE_REACH:
        return _sparse_tree_problem(mask, single_root)
    reach = _reachability(mask)
    if not reach[0].all():
        return f"tokens {np.flatnonzero(~reach[0]).tolist()} cannot be reached from the root over the allowed arcs"
    if single_root:
        words = _reachability(mask[1:, 1:])
        if not (mask[0, 1:] & words.all(axis=1)).any():
            return "no single root child reaches every other token over the allowed arcs"
    return None


def _sparse_tree_problem(mask: NDArray[np.bool_], single_root: bool) -> str | None:
    """:func:`_tree_problem` by scipy's traversals: from the root, and the condensation of the word graph."""
    graph = sp.csr_matrix(mask, dtype=np.float64)  # csgraph's own dtype: no conversion
    reached = csgraph.breadth_first_order(graph, 0, directed=True, return_predecessors=False)
    if reached.shape[0] < mask.shape[0]:
        seen = np.zeros(mask.shape[0], dtype=bool)
        seen[reached] = True
        return (
            f"tokens {np.flatnonzero(~seen).tolist()} cannot be reached from the root over the allowed arcs"
        )
    if single_root:
        words = sp.csr_matrix(mask[1:, 1:], dtype=np.float64)
        _, component = csgraph.connected_components(words, directed=True, connection="strong")
        src, dst = words.nonzero()
        entered = np.zeros(component.max() + 1, dtype=bool)
        entered[component[dst[component[src] != component[dst]]]] = True
        sources = np.flatnonzero(~entered)
        if sources.shape[0] != 1 or not mask[0, 1:][component == sources[0]].any():
            return "no single root child reaches every other token over the allowed arcs"
    return None


def _reachability(mask: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """reach[a, b]: b is reachable from a over the arcs of ``mask`` (a reaches itself)."""
    reach = mask | np.eye(mask.shape[0], dtype=bool)
    step = reach.astype(np.float32)
    for _ in range(max(int(mask.shape[0]).bit_length(), 1)):
        reach = (step @ step) > 0
        step = reach.astype(np.float32)
    return reach


def head_choices(mask: NDArray[np.bool_], limit: int) -> int | None:
    """The tokens' head choices in ``mask`` (the product of their numbers of heads), or None when above
    ``limit``: the subproblems :func:`mask_trees` enumerates."""
    counts = mask[:, 1:].sum(axis=0)
    if not counts.all():  # a token with no head: no choice at all
        return 0 if limit >= 0 else None
    total = 1
    for c in counts.tolist():  # exact in Python ints: no overflow however many tokens
        total *= c
        if total > limit:
            return None
    return total


def mask_trees(mask: NDArray[np.bool_], single_root: bool, limit: int) -> NDArray[np.int64] | None:
    """Every tree over the arcs of ``mask`` as a (T, n+1) array of heads (column 0 is -1; T may be 0), or None
    when the tokens' head choices (the product of their numbers of heads in ``mask``) exceed ``limit``: the
    choices are enumerated, mixed radix, and those that make a tree (every token reaches 0 by pointer
    jumping; one root child under ``single_root``) kept."""
    heads_of = [np.flatnonzero(mask[:, m]) for m in range(1, mask.shape[0])]
    counts = np.array([h.size for h in heads_of], dtype=np.int64)
    if (counts == 0).any():
        return np.empty((0, mask.shape[0]), np.int64)
    total = head_choices(mask, limit)
    if total is None:
        return None
    size = mask.shape[0]
    choice = np.arange(total)[:, None] // np.cumprod(np.concatenate([[1], counts[:-1]]))[None, :] % counts
    heads = np.empty((total, size), np.int64)
    heads[:, 0] = 0
    for m, options in enumerate(heads_of, start=1):
        heads[:, m] = options[choice[:, m - 1]]
    trees = heads[rooted(heads, single_root)]
    trees[:, 0] = -1
    return trees


def rooted(heads: NDArray[np.int64], single_root: bool = False) -> NDArray[np.bool_]:
    """Whether each head array (the last axis: a head for every token, ``heads[..., 0]`` ignored) makes a tree
    rooted at 0, with one root child under ``single_root``, vectorized: by pointer jumping every token's
    ancestor 2^k steps up reaches 0 within n steps. A NumPy bool for one array, an array of them for a
    (T, n+1) batch."""
    up = heads.copy()
    up[..., 0] = 0
    rows = np.arange(up.shape[0])[:, None] if up.ndim == 2 else None
    for _ in range(max(int(up.shape[-1] - 1).bit_length(), 1)):
        up = up[up] if rows is None else up[rows, up]
    ok = (up == 0).all(axis=-1)
    if single_root:
        ok &= (heads[..., 1:] == 0).sum(axis=-1) == 1
    return ok


def check_tree_exists(scores: NDArray[np.float64], single_root: bool = False) -> None:
    """Raise :class:`NoTreeError` if no tree exists over the finite-score arcs of ``scores``."""
    problem = tree_problem(allowed_arcs(scores), single_root)
    if problem is not None:
        kind = "single-root" if single_root else "multi-root"
        raise NoTreeError(f"no {kind} dependency tree exists: {problem}")


def _as_heads(heads: ArrayLike) -> NDArray[np.int64]:
    h = np.asarray(heads)
    if h.ndim != 1 or h.shape[0] < 2:
        raise ValueError(f"heads must be a 1-d array of length n+1 >= 2, got shape {h.shape}")
    return h.astype(np.int64)


def tree_error(heads: ArrayLike, single_root: bool = False) -> str | None:
    """Why ``heads`` is not a dependency tree rooted at 0 (None when it is)."""
    h = _as_heads(heads)
    n = h.shape[0] - 1
    if h[0] != -1:
        return f"heads[0] must be -1, got {h[0]}"
    for m in range(1, n + 1):
        if not 0 <= h[m] <= n:
            return f"token {m} has head {h[m]} outside 0..{n}"
        if h[m] == m:
            return f"token {m} is its own head"
    if single_root and int(np.sum(h[1:] == 0)) != 1:
        return f"single-root tree needs exactly one child of the root, found {int(np.sum(h[1:] == 0))}"
    cycle = find_cycle(h)
    if cycle is not None:
        return f"cycle through tokens {cycle}"
    return None


def find_cycle(heads: ArrayLike) -> list[int] | None:
    """Tokens of the first cycle in ``heads`` (heads must lie in 0..n), or None if every token reaches 0."""
    h = _as_heads(heads)
    n = h.shape[0] - 1
    state = np.zeros(n + 1, dtype=np.int8)  # 0 unvisited, 1 on current path, 2 reaches root
    state[0] = 2
    for start in range(1, n + 1):
        path = []
        v = start
        while state[v] == 0:
            state[v] = 1
            path.append(v)
            v = int(h[v])
        if state[v] == 1:
            return path[path.index(v) :]
        for u in path:
            state[u] = 2
    return None


def is_tree(heads: ArrayLike, single_root: bool = False) -> bool:
    """True iff ``heads`` is a dependency tree rooted at 0 (with one root child if ``single_root``)."""
    return tree_error(heads, single_root) is None


def check_tree(heads: ArrayLike, single_root: bool = False) -> NDArray[np.int64]:
    """Return ``heads`` as an int array, or raise ``ValueError`` saying why it is not a tree."""
    problem = tree_error(heads, single_root)
    if problem is not None:
        raise ValueError(f"not a dependency tree: {problem}")
    return _as_heads(heads)


def is_projective(heads: ArrayLike) -> bool:
    """True iff no two arcs cross, root arcs included (the root sits left of token 1)."""
    h = _as_heads(heads)
    m = np.arange(1, h.shape[0])
    lo = np.minimum(h[1:], m)
    hi = np.maximum(h[1:], m)
    # arcs a, b cross iff lo_a < lo_b < hi_a < hi_b
    a_lo, b_lo = lo[:, None], lo[None, :]
    a_hi, b_hi = hi[:, None], hi[None, :]
    return not bool(np.any((a_lo < b_lo) & (b_lo < a_hi) & (a_hi < b_hi)))


def tree_score(scores: ArrayLike, heads: ArrayLike) -> float:
    """Sum of arc scores ``S[heads[m], m]`` over the tokens m = 1..n."""
    s = np.asarray(scores, dtype=np.float64)
    h = _as_heads(heads)
    m = np.arange(1, h.shape[0])
    return float(s[h[1:], m].sum())


def heads_to_matrix(heads: ArrayLike) -> NDArray[np.float64]:
    """0/1 (n+1, n+1) matrix with a 1 at (heads[m], m) for every token m."""
    h = _as_heads(heads)
    z = np.zeros((h.shape[0], h.shape[0]))
    m = np.arange(1, h.shape[0])
    z[h[1:], m] = 1.0
    return z
