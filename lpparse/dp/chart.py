"""Dense chart programs: a dynamic program as a list of vectorized rules over tables, run under any semiring.

A :class:`Program` names its item tables, the cells that are axioms (value one), and its rules in
topological order. A :class:`Rule` gathers each of its operands as a (rows, splits) block of a table (numpy
basic or fancy indices, so one rule covers every span of one width and every split point at once),
⊗-combines them, ⊕-sums over the splits and writes the (rows,) result into its outputs. The input weights are
the table :data:`WEIGHTS`; a rule uses them either as an operand (a weight per split) or as one ``arc`` per
output (one weight per row, ⊗-multiplied after the sum).

:func:`run` evaluates a program forward and then differentiates its goal with respect to every table by one
backward pass through the semiring's local weights (:mod:`lpparse.dp.semiring`): under ``MAX`` the adjoint of
the weights is the 0/1 indicator of the best derivation's weights, under ``LOG`` their marginals, under
``DUAL_LOG`` the marginals and their tangents. :func:`lpparse.hypergraph.program.program_hypergraph` turns the
same program into an explicit hypergraph, so a DP is written once and read both ways.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from lpparse.dp.semiring import Array, Semiring

__all__ = ["WEIGHTS", "ChartResult", "Program", "Ref", "Rule", "run"]

#: Name of the input table: the weights the program is differentiated by.
WEIGHTS = "weights"

Index = tuple[slice | int | NDArray[np.int64], ...]


@dataclass(frozen=True)
class Ref:
    """A block of cells ``table[index]``."""

    table: str
    index: Index

    @property
    def at(self) -> Index:
        """The index with the semiring's leading value axis in front."""
        return (slice(None), *self.index)


@dataclass(frozen=True)
class Rule:
    """``outputs[i] = (⊕_splits ⊗_j operands[j]) ⊗ arcs[i]``.

    Operands index to (rows, splits), outputs and arcs to (rows,). Without ``arcs`` the outputs are layouts
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


@dataclass
class ChartResult:
    value: Array  #: (width,) goal value (with its tangent under DUAL_LOG)
    adjoints: Array  #: (width, *weight_shape) d value / d weights (and its tangent)


def run(program: Program, weights: Array, semiring: Semiring) -> ChartResult:
    """Forward and backward pass of ``program`` on ``weights`` (shape (semiring.width, *weight_shape))."""
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
        value, local = semiring.reduce(x)
        for i, out in enumerate(rule.outputs):
            tables[out.table][out.at] = value + tables[WEIGHTS][rule.arcs[i].at] if rule.arcs else value
        saved.append(local)
    goal = program.goal
    adjoints = {name: np.zeros_like(table) for name, table in tables.items()}
    adjoints[goal.table][goal.at] = semiring.unit()
    for rule, local in zip(reversed(program.rules), reversed(saved)):
        parent = adjoints[rule.outputs[0].table][rule.outputs[0].at]
        for out in rule.outputs[1:]:
            parent = parent + adjoints[out.table][out.at]
        for out, arc in zip(rule.outputs, rule.arcs):
            adjoints[WEIGHTS][arc.at] += adjoints[out.table][out.at]
        contrib = semiring.mul(parent[..., None], local)
        for ref in rule.operands:
            adjoints[ref.table][ref.at] += contrib
    return ChartResult(tables[goal.table][goal.at], adjoints[WEIGHTS])
