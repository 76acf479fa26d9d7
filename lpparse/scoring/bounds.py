"""Per-template upper bounds on grandparent scores, computed offline (Riedel, Smith & McCallum 2012, §4.3.2).

Eqs. 12–13: s̄(·, p, c) = Σ_t max_{v ∈ range(h^t), e ∈ range(d^t)} w_t · f_t(v, h^t_p, h^t_c, e), and likewise
s̄(g, p, ·) with c free. A template's attributes have finite ranges (its vocabulary: the training values
plus ``UNK``), so for each template we evaluate its weight on every combination (v_g, v_p, v_c, d) of
attribute ids and consistent relation codes once, and keep two tables:

* ``pc[v_p, v_c, I[p>c]]`` = max over v_g (``ROOT`` included) and relations with that I[p>c];
* ``gp[v_g, v_p, I[g>p]]`` = max over v_c (never ``ROOT``) and relations with that I[g>p].

A sentence's bounds are then table look-ups: B[p, c] = Σ_t pc_t[h^t_p, h^t_c, I[p>c]]. Every triple's
template score is one entry of the enumeration, so the bounds are valid by construction, hash collisions
included. Their slack comes from maximizing templates independently and from attribute values that the
sentence does not have; :class:`RestrictedBounds` removes the latter by enumerating each template, per
sentence, on the values its tokens do have (the default of :class:`lpparse.scoring.GrandparentScorer`:
measured on Hungarian and English dev sentences of 20–45 tokens, it halves the GPs that PPC scores).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from lpparse.scoring.features import (
    BOUNDARY,
    CSIB_CONTEXTS,
    CSIB_SEED,
    CSIB_START,
    CSIB_STOP,
    DISTANCE_EDGES,
    DISTANCES,
    GP_SEED,
    ROOT,
    SIB_SEED,
    SIDES,
    VALID_RELATIONS,
    CSibTemplate,
    GPTemplate,
    SibTemplate,
    TokenIds,
    Vocabulary,
    csib_code,
    hash_columns,
    relation,
    sibling_code,
)

__all__ = [
    "BoundTables",
    "ConsecutiveBounds",
    "RestrictedBounds",
    "SiblingBounds",
    "bound_tables",
    "sentence_bounds",
]

_CHUNK = 1 << 22
#: The index of each relation code (eq. 6) among :data:`VALID_RELATIONS`, the last axis of an enumeration.
_RELATION_CELL = np.zeros(8, np.int64)
_RELATION_CELL[VALID_RELATIONS] = np.arange(VALID_RELATIONS.size)


@dataclass(frozen=True)
class BoundTables:
    """The tables of one template: ``pc`` of shape (|V_p|, |V_c|, 2) and ``gp`` of shape (|V_g|, |V_p|, 2),
    with size 1 for a token the template does not look at; ``gc[v_g, v_c, I[g>c]]`` (max over v_p) when
    asked for."""

    pc: NDArray[np.float64]
    gp: NDArray[np.float64]
    gc: NDArray[np.float64] | None = None


def _range(vocab: Vocabulary, attribute: str | None) -> NDArray[np.int64]:
    return np.arange(vocab.size(attribute)) if attribute is not None else np.zeros(1, dtype=np.int64)


#: The valid relations sorted (stably) by one order bit of eq. 6, per shift 0, 1, 2 (I[p>c], I[g>c], I[g>p]):
#: each bit splits them in halves, the relations with the bit 0 first
_BIT_ORDER = tuple(np.argsort((VALID_RELATIONS >> shift) & 1, kind="stable") for shift in range(3))


def _grid(
    weights: NDArray[np.float64],
    t: int,
    template: GPTemplate,
    bits: int,
    vg: NDArray[np.int64],
    vp: NDArray[np.int64],
    vc: NDArray[np.int64],
) -> NDArray[np.float64]:
    """The weight of template ``t`` on every combination of the attribute ids (v_g, v_p, v_c) and consistent
    relation (eq. 13): shape (|v_g|, |v_p|, |v_c|, relations), a size-1 axis for a token the template does
    not look at (hashed once, broadcast)."""
    cols = [
        x
        for a, x in (
            (template.g, vg[:, None, None, None]),
            (template.p, vp[None, :, None, None]),
            (template.c, vc[None, None, :, None]),
        )
        if a is not None
    ]
    w = weights[hash_columns(GP_SEED + t, [*cols, VALID_RELATIONS[None, None, None, :]], bits)]
    return np.broadcast_to(w, (vg.size, vp.size, vc.size, VALID_RELATIONS.size))


def _maxima(
    weights: NDArray[np.float64],
    t: int,
    template: GPTemplate,
    bits: int,
    values: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]],
    g_ok: NDArray[np.bool_],
    c_ok: NDArray[np.bool_],
) -> BoundTables:
    """Template ``t`` on every combination of the attribute ids ``values`` = (v_g, v_p, v_c) and consistent
    relation (eq. 13), maximized into the ``pc`` and ``gp`` tables, in chunks of v_g (a whole vocabulary);
    ``g_ok``/``c_ok`` mark the ids g/c may take (the others still index the tables)."""
    vg, vp, vc = values
    pc = np.full((vp.size, vc.size, 2), -np.inf)
    gp = np.full((vg.size, vp.size, 2), -np.inf)
    # each table is one max over a token's values (of the ids it may take), then over the relations with the
    # table's order bit: I[p>c] for pc, I[g>p] for gp
    step = max(1, _CHUNK // (vp.size * vc.size * VALID_RELATIONS.size))
    for start in range(0, vg.size, step):
        w = _grid(weights, t, template, bits, vg[start : start + step], vp, vc)
        over_g = w[g_ok[start : start + step]].max(axis=0, initial=-np.inf)
        pc = np.maximum(pc, _by_bit(over_g, 0))  # eq. 13: max over v_g
        gp[start : start + step] = _by_bit(w[:, :, c_ok].max(axis=2, initial=-np.inf), 2)  # max over v_c
    return BoundTables(pc, gp)


def _by_bit(w: NDArray[np.float64], shift: int) -> NDArray[np.float64]:
    """(a, b, 2) maxima of ``w`` of shape (a, b, relations) over the relations whose bit ``shift`` is 0, 1
    (one gather, one reduction)."""
    return w[..., _BIT_ORDER[shift]].reshape(*w.shape[:-1], 2, -1).max(axis=-1)


def bound_tables(
    weights: NDArray[np.float64], vocab: Vocabulary, t: int, template: GPTemplate, bits: int
) -> BoundTables:
    """Enumerate template ``t`` over all attribute ids and consistent relations (eq. 13)."""
    vg, vp, vc = (_range(vocab, a) for a in (template.g, template.p, template.c))
    # g can be the root but is never outside the sentence; c is neither
    g_ok = (vg != BOUNDARY) if template.g is not None else np.ones(1, bool)
    c_ok = ((vc != BOUNDARY) & (vc != ROOT)) if template.c is not None else np.ones(1, bool)
    return _maxima(weights, t, template, bits, (vg, vp, vc), g_ok, c_ok)


def _add_lookups(
    b_gp: NDArray[np.float64],
    b_pc: NDArray[np.float64],
    table: BoundTables,
    at: tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]],
) -> None:
    """B_gp[g, p] += gp[at_g[g], at_p[p], I[g>p]] and B_pc[p, c] += pc[at_p[p], at_c[c], I[p>c]]."""
    pos = np.arange(b_gp.shape[0])
    later = (pos[:, None] > pos[None, :]).astype(np.int64)
    g, p, c = at
    b_gp += table.gp[g[:, None], p[None, :], later]
    b_pc += table.pc[p[:, None], c[None, :], later]


def _pad(b_gp: NDArray[np.float64], b_pc: NDArray[np.float64]) -> None:
    """-inf where no triple can have the pair."""
    pos = np.arange(b_gp.shape[0])
    first, second = pos[:, None], pos[None, :]
    b_gp[(first == second) | (second == 0)] = -np.inf
    b_pc[(first == second) | (first == 0) | (second == 0)] = -np.inf


class _SentenceValues:
    """The distinct ids of each attribute in one sentence, computed once per attribute and position set (the
    templates share attributes)."""

    def __init__(self, ids: TokenIds) -> None:
        self.ids = ids
        self._memo: dict[tuple[str | None, bool], tuple[NDArray[np.int64], NDArray[np.int64]]] = {}

    def __call__(self, attribute: str | None, words: bool) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """(the distinct ids of ``attribute`` at positions 1..n (``words``) or 0..n, each position 0..n's
        index into them); a template that does not look at the token has the single value 0. A position
        outside the set (0 as a modifier) never enters a finite bound: its look-up is clipped into range."""
        key = (attribute, words)
        if key not in self._memo:
            ids = self.ids
            if attribute is None:
                self._memo[key] = np.zeros(1, np.int64), np.zeros(ids.n + 1, np.int64)
            else:
                every = ids.at(attribute, np.arange(ids.n + 1))
                distinct = np.unique(every[1:] if words else every)
                where = np.searchsorted(distinct, every)
                self._memo[key] = distinct, np.minimum(where, distinct.size - 1)
        return self._memo[key]


class RestrictedBounds:
    """Eq. 13 with its ranges restricted to one sentence: a token g of the sentence has one of the sentence's
    values, so each template is enumerated on the distinct ids of its attributes here (the root included for
    g) instead of the whole vocabulary. Valid for the same reason as the offline tables, usually much tighter
    for word templates (a max over a few dozen words instead of hundreds), at (#g values)·(#p values)·(#c
    values)·6 weight look-ups per template instead of n³.

    :meth:`factors` gives eq. 12's (B_gp, B_pc); :meth:`triples` the tighter per-triple bound
    Σ_t min(gp_t[g,p], pc_t[p,c], gc_t[g,c]) (each template bounded by its own three factors before summing),
    computed from the tables without computing any feature.
    """

    def __init__(
        self, weights: NDArray[np.float64], templates: Sequence[GPTemplate], bits: int, ids: TokenIds
    ) -> None:
        size = ids.n + 1
        self.size = size
        sentence_values = _SentenceValues(ids)
        pos = np.arange(size)
        later = (pos[:, None] > pos[None, :]).astype(np.int64)
        factors: list[list[NDArray[np.float64]]] = [[], [], []]  # GP, PC, GC per template
        enumerated: list[NDArray[np.float64]] = []  # each template's grid, flat, one after another
        gp_index, c_index = [], []  # flat position of a triple's cell: gp_index[t][g, p] + c_index[t][c] + rel
        offset = 0
        for t, tpl in enumerate(templates):
            (vg, ag), (vp, ap), (vc, ac) = (
                sentence_values(a, words) for a, words in ((tpl.g, False), (tpl.p, True), (tpl.c, True))
            )
            w = _grid(weights, t, tpl, bits, vg, vp, vc)
            # the tables as dense (n+1, n+1) matrices over positions: GP[g, p] = max over v_c and the
            # relations with I[g>p] of the grid at (at_g[g], at_p[p]), and likewise PC[p, c] and GC[g, c]
            for k, (axis, shift, a, b) in enumerate(((2, 2, ag, ap), (0, 0, ap, ac), (1, 1, ag, ac))):
                factors[k].append(_by_bit(w.max(axis=axis), shift)[a[:, None], b[None, :], later])
            enumerated.append(w.ravel())
            cell = vc.size * VALID_RELATIONS.size  # cells of one (v_g, v_p)
            gp_index.append(offset + (ag[:, None] * vp.size + ap[None, :]) * cell)
            c_index.append(ac * VALID_RELATIONS.size)
            offset += w.size
        self._gp, self._pc, self._gc = (np.stack(f) for f in factors)
        self._weights = np.concatenate(enumerated)
        self._gp_index, self._c_index = np.stack(gp_index), np.stack(c_index)

    def factors(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """(B_gp, B_pc) of eq. 12, as :func:`sentence_bounds`."""
        b_gp, b_pc = self._gp.sum(axis=0), self._pc.sum(axis=0)
        _pad(b_gp, b_pc)
        return b_gp, b_pc

    def triples(
        self, g: NDArray[np.int64], p: NDArray[np.int64], c: NDArray[np.int64]
    ) -> NDArray[np.float64]:
        """Σ_t min(gp_t, pc_t, gc_t) for a batch of triples (no feature is computed, nothing is counted)."""
        size, t = self.size, self._gp.shape[0]
        gp, pc, gc = (
            np.take(table.reshape(t, -1), i * size + j, axis=1)
            for table, i, j in ((self._gp, g, p), (self._pc, p, c), (self._gc, g, c))
        )
        return np.minimum(np.minimum(gp, pc), gc).sum(axis=0)

    def scores(self, g: NDArray[np.int64], p: NDArray[np.int64], c: NDArray[np.int64]) -> NDArray[np.float64]:
        """s(g, p, c) of eq. 4 for a batch of triples, read off the enumeration: each template's weight is a
        cell of its grid (the same hashed slot as :func:`lpparse.scoring.features.triple_slots` gives, so the
        same sum, bit for bit), a look-up instead of hashing."""
        at = self._gp_index[:, g, p] + self._c_index[:, c] + _RELATION_CELL[relation(g, p, c)]
        # summed over templates in C order, as the hashed slots are: the same rounding
        return self._weights[np.ascontiguousarray(at)].sum(axis=0)  # eq. 4


def sentence_bounds(
    tables: Sequence[BoundTables], templates: Sequence[GPTemplate], ids: TokenIds
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(B_gp, B_pc) for one sentence from the offline tables: B_gp[g, p] ≥ max_c s(g, p, c) and
    B_pc[p, c] ≥ max_g s(g, p, c) (eq. 12); -inf where no triple can have that pair."""
    size = ids.n + 1
    pos = np.arange(size)
    b_gp = np.zeros((size, size))
    b_pc = np.zeros((size, size))
    zero = np.zeros(size, dtype=np.int64)
    for table, tpl in zip(tables, templates):
        at = tuple(ids.at(a, pos) if a is not None else zero for a in (tpl.g, tpl.p, tpl.c))
        _add_lookups(b_gp, b_pc, table, at)  # type: ignore[arg-type]
    _pad(b_gp, b_pc)
    return b_gp, b_pc


class SiblingBounds:
    """Upper bounds on the sibling scores of one sentence, per template, without computing any part's features.

    Each template t is enumerated, as in :class:`RestrictedBounds`, on the sentence's distinct values of its
    attributes of h, m, m' and on every context code (side of h, distance bin), then maximized into three
    dense (n+1, n+1) factors over positions:

    * F_t[h, m] ≥ w_t of every part with m as the first child (max over m' values and the codes whose side
      fits h vs m: h < m means side 0, h > m side 1 or 2);
    * S_t[h, m'] ≥ w_t of every part with m' as the second child (h < m': side 0 or 1; h > m': side 2);
    * P_t[m, m'] ≥ w_t of every part of the pair (max over h values and sides, at the pair's own distance).

    :meth:`bound_hm` gives Σ_t max(F_t, S_t) ≥ max_{m'} s(h, {m, m'}); :meth:`parts` the tighter per-part
    Σ_t min(F_t[h,m], S_t[h,m'], P_t[m,m']). Valid because every part's template score is one cell of the
    enumeration (hash collisions included).
    """

    def __init__(
        self, weights: NDArray[np.float64], templates: Sequence[SibTemplate], bits: int, ids: TokenIds
    ) -> None:
        size = ids.n + 1
        pos = np.arange(size)
        later = (pos[:, None] > pos[None, :]).astype(np.int64)
        gap = np.searchsorted(DISTANCE_EDGES, np.maximum(pos[None, :] - pos[:, None], 0), side="right")
        factors: list[list[NDArray[np.float64]]] = [[], [], []]
        sentence_values = _SentenceValues(ids)
        enumerated: list[NDArray[np.float64]] = []  # each template's grid, flat, one after another
        hm_index, s_index = [], []  # flat position of a part's cell: hm_index[t][h, m] + s_index[t][m'] + code
        offset = 0
        for t, tpl in enumerate(templates):
            (vh, ah), (vm, am), (vs, as_) = (
                sentence_values(a, words) for a, words in ((tpl.h, False), (tpl.m, True), (tpl.s, True))
            )
            codes = np.arange(SIDES * (DISTANCES if tpl.distance else 1))
            side = codes % SIDES
            grid = [
                x
                for a, x in ((tpl.h, vh[:, None, None, None]), (tpl.m, vm[None, :, None, None]), (tpl.s, vs[None, None, :, None]))
                if a is not None
            ]
            w = weights[hash_columns(SIB_SEED + t, [*grid, codes[None, None, None, :]], bits)]
            w = np.broadcast_to(w, (vh.size, vm.size, vs.size, codes.size))
            first = np.stack([w[..., side == 0].max(axis=(2, 3)), w[..., side > 0].max(axis=(2, 3))], axis=-1)
            second = np.stack([w[..., side < 2].max(axis=(1, 3)), w[..., side == 2].max(axis=(1, 3))], axis=-1)
            pair = w.max(axis=0).reshape(vm.size, vs.size, -1, SIDES).max(axis=3)
            factors[0].append(first[ah[:, None], am[None, :], later])
            factors[1].append(second[ah[:, None], as_[None, :], later])
            factors[2].append(pair[am[:, None], as_[None, :], gap if tpl.distance else 0])
            enumerated.append(w.ravel())
            hm_index.append(offset + (ah[:, None] * vm.size + am[None, :]) * vs.size * codes.size)
            s_index.append(as_ * codes.size)
            offset += w.size
        self._first, self._second, self._pair = (np.stack(f) for f in factors)
        self._weights = np.concatenate(enumerated)
        self._hm_index, self._s_index = np.stack(hm_index), np.stack(s_index)
        self._distance = np.array([tpl.distance for tpl in templates], dtype=np.int64)[:, None]

    def bound_hm(self) -> NDArray[np.float64]:
        """B[h, m] ≥ max_{m'} s(h, {m, m'}); -inf where no part has the arc (m = 0 or h = m)."""
        bound = np.maximum(self._first, self._second).sum(axis=0)
        size = bound.shape[0]
        bound[(np.arange(size)[:, None] == np.arange(size)[None, :]) | (np.arange(size)[None, :] == 0)] = -np.inf
        return bound

    def parts(self, h: NDArray[np.int64], m: NDArray[np.int64], m2: NDArray[np.int64]) -> NDArray[np.float64]:
        """Σ_t min(F_t[h,m], S_t[h,m'], P_t[m,m']) for a batch of parts (nothing is computed or counted)."""
        return np.minimum(np.minimum(self._first[:, h, m], self._second[:, h, m2]), self._pair[:, m, m2]).sum(axis=0)

    def scores(self, h: NDArray[np.int64], m: NDArray[np.int64], m2: NDArray[np.int64]) -> NDArray[np.float64]:
        """The sibling scores of a batch of parts read off the enumeration, as :meth:`RestrictedBounds.scores`
        (the same slots as :func:`lpparse.scoring.features.sibling_slots`, the same sums)."""
        side, with_distance = sibling_code(h, m, m2, False), sibling_code(h, m, m2, True)
        code = side + self._distance * (with_distance - side)  # each template's own context code
        at = self._hm_index[:, h, m] + self._s_index[:, m2] + code
        return self._weights[np.ascontiguousarray(at)].sum(axis=0)


def _extended(
    values: NDArray[np.int64], looked_at: bool, symbol: int
) -> tuple[NDArray[np.int64], slice, int]:
    """A window end's grid axis: the sentence's distinct ids and ``symbol`` (START or STOP) after them, the
    slice of the real ids and the index of the symbol; a template that does not look at the token has one
    cell (id 0) for both."""
    if not looked_at:
        return values, slice(0, 1), 0
    return np.append(values, symbol), slice(0, values.size), values.size


class _Geometry(NamedTuple):
    """Of a sentence's pairs (h, x): h = x, x right of h (0/1), the distance bin of |x - h|; of each h, the
    sides (left, right) on which it can have a child."""

    diagonal: NDArray[np.bool_]
    right: NDArray[np.int64]
    gap: NDArray[np.int64]
    sides: NDArray[np.bool_]


class _TemplateBounds(NamedTuple):
    """A consecutive-sibling template's F_t and S_t, its weights over the enumeration of its cells (flat),
    and the offsets of a window's cell in it by ⟨h, a⟩ and by ⟨h, b⟩."""

    first: NDArray[np.float64]
    second: NDArray[np.float64]
    weights: NDArray[np.float64]
    ha_index: NDArray[np.int64]
    hb_index: NDArray[np.int64]


def _window_bounds(
    weights: NDArray[np.float64],
    bits: int,
    t: int,
    tpl: CSibTemplate,
    sentence_values: _SentenceValues,
    geometry: _Geometry,
) -> _TemplateBounds:
    """Template ``t``'s share of :class:`ConsecutiveBounds`."""
    diagonal, right, sides = geometry.diagonal, geometry.right, geometry.sides
    (vh, ah), (va, aa), (vb, ab) = (
        sentence_values(x, words) for x, words in ((tpl.h, False), (tpl.a, True), (tpl.b, True))
    )
    va, a_real, a_start = _extended(va, tpl.a is not None, CSIB_START)
    vb, b_real, b_stop = _extended(vb, tpl.b is not None, CSIB_STOP)
    bins = DISTANCE_EDGES.size + 1 if tpl.distance else 1
    codes = np.arange(CSIB_CONTEXTS * bins)
    grid = [
        x
        for v, x in (
            (tpl.h, vh[:, None, None, None]),
            (tpl.a, va[None, :, None, None]),
            (tpl.b, vb[None, None, :, None]),
        )
        if v is not None
    ]
    w = weights[hash_columns(CSIB_SEED + t, [*grid, codes[None, None, None, :]], bits)]
    w = np.broadcast_to(w, (vh.size, va.size, vb.size, codes.size))
    # code = side + 2·kind + 6·distance: the last axis as (distance, kind, side)
    cells = w.reshape(vh.size, va.size, vb.size, bins, 3, 2)
    opening = cells[:, a_start, b_real, :, 0, :]  # (v_h, v_b, distance, side)
    middle = cells[:, a_real, b_real, :, 1, :]  # (v_h, v_a, v_b, distance, side)
    closing = cells[:, a_real, b_stop, :, 2, :]  # (v_h, v_a, distance, side)
    gap = geometry.gap if tpl.distance else np.zeros_like(geometry.gap)
    hh = ah[:, None]
    xa, xb = aa[None, :], ab[None, :]
    f = np.maximum(middle.max(axis=(2, 3))[hh, xa, right], closing[hh, xa, gap, right])  # a ≠ h
    f[diagonal] = np.where(sides, opening.max(axis=(1, 2))[ah], -np.inf).max(axis=1)
    s = np.maximum(opening[hh, xb, gap, right], middle.max(axis=(1, 3))[hh, xb, right])  # b ≠ h
    s[diagonal] = np.where(sides, closing.max(axis=(1, 2))[ah], -np.inf).max(axis=1)
    a_cell = np.where(diagonal, a_start, aa[None, :])
    b_cell = np.where(diagonal, b_stop, ab[None, :])
    ha_index = (ah[:, None] * va.size + a_cell) * vb.size * codes.size
    return _TemplateBounds(f, s, w.ravel(), ha_index, b_cell * codes.size)


class ConsecutiveBounds:
    """Upper bounds on the consecutive-sibling scores of one sentence, per template, without computing any
    window's features (the counterpart of :class:`SiblingBounds` for windows ⟨h, a, b⟩).

    Each template t is enumerated on the sentence's distinct values of its attributes of h (the root
    included), a and b (tokens), plus START for a and STOP for b, and on every context code (side, kind and
    distance bin: :func:`lpparse.scoring.features.csib_code`); then, with v_x the value of token x and only
    the cells a window of that kind can take (START only in first-child windows, STOP only in last-child
    ones),

    * F_t[h, h] = max over first-child cells of h's value on the sides where h can have a child (b's value
      and distance free);
      F_t[h, a] (a ≠ h) = max(middle cells at (v_h, v_a, side of a), b's value and distance free; the
      last-child cell at (v_h, v_a, STOP, side of a, bin |a - h|)) ≥ w_t of every window ⟨h, a, ·⟩;
    * S_t[h, h] = max over last-child cells of h's value, likewise; S_t[h, b] (b ≠ h) = max(the first-child cell at
      (v_h, START, v_b, side of b, bin |b - h|); middle cells at (v_h, v_b, side of b), a's value and
      distance free) ≥ w_t of every window ⟨h, ·, b⟩.

    :meth:`bound_first` = Σ_t F_t ≥ max_b s(h, a, b) and :meth:`bound_second` = Σ_t S_t ≥ max_a s(h, a, b):
    valid because every window's template weight is one cell of its enumeration (hash collisions included),
    and each template is maximized on its own. -inf where no window has that pair (a child 0, a head with
    no token on either side).
    """

    def __init__(
        self, weights: NDArray[np.float64], templates: Sequence[CSibTemplate], bits: int, ids: TokenIds
    ) -> None:
        size = ids.n + 1
        pos = np.arange(size)
        diagonal = pos[:, None] == pos[None, :]
        right = (pos[None, :] > pos[:, None]).astype(np.int64)  # right[h, x]: x is right of h
        gap = np.searchsorted(DISTANCE_EDGES, np.abs(pos[None, :] - pos[:, None]), side="right")
        # the sides on which h can have a child: left (a token 1..h-1), right (h+1..n)
        sides = np.column_stack([pos >= 2, pos < ids.n])
        geometry = _Geometry(diagonal, right, gap, sides)
        sentence_values = _SentenceValues(ids)
        first, second = np.zeros((size, size)), np.zeros((size, size))
        enumerated: list[NDArray[np.float64]] = []  # each template's grid, flat, one after another
        ha_index, hb_index = [], []  # a window's cell: ha_index[t][h, a] + hb_index[t][h, b] + code
        offset = 0
        for t, tpl in enumerate(templates):
            f, s, w, ha, hb = _window_bounds(weights, bits, t, tpl, sentence_values, geometry)
            first += f
            second += s
            enumerated.append(w)
            ha_index.append(offset + ha)
            hb_index.append(hb)
            offset += w.size
        no_child = ~diagonal & (pos[None, :] == 0)  # ⟨h, 0, ·⟩ and ⟨h, ·, 0⟩ with h ≠ 0: 0 is no child
        first[no_child] = -np.inf
        second[no_child] = -np.inf
        self._first, self._second = first, second
        self._weights = np.concatenate(enumerated) if enumerated else np.zeros(0)
        self._ha_index = np.stack(ha_index) if ha_index else np.zeros((0, size, size), np.int64)
        self._hb_index = np.stack(hb_index) if hb_index else np.zeros((0, size, size), np.int64)
        self._distance = np.array([tpl.distance for tpl in templates], dtype=bool)[:, None]

    def bound_first(self) -> NDArray[np.float64]:
        """B1[h, a] ≥ max_b s(h, a, b) (a = h: the first-child windows of h)."""
        return self._first.copy()

    def bound_second(self) -> NDArray[np.float64]:
        """B2[h, b] ≥ max_a s(h, a, b) (b = h: the last-child windows of h)."""
        return self._second.copy()

    def scores(self, h: NDArray[np.int64], a: NDArray[np.int64], b: NDArray[np.int64]) -> NDArray[np.float64]:
        """The scores of a batch of windows read off the enumeration, as :meth:`RestrictedBounds.scores` (the
        same slots as :func:`lpparse.scoring.features.csib_slots`, the same sums)."""
        plain, far = csib_code(h, a, b, False), csib_code(h, a, b, True)
        code = np.where(self._distance, far, plain)  # each template's own context code
        at = self._ha_index[:, h, a] + self._hb_index[:, h, b] + code
        return self._weights[np.ascontiguousarray(at)].sum(axis=0)
