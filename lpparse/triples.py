"""Grandparent triples ⟨g, p, c⟩ and the scorers that score them lazily, with factorized upper bounds.

Riedel, Smith and McCallum (2012, ``001_96d0466e746ddc9d.txt``) §2.2–2.3 and §4.3: a triple ⟨g, p, c⟩ stands for
the arcs g→p and p→c (p > 0, g ≠ c); scoring a triple may be costly, so a scorer scores batches on request and
counts how many it has scored, and it offers the factorized bounds

    s̄(g, p, ·) ≥ max_c s(g, p, c)      and      s̄(·, p, c) ≥ max_g s(g, p, c)

that parse-price-cut uses to skip most triples without scoring them (eq. 11).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.trees import allowed_mask_shape, check_tree

__all__ = [
    "GP_DISTRIBUTIONS",
    "DenseTripleScorer",
    "TripleScorer",
    "candidate_triples",
    "noisy_gold_triple_scorer",
    "synthetic_triple_scorer",
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


def candidate_triples(arc_mask: NDArray[np.bool_]) -> Triples:
    """The (g, p, c) index arrays of every candidate triple, in lexicographic order."""
    g, p, c = np.nonzero(triple_mask(arc_mask))
    return g.astype(np.int64), p.astype(np.int64), c.astype(np.int64)


@runtime_checkable
class TripleScorer(Protocol):
    """What parse-price-cut needs from a grandparent model for one sentence. A scorer may also offer
    ``bound_triples(g, p, c)``, per-triple upper bounds that compute no feature; pricing then filters with them
    after eq. 11 (:meth:`lpparse.models.GrandparentScorer.bound_triples`)."""

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


def _check_batch(n: int, g: ArrayLike, p: ArrayLike, c: ArrayLike) -> Triples:
    g, p, c = (np.asarray(x, dtype=np.int64).ravel() for x in (g, p, c))
    if not g.shape == p.shape == c.shape:
        raise ValueError(f"g, p and c must have the same length, got {g.shape}, {p.shape}, {c.shape}")
    if g.size:
        if min(g.min(), p.min(), c.min()) < 0 or max(g.max(), p.max(), c.max()) > n:
            raise ValueError(f"triple indices must lie in 0..{n}")
        bad = (p == 0) | (c == 0) | (g == p) | (p == c) | (g == c)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ValueError(f"⟨{g[i]}, {p[i]}, {c[i]}⟩ is not a grandparent triple (need p > 0, c > 0, all distinct)")
    return g, p, c


@dataclass
class DenseTripleScorer:
    """A scorer over an explicit (n+1, n+1, n+1) array ``scores[g, p, c]``, counting the triples it scores.

    ``slack_gp`` and ``slack_pc`` (non-negative, default 0) loosen the otherwise exact bounds.
    """

    scores: NDArray[np.float64]
    slack_gp: NDArray[np.float64] | None = None
    slack_pc: NDArray[np.float64] | None = None
    _scored: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        s = np.asarray(self.scores, dtype=np.float64)
        if s.ndim != 3 or not s.shape[0] == s.shape[1] == s.shape[2] or s.shape[0] < 2:
            raise ValueError(f"triple scores must have shape (n+1, n+1, n+1), got {s.shape}")
        size = s.shape[0]
        valid = triple_mask(allowed_mask_shape(size))
        if np.isnan(s[valid]).any():
            raise ValueError("triple scores contain NaN")
        if np.isposinf(s[valid]).any():
            raise ValueError("triple scores contain +inf")
        self.scores = s
        self._valid = valid
        for name in ("slack_gp", "slack_pc"):
            slack = getattr(self, name)
            if slack is None:
                slack = np.zeros((size, size))
            slack = np.asarray(slack, dtype=np.float64)
            if slack.shape != (size, size) or (slack < 0).any() or not np.isfinite(slack).all():
                raise ValueError(f"{name} must be a finite non-negative ({size}, {size}) array")
            setattr(self, name, slack)

    @property
    def n(self) -> int:
        return self.scores.shape[0] - 1

    @property
    def scored(self) -> int:
        return self._scored

    def score(self, g: ArrayLike, p: ArrayLike, c: ArrayLike) -> NDArray[np.float64]:
        g, p, c = _check_batch(self.n, g, p, c)
        self._scored += g.size
        return self.scores[g, p, c]

    def _masked(self) -> NDArray[np.float64]:
        return np.where(self._valid, self.scores, -np.inf)

    def bound_gp(self) -> NDArray[np.float64]:
        return self._masked().max(axis=2) + self.slack_gp

    def bound_pc(self) -> NDArray[np.float64]:
        return self._masked().max(axis=0) + self.slack_pc


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
    if n < 1:
        raise ValueError(f"need at least one token, got n={n}")
    rng = np.random.default_rng(rng)
    shape = (n + 1, n + 1, n + 1)
    if distribution == "normal":
        s = rng.normal(0.0, scale, shape)
    elif distribution == "flat":
        s = np.full(shape, scale)
    elif distribution == "heavy-tailed":
        s = scale * rng.standard_t(1.5, shape)
    elif distribution == "negative":
        s = -np.abs(rng.normal(0.0, scale, shape))
    elif distribution == "positive":
        s = np.abs(rng.normal(0.0, scale, shape))
    else:
        raise ValueError(f"unknown distribution {distribution!r}; choose from {GP_DISTRIBUTIONS}")
    return DenseTripleScorer(
        s, slack_gp=rng.uniform(0.0, slack, (n + 1, n + 1)), slack_pc=rng.uniform(0.0, slack, (n + 1, n + 1))
    )



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
