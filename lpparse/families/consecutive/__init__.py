"""Consecutive siblings ⟨h, a, b⟩ as a head automaton over windows (Koo & Collins 2010, "Efficient Third-Order
Dependency Parsers", ACL 2010; Martins, Almeida & Smith 2013): rows (:mod:`.rows`) and the family and its
parts (:mod:`.family`)."""

import numpy as np

from lpparse.families import Family
from lpparse.families.consecutive.family import ConsecutiveSiblingFamily, ConsecutiveSiblingParts
from lpparse.families.consecutive.rows import DenseConsecutiveScorer
from lpparse.triples import check_csib_batch


def _zeros(n: int) -> DenseConsecutiveScorer:
    """Window scores of zero: the windows tri- and grand-siblings are built on, when only they are scored."""
    return DenseConsecutiveScorer(np.zeros((n + 1,) * 3))


#: the consecutive-sibling family as lpparse's entry points find it (registered in lpparse's pyproject.toml)
FAMILY = Family(
    "consecutive",
    3,
    "csib",
    lambda scorer, rows: ConsecutiveSiblingParts(scorer),
    DenseConsecutiveScorer,
    check_index=check_csib_batch,
    neutral=_zeros,
    rank=20,
)

__all__ = ["ConsecutiveSiblingFamily", "ConsecutiveSiblingParts"]
