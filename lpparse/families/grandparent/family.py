"""Grandparent triples ⟨g,p,c⟩ as a part family of parse-price-cut on the column-and-row generation engine
(:mod:`lpparse.colgen`), over the arc columns of an arborescence program (Riedel, Smith & McCallum 2012,
"Parse, Price and Cut—Delayed Column and Row Generation for Graph Based Parsers", EMNLP-CoNLL 2012, §4):
:class:`GrandparentParts` (what a user hands the front end) and :class:`GrandparentFamily` (bound to one run).

Pricing with OneGP dual tightening and the GPArc duals of absent triples, factorized and per-triple bounds,
partial pricing, deferral and lazy scoring (:mod:`lpparse.families.grandparent.pricing`); ArcGP separation,
with held-back rows under ``lazy_arcgp`` (:mod:`lpparse.families.grandparent.separation`); dead arcs kept out
of HiGHS (:mod:`lpparse.families.grandparent.dead_arcs`); GPChain cuts for exact decoding
(:mod:`lpparse.families.grandparent.chains`).

**Pruned triples** (scored -inf; :mod:`lpparse.families.grandparent.rows`) have no column in the full LP but
their PrunedGP row z + z' <= 1, under every preset. Pricing never adds one (its reduced cost is -inf; the
factorized bounds stay valid); separation scores the absent triples whose ArcGP row is violated and adds a
pruned one's row alone. The family starts from a tree T with no pruned part
(:func:`lpparse.families.base.clean_tree`), so the restricted LP stays feasible; if none is found, every
triple enters at the start (the restricted LP is then the full LP).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from lpparse.colgen.cache import ScoreCache
from lpparse.colgen.family import DualState, PartFamily, Priced, Separated, Warm
from lpparse.colgen.options import DEFER, INITS, PER_PAIR, RELEASE, SEED_HEADS
from lpparse.families.base import Binding, Counted, Parts, copy_sharing, named_labels
from lpparse.families.grandparent.chains import CHAINS, add_chain_rows, chain_known, violated_chains
from lpparse.families.grandparent.dead_arcs import DeadArcs
from lpparse.families.grandparent.pricing import (
    PriceResult,
    RoundDuals,
    Triples,
    arc_slack,
    gp_duals,
    price,
)
from lpparse.families.grandparent.rows import GrandparentProgram, resolve_families
from lpparse.families.grandparent.separation import CutResult, separate_arcgp
from lpparse.families.pairs import OnArcs
from lpparse.formulations.arborescence import arc_matrix
from lpparse.lp.solution import Solution
from lpparse.triples import (
    TripleScorer,
    candidate_triples,
    count_triples,
    triple_mask,
)

if TYPE_CHECKING:  # the engine hands families its HiGHS master; building their rows needs none
    from lpparse.lp.highs_view import HighsModel

Index = tuple[NDArray[np.int64], ...]

#: (g, p, c, λ): absent triples whose GPArc row z[g,p] - zgp[g,p,c] >= 0 carries dual -λ (pricing module)
GPArcDuals = tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]
_EMPTY = np.empty(0, np.int64)
NO_GPARC: GPArcDuals = (_EMPTY, _EMPTY, _EMPTY, np.empty(0))
_NONE: Triples = (_EMPTY, _EMPTY, _EMPTY)
#: GPChain and GPSibChain separation: the violation a row needs, and at most this many rows per token a round
CHAIN_TOL = 1e-4
CHAINS_PER_TOKEN = 4


def round_arc_slack(
    state: DualState, prog: GrandparentProgram | OnArcs, tighten: bool
) -> NDArray[np.float64]:
    """The round's shared arc slack β (:func:`lpparse.families.grandparent.pricing.arc_slack`), or zeros without tightening."""
    if not tighten:
        return np.zeros(prog.z_col.shape)
    sol = state.solution
    assert sol.col_dual is not None
    return state.cached("arc_slack", lambda: arc_slack(prog, state.x, sol.col_dual))  # type: ignore[arg-type]


def round_arc_values(state: DualState, prog: GrandparentProgram | OnArcs) -> NDArray[np.float64]:
    """(n+1, n+1) arc values of the round's solution, computed once a round."""
    return state.cached("arc_values", lambda: arc_matrix(prog.lp, state.x))


def absent_row_shift(
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


def union_triples(parts: list[Triples], size: int) -> Triples:
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
    return union_triples(parts, s.shape[0])


def tree_triples(heads: NDArray[np.int64]) -> Index:
    """The grandparent triples ⟨heads[p], p, c⟩ of a tree (one per token with a word head), by c."""
    heads = np.asarray(heads, dtype=np.int64)
    c = np.flatnonzero(heads > 0)
    p = heads[c]
    return heads[p], p, c


@dataclass(frozen=True)
class GrandparentParts:
    """Grandparent triples ⟨g, p, c⟩ scored by ``scorer`` (:class:`~lpparse.triples.TripleScorer`), their
    polytope ``preset`` (``all``, ``martins``, ``onegp`` or a set of ArcGP, GPArc, OneGP, NoGP:
    :mod:`lpparse.families.grandparent.rows`), and the pricing devices of parse-price-cut
    (:class:`lpparse.families.grandparent.family.GrandparentFamily`): ``init``, ``seed_heads``: initial triples
    (:data:`~lpparse.colgen.options.INITS`, :data:`~lpparse.colgen.options.SEED_HEADS`); ``per_pair``:
    partial pricing, at most that many new triples per ⟨p,c⟩ a round (None: all); ``parent_duals``: spend arc
    slack on the GPArc rows of absent triples; ``defer``: hold back priced triples with both arcs at 0
    (:data:`~lpparse.colgen.options.DEFER`; None: never), ``release``: how many of them enter, times n, when
    nothing else prices (:data:`~lpparse.colgen.options.RELEASE`); ``lazy_arcgp``: a triple's ArcGP row enters
    only once violated in parse-price-cut (False: with its column, as Riedel, Smith & McCallum 2012 §4;
    :mod:`lpparse.ppc.loop`; the ``bf`` decoder's program has every row either way, the brute force of
    ``auto`` and exact decoding all but the ArcGP rows that OneGP and GPArc imply: :class:`Binding`);
    ``dead_arcs``: keep arcs without a triple out of HiGHS; ``chains``: the chain cuts to separate, by block
    name (GPChain, GPSibChain: :mod:`lpparse.families.grandparent.chains`; exact decoding separates
    GPChain, :meth:`for_exact`)."""

    scorer: TripleScorer
    preset: str | Iterable[str] = "all"
    init: str = "root"
    seed_heads: int | None = SEED_HEADS
    per_pair: int | None = PER_PAIR
    parent_duals: bool = True
    defer: float | None = DEFER
    release: float = RELEASE
    lazy_arcgp: bool = True
    dead_arcs: bool = True
    chains: tuple[str, ...] = ()

    name = "grandparent"
    arity = 3
    column_block = "zgp"
    live = True
    probes_pay = True
    pruned_block = "PrunedGP"

    def __post_init__(self) -> None:
        if self.init not in INITS:
            raise ValueError(f"unknown init {self.init!r}; choose from {INITS}")
        if not self.release > 0:
            raise ValueError(f"release must be > 0 (triples per token), got {self.release!r}")
        unknown = set(self.chains) - set(CHAINS)
        if unknown:
            raise ValueError(f"unknown chain cuts {sorted(unknown)}; choose from {sorted(CHAINS)}")
        object.__setattr__(self, "preset", resolve_families(self.preset))

    def candidates(self, arc_mask: NDArray[np.bool_], single_root: bool) -> Index:
        return candidate_triples(arc_mask)

    def count(self, arc_mask: NDArray[np.bool_], single_root: bool) -> int:
        return count_triples(arc_mask)

    def tree_parts(self, heads: NDArray[np.int64]) -> Index:
        return tree_triples(heads)

    def trees_parts(self, heads: NDArray[np.int64]) -> tuple[NDArray[np.int64], Index]:
        """:func:`tree_triples` of a (T, n+1) batch of trees at once: the tree of each triple, and the triples,
        tree by tree (enumerated subproblems and the neighbours of listed k-best trees scored in one call)."""
        heads = np.asarray(heads, dtype=np.int64)
        tree, c = np.nonzero(heads > 0)
        p = heads[tree, c]
        return tree, (heads[tree, p], p, c)

    def max_per_tree(self, n: int) -> int:
        return n

    def cache(self, arc_mask: NDArray[np.bool_], single_root: bool) -> ScoreCache:
        return ScoreCache(self.scorer, arc_mask.shape[0])

    def for_exact(self, parts: Sequence[Parts] = ()) -> GrandparentParts:
        """The family as exact decoding uses it among the search's families ``parts``: with the GPChain cuts,
        which tighten its node LPs beyond the LP decoders' (Hungarian grandparent model, the 34 dev sentences
        whose root LP is fractional, CPU time: 7.6 s and 94 nodes against 8.7 s and 154; with GPSibChain too,
        3 more roots close but the LPs are slower: 9.6-9.8 s and 88 nodes), unless a family of 4-index
        (third-order) parts is in the search, whose links to the triples leave the chain rows only LP work
        (Danish full model, the 32 dev sentences that branch: 13.1 s with them against 12.6 s)."""
        if any(p.arity >= 4 for p in parts):
            return self
        return replace(self, chains=tuple(dict.fromkeys((*self.chains, "GPChain"))))

    def bind(self, binding: Binding) -> PartFamily:

        binding.program.use_families(self.preset)
        return GrandparentFamily(binding.program, self, binding)


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
        """A copy for another branch-and-bound node's master (:meth:`lpparse.exact.live.LiveMaster.fork`): the
        program (through ``memo``) and the family's own state copied; the score cache, the spec with its scorer,
        the bounds and the arc scores shared."""
        return copy_sharing(self, memo, (self.cache, self.spec, self._arc_scores))

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
        that owns the program makes the node's (:meth:`lpparse.exact.live.LiveMaster.solve`)."""

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
        slack = round_arc_slack(state, prog, self.tighten)
        mu_onegp, mu_nogp = gp_duals(prog, sol.row_dual)
        bound_gp, bound_pc = self.cache.bounds()
        duals = RoundDuals(bound_gp, bound_pc, mu_onegp, mu_nogp, slack, round_arc_values(state, prog))
        priced = price(prog, self.cache, duals, state.tol, opts)
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
        cuts = separate_arcgp(prog, round_arc_values(state, prog), state.tol, state.x)
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
        """The chain cuts of the spec's ``chains`` (:mod:`lpparse.families.grandparent.chains`): of each
        family the most violated, at most CHAINS_PER_TOKEN·n, to enter at the commit; return how many. None
        when the round separates no cuts (``state.cuts``), nor at integral arcs: there every preset's rows
        bound each triple by its arcs and c has one head, so every chain row holds."""
        self._chains = {}
        if not self.spec.chains or not state.cuts:
            return 0
        z = round_arc_values(state, self.prog)
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
        :class:`lpparse.proofs.check.ProofProgram`, holding every candidate triple), each over every triple the
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
        return absent_row_shift(self.prog.lp.num_cols, self.prog.z_col, g, p, lam)
