"""Trained scoring models: feature templates, hashed weights, model files, and the counted lazy scorers
with factorized bounds that implement :class:`lpparse.triples.TripleScorer` and
:class:`lpparse.triples.SiblingScorer`.

This package sits below the algorithms (formulations, parse-price-cut, column generation, BP), which score
through those protocols: it imports none of them. Fitting the weights is :mod:`lpparse.training`, parsing
with a model :mod:`lpparse.parsing`; both sit above the decoders."""

from lpparse.scoring.features import (
    FIRST_ORDER_TEMPLATES,
    GRANDPARENT_TEMPLATES,
    SIBLING_TEMPLATES,
    GPTemplate,
    SibTemplate,
    Vocabulary,
)
from lpparse.scoring.model import (
    BOUNDS,
    MODEL_FORMAT_VERSION,
    GrandparentScorer,
    Model,
    ModelFormatError,
    SentenceScorer,
    SiblingModelScorer,
)

__all__ = [
    "BOUNDS",
    "FIRST_ORDER_TEMPLATES",
    "GRANDPARENT_TEMPLATES",
    "SIBLING_TEMPLATES",
    "MODEL_FORMAT_VERSION",
    "GPTemplate",
    "GrandparentScorer",
    "Model",
    "ModelFormatError",
    "SentenceScorer",
    "SibTemplate",
    "SiblingModelScorer",
    "Vocabulary",
]
