"""Which LP relaxations to compare, by name, and the order their bounds must come in.

A relaxation is the sentence's part families with each family's row families (its preset), an arborescence
program under them (its base) and, optionally, the cuts that exact decoding separates on top
(:func:`lpparse.families.base.exact_parts`: GPChain over grandparent triples, SibTriangle and GPSibArc over
siblings, GSibGP over grand-siblings). Its name lists what differs from the families' defaults, ``+``-joined:

* ``FAMILY:PRESET``: ``grandparent:all|martins|onegp`` (Riedel, Smith & McCallum 2012, "Parse, Price and
  Cut", EMNLP-CoNLL 2012, §3.2; ``martins``: Martins, Smith & Xing 2009, "Concise Integer Linear Programming
  Formulations for Dependency Parsing", ACL-IJCNLP 2009), ``sibling:martins|all|triangles``
  (:mod:`lpparse.families.sibling.rows`);
* ``base:single-flow|multi-flow|cycle-cuts`` (:mod:`lpparse.formulations.arborescence`; default single-flow);
* ``cuts``: the families as exact decoding uses them, with their cuts separated.

So ``grandparent:martins+base:multi-flow`` is Martins et al.'s grandparent rows on the multi-commodity flow,
every other family at its default. The bounds of two relaxations are ordered when one has, family by family,
every row family of the other (closed under the implications :data:`IMPLIED`), a base at least as tight and
the cuts if the other has them: then its LP is the other's with more rows, and its optimum is no larger.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from lpparse.families.base import Parts, exact_parts
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.families.grandparent.rows import BASES, PRESETS, SEPARATED_BASES
from lpparse.families.sibling.family import SiblingParts
from lpparse.families.sibling.rows import SIBLING_PRESETS

__all__ = [
    "BASE_ORDER",
    "IMPLIED",
    "Relaxation",
    "default_relaxations",
    "family_presets",
    "order_claims",
    "parse_relaxation",
]

#: The named presets of each family with row-family presets
FAMILY_PRESETS: dict[str, dict[str, tuple[str, ...]]] = {
    GrandparentParts.name: PRESETS,
    SiblingParts.name: SIBLING_PRESETS,
}
#: Row families that others imply, by family: (the implying ones, the implied one). Grandparents: GPArc summed
#: over c gives NoGP; OneGP and GPArc with OneHead give ArcGP (:mod:`lpparse.families.grandparent.rows`)
IMPLIED: dict[str, tuple[tuple[frozenset[str], str], ...]] = {
    GrandparentParts.name: ((frozenset({"GPArc"}), "NoGP"), (frozenset({"GPArc", "OneGP"}), "ArcGP")),
}
#: Bases at least as tight as another: (tighter, looser). Multi-flow and cycle cuts both project onto the
#: arborescence polytope, so their pairs go both ways (equal bounds under the same families)
BASE_ORDER = frozenset(
    {
        ("multi-flow", "single-flow"),
        ("cycle-cuts", "single-flow"),
        ("multi-flow", "cycle-cuts"),
        ("cycle-cuts", "multi-flow"),
    }
)
BASE_KEY, CUTS_KEY = "base", "cuts"


@dataclass(frozen=True)
class Relaxation:
    """One relaxation (module docstring): ``presets`` by family name (the others at the families' own),
    ``base`` and ``cuts``; ``name`` as given or as :func:`parse_relaxation` canonicalizes it."""

    name: str
    presets: tuple[tuple[str, str], ...] = ()
    base: str = "single-flow"
    cuts: bool = False

    def parts(self, parts: Sequence[Parts]) -> list[Parts]:
        """The families ``parts`` under this relaxation (ValueError naming a family that is not there)."""
        names = {p.name for p in parts}
        for family, _ in self.presets:
            if family not in names:
                raise ValueError(f"relaxation {self.name!r}: the scores have no {family} parts")
        chosen = dict(self.presets)
        out = [replace(p, preset=chosen[p.name]) if p.name in chosen else p for p in parts]  # type: ignore[type-var]
        return exact_parts(out) if self.cuts else out


def parse_relaxation(text: str) -> Relaxation:
    """A relaxation from its name (module docstring; ValueError, naming the choices, for a wrong one)."""
    presets: dict[str, str] = {}
    base, cuts = "single-flow", False
    tokens = [t.strip() for t in text.split("+") if t.strip()]
    if not tokens:
        raise ValueError(f"empty relaxation name {text!r}")
    for token in tokens:
        key, _, value = token.partition(":")
        if key == CUTS_KEY and not value:
            cuts = True
        elif key == BASE_KEY:
            if value not in BASES + SEPARATED_BASES:
                raise ValueError(
                    f"relaxation {text!r}: unknown base {value!r}; choose from {BASES + SEPARATED_BASES}"
                )
            base = value
        elif key in FAMILY_PRESETS:
            if value not in FAMILY_PRESETS[key]:
                raise ValueError(
                    f"relaxation {text!r}: unknown {key} preset {value!r}; choose from {sorted(FAMILY_PRESETS[key])}"
                )
            presets[key] = value
        else:
            raise ValueError(
                f"relaxation {text!r}: {token!r} is none of FAMILY:PRESET ({', '.join(FAMILY_PRESETS)}), "
                "base:BASE or cuts"
            )
    names = [f"{k}:{v}" for k, v in presets.items()]
    names += [f"base:{base}"] if base != "single-flow" else []
    names += ["cuts"] if cuts else []
    return Relaxation("+".join(names), tuple(presets.items()), base, cuts)


def default_relaxations(parts: Sequence[Parts]) -> list[Relaxation]:
    """The relaxations to compare by default, from the families present: the families as given (named by the
    first family's preset, ``base:single-flow`` without one), the other named presets of each family, and
    the exact decoding cuts on the first."""
    named = [p for p in parts if p.name in FAMILY_PRESETS]
    first = family_presets(named[:1])
    out = [parse_relaxation("+".join(f"{k}:{v}" for k, v in first.items()) or "base:single-flow")]
    for part in named:
        own = family_presets([part])[part.name]
        looser = [name for name in FAMILY_PRESETS[part.name] if name != own and name != "triangles"]
        out += [parse_relaxation(f"{part.name}:{name}") for name in looser]
    out.append(parse_relaxation("cuts"))
    return list({r.name: r for r in out}.values())


def family_presets(parts: Sequence[Parts]) -> dict[str, str]:
    """The named preset of each family with presets (its row families ``+``-joined when no preset names
    them)."""
    out = {}
    for p in parts:
        presets = FAMILY_PRESETS.get(p.name)
        if presets is not None:
            rows = tuple(p.preset)  # type: ignore[attr-defined]
            out[p.name] = next((k for k, v in presets.items() if v == rows), "+".join(rows))
    return out


def _closed(family: str, rows: Sequence[str]) -> frozenset[str]:
    """The row families ``rows`` of ``family`` with those they imply (:data:`IMPLIED`)."""
    out = set(rows)
    for given, implied in IMPLIED.get(family, ()):
        if given <= out:
            out.add(implied)
    return frozenset(out)


def _at_least_as_tight(a: list[Parts], base_a: str, b: list[Parts], base_b: str) -> bool:
    """Whether the relaxation of families ``a`` on ``base_a`` has every row of the one of ``b`` on ``base_b``
    (family by family, closed under :data:`IMPLIED`, the chain and link cuts counted)."""
    if base_a != base_b and (base_a, base_b) not in BASE_ORDER:
        return False
    for p, q in zip(a, b):
        rows_p = _closed(p.name, getattr(p, "preset", ()))
        rows_q = _closed(q.name, getattr(q, "preset", ()))
        extra_p = {*getattr(p, "chains", ()), *(["arc_heads"] if getattr(p, "arc_heads", False) else [])}
        extra_q = {*getattr(q, "chains", ()), *(["arc_heads"] if getattr(q, "arc_heads", False) else [])}
        if getattr(q, "link_grandparents", False) and not getattr(p, "link_grandparents", False):
            return False
        if not (rows_p >= rows_q and extra_p >= extra_q):
            return False
    return True


def order_claims(relaxations: Sequence[Relaxation], parts: Sequence[Parts]) -> list[tuple[str, str, str]]:
    """The claims (left, relation, right) on the bounds that hold by construction (module docstring): ``<=``
    where the left relaxation has every row of the right one, ``==`` where each has the other's rows (the
    same families on multi-flow and cycle cuts)."""
    resolved = [(r, r.parts(parts)) for r in relaxations]
    claims = []
    for i, (r, rp) in enumerate(resolved):
        for j, (q, qp) in enumerate(resolved):
            if i == j or not _at_least_as_tight(rp, r.base, qp, q.base):
                continue
            if _at_least_as_tight(qp, q.base, rp, r.base):
                if i < j and r.base != q.base:
                    claims.append((r.name, "==", q.name))
            else:
                claims.append((r.name, "<=", q.name))
    return claims
