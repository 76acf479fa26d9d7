"""A score cache for parts of any arity: each part is asked from its scorer once, and the scoring is timed.

Riedel, Smith & McCallum (2012, "Parse, Price and Cut—Delayed Column and Row Generation for Graph Based
Parsers", EMNLP-CoNLL 2012) §4.3: pricing scores only the parts its bounds cannot rule out, so what a run
costs is the number of parts scored. The cache keeps every score it has seen, so that the rounds of one run,
and the runs of one sentence (the nodes of branch and bound), score no part twice. Parts of k indices over
0..n are stored densely ((n+1)^k floats) while that is small (:data:`DENSE_LIMIT` entries: 3-index parts up to
n = 255), else by their flat index in a sorted array (4-index parts of long sentences).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lpparse.part_values import DENSE_CELLS, PartValues, check_part_scores

__all__ = ["DENSE_LIMIT", "DENSE_LIMIT_QUADS", "ScoreCache"]

#: the most entries of a dense cache; larger index spaces are stored sparsely
DENSE_LIMIT = DENSE_CELLS
#: the same for 4-index parts, whose dense array costs more to fill than a sentence's parts cost to look up
#: sorted (Danish full model over pruned arcs, exact decoding of every fifth dev sentence, CPU: 4.26-4.36 s
#: against 4.60-4.65 s with 1 << 24)
DENSE_LIMIT_QUADS = 1 << 18


class ScoreCache:
    """Exact scores of parts ⟨i_1, ..., i_k⟩ (``arity`` k, indices in 0..size-1), each asked from ``scorer``
    once (the scorer counts what it scores); ``seconds`` times the scoring.

    ``kind`` names the parts in errors; ``bound_names``: the scorer's factorized bounds, asked for once
    (:meth:`bounds`): (s̄(g,p,·), s̄(·,p,c)) of a :class:`~lpparse.triples.TripleScorer` (eq. 11) by default,
    ``("bound_hm",)`` for a :class:`~lpparse.triples.SiblingScorer`."""

    def __init__(
        self,
        scorer: Any,
        size: int,
        kind: str = "triple",
        bound_names: tuple[str, ...] = ("bound_gp", "bound_pc"),
        arity: int = 3,
    ) -> None:
        self.scorer = scorer
        self.kind = kind
        self.bound_names = bound_names
        self.shape = (size,) * arity
        self.seconds = 0.0
        self._bounds: tuple[NDArray[np.float64], ...] | None = None
        limit = DENSE_LIMIT if arity <= 3 else min(DENSE_LIMIT, DENSE_LIMIT_QUADS)
        self._parts = PartValues(self._score, self.shape, limit)

    @property
    def values(self) -> NDArray[np.float64] | None:
        """The dense array of scores (NaN: not scored yet), or None when the parts are kept sparsely."""
        return self._parts.values

    def bounds(self) -> tuple[NDArray[np.float64], ...]:
        """The scorer's factorized bounds, asked for once."""
        if self._bounds is None:
            start = time.perf_counter()
            self._bounds = tuple(
                np.asarray(getattr(self.scorer, name)(), dtype=np.float64) for name in self.bound_names
            )
            self.seconds += time.perf_counter() - start
        return self._bounds

    def _score(self, *parts: NDArray[np.int64]) -> NDArray[np.float64]:
        start = time.perf_counter()
        fresh = np.asarray(self.scorer.score(*parts), dtype=np.float64)
        self.seconds += time.perf_counter() - start
        check_part_scores(fresh, self.kind)
        return fresh

    def get(self, *parts: NDArray[np.int64]) -> NDArray[np.float64]:
        """Scores of a batch of parts (one index array per position), scoring only those not seen before."""
        return self._parts.get(*parts)
