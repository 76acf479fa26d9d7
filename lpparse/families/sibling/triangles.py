"""Triangle cuts on products of arcs: the sibling and grandparent parts of a tree as a Boolean quadric
polytope.

A sibling part is the product zsib[h,a,b] = z[h,a] z[h,b] and a grandparent triple the product zgp[g,h,a] =
z[g,h] z[h,a] of the arcs of every tree. For three arcs x₁, x₂, x₃ whose three pairwise products y₁₂, y₁₃,
y₂₃ are parts, every tree satisfies the triangle inequalities of the Boolean quadric polytope (Padberg 1989,
"The Boolean quadric polytope: some characteristics, facets and relatives", Mathematical Programming 45:
139-172, where they are facets):

* kind 0: x₁ + x₂ + x₃ - y₁₂ - y₁₃ - y₂₃ <= 1;
* kind 1, 2, 3 (apex x₁, x₂, x₃): y₁₂ + y₁₃ - y₂₃ <= x₁, y₁₂ + y₂₃ - y₁₃ <= x₂, y₁₃ + y₂₃ - y₁₂ <= x₃

(:data:`TRIANGLE_COEFFICIENTS`). The linearization rows of the parts (ArcSib/SibArc, ArcGP/GPArc) do not
imply them: x = 1/2 with y₁₂ = y₁₃ = 1/2 and y₂₃ = 0 satisfies those and violates the row of apex x₁ by 1/2.
Two families of triples of arcs are used, with their rows' labels:

* ``SibTriangle[h, a, b, c, kind]``, a < b < c: the arcs h→a, h→b, h→c and the sibling parts ⟨h,a,b⟩,
  ⟨h,a,c⟩, ⟨h,b,c⟩;
* ``GPSibTriangle[g, h, a, b, kind]``, a < b, g ∉ {a, b}: the arcs g→h, h→a, h→b, the grandparent triples
  ⟨g,h,a⟩, ⟨g,h,b⟩ and the sibling part ⟨h,a,b⟩.

There are O(n⁴) of each, so they are cuts: the ``violated_*`` functions find the rows a point violates among
triples of arcs above 0 whose parts are all *known* (a column, or pruned: scored -inf, the part is in no tree
and is 0), and a row enters with those coefficients only, so a part that enters later has none in it. A
proof names each row by its label, from which the checker rebuilds it (:mod:`lpparse.proofs.check`): any label
of known parts gives a row valid for every tree.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.families.grandparent.rows import GrandparentProgram
from lpparse.families.sibling.rows import SiblingProgram
from lpparse.lp.program import LinearProgram

__all__ = [
    "TRIANGLE_COEFFICIENTS",
    "add_cross_triangles",
    "add_sibling_triangles",
    "cross_triangle_known",
    "sibling_triangle_known",
    "violated_cross_triangles",
    "violated_sibling_triangles",
]

#: Coefficients of (x₁, x₂, x₃, y₁₂, y₁₃, y₂₃) per kind 0..3 (module docstring)
TRIANGLE_COEFFICIENTS = np.array(
    [
        [1.0, 1.0, 1.0, -1.0, -1.0, -1.0],
        [-1.0, 0.0, 0.0, 1.0, 1.0, -1.0],
        [0.0, -1.0, 0.0, 1.0, -1.0, 1.0],
        [0.0, 0.0, -1.0, -1.0, 1.0, 1.0],
    ]
)
#: the right-hand side per kind
TRIANGLE_RHS = np.array([1.0, 0.0, 0.0, 0.0])
_NO_ROWS = (np.zeros((0, 5), np.int64), np.zeros(0))

Rows = tuple[NDArray[np.int64], NDArray[np.float64]]


def _worst(labels: NDArray[np.int64], point: NDArray[np.float64], tol: float) -> Rows:
    """The most violated kind of each triple of arcs (``point``: (k, 6) values of x₁, x₂, x₃, y₁₂, y₁₃, y₂₃),
    where violated by more than ``tol``: labels (``labels``, (k, 4), with the kind appended) and violations."""
    if not len(labels):
        return _NO_ROWS
    excess = point @ TRIANGLE_COEFFICIENTS.T - TRIANGLE_RHS
    kind = excess.argmax(axis=1)
    worst = excess[np.arange(kind.size), kind]
    cut = worst > tol
    return np.column_stack([labels[cut], kind[cut]]).astype(np.int64), worst[cut]


@lru_cache(maxsize=None)
def _pairs(k: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(a, b) with a < b over 0..k-1."""
    return _frozen(*np.triu_indices(k, 1))  # type: ignore[return-value]


@lru_cache(maxsize=None)
def _triples(k: int) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """(a, b, c) with a < b < c over 0..k-1."""
    a, b, c = np.meshgrid(np.arange(k), np.arange(k), np.arange(k), indexing="ij")
    keep = (a < b) & (b < c)
    return _frozen(a[keep], b[keep], c[keep])  # type: ignore[return-value]


def _frozen(*arrays: NDArray[np.int64]) -> tuple[NDArray[np.int64], ...]:
    """Read-only int64 copies (cached index arrays)."""
    out = tuple(np.array(a, dtype=np.int64) for a in arrays)
    for a in out:
        a.flags.writeable = False
    return out


def _stacked(parts: list[NDArray[np.int64]], width: int) -> NDArray[np.int64]:
    return np.concatenate(parts) if parts else np.zeros((0, width), np.int64)


def violated_sibling_triangles(
    z: NDArray[np.float64], y: NDArray[np.float64], known: NDArray[np.bool_], tol: float
) -> Rows:
    """The most violated SibTriangle row of every triple of children a < b < c of a head h whose arcs are all
    above ``tol`` (arc values ``z``, (n+1, n+1); sibling values ``y``, (n+1)³, y[h,a,b] for a < b), when it
    is violated by more than ``tol`` and its parts are ``known``: (labels (k, 5) [h, a, b, c, kind],
    violations (k,))."""
    found = []
    active = z > tol
    for h in np.flatnonzero(active.sum(axis=1) >= 3):
        kids = np.flatnonzero(active[h])
        a, b, c = (kids[i] for i in _triples(kids.size))
        found.append(np.column_stack([np.full(a.size, h), a, b, c]))
    h, a, b, c = _stacked(found, 4).T
    ok = known[h, a, b] & known[h, a, c] & known[h, b, c]
    h, a, b, c = h[ok], a[ok], b[ok], c[ok]
    point = np.column_stack([z[h, a], z[h, b], z[h, c], y[h, a, b], y[h, a, c], y[h, b, c]])
    return _worst(np.column_stack([h, a, b, c]), point, tol)


def violated_cross_triangles(
    z: NDArray[np.float64],
    gp: NDArray[np.float64],
    gp_known: NDArray[np.bool_],
    sib: NDArray[np.float64],
    sib_known: NDArray[np.bool_],
    tol: float,
) -> Rows:
    """The most violated GPSibTriangle row of every arc g→h above ``tol`` and pair of children a < b of h
    above ``tol`` (g ∉ {a, b}), when violated by more than ``tol`` with its parts known (grandparent values
    ``gp``[g,h,a] and ``gp_known``, sibling values ``sib``[h,a,b] and ``sib_known``, all (n+1)³): (labels
    (k, 5) [g, h, a, b, kind], violations (k,))."""
    found = []
    active = z > tol
    for h in np.flatnonzero((active.sum(axis=1) >= 2) & active.any(axis=0)):
        kids, heads = np.flatnonzero(active[h]), np.flatnonzero(active[:, h])
        i, j = _pairs(kids.size)
        g = np.repeat(heads, i.size)
        a, b = np.tile(kids[i], heads.size), np.tile(kids[j], heads.size)
        found.append(np.column_stack([g, np.full(g.size, h), a, b]))
    g, h, a, b = _stacked(found, 4).T
    ok = (g != a) & (g != b) & gp_known[g, h, a] & gp_known[g, h, b] & sib_known[h, a, b]
    g, h, a, b = g[ok], h[ok], a[ok], b[ok]
    point = np.column_stack([z[g, h], z[h, a], z[h, b], gp[g, h, a], gp[g, h, b], sib[h, a, b]])
    return _worst(np.column_stack([g, h, a, b]), point, tol)


def _add(
    lp: LinearProgram, name: str, index: NDArray[np.int64], cols: NDArray[np.int64]
) -> NDArray[np.int64]:
    """Rows ``name[index]`` over the (k, 6) columns ``cols`` of x₁, x₂, x₃, y₁₂, y₁₃, y₂₃ (-1: a pruned
    part, 0 in every tree, left out)."""
    kind = index[:, 4]
    values = TRIANGLE_COEFFICIENTS[kind]
    rows = np.repeat(np.arange(index.shape[0]), 6).reshape(-1, 6)
    keep = (cols >= 0) & (values != 0)
    return lp.add_constraints(name, index, rows[keep], cols[keep], values[keep], upper=TRIANGLE_RHS[kind])


def _labels(index: ArrayLike) -> NDArray[np.int64]:
    idx = np.asarray(index, dtype=np.int64).reshape(-1, 5)
    if not ((idx[:, 4] >= 0) & (idx[:, 4] < 4)).all():
        raise ValueError("a triangle row's kind is 0..3")
    return idx


def sibling_triangle_known(sibs: SiblingProgram, index: NDArray[np.int64]) -> NDArray[np.bool_]:
    """Which labels [h, a, b, c, kind] name a SibTriangle row of known parts (a < b < c, in range)."""
    size = sibs.present.shape[0]
    ok = (index[:, :4] >= 0).all(axis=1) & (index[:, :4] < size).all(axis=1) & (index[:, 4] >= 0)
    ok &= (index[:, 4] < 4) & (index[:, 1] < index[:, 2]) & (index[:, 2] < index[:, 3])
    h, a, b, c = (np.where(ok, index[:, i], 0) for i in range(4))
    known = sibs.present | sibs.pruned
    return ok & known[h, a, b] & known[h, a, c] & known[h, b, c]


def cross_triangle_known(
    gp: GrandparentProgram, sibs: SiblingProgram, index: NDArray[np.int64]
) -> NDArray[np.bool_]:
    """Which labels [g, h, a, b, kind] name a GPSibTriangle row of known parts (a < b, g ∉ {a, b}, in
    range)."""
    size = sibs.present.shape[0]
    ok = (index[:, :4] >= 0).all(axis=1) & (index[:, :4] < size).all(axis=1) & (index[:, 4] >= 0)
    ok &= (index[:, 4] < 4) & (index[:, 2] < index[:, 3])
    g, h, a, b = (np.where(ok, index[:, i], 0) for i in range(4))
    ok &= (g != a) & (g != b) & (g != h)
    gp_known, sib_known = gp.present | gp.pruned, sibs.present | sibs.pruned
    return ok & gp_known[g, h, a] & gp_known[g, h, b] & sib_known[h, a, b]


def add_sibling_triangles(sibs: SiblingProgram, index: ArrayLike) -> NDArray[np.int64]:
    """Append the SibTriangle rows of the labels ``index`` ((k, 5): h, a, b, c, kind) to the sibling
    program; return them. Each part must be known (ValueError otherwise)."""
    idx = _labels(index)
    if not sibling_triangle_known(sibs, idx).all():
        raise ValueError("a SibTriangle row needs children a < b < c whose parts have a column or are pruned")
    h, a, b, c = idx[:, :4].T
    cols = np.column_stack(
        [sibs.z_col[h, a], sibs.z_col[h, b], sibs.z_col[h, c]]
        + [sibs.sibling_cols(h, u, v) for u, v in ((a, b), (a, c), (b, c))]
    )
    return _add(sibs.lp, "SibTriangle", idx, cols)


def add_cross_triangles(gp: GrandparentProgram, sibs: SiblingProgram, index: ArrayLike) -> NDArray[np.int64]:
    """Append the GPSibTriangle rows of the labels ``index`` ((k, 5): g, h, a, b, kind) to the program that
    holds both families; return them. Each part must be known (ValueError otherwise)."""
    idx = _labels(index)
    if not cross_triangle_known(gp, sibs, idx).all():
        raise ValueError("a GPSibTriangle row needs parts that have a column or are pruned")
    g, h, a, b = idx[:, :4].T
    arcs = [sibs.z_col[g, h], sibs.z_col[h, a], sibs.z_col[h, b]]
    cols = np.column_stack(arcs + [gp.triple_cols(g, h, a), gp.triple_cols(g, h, b), sibs.sibling_cols(h, a, b)])
    return _add(sibs.lp, "GPSibTriangle", idx, cols)
