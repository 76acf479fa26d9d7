"""A column-and-row generation engine: one loop over a restricted master and any list of part families.

The restricted master is a :class:`~lpparse.lp.program.LinearProgram` (the base polytope plus the families'
present parts) and a live :class:`~lpparse.lp.highs_view.HighsModel`. :meth:`Engine.run` repeats

1. **solve** the master (cold dual simplex first; warm primal simplex after new columns only, which keep the
   basis primal feasible; warm dual simplex after cuts; a warm primal re-solve runs without bound
   perturbation, unless the master settings keep it, and once one stalls, the rest of the run re-solves
   with the dual simplex: below; with a ``cutoff``, a dual simplex solve may stop at it, with duals that
   bound the master but no feasible primal: :meth:`~lpparse.lp.highs_view.HighsModel.set_cutoff`; and a
   caller's :attr:`Engine.closer` may stop it there from a round's duals while columns still price);
2. **price**: every family, in order of its ``pricing_priority`` (then as listed), reads the duals,
   tightens them (sharing arc slack through :class:`~lpparse.colgen.family.DualState`), rules parts out by
   its factorized bounds and scores the rest;
3. **separate**: every family finds absent parts (and held-back rows) that the solution violates;

and adds the union in one batch (:meth:`PartFamily.commit`), until no family finds anything. A master that
grows large sheds, now and then, the parts that sit at 0 with negative reduced cost, and takes back any that
a later round's duals price again (:mod:`lpparse.colgen.purge`; :attr:`MasterSettings.purge
<lpparse.colgen.options.MasterSettings>`, on for the sibling families' degenerate master). The restricted
LP is then the full LP restricted to its columns (less the rows of absent parts), and its solution, extended
by zeros (and by the duals that tightening gave absent rows), is optimal for the full LP:
:func:`lpparse.colgen.certificate.ppc_certificate`. ``time_limit`` is a deadline for the whole run, checked
by HiGHS inside every solve (:meth:`HighsModel.set_deadline`) and by the loop between rounds.

**Who spends the arc slack first.** Dual tightening spends the slack of arcs at 0 on absent parts, and a
family pricing later sees only what is left, so the pricing order decides which family's parts enter the
master. A family may say it prices early (``pricing_priority``, an optional attribute, 0 when absent: lower
first). The arbitrary-sibling family does (-1): each sibling column brings two SibArc rows, against one
GPArc row for a triple, and when the grandparent family spent the slack first, unpruned grandparent +
sibling runs filled their masters with sibling parts over arcs at 0. Measured on the unpruned grandparent
+ sibling models, one core, ``ppc``, CPU time: 12 dev sentences of 40-55 tokens (the first three of each dev
set) 122 s -> 76-88 s (run twice; English 55-token #19 50 s -> 24 s, while the Hungarian and Italian ones
took up to 1.6x longer in more rounds); the longest dev sentences: Italian #6 (68 tokens) 68-82 s -> 51 s
and 90k -> 43k rows, English #955 98 s -> 62 s, #194 189 s -> 153 s (132k -> 77k rows), Hungarian #328 98 s
-> 68 s. Over pruned arcs nothing changes (Danish dev, grandparent + sibling model, alternating per
sentence: ``auto`` 1,728 against 1,735 tokens/s, exact 1,563 against 1,546).

**Stalls.** A warm primal re-solve that passes ``stall_rows`` x rows iterations stops; it and every later
re-solve of the run go on with the dual simplex, since on a degenerate master the primal simplex stalls round
after round, with or without perturbation. The degenerate master (siblings) keeps HiGHS's bound perturbation
and stops a primal re-solve after 0.2 x rows iterations (:data:`~lpparse.colgen.options.DEGENERATE_MASTER`).
Simplex iterations on random N(0,1) arc and triple scores, n = 20 (BF: the full LP solved once): ``martins``
on the multi-flow base, primal throughout 231k (166 s; with perturbation from the start 141k and unfinished at
120 s), dual after a stall 104k (38 s), dual throughout 85k, BF 24k (13 s in the same run); ``all`` on
multi-flow 50k (17.5 s), dual after a stall 42k, dual throughout 22k, BF 7k; ``martins`` on single-flow 108k
(81 s), dual after a stall 41k, BF 13k. With trained models no re-solve stalled (``all``: 24 dev sentences of
20-40 tokens; ``martins``: 3 of 21-25 tokens), so nothing changes there. What stays is PPC's own cost on such
random scores: ``martins`` prices with r = s (no OneGP duals), so every positive triple whose arcs carry
weight enters, half of all of them in 14 rounds, each a re-solve of a master growing towards BF's: use BF
there (:func:`lpparse.ppc.solve_bf`).

The engine knows nothing of arcs, triples or siblings: those live in the families
(:mod:`lpparse.families`). Parse-price-cut (:func:`lpparse.ppc.parse_price_cut`) is this engine with the
grandparent and sibling families on an arborescence program; Riedel & Clarke's cycle cuts
(:func:`lpparse.formulations.arborescence.solve_cycle_cuts`) are this engine with one family that only
separates, on a master of either view (any :class:`~lpparse.lp.views.LPModel`: a HighsModel or a PyomoModel). A master
without duals (a MIP: ``master.mip``) runs row generation only: families are separated, never priced, and
the answer carries the solver's own certificate of the last solve.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from lpparse.colgen.certificate import bound_certificate, ppc_certificate
from lpparse.colgen.family import DualState, PartFamily, Priced, Separated
from lpparse.colgen.options import DEFAULT_MASTER, DEGENERATE_MASTER, ColgenOptions
from lpparse.colgen.purge import PurgeState
from lpparse.lp.basis import LabelledBasis
from lpparse.lp.highs_view import DUAL, PRIMAL, HighsModel
from lpparse.lp.program import LinearProgram
from lpparse.lp.solution import Certificate, Solution, Status
from lpparse.lp.views import LPModel

__all__ = ["Closer", "Engine", "EngineResult", "FamilyRound", "FamilyTotals", "Round"]

#: A bound on every solution a run seeks (such as every tree over a node's arcs) from a round's duals
#: (``state.y``, and each family's duals of its absent rows), or a weaker one when that is at most the third
#: argument (the cutoff): :attr:`Engine.closer`
Closer = Callable[[DualState, Sequence[PartFamily], float], float]


@dataclass(frozen=True)
class FamilyRound:
    """One family in one round: parts ``scored`` so far (this round's pricing included), ``added`` (in the LP
    solved this round), master columns ``held_out`` of HiGHS; what enters next: ``priced`` and ``cut``
    columns, ``rows_cut`` held-back rows; ``max_reduced_cost`` and ``max_violation`` bound what stays out."""

    scored: int
    added: int
    held_out: int
    priced: int
    cut: int
    rows_cut: int
    max_reduced_cost: float
    max_violation: float


@dataclass(frozen=True)
class Round:
    """One round of the engine: the master it solved (``objective``, ``simplex_iterations``,
    ``solve_seconds``, ``rows``, ``cols``), each family's :class:`FamilyRound`, by name, and the purged
    columns it brings back (``returned``)."""

    round: int
    objective: float
    simplex_iterations: int
    solve_seconds: float
    rows: int
    cols: int
    families: dict[str, FamilyRound]
    #: purged columns that this round's duals priced back in (:mod:`lpparse.colgen.purge`)
    returned: int = 0

    @property
    def max_reduced_cost(self) -> float:
        return max((f.max_reduced_cost for f in self.families.values()), default=-np.inf)

    @property
    def max_violation(self) -> float:
        return max((f.max_violation for f in self.families.values()), default=-np.inf)

    @property
    def entering(self) -> int:
        """Columns and rows that enter for the next round (0: converged)."""
        return self.returned + sum(f.priced + f.cut + f.rows_cut for f in self.families.values())


@dataclass
class FamilyTotals:
    """A family's totals over a run: columns priced and cut and rows cut that entered, duals tightened."""

    priced: int = 0
    cut: int = 0
    rows_cut: int = 0
    tightened: int = 0


@dataclass
class EngineResult:
    """Outcome of :meth:`Engine.run`. ``solution``: the last master solution (after the families'
    repairs); ``row_dual``: its duals after tightening; ``outside_shift``: Aᵀy of the absent rows given
    nonzero duals, on the program's columns; ``certificate``: the extension-by-zeros certificate (OPTIMAL
    only)."""

    status: Status
    solution: Solution
    row_dual: NDArray[np.float64] | None
    outside_shift: NDArray[np.float64] | None
    certificate: Certificate | None
    trace: list[Round]
    totals: dict[str, FamilyTotals]
    iterations: int = 0
    simplex_iterations: int = 0
    time_solving: float = 0.0
    time_pricing: float = 0.0
    max_reduced_cost: float = np.inf
    max_violation: float = np.inf
    info: dict[str, object] = field(default_factory=dict)
    #: the live master the run ended with (``keep_master``), e.g. to read its basis for another run
    master: LPModel | None = None


class Engine:
    """Column and row generation on ``lp`` with ``families`` (module docstring). ``start``: the run's start
    (a ``time.perf_counter()`` value; default: now), from which ``options.time_limit`` counts; ``master``: a
    live model of ``lp`` to drive (default: a :class:`HighsModel` with the master settings' options, without the
    columns and rows the families keep out); ``basis``: a basis by label (another run's, on a program of the
    same labels) that the first solve of an engine-built master starts from; ``keep_master``: return the live
    master (:attr:`EngineResult.master`) and keep it: a later :meth:`run` goes on from it as it stands (its
    columns, rows, bounds and basis; the first solve by the dual simplex), e.g. after bound changes that make
    a branch-and-bound node (:mod:`lpparse.exact.live`)."""

    def __init__(
        self,
        lp: LinearProgram,
        families: Sequence[PartFamily],
        options: ColgenOptions | None = None,
        start: float | None = None,
        master: LPModel | None = None,
        basis: LabelledBasis | None = None,
        keep_master: bool = False,
    ) -> None:
        names = [f.name for f in families]
        if len(set(names)) < len(names):
            raise ValueError(f"part family names must differ, got {names}")
        self.lp = lp
        self.families = list(families)
        #: the families' positions in pricing order (module docstring: who spends the arc slack first)
        self.pricing_order = sorted(
            range(len(self.families)), key=lambda i: getattr(self.families[i], "pricing_priority", 0)
        )
        self.options = options or ColgenOptions()
        self.start = time.perf_counter() if start is None else start
        self.master = master
        #: how the master re-solves: the options', else as the families need (ColgenOptions.master)
        self.settings = self.options.master or (
            DEGENERATE_MASTER if any(f.degenerate_master for f in self.families) else DEFAULT_MASTER
        )
        #: a warm primal re-solve stalled: dual simplex for the rest of the run
        self.stalled = False
        self.basis, self.keep_master = basis, keep_master
        #: the master a run kept (``keep_master``), which the next run goes on from
        self.live: LPModel | None = None
        #: columns and rows purged from an engine-built master that is not kept (:mod:`lpparse.colgen.purge`)
        self.purge: PurgeState | None = None
        #: a bound on every solution the caller seeks from a round's duals, while columns still price (None:
        #: the run stops at ``options.cutoff`` only by the master's own bound): :meth:`_closed`
        self.closer: Closer | None = None

    def _master(self) -> LPModel:
        """Seed every family and build the HiGHS master without what they keep out."""
        for family in self.families:
            family.seed()
        if self.master is not None:
            held = [family.inactive() for family in self.families]
            if any(c.size or r.size for c, r in held):
                raise ValueError("a given master cannot leave columns or rows out: let the engine build it")
            return self.master
        model = self.master_model()
        if self.basis is not None:
            model.start_from(self.basis)
        if self.settings.purge is not None and self.options.purge and not self.keep_master:
            self.purge = PurgeState(self.settings.purge, self.lp, model)
        return model

    def master_model(self) -> HighsModel:
        """The HiGHS master of the program as it stands, without what the families keep out (no seeding)."""
        held = [family.inactive() for family in self.families]
        return HighsModel(
            self.lp,
            tol=self.options.certificate_tol,
            options=dict(self.settings.highs_options),
            inactive_cols=np.concatenate([np.empty(0, np.int64), *(c for c, _ in held)]),
            inactive_rows=np.concatenate([np.empty(0, np.int64), *(r for _, r in held)]),
        )

    def _solve(self, model: LPModel, deadline: float | None, warm: bool) -> tuple[Solution, int, float]:
        """One master solve (solution, simplex iterations, seconds); a stalled warm primal re-solve goes on
        with the dual simplex, as every later one (module docstring). An LP's final answer gets the engine's
        certificate, a MIP's its own."""
        model.set_deadline(deadline)
        sol = model.solve(certify=model.mip)
        iterations, seconds = sol.iterations, sol.time
        if sol.status is Status.ITERATION_LIMIT and warm and self.settings.stall_rows is not None:
            self.stalled = True
            model.set_strategy(DUAL)
            self._stall_limit(model, primal=False)
            model.set_deadline(deadline)
            sol = model.solve(certify=model.mip)
            iterations, seconds = iterations + sol.iterations, seconds + sol.time
        for family in self.families:
            sol = family.repair(sol)
        return sol, iterations, seconds

    def _stall_limit(self, model: LPModel, primal: bool) -> None:
        """Bound perturbation as the master settings say, with a stall limit on primal re-solves that follows
        the program's size (``stall_rows`` None: HiGHS's defaults throughout)."""
        if self.settings.stall_rows is not None:
            limit = int(self.settings.stall_rows * self.lp.num_rows) + 1 if primal else None
            model.set_perturbation(self.settings.perturbation, limit)

    def run(self) -> EngineResult:
        opts = self.options
        deadline = None if opts.time_limit is None else self.start + opts.time_limit
        model = self._start_master()
        mip = model.mip
        totals = {f.name: FamilyTotals() for f in self.families}
        unsolved = Solution(self.lp, Status.NOT_SOLVED, False)
        result = EngineResult(Status.ITERATION_LIMIT, unsolved, None, None, None, [], totals)
        while True:
            if deadline is not None and time.perf_counter() >= deadline:
                result.status = Status.TIME_LIMIT
                break
            sol, iterations, seconds = self._solve(model, deadline, warm=result.iterations > 0)
            result.solution = sol
            result.simplex_iterations += iterations
            result.time_solving += seconds
            result.iterations += 1
            # HiGHS stopped at the cutoff: duals dual feasible on the master, its primal not feasible
            stopped = sol.status is Status.CUTOFF and sol.row_dual is not None
            if stopped:
                result.info["solves_cut_off"] = int(result.info.get("solves_cut_off", 0)) + 1
            elif sol.status is not Status.OPTIMAL or sol.x is None or (sol.row_dual is None and not mip):
                result.status = sol.status
                break
            t0 = time.perf_counter()
            scoring0 = self._scoring_seconds()
            duals = sol.row_dual
            state, priced, returned = self._priced(sol)
            if self._closed(sol, state, stopped, result):
                result.row_dual, result.status = state.y, Status.CUTOFF
                break
            if stopped and state.entering:  # its bound is no optimum's: solve this master on, to optimality
                model.set_cutoff(None)
                continue
            cutoff = self._cut_off(sol, state, stopped)
            cuts = self._separate(state, cutoff)
            result.row_dual = state.y if duals is not None else None
            result.time_pricing += time.perf_counter() - t0 - (self._scoring_seconds() - scoring0)
            trace = self._round(result.iterations, sol, iterations, seconds, priced, cuts, returned)
            result.trace.append(trace)
            result.max_reduced_cost, result.max_violation = trace.max_reduced_cost, trace.max_violation
            for family, p in zip(self.families, priced):
                totals[family.name].tightened += p.tightened
            if cutoff:
                result.status = Status.CUTOFF
                break
            if trace.entering == 0:
                result.status = Status.OPTIMAL
                break
            if result.iterations >= opts.max_iterations:
                result.status = Status.ITERATION_LIMIT
                break
            for family, p, c in zip(self.families, priced, cuts):
                totals[family.name].priced += p.columns
                totals[family.name].cut += c.columns
                totals[family.name].rows_cut += c.rows
            self._commit(model, sol, result.iterations, cuts)
        return self._finish(result, model)

    def _priced(self, sol: Solution) -> tuple[DualState, list[Priced], int]:
        """The round's dual state after every family priced on it (a MIP master, without duals: nobody
        prices, row generation only), its priced columns, and the purged columns the duals bring back."""
        opts = self.options
        duals = sol.row_dual
        state = DualState(sol, duals.copy() if duals is not None else np.zeros(0), opts.tol, cuts=opts.cuts)
        if duals is not None:
            priced = self._price(state)
        else:
            priced = [Priced(0, -np.inf) for _ in self.families]
        state.entering = sum(p.columns for p in priced)
        returned = 0
        if self.purge is not None and duals is not None:  # priced against the round's final duals
            returned = self.purge.returning(state.y, opts.tol)
            state.entering += returned
        return state, priced, returned

    def _start_master(self) -> LPModel:
        """The master of this run: built, or the live one of a branch-and-bound node (its bound changes keep
        the basis dual feasible: the dual simplex goes on from it), with the cutoff set."""
        if self.live is None:
            model = self._master()
        else:
            model, self.stalled = self.live, False
            model.set_strategy(DUAL)
            self._stall_limit(model, primal=False)
        if isinstance(model, HighsModel) and not model.mip:  # its dual simplex may stop at the cutoff
            model.set_cutoff(self.options.cutoff)
        return model

    def _separate(self, state: DualState, cutoff: bool) -> list[Separated]:
        """Every family's separation on the round's state (none when the master was cut off: what the rows
        left out violate is then unknown)."""
        if cutoff:
            return [Separated(0, 0, np.inf, False) for _ in self.families]
        cuts = []
        for family in self.families:
            cuts.append(family.separate(state))
            state.entering += cuts[-1].columns + cuts[-1].rows
        return cuts

    def _commit(self, model: LPModel, sol: Solution, iteration: int, cuts: Sequence[Separated]) -> None:
        """Add what the round found to the master: the simplex strategy for the next solve, purge, commit."""
        # primal after new columns only (measured on 15 Danish sentences of 20-40 tokens: half the simplex
        # iterations of dual), dual after cuts (primal infeasible) or once the primal simplex stalled
        primal = not self.stalled and not any(c.infeasible for c in cuts)
        model.set_strategy(PRIMAL if primal else DUAL)
        if self.purge is not None:  # before the commit: the basis is the one of this round's solve
            self.purge.purge(sol, iteration)
        for family in self.families:
            family.commit(model)
        if self.purge is not None:
            self.purge.entered()
        self._stall_limit(model, primal)

    def _finish(self, result: EngineResult, model: LPModel) -> EngineResult:
        """The run's result with its counts and certificate; the master kept live when asked."""
        result.info["stalled"] = self.stalled
        if self.purge is not None:
            p = self.purge
            result.info.update(purged=p.purged, purged_rows=p.purged_rows, returned=p.returned)
        self._certify(result)
        if self.keep_master:
            result.master = self.live = model
        return result

    def _price(self, state: DualState) -> list[Priced]:
        """Every family's pricing, run in :attr:`pricing_order`, listed as the families are."""
        found: dict[int, Priced] = {}
        for i in self.pricing_order:
            found[i] = self.families[i].price(state)
        return [found[i] for i in range(len(self.families))]

    def _cut_off(self, sol: Solution, state: DualState, stopped: bool) -> bool:
        """Whether the run stops at ``options.cutoff``: nothing priced (every column dual feasible under the
        round's duals) and the restricted LP's value at most the cutoff, or its solve ``stopped`` there (the
        dual simplex's bound fell below it: :meth:`lpparse.lp.highs_view.HighsModel.set_cutoff`)."""
        cutoff = self.options.cutoff
        return (
            cutoff is not None
            and sol.row_dual is not None
            and state.entering == 0
            and (stopped or sol.objective <= cutoff)
        )

    def _closed(self, sol: Solution, state: DualState, stopped: bool, result: EngineResult) -> bool:
        """Whether the run stops at ``options.cutoff`` by :attr:`closer` before its master's bound does: columns
        still price (so that bound is no bound on the full LP yet), the master's value is at most the cutoff (or
        its solve stopped there), and the closer's bound of the round's duals (``state.y``, with the families'
        absent rows') is too; that bound goes in ``result.info["closer_bound"]``. The Lagrangian bound of
        column generation, valid for any duals, which lets a branch-and-price node stop before its master
        converges (Lübbecke & Desrosiers 2005, "Selected Topics in Column Generation", Operations Research
        53(6): lower bounds and early termination)."""
        cutoff = self.options.cutoff
        if self.closer is None or cutoff is None or not state.entering or sol.row_dual is None:
            return False
        if not (stopped or sol.objective <= cutoff):
            return False
        bound = self.closer(state, self.families, cutoff)
        if not bound <= cutoff:
            return False
        result.info["closer_bound"] = bound
        return True

    def _scoring_seconds(self) -> float:
        return sum(family.scoring_seconds for family in self.families)

    def _round(
        self,
        number: int,
        sol: Solution,
        iterations: int,
        seconds: float,
        priced: list[Priced],
        cuts: list[Separated],
        returned: int = 0,
    ) -> Round:
        return Round(
            round=number,
            objective=sol.objective,
            simplex_iterations=iterations,
            solve_seconds=seconds,
            rows=self.lp.num_rows,
            cols=self.lp.num_cols,
            returned=returned,
            families={
                family.name: FamilyRound(
                    scored=family.scored,
                    added=family.added,
                    held_out=family.held_out,
                    priced=p.columns,
                    cut=c.columns,
                    rows_cut=c.rows,
                    max_reduced_cost=p.max_reduced_cost,
                    max_violation=c.max_violation,
                )
                for family, p, c in zip(self.families, priced, cuts)
            },
        )

    def _certify(self, result: EngineResult) -> None:
        """The outside duals' shift and, for an optimal run, the extension-by-zeros certificate (a MIP's:
        the solver's own, of the last solve); for a run stopped at its cutoff, the certificate of its bound
        (kind ``ppc-bound``: dual feasibility over every column, which is all its dual objective needs to
        bound the full LP: :func:`lpparse.colgen.certificate.bound_certificate`)."""
        sol, y = result.solution, result.row_dual
        if result.status not in (Status.OPTIMAL, Status.CUTOFF) or sol.x is None:
            return
        if y is None:
            result.certificate = sol.certificate
            return
        shift = np.zeros(self.lp.num_cols)
        for family in self.families:
            shift += family.outside_shift()
        result.outside_shift = shift
        tol = self.options.certificate_tol
        if result.status is Status.CUTOFF:
            result.certificate = bound_certificate(self.lp, y, result.max_reduced_cost, tol, shift)
        else:
            result.certificate = ppc_certificate(
                self.lp, sol.x, y, result.max_reduced_cost, result.max_violation, tol, shift
            )
