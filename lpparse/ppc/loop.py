"""Parse, Price and Cut (Riedel, Smith & McCallum 2012, ``001_96d0466e746ddc9d.txt`` §4, Algorithm 1) and the
brute-force baseline (BF, §6: the full LP with every triple scored and instantiated).

:func:`parse_price_cut` starts from every candidate arc and the triples of the first-order best tree T
(Chu-Liu-Edmonds), so the restricted LP is feasible, optionally plus one triple per arc h→m with h > 0 among
the ``seed_heads`` best-scoring heads of m (⟨0,h,m⟩ as in §4.2, or ⟨head_T(h),h,m⟩ with ``init="tree"``;
``seed_heads=None`` seeds every arc, as the paper). An arc without a triple is held at 0 by its OneGP row
until pricing brings one in, and stays out of the HiGHS master until then (:mod:`lpparse.ppc.dead_arcs`).
Then it repeats

1. **parse**: solve the restricted LP with the live HiGHS master (cold dual simplex first; warm primal
   simplex after columns only, which keep the basis primal feasible; warm dual simplex after cuts);
2. **price**: tighten the OneGP duals (§4.3.3), then find absent triples with reduced cost (eq. 8) > tol,
   scoring only those whose bound (eq. 11) is > tol, and keep the ``per_pair`` best of each ⟨p,c⟩
   (:mod:`lpparse.ppc.pricing`);
3. **cut**: find absent triples whose ArcGP row is violated (§4.4, :mod:`lpparse.ppc.separation`);

adding the union as columns (with their own rows) in one batch, until both sets are empty. The restricted
LP is always the full LP restricted to its columns (less the ArcGP/GPArc rows of absent triples), so at
convergence its solution, extended by zeros, is optimal for the full LP: :attr:`PPCResult.certificate`.

With ``lazy_arcgp=True`` a column enters without its ArcGP row, and **cut** also adds the held-back rows
that the solution violates (row generation on top of column generation). The restricted LP is then the
full LP restricted to its columns and to some of their ArcGP rows; at convergence every held-back row is
satisfied, so with dual 0 it leaves the same certificate valid. This departs from §4's rule that a
column's rows enter with it, so it is off by default. It pays for ``martins`` (10 English and 10 Hungarian
dev sentences of 20-30 tokens, CPU time: -41% and -26%); in ``all`` no ArcGP row is ever needed, as
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

from lpparse.formulations.grandparent import GrandparentProgram, grandparent_program, resolve_families
from lpparse.formulations.sibling import sibling_program
from lpparse.lp.highs_view import HighsModel
from lpparse.lp.solution import TOL, Certificate, Solution, Status
from lpparse.oracles.chu_liu_edmonds import chu_liu_edmonds
from lpparse.ppc.certificate import OutsideDuals, ppc_certificate
from lpparse.ppc.dead_arcs import DeadArcs
from lpparse.ppc.pricing import ScoreCache, Triples, arc_slack, gp_duals, price
from lpparse.ppc.separation import separate_arcgp
from lpparse.trees import allowed_arcs, validate_scores
from lpparse.triples import SiblingScorer, TripleScorer, candidate_triples, triple_mask

__all__ = [
    "PPCResult",
    "PPCRound",
    "PPCStats",
    "WarmStart",
    "parse_price_cut",
    "project_to_tree",
    "solve_bf",
    "tree_objective",
]


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
    rows_cut: int = 0  # held-back ArcGP rows added (lazy_arcgp)
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
    of the HiGHS master (:mod:`lpparse.ppc.dead_arcs`); ``priced``, ``cut`` (columns) and ``rows_cut`` (held-back
    ArcGP rows) are what enters for the next round; ``max_reduced_cost`` and ``max_violation`` bound what
    stays out (both <= tol in the last round).
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


@dataclass
class PPCResult:
    """Outcome of PPC (or BF) on one sentence.

    ``solution``: the last restricted-LP Solution; ``row_dual``: its duals after tightening (lpparse's
    convention, for the restricted program ``program.lp``); ``certificate``: for PPC the extension-by-zeros
    certificate of :func:`lpparse.ppc.certificate.ppc_certificate`, for BF the LP certificate. ``heads`` is
    the tree when the LP optimum is integral (then ILP-optimal), else None. ``gparc_duals``: (g, p, c, λ) of
    the absent triples whose GPArc rows carry dual -λ in the certificate (all other absent rows carry 0).
    ``trace``: one :class:`PPCRound` per LP solve of a PPC run (empty for BF).
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
        :func:`lpparse.ppc.certify_full`): the GPArc rows z[g,p] - zgp[g,p,c] >= 0 of ``gparc_duals``."""
        if self.gparc_duals is None or self.gparc_duals[3].size == 0:
            return {}
        g, p, c, lam = self.gparc_duals
        return {"GPArc": (np.column_stack([g, p, c, np.zeros_like(g)]), -lam)}

    def reduced_costs(self) -> NDArray[np.float64]:
        """d = c - Aᵀy on the restricted program's columns, with the certificate's duals: ``row_dual`` and
        the absent GPArc rows' duals (``gparc_duals``)."""
        if self.row_dual is None:
            raise ValueError(f"no duals (status {self.status.value})")
        lp = self.program.lp
        d = lp.cost - lp.A.T @ self.row_dual
        if self.gparc_duals is not None:
            d -= _gparc_shift(self.program, self.gparc_duals)
        return d

    def arc_values(self) -> NDArray[np.float64]:
        """(n+1, n+1) LP values of the arcs."""
        if self.solution.x is None:
            raise ValueError(f"no primal solution (status {self.status.value})")
        return self.program.arc_values(self.solution.x)


#: (g, p, c, λ): absent triples whose GPArc row z[g,p] - zgp[g,p,c] >= 0 carries dual -λ (pricing module)
GPArcDuals = tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.float64]]
_NO_GPARC: GPArcDuals = (np.empty(0, np.int64),) * 3 + (np.empty(0),)  # type: ignore[assignment]


def _gparc_shift(prog: GrandparentProgram, gparc: GPArcDuals) -> NDArray[np.float64]:
    """Aᵀy of the absent GPArc rows with duals -λ, over the restricted program's columns: -λ summed on
    z[g,p]."""
    shift = np.zeros(prog.lp.num_cols)
    g, p, _, lam = gparc
    np.add.at(shift, prog.z_col[g, p], -lam)
    return shift


def _validated(
    arc_scores: ArrayLike, *scorers: TripleScorer | SiblingScorer | None
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    s = validate_scores(arc_scores, "arc scores")  # grandparent_program raises NoTreeError if no tree exists
    for scorer in scorers:
        if scorer is not None and scorer.n != s.shape[0] - 1:
            kind = "sibling" if isinstance(scorer, SiblingScorer) else "triple"
            raise ValueError(f"{kind} scorer is for n={scorer.n}, arc scores for n={s.shape[0] - 1}")
    return s, allowed_arcs(s)


INITS = ("root", "tree")
#: HiGHS options for PPC and BF alike: devex pricing in the dual simplex (PPC 12% faster on the Danish dev
#: set) and no scaling (the matrix is 0/±1 with flow coefficients n; measured on Danish and Hungarian sentences
#: of 20-40 tokens, CPU time: PPC -20% with fewer rounds and GPs scored, BF -10%, same BF iterations)
HIGHS_OPTIONS: dict[str, object] = {"simplex_dual_edge_weight_strategy": 1, "simplex_scale_strategy": 0}
#: PPC's warm primal re-solves run without bound perturbation (CPU time on sentences of 20-40 tokens: Danish
#: -15%, Hungarian -30%, hard English sentences -45%) but may stall on degenerate programs without it: after
#: ``STALL_ROWS`` x rows iterations a re-solve continues from where it stopped with HiGHS's default perturbation
STALL_ROWS = 1.0
#: HiGHS ``simplex_strategy`` for PPC's warm re-solves: primal after new columns only (measured on 15 Danish
#: sentences of 20-40 tokens: half the simplex iterations of dual), dual after cuts (primal infeasible)
PRIMAL, DUAL = 4, 1
#: Initial ⟨·,h,m⟩ triples for none of the arcs: T's triples alone. With dead arcs out of the master, a small
#: start wins (CPU time vs 2 seed heads, the best before: English dev sentences of 21-30 / 31-40 / 41+ tokens
#: -17% / -15% / -9%, Hungarian 21-30 / 31-40 -16% / -14%, Italian 21-40 -10%, Danish 21-40 +2%; fewer GPs
#: scored and added on all four)
SEED_HEADS = 0
#: Partial pricing: at most 8 new triples per ⟨p,c⟩ a round (measured on 30 Danish and 20 Hungarian sentences
#: of 20-40 tokens, CPU time and GPs added vs all: Danish -8%, 3.2% -> 2.5%; Hungarian -17%, 6.7% -> 4.7%;
#: 1-5 per pair cost too many rounds, 10 is like 8)
PER_PAIR = 8
#: Hold back priced triples with both arcs at 0 (degenerate pivots) when there are more than DEFER·n of them
#: and others to add (measured on 15 dev sentences of 20-45 tokens, CPU time: English -34% with 2.5x fewer
#: GPs added, Hungarian unchanged; DEFER = 0, always holding them back, costs Hungarian +35% in extra rounds)
DEFER = 8.0


@dataclass
class WarmStart:
    """What a parse-price-cut run on a sentence may take from earlier runs on the same sentence (the nodes
    of :func:`lpparse.ppc.exact.parse_exact`): the score cache, so that no triple is scored twice, and
    triples to start from besides the first-order tree's (those whose arcs are no longer candidates are
    dropped)."""

    cache: ScoreCache
    triples: Triples = (np.empty(0, np.int64),) * 3  # type: ignore[assignment]


def _initial_triples(
    s: NDArray[np.float64],
    arc: NDArray[np.bool_],
    single_root: bool,
    init: str,
    seed_heads: int | None,
    warm: WarmStart | None = None,
) -> Triples:
    """One triple per word arc h→m with h among the ``seed_heads`` best-scoring heads of m (None: every
    arc), the triples of the first-order best tree T (Chu-Liu-Edmonds) and the candidate ones of ``warm``.

    ``root`` (§4.2): ⟨0,h,m⟩ when 0→h is a candidate; ``tree``: ⟨head_T(h),h,m⟩, else ⟨0,h,m⟩. Either way T's
    own triples are present, so T is feasible in the restricted LP: with GPArc or NoGP, ⟨0,h,m⟩ alone allows
    only trees of depth 2, which pruned arcs or a single root can make infeasible.
    """
    if init not in INITS:
        raise ValueError(f"unknown init {init!r}; choose from {INITS}")
    tree = chu_liu_edmonds(s, single_root=single_root)
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
    size = s.shape[0]
    parts = [(g[ok], h[ok], m[ok]), (tree[tree[tm]], tree[tm], tm)]
    if warm is not None:
        wg, wp, wc = warm.triples
        keep = arc[wg, wp] & arc[wp, wc]
        parts.append((wg[keep], wp[keep], wc[keep]))
    keys = np.concatenate([np.ravel_multi_index(t, (size,) * 3) for t in parts])
    g, h, m = np.unravel_index(np.unique(keys), (size,) * 3)
    return g.astype(np.int64), h.astype(np.int64), m.astype(np.int64)


def _finish(
    prog: GrandparentProgram, sol: Solution, stats: PPCStats, start: float, tol: float
) -> NDArray[np.int64] | None:
    """Fill the size and outcome statistics; return the heads of an integral optimum."""
    stats.rows, stats.cols = prog.lp.num_rows, prog.lp.num_cols
    stats.gps_added = prog.num_triples
    stats.time_total = time.perf_counter() - start
    if sol.status is not Status.OPTIMAL or sol.x is None:
        return None
    stats.objective = sol.objective
    stats.integral = sol.integral
    if not stats.integral:
        return None
    zm = prog.arc_values(sol.x)
    heads = np.full(prog.n + 1, -1, np.int64)
    heads[1:] = zm[:, 1:].argmax(axis=0)
    return heads


def _perturbation(model: HighsModel, on: bool) -> None:
    """Primal bound perturbation on (HiGHS's default, no iteration limit) or off (with the stall limit)."""
    highs = model.highs
    if on:
        highs.setOptionValue("primal_simplex_bound_perturbation_multiplier", 1.0)
        highs.setOptionValue("simplex_iteration_limit", 2**31 - 1)
    else:
        highs.setOptionValue("primal_simplex_bound_perturbation_multiplier", 0.0)
        highs.setOptionValue("simplex_iteration_limit", int(STALL_ROWS * model.lp.num_rows) + 1)


def parse_price_cut(
    arc_scores: ArrayLike,
    triple_scorer: TripleScorer,
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
) -> PPCResult:
    """Parse, Price and Cut (Algorithm 1) on one sentence; see the module docstring.

    ``preset``: ``martins``, ``onegp``, ``all`` or an iterable of families; ``tighten``: §4.3.3 dual
    tightening; ``tol``: reduced costs and ArcGP violations above it are priced/cut; ``time_limit``: seconds
    for the whole run (status TIME_LIMIT when reached); ``init``: initial triples (:func:`_initial_triples`,
    ``root`` as in the paper, the default: measured faster than ``tree`` on trained models); ``seed_heads``: how
    many best heads per modifier get an initial triple besides T's (:data:`SEED_HEADS`: none; None: every
    arc, as in the paper); ``per_pair``: at most
    that many new triples per ⟨p,c⟩ a round (None: all priced, as in the paper); ``parent_duals``: spend the
    slack of zero arcs on the GPArc rows of absent triples too (:mod:`lpparse.ppc.pricing`; False: §4.3.3
    only); ``defer``: hold back triples whose arcs are both at 0 while there are more than ``defer``·n of
    them and others to add (None: never); ``lazy_arcgp``: add a column's ArcGP row only once the solution
    violates it (module docstring); ``dead_arcs``: keep the arcs that no present triple can carry out of the
    HiGHS master (:mod:`lpparse.ppc.dead_arcs`; only with OneGP and a flow base); ``warm``: the score cache
    and triples of an earlier run on the same sentence (:class:`WarmStart`). Raises ValueError (NaN scores)
    or NoTreeError.
    """
    start = time.perf_counter()
    deadline = None if time_limit is None else start + time_limit
    s, arc = _validated(arc_scores, triple_scorer)
    families = resolve_families(preset)
    prog = grandparent_program(s, families, single_root, base)
    stats = PPCStats(prog.n, "ppc", families, int(triple_mask(arc).sum()))
    scored0 = triple_scorer.scored
    cache = ScoreCache(triple_scorer, s.shape[0]) if warm is None else warm.cache
    seconds0 = cache.seconds
    g, p, c = _initial_triples(s, arc, single_root, init, seed_heads, warm)
    prog.add_triples(g, p, c, cache.get(g, p, c), arcgp=not lazy_arcgp)
    bound_gp, bound_pc = cache.bounds()
    dead = DeadArcs(prog) if dead_arcs and DeadArcs.applies(prog) else None
    if dead is not None:
        model = dead.model(tol=certificate_tol, options=HIGHS_OPTIONS)
    else:
        model = HighsModel(prog.lp, tol=certificate_tol, options=HIGHS_OPTIONS)
    y: NDArray[np.float64] | None = None
    gparc = _NO_GPARC
    max_rc = max_viol = np.inf
    status = Status.ITERATION_LIMIT
    trace: list[PPCRound] = []
    while True:
        model.set_deadline(deadline)
        sol = model.solve(certify=False)  # the final answer gets the PPC certificate below
        iterations, seconds = sol.iterations, sol.time
        if sol.status is Status.ITERATION_LIMIT and stats.iterations > 0:  # stalled: perturb and go on
            _perturbation(model, True)
            sol = model.solve(certify=False)
            iterations, seconds = iterations + sol.iterations, seconds + sol.time
            _perturbation(model, False)
        if dead is not None:
            sol = dead.extend(sol)
        stats.simplex_iterations += iterations
        stats.time_solving += seconds
        stats.iterations += 1
        if sol.status is not Status.OPTIMAL or sol.x is None or sol.row_dual is None:
            status = sol.status
            break
        t0 = time.perf_counter()
        scoring0 = cache.seconds
        slack = arc_slack(prog, sol.x, sol.col_dual) if tighten else np.zeros(prog.z_col.shape)
        mu_onegp, mu_nogp = gp_duals(prog, sol.row_dual)
        z = prog.arc_values(sol.x)
        priced = price(
            prog, cache, bound_gp, bound_pc, mu_onegp, mu_nogp, slack, tol, per_pair, parent_duals, z, defer
        )
        y = sol.row_dual.copy()
        raised = prog.onegp_row >= 0
        y[prog.onegp_row[raised]] += priced.onegp_raise[raised]
        gparc = priced.gparc
        stats.duals_tightened += int(np.count_nonzero(priced.onegp_raise)) + gparc[3].size
        cuts = separate_arcgp(prog, z, tol, sol.x)
        max_rc, max_viol = priced.max_bound, cuts.max_violation
        stats.time_pricing += time.perf_counter() - t0 - (cache.seconds - scoring0)
        # a triple both priced and cut enters once (as priced); cut triples may still need a score
        ckeys = np.ravel_multi_index((cuts.g, cuts.p, cuts.c), prog.present.shape)
        if ckeys.size:
            ckeys = np.setdiff1d(
                ckeys, np.ravel_multi_index((priced.g, priced.p, priced.c), prog.present.shape)
            )
        cg, cp, cc = np.unravel_index(ckeys, prog.present.shape)
        trace.append(
            PPCRound(
                stats.iterations,
                sol.objective,
                iterations,
                seconds,
                triple_scorer.scored - scored0,
                prog.num_triples,
                prog.lp.num_rows,
                prog.lp.num_cols,
                int(dead.out.sum()) if dead is not None else 0,
                priced.g.size,
                ckeys.size,
                cuts.rows[0].size,
                max_rc,
                max_viol,
            )
        )
        if priced.g.size == 0 and ckeys.size == 0 and cuts.rows[0].size == 0:
            status = Status.OPTIMAL
            break
        if stats.iterations >= max_iterations or (deadline is not None and time.perf_counter() > deadline):
            status = Status.ITERATION_LIMIT if stats.iterations >= max_iterations else Status.TIME_LIMIT
            break
        stats.priced += priced.g.size
        stats.cut += ckeys.size
        stats.rows_cut += cuts.rows[0].size
        model.highs.setOptionValue("simplex_strategy", DUAL if cuts.g.size or cuts.rows[0].size else PRIMAL)
        prog.add_arcgp_rows(*cuts.rows)
        prog.add_triples(priced.g, priced.p, priced.c, priced.scores, arcgp=not lazy_arcgp)
        prog.add_triples(cg, cp, cc, cache.get(cg, cp, cc))  # cut: their ArcGP rows are violated now
        if dead is not None:
            dead.update(model)
        _perturbation(model, False)  # off, with a stall limit that follows the program's size
    stats.gps_scored = triple_scorer.scored - scored0
    stats.time_scoring = cache.seconds - seconds0
    heads = _finish(prog, sol, stats, start, tol)
    result = PPCResult(status, prog, sol, stats, y, heads=heads, gparc_duals=gparc, trace=trace)
    if status is Status.OPTIMAL and y is not None and sol.x is not None:
        result.certificate = ppc_certificate(
            prog.lp, sol.x, y, max_rc, max_viol, certificate_tol, _gparc_shift(prog, gparc)
        )
    result.info.update(max_reduced_cost=max_rc, max_arcgp_violation=max_viol)
    return result


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
    (``siblings``) and the parts it scored (``sibs_scored``, all of them: ``sibs_total``)."""
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
        if not np.isfinite(values).all():  # HiGHS takes no infinite cost; PPC's pricing refuses them too
            raise ValueError("the triple scorer returned NaN or an infinite score")
        prog.add_triples(g, p, c, values)
        stats.gps_total, stats.gps_scored = prog.num_triples, triple_scorer.scored - scored0
    if sibling_scorer is not None:
        sibs = sibling_program(prog.lp, sibling_preset)
        scored0 = sibling_scorer.scored
        h, m, m2 = sibs.candidates()
        t0 = time.perf_counter()
        values = sibling_scorer.score(h, m, m2)
        stats.time_scoring += time.perf_counter() - t0
        sibs.add_siblings(h, m, m2, values)
        info.update(siblings=sibs, sibs_total=sibs.num_siblings, sibs_scored=sibling_scorer.scored - scored0)
    model = HighsModel(prog.lp, time_limit=time_limit, tol=certificate_tol, options=HIGHS_OPTIONS)
    sol = model.solve()
    stats.time_solving = sol.time
    stats.simplex_iterations = sol.iterations
    heads = _finish(prog, sol, stats, start, certificate_tol)
    return PPCResult(sol.status, prog, sol, stats, sol.row_dual, sol.certificate, heads, info=info)


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
