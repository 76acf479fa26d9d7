"""Consecutive siblings ⟨h, a, b⟩ as a head automaton over windows (Koo & Collins 2010, "Efficient Third-Order
Dependency Parsers", ACL 2010; Martins, Almeida & Smith 2013): rows (:mod:`.rows`) and the family and its
parts (:mod:`.family`)."""

from lpparse.families.consecutive.family import ConsecutiveSiblingFamily, ConsecutiveSiblingParts

__all__ = ["ConsecutiveSiblingFamily", "ConsecutiveSiblingParts"]
