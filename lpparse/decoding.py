"""Decoder registry: every way lpparse turns a model's scores for one sentence into a tree.

A decoder is ``func(arc_scores, triple_scorer, single_root, **options) -> DecodeResult``; first-order
decoders (``order=1``) ignore ``triple_scorer`` (it may be None), second-order ones (``order=2``) need a
:class:`lpparse.triples.TripleScorer`. A decoder registered with ``siblings=True`` also takes the option
``sibling_scorer`` (a :class:`lpparse.triples.SiblingScorer`), which :func:`decode` passes to it alone:
other decoders decode without the sibling parts, as first-order decoders do without triples. Built in:

* ``cle``: Chu-Liu-Edmonds, the best non-projective tree under the arc scores;
* ``eisner``: Eisner's algorithm, the best projective tree;
* ``mbr``: minimum Bayes risk, the tree of maximum expected recall Σ μ_{h,m} under the model's arc marginals
  (Gormley et al. 2015 eq. 3; option ``projective``: inside-outside marginals and Eisner, else matrix-tree
  marginals and Chu-Liu-Edmonds);
* ``gp-eisner``: exact projective grandparent decoding, O(n^4), scoring every candidate triple.

Other modules register their decoders with :func:`register_decoder` when imported; a module that does
so is added to ``_PLUGINS`` below, which :func:`get_decoder` and :func:`decoder_names` import on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from lpparse.oracles import arc_marginals, chu_liu_edmonds, eisner, projective_marginals
from lpparse.oracles.grandparent_eisner import grandparent_eisner
from lpparse.pruning import ArcPruning, prune_arcs
from lpparse.trees import allowed_arcs, tree_score
from lpparse.triples import SiblingScorer, TripleScorer, candidate_siblings, candidate_triples

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

#: Modules that register decoders when imported (``lpparse.ppc.decoder`` etc. add their line here).
_PLUGINS: tuple[str, ...] = ("lpparse.bp.decoder", "lpparse.ppc.decoder")


@dataclass
class DecodeResult:
    """A decoded tree: heads (heads[0] = -1), its objective (arc plus triple scores), decoder statistics."""

    heads: NDArray[np.int64]
    objective: float
    stats: dict[str, Any] = field(default_factory=dict)
    #: the arcs left to the decoder by arc pruning (:mod:`lpparse.pruning`); None when nothing was pruned
    kept_arcs: NDArray[np.bool_] | None = None


class DecoderFunc(Protocol):
    def __call__(
        self,
        arc_scores: NDArray[np.float64],
        triple_scorer: TripleScorer | None,
        single_root: bool,
        **options: Any,
    ) -> DecodeResult: ...


@dataclass(frozen=True)
class Decoder:
    name: str
    func: DecoderFunc
    order: int
    description: str = ""
    siblings: bool = False  #: takes the ``sibling_scorer`` option


_REGISTRY: dict[str, Decoder] = {}
_plugins_loaded = False


def register_decoder(
    name: str, func: DecoderFunc, order: int, description: str = "", siblings: bool = False
) -> None:
    """Make ``func`` available as decoder ``name`` (order 1: arc scores only; 2: needs a triple scorer;
    ``siblings``: it takes the ``sibling_scorer`` option)."""
    if order not in (1, 2):
        raise ValueError(f"decoder order must be 1 or 2, got {order}")
    _REGISTRY[name] = Decoder(name, func, order, description, siblings)


def _load_plugins() -> None:
    global _plugins_loaded
    if not _plugins_loaded:
        _plugins_loaded = True
        for module in _PLUGINS:
            importlib.import_module(module)


def get_decoder(name: str) -> Decoder:
    _load_plugins()
    if name not in _REGISTRY:
        raise ValueError(f"unknown decoder {name!r}; choose from {', '.join(decoder_names())}")
    return _REGISTRY[name]


def decoder_names(max_order: int = 2) -> list[str]:
    """Registered decoders usable with a model of order ``max_order``, sorted."""
    _load_plugins()
    return sorted(name for name, d in _REGISTRY.items() if d.order <= max_order)


def decode(
    name: str,
    arc_scores: NDArray[np.float64],
    triple_scorer: TripleScorer | None = None,
    single_root: bool = False,
    sibling_scorer: SiblingScorer | None = None,
    pruning: ArcPruning | None = None,
    pruner_scores: NDArray[np.float64] | None = None,
    **options: Any,
) -> DecodeResult:
    """Run decoder ``name``; second-order decoders need ``triple_scorer``; ``sibling_scorer`` goes to the
    decoders that take it (module docstring). With ``pruning``, the decoder sees only the arcs that survive it
    under the first-order posteriors of ``pruner_scores`` (default: ``arc_scores``; :func:`prune_arcs`), and
    so only the parts over those arcs; the result's ``kept_arcs`` and its ``arcs_kept`` statistic (the
    fraction of candidate arcs kept) say what was left."""
    decoder = get_decoder(name)
    if decoder.order == 2 and triple_scorer is None:
        raise ValueError(f"decoder {name!r} is second-order and needs a grandparent model")
    if sibling_scorer is not None and decoder.siblings:
        options["sibling_scorer"] = sibling_scorer
    if pruning is None:
        return decoder.func(arc_scores, triple_scorer, single_root, **options)
    pruned, kept = prune_arcs(arc_scores, pruning, single_root, pruner_scores)
    result = decoder.func(pruned, triple_scorer, single_root, **options)
    result.kept_arcs = allowed_arcs(pruned)
    result.stats["arcs_kept"] = kept
    return result


def _dense(
    size: int,
    parts: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]],
    scorer: TripleScorer | SiblingScorer,
) -> NDArray[np.float64]:
    table = np.zeros((size, size, size))
    table[parts] = scorer.score(*parts)
    return table


def dense_triple_scores(arc_scores: NDArray[np.float64], scorer: TripleScorer) -> NDArray[np.float64]:
    """(n+1,)*3 array of every candidate triple's score (all counted by ``scorer``), 0 elsewhere."""
    return _dense(arc_scores.shape[0], candidate_triples(allowed_arcs(arc_scores)), scorer)


def dense_sibling_scores(
    arc_scores: NDArray[np.float64], scorer: SiblingScorer, single_root: bool
) -> NDArray[np.float64]:
    """(n+1,)*3 array of every candidate sibling part's score (all counted by ``scorer``), 0 elsewhere."""
    return _dense(arc_scores.shape[0], candidate_siblings(allowed_arcs(arc_scores), single_root), scorer)


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
    "eisner", _first_order(lambda s, r: eisner(s, single_root=r)), 1, "Eisner: best projective tree"
)
register_decoder("mbr", _mbr, 1, "max expected recall under arc marginals (option projective)")
register_decoder("gp-eisner", _gp_eisner, 2, "exact projective grandparent decoding, O(n^4)")
