"""Parse, Price and Cut (Riedel, Smith & McCallum 2012, §4, Algorithm 1) and the
brute-force baseline (BF, §6: the full LP with every triple scored and instantiated).

Parse-price-cut runs on the column-and-row generation engine (:class:`lpparse.colgen.Engine`, which owns
the loop: solve, price, cut, add in one batch, certify) with the part families of
:mod:`lpparse.ppc.families`: grandparent triples (:class:`~lpparse.ppc.families.GrandparentFamily`) and,
with ``sibling_scorer``, arbitrary siblings (:class:`~lpparse.ppc.families.SiblingFamily`); either may be
absent (not both). :func:`parse_price_cut` is a thin wrapper that builds the program, the families and the
options (:class:`lpparse.colgen.ColgenOptions`), and turns the engine's result into a :class:`PPCResult`.
:func:`solve_second_order` runs BF instead on sentences with fewer than :data:`BF_BELOW_PARTS` candidate
parts, where the full LP solves faster than PPC's rounds (measured there), and says which ran (:attr:`PPCResult.method`).

The grandparent family starts from every candidate arc and the triples of the first-order best tree T
(Chu-Liu-Edmonds; with parts scored -inf, a tree without them: :func:`lpparse.ppc.families.clean_tree`), so
the restricted LP is feasible, optionally plus one triple per arc h→m with h > 0 among
the ``seed_heads`` best-scoring heads of m (⟨0,h,m⟩ as in §4.2, or ⟨head_T(h),h,m⟩ with ``init="tree"``;
``seed_heads=None`` seeds every arc, as the paper). An arc without a triple is held at 0 by its OneGP row
until pricing brings one in, and stays out of the HiGHS master until then (:mod:`lpparse.ppc.dead_arcs`).
Each round it tightens the OneGP duals (§4.3.3), prices absent triples with reduced cost (eq. 8) > tol,
scoring only those whose bound (eq. 11) is > tol, keeps the ``per_pair`` best of each ⟨p,c⟩
(:mod:`lpparse.ppc.pricing`), and cuts absent triples whose ArcGP row is violated (§4.4,
:mod:`lpparse.ppc.separation`). The restricted LP is always the full LP restricted to its columns (less the
rows of absent parts), so at convergence its solution, extended by zeros, is optimal for the full LP:
:attr:`PPCResult.certificate`.

With ``lazy_arcgp=True`` a column enters without its ArcGP row, and **cut** also adds the held-back rows
that the solution violates (row generation on top of column generation). The restricted LP is then the
full LP restricted to its columns and to some of their ArcGP rows; at convergence every held-back row is
satisfied, so with dual 0 it leaves the same certificate valid. This departs from §4's rule that a
column's rows enter with it, so it is off by default. It pays for ``martins`` (10 English and 10 Hungarian
dev sentences of 20-30 tokens, CPU time: -41% and -26%); with the default ``all`` preset it is also a little
faster in benchmarks/results/ppc_ablation.md ("lazy ArcGP rows" relative to the default, 15 dev sentences
of 21-40 tokens: Danish 0.85x, English 0.93x, Hungarian 0.85x, Italian 0.98x CPU), yet it stays off. In
``all`` no ArcGP row is ever needed, as
OneGP, GPArc and OneHead imply them (:mod:`lpparse.formulations.grandparent`), so there it amounts to
dropping them from the restricted LP but not from BF's.

The reduced-cost formula holds for every preset: a family that is off has no rows and μ = 0 (``martins``
prices with r = s; ``all`` has no NoGP); ``onegp`` has no ArcGP rows and so no cuts.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.colgen.engine import Engine, FamilyRound, Round
from lpparse.colgen.options import BF_HIGHS_OPTIONS, DEFER, PER_PAIR, SEED_HEADS, ColgenOptions
from lpparse.formulations.grandparent import GrandparentProgram, grandparent_program, resolve_families
from lpparse.formulations.sibling import sibling_program
from lpparse.lp.highs_view import HighsModel
from lpparse.lp.solution import TOL, Certificate, Solution, Status
from lpparse.oracles.chu_liu_edmonds import chu_liu_edmonds
from lpparse.ppc.certificate import OutsideDuals
from lpparse.ppc.families import GPArcDuals, GrandparentFamily, SiblingFamily, WarmStart, clean_tree
from lpparse.trees import allowed_arcs, validate_scores
from lpparse.triples import (
    SiblingScorer,
    TripleScorer,
    candidate_triples,
    check_part_scores,
    sibling_mask,
    triple_mask,
)

__all__ = [
    "BF_BELOW_PARTS",
    "candidate_parts",
    "METHODS",
    "GPArcDuals",
    "PPCResult",
    "PPCRound",
    "PPCStats",
    "WarmStart",
    "choose_method",
    "parse_price_cut",
    "project_to_tree",
    "run_ppc",
    "solve_bf",
    "solve_second_order",
    "tree_objective",
]

#: :func:`solve_second_order`'s methods: ``ppc`` (:func:`run_ppc`), ``bf`` (:func:`solve_bf`) or ``auto``
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


@dataclass
class PPCStats:
    """Per-sentence statistics (the quantities of Tables 1–2)."""

    n: int
    method: str
    families: tuple[str, ...]
    gps_total: int  # candidate triples (what BF scores and adds)
    gps_scored: int = 0
    gps_added: int = 0
    rows: int = 0
    cols: int = 0
    iterations: int = 0
    simplex_iterations: int = 0
    priced: int = 0
    cut: int = 0
    rows_cut: int = 0  # held-back ArcGP rows added (lazy_arcgp) and PrunedGP rows of pruned triples
    duals_tightened: int = 0
    time_scoring: float = 0.0
    time_pricing: float = 0.0
    time_solving: float = 0.0
    time_total: float = 0.0
    objective: float = float("nan")
    integral: bool = False

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["families"] = "+".join(self.families)
        return d


@dataclass(frozen=True)
class PPCRound:
    """One parse-price-cut round: the restricted LP it solved and what pricing and separation found.

    ``gps_scored`` counts the triples scored so far, this round's pricing included; ``gps_added``, ``rows``
    and ``cols`` describe the LP solved this round, ``arcs_out`` how many of its arcs were dead and left out
    of the HiGHS master (:mod:`lpparse.ppc.dead_arcs`); ``priced``, ``cut`` (columns) and ``rows_cut``
    (held-back ArcGP rows, PrunedGP rows of pruned triples) are what enters for the next round;
    ``max_reduced_cost`` and ``max_violation`` bound what stays out (both <= tol in the last round), over
    every part family. ``gps_*``, ``arcs_out``, ``priced``, ``cut`` and ``rows_cut`` are the grandparent
    family's; ``sibs_*`` the sibling family's (0 without it).
    """

    round: int
    objective: float
    simplex_iterations: int
    solve_seconds: float
    gps_scored: int
    gps_added: int
    rows: int
    cols: int
    arcs_out: int
    priced: int
    cut: int
    rows_cut: int
    max_reduced_cost: float
    max_violation: float
    sibs_scored: int = 0
    sibs_added: int = 0
    sibs_priced: int = 0
    sibs_cut: int = 0


@dataclass
class PPCResult:
    """Outcome of PPC (or BF) on one sentence.

    ``solution``: the last restricted-LP Solution; ``row_dual``: its duals after tightening (lpparse's
    convention, for the restricted program ``program.lp``); ``certificate``: for PPC the extension-by-zeros
    certificate of :func:`lpparse.ppc.certificate.ppc_certificate`, for BF the LP certificate. ``heads`` is
    the tree when the LP optimum is integral (then ILP-optimal), else None. ``gparc_duals``: (g, p, c, λ) of
    the absent triples whose GPArc rows carry dual -λ in the certificate (all other absent rows carry 0).
    ``trace``: one :class:`PPCRound` per LP solve (BF: one round with every part in and nothing priced or
    cut), ``rounds`` the engine's per-family record of the same rounds (:class:`lpparse.colgen.Round`).
    ``outside``: the nonzero duals of every absent row of the certificate (GPArc, and SibArc with siblings),
    ``outside_shift`` their Aᵀy on the program's columns. With siblings, ``info["siblings"]`` is the
    :class:`~lpparse.formulations.sibling.SiblingProgram` and ``info`` counts its parts (``sibs_total``,
    ``sibs_scored``, ``sibs_added``, ``sibs_priced``, ``sibs_cut``).
    """

    status: Status
    program: GrandparentProgram
    solution: Solution
    stats: PPCStats
    row_dual: NDArray[np.float64] | None = None
    certificate: Certificate | None = None
    heads: NDArray[np.int64] | None = None
    gparc_duals: GPArcDuals | None = None
    info: dict[str, Any] = field(default_factory=dict)
    trace: list[PPCRound] = field(default_factory=list)
    rounds: list[Round] = field(default_factory=list)
    outside: OutsideDuals = field(default_factory=dict)
    outside_shift: NDArray[np.float64] | None = None

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
        :func:`lpparse.ppc.certify_full`): the GPArc rows z[g,p] - zgp[g,p,c] >= 0 of ``gparc_duals`` and the
        SibArc rows of absent sibling parts."""
        return self.outside

    def reduced_costs(self) -> NDArray[np.float64]:
        """d = c - Aᵀy on the restricted program's columns, with the certificate's duals: ``row_dual`` and
        the absent rows' duals (``outside``)."""
        if self.row_dual is None:
            raise ValueError(f"no duals (status {self.status.value})")
        lp = self.program.lp
        d = lp.cost - lp.A.T @ self.row_dual
        if self.outside_shift is not None:
            d -= self.outside_shift
        return d

    def arc_values(self) -> NDArray[np.float64]:
        """(n+1, n+1) LP values of the arcs."""
        if self.solution.x is None:
            raise ValueError(f"no primal solution (status {self.status.value})")
        return self.program.arc_values(self.solution.x)


def _validated(
    arc_scores: ArrayLike, *scorers: TripleScorer | SiblingScorer | None
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    s = validate_scores(arc_scores, "arc scores")  # grandparent_program raises NoTreeError if no tree exists
    for scorer in scorers:
        if scorer is not None and scorer.n != s.shape[0] - 1:
            kind = "sibling" if isinstance(scorer, SiblingScorer) else "triple"
            raise ValueError(f"{kind} scorer is for n={scorer.n}, arc scores for n={s.shape[0] - 1}")
    return s, allowed_arcs(s)


def _finish(
    prog: GrandparentProgram, sol: Solution, status: Status, stats: PPCStats, start: float
) -> NDArray[np.int64] | None:
    """Fill the size and outcome statistics; return the heads of an integral optimum of the run (``status``
    OPTIMAL: a run stopped by a limit returns no tree, even when its last restricted LP was integral)."""
    stats.rows, stats.cols = prog.lp.num_rows, prog.lp.num_cols
    stats.gps_added = prog.num_triples
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


def parse_price_cut(
    arc_scores: ArrayLike,
    triple_scorer: TripleScorer | None,
    preset: str | Iterable[str] = "all",
    single_root: bool = False,
    base: str = "single-flow",
    tighten: bool = True,
    tol: float = 1e-7,
    certificate_tol: float = TOL,
    time_limit: float | None = None,
    max_iterations: int = 1000,
    init: str = "root",
    seed_heads: int | None = SEED_HEADS,
    per_pair: int | None = PER_PAIR,
    parent_duals: bool = True,
    defer: float | None = DEFER,
    lazy_arcgp: bool = False,
    dead_arcs: bool = True,
    warm: WarmStart | None = None,
    sibling_scorer: SiblingScorer | None = None,
    sibling_preset: str | Iterable[str] = "martins",
) -> PPCResult:
    """Parse, Price and Cut (Algorithm 1) on one sentence; see the module docstring. The keywords build a
    :class:`lpparse.colgen.ColgenOptions` (documented there) for :func:`run_ppc`.

    ``preset``: ``martins``, ``onegp``, ``all`` or an iterable of grandparent families; ``triple_scorer``
    may be None when ``sibling_scorer`` is given (arcs and siblings only), ``sibling_preset`` the sibling
    polytope's families (:mod:`lpparse.formulations.sibling`); ``warm``: the score caches, triples and
    sibling parts of an earlier run on the same sentence (:class:`WarmStart`). Raises ValueError (NaN
    scores) or NoTreeError.
    """
    options = ColgenOptions(
        tol=tol,
        certificate_tol=certificate_tol,
        time_limit=time_limit,
        max_iterations=max_iterations,
        tighten=tighten,
        init=init,
        seed_heads=seed_heads,
        per_pair=per_pair,
        parent_duals=parent_duals,
        defer=defer,
        lazy_arcgp=lazy_arcgp,
        dead_arcs=dead_arcs,
        sibling_preset=sibling_preset,
    )
    return run_ppc(arc_scores, triple_scorer, preset, single_root, base, options, warm, sibling_scorer)


def run_ppc(
    arc_scores: ArrayLike,
    triple_scorer: TripleScorer | None,
    preset: str | Iterable[str] = "all",
    single_root: bool = False,
    base: str = "single-flow",
    options: ColgenOptions | None = None,
    warm: WarmStart | None = None,
    sibling_scorer: SiblingScorer | None = None,
) -> PPCResult:
    """Parse-price-cut with its options as one :class:`lpparse.colgen.ColgenOptions`: the grandparent
    family of ``triple_scorer`` under ``preset`` and the sibling family of ``sibling_scorer`` (either may be
    None, not both) on the arborescence program ``base``, run by :class:`lpparse.colgen.Engine`."""
    if triple_scorer is None and sibling_scorer is None:
        raise ValueError("parse_price_cut needs a triple scorer, a sibling scorer or both")
    options = options or ColgenOptions()
    start = time.perf_counter()
    s, _ = _validated(arc_scores, triple_scorer, sibling_scorer)
    families = resolve_families(preset) if triple_scorer is not None else ()
    prog = grandparent_program(s, families or "martins", single_root, base)
    tree = chu_liu_edmonds(s, single_root=single_root)
    parts: list[GrandparentFamily | SiblingFamily] = []
    gp = sib = None
    if triple_scorer is not None:
        gp = GrandparentFamily(prog, triple_scorer, s, tree, options, warm)
        parts.append(gp)
    if sibling_scorer is not None:
        sib = SiblingFamily(prog, sibling_scorer, tree, options, warm)
        parts.append(sib)
    start_tree = clean_tree(s, single_root, tree, parts)  # None: every part enters at the start
    for part in parts:
        part.tree = start_tree
    run = Engine(prog.lp, parts, options, start).run()
    stats = PPCStats(prog.n, "ppc", families, gp.candidates if gp is not None else 0)
    stats.iterations, stats.simplex_iterations = run.iterations, run.simplex_iterations
    stats.time_solving, stats.time_pricing = run.time_solving, run.time_pricing
    stats.time_scoring = sum(part.scoring_seconds for part in parts)
    stats.duals_tightened = sum(t.tightened for t in run.totals.values())
    info: dict[str, Any] = {
        "max_reduced_cost": run.max_reduced_cost,
        "max_arcgp_violation": run.max_violation,
        "stalled": run.info["stalled"],
    }
    if gp is not None:
        totals = run.totals[gp.name]
        stats.gps_scored = gp.scored
        stats.priced, stats.cut, stats.rows_cut = totals.priced, totals.cut, totals.rows_cut
    if sib is not None:
        totals = run.totals[sib.name]
        info.update(
            siblings=sib.sibs,
            sibs_total=sib.candidates,
            sibs_scored=sib.scored,
            sibs_added=sib.added,
            sibs_priced=totals.priced,
            sibs_cut=totals.cut,
        )
    sol = run.solution
    heads = _finish(prog, sol, run.status, stats, start)
    outside: OutsideDuals = {}
    for part in parts:
        outside.update(part.outside_duals())
    return PPCResult(
        run.status,
        prog,
        sol,
        stats,
        run.row_dual,
        run.certificate,
        heads,
        gparc_duals=gp.gparc if gp is not None else None,
        info=info,
        trace=[_ppc_round(r) for r in run.trace],
        rounds=run.trace,
        outside=outside if run.status is Status.OPTIMAL else {},
        outside_shift=run.outside_shift,
    )


def _ppc_round(r: Round) -> PPCRound:
    """The engine's round as a :class:`PPCRound` (grandparent and sibling counts)."""
    none = FamilyRound(0, 0, 0, 0, 0, 0, -np.inf, -np.inf)
    gp = r.families.get(GrandparentFamily.name, none)
    sib = r.families.get(SiblingFamily.name, none)
    return PPCRound(
        round=r.round,
        objective=r.objective,
        simplex_iterations=r.simplex_iterations,
        solve_seconds=r.solve_seconds,
        gps_scored=gp.scored,
        gps_added=gp.added,
        rows=r.rows,
        cols=r.cols,
        arcs_out=gp.held_out,
        priced=gp.priced,
        cut=gp.cut,
        rows_cut=gp.rows_cut,
        max_reduced_cost=r.max_reduced_cost,
        max_violation=r.max_violation,
        sibs_scored=sib.scored,
        sibs_added=sib.added,
        sibs_priced=sib.priced,
        sibs_cut=sib.cut,
    )


def solve_bf(
    arc_scores: ArrayLike,
    triple_scorer: TripleScorer | None,
    preset: str | Iterable[str] = "all",
    single_root: bool = False,
    base: str = "single-flow",
    certificate_tol: float = TOL,
    time_limit: float | None = None,
    sibling_scorer: SiblingScorer | None = None,
    sibling_preset: str | Iterable[str] = "martins",
) -> PPCResult:
    """Brute force (BF, §6): score every candidate part, build the full LP and solve it once.

    Parts: grandparent triples of ``triple_scorer`` under ``preset``, and arbitrary siblings of
    ``sibling_scorer`` under ``sibling_preset`` (:mod:`lpparse.formulations.sibling`); either may be None
    (not both). With siblings, ``info`` holds the :class:`~lpparse.formulations.sibling.SiblingProgram`
    (``siblings``) and the parts it scored (``sibs_scored``, all of them: ``sibs_total``). ``time_limit``:
    seconds for the whole run, scoring and building included: HiGHS gets what is left, or does not run when
    nothing is (status TIME_LIMIT either way). HiGHS checks its limit between simplex iterations, not in its
    presolve and setup (0.6 s and 0 iterations on the 30,000-row full LP of n = 25, on a loaded machine)."""
    if triple_scorer is None and sibling_scorer is None:
        raise ValueError("solve_bf needs a triple scorer, a sibling scorer or both")
    start = time.perf_counter()
    s, arc = _validated(arc_scores, triple_scorer, sibling_scorer)
    # without triples only the per-triple families (martins) add no row: the program is the arborescence
    families = resolve_families(preset) if triple_scorer is not None else ()
    prog = grandparent_program(s, families or "martins", single_root, base)
    stats = PPCStats(prog.n, "bf", families, 0, iterations=1)
    info: dict[str, Any] = {}
    if triple_scorer is not None:
        scored0 = triple_scorer.scored
        g, p, c = candidate_triples(arc)
        t0 = time.perf_counter()
        values = triple_scorer.score(g, p, c)
        stats.time_scoring += time.perf_counter() - t0
        check_part_scores(values, "triple")
        prog.add_triples(g, p, c, values)  # a pruned triple (-inf) as its PrunedGP row
        stats.gps_total, stats.gps_scored = g.size, triple_scorer.scored - scored0
    if sibling_scorer is not None:
        sibs = sibling_program(prog.lp, sibling_preset)
        scored0 = sibling_scorer.scored
        h, m, m2 = sibs.candidates()
        t0 = time.perf_counter()
        values = sibling_scorer.score(h, m, m2)
        stats.time_scoring += time.perf_counter() - t0
        check_part_scores(values, "sibling")
        sibs.add_siblings(h, m, m2, values)  # a pruned part (-inf) as its PrunedSib row
        info.update(siblings=sibs, sibs_total=h.size, sibs_scored=sibling_scorer.scored - scored0)
    deadline = None if time_limit is None else start + time_limit
    sol = Solution.checked(prog.lp, Status.TIME_LIMIT, False)
    if deadline is None or time.perf_counter() < deadline:  # else out of time before the solve
        model = HighsModel(prog.lp, tol=certificate_tol, options=BF_HIGHS_OPTIONS)
        model.set_deadline(deadline)
        sol = model.solve()
    stats.time_solving = sol.time
    stats.simplex_iterations = sol.iterations
    heads = _finish(prog, sol, sol.status, stats, start)
    rounds: list[Round] = []
    if sol.status is Status.OPTIMAL:  # one round that leaves nothing out, as the engine would record it
        families: dict[str, FamilyRound] = {}
        if triple_scorer is not None:
            families[GrandparentFamily.name] = FamilyRound(
                stats.gps_scored, stats.gps_added, 0, 0, 0, 0, -np.inf, -np.inf
            )
        if sibling_scorer is not None:
            families[SiblingFamily.name] = FamilyRound(
                info["sibs_scored"], info["sibs_total"], 0, 0, 0, 0, -np.inf, -np.inf
            )
        rounds.append(Round(1, sol.objective, sol.iterations, sol.time, stats.rows, stats.cols, families))
        info.update(max_reduced_cost=-np.inf, max_arcgp_violation=-np.inf, stalled=False)
    return PPCResult(
        sol.status,
        prog,
        sol,
        stats,
        sol.row_dual,
        sol.certificate,
        heads,
        info=info,
        trace=[_ppc_round(r) for r in rounds],
        rounds=rounds,
    )


def candidate_parts(
    arc_scores: ArrayLike, grandparent: bool = True, siblings: bool = False, single_root: bool = False
) -> int:
    """How many second-order parts the candidate arcs of ``arc_scores`` (finite entries) allow: grandparent
    triples (with ``grandparent``) plus sibling parts (with ``siblings``)."""
    arc = allowed_arcs(validate_scores(arc_scores))
    parts = int(triple_mask(arc).sum()) if grandparent else 0
    return parts + (int(sibling_mask(arc, single_root).sum()) if siblings else 0)


def choose_method(parts: int, method: str = "auto") -> str:
    """``ppc`` or ``bf`` for a sentence with ``parts`` candidate second-order parts (:func:`candidate_parts`):
    ``method`` itself, or under ``auto`` BF below :data:`BF_BELOW_PARTS` parts and PPC from there on."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; choose from {METHODS}")
    if method != "auto":
        return method
    return "bf" if parts < BF_BELOW_PARTS else "ppc"


def solve_second_order(
    arc_scores: ArrayLike,
    triple_scorer: TripleScorer | None,
    preset: str | Iterable[str] = "all",
    single_root: bool = False,
    base: str = "single-flow",
    options: ColgenOptions | None = None,
    sibling_scorer: SiblingScorer | None = None,
    method: str = "auto",
) -> PPCResult:
    """The second-order LP (grandparent triples under ``preset``, sibling parts under
    ``options.sibling_preset``) by the cheaper of parse-price-cut and brute force (Riedel, Smith & McCallum
    2012, §4 and §6; :func:`choose_method`). Either way the answer is certified on the full LP;
    ``result.stats.method`` says which ran (BF takes ``certificate_tol``, ``time_limit`` and
    ``sibling_preset`` of ``options``, and leaves the rest)."""
    options = options or ColgenOptions()
    parts = candidate_parts(arc_scores, triple_scorer is not None, sibling_scorer is not None, single_root)
    if choose_method(parts, method) == "ppc":
        return run_ppc(arc_scores, triple_scorer, preset, single_root, base, options, None, sibling_scorer)
    return solve_bf(
        arc_scores,
        triple_scorer,
        preset,
        single_root,
        base,
        options.certificate_tol,
        options.time_limit,
        sibling_scorer,
        options.sibling_preset,
    )


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
