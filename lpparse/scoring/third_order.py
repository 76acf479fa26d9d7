"""Hashed features of third-order parts: grand-siblings ⟨g, h, a, b⟩ and tri-siblings ⟨h, x, a, b⟩, their
counted scorers on one sentence, and their factorized bounds from the templates' weights.

The templates follow the third-order features of Koo & Collins (2010, "Efficient Third-Order Dependency
Parsers", ACL) and TurboParser's (Martins, Almeida & Smith 2013, "Turning on the Turbo: Fast Third-Order
Non-Projective Turbo Parsers", ACL): tag quadruples (fine and coarse), the triples that leave one token out,
and variants with one token's frequent word; every template is conjoined with the part's context (the
side of the children, the kind of window, and for grand-siblings the side of g relative to h). A window
position equal to the head reads START (before the first child) or STOP (after the last), as in
:func:`lpparse.scoring.features.csib_slots`.

**Bounds** (:class:`QuadBounds`): each template is enumerated on the sentence's distinct values of its
attributes at its positions (plus START/STOP where a position can be one) and on every context; for a bound
that keeps three positions and frees the fourth, a template's weight is maximized over the free position's
values (when the template reads it) and over the two contexts the kept positions leave possible, then
summed over templates. Valid because every
part's template weight is one cell of that enumeration (hash collisions included) and each template is
maximized on its own; no part is scored, nothing is counted.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.scoring.features import (
    CSIB_START,
    CSIB_STOP,
    TokenIds,
    field_lookup,
    hash_columns,
    hash_templates,
)
from lpparse.triples import GrandSiblingBounds, TriSiblingBounds, check_gsib_batch, check_tsib_batch


class QuadWeights(Protocol):
    """What a third-order scorer reads of its model (:class:`lpparse.scoring.model.Model`): hashed weights of
    ``bits`` bits and the third-order templates."""

    bits: int
    weights: NDArray[np.float64]
    grandsibling_templates: tuple[QuadTemplate, ...]
    trisibling_templates: tuple[QuadTemplate, ...]

__all__ = [
    "GRANDSIBLING_TEMPLATES",
    "TRISIBLING_TEMPLATES",
    "GrandSiblingModelScorer",
    "QuadBounds",
    "QuadTemplate",
    "TriSiblingModelScorer",
    "quad_slots",
]


@dataclass(frozen=True)
class QuadTemplate:
    """A third-order template: one attribute (or None) for each of the part's four positions, conjoined with
    the part's context."""

    fields: tuple[str | None, str | None, str | None, str | None]

    def name(self, positions: str) -> str:
        return " ".join([*(f"{p}.{v}" for p, v in zip(positions, self.fields) if v), "context"])


def _t(*fields: str | None) -> QuadTemplate:
    return QuadTemplate(fields)  # type: ignore[arg-type]


#: Grand-sibling templates over (g, h, a, b): the bias of a context, the tag quadruples, the triples without
#: h (g with the two siblings), without a and without b, and frequent-word variants of g with the siblings.
GRANDSIBLING_TEMPLATES: tuple[QuadTemplate, ...] = (
    _t(None, None, None, None),
    _t("cpos", "cpos", "cpos", "cpos"),
    _t("pos", None, "pos", "pos"),
    _t("pos", "pos", None, "pos"),
    _t("pos", "pos", "pos", None),
    _t("gword", None, "cpos", "cpos"),
    _t("cpos", None, "gword", "cpos"),
    _t("cpos", None, "cpos", "gword"),
)

#: Tri-sibling templates over (h, x, a, b): the bias of a context, the tag quadruples, the three siblings'
#: tags, the head with the outer two, and frequent-word variants of the three siblings.
TRISIBLING_TEMPLATES: tuple[QuadTemplate, ...] = (
    _t(None, None, None, None),
    _t("cpos", "cpos", "cpos", "cpos"),
    _t(None, "pos", "pos", "pos"),
    _t("pos", "pos", None, "pos"),
    _t(None, "gword", "cpos", "cpos"),
    _t(None, "cpos", "gword", "cpos"),
    _t(None, "cpos", "cpos", "gword"),
)


@dataclass(frozen=True)
class _Shape:
    """What a family's parts look like to its features: the position of the head, the positions that read
    START or STOP when equal to it, the feature seed, the number of contexts and the context of a batch."""

    head: int
    start: int
    stop: int
    seed: int
    contexts: int

    def context(self, parts: Sequence[NDArray[np.int64]]) -> NDArray[np.int64]:
        raise NotImplementedError


    def possible(self, kept: tuple[int, int, int], index: dict[int, NDArray[np.int64]]) -> list[NDArray[np.int64]]:
        """The contexts a part can have whose positions ``kept`` hold ``index`` (the fourth free): two arrays,
        every part's context is one of them."""
        raise NotImplementedError


class _GrandSiblingShape(_Shape):
    def context(self, parts: Sequence[NDArray[np.int64]]) -> NDArray[np.int64]:
        """side of the children + 2 · window kind (first, middle, last) + 6 · (g right of h)."""
        g, h, a, b = parts
        side = (np.maximum(a, b) > h).astype(np.int64)
        kind = np.where(a == h, 0, np.where(b == h, 2, 1))
        return side + 2 * kind + 6 * (g > h)

    def possible(self, kept: tuple[int, int, int], index: dict[int, NDArray[np.int64]]) -> list[NDArray[np.int64]]:
        h = index[1]
        if 0 not in kept:  # g free: its side either way
            local = self.context([h, h, index[2], index[3]]) % 6
            return [local, local + 6]
        up = 6 * (index[0] > h)
        if 2 in kept:  # b free: a = h opens a window on either side; else middle or last, on a's side
            a = index[2]
            side = (a > h).astype(np.int64)
            return [np.where(a == h, 0, side + 2) + up, np.where(a == h, 1, side + 4) + up]
        b = index[3]  # a free: b = h closes a window on either side; else first or middle, on b's side
        side = (b > h).astype(np.int64)
        return [np.where(b == h, 4, side) + up, np.where(b == h, 5, side + 2) + up]


class _TriSiblingShape(_Shape):
    def context(self, parts: Sequence[NDArray[np.int64]]) -> NDArray[np.int64]:
        """side + 2 · kind (first ⟨h, h, a, b⟩, middle, last ⟨h, x, a, h⟩, only child ⟨h, h, a, h⟩)."""
        h, x, a, b = parts
        side = (a > h).astype(np.int64)
        kind = np.where(x == h, np.where(b == h, 3, 0), np.where(b == h, 2, 1))
        return side + 2 * kind

    def possible(self, kept: tuple[int, int, int], index: dict[int, NDArray[np.int64]]) -> list[NDArray[np.int64]]:
        h, a = index[0], index[2]
        side = (a > h).astype(np.int64)
        if 1 in kept:  # b free: x = h is first or only child, else middle or last
            start = index[1] == h
            return [side + 2 * np.where(start, 0, 1), side + 2 * np.where(start, 3, 2)]
        stop = index[3] == h  # x free: b = h is last or only child, else first or middle
        return [side + 2 * np.where(stop, 2, 0), side + 2 * np.where(stop, 3, 1)]


GRANDSIBLING = _GrandSiblingShape(head=1, start=2, stop=3, seed=4000, contexts=12)
TRISIBLING = _TriSiblingShape(head=0, start=1, stop=3, seed=5000, contexts=8)


def quad_slots(
    ids: TokenIds,
    parts: Sequence[NDArray[np.int64]],
    bits: int,
    templates: Sequence[QuadTemplate],
    shape: _Shape,
) -> NDArray[np.int64]:
    """(templates, parts) slots of the features of a batch of 4-index parts (one index array per position)."""
    context = shape.context(parts)
    head = parts[shape.head]
    positions = {str(p): x for p, x in enumerate(parts)}
    special = {str(shape.start): (parts[shape.start] == head, CSIB_START)}
    special[str(shape.stop)] = (parts[shape.stop] == head, CSIB_STOP)
    field = field_lookup(ids, positions, special)
    columns = [
        [*(field(a, str(p)) for p, a in enumerate(tpl.fields) if a is not None), context] for tpl in templates
    ]
    return hash_templates([shape.seed + t for t in range(len(templates))], columns, bits, head.size)


class QuadBounds:
    """Factorized upper bounds of one sentence's third-order scores (module docstring): :meth:`keeping`
    gives, for three kept positions, the (n+1)³ array B[i, j, k] >= the score of every part whose kept
    positions are (i, j, k)."""

    def __init__(
        self, weights: NDArray[np.float64], templates: Sequence[QuadTemplate], bits: int, ids: TokenIds, shape: _Shape
    ) -> None:
        self.n, self.shape = ids.n, shape
        every = np.arange(ids.n + 1)
        self._tables: list[NDArray[np.float64]] = []  # per template: max over contexts, one axis per field
        #: per template, per field: (position, each token's value index, START/STOP's index or -1); the tables
        #: have one axis per field and a last one of contexts
        self._index: list[list[tuple[int, NDArray[np.int64], int]]] = []
        for t, tpl in enumerate(templates):
            grids, index = [], []
            fields = [(p, a) for p, a in enumerate(tpl.fields) if a is not None]
            for axis, (p, attribute) in enumerate(fields):
                values = ids.at(attribute, every)
                distinct = np.unique(values)
                extra = [CSIB_START] if p == shape.start else [CSIB_STOP] if p == shape.stop else []
                grid = np.concatenate([distinct, extra]).astype(np.int64)
                shape_ = [1] * (len(fields) + 1)
                shape_[axis] = grid.size
                grids.append(grid.reshape(shape_))
                index.append((p, np.searchsorted(distinct, values), distinct.size if extra else -1))
            contexts = np.arange(shape.contexts).reshape([1] * len(fields) + [-1])
            w = weights[hash_columns(shape.seed + t, [*grids, contexts], bits)]
            self._tables.append(np.broadcast_to(w, [g.size for g in grids] + [shape.contexts]))
            self._index.append(index)

    def keeping(self, kept: tuple[int, int, int]) -> NDArray[np.float64]:
        """B over the kept positions (in increasing order), the fourth free."""
        size = self.n + 1
        cube = np.indices((size,) * 3)
        token = dict(zip(kept, cube))
        head = token.get(self.shape.head)
        contexts = self.shape.possible(kept, token)
        out = np.zeros((size,) * 3)
        for table, index in zip(self._tables, self._index):
            free = [axis for axis, (p, _, _) in enumerate(index) if p not in token]
            reduced = table.max(axis=tuple(free)) if free else table
            lookup = []
            for p, where, sentinel in index:
                if p not in token:
                    continue
                cell = where[token[p]]
                if sentinel >= 0 and head is not None:  # the position equals the head: START or STOP
                    cell = np.where(token[p] == head, sentinel, cell)
                lookup.append(cell)
            out += np.maximum(*(reduced[(*lookup, c)] for c in contexts))
        return out


@dataclass
class _QuadScorer:
    """Counted scoring of 4-index parts by a model's third-order templates on one sentence, with
    :class:`QuadBounds` built on first use."""

    model: QuadWeights
    ids: TokenIds
    _scored: int = field(default=0, init=False)
    _bounds: QuadBounds | None = field(default=None, init=False, repr=False)

    shape = GRANDSIBLING

    @property
    def n(self) -> int:
        return self.ids.n

    @property
    def scored(self) -> int:
        return self._scored

    @property
    def templates(self) -> Sequence[QuadTemplate]:
        raise NotImplementedError

    def _checked(self, *parts: ArrayLike) -> tuple[NDArray[np.int64], ...]:
        raise NotImplementedError

    def slots(self, *parts: ArrayLike) -> NDArray[np.int64]:
        """(templates, parts) feature slots of a batch (not counted as scoring)."""
        return quad_slots(self.ids, self._checked(*parts), self.model.bits, self.templates, self.shape)

    def score(self, *parts: ArrayLike) -> NDArray[np.float64]:
        """Σ_t w_t · f_t of a batch of parts; counts them."""
        checked = self._checked(*parts)
        self._scored += checked[0].size
        return self.model.weights[quad_slots(self.ids, checked, self.model.bits, self.templates, self.shape)].sum(
            axis=0
        )

    def _bound(self, kept: tuple[int, int, int]) -> NDArray[np.float64]:
        if self._bounds is None:
            model = self.model
            self._bounds = QuadBounds(model.weights, self.templates, model.bits, self.ids, self.shape)
        return self._bounds.keeping(kept)


class GrandSiblingModelScorer(GrandSiblingBounds, _QuadScorer):
    """The grand-sibling scorer of a model's templates (:class:`lpparse.families.third_order.family.GrandSiblingParts`)."""

    shape = GRANDSIBLING

    @property
    def templates(self) -> Sequence[QuadTemplate]:
        return self.model.grandsibling_templates

    def _checked(self, *parts: ArrayLike) -> tuple[NDArray[np.int64], ...]:
        return check_gsib_batch(self.n, *parts)





class TriSiblingModelScorer(TriSiblingBounds, _QuadScorer):
    """The tri-sibling scorer of a model's templates (:class:`lpparse.families.third_order.family.TriSiblingParts`)."""

    shape = TRISIBLING

    @property
    def templates(self) -> Sequence[QuadTemplate]:
        return self.model.trisibling_templates

    def _checked(self, *parts: ArrayLike) -> tuple[NDArray[np.int64], ...]:
        return check_tsib_batch(self.n, *parts)


