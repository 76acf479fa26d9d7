"""Third-order parts on the consecutive-sibling windows (Martins, Almeida & Smith 2013, "Turning on the Turbo:
Fast Third-Order Non-Projective Turbo Parsers", ACL 2013): grand-siblings (:mod:`.grandsibling`, their links to
grandparent triples :mod:`.grandsibling_links`) and tri-siblings (:mod:`.trisibling`), the window programs they
share (:mod:`.windows`) and their families and parts (:mod:`.family`)."""

from lpparse.families import Family
from lpparse.families.third_order.family import (
    GrandSiblingFamily,
    GrandSiblingParts,
    TriSiblingFamily,
    TriSiblingParts,
    window_parts,
)
from lpparse.families.third_order.grandsibling import DenseGrandSiblingScorer, SparseGrandSiblingScorer
from lpparse.families.third_order.trisibling import DenseTriSiblingScorer, SparseTriSiblingScorer
from lpparse.triples import check_gsib_batch, check_tsib_batch

#: tri-siblings and grand-siblings as lpparse's entry points find them (registered in lpparse's
#: pyproject.toml): both on the consecutive-sibling windows
TRISIBLING = Family(
    "trisibling",
    4,
    "tsib",
    lambda scorer, rows: TriSiblingParts(scorer),
    DenseTriSiblingScorer,
    SparseTriSiblingScorer,
    check_tsib_batch,
    needs=("consecutive",),
    rank=21,
)
GRANDSIBLING = Family(
    "grandsibling",
    4,
    "gsib",
    lambda scorer, rows: GrandSiblingParts(scorer),
    DenseGrandSiblingScorer,
    SparseGrandSiblingScorer,
    check_gsib_batch,
    needs=("consecutive",),
    rank=22,
)

__all__ = ["GrandSiblingFamily", "GrandSiblingParts", "TriSiblingFamily", "TriSiblingParts", "window_parts"]
