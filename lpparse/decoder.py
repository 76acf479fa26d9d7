"""What a decoder is: its signature, its result, and the table of decoders :func:`register_decoder` fills.

A decoder is ``func(arc_scores, triple_scorer, single_root, **options) -> DecodeResult``; first-order
decoders (``order=1``) ignore ``triple_scorer`` (it may be None), second-order ones (``order=2``) need a
:class:`lpparse.triples.TripleScorer`. A decoder registered with ``siblings=True`` also takes the option
``sibling_scorer`` (a :class:`lpparse.triples.SiblingScorer`), one registered with ``families=True`` the
option ``parts``: any list of part families (:class:`lpparse.families.base.Parts`, e.g. consecutive siblings).

This module sits below the algorithms that define decoders (:mod:`lpparse.bp.decoder`,
:mod:`lpparse.exact.decoder`), which import it to register theirs. The registry that users read,
:mod:`lpparse.decoding`, sits above them: it imports every module that registers decoders, so the table is
complete whenever :func:`lpparse.decoding.get_decoder` can be called.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from lpparse.trees import allowed_arcs
from lpparse.triples import SiblingScorer, TripleScorer, candidate_siblings, candidate_triples

__all__ = [
    "REGISTRY",
    "DecodeResult",
    "Decoder",
    "DecoderFunc",
    "dense_sibling_scores",
    "dense_triple_scores",
    "register_decoder",
]


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
    families: bool = (
        False  #: takes the ``parts`` option: more part families (:class:`lpparse.families.base.Parts`)
    )
    projective: bool = False  #: returns projective trees only (arc pruning then keeps a projective tree)


#: Decoders by name, filled by :func:`register_decoder`; complete once :mod:`lpparse.decoding` is imported
REGISTRY: dict[str, Decoder] = {}


def register_decoder(
    name: str,
    func: DecoderFunc,
    order: int,
    description: str = "",
    siblings: bool = False,
    families: bool = False,
    projective: bool = False,
) -> None:
    """Make ``func`` available as decoder ``name`` (order 1: arc scores only; 2: needs a triple scorer or,
    with ``families``, any part family; ``siblings``: it takes the ``sibling_scorer`` option; ``families``: the
    ``parts`` option, a list of :class:`lpparse.families.base.Parts`; ``projective``: its trees are projective)."""
    if order not in (1, 2):
        raise ValueError(f"decoder order must be 1 or 2, got {order}")
    REGISTRY[name] = Decoder(name, func, order, description, siblings, families, projective)


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
