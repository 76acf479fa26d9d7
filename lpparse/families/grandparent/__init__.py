"""Grandparent triples ⟨g, p, c⟩ (Riedel, Smith & McCallum 2012, "Parse, Price and Cut—Delayed Column and Row
Generation for Graph Based Parsers", EMNLP-CoNLL 2012; Martins, Smith & Xing 2009): the polytope's rows
(:mod:`.rows`), chain cuts (:mod:`.chains`), the family and its parts (:mod:`.family`), pricing
(:mod:`.pricing`), separation (:mod:`.separation`) and arcs kept out of HiGHS (:mod:`.dead_arcs`)."""

from lpparse.families.grandparent.family import GrandparentFamily, GrandparentParts

__all__ = ["GrandparentFamily", "GrandparentParts"]
