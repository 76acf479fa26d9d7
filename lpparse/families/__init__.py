"""Part families, one folder a family, and the registry every entry point reads them from.

A family is registered under its name in the entry-point group ``lpparse.families``: its distribution's
``pyproject.toml`` names a :class:`Family` object::

    [project.entry-points."lpparse.families"]
    bigram = "head_bigrams_entry:FAMILY"

lpparse's own families register the same way (lpparse's ``pyproject.toml``), so no module outside a
family's own folder names it: score files, the proof checker, ``lpparse inspect`` and the decoders of score
files find every family here (:func:`registered`, :func:`family_parts`). How to write one:
``docs/families.md``; where things go: ``docs/architecture.md``.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from importlib.metadata import EntryPoint, entry_points
from typing import TYPE_CHECKING, Any

import numpy as np

from lpparse.part_values import check_part_scores

if TYPE_CHECKING:  # a family's feature templates (only models read them: the registry loads no scoring)
    from lpparse.scoring.part_templates import PartTemplates

__all__ = ["GROUP", "Family", "RegistryError", "binding_order", "check_candidate_scores", "family_parts", "get_family", "registered"]

#: the entry-point group families register in
GROUP = "lpparse.families"


class RegistryError(RuntimeError):
    """A registered family that cannot be loaded, or two families under one name."""


@dataclass(frozen=True)
class Family:
    """What every entry point needs of a part family besides its :class:`lpparse.families.base.Parts`.

    ``name``: the Parts' ``name`` (results, proofs, score files by name); ``arity``: indices a part;
    ``member``: the prefix of its members in score files (``member/i`` holds sentence i's scores, a dense
    (n+1,)*arity array or sparse parts); ``make(scorer, rows)``: its Parts over a scorer, with the row
    families a proof names (``rows``; None: the family's defaults); ``dense(array)``: a counted scorer of one
    sentence's dense (n+1,)*arity scores (a score file checks its candidate parts' scores: no NaN or +inf); ``sparse(n, index, values, default)``:
    one of listed parts (None: they are made dense); ``check_index(n, *index)``: ValueError on sparse part
    indices that name no part; ``needs``: families whose columns its rows are built on (bound before it; a needed
    family absent from the scores gets ``neutral(n)``, a scorer of zeros); ``rank``: the binding order
    (lower first; ties by name)."""

    name: str
    arity: int
    member: str
    make: Callable[[Any, Sequence[str] | None], Any]
    dense: Callable[[Any], Any]
    sparse: Callable[[int, Any, Any, float], Any] | None = None
    check_index: Callable[..., object] | None = None
    features: PartTemplates | None = None
    needs: tuple[str, ...] = ()
    neutral: Callable[[int], Any] | None = None
    rank: int = 100


def _load(entry: EntryPoint) -> Family:
    try:
        family = entry.load()
    except Exception as err:  # a plug-in's own import error, named with its distribution
        dist = entry.dist.name if entry.dist is not None else "an unknown distribution"
        raise RegistryError(f"part family {entry.name!r} of {dist} ({entry.value}) cannot be loaded: {err}") from err
    if not isinstance(family, Family) or family.name != entry.name:
        raise RegistryError(
            f"entry point {entry.name!r} ({entry.value}) must name a lpparse.families.Family called {entry.name!r}"
        )
    return family


@functools.cache
def registered() -> dict[str, Family]:
    """Every registered family by name, in binding order (RegistryError on a broken or doubled entry)."""
    found: dict[str, Family] = {}
    for entry in entry_points(group=GROUP):
        if entry.name in found:
            raise RegistryError(f"two distributions register a part family called {entry.name!r}")
        found[entry.name] = _load(entry)
    if not found:
        raise RegistryError(f"no part family is registered in {GROUP!r}: is lpparse installed (pip install -e .)?")
    return dict(sorted(found.items(), key=lambda item: (item[1].rank, item[0])))


def get_family(name: str) -> Family:
    """The family registered as ``name`` (ValueError naming the registered ones otherwise)."""
    families = registered()
    if name not in families:
        raise ValueError(f"unknown part family {name!r}; registered: {', '.join(families)}")
    return families[name]


def binding_order(names: Collection[str], present: Collection[str] = ()) -> list[str]:
    """The families ``names`` (ValueError for one not registered) and those they need that ``present`` has
    not, in binding order."""
    wanted = set(names)
    for name in names:
        wanted |= set(get_family(name).needs) - set(present)
    return [name for name in registered() if name in wanted]


def family_parts(
    scorers: Mapping[str, Any],
    n: int,
    rows: Mapping[str, Sequence[str]] | None = None,
    present: Collection[str] = (),
) -> list[Any]:
    """The Parts of every family of ``scorers`` (family name -> scorer), in binding order, with the families
    they need (zero scores when absent) unless ``present`` (families the caller binds before these) has
    them; ``rows``: row families by family name (a proof's), else defaults."""
    out = []
    for name in binding_order(scorers, present):
        family = get_family(name)
        scorer = scorers.get(name)
        if scorer is None:
            if family.neutral is None:
                raise ValueError(f"part family {name!r} is needed but has no scores and no neutral scorer")
            scorer = family.neutral(n)
        out.append(family.make(scorer, None if rows is None else rows.get(name)))
    return out


def check_candidate_scores(name: str, scorer: Any, n: int) -> None:
    """ValueError naming the family ``name`` when one of its candidate parts over every arc of an n-token
    sentence scores NaN or +inf under ``scorer`` (-inf prunes a part): the check lpparse's own families make
    of their dense scores, on the cells that name a part. ``scorer`` is scored once for every candidate: give
    a fresh one."""
    arcs = np.ones((n + 1, n + 1), bool)
    np.fill_diagonal(arcs, False)
    arcs[:, 0] = False
    candidates = get_family(name).make(scorer, None).candidates(arcs, False)
    check_part_scores(scorer.score(*candidates), name)
