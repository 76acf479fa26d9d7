"""A chart program (:mod:`lpparse.dp.chart`) as an explicit hypergraph: the same DP, read edge by edge.

Every cell a rule writes is a node and every (row, split) of a rule a hyperedge from the operands' cells (its
tails) to the row's sum, with the :data:`~lpparse.dp.chart.WEIGHTS` cells among its operands as its parts; a
rule with ``arcs`` adds one unary edge per output, from the sum to the output, whose part is the arc. Weight
cells are the parts (part id = flat index, label = the cell's coordinates unless given). Edges that no derivation of the
goal can use (a forbidden part, a tail with no derivation, or a head the goal does not reach) are dropped.
Edge kinds are the rule names (and the output tables of unary arc edges); an edge's label is (rule position,
row, split), with split -1 - i on the unary arc edges of output i (unique labels within a kind, which names
the LP columns of :mod:`lpparse.formulations.marginal`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from lpparse.dp.chart import WEIGHTS, Program
from lpparse.hypergraph.core import Edges, Hypergraph, hypergraph

__all__ = ["program_hypergraph"]


@dataclass
class _Block:
    """The edges of one rule (or of one rule's unary arc edges), each array of shape (edges,)."""

    kind: str
    head: NDArray[np.int64]
    tails: list[NDArray[np.int64]]
    parts: list[NDArray[np.int64]]
    label: NDArray[np.int64]
    live: NDArray[np.bool_]


def program_hypergraph(
    program: Program, name: str, part_label: NDArray[np.int64] | None = None
) -> Hypergraph:
    """The hypergraph of ``program`` (see the module docstring); ``part_label`` overrides the parts' labels."""
    ids = {table: np.full(shape, -1, dtype=np.int64) for table, shape in program.tables.items()}
    part_of = np.arange(int(np.prod(program.weight_shape))).reshape(program.weight_shape)
    forbidden = np.zeros(program.weight_shape, dtype=bool)
    if program.forbidden:
        forbidden[program.forbidden] = True
    nodes = _Nodes()
    axioms = []
    for group in program.axioms:
        cells = nodes.new(ids[group[0].table][group[0].index].shape, np.array(True))
        axioms.append(cells.ravel())
        for ref in group:
            ids[ref.table][ref.index] = cells
    blocks = []
    for position, rule in enumerate(program.rules):
        grids = [
            (ref.table == WEIGHTS, (part_of if ref.table == WEIGHTS else ids[ref.table])[ref.index])
            for ref in rule.operands
        ]
        shape = np.broadcast_shapes(*(g.shape for _, g in grids))
        tails = [np.broadcast_to(g, shape).ravel() for is_part, g in grids if not is_part]
        parts = [np.broadcast_to(g, shape).ravel() for is_part, g in grids if is_part]
        live = np.logical_and.reduce([nodes.alive(t) for t in tails] + [~forbidden.ravel()[p] for p in parts])
        *row_shape, splits = shape  # rows may span several axes (e.g. grandparent x span)
        rows = int(np.prod(row_shape))
        sums = nodes.new((rows,), live.reshape(rows, splits).any(axis=-1))
        row, split = np.repeat(np.arange(rows), splits), np.tile(np.arange(splits), rows)
        label = np.column_stack([np.full(row.shape, position), row, split])
        blocks.append(_Block(rule.name, np.repeat(sums, splits), tails, parts, label, live))
        for i, out in enumerate(rule.outputs):
            if not rule.arcs:
                ids[out.table][out.index] = sums.reshape(row_shape)
                continue
            arc = part_of[rule.arcs[i].index].ravel()
            arc_live = nodes.alive(sums) & ~forbidden.ravel()[arc]
            cells = nodes.new((rows,), arc_live)
            ids[out.table][out.index] = cells.reshape(row_shape)
            unary = np.column_stack([np.full(rows, position), np.arange(rows), np.full(rows, -1 - i)])
            blocks.append(_Block(out.table, cells, [sums], [arc], unary, arc_live))
    goal = int(ids[program.goal.table][program.goal.index])
    useful = _useful(blocks, nodes.count, goal)
    if part_label is None:
        part_label = np.indices(program.weight_shape).reshape(len(program.weight_shape), -1).T
    return _assemble(blocks, np.concatenate(axioms), goal, useful, part_label, name)


class _Nodes:
    """Hypergraph nodes numbered as they are made, each alive or not."""

    def __init__(self) -> None:
        self.count = 0
        self._alive: list[NDArray[np.bool_]] = []

    def new(self, shape: tuple[int, ...], live: NDArray[np.bool_]) -> NDArray[np.int64]:
        """New nodes of ``shape``, alive where ``live`` (broadcast)."""
        out = self.count + np.arange(int(np.prod(shape))).reshape(shape)
        self.count += out.size
        self._alive.append(np.broadcast_to(live, shape).ravel())
        return out

    def alive(self, nodes: NDArray[np.int64]) -> NDArray[np.bool_]:
        """Whether each of ``nodes`` (-1: none) is alive."""
        flags = np.concatenate(self._alive)
        return (nodes >= 0) & flags[np.maximum(nodes, 0)]


def _useful(blocks: list[_Block], count: int, goal: int) -> NDArray[np.bool_]:
    """The nodes the goal derives from through live edges; each block keeps only its edges into them."""
    useful = np.zeros(count, dtype=bool)
    useful[goal] = True
    for block in reversed(blocks):  # rules are in topological order: heads come after their tails
        block.live &= useful[block.head]
        for t in block.tails:
            useful[t[block.live]] = True
    return useful


def _assemble(
    blocks: list[_Block],
    axioms: NDArray[np.int64],
    goal: int,
    useful: NDArray[np.bool_],
    part_label: NDArray[np.int64],
    name: str,
) -> Hypergraph:
    """Renumber the useful nodes and build the hypergraph of the live edges."""
    node = np.cumsum(useful) - 1
    arity = max(len(b.tails) for b in blocks)
    kinds = tuple(dict.fromkeys(b.kind for b in blocks))
    kept = [b for b in blocks if b.live.any()]
    tails = [
        np.concatenate(
            [node[b.tails[j][b.live]] if j < len(b.tails) else np.full(b.live.sum(), -1) for b in kept]
        )
        for j in range(arity)
    ]
    edge_start = np.cumsum([0] + [int(b.live.sum()) for b in kept])
    part_ids = np.concatenate([p[b.live] for b in kept for p in b.parts])
    part_edges = np.concatenate(
        [start + np.arange(int(b.live.sum())) for b, start in zip(kept, edge_start) for _ in b.parts]
    )
    return hypergraph(
        num_nodes=int(useful.sum()),
        root=int(node[goal]),
        edges=Edges(
            head=np.concatenate([node[b.head[b.live]] for b in kept]),
            tails=tails,
            kinds=kinds,
            kind=np.concatenate([np.full(int(b.live.sum()), kinds.index(b.kind)) for b in kept]),
            label=np.concatenate([b.label[b.live] for b in kept]),
        ),
        part_edge=(part_ids, part_edges),
        part_label=part_label,
        axiom=node[axioms[useful[axioms]]],
        name=name,
    )
