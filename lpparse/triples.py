"""Grandparent triples ⟨g, p, c⟩ and the scorers that score them lazily, with factorized upper bounds.

Riedel, Smith and McCallum (2012) §2.2–2.3 and §4.3: a triple ⟨g, p, c⟩ stands for
the arcs g→p and p→c (p > 0, g ≠ c); scoring a triple may be costly, so a scorer scores batches on request and
counts how many it has scored, and it offers the factorized bounds

    s̄(g, p, ·) ≥ max_c s(g, p, c)      and      s̄(·, p, c) ≥ max_g s(g, p, c)

that parse-price-cut uses to skip most triples without scoring them (eq. 11).

Arbitrary siblings ⟨h, m, m'⟩ (Martins, Smith & Xing 2009, "Concise Integer Linear Programming Formulations
for Dependency Parsing", ACL-IJCNLP 2009: all pairs of children of a head, not only consecutive ones)
follow the same protocol: a part stands for the arcs h→m and h→m' with m < m' (unordered: m' may lie on either
side of h), a :class:`SiblingScorer` scores batches and counts them, and its one factorized bound

    s̄(h, m) ≥ max_{m'} s(h, {m, m'})      (m' on either side of m)

bounds a pair by min(s̄(h, m), s̄(h, m')), the counterpart of eq. 11.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar, Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse._masks import by_arc_mask
from lpparse.part_values import check_part_scores
from lpparse.trees import allowed_mask_shape, check_tree

__all__ = [
    "GP_DISTRIBUTIONS",
    "DensePartScorer",
    "DenseSiblingScorer",
    "DenseTripleScorer",
    "SiblingScorer",
    "SparsePartScorer",
    "TripleScorer",
    "candidate_siblings",
    "candidate_triples",
    "check_csib_batch",
    "check_part_scores",
    "check_sibling_batch",
    "check_triple_batch",
    "count_siblings",
    "count_triples",
    "noisy_gold_triple_scorer",
    "sibling_mask",
    "synthetic_sibling_scorer",
    "synthetic_triple_scorer",
    "tree_siblings",
    "triple_mask",
]

Triples = tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]


def triple_mask(arc_mask: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """Boolean (n+1, n+1, n+1) mask of the triples ⟨g, p, c⟩ whose arcs g→p and p→c are both candidates
    (which implies p > 0, g ≠ p, p ≠ c), with g ≠ c."""
    size = arc_mask.shape[0]
    mask = arc_mask[:, :, None] & arc_mask[None, :, :]
    g = np.arange(size)
    mask[g, :, g] = False
    return mask


@by_arc_mask(maxsize=4)
def candidate_triples(arc_mask: NDArray[np.bool_]) -> Triples:
    """The (g, p, c) index arrays of every candidate triple, in lexicographic order."""
    g, p, c = np.nonzero(triple_mask(arc_mask))
    return g.astype(np.int64), p.astype(np.int64), c.astype(np.int64)


def count_triples(arc_mask: NDArray[np.bool_]) -> int:
    """How many candidate triples there are (:func:`triple_mask`), in O(n²) without enumerating them: Σ_p
    (heads of p) × (children of p), less the pairs of opposite arcs g→p, p→g (a triple has g ≠ c)."""
    arcs = arc_mask.astype(np.int64)
    return int(arcs.sum(axis=0) @ arcs.sum(axis=1) - (arcs * arcs.T).sum())


def count_siblings(arc_mask: NDArray[np.bool_], single_root: bool = False) -> int:
    """How many candidate sibling parts there are (:func:`sibling_mask`), in O(n²): Σ_h (children of h
    choose 2), without the root's under ``single_root``."""
    children = arc_mask.sum(axis=1).astype(np.int64)
    if single_root:
        children[0] = 0
    return int((children * (children - 1) // 2).sum())


@by_arc_mask
def sibling_mask(arc_mask: NDArray[np.bool_], single_root: bool = False) -> NDArray[np.bool_]:
    """Boolean (n+1, n+1, n+1) mask of the sibling parts ⟨h, m, m'⟩: arcs h→m and h→m' both candidates and
    m < m'. With ``single_root`` the root has one child, so no part has h = 0."""
    size = arc_mask.shape[0]
    mask = arc_mask[:, :, None] & arc_mask[:, None, :]
    mask &= np.triu(np.ones((size, size), dtype=bool), 1)[None, :, :]
    if single_root:
        mask[0] = False
    return mask


@by_arc_mask(maxsize=4)
def candidate_siblings(arc_mask: NDArray[np.bool_], single_root: bool = False) -> Triples:
    """The (h, m, m') index arrays of every candidate sibling part (:func:`sibling_mask`), lexicographic."""
    h, m, m2 = np.nonzero(sibling_mask(arc_mask, single_root))
    return h.astype(np.int64), m.astype(np.int64), m2.astype(np.int64)


def tree_siblings(heads: NDArray[np.int64]) -> Triples:
    """The sibling parts ⟨heads[m], m, m'⟩ (m < m', same head) of a tree, lexicographic by (m, m')."""
    heads = np.asarray(heads, dtype=np.int64)
    m, m2 = np.nonzero(np.triu(heads[1:, None] == heads[None, 1:], 1))
    return heads[m + 1], m + 1, m2 + 1


@runtime_checkable
class TripleScorer(Protocol):
    """What parse-price-cut needs from a grandparent model for one sentence. A scorer may also offer
    ``bound_triples(g, p, c)``, per-triple upper bounds that compute no feature; pricing then filters with them
    after eq. 11 (:meth:`lpparse.scoring.GrandparentScorer.bound_triples`)."""

    @property
    def n(self) -> int:
        """Number of tokens."""

    @property
    def scored(self) -> int:
        """How many triples have been scored so far (each call counts every triple it is given)."""

    def score(self, g: ArrayLike, p: ArrayLike, c: ArrayLike) -> NDArray[np.float64]:
        """Exact scores s(g, p, c) of a batch of triples."""

    def bound_gp(self) -> NDArray[np.float64]:
        """(n+1, n+1) array B with B[g, p] ≥ max_c s(g, p, c) (eq. 11, first factor)."""

    def bound_pc(self) -> NDArray[np.float64]:
        """(n+1, n+1) array B with B[p, c] ≥ max_g s(g, p, c) (eq. 11, second factor)."""


@runtime_checkable
class SiblingScorer(Protocol):
    """What a brute-force or column-generation solver needs from a sibling model for one sentence: exact
    scores of batches of parts ⟨h, m, m'⟩ (m < m'), counted, and a factorized bound that rules parts out
    without scoring them. A scorer may also offer ``bound_siblings(h, m, m2)``, tighter per-part bounds that
    compute no feature (:meth:`lpparse.scoring.SiblingModelScorer.bound_siblings`)."""

    @property
    def n(self) -> int:
        """Number of tokens."""

    @property
    def scored(self) -> int:
        """How many parts have been scored so far (each call counts every part it is given)."""

    def score(self, h: ArrayLike, m: ArrayLike, m2: ArrayLike) -> NDArray[np.float64]:
        """Exact scores s(h, m, m') of a batch of parts, m < m'."""

    def bound_hm(self) -> NDArray[np.float64]:
        """(n+1, n+1) array B with B[h, m] ≥ s(h, min(m, m'), max(m, m')) for every m' ≠ m (either side)."""


def _check_indices(n: int, kind: str, *arrays: ArrayLike) -> tuple[NDArray[np.int64], ...]:
    out = tuple(np.asarray(x, dtype=np.int64).ravel() for x in arrays)
    if len({a.shape for a in out}) > 1:
        raise ValueError(f"{kind} index arrays must have the same length, got {[a.shape for a in out]}")
    if out[0].size and (min(a.min() for a in out) < 0 or max(a.max() for a in out) > n):
        raise ValueError(f"{kind} indices must lie in 0..{n}")
    return out


def check_triple_batch(n: int, g: ArrayLike, p: ArrayLike, c: ArrayLike) -> Triples:
    g, p, c = _check_indices(n, "triple", g, p, c)
    bad = (p == 0) | (c == 0) | (g == p) | (p == c) | (g == c)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"⟨{g[i]}, {p[i]}, {c[i]}⟩ is not a grandparent triple (need p > 0, c > 0, all distinct)"
        )
    return g, p, c


def check_sibling_batch(n: int, h: ArrayLike, m: ArrayLike, m2: ArrayLike) -> Triples:
    """The batch as int64 arrays; ValueError unless every part has 0 < m < m' <= n and h ∉ {m, m'}."""
    h, m, m2 = _check_indices(n, "sibling", h, m, m2)
    bad = (m == 0) | (m >= m2) | (h == m) | (h == m2)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(f"⟨{h[i]}, {m[i]}, {m2[i]}⟩ is not a sibling part (need 0 < m < m', h ∉ {{m, m'}})")
    return h, m, m2


def window_shape(h: NDArray[np.int64], a: NDArray[np.int64], b: NDArray[np.int64]) -> NDArray[np.bool_]:
    """Whether each ⟨h, a, b⟩ is a consecutive-sibling window shape: ⟨h, h, b⟩ (b a token ≠ h), ⟨h, a, h⟩ (a
    a token ≠ h), or a strictly nearer h than b on one side (:mod:`lpparse.families.consecutive.rows`)."""
    first = (a == h) & (b != h) & (b > 0)
    last = (b == h) & (a != h) & (a > 0)
    middle = (a > 0) & (b > 0) & (((h < a) & (a < b)) | ((b < a) & (a < h)))
    return first | last | middle


def check_gsib_batch(
    n: int, g: ArrayLike, h: ArrayLike, a: ArrayLike, b: ArrayLike
) -> tuple[NDArray[np.int64], ...]:
    """The batch as int64 arrays; ValueError unless every ⟨g, h, a, b⟩ lies in 0..n, h is a token ≠ g and
    ⟨h, a, b⟩ a window shape (:mod:`lpparse.families.third_order.grandsibling`)."""
    g, h, a, b = _check_range(n, g, h, a, b)
    if g.size and not ((h > 0) & (g != h) & window_shape(h, a, b)).all():
        raise ValueError("a grand-sibling part ⟨g, h, a, b⟩ needs a token h ≠ g and a window shape ⟨h, a, b⟩")
    return g, h, a, b


def check_tsib_batch(
    n: int, h: ArrayLike, x: ArrayLike, a: ArrayLike, b: ArrayLike
) -> tuple[NDArray[np.int64], ...]:
    """The batch as int64 arrays; ValueError unless every ⟨h, x, a, b⟩ lies in 0..n with a ≠ h a token and
    ⟨h, x, a⟩, ⟨h, a, b⟩ window shapes (:mod:`lpparse.families.third_order.trisibling`)."""
    h, x, a, b = _check_range(n, h, x, a, b)
    if h.size and not ((a != h) & window_shape(h, x, a) & window_shape(h, a, b)).all():
        raise ValueError(
            "a tri-sibling part ⟨h, x, a, b⟩ needs a token a ≠ h with x (or h) nearer h and b (or h) farther "
            "on a's side"
        )
    return h, x, a, b


def check_csib_batch(
    n: int, h: ArrayLike, a: ArrayLike, b: ArrayLike
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """The batch as int64 arrays; ValueError unless every ⟨h, a, b⟩ lies in 0..n and is a consecutive-sibling
    window shape: ⟨h, h, b⟩ (b a token ≠ h), ⟨h, a, h⟩ (a a token ≠ h), or a strictly nearer h than b on one
    side (:mod:`lpparse.families.consecutive.rows`)."""
    h, a, b = (np.asarray(x, dtype=np.int64).ravel() for x in (h, a, b))
    if not h.shape == a.shape == b.shape:
        raise ValueError(
            f"consecutive-sibling index arrays must have the same length, got {[h.shape, a.shape, b.shape]}"
        )
    if h.size == 0:
        return h, a, b
    if min(int(x.min()) for x in (h, a, b)) < 0 or max(int(x.max()) for x in (h, a, b)) > n:
        raise ValueError(f"consecutive-sibling indices must lie in 0..{n}")
    bad = ~window_shape(h, a, b)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"⟨{h[i]}, {a[i]}, {b[i]}⟩ is not a consecutive-sibling window (need ⟨h, h, b⟩, ⟨h, a, h⟩ or "
            "h < a < b or b < a < h, children >= 1)"
        )
    return h, a, b


def _dense_cube(
    scores: ArrayLike, valid: Callable[[int], NDArray[np.bool_]], kind: str
) -> NDArray[np.float64]:
    """``scores`` as a float64 (n+1,)*3 array, checked for NaN and +inf where ``valid(n+1)`` is True."""
    s = np.asarray(scores, dtype=np.float64)
    if s.ndim != 3 or not s.shape[0] == s.shape[1] == s.shape[2] or s.shape[0] < 2:
        raise ValueError(f"{kind} scores must have shape (n+1, n+1, n+1), got {s.shape}")
    used = s[valid(s.shape[0])]
    if np.isnan(used).any():
        raise ValueError(f"{kind} scores contain NaN")
    if np.isposinf(used).any():
        raise ValueError(f"{kind} scores contain +inf")
    return s


def _slack(slack: ArrayLike | None, size: int, name: str) -> NDArray[np.float64]:
    """A finite non-negative (size, size) bound slack (zeros when None)."""
    out = np.zeros((size, size)) if slack is None else np.asarray(slack, dtype=np.float64)
    if out.shape != (size, size) or (out < 0).any() or not np.isfinite(out).all():
        raise ValueError(f"{name} must be a finite non-negative ({size}, {size}) array")
    return out


def _check_range(n: int, *parts: ArrayLike) -> tuple[NDArray[np.int64], ...]:
    """Index arrays of one length with every index in 0..n (ValueError otherwise)."""
    arrays = tuple(np.asarray(a, dtype=np.int64).ravel() for a in parts)
    if len({a.size for a in arrays}) > 1:
        raise ValueError("the index arrays of a batch of parts must have one length")
    for a in arrays:
        if a.size and (a.min() < 0 or a.max() > n):
            raise ValueError(f"part indices must lie in 0..{n}")
    return arrays


@dataclass
class DensePartScorer:
    """Counted scoring of parts of any arity k read from a dense (n+1,)*k array ``scores`` (a scorer for a
    part family: ``n``, ``scored``, ``score(*index_arrays)``); ``_check`` validates a batch (here: indices in
    range; subclasses check the part's shape). For small n: a third-order family's sparse scorer keeps no
    (n+1)^4 array."""

    scores: NDArray[np.float64]
    _scored: int = field(default=0, init=False)
    _check: ClassVar[Callable[..., tuple[NDArray[np.int64], ...]]] = staticmethod(_check_range)

    @property
    def n(self) -> int:
        return self.scores.shape[0] - 1

    @property
    def scored(self) -> int:
        return self._scored

    def score(self, *parts: ArrayLike) -> NDArray[np.float64]:
        idx = type(self)._check(self.n, *parts)
        self._scored += idx[0].size
        return self.scores[idx]


class SparsePartScorer:
    """Counted scoring of parts of any arity k from a list: ``index`` (m, k) holds the listed parts (indices in
    0..n), ``values`` (m,) their scores, every other part scores ``default``. No (n+1)^k array is made: a
    batch is looked up by binary search over the parts' flat indices, so third-order families (4-index parts,
    about 6 million of them at n = 50) score from what a model lists. :meth:`bound` gives factorized bounds
    over any subset of the indices."""

    def __init__(self, n: int, index: ArrayLike, values: ArrayLike, default: float = 0.0) -> None:
        idx = np.asarray(index, dtype=np.int64)
        vals = np.asarray(values, dtype=np.float64).ravel()
        if idx.ndim != 2 or idx.shape[0] != vals.size:
            raise ValueError(
                f"sparse parts need an (m, k) index and m values, got {idx.shape} and {vals.shape}"
            )
        if idx.size and (idx.min() < 0 or idx.max() > n):
            raise ValueError(f"part indices must lie in 0..{n}")
        check_part_scores(vals, "sparse part")
        check_part_scores(np.array([default]), "default part")
        self.n, self.arity, self.default = n, idx.shape[1], float(default)
        self._shape = (n + 1,) * self.arity
        keys = np.ravel_multi_index(tuple(idx.T), self._shape).astype(np.int64) if idx.size else idx[:, 0]
        order = np.argsort(keys, kind="stable")
        self.index, self.values, self._keys = idx[order], vals[order], keys[order]
        if np.any(self._keys[1:] == self._keys[:-1]):
            raise ValueError("sparse parts list a part twice")
        self._scored = 0

    @property
    def scored(self) -> int:
        return self._scored

    def score(self, *parts: ArrayLike) -> NDArray[np.float64]:
        idx = _check_range(self.n, *parts)
        if len(idx) != self.arity:
            raise ValueError(f"parts have {self.arity} indices, got {len(idx)}")
        self._scored += idx[0].size
        keys = np.ravel_multi_index(idx, self._shape)
        at = np.minimum(np.searchsorted(self._keys, keys), max(self._keys.size - 1, 0))
        found = self._keys.size > 0
        hit = (self._keys[at] == keys) if found else np.zeros(keys.shape, bool)
        return np.where(hit, self.values[at] if found else 0.0, self.default)

    def bound(self, keep: tuple[int, ...]) -> NDArray[np.float64]:
        """An (n+1,)*len(keep) array B with B[i_keep] >= the score of every part whose indices at the
        positions ``keep`` are i_keep: the largest listed score there, or ``default`` (which every unlisted
        part scores) when larger."""
        out = np.full((self.n + 1,) * len(keep), self.default)
        if self.values.size:
            np.maximum.at(out, tuple(self.index[:, list(keep)].T), self.values)
        return out


class QuadBoundsMixin:
    """Named factorized bounds of a 4-index family from ``self._bound(kept)`` (the (n+1)³ bound keeping three
    positions, the fourth free), which the scorer it is mixed into defines; subclasses name them
    (``bound_first`` = ``_bound((0, 1, 2))``, ...)."""

    _bound: Callable[[tuple[int, int, int]], NDArray[np.float64]]


class TriSiblingBounds(QuadBoundsMixin):
    """The tri-sibling family's factorized bounds, by name (what :mod:`lpparse.families.third_order.family` asks for)."""

    def bound_first(self) -> NDArray[np.float64]:
        """(n+1,)*3 B1[h, x, a] >= max_b s(h, x, a, b)."""
        return self._bound((0, 1, 2))

    def bound_second(self) -> NDArray[np.float64]:
        """(n+1,)*3 B2[h, a, b] >= max_x s(h, x, a, b)."""
        return self._bound((0, 2, 3))


class GrandSiblingBounds(QuadBoundsMixin):
    """The grand-sibling family's factorized bounds, by name (what :mod:`lpparse.families.third_order.family` asks for)."""

    def bound_gha(self) -> NDArray[np.float64]:
        """(n+1,)*3 B[g, h, a] >= max_b s(g, h, a, b)."""
        return self._bound((0, 1, 2))

    def bound_ghb(self) -> NDArray[np.float64]:
        """(n+1,)*3 B[g, h, b] >= max_a s(g, h, a, b)."""
        return self._bound((0, 1, 3))

    def bound_hab(self) -> NDArray[np.float64]:
        """(n+1,)*3 B[h, a, b] >= max_g s(g, h, a, b)."""
        return self._bound((1, 2, 3))


@dataclass
class DenseQuadScorer(DensePartScorer, QuadBoundsMixin):
    """A scorer of 4-index parts over an explicit (n+1,)*4 array read on the family's part shapes (``shapes(n
    + 1)``, other entries ignored), counting the parts it scores; ``-inf`` prunes a part. Its bounds are
    exact plus ``slack`` (non-negative). For small n: a model scores parts from its features."""

    slack: float = 0.0
    _valid: NDArray[np.bool_] = field(init=False, repr=False)
    kind: ClassVar[str] = "4-index"
    shapes: ClassVar[Callable[[int], NDArray[np.bool_]]]

    def __post_init__(self) -> None:
        s = np.asarray(self.scores, dtype=np.float64)
        if s.ndim != 4 or len(set(s.shape)) != 1 or s.shape[0] < 2:
            raise ValueError(f"{self.kind} scores must have shape (n+1,)*4, got {s.shape}")
        self._valid = type(self).shapes(s.shape[0])
        check_part_scores(s[self._valid], self.kind)
        if not (np.isfinite(self.slack) and self.slack >= 0):
            raise ValueError(f"slack must be finite and >= 0, got {self.slack}")
        self.scores = s

    def _bound(self, kept: tuple[int, int, int]) -> NDArray[np.float64]:
        """The max over the free position of the scores on part shapes (-inf: no part), plus the slack."""
        (free,) = set(range(4)) - set(kept)
        return np.where(self._valid, self.scores, -np.inf).max(axis=free) + self.slack


class SparseQuadScorer(SparsePartScorer, QuadBoundsMixin):
    """A scorer of 4-index parts over listed parts (``index`` (m, 4), checked by ``_check``, and ``values``),
    every other part scoring ``default``: no (n+1)^4 array is made. Its bounds are the largest listed score
    or the default."""

    kind: ClassVar[str] = "4-index"
    _check: ClassVar[Callable[..., tuple[NDArray[np.int64], ...]]] = staticmethod(_check_range)

    def __init__(self, n: int, index: ArrayLike, values: ArrayLike, default: float = 0.0) -> None:
        idx = np.asarray(index, dtype=np.int64)
        if idx.ndim != 2 or idx.shape[1] != 4:
            raise ValueError(f"{self.kind} parts need an (m, 4) index, got shape {idx.shape}")
        type(self)._check(n, *idx.T)
        super().__init__(n, idx, values, default)

    def _bound(self, kept: tuple[int, int, int]) -> NDArray[np.float64]:
        return self.bound(kept)


@dataclass
class DenseTripleScorer(DensePartScorer):
    """A scorer over an explicit (n+1, n+1, n+1) array ``scores[g, p, c]``, counting the triples it scores;
    ``-inf`` prunes a triple (no tree may hold it: :mod:`lpparse.families.grandparent.rows`).

    ``slack_gp`` and ``slack_pc`` (non-negative, default 0) loosen the otherwise exact bounds.
    """

    slack_gp: NDArray[np.float64] | None = None
    slack_pc: NDArray[np.float64] | None = None
    _check = staticmethod(check_triple_batch)

    def __post_init__(self) -> None:
        self.scores = _dense_cube(self.scores, _all_triples, "triple")
        size = self.scores.shape[0]
        self._valid = _all_triples(size)
        self.slack_gp = _slack(self.slack_gp, size, "slack_gp")
        self.slack_pc = _slack(self.slack_pc, size, "slack_pc")

    def _masked(self) -> NDArray[np.float64]:
        return np.where(self._valid, self.scores, -np.inf)

    def bound_gp(self) -> NDArray[np.float64]:
        return self._masked().max(axis=2) + self.slack_gp

    def bound_pc(self) -> NDArray[np.float64]:
        return self._masked().max(axis=0) + self.slack_pc


def _all_triples(size: int) -> NDArray[np.bool_]:
    return triple_mask(allowed_mask_shape(size))


def _all_siblings(size: int) -> NDArray[np.bool_]:
    return sibling_mask(allowed_mask_shape(size))


@dataclass
class DenseSiblingScorer(DensePartScorer):
    """A :class:`SiblingScorer` over an explicit (n+1, n+1, n+1) array ``scores[h, m, m']`` read where m < m'
    (other entries are ignored), counting the parts it scores; ``-inf`` prunes a part
    (:mod:`lpparse.families.sibling.rows`). Its bound is exact, plus ``slack[h, m]`` (non-negative, default
    0)."""

    slack: NDArray[np.float64] | None = None
    _check = staticmethod(check_sibling_batch)

    def __post_init__(self) -> None:
        self.scores = _dense_cube(self.scores, _all_siblings, "sibling")
        self._valid = _all_siblings(self.scores.shape[0])
        self.slack = _slack(self.slack, self.scores.shape[0], "slack")

    def bound_hm(self) -> NDArray[np.float64]:
        """max over m' of s(h, {m, m'}): m as the first (axis 1) or the second (axis 2) child."""
        masked = np.where(self._valid, self.scores, -np.inf)
        return np.maximum(masked.max(axis=2), masked.max(axis=1)) + self.slack


#: Score distributions for synthetic grandparent models (the PPC issue asks for each of them).
GP_DISTRIBUTIONS = ("normal", "flat", "heavy-tailed", "negative", "positive")


def synthetic_triple_scorer(
    n: int,
    rng: np.random.Generator | int | None = None,
    distribution: str = "normal",
    scale: float = 1.0,
    slack: float = 0.5,
) -> DenseTripleScorer:
    """A random grandparent model for n tokens whose bounds are valid but not exact.

    ``distribution``: ``normal`` N(0, scale²); ``flat`` every triple the same score ``scale`` (ties
    everywhere); ``heavy-tailed`` Student-t with 1.5 degrees of freedom times ``scale``; ``negative`` −|N|;
    ``positive`` |N|. Each bound gets an independent Uniform(0, ``slack``) looseness.
    """
    rng = np.random.default_rng(rng)
    s = _random_cube(n, rng, distribution, scale)
    return DenseTripleScorer(
        s, slack_gp=rng.uniform(0.0, slack, (n + 1, n + 1)), slack_pc=rng.uniform(0.0, slack, (n + 1, n + 1))
    )


def synthetic_sibling_scorer(
    n: int,
    rng: np.random.Generator | int | None = None,
    distribution: str = "normal",
    scale: float = 1.0,
    slack: float = 0.5,
) -> DenseSiblingScorer:
    """A random sibling model for n tokens (``distribution`` as :func:`synthetic_triple_scorer`) whose bound
    is loosened by Uniform(0, ``slack``)."""
    rng = np.random.default_rng(rng)
    s = _random_cube(n, rng, distribution, scale)
    return DenseSiblingScorer(s, slack=rng.uniform(0.0, slack, (n + 1, n + 1)))


def _random_cube(n: int, rng: np.random.Generator, distribution: str, scale: float) -> NDArray[np.float64]:
    """(n+1,)*3 random scores of one of :data:`GP_DISTRIBUTIONS`."""
    if n < 1:
        raise ValueError(f"need at least one token, got n={n}")
    shape = (n + 1, n + 1, n + 1)
    if distribution == "normal":
        return rng.normal(0.0, scale, shape)
    if distribution == "flat":
        return np.full(shape, scale)
    if distribution == "heavy-tailed":
        return scale * rng.standard_t(1.5, shape)
    if distribution == "negative":
        return -np.abs(rng.normal(0.0, scale, shape))
    if distribution == "positive":
        return np.abs(rng.normal(0.0, scale, shape))
    raise ValueError(f"unknown distribution {distribution!r}; choose from {GP_DISTRIBUTIONS}")


def noisy_gold_triple_scorer(
    heads: ArrayLike,
    noise: float = 0.5,
    bonus: float = 1.0,
    rng: np.random.Generator | int | None = None,
    slack: float = 0.5,
) -> DenseTripleScorer:
    """The grandparent counterpart of :func:`lpparse.scores.noisy_gold_scores`: every triple scores
    N(0, noise²), the triples of the gold tree get ``bonus`` on top, and each bound is loosened by
    Uniform(0, ``slack``). Like a trained model, it has a clear best tree that the noise blurs."""
    gold = check_tree(heads)
    n = gold.shape[0] - 1
    rng = np.random.default_rng(rng)
    s = rng.normal(0.0, noise, (n + 1, n + 1, n + 1))
    c = np.arange(1, n + 1)
    inner = gold[c] > 0
    s[gold[gold[c[inner]]], gold[c[inner]], c[inner]] += bonus
    return DenseTripleScorer(
        s, slack_gp=rng.uniform(0.0, slack, (n + 1, n + 1)), slack_pc=rng.uniform(0.0, slack, (n + 1, n + 1))
    )
