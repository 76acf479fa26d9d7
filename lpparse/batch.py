"""Decoding a batch of another model's scores: padded arrays or per-sentence sequences, any array-like.

A neural parser holds scores as padded tensors: arcs (B, N+1, N+1) with ``lengths`` (B,) and, for second-order
models, grandparent, sibling or consecutive-sibling scores (B, N+1, N+1, N+1), in lpparse's conventions
(``arcs[b, h, m]`` for h→m, ``grandparent[b, g, h, m]``, ``siblings[b, h, m, m']``, ``consecutive[b, h, a,
b']``; index 0 is the root; entries beyond a sentence's length are ignored), and the scores of any registered
part family by name (``families``: :func:`lpparse.families.registered`, arrays of (B, N+1, ...) with the
family's arity), or part families made by the caller for each sentence (``parts``: one list a sentence). :func:`decode_batch` slices each
sentence, decodes it with any registered decoder (:mod:`lpparse.decoding`) and returns one
:class:`BatchResult` per sentence in the batch's order, in this process, on local worker processes or on a
Dask client. Arrays are read through ``numpy.asarray``: numpy arrays, and torch tensors on the CPU (or
anything with ``__array__``), without importing torch. A sentence whose scores admit no tree (every head of a
token at -inf, or no single root child under ``single_root``) comes back marked ``failed``; the others are
decoded as usual.
"""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.colgen.options import ENGINE_FIELDS
from lpparse.decoding import decode, decoder_names, get_decoder
from lpparse.families import check_candidate_scores, family_parts, get_family
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.trees import NoTreeError
from lpparse.triples import DenseSiblingScorer, DenseTripleScorer
from lpparse.workers import ordered_map

__all__ = ["BatchResult", "decode_batch", "decoder_options"]

#: decoders whose tree is optimal for its model when they return (first-order, non-projective)
_EXACT_DP = ("cle",)
_LP = ("ppc", "bf", "auto")


@dataclass(frozen=True)
class BatchResult:
    """One sentence's decoding: ``heads`` (n+1, heads[0] = -1), its ``objective`` (the tree's score under every
    part given), an upper ``bound`` on every tree's score when the decoder proves one (LP value, exact
    search's bound; else None), and ``optimal``: the tree is proved a best tree (exact decoding certified,
    an integral LP optimum, Chu-Liu-Edmonds on arcs alone). ``failed``: why the sentence has no tree (its
    scores admit none), None when it has one; a failed result's heads are all -1 and its objective -inf."""

    heads: NDArray[np.int64]
    objective: float
    bound: float | None
    optimal: bool
    stats: dict[str, Any]
    failed: str | None = None

    @property
    def ok(self) -> bool:
        """Whether the sentence was decoded (not :attr:`failed`)."""
        return self.failed is None


#: options that :func:`decode_batch` builds itself from its arguments, never a caller's
_BUILT = frozenset({"parts", "sibling_scorer", "keep"})


def decoder_options(decoder: str) -> frozenset[str] | None:
    """The options ``decoder`` takes (None: unknown, a registered decoder that passes any on): its
    function's keyword parameters and :func:`lpparse.decoding.decode`'s pruning ones; for the decoders of
    part families (LP and exact), also the engine's (:class:`lpparse.colgen.ColgenOptions`), the grandparent
    family's (:class:`lpparse.families.grandparent.family.GrandparentParts`) and the sibling family's."""
    entry = get_decoder(decoder)
    params = list(inspect.signature(entry.func).parameters.values())[3:]  # after scores, triples, root rule
    names = {p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
    names |= {"pruning", "pruner_scores"}
    rest = [p.name for p in params if p.kind is p.VAR_KEYWORD]
    if entry.families:  # the rest goes to the engine and the families
        names |= ENGINE_FIELDS | {f.name for f in fields(GrandparentParts)}
        names |= {"sibling_preset", "lazy_arcsib"}
        names -= {"scorer"}
    elif rest and rest != ["_"]:  # ``**_``: the decoder ignores the rest
        return None
    return frozenset(names - _BUILT)


def _lengths(lengths: ArrayLike) -> list[int]:
    """Whole, positive token counts, one per sentence (ValueError naming the first that is not)."""
    values = np.asarray(lengths)
    if values.ndim != 1 or values.dtype.kind not in "iuf":
        raise ValueError(f"lengths: expected a 1-d sequence of token counts, got {values!r}")
    for b, n in enumerate(values.tolist()):
        if not (np.isfinite(n) and n == int(n)) or n < 1:
            raise ValueError(f"lengths[{b}]: expected a whole number of tokens >= 1, got {n!r}")
    return [int(n) for n in values.tolist()]


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
        if lengths and max(lengths) + 1 > padded.shape[1]:
            raise ValueError(
                f"{what}: a length of {max(lengths)} needs N+1 >= {max(lengths) + 1}, got {padded.shape[1]}"
            )
        out = [padded[(b, *(slice(0, n + 1),) * order)] for b, n in enumerate(lengths)]
    for b, x in enumerate(out):
        if x.ndim != order or len(set(x.shape)) != 1:
            raise ValueError(f"{what}[{b}]: expected a square array of {order} indices, got shape {x.shape}")
    return out


@dataclass(frozen=True)
class _Sentence:
    """What decoding one sentence of the batch needs: the decoder, root rule and options, the arrays by
    argument name, the registered families' arrays by family name, and the caller's part families."""

    decoder: str
    single_root: bool
    options: dict[str, Any]
    arrays: dict[str, NDArray[np.float64] | None]
    families: dict[str, NDArray[np.float64]]
    parts: tuple[Any, ...]

    def part_families(self) -> list[Any]:
        """The registered families, consecutive siblings among them (after the families they need), then the
        caller's."""
        arrays = dict(self.families)
        if self.arrays["consecutive"] is not None:
            arrays["consecutive"] = self.arrays["consecutive"]
        scorers = {name: get_family(name).dense(x) for name, x in arrays.items()}
        n = self.arrays["arcs"].shape[0] - 1  # type: ignore[union-attr]
        return (family_parts(scorers, n) if scorers else []) + list(self.parts)


def _one(job: _Sentence) -> BatchResult:
    """One sentence's :class:`BatchResult` (marked ``failed`` when its scores admit no tree)."""
    decoder, single_root, options, arrays = job.decoder, job.single_root, job.options, job.arrays
    triples = None if arrays["grandparent"] is None else DenseTripleScorer(arrays["grandparent"])
    siblings = None if arrays["siblings"] is None else DenseSiblingScorer(arrays["siblings"])
    extra = dict(options)
    families = job.part_families()
    if families:
        extra["parts"] = families
    try:
        result = decode(decoder, arrays["arcs"], triples, single_root, siblings, **extra)
    except NoTreeError as err:
        n = arrays["arcs"].shape[0]  # type: ignore[union-attr]
        return BatchResult(np.full(n, -1, dtype=np.int64), -np.inf, None, False, {}, str(err))
    stats = result.stats
    if decoder == "exact":
        optimal, bound = bool(stats.get("certified")), stats.get("bound")
    elif decoder in _LP:
        optimal, bound = bool(stats.get("integral")), stats.get("lp_objective")
    else:
        order_one = triples is None and siblings is None and not families
        optimal, bound = decoder in _EXACT_DP and order_one, None
    return BatchResult(
        result.heads, float(result.objective), None if bound is None else float(bound), optimal, stats
    )


def decode_batch(  # long: keywords by array, as a neural parser holds its scores (module docstring)
    arcs: ArrayLike | Sequence[ArrayLike],
    lengths: ArrayLike | None = None,
    *,
    grandparent: ArrayLike | Sequence[ArrayLike] | None = None,
    siblings: ArrayLike | Sequence[ArrayLike] | None = None,
    consecutive: ArrayLike | Sequence[ArrayLike] | None = None,
    families: Mapping[str, ArrayLike | Sequence[ArrayLike]] | None = None,
    parts: Sequence[Sequence[Any]] | None = None,
    decoder: str = "auto",
    single_root: bool = False,
    workers: int = 1,
    client: Any = None,
    **options: Any,
) -> list[BatchResult]:
    """Decode every sentence of a batch (module docstring) with ``decoder`` and its ``options``
    (:func:`decoder_options`); results in the batch's order, an empty batch giving an empty list. A sentence
    whose scores admit no tree gets a result marked ``failed`` (:class:`BatchResult`) and the others are
    decoded. ``lengths``: whole tokens per sentence of padded arrays, each >= 1 (None: the score arguments
    are sequences of per-sentence arrays). ``families``: scores of registered part families by name, batched as
    the others; ``parts``: the caller's part families (:class:`lpparse.families.base.Parts`), one list per
    sentence, decoded after the others (the decoder must take part families: ``ppc``, ``bf``, ``auto``,
    ``exact``). ``workers``: local processes, at least 1
    (:func:`lpparse.workers.ordered_map`); ``client``: a ``distributed.Client`` to run on instead. Raises
    ValueError for shapes or lengths that do not fit, an unknown decoder or option, a worker count below 1,
    or NaN scores (naming the sentence), an unregistered family, or parts for a decoder that takes none."""
    _check_call(decoder, options, workers)
    sizes = None if lengths is None else _lengths(lengths)
    per = {
        "arcs": _sentences(arcs, sizes, "arcs", 2),
        "grandparent": _sentences(grandparent, sizes, "grandparent", 3),
        "siblings": _sentences(siblings, sizes, "siblings", 3),
        "consecutive": _sentences(consecutive, sizes, "consecutive", 3),
    }
    more = {name: _family_arrays(name, x, sizes) for name, x in (families or {}).items()}
    if (more or parts) and not get_decoder(decoder).families:
        raise ValueError(f"decoder {decoder!r} takes no part families; use one of ppc, bf, auto, exact")
    count = len(per["arcs"])  # type: ignore[arg-type]
    if parts is not None and len(parts) != count:
        raise ValueError(f"parts: {len(parts)} lists of part families, arcs have {count} sentences")
    _check_arrays(per["arcs"], {**per, **more})  # type: ignore[arg-type]
    jobs = [
        _Sentence(
            decoder,
            single_root,
            options,
            {name: None if arrays is None else arrays[b] for name, arrays in per.items()},
            {name: arrays[b] for name, arrays in more.items()},
            tuple(parts[b]) if parts is not None else (),
        )
        for b in range(count)
    ]
    return list(ordered_map(_one, jobs, workers, scheduler=client))


def _check_call(decoder: str, options: dict[str, Any], workers: Any) -> None:
    """ValueError for an unknown decoder, an option it does not take, or a worker count below 1."""
    if decoder not in decoder_names():
        raise ValueError(f"unknown decoder {decoder!r}; choose from {', '.join(decoder_names())}")
    takes = decoder_options(decoder)
    if takes is not None and set(options) - takes:
        unknown = ", ".join(map(repr, sorted(set(options) - takes)))
        known = ", ".join(sorted(takes))
        raise ValueError(f"decoder {decoder!r} has no option {unknown}; its options: {known}")
    if isinstance(workers, bool) or not isinstance(workers, numbers.Integral) or workers < 1:
        raise ValueError(f"workers: expected a whole number of processes >= 1, got {workers!r}")


def _check_arrays(
    arcs: list[NDArray[np.float64]], arrays: Mapping[str, list[NDArray[np.float64]] | None]
) -> None:
    """ValueError unless every argument's arrays are as many as the arcs', of their sentences' sizes,
    without NaN (naming the argument and the sentence)."""
    for name, found in arrays.items():
        if found is None:
            continue
        if len(found) != len(arcs):
            raise ValueError(f"{name}: {len(found)} sentences, arcs have {len(arcs)}")
        for b, (a, x) in enumerate(zip(arcs, found)):
            if x.shape[0] != a.shape[0]:
                raise ValueError(f"{name}[{b}]: {x.shape[0] - 1} tokens, arcs[{b}] {a.shape[0] - 1}")
            if np.isnan(x).any():
                raise ValueError(f"{name}[{b}]: NaN scores")


def _family_arrays(name: str, scores: Any, sizes: Sequence[int] | None) -> list[NDArray[np.float64]]:
    """A registered family's per-sentence arrays (ValueError for a family that is not registered, or for a
    candidate part scored NaN or +inf, naming the sentence)."""
    family = get_family(name)
    arrays = _sentences(scores, sizes, name, family.arity)
    assert arrays is not None
    for b, x in enumerate(arrays):
        try:
            check_candidate_scores(name, family.dense(x), x.shape[0] - 1)
        except ValueError as err:
            raise ValueError(f"{name}[{b}]: {err}") from None
    return arrays
