"""Grandparent triples ⟨g, p, c⟩ (Riedel, Smith & McCallum 2012, "Parse, Price and Cut—Delayed Column and Row
Generation for Graph Based Parsers", EMNLP-CoNLL 2012; Martins, Smith & Xing 2009): the polytope's rows
(:mod:`.rows`), chain cuts (:mod:`.chains`), the family and its parts (:mod:`.family`), pricing
(:mod:`.pricing`), separation (:mod:`.separation`) and arcs kept out of HiGHS (:mod:`.dead_arcs`)."""

from lpparse.families import Family
from lpparse.families.grandparent.family import GrandparentFamily, GrandparentParts
from lpparse.triples import DenseTripleScorer, check_triple_batch


def _parts(scorer: object, rows: object) -> GrandparentParts:
    return GrandparentParts(scorer) if rows is None else GrandparentParts(scorer, tuple(rows))  # type: ignore[arg-type]


#: the grandparent family as lpparse's entry points find it (registered in lpparse's pyproject.toml)
FAMILY = Family("grandparent", 3, "gp", _parts, DenseTripleScorer, check_index=check_triple_batch, rank=10)

__all__ = ["GrandparentFamily", "GrandparentParts"]
