"""Parsing treebanks with a model: features, scores and a registered decoder per sentence, and UAS."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from tqdm import tqdm

from lpparse.corpus import UAS, Sentence, corpus_uas
from lpparse.decoding import DecodeResult, decode
from lpparse.models.model import Model

__all__ = ["default_decoder", "evaluate", "parse"]


def default_decoder(model: Model, projective: bool = False) -> str:
    """``bp`` for models with sibling parts (no exact fast decoder takes them), ``gp-eisner`` for grandparent
    models; ``eisner`` or ``cle`` for first-order ones."""
    if model.siblings:
        return "bp"
    if model.order == 2:
        return "gp-eisner"
    return "eisner" if projective else "cle"


def parse(
    model: Model,
    sentences: Sequence[Sentence],
    decoder: str | None = None,
    progress: bool = False,
    bounds: str = "sentence",
    **options: Any,
) -> list[DecodeResult]:
    """Decode every sentence with ``decoder`` (default :func:`default_decoder`) under the model's root rule;
    ``bounds``: the triple scorer's factorized bounds (:data:`lpparse.models.model.BOUNDS`). A model's
    sibling parts go to the decoders that take them (:func:`lpparse.decoding.decode`)."""
    name = decoder or default_decoder(model)
    out = []
    for s in tqdm(sentences, desc=f"parsing ({name})", unit="sent", disable=not progress, leave=False):
        scorer = model.scorer(s)
        triples = scorer.triples(bounds) if model.order == 2 else None
        siblings = scorer.siblings() if model.siblings else None
        out.append(decode(name, scorer.arc_scores(), triples, model.single_root, siblings, **options))
    return out


def evaluate(
    model: Model,
    sentences: Sequence[Sentence],
    decoder: str | None = None,
    progress: bool = False,
    **options: Any,
) -> UAS:
    """UAS of the decoded trees against the gold heads (``options`` go to the decoder)."""
    return corpus_uas(sentences, [r.heads for r in parse(model, sentences, decoder, progress, **options)])
