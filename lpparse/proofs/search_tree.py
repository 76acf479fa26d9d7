"""The record of a branch-and-bound search over dependency trees (:func:`lpparse.exact.search.exact_search`): its
nodes (:class:`BranchNode`: arcs, branching decision, bound, labelled duals), statistics and result, as the
search writes them and as a proof checker (:mod:`lpparse.proofs.check`) or a proof file
(:mod:`lpparse.proofs.record`) reads them. Imports neither the engine nor a solver."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from lpparse.lp.program import LinearProgram
from lpparse.lp.solution import Certificate, Status

if TYPE_CHECKING:
    from lpparse.ppc.loop import PPCResult

__all__ = ["CLOSED", "BranchNode", "ExactResult", "ExactStats", "child_mask", "gap_abs"]

#: How a node was closed: ``integral`` (its LP optimum is a tree), ``bound`` (UB <= LB + gap tolerance),
#: ``tree`` (its duals' tree bound, not its LP's, at most the limit: a k-best subproblem's search stopped by its
#: own duals before its LP ended, :func:`lpparse.proofs.kbest.no_tree_problem`), ``infeasible`` (no tree over
#: its arcs), ``branched`` (two children), ``open`` (not closed: a limit hit).
#: Duals by row label: block name -> (index tuples (k, arity), values (k,)), nonzero values only
LabelledDuals = dict[str, tuple[NDArray[np.int64], NDArray[np.float64]]]

CLOSED = ("integral", "bound", "tree", "infeasible", "branched", "open")


@dataclass
class BranchNode:
    """One node of the search: its arcs are its parent's, minus the parent's reduced-cost fixings
    ``parent.fixed``, with the heads of ``modifier`` cut down to ``kept`` (the branching decision).

    ``bound``: the dual objective of the node's certified LP (the parent's bound while unsolved);
    ``certificate``: that LP's certificate; ``fixed``: arcs (h, m, d) this node drops from its children by
    reduced costs (``fix_slack``: the ε used); ``closed``: one of :data:`CLOSED`; ``tree``: the tree of an
    integral node; ``rounds`` and ``added``: its parse-price-cut rounds and part columns; ``farkas``:
    the program and a dual ray proving it infeasible, for a node closed as infeasible by its LP (pruned
    parts: :mod:`lpparse.exact.search`). ``duals`` (a solved node's LP duals) and ``ray`` (that dual ray) by row
    label (:data:`lpparse.proofs.check.LabelledDuals`): what :func:`lpparse.proofs.check.check_proof` recomputes the
    node from.
    """

    id: int
    parent: int
    depth: int
    modifier: int | None
    kept: NDArray[np.bool_] | None
    mask: NDArray[np.bool_]
    bound: float
    certificate: Certificate | None = None
    closed: str = "open"
    children: tuple[int, ...] = ()
    fixed: list[tuple[int, int, float]] = field(default_factory=list)
    fix_slack: float = 0.0
    tree: NDArray[np.int64] | None = None
    rounds: int = 0
    added: int = 0
    farkas: tuple[LinearProgram, NDArray[np.float64]] | None = None
    duals: LabelledDuals | None = None
    ray: LabelledDuals | None = None

    def base_mask(self) -> NDArray[np.bool_]:
        """The arcs its children split: its own less its reduced-cost fixings."""
        base = self.mask.copy()
        for h, m, _ in self.fixed:
            base[h, m] = False
        return base


@dataclass
class ExactStats:
    """Per-sentence statistics of :func:`parse_exact`."""

    n: int
    root_integral: bool = False
    root_bound: float = float("nan")
    root_objective: float = float("nan")  # the root's best tree (rounding and local search)
    nodes: int = 0  # LPs solved, the root included
    max_depth: int = 0
    arcs_fixed: int = 0
    scored: dict[str, int] = field(default_factory=dict)  # parts scored, per family
    added: dict[str, int] = field(default_factory=dict)  # part columns over all node LPs, per family
    priced: int = 0
    cut: int = 0
    heuristic_moves: int = 0
    strong_probes: int = 0  # children probed by reliability branching
    lp_cutoffs: int = 0  # node LP solves the dual simplex stopped at the cutoff (HighsModel.set_cutoff)
    time_solving: float = 0.0  # HiGHS's simplex over all node LPs
    time_root: float = 0.0
    time_heuristics: float = 0.0
    time_strong: float = 0.0  # reliability branching's probes
    time_branch: float = 0.0
    time_total: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        """The fields by name (the per-family counts copied): ``dataclasses.asdict`` without its deep copy
        of every value, a quarter of a millisecond a sentence."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        return {k: dict(v) if isinstance(v, dict) else v for k, v in out.items()}


@dataclass
class ExactResult:
    """Outcome of :func:`lpparse.exact.second_order.parse_exact`.

    ``heads``: the best tree found (a tree whenever ``status`` is OPTIMAL; also under a limit when one was
    found); ``objective``: its score, recomputed from the scorer; ``bound``: a proved upper bound on every
    tree's score; ``certified``: the search's records prove it (:func:`lpparse.exact.search.check_records`;
    with ``ExactOptions.verify``, :func:`lpparse.proofs.check.check_proof`). ``nodes`` is the proof
    (:class:`BranchNode`), over the arborescence program ``base``; ``root``: the root's parse-price-cut result; ``node_results``: every node's
    result when ``keep_results`` is set.
    """

    status: Status
    heads: NDArray[np.int64] | None
    objective: float
    bound: float
    single_root: bool
    gap_tol: float
    nodes: list[BranchNode]
    stats: ExactStats
    root: PPCResult | None = None
    certified: bool = False
    node_results: dict[int, PPCResult] = field(default_factory=dict)
    base: str = "single-flow"
    #: with ``parse_exact(..., k_best=K)``: the K best trees and their proof (:class:`lpparse.exact.kbest.KBest`)
    kbest: Any = None

    @property
    def gap(self) -> float:
        """bound - objective (inf without a tree)."""
        return self.bound - self.objective if self.heads is not None else float("inf")


def gap_abs(objective: float, gap_tol: float) -> float:
    """The absolute gap tolerance of ``gap_tol`` (relative) at ``objective``."""
    return gap_tol * (1.0 + abs(objective))


def child_mask(base: NDArray[np.bool_], modifier: int, kept: NDArray[np.bool_]) -> NDArray[np.bool_]:
    """A child's arcs: ``base`` with the heads of ``modifier`` cut down to ``kept``."""
    child = base.copy()
    child[:, modifier] &= kept
    return child
