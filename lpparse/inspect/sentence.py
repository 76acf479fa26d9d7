"""Inspect one sentence: every relaxation's LP against the best tree and a generic MIP solver.

:func:`inspect_sentence` takes arc scores and part families (:class:`lpparse.families.base.Parts`) and, for each
relaxation (:mod:`lpparse.inspect.relaxations`), solves the full LP of every candidate part (brute force,
Riedel, Smith & McCallum 2012 §6, certified by lpparse), reads its fractional arcs and parts and the rows
binding at its optimum with their duals, writes its program (MPS and LP) if asked, solves the same program as
a MIP (:mod:`lpparse.inspect.mip`; Rush & Collins 2012's advice: debug against a generic solver) and, when the
LP point is fractional, finds a valid row it violates (:mod:`lpparse.inspect.cuts`). The best tree comes from
exact decoding with a proof (:func:`lpparse.exact.exact_search`). Everything that must agree is compared:
each MIP's optimum with the proved tree, each MIP tree's score as the parts score it with the MIP's objective,
each bound with the tree, and the bounds with each other in the order their rows imply; whatever fails is a
*disagreement* (:attr:`Inspection.disagreements`), never averaged away.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from lpparse.colgen.options import ColgenOptions, MasterSettings
from lpparse.exact.search import exact_search
from lpparse.families.base import Parts, tree_score
from lpparse.families.grandparent.rows import BASES, GrandparentProgram
from lpparse.inspect.cuts import ReferenceProgram, find_cut
from lpparse.inspect.mip import MipOptions, MipRun, highs_mip, pyomo_mip
from lpparse.inspect.relaxations import Relaxation, default_relaxations, order_claims, parse_relaxation
from lpparse.inspect.report import BINDING_ROWS, BestTree, Inspection, OrderCheck, RelaxationReport
from lpparse.lp.highs_view import HighsModel
from lpparse.ppc.loop import PPCResult, solve_lp
from lpparse.trees import tree_error, validate_scores

__all__ = ["AGREE_TOL", "FRACTIONAL_TOL", "LP_SOLVERS", "InspectOptions", "inspect_sentence", "write_program"]

#: a value strictly between this and 1 - this is fractional
FRACTIONAL_TOL = 1e-6
#: values listed from this on
SHOWN = 1e-9
#: HiGHS's methods for the relaxations' LPs (:meth:`InspectOptions.colgen`)
LP_SOLVERS = ("simplex", "ipm")
#: two scores agree within this times 1 + |score| (HiGHS's MIP tolerances, lpparse's certificate's 1e-6)
AGREE_TOL = 1e-5


@dataclass(frozen=True)
class InspectOptions:
    """Settings of an inspection besides the MIP's: ``exact_time_limit`` and ``lp_time_limit`` seconds (None:
    none) for exact decoding and each relaxation's LP; ``cuts``: find a cut for every fractional point;
    ``write_lp``: a directory for each relaxation's program as ``STEM.RELAXATION.mps`` and ``.lp``;
    ``lp_solver``: HiGHS's method for the LPs (:data:`LP_SOLVERS`, :meth:`colgen`)."""

    exact_time_limit: float | None = None
    lp_time_limit: float | None = None
    cuts: bool = True
    write_lp: Path | None = None
    lp_solver: str = "simplex"

    def colgen(self, parts: Sequence[Parts]) -> ColgenOptions:
        """The engine's options for a relaxation's brute-force LP: HiGHS's own settings without presolve (the
        ``simplex``, or ``ipm``: interior point and crossover) rather than brute force's, which stall on the
        degenerate LPs of looser presets (sample-26, 24 tokens, small grandparent model, ``martins``: 50 s
        against 12 s, 3.3 s by ``ipm``; ``all`` 1.6 s against 0.6 s, 3.9 s by ``ipm``); third-order families
        keep their own master (:data:`lpparse.families.third_order.family.THIRD_ORDER_BF_BELOW`'s measurements)."""
        if self.lp_solver not in LP_SOLVERS:
            raise ValueError(f"unknown LP solver {self.lp_solver!r}; choose from {LP_SOLVERS}")
        own = {"presolve": "off", **({"solver": "ipm"} if self.lp_solver == "ipm" else {})}
        third_order = any(p.arity >= 4 for p in parts)
        master = None if third_order and self.lp_solver == "simplex" else MasterSettings(None, own)
        return ColgenOptions(time_limit=self.lp_time_limit, master=master)


def inspect_sentence(
    arc_scores: ArrayLike,
    parts: Sequence[Parts],
    relaxations: Sequence[str | Relaxation] | None = None,
    single_root: bool = False,
    mip: MipOptions | None = None,
    sent_id: str = "",
    tokens: Sequence[str] = (),
    options: InspectOptions | None = None,
) -> Inspection:
    """The inspection of one sentence (module docstring): ``arc_scores`` (n+1, n+1) with -inf for arcs that are
    no candidates, ``parts`` the part families at their default presets, ``relaxations`` by name or as
    :class:`Relaxation` (None: :func:`lpparse.inspect.relaxations.default_relaxations`). Raises ValueError for a
    relaxation the families do not allow, NoTreeError when no tree exists. ``mip``, ``options``: None for the
    defaults."""
    mip, options = mip or MipOptions(), options or InspectOptions()
    s = validate_scores(arc_scores, "arc scores")
    n = s.shape[0] - 1
    chosen = [
        parse_relaxation(r) if isinstance(r, str) else r for r in relaxations or default_relaxations(parts)
    ]
    for r in chosen:
        r.parts(parts)  # a relaxation the families do not allow fails before any work
    exact = exact_search(s, parts, single_root, options.exact_time_limit)
    tree = BestTree(
        [-1, *exact.heads[1:].tolist()] if exact.heads is not None else [],
        float(exact.objective),
        bool(exact.certified),
        int(exact.stats.nodes),
        float(exact.stats.time_total),
        exact.status.value,
    )
    inspection = Inspection(
        sent_id, list(tokens) or [str(i) for i in range(1, n + 1)], n, single_root, tree, []
    )
    inspecting = _Inspecting(s, parts, single_root, mip, options, tree, sent_id)
    for k, relaxation in enumerate(chosen):
        inspection.relaxations.append(_inspect_relaxation(inspecting, relaxation, k == 0))
    _judge(inspection, s, parts, chosen)
    return inspection


@dataclass
class _Inspecting:
    """What each relaxation of a sentence's inspection reads: the arc scores and part families, the root rule,
    the options, the best tree and the sentence's id; the reference program of the cuts is built once, when a
    first point is fractional."""

    s: NDArray[np.float64]
    parts: Sequence[Parts]
    single_root: bool
    mip: MipOptions
    options: InspectOptions
    tree: BestTree
    sent_id: str
    _reference: ReferenceProgram | None = None

    def reference(self) -> ReferenceProgram:
        if self._reference is None:
            self._reference = ReferenceProgram(self.s, self.parts, self.single_root)
        return self._reference


def _inspect_relaxation(inspecting: _Inspecting, relaxation: Relaxation, first: bool) -> RelaxationReport:
    """One relaxation's report (``first``: the first relaxation, the one the Pyomo MIP solves by default); its
    program is written, solved as a MIP, then given the cut (in that order: the MIP and the files are of the
    relaxation itself)."""
    s, parts, single_root = inspecting.s, inspecting.parts, inspecting.single_root
    mip, options, tree = inspecting.mip, inspecting.options, inspecting.tree
    family_parts = relaxation.parts(parts)
    result = solve_lp(s, family_parts, "bf", single_root, relaxation.base, options.colgen(family_parts))
    report = _lp_report(relaxation, family_parts, result, tree)
    prog = result.program
    if options.write_lp is not None:
        write_program(prog, options.write_lp, inspecting.sent_id, relaxation.name)
    compact = relaxation.base in BASES
    if mip.highs:
        report.mip = highs_mip(prog, mip.time_limit) if compact else _not_compact("highspy")
    if mip.pyomo_solver is not None and (first or mip.pyomo_every):
        solver = mip.pyomo_solver
        report.pyomo_mip = pyomo_mip(prog, solver, mip.time_limit) if compact else _not_compact(solver)
    if options.cuts and result.certified and not result.integral:
        root = (mip.root_time_limit or mip.time_limit) if mip.root_cuts else None
        optimum = tree.score if tree.certified else None
        reference = inspecting.reference()
        report.cut = find_cut(prog, result.solution.x, reference, root, family_parts, single_root, optimum)  # type: ignore[arg-type]
        if report.cut is None:
            pool = " nor of HiGHS's root cut pool" if root else ""
            report.cut_note = f"no row of lpparse's{pool} is violated, and the bound is the best tree's score"
    return report


def _not_compact(solver: str) -> MipRun:
    return MipRun(
        solver, "skipped", note="the cycle-cut base has no compact program (its NoCycle rows are separated)"
    )


def _lp_report(
    relaxation: Relaxation, parts: Sequence[Parts], result: PPCResult, tree: BestTree
) -> RelaxationReport:
    """The LP's side of a relaxation's report: bound, values, binding rows."""
    prog, x = result.program, result.solution.x
    lp = prog.lp
    certified = result.certified
    bound = float(result.objective) if certified else float("nan")
    arcs: list[list[float]] = []
    fractional: list[list[float]] = []
    values: dict[str, list[list[float]]] = {}
    fractional_parts: dict[str, list[list[float]]] = {}
    if x is not None:
        z = prog.arc_values(x)
        arcs = _listed(np.argwhere(z > SHOWN), z[z > SHOWN])
        frac = (z > FRACTIONAL_TOL) & (z < 1 - FRACTIONAL_TOL)
        fractional = _listed(np.argwhere(frac), z[frac])
        for p in parts:
            block = lp.var_blocks.get(p.column_block)
            if block is None or not len(block):
                continue
            v = x[block.positions]
            shown, frac = v > SHOWN, (v > FRACTIONAL_TOL) & (v < 1 - FRACTIONAL_TOL)
            values[p.name] = _listed(block.index[shown], v[shown])
            fractional_parts[p.name] = _listed(block.index[frac], v[frac])
    return RelaxationReport(
        name=relaxation.name,
        families={p.name: list(getattr(p, "preset", ())) for p in parts},
        base=relaxation.base,
        bound=bound,
        certified=certified,
        integral=bool(result.integral),
        gap=bound - tree.score,
        seconds=float(result.stats.time_total),
        columns=lp.num_cols,
        rows=lp.num_rows,
        arcs=arcs,
        fractional_arcs=fractional,
        parts=values,
        fractional_parts=fractional_parts,
        binding=_binding(result) if certified else {},
    )


def _listed(index: NDArray[np.int64], values: NDArray[np.float64]) -> list[list[float]]:
    """Rows [i, j, ..., value] (indices as ints)."""
    return [[*map(int, i), float(v)] for i, v in zip(index.tolist(), values.tolist())]


def _binding(result: PPCResult) -> dict[str, dict[str, Any]]:
    """The rows with a nonzero dual at the certified optimum (with those of absent rows that the certificate
    uses), by block: how many, and the :data:`BINDING_ROWS` of largest |dual| with their labels."""
    lp, y = result.program.lp, result.row_dual
    assert y is not None
    blocks = {name: (b.index, y[b.positions]) for name, b in lp.con_blocks.items() if len(b)}
    for name, (index, duals) in result.outside.items():
        own = blocks.get(name)
        blocks[name] = (np.vstack([own[0], index]), np.r_[own[1], duals]) if own else (index, duals)
    out = {}
    for name, (index, duals) in blocks.items():
        on = np.flatnonzero(np.abs(duals) > SHOWN)
        if on.size:
            top = on[np.argsort(-np.abs(duals[on]), kind="stable")[:BINDING_ROWS]]
            rows = [{"label": list(map(int, index[i])), "dual": float(duals[i])} for i in top.tolist()]
            out[name] = {"count": int(on.size), "rows": rows}
    return out


def write_program(prog: GrandparentProgram, directory: Path, sent_id: str, name: str) -> list[Path]:
    """The program as ``STEM.NAME.mps`` and ``.lp`` in ``directory`` (created), with the program's labels as
    names (``zgp(1_2_3)``, ``ArcGP(1_2_3)``); STEM from the sentence id."""
    directory.mkdir(parents=True, exist_ok=True)
    stem = f"{_slug(sent_id or 'sentence')}.{_slug(name)}"
    model = HighsModel(prog.lp)
    paths = [directory / f"{stem}.mps", directory / f"{stem}.lp"]
    for path in paths:
        model.write(path)
    return paths


def _slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "_"


def _scale(score: float) -> float:
    return AGREE_TOL * (1.0 + abs(score))


def _judge(
    inspection: Inspection, s: NDArray[np.float64], parts: Sequence[Parts], chosen: list[Relaxation]
) -> None:
    """Fill ``agrees``, the order checks and the disagreements (module docstring)."""
    tree, found = inspection.best_tree, inspection.disagreements
    tol = _scale(tree.score)
    for r in inspection.relaxations:
        if r.certified and r.bound < tree.score - tol:
            found.append(
                f"{r.name}: the LP bound {r.bound:.6f} is below the best tree's score {tree.score:.6f}"
            )
        for run in (r.mip, r.pyomo_mip):
            if run is not None:
                found += _judge_mip(run, r.name, tree, s, parts, inspection.single_root)
    bounds = {r.name: r.bound for r in inspection.relaxations}
    for left, relation, right in order_claims(chosen, parts):
        a, b = bounds[left], bounds[right]
        if np.isnan(a) or np.isnan(b):
            continue
        holds = a <= b + _scale(b) if relation == "<=" else abs(a - b) <= _scale(b)
        inspection.order_checks.append(OrderCheck(f"{left} {relation} {right}", bool(holds), a, b))
    for r in inspection.relaxations:
        if r.certified:
            holds = tree.score <= r.bound + tol
            inspection.order_checks.append(
                OrderCheck(f"best tree <= {r.name}", bool(holds), tree.score, r.bound)
            )
    found += [
        f"the bounds break their order: {c.claim} ({c.left:.6f} vs {c.right:.6f})"
        for c in inspection.order_checks
        if not c.holds and not c.claim.startswith("best tree")
    ]


def _judge_mip(
    run: MipRun, name: str, tree: BestTree, s: NDArray[np.float64], parts: Sequence[Parts], single_root: bool
) -> list[str]:
    """Whether the MIP run agrees with the best tree (sets ``run.agrees``), and what disagrees."""
    who, tol, found = f"{name}: {run.solver}'s MIP", _scale(tree.score), []
    if run.heads is not None and run.incumbent is not None:
        heads = np.array(run.heads)
        problem = tree_error(heads, single_root)
        if problem is not None:
            found.append(f"{who} point is not a tree ({problem}): {run.heads}")
        else:
            score = tree_score(s, parts, heads)
            if abs(score - run.incumbent) > tol:
                found.append(
                    f"{who} tree {run.heads} scores {score:.6f} by the parts, {run.incumbent:.6f} by the program"
                )
    if run.status == "optimal" and run.objective is not None:
        if tree.certified:
            run.agrees = abs(run.objective - tree.score) <= tol
        elif run.objective < tree.score - tol:
            run.agrees = False
        if run.agrees is False:
            proved = "proved" if tree.certified else "found (not proved)"
            found.append(f"{who} optimum {run.objective:.6f} != the {proved} best tree's {tree.score:.6f}")
    else:
        if tree.certified and run.incumbent is not None and run.incumbent > tree.score + tol:
            found.append(f"{who} incumbent {run.incumbent:.6f} beats the proved best tree's {tree.score:.6f}")
        if run.dual_bound is not None and run.dual_bound < tree.score - tol:
            found.append(f"{who} dual bound {run.dual_bound:.6f} is below the best tree's {tree.score:.6f}")
    return found
