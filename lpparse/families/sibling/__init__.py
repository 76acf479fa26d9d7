"""Arbitrary siblings ⟨h, m, m'⟩ (Martins, Smith & Xing 2009, "Concise Integer Linear Programming Formulations for
Dependency Parsing", ACL-IJCNLP 2009): the polytope's rows (:mod:`.rows`), the triangle and arc-heads cuts
(:mod:`.triangles`, :mod:`.arc_heads`; the cross rows tie siblings to grandparent triples) and the family and
its parts (:mod:`.family`)."""

from lpparse.families.sibling.family import SiblingFamily, SiblingParts

__all__ = ["SiblingFamily", "SiblingParts"]
