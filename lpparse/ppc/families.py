"""The part families of parse-price-cut on the column-and-row generation engine (:mod:`lpparse.colgen`):
grandparent triples ⟨g,p,c⟩ (:class:`GrandparentFamily`) and arbitrary siblings ⟨h,m,m'⟩
(:class:`SiblingFamily`), both over the arc columns of an arborescence program.

**Grandparents** (Riedel, Smith & McCallum 2012, §4): pricing with OneGP dual
tightening and the GPArc duals of absent triples, factorized and per-triple bounds, partial pricing, deferral
and lazy scoring (:mod:`lpparse.ppc.pricing`); ArcGP separation, with held-back rows under ``lazy_arcgp``
(:mod:`lpparse.ppc.separation`); dead arcs kept out of HiGHS (:mod:`lpparse.ppc.dead_arcs`).

**Siblings** (:mod:`lpparse.formulations.sibling`). With the duals of an absent part's own ArcSib/SibArc
rows at 0, the reduced cost of an absent zsib[h,m,m'] in the full LP is

    r(h,m,m') = s(h,m,m') + Σ_α μ_SibClique(h,α)

(zsib has coefficient -1 in the <= rows SibClique, whose duals are >= 0; 0 under the default ``martins``
preset, which has none), bounded without scoring by min(s̄(h,m), s̄(h,m')) + Σ_α μ_SibClique(h,α) (the
scorer's ``bound_hm``) and, if the scorer offers them, its per-part bounds ``bound_siblings``. Dual
tightening as for GPArc: an arc h→m at 0 with reduced cost d_z < 0 has slack β = -d_z (what the grandparent
family left of it); giving the tight SibArc row z[h,m] - zsib[h,m,m'] >= 0 (side 0; side 1 on h→m') of an
absent part the dual -λ lowers the part's reduced cost by λ and raises d_z by λ, so with the λ of an arc
summed within its β the extended duals stay feasible and complementary. Parts are priced out greedily,
cheapest first, on their bounds (never scored), then on their exact reduced costs. Separation: an absent
part has zsib = 0, so its ArcSib row reads z[h,m] + z[h,m'] <= 1; the violated ones enter as columns. With
SibTriangle (the ``triangles`` preset; exact decoding adds it to any), a fractional point also gets the most
violated SibTriangle and GPSibTriangle cuts over parts with columns (:mod:`lpparse.formulations.triangles`): valid for every tree, they
tighten the LP that a certificate is about (absent parts have no coefficient in them, so pricing is
unchanged). The start: the sibling parts of the first-order best tree, and those of a warm start
(:class:`lpparse.colgen.Warm`).

**Pruned parts** (scored -inf; :mod:`lpparse.formulations.grandparent`, :mod:`lpparse.formulations.sibling`)
have no column in the full LP but their PrunedGP/PrunedSib row z + z' <= 1, under every preset. Pricing never
adds one (its reduced cost is -inf; the factorized bounds stay valid); separation scores the absent parts
whose ArcGP/ArcSib row is violated and adds a pruned one's row alone (without the ArcGP/ArcSib family it keeps
only those). Both families start from a tree T with no pruned part (:func:`clean_tree`), so the restricted LP
stays feasible (T satisfies every row that enters); if none is found, every part enters at the start (the
restricted LP is then the full LP).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from lpparse.colgen.cache import ScoreCache
from lpparse.colgen.family import DualState, PartFamily, Priced, Separated, Warm
from lpparse.formulations.arborescence import arc_matrix
from lpparse.formulations.arc_heads import ARC_HEADS_BLOCK, add_arc_heads, arc_heads_known, violated_arc_heads
from lpparse.formulations.grandparent import GrandparentProgram
from lpparse.formulations.grandparent_chains import CHAINS, add_chain_rows, chain_known, violated_chains
from lpparse.formulations.sibling import SiblingProgram, sibling_program
from lpparse.formulations.triangles import (
    add_cross_triangles,
    add_sibling_triangles,
    cross_triangle_known,
    sibling_triangle_known,
    violated_cross_triangles,
    violated_sibling_triangles,
)
from lpparse.lp.solution import Solution
from lpparse.oracles.chu_liu_edmonds import chu_liu_edmonds
from lpparse.ppc.dead_arcs import DeadArcs
from lpparse.ppc.parts import Binding, GrandparentParts, SiblingParts, named_labels, tree_triples
from lpparse.ppc.pricing import PriceResult, Triples, _spend, arc_slack, gp_duals, price
from lpparse.ppc.separation import CutResult, separate_arcgp
from lpparse.trees import NoTreeError
from lpparse.triples import (
    candidate_triples,
    sibling_mask,
    tree_siblings,
    triple_mask,
)

if TYPE_CHECKING:  # the engine hands families its HiGHS master; building their rows needs none
    from lpparse.lp.highs_view import HighsModel

__all__ = ["Counted", "GPArcDuals", "GrandparentFamily", "SiblingFamily", "clean_tree", "initial_triples"]

#: (g, p, c, λ): absent triples whose GPArc row z[g,p] - zgp[g,p,c] >= 0 carries dual -λ (pricing module)
GPArcDuals = tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]
_EMPTY = np.empty(0, np.int64)
NO_GPARC: GPArcDuals = (_EMPTY, _EMPTY, _EMPTY, np.empty(0))
_NONE: Triples = (_EMPTY, _EMPTY, _EMPTY)
_NO_SIBARC: tuple[NDArray[np.int64], ...] = (_EMPTY,) * 4 + (np.empty(0),)
#: SibTriangle separation: the violation a row needs, and at most this many rows per token a round
TRIANGLE_TOL = 1e-4
TRIANGLES_PER_TOKEN = 4
#: GPChain and GPSibChain separation: the violation a row needs, and at most this many rows per token a round
CHAIN_TOL = 1e-4
CHAINS_PER_TOKEN = 4


def _arc_slack(
    state: DualState, prog: GrandparentProgram | SiblingProgram, tighten: bool
) -> NDArray[np.float64]:
    """The round's shared arc slack β (:func:`lpparse.ppc.pricing.arc_slack`), or zeros without tightening."""
    if not tighten:
        return np.zeros(prog.z_col.shape)
    sol = state.solution
    assert sol.col_dual is not None
    return state.cached("arc_slack", lambda: arc_slack(prog, state.x, sol.col_dual))  # type: ignore[arg-type]


def _arc_values(state: DualState, prog: GrandparentProgram | SiblingProgram) -> NDArray[np.float64]:
    """(n+1, n+1) arc values of the round's solution, computed once a round."""
    return state.cached("arc_values", lambda: arc_matrix(prog.lp, state.x))


def _arc_shift(
    num_cols: int,
    z_col: NDArray[np.int64],
    h: NDArray[np.int64],
    m: NDArray[np.int64],
    lam: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Aᵀy over the program's columns of absent rows z[h,m] - part >= 0 with duals -λ: -λ summed on z[h,m]."""
    shift = np.zeros(num_cols)
    np.add.at(shift, z_col[h, m], -lam)
    return shift


def _union(parts: list[Triples], size: int) -> Triples:
    """The distinct parts of ``parts`` (index triples over 0..size-1), in lexicographic order."""
    keys = np.concatenate([np.ravel_multi_index(part, (size,) * 3) for part in parts])
    i, j, k = np.unravel_index(np.unique(keys), (size,) * 3)
    return i.astype(np.int64), j.astype(np.int64), k.astype(np.int64)


def initial_triples(
    arc_scores: NDArray[np.float64],
    arc: NDArray[np.bool_],
    tree: NDArray[np.int64],
    init: str,
    seed_heads: int | None,
    warm: Triples | None = None,
) -> Triples:
    """One triple per word arc h→m with h among the ``seed_heads`` best-scoring heads of m (None: every
    arc), the triples of the first-order best tree T (Chu-Liu-Edmonds, ``tree``) and the candidate ones of
    ``warm`` (a warm start's triples).

    ``root`` (§4.2): ⟨0,h,m⟩ when 0→h is a candidate; ``tree``: ⟨head_T(h),h,m⟩, else ⟨0,h,m⟩. Either way T's
    own triples are present, so T is feasible in the restricted LP: with GPArc or NoGP, ⟨0,h,m⟩ alone allows
    only trees of depth 2, which pruned arcs or a single root can make infeasible.
    """
    s = arc_scores
    seed = arc
    if seed_heads is not None:
        rank = np.argsort(np.argsort(-np.where(arc, s, -np.inf), axis=0, kind="stable"), axis=0)
        seed = arc & (rank < seed_heads)
    h, m = np.nonzero(seed)
    word = h > 0
    h, m = h[word], m[word]
    g = np.zeros(h.size, np.int64)
    if init == "tree":
        g = tree[h]
        g = np.where(g == m, 0, g)
    ok = arc[g, h] & (g != m)
    tm = np.flatnonzero(tree > 0)
    parts = [(g[ok], h[ok], m[ok]), (tree[tree[tm]], tree[tm], tm)]
    if warm is not None:
        wg, wp, wc = warm
        keep = arc[wg, wp] & arc[wp, wc]
        parts.append((wg[keep], wp[keep], wc[keep]))
    return _union(parts, s.shape[0])


def clean_tree(
    arc_scores: NDArray[np.float64],
    single_root: bool,
    tree: NDArray[np.int64],
    families: Sequence[PartFamily],
) -> NDArray[np.int64] | None:
    """A tree without pruned parts (scored -inf), to start the restricted LP from (module docstring):
    ``tree`` (the first-order best tree) while it holds one, parsed again (Chu-Liu-Edmonds) without the arcs
    that the families' ``pruned_arcs`` name, at most n + 1 times. None when that leaves no tree or no try
    succeeds (a tree without pruned parts may still exist: it avoids forbidden pairs of arcs, which no greedy
    search guarantees). Scores the parts of every tree it tries."""
    s = arc_scores.copy()
    for _ in range(s.shape[0]):
        arcs = [family.pruned_arcs(tree) for family in families]
        h = np.concatenate([a[0] for a in arcs])
        if h.size == 0:
            return tree
        s[h, np.concatenate([a[1] for a in arcs])] = -np.inf
        try:
            tree = chu_liu_edmonds(s, single_root=single_root)
        except NoTreeError:
            return None
    return None


def _copy_sharing(family: Any, memo: dict[int, Any], shared: tuple[Any, ...]) -> Any:
    """A deep copy of ``family`` (through ``memo``) that shares the objects ``shared`` with it."""
    for obj in shared:
        memo.setdefault(id(obj), obj)
    twin = object.__new__(type(family))
    memo[id(family)] = twin
    for name, value in vars(family).items():
        setattr(twin, name, copy.deepcopy(value, memo))
    return twin


class Counted:
    """What a part family counts, for :class:`lpparse.colgen.PartFamily`: its ``candidates``, the parts
    scored in this run through its score ``cache`` (``scored``: counted by the cache's scorer) and the time
    the cache spent scoring (``scoring_seconds``). A family's base class."""

    def __init__(self, cache: ScoreCache, candidates: int) -> None:
        self.cache = cache
        self._scored0, self._seconds0, self._candidates = cache.scorer.scored, cache.seconds, candidates

    @property
    def candidates(self) -> int:
        return self._candidates

    @property
    def scored(self) -> int:
        return self.cache.scorer.scored - self._scored0

    @property
    def scoring_seconds(self) -> float:
        return self.cache.seconds - self._seconds0


class GrandparentFamily(Counted):
    """Grandparent triples on a :class:`GrandparentProgram` (module docstring): a
    :class:`lpparse.colgen.family.PartFamily`, with the options of its ``spec``. ``tree``: the start, a tree
    with no pruned triple (:func:`clean_tree`; None: start from every candidate triple)."""

    name = "grandparent"
    degenerate_master = False

    def __init__(self, prog: GrandparentProgram, spec: GrandparentParts, binding: Binding) -> None:
        warm = binding.warm
        cache = (
            warm.cache if warm is not None and warm.cache is not None else spec.cache(prog.arc_mask, False)
        )
        super().__init__(cache, int(triple_mask(prog.arc_mask).sum()))
        self.prog, self.spec, self.tighten = prog, spec, binding.options.tighten
        self._warm_parts: Triples | None = warm.parts if warm is not None else None  # type: ignore[assignment]
        self._arc_scores, self._first_order = binding.arc_scores, binding.first_order
        self._implied_rows = binding.implied_rows
        self.tree: NDArray[np.int64] | None = binding.first_order
        self.dead: DeadArcs | None = None
        self.gparc: GPArcDuals = NO_GPARC
        self._priced: PriceResult | None = None
        self._cuts: CutResult | None = None
        self._cut: Triples = _NONE
        self._cut_scores = np.empty(0)
        self._chains: dict[str, NDArray[np.int64]] = {}  #: the chain rows this round adds, by block
        #: every candidate triple present from the start (brute force, :meth:`seed`): nothing to price, and
        #: the factorized bounds are never built (:meth:`price` asks for them)
        self.complete = False

    def __deepcopy__(self, memo: dict[int, Any]) -> GrandparentFamily:
        """A copy for another branch-and-bound node's master (:meth:`lpparse.ppc.live.LiveMaster.fork`): the
        program (through ``memo``) and the family's own state copied; the score cache, the spec with its scorer,
        the bounds and the arc scores shared."""
        return _copy_sharing(self, memo, (self.cache, self.spec, self._arc_scores))

    @property
    def added(self) -> int:
        return self.prog.num_triples

    @property
    def held_out(self) -> int:
        return int(self.dead.out.sum()) if self.dead is not None else 0

    def pruned_arcs(self, heads: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """The arcs p→c of the tree's triples ⟨heads[p], p, c⟩ scored -inf (scoring the tree's triples)."""
        c = np.flatnonzero(heads > 0)
        p = heads[c]
        pruned = np.isneginf(self.cache.get(heads[p], p, c))
        return p[pruned], c[pruned]

    def warm(self) -> Warm:
        return Warm(self.cache, self.prog.triples())

    def seed(self) -> None:
        spec, prog = self.spec, self.prog
        if self.tree is None:
            g, p, c = candidate_triples(prog.arc_mask)
        else:
            g, p, c = initial_triples(
                self._arc_scores, prog.arc_mask, self.tree, spec.init, spec.seed_heads, self._warm_parts
            )
        # every candidate (BF, a proof's full program): every row too, unless the run leaves out the ArcGP
        # rows that OneGP and GPArc imply (Binding.implied_rows); parse-price-cut holds ArcGP rows back
        self.complete = self.tree is None
        every = self.complete and (self._implied_rows or not prog.arcgp_implied)
        prog.add_triples(g, p, c, self.cache.get(g, p, c), arcgp=every or not spec.lazy_arcgp)
        if spec.dead_arcs and self.tree is not None and DeadArcs.applies(prog):
            self.dead = DeadArcs(prog)

    def inactive(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        return self.dead.inactive() if self.dead is not None else (_EMPTY, _EMPTY)

    def restrict(self, arc_mask: NDArray[np.bool_]) -> None:
        """Nothing of the family's own: it prices and separates over the program's arcs, which the live master
        that owns the program makes the node's (:meth:`lpparse.ppc.live.LiveMaster.solve`)."""

    def node_columns(self, arc_mask: NDArray[np.bool_]) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
        """The zgp columns, and whether both arcs of each triple are in ``arc_mask``."""
        g, p, c = self.prog.triples()
        return (self.prog.lp.cols("zgp") if g.size else g), arc_mask[g, p] & arc_mask[p, c]

    def include(self, heads: NDArray[np.int64], model: HighsModel) -> None:
        """Add the triples of the tree ``heads`` that the program lacks (with a tree's parts present, the
        restricted LP has that tree as a feasible point, whatever its other columns), and their arcs to the
        master ``model``."""
        g, p, c = tree_triples(heads)
        new = ~self.prog.present[g, p, c]
        g, p, c = g[new], p[new], c[new]
        self.prog.add_triples(g, p, c, self.cache.get(g, p, c), arcgp=not self.spec.lazy_arcgp)
        if self.dead is not None:
            self.dead.update(model)

    def repair(self, solution: Solution) -> Solution:
        return self.dead.extend(solution) if self.dead is not None else solution

    def price(self, state: DualState) -> Priced:
        prog, opts = self.prog, self.spec
        if self.complete:
            self._priced, self.gparc = PriceResult.nothing(prog.arc_mask.shape[0]), NO_GPARC
            return Priced(0, -np.inf)
        sol = state.solution
        assert sol.row_dual is not None
        slack = _arc_slack(state, prog, self.tighten)
        mu_onegp, mu_nogp = gp_duals(prog, sol.row_dual)
        bound_gp, bound_pc = self.cache.bounds()
        priced = price(
            prog,
            self.cache,
            bound_gp,
            bound_pc,
            mu_onegp,
            mu_nogp,
            slack,
            state.tol,
            opts.per_pair,
            opts.parent_duals,
            _arc_values(state, prog),
            opts.defer,
            opts.release,
        )
        raised = prog.onegp_row >= 0
        state.y[prog.onegp_row[raised]] += priced.onegp_raise[raised]
        self.gparc = priced.gparc
        if self.tighten:  # what is left of the arcs' slack for the next family
            g, p, _, lam = priced.gparc
            spent = priced.onegp_raise.copy()
            np.add.at(spent, (g, p), lam)
            np.maximum(slack - spent, 0.0, out=slack)
        self._priced = priced
        tightened = int(np.count_nonzero(priced.onegp_raise)) + priced.gparc[3].size
        return Priced(priced.g.size, priced.max_bound, tightened)

    def separate(self, state: DualState) -> Separated:
        prog, priced = self.prog, self._priced
        assert priced is not None
        cuts = separate_arcgp(prog, _arc_values(state, prog), state.tol, state.x)
        # a triple both priced and cut enters once (as priced); cut triples may still need a score
        ckeys = np.ravel_multi_index((cuts.g, cuts.p, cuts.c), prog.present.shape)
        if ckeys.size:
            pkeys = np.ravel_multi_index((priced.g, priced.p, priced.c), prog.present.shape)
            ckeys = np.setdiff1d(ckeys, pkeys)
        cg, cp, cc = np.unravel_index(ckeys, prog.present.shape)
        scores = self.cache.get(cg, cp, cc)
        pruned = np.isneginf(scores)
        if "ArcGP" not in prog.families:  # in the full LP only a pruned triple has this row (PrunedGP)
            cg, cp, cc, scores, pruned = cg[pruned], cp[pruned], cc[pruned], scores[pruned], pruned[pruned]
        self._cuts, self._cut, self._cut_scores = cuts, (cg, cp, cc), scores
        # GPChain cuts: valid for every tree, outside the LP the certificate is about (not in max_violation)
        chains = self._separate_chains(state)
        infeasible = bool(
            cg.size or cuts.rows[0].size or (cuts.g.size and "ArcGP" in prog.families) or chains
        )
        rows = cuts.rows[0].size + int(pruned.sum()) + chains
        return Separated(cg.size - int(pruned.sum()), rows, cuts.max_violation, infeasible)

    def _separate_chains(self, state: DualState) -> int:
        """The chain cuts of the spec's ``chains`` (:mod:`lpparse.formulations.grandparent_chains`): of each
        family the most violated, at most CHAINS_PER_TOKEN·n, to enter at the commit; return how many. None
        when the round separates no cuts (``state.cuts``), nor at integral arcs: there every preset's rows
        bound each triple by its arcs and c has one head, so every chain row holds."""
        self._chains = {}
        if not self.spec.chains or not state.cuts:
            return 0
        z = _arc_values(state, self.prog)
        if (np.abs(z - np.round(z)) <= CHAIN_TOL).all():  # integral arcs: the LP's rows imply every chain row
            return 0
        limit = CHAINS_PER_TOKEN * self.prog.n
        for name in self.spec.chains:
            index, excess = violated_chains(CHAINS[name], self.prog, state.x, CHAIN_TOL)
            if len(index) > limit:
                index = index[np.argsort(-excess, kind="stable")[:limit]]
            if len(index):
                self._chains[name] = index
        return sum(len(index) for index in self._chains.values())

    def add_named_rows(self, duals: Iterable[Mapping[str, tuple[NDArray[np.int64], Any]]]) -> None:
        """Add the GPChain and GPSibChain rows that the labels of ``duals`` name (a proof's full program,
        :class:`lpparse.ppc.proof.ProofProgram`, holding every candidate triple), each over every triple the
        program holds; a label that names no row (:func:`chain_known`) adds none (its dual then counts as 0).
        Valid for every tree, they are built whatever the family's options."""
        duals = list(duals)
        for name, rows in CHAINS.items():
            index = named_labels(duals, name, rows.width, self.prog)
            index = index[chain_known(rows, self.prog, index)]
            if len(index):
                add_chain_rows(rows, self.prog, index)

    def commit(self, model: HighsModel) -> None:
        prog, priced, cuts = self.prog, self._priced, self._cuts
        assert priced is not None and cuts is not None
        for name, index in self._chains.items():
            add_chain_rows(CHAINS[name], prog, index)
        self._chains = {}
        prog.add_arcgp_rows(*cuts.rows)
        prog.add_triples(priced.g, priced.p, priced.c, priced.scores, arcgp=not self.spec.lazy_arcgp)
        cg, cp, cc = self._cut
        prog.add_triples(cg, cp, cc, self._cut_scores)  # cut: their ArcGP (PrunedGP) rows are violated now
        if self.dead is not None:
            self.dead.update(model)

    def outside_duals(self) -> dict[str, tuple[NDArray[np.int64], NDArray[np.float64]]]:
        g, p, c, lam = self.gparc
        if lam.size == 0:
            return {}
        return {"GPArc": (np.column_stack([g, p, c, np.zeros_like(g)]), -lam)}

    def outside_shift(self) -> NDArray[np.float64]:
        g, p, _, lam = self.gparc
        return _arc_shift(self.prog.lp.num_cols, self.prog.z_col, g, p, lam)


class SiblingFamily(Counted):
    """Arbitrary-sibling parts attached to an arborescence or grandparent program ``lp`` (module
    docstring): a :class:`lpparse.colgen.family.PartFamily`. ``tree``: a tree with no pruned part (its parts
    are the start, with the candidate ones of ``warm``, whose score cache it shares; None: start from every
    candidate part, :func:`clean_tree`)."""

    name = "sibling"
    degenerate_master = True  # thousands of parts with both arcs at 0 (colgen.options.DEGENERATE_MASTER)
    #: prices before the grandparent family, taking the arcs' slack first (lpparse.colgen.engine)
    pricing_priority = -1

    def __init__(self, prog: GrandparentProgram, spec: SiblingParts, binding: Binding) -> None:
        self.sibs = sibling_program(prog.lp, spec.preset)
        self.gp = prog  #: the grandparent program the parts share their arcs with (GPSibTriangle rows)
        self.spec, self.tighten = spec, binding.options.tighten
        self.tree: NDArray[np.int64] | None = binding.first_order
        warm = binding.warm
        self._warm_parts: Triples | None = warm.parts if warm is not None else None  # type: ignore[assignment]
        self._mask = sibling_mask(self.sibs.arc_mask, self.sibs.single_root)
        cache = (
            warm.cache
            if warm is not None and warm.cache is not None
            else ScoreCache(spec.scorer, self._mask.shape[0], "sibling", ("bound_hm",))
        )
        super().__init__(cache, int(self._mask.sum()))
        #: (h, m, m', side, λ) of the absent parts whose SibArc row [h,m,m',side] carries dual -λ
        self.sibarc: tuple[NDArray[np.int64], ...] = _NO_SIBARC
        self._new: Triples = _NONE
        self._new_scores = np.empty(0)
        self._cut: Triples = _NONE
        self._cut_scores = np.empty(0)
        #: ArcSib rows held back until violated (SiblingParts.lazy_arcsib), and those this round adds
        self._lazy = spec.lazy_arcsib and "ArcSib" in self.sibs.families
        self._rows: Triples = _NONE
        self._triangles: dict[str, NDArray[np.int64]] = {}  #: the triangle rows this round adds, by block
        #: every candidate part present from the start (brute force, :meth:`seed`): nothing to price, no bounds
        self.complete = False

    def __deepcopy__(self, memo: dict[int, Any]) -> SiblingFamily:
        """A copy for another branch-and-bound node's master (:meth:`lpparse.ppc.live.LiveMaster.fork`): the
        program (through ``memo``) and the family's own state copied; the score cache, the spec with its scorer
        and the bounds shared."""
        return _copy_sharing(self, memo, (self.cache, self.spec))

    def restrict(self, arc_mask: NDArray[np.bool_]) -> None:
        """Price and separate only the parts over the arcs ``arc_mask`` (a branch-and-bound node's, a subset of
        the program's: :class:`lpparse.ppc.live.LiveMaster`)."""
        self._mask = sibling_mask(arc_mask & self.sibs.arc_mask, self.sibs.single_root)

    def node_columns(self, arc_mask: NDArray[np.bool_]) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
        """The zsib columns, and whether both arcs of each part are in ``arc_mask``."""
        h, m, m2 = self.sibs.siblings()
        return (self.sibs.lp.cols("zsib") if h.size else h), arc_mask[h, m] & arc_mask[h, m2]

    def include(self, heads: NDArray[np.int64], model: HighsModel) -> None:
        """Add the parts of the tree ``heads`` that the program lacks (as
        :meth:`GrandparentFamily.include`)."""
        h, m, m2 = self._candidate_parts(tree_siblings(heads))
        new = ~self.sibs.present[h, m, m2] & ~self.sibs.pruned[h, m, m2]
        h, m, m2 = h[new], m[new], m2[new]
        self.sibs.add_siblings(h, m, m2, self.cache.get(h, m, m2), arcsib=not self._lazy)

    @property
    def added(self) -> int:
        return self.sibs.num_siblings

    @property
    def held_out(self) -> int:
        return 0

    def _candidate_parts(self, parts: Triples) -> Triples:
        """Those of ``parts`` that are candidates."""
        h, m, m2 = parts
        ok = self._mask[h, m, m2]
        return h[ok], m[ok], m2[ok]

    def pruned_arcs(self, heads: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """The arcs h→m' of the tree's parts ⟨h, m, m'⟩ scored -inf (scoring the tree's parts)."""
        h, m, m2 = self._candidate_parts(tree_siblings(heads))
        pruned = np.isneginf(self.cache.get(h, m, m2))
        return h[pruned], m2[pruned]

    def warm(self) -> Warm:
        return Warm(self.cache, self.sibs.siblings())

    def seed(self) -> None:
        self.complete = self.tree is None
        if self.complete:
            h, m, m2 = self.sibs.candidates()
        else:
            warm = [self._warm_parts] if self._warm_parts is not None else []
            h, m, m2 = self._candidate_parts(_union([tree_siblings(self.tree), *warm], self._mask.shape[0]))
        # every candidate (BF, a proof's full program): every row too; parse-price-cut may hold ArcSib back
        self.sibs.add_siblings(h, m, m2, self.cache.get(h, m, m2), arcsib=self.tree is None or not self._lazy)

    def inactive(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        return _EMPTY, _EMPTY

    def repair(self, solution: Solution) -> Solution:
        return solution

    def _clique_duals(self, row_dual: NDArray[np.float64]) -> NDArray[np.float64]:
        """Σ_α μ_SibClique(h, α) per head h (0 without the family)."""
        rows = self.sibs.clique_row
        on = rows >= 0
        return np.where(on, row_dual[np.where(on, rows, 0)], 0.0).sum(axis=1)

    def price(self, state: DualState) -> Priced:
        if self.complete:
            self.sibarc, self._new, self._new_scores = _NO_SIBARC, _NONE, np.empty(0)
            return Priced(0, -np.inf)
        sibs, tol = self.sibs, state.tol
        sol = state.solution
        assert sol.row_dual is not None
        mu = self._clique_duals(sol.row_dual)
        (b,) = self.cache.bounds()
        absent = self._mask & ~sibs.present
        bound = np.minimum(b[:, :, None], b[:, None, :]) + mu[:, None, None]
        cand = absent & (bound > tol)
        max_bound = float(bound[absent & ~cand].max(initial=-np.inf))
        h, m, m2 = (a.astype(np.int64) for a in np.nonzero(cand))
        rb = bound[h, m, m2]
        per_part = getattr(self.cache.scorer, "bound_siblings", None)
        if per_part is not None and h.size:  # a scorer's tighter per-part bound, still without scoring
            rb = np.minimum(rb, np.asarray(per_part(h, m, m2), dtype=np.float64) + mu[h])
            tight = rb > tol
            max_bound = max(max_bound, float(rb[~tight].max(initial=-np.inf)))
            h, m, m2, rb = h[tight], m[tight], m2[tight], rb[tight]
        use_slack = self.tighten and "SibArc" in sibs.families
        slack = _arc_slack(state, sibs, use_slack)
        size = slack.shape[0]
        # SibArc duals on bounds for arcs whose slack covers all their parts (never scored), then on exact
        # reduced costs (spending scarce slack on loose bounds would leave parts with r > 0 uncovered)
        out, lam, side = self._spend_whole(h, m, m2, rb, slack, size)
        scored = ~out
        hs, ms, m2s = h[scored], m[scored], m2[scored]
        s = self.cache.get(hs, ms, m2s)
        r = s + mu[hs]
        keep = r > tol
        idx = np.flatnonzero(keep)
        more, lam2, side2 = self._spend(hs[idx], ms[idx], m2s[idx], r[idx], slack, size)
        keep[idx[more]] = False
        residual = r.copy()  # reduced cost after λ: 0 for those priced out
        residual[idx[more]] = 0.0
        max_bound = max(max_bound, float(residual[~keep].max(initial=-np.inf)))
        self.sibarc = (
            np.concatenate([h[out], hs[idx[more]]]),
            np.concatenate([m[out], ms[idx[more]]]),
            np.concatenate([m2[out], m2s[idx[more]]]),
            np.concatenate([side[out], side2[more]]),
            np.concatenate([lam[out], lam2[more]]),
        )
        self._new, self._new_scores = (hs[keep], ms[keep], m2s[keep]), s[keep]
        return Priced(int(keep.sum()), max_bound, int(self.sibarc[4].size))

    @staticmethod
    def _spend(
        h: NDArray[np.int64],
        m: NDArray[np.int64],
        m2: NDArray[np.int64],
        cost: NDArray[np.float64],
        slack: NDArray[np.float64],
        size: int,
    ) -> tuple[NDArray[np.bool_], NDArray[np.float64], NDArray[np.int64]]:
        """Price parts out with SibArc duals: greedily, cheapest first, on the slack of h→m (side 0), then
        of h→m' (side 1); spends ``slack`` in place. (priced out, λ, side) per part."""
        out = np.zeros(h.size, bool)
        side = np.zeros(h.size, np.int64)
        if not slack.any() or h.size == 0:
            return out, np.where(out, cost, 0.0), side
        for k, arc in enumerate((m, m2)):
            todo = np.flatnonzero(~out)
            key = h[todo] * size + arc[todo]
            ok = todo[_spend(key, cost[todo], slack.ravel())]
            out[ok], side[ok] = True, k
            flat = slack.ravel()
            flat -= np.bincount(h[ok] * size + arc[ok], cost[ok], size * size)
            np.maximum(slack, 0.0, out=slack)
        return out, np.where(out, cost, 0.0), side

    @staticmethod
    def _spend_whole(
        h: NDArray[np.int64],
        m: NDArray[np.int64],
        m2: NDArray[np.int64],
        cost: NDArray[np.float64],
        slack: NDArray[np.float64],
        size: int,
    ) -> tuple[NDArray[np.bool_], NDArray[np.float64], NDArray[np.int64]]:
        """Price out every part of an arc whose slack covers the parts' total ``cost``: arcs h→m (side 0),
        then h→m' (side 1) for the parts left; spends ``slack`` in place. (priced out, λ, side) per part."""
        out = np.zeros(h.size, bool)
        side = np.zeros(h.size, np.int64)
        flat = slack.ravel()
        for k, arc in enumerate((m, m2)):
            if not flat.any() or out.all():
                break
            todo = np.flatnonzero(~out)
            key = h[todo] * size + arc[todo]
            need = np.bincount(key, cost[todo], size * size)
            fits = (need > 0) & (need <= flat)
            ok = todo[fits[key]]
            out[ok], side[ok] = True, k
            flat -= np.where(fits, need, 0.0)
            np.maximum(slack, 0.0, out=slack)
        return out, np.where(out, cost, 0.0), side

    def separate(self, state: DualState) -> Separated:
        sibs, tol = self.sibs, state.tol
        z = _arc_values(state, sibs)
        active = z > tol
        absent = self._mask & ~sibs.present & ~sibs.pruned & active[:, :, None] & active[:, None, :]
        excess = z[:, :, None] + z[:, None, :] - 1.0
        violated = absent & (excess > tol)
        max_violation = float(excess[absent & ~violated].max(initial=-np.inf))
        priced = np.zeros(violated.shape, bool)
        priced[self._new] = True
        ch, cm, cm2 = (a.astype(np.int64) for a in np.nonzero(violated & ~priced))
        scores = self.cache.get(ch, cm, cm2)
        pruned = np.isneginf(scores)
        arcsib = "ArcSib" in sibs.families
        if not arcsib:  # in the full LP only a pruned part has this row (PrunedSib)
            ch, cm, cm2, scores, pruned = ch[pruned], cm[pruned], cm2[pruned], scores[pruned], pruned[pruned]
        self._cut, self._cut_scores = (ch, cm, cm2), scores
        rows = int(pruned.sum())
        infeasible = bool(violated.any()) if arcsib else bool(rows)
        self._rows = _NONE
        if self._lazy and sibs.held_back_arcsib:  # present parts without their ArcSib row
            h, m, m2 = np.nonzero(sibs.present & ~sibs.arcsib & active[:, :, None] & active[:, None, :])
            row_excess = excess[h, m, m2] - state.x[sibs.sibling_cols(h, m, m2)]
            cut = row_excess > tol
            self._rows = (h[cut].astype(np.int64), m[cut].astype(np.int64), m2[cut].astype(np.int64))
            max_violation = max(max_violation, float(row_excess[~cut].max(initial=-np.inf)))
            rows += int(cut.sum())
            infeasible = infeasible or bool(cut.any())
        self._triangles = self._separate_triangles(state, z)
        rows += sum(len(index) for index in self._triangles.values())
        infeasible = infeasible or bool(self._triangles)
        return Separated(ch.size - int(pruned.sum()), rows, max_violation, infeasible)

    def _crossed(self) -> bool:
        """Whether GPSibTriangle rows apply: the program has grandparent triples."""
        return "zgp" in self.gp.lp.var_blocks

    def _separate_triangles(self, state: DualState, z: NDArray[np.float64]) -> dict[str, NDArray[np.int64]]:
        """The SibTriangle and GPSibTriangle rows to add (:mod:`lpparse.formulations.triangles`), and with
        triples and the spec's ``arc_heads`` the GPSibArc rows (:mod:`lpparse.formulations.arc_heads`), the
        most violated ones, at most TRIANGLES_PER_TOKEN·n of each; none without SibTriangle or when the round
        separates no cuts (``state.cuts``). They are cuts, valid for every tree, outside the LP that the
        certificate is about: what stays out is not in ``max_violation``."""
        sibs = self.sibs
        if not state.cuts or "SibTriangle" not in sibs.families or sibs.num_siblings == 0:
            return {}
        if (np.abs(z - np.round(z)) <= TRIANGLE_TOL).all():  # integral arcs: ArcSib's separation is enough
            return {}
        y = np.zeros(sibs.present.shape)
        y[sibs.siblings()] = state.x[sibs.lp.cols("zsib")]
        sib_known = sibs.present | sibs.pruned
        found = {"SibTriangle": violated_sibling_triangles(z, y, sib_known, TRIANGLE_TOL)}
        if self._crossed() and self.gp.num_triples:
            gp = np.zeros(y.shape)
            gp[self.gp.triples()] = self.gp.triple_values(state.x)
            found["GPSibTriangle"] = violated_cross_triangles(
                z, gp, self.gp.present | self.gp.pruned, y, sib_known, TRIANGLE_TOL
            )
            if self.spec.arc_heads:
                found[ARC_HEADS_BLOCK] = violated_arc_heads(self.gp, sibs, state.x, TRIANGLE_TOL)
        limit = TRIANGLES_PER_TOKEN * (z.shape[0] - 1)
        out = {}
        for name, (index, excess) in found.items():
            block = sibs.lp.con_blocks.get(name)
            if block is not None and len(index):
                new = block.find(index) < 0
                index, excess = index[new], excess[new]
            if len(index) > limit:
                index = index[np.argsort(-excess, kind="stable")[:limit]]
            if len(index):
                out[name] = index
        return out

    def _add_triangles(self, rows: Mapping[str, NDArray[np.int64]]) -> None:
        if "SibTriangle" in rows:
            add_sibling_triangles(self.sibs, rows["SibTriangle"])
        if "GPSibTriangle" in rows:
            add_cross_triangles(self.gp, self.sibs, rows["GPSibTriangle"])
        if ARC_HEADS_BLOCK in rows:
            add_arc_heads(self.gp, self.sibs, rows[ARC_HEADS_BLOCK])

    def add_named_rows(self, duals: Iterable[Mapping[str, tuple[NDArray[np.int64], Any]]]) -> None:
        """Add the SibTriangle, GPSibTriangle and GPSibArc rows that the labels of ``duals`` name (a proof's
        full program, :class:`lpparse.ppc.proof.ProofProgram`, holding every candidate part): each is built
        from its label, valid for every tree whatever the label says; a label that names no row of candidate
        parts names none here (its dual then counts as 0). Valid for every tree, they are built under any
        preset: exact decoding separates them whatever its rows (:meth:`lpparse.ppc.parts.SiblingParts.for_exact`)."""
        duals = list(duals)
        rows = {}
        for name, width, known in (
            ("SibTriangle", 5, lambda idx: sibling_triangle_known(self.sibs, idx)),
            ("GPSibTriangle", 5, lambda idx: cross_triangle_known(self.gp, self.sibs, idx)),
            (ARC_HEADS_BLOCK, 3, lambda idx: arc_heads_known(self.gp, idx)),
        ):
            if name != "SibTriangle" and not self._crossed():
                continue
            index = named_labels(duals, name, width, self.gp)
            index = index[known(index)]
            if len(index):
                rows[name] = index
        self._add_triangles(rows)

    def commit(self, model: HighsModel) -> None:
        self._add_triangles(self._triangles)
        self.sibs.add_arcsib_rows(*self._rows)
        h, m, m2 = self._new
        self.sibs.add_siblings(h, m, m2, self._new_scores, arcsib=not self._lazy)
        ch, cm, cm2 = self._cut
        self.sibs.add_siblings(ch, cm, cm2, self._cut_scores)  # cut: their ArcSib (PrunedSib) rows are violated

    def outside_duals(self) -> dict[str, tuple[NDArray[np.int64], NDArray[np.float64]]]:
        h, m, m2, side, lam = self.sibarc
        if lam.size == 0:
            return {}
        return {"SibArc": (np.column_stack([h, m, m2, side]), -lam)}

    def outside_shift(self) -> NDArray[np.float64]:
        h, m, m2, side, lam = self.sibarc
        return _arc_shift(self.sibs.lp.num_cols, self.sibs.z_col, h, np.where(side == 0, m, m2), lam)
