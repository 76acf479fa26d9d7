"""The part-family protocol of the column-and-row generation engine (:mod:`lpparse.colgen.engine`).

A family (grandparent triples, arbitrary siblings, later consecutive siblings or third-order parts) knows
only its own index space, its columns and their rows, its bounds and its scorer; the engine owns the loop
and the restricted master (the shape of PySCIPOpt's ``Pricer``: the solver loops, the plug-in prices, and of
:class:`lpparse.dd.core.Component`). Every round the engine solves the master and then calls, for each family
in turn, :meth:`PartFamily.repair`, :meth:`PartFamily.price` and :meth:`PartFamily.separate` on one shared
:class:`DualState`, and, unless nothing enters, :meth:`PartFamily.commit`. At the end it asks every family for
:meth:`PartFamily.outside_shift` (Aᵀy of its absent rows given nonzero duals) to certify the extension by
zeros on the full program.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from lpparse.lp.solution import Solution

if TYPE_CHECKING:
    from lpparse.lp.views import LPModel

__all__ = ["OutsideDuals", "DualState", "NodeFamily", "PartFamily", "Priced", "Separated", "Warm"]


#: Duals of rows absent from the restricted program: block name -> (index tuples (k, arity), values (k,))
OutsideDuals = dict[str, tuple[NDArray[np.int64], NDArray[np.float64]]]


@dataclass
class DualState:
    """One round's restricted solution as the families price and separate against it.

    ``solution``: the master's solution after every family's :meth:`PartFamily.repair` (primal ``x``,
    solver duals ``row_dual``, reduced costs ``col_dual``); ``y``: the duals the round ends with, which
    families tighten in place (a copy of ``row_dual`` to start); ``shared``: arrays the families share, made
    once a round by the first that asks (:meth:`cached`): views of the solution (``"arc_values"``) and dual
    slack (``"arc_slack"``, the β of the arcs at 0 that dual tightening may spend: a family subtracts what it
    spends, so the next sees only what is left); ``entering``: how many columns and rows are to enter this
    round so far (every family's priced columns, then what the families before it separated), which lets a
    costly exact separation wait for a round where nothing else enters; ``cuts``: whether families separate
    their cuts, rows valid for every tree but outside the LP the certificate is about (``ColgenOptions.cuts``;
    the rows of the LP itself are separated either way)."""

    solution: Solution
    y: NDArray[np.float64]
    tol: float
    shared: dict[str, NDArray[np.float64]] = field(default_factory=dict)
    entering: int = 0
    cuts: bool = True

    @property
    def x(self) -> NDArray[np.float64]:
        assert self.solution.x is not None
        return self.solution.x

    def cached(self, name: str, make: Callable[[], NDArray[np.float64]]) -> NDArray[np.float64]:
        """The shared array ``name`` (a budget or a view of the solution), made by ``make`` for the first
        family that asks."""
        if name not in self.shared:
            self.shared[name] = make()
        return self.shared[name]


@dataclass(frozen=True)
class Priced:
    """What a family's pricing found: ``columns`` parts with reduced cost > tol to enter; ``max_reduced_cost``
    bounds the reduced costs of the absent parts that stay out (after tightening); ``tightened``: duals
    changed by tightening (raised rows plus absent rows given a nonzero dual)."""

    columns: int
    max_reduced_cost: float
    tightened: int = 0


@dataclass(frozen=True)
class Separated:
    """What a family's separation found: ``columns`` absent parts whose rows are violated (not already
    priced) and ``rows`` held-back rows of present parts that are violated, all to enter; ``max_violation``
    bounds the violation of the rows left out; ``infeasible``: what enters cuts the current point off (the
    next solve is a dual simplex)."""

    columns: int
    rows: int
    max_violation: float
    infeasible: bool


@dataclass(frozen=True)
class Warm:
    """What a run on a sentence hands a later run on the same sentence, per family: its score cache
    (``cache``, so that no part is scored twice; None: a fresh one) and parts to start from (``parts``: index
    arrays, one per part index; those whose arcs are no longer candidates are dropped)."""

    cache: Any = None
    parts: tuple[NDArray[np.int64], ...] | None = None


@runtime_checkable
class PartFamily(Protocol):
    """A kind of part priced and separated by :class:`lpparse.colgen.engine.Engine`.

    ``name`` keys its entries in the trace; ``candidates``: how many parts it has in all (what brute force
    scores and adds); ``scored``: parts scored so far in this run; ``added``: parts with a column in the
    master; ``held_out``: master columns it keeps out of HiGHS for now; ``scoring_seconds``: time spent
    scoring (the engine counts it apart from pricing); ``degenerate_master``: see below. Optional:
    ``pricing_priority`` (an int, 0 when absent): families price in increasing priority, then in the order
    given, and a family pricing earlier spends the shared arc slack first (:mod:`lpparse.colgen.engine`)."""

    name: str
    #: its parts make the restricted master highly degenerate (many columns with both arcs at 0): the engine
    #: then re-solves with :data:`lpparse.colgen.options.DEGENERATE_MASTER` unless the options say otherwise
    degenerate_master: bool

    @property
    def candidates(self) -> int: ...

    @property
    def scored(self) -> int: ...

    @property
    def added(self) -> int: ...

    @property
    def held_out(self) -> int: ...

    @property
    def scoring_seconds(self) -> float: ...

    #: the tree the restricted master starts from (its parts enter first), set by the front end before
    #: :meth:`seed`: a tree with no pruned part of any family; None: start from every candidate part
    tree: NDArray[np.int64] | None

    def pruned_arcs(self, heads: NDArray[np.int64]) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """(h, m) of one arc of each of the tree's parts scored -inf (scoring them): the front end parses again
        without those arcs to find a start tree free of pruned parts."""

    def warm(self) -> Warm:
        """The family's score cache and present parts, for a later run on the same sentence to start from."""

    def seed(self) -> None:
        """Add the first columns (with their own rows) to the program, before the master is built: the parts
        of :attr:`tree` (and of a warm start), or every candidate part when it is None."""

    def inactive(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """(columns, rows) of the program to keep out of HiGHS at the start (forced to 0 by the program)."""

    def repair(self, solution: Solution) -> Solution:
        """``solution`` with duals optimal for the restricted program itself (e.g. for the columns and rows
        it keeps out of HiGHS); identity for most families."""

    def price(self, state: DualState) -> Priced:
        """Reduced costs of absent parts from ``state``'s duals: rule parts out by factorized bounds without
        scoring them, tighten duals (in ``state.y`` and the shared budgets), score the rest; hold the parts
        to add until :meth:`commit`."""

    def separate(self, state: DualState) -> Separated:
        """Absent parts (and held-back rows) whose rows ``state.x`` violates; held until :meth:`commit`."""

    def commit(self, model: LPModel) -> None:
        """Add what :meth:`price` and :meth:`separate` found to the program (a column with its own rows),
        and bring into ``model`` (the live master) what it kept out and may now be used."""

    def outside_duals(self) -> OutsideDuals:
        """Nonzero duals of rows absent from the program: block name -> (index tuples, duals), for
        :func:`lpparse.ppc.certificate.certify_full`."""

    def outside_shift(self) -> NDArray[np.float64]:
        """Aᵀy of :meth:`outside_duals` on the program's columns (length ``lp.num_cols``)."""


@runtime_checkable
class NodeFamily(PartFamily, Protocol):
    """A part family whose run can go on as the LP of a branch-and-bound node by bound changes on the same
    master (:mod:`lpparse.exact.live`; Gamrath & Lübbecke 2010, "Experiments with a Generic Dantzig-Wolfe
    Decomposition for Integer Programs", SEA 2010). A node is a subset of the program's arcs; its full LP
    has the candidate parts over those arcs only (the parts that ``Parts.candidates`` gives for them). Its
    ``Parts`` says so with ``live = True``."""

    def restrict(self, arc_mask: NDArray[np.bool_]) -> None:
        """Price and separate from now on only the candidate parts over the arcs ``arc_mask`` (a subset of the
        program's)."""

    def include(self, heads: NDArray[np.int64], model: LPModel) -> None:
        """Add the parts of the tree ``heads`` (over the node's arcs, none pruned) that the program lacks, so
        that the restricted LP holds that tree whatever columns earlier nodes left."""

    def node_columns(self, arc_mask: NDArray[np.bool_]) -> tuple[NDArray[np.int64], NDArray[np.bool_]]:
        """The family's part columns in the program, and whether each part is a candidate over ``arc_mask``
        (the others are fixed at 0 at that node)."""
