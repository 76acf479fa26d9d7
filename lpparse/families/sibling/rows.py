"""The arbitrary-sibling polytope: sibling variables zsib over the arc variables of an arborescence program
or a grandparent program.

Martins, Smith & Xing 2009, "Concise Integer Linear Programming Formulations for Dependency Parsing",
ACL-IJCNLP 2009: a part ⟨h, m, m'⟩ (m < m') is on when h heads both m and m'. On top of a program with arc
columns ``z[h,m]`` (:mod:`lpparse.formulations.arborescence`, or the ``lp`` of a
:class:`~lpparse.families.grandparent.rows.GrandparentProgram`) come

* ``zsib[h,m,m']`` >= 0 for every candidate part (arcs h→m and h→m' candidates; no part has h = 0 when the
  root takes one child), cost s(h,m,m'), integral in the ILP;
* ``ArcSib[h,m,m']``: z[h,m] + z[h,m'] - zsib[h,m,m'] <= 1;
* ``SibArc[h,m,m',0]``: z[h,m] - zsib[h,m,m'] >= 0 and ``SibArc[h,m,m',1]``: z[h,m'] - zsib[h,m,m'] >= 0;
* ``SibClique[h,α]``, α = 1..N_h - 2 with N_h the candidate children of h:
  α Σ_m z[h,m] - Σ_{m<m'} zsib[h,m,m'] <= α(α+1)/2.
* ``SibTriangle[h,a,b,c,k]`` for children a < b < c of h, separated (never built in full): with x_a, x_b,
  x_c the arcs z[h,·] and y_ab, y_ac, y_bc the parts zsib[h,·,·], k = 0: x_a + x_b + x_c - y_ab - y_ac -
  y_bc <= 1; k = 1, 2, 3 (apex a, b, c): y_ab + y_ac - y_bc <= x_a, y_ab + y_bc - y_ac <= x_b, y_ac + y_bc
  - y_ab <= x_c (:mod:`lpparse.families.sibling.triangles`).

ArcSib and SibArc are the linearization of zsib = z[h,m] z[h,m'] (:mod:`lpparse.families.pairs`): on a
tree they force zsib to the product, so the ILP's optima are the best trees. SibClique is valid for every
tree: with d children of h, Σ zsib = d(d-1)/2 and α d - d(d-1)/2 <= α(α+1)/2 ⇔ (d - α)(d - α - 1) >= 0, true
for every integer d (equality at d = α and α + 1). For each h, (z[h,·], zsib[h,·,·]) lies in the Boolean
quadric polytope, and these are its clique inequalities on the whole child set, facets when N_h >= α + 2
(Padberg 1989, "The Boolean quadric polytope: some characteristics, facets and relatives", Mathematical
Programming 45: 139-172). ArcSib and SibArc do not imply them: three children at z = 1/2 with zsib = 0
satisfy both and violate SibClique[h,1] (3/2 > 1); α = N_h - 1 is ArcSib summed over the pairs of h, so it is
left out. A point z of the arc polytope extends with zsib = z[h,m] z[h,m'] (the mean of independent
Bernoulli children, a point of the Boolean quadric polytope), so sibling scores of zero leave the LP value
of the program below unchanged.

SibTriangle rows are the triangle inequalities of the same polytope, facets of it (Padberg 1989,
op. cit.): valid for every tree as zsib is the product of the arcs, and not implied by ArcSib and
SibArc: x_a = x_b = x_c = 1/2 with y_ab = y_ac = 1/2 and y_bc = 0 satisfies both and violates the row of
apex a by 1/2. There are 4 C(N_h, 3) of them per head, so they are cuts:
:mod:`lpparse.families.sibling.triangles` finds those the current point violates over parts that have a column
(or are pruned: zsib = 0 in every tree), and a row enters with its six coefficients only, so a part that
enters later has none in it. A proof names each by its label, from which the checker rebuilds it
(:mod:`lpparse.proofs.check`). On the Danish grandparent + sibling
model (pruned arcs), the root LP of exact decoding is fractional on 23 dev sentences without them; with
them 9 of those close at the root and the 23 take 67 nodes against 101 (with the GPSibTriangle rows across
grandparents too, 18 and 35 nodes).

SibClique has O(n²) rows with O(n²) coefficients each, so it is not the default (``martins`` is). Measured
here: on 40 random instances (n = 6, arcs + siblings) it closes fractional optima only for negative sibling
scores (fractional 21 -> 18, mean gap 0.124 -> 0.096; N(0,1) scores: no change); on a grandparent + sibling
model trained on 1,500 Danish sentences, over 133 dev sentences of 5-20 tokens, BF is 95.5% integral with
or without it and 2.4x slower with it (33.8 s against 13.9 s).

The bound ``N_h - 1`` on Σ_{m'} zsib[h,m,m'] <= (N_h - 1) z[h,m] (the sibling NoGP) is SibArc summed over
m', so it is not a family here.

Rows indexed by heads (SibClique) exist from the start; a part's own rows (ArcSib, SibArc) and its
coefficients in SibClique enter with its column (:meth:`SiblingProgram.add_siblings`), so a program holding
some of the parts is the full program with the absent columns at 0, less the ArcSib/SibArc rows of absent
parts (zsib = 0 satisfies SibArc; ArcSib becomes a cut z[h,m] + z[h,m'] <= 1 on the arcs). With SibClique
and no part of h present, row α = 1 allows h one child: a restricted program needs the parts of some tree.
``add_siblings(..., arcsib=False)`` holds a part's ArcSib row back until
:meth:`SiblingProgram.add_arcsib_rows` adds it (parse-price-cut's lazy rows,
:class:`lpparse.families.sibling.family.SiblingParts`): the program then also misses those rows, each valid, to separate.
Unlike ArcGP in the grandparent ``all`` preset, ArcSib is not implied, and many enter (Danish dev, trained
grandparent + sibling model, unpruned: a fifth of the rows left out in the end); the LP is the same and
smaller: 12 sentences of 25-40 tokens 5.8 s against 6.3 s, 8 of 41-60 tokens 60 s against 92 s.

**Pruned parts.** A candidate part scored -inf may be in no tree: zsib is fixed at 0, so it has no column,
and ``PrunedSib[h,m,m']``: z[h,m] + z[h,m'] <= 1 (its ArcSib row at zsib = 0) keeps h from heading both,
under every preset; SibClique lacks its term. :meth:`SiblingProgram.add_siblings` gives a part scored -inf
this row instead of a column.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.families.grandparent.rows import resolve_families
from lpparse.families.pairs import (
    OnArcs,
    add_and_rows,
    add_arc_rows,
    add_held_back_rows,
    held_back,
    taken,
)
from lpparse.formulations.arborescence import ArborescenceLP
from lpparse.lp.program import Terms
from lpparse.triples import candidate_siblings, sibling_mask

__all__ = [
    "SIBLING_FAMILIES",
    "SIBLING_PRESETS",
    "SiblingProgram",
    "sibling_program",
]

SIBLING_FAMILIES = ("ArcSib", "SibArc", "SibClique", "SibTriangle")
SIBLING_PRESETS: dict[str, tuple[str, ...]] = {
    "martins": ("ArcSib", "SibArc"),
    "all": ("ArcSib", "SibArc", "SibClique"),
    "triangles": ("ArcSib", "SibArc", "SibTriangle"),
}


def _ragged(counts: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """(owner, within) of a ragged enumeration: item i owns ``counts[i]`` entries numbered 0..counts[i]-1."""
    owner = np.repeat(np.arange(counts.size), counts)
    within = np.arange(owner.size) - np.repeat(np.cumsum(counts) - counts, counts)
    return owner, within


@dataclass
class SiblingProgram(OnArcs):
    """Sibling columns and rows on an arborescence program (arc columns ``z``), and the dense maps that grow
    them: ``z_col[h, m]``: column of z[h,m] (-1 = no arc); ``clique_row[h, α]``: row of SibClique[h,α] (-1 =
    none); masks ``present[h, m, m']``: the part has a column (:meth:`sibling_cols`); ``pruned[h, m, m']``:
    the part scored -inf and its PrunedSib row is in the program (module docstring); ``arcsib[h, m, m']``: the
    part's ArcSib row is in the program.
    """

    lp: ArborescenceLP
    families: tuple[str, ...]
    single_root: bool
    z_col: NDArray[np.int64]
    clique_row: NDArray[np.int64]
    present: NDArray[np.bool_]
    pruned: NDArray[np.bool_]
    arcsib: NDArray[np.bool_]

    @property
    def num_siblings(self) -> int:
        return len(self.lp.var_blocks["zsib"])

    @property
    def held_back_arcsib(self) -> int:
        """How many parts with a column lack their ArcSib row (0 without the ArcSib family)."""
        return held_back(self.lp, self.families, "ArcSib", self.num_siblings)

    def add_arcsib_rows(self, h: ArrayLike, m: ArrayLike, m2: ArrayLike) -> None:
        """Append the ArcSib rows z[h,m] + z[h,m'] - zsib[h,m,m'] <= 1 of present parts that lack them (no-op
        without the ArcSib family)."""
        add_held_back_rows(
            self.lp, self.families, "ArcSib", "zsib", self.present, self.arcsib, (h, m, m2), self._add_arcsib
        )

    def _add_arcsib(self, index: NDArray[np.int64], zsib: Terms) -> None:
        """ArcSib rows of the parts ``index`` (k, 3) with columns ``zsib``."""
        h, m, m2 = index.T
        add_and_rows(
            self.lp, "ArcSib", index, Terms.columns(self.z_col[h, m]), Terms.columns(self.z_col[h, m2]), zsib
        )
        self.arcsib[h, m, m2] = True

    def candidates(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """(h, m, m') of every candidate part of the program's arcs and root rule."""
        return candidate_siblings(self.arc_mask, self.single_root)

    def add_siblings(
        self, h: ArrayLike, m: ArrayLike, m2: ArrayLike, scores: ArrayLike, arcsib: bool = True
    ) -> NDArray[np.int64]:
        """Append zsib columns for new candidate parts with costs ``scores``, their coefficients in the
        SibClique rows and their own ArcSib (unless ``arcsib=False``: :meth:`add_arcsib_rows` adds it later)
        and SibArc rows, in one batch; return the new columns. A part scored -inf gets its PrunedSib row
        instead of a column."""
        h, m, m2 = (np.asarray(a, dtype=np.int64).ravel() for a in (h, m, m2))
        scores = np.broadcast_to(np.asarray(scores, dtype=np.float64), h.shape)
        k = h.size
        if k == 0:
            return np.empty(0, np.int64)
        if not sibling_mask(self.arc_mask, self.single_root)[h, m, m2].all():
            raise ValueError(
                "every part needs candidate arcs h→m and h→m', m < m' (and h > 0 with a single root)"
            )
        if taken((h, m, m2), self.present, self.pruned):
            raise ValueError("sibling part added twice")
        cut = np.isneginf(scores)
        if cut.any():
            hc, mc, m2c = h[cut], m[cut], m2[cut]
            index = np.column_stack([hc, mc, m2c])
            first, second = Terms.columns(self.z_col[hc, mc]), Terms.columns(self.z_col[hc, m2c])
            add_and_rows(self.lp, "PrunedSib", index, first, second, None)
            self.pruned[hc, mc, m2c] = True
            h, m, m2, scores = h[~cut], m[~cut], m2[~cut], scores[~cut]
            if h.size == 0:
                return np.empty(0, np.int64)
        lp = self.lp
        index = np.column_stack([h, m, m2])
        cols = lp.add_variables("zsib", index, cost=scores, integer=True)
        self.present[h, m, m2] = True
        zsib, first, second = (
            Terms.columns(cols),
            Terms.columns(self.z_col[h, m]),
            Terms.columns(self.z_col[h, m2]),
        )
        if "SibClique" in self.families:  # zsib[h,m,m'] in SibClique[h,α] for α = 1..N_h - 2
            owner, within = _ragged((self.clique_row[h] >= 0).sum(axis=1))
            lp.add_terms("SibClique", -Terms.columns(cols[owner]).at(np.column_stack([h[owner], within + 1])))
        if arcsib and "ArcSib" in self.families:
            self._add_arcsib(index, zsib)
        if "SibArc" in self.families:
            add_arc_rows(lp, "SibArc", index, [first, second], [0, 1], zsib)
        return cols

    def siblings(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """(h, m, m') of the parts with a column, in column order."""
        idx = self.lp.var_blocks["zsib"].index
        return idx[:, 0], idx[:, 1], idx[:, 2]

    def sibling_cols(self, h: ArrayLike, m: ArrayLike, m2: ArrayLike) -> NDArray[np.int64]:
        """Columns of the parts (h, m, m') (-1: no column), through the zsib block's index map (sparse for a
        restricted master: :class:`~lpparse.lp.program.IndexMap`)."""
        return self.lp.var_blocks["zsib"].find(np.column_stack([h, m, m2]))

    def sibling_values(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """zsib values of a primal vector, aligned with :meth:`siblings`."""
        return x[self.lp.cols("zsib")]


def sibling_program(lp: ArborescenceLP, families: str | Iterable[str] = "martins") -> SiblingProgram:
    """Attach the sibling family to ``lp`` (an arborescence program, or a grandparent program's ``lp``) with
    the SibClique rows of ``families`` (a key of :data:`SIBLING_PRESETS` or a subset of
    :data:`SIBLING_FAMILIES`) and no part yet."""
    fams = resolve_families(families, SIBLING_FAMILIES, SIBLING_PRESETS)
    if "zsib" in lp.var_blocks:
        raise ValueError("the sibling family is attached to this program already")
    size = lp.n + 1
    single_root = lp.single_root
    arcs = lp.var_blocks["z"].index
    z_col = np.full((size, size), -1, np.int64)
    z_col[arcs[:, 0], arcs[:, 1]] = lp.cols("z")
    clique_row = np.full((size, size), -1, np.int64)
    if "SibClique" in fams:
        children = (z_col >= 0).sum(axis=1)
        if single_root:
            children[0] = 0  # no part has h = 0
        alpha = np.arange(size)
        head, a = np.nonzero((alpha[None, :] >= 1) & (alpha[None, :] <= children[:, None] - 2))
        owner, within = _ragged(children[head])
        kids = np.argsort(z_col < 0, axis=1, kind="stable")  # each head's candidate children first
        rows = np.column_stack(
            [head, a]
        )  # SibClique[h,α]: α Σ_m z[h,m] (- Σ zsib, with the parts) <= α(α+1)/2
        arcs_in = np.column_stack([head[owner], kids[head[owner], within]])
        terms = a[owner] * lp.var("z", arcs_in).at(rows[owner])
        clique_row[head, a] = lp.constrain("SibClique", rows, terms, upper=a * (a + 1) / 2.0)
    lp.name += "+sibling"
    lp.add_variables("zsib", np.empty((0, 3), np.int64), integer=True)
    cube = (size,) * 3
    none = np.zeros(cube, bool)
    return SiblingProgram(lp, fams, single_root, z_col, clique_row, none, none.copy(), none.copy())
