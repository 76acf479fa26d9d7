"""Arbitrary siblings ⟨h, m, m'⟩ (Martins, Smith & Xing 2009, "Concise Integer Linear Programming Formulations for
Dependency Parsing", ACL-IJCNLP 2009): the polytope's rows (:mod:`.rows`), the triangle and arc-heads cuts
(:mod:`.triangles`, :mod:`.arc_heads`; the cross rows tie siblings to grandparent triples) and the family and
its parts (:mod:`.family`)."""

from lpparse.families import Family
from lpparse.families.sibling.family import SiblingFamily, SiblingParts
from lpparse.triples import DenseSiblingScorer, check_sibling_batch


def _parts(scorer: object, rows: object) -> SiblingParts:
    return SiblingParts(scorer) if rows is None else SiblingParts(scorer, tuple(rows))  # type: ignore[arg-type]


#: the sibling family as lpparse's entry points find it (registered in lpparse's pyproject.toml)
FAMILY = Family("sibling", 3, "sib", _parts, DenseSiblingScorer, check_index=check_sibling_batch, rank=11)

__all__ = ["SiblingFamily", "SiblingParts"]
