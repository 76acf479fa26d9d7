"""Trained scoring models: feature templates, hashed weights, lazy triple scoring, factorized bounds, training."""

from lpparse.models.features import (
    FIRST_ORDER_TEMPLATES,
    GRANDPARENT_TEMPLATES,
    SIBLING_TEMPLATES,
    GPTemplate,
    SibTemplate,
    Vocabulary,
)
from lpparse.models.model import (
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
