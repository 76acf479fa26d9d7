"""Per-template upper bounds on grandparent scores, computed offline (``001_96d0466e746ddc9d.txt`` §4.3.2).

Eqs. 12–13: s̄(·, p, c) = Σ_t max_{v ∈ range(h^t), e ∈ range(d^t)} w_t · f_t(v, h^t_p, h^t_c, e), and likewise
s̄(g, p, ·) with c free. A template's attributes have finite ranges (its vocabulary: the training values
plus ``UNK``), so for each template we evaluate its weight on every combination (v_g, v_p, v_c, d) of
attribute ids and consistent relation codes once, and keep two tables:

* ``pc[v_p, v_c, I[p>c]]`` = max over v_g (``ROOT`` included) and relations with that I[p>c];
* ``gp[v_g, v_p, I[g>p]]`` = max over v_c (never ``ROOT``) and relations with that I[g>p].

A sentence's bounds are then table look-ups: B[p, c] = Σ_t pc_t[h^t_p, h^t_c, I[p>c]]. Every triple's
template score is one entry of the enumeration, so the bounds are valid by construction, hash collisions
included; they are exact per template (the slack comes only from maximizing templates independently).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from lpparse.models.features import (
    BOUNDARY,
    GP_SEED,
    ROOT,
    VALID_RELATIONS,
    GPTemplate,
    TokenIds,
    Vocabulary,
    hash_columns,
)

__all__ = ["BoundTables", "bound_tables", "sentence_bounds"]

_CHUNK = 1 << 22


@dataclass(frozen=True)
class BoundTables:
    """The tables of one template: ``pc`` of shape (|V_p|, |V_c|, 2) and ``gp`` of shape (|V_g|, |V_p|, 2),
    with size 1 for a token the template does not look at."""

    pc: NDArray[np.float64]
    gp: NDArray[np.float64]


def _range(vocab: Vocabulary, attribute: str | None) -> NDArray[np.int64]:
    return np.arange(vocab.size(attribute)) if attribute is not None else np.zeros(1, dtype=np.int64)


def bound_tables(
    weights: NDArray[np.float64], vocab: Vocabulary, t: int, template: GPTemplate, bits: int
) -> BoundTables:
    """Enumerate template ``t`` over all attribute ids and consistent relations (eq. 13)."""
    vg, vp, vc = (_range(vocab, a) for a in (template.g, template.p, template.c))
    rel = VALID_RELATIONS
    pc = np.full((vp.size, vc.size, 2), -np.inf)
    gp = np.full((vg.size, vp.size, 2), -np.inf)
    # g can be the root but is never outside the sentence; c is neither
    g_ok = (vg != BOUNDARY) if template.g is not None else np.ones(1, bool)
    c_ok = ((vc != BOUNDARY) & (vc != ROOT)) if template.c is not None else np.ones(1, bool)
    step = max(1, _CHUNK // (vp.size * vc.size * rel.size))
    for start in range(0, vg.size, step):
        g = vg[start : start + step]
        cols = [
            x
            for a, x in (
                (template.g, g[:, None, None, None]),
                (template.p, vp[None, :, None, None]),
                (template.c, vc[None, None, :, None]),
            )
            if a is not None
        ]
        w = weights[hash_columns(GP_SEED + t, [*cols, rel[None, None, None, :]], bits)]
        w = np.broadcast_to(w, (g.size, vp.size, vc.size, rel.size))
        for bit in (0, 1):
            # max over v_g of the relations with I[p>c] = bit
            sel = w[g_ok[start : start + step]][..., (rel & 1) == bit]
            if sel.shape[0]:
                pc[:, :, bit] = np.maximum(pc[:, :, bit], sel.max(axis=(0, 3)))
            # max over v_c of the relations with I[g>p] = bit
            sel = w[:, :, c_ok][..., (rel >> 2) == bit]
            gp[start : start + step, :, bit] = sel.max(axis=(2, 3))
    return BoundTables(pc, gp)


def sentence_bounds(
    tables: Sequence[BoundTables], templates: Sequence[GPTemplate], ids: TokenIds
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """(B_gp, B_pc) for one sentence: B_gp[g, p] ≥ max_c s(g, p, c) and B_pc[p, c] ≥ max_g s(g, p, c)
    (eq. 12); -inf where no triple can have that pair."""
    size = ids.n + 1
    pos = np.arange(size)
    first, second = pos[:, None], pos[None, :]
    later = (first > second).astype(np.int64)
    b_gp = np.zeros((size, size))
    b_pc = np.zeros((size, size))
    zero = np.zeros(size, dtype=np.int64)

    def look(attribute: str | None) -> NDArray[np.int64]:
        return ids.at(attribute, pos) if attribute is not None else zero

    for table, tpl in zip(tables, templates):
        g, p, c = look(tpl.g), look(tpl.p), look(tpl.c)
        b_gp += table.gp[g[:, None], p[None, :], later]
        b_pc += table.pc[p[:, None], c[None, :], later]
    b_gp[(first == second) | (second == 0)] = -np.inf
    b_pc[(first == second) | (first == 0) | (second == 0)] = -np.inf
    return b_gp, b_pc
