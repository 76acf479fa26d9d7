"""Proofs of exact decoding as JSON records (``lpparse parse --decoder exact --proof FILE``, one line per
sentence) and back, for :func:`lpparse.ppc.exact.check_proof` (``lpparse check-proof``).

A record holds what the proof is made of and nothing a checker should trust: the tree and its score, the
tolerance, the root rule and the arborescence program, the row families of each part family (their
``preset``), the candidate arcs when they were pruned, and per node its parent, branching decision
(``modifier`` and the ``kept`` heads), fixed arcs, how it was closed, and its duals or dual ray by row label
(:data:`lpparse.ppc.proof.LabelledDuals`). Node arc sets are rebuilt from the decisions, never stored;
certificates and stored bounds are not written. JSON writes floats by ``repr``, so duals and scores read
back bit for bit.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import NDArray

from lpparse.lp.solution import Status
from lpparse.ppc.parts import Parts, exact_parts
from lpparse.ppc.proof import LabelledDuals
from lpparse.ppc.search_tree import BranchNode, ExactResult, ExactStats, child_mask
from lpparse.trees import allowed_arcs

__all__ = ["proof_record", "read_proof_record"]

#: version of the record layout
VERSION = 1


def _duals(duals: LabelledDuals | None) -> dict[str, Any] | None:
    if duals is None:
        return None
    return {
        name: {"index": index.tolist(), "values": values.tolist()} for name, (index, values) in duals.items()
    }


def _labelled(data: dict[str, Any] | None) -> LabelledDuals | None:
    if data is None:
        return None
    out: LabelledDuals = {}
    for name, entry in data.items():
        values = np.asarray(entry["values"], np.float64)
        out[name] = (np.asarray(entry["index"], np.int64).reshape(values.size, -1), values)
    return out


def proof_record(
    result: ExactResult, parts: Sequence[Parts], kept_arcs: NDArray[np.bool_] | None = None
) -> dict[str, Any]:
    """The JSON-able proof of ``result`` (an exact search over ``parts``); ``kept_arcs``: the arcs pruning
    kept, when the search ran over pruned arcs."""
    if result.heads is None:
        raise ValueError(f"no tree to prove (status {result.status.value})")
    nodes = [
        {
            "id": node.id,
            "parent": node.parent,
            "modifier": node.modifier,
            "kept": None if node.kept is None else np.flatnonzero(node.kept).tolist(),
            "closed": node.closed,
            "fixed": [[h, m] for h, m, _ in node.fixed],
            "duals": _duals(node.duals),
            "ray": _duals(node.ray),
        }
        for node in result.nodes
    ]
    return {
        "proof_version": VERSION,
        "heads": result.heads.tolist(),
        "objective": result.objective,
        "bound": result.bound,
        "status": result.status.value,
        "gap_tol": result.gap_tol,
        "single_root": result.single_root,
        "base": result.base,
        "families": {p.name: list(getattr(p, "preset", ())) for p in exact_parts(parts)},  # as the search used them
        "kept_arcs": None if kept_arcs is None else np.argwhere(kept_arcs).tolist(),
        "nodes": nodes,
    }


def read_proof_record(record: dict[str, Any], arc_scores: NDArray[np.float64]) -> ExactResult:
    """The :class:`ExactResult` a record describes over the arc scores it was searched on (pruned to its
    ``kept_arcs`` by the caller), node arc sets rebuilt from the root's and the branching decisions; raises
    ValueError on a record that does not hold together (a parent after its child, a wrong version)."""
    if record.get("proof_version") != VERSION:
        raise ValueError(
            f"proof_version {record.get('proof_version')!r}: this lpparse reads version {VERSION}"
        )
    size = arc_scores.shape[0]
    heads = np.asarray(record["heads"], np.int64)
    nodes: list[BranchNode] = []
    for i, data in enumerate(record["nodes"]):
        if data["id"] != i:
            raise ValueError(f"node {i} is recorded as {data['id']}")
        parent = int(data["parent"])
        kept = None
        if data["kept"] is not None:
            kept = np.zeros(size, bool)
            kept[np.asarray(data["kept"], np.int64)] = True
        if parent < 0:
            mask = allowed_arcs(arc_scores)
        elif parent >= i or data["modifier"] is None or kept is None:
            raise ValueError(
                f"node {i}: its parent {parent} or its branching decision is not recorded before it"
            )
        else:
            mask = child_mask(nodes[parent].base_mask(), int(data["modifier"]), kept)
        node = BranchNode(
            i, parent, 0 if parent < 0 else nodes[parent].depth + 1, data["modifier"], kept, mask, np.nan
        )
        node.closed = data["closed"]
        node.fixed = [(int(h), int(m), 0.0) for h, m in data["fixed"]]
        node.duals, node.ray = _labelled(data["duals"]), _labelled(data["ray"])
        nodes.append(node)
    for node in nodes:
        if node.parent >= 0:
            parent = nodes[node.parent]
            parent.children = (*parent.children, node.id)
    return ExactResult(
        Status(record["status"]),
        heads,
        float(record["objective"]),
        float(record["bound"]),
        bool(record["single_root"]),
        float(record["gap_tol"]),
        nodes,
        ExactStats(size - 1),
        base=str(record["base"]),
    )
