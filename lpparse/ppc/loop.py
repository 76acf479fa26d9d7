"""Parse, Price and Cut (Riedel, Smith & McCallum 2012, §4, Algorithm 1) and the
brute-force baseline (BF, §6: the full LP with every part scored and instantiated), over any list of part
families.

:func:`solve_lp` is the one front end: it builds the arborescence program, binds every family of the list
(:class:`lpparse.families.base.Parts`: grandparent triples, arbitrary siblings, consecutive siblings, or a family
written elsewhere) to it, and runs the column-and-row generation engine (:class:`lpparse.colgen.engine.Engine`,
which owns the loop: solve, price, cut, add in one batch, certify). Parse-price-cut starts the families from
the parts of a tree without pruned parts; brute force starts them from every candidate part, so that the
engine's first solve is the full LP and nothing is left to price: one implementation of both, which cannot
drift apart. ``auto`` runs BF on sentences with fewer than :data:`BF_BELOW_PARTS` candidate parts (or a
family's own ``bf_below``: :func:`bf_below`), where the
full LP solves faster than PPC's rounds (measured there), and says which ran (:attr:`PPCResult.method`);
its brute force leaves out the rows that a family's other rows imply (:class:`lpparse.families.base.Binding`:
the grandparent family's ArcGP rows under OneGP and GPArc), the same LP with fewer rows, which ``bf``, the
paper's baseline, keeps.
:func:`parse_price_cut`, :func:`solve_bf` and :func:`solve_second_order` are thin wrappers for grandparent
and sibling scorers (:func:`second_order_parts`).

The grandparent family starts from every candidate arc and the triples of the first-order best tree T
(Chu-Liu-Edmonds; with parts scored -inf, a tree without them: :func:`lpparse.families.base.clean_tree`), so
the restricted LP is feasible, optionally plus one triple per arc h→m with h > 0 among
the ``seed_heads`` best-scoring heads of m (⟨0,h,m⟩ as in §4.2, or ⟨head_T(h),h,m⟩ with ``init="tree"``;
``seed_heads=None`` seeds every arc, as the paper). An arc without a triple is held at 0 by its OneGP row
until pricing brings one in, and stays out of the HiGHS master until then (:mod:`lpparse.families.grandparent.dead_arcs`).
Each round it tightens the OneGP duals (§4.3.3), prices absent triples with reduced cost (eq. 8) > tol,
scoring only those whose bound (eq. 11) is > tol, keeps the ``per_pair`` best of each ⟨p,c⟩
(:mod:`lpparse.families.grandparent.pricing`), and cuts absent triples whose ArcGP row is violated (§4.4,
:mod:`lpparse.families.grandparent.separation`). The restricted LP is always the full LP restricted to its columns (less the
rows of absent parts), so at convergence its solution, extended by zeros, is optimal for the full LP:
:attr:`PPCResult.certificate`.

By default (``lazy_arcgp``, :class:`lpparse.families.grandparent.family.GrandparentParts`) a column enters without its ArcGP
row, and **cut** also adds the held-back rows that the solution violates (row generation on top of column
generation). The restricted LP is then the full LP restricted to its columns and to some of their ArcGP
rows; at convergence every held-back row is satisfied, so with dual 0 it leaves the same certificate valid.
This departs from §4's rule that a column's rows enter with it (``lazy_arcgp=False``), and it is faster
everywhere measured: ``martins`` on 10 English and 10 Hungarian dev sentences of 20-30 tokens, CPU time -41%
and -26%; ``all`` on 15 dev sentences of 21-40 tokens per dev set (benchmarks/results/ppc_ablation.md:
"eager ArcGP rows" take 1.01x, 1.19x, 1.14x and 1.08x the CPU time on Danish, English, Hungarian and
Italian); and in exact search, where every node re-solves its LP after bound changes, Hungarian dev #152 (49
tokens, 246 nodes) 14.3 s against 20.3 s. In ``all`` no ArcGP row is ever needed, as OneGP, GPArc and
OneHead imply them (:mod:`lpparse.families.grandparent.rows`), so there it amounts to dropping them from the
restricted LP (a third fewer rows) but not from BF's.

The reduced-cost formula holds for every preset: a family that is off has no rows and μ = 0 (``martins``
prices with r = s; ``all`` has no NoGP); ``onegp`` has no ArcGP rows and so no cuts.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.colgen.engine import Closer, Engine, EngineResult, Round
from lpparse.colgen.family import OutsideDuals, PartFamily, Warm
from lpparse.colgen.options import BF_MASTER, ENGINE_FIELDS, ColgenOptions
from lpparse.families.base import Binding, Parts, clean_tree, count_candidates
from lpparse.families.grandparent.family import GrandparentParts
from lpparse.families.grandparent.rows import GrandparentProgram, arc_program
from lpparse.families.sibling.family import SiblingParts
from lpparse.formulations.arborescence import CycleCutFamily
from lpparse.lp.basis import LabelledBasis
from lpparse.lp.solution import Certificate, Solution, Status
from lpparse.lp.views import LPModel
from lpparse.oracles.chu_liu_edmonds import chu_liu_edmonds
from lpparse.trees import allowed_arcs, validate_scores
from lpparse.triples import SiblingScorer, TripleScorer

__all__ = [
    "BF_BELOW_PARTS",
    "METHODS",
    "FamilyCounts",
    "base_families",
    "PPCResult",
    "PPCStats",
    "candidate_parts",
    "bf_below",
    "choose_method",
    "parse_price_cut",
    "project_to_tree",
    "second_order_parts",
    "solve_bf",
    "solve_lp",
    "solve_second_order",
    "tree_objective",
]

#: :func:`solve_lp`'s methods: ``ppc`` (parse-price-cut), ``bf`` (brute force) or ``auto``
METHODS = ("auto", "ppc", "bf")
#: ``auto`` runs BF on sentences with fewer candidate second-order parts (grandparent triples plus sibling
#: parts over the candidate arcs: :func:`candidate_parts`), PPC on the others: PPC gains by leaving parts
#: unscored and out of the LP, so the part count, not the length, decides. Measured by benchmarks/crossover.py
#: on one core, total time of "BF below t parts, else PPC", BF with :data:`BF_HIGHS_OPTIONS`: crossover.md,
#: unpruned grandparent models, the four dev sets, 370 sentences of 1-26 tokens: 6.14 s at 2,000, 6.13 s at
#: 2,940 (the optimum) to 3,500, 6.21 s at 4,000, PPC alone 6.93 s, BF alone 11.03 s;
#: crossover-siblings-pruned.md, grandparent + sibling models over pruned arcs, Danish and Italian, 142
#: sentences of 1-40 tokens: 6.01 s at 3,000, 5.58 s at 4,000, optimum 5.51 s at 4,514, PPC alone 8.01 s, BF
#: alone 5.74 s. One threshold for both: 4,000 is within 1.3% of each optimum (BF up to 16 tokens unpruned).
BF_BELOW_PARTS = 4000


@dataclass(frozen=True)
class FamilyCounts:
    """One part family's counts over a run: its ``candidates``, the parts ``scored`` and ``added`` (with a
    column), the columns ``priced`` and ``cut`` and the rows ``rows_cut`` that entered after the start, the
    duals ``tightened``, and the seconds spent scoring."""

    candidates: int = 0
    scored: int = 0
    added: int = 0
    priced: int = 0
    cut: int = 0
    rows_cut: int = 0
    tightened: int = 0
    scoring_seconds: float = 0.0


@dataclass
class PPCStats:
    """Per-sentence statistics (the quantities of Riedel, Smith & McCallum 2012, Tables 1-2): ``parts``, each
    part family's :class:`FamilyCounts` by name; the program's size (``rows``, ``cols``) and the run's
    rounds, times and outcome. ``row_families``: the grandparent program's constraint families (ArcGP, ...),
    empty without grandparents. ``candidates``, ``scored``, ``added``, ``priced``, ``cut`` and ``rows_cut`` sum
    over the families."""

    n: int
    method: str
    row_families: tuple[str, ...] = ()
    parts: dict[str, FamilyCounts] = field(default_factory=dict)
    rows: int = 0
    cols: int = 0
    iterations: int = 0
    simplex_iterations: int = 0
    duals_tightened: int = 0
    time_scoring: float = 0.0
    time_pricing: float = 0.0
    time_solving: float = 0.0
    time_total: float = 0.0
    objective: float = float("nan")
    integral: bool = False

    def _sum(self, what: str) -> int:
        return sum(getattr(c, what) for c in self.parts.values())

    candidates = property(lambda self: self._sum("candidates"), doc="candidate parts of every family")
    scored = property(lambda self: self._sum("scored"), doc="parts scored, every family")
    added = property(lambda self: self._sum("added"), doc="parts with a column, every family")
    priced = property(lambda self: self._sum("priced"), doc="columns priced in after the start")
    cut = property(lambda self: self._sum("cut"), doc="columns cut in after the start")
    rows_cut = property(lambda self: self._sum("rows_cut"), doc="rows that entered after the start")

    def as_dict(self) -> dict[str, Any]:
        """A JSON record: the fields, ``row_families`` joined by ``+``, ``parts`` as {name: counts}, and the
        totals."""
        d = asdict(self)
        d["row_families"] = "+".join(self.row_families)
        for what in ("candidates", "scored", "added", "priced", "cut", "rows_cut"):
            d[what] = getattr(self, what)
        return d


@dataclass
class PPCResult:
    """Outcome of PPC (or BF) on one sentence.

    ``solution``: the last restricted-LP Solution; ``row_dual``: its duals after tightening (lpparse's
    convention, for the restricted program ``program.lp``); ``certificate``: for PPC the extension-by-zeros
    certificate of :func:`lpparse.ppc.certificate.ppc_certificate`, for BF the LP certificate. ``heads`` is
    the tree when the LP optimum is integral (then ILP-optimal), else None. ``rounds``: one
    :class:`lpparse.colgen.engine.Round` per LP solve, with each family's counts by name (BF: one round with every
    part in and nothing priced or cut). ``outside``: the nonzero duals of every absent row of the certificate
    (such as GPArc and SibArc rows of absent parts), ``outside_shift`` their Aᵀy on the program's columns.
    ``families``: each bound :class:`lpparse.colgen.PartFamily` by name (its program: ``families["sibling"]
    .sibs``); ``counts``: each family's :class:`FamilyCounts`. ``info``: the run's ``max_reduced_cost`` and
    ``max_violation`` over what stayed out, and whether it ``stalled``.
    """

    status: Status
    program: GrandparentProgram
    solution: Solution
    stats: PPCStats
    row_dual: NDArray[np.float64] | None = None
    certificate: Certificate | None = None
    heads: NDArray[np.int64] | None = None
    info: dict[str, Any] = field(default_factory=dict)
    rounds: list[Round] = field(default_factory=list)
    outside: OutsideDuals = field(default_factory=dict)
    outside_shift: NDArray[np.float64] | None = None
    families: dict[str, PartFamily] = field(default_factory=dict)
    #: the live HiGHS master of the last restricted LP (``solve_lp(..., keep_master=True)``)
    master: LPModel | None = None

    @property
    def counts(self) -> dict[str, FamilyCounts]:
        """Each part family's :class:`FamilyCounts`, by name (``stats.parts``)."""
        return self.stats.parts

    @property
    def method(self) -> str:
        """``ppc`` or ``bf``: what produced this result."""
        return self.stats.method

    @property
    def objective(self) -> float:
        return self.stats.objective

    @property
    def integral(self) -> bool:
        return self.stats.integral

    @property
    def certified(self) -> bool:
        """Optimal for the full LP, by lpparse's own check."""
        return self.status is Status.OPTIMAL and self.certificate is not None and self.certificate.ok

    def outside_duals(self) -> OutsideDuals:
        """Duals of the certificate's rows that are absent from ``program.lp`` (for
        :func:`lpparse.ppc.certify_full`), such as the GPArc rows z[g,p] - zgp[g,p,c] >= 0 of absent triples
        and the SibArc rows of absent sibling parts."""
        return self.outside

    def reduced_costs(self) -> NDArray[np.float64]:
        """d = c - Aᵀy on the restricted program's columns, with the certificate's duals: ``row_dual`` and
        the absent rows' duals (``outside``)."""
        if self.row_dual is None:
            raise ValueError(f"no duals (status {self.status.value})")
        lp = self.program.lp
        d = lp.cost - lp.tdot(self.row_dual)
        if self.outside_shift is not None:
            d -= self.outside_shift
        return d

    def arc_values(self) -> NDArray[np.float64]:
        """(n+1, n+1) LP values of the arcs."""
        if self.solution.x is None:
            raise ValueError(f"no primal solution (status {self.status.value})")
        return self.program.arc_values(self.solution.x)


#: Classes whose instances were found to be part families: checking the protocol member by member takes about
#: 0.1 ms, and the runs of one sentence check the same families again and again
_PART_TYPES: set[type] = set()


def _is_parts(part: object) -> bool:
    """Whether ``part`` is a :class:`lpparse.families.base.Parts` (checked once per class)."""
    if type(part) in _PART_TYPES:
        return True
    if isinstance(part, Parts):
        _PART_TYPES.add(type(part))
        return True
    return False


def _validated(arc_scores: ArrayLike, parts: Sequence[Parts]) -> NDArray[np.float64]:
    """The arc scores, checked (NaN: ValueError), and the families checked against them: at least one,
    distinct names, scorers for the same n."""
    s = validate_scores(arc_scores, "arc scores")  # arc_program raises NoTreeError if no tree exists
    if not parts:
        raise ValueError("give at least one part family (e.g. GrandparentParts(scorer))")
    for part in parts:
        if not _is_parts(part):
            raise TypeError(f"{type(part).__name__} is not a part family (lpparse.families.base.Parts)")
    names = [p.name for p in parts]
    if len(set(names)) < len(names):
        raise ValueError(f"part family names must differ, got {names}")
    for part in parts:
        scorer = part.scorer
        if not all(hasattr(scorer, a) for a in ("n", "scored", "score")):
            raise TypeError(
                f"the {part.name} family's scorer is a {type(scorer).__name__}, not a scorer (n, scored, score): "
                "wrap a dense cube in its Dense*Scorer, e.g. lpparse.triples.DenseTripleScorer(cube)"
            )
        n = scorer.n
        if n != s.shape[0] - 1:
            raise ValueError(f"{part.name} scorer is for n={n}, arc scores for n={s.shape[0] - 1}")
    return s


def _finish(
    prog: GrandparentProgram, sol: Solution, status: Status, stats: PPCStats, start: float
) -> NDArray[np.int64] | None:
    """Fill the size and outcome statistics; return the heads of an integral optimum of the run (``status``
    OPTIMAL: a run stopped by a limit returns no tree, even when its last restricted LP was integral)."""
    stats.rows, stats.cols = prog.lp.num_rows, prog.lp.num_cols
    stats.time_total = time.perf_counter() - start
    if status is not Status.OPTIMAL or sol.status is not Status.OPTIMAL or sol.x is None:
        return None
    stats.objective = sol.objective
    stats.integral = sol.integral
    if not stats.integral:
        return None
    zm = prog.arc_values(sol.x)
    heads = np.full(prog.n + 1, -1, np.int64)
    heads[1:] = zm[:, 1:].argmax(axis=0)
    return heads


def solve_lp(  # long: the front end's independent choices; the engine's own are ColgenOptions
    arc_scores: ArrayLike,
    parts: Sequence[Parts],
    method: str = "auto",
    single_root: bool = False,
    base: str = "single-flow",
    options: ColgenOptions | None = None,
    warm: Mapping[str, Warm] | None = None,
    basis: LabelledBasis | None = None,
    keep_master: bool = False,
    closer: Closer | None = None,
) -> PPCResult:
    """The LP of the arcs and every part family of ``parts`` (:class:`lpparse.families.base.Parts`), by
    ``method``: ``ppc`` (parse-price-cut: the column-and-row generation engine from the parts of a tree
    without pruned parts), ``bf`` (brute force, §6: every candidate part of every family scored and added,
    the full LP solved once, by the same engine with nothing left to price) or ``auto``
    (:func:`choose_method`). Either way the answer is certified on the full LP; ``result.counts`` counts
    each family's parts by name. ``base``: the arborescence program the families sit on (a key of
    :data:`lpparse.families.grandparent.rows.BASES` or ``SEPARATED_BASES``, whose rows the run separates:
    :func:`base_families`). ``options``: the engine's (:class:`lpparse.colgen.ColgenOptions`);
    ``warm``: per family name, the score cache and parts of an earlier run on the same sentence; ``basis``:
    an earlier run's basis by label (:class:`lpparse.lp.basis.LabelledBasis`) for the first solve to start
    from, and ``keep_master`` returns the run's live master (``result.master``: its basis for another run); ``closer``: a bound of a round's duals that may stop
    the run at ``options.cutoff`` before its master's bound does (:attr:`lpparse.colgen.engine.Engine.closer`; the
    result's ``info["closer_bound"]``). Raises ValueError (NaN scores, a scorer for another n) or
    NoTreeError."""
    options = options or ColgenOptions()
    start = time.perf_counter()
    s = _validated(arc_scores, parts)
    # counting the candidates costs an (n+1)^3 mask per family: only auto needs it (not exact search's nodes)
    count = candidate_parts(s, parts, single_root) if method == "auto" else 0
    requested, method = method, choose_method(count, method, bf_below(parts))
    prog = arc_program(s, single_root, base)
    tree = chu_liu_edmonds(s, single_root=single_root)
    warm = warm or {}
    for name, given in warm.items():
        if given.cache is not None and given.cache.shape[0] != s.shape[0]:
            raise ValueError(
                f"the warm start's {name} cache is for n={given.cache.shape[0] - 1}, not {s.shape[0] - 1}"
            )
    # brute force that ``auto`` chose leaves out rows that others imply (Binding.implied_rows); bf keeps them
    implied = requested != "auto" or options.implied_rows
    families = [p.bind(Binding(prog, s, tree, options, warm.get(p.name), implied)) for p in parts]
    if method == "ppc":
        start_tree = clean_tree(s, single_root, tree, families)  # None: every part enters at the start
    else:
        start_tree = None
        own = [f.bf_master for f in families if getattr(f, "bf_master", None) is not None]
        options = replace(options, master=options.master or (own[0] if own else BF_MASTER))
    families += base_families(prog, warm)
    for family in families:
        family.tree = start_tree
    engine = Engine(prog.lp, families, options, start, basis=basis, keep_master=keep_master)
    engine.closer = closer
    return _result(prog, families, engine.run(), method, start)


def base_families(prog: GrandparentProgram, warm: Mapping[str, Warm] | None = None) -> list[PartFamily]:
    """The families the arborescence base of ``prog`` needs in a run of the engine: under ``cycle-cuts`` the
    separation of its NoCycle rows (:class:`lpparse.formulations.arborescence.CycleCutFamily`, from the rows
    of ``warm``'s entry of its name), none under the flow bases."""
    if prog.lp.formulation != "cycle-cuts":
        return []
    return [CycleCutFamily(prog.lp, (warm or {}).get(CycleCutFamily.name))]


def _result(
    prog: GrandparentProgram, families: list[PartFamily], run: EngineResult, method: str, start: float
) -> PPCResult:
    """The engine's run as a :class:`PPCResult`, with each family's counts by name."""
    counts = {
        f.name: FamilyCounts(
            f.candidates, f.scored, f.added, t.priced, t.cut, t.rows_cut, t.tightened, f.scoring_seconds
        )
        for f, t in ((f, run.totals[f.name]) for f in families)
    }
    bound = {f.name: f for f in families}
    row_families = tuple(getattr(bound.get(GrandparentParts.name), "prog", prog).families)
    stats = PPCStats(prog.n, method, row_families, counts)
    stats.iterations, stats.simplex_iterations = run.iterations, run.simplex_iterations
    stats.time_solving, stats.time_pricing = run.time_solving, run.time_pricing
    stats.time_scoring = sum(c.scoring_seconds for c in counts.values())
    stats.duals_tightened = sum(c.tightened for c in counts.values())
    info: dict[str, Any] = {
        "max_reduced_cost": run.max_reduced_cost,
        "max_violation": run.max_violation,
        "stalled": run.info["stalled"],
        **{
            k: run.info[k]
            for k in ("purged", "purged_rows", "returned", "solves_cut_off", "closer_bound")
            if k in run.info
        },
    }
    sol = run.solution
    heads = _finish(prog, sol, run.status, stats, start)
    outside: OutsideDuals = {}
    for family in families:
        outside.update(family.outside_duals())
    return PPCResult(
        run.status,
        prog,
        sol,
        stats,
        run.row_dual,
        run.certificate,
        heads,
        info=info,
        rounds=run.trace,
        outside=outside if run.status in (Status.OPTIMAL, Status.CUTOFF) else {},
        outside_shift=run.outside_shift,
        families=bound,
        master=run.master,
    )


#: options of a family's own rows, each for the families that have those rows (ignored by the others)
ROW_POLICIES = ("lazy_arcgp", "lazy_arcsib")


def second_order_parts(
    triple_scorer: TripleScorer | None,
    preset: str | Iterable[str] = "all",
    sibling_scorer: SiblingScorer | None = None,
    sibling_preset: str | Iterable[str] = "martins",
    more: Sequence[Parts] = (),
    **options: Any,
) -> list[Parts]:
    """The grandparent family of ``triple_scorer`` under ``preset`` (with the :class:`GrandparentParts`
    options among ``options``), the sibling family of ``sibling_scorer`` under ``sibling_preset`` (with
    ``lazy_arcsib``), for those that are given, and the families ``more``: at least one. The row policies
    (:data:`ROW_POLICIES`) go to the families that have those rows; other options without a triple scorer
    raise TypeError."""
    sibling = {"lazy_arcsib": options.pop("lazy_arcsib")} if "lazy_arcsib" in options else {}
    parts: list[Parts] = []
    if triple_scorer is not None:
        parts.append(GrandparentParts(triple_scorer, preset, **options))
    elif set(options) - set(ROW_POLICIES):
        raise TypeError(f"options {sorted(set(options) - set(ROW_POLICIES))} need a triple scorer")
    if sibling_scorer is not None:
        parts.append(SiblingParts(sibling_scorer, sibling_preset, **sibling))
    parts.extend(more)
    if not parts:
        raise ValueError(
            "second-order parts need a triple scorer, a sibling scorer or both (or other families)"
        )
    return parts


def parse_price_cut(  # long: solve_second_order's arguments, in the paper's order of Algorithm 1
    arc_scores: ArrayLike,
    triple_scorer: TripleScorer | None,
    preset: str | Iterable[str] = "all",
    single_root: bool = False,
    base: str = "single-flow",
    options: ColgenOptions | None = None,
    warm: Mapping[str, Warm] | None = None,
    sibling_scorer: SiblingScorer | None = None,
    sibling_preset: str | Iterable[str] = "martins",
    **grandparent: Any,
) -> PPCResult:
    """Parse, Price and Cut (Algorithm 1) on one sentence with grandparent triples and/or arbitrary
    siblings: :func:`solve_second_order` with ``method="ppc"``."""
    return solve_second_order(
        arc_scores,
        triple_scorer,
        preset,
        single_root,
        base,
        options,
        sibling_scorer,
        "ppc",
        sibling_preset,
        warm,
        **grandparent,
    )


def _split_options(
    options: ColgenOptions | None, keywords: dict[str, Any]
) -> tuple[ColgenOptions, dict[str, Any]]:
    """Engine options (``options`` updated by the keywords that are its fields) and the other keywords."""
    engine = {k: v for k, v in keywords.items() if k in ENGINE_FIELDS}
    rest = {k: v for k, v in keywords.items() if k not in ENGINE_FIELDS}
    return replace(options or ColgenOptions(), **engine), rest


def solve_bf(
    arc_scores: ArrayLike,
    triple_scorer: TripleScorer | None,
    preset: str | Iterable[str] = "all",
    single_root: bool = False,
    base: str = "single-flow",
    options: ColgenOptions | None = None,
    sibling_scorer: SiblingScorer | None = None,
    sibling_preset: str | Iterable[str] = "martins",
    **engine: Any,
) -> PPCResult:
    """Brute force (BF, §6) with grandparent triples and/or arbitrary siblings: :func:`solve_second_order`
    with ``method="bf"``. ``time_limit`` (in ``options`` or a keyword): seconds for the whole run, scoring and
    building included; HiGHS gets what is left, or does not run when nothing is (status TIME_LIMIT either
    way)."""
    if set(engine) - ENGINE_FIELDS:
        raise TypeError(f"solve_bf got unexpected options {sorted(set(engine) - ENGINE_FIELDS)}")
    return solve_second_order(
        arc_scores,
        triple_scorer,
        preset,
        single_root,
        base,
        options,
        sibling_scorer,
        "bf",
        sibling_preset,
        **engine,
    )


def candidate_parts(arc_scores: ArrayLike, parts: Sequence[Parts], single_root: bool = False) -> int:
    """How many parts of the families ``parts`` the candidate arcs of ``arc_scores`` (finite entries) allow
    (what ``auto`` compares with :data:`BF_BELOW_PARTS`), by :func:`lpparse.families.base.count_candidates`."""
    arc = allowed_arcs(validate_scores(arc_scores))
    return sum(count_candidates(p, arc, single_root) for p in parts)


def choose_method(parts: int, method: str = "auto", below: int = BF_BELOW_PARTS) -> str:
    """``ppc`` or ``bf`` for a sentence with ``parts`` candidate parts (:func:`candidate_parts`): ``method``
    itself, or under ``auto`` BF below ``below`` parts (:func:`bf_below`) and PPC from there on."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose from {METHODS}")
    if method != "auto":
        return method
    return "bf" if parts < below else "ppc"


def bf_below(parts: Sequence[Parts]) -> int:
    """The candidate part count below which ``auto`` runs BF on these families: :data:`BF_BELOW_PARTS`, or
    a family's own ``bf_below`` when larger (third-order families: their pricing is not selective enough for
    PPC to pay, :class:`lpparse.families.third_order.family.TriSiblingParts`)."""
    return max([BF_BELOW_PARTS, *(getattr(p, "bf_below", 0) for p in parts)])


def solve_second_order(  # long: grandparent and sibling scorers with their presets, solve_lp's choices
    arc_scores: ArrayLike,
    triple_scorer: TripleScorer | None,
    preset: str | Iterable[str] = "all",
    single_root: bool = False,
    base: str = "single-flow",
    options: ColgenOptions | None = None,
    sibling_scorer: SiblingScorer | None = None,
    method: str = "auto",
    sibling_preset: str | Iterable[str] = "martins",
    warm: Mapping[str, Warm] | None = None,
    **grandparent: Any,
) -> PPCResult:
    """The second-order LP (grandparent triples under ``preset``, sibling parts under ``sibling_preset``) by
    ``method`` (``auto``: the cheaper of parse-price-cut and brute force, Riedel, Smith & McCallum 2012, §4 and
    §6; :func:`choose_method`): :func:`solve_lp` on :func:`second_order_parts`. ``grandparent``: options of
    :class:`GrandparentParts` (such as ``per_pair``) and keywords of :class:`lpparse.colgen.ColgenOptions`
    (overriding ``options``); ``warm``: per family, an earlier run's caches and parts."""
    options, grandparent = _split_options(options, grandparent)
    parts = second_order_parts(triple_scorer, preset, sibling_scorer, sibling_preset, **grandparent)
    return solve_lp(arc_scores, parts, method, single_root, base, options, warm)


def tree_objective(arc_scores: NDArray[np.float64], scorer: TripleScorer, heads: NDArray[np.int64]) -> float:
    """Arc plus triple score of a tree (scores its triples: one per word-headed token)."""
    m = np.arange(1, heads.size)
    value = float(arc_scores[heads[1:], m].sum())
    inner = heads[1:] > 0
    c = m[inner]
    p = heads[c]
    if c.size:
        value += float(np.sum(scorer.score(heads[p], p, c)))
    return value


def project_to_tree(result: PPCResult, single_root: bool) -> NDArray[np.int64]:
    """The tree of an integral optimum, else the maximum arborescence under the LP's arc values (§3: map a
    fractional point onto the trees)."""
    if result.heads is not None:
        return result.heads
    zm = result.arc_values()
    return chu_liu_edmonds(np.where(result.program.arc_mask, zm, -np.inf), single_root=single_root)
