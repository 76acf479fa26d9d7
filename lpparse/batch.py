"""Decoding a batch of another model's scores: padded arrays or per-sentence sequences, any array-like.

A neural parser holds scores as padded tensors: arcs (B, N+1, N+1) with ``lengths`` (B,) and, for second-order
models, grandparent, sibling or consecutive-sibling scores (B, N+1, N+1, N+1), in lpparse's conventions
(``arcs[b, h, m]`` for h→m, ``grandparent[b, g, h, m]``, ``siblings[b, h, m, m']``, ``consecutive[b, h, a,
b']``; index 0 is the root; entries beyond a sentence's length are ignored). :func:`decode_batch` slices each
sentence, decodes it with any registered decoder (:mod:`lpparse.decoding`) and returns one
:class:`BatchResult` per sentence in the batch's order, in this process, on local worker processes or on a
Dask client. Arrays are read through ``numpy.asarray``: numpy arrays, and torch tensors on the CPU (or
anything with ``__array__``), without importing torch.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.decoding import decode, decoder_names
from lpparse.formulations.consecutive import DenseConsecutiveScorer
from lpparse.ppc.consecutive import ConsecutiveSiblingParts
from lpparse.triples import DenseSiblingScorer, DenseTripleScorer
from lpparse.workers import ordered_map

__all__ = ["BatchResult", "decode_batch"]

#: decoders whose tree is optimal for its model when they return (first-order, non-projective)
_EXACT_DP = ("cle",)
_LP = ("ppc", "bf", "auto")


@dataclass(frozen=True)
class BatchResult:
    """One sentence's decoding: ``heads`` (n+1, heads[0] = -1), its ``objective`` (the tree's score under every
    part given), an upper ``bound`` on every tree's score when the decoder proves one (LP value, exact
    search's bound; else None), and ``optimal``: the tree is proved a best tree (exact decoding certified,
    an integral LP optimum, Chu-Liu-Edmonds on arcs alone)."""

    heads: NDArray[np.int64]
    objective: float
    bound: float | None
    optimal: bool
    stats: dict[str, Any]


def _sentences(
    scores: Any, lengths: Sequence[int] | None, what: str, order: int
) -> list[NDArray[np.float64]] | None:
    """Per-sentence arrays of ``order`` indices from a padded array with ``lengths``, or a sequence."""
    if scores is None:
        return None
    if lengths is None:
        if isinstance(scores, np.ndarray) and scores.ndim == order:
            raise ValueError(
                f"{what}: a single sentence's array; give a batch (a sequence, or padded with lengths)"
            )
        out = [np.asarray(x, dtype=np.float64) for x in scores]
    else:
        padded = np.asarray(scores, dtype=np.float64)
        if padded.ndim != order + 1 or padded.shape[0] != len(lengths):
            raise ValueError(
                f"{what}: expected shape (B, N+1{', N+1' * (order - 1)}) for B = {len(lengths)}, got {padded.shape}"
            )
        if max(lengths) + 1 > padded.shape[1]:
            raise ValueError(
                f"{what}: a length of {max(lengths)} needs N+1 >= {max(lengths) + 1}, got {padded.shape[1]}"
            )
        out = [padded[(b, *(slice(0, n + 1),) * order)] for b, n in enumerate(lengths)]
    for b, x in enumerate(out):
        if x.ndim != order or len(set(x.shape)) != 1:
            raise ValueError(f"{what}[{b}]: expected a square array of {order} indices, got shape {x.shape}")
    return out


def _one(payload: tuple[str, bool, dict[str, Any], dict[str, NDArray[np.float64] | None]]) -> BatchResult:
    decoder, single_root, options, arrays = payload
    triples = None if arrays["grandparent"] is None else DenseTripleScorer(arrays["grandparent"])
    siblings = None if arrays["siblings"] is None else DenseSiblingScorer(arrays["siblings"])
    extra = dict(options)
    if arrays["consecutive"] is not None:
        extra["parts"] = [ConsecutiveSiblingParts(DenseConsecutiveScorer(arrays["consecutive"]))]
    result = decode(decoder, arrays["arcs"], triples, single_root, siblings, **extra)
    stats = result.stats
    if decoder == "exact":
        optimal, bound = bool(stats.get("certified")), stats.get("bound")
    elif decoder in _LP:
        optimal, bound = bool(stats.get("integral")), stats.get("lp_objective")
    else:
        order_one = triples is None and siblings is None and arrays["consecutive"] is None
        optimal, bound = decoder in _EXACT_DP and order_one, None
    return BatchResult(
        result.heads, float(result.objective), None if bound is None else float(bound), optimal, stats
    )


def decode_batch(
    arcs: ArrayLike | Sequence[ArrayLike],
    lengths: ArrayLike | None = None,
    *,
    grandparent: ArrayLike | Sequence[ArrayLike] | None = None,
    siblings: ArrayLike | Sequence[ArrayLike] | None = None,
    consecutive: ArrayLike | Sequence[ArrayLike] | None = None,
    decoder: str = "auto",
    single_root: bool = False,
    workers: int = 1,
    client: Any = None,
    **options: Any,
) -> list[BatchResult]:
    """Decode every sentence of a batch (module docstring) with ``decoder`` and its ``options``; results in
    the batch's order. ``lengths``: tokens per sentence of padded arrays (None: the score arguments are
    sequences of per-sentence arrays). ``workers``: local processes (:func:`lpparse.experiments.runner
    .ordered_map`); ``client``: a ``distributed.Client`` to run on instead. Raises ValueError for shapes that
    do not fit, an unknown decoder, or NaN scores (naming the sentence)."""
    if decoder not in decoder_names():
        raise ValueError(f"unknown decoder {decoder!r}; choose from {', '.join(decoder_names())}")
    sizes = None if lengths is None else [int(n) for n in np.asarray(lengths).reshape(-1)]
    if sizes is not None and min(sizes, default=1) < 1:
        raise ValueError(f"lengths must be at least 1, got {min(sizes)}")
    per = {
        "arcs": _sentences(arcs, sizes, "arcs", 2),
        "grandparent": _sentences(grandparent, sizes, "grandparent", 3),
        "siblings": _sentences(siblings, sizes, "siblings", 3),
        "consecutive": _sentences(consecutive, sizes, "consecutive", 3),
    }
    count = len(per["arcs"])  # type: ignore[arg-type]
    for name, arrays in per.items():
        if arrays is None:
            continue
        if len(arrays) != count:
            raise ValueError(f"{name}: {len(arrays)} sentences, arcs have {count}")
        for b, (a, x) in enumerate(zip(per["arcs"], arrays)):  # type: ignore[arg-type]
            if x.shape[0] != a.shape[0]:
                raise ValueError(f"{name}[{b}]: {x.shape[0] - 1} tokens, arcs[{b}] {a.shape[0] - 1}")
            if np.isnan(x).any():
                raise ValueError(f"{name}[{b}]: NaN scores")
    payloads = [
        (
            decoder,
            single_root,
            options,
            {name: None if arrays is None else arrays[b] for name, arrays in per.items()},
        )
        for b in range(count)
    ]
    if client is not None:
        return list(client.gather(client.map(_one, payloads, pure=False)))
    return list(ordered_map(_one, payloads, workers))
