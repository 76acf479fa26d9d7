"""The grandparent polytope: arc variables of an arborescence formulation plus triple variables zgp.

Riedel, Smith & McCallum (2012) §3.2. On top of an arborescence program
(``z[h,m]``, flow, OneHead, ...; :mod:`lpparse.formulations.arborescence`) come

* ``zgp[g,p,c]`` >= 0 for every candidate triple (arcs g→p and p→c candidates, g != c), cost s(g,p,c),
  integral in the ILP;
* ``ArcGP[g,p,c]``:  z[g,p] + z[p,c] - zgp[g,p,c] <= 1;
* ``GPArc[g,p,c,0]``: z[g,p] - zgp[g,p,c] >= 0 and ``GPArc[g,p,c,1]``: z[p,c] - zgp[g,p,c] >= 0 (the latter
  only without OneGP, which implies it: zgp >= 0 and Σ_g zgp[g,p,c] = z[p,c]; dropping it makes the ``all``
  LP a third smaller in rows, PPC and BF ~30% faster, same value: ``tests/test_gp_polytope.py``);
* ``OneGP[p,c]`` (arcs with p > 0):  Σ_g zgp[g,p,c] - z[p,c] = 0;
* ``NoGP[g,p]`` (every arc):  Σ_c zgp[g,p,c] - n z[g,p] <= 0.

Presets (:data:`PRESETS`): ``martins`` = ArcGP + GPArc (Martins et al. 2009), ``onegp`` = OneGP + NoGP, and
``all`` = ArcGP + GPArc + OneGP; NoGP is dropped from ``all`` because GPArc (left) summed over c implies it
(§3.2, last paragraph; ``tests/test_gp_polytope.py`` checks that adding it back never changes the value).

ArcGP is implied in ``all`` as well, given the base's OneHead rows Σ_g z[g,p] = 1: by OneGP and GPArc,
zgp[g,p,c] = z[p,c] - Σ_{g'≠g} zgp[g',p,c] >= z[p,c] - Σ_{g'≠g} z[g',p] = z[p,c] - 1 + z[g,p] (and for an
absent triple, zgp = 0, the same sum gives z[g,p] + z[p,c] <= 1, so §4.4's cut never fires). ``all`` keeps
the rows, as the paper's preset (BF and Table 2 measure them); ``families=("GPArc", "OneGP")`` is the same
LP without them (``tests/test_gp_polytope.py``), about half the rows, and BF on it is about 2x faster. When
``auto`` and exact decoding solve the full LP by brute force, they leave the rows out
(:attr:`GrandparentProgram.arcgp_implied`, :class:`lpparse.families.base.Binding`).

Rows indexed by arcs (OneGP, NoGP) exist from the start; a triple's own rows (ArcGP, GPArc) and its
coefficients in OneGP/NoGP enter with its column (:meth:`GrandparentProgram.add_triples`), so a program
holding a subset of the triples is the full program restricted to those columns minus the ArcGP/GPArc rows
of the absent triples (for which zgp = 0 leaves GPArc trivially satisfied and ArcGP a cut on z: §4.4).
``add_triples(..., arcgp=False)`` holds a triple's ArcGP row back until
:meth:`GrandparentProgram.add_arcgp_rows` adds it (parse-price-cut's lazy rows): the program is then also
missing those rows, each a valid inequality to separate.

**Pruned triples.** A candidate triple scored -inf may be in no tree: its zgp is fixed at 0, so it has no
column, and ``PrunedGP[g,p,c]``: z[g,p] + z[p,c] <= 1 (its ArcGP row at zgp = 0) forbids its two arcs
together, under every preset (with OneGP, GPArc and OneHead it is implied, as ArcGP is; without ArcGP it is
not: ``onegp`` lets z[p,c] = Σ_{g'≠g} zgp[g',p,c] with NoGP loose). OneGP and NoGP simply lack its term:
OneGP[p,c] then says that p→c has some other grandparent. ``add_triples`` gives a triple scored -inf this row
instead of a column; a program that lacks some PrunedGP rows (parse-price-cut adds them once violated) is
again the full program less some rows.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.families.pairs import add_and_rows, add_arc_rows, add_held_back_rows, held_back, taken
from lpparse.formulations.arborescence import FORMULATIONS, ArborescenceLP, arc_matrix
from lpparse.lp.program import Terms
from lpparse.lp.solution import TOL, Solution
from lpparse.lp.views import make_model
from lpparse.part_values import check_part_scores
from lpparse.trees import allowed_arcs, validate_scores
from lpparse.triples import TripleScorer, candidate_triples

__all__ = [
    "BASES",
    "DENSE_TRIPLE_CELLS",
    "FAMILIES",
    "PRESETS",
    "SEPARATED_BASES",
    "GrandparentProgram",
    "arc_program",
    "full_grandparent_program",
    "grandparent_program",
    "resolve_families",
    "solve_grandparent",
]

FAMILIES = ("ArcGP", "GPArc", "OneGP", "NoGP")
PRESETS: dict[str, tuple[str, ...]] = {
    "martins": ("ArcGP", "GPArc"),
    "onegp": ("OneGP", "NoGP"),
    "all": ("ArcGP", "GPArc", "OneGP"),
}
#: Arborescence programs a full program can sit on and be solved as it stands.
BASES = ("single-flow", "multi-flow")
#: Arborescence programs whose connectivity rows enter by separation, so only a run of the column-and-row
#: generation engine (parse-price-cut, brute force, exact search) can sit on them: ``cycle-cuts`` (NoCycle
#: rows, :class:`lpparse.formulations.arborescence.CycleCutFamily`). Its LP is the exact arborescence
#: polytope's, as the multi-commodity flow's, without the flow columns.
SEPARATED_BASES = ("cycle-cuts",)


def resolve_families(
    families: str | Iterable[str],
    known: tuple[str, ...] = FAMILIES,
    presets: dict[str, tuple[str, ...]] = PRESETS,
) -> tuple[str, ...]:
    """A preset name or an iterable of family names -> the families, in ``known`` order (the grandparent
    :data:`FAMILIES` and :data:`PRESETS` by default)."""
    if families is None:
        raise ValueError(f"give a preset ({', '.join(sorted(presets))}) or a set of {known}, not None")
    if isinstance(families, str):
        if families not in presets:
            raise ValueError(
                f"unknown preset {families!r}; choose from {sorted(presets)} or a set of {known}"
            )
        return presets[families]
    chosen = set(families)
    unknown = chosen - set(known)
    if unknown:
        raise ValueError(f"unknown constraint families {sorted(unknown)}; choose from {known}")
    if not chosen:
        raise ValueError("choose at least one constraint family")
    return tuple(f for f in known if f in chosen)


#: the most cells of a program's dense triple-to-column map (n <= 127: 16 MB); a longer sentence's program
#: looks its triples up in the zgp block's sparse index map (a dense map would take 197 MB at n = 290, copied
#: with every branch-and-bound node's master)
DENSE_TRIPLE_CELLS = 1 << 21


@dataclass
class GrandparentProgram:
    """A grandparent LinearProgram and the dense maps that grow it: (n+1, n+1) arrays, -1 = absent,
    ``z_col[h, m]``: column of z[h,m]; ``onegp_row[p, c]``, ``nogp_row[g, p]``: rows of OneGP/NoGP (when
    those families are on); (n+1, n+1, n+1) masks ``present[g, p, c]``: the triple has a zgp column
    (:meth:`triple_cols`); ``arcgp[g, p, c]``: its ArcGP row is in the program; ``pruned[g, p, c]``: the
    triple scored -inf and its PrunedGP row is in the program (module docstring).
    """

    lp: ArborescenceLP
    families: tuple[str, ...]
    arc_mask: NDArray[np.bool_]
    z_col: NDArray[np.int64]
    onegp_row: NDArray[np.int64]
    nogp_row: NDArray[np.int64]
    present: NDArray[np.bool_]
    arcgp: NDArray[np.bool_]
    pruned: NDArray[np.bool_]
    #: (n+1, n+1, n+1) column of each triple (-1: none), the dense twin of the zgp block's index map while it
    #: has at most :data:`DENSE_TRIPLE_CELLS` cells (None beyond: :meth:`triple_cols` reads the index map)
    triple_col: NDArray[np.int64] | None = field(init=False)

    def __post_init__(self) -> None:
        dense = self.present.size <= DENSE_TRIPLE_CELLS
        self.triple_col = np.full(self.present.shape, -1, np.int64) if dense else None

    @property
    def n(self) -> int:
        return self.arc_mask.shape[0] - 1

    def use_families(self, families: str | Iterable[str]) -> None:
        """Turn on the grandparent constraint ``families`` (a preset or family names) of a program without
        any yet (:func:`arc_program`): the OneGP/NoGP rows over its arcs, the triples' rows as they enter."""
        if self.families or self.num_triples or self.pruned.any():
            raise ValueError("the grandparent families are chosen once, before any triple enters")
        fams = resolve_families(families)
        lp, z_col = self.lp, self.z_col
        arcs = lp.var_blocks["z"].index
        z = z_col[arcs[:, 0], arcs[:, 1]]
        n = self.n
        if "OneGP" in fams:  # OneGP[p,c]: Σ_g zgp[g,p,c] - z[p,c] = 0, the zgp terms coming with the triples
            word = arcs[:, 0] > 0
            self.onegp_row[arcs[word, 0], arcs[word, 1]] = lp.constrain(
                "OneGP", arcs[word], -Terms.columns(z[word]), 0.0, 0.0
            )
        if "NoGP" in fams:  # NoGP[g,p]: Σ_c zgp[g,p,c] - n z[g,p] <= 0
            self.nogp_row[arcs[:, 0], arcs[:, 1]] = lp.constrain(
                "NoGP", arcs, -float(n) * Terms.columns(z), upper=0.0
            )
        self.families = fams

    @property
    def num_triples(self) -> int:
        return len(self.lp.var_blocks["zgp"]) if "zgp" in self.lp.var_blocks else 0

    def add_triples(
        self, g: ArrayLike, p: ArrayLike, c: ArrayLike, scores: ArrayLike, arcgp: bool = True
    ) -> NDArray[np.int64]:
        """Append zgp columns for new candidate triples with costs ``scores``, their coefficients in the OneGP
        and NoGP rows and their own ArcGP (unless ``arcgp=False``: see :meth:`add_arcgp_rows`) and GPArc rows,
        in one batch; return the new columns. A triple scored -inf gets its PrunedGP row instead of a
        column."""
        g, p, c = (np.asarray(a, dtype=np.int64).ravel() for a in (g, p, c))
        scores = np.asarray(scores, dtype=np.float64)
        if scores.shape != g.shape:
            scores = np.broadcast_to(scores, g.shape)
        k = g.shape[0]
        if k == 0:
            return np.empty(0, np.int64)
        if not (self.arc_mask[g, p] & self.arc_mask[p, c] & (g != c)).all():
            raise ValueError("every triple needs candidate arcs g→p and p→c and g != c")
        if taken((g, p, c), self.present, self.pruned):
            raise ValueError("triple added twice")
        cut = np.isneginf(scores)
        if cut.any():
            gc, pc, cc = g[cut], p[cut], c[cut]
            add_and_rows(
                self.lp, "PrunedGP", np.column_stack([gc, pc, cc]), self._z(gc, pc), self._z(pc, cc), None
            )
            self.pruned[gc, pc, cc] = True
            g, p, c, scores = g[~cut], p[~cut], c[~cut], scores[~cut]
            k = g.shape[0]
            if k == 0:
                return np.empty(0, np.int64)
        lp = self.lp
        gpc = np.column_stack([g, p, c])
        cols = lp.add_variables("zgp", gpc, cost=scores, integer=True)
        self.present[g, p, c] = True
        if self.triple_col is not None:
            self.triple_col[g, p, c] = cols
        ones = np.ones(k)
        if "OneGP" in self.families:  # the rows OneGP[p,c] and NoGP[g,p] through the dense maps
            lp.add_coefficients(self.onegp_row[p, c], cols, ones)
        if "NoGP" in self.families:
            lp.add_coefficients(self.nogp_row[g, p], cols, ones)
        zgp = Terms.columns(cols)
        arcs = (self._z(g, p), self._z(p, c))
        if arcgp and "ArcGP" in self.families:
            self._add_arcgp(gpc, zgp)
        if "GPArc" in self.families:
            # with OneGP, zgp[g,p,c] <= Σ_g' zgp[g',p,c] = z[p,c]: the right-hand GPArc row is implied
            sides = [0] if "OneGP" in self.families else [0, 1]
            add_arc_rows(lp, "GPArc", gpc, [arcs[i] for i in sides], sides, zgp)
        return cols

    def _z(self, h: NDArray[np.int64], m: NDArray[np.int64]) -> Terms:
        """Terms z[h,m] of candidate arcs, through the dense arc map."""
        return Terms.columns(self.z_col[h, m])

    def _add_arcgp(self, gpc: NDArray[np.int64], zgp: Terms) -> None:
        """ArcGP rows z[g,p] + z[p,c] - zgp[g,p,c] <= 1 of the triples ``gpc`` (k, 3) with columns ``zgp``."""
        g, p, c = gpc.T
        add_and_rows(self.lp, "ArcGP", gpc, self._z(g, p), self._z(p, c), zgp)
        self.arcgp[g, p, c] = True

    @property
    def arcgp_implied(self) -> bool:
        """Whether OneGP and GPArc are on, so that with the base's OneHead rows they imply every ArcGP row
        (module docstring): the program without ArcGP rows has the same LP."""
        return {"OneGP", "GPArc"} <= set(self.families)

    @property
    def held_back_arcgp(self) -> int:
        """How many triples with a column lack their ArcGP row (0 without the ArcGP family)."""
        return held_back(self.lp, self.families, "ArcGP", self.num_triples)

    def add_arcgp_rows(self, g: ArrayLike, p: ArrayLike, c: ArrayLike) -> None:
        """Append the ArcGP rows z[g,p] + z[p,c] - zgp[g,p,c] <= 1 of present triples that lack them (no-op
        without the ArcGP family)."""
        add_held_back_rows(
            self.lp, self.families, "ArcGP", "zgp", self.present, self.arcgp, (g, p, c), self._add_arcgp
        )

    def triple_cols(self, g: ArrayLike, p: ArrayLike, c: ArrayLike) -> NDArray[np.int64]:
        """Columns of the triples (g, p, c) (-1: no column)."""
        g, p, c = (np.atleast_1d(np.asarray(a, np.int64)) for a in (g, p, c))
        if self.triple_col is not None:
            return self.triple_col[g, p, c]
        if self.num_triples == 0:
            return np.full(np.broadcast(g, p, c).shape, -1, np.int64)
        g, p, c = np.broadcast_arrays(g, p, c)
        found = self.lp.var_blocks["zgp"].find(np.column_stack([g.ravel(), p.ravel(), c.ravel()]))
        return found.reshape(g.shape)

    def triples(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """(g, p, c) of the triples with a column, in column order."""
        if "zgp" not in self.lp.var_blocks:
            return (np.empty(0, np.int64),) * 3  # type: ignore[return-value]
        idx = self.lp.var_blocks["zgp"].index
        return idx[:, 0], idx[:, 1], idx[:, 2]

    def arc_values(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """(n+1, n+1) z values of a primal vector (0 for absent arcs)."""
        return arc_matrix(self.lp, x)

    def triple_values(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """zgp values of a primal vector, aligned with :meth:`triples`."""
        return x[self.lp.cols("zgp")] if "zgp" in self.lp.var_blocks else np.empty(0)


def grandparent_program(
    arc_scores: ArrayLike,
    families: str | Iterable[str] = "all",
    single_root: bool = False,
    base: str = "single-flow",
) -> GrandparentProgram:
    """The arborescence program ``base`` (a key of :data:`BASES`) with the OneGP/NoGP rows of ``families``
    and no triple yet (add them with :meth:`GrandparentProgram.add_triples`). Raises NoTreeError."""
    if base not in BASES:
        raise ValueError(f"unknown base formulation {base!r}; choose from {BASES}")
    prog = arc_program(arc_scores, single_root, base)
    prog.use_families(families)
    return prog


def arc_program(arc_scores: ArrayLike, single_root: bool = False, base: str = "single-flow") -> GrandparentProgram:
    """The arborescence program ``base`` (a key of :data:`BASES` or :data:`SEPARATED_BASES`, whose rows a run
    of the engine separates) as a grandparent program without constraint families and triples: the base
    every part family attaches to (:meth:`GrandparentProgram.use_families` turns the grandparent families
    on). Raises NoTreeError."""
    if base not in BASES + SEPARATED_BASES:
        raise ValueError(f"unknown base formulation {base!r}; choose from {BASES + SEPARATED_BASES}")
    s = validate_scores(arc_scores)
    lp = FORMULATIONS[base](s, single_root)
    lp.name = f"grandparent/{base}"
    size = s.shape[0]
    arcs = lp.var_blocks["z"].index
    z_col = np.full((size, size), -1, np.int64)
    z_col[arcs[:, 0], arcs[:, 1]] = lp.cols("z")
    lp.add_variables("zgp", np.empty((0, 3), np.int64), integer=True)
    cube = (size, size, size)
    none = np.full((size, size), -1, np.int64)
    return GrandparentProgram(
        lp,
        (),
        allowed_arcs(s),
        z_col,
        none,
        none.copy(),
        np.zeros(cube, bool),
        np.zeros(cube, bool),
        np.zeros(cube, bool),
    )


def _dense_triple_costs(
    arc_mask: NDArray[np.bool_], triple_scores: TripleScorer | ArrayLike
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]:
    """Every candidate triple (g, p, c) and its score (counted when ``triple_scores`` is a scorer)."""
    g, p, c = candidate_triples(arc_mask)
    if isinstance(triple_scores, TripleScorer):
        if triple_scores.n != arc_mask.shape[0] - 1:
            raise ValueError(
                f"triple scorer is for n={triple_scores.n}, arc scores for n={arc_mask.shape[0] - 1}"
            )
        return g, p, c, triple_scores.score(g, p, c)
    gp = np.asarray(triple_scores, dtype=np.float64)
    if gp.shape != (arc_mask.shape[0],) * 3:
        raise ValueError(f"triple scores must have shape {(arc_mask.shape[0],) * 3}, got {gp.shape}")
    return g, p, c, gp[g, p, c]


def full_grandparent_program(
    arc_scores: ArrayLike,
    triple_scores: TripleScorer | ArrayLike,
    families: str | Iterable[str] = "all",
    single_root: bool = False,
    base: str = "single-flow",
) -> GrandparentProgram:
    """The full grandparent program: every candidate triple scored (``triple_scores`` a TripleScorer or a
    dense (n+1,)*3 array) and instantiated — the brute-force (BF) LP of §6 (a triple scored -inf as its
    PrunedGP row)."""
    prog = grandparent_program(arc_scores, families, single_root, base)
    g, p, c, values = _dense_triple_costs(prog.arc_mask, triple_scores)
    check_part_scores(values, "triple")
    prog.add_triples(g, p, c, values)
    return prog


def solve_grandparent(  # long: the polytope's choices (families, base, root rule) and the solver's
    arc_scores: ArrayLike,
    triple_scores: TripleScorer | ArrayLike,
    families: str | Iterable[str] = "all",
    mip: bool = False,
    single_root: bool = False,
    base: str = "single-flow",
    view: str = "highs",
    time_limit: float | None = None,
    tol: float = TOL,
) -> tuple[GrandparentProgram, Solution]:
    """Build the full program and solve it as LP (``mip=False``) or ILP in ``view``; the Solution carries
    lpparse's certificate (:func:`~lpparse.formulations.arborescence.heads_from_solution` gives the tree of an
    integral solution)."""
    prog = full_grandparent_program(arc_scores, triple_scores, families, single_root, base)
    model = make_model(prog.lp, view=view, mip=mip, time_limit=time_limit, tol=tol)
    return prog, model.solve()
