"""Arborescence polytope formulations (first-order dependency parsing as an LP/ILP).

All three are built over the candidate arc set C = {(h, m): S[h, m] finite, m > 0, h != m} (pruned arcs
have no variable), maximize Σ_a s_a z_a, and share

* ``z[h,m]`` >= 0, integral in the ILP (z <= 1 is implied by OneHead);
* ``OneHead[m]``: Σ_h z[h,m] = 1 for m >= 1            (Riedel, Smith & McCallum 2012, §3.1, OneHead);
* ``OneRoot[0]``: Σ_m z[0,m] = 1, only with ``single_root``.

Connectivity (no cycles) is then enforced by one of

* :func:`single_commodity_flow` (Martins et al. 2009 as in Riedel, Smith & McCallum 2012 §3.1): flows
  ``phi[h,m]`` >= 0, ``Source[0]``: Σ_m phi[0,m] = n; ``Consume[m]``: Σ_h phi[h,m] - Σ_c phi[m,c] = 1;
  ``NoFlow[h,m]``: phi[h,m] - n z[h,m] <= 0. Exact as an ILP; its LP relaxation is not tight.
* :func:`multi_commodity_flow` (Magnanti & Wolsey 1995; DD reading note, App. B): one unit of
  commodity k from 0 to k, ``phi[k,h,m]`` >= 0, ``Source[k]``: Σ_m phi[k,0,m] = 1;
  ``Consume[k,j]``: Σ_h phi[k,h,j] - Σ_c phi[k,j,c] = [j = k]; ``NoFlow[k,h,m]``: phi[k,h,m] - z[h,m] <= 0.
  Its LP projects onto the arborescence polytope: the LP optimum is a tree.
* :func:`cycle_cut_program` + :func:`solve_cycle_cuts` (Riedel & Clarke 2006): ``NoCycle[t]``:
  Σ_{h,m in S_t} z[h,m] <= |S_t| - 1 for subsets S_t of the tokens, added by row generation
  (:func:`separate_subtours`) until none is violated. With all subsets this is the arborescence polytope.
  The row generation runs on the column-and-row generation engine (:class:`lpparse.colgen.engine.Engine`) with one
  part family that only separates (:class:`CycleCutFamily`).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.sparse as sp
from numpy.typing import NDArray
from scipy.sparse.csgraph import breadth_first_order, connected_components, maximum_flow

from lpparse.colgen.family import DualState, Priced, Separated, Warm
from lpparse.colgen.options import ColgenOptions, MasterSettings
from lpparse.lp.program import LinearProgram, Terms
from lpparse.lp.solution import TOL, FractionalSolutionError, Solution
from lpparse.lp.views import LPModel, make_model
from lpparse.trees import allowed_arcs, check_tree_exists, validate_scores

__all__ = [
    "FORMULATIONS",
    "ArborescenceLP",
    "CycleCutFamily",
    "add_subtour_cuts",
    "arc_matrix",
    "cycle_cut_program",
    "heads_from_solution",
    "multi_commodity_flow",
    "separate_subtours",
    "single_commodity_flow",
    "solve_arborescence",
    "solve_cycle_cuts",
    "subtour_members",
]

_FLOW_SCALE = 1e8  # integer capacities for scipy's max-flow (int32): separation exact to ~n²·1e-8


class ArborescenceLP(LinearProgram):
    """An arborescence program (module docstring) with what its users read of it, typed: ``n`` tokens,
    ``single_root``, ``formulation`` (a key of :data:`FORMULATIONS`), the flow blocks' ``flow_capacity``
    (NoFlow: phi - capacity·z <= 0; None without flows) and ``commodities`` (flow columns per arc: 1, n or
    0), and the token subsets of the ``NoCycle`` rows, ``cuts``, in row order."""

    def __init__(self, formulation: str, n: int, single_root: bool) -> None:
        super().__init__(formulation)
        self.formulation = formulation
        self.n = n
        self.single_root = single_root
        self.flow_capacity: float | None = None
        self.commodities = 0
        self.cuts: list[tuple[int, ...]] = []
        #: programs attached by part families, by name (a family built on another's columns finds it here)
        self.extensions: dict[str, Any] = {}


def _arc_program(
    scores: NDArray[np.float64], single_root: bool, name: str
) -> tuple[ArborescenceLP, NDArray[np.int64]]:
    """Validated scores -> program with z, OneHead (and OneRoot); returns (lp, candidate arcs (K, 2))."""
    s = validate_scores(scores)
    check_tree_exists(s, single_root)
    n = s.shape[0] - 1
    arcs = np.argwhere(allowed_arcs(s)).astype(np.int64)
    lp = ArborescenceLP(name, n, single_root)
    z = lp.add_variables("z", arcs, cost=s[arcs[:, 0], arcs[:, 1]], integer=True)
    lp.constrain("OneHead", np.arange(1, n + 1), Terms.columns(z).at(arcs[:, 1]), 1.0, 1.0)
    if single_root:
        root = z[arcs[:, 0] == 0]
        lp.constrain("OneRoot", [0], Terms.columns(root).at(np.zeros(len(root))), 1.0, 1.0)
    return lp, arcs


def single_commodity_flow(scores: NDArray[np.float64], single_root: bool = False) -> ArborescenceLP:
    """Single-commodity flow program (Riedel, Smith & McCallum 2012 §3.1: OneHead, Source, Consume, NoFlow).
    Raises NoTreeError."""
    lp, arcs = _arc_program(scores, single_root, "single-flow")
    n = lp.n
    flows = lp.add_variables("phi", arcs)  # the columns in arc order, as z's: no look-up below
    lp.flow_capacity, lp.commodities = float(n), 1
    root = arcs[:, 0] == 0
    word = ~root
    phi = Terms.columns(flows)
    lp.constrain("Source", [0], Terms.columns(flows[root]).at(np.zeros(int(root.sum()))), n, n)
    out_of_word = Terms.columns(flows[word]).at(arcs[word, 0])
    lp.constrain("Consume", np.arange(1, n + 1), phi.at(arcs[:, 1]) - out_of_word, 1.0, 1.0)
    lp.constrain("NoFlow", arcs, phi - n * Terms.columns(lp.cols("z")), upper=0.0)
    return lp


def multi_commodity_flow(scores: NDArray[np.float64], single_root: bool = False) -> ArborescenceLP:
    """Multi-commodity flow program (one commodity per token; exact LP). Raises NoTreeError."""
    lp, arcs = _arc_program(scores, single_root, "multi-flow")
    n, k = lp.n, len(arcs)
    tokens = np.arange(1, n + 1)
    com = np.repeat(tokens, k)  # commodity of each flow column, arcs tiled inside
    flows = np.column_stack([com, np.tile(arcs, (n, 1))])  # (commodity, h, m)
    lp.add_variables("phi", flows)
    lp.flow_capacity, lp.commodities = 1.0, n
    root, word = flows[flows[:, 1] == 0], flows[flows[:, 1] > 0]
    lp.constrain("Source", tokens, lp.var("phi", root).at(root[:, 0]), 1.0, 1.0)
    nodes = np.column_stack([np.repeat(tokens, n), np.tile(tokens, n)])  # (commodity, node)
    rhs = (nodes[:, 0] == nodes[:, 1]).astype(np.float64)
    phi = lp.var("phi", flows)
    lp.constrain(
        "Consume", nodes, phi.at(flows[:, [0, 2]]) - lp.var("phi", word).at(word[:, [0, 1]]), rhs, rhs
    )
    lp.constrain("NoFlow", flows, phi - lp.var("z", flows[:, 1:]), upper=0.0)
    return lp


def cycle_cut_program(scores: NDArray[np.float64], single_root: bool = False) -> ArborescenceLP:
    """Riedel & Clarke (2006) master: z, OneHead (OneRoot); NoCycle rows come from
    :func:`add_subtour_cuts`."""
    return _arc_program(scores, single_root, "cycle-cuts")[0]


def heads_from_solution(solution: Solution) -> NDArray[np.int64]:
    """Heads array (heads[0] = -1) of a certified integral solution of an arborescence program (or of one
    built on it: grandparent, sibling), from its arc variables ``z[h, m]``."""
    lp = solution.lp
    if not isinstance(lp, ArborescenceLP):
        raise TypeError(f"heads come from an arborescence program, got {type(lp).__name__}")
    solution.require_certified()
    if not solution.integral:
        raise FractionalSolutionError("solution is fractional: it is not a tree (no heads)")
    idx = lp.var_blocks["z"].index
    on = solution.values("z") > 0.5
    heads = np.full(lp.n + 1, -1, dtype=np.int64)
    heads[idx[on, 1]] = idx[on, 0]
    return heads


def arc_matrix(lp: ArborescenceLP, x: NDArray[np.float64]) -> NDArray[np.float64]:
    """(n+1, n+1) matrix of the z values in a primal vector x (0 for absent arcs)."""
    n = lp.n
    idx = lp.var_blocks["z"].index
    zm = np.zeros((n + 1, n + 1))
    zm[idx[:, 0], idx[:, 1]] = x[lp.cols("z")]
    return zm


def _inside(zm: NDArray[np.float64], subset: NDArray[np.int64]) -> float:
    return float(zm[np.ix_(subset, subset)].sum())


def separate_subtours(zm: NDArray[np.float64], tol: float = TOL, exact: bool = True) -> list[tuple[int, ...]]:
    """Token subsets S with Σ_{h,m in S} z[h,m] > |S| - 1 + tol (violated NoCycle cuts) for arc values ``zm``.

    A token is *settled*, its every cut >= 1 - tol, when its heads by weight >= 1 - tol are the root and
    settled tokens (any set holding it and no settled token has those arcs entering), or when its max-flow
    from the root reaches 1 - tol; a set holding a settled token is not violated. So first the tokens are
    settled by propagation from the root (a tree settles them all: nothing is violated); among the others,
    the strongly connected components of the support graph (exact for integral z: its cycles); if none is
    violated and ``exact``, a minimum 0 -> k cut for every token k not settled (scipy max-flow on capacities
    z, scaled to integers, settled tokens contracted into the root): a cut below 1 bounds a set S whose
    entering arcs carry < 1, i.e. (with OneHead) Σ_{inside S} z > |S| - 1. Every returned set is re-checked
    exactly in floating point. ``exact=False``: the components alone.
    """
    n = zm.shape[0] - 1
    sure = np.zeros(n + 1, dtype=bool)
    sure[0] = True
    mass = zm[0].copy()

    def propagate(new: NDArray[np.int64]) -> None:
        while new.size:
            sure[new] = True
            mass[:] += zm[new].sum(axis=0)
            new = np.flatnonzero(~sure & (mass >= 1.0 - tol))

    propagate(np.flatnonzero(mass >= 1.0 - tol))
    rest = np.flatnonzero(~sure)
    if rest.size == 0:
        return []
    support = sp.csr_matrix(zm[np.ix_(rest, rest)] > tol)
    ncomp, label = connected_components(support, directed=True, connection="strong")
    found: dict[tuple[int, ...], None] = {}
    for c in range(ncomp):
        members = rest[label == c]
        if members.size >= 2 and _inside(zm, members) > members.size - 1 + tol:
            found[tuple(members.tolist())] = None
    if found or not exact:
        return list(found)
    small = np.zeros((rest.size + 1, rest.size + 1))
    small[0, 1:] = mass[rest]
    small[1:, 1:] = zm[np.ix_(rest, rest)]
    cap = sp.csr_matrix(np.round(np.clip(small, 0.0, None) * _FLOW_SCALE).astype(np.int32))
    covered = np.zeros(n + 1, dtype=bool)  # in a set found this round: no source of another
    while (todo := ~sure & ~covered).any():
        token = int(np.flatnonzero(todo)[mass[todo].argmax()])  # the surest first: its flow may settle others
        k = int(np.searchsorted(rest, token)) + 1
        result = maximum_flow(cap, 0, k)
        if result.flow_value >= (1.0 - tol) * _FLOW_SCALE:
            propagate(np.array([token]))
            continue
        residual = (cap - result.flow).tocsr()
        residual.data = (residual.data > 0).astype(np.int8)
        residual.eliminate_zeros()
        reach = np.zeros(rest.size + 1, dtype=bool)
        reach[breadth_first_order(residual, 0, directed=True, return_predecessors=False)] = True
        members = rest[np.flatnonzero(~reach) - 1]
        covered[token] = True  # its cut is the least: below 1 - tol only by the flow's rounding if not found
        if members.size >= 2 and _inside(zm, members) > members.size - 1 + tol:
            found[tuple(members.tolist())] = None
            covered[members] = True
    return list(found)


def subtour_members(lp: ArborescenceLP, subsets: list[tuple[int, ...]]) -> NDArray[np.int64]:
    """The token sets ``subsets`` as membership rows ((len(subsets), n + 1), 1 for a member): the labels of
    their ``NoCycle`` rows, which name each row's set, so that a row read by label (a proof's dual) defines
    itself."""
    member = np.zeros((len(subsets), lp.n + 1), dtype=np.int64)
    for t, subset in enumerate(subsets):
        member[t, list(subset)] = 1
    return member


def add_subtour_cuts(lp: ArborescenceLP, subsets: list[tuple[int, ...]]) -> NDArray[np.int64]:
    """Append ``NoCycle`` rows Σ_{h,m in S} z[h,m] <= |S| - 1 (in one batch), labelled by their sets'
    membership rows (:func:`subtour_members`); return their rows. A set already cut is left out."""
    known = set(lp.cuts)
    subsets = list(dict.fromkeys(s for s in subsets if s not in known))
    if not subsets:
        return np.empty(0, np.int64)
    arcs = lp.var_blocks["z"].index
    member = subtour_members(lp, subsets)
    cut, arc = np.nonzero(member[:, arcs[:, 0]] & member[:, arcs[:, 1]])
    lp.cuts.extend(subsets)
    inside = lp.var("z", arcs[arc]).at(member[cut])
    return lp.constrain("NoCycle", member, inside, upper=member.sum(axis=1) - 1.0)


class CycleCutFamily:
    """NoCycle rows of a cycle-cut program as a :class:`lpparse.colgen.PartFamily` that only separates:
    every round the subtours the solution violates (:func:`separate_subtours`, exact) enter as rows. No
    column is ever priced, and the absent NoCycle rows, none violated at the end, carry dual 0. ``warm``: the
    rows of an earlier run on the same sentence (``parts``: their membership rows) to start from; every
    NoCycle row is valid for every tree, so they stay valid over any subset of the arcs."""

    name = "cycles"
    degenerate_master = False
    candidates = scored = held_out = 0
    scoring_seconds = 0.0

    def __init__(self, lp: ArborescenceLP, warm: Warm | None = None) -> None:
        self.lp = lp
        self._cuts: list[tuple[int, ...]] = []
        self._start = [] if warm is None or not warm.parts else _subsets(warm.parts[0])

    @property
    def added(self) -> int:
        """NoCycle rows in the program."""
        return len(self.lp.cuts)

    tree = None  # nothing to start from: no part

    def pruned_arcs(self, heads: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        return np.empty(0, np.int64), np.empty(0, np.int64)

    def warm(self) -> Warm:
        """The program's NoCycle rows, for a later run to start from."""
        return Warm(parts=(subtour_members(self.lp, self.lp.cuts),))

    def seed(self) -> None:
        add_subtour_cuts(self.lp, self._start)
        self._start = []

    def inactive(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        return np.empty(0, np.int64), np.empty(0, np.int64)

    def repair(self, solution: Solution) -> Solution:
        return solution

    def price(self, state: DualState) -> Priced:
        return Priced(0, -np.inf)

    def separate(self, state: DualState) -> Separated:
        """The violated NoCycle rows: the strongly connected components' at once, the max-flow search's
        (exact) only in a round where nothing else enters (``state.entering``), as it costs a max-flow per
        unsettled token and the run cannot end in another round anyway."""
        zm = arc_matrix(self.lp, state.x)
        self._cuts = separate_subtours(zm, state.tol, exact=not state.entering)
        if not self._cuts and state.entering:
            return Separated(0, 0, np.inf, False)  # not searched: any violation
        return Separated(0, len(self._cuts), -np.inf, bool(self._cuts))

    def commit(self, model: LPModel) -> None:
        add_subtour_cuts(self.lp, self._cuts)

    def outside_duals(self) -> dict[str, tuple[NDArray[np.int64], NDArray[np.float64]]]:
        return {}

    def outside_shift(self) -> NDArray[np.float64]:
        return np.zeros(self.lp.num_cols)


def _subsets(member: NDArray[np.int64]) -> list[tuple[int, ...]]:
    """Token sets from membership rows (:func:`subtour_members`)."""
    return [tuple(np.flatnonzero(row).tolist()) for row in np.asarray(member)]


def solve_cycle_cuts(
    scores: NDArray[np.float64],
    single_root: bool = False,
    mip: bool = False,
    view: str = "highs",
    time_limit: float | None = None,
    max_rounds: int = 1000,
    tol: float = TOL,
) -> Solution:
    """Riedel & Clarke (2006) row generation on the engine: solve, separate NoCycle cuts, add them, re-solve
    warm (:class:`CycleCutFamily`; ``time_limit`` for the whole run).

    Stops when no cut is violated (the returned solution is then optimal over the full cycle-cut polytope,
    with the engine's certificate, or, with ``mip``, ILP-optimal with the MIP certificate of its last solve)
    or after ``max_rounds`` rounds of cuts (status ITERATION_LIMIT). ``info`` records ``rounds``, ``cuts``
    and ``total_time``; ``time`` is the sum of the solves' times.
    """
    start = time.perf_counter()
    lp = cycle_cut_program(scores, single_root)
    model = make_model(lp, view=view, mip=mip, tol=tol)
    options = ColgenOptions(
        tol=tol,
        certificate_tol=tol,
        time_limit=time_limit,
        max_iterations=max_rounds + 1,
        master=MasterSettings(None, {}),  # HiGHS's defaults: no stall rule
    )
    from lpparse.colgen.engine import Engine  # the engine where a program is solved: building one needs none

    run = Engine(lp, [CycleCutFamily(lp)], options, start, master=model).run()
    sol = dataclasses.replace(
        run.solution,
        status=run.status,
        certificate=run.certificate,
        time=run.time_solving,
        iterations=run.simplex_iterations,
    )
    sol.info.update(rounds=run.iterations - 1, cuts=len(lp.cuts), total_time=time.perf_counter() - start)
    return sol


FORMULATIONS: dict[str, Callable[[NDArray[np.float64], bool], ArborescenceLP]] = {
    "single-flow": single_commodity_flow,
    "multi-flow": multi_commodity_flow,
    "cycle-cuts": cycle_cut_program,
}


def solve_arborescence(
    scores: NDArray[np.float64],
    formulation: str = "single-flow",
    mip: bool = False,
    single_root: bool = False,
    view: str = "highs",
    time_limit: float | None = None,
    tol: float = TOL,
) -> Solution:
    """Build ``formulation`` (a key of :data:`FORMULATIONS`) and solve it as LP or ILP in ``view``."""
    if formulation == "cycle-cuts":
        return solve_cycle_cuts(scores, single_root, mip, view, time_limit, tol=tol)
    if formulation not in FORMULATIONS:
        raise ValueError(f"unknown formulation {formulation!r}; choose one of {sorted(FORMULATIONS)}")
    lp = FORMULATIONS[formulation](scores, single_root)
    return make_model(lp, view=view, mip=mip, time_limit=time_limit, tol=tol).solve()
