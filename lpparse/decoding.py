"""Decoder registry: every way lpparse turns a model's scores for one sentence into a tree.

A decoder (its signature and result: :mod:`lpparse.decoder`) has an order: first-order decoders ignore the
triple scorer, second-order ones need one. :func:`decode` passes a sibling scorer to the decoders
registered with ``siblings=True`` alone: other decoders decode without the sibling parts, as first-order
decoders do without triples. Built in:

* ``cle``: Chu-Liu-Edmonds, the best non-projective tree under the arc scores;
* ``eisner``: Eisner's algorithm, the best projective tree;
* ``mbr``: minimum Bayes risk, the tree of maximum expected recall Σ μ_{h,m} under the model's arc marginals
  (Gormley et al. 2015 eq. 3; option ``projective``: inside-outside marginals and Eisner, else matrix-tree
  marginals and Chu-Liu-Edmonds);
* ``gp-eisner``: exact projective grandparent decoding, O(n^4), scoring every candidate triple.

The other decoders are defined by the algorithms (``bp``: :mod:`lpparse.bp.decoder`; ``ppc``, ``bf``,
``auto``, ``exact``: :mod:`lpparse.exact.decoder`); each of those modules registers its own with
:func:`lpparse.decoder.register_decoder` and imports only :mod:`lpparse.decoder` (types and table), below
it. This module imports them explicitly, so every decoder is registered once it is imported; a new decoder
module is added to those imports. Users may register more decoders with :func:`register_decoder`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

import lpparse.bp.decoder  # noqa: F401  registers bp
import lpparse.exact.decoder  # noqa: F401  registers ppc, bf, auto, exact
from lpparse.decoder import (
    REGISTRY,
    Decoder,
    DecodeResult,
    DecoderFunc,
    dense_sibling_scores,
    dense_triple_scores,
    register_decoder,
)
from lpparse.oracles import arc_marginals, chu_liu_edmonds, eisner, projective_marginals
from lpparse.oracles.grandparent_eisner import grandparent_eisner
from lpparse.pruning import ArcPruning, apply_pruning, keep_mask, kept_fraction
from lpparse.trees import allowed_arcs, tree_score
from lpparse.triples import SiblingScorer, TripleScorer

__all__ = [
    "DecodeResult",
    "Decoder",
    "decode",
    "decoder_names",
    "dense_sibling_scores",
    "dense_triple_scores",
    "get_decoder",
    "register_decoder",
]


def get_decoder(name: str) -> Decoder:
    if name not in REGISTRY:
        raise ValueError(f"unknown decoder {name!r}; choose from {', '.join(decoder_names())}")
    return REGISTRY[name]


def decoder_names(max_order: int = 2) -> list[str]:
    """Registered decoders usable with a model of order ``max_order``, sorted."""
    return sorted(name for name, d in REGISTRY.items() if d.order <= max_order)


def decode(  # long: the scores a decoder takes (arcs, triples, siblings, other families), the pruning
    name: str,
    arc_scores: NDArray[np.float64],
    triple_scorer: TripleScorer | None = None,
    single_root: bool = False,
    sibling_scorer: SiblingScorer | None = None,
    pruning: ArcPruning | None = None,
    pruner_scores: NDArray[np.float64] | None = None,
    parts: Sequence[Any] = (),
    keep: NDArray[np.bool_] | None = None,
    **options: Any,
) -> DecodeResult:
    """Run decoder ``name``; second-order decoders need ``triple_scorer`` (or, for the decoders that take part
    families, some families in ``parts``: :class:`lpparse.families.base.Parts`); ``sibling_scorer`` goes to the
    decoders that take it (module docstring), ``parts`` to those that take families (any other decoder
    refuses them: it would ignore them). With ``pruning``, the decoder sees only the arcs that survive it
    under the first-order posteriors of ``pruner_scores`` (default: ``arc_scores``; :func:`prune_arcs`), and
    so only the parts over those arcs; the result's ``kept_arcs`` and its ``arcs_kept`` statistic (the
    fraction of candidate arcs kept) say what was left. ``keep``: that pruning's mask, computed beforehand
    by :func:`pruning_keep` (to score only the arcs it keeps), so that it is not computed twice."""
    decoder = get_decoder(name)
    if parts and not decoder.families:
        names = ", ".join(sorted({p.name for p in parts}))
        takes = ", ".join(sorted(n for n, d in REGISTRY.items() if d.families))
        raise ValueError(f"decoder {name!r} cannot decode {names} parts; decoders that can: {takes}")
    if decoder.order == 2 and triple_scorer is None and not parts:
        raise ValueError(f"decoder {name!r} is second-order and needs a grandparent model")
    if sibling_scorer is not None and decoder.siblings:
        options["sibling_scorer"] = sibling_scorer
    if parts:
        options["parts"] = list(parts)
    if pruning is None:
        return decoder.func(arc_scores, triple_scorer, single_root, **options)
    if keep is None:
        keep = pruning_keep(name, arc_scores, pruning, single_root, pruner_scores, options)
    pruned = apply_pruning(arc_scores, keep)
    result = decoder.func(pruned, triple_scorer, single_root, **options)
    result.kept_arcs = allowed_arcs(pruned)
    # the candidates: the arcs the pruner scores (the arc scores may be those of the kept arcs alone)
    candidates = allowed_arcs(arc_scores if pruner_scores is None else pruner_scores)
    result.stats["arcs_kept"] = kept_fraction(result.kept_arcs, candidates)
    return result


def pruning_keep(
    name: str,
    arc_scores: NDArray[np.float64],
    pruning: ArcPruning,
    single_root: bool,
    pruner_scores: NDArray[np.float64] | None = None,
    options: dict[str, Any] | None = None,
) -> NDArray[np.bool_]:
    """The arcs that ``pruning`` keeps for decoder ``name`` (with its ``options``: a projective decoder
    keeps a projective tree) under the posteriors of ``pruner_scores`` (default: ``arc_scores``), over the
    arcs present in ``arc_scores``: :func:`lpparse.pruning.keep_mask`."""
    projective = get_decoder(name).projective or bool((options or {}).get("projective"))
    return keep_mask(arc_scores, pruning, single_root, pruner_scores, projective)


def _first_order(solve: Callable[[NDArray[np.float64], bool], NDArray[np.int64]]) -> DecoderFunc:
    def run(
        arc_scores: NDArray[np.float64], triple_scorer: TripleScorer | None, single_root: bool
    ) -> DecodeResult:
        heads = solve(arc_scores, single_root)
        return DecodeResult(heads, tree_score(arc_scores, heads))

    return run


def _mbr(
    arc_scores: NDArray[np.float64],
    triple_scorer: TripleScorer | None,
    single_root: bool,
    projective: bool = False,
) -> DecodeResult:
    marginals, solve = (projective_marginals, eisner) if projective else (arc_marginals, chu_liu_edmonds)
    mu = marginals(arc_scores, single_root=single_root)
    heads = solve(np.where(np.isfinite(arc_scores), mu, -np.inf), single_root=single_root)
    return DecodeResult(
        heads,
        tree_score(arc_scores, heads),
        {"expected_recall": float(mu[heads[1:], np.arange(1, heads.size)].sum())},
    )


def _gp_eisner(
    arc_scores: NDArray[np.float64], triple_scorer: TripleScorer | None, single_root: bool
) -> DecodeResult:
    assert triple_scorer is not None
    before = triple_scorer.scored
    heads, value = grandparent_eisner(arc_scores, dense_triple_scores(arc_scores, triple_scorer), single_root)
    return DecodeResult(heads, value, {"triples_scored": triple_scorer.scored - before})


register_decoder(
    "cle",
    _first_order(lambda s, r: chu_liu_edmonds(s, single_root=r)),
    1,
    "Chu-Liu-Edmonds: best non-projective tree",
)
register_decoder(
    "eisner",
    _first_order(lambda s, r: eisner(s, single_root=r)),
    1,
    "Eisner: best projective tree",
    projective=True,
)
register_decoder("mbr", _mbr, 1, "max expected recall under arc marginals (option projective)")
register_decoder("gp-eisner", _gp_eisner, 2, "exact projective grandparent decoding, O(n^4)", projective=True)
