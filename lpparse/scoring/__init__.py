"""Trained scoring models: feature templates, hashed weights, model files, and the counted lazy scorers
with factorized bounds that implement :class:`lpparse.triples.TripleScorer`,
:class:`lpparse.triples.SiblingScorer` and
:class:`lpparse.families.consecutive.rows.ConsecutiveSiblingScorer`.

This package sits below the algorithms (formulations, parse-price-cut, column generation, BP), which score
through those protocols: it imports none of them. Fitting the weights is :mod:`lpparse.training`, parsing
with a model :mod:`lpparse.parsing`; both sit above the decoders."""

from lpparse.scoring.features import (
    CONSECUTIVE_TEMPLATES,
    FIRST_ORDER_TEMPLATES,
    GRANDPARENT_TEMPLATES,
    SIBLING_TEMPLATES,
    CSibTemplate,
    GPTemplate,
    SibTemplate,
    Vocabulary,
)
from lpparse.scoring.model import (
    BOUNDS,
    MODEL_FORMAT_VERSION,
    ConsecutiveModelScorer,
    GrandparentScorer,
    Model,
    ModelFormatError,
    SentenceScorer,
    SiblingModelScorer,
)

__all__ = [
    "BOUNDS",
    "CONSECUTIVE_TEMPLATES",
    "FIRST_ORDER_TEMPLATES",
    "GRANDPARENT_TEMPLATES",
    "SIBLING_TEMPLATES",
    "MODEL_FORMAT_VERSION",
    "CSibTemplate",
    "ConsecutiveModelScorer",
    "GPTemplate",
    "GrandparentScorer",
    "Model",
    "ModelFormatError",
    "SentenceScorer",
    "SibTemplate",
    "SiblingModelScorer",
    "Vocabulary",
]
