"""Dense chart programs: a dynamic program as a list of vectorized rules over tables, run under any semiring.

A :class:`Program` names its item tables, the cells that are axioms (value one), and its rules in
topological order. A :class:`Rule` gathers each of its operands as a (rows..., splits) block of a table
(numpy basic or fancy indices, broadcast together, so one rule covers every span of one width and every split
point at once), ⊗-combines them, ⊕-sums over the splits and writes the (rows...) result into its outputs. The input weights are
the table :data:`WEIGHTS`; a rule uses them either as an operand (a weight per split) or as one ``arc`` per
output (one weight per row, ⊗-multiplied after the sum).

:func:`run` evaluates a program forward and then differentiates its goal with respect to every table by one
backward pass through the semiring's local weights (:mod:`lpparse.dp.semiring`): under ``MAX`` the adjoint of
the weights is the 0/1 indicator of the best derivation's weights, under ``LOG`` their marginals, under
``DUAL_LOG`` the marginals and their tangents. :func:`best` is the fast path of ``MAX``: back-pointers
instead of dense one-hot adjoints. :func:`lpparse.hypergraph.program.program_hypergraph` turns the same
program into an explicit hypergraph, so a DP is written once and read both ways.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lpparse.dp.semiring import MAX, Array, Semiring

__all__ = ["WEIGHTS", "ChartResult", "Program", "Ref", "Rule", "best", "run"]

#: Name of the input table: the weights the program is differentiated by.
WEIGHTS = "weights"

#: Either basic (ints, and slices whose start is explicit when their step is negative) or integer arrays only.
Index = tuple[slice | int | NDArray[np.int64], ...]


@dataclass(frozen=True)
class Ref:
    """A block of cells ``table[index]``."""

    table: str
    index: Index
    at: Index = field(init=False, repr=False, compare=False)  #: ``index`` behind the leading value axis
    basic: bool = field(init=False, repr=False, compare=False)  #: no integer arrays: a view

    def __post_init__(self) -> None:
        object.__setattr__(self, "at", (slice(None), *self.index))
        object.__setattr__(self, "basic", not any(isinstance(c, np.ndarray) for c in self.index))


@dataclass(frozen=True)
class Rule:
    """``outputs[i] = (⊕_splits ⊗_j operands[j]) ⊗ arcs[i]``.

    Operands index to (rows..., splits) (broadcasting), outputs and arcs to (rows...). Without ``arcs`` the outputs are layouts
    of one item (the same cells stored twice, so that later rules read them as plain slices); with ``arcs``
    (one per output) each output is an item of its own built from the shared sum.
    """

    name: str
    operands: tuple[Ref, ...]
    outputs: tuple[Ref, ...]
    arcs: tuple[Ref, ...] = ()


@dataclass(frozen=True)
class Program:
    """Item tables (name → shape), axiom cells (groups of layouts of the same cells), rules in topological
    order, the goal (one cell), and the shape and ``forbidden`` cells (weight zero) of :data:`WEIGHTS`."""

    tables: dict[str, tuple[int, ...]]
    axioms: tuple[tuple[Ref, ...], ...]
    rules: tuple[Rule, ...]
    goal: Ref
    weight_shape: tuple[int, ...]
    forbidden: Index = field(default=())

    @cached_property
    def writers(self) -> dict[str, NDArray[np.int64]]:
        """For every table cell, the code ``(rule position · 2⁸ + output position) · 2³² + flat row`` of the
        rule output that writes it (see :func:`_writer`), or -1."""
        writers = {name: np.full(shape, -1, dtype=np.int64) for name, shape in self.tables.items()}
        for position, rule in enumerate(self.rules):
            for i, out in enumerate(rule.outputs):
                shape = writers[out.table][out.index].shape
                rows = np.arange(int(np.prod(shape))).reshape(shape)
                writers[out.table][out.index] = (((position << 8) + i) << 32) + rows
        return writers


def _writer(code: int) -> tuple[int, int, int]:
    """(rule position, output position, flat row) of a :attr:`Program.writers` code."""
    return code >> 40, (code >> 32) & 0xFF, code & 0xFFFFFFFF


@dataclass
class ChartResult:
    value: Array  #: (width,) goal value (with its tangent under DUAL_LOG)
    adjoints: Array  #: (width, *weight_shape) d value / d weights (and its tangent)


Reduce = Callable[[Array], tuple[Array, Any]]


def _forward(
    program: Program, weights: Array, semiring: Semiring, reduce: Reduce
) -> tuple[dict[str, Array], list[Any]]:
    """Item tables (``weights`` included, forbidden cells zeroed) and what ``reduce`` saved for each rule."""
    tables = {name: semiring.zeros(shape) for name, shape in program.tables.items()}
    w = np.array(weights, dtype=np.float64)
    if program.forbidden:
        w[(0, *program.forbidden)] = -np.inf
        w[(slice(1, None), *program.forbidden)] = 0.0
    tables[WEIGHTS] = w
    for group in program.axioms:
        for ref in group:
            tables[ref.table][ref.at] = 0.0
    saved = []
    for rule in program.rules:
        first, *rest = rule.operands
        x = tables[first.table][first.at]
        for ref in rest:
            x = x + tables[ref.table][ref.at]
        value, local = reduce(x)
        for i, out in enumerate(rule.outputs):
            tables[out.table][out.at] = value + tables[WEIGHTS][rule.arcs[i].at] if rule.arcs else value
        saved.append(local)
    return tables, saved


def run(program: Program, weights: Array, semiring: Semiring) -> ChartResult:
    """Forward and backward pass of ``program`` on ``weights`` (shape (semiring.width, *weight_shape))."""
    tables, saved = _forward(program, weights, semiring, semiring.reduce)
    goal = program.goal
    adjoints = {name: np.zeros_like(table) for name, table in tables.items()}
    adjoints[goal.table][goal.at] = semiring.unit()
    for rule, local in zip(reversed(program.rules), reversed(saved)):
        parent = adjoints[rule.outputs[0].table][rule.outputs[0].at]
        for out in rule.outputs[1:]:
            parent = parent + adjoints[out.table][out.at]
        for out, arc in zip(rule.outputs, rule.arcs):
            _accumulate(adjoints[WEIGHTS], arc, adjoints[out.table][out.at])
        contrib = semiring.mul(parent[..., None], local)
        for ref in rule.operands:
            _accumulate(adjoints[ref.table], ref, contrib)
    return ChartResult(tables[goal.table][goal.at], adjoints[WEIGHTS])


def _accumulate(target: Array, ref: Ref, contrib: Array) -> None:
    """``target[ref.at] += contrib``, in place through a view when ``ref`` is a basic index; an operand
    broadcast along some rows of ``contrib`` gets its sum over them."""
    block = target[ref.at]
    if block.shape != contrib.shape:
        contrib = contrib.sum(axis=tuple(range(1, 1 + contrib.ndim - block.ndim)))
        contrib = contrib.sum(
            axis=tuple(i for i in range(1, block.ndim) if block.shape[i] == 1), keepdims=True
        )
    if ref.basic:
        block += contrib
    else:
        target[ref.at] = block + contrib


def _best_split(x: Array) -> tuple[Array, NDArray[np.int64]]:
    """Max over the last axis and its first argmax (the tie rule of ``MAX.reduce``)."""
    return x.max(axis=-1), x[0].argmax(axis=-1)


def best(program: Program, weights: Array) -> tuple[float, Array]:
    """Viterbi value and the 0/1 indicators (shape ``weight_shape``) of the weights of the best derivation.

    The fast path of ``run(program, weights[None], MAX)`` (same value and adjoints; -inf and zeros when the
    goal has no derivation): it saves each rule's best split instead of its dense one-hot weights, and
    follows those back-pointers from the goal, visiting only the O(n) items of the best derivation.
    """
    tables, splits = _forward(program, np.asarray(weights)[None], MAX, _best_split)
    goal = program.goal
    value = float(tables[goal.table][goal.at][0])
    chosen = np.zeros(program.weight_shape)
    if value == -np.inf:
        return value, chosen
    writers = program.writers
    stack = [(goal.table, _cell(goal.index, ()))]
    while stack:
        table, cell = stack.pop()
        code = int(writers[table][cell])
        if code < 0:  # an axiom
            continue
        rule_id, out, row = _writer(code)
        rule = program.rules[rule_id]
        k = splits[rule_id]
        pos = tuple(int(i) for i in np.unravel_index(row, k.shape))
        if rule.arcs:
            chosen[_cell(rule.arcs[out].index, pos)] += 1.0
        pos = (*pos, int(k[pos]))
        for ref in rule.operands:
            if ref.table == WEIGHTS:
                chosen[_cell(ref.index, pos)] += 1.0
            else:
                stack.append((ref.table, _cell(ref.index, pos)))
    return value, chosen


def _cell(index: Index, pos: tuple[int, ...]) -> tuple[int, ...]:
    """The table cell at position ``pos`` (right-aligned, as numpy broadcasts) of the block ``table[index]``."""
    if any(isinstance(c, np.ndarray) for c in index):  # integer arrays that broadcast together
        return tuple(
            int(c[tuple(p if d > 1 else 0 for p, d in zip(pos[len(pos) - c.ndim :], c.shape))]) for c in index
        )
    slices = [c for c in index if isinstance(c, slice)]
    at = iter(pos[len(pos) - len(slices) :])
    return tuple(
        c if not isinstance(c, slice) else (c.start or 0) + (1 if c.step is None else c.step) * next(at)
        for c in index
    )
