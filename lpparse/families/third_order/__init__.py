"""Third-order parts on the consecutive-sibling windows (Martins, Almeida & Smith 2013, "Turning on the Turbo:
Fast Third-Order Non-Projective Turbo Parsers", ACL 2013): grand-siblings (:mod:`.grandsibling`, their links to
grandparent triples :mod:`.grandsibling_links`) and tri-siblings (:mod:`.trisibling`), the window programs they
share (:mod:`.windows`) and their families and parts (:mod:`.family`)."""

from lpparse.families.third_order.family import (
    GrandSiblingFamily,
    GrandSiblingParts,
    TriSiblingFamily,
    TriSiblingParts,
    window_parts,
)

__all__ = ["GrandSiblingFamily", "GrandSiblingParts", "TriSiblingFamily", "TriSiblingParts", "window_parts"]
